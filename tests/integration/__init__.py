"""Integration tests build real networks: they need root and Mininet."""
import importlib.util
import os

import pytest


def require_testbed() -> None:
    """Skip the calling test module cleanly (at collection) where no network can be built."""
    if os.geteuid() != 0:
        pytest.skip("integration tests need root (run: sudo python3 -m pytest tests)",
                    allow_module_level=True)
    if importlib.util.find_spec("mininet") is None:
        pytest.skip("integration tests need Mininet: run ./setup.sh, then use /usr/bin/python3 "
                    "(sudo python3 -m pytest tests)", allow_module_level=True)
