"""Hardware profiles on real networks: node CPU budgets, relays, disks, contention.

Each bound comes from the profile's own numbers (topologies.hardware), never
from a paper's claim: a wrong implementation (no budget, a budget per NIC, a
relay charged once, no contention) misses it by far more than the margin.
"""
from tests.integration import require_testbed  # noqa: E402

require_testbed()

import time  # noqa: E402

from beowulf_netlab.netlab.contention import DRAWS, drop_probability, drop_ruleset, efficiency, parse_counters  # noqa: E402
from beowulf_netlab.core.command import run  # noqa: E402
from beowulf_netlab.netlab.disk import DiskSet  # noqa: E402
from beowulf_netlab.netlab.disk_profiles import for_hardware  # noqa: E402
from beowulf_netlab.topologies.hardware import load  # noqa: E402
from beowulf_netlab.topologies.mesh import relay_for  # noqa: E402
from beowulf_netlab.workloads.iperf import run_pairs  # noqa: E402

SECONDS, OMIT = 6, 1
DATA, ACK = 1514, 66          # bytes of a full TCP frame and of an ACK as the qdiscs see them


def per_segment_us(cost, acks_per_segment: float, times: int = 1) -> float:
    """CPU time one full segment costs a node that sends (or receives) it and
    the ACKs that go with it; `times` = 2 for a relay (received, then sent)."""
    return times * (cost.packet_time_us(DATA) + acks_per_segment * cost.packet_time_us(ACK))


def mbyte_s(flow) -> float:
    return flow.goodput_mbit / 8


def test_a_node_sends_no_faster_than_its_cpu_budget(testbed):
    """At 100 Mbit/s a Pentium-100's budget, not the wire, bounds one TCP flow."""
    cost = load("demonstration-1996").host_cost
    tb = testbed("single-net", nodes=2, rate_mbit=100, hardware="demonstration-1996")
    [flow] = run_pairs([(tb.host("b0"), tb.host("b1"))], SECONDS, OMIT)
    fastest = 1448 / per_segment_us(cost, 0.5)       # delayed ACKs: one per two segments at best
    slowest = 1448 / per_segment_us(cost, 1.0)
    assert 0.85 * slowest <= mbyte_s(flow) <= 1.05 * fastest, (flow, slowest, fastest)
    busy = tb.host("b0").cpu_counters()
    assert busy and busy[1] > 1000, busy               # every packet passed the budget


def test_a_relay_forwards_within_its_budget_and_its_own_traffic_pays(testbed):
    """A prototype relay pays twice per forwarded packet from the budget its own flow uses."""
    cost = load("prototype-1995").host_cost
    tb = testbed("routed-mesh", nodes=4, rate_mbit=100, hardware="prototype-1995")
    relay = f"b{relay_for(0, 3, 2):x}"
    own_peer = next(n for n in ("b0", "b1", "b2", "b3") if n not in (relay, "b0", "b3"))
    h = tb.host
    [forwarded] = run_pairs([(h("b0"), h("b3"))], SECONDS, OMIT)
    assert mbyte_s(forwarded) <= 1.05 * 1448 / per_segment_us(cost, 0.5, times=2), forwarded
    [alone] = run_pairs([(h(relay), h(own_peer))], SECONDS, OMIT, base_port=5301)
    own, fwd = run_pairs([(h(relay), h(own_peer)), (h("b0"), h("b3"))], SECONDS, OMIT, base_port=5311)
    assert mbyte_s(own) <= 0.85 * mbyte_s(alone), (alone, own, fwd)
    # One budget: the relay's own flow and what it forwarded (charged twice) fit in it.
    used_us = (mbyte_s(own) / 1448) * per_segment_us(cost, 0.5) + \
              (mbyte_s(fwd) / 1448) * per_segment_us(cost, 0.5, times=2)
    assert used_us <= 1.1, (own, fwd, used_us)


