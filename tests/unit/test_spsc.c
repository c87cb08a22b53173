/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The single-producer/single-consumer ring (nicd/spsc.h): empty and full,
 * index wrap-around at 2^32, nonsense indices from the other side, and two
 * threads exchanging a million items that must arrive in order.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "nicd/spsc.h"

enum {
	T_SLOTS = 8,		/* slots of the small rings */
	T_ITEMS = 1000000,	/* items of the two-thread test */
	T_BIG = 1024,		/* slots of the two-thread ring */
};

/* A ring in "shared" memory with both views. */
struct t_ring {
	struct spsc_ring r;			/* indices */
	uint64_t slots[T_BIG];			/* elements */
	struct spsc prod;			/* producer's view */
	struct spsc cons;			/* consumer's view */
};

/* Set up a ring of size slots whose indices start at start. */
static struct t_ring *t_ring_new(uint32_t size, uint32_t start)
{
	struct t_ring *t = aligned_alloc(SPSC_CACHE_LINE, sizeof(*t));

	cr_assert_not_null(t);
	spsc_ring_reset(&t->r, start);
	cr_assert(spsc_producer_init(&t->prod, &t->r, t->slots, size, sizeof(uint64_t)));
	cr_assert(spsc_consumer_init(&t->cons, &t->r, t->slots, size, sizeof(uint64_t)));
	return t;
}

Test(spsc, sizes)
{
	struct spsc q;
	struct spsc_ring r;
	uint64_t s[4];

	cr_assert(spsc_size_ok(1));
	cr_assert(spsc_size_ok(1024));
	cr_assert_not(spsc_size_ok(0));
	cr_assert_not(spsc_size_ok(3));
	cr_assert_not(spsc_size_ok(SPSC_MAX_SLOTS * 2));
	cr_assert_eq(spsc_pow2(1), 1);
	cr_assert_eq(spsc_pow2(5), 8);
	cr_assert_eq(spsc_pow2(64), 64);
	cr_assert_not(spsc_producer_init(&q, &r, s, 3, 8), "size 3 is refused");
	cr_assert_not(spsc_consumer_init(&q, &r, s, 4, 0), "element size 0 is refused");
	cr_assert_eq(offsetof(struct spsc_ring, tail) - offsetof(struct spsc_ring, head),
		     SPSC_CACHE_LINE, "head and tail on cache lines of their own");
}

Test(spsc, empty_and_full)
{
	struct t_ring *t = t_ring_new(T_SLOTS, 0);
	uint64_t v;

	cr_assert_eq(spsc_avail(&t->cons), 0);
	cr_assert_null(spsc_front(&t->cons));
	cr_assert_not(spsc_pop(&t->cons, &v), "an empty ring gives nothing");
	cr_assert_eq(spsc_free_count(&t->prod), T_SLOTS);
	for (v = 0; v < T_SLOTS; v++)
		cr_assert(spsc_push(&t->prod, &v), "push %lu", (unsigned long)v);
	cr_assert_not(spsc_push(&t->prod, &v), "a full ring takes nothing");
	cr_assert_eq(spsc_free_count(&t->prod), 0);
	cr_assert_eq(spsc_used_count(&t->prod), T_SLOTS);
	cr_assert_eq(spsc_avail(&t->cons), T_SLOTS);
	cr_assert(spsc_pop(&t->cons, &v));
	cr_assert_eq(v, 0);
	cr_assert(spsc_push(&t->prod, &v), "one slot free again");
	for (uint64_t want = 1; want < T_SLOTS; want++) {
		cr_assert(spsc_pop(&t->cons, &v));
		cr_assert_eq(v, want);
	}
	cr_assert(spsc_pop(&t->cons, &v));
	cr_assert_eq(v, 0);
	cr_assert_not(spsc_pop(&t->cons, &v));
	cr_assert_not(t->prod.broken);
	cr_assert_not(t->cons.broken);
	free(t);
}

Test(spsc, wraps_at_2_32)
{
	struct t_ring *t = t_ring_new(T_SLOTS, UINT32_MAX - 5);
	uint64_t v, next = 0, want = 0;

	/* Indices pass 2^32 several items in; nothing may notice. */
	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < 5; i++) {
			cr_assert(spsc_push(&t->prod, &next), "push %lu", (unsigned long)next);
			next++;
		}
		cr_assert_eq(spsc_avail(&t->cons), 5);
		for (int i = 0; i < 5; i++) {
			cr_assert(spsc_pop(&t->cons, &v));
			cr_assert_eq(v, want);
			want++;
		}
	}
	cr_assert_lt(atomic_load(&t->r.head), 100u, "the head wrapped");
	cr_assert_not(t->prod.broken);
	cr_assert_not(t->cons.broken);
	free(t);
}

Test(spsc, front_and_advance)
{
	struct t_ring *t = t_ring_new(T_SLOTS, 7);
	const uint64_t *p;
	uint64_t v = 42;

	cr_assert(spsc_push(&t->prod, &v));
	p = spsc_front(&t->cons);
	cr_assert_not_null(p);
	cr_assert_eq(*p, 42);
	cr_assert_eq(spsc_used_count(&t->prod), 1, "not consumed until advance");
	spsc_advance(&t->cons);
	cr_assert_eq(spsc_used_count(&t->prod), 0);
	cr_assert_null(spsc_front(&t->cons));
	free(t);
}

Test(spsc, nonsense_from_the_peer)
{
	struct t_ring *t = t_ring_new(T_SLOTS, 0);
	uint64_t v = 1;

	/* A producer claiming more than the ring holds breaks the consumer's view. */
	atomic_store(&t->r.head, 1000);
	cr_assert_eq(spsc_avail(&t->cons), 0);
	cr_assert_null(spsc_front(&t->cons));
	cr_assert(t->cons.broken);
	/* A consumer claiming to be ahead of the producer breaks the producer's. */
	atomic_store(&t->r.head, 0);
	atomic_store(&t->r.tail, 500);
	cr_assert_not(spsc_push(&t->prod, &v));
	cr_assert(t->prod.broken);
	free(t);
}

/* Producer thread: push 0 .. T_ITEMS-1, spinning when full. */
static void *t_producer(void *arg)
{
	struct t_ring *t = arg;

	for (uint64_t i = 0; i < T_ITEMS;) {
		if (spsc_push(&t->prod, &i))
			i++;
		else
			sched_yield();	/* the consumer may share this core */
	}
	return NULL;
}

Test(spsc, two_threads_in_order, .timeout = 60)
{
	struct t_ring *t = t_ring_new(T_BIG, UINT32_MAX - 100000);
	pthread_t th;
	uint64_t v, want = 0;

	cr_assert_eq(pthread_create(&th, NULL, t_producer, t), 0);
	while (want < T_ITEMS) {
		if (!spsc_pop(&t->cons, &v)) {
			sched_yield();
			continue;
		}
		if (v != want)
			cr_assert_fail("item %lu arrived as number %lu", (unsigned long)v,
				 (unsigned long)want);
		want++;
	}
	pthread_join(th, NULL);
	cr_assert_not(spsc_pop(&t->cons, &v), "nothing beyond the last item");
	cr_assert_not(t->prod.broken);
	cr_assert_not(t->cons.broken);
	free(t);
}
