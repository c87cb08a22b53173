/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch fabric: node table, the receive side of every poll, and the
 * quick channel. The bulk slot pipeline is in bulk.c, quick-channel
 * arbitration in quick.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/dp_log.h"
#include "dataplane/dp_mbuf.h"
#include "dataplane/dp_opts.h"
#include "sw_priv.h"

DP_LOG_REGISTER(sw_logtype, SWITCHD_FABRIC);

const char *const sw_counter_names[] = {
	SW_COUNTERS(DP_COUNTER_NAME)
};

/* Frames read from one port in one poll. */
enum { SW_BURST = 32 };

uint64_t sw_slot_ns_for(double bulk_gbps, uint32_t slot_frames)
{
	return (slot_frames * dp_wire_ps(DP_MAX_FRAME, bulk_gbps) + 999) / 1000;
}

/* A link rate the options take (dp_opt_gbps); false for NaN too. */
static bool gbps_ok(double gbps)
{
	return gbps >= DP_OPT_GBPS_MIN && gbps <= DP_OPT_GBPS_MAX;
}

/* Check a configuration; 0 or -EINVAL with a message. */
static int sw_check_config(const struct sw_config *c, char *err, size_t errlen)
{
	if (c->n_nodes < 2 || c->n_nodes > PROTO_MAX_NODES) {
		snprintf(err, errlen, "nodes: %u is outside [2, %d]", c->n_nodes,
			 PROTO_MAX_NODES);
		return -EINVAL;
	}
	/*
	 * Not only parsed options reach here: segnet-sim, benches and tests fill
	 * cfg. The options' range, so that a frame's wire time stays finite.
	 */
	if (!gbps_ok(c->bulk_gbps) || !gbps_ok(c->quick_gbps)) {
		char lo[DP_OPT_NUM_LEN], hi[DP_OPT_NUM_LEN];

		snprintf(err, errlen,
			 "link rates must be between %s and %s Gbit/s (bulk %g, quick %g)",
			 dp_opt_num(DP_OPT_GBPS_MIN, lo), dp_opt_num(DP_OPT_GBPS_MAX, hi),
			 c->bulk_gbps, c->quick_gbps);
		return -EINVAL;
	}
	if (c->slot_frames < 1 || c->slot_frames > 64) {
		snprintf(err, errlen, "slot-frames: %u is outside [1, 64]", c->slot_frames);
		return -EINVAL;
	}
	if (c->gnt_keepalive > PROTO_MAX_GNT_KEEPALIVE) {
		snprintf(err, errlen, "gnt-keepalive: %u is outside [1, %d]: a NIC rejoins after %d slots without a GNT",
			 c->gnt_keepalive, PROTO_MAX_GNT_KEEPALIVE, PROTO_LOST_GNT_SLOTS);
		return -EINVAL;
	}
	if (c->grant_lead > SW_MAX_GRANT_LEAD) {
		snprintf(err, errlen, "grant-lead: %u is outside [1, %d]", c->grant_lead,
			 SW_MAX_GRANT_LEAD);
		return -EINVAL;
	}
	if (!c->mp) {
		snprintf(err, errlen, "no mempool");
		return -EINVAL;
	}
	return 0;
}

/* The transmit queue of port, made on first use (a port may serve two roles). */
static struct sw_txq *sw_txq_of(struct sw_fabric *sw, struct dp_port *port)
{
	for (unsigned int q = 0; q < sw->n_txq; q++)
		if (sw->txq[q].b.port == port)
			return &sw->txq[q];
	sw->txq[sw->n_txq].b.port = port;
	return &sw->txq[sw->n_txq++];
}

/* Send every queued frame. */
static void sw_tx_flush(struct sw_fabric *sw)
{
	for (unsigned int q = 0; q < sw->n_dirty; q++) {
		dp_txbuf_flush(&sw->dirty[q]->b);
		sw->dirty[q]->listed = false;
	}
	sw->n_dirty = 0;
}

