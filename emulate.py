#!/usr/bin/env python3
"""Beowulf Netlab: `sudo python3 emulate.py --help`.

The entry point: re-runs itself under the interpreter that has Debian's
Mininet if needed (core/interpreter.py), then hands over to `commands`.
The installed command `beowulf-netlab` (pyproject.toml) is `console` here:
the same steps under its own name.
"""
import os
import sys


def _main(prog: str) -> int:
    from core.interpreter import reexec_with_mininet
    os.environ["NETLAB_PROG"] = prog   # the name survives the re-run under /usr/bin/python3
    reexec_with_mininet(__file__)
    os.environ.pop("NETLAB_PROG", None)   # not handed to the processes the verbs start
    from commands import main
    return main(prog=prog)


def console() -> int:
    """The console script `beowulf-netlab`: what `python3 emulate.py` does."""
    return _main("beowulf-netlab")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(_main(os.environ.get("NETLAB_PROG") or "emulate.py"))
