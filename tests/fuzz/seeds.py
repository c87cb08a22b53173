#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpora of fuzz_fabric, fuzz_nic and fuzz_trace.

The fabric and NIC seeds are short scripts in the record format of
tests/fuzz/fuzz_records.h (a harness header, then records); the trace seeds
are small pcap and pcapng files. This file is where they are written down,
so that a seed is read and changed here, never as bytes. Run from the top of
the tree:

    python3 tests/fuzz/seeds.py

It rewrites tests/fuzz/corpus/fabric/seed-*, tests/fuzz/corpus/nic/seed-*
and tests/fuzz/corpus/trace/seed-*, and the regress-* inputs written down
here; other regress-* files are left alone (they are in the format of the
day they were found: write them down here when the format changes).

    python3 tests/fuzz/seeds.py --large-trace DIR

writes fuzz_trace's large seeds (records past 262144 bytes, about 256 KiB
each, not committed) into DIR: scripts/fuzz.sh trace does, into its
scratch corpus.
"""
import os
import struct
import sys

# Packet types and flags (proto/proto.h).
BREQ, BACK, QREQ, QACK, CFG, GNT, HELLO = range(1, 8)
(F_DATA, F_ACK, F_LAST, F_RETX, F_FORCE_ACK, F_NACK, F_DOWN, F_ABANDONED,
 F_NO_VNET, F_FRESH, F_RESTART, F_WELCOME, F_REFUSED, F_DUP) = (1 << i for i in range(14))
GNT_F_JOINED = 2
# What a DOWN notice's epoch says of its node (enum proto_down_kind); 3 is refused.
DOWN_DOWN, DOWN_REJOINED, DOWN_NOT_JOINED, DOWN_BAD = range(4)

# Record actions and time scales (enum fuzz_action, enum fuzz_scale).
A_FRAME, A_RAW, A_OWN, A_POOL, A_NEXT = 0, 4, 5, 6, 7
S_NONE, S_FINE, S_SLOTS, S_LONG = range(4)

# Node codes of a frame record: 0 .. 5 are node ids.
SWITCH, NONE = 6, 7

# What the epoch delta of a frame record counts from (enum fuzz_epoch_base):
# the epoch the harness believes the connection has, 0, that + 32768, or
# the two bytes given.
E_CONN, E_ZERO, E_HALF, E_GIVEN = range(4)


def op(action, who=0, bulk=False, scale=S_NONE, adv=0):
    """A record's op and adv bytes."""
    return bytes([who | (bulk << 2) | (action << 3) | (scale << 6), adv])


def s8(v):
    """A signed delta as one byte."""
    return v & 0xFF


def epoch_field(flags, epoch, base, given):
    """A frame record's epoch byte (flags bits 8-9, base, delta) and given bytes."""
    assert -8 <= epoch <= 7, "an epoch delta is -8 .. 7"
    code = (flags >> 8 & 3) << 6 | base << 4 | (epoch & 0xF)
    return bytes([code]) + (given.to_bytes(2, "big") if base == E_GIVEN else b"")


def frame(ptype, who=0, bulk=False, scale=S_NONE, adv=0, flags=0, src=0, dst=0,
          vnet=0, src_ep=0, dst_ep=0, handler=0, pkt=0, ack=0, mask=0, slot=0,
          plen=0, epoch=0, base=E_CONN, given=0, body=b""):
    """A frame record; pkt, ack, slot and epoch are deltas from the harness's
    context (epoch from base; a DOWN notice's epoch is its kind, 0 .. 3; a
    WELCOME's pkt from the NIC's boot nonce, -8 .. 7; a REFUSED QACK's or
    BACK's from the last packet number the NIC sent; a DUP QACK's is how
    far below its ack base, 0 .. 31). Flags bits 0-7 are the flags byte,
    8-9 go in the epoch byte, 10 to 13 in the sel byte (enum fuzz_sel_byte:
    type - 1 in bits 0-2, DUP bit 3, REFUSED bit 4, WELCOME bit 5, RESTART
    bit 6)."""
    assert flags < 1 << 14, "a frame record sets flags bits 0-13"
    assert 1 <= ptype <= 7, "a frame record's type is 1 .. 7"
    assert not flags & F_DUP or 0 <= pkt <= 31, "a DUP QACK's pkt is 0 .. 31 below its base"
    sel = (ptype - 1 | (flags >> 13 & 1) << 3 | (flags >> 12 & 1) << 4 |
           (flags >> 11 & 1) << 5 | (flags >> 10 & 1) << 6)
    return op(A_FRAME, who, bulk, scale, adv) + bytes([
        sel, flags & 0xFF, src, dst, vnet, src_ep, dst_ep, handler, s8(pkt),
        s8(ack), mask, s8(slot), plen]) + epoch_field(flags, epoch, base, given) + body


def down(ptype, src, kind=DOWN_DOWN, dst=1, vnet=1, **kw):
    """A DOWN notice (a BACK or QACK from the switch) about node src, of kind."""
    return frame(ptype, flags=F_DOWN, src=src, dst=dst, vnet=vnet, epoch=kind, **kw)


def welcome(src, nonce=0, peer=5, restart=False, flags=F_ACK, dst=1, vnet=1, **kw):
    """A WELCOME (a QACK) from node src, which took the FRESH frames of a
    process of the NIC: nonce is the delta from the NIC's boot nonce (0: its
    own process, else an earlier one), peer src's own boot nonce (-128 ..
    127, as FRESH frames' nonces near 0), the epoch a delta from base."""
    assert -8 <= nonce <= 7, "a WELCOME's nonce delta is -8 .. 7"
    assert -128 <= peer <= 127, "a WELCOME's sender's nonce is -128 .. 127"
    flags |= F_WELCOME | (F_RESTART if restart else 0)
    return frame(QACK, flags=flags, src=src, dst=dst, vnet=vnet, handler=s8(peer),
                 pkt=nonce, **kw)


def raw(data, who=0, scale=S_NONE, adv=0):
    """A raw frame record: the bytes as they are."""
    return op(A_RAW, who, False, scale, adv) + len(data).to_bytes(2, "big") + data


def next_poll(n=1):
    """Poll n times, each at the time the component asked for."""
    return op(A_NEXT) * n


def cfg(node, req=0, bulk_en=0xF, quick_en=0xF, slot=0, **kw):
    """A CFG from node of a 4-node cluster: targets in req get count 1."""
    counts = bytes((req >> t) & 1 for t in range(4))
    return frame(CFG, who=node, src=node, dst=SWITCH, slot=slot,
                 body=bytes([0]) + counts + bytes([bulk_en, quick_en]), **kw)


