/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay report. Timing errors go into two log-linear histograms (errors
 * >= 0, and the magnitude of errors < 0): one bucket per nanosecond below
 * 2^10, then 2^7 buckets per power of two, so a percentile is exact below
 * 1024 ns and rounded down by less than 1/128 above.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pcap/replay_stats.h"

/* Histogram geometry. */
enum {
	HIST_EXACT_BITS = 10,	/* values below 2^10 have a bucket each */
	HIST_SUB_BITS = 7,	/* 2^7 buckets per power of two above */
	HIST_EXACT = 1 << HIST_EXACT_BITS,
	HIST_SUB = 1 << HIST_SUB_BITS,
	HIST_BUCKETS = HIST_EXACT + (64 - HIST_EXACT_BITS) * HIST_SUB,
};

/* Counters of one replay. */
struct replay_stats {
	/* errors >= 0, by value */
	uint64_t pos[HIST_BUCKETS];
	/* errors < 0, by magnitude */
	uint64_t neg[HIST_BUCKETS];
	/* packets added */
	uint64_t packets;
	/* bytes added */
	uint64_t bytes;
	/* length of the packet with the latest actual departure */
	uint32_t last_len;
	/* earliest and latest scheduled departures */
	uint64_t sched_min, sched_max;
	/* earliest and latest actual departures */
	uint64_t act_min, act_max;
	/* extreme errors, exact */
	int64_t err_min, err_max;
};

/* Bucket of value v. */
static unsigned int hist_index(uint64_t v)
{
	unsigned int e;

	if (v < HIST_EXACT)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v);
	return HIST_EXACT + (e - HIST_EXACT_BITS) * HIST_SUB +
	       (unsigned int)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* Smallest value of bucket i. */
static uint64_t hist_value(unsigned int i)
{
	unsigned int e;

	if (i < HIST_EXACT)
		return i;
	i -= HIST_EXACT;
	e = HIST_EXACT_BITS + i / HIST_SUB;
	return (uint64_t)(HIST_SUB + i % HIST_SUB) << (e - HIST_SUB_BITS);
}

/* d clamped into int64_t, with sign neg. */
static int64_t signed_err(uint64_t d, bool neg)
{
	if (d > INT64_MAX)
		d = INT64_MAX;
	return neg ? -(int64_t)d : (int64_t)d;
}

struct replay_stats *replay_stats_new(void)
{
	return calloc(1, sizeof(struct replay_stats));
}

void replay_stats_free(struct replay_stats *st)
{
	free(st);
}

void replay_stats_add(struct replay_stats *st, uint64_t sched_ns, uint64_t actual_ns,
		      uint32_t len)
{
	bool neg = actual_ns < sched_ns;
	uint64_t d = neg ? sched_ns - actual_ns : actual_ns - sched_ns;
	int64_t e = signed_err(d, neg);

	if (neg)
		st->neg[hist_index(d)]++;
	else
		st->pos[hist_index(d)]++;
	if (st->packets == 0) {
		st->sched_min = st->sched_max = sched_ns;
		st->act_min = st->act_max = actual_ns;
		st->err_min = st->err_max = e;
	}
	st->sched_min = sched_ns < st->sched_min ? sched_ns : st->sched_min;
	st->sched_max = sched_ns > st->sched_max ? sched_ns : st->sched_max;
	st->act_min = actual_ns < st->act_min ? actual_ns : st->act_min;
	if (actual_ns >= st->act_max) {
		st->act_max = actual_ns;
		st->last_len = len;
	}
	st->err_min = e < st->err_min ? e : st->err_min;
	st->err_max = e > st->err_max ? e : st->err_max;
	st->packets++;
	st->bytes += len;
}

/* Value of 1-based rank r, most negative first. */
static int64_t hist_rank(const struct replay_stats *st, uint64_t r)
{
	uint64_t seen = 0;

	for (unsigned int i = HIST_BUCKETS; i-- > 0;) {
		seen += st->neg[i];
		if (seen >= r)
			return signed_err(hist_value(i), true);
	}
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += st->pos[i];
		if (seen >= r)
			return signed_err(hist_value(i), false);
	}
	return st->err_max;
}

int64_t replay_stats_percentile(const struct replay_stats *st, double p)
{
	uint64_t r;
	int64_t v;

	if (st->packets == 0)
		return 0;
	r = (uint64_t)ceil(p / 100.0 * (double)st->packets);
	r = r < 1 ? 1 : r > st->packets ? st->packets : r;
	v = hist_rank(st, r);
	return v < st->err_min ? st->err_min : v > st->err_max ? st->err_max : v;
}

/* Events per second for count intervals over span ns; 0 if span is 0. */
static double per_second(double count, uint64_t span)
{
	return span ? count * 1e9 / (double)span : 0.0;
}

