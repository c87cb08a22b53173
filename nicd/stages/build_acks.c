/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * build_acks: records which packet numbers arrived (the connection's ack
 * base and 32-bit selective-ack mask, which xmit piggybacks on every frame
 * to the peer) and decides when an acknowledgment must leave on its own: once
 * `threshold` quick packets are unacknowledged, when the sender asks
 * (FORCE_ACK, set on retransmissions), when a duplicate or a discarded packet
 * arrives (so a retransmission of something already received is answered
 * with a fresh ack), or after `delay_ns`. Bulk packets need none: their BACK
 * carries the acknowledgment.
 */
#include "stages.h"

static const struct stage_param build_acks_params[] = {
	{ "threshold", "unacknowledged quick packets that force an ack",
	  1, PROTO_SACK_BITS, 1, NULL },
	{ "delay_ns", "longest time a received packet waits for its ack",
	  0, 1000000000LL, 20000, NULL },
	{ NULL, NULL, 0, 0, 0, NULL },
};

/* Counters. */
enum build_acks_counter {
	BA_RECORDED,
	BA_DUPLICATES,
	BA_BEYOND,
	BA_FORCED,
	BA_THRESHOLD,
	BA_DELAYED,
};

static const char *const build_acks_counter_names[] = {
	"recorded", "duplicates", "beyond_window", "forced_acks",
	"threshold_acks", "delayed_acks", NULL,
};

/* Per-connection state: the list of connections owing a delayed ack. */
struct build_acks_conn {
	struct sn_conn *next_owing;	/* next on the owing list */
	uint8_t owing;			/* on that list */
	bool dup_owed;			/* the ack leaving now names a copy: dup_num */
	uint32_t dup_num;		/* the number of a quick packet received again */
};

/* Per-pipeline state. */
struct build_acks_priv {
	struct sn_conn *owing;		/* connections with unacked packets */
};

/*
 * The threshold must fit in genp's window (bounded by order's buffer), or
 * acks would never be forced.
 */
static int build_acks_init(struct stage *st, char *err, size_t errlen)
{
	struct stage *genp = stage_below(st, "genp");
	int64_t window;

	if (!genp) {
		snprintf(err, errlen, "stage build_acks needs genp below it (packets must be numbered)");
		return -EINVAL;
	}
	window = genp_window(genp);
	if (stage_param(st, "threshold") > window) {
		snprintf(err, errlen, "build_acks threshold=%lld is larger than genp window=%lld%s",
			 (long long)stage_param(st, "threshold"), (long long)window,
			 window < stage_param(genp, "window") ? " (order buffer + 1)" : "");
		return -EINVAL;
	}
	return 0;
}

/* Mark packet number n received in c's state. */
static void build_acks_record(struct sn_conn *c, uint32_t n)
{
	int32_t d = proto_seq_diff(n, c->rx_base);

	c->rx_mask |= 1u << (d - 1);
	while (c->rx_mask & 1) {
		c->rx_base = proto_seq_add(c->rx_base, 1);
		c->rx_mask >>= 1;
	}
}

/*
 * Send a standalone acknowledgment to c's peer now; one that answers a copy
 * names it (PROTO_F_DUP), so that its sender learns the copy was needless
 * if an earlier ack completed the packet (genp; doc/protocol.md, late
 * acknowledgments).
 */
static void build_acks_send(struct stage *st, struct sn_conn *c, uint64_t now)
{
	struct build_acks_conn *bc = stage_conn(st, c);
	struct sn_pkt *a = pipeline_ack_only(st->pl, c);

	if (a && bc->dup_owed) {
		a->h.flags |= PROTO_F_DUP;
		a->h.pkt_num = bc->dup_num;
	}
	bc->dup_owed = false;
	if (!a)
		return;		/* the sender's timer will ask again */
	stage_pass_down(st, &a, 1, now);
}

/*
 * Quick packet p is a copy of one received already: the ack it causes
 * names it. An ack names one copy, so one owed for another copy of the
 * same burst leaves first.
 */
static void build_acks_dup(struct stage *st, const struct sn_pkt *p, uint64_t now)
{
	struct build_acks_conn *bc = stage_conn(st, p->conn);

	if (bc->dup_owed && bc->dup_num != p->h.pkt_num)
		build_acks_send(st, p->conn, now);
	bc->dup_owed = true;
	bc->dup_num = p->h.pkt_num;
}

