/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * genp: numbers packets per connection, limits how many are outstanding,
 * frees them when acknowledged (cumulative ack base plus selective-ack mask)
 * and chooses what to retransmit: on a timeout go-back-N resends every
 * unacknowledged packet, selective repeat only the oldest; selective repeat
 * also resends a packet at once when the mask shows a later packet, sent
 * after it, has arrived. Under `order` a packet acknowledged by the mask is
 * only held by the receiver, behind a hole: it is no longer resent, but
 * completes with the ack base, when it is delivered. Go-back-N sends in
 * number order across both channels (genp_may_leave).
 */
#include <string.h>

#include "stages.h"

/* Retransmission policies (parameter retx). */
enum genp_retx {
	GENP_SR,
	GENP_GBN,
};

static const char *const genp_retx_names[] = { "sr", "gbn", NULL };

static const struct stage_param genp_params[] = {
	{ "window", "packets outstanding per connection (<= 32, the sack mask)",
	  1, PROTO_SACK_BITS, 32, NULL },
	{ "retx", "what a timeout resends: sr = the oldest, gbn = all", 0, 1,
	  GENP_SR, genp_retx_names },
	{ "max_retx", "transmissions before a packet fails (0 = no limit); twice as many "
	  "unacknowledged restart its connection", 0, UINT16_MAX, 1000, NULL },
	{ NULL, NULL, 0, 0, 0, NULL },
};

/* Counters, in genp_counter_names order. */
enum genp_counter {
	GENP_NUMBERED,
	GENP_WINDOW_WAITS,
	GENP_ACKED,
	GENP_SACKED,
	GENP_TIMEOUT_RETX,
	GENP_FAST_RETX,
	GENP_WELCOME_RETX,
	GENP_REFUSAL_RETX,
	GENP_GAVE_UP,
	GENP_STALE_ACKS,
	GENP_CANCELLED,
	GENP_KEPT_IN_ORDER,
	GENP_HELD_BACK,
	GENP_REQUEUED,
	GENP_SPURIOUS_RETX,
	GENP_STUCK_RESTARTS,
};

static const char *const genp_counter_names[] = {
	"numbered", "window_waits", "acked", "sacked", "timeout_retx",
	"fast_retx", "welcome_retx", "refusal_retx", "gave_up", "stale_acks",
	"cancelled_unnumbered", "kept_in_order", "held_for_endpoint", "requeued",
	"spurious_retx", "stuck_restarts", NULL,
};

/* Per-pipeline state. */
struct genp_priv {
	bool mask_holds;	/* order above: the mask acknowledges held packets */
	bool in_order;		/* gbn: packets leave in number order (genp_may_leave) */
	bool late_floor;	/* timer's late_floor: late acks are sampled and raise
				 * the connection's floor (genp_ack) */
	int64_t window;		/* genp_window: what the receiver can keep */
	uint64_t hold_min_ns;	/* the first hold of a refused endpoint, at least (timer's min_ns) */
	uint64_t hold_max_ns;	/* its longest (timer's timeout_ns) */
	struct sn_conn *held;	/* connections with messages held for an endpoint */
	uint32_t stuck;		/* connections whose restart is due (genp_conn.stuck) */
};

/* Endpoints of the peer one connection holds messages back for, at most. */
enum { GENP_HOLDS = 8 };

/* Longest back-off of a refused endpoint: the hold grows at most 2^10 times. */
enum { GENP_HOLD_MAX_BACKOFF = 10 };

/*
 * An endpoint of the peer that refused messages (doc/protocol.md,
 * per-endpoint push-back): its messages wait, in send order, until the
 * hold ends, then are numbered again.
 */
struct genp_hold {
	struct sn_pkt *head;	/* its messages waiting, in send order */
	struct sn_pkt *tail;	/* last of those */
	uint64_t until;		/* none is numbered before then */
	uint16_t ep;		/* the peer's endpoint */
	uint8_t backoff;	/* refusals since the last message it took */
	bool used;		/* the entry is in use */
};

/*
 * Packets sent more than once a connection remembers after an ack completed them,
 * for the DUP ack of their copy (genp_resent_note), the oldest replaced
 * first: a timeout resends one packet (sr), so a few wait at a time; one
 * replaced before its DUP ack came is not counted.
 */
enum { GENP_RESENT = 8 };

/*
 * How long such a packet is remembered: its number cannot come round in
 * that time (2^24 packets take over a second at 10 Gb/s), so a DUP ack
 * that names it names this packet.
 */
enum { GENP_RESENT_NS = 64 * 1000 * 1000 };

/* A packet sent more than once that an ack completed (or the mask showed held). */
struct genp_resent {
	uint64_t at;		/* when (0: the entry is free) */
	uint32_t num;		/* its number */
	uint32_t rtt_ns;	/* from its first copy's departure to then */
};

