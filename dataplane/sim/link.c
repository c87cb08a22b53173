/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Simulated links. Each direction serializes frames one after another at its
 * rate (time kept in picoseconds so rounding never accumulates), then the
 * frame travels for the propagation delay and lands in the receiving port's
 * queue, which wakes the receiving actor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "dataplane/dp_mbuf.h"
#include "sim_priv.h"

const char *const sim_port_counter_names[] = {
	SIM_LINK_COUNTERS(DP_COUNTER_NAME)
};

/* One end of a simulated link. */
struct sim_port {
	struct dp_port port;		/* must be first */
	struct sim_engine *eng;		/* the engine it lives in */
	int owner;			/* actor polled when frames arrive */
	struct sim_port *peer;		/* the other end */
	struct sim_link_params lp;	/* the direction leaving this port */
	double ps_per_byte;		/* its byte time (dp_ps_per_byte) */
	uint64_t busy_until_ps;		/* end of the last serialization */
	uint32_t inflight;		/* frames sent, not yet delivered */
	struct rte_mbuf **rxq;		/* arrived frames, a ring */
	uint32_t rx_head;		/* next to poll */
	uint32_t rx_count;		/* frames in the ring */
	struct sim_port_stats stats;	/* drops */
};

/* Container of a port. */
static struct sim_port *sim_of(struct dp_port *port)
{
	return (struct sim_port *)port;
}

int sim_port_owner(const struct sim_port *port)
{
	return port->owner;
}

void sim_port_deliver(struct sim_port *p, struct rte_mbuf *m)
{
	p->peer->inflight--;
	if (p->rx_count == p->lp.rx_queue) {
		p->stats.rx_queue_full++;
		rte_pktmbuf_free(m);
		return;
	}
	p->rxq[(p->rx_head + p->rx_count) % p->lp.rx_queue] = m;
	p->rx_count++;
}

/* Take up to n arrived frames. */
static uint16_t sim_rx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct sim_port *p = sim_of(port);
	uint16_t got = 0;

	while (got < n && p->rx_count) {
		pkts[got++] = p->rxq[p->rx_head];
		p->rx_head = (p->rx_head + 1) % p->lp.rx_queue;
		p->rx_count--;
	}
	return got;
}

/* Serialize frames onto the link; stops when its queue is full. */
static uint16_t sim_tx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct sim_port *p = sim_of(port);
	uint64_t now_ps = sim_engine_now(p->eng) * 1000;
	uint16_t i;

	for (i = 0; i < n; i++) {
		uint64_t start, arrive;

		if (p->inflight >= p->lp.tx_queue) {
			p->stats.tx_queue_full += n - i;
			break;
		}
		start = p->busy_until_ps > now_ps ? p->busy_until_ps : now_ps;
		p->busy_until_ps = start + dp_wire_ps_at(pkts[i]->data_len, p->ps_per_byte);
		arrive = (p->busy_until_ps + 999) / 1000 + p->lp.prop_ns;
		if (sim_engine_deliver_at(p->eng, arrive, p->peer, pkts[i]))
			break;
		p->inflight++;
	}
	return i;
}

/* Free a port and the frames waiting in it. */
static void sim_destroy(struct dp_port *port)
{
	struct sim_port *p = sim_of(port);

	while (p->rx_count) {
		rte_pktmbuf_free(p->rxq[p->rx_head]);
		p->rx_head = (p->rx_head + 1) % p->lp.rx_queue;
		p->rx_count--;
	}
	if (p->peer)
		p->peer->peer = NULL;
	free(p->rxq);
	free(p);
}

/* The link's serialization rate. */
static double sim_tx_gbps(const struct dp_port *port)
{
	return ((const struct sim_port *)port)->lp.gbps;
}

static const struct dp_port_ops sim_ops = {
	.kind = "sim",
	.rx = sim_rx,
	.tx = sim_tx,
	.destroy = sim_destroy,
	.tx_gbps = sim_tx_gbps,
};

/* One end, owned by actor, named name.suffix. */
static struct sim_port *sim_port_new(struct sim_engine *eng, const char *name,
				     const char *suffix, int actor,
				     const struct sim_link_params *lp)
{
	struct sim_port *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->rxq = calloc(lp->rx_queue, sizeof(*p->rxq));
	if (!p->rxq) {
		free(p);
		return NULL;
	}
	p->port.ops = &sim_ops;
	snprintf(p->port.name, sizeof(p->port.name), "%s.%s", name, suffix);
	p->eng = eng;
	p->owner = actor;
	p->lp = *lp;
	p->ps_per_byte = dp_ps_per_byte(lp->gbps);
	return p;
}

int sim_wire(struct sim_engine *eng, const char *name,
	     int actor_a, int actor_b, const struct sim_link_params *params,
	     struct dp_port **a, struct dp_port **b)
{
	struct sim_link_params lp = *params;
	struct sim_port *pa, *pb;

	if (!(lp.gbps > 0))
		return -EINVAL;
	if (lp.tx_queue == 0)
		lp.tx_queue = 1024;
	if (lp.rx_queue == 0)
		lp.rx_queue = 4096;
	pa = sim_port_new(eng, name, "a", actor_a, &lp);
	pb = sim_port_new(eng, name, "b", actor_b, &lp);
	if (!pa || !pb) {
		if (pa)
			sim_destroy(&pa->port);
		if (pb)
			sim_destroy(&pb->port);
		return -ENOMEM;
	}
	pa->peer = pb;
	pb->peer = pa;
	*a = &pa->port;
	*b = &pb->port;
	return 0;
}

const struct sim_port_stats *sim_port_stats(const struct dp_port *port)
{
	if (port->ops != &sim_ops)
		return NULL;
	return &((const struct sim_port *)port)->stats;
}
