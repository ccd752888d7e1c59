"""A wire's capture (emulate.py capture, the engine's --capture): a small hub, pings across it, the
pcapng read back. What a wrong capture would fail: a file Wireshark could not read (blocks,
lengths, magic), frames stamped closer together than a 10 Mbit/s wire can carry them (the stamps
are when each frame's last bit left the wire, in the engine's virtual time), a ping missing, or
a collision the engine counted that no frame's comment says."""
import shutil
import subprocess

import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.core.command import python  # noqa: E402
from tests.pcapng_reader import read_pcapng  # noqa: E402
from beowulf_netlab.netlab.medium import PROP_NS  # noqa: E402
from beowulf_netlab.netlab.testbed import BuildOptions, Testbed  # noqa: E402
from beowulf_netlab.topologies.presets import build_spec  # noqa: E402
from beowulf_netlab.workloads import iperf  # noqa: E402

ROOT = __file__.rsplit("/tests/", 1)[0]
RATE = 10e6


pytestmark = pytest.mark.usefixtures("engine_built")


def carrier_ns(length: int) -> float:
    """A frame's carrier on the wire (preamble to FCS): what one frame's stamps must be apart."""
    return (max(length, 60) + 4 + 8) * 8 / RATE * 1e9


def assert_wire_spacing(frames: list[dict]) -> None:
    """Each frame ended at least its own carrier plus the gap after the one before it: the wire
    carried one frame at a time."""
    gap_ns = 96 / RATE * 1e9
    for a, b in zip(frames, frames[1:]):
        assert b["ts"] - a["ts"] >= carrier_ns(b["len"]) + gap_ns - 1, (a["ts"], b["ts"], b["len"])


def test_capture_writes_the_pings_of_a_hub_with_their_wire_times(tmp_path):
    out = tmp_path / "w0.pcapng"
    r = subprocess.run(python(f"{ROOT}/emulate.py", "capture", "w0", "--topo", "single-net", "--nodes", "3",
                              "--rate-mbit", "10", "--out", str(out), "--seconds", "30",
                              "--cmd", "b0 ping -c 5 -i 0.2 -s 1400 b1"),
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "capture of w0:" in r.stderr and str(out) in r.stderr
    frames, stats = read_pcapng(out)
    ip = [f for f in frames if f["bytes"][12:14] == b"\x08\x00"]
    requests = [f for f in ip if f["bytes"][23] == 1 and f["bytes"][34] == 8]
    replies = [f for f in ip if f["bytes"][23] == 1 and f["bytes"][34] == 0]
    assert len(requests) >= 5 and len(replies) >= 5, [f["len"] for f in frames]
    assert_wire_spacing(frames)
    # a reply's last bit leaves no sooner than its request's end, the path, and its own carrier
    for q, a in zip(requests, replies):
        assert a["ts"] - q["ts"] >= carrier_ns(a["len"]) + PROP_NS, (q["ts"], a["ts"])
    # the closing statistics count what the wire carried, none left out
    assert stats[-1]["received"] == len(frames) and stats[-1]["dropped"] == 0
    if shutil.which("tshark"):
        t = subprocess.run(["tshark", "-r", str(out), "-T", "fields", "-e", "frame.time_epoch"],
                           capture_output=True, text=True)
        assert t.returncode == 0 and len(t.stdout.split()) == len(frames), t.stderr
    if shutil.which("tcpdump"):
        t = subprocess.run(["tcpdump", "-r", str(out), "-nn"], capture_output=True, text=True)
        assert t.returncode == 0 and t.stdout.count("ICMP echo re") >= 10, t.stderr


def test_a_saturated_hubs_capture_says_its_collisions_and_stops_at_its_limit(caps, tmp_path):
    """Three stations flooding one 10 Mbit/s hub with CSMA/CD: the frames that collided say so in
    their comments, as many collisions are noted as the engine counted (each once), and a limit
    of 1 MB (some 700 of its frames) stops the capture with the rest counted."""
    spec = build_spec("single-net", nodes=3, rate_mbit=10, contention=True)
    out = tmp_path / "hub.pcapng"
    opts = BuildOptions(wire="engine", capture=("w0",), capture_out=str(out), capture_limit=1_000_000)
    with Testbed(spec, opts, caps) as tb:
        rec = iperf.medium_under_flood(tb, 3, 1.5 * RATE / 8 / 1500 / 3, 1400, 3)
        medium = tb.medium
    frames, stats = read_pcapng(out)
    assert_wire_spacing(frames)
    assert out.stat().st_size <= 1_000_000 + 2048   # the limit, the header and two statistics blocks
    said = medium.captured["w0"]
    assert said["skipped"] > 0 and "limit" in (said.get("stopped") or "")
    assert any("capture limit" in s["comment"] for s in stats)
    assert stats[-1]["dropped"] == said["skipped"] and stats[-1]["received"] == said["frames"] + said["skipped"]
    assert rec["wires"]["w0"]["collisions"] > 0
    collided = [f for f in frames if "collision" in f["comment"]]
    assert collided, "no frame's comment says a collision"
    if shutil.which("tshark"):
        # Wireshark's own reader takes the file whole and shows the same collision comments
        t = subprocess.run(["tshark", "-r", str(out), "-T", "fields", "-e", "frame.comment"],
                           capture_output=True, text=True)
        assert t.returncode == 0, t.stderr
        lines = t.stdout.splitlines()
        assert len(lines) == len(frames), (len(lines), len(frames))
        assert sum("collision" in ln for ln in lines) == len(collided), t.stdout[:500]


def test_a_capture_is_refused_on_a_tc_wire_and_for_a_wire_the_network_lacks(caps):
    from beowulf_netlab.netlab.impls import BuildError
    with pytest.raises(BuildError, match="medium engine"):
        Testbed(build_spec("single-net", nodes=2, rate_mbit=10), BuildOptions(wire="tc", capture=("w0",)), caps)
    with pytest.raises(BuildError, match="no wire w7"):
        Testbed(build_spec("single-net", nodes=2, rate_mbit=10), BuildOptions(wire="engine", capture=("w7",)), caps)
