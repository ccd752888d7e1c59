"""The token exchange protocol over loopback (no root, no emulated network)."""
import json
import os
import socket
import subprocess
import sys
import time

import pytest

AGENT = os.path.join(os.path.dirname(__file__), "..", "..", "beowulf_netlab", "workloads", "token_agent.py")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def exchange(*client_args, server_args=()):
    port = free_port()
    server = subprocess.Popen([sys.executable, AGENT, "serve", "--port", str(port), *server_args],
                              stdout=subprocess.PIPE)
    try:
        assert server.stdout.readline().strip() == b"ready"
        r = subprocess.run([sys.executable, AGENT, "client", "--host", "127.0.0.1", "--port", str(port),
                            *client_args], capture_output=True, text=True, timeout=60)
        return r.returncode, json.loads(r.stdout)
    finally:
        server.kill()
        server.wait()


def test_counts_are_exact():
    rc, out = exchange("--size", "3000", "--tokens", "3", "--exchanges", "500")
    assert rc == 0, out
    assert out["round_trips"] == 500
    assert out["payload_bytes"] == 2 * 3000 * 500
    assert out["elapsed_s"] > 0 and out["rtt_ms_min"] <= out["rtt_ms_median"] <= out["rtt_ms_max"]


def test_fewer_exchanges_than_tokens_in_flight():
    rc, out = exchange("--size", "64", "--tokens", "8", "--exchanges", "3")
    assert rc == 0 and out["round_trips"] == 3


def test_duration_mode_stops():
    t0 = time.monotonic()
    rc, out = exchange("--size", "1024", "--tokens", "2", "--duration", "0.5")
    assert rc == 0 and out["round_trips"] > 10
    assert time.monotonic() - t0 < 10


def test_a_corrupted_echo_is_detected():
    rc, out = exchange("--size", "777", "--tokens", "2", "--exchanges", "100",
                       server_args=("--corrupt-after", "10"))
    assert rc == 3
    assert "corrupted echo" in out["error"] and "token 11" in out["error"]


def test_start_line_waits_for_go():
    port = free_port()
    server = subprocess.Popen([sys.executable, AGENT, "serve", "--port", str(port)], stdout=subprocess.PIPE)
    try:
        assert server.stdout.readline().strip() == b"ready"
        client = subprocess.Popen([sys.executable, AGENT, "client", "--host", "127.0.0.1", "--port", str(port),
                                   "--size", "100", "--exchanges", "10", "--wait-go"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert client.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        assert client.poll() is None, "the client must not start before 'go'"
        out, _ = client.communicate("go\n", timeout=30)
        data = json.loads(out.strip().splitlines()[-1])
        assert data["round_trips"] == 10 and data["end"] >= data["start"]
    finally:
        server.kill()
        server.wait()


class LoopbackHost:
    """What WarmAgents needs of a node, on this machine's loopback."""
    name, address = "lo", "127.0.0.1"

    def popen(self, argv, **kwargs):
        return subprocess.Popen(argv, **kwargs)


def warm():
    from beowulf_netlab.workloads.agent import WarmAgents
    return WarmAgents(AGENT, "token agent")


def test_a_warm_agent_runs_point_after_point_and_ends_its_children():
    """One daemon forks each point's server and client; results and corruption come back
    per child, and closing the pool leaves no child running."""
    from beowulf_netlab.core.errors import DataCorrupted
    host = LoopbackHost()
    with warm() as pool:
        for n in (5, 7):
            port = free_port()
            server = pool.start(host, ["serve", "--port", str(port)], "server")
            client = pool.start(host, ["client", "--host", host.address, "--port", str(port), "--size", "300",
                                       "--tokens", "2", "--wait-go", "--exchanges", str(n)], "client")
            server.wait_ready()
            client.wait_ready()
            client.go()
            assert client.result(30)["round_trips"] == n
        daemon = pool.warm["lo"].agent.proc
        port = free_port()
        bad = pool.start(host, ["serve", "--port", str(port), "--corrupt-after", "3"], "server")
        bad.wait_ready()
        client = pool.start(host, ["client", "--host", host.address, "--port", str(port), "--size", "99",
                                   "--exchanges", "50"], "client")
        with pytest.raises(DataCorrupted, match="token 4"):
            client.result(30)
        lingering = pool.start(host, ["serve", "--port", str(free_port())], "server")   # never connected
        lingering.wait_ready()
        kids = [int(p) for p in open(f"/proc/{daemon.pid}/task/{daemon.pid}/children").read().split()]
        assert kids, "the lingering server is the daemon's child"
    assert daemon.poll() is not None
    assert not any(os.path.exists(f"/proc/{k}") and "Z" not in open(f"/proc/{k}/stat").read().split()[2]
                   for k in kids)


def test_a_warm_agent_says_why_a_command_failed():
    from beowulf_netlab.workloads.agent import WorkloadFailed
    with warm() as pool:
        client = pool.start(LoopbackHost(), ["client", "--host", "127.0.0.1", "--port", "1", "--size", "9",
                                             "--exchanges", "1"], "client of nobody")
        with pytest.raises(WorkloadFailed, match="client of nobody: connection"):
            client.result(30)
        wrong = pool.start(LoopbackHost(), ["client", "--nonsense"], "bad client")
        with pytest.raises(WorkloadFailed, match="bad command"):
            wrong.wait_ready(10)
