/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One end of the two-process port test (ethdev_pair.sh). It brings up one
 * ethdev with dp_ethdev (memif, af_packet, ...) and exchanges the test
 * frame sequence (tests/common/test_frames.h: every segnet frame length up
 * to a full BREQ) with a peer running the same program, in lock step: the
 * client sends its frame i and waits for the server's frame i, sending again
 * after a timeout (af_packet loses what is sent before the peer's socket is
 * open). Frames are compared byte for byte with what the peer must have
 * sent. The server publishes its counters through telemetry and can wait,
 * once done, until the script has read them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_mbuf.h"
#include "dataplane/dp_telemetry.h"
#include "tests/common/test_frames.h"

enum {
	/* Frames in the pool. */
	PEER_POOL_FRAMES = 2048,
	/* Receive burst. */
	PEER_BURST = 32,
	/* Send again after this long without an answer (ns). */
	PEER_RETX_NS = 50 * 1000 * 1000,
	/* Server: stay this long after the last frame for late repeats (ns). */
	PEER_LINGER_NS = 500 * 1000 * 1000,
	/* Poll without sleeping this long (ns), then sleep this long (us). */
	PEER_IDLE_NS = 200 * 1000,
	PEER_SLEEP_US = 100,
};

#define PEER_COUNTERS(X) \
	X(exchanged, "frames of the sequence received as expected") \
	X(resent, "frames sent again after a timeout or a repeat") \
	X(repeats, "repeats of the previous frame received") \
	X(foreign, "frames that are not segnet (IPv6 neighbour discovery ...)") \
	X(wrong, "segnet frames that are not the expected ones")

/* What one end counted. */
struct peer_stats {
	PEER_COUNTERS(DP_COUNTER_FIELD)
};

/* Names of struct peer_stats fields. */
static const char *const peer_counter_names[] = {
	PEER_COUNTERS(DP_COUNTER_NAME)
};

/* One end of the test. */
struct peer {
	const char *port_name;		/* ethdev to use */
	bool server;			/* answers instead of asking */
	uint16_t me;			/* node id of this end (server 0) */
	uint16_t other;			/* node id of the peer */
	uint32_t timeout_ms;		/* give up after this long */
	uint32_t link_wait_ms;		/* wait this long for the link */
	const char *done_file;		/* created when the exchange is over */
	const char *release_file;	/* then wait for this one to exist */
	struct rte_mempool *mp;		/* frames */
	struct dp_ethdev dev;		/* the device */
	struct dp_port *port;		/* its queue pair 0 */
	struct dp_idle idle;		/* back-off while waiting */
	uint64_t deadline;		/* give up at this dp_tsc_ns() time */
	struct peer_stats stats;	/* counters */
};

/* The end published through telemetry. */
static struct peer *tel_peer;

/* Telemetry: this end's counters and its port's. */
static int peer_tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct peer *p = tel_peer;
	struct dp_counter_set own, port;
	struct dp_telemetry_held held = { .n = 0 };

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	if (!p)
		return -1;
	own = DP_COUNTER_SET("peer", peer_counter_names, &p->stats);
	port = dp_port_counters(p->port);
	if (dp_telemetry_add_set(d, &own) || dp_telemetry_add_groups(d, &port, 1, &held)) {
		dp_telemetry_held_free(&held);
		return -1;
	}
	return 0;
}

/* Print usage. */
static void peer_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s EAL-ARGS -- --port NAME --role client|server [options]\n"
		"  --port NAME          ethdev (a --vdev name, PCI address or port number)\n"
		"  --role ROLE          client sends first, server answers\n"
		"  --timeout-ms N       give up after N ms (default 20000)\n"
		"  --link-wait-ms N     wait N ms for the link (default 10000)\n"
		"  --done-file PATH     create PATH when the exchange is over, then\n"
		"  --release-file PATH  wait (up to 10 s) until PATH exists\n",
		prog);
}

