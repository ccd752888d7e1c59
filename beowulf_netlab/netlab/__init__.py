"""The network: turns a NetworkSpec into namespaces, veths, bridges and qdiscs.

Division of labor: `capabilities` probes what this kernel and host offer and
`impls` picks an implementation for each piece (or refuses); `shaping`, `bond`
and `relay` build the tc/ip/nft argv of a wire, a bonded node and a relay;
`wire`, `node` and `topo` are the Mininet classes that apply them (`topo` hands them the
time-scaled values, topologies.timescale); `tcpstat` declares the TCP record a point keeps
of its nodes, which `node` reads;
`medium` runs the frame-timed medium engine (engine/, Rust) that carries the
shared wires where it is built (`wire` is then a set of its ports, not a bridge);
`hostcost` is a node's CPU budget, `nic` a card's gap, `contention` CSMA/CD's
average cost on the tc wire;
`testbed` builds and always tears down one network (`record` declares what it records of itself), with `manifest` recording
what a run made so the clean verb removes exactly that, and `running` reading those
records for the inspect and shell verbs (the networks running now, a node entered); `disk` gives nodes throttled
disks (`disk_profiles` says how fast) and `pfs` runs a GlusterFS brick and
client on each node's disk; `console` is Mininet's CLI on a testbed.
Imports only `core` and `topologies`; nothing here knows about workloads.
"""
