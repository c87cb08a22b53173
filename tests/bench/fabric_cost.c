/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabric-cost: the switch fabric's own work per forwarded QREQ, without
 * NICs. Two nodes join a fabric on array ports (tests/common/array_port.h)
 * and enable quick traffic; then every poll reads a burst of QREQs from
 * node 0 to node 1 (CRC checked unless --no-crc) and forwards them. The
 * QREQs node 1 receives are queued again on node 0, so nothing is
 * allocated while polling. Run under callgrind with
 * --toggle-collect=sw_fabric_poll for N and 2N polls, the difference in
 * instructions over the difference in QREQs forwarded is the fabric's cost
 * per frame: the part of switchd's forwarding that is segnet's own, beside
 * the driver's receive and transmit (scripts/bench.sh fabric):
 *
 *   fabric-cost [--polls N] [--burst N] [--no-crc]
 *   fabric-cost: polls=P burst=B crc=on forwarded=F
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_mempool.h>

#include "dataplane/dp_opts.h"
#include "switchd/fabric.h"
#include "tests/common/array_port.h"

enum {
	FC_NODES = 2,
	FC_MAX_BURST = 32,	/* what switchd reads from a port per poll */
	FC_PORT_CAP = 256,	/* frames an array port holds each way */
	FC_POLL_NS = 3000,	/* clock step per poll: every QREQ wins */
	/* Offset of the frame type in a frame. */
	FC_TYPE_OFF = PROTO_ETH_LEN + offsetof(struct proto_hdr, type),
};

/* Queue p (MACs filled in) on port; false (and a message) on failure. */
static bool fc_push(struct rte_mempool *mp, struct dp_port *port, struct proto_pkt p)
{
	struct rte_mbuf *m;
	int rc;

	proto_node_mac(p.src_node, p.eth_src);
	proto_node_mac(p.dst_node, p.eth_dst);
	m = tdp_frame(mp, &p, &rc);
	if (m && tport_queue(port, m))
		return true;
	fprintf(stderr, "fabric-cost: cannot queue a %s frame\n", proto_type_name(p.type));
	rte_pktmbuf_free(m);
	return false;
}

/*
 * Poll the fabric polls times, each time feeding it the QREQs the poll
 * before forwarded (other frames it sent, keepalive GNTs, are freed);
 * returns the QREQs forwarded.
 */
static uint64_t fc_polls(struct sw_fabric *sw, struct dp_port *const *port,
			 unsigned long polls, uint64_t now)
{
	uint64_t forwarded = 0;

	for (unsigned long i = 0; i < polls; i++) {
		now += FC_POLL_NS;
		sw_fabric_poll(sw, now);
		for (unsigned int j = 0; j < tport_sent(port[1]); j++) {
			struct rte_mbuf *m = tport_frame(port[1], j);
			const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

			if (f[FC_TYPE_OFF] == PROTO_T_QREQ && tport_queue(port[0], m))
				forwarded++;
			else
				rte_pktmbuf_free(m);
		}
		tport_forget(port[1]);
	}
	return forwarded;
}