def hello(node, nonce=7, **kw):
    """A HELLO from node (not yet knowing its id)."""
    return frame(HELLO, who=node, src=NONE, dst=SWITCH, body=bytes([nonce]), **kw)


def gnt(node=1, target=NONE, slot=0, flags=0, back_slots=2, **kw):
    """A GNT for node of a 4-node cluster with the default slot length."""
    return frame(GNT, src=SWITCH, dst=node, slot=slot,
                 body=bytes([target, node, 0, flags, 0, back_slots, 1]), **kw)


def send(to, bulk=False, vnet=1, length=0, count=1, handler=3):
    """fuzz_nic: send count messages to node `to`."""
    return op(A_OWN, to, bulk) + bytes([vnet, 1, 2, handler, length, count - 1])


def cancel(src_ep=2, vnet=1):
    """fuzz_nic: cancel the messages of endpoint src_ep (it closed)."""
    return op(A_OWN) + bytes([0x40 | vnet, src_ep])


def hold(units):
    """Take 64 * units frames out of the pool."""
    return op(A_POOL) + bytes([units])


def release():
    """Give the held frames back."""
    return op(A_POOL) + bytes([0x80])


def space_toggle():
    """fuzz_nic: turn refusing receive space on or off."""
    return op(A_OWN) + bytes([0x80])


def fabric_header(arb=0, opts=0, down_slots=3, slot_frames=1, keepalive=1):
    """fuzz_fabric's header: arbiter index, options, sizes."""
    return bytes([arb, opts, down_slots | ((slot_frames - 1) << 3) | (keepalive << 5)])


def fabric_joined(arb=0, opts=0, **kw):
    """Header, then all four nodes join and send a CFG enabling everyone."""
    s = fabric_header(arb, opts, **kw)
    s += b"".join(hello(i) for i in range(4)) + op(A_NEXT)
    s += b"".join(cfg(i) for i in range(4)) + op(A_NEXT)
    return s


def fabric_seeds():
    """name -> bytes of the fuzz_fabric seeds."""
    seeds = {}
    s = fabric_joined()
    s += cfg(0, req=0b0010) + next_poll(2)
    s += frame(BREQ, who=0, bulk=True, flags=F_DATA | F_LAST, src=0, dst=1, vnet=1,
               slot=0, plen=8) + next_poll(1)
    s += frame(BACK, who=1, flags=F_ACK, src=1, dst=0, vnet=1, slot=-1) + next_poll(2)
    seeds["seed-hello-cfg-breq-back"] = s
    s = fabric_joined(opts=1)
    s += frame(QREQ, who=0, flags=F_DATA | F_LAST, src=0, dst=2, vnet=1)
    s += frame(QREQ, who=1, flags=F_DATA | F_LAST, src=1, dst=2, vnet=1)
    s += frame(QACK, who=3, flags=F_ACK, src=3, dst=2, vnet=1) + next_poll(1)
    s += frame(QACK, who=2, flags=F_ACK, src=2, dst=0, vnet=1, scale=S_FINE, adv=4)
    seeds["seed-qreq-collide-qack"] = s
    s = fabric_joined()
    s += frame(BREQ, who=0, bulk=True, flags=F_DATA, src=0, dst=1, vnet=1,
               slot=-40, plen=1) + next_poll(1)
    s += frame(BACK, who=1, flags=F_ACK, src=1, dst=0, vnet=1, slot=5) + next_poll(1)
    seeds["seed-breq-outside-slot"] = s
    s = fabric_joined(down_slots=2)
    s += cfg(0, req=0b1000) + op(A_NEXT, scale=S_LONG, adv=2)
    s += frame(QREQ, who=1, flags=F_DATA, src=1, dst=3, vnet=1)
    s += hello(3, nonce=8) + next_poll(2) + cfg(3) + next_poll(1)
    seeds["seed-down-rejoin"] = s
    # The QREQ of node 1, marked down, broke the accounting invariant
    # (src_down was no drop counter: 8eb4816); kept as its own input.
    seeds["regress-frames-of-a-node-marked-down"] = s
    s = fabric_joined(arb=6, opts=2 | 16, slot_frames=2)
    s += cfg(0, req=0b0110) + cfg(3, req=0b0010) + hold(0x3F) + next_poll(2)
    s += release()
    for src in (0, 3):
        s += frame(BREQ, who=src, bulk=True, flags=F_DATA, src=src, dst=1, vnet=1, plen=2)
    s += next_poll(3)
    seeds["seed-fifo-outbuf-two-ports"] = s
    s = fabric_joined(arb=1, opts=4 | 8)
    s += raw(bytes(range(64)), who=2) + cfg(2, req=0b0001, slot=3) + next_poll(4)
    s += frame(GNT, who=1, src=SWITCH, dst=1, body=bytes([NONE, 1, 0, 0, 0, 2, 1]))
    s += frame(BACK, who=1, flags=F_DOWN | F_ACK, src=1, dst=0) + next_poll(1)
    seeds["seed-islip-idle-nocrc-forged"] = s
    s = fabric_joined(opts=1)
    s += frame(QREQ, who=0, flags=F_DATA | F_LAST | F_FRESH, src=0, dst=1, vnet=1,
               base=E_GIVEN, given=0xBEEF)
    s += frame(QREQ, who=2, flags=F_DATA | F_LAST, src=2, dst=3, vnet=1, epoch=-1,
               base=E_ZERO) + next_poll(1)
    s += frame(QACK, who=1, flags=F_NO_VNET, src=1, dst=0, vnet=1, base=E_HALF)
    s += frame(QACK, who=3, flags=F_ACK, src=3, dst=2, vnet=1, epoch=1) + next_poll(1)
    s += welcome(1, who=1, dst=0, restart=True, peer=-3) + next_poll(1)
    s += down(QACK, src=2, kind=DOWN_REJOINED, who=2, dst=0)
    s += down(BACK, src=2, kind=DOWN_BAD, who=2, dst=0) + next_poll(2)
    seeds["seed-epochs-fresh-no-vnet-notices"] = s
    return seeds


def nic_header(confs=4, opts=0, bufs=0x15, timing=0x23):
    """fuzz_nic's header: configurations, options, buffers, timing."""
    return bytes([confs, opts, bufs, timing])


def nic_joined(confs=4, opts=0, **kw):
    """Header, a HELLO out, then the joining GNT (node 1 of 4)."""
    return nic_header(confs, opts, **kw) + next_poll(1) + \
        gnt(flags=GNT_F_JOINED, scale=S_FINE, adv=1)


