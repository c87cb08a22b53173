/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Messages mode's report: messages sent and delivered per node and per
 * channel, latency percentiles per channel, what the plan skipped, as a
 * table for people and as CSV (one row per node and channel, per channel,
 * and a total row) or JSON (one object) for scripts and plots.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "dataplane/dp_json.h"
#include "pcap/replay/replay_messages.h"

/* Latency percentiles of one channel, ns. */
struct msgs_lat {
	/* deliveries measured */
	uint64_t n;
	/* min, p50, p90, p99, max */
	int64_t min, p50, p90, p99, max;
};

/* The latency percentiles of channel c. */
static struct msgs_lat msgs_lat_of(const struct replay_chan_stats *c)
{
	struct replay_summary s;
	struct msgs_lat l;

	replay_stats_summary(c->lat, &s);
	l.n = s.packets;
	l.min = s.err_min_ns;
	l.p50 = replay_stats_percentile(c->lat, 50);
	l.p90 = replay_stats_percentile(c->lat, 90);
	l.p99 = replay_stats_percentile(c->lat, 99);
	l.max = s.err_max_ns;
	return l;
}

/* A node's nicd for the table: the socket name without its folder and ".sock". */
static void msgs_short_name(const char *nicd, char *out, size_t len)
{
	const char *b = strrchr(nicd, '/');
	size_t n;

	b = b ? b + 1 : nicd;
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".sock"))
		n -= 5;
	snprintf(out, len, "%.*s", (int)n, b);
}

/* Messages sent and not delivered. */
static uint64_t msgs_undelivered(const struct replay_msgs *m)
{
	uint64_t n = 0;

	for (unsigned int c = 0; c < REPLAY_NCHAN; c++)
		n += m->chan[c].sent - m->chan[c].delivered;
	return n;
}

/* Total of one counter over the channels. */
static uint64_t msgs_total(const struct replay_msgs *m, size_t off)
{
	uint64_t n = 0;

	for (unsigned int c = 0; c < REPLAY_NCHAN; c++)
		n += *(const uint64_t *)((const char *)&m->chan[c] + off);
	return n;
}

uint64_t replay_msgs_failures(const struct replay_msgs *m)
{
	return msgs_undelivered(m) +
	       msgs_total(m, offsetof(struct replay_chan_stats, dropped)) +
	       msgs_total(m, offsetof(struct replay_chan_stats, corrupt)) +
	       (m->error != 0) + m->lat_csv_failed;
}

/* Name of how the drain ended, for JSON. */
static const char *msgs_drain_end_name(enum replay_drain_end e)
{
	static const char *const names[] = {
		[REPLAY_DRAIN_ALL_IN] = "all_in", [REPLAY_DRAIN_TIMEOUT] = "timeout",
		[REPLAY_DRAIN_STOPPED] = "stopped", [REPLAY_DRAIN_ERROR] = "error",
	};

	return names[e];
}

/* The delivered line's end: how the drain ended, the messages still in flight. */
static void msgs_print_drain(const struct replay_msgs *m, FILE *f)
{
	double ms = (double)m->drain_ns / 1e6;
	const char *why = m->drain_end == REPLAY_DRAIN_ERROR ? "the replay failed" : "stopped";

	if (m->drain_end == REPLAY_DRAIN_ALL_IN)
		fprintf(f, "all in %.1f ms after the last send\n", ms);
	else if (m->drain_end == REPLAY_DRAIN_TIMEOUT)
		fprintf(f, "gave up (--drain-ms) %.1f ms after the last send, %" PRIu64
			" still in flight\n", ms, m->in_flight);
	else if (m->drain_skipped)
		fprintf(f, "%" PRIu64 " still in flight when %s (no drain)\n", m->in_flight, why);
	else
		fprintf(f, "%" PRIu64 " still in flight when %s %.1f ms into the drain\n",
			m->in_flight, why, ms);
}

