/* SPDX-License-Identifier: BSD-3-Clause */
/* The switch fabric's internal state, shared by its files and nobody else. */
#ifndef SEGNET_SW_PRIV_H
#define SEGNET_SW_PRIV_H

#include "dataplane/dp_watch.h"
#include "arb.h"
#include "fabric.h"
#include "quick.h"

/* A received frame waiting for its turn in this poll. */
struct sw_rx {
	struct rte_mbuf *m;	/* the frame */
	struct proto_pkt p;	/* its decoded header */
	uint16_t in;		/* node whose port it came in on */
};

/* Frames for one port, sent at the end of the poll (or when 32 wait). */
struct sw_txq {
	struct dp_txbuf b;	/* the port and its frames */
	bool listed;		/* on the fabric's list of queues to flush */
};

/* One node: its ports and what the switch knows of it. */
struct sw_node {
	struct dp_port *bulk;		/* bulk-channel port */
	struct dp_port *quick;		/* quick-channel port (may equal bulk) */
	struct dp_port *control;	/* control frames to it (may equal quick) */
	struct sw_txq *bulk_tx;		/* transmit queue of bulk */
	struct sw_txq *quick_tx;	/* ... of quick (== bulk_tx for one port) */
	struct sw_txq *control_tx;	/* ... of control */
	bool joined;			/* sent HELLO */
	bool up;			/* sending CFGs */
	bool announce_join;		/* next GNT carries PROTO_GNT_F_JOINED */
	uint32_t hello_nonce;		/* incarnation named by its last join
					 * (the high half: its process's boot nonce) */
	uint64_t last_cfg_slot;		/* slot of its last CFG */
	uint64_t paused_at_cfg;		/* the fabric's stats.slots_paused then */
	uint8_t *counts;		/* its last request vector */
	uint8_t *bulk_en;		/* initiators it accepts on bulk */
	uint8_t *quick_en;		/* initiators it accepts on quick */
	uint32_t requests;		/* targets in its last CFG */
	uint64_t grants;		/* grants it received */
	uint64_t last_gnt_slot;		/* slot of the last GNT it was sent */
	struct rte_mbuf **outq;		/* ARB_OUT_BUFFER: queued BREQs, a ring */
	uint16_t outq_head;		/* next to send */
	uint16_t outq_len;		/* frames queued */
	uint64_t out_slot;		/* slot its output last sent a buffered BREQ */
	uint32_t out_sent;		/* buffered BREQs its output sent in out_slot */
};

/* The grants of one slot, kept while its BREQs and BACKs may still come. */
struct sw_slotrec {
	uint64_t slot;		/* slot number, or UINT64_MAX when unused */
	uint16_t *grant;	/* grant[i]: target of initiator i or ARB_NONE */
	uint8_t *used;		/* BREQs initiator i has sent on its grant */
	uint8_t *backs;		/* BACKs forwarded to initiator i: at most used[i] */
	uint8_t *taken;		/* ARB_OUT_DROP: output t already has a frame */
};

