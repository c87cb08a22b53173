/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NIC: descriptors, virtual networks, sending, joining and the poll
 * loop. Ingress and egress (the only code that knows the frame format) are
 * in ingress.c and egress.c; the channel layer in chan.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/dp_log.h"
#include "dataplane/dp_mbuf.h"
#include "nic_priv.h"
#include "stages/stages.h"

DP_LOG_REGISTER(nic_logtype, NICD_NIC);

const char *const nic_counter_names[] = {
	NIC_COUNTERS(DP_COUNTER_NAME)
};

/* Frames read from one port in one poll. */
enum { NIC_BURST = 32 };

/* A header of zeros, for packets whose maker sets its fields one by one. */
static const struct proto_pkt nic_no_header;

void nic_desc_free(struct nic *nic, struct sn_pkt *pkt)
{
	rte_pktmbuf_free(pkt->m);
	pkt->m = NULL;		/* as nic_desc_alloc expects */
	pkt->next = nic->free_descs;
	nic->free_descs = pkt;
	nic->n_free++;
}

struct nic_vnet *nic_vnet_find(struct nic *nic, uint16_t vnet)
{
	for (unsigned int i = 0; i < nic->n_vnets; i++)
		if (nic->vnets[i].vnet == vnet)
			return &nic->vnets[i];
	return NULL;
}

/* pkt's message is done: count it and tell the owner. */
static void nic_report(struct nic *nic, const struct sn_pkt *pkt, int status, uint64_t now)
{
	if (status == SN_OK)
		nic->stats.completed_ok++;
	else
		nic->stats.completed_err++;
	if (status == SN_ERR_CANCELLED)
		nic->stats.cancelled++;
	nic->pending--;
	if (nic->ops.complete)
		nic->ops.complete(nic->ops.ctx, pkt, status, now);
}

void nic_finish(struct nic *nic, struct sn_pkt *pkt, int status, uint64_t now)
{
	if (pkt->cq != CQ_NONE)
		chan_forget(nic, pkt);
	if (pkt->h.flags & PROTO_F_ABANDONED)
		return;		/* no application sent it; its message already failed */
	nic_report(nic, pkt, status, now);
}

/* Pipeline callback: the bottom of transmit goes to the channel. */
static void nic_env_sink(void *ctx, struct sn_pkt *pkt, uint64_t now)
{
	chan_sink(ctx, pkt, now);
}

/* Pipeline callback: hand a data packet to the owner, then free it. */
static void nic_env_deliver(void *ctx, struct sn_pkt *pkt, uint64_t now)
{
	struct nic *nic = ctx;

	if (pkt->h.flags & PROTO_F_ABANDONED) {
		nic->stats.rx_abandoned++;	/* its number is taken; nothing to hand up */
		nic_desc_free(nic, pkt);
		return;
	}
	nic->stats.delivered++;
	if (nic->ops.deliver)
		nic->ops.deliver(nic->ops.ctx, pkt, now);
	nic_desc_free(nic, pkt);
}

/* Pipeline callback: the protocol is done with a transmitted packet. */
static void nic_env_complete(void *ctx, struct sn_pkt *pkt, int status,
			     uint64_t now)
{
	nic_finish(ctx, pkt, status, now);
}

/* Pipeline callback: a connection restarts; what the channel holds of it fails. */
static void nic_env_restart(void *ctx, struct sn_conn *conn, uint64_t now)
{
	chan_purge_conn(ctx, conn, true, now);
	conn->bulk_hold_until = 0;
	conn->bulk_hold_slots = 0;
	chan_prefetch_changed(ctx);
}

/*
 * Pipeline callback: pkt's receiver holds it and it is never resent: a
 * quick one gives its send buffer back now rather than when it completes,
 * and one waiting for a buffer to be resent (its own taken back:
 * chan_quick_reclaim) waits no more.
 */
static void nic_env_held(void *ctx, struct sn_pkt *pkt, uint64_t now)
{
	(void)now;
	if (pkt->cq == CQ_QWAIT || pkt->cq == CQ_QTX || pkt->cq == CQ_QBACKLOG)
		chan_forget(ctx, pkt);
}

