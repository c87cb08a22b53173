/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receiving end of the replay round trip (replay_roundtrip.sh): one
 * ethdev, the port capture adapter attached to it (receive direction only),
 * and a poll loop that frees what arrives. It stops after --count frames,
 * and --linger-ms more (to see any extra frame), after --timeout-ms, or on
 * SIGTERM, then closes the capture (printing its summary line) and says how
 * many frames it received. Once the EAL started, every exit goes through
 * dp_eal_cleanup, as the daemons': a memif server's socket and the runtime
 * directory go, after a failed set-up too.
 *
 *   capture_sink [EAL args] -- --port ETHDEV --capture FILE [--count N]
 *                [--timeout-ms MS] [--linger-ms MS] [--ready-file PATH]
 *                [--data-room BYTES]
 *
 * --data-room sizes the receive buffers for frames longer than segnet's
 * (jumbo replays: a longer frame arrives in several buffers, which a
 * dp_port drops); the MTU is raised to match when the device takes it.
 *
 * Exit 0 when exactly --count frames arrived (or, without --count, at the
 * time-out), 1 otherwise. The linger (20 ms by default) must end before the
 * sender disconnects (segnet-replay waits 100 ms): DPDK 22.11's memif
 * server can crash polling a ring its client is tearing down.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "pcap/port_capture.h"

enum {
	/* Receive burst. */
	SINK_BURST = 32,
	/* Frames in the receive pool. */
	SINK_POOL = 4096,
};

/* The sink's options. */
struct sink_opts {
	/* ethdev to receive on */
	const char *port;
	/* the pcap to write */
	const char *capture;
	/* stop after this many frames (0: at the time-out) */
	uint64_t count;
	/* stop after this long */
	uint64_t timeout_ms;
	/* once count frames arrived, go on receiving this long */
	uint64_t linger_ms;
	/* created once the port is up */
	const char *ready_file;
	/* receive buffer size (0: segnet's) */
	uint32_t data_room;
};

/* Parse the arguments after "--"; 0 or -EINVAL. */
static int sink_parse(struct sink_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "capture", required_argument, NULL, 'c' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "linger-ms", required_argument, NULL, 'l' },
		{ "data-room", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->timeout_ms = 20000;
	o->linger_ms = 20;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->port = optarg;
			break;
		case 'c':
			o->capture = optarg;
			break;
		case 'n':
			o->count = strtoull(optarg, NULL, 10);
			break;
		case 't':
			o->timeout_ms = strtoull(optarg, NULL, 10);
			break;
		case 'r':
			o->ready_file = optarg;
			break;
		case 'l':
			o->linger_ms = strtoull(optarg, NULL, 10);
			break;
		case 'd':
			o->data_room = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		default:
			return -EINVAL;
		}
	}
	if (o->data_room > UINT16_MAX - RTE_PKTMBUF_HEADROOM)
		return -EINVAL;
	return o->port && o->capture ? 0 : -EINVAL;
}

/*
 * Receive until the time-out or a signal, or until the linger time after
 * the count was reached; returns frames received.
 */
static uint64_t sink_loop(struct dp_port *port, const struct sink_opts *o)
{
	uint64_t end = dp_tsc_ns() + o->timeout_ms * 1000000, got = 0;
	struct rte_mbuf *pkts[SINK_BURST];
	bool lingering = false;

	while (!dp_stop && dp_tsc_ns() < end) {
		uint16_t n = dp_port_rx(port, pkts, SINK_BURST);

		rte_pktmbuf_free_bulk(pkts, n);
		got += n;
		if (o->count && got >= o->count && !lingering) {
			lingering = true;
			end = dp_tsc_ns() + o->linger_ms * 1000000;
		}
	}
	return got;
}

/* The receive pool: segnet's, or one of --data-room buffers (and an MTU for them). */
static struct rte_mempool *sink_pool(const struct sink_opts *o, struct dp_ethdev_conf *dc,
				     char *err, size_t errlen)
{
	struct rte_mempool *mp;

	if (o->data_room == 0)
		return dp_pool_for_socket("sink", SOCKET_ID_ANY, SINK_POOL, err, errlen);
	dc->mtu = (uint16_t)(o->data_room - RTE_ETHER_HDR_LEN - RTE_ETHER_CRC_LEN);
	mp = rte_pktmbuf_pool_create("sink-room", SINK_POOL, 0, 0,
				     (uint16_t)(RTE_PKTMBUF_HEADROOM + o->data_room), SOCKET_ID_ANY);
	if (mp == NULL)
		snprintf(err, errlen, "cannot create a pool of %u-byte buffers", o->data_room);
	return mp;
}

/* Create the ready file. */
static void sink_ready(const char *path)
{
	FILE *f;

	if (path == NULL)
		return;
	f = fopen(path, "w");
	if (f != NULL)
		fclose(f);
}

int main(int argc, char **argv)
{
	struct port_capture_opts co = { .dirs = PORT_CAPTURE_RX };
	struct dp_ethdev_conf dc = { .rx_queues = 1, .tx_queues = 1, .promiscuous = true };
	struct port_capture *cap = NULL;
	struct dp_port *port = NULL;
	struct rte_mempool *mp;
	struct dp_ethdev dev;
	struct sink_opts o;
	char err[512] = "";
	uint64_t got;
	int n, rc = 1;

	n = dp_eal_init(argc, argv, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "capture_sink: %s\n", err);
		return 1;
	}
	if (sink_parse(&o, argc - n, argv + n)) {
		fprintf(stderr, "capture_sink: need --port ETHDEV --capture FILE\n");
		goto out_eal;
	}
	dp_signals_install();
	mp = sink_pool(&o, &dc, err, sizeof(err));
	if (mp == NULL || dp_ethdev_setup(o.port, &dc, mp, &dev, err, sizeof(err))) {
		fprintf(stderr, "capture_sink: %s\n", err);
		goto out_eal;
	}
	port = dp_ethdev_port_create(&dev, 0, 0);
	cap = port_capture_open(o.capture, &co);
	if (port == NULL || cap == NULL || port_capture_attach(cap, port)) {
		fprintf(stderr, "capture_sink: cannot capture on %s into %s: %s\n", o.port,
			o.capture, strerror(errno));
		goto out_dev;
	}
	sink_ready(o.ready_file);
	got = sink_loop(port, &o);
	port_capture_close(cap, stdout, NULL);
	cap = NULL;
	printf("capture_sink: %" PRIu64 " frames received\n", got);
	fflush(stdout);
	rc = o.count == 0 || got == o.count ? 0 : 1;
out_dev:
	port_capture_close(cap, NULL, NULL);
	dp_ethdev_close(&dev);
	dp_port_destroy(port);
out_eal:
	/* As the daemons: a memif server's socket and the runtime directory go. */
	dp_eal_cleanup();
	return rc;
}
