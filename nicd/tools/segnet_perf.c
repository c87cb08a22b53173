/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segnet-perf: bandwidth and message rate through segnet, like iperf. The
 * client keeps a window of sends outstanding to (node, endpoint) on one or
 * both channels for a duration or a number of messages; the server counts
 * what arrives. Both print messages/s and Gbit/s per channel, and an
 * order-independent hash of what was delivered (client: what completed
 * successfully; server: what arrived) so a transfer can be checked end to
 * end. A client's message completes when the target's NIC acknowledges it
 * (an application need not have received it: the server's count says
 * that); those that complete with an error are counted by status.
 * doc/man/segnet-perf.1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tool_util.h"

static const char perf_prog[] = "segnet-perf";

enum {
	PERF_H = 3,			/* handler of a test message */
	PERF_MAGIC = 0x50455246,	/* "PERF" */
	PERF_CHANS = 2,			/* bulk and quick */
	PERF_DRAIN_MS = 5000,		/* wait for the last completions */
	PERF_WAKE_DELAY_US = 100,	/* longest wait for a batch of events */
	PERF_STATUSES = 8,		/* completion statuses counted apart (enum segnet_status) */
};

/* What a test message carries in its arguments. */
struct perf_args {
	uint32_t magic;		/* PERF_MAGIC */
	uint8_t chan;		/* enum segnet_chan */
	uint8_t pad0[3];	/* zero */
	uint64_t seq;		/* per channel, from 0 */
	uint32_t size;		/* payload bytes */
	uint8_t pad[12];	/* to SEGNET_ARGS_LEN */
};
_Static_assert(sizeof(struct perf_args) == SEGNET_ARGS_LEN, "perf arguments");

/* Which channels the client loads. */
enum perf_mode {
	PERF_BULK = 1,
	PERF_QUICK = 2,
	PERF_BOTH = 3,
};

/* The command line. */
struct perf_opts {
	struct tool_ep_opts ep;		/* --nicd, --vnet, --key-file */
	bool server;			/* --server */
	bool client;			/* --client */
	long node;			/* --node (-1: not given) */
	uint16_t dst_ep;		/* --ep */
	enum perf_mode mode;		/* --chan */
	uint32_t size;			/* --size */
	double duration;		/* --duration in s (0: none) */
	uint64_t messages;		/* --messages (0: none) */
	uint64_t window;		/* --window */
	uint64_t join_wait_ms;		/* --join-wait */
	uint64_t recv_bufs;		/* --recv-buffers */
	uint64_t start_delay_ms;	/* --start-delay: server, before the first poll */
	bool json;			/* --json */
	bool busy;			/* --busy-poll */
	bool no_verify;			/* --no-verify */
};

/* Results of one channel. */
struct perf_chan {
	uint64_t sent;		/* client: sends accepted */
	uint64_t msgs;		/* client: completed ok; server: received */
	uint64_t errors;	/* client: completed with an error */
	uint64_t by_status[PERF_STATUSES];	/* client: errors per status (the last: any other) */
	uint64_t corrupt;	/* server: payload not the pattern */
	uint64_t bytes;		/* payload bytes of msgs (args for quick) */
	uint64_t hash;		/* sum of the message hashes */
	uint64_t first, last;	/* first and last event (ns) */
};

/* A send in flight (the cookie is its index). */
struct perf_slot {
	uint64_t hash;		/* its message hash */
	uint8_t chan;		/* its channel */
	uint32_t next_free;	/* free list */
};

/* A run. */
struct perf_run {
	const struct perf_opts *o;	/* options */
	struct perf_chan ch[PERF_CHANS];	/* per channel */
	struct perf_slot *slots;	/* client: window entries */
	uint32_t free_slot;		/* client: first free entry */
	uint64_t outstanding;		/* client: sends in flight */
	uint64_t seq[PERF_CHANS];	/* client: next sequence number */
	uint64_t received;		/* server: messages in total */
	uint8_t buf[SEGNET_MAX_PAYLOAD];	/* scratch payload */
};

