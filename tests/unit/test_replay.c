/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segnet-replay's sender loop and frames mode on a simulated clock and a
 * recording port: every frame leaves exactly when the schedule says, with
 * the trace's bytes, in order, across loops, in every timing mode; frames
 * already due leave in bursts; a full transmit queue is retried and a
 * stalled one loses its burst, but not for a stretch in which the sender
 * did not run; the port's peer gets its time before the port closes, after
 * a pause too; the stop flag ends a long wait. Then the
 * port capture adapter: what crosses a port lands in the pcap with the
 * injected clock's timestamps, bounded, one direction or both.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcap/port_capture.h"
#include "pcap/replay/replay.h"
#include "pcap/replay/replay_frames.h"
#include "tests/unit/test_dp_util.h"

/* The bundled sample trace. */
#define SAMPLE SEGNET_PCAP_SAMPLES "/cluster-udp.pcap"

/* An arbitrary anchor on the simulated clock. */
static const uint64_t START = 7000000000ull;

/* A simulated clock: sleeps and busy-wait steps advance it. */
struct sim_clock {
	/* current time */
	uint64_t now;
	/* overshoot of every sleep */
	uint64_t oversleep;
	/* time one busy-wait step takes */
	uint64_t relax_ns;
	/* every read advances the clock this much (a stalled-port test) */
	uint64_t read_ns;
	/* once the clock passes this, *stop_flag is set (0: never) */
	uint64_t stop_at;
	/* the flag stop_at sets */
	volatile sig_atomic_t *stop_flag;
	/* the next sleep ends this much later (a machine pause the sleeper wakes after), once */
	uint64_t pause_ns;
	/* when that pause ended */
	uint64_t pause_end;
};

/* Simulated clock read. */
static uint64_t sim_now(void *ctx)
{
	struct sim_clock *c = ctx;

	c->now += c->read_ns;
	if (c->stop_at && c->now >= c->stop_at)
		*c->stop_flag = 1;
	return c->now;
}

/* Simulated sleep: what was asked, plus the overshoot (and a pause, once). */
static void sim_sleep(void *ctx, uint64_t ns)
{
	struct sim_clock *c = ctx;

	c->now += ns + c->oversleep;
	if (c->pause_ns) {
		c->now += c->pause_ns;
		c->pause_ns = 0;
		c->pause_end = c->now;
	}
}

/* Simulated busy-wait step. */
static void sim_relax(void *ctx)
{
	struct sim_clock *c = ctx;

	c->now += c->relax_ns;
}

/* A waiter clock on c. */
static struct waiter_clock sim_waiter_clock(struct sim_clock *c)
{
	return (struct waiter_clock){ .now = sim_now, .sleep = sim_sleep,
				      .relax = sim_relax, .ctx = c };
}

/* One frame a recording port took. */
struct rec_frame {
	/* simulated time of the transmit call */
	uint64_t t;
	/* the frame's bytes */
	uint8_t *data;
	/* its length */
	uint32_t len;
};

/* A port that records what it sends, with the time, then frees it. */
struct rec_port {
	/* must be first */
	struct dp_port port;
	/* the clock of the send times */
	struct sim_clock *clock;
	/* frames sent */
	struct rec_frame *f;
	/* how many */
	unsigned int n;
	/* room in f */
	unsigned int cap;
	/* take at most this many frames per call (0: all) */
	unsigned int take;
	/* take nothing at all (a stalled queue) */
	bool stalled;
	/* take nothing in the first busy_calls transmit calls (a full queue its peer drains later) */
	unsigned int busy_calls;
	/* transmit call number pause_call (from 0) takes pause_ns (a preempted sender) */
	uint64_t pause_ns;
	/* the call that pause_ns delays */
	unsigned int pause_call;
	/* transmit calls */
	unsigned int calls;
	/* largest burst offered */
	unsigned int max_burst;
	/*
	 * Keep this many sent frames before freeing the oldest (0: free at
	 * once): a transmit ring its driver cleans as it sends.
	 */
	unsigned int hold;
	/* the frames kept, oldest at held_head */
	struct rte_mbuf **held;
	/* how many are kept */
	unsigned int n_held;
	/* where the oldest is */
	unsigned int held_head;
};

/* Keep m as sent, or free it; with hold frames kept, the oldest goes. */
static void rec_port_release(struct rec_port *r, struct rte_mbuf *m)
{
	if (r->hold == 0) {
		rte_pktmbuf_free(m);
		return;
	}
	if (r->n_held == r->hold) {
		rte_pktmbuf_free(r->held[r->held_head]);
		r->held[r->held_head] = m;
		r->held_head = (r->held_head + 1) % r->hold;
		return;
	}
	r->held[(r->held_head + r->n_held++) % r->hold] = m;
}

/* Record and free what the port takes. */
static uint16_t rec_port_tx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct rec_port *r = (struct rec_port *)port;
	uint16_t k = r->stalled || r->calls < r->busy_calls ? 0 :
		     r->take && r->take < n ? (uint16_t)r->take : n;

	if (r->calls++ == r->pause_call)
		r->clock->now += r->pause_ns;
	if (n > r->max_burst)
		r->max_burst = n;
	for (uint16_t i = 0; i < k; i++) {
		struct rec_frame *f;

		cr_assert_lt(r->n, r->cap, "recording port full");
		f = &r->f[r->n++];
		f->t = r->clock->now;
		f->len = pkts[i]->pkt_len;
		f->data = malloc(f->len);
		cr_assert_not_null(f->data);
		memcpy(f->data, rte_pktmbuf_mtod(pkts[i], void *), f->len);
		rec_port_release(r, pkts[i]);
	}
	return k;
}

/* Nothing to receive. */
static uint16_t rec_port_rx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	(void)port;
	(void)pkts;
	(void)n;
	return 0;
}

/* Free the recordings. */
static void rec_port_destroy(struct dp_port *port)
{
	struct rec_port *r = (struct rec_port *)port;

	for (unsigned int i = 0; i < r->n; i++)
		free(r->f[i].data);
	for (unsigned int i = 0; i < r->n_held; i++)
		rte_pktmbuf_free(r->held[(r->held_head + i) % r->hold]);
	free(r->held);
	free(r->f);
	free(r);
}

/* The recording port's operations. */
static const struct dp_port_ops rec_port_ops = {
	.kind = "rec", .rx = rec_port_rx, .tx = rec_port_tx, .destroy = rec_port_destroy,
};

/* A recording port on clock c with room for cap frames. */
static struct rec_port *rec_port_new(struct sim_clock *c, unsigned int cap)
{
	struct rec_port *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	r->port.ops = &rec_port_ops;
	snprintf(r->port.name, sizeof(r->port.name), "rec");
	r->clock = c;
	r->cap = cap;
	r->f = calloc(cap, sizeof(*r->f));
	cr_assert_not_null(r->f);
	return r;
}

