/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lab-inject: sends frames with a forged source node into a virtual lab's
 * switch (lab_forged.sh). It takes a node's port once that node's nicd is
 * stopped (scripts/lab.sh stop-node, then attach prints the EAL arguments)
 * and sends --count valid QREQs that claim to come from node --src, to
 * node --dst: switchd must drop every one and count it in forged_src,
 * since the port belongs to another node.
 *
 *   lab-inject EAL-ARGS -- --port DEV --src S --dst D [--count K]
 *              [--vnet V] [--rx-queues N] [--link-wait-ms MS]
 *
 * It drains the receive queues (switchd's control queue is queue 1) while
 * it waits for its frames to leave, then closes the device and checks that
 * every mbuf came back.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_mbuf.h"
#include "dataplane/dp_port.h"
#include "proto/proto.h"

enum {
	INJ_POOL_FRAMES = 4096,		/* frames in the pool */
	INJ_MAX_RXQ = 2,		/* receive queues at most */
	INJ_MAX_COUNT = 1000,		/* frames at most */
	INJ_HANDLER = 7,		/* handler id of the forged message */
	INJ_DRAIN_NS = 200 * 1000 * 1000,	/* poll this long after sending */
	INJ_BURST = 32,			/* frames per receive burst */
};

/* The command line. */
struct inj_opts {
	const char *port;	/* the device */
	uint16_t src;		/* forged source node */
	uint16_t dst;		/* destination node */
	uint16_t vnet;		/* virtual network */
	uint32_t count;		/* frames to send */
	uint16_t rx_queues;	/* receive queues to open and drain */
	uint32_t link_wait_ms;	/* wait for the link */
};

static void inj_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s EAL-ARGS -- --port DEV --src S --dst D [--count K (1..%d, default 5)]\n"
		"       [--vnet V (default 1)] [--rx-queues N (1..%d, default 2)]\n"
		"       [--link-wait-ms MS (default 10000)]\n",
		prog, INJ_MAX_COUNT, INJ_MAX_RXQ);
}

