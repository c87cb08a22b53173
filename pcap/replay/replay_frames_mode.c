/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames mode as an entry of the mode table: the ethdev named by --port,
 * brought up with dp_ethdev, and replay_frames over a dp_port on its queue
 * pair 0. Nothing is received: the receive queue only exists because
 * ethdevs need one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include <rte_cycles.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "pcap/replay/replay_frames.h"

enum {
	/* Frames of the receive pool: the receive ring and some slack. */
	REPLAY_RX_POOL = 2048,
	/*
	 * Time the peer gets to take the last frames before the device closes:
	 * a memif or vhost ring is unmapped with whatever the peer has not read.
	 */
	REPLAY_DRAIN_US = 100000,
};

/* Frames mode's state. */
struct replay_frames_mode {
	/* the device */
	struct dp_ethdev dev;
	/* the port on its queue pair 0 */
	struct dp_port *port;
	/* the frames */
	struct replay_frames *f;
};

/* Frames mode needs a port, and takes none of messages mode's options. */
static int replay_frames_mode_check(const struct replay_opts *o, char *err, size_t errlen)
{
	if (o->msg_opt) {
		snprintf(err, errlen, "--%s only applies to --mode messages", o->msg_opt);
		return -EINVAL;
	}
	if (o->port)
		return 0;
	snprintf(err, errlen, "frames mode needs --port ETHDEV (the port to send on)");
	return -EINVAL;
}

/* Release what set-up built; the ethdev first, so it gives back our frames. */
static void replay_frames_mode_teardown(void *state)
{
	struct replay_frames_mode *fm = state;

	if (fm == NULL)
		return;
	if (fm->f != NULL)
		rte_delay_us_sleep(REPLAY_DRAIN_US);
	dp_ethdev_close(&fm->dev);
	dp_port_destroy(fm->port);
	replay_frames_free(fm->f);
	free(fm);
}

/* Say up front which records will not be sent, too long for the port. */
static void replay_frames_mode_warn_long(const struct replay_frames_mode *fm)
{
	struct replay_frames_stats st;

	replay_frames_get_stats(fm->f, &st);
	if (st.too_long == 0)
		return;
	fprintf(stderr, "segnet-replay: port %s sends frames of %u bytes at most: %" PRIu64
		" longer record%s left out, not sent (the first: record %" PRIu64
		", %u bytes, at byte offset %" PRIu64 ")\n",
		fm->dev.name, st.max_frame, st.too_long, st.too_long == 1 ? "" : "s",
		st.first_too_long.index, st.first_too_long.caplen, st.first_too_long.offset);
}

/* Bring up the port and build the frames. */
static int replay_frames_mode_setup(const struct replay_env *env, void **state,
				    char *err, size_t errlen)
{
	const struct replay_opts *o = env->opts;
	struct dp_ethdev_conf dc = {
		.rx_queues = 1, .tx_queues = 1, .link_wait_ms = o->link_wait_ms,
	};
	struct replay_frames_conf fc = {
		.burst = o->burst, .clock = *env->clock, .stop = env->stop,
	};
	struct replay_frames_mode *fm = calloc(1, sizeof(*fm));
	struct rte_mempool *rx;
	int rc;

	if (fm == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fm->dev.port_id = RTE_MAX_ETHPORTS;
	*state = fm;
	rx = dp_pool_for_socket("replay-rx", SOCKET_ID_ANY, REPLAY_RX_POOL, err, errlen);
	if (rx == NULL)
		return -errno;
	rc = dp_ethdev_setup(o->port, &dc, rx, &fm->dev, err, errlen);
	if (rc)
		return rc;
	fm->port = dp_ethdev_port_create(&fm->dev, 0, 0);
	if (fm->port == NULL) {
		snprintf(err, errlen, "port %s: cannot make a port on it", o->port);
		return -ENOMEM;
	}
	fc.socket = fm->dev.socket;
	fc.max_frame = fm->dev.max_frame;
	fm->f = replay_frames_create(fm->port, env->trace, &fc, err, errlen);
	if (fm->f == NULL)
		return -errno;
	replay_frames_mode_warn_long(fm);
	return 0;
}

/* Queue a record. */
static int replay_frames_mode_send(void *state, const struct trace_rec *rec)
{
	return replay_frames_queue(((struct replay_frames_mode *)state)->f, rec);
}

/* Send the queued records. */
static unsigned int replay_frames_mode_flush(void *state)
{
	return replay_frames_flush(((struct replay_frames_mode *)state)->f);
}

/* Frames not sent so far: dropped, or too long for the port. */
static uint64_t replay_frames_mode_dropped(void *state)
{
	struct replay_frames_stats st;

	replay_frames_get_stats(((struct replay_frames_mode *)state)->f, &st);
	return st.dropped + st.too_long;
}

/* The port's lines of the report. */
static void replay_frames_mode_report(void *state, FILE *f)
{
	struct replay_frames_mode *fm = state;
	struct replay_frames_stats st;

	replay_frames_get_stats(fm->f, &st);
	fprintf(f, "%-14s %15s  (%s)\n", "port", fm->dev.name,
		st.prebuilt ? "frames prebuilt in mbufs" : "frames copied at send time");
	fprintf(f, "%-14s %15" PRIu64 "\n", "frames sent", st.sent);
	fprintf(f, "%-14s %15" PRIu64 "\n", "bytes sent", st.bytes);
	fprintf(f, "%-14s %15" PRIu64 "  (transmit calls that found the queue full)\n",
		"tx busy", st.tx_partial);
	fprintf(f, "%-14s %15" PRIu64 "\n", "dropped", st.dropped);
	if (st.too_long)
		fprintf(f, "%-14s %15" PRIu64 "  (records longer than the port's %u-byte frames, not sent)\n",
			"too long", st.too_long, st.max_frame);
	if (st.cut)
		fprintf(f, "%-14s %15" PRIu64 "  (records cut by the capture's snaplen, sent as captured)\n",
			"cut records", st.cut);
}

/* The frames mode entry of the mode table. */
const struct replay_mode replay_mode_frames = {
	.name = "frames",
	.help = "the raw frames out of a DPDK port (--port), a traffic generator",
	.check = replay_frames_mode_check,
	.setup = replay_frames_mode_setup,
	.send = replay_frames_mode_send,
	.flush = replay_frames_mode_flush,
	.report = replay_frames_mode_report,
	.dropped = replay_frames_mode_dropped,
	.teardown = replay_frames_mode_teardown,
};
