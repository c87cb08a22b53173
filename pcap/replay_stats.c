/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay report. Timing errors go into two log-linear histograms (errors
 * >= 0, and the magnitude of errors < 0): one bucket per nanosecond below
 * 2^10, then 2^7 buckets per power of two, so a percentile is exact below
 * 1024 ns and rounded down by less than 1/128 above.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "dataplane/dp_rank.h"
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

int64_t replay_stats_percentile(const struct replay_stats *st, unsigned int pct)
{
	int64_t v;

	if (st->packets == 0)
		return 0;
	v = hist_rank(st, dp_rank_index(st->packets, pct) + 1);
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

	sum->not_sent = 0;
	sum->packets = st->packets;
	sum->bytes = st->bytes;
	sum->sched_span_ns = st->sched_max - st->sched_min;
	sum->actual_span_ns = st->act_max - st->act_min;
	sum->req_pps = per_second(gaps, sum->sched_span_ns);
	sum->req_mbps = per_second(bits, sum->sched_span_ns) / 1e6;
	sum->act_pps = per_second(gaps, sum->actual_span_ns);
	sum->act_mbps = per_second(bits, sum->actual_span_ns) / 1e6;
	sum->err_min_ns = st->err_min;
	sum->err_p50_ns = replay_stats_percentile(st, 50);
	sum->err_p99_ns = replay_stats_percentile(st, 99);
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
	if (s->packets == 0) {
		fprintf(f, "\n%-14s %15s\n", "error (ns)", "-");
		return;
	}
	fprintf(f, "\n%-14s min %" PRId64 "  p50 %" PRId64 "  p99 %" PRId64 "  max %" PRId64 "\n",
		"error (ns)", s->err_min_ns, s->err_p50_ns, s->err_p99_ns, s->err_max_ns);
}

/* How a report field prints. */
enum report_kind {
	REPORT_U64,		/* unsigned count */
	REPORT_ERR,		/* timing error, ns: none when nothing was sent */
	REPORT_SCHED_RATE,	/* rate of the schedule: none when its span is 0 */
	REPORT_ACTUAL_RATE,	/* achieved rate: none when its span is 0 */
};

/* One field of the CSV and JSON reports, in output order. */
struct report_field {
	/* CSV column and JSON key */
	const char *name;
	/* how it prints */
	enum report_kind kind;
	/* offset of the member in struct replay_summary */
	size_t off;
};

/* The fields of the CSV and JSON reports. */
static const struct report_field report_fields[] = {
	{ "packets", REPORT_U64, offsetof(struct replay_summary, packets) },
	{ "bytes", REPORT_U64, offsetof(struct replay_summary, bytes) },
	{ "sched_span_ns", REPORT_U64, offsetof(struct replay_summary, sched_span_ns) },
	{ "actual_span_ns", REPORT_U64, offsetof(struct replay_summary, actual_span_ns) },
	{ "req_pps", REPORT_SCHED_RATE, offsetof(struct replay_summary, req_pps) },
	{ "req_mbps", REPORT_SCHED_RATE, offsetof(struct replay_summary, req_mbps) },
	{ "act_pps", REPORT_ACTUAL_RATE, offsetof(struct replay_summary, act_pps) },
	{ "act_mbps", REPORT_ACTUAL_RATE, offsetof(struct replay_summary, act_mbps) },
	{ "err_min_ns", REPORT_ERR, offsetof(struct replay_summary, err_min_ns) },
	{ "err_p50_ns", REPORT_ERR, offsetof(struct replay_summary, err_p50_ns) },
	{ "err_p99_ns", REPORT_ERR, offsetof(struct replay_summary, err_p99_ns) },
	{ "err_max_ns", REPORT_ERR, offsetof(struct replay_summary, err_max_ns) },
	{ "not_sent", REPORT_U64, offsetof(struct replay_summary, not_sent) },
};

/* Number of report fields. */
static const size_t report_nfields = sizeof(report_fields) / sizeof(report_fields[0]);

/* Value of field fl of s; an unbounded rate, or an error of no packet, prints as none. */
static void print_field(FILE *f, const struct replay_summary *s,
			const struct report_field *fl, const char *none)
{
	const char *p = (const char *)s + fl->off;
	uint64_t span;

	switch (fl->kind) {
	case REPORT_U64:
		fprintf(f, "%" PRIu64, *(const uint64_t *)p);
		break;
	case REPORT_ERR:
		if (s->packets)
			fprintf(f, "%" PRId64, *(const int64_t *)p);
		else
			fputs(none, f);
		break;
	case REPORT_SCHED_RATE:
	case REPORT_ACTUAL_RATE:
		span = fl->kind == REPORT_SCHED_RATE ? s->sched_span_ns : s->actual_span_ns;
		if (span)
			fprintf(f, "%.3f", *(const double *)p);
		else
			fputs(none, f);
		break;
	}
}

/* The CSV format: header, then values; unbounded rates and errors of no packet are empty. */
static void print_csv(const struct replay_summary *s, FILE *f)
{
	for (size_t i = 0; i < report_nfields; i++)
		fprintf(f, "%s%s", i ? "," : "", report_fields[i].name);
	fputc('\n', f);
	for (size_t i = 0; i < report_nfields; i++) {
		if (i)
			fputc(',', f);
		print_field(f, s, &report_fields[i], "");
	}
	fputc('\n', f);
}

/* The JSON format: one object; unbounded rates and errors of no packet are null. */
static void print_json(const struct replay_summary *s, FILE *f)
{
	for (size_t i = 0; i < report_nfields; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "{", report_fields[i].name);
		print_field(f, s, &report_fields[i], "null");
	}
	fputs("}\n", f);
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