/* Per-connection state besides the standard fields. */
struct genp_conn {
	struct sn_pkt *wait_head;	/* waiting for window space, in order */
	struct sn_pkt *wait_tail;	/* last of those */
	uint32_t unsent;		/* gbn: numbered packets kept until they may
					 * leave in order (SN_PKT_UNSENT) */
	struct genp_hold holds[GENP_HOLDS];	/* endpoints held back */
	uint8_t n_holds;		/* entries in use */
	bool on_held;			/* on genp_priv.held */
	struct sn_conn *next_held;	/* next on that list */
	struct genp_resent resent[GENP_RESENT];	/* awaiting their copy's DUP ack */
	uint8_t resent_next;		/* the entry the next one takes (the oldest) */
	bool stuck;			/* a marker went unacknowledged too long: restart
					 * at the next tick (genp_stuck) */
};

bool genp_goes_back_n(const struct stage *genp)
{
	return genp->param[1] == GENP_GBN;
}

/*
 * A selective-repeat receiver keeps the packet it expects and `buffer` after
 * it, and drops the data of any later one: sent, it would only be sent again
 * (and a bulk one would take a slot for nothing). The oldest packet the
 * sender has not seen acknowledged is never past the one the receiver
 * expects, so a span of buffer + 1 from it always fits.
 */
int64_t genp_window(struct stage *genp)
{
	struct stage *order = stage_above(genp, "order");
	int64_t keeps = order ? order_sr_buffer(order) : 0;

	if (keeps && keeps + 1 < genp->param[0])
		return keeps + 1;
	return genp->param[0];
}

/* Neighbours genp needs. */
static int genp_init(struct stage *st, char *err, size_t errlen)
{
	if (!stage_above(st, "build_acks")) {
		snprintf(err, errlen,
			 "stage genp needs build_acks above it (nothing would acknowledge its packets)");
		return -EINVAL;
	}
	if (!stage_above(st, "timer")) {
		snprintf(err, errlen,
			 "stage genp needs timer above it (a lost packet would never be resent)");
		return -EINVAL;
	}
	((struct genp_priv *)st->priv)->mask_holds = stage_above(st, "order") != NULL;
	((struct genp_priv *)st->priv)->window = genp_window(st);
	((struct genp_priv *)st->priv)->in_order = genp_goes_back_n(st);
	st->pl->goes_back_n = genp_goes_back_n(st);
	st->pl->max_tries = (uint32_t)st->param[2];
	((struct genp_priv *)st->priv)->hold_min_ns =
		(uint64_t)stage_param(stage_above(st, "timer"), "min_ns");
	((struct genp_priv *)st->priv)->hold_max_ns =
		(uint64_t)stage_param(stage_above(st, "timer"), "timeout_ns");
	((struct genp_priv *)st->priv)->late_floor =
		stage_param(stage_above(st, "timer"), "late_floor") != 0;
	return 0;
}

/*
 * True when one more packet fits: the span from the oldest unacknowledged
 * packet to the next number stays within the window, so the receiver can
 * always record it in its 32-bit selective-ack mask, and keep it in its
 * reorder buffer (genp_window).
 */
static bool genp_fits(const struct stage *st, const struct sn_conn *c)
{
	if (!c->unacked)
		return true;
	return proto_seq_diff(c->tx_next, c->unacked->h.pkt_num) <
	       ((const struct genp_priv *)st->priv)->window;
}

/* Number pkt and put it on the unacknowledged list. */
static void genp_number(struct stage *st, struct sn_conn *c, struct sn_pkt *p)
{
	p->h.pkt_num = c->tx_next;
	c->tx_next = proto_seq_add(c->tx_next, 1);
	p->flags |= SN_PKT_HELD;
	p->next = NULL;
	if (c->unacked_tail)
		c->unacked_tail->next = p;
	else
		c->unacked = p;
	c->unacked_tail = p;
	c->outstanding++;
	if (!p->tx_count)
		c->never_sent++;
	pipeline_conn_activate(st->pl, c);
	st->cnt[GENP_NUMBERED]++;
}

/* True when genp goes back N and so sends in number order. */
static bool genp_in_order(const struct stage *st)
{
	return ((const struct genp_priv *)st->priv)->in_order;
}

/*
 * A go-back-N receiver keeps nothing out of order: a packet that reaches it
 * before one numbered earlier is discarded, and its sender goes back. One
 * channel keeps a connection's packets in order, but the two channels do
 * not: a quick packet sent while the bulk packet before it waits for its
 * grant overtakes it, and so does a bulk packet granted while the quick
 * packet before it waits for a quick send buffer; a bulk packet sent
 * behind a quick one that is then lost in a collision is discarded, and
 * takes another slot when resent. So p leaves right after the packet before
 * it on its connection (prev) when both take the same channel, and
 * otherwise once everything before it is acknowledged (prev is NULL).
 */
static bool genp_may_leave(const struct sn_pkt *prev, const struct sn_pkt *p)
{
	return !prev || (!(prev->flags & SN_PKT_UNSENT) && prev->chan == p->chan);
}