/* The fabric. */
struct sw_fabric {
	struct sw_config cfg;		/* as given, slot_ns filled in */
	uint16_t n;			/* nodes */
	uint16_t vec_len;		/* bytes of an enable vector */
	struct arb *arb;		/* the arbiter */
	struct arb_req *req;		/* request matrix, rebuilt every slot */
	uint16_t *grant;		/* arbiter output, n entries */
	struct sw_node *nodes;		/* by id */
	uint16_t n_up;			/* nodes that are up */
	struct sw_slotrec *ring;	/* recent slots' grants */
	unsigned int ring_len;		/* entries in ring */
	uint16_t back_slots;		/* slots after transfer a BACK may take */
	uint64_t arb_seq;		/* the arbiter's next decision number */
	bool started;			/* first poll done */
	uint64_t t0;			/* start of slot 0 */
	uint64_t cur;			/* current slot */
	/*
	 * The switch's own pauses (stats.slots_paused), not its nodes'
	 * silence: it did not watch them, and they likely did not run either.
	 */
	struct dp_pause pause;
	uint64_t paused_at_boundary;	/* stats.slots_paused when sw_bulk_slot last ran */
	uint64_t next_boundary;		/* start of slot cur + 1 */
	uint64_t rx_slot;		/* slot of this poll's receive (>= cur) */
	uint64_t idle_due;		/* idle_skip: next boundary with work */
	bool skipping;			/* idle_skip: the last poll returned idle_due */
	bool boundary_wanted;		/* idle_skip: a request or join came this poll */
	uint16_t rr;			/* round-robin start for arrivals */
	uint16_t *qrr;			/* per quick output: input favoured next */
	uint64_t *qorder;		/* QREQs of this poll: rank << 32 | index */
	unsigned int n_qreq;		/* entries in qorder */
	bool qorder_sorted;		/* qorder is in order as it came */
	struct quick_arb quick;		/* output busy state */
	struct proto_limits lim;	/* what decoding accepts */
	struct sw_txq *txq;		/* one per distinct port */
	unsigned int n_txq;		/* entries in txq */
	struct sw_txq **dirty;		/* queues holding frames, n_dirty of them */
	unsigned int n_dirty;		/* entries in dirty */
	struct sw_rx *rx;		/* frames of this poll */
	unsigned int rx_cap;		/* entries in rx */
	struct sw_stats stats;		/* switch-wide counters */
	uint64_t decode[PROTO_R_COUNT];	/* validation failures by reason */
	uint64_t *match_hist;		/* slots by number of grants, n + 1 */
};

/* Queue a frame on q (sent by sw_tx_flush at the end of the poll). */
static inline void sw_tx(struct sw_fabric *sw, struct sw_txq *q, struct rte_mbuf *m)
{
	if (!q->listed) {
		q->listed = true;
		sw->dirty[sw->n_dirty++] = q;
	}
	dp_txbuf_add(&q->b, m);
}

/* Start a frame the switch originates to node `to`; NULL if no mbuf. */
struct rte_mbuf *sw_frame(struct sw_fabric *sw, struct proto_pkt *p);

/*
 * Send a control frame from input `in` (PROTO_NODE_SWITCH: one the switch
 * originates) on node to's control port (its quick port by default).
 */
void sw_send_control(struct sw_fabric *sw, uint16_t in, uint16_t to,
		     struct rte_mbuf *m, uint64_t now);

/* A GNT of slot s granting nothing, for dst_node and node_id to fill in. */
struct proto_pkt sw_gnt_frame(const struct sw_fabric *sw, uint64_t s);

/*
 * Tell initiator `to` that node `down` is down, has not joined, or (up
 * again) rejoined: the notice's epoch field says which (enum proto_down_kind),
 * its handler the boot nonce of the process that last joined as `down`.
 */
void sw_notice_down(struct sw_fabric *sw, uint16_t to, uint16_t down,
		    uint8_t type, uint16_t vnet, uint64_t now);

/* Bulk channel: a CFG from node i, received in slot rx (>= cur). */
void sw_bulk_cfg(struct sw_fabric *sw, uint16_t i, const struct proto_pkt *p, uint64_t rx);

/* Bulk channel: a BREQ; forwards or drops it. */
void sw_bulk_breq(struct sw_fabric *sw, struct sw_rx *r, uint64_t now);

/* Bulk channel: a BACK; forwards or drops it. */
void sw_bulk_back(struct sw_fabric *sw, struct sw_rx *r, uint64_t now);

/* Bulk channel: the work of a slot boundary (arbitrate, grant). */
void sw_bulk_slot(struct sw_fabric *sw, uint64_t now);

/*
 * Bulk channel: the next boundary with work while nobody requests (the
 * first keepalive GNT due), or next_boundary when a node requests a
 * target or just joined.
 */
uint64_t sw_bulk_next_due(const struct sw_fabric *sw);

/* Set up and free the bulk channel's state. */
int sw_bulk_init(struct sw_fabric *sw, char *err, size_t errlen);
void sw_bulk_fini(struct sw_fabric *sw);

#endif
