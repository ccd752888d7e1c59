"""The judge: from results documents to numbers people can read and verdicts on the papers.

Division of labor: `table` writes a document as text and `plot` draws it, both
as its workload's `Figure` declares, and `summary` says what a run measured when
it ends, and `compare` sets two stored results side by side point by point; `claims` judges the papers' claims against documents (`forced` asks
whether each verdict could have failed, from the readings `bounds` says the model
admits each point; `tested` runs the tests a tested claim names; `repeats` says where two repeats leave a
verdict in doubt, so a full run measures a third there alone); `validation` reads the era checks, `heldout` sets lone round trips the host-path probe never
timed beside their own path's model, `sensitivity` the variants of open
choices, and `fitted` fits the constants the sources give as ranges on declared claims and
judges the others out of sample; `report` writes the claims report with the verdicts (HTML and
Markdown); `exercise` checks and grades the classroom exercises, `sheet` makes
their handout pages, `handout` a class's bundle and `classpage` its results page;
`binding` ties an answers file and its check record to one student and one machine.
Every verdict word comes from core.verdicts.
Imports `core`, `topologies`, `netlab`, `workloads` and `run`; the command line
(`commands`) sits above it and nothing here imports that.
"""