/* Put c on the list of connections owing an ack. */
static void build_acks_owe(struct stage *st, struct sn_conn *c)
{
	struct build_acks_priv *priv = st->priv;
	struct build_acks_conn *bc = stage_conn(st, c);

	if (bc->owing)
		return;
	bc->owing = 1;
	bc->next_owing = priv->owing;
	priv->owing = c;
}

/* Record one data packet; true when an ack must leave at once. */
static bool build_acks_one(struct stage *st, struct sn_pkt *p, uint64_t now)
{
	struct sn_conn *c = p->conn;
	bool bulk = p->chan == SN_CHAN_BULK;

	if (p->flags & SN_PKT_RECORDED)
		return false;
	/* Recorded already (dup_find may have dropped its data): a copy. */
	if (sn_conn_rx_has(c, p->h.pkt_num)) {
		st->cnt[BA_DUPLICATES] += !(p->flags & SN_PKT_HDR_ONLY);
		if (!bulk)
			build_acks_dup(st, p, now);
		return !bulk;
	}
	if (p->flags & SN_PKT_HDR_ONLY)
		return !bulk;
	if (sn_conn_rx_beyond(c, p->h.pkt_num)) {
		st->cnt[BA_BEYOND]++;
		rte_pktmbuf_free(p->m);
		p->m = NULL;
		p->flags |= SN_PKT_HDR_ONLY;
		return !bulk;
	}
	build_acks_record(c, p->h.pkt_num);
	st->cnt[BA_RECORDED]++;
	if (bulk)
		return false;
	if (c->rx_unacked++ == 0)
		c->rx_first_unacked = now;
	if (p->h.flags & PROTO_F_FORCE_ACK) {
		st->cnt[BA_FORCED]++;
		return true;
	}
	if (c->rx_unacked >= (uint32_t)st->param[0]) {
		st->cnt[BA_THRESHOLD]++;
		return true;
	}
	build_acks_owe(st, c);
	return false;
}

/* Receive: record and acknowledge; everything continues up. */
static uint16_t build_acks_rx(struct stage *st, struct sn_pkt **pkts, uint16_t n,
			      uint64_t now)
{
	for (uint16_t i = 0; i < n; i++) {
		struct sn_pkt *p = pkts[i];

		if ((p->h.flags & PROTO_F_DATA) && build_acks_one(st, p, now))
			p->conn->ack_now = 1;
	}
	for (uint16_t i = 0; i < n; i++) {
		struct sn_conn *c = pkts[i]->conn;

		if (c->ack_now) {
			c->ack_now = 0;
			build_acks_send(st, c, now);
		}
	}
	return n;
}

/* Delayed acks: connections whose oldest unacked packet waited too long. */
static uint64_t build_acks_tick(struct stage *st, uint64_t now)
{
	struct build_acks_priv *priv = st->priv;
	uint64_t delay = (uint64_t)st->param[1], next = UINT64_MAX;
	struct sn_conn **link = &priv->owing;

	while (*link) {
		struct sn_conn *c = *link;
		struct build_acks_conn *bc = stage_conn(st, c);

		if (!c->rx_unacked) {
			*link = bc->next_owing;
			bc->owing = 0;
			continue;
		}
		if (now >= c->rx_first_unacked + delay) {
			st->cnt[BA_DELAYED]++;
			*link = bc->next_owing;
			bc->owing = 0;
			build_acks_send(st, c, now);
			continue;
		}
		if (c->rx_first_unacked + delay < next)
			next = c->rx_first_unacked + delay;
		link = &bc->next_owing;
	}
	return next;
}

const struct stage_ops stage_build_acks = {
	.name = "build_acks",
	.help = "records received packets, piggybacks and forces acknowledgments",
	.params = build_acks_params,
	.counter_names = build_acks_counter_names,
	.priv_size = sizeof(struct build_acks_priv),
	.conn_size = sizeof(struct build_acks_conn),
	.init = build_acks_init,
	.rx = build_acks_rx,
	.tick = build_acks_tick,
};
