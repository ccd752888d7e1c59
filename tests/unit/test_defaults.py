"""One default per setting per preset: topo show, cli, run and Mininet's `mn --topo` all take a
preset's nodes, rate and channels from its file (run.sweep.network_default), and a rate out
of bounds is the same one line from every verb."""
import json
import os

import pytest

from beowulf_netlab import commands
from beowulf_netlab.commands.args import spec_from
from beowulf_netlab.run.sweep import Sweep, network_default, network_defaults
from beowulf_netlab.topologies.presets import PRESETS, build_spec

KEYS = ("nodes", "rate_mbit", "channels")


def _network(spec) -> dict:
    return {k: spec.params[k] if k != "nodes" else len(spec.nodes) for k in KEYS if k in spec.params}


def _parsed(argv: list[str]):
    return commands.make_parser().parse_args(argv)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_verb_takes_the_presets_file_defaults(name):
    own = json.loads(PRESETS[name].path.read_text())["options"]
    assert network_defaults(name) == own
    topo = _network(spec_from(_parsed(["topo", "show", name])))
    cli = _network(spec_from(_parsed(["cli", "--topo", name])))
    (run_spec,) = Sweep.make("token", {"topology": [name]}).specs()
    run = _network(run_spec)
    plain = _network(build_spec(name))
    want = {k: v for k, v in own.items()}
    if name == "single-net":
        want["channels"] = 1      # its one wire: not an option, but the spec records it
    assert topo == cli == run == plain == {k: want[k] for k in topo}
    assert {k: topo[k] for k in own} == own


def test_a_mixed_sweep_builds_each_topology_at_its_own_defaults():
    """switched-cluster is 32 nodes at 1000 Mbit/s in a sweep beside others too (it was 16 at 10)."""
    sweep = Sweep.make("token", {"topology": ["single-net", "switched-cluster"]})
    assert sweep["rate_mbit"] is None and sweep["nodes"] is None     # recorded as unset: each its own
    got = {s.topology: (len(s.nodes), s.params["rate_mbit"]) for s in sweep.specs()}
    assert got == {"single-net": (16, 10.0), "switched-cluster": (32, 1000.0)}
    assert sweep.most_points() >= sweep.total_points()
    given = Sweep.make("token", {"topology": ["single-net", "switched-cluster"], "rate_mbit": [100], "nodes": 4})
    assert {(len(s.nodes), s.params["rate_mbit"]) for s in given.specs()} == {(4, 100.0)}
    agree = Sweep.make("token", {"topology": ["single-net", "routed-mesh"]})
    assert agree["rate_mbit"] == [10] and agree["nodes"] == 16        # as before: one value recorded


def test_network_default_is_none_for_a_setting_the_topology_does_not_take():
    assert network_default("single-net", "channels") is None
    assert network_default("bonded-dual-net", "channels") == 2


def test_mn_custom_topos_take_the_presets_defaults():
    pytest.importorskip("mininet.topo")
    from beowulf_netlab.netlab.topo import topos
    t = topos["switched-cluster"]()
    assert len(t.hosts()) == 32 and t.spec.params["rate_mbit"] == 1000


def _error(argv, monkeypatch, capsys) -> str:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    try:
        rc = commands.main(argv)
    except SystemExit as e:
        rc = e.code
    lines = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize("rate", ["5000", "0.01", "0"])
def test_a_rate_out_of_bounds_is_one_line_alike_from_every_verb(rate, monkeypatch, capsys):
    lines = [_error(argv, monkeypatch, capsys) for argv in (
        ["run", "token", "--rate-mbit", rate], ["topo", "show", "single-net", "--rate-mbit", rate],
        ["cli", "--topo", "single-net", "--rate-mbit", rate])]
    reasons = {line.split("error: ", 1)[1] for line in lines}
    assert reasons == {f"argument --rate-mbit/--rate: --rate-mbit must be in 0.1..1000 Mbit/s, got {rate} "
                       "(see --help)"}
    with pytest.raises(Exception, match=rf"^--rate-mbit must be in 0\.1\.\.1000 Mbit/s, got {rate}$"):
        build_spec("single-net", rate_mbit=float(rate) if "." in rate else int(rate))


def test_run_token_alone_is_the_main_job():
    """`run token` with no flags sweeps what `emulate.py` (beowulf_netlab/experiments/quick-comparison.json) does,
    from one place: the file gives no value of its own, the token workload's defaults are the job's."""
    from beowulf_netlab.run.experiment import EXPERIMENTS_DIR, load
    assert json.loads((EXPERIMENTS_DIR / "quick-comparison.json").read_text())["sweep"] == {}
    main, _, _ = load(EXPERIMENTS_DIR / "quick-comparison.json")
    alone = Sweep.make("token", {k: v for k, v in vars(_parsed(["run", "token"])).items()
                                 if k in main.values and v is not None})
    assert alone.values == main.values
    assert alone["pairs"] == [8] and alone["tokens_in_flight"] == [2] and alone["duration"] == 2.5
    assert "switched-cluster" not in alone["topology"] and alone.total_points() == 48
    assert Sweep.make("iperf", {})["pairs"] == [4]      # the shared flag keeps iperf's own default


def test_run_takes_channels_on_a_users_own_bonded_topology_file(tmp_path, monkeypatch, capsys):
    """--channels is asked of each topology (issue 46, 6): a user's bonded file takes it in `run`
    as in `topo`, `cli` and experiment files (the refusal here is the root check, which comes
    after every check of the flags); a topology that takes none is still refused."""
    bonded = json.loads((PRESETS["bonded-dual-net"].path).read_text())
    bonded.pop("$schema", None)
    mine = tmp_path / "my-bonds.json"
    mine.write_text(json.dumps({**bonded, "name": "my-bonds", "one_channel_is": "my-bonds-1"}))
    argv = ["run", "token", "--topology", str(mine), "--channels", "3", "--pairs", "1", "--token-size", "64"]
    assert "needs root" in _error(argv, monkeypatch, capsys)
    assert "channels" in spec_from(_parsed(["cli", "--topo", str(mine), "--channels", "3"])).params
    refused = _error(["run", "token", "--topology", "single-net", "--channels", "2"], monkeypatch, capsys)
    assert "--channels applies to a topology that takes it (bonded-dual-net" in refused
