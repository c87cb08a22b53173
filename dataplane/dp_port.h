/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port interface. Components (the switch fabric, the NIC) only ever see
 * a struct dp_port: an ethdev queue pair, a simulated link, or a wrapper
 * (fault injection). Frames are single-segment mbufs.
 */
#ifndef SEGNET_DP_PORT_H
#define SEGNET_DP_PORT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "dp_counters.h"

struct dp_port;

/* A backend's implementation of a port. */
struct dp_port_ops {
	const char *kind;	/* "ethdev", "sim", "fault" */
	/* Receive up to n frames; returns how many. */
	uint16_t (*rx)(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n);
	/* Send up to n frames; returns how many were taken. */
	uint16_t (*tx)(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n);
	/* Release the port and what it holds. */
	void (*destroy)(struct dp_port *port);
	/* Rate frames leave at, Gbit/s; 0 if unknown. Optional (NULL: unknown). */
	double (*tx_gbps)(const struct dp_port *port);
	/* True while the port passes nothing (its device stopped). Optional (NULL: never). */
	bool (*down)(const struct dp_port *port);
};

/* Which way a frame crossed a port, for taps. */
enum dp_dir {
	DP_DIR_RX,
	DP_DIR_TX,
};

/* Observer of every frame crossing a port (capture to pcap). */
struct dp_tap {
	/* Called with the frames a port sent (after the send) or received. */
	void (*frames)(void *ctx, const struct dp_port *port, enum dp_dir dir,
		       struct rte_mbuf *const *pkts, uint16_t n);
	void *ctx;	/* passed to frames */
};

#define DP_PORT_COUNTERS(X) \
	X(rx_frames, "frames received") \
	X(rx_bytes, "bytes received") \
	X(tx_frames, "frames sent") \
	X(tx_bytes, "bytes sent") \
	X(tx_full, "frames dropped because the transmit queue was full") \
	X(tx_down, "frames dropped because the port was down (its device stopped)")

/* Per-port counters. */
struct dp_port_stats {
	DP_PORT_COUNTERS(DP_COUNTER_FIELD)
};

/* Names of struct dp_port_stats fields, in order. */
extern const char *const dp_port_counter_names[];

/* A port as components see it. Backends embed it first in their struct. */
struct dp_port {
	const struct dp_port_ops *ops;	/* backend */
	char name[48];			/* for logs and counters */
	struct dp_port_stats stats;	/* written by the polling core */
	const struct dp_tap *tap;	/* optional observer */
};

/* Receive a burst; counts it and shows it to the tap. */
static inline uint16_t dp_port_rx(struct dp_port *port, struct rte_mbuf **pkts,
				  uint16_t n)
{
	uint16_t got = port->ops->rx(port, pkts, n);

	port->stats.rx_frames += got;
	for (uint16_t i = 0; i < got; i++)
		port->stats.rx_bytes += pkts[i]->pkt_len;
	if (got && port->tap)
		port->tap->frames(port->tap->ctx, port, DP_DIR_RX, pkts, got);
	return got;
}

/*
 * Hand a burst to the backend and count what it took; returns that. A tap
 * sees only the frames taken (the wire), so it holds a reference to every
 * frame across the send: a taken frame may be freed by the backend at once.
 */
static inline uint16_t dp_port_tx_taken(struct dp_port *port, struct rte_mbuf **pkts,
					uint16_t n)
{
	uint16_t sent;

	/* Counted before: a taken frame is the backend's, not to be read after. */
	for (uint16_t i = 0; i < n; i++)
		port->stats.tx_bytes += pkts[i]->pkt_len;
	if (!port->tap) {
		sent = port->ops->tx(port, pkts, n);
	} else {
		for (uint16_t i = 0; i < n; i++)
			rte_pktmbuf_refcnt_update(pkts[i], 1);
		sent = port->ops->tx(port, pkts, n);
		if (sent)
			port->tap->frames(port->tap->ctx, port, DP_DIR_TX, pkts, sent);
		rte_pktmbuf_free_bulk(pkts, n);	/* the tap's references */
	}
	port->stats.tx_frames += sent;
	for (uint16_t i = sent; i < n; i++)
		port->stats.tx_bytes -= pkts[i]->pkt_len;
	return sent;
}

/* True while port passes nothing: its device is stopped (waiting for its link). */
static inline bool dp_port_down(const struct dp_port *port)
{
	return port->ops->down && port->ops->down(port);
}

/* Frames the port dropped on sending: its queue was full, or it was down. */
static inline uint64_t dp_port_tx_dropped(const struct dp_port *port)
{
	return port->stats.tx_full + port->stats.tx_down;
}

/*
 * Send a burst. The port takes every frame: what the backend cannot queue
 * is freed and counted in tx_full, or in tx_down while the port is down.
 */
static inline void dp_port_tx(struct dp_port *port, struct rte_mbuf **pkts,
			      uint16_t n)
{
	uint16_t sent;

	if (n == 0)
		return;
	sent = dp_port_tx_taken(port, pkts, n);
	if (sent < n) {
		if (dp_port_down(port))
			port->stats.tx_down += n - sent;
		else
			port->stats.tx_full += n - sent;
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
}

/*
 * Send a burst without dropping: returns how many frames the backend took
 * (counted like dp_port_tx); the others stay the caller's, to send again or
 * free. For senders that must not lose frames (a traffic generator).
 */
static inline uint16_t dp_port_tx_keep(struct dp_port *port, struct rte_mbuf **pkts,
				       uint16_t n)
{
	return n ? dp_port_tx_taken(port, pkts, n) : 0;
}

/* Send one frame. */
static inline void dp_port_tx1(struct dp_port *port, struct rte_mbuf *m)
{
	dp_port_tx(port, &m, 1);
}

enum {
	/* Frames a transmit buffer holds before it sends them. */
	DP_TXBUF_LEN = 32,
};

/*
 * Frames for one port gathered during a poll and sent in one burst: a
 * driver call per frame costs more than the frame (memif: ring indexes,
 * barriers). Frames leave in the order they were added.
 */
struct dp_txbuf {
	struct dp_port *port;			/* where they go */
	uint16_t n;				/* frames held */
	struct rte_mbuf *pkts[DP_TXBUF_LEN];	/* the frames */
};

/* Send what the buffer holds. */
static inline void dp_txbuf_flush(struct dp_txbuf *b)
{
	dp_port_tx(b->port, b->pkts, b->n);
	b->n = 0;
}

/* Add a frame: sent when the buffer fills, or at dp_txbuf_flush. */
static inline void dp_txbuf_add(struct dp_txbuf *b, struct rte_mbuf *m)
{
	b->pkts[b->n++] = m;
	if (b->n == DP_TXBUF_LEN)
		dp_txbuf_flush(b);
}

/*
 * The rate the port sends at, in Gbit/s, so a sender can tell from the wire
 * time of what it sent how long its transmit queue is; 0 when unknown.
 */
static inline double dp_port_tx_gbps(const struct dp_port *port)
{
	return port->ops->tx_gbps ? port->ops->tx_gbps(port) : 0;
}

/* Destroy a port (NULL is ignored). */
static inline void dp_port_destroy(struct dp_port *port)
{
	if (port)
		port->ops->destroy(port);
}

/* Counter view of a port. */
static inline struct dp_counter_set dp_port_counters(const struct dp_port *port)
{
	return DP_COUNTER_SET(port->name, dp_port_counter_names, &port->stats);
}

#endif
