"""emulate.py cli: Mininet's CLI on one topology (scripts from a file or pipe too)."""
from __future__ import annotations

import sys

from commands.args import (add_build_args, add_impairment_args, add_machine_args, add_network_args,
                           build_options, require_root, spec_from)


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


def open_cli(spec, opts, before: str = "") -> int:
    """Build spec, print `before` (an exercise's tasks) and a banner, run the CLI, tear down."""
    from mininet.log import lg

    from netlab.console import run_cli
    from netlab.testbed import Testbed
    for handler in lg.handlers:  # node output is the CLI's product: stdout, in order
        handler.setStream(sys.stdout)
    with Testbed(spec, opts) as tb:
        env = tb.environment()
        if before:
            print(before)
        print(f"*** {spec.topology}: {len(spec.nodes)} nodes, {len(spec.wires)} wire(s) at "
              f"{spec.params['rate_mbit']:g} Mbit/s; bonding: {env['bonding_impl'] or '-'}; "
              f"switches: {env['switch_impl'] or '-'}; hardware: {env['hardware']}; "
              f"built in {env['build_s']:.1f} s")
        print("*** try: b0 ping -c1 b1 | b1 iperf3 -s -D | b0 iperf3 -c b1 -t 5 | wires | exit",
              flush=True)
        run_cli(tb.net)
    return 0