/* Keep p (numbered) until genp_send_in_order lets it leave. */
static void genp_keep(struct stage *st, struct sn_pkt *p)
{
	struct genp_conn *g = stage_conn(st, p->conn);

	if (p->flags & SN_PKT_UNSENT)
		return;
	p->flags |= SN_PKT_UNSENT;
	g->unsent++;
}

/*
 * Hand c's kept packets to the channel in number order while they may
 * leave. What lets one leave later is an acknowledgment (genp_ack runs
 * this again).
 */
static void genp_send_in_order(struct stage *st, struct sn_conn *c, uint64_t now)
{
	struct genp_conn *g = stage_conn(st, c);
	struct sn_pkt *p, *prev = NULL;

	for (p = c->unacked; p && g->unsent; prev = p, p = p->next) {
		if (!(p->flags & SN_PKT_UNSENT))
			continue;
		if (!genp_may_leave(prev, p))
			break;
		p->flags &= (uint16_t)~SN_PKT_UNSENT;
		g->unsent--;
		stage_pass_down(st, &p, 1, now);
	}
}

/* p waits for window space, after those waiting already. */
static void genp_wait(struct stage *st, struct genp_conn *g, struct sn_pkt *p)
{
	p->next = NULL;
	if (g->wait_tail)
		g->wait_tail->next = p;
	else
		g->wait_head = p;
	g->wait_tail = p;
	st->cnt[GENP_WINDOW_WAITS]++;
}

static bool genp_hold_back(struct stage *st, struct sn_conn *c, struct sn_pkt *p, uint64_t now);

/* Transmit: number what fits in the window, hold the rest in order. */
static uint16_t genp_tx(struct stage *st, struct sn_pkt **pkts, uint16_t n,
			uint64_t now)
{
	uint16_t out = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct sn_pkt *p = pkts[i];
		struct sn_conn *c = p->conn;
		struct genp_conn *g = stage_conn(st, c);

		if (!(p->h.flags & PROTO_F_DATA) || (p->flags & SN_PKT_ACK_ONLY)) {
			pkts[out++] = p;
			continue;
		}
		if (g->n_holds && genp_hold_back(st, c, p, now))
			continue;
		if (g->wait_head || !genp_fits(st, c)) {
			genp_wait(st, g, p);
			continue;
		}
		genp_number(st, c, p);
		if (genp_in_order(st)) {
			genp_keep(st, p);
			genp_send_in_order(st, c, now);
			st->cnt[GENP_KEPT_IN_ORDER] += !!(p->flags & SN_PKT_UNSENT);
			continue;
		}
		pkts[out++] = p;
	}
	return out;
}

/* Send the packets that now fit in the window (going back N, those that may leave). */
static void genp_release(struct stage *st, struct sn_conn *c, uint64_t now)
{
	struct genp_conn *g = stage_conn(st, c);

	while (g->wait_head && genp_fits(st, c)) {
		struct sn_pkt *p = g->wait_head;

		g->wait_head = p->next;
		if (!g->wait_head)
			g->wait_tail = NULL;
		genp_number(st, c, p);
		if (genp_in_order(st))
			genp_keep(st, p);
		else
			stage_pass_down(st, &p, 1, now);
	}
	if (genp_in_order(st))
		genp_send_in_order(st, c, now);
}

/*
 * Per-endpoint push-back (doc/protocol.md). When an endpoint of the peer
 * refuses a message, the NIC makes its packet the marker of its number
 * and hands genp a copy of the message (genp_hold): it waits, with the
 * connection's other messages to that endpoint, for a hold that doubles
 * with every refusal in a row (from the connection's round trip, at least
 * timer's min_ns, to timer's timeout_ns), and is then numbered again, in
 * send order. Messages to the peer's other endpoints are numbered as ever.
 */

/* c's entry for the peer's endpoint ep, or NULL. */
static struct genp_hold *genp_hold_of(struct genp_conn *g, uint16_t ep)
{
	for (unsigned int i = 0; i < GENP_HOLDS; i++)
		if (g->holds[i].used && g->holds[i].ep == ep)
			return &g->holds[i];
	return NULL;
}

/* True when entry h has nothing to hold back: no message waits and its hold is over. */
static bool genp_hold_idle(const struct genp_hold *h, uint64_t now)
{
	return !h->head && now >= h->until;
}

/* A free entry of g for ep (an idle one is taken over), or NULL. */
static struct genp_hold *genp_hold_new(struct genp_conn *g, uint16_t ep, uint64_t now)
{
	struct genp_hold *h = NULL;

	for (unsigned int i = 0; i < GENP_HOLDS && !h; i++)
		if (!g->holds[i].used)
			h = &g->holds[i];
	for (unsigned int i = 0; i < GENP_HOLDS && !h; i++)
		if (genp_hold_idle(&g->holds[i], now))
			h = &g->holds[i];
	if (!h)
		return NULL;
	if (!h->used)
		g->n_holds++;
	*h = (struct genp_hold) { .ep = ep, .used = true };
	return h;
}

