/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ingress: the two receive stages that know the frame format and run once
 * per NIC, before a frame's virtual network is known. bad_filter validates
 * every frame and drops what fails, counted by reason; split takes a valid
 * frame apart into what the channel layer needs (grants, BACK results, DOWN
 * notices) and a packet for its virtual network's pipeline (data and acks),
 * after the frame's epoch says it is not from before a reset of its
 * connection (pipeline_rx_epoch).
 */
#include <string.h>

#include "dataplane/dp_log.h"
#include "nic_priv.h"

DP_LOG_REGISTER(nic_ingress_logtype, NICD_INGRESS);

/* bad_filter: validate one frame into p; false (and counted) if bad. */
static bool nic_bad_filter(struct nic *nic, struct rte_mbuf *m, struct proto_pkt *p)
{
	enum proto_reason why;

	why = proto_decode(rte_pktmbuf_mtod(m, const void *), m->data_len,
			   &nic->lim, p);
	if (why == PROTO_R_OK)
		return true;
	nic->decode[why]++;
	nic->stats.rx_invalid++;
	return false;
}

/*
 * A GNT: join on the first one, then pass it to the channel. One flagged
 * REJOIN says the switch does not have this node up: join again now (one
 * that comes while joining is no grant to join on).
 */
static void nic_split_gnt(struct nic *nic, const struct proto_pkt *p, uint64_t now)
{
	const struct proto_gnt *g = &p->gnt;

	if (g->gflags & PROTO_GNT_F_REJOIN) {
		nic->stats.told_to_rejoin++;
		if (nic->state == NIC_UP) {
			DP_LOG(nic_ingress_logtype, NOTICE, "node %u: the switch does not have it up (restarted, or marked it down): joining again (pending messages fail, connections start over)",
			       nic->id);
			nic_rejoin(nic, now);
		}
		return;
	}
	if (nic->state == NIC_JOINING || g->node_id != nic->id) {
		nic->id = g->node_id;
		nic->n_nodes = g->n_nodes;
		nic->slot_ns = g->slot_ns;
		nic->back_slots = g->back_slots;
		nic->slot_frames = g->slot_frames;
		nic->fifo = g->gflags & PROTO_GNT_F_FIFO;
		nic->state = NIC_UP;
		nic->gnt_slot = g->slot - 1;
		nic->stats.joins++;
		nic_quick_rate(nic);
		for (unsigned int i = 0; i < nic->n_vnets; i++)
			nic->vnets[i].pl->self = nic->id;
		chan_joined(nic);
		nic_left_cluster(nic, now);
		DP_LOG(nic_ingress_logtype, INFO, "joined as node %u of %u (slot %u ns%s)",
		       nic->id, nic->n_nodes, g->slot_ns, nic->fifo ? ", FIFO model" : "");
	}
	if ((int32_t)(g->slot - nic->gnt_slot) <= 0) {
		nic->stats.gnt_out_of_order++;
		return;
	}
	nic->stats.gnt_received++;
	nic->gnt_slot = g->slot;
	nic->gnt_time = now;
	dp_watch_start(&nic->gnt_watch, now, DP_WATCH_POLL_CAP_NS);
	chan_grant(nic, g, now);
}

/*
 * A WELCOME came on c: its receiver took none of the packets c last sent
 * FRESH (nic_split_data), so they leave again now, in the epoch, rather
 * than a retransmission timeout later, and their transmissions so far
 * (all FRESH) use up none of their retries: all are marked first, as
 * going back N the first one's resend takes the later ones along.
 */
static void nic_resend_fresh(struct pipeline *pl, struct sn_conn *c, uint64_t now)
{
	struct sn_pkt *p;

	for (p = c->unacked; p; p = p->next)
		if (p->h.flags & PROTO_F_FRESH)
			p->untaken = p->tx_count;
	for (p = c->unacked; p; p = p->next) {
		if (!(p->h.flags & PROTO_F_FRESH))
			continue;
		p->h.flags &= (uint16_t)~PROTO_F_FRESH;
		if (sn_pkt_awaits_ack(p))
			pipeline_event(pl, c, STAGE_EV_UNTAKEN, p, now);
	}
}

/*
 * A WELCOME of this process came on c, which knows its epoch from another
 * process of the peer: the WELCOME's sender is a process c holds no state
 * of, which took a FRESH frame of this one held late and knows its own
 * epoch (both ends new, as far as it could tell). It is news of that
 * process, as its FRESH frame would be (pipeline_rx_fresh: c restarts if
 * it holds state of an earlier one), and is dropped; that process takes
 * c's epoch, as newer, from c's next frame. Taken by the epoch instead, it
 * was stale, and that process took c's epoch later with no restart here:
 * c's numbering went on past packets only the earlier process took.
 */
