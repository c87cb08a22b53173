/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deterministic pseudo-random numbers for simulation, fault injection and
 * traffic generation: splitmix64 seeding and xoshiro256**. Every user keeps
 * its own state, derived from the run's seed and its own id, so adding a
 * component does not change the draws of the others.
 */
#ifndef SEGNET_DP_RAND_H
#define SEGNET_DP_RAND_H

#include <stdint.h>

/* State of one generator. */
struct dp_rand {
	uint64_t s[4];
};

/* One splitmix64 step: used to expand seeds. */
static inline uint64_t dp_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Seed a generator from a run seed and a stream id. */
static inline void dp_rand_seed(struct dp_rand *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xD1342543DE82EF95ull);

	for (int i = 0; i < 4; i++)
		r->s[i] = dp_splitmix64(&x);
}

/* Rotate left. */
static inline uint64_t dp_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Next 64 random bits (xoshiro256**). */
static inline uint64_t dp_rand_u64(struct dp_rand *r)
{
	uint64_t *s = r->s;
	uint64_t out = dp_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = dp_rotl(s[3], 45);
	return out;
}

/* Uniform double in [0, 1). */
static inline double dp_rand_unit(struct dp_rand *r)
{
	return (double)(dp_rand_u64(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n) for n > 0. */
static inline uint64_t dp_rand_below(struct dp_rand *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)dp_rand_u64(r) * n) >> 64);
}

#endif
