#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a segnet-replay messages-mode report against the trace.

    replay_messages_check.py TRACE NODES REPORT.json LATENCY.csv [MAPFILE]
                             [--channel auto|quick|bulk] [--loops N]

Reads TRACE (classic pcap of Ethernet/IPv4/UDP frames) here, without
libpcap, maps every packet's source and destination IPv4 address to a node
as doc/replay.md says (--map ip: addresses numbered in order of first
appearance, source before destination, modulo NODES; or MAPFILE's
"ADDRESS NODE" lines), picks each message's channel (auto: quick when the
UDP payload is at most 24 bytes) and checks that the report says exactly
that: every message delivered, per node and per channel, skipped packets,
one latency line per delivered message. Exit 0 when all agree, 1 otherwise.
"""
import collections
import csv
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replay_compare  # noqa: E402  (records)

QUICK_CAP = 24


def fail(msg):
    """Print msg and exit 1."""
    print(f"replay_messages_check: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def packets(path):
    """Yield (source, destination, UDP payload length) of every frame."""
    for _, _, _, _, f in replay_compare.records(path):
        if len(f) < 42 or f[12:14] != b"\x08\x00" or f[23] != 17:
            fail(f"{path}: a frame that is not IPv4/UDP")
        ulen = struct.unpack(">H", f[38:40])[0]
        yield f[26:30], f[30:34], ulen - 8


def read_map(path):
    """A map file's IPv4 addresses and nodes."""
    m = {}
    with open(path) as f:
        for line in f:
            words = line.split("#")[0].split()
            if words:
                m[bytes(int(x) for x in words[0].split("."))] = int(words[1])
    return m


def expect(trace, nodes, mapfile, channel):
    """What the report must say."""
    fixed = read_map(mapfile) if mapfile else None
    seen = {}
    want = {"sent": collections.Counter(), "delivered": collections.Counter(),
            "chan": collections.Counter(), "same_node": 0, "unmapped": 0}

    def node(a):
        if fixed is not None:
            return fixed.get(a)
        if a not in seen:
            seen[a] = len(seen) % nodes
        return seen[a]

    for src, dst, plen in packets(trace):
        s = node(src)
        d = node(dst)
        if s is None or d is None:
            want["unmapped"] += 1
            continue
        if s == d:
            want["same_node"] += 1
            continue
        ch = channel if channel != "auto" else ("quick" if plen <= QUICK_CAP else "bulk")
        want["sent"][(s, ch)] += 1
        want["delivered"][(d, ch)] += 1
        want["chan"][ch] += 1
    return want


def check(want, rep, lat, nodes, loops):
    """Compare; fail on the first difference."""
    msgs = rep["messages"]
    total = sum(want["chan"].values()) * loops
    if msgs["sent"] != total or msgs["delivered"] != total or msgs["undelivered"]:
        fail(f"sent {msgs['sent']}, delivered {msgs['delivered']}, want {total} of each")
    if rep["trace"]["same_node"] != want["same_node"] or \
            rep["trace"]["unmapped"] != want["unmapped"]:
        fail(f"skipped: report {rep['trace']}, want same_node {want['same_node']},"
             f" unmapped {want['unmapped']}")
    for ch in ("quick", "bulk"):
        c = rep["channels"][ch]
        n = want["chan"][ch] * loops
        if c["sent"] != n or c["delivered"] != n or c["errors"] or c["corrupt"] or c["dropped"]:
            fail(f"channel {ch}: {c}, want {n} sent and delivered, no error")
        if n and not c["latency_ns"]:
            fail(f"channel {ch}: no latency")
    if len(rep["nodes"]) != nodes:
        fail(f"{len(rep['nodes'])} nodes in the report, want {nodes}")
    for n in rep["nodes"]:
        for ch in ("quick", "bulk"):
            for k in ("sent", "delivered"):
                if n[k][ch] != want[k][(n["node"], ch)] * loops:
                    fail(f"node {n['node']} {k} {ch}: {n[k][ch]},"
                         f" want {want[k][(n['node'], ch)] * loops}")
    lines = collections.Counter(r["channel"] for r in lat)
    if lines != {ch: n * loops for ch, n in want["chan"].items() if n}:
        fail(f"latency lines {dict(lines)}, want {dict(want['chan'])} x {loops}")
    if any(int(r["latency_ns"]) <= 0 for r in lat):
        fail("a latency of 0 or less")
    print(f"replay_messages_check: {total} messages ({dict(want['chan'])} x {loops}),"
          f" every one delivered, per node and channel as the trace says;"
          f" {want['same_node']} on one node, {want['unmapped']} unmapped")


def main():
    args = sys.argv[1:]
    channel = "auto"
    loops = 1
    if "--channel" in args:
        i = args.index("--channel")
        channel = args[i + 1]
        del args[i:i + 2]
    if "--loops" in args:
        i = args.index("--loops")
        loops = int(args[i + 1])
        del args[i:i + 2]
    if len(args) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    trace, nodes, report, latency = args[0], int(args[1]), args[2], args[3]
    want = expect(trace, nodes, args[4] if len(args) == 5 else None, channel)
    with open(report) as f:
        rep = json.load(f)
    with open(latency) as f:
        lat = list(csv.DictReader(f))
    check(want, rep, lat, nodes, loops)
    return 0


if __name__ == "__main__":
    sys.exit(main())
