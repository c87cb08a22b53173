/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd's telemetry endpoints, read with dpdk-telemetry.py -f PREFIX or
 * segnet-stat --prefix PREFIX:
 *
 *   /segnet/nic/stats[,NAME]      per node: id, cluster size, open
 *                                 endpoints, NIC counters, bad_filter drops
 *                                 by reason, host-interface counters
 *                                 (host_*), stage counters per virtual
 *                                 network (vnetID_STAGE_COUNTER), port
 *                                 counters (bulk_* / quick_* / port_*),
 *                                 link counters (link_*, port_restarts,
 *                                 restart_failed, server_silent; quick_*
 *                                 for a quick device of its own)
 *   /segnet/nic/endpoints[,NAME]  per open endpoint: vnet, uid, pid,
 *                                 buffers and its counters
 *
 * Without NAME every node is a nested dictionary under its name ('-'
 * becomes '_'); with NAME the node's dictionary is the reply. A reply
 * holds what fits DPDK's limits (256 entries a dictionary, 16 KiB); the
 * rest is named, not dropped: "more" (nodes, endpoints) and
 * "counters_left_out" (a node with many virtual networks). The
 * callbacks run on DPDK's telemetry thread while the polling thread writes
 * the counters, without locks (a value may be one update old). The lock
 * guards the lifetime of the nodes: the poller never takes it; main takes
 * it once, to unpublish before freeing.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dataplane/dp_telemetry.h"
#include "nicd/nicd.h"
#include "nicd/nicd_tel_names.h"

/* What the endpoints may read, and the lock that keeps it alive meanwhile. */
static struct {
	pthread_mutex_t lock;		/* held while a callback reads */
	const struct nicd_nodes *ns;	/* the nodes, or NULL */
} nicd_tel = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The commands and the keys added by name (nicd_tel_names.h). */
static const struct nicd_tel_cmds nicd_tel_cmd = { NICD_TEL_CMDS(DP_TEL_CMD_INIT) };
static const struct nicd_tel_stats_keys nicd_tel_stats_key = {
	NICD_TEL_STATS_KEYS(DP_TEL_KEY_INIT)
};
const struct nicd_tel_endpoints_keys nicd_tel_endpoints_key = {
	NICD_TEL_ENDPOINTS_KEYS(DP_TEL_KEY_INIT)
};

