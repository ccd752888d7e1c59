"""Shared test setup: the project root on sys.path.

tests/unit: pure logic, no root. tests/integration: real networks; each module
skips itself (tests.integration.require_testbed) where it cannot build one.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