/* Print the usage text. */
static void perf_usage(FILE *f)
{
	fprintf(f,
		"usage: segnet-perf [--nicd NAME|PATH] [--vnet ID] --key-file FILE --server\n"
		"                   [--duration SEC] [--messages N] [--json]\n"
		"       segnet-perf [--nicd NAME|PATH] [--vnet ID] --key-file FILE --client --node N\n"
		"                   [--ep E] [--chan bulk|quick|both] [--size BYTES]\n"
		"                   [--duration SEC | --messages N] [--window W] [--json]\n"
		"\n"
		"Bandwidth and message rate through segnet, like iperf. The client keeps\n"
		"W sends outstanding to endpoint E of node N; the server counts what\n"
		"arrives. Both print messages/s, Gbit/s and a hash of what was delivered\n"
		"per channel (equal hashes: the same messages, byte for byte).\n"
		"\n"
		"  --nicd NAME|PATH   nicd control socket (default segnet0)\n"
		"  --vnet ID          virtual network (default 1)\n"
		"  --key-file FILE    the virtual network's key (--key STRING for tests)\n"
		"  --server           count arriving messages until --duration, --messages\n"
		"                     or SIGINT\n"
		"  --client           send to --node N (and --ep E, default 0, below nicd's\n"
		"                     --endpoints); --server and --client exclude each other\n"
		"  --chan CH          client: bulk (default), quick or both (alternating)\n"
		"  --size BYTES       client: bulk payload, 0 .. 2048 (default 2048; not with\n"
		"                     --chan quick, whose messages carry 32 bytes of arguments)\n"
		"  --duration SEC     client: send this long, 0.001 .. 86400 (default 5 unless\n"
		"                     --messages); server: stop after this long\n"
		"  --messages N       client: send N messages; server: stop after N\n"
		"  --window W         client: sends outstanding at once, 1 .. 4096 (default 32)\n"
		"  --join-wait MS     client: wait for the NIC to join a cluster (default 10000)\n"
		"  --recv-buffers N   server: receive buffers of its endpoint, 1 .. 4096\n"
		"                     (default 256)\n"
		"  --start-delay MS   server: wait this long before the first poll, so the\n"
		"                     receive buffers run out and nicd pushes back\n"
		"  --json             results as one JSON object\n"
		"  --busy-poll        spin instead of sleeping when there is nothing to do\n"
		"  --no-verify        one payload for every message, no hash and no check\n"
		"                     (maximum goodput: the tool's own work then costs less)\n"
		"  --help             this text\n"
		"\n"
		"Exit status: 0 on success (client: every send completed successfully),\n"
		"1 on a failure, 2 on bad arguments.\n");
}

