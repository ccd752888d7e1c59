"""The token exchange on real networks, through the runner, and its results file."""
import json
import os
import signal
import subprocess
import sys
import time

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.netlab.testbed import BuildOptions
from beowulf_netlab.run.results import load, new_document
from beowulf_netlab.run.runner import run_sweep
from beowulf_netlab.run.sweep import Sweep
from tests.integration.hostsnap import diff, snapshot

EMULATE = [sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "emulate.py")]
WIRE_PAYLOAD_LIMIT = 10e6 / 8 * 1448 / 1538 / 1e6   # MB/s of payload one 10 Mbit/s wire can carry


def sweep_doc(tmp_path, **given):
    sweep = Sweep.make("token", {"duration": 2.0, **given})
    doc = new_document("token", sweep.parameters())
    return run_sweep(sweep, doc, tmp_path / "r.json", BuildOptions(), progress=False)


def mean(doc, topo, placement="any", size=8192):
    vals = [p["throughput_mbyte_s"] for p in doc["points"]
            if p["topology"] == topo and p["placement"] == placement and p["token_size"] == size]
    return sum(vals) / len(vals)


def test_single_net_never_exceeds_its_wire(tmp_path):
    doc = sweep_doc(tmp_path, topology=["single-net"], token_size=[64, 1024, 8192],
                    tokens_in_flight=[1, 4], pairs=[1, 4], contention=["off"])   # the wire's limit, not CSMA/CD
    assert len(doc["points"]) == 12
    for p in doc["points"]:
        assert 0 < p["throughput_mbyte_s"] <= WIRE_PAYLOAD_LIMIT * 1.01, p
    assert load(tmp_path / "r.json")["points"] == json.loads(json.dumps(doc["points"]))   # validates, reads back
    rows = (tmp_path / "r.csv").read_text().splitlines()
    assert len(rows) == 13 and "token_size" in rows[0] and "tokens_in_flight" in rows[0]
    env = doc["environment"]["topologies"]["single-net@10"]
    applied = env["applied_commands"]
    if env["wire_impl"] == "tc":
        wire = next(owner for owner in applied if owner.endswith("ww0"))
        assert any(c["argv"][:3] == ["tc", "qdisc", "replace"] and c["rc"] == 0 for c in applied[wire])
    else:   # the engine's segment as configured is the record, and every point has its lag
        assert any(line.startswith("segment w0 rate_bps=10000000 duplex=half")
                   for line in env["medium"]["config"])
        assert all(p["wire_impl"] == "engine" and p["medium"]["lag"]["count"] > 0 for p in doc["points"])
    assert any(c["argv"][0] == "sysctl" for c in applied["b0"])


def test_topologies_rank_as_their_wiring_says(tmp_path):
    doc = sweep_doc(tmp_path, topology=["single-net", "bonded-dual-net", "switched-mesh"],
                    token_size=[8192], tokens_in_flight=[2], pairs=[4, 8],
                    placement=["local-wire"])
    at = {pairs: {p["topology"]: p["throughput_mbyte_s"] for p in doc["points"] if p["pairs"] == pairs}
          for pairs in (4, 8)}
    single, bonded = at[4]["single-net"], at[4]["bonded-dual-net"]
    assert bonded >= 1.5 * single, at
    # 4 local-wire pairs can use only 4 of the 8 wires: at most 2x the 2-wire bonded
    # net. 8 pairs fill all 8 wires: the HPDC'96 "about 4x the bonded net" regime.
    assert at[4]["switched-mesh"] >= 1.8 * bonded, at
    assert at[8]["switched-mesh"] >= 3 * at[8]["bonded-dual-net"], at
    assert all(not p["fidelity"]["suspect"] for p in doc["points"]), doc["points"]


