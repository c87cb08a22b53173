/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The request-grant-accept iterations that iSLIP and PIM share. Each
 * iteration every unmatched target grants one requesting unmatched
 * initiator (the arbiter's grant step, which leaves at most one offer per
 * initiator), then every offered initiator accepts its offer; stop after k
 * iterations, when one adds nothing or when every initiator is matched.
 * Inline, with the arbiter's steps passed as constants and declared
 * always_inline, so that each arbiter's match compiles to one loop without
 * calls, as when each had its own copy: this loop is on the per-slot path.
 */
#ifndef SEGNET_ARB_RGA_H
#define SEGNET_ARB_RGA_H

#include "switchd/arb.h"

/*
 * The matching state of one slot: the first member of the arbiter's
 * private state, so that its steps reach the rest from g without a load.
 */
struct arb_rga {
	uint16_t offer[ARB_MAX_NODES];		/* per initiator: the grant it will accept */
	uint64_t free_init[ARB_MAX_WORDS];	/* unmatched initiators */
	uint64_t free_tgt[ARB_MAX_WORDS];	/* unmatched targets */
	uint64_t offered[ARB_MAX_WORDS];	/* initiators granted this iteration */
};

/*
 * Grant step of target t, whose column of the request matrix is col (n
 * nodes, words per column): record an offer at one candidate, or none.
 */
typedef void arb_rga_grant_fn(struct arb *a, struct arb_rga *g, const uint64_t *col,
			      uint16_t n, uint16_t words, uint16_t t);

/* Called when initiator i accepts target t in the first iteration (n nodes). */
typedef void arb_rga_first_accept_fn(struct arb_rga *g, uint16_t n, uint16_t i,
				     uint16_t t);

/* True when initiator i has an offer this iteration. */
static inline bool arb_rga_has_offer(const struct arb_rga *g, uint16_t i)
{
	return (g->offered[i / 64] >> (i % 64)) & 1;
}

/* Initiator i's offer this iteration is now target t. */
static inline void arb_rga_offer(struct arb_rga *g, uint16_t i, uint16_t t)
{
	g->offer[i] = t;
	g->offered[i / 64] |= 1ull << (i % 64);
}

/*
 * Accept step: every offered initiator takes its offer; returns how many.
 * first (may be NULL) is called for each accept.
 */
static inline uint16_t arb_rga_accept(struct arb_rga *g, uint16_t n, uint16_t words,
				      arb_rga_first_accept_fn *first, uint16_t *grant)
{
	uint16_t granted = 0;

	for (uint16_t w = 0; w < words; w++) {
		for (uint64_t m = g->offered[w]; m; m &= m - 1) {
			uint16_t i = (uint16_t)(w * 64 + __builtin_ctzll(m));
			uint16_t t = g->offer[i];

			grant[i] = t;
			granted++;
			g->free_init[i / 64] &= ~(1ull << (i % 64));
			g->free_tgt[t / 64] &= ~(1ull << (t % 64));
			if (first)
				first(g, n, i, t);
		}
		g->offered[w] = 0;
	}
	return granted;
}

/*
 * One slot of up to a->iterations iterations. first (may be NULL) sees the
 * accepts of the first iteration only. Returns the number of grants.
 */
static inline uint16_t arb_rga_match(struct arb *a, struct arb_rga *g,
				     const struct arb_req *req,
				     arb_rga_grant_fn *grant_step,
				     arb_rga_first_accept_fn *first,
				     uint16_t *grant)
{
	uint16_t n = a->n, words = a->words, granted = 0, added;
	const uint64_t *cols = req->cols;

	for (uint16_t i = 0; i < n; i++)
		grant[i] = ARB_NONE;
	arb_mask_fill(g->free_init, n, words);
	arb_mask_fill(g->free_tgt, n, words);
	for (unsigned int it = 0; it < a->iterations; it++) {
		for (uint16_t w = 0; w < words; w++) {
			for (uint64_t m = g->free_tgt[w]; m; m &= m - 1) {
				uint16_t t = (uint16_t)(w * 64 + __builtin_ctzll(m));

				grant_step(a, g, cols + (size_t)t * words, n, words, t);
			}
		}
		/* Two calls, so that each inlines with first a constant. */
		added = it == 0 ? arb_rga_accept(g, n, words, first, grant) :
			arb_rga_accept(g, n, words, NULL, grant);
		granted += added;
		if (!added || granted == n)
			break;
	}
	return granted;
}

#endif