/* The per-node lines of the table. */
static void msgs_print_nodes(const struct replay_msgs *m, FILE *f)
{
	char name[32];

	fprintf(f, "%-5s %-12s %8s %11s %10s %11s %10s\n", "node", "nicd", "node.ep",
		"sent quick", "sent bulk", "dlvd quick", "dlvd bulk");
	for (unsigned int i = 0; i < m->n; i++) {
		const struct replay_node *n = &m->node[i];
		char addr[16];

		msgs_short_name(n->nicd, name, sizeof(name));
		snprintf(addr, sizeof(addr), "%u.%u", n->id, n->ep_id);
		fprintf(f, "%-5u %-12s %8s %11" PRIu64 " %10" PRIu64 " %11" PRIu64 " %10" PRIu64 "\n",
			i, name, addr, n->sent[REPLAY_QUICK], n->sent[REPLAY_BULK],
			n->delivered[REPLAY_QUICK], n->delivered[REPLAY_BULK]);
	}
}

/* The per-channel lines of the table. */
static void msgs_print_chans(const struct replay_msgs *m, FILE *f)
{
	static const unsigned int order[] = { REPLAY_QUICK, REPLAY_BULK };

	fprintf(f, "%-7s %7s %9s %6s %4s %5s %7s  %s\n", "channel", "sent", "delivered",
		"errors", "cut", "busy", "dropped", "latency us: min / p50 / p90 / p99 / max");
	for (unsigned int i = 0; i < REPLAY_NCHAN; i++) {
		const struct replay_chan_stats *c = &m->chan[order[i]];
		struct msgs_lat l = msgs_lat_of(c);

		fprintf(f, "%-7s %7" PRIu64 " %9" PRIu64 " %6" PRIu64 " %4" PRIu64 " %5" PRIu64
			" %7" PRIu64 "  ", replay_chan_name(order[i]), c->sent, c->delivered,
			c->errors, c->cut, c->busy, c->dropped);
		if (l.n)
			fprintf(f, "%.1f / %.1f / %.1f / %.1f / %.1f\n", (double)l.min / 1e3,
				(double)l.p50 / 1e3, (double)l.p90 / 1e3, (double)l.p99 / 1e3,
				(double)l.max / 1e3);
		else
			fprintf(f, "-\n");
	}
}

void replay_msgs_print(const struct replay_msgs *m, FILE *f)
{
	const struct replay_plan *p = m->plan;
	uint64_t sent = m->chan[0].sent + m->chan[1].sent;
	uint64_t dlvd = m->chan[0].delivered + m->chan[1].delivered;

	fprintf(f, "%-14s %u nodes, vnet %u, --map %s", "messages", m->n, m->o->vnet, m->map);
	if (p->addresses)
		fprintf(f, " (%" PRIu64 " addresses)", p->addresses);
	fprintf(f, "\n%-14s %" PRIu64 " records: %" PRIu64 " messages (%" PRIu64 " quick, %" PRIu64
		" bulk), %" PRIu64 " skipped (same node), %" PRIu64 " unmapped\n", "trace",
		p->records, p->n, p->per_chan[REPLAY_QUICK], p->per_chan[REPLAY_BULK],
		p->same_node, p->unmapped);
	msgs_print_nodes(m, f);
	msgs_print_chans(m, f);
	fprintf(f, "%-14s %" PRIu64 " of %" PRIu64 " sent, ", "delivered", dlvd, sent);
	msgs_print_drain(m, f);
	if (m->duplicates || m->unmatched || m->lost_track)
		fprintf(f, "%-14s %" PRIu64 " duplicates, %" PRIu64 " unmatched, %" PRIu64
			" no longer tracked\n", "odd deliveries", m->duplicates, m->unmatched,
			m->lost_track);
	if (m->chan[0].corrupt || m->chan[1].corrupt)
		fprintf(f, "%-14s %" PRIu64 "  (content, source or channel not what was sent)\n",
			"corrupt", m->chan[0].corrupt + m->chan[1].corrupt);
	if (m->error)
		fprintf(f, "%-14s %s\n", "error", m->error == -ESHUTDOWN ? "a nicd went away" :
			strerror(-m->error));
}

