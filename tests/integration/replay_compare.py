#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Helpers of the replay tests (replay_roundtrip.sh, replay_args.sh,
replay_ports.sh).

    replay_compare.py count FILE             records in a pcap
    replay_compare.py lengths FILE           their captured lengths, in order
    replay_compare.py frames OUT LEN...      OUT: a nanosecond pcap of frames
                                             of those lengths (Ethernet, type
                                             0x88b5, record k filled with
                                             k + 1), one second apart; a
                                             LEN:8100[:88a8...] frame starts
                                             with VLAN tags of those TPIDs
                                             (hex, outer first; VLAN id 100)
    replay_compare.py subset A B K...        B holds records K... of A, byte
                                             for byte, in that order (K/len:
                                             only as long as record K)
    replay_compare.py cut FILE OUT K         OUT: FILE cut 5 bytes into
                                             record K's data; prints the byte
                                             offset of record K's header
    replay_compare.py same A B               A and B hold the same frames,
                                             byte for byte, in the same order
    replay_compare.py segnet LUA A [B]       tshark with the segnet dissector
                                             decodes every frame of A (and of
                                             B, with the same type counts),
                                             nothing malformed; exit 77 without
                                             tshark

The pcap reading is done here, without libpcap, so it checks the files the
C code wrote independently. Exit 0 on success, 1 on a difference.
"""
import collections
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dissector  # noqa: E402  (tshark_env, pick_user, run)


def fail(msg):
    """Print msg and exit 1."""
    print(f"replay_compare: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def records(path):
    """Yield (offset, ts_sub, caplen, wirelen, data) of a classic pcap."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        fail(f"{path}: no pcap header")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        fail(f"{path}: not a classic pcap (magic {magic.hex()})")
    off = 24
    while off < len(data):
        if off + 16 > len(data):
            fail(f"{path}: truncated record header at {off}")
        _, sub, caplen, wirelen = struct.unpack(end + "IIII", data[off:off + 16])
        if off + 16 + caplen > len(data):
            fail(f"{path}: truncated record at {off}")
        yield off, sub, caplen, wirelen, data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def cmd_count(path):
    """Print the number of records."""
    print(sum(1 for _ in records(path)))


def cmd_lengths(path):
    """Print the captured lengths."""
    print(" ".join(str(r[2]) for r in records(path)))


def cmd_frames(out, specs):
    """Write a pcap of frames of the given lengths (and VLAN tags)."""
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
        for k, spec in enumerate(specs):
            n, *tpids = spec.split(":")
            n = int(n)
            head = bytes.fromhex("020000000002" "020000000001")
            for tpid in tpids:
                head += struct.pack(">HH", int(tpid, 16), 100)
            head += bytes.fromhex("88b5")
            f.write(struct.pack("<IIII", 1700000000 + k, 0, n, n))
            f.write((head + bytes([(k + 1) % 256]) * n)[:n])


def cmd_cut(path, out, k):
    """Write path cut inside record k; print record k's offset."""
    for i, (off, _, caplen, _, _) in enumerate(records(path)):
        if i == k:
            with open(path, "rb") as f:
                data = f.read(off + 16 + min(5, caplen - 1))
            with open(out, "wb") as f:
                f.write(data)
            print(off)
            return
    fail(f"{path} has no record {k}")


def cmd_same(a, b):
    """Same frames, same order."""
    ra = [r[4] for r in records(a)]
    rb = [r[4] for r in records(b)]
    if len(ra) != len(rb):
        fail(f"{a} has {len(ra)} frames, {b} has {len(rb)}")
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x != y:
            fail(f"frame {i} differs: {len(x)} bytes {x[:32].hex()}... vs"
                 f" {len(y)} bytes {y[:32].hex()}...")
    print(f"replay_compare: {len(ra)} frames identical, in order")


def cmd_subset(a, b, picks):
    """b holds records picks of a, in that order ("K/len": its length only)."""
    ra = [r[4] for r in records(a)]
    rb = [r[4] for r in records(b)]
    want = [ra[int(k.split("/")[0])] for k in picks]
    if len(rb) != len(want):
        fail(f"{b} has {len(rb)} frames, want {len(want)} (records {picks} of {a})")
    for k, x, y in zip(picks, want, rb):
        if x != y and not (k.endswith("/len") and len(x) == len(y)):
            fail(f"record {k} of {a} differs: {len(x)} bytes {x[:32].hex()}... vs"
                 f" {len(y)} bytes {y[:32].hex()}...")
    print(f"replay_compare: {len(rb)} frames identical to records {picks}")


def segnet_types(lua, path, env, user):
    """tshark's segnet.type of every frame; fails on a frame without one."""
    out, _ = test_dissector.run(
        ["tshark", "-n", "-X", f"lua_script:{lua}", "-r", path, "-T", "fields",
         "-E", "header=n", "-e", "frame.number", "-e", "segnet.type",
         "-e", "_ws.malformed"], env, user)
    types = collections.Counter()
    for line in out.splitlines():
        cells = line.split("\t") + ["", ""]
        if cells[1] == "":
            fail(f"{path}: frame {cells[0]} is not decoded as segnet")
        if cells[2] != "":
            fail(f"{path}: frame {cells[0]} is malformed")
        types[int(cells[1], 0)] += 1
    return types


def cmd_segnet(lua, files):
    """Every frame decodes as segnet; the files have the same type counts."""
    if not shutil.which("tshark"):
        print("replay_compare: tshark not installed, dissector check skipped")
        return 77
    with tempfile.TemporaryDirectory(prefix="segnet-rt-") as tmp:
        env = test_dissector.tshark_env(tmp)
        local_lua = os.path.join(tmp, "segnet.lua")
        shutil.copy(lua, local_lua)
        copies = []
        for i, f in enumerate(files):
            copies.append(os.path.join(tmp, f"f{i}.pcap"))
            shutil.copy(f, copies[-1])
        user = test_dissector.pick_user(local_lua, env, tmp)
        counts = [segnet_types(local_lua, c, env, user) for c in copies]
    names = {1: "BREQ", 2: "BACK", 3: "QREQ", 4: "QACK", 5: "CFG", 6: "GNT",
             7: "HELLO"}
    shown = ", ".join(f"{names.get(t, t)} {n}" for t, n in sorted(counts[0].items()))
    if len(counts) > 1 and counts[0] != counts[1]:
        fail(f"segnet types differ: {dict(counts[0])} vs {dict(counts[1])}")
    print(f"replay_compare: tshark decodes every frame as segnet: {shown}")
    return 0


def main():
    args = sys.argv[1:]
    if args[:1] == ["count"] and len(args) == 2:
        cmd_count(args[1])
    elif args[:1] == ["lengths"] and len(args) == 2:
        cmd_lengths(args[1])
    elif args[:1] == ["frames"] and len(args) >= 3:
        cmd_frames(args[1], args[2:])
    elif args[:1] == ["cut"] and len(args) == 4:
        cmd_cut(args[1], args[2], int(args[3]))
    elif args[:1] == ["subset"] and len(args) >= 4:
        cmd_subset(args[1], args[2], args[3:])
    elif args[:1] == ["same"] and len(args) == 3:
        cmd_same(args[1], args[2])
    elif args[:1] == ["segnet"] and len(args) in (3, 4):
        return cmd_segnet(args[1], args[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