def nic_grants(n, target=NONE):
    """n slots, each with a GNT (for target) and the polls of the slot."""
    return b"".join(gnt(target=target, scale=S_SLOTS, adv=4) + next_poll(1)
                    for _ in range(n))


def nic_fresh_welcomed(restart, confs=4):
    """Node 2 welcomes this new connection (which knows no epoch) at its
    epoch 1, on configuration confs (4: conf4-sr). With restart, it had
    taken the FRESH frames of this process before a restart of its own (it
    retired the nonce): on conf1 (confs 0), whose FRESH packets are taken,
    the connection restarts (epoch_restarts) before taking the epoch; on a
    numbered one, whose FRESH packets are not, nothing restarts, as without
    restart. A second WELCOME, the epoch known, restarts nothing; then
    messages go again."""
    s = nic_joined(confs=confs)
    s += send(2, count=3) + nic_grants(1)
    for _ in range(2):
        s += welcome(2, restart=restart, ack=-3, base=E_ZERO, epoch=1) + nic_grants(1)
    s += send(2, count=2) + nic_grants(1)
    s += frame(QACK, flags=F_ACK, src=2, dst=1, vnet=1, ack=0, base=E_ZERO, epoch=1)
    return s + nic_grants(2)


def nic_seeds():
    """name -> bytes of the fuzz_nic seeds."""
    seeds = {}
    # Every seed's peers welcome the NIC's process before their frames
    # without FRESH (else dropped: rx_unwelcome), as a peer that took its
    # FRESH frames would.
    s = nic_joined()
    s += send(2, count=3) + next_poll(1)
    s += welcome(2, flags=0) + frame(QACK, flags=F_ACK, src=2, dst=1, vnet=1, ack=0)
    s += nic_grants(2)
    seeds["seed-join-qreq-qack"] = s
    s = nic_joined(confs=3)
    s += send(2, bulk=True, length=20, count=2) + nic_grants(1)
    s += nic_grants(2, target=2) + welcome(2, flags=0)
    s += frame(BACK, flags=F_ACK, src=2, dst=1, vnet=1, slot=-1) + nic_grants(1)
    s += frame(BACK, flags=F_NACK, src=2, dst=1, vnet=1, slot=0) + nic_grants(3, target=2)
    seeds["seed-bulk-gnt-back-nack"] = s
    s = nic_joined(confs=4) + welcome(2, flags=0) + welcome(3, flags=0)
    for pkt in (0, 2, 1, 1, 5):
        s += frame(QREQ, flags=F_DATA | F_LAST, src=2, dst=1, vnet=1, pkt=pkt, handler=4)
    s += next_poll(1)
    s += frame(BREQ, bulk=True, flags=F_DATA | F_LAST | F_FORCE_ACK, src=3, dst=1,
               vnet=1, slot=0, plen=3) + nic_grants(3)
    seeds["seed-rx-reorder-dup"] = s
    s = nic_joined(confs=2 | 0x40 | (4 << 3), opts=1 | 4)
    s += send(2, vnet=2, count=4) + send(3, bulk=True, length=1) + next_poll(2)
    s += frame(QACK, flags=F_DOWN, src=2, dst=1, vnet=2) + nic_grants(2)
    s += frame(BACK, flags=F_DOWN, src=3, dst=1, vnet=1) + nic_grants(1)
    seeds["seed-two-vnets-down-notices"] = s
    s = nic_joined(confs=0) + welcome(2, flags=0)
    s += space_toggle() + frame(BREQ, bulk=True, flags=F_DATA, src=2, dst=1, vnet=1,
                                plen=1) + next_poll(1)
    s += hold(0x3F) + send(2, count=16) + nic_grants(2) + release()
    s += op(A_NEXT, scale=S_LONG, adv=30) + next_poll(2)
    seeds["seed-no-space-no-mbuf-rejoin"] = s
    s = nic_header(confs=4 | 0x40 | (1 << 3))
    s += send(2, count=16) + send(2, bulk=True, length=20, count=2) + next_poll(1)
    s += send(3, vnet=2, count=3) + cancel() + cancel(vnet=2) + next_poll(1)
    s += gnt(flags=GNT_F_JOINED, scale=S_FINE, adv=1) + send(2, count=16)
    s += send(2, bulk=True, length=30, count=3) + nic_grants(1, target=2) + cancel()
    s += welcome(2, flags=0) + frame(QACK, flags=F_ACK, src=2, dst=1, vnet=1, ack=0)
    s += nic_grants(3, target=2)
    seeds["seed-cancel-before-and-after-join"] = s
    s = nic_joined(confs=2)
    s += send(2, count=2) + nic_grants(1)
    s += welcome(2) + nic_grants(1)
    for epoch in (1, -1):
        s += frame(QREQ, flags=F_DATA | F_LAST, src=2, dst=1, vnet=1, epoch=epoch)
        s += nic_grants(1)
    s += frame(QREQ, flags=F_DATA | F_LAST, src=2, dst=1, vnet=1, base=E_HALF)
    s += welcome(0, flags=0)
    for base in (E_CONN, E_HALF):
        s += frame(QREQ, flags=F_DATA | F_LAST, src=0, dst=1, vnet=1, base=base)
        s += nic_grants(1)
    s += frame(BACK, flags=F_ACK, src=2, dst=1, vnet=1, base=E_GIVEN, given=0x1234)
    s += send(2, count=2) + nic_grants(2)
    seeds["seed-epoch-newer-stale-tie"] = s
    s = nic_joined(confs=4)
    for nonce in (5, 5, 6):
        s += frame(QREQ, flags=F_DATA | F_LAST | F_FRESH, src=2, dst=1, vnet=1,
                   base=E_ZERO, epoch=nonce) + nic_grants(1)
    s += down(QACK, src=2) + nic_grants(1)
    for nonce in (6, 7):
        s += frame(QREQ, flags=F_DATA | F_LAST | F_FRESH, src=2, dst=1, vnet=1,
                   base=E_ZERO, epoch=nonce) + nic_grants(1)
    s += send(3, count=2) + nic_grants(1)
    s += frame(QACK, flags=F_ACK | F_FRESH, src=3, dst=1, vnet=1, base=E_ZERO,
               epoch=2) + nic_grants(2)
    seeds["seed-fresh-nonces"] = s
    s = nic_joined(confs=3)
    s += send(2, count=2) + nic_grants(1)
    s += down(QACK, src=2) + down(BACK, src=2) + nic_grants(1)
    for kind in (DOWN_REJOINED, DOWN_NOT_JOINED, DOWN_BAD):
        s += down(QACK, src=2, kind=kind) + nic_grants(1)
    s += send(3, count=2) + nic_grants(1) + frame(QACK, flags=F_NO_VNET, src=3, dst=1, vnet=1)
    s += send(3) + nic_grants(1)
    for epoch in (-1, 0):
        s += frame(QACK, flags=F_NO_VNET, src=3, dst=1, vnet=1, epoch=epoch) + nic_grants(1)
    s += nic_grants(2)
    seeds["seed-down-kinds-no-vnet"] = s
    seeds["seed-fresh-answered-restart"] = nic_fresh_welcomed(restart=True, confs=0)
    seeds["seed-fresh-answered-restart-numbered"] = nic_fresh_welcomed(restart=True)
    seeds["seed-fresh-welcomed"] = nic_fresh_welcomed(restart=False)
    # Node 2 missed this NIC's new process and sends at its old epoch: its
    # frames are dropped and answered FRESH (rx_unwelcome); a WELCOME of an
    # earlier process of this node is dropped (rx_stale_epoch); the one of
    # this process is taken (rx_welcome, node 2's nonce noted), then node
    # 2's data; a FRESH frame of that nonce is node 2's process (rx_fresh),
    # one of another a new process (fresh_restarts). Node 3's FRESH frame
    # is taken and welcomed (welcome_sent), and its WELCOME, the epoch
    # known, is taken as a frame of that epoch. conf3: unordered, so that
    # the data is delivered whatever its number.
    s = nic_joined(confs=2)
    s += frame(QREQ, flags=F_DATA | F_LAST, src=2, dst=1, vnet=1, base=E_GIVEN,
               given=0x42) + nic_grants(1)
    s += frame(QACK, flags=F_ACK, src=2, dst=1, vnet=1, base=E_GIVEN, given=0x42)
    s += nic_grants(1)
    for nonce in (1, 0):
        s += welcome(2, nonce=nonce, peer=-3, base=E_GIVEN, given=0x42) + nic_grants(1)
    s += frame(QREQ, flags=F_DATA | F_LAST, src=2, dst=1, vnet=1, base=E_GIVEN,
               given=0x42) + nic_grants(1)
    for nonce in (-3, -4):
        s += frame(QREQ, flags=F_DATA | F_LAST | F_FRESH, src=2, dst=1, vnet=1,
                   base=E_ZERO, epoch=nonce) + nic_grants(1)
    s += frame(QREQ, flags=F_DATA | F_LAST | F_FRESH, src=3, dst=1, vnet=1,
               base=E_ZERO, epoch=-2) + nic_grants(1)
    s += send(3, count=2) + nic_grants(1) + welcome(3, peer=-2) + nic_grants(2)
    seeds["seed-unwelcome-welcome"] = s
    # Push-back on conf4-sr. This NIC's endpoint has no receive space: node
    # 2's QREQ and BREQ are refused for it (ep_refusals_sent), and a REFUSED
    # marker of node 2 is taken. Node 2's endpoint refuses the first of
    # three quick messages (QACK) and a bulk one (BACK): they become
    # markers and come again (requeued); a REFUSED answer for a marker is
    # stale.
    s = nic_joined(confs=4) + welcome(2, flags=0) + space_toggle()
    s += frame(QREQ, flags=F_DATA | F_LAST, src=2, dst=1, vnet=1, pkt=0, handler=4)
    s += frame(BREQ, bulk=True, flags=F_DATA | F_LAST, src=2, dst=1, vnet=1, pkt=1,
               slot=0, plen=3) + next_poll(1)
    s += frame(QREQ, flags=F_DATA | F_ABANDONED | F_REFUSED, src=2, dst=1, vnet=1,
               pkt=0, handler=2) + space_toggle() + nic_grants(1)
    s += send(2, count=3) + nic_grants(1)
    s += frame(QACK, flags=F_ACK | F_REFUSED, src=2, dst=1, vnet=1, pkt=-1, ack=-2)
    s += nic_grants(1)
    s += frame(QACK, flags=F_ACK | F_REFUSED, src=2, dst=1, vnet=1, pkt=-1, ack=-2)
    s += send(2, bulk=True, length=8) + nic_grants(3, target=2)
    s += frame(BACK, flags=F_ACK | F_NACK | F_REFUSED, src=2, dst=1, vnet=1, slot=-1)
    s += nic_grants(4, target=2)
    seeds["seed-refused-endpoint"] = s
    seeds["seed-refused-block-ends"] = nic_refused_block_ends()
    seeds["seed-dup-acks"] = nic_dup_acks()
    return seeds


