"""Run under the interpreter that has Mininet.

Debian's Mininet installs for the system interpreter only, and the first
python3 on PATH may be another one (pyenv, a venv). Scripts that need
Mininet call `reexec_with_mininet(__file__)` before importing it: if Mininet
is not importable here but /usr/bin/python3 exists, the script re-runs there, isolated (-I:
neither the caller's folder nor PYTHON* variables reach it; the script puts its own folder on
sys.path, as emulate.py does).
"""
from __future__ import annotations

import importlib.util
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"


def elsewhere() -> bool:
    """Is this another interpreter than the system's: another binary, or the system's binary in a
    venv (whose bin/python3 is a link to it, with its own site-packages)?"""
    return (os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
            or sys.prefix != sys.base_prefix)


def reexec_with_mininet(script: str) -> None:
    if (importlib.util.find_spec("mininet") is None and os.path.exists(SYSTEM_PYTHON)
            and elsewhere() and not os.environ.get("NETLAB_NO_REEXEC")):
        os.environ["NETLAB_NO_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, "-I", os.path.abspath(script), *sys.argv[1:]])
