/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * switchd's reports: on stdout the periodic one-line summary
 * (--stats-interval) and the summary printed when it stops; in the log a
 * warning when a second's polls missed too many slot boundaries.
 */
#include <string.h>

#include "switchd/swd.h"

/* Adds a port's drops to the uint64_t at ctx. */
static void swd_port_drops(struct dp_port *port, enum swd_role role, void *ctx)
{
	const struct dp_port *wire = dp_fault_port_inner(port);
	const struct dp_ethdev_port_stats *es = dp_ethdev_port_stats(wire);
	uint64_t *drops = ctx;

	(void)role;
	*drops += dp_port_tx_dropped(wire) + (es ? es->rx_multiseg : 0);
}

void swd_report_snapshot(const struct sw_fabric *sw, const struct swd_ports *p,
			 uint64_t now, struct swd_snapshot *s)
{
	const struct sw_stats *st = sw_fabric_stats(sw);

	s->t_ns = now;
	s->slots = st->slots;
	s->grants = st->grants;
	s->bulk = st->breq_forwarded;
	s->quick = st->qreq_forwarded + st->qack_forwarded + st->back_forwarded;
	s->collisions = st->qreq_collision + st->breq_collision;
	s->breq_late = st->breq_late;
	s->breq_early = st->breq_early;
	s->paused = st->slots_paused;
	s->drops = st->rx_invalid + st->forged_src + st->forged_notice +
		   st->not_joined + st->src_down + st->unexpected_type + st->dst_down +
		   st->wrong_port + st->breq_not_granted + st->breq_outbuf_full +
		   st->back_not_scheduled + st->qreq_disabled + st->cfg_bad_size +
		   st->cfg_node_down +
		   st->no_mbuf;
	for (uint16_t i = 0; i < p->n; i++)
		swd_node_ports(&p->node[i], swd_port_drops, &s->drops);
}

void swd_report_line(FILE *f, const struct sw_fabric *sw, const struct swd_ports *p,
		     struct swd_snapshot *prev, uint64_t now)
{
	struct swd_snapshot cur;
	double dt;
	uint64_t slots;

	swd_report_snapshot(sw, p, now, &cur);
	dt = (double)(cur.t_ns - prev->t_ns) / 1e9;
	slots = cur.slots - prev->slots;
	fprintf(f, "switchd: %.0f slots/s, %.2f grants/slot, forwarded bulk %llu quick %llu, drops %llu, collisions %llu, nodes up %u/%u",
		dt > 0 ? (double)slots / dt : 0.0,
		slots ? (double)(cur.grants - prev->grants) / (double)slots : 0.0,
		(unsigned long long)(cur.bulk - prev->bulk),
		(unsigned long long)(cur.quick - prev->quick),
		(unsigned long long)(cur.drops - prev->drops),
		(unsigned long long)(cur.collisions - prev->collisions),
		sw_fabric_nodes_up(sw), p->n);
	/* Only after a pause: the usual line stays as it was (nicd's does the same). */
	if (cur.paused != prev->paused)
		fprintf(f, ", paused %llu slots", (unsigned long long)(cur.paused - prev->paused));
	fputc('\n', f);
	/* The one drop an operator fixes with an option: the grant lead. */
	if (cur.breq_late > prev->breq_late || cur.breq_early > prev->breq_early)
		fprintf(f, "switchd: %llu BREQs came after their slot and %llu before it: the "
			   "round trip GNT to BREQ does not fit --grant-lead %u (doc/protocol.md, "
			   "\"Grant lead\")\n",
			(unsigned long long)(cur.breq_late - prev->breq_late),
			(unsigned long long)(cur.breq_early - prev->breq_early),
			sw_fabric_grant_lead(sw));
	fflush(f);
	*prev = cur;
}

/* Prints a port's non-zero counters to the FILE at ctx. */
static void swd_port_print(struct dp_port *port, enum swd_role role, void *ctx)
{
	(void)role;
	dp_ethdev_port_print(ctx, port);
}

