"""Build a NetworkSpec into a running Mininet network, and always take it down.

`Testbed` is a context manager: it claims a run id and manifest before creating
anything, turns SIGTERM/SIGHUP into a normal exit so the teardown runs, and on
exit stops Mininet and then releases the manifest (which also kills anything a
user left running inside the hosts, e.g. `b1 iperf3 -s -D`). Every process
the run starts carries its label in the environment (NETLAB_RUN=bnl<id>), so
leak checks and `clean` can tell the run's processes from anyone else's.
"""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from mininet.link import Link
from mininet.log import setLogLevel
from mininet.net import Mininet

from beowulf_netlab.core.command import CommandLog
from beowulf_netlab.core.errors import RuntimeFailure
from beowulf_netlab.core.signals import TerminateAsExit
from beowulf_netlab.netlab.capabilities import Capabilities, congestion_control_cmds, probe, tcp_allowed_now
from beowulf_netlab.netlab.contention import ContentionControl
from beowulf_netlab.netlab.impls import BuildError, BuildOptions, check_buildable
from beowulf_netlab.netlab.manifest import LABEL_ENV, STATE_DIR, Manifest, claim, live_namespaces, release
from beowulf_netlab.netlab.medium import Medium, engine_config
from beowulf_netlab.netlab.node import BeowulfHost
from beowulf_netlab.netlab.topo import SpecTopo, wire_node
from beowulf_netlab.netlab.wire import JoinOVS, SharedWire
from beowulf_netlab.topologies.hardware import hardware_of
from beowulf_netlab.topologies.impairments import needs_netem
from beowulf_netlab.topologies.spec import NetworkSpec

__all__ = ["BuildError", "BuildOptions", "Testbed", "check_buildable"]


