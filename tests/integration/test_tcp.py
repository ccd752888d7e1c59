"""Every node runs the TCP its hardware profile declares, whatever the host runs.

The host this project is developed on runs bbr; its pacing left a shared wire
45 % idle under many tokens in flight, an artefact no gate caught. These tests
look at the sockets themselves (`ss -ti` inside a node while a flow runs).
"""
from tests.integration import require_testbed  # noqa: E402

require_testbed()

import re  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402

from beowulf_netlab.topologies.hardware import load  # noqa: E402
from beowulf_netlab.workloads.token import run_exchange  # noqa: E402


PROBE = """
import socket, sys
if sys.argv[1] == "serve":
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 5302)); s.listen(1); print("ready", flush=True); c, _ = s.accept(); c.recv(1)
else:
    s = socket.create_connection((sys.argv[2], 5302), timeout=10)
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    cc = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\\0").decode()
    print(cc, info[5]); s.send(b"x")
"""
TS, SACK, WSCALE = 1, 2, 4      # tcpi_options bits (linux/tcp.h)


def negotiated(a, b) -> tuple[str, int]:
    """(congestion control, tcpi_options) of a fresh connection from a to b."""
    server = b.popen_netns(["/usr/bin/python3", "-c", PROBE, "serve"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == "ready"
        out = subprocess.run(["nsenter", f"--net=/proc/{a.pid}/ns/net", "/usr/bin/python3", "-c", PROBE,
                              "connect", b.address], capture_output=True, text=True, timeout=30).stdout
    finally:
        server.wait(timeout=10)
    cc, options = out.split()
    return cc, int(options)


def socket_info(host, port: int) -> str:
    """`ss -ti` of the established connection to `port` in the node's namespace."""
    return host.run(["ss", "-tinH", "state", "established", f"( dport = :{port} or sport = :{port} )"])


@pytest.mark.parametrize("hardware", ["none", "prototype-1995"])
def test_nodes_run_the_profiles_tcp_not_the_hosts(testbed, hardware):
    want = load(hardware).tcp
    tb = testbed("single-net", nodes=4, rate_mbit=10, hardware=hardware)
    assert tb.tcp == want.record()
    assert tb.environment()["tcp"] == want.record()
    a, b = tb.host("b0"), tb.host("b1")
    server = b.popen_netns(["iperf3", "-s", "-1", "-p", "5301"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        client = a.popen_netns(["iperf3", "-c", b.address, "-p", "5301", "-t", "3"],
                               stdout=subprocess.DEVNULL)
        time.sleep(1.5)
        info = socket_info(a, 5301)
        client.wait(timeout=30)
    finally:
        server.kill()
        server.wait()
    assert re.search(rf"\b{want.congestion_control}\b", info), info   # the flow's own socket
    # the era TCP (issue 20): the window the receiver advertised, the minimum RTO, the
    # duplicate-ACK threshold, all as the sender's own socket reports them
    snd_wnd = int(re.search(r"\bsnd_wnd:(\d+)", info).group(1))
    if want.window_clamp_bytes:
        assert snd_wnd <= want.window_clamp_bytes, info
    else:
        assert snd_wnd > 14335, info      # today's buffers open the window past the era's clamp
    assert int(re.search(r"\brto:(\d+)", info).group(1)) >= want.rto_min_ms, info
    shown = re.search(r"\breordering:(\d+)", info)        # ss leaves out the default, 3
    assert (int(shown.group(1)) if shown else 3) == want.reordering, info
    assert "sack" not in info.split() or want.sack, info
    cc, options = negotiated(a, b)
    assert cc == want.congestion_control
    assert bool(options & SACK) == bool(want.sack), options
    assert bool(options & TS) == bool(want.timestamps), options
    assert bool(options & WSCALE) == bool(want.window_scaling), options


def test_many_tokens_in_flight_keep_a_shared_wire_busy(testbed):
    """4 pairs with 8 x 1 KB tokens each in flight are never short of demand: the wire
    must be nearly full (with the host's bbr it sat 45 % idle and read 0.62 MB/s)."""
    tb = testbed("single-net", nodes=8, rate_mbit=10, contention="off")   # the wire's capacity, not CSMA/CD
    wire = tb.wire("w0")
    before = wire.carried_bytes()
    res = run_exchange([(tb.host(f"b{i}"), tb.host(f"b{i + 4}")) for i in range(4)], 1024, 8, duration=3)
    busy = (wire.carried_bytes() - before) * 8 / (10e6 * res["elapsed_s"])
    assert busy >= 0.9, (busy, res["throughput_mbyte_s"])
    # a 1 KB token fills one frame of 1024 + 90 B on the wire: at most 1.15 MB/s of tokens
    assert res["throughput_mbyte_s"] >= 1.0, res["throughput_mbyte_s"]
