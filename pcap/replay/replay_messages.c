/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Messages mode as an entry of the mode table: each record of the trace
 * becomes a segnet message from the node of its source to the node of its
 * destination (the plan, replay_plan.c), sent through libsegnet on one
 * endpoint per node and received on those same endpoints, so one process
 * sees both ends of every message on one clock. No DPDK: it runs without
 * the EAL, on CLOCK_MONOTONIC. While the sender loop waits for the next
 * due time it keeps receiving: its sleeps wait on the endpoints' eventfds
 * and its busy-waits poll the endpoints (adapt_clock).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pcap/replay/replay_messages.h"

/* Longest sleep of the drain between two looks at the deadline (ns). */
#define REPLAY_MSGS_DRAIN_STEP_NS (10ull * 1000 * 1000)

/* Sleep between two looks at the joins (ns). */
#define REPLAY_MSGS_JOIN_STEP_NS (1000ull * 1000)

/* printf into err; returns -e. */
static int __attribute__((format(printf, 4, 5)))
msgs_fail(int e, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

/* Why a key file cannot be read, as nicd says it. */
static const char *msgs_key_error(int rc)
{
	return rc == -ENODATA ? "the file is empty" : rc == -E2BIG ? "longer than 64 bytes" :
	       strerror(-rc);
}

/* Messages mode's options, before anything starts. */
static int msgs_check(const struct replay_opts *o, char *err, size_t errlen)
{
	uint8_t key[SEGNET_MAX_KEY];
	struct replay_map *map;
	int rc, max;

	if (o->port)
		return msgs_fail(EINVAL, err, errlen, "--port only applies to frames mode: messages mode sends through nicd (--nicd or --lab)");
	if (o->n_nicd && o->lab)
		return msgs_fail(EINVAL, err, errlen, "--nicd and --lab do not go together: name the nodes one way");
	if (!o->n_nicd && !o->lab)
		return msgs_fail(EINVAL, err, errlen, "messages mode needs the nodes: --nicd NAME for every node, in node order, or --lab DIR");
	if (o->n_nicd == 1)
		return msgs_fail(EINVAL, err, errlen, "--nicd %s: messages go between nodes: give at least 2",
				 o->nicd[0]);
	if (!o->key_file && !o->lab)
		return msgs_fail(EINVAL, err, errlen, "messages mode needs --key-file FILE, the key of --vnet %u",
				 o->vnet);
	if (o->key_file) {
		rc = segnet_read_key(o->key_file, key);
		explicit_bzero(key, sizeof(key));
		if (rc < 0)
			return msgs_fail(EINVAL, err, errlen, "--key-file %s: %s", o->key_file,
					 msgs_key_error(rc));
	}
	map = replay_map_parse(o->map, err, errlen);
	if (!map)
		return -EINVAL;
	max = replay_map_max_node(map);
	replay_map_free(map);
	if (o->n_nicd && max >= (int)o->n_nicd)
		return msgs_fail(EINVAL, err, errlen, "--map %s names node %d, but --nicd gives %u nodes (0 .. %u)",
				 o->map, max, o->n_nicd, o->n_nicd - 1);
	return 0;
}

/* The plan reads the addresses of Ethernet frames: refuse another trace. */
static int msgs_check_trace(const struct trace *t, char *err, size_t errlen)
{
	return replay_trace_ethernet(t, "messages mode reads the addresses of Ethernet frames",
				     err, errlen);
}

/* The clock of the loop, without the mode's work. */
static uint64_t msgs_now(const struct replay_msgs *m)
{
	return m->base.now(m->base.ctx);
}

/* Count message e finished (completed, and delivered or failed) once. */
static void msgs_finish(struct replay_msgs *m, struct replay_flight *e)
{
	if (!(e->flags & REPLAY_FL_SENT) || !(e->flags & REPLAY_FL_COMPLETED) ||
	    !(e->flags & (REPLAY_FL_DELIVERED | REPLAY_FL_FAILED)))
		return;
	e->flags &= ~(uint32_t)REPLAY_FL_SENT;
	m->outstanding--;
}

/* True when a delivered message is the one plan entry p sent, to node. */
static bool msgs_intact(const struct replay_msgs *m, const struct replay_node *node,
			const struct segnet_msg *msg, const struct replay_msg_hdr *h,
			const struct replay_plan_rec *p, const uint8_t *content)
{
	const void *got = p->chan == REPLAY_QUICK ? msg->args + REPLAY_MSG_HDR : msg->data;

	if (msg->chan != p->chan || node->index != p->dst ||
	    msg->src_node != m->node[p->src].id || h->len != p->len)
		return false;
	if (p->chan == REPLAY_BULK && msg->len != p->len)
		return false;
	return p->len == 0 || (got && !memcmp(got, content, p->len));
}

/* Write one line of --latency-csv. */
static void msgs_lat_line(struct replay_msgs *m, const struct replay_flight *e,
			  const struct replay_plan_rec *p, uint64_t lat)
{
	fprintf(m->lat_csv, "%s,%" PRIu64 ",%" PRIu64 ",%u,%u,%u\n", replay_chan_name(p->chan),
		lat, e->seq, p->src, p->dst, p->len);
}

/* The handler of every replayed message, on every node's endpoint. */
static void msgs_on_msg(struct segnet_ep *ep, const struct segnet_msg *msg, void *ctx)
{
	struct replay_node *node = ctx;
	struct replay_msgs *m = node->m;
	uint64_t now = msgs_now(m);
	const struct replay_plan_rec *p;
	struct replay_chan_stats *c;
	struct replay_flight *e;
	struct replay_msg_hdr h;

	(void)ep;
	replay_msg_hdr_get(msg->args, &h);
	e = &m->ring[h.id & (REPLAY_MSGS_RING - 1)];
	if (!e->flags || (uint32_t)e->seq != h.id) {
		m->unmatched++;
		return;
	}
	if (e->flags & REPLAY_FL_DELIVERED) {
		m->duplicates++;
		return;
	}
	e->flags |= REPLAY_FL_DELIVERED;
	p = &m->plan->rec[e->k];
	c = &m->chan[p->chan];
	c->delivered++;
	node->delivered[p->chan]++;
	if (!msgs_intact(m, node, msg, &h, p, m->trace->recs[e->k].data + p->off))
		c->corrupt++;
	replay_stats_add(c->lat, e->t_send, now, p->len);
	if (m->lat_csv)
		msgs_lat_line(m, e, p, now - e->t_send);
	msgs_finish(m, e);
}

/* Account one completion. */
static void msgs_completion(struct replay_msgs *m, const struct segnet_completion *c)
{
	struct replay_flight *e = &m->ring[c->cookie & (REPLAY_MSGS_RING - 1)];

	m->completed++;
	if (e->seq != c->cookie || !(e->flags & REPLAY_FL_SENT))
		return;
	e->flags |= REPLAY_FL_COMPLETED;
	if (c->status != SEGNET_OK) {
		e->flags |= REPLAY_FL_FAILED;
		m->chan[m->plan->rec[e->k].chan].errors++;
	}
	msgs_finish(m, e);
}

/* Run node's handlers and reap its completions. */
static void msgs_poll_node(struct replay_msgs *m, struct replay_node *node)
{
	struct segnet_completion comps[REPLAY_MSGS_COMPS];
	int n;

	do {
		n = segnet_poll(node->ep, comps, REPLAY_MSGS_COMPS);
		if (n < 0) {
			if (!m->error)
				m->error = n;
			return;
		}
		for (int i = 0; i < n; i++)
			msgs_completion(m, &comps[i]);
	} while (n == REPLAY_MSGS_COMPS);
}

/* Poll every node once. */
static void msgs_poll_all(struct replay_msgs *m)
{
	for (unsigned int i = 0; i < m->n; i++)
		msgs_poll_node(m, &m->node[i]);
}

/*
 * Let up to ns pass receiving: poll, then sleep on the endpoints'
 * eventfds (armed) unless something is ready, then poll again.
 */
static void msgs_sleep(void *ctx, uint64_t ns)
{
	struct replay_msgs *m = ctx;
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u),
	};
	bool ready = false;

	msgs_poll_all(m);
	for (unsigned int i = 0; i < m->n && !ready && !m->error; i++)
		ready = segnet_arm(m->node[i].ep) != 0;
	if (!ready && !m->error)
		ppoll(m->pfd, m->n, &ts, NULL);
	else if (m->error)
		m->base.sleep(m->base.ctx, ns);
	msgs_poll_all(m);
}

