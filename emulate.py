#!/usr/bin/env python3
"""Beowulf Netlab: `sudo python3 emulate.py --help`.

A checkout's launcher, never installed: it puts the checkout on sys.path and hands over to the
package's command line (beowulf_netlab/__main__.py: `launch`), which re-runs this file under the
interpreter that has Debian's Mininet if needed. `python3 -m beowulf_netlab` and the installed
`beowulf-netlab` are the same steps under their own names.
"""
import os
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from beowulf_netlab.__main__ import launch
    sys.exit(launch(os.environ.get("NETLAB_PROG") or "emulate.py", __file__))
