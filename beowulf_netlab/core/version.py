"""The project's version, in one home.

pyproject.toml reads `__version__` from here (setuptools' dynamic version, read statically, so
keep it a plain string literal); `--version` prints `version_line()`; every results document
records it (beowulf_netlab/run/environment.py: netlab_version), so a number can be traced to the
release that measured it, even from an installed copy that has no git history.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from beowulf_netlab.core.command import execute

__version__ = "0.1.0"
RELEASED = "2026-11-27"   # the man page's date and CITATION.cff's date-released
NAME = "beowulf-netlab"
PACKAGE = Path(__file__).resolve().parent.parent   # beowulf_netlab/: the code and its data folders
ROOT = PACKAGE.parent   # a checkout's top (engine/, playbooks/, tests/), or site-packages when installed


def commit() -> str | None:
    """The checkout's short commit (+ "-dirty" when modified), or None outside a git checkout
    (an installed copy: its folder's parents may be some other repository)."""
    if not (ROOT / ".git").exists():
        return None
    rc, out, _ = execute(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], timeout=10)
    if rc != 0 or not out.strip():
        return None
    rc_status, status, _ = execute(["git", "-C", str(ROOT), "status", "--porcelain"], timeout=10)
    return out.strip() + ("-dirty" if rc_status == 0 and status.strip() else "")


def version_line() -> str:
    """`beowulf-netlab 0.1.0 (commit abc1234)`; without the commit outside a checkout."""
    c = commit()
    return f"{NAME} {__version__}" + (f" (commit {c})" if c else "")


class VersionAction(argparse.Action):
    """--version: asks git only when given (building the parser stays free of subprocesses)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_line())
        parser.exit()
