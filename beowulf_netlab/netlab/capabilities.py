"""What this host's kernel and tools can do, probed for real at start.

Each probe runs in a throwaway network namespace (`unshare --net`), so it
leaves nothing behind. The result decides which implementation runs (kernel
bonding or the nftables round-robin fallback, OVS kernel or userspace datapath
or Linux bridge) and is recorded with every result.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import asdict, dataclass, field

from beowulf_netlab.core.command import execute
from beowulf_netlab.netlab.disk import throttle_impl
from beowulf_netlab.netlab.medium import engine_available, engine_hint

# name -> (shell probe run inside a fresh netns, what its absence costs)
KERNEL_PROBES: dict[str, tuple[str, str]] = {
    "netns": ("true", "nothing can run: network namespaces are required"),
    "veth": ("ip link add pa type veth peer name pb", "nothing can run: veth pairs are required"),
    "bridge": ("ip link add pbr type bridge", "nothing can run: wires are Linux bridges"),
    "htb": ("ip link add pd type veth peer name pe && tc qdisc add dev pd root handle 1: htb",
            "nothing can run: wires are rate-limited with HTB"),
    "ifb": ("ip link add pifb type ifb", "nothing can run: shared wires need an IFB device"),
    "ingress_u32_mirred": (
        "ip link add pd type veth peer name pe && ip link add pifb type ifb && "
        "tc qdisc add dev pd handle ffff: ingress && "
        "tc filter add dev pd parent ffff: protocol all u32 match u32 0 0 "
        "action mirred egress redirect dev pifb",
        "nothing can run: shared wires redirect ingress traffic to one IFB"),
    "clsact_mirred": (
        "ip link add pd type veth peer name pe && ip link add pifb type ifb && "
        "tc qdisc add dev pd clsact && "
        "tc filter add dev pd egress protocol all u32 match u32 0 0 action mirred egress redirect dev pifb",
        "no hardware profiles: a node's CPU budget redirects both directions to one IFB (--hardware none only)"),
    "matchall": ("ip link add pd type veth peer name pe && tc qdisc add dev pd handle ffff: ingress && "
                 "tc filter add dev pd parent ffff: matchall action drop",
                 "none: a u32 match-all filter is used instead"),
    "netem": ("ip link add pd type veth peer name pe && tc qdisc add dev pd root netem delay 1ms",
              "wires cannot add delay, jitter or loss (--delay/--jitter/--loss need netem)"),
    "bonding": ("ip link add pbond type bond mode balance-rr",
                "channel bonding uses the nftables per-packet round-robin fallback"),
    "nft_numgen": ("nft add table ip p && nft add chain ip p o '{ type route hook output priority mangle; }' && "
                   "nft add rule ip p o meta mark set numgen inc mod 2 offset 1",
                   "no bonding fallback: bonded topologies need the kernel bonding driver"),
    "policy_routing": ("ip rule add fwmark 1 table 101", "no bonding fallback"),
}

# Modules a stock kernel autoloads only with the right options (bonding would
# otherwise create a stray bond0 in the host namespace).
MODPROBE = {"bonding": ["bonding", "max_bonds=0"], "netem": ["sch_netem"]}

TOOLS = {
    "ip": "iproute2", "tc": "iproute2", "ethtool": "ethtool", "nft": "nftables",
    "iperf3": "iperf3", "mnexec": "mininet", "ovs-vsctl": "openvswitch-switch",
    "traceroute": "traceroute", "unshare": "util-linux", "nsenter": "util-linux",
    "losetup": "util-linux", "mkfs.ext4": "e2fsprogs",
}
PY_MODULES = {"mininet": "python3-mininet (apt: mininet)", "matplotlib": "python3-matplotlib"}
REQUIRED_KERNEL = ("netns", "veth", "bridge", "htb", "ifb", "ingress_u32_mirred")
REQUIRED_TOOLS = ("ip", "tc", "ethtool", "mnexec", "unshare")


@dataclass
class Capabilities:
    kernel: dict[str, bool] = field(default_factory=dict)
    tools: dict[str, str | None] = field(default_factory=dict)
    python: dict[str, bool] = field(default_factory=dict)
    ovs_daemon: bool = False
    ovs_kernel_datapath: bool = False
    kernel_release: str = ""
    disk_throttle: str | None = None   # filecopy disks: cgroup1-blkio-throttle | cgroup2-io.max
    tcp_host_default: str | None = None          # the host's own congestion control (never used)
    tcp_available: list[str] = field(default_factory=list)   # congestion controls this kernel has
    tcp_allowed: list[str] = field(default_factory=list)     # those a namespace may choose
    medium_engine: bool = False        # engine/ is built (netlab.medium): frame-timed wires

    @property
    def bonding_impl(self) -> str | None:
        if self.kernel.get("bonding"):
            return "kernel-balance-rr"
        if self.kernel.get("nft_numgen") and self.kernel.get("policy_routing") and self.tools.get("nft"):
            return "nft-numgen-rr"
        return None

    @property
    def switch_impl(self) -> str:
        """The default switch: OVS with its kernel datapath, else a Linux bridge.
        OVS's userspace datapath forwards on one thread; on a 2-core host one
        100 Mbit/s bonded-switched-mesh flow kept it 94 % busy at 162 Mbit/s where
        a Linux bridge carried 180, so it runs only when forced (--switch ovs-user)."""
        if self.ovs_daemon and self.ovs_kernel_datapath:
            return "ovs-kernel"
        return "lxbr"

    def missing_required(self) -> list[str]:
        out = [f"kernel: {k}" for k in REQUIRED_KERNEL if not self.kernel.get(k)]
        out += [f"tool: {t} (apt: {TOOLS[t]})" for t in REQUIRED_TOOLS if not self.tools.get(t)]
        if not self.python.get("mininet"):
            out.append(f"python: mininet ({PY_MODULES['mininet']})")
        return out

    def as_record(self) -> dict:
        rec = asdict(self)
        rec["bonding_impl"] = self.bonding_impl
        rec["switch_impl"] = self.switch_impl
        return rec


def _modprobe(name: str) -> None:
    if name in MODPROBE and shutil.which("modprobe"):
        mod = MODPROBE[name][0]
        if not os.path.exists(f"/sys/module/{mod}"):
            execute(["modprobe", "-q", *MODPROBE[name]], timeout=20)


def probe_kernel(names=None) -> dict[str, bool]:
    """Try each feature in a fresh netns; True only when the kernel accepted it."""
    results = {}
    for name in names or KERNEL_PROBES:
        script = KERNEL_PROBES[name][0]
        _modprobe(name)
        results[name] = execute(["unshare", "--net", "sh", "-c", script], timeout=20)[0] == 0
    return results


def probe_ovs() -> tuple[bool, bool]:
    """(ovsdb/ovs-vswitchd answer, kernel datapath usable)."""
    if not shutil.which("ovs-vsctl"):
        return False, False
    daemon = execute(["ovs-vsctl", "--timeout=3", "show"], timeout=10)[0] == 0
    if not os.path.exists("/sys/module/openvswitch") and shutil.which("modprobe"):
        execute(["modprobe", "-q", "openvswitch"], timeout=20)
    return daemon, os.path.exists("/sys/module/openvswitch")


def probe() -> Capabilities:
    caps = Capabilities()
    caps.tools = {t: shutil.which(t) for t in TOOLS}
    caps.python = {m: importlib.util.find_spec(m) is not None for m in PY_MODULES}
    caps.kernel = probe_kernel() if caps.tools.get("unshare") else {}
    caps.ovs_daemon, caps.ovs_kernel_datapath = probe_ovs()
    caps.kernel_release = os.uname().release
    caps.disk_throttle = throttle_impl()
    caps.tcp_host_default = _read_sysctl("tcp_congestion_control")
    caps.tcp_available = (_read_sysctl("tcp_available_congestion_control") or "").split()
    caps.tcp_allowed = (_read_sysctl("tcp_allowed_congestion_control") or "").split()
    caps.medium_engine = engine_available()
    return caps


def _read_sysctl(name: str) -> str | None:
    try:
        with open(f"/proc/sys/net/ipv4/{name}") as f:
            return f.read().strip()
    except OSError:
        return None


ALLOWED_CC = "/proc/sys/net/ipv4/tcp_allowed_congestion_control"


def mem_available_bytes() -> int | None:
    """The kernel's estimate of memory available without swapping (MemAvailable), or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def tcp_allowed_now() -> list[str]:
    """The host's allowed congestion controls as they are now (a run puts its change back at
    teardown, so a probe from an earlier network of the same process may be stale)."""
    return (_read_sysctl("tcp_allowed_congestion_control") or "").split()


