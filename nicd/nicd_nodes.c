/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd's nodes: every node's devices found by name, pools on the devices'
 * NUMA nodes, the devices set up and started, dp_ports on their queues,
 * and per node a NIC with its virtual networks and a host interface with
 * its control socket.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "dataplane/dp_log.h"
#include "nicd/nicd.h"

enum {
	/* Descriptors per queue (dp_ethdev's default). */
	NICD_DESC = 1024,
	/* Frames per pool beyond what the queues can hold: bursts in flight. */
	NICD_POOL_SLACK = 1024,
	/* Received frames one NIC may hold at once (reordering, in delivery). */
	NICD_HELD_PER_NODE = 2048,
};

/* The device called name, appended if new; its index. */
static int nicd_dev_add(struct nicd_nodes *ns, const char *name)
{
	struct nicd_dev *d;

	for (unsigned int k = 0; k < ns->n_dev; k++)
		if (!strcmp(ns->dev[k].name, name))
			return (int)k;
	d = &ns->dev[ns->n_dev];
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->port_id = RTE_MAX_ETHPORTS;
	d->eth.port_id = RTE_MAX_ETHPORTS;	/* nothing to close until set up */
	return (int)ns->n_dev++;
}

/* List every node's devices in node order. */
static int nicd_list_devs(struct nicd_nodes *ns, const struct nicd_opts *o)
{
	ns->dev = calloc(2u * o->n_nodes, sizeof(*ns->dev));
	ns->node = calloc(o->n_nodes, sizeof(*ns->node));
	if (!ns->dev || !ns->node)
		return -ENOMEM;
	ns->n = o->n_nodes;
	for (unsigned int i = 0; i < o->n_nodes; i++) {
		struct nicd_node *n = &ns->node[i];

		n->name = o->node[i].name;
		n->bulk_dev = nicd_dev_add(ns, o->node[i].bulk);
		n->quick_dev = nicd_dev_add(ns, o->node[i].quick);
	}
	return 0;
}

/* True when device k carries both channels of a node. */
static bool nicd_dev_shared(const struct nicd_nodes *ns, unsigned int k)
{
	for (unsigned int i = 0; i < ns->n; i++)
		if (ns->node[i].bulk_dev == (int)k && ns->node[i].quick_dev == (int)k)
			return true;
	return false;
}

/*
 * Resolve every name to a DPDK port; refuse two names for one port; settle
 * the receive queues: a one-device node's second queue takes the switch's
 * control frames (--control-queue), when the device has one. A virtio-user
 * client the EAL could not create (no vhost-user server yet) has no port
 * until the link watch creates it: it gets the queues asked for, as far as
 * its devargs (queues=) give them.
 */
static int nicd_find_devs(struct nicd_nodes *ns, bool control_queue, char *err,
			  size_t errlen)
{
	for (unsigned int k = 0; k < ns->n_dev; k++) {
		struct nicd_dev *d = &ns->dev[k];
		struct rte_eth_dev_info info;
		int rc = dp_ethdev_find(d->name, &d->port_id, err, errlen);

		d->rx_queues = control_queue && nicd_dev_shared(ns, k) ? 2 : 1;
		if (rc == -ENOTCONN) {
			/* As below, from what its devargs ask for: re-created, it could not have more. */
			uint16_t q = dp_ethdev_vdev_queues(d->name);

			if (d->rx_queues > q) {
				DP_LOG(nicd_logtype, NOTICE,
				       "port %s: the device (not created yet) will have %u receive queue(s) (queues=): control frames must come on the data queue (switchd --control-queue off)",
				       d->name, q);
				d->rx_queues = q;
			}
			d->port_id = RTE_MAX_ETHPORTS;
			continue;
		}
		if (rc)
			return rc;
		for (unsigned int j = 0; j < k; j++)
			if (ns->dev[j].port_id == d->port_id) {
				snprintf(err, errlen, "%s and %s are the same device (DPDK port %u): give each channel and node its own",
					 ns->dev[j].name, d->name, d->port_id);
				return -EINVAL;
			}
		rc = rte_eth_dev_info_get(d->port_id, &info);
		if (rc) {
			snprintf(err, errlen, "port %s: cannot read device info: %s", d->name,
				 rte_strerror(-rc));
			return rc;
		}
		if (d->rx_queues > info.max_rx_queues) {
			DP_LOG(nicd_logtype, NOTICE,
			       "port %s: the device (%s) has %u receive queue(s): control frames must come on the data queue (switchd --control-queue off)",
			       d->name, info.driver_name, info.max_rx_queues);
			d->rx_queues = info.max_rx_queues;
		}
	}
	return 0;
}

