/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay timing engine: when each packet of a trace is due. Pure logic: it
 * never reads a clock and never sleeps; the caller passes the anchor time
 * and, to timing_next(), the current time. Every departure time is computed
 * from the anchor (never by adding per-packet gaps), in integer nanoseconds,
 * so the schedule does not drift however long it runs. doc/replay.md has the
 * model, the loop rule and the stop rules.
 */
#ifndef SEGNET_PCAP_TIMING_H
#define SEGNET_PCAP_TIMING_H

#include <stddef.h>
#include <stdint.h>

/* Passes over the trace without end (timing_opts.loops). */
#define TIMING_LOOPS_FOREVER UINT64_MAX

/* How departure times derive from the trace. */
enum timing_mode {
	TIMING_RECORDED,	/* capture timestamps, divided by the multiplier */
	TIMING_PPS,		/* uniform: packet j at j / pps */
	TIMING_MBPS,		/* packet j when the bytes before it have left */
	TIMING_TOPSPEED,	/* every packet due at the anchor: no waiting */
};

/* Why timing_next() stopped handing out packets. */
enum timing_stop {
	TIMING_RUNNING,		/* not stopped */
	TIMING_STOP_END,	/* every loop done */
	TIMING_STOP_LIMIT,	/* packet limit reached */
	TIMING_STOP_DURATION,	/* next packet due, or clock, past the duration */
};

/* The values a rate may take, both ends included. */
struct timing_range {
	double min;	/* the smallest */
	double max;	/* the largest */
};

/*
 * What timing_opts_check accepts for the multiplier, pps and mbps: the one
 * definition, which segnet-replay's options check against too.
 */
extern const struct timing_range timing_multiplier_range;
extern const struct timing_range timing_pps_range;
extern const struct timing_range timing_mbps_range;

/* Replay options; timing_opts_init() gives the defaults. */
struct timing_opts {
	/* how departure times are computed */
	enum timing_mode mode;
	/* RECORDED: speed-up (2 = twice as fast), kept to 10^-6 (timing_multiplier_range) */
	double multiplier;
	/* PPS: packets per second, kept to 10^-3 (timing_pps_range) */
	double pps;
	/* MBPS: megabits (10^6 bits) per second, kept to 10^-3 (timing_mbps_range) */
	double mbps;
	/* MBPS: bytes counted per packet on top of its length */
	uint32_t overhead;
	/* passes over the trace, at least 1, or TIMING_LOOPS_FOREVER */
	uint64_t loops;
	/* RECORDED: trace time between the last packet and the next loop's
	 * first; 0 means the trace's mean gap */
	uint64_t loop_gap_ns;
	/* stop after this many packets in all; 0 means no limit */
	uint64_t limit;
	/* stop at this much time after the anchor; 0 means no limit */
	uint64_t duration_ns;
};

/* What the engine needs of a packet. */
struct timing_pkt {
	/* capture timestamp, ns (any epoch) */
	uint64_t ts_ns;
	/* length that counts for MBPS (what is sent) */
	uint32_t len;
};

/* One packet to send. */
struct timing_slot {
	/* position in the whole replay, 0-based, across loops */
	uint64_t seq;
	/* index of the packet in the trace */
	uint64_t index;
	/* loop the packet belongs to, 0-based */
	uint64_t loop;
	/* absolute time the packet is due, ns, on the anchor's clock */
	uint64_t due_ns;
};

/* Schedule over one trace; opaque. */
struct timing_sched;

/* Fill o with the defaults: RECORDED, multiplier 1, one loop, no limits. */
void timing_opts_init(struct timing_opts *o);

/* 0 if o is usable, or -EINVAL with a sentence in msg (may be NULL). */
int timing_opts_check(const struct timing_opts *o, char *msg, size_t len);

/*
 * Build the schedule of n packets (copied; pkts may be freed after).
 * NULL with errno EINVAL on bad options (see timing_opts_check), ENOMEM.
 */
struct timing_sched *timing_sched_new(const struct timing_pkt *pkts, uint64_t n,
				      const struct timing_opts *o);

/* Free a schedule; NULL is allowed. */
void timing_sched_free(struct timing_sched *s);

/* Anchor the schedule at start_ns and rewind to the first packet. */
void timing_start(struct timing_sched *s, uint64_t start_ns);

/* Absolute time packet seq (counted across loops) is due; ignores stops. */
uint64_t timing_due(const struct timing_sched *s, uint64_t seq);

/*
 * Next packet to send: 1 and slot filled, or 0 when the replay is over
 * (see timing_stop_reason). now_ns is only used for the duration limit.
 */
int timing_next(struct timing_sched *s, uint64_t now_ns, struct timing_slot *slot);

/* Why the replay stopped, or TIMING_RUNNING. */
enum timing_stop timing_stop_reason(const struct timing_sched *s);

/* Name of a stop reason ("end", "limit", "duration", "running"). */
const char *timing_stop_name(enum timing_stop r);

#endif /* SEGNET_PCAP_TIMING_H */
