/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Time spent watching for something (a port to take frames, a peer to read
 * them, nicd to show it runs), from the clock readings of the looks: the
 * time between two looks, up to cap_ns. A longer gap is time the watcher
 * did not run (preempted, or the machine paused), and what it watches
 * likely did not run either: it counts as cap_ns, so a time-out on watched
 * time gives the other side that long while the watcher could see it act,
 * however long the pauses. Header only, no DPDK: libsegnet uses it too.
 */
#ifndef SEGNET_DP_WATCH_H
#define SEGNET_DP_WATCH_H

#include <stdint.h>

/*
 * The cap of a daemon's polling loop (switchd's --down-slots, nicd's wait
 * for grants): its idle sleeps are 1 ms at most, so a longer gap than this
 * between two polls is its own pause (a paused machine, a long preemption).
 */
#define DP_WATCH_POLL_CAP_NS (100ull * 1000 * 1000)

struct dp_watch {
	/* clock reading of the last look */
	uint64_t last_ns;
	/* time counted so far */
	uint64_t watched_ns;
	/* most that one gap between looks counts */
	uint64_t cap_ns;
};

/* Start watching at now_ns (the first look); a gap between looks counts up to cap_ns. */
static inline void dp_watch_start(struct dp_watch *w, uint64_t now_ns, uint64_t cap_ns)
{
	w->last_ns = now_ns;
	w->watched_ns = 0;
	w->cap_ns = cap_ns;
}

/* A look at now_ns; returns the time watched since the start. */
static inline uint64_t dp_watch_look(struct dp_watch *w, uint64_t now_ns)
{
	uint64_t gap = now_ns > w->last_ns ? now_ns - w->last_ns : 0;

	w->watched_ns += gap < w->cap_ns ? gap : w->cap_ns;
	w->last_ns = now_ns;
	return w->watched_ns;
}

/*
 * The other side of a polling loop's watched time: its own pauses, what is
 * over DP_WATCH_POLL_CAP_NS of each gap between two polls, counted in
 * whole slots (switchd's and nicd's slots_paused).
 */
struct dp_pause {
	/* clock reading of the last poll (UINT64_MAX: none yet) */
	uint64_t last_ns;
	/* paused time not counted in slots yet */
	uint64_t rest_ns;
};

/* No poll yet: the first one ends no gap. */
static inline void dp_pause_init(struct dp_pause *p)
{
	p->last_ns = UINT64_MAX;
	p->rest_ns = 0;
}

/*
 * A poll at now_ns: returns the whole slots of slot_ns paused since the
 * last one (the rest under a slot carries over). With slot_ns 0 (not known
 * yet) the pause waits for the first poll that knows it.
 */
static inline uint64_t dp_pause_poll(struct dp_pause *p, uint64_t now_ns, uint64_t slot_ns)
{
	uint64_t last = p->last_ns, gap, slots;

	p->last_ns = now_ns;
	/*
	 * Nearly every poll: a gap within the cap and nothing carried over, so
	 * nothing to count. (The unsigned difference is within the cap only
	 * where the gap below is too, or is 0: the first poll after init.)
	 */
	if (now_ns - last <= DP_WATCH_POLL_CAP_NS && !p->rest_ns)
		return 0;
	gap = now_ns > last ? now_ns - last : 0;
	if (gap > DP_WATCH_POLL_CAP_NS)
		p->rest_ns += gap - DP_WATCH_POLL_CAP_NS;
	if (!slot_ns || p->rest_ns < slot_ns)
		return 0;
	slots = p->rest_ns / slot_ns;
	p->rest_ns %= slot_ns;
	return slots;
}

#endif
