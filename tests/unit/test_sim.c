/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The discrete-event engine, simulated links and the fault-injection port:
 * event order at equal times, wake bookkeeping, exact link timing over 10^5
 * frames, queue overflows, fault rates and determinism from a seed, what a
 * corrupted frame does to the decoder, held frames, and no mbuf leaks. Fault
 * seeds are fixed and printed (cr_log_info, --verbose) and named in every
 * failure message.
 */
#include <math.h>

#include "dataplane/dp_fault.h"
#include "dataplane/sim/sim.h"
#include "proto/crc32c.h"
#include "test_dp_util.h"

enum {
	T_POOL = 4095,		/* frames in the test pool */
	T_LOG = 64,		/* entries in an event log */
	T_TIMING_FRAMES = 100000,	/* frames of the link-timing test */
	T_TIMING_WINDOW = 200,	/* frames the timing sender keeps in flight */
	T_FAULT_FRAMES = 100000,	/* frames of the fault-rate test */
	T_FAULT_LEN = 64,	/* length of a fault-test frame */
	T_SEED = 0x5E6F17,	/* fault seed */
};

/* The pool every test uses (made by the suite's init). */
static struct rte_mempool *t_mp;

/* EAL and a pool in this test's process. */
static void t_setup(void)
{
	tdp_eal_init();
	t_mp = tdp_pool("t_sim", T_POOL);
}

TestSuite(sim, .init = t_setup);
TestSuite(fault, .init = t_setup);

/* Free frames in the pool. */
static unsigned int t_avail(void)
{
	return rte_mempool_avail_count(t_mp);
}

/* Log the fault seed of a test and return it. */
static uint64_t t_seed(uint64_t seed)
{
	cr_log_info("fault seed 0x%llx", (unsigned long long)seed);
	return seed;
}

/* A frame of len bytes whose first four bytes are seq. */
static struct rte_mbuf *t_frame(uint16_t len, uint32_t seq)
{
	struct rte_mbuf *m = dp_frame_alloc(t_mp, len);

	cr_assert_not_null(m, "pool empty");
	memset(rte_pktmbuf_mtod(m, uint8_t *), 0, len);
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), &seq, sizeof(seq));
	return m;
}

/* The sequence number t_frame wrote. */
static uint32_t t_frame_seq(const struct rte_mbuf *m)
{
	uint32_t seq;

	memcpy(&seq, rte_pktmbuf_mtod(m, const uint8_t *), sizeof(seq));
	return seq;
}

/* ---- engine ----------------------------------------------------------- */

/* Polls seen by the recording actors, in order. */
struct t_log {
	int id[T_LOG];		/* which actor */
	uint64_t t[T_LOG];	/* at what time */
	unsigned int rx[T_LOG];	/* frames it found waiting */
	int n;			/* entries */
};

/* A recording actor: logs its polls, optionally reads a port and sends. */
struct t_actor {
	struct t_log *log;		/* shared log */
	int id;				/* its id in the log */
	struct dp_port *port;		/* read on every poll, or NULL */
	uint64_t ret[4];		/* what its polls return, in turn */
	int n_ret;			/* entries of ret (then SIM_NEVER) */
	int polls;			/* polls so far */
	unsigned int send_at_first;	/* frames to send on its first poll */
	uint16_t send_len;		/* their length */
};

/* Record the poll, drain the port, send what was asked, return the plan. */
static uint64_t t_actor_poll(void *ctx, uint64_t now)
{
	struct t_actor *a = ctx;
	struct rte_mbuf *pkts[32];
	unsigned int rx = 0;
	uint16_t got;

	if (a->port) {
		while ((got = dp_port_rx(a->port, pkts, 32))) {
			rx += got;
			rte_pktmbuf_free_bulk(pkts, got);
		}
	}
	cr_assert_lt(a->log->n, T_LOG);
	a->log->id[a->log->n] = a->id;
	a->log->t[a->log->n] = now;
	a->log->rx[a->log->n++] = rx;
	if (a->polls == 0)
		for (unsigned int i = 0; i < a->send_at_first; i++)
			dp_port_tx1(a->port, t_frame(a->send_len, i));
	return a->polls < a->n_ret ? a->ret[a->polls++] : (a->polls++, SIM_NEVER);
}

/* Picoseconds and arrival of the k-th frame (1-based) sent back to back. */
static uint64_t t_arrival(uint64_t start_ns, uint64_t k, uint16_t len,
			  double gbps, uint64_t prop_ns)
{
	return (start_ns * 1000 + k * dp_wire_ps(len, gbps) + 999) / 1000 + prop_ns;
}

