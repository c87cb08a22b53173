/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timing engine, waiter and report on a simulated clock: anchored schedules
 * do not drift over 10^6 packets and recover from a late sender; multiplier,
 * pps, mbps and topspeed give the exact due times of their formulas; loops
 * keep time increasing; limit and duration stop at the right packet;
 * watched time counts each gap up to its cap.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap/replay_stats.h"
#include "pcap/timing.h"
#include "pcap/waiter.h"

/* An arbitrary capture epoch, so that only differences matter. */
static const uint64_t T0 = 1278472579466743000ull;

/* An arbitrary anchor on the simulated clock. */
static const uint64_t START = 5000000000ull;

/* A simulated clock: sleeps overshoot, each busy-wait step costs time. */
struct sim_clock {
	/* current time */
	uint64_t now;
	/* fixed overshoot of every sleep */
	uint64_t oversleep;
	/* extra pseudo-random overshoot, 0 .. jitter-1 (0: none) */
	uint64_t jitter;
	/* time one relax step takes */
	uint64_t relax_ns;
	/* sleeps cover only this share of what was asked (+1 ns), in percent (0: all) */
	unsigned int sleep_pct;
	/* state of the jitter generator */
	uint64_t rng;
};

/* Simulated clock read. */
static uint64_t sim_now(void *ctx)
{
	return ((struct sim_clock *)ctx)->now;
}

/* Simulated sleep: what was asked (or a share of it), plus overshoot. */
static void sim_sleep(void *ctx, uint64_t ns)
{
	struct sim_clock *c = ctx;

	if (c->sleep_pct)
		ns = ns * c->sleep_pct / 100 + 1;
	c->now += ns + c->oversleep;
	if (c->jitter) {
		c->rng = c->rng * 6364136223846793005ull + 1442695040888963407ull;
		c->now += (c->rng >> 33) % c->jitter;
	}
}

/* Simulated busy-wait step. */
static void sim_relax(void *ctx)
{
	struct sim_clock *c = ctx;

	c->now += c->relax_ns;
}

/* A waiter on the simulated clock c. */
static void sim_waiter(struct waiter *w, struct sim_clock *c, uint64_t spin_ns)
{
	struct waiter_clock wc = { .now = sim_now, .sleep = sim_sleep, .relax = sim_relax,
				   .ctx = c };

	waiter_init(w, &wc, spin_ns);
}

/* n packets at T0 + k * step_ns, each len bytes. */
static struct timing_pkt *uniform_pkts(uint64_t n, uint64_t step_ns, uint32_t len)
{
	struct timing_pkt *p = calloc(n, sizeof(*p));

	cr_assert_not_null(p);
	for (uint64_t k = 0; k < n; k++)
		p[k] = (struct timing_pkt){ .ts_ns = T0 + k * step_ns, .len = len };
	return p;
}

/* A schedule with options o over p, anchored at START. */
static struct timing_sched *sched(const struct timing_pkt *p, uint64_t n,
				  const struct timing_opts *o)
{
	char msg[128] = "";
	struct timing_sched *s;

	cr_assert_eq(timing_opts_check(o, msg, sizeof(msg)), 0, "%s", msg);
	s = timing_sched_new(p, n, o);
	cr_assert_not_null(s);
	timing_start(s, START);
	return s;
}

/* Count the slots a schedule hands out with the clock held at now. */
static uint64_t count_slots(struct timing_sched *s, uint64_t now, struct timing_slot *last)
{
	struct timing_slot slot;
	uint64_t n = 0;

	while (timing_next(s, now, &slot)) {
		*last = slot;
		n++;
	}
	return n;
}

/*
 * Replay s on clock c through waiter w, sending takes send_ns(k) of clock
 * time; every departure goes into st. Returns the number of packets.
 */
static uint64_t replay(struct timing_sched *s, struct sim_clock *c, struct waiter *w,
		       struct replay_stats *st, uint64_t (*send_ns)(uint64_t seq))
{
	struct timing_slot slot;
	uint64_t n = 0, t;