def nic_dup_acks():
    """DUP acks both ways on conf4-sr with the timer's late_floor on. Node
    2's packet 1 comes twice (frame records 3 and 4: a packet number is a
    delta from the frame records so far): the NIC answers the copy with a
    QACK that names it. The NIC's second message waits past its timer
    (srtt + 4 rttvar of its first, acked one slot after it left) and is
    resent; an ack completes it, then node 2's DUP ack of its copy shows
    the resend needless (genp spurious_retx, the floor raised)."""
    s = nic_joined(confs=4 | 0x80) + welcome(2, flags=0)
    s += frame(QREQ, flags=F_DATA | F_LAST, src=2, dst=1, vnet=1, pkt=-2, handler=4)
    s += frame(QREQ, flags=F_DATA | F_LAST | F_RETX | F_FORCE_ACK, src=2, dst=1, vnet=1,
               pkt=-3, handler=4) + next_poll(1)
    s += send(2) + nic_grants(1) + frame(QACK, flags=F_ACK, src=2, dst=1, vnet=1, ack=0)
    s += send(2) + nic_grants(8) + frame(QACK, flags=F_ACK, src=2, dst=1, vnet=1, ack=0)
    s += frame(QACK, flags=F_ACK | F_DUP, src=2, dst=1, vnet=1, ack=0, pkt=0)
    return s + nic_grants(2)


def nic_refused_block_ends():
    """Push-back on conf4-sr to a bounded block's end (refuse.c), each step
    a poll: node 2's packet 1 for endpoint 1 is refused (a block for it),
    its REFUSED marker 1, taken, says the messages come again from 3 on
    (the block is bounded); packet 2, for endpoint 2, is taken: rx_base is
    past the block, which is over when packet 3 for endpoint 1 comes
    (taken). Then the same with packets 4 .. 6, the block over at the
    refusal of packet 6, for endpoint 2, whose block takes the entry
    (nic_rx_block_open). A frame record's packet number is a delta from
    the frame records so far (rec)."""
    rec = 0

    def record(n, data):
        nonlocal rec
        rec += n
        return data

    def data(n, ep):
        return record(1, frame(QREQ, flags=F_DATA | F_LAST, src=2, dst=1, vnet=1,
                               dst_ep=ep, pkt=n - rec - 1, handler=4))

    def marker(n, ep, resume):
        return record(1, frame(QREQ, flags=F_DATA | F_ABANDONED | F_REFUSED, src=2,
                               dst=1, vnet=1, dst_ep=ep, pkt=n - rec - 1,
                               handler=resume - n))

    def grants(n=1):
        return record(n, nic_grants(n))

    s = record(2, nic_joined(confs=4) + welcome(2, flags=0))
    for first, other_refused in ((1, False), (4, True)):
        s += space_toggle() + data(first, 1) + marker(first, 1, first + 2) + grants()
        s += space_toggle() + data(first + 1, 2) + grants()
        if other_refused:
            s += space_toggle() + data(first + 2, 2) + grants() + space_toggle()
        else:
            s += data(first + 2, 1) + grants()
    return s + grants(2)


