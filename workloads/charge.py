"""An agent's side of the charge channel (netlab/hostcost.py): pay CPU work that is not a packet.

Division of labor: netlab.hostcost routes loopback datagrams to CHARGE_ADDR through the
node's CPU budget and says what one costs (`--charge ADDR,OVERHEAD,MESSAGE,DISK`, all
budget bytes); this module, imported by the agents beside it (stdlib only: it runs under
the namespaces' /usr/bin/python3), turns a cost into datagrams, sends them to itself and
waits until each is back, so the agent's work waits its turn on the node's CPU and the
node's packets wait behind it.
- message(): one TCP send or one completed receive (Linux 1.x TCP's cost beyond UDP);
- disk(n): n bytes the CPU moved to or from the disk (IDE PIO, or the buffer copy).
A cost smaller than one datagram's overhead is carried to the next; a large one goes
in pieces of at most PIECE bytes, one at a time, so packets that arrive meanwhile
interleave with them (1.x served interrupts between sectors).
"""
from __future__ import annotations

import socket

PIECE = 16384          # budget bytes per datagram: 4 ms on the prototype's budget
LOST_AFTER_S = 5.0     # a datagram not back by then was dropped by a full budget queue


class Charge:
    def __init__(self, spec: str | None):
        self.sock = None
        self.debt = 0.0
        self.paid = 0
        self.lost = 0
        self.message_bytes = self.disk_per_byte = 0.0
        if not spec:
            return
        addr, overhead, message, disk = spec.split(",")
        self.overhead, self.message_bytes, self.disk_per_byte = int(overhead), float(message), float(disk)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((addr, 0))
        self.sock.connect(self.sock.getsockname())
        self.sock.settimeout(LOST_AFTER_S)

    def message(self, count: int = 1) -> None:
        """count TCP sends or completed receives."""
        if self.message_bytes:
            self.pay(count * self.message_bytes)

    def disk(self, nbytes: int) -> None:
        """nbytes moved between the disk and memory by this node's CPU."""
        if self.disk_per_byte:
            self.pay(nbytes * self.disk_per_byte)

    def pay(self, budget_bytes: float) -> None:
        if self.sock is None:
            return
        self.debt += budget_bytes
        while self.debt >= self.overhead:
            piece = min(self.debt, PIECE)
            payload = int(piece) - self.overhead
            self.sock.send(bytes(payload))
            try:
                self.sock.recv(payload + 1)
            except socket.timeout:
                self.lost += 1
            self.debt -= payload + self.overhead
            self.paid += payload + self.overhead

    def record(self) -> dict:
        """What the agent reports: budget bytes paid, datagrams lost."""
        return {"charged_bytes": self.paid, "charges_lost": self.lost} if self.sock else {}
