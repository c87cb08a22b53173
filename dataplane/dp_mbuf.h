/* SPDX-License-Identifier: BSD-3-Clause */
/* Mempools sized for segnet frames. */
#ifndef SEGNET_DP_MBUF_H
#define SEGNET_DP_MBUF_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "proto/proto.h"

enum {
	/* Largest frame: a BREQ (grant slot, arguments) with a full payload. */
	DP_MAX_FRAME = PROTO_ETH_LEN + PROTO_HDR_LEN +
		       sizeof(struct proto_breq_body) + PROTO_MAX_PAYLOAD +
		       PROTO_CRC_LEN,
	/* Data room after the headroom: the largest frame, rounded up. */
	DP_MBUF_DATA = 2304,
	/* Per-frame bytes on the wire beyond the frame: FCS, preamble, gap. */
	DP_WIRE_OVERHEAD = 24,
};

/*
 * A pktmbuf pool of n frames big enough for any segnet frame, on NUMA
 * socket `socket` (SOCKET_ID_ANY for any). NULL with rte_errno on failure.
 */
struct rte_mempool *dp_pool_create(const char *name, unsigned int n, int socket);

/* A frame of len bytes (uninitialised), or NULL when the pool is empty. */
static inline struct rte_mbuf *dp_frame_alloc(struct rte_mempool *mp, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	if (m) {
		m->data_len = len;
		m->pkt_len = len;
	}
	return m;
}

/* A private copy of a single-segment frame, or NULL. */
struct rte_mbuf *dp_frame_copy(struct rte_mempool *mp, const struct rte_mbuf *m);

/* Picoseconds one byte takes on a link of gbps Gbit/s. */
static inline double dp_ps_per_byte(double gbps)
{
	return 8000.0 / gbps;
}

/*
 * Picoseconds a frame of len bytes occupies a link whose byte takes
 * ps_per_byte (dp_ps_per_byte, kept with the link: per-frame paths need no
 * division).
 */
static inline uint64_t dp_wire_ps_at(uint32_t len, double ps_per_byte)
{
	uint32_t l = len < PROTO_MIN_FRAME ? PROTO_MIN_FRAME : len;

	return (uint64_t)((double)(l + DP_WIRE_OVERHEAD) * ps_per_byte + 0.5);
}

/* Picoseconds a frame of len bytes occupies a link of gbps Gbit/s. */
static inline uint64_t dp_wire_ps(uint32_t len, double gbps)
{
	return dp_wire_ps_at(len, dp_ps_per_byte(gbps));
}

/*
 * Link times in picoseconds count from an epoch, not from the clock's zero:
 * the TSC counts from boot, and ps since then overflow 64 bits after 213
 * days. The epoch starts at 0 and moves to now once now is a day past it
 * (at the first frame on a host that has been up longer); whoever keeps
 * link times then subtracts the shift dp_ps_epoch_move returns from each
 * (dp_ps_rebase).
 */
struct dp_ps_epoch {
	uint64_t ns;			/* clock reading (ns) of ps time 0 */
};

enum { DP_PS_EPOCH_SPAN_S = 86400 };	/* how far the epoch may lag: a day */

/* now (ns) as ps since the epoch (at most 213 days after it). */
static inline uint64_t dp_ps_since(const struct dp_ps_epoch *e, uint64_t now)
{
	return (now - e->ns) * 1000;
}

/* True when the epoch should move (see dp_ps_epoch_move). */
static inline bool dp_ps_epoch_due(const struct dp_ps_epoch *e, uint64_t now)
{
	return now - e->ns > DP_PS_EPOCH_SPAN_S * 1000000000ull;
}

/* Move the epoch to now; the ps to subtract from every link time kept. */
static inline uint64_t dp_ps_epoch_move(struct dp_ps_epoch *e, uint64_t now)
{
	uint64_t shift = dp_ps_since(e, now);

	e->ns = now;
	return shift;
}

/* A link time after the epoch moved by shift (times before it become 0). */
static inline uint64_t dp_ps_rebase(uint64_t t, uint64_t shift)
{
	return t > shift ? t - shift : 0;
}

#endif