# Trace files (doc/replay.md): pcap magics, pcapng block types and options.
PCAP_US, PCAP_NS = 0xA1B2C3D4, 0xA1B23C4D
NG_SHB, NG_IDB, NG_PB, NG_SPB, NG_NRB, NG_ISB, NG_EPB = 0x0A0D0D0A, 1, 2, 3, 4, 5, 6
NG_CUSTOM = 0x00000BAD
OPT_END, OPT_COMMENT, OPT_IF_NAME, OPT_TSRESOL, OPT_TSOFFSET = 0, 1, 2, 9, 14
OPT_SHB_USERAPPL, OPT_EPB_FLAGS = 4, 2
ETHERNET = 1
# Link types whose largest record is not 262144 (trace_max_snaplen) and one
# whose pseudo-header libpcap rewrites in a file of the other byte order.
DBUS, USBPCAP, EBHSCR, USB_LINUX_MMAPPED = 231, 249, 279, 220


def eth(n, tag):
    """An n-byte Ethernet frame: broadcast to 02:00:00:00:00:tag, IPv4, a pattern."""
    head = b"\xff" * 6 + bytes([2, 0, 0, 0, 0, tag]) + b"\x08\x00"
    return (head + bytes((tag + i) & 0xFF for i in range(max(0, n - len(head)))))[:n]


def pcap(order, magic, recs, snaplen=65535, linktype=ETHERNET):
    """A classic pcap: file header, then (sec, subsec, frame, wire length) records."""
    b = struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for sec, sub, data, wire in recs:
        b += struct.pack(order + "IIII", sec, sub, len(data), wire) + data
    return b


def ng_opts(order, opts):
    """pcapng options (code, value), then the end of options."""
    b = b""
    for code, value in opts:
        b += struct.pack(order + "HH", code, len(value)) + value
        b += bytes(-len(value) % 4)
    return b + struct.pack(order + "HH", OPT_END, 0) if opts else b


def ng_block(order, btype, body):
    """One pcapng block: type, total length, body padded to 4, total length."""
    body += bytes(-len(body) % 4)
    total = 12 + len(body)
    return struct.pack(order + "II", btype, total) + body + struct.pack(order + "I", total)


def ng_shb(order, opts=()):
    """Section header block, version 1.0, section length unknown."""
    return ng_block(order, NG_SHB, struct.pack(order + "IHHq", 0x1A2B3C4D, 1, 0, -1) +
                    ng_opts(order, opts))


def ng_idb(order, snaplen=0, opts=(), linktype=ETHERNET):
    """Interface description block, for Ethernet unless told."""
    return ng_block(order, NG_IDB, struct.pack(order + "HHI", linktype, 0, snaplen) +
                    ng_opts(order, opts))


def ng_epb(order, iface, ts, data, wire=None, opts=()):
    """Enhanced packet block: interface, 64-bit timestamp in its units, frame."""
    wire = len(data) if wire is None else wire
    return ng_block(order, NG_EPB, struct.pack(order + "IIIII", iface, ts >> 32,
                                               ts & 0xFFFFFFFF, len(data), wire) +
                    data + bytes(-len(data) % 4) + ng_opts(order, opts))


def ng_sections(order):
    """Two sections: interfaces of each timestamp kind and every block type."""
    ns, us, bin20 = (OPT_TSRESOL, b"\x09"), (OPT_TSRESOL, b"\x06"), (OPT_TSRESOL, b"\x94")
    q = order + "q"
    b = ng_shb(order, [(OPT_SHB_USERAPPL, b"fuzz seeds")])
    b += ng_idb(order, opts=[ns, (OPT_IF_NAME, b"eth0")])
    b += ng_idb(order, opts=[(OPT_TSOFFSET, struct.pack(q, 1700000000))])
    b += ng_idb(order, opts=[bin20, (OPT_TSOFFSET, struct.pack(q, -5))])
    b += ng_epb(order, 0, 1700000000123456789, eth(60, 1))
    b += ng_epb(order, 1, 2500001, eth(42, 2), wire=1514,
                opts=[(OPT_EPB_FLAGS, struct.pack(order + "I", 1)), (OPT_COMMENT, b"cut")])
    b += ng_block(order, NG_NRB, struct.pack(order + "HH", 0, 0))
    b += ng_epb(order, 2, (1700000007 << 20) | 0x80000, eth(61, 3))
    b += ng_block(order, NG_SPB, struct.pack(order + "I", 45) + eth(45, 4))
    b += ng_block(order, NG_PB, struct.pack(order + "HHIIII", 1, 0, 0, 7, 50, 50) + eth(50, 5))
    b += ng_block(order, NG_ISB, struct.pack(order + "III", 0, 0, 0))
    b += ng_block(order, NG_CUSTOM, struct.pack(order + "I", 32473) + b"opaque")
    b += ng_shb(order)
    b += ng_idb(order, opts=[us])
    b += ng_epb(order, 0, 1700000009000001, eth(64, 6))
    return b


def usb_iso_completion(order):
    """A Linux USB (memory-mapped) header of an incoming isochronous completion, 1 descriptor."""
    usb = struct.pack(order + "QBBBBHbbqiiII8siiII", 1, ord("C"), 0, 0x81, 1, 1, 0, 0,
                      1700000000, 0, 0, 0, 0, b"", 0, 0, 0, 1)
    return usb + struct.pack(order + "iIII", 0, 100, 50, 0)


