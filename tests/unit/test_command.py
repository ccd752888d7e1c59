"""The command runner's batches: one process, each argv still recorded as it ran (no root:
read-only ip commands)."""
import shutil

import pytest

from beowulf_netlab.core.command import CommandFailed, CommandLog, batchable

pytestmark = pytest.mark.skipif(shutil.which("ip") is None, reason="needs iproute2's ip")


def test_a_batch_records_each_argv_with_its_line():
    log = CommandLog()
    log.batch("ip", [("a", ["ip", "link", "show", "lo"]), ("b", ["ip", "addr", "show", "dev", "lo"])])
    assert log.entries == {
        "a": [{"argv": ["ip", "link", "show", "lo"], "rc": 0, "batch": {"argv": ["ip", "-batch", "-"], "line": 1}}],
        "b": [{"argv": ["ip", "addr", "show", "dev", "lo"], "rc": 0,
               "batch": {"argv": ["ip", "-batch", "-"], "line": 2}}]}


def test_a_failed_line_is_recorded_with_its_status_and_stops_the_batch():
    log = CommandLog()
    with pytest.raises(CommandFailed) as e:
        log.batch("ip", [("a", ["ip", "link", "show", "lo"]), ("a", ["ip", "link", "show", "bnlnosuch0"]),
                         ("a", ["ip", "link", "show", "lo"])])
    assert "ip link show bnlnosuch0 failed" in str(e.value) and "Command failed" not in str(e.value)
    assert [(r["argv"][-1], r["rc"] != 0, r["batch"]["line"]) for r in log.entries["a"]] == \
        [("lo", False, 1), ("bnlnosuch0", True, 2)]


def test_what_a_batch_line_would_read_differently_runs_on_its_own():
    assert batchable(["tc", "qdisc", "show", "dev", "lo"], "tc")
    assert not batchable(["tc", "qdisc", "show"], "ip")                 # another tool
    assert not batchable(["ip", "-4", "route", "show"], "ip")           # an option, not a command
    for word in ("two words", "quo'te", "hash#", "back\\slash", ""):
        assert not batchable(["ip", "link", "show", word], "ip")
    log = CommandLog()
    log.batch("ip", [("a", ["ip", "link", "show", "lo"]), ("a", ["ip", "-o", "link", "show", "lo"])])
    assert [r.get("batch") for r in log.entries["a"]] == [None, None]