/* Pipeline callback: a descriptor for an acknowledgment, its header zero. */
static struct sn_pkt *nic_env_alloc(void *ctx)
{
	return nic_desc_alloc(ctx, &nic_no_header);
}

/* Pipeline callback: free a descriptor. */
static void nic_env_release(void *ctx, struct sn_pkt *pkt)
{
	nic_desc_free(ctx, pkt);
}

/*
 * Pipeline callback: fewer than an eighth of the descriptors, or of the
 * frame pool, are free. New messages stop at a quarter of the descriptors
 * (nic_send); packets held out of order stop at an eighth, so the packet that
 * fills a gap always finds a descriptor, and a frame to arrive in: the pool is
 * shared with the receive queues and the other nodes of the process, and
 * what a reorder buffer may hold (virtual networks x peers x its size) can
 * pass what any pool was sized for.
 */
static bool nic_env_rx_tight(void *ctx)
{
	struct nic *nic = ctx;

	return nic->n_free < nic->cfg.descriptors / 8 ||
	       rte_mempool_avail_count(nic->cfg.mp) < nic->cfg.mp->size / 8;
}

/* Check a configuration; 0 or -EINVAL with a message. */
static int nic_check_config(const struct nic_config *c, char *err, size_t errlen)
{
	if (c->max_nodes < 2 || c->max_nodes > PROTO_MAX_NODES) {
		snprintf(err, errlen, "max nodes %u is outside [2, %d]", c->max_nodes,
			 PROTO_MAX_NODES);
		return -EINVAL;
	}
	if (c->bulk_bufs < 1 || c->quick_bufs < 1) {
		snprintf(err, errlen, "send buffers must be at least 1 (bulk %u, quick %u)",
			 c->bulk_bufs, c->quick_bufs);
		return -EINVAL;
	}
	if (c->bulk_per_target < 1 || c->bulk_per_target > c->bulk_bufs) {
		snprintf(err, errlen, "per-target cap %u is outside [1, %u]",
			 c->bulk_per_target, c->bulk_bufs);
		return -EINVAL;
	}
	if (c->quick_reserve > c->quick_bufs) {
		snprintf(err, errlen, "quick reserve %u is above the %u quick buffers",
			 c->quick_reserve, c->quick_bufs);
		return -EINVAL;
	}
	if (c->descriptors < 16 || !c->mp) {
		snprintf(err, errlen, "need at least 16 descriptors and a mempool");
		return -EINVAL;
	}
	return 0;
}

struct nic *nic_create(const struct nic_config *cfg, const struct nic_ops *ops,
		       struct dp_port *bulk, struct dp_port *quick,
		       char *err, size_t errlen)
{
	struct nic *nic;
	int rc = nic_check_config(cfg, err, errlen);

	if (rc) {
		errno = -rc;
		return NULL;
	}
	nic = calloc(1, sizeof(*nic));
	if (!nic)
		return NULL;
	nic->cfg = *cfg;
	if (!nic->cfg.hello_ns)
		nic->cfg.hello_ns = 100000;
	if (!nic->cfg.lost_gnt_slots)
		nic->cfg.lost_gnt_slots = PROTO_LOST_GNT_SLOTS;
	if (!nic->cfg.max_endpoints)
		nic->cfg.max_endpoints = PROTO_MAX_ENDPOINTS;
	if (!nic->cfg.cfg_keepalive)
		nic->cfg.cfg_keepalive = 8;
	nic->ops = *ops;
	nic->bulk = bulk;
	nic->quick = quick;
	nic_quick_rate(nic);
	nic->id = PROTO_NODE_NONE;
	nic->state = NIC_JOINING;
	dp_pause_init(&nic->pause);
	/* This stays for the process's life; rejoins move the HELLO's low half on. */
	nic->boot_nonce = (uint16_t)(cfg->incarnation ^ cfg->incarnation >> 16);
	nic->hello_nonce = proto_hello_nonce(nic->boot_nonce, (uint16_t)cfg->incarnation);
	nic->lim = (struct proto_limits) {
		.max_nodes = cfg->max_nodes, .max_endpoints = nic->cfg.max_endpoints,
		.skip_crc = !cfg->check_crc,
	};
	nic->descs = calloc(cfg->descriptors, sizeof(*nic->descs));
	nic->noticed = calloc(cfg->max_nodes, sizeof(*nic->noticed));
	if (!nic->descs || !nic->noticed || chan_init(nic)) {
		snprintf(err, errlen, "out of memory");
		nic_destroy(nic);
		errno = ENOMEM;
		return NULL;
	}
	for (uint32_t i = cfg->descriptors; i-- > 0;) {
		nic->descs[i].next = nic->free_descs;
		nic->free_descs = &nic->descs[i];
	}
	nic->n_free = cfg->descriptors;
	return nic;
}