def close_shells(net: Mininet) -> None:
    """Kill every node's shell and close Mininet's ends of it, instead of Mininet's stop().

    stop() deletes each veth with its own request, and the kernel waits for the
    network to quiesce once per request, several ms each (most of a teardown). A
    namespace whose last process is gone takes its devices with it in one batch, and
    release() deletes the run's root-namespace devices in one request (its device
    group) and whatever else the manifest names."""
    for node in net.hosts + net.switches:
        shell = getattr(node, "shell", None)
        if shell is not None and shell.poll() is None:
            try:
                os.killpg(shell.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for node in net.hosts + net.switches:
        try:
            node.cleanup()   # closes the pty and reaps the shell
        except OSError:
            pass


def capture_line(wire: str, c: dict) -> str:
    """What became of a wire's capture (netlab.medium: Medium.captured), in one line."""
    if c.get("error"):
        return f"capture of {wire}: not written: {c['error']}"
    left = f"; {c['skipped']} more past its limit counted, not written" if c.get("skipped") else ""
    return f"capture of {wire}: {c.get('out')} ({c.get('frames', 0)} frames{left})"


def network_name(spec: NetworkSpec) -> str:
    """What `inspect` calls the network: topology@rate, its nodes, its machine."""
    name = f"{spec.topology}@{spec.params['rate_mbit']:g} ({len(spec.nodes)} nodes"
    name += f", {spec.machine.hardware}" if spec.machine.hardware != "none" else ""
    return name + (f", D={spec.machine.time_scale:g})" if spec.machine.time_scale != 1 else ")")


class Testbed:
    def __init__(self, spec: NetworkSpec, opts: BuildOptions | None = None,
                 caps: Capabilities | None = None):
        self.spec = spec
        self.opts = opts or BuildOptions()
        self.caps = caps or probe()
        self.impls = check_buildable(spec, self.caps, self.opts)
        self.captures = self._capture_paths()   # wire -> the pcapng file its frames go to
        self.net: Mininet | None = None
        self.manifest: Manifest | None = None
        self.build_s = 0.0
        self.log = CommandLog()
        self._signals = TerminateAsExit()
        self._old_label: str | None = None
        self.contention: ContentionControl | None = None
        self.medium: Medium | None = None  # the frame-timed medium engine, when impls['wire'] is 'engine'
        self.medium_final: dict | None = None   # its last counters, once it has stopped
        self.engine_ports: list[tuple[str, str, str | None]] = []   # (interface, wire, node or None)
        self.host_path: dict | None = None   # this host's own path taken off the engine's delays (run.hostpath)
        self.tcp: dict | None = None      # the nodes' TCP as read back from their namespaces
        self._on_teardown: list = []

    # -- lifecycle --
    def __enter__(self) -> "Testbed":
        self._signals.install()
        try:
            self._build()
        except BaseException:
            self._teardown()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._teardown()

    def _build(self) -> None:
        setLogLevel("info" if self.opts.verbose else "output")
        t0 = time.monotonic()
        self.manifest = claim()
        self.manifest.topology = network_name(self.spec)
        self._old_label = os.environ.get(LABEL_ENV)
        os.environ[LABEL_ENV] = self.manifest.prefix  # inherited by every shell and agent
        self._allow_tcp()
        topo = SpecTopo(self.spec, prefix=self.manifest.prefix, bonding_impl=self.impls["bonding"],
                        switch_impl=self.impls["switch"] or "lxbr", log=self.log,
                        cpu_netem=self.impls["host_cost"] == "ifb-htb+netem-latency",
                        engine=self.impls["wire"] == "engine")
        self.net = Mininet(topo=topo, host=BeowulfHost, switch=SharedWire, link=Link,
                           controller=None, build=False, autoSetMacs=False, waitConnected=False)
        self.manifest.ovs_bridges = [n for n in topo.switches() if topo.nodeInfo(n).get("cls") is JoinOVS]
        self.manifest.save()
        try:
            self.net.build()
        finally:  # record shells even if configuration failed half-way
            self.manifest.record_nodes(self.net.hosts + self.net.switches)
        self.net.start()
        if self.impls["wire"] == "engine":
            self._start_medium()
        self.tcp = self._check_tcp()
        contended = {w.name: self.wire(w.name) for w in self.spec.wires if w.contention}
        if contended and self.medium is None:   # the engine collides frame by frame itself
            self.contention = ContentionControl(contended, self.manifest.prefix).start()
        self.build_s = time.monotonic() - t0

    def _start_medium(self) -> None:
        """One engine carries every wire of the network (netlab.medium); the wires read their
        counters from it."""
        ports = []
        for w in self.spec.wires:
            wire = self.wire(w.name)
            wire.spec_name = w.name
            ports += [(intf, w.name, node) for intf, node in wire.engine_ports()]
        self.engine_ports = ports
        self.medium = Medium(engine_config(self.spec, ports), STATE_DIR, self.manifest.prefix,
                             captures=self.captures, capture_limit=self.opts.capture_limit).start()
        for w in self.spec.wires:
            self.wire(w.name).medium = self.medium

    def _capture_paths(self) -> dict[str, Path]:
        """Where each captured wire's pcapng goes (BuildOptions.capture, capture_out); BuildError
        before anything is built when the engine does not carry the network or a wire is not
        one of its own. A stem's files never replace an earlier network's of the same sweep."""
        wires = list(self.opts.capture)
        if not wires:
            return {}
        if self.impls["wire"] != "engine":
            raise BuildError("a capture is the medium engine's (each frame at its wire time): this network's "
                             f"wires are {self.impls['wire']} (give --wire engine; the engine carries up to "
                             "100 Mbit/s at time scale 1 without --delay or --loss)")
        names = [w.name for w in self.spec.wires]
        unknown = [w for w in wires if w not in names]
        if unknown:
            raise BuildError(f"no wire {', '.join(unknown)} in {self.spec.topology} (its wires: {', '.join(names)})")
        out = self.opts.capture_out or "capture"
        if out.endswith(".pcapng") and len(wires) == 1:
            return {wires[0]: Path(out)}
        stem = out[:-len(".pcapng")] if out.endswith(".pcapng") else out
        tag = f"{self.spec.topology}-{self.spec.params['rate_mbit']:g}mbit-{len(self.spec.nodes)}n"
        paths = {}
        for w in wires:
            p, i = Path(f"{stem}-{tag}-{w}.pcapng"), 2
            while p.exists():
                p, i = Path(f"{stem}-{tag}-{w}-{i}.pcapng"), i + 1
            paths[w] = p
        return paths

    def retime_medium(self, less_ns: int) -> None:
        """Restart the engine with each node's per-packet delay less less_ns (this host's own
        path per pass, measured by run.hostpath); the wires keep reading the same Medium."""
        if self.medium is None:
            raise RuntimeFailure("no medium engine carries this network's wires")
        self.medium.restart(engine_config(self.spec, self.engine_ports, less_ns=less_ns))

    def _allow_tcp(self) -> None:
        """Let the namespaces choose the profile's congestion control (recorded under 'host')."""
        self.caps.tcp_allowed = tcp_allowed_now() or self.caps.tcp_allowed
        for cc in {n.tcp.congestion_control for n in self.spec.nodes if n.tcp is not None}:
            cmds = congestion_control_cmds(self.caps, cc)
            if any(c[0] == "sysctl" for c in cmds):   # release() puts the host's list back
                self.manifest.remember_sysctl("net.ipv4.tcp_allowed_congestion_control",
                                              " ".join(self.caps.tcp_allowed))
            for cmd in cmds:
                self.log.run("host", cmd, check=cmd[0] != "modprobe")
                self.caps.tcp_allowed = [*self.caps.tcp_allowed, cc]

    def _check_tcp(self) -> dict | None:
        """Every node's TCP read back from its namespace; a node that runs another TCP than its
        profile says stops the run (a result must never be measured on an unrecorded TCP)."""
        wanted = next((n.tcp for n in self.spec.nodes if n.tcp is not None), None)
        if wanted is None:
            return None
        for node in self.spec.nodes:
            host = self.host(node.name)
            have = host.tcp_readback()
            want = {**node.tcp.record(), "rto_min_ms": round(host.rto_min_applied())}
            if have != want:
                diff = ", ".join(f"{k} {have.get(k)} (wanted {v})" for k, v in want.items()
                                 if have.get(k) != v)
                raise RuntimeFailure(f"{node.name} runs another TCP than its hardware profile sets: "
                                     f"{diff}; see 'emulate.py doctor' (node TCP)")
        return have

    def on_teardown(self, fn) -> None:
        """Call fn first when the network goes down (a workload's services: file-system
        daemons unmount before their namespaces die). The manifest's release still
        removes whatever fn misses."""
        self._on_teardown.append(fn)

    def _teardown(self) -> None:
        for fn in reversed(self._on_teardown):
            try:
                fn()
            except Exception:  # release() below removes what a failed stop left
                pass
        self._on_teardown = []
        if self.contention is not None:
            self.contention.stop()
        if self.medium is not None:
            self.medium_final = self.medium.stop()
            for wire, c in self.medium.captured.items():
                sys.stderr.write(capture_line(wire, c) + "\n")
        # the namespaces are the run's while their shells pin them: read before the shells close
        inodes = live_namespaces(self.manifest) if self.manifest is not None else set()
        try:
            if self.net is not None:
                net, self.net = self.net, None
                close_shells(net)
        finally:
            if self.manifest is not None:
                release(self.manifest, inodes)
                self.manifest = None
                if self._old_label is None:
                    os.environ.pop(LABEL_ENV, None)
                else:
                    os.environ[LABEL_ENV] = self._old_label
            self._signals.restore()

    # -- access --
    def host(self, name: str) -> BeowulfHost:
        return self.net[name]

    def wire(self, logical: str) -> SharedWire:
        return self.net[wire_node(self.manifest.prefix, logical)]

    def environment(self) -> dict:
        """What ran, for the results record: implementations, and the exact
        argv applied to every wire and node (with exit status). Its keys are declared in
        netlab.record (a test holds them), and the results schema is made from those."""
        hardware = hardware_of(self.spec)
        cost_impl = self.impls.get("host_cost")
        return {"bonding_impl": self.impls["bonding"], "switch_impl": self.impls["switch"],
                "hardware": hardware, "host_cost_impl": cost_impl,
                # a lone packet after idle time delayed by the per-packet cost: netem or the engine
                "latency_modelled": None if cost_impl is None else cost_impl in ("ifb-htb+netem-latency",
                                                                                 "ifb-htb+engine-latency"),
                "wire_impl": self.impls["wire"],
                "medium": None if self.medium is None else self.medium.record(),
                "host_path": self.host_path,
                "hardware_profile": self.spec.machine.profile.record() if self.spec.machine.profile else None,
                "collisions_modelled": self.contention is not None
                or (self.medium is not None and any(w.contention and not w.full_duplex for w in self.spec.wires)),
                "tx_gap_us": self.spec.machine.tx_gap_us,
                # --queue-packets: every card's and CPU budget's queue (the profile record shows its own)
                "queue_packets": self.spec.machine.queue_packets,
                "collision_controller": self.contention.record() if self.contention else None,
                "build_s": round(self.build_s, 3),
                "tcp": self.tcp, "tcp_host_default": self.caps.tcp_host_default,
                "netem": "kernel sch_netem" if needs_netem(self.spec)
                or cost_impl == "ifb-htb+netem-latency" else None,
                "require_kernel": self.opts.require_kernel,
                "applied_commands": self.log.as_record(),
                "capabilities": self.caps.as_record()}
