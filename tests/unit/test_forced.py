"""Can a claim fail? The judge's own analysis (beowulf_netlab/judge/bounds.py, beowulf_netlab/judge/forced.py), on synthetic
points, on the stored reproduction and, claim by claim, on synthetic documents shaped like
every current experiment (no root).

A verdict that no admissible reading could change is no evidence: it must come out "forced by
construction", never "reproduced", and name what forced it (core.verdicts.Forced). Every other
claim gets a reading that flips it, which the judge must then fail: each test here builds the
points, with limits known by hand, or from the experiment files as reproduce would run them.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from beowulf_netlab.core.verdicts import Forced
from beowulf_netlab.judge import bounds as B
from beowulf_netlab.judge import claims as C
from beowulf_netlab.judge import forced as F
from beowulf_netlab.netlab.hostcost import round_trip_us
from beowulf_netlab.netlab.shaping import payload_capacity_bytes_s
from beowulf_netlab.run.calibration import load_calibrations
from beowulf_netlab.run.point import filled
from beowulf_netlab.run.results import load as load_doc
from beowulf_netlab.topologies.hardware import load

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "reproduction"
CAP10 = payload_capacity_bytes_s(10) / 1e6       # one 10 Mbit/s wire's payload limit, MB/s
CAL = {"id": "disk", "what": "7 local copies", "applies": {"workload": "filecopy"},
       "where": {"copies": 7, "remote": 0}, "metric": "throughput_mbyte_s", "target": 11.7,
       "tolerance": 0.05}
SLACK, DISK_SLACK = 1.02, 1.05                   # the gates' slack on wires and CPUs, on disks


def copies(remote: int, value: float, wires=("w0",), rate: float = 10.0, **extra) -> dict:
    """A file-copy point: 7 copies, `remote` of them over the given wires (one segment), with its
    declared defaults filled as the loader gives every reader (its size left unknown: None)."""
    return filled({"workload": "filecopy", "copies": 7, "remote": remote, "rate_mbit": rate, "nodes": None,
            "topology": "single-net", "throughput_mbyte_s": value, "repeat": 0,
            "disks": {"read_mbyte_s": 1.67, "write_mbyte_s": 1.67},
            "flows": [{"path": [list(wires)], "bytes": 1, "start": 0, "end": 1} for _ in range(remote)], **extra},
                  "filecopy")


def docs(*points) -> dict:
    return {"fig": {"name": "fig", "workload": "filecopy", "points": list(points)}}


def test_a_calibrated_point_is_pinned_and_a_copy_mix_set_by_its_slowest_copy():
    """All-local copies read the calibration's band; with remote copies the mix is copies x the
    rate each remote copy can hold on its wires (not the wires plus the local disks summed), and
    never more than its disks allow a copy."""
    b = B.point_bound(copies(0, 11.5), "throughput_mbyte_s", [CAL])
    assert (b.lo, b.hi) == pytest.approx((11.7 * 0.95, 7 * 1.67 * DISK_SLACK)) and "calibration disk" in b.why()
    b = B.point_bound(copies(7, 1.0), "throughput_mbyte_s", [CAL])
    assert b.lo == 0 and b.hi == pytest.approx(CAP10 * SLACK) and "wire" in b.why()
    # one remote copy over two bonded wires: the six local copies' disks set the time
    b = B.point_bound(copies(1, 9.0, ("w0", "w1")), "throughput_mbyte_s", [])
    assert b.hi == pytest.approx(7 * 1.67 * DISK_SLACK) and "disks" in b.why()
    # four over them: each at most half a wire, and the mix 7 times that
    b = B.point_bound(copies(4, 3.0, ("w0", "w1")), "throughput_mbyte_s", [])
    assert b.hi == pytest.approx(7 * 2 * CAP10 * SLACK / 4)
    # the wiring alone (judge.bounds.LEVELS): no disk, no calibration
    b = B.point_bound(copies(0, 11.5), "throughput_mbyte_s", [CAL], Forced.WIRING)
    assert (b.lo, b.hi) == (0.0, B.INF)


def test_pio_caps_a_copy_at_its_cpu_not_its_drive():
    """On the prototype's profile each disk byte passes the CPU (485 ns/B): a local copy's two
    transfers allow 1.03 MB/s, though the drive's throttle is 3.0; a remote copy pays one
    transfer and the network's bytes on each CPU."""
    pio = {"read_mbyte_s": 3.0, "write_mbyte_s": 3.0, "transfer": "pio", "cpu_ns_per_byte": 485.44}
    local = B.point_bound(copies(0, 7.2, disks=pio, hardware="prototype-1995"), "throughput_mbyte_s", [])
    assert local.hi == pytest.approx(7 * 1e3 / (2 * 485.44) * SLACK)
    cost = load("prototype-1995").host_cost
    remote = B.point_bound(copies(7, 2.0, ("w0", "w1"), rate=100, disks=pio, hardware="prototype-1995"),
                           "throughput_mbyte_s", [])
    net = cost.per_byte_ns + cost.per_packet_us * 1e3 / B.MOST_PAYLOAD
    assert remote.hi == pytest.approx(7 * 1e3 / (485.44 + net) * SLACK) and "CPU" in remote.why()