void nic_destroy(struct nic *nic)
{
	if (!nic)
		return;
	for (unsigned int i = 0; i < nic->n_vnets; i++)
		pipeline_destroy(nic->vnets[i].pl);
	chan_fini(nic);
	for (uint32_t i = 0; nic->descs && i < nic->cfg.descriptors; i++)
		rte_pktmbuf_free(nic->descs[i].m);
	free(nic->descs);
	free(nic->noticed);
	free(nic);
}

int nic_add_vnet(struct nic *nic, uint16_t vnet, const char *spec,
		 char *err, size_t errlen)
{
	struct pipeline_env env = {
		.ctx = nic, .sink = nic_env_sink, .deliver = nic_env_deliver,
		.complete = nic_env_complete, .alloc = nic_env_alloc,
		.release = nic_env_release, .rx_tight = nic_env_rx_tight,
		.restart = nic_env_restart, .held = nic_env_held,
	};
	struct pipeline *pl;

	if (nic_vnet_find(nic, vnet)) {
		snprintf(err, errlen, "virtual network %u is configured twice", vnet);
		return -EEXIST;
	}
	if (nic->n_vnets == NIC_MAX_VNETS) {
		snprintf(err, errlen, "more than %d virtual networks", NIC_MAX_VNETS);
		return -ENOSPC;
	}
	pl = pipeline_create(&stage_registry, spec, vnet, nic->id,
			     nic->cfg.max_nodes, &env, err, errlen);
	if (!pl)
		return -errno;
	pl->nonce = nic->boot_nonce;
	nic->vnets[nic->n_vnets++] = (struct nic_vnet) { .vnet = vnet, .pl = pl };
	return 0;
}

int nic_send(struct nic *nic, const struct nic_msg *msg, uint64_t now)
{
	struct nic_vnet *v = nic_vnet_find(nic, msg->vnet);
	struct sn_pkt *p;

	if (!v || msg->dst_node >= nic->cfg.max_nodes ||
	    (nic->state == NIC_UP && msg->dst_node >= nic->n_nodes) ||
	    msg->dst_ep >= nic->cfg.max_endpoints ||
	    msg->src_ep >= nic->cfg.max_endpoints || msg->chan >= SN_CHAN_COUNT ||
	    (msg->chan == SN_CHAN_QUICK && msg->len) || msg->len > PROTO_MAX_PAYLOAD)
		return -EINVAL;
	/*
	 * New messages may not take the last quarter of the descriptors: those
	 * are for frames received and acknowledgments. Without the reserve, a
	 * backlog of sends (a slow peer, heavy loss) takes every descriptor,
	 * every BREQ received is refused, and NICs that send to each other wait
	 * on each other for ever.
	 */
	p = nic->n_free > nic->cfg.descriptors / 4 ? nic_desc_alloc(nic, &nic_no_header) : NULL;
	if (!p) {
		nic->stats.tx_no_desc++;
		return -ENOBUFS;
	}
	/* Set here: a header built apart and copied costs some 20 instructions more. */
	p->h.type = msg->chan == SN_CHAN_BULK ? PROTO_T_BREQ : PROTO_T_QREQ;
	p->h.flags = PROTO_F_DATA | PROTO_F_LAST;
	p->h.src_node = nic->id;
	p->h.dst_node = msg->dst_node;
	p->h.vnet = msg->vnet;
	p->h.src_ep = msg->src_ep;
	p->h.dst_ep = msg->dst_ep;
	p->h.handler = msg->handler;
	p->h.payload_len = msg->len;
	p->h.payload = msg->payload;
	if (msg->args)
		memcpy(p->args, msg->args, PROTO_ARGS_LEN);
	else
		memset(p->args, 0, PROTO_ARGS_LEN);
	p->h.args = p->args;
	p->chan = msg->chan;
	p->cookie = msg->cookie;
	p->t_gen = now;
	p->conn = pipeline_conn(v->pl, msg->dst_node);
	if (!p->conn) {
		nic_desc_free(nic, p);
		return -ENOMEM;
	}
	nic->pending++;
	nic->stats.tx_msgs++;
	pipeline_tx(v->pl, &p, 1, now);
	return 0;
}