/* Index of socket in the pool table (SOCKET_ID_ANY is 0). */
static unsigned int nicd_pool_index(int socket)
{
	return socket < 0 || socket >= RTE_MAX_NUMA_NODES ? 0 : (unsigned int)socket + 1;
}

/* Socket of a device, SOCKET_ID_ANY when it has none. */
static int nicd_dev_socket(const struct nicd_dev *d)
{
	int s = rte_eth_dev_socket_id(d->port_id);

	return s < 0 ? SOCKET_ID_ANY : s;
}

/*
 * One pool per NUMA node used, sized for its queues and the NICs on it;
 * with a --fault delay, also for the delay queues of the nodes' ports (two
 * per node at most).
 */
static int nicd_make_pools(struct nicd_nodes *ns, const struct nicd_opts *o, char *err,
			   size_t errlen)
{
	unsigned int frames[NICD_MAX_POOLS] = { 0 };
	int sock[NICD_MAX_POOLS];

	for (unsigned int k = 0; k < ns->n_dev; k++) {
		int s = nicd_dev_socket(&ns->dev[k]);
		unsigned int i = nicd_pool_index(s);

		sock[i] = s;
		frames[i] += 2 * NICD_DESC;
	}
	for (unsigned int i = 0; i < ns->n; i++)
		frames[nicd_pool_index(nicd_dev_socket(&ns->dev[ns->node[i].bulk_dev]))] +=
			NICD_HELD_PER_NODE + 2 * dp_fault_delay_frames(&o->common.fault);
	for (unsigned int i = 0; i < NICD_MAX_POOLS; i++) {
		if (!frames[i])
			continue;
		ns->pool[i] = dp_pool_for_socket("nicd", sock[i], frames[i] + NICD_POOL_SLACK,
						 err, errlen);
		if (!ns->pool[i]) {
			if (dp_fault_delay_frames(&o->common.fault))
				dp_fault_pool_hint(err, errlen, dp_fault_delay_frames(&o->common.fault));
			return -errno;
		}
	}
	for (unsigned int k = 0; k < ns->n_dev; k++)
		ns->dev[k].mp = ns->pool[nicd_pool_index(nicd_dev_socket(&ns->dev[k]))];
	return 0;
}

/*
 * Set up and start every device. A memif client whose switch is not there
 * yet waits for it (late_peer): the link watch starts it, as after a
 * switch restart; a virtio-user client the EAL could not create, the
 * watch creates.
 */
static int nicd_start_devs(struct nicd_nodes *ns, const struct nicd_opts *o,
			   char *err, size_t errlen)
{
	for (unsigned int k = 0; k < ns->n_dev; k++) {
		struct nicd_dev *d = &ns->dev[k];
		struct dp_ethdev_conf conf = {
			.rx_queues = d->rx_queues, .tx_queues = 1,
			.link_wait_ms = o->common.link_wait_ms, .promiscuous = true,
			.late_peer = true,
		};
		int rc = dp_ethdev_setup(d->name, &conf, d->mp, &d->eth, err, errlen);

		if (rc)
			return rc;
		DP_LOG(nicd_logtype, INFO, "port %s: DPDK port %d, NUMA node %d, link %s%s",
		       d->name, d->eth.unplugged ? -1 : d->eth.port_id, d->eth.socket,
		       d->eth.link_up ? "up" : "down",
		       d->eth.link_up ? "" : d->eth.stopped ?
		       " (waiting for the switch: the NIC joins once its link comes up)" :
		       " (the NIC joins once it comes up)");
	}
	return 0;
}

/* A number that differs each time nicd starts: the switch tells a restarted NIC from a repeated HELLO by it. */
static uint32_t nicd_incarnation(void)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
	return v;
}

/* The NIC of node n, with every virtual network. */
static int nicd_make_nic(struct nicd_node *n, const struct nicd_opts *o,
			 struct rte_mempool *mp, char *err, size_t errlen)
{
	struct nic_config nc = {
		.max_nodes = o->max_nodes, .max_endpoints = o->endpoints,
		.bulk_bufs = o->send_buffers, .bulk_per_target = o->per_target_cap,
		.quick_bufs = o->quick_buffers, .quick_reserve = o->quick_reserve,
		.descriptors = o->descriptors, .quick_gbps = o->quick_gbps,
		.cfg_keepalive = o->cfg_keepalive,
		.hello_ns = (uint64_t)o->hello_us * 1000, .mp = mp,
		.check_crc = o->common.check_crc, .incarnation = nicd_incarnation(),
	};
	struct nic_ops ops = host_nic_ops(n->host);
	char verr[256];
	int rc;

