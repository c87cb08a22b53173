/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * switchd's telemetry endpoints, read with dpdk-telemetry.py -f PREFIX:
 *
 *   /segnet/switch/stats      switch counters and decode drops by reason
 *   /segnet/switch/nodes[,ID] per node: joined, up, last CFG slot, grants,
 *                             requests and its ports' counters
 *   /segnet/switch/arbiter    name, slots, grants, match histogram, mean
 *                             grants per slot and arbitration time
 *
 * The callbacks run on DPDK's telemetry thread while the polling thread
 * writes the counters. They read them without locks: each counter is one
 * aligned 64-bit word written by one thread, so a reader sees a value at
 * most one update old, and counters of one reply may be a poll apart. What
 * the lock below guards is the lifetime of the fabric and the ports: the
 * poller never takes it; main takes it once, to unpublish before freeing.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>

#include "dataplane/dp_telemetry.h"
#include "proto/proto.h"
#include "switchd/swd.h"
#include "switchd/swd_tel_names.h"

enum {
	/* Nodes /segnet/switch/nodes lists without an ID (a reply holds 16 KiB). */
	SWD_TEL_NODES = 16,
};

/* What the endpoints may read, and the lock that keeps it alive meanwhile. */
static struct {
	pthread_mutex_t lock;		/* held while a callback reads */
	const struct sw_fabric *sw;	/* the fabric, or NULL */
	const struct swd_ports *ports;	/* its ports, or NULL */
} swd_tel = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The commands and the keys added by name (swd_tel_names.h). */
static const struct swd_tel_cmds swd_tel_cmd = { SWD_TEL_CMDS(DP_TEL_CMD_INIT) };
static const struct swd_tel_stats_keys swd_tel_stats_key = { SWD_TEL_STATS_KEYS(DP_TEL_KEY_INIT) };
static const struct swd_tel_nodes_keys swd_tel_nodes_key = { SWD_TEL_NODES_KEYS(DP_TEL_KEY_INIT) };
static const struct swd_tel_node_keys swd_tel_node_key = { SWD_TEL_NODE_KEYS(DP_TEL_KEY_INIT) };
static const struct swd_tel_arbiter_keys swd_tel_arbiter_key = {
	SWD_TEL_ARBITER_KEYS(DP_TEL_KEY_INIT)
};

/* Add the decode drop counters, by reason, as a nested dictionary "decode". */
static int swd_tel_decode(struct rte_tel_data *d, const uint64_t *decode,
			  struct dp_telemetry_held *held)
{
	struct rte_tel_data *c = dp_telemetry_add_dict(d, swd_tel_stats_key.decode, held);

	if (!c)
		return -errno;
	for (int r = 1; r < PROTO_R_COUNT; r++)
		rte_tel_data_add_dict_u64(c, proto_reason_name((enum proto_reason)r),
					  decode[r]);
	return 0;
}

/* Fault counters summed per port role. */
struct swd_fault_sums {
	uint64_t sum[SWD_ROLES][sizeof(struct dp_fault_stats) / sizeof(uint64_t)];
	bool used[SWD_ROLES];
};

/* Add port's fault counters to the sums at ctx. */
static void swd_tel_fault_sum(struct dp_port *port, enum swd_role role, void *ctx)
{
	const struct dp_fault_stats *fs = dp_fault_port_stats(port);
	struct swd_fault_sums *f = ctx;

	for (size_t j = 0; fs && j < RTE_DIM(f->sum[role]); j++)
		f->sum[role][j] += ((const uint64_t *)fs)[j];
	f->used[role] |= fs != NULL;
}

/*
 * With --fault, what fault injection did, summed over the nodes' ports of
 * each role ("port", or "bulk" and "quick"; "control"), as a nested
 * dictionary "fault" of dictionaries (per port: the exit summary).
 */
static int swd_tel_faults(struct rte_tel_data *d, const struct swd_ports *p,
			  struct dp_telemetry_held *held)
{
	struct swd_fault_sums f = { .used = { false } };
	struct rte_tel_data *c, *rd;

	if (!p->faulty)
		return 0;
	for (uint16_t i = 0; i < p->n; i++)
		swd_node_ports(&p->node[i], swd_tel_fault_sum, &f);
	c = dp_telemetry_add_dict(d, swd_tel_stats_key.fault, held);
	for (int r = 0; r < SWD_ROLES && c; r++) {
		if (!f.used[r])
			continue;
		rd = dp_telemetry_add_dict(c, swd_role_names[r], held);
		if (!rd)
			return -errno;
		for (size_t j = 0; j < RTE_DIM(f.sum[r]); j++)
			rte_tel_data_add_dict_u64(rd, dp_fault_counter_names[j], f.sum[r][j]);
	}
	return c ? 0 : -errno;
}