/* Option table. */
static const struct option perf_long_opts[] = {
	{ "nicd", required_argument, NULL, 'n' },
	{ "vnet", required_argument, NULL, 'v' },
	{ "key-file", required_argument, NULL, 'k' },
	{ "key", required_argument, NULL, 'K' },
	{ "server", no_argument, NULL, 's' },
	{ "client", no_argument, NULL, 'c' },
	{ "node", required_argument, NULL, 'N' },
	{ "ep", required_argument, NULL, 'e' },
	{ "chan", required_argument, NULL, 'C' },
	{ "size", required_argument, NULL, 'S' },
	{ "duration", required_argument, NULL, 'd' },
	{ "messages", required_argument, NULL, 'm' },
	{ "window", required_argument, NULL, 'w' },
	{ "join-wait", required_argument, NULL, 'j' },
	{ "recv-buffers", required_argument, NULL, 'r' },
	{ "start-delay", required_argument, NULL, 'D' },
	{ "json", no_argument, NULL, 'J' },
	{ "busy-poll", no_argument, NULL, 'B' },
	{ "no-verify", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Options of which one may be given: the key, the role. */
static const int perf_role_group[] = { 's', 'c', 0 };
static const int *const perf_groups[] = { tool_key_group, perf_role_group, NULL };

/* Parse --chan. */
static bool perf_parse_chan(const char *arg, enum perf_mode *m)
{
	if (!strcmp(arg, "bulk")) {
		*m = PERF_BULK;
	} else if (!strcmp(arg, "quick")) {
		*m = PERF_QUICK;
	} else if (!strcmp(arg, "both")) {
		*m = PERF_BOTH;
	} else {
		fprintf(stderr, "%s: --chan %s: must be bulk, quick or both\n", perf_prog, arg);
		return false;
	}
	return true;
}

/* Parse one option into o; false (after a message) when it is bad. */
static bool perf_option(void *opts, int c, const char *arg)
{
	struct perf_opts *o = opts;
	uint64_t v;
	int r = tool_ep_option(perf_prog, &o->ep, c, arg);

	if (r)
		return r > 0;
	switch (c) {
	case 's':
		o->server = true;
		return true;
	case 'c':
		o->client = true;
		return true;
	case 'J':
		o->json = true;
		return true;
	case 'B':
		o->busy = true;
		return true;
	case 'V':
		o->no_verify = true;
		return true;
	case 'C':
		return perf_parse_chan(arg, &o->mode);
	case 'N':
		if (!tool_parse_u64(perf_prog, "--node", arg, 0, 65533, &v))
			return false;
		o->node = (long)v;
		return true;
	case 'e':
		if (!tool_parse_u64(perf_prog, "--ep", arg, 0, 65535, &v))
			return false;
		o->dst_ep = (uint16_t)v;
		return true;
	case 'S':
		if (!tool_parse_u64(perf_prog, "--size", arg, 0, SEGNET_MAX_PAYLOAD, &v))
			return false;
		o->size = (uint32_t)v;
		return true;
	case 'd':
		return tool_parse_double(perf_prog, "--duration", arg, 0.001, 86400, &o->duration);
	case 'm':
		return tool_parse_u64(perf_prog, "--messages", arg, 0, UINT64_MAX / 2, &o->messages);
	case 'w':
		return tool_parse_u64(perf_prog, "--window", arg, 1, 4096, &o->window);
	case 'j':
		return tool_parse_u64(perf_prog, "--join-wait", arg, 0, 3600000, &o->join_wait_ms);
	case 'r':
		return tool_parse_u64(perf_prog, "--recv-buffers", arg, 1, 4096, &o->recv_bufs);
	case 'D':
		return tool_parse_u64(perf_prog, "--start-delay", arg, 0, 3600000, &o->start_delay_ms);
	}
	fprintf(stderr, "%s: unknown option (see --help)\n", perf_prog);
	return false;
}

/* Options a server has no use for, and a client. */
static const int perf_client_only[] = { 'N', 'e', 'C', 'S', 'w', 'j', 0 };
static const int perf_server_only[] = { 'D', 'r', 0 };

/* Options that have no effect with the role and channel given; false after saying which. */
static bool perf_check_effect(const struct perf_opts *o, const struct dp_opt_parser *p)
{
	if (o->server)
		return tool_refuse_given(perf_prog, p, perf_client_only,
					 "is for the client (a server counts what arrives)");
	if (!tool_refuse_given(perf_prog, p, perf_server_only,
			       "is for the server (a client receives nothing)"))
		return false;
	return o->mode != PERF_QUICK ||
	       tool_refuse_given(perf_prog, p, (const int[]){ 'S', 0 },
				 "is the bulk payload: --chan quick sends 32 bytes of arguments");
}

/* Cross-option checks; false after printing why. */
static bool perf_check(struct perf_opts *o, const struct dp_opt_parser *p)
{
	if (!o->server && !o->client) {
		fprintf(stderr, "%s: give --server or --client (see --help)\n", perf_prog);
		return false;
	}
	if (!o->ep.key_len) {
		fprintf(stderr, "%s: no key: give --key-file FILE\n", perf_prog);
		return false;
	}
	if (o->client && o->node < 0) {
		fprintf(stderr, "%s: --client needs --node N\n", perf_prog);
		return false;
	}
	if (!perf_check_effect(o, p))
		return false;
	if (o->client && o->duration > 0 && o->messages) {
		fprintf(stderr, "%s: --duration and --messages: a client takes one or the other\n",
			perf_prog);
		return false;
	}
	if (o->duration < 0)
		o->duration = o->client && !o->messages ? 5 : 0;
	return true;
}

/* Parse the command line; 0 to run, 1 after --help, 2 on an error. */
static int perf_parse(struct perf_opts *o, int argc, char **argv)
{
	struct dp_opt_parser p;
	int rc;

	memset(o, 0, sizeof(*o));
	o->ep.vnet = 1;
	o->node = -1;
	o->mode = PERF_BULK;
	o->size = SEGNET_MAX_PAYLOAD;
	o->window = 32;
	o->join_wait_ms = 10000;
	o->recv_bufs = 256;
	o->duration = -1;	/* not given */
	rc = tool_getopt(perf_prog, argc, argv, perf_long_opts, NULL, perf_groups, perf_usage,
			 perf_option, o, &p);
	if (rc)
		return rc;
	return perf_check(o, &p) ? 0 : 2;
}

/* Name of channel index ch. */
static const char *perf_chan_name(int ch)
{
	return ch == SEGNET_BULK ? "bulk" : "quick";
}

/* The errors of c by status, as "down 3, retries 1" (JSON: "\"down\": 3, ..."). */
static const char *perf_status_list(const struct perf_chan *c, bool json, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int st = 1; st < PERF_STATUSES && at < len; st++) {
		const char *name = st == PERF_STATUSES - 1 ? "other" : segnet_status_name(st);

		if (!c->by_status[st])
			continue;
		at += (size_t)snprintf(buf + at, len - at, json ? "%s\"%s\": %llu" : "%s%s %llu",
				       at ? ", " : "", name, (unsigned long long)c->by_status[st]);
	}
	return buf;
}

/* Print one channel's line of the results. */
static void perf_report_chan(const struct perf_run *r, int ch, double secs, bool first)
{
	const struct perf_chan *c = &r->ch[ch];
	double dt = c->last > c->first ? (double)(c->last - c->first) / 1e9 : secs;
	double mps = dt > 0 ? (double)c->msgs / dt : 0;
	double gbps = dt > 0 ? (double)c->bytes * 8 / dt / 1e9 : 0;
	char why[160];

	perf_status_list(c, r->o->json, why, sizeof(why));
	if (r->o->json) {
		/* Each side reports what it counts: the other's counts are 0 there. */
		printf("%s\"%s\": {", first ? "" : ", ", perf_chan_name(ch));
		if (r->o->server)
			printf("\"messages\": %llu, \"corrupt\": %llu, ",
			       (unsigned long long)c->msgs, (unsigned long long)c->corrupt);
		else
			printf("\"sent\": %llu, \"messages\": %llu, \"errors\": %llu, \"errors_by_status\": {%s}, ",
			       (unsigned long long)c->sent, (unsigned long long)c->msgs,
			       (unsigned long long)c->errors, why);
		printf("\"bytes\": %llu, \"msgs_per_s\": %.1f, \"gbit_per_s\": %.6f, \"hash\": \"%016llx\"}",
		       (unsigned long long)c->bytes, mps, gbps, (unsigned long long)c->hash);
		return;
	}
	if (r->o->server)
		printf("  %-5s: %llu received, %llu corrupt",
		       perf_chan_name(ch), (unsigned long long)c->msgs,
		       (unsigned long long)c->corrupt);
	else
		printf("  %-5s: %llu sent, %llu acknowledged, %llu failed%s%s%s",
		       perf_chan_name(ch), (unsigned long long)c->sent,
		       (unsigned long long)c->msgs, (unsigned long long)c->errors,
		       why[0] ? " (" : "", why, why[0] ? ")" : "");
	printf(", %llu bytes, %.0f msg/s, %.3f Gbit/s, hash %016llx\n",
	       (unsigned long long)c->bytes, mps, gbps, (unsigned long long)c->hash);
}

/* Print the results. */
static void perf_report(const struct perf_run *r, double secs)
{
	const char *role = r->o->server ? "server" : "client";
	bool first = true, failed = false;

	if (r->o->json) {
		printf("{\"role\": \"%s\", \"duration_s\": %.6f, ", role, secs);
		if (!r->o->server)
			printf("\"window\": %llu, ", (unsigned long long)r->o->window);
		printf("\"channels\": {");
	} else {
		printf("segnet-perf %s: %.3f s\n", role, secs);
	}
	for (int ch = 0; ch < PERF_CHANS; ch++) {
		const struct perf_chan *c = &r->ch[ch];

		if (!c->sent && !c->msgs && !c->errors)
			continue;
		perf_report_chan(r, ch, secs, first);
		first = false;
		failed |= c->errors > 0;
	}
	if (r->o->json)
		printf("}}\n");
	else if (!r->o->server)
		printf("  acknowledged: taken by node %ld's NIC, which also acknowledges and drops\n"
		       "  a message for an endpoint that is not open (a server that went away):\n"
		       "  the server's count says what an application received\n", r->o->node);
	/* A message that failed (down, a time-out) may or may not have arrived. */
	if (!r->o->json && !r->o->server && failed && !r->o->no_verify)
		printf("  hashes: the client's covers the acknowledged messages only; a failed\n"
		       "  one may still have reached the server, whose count and hash then differ\n");
	fflush(stdout);
}

/* Wait for work, or spin. */
static void perf_idle(struct segnet_ep *ep, const struct perf_opts *o, int ms)
{
	if (!o->busy)
		segnet_wait(ep, ms);
}

/* Server handler: count, check and hash one message. */
static void perf_on_msg(struct segnet_ep *ep, const struct segnet_msg *m, void *ctx)
{
	struct perf_run *r = ctx;
	struct perf_args a;
	struct perf_chan *c;
	uint64_t now = tool_now_ns();

	(void)ep;
	memcpy(&a, m->args, sizeof(a));
	if (a.magic != PERF_MAGIC || a.chan != m->chan || m->chan >= PERF_CHANS)
		return;
	c = &r->ch[m->chan];
	if (!c->msgs)
		c->first = now;
	c->last = now;
	c->msgs++;
	r->received++;
	if (m->chan == SEGNET_QUICK) {
		c->bytes += SEGNET_ARGS_LEN;
		if (!r->o->no_verify)
			c->hash += tool_msg_hash(a.seq, NULL, 0);
		return;
	}
	c->bytes += m->len;
	if (r->o->no_verify)
		return;
	c->hash += tool_msg_hash(a.seq, m->data, m->len);
	if (m->len != a.size || !tool_pattern_ok(a.seq, m->data, m->len))
		c->corrupt++;
}

/* Run the server; the exit status. */
static int perf_server(struct segnet_ep *ep, struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	uint64_t t0 = tool_now_ns();
	uint64_t end = o->duration ? t0 + (uint64_t)(o->duration * 1e9) : UINT64_MAX;
	char where[96];
	int rc = 0;

	segnet_set_handler(ep, PERF_H, perf_on_msg, r);
	if (o->start_delay_ms) {
		struct timespec ts = { (time_t)(o->start_delay_ms / 1000),
				       (long)(o->start_delay_ms % 1000) * 1000000 };

		nanosleep(&ts, NULL);
	}
	/* With --json stdout holds the results alone: say it on stderr. */
	fprintf(o->json ? stderr : stdout, "segnet-perf: server on %s\n",
		tool_ep_where(ep, o->ep.vnet, where, sizeof(where)));
	fflush(o->json ? stderr : stdout);
	while (!tool_stop && tool_now_ns() < end && (!o->messages || r->received < o->messages)) {
		uint64_t before = r->received;

		rc = segnet_poll(ep, NULL, 0);
		if (rc < 0)
			break;
		if (r->received == before)
			perf_idle(ep, o, 100);
	}
	if (rc == -ESHUTDOWN)
		fprintf(stderr, "%s: nicd went away\n", perf_prog);
	perf_report(r, (double)(tool_now_ns() - t0) / 1e9);
	return rc < 0 ? TOOL_EXIT_FAIL : TOOL_EXIT_OK;
}

/* Client: the channel of the next send. */
static int perf_next_chan(const struct perf_run *r)
{
	if (r->o->mode == PERF_BULK)
		return SEGNET_BULK;
	if (r->o->mode == PERF_QUICK)
		return SEGNET_QUICK;
	return r->seq[SEGNET_BULK] > r->seq[SEGNET_QUICK] ? SEGNET_QUICK : SEGNET_BULK;
}

/* Client: send one message on ch; 0, -EAGAIN or -errno. */
static int perf_send_one(struct segnet_ep *ep, struct perf_run *r, int ch)
{
	const struct perf_opts *o = r->o;
	uint32_t slot = r->free_slot;
	struct perf_args a = {
		.magic = PERF_MAGIC, .chan = (uint8_t)ch, .seq = r->seq[ch],
		.size = ch == SEGNET_BULK ? o->size : 0,
	};
	int rc;

	if (ch == SEGNET_BULK) {
		if (!o->no_verify || !a.seq)
			tool_pattern(a.seq, r->buf, o->size);
		rc = segnet_send_bulk(ep, (uint16_t)o->node, o->dst_ep, PERF_H, &a, r->buf,
				      o->size, slot);
	} else {
		rc = segnet_send_quick(ep, (uint16_t)o->node, o->dst_ep, PERF_H, &a, slot);
	}
	if (rc)
		return rc;
	r->slots[slot].chan = (uint8_t)ch;
	r->slots[slot].hash = o->no_verify ? 0 : tool_msg_hash(a.seq, ch == SEGNET_BULK ? r->buf : NULL,
					    ch == SEGNET_BULK ? o->size : 0);
	r->free_slot = r->slots[slot].next_free;
	if (!r->ch[ch].sent)
		r->ch[ch].first = tool_now_ns();
	r->ch[ch].sent++;
	r->seq[ch]++;
	r->outstanding++;
	return 0;
}

/* Client: account for completions. */
static void perf_complete(struct perf_run *r, const struct segnet_completion *c, int n)
{
	uint64_t now = tool_now_ns();

	for (int i = 0; i < n; i++) {
		struct perf_slot *s = &r->slots[c[i].cookie];
		struct perf_chan *ch = &r->ch[s->chan];

		if (c[i].status == SEGNET_OK) {
			ch->msgs++;
			ch->bytes += s->chan == SEGNET_BULK ? r->o->size : SEGNET_ARGS_LEN;
			ch->hash += s->hash;
		} else {
			ch->errors++;
			ch->by_status[c[i].status > 0 && c[i].status < PERF_STATUSES ?
				      c[i].status : PERF_STATUSES - 1]++;
		}
		ch->last = now;
		s->next_free = r->free_slot;
		r->free_slot = (uint32_t)c[i].cookie;
		r->outstanding--;
	}
}

/* Client: true while there is more to send. */
static bool perf_more(const struct perf_run *r, uint64_t end)
{
	uint64_t sent = r->ch[0].sent + r->ch[1].sent;

	if (tool_stop || (r->o->messages && sent >= r->o->messages))
		return false;
	return tool_now_ns() < end;
}

/* Run the client; the exit status. */
static int perf_client(struct segnet_ep *ep, struct perf_run *r)
{
	const struct perf_opts *o = r->o;
	struct segnet_completion comps[64];
	uint64_t t0 = tool_now_ns(), end, drain_end = 0;
	int n = 0, rc = 0;

	end = o->duration ? t0 + (uint64_t)(o->duration * 1e9) : UINT64_MAX;
	for (uint32_t i = 0; i < o->window; i++)
		r->slots[i].next_free = i + 1;
	for (;;) {
		bool sending = perf_more(r, end);

		if (!sending && !r->outstanding)
			break;
		if (!sending && !drain_end)
			drain_end = tool_now_ns() + PERF_DRAIN_MS * 1000000ull;
		if (drain_end && tool_now_ns() > drain_end)
			break;
		while (sending && r->outstanding < o->window && perf_more(r, end)) {
			rc = perf_send_one(ep, r, perf_next_chan(r));
			if (rc)
				break;
		}
		if (rc && rc != -EAGAIN)
			break;
		rc = 0;
		n = segnet_poll(ep, comps, 64);
		if (n < 0)
			break;
		perf_complete(r, comps, n);
		if (!n && (r->outstanding >= o->window || !sending))
			perf_idle(ep, o, 10);
	}
	if (n < 0 || rc)
		fprintf(stderr, "%s: %s\n", perf_prog, n == -ESHUTDOWN || rc == -ESHUTDOWN ?
			"nicd went away" : strerror(rc ? -rc : -n));
	perf_report(r, (double)(tool_now_ns() - t0) / 1e9);
	if (r->outstanding)
		fprintf(stderr, "%s: %llu sends did not complete\n", perf_prog,
			(unsigned long long)r->outstanding);
	return n < 0 || rc || r->outstanding || r->ch[0].errors || r->ch[1].errors ?
	       TOOL_EXIT_FAIL : TOOL_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct segnet_open_opts oo = { 0 };
	struct perf_opts o;
	struct perf_run *r;
	struct segnet_ep *ep;
	int rc;

	/* A log file gets each line when it is written, in order with stderr. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = perf_parse(&o, argc, argv);
	if (rc)
		return rc == 1 ? TOOL_EXIT_OK : TOOL_EXIT_USAGE;
	tool_signals();
	oo.send_bufs = (uint16_t)(o.window < 64 ? 64 : o.window);
	oo.recv_bufs = (uint16_t)o.recv_bufs;
	/*
	 * Batch wake-ups like interrupt mitigation, or 100 us: the client after
	 * a quarter of its window completed, the server (which has no window)
	 * after a quarter of its receive buffers filled.
	 */
	if (o.server)
		oo.wake_threshold = o.recv_bufs >= 8 ? (uint32_t)o.recv_bufs / 4 : 1;
	else
		oo.wake_threshold = o.window >= 8 ? (uint32_t)o.window / 4 : 1;
	oo.wake_delay_us = PERF_WAKE_DELAY_US;
	r = calloc(1, sizeof(*r));
	if (r)
		r->slots = calloc(o.window + 1, sizeof(*r->slots));
	if (!r || !r->slots) {
		fprintf(stderr, "%s: out of memory\n", perf_prog);
		free(r);
		return TOOL_EXIT_FAIL;
	}
	r->o = &o;
	ep = tool_ep_open(perf_prog, &o.ep, &oo);
	rc = TOOL_EXIT_FAIL;
	if (ep && o.client && !tool_check_ep(perf_prog, ep, o.dst_ep))
		rc = TOOL_EXIT_USAGE;
	else if (ep && (o.server ||
			tool_wait_joined(perf_prog, ep, (uint32_t)o.join_wait_ms, o.node)))
		rc = o.server ? perf_server(ep, r) : perf_client(ep, r);
	if (ep)
		segnet_close(ep);
	free(r->slots);
	free(r);
	return rc;
}