/* Frames mode as a replay_mode over the replay_frames given as state. */
static int fm_send(void *state, const struct trace_rec *rec)
{
	return replay_frames_queue(state, rec);
}

/* Flush for the test mode. */
static unsigned int fm_flush(void *state)
{
	return replay_frames_flush(state);
}

/* The test's frames mode: the library's functions on a port it owns. */
static const struct replay_mode test_frames_mode = {
	.name = "frames-test", .send = fm_send, .flush = fm_flush,
};

/* Everything one replay on the simulated clock needs. */
struct rig {
	/* the sample trace */
	struct trace *t;
	/* the clock */
	struct sim_clock clock;
	/* the port */
	struct rec_port *port;
	/* frames mode on it */
	struct replay_frames *f;
	/* departures */
	struct replay_stats *st;
	/* what the loop did */
	struct replay_loop_result res;
	/* stop flag */
	volatile sig_atomic_t stop;
};

/*
 * Set up a rig on the sample trace with room for cap frames, frames mode
 * configured as fc says (no_prebuild, max_frame; the rest is the rig's).
 */
static void rig_init_conf(struct rig *g, unsigned int cap, struct replay_frames_conf fc)
{
	struct trace_err err;
	char msg[256] = "";

	tdp_eal_init();
	memset(g, 0, sizeof(*g));
	g->clock = (struct sim_clock){ .now = START, .oversleep = 70000, .relax_ns = 1 };
	g->t = trace_load(SAMPLE, &err);
	cr_assert_not_null(g->t, "%s", err.msg);
	g->port = rec_port_new(&g->clock, cap);
	fc.socket = SOCKET_ID_ANY;
	fc.burst = 32;
	fc.clock = sim_waiter_clock(&g->clock);
	fc.stop = &g->stop;
	g->f = replay_frames_create(&g->port->port, g->t, &fc, msg, sizeof(msg));
	cr_assert_not_null(g->f, "%s", msg);
	g->st = replay_stats_new();
	cr_assert_not_null(g->st);
}

/* Set up a rig on the sample trace with room for cap frames. */
static void rig_init(struct rig *g, unsigned int cap, bool no_prebuild)
{
	rig_init_conf(g, cap, (struct replay_frames_conf){ .no_prebuild = no_prebuild });
}

/* Run the loop with timing o and burst on the rig; returns its status. */
static int rig_run(struct rig *g, const struct timing_opts *o, unsigned int burst)
{
	struct replay_loop_conf lc = {
		.clock = sim_waiter_clock(&g->clock), .spin_ns = 100000, .burst = burst,
		.catchup_ns = o->mode == TIMING_TOPSPEED ? 0 : REPLAY_CATCHUP_NS,
		.stop = &g->stop,
	};
	struct timing_sched *s = replay_sched_new(g->t, o);
	int rc;

	cr_assert_not_null(s);
	rc = replay_loop_run(s, g->t, &test_frames_mode, g->f, &lc, g->st, &g->res);
	timing_sched_free(s);
	return rc;
}

/* Free the rig. */
static void rig_free(struct rig *g)
{
	rec_port_destroy(&g->port->port);
	replay_frames_free(g->f);
	replay_stats_free(g->st);
	trace_free(g->t);
}

/*
 * Frame j of the port is trace record j % n, byte for byte, and left at
 * exactly the due time of a fresh schedule with options o anchored where
 * the loop anchored its own (the first due time).
 */
static void check_exact(struct rig *g, const struct timing_opts *o, uint64_t want)
{
	struct timing_sched *ref = replay_sched_new(g->t, o);
	struct replay_summary sum;
	uint64_t anchor;

	cr_assert_eq(g->port->n, want, "%u frames sent, want %llu", g->port->n,
		     (unsigned long long)want);
	cr_assert_eq(g->res.sent, want);
	timing_start(ref, 0);
	anchor = g->port->f[0].t - timing_due(ref, 0);
	timing_start(ref, anchor);
	for (unsigned int j = 0; j < g->port->n; j++) {
		const struct trace_rec *r = &g->t->recs[j % g->t->n];
		const struct rec_frame *f = &g->port->f[j];

		cr_assert_eq(f->len, r->caplen, "frame %u: length %u, want %u", j, f->len,
			     r->caplen);
		cr_assert(!memcmp(f->data, r->data, f->len), "frame %u: bytes differ", j);
		cr_assert_eq(f->t, timing_due(ref, j), "frame %u left at %llu, due %llu", j,
			     (unsigned long long)f->t, (unsigned long long)timing_due(ref, j));
	}
	replay_stats_summary(g->st, &sum);
	cr_assert_eq(sum.packets, want);
	cr_assert_eq(sum.err_min_ns, 0);
	cr_assert_eq(sum.err_max_ns, 0, "largest timing error %lld ns",
		     (long long)sum.err_max_ns);
	timing_sched_free(ref);
}

Test(replay_loop, pps_exact_over_loops)
{
	struct timing_opts o;
	struct rig g;

	rig_init(&g, 4000, false);
	timing_opts_init(&o);
	o.mode = TIMING_PPS;
	o.pps = 100000;
	o.loops = 10;
	o.limit = 2500;
	cr_assert_eq(rig_run(&g, &o, 32), 0);
	check_exact(&g, &o, 2500);
	cr_assert_eq(g.res.stop, TIMING_STOP_LIMIT);
	/* 10 us apart, nothing is due early: one frame per transmit call. */
	cr_assert_eq(g.port->max_burst, 1);
	cr_assert_eq(g.port->f[2499].t - g.port->f[0].t, 2499ull * 10000);
	rig_free(&g);
}

Test(replay_loop, late_sender_catches_up_in_bursts_then_paces)
{
	struct timing_opts o;
	struct timing_sched *ref;
	unsigned int late = 0;
	struct rig g;

	rig_init(&g, 1000, false);
	g.port->pause_ns = 1000000;	/* preempted for 1 ms on the first send */
	timing_opts_init(&o);
	o.mode = TIMING_PPS;
	o.pps = 100000;
	o.limit = 400;
	o.loops = 2;
	cr_assert_eq(rig_run(&g, &o, 32), 0);
	cr_assert_eq(g.port->n, 400);
	cr_assert_eq(g.port->max_burst, 32, "the backlog of 100 frames goes in bursts");
	ref = replay_sched_new(g.t, &o);
	timing_start(ref, g.port->f[0].t - g.port->pause_ns);
	for (unsigned int j = 0; j < 400; j++)
		late += g.port->f[j].t != timing_due(ref, j);
	/* Frames 1 .. ~100 were late; from then on every frame is exact. */
	cr_assert_leq(late, 101, "%u frames off schedule", late);
	cr_assert_eq(g.port->f[399].t, timing_due(ref, 399));
	cr_assert_eq(g.port->f[200].t - g.port->f[199].t, 10000);
	timing_sched_free(ref);
	rig_free(&g);
}

