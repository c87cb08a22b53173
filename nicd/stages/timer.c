/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * timer: one retransmission timer per connection. It watches the packets
 * that have left and wait only for their acknowledgment, oldest first; when
 * one has waited longer than the timeout it raises STAGE_EV_TIMEOUT for it,
 * and genp decides what to resend.
 */
#include "stages.h"

static const char *const timer_adaptive_names[] = { "off", "on", NULL };

static const struct stage_param timer_params[] = {
	{ "timeout_ns", "round-trip bound: the longest wait for an acknowledgment",
	  100, 10000000000LL, 1000000, NULL },
	{ "adaptive", "on = wait srtt + 4 rttvar (never above timeout_ns)",
	  0, 1, 1, timer_adaptive_names },
	{ "min_ns", "shortest adaptive wait", 100, 10000000000LL, 2000, NULL },
	{ NULL, NULL, 0, 0, 0, NULL },
};

/* Counters. */
enum timer_counter {
	TIMER_EXPIRED,
};

static const char *const timer_counter_names[] = { "expired", NULL };

/* Per-connection state. */
struct timer_conn {
	uint64_t next_scan;	/* earliest deadline of this connection */
};

/* Per-pipeline state. */
struct timer_priv {
	bool oldest_only;	/* genp goes back N: time the oldest packet only */
};

/* Timer needs numbered packets; it times what genp's policy needs. */
static int timer_init(struct stage *st, char *err, size_t errlen)
{
	struct timer_priv *priv = st->priv;
	struct stage *genp = stage_below(st, "genp");

	if (!genp) {
		snprintf(err, errlen, "stage timer needs genp below it (it times genp's packets)");
		return -EINVAL;
	}
	priv->oldest_only = genp_goes_back_n(genp);
	return 0;
}

/* Longest back-off: the adaptive wait grows at most 2^8 times. */
enum { TIMER_MAX_BACKOFF = 8 };

/*
 * How long c's packets may wait for their acknowledgment: srtt + 4 rttvar,
 * doubled for every timeout since the last round-trip sample, within
 * [min_ns, timeout_ns]. Without the back-off, a wait that fell below a round
 * trip grown by queueing would resend every buffered packet every wait, each
 * resend forcing an ack, and Karn's rule leaves no sample to learn from:
 * congestion collapse (seen in segnet-sim with two nodes at load 0.3).
 */
static uint64_t timer_timeout(const struct stage *st, const struct sn_conn *c)
{
	uint64_t bound = (uint64_t)st->param[0], t;

	if (!st->param[1] || !c->srtt_ns)
		return bound;
	t = (uint64_t)c->srtt_ns + 4ull * c->rttvar_ns;
	if (t < (uint64_t)st->param[2])
		t = (uint64_t)st->param[2];
	t <<= c->rto_backoff;
	return t < bound ? t : bound;
}

/* True when p has left and waits only for its acknowledgment. */
static bool timer_waiting(const struct sn_pkt *p)
{
	return p->tx_count && !(p->flags & SN_PKT_SENDING);
}

/*
 * One pass over c's unacknowledged packets, oldest first: each that waited
 * longer than the timeout gets a STAGE_EV_TIMEOUT (genp resends it, or with
 * go-back-N everything after it too). Returns the next deadline of c, or
 * UINT64_MAX when nothing waits (a later transmission sets tx_unscanned).
 */
static uint64_t timer_scan(struct stage *st, struct sn_conn *c, uint64_t now)
{
	struct timer_priv *priv = st->priv;
	uint64_t timeout = timer_timeout(st, c), next = UINT64_MAX;
	bool expired = false;
	struct sn_pkt *p, *nx;

	c->tx_unscanned = 0;
	for (p = c->unacked; p; p = nx) {
		/*
		 * Go-back-N times only the oldest unacknowledged packet: until it
		 * has left and waited, nothing after it can be "lost".
		 */
		nx = priv->oldest_only ? NULL : p->next;
		if (!timer_waiting(p))
			continue;
		if (now >= p->t_tx + timeout) {
			st->cnt[TIMER_EXPIRED]++;
			expired = true;
			pipeline_event(st->pl, c, STAGE_EV_TIMEOUT, p, now);
		} else if (p->t_tx + timeout < next) {
			next = p->t_tx + timeout;
		}
	}
	if (expired && c->rto_backoff < TIMER_MAX_BACKOFF)
		c->rto_backoff++;
	return next;
}

/*
 * Check the connections with packets in flight. A connection is scanned only
 * at its earliest deadline, or one timeout after its first transmission
 * since the last scan (egress records it), so an idle connection costs one
 * comparison. Returns the earliest deadline; the NIC ticks its pipelines
 * after every transmission, so no deadline is missed.
 */
static uint64_t timer_tick(struct stage *st, uint64_t now)
{
	struct pipeline *pl = st->pl;
	struct sn_conn **link = &pl->active;
	uint64_t next = UINT64_MAX;

	while (*link) {
		struct sn_conn *c = *link;
		struct timer_conn *tc = stage_conn(st, c);

		if (!c->outstanding) {
			*link = c->active_next;
			c->on_active = 0;
			continue;
		}
		if (c->tx_unscanned && c->tx_unscanned + timer_timeout(st, c) < tc->next_scan)
			tc->next_scan = c->tx_unscanned + timer_timeout(st, c);
		if (now >= tc->next_scan)
			tc->next_scan = timer_scan(st, c, now);
		/* What the scan itself resent. */
		if (c->tx_unscanned && c->tx_unscanned + timer_timeout(st, c) < tc->next_scan)
			tc->next_scan = c->tx_unscanned + timer_timeout(st, c);
		if (tc->next_scan < next)
			next = tc->next_scan;
		link = &c->active_next;
	}
	return next;
}

const struct stage_ops stage_timer = {
	.name = "timer",
	.help = "per-connection retransmission timer",
	.params = timer_params,
	.counter_names = timer_counter_names,
	.priv_size = sizeof(struct timer_priv),
	.conn_size = sizeof(struct timer_conn),
	.init = timer_init,
	.tick = timer_tick,
};
