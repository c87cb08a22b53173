/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NIC side of the switchd integration test (switchd_memif.sh): one EAL
 * process with one memif client port per node and a struct nic (the NIC
 * core nicd runs) on each, polled on the TSC clock with idle back-off. It
 * checks, against a running switchd:
 *
 *   1. every NIC joins, NIC i (on the i-th --port) with node id i;
 *   2. quick and bulk messages between every pair arrive with the right
 *      bytes and complete successfully;
 *   3. once the last NIC stops, the others' messages to it complete with
 *      SN_ERR_DOWN, after --down-slots slots and not long before;
 *   4. a frame forged with another node's source, injected on a port, is
 *      delivered nowhere (the script checks that switchd counted it).
 *
 * switchd sends control frames on its transmit queue 1, which memif maps
 * to a ring of its own: each port opens two receive queues (0: data, 1:
 * control) and one transmit queue.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_lcore.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_mbuf.h"
#include "nicd/conf.h"
#include "nicd/nic.h"
#include "switchd/fabric.h"

enum {
	PEERS_MAX = 4,			/* nodes (ports) at most */
	PEERS_MSGS_MAX = 16,		/* messages per pair and channel at most */
	PEERS_POOL_FRAMES = 8192,	/* frames in the pool */
	PEERS_VNET = 1,			/* the virtual network */
	PEERS_IDLE_NS = 200 * 1000,	/* poll this long without work, then */
	PEERS_SLEEP_US = 100,		/* sleep this long per idle poll */
	PEERS_QUIET_NS = 200 * 1000 * 1000,	/* after the forged frame */
	PEERS_HOLD_MS = 30000,		/* wait for release, at most */
};

/* Test phases, recorded in each message's arguments. */
enum peers_phase {
	PHASE_PAIRS,	/* every pair, both channels */
	PHASE_DOWN,	/* to the stopped node */
	PHASE_COUNT,
};

/* Marks the test's messages; the forged frame carries another. */
static const uint32_t PEERS_MAGIC = 0x5e6e0001, PEERS_FORGED = 0x5e6e0bad;

/* What every test message carries as its active-message arguments. */
struct peers_args {
	uint32_t magic;		/* PEERS_MAGIC */
	uint16_t src;		/* sender */
	uint16_t dst;		/* receiver */
	uint8_t chan;		/* enum sn_chan */
	uint8_t phase;		/* enum peers_phase */
	uint16_t seq;		/* index among the pair's messages */
	uint8_t pad[20];	/* to PROTO_ARGS_LEN */
} __attribute__((packed));
_Static_assert(sizeof(struct peers_args) == PROTO_ARGS_LEN, "peers args");

/* What happened to one message. */
struct peers_rec {
	bool sent;		/* nic_send took it */
	bool done;		/* completed */
	int status;		/* its completion status */
	uint64_t t_done;	/* when */
	uint32_t delivered;	/* deliveries (conf2 may duplicate) */
};

struct peers;

/* One node: its device, ports and NIC. */
struct peers_node {
	struct peers *ps;		/* the test */
	uint16_t idx;			/* index = expected node id */
	const char *name;		/* its ethdev */
	struct dp_ethdev dev;		/* the memif client */
	struct dp_port *data;		/* rx queue 0 (data), tx queue 0 */
	struct dp_port *ctl;		/* rx queue 1 (control), tx queue 0 */
	struct nic *nic;		/* the NIC under test */
	bool running;			/* still polled */
};

/* The whole test. */
struct peers {
	uint16_t n;				/* nodes */
	struct peers_node node[PEERS_MAX];	/* by index */
	const char *conf;			/* protocol configuration */
	uint32_t msgs;				/* messages per pair and channel */
	uint32_t down_slots;			/* switchd's --down-slots */
	uint64_t slot_ns;			/* switchd's slot */
	uint32_t timeout_ms;			/* limit of each phase */
	uint32_t link_wait_ms;			/* wait for the links */
	const char *forged_file;		/* created once the forged frame left */
	const char *release_file;		/* then wait for this one */
	struct rte_mempool *mp;			/* frames */
	struct dp_idle idle;			/* back-off */
	uint32_t forged_seen;			/* deliveries of the forged frame */
	uint32_t bad;				/* deliveries with wrong content */
	/* [phase][src][dst][chan][seq] */
	struct peers_rec rec[PHASE_COUNT][PEERS_MAX][PEERS_MAX][SN_CHAN_COUNT][PEERS_MSGS_MAX];
	/* bulk payload of [src][dst][seq] */
	uint8_t payload[PEERS_MAX][PEERS_MAX][PEERS_MSGS_MAX][PROTO_MAX_PAYLOAD];
};

