/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The protocol stages, driven directly: two pipelines (node 0 and node 1)
 * joined by a test "wire" that does what xmit and split would do (numbers,
 * acks and the connection's epoch copied into a header, FORCE_ACK on
 * retransmissions, the epoch checked on arrival) and lets a test drop or
 * hold any frame. Covers packet-number wrap, the selective-ack
 * mask, forced and delayed acks, the timer, duplicates, the reorder buffer,
 * go-back-N, the window, the retry limit, pacing, configuration errors and
 * the standard configurations. No randomness: every case is scripted.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nicd/conf.h"
#include "nicd/stages/stages.h"
#include "test_doc_util.h"

enum {
	T_MAX = 4096,	/* frames on the wire, deliveries, completions */
	T_VNET = 1,	/* the virtual network of every pipeline */
};

/* A frame on the test wire. */
struct t_frame {
	struct proto_pkt h;	/* header as xmit would build it */
	uint8_t chan;		/* enum sn_chan */
	uint8_t from;		/* sending node */
	uint8_t to;		/* receiving node */
	uint64_t t;		/* when it left */
};

struct t_net;

/* One node: its pipeline and what happened at it. */
struct t_side {
	struct t_net *net;		/* the test network */
	uint8_t id;			/* node id (0 or 1) */
	struct pipeline *pl;		/* its pipeline */
	uint32_t deliv[T_MAX];		/* packet numbers delivered, in order */
	int n_deliv;			/* entries in deliv */
	uint32_t done[T_MAX];		/* packet numbers completed, in order */
	int done_status[T_MAX];		/* their status */
	int n_done;			/* entries in done */
	uint64_t sink_t[T_MAX];		/* when data packets reached the sink */
	int n_sink;			/* entries in sink_t */
	int released_hdr_only;		/* packets released with their data dropped */
	int n_abandoned;		/* markers of given-up messages taken */
	bool tight;			/* what rx_tight answers */
	uint16_t deliv_h[T_MAX];	/* handler (message id) of each delivery */
	uint16_t done_h[T_MAX];		/* handler (message id) of each completion */
	bool alloc_fails;		/* env.alloc answers NULL (no descriptor) */
};

/* Two nodes and the wire between them. */
struct t_net {
	struct t_side side[2];		/* node 0 and node 1 */
	struct t_frame wire[T_MAX];	/* frames sent, in order */
	int n_wire;			/* frames put on the wire */
	int next_wire;			/* next frame to hand over */
	uint64_t now;			/* the injected clock */
	int live;			/* descriptors allocated, not released */
};

/* A zeroed descriptor. */
static struct sn_pkt *t_pkt_new(struct t_net *net)
{
	struct sn_pkt *p = calloc(1, sizeof(*p));

	cr_assert_not_null(p);
	net->live++;
	return p;
}

/* Free a descriptor. */
static void t_pkt_free(struct t_net *net, struct sn_pkt *p)
{
	cr_assert_null(p->m, "descriptors of this test never hold an mbuf");
	net->live--;
	free(p);
}

/* Put a frame on the wire. */
static void t_wire_put(struct t_net *net, uint8_t from, const struct proto_pkt *h,
		       uint8_t chan)
{
	struct t_frame *f;

	cr_assert_lt(net->n_wire, T_MAX, "wire full");
	f = &net->wire[net->n_wire++];
	f->h = *h;
	f->h.args = NULL;
	f->chan = chan;
	f->from = from;
	f->to = (uint8_t)(1 - from);
	f->t = net->now;
}

/* Piggyback conn's receive state, as xmit does (the connection is then acked). */
static void t_add_ack(struct sn_conn *conn, struct proto_pkt *h)
{
	if (!conn->pl->acked)
		return;
	h->flags |= PROTO_F_ACK;
	h->ack_base = conn->rx_base;
	h->ack_mask = conn->rx_mask;
	conn->rx_unacked = 0;
	conn->ack_now = 0;
}

/* Node a's connection to the other node. */
static struct sn_conn *t_conn(struct t_net *net, int a)
{
	struct sn_conn *c = pipeline_conn(net->side[a].pl, (uint16_t)(1 - a));

	cr_assert_not_null(c);
	return c;
}

/* Sink: what the channel layer and xmit do, at once. */
static void t_sink(void *ctx, struct sn_pkt *pkt, uint64_t now)
{
	struct t_side *s = ctx;
	struct t_net *net = s->net;
	struct proto_pkt h = pkt->h;

	if (pkt->flags & SN_PKT_ACK_ONLY) {
		h = (struct proto_pkt) {
			.type = PROTO_T_QACK, .src_node = s->id,
			.dst_node = pkt->h.dst_node, .vnet = pkt->h.vnet,
			.epoch = pkt->conn->epoch,
		};
		t_add_ack(pkt->conn, &h);
		sn_ack_name_dup(pkt, &h);
		t_wire_put(net, s->id, &h, SN_CHAN_QUICK);
		t_pkt_free(net, pkt);
		return;
	}
	h.type = pkt->chan == SN_CHAN_BULK ? PROTO_T_BREQ : PROTO_T_QREQ;
	h.src_node = s->id;
	h.epoch = pkt->conn->epoch;
	h.flags = (uint16_t)(h.flags & (PROTO_F_DATA | PROTO_F_LAST | PROTO_F_FORCE_ACK |
					PROTO_F_ABANDONED));
	if (pkt->tx_count)
		h.flags |= PROTO_F_RETX | PROTO_F_FORCE_ACK;
	t_add_ack(pkt->conn, &h);
	sn_pkt_sent(pkt, now);
	cr_assert_lt(s->n_sink, T_MAX);
	s->sink_t[s->n_sink++] = now;
	t_wire_put(net, s->id, &h, pkt->chan);
	if (!(pkt->flags & SN_PKT_HELD)) {
		/* No protocol holds it: the channel completes it once sent. */
		s->done[s->n_done] = pkt->h.pkt_num;
		s->done_status[s->n_done++] = SN_OK;
		t_pkt_free(net, pkt);
	}
}

/* Deliver: record the packet number, then free the descriptor. */
static void t_deliver(void *ctx, struct sn_pkt *pkt, uint64_t now)
{
	struct t_side *s = ctx;

	(void)now;
	cr_assert(pkt->h.flags & PROTO_F_DATA);
	cr_assert_not(pkt->flags & (SN_PKT_HDR_ONLY | SN_PKT_BUFFERED));
	if (pkt->h.flags & PROTO_F_ABANDONED) {
		s->n_abandoned++;	/* as the NIC: taken in order, nothing delivered */
		t_pkt_free(s->net, pkt);
		return;
	}
	cr_assert_lt(s->n_deliv, T_MAX);
	s->deliv_h[s->n_deliv] = pkt->h.handler;
	s->deliv[s->n_deliv++] = pkt->h.pkt_num;
	t_pkt_free(s->net, pkt);
}

/* Complete: record number and status (release follows). */
static void t_complete(void *ctx, struct sn_pkt *pkt, int status, uint64_t now)
{
	struct t_side *s = ctx;

	(void)now;
	if (pkt->h.flags & PROTO_F_ABANDONED)
		return;		/* as the NIC: nobody waits for a marker */
	cr_assert_lt(s->n_done, T_MAX);
	s->done_h[s->n_done] = pkt->h.handler;
	s->done[s->n_done] = pkt->h.pkt_num;
	s->done_status[s->n_done++] = status;
}

/* Alloc: a descriptor for an acknowledgment. */
static struct sn_pkt *t_alloc(void *ctx)
{
	struct t_side *s = ctx;

	if (s->alloc_fails)
		return NULL;
	return t_pkt_new(s->net);
}

/* Release: free the descriptor, noting packets whose data was dropped. */
static void t_release(void *ctx, struct sn_pkt *pkt)
{
	struct t_side *s = ctx;

	if ((pkt->h.flags & PROTO_F_DATA) && (pkt->flags & SN_PKT_HDR_ONLY))
		s->released_hdr_only++;
	t_pkt_free(s->net, pkt);
}

/* Rx tight: as the test set it. */
static bool t_rx_tight(void *ctx)
{
	return ((struct t_side *)ctx)->tight;
}

/* Build a pipeline or fail with its message. */
static struct pipeline *t_pipeline(struct t_side *s, const char *spec)
{
	struct pipeline_env env = {
		.ctx = s, .sink = t_sink, .deliver = t_deliver,
		.complete = t_complete, .alloc = t_alloc, .release = t_release,
		.rx_tight = t_rx_tight,
	};
	char err[256] = "";
	struct pipeline *pl = pipeline_create(&stage_registry, spec, T_VNET, s->id, 2,
					      &env, err, sizeof(err));

	cr_assert_not_null(pl, "pipeline_create(%s): %s", spec, err);
	return pl;
}

/* A network of two nodes running spec0 and spec1. */
static struct t_net *t_net_new(const char *spec0, const char *spec1)
{
	struct t_net *net = calloc(1, sizeof(*net));

	cr_assert_not_null(net);
	for (uint8_t i = 0; i < 2; i++) {
		net->side[i].net = net;
		net->side[i].id = i;
		net->side[i].pl = t_pipeline(&net->side[i], i ? spec1 : spec0);
	}
	return net;
}

/* Tear a network down. */
static void t_net_free(struct t_net *net)
{
	/* What the stages still hold goes back first (reset: they let go of it). */
	for (int k = 0; k < 2; k++)
		for (uint16_t peer = 0; peer < net->side[k].pl->n_nodes; peer++)
			if (net->side[k].pl->conns[peer])
				pipeline_conn_reset(net->side[k].pl, net->side[k].pl->conns[peer],
						    false, net->now);
	pipeline_destroy(net->side[0].pl);
	pipeline_destroy(net->side[1].pl);
	free(net);
}

/* Send n new data packets from node a on channel chan with extra flags. */
static void t_send(struct t_net *net, int a, int n, uint8_t chan, uint16_t flags)
{
	struct sn_pkt *pkts[64];

	cr_assert_leq(n, 64);
	for (int i = 0; i < n; i++) {
		struct sn_pkt *p = t_pkt_new(net);

		p->h.flags = (uint16_t)(PROTO_F_DATA | flags);
		p->h.dst_node = (uint16_t)(1 - a);
		p->h.vnet = T_VNET;
		p->chan = chan;
		p->conn = t_conn(net, a);
		pkts[i] = p;
	}
	pipeline_tx(net->side[a].pl, pkts, (uint16_t)n, net->now);
}

/* Hand a frame to its receiver's pipeline, as split does (stale or of another pair: dropped). */
static void t_rx_frame(struct t_net *net, const struct t_frame *f)
{
	struct t_side *s = &net->side[f->to];
	struct sn_conn *c = pipeline_conn(s->pl, f->from);
	enum pipeline_epoch r;
	struct sn_pkt *p;

	cr_assert_not_null(c);
	r = pipeline_rx_epoch(s->pl, c, f->h.epoch, false, net->now);
	if (r == PIPELINE_EPOCH_STALE || r == PIPELINE_EPOCH_OTHER_PAIR)
		return;
	p = t_pkt_new(net);
	p->h = f->h;
	p->chan = f->chan;
	p->conn = c;
	pipeline_rx(s->pl, &p, 1, net->now);
}

/* A data frame from node `from` with packet number num, straight to rx. */
static void t_inject(struct t_net *net, uint8_t from, uint32_t num, uint8_t chan,
		     uint16_t flags)
{
	struct t_frame f = {
		.h = { .type = chan == SN_CHAN_BULK ? PROTO_T_BREQ : PROTO_T_QREQ,
		       .flags = (uint16_t)(PROTO_F_DATA | flags), .src_node = from,
		       .dst_node = (uint16_t)(1 - from), .vnet = T_VNET, .pkt_num = num,
		       .epoch = t_conn(net, from)->epoch },
		.chan = chan, .from = from, .to = (uint8_t)(1 - from),
	};

	t_rx_frame(net, &f);
}

/* Quick data packets nums[0..n) from node 0, forcing acks, to node 1's rx in one burst. */
static void t_inject_quick_burst(struct t_net *net, const uint32_t *nums, int n,
				 uint16_t flags)
{
	struct sn_pkt *p[8];

	cr_assert_leq(n, 8);
	for (int k = 0; k < n; k++) {
		p[k] = t_pkt_new(net);
		p[k]->h = (struct proto_pkt) {
			.type = PROTO_T_QREQ,
			.flags = (uint16_t)(PROTO_F_DATA | PROTO_F_FORCE_ACK | flags),
			.src_node = 0, .dst_node = 1, .vnet = T_VNET, .pkt_num = nums[k],
			.epoch = t_conn(net, 0)->epoch,
		};
		p[k]->chan = SN_CHAN_QUICK;
		p[k]->conn = t_conn(net, 1);
	}
	pipeline_rx(net->side[1].pl, p, (uint16_t)n, net->now);
}

/* An acknowledgment (base, mask) to node `to`, straight to rx. */
static void t_inject_ack(struct t_net *net, uint8_t to, uint32_t base, uint32_t mask)
{
	struct t_frame f = {
		.h = { .type = PROTO_T_QACK, .flags = PROTO_F_ACK, .src_node = (uint16_t)(1 - to),
		       .dst_node = to, .vnet = T_VNET, .ack_base = base, .ack_mask = mask,
		       .epoch = t_conn(net, 1 - to)->epoch },
		.chan = SN_CHAN_QUICK, .from = (uint8_t)(1 - to), .to = to,
	};

	t_rx_frame(net, &f);
}

/* Decides whether the wire loses a frame. */
typedef bool (*t_drop_fn)(void *arg, const struct t_frame *f);

/* Hand over every frame on the wire (and those they cause); returns how many. */
static int t_wire_run(struct t_net *net, t_drop_fn drop, void *arg)
{
	int moved = 0;

	while (net->next_wire < net->n_wire) {
		struct t_frame f = net->wire[net->next_wire++];

		moved++;
		if (drop && drop(arg, &f))
			continue;
		t_rx_frame(net, &f);
	}
	return moved;
}

/* Lose every frame now on the wire. */
static void t_wire_lose_all(struct t_net *net)
{
	net->next_wire = net->n_wire;
}

/* Frames on the wire not yet handed over. */
static int t_wire_pending(const struct t_net *net)
{
	return net->n_wire - net->next_wire;
}

/* The i-th pending frame (0 = next). */
static const struct t_frame *t_wire_peek(const struct t_net *net, int i)
{
	cr_assert_lt(net->next_wire + i, net->n_wire);
	return &net->wire[net->next_wire + i];
}

/* Pending standalone acks from node a. */
static int t_pending_acks(const struct t_net *net, int a)
{
	int n = 0;

	for (int i = net->next_wire; i < net->n_wire; i++)
		n += net->wire[i].from == a && net->wire[i].h.type == PROTO_T_QACK;
	return n;
}

/* Stage name of pipeline pl, or fail. */
static struct stage *t_stage(struct pipeline *pl, const char *name)
{
	for (unsigned int i = 0; i < pl->n_stages; i++)
		if (strcmp(pl->stages[i].ops->name, name) == 0)
			return &pl->stages[i];
	cr_assert_fail("no stage %s", name);
	return NULL;
}

/* Counter `counter` of stage `name` of pl. */
static uint64_t t_cnt(struct pipeline *pl, const char *name, const char *counter)
{
	struct stage *st = t_stage(pl, name);

	for (int i = 0; st->ops->counter_names[i]; i++)
		if (strcmp(st->ops->counter_names[i], counter) == 0)
			return st->cnt[i];
	cr_assert_fail("stage %s has no counter %s", name, counter);
	return 0;
}

