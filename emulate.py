#!/usr/bin/env python3
"""Beowulf Netlab: `sudo python3 emulate.py --help`.

Debian's Mininet installs for the system interpreter only, and the first
python3 on PATH may be another one; if Mininet is not importable here but is
under /usr/bin/python3, re-run there transparently.
"""
import importlib.util
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"

if (importlib.util.find_spec("mininet") is None and os.path.exists(SYSTEM_PYTHON)
        and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
        and not os.environ.get("NETLAB_NO_REEXEC")):
    os.environ["NETLAB_NO_REEXEC"] = "1"
    os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from commands import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