/* Parse the program's own arguments: 0, 1 after --help, 2 when wrong. */
static int peer_args(struct peer *p, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "role", required_argument, NULL, 'r' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "link-wait-ms", required_argument, NULL, 'l' },
		{ "done-file", required_argument, NULL, 'd' },
		{ "release-file", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *role = NULL;
	int c;

	p->timeout_ms = 20000;
	p->link_wait_ms = 10000;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			p->port_name = optarg;
			break;
		case 'r':
			role = optarg;
			break;
		case 't':
			p->timeout_ms = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'l':
			p->link_wait_ms = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'd':
			p->done_file = optarg;
			break;
		case 'R':
			p->release_file = optarg;
			break;
		case 'h':
			peer_usage(stdout, argv[0]);
			return 1;
		default:
			peer_usage(stderr, argv[0]);
			return 2;
		}
	}
	if (!p->port_name || !role ||
	    (strcmp(role, "client") && strcmp(role, "server"))) {
		peer_usage(stderr, argv[0]);
		return 2;
	}
	p->server = !strcmp(role, "server");
	p->me = p->server ? 0 : 1;
	p->other = 1 - p->me;
	return 0;
}

/* True when m is frame i of the sequence from node from to node to. */
static bool peer_is_frame(const struct rte_mbuf *m, unsigned int i, uint16_t from,
			  uint16_t to)
{
	uint8_t want[TEST_FRAMES_MAX_LEN];
	int len = test_frames_encode(i, from, to, want, sizeof(want));

	return len > 0 && m->data_len == (uint16_t)len &&
	       !memcmp(rte_pktmbuf_mtod(m, const void *), want, (size_t)len);
}

/* Send frame i of this end; 0, or -1 when the pool is empty. */
static int peer_send(struct peer *p, unsigned int i)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(p->mp);
	int len;

	if (!m)
		return -1;
	len = test_frames_encode(i, p->me, p->other, rte_pktmbuf_mtod(m, uint8_t *),
				 DP_MBUF_DATA);
	if (len < 0) {
		rte_pktmbuf_free(m);
		return -1;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	dp_port_tx1(p->port, m);
	return 0;
}

/* Count a frame that is neither expected nor a repeat. */
static void peer_unexpected(struct peer *p, const struct rte_mbuf *m)
{
	const struct proto_eth *eth = rte_pktmbuf_mtod(m, const struct proto_eth *);

	if (m->data_len < sizeof(*eth) || eth->ethertype != htons(PROTO_ETHERTYPE)) {
		p->stats.foreign++;
		return;
	}
	p->stats.wrong++;
	fprintf(stderr, "%s: unexpected %u-byte segnet frame\n",
		p->server ? "server" : "client", m->data_len);
}

/* Client: send frame i until the server's frame i comes back. */
static int peer_ask(struct peer *p, unsigned int i)
{
	struct rte_mbuf *pkts[PEER_BURST];
	uint64_t now = dp_tsc_ns(), sent = now;
	bool answered = false;

	if (peer_send(p, i))
		return -1;
	while (!answered) {
		uint16_t n = dp_port_rx(p->port, pkts, PEER_BURST);

		for (uint16_t k = 0; k < n; k++) {
			if (peer_is_frame(pkts[k], i, p->other, p->me))
				answered = true;
			else if (i && peer_is_frame(pkts[k], i - 1, p->other, p->me))
				p->stats.repeats++;
			else
				peer_unexpected(p, pkts[k]);
		}
		rte_pktmbuf_free_bulk(pkts, n);
		if (answered)
			break;
		now = dp_tsc_ns();
		if (now > p->deadline || dp_stop)
			return -1;
		if (now - sent > PEER_RETX_NS) {
			if (peer_send(p, i))
				return -1;
			p->stats.resent++;
			sent = now;
		}
		dp_idle_poll(&p->idle, n > 0, now, sent + PEER_RETX_NS);
	}
	p->stats.exchanged++;
	return 0;
}

/* Server: answer frame i with frame i, until the client is quiet. */
static int peer_answer(struct peer *p)
{
	struct rte_mbuf *pkts[PEER_BURST];
	uint64_t now = dp_tsc_ns(), last = now;
	unsigned int next = 0;

	while (next < TEST_FRAMES_N || now - last < PEER_LINGER_NS) {
		uint16_t n = dp_port_rx(p->port, pkts, PEER_BURST);

		now = dp_tsc_ns();
		for (uint16_t k = 0; k < n; k++) {
			last = now;
			if (next < TEST_FRAMES_N &&
			    peer_is_frame(pkts[k], next, p->other, p->me)) {
				p->stats.exchanged++;
				if (peer_send(p, next++))
					return -1;
			} else if (next && peer_is_frame(pkts[k], next - 1, p->other, p->me)) {
				p->stats.repeats++;
				p->stats.resent++;
				if (peer_send(p, next - 1))
					return -1;
			} else {
				peer_unexpected(p, pkts[k]);
			}
		}
		rte_pktmbuf_free_bulk(pkts, n);
		if (now > p->deadline || dp_stop)
			return next == TEST_FRAMES_N ? 0 : -1;
		dp_idle_poll(&p->idle, n > 0, now, UINT64_MAX);
	}
	return 0;
}