/*
 * A numbered packet whose message fails now (a closing endpoint's:
 * cancelled; one to a peer that is away: down): it completes with status
 * and the packet stays on genp's list as the marker of its number, without
 * payload or owner, until acknowledged. A quick packet keeps
 * its place in the channel (it has no payload: its arguments were copied).
 * A bulk one leaves its send buffer, or the BACK its BREQ waits for, and
 * goes to the quick channel at once (markers are QREQs: chan_sink puts them
 * first, past the quick buffers' cap); one whose BREQ was
 * answered waits for its acknowledgment as before, and the timer resends it
 * as a marker if that does not come.
 */
static void nic_fail_numbered(struct nic *nic, struct sn_pkt *p, int status, uint64_t now)
{
	bool requeue = p->chan == SN_CHAN_BULK && p->cq != CQ_NONE;

	nic_report(nic, p, status, now);
	if (requeue)
		chan_forget(nic, p);
	sn_pkt_make_marker(p);
	if (requeue)
		chan_sink(nic, p, now);
}

uint32_t nic_cancel(struct nic *nic, uint16_t vnet, uint16_t src_ep, uint64_t now)
{
	struct nic_vnet *v = nic_vnet_find(nic, vnet);
	uint64_t before = nic->stats.cancelled;

	if (!v)
		return 0;
	/* Not numbered yet, kept by a stage (rate, genp's window): they just go. */
	pipeline_cancel(v->pl, src_ep, now);
	for (uint16_t peer = 0; peer < v->pl->n_nodes; peer++) {
		struct sn_conn *c = v->pl->conns[peer];

		for (struct sn_pkt *p = c ? c->unacked : NULL; p; p = p->next)
			if (nic_sent_by(p, src_ep))
				nic_fail_numbered(nic, p, SN_ERR_CANCELLED, now);
	}
	/* Without a protocol (no numbers): they leave the channel. */
	chan_cancel(nic, vnet, src_ep, now);
	return (uint32_t)(nic->stats.cancelled - before);
}

/*
 * Fail every message of c where it is, keeping c's numbering and epoch:
 * what has no number leaves, numbered packets become markers of their
 * numbers (as a closing endpoint's do). Restarting the numbering in the
 * same epoch would let a frame of c that is still on its way (it passed the
 * switch before the notice) be taken for a new one.
 */
static void nic_fail_in_place(struct nic *nic, struct pipeline *pl, struct sn_conn *c,
			      uint64_t now)
{
	pipeline_event(pl, c, STAGE_EV_FAIL, NULL, now);
	for (struct sn_pkt *p = c->unacked; p; p = p->next)
		if (!(p->h.flags & PROTO_F_ABANDONED))
			nic_fail_numbered(nic, p, SN_ERR_DOWN, now);
	chan_purge_conn(nic, c, false, now);
	pipeline_touch(pl);
}

/* What nic_fail_peer does to the connections to a peer. */
enum nic_fail_how {
	NIC_FAIL_IN_PLACE,	/* messages fail, numbering and epoch go on */
	NIC_FAIL_RESTART,	/* restart at the next epoch (in place while unwelcomed) */
	NIC_FAIL_START_OVER,	/* restart at the next epoch (over, still without one,
				 * while unwelcomed): a peer that is gone */
};

/*
 * Fail everything queued for peer, as how says. A connection that knows no
 * epoch yet (no peer welcomed this process) keeps knowing none at a
 * restart, since an epoch it gave itself would let it take a peer's frames
 * never meant for this process: it fails its messages in place and keeps
 * its numbering, which a peer that took its FRESH frames still counts on
 * (a peer that restarted meanwhile answers with a WELCOME that says
 * RESTART), or toward a peer that is gone starts over without one.
 */
