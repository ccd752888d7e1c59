"""Command line of emulate.py: parse, validate, then dispatch.

Validation happens before the root check and before anything is created, so a
bad value always gets one line naming the fix and exit status 2.
"""
from __future__ import annotations

import argparse
import os
import sys

from topologies.presets import PRESETS, build_spec
from topologies.spec import SpecError

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input: printed as one line, exit 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not argparse's usage dump
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        sys.exit(EXIT_USAGE)


def rate_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--rate takes Mbit/s as a number in (0, 1000], got {text!r}")
    if not 0 < value <= 1000 or value != value:
        raise argparse.ArgumentTypeError(f"--rate must be in (0, 1000] Mbit/s, got {text}")
    return value


def int_arg(name: str, minimum: int):
    def parse(text: str) -> int:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"--{name} takes a whole number, got {text!r}")
        if value < minimum:
            raise argparse.ArgumentTypeError(f"--{name} must be >= {minimum}, got {value}")
        return value
    return parse


def topo_arg(text: str) -> str:
    if text not in PRESETS:
        raise argparse.ArgumentTypeError(
            f"unknown topology {text!r}; choose one of: {', '.join(PRESETS)} (emulate.py topo list)")
    return text


def _impairment_type(parse):
    def convert(text: str) -> float:
        try:
            return parse(text)
        except SpecError as e:
            raise argparse.ArgumentTypeError(str(e))
    return convert


def add_impairment_args(p: argparse.ArgumentParser) -> None:
    """netem options (stock kernels only; see topologies/impairments.py)."""
    from topologies.impairments import parse_loss_pct, parse_time_ms
    g = p.add_argument_group("impairments (need netem: stock kernels, lab VMs)")
    g.add_argument("--delay", type=_impairment_type(lambda t: parse_time_ms(t, "--delay")),
                   default=None, metavar="TIME", help="one-way delay per wire crossing, e.g. 5ms")
    g.add_argument("--jitter", type=_impairment_type(lambda t: parse_time_ms(t, "--jitter")),
                   default=None, metavar="TIME", help="delay variation (netem jitter), <= --delay")
    g.add_argument("--loss", type=_impairment_type(parse_loss_pct), default=None,
                   metavar="PCT", help="frame loss per wire crossing, e.g. 1%%")
    g.add_argument("--relay-delay", type=_impairment_type(lambda t: parse_time_ms(t, "--relay-delay")),
                   default=None, metavar="TIME",
                   help="routed-mesh: each relay holds every packet it forwards this long")


def impairment_opts(args) -> dict:
    return {k: getattr(args, k, None) for k in ("delay", "jitter", "loss", "relay_delay")}


def add_topology_args(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--topo", type=topo_arg, required=required, metavar="NAME",
                   help="topology preset (emulate.py topo list)")
    p.add_argument("--nodes", type=int_arg("nodes", 2), default=None,
                   help="number of nodes (default 16; a perfect square for meshes)")
    p.add_argument("--rate", type=rate_arg, default=None,
                   help="wire rate in Mbit/s, in (0, 1000] (default 10; 100 = Fast Ethernet)")
    p.add_argument("--channels", type=int_arg("channels", 1), default=None,
                   help="bonded-dual-net: wires per node, K >= 1 (default 2; 1 = single-net)")
    add_impairment_args(p)


def add_build_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--switch", choices=("auto", "ovs", "ovs-user", "lxbr"), default="auto",
                   help="switches joining wires: Open vSwitch (kernel datapath where the kernel has it), "
                        "OVS forced to its userspace datapath, or Linux bridge (default: OVS when it runs)")
    p.add_argument("--bonding", choices=("auto", "kernel", "nft"), default="auto",
                   help="channel bonding: kernel balance-rr driver or nftables fallback (default: kernel if present)")
    p.add_argument("-v", "--verbose", action="store_true", help="show Mininet's progress")


