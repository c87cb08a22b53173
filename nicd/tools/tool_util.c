/* SPDX-License-Identifier: BSD-3-Clause */
/* What the segnet tools share. */
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dataplane/dp_opts.h"
#include "dataplane/dp_rank.h"
#include "tool_util.h"

volatile sig_atomic_t tool_stop;

/* Ask the tool to stop. */
static void tool_on_signal(int sig)
{
	(void)sig;
	tool_stop = 1;
}

void tool_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tool_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int tool_getopt(const char *prog, int argc, char **argv, const struct option *longopts,
		const int *lists, const int *const *groups, void (*usage)(FILE *f),
		tool_option_fn option, void *opts, struct dp_opt_parser *parsed)
{
	struct dp_opt_parser p;
	char err[256];
	int c;

	dp_opt_start(&p, longopts, lists, false);
	p.groups = groups;
	while ((c = dp_opt_next(&p, argc, argv, err, sizeof(err))) > 0) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (!option(opts, c, optarg))
			return 2;
	}
	if (c < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument %s (see --help)\n", prog, argv[optind]);
		return 2;
	}
	if (parsed)
		*parsed = p;
	return 0;
}

bool tool_refuse_given(const char *prog, const struct dp_opt_parser *parsed, const int *vals,
		       const char *why)
{
	char err[256];

	if (!dp_opt_refuse_given(parsed, vals, why, err, sizeof(err)))
		return true;
	fprintf(stderr, "%s: %s\n", prog, err);
	return false;
}