/* One step of a busy-wait: poll every node. */
static void msgs_relax(void *ctx)
{
	struct replay_msgs *m = ctx;

	msgs_poll_all(m);
	if (m->base.relax)
		m->base.relax(m->base.ctx);
}

/* The clock reading of the wrapped clock. */
static uint64_t msgs_clock_now(void *ctx)
{
	return msgs_now(ctx);
}

/* The loop waits receiving. */
static void msgs_adapt_clock(void *state, struct waiter_clock *c)
{
	c->now = msgs_clock_now;
	c->sleep = msgs_sleep;
	c->relax = msgs_relax;
	c->ctx = state;
}

/* Number message k, sent at t, and count it. */
static void msgs_track(struct replay_msgs *m, uint64_t k, uint64_t t)
{
	const struct replay_plan_rec *p = &m->plan->rec[k];
	struct replay_flight *e = &m->ring[m->seq & (REPLAY_MSGS_RING - 1)];
	struct replay_chan_stats *c = &m->chan[p->chan];

	if (e->flags & REPLAY_FL_SENT) {
		m->lost_track++;
		m->outstanding--;
	}
	*e = (struct replay_flight){ .seq = m->seq, .t_send = t, .k = k, .flags = REPLAY_FL_SENT };
	m->outstanding++;
	m->seq++;
	c->sent++;
	c->bytes += p->len;
	c->cut += p->cut;
	m->node[p->src].sent[p->chan]++;
}

