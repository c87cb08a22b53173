/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * First-come arbitration of the quick channel. An output is busy while the
 * frame before serializes at the link rate; a QREQ for a busy output loses.
 * Control frames (BACK, QACK, CFG, GNT) never lose: they beat QREQs that
 * arrive with them and wait behind a frame already on the wire. In
 * interleave mode a QREQ loses only to another QREQ still on the wire.
 * Frames of one input that a poller reads in one burst did not arrive at
 * the same time: each is taken to have arrived no earlier than the one
 * before it from that input plus its own wire time (the links have one
 * rate), so a node cannot collide with its own previous frame; by at most
 * QUICK_LEAD_FRAMES wire times later than it was read.
 */
#ifndef SEGNET_QUICK_H
#define SEGNET_QUICK_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/dp_mbuf.h"
#include "fabric.h"

/* Outcome of arbitration for one frame. */
enum quick_verdict {
	QUICK_PASS,		/* forwarded */
	QUICK_LOST_QREQ,	/* a QREQ lost to a QREQ still on the wire */
	QUICK_LOST_CONTROL,	/* a QREQ lost to a control frame (drop mode) */
};

/* Busy state of every quick output. */
struct quick_arb {
	enum sw_quick_mode mode;	/* drop or interleave */
	double ps_per_byte;		/* the links' byte time (dp_ps_per_byte) */
	struct dp_ps_epoch epoch;	/* time 0 of the ps times below */
	uint16_t n;			/* outputs */
	uint64_t *busy_ps;		/* end of everything sent on output o */
	uint64_t *qreq_ps;		/* end of the last QREQ sent on output o */
	uint64_t *in_ps;		/* arrival of the last frame from input i */
	uint64_t *over_rate;		/* counter: frames held to the lead (quick_arrival) */
};

/*
 * How much later than it is read a frame's arrival may be taken to be, in
 * its own wire times: a poll reads up to 32 frames of an input (SW_BURST),
 * which came one after another, and the next poll may find the input still
 * sending. An input that sends faster than the links' rate (a NIC paced at
 * its device's speed, faster than --quick-gbps, as on virtual links) would
 * otherwise run ahead of the time without end, and every other input's
 * QREQs for the outputs it used would lose until the lead drained. Past
 * the lead, its frames count as arriving together at the lead's end (its
 * QREQs for one output collide with each other), and are counted.
 */
enum { QUICK_LEAD_FRAMES = 64 };

/* Set up for n outputs, counting frames held to the lead in *over_rate; 0 or -ENOMEM. */
int quick_arb_init(struct quick_arb *q, uint16_t n, enum sw_quick_mode mode,
		   double gbps, uint64_t *over_rate);

/* Free the state. */
void quick_arb_fini(struct quick_arb *q);

/* Move the epoch to now and every time kept with it (quick_arb_admit). */
void quick_rebase(struct quick_arb *q, uint64_t now);

/*
 * When a frame of input `in` read at now_ps arrived: not before the frame
 * before it from the same input was through, plus its own wire time, and
 * not later than QUICK_LEAD_FRAMES of its wire times after now_ps.
 */
static inline uint64_t quick_arrival(struct quick_arb *q, uint16_t in,
				     uint64_t now_ps, uint64_t wire_ps)
{
	uint64_t at = now_ps;

	if (in >= q->n)
		return at;	/* the switch's own frame */
	if (q->in_ps[in] + wire_ps > at)
		at = q->in_ps[in] + wire_ps;
	if (at - now_ps > QUICK_LEAD_FRAMES * wire_ps) {
		at = now_ps + QUICK_LEAD_FRAMES * wire_ps;
		(*q->over_rate)++;
	}
	q->in_ps[in] = at;
	return at;
}

/*
 * Decide whether a frame of len bytes from input in (PROTO_NODE_SWITCH for
 * a frame the switch originates) may leave on output out at now (ns); when
 * it may, the output is marked busy for its serialization (after what is
 * already on the wire). Control frames are always admitted. Inline: it
 * runs for every quick frame the switch forwards.
 */
static inline enum quick_verdict quick_arb_admit(struct quick_arb *q, uint16_t in,
						 uint16_t out, bool is_qreq,
						 uint32_t len, uint64_t now)
{
	uint64_t wire_ps = dp_wire_ps_at(len, q->ps_per_byte);
	uint64_t at, start;

	if (dp_ps_epoch_due(&q->epoch, now))
		quick_rebase(q, now);
	at = quick_arrival(q, in, dp_ps_since(&q->epoch, now), wire_ps);

	if (is_qreq) {
		if (at < q->qreq_ps[out])
			return QUICK_LOST_QREQ;
		if (q->mode == SW_QUICK_DROP && at < q->busy_ps[out])
			return QUICK_LOST_CONTROL;
	}
	start = q->busy_ps[out] > at ? q->busy_ps[out] : at;
	q->busy_ps[out] = start + wire_ps;
	if (is_qreq)
		q->qreq_ps[out] = q->busy_ps[out];
	return QUICK_PASS;
}

#endif