/* Forget entry h of g. */
static void genp_hold_free(struct genp_conn *g, struct genp_hold *h)
{
	*h = (struct genp_hold) { 0 };
	g->n_holds--;
}

/* Append p to h's messages. */
static void genp_hold_push(struct genp_hold *h, struct sn_pkt *p)
{
	p->next = NULL;
	if (h->tail)
		h->tail->next = p;
	else
		h->head = p;
	h->tail = p;
}

/* c has messages held: genp_tick looks at it. */
static void genp_hold_watch(struct stage *st, struct sn_conn *c)
{
	struct genp_priv *priv = st->priv;
	struct genp_conn *g = stage_conn(st, c);

	if (g->on_held)
		return;
	g->on_held = true;
	g->next_held = priv->held;
	priv->held = c;
}

/* True (p kept) when p's endpoint is held back on c: p waits behind its messages. */
static bool genp_hold_back(struct stage *st, struct sn_conn *c, struct sn_pkt *p, uint64_t now)
{
	struct genp_hold *h = genp_hold_of(stage_conn(st, c), p->h.dst_ep);

	if (!h || genp_hold_idle(h, now))
		return false;
	genp_hold_push(h, p);
	genp_hold_watch(st, c);
	st->cnt[GENP_HELD_BACK]++;
	return true;
}

/* p's endpoint took p: its back-off starts over (an idle entry goes). */
static void genp_hold_took(struct stage *st, struct sn_conn *c, const struct sn_pkt *p,
			   uint64_t now)
{
	struct genp_conn *g = stage_conn(st, c);
	struct genp_hold *h;

	if (p->h.flags & PROTO_F_ABANDONED)
		return;
	h = genp_hold_of(g, p->h.dst_ep);
	if (!h)
		return;
	h->backoff = 0;
	if (genp_hold_idle(h, now))
		genp_hold_free(g, h);
}

/*
 * Complete the held messages of c sent by src_ep (-1: all, and the entries
 * go) with status; the others keep their order.
 */
static void genp_drop_held(struct stage *st, struct sn_conn *c, int src_ep, int status,
			   uint64_t now)
{
	struct genp_conn *g = stage_conn(st, c);

	for (unsigned int i = 0; i < GENP_HOLDS; i++) {
		struct genp_hold *h = &g->holds[i];
		struct sn_pkt *p = h->head, *next;

		if (!h->used)
			continue;
		h->head = h->tail = NULL;
		for (; p; p = next) {
			next = p->next;
			if (src_ep >= 0 && p->h.src_ep != src_ep) {
				genp_hold_push(h, p);
				continue;
			}
			st->cnt[GENP_CANCELLED] += status == SN_ERR_CANCELLED;
			pipeline_complete(st->pl, p, status, now);
		}
		if (src_ep < 0)
			genp_hold_free(g, h);
	}
}

/* Number h's messages now, in order, behind those waiting for window space. */
static void genp_hold_release(struct stage *st, struct sn_conn *c, struct genp_hold *h,
			      uint64_t now)
{
	struct genp_conn *g = stage_conn(st, c);

	if (!h->head)
		return;
	if (g->wait_tail)
		g->wait_tail->next = h->head;
	else
		g->wait_head = h->head;
	g->wait_tail = h->tail;
	h->head = h->tail = NULL;
	genp_release(st, c, now);
}

/* Release c's holds that are over; the earliest one still on (UINT64_MAX: none). */
static uint64_t genp_holds_due(struct stage *st, struct sn_conn *c, uint64_t now)
{
	struct genp_conn *g = stage_conn(st, c);
	uint64_t next = UINT64_MAX;

	for (unsigned int i = 0; i < GENP_HOLDS; i++) {
		struct genp_hold *h = &g->holds[i];

		if (!h->used || !h->head)
			continue;
		if (now >= h->until)
			genp_hold_release(st, c, h, now);
		else if (h->until < next)
			next = h->until;
	}
	return next;
}

/* Restart the connections genp_stuck named (a restart clears their mark: genp_reset). */
static void genp_restart_stuck(struct stage *st, uint64_t now)
{
	struct pipeline *pl = st->pl;

	for (uint16_t t = 0; t < pl->n_nodes && ((struct genp_priv *)st->priv)->stuck; t++) {
		struct sn_conn *c = pl->conns[t];

		if (!c || !((struct genp_conn *)stage_conn(st, c))->stuck)
			continue;
		st->cnt[GENP_STUCK_RESTARTS]++;
		pipeline_conn_renew(pl, c, now);
	}
}

