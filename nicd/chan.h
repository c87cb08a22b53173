/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NIC's channel layer: where packets wait for a send buffer, sit in
 * per-target bulk send buffers (virtual output queues) until granted, wait
 * for their BACK, or wait in quick send buffers. Every packet is on at most
 * one of these lists, linked through cnext/cprev, named by pkt->cq.
 */
#ifndef SEGNET_CHAN_H
#define SEGNET_CHAN_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/pkt.h"

/* Which channel list a packet is on. */
enum chan_q {
	CQ_NONE = 0,		/* on none */
	CQ_BACKLOG,		/* bulk, waiting for a send buffer */
	CQ_VOQ,			/* bulk, in a send buffer, waiting for a grant */
	CQ_FIFO_BACKLOG,	/* FIFO model: bulk waiting for a send buffer */
	CQ_FIFO,		/* FIFO model: bulk in a send buffer */
	CQ_INFLIGHT,		/* bulk, sent, waiting for its BACK */
	CQ_QBACKLOG,		/* quick, waiting for a send buffer */
	CQ_QTX,			/* quick, in a send buffer, to be sent */
	CQ_QWAIT,		/* quick, sent, kept until acknowledged */
};

/*
 * Transmissions after which a quick packet that still waits for its
 * acknowledgment is overdue: a connection with no overdue packet may take
 * its buffer back (chan_quick_reclaim). Not 2: under loss, go-back-N
 * resends whole windows, and taking back the buffers of packets sent
 * twice let more QREQs out than the buffers hold (doc/endpoints.md).
 */
enum { CHAN_OVERDUE_TX = 4 };

/* Record that p is on list q (SN_PKT_SENDING unless it only awaits an ack). */
static inline void chan_mark(struct sn_pkt *p, uint8_t q)
{
	p->cq = q;
	if (q == CQ_NONE || q == CQ_QWAIT)
		p->flags &= (uint16_t)~SN_PKT_SENDING;
	else
		p->flags |= SN_PKT_SENDING;
}

/* A doubly-linked list of packets. */
struct chan_list {
	struct sn_pkt *head;	/* oldest */
	struct sn_pkt *tail;	/* newest */
	uint32_t len;		/* packets on it */
};

/* Append pkt to l and record which list it is on. */
static inline void chan_push_tail(struct chan_list *l, struct sn_pkt *p, uint8_t q)
{
	p->cnext = NULL;
	p->cprev = l->tail;
	if (l->tail)
		l->tail->cnext = p;
	else
		l->head = p;
	l->tail = p;
	l->len++;
	chan_mark(p, q);
}

/* Put pkt first on l. */
static inline void chan_push_head(struct chan_list *l, struct sn_pkt *p, uint8_t q)
{
	p->cprev = NULL;
	p->cnext = l->head;
	if (l->head)
		l->head->cprev = p;
	else
		l->tail = p;
	l->head = p;
	l->len++;
	chan_mark(p, q);
}

/* Take pkt off l. */
static inline void chan_unlink(struct chan_list *l, struct sn_pkt *p)
{
	if (p->cprev)
		p->cprev->cnext = p->cnext;
	else
		l->head = p->cnext;
	if (p->cnext)
		p->cnext->cprev = p->cprev;
	else
		l->tail = p->cprev;
	p->cnext = p->cprev = NULL;
	l->len--;
	chan_mark(p, CQ_NONE);
}

/* Take the first packet off l, or NULL. */
static inline struct sn_pkt *chan_pop_head(struct chan_list *l)
{
	struct sn_pkt *p = l->head;

	if (p)
		chan_unlink(l, p);
	return p;
}

#endif