static void nic_fail_peer(struct nic *nic, uint16_t peer, enum nic_fail_how how, uint64_t now)
{
	for (unsigned int i = 0; i < nic->n_vnets; i++) {
		struct pipeline *pl = nic->vnets[i].pl;
		struct sn_conn *c = peer < pl->n_nodes ? pl->conns[peer] : NULL;

		if (!c)
			continue;
		if (how != NIC_FAIL_IN_PLACE && c->epoch_known)
			pipeline_conn_reset(pl, c, true, now);
		else if (how == NIC_FAIL_START_OVER)
			pipeline_conn_start_over(pl, c, now);
		else
			nic_fail_in_place(nic, pl, c, now);
	}
}

void nic_peer_no_vnet(struct nic *nic, const struct proto_pkt *q, uint64_t now)
{
	struct nic_vnet *v = nic_vnet_find(nic, q->vnet);
	struct sn_conn *c = v && q->src_node < v->pl->n_nodes ? v->pl->conns[q->src_node] : NULL;

	/*
	 * An answer to a frame of an earlier epoch: that one was restarted
	 * already. A connection that knows no epoch cannot tell (its frames
	 * carry the nonce): it starts over, still knowing none, as toward a
	 * peer that is gone (pipeline_conn_renew: given an epoch, a late frame
	 * of a gone pair would be taken, a message delivered again).
	 */
	if (c && (!c->epoch_known || c->epoch == q->epoch))
		pipeline_conn_renew(v->pl, c, now);
}

/*
 * The switch sends a notice for every request to a node that is down, and
 * one when it rejoins; the connections restart at each. The peer restarts
 * its own once per absence (its rejoin), so this end takes one new epoch
 * per absence too: at the first notice of it, down or rejoined (noticed:
 * one came, and neither the rejoin notice nor a frame of the peer since).
 * A node that has not joined this switch (a restarted one) takes a new
 * epoch when it joins, its own rejoin, which this end already matched with
 * its own: none here, or the first message after the restart fails. A
 * down or rejoined notice names the peer's process (pipeline_name_process).
 */
void nic_peer_down(struct nic *nic, uint16_t peer, enum proto_down_kind kind, uint16_t nonce,
		   uint64_t now)
{
	nic->stats.down_notices++;
	if (kind == PROTO_DOWN_NOT_JOINED) {
		nic_fail_peer(nic, peer, NIC_FAIL_IN_PLACE, now);
		return;
	}
	nic_fail_peer(nic, peer, nic->noticed[peer] ? NIC_FAIL_IN_PLACE : NIC_FAIL_RESTART, now);
	nic->noticed[peer] = kind == PROTO_DOWN_DOWN;
	for (unsigned int i = 0; i < nic->n_vnets; i++) {
		struct pipeline *pl = nic->vnets[i].pl;

		if (peer < pl->n_nodes && pl->conns[peer])
			pipeline_name_process(pl->conns[peer], nonce);
	}
}

void nic_left_cluster(struct nic *nic, uint64_t now)
{
	/* Not only messages: a marker (of one cancelled before the join) holds a descriptor too. */
	for (uint16_t t = nic->n_nodes; nic->n_free < nic->cfg.descriptors &&
	     t < nic->cfg.max_nodes; t++)
		nic_fail_peer(nic, t, NIC_FAIL_START_OVER, now);
}

void nic_rejoin(struct nic *nic, uint64_t now)
{
	nic->stats.rejoins++;
	nic->state = NIC_JOINING;
	/* a new incarnation of the same process: peers must restart with it */
	nic->hello_nonce = proto_hello_nonce(nic->boot_nonce, (uint16_t)(nic->hello_nonce + 1));
	/*
	 * ... and so must we: a switch that sees us rejoin tells our peers
	 * to start over with us, and a restarted switch tells a node whose
	 * peer has not joined it yet that the peer is down. A side that
	 * kept its packet numbers would never be understood again.
	 */
	for (uint16_t t = 0; t < nic->cfg.max_nodes; t++)
		nic_fail_peer(nic, t, NIC_FAIL_RESTART, now);
	nic->next_hello = now;
}