/* Stuck connections restart; holds: number the messages of endpoints whose hold is over. */
static uint64_t genp_tick(struct stage *st, uint64_t now)
{
	struct genp_priv *priv = st->priv;
	struct sn_conn **link;
	uint64_t next = UINT64_MAX;

	if (priv->stuck)
		genp_restart_stuck(st, now);
	link = &priv->held;
	while (*link) {
		struct sn_conn *c = *link;
		struct genp_conn *g = stage_conn(st, c);
		uint64_t t = genp_holds_due(st, c, now);

		if (t == UINT64_MAX) {
			*link = g->next_held;
			g->on_held = false;
			continue;
		}
		if (t < next)
			next = t;
		link = &g->next_held;
	}
	return next;
}

bool genp_may_hold(struct stage *genp, struct sn_conn *c, uint16_t ep, uint64_t now)
{
	struct genp_conn *g = stage_conn(genp, c);

	if (genp_hold_of(g, ep))
		return true;
	for (unsigned int i = 0; i < GENP_HOLDS; i++)
		if (!g->holds[i].used || genp_hold_idle(&g->holds[i], now))
			return true;
	return false;
}

/* How long h holds after one more refusal: the round trip doubled per refusal in a row. */
static uint64_t genp_hold_ns(const struct stage *st, const struct sn_conn *c,
			     const struct genp_hold *h)
{
	const struct genp_priv *priv = st->priv;
	uint64_t t = c->srtt_ns > priv->hold_min_ns ? c->srtt_ns : priv->hold_min_ns;

	t <<= h->backoff;
	return t < priv->hold_max_ns ? t : priv->hold_max_ns;
}

void genp_hold(struct stage *genp, struct sn_conn *c, uint16_t ep, struct sn_pkt **msgs,
	       uint16_t n, uint64_t now)
{
	struct genp_conn *g = stage_conn(genp, c);
	struct genp_hold *h = genp_hold_of(g, ep);
	struct sn_pkt *first = NULL, *last = NULL, **link = &g->wait_head, *p;
	int64_t max_retx = genp->param[2];

	if (!h)
		h = genp_hold_new(g, ep, now);
	h->until = now + genp_hold_ns(genp, c, h);
	if (h->backoff < GENP_HOLD_MAX_BACKOFF)
		h->backoff++;
	/* They were numbered before anything that waits for ep: first. */
	for (uint16_t i = 0; i < n; i++) {
		p = msgs[i];
		if (max_retx && p->tries >= max_retx) {
			genp->cnt[GENP_GAVE_UP]++;
			pipeline_complete(genp->pl, p, SN_ERR_RETRIES, now);
			continue;
		}
		genp->cnt[GENP_REQUEUED]++;
		p->next = NULL;
		if (last)
			last->next = p;
		else
			first = p;
		last = p;
	}
	if (last) {
		last->next = h->head;
		h->head = first;
		if (!h->tail)
			h->tail = last;
	}
	/* Those waiting for window space for ep were sent after them. */
	g->wait_tail = NULL;
	while ((p = *link)) {
		if (p->h.dst_ep != ep) {
			g->wait_tail = p;
			link = &p->next;
			continue;
		}
		*link = p->next;
		genp_hold_push(h, p);
	}
	genp_hold_watch(genp, c);
	pipeline_touch(genp->pl);
}

/* Take p off the unacknowledged list (prev is its predecessor or NULL). */
static void genp_unlink(struct stage *st, struct sn_conn *c, struct sn_pkt *prev,
			struct sn_pkt *p)
{
	if (p->flags & SN_PKT_UNSENT) {
		((struct genp_conn *)stage_conn(st, c))->unsent--;
		p->flags &= (uint16_t)~SN_PKT_UNSENT;
	}
	if (prev)
		prev->next = p->next;
	else
		c->unacked = p->next;
	if (c->unacked_tail == p)
		c->unacked_tail = prev;
	p->next = NULL;
	p->flags &= (uint16_t)~SN_PKT_HELD;
	c->outstanding--;
	if (!p->tx_count)
		c->never_sent--;
}

/* True when packet number n is covered by (base, mask), or by base alone. */
static bool genp_covered(uint32_t n, uint32_t base, uint32_t mask, bool use_mask)
{
	return proto_ack_covers(n, base, use_mask ? mask : 0);
}

/*
 * Resend p (it goes back to the channel); going back N, p is kept for
 * genp_send_in_order, which the caller runs.
 */
static void genp_resend(struct stage *st, struct sn_pkt *p, uint64_t now)
{
	if (genp_in_order(st))
		genp_keep(st, p);
	else
		stage_pass_down(st, &p, 1, now);
}

/*
 * Ack a covers p, sent more than once, for the first time: remember it,
 * unless a is a DUP ack. The DUP ack of p's own copy says the first copy's
 * ack was lost, or is later still, and the copy was needed; that of
 * another packet's copy was sent after a resend arrived, so it was no ack
 * on its way without the resends: p's were lost too (its sample would be
 * the timeout's wait), or p's was merged into it (a miss). Should a copy's DUP
 * ack come later (genp_dup_ack), the copy arrived after the packet, whose
 * ack completed p: the resend was needless, and the first copy's round
 * trip took now - t_first_tx (unless the first copy was lost too: then
 * that is longer than the round trip of the copy that arrived).
 */
