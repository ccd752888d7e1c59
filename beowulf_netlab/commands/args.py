"""Argument types and flags shared by the verbs; every value check is core.values'.

Flags are made from the axes (run.sweep, workloads), so a flag, its
experiment-file key and its results key share one name, one default and one
bound, and `--help` states both.
"""
from __future__ import annotations

import argparse
import dataclasses

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.values import Axis
from beowulf_netlab.netlab.impls import BuildOptions
from beowulf_netlab.run.session import require_root  # noqa: F401 -- for the verbs; it lives with the session
from beowulf_netlab.run.sweep import NETWORK, network_defaults
from beowulf_netlab.topologies.settings import IMPAIRMENTS, MACHINE_SETTINGS, SIZES, SPEC_SETTINGS
from beowulf_netlab.topologies.presets import build_spec


def axis_type(axis: Axis, single: bool = False):
    """An argparse type for an axis: its command-line form, or one value."""
    def parse(text: str):
        try:
            if single and axis.many:
                if "," in text:
                    raise BadInput(f"{axis.flag} takes one value here, got {text!r}")
                return axis.parse_one(text)
            return axis.parse_text(text)
        except BadInput as e:
            raise argparse.ArgumentTypeError(str(e))
    parse.__name__ = axis.name
    parse.choices = axis.choices   # for the completion scripts and the man page (commands.completion)
    return parse


def add_axis(p, axis: Axis, single: bool = False, note: str = "", **extra) -> None:
    """--name-with-dashes (and its aliases), default None: the sweep fills defaults.
    `extra` goes to argparse (e.g. nargs/const for a flag that may stand alone)."""
    metavar = axis.name.upper() + ("" if single or not axis.many else "[,...]")
    shown = dataclasses.replace(axis, many=False) if single else axis   # no "comma list" for one value
    p.add_argument(axis.flag, *axis.aliases, dest=axis.name, type=axis_type(axis, single),
                   default=None, **{"metavar": metavar, **extra},
                   help=(shown.help_text() + note).replace("%", "%%"))


def add_network_args(p, required_topology: bool = True) -> None:
    """One network (cli, topo show): one value per flag."""
    topo = NETWORK["topology"]
    p.add_argument("--topo", "--topology", dest="topology", type=axis_type(topo, single=True),
                   required=required_topology, metavar="NAME",
                   help=topo.help)
    for name in SIZES:
        add_axis(p, NETWORK[name], single=True)


def add_impairment_args(p) -> None:
    g = p.add_argument_group("impairments (need netem: stock kernels, lab VMs)")
    for name in IMPAIRMENTS:
        add_axis(g, NETWORK[name])


def add_machine_args(p, single: bool = False, from_file: bool = False) -> None:
    """--hardware, --contention, --time-scale, --tx-gap-us and --queue-packets: the machines beyond
    their wires, their speed, their network cards' gap between frames and their queues. from_file: a verb whose file
    (an experiment) sets them, so an unset flag means the file's value, not the axis default."""
    g = p.add_argument_group("the papers' machines (hardware profiles: beowulf_netlab/hardware/*.json) and time scale")

    def axis(name: str) -> Axis:
        return dataclasses.replace(NETWORK[name], default=None) if from_file else NETWORK[name]
    own = " (unset: the experiment file's own)" if from_file else ""
    for name in MACHINE_SETTINGS:
        if name == "contention":   # may stand alone: on
            add_axis(g, axis(name), single, note=" (--contention alone: on)" + own,
                     nargs="?", const="on", metavar="on|off")
        else:
            add_axis(g, axis(name), single, note=own)


MACHINE_AXES = MACHINE_SETTINGS


def machine_values(args) -> dict:
    """The machine flags as given (None when unset), for Sweep.make or an experiment override."""
    return {k: getattr(args, k, None) for k in MACHINE_AXES}


def add_build_args(p) -> None:
    p.add_argument("--switch", choices=("auto", "ovs", "ovs-user", "lxbr"), default="auto",
                   help="switches joining wires: ovs = Open vSwitch (its kernel datapath where the "
                        "kernel has one, else its userspace datapath); ovs-user = OVS's userspace "
                        "datapath; lxbr = Linux bridge (default auto: OVS kernel datapath where "
                        "present, else Linux bridge: OVS's single-threaded userspace datapath "
                        "would be the bottleneck at 100 Mbit/s)")
    p.add_argument("--bonding", choices=("auto", "kernel", "nft"), default="auto",
                   help="channel bonding: kernel balance-rr driver or nftables fallback "
                        "(default auto: kernel if present)")
    p.add_argument("--wire", choices=("auto", "engine", "tc"), default="auto",
                   help="shared wires: engine = the frame-timed medium engine (every frame takes its "
                        "wire time; CSMA/CD per frame); tc = bridge + HTB (bandwidth only: a lone "
                        "frame pays no wire time) (default auto: the engine where it is built, up to "
                        "100 Mbit/s, time scale 1, no --delay/--loss; else tc)")
    p.add_argument("--host-path", choices=("subtract", "keep"), default=BuildOptions.host_path,
                   help="1996 profiles on the medium engine: subtract = time a lone round trip when "
                        "the network is built and take this host's own path (what the engine did not "
                        "hold) off the per-packet delays, so a round trip reads the model's time on "
                        "any host; keep = leave it on top (default subtract; recorded as host_path)")
    p.add_argument("-v", "--verbose", action="store_true", help="show Mininet's progress")


def build_options(args) -> BuildOptions:
    return BuildOptions(switch=args.switch, bonding=args.bonding, wire=args.wire,
                        host_path=args.host_path, verbose=args.verbose)


def spec_from(args):
    """The one network the cli/topo flags describe (BadInput if it cannot be built); an unset
    --nodes/--rate-mbit/--channels takes the topology's own (run.sweep.network_default),
    as `run` and experiments do."""
    opts = {k: getattr(args, k, None) for k in SPEC_SETTINGS}
    for name, value in network_defaults(args.topology).items():
        if opts[name] is None:
            opts[name] = value
    return build_spec(args.topology, **opts)


def shard_arg(text: str) -> tuple[int, int]:
    parts = text.split("/")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise argparse.ArgumentTypeError(
            f"--shard takes I/N (this host runs points I, I+N, ...), got {text!r}")
    i, n = (int(p) for p in parts)
    if not 1 <= i <= n <= 1000:
        raise argparse.ArgumentTypeError(f"--shard I/N needs 1 <= I <= N <= 1000, got {text!r}")
    return i, n


def add_output_args(p, default_name: str) -> None:
    """Where results go and how a sweep runs: shared by `run` and `experiment`."""
    p.add_argument("--out", default=None, metavar="FILE",
                   help=f"results file (default results/<time>-{default_name}.json)")
    p.add_argument("--json", action="store_true", help="print the results document to stdout")
    p.add_argument("--png", default=None, metavar="FILE", help="plot file (default beside the results)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--shard", type=shard_arg, default=None, metavar="I/N",
                   help="run only points I, I+N, ... of the sweep (campaigns; merge with 'emulate.py merge')")
    add_build_args(p)
