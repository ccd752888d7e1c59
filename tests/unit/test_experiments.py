"""Every experiment file is valid data whose sweep can be placed (no root needed),
and beowulf_netlab/experiments/schema.json is the schema the code checks against."""
import json

import pytest

pytest.importorskip("jsonschema")

from beowulf_netlab.run import experiment  # noqa: E402
from beowulf_netlab.run.experiment import experiment_files, load  # noqa: E402


def test_schema_file_is_the_schema_in_code():
    assert json.loads(experiment.SCHEMA_FILE.read_text()) == experiment.schema(), \
        "beowulf_netlab/experiments/schema.json is stale: run python3 -m beowulf_netlab.run.experiment"


@pytest.mark.parametrize("name", sorted(experiment_files()))
def test_experiment_file_loads_and_places(name):
    sweep, paper, meta = load(experiment_files()[name])
    assert sweep.total_points() > 0 and meta["name"] == name
    assert paper.get("source") and paper.get("notes"), "an experiment names the paper it rebuilds"
    assert "docs/papers.md" in paper["source"]


def test_every_axis_in_the_schema_is_described():
    sweep_rules = [rule["then"]["properties"]["sweep"]["properties"]
                   for rule in experiment.schema()["allOf"]]
    for props in sweep_rules:
        assert all(p.get("description") for p in props.values())


def test_defaults_come_from_one_place():
    """Flags, experiment files and the sweep fall back to the same default; nodes, rate and
    channels to each topology's own (run.sweep.network_default: unset, None, where the
    default topologies' differ, as switched-cluster's do)."""
    from beowulf_netlab.run.sweep import Sweep, axes_for
    from beowulf_netlab.workloads import WORKLOADS
    for workload in ("token", "iperf", "filecopy"):
        sweep = Sweep.make(workload, {})
        own = WORKLOADS[workload].topologies       # the token exchange's: the main job's five networks
        for axis in axes_for(workload):
            if axis.name in ("nodes", "rate_mbit"):
                assert sweep[axis.name] == ({"nodes": 16, "rate_mbit": [10]}[axis.name] if own else None)
            elif axis.name == "topology" and own:
                assert sweep[axis.name] == list(own)
            else:
                assert sweep[axis.name] == axis.default


def test_experiment_help_says_an_unset_machine_flag_is_the_files_own():
    """`experiment --help` once said both "the file's own profile" and "default none"."""
    import contextlib
    import io
    from beowulf_netlab import commands
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        commands.main(["experiment", "--help"])
    text = " ".join(out.getvalue().split())
    start = text.index("the nodes' machine")
    hardware = text[start:text.index("--contention", start)]
    assert "default none" not in hardware and "the experiment file's own" in hardware


def test_only_the_projects_figure_files_are_paper_figures(tmp_path):
    """beowulf_netlab/experiments/NAME.json, or a copy of it (the campaign sends one), is the figure; a file of
    one's own under a figure's name is refused, not run and judged as the figure (issue 45)."""
    import json
    import pytest
    from beowulf_netlab.core.errors import BadInput
    from beowulf_netlab.run.experiment import experiment_files, paper_figure
    figure = experiment_files()["ipps96-fig6-balance"]
    assert paper_figure(figure, "ipps96-fig6-balance")
    copy = tmp_path / "experiment.json"
    copy.write_bytes(figure.read_bytes())
    assert paper_figure(copy, "ipps96-fig6-balance")
    data = json.loads(figure.read_text())
    copy.write_text(json.dumps({**data, "sweep": {**data["sweep"], "repeats": 1}}))
    with pytest.raises(BadInput, match="a paper figure's name, but is not beowulf_netlab/experiments/ipps96-fig6-balance.json"):
        paper_figure(copy, "ipps96-fig6-balance")
    assert not paper_figure(copy, "my-own-sweep")
