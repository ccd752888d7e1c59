"""Script a Beowulf network from Python, as a Mininet user scripts a topology.

    sudo python3 examples/script_a_network.py

Builds the prototype's 10 Mbit/s shared segment with four 1995 nodes, runs commands in the
nodes' namespaces (ping, two iperf3 flows at once), reads the medium engine's counters, and
tears everything down when the `with` block ends, however it ends. Prints one JSON object.
docs/api.md explains each call.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from beowulf_netlab.core.interpreter import reexec_with_mininet  # noqa: E402

reexec_with_mininet(__file__)

from beowulf_netlab.netlab.testbed import BuildOptions, Testbed  # noqa: E402
from beowulf_netlab.topologies.presets import build_spec  # noqa: E402


def main() -> dict:
    spec = build_spec("single-net", nodes=4, rate_mbit=10, hardware="prototype-1995")
    with Testbed(spec, BuildOptions(wire="auto")) as tb:
        b0, b1, b2, b3 = (tb.host(f"b{i}") for i in range(4))
        ping = b0.cmd(f"ping -q -c 10 -i 0.05 -s 1400 {b1.IP()}")
        rtt_ms = float(ping.split("rtt min/avg/max/mdev = ")[1].split("/")[1])
        for server in (b1, b3):
            server.cmd("iperf3 -s -D -1")
        b0.sendCmd(f"iperf3 -c {b1.IP()} -t 3 -J")        # two flows at once on one shared wire
        b2.sendCmd(f"iperf3 -c {b3.IP()} -t 3 -J")
        flows = [json.loads(h.waitOutput()) for h in (b0, b2)]
        mbit = [f["end"]["sum_received"]["bits_per_second"] / 1e6 for f in flows]
        wire = tb.wire("w0")
        return {"wire": tb.impls["wire"], "ping_1400B_avg_ms": rtt_ms,
                "two_flows_mbit": [round(m, 2) for m in mbit], "sum_mbit": round(sum(mbit), 2),
                "wire_summary": wire.summary()}


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