void swd_report_summary(FILE *f, const struct sw_fabric *sw,
			const struct swd_ports *p, const struct dp_idle *idle,
			double seconds)
{
	fprintf(f, "switchd: summary after %.1f s (arbiter %s, slot %llu ns)\n",
		seconds, sw_fabric_arbiter(sw), (unsigned long long)sw_fabric_slot_ns(sw));
	sw_fabric_print_counters(sw, f);
	for (uint16_t i = 0; i < p->n; i++) {
		struct sw_node_info info;

		sw_fabric_node_info(sw, i, &info);
		fprintf(f, "node%u: %s, %s, grants %llu, requests %llu, last CFG slot %llu\n",
			i, info.joined ? "joined" : "never joined", info.up ? "up" : "down",
			(unsigned long long)info.grants, (unsigned long long)info.requests,
			(unsigned long long)info.last_cfg_slot);
		swd_node_ports(&p->node[i], swd_port_print, f);
	}
	dp_idle_print(f, idle, seconds);
	dp_memif_removed_print(f);
	fflush(f);
}

/* The fabric's slot counters at now. */
static void swd_slot_counts_read(const struct sw_fabric *sw, uint64_t now,
				 struct swd_slot_counts *c)
{
	const struct sw_stats *st = sw_fabric_stats(sw);

	c->t_ns = now;
	c->slots = st->slots;
	c->skipped = st->slots_skipped;
}

bool swd_slots_missed_warning(const struct swd_slot_counts *a,
			      const struct swd_slot_counts *b, uint64_t slot_ns,
			      bool backoff, char *msg, size_t len)
{
	uint64_t missed, due;

	if (b->slots < a->slots || b->skipped < a->skipped || b->t_ns < a->t_ns)
		return false;
	missed = b->skipped - a->skipped;
	due = b->slots - a->slots + missed;
	/* missed / due > PCT / 100, in integers (due is below 2^57 for centuries) */
	if (missed < SWD_MISSED_WARN_MIN || missed * 100 <= due * SWD_MISSED_WARN_PCT)
		return false;
	snprintf(msg, len,
		 "missed %.1f%% of the slot boundaries due in %.1f s (%llu of %llu, slots of %llu ns): "
		 "polls came more than a slot late, and those boundaries were not arbitrated (no bulk grants); %s",
		 100.0 * (double)missed / (double)due, (double)(b->t_ns - a->t_ns) / 1e9,
		 (unsigned long long)missed, (unsigned long long)due,
		 (unsigned long long)slot_ns,
		 backoff ? "give switchd a core of its own and busy poll there (--idle-after-us 0; on a shared core busy polling misses more), or use a lower --bulk-gbps (longer slots)"
			 : "give switchd a core of its own (nothing else runs there), or use a lower --bulk-gbps (longer slots)");
	return true;
}

void swd_slot_watch_begin(struct swd_slot_watch *w, const struct swd_slot_counts *c,
			  bool backoff)
{
	memset(w, 0, sizeof(*w));
	w->backoff = backoff;
	w->limit.interval_ns = (uint64_t)SWD_MISSED_WARN_EVERY_S * 1000000000;
	w->limit.burst = 1;
	w->last = *c;
	w->next_ns = c->t_ns + (uint64_t)SWD_MISSED_WINDOW_MS * 1000000;
}

void swd_slot_watch_start(struct swd_slot_watch *w, const struct sw_fabric *sw,
			  bool backoff, uint64_t now)
{
	struct swd_slot_counts c;

	swd_slot_counts_read(sw, now, &c);
	swd_slot_watch_begin(w, &c, backoff);
}

bool swd_slot_watch_window(struct swd_slot_watch *w, const struct swd_slot_counts *cur,
			   uint64_t slot_ns, char *msg, size_t len)
{
	bool warn = swd_slots_missed_warning(&w->last, cur, slot_ns, w->backoff, msg, len);
	size_t n;

	if (warn && !dp_ratelimit_ok(&w->limit, cur->t_ns)) {
		w->over++;
		warn = false;
	} else if (warn && w->over) {
		n = strlen(msg);
		snprintf(msg + n, len - n,
			 " (%llu more windows of %u ms over %u%% since the last warning)",
			 (unsigned long long)w->over, SWD_MISSED_WINDOW_MS, SWD_MISSED_WARN_PCT);
		w->over = 0;
	}
	w->last = *cur;
	w->next_ns = cur->t_ns + (uint64_t)SWD_MISSED_WINDOW_MS * 1000000;
	return warn;
}

void swd_slot_watch_check(struct swd_slot_watch *w, const struct sw_fabric *sw,
			  uint64_t now)
{
	struct swd_slot_counts cur;
	char msg[SWD_MISSED_MSG_LEN];

	swd_slot_counts_read(sw, now, &cur);
	if (swd_slot_watch_window(w, &cur, sw_fabric_slot_ns(sw), msg, sizeof(msg)))
		DP_LOG(swd_logtype, WARNING, "%s", msg);
}