static bool nic_rx_other_welcome(struct nic *nic, struct nic_vnet *v, struct sn_conn *c,
				 const struct proto_pkt *p, uint64_t now)
{
	if (pipeline_rx_fresh(v->pl, c, p->handler, now) == PIPELINE_EPOCH_FRESH_RESTART)
		nic->stats.fresh_restarts++;
	nic->stats.rx_stale_epoch++;
	return false;
}

/*
 * The epoch check of a frame of conn, before anything in it is used: false
 * when it is from before a reset, or before this process as far as conn
 * can tell, and must be dropped whole. A connection that knows no epoch
 * takes one only from a WELCOME of this process's nonce; a FRESH frame
 * taken is answered with a WELCOME, one from before a restart here with a
 * WELCOME that says RESTART.
 */
static bool nic_rx_epoch(struct nic *nic, struct nic_vnet *v, struct sn_conn *conn,
			 const struct proto_pkt *p, uint64_t now)
{
	bool fresh = p->flags & PROTO_F_FRESH;
	bool welcome = p->flags & PROTO_F_WELCOME;
	bool first = !conn->epoch_known;
	enum pipeline_epoch r;

	if (welcome && p->pkt_num != nic->boot_nonce) {
		nic->stats.rx_stale_epoch++;	/* to an earlier process of this node */
		return false;
	}
	if (welcome && conn->epoch_known &&
	    (conn->fresh_seen == SN_FRESH_NONE || conn->fresh_nonce != p->handler))
		return nic_rx_other_welcome(nic, v, conn, p, now);
	if (!fresh && !conn->epoch_known) {
		if (!welcome) {
			nic->stats.rx_unwelcome++;
			pipeline_rx_unwelcome(v->pl, conn, now);
			return false;
		}
		nic->stats.rx_welcome++;
		r = pipeline_rx_welcome(v->pl, conn, p->epoch, p->handler,
					p->flags & PROTO_F_RESTART, now);
	} else {
		/* a WELCOME here names this process and the peer's conn knows */
		r = fresh ? pipeline_rx_fresh(v->pl, conn, p->epoch, now) :
			    pipeline_rx_epoch(v->pl, conn, p->epoch, welcome, now);
	}
	switch (r) {
	case PIPELINE_EPOCH_STALE:
		nic->stats.rx_stale_epoch++;
		if (fresh)
			nic_send_welcome(nic, conn, p->epoch, true, now);
		else if (welcome)
			nic_send_welcome(nic, conn, conn->fresh_nonce, false, now);
		return false;
	case PIPELINE_EPOCH_OTHER_PAIR:
		nic->stats.rx_other_pair++;
		nic_send_intro(nic, conn, now);
		return false;
	case PIPELINE_EPOCH_NEWER:
		nic->stats.epoch_restarts++;
		break;
	case PIPELINE_EPOCH_FRESH_RESTART:
		nic->stats.fresh_restarts++;
		break;
	default:
		break;
	}
	if ((p->flags & PROTO_F_ACK) && conn->epoch_known &&
	    (first ? pipeline_rx_ack_first(v->pl, conn, p->ack_base, p->ack_mask, now) :
		     pipeline_rx_ack_base(v->pl, conn, p->ack_base, p->ack_mask,
					  now)) == PIPELINE_EPOCH_STALE) {
		nic->stats.ack_contradictions++;
		return false;
	}
	if (fresh) {
		nic->stats.rx_fresh++;
		nic_send_welcome(nic, conn, p->epoch, false, now);
	}
	if (welcome)
		nic_resend_fresh(v->pl, conn, now);
	nic->noticed[p->src_node] = false;	/* the peer is back: a notice is news again */
	return true;
}

/* A BACK or QACK: its epoch, a BACK's result to the channel, the ack to its pipeline. */
static void nic_split_ack(struct nic *nic, const struct proto_pkt *p, uint64_t now)
{
	struct nic_vnet *v = nic_vnet_find(nic, p->vnet);
	struct sn_conn *conn = v ? pipeline_conn(v->pl, p->src_node) : NULL;
	struct sn_pkt *a;

	bool refused = (p->flags & PROTO_F_REFUSED) && conn && v->pl->numbered;

	if (conn && !nic_rx_epoch(nic, v, conn, p, now))
		return;
	/* A refusal for the endpoint alone: no BREQ is requested again. */
	if (p->type == PROTO_T_BACK && !refused)
		chan_back(nic, p, now);
	if (!(p->flags & PROTO_F_ACK))
		return;
	if (!v) {
		nic->stats.rx_unknown_vnet++;
		return;
	}
	if (!conn) {
		nic->stats.rx_no_desc++;	/* no memory for the connection */
		return;
	}
	a = nic_desc_alloc(nic, p);
	if (!a) {
		nic->stats.rx_no_desc++;
		return;
	}
	a->h.args = NULL;
	a->chan = SN_CHAN_QUICK;
	a->conn = conn;
	pipeline_rx(v->pl, &a, 1, now);
	/*
	 * After its acknowledgment: what that took is no longer resent. A
	 * refusal not acted on is a negative BACK as any: requested again.
	 */
	if (refused && !nic_rx_refusal(nic, v->pl, conn, p, now) && p->type == PROTO_T_BACK)
		chan_back(nic, p, now);
}

