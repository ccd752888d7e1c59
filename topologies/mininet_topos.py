"""Entry point for plain Mininet, imported by nothing in the project:

  mn --custom topologies/mininet_topos.py --topo single-net,16,10 --controller none

The Topo classes live in netlab/topo.py; this file only puts the project on
sys.path and hands Mininet its `topos` table.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from netlab.topo import topos  # noqa: E402,F401
