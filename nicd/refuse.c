/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-endpoint push-back (doc/protocol.md). Receiving: a data frame for an
 * endpoint without a receive buffer is refused for that endpoint alone
 * (REFUSED): its number is not taken, and the connection's later data for
 * the endpoint is refused too (a block) until its sender, told, has sent
 * those messages again under later numbers, so they stay in order; the
 * other endpoints' messages are taken as ever. Sending: a REFUSED answer
 * turns the packet, and the connection's other packets to that endpoint
 * the receiver did not take, into markers of their numbers, and genp sends
 * their messages again after a hold (genp_hold).
 */
#include "nic_priv.h"
#include "stages/stages.h"

/*
 * c's block for endpoint ep, or NULL. What rx_base passed is recorded,
 * so the block starts after it; a bounded block it passed is over.
 */
static struct sn_rx_block *nic_rx_block(struct sn_conn *c, uint16_t ep)
{
	if (!c->rx_blocks_used)
		return NULL;
	for (unsigned int i = 0; i < SN_RX_BLOCKS; i++) {
		struct sn_rx_block *b = &c->rx_blocks[i];

		if (!b->used || b->ep != ep)
			continue;
		if (proto_seq_diff(c->rx_base, b->from) >= 0)
			b->from = proto_seq_add(c->rx_base, 1);
		if (b->bounded && !proto_seq_lt(b->from, b->until)) {
			b->used = false;
			c->rx_blocks_used--;
			return NULL;
		}
		return b;
	}
	return NULL;
}

/* True when block b refuses packet number n. */
static bool nic_rx_blocks(const struct sn_rx_block *b, uint32_t n)
{
	return proto_seq_diff(n, b->from) >= 0 && (!b->bounded || proto_seq_lt(n, b->until));
}

/* b refused packet n (again). */
static void nic_rx_block_refused(struct sn_rx_block *b, uint32_t n)
{
	if (proto_seq_lt(b->refused_max, n))
		b->refused_max = n;
}

/*
 * Start c's block for ep at refused packet n: from the first number not
 * recorded, since every packet for ep not taken yet may come after n's
 * message in its sender's order. A bounded block (b) is open again. False
 * when every entry is taken.
 */
static bool nic_rx_block_open(struct sn_conn *c, struct sn_rx_block *b, uint16_t ep,
			      uint32_t n)
{
	for (unsigned int i = 0; i < SN_RX_BLOCKS && !b; i++) {
		struct sn_rx_block *e = &c->rx_blocks[i];

		if (e->used)
			nic_rx_block(c, e->ep);	/* a bounded one passed by goes */
		if (!e->used) {
			*e = (struct sn_rx_block) {
				.from = proto_seq_add(c->rx_base, 1), .refused_max = n,
				.ep = ep, .used = true,
			};
			c->rx_blocks_used++;
			return true;
		}
	}
	if (!b)
		return false;
	b->bounded = false;
	nic_rx_block_refused(b, n);
	return true;
}

/*
 * A REFUSED marker m came: its sender numbers the refused messages for
 * m's endpoint again from pkt_num + handler on. Unless this end refused a
 * packet at or past that number since (its sender will send that message
 * again too, later), the block ends there.
 */
static void nic_rx_block_bound(struct sn_conn *c, const struct proto_pkt *m)
{
	struct sn_rx_block *b = nic_rx_block(c, m->dst_ep);
	uint32_t resume = proto_seq_add(m->pkt_num, m->handler);

	if (b && !b->bounded && proto_seq_lt(b->refused_max, resume)) {
		b->bounded = true;
		b->until = resume;
	}
}

enum nic_admit nic_rx_admit(struct nic *nic, struct pipeline *pl, struct sn_conn *c,
			    const struct proto_pkt *p)
{
	struct sn_rx_block *b;

	if (!nic->ops.rx_space)
		return NIC_ADMIT_TAKE;
	/* A marker is never delivered: it needs no buffer. */
	if (p->flags & PROTO_F_ABANDONED) {
		if (c && (p->flags & PROTO_F_REFUSED))
			nic_rx_block_bound(c, p);
		return NIC_ADMIT_TAKE;
	}
	if (!c || !pl->numbered)
		return nic->ops.rx_space(nic->ops.ctx, p->vnet, p->dst_ep) ?
		       NIC_ADMIT_TAKE : NIC_ADMIT_REFUSE;
	/* Taken already, or too far ahead to be: delivered at most again, never refused. */
	if (sn_conn_rx_has(c, p->pkt_num) || sn_conn_rx_beyond(c, p->pkt_num))
		return NIC_ADMIT_TAKE;
	b = nic_rx_block(c, p->dst_ep);
	if (b && nic_rx_blocks(b, p->pkt_num)) {
		nic_rx_block_refused(b, p->pkt_num);
		return NIC_ADMIT_REFUSE_EP;
	}
	if (nic->ops.rx_space(nic->ops.ctx, p->vnet, p->dst_ep))
		return NIC_ADMIT_TAKE;
	/*
	 * A block would refuse every packet for the endpoint not taken yet,
	 * from rx_base on: not while one for it past that waits in order
	 * (taken), or it would pass them. This one is taken instead.
	 */
	if (pipeline_holds_later(pl, c, p->dst_ep, c->rx_base)) {
		nic->stats.rx_over_promise++;
		return NIC_ADMIT_TAKE;
	}
	if (!nic_rx_block_open(c, b, p->dst_ep, p->pkt_num)) {
		nic->stats.ep_blocks_full++;
		return NIC_ADMIT_REFUSE;
	}
	return NIC_ADMIT_REFUSE_EP;
}