/* Allocate the per-node vectors; control may be NULL. */
static int sw_nodes_init(struct sw_fabric *sw, struct dp_port *const *bulk,
			 struct dp_port *const *quick,
			 struct dp_port *const *control)
{
	sw->nodes = calloc(sw->n, sizeof(*sw->nodes));
	sw->txq = calloc(3u * sw->n, sizeof(*sw->txq));
	sw->dirty = calloc(3u * sw->n, sizeof(*sw->dirty));
	if (!sw->nodes || !sw->txq || !sw->dirty)
		return -ENOMEM;
	for (uint16_t i = 0; i < sw->n; i++) {
		struct sw_node *nd = &sw->nodes[i];

		nd->bulk = bulk[i];
		nd->quick = quick[i];
		nd->control = control && control[i] ? control[i] : quick[i];
		nd->bulk_tx = sw_txq_of(sw, nd->bulk);
		nd->quick_tx = sw_txq_of(sw, nd->quick);
		nd->control_tx = sw_txq_of(sw, nd->control);
		nd->counts = calloc(sw->n, 1);
		nd->bulk_en = calloc(sw->vec_len, 1);
		nd->quick_en = calloc(sw->vec_len, 1);
		if (!nd->counts || !nd->bulk_en || !nd->quick_en)
			return -ENOMEM;
	}
	return 0;
}

struct sw_fabric *sw_fabric_create(const struct sw_config *cfg,
				   struct dp_port *const *bulk,
				   struct dp_port *const *quick,
				   char *err, size_t errlen)
{
	struct sw_fabric *sw;
	int rc;

	rc = sw_check_config(cfg, err, errlen);
	if (rc) {
		errno = -rc;
		return NULL;
	}
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return NULL;
	sw->cfg = *cfg;
	sw->cfg.control = NULL;		/* the caller's array: copied into nodes */
	sw->n = cfg->n_nodes;
	sw->vec_len = (uint16_t)((sw->n + 7) / 8);
	if (!sw->cfg.slot_ns)
		sw->cfg.slot_ns = sw_slot_ns_for(cfg->bulk_gbps, cfg->slot_frames);
	if (!sw->cfg.gnt_keepalive)
		sw->cfg.gnt_keepalive = 8;
	if (!sw->cfg.grant_lead)
		sw->cfg.grant_lead = 1;
	dp_pause_init(&sw->pause);
	sw->lim = (struct proto_limits) {
		.max_nodes = sw->n,
		.max_endpoints = cfg->max_endpoints ? cfg->max_endpoints
						    : PROTO_MAX_ENDPOINTS,
		.skip_crc = !cfg->check_crc,
	};
	sw->rx_cap = 2u * sw->n * SW_BURST;
	sw->rx = calloc(sw->rx_cap, sizeof(*sw->rx));
	sw->qorder = calloc(sw->rx_cap, sizeof(*sw->qorder));
	sw->qrr = calloc(sw->n, sizeof(*sw->qrr));
	sw->match_hist = calloc(sw->n + 1u, sizeof(*sw->match_hist));
	rc = -ENOMEM;
	if (!sw->rx || !sw->qorder || !sw->qrr || !sw->match_hist)
		goto fail;
	rc = sw_nodes_init(sw, bulk, quick, cfg->control);
	if (!rc)
		rc = quick_arb_init(&sw->quick, sw->n, cfg->quick_mode, cfg->quick_gbps,
				    &sw->stats.quick_over_rate);
	if (!rc)
		rc = sw_bulk_init(sw, err, errlen);
	if (rc)
		goto fail;
	return sw;
fail:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	sw_fabric_destroy(sw);
	errno = -rc;
	return NULL;
}

void sw_fabric_destroy(struct sw_fabric *sw)
{
	if (!sw)
		return;
	sw_bulk_fini(sw);
	quick_arb_fini(&sw->quick);
	for (uint16_t i = 0; sw->nodes && i < sw->n; i++) {
		free(sw->nodes[i].counts);
		free(sw->nodes[i].bulk_en);
		free(sw->nodes[i].quick_en);
	}
	free(sw->nodes);
	for (unsigned int q = 0; sw->txq && q < sw->n_txq; q++)
		rte_pktmbuf_free_bulk(sw->txq[q].b.pkts, sw->txq[q].b.n);
	free(sw->txq);
	free(sw->dirty);
	free(sw->match_hist);
	free(sw->qrr);
	free(sw->qorder);
	free(sw->rx);
	free(sw);
}