def congestion_control_cmds(caps: Capabilities, wanted: str) -> list[list[str]]:
    """What the host must run so a namespace may choose `wanted` (a new namespace may only
    pick an 'allowed' algorithm; the list is one for the whole host): loading its module
    where it is not built in, and adding it to the allowed list (which only widens what
    namespaces may choose; the host's own default is untouched). [] when nothing is needed."""
    cmds = []
    if wanted not in caps.tcp_available:
        cmds.append(["modprobe", "-q", f"tcp_{wanted}"])
    if wanted not in caps.tcp_allowed:
        cmds.append(["sysctl", "-qw", "net.ipv4.tcp_allowed_congestion_control="
                     + " ".join([*caps.tcp_allowed, wanted])])
    return cmds


def pfs_status() -> str:
    """What the pfs workload (MACHE01) would use here, or what it lacks."""
    from beowulf_netlab.netlab.pfs import missing_tools
    missing = missing_tools()
    if importlib.util.find_spec("mpi4py") is None:
        missing.append("mpi4py (apt: python3-mpi4py)")
    if missing:
        return "NOT AVAILABLE (the pfs workload needs " + ", ".join(missing) + ": ./setup.sh)"
    return "GlusterFS bricks + FUSE clients per node, Open MPI over TCP (mpi4py)"


