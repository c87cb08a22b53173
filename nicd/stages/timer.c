/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * timer: one retransmission timer per connection. It watches the oldest
 * packet that has left and is waiting only for its acknowledgment; when that
 * wait exceeds the timeout it raises STAGE_EV_TIMEOUT, and genp decides what
 * to resend. The default timeout is the fixed round-trip bound of a
 * single-switch network; segnet-sim derives it from the link rates.
 */
#include "stages.h"

static const struct stage_param timer_params[] = {
	{ "timeout_ns", "wait for an acknowledgment before retransmitting",
	  100, 10000000000LL, 200000, NULL },
	{ NULL, NULL, 0, 0, 0, NULL },
};

/* Counters. */
enum timer_counter {
	TIMER_EXPIRED,
};

static const char *const timer_counter_names[] = { "expired", NULL };

/* Timer needs numbered packets. */
static int timer_init(struct stage *st, char *err, size_t errlen)
{
	if (!stage_below(st, "genp")) {
		snprintf(err, errlen, "stage timer needs genp below it (it times genp's packets)");
		return -EINVAL;
	}
	return 0;
}

/* The oldest packet of c that only waits for its ack, or NULL. */
static struct sn_pkt *timer_oldest(struct sn_conn *c)
{
	for (struct sn_pkt *p = c->unacked; p; p = p->next)
		if (p->tx_count && !(p->flags & SN_PKT_SENDING))
			return p;
	return NULL;
}

/* Check every connection with packets in flight. */
static uint64_t timer_tick(struct stage *st, uint64_t now)
{
	struct pipeline *pl = st->pl;
	uint64_t timeout = (uint64_t)st->param[0], next = UINT64_MAX;
	struct sn_conn **link = &pl->active;

	while (*link) {
		struct sn_conn *c = *link;
		struct sn_pkt *p;

		if (!c->outstanding) {
			*link = c->active_next;
			c->on_active = 0;
			continue;
		}
		p = timer_oldest(c);
		if (p && now >= p->t_tx + timeout) {
			st->cnt[TIMER_EXPIRED]++;
			pipeline_event(pl, c, STAGE_EV_TIMEOUT, NULL, now);
			p = timer_oldest(c);
		}
		if (p && p->t_tx + timeout < next)
			next = p->t_tx + timeout;
		link = &c->active_next;
	}
	return next;
}

const struct stage_ops stage_timer = {
	.name = "timer",
	.help = "per-connection retransmission timer",
	.params = timer_params,
	.counter_names = timer_counter_names,
	.init = timer_init,
	.tick = timer_tick,
};
