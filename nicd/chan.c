/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NIC's channel layer. Bulk: packets wait in per-target backlogs, are
 * prefetched round-robin into send buffers with a per-target cap (so a
 * blocked target cannot hold buffers other targets could use), are requested
 * in every slot's CFG, leave in a granted slot, and keep their buffer until
 * the BACK: a negative or missing BACK requests the target again. A
 * negative BACK (the receiving endpoint has no buffer) also holds the
 * packet's connection back from the send buffers for a while, so the
 * packets of other connections to that target take its grants. Quick:
 * packets take a quick send buffer, leave when the quick link's transmit
 * backlog is short, and keep the buffer until acknowledged when a protocol
 * holds them (the timer retransmits from it); a go-back-N connection that
 * holds one takes another only after the other connections' packets took
 * theirs (chan_quick_hostage). With a reserve, a packet sent several
 * times and still unacknowledged gives its buffer back when another
 * connection needs one (chan_quick_reclaim). BACKs, QACKs and CFGs never
 * wait: holding QREQs in the buffers instead of the link's FIFO keeps them
 * from queuing behind QREQs and missing their deadlines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nic_priv.h"

/*
 * A connection refused again waits twice as long, up to this many slots,
 * before its packets take send buffers again.
 */
enum { CHAN_HOLD_MAX_SLOTS = 16 };

/* Packets of a backlog looked at for one not held back, at most. */
enum { CHAN_HOLD_SCAN = 256 };

/* Slots back the slot clock of chan_slot_start looks at GNTs, at most. */
enum { CHAN_CLOCK_SLOTS = 16 };

int chan_init(struct nic *nic)
{
	struct nic_chan *ch = &nic->ch;
	uint16_t n = nic->cfg.max_nodes;

	ch->backlog = calloc(n, sizeof(*ch->backlog));
	ch->voq = calloc(n, sizeof(*ch->voq));
	ch->held = calloc(n, sizeof(*ch->held));
	ch->cfg_counts = calloc(n, 1);
	ch->cfg_enable = calloc((n + 7u) / 8, 1);
	ch->cfg_sent = calloc((n + 7u) / 8, 1);
	if (!ch->backlog || !ch->voq || !ch->held || !ch->cfg_counts || !ch->cfg_enable ||
	    !ch->cfg_sent)
		return -ENOMEM;
	ch->hold_wake = UINT64_MAX;
	ch->gnt_target = PROTO_NODE_NONE;
	return 0;
}

void chan_fini(struct nic *nic)
{
	struct nic_chan *ch = &nic->ch;

	free(ch->backlog);
	free(ch->voq);
	free(ch->held);
	free(ch->cfg_counts);
	free(ch->cfg_enable);
	free(ch->cfg_sent);
}

/* The list a packet's cq names. */
static struct chan_list *chan_list_of(struct nic *nic, const struct sn_pkt *p)
{
	struct nic_chan *ch = &nic->ch;
	uint16_t t = p->h.dst_node;

	switch (p->cq) {
	case CQ_BACKLOG:
		return &ch->backlog[t];
	case CQ_VOQ:
		return &ch->voq[t];
	case CQ_FIFO_BACKLOG:
		return &ch->fifo_backlog;
	case CQ_FIFO:
		return &ch->fifo;
	case CQ_INFLIGHT:
		return &ch->inflight;
	case CQ_QBACKLOG:
		return &ch->qbacklog;
	case CQ_QTX:
		return &ch->qtx;
	case CQ_QWAIT:
		return &ch->qwait;
	default:
		return NULL;
	}
}

/* True when a packet on list q occupies a send buffer. */
static bool chan_q_holds_buffer(uint8_t q)
{
	return q == CQ_VOQ || q == CQ_FIFO || q == CQ_INFLIGHT ||
	       q == CQ_QTX || q == CQ_QWAIT;
}

/* Quick packet p takes a quick send buffer. */
static void chan_quick_take(struct nic *nic, struct sn_pkt *p)
{
	nic->ch.quick_used++;
	if (p->conn)
		p->conn->quick_held++;
}

/* Quick packet p gives its quick send buffer back. */
static void chan_quick_give(struct nic *nic, const struct sn_pkt *p)
{
	nic->ch.quick_used--;
	if (p->conn)
		p->conn->quick_held--;
}

/* True when p, waiting for its acknowledgment, is overdue (CHAN_OVERDUE_TX). */
static bool chan_overdue(const struct sn_pkt *p)
{
	return p->tx_count >= CHAN_OVERDUE_TX;
}

/*
 * p joins (by 1) or leaves (by -1) the quick packets that wait for their
 * ack in a buffer: counted in quick_overdue when overdue. tx_count does
 * not change while it waits: only a transmission moves it.
 */
static void chan_qwait_count(struct nic *nic, const struct sn_pkt *p, int by)
{
	if (!chan_overdue(p))
		return;
	nic->ch.quick_overdue = (uint16_t)(nic->ch.quick_overdue + by);
	if (p->conn)
		p->conn->quick_overdue = (uint16_t)(p->conn->quick_overdue + by);
}

