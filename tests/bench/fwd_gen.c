/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fwd-gen: the traffic generator and sink of the forwarding benchmarks
 * (scripts/bench.sh forward, bulk). It drives two ethdevs, A and B, on one
 * core: it sends the same frame on A as fast as A's driver takes it (or at
 * --rate-mpps) and counts what comes out at B. The forwarder between them
 * is switchd or dpdk-testpmd --forward-mode=io; both see the same frames
 * from the same program.
 *
 * With --join, A and B are two segnet nodes of a switchd: each says HELLO
 * until its first grant (which gives its node id), then sends a CFG every
 * --cfg-us enabling quick traffic from every node, and A sends valid QREQs
 * to B (CRC32C and all), which B counts. Without --join the frames are the
 * same bytes, for a forwarder that does not care what they are.
 *
 * The frame is one template mbuf sent again and again (its reference count
 * goes up by the burst before each send and back down by what the driver
 * did not take), so the generator's own cost per frame is the driver's
 * copy: it calls rte_eth_tx_burst itself because it must know how many
 * frames the driver took. Output: one line of key=value pairs.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_mbuf.h"
#include "proto/proto.h"

enum {
	GEN_BURST = 32,			/* frames per send and receive call */
	GEN_POOL_FRAMES = 16384,	/* receive pool */
	GEN_HELLO_NS = 1000000,		/* HELLO interval while joining */
	GEN_JOIN_MS = 10000,		/* give up joining after this */
	GEN_VALIDATE_EVERY = 64,	/* decode (CRC included) every Nth frame at B */
	GEN_VNET = 1,			/* virtual network of the QREQs */
};

/* Which frame A sends. */
enum gen_frame {
	GEN_QREQ,	/* a quick request: 32 bytes of arguments */
	GEN_BREQ,	/* a bulk request with a full 2048-byte payload */
};

/* One of the two ends. */
struct gen_end {
	const char *name;	/* ethdev name */
	struct dp_ethdev dev;	/* set up by dp_ethdev_setup */
	uint16_t rxq;		/* receive queues polled */
	uint16_t id;		/* node id from the first grant (--join) */
	uint16_t n_nodes;	/* cluster size from the first grant */
	bool joined;		/* got a grant */
	uint64_t next_ctl;	/* next HELLO or CFG */
	uint32_t gnt_slot;	/* slot of the last grant */
};

/* The command line. */
struct gen_opts {
	const char *a, *b;	/* --port-a, --port-b */
	bool join;		/* --join: be two segnet nodes */
	enum gen_frame frame;	/* --frame */
	double duration;	/* --duration s, measured */
	double warmup;		/* --warmup s, not measured */
	double rate_mpps;	/* --rate-mpps (0: as fast as A takes them) */
	uint32_t cfg_us;	/* --cfg-us: CFG keepalive interval */
	bool hold;		/* --hold: after the result, wait for a signal */
};

/* Counters of the measured window. */
struct gen_count {
	uint64_t offered;	/* frames handed to A's driver */
	uint64_t sent;		/* frames A's driver took */
	uint64_t delivered;	/* our frames received at B */
	uint64_t validated;	/* of those, decoded with CRC and found good */
	uint64_t invalid;	/* of those decoded, bad */
	uint64_t other;		/* other frames at B (grants, foreign) */
	double cpu_s;		/* CPU time the generator got */
};

/* Everything the run needs. */
struct gen {
	struct gen_opts o;
	struct gen_end a, b;
	struct rte_mempool *mp;
	struct rte_mbuf *tpl;		/* the frame A sends */
	struct proto_limits lim;	/* decoder limits at B */
	struct gen_count c;		/* counting (measured window only) */
	bool counting;			/* inside the window */
};

static void gen_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s EAL-ARGS -- --port-a ETHDEV --port-b ETHDEV [options]\n"
		"  --port-a ETHDEV      the sending end\n"
		"  --port-b ETHDEV      the receiving end\n"
		"  --join               A and B join a switchd as two nodes (HELLO, CFG);\n"
		"                       each then polls two receive queues\n"
		"  --frame qreq|breq    a QREQ (82 bytes, default) or a full BREQ (2134)\n"
		"  --duration S         measured seconds (default 3)\n"
		"  --warmup S           seconds sent but not counted first (default 0.5)\n"
		"  --rate-mpps R        offer R Mpps (default 0: as fast as A takes them)\n"
		"  --cfg-us US          CFG keepalive with --join (default 100)\n"
		"  --hold               after printing the result, wait for SIGTERM without\n"
		"                       polling (stop the forwarder first: a memif server\n"
		"                       may crash when its client goes while it polls)\n",
		prog);
}