static void genp_resent_note(struct stage *st, struct sn_conn *c, const struct sn_pkt *p,
			     const struct proto_pkt *a, uint64_t now)
{
	struct genp_conn *g = stage_conn(st, c);
	uint64_t rtt = now - p->t_first_tx;

	if (p->tx_count < 2 || (p->flags & SN_PKT_SACKED) || (a->flags & PROTO_F_DUP))
		return;
	g->resent[g->resent_next] = (struct genp_resent) {
		.at = now ? now : 1, .num = p->h.pkt_num,
		.rtt_ns = rtt > UINT32_MAX ? UINT32_MAX : (uint32_t)rtt,
	};
	g->resent_next = (uint8_t)((g->resent_next + 1) % GENP_RESENT);
}

/* True when entry e is in use and was made less than GENP_RESENT_NS ago. */
static bool genp_resent_live(const struct genp_resent *e, uint64_t now)
{
	return e->at && now - e->at < GENP_RESENT_NS;
}

/*
 * True when the ack that completed e (entries of one ack, or of one
 * receive burst, share `at`) also completed a packet of a lower number sent
 * more than once whose DUP ack has not come: that packet's copy, which
 * left before e's (copies leave in number order), may have caused the
 * ack, its first copy lost, so the ack was not on its way without the
 * resends. Had its first copy arrived, its copy's DUP ack would have come
 * before e's. Unsure is a miss, never a false count.
 */
static bool genp_resent_ack_unsure(const struct genp_conn *g, const struct genp_resent *e,
				   uint64_t now)
{
	for (unsigned int i = 0; i < GENP_RESENT; i++)
		if (genp_resent_live(&g->resent[i], now) && g->resent[i].at == e->at &&
		    proto_seq_lt(g->resent[i].num, e->num))
			return true;
	return false;
}

/*
 * A DUP ack: the copy of packet a->pkt_num reached the receiver after the
 * packet had. If an earlier ack completed it (genp_resent_note), on its
 * way without the resends (genp_resent_ack_unsure), its resend was
 * needless (spurious_retx); under timer:late_floor=on its first copy's
 * round trip is an unambiguous sample, and raises c's floor.
 */
static void genp_dup_ack(struct stage *st, struct sn_conn *c, const struct proto_pkt *a,
			 uint64_t now)
{
	struct genp_conn *g = stage_conn(st, c);
	struct genp_resent *e = NULL;

	for (unsigned int i = 0; i < GENP_RESENT && !e; i++)
		if (genp_resent_live(&g->resent[i], now) && g->resent[i].num == a->pkt_num)
			e = &g->resent[i];
	if (!e)
		return;
	if (genp_resent_ack_unsure(g, e, now)) {
		e->at = 0;
		return;
	}
	st->cnt[GENP_SPURIOUS_RETX]++;
	if (((const struct genp_priv *)st->priv)->late_floor) {
		sn_conn_rtt_sample(c, e->rtt_ns);
		sn_conn_late_ack(c, e->rtt_ns, now);
	}
	e->at = 0;
}

/*
 * Apply an acknowledgment to conn; resend holes it reveals (sr). What the
 * base covers was delivered; what only the mask covers arrived, but under
 * order the receiver holds it behind a hole and drops it if its connection
 * restarts first, so then it only stops being resent (SN_PKT_SACKED) and
 * completes when the base reaches it.
 */
