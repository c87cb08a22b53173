/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A single-producer/single-consumer ring of fixed-size elements for memory
 * that two processes share (nicd and an application). No locks and no
 * DPDK: C11 atomics only. The producer publishes elements with a release
 * store of its head, the consumer frees slots with a release store of its
 * tail; each reads the other's index with an acquire load. Head and tail
 * sit on cache lines of their own so the two sides never write the same
 * line.
 *
 * Only the two indices live in shared memory (struct spsc_ring). Each side
 * keeps a private view (struct spsc) with its own copy of the size, the
 * slot address and the index it owns, so a peer that scribbles on the
 * shared memory can at worst make the ring look broken, never make the
 * other side write out of bounds: an index of the peer that is further
 * than the ring's size from ours marks the view broken and reads as empty
 * (consumer) or full (producer).
 *
 * Indices are free-running 32-bit counters (slot = index & mask), so they
 * wrap around without any special case.
 */
#ifndef SEGNET_SPSC_H
#define SEGNET_SPSC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum {
	SPSC_CACHE_LINE = 64,	/* bytes of a cache line */
	SPSC_MAX_SLOTS = 1u << 24,	/* largest ring */
};

/* The shared part of a ring: the two indices, a cache line each. */
struct spsc_ring {
	_Alignas(SPSC_CACHE_LINE) _Atomic uint32_t head;	/* next slot the producer fills */
	_Alignas(SPSC_CACHE_LINE) _Atomic uint32_t tail;	/* next slot the consumer reads */
};

/* One side's private view of a ring. */
struct spsc {
	struct spsc_ring *r;	/* shared indices */
	unsigned char *slots;	/* size * esize bytes of elements */
	uint32_t mask;		/* size - 1 */
	uint32_t esize;		/* bytes per element */
	uint32_t mine;		/* the index this side owns (head or tail) */
	uint32_t peer;		/* last value read of the other side's index */
	bool broken;		/* the other side's index made no sense */
};

/* True when n is a power of two in [1, SPSC_MAX_SLOTS]. */
static inline bool spsc_size_ok(uint32_t n)
{
	return n && n <= SPSC_MAX_SLOTS && (n & (n - 1)) == 0;
}

/* Smallest power of two >= n (n in [1, SPSC_MAX_SLOTS]). */
static inline uint32_t spsc_pow2(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* Set both indices of a fresh ring to start (0, or near 2^32 in tests). */
static inline void spsc_ring_reset(struct spsc_ring *r, uint32_t start)
{
	atomic_store_explicit(&r->head, start, memory_order_relaxed);
	atomic_store_explicit(&r->tail, start, memory_order_relaxed);
}

/* Common part of attaching a view; false for a bad size. */
static inline bool spsc_attach(struct spsc *q, struct spsc_ring *r, void *slots,
			       uint32_t size, uint32_t esize)
{
	if (!spsc_size_ok(size) || !esize)
		return false;
	q->r = r;
	q->slots = slots;
	q->mask = size - 1;
	q->esize = esize;
	q->broken = false;
	return true;
}

/* Attach the producer's view (the ring must be reset, or owned before). */
static inline bool spsc_producer_init(struct spsc *q, struct spsc_ring *r,
				      void *slots, uint32_t size, uint32_t esize)
{
	if (!spsc_attach(q, r, slots, size, esize))
		return false;
	q->mine = atomic_load_explicit(&r->head, memory_order_relaxed);
	q->peer = q->mine - size;	/* looks full: the first push reads the tail */
	return true;
}

/* Attach the consumer's view. */
static inline bool spsc_consumer_init(struct spsc *q, struct spsc_ring *r,
				      void *slots, uint32_t size, uint32_t esize)
{
	if (!spsc_attach(q, r, slots, size, esize))
		return false;
	q->mine = atomic_load_explicit(&r->tail, memory_order_relaxed);
	q->peer = q->mine;	/* looks empty: the first read loads the head */
	return true;
}

/* Slots in the ring. */
static inline uint32_t spsc_size(const struct spsc *q)
{
	return q->mask + 1;
}

/* Address of the element at index i. */
static inline void *spsc_slot(const struct spsc *q, uint32_t i)
{
	return q->slots + (size_t)(i & q->mask) * q->esize;
}

/* Producer: free slots, re-reading the consumer's tail. */
static inline uint32_t spsc_free_count(struct spsc *q)
{
	uint32_t tail = atomic_load_explicit(&q->r->tail, memory_order_acquire);
	uint32_t used = q->mine - tail;

	if (used > spsc_size(q)) {
		q->broken = true;
		return 0;
	}
	q->peer = tail;
	return spsc_size(q) - used;
}

/* Producer: elements published and not yet consumed (for wake-ups). */
static inline uint32_t spsc_used_count(struct spsc *q)
{
	uint32_t n = spsc_free_count(q);

	return q->broken ? 0 : spsc_size(q) - n;
}

/* Producer: copy one element in and publish it; false when full. */
static inline bool spsc_push(struct spsc *q, const void *elem)
{
	if (q->mine - q->peer >= spsc_size(q) && !spsc_free_count(q))
		return false;
	memcpy(spsc_slot(q, q->mine), elem, q->esize);
	q->mine++;
	atomic_store_explicit(&q->r->head, q->mine, memory_order_release);
	return true;
}

/* Consumer: elements ready, re-reading the producer's head. */
static inline uint32_t spsc_avail(struct spsc *q)
{
	uint32_t head = atomic_load_explicit(&q->r->head, memory_order_acquire);
	uint32_t n = head - q->mine;

	if (n > spsc_size(q)) {
		q->broken = true;
		return 0;
	}
	q->peer = head;
	return n;
}

/* Consumer: the oldest element in place, or NULL when empty. */
static inline const void *spsc_front(struct spsc *q)
{
	if (q->peer == q->mine && !spsc_avail(q))
		return NULL;
	return spsc_slot(q, q->mine);
}

/* Consumer: done with the element spsc_front returned; free its slot. */
static inline void spsc_advance(struct spsc *q)
{
	q->mine++;
	atomic_store_explicit(&q->r->tail, q->mine, memory_order_release);
}

/* Consumer: copy the oldest element out and free its slot; false when empty. */
static inline bool spsc_pop(struct spsc *q, void *elem)
{
	const void *e = spsc_front(q);

	if (!e)
		return false;
	memcpy(elem, e, q->esize);
	spsc_advance(q);
	return true;
}

#endif