def trace_seeds():
    """name -> bytes of the fuzz_trace seeds: each format, both byte orders."""
    seeds = {}
    for order, end in (("<", "le"), (">", "be")):
        seeds["seed-pcap-us-" + end] = pcap(order, PCAP_US, [
            (1700000000, 123456, eth(60, 1), 60),
            (1700000000, 999999, eth(40, 2), 1514),
            (1 << 31, 0, eth(14, 3), 14)])
        seeds["seed-pcap-ns-" + end] = pcap(order, PCAP_NS, [
            (1700000000, 999999999, eth(60, 1), 60),
            (1700000000, 5, eth(64, 2), 64),
            (0xFFFFFFFF, 7, eth(32, 3), 32)], snaplen=64)
        seeds["seed-pcapng-" + end] = ng_sections(order)
    seeds["seed-pcap-header-only-snaplen0"] = pcap("<", PCAP_US, [], snaplen=0)
    # A D-Bus pcapng (its largest record and block are larger) in big
    # endian, snaplen 0: an EPB and an SPB.
    seeds["seed-pcapng-dbus-be"] = (
        ng_shb(">") + ng_idb(">", linktype=DBUS) + ng_epb(">", 0, 1700000000000000, eth(60, 1)) +
        ng_block(">", NG_SPB, struct.pack(">I", 45) + eth(45, 2)))
    # Refusals at the limits only large files pass (the block's or record's
    # bytes need not be there: the length is refused first): a pcapng
    # block past 16 MiB, one of D-Bus at its limit (128 MiB + 131104,
    # then truncated) and past it, and a USBPCAP record one byte past its
    # 1 MiB. The large seeds, not committed, hold records past 262144
    # (trace_large_seeds).
    def block_header(order, length):
        return struct.pack(order + "II", NG_EPB, length)
    dbus_max = (128 << 20) + 12 + 20 + (128 << 10)
    seeds["seed-pcapng-block-past-16mib-le"] = (
        ng_shb("<") + ng_idb("<") + block_header("<", (16 << 20) + 4) + bytes(24))
    seeds["seed-pcapng-dbus-block-at-max-be"] = (
        ng_shb(">") + ng_idb(">", linktype=DBUS) + block_header(">", dbus_max) + bytes(24))
    seeds["seed-pcapng-dbus-block-past-max-le"] = (
        ng_shb("<") + ng_idb("<", linktype=DBUS) + block_header("<", dbus_max + 4) + bytes(24))
    seeds["seed-pcap-usbpcap-caplen-past-max-le"] = (
        pcap("<", PCAP_US, [], snaplen=0, linktype=USBPCAP) +
        struct.pack("<IIII", 1700000000, 0, (1 << 20) + 1, (1 << 20) + 1) + bytes(64))
    # What fuzz_trace found, each accepted by validation and then refused
    # or misread: a timestamp past 2554 (the first 589 inputs; 156 bytes
    # minimised, written down smaller), a 2^-40 s resolution libpcap
    # misconverts, a USB record whose wire length libpcap rewrites, a
    # second raw IP interface libpcap refuses.
    ns = [(OPT_TSRESOL, b"\x09")]
    seeds["regress-pcapng-timestamp-past-2554"] = (
        ng_shb(">") + ng_idb(">") + ng_epb(">", 0, 0x2C060A2418A79441, eth(60, 1)))
    seeds["regress-pcapng-resolution-2-40"] = (
        ng_shb("<") + ng_idb("<", opts=[(OPT_TSRESOL, b"\xa8")]) +
        ng_epb("<", 0, 15 << 40 | (1 << 40) - 1, eth(60, 1)))
    usb = usb_iso_completion("<")
    seeds["regress-pcap-usb-mmapped-wire-length"] = pcap("<", PCAP_US, [
        (1700000000, 0, usb, len(usb))], linktype=USB_LINUX_MMAPPED)
    # The same record written big endian: libpcap converts its header.
    usb = usb_iso_completion(">")
    seeds["seed-pcap-usb-mmapped-be"] = pcap(">", PCAP_US, [
        (1700000000, 0, usb, len(usb))], linktype=USB_LINUX_MMAPPED)
    raw_idb = ng_block("<", NG_IDB, struct.pack("<HHI", 101, 0, 0) + ng_opts("<", ns))
    seeds["regress-pcapng-two-raw-ip-interfaces"] = (
        ng_shb("<") + raw_idb + raw_idb + ng_epb("<", 0, 1, bytes(20)))
    return seeds


# Largest record of most link types (trace_max_snaplen), and the large
# seeds' one record just past it (or at it): what only these link types read.
TRACE_MAX_SNAPLEN = 262144


def ng_spb(order, data, wire):
    """Simple packet block: the wire length, then the bytes the snaplen keeps."""
    return ng_block(order, NG_SPB, struct.pack(order + "I", wire) + data)


def trace_large_seeds():
    """name -> bytes of fuzz_trace's large seeds: one record near 262144 each.

    Not committed: scripts/fuzz.sh writes them into its scratch corpus and
    takes the largest's size as fuzz_trace's -max_len; the fuzz suite's
    trace-large-seeds-reach writes them into a scratch folder. Records of
    262144 + 1 .. 16 bytes of D-Bus, USBPCAP and EBHSCR, in pcap and
    pcapng, both byte orders, snaplen 0 (the link type's largest) or one
    above 262144; an Ethernet record of exactly 262144; simple packet
    blocks whose wire length passes 262144, cut at it (Ethernet) or read
    whole (D-Bus).
    """
    big = TRACE_MAX_SNAPLEN
    seeds = {}
    for name, order, lt, n, snaplen in (
            ("pcap-dbus-le", "<", DBUS, big + 1, 0),
            ("pcap-usbpcap-be", ">", USBPCAP, big + 4, 0),
            ("pcap-ebhscr-le", "<", EBHSCR, big + 16, big + 100)):
        seeds["seed-large-" + name] = pcap(order, PCAP_US, [
            (1700000000, 1, bytes(60), 60),
            (1700000000, 2, eth(n, 1), n)], snaplen=snaplen, linktype=lt)
    seeds["seed-large-pcap-ns-ethernet-at-max"] = pcap(">", PCAP_NS, [
        (1700000000, 999999999, eth(big, 2), big + 10)], snaplen=0)
    ns = [(OPT_TSRESOL, b"\x09")]
    for name, order, lt, n in (
            ("pcapng-dbus-le", "<", DBUS, big + 1),
            ("pcapng-usbpcap-be", ">", USBPCAP, big + 3),
            ("pcapng-ebhscr-le", "<", EBHSCR, big + 2)):
        seeds["seed-large-" + name] = (
            ng_shb(order) + ng_idb(order, linktype=lt, opts=ns) +
            ng_epb(order, 0, 1700000000000000001, eth(60, 1)) +
            ng_epb(order, 0, 1700000000000000002, eth(n, 2), wire=n + 1,
                   opts=[(OPT_COMMENT, b"past 262144")]))
    seeds["seed-large-pcapng-dbus-spb-be"] = (
        ng_shb(">") + ng_idb(">", linktype=DBUS) + ng_spb(">", eth(big + 5, 3), big + 5))
    seeds["seed-large-pcapng-ethernet-spb-cut-le"] = (
        ng_shb("<") + ng_idb("<") + ng_spb("<", eth(big, 4), big + 40))
    return seeds


