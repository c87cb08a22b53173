/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Percentiles by nearest rank: the one definition every segnet report of
 * p50 and p99 uses (the tools, segnet-sim, the benchmarks, replay_stats).
 */
#ifndef SEGNET_DP_RANK_H
#define SEGNET_DP_RANK_H

#include <stddef.h>

/*
 * The index, in n >= 1 samples sorted ascending, of the pct-th percentile:
 * the smallest sample with at least pct % of the samples at or below it.
 */
static inline size_t dp_rank_index(size_t n, unsigned int pct)
{
	return (n * pct + 99) / 100 - 1;
}

#endif
