/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parallel Iterative Matching with k iterations (Anderson et al. 1993).
 * Each iteration: every unmatched target grants a uniformly random
 * requesting unmatched initiator; every initiator accepts a uniformly random
 * grant. Randomness comes from arb_rand, so a seed replays a run exactly.
 */
#include "switchd/arb.h"

/* Per-instance state, sized for the largest switch. */
struct pim_state {
	uint16_t offer[ARB_MAX_NODES];		/* per initiator: grant kept so far */
	uint16_t offers[ARB_MAX_NODES];		/* per initiator: grants seen so far */
	uint64_t free_init[ARB_MAX_WORDS];	/* unmatched initiators */
	uint64_t free_tgt[ARB_MAX_WORDS];	/* unmatched targets */
	uint64_t offered[ARB_MAX_WORDS];	/* initiators granted this iteration */
};

/*
 * Grant step of target t: a random candidate; the initiator keeps each of
 * its grants with probability 1/(grants so far), a uniform accept choice.
 */
static void pim_grant(struct arb *a, struct pim_state *s,
		      const struct arb_req *req, uint16_t t)
{
	const uint64_t *col = arb_req_col(req, t);
	uint64_t cand[ARB_MAX_WORDS], bit;
	uint16_t words = req->words, i;
	unsigned int c;

	for (uint16_t w = 0; w < words; w++)
		cand[w] = col[w] & s->free_init[w];
	c = arb_mask_count(cand, words);
	if (!c)
		return;
	i = arb_mask_nth(cand, words, c == 1 ? 0 : arb_rand_below(a, c));
	bit = 1ull << (i % 64);
	if (!(s->offered[i / 64] & bit)) {
		s->offered[i / 64] |= bit;
		s->offers[i] = 1;
		s->offer[i] = t;
	} else if (arb_rand_below(a, ++s->offers[i]) == 0) {
		s->offer[i] = t;
	}
}

/* Accept step: every offered initiator takes the grant it kept. */
static uint16_t pim_accept(struct pim_state *s, uint16_t words, uint16_t *grant)
{
	uint16_t granted = 0;

	for (uint16_t w = 0; w < words; w++) {
		for (uint64_t m = s->offered[w]; m; m &= m - 1) {
			uint16_t i = (uint16_t)(w * 64 + __builtin_ctzll(m));
			uint16_t t = s->offer[i];

			grant[i] = t;
			granted++;
			s->free_init[i / 64] &= ~(1ull << (i % 64));
			s->free_tgt[t / 64] &= ~(1ull << (t % 64));
		}
		s->offered[w] = 0;
	}
	return granted;
}

/* One slot: up to k iterations, stop when one adds nothing. */
static uint16_t pim_match(struct arb *a, const struct arb_req *req,
			  uint64_t slot, uint16_t *grant)
{
	struct pim_state *s = a->priv;
	uint16_t n = a->n, words = a->words, granted = 0, added;

	(void)slot;
	for (uint16_t i = 0; i < n; i++)
		grant[i] = ARB_NONE;
	arb_mask_fill(s->free_init, n, words);
	arb_mask_fill(s->free_tgt, n, words);
	for (unsigned int it = 0; it < a->iterations; it++) {
		for (uint16_t w = 0; w < words; w++)
			for (uint64_t m = s->free_tgt[w]; m; m &= m - 1)
				pim_grant(a, s, req,
					  (uint16_t)(w * 64 + __builtin_ctzll(m)));
		added = pim_accept(s, words, grant);
		granted += added;
		if (!added || granted == n)
			break;
	}
	return granted;
}

/* Registration. */
const struct arb_ops arb_pim_ops = {
	.name = "pim",
	.help = "Parallel Iterative Matching with K iterations (default 4): random grant and accept",
	.takes_iterations = true,
	.default_iterations = 4,
	.seeded = true,
	.output = ARB_OUT_SCHEDULED,
	.priv_size = sizeof(struct pim_state),
	.match = pim_match,
};
