/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The nicd daemon around the NIC core and the host interface: its options
 * (nicd_opts.c), its nodes with their ports (nicd_nodes.c), its telemetry
 * endpoints (nicd_telemetry.c) and its reports (nicd_report.c). main.c ties
 * them together; nothing else includes this header.
 */
#ifndef SEGNET_NICD_H
#define SEGNET_NICD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <rte_mempool.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_daemon.h"
#include "dataplane/dp_fault.h"
#include "host.h"
#include "nic.h"
#include "pcap/port_capture.h"

/* The daemon's log type, segnet.nicd.daemon (defined in main.c). */
extern int nicd_logtype;

/*
 * How long, at start-up, a virtio-user client's vhost-user server has to
 * answer before its device is left to the link watch (ms): DPDK 22.11's
 * server, just started, takes a new connection within its first poll of up
 * to a second.
 */
enum { NICD_SERVER_ANSWER_MS = 1500 };

/* One node as the command line names it. */
struct nicd_node_names {
	const char *name;	/* control socket NAME */
	const char *bulk;	/* bulk-channel device */
	const char *quick;	/* quick-channel device (may equal bulk) */
};

/* A --vnet ID:KEYFILE:CONF argument, read and checked. */
struct nicd_vnet {
	struct host_vnet hv;	/* id and key */
	const char *keyfile;	/* where the key came from */
	const char *conf;	/* CONF as given */
	char spec[512];		/* CONF expanded to a pipeline spec */
};

/* nicd's own options (the arguments after "--"). */
struct nicd_opts {
	struct dp_daemon_opts common;	/* the options switchd takes too */
	struct nicd_node_names *node;	/* --node, or the one of --bulk-port/--name */
	unsigned int n_nodes;		/* entries in node */
	struct nicd_vnet *vnet;		/* --vnet */
	unsigned int n_vnets;		/* entries in vnet */
	uint16_t endpoints;		/* --endpoints: table size per node */
	uint16_t max_nodes;		/* --max-nodes */
	uint16_t send_buffers;		/* --send-buffers: bulk send buffers of a NIC */
	uint16_t per_target_cap;	/* --per-target-cap (0 until checked: not given) */
	uint16_t quick_buffers;		/* --quick-buffers */
	uint16_t quick_reserve;		/* --quick-reserve (0 until checked: not given) */
	uint32_t descriptors;		/* --descriptors: packet descriptors per NIC */
	uint32_t cfg_keepalive;		/* --cfg-keepalive: slots between unchanged CFGs */
	uint32_t hello_us;		/* --hello-us: HELLO interval while joining */
	double quick_gbps;		/* --quick-gbps: the fabric's quick rate (0: not given) */
	const char *socket_dir;		/* --socket-dir */
	mode_t socket_mode;		/* --socket-mode */
};

/*
 * Parse nicd's arguments (argv[0] is the program name). 0 when they are
 * good, 1 after printing --help, -EINVAL with a message naming the argument
 * in err (key files are read and configurations expanded here). Needs no
 * EAL. Free with nicd_opts_free either way.
 */
int nicd_opts_parse(struct nicd_opts *o, int argc, char **argv, char *err,
		    size_t errlen);

/* Free what nicd_opts_parse allocated (and wipe the keys). */
void nicd_opts_free(struct nicd_opts *o);

/* Print the usage text. */
void nicd_opts_usage(FILE *f, const char *prog);

/* One ethdev nicd brought up. */
struct nicd_dev {
	struct dp_ethdev eth;		/* the started device (port_id
					 * RTE_MAX_ETHPORTS until set up: what
					 * nicd_nodes_close closes) */
	const char *name;		/* as the command line named it */
	uint16_t port_id;		/* the DPDK port the name resolved to at
					 * start-up (RTE_MAX_ETHPORTS: none yet);
					 * eth.port_id is the device's now */
	uint16_t rx_queues;		/* 2 when queue 1 takes control frames */
	struct rte_mempool *mp;		/* its receive pool (its NUMA node's) */
};

/* One node: its ports, its NIC and its host interface. */
struct nicd_node {
	const char *name;		/* control socket NAME */
	int bulk_dev;			/* index in nicd_nodes.dev */
	int quick_dev;			/* index in nicd_nodes.dev (may equal bulk_dev) */
	struct dp_port *bulk;		/* bulk channel (rx queue 0, tx queue 0) */
	struct dp_port *quick;		/* quick channel: its own device, rx queue 1
					 * of the bulk one (control frames), or bulk */
	struct nic *nic;		/* the NIC */
	struct host *host;		/* its endpoints */
	uint64_t seen;			/* activity sum at the last poll */
};

