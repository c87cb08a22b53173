/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The arbiter registry, spec parsing ("lcf", "islip:4") and the request
 * matrix. The algorithms live in arb_*.c, one file each; doc/arbiters.md
 * describes them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "switchd/arb.h"

enum {
	ARB_ALIGN = 64,		/* cache line: instances and matrices start on one */
};

/* The registry: one line per arbiter, in the order --help lists them. */
static const struct arb_ops *const arb_table[] = {
	&arb_lcf_ops,
	&arb_islip_ops,
	&arb_pim_ops,
	&arb_rr_ops,
	&arb_fifo_drop_ops,
	&arb_fifo_backpressure_ops,
	&arb_fifo_outbuf_ops,
	NULL,
};

/* The registry, for --help and the benchmarks. */
const struct arb_ops *const *arb_list(void)
{
	return arb_table;
}

/* Round len up to a whole number of cache lines. */
static size_t arb_align_up(size_t len)
{
	return (len + ARB_ALIGN - 1) / ARB_ALIGN * ARB_ALIGN;
}

/* printf into err (which may be NULL or empty) and set errno to e. */
static void __attribute__((format(printf, 4, 5)))
arb_fail(int e, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = e;
}

/* The valid names as "lcf, islip[:K], ..." for error messages. */
static void arb_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const struct arb_ops *const *o = arb_table; *o && used < len; o++) {
		int r = snprintf(buf + used, len - used, "%s%s%s",
				 o == arb_table ? "" : ", ", (*o)->name,
				 (*o)->takes_iterations ? "[:K]" : "");

		if (r < 0)
			break;
		used += (size_t)r;
	}
}

/* The registration called name[0 .. len - 1], or NULL. */
static const struct arb_ops *arb_find(const char *name, size_t len)
{
	for (const struct arb_ops *const *o = arb_table; *o; o++)
		if (strlen((*o)->name) == len && !memcmp((*o)->name, name, len))
			return *o;
	return NULL;
}

/* Parse a plain decimal K in 1 .. ARB_MAX_ITERATIONS; 0 or -EINVAL. */
static int arb_parse_iterations(const char *s, unsigned int *k)
{
	unsigned long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > ARB_MAX_ITERATIONS)
			return -EINVAL;
	}
	if (v == 0)
		return -EINVAL;
	*k = (unsigned int)v;
	return 0;
}

/* Resolve spec to its registration and iteration count; 0 or -EINVAL. */
static int arb_parse_spec(const char *spec, const struct arb_ops **ops,
			  unsigned int *k, char *err, size_t errlen)
{
	const char *colon;
	size_t len;
	char names[256];

	arb_names(names, sizeof(names));
	if (!spec || !*spec) {
		arb_fail(EINVAL, err, errlen, "empty arbiter spec (valid: %s)",
			 names);
		return -EINVAL;
	}
	colon = strchr(spec, ':');
	len = colon ? (size_t)(colon - spec) : strlen(spec);
	*ops = arb_find(spec, len);
	if (!*ops) {
		arb_fail(EINVAL, err, errlen, "unknown arbiter '%.*s' (valid: %s)",
			 (int)len, spec, names);
		return -EINVAL;
	}
	*k = (*ops)->takes_iterations ? (*ops)->default_iterations : 1;
	if (!colon)
		return 0;
	if (!(*ops)->takes_iterations) {
		arb_fail(EINVAL, err, errlen,
			 "arbiter '%s' takes no iteration count (got '%s')",
			 (*ops)->name, spec);
		return -EINVAL;
	}
	if (arb_parse_iterations(colon + 1, k)) {
		arb_fail(EINVAL, err, errlen,
			 "arbiter '%s': iteration count '%s' is not an integer in 1..%d",
			 (*ops)->name, colon + 1, ARB_MAX_ITERATIONS);
		return -EINVAL;
	}
	return 0;
}

/* splitmix64: spreads any seed, 0 included, over the xorshift state. */
static uint64_t arb_seed_mix(uint64_t seed)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return z ? z : 0x9E3779B97F4A7C15ull;
}

/* Parse spec, allocate the instance with its private state, run init. */
struct arb *arb_create(const char *spec, uint16_t n, uint64_t seed,
		       char *err, size_t errlen)
{
	const struct arb_ops *ops;
	unsigned int k;
	size_t head = arb_align_up(sizeof(struct arb));
	struct arb *a;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (arb_parse_spec(spec, &ops, &k, err, errlen))
		return NULL;
	if (n == 0 || n > ARB_MAX_NODES) {
		arb_fail(EINVAL, err, errlen,
			 "arbiter '%s': node count %u out of range 1..%d",
			 ops->name, n, ARB_MAX_NODES);
		return NULL;
	}
	a = aligned_alloc(ARB_ALIGN, arb_align_up(head + ops->priv_size));
	if (!a) {
		arb_fail(ENOMEM, err, errlen, "arbiter '%s': out of memory",
			 ops->name);
		return NULL;
	}
	memset(a, 0, head + ops->priv_size);
	a->ops = ops;
	a->n = n;
	a->words = (uint16_t)((n + 63) / 64);
	a->iterations = k;
	a->rng = arb_seed_mix(seed);
	a->priv = ops->priv_size ? (char *)a + head : NULL;
	ret = ops->init ? ops->init(a) : 0;
	if (ret) {
		arb_fail(-ret, err, errlen, "arbiter '%s': init failed: %s",
			 ops->name, strerror(-ret));
		free(a);
		return NULL;
	}
	return a;
}

/* Instance and private state are one allocation. */
void arb_destroy(struct arb *a)
{
	free(a);
}

/* Header, rows and columns in one cache-aligned allocation. */
struct arb_req *arb_req_create(uint16_t n)
{
	size_t head = arb_align_up(sizeof(struct arb_req));
	uint16_t words = (uint16_t)((n + 63) / 64);
	size_t half = arb_align_up((size_t)n * words * sizeof(uint64_t));
	struct arb_req *req;

	if (n == 0 || n > ARB_MAX_NODES) {
		errno = EINVAL;
		return NULL;
	}
	req = aligned_alloc(ARB_ALIGN, head + 2 * half);
	if (!req)
		return NULL;
	req->n = n;
	req->words = words;
	req->rows = (uint64_t *)((char *)req + head);
	req->cols = (uint64_t *)((char *)req + head + half);
	arb_req_clear(req);
	return req;
}

/* The matrix is one allocation. */
void arb_req_destroy(struct arb_req *req)
{
	free(req);
}

/* Zero rows and columns for the next slot. */
void arb_req_clear(struct arb_req *req)
{
	size_t len = (size_t)req->n * req->words * sizeof(uint64_t);

	memset(req->rows, 0, len);
	memset(req->cols, 0, len);
}
