"""Which implementation of each piece runs on this host, or why none can.

Pure (no Mininet, no root): decided from probed Capabilities and the user's
options, so the refusals are unit-tested anywhere. NETLAB_REQUIRE_KERNEL=1 (the
lab-VM test mode) turns every fallback into an error.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.netlab.capabilities import Capabilities
from beowulf_netlab.netlab.medium import ENGINE_MAX_RATE_MBIT, engine_hint
from beowulf_netlab.topologies.impairments import needs_netem
from beowulf_netlab.topologies.spec import NetworkSpec


class BuildError(BadInput):
    """The host cannot build what was asked (exit 2, before anything is made);
    the message says what to do."""


REQUIRE_ENV = "NETLAB_REQUIRE_KERNEL"


def require_kernel_default() -> bool:
    """NETLAB_REQUIRE_KERNEL=1: refuse every fallback (the lab-VM test mode)."""
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


@dataclass
class BuildOptions:
    switch: str = "auto"    # auto | ovs | ovs-user | lxbr
    bonding: str = "auto"   # auto | kernel | nft
    wire: str = "auto"      # auto | engine | tc (netlab.medium, netlab.shaping)
    host_path: str = "subtract"   # subtract | keep: this host's own round-trip path off the engine's delays (run.hostpath)
    verbose: bool = False
    require_kernel: bool = field(default_factory=require_kernel_default)
    # wires whose frames the engine writes as pcapng (netlab.medium), and where: a .pcapng path
    # for one wire, else a stem (<stem>-<topology>-<rate>mbit-<nodes>n-<wire>.pcapng per network built)
    capture: tuple[str, ...] = ()
    capture_out: str | None = None
    capture_limit: int = 64 << 20   # bytes of frames a capture holds at most (netlab.medium)


def choose_impls(spec: NetworkSpec, caps: Capabilities, opts: BuildOptions) -> dict[str, str | None]:
    """Pick the bonding and switch implementations, or say why we cannot."""
    impls = _choose(spec, caps, opts)
    if opts.require_kernel:
        wrong = []
        if impls["bonding"] not in (None, "kernel-balance-rr"):
            wrong.append(f"bonding {impls['bonding']}")
        if impls["switch"] not in (None, "ovs-kernel"):
            wrong.append(f"switches {impls['switch']}")
        if impls["host_cost"] not in (None, "ifb-htb+netem-latency", "ifb-htb+engine-latency"):
            wrong.append(f"host cost {impls['host_cost']} (no netem latency)")
        if wrong:
            raise BuildError(f"{REQUIRE_ENV}=1 refuses fallbacks, but this build would use "
                             + " and ".join(wrong) + " (kernel bonding driver and OVS kernel "
                             "datapath required; see 'emulate.py doctor')")
    return impls


def check_netem(spec: NetworkSpec, have_netem: bool) -> None:
    if needs_netem(spec) and not have_netem:
        raise BuildError(f"--delay/--jitter/--loss/--relay-delay need netem (the kernel's sch_netem "
                         f"qdisc), which this kernel ({os.uname().release}) lacks; run them on a stock "
                         "Debian/Ubuntu kernel, e.g. a lab VM (README: Lab VMs)")


def host_cost_impl(spec: NetworkSpec, caps: Capabilities) -> str | None:
    """How the nodes' CPU budgets are enforced here (netlab.hostcost), or None without a profile."""
    if not any(n.host_cost for n in spec.nodes):
        return None
    if not caps.kernel.get("clsact_mirred"):
        raise BuildError(f"--hardware {spec.machine.hardware}: this kernel cannot redirect a NIC's "
                         "egress to an IFB (clsact + mirred), so the nodes' CPU budgets cannot be "
                         "enforced; use --hardware none or a stock kernel")
    return "ifb-htb+netem-latency" if caps.kernel.get("netem") else "ifb-htb"