/* /segnet/switch/stats: every switch counter and decode drops by reason. */
static int swd_tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dp_telemetry_held held = { .n = 0 };
	const struct sw_fabric *sw;
	struct dp_counter_set set;
	int rc = 0;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&swd_tel.lock);
	sw = swd_tel.sw;
	if (sw) {
		set = DP_COUNTER_SET("switch", sw_counter_names, sw_fabric_stats(sw));
		rc = dp_telemetry_add_set(d, &set);
		rte_tel_data_add_dict_u64(d, swd_tel_stats_key.nodes_up, sw_fabric_nodes_up(sw));
		rte_tel_data_add_dict_u64(d, swd_tel_stats_key.slot_ns, sw_fabric_slot_ns(sw));
		rte_tel_data_add_dict_u64(d, swd_tel_stats_key.memif_removed, dp_memif_removed());
		if (!rc)
			rc = swd_tel_decode(d, sw_fabric_decode_drops(sw), &held);
		if (!rc && swd_tel.ports)
			rc = swd_tel_faults(d, swd_tel.ports, &held);
	}
	pthread_mutex_unlock(&swd_tel.lock);
	if (rc)
		dp_telemetry_held_free(&held);
	return rc ? -1 : 0;
}

/* Add a port's counters to the dictionary at ctx as "<role>_<counter>". */
static void swd_tel_port(struct dp_port *port, enum swd_role role, void *ctx)
{
	struct rte_tel_data *d = ctx;
	const struct dp_port *wire = dp_fault_port_inner(port);
	const uint64_t *v = (const uint64_t *)&wire->stats;
	const struct dp_ethdev_port_stats *es = dp_ethdev_port_stats(wire);
	char key[RTE_TEL_MAX_STRING_LEN];

	for (size_t i = 0; i < sizeof(wire->stats) / sizeof(uint64_t); i++) {
		snprintf(key, sizeof(key), "%s_%s", swd_role_names[role], dp_port_counter_names[i]);
		rte_tel_data_add_dict_u64(d, key, v[i]);
	}
	if (es) {
		snprintf(key, sizeof(key), "%s_rx_multiseg", swd_role_names[role]);
		rte_tel_data_add_dict_u64(d, key, es->rx_multiseg);
	}
}

/* Add node i as a nested dictionary "node<i>". */
static int swd_tel_node(struct rte_tel_data *d, const struct sw_fabric *sw,
			const struct swd_ports *p, uint16_t i, struct dp_telemetry_held *held)
{
	const struct swd_node *sn = &p->node[i];
	struct sw_node_info info;
	struct rte_tel_data *c;
	char key[32];

	snprintf(key, sizeof(key), "%s%u", swd_tel_nodes_key.node, i);
	c = dp_telemetry_add_dict(d, key, held);
	if (!c)
		return -errno;
	sw_fabric_node_info(sw, i, &info);
	rte_tel_data_add_dict_u64(c, swd_tel_node_key.joined, info.joined);
	rte_tel_data_add_dict_u64(c, swd_tel_node_key.up, info.up);
	rte_tel_data_add_dict_u64(c, swd_tel_node_key.last_cfg_slot, info.last_cfg_slot);
	rte_tel_data_add_dict_u64(c, swd_tel_node_key.grants, info.grants);
	rte_tel_data_add_dict_u64(c, swd_tel_node_key.requests, info.requests);
	swd_node_ports(sn, swd_tel_port, c);
	return 0;
}

/* Parse the optional node id of /segnet/switch/nodes,ID; -1 when absent. */
static int swd_tel_node_param(const char *params, uint16_t n)
{
	char *end;
	unsigned long v;

	if (!params || !*params)
		return -1;
	v = strtoul(params, &end, 10);
	if (*end || end == params || v >= n)
		return -2;
	return (int)v;
}

