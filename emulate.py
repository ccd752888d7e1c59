#!/usr/bin/env python3
"""Beowulf Netlab: `sudo python3 emulate.py --help`.

The entry point: re-runs itself under the interpreter that has Debian's
Mininet if needed (core/interpreter.py), then hands over to `commands`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from core.interpreter import reexec_with_mininet  # noqa: E402

reexec_with_mininet(__file__)

from commands import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