/* Bulk payload length of message seq (short, medium, long, full). */
static uint16_t peers_len(uint16_t seq)
{
	static const uint16_t len[] = { 1, 64, 1000, PROTO_MAX_PAYLOAD };

	return len[seq % 4];
}

/* The record a message's arguments name, or NULL when they name none. */
static struct peers_rec *peers_rec_of(struct peers *ps, const struct peers_args *a)
{
	if (a->magic != PEERS_MAGIC || a->phase >= PHASE_COUNT || a->src >= ps->n ||
	    a->dst >= ps->n || a->chan >= SN_CHAN_COUNT || a->seq >= ps->msgs)
		return NULL;
	return &ps->rec[a->phase][a->src][a->dst][a->chan][a->seq];
}

/* NIC callback: a message arrived at node ctx; check every byte. */
static void peers_deliver(void *ctx, const struct sn_pkt *pkt, uint64_t now)
{
	struct peers_node *nd = ctx;
	struct peers *ps = nd->ps;
	struct peers_args a;
	struct peers_rec *r;
	uint16_t want;

	(void)now;
	memcpy(&a, pkt->h.args, sizeof(a));
	if (a.magic == PEERS_FORGED) {
		ps->forged_seen++;
		fprintf(stderr, "nic_peers: node %u received the forged frame\n", nd->idx);
		return;
	}
	r = peers_rec_of(ps, &a);
	want = a.chan == SN_CHAN_BULK ? peers_len(a.seq) : 0;
	if (!r || a.dst != nd->idx || pkt->h.src_node != a.src || pkt->chan != a.chan ||
	    pkt->h.payload_len != want ||
	    (want && memcmp(pkt->h.payload, ps->payload[a.src][a.dst][a.seq], want))) {
		ps->bad++;
		fprintf(stderr, "nic_peers: node %u: bad delivery (src %u, chan %u, %u bytes)\n",
			nd->idx, pkt->h.src_node, pkt->chan, pkt->h.payload_len);
		return;
	}
	r->delivered++;
}

/* NIC callback: a sent message finished. */
static void peers_complete(void *ctx, const struct sn_pkt *pkt, int status,
			   uint64_t now)
{
	struct peers_node *nd = ctx;
	struct peers_rec *r = pkt->cookie;

	(void)nd;
	if (!r || r->done)
		return;
	r->done = true;
	r->status = status;
	r->t_done = now;
}

/* Print usage. */
static void peers_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s EAL-ARGS -- --port NAME ... [options]\n"
		"  --port NAME          memif client of node i (the i-th --port), 2 to %d\n"
		"  --link-gbps G        switchd's bulk rate (for its slot length)\n"
		"  --down-slots N       switchd's --down-slots\n"
		"  --msgs K             messages per pair and channel (default 4, at most %d)\n"
		"  --conf SPEC          protocol configuration (default conf2 with a 5 ms\n"
		"                       retransmission bound and no retry limit)\n"
		"  --timeout-ms N       limit of each phase (default 10000)\n"
		"  --link-wait-ms N     wait for the links (default 10000)\n"
		"  --forged-file PATH   create PATH after the forged frame left, then\n"
		"  --release-file PATH  wait (up to 30 s) until PATH exists\n",
		prog, PEERS_MAX, PEERS_MSGS_MAX);
}

