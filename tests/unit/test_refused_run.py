"""A run refused before its first point leaves no results file (issue 45, LOW: it left an empty
document at --out, over whatever was there), and says nothing of points kept."""
import sys
import types

import pytest

from beowulf_netlab.core.errors import RuntimeFailure
from beowulf_netlab.netlab.impls import BuildOptions
from beowulf_netlab.run import session as session_mod
from beowulf_netlab.run.sweep import Sweep

SESSION = session_mod.Session


def _session(monkeypatch, measure):
    runner = types.ModuleType("beowulf_netlab.run.runner")
    runner.run_sweep = measure
    monkeypatch.setitem(sys.modules, "beowulf_netlab.run.runner", runner)     # no Mininet: the run is a stub
    s = object.__new__(SESSION)
    s.opts, s.caps, s.docs = BuildOptions(), None, {}
    return s


def _sweep() -> Sweep:
    sweep = Sweep.make("token", {"topology": ["single-net"], "token_size": [64], "pairs": [1]})
    sweep.check()
    return sweep


def test_a_run_refused_before_its_first_point_writes_nothing(tmp_path, monkeypatch):
    def refused(sweep, doc, out, opts, **kw):
        raise RuntimeFailure("this host cannot build the network")
    s = _session(monkeypatch, refused)
    out = tmp_path / "r.json"
    out.write_text("an earlier run's document")
    with pytest.raises(RuntimeFailure, match="cannot build"):
        s.run(_sweep(), out)
    assert out.read_text() == "an earlier run's document"


def test_run_one_names_kept_points_only_when_there_are_some(tmp_path, monkeypatch):
    def refused(sweep, doc, out, opts, **kw):
        raise RuntimeFailure("a gate refused the network")
    monkeypatch.setattr(session_mod, "Session", lambda *a, **k: _session(monkeypatch, refused))
    monkeypatch.setattr(session_mod.estimate, "of_sweep", lambda sweep: types.SimpleNamespace(line=lambda: "1 point"))
    with pytest.raises(RuntimeFailure) as e, open("/dev/null", "w") as log:
        session_mod.run_one(_sweep(), tmp_path / "r.json", None, BuildOptions(), "run token", log=log)
    assert "kept" not in str(e.value) and not (tmp_path / "r.json").exists()
