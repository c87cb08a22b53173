/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet descriptor that travels through a NIC: on transmit from the
 * application's send until completion, on receive from the frame until
 * delivery. Its header fields are a struct proto_pkt in host order; only the
 * egress and ingress stages turn it into or out of a frame.
 */
#ifndef SEGNET_PKT_H
#define SEGNET_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>

#include "proto/proto.h"

/* The two channels. */
enum sn_chan {
	SN_CHAN_BULK = 0,
	SN_CHAN_QUICK = 1,
	SN_CHAN_COUNT = 2,
};

/* Completion status of a transmitted packet. */
enum sn_status {
	SN_OK = 0,		/* delivered (reliable) or sent (unreliable) */
	SN_ERR_LOST = 1,	/* unreliable configuration: the frame was lost */
	SN_ERR_RETRIES = 2,	/* reliable: retransmission limit reached */
	SN_ERR_DOWN = 3,	/* the target node is down */
	SN_ERR_RESET = 4,	/* the connection was reset */
	SN_ERR_CANCELLED = 5,	/* its sender closed before it was done (nic_cancel) */
};

/* State bits of a packet. */
enum sn_pkt_flag {
	SN_PKT_HELD = 1u << 0,		/* tx: genp keeps it until acknowledged */
	SN_PKT_IN_CHAN = 1u << 1,	/* tx: the channel holds it */
	SN_PKT_ACKED = 1u << 2,		/* tx: acknowledged end to end */
	SN_PKT_HDR_ONLY = 1u << 3,	/* rx: data dropped below; ack it again */
	SN_PKT_BUFFERED = 1u << 4,	/* rx: order keeps it; record, don't deliver */
	SN_PKT_RECORDED = 1u << 5,	/* rx: already recorded by build_acks */
	SN_PKT_ACK_ONLY = 1u << 6,	/* tx: a standalone acknowledgment */
	SN_PKT_SENDING = 1u << 7,	/* tx: the channel will send it or awaits its BACK */
	SN_PKT_SACKED = 1u << 8,	/* tx: its receiver holds it behind a hole (genp) */
	SN_PKT_UNSENT = 1u << 9,	/* tx: go-back-N genp keeps it until it may leave
					 * in number order (genp_may_leave) */
};

struct sn_conn;

/* Boot nonces of a peer's earlier processes a connection remembers (their FRESH frames are stale). */
#define SN_OLD_NONCES 4

/*
 * How far (either way) a frame's epoch may be from its connection's to be
 * compared with it when the frame does not name the pair of processes;
 * farther, it is of another pair (doc/protocol.md, connection epochs).
 */
#define SN_EPOCH_REACH 32

/* Endpoints of this node a connection refuses data for at once (doc/protocol.md, push-back). */
#define SN_RX_BLOCKS 8

/*
 * A receive-side block: data of the connection for endpoint ep numbered from
 * `from` on (up to `until`, once bounded) is refused, REFUSED, and its
 * sender sends those messages again under later numbers.
 */
struct sn_rx_block {
	uint32_t from;			/* the lowest number refused (moves up with rx_base) */
	uint32_t until;			/* bounded: the first number not refused */
	uint32_t refused_max;		/* the highest number refused so far */
	uint16_t ep;			/* the endpoint */
	bool used;			/* the entry is in use */
	bool bounded;			/* until is known (a REFUSED marker said it) */
};

/* What a connection knows of its peer's FRESH frames (pipeline_rx_fresh). */
enum sn_fresh_seen {
	SN_FRESH_NONE,		/* none taken */
	SN_FRESH_CURRENT,	/* fresh_nonce's taken since the last restart */
	SN_FRESH_RETIRED,	/* fresh_nonce's taken before it: such frames are stale */
};

/*
 * A packet in the NIC. Its descriptors are recycled (nic_desc_alloc) and
 * not cleared whole; it is in four parts, in this order, which the asserts
 * below keep: the header h, which the packet's maker supplies in full;
 * args, which only a packet whose h.args points there uses, and whose
 * maker then fills all of it (otherwise it keeps a former packet's bytes);
 * m, NULL on every free descriptor (its frame is freed with it); and the
 * state, from conn to the end, zero when the packet is made. A new field
 * goes into the state.
 */
