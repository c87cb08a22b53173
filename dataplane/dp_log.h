/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging: one DPDK log type per component ("segnet.switchd.fabric"),
 * registered with DP_LOG_REGISTER from the list DP_LOG_TYPES, and a rate
 * limiter for anything that could fire per packet.
 */
#ifndef SEGNET_DP_LOG_H
#define SEGNET_DP_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_log.h>

/*
 * Every segnet log type, X(id, name, what it logs), in one list as rte_log.h
 * lists DPDK's own (switchd's and nicd's too: names only, nothing of theirs
 * is included): a component registers its type with DP_LOG_REGISTER(var,
 * id), so no name is written twice. The LOGGING section of the man page of
 * each program that links a type names it, and doc/operations.md's Logging
 * table has its row (test_man_logging checks both).
 */
#define DP_LOG_TYPES(X) \
	X(DATAPLANE_EAL, "segnet.dataplane.eal", "TSC rate, NUMA placement, EAL clean-up, memif hang-ups") \
	X(DATAPLANE_ETHDEV, "segnet.dataplane.ethdev", "port set-up, links, restarts, close") \
	X(DATAPLANE_TELEMETRY, "segnet.dataplane.telemetry", "telemetry paths and keys refused") \
	X(SWITCHD_DAEMON, "segnet.switchd.daemon", "switchd's ports and start-up") \
	X(SWITCHD_FABRIC, "segnet.switchd.fabric", "nodes joining the switch") \
	X(SWITCHD_BULK, "segnet.switchd.bulk", "nodes marked down (no CFG)") \
	X(NICD_DAEMON, "segnet.nicd.daemon", "nicd's ports and start-up") \
	X(NICD_NIC, "segnet.nicd.nic", "a node joining again after lost grants") \
	X(NICD_INGRESS, "segnet.nicd.ingress", "a node joined or joining again") \
	X(NICD_HOST, "segnet.nicd.host", "endpoints closed") \
	X(NICD_CTL, "segnet.nicd.ctl", "endpoints opened, OPENs refused")

#define DP_LOG_TYPE_ID(id, name, text) DP_LOGTYPE_##id,
/* A log type of DP_LOG_TYPES. */
enum dp_logtype_id { DP_LOG_TYPES(DP_LOG_TYPE_ID) DP_LOGTYPE_COUNT };

#define DP_LOG_TYPE_NAME(id, name, text) [DP_LOGTYPE_##id] = name,
/* The name of log type id ("segnet.dataplane.eal"). */
static inline const char *dp_log_type_name(enum dp_logtype_id id)
{
	static const char *const names[] = { DP_LOG_TYPES(DP_LOG_TYPE_NAME) };

	return names[id];
}

/* Define log type variable `type`, the type id of DP_LOG_TYPES, at INFO. */
#define DP_LOG_REGISTER(type, id) \
	RTE_LOG_REGISTER_IMPL(type, dp_log_type_name(DP_LOGTYPE_##id), INFO)

/* Log one line at `level` (ERR, WARNING, NOTICE, INFO, DEBUG) to `type`. */
#define DP_LOG(type, level, fmt, ...) \
	rte_log(RTE_LOG_##level, type, fmt "\n", ##__VA_ARGS__)

/*
 * At most `burst` messages per `interval_ns`; the rest are counted. A
 * window opens at the first message after the previous one ended (the
 * first message of all opens the first), so `burst` messages are at
 * least `interval_ns` apart from the next, whatever the clock's origin.
 */
struct dp_ratelimit {
	uint64_t interval_ns;	/* length of one window */
	uint32_t burst;		/* messages allowed per window */
	uint32_t used;		/* messages printed in this window */
	bool open;		/* a window has opened */
	uint64_t window_start;	/* start of this window */
	uint64_t suppressed;	/* messages refused since the last one allowed */
};

/* True when a message may be printed at time now. */
static inline bool dp_ratelimit_ok(struct dp_ratelimit *rl, uint64_t now)
{
	if (!rl->open || now - rl->window_start >= rl->interval_ns) {
		rl->open = true;
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