/* Parse the arguments after "--"; 0, or 2 when they are wrong. */
static int peers_args(struct peers *ps, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "link-gbps", required_argument, NULL, 'g' },
		{ "down-slots", required_argument, NULL, 'd' },
		{ "msgs", required_argument, NULL, 'm' },
		{ "conf", required_argument, NULL, 'c' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "link-wait-ms", required_argument, NULL, 'l' },
		{ "forged-file", required_argument, NULL, 'f' },
		{ "release-file", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	double gbps = 10;
	int c;

	ps->msgs = 4;
	ps->down_slots = 20000;
	ps->timeout_ms = 10000;
	ps->link_wait_ms = 10000;
	ps->conf = "conf2,timer:timeout_ns=5000000,genp:max_retx=0";
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (ps->n == PEERS_MAX)
				return 2;
			ps->node[ps->n++].name = optarg;
			break;
		case 'g':
			gbps = strtod(optarg, NULL);
			break;
		case 'd':
			ps->down_slots = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'm':
			ps->msgs = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			ps->conf = optarg;
			break;
		case 't':
			ps->timeout_ms = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'l':
			ps->link_wait_ms = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'f':
			ps->forged_file = optarg;
			break;
		case 'r':
			ps->release_file = optarg;
			break;
		default:
			peers_usage(stderr, argv[0]);
			return 2;
		}
	}
	if (ps->n < 2 || !(gbps > 0) || ps->msgs < 1 || ps->msgs > PEERS_MSGS_MAX) {
		peers_usage(stderr, argv[0]);
		return 2;
	}
	ps->slot_ns = sw_slot_ns_for(gbps, 1);
	return 0;
}

/* Bring up the pool, every device, its ports and its NIC. */
static int peers_open(struct peers *ps)
{
	struct dp_ethdev_conf conf = {
		.rx_queues = 2, .tx_queues = 1, .link_wait_ms = ps->link_wait_ms,
		.promiscuous = true,
	};
	struct nic_config nc = {
		.max_nodes = 16, .bulk_bufs = 16, .bulk_per_target = 4, .quick_bufs = 4,
		.descriptors = 1024, .hello_ns = 1000000, .check_crc = true,
	};
	char err[512], spec[512];

	ps->mp = dp_pool_for_socket("peers", SOCKET_ID_ANY, PEERS_POOL_FRAMES, err,
				    sizeof(err));
	if (!ps->mp || conf_expand(ps->conf, spec, sizeof(spec), err, sizeof(err)))
		goto fail;
	nc.mp = ps->mp;
	for (uint16_t i = 0; i < ps->n; i++) {
		struct peers_node *nd = &ps->node[i];
		struct nic_ops ops = {
			.ctx = nd, .deliver = peers_deliver, .complete = peers_complete,
		};

		nd->ps = ps;
		nd->idx = i;
		if (dp_ethdev_setup(nd->name, &conf, ps->mp, &nd->dev, err, sizeof(err)))
			goto fail;
		nd->data = dp_ethdev_port_create(&nd->dev, 0, 0);
		nd->ctl = dp_ethdev_port_create(&nd->dev, 1, 0);
		if (!nd->data || !nd->ctl) {
			snprintf(err, sizeof(err), "%s: cannot make ports", nd->name);
			goto fail;
		}
		nd->nic = nic_create(&nc, &ops, nd->data, nd->ctl, err, sizeof(err));
		if (!nd->nic || nic_add_vnet(nd->nic, PEERS_VNET, spec, err, sizeof(err)))
			goto fail;
		nd->running = true;
	}
	return 0;
fail:
	fprintf(stderr, "nic_peers: %s\n", err);
	return -1;
}

/* Frames that crossed every running node's ports so far. */
static uint64_t peers_frames(const struct peers *ps)
{
	uint64_t f = 0;

	for (uint16_t i = 0; i < ps->n; i++) {
		const struct peers_node *nd = &ps->node[i];

		f += nd->data->stats.rx_frames + nd->data->stats.tx_frames +
		     nd->ctl->stats.rx_frames;
	}
	return f;
}

