"""The sniff workload on real networks (issue 44 item 2): b2, in promiscuous mode, sees every frame
b0 and b1 send on a hub (ARP's request and reply, each ping's request and reply), all but ARP's
broadcast addressed to another card; on a port of a switched cluster it sees ARP's broadcast
request alone, which the switch floods; on the tc wire, whose hub is a learning bridge, a
listener is refused. What hub-sniffing's answers rest on (tests/integration/test_exercises.py
checks the exercise itself)."""
import json
import subprocess

import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.core.command import python  # noqa: E402

ROOT = __file__.rsplit("/tests/", 1)[0]
PINGS = 20


pytestmark = pytest.mark.usefixtures("engine_built")


def run_sniff(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(python(f"{ROOT}/emulate.py", "run", "sniff", "--nodes", "4", "--rate", "10",
                                 "--pings", str(PINGS), "--no-progress", "--out", str(tmp_path / "sniff.json"),
                                 *args), cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_a_third_station_sees_every_frame_on_a_hub_and_only_the_broadcast_on_a_switch(tmp_path):
    r = run_sniff(tmp_path, "--topo", "single-net,switched-cluster", "--contention", "on")
    assert r.returncode == 0, r.stderr[-2000:]
    points = {p["topology"]: p for p in json.loads((tmp_path / "sniff.json").read_text())["points"]}
    hub, star = points["single-net"], points["switched-cluster"]
    sent = 2 * PINGS + 2                                  # the pings both ways, ARP's request and reply
    for p in (hub, star):
        assert p["listened_on"] == "b2" and p["ping_replies"] == PINGS and p["socket_drops"] == 0, p
        assert p["pair_frames_sent"] == sent, p
    # b2 may also see frames that are not the pair's (a switch floods what it has not learnt, a
    # kernel its own broadcasts): counted in frames_seen, never in the pair's
    assert hub["pair_frames_seen"] == sent and hub["frames_seen"] >= sent and hub["seen_share"] == 1.0, hub
    assert hub["foreign_frames_seen"] == sent - 1, hub  # all but ARP's broadcast request
    assert star["pair_frames_seen"] == 1 and star["foreign_frames_seen"] == 0, star   # ARP's request only


def test_a_listener_on_a_learning_bridge_is_refused(tmp_path):
    r = run_sniff(tmp_path, "--topo", "single-net", "--wire", "tc")
    assert r.returncode != 0 and "learns addresses" in r.stderr, r.stderr[-2000:]