	n->nic = nic_create(&nc, &ops, n->bulk, n->quick, verr, sizeof(verr));
	if (!n->nic) {
		snprintf(err, errlen, "node %s: %s", n->name, verr);
		return -errno;
	}
	host_set_nic(n->host, n->nic);
	for (unsigned int v = 0; v < o->n_vnets; v++) {
		rc = nic_add_vnet(n->nic, o->vnet[v].hv.vnet, o->vnet[v].spec, verr, sizeof(verr));
		if (rc) {
			snprintf(err, errlen, "--vnet %u (%s): %s", o->vnet[v].hv.vnet,
				 o->vnet[v].conf, verr);
			return rc;
		}
	}
	return 0;
}

/*
 * Put node n's ports behind fault injection (--fault). Each port draws from
 * its own stream of the seed, named by the node's name and the channel, so
 * nodes in separate nicd processes differ too.
 */
static int nicd_wrap_faults(struct nicd_node *n, const struct nicd_opts *o,
			    struct rte_mempool *mp)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a of the name */
	bool shared = n->quick == n->bulk;
	struct dp_port *f;

	for (const char *c = n->name; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	f = dp_fault_port_create(n->bulk, &o->common.fault, o->common.fault_seed ^ h, mp);
	if (!f)
		return -1;
	dp_fault_port_set_clock(f, dp_tsc_ns);
	n->bulk = f;
	if (shared) {
		n->quick = f;
		return 0;
	}
	f = dp_fault_port_create(n->quick, &o->common.fault, o->common.fault_seed ^ (h * 31 + 1), mp);
	if (!f)
		return -1;
	dp_fault_port_set_clock(f, dp_tsc_ns);
	n->quick = f;
	return 0;
}

/* Ports, host interface and NIC of node n. */
static int nicd_make_node(struct nicd_nodes *ns, struct nicd_node *n,
			  const struct nicd_opts *o, const struct host_config *hc,
			  char *err, size_t errlen)
{
	const struct nicd_dev *b = &ns->dev[n->bulk_dev];
	const struct nicd_dev *q = &ns->dev[n->quick_dev];
	struct host_config c = *hc;

	n->bulk = dp_ethdev_port_create(&b->eth, 0, 0);
	if (q != b)
		n->quick = dp_ethdev_port_create(&q->eth, 0, 0);
	else if (b->rx_queues > 1)
		n->quick = dp_ethdev_port_create(&b->eth, 1, 0);
	else
		n->quick = n->bulk;
	if (!n->bulk || !n->quick) {
		snprintf(err, errlen, "node %s: cannot make ports: %s", n->name, strerror(errno));
		return -errno;
	}
	if (dp_fault_active(&o->common.fault) && nicd_wrap_faults(n, o, b->mp)) {
		snprintf(err, errlen, "node %s: cannot add fault injection: %s", n->name,
			 strerror(errno));
		return -errno;
	}
	c.name = n->name;
	n->host = host_create(&c, err, errlen);
	if (!n->host)
		return -errno;
	return nicd_make_nic(n, o, b->mp, err, errlen);
}

/* Every node's ports, host and NIC. */
static int nicd_make_nodes(struct nicd_nodes *ns, const struct nicd_opts *o,
			   uint64_t generation, char *err, size_t errlen)
{
	struct host_vnet *hv = calloc(o->n_vnets, sizeof(*hv));
	struct host_config hc = {
		.socket_dir = o->socket_dir, .socket_mode = o->socket_mode,
		.endpoints = o->endpoints, .max_nodes = o->max_nodes,
		.vnets = hv, .n_vnets = o->n_vnets, .generation = generation,
	};
	int rc = 0;

	if (!hv) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int v = 0; v < o->n_vnets; v++) {
		hv[v] = o->vnet[v].hv;
		ns->vnets[v] = o->vnet[v].hv.vnet;
	}
	ns->n_vnets = o->n_vnets;
	for (unsigned int i = 0; i < ns->n && !rc; i++)
		rc = nicd_make_node(ns, &ns->node[i], o, &hc, err, errlen);
	explicit_bzero(hv, o->n_vnets * sizeof(*hv));
	free(hv);
	return rc;
}