/* Start the order stage of conn at packet number next (order_conn begins with it). */
static void t_order_start(struct pipeline *pl, struct sn_conn *conn, uint32_t next)
{
	*(uint32_t *)stage_conn(t_stage(pl, "order"), conn) = next;
}

/* Packets numbers on the unacknowledged list of conn, into out; returns how many. */
static int t_unacked(const struct sn_conn *c, uint32_t *out, int cap)
{
	int n = 0;

	for (const struct sn_pkt *p = c->unacked; p; p = p->next) {
		cr_assert_lt(n, cap);
		out[n++] = p->h.pkt_num;
	}
	cr_assert_eq((uint32_t)n, c->outstanding, "outstanding %u, list %d", c->outstanding, n);
	return n;
}

/* Node a delivered exactly first, first + 1, ... (n packets, modulo 2^24). */
static void t_assert_delivered_in_order(const struct t_side *s, uint32_t first, int n)
{
	cr_assert_eq(s->n_deliv, n, "node %u delivered %d packets, want %d", s->id,
		     s->n_deliv, n);
	for (int i = 0; i < n; i++)
		cr_assert_eq(s->deliv[i], proto_seq_add(first, (uint32_t)i),
			     "node %u delivery %d: packet 0x%x, want 0x%x", s->id, i,
			     s->deliv[i], proto_seq_add(first, (uint32_t)i));
}

/* Node a completed exactly n packets, all with SN_OK. */
static void t_assert_all_ok(const struct t_side *s, int n)
{
	cr_assert_eq(s->n_done, n, "node %u completed %d packets, want %d", s->id,
		     s->n_done, n);
	for (int i = 0; i < n; i++)
		cr_assert_eq(s->done_status[i], SN_OK, "packet 0x%x status %d", s->done[i],
			     s->done_status[i]);
}

/* The reliable ordered configuration with a short timer and ack delay. */
static const char t_conf4_sr[] =
	"build_acks:threshold=4:delay_ns=2000,order:mode=sr,dup_find,"
	"timer:timeout_ns=10000,genp:retx=sr";

/* Reliable, unordered; acks only when 32 packets wait or after 1 ms. */
static const char t_slow_acks[] =
	"build_acks:threshold=32:delay_ns=1000000,dup_find,timer,genp";

/* The same with an ack threshold of 4 and of 8. */
static const char t_acks4[] = "build_acks:threshold=4:delay_ns=1000000,dup_find,timer,genp";
static const char t_acks8[] = "build_acks:threshold=8:delay_ns=1000000,dup_find,timer,genp";

/* Selective-repeat order with a reorder buffer of 4 (so genp's window is 5). */
static const char t_sr4[] =
	"build_acks:threshold=5:delay_ns=1000000,order:mode=sr:buffer=4,dup_find,timer,genp";

/* A network running spec on both nodes. */
static struct t_net *t_net_same(const char *spec)
{
	return t_net_new(spec, spec);
}

/* ---- packet numbers ------------------------------------------------------ */

/* Loses the first transmission of packet number *arg. */
static bool t_drop_first_of(void *arg, const struct t_frame *f)
{
	uint32_t *num = arg;

	if ((f->h.flags & PROTO_F_DATA) && !(f->h.flags & PROTO_F_RETX) &&
	    f->h.pkt_num == *num)
		return true;
	return false;
}