/* /segnet/switch/nodes[,ID]: the first SWD_TEL_NODES nodes, or node ID. */
static int swd_tel_nodes(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dp_telemetry_held held = { .n = 0 };
	const struct sw_fabric *sw;
	const struct swd_ports *p;
	int rc = 0, one;

	(void)cmd;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&swd_tel.lock);
	sw = swd_tel.sw;
	p = swd_tel.ports;
	if (sw && p) {
		one = swd_tel_node_param(params, p->n);
		rte_tel_data_add_dict_u64(d, swd_tel_nodes_key.nodes, p->n);
		rte_tel_data_add_dict_u64(d, swd_tel_nodes_key.up, sw_fabric_nodes_up(sw));
		if (one == -2)
			rc = -EINVAL;
		else if (one >= 0)
			rc = swd_tel_node(d, sw, p, (uint16_t)one, &held);
		for (uint16_t i = 0; one == -1 && !rc && i < p->n && i < SWD_TEL_NODES; i++)
			rc = swd_tel_node(d, sw, p, i, &held);
		if (one == -1 && p->n > SWD_TEL_NODES)
			rte_tel_data_add_dict_string(d, swd_tel_nodes_key.more,
						     "ask /segnet/switch/nodes,ID for nodes past 15");
	}
	pthread_mutex_unlock(&swd_tel.lock);
	if (rc)
		dp_telemetry_held_free(&held);
	return rc ? -1 : 0;
}

/* Add the match histogram up to its last non-empty bin. */
static int swd_tel_hist(struct rte_tel_data *d, const uint64_t *hist, uint16_t n,
			struct dp_telemetry_held *held)
{
	struct rte_tel_data *a = rte_tel_data_alloc();
	unsigned int last = 0;

	if (!a)
		return -ENOMEM;
	for (unsigned int k = 0; k <= n; k++)
		if (hist[k])
			last = k;
	if (last >= RTE_TEL_MAX_ARRAY_ENTRIES)
		last = RTE_TEL_MAX_ARRAY_ENTRIES - 1;
	rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
	for (unsigned int k = 0; k <= last; k++)
		rte_tel_data_add_array_u64(a, hist[k]);
	return dp_telemetry_add_container(d, swd_tel_arbiter_key.match_hist, a, held);
}

/* /segnet/switch/arbiter: what the arbiter did and how long it took. */
static int swd_tel_arbiter(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dp_telemetry_held held = { .n = 0 };
	const struct sw_fabric *sw;
	const struct sw_stats *st;
	uint64_t hz = rte_get_tsc_hz();
	char text[32];
	int rc = 0;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&swd_tel.lock);
	sw = swd_tel.sw;
	if (sw && swd_tel.ports) {
		uint64_t slots, grants, cycles;

		st = sw_fabric_stats(sw);
		slots = st->slots;
		grants = st->grants;
		cycles = st->arb_cycles;
		rte_tel_data_add_dict_string(d, swd_tel_arbiter_key.name, sw_fabric_arbiter(sw));
		rte_tel_data_add_dict_u64(d, swd_tel_arbiter_key.slots, slots);
		rte_tel_data_add_dict_u64(d, swd_tel_arbiter_key.grants, grants);
		snprintf(text, sizeof(text), "%.3f", slots ? (double)grants / (double)slots : 0.0);
		rte_tel_data_add_dict_string(d, swd_tel_arbiter_key.mean_grants_per_slot, text);
		rte_tel_data_add_dict_u64(d, swd_tel_arbiter_key.arb_cycles, cycles);
		snprintf(text, sizeof(text), "%.1f", slots && hz ?
			 (double)cycles * 1e9 / (double)hz / (double)slots : 0.0);
		rte_tel_data_add_dict_string(d, swd_tel_arbiter_key.mean_arb_ns, text);
		rc = swd_tel_hist(d, sw_fabric_match_hist(sw), swd_tel.ports->n, &held);
	}
	pthread_mutex_unlock(&swd_tel.lock);
	if (rc)
		dp_telemetry_held_free(&held);
	return rc ? -1 : 0;
}

int swd_telemetry_register(void)
{
	int rc;

	rc = dp_telemetry_register(swd_tel_cmd.stats, swd_tel_stats,
				   "Switch counters and decode drops by reason. Takes no parameters.");
	if (!rc)
		rc = dp_telemetry_register(swd_tel_cmd.nodes, swd_tel_nodes,
					   "Per node: joined, up, last CFG slot, grants, requests, port counters. Parameter: a node id (default: the first 16 nodes).");
	if (!rc)
		rc = dp_telemetry_register(swd_tel_cmd.arbiter, swd_tel_arbiter,
					   "Arbiter name, slots, grants, mean grants per slot, match histogram, mean arbitration time (ns). Takes no parameters.");
	return rc;
}

void swd_telemetry_publish(const struct sw_fabric *sw, const struct swd_ports *p)
{
	pthread_mutex_lock(&swd_tel.lock);
	swd_tel.sw = sw;
	swd_tel.ports = p;
	pthread_mutex_unlock(&swd_tel.lock);
}

void swd_telemetry_unpublish(void)
{
	swd_telemetry_publish(NULL, NULL);
}