/* One send call of plan entry p with args, numbered seq. */
static int msgs_send_call(struct replay_msgs *m, const struct replay_plan_rec *p,
			  const uint8_t *args, const uint8_t *content)
{
	const struct replay_node *src = &m->node[p->src], *dst = &m->node[p->dst];

	if (p->chan == REPLAY_QUICK)
		return segnet_send_quick(src->ep, dst->id, dst->ep_id, REPLAY_MSGS_HANDLER, args,
					 m->seq);
	return segnet_send_bulk(src->ep, dst->id, dst->ep_id, REPLAY_MSGS_HANDLER, args, content,
				p->len, m->seq);
}

/*
 * Send plan entry k; while its node has no free send buffer, poll and
 * retry. 0, -ETIMEDOUT (stalled: no buffer for REPLAY_MSGS_STALL_NS of
 * watched time), -EINTR (stopped), or libsegnet's error (kept in m->error).
 */
static int msgs_send_one(struct replay_msgs *m, uint64_t k)
{
	const struct replay_plan_rec *p = &m->plan->rec[k];
	const uint8_t *content = m->trace->recs[k].data + p->off;
	struct replay_msg_hdr h = {
		.id = (uint32_t)m->seq, .len = (uint16_t)p->len,
		.flags = p->cut ? REPLAY_MSG_CUT : 0, .content = p->content,
	};
	uint8_t args[SEGNET_ARGS_LEN] = { 0 };
	struct replay_stall stall;
	bool busy = false;
	uint64_t t;
	int rc;

	replay_msg_hdr_put(args, &h);
	if (p->chan == REPLAY_QUICK)
		memcpy(args + REPLAY_MSG_HDR, content, p->len);
	for (;;) {
		t = msgs_now(m);
		rc = msgs_send_call(m, p, args, content);
		if (rc != -EAGAIN)
			break;
		if (!busy) {
			busy = true;
			m->chan[p->chan].busy++;
			replay_stall_start(&stall, t, REPLAY_MSGS_STALL_NS);
		} else if (replay_stall_over(&stall, t)) {
			return -ETIMEDOUT;
		}
		if (m->stop && *m->stop)
			return -EINTR;
		msgs_poll_all(m);
	}
	if (rc) {
		m->error = rc;
		return rc;
	}
	msgs_track(m, k, t);
	return 0;
}

