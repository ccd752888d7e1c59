"""emulate.py capture WIRE: one wire's frames, as the medium engine carried them, to a pcapng file."""
from __future__ import annotations

import argparse
import dataclasses
import shlex
import subprocess
import time
from pathlib import Path

from beowulf_netlab.commands.args import (add_build_args, add_machine_args, add_network_args, build_options, require_root,
                                          spec_from)
from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.safefile import probe_folder


def add_parser(sub) -> None:
    p = sub.add_parser("capture", help="capture a wire's frames to a pcapng file (the medium engine)",
                       description="Build a topology on the medium engine and write WIRE's frames to --out as "
                                   "pcapng for --seconds, or until --cmd ends (a line as Mininet's CLI takes it: "
                                   "the node, then its command; other node names become addresses). Each frame is "
                                   "stamped when its last bit left the wire (ns), and the frames that collided "
                                   "and the wire's drops are said in packet comments (Wireshark: "
                                   "frame.comment; 'tshark -r FILE -V'; 'tcpdump -r FILE'). Example: sudo "
                                   "python3 emulate.py capture w0 --topo single-net --nodes 2 --rate-mbit 10 "
                                   "--out ping.pcapng --cmd 'b0 ping -c 3 b1'")
    p.add_argument("capture_wire", metavar="WIRE", help="the wire to capture ('emulate.py topo show' names them: w0, ...)")
    p.add_argument("--out", required=True, metavar="FILE", help="the pcapng file to write (replaced)")
    p.add_argument("--seconds", type=_seconds, default=10.0, metavar="N",
                   help="how long to capture, or at most how long the command may run (default 10)")
    p.add_argument("--limit-mb", type=_limit, default=64, metavar="MB",
                   help="at most this many MB of frames; later ones are counted, not written (default 64)")
    p.add_argument("--cmd", default=None, metavar="'NODE CMD ...'",
                   help="a command to run in NODE while capturing, e.g. 'b0 ping -c 3 b1' (default: none: "
                        "capture --seconds)")
    add_network_args(p)
    add_machine_args(p, single=True)
    add_build_args(p)


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0.1 <= v <= 3600:
        raise argparse.ArgumentTypeError(f"--seconds takes 0.1..3600, got {text!r}")
    return v


def _limit(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 4096:
        raise argparse.ArgumentTypeError(f"--limit-mb takes 1..4096, got {text!r}")
    return int(text)


def command_of(line: str | None) -> list[str]:
    """--cmd's words (shell quoting), the node first."""
    try:
        words = shlex.split(line or "")
    except ValueError as e:
        raise BadInput(f"capture --cmd: {e}") from None
    if line is not None and not words:
        raise BadInput("capture --cmd: give the node and its command, e.g. 'b0 ping -c 3 b1'")
    return words


def run(args) -> int:
    words = command_of(args.cmd)
    spec = spec_from(args)
    names = [w.name for w in spec.wires]
    if args.capture_wire not in names:
        raise BadInput(f"capture: no wire {args.capture_wire} in {spec.topology} (its wires: {', '.join(names)})")
    nodes = {n.name for n in spec.nodes}
    if words and words[0] not in nodes:
        raise BadInput(f"capture: {words[0]!r} is not a node of {spec.topology} (its nodes: {', '.join(sorted(nodes))})")
    if args.wire == "tc":
        raise BadInput("capture needs the medium engine: drop --wire tc")
    out = Path(args.out)
    if out.suffix != ".pcapng":
        raise BadInput(f"capture writes pcapng: --out {args.out} should end in .pcapng")
    try:
        probe_folder(out.parent if str(out.parent) else Path("."))
    except OSError as e:
        raise BadInput(f"capture: cannot write {args.out}: {e.strerror or e}") from None
    require_root("capture")
    opts = dataclasses.replace(build_options(args), wire="engine", capture=(args.capture_wire,),
                               capture_out=str(out), capture_limit=args.limit_mb << 20)
    return capture(spec, opts, args.capture_wire, args.seconds, words)


def capture(spec, opts, wire: str, seconds: float, words: list[str]) -> int:
    """Build, capture while `words` run in their node (or for `seconds`), tear down: the engine
    writes the file as it stops, and the testbed says where and how many frames. The command's
    exit status, or 1 when the file was not written."""
    from beowulf_netlab.netlab.testbed import Testbed
    from beowulf_netlab.run.hostpath import subtract_host_path
    status = 0
    with Testbed(spec, opts) as tb:
        subtract_host_path(tb)
        if words:
            nodes = {n.name for n in spec.nodes}
            argv = [tb.host(w).address if w in nodes else w for w in words[1:]]
            proc = tb.host(words[0]).popen(argv, stdin=subprocess.DEVNULL, stdout=None, stderr=None)
            try:
                status = proc.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                print(f"capture: {' '.join(words)} still ran after {seconds:g} s: ended it", flush=True)
        else:
            time.sleep(seconds)
        medium = tb.medium
    c = (medium.captured.get(wire) if medium is not None else None) or {}
    if not c.get("out"):   # the testbed said why (netlab.testbed.capture_line)
        return 1
    return max(status, 0)