def token(placement: str, paths: list, rate: float = 10.0, size: int = 8192, **extra) -> dict:
    return filled({"workload": "token", "topology": "switched-mesh", "nodes": 16, "rate_mbit": rate,
                   "channels": None, "placement": placement, "pairs": len(paths), "token_size": size,
                   "tokens_in_flight": 2, "repeat": 0, "throughput_mbyte_s": 1.0, "hardware": "none",
                   "flows": [{"path": [[w] for w in p]} for p in paths], **extra}, "token")


def test_a_wire_is_shared_by_every_flow_that_crosses_it():
    """The switched mesh's 8 wires: local-wire pairs one per wire (8 wires' worth), remote-wire
    pairs each over two wires and each wire carrying two pairs (4 wires' worth), where the sum of
    the wires crossed allowed 8 to both."""
    wires = [f"r{k}" for k in range(4)] + [f"c{k}" for k in range(4)]
    local = token("local-wire", [[w] for w in wires])
    remote = token("remote-wire", [[wires[k], wires[(k + 1) % 8]] for k in range(8)])
    assert B.point_bound(local, "throughput_mbyte_s", []).hi == pytest.approx(8 * CAP10 * SLACK)
    assert B.point_bound(remote, "throughput_mbyte_s", []).hi == pytest.approx(4 * CAP10 * SLACK)
    # a small token fills less of a frame: 64 bytes in 142 on the wire, not 1448 in 1538
    small = B.point_bound(token("local-wire", [["r0"]], size=64, tokens_in_flight=1), "throughput_mbyte_s", [])
    assert small.hi == pytest.approx(10 / 8 * 64 / 142 * SLACK)


def test_the_largest_sum_the_wires_admit():
    """judge.bounds._most: a textbook linear program, checked on cases worked by hand."""
    assert B._most([[1, 1]], [2.0], [B.INF, B.INF]) == pytest.approx(2.0)
    # a chain: f0 on w0, f1 on w0 and w1, f2 on w1: the middle flow is best starved
    assert B._most([[1, 1, 0], [0, 1, 1]], [1.0, 1.0], [B.INF] * 3) == pytest.approx(2.0)
    assert B._most([[1, 1, 0], [0, 1, 1]], [1.0, 1.0], [0.25, B.INF, 0.5]) == pytest.approx(1.25)
    assert B._most([[1, 0]], [1.0], [B.INF, B.INF]) == B.INF      # a flow nothing bounds


def test_a_lone_round_trip_caps_a_lone_pair():
    """The model's floor on a round trip (its wire times and charges, netlab.hostcost) is a
    ceiling on one pair's throughput with one token in flight, on the medium engine only."""
    point = filled({"workload": "token", "topology": "single-net", "rate_mbit": 10, "pairs": 1, "token_size": 64,
                    "tokens_in_flight": 1, "transport": "tcp", "hardware": "prototype-1995", "wire_impl": "engine",
                    "nodes": None, "channels": None, "card_latency_us": 177, "throughput_mbyte_s": 0.06,
                    "repeat": 0, "flows": [{"path": [["w0"]]}]}, "token")
    rtt = round_trip_us(load("prototype-1995").host_cost, 10, 64, 177)
    b = B.point_bound(point, "throughput_mbyte_s", [])
    assert b.hi == pytest.approx(2 * 64 / (rtt * 0.95)) and "round trip" in b.why()      # the gates' 5 %
    assert B.point_bound({**point, "wire_impl": "tc"}, "throughput_mbyte_s", []).hi > b.hi * 1.5
    assert B.point_bound({**point, "tokens_in_flight": 2}, "throughput_mbyte_s", []).hi > b.hi * 1.5
    # and a floor under its round trip
    assert B.point_bound(point, "rtt_ms_median", []).lo == pytest.approx(rtt * 0.95 / 1e3)


