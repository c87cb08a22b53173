/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging: one DPDK log type per component ("segnet.switchd.arb"),
 * registered with DP_LOG_REGISTER, and a rate limiter for anything that could
 * fire per packet.
 */
#ifndef SEGNET_DP_LOG_H
#define SEGNET_DP_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_log.h>

/* Define log type variable `type` named "segnet.<dotted name>" at INFO. */
#define DP_LOG_REGISTER(type, name) RTE_LOG_REGISTER(type, segnet.name, INFO)

/* Log one line at `level` (ERR, WARNING, NOTICE, INFO, DEBUG) to `type`. */
#define DP_LOG(type, level, fmt, ...) \
	rte_log(RTE_LOG_##level, type, fmt "\n", ##__VA_ARGS__)

/* At most `burst` messages per `interval_ns`; the rest are counted. */
struct dp_ratelimit {
	uint64_t interval_ns;	/* length of one window */
	uint32_t burst;		/* messages allowed per window */
	uint32_t used;		/* messages printed in this window */
	uint64_t window_start;	/* start of this window */
	uint64_t suppressed;	/* messages refused since the last one allowed */
};

/* True when a message may be printed at time now. */
static inline bool dp_ratelimit_ok(struct dp_ratelimit *rl, uint64_t now)
{
	if (now - rl->window_start >= rl->interval_ns) {
		rl->window_start = now;
		rl->used = 0;
	}
	if (rl->used < rl->burst) {
		rl->used++;
		return true;
	}
	rl->suppressed++;
	return false;
}

#endif
