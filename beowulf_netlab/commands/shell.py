"""emulate.py shell NODE [--run RUN] [-- CMD ...]: a shell or a command inside a running network's node."""
from __future__ import annotations

import argparse
import os

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.netlab.running import choose, enter, node_of, run_id_arg, runs


def add_parser(sub) -> None:
    p = sub.add_parser("shell", help="open a shell (or run a command) in a node of a running network",
                       description="Enter a node of a network that is running now (built by cli, run, "
                                   "experiment, reproduce, ...; see 'emulate.py inspect'): its network, "
                                   "mount and UTS namespaces, as Mininet's 'mnexec -a PID'. Without a "
                                   "command, an interactive shell; after --, that command (its exit "
                                   "status is this one's). Whatever it leaves running ends with the "
                                   "network. Example: sudo python3 emulate.py shell b0 -- ip -br addr")
    p.add_argument("node", metavar="NODE", help="a node name as 'emulate.py inspect RUN' lists them (e.g. b0)")
    p.add_argument("--run", type=_run_id, default=None, metavar="RUN",
                   help="the run (default: the only network running)")
    p.add_argument("argv", nargs=argparse.REMAINDER, default=[], metavar="-- CMD ...",
                   help="the command to run in the node (default: an interactive shell)")


def _run_id(text: str) -> str:
    try:
        return run_id_arg(text)
    except BadInput as e:   # argparse's one line names the flag
        raise argparse.ArgumentTypeError(str(e)) from None


def split(argv: list[str], run_id: str | None) -> tuple[str | None, list[str]]:
    """(run id, command) from what follows NODE: argparse hands it all over (REMAINDER), so
    `--run RUN` given after NODE is read here; everything after `--` is the command's."""
    if "--" in argv:
        i = argv.index("--")
        head, command = argv[:i], argv[i + 1:]
    else:
        head, command = [], argv
        while command[:1] == ["--run"] or command[:1] and command[0].startswith("--run="):
            take = 1 if "=" in command[0] else 2
            head, command = head + command[:take], command[take:]
    while head:
        if head[0] == "--run" and len(head) >= 2:
            value, head = head[1], head[2:]
        elif head[0].startswith("--run="):
            value, head = head[0].split("=", 1)[1], head[1:]
        else:
            raise BadInput(f"shell: unrecognized {head[0]!r} before --: give --run RUN, then -- and the command")
        if run_id is not None:
            raise BadInput("shell: --run given twice")
        run_id = _run_id_line(value)
    return run_id, command


def _run_id_line(text: str) -> str:
    try:
        return run_id_arg(text)
    except BadInput as e:
        raise BadInput(f"--run: {e}") from None


def run(args) -> int:
    run_id, command = split(args.argv, args.run)
    if os.geteuid() != 0:
        raise BadInput(f"emulate.py shell enters a node's namespaces, which needs root: run it as "
                       f"'sudo python3 emulate.py shell {args.node} ...'")
    target = choose(runs(), run_id)
    node_of(target, args.node)
    enter(target, args.node, command)
    return 0   # not reached: enter replaces this process
