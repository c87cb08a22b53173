/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Least Choice First. Phase 1 pre-allocates the diagonal d = slot mod n:
 * initiator i gets target (i + d) mod n when it requests it, which alone
 * bounds the wait of a continuously present request by n slots. Phase 2
 * visits the remaining targets in order from d; each goes to the requesting
 * unmatched initiator with the fewest requests to unmatched targets, ties
 * broken by a per-target round-robin pointer. Each target is visited once
 * and unmatched initiators only become fewer, so the matching is maximal.
 * doc/arbiters.md derives the bound and explains the bit-sliced counts.
 */
#include "switchd/arb.h"

enum {
	LCF_PLANES = 11,	/* bits of a choice count up to ARB_MAX_NODES */
};

/*
 * Per-instance state, sized for the largest switch (ops carry one size).
 * Choice counts are bit-sliced: bit b of plane[w][k] is bit k of the count
 * of initiator 64 * w + b, so the counts of all requesters of a target are
 * built, compared and decremented a word at a time.
 */
struct lcf_state {
	uint16_t rr[ARB_MAX_NODES];			/* per target: tie-break pointer */
	uint64_t plane[ARB_MAX_WORDS][LCF_PLANES];	/* choice counts, bit-sliced */
	uint64_t free_init[ARB_MAX_WORDS];		/* unmatched initiators */
	uint64_t free_tgt[ARB_MAX_WORDS];		/* unmatched targets */
	uint64_t wanted[ARB_MAX_WORDS];			/* free targets, free requesters */
	uint64_t low[ARB_MAX_WORDS];			/* scratch: least-choice candidates */
};

/* Next round-robin position after i among n nodes. */
static inline uint16_t lcf_after(uint16_t i, uint16_t n)
{
	return i + 1 == n ? 0 : (uint16_t)(i + 1);
}

/* Planes needed to hold counts 0 .. max. */
static inline unsigned int lcf_planes(unsigned int max)
{
	return max ? 32u - (unsigned int)__builtin_clz(max) : 0;
}

/*
 * Add one to the bit-sliced counts of the initiators in m (ripple carry).
 * Always all planes: a data-dependent early exit mispredicts more than it saves.
 */
static inline void lcf_increment(uint64_t (*plane)[LCF_PLANES], uint16_t w,
				 uint64_t m, unsigned int planes)
{
	for (unsigned int k = 0; k < planes; k++) {
		uint64_t carry = plane[w][k] & m;

		plane[w][k] ^= m;
		m = carry;
	}
}

/* Subtract one from the counts of the initiators in m, all of them >= 1. */
static inline void lcf_decrement(uint64_t (*plane)[LCF_PLANES], uint16_t w,
				 uint64_t m, unsigned int planes)
{
	for (unsigned int k = 0; k < planes; k++) {
		uint64_t p = plane[w][k];

		plane[w][k] = p ^ m;
		m &= ~p;	/* the borrow goes on where the bit was 0 */
	}
}

/* Mask of the low n bits, 1 <= n <= 64. */
static inline uint64_t lcf_low_bits(uint16_t n)
{
	return ~0ull >> (64 - n);
}