/* Give back the send buffer of a packet leaving list q. */
static void chan_free_buffer(struct nic *nic, const struct sn_pkt *p, uint8_t q)
{
	if (!chan_q_holds_buffer(q))
		return;
	if (p->chan == SN_CHAN_BULK) {
		nic->ch.held[p->h.dst_node]--;
		nic->ch.bulk_used--;
		chan_prefetch_changed(nic);
	} else {
		chan_quick_give(nic, p);
	}
}

/*
 * A packet joined (by 1) or left (by -1) a target's backlog other than by
 * the prefetch taking it: counted, and the next prefetch scans again.
 */
static void chan_backlogged(struct nic *nic, int by)
{
	nic->ch.backlogged = (uint32_t)(nic->ch.backlogged + by);
	chan_prefetch_changed(nic);
}

/* Take a packet off its list, giving back its buffer. */
static void chan_remove(struct nic *nic, struct sn_pkt *p)
{
	uint8_t q = p->cq;

	if (q == CQ_BACKLOG)
		chan_backlogged(nic, -1);
	if (q == CQ_VOQ || q == CQ_FIFO)
		nic->ch.voq_changes++;
	if (q == CQ_QWAIT)
		chan_qwait_count(nic, p, -1);
	chan_unlink(chan_list_of(nic, p), p);
	chan_free_buffer(nic, p, q);
	p->flags &= (uint16_t)~SN_PKT_IN_CHAN;
}

void chan_forget(struct nic *nic, struct sn_pkt *pkt)
{
	chan_remove(nic, pkt);
}

/*
 * The channel is done with a packet: finish it unless a protocol holds it.
 * One held (a bulk packet whose BACK came) now waits only for its
 * acknowledgment: the timer must look at it, also when it scanned the
 * connection while the packet was still being sent (it skips those) and
 * nothing else will make it look again.
 */
static void chan_done(struct nic *nic, struct sn_pkt *p, int status, uint64_t now)
{
	chan_remove(nic, p);
	if (p->flags & SN_PKT_HELD) {
		if (p->conn) {
			if (!p->conn->tx_unscanned)
				p->conn->tx_unscanned = now ? now : 1;
			pipeline_touch(p->conn->pl);
		}
		return;
	}
	nic_finish(nic, p, status, now);
	nic_desc_free(nic, p);
}

void chan_sink(struct nic *nic, struct sn_pkt *pkt, uint64_t now)
{
	struct nic_chan *ch = &nic->ch;

	if (pkt->flags & SN_PKT_ACK_ONLY) {
		if (nic->state == NIC_UP)
			nic_xmit(nic, pkt, now);
		nic_desc_free(nic, pkt);
		return;
	}
	if (pkt->cq == CQ_QWAIT) {
		/* A quick retransmission keeps its buffer. */
		chan_qwait_count(nic, pkt, -1);
		chan_unlink(&ch->qwait, pkt);
		chan_push_tail(&ch->qtx, pkt, CQ_QTX);
		return;
	}
	if (pkt->cq != CQ_NONE)
		return;		/* still queued or waiting for its BACK */
	pkt->flags |= SN_PKT_IN_CHAN;
	if (pkt->h.flags & PROTO_F_ABANDONED) {
		/*
		 * A marker (a bulk packet given up or cancelled) goes first,
		 * past the quick buffers' cap: it carries an older number than
		 * the quick packets holding them, which an ordered receiver
		 * cannot acknowledge before it. genp's window bounds them.
		 */
		chan_push_head(&ch->qtx, pkt, CQ_QTX);
		chan_quick_take(nic, pkt);
	} else if (pkt->chan == SN_CHAN_QUICK) {
		chan_push_tail(&ch->qbacklog, pkt, CQ_QBACKLOG);
	} else if (nic->fifo) {
		chan_push_tail(&ch->fifo_backlog, pkt, CQ_FIFO_BACKLOG);
	} else {
		chan_push_tail(&ch->backlog[pkt->h.dst_node], pkt, CQ_BACKLOG);
		chan_backlogged(nic, 1);
	}
}

/* True while p's connection is held back from the bulk send buffers. */
static bool chan_held_back(const struct sn_pkt *p, uint64_t now)
{
	return p->conn && now < p->conn->bulk_hold_until;
}

/*
 * The first packet of a target's backlog whose connection is not held back,
 * or NULL; *wake is lowered to the end of each hold it passes over.
 */
static struct sn_pkt *chan_first_ready(struct chan_list *l, uint64_t now, uint64_t *wake)
{
	struct sn_pkt *p = l->head;

	for (unsigned int k = 0; p && k < CHAN_HOLD_SCAN; p = p->cnext, k++) {
		if (!chan_held_back(p, now))
			return p;
		if (p->conn->bulk_hold_until < *wake)
			*wake = p->conn->bulk_hold_until;
	}
	return NULL;
}

/*
 * The earliest end of a hold still on, among the connections of the
 * packets prefetch looks at: a connection refused again while held is held
 * past the hold the NIC woke for.
 */
static uint64_t chan_next_hold_end(const struct nic *nic, uint64_t now)
{
	uint64_t wake = UINT64_MAX;

	for (uint16_t t = 0; t < nic->n_nodes; t++) {
		const struct sn_pkt *p = nic->ch.backlog[t].head;

		for (unsigned int k = 0; p && k < CHAN_HOLD_SCAN; p = p->cnext, k++)
			if (chan_held_back(p, now) && p->conn->bulk_hold_until < wake)
				wake = p->conn->bulk_hold_until;
	}
	return wake;
}

