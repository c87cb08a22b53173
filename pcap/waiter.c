/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Waiting for a departure time on an injected clock. The only clock reads
 * and sleeps of the pcap library are in the system clock at the bottom of
 * this file, which callers inject like any other.
 */
#include <string.h>
#include <time.h>

#include "pcap/waiter.h"

void waiter_init(struct waiter *w, const struct waiter_clock *c, uint64_t spin_ns)
{
	memset(w, 0, sizeof(*w));
	w->clock = *c;
	w->spin_ns = spin_ns;
}

uint64_t waiter_wait_until(struct waiter *w, uint64_t deadline_ns)
{
	const struct waiter_clock *c = &w->clock;
	uint64_t now = c->now(c->ctx);

	w->waits++;
	if (now >= deadline_ns) {
		w->late++;
		return now;
	}
	while (now < deadline_ns) {
		if (deadline_ns - now > w->spin_ns) {
			w->sleeps++;
			c->sleep(c->ctx, deadline_ns - now - w->spin_ns);
		} else {
			w->spins++;
			if (c->relax != NULL)
				c->relax(c->ctx);
		}
		now = c->now(c->ctx);
	}
	return now;
}

void waiter_sleep_watched(const struct waiter_clock *c, uint64_t ns, uint64_t step_ns,
			  uint64_t cap_ns)
{
	struct dp_watch w;
	uint64_t done = 0;

	dp_watch_start(&w, c->now(c->ctx), cap_ns);
	while (done < ns) {
		c->sleep(c->ctx, ns - done < step_ns ? ns - done : step_ns);
		done = dp_watch_look(&w, c->now(c->ctx));
	}
}

/* CLOCK_MONOTONIC in ns. */
static uint64_t sys_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Relative sleep on CLOCK_MONOTONIC; an interrupted sleep just returns. */
static void sys_sleep(void *ctx, uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000u),
		.tv_nsec = (long)(ns % 1000000000u),
	};

	(void)ctx;
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

/*
 * The system clock, shared by every waiter that uses it. No relax hint: the
 * clock read itself paces the busy-wait, and a DPDK caller can inject
 * rte_pause() in its own clock.
 */
static const struct waiter_clock waiter_sys_clock = {
	.now = sys_now,
	.sleep = sys_sleep,
};

const struct waiter_clock *waiter_clock_system(void)
{
	return &waiter_sys_clock;
}