def doctor_lines(caps: Capabilities) -> list[str]:
    """A human report: every piece, present or not, and what its absence costs."""
    def row(ok: bool, name: str, present: str, absent: str) -> str:
        return f"  {'ok     ' if ok else 'MISSING'} {name:20s}{present if ok else '-> ' + absent}"

    lines = [f"kernel {caps.kernel_release}", "", "kernel features:"]
    lines += [row(caps.kernel.get(name, False), name, "", cost)
              for name, (_, cost) in KERNEL_PROBES.items()]
    lines.append(row(caps.ovs_kernel_datapath, "ovs_kernel_datapath", "",
                     "switches are Linux bridges (OVS's userspace datapath only with --switch ovs-user)"))
    lines += ["", "tools:"]
    lines += [row(bool(caps.tools.get(tool)), tool, caps.tools.get(tool) or "", f"apt install {pkg}")
              for tool, pkg in TOOLS.items()]
    lines.append(row(caps.ovs_daemon, "ovs-vswitchd", "running",
                     "not answering; switches are Linux bridges (start it: ./setup.sh)"))
    lines += ["", "python modules:"]
    lines += [row(bool(caps.python.get(mod)), mod, "", f"install {pkg}") for mod, pkg in PY_MODULES.items()]
    lines += ["", "implementations this host will use:",
              "  shared wire : " + ("medium engine (frame-timed: each frame takes its wire time, CSMA/CD per "
                                    "frame; up to 100 Mbit/s at time scale 1), else "
                                    if caps.medium_engine else
                                    f"NO medium engine, so the tc wire runs instead ({engine_hint()}): ")
              + "bridge + ingress u32/mirred -> IFB -> HTB with Ethernet size table (--wire tc)",
              f"  bonding     : {caps.bonding_impl or 'NONE (bonded topologies cannot run)'}",
              f"  switches    : {caps.switch_impl}",
              f"  netem       : {'available' if caps.kernel.get('netem') else 'absent (no delay/jitter/loss)'}",
              f"  node disks  : loop device + ext4, throttled by "
              f"{caps.disk_throttle or 'NOTHING (filecopy needs --disk none)'}",
              f"  parallel fs : {pfs_status()}",
              f"  node TCP    : set per hardware profile in every node's namespace (none: cubic, "
              f"SACK, timestamps, window scaling; 1996 profiles: reno without them); this host's "
              f"default ({caps.tcp_host_default or 'unknown'}) is overridden, never inherited; "
              f"available here: {' '.join(caps.tcp_available) or '?'}, namespaces may choose: "
              f"{' '.join(caps.tcp_allowed) or '?'} (a run adds what it needs)"]
    missing = caps.missing_required()
    lines.append("")
    if missing:
        lines.append("testbed CANNOT run; missing: " + "; ".join(missing) + ". Run ./setup.sh as root.")
    else:
        lines.append("testbed can run.")
    return lines