Test(replay_loop, recorded_multiplier_exact_and_increasing_across_loops)
{
	struct timing_opts o;
	struct rig g;

	rig_init(&g, 2000, false);
	timing_opts_init(&o);
	o.multiplier = 3;
	o.loops = 4;
	cr_assert_eq(rig_run(&g, &o, 32), 0);
	check_exact(&g, &o, 4 * 260);
	cr_assert_eq(g.res.stop, TIMING_STOP_END);
	for (unsigned int j = 260; j < g.port->n; j += 260)
		cr_assert_gt(g.port->f[j].t, g.port->f[j - 1].t, "loop starting at %u", j);
	rig_free(&g);
}

Test(replay_loop, mbps_exact_with_copied_frames)
{
	struct timing_opts o;
	struct rig g;

	rig_init(&g, 1000, true);
	timing_opts_init(&o);
	o.mode = TIMING_MBPS;
	o.mbps = 50;
	o.loops = 2;
	o.limit = 400;
	cr_assert_eq(rig_run(&g, &o, 32), 0);
	check_exact(&g, &o, 400);
	rig_free(&g);
}

Test(replay_loop, topspeed_sends_in_bursts_in_order)
{
	struct timing_opts o;
	struct replay_frames_stats fs;
	struct rig g;

	rig_init(&g, 2000, false);
	timing_opts_init(&o);
	o.mode = TIMING_TOPSPEED;
	o.loops = 5;
	cr_assert_eq(rig_run(&g, &o, 16), 0);
	cr_assert_eq(g.port->n, 1300);
	cr_assert_eq(g.port->max_burst, 16);
	cr_assert_eq(g.res.flushes, (1300 + 15) / 16);
	for (unsigned int j = 0; j < g.port->n; j++)
		cr_assert(!memcmp(g.port->f[j].data, g.t->recs[j % 260].data, g.port->f[j].len));
	replay_frames_get_stats(g.f, &fs);
	cr_assert_eq(fs.sent, 1300);
	cr_assert_eq(fs.prebuilt, 260);
	cr_assert_eq(fs.dropped, 0);
	rig_free(&g);
}

Test(replay_loop, duration_stops_on_schedule)
{
	struct timing_opts o;
	struct rig g;

	rig_init(&g, 2000, false);
	timing_opts_init(&o);
	o.mode = TIMING_PPS;
	o.pps = 1000;
	o.loops = TIMING_LOOPS_FOREVER;
	o.duration_ns = 500000000;
	cr_assert_eq(rig_run(&g, &o, 32), 0);
	/* Due at 0, 1, ..., 499 ms: the one due at 500 ms is past the duration. */
	check_exact(&g, &o, 500);
	cr_assert_eq(g.res.stop, TIMING_STOP_DURATION);
	rig_free(&g);
}

Test(replay_loop, full_queue_is_retried_not_dropped)
{
	struct timing_opts o;
	struct replay_frames_stats fs;
	struct rig g;

	rig_init(&g, 1000, false);
	g.port->take = 3;
	timing_opts_init(&o);
	o.mode = TIMING_TOPSPEED;
	o.loops = 3;
	o.limit = 520;
	cr_assert_eq(rig_run(&g, &o, 32), 0);
	cr_assert_eq(g.port->n, 520, "%u sent, %llu queued", g.port->n, (unsigned long long)g.res.queued);
	for (unsigned int j = 0; j < g.port->n; j++)
		cr_assert(!memcmp(g.port->f[j].data, g.t->recs[j % 260].data, g.port->f[j].len),
			  "frame %u out of order", j);
	replay_frames_get_stats(g.f, &fs);
	cr_assert_gt(fs.tx_busy, 0);
	cr_assert_geq(fs.tx_waited, fs.tx_busy);
	cr_assert_eq(fs.dropped, 0);
	cr_assert_eq(g.port->port.stats.tx_frames, 520);
	rig_free(&g);
}

Test(replay_loop, stalled_queue_loses_one_burst_after_the_timeout_then_the_rest_at_once)
{
	struct timing_opts o;
	struct replay_frames_stats fs;
	struct rig g;

	rig_init(&g, 100, false);
	g.port->stalled = true;
	g.clock.read_ns = 1000000;	/* every clock read: 1 ms */
	timing_opts_init(&o);
	o.mode = TIMING_TOPSPEED;
	o.limit = 40;
	cr_assert_eq(rig_run(&g, &o, 32), 0);
	replay_frames_get_stats(g.f, &fs);
	cr_assert_eq(fs.sent, 0);
	cr_assert_eq(fs.dropped, 40);
	cr_assert_eq(g.res.sent, 0);
	cr_assert_eq(fs.stalls, 1);
	/* The first burst waited the stall time-out (1 s), the second not again. */
	cr_assert_geq(g.clock.now - START, REPLAY_FRAMES_STALL_NS);
	cr_assert_lt(g.clock.now - START, 2 * REPLAY_FRAMES_STALL_NS,
		     "%llu ns", (unsigned long long)(g.clock.now - START));
	rig_free(&g);
}

/* Queue records first .. first + n - 1 of the rig's trace and flush them; what the port took. */
static unsigned int rig_burst(struct rig *g, uint64_t first, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		cr_assert_eq(replay_frames_queue(g->f, &g->t->recs[first + i]), 0);
	return replay_frames_flush(g->f);
}

/*
 * After a stall, bursts are offered once and dropped at once while the
 * port takes nothing; once it takes a frame, a partial take is retried
 * again, and a new stall waits the time-out again.
 */
Test(replay_frames, after_a_stall_bursts_are_not_waited_on_until_the_port_takes_a_frame)
{
	struct replay_frames_stats fs;
	uint64_t t0;
	struct rig g;

	rig_init(&g, 100, false);
	g.port->stalled = true;
	g.clock.read_ns = 1000000;	/* every clock read: 1 ms */
	t0 = g.clock.now;
	cr_assert_eq(rig_burst(&g, 0, 4), 0);
	cr_assert_geq(g.clock.now - t0, REPLAY_FRAMES_STALL_NS);
	t0 = g.clock.now;
	for (unsigned int b = 0; b < 10; b++)
		cr_assert_eq(rig_burst(&g, 4, 4), 0);
	cr_assert_lt(g.clock.now - t0, 10000000ull, "%llu ns for 10 bursts of a stalled port",
		     (unsigned long long)(g.clock.now - t0));
	replay_frames_get_stats(g.f, &fs);
	cr_assert_eq(fs.dropped, 44);
	cr_assert_eq(fs.stalls, 1);
	/* The port takes frames again, one per call: every one goes, none dropped. */
	g.port->stalled = false;
	g.port->take = 1;
	cr_assert_eq(rig_burst(&g, 8, 4), 4);
	/* ... and a new stall is waited on again. */
	g.port->stalled = true;
	t0 = g.clock.now;
	cr_assert_eq(rig_burst(&g, 12, 4), 0);
	cr_assert_geq(g.clock.now - t0, REPLAY_FRAMES_STALL_NS);
	replay_frames_get_stats(g.f, &fs);
	cr_assert_eq(fs.sent, 4);
	cr_assert_eq(fs.dropped, 48);
	cr_assert_eq(fs.stalls, 2);
	cr_assert_eq(g.port->n, 4);
	rig_free(&g);
}

