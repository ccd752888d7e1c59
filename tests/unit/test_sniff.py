"""The sniff workload's pure parts (issue 44 item 2): how the listener counts a frame, the share,
ping's summary, which node listens, which wires a learning bridge carries, and the sweep's
refusals; no root, no network."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from beowulf_netlab.core.command import python  # noqa: E402
from beowulf_netlab.core.errors import BadInput  # noqa: E402
from beowulf_netlab.run.sweep import Sweep  # noqa: E402
from beowulf_netlab.topologies.presets import build_spec  # noqa: E402
from beowulf_netlab.workloads import WORKLOADS, sniff, sniff_agent  # noqa: E402
from beowulf_netlab.workloads.placement import place  # noqa: E402

B0, B1, B2 = (bytes([2, 0, 0, 0, 0, i]) for i in (1, 2, 3))
BROADCAST = b"\xff" * 6


def frame(dst: bytes, src: bytes) -> bytes:
    return dst + src + b"\x08\x00" + bytes(46)


def test_a_frame_counts_by_its_source_and_its_packet_type():
    counts = sniff_agent.new_counts()
    pair = {B0, B1}
    sniff_agent.tally(counts, frame(BROADCAST, B0), 1, pair)            # ARP's request: broadcast
    sniff_agent.tally(counts, frame(B0, B1), sniff_agent.PACKET_OTHERHOST, pair)   # its reply, to b0
    sniff_agent.tally(counts, frame(B1, B0), sniff_agent.PACKET_OTHERHOST, pair)   # an echo request
    sniff_agent.tally(counts, frame(B2, bytes([2, 0, 0, 0, 0, 9])), 0, pair)   # another station's, to b2
    sniff_agent.tally(counts, frame(B0, B2), sniff_agent.PACKET_OUTGOING, pair)     # the listener's own
    assert counts == {"frames_seen": 4, "pair_frames_seen": 3, "foreign_frames_seen": 2, "own_frames_sent": 1}


def test_mac_addresses_are_read_whole():
    assert sniff_agent.mac_bytes("02:00:0a:00:00:ff") == bytes([2, 0, 10, 0, 0, 255])
    for bad in ("02:00:0a:00:00", "2:0:a:0:0:1", "zz:00:00:00:00:00", ""):
        with pytest.raises(ValueError):
            sniff_agent.mac_bytes(bad)


def test_the_share_of_the_pairs_frames():
    assert sniff.share(42, 42) == 1.0
    assert sniff.share(1, 42) == pytest.approx(0.0238, abs=1e-4)
    assert sniff.share(0, 0) is None


def test_pings_summary():
    out = ("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
           "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.512 ms\n"
           "64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=0.301 ms\n"
           "64 bytes from 10.0.0.2: icmp_seq=3 ttl=64 time=0.299 ms\n\n"
           "--- 10.0.0.2 ping statistics ---\n"
           "3 packets transmitted, 3 received, 0% packet loss, time 202ms\n")
    assert sniff.ping_summary(out) == (3, [0.301, 0.299])      # the first waited for ARP
    assert sniff.ping_summary("ping: connect: Network is unreachable\n") == (0, [])


def test_the_listener_is_the_first_node_no_pair_uses():
    hub = build_spec("single-net", nodes=4)
    pairs = place(hub, 1, "any")
    assert sniff.listener_of(hub, pairs, None) == "b2"
    assert sniff.listener_of(hub, pairs, "b3") == "b3"
    for asked, word in (("b1", "an end or the relay"), ("b9", "has no node b9")):
        with pytest.raises(BadInput, match=word):
            sniff.listener_of(hub, pairs, asked)
    with pytest.raises(BadInput, match="a station besides the pairs'"):
        sniff.listener_of(hub, place(hub, 2, "any"), None)
    routed = build_spec("routed-mesh", nodes=9)
    far = place(routed, 1, "remote-wire")
    assert far[0].relay and sniff.listener_of(routed, far, None) not in (far[0].src, far[0].dst, far[0].relay)


def test_only_a_learning_bridges_shared_wire_is_refused():
    hub, star = build_spec("single-net", nodes=4), build_spec("switched-cluster", nodes=4)
    assert sniff.learning_wires(hub, "b2", "tc") == ["w0"]       # a Linux bridge learns: no hub
    assert sniff.learning_wires(hub, "b2", "engine") == []       # the engine repeats every frame
    assert sniff.learning_wires(star, "b2", "tc") == []          # a port of its own either way


def test_the_sweep_refuses_a_network_without_a_third_station():
    sweep = Sweep.make("sniff", {"topology": ["single-net"], "nodes": 2})
    with pytest.raises(BadInput, match="a station besides"):
        sweep.check()
    with pytest.raises(BadInput, match="--listener takes a node's name"):
        Sweep.make("sniff", {"topology": ["single-net"], "listener": "b2; reboot"})
    sweep = Sweep.make("sniff", {"topology": ["single-net", "switched-cluster"], "nodes": 4, "listener": "b3"})
    sweep.check()
    assert [pt["listener"] for _, pts in sweep.schedule() for pt in pts] == ["b3", "b3"]


def test_a_point_costs_its_pings():
    wl = WORKLOADS["sniff"]
    assert wl.cost(None, {}, {"pings": 20}) == pytest.approx(20 * sniff.PING_INTERVAL_S + sniff.SETTLE_S
                                                             + sniff.SETUP_S)
    assert {"frames_seen", "pair_frames_seen", "pair_frames_sent", "seen_share"} <= set(wl.csv_columns)


def test_the_agent_says_why_it_cannot_listen():
    """A card that is not there (or no right to a raw socket): one JSON line with the error,
    never a traceback, and never 'ready'."""
    r = subprocess.run(python(sniff_agent.__file__, "--nic", "no-such-nic9", "--pair-mac", "02:00:00:00:00:01"),
                       input="", capture_output=True, text=True, timeout=30, cwd="/")
    lines = r.stdout.strip().splitlines()
    assert "ready" not in lines and "cannot listen on no-such-nic9" in json.loads(lines[-1])["error"]


def test_the_table_shows_the_share_to_three_decimals_and_the_counts_whole():
    """A table's cells are the figure's own (Figure.unit, digits, counts): one frame in 42 reads
    0.024, not 0.02 (16 % off, which hub-sniffing's q3 would take for a wrong answer)."""
    from beowulf_netlab.judge.table import table
    doc = json.loads((Path(__file__).resolve().parent.parent / "fixtures" / "v5-iperf-series.json").read_text())
    base = {k: v for k, v in doc["points"][0].items() if k not in (*WORKLOADS["iperf"].csv_columns, "per_pair",
                                                                        "flows", "duration", "window_s")}
    doc["workload"] = "sniff"
    doc["points"] = [{**base, "workload": "sniff", "topology": topo, "point_index": i,
                      "gates": {"ok": True, "failed": []}, "pairs": 1, "pings": 20, "listener": None, "throughput_mbyte_s": 0.002, "listened_on": "b2",
                      "frames_seen": seen, "pair_frames_seen": seen, "foreign_frames_seen": seen - 1,
                      "pair_frames_sent": 42, "seen_share": sniff.share(seen, 42)}
                     for i, (topo, seen) in enumerate((("single-net", 42), ("switched-cluster", 1)))]
    rows = {" ".join(line.split()[:-1]): line.split()[-1] for line in table(doc).splitlines()[2:6]}
    assert table(doc).startswith("share of the pairs' frames a third station saw, the median share and frame counts")
    assert rows == {"single-net @10Mb share seen": "1.000", "switched-cluster @10Mb share seen": "0.024",
                    "single-net @10Mb frames seen": "42", "single-net @10Mb frames sent": "42"}
