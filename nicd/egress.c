/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Egress: xmit, the transmit stage that knows the frame format. It runs at
 * the moment a packet leaves (not when it is queued), so the acknowledgment
 * it piggybacks and the slot it names are current.
 */
#include "dataplane/dp_mbuf.h"
#include "nic_priv.h"

/*
 * How much a NIC lets QREQs queue on its paced quick link (on top of what
 * is on it), in ns at least: one QREQ, so a BACK or QACK sent next waits
 * for little, but at least this long, so a poll loop that comes round less
 * often than a QREQ takes on the wire (a fast real link) still keeps the
 * link busy.
 */
enum { NIC_QUICK_BACKLOG_MIN_NS = 1000 };

void nic_quick_rate(struct nic *nic)
{
	struct proto_pkt q = { .type = PROTO_T_QREQ };

	nic->quick_gbps = dp_port_tx_gbps(nic->quick);
	if (nic->cfg.quick_gbps > 0 &&
	    (nic->quick_gbps <= 0 || nic->cfg.quick_gbps < nic->quick_gbps))
		nic->quick_gbps = nic->cfg.quick_gbps;
	if (nic->quick_gbps <= 0)
		return;
	nic->quick_ps_per_byte = dp_ps_per_byte(nic->quick_gbps);
	nic->quick_backlog_ps = dp_wire_ps_at((uint32_t)proto_frame_len(&q),
					      nic->quick_ps_per_byte);
	if (nic->quick_backlog_ps < NIC_QUICK_BACKLOG_MIN_NS * 1000ull)
		nic->quick_backlog_ps = NIC_QUICK_BACKLOG_MIN_NS * 1000ull;
}

/* A frame of len bytes left on the quick port at now, after what is queued. */
static void nic_quick_sent(struct nic *nic, uint32_t len, uint64_t now)
{
	uint64_t now_ps;

	if (nic->quick_gbps <= 0)
		return;
	if (dp_ps_epoch_due(&nic->quick_epoch, now))
		nic->quick_free_ps = dp_ps_rebase(nic->quick_free_ps,
						  dp_ps_epoch_move(&nic->quick_epoch, now));
	now_ps = dp_ps_since(&nic->quick_epoch, now);
	if (nic->quick_free_ps < now_ps)
		nic->quick_free_ps = now_ps;
	nic->quick_free_ps += dp_wire_ps_at(len, nic->quick_ps_per_byte);
}

bool nic_quick_ready(const struct nic *nic, uint64_t now, uint64_t *wake)
{
	uint64_t since_ns = now - nic->quick_epoch.ns, backlog_ps;

	if (since_ns > nic->quick_free_ps / 1000)
		return true;	/* idle (and since_ns in ps might not fit) */
	backlog_ps = nic->quick_free_ps - since_ns * 1000;
	if (backlog_ps <= nic->quick_backlog_ps)
		return true;
	*wake = now + (backlog_ps - nic->quick_backlog_ps + 999) / 1000;
	return false;
}

/* Encode p into a new frame and send it on port; false if no mbuf. */
static bool nic_emit(struct nic *nic, struct dp_port *port, struct proto_pkt *p,
		     uint64_t now)
{
	struct rte_mbuf *m;

	proto_node_mac(nic->id, p->eth_src);
	proto_node_mac(p->dst_node, p->eth_dst);
	m = dp_frame_alloc(nic->cfg.mp, (uint16_t)proto_frame_len(p));
	if (!m) {
		nic->stats.no_mbuf++;
		return false;
	}
	if (proto_encode(p, rte_pktmbuf_mtod(m, void *), m->buf_len - m->data_off) < 0) {
		rte_pktmbuf_free(m);
		return false;
	}
	if (port == nic->quick)
		nic_quick_sent(nic, m->data_len, now);
	dp_port_tx1(port, m);
	return true;
}

/*
 * Stamp p, as it leaves, with the epoch of its connection (0 without one),
 * or while the connection knows none, with FRESH and the boot nonce.
 */
static void nic_stamp_epoch(const struct nic *nic, const struct sn_conn *conn,
			    struct proto_pkt *p)
{
	if (conn && !conn->epoch_known) {
		p->flags |= PROTO_F_FRESH;
		p->epoch = nic->boot_nonce;
		return;
	}
	p->epoch = conn ? conn->epoch : 0;
}

/* Piggyback conn's receive state on p; the connection is then acknowledged. */
static void nic_add_ack(struct sn_conn *conn, struct proto_pkt *p)
{
	if (!conn || !conn->pl->acked)
		return;
	p->flags |= PROTO_F_ACK;
	p->ack_base = conn->rx_base;
	p->ack_mask = conn->rx_mask;
	conn->rx_unacked = 0;
	conn->ack_now = 0;
}

