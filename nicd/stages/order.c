/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * order: delivers each connection's packets in packet-number order. In
 * go-back-N mode a packet that is not the next expected one is discarded
 * (its header still triggers an ack, and the sender goes back). In
 * selective-repeat mode it is kept in a reorder buffer of `buffer` packets
 * and recorded as received, so only the lost packets are resent; when the
 * gap fills, the buffered packets follow in order. While the NIC is short of
 * descriptors or frames (env.rx_tight) an out-of-order packet is discarded
 * instead of kept: held packets must not take what the gap's packet needs.
 */
#include <stdlib.h>
#include <string.h>

#include "stages.h"

/* Modes (parameter mode). */
enum order_mode {
	ORDER_SR,
	ORDER_GBN,
};

static const char *const order_mode_names[] = { "sr", "gbn", NULL };

static const struct stage_param order_params[] = {
	{ "mode", "sr = buffer out-of-order packets, gbn = discard them",
	  0, 1, ORDER_SR, order_mode_names },
	{ "buffer", "reorder-buffer packets per connection (sr)",
	  1, PROTO_SACK_BITS, PROTO_SACK_BITS, NULL },
	{ NULL, NULL, 0, 0, 0, NULL },
};

/* Counters. */
enum order_counter {
	ORDER_IN_ORDER,
	ORDER_BUFFERED,
	ORDER_RELEASED,
	ORDER_DISCARDED,
	ORDER_BUFFER_FULL,
	ORDER_TIGHT,
};

static const char *const order_counter_names[] = {
	"in_order", "buffered", "released", "discarded_out_of_order",
	"buffer_full", "discarded_short_of_descriptors", NULL,
};

/* Per-connection state. */
struct order_conn {
	uint32_t next;				/* number to deliver next */
	struct sn_pkt *buf[PROTO_SACK_BITS];	/* buf[i]: packet next + 1 + i */
};

int64_t order_sr_buffer(const struct stage *order)
{
	return order->param[0] == ORDER_SR ? order->param[1] : 0;
}

/* Order needs numbers, duplicates removed before it, and its decisions recorded after it. */
static int order_init(struct stage *st, char *err, size_t errlen)
{
	if (!stage_below(st, "genp")) {
		snprintf(err, errlen, "stage order needs genp below it (nothing numbers the packets)");
		return -EINVAL;
	}
	if (!stage_below(st, "dup_find")) {
		snprintf(err, errlen, "stage order needs dup_find below it");
		return -EINVAL;
	}
	if (!stage_above(st, "build_acks")) {
		snprintf(err, errlen, "stage order needs build_acks above it (it must record "
			 "only what order keeps, or a discarded packet is acknowledged and never resent)");
		return -EINVAL;
	}
	return 0;
}

/* Numbering starts at 1. */
static void order_conn_init(struct stage *st, struct sn_conn *c)
{
	struct order_conn *oc = stage_conn(st, c);

	oc->next = 1;
}

/* Pass one packet up on its own. */
static void order_up(struct stage *st, struct sn_pkt *p, uint64_t now)
{
	stage_pass_up(st, &p, 1, now);
}

/* Discard a packet's data; its header still reaches build_acks. */
static void order_discard(struct sn_pkt *p)
{
	rte_pktmbuf_free(p->m);
	p->m = NULL;
	p->flags |= SN_PKT_HDR_ONLY;
}

/* Advance next by one: the buffer shifts so buf[0] is next + 1 again. */
static struct sn_pkt *order_advance(struct order_conn *oc)
{
	struct sn_pkt *now_next = oc->buf[0];

	memmove(oc->buf, oc->buf + 1, sizeof(oc->buf) - sizeof(oc->buf[0]));
	oc->buf[PROTO_SACK_BITS - 1] = NULL;
	oc->next = proto_seq_add(oc->next, 1);
	return now_next;
}

/* Deliver p (the next expected) and the buffered packets it unblocks. */
static void order_deliver(struct stage *st, struct order_conn *oc,
			  struct sn_pkt *p, uint64_t now)
{
	struct sn_pkt *b;

