/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames mode as an entry of the mode table: the ethdev named by --port,
 * brought up with dp_ethdev, and replay_frames over a dp_port on its queue
 * pair 0. A trace whose longest frame needs a larger MTU than segnet's
 * gets it when the device takes it (dp_ethdev_conf.mtu), said up front;
 * when it does not, the frames it cannot send are left out (too long),
 * and the reason said. Nothing is received: the receive queue only exists
 * because ethdevs need one (with buffers for the MTU asked for, which some
 * drivers check).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_ether.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "pcap/replay/replay_frames.h"

enum {
	/* Frames of the receive pool: the receive ring and some slack. */
	REPLAY_RX_POOL = 2048,
	/* ... and with receive buffers for a larger MTU than segnet's (each up to 64 KiB) */
	REPLAY_RX_POOL_JUMBO = 512,
	/* receive descriptors then (a NIC fills its ring from the pool) */
	REPLAY_RX_DESC_JUMBO = 256,
	/* bytes those buffers hold beyond the frame (CRC, tags, virtio header), rounded up to 1 KiB */
	REPLAY_RX_SLACK = 128,
};

/* Frames mode's state. */
struct replay_frames_mode {
	/* the device */
	struct dp_ethdev dev;
	/* the port on its queue pair 0 */
	struct dp_port *port;
	/* the frames */
	struct replay_frames *f;
	/*
	 * the MTU the trace's longest frame needs (replay_frames_mtu_needed),
	 * once the port is set up as its VLAN tags count there
	 */
	uint32_t mtu_needed;
	/* that frame (a copy: the trace is compacted when frames are left out) */
	struct trace_rec longest;
	/* a receive pool made for a larger MTU, or NULL (the shared one) */
	struct rte_mempool *rx_jumbo;
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
		replay_frames_close_wait(fm->f);
	dp_ethdev_close(&fm->dev);
	dp_port_destroy(fm->port);
	replay_frames_free(fm->f);
	rte_mempool_free(fm->rx_jumbo);
	free(fm);
}

/* Say up front that the port got a larger MTU than segnet's, and for what. */
static void replay_frames_mode_say_mtu(const struct replay_frames_mode *fm)
{
	if (fm->dev.mtu <= DP_ETHDEV_MTU)
		return;
	printf("segnet-replay: port %s: MTU raised to %u (segnet's is %u) ", fm->dev.name,
	       fm->dev.mtu, DP_ETHDEV_MTU);
	if (fm->dev.mtu < fm->mtu_needed)
		printf("as far as it goes, short of the %u ", fm->mtu_needed);
	printf("for the trace's longest frame (record %" PRIu64 ", %u bytes)\n",
	       fm->longest.index, fm->longest.caplen);
}

/*
 * Say up front which records will not be sent, too short or too long for
 * the port, and why the port has no larger MTU, when a larger one was
 * asked for.
 */
static void replay_frames_mode_warn_long(const struct replay_frames_mode *fm)
{
	struct replay_frames_stats st;
	char lim[128];

	replay_frames_get_stats(fm->f, &st);
	if (st.too_short)
		fprintf(stderr, "segnet-replay: %" PRIu64 " record%s shorter than an Ethernet header (%d bytes)"
			" left out, not sent (the first: record %" PRIu64 ", %u bytes, at byte offset %" PRIu64 ")\n",
			st.too_short, st.too_short == 1 ? "" : "s", RTE_ETHER_HDR_LEN,
			st.first_too_short.index, st.first_too_short.caplen, st.first_too_short.offset);
	if (st.too_long == 0)
		return;
	if (fm->dev.mtu_note[0])
		fprintf(stderr, "segnet-replay: port %s: the trace's longest frame (record %" PRIu64
			", %u bytes) needs MTU %u, which the port cannot have: %s\n",
			fm->dev.name, fm->longest.index, fm->longest.caplen, fm->mtu_needed,
			fm->dev.mtu_note);
	fprintf(stderr, "segnet-replay: port %s sends frames of %s: %" PRIu64
		" longer record%s left out, not sent (the first: record %" PRIu64
		", %u bytes, at byte offset %" PRIu64 ")\n",
		fm->dev.name, dp_frame_limit_describe(&st.limit, lim, sizeof(lim)), st.too_long,
		st.too_long == 1 ? "" : "s", st.first_too_long.index, st.first_too_long.caplen,
		st.first_too_long.offset);
}

/*
 * The receive pool: the shared one of segnet frames, or, for an MTU larger
 * than they need, a smaller one with buffers for its frames (a driver may
 * refuse an MTU its receive buffers cannot hold: net_null, af_packet's
 * slots). NULL with errno and a message.
 */
