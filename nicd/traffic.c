/* SPDX-License-Identifier: BSD-3-Clause */
/* The traffic generator. */
#include <string.h>

#include "traffic.h"

static const char *const traffic_names[] = {
	[TRAFFIC_UNIFORM] = "uniform",
	[TRAFFIC_HOTSPOT] = "hotspot",
	[TRAFFIC_DIAGONAL] = "diagonal",
};

int traffic_pattern_parse(const char *name)
{
	for (int i = 0; i < (int)(sizeof(traffic_names) / sizeof(traffic_names[0])); i++)
		if (strcmp(name, traffic_names[i]) == 0)
			return i;
	return -1;
}

const char *traffic_pattern_name(enum traffic_pattern p)
{
	return traffic_names[p];
}

/* A node other than self, uniformly. */
static uint16_t traffic_uniform(struct traffic_gen *g)
{
	uint16_t d = (uint16_t)dp_rand_below(&g->rng, g->p.nodes - 1u);

	return d >= g->p.self ? d + 1 : d;
}

/* A destination drawn from the pattern. */
static uint16_t traffic_pick(struct traffic_gen *g)
{
	uint16_t n = g->p.nodes, self = g->p.self;

	switch (g->p.pattern) {
	case TRAFFIC_HOTSPOT:
		if (self != 0 && dp_rand_unit(&g->rng) < g->p.hot_share)
			return 0;
		return traffic_uniform(g);
	case TRAFFIC_DIAGONAL:
		if (n < 3 || dp_rand_unit(&g->rng) < 2.0 / 3.0)
			return (uint16_t)((self + 1) % n);
		return (uint16_t)((self + 2) % n);
	default:
		return traffic_uniform(g);
	}
}

/* Time to the next burst: uniform in (0, 2 x mean), at most 2^62 ns (a load near 0). */
static uint64_t traffic_gap(struct traffic_gen *g)
{
	double gap = 2.0 * g->mean_gap_ns * dp_rand_unit(&g->rng);

	return gap < 0x1p62 ? (uint64_t)gap + 1 : (uint64_t)1 << 62;
}

void traffic_init(struct traffic_gen *g, const struct traffic_params *p,
		  uint64_t seed, uint64_t stream, uint64_t start_ns)
{
	double mean_burst = p->burst_max > 1 ? (p->burst_max + 1) / 2.0 : 1.0;

	memset(g, 0, sizeof(*g));
	g->p = *p;
	dp_rand_seed(&g->rng, seed, stream);
	g->mean_gap_ns = 1e9 * mean_burst / (p->load * p->capacity_pps);
	g->next_ns = start_ns + traffic_gap(g);
}

uint16_t traffic_next(struct traffic_gen *g)
{
	uint16_t dst;

	if (g->burst_left == 0) {
		g->burst_left = g->p.burst_max > 1 ?
			1 + (uint32_t)dp_rand_below(&g->rng, g->p.burst_max) : 1;
		g->burst_dst = traffic_pick(g);
	}
	dst = g->burst_dst;
	if (--g->burst_left == 0)
		g->next_ns += traffic_gap(g);
	return dst;
}
