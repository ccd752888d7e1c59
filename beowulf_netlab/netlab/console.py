"""The Mininet CLI on a Beowulf network, plus a `wires` command and scripts.

Mininet's own CLI already runs `b0 ping -c1 b1` with node names replaced by
the node's default interface address; BeowulfHost makes that the bond on
bonded nodes, so names resolve to the one address a node has.

Scripts. Mininet's CLI forwards whatever is readable on its stdin to the node
while a command runs; with a redirected file (always readable) the first
command swallowed the rest of the file. So when stdin is not a terminal, the
CLI's own stdin is an idle pipe and the commands are read from the real stdin
a line at a time, each run to its end before the next is read (so a pipe that
stays open works too), as Mininet's `source FILE` does. Each line is echoed.
"""
from __future__ import annotations

import os
import subprocess
import sys

from mininet.cli import CLI

from beowulf_netlab.netlab.manifest import LABEL_ENV
from beowulf_netlab.netlab.wire import SharedWire


class NetlabCLI(CLI):
    prompt = "netlab> "

    def do_wires(self, _line: str) -> None:
        """Show each wire: rate, stations, frames and bytes carried, drops."""
        for sw in self.mn.switches:
            if isinstance(sw, SharedWire):
                self.stdout.write(sw.summary() + "\n")

    def do_sh(self, line: str) -> None:
        """sh CMD: run CMD on the host (the root namespace), without the run's label
        (NETLAB_RUN): a service (re)started from here is not the run's, and its teardown
        must not end it (the nodes' own commands keep the label)."""
        env = {k: v for k, v in os.environ.items() if k != LABEL_ENV}
        subprocess.call(line, shell=True, env=env)

    def do_source(self, line: str) -> None:
        """source FILE: run every command of FILE, echoing each one."""
        if line.strip() == STDIN:
            self.run_lines(sys.stdin)
            return
        args = line.split()
        if len(args) != 1:
            self.stdout.write("usage: source FILE\n")
            return
        try:
            with open(args[0]) as f:
                self.run_lines(f)
        except OSError as e:
            self.stdout.write(f"source: cannot read {args[0]}: {e.strerror}\n")

    def run_lines(self, stream) -> None:
        """Each line of stream as a command, read only when the previous one ended."""
        for cmd in iter(stream.readline, ""):
            if cmd.strip() and not cmd.lstrip().startswith("#"):
                self.stdout.write(f"{self.prompt}{cmd.rstrip()}\n")
                self.stdout.flush()
                if self.onecmd(cmd):
                    break


STDIN = "/dev/stdin (netlab script)"


def run_cli(net) -> None:
    """Interactive on a terminal; otherwise every line of stdin, as a script."""
    if sys.stdin.isatty():
        NetlabCLI(net)
        return
    read_end, write_end = os.pipe()   # stays open and empty: nothing to forward
    try:
        with os.fdopen(read_end) as idle:
            NetlabCLI(net, stdin=idle, script=STDIN)
    finally:
        os.close(write_end)