struct sn_pkt {
	struct proto_pkt h;		/* header fields, host order */
	uint8_t args[PROTO_ARGS_LEN];	/* tx: arguments (h.args points here) */
	struct rte_mbuf *m;		/* rx: the frame args/payload point into */
	struct sn_conn *conn;		/* connection (vnet, peer) */
	struct sn_pkt *next;		/* link in the list of whoever holds it */
	struct sn_pkt *cnext;		/* link in a channel queue */
	struct sn_pkt *cprev;		/* back link in a channel queue */
	void *cookie;			/* tx: the sender's handle for completion */
	uint64_t t_gen;			/* tx: when the application sent it */
	uint64_t t_first_tx;		/* tx: first transmission started */
	uint64_t t_tx;			/* tx: last transmission started */
	uint32_t slot;			/* tx bulk: slot of the last transmission */
	uint16_t tx_count;		/* tx: transmissions so far (at most UINT16_MAX) */
	uint16_t tries;			/* tx: transmissions of its message under earlier
					 * numbers (refused by its endpoint: genp) */
	uint16_t untaken;		/* tx: of tx_count, those sent FRESH that its
					 * receiver's WELCOME showed it did not take */
	uint16_t flags;			/* enum sn_pkt_flag */
	uint8_t chan;			/* enum sn_chan */
	uint8_t cq;			/* which channel queue holds it (NIC private) */
};

/* Where a packet's state starts: it runs to the end (struct sn_pkt). */
enum { SN_PKT_STATE_OFF = offsetof(struct sn_pkt, conn) };

_Static_assert(offsetof(struct sn_pkt, h) == 0 &&
	       offsetof(struct sn_pkt, args) == sizeof(struct proto_pkt) &&
	       offsetof(struct sn_pkt, m) == sizeof(struct proto_pkt) + PROTO_ARGS_LEN &&
	       SN_PKT_STATE_OFF == offsetof(struct sn_pkt, m) + sizeof(struct rte_mbuf *),
	       "struct sn_pkt: header, args, frame, then the state");

/*
 * A connection: one (virtual network, peer node) pair of a pipeline. The
 * standard fields are the packet-number state both directions share; each
 * stage's own state follows at its offset.
 */
struct sn_conn {
	uint16_t peer;			/* peer node id */
	uint16_t vnet;			/* virtual network */
	struct pipeline *pl;		/* owner */
	/* incarnation: every frame carries it (pipeline_rx_epoch, doc/protocol.md) */
	uint16_t epoch;			/* current epoch; a reset here may move it on */
	bool epoch_known;		/* set by a reset or the first frame of the peer */
	bool epoch_adopted;		/* known from the peer's frame while this end
					 * knew none (its process is new); a restart clears it */
	bool rx_heard;			/* a frame of the peer taken since the last restart */
	uint8_t fresh_seen;		/* enum sn_fresh_seen: what fresh_nonce is */
	uint16_t fresh_nonce;		/* boot nonce of the peer's FRESH frames taken */
	uint16_t old_nonces[SN_OLD_NONCES];	/* nonces of the peer's earlier processes */
	uint8_t n_old_nonces;		/* how many (the newest last) */
	bool named;			/* a notice since the last restart named
					 * the peer's process: named_nonce */
	uint16_t named_nonce;		/* its boot nonce */
	/* transmit side: maintained by genp */
	uint32_t tx_next;		/* next packet number to assign */
	struct sn_pkt *unacked;		/* numbered, unacknowledged, oldest first */
	struct sn_pkt *unacked_tail;	/* last of that list */
	uint32_t outstanding;		/* packets on that list */
	uint32_t never_sent;		/* of those, not sent yet (tx_count 0; also
					 * kept by sn_pkt_sent): with none, an ack
					 * below tx_next contradicts nothing
					 * (pipeline_rx_ack_base) */
	uint64_t tx_unscanned;		/* first transmission, or ack progress, since
					 * the timer's last look at this connection
					 * (0: none) */
	uint32_t srtt_ns;		/* smoothed round-trip time (0: no sample yet) */
	uint32_t rttvar_ns;		/* its mean deviation */
	uint32_t rto_floor_ns;		/* shortest wait, as late acks showed it at
					 * rto_floor_at (sn_conn_rto_floor) */
	uint64_t rto_floor_at;		/* when */
	uint8_t rto_backoff;		/* timeouts since the last sample: the wait doubles */
	/* receive side: maintained by build_acks, read by dup_find and xmit */
	uint32_t rx_base;		/* last packet received in sequence */
	uint32_t rx_mask;		/* bit i: rx_base + 1 + i received */
	uint32_t rx_unacked;		/* data received since the last ack left */
	uint64_t rx_first_unacked;	/* when the oldest of those arrived */
	uint8_t ack_now;		/* an ack must leave at once */
	struct sn_rx_block rx_blocks[SN_RX_BLOCKS];	/* endpoints refused (nicd's ingress) */
	uint8_t rx_blocks_used;		/* entries of rx_blocks in use (nicd/refuse.c;
					 * a restart clears both): with none, the
					 * usual case, nothing scans them */
	uint8_t on_active;		/* on the pipeline's active list */
	struct sn_conn *active_next;	/* next on that list */
	/* bulk channel: maintained by the NIC's channel layer */
	uint64_t bulk_hold_until;	/* held back from send buffers until then
					 * (its peer refused a BREQ) */
	uint16_t bulk_hold_slots;	/* that hold's length: doubles while refused */
	/* quick channel: maintained by the NIC's channel layer */
	uint16_t quick_held;		/* quick send buffers its packets hold */
	uint16_t quick_overdue;		/* of those, held by packets overdue: sent
					 * several times, still waiting for their
					 * ack (the NIC may take them back) */
	_Alignas(8) unsigned char priv[];	/* stage states */
};