/* Say HELLO while joining; notice lost grants while up. */
static uint64_t nic_join_poll(struct nic *nic, uint64_t now)
{
	/*
	 * The NIC's own pause, after this poll's receive: a grant that waited
	 * through it restarted gnt_watch, so its looks do not see the gap.
	 */
	nic->stats.slots_paused += dp_pause_poll(&nic->pause, now, nic->slot_ns);
	if (nic->state == NIC_UP) {
		uint64_t limit = (uint64_t)nic->cfg.lost_gnt_slots * nic->slot_ns;
		/* Watched time: the NIC's own pause is not the switch's silence. */
		uint64_t watched = dp_watch_look(&nic->gnt_watch, now);

		if (watched <= limit)
			return now + RTE_MIN(limit - watched + 1, DP_WATCH_POLL_CAP_NS);
		DP_LOG(nic_logtype, NOTICE, "node %u: no grant for %u slots, joining again (pending messages fail, connections start over)",
		       nic->id, nic->cfg.lost_gnt_slots);
		nic_rejoin(nic, now);
	}
	if (now >= nic->next_hello) {
		struct proto_pkt p = {
			.type = PROTO_T_HELLO, .src_node = nic->id,
			.dst_node = PROTO_NODE_SWITCH, .hello_nonce = nic->hello_nonce,
		};

		/* A port that passes nothing (waiting for its link): nothing to say. */
		if (!dp_port_down(nic->quick)) {
			nic_send_control(nic, &p, now);
			nic->stats.hello_sent++;
		}
		nic->next_hello = now + nic->cfg.hello_ns;
	}
	return nic->next_hello;
}

uint64_t nic_poll(struct nic *nic, uint64_t now)
{
	struct rte_mbuf *burst[NIC_BURST];
	uint64_t next, t;
	uint16_t got;

	/* Most polls find a port empty: no call (nic_ingress saves many registers). */
	got = dp_port_rx(nic->quick, burst, NIC_BURST);
	if (got)
		nic_ingress(nic, burst, got, now);
	if (nic->bulk != nic->quick) {
		got = dp_port_rx(nic->bulk, burst, NIC_BURST);
		if (got)
			nic_ingress(nic, burst, got, now);
	}
	next = nic_join_poll(nic, now);
	for (unsigned int i = 0; i < nic->n_vnets; i++)
		pipeline_tick(nic->vnets[i].pl, now);
	t = chan_poll(nic, now);
	if (t < next)
		next = t;
	/* Again after the channel sent: the timers must see what just left. */
	for (unsigned int i = 0; i < nic->n_vnets; i++) {
		t = pipeline_tick(nic->vnets[i].pl, now);
		if (t < next)
			next = t;
	}
	return next;
}

uint64_t nic_rx_outcomes(const struct nic_stats *s)
{
	return s->rx_invalid + s->rx_before_join + s->rx_misdelivered + s->rx_unexpected +
	       s->gnt_received + s->gnt_out_of_order + s->rx_data + s->rx_acks +
	       s->down_notices + s->no_vnet_received + s->told_to_rejoin;
}

uint16_t nic_node_id(const struct nic *nic)
{
	return nic->id;
}

uint16_t nic_cluster_size(const struct nic *nic)
{
	return nic->n_nodes;
}

bool nic_is_up(const struct nic *nic)
{
	return nic->state == NIC_UP;
}

const struct nic_stats *nic_stats(const struct nic *nic)
{
	return &nic->stats;
}

const uint64_t *nic_decode_drops(const struct nic *nic)
{
	return nic->decode;
}

struct pipeline *nic_pipeline(struct nic *nic, uint16_t vnet)
{
	struct nic_vnet *v = nic_vnet_find(nic, vnet);

	return v ? v->pl : NULL;
}

uint32_t nic_pending(const struct nic *nic)
{
	return nic->pending;
}

void nic_print_counters(const struct nic *nic, const char *name, FILE *f)
{
	struct dp_counter_set set = DP_COUNTER_SET(name, nic_counter_names,
						   &nic->stats);

	dp_counters_print(f, &set);
	for (int r = 1; r < PROTO_R_COUNT; r++)
		if (nic->decode[r])
			fprintf(f, "%s.bad_filter.%s %llu\n", name,
				proto_reason_name((enum proto_reason)r),
				(unsigned long long)nic->decode[r]);
	for (unsigned int i = 0; i < nic->n_vnets; i++)
		pipeline_print_counters(nic->vnets[i].pl, name, f);
}