/* Move bulk packet p from its backlog into a send buffer. */
static void chan_take_buffer(struct nic *nic, struct chan_list *from, struct sn_pkt *p,
			     struct chan_list *to, uint8_t q)
{
	chan_unlink(from, p);
	if (from != &nic->ch.fifo_backlog)
		nic->ch.backlogged--;
	chan_push_tail(to, p, q);
	p->flags |= SN_PKT_IN_CHAN;
	nic->ch.held[p->h.dst_node]++;
	nic->ch.bulk_used++;
	nic->ch.voq_changes++;
}

/*
 * The scan of chan_prefetch_bulk: fill free bulk send buffers, one target
 * at a time, round robin, in each target's order but past the packets of
 * connections held back. One that takes nothing leaves the prefetch idle
 * until the earliest end of the holds it passed over.
 */
static void chan_prefetch_scan(struct nic *nic, uint64_t now)
{
	struct nic_chan *ch = &nic->ch;
	uint16_t n = nic->n_nodes;
	bool progress = true;
	uint64_t wake = UINT64_MAX;
	struct sn_pkt *p;

	while (progress && ch->backlogged && ch->bulk_used < nic->cfg.bulk_bufs) {
		progress = false;
		wake = UINT64_MAX;
		for (uint16_t c = 0; c < n && ch->bulk_used < nic->cfg.bulk_bufs; c++) {
			uint16_t t = (uint16_t)((ch->rr + c) % n);

			if (ch->backlog[t].len && ch->held[t] < nic->cfg.bulk_per_target &&
			    (p = chan_first_ready(&ch->backlog[t], now, &wake))) {
				chan_take_buffer(nic, &ch->backlog[t], p, &ch->voq[t], CQ_VOQ);
				progress = true;
			}
		}
		ch->rr = (uint16_t)((ch->rr + 1) % n);
	}
	ch->prefetch_idle = !progress;
	ch->prefetch_wake = wake;
}

/*
 * Fill free bulk send buffers (chan_prefetch_scan; FIFO mode: in order).
 * A scan that took nothing is not made again until something it looks at
 * changes (chan_prefetch_changed: a packet joins or leaves a backlog, a
 * bulk buffer is freed, the join) or a hold it passed over ends
 * (prefetch_wake): until then it would take nothing again. The pointer
 * moves on as that scan would have moved it (one target), so the order in
 * which packets take buffers stays the same.
 */
static inline void chan_prefetch_bulk(struct nic *nic, uint64_t now)
{
	struct nic_chan *ch = &nic->ch;

	if (nic->fifo) {
		while (ch->fifo_backlog.len && ch->bulk_used < nic->cfg.bulk_bufs)
			chan_take_buffer(nic, &ch->fifo_backlog, ch->fifo_backlog.head, &ch->fifo,
					 CQ_FIFO);
		return;
	}
	if (now >= ch->hold_wake)
		ch->hold_wake = chan_next_hold_end(nic, now);
	if (!ch->backlogged || ch->bulk_used >= nic->cfg.bulk_bufs)
		return;
	if (ch->prefetch_idle && now < ch->prefetch_wake)
		ch->rr = (uint16_t)((ch->rr + 1) % nic->n_nodes);
	else
		chan_prefetch_scan(nic, now);
}

/*
 * True when p's connection may take back the buffers of overdue packets
 * (chan_quick_reclaim): there is a reserve, and no overdue packet of its
 * own holds one.
 */
static bool chan_quick_may_reclaim(const struct nic *nic, const struct sn_pkt *p)
{
	return nic->cfg.quick_reserve && (!p->conn || !p->conn->quick_overdue);
}

/* Quick buffers free, and with reclaim those overdue packets hold (chan_quick_reclaim). */
static int chan_quick_free(const struct nic *nic, bool reclaim)
{
	return nic->cfg.quick_bufs - nic->ch.quick_used + (reclaim ? nic->ch.quick_overdue : 0);
}

/* Quick buffers p may count on: those free, and those it may take back. */
static int chan_quick_free_for(const struct nic *nic, const struct sn_pkt *p)
{
	return chan_quick_free(nic, chan_quick_may_reclaim(nic, p));
}

/* True while some packet may find a quick buffer (free, or to take back). */
static bool chan_quick_room(const struct nic *nic)
{
	return chan_quick_free(nic, nic->cfg.quick_reserve != 0) > 0;
}

/*
 * True when quick packet p may take a buffer (chan_quick_free_for): its
 * connection holds none, or more than the reserve stays free. The reserve
 * is for connections that hold none, one buffer each: peers that do not
 * acknowledge keep all but the reserve waiting (and one more each), and
 * one busy connection alone still uses all but the reserve. The buffers
 * of overdue packets count as free for connections that have none
 * (chan_quick_reclaim), so any number of stuck connections leaves
 * buffers to the others. The oldest packet its connection has not had
 * acknowledged always may (chan_unblock_oldest says why).
 */
static bool chan_quick_may_take(const struct nic *nic, const struct sn_pkt *p)
{
	int free = chan_quick_free_for(nic, p);

	if (free < 1)
		return false;
	return !p->conn || !p->conn->quick_held || p->conn->unacked == p ||
	       !nic->cfg.quick_reserve || free > nic->cfg.quick_reserve;
}

