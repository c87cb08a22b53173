/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection: a port that wraps another and, on transmit, loses,
 * duplicates, reorders or corrupts frames with given probabilities, from a
 * seed. It works the same over a simulated link and over an ethdev, so the
 * protocol's guarantees can be tested on a simulator and on a real lab
 * (this machine has no netem).
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
};

#define DP_FAULT_COUNTERS(X) \
	X(lost, "frames dropped") \
	X(duplicated, "extra copies sent") \
	X(reordered, "frames held back behind later ones") \
	X(corrupted, "frames with a flipped bit") \
	X(no_mbuf, "faults skipped because the pool was empty")

/* What the fault port did. */
struct dp_fault_stats {
	DP_FAULT_COUNTERS(DP_COUNTER_FIELD)
};

/* Names of struct dp_fault_stats fields. */
extern const char *const dp_fault_counter_names[];

/* True when any fault has a non-zero probability. */
bool dp_fault_active(const struct dp_fault_params *p);

/*
 * Check probabilities; 0 or -EINVAL with the offending name in err.
 */
int dp_fault_validate(const struct dp_fault_params *p, char *err, size_t errlen);

/*
 * Wrap `inner` (which the wrapper then owns and destroys). Copies for
 * duplication and corruption come from mp. NULL with errno on failure.
 */
struct dp_port *dp_fault_port_create(struct dp_port *inner,
				     const struct dp_fault_params *p,
				     uint64_t seed, struct rte_mempool *mp);

/* The counters of a fault port; NULL when port is not one. */
const struct dp_fault_stats *dp_fault_port_stats(const struct dp_port *port);

#endif
