/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A traffic generator for one node and one channel: when the next message is
 * due and to whom. Destinations are uniform, hot-spot or diagonal; the
 * injection rate is a fraction of the channel's capacity, with intervals
 * varying uniformly around the mean; optionally messages come in bursts of
 * uniform length 1..K to one destination (the interval between bursts grows
 * so the load stays the same). Pure logic on injected time and a seed.
 */
#ifndef SEGNET_TRAFFIC_H
#define SEGNET_TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/dp_rand.h"

/* Destination patterns. */
enum traffic_pattern {
	TRAFFIC_UNIFORM,	/* every other node equally */
	TRAFFIC_HOTSPOT,	/* a share to node 0 (the hot spot), the rest uniform */
	TRAFFIC_DIAGONAL,	/* 2/3 to node i+1, 1/3 to node i+2 */
};

/* Parameters of a generator. */
struct traffic_params {
	enum traffic_pattern pattern;	/* destinations */
	double load;			/* fraction of capacity, (0, 1] */
	double capacity_pps;		/* messages per second at load 1 */
	uint32_t burst_max;		/* 1 = no bursts; else bursts of 1..K */
	double hot_share;		/* TRAFFIC_HOTSPOT: share sent to node 0 */
	uint16_t nodes;			/* cluster size */
	uint16_t self;			/* this node */
};

/* State of a generator. */
struct traffic_gen {
	struct traffic_params p;	/* parameters */
	struct dp_rand rng;		/* draws */
	double mean_gap_ns;		/* mean time between bursts */
	uint64_t next_ns;		/* when the next message is due */
	uint32_t burst_left;		/* messages left in the current burst */
	uint16_t burst_dst;		/* destination of the current burst */
};

/* Parse a pattern name; -1 if unknown. */
int traffic_pattern_parse(const char *name);

/* Name of a pattern. */
const char *traffic_pattern_name(enum traffic_pattern p);

/* Set up a generator whose first message is due after start_ns. */
void traffic_init(struct traffic_gen *g, const struct traffic_params *p,
		  uint64_t seed, uint64_t stream, uint64_t start_ns);

/* Destination of the message due at g->next_ns; advances to the next one. */
uint16_t traffic_next(struct traffic_gen *g);

#endif
