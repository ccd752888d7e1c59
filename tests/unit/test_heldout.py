"""The host path's held-out table (judge.heldout): each lone exchange against its own path's model."""
from beowulf_netlab.judge import heldout as H
from beowulf_netlab.run.point import filled


def _point(topology, pairs, via, medians, wires=None, ok=True, **over):
    n = len(medians)
    wires = wires or [[[f"w{i}"], [f"v{i}"]][: len(via) + 1] for i in range(n)]
    return filled({"workload": "token", "topology": topology, "placement": "remote-wire", "pairs": pairs,
            "hardware": "prototype-1995", "rate_mbit": 10.0, "wire_impl": "engine", "token_size": 1,
            "tokens_in_flight": 1, "transport": "tcp",
            "flows": [{"path": w, "via": list(via), "bytes": 10} for w in wires],
            "per_pair": [{"src": f"b{i}", "dst": f"c{i}", "rtt_ms_median": m, "rtt_ms_min": m * 0.99}
                         for i, m in enumerate(medians)],
            "gates": {"ok": ok, "failed": [] if ok else ["slow host: x"]}, "fidelity": {}, "repeat": 0, **over},
                  "token")   # its declared defaults, as the loader gives every reader


def test_each_path_is_held_to_its_own_model_and_shared_wires_are_only_shown():
    docs = {H.EXPERIMENT: {"points": [
        _point("routed-mesh", 1, ["relay"], [2.28]),                     # model 2.243 ms
        _point("switched-mesh", 1, ["switch"], [2.28]),                  # model 1.822 ms: +25 %
        _point("switched-mesh", 8, [], [1.70, 1.60], ok=False, placement="local-wire"),  # model 1.702: -3.1 %
        _point("switched-mesh", 8, ["switch"], [3.0, 3.1], wires=[[["r0"], ["c1"]], [["r0"], ["c2"]]]),
        _point("bonded-switched-mesh", 1, ["switch"], [1.9], wires=[[["r0", "c0"], ["r0", "c1"]]]),
        {"calibration_of": "x", "topology": "single-net", "pairs": 1, "per_pair": [{"rtt_ms_median": 9}]}]}}
    rows = {(r["network"], r["pairs"], r["path"]): r for r in H.rows(docs)}
    assert rows[("routed-mesh", 1, "through a relay")]["reads"] == H.ON_MODEL
    assert rows[("routed-mesh", 1, "through a relay")]["model_ms"] == 2.243
    over = rows[("switched-mesh", 1, "through a switch")]
    assert over["reads"] == H.OVER and over["off"] > 0.2
    eight = rows[("switched-mesh", 8, "one wire")]
    assert eight["reads"] == H.ON_MODEL and eight["median_ms"] == 1.65 and eight["gates"] == "slow host: x"
    assert rows[("switched-mesh", 8, "through a switch")]["reads"] == H.SHARED
    assert rows[("bonded-switched-mesh", 1, "through a switch")]["reads"] == H.MIXED
    assert len(rows) == 5 and H.rows({}) == []
    assert any("through a relay" in line for line in H.table(H.rows(docs)))
