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
 * rate), so a node cannot collide with its own previous frame.
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
	uint64_t *ctl_ps;		/* end of the last control frame on output o */
	uint64_t *in_ps;		/* arrival of the last frame from input i */
};

/* Set up for n outputs; 0 or -ENOMEM. */
int quick_arb_init(struct quick_arb *q, uint16_t n, enum sw_quick_mode mode,
		   double gbps);

/* Free the state. */
void quick_arb_fini(struct quick_arb *q);

/*
 * Decide whether a frame of len bytes from input in (PROTO_NODE_SWITCH for
 * a frame the switch originates) may leave on output out at now (ns); when
 * it may, the output is marked busy for its serialization (after what is
 * already on the wire). Control frames are always admitted.
 */
enum quick_verdict quick_arb_admit(struct quick_arb *q, uint16_t in, uint16_t out,
				   bool is_qreq, uint32_t len, uint64_t now);

#endif
