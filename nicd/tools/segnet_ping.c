/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segnet-ping: round trips through segnet, like ping. The server echoes
 * every ping back to its sender on the channel it came on; the client
 * sends pings (quick: 32 bytes of arguments; bulk: arguments and a
 * payload) to (node, endpoint), one per interval, and prints each round
 * trip and min/mean/p50/p99/max at the end. doc/man/segnet-ping.1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tool_util.h"

static const char ping_prog[] = "segnet-ping";

enum {
	PING_H_REQUEST = 1,	/* handler of a ping */
	PING_H_REPLY = 2,	/* handler of its echo */
	PING_MAGIC = 0x50494e47,	/* "PING" */
	PING_BACKLOG = 1024,	/* echoes the server holds while its sends are busy */
};

/* What a ping carries in its arguments. */
struct ping_args {
	uint32_t magic;		/* PING_MAGIC */
	uint32_t seq;		/* sequence number */
	uint64_t t_send;	/* CLOCK_MONOTONIC ns at the client */
	uint32_t size;		/* payload bytes */
	uint8_t pad[12];	/* to SEGNET_ARGS_LEN */
};
_Static_assert(sizeof(struct ping_args) == SEGNET_ARGS_LEN, "ping arguments");

/* The command line. */
struct ping_opts {
	struct tool_ep_opts ep;		/* --nicd, --vnet, --key-file */
	bool server;			/* --server */
	long node;			/* --node (-1: not given) */
	uint16_t dst_ep;		/* --ep */
	bool bulk;			/* --bulk (else quick) */
	uint32_t size;			/* --size */
	uint64_t count;			/* --count (0 = until interrupted) */
	bool count_given;		/* --count was on the command line */
	double interval_ms;		/* --interval */
	double timeout_ms;		/* --timeout */
	uint64_t join_wait_ms;		/* --join-wait */
	bool csv;			/* --csv */
	bool busy;			/* --busy-poll */
	bool quiet;			/* --quiet */
};

/* An echo the server still has to send. */
struct ping_echo {
	uint16_t node, ep;		/* back to */
	uint8_t chan;			/* on */
	uint16_t len;			/* payload bytes */
	uint8_t args[SEGNET_ARGS_LEN];	/* as received */
	uint8_t data[SEGNET_MAX_PAYLOAD];	/* as received */
};

/* The server's state. */
struct ping_server {
	struct ping_echo *q;	/* ring of echoes waiting for a send buffer */
	unsigned int head, n;	/* oldest, how many */
	uint64_t echoed;	/* echoes sent */
	uint64_t dropped;	/* echoes dropped: backlog full, or the send refused */
};

/* The client's state. */
struct ping_client {
	const struct ping_opts *o;	/* options */
	struct tool_samples rtt;	/* round trips */
	uint32_t waiting;		/* seq of the ping in flight (0: none) */
	bool answered;			/* its echo came */
	bool failed;			/* its send completed with an error */
	uint64_t received;		/* echoes that matched, within --timeout */
};

/* Print the usage text. */
static void ping_usage(FILE *f)
{
	fprintf(f,
		"usage: segnet-ping [--nicd NAME|PATH] [--vnet ID] --key-file FILE --server\n"
		"       segnet-ping [--nicd NAME|PATH] [--vnet ID] --key-file FILE --node N [--ep E]\n"
		"                   [--quick | --bulk] [--size BYTES] [--count N] [--interval MS]\n"
		"                   [--timeout MS] [--csv]\n"
		"\n"
		"Round trips through segnet: the client pings endpoint E of node N, where\n"
		"segnet-ping --server echoes every ping back on the channel it came on.\n"
		"\n"
		"  --nicd NAME|PATH   nicd control socket (default segnet0: /run/segnet/segnet0.sock)\n"
		"  --vnet ID          virtual network (default 1)\n"
		"  --key-file FILE    the virtual network's key (--key STRING for tests)\n"
		"  --server           echo pings until interrupted (or --count echoes)\n"
		"  --node N, --ep E   the server's node and endpoint (default endpoint 0; below\n"
		"                     nicd's --endpoints)\n"
		"  --quick            quick channel: 32 bytes of arguments (default)\n"
		"  --bulk             bulk channel: arguments and --size bytes of payload\n"
		"  --size BYTES       bulk payload, 0 .. 2048 (default 64)\n"
		"  --count N          pings to send (default 10; 0 = until interrupted);\n"
		"                     with --server: echoes to send before exiting\n"
		"  --interval MS      between pings (default 1000)\n"
		"  --timeout MS       wait for each echo, 0.001 .. 3600000 (default 1000); an\n"
		"                     echo after it counts as lost\n"
		"  --join-wait MS     wait for the NIC to join a cluster (default 10000)\n"
		"  --csv              one line per ping: seq,bytes,rtt_us (summary on stderr)\n"
		"  --busy-poll        spin instead of sleeping between polls (lower latency)\n"
		"  --quiet            only the summary\n"
		"  --help             this text\n"
		"\n"
		"Exit status: 0 when an echo came back, 1 when none did or on a failure,\n"
		"2 on bad arguments.\n");
}

