/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bulk channel's slot pipeline. At the start of slot k the switch
 * arbitrates over the latest CFGs and sends every node its grant for slot
 * k + lead (arb stage; lead 1 unless the links need more); granted
 * initiators send their BREQ, which the switch forwards only if it matches
 * an unused grant (trf stage); the target's BACK is forwarded only along the
 * inverted schedule (ack stage).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/dp_log.h"
#include "sw_priv.h"

DP_LOG_REGISTER(sw_bulk_logtype, SWITCHD_BULK);

/*
 * Slots a BACK may trail its transfer in the scheduled models, and more per
 * slot of grant lead beyond the first: a lead that long says the links take
 * slots to cross, and the BACK crosses them twice (BREQ to target, BACK to
 * initiator), with a slot to spare.
 */
enum { SW_BACK_SLOTS = 2, SW_BACK_SLOTS_PER_LEAD = 3 };

int sw_bulk_init(struct sw_fabric *sw, char *err, size_t errlen)
{
	sw->arb = arb_create(sw->cfg.arbiter ? sw->cfg.arbiter : "lcf", sw->n,
			     sw->cfg.seed, err, errlen);
	if (!sw->arb)
		return -errno;
	sw->req = arb_req_create(sw->n);
	sw->grant = calloc(sw->n, sizeof(*sw->grant));
	if (!sw->req || !sw->grant)
		return -ENOMEM;
	sw->arb_seq = sw->cfg.grant_lead;	/* the first slot arbitrated */
	sw->back_slots = (uint16_t)(SW_BACK_SLOTS +
				    SW_BACK_SLOTS_PER_LEAD * (sw->cfg.grant_lead - 1));
	if (sw->arb->ops->output == ARB_OUT_BUFFER)
		sw->back_slots += sw->arb->ops->out_buffers;
	/* From slot cur + lead (granted) back to the oldest a BACK may name. */
	sw->ring_len = sw->back_slots + sw->cfg.grant_lead + 3u;
	sw->ring = calloc(sw->ring_len, sizeof(*sw->ring));
	if (!sw->ring)
		return -ENOMEM;
	for (unsigned int s = 0; s < sw->ring_len; s++) {
		struct sw_slotrec *rec = &sw->ring[s];

		rec->slot = UINT64_MAX;
		rec->grant = malloc(sw->n * sizeof(*rec->grant));
		rec->used = calloc(sw->n, 1);
		rec->backs = calloc(sw->n, 1);
		rec->taken = calloc(sw->n, 1);
		if (!rec->grant || !rec->used || !rec->backs || !rec->taken)
			return -ENOMEM;
		for (uint16_t i = 0; i < sw->n; i++)
			rec->grant[i] = ARB_NONE;
	}
	if (sw->arb->ops->output == ARB_OUT_BUFFER) {
		for (uint16_t i = 0; i < sw->n; i++) {
			sw->nodes[i].outq = calloc(sw->arb->ops->out_buffers,
						   sizeof(struct rte_mbuf *));
			if (!sw->nodes[i].outq)
				return -ENOMEM;
		}
	}
	return 0;
}

void sw_bulk_fini(struct sw_fabric *sw)
{
	for (unsigned int s = 0; sw->ring && s < sw->ring_len; s++) {
		free(sw->ring[s].grant);
		free(sw->ring[s].used);
		free(sw->ring[s].backs);
		free(sw->ring[s].taken);
	}
	free(sw->ring);
	for (uint16_t i = 0; sw->nodes && i < sw->n; i++) {
		struct sw_node *nd = &sw->nodes[i];

		for (uint16_t q = 0; nd->outq && q < nd->outq_len; q++) {
			uint16_t at = (nd->outq_head + q) % sw->arb->ops->out_buffers;

			rte_pktmbuf_free(nd->outq[at]);
		}
		free(nd->outq);
	}
	free(sw->grant);
	arb_req_destroy(sw->req);
	arb_destroy(sw->arb);
}

