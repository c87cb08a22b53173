/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * switchd's ports: every node's device(s) found by name, pools on the
 * devices' NUMA nodes, the devices set up and started, and dp_ports on
 * their queues. A node on one device gets a second transmit queue for the
 * control frames (GNT, BACK, QACK, DOWN notices) when the device has one,
 * so they do not queue behind forwarded data.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "dataplane/dp_log.h"
#include "switchd/swd.h"
#include "switchd/swd_tel_names.h"

DP_LOG_REGISTER(swd_logtype, SWITCHD_DAEMON);

enum {
	/* Descriptors per queue (dp_ethdev's default). */
	SWD_DESC = 1024,
	/* Frames per pool beyond what the queues can hold: bursts in flight. */
	SWD_POOL_SLACK = 1024,
	/* Frames the switch originates per node at most between two polls. */
	SWD_OWN_PER_NODE = 8,
};

/* Append a device by name; its index, or -ENOMEM. */
static int swd_dev_add(struct swd_ports *p, const char *name, uint16_t tx_queues)
{
	struct swd_dev *d = &p->dev[p->n_dev];

	memset(d, 0, sizeof(*d));
	d->name = name;
	d->tx_queues = tx_queues;
	d->eth.port_id = RTE_MAX_ETHPORTS;	/* nothing to close yet */
	return (int)p->n_dev++;
}

/* List every node's devices in node order. */
static int swd_list_devs(struct swd_ports *p, const struct swd_opts *o)
{
	p->dev = calloc(2u * o->nodes, sizeof(*p->dev));
	p->node = calloc(o->nodes, sizeof(*p->node));
	p->bulk = calloc(o->nodes, sizeof(*p->bulk));
	p->quick = calloc(o->nodes, sizeof(*p->quick));
	p->control = calloc(o->nodes, sizeof(*p->control));
	if (!p->dev || !p->node || !p->bulk || !p->quick || !p->control)
		return -ENOMEM;
	p->n = o->nodes;
	for (uint16_t i = 0; i < o->nodes; i++) {
		const struct swd_node_names *nn = &o->node[i];
		struct swd_node *sn = &p->node[i];

		if (nn->port) {
			sn->bulk_dev = swd_dev_add(p, nn->port, o->common.control_queue ? 2 : 1);
			sn->quick_dev = sn->bulk_dev;
		} else {
			sn->bulk_dev = swd_dev_add(p, nn->bulk, 1);
			sn->quick_dev = swd_dev_add(p, nn->quick, 1);
		}
	}
	return 0;
}

/*
 * Resolve every name to a DPDK port; refuse two names for one port; settle
 * the transmit queues a device really has.
 */
static int swd_find_devs(struct swd_ports *p, char *err, size_t errlen)
{
	for (unsigned int k = 0; k < p->n_dev; k++) {
		struct swd_dev *d = &p->dev[k];
		struct rte_eth_dev_info info;
		int rc = dp_ethdev_find(d->name, &d->port_id, err, errlen);

		if (rc)
			return rc;
		for (unsigned int j = 0; j < k; j++)
			if (p->dev[j].port_id == d->port_id) {
				snprintf(err, errlen, "%s and %s are the same device (DPDK port %u): every node and channel needs its own",
					 p->dev[j].name, d->name, d->port_id);
				return -EINVAL;
			}
		rc = rte_eth_dev_info_get(d->port_id, &info);
		if (rc) {
			snprintf(err, errlen, "port %s: cannot read device info: %s",
				 d->name, rte_strerror(-rc));
			return rc;
		}
		if (d->tx_queues > info.max_tx_queues) {
			DP_LOG(swd_logtype, NOTICE,
			       "port %s: the device (%s) has %u transmit queue(s): control frames share the data queue",
			       d->name, info.driver_name, info.max_tx_queues);
			d->tx_queues = info.max_tx_queues;
		}
	}
	return 0;
}

/* Index of socket in the pool table (SOCKET_ID_ANY is 0). */
static unsigned int swd_pool_index(int socket)
{
	return socket < 0 || socket >= RTE_MAX_NUMA_NODES ? 0 : (unsigned int)socket + 1;
}

/* Socket of a device, SOCKET_ID_ANY when it has none. */
static int swd_dev_socket(const struct swd_dev *d)
{
	int s = rte_eth_dev_socket_id(d->port_id);

	return s < 0 ? SOCKET_ID_ANY : s;
}

/*
 * One pool per NUMA node used, sized for every queue on that node. With a
 * --fault delay, frames wait in the delay queues of a node's two ports at
 * most (bulk and quick, or one for both and control): the devices' pools
 * take the forwarded ones, two queues per node on them; the polling core's
 * pool the switch's own (grants, DOWN notices), one queue per node.
 */
