/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd's reports on stdout: the periodic summary line per node
 * (--stats-interval) and the summary printed when it stops.
 */
#include "nicd/nicd.h"

/* Snapshot of one node. */
static void nicd_snap_node(const struct nicd_node *n, uint64_t now, struct nicd_snapshot *s)
{
	const struct nic_stats *st = nic_stats(n->nic);
	const struct host_stats *hs = host_stats(n->host);

	s->t_ns = now;
	s->tx = st->tx_msgs;
	s->rx = st->delivered;
	s->retx = st->retransmissions;
	s->errors = st->completed_err;
	s->paused = st->slots_paused;
	s->drops = st->rx_invalid + st->rx_misdelivered + st->rx_unknown_vnet +
		   st->rx_no_desc + st->no_mbuf + hs->rx_no_endpoint + hs->rx_overflow +
		   hs->rx_held_closed + hs->rx_ring_full +
		   dp_port_tx_dropped(dp_fault_port_inner(n->bulk)) +
		   (n->quick != n->bulk ? dp_port_tx_dropped(dp_fault_port_inner(n->quick)) : 0);
}

void nicd_report_snapshot(const struct nicd_nodes *ns, uint64_t now,
			  struct nicd_snapshot *snap)
{
	for (unsigned int i = 0; i < ns->n; i++)
		nicd_snap_node(&ns->node[i], now, &snap[i]);
}

/* "NAME: node I of N", or joining, naming the id a node had before it lost the switch. */
static void nicd_report_state(FILE *f, const char *lead, const struct nicd_node *n,
			      const char *end)
{
	uint16_t id = nic_node_id(n->nic);

	if (nic_is_up(n->nic))
		fprintf(f, "%s%s: node %u of %u%s", lead, n->name, id, nic_cluster_size(n->nic), end);
	else if (id == PROTO_NODE_NONE)
		fprintf(f, "%s%s: joining (not joined yet)%s", lead, n->name, end);
	else
		fprintf(f, "%s%s: joining again (lost the switch as node %u)%s", lead, n->name, id,
			end);
}

void nicd_report_line(FILE *f, const struct nicd_nodes *ns,
		      struct nicd_snapshot *snap, uint64_t now)
{
	for (unsigned int i = 0; i < ns->n; i++) {
		const struct nicd_node *n = &ns->node[i];
		struct nicd_snapshot cur;
		double dt;

		nicd_snap_node(n, now, &cur);
		dt = (double)(cur.t_ns - snap[i].t_ns) / 1e9;
		if (dt <= 0)
			dt = 1;
		nicd_report_state(f, "nicd: ", n, ",");
		fprintf(f, " %u endpoints, tx %.0f msg/s, rx %.0f msg/s, retx %llu, errors %llu, drops %llu, pending %u",
			host_open_count(n->host), (double)(cur.tx - snap[i].tx) / dt,
			(double)(cur.rx - snap[i].rx) / dt,
			(unsigned long long)(cur.retx - snap[i].retx),
			(unsigned long long)(cur.errors - snap[i].errors),
			(unsigned long long)(cur.drops - snap[i].drops), nic_pending(n->nic));
		/* Only after a pause: the usual line stays as it was. */
		if (cur.paused != snap[i].paused)
			fprintf(f, ", paused %llu slots",
				(unsigned long long)(cur.paused - snap[i].paused));
		fputc('\n', f);
		snap[i] = cur;
	}
	fflush(f);
}

/* A device's non-zero link counters, "DEVICE.link_down 1" (dp_ethdev_watch). */
static void nicd_report_link(FILE *f, const struct nicd_dev *d)
{
	struct dp_counter_set set = DP_COUNTER_SET(d->name, dp_ethdev_link_counter_names,
						   &d->eth.watch.stats);

	dp_counters_print(f, &set);
}

void nicd_report_summary(FILE *f, const struct nicd_nodes *ns,
			 const struct dp_idle *idle, double seconds)
{
	char name[48];

	fprintf(f, "nicd: summary after %.1f s\n", seconds);
	for (unsigned int i = 0; i < ns->n; i++) {
		const struct nicd_node *n = &ns->node[i];

		nicd_report_state(f, "", n, "\n");
		nic_print_counters(n->nic, n->name, f);
		snprintf(name, sizeof(name), "%s.host", n->name);
		host_print_counters(n->host, name, f);
		dp_ethdev_port_print(f, n->bulk);
		if (n->quick != n->bulk)
			dp_ethdev_port_print(f, n->quick);
		nicd_report_link(f, &ns->dev[n->bulk_dev]);
		if (n->quick_dev != n->bulk_dev)
			nicd_report_link(f, &ns->dev[n->quick_dev]);
	}
	dp_idle_print(f, idle, seconds);
	dp_memif_removed_print(f);
	fflush(f);
}