def _choose(spec: NetworkSpec, caps: Capabilities, opts: BuildOptions) -> dict[str, str | None]:
    check_netem(spec, bool(caps.kernel.get("netem")))
    host_cost = host_cost_impl(spec, caps)
    bonding = None
    if any(n.bonded for n in spec.nodes):
        if opts.bonding == "kernel":
            if not caps.kernel.get("bonding"):
                raise BuildError("--bonding kernel: this kernel has no bonding driver; use --bonding auto")
            bonding = "kernel-balance-rr"
        elif opts.bonding == "nft":
            if not (caps.kernel.get("nft_numgen") and caps.kernel.get("policy_routing") and caps.tools.get("nft")):
                raise BuildError("--bonding nft: needs nftables numgen and policy routing")
            bonding = "nft-numgen-rr"
        else:
            bonding = caps.bonding_impl
            if bonding is None:
                raise BuildError("bonded topologies need the bonding driver or nftables; "
                                 "see 'emulate.py doctor'")
    switch = None
    if spec.switches:
        if opts.switch == "lxbr":
            switch = "lxbr"
        elif opts.switch in ("ovs", "ovs-user"):
            if not caps.ovs_daemon:
                raise BuildError(f"--switch {opts.switch}: ovs-vswitchd is not answering; start it "
                                 "with ./setup.sh or use --switch lxbr")
            switch = "ovs-kernel" if caps.ovs_kernel_datapath and opts.switch == "ovs" else "ovs-user"
        else:
            switch = caps.switch_impl
    wire = wire_impl(spec, caps, opts)
    if wire == "engine" and host_cost is not None:
        host_cost = "ifb-htb+engine-latency"   # the engine delays a lone packet, on every kernel
    return {"bonding": bonding, "switch": switch, "host_cost": host_cost, "wire": wire}


def wire_impl(spec: NetworkSpec, caps: Capabilities, opts: BuildOptions) -> str:
    """Which shared wire runs: the medium engine (frame-timed) where it is built and the network
    fits it (rates up to ENGINE_MAX_RATE_MBIT, time scale 1, no netem impairments on wires),
    else the tc wire; --wire engine refuses to fall back."""
    if opts.wire == "tc":
        return "tc"
    scale = spec.machine.time_scale
    fast = [w.rate_mbit for w in spec.wires if w.rate_mbit > ENGINE_MAX_RATE_MBIT]   # real rates
    impaired = any(w.impairment.active for w in spec.wires)
    why = (f"it is absent ({engine_hint()})" if not caps.medium_engine
           else f"this network is time-scaled (D = {scale:g})" if scale != 1
           else f"a wire runs at {max(fast):g} Mbit/s, above {ENGINE_MAX_RATE_MBIT:g}" if fast
           else "a wire has --delay/--jitter/--loss, which only the tc wire applies" if impaired
           else None)
    if why is None:
        return "engine"
    if opts.wire == "engine":
        raise BuildError(f"--wire engine: the medium engine cannot carry this network: {why}; "
                         "use --wire tc")
    return "tc"


def check_buildable(spec: NetworkSpec, caps: Capabilities, opts: BuildOptions) -> dict[str, str | None]:
    """The implementations that will build spec here, or BuildError before anything exists
    (no Mininet needed: a python3 without it gets the 'missing' line, not a traceback)."""
    missing = caps.missing_required()
    if missing:
        raise BuildError("this host cannot run the testbed (missing: " + "; ".join(missing)
                         + "); run ./setup.sh as root, then 'emulate.py doctor'")
    for cc in sorted({n.tcp.congestion_control for n in spec.nodes if n.tcp is not None}):
        if caps.tcp_available and cc not in caps.tcp_available and not shutil.which("modprobe"):
            raise BuildError(f"the hardware profile's TCP needs congestion control {cc}, which this "
                             f"kernel lacks (it has {' '.join(caps.tcp_available)}) and cannot load")
    return choose_impls(spec, caps, opts)
