/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iSLIP with k iterations (McKeown 1999). Each iteration: every unmatched
 * target grants the first requesting unmatched initiator at or after its
 * grant pointer; every initiator accepts the first granting target at or
 * after its accept pointer. Pointers move one past the partner, and only
 * for accepts of the first iteration, which is what desynchronises them.
 */
#include "switchd/arb_rga.h"

/* Per-instance state, sized for the largest switch. */
struct islip_state {
	struct arb_rga g;			/* n > 64: the shared iterations' state; first */
	uint16_t grant_ptr[ARB_MAX_NODES];	/* per target: initiator favoured next */
	uint16_t accept_ptr[ARB_MAX_NODES];	/* per initiator: target favoured next */
	uint16_t offer_dist[ARB_MAX_NODES];	/* per initiator: its offer's distance past accept_ptr */
	uint64_t granted_by[64];		/* n <= 64: per initiator, targets granting it */
};

_Static_assert(offsetof(struct islip_state, g) == 0, "arb_rga must come first");

/* Grant step of one target t: keep the offer nearest the initiator's accept_ptr. */
static inline __attribute__((always_inline)) void
islip_grant(struct arb *a, struct arb_rga *g, const uint64_t *col, uint16_t n,
	    uint16_t words, uint16_t t)
{
	struct islip_state *s = (struct islip_state *)g;
	uint16_t i, dist;

	(void)a;
	i = arb_mask_and_next_rr(col, g->free_init, words, s->grant_ptr[t]);
	if (i == ARB_NONE)
		return;
	dist = t >= s->accept_ptr[i] ? t - s->accept_ptr[i] :
		(uint16_t)(t + n - s->accept_ptr[i]);
	if (!arb_rga_has_offer(g, i) || dist < s->offer_dist[i]) {
		arb_rga_offer(g, i, t);
		s->offer_dist[i] = dist;
	}
}

/* A first-iteration accept moves both pointers one past the partner. */
static inline __attribute__((always_inline)) void
islip_move_pointers(struct islip_state *s, uint16_t n, uint16_t i, uint16_t t)
{
	s->grant_ptr[t] = i + 1 == n ? 0 : (uint16_t)(i + 1);
	s->accept_ptr[i] = t + 1 == n ? 0 : (uint16_t)(t + 1);
}

/* The same, as the shared iterations call it. */
static inline __attribute__((always_inline)) void
islip_first_accept(struct arb_rga *g, uint16_t n, uint16_t i, uint16_t t)
{
	islip_move_pointers((struct islip_state *)g, n, i, t);
}

/* First set bit of m at or after bit from, wrapping; m != 0. */
static inline uint16_t islip_rr_word(uint64_t m, uint16_t from)
{
	uint64_t after = m >> from << from;	/* no mask constant to keep in a register */

	return (uint16_t)__builtin_ctzll(after ? after : m);
}

/* n <= 64: grants collected per initiator as one mask, accepts from it. */
static uint16_t islip_match_word(struct islip_state *s, const struct arb_req *req,
				 uint16_t n, unsigned int k, uint16_t *grant)
{
	const uint64_t *cols = req->cols;
	uint64_t free_init = ~0ull >> (64 - n), free_tgt = free_init;
	uint16_t granted = 0;

	for (uint16_t i = 0; i < n; i++)
		grant[i] = ARB_NONE;
	for (unsigned int it = 0; it < k; it++) {
		uint64_t offered = 0;

		for (uint64_t m = free_tgt; m; m &= m - 1) {
			uint16_t t = (uint16_t)__builtin_ctzll(m), i;
			uint64_t cand = cols[t] & free_init;

			if (!cand)
				continue;
			i = islip_rr_word(cand, s->grant_ptr[t]);
			s->granted_by[i] = (offered >> i) & 1 ?
				s->granted_by[i] | 1ull << t : 1ull << t;
			offered |= 1ull << i;
		}
		if (!offered)
			break;
		for (uint64_t m = offered; m; m &= m - 1) {
			uint16_t i = (uint16_t)__builtin_ctzll(m);
			uint16_t t = islip_rr_word(s->granted_by[i], s->accept_ptr[i]);

			grant[i] = t;
			granted++;
			free_tgt &= ~(1ull << t);
			if (it == 0)
				islip_move_pointers(s, n, i, t);
		}
		free_init &= ~offered;
		if (!free_init)
			break;
	}
	return granted;
}

/* One slot: up to k request-grant-accept iterations, stop when none adds. */
static uint16_t islip_match(struct arb *a, const struct arb_req *req,
			    uint64_t slot, uint16_t *grant)
{
	struct islip_state *s = a->priv;
	uint16_t n = a->n, words = a->words;

	(void)slot;
	if (words == 1)
		return islip_match_word(s, req, n, a->iterations, grant);
	return arb_rga_match(a, &s->g, req, islip_grant, islip_first_accept,
			     grant);
}

/* Registration. */
const struct arb_ops arb_islip_ops = {
	.name = "islip",
	.help = "iSLIP with K iterations (default 4): round-robin grant and accept pointers",
	.takes_iterations = true,
	.default_iterations = 4,
	.output = ARB_OUT_SCHEDULED,
	.priv_size = sizeof(struct islip_state),
	.match = islip_match,
};