	while (timing_next(s, c->now, &slot)) {
		t = waiter_wait_until(w, slot.due_ns);
		replay_stats_add(st, slot.due_ns, t, 100);
		if (send_ns != NULL)
			c->now += send_ns(slot.seq);
		n++;
	}
	return n;
}

Test(timing, opts_defaults_and_checks)
{
	struct timing_opts o;
	char msg[128];

	timing_opts_init(&o);
	cr_assert_eq(o.mode, TIMING_RECORDED);
	cr_assert_eq(o.multiplier, 1.0);
	cr_assert_eq(o.loops, 1);
	cr_assert_eq(timing_opts_check(&o, NULL, 0), 0);

	o.multiplier = 0;
	cr_assert_eq(timing_opts_check(&o, msg, sizeof(msg)), -EINVAL);
	cr_assert_str_eq(msg, "multiplier must be between 0.000001 and 1000000, got 0");
	errno = 0;
	cr_assert_null(timing_sched_new(NULL, 0, &o));
	cr_assert_eq(errno, EINVAL);

	timing_opts_init(&o);
	o.mode = TIMING_PPS;
	cr_assert_eq(timing_opts_check(&o, msg, sizeof(msg)), -EINVAL);
	cr_assert_str_eq(msg, "pps must be between 0.001 and 1000000000, got 0");

	timing_opts_init(&o);
	o.mode = TIMING_MBPS;
	o.mbps = -1;
	cr_assert_eq(timing_opts_check(&o, msg, sizeof(msg)), -EINVAL);
	cr_assert_str_eq(msg, "mbps must be between 0.001 and 10000000, got -1");

	timing_opts_init(&o);
	o.loops = 0;
	cr_assert_eq(timing_opts_check(&o, msg, sizeof(msg)), -EINVAL);
	cr_assert_str_eq(msg, "loops must be at least 1");

	timing_opts_init(&o);
	o.mode = (enum timing_mode)9;
	cr_assert_eq(timing_opts_check(&o, msg, sizeof(msg)), -EINVAL);
	cr_assert_str_eq(msg, "unknown timing mode 9");
}

Test(timing, anchored_schedule_has_no_drift)
{
	const uint64_t n = 1000000;
	struct timing_pkt *p = calloc(n, sizeof(*p));
	struct timing_opts o;
	struct timing_sched *s;
	uint64_t naive = 0;

	cr_assert_not_null(p, "out of memory");
	/* gaps of 1018 and 899 ns: neither divides by 3, so per-gap rounding drifts */
	for (uint64_t k = 0; k < n; k++)
		p[k] = (struct timing_pkt){ .ts_ns = T0 + k * 1001 + (k % 7) * 17, .len = 64 };
	timing_opts_init(&o);
	o.multiplier = 3.0;
	s = sched(p, n, &o);
	for (uint64_t k = 0; k < n; k++) {
		uint64_t rel = p[k].ts_ns - T0;

		cr_assert_eq(timing_due(s, k), START + rel / 3, "packet %llu", (unsigned long long)k);
		if (k > 0)
			naive += (p[k].ts_ns - p[k - 1].ts_ns) / 3;
	}
	/* what summing rounded gaps would have done: hundreds of microseconds off */
	cr_assert_gt(START + (p[n - 1].ts_ns - T0) / 3 - (START + naive), 300000);
	timing_sched_free(s);
	free(p);
}

Test(timing, replay_of_a_million_packets_stays_on_time)
{
	const uint64_t n = 1000000;
	struct timing_pkt *p = uniform_pkts(n, 1001, 64);
	struct sim_clock c = { .now = START, .oversleep = 50000, .jitter = 30000,
			       .relax_ns = 40, .rng = 1 };
	struct replay_stats *st = replay_stats_new();
	struct replay_summary sum;
	struct timing_opts o;
	struct timing_sched *s;
	struct waiter w;

	timing_opts_init(&o);
	o.multiplier = 3.0;
	s = sched(p, n, &o);
	sim_waiter(&w, &c, 100000);
	cr_assert_eq(replay(s, &c, &w, st, NULL), n);
	replay_stats_summary(st, &sum);
	cr_assert_geq(sum.err_min_ns, 0, "never early");
	cr_assert_lt(sum.err_max_ns, 40, "within one busy-wait step, packet 1 as packet 10^6");
	/* the last departure is where the anchor says, not a sum of gaps */
	cr_assert_geq(c.now, START + (n - 1) * 1001 / 3);
	cr_assert_lt(c.now, START + (n - 1) * 1001 / 3 + 40);
	timing_sched_free(s);
	replay_stats_free(st);
	free(p);
}