/*
 * Take buffers back until one is free, from overdue packets (sent
 * CHAN_OVERDUE_TX times or more, still waiting for their
 * acknowledgment), the last sent first (its next timeout is the
 * furthest). Such a packet waits for its ack on no list, as a bulk
 * packet does after its BACK: the timer still times it, an ack
 * completes it as ever, and its next transmission goes through chan_sink
 * and takes a buffer again, with its number and its count of
 * transmissions. With the reserve, connections whose packets the
 * receiver does not acknowledge (a dead or silent peer, a QREQ refused
 * without REFUSED) hold buffers only until another connection needs
 * them: before, once more of them than the reserve were stuck, they held
 * every buffer, and no other connection of the node could send a quick
 * message. chan_quick_may_take said there is one to take.
 */
static void chan_quick_reclaim(struct nic *nic)
{
	struct nic_chan *ch = &nic->ch;
	struct sn_pkt *p = ch->qwait.tail;

	while (ch->quick_used >= nic->cfg.quick_bufs && p) {
		struct sn_pkt *prev = p->cprev;

		if (chan_overdue(p)) {
			chan_remove(nic, p);
			nic->stats.quick_reclaimed++;
		}
		p = prev;
	}
}

/*
 * With every quick buffer taken, a connection that holds some (markers
 * past the cap, chan_sink, among them) while its oldest unacknowledged
 * packet still waits for one would wait for ever: the receiver needs that
 * packet before any other (a go-back-N one acknowledges nothing after
 * it). Such a packet takes a buffer past the cap, as markers do; genp's
 * window bounds them. A look at each connection, only while the buffers
 * are all taken.
 */
static void chan_unblock_oldest(struct nic *nic)
{
	for (unsigned int i = 0; i < nic->n_vnets; i++) {
		struct pipeline *pl = nic->vnets[i].pl;

		for (uint16_t t = 0; t < pl->n_nodes; t++) {
			struct sn_conn *c = pl->conns[t];
			struct sn_pkt *p = c ? c->unacked : NULL;

			if (!p || !c->quick_held || p->cq != CQ_QBACKLOG)
				continue;
			chan_unlink(&nic->ch.qbacklog, p);
			chan_push_tail(&nic->ch.qtx, p, CQ_QTX);
			chan_quick_take(nic, p);
		}
	}
}

/*
 * True when p's connection goes back N and holds a quick buffer already.
 * Its receiver discards whatever arrives after a lost packet, so when one
 * of its packets is lost, the packets it sent after it keep their buffers
 * until the sender goes back, and the NIC's other connections wait for
 * them: such a connection takes a second buffer only while no packet of
 * another connection waits for one.
 */
static bool chan_quick_hostage(const struct sn_pkt *p)
{
	return p->conn && p->conn->quick_held && p->conn->pl->goes_back_n;
}

/*
 * One pass of chan_prefetch_quick: fill free quick send buffers in order,
 * past the packets of connections that may take no more
 * (chan_quick_may_take), and with hostages, past those chan_quick_hostage
 * names but for a connection's oldest. True when it passed one of those.
 */
static bool chan_quick_fill(struct nic *nic, bool hostages)
{
	struct nic_chan *ch = &nic->ch;
	struct sn_pkt *p = ch->qbacklog.head, *next;
	bool passed = false;

	for (unsigned int k = 0; p && k < CHAN_HOLD_SCAN && chan_quick_room(nic);
	     p = next, k++) {
		next = p->cnext;
		if (!chan_quick_may_take(nic, p))
			continue;
		if (hostages && chan_quick_hostage(p) && p->conn->unacked != p) {
			passed = true;
			continue;
		}
		chan_quick_reclaim(nic);
		chan_unlink(&ch->qbacklog, p);
		chan_push_tail(&ch->qtx, p, CQ_QTX);
		chan_quick_take(nic, p);
	}
	return passed;
}

/*
 * Fill free quick send buffers in order, past the packets of connections
 * that may take no more (chan_quick_may_take), then give what is left to
 * the go-back-N connections that hold one (chan_quick_hostage): the
 * second pass only when the first passed one of theirs. A connection
 * holds at most genp's window in the channel, so the scan's bound passes
 * several. Most calls find the backlog empty (a poll calls it at least
 * twice), and return at once.
 */
static void chan_prefetch_quick(struct nic *nic)
{
	struct nic_chan *ch = &nic->ch;

	if (!ch->qbacklog.head)
		return;
	if (ch->quick_used >= nic->cfg.quick_bufs)
		chan_unblock_oldest(nic);
	if (chan_quick_fill(nic, true))
		chan_quick_fill(nic, false);
}

/* Move p (still in the channel) to the head or tail of list to, as queue q. */
static void chan_move(struct nic *nic, struct sn_pkt *p, struct chan_list *to, uint8_t q,
		      bool head)
{
	chan_remove(nic, p);
	if (head)
		chan_push_head(to, p, q);
	else
		chan_push_tail(to, p, q);
	p->flags |= SN_PKT_IN_CHAN;
	if (q == CQ_BACKLOG)
		chan_backlogged(nic, 1);
}

