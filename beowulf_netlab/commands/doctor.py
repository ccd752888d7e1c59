"""emulate.py doctor: what this host can do, and which fallbacks it will use."""
from __future__ import annotations

from beowulf_netlab.commands.args import require_root
from beowulf_netlab.netlab.capabilities import doctor_lines, probe

HELP = "list kernel features, tools and the fallbacks they cause"


def add_parser(sub) -> None:
    sub.add_parser("doctor", help=HELP, description="Probe this host (each kernel feature in a "
                   "throwaway namespace) and report what the testbed can use. Exit 0 when it can "
                   "run, 1 otherwise.")


def run(_args) -> int:
    require_root("doctor")
    caps = probe()
    print("\n".join(doctor_lines(caps)))
    return 0 if not caps.missing_required() else 1
