"""A wire's capture without a network: the engine's pcapng encoder (its cargo tests, run by
test_medium), where each capture goes (netlab.testbed), the engine's arguments and the delivery
of its files (netlab.medium), and the capture command's refusals before anything is built.
Nothing here builds a network: the command's build step is replaced by one that fails the test,
and the user is not root."""
import os
import struct
from types import SimpleNamespace

import pytest

from beowulf_netlab import commands
from beowulf_netlab.commands import capture as capture_verb
from beowulf_netlab.netlab.impls import BuildError, BuildOptions
from beowulf_netlab.netlab.medium import Medium
from beowulf_netlab.netlab import testbed
from beowulf_netlab.netlab.testbed import capture_line
from beowulf_netlab.topologies.presets import build_spec


@pytest.fixture(autouse=True)
def never_build(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the capture command went on to build a network")
    monkeypatch.setattr(capture_verb, "capture", refuse)


def paths(spec, opts, wire="engine"):
    tb = SimpleNamespace(spec=spec, opts=opts, impls={"wire": wire})
    return testbed.Testbed._capture_paths(tb)


def test_each_capture_goes_to_its_file_and_a_stem_never_replaces_an_earlier_networks(tmp_path):
    spec = build_spec("single-net", nodes=3, rate_mbit=10)
    assert paths(spec, BuildOptions()) == {}
    one = paths(spec, BuildOptions(capture=("w0",), capture_out=str(tmp_path / "x.pcapng")))
    assert one == {"w0": tmp_path / "x.pcapng"}
    stem = str(tmp_path / "20260101-token")
    first = paths(spec, BuildOptions(capture=("w0",), capture_out=stem))
    assert first == {"w0": tmp_path / "20260101-token-single-net-10mbit-3n-w0.pcapng"}
    first["w0"].write_bytes(b"")
    again = paths(spec, BuildOptions(capture=("w0",), capture_out=stem))
    assert again == {"w0": tmp_path / "20260101-token-single-net-10mbit-3n-w0-2.pcapng"}


def test_a_capture_needs_the_engine_and_a_wire_of_the_network():
    spec = build_spec("single-net", nodes=2, rate_mbit=10)
    with pytest.raises(BuildError, match="medium engine"):
        paths(spec, BuildOptions(capture=("w0",)), wire="tc")
    with pytest.raises(BuildError, match="no wire w7 in single-net"):
        paths(spec, BuildOptions(capture=("w7",)))


def test_the_engine_is_told_each_capture_in_a_private_folder_and_its_files_are_delivered(tmp_path):
    state = tmp_path / "state"
    dest = tmp_path / "out" / "w0.pcapng"
    m = Medium("", state, "bnl01", captures={"w0": dest}, capture_limit=5000)
    m.capture_dir.mkdir(parents=True, mode=0o700)
    stale = m.capture_dir / "w0.pcapng"
    stale.write_bytes(b"an earlier start's")
    args = m._capture_args()
    assert args == ["--capture", f"w0={stale}", "--capture-limit", "5000"]
    assert not stale.exists(), "the engine creates each file anew (O_EXCL)"
    assert (os.stat(m.capture_dir).st_mode & 0o777) == 0o700
    stale.write_bytes(b"pcapng bytes")   # as the engine leaves it
    m._deliver_captures({"captures": {"w0": {"frames": 3, "skipped": 0}}})
    assert dest.read_bytes() == b"pcapng bytes"
    assert m.captured == {"w0": {"frames": 3, "skipped": 0, "out": str(dest)}}
    assert not m.capture_dir.exists()
    # a capture the engine did not leave is said, never fatal
    m._deliver_captures({})
    assert "error" in m.captured["w0"]
    assert "not written" in capture_line("w0", m.captured["w0"])
    assert capture_line("w0", {"out": "x.pcapng", "frames": 7, "skipped": 2}) == \
        "capture of w0: x.pcapng (7 frames; 2 more past its limit counted, not written)"
    assert Medium("", state, "bnl02")._capture_args() == []


@pytest.mark.parametrize("argv, word", [
    (["capture", "w9", "--topo", "single-net", "--out", "{tmp}/x.pcapng"], "no wire w9"),
    (["capture", "w0", "--topo", "single-net", "--out", "{tmp}/x.txt"], ".pcapng"),
    (["capture", "w0", "--topo", "single-net", "--nodes", "2", "--out", "{tmp}/x.pcapng", "--cmd", "b7 ping b1"],
     "'b7' is not a node"),
    (["capture", "w0", "--topo", "single-net", "--out", "{tmp}/x.pcapng", "--cmd", ""], "give the node"),
    (["capture", "w0", "--topo", "single-net", "--out", "{tmp}/x.pcapng", "--cmd", "b0 'ping"], "--cmd"),
    (["capture", "w0", "--topo", "single-net", "--out", "{tmp}/x.pcapng", "--wire", "tc"], "medium engine"),
    (["capture", "w0", "--topo", "single-net", "--out", "/etc/hostname/sub/x.pcapng"], "cannot write"),
    (["capture", "w0", "--topo", "single-net", "--out", "{tmp}/x.pcapng", "--seconds", "0"], "--seconds"),
    (["capture", "w0", "--topo", "single-net", "--out", "{tmp}/x.pcapng", "--limit-mb", "0"], "--limit-mb"),
    (["capture", "w0", "--topo", "single-net", "--out", "{tmp}/x.pcapng"], "root"),
])
def test_the_capture_command_refuses_before_it_builds(argv, word, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)   # and were a check missed, the root check stops it
    try:
        code = commands.main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    except SystemExit as e:   # argparse's own refusals
        code = e.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert word in err and err.count("\n") == 1, err
    assert not (tmp_path / "x.pcapng").exists()


def test_run_takes_capture_wires():
    args = commands.make_parser().parse_args(["run", "token", "--capture", "w0", "--capture", "w1"])
    assert args.capture == ["w0", "w1"]
    assert commands.make_parser().parse_args(["run", "token"]).capture is None


def test_the_integration_tests_reader_walks_what_the_encoder_writes(tmp_path):
    """The pure-Python reader tests/integration/test_capture.py uses (tests/pcapng_reader.py), on blocks built as the
    engine's pcapng.rs builds them (its cargo tests check the same layout in Rust)."""
    from tests.pcapng_reader import read_pcapng

    def block(kind, body):
        return struct.pack("<II", kind, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))

    def opt(code, value):
        return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    idb = block(1, struct.pack("<HHI", 1, 0, 65535) + opt(2, b"w0") + opt(9, b"\x09") + opt(0, b""))
    frame = bytes(range(60))
    epb = block(6, struct.pack("<IIIII", 0, 1, 5, 60, 60) + frame + opt(1, b"after 1 collision") + opt(0, b""))
    isb = block(5, struct.pack("<III", 0, 1, 9) + opt(4, struct.pack("<Q", 1)) + opt(5, struct.pack("<Q", 0))
                + opt(0, b""))
    f = tmp_path / "x.pcapng"
    f.write_bytes(shb + idb + epb + isb)
    frames, stats = read_pcapng(f)
    assert frames == [{"ts": (1 << 32) | 5, "len": 60, "bytes": frame, "comment": "after 1 collision"}]
    assert stats == [{"received": 1, "dropped": 0, "comment": ""}]
