/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay timing engine. Rates and the multiplier are held as integers
 * (10^-6 of a multiplier, 10^-3 pps, kbit/s) so that every due time is one
 * exact integer expression of the anchor and the packet's position:
 *
 *   RECORDED  start + loop * period + floor(rel_k * 10^6 / mult_u)
 *   PPS       start + floor(seq * 10^12 / pps_milli)
 *   MBPS      start + floor(bits_before(seq) * 10^6 / kbps)
 *   TOPSPEED  start
 *
 * Products are taken in 128 bits and saturate at UINT64_MAX.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/dp_opts.h"
#include "pcap/timing.h"

/* Ranges accepted for the rates: their smallest is the integer unit they are kept in. */
const struct timing_range timing_multiplier_range = { 1e-6, 1e6 };
const struct timing_range timing_pps_range = { 1e-3, 1e9 };
const struct timing_range timing_mbps_range = { 1e-3, 1e7 };

/* A schedule: options in integer form and per-packet offsets. */
struct timing_sched {
	/* the options, as given */
	struct timing_opts o;
	/* packets in one loop */
	uint64_t n;
	/* RECORDED: scaled offset of packet k in its loop (n entries);
	 * MBPS: bytes before packet k in its loop (n + 1 entries) */
	uint64_t *at;
	/* RECORDED: time from one loop's start to the next, scaled ns */
	uint64_t period;
	/* RECORDED: multiplier in millionths */
	uint64_t mult_u;
	/* PPS: packets per 1000 s */
	uint64_t pps_milli;
	/* MBPS: kilobits per second */
	uint64_t kbps;
	/* packets the replay may send in all: loops and limit applied */
	uint64_t total;
	/* anchor: when packet 0 is due */
	uint64_t start;
	/* next packet to hand out */
	uint64_t seq;
	/* why the replay stopped, or TIMING_RUNNING */
	enum timing_stop stop;
};

/* Names of the stop reasons. */
static const char *const timing_stop_names[] = {
	[TIMING_RUNNING] = "running",
	[TIMING_STOP_END] = "end",
	[TIMING_STOP_LIMIT] = "limit",
	[TIMING_STOP_DURATION] = "duration",
};