/* The pipeline must tick at its next pipeline_tick (dataplane/stage.c). */
void pipeline_touch(struct pipeline *pl);

/*
 * True when pkt has left and waits for nothing but its acknowledgment: not
 * being sent or about to be, and not acknowledged by mask already (its
 * receiver holds it).
 */
static inline bool sn_pkt_awaits_ack(const struct sn_pkt *pkt)
{
	return pkt->tx_count &&
	       !(pkt->flags & (SN_PKT_SENDING | SN_PKT_SACKED | SN_PKT_UNSENT));
}

/*
 * Record that pkt started to leave at now: egress (xmit) calls it for every
 * data frame, so the timer knows what to watch.
 */
static inline void sn_pkt_sent(struct sn_pkt *pkt, uint64_t now)
{
	if (pkt->tx_count == 0) {
		pkt->t_first_tx = now;
		if (pkt->flags & SN_PKT_HELD)	/* on its connection's unacked list */
			pkt->conn->never_sent--;
	}
	/* It stays at its top rather than wrap to 0, "never sent". */
	if (pkt->tx_count < UINT16_MAX)
		pkt->tx_count++;
	pkt->t_tx = now;
	if (!pkt->conn)
		return;
	if (!pkt->conn->tx_unscanned)
		pkt->conn->tx_unscanned = now ? now : 1;
	pipeline_touch(pkt->conn->pl);
}

/*
 * pkt's transmissions that count against the retry limit: its message's
 * under earlier numbers and its own, less those its receiver did not take.
 */
static inline uint32_t sn_pkt_tries(const struct sn_pkt *pkt)
{
	return (uint32_t)pkt->tries + pkt->tx_count - pkt->untaken;
}

/*
 * Add a round-trip sample to conn (Jacobson/Karels: gains 1/8 and 1/4).
 * genp calls it for packets acknowledged after one transmission (Karn), or
 * after more when a DUP ack showed the ack answered the first copy (a late
 * ack, under timer:late_floor=on).
 */
static inline void sn_conn_rtt_sample(struct sn_conn *c, uint64_t rtt)
{
	uint32_t r = rtt > UINT32_MAX ? UINT32_MAX : (uint32_t)rtt;

	c->rto_backoff = 0;
	if (!c->srtt_ns) {
		c->srtt_ns = r;
		c->rttvar_ns = r / 2;
		return;
	}
	/* In 64 bits: 7 * srtt passes 32 bits from srtt = 0.61 s. */
	c->rttvar_ns = (uint32_t)((3ull * c->rttvar_ns +
				   (r > c->srtt_ns ? r - c->srtt_ns : c->srtt_ns - r)) / 4);
	c->srtt_ns = (uint32_t)((7ull * c->srtt_ns + r) / 8);
}