/* Copy s into a telemetry name: characters it refuses become '_'. */
static void nicd_tel_name(char *out, size_t len, const char *s)
{
	snprintf(out, len, "%s", s);
	for (char *c = out; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			*c = '_';
}

/*
 * DPDK 22.11 keeps at most RTE_TEL_MAX_DICT_ENTRIES per dictionary and 16 KiB
 * per reply, and drops what does not fit without a word. A reply is built
 * through this, which counts what it adds (a NULL dict only counts: a dry
 * run for the size), so that what does not fit is said, not lost.
 */
struct nicd_tel_out {
	struct rte_tel_data *d;		/* the dictionary, or NULL to count only */
	size_t bytes;			/* JSON bytes added so far (an upper bound) */
	unsigned int entries;		/* entries added */
	unsigned int left_out;		/* entries that did not fit */
};

enum {
	/* Entries of one dictionary, one kept for the left-out note. */
	NICD_TEL_ENTRIES = RTE_TEL_MAX_DICT_ENTRIES - 1,
	/* Bytes of a reply we fill: DPDK's 16 KiB less its framing and our notes. */
	NICD_TEL_BYTES = 16384 - 512,
};

/* Add key = v to o, or count it as left out when the dictionary is full. */
static void nicd_tel_u64(struct nicd_tel_out *o, const char *key, uint64_t v)
{
	if (o->entries >= NICD_TEL_ENTRIES) {
		o->left_out++;
		return;
	}
	o->bytes += dp_telemetry_u64_bytes(key, v);
	o->entries++;
	if (o->d)
		rte_tel_data_add_dict_u64(o->d, key, v);
}

/* Add n counters named prefix+names[i]. */
static void nicd_tel_counters(struct nicd_tel_out *o, const char *prefix,
			      const char *const *names, const uint64_t *v, unsigned int n)
{
	char key[RTE_TEL_MAX_STRING_LEN], raw[RTE_TEL_MAX_STRING_LEN];

	for (unsigned int i = 0; i < n && names[i]; i++) {
		snprintf(raw, sizeof(raw), "%s%s", prefix, names[i]);
		nicd_tel_name(key, sizeof(key), raw);
		nicd_tel_u64(o, key, v[i]);
	}
}

/* Stage counters of every virtual network, "vnetID_STAGE_COUNTER". */
static void nicd_tel_stages(struct nicd_tel_out *o, const struct nicd_nodes *ns,
			    struct nic *nic)
{
	char prefix[64];

	for (unsigned int v = 0; v < ns->n_vnets; v++) {
		uint16_t vnet = ns->vnets[v];
		struct pipeline *pl = nic_pipeline(nic, vnet);

		if (!pl)
			continue;
		for (unsigned int s = 0; s < pl->n_stages; s++) {
			const struct stage *st = &pl->stages[s];

			snprintf(prefix, sizeof(prefix), "%s%u_%s_", nicd_tel_stats_key.vnet, vnet,
				 st->ops->name);
			nicd_tel_counters(o, prefix, st->ops->counter_names, st->cnt,
					  stage_n_counters(st));
		}
	}
}

/*
 * Port counters of a node, "bulk_*" and "quick_*" (or "port_*"): the wire's,
 * and with --fault the faults' ("bulk_fault_*").
 */
static void nicd_tel_ports(struct nicd_tel_out *o, const struct nicd_node *n)
{
	const struct dp_port *ports[2] = { n->bulk, n->quick };
	const char *roles[2] = { n->bulk == n->quick ? nicd_tel_stats_key.port_ :
				 nicd_tel_stats_key.bulk_, nicd_tel_stats_key.quick_ };
	char prefix[32];

	for (int i = 0; i < (n->bulk == n->quick ? 1 : 2); i++) {
		const struct dp_port *wire = dp_fault_port_inner(ports[i]);
		const struct dp_fault_stats *fs = dp_fault_port_stats(ports[i]);

		nicd_tel_counters(o, roles[i], dp_port_counter_names,
				  (const uint64_t *)&wire->stats,
				  sizeof(wire->stats) / sizeof(uint64_t));
		if (fs) {
			snprintf(prefix, sizeof(prefix), "%s%s", roles[i], nicd_tel_stats_key.fault_);
			nicd_tel_counters(o, prefix, dp_fault_counter_names,
					  (const uint64_t *)fs, sizeof(*fs) / sizeof(uint64_t));
		}
	}
}

/*
 * Link counters of a node's device (dp_ethdev_watch): "link_down",
 * "port_restarts" ...; those of a quick device of its own "quick_link_down" ...
 */
/* The link counters of device d, each key after prefix. */
static void nicd_tel_link(struct nicd_tel_out *o, const char *prefix,
			  const struct nicd_dev *d)
{
	struct dp_counter_set set = DP_COUNTER_SET(NULL, dp_ethdev_link_counter_names,
						   &d->eth.watch.stats);

	nicd_tel_counters(o, prefix, set.names, set.values, set.n);
}

static void nicd_tel_links(struct nicd_tel_out *o, const struct nicd_nodes *ns,
			   const struct nicd_node *n)
{
	nicd_tel_link(o, "", &ns->dev[n->bulk_dev]);
	if (n->quick_dev != n->bulk_dev)
		nicd_tel_link(o, nicd_tel_stats_key.quick_, &ns->dev[n->quick_dev]);
}

/*
 * Everything about one node into o; the stage counters come last, so with
 * many virtual networks those are what a full dictionary leaves out, and
 * counters_left_out says how many.
 */
static void nicd_tel_node(struct nicd_tel_out *o, const struct nicd_nodes *ns,
			  const struct nicd_node *n)
{
	const uint64_t *decode = nic_decode_drops(n->nic);
	char key[RTE_TEL_MAX_STRING_LEN];

	nicd_tel_u64(o, nicd_tel_stats_key.node_id, nic_node_id(n->nic));
	nicd_tel_u64(o, nicd_tel_stats_key.up, nic_is_up(n->nic));
	nicd_tel_u64(o, nicd_tel_stats_key.cluster_size, nic_cluster_size(n->nic));
	nicd_tel_u64(o, nicd_tel_stats_key.endpoints_open, host_open_count(n->host));
	nicd_tel_u64(o, nicd_tel_stats_key.pending, nic_pending(n->nic));
	nicd_tel_counters(o, "", nic_counter_names, (const uint64_t *)nic_stats(n->nic),
			  sizeof(struct nic_stats) / sizeof(uint64_t));
	for (int r = 1; r < PROTO_R_COUNT; r++) {
		snprintf(key, sizeof(key), "%s%s", nicd_tel_stats_key.bad_filter_,
			 proto_reason_name((enum proto_reason)r));
		nicd_tel_u64(o, key, decode[r]);
	}
	nicd_tel_counters(o, nicd_tel_stats_key.host_, host_counter_names,
			  (const uint64_t *)host_stats(n->host),
			  sizeof(struct host_stats) / sizeof(uint64_t));
	nicd_tel_ports(o, n);
	nicd_tel_links(o, ns, n);
	nicd_tel_stages(o, ns, n->nic);
	if (o->left_out) {
		o->bytes += 40;
		if (o->d)
			rte_tel_data_add_dict_u64(o->d, nicd_tel_stats_key.counters_left_out,
						  o->left_out);
	}
}

/* The node called name, or NULL. */
static const struct nicd_node *nicd_tel_find(const struct nicd_nodes *ns,
					     const char *name)
{
	for (unsigned int i = 0; i < ns->n; i++)
		if (!strcmp(ns->node[i].name, name))
			return &ns->node[i];
	return NULL;
}

/* Every node under its name, as many as fit in one reply; "more" names the rest. */
static void nicd_tel_all_nodes(struct rte_tel_data *d, const struct nicd_nodes *ns)
{
	char key[RTE_TEL_MAX_STRING_LEN], note[RTE_TEL_MAX_STRING_LEN];
	size_t bytes = 0;
	unsigned int i;

	for (i = 0; i < ns->n && i < NICD_TEL_ENTRIES; i++) {
		struct nicd_tel_out size = { NULL, 0, 0, 0 }, o = { NULL, 0, 0, 0 };

		nicd_tel_node(&size, ns, &ns->node[i]);
		nicd_tel_name(key, sizeof(key), ns->node[i].name);
		if (bytes + size.bytes + strlen(key) + 8 > NICD_TEL_BYTES)
			break;
		o.d = rte_tel_data_alloc();
		if (!o.d)
			break;
		rte_tel_data_start_dict(o.d);
		nicd_tel_node(&o, ns, &ns->node[i]);
		if (rte_tel_data_add_dict_container(d, key, o.d, 0)) {
			rte_tel_data_free(o.d);
			break;
		}
		bytes += size.bytes + strlen(key) + 8;
	}
	if (i < ns->n) {
		snprintf(note, sizeof(note), "%u of %u nodes fit one reply: ask "
			 "/segnet/nic/stats,NAME for the others", i, ns->n);
		rte_tel_data_add_dict_string(d, nicd_tel_stats_key.more, note);
	}
}

/* /segnet/nic/stats[,NAME]. */
static int nicd_tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct nicd_nodes *ns;
	int rc = 0;

	(void)cmd;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&nicd_tel.lock);
	ns = nicd_tel.ns;
	if (ns && params && *params) {
		const struct nicd_node *n = nicd_tel_find(ns, params);
		struct nicd_tel_out o = { d, 0, 0, 0 };

		if (n)
			nicd_tel_node(&o, ns, n);
		else
			rc = -1;
	} else if (ns) {
		nicd_tel_all_nodes(d, ns);
	}
	pthread_mutex_unlock(&nicd_tel.lock);
	return rc;
}