/* Option table. */
static const struct option ping_long_opts[] = {
	{ "nicd", required_argument, NULL, 'n' },
	{ "vnet", required_argument, NULL, 'v' },
	{ "key-file", required_argument, NULL, 'k' },
	{ "key", required_argument, NULL, 'K' },
	{ "server", no_argument, NULL, 's' },
	{ "node", required_argument, NULL, 'N' },
	{ "ep", required_argument, NULL, 'e' },
	{ "quick", no_argument, NULL, 'q' },
	{ "bulk", no_argument, NULL, 'b' },
	{ "size", required_argument, NULL, 'S' },
	{ "count", required_argument, NULL, 'c' },
	{ "interval", required_argument, NULL, 'i' },
	{ "timeout", required_argument, NULL, 't' },
	{ "join-wait", required_argument, NULL, 'j' },
	{ "csv", no_argument, NULL, 'C' },
	{ "busy-poll", no_argument, NULL, 'B' },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Options of which one may be given: the key, the channel. */
static const int ping_chan_group[] = { 'q', 'b', 0 };
static const int *const ping_groups[] = { tool_key_group, ping_chan_group, NULL };

/* Parse one option into o; false (after a message) when it is bad. */
static bool ping_option(void *opts, int c, const char *arg)
{
	struct ping_opts *o = opts;
	uint64_t v;
	int r = tool_ep_option(ping_prog, &o->ep, c, arg);

	if (r)
		return r > 0;
	switch (c) {
	case 's':
		o->server = true;
		return true;
	case 'q':
		o->bulk = false;
		return true;
	case 'b':
		o->bulk = true;
		return true;
	case 'C':
		o->csv = true;
		return true;
	case 'B':
		o->busy = true;
		return true;
	case 'Q':
		o->quiet = true;
		return true;
	case 'N':
		if (!tool_parse_u64(ping_prog, "--node", arg, 0, 65533, &v))
			return false;
		o->node = (long)v;
		return true;
	case 'e':
		if (!tool_parse_u64(ping_prog, "--ep", arg, 0, 65535, &v))
			return false;
		o->dst_ep = (uint16_t)v;
		return true;
	case 'S':
		if (!tool_parse_u64(ping_prog, "--size", arg, 0, SEGNET_MAX_PAYLOAD, &v))
			return false;
		o->size = (uint32_t)v;
		return true;
	case 'c':
		o->count_given = true;
		return tool_parse_u64(ping_prog, "--count", arg, 0, UINT32_MAX - 1, &o->count);
	case 'i':
		return tool_parse_double(ping_prog, "--interval", arg, 0, 3600e3, &o->interval_ms);
	case 't':
		/* No echo comes back within no time: every ping would be lost. */
		return tool_parse_double(ping_prog, "--timeout", arg, 0.001, 3600e3,
					 &o->timeout_ms);
	case 'j':
		return tool_parse_u64(ping_prog, "--join-wait", arg, 0, 3600000, &o->join_wait_ms);
	}
	fprintf(stderr, "%s: unknown option (see --help)\n", ping_prog);
	return false;
}

/* Options a server has no use for: it echoes whoever pings, on their channel. */
static const int ping_client_only[] = { 'N', 'e', 'q', 'b', 'S', 'i', 't', 'j', 'C', 'Q', 0 };

/* Options that have no effect with the role and channel given; false after saying which. */
static bool ping_check_effect(const struct ping_opts *o, const struct dp_opt_parser *p)
{
	if (o->server)
		return tool_refuse_given(ping_prog, p, ping_client_only,
					 "is for the client (a server echoes whoever pings, on the channel it came on)");
	return o->bulk || tool_refuse_given(ping_prog, p, (const int[]){ 'S', 0 },
					    "is the bulk payload: give --bulk (a quick ping carries 32 bytes of arguments)");
}

/* Parse the command line; 0 to run, 1 after --help, 2 on an error. */
static int ping_parse(struct ping_opts *o, int argc, char **argv)
{
	struct dp_opt_parser p;
	int rc;

	memset(o, 0, sizeof(*o));
	o->ep.vnet = 1;
	o->node = -1;
	o->size = 64;
	o->count = 10;
	o->interval_ms = 1000;
	o->timeout_ms = 1000;
	o->join_wait_ms = 10000;
	rc = tool_getopt(ping_prog, argc, argv, ping_long_opts, NULL, ping_groups, ping_usage,
			 ping_option, o, &p);
	if (rc)
		return rc;
	if (!o->ep.key_len) {
		fprintf(stderr, "%s: no key: give --key-file FILE\n", ping_prog);
		return 2;
	}
	if (o->server && !o->count_given)
		o->count = 0;	/* a server echoes until interrupted */
	if (!o->server && o->node < 0) {
		fprintf(stderr, "%s: give --node N (and --ep E) to ping, or --server to echo\n",
			ping_prog);
		return 2;
	}
	return ping_check_effect(o, &p) ? 0 : 2;
}

/* Wait for something to poll, or spin. */
static void ping_idle(struct segnet_ep *ep, const struct ping_opts *o, int ms)
{
	if (!o->busy)
		segnet_wait(ep, ms);
}

/* Server: try to send the oldest queued echoes. */
static int ping_server_flush(struct segnet_ep *ep, struct ping_server *s)
{
	while (s->n) {
		struct ping_echo *e = &s->q[s->head];
		int rc = e->chan == SEGNET_BULK ?
			segnet_send_bulk(ep, e->node, e->ep, PING_H_REPLY, e->args, e->data,
					 e->len, 0) :
			segnet_send_quick(ep, e->node, e->ep, PING_H_REPLY, e->args, 0);

		if (rc == -EAGAIN)
			return 0;
		if (rc == -ESHUTDOWN)
			return rc;
		/* A refused echo (-EINVAL: its sender's node left the cluster) is dropped. */
		if (rc)
			s->dropped++;
		else
			s->echoed++;
		s->head = (s->head + 1) % PING_BACKLOG;
		s->n--;
	}
	return 0;
}

/* Server handler: queue the echo of a ping. */
static void ping_on_request(struct segnet_ep *ep, const struct segnet_msg *m, void *ctx)
{
	struct ping_server *s = ctx;
	struct ping_echo *e;

	(void)ep;
	if (s->n == PING_BACKLOG) {
		s->dropped++;
		return;
	}
	e = &s->q[(s->head + s->n++) % PING_BACKLOG];
	e->node = m->src_node;
	e->ep = m->src_ep;
	e->chan = m->chan;
	e->len = m->len;
	memcpy(e->args, m->args, SEGNET_ARGS_LEN);
	if (m->len)
		memcpy(e->data, m->data, m->len);
}

/* Run the echo server until interrupted, nicd's end, or count echoes. */
static int ping_server_run(struct segnet_ep *ep, const struct ping_opts *o)
{
	struct ping_server s = { .q = calloc(PING_BACKLOG, sizeof(struct ping_echo)) };
	struct segnet_completion comps[64];
	char where[96];
	int rc = 0;

	if (!s.q) {
		fprintf(stderr, "%s: out of memory\n", ping_prog);
		return TOOL_EXIT_FAIL;
	}
	segnet_set_handler(ep, PING_H_REQUEST, ping_on_request, &s);
	printf("segnet-ping: echoing on %s\n", tool_ep_where(ep, o->ep.vnet, where, sizeof(where)));
	fflush(stdout);
	while (!tool_stop && (!o->count || s.echoed < o->count)) {
		rc = segnet_poll(ep, comps, 64);
		if (rc >= 0)
			rc = ping_server_flush(ep, &s);
		if (rc < 0)
			break;
		if (!s.n)
			ping_idle(ep, o, 200);
	}
	printf("segnet-ping: %llu echoes sent, %llu dropped%s\n",
	       (unsigned long long)s.echoed, (unsigned long long)s.dropped,
	       rc == -ESHUTDOWN ? " (nicd went away)" : "");
	free(s.q);
	return rc == -ESHUTDOWN ? TOOL_EXIT_FAIL : TOOL_EXIT_OK;
}

/* Client handler: an echo. */
static void ping_on_reply(struct segnet_ep *ep, const struct segnet_msg *m, void *ctx)
{
	struct ping_client *c = ctx;
	struct ping_args a;
	uint64_t rtt;

	(void)ep;
	memcpy(&a, m->args, sizeof(a));
	if (a.magic != PING_MAGIC || a.seq != c->waiting || c->answered)
		return;		/* late or foreign */
	rtt = tool_now_ns() - a.t_send;
	/* A wait rounds up to whole ms: an echo polled after the timeout is lost. */
	if ((double)rtt > c->o->timeout_ms * 1e6)
		return;
	c->answered = true;
	c->received++;
	tool_samples_add(&c->rtt, rtt);
	if (c->o->quiet)
		return;
	if (c->o->csv)
		printf("%u,%u,%.3f\n", a.seq, m->chan == SEGNET_BULK ? m->len : SEGNET_ARGS_LEN,
		       (double)rtt / 1e3);
	else
		printf("%u bytes from node %u ep %u: seq=%u time=%.1f us\n",
		       m->chan == SEGNET_BULK ? m->len : SEGNET_ARGS_LEN, m->src_node,
		       m->src_ep, a.seq, (double)rtt / 1e3);
}

/* Send ping seq; 0 or -errno. */
static int ping_send(struct segnet_ep *ep, const struct ping_opts *o, uint32_t seq,
		     const uint8_t *payload)
{
	struct ping_args a = {
		.magic = PING_MAGIC, .seq = seq, .size = o->bulk ? o->size : 0,
		.t_send = tool_now_ns(),
	};

	if (o->bulk)
		return segnet_send_bulk(ep, (uint16_t)o->node, o->dst_ep, PING_H_REQUEST, &a,
					payload, o->size, seq);
	return segnet_send_quick(ep, (uint16_t)o->node, o->dst_ep, PING_H_REQUEST, &a, seq);
}

/*
 * Poll until the echo of the ping in flight came, its send failed (no echo
 * will come) or deadline; -ESHUTDOWN or 0.
 */
static int ping_await(struct segnet_ep *ep, struct ping_client *c, uint64_t deadline)
{
	struct segnet_completion comps[16];
	uint64_t now;
	int n;

	while (!tool_stop) {
		n = segnet_poll(ep, comps, 16);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			if (comps[i].status == SEGNET_OK)
				continue;
			c->failed |= comps[i].cookie == c->waiting;
			if (!c->o->quiet)
				fprintf(stderr, "seq %llu: send failed: %s\n",
					(unsigned long long)comps[i].cookie,
					segnet_status_name(comps[i].status));
		}
		now = tool_now_ns();
		if (c->answered || c->failed || now >= deadline)
			return 0;
		ping_idle(ep, c->o, (int)((deadline - now) / 1000000 + 1));
	}
	return 0;
}

