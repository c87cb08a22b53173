/* SPDX-License-Identifier: BSD-3-Clause */
/* First-come arbitration of the quick channel. */
#include <errno.h>
#include <stdlib.h>

#include "quick.h"

int quick_arb_init(struct quick_arb *q, uint16_t n, enum sw_quick_mode mode,
		   double gbps)
{
	q->mode = mode;
	q->ps_per_byte = dp_ps_per_byte(gbps);
	q->epoch.ns = 0;
	q->n = n;
	q->busy_ps = calloc(n, sizeof(*q->busy_ps));
	q->qreq_ps = calloc(n, sizeof(*q->qreq_ps));
	q->ctl_ps = calloc(n, sizeof(*q->ctl_ps));
	q->in_ps = calloc(n, sizeof(*q->in_ps));
	if (!q->busy_ps || !q->qreq_ps || !q->ctl_ps || !q->in_ps) {
		quick_arb_fini(q);
		return -ENOMEM;
	}
	return 0;
}

void quick_arb_fini(struct quick_arb *q)
{
	free(q->busy_ps);
	free(q->qreq_ps);
	free(q->ctl_ps);
	free(q->in_ps);
	q->busy_ps = NULL;
	q->qreq_ps = NULL;
	q->ctl_ps = NULL;
	q->in_ps = NULL;
}

/* Move the epoch to now and every time kept with it. */
static void quick_rebase(struct quick_arb *q, uint64_t now)
{
	uint64_t shift = dp_ps_epoch_move(&q->epoch, now);

	for (uint16_t i = 0; i < q->n; i++) {
		q->busy_ps[i] = dp_ps_rebase(q->busy_ps[i], shift);
		q->qreq_ps[i] = dp_ps_rebase(q->qreq_ps[i], shift);
		q->ctl_ps[i] = dp_ps_rebase(q->ctl_ps[i], shift);
		q->in_ps[i] = dp_ps_rebase(q->in_ps[i], shift);
	}
}

/*
 * When a frame of input `in` read at now_ps arrived: not before the frame
 * before it from the same input was through, plus its own wire time.
 */
static uint64_t quick_arrival(struct quick_arb *q, uint16_t in, uint64_t now_ps,
			      uint64_t wire_ps)
{
	uint64_t at = now_ps;

	if (in >= q->n)
		return at;	/* the switch's own frame */
	if (q->in_ps[in] + wire_ps > at)
		at = q->in_ps[in] + wire_ps;
	q->in_ps[in] = at;
	return at;
}

enum quick_verdict quick_arb_admit(struct quick_arb *q, uint16_t in, uint16_t out,
				   bool is_qreq, uint32_t len, uint64_t now)
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
	else
		q->ctl_ps[out] = q->busy_ps[out];
	return QUICK_PASS;
}
