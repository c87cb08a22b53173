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
 *                                 counters (bulk_* / quick_* / port_*)
 *   /segnet/nic/endpoints[,NAME]  per open endpoint: vnet, uid, pid,
 *                                 buffers and its counters
 *
 * Without NAME every node is a nested dictionary under its name ('-'
 * becomes '_'); with NAME the node's dictionary is the reply. The
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

/* What the endpoints may read, and the lock that keeps it alive meanwhile. */
static struct {
	pthread_mutex_t lock;		/* held while a callback reads */
	const struct nicd_nodes *ns;	/* the nodes, or NULL */
} nicd_tel = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Copy s into a telemetry name: characters it refuses become '_'. */
static void nicd_tel_name(char *out, size_t len, const char *s)
{
	snprintf(out, len, "%s", s);
	for (char *c = out; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			*c = '_';
}

/* Add n counters named prefix+names[i]; stops quietly when d is full. */
static void nicd_tel_counters(struct rte_tel_data *d, const char *prefix,
			      const char *const *names, const uint64_t *v, unsigned int n)
{
	char key[RTE_TEL_MAX_STRING_LEN], raw[RTE_TEL_MAX_STRING_LEN];

	for (unsigned int i = 0; i < n && names[i]; i++) {
		snprintf(raw, sizeof(raw), "%s%s", prefix, names[i]);
		nicd_tel_name(key, sizeof(key), raw);
		if (rte_tel_data_add_dict_u64(d, key, v[i]))
			return;
	}
}

/* Stage counters of every virtual network, "vnetID_STAGE_COUNTER". */
static void nicd_tel_stages(struct rte_tel_data *d, const struct nicd_nodes *ns,
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
			unsigned int n = 0;

			while (st->ops->counter_names && st->ops->counter_names[n])
				n++;
			snprintf(prefix, sizeof(prefix), "vnet%u_%s_", vnet, st->ops->name);
			nicd_tel_counters(d, prefix, st->ops->counter_names, st->cnt, n);
		}
	}
}

/* Port counters of a node, "bulk_*" and "quick_*" (or "port_*"). */
static void nicd_tel_ports(struct rte_tel_data *d, const struct nicd_node *n)
{
	const struct dp_port *ports[2] = { n->bulk, n->quick };
	const char *roles[2] = { n->bulk == n->quick ? "port_" : "bulk_", "quick_" };

	for (int i = 0; i < (n->bulk == n->quick ? 1 : 2); i++)
		nicd_tel_counters(d, roles[i], dp_port_counter_names,
				  (const uint64_t *)&ports[i]->stats,
				  sizeof(ports[i]->stats) / sizeof(uint64_t));
}

/* Fill d (a dict) with everything about one node. */
static void nicd_tel_node(struct rte_tel_data *d, const struct nicd_nodes *ns,
			  const struct nicd_node *n)
{
	const uint64_t *decode = nic_decode_drops(n->nic);
	char key[RTE_TEL_MAX_STRING_LEN];

	rte_tel_data_add_dict_u64(d, "node_id", nic_node_id(n->nic));
	rte_tel_data_add_dict_u64(d, "up", nic_is_up(n->nic));
	rte_tel_data_add_dict_u64(d, "cluster_size", nic_cluster_size(n->nic));
	rte_tel_data_add_dict_u64(d, "endpoints_open", host_open_count(n->host));
	rte_tel_data_add_dict_u64(d, "pending", nic_pending(n->nic));
	nicd_tel_counters(d, "", nic_counter_names, (const uint64_t *)nic_stats(n->nic),
			  sizeof(struct nic_stats) / sizeof(uint64_t));
	for (int r = 1; r < PROTO_R_COUNT; r++) {
		snprintf(key, sizeof(key), "bad_filter_%s",
			 proto_reason_name((enum proto_reason)r));
		rte_tel_data_add_dict_u64(d, key, decode[r]);
	}
	nicd_tel_counters(d, "host_", host_counter_names,
			  (const uint64_t *)host_stats(n->host),
			  sizeof(struct host_stats) / sizeof(uint64_t));
	nicd_tel_ports(d, n);
	nicd_tel_stages(d, ns, n->nic);
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

/* /segnet/nic/stats[,NAME]. */
static int nicd_tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct nicd_nodes *ns;
	char key[RTE_TEL_MAX_STRING_LEN];
	int rc = 0;

	(void)cmd;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&nicd_tel.lock);
	ns = nicd_tel.ns;
	if (ns && params && *params) {
		const struct nicd_node *n = nicd_tel_find(ns, params);

		if (n)
			nicd_tel_node(d, ns, n);
		else
			rc = -1;
	} else if (ns) {
		for (unsigned int i = 0; i < ns->n; i++) {
			struct rte_tel_data *c = rte_tel_data_alloc();

			if (!c)
				break;
			rte_tel_data_start_dict(c);
			nicd_tel_node(c, ns, &ns->node[i]);
			nicd_tel_name(key, sizeof(key), ns->node[i].name);
			if (rte_tel_data_add_dict_container(d, key, c, 0))
				rte_tel_data_free(c);
		}
	}
	pthread_mutex_unlock(&nicd_tel.lock);
	return rc;
}

/* /segnet/nic/endpoints[,NAME]. */
static int nicd_tel_endpoints(const char *cmd, const char *params,
			      struct rte_tel_data *d)
{
	const struct nicd_nodes *ns;
	char prefix[RTE_TEL_MAX_STRING_LEN];
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
		host_telemetry_endpoints(n->host, prefix, d);
	}
	if (ns && params && *params && !nicd_tel_find(ns, params))
		rc = -1;
	pthread_mutex_unlock(&nicd_tel.lock);
	return rc;
}

int nicd_telemetry_register(void)
{
	int rc = dp_telemetry_register("/segnet/nic/stats", nicd_tel_stats,
				       "NIC, host-interface, stage and port counters per node. Parameter: node NAME (optional)");

	if (!rc)
		rc = dp_telemetry_register("/segnet/nic/endpoints", nicd_tel_endpoints,
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