void sw_bulk_cfg(struct sw_fabric *sw, uint16_t i, const struct proto_pkt *p, uint64_t rx)
{
	struct sw_node *nd = &sw->nodes[i];
	uint32_t requests = 0;

	if (p->cfg.n_nodes != sw->n) {
		sw->stats.cfg_bad_size++;
		return;
	}
	if (!nd->up) {
		sw->stats.cfg_node_down++;	/* it must rejoin with HELLO */
		return;
	}
	memcpy(nd->counts, p->cfg.counts, sw->n);
	memcpy(nd->bulk_en, p->cfg.bulk_en, sw->vec_len);
	memcpy(nd->quick_en, p->cfg.quick_en, sw->vec_len);
	for (uint16_t t = 0; t < sw->n; t++)
		requests += nd->counts[t] != 0;
	nd->requests = requests;
	if (requests)
		sw->boundary_wanted = true;
	nd->last_cfg_slot = rx;	/* not cur: a late poll has not moved it on yet */
	nd->paused_at_cfg = sw->stats.slots_paused;
}

/* The switch's slot number nearest cur whose low 32 bits are wire (a frame's slot). */
static uint64_t sw_slot_unwrap(const struct sw_fabric *sw, uint32_t wire)
{
	return sw->cur + (uint64_t)(int64_t)(int32_t)(wire - (uint32_t)sw->cur);
}

/* The record of the slot a frame names, if it is granted and still kept. */
static struct sw_slotrec *sw_slot_rec(struct sw_fabric *sw, uint32_t wire)
{
	uint64_t s = sw_slot_unwrap(sw, wire);
	struct sw_slotrec *rec = &sw->ring[s % sw->ring_len];

	/* Beyond the newest grant no slot is kept: not even an unused entry. */
	if (s > sw->cur + sw->cfg.grant_lead)
		return NULL;
	return rec->slot == s ? rec : NULL;
}

/* Send queued BREQs of output t while it has sent fewer than a slot's frames this slot. */
static void sw_outq_drain(struct sw_fabric *sw, uint16_t t)
{
	struct sw_node *nd = &sw->nodes[t];
	struct rte_mbuf *m;

	if (nd->out_slot != sw->cur) {
		nd->out_slot = sw->cur;
		nd->out_sent = 0;
	}
	while (nd->outq_len && nd->out_sent < sw->cfg.slot_frames) {
		m = nd->outq[nd->outq_head];
		nd->outq_head = (uint16_t)((nd->outq_head + 1) % sw->arb->ops->out_buffers);
		nd->outq_len--;
		nd->out_sent++;
		sw->stats.breq_forwarded++;
		sw_tx(sw, nd->bulk_tx, m);
	}
}

/* Queue a BREQ at output t of the output-buffered model. */
static void sw_outq_add(struct sw_fabric *sw, uint16_t t, struct rte_mbuf *m)
{
	struct sw_node *nd = &sw->nodes[t];
	uint16_t cap = sw->arb->ops->out_buffers;

	if (nd->outq_len == cap) {
		sw->stats.breq_outbuf_full++;
		rte_pktmbuf_free(m);
		return;
	}
	nd->outq[(nd->outq_head + nd->outq_len) % cap] = m;
	nd->outq_len++;
	sw_outq_drain(sw, t);
}

/*
 * Count a BREQ for slot s from i to t that missed its slot: early or late
 * when the slot granted it, and late when the slot is so long over that its
 * record is gone (older than the ring), whatever it granted.
 */
static void sw_breq_mistimed(struct sw_fabric *sw, const struct sw_slotrec *rec,
			     uint64_t s, uint16_t i, uint16_t t)
{
	if (!rec) {
		if (s + sw->ring_len <= sw->cur + sw->cfg.grant_lead)
			sw->stats.breq_late++;
		return;
	}
	if (rec->grant[i] != t)
		return;
	if (s > sw->rx_slot)
		sw->stats.breq_early++;
	else
		sw->stats.breq_late++;
}

void sw_bulk_breq(struct sw_fabric *sw, struct sw_rx *r, uint64_t now)
{
	uint64_t s = sw_slot_unwrap(sw, r->p.slot);
	uint16_t i = r->p.src_node, t = r->p.dst_node;
	struct sw_slotrec *rec = sw_slot_rec(sw, r->p.slot);
	/*
	 * A BREQ may use its slot from a slot early to a slot late. It came
	 * after slot cur began and by rx_slot: the switch cannot tell when in
	 * between, so either end may make it on time.
	 */
	bool on_time = s + 1 >= sw->cur && s <= sw->rx_slot + 1;

	(void)now;
	if (!rec || rec->grant[i] != t || rec->used[i] >= sw->cfg.slot_frames || !on_time) {
		sw->stats.breq_not_granted++;
		if (!on_time)
			sw_breq_mistimed(sw, rec, s, i, t);
		rte_pktmbuf_free(r->m);
		return;
	}
	rec->used[i]++;
	switch (sw->arb->ops->output) {
	case ARB_OUT_DROP:
		if (rec->taken[t] >= sw->cfg.slot_frames) {
			sw->stats.breq_collision++;
			rte_pktmbuf_free(r->m);
			return;
		}
		rec->taken[t]++;
		break;
	case ARB_OUT_BUFFER:
		sw_outq_add(sw, t, r->m);
		return;
	case ARB_OUT_SCHEDULED:
		break;
	}
	sw->stats.breq_forwarded++;
	sw_tx(sw, sw->nodes[t].bulk_tx, r->m);
}