void chan_joined(struct nic *nic)
{
	struct nic_chan *ch = &nic->ch;
	struct sn_pkt *p;

	ch->cfg_time = 0;	/* the first poll sends a CFG */
	ch->gnt_target = PROTO_NODE_NONE;
	ch->clock_n = 0;	/* the slot length may have changed */
	chan_prefetch_changed(nic);	/* so may the nodes and the mode */
	memset(ch->cfg_sent, 0, (nic->cfg.max_nodes + 7u) / 8);
	/*
	 * Bulk packets not yet sent go back to the backlogs of the switch's
	 * mode, in order: those queued before any join, and those a switch
	 * of the other mode left in send buffers (a restarted switch).
	 */
	for (uint16_t t = 0; t < nic->cfg.max_nodes; t++)
		while ((p = ch->voq[t].tail))
			chan_move(nic, p, &ch->backlog[t], CQ_BACKLOG, true);
	while ((p = ch->fifo.tail))
		chan_move(nic, p, &ch->fifo_backlog, CQ_FIFO_BACKLOG, true);
	if (nic->fifo) {
		for (uint16_t t = 0; t < nic->cfg.max_nodes; t++)
			while ((p = ch->backlog[t].head))
				chan_move(nic, p, &ch->fifo_backlog, CQ_FIFO_BACKLOG, false);
	} else {
		while ((p = ch->fifo_backlog.head))
			chan_move(nic, p, &ch->backlog[p->h.dst_node], CQ_BACKLOG, false);
	}
}

/* Build the request vector into cfg_counts; true when its request set differs from the last CFG's. */
static bool chan_build_requests(struct nic *nic)
{
	struct nic_chan *ch = &nic->ch;
	uint16_t n = nic->n_nodes;
	bool changed = false;

	memset(ch->cfg_counts, 0, n);
	if (nic->fifo) {
		if (ch->fifo.head)
			ch->cfg_counts[ch->fifo.head->h.dst_node] = 1;
	} else {
		for (uint16_t t = 0; t < n; t++)
			ch->cfg_counts[t] = (uint8_t)(ch->voq[t].len > 255 ? 255 : ch->voq[t].len);
	}
	for (uint16_t t = 0; t < n; t++) {
		bool want = ch->cfg_counts[t] != 0;

		if (want != proto_bit(ch->cfg_sent, t)) {
			changed = true;
			ch->cfg_sent[t >> 3] ^= (uint8_t)(1u << (t & 7));
		}
	}
	return changed;
}

/*
 * Send a CFG when the set of requested targets changed, and at least every
 * cfg_keepalive slots so the switch knows the node is alive. The switch
 * keeps each node's last CFG, so a CFG that repeats the last one carries
 * nothing; skipping it leaves the quick link to quick traffic. The counts
 * go along but the arbiters use only the request set.
 */
static void chan_maybe_send_cfg(struct nic *nic, uint64_t now)
{
	struct nic_chan *ch = &nic->ch;
	uint16_t n = nic->n_nodes;
	uint64_t keepalive = (uint64_t)nic->cfg.cfg_keepalive * nic->slot_ns;
	struct proto_pkt p;
	bool changed = false;

	if (ch->voq_changes != ch->cfg_changes) {
		ch->cfg_changes = ch->voq_changes;
		changed = chan_build_requests(nic);
	}
	if (!changed && ch->cfg_time && now < ch->cfg_time + keepalive)
		return;
	if (!changed)
		chan_build_requests(nic);	/* counts for the keepalive */
	memset(ch->cfg_enable, 0, (n + 7u) / 8);
	for (uint16_t i = 0; i < n; i++)
		proto_bit_set(ch->cfg_enable, i);
	/* Cleared only here: most calls (one a poll) send nothing. */
	p = (struct proto_pkt) {
		.type = PROTO_T_CFG, .src_node = nic->id,
		.dst_node = PROTO_NODE_SWITCH,
	};
	p.cfg = (struct proto_cfg) {
		.slot = nic->gnt_slot + (uint32_t)((now - nic->gnt_time) / nic->slot_ns),
		.n_nodes = n, .counts = ch->cfg_counts,
		.bulk_en = ch->cfg_enable, .quick_en = ch->cfg_enable,
	};
	nic_send_control(nic, &p, now);
	ch->cfg_time = now;
	nic->stats.cfg_sent++;
}

/* Send one BREQ to target in slot; false when nothing is queued for it. */
static bool chan_send_breq(struct nic *nic, uint16_t target, uint32_t slot,
			   uint64_t now)
{
	struct nic_chan *ch = &nic->ch;
	struct chan_list *from = nic->fifo ? &ch->fifo : &ch->voq[target];
	struct sn_pkt *p = from->head;

	if (!p || p->h.dst_node != target)
		return false;
	p->slot = slot;
	/* No frame to be had: the packet stays first in line for the next grant. */
	if (!nic_xmit(nic, p, now))
		return false;
	chan_unlink(from, p);
	chan_push_tail(&ch->inflight, p, CQ_INFLIGHT);
	ch->voq_changes++;
	return true;
}

/*
 * When the slot of a GNT for slot began by the NIC's slot clock: at the
 * earliest of its arrival (now) and what the last GNTs, at most
 * CHAN_CLOCK_SLOTS slots back, say, each counted on by whole slots. A GNT
 * that waited behind another frame on the quick link comes late, its
 * slot does not: the next slot's frames may come on time. Recent GNTs
 * only, as the NIC's clock and the switch's drift apart.
 */
