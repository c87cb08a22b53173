/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry: publish counter sets through DPDK telemetry (read with
 * dpdk-telemetry.py), e.g. /segnet/switch/stats. A daemon registers
 * endpoints at start-up with a callback that fills a dictionary.
 */
#ifndef SEGNET_DP_TELEMETRY_H
#define SEGNET_DP_TELEMETRY_H

#include <rte_telemetry.h>

#include "dp_counters.h"

/* Add every counter of set to a telemetry dictionary (d must be a dict). */
void dp_telemetry_add_set(struct rte_tel_data *d, const struct dp_counter_set *set);

/*
 * Register endpoint path ("/segnet/switch/stats") with help text; fn fills
 * the reply. 0 or -errno (e.g. telemetry disabled or path taken).
 */
int dp_telemetry_register(const char *path, telemetry_cb fn, const char *help);

#endif
