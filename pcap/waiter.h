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

#include "dataplane/dp_watch.h"

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
 * Sleep on clock c, in steps of step_ns, until ns of watched time (gaps
 * counting up to cap_ns, dataplane/dp_watch.h) have passed.
 */
void waiter_sleep_watched(const struct waiter_clock *c, uint64_t ns, uint64_t step_ns,
			  uint64_t cap_ns);

/* The system's clock: CLOCK_MONOTONIC and clock_nanosleep. */
const struct waiter_clock *waiter_clock_system(void);

#endif /* SEGNET_PCAP_WAITER_H */
