/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sender loop of segnet-replay: the schedule says when, the waiter gets
 * there on the injected clock, the mode sends. It never reads a clock or
 * touches a port itself, so tests drive it on a simulated clock with a
 * fake mode or a fake port. Also the stall watch both modes' sends use
 * (struct replay_stall).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pcap/replay/replay.h"

/* Longest sleep between two looks at the stop flag when none is given. */
enum { REPLAY_STOP_CHECK_NS = 100 * 1000 * 1000 };

/* Records queued and not yet flushed. */
struct replay_pending {
	/* due time of each */
	uint64_t due[REPLAY_BURST_MAX];
	/* length accounted for each */
	uint32_t len[REPLAY_BURST_MAX];
	/* how many */
	unsigned int n;
};

/* True once the stop flag is set. */
static bool replay_stopped(const struct replay_loop_conf *c)
{
	return c->stop != NULL && *c->stop;
}

/*
 * Wait for due: sleep in steps no longer than the stop check (so a signal
 * ends a long gap), then let the waiter take the last stretch. Returns the
 * clock reading it stopped at.
 */
static uint64_t replay_wait(struct waiter *w, const struct replay_loop_conf *c,
			    uint64_t due)
{
	uint64_t step = c->stop_check_ns ? c->stop_check_ns : REPLAY_STOP_CHECK_NS;
	uint64_t now = c->clock.now(c->clock.ctx);

	while (due > now && due - now > w->spin_ns + step) {
		if (replay_stopped(c))
			return now;
		c->clock.sleep(c->clock.ctx, step);
		now = c->clock.now(c->clock.ctx);
	}
	return waiter_wait_until(w, due);
}

/* Send the pending records and account those that left. */
static void replay_flush(const struct replay_mode *m, void *state,
			 const struct replay_loop_conf *c, struct replay_pending *p,
			 struct replay_stats *st, struct replay_loop_result *res)
{
	uint64_t t;
	unsigned int sent;

	if (p->n == 0)
		return;
	t = c->clock.now(c->clock.ctx);
	sent = m->flush(state);
	if (sent > p->n)
		sent = p->n;
	for (unsigned int i = 0; i < sent; i++)
		replay_stats_add(st, p->due[i], t, p->len[i]);
	res->sent += sent;
	res->flushes++;
	p->n = 0;
}

int replay_loop_run(struct timing_sched *s, const struct trace *t,
		    const struct replay_mode *m, void *state,
		    const struct replay_loop_conf *c, struct replay_stats *st,
		    struct replay_loop_result *res)
{
	unsigned int burst = c->burst < 1 ? 1 : c->burst > REPLAY_BURST_MAX ?
			     REPLAY_BURST_MAX : c->burst;
	struct replay_pending p = { .n = 0 };
	struct timing_slot slot;
	struct waiter w;
	uint64_t now;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	waiter_init(&w, &c->clock, c->spin_ns);
	timing_start(s, c->clock.now(c->clock.ctx));
	while (!replay_stopped(c) && timing_next(s, c->clock.now(c->clock.ctx), &slot)) {
		const struct trace_rec *rec = &t->recs[slot.index];

		replay_wait(&w, c, slot.due_ns);
		if (replay_stopped(c))
			break;
		rc = m->send(state, rec);
		if (rc == -EAGAIN && p.n) {
			/* The mode must send what is pending before it takes more. */
			replay_flush(m, state, c, &p, st, res);
			rc = m->send(state, rec);
		}
		if (rc) {
			res->error = rc;
			break;
		}
		res->queued++;
		p.due[p.n] = slot.due_ns;
		p.len[p.n] = rec->caplen;
		p.n++;
		/* Keep filling the burst while the next record is late enough. */
		now = c->clock.now(c->clock.ctx);
		if (p.n < burst && now >= c->catchup_ns &&
		    timing_due(s, slot.seq + 1) <= now - c->catchup_ns)
			continue;
		replay_flush(m, state, c, &p, st, res);
	}
	replay_flush(m, state, c, &p, st, res);
	res->stop = timing_stop_reason(s);
	res->interrupted = replay_stopped(c);
	return rc;
}

struct timing_sched *replay_sched_new(const struct trace *t, const struct timing_opts *o)
{
	struct timing_pkt *p = calloc(t->n ? t->n : 1, sizeof(*p));
	struct timing_sched *s;
	int e;

	if (p == NULL)
		return NULL;
	for (uint64_t k = 0; k < t->n; k++) {
		p[k].ts_ns = t->recs[k].ts_ns;
		p[k].len = t->recs[k].caplen;
	}
	s = timing_sched_new(p, t->n, o);
	e = errno;
	free(p);
	errno = e;
	return s;
}

void replay_stall_start(struct replay_stall *s, uint64_t now_ns, uint64_t timeout_ns)
{
	s->timeout_ns = timeout_ns;
	dp_watch_start(&s->w, now_ns, REPLAY_GAP_NS);
}

bool replay_stall_over(struct replay_stall *s, uint64_t now_ns)
{
	return dp_watch_look(&s->w, now_ns) >= s->timeout_ns;
}