def test_local_over_remote_at_ten_megabits_cannot_fail_but_a_tight_target_can():
    """IPPS'96 claim 9 on the demonstration system's disk: all-local is pinned at 11.7 +- 5 %,
    all-remote is at most one wire (1.2 MB/s), so local / remote > 4 whatever is measured: forced
    by a calibration. A target the range straddles can fail."""
    d = docs(copies(0, 11.6), copies(7, 1.1))
    check = {"kind": "ratio", "a": {"where": {"remote": 0}}, "b": {"where": {"remote": 7}},
             "shape": {"op": ">", "value": 4}}
    claim = {"id": 9, "check": check, "experiments": ["fig"], "calibration": False}
    f = C.can_fail(claim, d, [CAL])
    assert f.forced and f.kind == Forced.CALIBRATION and "calibration disk" in f.why
    assert F.analyse(check, d, "fig", [CAL], level=Forced.WIRING).forced is False
    tight = C.can_fail({**claim, "check": {**check, "shape": {"op": ">", "value": 12}}}, d, [CAL])
    assert tight.can_fail and tight.flip_verdict == C.NOT_REPRODUCED and tight.flip_text
    # a bias that gives the relation anyway: the relation is no pass, so nothing is forced
    assert C.can_fail({**claim, "bias": {"direction": "up", "why": "x"}}, d, [CAL]).can_fail


def test_an_order_of_a_pinned_point_over_a_capped_one_cannot_fail():
    d = docs(copies(0, 11.6), copies(7, 1.1))
    order = {"kind": "order", "items": [{"where": {"remote": 0}}, {"where": {"remote": 7}}]}
    assert F.analyse(order, d, "fig", [CAL]).forced is True
    assert F.analyse({**order, "items": order["items"][::-1]}, d, "fig", [CAL]).forced is False


def test_a_pin_ties_a_point_to_a_calibration_and_the_judge_holds_it_there():
    """Claim 15's point at one remote copy reads the all-local rate (its own text): pinned, the
    decline cannot fail; a reading outside the band breaks the tie, not the claim."""
    pinned = {"where": {"remote": 1}, "pin": {"calibration": "disk", "why": "the local copies set the time"}}
    order = {"kind": "order", "items": [pinned, {"where": {"remote": 7}}], "margin": 0.05}
    claim = {"id": 15, "source": "t", "statement": "t", "paper": {"value": 1, "status": "verified"},
             "experiments": ["fig"], "check": order, "calibration": False, "gap": ""}
    runs = [copies(r, v, repeat=k) for r, v in ((0, 11.7), (1, 11.5), (7, 1.1)) for k in range(2)]
    f = C.can_fail(claim, docs(*runs), [CAL])
    assert f.forced and f.kind == Forced.CALIBRATION and "pinned" in f.why
    [r] = C.judge_all([claim], docs(*runs), cals=[CAL])
    assert r["verdict"] == C.FORCED and r["can_fail"]["kind"] == Forced.CALIBRATION, r
    broken = [p if p["remote"] != 1 else {**p, "throughput_mbyte_s": 9.0} for p in runs]
    [r] = C.judge_all([claim], docs(*broken), cals=[CAL])
    assert r["verdict"] == C.NOT_CHECKABLE and "the tie failed" in r["reason"], r


def test_the_judge_shows_a_claim_that_cannot_fail_as_forced_never_reproduced():
    """The real claims file over the stored reproduction (made before the declared today_disk,
    with ide-1995 disks on today's view): the claims the analysis finds unable to fail, per view,
    and what forced each. No forced claim is counted as reproduced."""
    stored = {}
    for path in sorted(FIXTURES.glob("*.json")):
        doc = load_doc(path)   # as every reader gets it: upgraded, its declared defaults filled
        stored[doc["name"]] = doc
    claims, cals = C.load_claims(), load_calibrations()
    found = {}
    for which in C.views_present(stored):
        for r in C.judge_all(claims, stored, which, cals):
            assert r["verdict"] != C.REPRODUCED or not r["can_fail"]["forced"], r
            if r["can_fail"]["forced"]:
                found[(which, r["id"])] = r["can_fail"]["kind"]
                assert r["verdict"] in (C.FORCED, C.NOT_REPRODUCED, C.NOT_CHECKABLE), r
            elif r["can_fail"]["analysed"]:
                assert r["can_fail"]["flip"], r
    # the list a change to the claims must update (claim 5's round-trip calibration applies to
    # points whose cards ran its latency: these predate the card's latency)
    assert found == {(C.TODAY, 9): Forced.CALIBRATION, (C.PAPER, 15): Forced.CALIBRATION}, found