static uint64_t chan_slot_start(struct nic *nic, uint32_t slot, uint64_t now)
{
	struct nic_chan *ch = &nic->ch;
	uint64_t start = now;

	for (unsigned int i = 0; i < ch->clock_n; i++) {
		uint32_t back = slot - ch->clock_slot[i];
		uint64_t t = ch->clock_time[i] + (uint64_t)back * nic->slot_ns;

		if (back <= CHAN_CLOCK_SLOTS && t < start)
			start = t;
	}
	ch->clock_time[ch->clock_next] = now;
	ch->clock_slot[ch->clock_next] = slot;
	ch->clock_next = (uint8_t)((ch->clock_next + 1) % CHAN_CLOCK_GNTS);
	if (ch->clock_n < CHAN_CLOCK_GNTS)
		ch->clock_n++;
	return start;
}

/*
 * When a BREQ sent at now would end on the bulk link, in ps from the start
 * of the granted slot (chan_slot_start): the grant's BREQs go back to back
 * at the bulk rate (a slot holds slot_frames of them), each one from now
 * or from the end of the one before, whichever is later.
 */
static uint64_t chan_breq_end_ps(const struct nic *nic, uint64_t now)
{
	uint64_t frame_ps = nic->slot_ns * 1000 / nic->slot_frames;
	uint64_t start = now > nic->ch.gnt_start ? (now - nic->ch.gnt_start) * 1000 : 0;

	if (start < nic->ch.gnt_end_ps)
		start = nic->ch.gnt_end_ps;
	return start + frame_ps;
}

/* True while the last grant's slot may take more BREQs (slot_frames in all). */
static inline bool chan_grant_open(const struct nic *nic)
{
	return nic->ch.gnt_target != PROTO_NODE_NONE && nic->ch.gnt_used < nic->slot_frames;
}

/*
 * Send BREQs on the last grant while it allows more (chan_grant_open);
 * returns how many. At the GNT (at_gnt) it sends what waits in the
 * target's send buffers, as many as the grant allows. At later polls it
 * sends what became ready since, a BACK having opened the connection's
 * window (genp's, 32 packets) or freed a send buffer, each only if it
 * still ends inside the slot (chan_breq_end_ps): none runs into the next
 * slot's frames on the switch's output, or reaches the switch after a
 * full slot's frames would. Before, a connection sent at most a window's
 * packets a slot, however long the slot. With one frame a slot no later
 * poll has room.
 */
static uint16_t chan_use_grant(struct nic *nic, uint64_t now, bool at_gnt)
{
	struct nic_chan *ch = &nic->ch;
	uint64_t end;
	uint16_t sent = 0;

	while (chan_grant_open(nic)) {
		end = chan_breq_end_ps(nic, now);
		if (!at_gnt && end > nic->slot_ns * 1000) {
			/* Nor will one later (end only grows): the slot is done. */
			ch->gnt_target = PROTO_NODE_NONE;
			break;
		}
		if (!chan_send_breq(nic, ch->gnt_target, nic->gnt_slot, now))
			break;
		ch->gnt_used++;
		ch->gnt_end_ps = end;
		sent++;
	}
	return sent;
}

void chan_grant(struct nic *nic, const struct proto_gnt *g, uint64_t now)
{
	struct nic_chan *ch = &nic->ch;

	ch->gnt_target = g->target;
	ch->gnt_used = 0;
	ch->gnt_end_ps = 0;
	ch->gnt_start = chan_slot_start(nic, g->slot, now);
	if (g->target != PROTO_NODE_NONE) {
		nic->stats.gnt_granted++;
		if (!chan_use_grant(nic, now, true))
			nic->stats.gnt_unused++;
	}
	chan_prefetch_bulk(nic, now);
}

/* A bulk packet must be requested again: back to the front of its queue. */
static void chan_request_again(struct nic *nic, struct sn_pkt *p)
{
	struct nic_chan *ch = &nic->ch;

	chan_unlink(&ch->inflight, p);
	if (nic->fifo)
		chan_push_head(&ch->fifo, p, CQ_FIFO);
	else
		chan_push_head(&ch->voq[p->h.dst_node], p, CQ_VOQ);
	ch->voq_changes++;
}

/* Put p before at on l (at NULL: last). */
static void chan_insert_before(struct chan_list *l, struct sn_pkt *at, struct sn_pkt *p,
			       uint8_t q)
{
	if (!at) {
		chan_push_tail(l, p, q);
		return;
	}
	if (!at->cprev) {
		chan_push_head(l, p, q);
		return;
	}
	p->cprev = at->cprev;
	p->cnext = at;
	at->cprev->cnext = p;
	at->cprev = p;
	l->len++;
	chan_mark(p, q);
}

/*
 * Move p from its send buffer back to its target's backlog, among the
 * packets of its connection there in number order (a packet refused before
 * it may be there already): before the first of them that does not come
 * before it, first when the backlog has none.
 */
static void chan_back_to_backlog(struct nic *nic, struct sn_pkt *p)
{
	struct chan_list *l = &nic->ch.backlog[p->h.dst_node];
	struct sn_pkt *r, *last = NULL;

	chan_remove(nic, p);
	for (r = l->head; r; r = r->cnext) {
		if (r->conn != p->conn)
			continue;
		if (!proto_seq_lt(r->h.pkt_num, p->h.pkt_num))
			break;	/* r comes after p (or is unnumbered, as p) */
		last = r;
	}
	if (!r && !last)
		r = l->head;
	else if (!r)
		r = last->cnext;
	chan_insert_before(l, r, p, CQ_BACKLOG);
	p->flags |= SN_PKT_IN_CHAN;
	chan_backlogged(nic, 1);
}