/* Parse the program's own arguments: 0, 1 after --help, 2 when wrong. */
static int gen_args(struct gen_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port-a", required_argument, NULL, 'a' },
		{ "port-b", required_argument, NULL, 'b' },
		{ "join", no_argument, NULL, 'j' },
		{ "frame", required_argument, NULL, 'f' },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "rate-mpps", required_argument, NULL, 'r' },
		{ "cfg-us", required_argument, NULL, 'c' },
		{ "hold", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct gen_opts) { .duration = 3, .warmup = 0.5, .cfg_us = 100 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->a = optarg;
			break;
		case 'b':
			o->b = optarg;
			break;
		case 'j':
			o->join = true;
			break;
		case 'f':
			if (!strcmp(optarg, "qreq"))
				o->frame = GEN_QREQ;
			else if (!strcmp(optarg, "breq"))
				o->frame = GEN_BREQ;
			else
				return 2;
			break;
		case 'd':
			o->duration = strtod(optarg, NULL);
			break;
		case 'w':
			o->warmup = strtod(optarg, NULL);
			break;
		case 'r':
			o->rate_mpps = strtod(optarg, NULL);
			break;
		case 'c':
			o->cfg_us = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'H':
			o->hold = true;
			break;
		case 'h':
			gen_usage(stdout, argv[0]);
			return 1;
		default:
			gen_usage(stderr, argv[0]);
			return 2;
		}
	}
	if (!o->a || !o->b || !(o->duration > 0) || o->warmup < 0 || o->rate_mpps < 0 ||
	    !o->cfg_us) {
		gen_usage(stderr, argv[0]);
		return 2;
	}
	return 0;
}

/* Encode p into a new mbuf; NULL when the pool is empty or p is bad. */
static struct rte_mbuf *gen_encode(struct gen *g, struct proto_pkt *p)
{
	struct rte_mbuf *m;

	proto_node_mac(p->src_node, p->eth_src);
	proto_node_mac(p->dst_node, p->eth_dst);
	m = dp_frame_alloc(g->mp, (uint16_t)proto_frame_len(p));
	if (m && proto_encode(p, rte_pktmbuf_mtod(m, void *), DP_MBUF_DATA) < 0) {
		rte_pktmbuf_free(m);
		m = NULL;
	}
	return m;
}