/* Counters of a CSV row (sent .. corrupt). */
enum { MSGS_CSV_COUNTERS = 7 };

/*
 * One CSV row up to the latency: scope, node, nicd, channel, the first nv
 * counters of v (the others empty), the latency when l has some.
 */
static void msgs_csv_row(FILE *f, const char *scope, const char *node, const char *nicd,
			 const char *chan, const uint64_t *v, int nv, const struct msgs_lat *l)
{
	fprintf(f, "%s,%s,%s,%s", scope, node, nicd, chan);
	for (int i = 0; i < MSGS_CSV_COUNTERS; i++)
		if (i < nv)
			fprintf(f, ",%" PRIu64, v[i]);
		else
			fputc(',', f);
	if (l && l->n)
		fprintf(f, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64, l->min,
			l->p50, l->p90, l->p99, l->max);
	else
		fputs(",,,,,", f);
}

/* The CSV report: one table, a scope column telling rows apart. */
static void msgs_csv(const struct replay_msgs *m, const struct replay_summary *s, FILE *f)
{
	uint64_t v[MSGS_CSV_COUNTERS], tot[MSGS_CSV_COUNTERS] = { 0 };
	char idx[16];

	fputs("scope,node,nicd,channel,sent,delivered,errors,cut,busy,dropped,corrupt,"
	      "lat_min_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_max_ns,"
	      "req_pps,act_pps,err_p50_ns,err_p99_ns\n", f);
	for (unsigned int i = 0; i < m->n; i++)
		for (unsigned int c = REPLAY_QUICK + 1; c-- > 0;) {
			uint64_t w[2] = { m->node[i].sent[c], m->node[i].delivered[c] };

			snprintf(idx, sizeof(idx), "%u", i);
			msgs_csv_row(f, "node", idx, m->node[i].nicd, replay_chan_name(c), w, 2, NULL);
			fputs(",,,,\n", f);
		}
	for (unsigned int c = REPLAY_QUICK + 1; c-- > 0;) {
		const struct replay_chan_stats *x = &m->chan[c];
		struct msgs_lat l = msgs_lat_of(x);

		v[0] = x->sent, v[1] = x->delivered, v[2] = x->errors, v[3] = x->cut;
		v[4] = x->busy, v[5] = x->dropped, v[6] = x->corrupt;
		for (int i = 0; i < MSGS_CSV_COUNTERS; i++)
			tot[i] += v[i];
		msgs_csv_row(f, "channel", "", "", replay_chan_name(c), v, MSGS_CSV_COUNTERS, &l);
		fputs(",,,,\n", f);
	}
	msgs_csv_row(f, "total", "", "", "all", tot, MSGS_CSV_COUNTERS, NULL);
	if (s->sched_span_ns)
		fprintf(f, ",%.3f", s->req_pps);
	else
		fputc(',', f);
	if (s->actual_span_ns)
		fprintf(f, ",%.3f", s->act_pps);
	else
		fputc(',', f);
	if (s->packets)
		fprintf(f, ",%" PRId64 ",%" PRId64 "\n", s->err_p50_ns, s->err_p99_ns);
	else
		fputs(",,\n", f);	/* no departure, no timing error */
}

/* One channel's JSON object. */
static void msgs_json_chan(const struct replay_chan_stats *c, FILE *f)
{
	struct msgs_lat l = msgs_lat_of(c);

	fprintf(f, "{\"sent\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"delivered\": %" PRIu64
		", \"errors\": %" PRIu64 ", \"cut\": %" PRIu64 ", \"busy\": %" PRIu64
		", \"dropped\": %" PRIu64 ", \"corrupt\": %" PRIu64 ", \"latency_ns\": ",
		c->sent, c->bytes, c->delivered, c->errors, c->cut, c->busy, c->dropped,
		c->corrupt);
	if (l.n)
		fprintf(f, "{\"min\": %" PRId64 ", \"p50\": %" PRId64 ", \"p90\": %" PRId64
			", \"p99\": %" PRId64 ", \"max\": %" PRId64 "}}", l.min, l.p50, l.p90,
			l.p99, l.max);
	else
		fputs("null}", f);
}

