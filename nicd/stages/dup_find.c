/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dup_find: drops the data of a packet whose number was already received,
 * but passes its header on so build_acks acknowledges it again (the sender
 * retransmitted because an ack was lost).
 */
#include "stages.h"

/* Counters. */
enum dup_find_counter {
	DUP_DROPPED,
};

static const char *const dup_find_counter_names[] = { "duplicates_dropped", NULL };

/* It needs numbers (genp) and the record of what arrived (build_acks). */
static int dup_find_init(struct stage *st, char *err, size_t errlen)
{
	if (!stage_below(st, "genp") || !stage_above(st, "build_acks")) {
		snprintf(err, errlen,
			 "stage dup_find needs genp below it and build_acks above it");
		return -EINVAL;
	}
	return 0;
}

/* Receive: turn duplicates into header-only packets. */
static uint16_t dup_find_rx(struct stage *st, struct sn_pkt **pkts, uint16_t n,
			    uint64_t now)
{
	(void)now;
	for (uint16_t i = 0; i < n; i++) {
		struct sn_pkt *p = pkts[i];

		if (!(p->h.flags & PROTO_F_DATA) || (p->flags & SN_PKT_HDR_ONLY) ||
		    !sn_conn_rx_has(p->conn, p->h.pkt_num))
			continue;
		st->cnt[DUP_DROPPED]++;
		rte_pktmbuf_free(p->m);
		p->m = NULL;
		p->flags |= SN_PKT_HDR_ONLY;
	}
	return n;
}

const struct stage_ops stage_dup_find = {
	.name = "dup_find",
	.help = "drops duplicate data, still acknowledges it",
	.counter_names = dup_find_counter_names,
	.init = dup_find_init,
	.rx = dup_find_rx,
};