/* Poll every running NIC once, then back off if nothing moved. */
static void peers_poll(struct peers *ps)
{
	uint64_t now = dp_tsc_ns(), next = UINT64_MAX, before = peers_frames(ps);

	for (uint16_t i = 0; i < ps->n; i++) {
		uint64_t t;

		if (!ps->node[i].running)
			continue;
		t = nic_poll(ps->node[i].nic, now);
		if (t < next)
			next = t;
	}
	dp_idle_poll(&ps->idle, peers_frames(ps) != before, now, next);
}

/* Poll until done(ps) or the phase's time is up; 0 or -1. */
static int peers_run(struct peers *ps, bool (*done)(struct peers *), const char *what)
{
	uint64_t end = dp_tsc_ns() + (uint64_t)ps->timeout_ms * 1000000;

	while (!done(ps)) {
		if (dp_stop || dp_tsc_ns() > end) {
			fprintf(stderr, "nic_peers: %s: not done after %u ms\n", what,
				ps->timeout_ms);
			return -1;
		}
		peers_poll(ps);
	}
	return 0;
}

/* True when every NIC has joined (with any id). */
static bool peers_joined(struct peers *ps)
{
	for (uint16_t i = 0; i < ps->n; i++)
		if (nic_node_id(ps->node[i].nic) == PROTO_NODE_NONE)
			return false;
	return true;
}

/* Queue one test message of phase ph; 0 or -1. */
static int peers_send(struct peers *ps, enum peers_phase ph, uint16_t s, uint16_t d,
		      uint8_t chan, uint16_t seq)
{
	struct peers_rec *r = &ps->rec[ph][s][d][chan][seq];
	struct peers_args a = {
		.magic = PEERS_MAGIC, .src = s, .dst = d, .chan = chan, .phase = (uint8_t)ph,
		.seq = seq,
	};
	struct nic_msg m = {
		.vnet = PEERS_VNET, .dst_node = d, .dst_ep = 1, .src_ep = 1, .handler = 7,
		.chan = chan, .args = (const uint8_t *)&a, .cookie = r,
	};
	uint8_t *pl = ps->payload[s][d][seq];

	if (chan == SN_CHAN_BULK) {
		m.len = peers_len(seq);
		for (uint16_t k = 0; k < m.len; k++)
			pl[k] = (uint8_t)(s * 31 + d * 7 + seq * 13 + k);
		m.payload = pl;
	}
	if (nic_send(ps->node[s].nic, &m, dp_tsc_ns())) {
		fprintf(stderr, "nic_peers: node %u cannot send to %u\n", s, d);
		return -1;
	}
	r->sent = true;
	return 0;
}

/* What happened to the messages of one phase. */
struct peers_tally {
	unsigned int sent;		/* messages sent */
	unsigned int done;		/* of those, completed */
	unsigned int delivered;		/* delivered at least once */
	unsigned int dup;		/* deliveries beyond the first */
	unsigned int ok;		/* completed with SN_OK */
	unsigned int down;		/* completed with SN_ERR_DOWN */
	uint64_t first;			/* earliest completion */
	uint64_t last;			/* latest completion */
};

/* Count the sent messages of phase ph. */
static void peers_tally(const struct peers *ps, enum peers_phase ph,
			struct peers_tally *t)
{
	const struct peers_rec *r = &ps->rec[ph][0][0][0][0];
	size_t n = sizeof(ps->rec[ph]) / sizeof(*r);

	memset(t, 0, sizeof(*t));
	t->first = UINT64_MAX;
	for (size_t i = 0; i < n; i++, r++) {
		if (!r->sent)
			continue;
		t->sent++;
		t->delivered += r->delivered > 0;
		t->dup += r->delivered > 1 ? r->delivered - 1 : 0;
		if (!r->done)
			continue;
		t->done++;
		t->ok += r->status == SN_OK;
		t->down += r->status == SN_ERR_DOWN;
		t->first = r->t_done < t->first ? r->t_done : t->first;
		t->last = r->t_done > t->last ? r->t_done : t->last;
	}
}

/* True when every pair's messages completed and were delivered. */
static bool peers_pairs_done(struct peers *ps)
{
	struct peers_tally t;

	peers_tally(ps, PHASE_PAIRS, &t);
	return t.done == t.sent && t.delivered == t.sent;
}

