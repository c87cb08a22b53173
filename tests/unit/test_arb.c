/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Arbiters: grant validity, conflict freedom, maximality, LCF's starvation
 * bound under adversarial requests, determinism, spec parsing. Random
 * matrices come from a fixed seed, printed by every test that uses it; set
 * SEGNET_TEST_SEED to replay another.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "switchd/arb.h"

enum {
	TEST_SEED = 0x5E6E7A7B,		/* default matrix seed */
	TEST_MAX_SPECS = 16,
};

/* Node counts every arbiter is checked at: edges of the 64-bit words. */
static const uint16_t test_sizes[] = { 1, 2, 3, 16, 63, 64, 65, 128, 1024 };

/* Request densities in per mille: sparse, saturated, full. */
static const unsigned int test_loads[] = { 50, 500, 1000 };

/* Extra specs besides every registered name with its default K. */
static const char *const test_extra_specs[] = { "islip:1", "pim:1" };

/* The matrix seed: SEGNET_TEST_SEED or TEST_SEED, logged once per test. */
static uint64_t test_seed(void)
{
	const char *env = getenv("SEGNET_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : TEST_SEED;

	cr_log_info("matrix seed 0x%llx (SEGNET_TEST_SEED to change)",
		    (unsigned long long)seed);
	return seed;
}

/* The test's own generator (splitmix64), independent of the arbiters'. */
static uint64_t test_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Fill req at random: each pair with load per mille, or one head per row. */
static void test_fill(struct arb_req *req, unsigned int load, bool fifo,
		      uint64_t *rng)
{
	arb_req_clear(req);
	for (uint16_t i = 0; i < req->n; i++) {
		if (fifo) {
			if (test_rand(rng) % 1000 < load)
				arb_req_set(req, i,
					    (uint16_t)(test_rand(rng) % req->n));
			continue;
		}
		for (uint16_t t = 0; t < req->n; t++)
			if (load >= 1000 || test_rand(rng) % 1000 < load)
				arb_req_set(req, i, t);
	}
}

/* Every spec under test: the registry's names, then the extra specs. */
static unsigned int test_specs(const char **specs)
{
	unsigned int c = 0;

	for (const struct arb_ops *const *o = arb_list(); *o; o++)
		specs[c++] = (*o)->name;
	for (size_t k = 0; k < sizeof(test_extra_specs) / sizeof(*test_extra_specs); k++)
		specs[c++] = test_extra_specs[k];
	return c;
}

/* Create an arbiter or fail the test with its message. */
static struct arb *test_arb(const char *spec, uint16_t n, uint64_t seed)
{
	char err[256];
	struct arb *a = arb_create(spec, n, seed, err, sizeof(err));

	cr_assert_not_null(a, "arb_create(%s, %u): %s", spec, n, err);
	return a;
}

/* True for the arbiters whose matchings must be maximal. */
static bool test_wants_maximal(const struct arb *a)
{
	return a->ops == &arb_lcf_ops || a->ops == &arb_rr_ops ||
		(a->ops == &arb_islip_ops && a->iterations >= a->n);
}

/*
 * Check one slot's grants: count, only requested pairs, conflict-free when
 * scheduled, maximal where promised, every head granted when unscheduled.
 */
static void test_check(const struct arb *a, const struct arb_req *req,
		       const uint16_t *grant, uint16_t count, uint64_t slot)
{
	uint64_t taken[ARB_MAX_WORDS] = { 0 };
	uint16_t n = req->n, made = 0;

	for (uint16_t i = 0; i < n; i++) {
		uint16_t t = grant[i];

		if (t == ARB_NONE)
			continue;
		made++;
		if (t >= n || !arb_req_test(req, i, t))
			cr_assert_fail("%s n=%u slot %llu: %u granted unrequested %u",
				       a->ops->name, n, (unsigned long long)slot, i, t);
		if (a->ops->output == ARB_OUT_SCHEDULED &&
		    (taken[t / 64] >> (t % 64)) & 1)
			cr_assert_fail("%s n=%u slot %llu: target %u granted twice",
				       a->ops->name, n, (unsigned long long)slot, t);
		taken[t / 64] |= 1ull << (t % 64);
	}
	cr_assert_eq(made, count, "%s n=%u slot %llu: returned %u, granted %u",
		     a->ops->name, n, (unsigned long long)slot, count, made);
	for (uint16_t i = 0; i < n; i++) {
		const uint64_t *row = arb_req_row(req, i);
		uint64_t left = 0;

		if (grant[i] != ARB_NONE)
			continue;
		for (uint16_t w = 0; w < req->words; w++)
			left |= a->ops->output == ARB_OUT_SCHEDULED ?
				row[w] & ~taken[w] : row[w];
		if (left && (a->ops->output != ARB_OUT_SCHEDULED ||
			     test_wants_maximal(a)))
			cr_assert_fail("%s n=%u slot %llu: %u left out, not maximal",
				       a->ops->name, n, (unsigned long long)slot, i);
	}
}

Test(arb_req, create_and_set)
{
	struct arb_req *req = arb_req_create(65);

	cr_assert_not_null(req);
	cr_assert_eq(req->n, 65);
	cr_assert_eq(req->words, 2);
	arb_req_set(req, 64, 3);
	arb_req_set(req, 0, 64);
	cr_assert(arb_req_test(req, 64, 3));
	cr_assert(arb_req_test(req, 0, 64));
	cr_assert_not(arb_req_test(req, 3, 64));
	cr_assert_eq(arb_req_col(req, 3)[1], 1);
	cr_assert_eq(arb_req_row(req, 0)[1], 1);
	arb_req_clear(req);
	cr_assert_not(arb_req_test(req, 64, 3));
	cr_assert_eq(arb_req_col(req, 3)[1], 0);
	arb_req_destroy(req);
	errno = 0;
	cr_assert_null(arb_req_create(0));
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(arb_req_create(ARB_MAX_NODES + 1));
	req = arb_req_create(ARB_MAX_NODES);
	cr_assert_not_null(req);
	cr_assert_eq(req->words, ARB_MAX_WORDS);
	arb_req_destroy(req);
}

Test(arb_req, mask_helpers)
{
	uint64_t m[2] = { 1ull << 5 | 1ull << 40, 1ull << 2 };
	uint64_t other[2] = { ~0ull, 0 };

	cr_assert_eq(arb_mask_count(m, 2), 3);
	cr_assert_eq(arb_mask_next_rr(m, 2, 0), 5);
	cr_assert_eq(arb_mask_next_rr(m, 2, 5), 5);
	cr_assert_eq(arb_mask_next_rr(m, 2, 6), 40);
	cr_assert_eq(arb_mask_next_rr(m, 2, 41), 66);
	cr_assert_eq(arb_mask_next_rr(m, 2, 67), 5);
	cr_assert_eq(arb_mask_and_next_rr(m, other, 2, 41), 5);
	cr_assert_eq(arb_mask_nth(m, 2, 0), 5);
	cr_assert_eq(arb_mask_nth(m, 2, 2), 66);
	cr_assert_eq(arb_mask_nth(m, 2, 3), ARB_NONE);
	m[0] = m[1] = 0;
	cr_assert_eq(arb_mask_next_rr(m, 2, 9), ARB_NONE);
	m[0] = 1ull << 3;
	cr_assert_eq(arb_mask_next_rr(m, 1, 3), 3);
	cr_assert_eq(arb_mask_next_rr(m, 1, 4), 3);
}

Test(arb_spec, registry)
{
	const char *names[] = { "lcf", "islip", "pim", "rr", "fifo-drop",
				"fifo-backpressure", "fifo-outbuf" };
	const struct arb_ops *const *o = arb_list();
	size_t c = 0;

	for (; o[c]; c++) {
		cr_assert(c < sizeof(names) / sizeof(*names));
		cr_assert_str_eq(o[c]->name, names[c]);
		cr_assert_not_null(o[c]->help);
		cr_assert_not_null(o[c]->match);
	}
	cr_assert_eq(c, sizeof(names) / sizeof(*names));
	cr_assert(arb_fifo_drop_ops.fifo && arb_fifo_drop_ops.output == ARB_OUT_DROP);
	cr_assert(arb_fifo_backpressure_ops.fifo &&
		  arb_fifo_backpressure_ops.output == ARB_OUT_SCHEDULED);
	cr_assert(arb_fifo_outbuf_ops.fifo &&
		  arb_fifo_outbuf_ops.output == ARB_OUT_BUFFER);
	cr_assert_eq(arb_fifo_outbuf_ops.out_buffers, 16);
	cr_assert(!arb_lcf_ops.fifo && !arb_lcf_ops.takes_iterations);
	cr_assert(arb_islip_ops.takes_iterations && arb_pim_ops.takes_iterations);
}

Test(arb_spec, good)
{
	struct arb *a = test_arb("islip:4", 16, 1);

	cr_assert_eq(a->ops, &arb_islip_ops);
	cr_assert_eq(a->iterations, 4);
	cr_assert_eq(a->n, 16);
	cr_assert_eq(a->words, 1);
	arb_destroy(a);
	a = test_arb("pim:1", 65, 1);
	cr_assert_eq(a->iterations, 1);
	cr_assert_eq(a->words, 2);
	arb_destroy(a);
	a = test_arb("islip", 3, 1);
	cr_assert_eq(a->iterations, arb_islip_ops.default_iterations);
	arb_destroy(a);
	a = test_arb("lcf", 1024, 1);
	cr_assert_eq(a->iterations, 1);
	cr_assert_eq(a->words, 16);
	arb_destroy(a);
	a = test_arb("islip:1024", 4, 1);
	arb_destroy(a);
	a = arb_create("rr", 1, 1, NULL, 0);
	cr_assert_not_null(a, "n=1 is a valid switch");
	arb_destroy(a);
}

/* arb_create(spec, n) must fail with EINVAL and a message holding want. */
static void test_bad(const char *spec, uint16_t n, const char *want)
{
	char err[256] = "untouched";
	struct arb *a;

	errno = 0;
	a = arb_create(spec, n, 1, err, sizeof(err));
	cr_assert_null(a, "'%s' n=%u accepted", spec ? spec : "(null)", n);
	cr_assert_eq(errno, EINVAL, "'%s': errno %d", spec ? spec : "(null)", errno);
	cr_assert(strstr(err, want), "'%s' n=%u: message '%s' lacks '%s'",
		  spec ? spec : "(null)", n, err, want);
	cr_log_info("rejected '%s' n=%u: %s", spec ? spec : "(null)", n, err);
}

Test(arb_spec, bad)
{
	const char *valid = "valid: lcf, islip[:K], pim[:K], rr, fifo-drop, fifo-backpressure, fifo-outbuf";

	test_bad("foo", 16, "unknown arbiter 'foo'");
	test_bad("foo", 16, valid);
	test_bad("LCF", 16, "unknown arbiter 'LCF'");
	test_bad("lcf ", 16, "unknown arbiter 'lcf '");
	test_bad("fifo", 16, "unknown arbiter 'fifo'");
	test_bad("", 16, "empty arbiter spec");
	test_bad(NULL, 16, valid);
	test_bad("lcf:3", 16, "arbiter 'lcf' takes no iteration count (got 'lcf:3')");
	test_bad("rr:1", 16, "arbiter 'rr' takes no iteration count");
	test_bad("fifo-drop:2", 16, "takes no iteration count");
	test_bad("islip:0", 16, "arbiter 'islip': iteration count '0' is not an integer in 1..1024");
	test_bad("islip:x", 16, "iteration count 'x' is not an integer");
	test_bad("islip:", 16, "iteration count '' is not an integer");
	test_bad("islip:4x", 16, "iteration count '4x'");
	test_bad("islip:-1", 16, "iteration count '-1'");
	test_bad("islip:+4", 16, "iteration count '+4'");
	test_bad("pim:1025", 16, "iteration count '1025'");
	test_bad("pim:99999999999999999999", 16, "is not an integer");
	test_bad("islip:4:4", 16, "iteration count '4:4'");
	test_bad("lcf", 0, "node count 0 out of range 1..1024");
	test_bad("islip:2", ARB_MAX_NODES + 1, "node count 1025 out of range");
	/* No message buffer: still NULL and EINVAL. */
	errno = 0;
	cr_assert_null(arb_create("nope", 16, 1, NULL, 0));
	cr_assert_eq(errno, EINVAL);
}

/* Run every spec over random matrices at every size and load; check each slot. */
Test(arb_all, valid_grants, .timeout = 100)
{
	const char *specs[TEST_MAX_SPECS];
	unsigned int nspecs = test_specs(specs);
	uint64_t rng = test_seed();
	static uint16_t grant[ARB_MAX_NODES];

	for (size_t z = 0; z < sizeof(test_sizes) / sizeof(*test_sizes); z++) {
		uint16_t n = test_sizes[z];
		unsigned int slots = n >= 1024 ? 3 : n >= 128 ? 12 : 40;
		struct arb_req *req = arb_req_create(n), *hol = arb_req_create(n);
		struct arb *a[TEST_MAX_SPECS];

		cr_assert(req && hol);
		for (unsigned int k = 0; k < nspecs; k++)
			a[k] = test_arb(specs[k], n, 7);
		for (size_t l = 0; l < sizeof(test_loads) / sizeof(*test_loads); l++) {
			for (uint64_t slot = 0; slot < slots; slot++) {
				test_fill(req, test_loads[l], false, &rng);
				test_fill(hol, test_loads[l], true, &rng);
				for (unsigned int k = 0; k < nspecs; k++) {
					struct arb_req *r = a[k]->ops->fifo ? hol : req;
					uint16_t c = arb_match(a[k], r, slot, grant);

					test_check(a[k], r, grant, c, slot);
				}
			}
		}
		for (unsigned int k = 0; k < nspecs; k++)
			arb_destroy(a[k]);
		arb_req_destroy(req);
		arb_req_destroy(hol);
	}
}

Test(arb_all, empty_and_single)
{
	const char *specs[TEST_MAX_SPECS];
	unsigned int nspecs = test_specs(specs);
	uint16_t grant[70];
	struct arb_req *req = arb_req_create(70);

	for (unsigned int k = 0; k < nspecs; k++) {
		struct arb *a = test_arb(specs[k], 70, 3);

		arb_req_clear(req);
		cr_assert_eq(arb_match(a, req, 5, grant), 0, "%s", specs[k]);
		for (uint16_t i = 0; i < 70; i++)
			cr_assert_eq(grant[i], ARB_NONE, "%s: %u", specs[k], i);
		arb_req_set(req, 69, 66);
		cr_assert_eq(arb_match(a, req, 6, grant), 1, "%s", specs[k]);
		cr_assert_eq(grant[69], 66, "%s", specs[k]);
		arb_destroy(a);
	}
	arb_req_destroy(req);
}

Test(arb_all, islip_n_iterations_maximal)
{
	uint64_t rng = test_seed();
	uint16_t grant[65];

	for (uint16_t n = 1; n <= 65; n += 16) {
		char spec[32];
		struct arb *a;
		struct arb_req *req = arb_req_create(n);

		snprintf(spec, sizeof(spec), "islip:%u", n);
		a = test_arb(spec, n, 1);
		for (uint64_t slot = 0; slot < 50; slot++) {
			test_fill(req, 300, false, &rng);
			test_check(a, req, grant, arb_match(a, req, slot, grant), slot);
		}
		arb_destroy(a);
		arb_req_destroy(req);
	}
}

/* Run spec from seeds s1 and s2 over one matrix stream; slots that differ. */
static unsigned long test_replay(const char *spec, uint16_t n, uint64_t s1,
				 uint64_t s2)
{
	struct arb *a = test_arb(spec, n, s1), *b = test_arb(spec, n, s2);
	struct arb_req *req = arb_req_create(n);
	uint16_t ga[128], gb[128];
	uint64_t rng = TEST_SEED;
	unsigned long differ = 0;

	for (uint64_t slot = 0; slot < 100; slot++) {
		test_fill(req, 500, a->ops->fifo, &rng);
		uint16_t ca = arb_match(a, req, slot, ga);
		uint16_t cb = arb_match(b, req, slot, gb);

		differ += ca != cb || memcmp(ga, gb, n * sizeof(*ga)) != 0;
	}
	arb_destroy(a);
	arb_destroy(b);
	arb_req_destroy(req);
	return differ;
}

Test(arb_all, deterministic)
{
	const char *specs[TEST_MAX_SPECS];
	unsigned int nspecs = test_specs(specs);

	test_seed();
	for (unsigned int k = 0; k < nspecs; k++) {
		cr_assert_eq(test_replay(specs[k], 16, 42, 42), 0, "%s", specs[k]);
		cr_assert_eq(test_replay(specs[k], 100, 9, 9), 0, "%s", specs[k]);
	}
	/* PIM does depend on its seed. */
	cr_assert_gt(test_replay("pim:1", 16, 42, 43), 0);
	cr_assert_gt(test_replay("pim", 100, 42, 43), 0);
}

Test(arb_lcf, full_matrix_is_the_diagonal)
{
	uint16_t grant[65];

	for (uint16_t n = 1; n <= 65; n += 8) {
		struct arb *a = test_arb("lcf", n, 1);
		struct arb_req *req = arb_req_create(n);

		for (uint16_t i = 0; i < n; i++)
			for (uint16_t t = 0; t < n; t++)
				arb_req_set(req, i, t);
		for (uint64_t slot = 0; slot < 2u * n; slot++) {
			cr_assert_eq(arb_match(a, req, slot, grant), n);
			for (uint16_t i = 0; i < n; i++)
				cr_assert_eq(grant[i], (i + slot) % n);
		}
		arb_destroy(a);
		arb_req_destroy(req);
	}
}

Test(arb_lcf, least_choice_wins)
{
	struct arb *lcf = test_arb("lcf", 4, 1), *rr = test_arb("rr", 4, 1);
	struct arb_req *req = arb_req_create(4);
	uint16_t grant[4];

	/* Slot 0: the diagonal (i, i) is not requested, so least choice decides. */
	arb_req_set(req, 0, 2);
	arb_req_set(req, 0, 3);
	arb_req_set(req, 1, 2);
	cr_assert_eq(arb_match(lcf, req, 0, grant), 2);
	cr_assert_eq(grant[0], 3);
	cr_assert_eq(grant[1], 2, "initiator 1 has one choice: it gets target 2");
	/* Round-robin gives target 2 to initiator 0 and leaves 1 without. */
	cr_assert_eq(arb_match(rr, req, 0, grant), 1);
	cr_assert_eq(grant[0], 2);
	arb_destroy(lcf);
	arb_destroy(rr);
	arb_req_destroy(req);
}

Test(arb_lcf, ties_round_robin)
{
	struct arb *a = test_arb("lcf", 4, 1);
	struct arb_req *req = arb_req_create(4);
	uint16_t grant[4];

	/* 0, 1, 2 want only target 3; at slots 0 mod 4 the diagonal misses them. */
	for (uint16_t i = 0; i < 3; i++)
		arb_req_set(req, i, 3);
	for (uint64_t k = 0; k < 6; k++) {
		cr_assert_eq(arb_match(a, req, 4 * k, grant), 1);
		cr_assert_eq(grant[k % 3], 3, "slot %llu: winner should be %llu",
			     (unsigned long long)(4 * k), (unsigned long long)(k % 3));
	}
	arb_destroy(a);
	arb_req_destroy(req);
}

/*
 * Run LCF for slots slots with pattern() building each slot's matrix, in
 * which victim v always requests target t; return the longest run of
 * consecutive slots without the grant (v, t), counting the granted slot.
 */
static unsigned int test_lcf_wait(uint16_t n, uint16_t v, uint16_t t,
				  unsigned int slots,
				  void (*pattern)(struct arb_req *, uint16_t, uint16_t, uint64_t *))
{
	struct arb *a = test_arb("lcf", n, 1);
	struct arb_req *req = arb_req_create(n);
	static uint16_t grant[ARB_MAX_NODES];
	unsigned int wait = 0, worst = 0;
	uint64_t rng = TEST_SEED ^ n;

	for (uint64_t slot = 0; slot < slots; slot++) {
		pattern(req, v, t, &rng);
		cr_assert(arb_req_test(req, v, t));
		test_check(a, req, grant, arb_match(a, req, slot, grant), slot);
		wait++;
		if (grant[v] == t) {
			worst = wait > worst ? wait : worst;
			wait = 0;
		}
		cr_assert_leq(wait, n, "n=%u: (%u, %u) waited %u slots > bound %u",
			      n, v, t, wait, n);
	}
	arb_destroy(a);
	arb_req_destroy(req);
	return worst;
}

/* Victim requests t and u; everyone else only t, so always has less choice. */
static void test_pattern_crowd(struct arb_req *req, uint16_t v, uint16_t t,
			       uint64_t *rng)
{
	(void)rng;
	arb_req_clear(req);
	for (uint16_t i = 0; i < req->n; i++)
		if (i != v)
			arb_req_set(req, i, t);
	arb_req_set(req, v, t);
	arb_req_set(req, v, (uint16_t)((t + 1) % req->n));
}

/* Victim requests every target; everyone else only t. */
static void test_pattern_greedy(struct arb_req *req, uint16_t v, uint16_t t,
				uint64_t *rng)
{
	(void)rng;
	arb_req_clear(req);
	for (uint16_t i = 0; i < req->n; i++)
		arb_req_set(req, i, t);
	for (uint16_t u = 0; u < req->n; u++)
		arb_req_set(req, v, u);
}

/* Saturated random background, (v, t) always present, t crowded by singles. */
static void test_pattern_random(struct arb_req *req, uint16_t v, uint16_t t,
				uint64_t *rng)
{
	test_fill(req, 500, false, rng);
	for (uint16_t i = 0; i < req->n; i += 2)
		arb_req_set(req, i, t);
	arb_req_set(req, v, t);
}

Test(arb_lcf, starvation_bound_adversarial, .timeout = 60)
{
	static const uint16_t sizes[] = { 2, 3, 16, 63, 64, 65, 128 };

	test_seed();
	for (size_t z = 0; z < sizeof(sizes) / sizeof(*sizes); z++) {
		uint16_t n = sizes[z], v = n / 2, t = n - 1;
		unsigned int w;

		/* The bound B = n is reached: only the diagonal serves (v, t). */
		w = test_lcf_wait(n, v, t, 6u * n, test_pattern_crowd);
		cr_assert_eq(w, n, "crowd n=%u: worst wait %u, expected the bound", n, w);
		w = test_lcf_wait(n, v, t, 6u * n, test_pattern_greedy);
		cr_assert_eq(w, n, "greedy n=%u: worst wait %u", n, w);
		w = test_lcf_wait(n, v, t, 6u * n, test_pattern_random);
		cr_assert_leq(w, n, "random n=%u: worst wait %u", n, w);
		cr_log_info("n=%u: worst wait %u slots (bound %u)", n, w, n);
	}
}

/*
 * Virtual output queues: each slot new requests arrive at random and stay
 * until granted. No request may wait more than n slots.
 */
Test(arb_lcf, starvation_bound_queues, .timeout = 60)
{
	static const uint16_t sizes[] = { 3, 16, 64, 65 };
	static uint32_t since[128 * 128];
	uint64_t rng = test_seed();
	uint16_t grant[128];

	for (size_t z = 0; z < sizeof(sizes) / sizeof(*sizes); z++) {
		uint16_t n = sizes[z];
		struct arb *a = test_arb("lcf", n, 1);
		struct arb_req *req = arb_req_create(n);
		unsigned int worst = 0;

		memset(since, 0, sizeof(since));
		for (uint32_t slot = 1; slot <= 30u * n; slot++) {
			arb_req_clear(req);
			for (uint32_t p = 0; p < (uint32_t)n * n; p++) {
				if (!since[p] && test_rand(&rng) % 100 < 30)
					since[p] = slot;
				if (since[p])
					arb_req_set(req, (uint16_t)(p / n), (uint16_t)(p % n));
			}
			test_check(a, req, grant, arb_match(a, req, slot, grant), slot);
			for (uint16_t i = 0; i < n; i++) {
				uint32_t p = (uint32_t)i * n + grant[i];

				if (grant[i] == ARB_NONE)
					continue;
				worst = slot - since[p] + 1 > worst ? slot - since[p] + 1 : worst;
				since[p] = 0;
			}
			for (uint32_t p = 0; p < (uint32_t)n * n; p++)
				cr_assert(!since[p] || slot - since[p] + 1 < n,
					  "n=%u: (%u, %u) still waiting after %u slots",
					  n, p / n, p % n, slot - since[p] + 1);
		}
		cr_assert_leq(worst, n);
		cr_log_info("queues n=%u: worst wait %u slots (bound %u)", n, worst, n);
		arb_destroy(a);
		arb_req_destroy(req);
	}
}

Test(arb_islip, desynchronises_under_full_load)
{
	uint16_t grant[64];

	for (uint16_t n = 2; n <= 64; n *= 2) {
		struct arb *a = test_arb("islip:1", n, 1);
		struct arb_req *req = arb_req_create(n);

		for (uint16_t i = 0; i < n; i++)
			for (uint16_t t = 0; t < n; t++)
				arb_req_set(req, i, t);
		for (uint64_t slot = 0; slot < 3u * n; slot++) {
			uint16_t c = arb_match(a, req, slot, grant);

			if (slot >= n)
				cr_assert_eq(c, n, "n=%u slot %llu: %u grants", n,
					     (unsigned long long)slot, c);
		}
		arb_destroy(a);
		arb_req_destroy(req);
	}
}

/* Reference models: the textbook statements with plain loops, no masks. */
struct test_ref {
	uint16_t n;
	uint16_t ptr[ARB_MAX_NODES];	/* LCF/RR/back-pressure pointers; iSLIP grant */
	uint16_t acc[ARB_MAX_NODES];	/* iSLIP accept pointers */
};

/* Fresh reference state for n nodes. */
static void test_ref_init(struct test_ref *r, uint16_t n)
{
	memset(r, 0, sizeof(*r));
	r->n = n;
}

/* Unmatched targets that unmatched initiator i requests. */
static unsigned int test_ref_choice(const struct arb_req *req, uint16_t i,
				    const bool *mt)
{
	unsigned int c = 0;

	for (uint16_t u = 0; u < req->n; u++)
		c += !mt[u] && arb_req_test(req, i, u);
	return c;
}

/* LCF as doc/arbiters.md states it. */
static uint16_t test_ref_lcf(struct test_ref *r, const struct arb_req *req,
			     uint64_t slot, uint16_t *grant)
{
	static bool mi[ARB_MAX_NODES], mt[ARB_MAX_NODES];
	uint16_t n = r->n, d = (uint16_t)(slot % n), c = 0;

	for (uint16_t i = 0; i < n; i++) {
		uint16_t t = (uint16_t)((i + d) % n);

		mi[i] = arb_req_test(req, i, t);
		grant[i] = mi[i] ? t : ARB_NONE;
		c += mi[i];
	}
	for (uint16_t t = 0; t < n; t++)
		mt[t] = false;
	for (uint16_t i = 0; i < n; i++)
		if (mi[i])
			mt[grant[i]] = true;
	for (uint16_t k = 0; k < n; k++) {
		uint16_t t = (uint16_t)((d + k) % n), best = ARB_NONE;
		unsigned int best_c = ~0u;

		if (mt[t])
			continue;
		for (uint16_t j = 0; j < n; j++) {
			uint16_t i = (uint16_t)((r->ptr[t] + j) % n);
			unsigned int ch;

			if (mi[i] || !arb_req_test(req, i, t))
				continue;
			ch = test_ref_choice(req, i, mt);
			if (ch < best_c) {
				best_c = ch;
				best = i;
			}
		}
		if (best == ARB_NONE)
			continue;
		grant[best] = t;
		mi[best] = mt[t] = true;
		r->ptr[t] = (uint16_t)((best + 1) % n);
		c++;
	}
	return c;
}

/* iSLIP-k as McKeown states it. */
static uint16_t test_ref_islip(struct test_ref *r, unsigned int k,
			       const struct arb_req *req, uint16_t *grant)
{
	static bool mi[ARB_MAX_NODES], mt[ARB_MAX_NODES];
	static uint16_t to[ARB_MAX_NODES];
	uint16_t n = r->n, c = 0;

	for (uint16_t i = 0; i < n; i++) {
		mi[i] = mt[i] = false;
		grant[i] = ARB_NONE;
	}
	for (unsigned int it = 0; it < k; it++) {
		bool any = false;

		for (uint16_t t = 0; t < n; t++) {
			to[t] = ARB_NONE;
			for (uint16_t j = 0; j < n && !mt[t]; j++) {
				uint16_t i = (uint16_t)((r->ptr[t] + j) % n);

				if (!mi[i] && arb_req_test(req, i, t)) {
					to[t] = i;
					break;
				}
			}
		}
		for (uint16_t i = 0; i < n; i++) {
			for (uint16_t j = 0; j < n && !mi[i]; j++) {
				uint16_t t = (uint16_t)((r->acc[i] + j) % n);

				if (to[t] != i)
					continue;
				grant[i] = t;
				mi[i] = mt[t] = any = true;
				c++;
				if (it == 0) {
					r->ptr[t] = (uint16_t)((i + 1) % n);
					r->acc[i] = (uint16_t)((t + 1) % n);
				}
			}
		}
		if (!any)
			break;
	}
	return c;
}

/* Round-robin matcher: targets from slot mod n, first free initiator from ptr. */
static uint16_t test_ref_rr(struct test_ref *r, const struct arb_req *req,
			    uint64_t slot, uint16_t *grant)
{
	static bool mi[ARB_MAX_NODES];
	uint16_t n = r->n, c = 0;

	for (uint16_t i = 0; i < n; i++) {
		mi[i] = false;
		grant[i] = ARB_NONE;
	}
	for (uint16_t k = 0; k < n; k++) {
		uint16_t t = (uint16_t)((slot + k) % n);

		for (uint16_t j = 0; j < n; j++) {
			uint16_t i = (uint16_t)((r->ptr[t] + j) % n);

			if (!mi[i] && arb_req_test(req, i, t)) {
				grant[i] = t;
				mi[i] = true;
				r->ptr[t] = (uint16_t)((i + 1) % n);
				c++;
				break;
			}
		}
	}
	return c;
}

/* Back-pressure: per target, first initiator from ptr whose head it is. */
static uint16_t test_ref_backpressure(struct test_ref *r,
				      const struct arb_req *req, uint16_t *grant)
{
	static uint16_t head[ARB_MAX_NODES];
	uint16_t n = r->n, c = 0;

	for (uint16_t i = 0; i < n; i++) {
		head[i] = ARB_NONE;
		grant[i] = ARB_NONE;
		for (uint16_t t = 0; t < n && head[i] == ARB_NONE; t++)
			if (arb_req_test(req, i, t))
				head[i] = t;
	}
	for (uint16_t t = 0; t < n; t++) {
		for (uint16_t j = 0; j < n; j++) {
			uint16_t i = (uint16_t)((r->ptr[t] + j) % n);

			if (head[i] == t) {
				grant[i] = t;
				r->ptr[t] = (uint16_t)((i + 1) % n);
				c++;
				break;
			}
		}
	}
	return c;
}

/* The bit-mask arbiters must equal the reference models slot by slot. */
Test(arb_all, equals_reference, .timeout = 60)
{
	static const uint16_t sizes[] = { 1, 2, 3, 16, 63, 64, 65, 128, 200 };
	static const char *const specs[] = { "lcf", "rr", "islip:1", "islip:2",
					      "islip:4", "fifo-backpressure" };
	static struct test_ref ref;
	uint16_t got[200], want[200];
	uint64_t rng = test_seed();

	for (size_t z = 0; z < sizeof(sizes) / sizeof(*sizes); z++) {
		uint16_t n = sizes[z];
		struct arb_req *req = arb_req_create(n);

		for (size_t k = 0; k < sizeof(specs) / sizeof(*specs); k++) {
			struct arb *a = test_arb(specs[k], n, 1);

			test_ref_init(&ref, n);
			for (uint64_t slot = 0; slot < 60; slot++) {
				unsigned int load = test_loads[slot % 3];
				uint16_t cg, cw;

				test_fill(req, load, a->ops->fifo, &rng);
				cg = arb_match(a, req, slot, got);
				if (a->ops == &arb_lcf_ops)
					cw = test_ref_lcf(&ref, req, slot, want);
				else if (a->ops == &arb_rr_ops)
					cw = test_ref_rr(&ref, req, slot, want);
				else if (a->ops == &arb_islip_ops)
					cw = test_ref_islip(&ref, a->iterations, req, want);
				else
					cw = test_ref_backpressure(&ref, req, want);
				cr_assert_eq(cg, cw, "%s n=%u slot %llu: %u grants, reference %u",
					     specs[k], n, (unsigned long long)slot, cg, cw);
				for (uint16_t i = 0; i < n; i++)
					cr_assert_eq(got[i], want[i],
						     "%s n=%u slot %llu: grant[%u] %u, reference %u",
						     specs[k], n, (unsigned long long)slot,
						     i, got[i], want[i]);
			}
			arb_destroy(a);
		}
		arb_req_destroy(req);
	}
}

Test(arb_fifo, models)
{
	struct arb *drop = test_arb("fifo-drop", 5, 1);
	struct arb *bp = test_arb("fifo-backpressure", 5, 1);
	struct arb *ob = test_arb("fifo-outbuf", 5, 1);
	struct arb_req *req = arb_req_create(5);
	uint16_t grant[5];
	unsigned int won[5] = { 0 };

	/* Heads: 0, 1, 2 -> 4; 3 -> 0; 4 idle. */
	for (uint16_t i = 0; i < 3; i++)
		arb_req_set(req, i, 4);
	arb_req_set(req, 3, 0);
	cr_assert_eq(arb_match(drop, req, 0, grant), 4);
	cr_assert(grant[0] == 4 && grant[1] == 4 && grant[2] == 4 && grant[3] == 0);
	cr_assert_eq(grant[4], ARB_NONE);
	cr_assert_eq(arb_match(ob, req, 0, grant), 4);
	cr_assert(grant[0] == 4 && grant[1] == 4 && grant[2] == 4 && grant[3] == 0);
	for (uint64_t slot = 0; slot < 9; slot++) {
		cr_assert_eq(arb_match(bp, req, slot, grant), 2);
		cr_assert_eq(grant[3], 0);
		for (uint16_t i = 0; i < 3; i++)
			won[i] += grant[i] == 4;
	}
	cr_assert(won[0] == 3 && won[1] == 3 && won[2] == 3,
		  "back-pressure is round-robin: %u %u %u", won[0], won[1], won[2]);
	arb_destroy(drop);
	arb_destroy(bp);
	arb_destroy(ob);
	arb_req_destroy(req);
}