/* Send one frame the end originates (HELLO, CFG); lost if the ring is full. */
static void gen_send1(struct gen_end *e, struct rte_mbuf *m)
{
	if (m && rte_eth_tx_burst(e->dev.port_id, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

/* HELLO while joining, then a CFG enabling every node's quick traffic. */
static void gen_control(struct gen *g, struct gen_end *e, uint64_t now)
{
	uint8_t counts[PROTO_MAX_NODES] = { 0 }, en[PROTO_MAX_NODES / 8];
	struct proto_pkt p = { .dst_node = PROTO_NODE_SWITCH };

	if (!g->o.join || now < e->next_ctl)
		return;
	if (!e->joined) {
		p.type = PROTO_T_HELLO;
		p.src_node = PROTO_NODE_NONE;
		p.hello_nonce = 1;
		e->next_ctl = now + GEN_HELLO_NS;
	} else {
		memset(en, 0, sizeof(en));
		for (uint16_t i = 0; i < e->n_nodes; i++)
			proto_bit_set(en, i);
		p.type = PROTO_T_CFG;
		p.src_node = e->id;
		p.cfg = (struct proto_cfg) {
			.slot = e->gnt_slot, .n_nodes = e->n_nodes, .counts = counts,
			.bulk_en = en, .quick_en = en,
		};
		e->next_ctl = now + (uint64_t)g->o.cfg_us * 1000;
	}
	gen_send1(e, gen_encode(g, &p));
}

/* A frame that is not A's traffic: a grant tells an end who it is. */
static void gen_other(struct gen *g, struct gen_end *e, const struct rte_mbuf *m)
{
	struct proto_pkt p;

	if (g->counting)
		g->c.other++;
	if (!g->o.join)
		return;
	if (proto_decode(rte_pktmbuf_mtod(m, const void *), m->data_len, NULL, &p) !=
	    PROTO_R_OK || p.type != PROTO_T_GNT)
		return;
	e->gnt_slot = p.gnt.slot;
	if (!e->joined) {
		e->joined = true;
		e->id = p.gnt.node_id;
		e->n_nodes = p.gnt.n_nodes;
		e->next_ctl = 0;	/* the first CFG at once */
	}
}

/* True when m looks like the template: A's frame type from A's node. */
static bool gen_is_ours(const struct gen *g, const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *t;

	if (!g->tpl)
		return false;	/* still joining */
	t = rte_pktmbuf_mtod(g->tpl, const uint8_t *);
	/* EtherType, version, type, flags, source node: bytes 12 .. 19. */
	return m->data_len == g->tpl->data_len && !memcmp(f + 12, t + 12, 8);
}

/* Count what arrived at B; check every GEN_VALIDATE_EVERY-th frame whole. */
static void gen_sink(struct gen *g, struct rte_mbuf **pkts, uint16_t n)
{
	struct proto_pkt p;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (!gen_is_ours(g, m)) {
			gen_other(g, &g->b, m);
			continue;
		}
		if (!g->counting)
			continue;
		if (g->c.delivered++ % GEN_VALIDATE_EVERY)
			continue;
		if (proto_decode(rte_pktmbuf_mtod(m, const void *), m->data_len, &g->lim,
				 &p) == PROTO_R_OK)
			g->c.validated++;
		else
			g->c.invalid++;
	}
	rte_pktmbuf_free_bulk(pkts, n);
}

/* Drain every receive queue of e; B's data queue goes to the sink. */
static void gen_receive(struct gen *g, struct gen_end *e)
{
	struct rte_mbuf *pkts[GEN_BURST];

	for (uint16_t q = 0; q < e->rxq; q++) {
		uint16_t n = rte_eth_rx_burst(e->dev.port_id, q, pkts, GEN_BURST);

		if (e == &g->b) {
			gen_sink(g, pkts, n);
			continue;
		}
		for (uint16_t i = 0; i < n; i++)
			gen_other(g, e, pkts[i]);
		rte_pktmbuf_free_bulk(pkts, n);
	}
}

/* Send up to want references to the template on A. */
static void gen_send(struct gen *g, uint16_t want)
{
	struct rte_mbuf *burst[GEN_BURST];
	uint16_t sent;

	for (uint16_t i = 0; i < want; i++)
		burst[i] = g->tpl;
	rte_mbuf_refcnt_update(g->tpl, (int16_t)want);
	sent = rte_eth_tx_burst(g->a.dev.port_id, 0, burst, want);
	if (sent < want)
		rte_mbuf_refcnt_update(g->tpl, (int16_t)-(want - sent));
	if (g->counting) {
		g->c.offered += want;
		g->c.sent += sent;
	}
}

/* Build the template: A's node to B's, vnet 1, endpoint 0. */
static int gen_template(struct gen *g)
{
	static uint8_t payload[PROTO_MAX_PAYLOAD];
	uint8_t args[PROTO_ARGS_LEN];
	struct proto_pkt p = {
		.flags = PROTO_F_DATA | PROTO_F_LAST, .src_node = g->a.id,
		.dst_node = g->b.id, .vnet = GEN_VNET, .handler = 1, .pkt_num = 1,
		.args = args,
	};

	for (unsigned int i = 0; i < sizeof(args); i++)
		args[i] = (uint8_t)i;
	for (unsigned int i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7);
	if (g->o.frame == GEN_QREQ) {
		p.type = PROTO_T_QREQ;
	} else {
		p.type = PROTO_T_BREQ;
		p.payload = payload;
		p.payload_len = PROTO_MAX_PAYLOAD;
	}
	g->tpl = gen_encode(g, &p);
	return g->tpl ? 0 : -ENOMEM;
}

/* Join both ends (with --join); 0 or -ETIMEDOUT. */
static int gen_join(struct gen *g)
{
	uint64_t end = dp_tsc_ns() + (uint64_t)GEN_JOIN_MS * 1000000;

	if (!g->o.join) {
		g->a.id = 0;
		g->b.id = 1;
		return 0;
	}
	while (!(g->a.joined && g->b.joined) && !dp_stop) {
		uint64_t now = dp_tsc_ns();

		if (now > end)
			return -ETIMEDOUT;
		gen_control(g, &g->a, now);
		gen_control(g, &g->b, now);
		gen_receive(g, &g->a);
		gen_receive(g, &g->b);
	}
	return dp_stop ? -EINTR : 0;
}

/* CPU time of this process so far, in seconds. */
static double gen_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The measured run: warm-up, then the window. */
static double gen_run(struct gen *g)
{
	uint64_t t0 = dp_tsc_ns(), start = t0 + (uint64_t)(g->o.warmup * 1e9);
	uint64_t stop = start + (uint64_t)(g->o.duration * 1e9), now = t0;
	double credit = 0, per_ns = g->o.rate_mpps / 1000.0;
	uint64_t last = t0;

	while (now < stop && !dp_stop) {
		uint16_t want = GEN_BURST;

		if (per_ns > 0) {
			credit += (double)(now - last) * per_ns;
			if (credit > GEN_BURST)
				credit = GEN_BURST;
			want = (uint16_t)credit;
			credit -= want;
		}
		last = now;
		if (want)
			gen_send(g, want);
		gen_receive(g, &g->b);
		gen_receive(g, &g->a);
		gen_control(g, &g->a, now);
		gen_control(g, &g->b, now);
		now = dp_tsc_ns();
		if (!g->counting && now >= start) {
			g->counting = true;
			start = now;
			g->c.cpu_s = gen_cpu_s();
		}
	}
	g->c.cpu_s = gen_cpu_s() - g->c.cpu_s;
	return (double)(now - start) / 1e9;
}

/* Bring up one end. */
static int gen_open(struct gen *g, struct gen_end *e, const char *name, char *err,
		    size_t errlen)
{
	struct dp_ethdev_conf conf = {
		.rx_queues = g->o.join ? 2 : 1, .tx_queues = 1, .link_wait_ms = 10000,
		.promiscuous = true,
	};

	e->name = name;
	e->rxq = conf.rx_queues;
	return dp_ethdev_setup(name, &conf, g->mp, &e->dev, err, errlen);
}

int main(int argc, char **argv)
{
	static struct gen g;
	struct dp_args args;
	char err[512];
	double secs;
	int used, rc;

	/* Its own arguments first: --help and bad arguments need no EAL. */
	if (dp_args_split(argc, argv, &args)) {
		fprintf(stderr, "fwd-gen: out of memory\n");
		return 1;
	}
	rc = gen_args(&g.o, args.own_argc, args.own);
	dp_args_free(&args);
	if (rc)
		return rc == 1 ? 0 : 2;
	used = dp_eal_init(args.eal_argc, argv, err, sizeof(err));
	if (used < 0) {
		fprintf(stderr, "fwd-gen: %s (EAL arguments, before --)\n", err);
		return used == -EINVAL ? 2 : 1;
	}
	g.a.dev.port_id = RTE_MAX_ETHPORTS;
	g.b.dev.port_id = RTE_MAX_ETHPORTS;
	dp_signals_install();
	g.lim = (struct proto_limits) { .max_nodes = PROTO_MAX_NODES,
					.max_endpoints = PROTO_MAX_ENDPOINTS };
	g.mp = dp_pool_for_socket("gen", SOCKET_ID_ANY, GEN_POOL_FRAMES, err, sizeof(err));
	rc = g.mp ? gen_open(&g, &g.a, g.o.a, err, sizeof(err)) : -ENOMEM;
	if (!rc)
		rc = gen_open(&g, &g.b, g.o.b, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "fwd-gen: %s\n", err);
		goto out;
	}
	rc = gen_join(&g);
	if (rc) {
		fprintf(stderr, "fwd-gen: the nodes did not join: %s\n", strerror(-rc));
		goto out;
	}
	rc = gen_template(&g);
	if (rc)
		goto out;
	secs = gen_run(&g);
	printf("fwd-gen: cpu=%d frame_bytes=%u node_a=%u node_b=%u seconds=%.3f offered=%" PRIu64
	       " sent=%" PRIu64 " delivered=%" PRIu64 " validated=%" PRIu64 " invalid=%" PRIu64
	       " other=%" PRIu64 " sent_mpps=%.4f mpps=%.4f gbps_payload=%.4f cpu_pct=%.0f\n",
	       rte_lcore_to_cpu_id((int)rte_lcore_id()), g.tpl->data_len, g.a.id, g.b.id,
	       secs, g.c.offered, g.c.sent, g.c.delivered, g.c.validated, g.c.invalid,
	       g.c.other, (double)g.c.sent / secs / 1e6, (double)g.c.delivered / secs / 1e6,
	       g.o.frame == GEN_BREQ ?
	       (double)g.c.delivered * PROTO_MAX_PAYLOAD * 8 / secs / 1e9 : 0.0,
	       100 * g.c.cpu_s / secs);
	fflush(stdout);
	if (g.c.invalid)
		rc = -EPROTO;
	while (g.o.hold && !dp_stop)
		pause();
out:
	rte_pktmbuf_free(g.tpl);
	dp_ethdev_close(&g.a.dev);
	dp_ethdev_close(&g.b.dev);
	dp_eal_cleanup();
	return rc ? 1 : 0;
}