bool nic_xmit(struct nic *nic, struct sn_pkt *pkt, uint64_t now)
{
	struct proto_pkt p = pkt->h;
	bool bulk = pkt->chan == SN_CHAN_BULK;

	p.src_node = nic->id;
	if (pkt->flags & SN_PKT_ACK_ONLY) {
		p = (struct proto_pkt) {
			.type = PROTO_T_QACK, .src_node = nic->id,
			.dst_node = pkt->h.dst_node, .vnet = pkt->h.vnet,
		};
		nic_stamp_epoch(nic, pkt->conn, &p);
		nic_add_ack(pkt->conn, &p);
		sn_ack_name_dup(pkt, &p);
		if (!nic_emit(nic, nic->quick, &p, now))
			return false;
		nic->stats.qack_sent++;
		return true;
	}
	p.type = bulk ? PROTO_T_BREQ : PROTO_T_QREQ;
	p.slot = bulk ? pkt->slot : 0;
	p.flags = (uint16_t)(p.flags & (PROTO_F_DATA | PROTO_F_LAST | PROTO_F_ABANDONED |
					PROTO_F_REFUSED));
	nic_stamp_epoch(nic, pkt->conn, &p);
	/* Sent FRESH, it is not taken: the WELCOME sends it again (nic_resend_fresh). */
	pkt->h.flags = (uint16_t)((pkt->h.flags & ~PROTO_F_FRESH) | (p.flags & PROTO_F_FRESH));
	if (pkt->tx_count)
		p.flags |= PROTO_F_RETX | PROTO_F_FORCE_ACK;
	nic_add_ack(pkt->conn, &p);
	if (!nic_emit(nic, bulk ? nic->bulk : nic->quick, &p, now))
		return false;
	if (pkt->tx_count)
		nic->stats.retransmissions++;
	sn_pkt_sent(pkt, now);
	nic->stats.tx_frames++;
	if (bulk)
		nic->stats.breq_sent++;
	else
		nic->stats.qreq_sent++;
	return true;
}

void nic_send_back(struct nic *nic, struct sn_conn *conn, const struct proto_pkt *breq,
		   bool nack, uint64_t now)
{
	struct proto_pkt p = {
		.type = PROTO_T_BACK, .flags = nack ? PROTO_F_NACK : 0,
		.src_node = nic->id, .dst_node = breq->src_node, .vnet = breq->vnet,
		.pkt_num = breq->pkt_num, .slot = breq->slot,
	};

	nic_stamp_epoch(nic, conn, &p);
	if (!nack)
		nic_add_ack(conn, &p);
	if (nic_emit(nic, nic->quick, &p, now))
		nic->stats.back_sent++;
}

void nic_send_refusal(struct nic *nic, struct sn_conn *conn, const struct proto_pkt *data,
		      uint64_t now)
{
	struct proto_pkt p = {
		.type = PROTO_T_QACK, .flags = PROTO_F_REFUSED, .src_node = nic->id,
		.dst_node = data->src_node, .vnet = data->vnet, .src_ep = data->dst_ep,
		.dst_ep = data->src_ep, .pkt_num = data->pkt_num,
	};

	if (data->type == PROTO_T_BREQ) {
		p = (struct proto_pkt) {
			.type = PROTO_T_BACK, .flags = PROTO_F_NACK | PROTO_F_REFUSED,
			.src_node = nic->id, .dst_node = data->src_node, .vnet = data->vnet,
			.pkt_num = data->pkt_num, .slot = data->slot,
		};
	}
	nic_stamp_epoch(nic, conn, &p);
	nic_add_ack(conn, &p);
	if (!nic_emit(nic, nic->quick, &p, now))
		return;
	nic->stats.ep_refusals_sent++;
	if (p.type == PROTO_T_BACK)
		nic->stats.back_sent++;
	else
		nic->stats.qack_sent++;
}

void nic_send_no_vnet(struct nic *nic, const struct proto_pkt *data, uint64_t now)
{
	struct proto_pkt p = {
		.type = PROTO_T_QACK, .flags = PROTO_F_NO_VNET, .src_node = nic->id,
		.dst_node = data->src_node, .vnet = data->vnet, .epoch = data->epoch,
	};

	if (nic_emit(nic, nic->quick, &p, now))
		nic->stats.no_vnet_sent++;
}

void nic_send_welcome(struct nic *nic, struct sn_conn *conn, uint16_t nonce, bool restart,
		      uint64_t now)
{
	struct proto_pkt p = {
		.type = PROTO_T_QACK, .src_node = nic->id, .dst_node = conn->peer,
		.vnet = conn->vnet, .pkt_num = nonce, .handler = nic->boot_nonce,
		.epoch = conn->epoch,
		.flags = (uint16_t)(PROTO_F_WELCOME | (restart ? PROTO_F_RESTART : 0)),
	};

	nic_add_ack(conn, &p);
	if (nic_emit(nic, nic->quick, &p, now))
		nic->stats.welcome_sent++;
}

void nic_send_intro(struct nic *nic, struct sn_conn *conn, uint64_t now)
{
	struct proto_pkt p = {
		.type = PROTO_T_QACK, .flags = PROTO_F_FRESH, .src_node = nic->id,
		.dst_node = conn->peer, .vnet = conn->vnet, .epoch = nic->boot_nonce,
	};

	if (nic_emit(nic, nic->quick, &p, now))
		nic->stats.intro_sent++;
}

void nic_send_control(struct nic *nic, struct proto_pkt *p, uint64_t now)
{
	nic_emit(nic, nic->quick, p, now);
}