void sw_bulk_back(struct sw_fabric *sw, struct sw_rx *r, uint64_t now)
{
	uint16_t target = r->p.src_node, initiator = r->p.dst_node;
	struct sw_slotrec *rec = sw_slot_rec(sw, r->p.slot);

	/* One BACK per BREQ forwarded on the grant, no more. */
	if (!rec || rec->grant[initiator] != target || rec->backs[initiator] >= rec->used[initiator]) {
		sw->stats.back_not_scheduled++;
		rte_pktmbuf_free(r->m);
		return;
	}
	rec->backs[initiator]++;
	sw->stats.back_forwarded++;
	sw_send_control(sw, r->in, initiator, r->m, now);
}

/* Slots node nd has been silent while the switch watched (its pauses left out). */
static uint64_t sw_silent_slots(const struct sw_fabric *sw, const struct sw_node *nd)
{
	uint64_t since = sw->cur > nd->last_cfg_slot ? sw->cur - nd->last_cfg_slot : 0;
	uint64_t paused = sw->stats.slots_paused - nd->paused_at_cfg;

	return since > paused ? since - paused : 0;
}

/* Mark nodes down that stopped sending CFGs. */
static void sw_detect_down(struct sw_fabric *sw)
{
	if (!sw->cfg.down_slots)
		return;
	for (uint16_t i = 0; i < sw->n; i++) {
		struct sw_node *nd = &sw->nodes[i];

		if (nd->up && sw_silent_slots(sw, nd) > sw->cfg.down_slots) {
			nd->up = false;
			sw->n_up--;
			nd->requests = 0;
			memset(nd->counts, 0, sw->n);
			sw->stats.downs++;
			DP_LOG(sw_bulk_logtype, NOTICE,
			       "node %u down: no CFG for %u slots", i, sw->cfg.down_slots);
		}
	}
}

/* Build the request matrix; tell initiators about targets that are down. */
static void sw_build_requests(struct sw_fabric *sw, uint64_t now)
{
	arb_req_clear(sw->req);
	for (uint16_t i = 0; i < sw->n; i++) {
		const struct sw_node *in = &sw->nodes[i];

		if (!in->up || !in->requests)
			continue;
		for (uint16_t t = 0; t < sw->n; t++) {
			if (!in->counts[t] || t == i)
				continue;
			if (!sw->nodes[t].up)
				sw_notice_down(sw, i, t, PROTO_T_BACK, 0, now);
			else if (proto_bit(sw->nodes[t].bulk_en, i))
				arb_req_set(sw->req, i, t);
		}
	}
}

struct proto_pkt sw_gnt_frame(const struct sw_fabric *sw, uint64_t s)
{
	return (struct proto_pkt) {
		.type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH,
		.gnt = {
			.slot = (uint32_t)s, .n_nodes = sw->n, .target = PROTO_NODE_NONE,
			.slot_ns = (uint32_t)sw->cfg.slot_ns,
			.back_slots = sw->back_slots,
			.slot_frames = (uint16_t)sw->cfg.slot_frames,
			.gflags = sw->arb->ops->fifo ? PROTO_GNT_F_FIFO : 0,
		},
	};
}

/*
 * Send the GNTs of slot s: to every node granted a target, to nodes that
 * just joined, and at least every gnt_keepalive slots to every node that is
 * up (its sign that the switch lives; it also refreshes the slot clock).
 * A GNT granting nothing carries no news, and the quick links are better
 * left to quick traffic.
 */