/* True when packet number n is covered by the acknowledgment in a. */
static bool nic_acked_by(uint32_t n, const struct proto_pkt *a)
{
	return proto_ack_covers(n, a->ack_base, a->ack_mask);
}

/* True when q is a message to ep that the receiver whose ack is a did not take. */
static bool nic_refused_too(const struct sn_pkt *q, uint16_t ep, const struct proto_pkt *a)
{
	return q->h.dst_ep == ep && (q->h.flags & PROTO_F_DATA) &&
	       !(q->h.flags & PROTO_F_ABANDONED) && !(q->flags & SN_PKT_SACKED) &&
	       !nic_acked_by(q->h.pkt_num, a);
}

/*
 * An unnumbered copy of q's message, to be sent again, in a new descriptor
 * (the caller made sure there are enough).
 */
static struct sn_pkt *nic_copy_msg(struct nic *nic, const struct sn_pkt *q)
{
	struct sn_pkt *d = nic_desc_alloc(nic, &q->h);
	uint32_t tries = sn_pkt_tries(q);

	d->h.pkt_num = 0;
	d->h.flags = (uint16_t)(q->h.flags & (PROTO_F_DATA | PROTO_F_LAST));
	memcpy(d->args, q->args, sizeof(d->args));
	d->h.args = d->args;
	d->chan = q->chan;
	d->cookie = q->cookie;
	d->t_gen = q->t_gen;
	d->conn = q->conn;
	d->tries = (uint16_t)(tries < UINT16_MAX ? tries : UINT16_MAX);
	return d;
}

/*
 * q (its message copied) becomes the REFUSED marker of its number, saying
 * from which number its messages come again (resume); it leaves the
 * channel's lists, to join the quick send buffers first (nic_rx_refusal).
 */
static void nic_make_refused_marker(struct nic *nic, struct sn_pkt *q, uint32_t resume)
{
	if (q->cq != CQ_NONE)
		chan_forget(nic, q);
	sn_pkt_make_marker(q);
	q->h.flags |= PROTO_F_REFUSED;
	q->h.handler = (uint16_t)proto_seq_diff(resume, q->h.pkt_num);
}

bool nic_rx_refusal(struct nic *nic, struct pipeline *pl, struct sn_conn *c,
		    const struct proto_pkt *r, uint64_t now)
{
	struct stage *genp = pipeline_stage(pl, "genp");
	struct sn_pkt *k, *q, *msgs[PROTO_SACK_BITS], *marks[PROTO_SACK_BITS];
	uint16_t n = 0, ep;
	uint32_t resume = c->tx_next;

	nic->stats.ep_refusals_received++;
	for (k = c->unacked; k && k->h.pkt_num != r->pkt_num; k = k->next)
		;
	/* Made a marker at an earlier answer, acknowledged since, or no protocol's. */
	if (!genp || !(r->flags & PROTO_F_ACK) || !k || !nic_refused_too(k, k->h.dst_ep, r)) {
		nic->stats.ep_refusals_stale++;
		return false;
	}
	ep = k->h.dst_ep;
	for (q = c->unacked; q; q = q->next)
		n += nic_refused_too(q, ep, r);
	/* All or none, or a message left behind would come after later ones. */
	if (n > PROTO_SACK_BITS || nic->n_free < n + nic->cfg.descriptors / 8 ||
	    !genp_may_hold(genp, c, ep, now)) {
		nic->stats.ep_refusals_ignored++;
		return false;
	}
	n = 0;
	for (q = c->unacked; q; q = q->next) {
		if (!nic_refused_too(q, ep, r))
			continue;
		msgs[n] = nic_copy_msg(nic, q);
		nic_make_refused_marker(nic, q, resume);
		marks[n++] = q;
	}
	/*
	 * Markers go first in the quick send buffers (chan_sink), in number
	 * order; one go-back-N genp keeps unsent leaves when it sends it.
	 */
	for (uint16_t i = n; i-- > 0;)
		if (!(marks[i]->flags & SN_PKT_UNSENT))
			chan_sink(nic, marks[i], now);
	nic->stats.requeued += n;
	genp_hold(genp, c, ep, msgs, n, now);
	/*
	 * A go-back-N receiver dropped what came after the refused packet:
	 * that is sent again now, behind the markers, as on a timeout (but
	 * counted apart, in genp's refusal_retx).
	 */
	if (genp_goes_back_n(genp))
		pipeline_event(pl, c, STAGE_EV_REFUSED, marks[0], now);
	return true;
}
