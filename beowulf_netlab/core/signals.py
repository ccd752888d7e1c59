"""SIGTERM and SIGHUP as a normal exit, so `with` blocks tear down what they built.

Without this, a terminated process dies without running its teardown and
leaves namespaces (or a QEMU guest) behind. Used by the testbed and the lab VM.
"""
from __future__ import annotations

import signal


class Terminated(SystemExit):
    """Raised in the main thread when SIGTERM/SIGHUP arrives: exit status 128 + signal."""


def _raise(signum, _frame):
    raise Terminated(128 + signum)


class TerminateAsExit:
    """install() turns SIGTERM/SIGHUP into Terminated; restore() puts back the old handlers."""

    def __init__(self):
        self._old: dict = {}

    def install(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            self._old[sig] = signal.signal(sig, _raise)

    def restore(self) -> None:
        for sig, handler in self._old.items():
            signal.signal(sig, handler)
        self._old.clear()
