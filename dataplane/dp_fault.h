/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection: a port that wraps another and, on transmit, loses,
 * duplicates, reorders or corrupts frames with given probabilities, from a
 * seed, and can delay every frame by a fixed time. It works the same over a
 * simulated link and over an ethdev, so the protocol's guarantees can be
 * tested on a simulator and on a real lab (this machine has no netem):
 * switchd and nicd take it as --fault SPEC.
 *
 * Like the components, the port reads no clock: its owner hands it the
 * time with dp_fault_port_poll() before each poll of its component, and a
 * delayed frame leaves at the first poll, receive or transmit at or after
 * its time.
 */
#ifndef SEGNET_DP_FAULT_H
#define SEGNET_DP_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "dp_port.h"

/* Probabilities per transmitted frame, each in [0, 1). */
struct dp_fault_params {
	double loss;		/* frame is dropped */
	double dup;		/* frame is sent twice */
	double reorder;		/* frame is held back behind later frames */
	double corrupt;		/* one bit of the frame is flipped */
	uint32_t hold_max;	/* a held frame waits for 1..hold_max later frames */
	uint32_t hold_polls;	/* ... or at most this many rx polls */
	uint64_t delay_ns;	/* every surviving frame waits this long */
	uint32_t delay_frames;	/* ... at most this many at once (0: 256);
				 * more are dropped (delay_full) */
};

enum {
	/* Frames a delaying port holds at once: the default and the most. */
	DP_FAULT_DELAY_FRAMES = 256,
	DP_FAULT_DELAY_FRAMES_MAX = 65536,
	/* Longest delay: 1 s. */
	DP_FAULT_DELAY_MAX_NS = 1000000000,
};

#define DP_FAULT_COUNTERS(X) \
	X(lost, "frames dropped") \
	X(duplicated, "extra copies sent") \
	X(reordered, "frames held back behind later ones") \
	X(corrupted, "frames with a flipped bit") \
	X(delayed, "frames held for the fixed delay") \
	X(delay_full, "frames dropped because the delay queue was full") \
	X(no_mbuf, "faults skipped because the pool was empty")

/* What the fault port did. */
struct dp_fault_stats {
	DP_FAULT_COUNTERS(DP_COUNTER_FIELD)
};

/* Names of struct dp_fault_stats fields. */
extern const char *const dp_fault_counter_names[];

/* The keys of a --fault SPEC ("loss" ... "seed"), NULL-terminated. */
extern const char *const dp_fault_spec_keys[];

/* True when any fault has a non-zero probability, or there is a delay. */
bool dp_fault_active(const struct dp_fault_params *p);

/*
 * Check probabilities and the delay; 0 or -EINVAL with the offending name
 * in err.
 */
int dp_fault_validate(const struct dp_fault_params *p, char *err, size_t errlen);

/*
 * Parse a daemon's --fault SPEC: comma-separated KEY=VALUE with keys loss,
 * dup, reorder, corrupt (probabilities in [0, 1)), delay-us (0 to 10^6,
 * fractions allowed) and seed (a whole number; *seed is left alone when
 * absent). opt names the option in messages. 0, or -EINVAL with a message
 * naming the key in err; p is filled from zero.
 */
int dp_fault_parse(const char *opt, const char *spec, struct dp_fault_params *p,
		   uint64_t *seed, char *err, size_t errlen);

/*
 * A daemon's --fault SPEC option into p and seed (dp_fault_parse), refusing
 * a spec that injects nothing (dp_opt_next refuses a second --fault).
 */
int dp_fault_option(const char *spec, struct dp_fault_params *p, uint64_t *seed, char *err,
		    size_t errlen);

/* The --fault lines of a daemon's --help. */
#define DP_FAULT_USAGE \
	"  --fault SPEC            inject faults into every frame this daemon sends,\n" \
	"                          for tests (no netem needed): comma-separated\n" \
	"                          loss=P, dup=P, reorder=P, corrupt=P (probabilities\n" \
	"                          below 1), delay-us=US (every frame, up to 10^6),\n" \
	"                          delay-frames=N (frames waiting at once, default\n" \
	"                          256) and seed=S (default 1); e.g.\n" \
	"                          loss=0.01,delay-us=500\n"

/* The parameters as a spec dp_fault_parse takes (the non-zero ones). */
void dp_fault_format(const struct dp_fault_params *p, char *buf, size_t len);

/*
 * Wrap `inner` (which the wrapper then owns and destroys). Copies for
 * duplication and corruption come from mp. NULL with errno on failure.
 */
struct dp_port *dp_fault_port_create(struct dp_port *inner,
				     const struct dp_fault_params *p,
				     uint64_t seed, struct rte_mempool *mp);

/* The counters of a fault port; NULL when port is not one. */
const struct dp_fault_stats *dp_fault_port_stats(const struct dp_port *port);

/*
 * Delay frames from clock() read as each is sent, not from the time of the
 * last dp_fault_port_poll: for a daemon, whose polling thread can be
 * preempted between its poll and a send, so that the poll's time would cut
 * the delay short by the preemption. segnet-sim keeps the poll's time: its
 * clock does not move within a poll. Does nothing when port is not a fault
 * port.
 */
void dp_fault_port_set_clock(struct dp_port *port, uint64_t (*clock)(void));

/*
 * Hand a fault port the time, before the owner's component sends at now
 * (and before it first sends at all: until then the time is 0): delayed
 * frames whose time has come leave, a held-back frame ages by one poll,
 * and frames sent from now on are delayed from now. Once a port is polled
 * this way, receive polls no longer age its held frame. Does nothing when
 * port is not a fault port.
 */
void dp_fault_port_poll(struct dp_port *port, uint64_t now);

/*
 * When the port must be polled again, after the component sent, so a
 * poller can cap its sleep: the time the next delayed frame is due, the
 * last time handed over while a frame is held back (it leaves after a few
 * polls), UINT64_MAX when nothing waits or port is not a fault port.
 */
uint64_t dp_fault_port_next_due(const struct dp_port *port);

/*
 * Frames a port with these parameters may hold for the delay: 0 without a
 * delay. Its owner adds them to the pool its frames come from.
 */
uint32_t dp_fault_delay_frames(const struct dp_fault_params *p);

/*
 * Append to a pool-creation failure in err that the pool includes frames
 * per port for the delay, and what to do about it.
 */
void dp_fault_pool_hint(char *err, size_t errlen, uint32_t delay_frames);

/* The port a fault port wraps; port itself when it is not one. */
struct dp_port *dp_fault_port_inner(const struct dp_port *port);

#endif