static int swd_make_pools(struct swd_ports *p, const struct swd_opts *o, int poll_socket,
			  char *err, size_t errlen)
{
	unsigned int delay = dp_fault_delay_frames(&o->common.fault);
	unsigned int frames[SWD_MAX_POOLS] = { 0 };
	int sock[SWD_MAX_POOLS];
	bool devs[SWD_MAX_POOLS] = { false };

	for (unsigned int k = 0; k < p->n_dev; k++) {
		int s = swd_dev_socket(&p->dev[k]);
		unsigned int i = swd_pool_index(s);

		sock[i] = s;
		frames[i] += SWD_DESC * (1u + p->dev[k].tx_queues);
		devs[i] = true;
	}
	sock[swd_pool_index(poll_socket)] = poll_socket;
	frames[swd_pool_index(poll_socket)] += (SWD_OWN_PER_NODE + delay) * p->n;
	for (unsigned int i = 0; i < SWD_MAX_POOLS; i++) {
		if (!frames[i])
			continue;
		if (devs[i])
			frames[i] += 2 * delay * p->n;
		p->pool[i] = dp_pool_for_socket("swd", sock[i], frames[i] + SWD_POOL_SLACK,
						err, errlen);
		if (!p->pool[i]) {
			if (delay)
				dp_fault_pool_hint(err, errlen, delay);
			return -errno;
		}
	}
	for (unsigned int k = 0; k < p->n_dev; k++)
		p->dev[k].mp = p->pool[swd_pool_index(swd_dev_socket(&p->dev[k]))];
	p->mp = p->pool[swd_pool_index(poll_socket)];
	return 0;
}

/* Set up and start every device. */
static int swd_start_devs(struct swd_ports *p, const struct swd_opts *o,
			  char *err, size_t errlen)
{
	for (unsigned int k = 0; k < p->n_dev; k++) {
		struct swd_dev *d = &p->dev[k];
		struct dp_ethdev_conf conf = {
			.rx_queues = 1, .tx_queues = d->tx_queues,
			.link_wait_ms = o->common.link_wait_ms, .promiscuous = true,
		};
		int rc = dp_ethdev_setup(d->name, &conf, d->mp, &d->eth, err, errlen);

		if (rc)
			return rc;
		DP_LOG(swd_logtype, INFO, "port %s: DPDK port %u, NUMA node %d, %u tx queue(s), link %s%s",
		       d->name, d->eth.port_id, d->eth.socket, d->tx_queues,
		       d->eth.link_up ? "up" : "down",
		       d->eth.link_up ? "" : " (waiting for the peer)");
	}
	return 0;
}

/*
 * Put *port behind fault injection, drawing from stream k of the seed;
 * 0 or -1 with errno.
 */
static int swd_wrap_fault(struct dp_port **port, const struct swd_opts *o, uint64_t k,
			  struct rte_mempool *mp)
{
	struct dp_port *f = dp_fault_port_create(*port, &o->common.fault,
						 o->common.fault_seed ^ (k * 0x9E3779B97F4A7C15ull), mp);

	if (!f)
		return -1;
	dp_fault_port_set_clock(f, dp_tsc_ns);
	*port = f;
	return 0;
}

/* With --fault, every port of node i behind fault injection. */
static int swd_wrap_faults(struct swd_ports *p, const struct swd_opts *o, uint16_t i)
{
	struct swd_node *sn = &p->node[i];
	bool shared = sn->quick == sn->bulk;

	if (!dp_fault_active(&o->common.fault))
		return 0;
	if (swd_wrap_fault(&sn->bulk, o, 3u * i + 1, p->mp))
		return -1;
	if (shared)
		sn->quick = sn->bulk;
	else if (swd_wrap_fault(&sn->quick, o, 3u * i + 2, p->mp))
		return -1;
	if (sn->control && swd_wrap_fault(&sn->control, o, 3u * i + 3, p->mp))
		return -1;
	return 0;
}

const char *const swd_role_names[SWD_ROLES] = { SWD_TEL_ROLES(DP_COUNTER_NAME) };
_Static_assert(sizeof((const char *[]){ SWD_TEL_ROLES(DP_COUNTER_NAME) }) ==
	       sizeof(swd_role_names), "SWD_TEL_ROLES and enum swd_role differ");

void swd_node_ports(const struct swd_node *sn,
		    void (*fn)(struct dp_port *port, enum swd_role role, void *ctx), void *ctx)
{
	if (sn->bulk == sn->quick) {
		fn(sn->bulk, SWD_ROLE_PORT, ctx);
	} else {
		fn(sn->bulk, SWD_ROLE_BULK, ctx);
		fn(sn->quick, SWD_ROLE_QUICK, ctx);
	}
	if (sn->control)
		fn(sn->control, SWD_ROLE_CONTROL, ctx);
}

/* dp_fault_port_poll at the time at ctx. */
static void swd_fault_poll_one(struct dp_port *port, enum swd_role role, void *ctx)
{
	(void)role;
	dp_fault_port_poll(port, *(const uint64_t *)ctx);
}