Test(timing, sparse_replay_sleeps_then_spins)
{
	const uint64_t n = 10000;
	struct timing_pkt *p = uniform_pkts(n, 1000000, 64);
	struct sim_clock c = { .now = START, .oversleep = 60000, .jitter = 30000,
			       .relax_ns = 40, .rng = 7 };
	struct replay_stats *st = replay_stats_new();
	struct replay_summary sum;
	struct timing_opts o;
	struct timing_sched *s;
	struct waiter w;

	timing_opts_init(&o);
	s = sched(p, n, &o);
	sim_waiter(&w, &c, 100000);
	cr_assert_eq(replay(s, &c, &w, st, NULL), n);
	replay_stats_summary(st, &sum);
	cr_assert_eq(w.sleeps, n - 1, "one sleep per 1 ms gap");
	cr_assert_eq(w.late, 1, "only packet 0, due at the anchor itself");
	cr_assert_lt(sum.err_max_ns, 40);
	cr_assert_lt(sum.err_p99_ns, 40);
	timing_sched_free(s);
	replay_stats_free(st);
	free(p);
}

/*
 * Watched time: each gap between two looks counts up to the cap (a longer
 * one is time the watcher did not run); a reading earlier than the last
 * counts nothing. waiter_sleep_watched sleeps until so much of it passed.
 */
Test(timing, watched_time_caps_each_gap)
{
	struct sim_clock c = { .now = START, .oversleep = 1000 };
	struct waiter_clock wc = { .now = sim_now, .sleep = sim_sleep, .ctx = &c };
	struct dp_watch w;

	dp_watch_start(&w, START, 10000);
	cr_assert_eq(dp_watch_look(&w, START + 3000), 3000);
	cr_assert_eq(dp_watch_look(&w, START + 53000), 13000);
	cr_assert_eq(dp_watch_look(&w, START + 50000), 13000);
	cr_assert_eq(dp_watch_look(&w, START + 60000), 23000);
	/* 20 us in steps of 4 us, each 5 us with the overshoot: 4 steps. */
	waiter_sleep_watched(&wc, 20000, 4000, 10000);
	cr_assert_eq(c.now - START, 20000);
	/* Steps that overshoot by 1 ms count 10 us each: 2 steps. */
	c.oversleep = 1000000;
	c.now = START;
	waiter_sleep_watched(&wc, 20000, 4000, 10000);
	cr_assert_eq(c.now - START, 2 * (4000 + 1000000));
}

/* A sender that needs 3 us per packet for its first 1000 packets. */
static uint64_t slow_start(uint64_t seq)
{
	return seq < 1000 ? 3000 : 0;
}

Test(timing, late_sender_catches_up)
{
	const uint64_t n = 10000;
	struct timing_pkt *p = uniform_pkts(n, 1000, 64);
	struct sim_clock c = { .now = START, .relax_ns = 40 };
	struct replay_stats *tail = replay_stats_new();
	struct replay_summary sum;
	struct timing_slot slot;
	struct timing_opts o;
	struct timing_sched *s;
	struct waiter w;
	uint64_t t;

	timing_opts_init(&o);
	s = sched(p, n, &o);
	sim_waiter(&w, &c, 100000);
	while (timing_next(s, c.now, &slot)) {
		t = waiter_wait_until(&w, slot.due_ns);
		if (slot.seq == 999)
			cr_assert_gt(t - slot.due_ns, 1900000, "2 ms behind after the slow start");
		if (slot.seq >= n / 2)
			replay_stats_add(tail, slot.due_ns, t, 64);
		c.now += slow_start(slot.seq);
	}
	/* the schedule is not re-anchored: once caught up, back on time */
	replay_stats_summary(tail, &sum);
	cr_assert_lt(sum.err_max_ns, 40);
	timing_sched_free(s);
	replay_stats_free(tail);
	free(p);
}