/* v clamped to 64 bits. */
static uint64_t sat64(unsigned __int128 v)
{
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* a + b clamped to 64 bits. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* floor(x * num / den) clamped to 64 bits; den > 0. */
static uint64_t muldiv(uint64_t x, uint64_t num, uint64_t den)
{
	return sat64((unsigned __int128)x * num / den);
}

/* v in units of 1/scale, rounded to nearest. */
static uint64_t to_units(double v, double scale)
{
	return (uint64_t)llround(v * scale);
}

void timing_opts_init(struct timing_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = TIMING_RECORDED;
	o->multiplier = 1.0;
	o->loops = 1;
}

/* True when v is a finite number within r. */
static bool in_range(double v, const struct timing_range *r)
{
	return isfinite(v) && v >= r->min && v <= r->max;
}

/* "WHAT must be between MIN and MAX, got V" in msg, the numbers as a user types them. */
static int range_msg(char *msg, size_t len, const char *what, const struct timing_range *r,
		     double v)
{
	char a[DP_OPT_NUM_LEN], b[DP_OPT_NUM_LEN], c[DP_OPT_NUM_LEN];

	return snprintf(msg, len, "%s must be between %s and %s, got %s", what,
			dp_opt_num(r->min, a), dp_opt_num(r->max, b), dp_opt_num(v, c));
}

int timing_opts_check(const struct timing_opts *o, char *msg, size_t len)
{
	char scratch[1];
	int n = 0;

	if (msg == NULL) {
		msg = scratch;
		len = sizeof(scratch);
	}
	if (o->mode == TIMING_RECORDED && !in_range(o->multiplier, &timing_multiplier_range))
		n = range_msg(msg, len, "multiplier", &timing_multiplier_range, o->multiplier);
	else if (o->mode == TIMING_PPS && !in_range(o->pps, &timing_pps_range))
		n = range_msg(msg, len, "pps", &timing_pps_range, o->pps);
	else if (o->mode == TIMING_MBPS && !in_range(o->mbps, &timing_mbps_range))
		n = range_msg(msg, len, "mbps", &timing_mbps_range, o->mbps);
	else if ((unsigned int)o->mode > TIMING_TOPSPEED)
		n = snprintf(msg, len, "unknown timing mode %d", (int)o->mode);
	else if (o->loops == 0)
		n = snprintf(msg, len, "loops must be at least 1");
	return n > 0 ? -EINVAL : 0;
}

/* RECORDED: scaled offsets from the first packet, never decreasing. */
static void timing_build_recorded(struct timing_sched *s, const struct timing_pkt *p)
{
	uint64_t rel = 0, gap;

	for (uint64_t k = 0; k < s->n; k++) {
		if (p[k].ts_ns > p[0].ts_ns && p[k].ts_ns - p[0].ts_ns > rel)
			rel = p[k].ts_ns - p[0].ts_ns;
		s->at[k] = muldiv(rel, 1000000, s->mult_u);
	}
	gap = s->o.loop_gap_ns;
	if (gap == 0 && s->n > 1)
		gap = rel / (s->n - 1);
	gap = muldiv(gap, 1000000, s->mult_u);
	s->period = sat_add(s->n ? s->at[s->n - 1] : 0, gap ? gap : 1);
}

/* MBPS: bytes before each packet, and one loop's bytes in at[n]. */
static void timing_build_mbps(struct timing_sched *s, const struct timing_pkt *p)
{
	uint64_t bytes = 0;

	for (uint64_t k = 0; k < s->n; k++) {
		s->at[k] = bytes;
		bytes = sat_add(bytes, (uint64_t)p[k].len + s->o.overhead);
	}
	s->at[s->n] = bytes;
}

struct timing_sched *timing_sched_new(const struct timing_pkt *pkts, uint64_t n,
				      const struct timing_opts *o)
{
	struct timing_sched *s;

	if (timing_opts_check(o, NULL, 0) || (n > 0 && pkts == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->o = *o;
	s->n = n;
	s->mult_u = to_units(o->multiplier, 1e6);
	s->pps_milli = to_units(o->pps, 1e3);
	s->kbps = to_units(o->mbps, 1e3);
	if (o->mode == TIMING_RECORDED || o->mode == TIMING_MBPS) {
		s->at = calloc(n + 1, sizeof(*s->at));
		if (s->at == NULL) {
			free(s);
			errno = ENOMEM;
			return NULL;
		}
	}
	if (o->mode == TIMING_RECORDED)
		timing_build_recorded(s, pkts);
	else if (o->mode == TIMING_MBPS)
		timing_build_mbps(s, pkts);
	s->total = n == 0 ? 0 : o->loops == TIMING_LOOPS_FOREVER ? UINT64_MAX :
		   sat64((unsigned __int128)n * o->loops);
	if (o->limit != 0 && o->limit < s->total)
		s->total = o->limit;
	return s;
}

void timing_sched_free(struct timing_sched *s)
{
	if (s == NULL)
		return;
	free(s->at);
	free(s);
}

void timing_start(struct timing_sched *s, uint64_t start_ns)
{
	s->start = start_ns;
	s->seq = 0;
	s->stop = TIMING_RUNNING;
}

/* Offset of packet seq from the anchor, ns. */
static uint64_t timing_offset(const struct timing_sched *s, uint64_t seq)
{
	uint64_t loop, k, bytes;

	if (s->n == 0)
		return 0;
	loop = seq / s->n;
	k = seq % s->n;
	switch (s->o.mode) {
	case TIMING_RECORDED:
		return sat_add(sat64((unsigned __int128)loop * s->period), s->at[k]);
	case TIMING_PPS:
		return muldiv(seq, 1000000000000ull, s->pps_milli);
	case TIMING_MBPS:
		bytes = sat_add(sat64((unsigned __int128)loop * s->at[s->n]), s->at[k]);
		return sat64((unsigned __int128)bytes * 8 * 1000000 / s->kbps);
	case TIMING_TOPSPEED:
		break;
	}
	return 0;
}

uint64_t timing_due(const struct timing_sched *s, uint64_t seq)
{
	return sat_add(s->start, timing_offset(s, seq));
}

/* True if the duration limit ends the replay before packet offset off. */
static bool timing_past_duration(const struct timing_sched *s, uint64_t off, uint64_t now_ns)
{
	uint64_t d = s->o.duration_ns;

	if (d == 0)
		return false;
	return off >= d || (now_ns > s->start && now_ns - s->start >= d);
}

int timing_next(struct timing_sched *s, uint64_t now_ns, struct timing_slot *slot)
{
	uint64_t off;

	if (s->stop != TIMING_RUNNING)
		return 0;
	if (s->seq >= s->total) {
		s->stop = s->o.limit != 0 && s->seq >= s->o.limit ?
			  TIMING_STOP_LIMIT : TIMING_STOP_END;
		return 0;
	}
	off = timing_offset(s, s->seq);
	if (timing_past_duration(s, off, now_ns)) {
		s->stop = TIMING_STOP_DURATION;
		return 0;
	}
	slot->seq = s->seq;
	slot->index = s->seq % s->n;
	slot->loop = s->seq / s->n;
	slot->due_ns = sat_add(s->start, off);
	s->seq++;
	return 1;
}

enum timing_stop timing_stop_reason(const struct timing_sched *s)
{
	return s->stop;
}

const char *timing_stop_name(enum timing_stop r)
{
	if ((unsigned int)r > TIMING_STOP_DURATION)
		return "?";
	return timing_stop_names[r];
}
