/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay report: the rate achieved against the rate the schedule asked for,
 * and the timing error (actual departure - scheduled departure) as
 * percentiles, printed as a table, CSV or JSON. Adding a packet is O(1) and
 * allocation-free; the error distribution is a log-linear histogram, exact
 * below 1024 ns and within 1/128 above (doc/replay.md).
 */
#ifndef SEGNET_PCAP_REPLAY_STATS_H
#define SEGNET_PCAP_REPLAY_STATS_H

#include <stdint.h>
#include <stdio.h>

/* Output formats of replay_stats_print(). */
enum replay_stats_format {
	REPLAY_STATS_TABLE,	/* aligned text for people */
	REPLAY_STATS_CSV,	/* a header line and one line of values */
	REPLAY_STATS_JSON,	/* one object */
};

/*
 * The numbers of a report. Rates are 0 when their span is 0 (unbounded);
 * errors are 0 when no packet was sent (printed as none).
 */
struct replay_summary {
	/* packets sent */
	uint64_t packets;
	/* bytes sent */
	uint64_t bytes;
	/* last scheduled departure - first, ns */
	uint64_t sched_span_ns;
	/* last actual departure - first, ns */
	uint64_t actual_span_ns;
	/* packets per second the schedule asked for */
	double req_pps;
	/* megabits per second the schedule asked for */
	double req_mbps;
	/* packets per second achieved */
	double act_pps;
	/* megabits per second achieved */
	double act_mbps;
	/* smallest timing error, ns */
	int64_t err_min_ns;
	/* median timing error, ns */
	int64_t err_p50_ns;
	/* 99th percentile timing error, ns */
	int64_t err_p99_ns;
	/* largest timing error, ns */
	int64_t err_max_ns;
	/*
	 * records not sent, or sent and failed: the mode's count (frames
	 * dropped or too short or too long for the port, messages dropped
	 * or not delivered); 0 from replay_stats_summary, set by the caller
	 */
	uint64_t not_sent;
};

/* Statistics being collected; opaque. */
struct replay_stats;

/* New, empty statistics; NULL with errno ENOMEM. */
struct replay_stats *replay_stats_new(void);

/* Free statistics; NULL is allowed. */
void replay_stats_free(struct replay_stats *st);

/* Account one packet of len bytes, due at sched_ns, sent at actual_ns. */
void replay_stats_add(struct replay_stats *st, uint64_t sched_ns, uint64_t actual_ns,
		      uint32_t len);

/* The pct-th percentile (nearest rank, dp_rank_index; 0 < pct <= 100) of the timing error. */
int64_t replay_stats_percentile(const struct replay_stats *st, unsigned int pct);

/* Compute the report. */
void replay_stats_summary(const struct replay_stats *st, struct replay_summary *sum);

/* Print a report; 0 or -EIO. */
int replay_stats_print(const struct replay_summary *sum, enum replay_stats_format fmt,
		       FILE *f);

#endif /* SEGNET_PCAP_REPLAY_STATS_H */
