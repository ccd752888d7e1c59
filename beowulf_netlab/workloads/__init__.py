"""Traffic and work that runs inside the emulated nodes.

Division of labor: `placement` decides which nodes talk (pure); `agent` owns
the lifecycle of every helper process in a node (start, ready, result, kill);
`token`, `iperf`, `filecopy`, `pfs` and `sniff` are the workloads, each the same small
surface (`base.Workload`), with `token_agent.py`, `copy_agent.py` and `sniff_agent.py` running
inside the nodes (`forker` keeps a warm agent that forks each server or client on
command, `pfs_agent` runs MACHE01's tests); `charge` lets an agent pay CPU work
that is not a packet; `ping` measures round trips; `sniff` has a third station count a pair's
frames in promiscuous mode: a hub against a switch. `WORKLOADS` is the table the
run looks them up in. Imports `core`, `topologies` and `netlab` only.
"""
from __future__ import annotations

from beowulf_netlab.workloads import filecopy, iperf, pfs, sniff, token
from beowulf_netlab.workloads.base import Workload

WORKLOADS: dict[str, Workload] = {w.name: w for w in (token.WORKLOAD, iperf.WORKLOAD,
                                                      filecopy.WORKLOAD, pfs.WORKLOAD, sniff.WORKLOAD)}