static void genp_ack(struct stage *st, struct sn_conn *c, const struct proto_pkt *a,
		     uint64_t now)
{
	bool sr = st->param[1] == GENP_SR;
	bool mask_holds = ((const struct genp_priv *)st->priv)->mask_holds;
	struct sn_pkt *p, *prev = NULL, *next;
	uint64_t sacked_tx = 0, rtt_from = 0;
	uint32_t highest = a->ack_base;
	/* how far past the base the ack reaches (the mask's highest bit) */
	int32_t reach = sr ? proto_seq_diff(proto_ack_top(a->ack_base, a->ack_mask), a->ack_base) : 0;
	bool progress = false;

	if (proto_seq_diff(a->ack_base, c->tx_next) >= 0) {
		st->cnt[GENP_STALE_ACKS]++;	/* acks numbers never sent */
		return;
	}
	if (a->flags & PROTO_F_DUP)
		genp_dup_ack(st, c, a, now);
	for (p = c->unacked; p; p = next) {
		int32_t d = proto_seq_diff(p->h.pkt_num, a->ack_base);
		bool by_mask = d > 0;

		next = p->next;
		/* The list is in number order (genp_number): none past the reach is covered. */
		if (d > reach)
			break;
		if (!genp_covered(p->h.pkt_num, a->ack_base, a->ack_mask, sr)) {
			prev = p;
			continue;
		}
		if (by_mask && (p->flags & SN_PKT_SACKED)) {
			prev = p;	/* held there already */
			continue;
		}
		if (by_mask) {
			st->cnt[GENP_SACKED]++;
			if (p->t_tx > sacked_tx)
				sacked_tx = p->t_tx;
			if (proto_seq_lt(highest, p->h.pkt_num))
				highest = p->h.pkt_num;
		}
		/* Karn: only unambiguous samples; a held packet gave its own */
		if (p->tx_count == 1 && !(p->flags & SN_PKT_SACKED) && p->t_tx > rtt_from)
			rtt_from = p->t_tx;
		genp_resent_note(st, c, p, a, now);
		if (mask_holds && by_mask) {
			p->flags |= SN_PKT_SACKED;
			if (st->pl->env.held)
				st->pl->env.held(st->pl->env.ctx, p, now);
			prev = p;
			continue;
		}
		st->cnt[GENP_ACKED]++;
		genp_unlink(st, c, prev, p);
		if (((struct genp_conn *)stage_conn(st, c))->n_holds)
			genp_hold_took(st, c, p, now);
		pipeline_complete(st->pl, p, SN_OK, now);
		progress = true;
	}
	if (rtt_from && now > rtt_from)
		sn_conn_rtt_sample(c, now - rtt_from);
	/* A hole below a packet that was sent later and arrived: resend it. */
	for (p = c->unacked; sr && sacked_tx && p; p = p->next) {
		if (!proto_seq_lt(p->h.pkt_num, highest))
			break;
		if (sn_pkt_awaits_ack(p) && p->t_tx < sacked_tx) {
			st->cnt[GENP_FAST_RETX]++;
			genp_resend(st, p, now);
		}
	}
	if (progress) {
		/* The timer restarts for what is now the oldest packet. */
		if (!c->tx_unscanned)
			c->tx_unscanned = now ? now : 1;
		genp_release(st, c, now);
	}
}

/* Receive: take the acknowledgments; pass data on, drop pure acks. */
static uint16_t genp_rx(struct stage *st, struct sn_pkt **pkts, uint16_t n,
			uint64_t now)
{
	uint16_t out = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct sn_pkt *p = pkts[i];

		if (p->h.flags & PROTO_F_ACK)
			genp_ack(st, p->conn, &p->h, now);
		if (p->h.flags & PROTO_F_DATA)
			pkts[out++] = p;
		else
			st->pl->env.release(st->pl->env.ctx, p);
	}
	return out;
}

/*
 * Give p up: its message fails (SEGNET_ERETRIES) and p itself becomes the
 * marker of its number (a QREQ without data that keeps its place on the
 * unacknowledged list), resent like data until acknowledged, so that the
 * receiver does not wait for ever at a hole, behind which the packets after
 * p (acknowledged by mask, completed) would never be delivered. No
 * descriptor is needed, so none can be missing. The timer gives up only a
 * packet the channel is not sending, so completing it takes it at most off
 * the quick buffer it waits in for its acknowledgment.
 */
static void genp_give_up(struct stage *st, struct sn_pkt *p, uint64_t now)
{
	st->cnt[GENP_GAVE_UP]++;
	st->pl->env.complete(st->pl->env.ctx, p, SN_ERR_RETRIES, now);
	sn_pkt_make_marker(p);
	genp_resend(st, p, now);
}

/*
 * Transmissions after which a marker still unacknowledged restarts its
 * connection (genp_stuck): twice max_retx, as far as tx_count counts.
 */
static uint32_t genp_marker_limit(int64_t max_retx)
{
	return max_retx < UINT16_MAX / 2 ? 2 * (uint32_t)max_retx : UINT16_MAX;
}

/*
 * p, a marker, went genp_marker_limit times unacknowledged: the peer takes
 * nothing of its connection (it is up, or a DOWN notice would have
 * restarted it: a silent peer). Its messages waiting behind the markers
 * (for window space, for a quick send buffer that the markers hold, or
 * going back N, for them) would wait for ever, and the markers with them:
 * the connection restarts (pipeline_conn_renew), every message of it
 * fails (SN_ERR_DOWN). Not here, inside the timer's scan of the
 * connection, which a restart would empty under it: at genp's next tick,
 * in the same pipeline_tick.
 */
static void genp_stuck(struct stage *st, struct sn_conn *c)
{
	struct genp_conn *g = stage_conn(st, c);

	if (g->stuck)
		return;
	g->stuck = true;
	((struct genp_priv *)st->priv)->stuck++;
	pipeline_touch(st->pl);
}

/*
 * Resend p, counted in counter why, or give it up once it used up its
 * transmissions; a marker is resent until acknowledged, but for twice
 * as many (genp_stuck).
 */