Test(timing, multiplier)
{
	static const uint64_t rel[] = { 0, 1000, 2500, 2500, 7001 };
	static const struct {
		double m;
		uint64_t due[5];
	} cases[] = {
		{ 1.0, { 0, 1000, 2500, 2500, 7001 } },
		{ 2.0, { 0, 500, 1250, 1250, 3500 } },
		{ 0.5, { 0, 2000, 5000, 5000, 14002 } },
		{ 3.0, { 0, 333, 833, 833, 2333 } },
	};
	struct timing_pkt p[5];
	struct timing_opts o;

	for (int k = 0; k < 5; k++)
		p[k] = (struct timing_pkt){ .ts_ns = T0 + rel[k], .len = 64 };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct timing_sched *s;
		struct timing_slot slot;

		timing_opts_init(&o);
		o.multiplier = cases[i].m;
		s = sched(p, 5, &o);
		for (uint64_t k = 0; k < 5; k++) {
			cr_assert_eq(timing_next(s, START, &slot), 1);
			cr_assert_eq(slot.index, k);
			cr_assert_eq(slot.due_ns, START + cases[i].due[k], "x%g packet %llu",
				     cases[i].m, (unsigned long long)k);
		}
		cr_assert_eq(timing_next(s, START, &slot), 0);
		cr_assert_eq(timing_stop_reason(s), TIMING_STOP_END);
		timing_sched_free(s);
	}
}

Test(timing, timestamps_going_back_do_not_go_back_in_time)
{
	static const uint64_t rel[] = { 0, 100, 90, 200 }, want[] = { 0, 100, 100, 200 };
	struct timing_pkt p[4];
	struct timing_opts o;
	struct timing_sched *s;

	for (int k = 0; k < 4; k++)
		p[k] = (struct timing_pkt){ .ts_ns = T0 + rel[k] };
	timing_opts_init(&o);
	s = sched(p, 4, &o);
	for (uint64_t k = 0; k < 4; k++)
		cr_assert_eq(timing_due(s, k), START + want[k]);
	timing_sched_free(s);
}

Test(timing, pps)
{
	struct timing_pkt *p = uniform_pkts(100, 12345, 64);
	struct timing_opts o;
	struct timing_sched *s;

	timing_opts_init(&o);
	o.mode = TIMING_PPS;
	o.pps = 1000;
	o.loops = 2;
	s = sched(p, 100, &o);
	for (uint64_t k = 0; k < 200; k++)
		cr_assert_eq(timing_due(s, k), START + k * 1000000);
	timing_sched_free(s);

	o.pps = 3.5;
	s = sched(p, 100, &o);
	cr_assert_eq(timing_due(s, 1), START + 285714285);
	cr_assert_eq(timing_due(s, 7), START + 2000000000);
	cr_assert_eq(timing_due(s, 150), START + 150 * 2000000000ull / 7);
	timing_sched_free(s);
	free(p);
}