/* Usage on f. */
static void fc_usage(FILE *f)
{
	fprintf(f,
		"usage: fabric-cost [--polls N] [--burst N] [--no-crc]\n"
		"Forward bursts of N QREQs (default 32, at most 32) from node 0 to node 1\n"
		"through the switch fabric on array ports, --polls times (default 2000).\n"
		"Count it with valgrind --tool=callgrind --toggle-collect=sw_fabric_poll\n"
		"at two --polls and take the difference (scripts/bench.sh fabric).\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "polls", required_argument, NULL, 'p' },
		{ "burst", required_argument, NULL, 'b' },
		{ "no-crc", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const uint8_t args[PROTO_ARGS_LEN] = { 1, 2, 3 };
	unsigned long polls = 2000;
	uint32_t burst = FC_MAX_BURST;
	bool crc = true, ok = true;
	struct dp_port *port[FC_NODES];
	struct rte_mempool *mp;
	struct sw_fabric *sw;
	uint8_t counts[FC_NODES] = { 0 }, en = (1u << FC_NODES) - 1;
	uint64_t forwarded;
	char err[256];
	int c, rc = 0;

	while (!rc && (c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			rc = dp_opt_ulong("--polls", optarg, 1, 100000000, &polls, err, sizeof(err));
			break;
		case 'b':
			rc = dp_opt_u32("--burst", optarg, 1, FC_MAX_BURST, &burst, err, sizeof(err));
			break;
		case 'n':
			crc = false;
			break;
		case 'h':
			fc_usage(stdout);
			return 0;
		default:
			fc_usage(stderr);
			return 2;
		}
	}
	if (!rc && optind != argc)
		rc = dp_opt_fail(err, sizeof(err), "unexpected argument '%s'", argv[optind]);
	if (rc) {
		fprintf(stderr, "fabric-cost: %s\n", err);
		return 2;
	}
	if (tdp_eal_start() < 0) {
		fprintf(stderr, "fabric-cost: the EAL did not start\n");
		return 1;
	}
	mp = dp_pool_create("fabric_cost", 1023, SOCKET_ID_ANY);
	port[0] = tport_new("n0", FC_PORT_CAP);
	port[1] = tport_new("n1", FC_PORT_CAP);
	if (!mp || !port[0] || !port[1]) {
		fprintf(stderr, "fabric-cost: out of memory\n");
		return 1;
	}
	struct sw_config cfg = {
		.n_nodes = FC_NODES, .arbiter = "lcf", .quick_mode = SW_QUICK_DROP,
		.bulk_gbps = 0.1, .quick_gbps = 1000, .slot_frames = 1, .seed = 1,
		.mp = mp, .check_crc = crc,
	};
	sw = sw_fabric_create(&cfg, port, port, err, sizeof(err));
	if (!sw) {
		fprintf(stderr, "fabric-cost: %s\n", err);
		return 1;
	}
	/* Join both nodes, then enable quick traffic between them. */
	for (uint16_t i = 0; i < FC_NODES; i++)
		ok &= fc_push(mp, port[i], (struct proto_pkt) {
			.type = PROTO_T_HELLO, .src_node = PROTO_NODE_NONE,
			.dst_node = PROTO_NODE_SWITCH, .hello_nonce = 1 + i,
		});
	sw_fabric_poll(sw, FC_POLL_NS);
	for (uint16_t i = 0; i < FC_NODES; i++)
		ok &= fc_push(mp, port[i], (struct proto_pkt) {
			.type = PROTO_T_CFG, .src_node = i, .dst_node = PROTO_NODE_SWITCH,
			.cfg = { .n_nodes = FC_NODES, .counts = counts, .bulk_en = &en,
				 .quick_en = &en },
		});
	sw_fabric_poll(sw, 2 * FC_POLL_NS);
	for (uint16_t i = 0; i < FC_NODES; i++)
		tport_clear(port[i]);
	for (uint32_t j = 0; j < burst; j++)
		ok &= fc_push(mp, port[0], (struct proto_pkt) {
			.type = PROTO_T_QREQ, .flags = PROTO_F_DATA, .src_node = 0,
			.dst_node = 1, .vnet = 1, .pkt_num = 1 + j, .args = args,
		});
	if (!ok)
		return 1;

	forwarded = fc_polls(sw, port, polls, 2 * FC_POLL_NS);
	printf("fabric-cost: polls=%lu burst=%u crc=%s forwarded=%llu\n", polls, burst,
	       crc ? "on" : "off", (unsigned long long)forwarded);
	if (forwarded != (uint64_t)polls * burst) {
		fprintf(stderr, "fabric-cost: %llu of %llu QREQs forwarded; the counters:\n",
			(unsigned long long)forwarded, (unsigned long long)polls * burst);
		sw_fabric_print_counters(sw, stderr);
		return 1;
	}
	sw_fabric_destroy(sw);
	dp_port_destroy(port[0]);
	dp_port_destroy(port[1]);
	rte_mempool_free(mp);
	return 0;
}
