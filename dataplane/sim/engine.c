/* SPDX-License-Identifier: BSD-3-Clause */
/* The discrete-event engine: an event heap, actors and frame deliveries. */
#include <errno.h>
#include <stdlib.h>

#include "sim_priv.h"

/* Kinds of event, in the order they run when their times are equal. */
enum sim_ev_kind {
	SIM_EV_DELIVER = 0,	/* a frame reaches a port */
	SIM_EV_WAKE = 1,	/* an actor is polled */
};

/* One pending event. */
struct sim_event {
	uint64_t t;		/* virtual ns */
	uint64_t seq;		/* creation order, breaks ties */
	uint32_t kind;		/* enum sim_ev_kind */
	uint32_t actor;		/* SIM_EV_WAKE: who */
	struct sim_port *port;	/* SIM_EV_DELIVER: receiving port */
	struct rte_mbuf *m;	/* SIM_EV_DELIVER: the frame */
};

/* A registered actor. */
struct sim_actor {
	sim_poll_fn fn;		/* its poll */
	void *ctx;		/* passed to fn */
	uint64_t wake_at;	/* earliest pending wake, or SIM_NEVER */
	uint64_t wake_seq;	/* seq of that wake's event */
};

/* The engine. */
struct sim_engine {
	uint64_t now;			/* virtual time */
	uint64_t seq;			/* next event seq */
	uint64_t events;		/* processed so far */
	struct sim_event *heap;		/* binary min-heap */
	size_t heap_len;		/* events in the heap */
	size_t heap_cap;		/* allocated entries */
	struct sim_actor *actors;	/* by id */
	int n_actors;			/* registered */
	int cap_actors;			/* allocated */
};

/* True when event a runs before event b. */
static bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->seq < b->seq;
}

/* Insert an event; 0 or -ENOMEM. */
static int heap_push(struct sim_engine *eng, struct sim_event ev)
{
	size_t i;

	if (eng->heap_len == eng->heap_cap) {
		size_t cap = eng->heap_cap ? eng->heap_cap * 2 : 1024;
		struct sim_event *h = realloc(eng->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		eng->heap = h;
		eng->heap_cap = cap;
	}
	ev.seq = eng->seq++;
	i = eng->heap_len++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!ev_before(&ev, &eng->heap[parent]))
			break;
		eng->heap[i] = eng->heap[parent];
		i = parent;
	}
	eng->heap[i] = ev;
	return 0;
}

/* Remove and return the earliest event; the heap must not be empty. */
static struct sim_event heap_pop(struct sim_engine *eng)
{
	struct sim_event top = eng->heap[0];
	struct sim_event last = eng->heap[--eng->heap_len];
	size_t i = 0, n = eng->heap_len;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && ev_before(&eng->heap[c + 1], &eng->heap[c]))
			c++;
		if (!ev_before(&eng->heap[c], &last))
			break;
		eng->heap[i] = eng->heap[c];
		i = c;
	}
	if (n)
		eng->heap[i] = last;
	return top;
}

struct sim_engine *sim_engine_create(void)
{
	return calloc(1, sizeof(struct sim_engine));
}

void sim_engine_destroy(struct sim_engine *eng)
{
	if (!eng)
		return;
	for (size_t i = 0; i < eng->heap_len; i++)
		if (eng->heap[i].kind == SIM_EV_DELIVER)
			rte_pktmbuf_free(eng->heap[i].m);
	free(eng->heap);
	free(eng->actors);
	free(eng);
}

int sim_engine_add_actor(struct sim_engine *eng, sim_poll_fn fn, void *ctx)
{
	if (eng->n_actors == eng->cap_actors) {
		int cap = eng->cap_actors ? eng->cap_actors * 2 : 16;
		struct sim_actor *a = realloc(eng->actors, (size_t)cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		eng->actors = a;
		eng->cap_actors = cap;
	}
	eng->actors[eng->n_actors] = (struct sim_actor) {
		.fn = fn, .ctx = ctx, .wake_at = SIM_NEVER,
	};
	return eng->n_actors++;
}

void sim_engine_wake(struct sim_engine *eng, int actor, uint64_t t)
{
	struct sim_actor *a = &eng->actors[actor];

	if (t < eng->now)
		t = eng->now;
	if (t >= a->wake_at)
		return;
	a->wake_at = t;
	a->wake_seq = eng->seq;
	if (heap_push(eng, (struct sim_event) { .t = t, .kind = SIM_EV_WAKE,
						.actor = (uint32_t)actor }))
		a->wake_at = SIM_NEVER;
}

uint64_t sim_engine_now(const struct sim_engine *eng)
{
	return eng->now;
}

uint64_t sim_engine_events(const struct sim_engine *eng)
{
	return eng->events;
}

int sim_engine_deliver_at(struct sim_engine *eng, uint64_t t,
			  struct sim_port *port, struct rte_mbuf *m)
{
	return heap_push(eng, (struct sim_event) {
		.t = t, .kind = SIM_EV_DELIVER, .port = port, .m = m,
	});
}

/* Poll an actor whose wake event came due. */
static void sim_run_wake(struct sim_engine *eng, const struct sim_event *ev)
{
	struct sim_actor *a = &eng->actors[ev->actor];
	uint64_t next;

	if (ev->seq != a->wake_seq || a->wake_at != ev->t)
		return;		/* superseded by an earlier wake */
	a->wake_at = SIM_NEVER;
	next = a->fn(a->ctx, eng->now);
	if (next != SIM_NEVER)
		sim_engine_wake(eng, (int)ev->actor, next);
}

uint64_t sim_engine_run(struct sim_engine *eng, uint64_t until)
{
	uint64_t done = 0;

	while (eng->heap_len && eng->heap[0].t <= until) {
		struct sim_event ev = heap_pop(eng);

		eng->now = ev.t;
		if (ev.kind == SIM_EV_DELIVER) {
			sim_port_deliver(ev.port, ev.m);
			sim_engine_wake(eng, sim_port_owner(ev.port), eng->now);
		} else {
			sim_run_wake(eng, &ev);
		}
		done++;
	}
	if (until > eng->now && until != SIM_NEVER)
		eng->now = until;
	eng->events += done;
	return done;
}
