/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch fabric: a state machine handed its ports and the time. Each
 * poll it reads every node's ports, forwards quick-channel frames with
 * first-come arbitration, enforces the bulk schedule, and at every slot
 * boundary runs the arbiter and sends each node its grant. It never calls
 * ethdev and reads no clock but one it is handed (sw_config.clock):
 * switchd and segnet-sim drive it alike.
 */
#ifndef SEGNET_FABRIC_H
#define SEGNET_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "dataplane/dp_counters.h"
#include "dataplane/dp_port.h"

/* The longest grant lead (slots); the slot ring grows with it. */
enum { SW_MAX_GRANT_LEAD = 64 };

/* Quick-channel arbitration modes. */
enum sw_quick_mode {
	SW_QUICK_DROP,		/* a QREQ meeting a busy output is dropped */
	SW_QUICK_INTERLEAVE,	/* acknowledgments interleave; only QREQ vs QREQ drops */
};

/* Configuration of a switch fabric. */
struct sw_config {
	uint16_t n_nodes;		/* ports 0 .. n_nodes-1 = node ids */
	const char *arbiter;		/* arbiter spec: "lcf", "islip:4", ... */
	enum sw_quick_mode quick_mode;	/* quick-channel arbitration */
	double bulk_gbps;		/* bulk link rate: sets the slot length */
	double quick_gbps;		/* quick link rate: sets output busy times */
	uint32_t slot_frames;		/* bulk frames per slot (>= 1) */
	uint64_t slot_ns;		/* 0: derived from bulk_gbps and slot_frames */
	uint32_t down_slots;		/* slots without CFG before a node is down; 0 = never */
	uint32_t gnt_keepalive;		/* slots between GNTs to a node without grants (0 = 8,
				 * at most PROTO_MAX_GNT_KEEPALIVE) */
	/*
	 * Slots between a grant and the slot it is for (0 = 1): the GNT
	 * leaves at the start of slot s - grant_lead, and the BREQ must reach
	 * the switch within slots s - 1 .. s + 1. Raise it when that round
	 * trip takes more than two slots (breq_late counts the BREQs missed).
	 */
	uint32_t grant_lead;
	uint16_t max_endpoints;		/* endpoint ids must be below this */
	uint64_t seed;			/* for randomized arbiters */
	struct rte_mempool *mp;		/* frames the switch originates */
	bool check_crc;			/* verify CRC32C of every frame */
	/*
	 * A poller that sleeps when idle: while no node requests a target or
	 * has just joined, poll returns the boundary of the next keepalive
	 * GNT instead of the next boundary, and the boundaries in between
	 * (nothing to arbitrate) count as slots_idle, not slots_skipped.
	 */
	bool idle_skip;
	/* Optional: a cycle counter for arbitration-time counters (daemon only). */
	uint64_t (*cycles)(void);
	/*
	 * Optional: the clock now is read from, read again after each poll's
	 * receive (daemon only). A poll preempted between reading now and
	 * receiving, or a slot late, takes frames that came in meanwhile; the
	 * time after the receive is the latest they can have come, so a BREQ
	 * is judged early against it, not against now. NULL: now.
	 */
	uint64_t (*clock)(void);
	/*
	 * Optional: control[i] carries the control frames to node i that the
	 * switch originates or forwards (GNT, BACK, QACK, DOWN notices), e.g.
	 * a transmit queue of its own on node i's device. Transmit only: the
	 * fabric never reads it. NULL, or a NULL entry: quick[i].
	 */
	struct dp_port *const *control;
};