/* Queue a record: its entry in the plan (the trace is compacted to it). */
static int msgs_send(void *state, const struct trace_rec *rec)
{
	struct replay_msgs *m = state;

	if (m->error)
		return m->error;
	m->pending[m->n_pending++] = (uint64_t)(rec - m->trace->recs);
	return 0;
}

/* Send the queued records in order; after a failure the rest are dropped. */
static unsigned int msgs_flush(void *state)
{
	struct replay_msgs *m = state;
	unsigned int sent = 0;

	while (sent < m->n_pending && !msgs_send_one(m, m->pending[sent]))
		sent++;
	for (unsigned int i = sent; i < m->n_pending; i++)
		m->chan[m->plan->rec[m->pending[i]].chan].dropped++;
	m->n_pending = 0;
	msgs_poll_all(m);
	return sent;
}

/* True when the replay must not wait any longer: a signal or a fatal error. */
static bool msgs_halted(const struct replay_msgs *m)
{
	return m->error || (m->stop && *m->stop);
}

/* Messages sent that were neither delivered nor failed (still tracked). */
static uint64_t msgs_in_flight(const struct replay_msgs *m)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < REPLAY_MSGS_RING; i++)
		n += (m->ring[i].flags & (REPLAY_FL_SENT | REPLAY_FL_DELIVERED)) == REPLAY_FL_SENT;
	return n;
}

/* Wait for the messages in flight, up to --drain-ms (not after a signal). */
static void msgs_drain(void *state)
{
	struct replay_msgs *m = state;
	uint64_t t0 = msgs_now(m), now = t0;
	uint64_t end = t0 + (uint64_t)m->o->drain_ms * 1000000u;

	m->drain_skipped = msgs_halted(m);
	msgs_poll_all(m);
	m->drain_end = REPLAY_DRAIN_ALL_IN;
	while (m->outstanding && !msgs_halted(m)) {
		now = msgs_now(m);
		if (now >= end) {
			m->drain_end = REPLAY_DRAIN_TIMEOUT;
			break;
		}
		msgs_sleep(m, end - now < REPLAY_MSGS_DRAIN_STEP_NS ? end - now :
			   REPLAY_MSGS_DRAIN_STEP_NS);
	}
	/*
	 * Stopped (or failed) before the drain, or during it with messages
	 * out: no drain ran to its end, whatever was in flight at the stop.
	 * A signal first: the Ctrl-C of a process group with nicds in it
	 * stops them too.
	 */
	if ((m->outstanding || m->drain_skipped) && m->drain_end != REPLAY_DRAIN_TIMEOUT)
		m->drain_end = m->stop && *m->stop ? REPLAY_DRAIN_STOPPED : REPLAY_DRAIN_ERROR;
	m->in_flight = msgs_in_flight(m);
	m->drain_ns = msgs_now(m) - t0;
	if (m->lat_csv && (fclose(m->lat_csv) || m->lat_csv_failed)) {
		fprintf(stderr, "segnet-replay: --latency-csv %s: write failed\n", m->o->latency_csv);
		m->lat_csv_failed = true;
	}
	m->lat_csv = NULL;
}

/* Failures for the exit status. */
static uint64_t msgs_dropped(void *state)
{
	return replay_msgs_failures(state);
}

/* The table report. */
static void msgs_report(void *state, FILE *f)
{
	replay_msgs_print(state, f);
}

/* The CSV and JSON reports. */
static int msgs_write_report(void *state, const struct replay_summary *sum,
			     enum replay_stats_format fmt, FILE *f)
{
	return replay_msgs_write(state, sum, fmt, f);
}

/* Close the endpoints and free everything. */
static void msgs_teardown(void *state)
{
	struct replay_msgs *m = state;

	if (!m)
		return;
	for (unsigned int i = 0; m->node && i < m->n; i++)
		segnet_close(m->node[i].ep);
	for (unsigned int c = 0; c < REPLAY_NCHAN; c++)
		replay_stats_free(m->chan[c].lat);
	if (m->lat_csv)
		fclose(m->lat_csv);
	replay_plan_free(m->plan);
	free(m->ring);
	free(m->pfd);
	free(m->node);
	free(m->lab_sock);
	free(m);
}

