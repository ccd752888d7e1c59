"""An agent's side of the charge channel (netlab/hostcost.py): pay CPU work that is not a packet.

Division of labor: netlab.hostcost routes loopback datagrams to CHARGE_ADDR through the
node's CPU budget and says what one costs (`--charge ADDR,OVERHEAD,MESSAGE,DISK`, all
budget bytes); this module, imported by the agents beside it (stdlib only: it runs under
the namespaces' /usr/bin/python3), turns a cost into datagrams, sends them to itself and
waits until each is back, so the agent's work waits its turn on the node's CPU and the
node's packets wait behind it.
- message(): one TCP send or one completed receive (Linux 1.x TCP's cost beyond UDP);
- disk(n): n bytes the CPU moved to or from the disk (IDE PIO, or the buffer copy);
  disk(n, behind=True) for a write: the process goes on while the kernel writes the
  buffers out (1.x's buffer cache and bdflush): the datagrams still take their turn on
  the CPU, but the agent waits only when more than BEHIND_PIECES are outstanding (the
  dirty buffers' limit), and settle() waits for all of them (the copy's fsync).
A cost smaller than one datagram's overhead is carried to the next; a large one goes
in pieces of at most PIECE bytes, so packets that arrive meanwhile interleave with
them (1.x served interrupts between sectors).
HTB charges a packet after sending it, and the budget banks up to one packet's cost
while idle (netlab/hostcost.py burst_bytes): a lone charge after idle time therefore
delays what follows it by its cost less that credit, as a lone packet does; while the
CPU is busy every charge takes its whole cost.
"""
from __future__ import annotations

import select
import socket

PIECE = 16384          # budget bytes per datagram: 4 ms on the prototype's budget
BEHIND_PIECES = 32     # write-behind datagrams outstanding at most: a third of the budget's
                       # 100-packet queue, so charges never crowd the node's packets out
SO_RCVBUFFORCE = 33    # Linux's number; Python's socket module does not name it
RCVBUF = 8 << 20       # bytes: BEHIND_PIECES returned datagrams with their kernel overhead
LOST_AFTER_S = 5.0     # a datagram not back by then was dropped by a full budget queue


class Charge:
    def __init__(self, spec: str | None):
        self.sock = None
        self.debt = 0.0
        self.paid = 0
        self.lost = 0
        self.outstanding = 0
        self.message_bytes = self.disk_per_byte = 0.0
        if not spec:
            return
        addr, overhead, message, disk = spec.split(",")
        self.overhead, self.message_bytes, self.disk_per_byte = int(overhead), float(message), float(disk)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:        # room for every outstanding datagram once back (root: past rmem_max)
            self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
        self.sock.bind((addr, 0))
        self.sock.connect(self.sock.getsockname())
        self.sock.settimeout(LOST_AFTER_S)

    def message(self, count: int = 1) -> None:
        """count TCP sends or completed receives."""
        if self.message_bytes:
            self.pay(count * self.message_bytes)

    def disk(self, nbytes: int, behind: bool = False) -> None:
        """nbytes moved between the disk and memory by this node's CPU (behind: written back
        by the kernel while the process goes on, see the module doc)."""
        if self.disk_per_byte:
            self.pay(nbytes * self.disk_per_byte, behind)

    def pay(self, budget_bytes: float, behind: bool = False) -> None:
        if self.sock is None:
            return
        self.debt += budget_bytes
        while self.debt >= self.overhead:
            payload = int(min(self.debt, PIECE)) - self.overhead
            self.sock.send(bytes(payload))
            self.outstanding += 1
            self.debt -= payload + self.overhead
            self.paid += payload + self.overhead
            self._collect(block_over=BEHIND_PIECES if behind else 0)

    def settle(self) -> None:
        """Wait until every charge sent has passed the CPU."""
        if self.sock is not None:
            self._collect(block_over=0)

    def _collect(self, block_over: int) -> None:
        """Take back the datagrams the budget has passed (they return in order); block while
        more than block_over are outstanding."""
        while self.outstanding:
            if self.outstanding <= block_over and not select.select([self.sock], [], [], 0)[0]:
                return
            try:
                self.sock.recv(PIECE)
            except socket.timeout:
                self.lost += 1
            self.outstanding -= 1

    def record(self) -> dict:
        """What the agent reports: budget bytes paid, datagrams lost."""
        return {"charged_bytes": self.paid, "charges_lost": self.lost} if self.sock else {}
