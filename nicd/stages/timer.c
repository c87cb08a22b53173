/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * timer: one retransmission timer per connection. It watches the packets
 * that have left and wait only for their acknowledgment, oldest first; when
 * one has waited longer than the timeout it raises STAGE_EV_TIMEOUT for it,
 * and genp decides what to resend. The round-trip bound timeout_ns holds
 * while the measured round trips stay within it; on a connection where they
 * do not (or none was measured yet), waits back off past the bound and an
 * expiry resends one packet, as TCP's retransmission timer does. With
 * late_floor=on the wait is never shorter than what late acks showed it
 * needs (genp finds them: doc/protocol.md, late acknowledgments).
 */
#include "stages.h"

static const char *const timer_on_off_names[] = { "off", "on", NULL };

static const struct stage_param timer_params[] = {
	{ "timeout_ns", "round-trip bound: the longest wait, while measured round trips stay within it",
	  100, 10000000000LL, 1000000, NULL },
	{ "adaptive", "on = wait srtt + 4 rttvar, backed off (off = always timeout_ns)",
	  0, 1, 1, timer_on_off_names },
	{ "min_ns", "shortest adaptive wait", 100, 10000000000LL, 2000, NULL },
	{ "late_floor", "on = late acks raise a floor under the adaptive wait (shared cores)",
	  0, 1, 0, timer_on_off_names },
	{ NULL, NULL, 0, 0, 0, NULL },
};

/* Counters. */
enum timer_counter {
	TIMER_EXPIRED,
};

static const char *const timer_counter_names[] = { "expired", NULL };

/*
 * Per-connection state. The seen_ fields are the last look of
 * timer_scan_unscanned, which next_scan already holds: while the
 * transmission and the round-trip state it came from stay the same (and no
 * floor decays with the clock), the next look would find the same deadline.
 */