/*
 * p's target refused it (no buffer for its endpoint): it is requested again,
 * and its connection is held back from the send buffers for a while (1 slot,
 * doubling while refused, up to CHAN_HOLD_MAX_SLOTS), its packets there put
 * back in the target's backlog in their order, so that other
 * connections to the target (other virtual networks) take the grants
 * instead of waiting behind it.
 */
static void chan_refused(struct nic *nic, struct sn_pkt *p, uint64_t now)
{
	struct nic_chan *ch = &nic->ch;
	struct sn_conn *c = p->conn;
	uint16_t t = p->h.dst_node;
	struct sn_pkt *q, *prev;

	if (!c || nic->fifo) {
		chan_request_again(nic, p);
		return;
	}
	c->bulk_hold_slots = c->bulk_hold_slots ?
		(uint16_t)RTE_MIN(2 * c->bulk_hold_slots, CHAN_HOLD_MAX_SLOTS) : 1;
	c->bulk_hold_until = now + c->bulk_hold_slots * nic->slot_ns;
	if (c->bulk_hold_until < ch->hold_wake)
		ch->hold_wake = c->bulk_hold_until;
	nic->stats.bulk_held_back++;
	chan_back_to_backlog(nic, p);
	for (q = ch->voq[t].tail; q; q = prev) {
		prev = q->cprev;
		if (q->conn == c)
			chan_back_to_backlog(nic, q);
	}
}

void chan_back(struct nic *nic, const struct proto_pkt *b, uint64_t now)
{
	struct sn_pkt *p;

	/* Several BREQs may share a slot (slot_frames): the BACK names its own. */
	for (p = nic->ch.inflight.head; p; p = p->cnext)
		if (p->h.dst_node == b->src_node && p->slot == b->slot &&
		    p->h.vnet == b->vnet && p->h.pkt_num == b->pkt_num)
			break;
	if (!p) {
		nic->stats.back_unmatched++;
		return;
	}
	if (b->flags & PROTO_F_NACK) {
		nic->stats.back_nack++;
		chan_refused(nic, p, now);
		return;
	}
	nic->stats.back_ok++;
	if (p->conn)
		p->conn->bulk_hold_slots = 0;
	chan_done(nic, p, SN_OK, now);
}

/* When the BACK of a BREQ sent at t_tx is overdue. */
static uint64_t chan_back_deadline(const struct nic *nic, const struct sn_pkt *p)
{
	return p->t_tx + (nic->back_slots + 2u) * nic->slot_ns;
}

/*
 * True when held packet p, whose BACK did not come, used up its
 * transmissions (its genp's max_retx): requested again, it would be for
 * ever, never timed, and never given up, were its peer silent.
 */
static bool chan_out_of_tries(const struct sn_pkt *p)
{
	uint32_t max = p->conn ? p->conn->pl->max_tries : 0;

	return max && sn_pkt_tries(p) >= max;
}

/*
 * Missing BACKs: request again if a protocol holds the packet, else lost.
 * One out of tries leaves the channel and waits for its acknowledgment
 * instead, as after a BACK: at its timeout genp gives it up (its marker
 * is a QREQ), as any packet.
 */
static void chan_check_backs(struct nic *nic, uint64_t now)
{
	struct sn_pkt *p;

	while ((p = nic->ch.inflight.head) && now >= chan_back_deadline(nic, p)) {
		nic->stats.back_missing++;
		if (!(p->flags & SN_PKT_HELD))
			chan_done(nic, p, SN_ERR_LOST, now);
		else if (chan_out_of_tries(p))
			chan_done(nic, p, SN_OK, now);	/* held: it only leaves the channel */
		else
			chan_request_again(nic, p);
	}
}

/*
 * Send the quick packets that have a buffer while the quick link's backlog
 * is short; returns when to try again for the rest (UINT64_MAX: none left).
 */
static uint64_t chan_send_quick(struct nic *nic, uint64_t now)
{
	struct nic_chan *ch = &nic->ch;
	uint64_t wake = UINT64_MAX;
	unsigned int sent = 0;
	bool reclaim = nic->cfg.quick_reserve != 0;
	struct sn_pkt *p;

	for (;;) {
		/*
		 * A packet no protocol holds gives its buffer back as it
		 * leaves: the buffers fill again (a connection's share counts
		 * only what they hold), up to the buffers' number per poll.
		 */
		if (!ch->qtx.head && sent && sent < nic->cfg.quick_bufs)
			chan_prefetch_quick(nic);
		/*
		 * Resends that just left wait for their ack again, and if
		 * overdue may give their buffers to packets waiting for one
		 * (chan_quick_reclaim): once a call. Before they left they
		 * were not waiting, so the poll's first fill could not take
		 * them, and resends due at every poll kept every buffer.
		 */
		if (!ch->qtx.head && reclaim && ch->quick_overdue && ch->qbacklog.head) {
			reclaim = false;
			chan_prefetch_quick(nic);
		}
		if (!ch->qtx.head)
			break;
		if (!nic_quick_ready(nic, now, &wake)) {
			nic->stats.qreq_deferred++;
			return wake;
		}
		p = chan_pop_head(&ch->qtx);
		if (!nic_xmit(nic, p, now)) {
			/* No frame to be had: it keeps its place and buffer. */
			chan_push_head(&ch->qtx, p, CQ_QTX);
			return now + NIC_NO_MBUF_RETRY_NS;
		}
		sent++;
		if (p->flags & SN_PKT_HELD) {
			chan_push_tail(&ch->qwait, p, CQ_QWAIT);
			chan_qwait_count(nic, p, 1);
		} else {
			chan_quick_give(nic, p);
			p->flags &= (uint16_t)~SN_PKT_IN_CHAN;
			nic_finish(nic, p, SN_OK, now);
			nic_desc_free(nic, p);
		}
	}
	return wake;
}

