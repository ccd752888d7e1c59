"""Shared test setup: the project root on sys.path, and markers for what needs root."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def pytest_collection_modifyitems(config, items):
    """Integration tests build real networks: they need root and Mininet."""
    import importlib.util
    reason = None
    if os.geteuid() != 0:
        reason = "integration tests need root (run: sudo python3 -m pytest tests)"
    elif importlib.util.find_spec("mininet") is None:
        reason = "integration tests need Mininet (run ./setup.sh, then use /usr/bin/python3)"
    if reason:
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if "integration" in item.nodeid.split(os.sep):
                item.add_marker(skip)