def test_sigint_keeps_finished_points_and_leaves_nothing(tmp_path):
    before = snapshot()
    out = tmp_path / "int.json"
    proc = subprocess.Popen([*EMULATE, "run", "token", "--topo", "single-net", "--token-size",
                             "64,128,256,512,1K,2K,4K,8K", "--duration", "1.5", "--out", str(out),
                             "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180   # a TCG lab VM under load takes 30-60 s a point
    while time.monotonic() < deadline:
        if out.exists() and len(json.loads(out.read_text())["points"]) >= 2:
            break
        time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    doc = json.loads(out.read_text())
    assert 2 <= len(doc["points"]) < 8 and doc["complete"] is False
    assert diff(before, snapshot()) == {}


def test_udp_round_trips_cross_the_wire(testbed):
    """--transport udp (lmbench's lat_udp): every datagram comes back intact, none is lost on an
    idle wire, and a round trip takes at least two frames' time on the wire, which a loopback or an
    unshaped path would not. On the engine that is each frame's delivery time (a 72-byte carrier on a
    10 Mbit/s hub and its path: 59.7 us each way; the gap after a frame is the next frame's). The tc
    wire (a lab VM without the engine) is a rate cap whose bucket holds one frame and a little more
    (netlab.shaping.burst_bytes): a frame may leave that little early, so its floor is the frame's
    on-wire bytes less the bucket's excess (a TCG guest read 2.438 ms for 1472 B, 2.446 the engine's
    floor, 2.362 the tc wire's)."""
    from beowulf_netlab.netlab.shaping import burst_bytes
    from beowulf_netlab.topologies.ethernet import MAX_FRAME_ON_WIRE, delivery_time_s, wire_bytes
    from beowulf_netlab.workloads.token import run_exchange
    tb = testbed("single-net", nodes=2, rate_mbit=10, contention="off")   # the wire's floor alone

    def floor_ms(payload: int) -> float:
        if tb.impls["wire"] == "engine":
            return 2 * delivery_time_s(payload + 28 + 14, 10) * 1e3
        early = burst_bytes(10) - MAX_FRAME_ON_WIRE
        return 2 * (wire_bytes(payload + 28 + 14) - early) * 8 / 10e6 * 1e3

    res = run_exchange([(tb.host("b0"), tb.host("b1"))], 1, 1, exchanges=300, transport="udp")
    [pair] = res["per_pair"]
    assert pair["round_trips"] == 300 and pair["lost"] == 0
    assert res["rtt_ms_median"] >= floor_ms(1), (res["rtt_ms_median"], tb.impls["wire"])
    big = run_exchange([(tb.host("b0"), tb.host("b1"))], 1472, 1, exchanges=100, transport="udp")
    # 1472 B each way is a full frame: a 1526-byte carrier, 1.223 ms each way at 10 Mbit/s
    assert big["rtt_ms_median"] >= floor_ms(1472), (big["rtt_ms_median"], tb.impls["wire"])


def test_a_later_pass_adds_repeats_to_the_same_document(tmp_path):
    """reproduce's passes (judge.repeats): the first measures two repeats, a later one the third
    of the points it picks into the same document; indexes stay unique, the file reads back."""
    from beowulf_netlab.commands.reproduce import first_pass
    from beowulf_netlab.run.session import Session
    sweep = Sweep.make("token", {"topology": ["single-net"], "nodes": 2, "pairs": [1], "token_size": [1024, 8192],
                                 "tokens_in_flight": [1], "duration": 0.5, "repeats": 3})
    out = tmp_path / "r.json"
    session = Session("test", BuildOptions(), [sweep], [out], checked=True)
    doc = session.run(sweep, out, None, "t", progress=False, only=first_pass)
    assert {p["repeat"] for p in doc["points"]} == {0, 1}
    session.extend("t", sweep, out, lambda p: p.get("repeat", 0) >= 2 and p["token_size"] == 8192,
                   progress=False)
    reps = sorted((p["token_size"], p["repeat"]) for p in load(out)["points"])
    assert reps == [(1024, 0), (1024, 1), (8192, 0), (8192, 1), (8192, 2)], reps
    indexes = [p["point_index"] for p in load(out)["points"]]
    assert len(indexes) == len(set(indexes))
    # the network was built twice: its time is both passes', its points all five
    [timing] = [t["timing"] for t in load(out)["environment"]["topologies"].values()]
    assert timing["passes"] == 2 and timing["points"] == 5, timing
