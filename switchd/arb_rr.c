/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Plain round-robin maximal matcher: targets in an order that rotates every
 * slot; each takes the first unmatched requesting initiator at or after its
 * pointer, and the pointer moves one past the winner. Every target is
 * visited once, so the matching is maximal; the baseline LCF improves on.
 */
#include "switchd/arb.h"

/* Per-instance state, sized for the largest switch. */
struct rr_state {
	uint16_t ptr[ARB_MAX_NODES];		/* per target: initiator favoured next */
	uint64_t free_init[ARB_MAX_WORDS];	/* unmatched initiators */
};

/* One slot: targets from slot mod n, each picks round-robin. */
static uint16_t rr_match(struct arb *a, const struct arb_req *req,
			 uint64_t slot, uint16_t *grant)
{
	struct rr_state *s = a->priv;
	uint16_t n = a->n, words = a->words, granted = 0;
	uint16_t t = (uint16_t)(slot % n);

	for (uint16_t i = 0; i < n; i++)
		grant[i] = ARB_NONE;
	for (uint16_t w = 0; w < words; w++)
		s->free_init[w] = ~0ull;
	if (n % 64)
		s->free_init[words - 1] = ~0ull >> (64 - n % 64);
	for (uint16_t k = 0; k < n && granted < n; k++) {
		uint16_t i = arb_mask_and_next_rr(arb_req_col(req, t),
						  s->free_init, words, s->ptr[t]);

		if (i != ARB_NONE) {
			grant[i] = t;
			granted++;
			s->ptr[t] = i + 1 == n ? 0 : (uint16_t)(i + 1);
			s->free_init[i / 64] &= ~(1ull << (i % 64));
		}
		t = t + 1 == n ? 0 : (uint16_t)(t + 1);
	}
	return granted;
}

/* Registration. */
const struct arb_ops arb_rr_ops = {
	.name = "rr",
	.help = "round-robin maximal matching: rotating target order, per-target pointers",
	.output = ARB_OUT_SCHEDULED,
	.priv_size = sizeof(struct rr_state),
	.match = rr_match,
};