/* Create the done file, then wait for the release file (10 s at most). */
static void peer_hold(const struct peer *p)
{
	FILE *f;

	if (!p->done_file)
		return;
	f = fopen(p->done_file, "w");
	if (f)
		fclose(f);
	for (int i = 0; p->release_file && i < 1000 && !dp_stop; i++) {
		if (access(p->release_file, F_OK) == 0)
			break;
		usleep(10000);
	}
}

/* Bring up the pool, the device and the port. */
static int peer_open(struct peer *p)
{
	struct dp_ethdev_conf conf = {
		.rx_queues = 1, .tx_queues = 1, .link_wait_ms = p->link_wait_ms,
		.promiscuous = true,
	};
	unsigned int lcore = rte_get_main_lcore();
	char err[512];

	p->mp = dp_pool_for_socket("peer", SOCKET_ID_ANY, PEER_POOL_FRAMES, err,
				   sizeof(err));
	if (!p->mp || dp_ethdev_setup(p->port_name, &conf, p->mp, &p->dev, err,
				      sizeof(err))) {
		fprintf(stderr, "ethdev_peer: %s\n", err);
		return -1;
	}
	dp_numa_check(p->dev.name, p->dev.socket, lcore);
	p->port = dp_ethdev_port_create(&p->dev, 0, 0);
	if (!p->port) {
		fprintf(stderr, "ethdev_peer: cannot make a port: %s\n", strerror(errno));
		return -1;
	}
	tel_peer = p;
	if (dp_telemetry_register("/segnet/peer/stats", peer_tel_stats,
				  "ethdev_peer counters"))
		return -1;
	return 0;
}

/* Run the exchange; 0 when every frame went both ways unchanged. */
static int peer_run(struct peer *p)
{
	int rc = 0;

	dp_idle_init(&p->idle, PEER_IDLE_NS, PEER_SLEEP_US, dp_tsc_ns());
	p->deadline = dp_tsc_ns() + (uint64_t)p->timeout_ms * 1000000;
	if (p->server)
		rc = peer_answer(p);
	else
		for (unsigned int i = 0; i < TEST_FRAMES_N && !rc; i++)
			rc = peer_ask(p, i);
	if (p->stats.exchanged != TEST_FRAMES_N || p->stats.wrong)
		rc = -1;
	return rc;
}

/* EAL, arguments, the exchange, a summary; exit 0 when it all matched. */
int main(int argc, char **argv)
{
	struct dp_counter_set own, port;
	struct peer p = { 0 };
	char err[256];
	int used, rc;

	used = dp_eal_init(argc, argv, err, sizeof(err));
	if (used < 0) {
		fprintf(stderr, "ethdev_peer: %s\n", err);
		return 1;
	}
	p.dev.port_id = RTE_MAX_ETHPORTS;	/* no device until set up */
	rc = peer_args(&p, argc - used, argv + used);
	if (rc)
		return rc == 1 ? 0 : 2;
	dp_signals_install();
	rc = peer_open(&p) ? -1 : peer_run(&p);
	own = DP_COUNTER_SET(p.server ? "server" : "client", peer_counter_names,
			     &p.stats);
	printf("%s: %s, %llu of %u frames each way, link %s, MTU %u\n",
	       own.group, rc ? "FAILED" : "ok",
	       (unsigned long long)p.stats.exchanged, TEST_FRAMES_N,
	       p.dev.link_up ? "up" : "down", p.dev.mtu);
	dp_counters_print(stdout, &own);
	if (p.port) {
		port = dp_port_counters(p.port);
		dp_counters_print(stdout, &port);
	}
	fflush(stdout);
	if (!rc)
		peer_hold(&p);
	tel_peer = NULL;
	dp_port_destroy(p.port);
	dp_ethdev_close(&p.dev);
	dp_eal_cleanup();
	return rc ? 1 : 0;
}