Test(timing, mbps)
{
	static const uint32_t len[] = { 100, 1500, 60, 1000 };
	struct timing_pkt p[4];
	struct timing_opts o;
	struct timing_sched *s;

	for (int k = 0; k < 4; k++)
		p[k] = (struct timing_pkt){ .ts_ns = T0 + (uint64_t)k, .len = len[k] };
	timing_opts_init(&o);
	o.mode = TIMING_MBPS;
	o.mbps = 8;
	o.loops = 2;
	/* 8 Mbit/s: one byte per microsecond */
	s = sched(p, 4, &o);
	cr_assert_eq(timing_due(s, 0), START);
	cr_assert_eq(timing_due(s, 1), START + 100000);
	cr_assert_eq(timing_due(s, 2), START + 1600000);
	cr_assert_eq(timing_due(s, 3), START + 1660000);
	cr_assert_eq(timing_due(s, 4), START + 2660000, "loop 1 continues the byte count");
	cr_assert_eq(timing_due(s, 5), START + 2760000);
	timing_sched_free(s);

	o.overhead = 24;
	s = sched(p, 4, &o);
	cr_assert_eq(timing_due(s, 3), START + 1732000);
	cr_assert_eq(timing_due(s, 4), START + 2756000);
	timing_sched_free(s);

	o.overhead = 0;
	o.mbps = 10000;
	s = sched(p, 4, &o);
	cr_assert_eq(timing_due(s, 2), START + 1600 * 8 / 10, "1600 bytes at 10 Gbit/s");
	timing_sched_free(s);
}

Test(timing, topspeed)
{
	struct timing_pkt *p = uniform_pkts(10, 1000000, 64);
	struct timing_slot slot, last = { 0 };
	struct timing_opts o;
	struct timing_sched *s;
	uint64_t n = 0;

	timing_opts_init(&o);
	o.mode = TIMING_TOPSPEED;
	o.loops = 3;
	s = sched(p, 10, &o);
	while (timing_next(s, START, &slot)) {
		cr_assert_eq(slot.due_ns, START);
		last = slot;
		n++;
	}
	cr_assert_eq(n, 30);
	cr_assert_eq(last.loop, 2);
	cr_assert_eq(last.index, 9);
	cr_assert_eq(timing_stop_reason(s), TIMING_STOP_END);
	cr_assert_str_eq(timing_stop_name(timing_stop_reason(s)), "end");
	timing_sched_free(s);
	free(p);
}

Test(timing, loops_keep_time_increasing)
{
	static const uint64_t rel[] = { 0, 10000, 25000, 25000, 40000 };
	struct timing_pkt p[5];
	struct timing_opts o;
	struct timing_sched *s;

	for (int k = 0; k < 5; k++)
		p[k] = (struct timing_pkt){ .ts_ns = T0 + rel[k], .len = 64 };
	timing_opts_init(&o);
	o.loops = 100;
	s = sched(p, 5, &o);
	/* span 40 us + mean gap 10 us: each loop starts 50 us after the last */
	cr_assert_eq(timing_due(s, 5), START + 50000);
	cr_assert_eq(timing_due(s, 9), START + 90000);
	cr_assert_eq(timing_due(s, 499), START + 99 * 50000 + 40000);
	for (uint64_t k = 1; k < 500; k++) {
		if (k % 5 == 0)
			cr_assert_gt(timing_due(s, k), timing_due(s, k - 1), "loop boundary %llu",
				     (unsigned long long)k);
		else
			cr_assert_geq(timing_due(s, k), timing_due(s, k - 1));
	}
	timing_sched_free(s);

	o.multiplier = 3.0;
	s = sched(p, 5, &o);
	/* floor(40000 / 3) + floor(10000 / 3) */
	cr_assert_eq(timing_due(s, 5), START + 13333 + 3333);
	timing_sched_free(s);

	o.multiplier = 1.0;
	o.loop_gap_ns = 5000;
	s = sched(p, 5, &o);
	cr_assert_eq(timing_due(s, 5), START + 45000);
	timing_sched_free(s);
}

Test(timing, loops_of_degenerate_traces)
{
	struct timing_pkt one = { .ts_ns = T0 }, same[3] = { { T0, 1 }, { T0, 1 }, { T0, 1 } };
	struct timing_opts o;
	struct timing_sched *s;

	timing_opts_init(&o);
	o.loops = 5;
	/* no span and no gap: loops are 1 ns apart, still strictly increasing */
	s = sched(&one, 1, &o);
	for (uint64_t k = 0; k < 5; k++)
		cr_assert_eq(timing_due(s, k), START + k);
	timing_sched_free(s);
	s = sched(same, 3, &o);
	cr_assert_eq(timing_due(s, 2), START);
	cr_assert_eq(timing_due(s, 3), START + 1);
	cr_assert_eq(timing_due(s, 8), START + 2);
	timing_sched_free(s);
}

