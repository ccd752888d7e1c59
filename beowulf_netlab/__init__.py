"""Beowulf Netlab: rebuild the 1996 Beowulf cluster interconnect studies on one Linux box.

The project's one top-level package (an installed copy claims no other name). Division of labor,
by layer, lowest first (a module imports its own subpackage and lower layers only,
tests/unit/test_layering.py): `core` (errors, the command runner, value checks, the version) <
`topologies` (the network model, as pure data) < `netlab` (namespaces, veths, bridges and qdiscs
made from it) < `workloads` (the traffic inside the nodes, and the agents started there by path)
< `run` (a sweep to a results document) < `judge` (documents to numbers, figures and verdicts) <
`commands` (the command line's verbs); `labvm` is the lab-VM tool beside them (imports `core`
only). The data folders travel with the code: `claims` (the papers' claims, calibrations, era
checks, fittings, variants), `experiments` (the experiment files), `hardware` (the machines'
profiles), `exercises` (the classroom exercises; their solutions/ never ship) and `results` (the
results documents' schema and README; runs write to the checkout's top results/, or the working
folder's). `__main__` is the command line's entry (`python3 -m beowulf_netlab`, the installed
`beowulf-netlab`, and the checkout's emulate.py), imported by nothing in the package;
`_old_names` lets a checkout's scripts import the old top-level names (`core`, `netlab`, ...) for a
deprecation period, through the shims at its top (imported by nothing in the package either).
"""