#define SW_COUNTERS(X) \
	X(rx_frames, "frames received on all ports") \
	X(rx_invalid, "frames that failed validation (by reason: decode.*)") \
	X(forged_src, "frames whose source node is not the node on their port") \
	X(forged_notice, "frames from a node carrying the DOWN flag only the switch sets") \
	X(not_joined, "frames from a node that has not sent HELLO") \
	X(src_down, "frames other than HELLO and CFG from a node marked down, dropped until its HELLO") \
	X(unexpected_type, "frames of a type a node may not send") \
	X(dst_down, "frames for a node that is down") \
	X(wrong_port, "frames on the wrong channel's port") \
	X(breq_forwarded, "BREQs forwarded") \
	X(breq_not_granted, "BREQs matching no unused grant (schedule enforced)") \
	X(breq_early, "of those, for a slot more than one ahead (grant lead too long)") \
	X(breq_late, "of those, for a slot already over (grant lead too short)") \
	X(breq_collision, "unscheduled model: BREQs lost at a taken output") \
	X(breq_outbuf_full, "output-buffered model: BREQs dropped, buffer full") \
	X(back_forwarded, "BACKs forwarded") \
	X(back_not_scheduled, "BACKs not along the inverted schedule") \
	X(qreq_forwarded, "QREQs forwarded") \
	X(qreq_collision, "QREQs dropped: output busy (first come wins)") \
	X(qreq_lost_to_control, "of those, lost to a control frame on the output (drop mode)") \
	X(qreq_disabled, "QREQs the target's quick enable vector refuses") \
	X(quick_over_rate, "quick frames from a node sending faster than --quick-gbps, held to the lead") \
	X(qack_forwarded, "QACKs forwarded") \
	X(cfg_received, "CFGs received") \
	X(cfg_bad_size, "CFGs whose vectors do not match the cluster size") \
	X(cfg_node_down, "CFGs from a node marked down, ignored until its HELLO") \
	X(hello_received, "HELLOs received") \
	X(joins, "nodes that joined") \
	X(hello_repeats, "HELLOs repeating a join that stands (answered, nothing reset)") \
	X(downs, "nodes marked down for missing CFGs") \
	X(down_notices, "DOWN notices sent to initiators") \
	X(slots, "slots arbitrated") \
	X(slots_skipped, "slot boundaries missed while a node was up: a poll came late (a pause's are in slots_paused only)") \
	X(slots_idle, "slot boundaries passed asleep, nothing due (idle_skip; a pause's are in slots_paused only)") \
	X(slots_paused, "slots of switchd's own pauses (of a gap between polls, what is over 100 ms), not counted as nodes' silence, skipped or idle") \
	X(grants, "grants made") \
	X(gnt_sent, "GNT frames sent") \
	X(rejoin_told, "GNTs flagged REJOIN: a CFG came from a node not joined or marked down, whose NIC thinks it is up") \
	X(arb_cycles, "cycles spent in the arbiter (if a cycle counter is set)") \
	X(no_mbuf, "frames not originated: mempool empty")

/* Switch-wide counters. */
struct sw_stats {
	SW_COUNTERS(DP_COUNTER_FIELD)
};

/* Names of struct sw_stats fields. */
extern const char *const sw_counter_names[];

/* What the switch knows of one node (telemetry). */
struct sw_node_info {
	bool joined;		/* sent HELLO */
	bool up;		/* sending CFGs */
	uint64_t last_cfg_slot;	/* slot of its last CFG */
	uint64_t grants;	/* grants it received */
	uint64_t requests;	/* targets requested in its last CFG */
};

struct sw_fabric;

/*
 * A fabric over bulk[i] and quick[i] for node i (the same port for both when
 * a node has one port). The fabric does not own the ports. NULL with errno
 * and a message in err on bad configuration.
 */
struct sw_fabric *sw_fabric_create(const struct sw_config *cfg,
				   struct dp_port *const *bulk,
				   struct dp_port *const *quick,
				   char *err, size_t errlen);

/* Free a fabric and the frames it holds. */
void sw_fabric_destroy(struct sw_fabric *sw);

/*
 * Do the work due at now; returns when it must run next (with idle_skip,
 * possibly several slots ahead: frames that arrive before then wait).
 */
uint64_t sw_fabric_poll(struct sw_fabric *sw, uint64_t now);

/* Slot length in ns. */
uint64_t sw_fabric_slot_ns(const struct sw_fabric *sw);

/* Slots between a grant and the slot it is for. */
uint32_t sw_fabric_grant_lead(const struct sw_fabric *sw);

/*
 * Nodes that are up. With none, slot boundaries carry no work: a poller may
 * come late without missing anything (nothing is counted as skipped).
 */
uint16_t sw_fabric_nodes_up(const struct sw_fabric *sw);

/* Switch-wide counters. */
const struct sw_stats *sw_fabric_stats(const struct sw_fabric *sw);

/* Counters of frames rejected by validation, indexed by enum proto_reason. */
const uint64_t *sw_fabric_decode_drops(const struct sw_fabric *sw);

/* What the switch knows of node i. */
void sw_fabric_node_info(const struct sw_fabric *sw, uint16_t i,
			 struct sw_node_info *info);

/* Histogram of grants per slot: hist[k] = slots with k grants (k <= n). */
const uint64_t *sw_fabric_match_hist(const struct sw_fabric *sw);

/* Name of the arbiter in use. */
const char *sw_fabric_arbiter(const struct sw_fabric *sw);

/* Print every non-zero counter. */
void sw_fabric_print_counters(const struct sw_fabric *sw, FILE *f);

/* Slot length for a link rate and frames per slot: one full BREQ each. */
uint64_t sw_slot_ns_for(double bulk_gbps, uint32_t slot_frames);

#endif