/* Refuse a data frame of conn: a BREQ gets a negative BACK, a QREQ is retried. */
static void nic_refuse(struct nic *nic, struct sn_conn *conn, struct rte_mbuf *m,
		       const struct proto_pkt *p, uint64_t now)
{
	if (p->type == PROTO_T_BREQ)
		nic_send_back(nic, conn, p, true, now);
	rte_pktmbuf_free(m);
}

/* A BREQ or QREQ: into its pipeline; a BREQ is answered with a BACK. */
static void nic_split_data(struct nic *nic, struct rte_mbuf *m,
			   const struct proto_pkt *p, uint64_t now)
{
	bool bulk = p->type == PROTO_T_BREQ;
	struct nic_vnet *v = nic_vnet_find(nic, p->vnet);
	struct sn_conn *conn;
	struct sn_pkt *d;

	if (!v) {
		nic->stats.rx_unknown_vnet++;
		nic_send_no_vnet(nic, p, now);	/* or its sender would resend it for ever */
		rte_pktmbuf_free(m);
		return;
	}
	conn = pipeline_conn(v->pl, p->src_node);
	if (conn && !nic_rx_epoch(nic, v, conn, p, now)) {
		rte_pktmbuf_free(m);	/* a stale BREQ gets no BACK: nothing waits for it now */
		return;
	}
	/*
	 * A FRESH frame only introduces its sender's process: its packet is
	 * neither delivered nor recorded, and comes again in the epoch of the
	 * WELCOME. Its process may be gone, and this one never heard of it
	 * (held late), or it may be taken again by the next process of this
	 * node (the WELCOME lost): nothing a FRESH frame carries is taken
	 * where no WELCOME of it can have been heard.
	 */
	if (conn && (p->flags & PROTO_F_FRESH) && v->pl->numbered) {
		nic->stats.rx_fresh_data++;
		nic_refuse(nic, conn, m, p, now);
		return;
	}
	switch (nic_rx_admit(nic, v->pl, conn, p)) {
	case NIC_ADMIT_REFUSE:
		nic->stats.rx_no_space++;
		nic_refuse(nic, conn, m, p, now);
		return;
	case NIC_ADMIT_REFUSE_EP:
		nic->stats.rx_no_space++;
		nic_send_refusal(nic, conn, p, now);
		rte_pktmbuf_free(m);
		return;
	default:
		break;
	}
	d = conn ? nic_desc_alloc(nic, p) : NULL;
	if (!d) {
		nic->stats.rx_no_desc++;
		nic_refuse(nic, conn, m, p, now);
		return;
	}
	d->m = m;
	d->chan = bulk ? SN_CHAN_BULK : SN_CHAN_QUICK;
	d->conn = conn;
	pipeline_rx(v->pl, &d, 1, now);
	if (bulk)
		nic_send_back(nic, conn, p, false, now);
}

/* split: route one valid frame. */
static void nic_split(struct nic *nic, struct rte_mbuf *m, const struct proto_pkt *p,
		      uint64_t now)
{
	if (p->type == PROTO_T_GNT) {
		nic_split_gnt(nic, p, now);
		goto done;
	}
	if (nic->state != NIC_UP) {
		nic->stats.rx_before_join++;
		goto done;
	}
	if (p->dst_node != nic->id) {
		nic->stats.rx_misdelivered++;
		goto done;
	}
	switch (p->type) {
	case PROTO_T_BREQ:
	case PROTO_T_QREQ:
		nic->stats.rx_data++;
		nic_split_data(nic, m, p, now);
		return;
	case PROTO_T_BACK:
	case PROTO_T_QACK:
		if (p->flags & PROTO_F_DOWN) {
			nic_peer_down(nic, p->src_node, p->epoch, p->handler, now);
			goto done;
		}
		if (p->flags & PROTO_F_NO_VNET) {
			nic->stats.no_vnet_received++;
			nic_peer_no_vnet(nic, p, now);
			goto done;
		}
		nic->stats.rx_acks++;
		nic_split_ack(nic, p, now);
		goto done;
	default:
		nic->stats.rx_unexpected++;
		goto done;
	}
done:
	rte_pktmbuf_free(m);
}

void nic_ingress(struct nic *nic, struct rte_mbuf **frames, uint16_t n,
		 uint64_t now)
{
	for (uint16_t i = 0; i < n; i++) {
		struct proto_pkt p;

		nic->stats.rx_frames++;
		if (nic_bad_filter(nic, frames[i], &p))
			nic_split(nic, frames[i], &p, now);
		else
			rte_pktmbuf_free(frames[i]);
	}
}