/* n <= 64: every row, column and plane is one word. */
static uint16_t lcf_match_word(struct lcf_state *s, const struct arb_req *req,
			       uint16_t n, uint16_t d, uint16_t *grant)
{
	const uint64_t *rows = req->rows, *cols = req->cols;
	uint64_t (*plane)[LCF_PLANES] = s->plane;
	uint64_t all = lcf_low_bits(n), hits = 0, free_init, free_tgt, taken;
	uint64_t wanted = 0, seg[2];
	uint16_t granted, i;
	unsigned int planes;

	/* Phase 1: bit i of hits when i requests (i + d) mod n. */
	for (i = 0; i < n - d; i++)
		hits |= ((rows[i] >> (i + d)) & 1) << i;
	for (; i < n; i++)
		hits |= ((rows[i] >> (i + d - n)) & 1) << i;
	taken = d ? ((hits << d) | (hits >> (n - d))) & all : hits;
	free_init = all & ~hits;
	free_tgt = all & ~taken;
	granted = (uint16_t)__builtin_popcountll(hits);
	for (i = 0; i < n; i++)
		grant[i] = ARB_NONE;
	for (uint64_t m = hits; m; m &= m - 1) {
		i = (uint16_t)__builtin_ctzll(m);
		grant[i] = (uint16_t)(i + d < n ? i + d : i + d - n);
	}
	/* Counts: every free target adds one to each of its free requesters. */
	planes = lcf_planes((unsigned int)__builtin_popcountll(free_tgt));
	for (unsigned int k = 0; k < planes; k++)
		plane[0][k] = 0;
	for (uint64_t m = free_tgt; m; m &= m - 1) {
		uint16_t t = (uint16_t)__builtin_ctzll(m);
		uint64_t c = cols[t] & free_init;

		if (c) {
			wanted |= 1ull << t;
			lcf_increment(plane, 0, c, planes);
		}
	}
	while (planes > 1 && !plane[0][planes - 1])
		planes--;
	/* Phase 2: targets from d upwards, then those below d. */
	seg[0] = wanted & (~0ull << d);
	seg[1] = wanted & ~(~0ull << d);
	for (int h = 0; h < 2; h++) {
		for (uint64_t m = seg[h]; m; m &= m - 1) {
			uint16_t t = (uint16_t)__builtin_ctzll(m), best;
			uint64_t cand = cols[t] & free_init, low = cand, after;

			if (!cand)
				continue;
			if (cand & (cand - 1)) {
				/* Top plane down: keep those with a 0 bit, if any. */
				for (unsigned int k = planes; k-- > 0;) {
					uint64_t z = low & ~plane[0][k];

					low = z ? z : low;
				}
				after = low & (~0ull << s->rr[t]);
				best = (uint16_t)__builtin_ctzll(after ? after : low);
				lcf_decrement(plane, 0, cand & ~(1ull << best), planes);
			} else {
				best = (uint16_t)__builtin_ctzll(cand);
			}
			grant[best] = t;
			granted++;
			s->rr[t] = lcf_after(best, n);
			free_init &= ~(1ull << best);
			if (!free_init)
				return granted;
		}
	}
	return granted;
}

/* Phase 1 for any n: the diagonal (i, (i + d) mod n). */
static inline __attribute__((always_inline)) uint16_t
lcf_diagonal(struct lcf_state *s, const struct arb_req *req, uint16_t d,
	     uint16_t *grant, const uint16_t words)
{
	uint16_t n = req->n, i;
	uint64_t *hits = s->low;

	for (uint16_t w = 0; w < words; w++) {
		hits[w] = 0;
		s->free_init[w] = ~0ull;
		s->free_tgt[w] = ~0ull;
	}
	if (n % 64) {
		s->free_init[words - 1] = lcf_low_bits(n % 64);
		s->free_tgt[words - 1] = lcf_low_bits(n % 64);
	}
	for (i = 0; i < n - d; i++) {
		uint16_t t = (uint16_t)(i + d);
		uint64_t r = req->rows[(size_t)i * words + t / 64];

		hits[i / 64] |= ((r >> (t % 64)) & 1) << (i % 64);
	}
	for (; i < n; i++) {
		uint16_t t = (uint16_t)(i + d - n);
		uint64_t r = req->rows[(size_t)i * words + t / 64];

		hits[i / 64] |= ((r >> (t % 64)) & 1) << (i % 64);
	}
	for (i = 0; i < n; i++)
		grant[i] = ARB_NONE;
	for (uint16_t w = 0; w < words; w++) {
		s->free_init[w] &= ~hits[w];
		for (uint64_t m = hits[w]; m; m &= m - 1) {
			uint16_t b = (uint16_t)(w * 64 + __builtin_ctzll(m));
			uint16_t t = (uint16_t)(b + d < n ? b + d : b + d - n);

			grant[b] = t;
			s->free_tgt[t / 64] &= ~(1ull << (t % 64));
		}
	}
	return (uint16_t)arb_mask_count(hits, words);
}

/* Bit-sliced choice counts of the free initiators; returns the planes used. */
static inline __attribute__((always_inline)) unsigned int
lcf_count_choices(struct lcf_state *s, const struct arb_req *req,
		  const uint16_t words)
{
	unsigned int planes = lcf_planes(arb_mask_count(s->free_tgt, words));
	uint64_t top = 0;

	for (uint16_t w = 0; w < words; w++) {
		s->wanted[w] = 0;
		for (unsigned int k = 0; k < planes; k++)
			s->plane[w][k] = 0;
	}
	for (uint16_t wt = 0; wt < words; wt++) {
		for (uint64_t m = s->free_tgt[wt]; m; m &= m - 1) {
			unsigned int b = (unsigned int)__builtin_ctzll(m);
			const uint64_t *col = req->cols + (size_t)(wt * 64 + b) * words;
			uint64_t any = 0;

			for (uint16_t w = 0; w < words; w++) {
				uint64_t c = col[w] & s->free_init[w];

				any |= c;
				lcf_increment(s->plane, w, c, planes);
			}
			s->wanted[wt] |= (uint64_t)(any != 0) << b;
		}
	}
	while (planes > 1) {
		for (uint16_t w = 0; w < words; w++)
			top |= s->plane[w][planes - 1];
		if (top)
			break;
		planes--;
	}
	return planes;
}