/*
 * A sender that did not run for 2 s (preempted, the machine paused) while
 * the queue was full has not watched the port for the stall time-out: the
 * first transmit call after the pause, which takes nothing (the peer has
 * not run yet either), is retried like any other, and the burst goes once
 * the port takes it. Before, the 2 s counted: the burst was dropped as
 * stalled at that first call.
 */
Test(replay_frames, a_sender_paused_past_the_stall_time_out_retries_and_drops_nothing)
{
	struct replay_frames_stats fs;
	struct rig g;

	rig_init(&g, 100, false);
	g.port->busy_calls = 4;
	g.port->pause_call = 2;
	g.port->pause_ns = 2 * REPLAY_FRAMES_STALL_NS;
	cr_assert_eq(rig_burst(&g, 0, 32), 32);
	replay_frames_get_stats(g.f, &fs);
	cr_assert_eq(fs.dropped, 0, "%llu frames dropped after a pause of the sender",
		     (unsigned long long)fs.dropped);
	cr_assert_eq(fs.stalls, 0);
	cr_assert_eq(fs.sent, 32);
	cr_assert_eq(g.port->calls, 5);
	rig_free(&g);
}

/*
 * A port that takes nothing is still given up on when the sender is
 * preempted between every two transmit calls (50 ms each time, counted as
 * REPLAY_GAP_NS): after 1 s of watched time, so within
 * REPLAY_FRAMES_STALL_NS / REPLAY_GAP_NS calls, not never.
 */
Test(replay_frames, a_stalled_port_is_given_up_on_by_a_sender_preempted_at_every_call)
{
	const uint64_t looks = REPLAY_FRAMES_STALL_NS / REPLAY_GAP_NS;
	struct replay_frames_stats fs;
	struct rig g;

	rig_init(&g, 100, false);
	g.port->stalled = true;
	g.clock.read_ns = 50000000;	/* every clock read (one per call): 50 ms */
	cr_assert_eq(rig_burst(&g, 0, 4), 0);
	replay_frames_get_stats(g.f, &fs);
	cr_assert_eq(fs.stalls, 1);
	cr_assert_eq(fs.dropped, 4);
	cr_assert_eq(g.port->calls, looks + 1, "%u transmit calls, want %llu", g.port->calls,
		     (unsigned long long)(looks + 1));
	rig_free(&g);
}

/*
 * Before the port closes, its peer gets REPLAY_FRAMES_CLOSE_NS to take the
 * last frames; when the machine pauses for 1 s during that wait (the
 * sleeper wakes after it), the peer still gets all but REPLAY_GAP_NS
 * of it after the pause. Before, the wait was one sleep of 100 ms: it was
 * over when the pause ended, and the port closed at once.
 */
Test(replay_frames, the_peer_gets_its_time_before_the_port_closes_after_a_pause_too)
{
	uint64_t t0;
	struct rig g;

	rig_init(&g, 100, false);
	t0 = g.clock.now;
	replay_frames_close_wait(g.f);
	cr_assert_geq(g.clock.now - t0, REPLAY_FRAMES_CLOSE_NS);
	cr_assert_lt(g.clock.now - t0, REPLAY_FRAMES_CLOSE_NS + 2 * REPLAY_FRAMES_CLOSE_STEP_NS,
		     "%llu ns", (unsigned long long)(g.clock.now - t0));
	g.clock.pause_ns = REPLAY_FRAMES_STALL_NS;
	replay_frames_close_wait(g.f);
	cr_assert_geq(g.clock.now - g.clock.pause_end, REPLAY_FRAMES_CLOSE_NS - REPLAY_GAP_NS,
		      "the peer got %llu ns after the pause",
		      (unsigned long long)(g.clock.now - g.clock.pause_end));
	rig_free(&g);
}

/*
 * tx busy counts the bursts the port did not take whole at the first
 * transmit call, not the retries: a burst of 8 taken 3 at a time is one
 * (5 frames waited), however many calls it took; a burst taken whole is
 * none; a stalled port's first burst, retried for the 1 s time-out (1000
 * calls here), is one, and each burst after it one more.
 */
Test(replay_frames, tx_busy_counts_bursts_not_retries)
{
	struct replay_frames_stats fs;
	struct rig g;

	rig_init(&g, 100, false);
	g.port->take = 3;
	cr_assert_eq(rig_burst(&g, 0, 8), 8);
	replay_frames_get_stats(g.f, &fs);
	cr_assert_eq(fs.tx_busy, 1, "%llu busy after one burst taken 3 at a time",
		     (unsigned long long)fs.tx_busy);
	cr_assert_eq(fs.tx_waited, 5);
	g.port->take = 0;
	cr_assert_eq(rig_burst(&g, 8, 4), 4);
	g.port->stalled = true;
	g.clock.read_ns = 1000000;	/* every clock read: 1 ms */
	cr_assert_eq(rig_burst(&g, 12, 4), 0);
	for (unsigned int b = 0; b < 10; b++)
		cr_assert_eq(rig_burst(&g, 16, 4), 0);
	replay_frames_get_stats(g.f, &fs);
	cr_assert_eq(fs.tx_busy, 12, "%llu busy after 12 bursts not taken whole",
		     (unsigned long long)fs.tx_busy);
	cr_assert_eq(fs.tx_waited, 5 + 44);
	cr_assert_eq(fs.dropped, 44);
	cr_assert_eq(fs.sent, 12);
	rig_free(&g);
}

/*
 * Copied frames through a port that keeps what it sent until its ring
 * wraps (a NIC's transmit ring, cleaned as it sends): the pool runs dry
 * while frames wait, the loop flushes them and goes on, and its report
 * covers every frame the port took.
 */
