/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parallel Iterative Matching with k iterations (Anderson et al. 1993).
 * Each iteration: every unmatched target grants a uniformly random
 * requesting unmatched initiator; every initiator accepts a uniformly random
 * grant. Randomness comes from arb_rand, so a seed replays a run exactly.
 */
#include "switchd/arb_rga.h"

/* Per-instance state, sized for the largest switch. */
struct pim_state {
	struct arb_rga g;			/* the shared iterations' state: first */
	uint16_t offers[ARB_MAX_NODES];		/* per initiator: grants seen so far */
};

_Static_assert(offsetof(struct pim_state, g) == 0, "arb_rga must come first");

/*
 * Grant step of target t: a random candidate; the initiator keeps each of
 * its grants with probability 1/(grants so far), a uniform accept choice.
 */
static inline __attribute__((always_inline)) void
pim_grant(struct arb *a, struct arb_rga *g, const uint64_t *col, uint16_t n,
	  uint16_t words, uint16_t t)
{
	struct pim_state *s = (struct pim_state *)g;
	uint64_t cand[ARB_MAX_WORDS];
	uint16_t i;
	unsigned int c;

	(void)n;
	for (uint16_t w = 0; w < words; w++)
		cand[w] = col[w] & g->free_init[w];
	c = arb_mask_count(cand, words);
	if (!c)
		return;
	i = arb_mask_nth(cand, words, c == 1 ? 0 : arb_rand_below(a, c));
	if (!arb_rga_has_offer(g, i)) {
		s->offers[i] = 1;
		arb_rga_offer(g, i, t);
	} else if (arb_rand_below(a, ++s->offers[i]) == 0) {
		g->offer[i] = t;
	}
}

/* One slot: up to k iterations, stop when one adds nothing. */
static uint16_t pim_match(struct arb *a, const struct arb_req *req,
			  uint64_t slot, uint16_t *grant)
{
	struct pim_state *s = a->priv;

	(void)slot;
	return arb_rga_match(a, &s->g, req, pim_grant, NULL, grant);
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