/* /segnet/nic/endpoints[,NAME]. */
static int nicd_tel_endpoints(const char *cmd, const char *params,
			      struct rte_tel_data *d)
{
	const struct nicd_nodes *ns;
	char prefix[RTE_TEL_MAX_STRING_LEN], note[RTE_TEL_MAX_STRING_LEN];
	size_t budget = NICD_TEL_BYTES;
	unsigned int left_out = 0;
	int rc = 0;

	(void)cmd;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&nicd_tel.lock);
	ns = nicd_tel.ns;
	for (unsigned int i = 0; ns && i < ns->n; i++) {
		const struct nicd_node *n = &ns->node[i];

		if (params && *params && strcmp(params, n->name))
			continue;
		if (params && *params) {
			prefix[0] = '\0';
		} else {
			nicd_tel_name(prefix, sizeof(prefix) - 1, n->name);
			strcat(prefix, "_");
		}
		host_telemetry_endpoints(n->host, prefix, d, &budget, &left_out);
	}
	if (left_out) {
		snprintf(note, sizeof(note), "%u endpoints do not fit one reply%s", left_out,
			 params && *params ? "" : ": ask /segnet/nic/endpoints,NAME per node");
		rte_tel_data_add_dict_string(d, nicd_tel_endpoints_key.more, note);
	}
	if (ns && params && *params && !nicd_tel_find(ns, params))
		rc = -1;
	pthread_mutex_unlock(&nicd_tel.lock);
	return rc;
}

int nicd_telemetry_register(void)
{
	int rc = dp_telemetry_register(nicd_tel_cmd.stats, nicd_tel_stats,
				       "NIC, host-interface, stage and port counters per node. Parameter: node NAME (optional)");

	if (!rc)
		rc = dp_telemetry_register(nicd_tel_cmd.endpoints, nicd_tel_endpoints,
					   "Open endpoints per node. Parameter: node NAME (optional)");
	return rc;
}

void nicd_telemetry_publish(const struct nicd_nodes *ns)
{
	pthread_mutex_lock(&nicd_tel.lock);
	nicd_tel.ns = ns;
	pthread_mutex_unlock(&nicd_tel.lock);
}

void nicd_telemetry_unpublish(void)
{
	pthread_mutex_lock(&nicd_tel.lock);
	nicd_tel.ns = NULL;
	pthread_mutex_unlock(&nicd_tel.lock);
}