# fuzz_host: records of tests/fuzz/fuzz_host.c (enum host_f_op), an op byte
# (bits 0-3 the op, 4-7 its argument) and the bytes it reads.
H_POLL, H_SEND, H_RAW_SEND, H_INDEX, H_WRITE, H_REAP, H_RECV, H_RETURN = range(8)
H_DELIVER, H_COMPLETE, H_HONEST, H_NIC_MODE, H_ARM, H_CLOSE, H_OPEN, H_NIC_KEEP = range(8, 16)
H_RING_SEND, H_RING_COMP, H_RING_RECV, H_RING_RRET = range(4)
H_HEAD, H_RAW = 4, 8


def h_op(code, arg=0):
    return bytes([code | arg << 4])


def h_poll(units=1):
    return h_op(H_POLL, 1) + bytes([units])


def h_send(bulk=False, node=1, ep=2, handler=3, length=100):
    return h_op(H_SEND, int(bulk)) + bytes([node, ep, handler]) + struct.pack(">H", length)


def h_raw_send(buf, node=1, ep=2, handler=3, chan=1, length=0):
    return h_op(H_RAW_SEND) + struct.pack(">HHHHBBHHB", buf, node, ep, handler, chan, 0,
                                          length, 0, 0)


def h_index_raw(ring, head, value):
    return h_op(H_INDEX, ring | (H_HEAD if head else 0) | H_RAW) + struct.pack(">I", value)


def h_deliver(ep=0, length=10, handler=1, unasked=False):
    """A message for ep; unasked: the NIC took it without asking rx_space."""
    return h_op(H_DELIVER, ep | (8 if unasked else 0)) + struct.pack(">HB", length, handler)


def h_ctl_poll():
    """A poll a millisecond on: nicd looks at its sockets."""
    return h_op(H_POLL, 10) + bytes([1])


def h_close(keep=False):
    return h_op(H_CLOSE, int(keep))


def h_open(by_hand=False, die=False, bufs=0x1b):
    return h_op(H_OPEN, int(by_hand) | (2 if die else 0)) + bytes([bufs])


def h_select(app, arm=False):
    """Hostile application app acts from now on (and arms its wake-up)."""
    return h_op(H_ARM, app | (0 if arm else 2))


def h_honest_close():
    return h_op(H_CLOSE, 2)


def h_honest_open():
    return h_op(H_OPEN, 4) + b"\x00"


def h_open_race(bufs=0x1b):
    """Both hostile applications die and open by hand in one look."""
    return h_op(H_OPEN, 8) + bytes([bufs])


def h_idle(n):
    """n (1 to 16) connections that never speak."""
    return h_op(H_OPEN, 3) + bytes([n - 1])


def h_hang_up(n):
    """The oldest n (1 to 16) connections that never spoke hang up."""
    return h_op(H_OPEN, 3) + bytes([0x80 | (n - 1)])