struct rte_mbuf *sw_frame(struct sw_fabric *sw, struct proto_pkt *p)
{
	struct rte_mbuf *m;
	int len;

	proto_node_mac(PROTO_NODE_SWITCH, p->eth_src);
	proto_node_mac(p->dst_node, p->eth_dst);
	m = dp_frame_alloc(sw->cfg.mp, (uint16_t)proto_frame_len(p));
	if (!m) {
		sw->stats.no_mbuf++;
		return NULL;
	}
	len = proto_encode(p, rte_pktmbuf_mtod(m, void *), m->buf_len - m->data_off);
	if (len < 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

void sw_send_control(struct sw_fabric *sw, uint16_t in, uint16_t to,
		     struct rte_mbuf *m, uint64_t now)
{
	quick_arb_admit(&sw->quick, in, to, false, m->data_len, now);
	sw_tx(sw, sw->nodes[to].control_tx, m);
}

void sw_notice_down(struct sw_fabric *sw, uint16_t to, uint16_t down,
		    uint8_t type, uint16_t vnet, uint64_t now)
{
	const struct sw_node *nd = &sw->nodes[down];
	struct proto_pkt p = {
		.type = type, .flags = PROTO_F_DOWN, .src_node = down,
		.dst_node = to, .vnet = vnet, .slot = (uint32_t)sw->cur,
		.epoch = nd->up ? PROTO_DOWN_REJOINED :
			 nd->joined ? PROTO_DOWN_DOWN : PROTO_DOWN_NOT_JOINED,
		/* the process it last saw join: what the NIC sent since went to it */
		.handler = nd->joined ? proto_hello_boot_nonce(nd->hello_nonce) : 0,
	};
	struct rte_mbuf *m;

	if (!sw->nodes[to].up)
		return;
	m = sw_frame(sw, &p);
	if (!m)
		return;
	sw->stats.down_notices++;
	sw_send_control(sw, PROTO_NODE_SWITCH, to, m, now);
}

/* The slot under way at t >= the start of slot cur (boundaries not yet run count). */
static uint64_t sw_slot_at(const struct sw_fabric *sw, uint64_t t)
{
	if (t < sw->next_boundary)
		return sw->cur;
	return sw->cur + 1 + (t - sw->next_boundary) / sw->cfg.slot_ns;
}

/* A node (re)joins: forget its old state; its peers restart with it. */
static void sw_node_join(struct sw_fabric *sw, uint16_t i, uint32_t nonce,
			 uint64_t now)
{
	struct sw_node *nd = &sw->nodes[i];
	bool rejoin = nd->joined;

	/*
	 * A NIC repeats its HELLO, with the same nonce, until a GNT reaches it:
	 * a repeat of a join that stands only needs the announcement again.
	 */
	if (nd->joined && nd->up && nonce == nd->hello_nonce) {
		nd->announce_join = true;
		sw->stats.hello_repeats++;
		return;
	}
	nd->hello_nonce = nonce;

	if (!nd->up)
		sw->n_up++;
	nd->joined = true;
	nd->up = true;
	nd->announce_join = true;
	sw->boundary_wanted = true;
	nd->last_cfg_slot = sw_slot_at(sw, now);	/* a late poll has not moved cur on yet */
	nd->paused_at_cfg = sw->stats.slots_paused;
	nd->requests = 0;
	memset(nd->counts, 0, sw->n);
	memset(nd->bulk_en, 0, sw->vec_len);
	memset(nd->quick_en, 0, sw->vec_len);
	sw->stats.joins++;
	DP_LOG(sw_logtype, INFO, "node %u %s", i, rejoin ? "rejoined" : "joined");
	if (!rejoin)
		return;
	for (uint16_t j = 0; j < sw->n; j++)
		if (j != i)
			sw_notice_down(sw, j, i, PROTO_T_BACK, 0, now);
}

/*
 * A CFG came from node i, which this switch has not joined or has marked
 * down: its NIC thinks it is up. Tell it to say HELLO now, rather than
 * after PROTO_LOST_GNT_SLOTS slots without a grant (a GNT flagged REJOIN,
 * granting nothing). A NIC sends a CFG at most every slot, and stops when
 * it rejoins, so this needs no limit of its own.
 */
static void sw_tell_rejoin(struct sw_fabric *sw, uint16_t i, uint64_t now)
{
	struct proto_pkt p = sw_gnt_frame(sw, sw->cur);
	struct rte_mbuf *m;

	p.dst_node = i;
	p.gnt.node_id = i;
	p.gnt.timestamp_ns = now;
	p.gnt.gflags |= PROTO_GNT_F_REJOIN;
	m = sw_frame(sw, &p);
	if (!m)
		return;
	sw->stats.rejoin_told++;
	sw_send_control(sw, PROTO_NODE_SWITCH, i, m, now);
}

/* True when frame type may arrive on this port of node i. */
static bool sw_right_port(const struct sw_fabric *sw, const struct sw_rx *r,
			  const struct dp_port *port)
{
	const struct sw_node *nd = &sw->nodes[r->in];

	if (nd->bulk == nd->quick)
		return true;
	return (port == nd->bulk) == proto_type_is_bulk(r->p.type);
}

/* The node after node i, round the ring (no division on the per-frame path). */
static inline uint16_t sw_ring_next(const struct sw_fabric *sw, uint16_t i)
{
	return i + 1 == sw->n ? 0 : (uint16_t)(i + 1);
}

/* How far node i comes after node from, round the ring: 0 to n - 1. */
static inline uint16_t sw_ring_dist(const struct sw_fabric *sw, uint16_t from,
				    uint16_t i)
{
	return i >= from ? (uint16_t)(i - from) : (uint16_t)(i + sw->n - from);
}

/*
 * Keep frame k of this poll for forwarding. A QREQ gets its place in the
 * order QREQs are dispatched in: at each output, inputs from the one after
 * the output's last winner come first, so two inputs contending for an
 * output take turns whatever their port numbers.
 */
static void sw_keep(struct sw_fabric *sw, unsigned int k)
{
	const struct sw_rx *r = &sw->rx[k];
	uint64_t key;

	if (r->p.type != PROTO_T_QREQ)
		return;
	key = (uint64_t)sw_ring_dist(sw, sw->qrr[r->p.dst_node], r->in) << 32 | k;
	if (sw->n_qreq && key < sw->qorder[sw->n_qreq - 1])
		sw->qorder_sorted = false;
	sw->qorder[sw->n_qreq++] = key;
}

/* Validate one frame and queue it for this poll, or drop it. */
static void sw_accept(struct sw_fabric *sw, uint16_t in, struct dp_port *port,
		      struct rte_mbuf *m, unsigned int *k, uint64_t now)
{
	struct sw_rx *r = &sw->rx[*k];
	enum proto_reason why;

	sw->stats.rx_frames++;
	why = proto_decode(rte_pktmbuf_mtod(m, const void *), m->data_len,
			   &sw->lim, &r->p);
	r->in = in;
	r->m = m;
	if (why != PROTO_R_OK) {
		sw->decode[why]++;
		sw->stats.rx_invalid++;
	} else if (!sw_right_port(sw, r, port)) {
		sw->stats.wrong_port++;
	} else if (r->p.type == PROTO_T_HELLO &&
		   (r->p.src_node == in || r->p.src_node == PROTO_NODE_NONE)) {
		sw->stats.hello_received++;
		sw_node_join(sw, in, r->p.hello_nonce, now);
	} else if (r->p.src_node != in) {
		sw->stats.forged_src++;
	} else if (r->p.flags & PROTO_F_DOWN) {
		sw->stats.forged_notice++;	/* only the switch says a node is down */
	} else if (!sw->nodes[in].joined) {
		sw->stats.not_joined++;
		if (r->p.type == PROTO_T_CFG)
			sw_tell_rejoin(sw, in, now);
	} else if (r->p.type == PROTO_T_GNT) {
		sw->stats.unexpected_type++;
	} else if (r->p.type == PROTO_T_CFG) {
		sw->stats.cfg_received++;
		sw_bulk_cfg(sw, in, &r->p, sw_slot_at(sw, now));
		if (!sw->nodes[in].up)
			sw_tell_rejoin(sw, in, now);
	} else if (!sw->nodes[in].up) {
		sw->stats.src_down++;	/* out until its HELLO: peers restarted without it */
	} else {
		sw_keep(sw, *k);
		(*k)++;
		return;
	}
	rte_pktmbuf_free(m);
}

/* Read every port, starting at the round-robin pointer. */
static unsigned int sw_receive(struct sw_fabric *sw, uint64_t now)
{
	struct rte_mbuf *burst[SW_BURST];
	unsigned int k = 0;

	sw->n_qreq = 0;
	sw->qorder_sorted = true;

	for (uint16_t c = 0, i = sw->rr; c < sw->n; c++, i = sw_ring_next(sw, i)) {
		struct sw_node *nd = &sw->nodes[i];
		struct dp_port *ports[2] = { nd->quick, nd->bulk };
		int n_ports = nd->bulk == nd->quick ? 1 : 2;

		for (int p = 0; p < n_ports; p++) {
			uint16_t got = dp_port_rx(ports[p], burst, SW_BURST);

			for (uint16_t j = 0; j < got; j++)
				sw_accept(sw, i, ports[p], burst[j], &k, now);
		}
	}
	sw->rr = sw_ring_next(sw, sw->rr);
	return k;
}

/* Forward a quick-channel frame, or drop it if it loses arbitration. */
static void sw_quick_forward(struct sw_fabric *sw, struct sw_rx *r, uint64_t now)
{
	uint16_t dst = r->p.dst_node;
	bool is_qreq = r->p.type == PROTO_T_QREQ;

	if (is_qreq && !proto_bit(sw->nodes[dst].quick_en, r->in)) {
		sw->stats.qreq_disabled++;
		rte_pktmbuf_free(r->m);
		return;
	}
	switch (quick_arb_admit(&sw->quick, r->in, dst, is_qreq, r->m->data_len, now)) {
	case QUICK_LOST_QREQ:
		sw->stats.qreq_collision++;
		rte_pktmbuf_free(r->m);
		return;
	case QUICK_LOST_CONTROL:
		sw->stats.qreq_collision++;
		sw->stats.qreq_lost_to_control++;
		rte_pktmbuf_free(r->m);
		return;
	case QUICK_PASS:
		break;
	}
	if (is_qreq) {
		sw->stats.qreq_forwarded++;
		sw->qrr[dst] = sw_ring_next(sw, r->in);
		sw_tx(sw, sw->nodes[dst].quick_tx, r->m);
	} else {
		sw->stats.qack_forwarded++;
		sw_tx(sw, sw->nodes[dst].control_tx, r->m);
	}
}

/* Handle one kept frame: control first pass, QREQs second pass. */
static void sw_dispatch(struct sw_fabric *sw, struct sw_rx *r, uint64_t now)
{
	uint16_t dst = r->p.dst_node;

	if (!sw->nodes[dst].up) {
		sw->stats.dst_down++;
		if (r->p.type == PROTO_T_QREQ)
			sw_notice_down(sw, r->in, dst, PROTO_T_QACK, r->p.vnet, now);
		rte_pktmbuf_free(r->m);
		return;
	}
	switch (r->p.type) {
	case PROTO_T_BREQ:
		sw_bulk_breq(sw, r, now);
		break;
	case PROTO_T_BACK:
		sw_bulk_back(sw, r, now);
		break;
	default:
		sw_quick_forward(sw, r, now);
		break;
	}
}

/* Order of two QREQ keys (rank, then arrival). */
static int sw_qorder_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* QREQs that arrived together, in the order sw_keep gave them. */
static void sw_dispatch_qreqs(struct sw_fabric *sw, uint64_t now)
{
	if (!sw->qorder_sorted)
		qsort(sw->qorder, sw->n_qreq, sizeof(*sw->qorder), sw_qorder_cmp);
	for (unsigned int j = 0; j < sw->n_qreq; j++)
		sw_dispatch(sw, &sw->rx[(uint32_t)sw->qorder[j]], now);
}

uint64_t sw_fabric_poll(struct sw_fabric *sw, uint64_t now)
{
	unsigned int k;

	if (!sw->started) {
		sw->started = true;
		sw->t0 = now;
		sw->cur = 0;
		sw->next_boundary = now;
	}
	/* The switch's own pause, before this poll's receive stamps CFGs with it. */
	sw->stats.slots_paused += dp_pause_poll(&sw->pause, now, sw->cfg.slot_ns);
	k = sw_receive(sw, now);
	/*
	 * Control and bulk frames first: QREQs lose to what arrives with them.
	 * Every kept frame that is not in qorder is one of them. A BREQ among
	 * them is judged by the slot after the receive (the clock read once).
	 */
	if (k > sw->n_qreq)
		sw->rx_slot = sw_slot_at(sw, sw->cfg.clock ? sw->cfg.clock() : now);
	for (unsigned int i = 0; k > sw->n_qreq && i < k; i++)
		if (sw->rx[i].p.type != PROTO_T_QREQ)
			sw_dispatch(sw, &sw->rx[i], now);
	sw_dispatch_qreqs(sw, now);
	if (now >= sw->next_boundary) {
		sw_bulk_slot(sw, now);
		if (sw->cfg.idle_skip)
			sw->idle_due = sw_bulk_next_due(sw);
	}
	sw_tx_flush(sw);
	if (!sw->cfg.idle_skip)
		return sw->next_boundary;
	/* A CFG with requests or a join in this poll needs the next boundary. */
	if (sw->boundary_wanted)
		sw->idle_due = sw->next_boundary;
	sw->boundary_wanted = false;
	sw->skipping = sw->idle_due > sw->next_boundary;
	return sw->idle_due;
}

uint64_t sw_fabric_slot_ns(const struct sw_fabric *sw)
{
	return sw->cfg.slot_ns;
}

uint32_t sw_fabric_grant_lead(const struct sw_fabric *sw)
{
	return sw->cfg.grant_lead;
}

uint16_t sw_fabric_nodes_up(const struct sw_fabric *sw)
{
	return sw->n_up;
}

const struct sw_stats *sw_fabric_stats(const struct sw_fabric *sw)
{
	return &sw->stats;
}

const uint64_t *sw_fabric_decode_drops(const struct sw_fabric *sw)
{
	return sw->decode;
}

const uint64_t *sw_fabric_match_hist(const struct sw_fabric *sw)
{
	return sw->match_hist;
}

const char *sw_fabric_arbiter(const struct sw_fabric *sw)
{
	return sw->arb->ops->name;
}

void sw_fabric_node_info(const struct sw_fabric *sw, uint16_t i,
			 struct sw_node_info *info)
{
	const struct sw_node *nd = &sw->nodes[i];

	*info = (struct sw_node_info) {
		.joined = nd->joined, .up = nd->up,
		.last_cfg_slot = nd->last_cfg_slot, .grants = nd->grants,
		.requests = nd->requests,
	};
}

void sw_fabric_print_counters(const struct sw_fabric *sw, FILE *f)
{
	struct dp_counter_set set = DP_COUNTER_SET("switch", sw_counter_names,
						   &sw->stats);

	dp_counters_print(f, &set);
	for (int r = 1; r < PROTO_R_COUNT; r++)
		if (sw->decode[r])
			fprintf(f, "switch.decode.%s %llu\n",
				proto_reason_name((enum proto_reason)r),
				(unsigned long long)sw->decode[r]);
}