static struct rte_mempool *replay_frames_mode_rx_pool(struct replay_frames_mode *fm,
						      struct dp_ethdev_conf *dc,
						      char *err, size_t errlen)
{
	uint32_t room = (fm->mtu_needed + DP_FRAME_ETH_HDR + REPLAY_RX_SLACK + 1023) / 1024 * 1024;

	if (fm->mtu_needed <= DP_ETHDEV_MTU)
		return dp_pool_for_socket("replay-rx", SOCKET_ID_ANY, REPLAY_RX_POOL, err, errlen);
	if (room > REPLAY_FRAMES_MBUF_MAX)
		room = REPLAY_FRAMES_MBUF_MAX;
	dc->rx_desc = REPLAY_RX_DESC_JUMBO;
	fm->rx_jumbo = rte_pktmbuf_pool_create("replay-rx-jumbo", REPLAY_RX_POOL_JUMBO, 0, 0,
					       (uint16_t)(RTE_PKTMBUF_HEADROOM + room),
					       SOCKET_ID_ANY);
	if (fm->rx_jumbo == NULL) {
		errno = rte_errno;
		snprintf(err, errlen, "cannot create a receive pool of %u frames of %u bytes: %s",
			 REPLAY_RX_POOL_JUMBO, room, rte_strerror(rte_errno));
	}
	return fm->rx_jumbo;
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
	const struct trace_rec *longest, *longest_ctag;
	struct rte_mempool *rx;
	uint32_t mtu_ctag;
	int rc;

	if (fm == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fm->dev.port_id = RTE_MAX_ETHPORTS;
	*state = fm;
	/* What the frames need where every tag adds to the limit, and on af_packet. */
	fm->mtu_needed = replay_frames_mtu_needed(env->trace, NULL, &longest);
	dc.mtu = fm->mtu_needed > UINT16_MAX ? UINT16_MAX : (uint16_t)fm->mtu_needed;
	mtu_ctag = replay_frames_mtu_needed(env->trace, &dp_frame_rule_one_ctag, &longest_ctag);
	dc.mtu_one_ctag = mtu_ctag > UINT16_MAX ? UINT16_MAX : (uint16_t)mtu_ctag;
	rx = replay_frames_mode_rx_pool(fm, &dc, err, errlen);
	if (rx == NULL)
		return -errno;
	rc = dp_ethdev_setup(o->port, &dc, rx, &fm->dev, err, errlen);
	if (rc)
		return rc;
	/* As the port counts tags: every one, or one 802.1Q (af_packet, dp_frame_rule_one_ctag). */
	if (fm->dev.limit.untagged && fm->dev.limit.ctag_only) {
		fm->mtu_needed = mtu_ctag;
		longest = longest_ctag;
	}
	if (longest != NULL)
		fm->longest = *longest;
	replay_frames_mode_say_mtu(fm);
	fm->port = dp_ethdev_port_create(&fm->dev, 0, 0);
	if (fm->port == NULL) {
		snprintf(err, errlen, "port %s: cannot make a port on it", o->port);
		return -ENOMEM;
	}
	fc.socket = fm->dev.socket;
	fc.limit = fm->dev.limit;
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

/* Frames not sent so far: dropped, or too short or too long for the port. */
static uint64_t replay_frames_mode_dropped(void *state)
{
	struct replay_frames_stats st;

	replay_frames_get_stats(((struct replay_frames_mode *)state)->f, &st);
	return st.dropped + st.too_long + st.too_short;
}

/* The port's lines of the report. */
static void replay_frames_mode_report(void *state, FILE *f)
{
	struct replay_frames_mode *fm = state;
	struct replay_frames_stats st;
	char lim[128];

	replay_frames_get_stats(fm->f, &st);
	fprintf(f, "%-14s %15s  (%s)\n", "port", fm->dev.name,
		st.prebuilt ? "frames prebuilt in mbufs" : "frames copied at send time");
	if (fm->dev.mtu > DP_ETHDEV_MTU)
		fprintf(f, "%-14s %15u  (raised from segnet's %u for the trace's longest frame)\n",
			"mtu", fm->dev.mtu, DP_ETHDEV_MTU);
	fprintf(f, "%-14s %15" PRIu64 "\n", "frames sent", st.sent);
	fprintf(f, "%-14s %15" PRIu64 "\n", "bytes sent", st.bytes);
	fprintf(f, "%-14s %15" PRIu64 "  (bursts the port did not take whole at the first transmit call)\n",
		"tx busy", st.tx_busy);
	fprintf(f, "%-14s %15" PRIu64 "  (frames of those bursts it did not take then: retried, or dropped)\n",
		"tx waited", st.tx_waited);
	fprintf(f, "%-14s %15" PRIu64 "\n", "dropped", st.dropped);
	if (st.stalls)
		fprintf(f, "%-14s %15" PRIu64 "  (times the port took nothing for %llu s: later bursts not retried until it took a frame)\n",
			"stalls", st.stalls, REPLAY_FRAMES_STALL_NS / 1000000000ull);
	if (st.too_short)
		fprintf(f, "%-14s %15" PRIu64 "  (records shorter than an Ethernet header, %d bytes, not sent)\n",
			"too short", st.too_short, RTE_ETHER_HDR_LEN);
	if (st.too_long)
		fprintf(f, "%-14s %15" PRIu64 "  (records longer than the port's frames of %s, not sent)\n",
			"too long", st.too_long, dp_frame_limit_describe(&st.limit, lim, sizeof(lim)));
	if (st.cut)
		fprintf(f, "%-14s %15" PRIu64 "  (records cut by the capture's snaplen, sent as captured)\n",
			"cut records", st.cut);
}

/* The frames mode entry of the mode table. */
/* Frames mode sends Ethernet frames only: refuse another trace before the EAL. */
static int replay_frames_mode_check_trace(const struct trace *t, char *err, size_t errlen)
{
	return replay_trace_ethernet(t, REPLAY_FRAMES_ETHERNET, err, errlen);
}

const struct replay_mode replay_mode_frames = {
	.name = "frames",
	.help = "the raw frames out of a DPDK port (--port), a traffic generator",
	.check = replay_frames_mode_check,
	.check_trace = replay_frames_mode_check_trace,
	.setup = replay_frames_mode_setup,
	.send = replay_frames_mode_send,
	.flush = replay_frames_mode_flush,
	.report = replay_frames_mode_report,
	.dropped = replay_frames_mode_dropped,
	.teardown = replay_frames_mode_teardown,
};
