/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames mode of segnet-replay: the raw frames of a trace out of one
 * dp_port. Records longer than the port sends (its dp_frame_limit: VLAN
 * tags may add to it) leave the trace before the replay (counted as too
 * long, never offered to the port: drivers drop such frames silently and
 * count them sent). replay_frames_mtu_needed says what MTU the trace needs,
 * for the port to be given it first. Each record's frame is built in an
 * mbuf once, before the replay starts, when the trace fits
 * (REPLAY_FRAMES_PREBUILD_*): sending it is then a reference count
 * increment and a transmit call, whatever the loop. Larger traces are
 * copied into an mbuf at send time. Records shorter than an Ethernet
 * header are left out too (too short: a runt a driver would pad, or flag).
 * A full transmit queue is retried, not dropped; a queue that takes
 * nothing for REPLAY_FRAMES_STALL_NS of the replay's watching (a stretch in
 * which the replay did not run counts as REPLAY_GAP_NS) loses the
 * burst (counted), and from then on, until it takes a frame again, every
 * burst is offered once and what it does not take is dropped at once (no
 * second wait per burst).
 */
#ifndef SEGNET_PCAP_REPLAY_FRAMES_H
#define SEGNET_PCAP_REPLAY_FRAMES_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>

#include "dataplane/dp_frame_limit.h"
#include "dataplane/dp_port.h"
#include "pcap/reader.h"
#include "pcap/replay/replay.h"

/* Limits of frames mode. */
enum {
	/* prebuild every frame when the trace has at most this many records */
	REPLAY_FRAMES_PREBUILD_RECORDS = 1 << 20,
	/* ... and its mbufs take at most this many bytes */
	REPLAY_FRAMES_PREBUILD_BYTES = 256 << 20,
	/* mbufs of the pool when frames are copied at send time */
	REPLAY_FRAMES_COPY_POOL = 4096,
};

/*
 * A transmit queue that takes nothing for this long loses the burst (ns of
 * watched time: see REPLAY_GAP_NS).
 */
#define REPLAY_FRAMES_STALL_NS (1000ull * 1000 * 1000)

/*
 * Time the port's peer gets to take the last frames before the port closes
 * (ns of watched time): a memif or vhost ring is unmapped with whatever the
 * peer has not read, and neither driver says what it has read.
 */
#define REPLAY_FRAMES_CLOSE_NS (100ull * 1000 * 1000)

/* That time is slept in steps this long (ns), each a look at the clock. */
#define REPLAY_FRAMES_CLOSE_STEP_NS (1000ull * 1000)

/* What frames mode counted. */
struct replay_frames_stats {
	/* frames the port took */
	uint64_t sent;
	/* bytes of those frames */
	uint64_t bytes;
	/* bursts the port did not take whole at their first transmit call */
	uint64_t tx_busy;
	/* frames of those bursts it did not take then: retried, or dropped */
	uint64_t tx_waited;
	/* frames dropped after a stalled queue or with no mbuf */
	uint64_t dropped;
	/* times the queue took nothing for the stall time-out */
	uint64_t stalls;
	/* records sent shorter than on the wire (cut by the capture's snaplen) */
	uint64_t cut;
	/* frames built in mbufs before the replay (0: copied at send time) */
	uint64_t prebuilt;
	/* records longer than limit, left out of the trace: never sent */
	uint64_t too_long;
	/* the first of them, as it was in the trace (valid when too_long) */
	struct trace_rec first_too_long;
	/* records shorter than an Ethernet header, left out of the trace: never sent */
	uint64_t too_short;
	/* the first of them, as it was in the trace (valid when too_short) */
	struct trace_rec first_too_short;
	/* frames sent at most: the port's limit, within an mbuf's */
	struct dp_frame_limit limit;
};

/* How to build frames mode over a port. */
struct replay_frames_conf {
	/* NUMA socket of the frame pool (SOCKET_ID_ANY for any) */
	int socket;
	/* records per flush at most (1 .. REPLAY_BURST_MAX) */
	unsigned int burst;
	/* clock for the stall time-out */
	struct waiter_clock clock;
	/* a set flag ends retries at once; may be NULL */
	const volatile sig_atomic_t *stop;
	/* copy at send time even when the trace could be prebuilt */
	bool no_prebuild;
	/* frames the port sends (dp_ethdev.limit); zeroed: only an mbuf's limit */
	struct dp_frame_limit limit;
};

/* Longest frame an mbuf of frames mode holds. */
enum { REPLAY_FRAMES_MBUF_MAX = UINT16_MAX - RTE_PKTMBUF_HEADROOM };

/*
 * MTU the longest frame of t needs on a port whose VLAN tags count as
 * rule's (dp_frame_mtu_needed; NULL: every tag); *rec (may be NULL) is that
 * record, or NULL when t has none or is not Ethernet (then 0).
 */
uint32_t replay_frames_mtu_needed(const struct trace *t, const struct dp_frame_limit *rule,
				  const struct trace_rec **rec);

/* Frames mode over one port; opaque. */
struct replay_frames;

/* Why frames mode refuses a trace of another link type than Ethernet. */
#define REPLAY_FRAMES_ETHERNET "frames mode sends Ethernet frames"

/*
 * Frames mode sending t's frames on port (which stays the caller's).
 * Records longer than c->limit allows (or an mbuf), and records shorter
 * than an Ethernet header, leave t, which is compacted, and are counted
 * (too_long, too_short). NULL with errno and a message: the trace is not
 * Ethernet (EPROTONOSUPPORT), every record is too long or too short
 * (EMSGSIZE), no memory for the pool.
 */
struct replay_frames *replay_frames_create(struct dp_port *port, struct trace *t,
					   const struct replay_frames_conf *c,
					   char *err, size_t errlen);

/*
 * Queue record rec, an element of the trace's recs. 0; -EAGAIN when the
 * frames queued must be flushed first (the queue is full, or no mbuf is
 * free while some wait: the port frees them as it sends), then rec queued
 * again; -ENOBUFS when no mbuf came free within the stall time-out
 * (counted as dropped).
 */
int replay_frames_queue(struct replay_frames *f, const struct trace_rec *rec);

/*
 * Send the queued frames in order, retrying while the port takes some
 * within the stall time-out; returns how many the port took. After a stall
 * the frames the port does not take at the first offer are dropped, until
 * it takes one again.
 */
unsigned int replay_frames_flush(struct replay_frames *f);

/*
 * Sleep on f's clock until the port's peer has had REPLAY_FRAMES_CLOSE_NS
 * of watched time to take the frames sent: a stretch in which the replay
 * did not run (the machine paused) counts as REPLAY_GAP_NS, so the
 * peer still gets its time after it. Call it before closing the port.
 */
void replay_frames_close_wait(const struct replay_frames *f);

/* The counters. */
void replay_frames_get_stats(const struct replay_frames *f, struct replay_frames_stats *out);

/*
 * Free the mode's frames and pool (NULL is allowed); the port stays. Call
 * it once the port holds none of the frames it was given (close the ethdev
 * first: a driver may keep sent mbufs until its transmit ring wraps).
 */
void replay_frames_free(struct replay_frames *f);

#endif /* SEGNET_PCAP_REPLAY_FRAMES_H */