int nicd_nodes_open(struct nicd_nodes *ns, const struct nicd_opts *o,
		    uint64_t generation, char *err, size_t errlen)
{
	int rc;

	memset(ns, 0, sizeof(*ns));
	rc = nicd_list_devs(ns, o);
	if (rc) {
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	rc = nicd_find_devs(ns, o->common.control_queue, err, errlen);
	if (!rc)
		rc = nicd_make_pools(ns, o, err, errlen);
	if (!rc)
		rc = nicd_start_devs(ns, o, err, errlen);
	if (!rc)
		rc = nicd_make_nodes(ns, o, generation, err, errlen);
	return rc;
}

/* What moves messages: any change means the poll did work. */
static uint64_t nicd_activity(const struct nicd_node *n)
{
	const struct nic_stats *s = nic_stats(n->nic);

	return s->tx_msgs + s->tx_frames + s->delivered + s->completed_ok +
	       s->completed_err + s->back_sent + s->qack_sent + s->rx_no_space;
}

bool nicd_nodes_poll(struct nicd_nodes *ns, uint64_t now, uint64_t *next)
{
	bool work = false;

	/* A link that went down (the switch restarted): restart its device if that brings it back. */
	for (unsigned int k = 0; k < ns->n_dev; k++)
		work |= dp_ethdev_watch(&ns->dev[k].eth, now);
	for (unsigned int i = 0; i < ns->n; i++) {
		struct nicd_node *n = &ns->node[i];
		uint64_t t, a;

		/* --fault: the ports delay from now, and what is due leaves. */
		dp_fault_port_poll(n->bulk, now);
		if (n->quick != n->bulk)
			dp_fault_port_poll(n->quick, now);
		work |= host_poll(n->host, now, next);
		t = nic_poll(n->nic, now);
		if (t < *next)
			*next = t;
		t = dp_fault_port_next_due(n->bulk);
		if (n->quick != n->bulk && dp_fault_port_next_due(n->quick) < t)
			t = dp_fault_port_next_due(n->quick);
		if (t < *next)
			*next = t;
		a = nicd_activity(n);
		work |= a != n->seen;
		n->seen = a;
	}
	return work;
}

unsigned int nicd_nodes_endpoints(const struct nicd_nodes *ns)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < ns->n; i++)
		n += host_open_count(ns->node[i].host);
	return n;
}

void nicd_nodes_shutdown(struct nicd_nodes *ns)
{
	for (unsigned int i = 0; ns->node && i < ns->n; i++)
		if (ns->node[i].host)
			host_shutdown(ns->node[i].host);
}

int nicd_nodes_capture(struct nicd_nodes *ns, struct port_capture *cap)
{
	for (unsigned int i = 0; i < ns->n; i++) {
		struct nicd_node *n = &ns->node[i];
		/* The wire: behind fault injection, what it let through. */
		int rc = port_capture_attach(cap, dp_fault_port_inner(n->bulk));

		if (!rc && n->quick != n->bulk)
			rc = port_capture_attach(cap, dp_fault_port_inner(n->quick));
		if (rc)
			return rc;
	}
	return 0;
}

void nicd_nodes_close(struct nicd_nodes *ns)
{
	/* At most RTE_MAX_ETHPORTS devices (dp_ethdev_devices_fit). */
	struct dp_ethdev *eth[RTE_MAX_ETHPORTS];
	unsigned int n_eth = 0;

	for (unsigned int i = 0; ns->node && i < ns->n; i++) {
		struct nicd_node *n = &ns->node[i];

		if (n->host)
			host_shutdown(n->host);
		nic_destroy(n->nic);
		host_destroy(n->host);
		if (n->quick != n->bulk)
			dp_port_destroy(n->quick);
		dp_port_destroy(n->bulk);
		n->nic = NULL;
		n->host = NULL;
		n->bulk = n->quick = NULL;
	}
	for (unsigned int k = 0; k < ns->n_dev && n_eth < RTE_MAX_ETHPORTS; k++)
		eth[n_eth++] = &ns->dev[k].eth;
	dp_ethdev_close_all(eth, n_eth);
}

unsigned int nicd_nodes_check_pools(const struct nicd_nodes *ns, FILE *f)
{
	return dp_pools_check(ns->pool, NICD_MAX_POOLS, f);
}

void nicd_nodes_free(struct nicd_nodes *ns)
{
	free(ns->dev);
	free(ns->node);
	memset(ns, 0, sizeof(*ns));
}

void nicd_nodes_numa_check(const struct nicd_nodes *ns, int core)
{
	for (unsigned int k = 0; k < ns->n_dev; k++)
		dp_numa_check_poller(ns->dev[k].name, ns->dev[k].eth.socket, core);
}