/* The floor late acks set halves every this long (sn_conn_rto_floor). */
enum { SN_RTO_FLOOR_HALF_LIFE_NS = 64 * 1000 * 1000 };

/*
 * The shortest wait for an ack on c at now: what late acks showed
 * (sn_conn_late_ack), halved for every SN_RTO_FLOOR_HALF_LIFE_NS since.
 */
static inline uint64_t sn_conn_rto_floor(const struct sn_conn *c, uint64_t now)
{
	uint64_t halvings;

	if (!c->rto_floor_ns)
		return 0;	/* none shown (always, under late_floor=off): no division */
	halvings = now > c->rto_floor_at ?
		   (now - c->rto_floor_at) / SN_RTO_FLOOR_HALF_LIFE_NS : 0;
	return halvings >= 32 ? 0 : c->rto_floor_ns >> halvings;
}

/*
 * An ack came late, not lost: a packet's first copy was answered after rtt,
 * when the wait had expired and a needless copy had left. A round trip
 * longer than the floor raises it to rtt, or to twice the floor (one that
 * outgrows the wait again and again raises it fast), at most 2 rtt. One
 * the floor covers changes nothing: the timer caps the floor at
 * timeout_ns, so such late acks kept coming and doubled it without bound.
 * genp calls it under timer:late_floor=on (doc/protocol.md, late
 * acknowledgments).
 */
static inline void sn_conn_late_ack(struct sn_conn *c, uint64_t rtt, uint64_t now)
{
	uint64_t f = sn_conn_rto_floor(c, now);

	if (rtt <= f)
		return;
	f = 2 * f < rtt ? rtt : 2 * f;
	c->rto_floor_ns = f > UINT32_MAX ? UINT32_MAX : (uint32_t)f;
	c->rto_floor_at = now;
}

/*
 * Make p the marker of its packet number: a QREQ without data, handler or
 * arguments, owned by no application, that the receiver takes in order
 * and does not deliver (PROTO_F_ABANDONED; doc/protocol.md, giving up a
 * message). Its addresses, number and transmission state stay.
 */
static inline void sn_pkt_make_marker(struct sn_pkt *p)
{
	p->h.type = PROTO_T_QREQ;
	p->h.flags = PROTO_F_DATA | PROTO_F_LAST | PROTO_F_ABANDONED;
	p->h.handler = 0;
	p->h.payload = NULL;
	p->h.payload_len = 0;
	memset(p->args, 0, sizeof(p->args));
	p->h.args = p->args;
	p->chan = SN_CHAN_QUICK;
	p->cookie = NULL;
}

/*
 * The standalone ack a (SN_PKT_ACK_ONLY) answers a copy of packet
 * a->h.pkt_num, received already (PROTO_F_DUP, set by build_acks): name
 * it in the header h xmit builds for a, when h's acknowledgment covers it
 * (always, unless the connection restarted since; the decoder insists).
 */
static inline void sn_ack_name_dup(const struct sn_pkt *a, struct proto_pkt *h)
{
	if (!(a->h.flags & PROTO_F_DUP) || !(h->flags & PROTO_F_ACK) ||
	    (h->flags & PROTO_F_FRESH) ||
	    !proto_ack_covers(a->h.pkt_num, h->ack_base, h->ack_mask))
		return;
	h->flags |= PROTO_F_DUP;
	h->pkt_num = a->h.pkt_num;
}

/* True when packet number n is already recorded in conn's receive state. */
static inline bool sn_conn_rx_has(const struct sn_conn *c, uint32_t n)
{
	int32_t d = proto_seq_diff(n, c->rx_base);

	if (d <= 0)
		return true;
	if (d > PROTO_SACK_BITS)
		return false;
	return (c->rx_mask >> (d - 1)) & 1;
}

/* True when n is too far ahead of conn's receive state to be recorded. */
static inline bool sn_conn_rx_beyond(const struct sn_conn *c, uint32_t n)
{
	return proto_seq_diff(n, c->rx_base) > PROTO_SACK_BITS;
}

#endif