def test_each_profiles_disk_rate_holds(testbed):
    """A read or write probe on each profile's disk, paying its transfers on the node's CPU,
    moves at the slower of the throttle and the CPU (PIO: the prototype's CPU, the demonstration
    system's media rate (its CPU's 3.3 MB/s is above the drive's 3.0); DMA:
    the calibrated rate), within 10 %: the charge channel takes the whole cost while busy."""
    from tests.integration.test_filecopy import agent_rate
    for name, transfer in (("prototype-1995", "pio"), ("demonstration-1996", "pio"), ("demonstration-1996", "dma")):
        tb = testbed("single-net", nodes=2, rate_mbit=10, hardware=name)
        disk = for_hardware("hardware", load(name), transfer=transfer)
        charge = tb.host("b0").charge_args(per_message=False, disk_ns_per_byte=disk.cpu_ns_per_byte)
        expect = min(disk.read_mbyte_s, 1e3 / disk.cpu_ns_per_byte)
        disks = DiskSet(tb.manifest, disk, ["b0"], 2 << 20).create()
        path = disks.disk("b0").path("probe")
        write = agent_rate(tb, disks, "b0", "write", "--dst", path, "--size", str(2 << 20), *charge)
        read = agent_rate(tb, disks, "b0", "read", "--src", path, *charge)
        for rate in (write, read):
            assert abs(rate - expect) <= 0.10 * expect, (name, transfer, write, read, expect)


