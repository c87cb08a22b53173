/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rate: paces new packets with a token bucket on the injected clock (the TSC
 * in the daemons, virtual time in the simulator). It sits above genp, so it
 * paces admission and never holds a packet that genp may retransmit or
 * complete; acknowledgments pass unpaced.
 */
#include <stdlib.h>

#include "stages.h"

static const struct stage_param rate_params[] = {
	{ "pps", "packets per second", 1, 100000000, 1000000, NULL },
	{ "burst", "packets of credit the bucket keeps (time a late poller may make up)",
	  1, 1000000, 1, NULL },
	{ "catchup_ns", "ns by which a gap may be shorter than 1/pps while credit is spent "
	  "(0: at once, back to back)", 0, 1000000000, 0, NULL },
	{ NULL, NULL, 0, 0, 0, NULL },
};

/* Counters. */
enum rate_counter {
	RATE_PASSED,
	RATE_DELAYED,
	RATE_CANCELLED,
};

static const char *const rate_counter_names[] = { "passed", "delayed", "cancelled", NULL };

/*
 * Credit is counted in ns x pps, so a packet costs exactly RATE_PACKET and a
 * ns earns pps: with whole ns per packet, 84 Mpps (11.9 ns) would run at 90.9.
 */
enum { RATE_PACKET = 1000000000 };

/* Per-pipeline state: the bucket and the packets waiting for tokens. */
struct rate_priv {
	uint64_t last;		/* time tokens were last added (ns) */
	uint64_t tokens;	/* credit in ns x pps (1 packet = RATE_PACKET) */
	uint64_t pps;		/* the rate */
	uint64_t gap_ns;	/* 1e9 / pps, rounded down (catch-up spacing) */
	uint64_t min_gap_ns;	/* closest departures when spending credit (catchup) */
	uint64_t last_out;	/* last departure (catchup) */
	bool out_any;		/* last_out is valid */
	bool started;		/* last is valid */
	struct sn_pkt **q;	/* waiting packets, a ring */
	uint32_t q_head;	/* oldest */
	uint32_t q_len;		/* waiting */
	uint32_t q_cap;		/* ring size */
};

/* True when a packet may leave at now as far as catch-up spacing goes. */
static bool rate_spaced(const struct rate_priv *r, uint64_t now)
{
	return !r->min_gap_ns || !r->out_any || now >= r->last_out + r->min_gap_ns;
}

/* A packet left at now. */
static void rate_left(struct stage *st, struct rate_priv *r, uint64_t now)
{
	r->tokens -= RATE_PACKET;
	r->last_out = now;
	r->out_any = true;
	st->cnt[RATE_PASSED]++;
}

/* rate must not sit below genp. */
static int rate_init(struct stage *st, char *err, size_t errlen)
{
	struct rate_priv *r = st->priv;

	if (stage_above(st, "genp")) {
		snprintf(err, errlen, "stage rate must be above genp (it paces new packets only)");
		return -EINVAL;
	}
	r->pps = (uint64_t)st->param[0];
	r->gap_ns = RATE_PACKET / r->pps;
	if (!r->gap_ns)
		r->gap_ns = 1;
	r->min_gap_ns = 0;
	if (st->param[2])
		r->min_gap_ns = r->gap_ns > (uint64_t)st->param[2] ? r->gap_ns - (uint64_t)st->param[2] : 1;
	return 0;
}

/* Add the tokens earned since the last call, up to the burst. */
static void rate_refill(struct stage *st, struct rate_priv *r, uint64_t now)
{
	/* burst packets, and what the ns a wake-up is rounded up to earned. */
	uint64_t cap = (uint64_t)st->param[1] * RATE_PACKET + r->pps - 1;
	uint64_t dt = now - r->last;

	if (!r->started) {
		r->started = true;
		r->last = now;
		r->tokens = RATE_PACKET;
		return;
	}
	/* A long idle fills the bucket; cut it first so dt * pps cannot overflow. */
	if (dt > cap / r->pps + 1)
		dt = cap / r->pps + 1;
	r->tokens += dt * r->pps;
	r->last = now;
	if (r->tokens > cap)
		r->tokens = cap;
}

/* Append p to the waiting ring; false when memory runs out. */
static bool rate_queue(struct rate_priv *r, struct sn_pkt *p)
{
	if (r->q_len == r->q_cap) {
		uint32_t cap = r->q_cap ? r->q_cap * 2 : 256;
		struct sn_pkt **q = malloc(cap * sizeof(*q));

		if (!q)
			return false;
		for (uint32_t i = 0; i < r->q_len; i++)
			q[i] = r->q[(r->q_head + i) % r->q_cap];
		free(r->q);
		r->q = q;
		r->q_head = 0;
		r->q_cap = cap;
	}
	r->q[(r->q_head + r->q_len) % r->q_cap] = p;
	r->q_len++;
	return true;
}

