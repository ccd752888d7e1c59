"""Tested claims: the tests a "tested" claim names, run so its verdict says what happened.

A claim that is a wiring fact (claims 12, 13, 23) is checked by a test, not an experiment.
Its verdict used to be printed whatever the test did. `reproduce` now runs the unit tests each
such claim names (no root, no network: seconds), and the verdict says which passed in this
run; a failure makes the claim "not reproduced". Integration tests build networks and belong to
the test suite: the verdict names them as run there, not here. `report` (rebuilding from
saved documents) runs nothing and says so.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from beowulf_netlab.core.command import execute
from beowulf_netlab.core.verdicts import TestRun

ROOT = Path(__file__).resolve().parents[2]   # the checkout's top (beowulf_netlab/'s parent)
PASSED, FAILED, SUITE_ONLY = TestRun.PASSED, TestRun.FAILED, TestRun.SUITE_ONLY
NOT_RUN = "not run: pytest is not installed (./setup.sh installs it)"
TIMEOUT_S = 120


def tests_of(claims: list[dict]) -> list[str]:
    """Every test node id the tested claims name, in order."""
    return list(dict.fromkeys(t for c in claims if c["check"]["kind"] == "tested"
                              for t in c["check"].get("tests", [])))


def run(claims: list[dict]) -> dict[str, str]:
    """node id -> passed | failed | run by the test suite, for the tests the claims name."""
    out = {}
    unit = []
    for node in tests_of(claims):
        if node.startswith("tests/unit/"):
            unit.append(node)
        else:
            out[node] = SUITE_ONLY
    if importlib.util.find_spec("pytest") is None:
        return {**out, **{node: NOT_RUN for node in unit}}
    for node in unit:   # one pytest each: a test that fails names itself
        # from the project's folder, never the caller's (-m puts the working folder on the path:
        # a pytest.py planted where root ran reproduce would run as root)
        rc, _, _ = execute([sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", node],
                           timeout=TIMEOUT_S, cwd=str(ROOT))
        # 1 is pytest's "a test failed"; anything else (no such test, interrupted, timed out) ran nothing
        out[node] = PASSED if rc == 0 else FAILED if rc == 1 else f"did not run (pytest exit {rc})"
    return out