def test_disk_transfers_and_packets_share_one_cpu(testbed):
    """PIO on the prototype at 100 Mbit/s, where a received flow alone keeps the node's CPU busy:
    a disk read slows the flow and the flow slows the read, both by far more than the noise.
    Without the coupling (disk work off the CPU, or the charges in a queue of their own) neither
    moves. (At 10 Mbit/s the flow needs under half the CPU and the charges yield to it between
    pieces, as 1.x served interrupts between sectors: then only the disk slows.)"""
    import json
    import subprocess
    import sys
    import threading
    from tests.integration.test_filecopy import agent_rate
    from beowulf_netlab.workloads import filecopy
    cost = load("prototype-1995").host_cost
    tb = testbed("single-net", nodes=2, rate_mbit=100, hardware="prototype-1995")
    disk = for_hardware("hardware", load("prototype-1995"))
    charge = tb.host("b0").charge_args(per_message=False, disk_ns_per_byte=disk.cpu_ns_per_byte)
    disks = DiskSet(tb.manifest, disk, ["b0"], 16 << 20).create()
    small, big = disks.disk("b0").path("small"), disks.disk("b0").path("big")
    agent_rate(tb, disks, "b0", "write", "--dst", small, "--size", str(4 << 20))
    agent_rate(tb, disks, "b0", "write", "--dst", big, "--size", str(16 << 20))
    read_alone = agent_rate(tb, disks, "b0", "read", "--src", small, *charge)
    [flow_alone] = run_pairs([(tb.host("b1"), tb.host("b0"))], SECONDS, OMIT)
    # the disk under a flow: the read runs inside a longer flow
    flows: list = []
    t = threading.Thread(target=lambda: flows.extend(run_pairs([(tb.host("b1"), tb.host("b0"))], 10, OMIT,
                                                                 base_port=5321)))
    t.start()
    time.sleep(2)
    read_under_flow = agent_rate(tb, disks, "b0", "read", "--src", small, *charge)
    t.join()
    # the flow under the disk: the flow runs inside a longer read
    disks.fresh_throttles()
    proc = tb.host("b0").popen_netns([sys.executable, filecopy.AGENT, "read", "--src", big, *charge,
                                      "--cgroup", disks.disk("b0").cgroup],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(b"go\n")
    proc.stdin.flush()
    time.sleep(0.5)
    [flow_under_read] = run_pairs([(tb.host("b1"), tb.host("b0"))], 4, OMIT, base_port=5331)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "error" not in json.loads(out.decode().splitlines()[-1]), out
    seen = (read_alone, read_under_flow, mbyte_s(flow_alone), mbyte_s(flow_under_read))
    assert read_alone >= 0.9 * 1e3 / disk.cpu_ns_per_byte, seen           # the CPU paces PIO alone
    # uncoupled, each would keep its rate within a few %; measured on the tc wire: 0.47 and 0.53
    # of it; on the medium engine (each packet also waits its per-packet latency at both ends, so
    # the flow leans on its window more than on the CPU): 0.24 and 0.76
    assert read_under_flow <= 0.75 * read_alone, seen                     # a busy CPU slows the disk
    assert mbyte_s(flow_under_read) <= 0.85 * mbyte_s(flow_alone), seen   # a busy disk slows the network


def test_contention_charges_the_metcalfe_boggs_cost(testbed):
    """The tc wire's average-cost model (the engine collides frame by frame: test_medium.py):
    8 backlogged senders on one 10 Mbit/s wire with small frames carry what the
    model leaves them: about 0.65 of the same wire without contention."""
    mss = 88                       # frames of 154 B: contention costs them a third of the wire
    pairs = [(f"b{2 * i:x}", f"b{2 * i + 1:x}") for i in range(8)]

    def total(contention: str):
        tb = testbed("single-net", nodes=16, rate_mbit=10, contention=contention, wire="tc")
        flows = run_pairs([(tb.host(a), tb.host(b)) for a, b in pairs], SECONDS, OMIT, mss=mss)
        record = tb.contention.record()["wires"]["w0"] if tb.contention else None
        return sum(f.goodput_mbit for f in flows), record

    off, _ = total("off")
    time.sleep(1)
    on, record = total("on")
    q = record["mean_backlogged"]
    assert q and 4 <= q <= 16, record
    expected = efficiency(q, 154 + 24)
    assert abs(on / off - expected) <= 0.08, (on, off, expected, record)
    assert on / off <= 0.85, (on, off, record)     # clearly less than a perfect arbiter
    # the 16-collision drops followed the backlog: installed, and counted
    assert record["max_drop_ppm"] >= 0.5 * drop_probability(q) * DRAWS, record
    assert isinstance(record["dropped_frames"], int), record


def test_a_frame_dropped_after_16_collisions_is_lost_on_the_wire(testbed):
    """The drop rule acts on frames crossing the wire: held at one frame in two (the
    controller stopped), a ping's request and reply each cross once, so about 3 in 4
    round trips are lost and the wire's counter holds the dropped frames. Gone with the run."""
    tb = testbed("single-net", nodes=4, rate_mbit=10, contention="on", wire="tc")
    ctl = tb.contention
    ctl._stop.set()
    ctl._thread.join()
    wire = ctl.states[0]
    ping = ["ping", "-i", "0.01", "-W", "1", "-q", tb.host("b1").address]
    tb.host("b0").run([*ping, "-c", "3"], check=False)        # neighbours known before any drop
    run(["nft", "-f", "-"], stdin=drop_ruleset(ctl.table, {wire.name: (wire.ports, DRAWS // 2)}))
    out = tb.host("b0").run([*ping, "-c", "200"], check=False)
    received = int(out.split(" received")[0].split(",")[-1])
    assert 25 <= received <= 80, out                     # 200 x 1/4: 50, sd 6
    dropped = parse_counters(run(["nft", "list", "counters", "table", "bridge", ctl.table]))[wire.name]
    assert 110 <= dropped <= 190, (dropped, out)         # 200 x 1/2 requests + 100 x 1/2 replies: 150, sd 9
    tb.__exit__(None, None, None)
    assert ctl.table not in run(["nft", "list", "tables", "bridge"], check=False)


def test_hardware_none_applies_nothing_new(testbed):
    """With --hardware none (the default) no node gets a CPU budget: earlier results are unchanged."""
    tb = testbed("bonded-dual-net", nodes=2, rate_mbit=10)
    applied = " ".join(" ".join(c["argv"]) for cmds in tb.log.as_record().values() for c in cmds)
    assert "cpu0" not in applied and "clsact" not in applied
    assert tb.environment()["hardware"] == "none" and tb.environment()["host_cost_impl"] is None


def test_a_bystander_on_a_hub_pays_nothing_for_a_pairs_frames(testbed):
    """A hub repeats every frame to every card; a third node's card drops the pair's frames in
    hardware, so its CPU budget passes none of them while the receiver's passes them all."""
    tb = testbed("single-net", nodes=3, rate_mbit=10, hardware="prototype-1995")
    before = {n: tb.host(n).cpu_counters() for n in ("b1", "b2")}
    [flow] = run_pairs([(tb.host("b0"), tb.host("b1"))], 3, 0)
    after = {n: tb.host(n).cpu_counters() for n in ("b1", "b2")}
    got = {n: after[n][1] - before[n][1] for n in after}      # packets through each budget
    assert flow.goodput_mbit > 1 and got["b1"] > 500, (flow, got)
    assert got["b2"] < 0.02 * got["b1"], got                  # ARP and the like, not the pair's frames