/* Transmit: data waits for a token; acknowledgments pass. */
static uint16_t rate_tx(struct stage *st, struct sn_pkt **pkts, uint16_t n,
			uint64_t now)
{
	struct rate_priv *r = st->priv;
	uint16_t out = 0;

	rate_refill(st, r, now);
	for (uint16_t i = 0; i < n; i++) {
		struct sn_pkt *p = pkts[i];

		if ((p->flags & SN_PKT_ACK_ONLY) ||
		    (!r->q_len && r->tokens >= RATE_PACKET && rate_spaced(r, now))) {
			if (!(p->flags & SN_PKT_ACK_ONLY))
				rate_left(st, r, now);
			pkts[out++] = p;
		} else if (rate_queue(r, p)) {
			st->cnt[RATE_DELAYED]++;
		} else {
			pkts[out++] = p;	/* no memory: better early than lost */
		}
	}
	return out;
}

/*
 * Release waiting packets as tokens come; returns when the next is due.
 * With catchup_ns, credit a late poll earned is spent in gaps at most
 * catchup_ns shorter than 1/pps, so a stall is made up over the following
 * packets instead of in a burst, and no gap is off by more than catchup_ns.
 */
static uint64_t rate_tick(struct stage *st, uint64_t now)
{
	struct rate_priv *r = st->priv;
	uint64_t next;

	if (!r->q_len)
		return UINT64_MAX;
	rate_refill(st, r, now);
	while (r->q_len && r->tokens >= RATE_PACKET && rate_spaced(r, now)) {
		struct sn_pkt *p = r->q[r->q_head];

		r->q_head = (r->q_head + 1) % r->q_cap;
		r->q_len--;
		rate_left(st, r, now);
		stage_pass_down(st, &p, 1, now);
	}
	if (!r->q_len)
		return UINT64_MAX;
	next = r->tokens >= RATE_PACKET ? now
					: now + (RATE_PACKET - r->tokens + r->pps - 1) / r->pps;
	if (!rate_spaced(r, next))
		next = r->last_out + r->min_gap_ns;
	return next;
}

/*
 * Complete (with status) the waiting packets of connection c (NULL: any)
 * sent by src_ep (-1: any); the others keep their order. How many went.
 */
static uint32_t rate_drop(struct stage *st, const struct sn_conn *c, int src_ep,
			  int status, uint64_t now)
{
	struct rate_priv *r = st->priv;
	uint32_t kept = 0, len = r->q_len;

	for (uint32_t i = 0; i < len; i++) {
		struct sn_pkt *p = r->q[(r->q_head + i) % r->q_cap];

		if ((!c || p->conn == c) && (src_ep < 0 || p->h.src_ep == src_ep))
			pipeline_complete(st->pl, p, status, now);
		else
			r->q[(r->q_head + kept++) % r->q_cap] = p;
	}
	r->q_len = kept;
	return len - kept;
}

/* A reset peer, or one away: its waiting packets fail. */
static void rate_event(struct stage *st, struct sn_conn *c, enum stage_event ev,
		       struct sn_pkt *pkt, uint64_t now)
{
	(void)pkt;
	if (ev == STAGE_EV_RESET || ev == STAGE_EV_FAIL)
		rate_drop(st, c, -1, SN_ERR_DOWN, now);
}

/* A closing endpoint: its waiting packets (not numbered yet: rate is above genp) go. */
static void rate_cancel(struct stage *st, uint16_t src_ep, uint64_t now)
{
	st->cnt[RATE_CANCELLED] += rate_drop(st, NULL, src_ep, SN_ERR_CANCELLED, now);
}

/* Free the ring when the pipeline goes (its packets go with the NIC). */
static void rate_fini(struct stage *st)
{
	struct rate_priv *r = st->priv;

	free(r->q);
}

const struct stage_ops stage_rate = {
	.name = "rate",
	.help = "paces new packets with a token bucket",
	.params = rate_params,
	.counter_names = rate_counter_names,
	.priv_size = sizeof(struct rate_priv),
	.init = rate_init,
	.tx = rate_tx,
	.tick = rate_tick,
	.event = rate_event,
	.cancel = rate_cancel,
	.fini = rate_fini,
};
