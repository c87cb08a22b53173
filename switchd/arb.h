/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bulk-channel arbiters behind one interface. An arbiter turns the request
 * matrix of a slot into grants. It works on 64-bit masks, has no DPDK
 * dependency and never reads a clock: the switch hands it the slot's
 * decision number, one more at every call (the slot number while no slot
 * boundary is skipped), which the rotating arbiters rotate with.
 * Adding an arbiter is one new arb_*.c file and one line in arb.c's table.
 */
#ifndef SEGNET_ARB_H
#define SEGNET_ARB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/proto.h"

enum {
	ARB_MAX_NODES = PROTO_MAX_NODES,
	ARB_MAX_WORDS = PROTO_MAX_NODES / 64,	/* words in a row of ARB_MAX_NODES */
	ARB_MAX_ITERATIONS = PROTO_MAX_NODES,	/* largest K of "name:K" */
	ARB_NONE = PROTO_NODE_NONE,	/* grant[i] when i gets nothing */
};

/* What the switch does with the bulk frames of a slot. */
enum arb_output {
	ARB_OUT_SCHEDULED,	/* grants are conflict-free; forward what matches */
	ARB_OUT_DROP,		/* unscheduled: first frame per output wins, rest dropped */
	ARB_OUT_BUFFER,		/* unscheduled: output-buffered, out_buffers per port */
};

/*
 * The request matrix of one slot, as rows and as columns of bit masks.
 * Row i, bit t: initiator i has bulk data for target t, and t accepts i
 * (the switch has already applied enable vectors and node liveness).
 */
struct arb_req {
	uint16_t n;		/* nodes */
	uint16_t words;		/* 64-bit words per row: (n + 63) / 64 */
	uint64_t *rows;		/* n * words: targets requested by initiator i */
	uint64_t *cols;		/* n * words: initiators requesting target t */
};

struct arb;

/* An arbiter's registration. */
struct arb_ops {
	const char *name;		/* as given to --arbiter: "lcf" */
	const char *help;		/* one line for --help */
	bool takes_iterations;		/* accepts "name:K" */
	unsigned int default_iterations;
	bool fifo;			/* nodes request only their head-of-line target */
	bool seeded;			/* makes random choices, from --seed */
	enum arb_output output;		/* how the switch treats bulk frames */
	uint16_t out_buffers;		/* ARB_OUT_BUFFER: frames per output port */
	size_t priv_size;		/* bytes of per-instance state (any n) */
	/* Set up priv for a->n nodes; 0 or -errno. NULL: zeroed priv will do. */
	int (*init)(struct arb *a);
	/*
	 * Compute the grants of a slot: grant[i] is the target initiator i may
	 * send to, or ARB_NONE. Returns the number of grants made.
	 */
	uint16_t (*match)(struct arb *a, const struct arb_req *req,
			  uint64_t slot, uint16_t *grant);
};

/* An arbiter instance. */
struct arb {
	const struct arb_ops *ops;	/* the registration */
	uint16_t n;			/* nodes */
	uint16_t words;			/* (n + 63) / 64 */
	unsigned int iterations;	/* k of iSLIP-k and PIM-k, else 1 */
	uint64_t rng;			/* xorshift state, from the seed */
	void *priv;			/* ops->priv_size bytes, zeroed */
};

/*
 * Create an arbiter from a spec such as "lcf", "islip:4" or "pim:1" for n
 * nodes. NULL with errno set and a message in err on a bad spec.
 */
struct arb *arb_create(const char *spec, uint16_t n, uint64_t seed,
		       char *err, size_t errlen);

/* Free an arbiter. */
void arb_destroy(struct arb *a);

/* Run the arbiter for one slot (req->n == a->n); returns the number of grants. */
static inline uint16_t arb_match(struct arb *a, const struct arb_req *req,
				 uint64_t slot, uint16_t *grant)
{
	return a->ops->match(a, req, slot, grant);
}

/* The registered arbiters, NULL-terminated (for --help and benchmarks). */
const struct arb_ops *const *arb_list(void);

/* Allocate an empty request matrix for n nodes; NULL with errno on failure. */
struct arb_req *arb_req_create(uint16_t n);

/* Free a request matrix. */
void arb_req_destroy(struct arb_req *req);

/* Clear every request. */
void arb_req_clear(struct arb_req *req);

