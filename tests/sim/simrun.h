/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One simulation run: a switch fabric and N NICs (the code the daemons run)
 * on simulated links, a traffic generator per node and channel, and the
 * measurements segnet-sim reports.
 */
#ifndef SEGNET_SIMRUN_H
#define SEGNET_SIMRUN_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "dataplane/dp_fault.h"
#include "dataplane/pkt.h"
#include "nicd/traffic.h"
#include "switchd/fabric.h"

/* Which channels carry generated traffic. */
enum simrun_channels {
	SIMRUN_BOTH,
	SIMRUN_BULK,
	SIMRUN_QUICK,
};

/* Everything that defines a run. */
struct simrun_config {
	uint16_t nodes;			/* cluster size */
	const char *arbiter;		/* arbiter spec */
	enum sw_quick_mode quick_mode;	/* quick-channel arbitration */
	double load;			/* offered load, fraction of capacity */
	double quick_load;		/* the quick channel's, if > 0; else load */
	bool quick_same_rate;		/* quick: the bulk channel's message rate */
	uint32_t burst_max;		/* 1 = no bursts */
	enum traffic_pattern traffic;	/* destinations */
	double hot_share;		/* hot-spot share */
	enum simrun_channels channels;	/* which channels get traffic */
	double bulk_gbps;		/* bulk link rate */
	double quick_gbps;		/* quick link rate */
	uint64_t prop_ns;		/* propagation delay of every link */
	uint32_t slot_frames;		/* bulk frames per slot */
	uint32_t grant_lead;		/* switch's grant lead; 0: from prop_ns */
	uint16_t bulk_bufs;		/* bulk send buffers per node */
	uint16_t per_target;		/* per-target cap */
	uint16_t quick_bufs;		/* quick send buffers per node */
	uint16_t quick_reserve;		/* of which kept for connections that hold
					 * none (nicd's --quick-reserve; 0: none) */
	uint32_t descriptors;		/* packet descriptors per NIC */
	uint32_t cfg_keepalive;		/* slots between unchanged CFGs (nicd's 8) */
	uint16_t payload;		/* bulk payload bytes */
	const char *conf;		/* protocol configuration (name or spec) */
	bool one_vnet;			/* both channels on one virtual network */
	uint64_t duration_ns;		/* generation time */
	double warmup;			/* fraction of duration not measured */
	uint64_t messages;		/* > 0: generate this many, then drain */
	struct dp_fault_params faults;	/* on every link, both directions */
	uint64_t outage_at_ns;		/* node 0's uplinks drop everything from here */
	uint64_t outage_ns;		/* ... for this long (0: no outage) */
	uint64_t seed;			/* of everything random */
	bool check_crc;			/* switch verifies CRC32C */
};

/* Latency statistics of one channel, in microseconds. */
struct simrun_lat {
	double mean;
	double p50;
	double p99;
};

/* Results of one channel. */
struct simrun_chan {
	double load;			/* offered load asked for, fraction of capacity */
	uint64_t generated;		/* messages generated in the window */
	uint64_t delivered;		/* delivered in the window */
	double offered;			/* generated / capacity */
	double throughput;		/* delivered / capacity */
	struct simrun_lat queue;	/* generation -> first transmission start */
	struct simrun_lat e2e;		/* generation -> delivery */
	double collisions;		/* per delivered packet */
	double retransmissions;		/* per delivered packet */
};

/* The delivery checker's verdict over all flows. */
struct simrun_delivery {
	uint64_t sent;			/* messages handed to NICs */
	uint64_t delivered;		/* deliveries, duplicates included */
	uint64_t lost;			/* sent, never delivered, no longer queued */
	uint64_t queued;		/* sent, never delivered, still queued at the end */
	uint64_t duplicated;		/* deliveries of a message seen before */
	uint64_t reordered;		/* first deliveries after a later message */
	uint64_t failed;		/* sends completed with an error */
};

/* Results of a run. */
struct simrun_result {
	struct simrun_chan chan[SN_CHAN_COUNT];	/* bulk, quick */
	double matched_per_slot;	/* grants per slot */
	uint64_t slot_ns;		/* slot length */
	uint64_t sim_ns;		/* virtual time simulated */
	uint64_t events;		/* engine events */
	uint64_t frames;		/* frames that crossed a link */
	double wall_s;			/* wall-clock seconds */
	struct simrun_delivery delivery;	/* checker */
	double acks_per_data;		/* standalone acks (QACK) per quick data frame */
	int64_t recovery_ns;		/* outage: last delivery of node 0's earlier
					 * messages after the outage ended (-1: none) */
	uint64_t outage_ran_ns;		/* outage: how much of it the run simulated
					 * (0: the run ended before it began) */
	struct sw_stats sw;		/* switch counters */
	uint64_t bulk_waited;		/* BREQs the switch sent on a bulk link still
					 * busy with an earlier frame for 1 ns or more
					 * (none: the schedule keeps the bulk channel
					 * from queuing) */
	uint64_t bulk_wait_max_ps;	/* the longest wait, shorter ones too (under
					 * 1 ns: arrival times rounded to the ns) */
};

/* Fill defaults (the documented ones). */
void simrun_defaults(struct simrun_config *cfg);

/* The switch's grant lead in a run: grant_lead, or the fewest slots that cover the links. */
uint32_t simrun_grant_lead(const struct simrun_config *cfg);

/*
 * Refuse a configuration no run can make sense of: a slot too short for a
 * GNT and its BREQ to cross the links, or a quick channel offered more than
 * its capacity. 0, or -EINVAL with a message naming the option in err.
 */
int simrun_check(const struct simrun_config *cfg, char *err, size_t errlen);

/*
 * Run one simulation with frames from mp (created once per process: DPDK
 * cannot create pools after fork). 0, or -errno with a message in err; a
 * run that ends with frames missing from mp fails with -EFAULT (a leak).
 * verbose prints every component's counters at the end.
 */
int simrun(const struct simrun_config *cfg, struct rte_mempool *mp,
	   struct simrun_result *res, bool verbose, char *err, size_t errlen);

/* Frames a run may hold at once. */
enum { SIMRUN_POOL_FRAMES = 65535 };

#endif