def host_seeds():
    """Scripts for fuzz_host: header (buffers, NIC capacity), then records."""
    hdr = bytes([0x1b, 0x07])         # 4 send, 4 receive buffers; NIC holds 8
    joined = bytes([0x5b, 0x07])      # the same, NIC in a cluster of 4
    done = h_op(H_COMPLETE) + b"\x00"
    seeds = {}
    seeds["seed-normal-send"] = (
        joined + h_send() + h_send(bulk=True) + h_poll() + done + done + h_poll() +
        h_op(H_REAP) + h_op(H_HONEST, 1) + b"\x21" + h_poll() + done + h_op(H_HONEST) + b"\x21")
    seeds["seed-receive-and-return"] = (
        hdr + h_deliver(0) + h_deliver(0, 2048) + h_deliver(1) + h_poll() +
        h_op(H_RECV, 1) + h_deliver(0) + h_poll() + h_op(H_RECV) + h_op(H_RETURN) + b"\x00" +
        h_op(H_HONEST) + b"\x01" + h_poll())
    seeds["seed-broken-send-head"] = (
        hdr + h_send() + h_poll() + h_index_raw(H_RING_SEND, True, 0x1000) + h_poll() +
        h_op(H_HONEST) + b"\x01" + h_poll())
    seeds["seed-broken-return-head"] = (
        hdr + h_deliver(0) + h_poll() + h_op(H_RECV) +
        h_index_raw(H_RING_RRET, True, 0x80000000) + h_deliver(0) + h_poll() + h_poll())
    seeds["seed-broken-completion-tail"] = (
        hdr + h_send() + h_poll() + h_index_raw(H_RING_COMP, False, 0x40) +
        done + h_op(H_ARM) + h_poll())
    seeds["seed-bad-buffer-index"] = (
        joined + h_raw_send(3) + h_raw_send(3) + h_raw_send(4) + h_raw_send(0xFFFF) +
        h_raw_send(1, node=9) + h_raw_send(2, chan=0, length=4000) + h_poll() +
        h_op(H_REAP) + h_op(H_RETURN, 8) + b"\x7f\xff" + h_deliver(0) + h_poll())
    seeds["seed-nic-busy-then-refusing"] = (
        bytes([0x1b, 0x00]) + h_send() + h_send() + h_poll() + h_op(H_NIC_MODE, 2) +
        h_poll() + h_op(H_NIC_MODE, 0) + done + h_poll() + h_op(H_REAP))
    # Closing and opening again, which reuses endpoint 0 at once.
    seeds["seed-close-and-reopen"] = (
        joined + h_send() + h_poll() + h_close() + h_ctl_poll() + h_open() +
        h_send(bulk=True) + h_poll() + done + done + h_op(H_REAP) + h_op(H_HONEST) + b"\x01")
    seeds["seed-die-with-sends-in-flight"] = (
        joined + h_open(by_hand=True) + h_send() + h_send(bulk=True) + h_poll() +
        h_close(keep=True) + h_send() + h_poll() + h_ctl_poll() + h_op(H_REAP) +
        h_open(by_hand=True) + h_send() + h_poll() + done + h_op(H_REAP) + h_deliver(0) +
        h_op(H_RECV, 1) + h_op(H_HONEST) + b"\x01")
    seeds["seed-kept-sends-complete-after-reopen"] = (
        joined + h_op(H_NIC_KEEP, 1) + h_send() + h_send(bulk=True) + h_poll() +
        h_close() + h_open() + h_send() + h_poll() + h_op(H_COMPLETE, 8) + b"\x00" +
        h_op(H_REAP) + h_op(H_HONEST) + b"\x01" + h_poll())
    seeds["seed-kept-sends-left-at-the-end"] = (
        hdr + h_op(H_NIC_KEEP, 3) + h_send() + h_poll() + h_close(keep=True) +
        h_send() + h_ctl_poll() + h_open(by_hand=True) + h_send() + h_poll())
    seeds["seed-messages-for-a-gone-endpoint"] = (
        hdr + h_deliver(0) + h_deliver(0) + h_deliver(0) + h_deliver(0) + h_deliver(0, 8) +
        h_deliver(0, 8, unasked=True) + h_poll() + h_close(keep=True) +
        h_deliver(0, 8, unasked=True) + h_ctl_poll() +
        h_deliver(0, 8) + h_open(by_hand=True, bufs=0x09) + h_deliver(0) + h_poll() +
        h_op(H_RECV, 1) + h_op(H_HONEST) + b"\x01")
    # The application rewrites each descriptor while nicd sends it (header
    # byte 1 bit 4): the NIC refuses one, takes one, is full for one.
    seeds["seed-descriptor-rewritten-while-sent"] = (
        bytes([0x5b, 0x17]) + h_op(H_NIC_MODE, 2) + h_send() + h_poll() + h_op(H_REAP) +
        h_op(H_NIC_MODE, 0) + h_send(bulk=True) + h_poll() + done + h_op(H_REAP) +
        h_op(H_NIC_MODE, 1) + h_send() + h_poll() + h_op(H_NIC_MODE, 0) + h_poll() +
        h_op(H_REAP))
    # Opened by hand with a wake-up after 3 events or 200 us, asleep.
    seeds["seed-reopen-with-wake-delay"] = (
        hdr + h_close() + h_open(by_hand=True, bufs=0x9b) + h_deliver(0) + h_send() +
        h_op(H_ARM) + h_poll() + done + h_op(H_POLL, 2) + bytes([1]) + h_deliver(0) +
        h_poll() + h_op(H_RECV, 1) + h_op(H_REAP) + h_op(H_ARM) + h_poll())
    # The honest endpoint closes while the hostile one floods it (messages
    # held back, a send in the NIC: rx_held_closed, sends_cancelled), then
    # opens again, takes its new messages and sends.
    seeds["seed-honest-closes-while-flooded"] = (
        hdr + h_op(H_HONEST) + b"\x01" + h_send() + h_send(bulk=True) + h_poll() +
        h_deliver(1) * 4 + h_deliver(1, unasked=True) * 3 + h_deliver(0) * 3 +
        h_poll() + h_honest_close() + h_send() +
        h_deliver(1) * 2 + h_poll() + h_ctl_poll() + h_deliver(1) + h_honest_open() +
        h_deliver(1) + h_op(H_HONEST, 1) + b"\x21" + h_poll() + done + done + done +
        h_op(H_REAP) + h_op(H_HONEST) + b"\x01")
    # Two hostile applications at once, each acting in turn: application 1
    # opens by hand (endpoint 2), both send, 1 dies with its send in the
    # NIC and writes into its dead mapping, then opens through libsegnet.
    seeds["seed-two-hostile-applications"] = (
        joined + h_select(1) + h_open(by_hand=True) + h_send() + h_select(0) +
        h_send(bulk=True) + h_poll() + done + h_select(1) + h_op(H_REAP) + h_send() +
        h_poll() + h_close(keep=True) + h_send() + h_select(0) + h_op(H_REAP) +
        h_deliver(2) + h_deliver(0) + h_ctl_poll() + h_select(1) + h_open() + h_send() +
        h_poll() + h_op(H_COMPLETE, 8) + b"\x00" + h_op(H_REAP) + h_select(1, arm=True) +
        h_poll())
    # Both die and open again by hand in one look, wanting the same id.
    seeds["seed-two-applications-race-for-an-id"] = (
        hdr + h_select(1) + h_open(by_hand=True) + h_send() + h_poll() + h_open_race() +
        h_send() + h_poll() + done + h_op(H_REAP) + h_select(0) + h_send() + h_poll() +
        done + h_op(H_REAP) + h_deliver(0) + h_deliver(2) + h_poll())
    # Connections that never speak: 16 fill nicd's pending slots, more are
    # evicted for (open_evicted), opens by hand, through libsegnet and the
    # honest endpoint's still get in; some hang up; the rest expire (5 s).
    seeds["seed-idle-connections-evicted"] = (
        hdr + h_idle(16) + h_ctl_poll() + h_idle(8) + h_ctl_poll() + h_ctl_poll() +
        h_open(by_hand=True) + h_idle(16) + h_open() + h_hang_up(4) + h_ctl_poll() +
        h_idle(16) + h_honest_close() + h_honest_open() + h_op(H_HONEST) + b"\x01" +
        (h_op(H_POLL, 15) + b"\xff") * 14 + h_ctl_poll())
    # An application gone between its OPEN and the answer: counted as
    # opened and never closed (host::an_application_gone_before_the_reply_opened_nothing).
    seeds["regress-open-reply-to-a-gone-application"] = hdr + h_open(die=True)
    # What fuzz_host found: the poll that closed endpoint 0 for its send
    # ring skipped endpoint 1 (doc/endpoints.md, Trust).
    seeds["regress-broken-ring-skips-next-endpoint"] = (
        hdr + h_index_raw(H_RING_SEND, True, 0x1000) + h_op(H_HONEST) + b"\x01" + h_poll())
    return seeds


def write(folder, seeds, replace=True):
    """Replace folder's seed-* files with seeds (regress-* ones: overwritten); add them if not replace."""
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder) if replace else ():
        if old.startswith("seed-"):
            os.remove(os.path.join(folder, old))
    for name, data in seeds.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


def main():
    """Write the corpora under tests/fuzz/corpus/ (or, --large-trace DIR, the large seeds into DIR)."""
    if len(sys.argv) == 3 and sys.argv[1] == "--large-trace":
        write(sys.argv[2], trace_large_seeds(), replace=False)
        return 0
    if len(sys.argv) != 1:
        print("usage: seeds.py [--large-trace DIR]", file=sys.stderr)
        return 2
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    write(os.path.join(top, "fabric"), fabric_seeds())
    write(os.path.join(top, "nic"), nic_seeds())
    write(os.path.join(top, "trace"), trace_seeds())
    write(os.path.join(top, "host"), host_seeds())
    return 0


if __name__ == "__main__":
    sys.exit(main())