Test(replay_loop, copy_pool_running_dry_is_flushed_by_the_loop)
{
	struct replay_frames_stats fs;
	struct replay_summary sum;
	struct timing_opts o;
	struct rig g;

	rig_init(&g, 6000, true);
	g.port->hold = REPLAY_FRAMES_COPY_POOL - 8;
	g.port->held = calloc(g.port->hold, sizeof(*g.port->held));
	cr_assert_not_null(g.port->held);
	timing_opts_init(&o);
	o.mode = TIMING_TOPSPEED;
	o.loops = TIMING_LOOPS_FOREVER;
	o.limit = 6000;
	cr_assert_eq(rig_run(&g, &o, 32), 0);
	replay_frames_get_stats(g.f, &fs);
	replay_stats_summary(g.st, &sum);
	cr_assert_eq(g.port->n, 6000);
	cr_assert_eq(fs.sent, 6000);
	cr_assert_eq(fs.dropped, 0);
	cr_assert_eq(g.res.sent, 6000, "the loop counted %llu sent",
		     (unsigned long long)g.res.sent);
	cr_assert_eq(sum.packets, 6000, "the report has %llu departures",
		     (unsigned long long)sum.packets);
	/* More flushes than full bursts: the pool did run dry. */
	cr_assert_gt(g.res.flushes, 6000 / 32 + 1);
	for (unsigned int j = 0; j < g.port->n; j++)
		cr_assert(!memcmp(g.port->f[j].data, g.t->recs[j % 260].data, g.port->f[j].len),
			  "frame %u out of order", j);
	rig_free(&g);
}

Test(replay_loop, stop_flag_ends_a_long_gap)
{
	struct timing_opts o;
	struct rig g;

	rig_init(&g, 100, false);
	timing_opts_init(&o);
	o.mode = TIMING_PPS;
	o.pps = 0.001;	/* one frame every 1000 s */
	g.clock.stop_at = START + 5000000000ull;
	g.clock.stop_flag = &g.stop;
	cr_assert_eq(rig_run(&g, &o, 32), 0);
	cr_assert(g.res.interrupted);
	cr_assert_eq(g.port->n, 1);
	/* Stopped within one stop-check step (100 ms) plus a sleep overshoot. */
	cr_assert_lt(g.clock.now, g.clock.stop_at + 200000000ull);
	rig_free(&g);
}

/* A mode whose send fails at the third record. */
static int fail_send(void *state, const struct trace_rec *rec)
{
	unsigned int *n = state;

	(void)rec;
	return ++*n == 3 ? -EIO : 0;
}

/* Its flush sends everything. */
static unsigned int fail_flush(void *state)
{
	(void)state;
	return REPLAY_BURST_MAX;
}

Test(replay_loop, mode_error_ends_the_replay)
{
	const struct replay_mode m = { .name = "fail", .send = fail_send, .flush = fail_flush };
	struct sim_clock c = { .now = START, .relax_ns = 1 };
	struct replay_loop_conf lc = { .clock = sim_waiter_clock(&c), .spin_ns = 1000, .burst = 1 };
	struct trace_err err;
	struct trace *t = trace_load(SAMPLE, &err);
	struct replay_stats *st = replay_stats_new();
	struct replay_loop_result res;
	struct timing_opts o;
	struct timing_sched *s;
	unsigned int n = 0;

	cr_assert_not_null(t);
	timing_opts_init(&o);
	o.mode = TIMING_PPS;
	o.pps = 1000;
	s = replay_sched_new(t, &o);
	cr_assert_eq(replay_loop_run(s, t, &m, &n, &lc, st, &res), -EIO);
	cr_assert_eq(res.error, -EIO);
	cr_assert_eq(res.sent, 2);
	timing_sched_free(s);
	replay_stats_free(st);
	trace_free(t);
}

/*
 * Frames mode refuses the sample, given link type linktype, on a port that
 * sends max_frame bytes: errno e and a message saying want.
 */
static void check_refused(uint32_t linktype, uint32_t max_frame, int e, const char *want)
{
	struct sim_clock c = { .now = START };
	struct replay_frames_conf fc = { .socket = SOCKET_ID_ANY, .burst = 32,
					 .clock = sim_waiter_clock(&c),
					 .limit = { .untagged = max_frame } };
	struct trace_err err;
	struct trace *t;
	struct rec_port *p;
	char msg[256] = "";

	tdp_eal_init();
	t = trace_load(SAMPLE, &err);
	cr_assert_not_null(t);
	p = rec_port_new(&c, 1);
	t->info.linktype = linktype;
	cr_assert_null(replay_frames_create(&p->port, t, &fc, msg, sizeof(msg)));
	cr_assert_eq(errno, e);
	cr_assert(strstr(msg, want), "%s", msg);
	rec_port_destroy(&p->port);
	trace_free(t);
}

Test(replay_frames, refuses_non_ethernet)
{
	check_refused(101, 0, EPROTONOSUPPORT, "link type 101 (RAW, Raw IP) is not Ethernet (1)");
}

/*
 * Records longer than the port sends (max_frame 1000 here; the sample has
 * 1514-byte frames) leave the trace before the replay, counted with the
 * first one's place in the file; the others go out, in order.
 */
static void check_too_long_left_out(bool no_prebuild)
{
	struct replay_frames_conf fc = { .no_prebuild = no_prebuild,
					 .limit = { .untagged = 1000 } };
	struct replay_frames_stats fs;
	struct trace_err err;
	struct trace *file = trace_load(SAMPLE, &err);
	uint64_t kept = 0, first = UINT64_MAX;
	struct timing_opts o;
	unsigned int j = 0;
	struct rig g;

	cr_assert_not_null(file, "%s", err.msg);
	for (uint64_t k = 0; k < file->n; k++) {
		if (file->recs[k].caplen <= 1000)
			kept++;
		else if (first == UINT64_MAX)
			first = k;
	}
	cr_assert(kept > 0 && kept < file->n, "the sample has short and long frames");
	rig_init_conf(&g, 1000, fc);
	replay_frames_get_stats(g.f, &fs);
	cr_assert_eq(g.t->n, kept);
	cr_assert_eq(fs.too_long, file->n - kept);
	cr_assert_eq(fs.limit.untagged, 1000);
	cr_assert_eq(fs.limit.cap, REPLAY_FRAMES_MBUF_MAX);
	cr_assert_eq(fs.first_too_long.index, first);
	cr_assert_eq(fs.first_too_long.offset, file->recs[first].offset);
	timing_opts_init(&o);
	o.mode = TIMING_TOPSPEED;
	cr_assert_eq(rig_run(&g, &o, 32), 0);
	cr_assert_eq(g.port->n, kept);
	cr_assert_eq(g.res.sent, kept);
	for (uint64_t k = 0; k < file->n; k++) {
		const struct trace_rec *r = &file->recs[k];

		if (r->caplen > 1000)
			continue;
		cr_assert_eq(g.port->f[j].len, r->caplen, "frame %u", j);
		cr_assert(!memcmp(g.port->f[j].data, r->data, r->caplen), "frame %u", j);
		j++;
	}
	trace_free(file);
	rig_free(&g);
}