struct timer_conn {
	uint64_t next_scan;	/* earliest deadline of this connection */
	uint64_t seen_unscanned;	/* tx_unscanned of the last look (0: none since the scan) */
	uint32_t seen_srtt_ns;		/* srtt_ns then */
	uint32_t seen_rttvar_ns;	/* rttvar_ns then */
	uint8_t seen_backoff;		/* rto_backoff then */
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
 * srtt + 4 rttvar, at least min_ns and what late acks showed a wait needs
 * (up to the bound; c has a round-trip sample). The estimate alone learns
 * nothing from a round trip longer than itself: the packet is resent and
 * Karn's rule drops its sample, so on a path whose round trips are mostly
 * short and sometimes far longer (nicd on a loaded machine, where a
 * process waits for the CPU) it stays just above the short ones and
 * resends every long one needlessly. The floor is 0 unless late_floor is
 * on: genp raises it only then (genp_priv.late_floor).
 */
static uint64_t timer_estimate(const struct stage *st, const struct sn_conn *c, uint64_t now)
{
	uint64_t t = (uint64_t)c->srtt_ns + 4ull * c->rttvar_ns;
	uint64_t floor = sn_conn_rto_floor(c, now);

	if (floor > (uint64_t)st->param[0])
		floor = (uint64_t)st->param[0];
	if (t < floor)
		t = floor;
	return t < (uint64_t)st->param[2] ? (uint64_t)st->param[2] : t;
}

/*
 * True when c's round trips are known to stay within timeout_ns (or the
 * timer is not adaptive): an expiry then means a lost packet, a collision on
 * the quick channel, and everything expired is resent at once.
 */
static bool timer_bound_holds(const struct stage *st, const struct sn_conn *c, uint64_t now)
{
	return !st->param[1] ||
	       (c->srtt_ns && timer_estimate(st, c, now) <= (uint64_t)st->param[0]);
}

/*
 * How long c's packets may wait for their acknowledgment: srtt + 4 rttvar
 * (timeout_ns before the first sample), doubled for every timeout since the
 * last round-trip sample. Without the back-off, a wait that fell below a
 * round trip grown by queueing would resend every buffered packet every
 * wait, each resend forcing an ack, and Karn's rule leaves no sample to learn
 * from: congestion collapse (seen in segnet-sim with two nodes at load 0.3).
 * While the bound holds the back-off stops at it, so collisions are retried
 * as fast as ever. Where it does not, clamping to it was the collapse again
 * (segnet-sim clint, quick channel at load 1 with 32 or 64 quick buffers:
 * the peer's quick buffers queue ahead of its QACK, acks came after the
 * bound, every packet was resent each bound, and Karn's rule discarded
 * exactly the long samples); so there the wait may back off past the
 * estimate by its excess over the bound, or to twice the bound before the
 * first sample.
 */
static uint64_t timer_timeout(const struct stage *st, const struct sn_conn *c, uint64_t now)
{
	uint64_t bound = (uint64_t)st->param[0], t, cap;

	if (!st->param[1])
		return bound;
	if (!c->srtt_ns) {
		t = bound;
		cap = 2 * bound;
	} else {
		t = timer_estimate(st, c, now);
		cap = t > bound ? 2 * t - bound : bound;
	}
	t <<= c->rto_backoff;
	return t < cap ? t : cap;
}

/*
 * One pass over c's unacknowledged packets: a packet that waited longer than
 * the timeout gets a STAGE_EV_TIMEOUT (genp resends it, or with go-back-N
 * everything after it too). Where the bound does not hold, only the one that
 * waited longest does, and the others are due one backed-off timeout later:
 * a late ack is then as likely as a loss, and resending every expired packet
 * multiplied the copies in the queues by the packets in flight. Returns the
 * next deadline of c, or UINT64_MAX when nothing waits (a later transmission
 * sets tx_unscanned).
 */
static uint64_t timer_scan(struct stage *st, struct sn_conn *c, uint64_t now)
{
	struct timer_priv *priv = st->priv;
	uint64_t timeout = timer_timeout(st, c, now), next = UINT64_MAX;
	bool all = timer_bound_holds(st, c, now), expired = false;
	struct sn_pkt *p, *nx, *oldest = NULL;
	uint32_t n_late = 0;

	c->tx_unscanned = 0;
	for (p = c->unacked; p; p = nx) {
		/*
		 * Go-back-N times only the oldest unacknowledged packet: until it
		 * has left and waited, nothing after it can be "lost".
		 */
		nx = priv->oldest_only ? NULL : p->next;
		if (!sn_pkt_awaits_ack(p))
			continue;
		if (now < p->t_tx + timeout) {
			if (p->t_tx + timeout < next)
				next = p->t_tx + timeout;
		} else if (all) {
			st->cnt[TIMER_EXPIRED]++;
			expired = true;
			pipeline_event(st->pl, c, STAGE_EV_TIMEOUT, p, now);
		} else {
			n_late++;
			if (!oldest || p->t_tx < oldest->t_tx)
				oldest = p;
		}
	}
	if (oldest) {
		st->cnt[TIMER_EXPIRED]++;
		expired = true;
		pipeline_event(st->pl, c, STAGE_EV_TIMEOUT, oldest, now);
	}
	if (expired && c->rto_backoff < TIMER_MAX_BACKOFF)
		c->rto_backoff++;
	/* The resend sets tx_unscanned; the other late ones wait a timeout. */
	if (n_late > 1) {
		uint64_t again = now + timer_timeout(st, c, now);

		if (again < next)
			next = again;
	}
	return next;
}

/* True when tc's last look saw what c shows now: the timeout is the same. */
static bool timer_seen(const struct sn_conn *c, const struct timer_conn *tc)
{
	return tc->seen_unscanned == c->tx_unscanned && !c->rto_floor_ns &&
	       tc->seen_srtt_ns == c->srtt_ns && tc->seen_rttvar_ns == c->rttvar_ns &&
	       tc->seen_backoff == c->rto_backoff;
}

/*
 * Bring c's next scan forward to one timeout after a transmission not
 * scanned yet. The timer ticks at every poll that something happened in, so
 * most looks see what the last one saw and skip the timeout's arithmetic.
 */
static inline void timer_scan_unscanned(const struct stage *st, const struct sn_conn *c,
					struct timer_conn *tc, uint64_t now)
{
	uint64_t due;

	if (!c->tx_unscanned || timer_seen(c, tc))
		return;
	due = c->tx_unscanned + timer_timeout(st, c, now);
	if (due < tc->next_scan)
		tc->next_scan = due;
	tc->seen_unscanned = c->tx_unscanned;
	tc->seen_srtt_ns = c->srtt_ns;
	tc->seen_rttvar_ns = c->rttvar_ns;
	tc->seen_backoff = c->rto_backoff;
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
		timer_scan_unscanned(st, c, tc, now);
		if (now >= tc->next_scan) {
			tc->next_scan = timer_scan(st, c, now);
			tc->seen_unscanned = 0;	/* next_scan holds no look now */
			/* What the scan itself resent (without a scan, the look above stands). */
			timer_scan_unscanned(st, c, tc, now);
		}
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
