"""The run: from a sweep to a results document (sweep -> networks -> points -> document).

Division of labor: `sweep` holds every sweep axis and its one default, and
expands a sweep into networks and points; `experiment` reads and checks
experiment files; `estimate` says up front how many points and minutes a run
takes (each workload's point cost); `session` runs sweeps for a command (every
check first, then the networks one at a time) and `runner` builds each network,
has `hostpath` time this host's own round trip on it and take it off the medium
engine's delays, runs its points under the `monitor` (fidelity) and shows its `progress`;
`gates` judges each point's fidelity (again whenever a document is read) and
`calibration` adds and judges the calibration points a sweep rests on, per
experiment, as it runs; `derive` takes points one experiment shares with
another; `point` declares what the run records of a point and puts a whole
point's fields together; `results` is the document and its schema (`readme` its page, beowulf_netlab/results/README.md, made from
the declarations), `upgrade`
reads older versions of it, `environment` records the host it came from,
`store` writes it atomically after every point and `csvfile` as CSV; `merge`
joins campaign shards.
Imports `core`, `topologies`, `netlab` and `workloads`; the judge (`judge`) and
the command line (`commands`) sit above it and nothing here imports them.
"""