uint64_t tool_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool tool_parse_u64(const char *prog, const char *opt, const char *arg, uint64_t min,
		    uint64_t max, uint64_t *out)
{
	char err[192];
	unsigned long v;

	if (dp_opt_ulong(opt, arg, min, max, &v, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return false;
	}
	*out = v;
	return true;
}

bool tool_parse_double(const char *prog, const char *opt, const char *arg, double min,
		       double max, double *out)
{
	char err[192];

	if (dp_opt_double(opt, arg, min, max, out, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return false;
	}
	return true;
}

const int tool_key_group[] = { 'k', 'K', 0 };

int tool_ep_option(const char *prog, struct tool_ep_opts *o, int c, const char *arg)
{
	uint64_t v;
	size_t len;
	int n;

	switch (c) {
	case 'n':
		o->nicd = arg;
		return 1;
	case 'v':
		if (!tool_parse_u64(prog, "--vnet", arg, 0, UINT16_MAX, &v))
			return -1;
		o->vnet = (uint16_t)v;
		return 1;
	case 'k':
		n = segnet_read_key(arg, o->key);
		if (n < 0) {
			fprintf(stderr, "%s: --key-file %s: %s\n", prog, arg,
				n == -ENODATA ? "the file is empty" :
				n == -E2BIG ? "longer than 64 bytes" : strerror(-n));
			return -1;
		}
		o->key_len = n;
		return 1;
	case 'K':
		len = strlen(arg);
		if (len < 1 || len > SEGNET_MAX_KEY) {
			fprintf(stderr, "%s: --key: 1 to %d bytes\n", prog, SEGNET_MAX_KEY);
			return -1;
		}
		memset(o->key, 0, sizeof(o->key));
		memcpy(o->key, arg, len);
		o->key_len = (int)len;
		return 1;
	}
	return 0;
}

struct segnet_ep *tool_ep_open(const char *prog, const struct tool_ep_opts *o,
			       const struct segnet_open_opts *oo)
{
	struct segnet_ep *ep = segnet_open(o->nicd, o->vnet, o->key, (size_t)o->key_len, oo);
	char why[256];

	if (ep)
		return ep;
	fprintf(stderr, "%s: cannot open an endpoint of vnet %u at nicd %s: %s\n", prog,
		o->vnet, o->nicd ? o->nicd : "segnet0",
		segnet_open_error(o->nicd, o->vnet, errno, why, sizeof(why)));
	return NULL;
}

bool tool_check_ep(const char *prog, const struct segnet_ep *ep, unsigned int dst_ep)
{
	unsigned int max = segnet_max_endpoints(ep);

	if (dst_ep < max)
		return true;
	fprintf(stderr, "%s: --ep %u: nicd has endpoints 0 .. %u (its --endpoints)\n", prog,
		dst_ep, max - 1);
	return false;
}

const char *tool_ep_where(const struct segnet_ep *ep, unsigned int vnet, char *buf,
			  size_t len)
{
	if (segnet_cluster_size(ep))
		snprintf(buf, len, "node %u endpoint %u (vnet %u)", segnet_node(ep),
			 segnet_endpoint(ep), vnet);
	else
		snprintf(buf, len, "endpoint %u (vnet %u) of a node that has not joined a cluster yet",
			 segnet_endpoint(ep), vnet);
	return buf;
}

bool tool_wait_joined(const char *prog, struct segnet_ep *ep, uint32_t ms, long node)
{
	uint64_t end = tool_now_ns() + (uint64_t)ms * 1000000u;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	while (!segnet_cluster_size(ep)) {
		if (tool_stop)
			return false;
		if (segnet_poll(ep, NULL, 0) == -ESHUTDOWN) {
			fprintf(stderr, "%s: nicd went away\n", prog);
			return false;
		}
		if (tool_now_ns() >= end) {
			fprintf(stderr, "%s: the NIC did not join a cluster within %u ms (is switchd running?)\n",
				prog, ms);
			return false;
		}
		nanosleep(&ts, NULL);
	}
	if (node >= segnet_cluster_size(ep)) {
		fprintf(stderr, "%s: --node %ld: not in the cluster, whose %u nodes are 0 .. %u\n",
			prog, node, segnet_cluster_size(ep), segnet_cluster_size(ep) - 1u);
		return false;
	}
	return true;
}

const char *tool_percent(uint64_t part, uint64_t whole, char *buf, size_t len)
{
	double v = whole ? 100.0 * (double)part / (double)whole : 0;
	int prec = 0;

	if (part && v < 1)
		prec = (int)ceil(-log10(v));
	if (part < whole && 100 - v < 1 && (int)ceil(-log10(100 - v)) > prec)
		prec = (int)ceil(-log10(100 - v));
	/* Rounding up to the next digit (0.0096 to 0.010) needs no more: it is not 0. */
	snprintf(buf, len, "%.*f", prec, v);
	return buf;
}

void tool_samples_add(struct tool_samples *s, uint64_t ns)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = ns;
}

/* Order for qsort. */
static int tool_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct tool_lat tool_samples_stats(struct tool_samples *s)
{
	struct tool_lat l = { 0, 0, 0, 0, 0 };
	double sum = 0;

	if (!s->n)
		return l;
	qsort(s->v, s->n, sizeof(*s->v), tool_cmp_u64);
	for (size_t i = 0; i < s->n; i++)
		sum += (double)s->v[i];
	l.min = (double)s->v[0] / 1e3;
	l.max = (double)s->v[s->n - 1] / 1e3;
	l.mean = sum / (double)s->n / 1e3;
	l.p50 = (double)s->v[dp_rank_index(s->n, 50)] / 1e3;
	l.p99 = (double)s->v[dp_rank_index(s->n, 99)] / 1e3;
	return l;
}

void tool_samples_free(struct tool_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

uint64_t tool_msg_hash(uint64_t seq, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t i = 0;

	h = (h ^ seq) * 0x100000001b3ull;
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, sizeof(w));
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ^ (h >> 31);
}

/* The pattern's next 8 bytes (byte k of the word is byte i + k). */
static inline uint64_t tool_pattern_next(uint64_t *x)
{
	*x ^= *x >> 30;
	*x *= 0xbf58476d1ce4e5b9ull;
	*x ^= *x >> 27;
	return *x;
}


/*
 * A word at a time: the byte loop it replaces cost ~2 us per 2 KiB message
 * and made segnet-perf, not segnet, the limit of bulk goodput.
 */
void tool_pattern(uint64_t seq, void *data, size_t len)
{
	uint8_t *p = data;
	uint64_t x = seq * 0x9e3779b97f4a7c15ull + 1, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		w = htole64(tool_pattern_next(&x));	/* byte k: bits 8k .. 8k+7 */
		memcpy(p + i, &w, 8);
	}
	if (i < len) {
		w = htole64(tool_pattern_next(&x));
		memcpy(p + i, &w, len - i);
	}
}

bool tool_pattern_ok(uint64_t seq, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t x = seq * 0x9e3779b97f4a7c15ull + 1, w, v;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		w = htole64(tool_pattern_next(&x));
		memcpy(&v, p + i, 8);
		if (v != w)
			return false;
	}
	if (i < len) {
		w = htole64(tool_pattern_next(&x));
		return !memcmp(p + i, &w, len - i);
	}
	return true;
}