Test(timing, empty_trace_ends_at_once)
{
	struct timing_opts o;
	struct timing_slot slot;
	struct timing_sched *s;

	timing_opts_init(&o);
	o.loops = TIMING_LOOPS_FOREVER;
	s = sched(NULL, 0, &o);
	cr_assert_eq(timing_next(s, START, &slot), 0);
	cr_assert_eq(timing_stop_reason(s), TIMING_STOP_END);
	timing_sched_free(s);
}

Test(timing, limit)
{
	struct timing_pkt *p = uniform_pkts(100, 1000, 64);
	struct timing_slot last = { 0 };
	struct timing_opts o;
	struct timing_sched *s;

	timing_opts_init(&o);
	o.loops = 5;
	o.limit = 250;
	s = sched(p, 100, &o);
	cr_assert_eq(count_slots(s, START, &last), 250);
	cr_assert_eq(last.seq, 249);
	cr_assert_eq(last.loop, 2);
	cr_assert_eq(last.index, 49);
	cr_assert_eq(timing_stop_reason(s), TIMING_STOP_LIMIT);
	cr_assert_eq(count_slots(s, START, &last), 0, "stays stopped");
	timing_start(s, START);
	cr_assert_eq(count_slots(s, START, &last), 250, "timing_start rewinds");
	timing_sched_free(s);

	o.limit = 0;
	o.loops = 3;
	s = sched(p, 100, &o);
	cr_assert_eq(count_slots(s, START, &last), 300);
	cr_assert_eq(timing_stop_reason(s), TIMING_STOP_END);
	timing_sched_free(s);

	o.limit = 12345;
	o.loops = TIMING_LOOPS_FOREVER;
	s = sched(p, 100, &o);
	cr_assert_eq(count_slots(s, START, &last), 12345);
	cr_assert_eq(timing_stop_reason(s), TIMING_STOP_LIMIT);
	timing_sched_free(s);
	free(p);
}

Test(timing, duration_by_schedule)
{
	struct timing_pkt *p = uniform_pkts(100, 1000000, 64);
	struct timing_slot last = { 0 };
	struct timing_opts o;
	struct timing_sched *s;

	timing_opts_init(&o);
	/* packets every 1 ms; those due before 10.5 ms are packets 0 .. 10 */
	o.duration_ns = 10500000;
	s = sched(p, 100, &o);
	cr_assert_eq(count_slots(s, START, &last), 11);
	cr_assert_eq(last.index, 10);
	cr_assert_eq(timing_stop_reason(s), TIMING_STOP_DURATION);
	timing_sched_free(s);

	/* a packet due exactly at the end is not sent */
	o.duration_ns = 10000000;
	s = sched(p, 100, &o);
	cr_assert_eq(count_slots(s, START, &last), 10);
	timing_sched_free(s);
	free(p);
}

Test(timing, duration_by_clock)
{
	struct timing_pkt *p = uniform_pkts(10, 1000, 64);
	struct timing_slot slot;
	struct timing_opts o;
	struct timing_sched *s;
	uint64_t now = START, n = 0;

	timing_opts_init(&o);
	o.mode = TIMING_TOPSPEED;
	o.loops = TIMING_LOOPS_FOREVER;
	o.duration_ns = 1000000;
	s = sched(p, 10, &o);
	/* each send takes 3 us: sends start at 0, 3, ..., 999 us: 334 of them */
	while (timing_next(s, now, &slot)) {
		n++;
		now += 3000;
	}
	cr_assert_eq(n, 334);
	cr_assert_eq(timing_stop_reason(s), TIMING_STOP_DURATION);
	cr_assert_str_eq(timing_stop_name(TIMING_STOP_DURATION), "duration");
	timing_sched_free(s);
	free(p);
}

