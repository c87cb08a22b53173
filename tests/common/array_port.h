/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the unit tests and the fuzz harnesses share to drive a component
 * without NICs: EAL set-up without hugepages or PCI, and an array port
 * (struct dp_port_ops over two arrays) so the caller decides exactly what
 * one rx burst returns and sees every frame a component sends. No test
 * framework: failures are return values, and tests/unit/test_dp_util.h
 * turns them into Criterion assertions.
 */
#ifndef SEGNET_TEST_ARRAY_PORT_H
#define SEGNET_TEST_ARRAY_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "dataplane/dp_mbuf.h"
#include "dataplane/dp_port.h"
#include "proto/proto.h"

/*
 * Start the EAL once in this process: no hugepages, no PCI, one lcore,
 * only errors logged. 0, or -1 when rte_eal_init fails.
 */
static inline int tdp_eal_start(void)
{
	static bool done;
	char *argv[] = {
		"segnet-test", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
		"--no-telemetry", "-l", "0", "--log-level", "*:error", NULL,
	};

	if (done)
		return 0;
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0)
		return -1;
	done = true;
	return 0;
}

/* An array port: rx returns what the caller queued, tx keeps what was sent. */
struct tport {
	/* must be first: the port components see */
	struct dp_port port;
	/* frames rx will return, oldest at in_head */
	struct rte_mbuf **in;
	/* next frame rx returns */
	unsigned int in_head;
	/* frames queued for rx */
	unsigned int in_len;
	/* entries of in */
	unsigned int in_cap;
	/* frames sent through the port, in order */
	struct rte_mbuf **out;
	/* entries used in out */
	unsigned int out_len;
	/* entries of out */
	unsigned int out_cap;
	/* when non-zero, tx takes at most this many frames per burst */
	unsigned int tx_limit;
	/* the rate tx_gbps reports (0: unknown) */
	double gbps;
	/* when true the port passes nothing, as a stopped device: tx takes no frame */
	bool down;
};

/* The array port behind port. */
static inline struct tport *tport_of(struct dp_port *port)
{
	return (struct tport *)port;
}

/* Hand out queued frames. */
static inline uint16_t tport_rx(struct dp_port *port, struct rte_mbuf **pkts,
				uint16_t n)
{
	struct tport *t = tport_of(port);
	uint16_t got = 0;

	while (got < n && t->in_len) {
		pkts[got++] = t->in[t->in_head];
		t->in_head = (t->in_head + 1) % t->in_cap;
		t->in_len--;
	}
	return got;
}

/* Keep sent frames in order, up to out_cap (and tx_limit per burst). */
static inline uint16_t tport_tx(struct dp_port *port, struct rte_mbuf **pkts,
				uint16_t n)
{
	struct tport *t = tport_of(port);
	uint16_t i;

	if (t->down)
		return 0;
	for (i = 0; i < n && t->out_len < t->out_cap; i++) {
		if (t->tx_limit && i >= t->tx_limit)
			break;
		t->out[t->out_len++] = pkts[i];
	}
	return i;
}

/* Free what the port still holds. */
static inline void tport_destroy(struct dp_port *port)
{
	struct tport *t = tport_of(port);

	while (t->in_len) {
		rte_pktmbuf_free(t->in[t->in_head]);
		t->in_head = (t->in_head + 1) % t->in_cap;
		t->in_len--;
	}
	for (unsigned int i = 0; i < t->out_len; i++)
		rte_pktmbuf_free(t->out[i]);
	free(t->in);
	free(t->out);
	free(t);
}

/* The rate the caller set. */
static inline double tport_tx_gbps(const struct dp_port *port)
{
	return ((const struct tport *)port)->gbps;
}

/* What the caller set. */
static inline bool tport_down(const struct dp_port *port)
{
	return ((const struct tport *)port)->down;
}

/* The array port's operations. */
static const struct dp_port_ops tport_ops = {
	.kind = "test",
	.rx = tport_rx,
	.tx = tport_tx,
	.destroy = tport_destroy,
	.tx_gbps = tport_tx_gbps,
	.down = tport_down,
};

/* A new array port holding up to cap frames each way, or NULL. */
static inline struct dp_port *tport_new(const char *name, unsigned int cap)
{
	struct tport *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->in = calloc(cap, sizeof(*t->in));
	t->out = calloc(cap, sizeof(*t->out));
	if (!t->in || !t->out) {
		free(t->in);
		free(t->out);
		free(t);
		return NULL;
	}
	t->in_cap = cap;
	t->out_cap = cap;
	t->port.ops = &tport_ops;
	snprintf(t->port.name, sizeof(t->port.name), "%s", name);
	return &t->port;
}

/* Queue frame m for the next rx of port; false (m not taken) when full. */
static inline bool tport_queue(struct dp_port *port, struct rte_mbuf *m)
{
	struct tport *t = tport_of(port);

	if (t->in_len == t->in_cap)
		return false;
	t->in[(t->in_head + t->in_len) % t->in_cap] = m;
	t->in_len++;
	return true;
}

/* Frames sent on port so far. */
static inline unsigned int tport_sent(struct dp_port *port)
{
	return tport_of(port)->out_len;
}

/* Frame i of those sent on port. */
static inline struct rte_mbuf *tport_frame(struct dp_port *port, unsigned int i)
{
	return tport_of(port)->out[i];
}

/* Forget the frames sent on port without freeing them (the caller took them). */
static inline void tport_forget(struct dp_port *port)
{
	tport_of(port)->out_len = 0;
}

/* Free every frame sent on port so far. */
static inline void tport_clear(struct dp_port *port)
{
	struct tport *t = tport_of(port);

	for (unsigned int i = 0; i < t->out_len; i++)
		rte_pktmbuf_free(t->out[i]);
	t->out_len = 0;
}

/*
 * Encode p into a new frame from mp; NULL when the pool is empty or
 * proto_encode refuses p (its result in *rc, 0 for an empty pool).
 */
static inline struct rte_mbuf *tdp_frame(struct rte_mempool *mp,
					 const struct proto_pkt *p, int *rc)
{
	struct rte_mbuf *m = dp_frame_alloc(mp, (uint16_t)proto_frame_len(p));

	*rc = 0;
	if (!m)
		return NULL;
	*rc = proto_encode(p, rte_pktmbuf_mtod(m, void *), m->buf_len - m->data_off);
	if (*rc > 0)
		return m;
	rte_pktmbuf_free(m);
	return NULL;
}

/* Decode frame m into p; returns the reason (CRC checked). */
static inline enum proto_reason tdp_decode(const struct rte_mbuf *m,
					   struct proto_pkt *p)
{
	return proto_decode(rte_pktmbuf_mtod(m, const void *), m->data_len, NULL, p);
}

#endif
