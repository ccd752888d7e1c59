"""Counts the frames a node's cards see, from inside the node (the sniff workload's listener).

One raw AF_PACKET socket per card, each with the card in promiscuous mode
(PACKET_ADD_MEMBERSHIP PACKET_MR_PROMISC, undone when the socket closes): a real card then
passes up every frame its wire brings, not only those for its own address, broadcast or a
multicast group it joined. A veth does no address filtering of its own (the kernel marks a
frame for another address PACKET_OTHERHOST and its IP layer drops it), so each frame's packet
type is counted too: `foreign` are the frames a card out of promiscuous mode would have
dropped. Stdlib only (it runs under the node's interpreter, -I). Prints "ready" once every
socket is open, counts until its standard input ends, then prints one JSON line.

  python3 -I sniff_agent.py --nic b2-eth0 --pair-mac 02:00:00:00:00:01 --pair-mac 02:00:00:00:00:02
"""
from __future__ import annotations

import argparse
import json
import os
import select
import socket
import struct
import sys

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_STATISTICS = 6
PACKET_MR_PROMISC = 1
PACKET_OTHERHOST = 3
PACKET_OUTGOING = 4
RCVBUF = 4 << 20          # a burst of a busy hub's frames waits here while the agent sleeps
HEAD = 64                 # bytes read of each frame: the addresses are in the first 12


def mac_bytes(text: str) -> bytes:
    """'02:00:0a:00:00:01' -> its 6 bytes; ValueError otherwise."""
    parts = text.split(":")
    if len(parts) != 6 or not all(len(p) == 2 for p in parts):
        raise ValueError(f"not a MAC address: {text!r}")
    return bytes(int(p, 16) for p in parts)


def new_counts() -> dict[str, int]:
    return {"frames_seen": 0, "pair_frames_seen": 0, "foreign_frames_seen": 0, "own_frames_sent": 0}


def tally(counts: dict[str, int], frame: bytes, pkttype: int, pair: set[bytes]) -> None:
    """Count one frame a card delivered: what the listener sent itself apart; a frame is the
    pair's when one of the pair's cards sent it (its source address)."""
    if pkttype == PACKET_OUTGOING:
        counts["own_frames_sent"] += 1
        return
    counts["frames_seen"] += 1
    if pkttype == PACKET_OTHERHOST:
        counts["foreign_frames_seen"] += 1
    if frame[6:12] in pair:
        counts["pair_frames_seen"] += 1


def open_card(nic: str) -> socket.socket:
    """A raw socket on one card, in promiscuous mode. Made with protocol 0 (it receives
    nothing) and bound to the card with ETH_P_ALL, so no frame of another card is queued
    before the bind."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    s.bind((nic, ETH_P_ALL))
    ifindex = socket.if_nametoindex(nic)
    s.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, struct.pack("iHH8s", ifindex, PACKET_MR_PROMISC, 0, b""))
    s.setblocking(False)
    return s


def dropped(s: socket.socket) -> int:
    """Frames the socket's queue dropped (struct tpacket_stats: packets, drops; reading resets it)."""
    try:
        _packets, drops = struct.unpack("II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
    except OSError:
        return 0
    return drops


def drain(s: socket.socket, counts: dict[str, int], pair: set[bytes]) -> None:
    while True:
        try:
            frame, addr = s.recvfrom(HEAD)
        except (BlockingIOError, InterruptedError):
            return
        tally(counts, frame, addr[2], pair)


def listen(nics: list[str], pair: set[bytes]) -> dict:
    """Count on every card until stdin ends; the counts, the cards' addresses and any drops."""
    socks = [open_card(n) for n in nics]
    macs = {n: ":".join(f"{b:02x}" for b in s.getsockname()[4]) for n, s in zip(nics, socks)}
    counts = new_counts()
    drops = 0
    print("ready", flush=True)
    stdin = sys.stdin.fileno()
    while True:
        ready, _, _ = select.select([*socks, stdin], [], [])
        for s in socks:
            if s in ready:
                drain(s, counts, pair)
        if stdin in ready and not os.read(stdin, 4096):
            break
    for s in socks:                  # what arrived since the last wake-up
        drain(s, counts, pair)
        drops += dropped(s)
        s.close()
    return {**counts, "socket_drops": drops, "macs": macs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nic", action="append", required=True, help="a card to listen on (repeatable)")
    ap.add_argument("--pair-mac", action="append", default=[], help="a pair's card's address (repeatable)")
    args = ap.parse_args()
    try:
        pair = {mac_bytes(m) for m in args.pair_mac}
        out = listen(args.nic, pair)
    except (OSError, ValueError) as e:
        out = {"error": f"cannot listen on {', '.join(args.nic)}: {e}"}
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