void replay_stats_summary(const struct replay_stats *st, struct replay_summary *sum)
{
	double gaps = st->packets ? (double)(st->packets - 1) : 0.0;
	double bits = st->packets ? (double)(st->bytes - st->last_len) * 8.0 : 0.0;

	sum->packets = st->packets;
	sum->bytes = st->bytes;
	sum->sched_span_ns = st->sched_max - st->sched_min;
	sum->actual_span_ns = st->act_max - st->act_min;
	sum->req_pps = per_second(gaps, sum->sched_span_ns);
	sum->req_mbps = per_second(bits, sum->sched_span_ns) / 1e6;
	sum->act_pps = per_second(gaps, sum->actual_span_ns);
	sum->act_mbps = per_second(bits, sum->actual_span_ns) / 1e6;
	sum->err_min_ns = st->err_min;
	sum->err_p50_ns = replay_stats_percentile(st, 50.0);
	sum->err_p99_ns = replay_stats_percentile(st, 99.0);
	sum->err_max_ns = st->err_max;
}

/* A rate for the table: the number, or "unbounded" when span is 0. */
static void print_rate(FILE *f, double v, uint64_t span)
{
	if (span)
		fprintf(f, " %15.3f", v);
	else
		fprintf(f, " %15s", "unbounded");
}

/* A rate for CSV (empty) or JSON (null) when unbounded. */
static void print_num(FILE *f, double v, uint64_t span, const char *none)
{
	if (span)
		fprintf(f, "%.3f", v);
	else
		fputs(none, f);
}

/* The table format. */
static void print_table(const struct replay_summary *s, FILE *f)
{
	fprintf(f, "%-14s %15" PRIu64 "\n", "packets", s->packets);
	fprintf(f, "%-14s %15" PRIu64 "\n", "bytes", s->bytes);
	fprintf(f, "%-14s %15s %15s\n", "", "requested", "achieved");
	fprintf(f, "%-14s", "rate (pps)");
	print_rate(f, s->req_pps, s->sched_span_ns);
	print_rate(f, s->act_pps, s->actual_span_ns);
	fprintf(f, "\n%-14s", "rate (Mbps)");
	print_rate(f, s->req_mbps, s->sched_span_ns);
	print_rate(f, s->act_mbps, s->actual_span_ns);
	fprintf(f, "\n%-14s min %" PRId64 "  p50 %" PRId64 "  p99 %" PRId64 "  max %" PRId64 "\n",
		"error (ns)", s->err_min_ns, s->err_p50_ns, s->err_p99_ns, s->err_max_ns);
}

/* The CSV format: header, then values; unbounded rates are empty. */
static void print_csv(const struct replay_summary *s, FILE *f)
{
	fputs("packets,bytes,sched_span_ns,actual_span_ns,req_pps,req_mbps,"
	      "act_pps,act_mbps,err_min_ns,err_p50_ns,err_p99_ns,err_max_ns\n", f);
	fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
		s->packets, s->bytes, s->sched_span_ns, s->actual_span_ns);
	print_num(f, s->req_pps, s->sched_span_ns, "");
	fputc(',', f);
	print_num(f, s->req_mbps, s->sched_span_ns, "");
	fputc(',', f);
	print_num(f, s->act_pps, s->actual_span_ns, "");
	fputc(',', f);
	print_num(f, s->act_mbps, s->actual_span_ns, "");
	fprintf(f, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
		s->err_min_ns, s->err_p50_ns, s->err_p99_ns, s->err_max_ns);
}

/* The JSON format: one object; unbounded rates are null. */
static void print_json(const struct replay_summary *s, FILE *f)
{
	fprintf(f, "{\"packets\": %" PRIu64 ", \"bytes\": %" PRIu64
		", \"sched_span_ns\": %" PRIu64 ", \"actual_span_ns\": %" PRIu64,
		s->packets, s->bytes, s->sched_span_ns, s->actual_span_ns);
	fputs(", \"req_pps\": ", f);
	print_num(f, s->req_pps, s->sched_span_ns, "null");
	fputs(", \"req_mbps\": ", f);
	print_num(f, s->req_mbps, s->sched_span_ns, "null");
	fputs(", \"act_pps\": ", f);
	print_num(f, s->act_pps, s->actual_span_ns, "null");
	fputs(", \"act_mbps\": ", f);
	print_num(f, s->act_mbps, s->actual_span_ns, "null");
	fprintf(f, ", \"err_min_ns\": %" PRId64 ", \"err_p50_ns\": %" PRId64
		", \"err_p99_ns\": %" PRId64 ", \"err_max_ns\": %" PRId64 "}\n",
		s->err_min_ns, s->err_p50_ns, s->err_p99_ns, s->err_max_ns);
}

int replay_stats_print(const struct replay_summary *sum, enum replay_stats_format fmt,
		       FILE *f)
{
	if (fmt == REPLAY_STATS_CSV)
		print_csv(sum, f);
	else if (fmt == REPLAY_STATS_JSON)
		print_json(sum, f);
	else
		print_table(sum, f);
	return ferror(f) ? -EIO : 0;
}