uint64_t chan_poll(struct nic *nic, uint64_t now)
{
	struct sn_pkt *head;
	uint64_t next, quick;

	if (nic->state != NIC_UP)
		return UINT64_MAX;
	chan_check_backs(nic, now);
	chan_prefetch_bulk(nic, now);
	/*
	 * The GNT's own poll sends only what chan_grant found: with one frame
	 * a slot that keeps the slot's only moment as it was (a packet the
	 * refill after the grant readies waits for the next grant).
	 */
	if (chan_grant_open(nic) && now > nic->gnt_time)
		nic->stats.breq_after_gnt += chan_use_grant(nic, now, false);
	chan_maybe_send_cfg(nic, now);
	chan_prefetch_quick(nic);
	quick = chan_send_quick(nic, now);
	head = nic->ch.inflight.head;
	next = nic->ch.cfg_time + (uint64_t)nic->cfg.cfg_keepalive * nic->slot_ns;
	if (quick < next)
		next = quick;
	if (head && chan_back_deadline(nic, head) < next)
		next = chan_back_deadline(nic, head);
	if (nic->ch.hold_wake < next)
		next = nic->ch.hold_wake;
	return next;
}

/* Which packets a sweep of the channel's lists finishes. */
struct chan_sweep {
	int peer;		/* those for this node (-1: any) */
	int vnet;		/* of this virtual network (-1: any) ... */
	int src_ep;		/* ... sent by this endpoint (-1: any) */
	int status;		/* enum sn_status they finish with */
	bool unnumbered;	/* only what no protocol holds (not SN_PKT_HELD) */
};

/* True when sweep s takes p. */
static bool chan_sweep_takes(const struct chan_sweep *s, const struct sn_pkt *p)
{
	if (s->peer >= 0 && p->h.dst_node != s->peer)
		return false;
	if (s->vnet >= 0 && p->h.vnet != s->vnet)
		return false;
	if (s->unnumbered && (p->flags & SN_PKT_HELD))
		return false;
	return s->src_ep < 0 || nic_sent_by(p, (uint16_t)s->src_ep);
}

/* Take what sweep s names off list l (what a protocol holds stays with it). */
static void chan_sweep_list(struct nic *nic, struct chan_list *l,
			    const struct chan_sweep *s, uint64_t now)
{
	struct sn_pkt *p = l->head, *next;

	for (; p; p = next) {
		next = p->cnext;
		if (chan_sweep_takes(s, p))
			chan_done(nic, p, s->status, now);
	}
}

/* Sweep the lists a packet for target t may be on. */
static void chan_sweep_target(struct nic *nic, uint16_t t, const struct chan_sweep *s,
			      uint64_t now)
{
	struct nic_chan *ch = &nic->ch;

	chan_sweep_list(nic, &ch->backlog[t], s, now);
	chan_sweep_list(nic, &ch->voq[t], s, now);
}

/* Sweep the lists every target shares. */
static void chan_sweep_shared(struct nic *nic, const struct chan_sweep *s, uint64_t now)
{
	struct nic_chan *ch = &nic->ch;
	struct chan_list *lists[] = {
		&ch->fifo_backlog, &ch->fifo, &ch->inflight, &ch->qbacklog, &ch->qtx,
		&ch->qwait,
	};

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		chan_sweep_list(nic, lists[i], s, now);
}

void chan_purge_conn(struct nic *nic, const struct sn_conn *conn, bool held_too,
		     uint64_t now)
{
	struct chan_sweep s = { .peer = conn->peer, .vnet = conn->vnet, .src_ep = -1,
				.status = SN_ERR_DOWN, .unnumbered = !held_too };

	chan_sweep_target(nic, conn->peer, &s, now);
	chan_sweep_shared(nic, &s, now);
}

/*
 * Only packets no protocol numbered are left to take: a sent BREQ waiting
 * for its BACK goes too (a negative BACK would have it resent from its
 * payload; its BACK is then counted back_unmatched).
 */
void chan_cancel(struct nic *nic, uint16_t vnet, uint16_t src_ep, uint64_t now)
{
	struct chan_sweep s = { .peer = -1, .vnet = vnet, .src_ep = src_ep,
				.status = SN_ERR_CANCELLED };

	for (uint16_t t = 0; t < nic->cfg.max_nodes; t++)
		chan_sweep_target(nic, t, &s, now);
	chan_sweep_shared(nic, &s, now);
}
