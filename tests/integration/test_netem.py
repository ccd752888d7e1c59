"""Wire delay/jitter/loss and relay forwarding delay (netem).

On a stock kernel (the lab VM) the measured round trips must match the
configured ones; on a kernel without netem (this project's CI host) the same
options must be refused with one line and exit 2, before anything is made.
"""
import os
import re
import statistics
import subprocess
import sys

import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from tests.integration.conftest import needs_kernel
from tests.integration.hostsnap import diff, snapshot
from beowulf_netlab.workloads import ping

EMULATE = [sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "emulate.py")]


def rtts_ms(host, dst_ip: str, count: int, interval: float = 0.2) -> list[float]:
    times = ping.rtts_ms(host, dst_ip, count, interval)
    assert len(times) >= count // 2 - 1, times
    return times


@pytest.mark.parametrize("args", [
    ["run", "token", "--topo", "single-net", "--nodes", "2", "--pairs", "1", "--delay", "5ms"],
    ["run", "token", "--topo", "single-net", "--nodes", "2", "--pairs", "1", "--loss", "1%"],
    ["cli", "--topo", "routed-mesh", "--nodes", "4", "--relay-delay", "1ms"],
])
def test_impairments_refused_without_netem(caps, args, tmp_path):
    if caps.kernel.get("netem"):
        pytest.skip("this kernel has netem: the options are measured by the tests below")
    before = snapshot()
    r = subprocess.run([*EMULATE, *args, *(["--out", str(tmp_path / "r.json")] if args[0] == "run" else [])],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2, r
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "need netem" in lines[0], r.stderr
    assert not (tmp_path / "r.json").exists()
    assert diff(before, snapshot()) == {}


def test_wire_delay_round_trip(caps, testbed):
    needs_kernel(caps, "netem")
    tb = testbed("single-net", nodes=2, rate_mbit=100, delay_ms=25.0)
    rtts = rtts_ms(tb.host("b0"), tb.host("b1").address, 11)
    # one wire, crossed once each way: 2 x 25 ms
    assert abs(statistics.median(rtts) - 50.0) <= 5.0, rtts
    assert tb.environment()["netem"] == "kernel sch_netem"


def test_wire_jitter_spreads_round_trips(caps, testbed):
    needs_kernel(caps, "netem")
    tb = testbed("single-net", nodes=2, rate_mbit=100, delay_ms=20.0, jitter_ms=10.0)
    rtts = rtts_ms(tb.host("b0"), tb.host("b1").address, 31, interval=0.1)
    assert abs(statistics.mean(rtts) - 40.0) <= 4.0, rtts
    # two independent +-10 ms draws: a standard deviation near 8 ms; none without jitter
    assert statistics.stdev(rtts) > 3.0, rtts


def test_wire_loss_drops_about_the_configured_share(caps, testbed):
    needs_kernel(caps, "netem")
    tb = testbed("single-net", nodes=2, rate_mbit=100, loss_pct=20.0)
    b0, b1 = tb.host("b0"), tb.host("b1")
    b0.run(["ping", "-c", "1", "-W", "1", b1.address], check=False)  # ARP first
    out = b0.run(["ping", "-n", "-q", "-c", "200", "-i", "0.01", "-W", "1", b1.address], check=False)
    lost = float(re.search(r"([0-9.]+)% packet loss", out).group(1))
    # request and reply each cross the wire: 1 - 0.8^2 = 36 % of round trips lost
    assert 25.0 <= lost <= 47.0, out


def test_relay_delay_applies_to_forwarded_packets_only(caps, testbed):
    needs_kernel(caps, "netem")
    tb = testbed("routed-mesh", nodes=4, rate_mbit=100, relay_delay_ms=25.0)
    b0 = tb.spec.node("b0")
    relayed = [r.dst for r in b0.routes if r.via]
    direct = [r.dst for r in b0.routes if not r.via]
    assert relayed and direct
    src = tb.host("b0")
    one_hop = statistics.median(rtts_ms(src, direct[0], 6))
    two_hop = statistics.median(rtts_ms(src, relayed[0], 11))
    # the relay holds the request and the reply: 2 x 25 ms; a neighbour is not delayed
    assert one_hop < 10.0, one_hop
    assert abs(two_hop - 50.0) <= 5.0, two_hop