/* The nodes as a JSON array. */
static void msgs_json_nodes(const struct replay_msgs *m, FILE *f)
{
	fputs("[", f);
	for (unsigned int i = 0; i < m->n; i++) {
		const struct replay_node *n = &m->node[i];

		fprintf(f, "%s{\"node\": %u, \"nicd\": ", i ? ", " : "", i);
		dp_json_str(f, n->nicd);
		fprintf(f, ", \"segnet_node\": %u, \"endpoint\": %u"
			", \"sent\": {\"quick\": %" PRIu64 ", \"bulk\": %" PRIu64 "}"
			", \"delivered\": {\"quick\": %" PRIu64 ", \"bulk\": %" PRIu64 "}}",
			n->id, n->ep_id, n->sent[REPLAY_QUICK],
			n->sent[REPLAY_BULK], n->delivered[REPLAY_QUICK],
			n->delivered[REPLAY_BULK]);
	}
	fputs("]", f);
}

/* The JSON report: one object. */
static int msgs_json(const struct replay_msgs *m, const struct replay_summary *s, FILE *f)
{
	const struct replay_plan *p = m->plan;
	int rc;

	fputs("{\"summary\": ", f);
	rc = replay_stats_print(s, REPLAY_STATS_JSON, f);
	fputs(", \"map\": ", f);
	dp_json_str(f, m->map);
	fprintf(f, ", \"vnet\": %u, \"trace\": {\"records\": %" PRIu64
		", \"messages\": %" PRIu64 ", \"quick\": %" PRIu64 ", \"bulk\": %" PRIu64
		", \"same_node\": %" PRIu64 ", \"unmapped\": %" PRIu64 ", \"addresses\": %" PRIu64
		"},\n \"nodes\": ", m->o->vnet, p->records, p->n,
		p->per_chan[REPLAY_QUICK], p->per_chan[REPLAY_BULK], p->same_node, p->unmapped,
		p->addresses);
	msgs_json_nodes(m, f);
	fputs(",\n \"channels\": {\"quick\": ", f);
	msgs_json_chan(&m->chan[REPLAY_QUICK], f);
	fputs(", \"bulk\": ", f);
	msgs_json_chan(&m->chan[REPLAY_BULK], f);
	fprintf(f, "},\n \"messages\": {\"sent\": %" PRIu64 ", \"delivered\": %" PRIu64
		", \"undelivered\": %" PRIu64 ", \"duplicates\": %" PRIu64 ", \"unmatched\": %"
		PRIu64 ", \"drain_ms\": %.3f, \"drain_timeout\": %s, \"in_flight\": %" PRIu64
		", \"drain_end\": \"%s\", \"error\": %d}}\n",
		m->chan[0].sent + m->chan[1].sent, m->chan[0].delivered + m->chan[1].delivered,
		msgs_undelivered(m), m->duplicates, m->unmatched, (double)m->drain_ns / 1e6,
		m->drain_end == REPLAY_DRAIN_TIMEOUT ? "true" : "false", m->in_flight,
		msgs_drain_end_name(m->drain_end), m->error);
	return rc;
}

int replay_msgs_write(const struct replay_msgs *m, const struct replay_summary *sum,
		      enum replay_stats_format fmt, FILE *f)
{
	int rc = 0;

	if (fmt == REPLAY_STATS_JSON)
		rc = msgs_json(m, sum, f);
	else if (fmt == REPLAY_STATS_CSV)
		msgs_csv(m, sum, f);
	else
		replay_msgs_print(m, f);
	return rc || ferror(f) ? -EIO : 0;
}
