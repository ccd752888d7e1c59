"""argparse with one-line errors: the shape of every bad-flag message (exit 2)."""
from __future__ import annotations

import argparse
import sys

from beowulf_netlab.core.errors import EXIT_USAGE


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not argparse's usage dump
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        sys.exit(EXIT_USAGE)
