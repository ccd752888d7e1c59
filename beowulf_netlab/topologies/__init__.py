"""The network model: what to build, as pure data (no root, no Mininet).

Division of labor: `spec` defines wires, switches, nodes and the network's
defaults and bounds; `files` reads topology files (the presets are such files,
library/*.json; schema.json is their published schema) and wires explicit ones;
`presets` names the papers' topologies and builds them;
`mesh` wires the k x k grids and picks relays, `cluster` the 2001 switched
cluster; `hardware` loads the machines' profiles; `impairments` adds netem
settings to a spec and `timescale` records a spec's D (the spec keeps real values) and
gives the scaled ones to whatever runs in scaled time; `render` draws a
spec as text or PNG; `ethernet` is 802.3's arithmetic (a frame's bytes on the wire, what a wire
carries); `settings` declares the network's settings once (the flags, experiment
keys and point fields are made from them), `point` the network part of a measured point;
`mininet_topos` is only the `mn --custom` entry point.
Imports only `core`; `netlab` turns a spec into a running network.
"""