Test(replay_frames, too_long_records_left_out_prebuilt)
{
	check_too_long_left_out(false);
}

Test(replay_frames, too_long_records_left_out_copied)
{
	check_too_long_left_out(true);
}

Test(replay_frames, refuses_a_trace_with_every_record_too_long)
{
	check_refused(1, 40, EMSGSIZE,
		      "every record (260) is longer than port rec sends, frames of 40 bytes");
}

/*
 * A trace in memory of n Ethernet frames: frame k is lens[k] bytes long and
 * starts with the TPIDs tpids[k] (up to two, 0-ended), then EtherType
 * 0x88b5, then k + 1 bytes; one millisecond apart.
 */
static struct trace *vlan_trace(unsigned int n, const uint32_t *lens, const uint16_t (*tpids)[3])
{
	struct trace *t = calloc(1, sizeof(*t));
	uint64_t total = 0, off = 0;

	cr_assert_not_null(t);
	for (unsigned int k = 0; k < n; k++)
		total += lens[k];
	t->recs = calloc(n, sizeof(*t->recs));
	t->data = malloc(total);
	cr_assert(t->recs && t->data);
	t->n = n;
	t->info = (struct trace_info){ .format = TRACE_FMT_PCAP_NS, .linktype = 1,
				       .snaplen = TRACE_MAX_SNAPLEN, .records = n };
	for (unsigned int k = 0; k < n; k++) {
		uint8_t *d = t->data + off;
		unsigned int at = 12;

		memset(d, (int)k + 1, lens[k]);
		memset(d, 0x02, 12);
		for (const uint16_t *tp = tpids[k]; *tp; tp++, at += 4) {
			d[at] = (uint8_t)(*tp >> 8);
			d[at + 1] = (uint8_t)*tp;
			d[at + 2] = 0;
			d[at + 3] = (uint8_t)(10 + k);
		}
		d[at] = 0x88;
		d[at + 1] = 0xb5;
		t->recs[k] = (struct trace_rec){ .ts_ns = START + k * 1000000ull,
						 .caplen = lens[k], .wirelen = lens[k],
						 .data = d, .index = k, .offset = 24 + off + 16 * k };
		off += lens[k];
		t->info.cap_bytes += lens[k];
	}
	t->info.wire_bytes = t->info.cap_bytes;
	return t;
}

Test(replay_frames, mtu_needed_is_the_longest_frame_less_header_and_tags)
{
	static const uint32_t lens[] = { 60, 1522, 1600, 9000, 9010, 70 };
	static const uint16_t tp[][3] = { { 0 }, { 0x88a8, 0x8100, 0 }, { 0 }, { 0x8100, 0 },
					  { 0x88a8, 0x8100, 0 }, { 0 } };
	struct trace *t = vlan_trace(6, lens, tp);
	const struct trace_rec *r;

	/* 9000 - 14 - 4 = 8982; 9010 - 14 - 8 = 8988: record 4. */
	cr_assert_eq(replay_frames_mtu_needed(t, NULL, &r), 8988);
	cr_assert_eq(r, &t->recs[4]);
	cr_assert_eq(replay_frames_mtu_needed(t, NULL, NULL), 8988);
	/* af_packet's rule: 9000 - 14 - 4 = 8982; 9010 - 14 (802.1ad outer) = 8996. */
	cr_assert_eq(replay_frames_mtu_needed(t, &dp_frame_rule_one_ctag, &r), 8996);
	cr_assert_eq(r, &t->recs[4]);
	t->n = 3;
	cr_assert_eq(replay_frames_mtu_needed(t, NULL, &r), 1586);
	cr_assert_eq(r->index, 2);
	t->n = 0;
	cr_assert_eq(replay_frames_mtu_needed(t, NULL, &r), 0);
	cr_assert_null(r);
	t->n = 6;
	t->info.linktype = 101;
	cr_assert_eq(replay_frames_mtu_needed(t, NULL, &r), 0);
	cr_assert_null(r);
	trace_free(t);
}

/*
 * On a port whose limit counts tags as the kernel's af_packet does (MTU
 * 2200: 2214 bytes, 4 more for an outer 802.1Q tag, slots of 2272), the
 * tagged frames within it are sent whole and the others left out.
 */
Test(replay_frames, vlan_tags_count_toward_the_limit_as_the_port_says)
{
	static const uint32_t lens[] = { 2214, 2215, 2218, 2218, 2219, 2218, 2218, 60 };
	static const uint16_t tp[][3] = { { 0 }, { 0 }, { 0x8100, 0 }, { 0x8100, 0x8100, 0 },
					  { 0x8100, 0 }, { 0x88a8, 0 }, { 0x88a8, 0x8100, 0 },
					  { 0x8100, 0 } };
	static const bool sent[] = { true, false, true, true, false, false, false, true };
	struct sim_clock c = { .now = START, .relax_ns = 1 };
	struct replay_frames_conf fc = {
		.socket = SOCKET_ID_ANY, .burst = 32, .clock = sim_waiter_clock(&c),
		.limit = { .untagged = 2214, .tags = 1, .ctag_only = true, .cap = 2272 },
	};
	struct trace *t = vlan_trace(8, lens, tp);
	struct replay_frames_stats fs;
	struct replay_frames *f;
	struct rec_port *p;
	char msg[256] = "";
	unsigned int j = 0;

	tdp_eal_init();
	p = rec_port_new(&c, 16);
	f = replay_frames_create(&p->port, t, &fc, msg, sizeof(msg));
	cr_assert_not_null(f, "%s", msg);
	replay_frames_get_stats(f, &fs);
	cr_assert_eq(fs.too_long, 4);
	cr_assert_eq(fs.first_too_long.index, 1);
	cr_assert_eq(t->n, 4);
	for (uint64_t k = 0; k < t->n; k++)
		cr_assert_eq(replay_frames_queue(f, &t->recs[k]), 0);
	cr_assert_eq(replay_frames_flush(f), 4);
	for (unsigned int k = 0; k < 8; k++) {
		if (!sent[k])
			continue;
		cr_assert_eq(p->f[j].len, lens[k], "frame %u", j);
		cr_assert_eq(p->f[j].data[lens[k] - 1], k + 1, "frame %u is record %u", j, k);
		j++;
	}
	cr_assert_eq(p->n, 4);
	rec_port_destroy(&p->port);
	replay_frames_free(f);
	trace_free(t);
}

/*
 * Records shorter than an Ethernet header (0, 5, 13 bytes) leave the trace,
 * counted with the first one's place; 14 and 60 bytes go out.
 */
