/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Waiting for a departure time. The scheduler (timing.h) says when a packet
 * is due; the waiter gets there on an injected clock: it sleeps while the
 * deadline is far, then busy-waits the last spin_ns, because a sleep
 * overshoots by tens of microseconds and a spin does not. Tests drive it
 * with a simulated clock.
 */
#ifndef SEGNET_PCAP_WAITER_H
#define SEGNET_PCAP_WAITER_H

#include <stdint.h>

/* Default busy-wait window: above the usual sleep overshoot on Linux. */
enum { WAITER_SPIN_NS_DEFAULT = 100000 };

/* A clock and the ways to let time pass on it. */
struct waiter_clock {
	/* current time, ns */
	uint64_t (*now)(void *ctx);
	/* give up the CPU for about ns; may overshoot */
	void (*sleep)(void *ctx, uint64_t ns);
	/* one step of a busy-wait (a pause hint); may be NULL */
	void (*relax)(void *ctx);
	/* passed to the three functions */
	void *ctx;
};

/* A waiter and what it did. */
struct waiter {
	/* the injected clock */
	struct waiter_clock clock;
	/* busy-wait, instead of sleeping, for the last spin_ns before a deadline */
	uint64_t spin_ns;
	/* calls to waiter_wait_until() */
	uint64_t waits;
	/* calls that found the deadline already passed */
	uint64_t late;
	/* sleeps taken */
	uint64_t sleeps;
	/* busy-wait steps taken */
	uint64_t spins;
};

/* Set up w on clock c with a busy-wait window of spin_ns. */
void waiter_init(struct waiter *w, const struct waiter_clock *c, uint64_t spin_ns);

/* Return once the clock reads deadline_ns or later; returns that reading. */
uint64_t waiter_wait_until(struct waiter *w, uint64_t deadline_ns);

/*
 * Time spent watching for something (a port to take frames, a peer to read
 * them), from the clock readings of the looks: the time between two looks,
 * up to cap_ns. A longer gap is time the watcher did not run (preempted, or
 * the machine paused), and what it watches likely did not run either: it
 * counts as cap_ns, so a time-out on watched time gives the other side that
 * long while the watcher could see it act, however long the pauses.
 */
struct waiter_watch {
	/* clock reading of the last look */
	uint64_t last_ns;
	/* time counted so far */
	uint64_t watched_ns;
	/* most that one gap between looks counts */
	uint64_t cap_ns;
};

/* Start watching at now_ns (the first look); a gap between looks counts up to cap_ns. */
void waiter_watch_start(struct waiter_watch *w, uint64_t now_ns, uint64_t cap_ns);

/* A look at now_ns; returns the time watched since the start. */
uint64_t waiter_watch_look(struct waiter_watch *w, uint64_t now_ns);

/*
 * Sleep on clock c, in steps of step_ns, until ns of watched time (gaps
 * counting up to cap_ns) have passed.
 */
void waiter_sleep_watched(const struct waiter_clock *c, uint64_t ns, uint64_t step_ns,
			  uint64_t cap_ns);

/* The system's clock: CLOCK_MONOTONIC and clock_nanosleep. */
const struct waiter_clock *waiter_clock_system(void);

#endif /* SEGNET_PCAP_WAITER_H */
