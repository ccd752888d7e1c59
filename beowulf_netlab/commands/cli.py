"""emulate.py cli: Mininet's CLI on one topology (scripts from a file or pipe too)."""
from __future__ import annotations

from beowulf_netlab.commands.args import (add_build_args, add_impairment_args, add_machine_args, add_network_args,
                                          build_options, require_root, spec_from)
from beowulf_netlab.run.session import open_cli


def add_parser(sub) -> None:
    p = sub.add_parser("cli", help="open the Mininet CLI on a topology",
                       description="Build a topology and open the Mininet CLI on it. Node names in "
                                   "commands become addresses: 'b0 ping -c1 b1', 'b0 iperf3 -c b1'. "
                                   "When standard input is a file or a pipe, every line of it runs "
                                   "as a command (so does Mininet's 'source FILE'). "
                                   "Extra command: 'wires' shows each wire's traffic.")
    add_network_args(p)
    add_machine_args(p, single=True)
    add_impairment_args(p)
    add_build_args(p)


def run(args) -> int:
    spec = spec_from(args)
    require_root("cli")
    return open_cli(spec, build_options(args))