Test(sim, equal_times_deliveries_first_then_polls_in_creation_order)
{
	struct t_log log = { .n = 0 };
	struct t_actor a = { .log = &log, .id = 0, .send_at_first = 1, .send_len = 100 };
	struct t_actor b = { .log = &log, .id = 1 };
	struct t_actor c = { .log = &log, .id = 2 };
	struct t_actor d = { .log = &log, .id = 3 };
	struct sim_link_params lp = { .gbps = 10, .prop_ns = 100 };
	struct sim_engine *eng = sim_engine_create();
	unsigned int avail = t_avail();
	uint64_t arrive = t_arrival(0, 1, 100, 10, 100);
	int ia, ib, ic, id;

	cr_assert_not_null(eng);
	ia = sim_engine_add_actor(eng, t_actor_poll, &a);
	ib = sim_engine_add_actor(eng, t_actor_poll, &b);
	ic = sim_engine_add_actor(eng, t_actor_poll, &c);
	id = sim_engine_add_actor(eng, t_actor_poll, &d);
	cr_assert_eq(ia, 0);
	cr_assert_eq(id, 3);
	cr_assert_eq(sim_wire(eng, "ab", ia, ib, &lp, &a.port, &b.port), 0);
	cr_assert_eq(arrive, 200, "100-byte frame at 10 Gbit/s + 100 ns lands at %llu",
		     (unsigned long long)arrive);
	/*
	 * Wakes at the frame's arrival time, created before the frame is sent
	 * (so with lower sequence numbers than its delivery): C, then B (the
	 * receiver), then D. Actor ids are 2, 1, 3: creation order of the
	 * events, not actor order, breaks the tie.
	 */
	sim_engine_wake(eng, ic, arrive);
	sim_engine_wake(eng, ib, arrive);
	sim_engine_wake(eng, id, arrive);
	sim_engine_wake(eng, ia, 0);
	sim_engine_run(eng, 1000);
	cr_assert_eq(log.n, 4, "polls: %d", log.n);
	cr_assert_eq(log.id[0], 0);
	cr_assert_eq(log.t[0], 0);
	for (int k = 1; k < 4; k++)
		cr_assert_eq(log.t[k], arrive, "poll %d at %llu", k, (unsigned long long)log.t[k]);
	cr_assert_eq(log.id[1], 2, "first poll at %llu: actor %d, want C (2)",
		     (unsigned long long)arrive, log.id[1]);
	cr_assert_eq(log.id[2], 1, "second poll: actor %d, want B (1)", log.id[2]);
	cr_assert_eq(log.id[3], 3, "third poll: actor %d, want D (3)", log.id[3]);
	/* The delivery ran before every poll at that time: B saw the frame. */
	cr_assert_eq(log.rx[2], 1, "B's poll at the arrival time found %u frames", log.rx[2]);
	cr_assert_eq(sim_engine_now(eng), 1000);
	dp_port_destroy(a.port);
	dp_port_destroy(b.port);
	sim_engine_destroy(eng);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(sim, earliest_wake_wins_and_stale_wakes_are_skipped)
{
	struct t_log log = { .n = 0 };
	struct t_actor a = { .log = &log, .id = 0 };
	struct t_actor b = { .log = &log, .id = 1, .ret = { 500 }, .n_ret = 1 };
	struct t_actor c = { .log = &log, .id = 2 };
	struct sim_engine *eng = sim_engine_create();
	int ia = sim_engine_add_actor(eng, t_actor_poll, &a);
	int ib = sim_engine_add_actor(eng, t_actor_poll, &b);
	int ic = sim_engine_add_actor(eng, t_actor_poll, &c);

	/* A: 500, then 200 (earlier: wins), then 800 (later: ignored). */
	sim_engine_wake(eng, ia, 500);
	sim_engine_wake(eng, ia, 200);
	sim_engine_wake(eng, ia, 800);
	/*
	 * B: 500, then 200; its poll at 200 asks for 500 again. C: 500, created
	 * after B's first (now stale) wake but before B's second: at 500, C
	 * runs first, and B once.
	 */
	sim_engine_wake(eng, ib, 500);
	sim_engine_wake(eng, ic, 500);
	sim_engine_wake(eng, ib, 200);
	sim_engine_run(eng, 10000);
	cr_assert_eq(log.n, 4, "polls: %d (stale wakes must not poll)", log.n);
	cr_assert_eq(log.id[0], 0);
	cr_assert_eq(log.t[0], 200);
	cr_assert_eq(log.id[1], 1);
	cr_assert_eq(log.t[1], 200);
	cr_assert_eq(log.id[2], 2, "at 500: actor %d first, want C: B's stale wake ran",
		     log.id[2]);
	cr_assert_eq(log.t[2], 500);
	cr_assert_eq(log.id[3], 1);
	cr_assert_eq(log.t[3], 500, "B's requested wake ran at %llu",
		     (unsigned long long)log.t[3]);
	cr_assert_eq(a.polls, 1);
	cr_assert_eq(b.polls, 2);
	/* A wake in the past runs now; until bounds the run. */
	sim_engine_wake(eng, ia, 10);
	sim_engine_wake(eng, ib, 20000);
	cr_assert_eq(sim_engine_run(eng, 15000), 1);
	cr_assert_eq(log.n, 5);
	cr_assert_eq(log.t[4], 10000, "a wake in the past ran at %llu",
		     (unsigned long long)log.t[4]);
	cr_assert_eq(sim_engine_now(eng), 15000);
	sim_engine_run(eng, 20000);
	cr_assert_eq(log.n, 6);
	cr_assert_eq(log.t[5], 20000);
	sim_engine_destroy(eng);
}

/* The two ends of the link-timing test. */
struct t_timing {
	struct dp_port *tx;	/* sender's port */
	struct dp_port *rx;	/* receiver's port */
	uint64_t start;		/* first send */
	uint16_t len;		/* frame length */
	double gbps;		/* link rate */
	uint64_t prop;		/* propagation delay */
	uint32_t sent;		/* frames sent */
	uint32_t got;		/* frames received */
	uint32_t bad;		/* frames late, early or out of order */
	uint64_t first_bad_t;	/* arrival of the first bad frame */
	uint32_t first_bad;	/* its index */
	uint64_t last_t;	/* arrival of the last frame */
};

/* Sender: keep T_TIMING_WINDOW frames queued; wake every half window. */
static uint64_t t_timing_send(void *ctx, uint64_t now)
{
	struct t_timing *t = ctx;
	uint64_t frame_ns = dp_wire_ps(t->len, t->gbps) / 1000 + 1;

	while (t->sent < T_TIMING_FRAMES && t->sent - t->got < T_TIMING_WINDOW) {
		dp_port_tx1(t->tx, t_frame(t->len, t->sent));
		t->sent++;
	}
	return t->sent < T_TIMING_FRAMES ? now + frame_ns * T_TIMING_WINDOW / 2 : SIM_NEVER;
}

/* Receiver: every frame must land exactly when the formula says. */
static uint64_t t_timing_recv(void *ctx, uint64_t now)
{
	struct t_timing *t = ctx;
	struct rte_mbuf *pkts[32];
	uint16_t got;

	while ((got = dp_port_rx(t->rx, pkts, 32))) {
		for (uint16_t i = 0; i < got; i++) {
			uint32_t k = t->got++;
			uint64_t want = t_arrival(t->start, k + 1, t->len, t->gbps, t->prop);

			if (t_frame_seq(pkts[i]) != k || now != want) {
				if (!t->bad++) {
					t->first_bad = k;
					t->first_bad_t = now;
				}
			}
			t->last_t = now;
		}
		rte_pktmbuf_free_bulk(pkts, got);
	}
	return SIM_NEVER;
}

/* Run 10^5 frames of len bytes over a gbps link; check every arrival. */
static void t_check_timing(uint16_t len, double gbps, uint64_t prop)
{
	struct t_timing t = { .start = 1000, .len = len, .gbps = gbps, .prop = prop };
	struct sim_link_params lp = { .gbps = gbps, .prop_ns = prop };
	struct sim_engine *eng = sim_engine_create();
	unsigned int avail = t_avail();
	int s = sim_engine_add_actor(eng, t_timing_send, &t);
	int r = sim_engine_add_actor(eng, t_timing_recv, &t);
	uint64_t last = t_arrival(t.start, T_TIMING_FRAMES, len, gbps, prop);

	cr_assert_eq(sim_wire(eng, "timing", s, r, &lp, &t.tx, &t.rx), 0);
	sim_engine_wake(eng, s, t.start);
	sim_engine_run(eng, SIM_NEVER);
	cr_assert_eq(t.got, T_TIMING_FRAMES, "len %u at %g Gbit/s: %u of %u frames arrived",
		     len, gbps, t.got, T_TIMING_FRAMES);
	cr_assert_eq(t.bad, 0,
		     "len %u at %g Gbit/s (wire %llu ps): %u frames off; "
		     "first is #%u at %llu ns, want %llu",
		     len, gbps, (unsigned long long)dp_wire_ps(len, gbps), t.bad, t.first_bad,
		     (unsigned long long)t.first_bad_t,
		     (unsigned long long)t_arrival(t.start, t.first_bad + 1, len, gbps, prop));
	cr_assert_eq(t.last_t, last, "last frame at %llu, want %llu (drift)",
		     (unsigned long long)t.last_t, (unsigned long long)last);
	dp_port_destroy(t.tx);
	dp_port_destroy(t.rx);
	sim_engine_destroy(eng);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(sim, link_timing_is_exact_back_to_back_without_drift)
{
	/* 99.2 ns per frame: rounding each frame to ns would drift 80 us. */
	cr_assert_eq(dp_wire_ps(100, 10), 99200);
	t_check_timing(100, 10, 100);
	/* A short frame is padded to 60 bytes: (60 + 24) * 8 / 3.3 ns. */
	cr_assert_eq(dp_wire_ps(20, 3.3), dp_wire_ps(60, 3.3));
	t_check_timing(20, 3.3, 1234);
	/* A full BREQ at 40 Gbit/s with no propagation delay. */
	t_check_timing(DP_MAX_FRAME, 40, 0);
}

Test(sim, tx_queue_overflow_is_counted_and_freed)
{
	struct sim_link_params lp = { .gbps = 10, .prop_ns = 50, .tx_queue = 4 };
	struct sim_engine *eng = sim_engine_create();
	struct t_log log = { .n = 0 };
	struct t_actor a = { .log = &log, .id = 0 }, b = { .log = &log, .id = 1 };
	int ia = sim_engine_add_actor(eng, t_actor_poll, &a);
	int ib = sim_engine_add_actor(eng, t_actor_poll, &b);
	unsigned int avail = t_avail();
	struct rte_mbuf *burst[10];

	cr_assert_eq(sim_wire(eng, "q", ia, ib, &lp, &a.port, &b.port), 0);
	for (int i = 0; i < 10; i++)
		burst[i] = t_frame(100, (uint32_t)i);
	dp_port_tx(a.port, burst, 10);
	cr_assert_eq(a.port->stats.tx_frames, 4);
	cr_assert_eq(a.port->stats.tx_full, 6);
	cr_assert_eq(sim_port_stats(a.port)->tx_queue_full, 6,
		     "tx_queue_full counts frames: %llu, want 6",
		     (unsigned long long)sim_port_stats(a.port)->tx_queue_full);
	cr_assert_eq(t_avail(), avail - 4, "the 6 refused frames must be freed");
	sim_engine_run(eng, 10000);
	cr_assert_eq(b.port->stats.rx_frames, 4);
	cr_assert_eq(t_avail(), avail);
	/* Delivered frames leave the queue: it takes 4 again. */
	for (int i = 0; i < 5; i++)
		burst[i] = t_frame(100, (uint32_t)i);
	dp_port_tx(a.port, burst, 5);
	cr_assert_eq(a.port->stats.tx_frames, 8);
	cr_assert_eq(sim_port_stats(a.port)->tx_queue_full, 7);
	/* Frames still in flight when everything is torn down are freed. */
	dp_port_destroy(a.port);
	dp_port_destroy(b.port);
	sim_engine_destroy(eng);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(sim, rx_queue_overflow_is_counted_and_freed)
{
	struct sim_link_params lp = { .gbps = 10, .prop_ns = 50, .rx_queue = 4 };
	struct sim_engine *eng = sim_engine_create();
	struct t_log log = { .n = 0 };
	struct t_actor a = { .log = &log, .id = 0 }, b = { .log = &log, .id = 1 };
	int ia = sim_engine_add_actor(eng, t_actor_poll, &a);
	int ib = sim_engine_add_actor(eng, t_actor_poll, &b);
	unsigned int avail = t_avail();
	struct rte_mbuf *burst[10], *got[10];
	struct dp_port *rxp;

	cr_assert_eq(sim_wire(eng, "q", ia, ib, &lp, &a.port, &b.port), 0);
	/* B must not drain its port in its polls: keep the port aside. */
	rxp = b.port;
	b.port = NULL;
	for (int i = 0; i < 10; i++)
		burst[i] = t_frame(100, (uint32_t)i);
	dp_port_tx(a.port, burst, 10);
	sim_engine_run(eng, 10000);
	cr_assert_eq(sim_port_stats(rxp)->rx_queue_full, 6,
		     "rx_queue_full %llu, want 6",
		     (unsigned long long)sim_port_stats(rxp)->rx_queue_full);
	cr_assert_eq(t_avail(), avail - 4, "the 6 dropped frames must be freed");
	cr_assert_eq(dp_port_rx(rxp, got, 10), 4);
	for (uint32_t i = 0; i < 4; i++)
		cr_assert_eq(t_frame_seq(got[i]), i, "the first four frames stay");
	rte_pktmbuf_free_bulk(got, 4);
	/* Frames waiting in a port are freed with it. */
	for (int i = 0; i < 3; i++)
		burst[i] = t_frame(100, (uint32_t)i);
	dp_port_tx(a.port, burst, 3);
	sim_engine_run(eng, 20000);
	dp_port_destroy(a.port);
	dp_port_destroy(rxp);
	sim_engine_destroy(eng);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(sim, wire_rejects_a_rate_of_zero)
{
	struct sim_link_params lp = { .gbps = 0 };
	struct sim_engine *eng = sim_engine_create();
	struct dp_port *a = NULL, *b = NULL;

	cr_assert_eq(sim_wire(eng, "z", 0, 0, &lp, &a, &b), -EINVAL);
	cr_assert_null(a);
	sim_engine_destroy(eng);
}

/* ---- fault injection -------------------------------------------------- */

/* A fault-test frame: seq three times (majority survives one flip), then a pattern. */
static struct rte_mbuf *t_fault_frame(uint32_t seq)
{
	struct rte_mbuf *m = dp_frame_alloc(t_mp, T_FAULT_LEN);
	uint8_t *d;

	cr_assert_not_null(m, "pool empty");
	d = rte_pktmbuf_mtod(m, uint8_t *);
	for (int i = 0; i < 3; i++)
		memcpy(d + 4 * i, &seq, 4);
	for (int i = 12; i < T_FAULT_LEN; i++)
		d[i] = (uint8_t)(seq * 31 + (uint32_t)i * 7);
	return m;
}

/* The seq of a fault-test frame and how many bits differ from the original. */
static uint32_t t_fault_identify(const struct rte_mbuf *m, int *flipped)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t s[3], seq;
	int bits = 0;

	for (int i = 0; i < 3; i++)
		memcpy(&s[i], d + 4 * i, 4);
	seq = s[0] == s[1] || s[0] == s[2] ? s[0] : s[1];
	for (int i = 0; i < 3; i++)
		bits += __builtin_popcount(s[i] ^ seq);
	for (int i = 12; i < T_FAULT_LEN; i++)
		bits += __builtin_popcount(d[i] ^ (uint8_t)(seq * 31 + (uint32_t)i * 7));
	*flipped = bits;
	return seq;
}

/* Five standard deviations of a proportion p estimated from n trials. */
static double t_tol(double p, double n)
{
	return 5 * sqrt(p * (1 - p) / n);
}

/* What came out of a fault port, frame by frame. */
struct t_seen {
	uint32_t *arrivals;	/* copies per seq */
	uint8_t *corrupt;	/* seq arrived with a flipped bit */
	uint64_t total;		/* frames out */
	uint64_t late;		/* frames out after a frame with a higher seq */
	uint32_t max_seq;	/* highest seq out so far, + 1 */
};

/* Take and check what the inner array port received. */
static void t_seen_drain(struct t_seen *s, struct dp_port *inner, uint32_t n)
{
	for (unsigned int i = 0; i < tport_sent(inner); i++) {
		int flipped;
		uint32_t seq = t_fault_identify(tport_frame(inner, i), &flipped);

		cr_assert_lt(seq, n, "frame with unknown seq %u", seq);
		cr_assert_leq(flipped, 1, "seq %u: %d bits flipped, at most 1", seq, flipped);
		if (flipped)
			s->corrupt[seq] = 1;
		s->arrivals[seq]++;
		s->total++;
		if (seq + 1 < s->max_seq)
			s->late++;
		if (seq + 1 > s->max_seq)
			s->max_seq = seq + 1;
	}
	tport_clear(inner);
}

Test(fault, rates_converge_to_the_probabilities)
{
	const struct dp_fault_params fp = {
		.loss = 0.1, .dup = 0.05, .reorder = 0.05, .corrupt = 0.02,
		.hold_max = 1, .hold_polls = 1000,
	};
	uint64_t seed = t_seed(T_SEED);
	unsigned int avail = t_avail();
	struct dp_port *inner = tport_create("inner", 16);
	struct dp_port *f = dp_fault_port_create(inner, &fp, seed, t_mp);
	struct t_seen s = {
		.arrivals = calloc(T_FAULT_FRAMES, sizeof(uint32_t)),
		.corrupt = calloc(T_FAULT_FRAMES, 1),
	};
	const struct dp_fault_stats *st;
	double n = T_FAULT_FRAMES, survivors, free_to_hold;
	uint64_t distinct = 0, corrupt_seqs = 0;

	cr_assert_not_null(f);
	st = dp_fault_port_stats(f);
	for (uint32_t i = 0; i < T_FAULT_FRAMES; i++) {
		dp_port_tx1(f, t_fault_frame(i));
		t_seen_drain(&s, inner, T_FAULT_FRAMES);
	}
	/* Release a frame still held at the end (hold_polls rx polls). */
	for (int i = 0; i < 1000; i++)
		dp_port_rx(f, NULL, 0);
	t_seen_drain(&s, inner, T_FAULT_FRAMES);
	for (uint32_t i = 0; i < T_FAULT_FRAMES; i++) {
		distinct += s.arrivals[i] > 0;
		corrupt_seqs += s.corrupt[i];
	}
	survivors = n - (double)st->lost;
	/*
	 * With hold_max = 1 a held frame is passed by exactly one later
	 * survivor, which cannot be held itself: the frames that could be held
	 * are the survivors minus one per hold.
	 */
	free_to_hold = survivors - (double)st->reordered;
	cr_log_info("lost %llu dup %llu reordered %llu corrupted %llu of %u",
		    (unsigned long long)st->lost, (unsigned long long)st->duplicated,
		    (unsigned long long)st->reordered, (unsigned long long)st->corrupted,
		    T_FAULT_FRAMES);
	/*
	 * Each rate is a binomial proportion; 5 standard deviations (about
	 * 0.005 for loss at 10^5 frames) is what any seed meets with
	 * probability 1 - 6e-7, while a doubled or halved rate is dozens of
	 * deviations away.
	 */
	cr_expect(fabs((double)st->lost / n - fp.loss) < t_tol(fp.loss, n),
		  "seed 0x%llx: loss rate %f, want %f", (unsigned long long)seed,
		  (double)st->lost / n, fp.loss);
	cr_expect(fabs((double)st->duplicated / survivors - fp.dup) < t_tol(fp.dup, survivors),
		  "seed 0x%llx: dup rate %f, want %f", (unsigned long long)seed,
		  (double)st->duplicated / survivors, fp.dup);
	cr_expect(fabs((double)st->corrupted / survivors - fp.corrupt) <
		  t_tol(fp.corrupt, survivors),
		  "seed 0x%llx: corrupt rate %f, want %f", (unsigned long long)seed,
		  (double)st->corrupted / survivors, fp.corrupt);
	cr_expect(fabs((double)st->reordered / free_to_hold - fp.reorder) <
		  t_tol(fp.reorder, free_to_hold),
		  "seed 0x%llx: reorder rate %f, want %f", (unsigned long long)seed,
		  (double)st->reordered / free_to_hold, fp.reorder);
	cr_expect_eq(st->no_mbuf, 0);
	/* The counters say exactly what came out. */
	cr_expect_eq(distinct, T_FAULT_FRAMES - st->lost, "distinct frames out %llu",
		     (unsigned long long)distinct);
	cr_expect_eq(s.total, T_FAULT_FRAMES - st->lost + st->duplicated,
		     "frames out %llu", (unsigned long long)s.total);
	cr_expect_eq(corrupt_seqs, st->corrupted, "frames out with a flipped bit %llu",
		     (unsigned long long)corrupt_seqs);
	/* Every held frame goes out behind a later one, unless it was the last. */
	cr_expect(s.late == st->reordered || s.late + 1 == st->reordered,
		  "frames out behind a later one %llu, held %llu",
		  (unsigned long long)s.late, (unsigned long long)st->reordered);
	free(s.arrivals);
	free(s.corrupt);
	dp_port_destroy(f);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

/* Run a fixed input through a fault port; the output as (seq, crc) pairs. */
static unsigned int t_fault_run(uint64_t seed, uint64_t *sig, unsigned int cap,
				struct dp_fault_stats *stats)
{
	const struct dp_fault_params fp = {
		.loss = 0.05, .dup = 0.05, .reorder = 0.1, .corrupt = 0.05,
		.hold_max = 4, .hold_polls = 3,
	};
	struct dp_port *inner = tport_create("inner", 256);
	struct dp_port *f = dp_fault_port_create(inner, &fp, seed, t_mp);
	struct rte_mbuf *burst[16];
	unsigned int n = 0;

	cr_assert_not_null(f);
	for (uint32_t b = 0; b < 600; b++) {
		for (uint32_t i = 0; i < 16; i++)
			burst[i] = t_fault_frame(b * 16 + i);
		dp_port_tx(f, burst, 16);
		if (b % 7 == 0)
			dp_port_rx(f, NULL, 0);
		for (unsigned int i = 0; i < tport_sent(inner); i++) {
			const struct rte_mbuf *m = tport_frame(inner, i);
			int flipped;

			cr_assert_lt(n, cap);
			sig[n++] = (uint64_t)t_fault_identify(m, &flipped) << 32 |
				   crc32c(rte_pktmbuf_mtod(m, const void *), m->data_len);
		}
		tport_clear(inner);
	}
	*stats = *dp_fault_port_stats(f);
	dp_port_destroy(f);
	return n;
}

Test(fault, same_seed_same_output)
{
	enum { CAP = 20000 };
	uint64_t *a = calloc(CAP, sizeof(*a)), *b = calloc(CAP, sizeof(*b));
	uint64_t seed = t_seed(T_SEED + 1);
	struct dp_fault_stats sa, sb;
	unsigned int na, nb, avail = t_avail();

	na = t_fault_run(seed, a, CAP, &sa);
	nb = t_fault_run(seed, b, CAP, &sb);
	cr_assert_eq(na, nb, "seed 0x%llx: %u then %u frames out",
		     (unsigned long long)seed, na, nb);
	for (unsigned int i = 0; i < na; i++)
		cr_assert_eq(a[i], b[i], "seed 0x%llx: output frame %u differs",
			     (unsigned long long)seed, i);
	cr_assert_eq(memcmp(&sa, &sb, sizeof(sa)), 0, "counters differ");
	cr_assert_gt(sa.lost * sa.duplicated * sa.reordered * sa.corrupted, 0,
		     "every fault must have happened");
	/* Another seed gives another sequence (or the check above proves nothing). */
	nb = t_fault_run(seed + 1, b, CAP, &sb);
	cr_assert(na != nb || memcmp(a, b, na * sizeof(*a)) != 0,
		  "seeds 0x%llx and 0x%llx gave the same output",
		  (unsigned long long)seed, (unsigned long long)seed + 1);
	free(a);
	free(b);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

/* A valid frame of type type (QACK: padded to 60 bytes). */
static void t_valid_pkt(uint8_t type, struct proto_pkt *p, uint8_t *args, uint8_t *payload)
{
	*p = (struct proto_pkt) {
		.type = type, .src_node = 3, .dst_node = 5, .vnet = 2,
	};
	proto_node_mac(3, p->eth_src);
	proto_node_mac(5, p->eth_dst);
	if (type == PROTO_T_QACK) {
		p->flags = PROTO_F_ACK;
		p->ack_base = 77;
		p->ack_mask = 0x80000001u;
		return;
	}
	for (int i = 0; i < PROTO_ARGS_LEN; i++)
		args[i] = (uint8_t)(i + 1);
	p->flags = PROTO_F_DATA | PROTO_F_LAST;
	p->pkt_num = 1234;
	p->args = args;
	if (type == PROTO_T_BREQ) {
		for (int i = 0; i < 100; i++)
			payload[i] = (uint8_t)(i * 3);
		p->payload = payload;
		p->payload_len = 100;
		p->slot = 42;
	}
}

Test(fault, corrupted_frames_fail_decode_unless_the_bit_is_in_padding_or_a_mac)
{
	static const uint8_t types[] = { PROTO_T_QACK, PROTO_T_QREQ, PROTO_T_BREQ };
	const struct dp_fault_params fp = { .corrupt = 0.5 };
	uint64_t seed = t_seed(T_SEED + 2);
	unsigned int avail = t_avail();
	uint64_t rejected = 0, in_padding = 0, in_mac = 0, by_crc = 0;

	for (size_t ti = 0; ti < sizeof(types); ti++) {
		struct dp_port *inner = tport_create("inner", 16);
		struct dp_port *f = dp_fault_port_create(inner, &fp, seed + ti, t_mp);
		uint8_t args[PROTO_ARGS_LEN], payload[100], orig[256];
		struct proto_pkt p, out;
		size_t raw, len;

		t_valid_pkt(types[ti], &p, args, payload);
		len = proto_frame_len(&p);
		cr_assert_leq(len, sizeof(orig));
		cr_assert_eq(proto_encode(&p, orig, sizeof(orig)), (int)len);
		raw = PROTO_ETH_LEN + PROTO_HDR_LEN +
		      proto_body_len(p.type, 0) + p.payload_len + PROTO_CRC_LEN;
		if (types[ti] == PROTO_T_QACK)
			cr_assert_eq(len - raw, 10, "a QACK has 10 bytes of padding");
		for (int k = 0; k < 3000; k++) {
			struct rte_mbuf *m = tdp_encode(t_mp, &p);
			const uint8_t *d;
			size_t at = SIZE_MAX;
			enum proto_reason why;

			dp_port_tx1(f, m);
			cr_assert_eq(tport_sent(inner), 1);
			m = tport_frame(inner, 0);
			d = rte_pktmbuf_mtod(m, const uint8_t *);
			for (size_t i = 0; i < len; i++)
				if (d[i] != orig[i]) {
					cr_assert_eq(at, SIZE_MAX, "two bytes changed");
					at = i;
				}
			why = tdp_decode(m, &out);
			tport_clear(inner);
			if (at == SIZE_MAX) {
				cr_assert_eq(why, PROTO_R_OK);
				continue;
			}
			/* The CRC covers neither the MACs nor the padding (doc/protocol.md). */
			if (at >= raw || at < 12) {
				cr_assert_eq(why, PROTO_R_OK,
					     "seed 0x%llx %s: flip at byte %zu rejected (%s)",
					     (unsigned long long)seed + ti,
					     proto_type_name(types[ti]), at, proto_reason_name(why));
				in_padding += at >= raw;
				in_mac += at < 12;
				continue;
			}
			cr_assert_neq(why, PROTO_R_OK, "seed 0x%llx %s: flip at byte %zu accepted",
				      (unsigned long long)seed + ti, proto_type_name(types[ti]), at);
			rejected++;
			by_crc += why == PROTO_R_CRC;
		}
		dp_port_destroy(f);
	}
	cr_log_info("rejected %llu (crc %llu), in padding %llu, in a MAC %llu",
		    (unsigned long long)rejected, (unsigned long long)by_crc,
		    (unsigned long long)in_padding, (unsigned long long)in_mac);
	cr_assert_gt(in_padding, 0, "no flip landed in padding: the exception is untested");
	cr_assert_gt(by_crc, 0);
	cr_assert_gt(rejected, 3000);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(fault, held_frames_are_released_after_later_frames)
{
	const struct dp_fault_params fp = { .reorder = 0.5, .hold_max = 3, .hold_polls = 1000 };
	enum { N = 5000 };
	uint64_t seed = t_seed(T_SEED + 3);
	unsigned int avail = t_avail();
	struct dp_port *inner = tport_create("inner", 16);
	struct dp_port *f = dp_fault_port_create(inner, &fp, seed, t_mp);
	uint32_t out[N], n = 0, passed_max = 0;
	uint32_t hist[4] = { 0 };

	for (uint32_t i = 0; i < N; i++) {
		dp_port_tx1(f, t_fault_frame(i));
		for (unsigned int k = 0; k < tport_sent(inner); k++) {
			int flipped;

			cr_assert_lt(n, N);
			out[n++] = t_fault_identify(tport_frame(inner, k), &flipped);
		}
		tport_clear(inner);
	}
	/* A frame still held at the end goes after hold_polls rx polls. */
	for (int p = 0; p < 1000; p++)
		dp_port_rx(f, NULL, 0);
	for (unsigned int k = 0; k < tport_sent(inner); k++) {
		int flipped;

		cr_assert_lt(n, N);
		out[n++] = t_fault_identify(tport_frame(inner, k), &flipped);
	}
	tport_clear(inner);
	cr_assert_eq(n, N, "%u of %u frames out", n, N);
	/* Each frame is passed by 0 (not held) or 1..hold_max later frames. */
	for (uint32_t k = 0; k < n; k++) {
		uint32_t passed = 0;

		for (uint32_t j = 0; j < k; j++)
			passed += out[j] > out[k];
		cr_assert_leq(passed, fp.hold_max, "seed 0x%llx: frame %u passed by %u",
			      (unsigned long long)seed, out[k], passed);
		hist[passed]++;
		if (passed > passed_max)
			passed_max = passed;
	}
	/* Every held frame was passed, except perhaps the last one sent. */
	cr_assert_leq(dp_fault_port_stats(f)->reordered - (hist[1] + hist[2] + hist[3]), 1,
		      "held frames %u + %u + %u, counter %llu", hist[1], hist[2], hist[3],
		      (unsigned long long)dp_fault_port_stats(f)->reordered);
	cr_assert_eq(passed_max, fp.hold_max, "some frame waits the full hold_max");
	dp_port_destroy(f);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(fault, held_frame_is_released_after_hold_polls_rx_polls)
{
	const uint32_t polls[] = { 5, 0 };	/* 0: the default, 4 */
	uint64_t seed = t_seed(T_SEED + 4);
	unsigned int avail = t_avail();

	for (size_t c = 0; c < 2; c++) {
		const struct dp_fault_params fp = {
			.reorder = 0.999, .hold_max = 3, .hold_polls = polls[c],
		};
		uint32_t want = polls[c] ? polls[c] : 4;
		struct dp_port *inner = tport_create("inner", 16);
		struct dp_port *f = dp_fault_port_create(inner, &fp, seed, t_mp);
		struct rte_mbuf *m;

		dp_port_tx1(f, t_fault_frame(7));
		cr_assert_eq(dp_fault_port_stats(f)->reordered, 1,
			     "seed 0x%llx: the only frame is held", (unsigned long long)seed);
		cr_assert_eq(tport_sent(inner), 0);
		for (uint32_t p = 1; p < want; p++) {
			dp_port_rx(f, &m, 1);
			cr_assert_eq(tport_sent(inner), 0, "released after %u polls, want %u",
				     p, want);
		}
		dp_port_rx(f, &m, 1);
		cr_assert_eq(tport_sent(inner), 1, "not released after %u polls", want);
		/* A held frame is freed with the port. */
		dp_port_tx1(f, t_fault_frame(8));
		cr_assert_eq(dp_fault_port_stats(f)->reordered, 2);
		dp_port_destroy(f);
	}
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(fault, bad_probabilities_are_refused)
{
	const struct dp_fault_params bad[] = {
		{ .loss = 1.0 }, { .dup = -0.1 }, { .reorder = NAN }, { .corrupt = 2 },
	};
	const char *names[] = { "loss", "dup", "reorder", "corrupt" };
	char err[128];

	for (size_t i = 0; i < 4; i++) {
		struct dp_port *inner = tport_create("x", 1);

		cr_assert_eq(dp_fault_validate(&bad[i], err, sizeof(err)), -EINVAL);
		cr_assert_not_null(strstr(err, names[i]), "message '%s' names %s", err, names[i]);
		errno = 0;
		cr_assert_null(dp_fault_port_create(inner, &bad[i], 1, t_mp));
		cr_assert_eq(errno, EINVAL);
		dp_port_destroy(inner);
	}
	/* The value as a user types it (dp_opt_num), not %g's -2.5e-07. */
	cr_assert_eq(dp_fault_validate(&(struct dp_fault_params){ .dup = -2.5e-7 }, err,
				       sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "dup probability -2.5e-7 is outside [0, 1)");
}

/* Hand fault port f the time as a daemon does; when its next frame is due. */
static uint64_t t_poll(struct dp_port *f, uint64_t now)
{
	dp_fault_port_poll(f, now);
	return dp_fault_port_next_due(f);
}

Test(fault, delay_holds_each_frame_until_its_time_and_keeps_the_order)
{
	const struct dp_fault_params fp = { .delay_ns = 1000 };
	unsigned int avail = t_avail();
	struct dp_port *inner = tport_create("inner", 16);
	struct dp_port *f = dp_fault_port_create(inner, &fp, 1, t_mp);
	const struct dp_fault_stats *st = dp_fault_port_stats(f);
	int flipped;

	cr_assert_not_null(f);
	cr_assert(dp_fault_active(&fp), "a delay alone is a fault");
	cr_assert_eq(t_poll(f, 0), UINT64_MAX, "nothing held yet");
	for (uint32_t i = 0; i < 5; i++)
		dp_port_tx1(f, t_fault_frame(i));
	cr_assert_eq(tport_sent(inner), 0, "sent before their time");
	cr_assert_eq(t_poll(f, 600), 1000, "the next frame is due at 1000");
	for (uint32_t i = 5; i < 10; i++)
		dp_port_tx1(f, t_fault_frame(i));
	cr_assert_eq(t_poll(f, 999), 1000);
	cr_assert_eq(tport_sent(inner), 0, "sent 1 ns early");
	cr_assert_eq(t_poll(f, 1000), 1600, "the second five are due at 1600");
	cr_assert_eq(tport_sent(inner), 5);
	/* A receive poll releases what is due by the last time handed over. */
	dp_port_rx(f, NULL, 0);
	cr_assert_eq(tport_sent(inner), 5);
	t_poll(f, 1599);
	cr_assert_eq(tport_sent(inner), 5);
	cr_assert_eq(t_poll(f, 5000), UINT64_MAX, "nothing left");
	cr_assert_eq(tport_sent(inner), 10);
	for (uint32_t i = 0; i < 10; i++)
		cr_assert_eq(t_fault_identify(tport_frame(inner, i), &flipped), i,
			     "frame %u out of order", i);
	cr_assert_eq(st->delayed, 10);
	tport_clear(inner);
	/* Frames still waiting are freed with the port. */
	dp_port_tx1(f, t_fault_frame(10));
	dp_port_destroy(f);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

/* The clock a daemon hands its fault ports (dp_fault_port_set_clock). */
static uint64_t t_clock_ns;

static uint64_t t_clock(void)
{
	return t_clock_ns;
}

/*
 * With a clock, a frame is delayed from the time it is sent, not from the
 * last poll's: a daemon preempted between its poll (at 0) and the send (at
 * 400) still holds the frame the whole delay.
 */
Test(fault, with_a_clock_the_delay_counts_from_the_send)
{
	const struct dp_fault_params fp = { .delay_ns = 1000 };
	unsigned int avail = t_avail();
	struct dp_port *inner = tport_create("inner", 16);
	struct dp_port *f = dp_fault_port_create(inner, &fp, 1, t_mp);

	cr_assert_not_null(f);
	dp_fault_port_set_clock(f, t_clock);
	t_poll(f, 0);
	t_clock_ns = 400;
	dp_port_tx1(f, t_fault_frame(0));
	cr_assert_eq(t_poll(f, 1000), 1400, "due 1000 after the send, at 1400");
	cr_assert_eq(tport_sent(inner), 0, "sent 400 ns early");
	cr_assert_eq(t_poll(f, 1400), UINT64_MAX);
	cr_assert_eq(tport_sent(inner), 1);
	tport_clear(inner);
	dp_fault_port_set_clock(inner, t_clock);	/* not a fault port: nothing */
	dp_port_destroy(f);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(fault, the_delay_ring_wraps_in_order)
{
	const struct dp_fault_params fp = { .delay_ns = 10, .delay_frames = 500 };
	uint32_t cap = dp_fault_delay_frames(&fp);
	unsigned int avail = t_avail();
	struct dp_port *inner = tport_create("inner", 1024);
	struct dp_port *f = dp_fault_port_create(inner, &fp, 1, t_mp);
	uint32_t seq = 0, want = 0;
	int flipped;

	cr_assert_eq(cap, 500);
	/* Rounds of cap - 7 frames: the ring's head goes round it many times. */
	for (uint64_t now = 0; now < 40 * 100; now += 100) {
		t_poll(f, now);
		for (uint32_t i = 0; i + 7 < cap; i++)
			dp_port_tx1(f, t_fault_frame(seq++));
		cr_assert_eq(tport_sent(inner), 0);
		cr_assert_eq(t_poll(f, now + 10), UINT64_MAX);
		for (unsigned int k = 0; k < tport_sent(inner); k++)
			cr_assert_eq(t_fault_identify(tport_frame(inner, k), &flipped), want++,
				     "out of order after %u frames", want);
		tport_clear(inner);
	}
	cr_assert_eq(want, seq);
	cr_assert_gt(seq, 3 * cap);
	cr_assert_eq(dp_fault_port_stats(f)->delay_full, 0);
	dp_port_destroy(f);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(fault, a_full_delay_queue_drops_and_counts)
{
	const struct dp_fault_params fp = { .delay_ns = 50, .delay_frames = 16 };
	const struct dp_fault_params dflt = { .delay_ns = 50 }, none = { .loss = 0.5 };
	const uint32_t n = 16 + 3;
	unsigned int avail = t_avail();
	struct dp_port *inner = tport_create("inner", 16);
	struct dp_port *f = dp_fault_port_create(inner, &fp, 1, t_mp);
	struct rte_mbuf *m = t_fault_frame(1);

	cr_assert_eq(dp_fault_delay_frames(&dflt), DP_FAULT_DELAY_FRAMES);
	cr_assert_eq(dp_fault_delay_frames(&none), 0, "no delay, no queue");
	/* One frame sent n times: each send takes one reference. */
	rte_mbuf_refcnt_set(m, (uint16_t)n);
	for (uint32_t i = 0; i < n; i++)
		dp_port_tx1(f, m);
	cr_assert_eq(dp_fault_port_stats(f)->delayed, 16);
	cr_assert_eq(dp_fault_port_stats(f)->delay_full, 3);
	dp_port_destroy(f);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(fault, a_held_frame_on_a_port_never_received_on_leaves_after_polls)
{
	const struct dp_fault_params fp = { .reorder = 0.999, .hold_max = 3, .hold_polls = 4 };
	unsigned int avail = t_avail();
	struct dp_port *inner = tport_create("inner", 16);
	struct dp_port *f = dp_fault_port_create(inner, &fp, 1, t_mp);
	struct rte_mbuf *m;

	t_poll(f, 0);
	dp_port_tx1(f, t_fault_frame(3));
	cr_assert_eq(dp_fault_port_stats(f)->reordered, 1);
	cr_assert_eq(dp_fault_port_next_due(f), 0, "a held frame wants the next poll");
	for (int p = 1; p < 4; p++) {
		cr_assert_eq(t_poll(f, (uint64_t)p), (uint64_t)p);
		/* The owner polls: receive polls no longer age the frame. */
		for (int r = 0; r < 10; r++)
			dp_port_rx(f, &m, 1);
		cr_assert_eq(tport_sent(inner), 0, "released after %d polls", p);
	}
	cr_assert_eq(t_poll(f, 4), UINT64_MAX, "nothing waits once it left");
	cr_assert_eq(tport_sent(inner), 1, "still held after 4 polls of a transmit-only port");
	tport_clear(inner);
	dp_port_destroy(f);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

Test(fault, a_spec_is_parsed_and_bad_keys_are_named)
{
	const struct { const char *spec; const char *names; } bad[] = {
		{ "", "empty" }, { "loss", "'loss'" }, { "loss=", "'loss='" },
		/* A bad value is quoted as the user typed it: KEY=VALUE. */
		{ "loss=1", "--fault loss=1: a probability must be below 1" },
		{ "dup=-0.1", "--fault dup=-0.1: must be between 0 and 1" },
		{ "reorder=x", "--fault reorder=x: not a number" },
		{ "corrupt=nan", "--fault corrupt=nan: not a number" },
		{ "delay-us=1000001", "--fault delay-us=1000001: must be between 0 and" },
		{ "seed=-1", "--fault seed=-1: not a whole number" },
		/* Every key named, from dp_fault_spec_keys, in its order. */
		{ "jitter=3", "--fault: unknown key 'jitter' (loss, dup, reorder, corrupt, delay-us, delay-frames, seed)" },
		{ "loss=0.1,,dup=0.1", "empty field" }, { "loss=0.1,", "empty field" },
		{ ",loss=0.1", "empty field" }, { "loss=0.1,loss=0.2", "loss given twice" },
		{ "loss=0.1,delay-us=0.0004", "--fault delay-us=0.0004: under a nanosecond" },
		{ "loss=0.1,delay-frames=8", "delay-frames without delay-us" },
		{ "delay-us=5,delay-frames=0", "--fault delay-frames=0: must be between 1 and" },
		{ "delay-us=5,delay-frames=65537", "--fault delay-frames=65537: must be between 1 and" },
	};
	struct dp_fault_params p;
	uint64_t seed = 7;
	char err[160], back[160];

	cr_assert_eq(dp_fault_parse("--fault", "loss=0.01,dup=0.02,reorder=0.03,corrupt=0.04,delay-us=2.5,seed=9",
				    &p, &seed, err, sizeof(err)), 0, "%s", err);
	cr_assert_float_eq(p.loss, 0.01, 1e-12);
	cr_assert_float_eq(p.dup, 0.02, 1e-12);
	cr_assert_float_eq(p.reorder, 0.03, 1e-12);
	cr_assert_float_eq(p.corrupt, 0.04, 1e-12);
	cr_assert_eq(p.delay_ns, 2500);
	cr_assert_eq(seed, 9);
	dp_fault_format(&p, back, sizeof(back));
	cr_assert_str_eq(back, "loss=0.01,dup=0.02,reorder=0.03,corrupt=0.04,delay-us=2.5");
	cr_assert_eq(dp_fault_parse("--fault", "delay-us=100", &p, &seed, err, sizeof(err)), 0);
	cr_assert_eq(seed, 9, "seed is left alone when absent");
	cr_assert_eq(p.delay_frames, 0, "the default queue");
	cr_assert_eq(dp_fault_parse("--fault", "delay-us=100,delay-frames=64", &p, &seed, err,
				    sizeof(err)), 0, "%s", err);
	cr_assert_eq(p.delay_frames, 64);
	dp_fault_format(&p, back, sizeof(back));
	cr_assert_str_eq(back, "delay-us=100,delay-frames=64");
	cr_assert_eq(p.loss, 0, "a spec starts from zero");
	/* As a user types them (dp_opt_num): %.12g said loss=5e-05. */
	cr_assert_eq(dp_fault_parse("--fault", "loss=0.00005,delay-us=0.5", &p, &seed, err,
				    sizeof(err)), 0, "%s", err);
	dp_fault_format(&p, back, sizeof(back));
	cr_assert_str_eq(back, "loss=0.00005,delay-us=0.5");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		cr_assert_eq(dp_fault_parse("--fault", bad[i].spec, &p, &seed, err, sizeof(err)),
			     -EINVAL, "'%s' accepted", bad[i].spec);
		cr_assert_not_null(strstr(err, "--fault"), "'%s': message '%s' names the option",
				    bad[i].spec, err);
		cr_assert_not_null(strstr(err, bad[i].names), "'%s': message '%s' names %s",
				   bad[i].spec, err, bad[i].names);
	}
}

Test(fault, delayed_frames_a_full_queue_does_not_take_are_dropped_and_counted)
{
	const struct dp_fault_params fp = { .delay_ns = 100 };
	unsigned int avail = t_avail();
	struct dp_port *inner = tport_create("inner", 4);
	struct dp_port *f = dp_fault_port_create(inner, &fp, 1, t_mp);
	int flipped;

	t_poll(f, 0);
	for (uint32_t i = 0; i < 10; i++)
		dp_port_tx1(f, t_fault_frame(i));
	cr_assert_eq(t_poll(f, 100), UINT64_MAX, "nothing waits for the queue");
	cr_assert_eq(tport_sent(inner), 4);
	for (uint32_t i = 0; i < 4; i++)
		cr_assert_eq(t_fault_identify(tport_frame(inner, i), &flipped), i);
	cr_assert_eq(inner->stats.tx_full, 6, "the rest counted where the queue was full");
	tport_clear(inner);
	dp_port_destroy(f);
	cr_assert_eq(t_avail(), avail, "frames leaked: %d", (int)avail - (int)t_avail());
}

/*
 * corrupt on a frame of no bytes: nothing to flip. The frame passes
 * unchanged and is not counted; before, a byte past its end was flipped
 * and it was counted as corrupted.
 */
Test(fault, an_empty_frame_is_not_corrupted)
{
	const struct dp_fault_params fp = { .corrupt = 0.999 };
	unsigned int avail = t_avail();
	struct dp_port *inner = tport_create("inner", 16);
	struct dp_port *f = dp_fault_port_create(inner, &fp, 1, t_mp);
	struct rte_mbuf *m = dp_frame_alloc(t_mp, 0);
	uint8_t *past;

	cr_assert(f && m);
	past = rte_pktmbuf_mtod(m, uint8_t *);
	*past = 0x5a;
	dp_port_tx1(f, m);
	cr_assert_eq(tport_sent(inner), 1);
	cr_assert_eq(*rte_pktmbuf_mtod(tport_frame(inner, 0), uint8_t *), 0x5a,
		     "a byte past the end of an empty frame was flipped");
	cr_assert_eq(dp_fault_port_stats(f)->corrupted, 0);
	dp_port_destroy(f);
	cr_assert_eq(t_avail(), avail);
}