	st->cnt[ORDER_IN_ORDER]++;
	order_up(st, p, now);
	for (b = order_advance(oc); b; b = order_advance(oc)) {
		b->flags = (uint16_t)((b->flags & ~SN_PKT_BUFFERED) | SN_PKT_RECORDED);
		st->cnt[ORDER_RELEASED]++;
		order_up(st, b, now);
	}
}

/* True when the NIC is too short of descriptors or frames to hold a packet. */
static bool order_tight(const struct stage *st)
{
	const struct pipeline_env *env = &st->pl->env;

	return env->rx_tight && env->rx_tight(env->ctx);
}

/* One data packet. */
static void order_one(struct stage *st, struct sn_pkt *p, uint64_t now)
{
	struct order_conn *oc = stage_conn(st, p->conn);
	int32_t d = proto_seq_diff(p->h.pkt_num, oc->next);

	if (p->flags & SN_PKT_HDR_ONLY) {
		order_up(st, p, now);
		return;
	}
	if (d == 0) {
		order_deliver(st, oc, p, now);
		return;
	}
	if (d <= 0 || st->param[0] != ORDER_SR) {
		st->cnt[ORDER_DISCARDED]++;
	} else if (d > st->param[1] || oc->buf[d - 1] ||
		   sn_conn_rx_beyond(p->conn, p->h.pkt_num)) {
		/* Beyond the ack mask, build_acks did not record it: nor may order keep it. */
		st->cnt[ORDER_BUFFER_FULL]++;
	} else if (order_tight(st)) {
		st->cnt[ORDER_TIGHT]++;
	} else {
		oc->buf[d - 1] = p;
		p->flags |= SN_PKT_BUFFERED;
		st->cnt[ORDER_BUFFERED]++;
		order_up(st, p, now);	/* recorded above, not delivered */
		return;
	}
	order_discard(p);
	order_up(st, p, now);
}

/* Receive: everything leaves through order_up, in order. */
static uint16_t order_rx(struct stage *st, struct sn_pkt **pkts, uint16_t n,
			 uint64_t now)
{
	for (uint16_t i = 0; i < n; i++) {
		if (pkts[i]->h.flags & PROTO_F_DATA)
			order_one(st, pkts[i], now);
		else
			order_up(st, pkts[i], now);
	}
	return 0;
}

/* A packet for ep after n waits in c's reorder buffer (it will be delivered). */
static bool order_holds_later(struct stage *st, struct sn_conn *c, uint16_t ep, uint32_t n)
{
	struct order_conn *oc = stage_conn(st, c);

	for (int i = 0; i < PROTO_SACK_BITS; i++)
		if (oc->buf[i] && oc->buf[i]->h.dst_ep == ep &&
		    !(oc->buf[i]->h.flags & PROTO_F_ABANDONED) &&
		    proto_seq_lt(n, oc->buf[i]->h.pkt_num))
			return true;
	return false;
}

/* Drop the reorder buffer of c. */
static void order_flush(struct stage *st, struct sn_conn *c)
{
	struct order_conn *oc = stage_conn(st, c);

	for (int i = 0; i < PROTO_SACK_BITS; i++) {
		if (oc->buf[i])
			st->pl->env.release(st->pl->env.ctx, oc->buf[i]);
		oc->buf[i] = NULL;
	}
	oc->next = 1;
}

/* A reset peer starts again from packet 1. */
static void order_event(struct stage *st, struct sn_conn *c, enum stage_event ev,
			struct sn_pkt *pkt, uint64_t now)
{
	(void)pkt;
	(void)now;
	if (ev == STAGE_EV_RESET)
		order_flush(st, c);
}

const struct stage_ops stage_order = {
	.name = "order",
	.help = "delivers in packet-number order (go-back-N or selective repeat)",
	.params = order_params,
	.counter_names = order_counter_names,
	.conn_size = sizeof(struct order_conn),
	.init = order_init,
	.rx = order_rx,
	.event = order_event,
	.holds_later = order_holds_later,
	.conn_init = order_conn_init,
	.conn_fini = order_flush,
};
