"""The experiment pipeline: from a sweep to numbers people can read.

Division of labor: `sweep` holds every sweep axis and its one default, and
expands a sweep into networks and points; `experiment` reads and checks
experiment files; `estimate` says up front how many points and minutes a run
takes (each workload's point cost); `runner` builds each network, runs its points under the
`monitor` (fidelity), shows its `progress` and writes the `results` document (its schema; `upgrade` reads older
versions, `environment` records the host, `store` writes it atomically, `csvfile` as CSV)
after every point;
`gates` judges each point's fidelity (again whenever a document is read);
`point` declares what the run records of a point and puts a whole point's fields together;
`calibration` adds and judges the calibration points, per experiment; `derive`
takes points one experiment shares with another; `session` runs sweeps for a
command and `summary` says what a run measured; `merge` joins campaign shards; `table` writes a document as text and
`plot` draws it, both as its workload's `Figure` declares; `claims` judges the
papers' claims against documents (`forced` asks whether each verdict could have
failed), `tested` runs the tests a tested claim names,
`validation` reads the era checks, `sensitivity` the variants of open choices,
`exercise` the classroom exercises and `sheet` their handout pages, `handout` a class's
bundle and `classpage` its results page; and `report` writes the claims report with
the verdicts (HTML and Markdown).
Imports `core`, `topologies`, `netlab` and `workloads`; the command line
(`commands`) sits above it and nothing here imports that.
"""