/* The nodes' sockets and the key: from --nicd and --key-file, or the lab. */
static int msgs_nodes(struct replay_msgs *m, uint8_t *key, int *key_len, char *err,
		      size_t errlen)
{
	const struct replay_opts *o = m->o;
	struct replay_lab lab = { .nodes = 0 };
	const char *kf = o->key_file;
	int rc;

	m->n = o->n_nicd;
	if (o->lab) {
		rc = replay_lab_read(o->lab, o->vnet, !kf, &lab, err, errlen);
		if (rc)
			return rc;
		m->n = lab.nodes;
		m->lab_sock = lab.sock;
		if (!kf)
			kf = lab.key_file;
	}
	m->node = calloc(m->n, sizeof(*m->node));
	m->pfd = calloc(m->n, sizeof(*m->pfd));
	if (!m->node || !m->pfd)
		return msgs_fail(ENOMEM, err, errlen, "out of memory");
	for (unsigned int i = 0; i < m->n; i++) {
		m->node[i].nicd = o->lab ? m->lab_sock[i] : o->nicd[i];
		m->node[i].index = i;
		m->node[i].m = m;
	}
	*key_len = segnet_read_key(kf, key);
	if (*key_len < 0)
		return msgs_fail(EINVAL, err, errlen, "key file %s: %s", kf, msgs_key_error(*key_len));
	return 0;
}

/* Plan the trace over the nodes and keep only the records that are messages. */
static int msgs_plan(struct replay_msgs *m, char *err, size_t errlen)
{
	struct replay_plan_conf c = {
		.nodes = m->n, .channel = m->o->channel, .quick_max = m->o->quick_max,
	};
	struct replay_map *map = replay_map_parse(m->o->map, err, errlen);
	int max;

	if (!map)
		return -EINVAL;
	max = replay_map_max_node(map);
	/* A bad argument (exit 2), as with --nicd: ENODEV, a node that is not there. */
	if (max >= (int)m->n) {
		replay_map_free(map);
		return msgs_fail(ENODEV, err, errlen, "--map %s names node %d, but the lab has %u nodes (0 .. %u)",
				 m->o->map, max, m->n, m->n - 1);
	}
	c.map = map;
	m->plan = replay_plan_build(m->trace, &c, err, errlen);
	replay_map_free(map);
	if (!m->plan)
		return -errno;
	if (m->plan->n == 0)
		return msgs_fail(EINVAL, err, errlen, "%s: no record goes between two nodes with --map %s on %u nodes (%" PRIu64 " on one node, %" PRIu64 " unmapped): nothing to send",
				 m->o->file, m->o->map, m->n, m->plan->same_node,
				 m->plan->unmapped);
	replay_plan_compact(m->plan, m->trace);
	return 0;
}

/* Counters, the ring, --latency-csv. */
static int msgs_alloc(struct replay_msgs *m, char *err, size_t errlen)
{
	m->ring = calloc(REPLAY_MSGS_RING, sizeof(*m->ring));
	for (unsigned int c = 0; c < REPLAY_NCHAN; c++)
		m->chan[c].lat = replay_stats_new();
	if (!m->ring || !m->chan[0].lat || !m->chan[1].lat)
		return msgs_fail(ENOMEM, err, errlen, "out of memory");
	if (!m->o->latency_csv)
		return 0;
	m->lat_csv = fopen(m->o->latency_csv, "w");
	if (!m->lat_csv)
		return msgs_fail(errno, err, errlen, "--latency-csv %s: %s", m->o->latency_csv,
				 strerror(errno));
	if (fputs("channel,latency_ns,id,src,dst,bytes\n", m->lat_csv) == EOF)
		m->lat_csv_failed = true;
	return 0;
}

/* Open one endpoint per node, with the handler. */
static int msgs_open(struct replay_msgs *m, const uint8_t *key, int key_len, char *err,
		     size_t errlen)
{
	char why[256];
	int e;

	for (unsigned int i = 0; i < m->n; i++) {
		struct replay_node *node = &m->node[i];

		node->ep = segnet_open(node->nicd, m->o->vnet, key, (size_t)key_len, NULL);
		e = errno;
		if (!node->ep)
			return msgs_fail(e, err, errlen, "node %u: cannot open an endpoint of vnet %u at nicd %s: %s",
					 i, m->o->vnet, node->nicd,
					 segnet_open_error(node->nicd, m->o->vnet, e, why, sizeof(why)));
		segnet_set_handler(node->ep, REPLAY_MSGS_HANDLER, msgs_on_msg, node);
		m->pfd[i] = (struct pollfd){ .fd = segnet_fd(node->ep), .events = POLLIN };
	}
	return 0;
}