Test(waiter, sleeps_then_spins_to_the_deadline)
{
	struct sim_clock c = { .now = 0, .oversleep = 30000, .relax_ns = 50 };
	struct waiter w;

	sim_waiter(&w, &c, 100000);
	cr_assert_eq(waiter_wait_until(&w, 1000000), 1000000);
	cr_assert_eq(w.sleeps, 1);
	/* slept 900 us, overshot 30 us, spun the remaining 70 us in 50 ns steps */
	cr_assert_eq(w.spins, 1400);
	cr_assert_eq(w.late, 0);
}

Test(waiter, late_deadline_returns_at_once)
{
	struct sim_clock c = { .now = 2000000, .relax_ns = 50 };
	struct waiter w;

	sim_waiter(&w, &c, 100000);
	cr_assert_eq(waiter_wait_until(&w, 1000000), 2000000);
	cr_assert_eq(w.late, 1);
	cr_assert_eq(w.sleeps + w.spins, 0);
}

Test(waiter, overshoot_beyond_the_spin_window_is_late)
{
	struct sim_clock c = { .now = 0, .oversleep = 150000, .relax_ns = 50 };
	struct waiter w;

	sim_waiter(&w, &c, 100000);
	cr_assert_eq(waiter_wait_until(&w, 1000000), 1050000);
}

Test(waiter, short_sleeps_are_repeated)
{
	struct sim_clock c = { .now = 0, .relax_ns = 50, .sleep_pct = 50 };
	struct waiter w;
	uint64_t t;

	sim_waiter(&w, &c, 100000);
	t = waiter_wait_until(&w, 10000000);
	cr_assert_geq(t, 10000000);
	cr_assert_lt(t, 10000050);
	cr_assert_gt(w.sleeps, 1);
}

Test(waiter, system_clock)
{
	const struct waiter_clock *c = waiter_clock_system();
	uint64_t t0 = c->now(c->ctx), t;
	struct waiter w;

	waiter_init(&w, c, WAITER_SPIN_NS_DEFAULT);
	t = waiter_wait_until(&w, t0 + 2000000);
	cr_assert_geq(t, t0 + 2000000);
	cr_assert_geq(c->now(c->ctx), t);
	cr_assert_eq(w.sleeps, 1);
}

/* Statistics of 10^4 packets due every 1 us, sent (k % 100) ns late. */
static struct replay_stats *ramp_stats(void)
{
	struct replay_stats *st = replay_stats_new();

	cr_assert_not_null(st);
	for (uint64_t k = 0; k < 10000; k++)
		replay_stats_add(st, k * 1000, k * 1000 + k % 100, 125);
	return st;
}

Test(stats, percentiles_and_rates)
{
	struct replay_stats *st = ramp_stats();
	struct replay_summary s;

	replay_stats_summary(st, &s);
	cr_assert_eq(s.packets, 10000);
	cr_assert_eq(s.bytes, 1250000);
	cr_assert_eq(s.err_min_ns, 0);
	cr_assert_eq(s.err_p50_ns, 49, "rank 5000 of 100 x {0..99}");
	cr_assert_eq(s.err_p99_ns, 98, "rank 9900");
	cr_assert_eq(s.err_max_ns, 99);
	cr_assert_eq(s.sched_span_ns, 9999000);
	cr_assert_eq(s.actual_span_ns, 9999099);
	cr_assert_float_eq(s.req_pps, 1e6, 1e-6);
	cr_assert_float_eq(s.req_mbps, 1000.0, 1e-9, "125 B per 1 us");
	cr_assert_float_eq(s.act_pps, 9999e9 / 9999099.0, 1e-6);
	replay_stats_free(st);
}

Test(stats, negative_and_large_errors)
{
	struct replay_stats *st = replay_stats_new();
	int64_t p50;

	for (int k = 0; k < 100; k++)
		replay_stats_add(st, 1000000, k < 50 ? 1000000 - 10 : 1000000 + 10, 64);
	cr_assert_eq(replay_stats_percentile(st, 50), -10);
	cr_assert_eq(replay_stats_percentile(st, 99), 10);
	replay_stats_free(st);

	st = replay_stats_new();
	for (uint64_t k = 0; k < 1000; k++)
		replay_stats_add(st, 0, 1000000 + k, 64);
	/* rank 500 is 1000499: above 1024 ns a percentile is within 1/128 below */
	p50 = replay_stats_percentile(st, 50);
	cr_assert_leq(p50, 1000499);
	cr_assert_geq(p50, 1000499 - 1000499 / 128);
	replay_stats_free(st);
}