/* Sleep until t (CLOCK_MONOTONIC ns) or a signal. */
static void ping_sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

	while (!tool_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Print the summary like ping. */
static void ping_summary(struct ping_client *c, uint32_t sent)
{
	FILE *f = c->o->csv ? stderr : stdout;
	struct tool_lat l = tool_samples_stats(&c->rtt);
	char pct[32];

	fprintf(f, "--- node %ld ep %u segnet-ping statistics ---\n", c->o->node, c->o->dst_ep);
	fprintf(f, "%u sent, %llu received, %s%% lost\n", sent, (unsigned long long)c->received,
		tool_percent(sent - c->received, sent, pct, sizeof(pct)));
	if (c->received)
		fprintf(f, "rtt min/mean/p50/p99/max = %.1f/%.1f/%.1f/%.1f/%.1f us\n",
			l.min, l.mean, l.p50, l.p99, l.max);
}

/* Run the client; the exit status. */
static int ping_client_run(struct segnet_ep *ep, const struct ping_opts *o)
{
	struct ping_client c = { .o = o };
	uint8_t payload[SEGNET_MAX_PAYLOAD];
	char num[DP_OPT_NUM_LEN];
	uint64_t next = tool_now_ns();
	uint32_t seq, sent = 0;
	int rc = 0;

	tool_pattern(0, payload, sizeof(payload));
	segnet_set_handler(ep, PING_H_REPLY, ping_on_reply, &c);
	if (!o->quiet && !o->csv)
		printf("SEGNET-PING node %ld ep %u from node %u ep %u: %s, %u bytes\n", o->node,
		       o->dst_ep, segnet_node(ep), segnet_endpoint(ep),
		       o->bulk ? "bulk" : "quick", o->bulk ? o->size : SEGNET_ARGS_LEN);
	else if (o->csv && !o->quiet)
		printf("seq,bytes,rtt_us\n");
	for (seq = 1; !tool_stop && (!o->count || seq <= o->count) && rc >= 0; seq++) {
		ping_sleep_until(next);
		if (tool_stop)
			break;		/* a ping sent now could only count as lost */
		next = tool_now_ns() + (uint64_t)(o->interval_ms * 1e6);
		c.waiting = seq;
		c.answered = false;
		c.failed = false;
		rc = ping_send(ep, o, seq, payload);
		if (rc == -EAGAIN) {
			rc = 0;		/* every buffer busy: count it as sent and lost */
			sent++;
			continue;
		}
		if (rc < 0)
			break;
		sent++;
		rc = ping_await(ep, &c, tool_now_ns() + (uint64_t)(o->timeout_ms * 1e6));
		if (!c.answered && !c.failed && rc == 0 && !tool_stop && !o->quiet)
			fprintf(o->csv ? stderr : stdout, "seq %u: no echo within %s ms\n", seq,
				dp_opt_num(o->timeout_ms, num));
	}
	if (rc == -ESHUTDOWN)
		fprintf(stderr, "segnet-ping: nicd went away\n");
	else if (rc < 0)
		fprintf(stderr, "segnet-ping: send: %s\n", strerror(-rc));
	ping_summary(&c, sent);
	tool_samples_free(&c.rtt);
	return c.received ? TOOL_EXIT_OK : TOOL_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	struct segnet_open_opts oo = { .send_bufs = 64, .recv_bufs = 64 };
	struct ping_opts o;
	struct segnet_ep *ep;
	int rc = ping_parse(&o, argc, argv);

	if (rc)
		return rc == 1 ? TOOL_EXIT_OK : TOOL_EXIT_USAGE;
	tool_signals();
	ep = tool_ep_open(ping_prog, &o.ep, &oo);
	if (!ep)
		return TOOL_EXIT_FAIL;
	if (!o.server && !tool_check_ep(ping_prog, ep, o.dst_ep)) {
		segnet_close(ep);
		return TOOL_EXIT_USAGE;
	}
	if (!o.server && !tool_wait_joined(ping_prog, ep, (uint32_t)o.join_wait_ms, o.node)) {
		segnet_close(ep);
		return TOOL_EXIT_FAIL;
	}
	if (!o.csv || o.server)
		setvbuf(stdout, NULL, _IOLBF, 0);
	rc = o.server ? ping_server_run(ep, &o) : ping_client_run(ep, &o);
	segnet_close(ep);
	return rc;
}