/* Number of nodes that joined a cluster; -ESHUTDOWN when a nicd is gone. */
static int msgs_joined(struct replay_msgs *m)
{
	int n = 0;

	for (unsigned int i = 0; i < m->n; i++) {
		struct segnet_ep *ep = m->node[i].ep;

		if (segnet_poll(ep, NULL, 0) < 0)
			return -ESHUTDOWN;
		n += segnet_cluster_size(ep) > 0 && segnet_node(ep) < segnet_cluster_size(ep);
	}
	return n;
}

/* Every node's address, once joined; two nodes must not be one. */
static int msgs_addresses(struct replay_msgs *m, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < m->n; i++) {
		struct replay_node *a = &m->node[i];

		a->id = segnet_node(a->ep);
		a->ep_id = segnet_endpoint(a->ep);
		for (unsigned int j = 0; j < i; j++)
			if (m->node[j].id == a->id)
				return msgs_fail(EINVAL, err, errlen, "nodes %u (%s) and %u (%s) are the same segnet node %u: give each node's nicd once",
						 j, m->node[j].nicd, i, a->nicd, a->id);
	}
	return 0;
}

/* Wait up to --link-wait-ms for every node to join its cluster. */
static int msgs_join(struct replay_msgs *m, char *err, size_t errlen)
{
	uint64_t end = msgs_now(m) + (uint64_t)m->o->link_wait_ms * 1000000u;
	int n;

	while ((n = msgs_joined(m)) >= 0 && (unsigned int)n < m->n) {
		if (m->stop && *m->stop)
			return msgs_fail(EINTR, err, errlen, "stopped while waiting for the nodes to join");
		if (msgs_now(m) >= end)
			return msgs_fail(ETIMEDOUT, err, errlen, "%d of %u nodes joined a cluster within %u ms (is switchd running? --link-wait-ms)",
					 n, m->n, m->o->link_wait_ms);
		m->base.sleep(m->base.ctx, REPLAY_MSGS_JOIN_STEP_NS);
	}
	if (n < 0)
		return msgs_fail(ESHUTDOWN, err, errlen, "a nicd went away while the nodes joined");
	return msgs_addresses(m, err, errlen);
}

/* Plan the trace, open the endpoints, wait for the joins. */
static int msgs_setup(const struct replay_env *env, void **state, char *err, size_t errlen)
{
	struct replay_msgs *m = calloc(1, sizeof(*m));
	uint8_t key[SEGNET_MAX_KEY];
	int key_len = 0, rc;

	if (!m)
		return msgs_fail(ENOMEM, err, errlen, "out of memory");
	*state = m;
	m->o = env->opts;
	m->trace = env->trace;
	m->base = *env->clock;
	m->stop = env->stop;
	m->map = env->opts->map;
	rc = msgs_nodes(m, key, &key_len, err, errlen);
	if (!rc)
		rc = msgs_plan(m, err, errlen);
	if (!rc)
		rc = msgs_alloc(m, err, errlen);
	if (!rc)
		rc = msgs_open(m, key, key_len, err, errlen);
	explicit_bzero(key, sizeof(key));
	if (!rc)
		rc = msgs_join(m, err, errlen);
	return rc;
}

/* The messages mode entry of the mode table. */
const struct replay_mode replay_mode_messages = {
	.name = "messages",
	.help = "each record a segnet message between two nodes, through nicd",
	.no_eal = true,
	.check = msgs_check,
	.check_trace = msgs_check_trace,
	.setup = msgs_setup,
	.send = msgs_send,
	.flush = msgs_flush,
	.report = msgs_report,
	.dropped = msgs_dropped,
	.teardown = msgs_teardown,
	.adapt_clock = msgs_adapt_clock,
	.drain = msgs_drain,
	.write_report = msgs_write_report,
};