/* True when the messages to the stopped node completed. */
static bool peers_down_done(struct peers *ps)
{
	struct peers_tally t;

	peers_tally(ps, PHASE_DOWN, &t);
	return t.done == t.sent;
}

/* Phase 1: join, with the ids of the ports. */
static int peers_check_join(struct peers *ps)
{
	if (peers_run(ps, peers_joined, "join"))
		return -1;
	for (uint16_t i = 0; i < ps->n; i++) {
		uint16_t id = nic_node_id(ps->node[i].nic);

		printf("nic_peers: %s joined as node %u of %u\n", ps->node[i].name, id,
		       nic_cluster_size(ps->node[i].nic));
		if (id != i || nic_cluster_size(ps->node[i].nic) != ps->n) {
			fprintf(stderr, "nic_peers: %s should be node %u of %u\n",
				ps->node[i].name, i, ps->n);
			return -1;
		}
	}
	return 0;
}

/* Phase 2: quick and bulk messages between every pair. */
static int peers_check_pairs(struct peers *ps)
{
	struct peers_tally t;

	for (uint16_t k = 0; k < ps->msgs; k++)
		for (uint16_t s = 0; s < ps->n; s++)
			for (uint16_t d = 0; d < ps->n; d++)
				for (uint8_t c = 0; s != d && c < SN_CHAN_COUNT; c++)
					if (peers_send(ps, PHASE_PAIRS, s, d, c, k))
						return -1;
	if (peers_run(ps, peers_pairs_done, "messages between every pair"))
		return -1;
	peers_tally(ps, PHASE_PAIRS, &t);
	printf("nic_peers: %u quick and %u bulk messages between %u nodes delivered, %u duplicates (conf2 allows them), %u failed, %u bad\n",
	       t.sent / 2, t.sent / 2, ps->n, t.dup, t.done - t.ok, ps->bad);
	return t.ok != t.sent || ps->bad ? -1 : 0;
}

/* Phase 3: the last node stops; messages to it fail with SN_ERR_DOWN. */
static int peers_check_down(struct peers *ps)
{
	uint16_t d = ps->n - 1;
	uint64_t t0 = dp_tsc_ns();
	uint64_t lo = ps->down_slots > 10 ? (ps->down_slots - 10) * ps->slot_ns : 0;
	struct peers_tally t;

	ps->node[d].running = false;
	printf("nic_peers: node %u stopped; its peers send to it\n", d);
	for (uint16_t s = 0; s < d; s++)
		for (uint8_t c = 0; c < SN_CHAN_COUNT; c++)
			for (uint16_t k = 0; k < ps->msgs; k++)
				if (peers_send(ps, PHASE_DOWN, s, d, c, k))
					return -1;
	if (peers_run(ps, peers_down_done, "completions for the stopped node"))
		return -1;
	peers_tally(ps, PHASE_DOWN, &t);
	printf("nic_peers: %u of %u messages to node %u completed with SN_ERR_DOWN %.1f to %.1f ms after it stopped (down after %u slots = %.1f ms)\n",
	       t.down, t.sent, d, (double)(t.first - t0) / 1e6, (double)(t.last - t0) / 1e6,
	       ps->down_slots, (double)ps->down_slots * (double)ps->slot_ns / 1e6);
	/* Its last CFG may be up to 8 slots (the NIC's keepalive) before it stopped. */
	if (t.down != t.sent || t.first - t0 < lo) {
		fprintf(stderr, "nic_peers: %u with another status; first after %.1f ms, expected after %.1f ms\n",
			t.sent - t.down, (double)(t.first - t0) / 1e6, (double)lo / 1e6);
		return -1;
	}
	return 0;
}

/* End of the quiet time after the forged frame (dp_tsc_ns). */
static uint64_t peers_quiet_end;

/* True when the quiet time is over. */
static bool peers_quiet(struct peers *ps)
{
	(void)ps;
	return dp_tsc_ns() >= peers_quiet_end;
}

