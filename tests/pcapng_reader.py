"""A pure-Python reader of the pcapng files the medium engine writes (engine/src/pcapng.rs), for
the tests: it checks each block's structure as a reader must and returns what the blocks hold."""
import struct


def read_pcapng(path) -> tuple[list[dict], list[dict]]:
    """(frames, statistics) of a little-endian pcapng file, checking each block's structure as
    a reader must: the byte-order magic, total lengths that are multiples of 4 and repeated at
    each block's end, one Ethernet interface at nanosecond resolution."""
    data = open(path, "rb").read()
    frames, stats, i, ifaces = [], [], 0, []
    while i < len(data):
        kind, total = struct.unpack_from("<II", data, i)
        assert total >= 12 and total % 4 == 0 and i + total <= len(data), (i, total)
        assert struct.unpack_from("<I", data, i + total - 4)[0] == total, f"trailing length of the block at {i}"
        body = data[i + 8:i + total - 4]
        if kind == 0x0A0D0D0A:
            assert struct.unpack_from("<I", body, 0)[0] == 0x1A2B3C4D
            assert struct.unpack_from("<HH", body, 4) == (1, 0)
        elif kind == 1:
            linktype, _, _ = struct.unpack_from("<HHI", body, 0)
            opts = options(body, 8)
            ifaces.append((linktype, opts.get(9)))
        elif kind == 6:
            iface, hi, lo, caplen, origlen = struct.unpack_from("<IIIII", body, 0)
            assert iface == 0 and caplen == origlen
            frame = body[20:20 + caplen]
            comment = options(body, 20 + (caplen + 3) // 4 * 4).get(1, b"").decode()
            frames.append({"ts": (hi << 32) | lo, "len": caplen, "bytes": frame, "comment": comment})
        elif kind == 5:
            opts = options(body, 12)
            stats.append({"received": struct.unpack("<Q", opts[4])[0], "dropped": struct.unpack("<Q", opts[5])[0],
                          "comment": opts.get(1, b"").decode()})
        i += total
    assert i == len(data)
    assert ifaces == [(1, b"\x09")], ifaces   # Ethernet, if_tsresol 9 (ns)
    return frames, stats


def options(body: bytes, at: int) -> dict[int, bytes]:
    out = {}
    while at + 4 <= len(body):
        code, n = struct.unpack_from("<HH", body, at)
        if code == 0:
            break
        out[code] = body[at + 4:at + 4 + n]
        at += 4 + (n + 3) // 4 * 4
    return out
