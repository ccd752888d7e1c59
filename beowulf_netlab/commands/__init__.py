"""The command line of emulate.py: one module per verb, imported by nothing but emulate.py.

Division of labor: `args` holds the argument types and shared flags (made
from the axes, so flags and experiment files share names, defaults and
bounds); each verb module (doctor, topo, cli, run, experiment, exercise, reproduce, report,
plot, merge, compare, clean, completion, inspect, shell, capture; quick is the no-argument main job) adds its parser and runs it.
`main` maps the error family once: one line on stderr, the error's exit code.
Validation happens before the root check and before anything is created.
"""
from __future__ import annotations

import os
import sys
import traceback

from beowulf_netlab.commands import (clean, cli, compare, completion, doctor, exercise, experiment, merge, plot, quick,
                                     report, reproduce, run, topo)
from beowulf_netlab.commands import capture, inspect, shell
from beowulf_netlab.core.parser import Parser
from beowulf_netlab.core.errors import EXIT_FAILURE, EXIT_INTERRUPTED, NetlabError
from beowulf_netlab.core.text import plain
from beowulf_netlab.core.version import VersionAction

VERBS = {"doctor": doctor, "topo": topo, "cli": cli, "run": run, "experiment": experiment,
         "exercise": exercise, "reproduce": reproduce, "report": report, "plot": plot, "merge": merge, "compare": compare, "clean": clean,
         "completion": completion, "inspect": inspect, "shell": shell, "capture": capture}


def make_parser(prog: str = "emulate.py") -> Parser:
    parser = Parser(prog=prog, description=(
        "Beowulf Netlab: rebuild the 1996 Beowulf interconnect studies on real namespaces. "
        "With no command, runs the quick comparison of all topologies (needs root)."))
    parser.add_argument("--version", action=VersionAction, help="print the version (and git commit) and exit")
    sub = parser.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")
    for verb in VERBS.values():
        verb.add_parser(sub)
    sub.choices["completion"].set_defaults(root=parser)   # what it walks (no verb imports this package)
    return parser


def main(argv: list[str] | None = None, prog: str = "emulate.py") -> int:
    try:
        args = make_parser(prog).parse_args(argv)
        verb = VERBS[args.command] if args.command else quick
        return verb.run(args)
    except NetlabError as e:
        # one line, whatever a file or another host put in the message (core.text.plain)
        sys.stderr.write(f"{prog}: {e.label}: {plain(str(e).strip()) or type(e).__name__}\n")
        return e.exit_code
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted; the network was taken down\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:   # the reader went away (`... | head`): stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILURE
    except Exception as e:  # noqa: BLE001 -- a user sees one line, never a traceback
        if os.environ.get("NETLAB_DEBUG"):
            traceback.print_exc()
        sys.stderr.write(f"{prog}: internal error: {type(e).__name__}: {plain(str(e)[:200])} (a bug: "
                         "please report it; NETLAB_DEBUG=1 shows the traceback)\n")
        return EXIT_FAILURE