/* Phase 4: a frame from node 0's port claiming to come from node 1. */
static int peers_check_forged(struct peers *ps)
{
	struct peers_args a = { .magic = PEERS_FORGED, .src = 1, .dst = 1 };
	struct proto_pkt p = {
		.type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_LAST,
		.src_node = 1, .dst_node = 1, .vnet = PEERS_VNET, .src_ep = 1,
		.dst_ep = 1, .handler = 7, .pkt_num = 1, .args = (const uint8_t *)&a,
	};
	struct rte_mbuf *m;
	FILE *f;

	proto_node_mac(p.src_node, p.eth_src);
	proto_node_mac(p.dst_node, p.eth_dst);
	m = dp_frame_alloc(ps->mp, (uint16_t)proto_frame_len(&p));
	if (!m || proto_encode(&p, rte_pktmbuf_mtod(m, void *), DP_MBUF_DATA) < 0) {
		rte_pktmbuf_free(m);
		return -1;
	}
	dp_port_tx1(ps->node[0].data, m);
	peers_quiet_end = dp_tsc_ns() + PEERS_QUIET_NS;
	peers_run(ps, peers_quiet, "quiet");
	printf("nic_peers: forged frame (source 1 on node 0's port) sent; delivered %u times\n",
	       ps->forged_seen);
	if (ps->forged_file) {
		f = fopen(ps->forged_file, "w");
		if (f)
			fclose(f);
	}
	/* Keep the others up while the script reads switchd's telemetry. */
	peers_quiet_end = dp_tsc_ns() + (uint64_t)PEERS_HOLD_MS * 1000000;
	while (ps->release_file && access(ps->release_file, F_OK) != 0 &&
	       !dp_stop && dp_tsc_ns() < peers_quiet_end)
		peers_poll(ps);
	return ps->forged_seen ? -1 : 0;
}

/* Free everything; 0 when no frame is missing from the pool. */
static int peers_close(struct peers *ps)
{
	unsigned int avail;

	for (uint16_t i = 0; i < ps->n; i++) {
		struct peers_node *nd = &ps->node[i];

		nic_destroy(nd->nic);
		dp_port_destroy(nd->data);
		dp_port_destroy(nd->ctl);
		dp_ethdev_close(&nd->dev);
	}
	if (!ps->mp)
		return 0;
	avail = rte_mempool_avail_count(ps->mp);
	printf("nic_peers: pool %u of %u frames available\n", avail, ps->mp->size);
	return avail == ps->mp->size ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct peers ps;
	char err[512];
	int n, rc;

	n = dp_eal_init(argc, argv, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "nic_peers: %s\n", err);
		return 2;
	}
	argv[n] = argv[0];
	rc = peers_args(&ps, argc - n, argv + n);
	if (rc)
		return rc;
	for (uint16_t i = 0; i < ps.n; i++)
		ps.node[i].dev.port_id = RTE_MAX_ETHPORTS;
	dp_signals_install();
	printf("nic_peers: polling on CPU %d, %u NICs, slot %llu ns\n", sched_getcpu(),
	       ps.n, (unsigned long long)ps.slot_ns);
	dp_idle_init(&ps.idle, PEERS_IDLE_NS, PEERS_SLEEP_US, dp_tsc_ns());
	rc = peers_open(&ps);
	if (!rc)
		rc = peers_check_join(&ps);
	if (!rc)
		rc = peers_check_pairs(&ps);
	if (!rc)
		rc = peers_check_down(&ps);
	if (!rc)
		rc = peers_check_forged(&ps);
	for (uint16_t i = 0; i < ps.n; i++) {
		struct dp_counter_set set;

		if (!ps.node[i].nic)
			continue;
		nic_print_counters(ps.node[i].nic, ps.node[i].name, stderr);
		set = dp_port_counters(ps.node[i].data);
		dp_counters_print(stderr, &set);
		set = dp_port_counters(ps.node[i].ctl);
		dp_counters_print(stderr, &set);
	}
	if (peers_close(&ps))
		rc = -1;
	printf("nic_peers: %s\n", rc ? "FAILED" : "passed");
	dp_eal_cleanup();
	return rc ? 1 : 0;
}