enum {
	/* Pools: one per NUMA node, plus one for SOCKET_ID_ANY. */
	NICD_MAX_POOLS = RTE_MAX_NUMA_NODES + 1,
};

/* Every node, device and pool of the daemon. */
struct nicd_nodes {
	struct nicd_node *node;			/* the nodes */
	unsigned int n;				/* how many */
	struct nicd_dev *dev;			/* devices */
	unsigned int n_dev;			/* entries in dev */
	struct rte_mempool *pool[NICD_MAX_POOLS];	/* by socket + 1 */
	uint16_t vnets[NIC_MAX_VNETS];		/* served virtual networks */
	unsigned int n_vnets;			/* entries in vnets */
};

/*
 * Find, set up and start every node's devices (pools on their NUMA nodes,
 * waiting o->link_wait_ms for links; a memif client whose server is not
 * there yet is left for the link watch to start, a virtio-user client
 * without its vhost-user server for it to create), then build each node's
 * NIC, virtual networks and host interface. 0, or -ENODEV (a device name
 * that names nothing, a --vdev its driver refused), -EINVAL (a device
 * given twice), other -errno, with a message naming what failed. Close
 * with nicd_nodes_close either way.
 */
int nicd_nodes_open(struct nicd_nodes *ns, const struct nicd_opts *o,
		    uint64_t generation, char *err, size_t errlen);

/*
 * Poll every node once at now: send rings, NIC, deliveries, control
 * sockets. Returns true when something moved; lowers *next to the earliest
 * time a node must run again.
 */
bool nicd_nodes_poll(struct nicd_nodes *ns, uint64_t now, uint64_t *next);

/* Endpoints open on every node together. */
unsigned int nicd_nodes_endpoints(const struct nicd_nodes *ns);

/* Close every endpoint and control socket (applications see -ESHUTDOWN). */
void nicd_nodes_shutdown(struct nicd_nodes *ns);

/*
 * Attach cap to every port of every node (bulk, quick, the control queue):
 * 0, or the first port_capture_attach error.
 */
int nicd_nodes_capture(struct nicd_nodes *ns, struct port_capture *cap);

/* Destroy NICs, hosts, ports; stop and close the devices. */
void nicd_nodes_close(struct nicd_nodes *ns);

/*
 * After nicd_nodes_close: print each pool's available count against its
 * size; returns the number of mbufs missing (0: no mbuf leaked).
 */
unsigned int nicd_nodes_check_pools(const struct nicd_nodes *ns, FILE *f);

/* Free the tables (after nicd_nodes_close). */
void nicd_nodes_free(struct nicd_nodes *ns);

/* Warn about ports polled across NUMA nodes from CPU core (-1: the lcore). */
void nicd_nodes_numa_check(const struct nicd_nodes *ns, int core);

/*
 * Register /segnet/nic/stats and /segnet/nic/endpoints. 0 or -errno. They
 * answer with an empty reply until nicd_telemetry_publish.
 */
int nicd_telemetry_register(void);

/* Let the endpoints read ns (it must stay until unpublished). */
void nicd_telemetry_publish(const struct nicd_nodes *ns);

/* Stop the endpoints reading; on return none is still reading. */
void nicd_telemetry_unpublish(void);

/* Counter values the periodic summary line compares against, per node. */
struct nicd_snapshot {
	uint64_t t_ns;		/* when taken */
	uint64_t tx;		/* messages sent */
	uint64_t rx;		/* messages delivered */
	uint64_t retx;		/* retransmissions */
	uint64_t drops;		/* frames and messages dropped */
	uint64_t errors;	/* sends completed with an error */
	uint64_t paused;	/* slots of nicd's own pauses (slots_paused) */
};

/* Take snapshots of every node (snap has ns->n entries). */
void nicd_report_snapshot(const struct nicd_nodes *ns, uint64_t now,
			  struct nicd_snapshot *snap);

/* Print one summary line per node since snap; snap = now's. */
void nicd_report_line(FILE *f, const struct nicd_nodes *ns,
		      struct nicd_snapshot *snap, uint64_t now);

/* Print the exit summary: every non-zero counter, per node, and back-off. */
void nicd_report_summary(FILE *f, const struct nicd_nodes *ns,
			 const struct dp_idle *idle, double seconds);

#endif
