/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The names switchd's telemetry publishes besides its counter lists
 * (SW_COUNTERS, the port and fault counters): its commands and the keys
 * their callbacks (swd_telemetry.c) add by name. switchd(8), TELEMETRY,
 * names each key in bold in its command's entry (test_man_telemetry).
 */
#ifndef SEGNET_SWD_TEL_NAMES_H
#define SEGNET_SWD_TEL_NAMES_H

#include "dataplane/dp_telemetry.h"

#define SWD_TEL_CMDS(X) \
	X(stats, "/segnet/switch/stats") \
	X(nodes, "/segnet/switch/nodes") \
	X(arbiter, "/segnet/switch/arbiter")

/* /segnet/switch/stats, after the switch counters. */
#define SWD_TEL_STATS_KEYS(X) \
	X(nodes_up, "nodes up now") \
	X(slot_ns, "the slot length in ns") \
	X(memif_removed, "callbacks the memif guard removed from connections closed in their handshake") \
	X(decode, "frames refused by validation, by reason") \
	X(fault, "with --fault: the fault counters summed per port role")

/* /segnet/switch/nodes[,ID]. */
#define SWD_TEL_NODES_KEYS(X) \
	X(nodes, "nodes switchd has ports for") \
	X(up, "nodes up now") \
	X(more, "how to ask for the nodes that do not fit") \
	X(node, "node<ID>: one node's dictionary (SWD_TEL_NODE_KEYS, port counters)")

/* One node's dictionary in /segnet/switch/nodes, before its ports' counters. */
#define SWD_TEL_NODE_KEYS(X) \
	X(joined, "the node said HELLO") \
	X(up, "the node is up") \
	X(last_cfg_slot, "slot of its last CFG") \
	X(grants, "grants it got") \
	X(requests, "targets in its last CFG")

/*
 * Port roles, in enum swd_role's order. A node's port counters in
 * /segnet/switch/nodes are ROLE_COUNTER ("bulk_rx_frames"), and with
 * --fault the stats' fault dictionary holds one dictionary per role.
 */
#define SWD_TEL_ROLES(X) \
	X(port, "both channels on one device") \
	X(bulk, "the bulk channel's own device") \
	X(quick, "the quick channel's own device") \
	X(control, "control frames: transmit queue 1 of the one device")

/* /segnet/switch/arbiter. */
#define SWD_TEL_ARBITER_KEYS(X) \
	X(name, "the arbiter") \
	X(slots, "slots arbitrated") \
	X(grants, "grants made") \
	X(mean_grants_per_slot, "grants / slots, a string with decimals") \
	X(arb_cycles, "TSC cycles spent arbitrating") \
	X(mean_arb_ns, "arbitration time per slot, a string with decimals") \
	X(match_hist, "slots by number of grants, up to the last non-empty bin")

struct swd_tel_cmds { SWD_TEL_CMDS(DP_TEL_NAME_FIELD) };
struct swd_tel_stats_keys { SWD_TEL_STATS_KEYS(DP_TEL_NAME_FIELD) };
struct swd_tel_nodes_keys { SWD_TEL_NODES_KEYS(DP_TEL_NAME_FIELD) };
struct swd_tel_node_keys { SWD_TEL_NODE_KEYS(DP_TEL_NAME_FIELD) };
struct swd_tel_arbiter_keys { SWD_TEL_ARBITER_KEYS(DP_TEL_NAME_FIELD) };

#endif