static void genp_retry(struct stage *st, struct sn_pkt *p, enum genp_counter why,
		       uint64_t now)
{
	int64_t max_retx = st->param[2];

	if (max_retx && sn_pkt_tries(p) >= max_retx) {
		if (!(p->h.flags & PROTO_F_ABANDONED)) {
			genp_give_up(st, p, now);
			return;
		}
		if (sn_pkt_tries(p) >= genp_marker_limit(max_retx)) {
			genp_stuck(st, p->conn);
			return;
		}
	}
	st->cnt[why]++;
	genp_resend(st, p, now);
}

/*
 * p must go again (a timeout, a WELCOME or a refusal: why): resend it
 * (sr), or it and every later waiting packet (gbn).
 */
static void genp_again(struct stage *st, struct sn_conn *c, struct sn_pkt *p,
		       enum genp_counter why, uint64_t now)
{
	struct sn_pkt *nx;

	if (st->param[1] == GENP_SR) {
		genp_retry(st, p, why, now);
	} else {
		for (; p; p = nx) {
			nx = p->next;
			if (sn_pkt_awaits_ack(p))
				genp_retry(st, p, why, now);
		}
		genp_send_in_order(st, c, now);
	}
	genp_release(st, c, now);
}

/* The peer went away: every packet for it fails. */
static void genp_reset(struct stage *st, struct sn_conn *c, uint64_t now)
{
	struct genp_conn *g = stage_conn(st, c);
	struct sn_pkt *p;

	while ((p = c->unacked)) {
		genp_unlink(st, c, NULL, p);
		pipeline_complete(st->pl, p, SN_ERR_DOWN, now);
	}
	while ((p = g->wait_head)) {
		g->wait_head = p->next;
		pipeline_complete(st->pl, p, SN_ERR_DOWN, now);
	}
	g->wait_tail = NULL;
	g->unsent = 0;
	if (g->stuck) {
		g->stuck = false;
		((struct genp_priv *)st->priv)->stuck--;
	}
	genp_drop_held(st, c, -1, SN_ERR_DOWN, now);
	/* Numbers start again: a DUP ack of the new epoch names none of these. */
	memset(g->resent, 0, sizeof(g->resent));
}

/*
 * Complete the packets waiting for window space on c of endpoint src_ep
 * (-1: of any) with status; keep the rest in order.
 */
static void genp_drop_waiting(struct stage *st, struct sn_conn *c, int src_ep, int status,
			      uint64_t now)
{
	struct genp_conn *g = stage_conn(st, c);
	struct sn_pkt **link = &g->wait_head, *p, *kept = NULL;

	while ((p = *link)) {
		if (src_ep >= 0 && p->h.src_ep != src_ep) {
			kept = p;
			link = &p->next;
			continue;
		}
		*link = p->next;
		st->cnt[GENP_CANCELLED] += status == SN_ERR_CANCELLED;
		pipeline_complete(st->pl, p, status, now);
	}
	g->wait_tail = kept;
	if (g->n_holds)
		genp_drop_held(st, c, src_ep, status, now);
}

/*
 * Endpoint src_ep is closing: its packets waiting for window space have no
 * number yet, so they simply go. Its numbered packets are the NIC's to turn
 * into markers (nic_cancel).
 */
static void genp_cancel(struct stage *st, uint16_t src_ep, uint64_t now)
{
	for (uint16_t peer = 0; peer < st->pl->n_nodes; peer++)
		if (st->pl->conns[peer])
			genp_drop_waiting(st, st->pl->conns[peer], src_ep, SN_ERR_CANCELLED, now);
}

/* Timeouts, resends at once (a WELCOME, a refusal) and resets. */
static void genp_event(struct stage *st, struct sn_conn *c, enum stage_event ev,
		       struct sn_pkt *pkt, uint64_t now)
{
	if (ev == STAGE_EV_TIMEOUT && pkt)
		genp_again(st, c, pkt, GENP_TIMEOUT_RETX, now);
	else if (ev == STAGE_EV_RESET)
		genp_reset(st, c, now);
	else if (ev == STAGE_EV_FAIL)
		genp_drop_waiting(st, c, -1, SN_ERR_DOWN, now);
	else if (ev == STAGE_EV_UNTAKEN && pkt)
		genp_again(st, c, pkt, GENP_WELCOME_RETX, now);
	else if (ev == STAGE_EV_REFUSED && pkt)
		genp_again(st, c, pkt, GENP_REFUSAL_RETX, now);
}

const struct stage_ops stage_genp = {
	.name = "genp",
	.help = "numbers packets, limits outstanding ones, picks retransmissions",
	.params = genp_params,
	.counter_names = genp_counter_names,
	.priv_size = sizeof(struct genp_priv),
	.conn_size = sizeof(struct genp_conn),
	.init = genp_init,
	.tx = genp_tx,
	.rx = genp_rx,
	.event = genp_event,
	.cancel = genp_cancel,
	.tick = genp_tick,
};
