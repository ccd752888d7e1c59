"""The Mininet CLI on a Beowulf network, plus a `wires` command.

Mininet's own CLI already runs `b0 ping -c1 b1` with node names replaced by
the node's default interface address; BeowulfHost makes that the bond on
bonded nodes, so names resolve to the one address a node has.
"""
from __future__ import annotations

from mininet.cli import CLI

from netlab.wire import SharedWire, run


class NetlabCLI(CLI):
    prompt = "netlab> "

    def __init__(self, net, testbed=None, **kwargs):
        self.testbed = testbed
        CLI.__init__(self, net, **kwargs)

    def do_wires(self, _line: str) -> None:
        """Show each wire: rate, stations, frames and bytes carried, drops."""
        for sw in self.mn.switches:
            if not isinstance(sw, SharedWire):
                continue
            dev = sw.ifb if sw.medium == "shared" else sw.port_names()[0]
            stats = run(["tc", "-s", "qdisc", "show", "dev", dev], check=False)
            sent = next((ln.strip() for ln in stats.splitlines() if ln.strip().startswith("Sent")), "")
            self.stdout.write(f"{sw.name}: {sw.rate_mbit:g} Mbit/s {sw.medium}, "
                              f"{len(sw.port_names())} ports; {sent}\n")

    def precmd(self, line: str) -> str:
        if not self.isatty():  # scripted: echo the command so the transcript reads well
            self.stdout.write(line.rstrip("\n") + "\n")
            self.stdout.flush()
        return CLI.precmd(self, line)