Test(replay_frames, records_shorter_than_an_ethernet_header_left_out)
{
	static const uint32_t lens[] = { 60, 60, 60, 60, 60, 60 };
	static const uint32_t caplens[] = { 60, 0, 5, 14, 13, 60 };
	static const uint16_t tp[][3] = { { 0 }, { 0 }, { 0 }, { 0 }, { 0 }, { 0 } };
	struct sim_clock c = { .now = START, .relax_ns = 1 };
	struct replay_frames_conf fc = {
		.socket = SOCKET_ID_ANY, .burst = 32, .clock = sim_waiter_clock(&c),
	};
	struct trace *t = vlan_trace(6, lens, tp);
	struct replay_frames_stats fs;
	struct replay_frames *f;
	struct rec_port *p;
	char msg[256] = "";

	tdp_eal_init();
	for (unsigned int k = 0; k < 6; k++)
		t->recs[k].caplen = t->recs[k].wirelen = caplens[k];
	p = rec_port_new(&c, 16);
	f = replay_frames_create(&p->port, t, &fc, msg, sizeof(msg));
	cr_assert_not_null(f, "%s", msg);
	replay_frames_get_stats(f, &fs);
	cr_assert_eq(fs.too_short, 3);
	cr_assert_eq(fs.too_long, 0);
	cr_assert_eq(fs.first_too_short.index, 1);
	cr_assert_eq(fs.first_too_short.offset, t->recs[0].offset + 16 + 60);
	cr_assert_eq(t->n, 3);
	for (uint64_t k = 0; k < t->n; k++)
		cr_assert_eq(replay_frames_queue(f, &t->recs[k]), 0);
	cr_assert_eq(replay_frames_flush(f), 3);
	cr_assert_eq(p->n, 3);
	cr_assert_eq(p->f[0].len, 60);
	cr_assert_eq(p->f[1].len, 14);
	cr_assert_eq(p->f[1].data[13], 0xb5, "record 3, its header whole");
	cr_assert_eq(p->f[2].len, 60);
	cr_assert_eq(p->f[2].data[59], 6, "record 5");
	rec_port_destroy(&p->port);
	replay_frames_free(f);
	/* Nothing left: refused, saying why. */
	t->n = 2;
	t->recs[0].caplen = 0;
	t->recs[1].caplen = 13;
	p = rec_port_new(&c, 1);
	cr_assert_null(replay_frames_create(&p->port, t, &fc, msg, sizeof(msg)));
	cr_assert_eq(errno, EMSGSIZE);
	cr_assert_str_eq(msg, "every record (2) is shorter than an Ethernet header (14 bytes): nothing to send");
	rec_port_destroy(&p->port);
	trace_free(t);
}

/* A fake timestamp clock for the capture tests. */
static uint64_t fake_ts(void *ctx)
{
	uint64_t *t = ctx;

	return *t;
}

/* A scratch file name for test name. */
static void scratch(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/test_replay-%s-%d.pcap", SEGNET_TEST_TMPDIR, name, (int)getpid());
}

/* n frames of the sample trace as mbufs of mp (records first .. first + n - 1). */
static void sample_frames(const struct trace *t, struct rte_mempool *mp, unsigned int first,
			  unsigned int n, struct rte_mbuf **out)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct trace_rec *r = &t->recs[first + i];

		out[i] = dp_frame_alloc(mp, (uint16_t)r->caplen);
		cr_assert_not_null(out[i]);
		memcpy(rte_pktmbuf_mtod(out[i], void *), r->data, r->caplen);
	}
}

Test(port_capture, rx_and_tx_frames_with_injected_timestamps)
{
	struct rte_mempool *mp;
	struct rte_mbuf *m[8], *got[8];
	struct dp_port *a, *b;
	struct port_capture *cap;
	struct capture_counts n;
	struct trace_err err;
	struct trace *t, *back;
	uint64_t now = 1700000000123456789ull;
	struct port_capture_opts o = { .clock = { .now = fake_ts, .ctx = &now } };
	char path[512], line[512] = "";
	FILE *sum;

	tdp_eal_init();
	mp = tdp_pool("pc1", 64);
	t = trace_load(SAMPLE, &err);
	cr_assert_not_null(t);
	a = tport_create("a", 16);
	b = tport_create("b", 16);
	scratch(path, sizeof(path), "both");
	cap = port_capture_open(path, &o);
	cr_assert_not_null(cap, "%s", strerror(errno));
	cr_assert_eq(port_capture_attach(cap, a), 0);
	cr_assert_eq(port_capture_attach(cap, b), 0);
	cr_assert_eq(port_capture_attach(cap, a), -EBUSY);
	/* Frames 0-4 leave on a, then 5-7 arrive on b. */
	sample_frames(t, mp, 0, 8, m);
	dp_port_tx(a, m, 5);
	now += 1000;
	for (int i = 5; i < 8; i++)
		tport_push(b, m[i]);
	cr_assert_eq(dp_port_rx(b, got, 8), 3);
	rte_pktmbuf_free_bulk(got, 3);
	sum = tmpfile();
	cr_assert_eq(port_capture_close(cap, sum, &n), 0);
	cr_assert_null(a->tap);
	cr_assert_null(b->tap);
	rewind(sum);
	cr_assert_not_null(fgets(line, sizeof(line), sum));
	fclose(sum);
	cr_assert(strstr(line, ": 8 frames written ("), "%s", line);
	cr_assert(strstr(line, ", 0 dropped by bound"), "%s", line);
	cr_assert_eq(n.packets, 8);
	back = trace_load(path, &err);
	cr_assert_not_null(back, "%s", err.msg);
	cr_assert_eq(back->info.format, TRACE_FMT_PCAP_NS);
	cr_assert_eq(back->n, 8);
	for (unsigned int i = 0; i < 8; i++) {
		cr_assert_eq(back->recs[i].caplen, t->recs[i].caplen);
		cr_assert(!memcmp(back->recs[i].data, t->recs[i].data, t->recs[i].caplen));
		cr_assert_eq(back->recs[i].ts_ns, 1700000000123456789ull + (i < 5 ? 0 : 1000),
			     "record %u ts %llu", i, (unsigned long long)back->recs[i].ts_ns);
	}
	trace_free(back);
	trace_free(t);
	dp_port_destroy(a);
	dp_port_destroy(b);
	unlink(path);
}