static void sw_send_grants(struct sw_fabric *sw, uint64_t s, uint64_t now)
{
	struct proto_pkt p = sw_gnt_frame(sw, s);

	for (uint16_t i = 0; i < sw->n; i++) {
		struct sw_node *nd = &sw->nodes[i];
		struct rte_mbuf *m;

		if (!nd->up)
			continue;
		if (sw->grant[i] == ARB_NONE && !nd->announce_join &&
		    s - nd->last_gnt_slot < sw->cfg.gnt_keepalive)
			continue;
		p.dst_node = i;
		p.gnt.node_id = i;
		p.gnt.target = sw->grant[i];
		p.gnt.timestamp_ns = now;
		p.gnt.gflags = (uint16_t)((sw->arb->ops->fifo ? PROTO_GNT_F_FIFO : 0) |
					  (nd->announce_join ? PROTO_GNT_F_JOINED : 0));
		m = sw_frame(sw, &p);
		if (!m)
			continue;
		nd->announce_join = false;
		nd->last_gnt_slot = s;
		sw->stats.gnt_sent++;
		sw_send_control(sw, PROTO_NODE_SWITCH, i, m, now);
	}
}

/* Run the arbiter for slot s and record its grants. */
static void sw_arbitrate(struct sw_fabric *sw, uint64_t s)
{
	struct sw_slotrec *rec = &sw->ring[s % sw->ring_len];
	uint64_t c0 = sw->cfg.cycles ? sw->cfg.cycles() : 0;
	/*
	 * The arbiter counts decisions, not slots: a rotating arbiter (LCF's
	 * diagonal, rr) must take every step of its rotation for its bound
	 * to hold, also when a late poll skipped boundaries.
	 */
	uint16_t made = arb_match(sw->arb, sw->req, sw->arb_seq++, sw->grant);

	if (sw->cfg.cycles)
		sw->stats.arb_cycles += sw->cfg.cycles() - c0;
	rec->slot = s;
	memcpy(rec->grant, sw->grant, sw->n * sizeof(*sw->grant));
	memset(rec->used, 0, sw->n);
	memset(rec->backs, 0, sw->n);
	memset(rec->taken, 0, sw->n);
	for (uint16_t i = 0; i < sw->n; i++)
		if (sw->grant[i] != ARB_NONE)
			sw->nodes[i].grants++;
	sw->stats.grants += made;
	sw->stats.slots++;
	sw->match_hist[made > sw->n ? sw->n : made]++;
}

void sw_bulk_slot(struct sw_fabric *sw, uint64_t now)
{
	uint64_t behind = (now - sw->next_boundary) / sw->cfg.slot_ns;
	/* The slots of the switch's own pause are counted in slots_paused only. */
	uint64_t paused = sw->stats.slots_paused - sw->paused_at_boundary;
	uint64_t missed = behind > paused ? behind - paused : 0;

	sw->paused_at_boundary = sw->stats.slots_paused;
	if (behind) {
		/* With nobody up, a late poll misses nothing; nor an idle skip. */
		if (sw->skipping)
			sw->stats.slots_idle += missed;
		else if (sw->n_up)
			sw->stats.slots_skipped += missed;
		sw->next_boundary += behind * sw->cfg.slot_ns;
	}
	sw->cur = (sw->next_boundary - sw->t0) / sw->cfg.slot_ns;
	sw_detect_down(sw);
	if (sw->arb->ops->output == ARB_OUT_BUFFER)
		for (uint16_t t = 0; t < sw->n; t++)
			sw_outq_drain(sw, t);
	sw_build_requests(sw, now);
	sw_arbitrate(sw, sw->cur + sw->cfg.grant_lead);
	sw_send_grants(sw, sw->cur + sw->cfg.grant_lead, now);
	sw->next_boundary += sw->cfg.slot_ns;
}

uint64_t sw_bulk_next_due(const struct sw_fabric *sw)
{
	uint64_t due = UINT64_MAX;

	for (uint16_t i = 0; i < sw->n; i++) {
		const struct sw_node *nd = &sw->nodes[i];
		uint64_t cur;

		/* Frames in an output buffer leave one slot's worth per boundary. */
		if (nd->outq_len)
			return sw->next_boundary;
		if (!nd->up)
			continue;
		if (nd->requests || nd->announce_join)
			return sw->next_boundary;
		/* The boundary starting slot cur sends the GNTs of slot cur + lead. */
		cur = nd->last_gnt_slot + sw->cfg.gnt_keepalive;
		cur = cur > sw->cfg.grant_lead ? cur - sw->cfg.grant_lead : 0;
		if (sw->t0 + cur * sw->cfg.slot_ns < due)
			due = sw->t0 + cur * sw->cfg.slot_ns;
	}
	return due < sw->next_boundary ? sw->next_boundary : due;
}
