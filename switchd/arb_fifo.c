/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unscheduled models for comparison. In FIFO mode a node requests only the
 * target of its head-of-line frame, so a row holds at most one bit (with
 * more, the lowest counts as the head). The grant decision is all that
 * differs here; the switch applies ops->output to the bulk frames:
 *   fifo-drop          every head is granted; first frame per output wins
 *   fifo-backpressure  one head per target, round-robin; the rest wait
 *   fifo-outbuf        every head is granted; outputs queue out_buffers frames
 */
#include "switchd/arb.h"

/* Per-instance state of fifo-backpressure, sized for the largest switch. */
struct fifo_state {
	uint16_t ptr[ARB_MAX_NODES];	/* per target: initiator favoured next */
	uint16_t head[ARB_MAX_NODES];	/* per initiator: head-of-line target */
};

/* Head-of-line target of initiator i: its lowest request, or ARB_NONE. */
static uint16_t fifo_head(const struct arb_req *req, uint16_t i)
{
	const uint64_t *row = arb_req_row(req, i);

	for (uint16_t w = 0; w < req->words; w++)
		if (row[w])
			return (uint16_t)(w * 64 + __builtin_ctzll(row[w]));
	return ARB_NONE;
}

/* fifo-drop and fifo-outbuf: every head of line is granted. */
static uint16_t fifo_match_all(struct arb *a, const struct arb_req *req,
			       uint64_t slot, uint16_t *grant)
{
	uint16_t granted = 0;

	(void)slot;
	for (uint16_t i = 0; i < a->n; i++) {
		grant[i] = fifo_head(req, i);
		granted += grant[i] != ARB_NONE;
	}
	return granted;
}

/* First initiator at or after from in column t whose head is t. */
static uint16_t fifo_pick(const struct fifo_state *s, const struct arb_req *req,
			  uint16_t t, uint16_t from)
{
	const uint64_t *col = arb_req_col(req, t);
	uint16_t words = req->words, w0 = from / 64;
	uint64_t low = ~(~0ull << (from % 64));

	for (uint16_t k = 0; k <= words; k++) {
		uint16_t w = (uint16_t)((w0 + k) % words);
		uint64_t bits = col[w];

		if (k == 0)
			bits &= ~low;
		else if (k == words)
			bits &= low;
		for (; bits; bits &= bits - 1) {
			uint16_t i = (uint16_t)(w * 64 + __builtin_ctzll(bits));

			if (s->head[i] == t)
				return i;
		}
	}
	return ARB_NONE;
}

/* fifo-backpressure: one head per target, chosen round-robin. */
static uint16_t fifo_match_backpressure(struct arb *a, const struct arb_req *req,
					uint64_t slot, uint16_t *grant)
{
	struct fifo_state *s = a->priv;
	uint16_t n = a->n, granted = 0;

	(void)slot;
	for (uint16_t i = 0; i < n; i++) {
		s->head[i] = fifo_head(req, i);
		grant[i] = ARB_NONE;
	}
	for (uint16_t t = 0; t < n; t++) {
		uint16_t i = fifo_pick(s, req, t, s->ptr[t]);

		if (i == ARB_NONE)
			continue;
		grant[i] = t;
		granted++;
		s->ptr[t] = i + 1 == n ? 0 : (uint16_t)(i + 1);
	}
	return granted;
}

/* Registration: unscheduled, output contention drops. */
const struct arb_ops arb_fifo_drop_ops = {
	.name = "fifo-drop",
	.help = "unscheduled FIFO: every head of line sent; first frame per output wins, rest dropped",
	.fifo = true,
	.output = ARB_OUT_DROP,
	.match = fifo_match_all,
};

/* Registration: unscheduled, back-pressure with head-of-line blocking. */
const struct arb_ops arb_fifo_backpressure_ops = {
	.name = "fifo-backpressure",
	.help = "FIFO with back-pressure: one head of line per output (round-robin), others wait",
	.fifo = true,
	.output = ARB_OUT_SCHEDULED,
	.priv_size = sizeof(struct fifo_state),
	.match = fifo_match_backpressure,
};

/* Registration: unscheduled, output-buffered. */
const struct arb_ops arb_fifo_outbuf_ops = {
	.name = "fifo-outbuf",
	.help = "unscheduled FIFO, output-buffered: every head of line sent; 16 frames queue per output",
	.fifo = true,
	.output = ARB_OUT_BUFFER,
	.out_buffers = 16,
	.match = fifo_match_all,
};