/* Record that initiator i requests target t (row and column). */
static inline void arb_req_set(struct arb_req *req, uint16_t i, uint16_t t)
{
	req->rows[(size_t)i * req->words + t / 64] |= 1ull << (t % 64);
	req->cols[(size_t)t * req->words + i / 64] |= 1ull << (i % 64);
}

/* True when initiator i requests target t. */
static inline bool arb_req_test(const struct arb_req *req, uint16_t i, uint16_t t)
{
	return (req->rows[(size_t)i * req->words + t / 64] >> (t % 64)) & 1;
}

/* Row i of the matrix: the targets initiator i requests. */
static inline const uint64_t *arb_req_row(const struct arb_req *req, uint16_t i)
{
	return req->rows + (size_t)i * req->words;
}

/* Column t of the matrix: the initiators requesting target t. */
static inline const uint64_t *arb_req_col(const struct arb_req *req, uint16_t t)
{
	return req->cols + (size_t)t * req->words;
}

/* Set the low n bits of a mask of words 64-bit words, clear the rest. */
static inline void arb_mask_fill(uint64_t *m, uint16_t n, uint16_t words)
{
	for (uint16_t w = 0; w < words; w++)
		m[w] = ~0ull;
	if (n % 64)
		m[words - 1] = ~0ull >> (64 - n % 64);
}

/* Number of set bits in a mask of words 64-bit words. */
static inline unsigned int arb_mask_count(const uint64_t *m, uint16_t words)
{
	unsigned int c = 0;

	for (uint16_t w = 0; w < words; w++)
		c += (unsigned int)__builtin_popcountll(m[w]);
	return c;
}

/*
 * Round-robin pick: the first set bit of m at or after bit from, wrapping
 * past the last word; ARB_NONE when m is empty. from < words * 64.
 */
static inline uint16_t arb_mask_next_rr(const uint64_t *m, uint16_t words,
					uint16_t from)
{
	uint16_t w = from / 64;
	uint64_t bits = m[w] & (~0ull << (from % 64));

	for (uint16_t k = 0;;) {
		if (bits)
			return (uint16_t)(w * 64 + __builtin_ctzll(bits));
		if (++k > words)
			return ARB_NONE;
		if (++w == words)
			w = 0;
		bits = m[w];
	}
}

/* Round-robin pick over the intersection of masks m and other (see above). */
static inline uint16_t arb_mask_and_next_rr(const uint64_t *m, const uint64_t *other,
					    uint16_t words, uint16_t from)
{
	uint16_t w = from / 64;
	uint64_t bits = m[w] & other[w] & (~0ull << (from % 64));

	for (uint16_t k = 0;;) {
		if (bits)
			return (uint16_t)(w * 64 + __builtin_ctzll(bits));
		if (++k > words)
			return ARB_NONE;
		if (++w == words)
			w = 0;
		bits = m[w] & other[w];
	}
}

/* The k-th set bit (counting from 0) of m; ARB_NONE when m has fewer bits. */
static inline uint16_t arb_mask_nth(const uint64_t *m, uint16_t words,
				    unsigned int k)
{
	for (uint16_t w = 0; w < words; w++) {
		uint64_t bits = m[w];
		unsigned int c = (unsigned int)__builtin_popcountll(bits);

		if (k >= c) {
			k -= c;
			continue;
		}
		while (k--)
			bits &= bits - 1;
		return (uint16_t)(w * 64 + __builtin_ctzll(bits));
	}
	return ARB_NONE;
}

/* Next value of the arbiter's deterministic PRNG (xorshift64*). */
static inline uint64_t arb_rand(struct arb *a)
{
	a->rng ^= a->rng >> 12;
	a->rng ^= a->rng << 25;
	a->rng ^= a->rng >> 27;
	return a->rng * 0x2545F4914F6CDD1Dull;
}

/* A uniform value in 0 .. bound - 1 from the arbiter's PRNG (bound > 0). */
static inline uint32_t arb_rand_below(struct arb *a, uint32_t bound)
{
	return (uint32_t)(((arb_rand(a) >> 32) * bound) >> 32);
}

/* The registrations listed by arb.c's table (use arb_create by name). */
extern const struct arb_ops arb_lcf_ops;
extern const struct arb_ops arb_islip_ops;
extern const struct arb_ops arb_pim_ops;
extern const struct arb_ops arb_rr_ops;
extern const struct arb_ops arb_fifo_drop_ops;
extern const struct arb_ops arb_fifo_backpressure_ops;
extern const struct arb_ops arb_fifo_outbuf_ops;

#endif