/* Phase 2 for one target t over any n; returns the winner or ARB_NONE. */
static inline __attribute__((always_inline)) uint16_t
lcf_pick(struct lcf_state *s, const struct arb_req *req, uint16_t t,
	 unsigned int planes, const uint16_t words)
{
	const uint64_t *col = req->cols + (size_t)t * words;
	uint64_t *low = s->low, z[ARB_MAX_WORDS], any = 0;
	uint64_t many = 0;	/* nonzero: more than one candidate */
	uint16_t best;

	for (uint16_t w = 0; w < words; w++) {
		low[w] = col[w] & s->free_init[w];
		many |= (uint64_t)(any && low[w]) | (low[w] & (low[w] - 1));
		any |= low[w];
	}
	if (!any)
		return ARB_NONE;
	/* Top plane down: keep those with a 0 bit, if any (skip for one candidate). */
	for (unsigned int k = planes; many && k-- > 0;) {
		uint64_t keep;

		any = 0;
		for (uint16_t w = 0; w < words; w++) {
			z[w] = low[w] & ~s->plane[w][k];
			any |= z[w];
		}
		keep = -(uint64_t)(any != 0);	/* branch-free: data decides */
		for (uint16_t w = 0; w < words; w++)
			low[w] = (z[w] & keep) | (low[w] & ~keep);
	}
	best = arb_mask_next_rr(low, words, s->rr[t]);
	s->free_init[best / 64] &= ~(1ull << (best % 64));
	if (many)
		for (uint16_t w = 0; w < words; w++)
			lcf_decrement(s->plane, w, col[w] & s->free_init[w], planes);
	return best;
}

/*
 * n > 64: the same algorithm over multi-word masks. Inlined with a
 * constant words where the word loops are worth unrolling.
 */
static inline __attribute__((always_inline)) uint16_t
lcf_match_words(struct lcf_state *s, const struct arb_req *req, uint16_t d,
		uint16_t *grant, const uint16_t words)
{
	uint16_t n = req->n, w0 = d / 64;
	uint16_t granted = lcf_diagonal(s, req, d, grant, words);
	uint64_t below = ~(~0ull << (d % 64));
	unsigned int planes = lcf_count_choices(s, req, words);

	/* Targets from d: its word's high part, the other words, its low part. */
	for (uint16_t k = 0; k <= words; k++) {
		uint16_t w = (uint16_t)((w0 + k) % words);
		uint64_t m = s->wanted[w];

		if (k == 0)
			m &= ~below;
		else if (k == words)
			m &= below;
		for (; m; m &= m - 1) {
			uint16_t t = (uint16_t)(w * 64 + __builtin_ctzll(m));
			uint16_t i = lcf_pick(s, req, t, planes, words);

			if (i == ARB_NONE)
				continue;
			grant[i] = t;
			granted++;
			s->rr[t] = lcf_after(i, n);
		}
	}
	return granted;
}

/* One slot of LCF: a fast path for n <= 64, unrolled ones up to 128. */
static uint16_t lcf_match(struct arb *a, const struct arb_req *req,
			  uint64_t slot, uint16_t *grant)
{
	uint16_t d = (uint16_t)(slot % a->n);

	switch (a->words) {
	case 1:
		return lcf_match_word(a->priv, req, a->n, d, grant);
	case 2:
		return lcf_match_words(a->priv, req, d, grant, 2);
	default:
		return lcf_match_words(a->priv, req, d, grant, a->words);
	}
}

/* Registration. */
const struct arb_ops arb_lcf_ops = {
	.name = "lcf",
	.help = "Least Choice First: rotating diagonal, then fewest requests first (maximal, bound n slots)",
	.fifo = false,
	.output = ARB_OUT_SCHEDULED,
	.priv_size = sizeof(struct lcf_state),
	.match = lcf_match,
};