/* What replay_stats_print writes for s in format fmt; free it. */
static char *printed(const struct replay_summary *s, enum replay_stats_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(replay_stats_print(s, fmt, f), 0);
	fclose(f);
	return buf;
}

Test(stats, table_csv_json)
{
	struct replay_stats *st = ramp_stats();
	struct replay_summary s;
	char *out, *nl;
	int commas = 0;

	replay_stats_summary(st, &s);
	out = printed(&s, REPLAY_STATS_TABLE);
	cr_assert_not_null(strstr(out, "requested"));
	cr_assert_not_null(strstr(out, "achieved"));
	cr_assert_not_null(strstr(out, "1000000.000"));
	cr_assert_not_null(strstr(out, "min 0  p50 49  p99 98  max 99"));
	free(out);

	out = printed(&s, REPLAY_STATS_CSV);
	nl = strchr(out, '\n');
	cr_assert_not_null(nl);
	cr_assert_eq(strncmp(out, "packets,bytes,sched_span_ns,actual_span_ns,req_pps,", 51), 0);
	for (char *c = nl + 1; *c; c++)
		commas += *c == ',';
	cr_assert_eq(commas, 12);
	cr_assert_not_null(strstr(nl, "10000,1250000,9999000,9999099,1000000.000,1000.000,"));
	cr_assert_not_null(strstr(nl, ",0,49,98,99,0\n"), "%s", nl);
	free(out);

	out = printed(&s, REPLAY_STATS_JSON);
	cr_assert_not_null(strstr(out, "\"req_pps\": 1000000.000"));
	cr_assert_not_null(strstr(out, "\"err_p99_ns\": 98"));
	cr_assert_not_null(strstr(out, "\"not_sent\": 0}"), "%s", out);
	free(out);
	replay_stats_free(st);
}

Test(stats, topspeed_request_is_unbounded)
{
	struct replay_stats *st = replay_stats_new();
	struct replay_summary s;
	char *out;

	for (uint64_t k = 0; k < 10; k++)
		replay_stats_add(st, 0, k * 100, 64);
	replay_stats_summary(st, &s);
	cr_assert_eq(s.req_pps, 0);
	out = printed(&s, REPLAY_STATS_JSON);
	cr_assert_not_null(strstr(out, "\"req_pps\": null"));
	free(out);
	out = printed(&s, REPLAY_STATS_CSV);
	cr_assert_not_null(strstr(out, ",900,,,"));
	free(out);
	out = printed(&s, REPLAY_STATS_TABLE);
	cr_assert_not_null(strstr(out, "unbounded"));
	free(out);
	replay_stats_free(st);
}

/* A replay that sent nothing has no timing error: none printed, not 0. */
Test(stats, nothing_sent_has_no_timing_error)
{
	struct replay_stats *st = replay_stats_new();
	struct replay_summary s;
	char *out;

	cr_assert_not_null(st);
	replay_stats_summary(st, &s);
	cr_assert_eq(s.packets, 0);
	out = printed(&s, REPLAY_STATS_JSON);
	cr_assert_not_null(strstr(out, "\"err_min_ns\": null, \"err_p50_ns\": null, "
				      "\"err_p99_ns\": null, \"err_max_ns\": null"), "%s", out);
	free(out);
	out = printed(&s, REPLAY_STATS_CSV);
	cr_assert_not_null(strstr(out, "\n0,0,0,0,,,,,,,,,0\n"), "%s", out);
	free(out);
	out = printed(&s, REPLAY_STATS_TABLE);
	cr_assert_null(strstr(out, "min 0"), "%s", out);
	cr_assert_not_null(strstr(out, "error (ns)                   -\n"), "%s", out);
	free(out);
	replay_stats_free(st);
}
