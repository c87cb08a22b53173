/* SPDX-License-Identifier: BSD-3-Clause */
/* First-come arbitration of the quick channel. */
#include <errno.h>
#include <stdlib.h>

#include "dataplane/dp_mbuf.h"
#include "quick.h"

int quick_arb_init(struct quick_arb *q, uint16_t n, enum sw_quick_mode mode,
		   double gbps)
{
	q->mode = mode;
	q->gbps = gbps;
	q->n = n;
	q->busy_ps = calloc(n, sizeof(*q->busy_ps));
	q->qreq_ps = calloc(n, sizeof(*q->qreq_ps));
	q->ctl_ps = calloc(n, sizeof(*q->ctl_ps));
	q->qreq_in = calloc(n, sizeof(*q->qreq_in));
	q->ctl_in = calloc(n, sizeof(*q->ctl_in));
	if (!q->busy_ps || !q->qreq_ps || !q->ctl_ps || !q->qreq_in || !q->ctl_in) {
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
	free(q->qreq_in);
	free(q->ctl_in);
	q->busy_ps = NULL;
	q->qreq_in = NULL;
	q->ctl_in = NULL;
	q->qreq_ps = NULL;
	q->ctl_ps = NULL;
}

enum quick_verdict quick_arb_admit(struct quick_arb *q, uint16_t in, uint16_t out,
				   bool is_qreq, uint32_t len, uint64_t now)
{
	uint64_t now_ps = now * 1000;
	uint64_t start;

	if (is_qreq) {
		if (now_ps < q->qreq_ps[out] && q->qreq_in[out] != in)
			return QUICK_LOST_QREQ;
		if (q->mode == SW_QUICK_DROP && now_ps < q->ctl_ps[out] &&
		    q->ctl_in[out] != in)
			return QUICK_LOST_CONTROL;
	}
	start = q->busy_ps[out] > now_ps ? q->busy_ps[out] : now_ps;
	q->busy_ps[out] = start + dp_wire_ps(len, q->gbps);
	if (is_qreq) {
		q->qreq_ps[out] = q->busy_ps[out];
		q->qreq_in[out] = in;
	} else {
		q->ctl_ps[out] = q->busy_ps[out];
		q->ctl_in[out] = in;
	}
	return QUICK_PASS;
}
