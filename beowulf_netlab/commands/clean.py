"""emulate.py clean: remove what killed runs left behind (only objects carrying a run's label)."""
from __future__ import annotations

from beowulf_netlab.commands.args import require_root
from beowulf_netlab.netlab.manifest import clean


def add_parser(sub) -> None:
    sub.add_parser("clean", help="remove what killed runs left behind",
                   description="Remove namespaces, links, IFBs, OVS bridges, nftables tables, disks and processes left "
                               "by runs whose process is gone. Touches only objects named in a run "
                               "manifest or carrying a run's prefix or label (bnl<id>).")


def run(_args) -> int:
    require_root("clean")
    report = clean()
    for line in report:
        print(line)
    print("clean: nothing left to remove" if not report else f"clean: {len(report)} item(s) handled")
    return 0