# -- claim by claim, on documents shaped like every current experiment ------------------------------

METRICS = ("throughput_mbyte_s", "read_mbyte_s", "write_mbyte_s", "rtt_ms_median")


@lru_cache(maxsize=None)
def shaped(name: str) -> dict:
    """The experiment's points as a full reproduce on both views would record them (2 repeats of
    each, the calibrations it adds included), with the network, disk and flow paths each really
    gets, and no reading yet."""
    from beowulf_netlab.commands.reproduce import with_hardware
    from beowulf_netlab.netlab.disk_profiles import for_spec
    from beowulf_netlab.netlab.medium import ENGINE_MAX_RATE_MBIT
    from beowulf_netlab.run.calibration import with_calibrations
    from beowulf_netlab.run.experiment import experiment_files, load as load_experiment
    from beowulf_netlab.topologies.point import network_fields
    from beowulf_netlab.workloads.placement import place
    sweep = with_hardware(load_experiment(experiment_files()[name])[0], "both", None)
    settings = sweep.settings()
    schedule, _ = with_calibrations(sweep, list(sweep.schedule()))
    points = []
    for spec, pts in schedule:
        net = network_fields(spec)
        engine = net["rate_mbit"] <= ENGINE_MAX_RATE_MBIT and net.get("time_scale", 1) == 1
        for pt in (p for p in pts if not p.get("repeat")):
            p = {"workload": sweep.workload, **net, **settings, **pt, "wire_impl": "engine" if engine else "tc"}
            if sweep.workload == "filecopy":
                disk = for_spec(settings["disk"], spec, settings.get("disk_transfer"), settings["today_disk"])
                pairs = place(spec, pt["remote"], pt["placement"]) if pt["remote"] else []
                p.update(disks=disk.record(), disk_profile=disk.record()["profile"],
                         flows=[{"path": [list(s) for s in q.path]} for q in pairs])
            elif sweep.workload == "token":
                pairs = place(spec, pt["pairs"], pt["placement"])
                p["flows"] = [{"path": [list(s) for s in q.path]} for q in pairs]
            else:
                p["disks"] = for_spec(settings["disk"], spec, transfer=None).record()
                p["disk_profile"] = p["disks"]["profile"]
                p.update({m: float(k + 1) for k, m in enumerate(METRICS[:3])})   # the disks' caps find them
            points += [{**p, "repeat": r, "point_index": len(points) + r} for r in range(2)]
    return {"name": name, "workload": sweep.workload, "points": points, "complete": True}


def _claims() -> list[dict]:
    return [c for c in C.load_claims() if c["check"]["kind"] != "tested" and not c.get("calibration")]


def _view(claim: dict, which: str) -> dict[str, dict]:
    names = {*claim["experiments"], *(s["experiment"] for s in C._selections(claim["check"]) if "experiment" in s)}
    return C.view({n: shaped(n) for n in names}, which)


def _filled(docs: dict[str, dict], reading: dict, cals: list[dict]) -> dict[str, dict]:
    """Every point at the reading given for it, the rest at their calibration's target or the
    middle of their admissible range: calibrations met, nothing noisy."""
    out = {}
    for name, doc in docs.items():
        points = []
        for i, p in enumerate(doc["points"]):
            q = dict(p)
            for m in METRICS:
                band = B.calibration_band(p, m, cals)
                if (name, i) in reading and m != "rtt_ms_median":
                    q[m] = reading[(name, i)]
                elif band:
                    q[m] = (band[0] + band[1]) / 2
                else:
                    b = B.point_bound(p, m, cals)
                    q[m] = (b.lo + b.hi) / 2 if b.hi < B.INF else b.lo + 1.0
            points.append(q)
        out[name] = {**doc, "points": points}
    return out


FORCED_HERE = {(C.TODAY, 15): Forced.CALIBRATION, (C.PAPER, 15): Forced.CALIBRATION,
               (C.PAPER, 5): Forced.MODEL}
"""What cannot fail on documents shaped like the current experiments, and why: claim 15's point at
one remote copy is pinned by prototype-1995-disk (both views: today's view of the figure gets the
prototype's disk, today_disk era) and 4-7 bonded remote copies cannot carry half of it; claim 5 on
the paper's hardware reads one lone round trip of the model on either wiring."""


