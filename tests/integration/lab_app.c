/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lab-app: the libsegnet side of the virtual-lab integration tests
 * (lab_*.sh on scripts/lab.sh). Three checks, each its exit status:
 *
 *   lab-app order --from NICD --to NICD --key-file F [--vnet V] [--count N]
 *                 [--seed S] --expect in-order|reordered|violations
 *       opens a receiver endpoint at --to and a sender at --from, sends N
 *       messages numbered 0 .. N-1 to the receiver, each on the quick or
 *       the bulk channel as a seeded random sequence picks (bulk payloads
 *       of a random length with a pattern of their number), and records
 *       the order they arrive in. Every message must arrive once, intact,
 *       and complete successfully; then "in-order" needs them in send
 *       order (a CONF4 virtual network orders across both channels) and
 *       "reordered" needs at least one out of order (CONF3 does not).
 *       "violations" (CONF1 under --fault) needs at least one message
 *       lost or duplicated once every send completed and arrivals stopped
 *       for a second (order alone says nothing: CONF1 and CONF3 reorder
 *       across channels without faults); completions may fail.
 *
 *   lab-app probe --nicd NICD --node D [--ep E] --key-file F [--vnet V]
 *                 [--count K] --expect ok|down|refused
 *       sends K quick and K bulk messages to (D, E) and waits for their
 *       completions: all must have the expected status (SEGNET_OK, or
 *       SEGNET_EDOWN for a node that left); "refused": a node outside the
 *       cluster, every send must fail at once with EINVAL.
 *
 *   lab-app keys --nicd NICD --key-file F [--vnet V] [--other-key-file F2]
 *       opens an endpoint with the right key, then checks that a wrong key
 *       (one byte changed, one byte short, F2's) is refused with EACCES
 *       and an unserved virtual network with ENOENT.
 *
 * Common options: --timeout-ms (default 30000). No DPDK.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nicd/tools/tool_util.h"

enum {
	LAB_HANDLER = 9,		/* handler id of the test messages */
	LAB_MAX_COUNT = 100000,		/* messages of one run at most */
	LAB_IDLE_US = 200,		/* sleep when a loop found nothing to do */
	LAB_COMP_BURST = 64,		/* completions reaped per poll */
	LAB_UNSERVED_VNET = 65000,	/* a virtual network the lab does not serve */
};

/* Marks the test's messages. */
static const uint32_t LAB_MAGIC = 0x1ab0a990;

static const char *lab_prog = "lab-app";

/* What each test message carries as its arguments. */
struct lab_args {
	uint32_t magic;		/* LAB_MAGIC */
	uint32_t seq;		/* its number */
	uint16_t len;		/* bulk payload bytes */
	uint8_t chan;		/* enum segnet_chan */
	uint8_t pad[SEGNET_ARGS_LEN - 11];
} __attribute__((packed));
_Static_assert(sizeof(struct lab_args) == SEGNET_ARGS_LEN, "lab_args");

/* The command line. */
struct lab_opts {
	const char *mode;		/* order, probe or keys */
	struct tool_ep_opts ep;		/* --nicd (--from), --vnet, --key-file */
	const char *to;			/* order: the receiver's nicd */
	const char *other_key;		/* keys: another network's key file */
	uint16_t node;			/* probe: target node */
	uint16_t dst_ep;		/* probe: target endpoint */
	uint32_t count;			/* messages */
	uint64_t seed;			/* order: channel and length sequence */
	const char *expect;		/* in-order, reordered, violations, ok, down */
	uint32_t timeout_ms;		/* limit of the whole run */
};

/* What the receiver saw (order). */
struct lab_rx {
	uint32_t count;		/* messages expected */
	uint8_t *seen;		/* [seq]: arrivals */
	uint32_t arrived;	/* distinct messages arrived */
	uint32_t dup;		/* arrivals beyond the first */
	uint32_t bad;		/* wrong content */
	uint32_t late;		/* arrived after a higher number */
	int64_t max_seq;	/* highest number so far, -1 before any */
	uint32_t first_late;	/* the first one out of order */
	uint32_t first_late_after;	/* ... and the number before it */
	uint8_t first_late_chan;	/* its channel */
};

/* splitmix64 of (seed, seq): message seq's channel and length, the same on a retry. */
static uint64_t lab_choice(uint64_t seed, uint32_t seq)
{
	uint64_t z = seed + (uint64_t)(seq + 1) * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Sleep a little when a loop found nothing to do. */
static void lab_idle(void)
{
	struct timespec ts = { 0, LAB_IDLE_US * 1000 };

	nanosleep(&ts, NULL);
}

static void lab_usage(FILE *f)
{
	fprintf(f,
		"usage: %s order --from NICD --to NICD --key-file F [--vnet V] [--count N]\n"
		"                [--seed S] --expect in-order|reordered|violations\n"
		"       %s probe --nicd NICD --node D [--ep E] --key-file F [--vnet V]\n"
		"                [--count K] --expect ok|down\n"
		"       %s keys --nicd NICD --key-file F [--vnet V] [--other-key-file F2]\n"
		"       common: --timeout-ms MS (default 30000)\n",
		lab_prog, lab_prog, lab_prog);
}

/* Parse the command line; 0, or 2 after printing why. */
static int lab_parse(struct lab_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nicd", required_argument, NULL, 'n' },
		{ "from", required_argument, NULL, 'n' },
		{ "vnet", required_argument, NULL, 'v' },
		{ "key-file", required_argument, NULL, 'k' },
		{ "to", required_argument, NULL, 't' },
		{ "other-key-file", required_argument, NULL, 'o' },
		{ "node", required_argument, NULL, 'd' },
		{ "ep", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "expect", required_argument, NULL, 'x' },
		{ "timeout-ms", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, r;

	o->ep.vnet = 1;
	o->count = 200;
	o->seed = 1;
	o->timeout_ms = 30000;
	if (argc < 2 || argv[1][0] == '-') {
		lab_usage(argc >= 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
		return argc >= 2 && !strcmp(argv[1], "--help") ? 1 : 2;
	}
	o->mode = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		r = tool_ep_option(lab_prog, &o->ep, c, optarg);
		if (r < 0)
			return 2;
		if (r)
			continue;
		switch (c) {
		case 't':
			o->to = optarg;
			break;
		case 'o':
			o->other_key = optarg;
			break;
		case 'd':
			if (!tool_parse_u64(lab_prog, "--node", optarg, 0, UINT16_MAX - 1, &v))
				return 2;
			o->node = (uint16_t)v;
			break;
		case 'e':
			if (!tool_parse_u64(lab_prog, "--ep", optarg, 0, UINT16_MAX - 1, &v))
				return 2;
			o->dst_ep = (uint16_t)v;
			break;
		case 'c':
			if (!tool_parse_u64(lab_prog, "--count", optarg, 1, LAB_MAX_COUNT, &v))
				return 2;
			o->count = (uint32_t)v;
			break;
		case 's':
			if (!tool_parse_u64(lab_prog, "--seed", optarg, 1, UINT64_MAX, &o->seed))
				return 2;
			break;
		case 'x':
			o->expect = optarg;
			break;
		case 'T':
			if (!tool_parse_u64(lab_prog, "--timeout-ms", optarg, 1, 3600000, &v))
				return 2;
			o->timeout_ms = (uint32_t)v;
			break;
		case 'h':
			lab_usage(stdout);
			return 1;
		default:
			lab_usage(stderr);
			return 2;
		}
	}
	if (!o->ep.key_len) {
		fprintf(stderr, "%s: --key-file is required\n", lab_prog);
		return 2;
	}
	return 0;
}

/* Open an endpoint at nicd and wait until its NIC joined; NULL after printing why. */
static struct segnet_ep *lab_open(const struct lab_opts *o, const char *nicd,
				  uint16_t bufs)
{
	struct tool_ep_opts eo = o->ep;
	struct segnet_open_opts oo = { .send_bufs = bufs, .recv_bufs = bufs };
	struct segnet_ep *ep;

	eo.nicd = nicd;
	ep = tool_ep_open(lab_prog, &eo, &oo);
	if (ep && !tool_wait_joined(lab_prog, ep, 10000, -1)) {
		segnet_close(ep);
		return NULL;
	}
	return ep;
}

/* Receiver handler (order): check the message and note where it came. */
static void lab_on_msg(struct segnet_ep *ep, const struct segnet_msg *msg, void *ctx)
{
	struct lab_rx *rx = ctx;
	uint8_t want[SEGNET_MAX_PAYLOAD];
	struct lab_args a;

	(void)ep;
	memcpy(&a, msg->args, sizeof(a));
	if (a.magic != LAB_MAGIC || a.seq >= rx->count || a.chan != msg->chan ||
	    msg->len != (a.chan == SEGNET_BULK ? a.len : 0)) {
		rx->bad++;
		return;
	}
	if (msg->len) {
		tool_pattern(a.seq, want, msg->len);
		if (memcmp(want, msg->data, msg->len)) {
			rx->bad++;
			return;
		}
	}
	if (rx->seen[a.seq]++) {
		rx->dup++;
		return;
	}
	rx->arrived++;
	if ((int64_t)a.seq < rx->max_seq) {
		if (!rx->late++) {
			rx->first_late = a.seq;
			rx->first_late_after = (uint32_t)rx->max_seq;
			rx->first_late_chan = a.chan;
		}
	} else {
		rx->max_seq = a.seq;
	}
}

/* Reap the sender's completions; -1 on a failed one or nicd's end. */
static int lab_reap(struct segnet_ep *ep, uint32_t *done, uint32_t *failed)
{
	struct segnet_completion comp[LAB_COMP_BURST];
	int n = segnet_poll(ep, comp, LAB_COMP_BURST);

	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		(*done)++;
		if (comp[i].status != SEGNET_OK) {
			if (!(*failed)++)
				fprintf(stderr, "%s: message %" PRIu64 " completed with %s\n",
					lab_prog, comp[i].cookie,
					segnet_status_name(comp[i].status));
		}
	}
	return n;
}

/* Send message seq of the order run; 0, -EAGAIN, or another -errno. */
static int lab_send_seq(struct segnet_ep *tx, uint16_t node, uint16_t ep, uint64_t seed,
			uint32_t seq, uint32_t *n_bulk)
{
	static uint8_t data[SEGNET_MAX_PAYLOAD];
	struct lab_args a = { .magic = LAB_MAGIC, .seq = seq };
	uint64_t r = lab_choice(seed, seq);
	int rc;

	a.chan = r & 1 ? SEGNET_BULK : SEGNET_QUICK;
	if (a.chan == SEGNET_QUICK)
		return segnet_send_quick(tx, node, ep, LAB_HANDLER, &a, seq);
	a.len = (uint16_t)(1 + (r >> 8) % SEGNET_MAX_PAYLOAD);
	tool_pattern(seq, data, a.len);
	rc = segnet_send_bulk(tx, node, ep, LAB_HANDLER, &a, data, a.len, seq);
	*n_bulk += rc == 0;
	return rc;
}

/* order: the arrival order of interleaved quick and bulk messages. */
static int lab_order(const struct lab_opts *o)
{
	struct lab_rx rx = { .count = o->count, .max_seq = -1 };
	uint32_t sent = 0, done = 0, failed = 0, n_bulk = 0, last_arrived = 0;
	struct segnet_ep *tx = NULL, *rcv = NULL;
	uint64_t end, quiet_since = 0;
	bool lossy;
	int rc = 1, r;

	if (!o->to || !o->expect ||
	    (strcmp(o->expect, "in-order") && strcmp(o->expect, "reordered") &&
	     strcmp(o->expect, "violations"))) {
		fprintf(stderr, "%s: order needs --from, --to and --expect in-order|reordered|violations\n",
			lab_prog);
		return 2;
	}
	lossy = !strcmp(o->expect, "violations");
	rx.seen = calloc(o->count, 1);
	rcv = lab_open(o, o->to, 512);
	tx = rcv ? lab_open(o, o->ep.nicd, 64) : NULL;
	if (!rx.seen || !tx)
		goto out;
	segnet_set_handler(rcv, LAB_HANDLER, lab_on_msg, &rx);
	printf("order: %u messages from node %u to node %u endpoint %u on vnet %u, seed %" PRIu64 "\n",
	       o->count, segnet_node(tx), segnet_node(rcv), segnet_endpoint(rcv), o->ep.vnet,
	       o->seed);
	fflush(stdout);
	end = tool_now_ns() + (uint64_t)o->timeout_ms * 1000000;
	while (done < o->count || rx.arrived < o->count) {
		bool work = false;

		while (sent < o->count) {
			r = lab_send_seq(tx, segnet_node(rcv), segnet_endpoint(rcv), o->seed,
					 sent, &n_bulk);
			if (r == -EAGAIN)
				break;
			if (r) {
				fprintf(stderr, "%s: send %u: %s\n", lab_prog, sent, strerror(-r));
				goto out;
			}
			sent++;
			work = true;
		}
		r = lab_reap(tx, &done, &failed);
		if (r < 0 || segnet_poll(rcv, NULL, 0) < 0) {
			fprintf(stderr, "%s: nicd went away\n", lab_prog);
			goto out;
		}
		work |= r > 0;
		if (lossy && done == o->count) {
			/* Losses never arrive: stop once arrivals pause for a second. */
			if (rx.arrived + rx.dup != last_arrived || !quiet_since) {
				last_arrived = rx.arrived + rx.dup;
				quiet_since = tool_now_ns();
			} else if (tool_now_ns() - quiet_since > 1000000000ull) {
				break;
			}
		}
		if (tool_now_ns() > end) {
			fprintf(stderr, "%s: after %u ms: %u sent, %u completed, %u arrived\n",
				lab_prog, o->timeout_ms, sent, done, rx.arrived);
			goto out;
		}
		if (!work)
			lab_idle();
	}
	printf("order: %u sent (%u quick, %u bulk), %u completed (%u failed), %u arrived, %u duplicated, %u bad, %u out of order\n",
	       sent, sent - n_bulk, n_bulk, done, failed, rx.arrived, rx.dup, rx.bad, rx.late);
	if (rx.late)
		printf("order: first out of order: message %u (%s) arrived after message %u\n",
		       rx.first_late, rx.first_late_chan == SEGNET_BULK ? "bulk" : "quick",
		       rx.first_late_after);
	if (lossy) {
		rc = rx.bad || !(rx.arrived < o->count || rx.dup);
		printf("order: expected violations (%u lost, %u duplicated, %u out of order): %s\n",
		       o->count - rx.arrived, rx.dup, rx.late, rc ? "FAILED" : "passed");
		goto out;
	}
	if (failed || rx.dup || rx.bad || rx.arrived != o->count)
		goto out;
	if (!strcmp(o->expect, "in-order"))
		rc = rx.late ? 1 : 0;
	else
		rc = rx.late ? 0 : 1;
	printf("order: expected %s: %s\n", o->expect, rc ? "FAILED" : "passed");
out:
	segnet_close(tx);
	segnet_close(rcv);
	free(rx.seen);
	return rc;
}

/*
 * probe --expect refused: a quick and a bulk send to a node outside the
 * cluster must each fail at once with -EINVAL; 0 when they do.
 */
static int lab_probe_refused(const struct lab_opts *o)
{
	static uint8_t data[SEGNET_MAX_PAYLOAD];
	struct lab_args a = { .magic = LAB_MAGIC };
	struct segnet_ep *ep = lab_open(o, o->ep.nicd, 64);
	int q, b;

	if (!ep)
		return 1;
	q = segnet_send_quick(ep, o->node, o->dst_ep, LAB_HANDLER, &a, 0);
	b = segnet_send_bulk(ep, o->node, o->dst_ep, LAB_HANDLER, &a, data, sizeof(data), 1);
	segnet_close(ep);
	printf("probe: to node %u of a cluster of fewer: quick send %s, bulk send %s\n", o->node,
	       q ? strerror(-q) : "accepted", b ? strerror(-b) : "accepted");
	return q == -EINVAL && b == -EINVAL ? 0 : 1;
}

/* probe: statuses of messages to one node. */
static int lab_probe(const struct lab_opts *o)
{
	static uint8_t data[SEGNET_MAX_PAYLOAD];
	struct segnet_completion comp[LAB_COMP_BURST];
	uint32_t by_status[SEGNET_EINVAL + 2] = { 0 };
	uint32_t sent = 0, done = 0, total = 2 * o->count;
	int want = -1, rc = 1, r;
	struct segnet_ep *ep;
	uint64_t t0, t_last = 0, end;

	if (o->expect && !strcmp(o->expect, "ok"))
		want = SEGNET_OK;
	else if (o->expect && !strcmp(o->expect, "down"))
		want = SEGNET_EDOWN;
	else if (o->expect && !strcmp(o->expect, "refused"))
		return lab_probe_refused(o);
	if (want < 0) {
		fprintf(stderr, "%s: probe needs --node and --expect ok|down|refused\n", lab_prog);
		return 2;
	}
	ep = lab_open(o, o->ep.nicd, 64);
	if (!ep)
		return 1;
	tool_pattern(0, data, sizeof(data));
	t0 = tool_now_ns();
	end = t0 + (uint64_t)o->timeout_ms * 1000000;
	while (done < total) {
		struct lab_args a = { .magic = LAB_MAGIC, .seq = sent };
		bool work = false;

		if (sent < total) {
			r = sent & 1 ?
			    segnet_send_bulk(ep, o->node, o->dst_ep, LAB_HANDLER, &a, data,
					     sizeof(data), sent) :
			    segnet_send_quick(ep, o->node, o->dst_ep, LAB_HANDLER, &a, sent);
			if (r && r != -EAGAIN) {
				fprintf(stderr, "%s: send: %s\n", lab_prog, strerror(-r));
				goto out;
			}
			sent += r == 0;
			work = r == 0;
		}
		r = segnet_poll(ep, comp, LAB_COMP_BURST);
		if (r < 0) {
			fprintf(stderr, "%s: nicd went away\n", lab_prog);
			goto out;
		}
		for (int i = 0; i < r; i++) {
			int s = comp[i].status;

			by_status[s >= 0 && s <= SEGNET_EINVAL ? s : SEGNET_EINVAL + 1]++;
			t_last = tool_now_ns();
		}
		done += (uint32_t)r;
		if (tool_now_ns() > end) {
			fprintf(stderr, "%s: %u of %u completed after %u ms\n", lab_prog, done,
				total, o->timeout_ms);
			goto out;
		}
		if (!work && !r)
			lab_idle();
	}
	printf("probe: %u quick + %u bulk to node %u ep %u: ok %u, lost %u, retries %u, down %u, reset %u, invalid %u, other %u; last completion after %.1f ms\n",
	       o->count, o->count, o->node, o->dst_ep, by_status[SEGNET_OK],
	       by_status[SEGNET_ELOST], by_status[SEGNET_ERETRIES], by_status[SEGNET_EDOWN],
	       by_status[SEGNET_ERESET], by_status[SEGNET_EINVAL], by_status[SEGNET_EINVAL + 1],
	       (double)(t_last - t0) / 1e6);
	rc = by_status[want] == total ? 0 : 1;
	printf("probe: expected every one %s: %s\n", segnet_status_name(want),
	       rc ? "FAILED" : "passed");
out:
	segnet_close(ep);
	return rc;
}

/* One refused open: 0 when segnet_open failed with errno want. */
static int lab_refused(const char *what, const char *nicd, uint16_t vnet, const void *key,
		       size_t len, int want)
{
	struct segnet_ep *ep = segnet_open(nicd, vnet, key, len, NULL);
	int err = errno;

	if (ep) {
		printf("keys: %s: opened, should be refused with %s\n", what, strerror(want));
		segnet_close(ep);
		return 1;
	}
	printf("keys: %s: refused, %s (%s)\n", what, strerror(err),
	       err == want ? "as expected" : "WRONG");
	return err == want ? 0 : 1;
}

/* keys: the right key opens, wrong ones are refused. */
static int lab_keys(const struct lab_opts *o)
{
	uint8_t bad[SEGNET_MAX_KEY + 1], other[SEGNET_MAX_KEY];
	size_t len = (size_t)o->ep.key_len;
	struct segnet_ep *ep;
	int fails = 0, n;

	ep = segnet_open(o->ep.nicd, o->ep.vnet, o->ep.key, len, NULL);
	if (!ep) {
		printf("keys: the right key: refused, %s (WRONG)\n", strerror(errno));
		return 1;
	}
	printf("keys: the right key: opened endpoint %u on node %u, vnet %u\n",
	       segnet_endpoint(ep), segnet_node(ep), o->ep.vnet);
	segnet_close(ep);
	memcpy(bad, o->ep.key, len);
	bad[len - 1] ^= 0x5a;
	fails += lab_refused("one byte changed", o->ep.nicd, o->ep.vnet, bad, len, EACCES);
	if (len > 1)
		fails += lab_refused("one byte short", o->ep.nicd, o->ep.vnet, o->ep.key,
				     len - 1, EACCES);
	if (o->other_key) {
		n = segnet_read_key(o->other_key, other);
		if (n < 0) {
			fprintf(stderr, "%s: %s: %s\n", lab_prog, o->other_key, strerror(-n));
			return 1;
		}
		fails += lab_refused("another network's key", o->ep.nicd, o->ep.vnet, other,
				     (size_t)n, EACCES);
	}
	fails += lab_refused("a network nicd does not serve", o->ep.nicd, LAB_UNSERVED_VNET,
			     o->ep.key, len, ENOENT);
	printf("keys: %s\n", fails ? "FAILED" : "passed");
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	rc = lab_parse(&o, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	tool_signals();
	if (!strcmp(o.mode, "order"))
		return lab_order(&o);
	if (!strcmp(o.mode, "probe"))
		return lab_probe(&o);
	if (!strcmp(o.mode, "keys"))
		return lab_keys(&o);
	fprintf(stderr, "%s: unknown mode '%s'\n", lab_prog, o.mode);
	lab_usage(stderr);
	return 2;
}