/* Parse an unsigned number in [lo, hi]; false when it is not one. */
static bool inj_num(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* Parse the arguments after "--"; 0, or 2 when they are wrong. */
static int inj_args(struct inj_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'c' },
		{ "vnet", required_argument, NULL, 'v' },
		{ "rx-queues", required_argument, NULL, 'r' },
		{ "link-wait-ms", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_src = false, have_dst = false, ok = true;
	unsigned long v = 0;
	int c;

	o->count = 5;
	o->vnet = 1;
	o->rx_queues = 2;
	o->link_wait_ms = 10000;
	optind = 1;
	while (ok && (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->port = optarg;
			break;
		case 's':
			ok = inj_num(optarg, 0, PROTO_MAX_NODES - 1, &v);
			o->src = (uint16_t)v;
			have_src = true;
			break;
		case 'd':
			ok = inj_num(optarg, 0, PROTO_MAX_NODES - 1, &v);
			o->dst = (uint16_t)v;
			have_dst = true;
			break;
		case 'c':
			ok = inj_num(optarg, 1, INJ_MAX_COUNT, &v);
			o->count = (uint32_t)v;
			break;
		case 'v':
			ok = inj_num(optarg, 0, UINT16_MAX, &v);
			o->vnet = (uint16_t)v;
			break;
		case 'r':
			ok = inj_num(optarg, 1, INJ_MAX_RXQ, &v);
			o->rx_queues = (uint16_t)v;
			break;
		case 'l':
			ok = inj_num(optarg, 0, 600000, &v);
			o->link_wait_ms = (uint32_t)v;
			break;
		default:
			ok = false;
		}
	}
	if (!ok || !o->port || !have_src || !have_dst) {
		inj_usage(stderr, argv[0]);
		return 2;
	}
	return 0;
}

/* Encode forged QREQ number k; NULL when the pool is empty. */
static struct rte_mbuf *inj_frame(struct rte_mempool *mp, const struct inj_opts *o,
				  uint32_t k)
{
	uint8_t args[PROTO_ARGS_LEN] = { 'f', 'o', 'r', 'g', 'e', 'd' };
	struct proto_pkt p = {
		.type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_LAST,
		.src_node = o->src, .dst_node = o->dst, .vnet = o->vnet,
		.handler = INJ_HANDLER, .pkt_num = k + 1, .args = args,
	};
	struct rte_mbuf *m;

	proto_node_mac(p.src_node, p.eth_src);
	proto_node_mac(p.dst_node, p.eth_dst);
	m = dp_frame_alloc(mp, (uint16_t)proto_frame_len(&p));
	if (m && proto_encode(&p, rte_pktmbuf_mtod(m, void *), DP_MBUF_DATA) < 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/* Receive and free whatever the switch sends, for INJ_DRAIN_NS. */
static uint64_t inj_drain(struct dp_port **rx, uint16_t n)
{
	struct rte_mbuf *burst[INJ_BURST];
	uint64_t end = dp_tsc_ns() + INJ_DRAIN_NS, got = 0;

	while (dp_tsc_ns() < end && !dp_stop) {
		for (uint16_t q = 0; q < n; q++) {
			uint16_t k = dp_port_rx(rx[q], burst, INJ_BURST);

			got += k;
			rte_pktmbuf_free_bulk(burst, k);
		}
	}
	return got;
}

int main(int argc, char **argv)
{
	struct dp_ethdev dev = { .port_id = RTE_MAX_ETHPORTS };
	struct dp_port *rx[INJ_MAX_RXQ] = { NULL };
	struct dp_ethdev_conf conf = { .promiscuous = true };
	struct rte_mempool *mp;
	struct inj_opts o;
	char err[512];
	uint64_t got;
	int n, rc = 1;

	memset(&o, 0, sizeof(o));
	n = dp_eal_init(argc, argv, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "lab-inject: %s\n", err);
		return 2;
	}
	argv[n] = argv[0];
	if (inj_args(&o, argc - n, argv + n)) {
		dp_eal_cleanup();
		return 2;
	}
	dp_signals_install();
	conf.rx_queues = o.rx_queues;
	conf.tx_queues = 1;
	conf.link_wait_ms = o.link_wait_ms;
	mp = dp_pool_for_socket("inject", SOCKET_ID_ANY, INJ_POOL_FRAMES, err, sizeof(err));
	if (!mp || dp_ethdev_setup(o.port, &conf, mp, &dev, err, sizeof(err))) {
		fprintf(stderr, "lab-inject: %s\n", err);
		goto out;
	}
	for (uint16_t q = 0; q < o.rx_queues; q++) {
		rx[q] = dp_ethdev_port_create(&dev, q, 0);
		if (!rx[q]) {
			fprintf(stderr, "lab-inject: %s: cannot make a port on queue %u\n", o.port, q);
			goto out;
		}
	}
	for (uint32_t k = 0; k < o.count; k++) {
		struct rte_mbuf *m = inj_frame(mp, &o, k);

		if (!m) {
			fprintf(stderr, "lab-inject: cannot build frame %u\n", k);
			goto out;
		}
		dp_port_tx1(rx[0], m);
	}
	got = inj_drain(rx, o.rx_queues);
	printf("lab-inject: %u QREQs from forged source node %u to node %u (vnet %u) sent on %s; %llu frames received meanwhile\n",
	       o.count, o.src, o.dst, o.vnet, o.port, (unsigned long long)got);
	printf("lab-inject: port tx_frames %llu\n",
	       (unsigned long long)rx[0]->stats.tx_frames);
	rc = rx[0]->stats.tx_frames == o.count ? 0 : 1;
out:
	for (uint16_t q = 0; q < INJ_MAX_RXQ; q++)
		dp_port_destroy(rx[q]);
	dp_ethdev_close(&dev);
	if (mp && rte_mempool_avail_count(mp) != mp->size) {
		fprintf(stderr, "lab-inject: %u mbufs leaked\n", mp->size - rte_mempool_avail_count(mp));
		rc = 1;
	}
	dp_eal_cleanup();
	return rc;
}
