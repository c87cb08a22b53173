/* SPDX-License-Identifier: BSD-3-Clause */
/* First-come arbitration of the quick channel. */
#include <errno.h>
#include <stdlib.h>

#include "quick.h"

int quick_arb_init(struct quick_arb *q, uint16_t n, enum sw_quick_mode mode,
		   double gbps, uint64_t *over_rate)
{
	q->mode = mode;
	q->over_rate = over_rate;
	q->ps_per_byte = dp_ps_per_byte(gbps);
	q->epoch.ns = 0;
	q->n = n;
	q->busy_ps = calloc(n, sizeof(*q->busy_ps));
	q->qreq_ps = calloc(n, sizeof(*q->qreq_ps));
	q->in_ps = calloc(n, sizeof(*q->in_ps));
	if (!q->busy_ps || !q->qreq_ps || !q->in_ps) {
		quick_arb_fini(q);
		return -ENOMEM;
	}
	return 0;
}

void quick_arb_fini(struct quick_arb *q)
{
	free(q->busy_ps);
	free(q->qreq_ps);
	free(q->in_ps);
	q->busy_ps = NULL;
	q->qreq_ps = NULL;
	q->in_ps = NULL;
}

void quick_rebase(struct quick_arb *q, uint64_t now)
{
	uint64_t shift = dp_ps_epoch_move(&q->epoch, now);

	for (uint16_t i = 0; i < q->n; i++) {
		q->busy_ps[i] = dp_ps_rebase(q->busy_ps[i], shift);
		q->qreq_ps[i] = dp_ps_rebase(q->qreq_ps[i], shift);
		q->in_ps[i] = dp_ps_rebase(q->in_ps[i], shift);
	}
}
