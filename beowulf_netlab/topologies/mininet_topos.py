"""Entry point for plain Mininet, imported by nothing in the project:

  mn --custom beowulf_netlab/topologies/mininet_topos.py --topo single-net,16,10 --controller none

The Topo classes live in beowulf_netlab/netlab/topo.py; this file only puts the checkout on
sys.path and hands Mininet its `topos` table. `mn` runs custom files without
__file__, so the path is taken from its --custom argument then.
"""
import os
import sys


def _this_file() -> str:
    try:
        return __file__
    except NameError:  # executed by `mn --custom FILE[,FILE]`
        for i, arg in enumerate(sys.argv):
            value = arg.split("=", 1)[1] if arg.startswith("--custom=") else \
                sys.argv[i + 1] if arg == "--custom" and i + 1 < len(sys.argv) else ""
            for path in value.split(","):
                if path.endswith("mininet_topos.py"):
                    return os.path.abspath(path)
        return os.path.abspath("beowulf_netlab/topologies/mininet_topos.py")


sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(_this_file())))))   # the checkout's top

from beowulf_netlab.netlab.topo import topos  # noqa: E402,F401