@pytest.mark.parametrize("which", [C.TODAY, C.PAPER])
@pytest.mark.parametrize("claim", _claims(), ids=lambda c: f"claim{c['id']}")
def test_each_claim_flips_on_a_reading_or_cannot_fail(claim, which):
    """A reading of every point the claim reads, each inside what the model admits, that the judge
    fails (not reproduced); or, for the claims listed in FORCED_HERE, the proof that none exists
    and the judge's verdict 'forced by construction' on the readings nearest failing."""
    cals = load_calibrations()
    docs = _view(claim, which)
    f = C.can_fail({**claim, "bias": C.bias_on(claim, which)}, docs, cals)
    assert f.can_fail is not None, f.why
    if (which, claim["id"]) in FORCED_HERE:
        assert f.forced and f.kind == FORCED_HERE[(which, claim["id"])], f
        return
    assert f.can_fail and f.flip, f
    [r] = C.judge_all([claim], _filled(docs, f.flip, cals), which, cals)
    failed = r["verdict"] == C.NOT_REPRODUCED or \
        r["verdict"] == C.CONSEQUENCE and r["reason"].startswith(C.NOT_REPRODUCED)   # claim 24, counted apart
    assert failed, (f.flip_text, r["reason"])


def test_claim_15_holds_at_its_worst_admissible_reading():
    """The proof for claim 15, by example: the pinned point at the bottom of its band and 4-7
    remote copies each at the most their wires allow still read in the paper's order."""
    cals = load_calibrations()
    claim = next(c for c in C.load_claims() if c["id"] == 15)
    for which in (C.TODAY, C.PAPER):
        docs = _view(claim, which)
        first, heavy = (F.selection(docs, s, claim["experiments"][0], cals) for s in claim["check"]["items"])
        worst = {**first.reading(first.lo), **heavy.reading(heavy.hi)}
        [r] = C.judge_all([claim], _filled(docs, worst, cals), which, cals)
        assert r["verdict"] == C.FORCED and r["can_fail"]["kind"] == Forced.CALIBRATION, r


def test_claim_5_on_the_papers_hardware_flips_only_through_an_emulator_defect():
    """The model makes a lone pair's round trip the same on one wire or two: equal readings pass
    (forced by the model's construction), and it takes two wirings about 5 % apart, some 125 us of
    a 2.6 ms round trip, to fail it: what the analysis says it would take."""
    cals = load_calibrations()
    claim = next(c for c in C.load_claims() if c["id"] == 5)
    docs = _view(claim, C.PAPER)
    f = C.can_fail(claim, docs, cals)
    assert f.forced and f.kind == Forced.MODEL and " us of its " in f.why, f.why
    a, b = (F.selection(docs, claim["check"][k], claim["experiments"][0], cals) for k in ("a", "b"))
    top = min(a.hi, b.hi) * 0.9            # inside both ranges: what their round trips allow
    for apart, verdict in ((1.0, C.FORCED), (1.06, C.NOT_REPRODUCED)):
        reading = {**a.reading(top), **b.reading(top / apart)}
        [r] = C.judge_all([claim], _filled(docs, reading, cals), C.PAPER, cals)
        assert r["verdict"] == verdict, r


def test_todays_view_of_the_prototypes_figure_gets_its_own_disk_so_claim_9_can_fail():
    """The declared disk choice (experiments' today_disk era): today's hosts of IPPS'96 Figure 3
    get the prototype's calibrated 1.03 MB/s a copy, pinned by prototype-1995-disk at 7.22 +- 5 %,
    so all-local / all-remote can fall under 4 when the network carries 2.4 MB/s: claim 9 can fail
    there (with the demonstration system's 1.67 it could not)."""
    claim9 = next(c for c in C.load_claims() if c["id"] == 9)
    docs = _view(claim9, C.TODAY)
    disk = docs["ipps96-fig3-prototype"]["points"][0]["disks"]
    assert disk["profile"] == "prototype-1995-throttle" and disk["read_mbyte_s"] == 1.03
    f = C.can_fail(claim9, docs, load_calibrations())
    assert f.can_fail and "calibration prototype-1995-disk" in f.why, f.why
    # the demonstration system's figure keeps its own (1.67 a copy, the ide-1995 calibration's rate)
    fig5 = C.view({"f": shaped("ipps96-fig5-demonstration")}, C.TODAY)["f"]
    assert fig5["points"][0]["disks"]["profile"] == "demonstration-1996-throttle"
    assert fig5["points"][0]["disks"]["read_mbyte_s"] == 1.67