def make_parser() -> Parser:
    parser = Parser(prog="emulate.py", description=(
        "Beowulf Netlab: rebuild the 1996 Beowulf interconnect studies on real namespaces. "
        "With no command, runs the quick comparison of all topologies."))
    sub = parser.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")

    sub.add_parser("doctor", help="list kernel features, tools and the fallbacks they cause",
                   description="Probe this host and report what the testbed can use. "
                               "Exit 0 when it can run, 1 otherwise.")

    p = sub.add_parser("cli", help="open the Mininet CLI on a topology",
                       description="Build a topology and open the Mininet CLI on it. Node names in "
                                   "commands become addresses: 'b0 ping -c1 b1', 'b0 iperf3 -c b1'. "
                                   "Reads commands from standard input when it is not a terminal. "
                                   "Extra command: 'wires' shows each wire's traffic.")
    add_topology_args(p)
    add_build_args(p)

    p = sub.add_parser("topo", help="list topologies or show one's wiring",
                       description="'topo list' names the presets; 'topo show NAME' prints the wiring.")
    tsub = p.add_subparsers(dest="topo_command", parser_class=Parser, metavar="list|show")
    tsub.add_parser("list", help="list topology presets", description="List topology presets.")
    ps = tsub.add_parser("show", help="print a topology's wiring", description="Print which node sits "
                         "on which wire, with addresses (no root needed).")
    ps.add_argument("name", type=topo_arg, metavar="NAME")
    ps.add_argument("--nodes", type=int_arg("nodes", 2), default=None, help="number of nodes")
    ps.add_argument("--rate", type=rate_arg, default=None, help="wire rate in Mbit/s")
    ps.add_argument("--channels", type=int_arg("channels", 1), default=None, help="bonded-dual-net wires")
    ps.add_argument("--png", metavar="FILE", default=None, help="also draw the wiring to a PNG file")

    sub.add_parser("clean", help="remove what killed runs left behind",
                   description="Remove namespaces, links, IFBs, OVS bridges and processes left by runs "
                               "whose process is gone. Touches only objects named in a run manifest "
                               "or carrying a run prefix (bnl<id>).")
    from netlab.runner_cli import add_run_parser  # the experiment runner adds its own command
    add_run_parser(sub)
    return parser


def spec_from(args) -> object:
    opts = {"nodes": args.nodes, "rate": args.rate, "channels": args.channels,
            **impairment_opts(args)}
    try:
        return build_spec(args.topo if hasattr(args, "topo") and args.topo else args.name, **opts)
    except SpecError as e:
        raise UsageError(str(e))


def require_root(what: str) -> None:
    if os.geteuid() != 0:
        command = " ".join(["emulate.py", *what.split()])
        raise UsageError(f"{command} needs root to create namespaces and qdiscs: "
                         f"run it as 'sudo python3 {command}'")


def cmd_doctor(_args) -> int:
    require_root("doctor")
    from netlab.capabilities import doctor_lines, probe
    caps = probe()
    print("\n".join(doctor_lines(caps)))
    return 0 if not caps.missing_required() else 1


def cmd_topo(args) -> int:
    if args.topo_command == "list" or args.topo_command is None:
        for name, preset in PRESETS.items():
            print(f"{name:22s} {preset.summary}")
        return 0
    spec = spec_from(args)
    from topologies.render import wiring_text
    sys.stdout.write(wiring_text(spec))
    if args.png:
        from topologies.render import wiring_png
        wiring_png(spec, args.png)
        print(f"wrote {args.png}")
    return 0


def cmd_cli(args) -> int:
    spec = spec_from(args)
    require_root("cli")
    from mininet.log import lg

    from netlab.cli import NetlabCLI
    from netlab.network import BuildOptions, Testbed
    for handler in lg.handlers:  # node output is the CLI's product: stdout, in order
        handler.setStream(sys.stdout)
    with Testbed(spec, BuildOptions(switch=args.switch, bonding=args.bonding,
                                    verbose=args.verbose)) as tb:
        env = tb.environment()
        print(f"*** {spec.topology}: {len(spec.nodes)} nodes, {len(spec.wires)} wire(s) at "
              f"{spec.params['rate_mbit']:g} Mbit/s; bonding: {env['bonding_impl'] or '-'}; "
              f"switches: {env['switch_impl'] or '-'}; built in {env['build_s']:.1f} s")
        print("*** try: b0 ping -c1 b1 | b1 iperf3 -s -D | b0 iperf3 -c b1 -t 5 | wires | exit")
        NetlabCLI(tb.net, testbed=tb)
    return 0


def cmd_clean(_args) -> int:
    require_root("clean")
    from netlab.manifest import clean
    report = clean()
    for line in report:
        print(line)
    print("clean: nothing left to remove" if not report else f"clean: {len(report)} item(s) handled")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    handlers = {"doctor": cmd_doctor, "topo": cmd_topo, "cli": cmd_cli, "clean": cmd_clean}
    try:
        if args.command is None:
            from netlab.runner_cli import cmd_default
            return cmd_default(args)
        if args.command in ("run", "plot", "experiment", "merge"):
            from netlab import runner_cli
            return {"run": runner_cli.cmd_run, "plot": runner_cli.cmd_plot, "merge": runner_cli.cmd_merge,
                    "experiment": runner_cli.cmd_experiment}[args.command](args)
        return handlers[args.command](args)
    except UsageError as e:
        sys.stderr.write(f"emulate.py: error: {e}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("emulate.py: interrupted; the network was taken down\n")
        return 130
    except Exception as e:  # noqa: BLE001 -- a user sees one line, not a traceback
        from netlab.impls import BuildError
        if isinstance(e, BuildError):
            sys.stderr.write(f"emulate.py: error: {e}\n")
            return EXIT_USAGE
        from netlab.disks import DiskError
        from workloads.filecopy import CopyCorrupted, CopyFailed
        if isinstance(e, (CopyCorrupted, CopyFailed, DiskError)):
            sys.stderr.write(f"emulate.py: run FAILED: {e}\n")
            return 1
        raise