Test(stages, sequence_wraps_at_2_pow_24_in_order_with_acks)
{
	struct t_net *net = t_net_new(t_conf4_sr, t_conf4_sr);
	struct sn_conn *tx = t_conn(net, 0), *rx = t_conn(net, 1);
	const uint32_t first = 0xFFFFF0;
	uint32_t lost = 0x000000;
	int sent = 0;

	/* Both ends as if 0xFFFFEF packets had already gone by. */
	tx->tx_next = first;
	rx->rx_base = proto_seq_add(first, PROTO_PKT_NUM_MASK);	/* first - 1 */
	t_order_start(net->side[1].pl, rx, first);
	/* 40 packets in bursts of 8: 0xFFFFF0 .. 0xFFFFFF, 0x000000 .. 0x000017. */
	for (int round = 0; round < 5; round++) {
		t_send(net, 0, 8, SN_CHAN_QUICK, 0);
		sent += 8;
		t_wire_run(net, t_drop_first_of, &lost);
		net->now += 1000;
		pipeline_tick(net->side[0].pl, net->now);
		pipeline_tick(net->side[1].pl, net->now);
		t_wire_run(net, t_drop_first_of, &lost);
	}
	/* Let the timer and delayed acks finish the job. */
	for (int k = 0; k < 20 && net->side[0].n_done < sent; k++) {
		net->now += 5000;
		pipeline_tick(net->side[0].pl, net->now);
		pipeline_tick(net->side[1].pl, net->now);
		t_wire_run(net, NULL, NULL);
	}
	t_assert_delivered_in_order(&net->side[1], first, sent);
	t_assert_all_ok(&net->side[0], sent);
	cr_assert_eq(tx->tx_next, 0x18, "tx_next 0x%x", tx->tx_next);
	cr_assert_eq(rx->rx_base, 0x17, "receiver's ack base 0x%x, want 0x17", rx->rx_base);
	cr_assert_eq(rx->rx_mask, 0);
	cr_assert_null(tx->unacked);
	cr_assert_eq(tx->outstanding, 0);
	/* Packet 0 was lost once: packets after it waited in the reorder buffer. */
	cr_assert_geq(t_cnt(net->side[1].pl, "order", "buffered"), 1);
	cr_assert_geq(t_cnt(net->side[0].pl, "genp", "fast_retx") +
		      t_cnt(net->side[0].pl, "genp", "timeout_retx"), 1);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

Test(stages, receiver_sack_mask_edges)
{
	/* No order stage: every packet within the mask is recorded at once. */
	struct t_net *net = t_net_same(t_slow_acks);
	struct sn_conn *rx = t_conn(net, 1);
	struct pipeline *pl = net->side[1].pl;

	/* Bit 1 for packet 2 (bit 0 would be packet 1). */
	t_inject(net, 0, 2, SN_CHAN_QUICK, 0);
	cr_assert_eq(rx->rx_base, 0);
	cr_assert_eq(rx->rx_mask, 0x2, "mask 0x%x", rx->rx_mask);
	/* 33 ahead of the base: beyond the mask, not recorded, data dropped, acked. */
	t_inject(net, 0, 33, SN_CHAN_QUICK, 0);
	cr_assert_eq(rx->rx_mask, 0x2, "mask 0x%x after packet 33", rx->rx_mask);
	cr_assert_eq(t_cnt(pl, "build_acks", "beyond_window"), 1);
	cr_assert_eq(net->side[1].n_deliv, 1, "packet 33 must not be delivered");
	cr_assert_eq(net->side[1].released_hdr_only, 1);
	cr_assert_eq(t_pending_acks(net, 1), 1, "a packet beyond the window is answered");
	cr_assert_eq(t_wire_peek(net, 0)->h.ack_base, 0);
	cr_assert_eq(t_wire_peek(net, 0)->h.ack_mask, 0x2);
	t_wire_lose_all(net);
	/* Exactly 32 ahead: bit 31. */
	t_inject(net, 0, 32, SN_CHAN_QUICK, 0);
	cr_assert_eq(rx->rx_mask, 0x80000002u, "mask 0x%x after packet 32", rx->rx_mask);
	/* Bit 0 fills: the base moves over 1 and 2, the mask shifts with it. */
	t_inject(net, 0, 1, SN_CHAN_QUICK, 0);
	cr_assert_eq(rx->rx_base, 2);
	cr_assert_eq(rx->rx_mask, 0x20000000u, "mask 0x%x (packet 32 = 2 + 1 + 29)", rx->rx_mask);
	/* Holes: every other packet of 4..31. */
	for (uint32_t n = 4; n <= 31; n += 2)
		t_inject(net, 0, n, SN_CHAN_QUICK, 0);
	cr_assert_eq(rx->rx_base, 2);
	cr_assert_eq(rx->rx_mask, 0x2AAAAAAAu, "mask 0x%x", rx->rx_mask);
	/* Filling the holes moves the base to 32 and empties the mask. */
	for (uint32_t n = 3; n <= 31; n += 2)
		t_inject(net, 0, n, SN_CHAN_QUICK, 0);
	cr_assert_eq(rx->rx_base, 32, "base %u", rx->rx_base);
	cr_assert_eq(rx->rx_mask, 0);
	/* Now 33 is next; the largest mask: 34 .. 64 without 33. */
	for (uint32_t n = 34; n <= 64; n++)
		t_inject(net, 0, n, SN_CHAN_QUICK, 0);
	cr_assert_eq(rx->rx_mask, 0xFFFFFFFEu, "mask 0x%x", rx->rx_mask);
	t_inject(net, 0, 65, SN_CHAN_QUICK, 0);
	cr_assert_eq(t_cnt(pl, "build_acks", "beyond_window"), 2, "65 is 33 ahead of 32");
	t_inject(net, 0, 33, SN_CHAN_QUICK, 0);
	cr_assert_eq(rx->rx_base, 64);
	cr_assert_eq(rx->rx_mask, 0);
	/* Without order, every recorded packet was delivered once. */
	cr_assert_eq(net->side[1].n_deliv, 64, "delivered %d", net->side[1].n_deliv);
	t_wire_lose_all(net);
	t_net_free(net);
}

Test(stages, sender_sack_mask_edges)
{
	struct t_net *net = t_net_new("build_acks,dup_find,timer,genp:window=32:retx=sr",
				      "build_acks,dup_find,timer,genp");
	struct sn_conn *tx = t_conn(net, 0);
	uint32_t left[40];
	int n;

	t_send(net, 0, 32, SN_CHAN_QUICK, 0);
	t_wire_lose_all(net);
	cr_assert_eq(tx->outstanding, 32);
	/* Bit 0: packet 1. */
	t_inject_ack(net, 0, 0, 0x1);
	cr_assert_eq(net->side[0].n_done, 1);
	cr_assert_eq(net->side[0].done[0], 1);
	/* Bit 31: packet 32. */
	t_inject_ack(net, 0, 0, 0x80000000u);
	cr_assert_eq(net->side[0].n_done, 2);
	cr_assert_eq(net->side[0].done[1], 32);
	/* Holes: bits 2, 4, .. 30 are packets 3, 5, .. 31. */
	t_inject_ack(net, 0, 0, 0x55555554u);
	n = t_unacked(tx, left, 40);
	cr_assert_eq(n, 15, "left %d", n);
	for (int i = 0; i < n; i++)
		cr_assert_eq(left[i], 2u + 2u * (uint32_t)i, "unacked[%d] = %u", i, left[i]);
	cr_assert_eq(t_cnt(net->side[0].pl, "genp", "sacked"), 17);
	/* A cumulative ack for everything. */
	t_inject_ack(net, 0, 32, 0);
	t_assert_all_ok(&net->side[0], 32);
	cr_assert_null(tx->unacked);
	/* All 32 bits: 33 .. 64 acknowledged by the mask alone. */
	t_send(net, 0, 32, SN_CHAN_QUICK, 0);
	t_wire_lose_all(net);
	t_inject_ack(net, 0, 32, 0xFFFFFFFFu);
	t_assert_all_ok(&net->side[0], 64);
	cr_assert_eq(tx->outstanding, 0);
	/* An ack for numbers never sent is ignored. */
	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	t_wire_lose_all(net);
	t_inject_ack(net, 0, 66, 0);
	cr_assert_eq(t_cnt(net->side[0].pl, "genp", "stale_acks"), 1);
	cr_assert_eq(tx->outstanding, 1);
	t_inject_ack(net, 0, 65, 0);
	cr_assert_eq(tx->outstanding, 0);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

Test(stages, go_back_n_sender_ignores_the_mask)
{
	struct t_net *net = t_net_new("build_acks,dup_find,timer,genp:retx=gbn",
				      "build_acks,dup_find,timer,genp");
	struct sn_conn *tx = t_conn(net, 0);

	t_send(net, 0, 4, SN_CHAN_QUICK, 0);
	t_wire_lose_all(net);
	t_inject_ack(net, 0, 0, 0xFFFFFFFFu);
	cr_assert_eq(tx->outstanding, 4, "go-back-N frees only what the base covers");
	t_inject_ack(net, 0, 2, 0xFFFFFFFFu);
	cr_assert_eq(tx->outstanding, 2);
	cr_assert_eq(tx->unacked->h.pkt_num, 3);
	t_inject_ack(net, 0, 4, 0);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/* ---- acknowledgments ------------------------------------------------------ */

Test(stages, threshold_forces_a_standalone_ack)
{
	struct t_net *net = t_net_same(t_acks4);
	struct pipeline *pl = net->side[1].pl;

	for (uint32_t n = 1; n <= 3; n++)
		t_inject(net, 0, n, SN_CHAN_QUICK, 0);
	cr_assert_eq(t_pending_acks(net, 1), 0, "3 of 4: no ack yet");
	t_inject(net, 0, 4, SN_CHAN_QUICK, 0);
	cr_assert_eq(t_pending_acks(net, 1), 1, "the 4th packet forces an ack");
	cr_assert_eq(t_wire_peek(net, 0)->h.ack_base, 4);
	cr_assert_eq(t_wire_peek(net, 0)->h.flags, PROTO_F_ACK);
	cr_assert_eq(t_cnt(pl, "build_acks", "threshold_acks"), 1);
	t_wire_lose_all(net);
	/* The ack reset the count: 3 more do not force another. */
	for (uint32_t n = 5; n <= 7; n++)
		t_inject(net, 0, n, SN_CHAN_QUICK, 0);
	cr_assert_eq(t_pending_acks(net, 1), 0);
	/* Bulk packets are acknowledged by their BACK and never count. */
	for (uint32_t n = 8; n <= 15; n++)
		t_inject(net, 0, n, SN_CHAN_BULK, 0);
	cr_assert_eq(t_pending_acks(net, 1), 0, "bulk packets forced an ack");
	cr_assert_eq(net->side[1].n_deliv, 15);
	cr_assert_eq(t_conn(net, 1)->rx_base, 15);
	t_net_free(net);
}

Test(stages, force_ack_flag_acks_at_once)
{
	struct t_net *net = t_net_same(t_acks8);

	t_inject(net, 0, 1, SN_CHAN_QUICK, 0);
	cr_assert_eq(t_pending_acks(net, 1), 0);
	t_inject(net, 0, 2, SN_CHAN_QUICK, PROTO_F_FORCE_ACK);
	cr_assert_eq(t_pending_acks(net, 1), 1, "FORCE_ACK must be answered at once");
	cr_assert_eq(t_wire_peek(net, 0)->h.ack_base, 2);
	cr_assert_eq(t_cnt(net->side[1].pl, "build_acks", "forced_acks"), 1);
	t_wire_lose_all(net);
	t_net_free(net);
}

Test(stages, delayed_ack_leaves_after_delay_ns)
{
	struct t_net *net = t_net_new("build_acks:threshold=8:delay_ns=5000,dup_find,timer,genp",
				      "build_acks:threshold=8:delay_ns=5000,dup_find,timer,genp");
	struct pipeline *pl = net->side[1].pl;

	net->now = 1000;
	t_inject(net, 0, 1, SN_CHAN_QUICK, 0);
	net->now = 3000;
	t_inject(net, 0, 2, SN_CHAN_QUICK, 0);
	cr_assert_eq(pipeline_tick(pl, 3000), 6000, "the oldest unacked packet sets the time");
	cr_assert_eq(pipeline_tick(pl, 5999), 6000);
	cr_assert_eq(t_pending_acks(net, 1), 0, "no ack before delay_ns");
	pipeline_tick(pl, 6000);
	cr_assert_eq(t_pending_acks(net, 1), 1, "no ack at delay_ns");
	cr_assert_eq(t_wire_peek(net, 0)->h.ack_base, 2);
	cr_assert_eq(t_cnt(pl, "build_acks", "delayed_acks"), 1);
	cr_assert_eq(pipeline_tick(pl, 7000), UINT64_MAX, "nothing owed any more");
	t_wire_lose_all(net);
	/* A piggybacked ack pays the debt: no delayed ack follows. */
	net->now = 8000;
	t_inject(net, 0, 3, SN_CHAN_QUICK, 0);
	t_send(net, 1, 1, SN_CHAN_QUICK, 0);
	cr_assert(t_wire_peek(net, 0)->h.flags & PROTO_F_ACK);
	cr_assert_eq(t_wire_peek(net, 0)->h.ack_base, 3);
	t_wire_lose_all(net);
	pipeline_tick(pl, 20000);
	cr_assert_eq(t_pending_acks(net, 1), 0, "ack sent twice");
	cr_assert_eq(t_cnt(pl, "build_acks", "delayed_acks"), 1);
	t_net_free(net);
}

/* ---- timer, duplicates, retries ------------------------------------------- */

/*
 * Send packet 1 at t=0 and packets 2 and 3 at t=2000, lose them all, and
 * tick at 5000, when only packet 1 has waited the timeout: selective repeat
 * resends it alone, go-back-N resends it and everything after it. The
 * resent numbers come out in resent.
 */
static int t_timeout_case(const char *spec, uint32_t *resent)
{
	struct t_net *net = t_net_new(spec, "build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;
	int n = 0;

	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	net->now = 2000;
	t_send(net, 0, 2, SN_CHAN_QUICK, 0);
	cr_assert_eq(t_wire_pending(net), 3);
	t_wire_lose_all(net);
	cr_assert_eq(pipeline_tick(pl, 2000), 5000);
	cr_assert_eq(pipeline_tick(pl, 4999), 5000);
	cr_assert_eq(t_wire_pending(net), 0, "resent before the timeout");
	cr_assert_eq(t_cnt(pl, "timer", "expired"), 0);
	pipeline_tick(pl, 5000);
	cr_assert_eq(t_cnt(pl, "timer", "expired"), 1);
	while (t_wire_pending(net)) {
		const struct t_frame *f = t_wire_peek(net, 0);

		cr_assert_eq(f->h.flags & (PROTO_F_RETX | PROTO_F_FORCE_ACK),
			     PROTO_F_RETX | PROTO_F_FORCE_ACK, "a resend asks for an ack");
		resent[n++] = f->h.pkt_num;
		net->next_wire++;
	}
	cr_assert_eq(t_cnt(pl, "genp", "timeout_retx"), (uint64_t)n);
	t_net_free(net);
	return n;
}

Test(stages, timer_expiry_resends_oldest_sr_or_all_gbn)
{
	uint32_t r[8];

	cr_assert_eq(t_timeout_case("build_acks,dup_find,timer:timeout_ns=5000,genp:retx=sr",
				    r), 1, "selective repeat resends only the expired packet");
	cr_assert_eq(r[0], 1);
	cr_assert_eq(t_timeout_case("build_acks,dup_find,timer:timeout_ns=5000,genp:retx=gbn",
				    r), 3, "go-back-N resends everything");
	for (uint32_t i = 0; i < 3; i++)
		cr_assert_eq(r[i], i + 1);
}

/*
 * Three packets lost before any round trip was measured, so the bound is not
 * trusted yet: each expiry resends one, the one that waited longest, and
 * restarts the timer. Resending every expired packet at every expiry put as
 * many copies in the queues as packets in flight, which made the quick
 * channel collapse in segnet-sim with many quick buffers.
 */
Test(stages, timer_resends_one_packet_per_expiry)
{
	struct t_net *net = t_net_new("build_acks,dup_find,timer:timeout_ns=5000,genp:retx=sr",
				      "build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;

	t_send(net, 0, 3, SN_CHAN_QUICK, 0);
	t_wire_lose_all(net);
	cr_assert_eq(pipeline_tick(pl, 0), 5000);
	/* No sample yet: waits of 5000, then 10000 (the bound doubled once). */
	cr_assert_eq(pipeline_tick(pl, 5000), 15000);
	cr_assert_eq(t_wire_pending(net), 1, "one resend per expiry, not %d",
		     t_wire_pending(net));
	cr_assert_eq(t_wire_peek(net, 0)->h.pkt_num, 1);
	cr_assert_eq(t_cnt(pl, "genp", "timeout_retx"), 1);
	t_wire_lose_all(net);
	cr_assert_eq(pipeline_tick(pl, 14999), 15000);
	cr_assert_eq(t_wire_pending(net), 0, "the others wait for the restarted timer");
	pipeline_tick(pl, 15000);
	cr_assert_eq(t_wire_pending(net), 1);
	cr_assert_eq(t_wire_peek(net, 0)->h.pkt_num, 2, "the packet that waited longest");
	cr_assert_eq(t_cnt(pl, "timer", "expired"), 2);
	t_net_free(net);
}

/*
 * pipeline_tick keeps the earliest deadline its stages returned and does not
 * call them before it; a packet passing a stage, an event, a data frame
 * leaving, or a tick that itself sent something makes the next call tick.
 * Skipping changes nothing: the expiry still comes at its deadline.
 */
Test(stages, pipeline_ticks_only_when_due_or_touched)
{
	struct t_net *net = t_net_new("build_acks,dup_find,timer:timeout_ns=5000,genp:retx=sr",
				      "build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;

	cr_assert_eq(pipeline_tick(pl, 0), UINT64_MAX, "nothing in flight");
	cr_assert_eq(pl->tick_due, UINT64_MAX);
	t_send(net, 0, 2, SN_CHAN_QUICK, 0);
	cr_assert_eq(pl->tick_due, 0, "a packet passed: tick at the next call");
	t_wire_lose_all(net);
	cr_assert_eq(pipeline_tick(pl, 0), 5000);
	cr_assert_eq(pl->tick_due, 5000);
	cr_assert_eq(pipeline_tick(pl, 4999), 5000, "before the deadline: the kept one");
	cr_assert_eq(t_wire_pending(net), 0);
	/* The expiry resends: the tick sent a data frame, so tick again next time. */
	cr_assert_eq(pipeline_tick(pl, 5000), 15000);
	cr_assert_eq(t_wire_pending(net), 1);
	cr_assert_eq(pl->tick_due, 0);
	cr_assert_eq(pipeline_tick(pl, 5001), 15000);
	cr_assert_eq(pl->tick_due, 15000);
	pipeline_event(pl, t_conn(net, 0), STAGE_EV_RESET, NULL, 6000);
	cr_assert_eq(pl->tick_due, 0, "an event touches the pipeline");
	cr_assert_eq(pipeline_tick(pl, 6000), UINT64_MAX, "the reset dropped what was in flight");
	t_wire_lose_all(net);
	t_net_free(net);
}

/*
 * A round trip measured above timeout_ns: the wait follows the measurement
 * instead of being clamped to the bound, and backs off past it by the
 * measured excess. Clamped, every quick packet went out again before its ack
 * could arrive and Karn's rule discarded the samples that would have shown it
 * (segnet-sim clint quick channel with 32 or 64 buffers: collapse).
 */
Test(stages, timer_follows_a_round_trip_measured_above_the_bound)
{
	struct t_net *net = t_net_new("build_acks,dup_find,timer:timeout_ns=5000,genp:retx=sr",
				      "build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;
	struct sn_conn *c = t_conn(net, 0);

	net->now = 1000;
	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	net->now = 21000;
	t_wire_run(net, NULL, NULL);		/* no tick before: a 20 us sample */
	cr_assert_eq(c->outstanding, 0);
	cr_assert_eq(c->srtt_ns, 20000);
	cr_assert_eq(c->rttvar_ns, 10000);
	net->now = 100000;
	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	t_wire_lose_all(net);
	/* srtt + 4 rttvar = 60000, not the 5000 bound. */
	cr_assert_eq(pipeline_tick(pl, 100000), 160000, "the wait is clamped to the bound");
	pipeline_tick(pl, 159999);
	cr_assert_eq(t_wire_pending(net), 0);
	/* Backed off: 120000, within 60000 + (60000 - 5000). */
	cr_assert_eq(pipeline_tick(pl, 160000), 275000);
	cr_assert_eq(t_wire_pending(net), 1);
	t_wire_lose_all(net);
	cr_assert_eq(pipeline_tick(pl, 275000), 390000);
	cr_assert_eq(t_wire_pending(net), 1);
	net->now = 275000;
	t_wire_run(net, NULL, NULL);
	cr_assert_eq(c->outstanding, 0);
	t_assert_all_ok(&net->side[0], 2);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/*
 * One message from node 0, taken by node 1 at once; node 1's ack reaches
 * node 0 rtt ns after the message left, or, with lose, the message is lost
 * and its resend is answered one normal round trip (4 us) after it left.
 * Node 0 ticks every 500 ns meanwhile. Returns how long after the message
 * left node 0 first resent it (0: never).
 */
static uint64_t t_round_acked_after(struct t_net *net, uint64_t rtt, bool lose)
{
	const uint64_t t0 = net->now, normal = 4000, step = 500;
	uint64_t resent = 0, answer = lose ? UINT64_MAX : t0 + rtt;
	struct t_frame f;

	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	cr_assert_eq(t_wire_pending(net), 1);
	f = *t_wire_peek(net, 0);
	net->next_wire++;
	if (!lose)
		t_rx_frame(net, &f);	/* taken; its ack waits on the wire */
	while (net->now < t0 + 2000000) {
		int before;

		net->now += step;
		if (net->now >= answer) {
			t_wire_run(net, NULL, NULL);	/* the ack, and any resend */
			break;
		}
		before = t_wire_pending(net);
		pipeline_tick(net->side[0].pl, net->now);
		if (t_wire_pending(net) > before && !resent) {
			resent = net->now - t0;
			if (lose)
				answer = net->now + normal;
		}
	}
	cr_assert_eq(t_conn(net, 0)->outstanding, 0, "message %s answered",
		     lose ? "lost is still not" : "not");
	net->n_wire = net->next_wire = 0;
	net->side[0].n_sink = net->side[1].n_sink = 0;
	return resent;
}

/*
 * Round trips of 4 us, and every fifth a late ack: late_ns, late, not lost
 * (nicd on a loaded machine, where a daemon waits for the CPU): 20 prompt
 * rounds, then 10 times a late one and 4 prompt ones. Each late ack
 * expires a 4 us wait, and completes the packet before its resend's copy
 * reaches the receiver, whose ack of the copy names it (DUP): the resend
 * was needless (genp's spurious_retx). Returns how many late acks were
 * resent (genp's timeout_retx).
 */
static uint64_t t_late_acks(struct t_net *net, uint64_t late_ns)
{
	uint64_t resent;

	net->now = 1000000;
	for (int i = 0; i < 20; i++)
		cr_assert_eq(t_round_acked_after(net, 4000, false), 0);
	for (int late = 0; late < 10; late++) {
		t_round_acked_after(net, late_ns, false);
		for (int i = 0; i < 4; i++)
			t_round_acked_after(net, 4000, false);
	}
	resent = t_cnt(net->side[0].pl, "genp", "timeout_retx");
	cr_log_info("late acks resent: %llu of 10", (unsigned long long)resent);
	cr_assert_eq(net->side[1].n_deliv, 70, "each message delivered once");
	return resent;
}

/*
 * timer:late_floor=on: the first late ack is resent, recognised, and the
 * wait learns 6 us, so the later late acks are waited for. Without it the
 * estimate never learns them (Karn's rule drops the sample of a resent
 * packet) and every late ack is resent: 10 of 10. A loss is still resent
 * within the longest round trip seen (6 us, not the 1 ms bound), and what
 * the late acks taught halves every 64 ms.
 */
Test(stages, a_late_ack_is_learnt_not_resent_every_time)
{
	struct t_net *net = t_net_same("build_acks,dup_find,timer:late_floor=on,genp");
	struct pipeline *pl = net->side[0].pl;
	uint64_t resent;

	cr_assert_eq(t_late_acks(net, 6000), 1, "late acks resent: %llu of 10",
		     (unsigned long long)t_cnt(pl, "genp", "timeout_retx"));
	cr_assert_eq(t_cnt(pl, "genp", "spurious_retx"), 1);
	resent = t_round_acked_after(net, 0, true);
	cr_assert(resent >= 6000 && resent <= 6500, "a loss resent after %llu ns",
		  (unsigned long long)resent);
	cr_assert_eq(t_cnt(pl, "genp", "spurious_retx"), 1, "a resent loss is no late ack");
	cr_assert_eq(sn_conn_rto_floor(t_conn(net, 0), net->now), 6000);
	cr_assert_eq(sn_conn_rto_floor(t_conn(net, 0), net->now + 64000000), 3000,
		     "what late acks taught halves every 64 ms");
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/*
 * Acks 9 us late: the second copy has left 4.5 us before, longer than the
 * 4 us round trips, so the ack's timing alone cannot say which copy it
 * answers. The copy reaches the receiver after the packet did, and its ack
 * names it (DUP): the first ack completed the packet, so it answered the
 * first copy, 9 us after it left. Under timer:late_floor=on that raises the
 * floor to 9 us at the first late ack, and the 9 later ones are waited for;
 * a loss is then resent after 9 us or more, not after the 1 ms bound.
 */
Test(stages, an_ack_too_late_to_tell_by_its_timing_is_learnt_from_the_copy)
{
	struct t_net *net = t_net_same("build_acks,dup_find,timer:late_floor=on,genp");
	struct pipeline *pl = net->side[0].pl;
	uint64_t resent;

	cr_assert_eq(t_late_acks(net, 9000), 1, "late acks resent: %llu of 10",
		     (unsigned long long)t_cnt(pl, "genp", "timeout_retx"));
	cr_assert_eq(t_cnt(pl, "genp", "spurious_retx"), 1, "the copy's DUP ack shows it");
	cr_assert_eq(sn_conn_rto_floor(t_conn(net, 0), net->now), 9000);
	/* The late acks waited for are samples too: the estimate may pass the floor. */
	resent = t_round_acked_after(net, 0, true);
	cr_assert(resent >= 9000 && resent < 20000, "a loss resent after %llu ns",
		  (unsigned long long)resent);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/* Loses the standalone acks node 1 sends. */
static bool t_drop_acks_of_1(void *arg, const struct t_frame *f)
{
	(void)arg;
	return f->from == 1 && f->h.type == PROTO_T_QACK;
}

/*
 * A lost ack is no late one: the resend's copy is named by its DUP ack,
 * but that ack is what completes the packet, so the resend was needed:
 * not counted, and no floor is raised.
 */
Test(stages, the_copy_that_a_lost_ack_made_needed_is_not_spurious)
{
	struct t_net *net = t_net_same("build_acks,dup_find,timer:late_floor=on,genp");
	struct pipeline *pl = net->side[0].pl;
	const struct t_frame *a;

	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	t_wire_run(net, t_drop_acks_of_1, NULL);
	cr_assert_eq(net->side[1].n_deliv, 1);
	net->now = pipeline_tick(pl, net->now);
	pipeline_tick(pl, net->now);
	cr_assert_eq(t_cnt(pl, "genp", "timeout_retx"), 1);
	t_wire_run(net, NULL, NULL);
	cr_assert_eq(t_wire_pending(net), 0);
	a = &net->wire[net->n_wire - 1];
	cr_assert(a->from == 1 && (a->h.flags & PROTO_F_DUP) && a->h.pkt_num == 1,
		  "the copy's ack names it (flags 0x%x, pkt_num %u)", a->h.flags, a->h.pkt_num);
	t_assert_all_ok(&net->side[0], 1);
	cr_assert_eq(t_cnt(pl, "genp", "spurious_retx"), 0);
	cr_assert_eq(sn_conn_rto_floor(t_conn(net, 0), net->now), 0);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/*
 * Under spec, send n packets over a wire that loses what drop says, so that
 * node 1 takes `taken` of them; resend them all before the copies reach
 * node 1, then deliver everything. Every packet completes OK, and no
 * resend may be counted needless nor the floor raised.
 */
static void t_resends_after_losses_count_nothing(const char *spec, int n, t_drop_fn drop,
						 int taken)
{
	struct t_net *net = t_net_same(spec);
	struct pipeline *pl = net->side[0].pl;

	t_send(net, 0, n, SN_CHAN_QUICK, 0);
	t_wire_run(net, drop, NULL);
	cr_assert_eq(net->side[1].n_deliv, taken, "%s", spec);
	/* sr: one resend per expiry; gbn: all at the first */
	for (int k = 0; k < 16 && t_wire_pending(net) < n; k++) {
		net->now = pipeline_tick(pl, net->now);
		pipeline_tick(pl, net->now);
	}
	cr_assert_eq(t_wire_pending(net), n, "%s: all resent", spec);
	t_wire_run(net, NULL, NULL);
	cr_assert_eq(t_wire_pending(net), 0);
	t_assert_all_ok(&net->side[0], n);
	cr_assert_eq(net->side[1].n_deliv, n, "%s", spec);
	cr_log_info("%s: spurious_retx %llu, floor %llu ns", spec,
		    (unsigned long long)t_cnt(pl, "genp", "spurious_retx"),
		    (unsigned long long)sn_conn_rto_floor(t_conn(net, 0), net->now));
	cr_assert_eq(t_cnt(pl, "genp", "spurious_retx"), 0, "%s", spec);
	cr_assert_eq(sn_conn_rto_floor(t_conn(net, 0), net->now), 0, "%s", spec);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/*
 * Packets whose acks were lost, all resent (sr: each by its timeout; gbn:
 * going back from the oldest): the first copy's DUP ack completes them
 * all. It was sent after a resend arrived, no ack on its way without the
 * resends (the acks were lost, not late), so the later copies' DUP acks
 * show no late ack either: nothing counted, no floor raised (the sample
 * would be the timeout's wait, not a round trip).
 */
Test(stages, copies_sent_after_lost_acks_are_not_spurious_when_one_dup_ack_completes_them)
{
	t_resends_after_losses_count_nothing("build_acks,dup_find,timer:late_floor=on,genp", 4,
					     t_drop_acks_of_1, 4);
	t_resends_after_losses_count_nothing("build_acks,order:mode=gbn,dup_find,"
					     "timer:late_floor=on,genp:retx=gbn",
					     4, t_drop_acks_of_1, 4);
}

/* Loses the first copy of packet 1 and the standalone acks node 1 sends. */
static bool t_drop_first_of_1_and_acks(void *arg, const struct t_frame *f)
{
	static uint32_t one = 1;

	return t_drop_first_of(&one, f) || t_drop_acks_of_1(arg, f);
}

/*
 * Packet 1's first copy lost, packet 2's ack lost, both resent before an
 * ack came: the ack that packet 1's copy causes completes packet 2 as
 * well, and packet 2's copy is then named by its DUP ack. That ack was no
 * late one on its way without the resends (packet 1's copy caused it,
 * and packet 1's copy gets no DUP ack), so nothing is counted and no floor
 * raised. Before, packet 2's resend was counted needless, with the
 * timeout's wait as its sample (sr: a floor of 3 ms, gbn: 1 ms).
 */
Test(stages, a_copy_whose_ack_another_resend_caused_is_not_spurious)
{
	t_resends_after_losses_count_nothing("build_acks,dup_find,timer:late_floor=on,genp", 2,
					     t_drop_first_of_1_and_acks, 1);
	t_resends_after_losses_count_nothing("build_acks,dup_find,timer:late_floor=on,"
					     "genp:retx=gbn", 2, t_drop_first_of_1_and_acks, 1);
}

/* Standalone acks of node 1 held back (late), in the order they left. */
struct t_held_acks {
	struct t_frame f[64];	/* the acks */
	int n;			/* how many */
};

/* Holds back the standalone acks node 1 sends (into arg, a struct t_held_acks). */
static bool t_hold_acks_of_1(void *arg, const struct t_frame *f)
{
	struct t_held_acks *h = arg;

	if (!t_drop_acks_of_1(NULL, f))
		return false;
	cr_assert_lt(h->n, 64);
	h->f[h->n++] = *f;
	return true;
}

/*
 * A go-back-N timeout on a window of n, every ack late, not lost: all n
 * resent, then the last ack completes them all before the copies' DUP
 * acks come. Returns genp's spurious_retx.
 */
static uint64_t t_gbn_late_acks(int n)
{
	struct t_net *net = t_net_same("build_acks,dup_find,timer,genp:retx=gbn");
	struct pipeline *pl = net->side[0].pl;
	struct t_held_acks held = { .n = 0 };
	uint64_t spurious;

	t_send(net, 0, n, SN_CHAN_QUICK, 0);
	t_wire_run(net, t_hold_acks_of_1, &held);
	cr_assert_eq(net->side[1].n_deliv, n);
	cr_assert_eq(held.n, n, "an ack for each");
	net->now = pipeline_tick(pl, net->now);
	pipeline_tick(pl, net->now);
	cr_assert_eq(t_cnt(pl, "genp", "timeout_retx"), (uint64_t)n, "go-back-N resends all");
	/* The last late ack comes before the copies reach node 1. */
	t_rx_frame(net, &held.f[n - 1]);
	t_assert_all_ok(&net->side[0], n);
	t_wire_run(net, NULL, NULL);
	cr_assert_eq(t_cnt(net->side[1].pl, "dup_find", "duplicates_dropped"), (uint64_t)n);
	spurious = t_cnt(pl, "genp", "spurious_retx");
	cr_log_info("window %d: spurious_retx %llu", n, (unsigned long long)spurious);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
	return spurious;
}

/*
 * One late ack completes 8 packets resent by a go-back-N timeout: the 8
 * copies' DUP acks count 8 needless resends. With 12, 8 are counted:
 * genp remembers the last 8 packets sent more than once that an ack
 * completed (GENP_RESENT), so the 4 completed first are not. Remembering
 * a full window (32) would cost 384 bytes per connection
 * (doc/protocol.md, late acknowledgments): this checks the limit that
 * text describes.
 */
Test(stages, a_go_back_n_timeout_counts_the_last_8_needless_resends)
{
	cr_assert_eq(t_gbn_late_acks(8), 8);
	cr_assert_eq(t_gbn_late_acks(12), 8);
}

/*
 * timer's late_floor is off by default (where frames are really lost a
 * higher wait recovers them later: doc/protocol.md, on or off by
 * default, has the lab's and segnet-sim's figures): the wait stays at the
 * prompt round trips, every late ack is resent, as before the floor, and
 * genp still counts each as spurious_retx. A loss is resent after the
 * 4 us wait, not 6.
 */
Test(stages, without_late_floor_every_late_ack_is_resent)
{
	struct t_net *net = t_net_same("build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;
	uint64_t resent;

	cr_assert_eq(stage_param(pipeline_stage(pl, "timer"), "late_floor"), 0, "off by default");
	cr_assert_eq(t_late_acks(net, 6000), 10);
	cr_assert_eq(t_cnt(pl, "genp", "spurious_retx"), 10, "each recognised");
	resent = t_round_acked_after(net, 0, true);
	cr_assert(resent >= 4000 && resent < 6000, "a loss resent after %llu ns",
		  (unsigned long long)resent);
	cr_assert_eq(sn_conn_rto_floor(t_conn(net, 0), net->now), 0, "no floor raised");
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

Test(stages, duplicate_of_a_delivered_packet_is_dropped_and_acked_again)
{
	const char *spec = "build_acks:threshold=8:delay_ns=1000000,dup_find,"
			   "timer:timeout_ns=5000,genp";
	struct t_net *net = t_net_new(spec, spec);
	struct pipeline *rpl = net->side[1].pl;

	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	t_wire_run(net, NULL, NULL);
	cr_assert_eq(net->side[1].n_deliv, 1);
	cr_assert_eq(t_pending_acks(net, 1), 0, "threshold 8: no ack for one packet");
	/* The ack never comes: the sender resends packet 1. */
	pipeline_tick(net->side[0].pl, 5000);
	cr_assert_eq(t_wire_pending(net), 1);
	cr_assert(t_wire_peek(net, 0)->h.flags & PROTO_F_RETX);
	net->now = 5000;
	t_wire_run(net, NULL, NULL);
	/* Dropped (not delivered twice), but acknowledged at once, and the ack lands. */
	cr_assert_eq(net->side[1].n_deliv, 1, "delivered twice");
	cr_assert_eq(t_cnt(rpl, "dup_find", "duplicates_dropped"), 1);
	cr_assert_eq(net->side[1].released_hdr_only, 1);
	t_assert_all_ok(&net->side[0], 1);
	cr_assert_eq(t_conn(net, 0)->outstanding, 0);
	/* A duplicate without FORCE_ACK (an old copy) is answered too. */
	t_inject(net, 0, 1, SN_CHAN_QUICK, 0);
	cr_assert_eq(net->side[1].n_deliv, 1);
	cr_assert_eq(t_pending_acks(net, 1), 1, "a duplicate must be acknowledged again");
	cr_assert_eq(t_wire_peek(net, 0)->h.ack_base, 1);
	t_wire_run(net, NULL, NULL);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/*
 * The standalone ack a quick copy causes names it (DUP, pkt_num), whoever
 * found it a copy (dup_find, or build_acks itself without dup_find, or
 * with order above), also in a burst with a new packet; the ack of a new
 * packet names none, and neither does the next after a bulk copy (the
 * copy's BACK acks it: no QACK).
 */
Test(stages, the_ack_of_a_copy_names_it_and_no_other_ack_does)
{
	static const char *const specs[] = {
		"build_acks,dup_find,timer,genp", "build_acks,timer,genp", t_conf4_sr,
	};

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct t_net *net = t_net_same(specs[i]);
		const struct t_frame *a;

		cr_log_info("%s", specs[i]);
		for (uint32_t n = 1; n <= 4; n++)
			t_inject(net, 0, n, SN_CHAN_QUICK, PROTO_F_FORCE_ACK);
		for (int k = 0; k < t_wire_pending(net); k++) {
			a = t_wire_peek(net, k);
			cr_assert(!(a->h.flags & PROTO_F_DUP) && !a->h.pkt_num,
				  "%s: the ack of a new packet names 0x%x", specs[i], a->h.pkt_num);
		}
		t_wire_lose_all(net);
		t_inject(net, 0, 2, SN_CHAN_QUICK, PROTO_F_RETX | PROTO_F_FORCE_ACK);
		cr_assert_eq(t_pending_acks(net, 1), 1);
		a = t_wire_peek(net, 0);
		cr_assert((a->h.flags & PROTO_F_DUP) && a->h.pkt_num == 2 && a->h.ack_base == 4,
			  "%s: flags 0x%x pkt_num %u base %u", specs[i], a->h.flags, a->h.pkt_num,
			  a->h.ack_base);
		t_wire_lose_all(net);
		/* A bulk copy gets no QACK; the next one, of a new packet, names nothing. */
		t_inject(net, 0, 3, SN_CHAN_BULK, PROTO_F_RETX);
		t_inject(net, 0, 5, SN_CHAN_QUICK, PROTO_F_FORCE_ACK);
		cr_assert_eq(t_pending_acks(net, 1), 1);
		cr_assert_not(t_wire_peek(net, 0)->h.flags & PROTO_F_DUP, "%s", specs[i]);
		t_wire_lose_all(net);
		/* A copy and a new packet in one burst: the one ack names the copy. */
		t_inject_quick_burst(net, (const uint32_t[]) { 1, 6 }, 2, 0);
		/* (order passes them up one by one: an ack each) */
		cr_assert_geq(t_pending_acks(net, 1), 1);
		a = t_wire_peek(net, 0);
		cr_assert((a->h.flags & PROTO_F_DUP) && a->h.pkt_num == 1,
			  "%s: flags 0x%x pkt_num %u", specs[i], a->h.flags, a->h.pkt_num);
		for (int k = 1; k < t_wire_pending(net); k++)
			cr_assert_not(t_wire_peek(net, k)->h.flags & PROTO_F_DUP, "%s", specs[i]);
		t_wire_lose_all(net);
		/* Two copies in one burst: an ack each, naming its own (before, one named 3). */
		t_inject_quick_burst(net, (const uint32_t[]) { 2, 3 }, 2, PROTO_F_RETX);
		cr_assert_eq(t_pending_acks(net, 1), 2, "%s", specs[i]);
		for (int k = 0; k < 2; k++) {
			a = t_wire_peek(net, k);
			cr_assert((a->h.flags & PROTO_F_DUP) && a->h.pkt_num == 2u + (uint32_t)k,
				  "%s: ack %d: flags 0x%x pkt_num %u", specs[i], k, a->h.flags,
				  a->h.pkt_num);
		}
		t_wire_lose_all(net);
		cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
		t_net_free(net);
	}
}

Test(stages, max_retx_gives_up_with_sn_err_retries)
{
	struct t_net *net = t_net_new("build_acks,dup_find,timer:timeout_ns=1000,genp:max_retx=3",
				      "build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;
	uint64_t t = 0;

	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	for (int k = 0; k < 10 && !net->side[0].n_done; k++) {
		t_wire_lose_all(net);
		t = pipeline_tick(pl, t);
	}
	/* Three transmissions, then the marker that takes its number. */
	cr_assert_eq(net->side[0].n_sink, 4, "transmissions %d, want 3 and a marker",
		     net->side[0].n_sink);
	cr_assert(t_wire_peek(net, 0)->h.flags & PROTO_F_ABANDONED, "no marker");
	cr_assert_eq(net->side[0].n_done, 1);
	cr_assert_eq(net->side[0].done_status[0], SN_ERR_RETRIES);
	cr_assert_eq(t_cnt(pl, "genp", "gave_up"), 1);
	cr_assert_eq(t_conn(net, 0)->outstanding, 1, "the marker waits for its ack");
	/* The marker is resent until acknowledged; nothing is delivered. */
	t_wire_lose_all(net);
	t = pipeline_tick(pl, t);
	t_wire_run(net, NULL, NULL);
	cr_assert_eq(net->side[1].n_deliv, 0);
	cr_assert_eq(net->side[1].n_abandoned, 1);
	cr_assert_eq(net->side[0].n_done, 1, "a marker completes nothing");
	cr_assert_eq(t_conn(net, 0)->outstanding, 0);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/* Loses node 1's first standalone ack (*arg counts them) and every DUP ack. */
static bool t_drop_first_ack_and_dup_acks(void *arg, const struct t_frame *f)
{
	int *acks = arg;

	if (!t_drop_acks_of_1(NULL, f))
		return false;
	return (*acks)++ == 0 || (f->h.flags & PROTO_F_DUP);
}

/*
 * A node or switch built before the DUP flag refuses a DUP QACK whole
 * (`flags`: bit 13 was undefined; the version byte stayed 1), its ack
 * with it. Packet 1 taken, its ack lost: every copy is answered by a DUP
 * ack only, so a sender behind such a node gives the message up
 * (SEGNET_ERETRIES) although it was delivered, unless other traffic
 * carries the ack (doc/protocol.md, late acknowledgments: all nodes and
 * the switch run one build).
 */
Test(stages, a_peer_that_refuses_dup_acks_gives_up_a_message_whose_ack_was_lost)
{
	struct t_net *net = t_net_new("build_acks,dup_find,timer:timeout_ns=1000,genp:max_retx=3",
				      "build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;
	int acks = 0;

	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	for (int k = 0; k < 10 && !net->side[0].n_done; k++) {
		t_wire_run(net, t_drop_first_ack_and_dup_acks, &acks);
		net->now = pipeline_tick(pl, net->now);
		pipeline_tick(pl, net->now);
	}
	cr_assert_eq(net->side[1].n_deliv, 1, "delivered once");
	cr_assert_eq(acks, 3, "the first ack and a DUP ack for each of 2 copies");
	cr_assert_eq(net->side[0].n_done, 1);
	cr_assert_eq(net->side[0].done_status[0], SN_ERR_RETRIES);
	t_wire_lose_all(net);
	t_net_free(net);
}

/* ---- order ---------------------------------------------------------------- */

Test(stages, reorder_buffer_full_discards_and_counts)
{
	struct t_net *net = t_net_same(t_sr4);
	struct pipeline *pl = net->side[1].pl;
	struct sn_conn *rx = t_conn(net, 1);

	/* Packet 1 is missing; 2..5 fill the buffer, 6 does not fit. */
	for (uint32_t n = 2; n <= 6; n++)
		t_inject(net, 0, n, SN_CHAN_QUICK, 0);
	cr_assert_eq(net->side[1].n_deliv, 0);
	cr_assert_eq(t_cnt(pl, "order", "buffered"), 4);
	cr_assert_eq(t_cnt(pl, "order", "buffer_full"), 1);
	cr_assert_eq(net->side[1].released_hdr_only, 1, "packet 6's data must be dropped");
	/* Buffered packets are recorded (acked), the discarded one is not. */
	cr_assert_eq(rx->rx_base, 0);
	cr_assert_eq(rx->rx_mask, 0x1Eu, "mask 0x%x: 2..5 recorded, 6 not", rx->rx_mask);
	cr_assert_eq(t_pending_acks(net, 1), 1, "a discarded packet is answered");
	t_wire_lose_all(net);
	/* The gap fills: 1..5 in order. */
	t_inject(net, 0, 1, SN_CHAN_QUICK, 0);
	t_assert_delivered_in_order(&net->side[1], 1, 5);
	cr_assert_eq(t_cnt(pl, "order", "released"), 4);
	cr_assert_eq(rx->rx_base, 5);
	/* 6 again (its resend): delivered once. */
	t_inject(net, 0, 6, SN_CHAN_QUICK, PROTO_F_RETX | PROTO_F_FORCE_ACK);
	t_assert_delivered_in_order(&net->side[1], 1, 6);
	t_wire_lose_all(net);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/*
 * Runs net in simulated time in 1 us steps: a frame reaches its receiver
 * delay_ns after it left, unless drop loses it, and both pipelines tick at
 * every step. Returns when node 1 has delivered want packets, or at limit_ns.
 */
static uint64_t t_run_until_delivered(struct t_net *net, uint64_t delay_ns, t_drop_fn drop,
				      void *arg, int want, uint64_t limit_ns)
{
	for (; net->now < limit_ns; net->now += 1000) {
		while (net->next_wire < net->n_wire &&
		       net->wire[net->next_wire].t + delay_ns <= net->now) {
			struct t_frame f = net->wire[net->next_wire++];

			if (!drop || !drop(arg, &f))
				t_rx_frame(net, &f);
		}
		if (net->side[1].n_deliv >= want)
			return net->now;
		pipeline_tick(net->side[0].pl, net->now);
		pipeline_tick(net->side[1].pl, net->now);
	}
	return limit_ns;
}

/* Loses the first transmission of data packets 1 to *arg: a loss burst. */
static bool t_drop_first_up_to(void *arg, const struct t_frame *f)
{
	return (f->h.flags & PROTO_F_DATA) && !(f->h.flags & PROTO_F_RETX) &&
	       f->h.pkt_num <= *(uint32_t *)arg;
}

/*
 * 32 quick packets with a reorder buffer of 4, a round trip of 20 us and a
 * timer bound of 5 us (so the bound is not trusted: an expiry resends one
 * packet); the first transmissions of 1 to 3 are lost. The window holds the
 * sender to what the receiver can keep (1 to 5), so nothing it sends is
 * dropped for want of buffer space, and once the hole fills the rest follow
 * a window per round trip: all 32 in 145 us, 36 data frames. With the
 * window of 32, 6 to 32 were sent and dropped (buffer_full 27), then resent
 * one timer expiry at a time: 305 us, 62 data frames.
 */
Test(stages, a_loss_burst_under_a_small_reorder_buffer_costs_a_few_round_trips)
{
	const char *spec = "build_acks:threshold=1:delay_ns=2000,order:mode=sr:buffer=4,"
			   "dup_find,timer:timeout_ns=5000,genp";
	struct t_net *net = t_net_same(spec);
	uint32_t burst = 3;
	uint64_t done;

	t_send(net, 0, 32, SN_CHAN_QUICK, 0);
	done = t_run_until_delivered(net, 10000, t_drop_first_up_to, &burst, 32, 20000000);
	cr_log_info("all 32 delivered at %.1f us; %d data frames sent, %llu dropped beyond the buffer",
		    (double)done / 1000.0, net->side[0].n_sink,
		    (unsigned long long)t_cnt(net->side[1].pl, "order", "buffer_full"));
	t_assert_delivered_in_order(&net->side[1], 1, 32);
	cr_expect_eq(t_cnt(net->side[1].pl, "order", "buffer_full"), 0,
		     "%llu packets sent beyond the receiver's buffer",
		     (unsigned long long)t_cnt(net->side[1].pl, "order", "buffer_full"));
	cr_expect_leq(net->side[0].n_sink, 32 + 2 * (int)burst, "%d data frames for 32 packets",
		      net->side[0].n_sink);
	cr_expect_leq(done, 200000, "all 32 took %.1f us, 10 round trips are 200 us",
		      (double)done / 1000.0);
	net->now += 1000000;
	pipeline_tick(net->side[1].pl, net->now);
	t_wire_run(net, NULL, NULL);
	t_assert_all_ok(&net->side[0], 32);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

Test(stages, short_of_descriptors_order_holds_nothing_out_of_order)
{
	struct t_net *net = t_net_same(t_sr4);
	struct pipeline *pl = net->side[1].pl;
	struct sn_conn *rx = t_conn(net, 1);

	/* Packet 1 is missing: 2 is held, then descriptors run short and 3 is not. */
	t_inject(net, 0, 2, SN_CHAN_QUICK, 0);
	net->side[1].tight = true;
	t_inject(net, 0, 3, SN_CHAN_QUICK, 0);
	cr_assert_eq(t_cnt(pl, "order", "buffered"), 1);
	cr_assert_eq(t_cnt(pl, "order", "discarded_short_of_descriptors"), 1);
	cr_assert_eq(net->side[1].released_hdr_only, 1, "packet 3's data must be dropped");
	cr_assert_eq(rx->rx_mask, 0x2u, "mask 0x%x: 2 recorded, 3 not", rx->rx_mask);
	t_wire_lose_all(net);
	/* The packet in order is taken while short, and frees the one held. */
	t_inject(net, 0, 1, SN_CHAN_QUICK, 0);
	t_assert_delivered_in_order(&net->side[1], 1, 2);
	t_inject(net, 0, 3, SN_CHAN_QUICK, PROTO_F_RETX | PROTO_F_FORCE_ACK);
	t_assert_delivered_in_order(&net->side[1], 1, 3);
	t_wire_lose_all(net);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

Test(stages, go_back_n_order_discards_out_of_order)
{
	const char *spec = "build_acks:threshold=32:delay_ns=1000000,order:mode=gbn,dup_find,"
			   "timer:timeout_ns=5000,genp:retx=gbn";
	struct t_net *net = t_net_new(spec, spec);
	struct pipeline *rpl = net->side[1].pl;
	uint32_t lose = 2;

	t_send(net, 0, 5, SN_CHAN_QUICK, 0);
	t_wire_run(net, t_drop_first_of, &lose);
	/* 1 delivered; 3, 4, 5 discarded and not recorded. */
	t_assert_delivered_in_order(&net->side[1], 1, 1);
	cr_assert_eq(t_cnt(rpl, "order", "discarded_out_of_order"), 3);
	cr_assert_eq(t_cnt(rpl, "order", "buffered"), 0);
	cr_assert_eq(t_conn(net, 1)->rx_base, 1);
	cr_assert_eq(t_conn(net, 1)->rx_mask, 0);
	cr_assert_eq(net->side[1].released_hdr_only, 3);
	/* The acks freed packet 1; the timeout resends 2..5, which arrive in order. */
	cr_assert_eq(t_conn(net, 0)->outstanding, 4);
	net->now = 5000;
	pipeline_tick(net->side[0].pl, net->now);
	cr_assert_eq(t_wire_pending(net), 4);
	t_wire_run(net, NULL, NULL);
	t_assert_delivered_in_order(&net->side[1], 1, 5);
	net->now = 2000000;
	pipeline_tick(rpl, net->now);
	t_wire_run(net, NULL, NULL);
	t_assert_all_ok(&net->side[0], 5);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/* ---- genp window ------------------------------------------------------------ */

Test(stages, genp_window_limits_outstanding_and_releases_on_ack)
{
	struct t_net *net = t_net_new("build_acks,dup_find,timer,genp:window=4",
				      "build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;
	struct sn_conn *tx = t_conn(net, 0);

	t_send(net, 0, 10, SN_CHAN_QUICK, 0);
	cr_assert_eq(t_wire_pending(net), 4, "window 4: %d sent", t_wire_pending(net));
	cr_assert_eq(tx->outstanding, 4);
	cr_assert_eq(t_cnt(pl, "genp", "window_waits"), 6);
	t_wire_lose_all(net);
	/* Selective acks of 2..4 do not open the window: 1 is still out. */
	t_inject_ack(net, 0, 0, 0x7u << 1);
	cr_assert_eq(t_wire_pending(net), 0, "the window spans from the oldest unacked");
	cr_assert_eq(tx->outstanding, 1);
	/* Acking 1 opens 4 places: 5..8 leave, in order. */
	t_inject_ack(net, 0, 4, 0);
	cr_assert_eq(t_wire_pending(net), 4);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(t_wire_peek(net, i)->h.pkt_num, 5u + (uint32_t)i);
	t_wire_lose_all(net);
	t_inject_ack(net, 0, 5, 0);
	cr_assert_eq(t_wire_pending(net), 1);
	cr_assert_eq(t_wire_peek(net, 0)->h.pkt_num, 9);
	t_wire_lose_all(net);
	t_inject_ack(net, 0, 9, 0);
	cr_assert_eq(t_wire_peek(net, 0)->h.pkt_num, 10);
	t_wire_lose_all(net);
	t_inject_ack(net, 0, 10, 0);
	t_assert_all_ok(&net->side[0], 10);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/* Under selective-repeat order the window is at most the reorder buffer + 1. */
Test(stages, genp_window_is_bounded_by_the_reorder_buffer)
{
	static const struct { const char *conf; int64_t window; } cases[] = {
		{ "conf4-sr", 32 },
		{ "conf4-sr,order:buffer=31", 32 },
		{ "conf4-sr,order:buffer=4", 5 },
		{ "conf4-sr,order:buffer=1", 2 },
		{ "conf4-sr,order:buffer=8,genp:window=4", 4 },
		{ "conf4-gbn,order:buffer=4", 32 },	/* gbn keeps nothing: goes back N */
		{ "conf3", 32 },
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char spec[256], err[256] = "";
		struct t_side side = { .id = 0 };
		struct pipeline *pl;

		cr_assert_eq(conf_expand(cases[i].conf, spec, sizeof(spec), err, sizeof(err)), 0,
			     "%s: %s", cases[i].conf, err);
		pl = t_pipeline(&side, spec);
		cr_expect_eq(genp_window(t_stage(pl, "genp")), cases[i].window, "%s: window %lld",
			     cases[i].conf, (long long)genp_window(t_stage(pl, "genp")));
		pipeline_destroy(pl);
	}
}

/* ---- rate ------------------------------------------------------------------- */

Test(stages, rate_spaces_departures_on_the_injected_clock)
{
	struct t_net *net = t_net_new("rate:pps=1000:burst=1,build_acks,dup_find,"
				      "timer:timeout_ns=1000000000,genp",
				      "build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;
	struct t_side *s = &net->side[0];
	uint64_t t;

	net->now = 7;
	t_send(net, 0, 5, SN_CHAN_QUICK, 0);
	cr_assert_eq(s->n_sink, 1, "the first packet leaves at once");
	t = pipeline_tick(pl, net->now);
	cr_assert_eq(t, 7 + 1000000, "next departure at %llu", (unsigned long long)t);
	cr_assert_eq(pipeline_tick(pl, t - 1), t);
	cr_assert_eq(s->n_sink, 1, "left early");
	while (t != UINT64_MAX && t < 1000000000)
		t = pipeline_tick(pl, t);
	cr_assert_eq(s->n_sink, 5);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(s->sink_t[i], 7 + 1000000 * (uint64_t)i, "departure %d at %llu", i,
			     (unsigned long long)s->sink_t[i]);
	cr_assert_eq(t_cnt(pl, "rate", "delayed"), 4);
	t_wire_lose_all(net);
	t_net_free(net);
}

/* A late poll's credit is spent in gaps at most catchup_ns short of 1/pps. */
Test(stages, rate_catchup_makes_up_a_stall_without_a_burst)
{
	/* rate alone: genp's window would hold back packets nothing acknowledges. */
	struct t_net *net = t_net_new("rate:pps=1000:burst=100:catchup_ns=200000", "");
	struct pipeline *pl = net->side[0].pl;
	struct t_side *s = &net->side[0];
	uint64_t t = 0;

	t_send(net, 0, 61, SN_CHAN_QUICK, 0);
	cr_assert_eq(s->n_sink, 1, "the first packet leaves at once");
	/* The poller stalls for 10 ms: 10 packets are owed. */
	t = 10000000;
	while (t != UINT64_MAX && t < 1000000000)
		t = pipeline_tick(pl, t);
	cr_assert_eq(s->n_sink, 61);
	for (int i = 2; i < 61; i++)
		cr_assert_geq(s->sink_t[i] - s->sink_t[i - 1], 800000,
			      "gap %d is %llu ns, under 1 ms - 0.2 ms", i,
			      (unsigned long long)(s->sink_t[i] - s->sink_t[i - 1]));
	/*
	 * The 10 ms owed are repaid 0.2 ms a packet (0.8 ms gaps instead of
	 * 1 ms) over the next 50 packets; then the 61 packets have left at
	 * 1000 per second on average, as if nothing had stalled.
	 */
	cr_assert_lt(s->sink_t[11] - s->sink_t[1], 10 * 1000000, "no catch-up");
	cr_assert_leq(s->sink_t[60], 60000000, "last at %llu", (unsigned long long)s->sink_t[60]);
	t_wire_lose_all(net);
	t_net_free(net);
}

Test(stages, rate_burst_lets_packets_leave_back_to_back)
{
	struct t_net *net = t_net_new("rate:pps=1000:burst=3,build_acks,dup_find,"
				      "timer:timeout_ns=1000000000,genp",
				      "build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;
	struct t_side *s = &net->side[0];
	uint64_t t;

	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	/* Idle for 10 ms: the bucket holds 3 tokens, not 10. */
	net->now = 10000000;
	t_send(net, 0, 5, SN_CHAN_QUICK, 0);
	cr_assert_eq(s->n_sink, 4, "1 + a burst of 3");
	t = pipeline_tick(pl, net->now);
	cr_assert_eq(t, 11000000);
	pipeline_tick(pl, t);
	pipeline_tick(pl, t + 1000000);
	cr_assert_eq(s->n_sink, 6);
	cr_assert_eq(s->sink_t[5], 12000000);
	t_wire_lose_all(net);
	t_net_free(net);
}

/* ---- configuration errors --------------------------------------------------- */

/* pipeline_create must refuse spec, its message holding every '|'-separated word. */
static void t_bad_spec(const char *spec, const char *words)
{
	struct t_side side = { .id = 0 };
	struct pipeline_env env = {
		.ctx = &side, .sink = t_sink, .deliver = t_deliver,
		.complete = t_complete, .alloc = t_alloc, .release = t_release,
	};
	char err[256] = "", list[128], *save = NULL;
	struct pipeline *pl;

	errno = 0;
	pl = pipeline_create(&stage_registry, spec, T_VNET, 0, 2, &env, err, sizeof(err));
	cr_assert_null(pl, "'%s' was accepted", spec);
	cr_assert_eq(errno, EINVAL, "'%s': errno %d", spec, errno);
	snprintf(list, sizeof(list), "%s", words);
	for (char *w = strtok_r(list, "|", &save); w; w = strtok_r(NULL, "|", &save))
		cr_assert_not_null(strstr(err, w), "'%s': message '%s' lacks '%s'", spec, err, w);
	cr_log_info("'%s': %s", spec, err);
}

Test(stages, bad_configurations_are_refused_with_a_clear_message)
{
	t_bad_spec("build_acks,nope,genp", "unknown stage|nope|genp");
	t_bad_spec("build_acks,genp:speed=3", "genp|speed");
	t_bad_spec("build_acks,genp:window=33", "genp|window|33|32");
	t_bad_spec("build_acks,genp:window=0", "genp|window");
	t_bad_spec("build_acks,genp:window=4x", "genp|window");
	t_bad_spec("build_acks,genp:window", "genp|window|value");
	t_bad_spec("build_acks,genp:retx=fast", "genp|retx|sr|gbn");
	t_bad_spec("build_acks:delay_ns=-1,genp", "build_acks|delay_ns");
	t_bad_spec("build_acks,timer:late_floor=yes,genp", "timer|late_floor|off|on");
	t_bad_spec("build_acks,timer:late_floor=2,genp", "timer|late_floor");
	t_bad_spec("order", "order|genp");
	t_bad_spec("build_acks,order,genp", "order|dup_find");
	t_bad_spec("order:mode=gbn,build_acks,dup_find,timer,genp:retx=gbn", "order|build_acks|above");
	t_bad_spec("build_acks,dup_find,genp", "genp|timer|above");
	t_bad_spec("dup_find,genp", "dup_find|build_acks");
	t_bad_spec("build_acks,dup_find", "build_acks|genp");
	t_bad_spec("genp", "genp|build_acks");
	t_bad_spec("timer", "timer|genp");
	t_bad_spec("build_acks,timer,genp,rate", "rate|genp");
	t_bad_spec("build_acks:threshold=8,timer,genp:window=4", "threshold=8|window=4");
	t_bad_spec("build_acks:threshold=8,order:buffer=4,dup_find,timer,genp",
		   "threshold=8|window=5|order buffer");
	t_bad_spec("build_acks,genp,genp", "genp|twice");
	t_bad_spec("build_acks,timer,genp,timer", "timer|twice");
	t_bad_spec("rate,rate,rate,rate,rate,rate,rate,rate,rate,rate,rate,rate,rate", "more than");
	t_bad_spec("build_acks,:x=1,genp", "unknown stage|x=1");
}

Test(stages, every_standard_configuration_builds)
{
	for (const struct conf_def *c = conf_table; c->name; c++) {
		char spec[256], err[256] = "", desc[512];
		struct t_side side = { .id = 0 };
		struct pipeline *pl;

		cr_assert_eq(conf_expand(c->name, spec, sizeof(spec), err, sizeof(err)), 0,
			     "%s: %s", c->name, err);
		pl = t_pipeline(&side, spec);
		pipeline_describe(pl, desc, sizeof(desc));
		cr_log_info("%s = %s", c->name, desc);
		cr_assert_eq(pl->numbered, strcmp(c->name, "conf1") != 0);
		cr_assert_eq(pl->acked, strcmp(c->name, "conf1") != 0);
		pipeline_destroy(pl);
	}
}

/*
 * The exit summary's stage counters: "NODE.vnetID.STAGE.COUNTER value", a
 * key without spaces that names its node, like the rest of the summary.
 */
Test(stages, counters_print_under_the_node_and_vnet_without_spaces)
{
	struct t_net *net = t_net_new("build_acks,dup_find,timer,genp",
				      "build_acks,dup_find,timer,genp");
	char *out = NULL, *line, *save;
	size_t len = 0;
	int lines = 0;
	FILE *f = open_memstream(&out, &len);

	cr_assert_not_null(f);
	t_send(net, 0, 3, SN_CHAN_QUICK, 0);
	t_wire_run(net, NULL, NULL);
	pipeline_print_counters(net->side[0].pl, "n0", f);
	fclose(f);
	cr_assert(strstr(out, "n0.vnet1.genp.numbered 3\n"), "%s", out);
	cr_assert(strstr(out, "n0.vnet1.genp.acked 3\n"), "%s", out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cr_assert_eq(strncmp(line, "n0.vnet1.", 9), 0, "%s", line);
		cr_assert(strchr(line, ' ') == strrchr(line, ' '), "one space: %s", line);
		lines++;
	}
	cr_assert_gt(lines, 0);
	free(out);
	t_net_free(net);
}

/* conf_expand(in) must give want. */
static void t_expand(const char *in, const char *want)
{
	char out[256], err[256] = "";

	cr_assert_eq(conf_expand(in, out, sizeof(out), err, sizeof(err)), 0, "%s: %s", in, err);
	cr_assert_str_eq(out, want, "conf_expand(%s)", in);
}

Test(stages, conf_expand_names_and_overrides)
{
	char out[256], err[256];

	t_expand("conf1", "");
	t_expand("conf2", "build_acks,timer,genp");
	t_expand("conf3", "build_acks,dup_find,timer,genp");
	t_expand("conf4-gbn", "build_acks,order:mode=gbn,dup_find,timer,genp:retx=gbn");
	t_expand("conf4-sr", "build_acks,order:mode=sr,dup_find,timer,genp:retx=sr");
	t_expand("conf4-sr,timer:timeout_ns=30000,genp:window=16",
		 "build_acks,order:mode=sr,dup_find,timer:timeout_ns=30000,genp:retx=sr:window=16");
	t_expand("conf4-gbn,order:buffer=8",
		 "build_acks,order:mode=gbn:buffer=8,dup_find,timer,genp:retx=gbn");
	/* A stage the configuration lacks goes on top. */
	t_expand("conf2,rate:pps=1000", "rate:pps=1000,build_acks,timer,genp");
	t_expand("conf1,rate:pps=1000", "rate:pps=1000");
	/* A plain stage list passes through. */
	t_expand("build_acks,genp:window=8", "build_acks,genp:window=8");
	/* Errors name what is wrong. */
	cr_assert_eq(conf_expand("conf5", out, sizeof(out), err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "conf5"), "message: %s", err);
	cr_assert_eq(conf_expand("conf4", out, sizeof(out), err, sizeof(err)), -EINVAL,
		     "conf4 alone is ambiguous (gbn or sr)");
	cr_assert_not_null(strstr(err, "'conf4'"), "message: %s", err);
	cr_assert_eq(conf_expand("conf9,genp:window=4", out, sizeof(out), err, sizeof(err)),
		     -EINVAL);
	cr_assert_not_null(strstr(err, "conf9"), "message: %s", err);
	/* A word that is neither: the message lists configurations and stages. */
	cr_assert_eq(conf_expand("nope", out, sizeof(out), err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "'nope'"), "message: %s", err);
	cr_assert_not_null(strstr(err, "conf4-sr"), "message: %s", err);
	cr_assert_not_null(strstr(err, "build_acks"), "message: %s", err);
	/* A word longer than every name is refused and named whole. */
	cr_assert_eq(conf_expand("build_acks_and_then_some_more_words,genp", out, sizeof(out), err,
				 sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "'build_acks_and_then_some_more_words'"), "message: %s", err);
	cr_assert_eq(conf_expand("conf3,genp", out, sizeof(out), err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "genp"), "message: %s", err);
	cr_assert_eq(conf_expand("conf4-sr,timer:timeout_ns=1", out, 40, err, sizeof(err)),
		     -EINVAL);
	cr_assert_not_null(strstr(err, "too long"), "message: %s", err);
	/* A spec that does not fit is an error, never a truncated spec. */
	err[0] = '\0';
	cr_assert_eq(conf_expand("conf4-sr", out, 40, err, sizeof(err)), -EINVAL,
		     "conf4-sr in 40 bytes gave '%s'", out);
	cr_assert_not_null(strstr(err, "too long"), "message: %s", err);
}

Test(stages, overrides_take_effect_in_the_pipeline)
{
	char spec[256], err[256] = "", desc[512];
	struct t_side side = { .id = 0 };
	struct pipeline *pl;

	cr_assert_eq(conf_expand("conf4-sr,genp:retx=gbn:window=8,build_acks:threshold=8",
				 spec, sizeof(spec), err, sizeof(err)), 0, "%s", err);
	pl = t_pipeline(&side, spec);
	cr_assert_eq(stage_param(t_stage(pl, "genp"), "retx"), 1, "the later retx wins");
	cr_assert_eq(stage_param(t_stage(pl, "genp"), "window"), 8);
	cr_assert_eq(stage_param(t_stage(pl, "build_acks"), "threshold"), 8);
	pipeline_describe(pl, desc, sizeof(desc));
	cr_assert_not_null(strstr(desc, "genp(window=8,retx=gbn"), "%s", desc);
	pipeline_destroy(pl);
	/* An override the stage refuses fails at pipeline_create, naming it. */
	cr_assert_eq(conf_expand("conf2,genp:window=64", spec, sizeof(spec), err, sizeof(err)), 0);
	t_bad_spec(spec, "genp|window");
}

/* Jacobson/Karels in 64 bits: 7 * srtt passes 32 bits from 0.61 s. */
Test(stages, round_trips_of_a_second_keep_their_estimate)
{
	struct sn_conn c = { 0 };

	sn_conn_rtt_sample(&c, 1000000000ull);
	sn_conn_rtt_sample(&c, 1000000000ull);
	cr_assert_eq(c.srtt_ns, 1000000000u, "srtt %u after two 1 s samples", c.srtt_ns);
	cr_assert_eq(c.rttvar_ns, 375000000u, "rttvar %u", c.rttvar_ns);
}

/*
 * A late ack whose round trip the floor covers already does not raise it:
 * the timer caps the floor at timeout_ns, so round trips past the bound
 * stay late, and each doubled the floor (segnet-sim, 3 nodes, quick load
 * 0.1, conf3,timer:late_floor=on, --loss 0.01, seed 1: 3-9 us samples
 * drove it to 77 ms; at 0.05 to UINT32_MAX). A longer one still doubles it,
 * so the floor stays within twice the longest round trip late acks showed.
 */
Test(stages, the_floor_stays_within_twice_the_longest_late_ack)
{
	struct sn_conn c = { 0 };
	uint64_t now = 1000000;

	sn_conn_late_ack(&c, 6000, now);
	cr_assert_eq(sn_conn_rto_floor(&c, now), 6000);
	for (int i = 0; i < 100; i++)
		sn_conn_late_ack(&c, 3000 + 30 * (uint64_t)i, ++now);
	cr_assert_eq(sn_conn_rto_floor(&c, now), 6000, "floor %llu after 100 shorter late acks",
		     (unsigned long long)sn_conn_rto_floor(&c, now));
	sn_conn_late_ack(&c, 7000, ++now);
	cr_assert_eq(sn_conn_rto_floor(&c, now), 12000, "one that outgrew it doubles it");
	sn_conn_late_ack(&c, 12000, ++now);
	cr_assert_eq(sn_conn_rto_floor(&c, now), 12000);
}

/* sr keeps no packet build_acks cannot record (33 ahead): its resend is taken later. */
Test(stages, sr_order_keeps_nothing_beyond_the_ack_mask)
{
	struct t_net *net = t_net_same(t_conf4_sr);

	t_inject(net, 0, 33, SN_CHAN_QUICK, 0);	/* 33 ahead of rx_base 0 */
	for (uint32_t n = 1; n <= 32; n++)
		t_inject(net, 0, n, SN_CHAN_QUICK, 0);
	t_inject(net, 0, 33, SN_CHAN_QUICK, PROTO_F_RETX | PROTO_F_FORCE_ACK);
	cr_assert_eq(net->side[1].n_deliv, 33, "delivered %d of 33", net->side[1].n_deliv);
	cr_assert_eq(t_conn(net, 1)->rx_base, 33, "rx_base %u", t_conn(net, 1)->rx_base);
	t_wire_lose_all(net);
	t_net_free(net);
}

/* Credit in ns x pps: 1/84e6 s is 11.9 ns, not 11. */
Test(stages, rate_paces_a_rate_whose_gap_is_not_whole_ns)
{
	struct t_net *net = t_net_new("rate:pps=84000000", "");
	struct t_side *s = &net->side[0];
	uint64_t t;

	t_send(net, 0, 64, SN_CHAN_QUICK, 0);
	for (t = pipeline_tick(s->pl, 0); t != UINT64_MAX; t = pipeline_tick(s->pl, t))
		;
	cr_assert_eq(s->n_sink, 64);
	/* 63 gaps of 11.905 ns: 750 ns, within a ns of rounding. */
	cr_assert(s->sink_t[63] - s->sink_t[0] >= 749 && s->sink_t[63] - s->sink_t[0] <= 751,
		  "63 gaps took %llu ns", (unsigned long long)(s->sink_t[63] - s->sink_t[0]));
	t_wire_lose_all(net);
	t_net_free(net);
}

/* The largest max_retx still gives up: tx_count saturates, it never wraps to "unsent". */
Test(stages, the_largest_max_retx_still_gives_up)
{
	struct t_net *net = t_net_new("build_acks,dup_find,timer:timeout_ns=1000:adaptive=off,"
				      "genp:max_retx=65535", "build_acks,dup_find,timer,genp");
	struct pipeline *pl = net->side[0].pl;
	uint64_t t = 0;

	t_send(net, 0, 1, SN_CHAN_QUICK, 0);
	for (int k = 0; k < 70000 && t != UINT64_MAX; k++) {
		net->side[0].n_sink = 0;
		net->n_wire = net->next_wire = 0;	/* the wire loses everything */
		t = pipeline_tick(pl, t);
	}
	cr_assert_eq(net->side[0].n_done, 1, "max_retx=65535 never gave up");
	cr_assert_eq(net->side[0].done_status[0], SN_ERR_RETRIES);
	t_net_free(net);
}

/* Loses every frame while *arg is true. */
static bool t_drop_while(void *arg, const struct t_frame *f)
{
	(void)f;
	return *(bool *)arg;
}

/*
 * A message given up leaves no hole: a marker takes its number, so the
 * receiver delivers what follows, and nothing completes OK undelivered.
 * Before, sr acknowledged the 31 packets after the hole by mask (completed
 * OK) while order held them for ever, and the rest failed. The link works
 * again before the marker went 2 * max_retx times in all (that restarts
 * the connection: genp_stuck).
 */
Test(stages, a_message_given_up_leaves_no_hole)
{
	const char *spec = "build_acks:threshold=1,order:mode=sr,dup_find,"
			   "timer:timeout_ns=10000:adaptive=off,genp:retx=sr:max_retx=3";
	struct t_net *net = t_net_same(spec);
	bool lose = true;
	int ok = 0, failed = 0;

	t_send(net, 0, 1, SN_CHAN_QUICK, 0);	/* packet 1: lost 3 times, its marker once */
	for (int k = 0; k < 10; k++) {
		lose = k < 4;
		t_wire_run(net, t_drop_while, &lose);
		net->now += 20000;
		pipeline_tick(net->side[0].pl, net->now);
		pipeline_tick(net->side[1].pl, net->now);
	}
	lose = false;				/* the link works again */
	for (int r = 0; r < 5; r++) {
		t_send(net, 0, 8, SN_CHAN_QUICK, 0);	/* packets 2 .. 41 */
		for (int k = 0; k < 5; k++) {
			t_wire_run(net, NULL, NULL);
			net->now += 20000;
			pipeline_tick(net->side[0].pl, net->now);
			pipeline_tick(net->side[1].pl, net->now);
		}
	}
	for (int i = 0; i < net->side[0].n_done; i++)
		net->side[0].done_status[i] == SN_OK ? ok++ : failed++;
	cr_assert_eq(failed, 1, "only the message given up fails (%d did)", failed);
	cr_assert_eq(net->side[0].done_status[0], SN_ERR_RETRIES);
	cr_assert_eq(ok, 40, "%d completed OK", ok);
	cr_assert_eq(net->side[1].n_deliv, 40, "%d of 40 delivered", net->side[1].n_deliv);
	cr_assert_eq(net->side[1].n_abandoned, 1);
	cr_assert_eq(t_conn(net, 1)->rx_base, 41, "rx_base %u", t_conn(net, 1)->rx_base);
	for (int i = 0; i < 40; i++)
		cr_assert_eq(net->side[1].deliv[i], (uint32_t)i + 2, "in order");
	cr_assert_eq(t_conn(net, 0)->outstanding, 0, "the marker was acknowledged");
	t_net_free(net);
}

/*
 * A peer that restarts (DOWN notice: the NIC resets the connection) numbers
 * from 1 again: order starts over too, and what it held for the old
 * incarnation is released, not delivered.
 */
Test(stages, a_reset_connection_delivers_from_packet_1_again)
{
	struct t_net *net = t_net_same(t_conf4_sr);

	for (uint32_t n = 1; n <= 3; n++)
		t_inject(net, 0, n, SN_CHAN_QUICK, 0);
	t_inject(net, 0, 5, SN_CHAN_QUICK, 0);	/* held: 4 is missing */
	cr_assert_eq(net->side[1].n_deliv, 3);
	/* What nic_fail_peer does: at the restarted sender, and on its DOWN notice. */
	pipeline_conn_reset(net->side[0].pl, t_conn(net, 0), true, net->now);
	pipeline_conn_reset(net->side[1].pl, t_conn(net, 1), true, net->now);
	t_inject(net, 0, 1, SN_CHAN_QUICK, 0);
	t_inject(net, 0, 2, SN_CHAN_QUICK, 0);
	cr_assert_eq(net->side[1].n_deliv, 5, "the new incarnation's 1 and 2: %d delivered",
		     net->side[1].n_deliv);
	cr_assert_eq(net->side[1].deliv[3], 1);
	cr_assert_eq(net->side[1].deliv[4], 2);
	t_wire_lose_all(net);
	t_net_free(net);
}

/* ---- connection resets and epochs ---------------------------------------- */

/* Send n messages from node a, message ids first, first + 1, ... (in h.handler). */
static void t_send_ids(struct t_net *net, int a, int n, uint16_t first)
{
	struct sn_pkt *pkts[64];

	cr_assert_leq(n, 64);
	for (int i = 0; i < n; i++) {
		struct sn_pkt *p = t_pkt_new(net);

		p->h.flags = PROTO_F_DATA | PROTO_F_LAST;
		p->h.dst_node = (uint16_t)(1 - a);
		p->h.vnet = T_VNET;
		p->h.handler = (uint16_t)(first + i);
		p->chan = SN_CHAN_QUICK;
		p->conn = t_conn(net, a);
		pkts[i] = p;
	}
	pipeline_tx(net->side[a].pl, pkts, (uint16_t)n, net->now);
}

/* What nic_fail_peer does to node a's connection (a DOWN notice, or a rejoin). */
static void t_reset_conn(struct t_net *net, int a)
{
	pipeline_conn_reset(net->side[a].pl, t_conn(net, a), true, net->now);
}

/* rounds of: hand over the wire (drop decides), then tick both nodes step ns later. */
static void t_run(struct t_net *net, int rounds, uint64_t step, t_drop_fn drop, void *arg)
{
	for (int k = 0; k < rounds; k++) {
		t_wire_run(net, drop, arg);
		net->n_wire = net->next_wire = 0;	/* all handed over: room again */
		net->side[0].n_sink = net->side[1].n_sink = 0;
		net->now += step;
		pipeline_tick(net->side[0].pl, net->now);
		pipeline_tick(net->side[1].pl, net->now);
	}
	t_wire_run(net, drop, arg);
}

/* Status of node s's completion of message id (-1: never completed). */
static int t_status_of(const struct t_side *s, uint16_t id)
{
	for (int i = 0; i < s->n_done; i++)
		if (s->done_h[i] == id)
			return s->done_status[i];
	return -1;
}

/* How often node s delivered message id. */
static int t_delivered_id(const struct t_side *s, uint16_t id)
{
	int n = 0;

	for (int i = 0; i < s->n_deliv; i++)
		n += s->deliv_h[i] == id;
	return n;
}

/* Every message sender s completed OK was delivered by receiver r exactly once. */
static void t_assert_ok_means_delivered(const struct t_side *s, const struct t_side *r)
{
	for (int i = 0; i < s->n_done; i++)
		if (s->done_status[i] == SN_OK)
			cr_assert_eq(t_delivered_id(r, s->done_h[i]), 1,
				     "message %u completed OK but was delivered %d times",
				     s->done_h[i], t_delivered_id(r, s->done_h[i]));
}

/* Loses every transmission of data packet number *arg. */
static bool t_drop_num(void *arg, const struct t_frame *f)
{
	return (f->h.flags & PROTO_F_DATA) && f->h.pkt_num == *(uint32_t *)arg;
}

/*
 * With order (conf4-sr) the receiver acknowledges by mask a packet it only
 * holds in its reorder buffer, behind a hole. genp completed it OK on that
 * mask, so a restart of the receiver's connection before the hole filled
 * (order drops what it held) left messages that completed OK and were never
 * delivered (a review's stress run: 556 OK, 551 delivered). The mask now only
 * stops their retransmission; they complete with the ack base.
 */
Test(stages, a_packet_held_behind_a_hole_completes_only_when_delivered)
{
	struct t_net *net = t_net_same(t_conf4_sr);
	struct t_side *tx = &net->side[0];
	uint32_t hole = 1;

	t_send_ids(net, 0, 3, 100);		/* packets 1 .. 3; 1 never arrives */
	t_run(net, 4, 5000, t_drop_num, &hole);
	cr_assert_eq(net->side[1].n_deliv, 0);
	cr_assert_eq(t_cnt(tx->pl, "genp", "sacked"), 2);
	cr_assert_eq(tx->n_done, 0, "%d completed while order holds them", tx->n_done);
	cr_assert_eq(t_conn(net, 0)->outstanding, 3);
	t_reset_conn(net, 1);			/* the receiver restarts */
	t_reset_conn(net, 0);
	for (uint16_t id = 100; id < 103; id++)
		cr_assert_eq(t_status_of(tx, id), SN_ERR_DOWN, "message %u: %d", id,
			     t_status_of(tx, id));
	t_assert_ok_means_delivered(tx, &net->side[1]);
	/* The new incarnation: the hole fills, and all three complete OK. */
	t_send_ids(net, 0, 3, 200);
	t_wire_run(net, t_drop_first_of, &hole);
	t_run(net, 10, 5000, NULL, NULL);
	for (uint16_t id = 200; id < 203; id++)
		cr_assert_eq(t_status_of(tx, id), SN_OK, "message %u: %d", id,
			     t_status_of(tx, id));
	t_assert_ok_means_delivered(tx, &net->side[1]);
	cr_assert_eq(t_conn(net, 0)->outstanding, 0);
	cr_assert_eq(net->live, 0, "descriptors leaked: %d", net->live);
	t_net_free(net);
}

/*
 * A message given up while no descriptor is free: genp used to take a
 * fresh descriptor for the marker of its number, and without one left the
 * hole the marker exists to prevent (the sr receiver acknowledged the 31
 * packets after it by mask, so they completed OK, and order held them for
 * ever). The packet itself is the marker now.
 */
Test(stages, a_message_given_up_without_a_descriptor_leaves_no_hole)
{
	const char *spec = "build_acks:threshold=1,order:mode=sr,dup_find,"
			   "timer:timeout_ns=10000:adaptive=off,genp:retx=sr:max_retx=3";
	struct t_net *net = t_net_same(spec);
	bool lose = true;
	int ok = 0;

	t_send_ids(net, 0, 1, 1);		/* packet 1: lost 3 times ... */
	net->side[0].alloc_fails = true;	/* ... while node 0 is out of descriptors */
	t_run(net, 10, 20000, t_drop_while, &lose);
	net->side[0].alloc_fails = false;
	cr_assert_eq(t_cnt(net->side[0].pl, "genp", "gave_up"), 1);
	lose = false;
	for (int r = 0; r < 5; r++) {
		t_send_ids(net, 0, 8, (uint16_t)(2 + 8 * r));	/* packets 2 .. 41 */
		t_run(net, 5, 20000, NULL, NULL);
	}
	t_run(net, 200, 20000, NULL, NULL);
	for (int i = 0; i < net->side[0].n_done; i++)
		ok += net->side[0].done_status[i] == SN_OK;
	cr_log_info("completed OK %d, delivered %d, order holds %llu", ok,
		    net->side[1].n_deliv,
		    (unsigned long long)t_cnt(net->side[1].pl, "order", "buffered"));
	t_assert_ok_means_delivered(&net->side[0], &net->side[1]);
	cr_assert_eq(net->side[1].n_deliv, 40, "%d of the 40 later messages delivered",
		     net->side[1].n_deliv);
	t_net_free(net);
}

/*
 * A frame of the old incarnation that is still in the network (a switch
 * queue, a NIC's transmit ring, a --fault delay) when both ends reset their
 * connection (the receiver restarted; nic_fail_peer on the DOWN notice at
 * the sender and on the rejoin at the receiver) carries a packet number the
 * new incarnation will use again. Without the epoch the new connection
 * would take the old packet 6 (its message failed with SN_ERR_DOWN at the
 * sender) as its own packet 6, deliver it, then drop the real packet 6 as a
 * duplicate and acknowledge it (205 OK, never delivered). The old frame
 * carries the old epoch: it is dropped.
 */
Test(stages, a_frame_from_before_a_reset_is_dropped_as_stale)
{
	struct t_net *net = t_net_same(t_conf4_sr);
	struct t_side *rx = &net->side[1];
	struct t_frame old;
	int before;

	t_send_ids(net, 0, 5, 100);
	t_run(net, 10, 5000, NULL, NULL);
	cr_assert_eq(rx->n_deliv, 5);
	t_send_ids(net, 0, 1, 105);		/* packet 6, still on its way ... */
	cr_assert_eq(t_wire_pending(net), 1);
	old = *t_wire_peek(net, 0);
	t_wire_lose_all(net);
	t_reset_conn(net, 0);			/* ... when node 1 restarts */
	t_reset_conn(net, 1);
	cr_assert_eq(t_status_of(&net->side[0], 105), SN_ERR_DOWN);
	before = rx->n_deliv;
	t_rx_frame(net, &old);			/* it arrives late */
	t_send_ids(net, 0, 6, 200);		/* new incarnation: packets 1 .. 6 */
	t_run(net, 20, 5000, NULL, NULL);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(t_status_of(&net->side[0], (uint16_t)(200 + i)), SN_OK);
	cr_assert_eq(t_delivered_id(rx, 105), 0,
		     "message 105 failed with SN_ERR_DOWN at its sender but was delivered "
		     "(deliveries after the reset: %d)", rx->n_deliv - before);
	t_assert_ok_means_delivered(&net->side[0], rx);
	t_net_free(net);
}

/* Keeps the last frame node 1 sends (an ack) in *arg and loses it. */
static bool t_keep_from_1(void *arg, const struct t_frame *f)
{
	if (f->from != 1)
		return false;
	*(struct t_frame *)arg = *f;
	return true;
}

/*
 * The same for an acknowledgment: node 1's ack of the old packets 1 .. 5
 * arrives after both ends reset. Node 0's new packets 1 .. 6 were all lost,
 * but the old ack base 5 is within what node 0 sent since: genp alone
 * would take it (it acks numbers that were sent) and complete the new
 * messages 200 .. 204 OK, never delivered. Its old epoch has it dropped.
 */
Test(stages, an_ack_from_before_a_reset_acknowledges_nothing)
{
	struct t_net *net = t_net_same(t_conf4_sr);
	struct t_frame ack = { 0 };
	bool lose = true;

	t_send_ids(net, 0, 5, 100);
	t_run(net, 3, 5000, t_keep_from_1, &ack);	/* node 1's acks are slow */
	cr_assert_eq(net->side[1].n_deliv, 5);
	cr_assert_eq(ack.h.type, PROTO_T_QACK);
	cr_assert_eq(ack.h.ack_base, 5);
	t_reset_conn(net, 0);			/* node 1 restarted */
	t_reset_conn(net, 1);
	t_send_ids(net, 0, 6, 200);		/* new packets 1 .. 6: all lost */
	t_wire_lose_all(net);
	t_rx_frame(net, &ack);			/* the old ack arrives */
	t_run(net, 40, 5000, t_drop_while, &lose);
	lose = false;
	t_run(net, 40, 5000, NULL, NULL);
	cr_assert_eq(t_cnt(net->side[0].pl, "genp", "stale_acks"), 0);
	t_assert_ok_means_delivered(&net->side[0], &net->side[1]);
	t_net_free(net);
}

/*
 * Only a DOWN notice from the switch makes the other end of a connection
 * start over when a node restarts, and switchd sends it once
 * (sw_node_join: one BACK with the DOWN flag to each node, no retry, no
 * ack). Were it lost without epochs, the two ends would never understand
 * each other again: node 0 numbers from 1, node 1 still expects 11 and
 * takes 1 .. 5 for duplicates. Node 0's new epoch makes node 1 restart too.
 */
Test(stages, a_lost_down_notice_is_made_up_by_the_epoch)
{
	const char *spec = "build_acks:threshold=1,order:mode=sr,dup_find,"
			   "timer:timeout_ns=10000:adaptive=off,genp:retx=sr:max_retx=5";
	struct t_net *net = t_net_same(spec);

	t_send_ids(net, 0, 10, 100);
	t_run(net, 10, 20000, NULL, NULL);
	cr_assert_eq(net->side[1].n_deliv, 10);
	t_reset_conn(net, 0);		/* node 0 restarted; node 1's DOWN notice was lost */
	t_send_ids(net, 0, 5, 200);
	t_run(net, 500, 20000, NULL, NULL);	/* 10 ms */
	cr_log_info("node 1 duplicates_dropped %llu, node 0 stale_acks %llu, gave_up %llu, outstanding %u",
		    (unsigned long long)t_cnt(net->side[1].pl, "dup_find", "duplicates_dropped"),
		    (unsigned long long)t_cnt(net->side[0].pl, "genp", "stale_acks"),
		    (unsigned long long)t_cnt(net->side[0].pl, "genp", "gave_up"),
		    t_conn(net, 0)->outstanding);
	cr_assert_eq(net->side[1].n_deliv, 15, "none of the 5 messages sent after the restart "
		     "was delivered (%d deliveries): the connection never recovers",
		     net->side[1].n_deliv);
	t_net_free(net);
}

/* Node a's connection is at epoch e, as if the peer's frames had set it. */
static void t_set_epoch(struct t_net *net, int a, uint16_t e)
{
	struct sn_conn *c = t_conn(net, a);

	c->epoch = e;
	c->epoch_known = true;
}

/*
 * Epochs half the range apart are neither older nor newer by their
 * difference: the node with the lower id wins, on both sides alike, so one
 * restarts and the other drops (and answers) the frame, never both or
 * neither. Any other difference decides by itself, across the wrap too.
 */
Test(stages, epochs_half_the_range_apart_go_to_the_lower_node)
{
	struct t_net *net = t_net_same(t_conf4_sr);

	t_set_epoch(net, 0, 0x0005);
	t_set_epoch(net, 1, 0x8005);
	/* Node 1 sees node 0's 0x0005: node 0 is the lower id, so it is newer. */
	cr_assert_eq(pipeline_rx_epoch(net->side[1].pl, t_conn(net, 1), 0x0005, false, net->now),
		     PIPELINE_EPOCH_NEWER);
	cr_assert_eq(t_conn(net, 1)->epoch, 0x0005, "adopted as it is, not moved on");
	/* Node 0 sees node 1's 0x8005: node 1 is the higher id, so it is stale. */
	cr_assert_eq(pipeline_rx_epoch(net->side[0].pl, t_conn(net, 0), 0x8005, false, net->now),
		     PIPELINE_EPOCH_STALE);
	cr_assert_eq(t_conn(net, 0)->epoch, 0x0005);
	cr_assert_eq(t_pending_acks(net, 0), 1, "the stale frame is answered by an ack");
	cr_assert_eq(t_wire_peek(net, 0)->h.epoch, 0x0005);
	cr_assert_eq(pipeline_rx_epoch(net->side[0].pl, t_conn(net, 0), 0x8004, false, net->now),
		     PIPELINE_EPOCH_NEWER, "short of half the range");
	t_set_epoch(net, 1, 0xFFFF);
	cr_assert_eq(pipeline_rx_epoch(net->side[1].pl, t_conn(net, 1), 0x0001, false, net->now),
		     PIPELINE_EPOCH_NEWER, "0x0001 is after 0xFFFF");
	cr_assert_eq(pipeline_rx_epoch(net->side[1].pl, t_conn(net, 1), 0xFFFF, false, net->now),
		     PIPELINE_EPOCH_STALE, "0xFFFF is before 0x0001");
	t_wire_lose_all(net);
	t_net_free(net);
}

/*
 * The tie-break end to end: node 1 (epoch 0x8000) sends to node 0 (epoch
 * 0), which drops the frames and answers; the answer restarts node 1's
 * connection (its messages fail with SN_ERR_DOWN, never delivered), and
 * what node 1 sends afterwards arrives.
 */
Test(stages, a_tie_of_epochs_settles_on_the_lower_nodes)
{
	struct t_net *net = t_net_same(t_conf4_sr);

	t_set_epoch(net, 0, 0);
	t_set_epoch(net, 1, 0x8000);
	t_send_ids(net, 1, 3, 100);
	t_run(net, 20, 5000, NULL, NULL);
	cr_assert_eq(net->side[0].n_deliv, 0);
	cr_assert_eq(t_conn(net, 1)->epoch, 0, "node 1 took node 0's epoch");
	for (int i = 0; i < 3; i++)
		cr_assert_eq(t_status_of(&net->side[1], (uint16_t)(100 + i)), SN_ERR_DOWN);
	t_send_ids(net, 1, 3, 200);
	t_run(net, 20, 5000, NULL, NULL);
	cr_assert_eq(net->side[0].n_deliv, 3);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(t_status_of(&net->side[1], (uint16_t)(200 + i)), SN_OK);
	t_assert_ok_means_delivered(&net->side[1], &net->side[0]);
	t_net_free(net);
}

/*
 * Node 1 reset its connection (a DOWN notice about node 0) and has nothing
 * to send; node 0 missed the reset. Node 0's frames carry the old epoch:
 * node 1 drops each and answers with an ack-only frame of the new epoch,
 * from which node 0 learns the reset: its connection restarts (what it sent
 * fails with SN_ERR_DOWN) and what it sends next is delivered.
 */
Test(stages, a_peer_that_missed_the_reset_learns_it_from_the_ack_only_reply)
{
	struct t_net *net = t_net_same(t_conf4_sr);

	t_send_ids(net, 0, 4, 100);
	t_run(net, 10, 5000, NULL, NULL);
	cr_assert_eq(net->side[1].n_deliv, 4);
	t_reset_conn(net, 1);			/* node 0's DOWN notice never came */
	cr_assert_eq(t_conn(net, 1)->epoch, (uint16_t)(t_conn(net, 0)->epoch + 1));
	t_send_ids(net, 0, 1, 104);		/* old epoch, number 5 */
	cr_assert_eq(t_wire_pending(net), 1);
	t_wire_run(net, NULL, NULL);		/* dropped; the reply restarts node 0 */
	cr_assert_eq(net->side[1].n_deliv, 4, "a stale frame was delivered");
	cr_assert_eq(t_conn(net, 0)->epoch, t_conn(net, 1)->epoch);
	cr_assert_eq(t_status_of(&net->side[0], 104), SN_ERR_DOWN);
	cr_assert_eq(t_conn(net, 0)->tx_next, 1, "numbering starts over");
	t_send_ids(net, 0, 3, 200);
	t_run(net, 20, 5000, NULL, NULL);
	cr_assert_eq(net->side[1].n_deliv, 7);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(t_delivered_id(&net->side[1], (uint16_t)(200 + i)), 1);
	t_assert_ok_means_delivered(&net->side[0], &net->side[1]);
	t_net_free(net);
}

/* Drops the data frames node 0 sends while *arg is above 0, counting down. */
static bool t_drop_data_n(void *arg, const struct t_frame *f)
{
	int *n = arg;

	if (f->from != 0 || !(f->h.flags & PROTO_F_DATA) || *n <= 0)
		return false;
	(*n)--;
	return true;
}

/*
 * A reset starts the retransmission back-off over: the first loss of the new
 * incarnation is resent after the connection's round-trip estimate, as on a
 * connection without timeouts behind it, not after the back-off the old
 * incarnation's timeouts left (up to the 1 ms bound). Before, it waited the
 * bound.
 */
Test(stages, a_reset_starts_the_retransmission_back_off_over)
{
	struct t_net *net = t_net_same("build_acks,dup_find,timer,genp:retx=sr:max_retx=0");
	const uint64_t step = 1000;	/* 1 us rounds */
	int lose, rounds;

	net->now = 1000000;		/* a send at 0 would give no sample */
	t_send_ids(net, 0, 4, 1);	/* round-trip samples of 20 us */
	net->now += 20000;
	t_run(net, 50, step, NULL, NULL);
	cr_assert_neq(t_conn(net, 0)->srtt_ns, 0);
	t_send_ids(net, 0, 1, 5);	/* lost for 30 ms: timeouts back off */
	lose = 1 << 30;
	t_run(net, 30000, step, t_drop_data_n, &lose);
	cr_assert_gt(t_conn(net, 0)->rto_backoff, 3, "back-off %u", t_conn(net, 0)->rto_backoff);
	t_reset_conn(net, 0);
	t_reset_conn(net, 1);
	t_send_ids(net, 0, 1, 6);	/* the new incarnation's first, lost once */
	lose = 1;
	for (rounds = 0; rounds < 2000 && !t_delivered_id(&net->side[1], 6); rounds++)
		t_run(net, 1, step, t_drop_data_n, &lose);
	cr_log_info("srtt %u ns, resent and delivered after %d us", t_conn(net, 0)->srtt_ns, rounds);
	cr_assert_lt(rounds, 200, "the first loss after the reset waited %d us", rounds);
	t_net_free(net);
}

/*
 * FRESH frames: the peer's connection knows no epoch yet (its process just
 * started) and its frames carry its boot nonce instead (pipeline_rx_fresh).
 */

/*
 * A FRESH data frame (packet num, message id) of nonce to node `to`,
 * checked and handed over as split does; what the check said.
 */
static enum pipeline_epoch t_inject_fresh(struct t_net *net, uint8_t to, uint32_t num,
					  uint16_t id, uint16_t nonce)
{
	struct sn_conn *c = t_conn(net, to);
	enum pipeline_epoch r = pipeline_rx_fresh(net->side[to].pl, c, nonce, net->now);
	struct sn_pkt *p;

	if (r == PIPELINE_EPOCH_STALE)
		return r;
	p = t_pkt_new(net);
	p->h = (struct proto_pkt) {
		.type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_LAST | PROTO_F_FRESH,
		.src_node = (uint16_t)(1 - to), .dst_node = to, .vnet = T_VNET,
		.pkt_num = num, .handler = id, .epoch = nonce,
	};
	p->chan = SN_CHAN_QUICK;
	p->conn = c;
	pipeline_rx(net->side[to].pl, &p, 1, net->now);
	return r;
}

/*
 * What a FRESH frame does by what its connection holds: a new connection
 * takes it and the first epoch of the pair of processes (both ends fresh
 * agree on it: pipeline_pair_epoch of both nonces, here 0 and 0xA); the
 * same nonce again is taken; after a reset, that nonce is from before it
 * (stale: dropped; the NIC answers with a WELCOME that says RESTART, the
 * pipeline sends nothing), while another one (the
 * peer's next process) is taken, the connection having heard nothing since;
 * and a third nonce at a connection in use with messages pending restarts
 * it at the next epoch: they fail with SN_ERR_DOWN, numbering starts over.
 */
Test(stages, a_fresh_frame_is_taken_or_restarts_by_what_its_connection_holds)
{
	struct t_net *net = t_net_same("build_acks,dup_find,timer,genp");
	struct sn_conn *c = t_conn(net, 1);
	uint16_t e0 = pipeline_pair_epoch(0, 0xA);	/* the pair's first */
	int wire;

	cr_assert_eq(t_inject_fresh(net, 1, 1, 10, 0xA), PIPELINE_EPOCH_CURRENT);
	cr_assert(c->epoch_known);
	cr_assert_eq(c->epoch, e0);
	cr_assert_eq(t_inject_fresh(net, 1, 2, 11, 0xA), PIPELINE_EPOCH_CURRENT);
	cr_assert_eq(net->side[1].n_deliv, 2);
	t_reset_conn(net, 1);			/* the peer's DOWN notice: epoch 1 */
	wire = net->n_wire;
	cr_assert_eq(t_inject_fresh(net, 1, 3, 12, 0xA), PIPELINE_EPOCH_STALE);
	cr_assert_eq(net->n_wire, wire, "the pipeline answered the stale frame itself");
	cr_assert_eq(net->side[1].n_deliv, 2);
	cr_assert_eq(t_inject_fresh(net, 1, 1, 20, 0xB), PIPELINE_EPOCH_CURRENT);
	cr_assert_eq(c->epoch, (uint16_t)(e0 + 1));
	cr_assert_eq(net->side[1].n_deliv, 3);
	t_send_ids(net, 1, 2, 30);		/* pending at the peer's old process */
	cr_assert_eq(c->tx_next, 3);
	cr_assert_eq(t_inject_fresh(net, 1, 1, 40, 0xC), PIPELINE_EPOCH_FRESH_RESTART);
	cr_assert_eq(t_status_of(&net->side[1], 30), SN_ERR_DOWN);
	cr_assert_eq(t_status_of(&net->side[1], 31), SN_ERR_DOWN);
	cr_assert_eq(c->epoch, (uint16_t)(e0 + 2));
	cr_assert_eq(c->tx_next, 1, "numbering did not start over");
	cr_assert_eq(t_delivered_id(&net->side[1], 40), 1, "the new process's packet 1");
	t_net_free(net);
}

/*
 * A connection that took its epoch from the peer's frame while it knew
 * none (its own process is new) takes a later FRESH frame without a
 * restart: the peer's frame sent before it knew the epoch, overtaken by
 * one sent after (another channel, a reordering). Once it took a nonce, a
 * different one restarts it.
 */
Test(stages, a_fresh_frame_overtaken_by_its_senders_next_restarts_nothing)
{
	struct t_net *net = t_net_same("build_acks,dup_find,timer,genp");
	struct sn_conn *c = t_conn(net, 1);

	t_set_epoch(net, 0, 7);
	t_inject(net, 0, 2, SN_CHAN_QUICK, PROTO_F_LAST);	/* the peer's second, at epoch 7 */
	cr_assert(c->epoch_known && c->epoch_adopted);
	cr_assert_eq(t_inject_fresh(net, 1, 1, 10, 0xD), PIPELINE_EPOCH_CURRENT);
	cr_assert_eq(c->epoch, 7);
	cr_assert_eq(net->side[1].n_deliv, 2);
	cr_assert_eq(t_inject_fresh(net, 1, 1, 11, 0xE), PIPELINE_EPOCH_FRESH_RESTART);
	cr_assert_eq(c->epoch, 8);
	cr_assert_eq(net->side[1].n_deliv, 3);
	t_net_free(net);
}

/* The line of doc/protocol.md that starts with "| name |" (malloc'd), or NULL. */
static char *t_protocol_md_row(const char *name)
{
	char head[32];

	snprintf(head, sizeof(head), "| %s |", name);
	return t_doc_line("protocol.md", head);
}

/*
 * doc/protocol.md's table of stages gives every registered stage a row, and
 * the row names every counter the stage keeps (as `name`): nicd(8) lists them
 * as vnetID_STAGE_COUNTER, and the row is where a reader of the protocol
 * looks for what a stage counts.
 */
Test(stages, protocol_md_rows_name_every_stage_counter)
{
	char name[64];

	for (const struct stage_ops *const *o = stage_registry.ops; *o; o++) {
		char *row = t_protocol_md_row((*o)->name);

		cr_expect_not_null(row, "protocol.md has no '| %s |' row", (*o)->name);
		for (const char *const *c = (*o)->counter_names; row && c && *c; c++) {
			snprintf(name, sizeof(name), "`%s`", *c);
			cr_expect_not_null(strstr(row, name), "the %s row does not name %s",
					   (*o)->name, name);
		}
		free(row);
	}
}

/*
 * The same row names every parameter the stage takes (as `name`): nicd(8)
 * sends readers there for them (timer's late_floor, say, is off by default
 * and what a lab on shared cores wants).
 */
Test(stages, protocol_md_rows_name_every_stage_parameter)
{
	char name[64];

	for (const struct stage_ops *const *o = stage_registry.ops; *o; o++) {
		char *row = t_protocol_md_row((*o)->name);

		cr_expect_not_null(row, "protocol.md has no '| %s |' row", (*o)->name);
		for (const struct stage_param *p = (*o)->params; row && p && p->name; p++) {
			snprintf(name, sizeof(name), "`%s`", p->name);
			cr_expect_not_null(strstr(row, name), "the %s row does not name %s",
					   (*o)->name, name);
		}
		free(row);
	}
}