/* Lowers the time at ctx to port's next delayed frame. */
static void swd_fault_due_one(struct dp_port *port, enum swd_role role, void *ctx)
{
	uint64_t t = dp_fault_port_next_due(port), *next = ctx;

	(void)role;
	if (t < *next)
		*next = t;
}

void swd_ports_fault_poll(struct swd_ports *p, uint64_t now)
{
	for (uint16_t i = 0; p->faulty && i < p->n; i++)
		swd_node_ports(&p->node[i], swd_fault_poll_one, &now);
}

uint64_t swd_ports_fault_next_due(struct swd_ports *p)
{
	uint64_t next = UINT64_MAX;

	for (uint16_t i = 0; p->faulty && i < p->n; i++)
		swd_node_ports(&p->node[i], swd_fault_due_one, &next);
	return next;
}

/* dp_ports on the started devices, for the fabric. */
static int swd_make_ports(struct swd_ports *p, const struct swd_opts *o)
{
	for (uint16_t i = 0; i < p->n; i++) {
		struct swd_node *sn = &p->node[i];
		const struct swd_dev *b = &p->dev[sn->bulk_dev];
		const struct swd_dev *q = &p->dev[sn->quick_dev];

		sn->bulk = dp_ethdev_port_create(&b->eth, 0, 0);
		if (!sn->bulk)
			return -errno;
		sn->quick = q == b ? sn->bulk : dp_ethdev_port_create(&q->eth, 0, 0);
		if (!sn->quick)
			return -errno;
		if (q == b && b->tx_queues > 1) {
			sn->control = dp_ethdev_port_create(&b->eth, 0, 1);
			if (!sn->control)
				return -errno;
		}
		if (swd_wrap_faults(p, o, i))
			return -errno;
		p->bulk[i] = sn->bulk;
		p->quick[i] = sn->quick;
		p->control[i] = sn->control;
	}
	return 0;
}

int swd_ports_open(struct swd_ports *p, const struct swd_opts *o, int poll_socket,
		   char *err, size_t errlen)
{
	int rc;

	memset(p, 0, sizeof(*p));
	rc = swd_list_devs(p, o);
	if (rc) {
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	rc = swd_find_devs(p, err, errlen);
	if (!rc)
		rc = swd_make_pools(p, o, poll_socket, err, errlen);
	if (!rc)
		rc = swd_start_devs(p, o, err, errlen);
	p->faulty = dp_fault_active(&o->common.fault);
	if (!rc && swd_make_ports(p, o)) {
		rc = -errno;
		snprintf(err, errlen, "cannot make ports on the devices: %s", strerror(errno));
	}
	return rc;
}

void swd_ports_close(struct swd_ports *p)
{
	/* At most RTE_MAX_ETHPORTS devices (dp_ethdev_devices_fit). */
	struct dp_ethdev *eth[RTE_MAX_ETHPORTS];
	unsigned int n_eth = 0;

	for (uint16_t i = 0; p->node && i < p->n; i++) {
		struct swd_node *sn = &p->node[i];

		if (sn->quick != sn->bulk)
			dp_port_destroy(sn->quick);
		dp_port_destroy(sn->bulk);
		dp_port_destroy(sn->control);
		memset(sn, 0, sizeof(*sn));
	}
	for (unsigned int k = 0; k < p->n_dev && n_eth < RTE_MAX_ETHPORTS; k++)
		eth[n_eth++] = &p->dev[k].eth;
	dp_ethdev_close_all(eth, n_eth);
}

unsigned int swd_ports_check_pools(const struct swd_ports *p, FILE *f)
{
	return dp_pools_check(p->pool, SWD_MAX_POOLS, f);
}

void swd_ports_free(struct swd_ports *p)
{
	free(p->dev);
	free(p->node);
	free(p->bulk);
	free(p->quick);
	free(p->control);
	memset(p, 0, sizeof(*p));
}

/* A capture and the first failure attaching it. */
struct swd_capture_ctx {
	struct port_capture *cap;
	int rc;
};

/* Attach the capture at ctx to the wire of port. */
static void swd_capture_one(struct dp_port *port, enum swd_role role, void *ctx)
{
	struct swd_capture_ctx *c = ctx;

	(void)role;
	/* The wire: behind fault injection, what it let through. */
	if (!c->rc)
		c->rc = port_capture_attach(c->cap, dp_fault_port_inner(port));
}

int swd_ports_capture(struct swd_ports *p, struct port_capture *cap)
{
	struct swd_capture_ctx c = { .cap = cap };

	for (uint16_t i = 0; i < p->n && !c.rc; i++)
		swd_node_ports(&p->node[i], swd_capture_one, &c);
	return c.rc;
}

void swd_ports_numa_check(const struct swd_ports *p, int core)
{
	for (unsigned int k = 0; k < p->n_dev; k++)
		dp_numa_check_poller(p->dev[k].name, p->dev[k].eth.socket, core);
}