Test(port_capture, rx_only_bounded_by_packets)
{
	struct rte_mempool *mp;
	struct rte_mbuf *m[10], *got[10];
	struct dp_port *a;
	struct port_capture *cap;
	struct capture_counts n;
	struct trace_err err;
	struct trace *t, *back;
	uint64_t now = 5;
	struct port_capture_opts o = {
		.file = { .max_packets = 4 }, .dirs = PORT_CAPTURE_RX,
		.clock = { .now = fake_ts, .ctx = &now },
	};
	char path[512], line[512] = "";
	FILE *sum;

	tdp_eal_init();
	mp = tdp_pool("pc2", 64);
	t = trace_load(SAMPLE, &err);
	a = tport_create("a", 16);
	scratch(path, sizeof(path), "rx");
	cap = port_capture_open(path, &o);
	cr_assert_not_null(cap);
	cr_assert_eq(port_capture_attach(cap, a), 0);
	sample_frames(t, mp, 10, 10, m);
	dp_port_tx(a, m, 4);	/* not captured: rx only */
	for (int i = 4; i < 10; i++)
		tport_push(a, m[i]);
	cr_assert_eq(dp_port_rx(a, got, 10), 6);
	rte_pktmbuf_free_bulk(got, 6);
	port_capture_counts(cap, &n);
	cr_assert_eq(n.packets, 4);
	cr_assert_eq(n.dropped, 2);
	sum = tmpfile();
	cr_assert_eq(port_capture_close(cap, sum, NULL), 0);
	rewind(sum);
	cr_assert_not_null(fgets(line, sizeof(line), sum));
	fclose(sum);
	cr_assert(strstr(line, ": 4 frames written ("), "%s", line);
	cr_assert(strstr(line, ", 2 dropped by bound (full-packets)"), "%s", line);
	back = trace_load(path, &err);
	cr_assert_not_null(back, "%s", err.msg);
	cr_assert_eq(back->n, 4);
	for (unsigned int i = 0; i < 4; i++)
		cr_assert(!memcmp(back->recs[i].data, t->recs[14 + i].data, t->recs[14 + i].caplen));
	trace_free(back);
	trace_free(t);
	dp_port_destroy(a);
	unlink(path);
}

Test(port_capture, multi_segment_frame_gathered)
{
	struct rte_mempool *mp;
	struct rte_mbuf *h, *tl;
	struct dp_port *a;
	struct port_capture *cap;
	struct trace_err err;
	struct trace *back;
	uint64_t now = 42;
	struct port_capture_opts o = { .clock = { .now = fake_ts, .ctx = &now } };
	char path[512];

	tdp_eal_init();
	mp = tdp_pool("pc3", 16);
	a = tport_create("a", 4);
	scratch(path, sizeof(path), "seg");
	cap = port_capture_open(path, &o);
	cr_assert_not_null(cap);
	cr_assert_eq(port_capture_attach(cap, a), 0);
	h = dp_frame_alloc(mp, 100);
	tl = dp_frame_alloc(mp, 50);
	cr_assert(h && tl, "pool empty");
	memset(rte_pktmbuf_mtod(h, void *), 0xaa, 100);
	memset(rte_pktmbuf_mtod(tl, void *), 0xbb, 50);
	cr_assert_eq(rte_pktmbuf_chain(h, tl), 0);
	dp_port_tx1(a, h);
	cr_assert_eq(port_capture_close(cap, NULL, NULL), 0);
	back = trace_load(path, &err);
	cr_assert_not_null(back, "%s", err.msg);
	cr_assert_eq(back->n, 1);
	cr_assert_eq(back->recs[0].caplen, 150);
	cr_assert_eq(back->recs[0].data[99], 0xaa);
	cr_assert_eq(back->recs[0].data[100], 0xbb);
	trace_free(back);
	dp_port_destroy(a);
	unlink(path);
}

/*
 * A capture shows the wire: frames the transmit queue refused (tx_full, or
 * left to the caller by dp_port_tx_keep) are not in it, and holding frames
 * across the send leaks none.
 */
Test(port_capture, frames_the_queue_refused_are_not_captured)
{
	struct rte_mempool *mp;
	struct rte_mbuf *m[8];
	struct dp_port *a;
	struct port_capture *cap;
	struct trace_err err;
	struct trace *t, *back;
	uint64_t now = 7;
	struct port_capture_opts o = { .clock = { .now = fake_ts, .ctx = &now } };
	char path[512];
	unsigned int avail;

	tdp_eal_init();
	mp = tdp_pool("pc5", 64);
	avail = rte_mempool_avail_count(mp);
	t = trace_load(SAMPLE, &err);
	cr_assert_not_null(t);
	a = tport_create("a", 16);
	tport_of(a)->tx_limit = 2;
	scratch(path, sizeof(path), "full");
	cap = port_capture_open(path, &o);
	cr_assert_not_null(cap, "%s", strerror(errno));
	cr_assert_eq(port_capture_attach(cap, a), 0);
	sample_frames(t, mp, 0, 5, m);
	dp_port_tx(a, m, 5);			/* 0, 1 taken; 2-4 tx_full */
	cr_assert_eq(a->stats.tx_frames, 2);
	cr_assert_eq(a->stats.tx_full, 3);
	sample_frames(t, mp, 5, 3, m);
	cr_assert_eq(dp_port_tx_keep(a, m, 3), 2);	/* 5, 6 taken; 7 the caller's */
	rte_pktmbuf_free(m[2]);
	cr_assert_eq(port_capture_close(cap, NULL, NULL), 0);
	back = trace_load(path, &err);
	cr_assert_not_null(back, "%s", err.msg);
	cr_assert_eq(back->n, 4, "captured %u frames, the port took 4", (unsigned int)back->n);
	for (unsigned int i = 0; i < 4; i++) {
		unsigned int rec = i < 2 ? i : i + 3;

		cr_assert_eq(back->recs[i].caplen, t->recs[rec].caplen);
		cr_assert(!memcmp(back->recs[i].data, t->recs[rec].data, t->recs[rec].caplen));
	}
	trace_free(back);
	trace_free(t);
	dp_port_destroy(a);
	cr_assert_eq(rte_mempool_avail_count(mp), avail, "frames leaked: %d",
		     (int)(avail - rte_mempool_avail_count(mp)));
	unlink(path);
}

Test(port_capture, open_errors)
{
	struct port_capture_opts o = { .file = { .max_bytes = 10 } };
	struct port_capture_opts ok = { 0 };
	char path[512];

	tdp_eal_init();
	scratch(path, sizeof(path), "err");
	cr_assert_null(port_capture_open(path, &o));
	cr_assert_eq(errno, EINVAL);
	/* A snaplen beyond the largest: refused, not a 2 MiB record into the 1 MiB buffer. */
	o.file = (struct capture_opts){ .snaplen = 2u << 20 };
	errno = 0;
	cr_assert_null(port_capture_open(path, &o));
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(port_capture_open("/nonexistent-dir/x.pcap", &ok));
	cr_assert_eq(errno, ENOENT);
	cr_assert_eq(port_capture_close(NULL, NULL, NULL), 0);
	unlink(path);
}
