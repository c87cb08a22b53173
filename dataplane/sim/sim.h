/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The discrete-event simulation backend: a virtual nanosecond clock, actors
 * (components polled at the times they ask for and when frames reach them)
 * and simulated full-duplex links with a rate, a propagation delay and
 * per-frame serialization. Runs are deterministic: events at the same time
 * are ordered by kind (deliveries before polls) and then by creation order.
 */
#ifndef SEGNET_SIM_H
#define SEGNET_SIM_H

#include <stdint.h>

#include "dataplane/dp_port.h"

/* "Never": an actor with nothing to do returns this from its poll. */
#define SIM_NEVER UINT64_MAX

struct sim_engine;

/*
 * An actor's poll: do the work due at `now` (virtual ns) and return the next
 * time it must run, or SIM_NEVER. It is also run whenever a frame reaches one
 * of its ports.
 */
typedef uint64_t (*sim_poll_fn)(void *ctx, uint64_t now);

/* One direction of a simulated link. */
struct sim_link_params {
	double gbps;		/* serialization rate */
	uint64_t prop_ns;	/* propagation delay */
	uint32_t tx_queue;	/* frames waiting or on the wire before tail drop */
	uint32_t rx_queue;	/* frames waiting to be polled before drop */
};

#define SIM_LINK_COUNTERS(X) \
	X(tx_queue_full, "frames dropped: the link's transmit queue was full") \
	X(rx_queue_full, "frames dropped: the receiver's queue was full")

/* Drops inside a simulated port. */
struct sim_port_stats {
	SIM_LINK_COUNTERS(DP_COUNTER_FIELD)
};

/* A new engine at time 0; NULL with errno on failure. */
struct sim_engine *sim_engine_create(void);

/* Free an engine; destroy its ports first. */
void sim_engine_destroy(struct sim_engine *eng);

/* Register an actor; returns its id (>= 0) or -errno. */
int sim_engine_add_actor(struct sim_engine *eng, sim_poll_fn fn, void *ctx);

/* Ask for actor to be polled at time t (the earliest request wins). */
void sim_engine_wake(struct sim_engine *eng, int actor, uint64_t t);

/* Current virtual time. */
uint64_t sim_engine_now(const struct sim_engine *eng);

/* Process events until virtual time `until`; returns events processed. */
uint64_t sim_engine_run(struct sim_engine *eng, uint64_t until);

/* Events processed since creation (for simulator speed reports). */
uint64_t sim_engine_events(const struct sim_engine *eng);

/*
 * Join two actors with a full-duplex link. *a belongs to actor_a and sends
 * to *b, and the other way round; both directions use params. Returns 0 or
 * -errno.
 */
int sim_wire(struct sim_engine *eng, const char *name,
	     int actor_a, int actor_b, const struct sim_link_params *params,
	     struct dp_port **a, struct dp_port **b);

/* Drop counters of a simulated port; NULL when port is not one. */
const struct sim_port_stats *sim_port_stats(const struct dp_port *port);

/* Names of struct sim_port_stats fields. */
extern const char *const sim_port_counter_names[];

#endif
