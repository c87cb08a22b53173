/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NIC on an array port: what it sends on its quick port, and in which
 * order. A NIC keeps QREQs in its quick send buffers while the quick link
 * has a backlog, so a BACK it owes goes out before them instead of waiting
 * behind them in the link's FIFO (and missing the sender's deadline).
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "test_dp_util.h"

#include "nicd/conf.h"
#include "nicd/nic.h"
#include "nicd/nic_priv.h"

enum {
	T_NODE = 1,		/* the NIC's node id */
	T_PEER = 2,		/* the node it talks to */
	T_VNET = 1,		/* its virtual network */
	T_QREQS = 8,		/* quick messages sent at once */
	T_SLOT_NS = 10000,	/* slot length in the grant */
	T_LAB_SLOT_NS = 345280,	/* the virtual lab's slot (345 us): the pause tests */
};

static struct rte_mempool *t_mp;

static void t_setup(void)
{
	tdp_eal_init();
	if (!t_mp)
		t_mp = tdp_pool("test_nic", 1024);
}

TestSuite(nic, .init = t_setup);

/* The configuration of the test NICs: per-target cap per_target, incarnation inc. */
static struct nic_config t_config(uint16_t per_target, uint32_t inc)
{
	return (struct nic_config) {
		.max_nodes = 4, .bulk_bufs = 4, .bulk_per_target = per_target,
		.quick_bufs = 16, .quick_reserve = 4, .descriptors = 256, .mp = t_mp,
		.check_crc = true, .incarnation = inc,
	};
}

/*
 * A NIC of cfg on port (bulk and quick) with protocol conf (a name with
 * overrides, "" for none) reporting to ops (NULL: nobody), not joined.
 */
static struct nic *t_nic_of(struct dp_port *port, const char *conf,
			    const struct nic_ops *ops, const struct nic_config *cfg)
{
	struct nic_ops none = { 0 };
	char err[128], spec[256] = "";
	struct nic *nic = nic_create(cfg, ops ? ops : &none, port, port, err, sizeof(err));

	cr_assert_not_null(nic, "nic_create: %s", err);
	cr_assert(!*conf || !conf_expand(conf, spec, sizeof(spec), err, sizeof(err)), "%s", err);
	cr_assert_eq(nic_add_vnet(nic, T_VNET, spec, err, sizeof(err)), 0, "%s", err);
	return nic;
}

/* The same, of t_config(per_target, inc) (inc: its boot nonce). */
static struct nic *t_nic_inc(struct dp_port *port, const char *conf,
			     const struct nic_ops *ops, uint16_t per_target, uint32_t inc)
{
	struct nic_config cfg = t_config(per_target, inc);

	return t_nic_of(port, conf, ops, &cfg);
}

/* The same, of incarnation 0. */
static struct nic *t_nic_cap(struct dp_port *port, const char *conf,
			     const struct nic_ops *ops, uint16_t per_target)
{
	return t_nic_inc(port, conf, ops, per_target, 0);
}

/*
 * The same of incarnation inc serving another virtual network than T_VNET
 * only: it answers every data frame of T_VNET with NO_VNET.
 */
static struct nic *t_nic_without_vnet(struct dp_port *port, const struct nic_ops *ops,
				      uint16_t per_target, uint32_t inc)
{
	struct nic_config cfg = t_config(per_target, inc);
	char err[128];
	struct nic *nic = nic_create(&cfg, ops, port, port, err, sizeof(err));

	cr_assert_not_null(nic, "nic_create: %s", err);
	cr_assert_eq(nic_add_vnet(nic, T_VNET + 1, "", err, sizeof(err)), 0, "%s", err);
	return nic;
}

/* One bulk message without payload from nic to T_PEER in vnet at now. */
static void t_send_bulk(struct nic *nic, uint16_t vnet, uint64_t now)
{
	struct nic_msg msg = {
		.vnet = vnet, .dst_node = T_PEER, .handler = 7, .chan = SN_CHAN_BULK,
	};

	cr_assert_eq(nic_send(nic, &msg, now), 0);
}

/* Serve virtual network 2 too, with conf (a name with overrides, or stages). */
static void t_add_vnet2(struct nic *nic, const char *conf)
{
	char err[128], spec[256];

	cr_assert_eq(conf_expand(conf, spec, sizeof(spec), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(nic_add_vnet(nic, 2, spec, err, sizeof(err)), 0, "%s", err);
}

/* The same, with a per-target cap of 1. */
static struct nic *t_nic_with(struct dp_port *port, const char *conf,
			      const struct nic_ops *ops)
{
	return t_nic_cap(port, conf, ops, 1);
}

/* A NIC on port (bulk and quick) with protocol conf (a name, "" for none), not joined. */
static struct nic *t_nic_new(struct dp_port *port, const char *conf)
{
	return t_nic_with(port, conf, NULL);
}

/* A grant of slot for node `node` of n nodes, with target, flags, frames and slot length. */
static void t_push_gnt_ns(struct dp_port *port, uint16_t node, uint32_t slot, uint16_t target,
			  uint16_t n, uint16_t gflags, uint16_t frames, uint32_t slot_ns)
{
	struct proto_pkt g = {
		.type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH, .dst_node = node,
		.gnt = {
			.slot = slot, .target = target, .node_id = node, .n_nodes = n,
			.slot_ns = slot_ns, .back_slots = 2, .slot_frames = frames,
			.gflags = gflags,
		},
	};

	tport_push(port, tdp_encode(t_mp, &g));
}

/* A grant of slot for node `node` of a cluster of n nodes, with target, flags and frames. */
static void t_push_gnt_k(struct dp_port *port, uint16_t node, uint32_t slot, uint16_t target,
			 uint16_t n, uint16_t gflags, uint16_t frames)
{
	t_push_gnt_ns(port, node, slot, target, n, gflags, frames, T_SLOT_NS);
}

/* A grant of slot for node `node` of a cluster of n nodes, with target and flags. */
static void t_push_gnt_to(struct dp_port *port, uint16_t node, uint32_t slot, uint16_t target,
			  uint16_t n, uint16_t gflags)
{
	t_push_gnt_k(port, node, slot, target, n, gflags, 1);
}

/* A grant of slot for node T_NODE of a cluster of n nodes, with target and flags. */
static void t_push_gnt_of(struct dp_port *port, uint32_t slot, uint16_t target, uint16_t n,
			  uint16_t gflags)
{
	t_push_gnt_to(port, T_NODE, slot, target, n, gflags);
}

/* T_PEER's boot nonce in the WELCOMEs of t_welcome. */
#define T_PEER_NONCE 0x7777

/* T_PEER's WELCOME of T_NODE's process (incarnation 0: nonce 0) in vnet at epoch arrives. */
static void t_push_welcome(struct dp_port *port, uint16_t vnet, uint16_t epoch)
{
	struct proto_pkt w = {
		.type = PROTO_T_QACK, .flags = PROTO_F_WELCOME, .src_node = T_PEER,
		.dst_node = T_NODE, .vnet = vnet, .epoch = epoch, .handler = T_PEER_NONCE,
	};

	tport_push(port, tdp_encode(t_mp, &w));
}

/*
 * T_PEER welcomes nic's process in vnet at epoch, as a peer that took its
 * FRESH frames would: nic's connection takes the epoch, and frames of
 * T_PEER at it are taken from then on. nic must have joined; what it
 * sends meanwhile is cleared.
 */
static void t_welcome(struct nic *nic, struct dp_port *port, uint16_t vnet, uint16_t epoch,
		      uint64_t now)
{
	t_push_welcome(port, vnet, epoch);
	nic_poll(nic, now);
	cr_assert_eq(nic_pipeline(nic, vnet)->conns[T_PEER]->epoch, epoch);
	tport_clear(port);
}

/* A NIC on port (bulk and quick) with protocol conf, joined as node T_NODE at time now. */
static struct nic *t_nic_conf(struct dp_port *port, const char *conf, uint64_t now)
{
	struct nic *nic = t_nic_new(port, conf);

	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	cr_assert_eq(nic_node_id(nic), T_NODE);
	tport_clear(port);
	return nic;
}

/* The same without a protocol. */
static struct nic *t_nic(struct dp_port *port, uint64_t now)
{
	return t_nic_conf(port, "", now);
}

/* Destroy nic and port; every frame must be back in the pool (avail free before). */
static void t_done(struct nic *nic, struct dp_port *port, unsigned int avail)
{
	nic_destroy(nic);
	dp_port_destroy(port);
	cr_assert_eq(rte_mempool_avail_count(t_mp), avail, "frames leaked: %d",
		     (int)(avail - rte_mempool_avail_count(t_mp)));
}

/* Send T_QREQS quick messages to T_PEER. */
static void t_send_quick(struct nic *nic, uint64_t now)
{
	for (int i = 0; i < T_QREQS; i++) {
		struct nic_msg msg = {
			.vnet = T_VNET, .dst_node = T_PEER, .handler = 7,
			.chan = SN_CHAN_QUICK,
		};

		cr_assert_eq(nic_send(nic, &msg, now), 0);
	}
}

/* T_PEER's BREQ for slot 1 arrives. */
static void t_push_breq(struct dp_port *port)
{
	static const uint8_t payload[64];
	struct proto_pkt b = {
		.type = PROTO_T_BREQ, .flags = PROTO_F_DATA | PROTO_F_LAST,
		.src_node = T_PEER, .dst_node = T_NODE, .vnet = T_VNET,
		.slot = 1, .payload = payload, .payload_len = sizeof(payload),
	};

	tport_push(port, tdp_encode(t_mp, &b));
}

/* Frames of type sent on port, and in *before how many QREQs preceded the first. */
static unsigned int t_count(struct dp_port *port, uint8_t type, unsigned int *before)
{
	unsigned int n = 0, qreqs = 0;

	*before = UINT32_MAX;
	for (unsigned int i = 0; i < tport_sent(port); i++) {
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(tport_frame(port, i), &p), PROTO_R_OK);
		if (p.type == type && n++ == 0)
			*before = qreqs;
		if (p.type == PROTO_T_QREQ)
			qreqs++;
	}
	return n;
}

/*
 * A BACK owed while QREQs wait goes out ahead of them; the QREQs follow as the
 * link frees. At 1 ms, and across the point where a TSC's ns times 1000 stop
 * fitting 64 bits (a host up 213 days): link times count from an epoch.
 */
Test(nic, back_overtakes_queued_qreqs)
{
	const uint64_t starts[] = { 1000000, UINT64_MAX / 1000 - 20000 };

	for (unsigned int s = 0; s < 2; s++) {
		unsigned int avail = rte_mempool_avail_count(t_mp);
		struct dp_port *port = tport_create("nic", 256);
		uint64_t now = starts[s], next;
		unsigned int before, polls = 0;
		struct nic *nic;

		tport_of(port)->gbps = 0.1;	/* a QREQ takes several microseconds */
		nic = t_nic(port, now);
		t_welcome(nic, port, T_VNET, 0, now);
		t_send_quick(nic, now);
		next = nic_poll(nic, now);
		cr_assert_lt(t_count(port, PROTO_T_QREQ, &before), T_QREQS,
			     "every QREQ went to the port at once");
		cr_assert_gt(next, now, "the NIC must wake when the link frees");
		cr_assert_lt(next, now + T_SLOT_NS * 2, "woken too late for the link: %llu",
			     (unsigned long long)(next - now));

		now += 100;
		t_push_breq(port);
		nic_poll(nic, now);
		cr_assert_eq(t_count(port, PROTO_T_BACK, &before), 1, "no BACK sent");
		cr_assert_leq(before, 2, "the BACK waited behind %u QREQs", before);

		while (t_count(port, PROTO_T_QREQ, &before) < T_QREQS) {
			cr_assert_lt(++polls, 100, "QREQs stuck in the send buffers");
			next = nic_poll(nic, next);
		}
		cr_assert_eq(nic_stats(nic)->qreq_sent, T_QREQS);
		cr_assert_gt(nic_stats(nic)->qreq_deferred, 0);
		cr_assert_eq(nic_rx_outcomes(nic_stats(nic)), nic_stats(nic)->rx_frames);
		t_done(nic, port, avail);
	}
}

/* Send T_QREQS quick messages at now and poll once: how many QREQs left. */
static unsigned int t_quick_at_once(struct nic *nic, struct dp_port *port, uint64_t now)
{
	unsigned int before;

	t_send_quick(nic, now);
	nic_poll(nic, now);
	return t_count(port, PROTO_T_QREQ, &before);
}

/* A port that does not know its rate: QREQs leave at once, as before. */
Test(nic, unknown_rate_sends_at_once)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic;

	nic = t_nic(port, now);
	cr_assert_eq(t_quick_at_once(nic, port, now), T_QREQS);
	cr_assert_eq(nic_stats(nic)->qreq_deferred, 0);
	t_done(nic, port, avail);
}

/*
 * A NIC with a quick port of port_gbps (0: unknown) in a fabric of
 * fabric_gbps (nic_config.quick_gbps, 0: not given), joined at now: the
 * QREQs that leave at once of T_QREQS sent, and when it wakes to send more.
 */
static unsigned int t_paced(double port_gbps, double fabric_gbps, uint64_t now,
			    uint64_t *wake)
{
	unsigned int avail = rte_mempool_avail_count(t_mp), n, before;
	struct dp_port *port = tport_create("nic", 256);
	struct nic_config cfg = t_config(1, 0);
	struct nic *nic;

	tport_of(port)->gbps = port_gbps;
	cfg.quick_gbps = fabric_gbps;
	nic = t_nic_of(port, "", NULL, &cfg);
	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	cr_assert_eq(nic_node_id(nic), T_NODE);
	tport_clear(port);
	t_send_quick(nic, now);
	*wake = nic_poll(nic, now);
	n = t_count(port, PROTO_T_QREQ, &before);
	t_done(nic, port, avail);
	return n;
}

/*
 * A fabric slower than the quick port (switchd --quick-gbps 0.1 behind a
 * memif port that says 100 Gbit/s): QREQs leave at the fabric's rate, as
 * from a port of that speed, not at once. The lower of the two rates paces;
 * without a fabric rate, the port's alone.
 */
Test(nic, fabric_rate_below_the_port_paces)
{
	const struct {
		double port, fabric, as;	/* port, fabric: paced as a port of `as` */
	} cases[] = {
		{ 100, 0.1, 0.1 }, { 0, 0.1, 0.1 }, { 0.1, 10, 0.1 }, { 100, 0, 100 },
	};
	uint64_t now = 1000000;

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t wake, want_wake;
		unsigned int n = t_paced(cases[i].port, cases[i].fabric, now, &wake);
		unsigned int want = t_paced(cases[i].as, 0, now, &want_wake);

		cr_assert_eq(n, want, "port %g, fabric %g Gbit/s: %u QREQs at once, %u from a port of %g",
			     cases[i].port, cases[i].fabric, n, want, cases[i].as);
		cr_assert_eq(wake, want_wake, "port %g, fabric %g Gbit/s: woke at +%llu ns, a port of %g at +%llu",
			     cases[i].port, cases[i].fabric, (unsigned long long)(wake - now),
			     cases[i].as, (unsigned long long)(want_wake - now));
		if (cases[i].as < 1)
			cr_assert_lt(n, T_QREQS, "port %g, fabric %g Gbit/s: every QREQ at once",
				     cases[i].port, cases[i].fabric);
	}
}

/*
 * A port whose rate is known only once its device exists (a virtio-user
 * client created after nicd started): the NIC takes the rate when it joins,
 * and paces its QREQs from then on.
 */
Test(nic, a_rate_known_at_join_paces)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_new(port, "");

	tport_of(port)->gbps = 0.1;	/* the device came: a QREQ takes microseconds */
	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	cr_assert_eq(nic_node_id(nic), T_NODE);
	tport_clear(port);
	cr_assert_lt(t_quick_at_once(nic, port, now), T_QREQS,
		     "the QREQs were not paced at the rate known at the join");
	cr_assert_gt(nic_stats(nic)->qreq_deferred, 0);
	t_done(nic, port, avail);
}

/*
 * A NIC whose port is down (its device stopped, waiting for the switch)
 * sends no HELLO and counts none; once the port is up it says HELLO, and
 * every frame sent into a down port is counted as tx_down, not tx_full.
 */
Test(nic, no_hello_while_the_port_is_down)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct rte_mbuf *m = rte_pktmbuf_alloc(t_mp);
	uint64_t now = 1000000;
	unsigned int before;
	struct nic *nic = t_nic_new(port, "");

	tport_of(port)->down = true;
	for (int i = 0; i < 10; i++, now += 1000000)
		nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->hello_sent, 0);
	cr_assert_eq(tport_sent(port), 0);
	cr_assert_not_null(m);
	dp_port_tx(port, &m, 1);
	cr_assert_eq(port->stats.tx_down, 1);
	cr_assert_eq(port->stats.tx_full, 0);

	tport_of(port)->down = false;
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->hello_sent, 1);
	cr_assert_eq(t_count(port, PROTO_T_HELLO, &before), 1, "no HELLO once the port is up");
	t_done(nic, port, avail);
}

/* Take every free frame of the pool into held; returns how many. */
static unsigned int t_drain_pool(struct rte_mbuf **held, unsigned int cap)
{
	unsigned int n = 0;

	while (n < cap && (held[n] = rte_pktmbuf_alloc(t_mp)))
		n++;
	cr_assert_eq(rte_mempool_avail_count(t_mp), 0, "pool larger than the test thinks");
	return n;
}

/* A grant of slot for this NIC with target. */
static void t_push_gnt(struct dp_port *port, uint32_t slot, uint16_t target)
{
	t_push_gnt_of(port, slot, target, 4, 0);
}

/*
 * With the mempool empty a QREQ or BREQ cannot leave: the packet keeps its
 * place (quick: the NIC wakes again soon; bulk: it waits for the next grant)
 * and leaves once frames are back, instead of waiting for ever for an
 * acknowledgment of a frame that was never sent.
 */
Test(nic, a_send_that_finds_the_pool_empty_leaves_later)
{
	static struct rte_mbuf *held[2048];
	unsigned int avail = rte_mempool_avail_count(t_mp), n;
	struct dp_port *port = tport_create("nic", 256);
	struct nic_msg quick = {
		.vnet = T_VNET, .dst_node = T_PEER, .handler = 7, .chan = SN_CHAN_QUICK,
	};
	struct nic_msg bulk = {
		.vnet = T_VNET, .dst_node = T_PEER, .handler = 7, .chan = SN_CHAN_BULK,
	};
	uint64_t now = 1000000, next;
	unsigned int before;
	struct nic *nic = t_nic(port, now);

	cr_assert_eq(nic_send(nic, &quick, now), 0);
	cr_assert_eq(nic_send(nic, &bulk, now), 0);
	t_push_gnt(port, 2, T_PEER);
	n = t_drain_pool(held, sizeof(held) / sizeof(held[0]));
	next = nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->qreq_sent + nic_stats(nic)->breq_sent, 0);
	cr_assert_gt(nic_stats(nic)->no_mbuf, 0);
	cr_assert_leq(next, now + 10000, "the NIC must try the QREQ again soon");

	rte_pktmbuf_free_bulk(held, n);
	now = next;
	t_push_gnt(port, 3, T_PEER);
	nic_poll(nic, now);
	cr_assert_eq(t_count(port, PROTO_T_QREQ, &before), 1, "the QREQ never left");
	cr_assert_eq(t_count(port, PROTO_T_BREQ, &before), 1, "the BREQ never left");
	cr_assert_eq(nic_stats(nic)->breq_sent, 1);
	t_done(nic, port, avail);
}

/*
 * The packet number of the latest BREQ sent on port for slot in vnet (a BACK
 * names it), 0 if none is there.
 */
static uint32_t t_breq_num(struct dp_port *port, uint32_t slot, uint16_t vnet)
{
	uint32_t num = 0;

	for (unsigned int i = 0; i < tport_sent(port); i++) {
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(tport_frame(port, i), &p), PROTO_R_OK);
		if (p.type == PROTO_T_BREQ && p.slot == slot && p.vnet == vnet)
			num = p.pkt_num;
	}
	return num;
}

/* T_PEER's positive BACK for the BREQ of slot, of its connection's epoch. */
static void t_push_back(struct dp_port *port, uint32_t slot, uint16_t epoch)
{
	struct proto_pkt b = {
		.type = PROTO_T_BACK, .src_node = T_PEER, .dst_node = T_NODE,
		.vnet = T_VNET, .pkt_num = t_breq_num(port, slot, T_VNET), .slot = slot,
		.epoch = epoch,
	};

	tport_push(port, tdp_encode(t_mp, &b));
}

/* T_PEER's BACK for the BREQ of slot in vnet: negative when nack. */
static void t_push_back_of(struct dp_port *port, uint32_t slot, uint16_t vnet, bool nack)
{
	struct proto_pkt b = {
		.type = PROTO_T_BACK, .flags = nack ? PROTO_F_NACK : 0, .src_node = T_PEER,
		.dst_node = T_NODE, .vnet = vnet, .pkt_num = t_breq_num(port, slot, vnet),
		.slot = slot,
	};

	tport_push(port, tdp_encode(t_mp, &b));
}

/*
 * The vnets and packet numbers of the frames of type sent on port, in order
 * (at most cap; vnet may be NULL); how many.
 */
static unsigned int t_sent_of(struct dp_port *port, uint8_t type, uint16_t *vnet, uint32_t *num,
			      unsigned int cap)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < tport_sent(port) && n < cap; i++) {
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(tport_frame(port, i), &p), PROTO_R_OK);
		if (p.type != type)
			continue;
		if (vnet)
			vnet[n] = p.vnet;
		num[n++] = p.pkt_num;
	}
	return n;
}

/*
 * A negative BACK (the receiving endpoint has no buffer) holds its
 * connection back from the send buffers: the next grant to that target
 * carries another virtual network's packet instead of the refused one
 * again. Once the hold is over the refused packet goes first, before the
 * later ones of its connection, and every packet gets its positive BACK.
 */
Test(nic, a_refused_connection_lets_another_vnet_take_the_grants)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic_new(port, "conf3");
	uint16_t vnet[16];
	uint32_t num[16], slot = 1;
	uint64_t now = 1000000;
	unsigned int n;

	t_add_vnet2(nic, "conf3");
	t_push_gnt_of(port, slot++, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	tport_clear(port);
	t_welcome(nic, port, T_VNET, 0, now);
	t_welcome(nic, port, 2, 0, now);
	for (int i = 0; i < 2; i++)
		t_send_bulk(nic, T_VNET, now);
	t_send_bulk(nic, 2, now);
	nic_poll(nic, now);
	/* Slot 2: vnet 1's first packet, refused. Slot 3: vnet 2's. */
	t_push_gnt_of(port, slot, T_PEER, 4, 0);
	nic_poll(nic, now);
	t_push_back_of(port, slot++, T_VNET, true);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->bulk_held_back, 1);
	t_push_gnt_of(port, slot, T_PEER, 4, 0);
	nic_poll(nic, now);
	n = t_sent_of(port, PROTO_T_BREQ, vnet, num, 16);
	cr_assert_eq(n, 2);
	cr_assert_eq(vnet[1], 2, "the grant after the refusal went to vnet %u's packet again",
		     vnet[1]);
	t_push_back_of(port, slot++, 2, false);
	/* Later slots: vnet 1 again, its refused packet first. */
	for (int k = 0; k < 6; k++) {
		now += T_SLOT_NS;
		t_push_gnt_of(port, slot, T_PEER, 4, 0);
		nic_poll(nic, now);
		t_push_back_of(port, slot++, T_VNET, false);
		nic_poll(nic, now);
	}
	n = t_sent_of(port, PROTO_T_BREQ, vnet, num, 16);
	cr_assert_eq(n, 4, "%u BREQs", n);
	cr_assert(vnet[2] == T_VNET && num[2] == num[0], "the refused packet is not sent first");
	cr_assert(vnet[3] == T_VNET && num[3] == num[0] + 1);
	cr_assert_eq(nic_stats(nic)->back_ok, 3, "every packet got through the channel");
	cr_assert_eq(nic_stats(nic)->back_nack, 1);
	t_done(nic, port, avail);
}

/*
 * A connection refused again while held back (a later BREQ's negative
 * BACK) is held longer than the earliest hold the NIC woke for: the NIC
 * still wakes when that longer hold ends, not at its next keepalive, and
 * the two refused packets leave in their connection's order.
 */
Test(nic, a_hold_made_longer_still_wakes_the_nic_when_it_ends)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic_cap(port, "conf3", NULL, 2);
	uint16_t vnet[16];
	uint32_t num[16], slot = 1;
	uint64_t now = 1000000, end, wake;
	unsigned int n;

	t_push_gnt_of(port, slot++, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	tport_clear(port);
	t_welcome(nic, port, T_VNET, 0, now);
	for (int i = 0; i < 2; i++)
		t_send_bulk(nic, T_VNET, now);
	nic_poll(nic, now);
	/* Slots 2 and 3 carry both packets before the first BACK comes. */
	for (int i = 0; i < 2; i++) {
		t_push_gnt_of(port, slot++, T_PEER, 4, 0);
		nic_poll(nic, now);
	}
	t_push_back_of(port, 2, T_VNET, true);
	nic_poll(nic, now);
	now += T_SLOT_NS / 2;
	t_push_back_of(port, 3, T_VNET, true);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->bulk_held_back, 2);
	end = now + 2 * T_SLOT_NS;	/* the second refusal: 2 slots */
	/* The first hold ends: the NIC looks, the connection is still held. */
	now += T_SLOT_NS / 2;
	wake = nic_poll(nic, now);
	cr_assert_leq(wake, end, "the NIC sleeps %.1f slots past the hold's end",
		      (double)(wake - end) / T_SLOT_NS);
	now = end;
	nic_poll(nic, now);
	tport_clear(port);
	for (int i = 0; i < 2; i++) {
		t_push_gnt_of(port, slot, T_PEER, 4, 0);
		nic_poll(nic, now);
		t_push_back_of(port, slot++, T_VNET, false);
		now += T_SLOT_NS;
		nic_poll(nic, now);
	}
	n = t_sent_of(port, PROTO_T_BREQ, vnet, num, 16);
	cr_assert_eq(n, 2, "%u BREQs", n);
	cr_assert_lt(num[0], num[1], "packet %u went before packet %u", num[0], num[1]);
	cr_assert_eq(nic_stats(nic)->back_ok, 2);
	t_done(nic, port, avail);
}

/* One bulk message without payload from nic to node dst at now. */
static void t_send_bulk_to(struct nic *nic, uint16_t dst, uint64_t now)
{
	struct nic_msg msg = {
		.vnet = T_VNET, .dst_node = dst, .handler = 7, .chan = SN_CHAN_BULK,
	};

	cr_assert_eq(nic_send(nic, &msg, now), 0);
}

/*
 * A NIC without a protocol, joined at now, with `bufs` bulk send buffers, one
 * a target: T_PEER's first packet holds one, its second waits at the cap,
 * and the prefetch scan, having found nothing, rests (chan_prefetch_bulk).
 */
static struct nic *t_nic_resting(struct dp_port *port, uint16_t bufs, uint64_t now)
{
	struct nic_config cfg = t_config(1, 0);
	struct nic *nic;

	cfg.bulk_bufs = bufs;
	nic = t_nic_of(port, "", NULL, &cfg);
	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	t_send_bulk_to(nic, T_PEER, now);
	t_send_bulk_to(nic, T_PEER, now);
	nic_poll(nic, now);
	cr_assert(nic->ch.prefetch_idle, "the scan does not rest");
	cr_assert_eq(nic->ch.backlogged, 1);
	tport_clear(port);
	return nic;
}

/*
 * While the prefetch scan rests, a packet for another target still takes
 * a free send buffer at the next poll: the next grant to that target
 * carries it (a scan resting past it would leave the grant unused).
 */
Test(nic, a_packet_joining_a_backlog_wakes_the_resting_prefetch)
{
	unsigned int avail = rte_mempool_avail_count(t_mp), before;
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_resting(port, 4, now);

	for (int i = 0; i < 3; i++)
		nic_poll(nic, now += 1000);
	t_send_bulk_to(nic, 3, now);
	nic_poll(nic, now += 1000);
	t_push_gnt_of(port, 2, 3, 4, 0);
	nic_poll(nic, now += 1000);
	cr_assert_eq(t_count(port, PROTO_T_BREQ, &before), 1, "no BREQ on the grant to node 3");
	cr_assert_eq(nic_stats(nic)->gnt_unused, 0);
	t_done(nic, port, avail);
}

/*
 * Each poll at which the scan rests moves the round-robin pointer on as the
 * scan it skips would have (one target), so the order in which targets take
 * buffers is the same as with a scan at every poll: after k such polls,
 * of two packets that come together for nodes 0 and 3, the one whose
 * target comes first from the pointer takes the only free buffer. Every k
 * from 0 to 3 (each start of the pointer of 4 nodes).
 */
Test(nic, a_resting_prefetch_keeps_the_round_robin_order)
{
	for (int k = 0; k < 4; k++) {
		unsigned int avail = rte_mempool_avail_count(t_mp), before;
		struct dp_port *port = tport_create("nic", 256);
		uint64_t now = 1000000;
		struct nic *nic = t_nic_resting(port, 2, now);
		uint16_t rr = nic->ch.rr, first = 0;

		for (int i = 0; i < k; i++)
			nic_poll(nic, now += 1000);
		/* The first of nodes 0 and 3 from where a scan at each poll leaves the pointer. */
		for (uint16_t c = 0; c < 4; c++) {
			uint16_t t = (uint16_t)((rr + k + c) % 4);

			if (t == 0 || t == 3) {
				first = t;
				break;
			}
		}
		t_send_bulk_to(nic, 0, now);
		t_send_bulk_to(nic, 3, now);
		nic_poll(nic, now += 1000);
		t_push_gnt_of(port, 2, first, 4, 0);
		nic_poll(nic, now += 1000);
		cr_assert_eq(t_count(port, PROTO_T_BREQ, &before), 1,
			     "k = %d: node %u's packet did not take the free buffer", k, first);
		t_done(nic, port, avail);
	}
}

/*
 * Bulk sends waiting in send buffers when the NIC joins a switch of the
 * other mode (scheduled, FIFO model: a restarted switch) are sent under the
 * new mode, not left in the lists of the old one. Those are the sends made
 * while it joins again: the ones from before it lost the switch fail
 * (SN_ERR_DOWN), as its connections start over with its new incarnation.
 */
Test(nic, bulk_waiting_across_a_change_of_switch_mode_is_sent)
{
	for (int fifo_first = 0; fifo_first < 2; fifo_first++) {
		unsigned int avail = rte_mempool_avail_count(t_mp), before;
		struct dp_port *port = tport_create("nic", 256);
		struct nic *nic = t_nic_new(port, "");
		struct nic_msg bulk = {
			.vnet = T_VNET, .dst_node = T_PEER, .handler = 7, .chan = SN_CHAN_BULK,
		};
		uint64_t now = 1000000;
		uint32_t slot = 1;

		t_push_gnt_of(port, slot++, PROTO_NODE_NONE, 4,
			      fifo_first ? PROTO_GNT_F_FIFO : 0);
		nic_poll(nic, now);
		cr_assert_eq(nic_stats(nic)->joins, 1);
		cr_assert_eq(nic_send(nic, &bulk, now), 0);
		nic_poll(nic, now);
		/* No grant for 1000 slots: the NIC says HELLO again; the other mode answers. */
		now += (PROTO_LOST_GNT_SLOTS + 1ull) * T_SLOT_NS;
		nic_poll(nic, now);
		cr_assert_eq(nic_stats(nic)->rejoins, 1);
		cr_assert_eq(nic_stats(nic)->completed_err, 1, "the send from before the rejoin");
		cr_assert_eq(nic_send(nic, &bulk, now), 0);
		cr_assert_eq(nic_send(nic, &bulk, now), 0);
		nic_poll(nic, now);
		for (int k = 0; k < 4; k++) {
			t_push_gnt_of(port, slot, T_PEER, 4, fifo_first ? 0 : PROTO_GNT_F_FIFO);
			nic_poll(nic, now);
			if (k == 0)	/* the peer took its FRESH frames */
				t_push_welcome(port, T_VNET, 1);
			t_push_back(port, slot++, 1);	/* the peer reset too (DOWN notice) */
			now += T_SLOT_NS;
			nic_poll(nic, now);
		}
		cr_assert_eq(t_count(port, PROTO_T_BREQ, &before), 2,
			     "%s first: BREQs stranded in the old mode's lists",
			     fifo_first ? "FIFO" : "scheduled");
		cr_assert_eq(nic_stats(nic)->completed_ok, 2);
		t_done(nic, port, avail);
	}
}

/*
 * A GNT flagged REJOIN (switchd's answer to a CFG of a node it has not
 * joined, or marked down: a restarted switch, a node that was silent) makes
 * the NIC say HELLO at once, as a new incarnation, with its pending
 * messages failed; before, it waited PROTO_LOST_GNT_SLOTS slots for the
 * grants it would never get. Joining already, it ignores one.
 */
Test(nic, a_rejoin_grant_makes_the_nic_join_again_at_once)
{
	struct nic_msg quick = { .vnet = T_VNET, .dst_node = T_PEER, .chan = SN_CHAN_QUICK };
	unsigned int avail = rte_mempool_avail_count(t_mp), before;
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_conf(port, "conf3", now);

	cr_assert_eq(nic_send(nic, &quick, now), 0);
	nic_poll(nic, now);
	tport_clear(port);
	t_push_gnt_of(port, 2, PROTO_NODE_NONE, 4, PROTO_GNT_F_REJOIN);
	nic_poll(nic, now + T_SLOT_NS);
	cr_assert_eq(nic_stats(nic)->told_to_rejoin, 1);
	cr_assert_eq(nic_stats(nic)->rejoins, 1);
	cr_assert_eq(nic_stats(nic)->completed_err, 1, "the pending message fails");
	cr_assert_eq(t_count(port, PROTO_T_HELLO, &before), 1, "no HELLO");
	tport_clear(port);
	/* Joining: another one changes nothing (it is no grant to join on). */
	t_push_gnt_of(port, 3, PROTO_NODE_NONE, 4, PROTO_GNT_F_REJOIN);
	nic_poll(nic, now + 2 * T_SLOT_NS);
	cr_assert_eq(nic_stats(nic)->rejoins, 1);
	cr_assert_eq(nic_stats(nic)->joins, 1, "joined on a REJOIN grant");
	/* The switch's answer to the HELLO joins it again. */
	t_push_gnt_of(port, 4, PROTO_NODE_NONE, 4, PROTO_GNT_F_JOINED);
	nic_poll(nic, now + 3 * T_SLOT_NS);
	cr_assert_eq(nic_stats(nic)->joins, 2);
	cr_assert_eq(nic_rx_outcomes(nic_stats(nic)), nic_stats(nic)->rx_frames,
		     "a REJOIN grant is counted as what became of it");
	t_done(nic, port, avail);
}

/*
 * Keepalive GNTs at switchd's longest --gnt-keepalive keep an idle NIC
 * joined; PROTO_LOST_GNT_SLOTS slots without one make it rejoin.
 */
Test(nic, keepalives_at_the_longest_interval_keep_the_nic_joined)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic(port, now);
	uint32_t slot = 1;

	for (int k = 0; k < 20; k++) {
		now += (uint64_t)PROTO_MAX_GNT_KEEPALIVE * T_SLOT_NS;
		slot += PROTO_MAX_GNT_KEEPALIVE;
		t_push_gnt_of(port, slot, PROTO_NODE_NONE, 4, 0);
		nic_poll(nic, now);
	}
	cr_assert_eq(nic_stats(nic)->rejoins, 0);
	now += (PROTO_LOST_GNT_SLOTS + 1ull) * T_SLOT_NS;
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->rejoins, 1);
	t_done(nic, port, avail);
}

/*
 * The NIC's own pause (the machine paused, the switch with it) is not the
 * switch's silence: a gap between two polls counts up to DP_WATCH_POLL_CAP_NS
 * (100 ms) towards PROTO_LOST_GNT_SLOTS. With the lab's 345 us slots that
 * is 345 ms without a grant; before, a 2 s pause of a whole lab made every
 * NIC join again, its pending messages failed. A NIC that polls on and
 * hears nothing still rejoins, after the rest of the 345 ms.
 */
Test(nic, a_pause_of_the_nic_is_not_the_switch_silence)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic_new(port, "");
	uint64_t now = 1000000, limit = (uint64_t)PROTO_LOST_GNT_SLOTS * T_LAB_SLOT_NS;
	uint64_t t;

	t_push_gnt_ns(port, T_NODE, 1, PROTO_NODE_NONE, 4, 0, 1, T_LAB_SLOT_NS);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->joins, 1);
	now += 2000000000ull;
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->rejoins, 0, "joined again after its own 2 s pause");
	cr_assert_eq(nic_stats(nic)->slots_paused, (2000000000ull - DP_WATCH_POLL_CAP_NS) / T_LAB_SLOT_NS,
		     "slots paused: %llu", (unsigned long long)nic_stats(nic)->slots_paused);
	/* Polled every millisecond from then on: 100 ms of the pause counted. */
	for (t = now; nic_stats(nic)->rejoins == 0 && t < now + limit; t += 1000000)
		nic_poll(nic, t);
	cr_assert_eq(nic_stats(nic)->rejoins, 1, "no rejoin in %llu ms of watched silence",
		     (unsigned long long)(limit / 1000000));
	cr_assert(t - now >= limit - DP_WATCH_POLL_CAP_NS - 2000000,
		  "rejoined %llu ms after the pause: more than 100 ms of it counted",
		  (unsigned long long)((t - now) / 1000000));
	t_done(nic, port, avail);
}

/*
 * slots_paused shows the NIC's own pauses (what is over DP_WATCH_POLL_CAP_NS
 * of a gap between polls, in slots of the grants) also when a grant waits
 * after one, as GNTs do in a memif ring while nicd is stopped: that grant
 * restarts the wait for grants before the poll looks at the gap. Gaps up to
 * the cap count nothing; the rest under a slot carries over; a pause before
 * the first grant counts in the slots that grant gives.
 */
Test(nic, slots_paused_counts_the_nic_pauses_with_a_grant_after_them)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic_new(port, "");
	uint64_t now = 1000000, over = DP_WATCH_POLL_CAP_NS + T_LAB_SLOT_NS + T_LAB_SLOT_NS / 2;
	uint32_t slot = 1;

	nic_poll(nic, now);
	now += over;		/* paused while joining: 1.5 slots */
	t_push_gnt_ns(port, T_NODE, slot, PROTO_NODE_NONE, 4, 0, 1, T_LAB_SLOT_NS);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->joins, 1);
	cr_assert_eq(nic_stats(nic)->slots_paused, 1, "slots paused: %llu",
		     (unsigned long long)nic_stats(nic)->slots_paused);
	now += DP_WATCH_POLL_CAP_NS;	/* a gap of the cap: no pause */
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->slots_paused, 1);
	/* 2 s stopped, a grant waiting after it: 1900 ms over the cap, and the 0.5 slot before. */
	now += 2000000000ull;
	slot += 2000000000ull / T_LAB_SLOT_NS;
	t_push_gnt_ns(port, T_NODE, slot, PROTO_NODE_NONE, 4, 0, 1, T_LAB_SLOT_NS);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->gnt_received, 2);
	cr_assert_eq(nic_stats(nic)->rejoins, 0);
	cr_assert_eq(nic_stats(nic)->slots_paused,
		     (T_LAB_SLOT_NS + T_LAB_SLOT_NS / 2 + 1900000000ull) / T_LAB_SLOT_NS,
		     "slots paused: %llu", (unsigned long long)nic_stats(nic)->slots_paused);
	t_done(nic, port, avail);
}

/*
 * A reliable bulk send queued before the NIC joins, for a node the cluster
 * turns out not to have, fails (SEGNET_EDOWN's SN_ERR_DOWN) instead of
 * waiting for ever; a send to such a node once joined is refused.
 */
Test(nic, a_send_to_a_node_beyond_the_cluster_fails)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic_new(port, "conf3");
	struct nic_msg bulk = {
		.vnet = T_VNET, .dst_node = 3, .handler = 7, .chan = SN_CHAN_BULK,
	};
	uint64_t now = 1000000;

	cr_assert_eq(nic_send(nic, &bulk, now), 0, "queued before the cluster size is known");
	nic_poll(nic, now);
	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 3, 0);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->joins, 1);
	cr_assert_eq(nic_stats(nic)->completed_err, 1, "the send to node 3 of 3 never ended");
	cr_assert_eq(nic_send(nic, &bulk, now), -EINVAL);
	t_done(nic, port, avail);
}

/* How often counter (STAGE.NAME) of vnet T_VNET's pipeline counted; 0 if never. */
static unsigned long long t_stage_count(struct nic *nic, const char *counter)
{
	char *text = NULL, *at;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	unsigned long long v = 0;

	cr_assert_not_null(f);
	pipeline_print_counters(nic_pipeline(nic, T_VNET), "n", f);
	fclose(f);
	at = strstr(text, counter);
	if (at)
		v = strtoull(at + strlen(counter), NULL, 10);
	free(text);
	return v;
}

/* T_PEER's quick data packet number pkt_num of its connection's epoch arrives on port. */
static void t_push_qreq_of(struct dp_port *port, uint32_t pkt_num, uint16_t epoch)
{
	static const uint8_t args[PROTO_ARGS_LEN];
	struct proto_pkt q = {
		.type = PROTO_T_QREQ, .flags = PROTO_F_DATA, .src_node = T_PEER,
		.dst_node = T_NODE, .vnet = T_VNET, .handler = 7, .pkt_num = pkt_num,
		.args = args, .epoch = epoch,
	};

	tport_push(port, tdp_encode(t_mp, &q));
}

/* T_PEER's quick data packet number pkt_num arrives on port. */
static void t_push_qreq(struct dp_port *port, uint32_t pkt_num)
{
	t_push_qreq_of(port, pkt_num, 0);
}

/*
 * A reorder buffer must not take the frames a NIC receives into: with the
 * frame pool short (under an eighth free; it is shared with the receive
 * queues and other nodes), a packet out of order is discarded, not kept, so
 * the one that fills the gap still finds a frame to arrive in.
 */
Test(nic, packets_out_of_order_are_not_kept_while_the_pool_is_short)
{
	static struct rte_mbuf *held[2048];
	unsigned int avail = rte_mempool_avail_count(t_mp), n = 0;
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_new(port, "conf4-sr");

	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	cr_assert_eq(nic_node_id(nic), T_NODE);
	tport_clear(port);
	t_welcome(nic, port, T_VNET, 0, now);

	t_push_qreq(port, 3);		/* 1 is next: kept */
	nic_poll(nic, now);
	cr_assert_eq(t_stage_count(nic, "order.buffered "), 1);

	t_push_qreq(port, 4);
	while (rte_mempool_avail_count(t_mp) > t_mp->size / 16)
		held[n++] = rte_pktmbuf_alloc(t_mp);
	nic_poll(nic, now);
	cr_assert_eq(t_stage_count(nic, "order.buffered "), 1, "kept with the pool short");
	cr_assert_eq(t_stage_count(nic, "order.discarded_short_of_descriptors "), 1);
	rte_pktmbuf_free_bulk(held, n);

	t_push_qreq(port, 5);		/* the pool is back: kept again */
	nic_poll(nic, now);
	cr_assert_eq(t_stage_count(nic, "order.buffered "), 2);
	t_done(nic, port, avail);
}

/* Packet number of the last QREQ sent on port (0: none). */
static uint32_t t_last_qreq_num(struct dp_port *port)
{
	uint32_t num[256];
	unsigned int n = t_sent_of(port, PROTO_T_QREQ, NULL, num, 256);

	return n ? num[n - 1] : 0;
}

/*
 * A NIC that loses the switch (no grant for 1000 slots) joins again as a
 * new incarnation: the switch tells its peers to start over with it, so it
 * starts over too. Its unacknowledged messages fail (SN_ERR_DOWN) and its
 * next packet to a peer is number 1 again, not the number its peer forgot
 * (which the peer would never accept). (A connection that no peer has
 * welcomed yet keeps its numbering: see
 * nic::a_new_process_that_rejoins_before_its_welcome_still_waits_for_one.)
 */
Test(nic, a_node_that_loses_the_switch_starts_its_connections_over)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic_new(port, "conf3");
	struct nic_msg quick = {
		.vnet = T_VNET, .dst_node = T_PEER, .handler = 7, .chan = SN_CHAN_QUICK,
	};
	uint64_t now = 1000000;

	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	t_welcome(nic, port, T_VNET, 0, now);
	for (uint32_t n = 1; n <= 2; n++) {
		cr_assert_eq(nic_send(nic, &quick, now), 0);
		nic_poll(nic, now);
		cr_assert_eq(t_last_qreq_num(port), n);
	}
	now += 1001ull * T_SLOT_NS;
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->rejoins, 1);
	cr_assert_eq(nic_stats(nic)->completed_err, 2, "the unacknowledged messages");
	t_push_gnt_of(port, 2000, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->joins, 2);
	tport_clear(port);
	cr_assert_eq(nic_send(nic, &quick, now), 0);
	nic_poll(nic, now);
	cr_assert_eq(t_last_qreq_num(port), 1, "numbering went on from before the rejoin");
	t_done(nic, port, avail);
}

/* Messages one endpoint sends in the cancellation tests. */
enum {
	T_EP_GONE = 1,		/* the endpoint that closes */
	T_EP_STAYS = 2,		/* the one that does not */
	T_ROUNDS = 24,		/* quick messages each sends ... */
	T_BULK_EVERY = 6,	/* ... and a bulk one every this many */
	T_MSGS = 2 * (T_ROUNDS + T_ROUNDS / T_BULK_EVERY),	/* both endpoints' */
	T_LEN = 100,		/* bytes of a bulk payload */
};

/* What the two NICs of a cancellation test saw. */
struct t_seen {
	int status[T_MSGS];		/* completion of message i (-1: none yet) */
	unsigned int completions[T_MSGS];	/* how often it completed */
	uint8_t delivered_ep[T_MSGS];	/* the receiver's deliveries, in order: endpoint */
	uint16_t delivered_seq[T_MSGS];	/* ... and the sender's sequence number */
	unsigned int n_delivered;	/* deliveries so far */
	unsigned int bad_payload;	/* bulk payloads that differ from what was sent */
	unsigned int bulk;		/* bulk messages delivered (T_LEN bytes) */
};

/* Nothing seen yet: no message completed or delivered. */
static void t_seen_clear(struct t_seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	memset(seen->status, -1, sizeof(seen->status));
}

/* The byte k of message seq's bulk payload. */
static uint8_t t_byte(uint16_t seq, unsigned int k)
{
	return (uint8_t)(seq * 7 + k);
}

/* Sender's owner: message (cookie - 1) completed. */
static void t_seen_complete(void *ctx, const struct sn_pkt *pkt, int status, uint64_t now)
{
	struct t_seen *s = ctx;
	uintptr_t i = (uintptr_t)pkt->cookie - 1;

	(void)now;
	cr_assert_lt(i, T_MSGS, "a completion for no message");
	s->status[i] = status;
	s->completions[i]++;
}

/* Receiver's owner: a message arrived (args: sending endpoint, sequence number). */
static void t_seen_deliver(void *ctx, const struct sn_pkt *pkt, uint64_t now)
{
	struct t_seen *s = ctx;
	uint16_t seq = (uint16_t)(pkt->h.args[1] | pkt->h.args[2] << 8);

	(void)now;
	cr_assert_lt(s->n_delivered, T_MSGS, "more deliveries than messages");
	s->delivered_ep[s->n_delivered] = pkt->h.args[0];
	s->delivered_seq[s->n_delivered++] = seq;
	s->bulk += pkt->h.payload_len == T_LEN;
	for (unsigned int k = 0; k < pkt->h.payload_len; k++)
		if (pkt->h.payload[k] != t_byte(seq, k)) {
			s->bad_payload++;
			break;
		}
}

/*
 * Send T_MSGS messages from both endpoints to T_PEER, alternating: each
 * round a quick one of each, and every T_BULK_EVERY rounds a bulk one of
 * each. The payload of the closing endpoint is in gone (its "shared
 * memory", unmapped when it closes), the other's in stays. Message i has
 * cookie i + 1; args carry the endpoint and its own sequence number.
 */
static void t_send_both(struct nic *nic, uint8_t *gone, uint8_t *stays, uint64_t now)
{
	uint16_t seq[3] = { 0 };
	unsigned int i = 0;

	for (unsigned int r = 0; r < T_ROUNDS; r++)
		for (unsigned int b = 0; b < (r % T_BULK_EVERY ? 2u : 4u); b++) {
			uint8_t ep = b % 2 ? T_EP_STAYS : T_EP_GONE;
			uint8_t *buf = (ep == T_EP_GONE ? gone : stays) + i * T_LEN;
			uint8_t args[PROTO_ARGS_LEN] = {
				ep, (uint8_t)seq[ep], (uint8_t)(seq[ep] >> 8),
			};
			struct nic_msg m = {
				.vnet = T_VNET, .dst_node = T_PEER, .dst_ep = 0, .src_ep = ep,
				.handler = 7, .chan = b < 2 ? SN_CHAN_QUICK : SN_CHAN_BULK,
				.args = args, .payload = b < 2 ? NULL : buf,
				.len = b < 2 ? 0 : T_LEN, .cookie = (void *)(uintptr_t)(i + 1),
			};

			for (unsigned int k = 0; k < T_LEN; k++)
				buf[k] = t_byte(seq[ep], k);
			cr_assert_eq(nic_send(nic, &m, now), 0, "send %u", i);
			seq[ep]++;
			i++;
		}
	cr_assert_eq(i, T_MSGS);
}

/* Hand the frames from sent for node `to` to port to (lost: free them); the switch's go. */
static void t_carry(struct dp_port *from, struct dp_port *to, uint16_t to_node, bool lost)
{
	for (unsigned int i = 0; i < tport_sent(from); i++) {
		struct rte_mbuf *m = tport_frame(from, i);
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(m, &p), PROTO_R_OK);
		if (!lost && p.dst_node == to_node)
			tport_push(to, m);
		else
			rte_pktmbuf_free(m);
	}
	tport_forget(from);
}

/* Two NICs, T_NODE sending to T_PEER, and the switch between them played by the test. */
struct t_pair {
	struct dp_port *port[2];	/* T_NODE's, T_PEER's */
	struct nic *nic[2];		/* on them */
	uint64_t now;			/* the clock */
	uint32_t slot;			/* the next slot */
	struct nic_ops ops[2];		/* t_pair_open: their owners */
	unsigned int avail;		/* t_pair_open: frames free before */
	const char *conf;		/* t_pair_open: their configuration */
};

/*
 * The counts each connection keeps agree with its lists. never_sent: with
 * none, pipeline_rx_ack_base takes an ack below tx_next without walking
 * the packets, so a count too low would let an ack of a packet never sent
 * through. rx_blocks_used: with none, nic_rx_admit looks at no entry, so a
 * count too low would let data through a block. And a connection that
 * knows an epoch knows its peer's process: only then does the reach tell
 * a gone pair's late frame (a NO_VNET answer gave one without, once).
 */
static void t_check_counts(struct nic *nic, const char *when, unsigned int it)
{
	struct pipeline *pl = nic_pipeline(nic, T_VNET);
	char why[160];

	cr_assert(!pl || pipeline_counts_agree(pl, why, sizeof(why)), "%s %u: %s", when, it, why);
	/* an epoch is known only with its peer's process (else no reach applies) */
	for (uint16_t k = 0; pl && k < pl->n_nodes; k++)
		cr_assert(!pl->conns[k] || !pl->conns[k]->epoch_known ||
			  pl->conns[k]->fresh_seen != SN_FRESH_NONE,
			  "%s %u: conn %u knows epoch %u and no process of its peer", when, it, k,
			  pl->conns[k]->epoch);
}

/*
 * One slot: T_NODE may send T_PEER a BREQ (while up), both poll, and what
 * each sent reaches the other (lost: T_NODE's frames never do).
 */
static void t_pair_slot(struct t_pair *tp, bool up, bool lost)
{
	if (up)
		t_push_gnt_to(tp->port[0], T_NODE, tp->slot, T_PEER, 4, 0);
	t_push_gnt_to(tp->port[1], T_PEER, tp->slot, PROTO_NODE_NONE, 4, 0);
	tp->slot++;
	for (int round = 0; round < 2; round++) {
		nic_poll(tp->nic[0], tp->now);
		nic_poll(tp->nic[1], tp->now);
		t_carry(tp->port[0], tp->port[1], T_PEER, lost);
		t_carry(tp->port[1], tp->port[0], T_NODE, false);
	}
	t_check_counts(tp->nic[0], "slot", tp->slot);
	t_check_counts(tp->nic[1], "slot", tp->slot);
	tp->now += T_SLOT_NS;
}

/*
 * A joined pair on conf at time 1 ms, slot 1, whose owners record in the
 * two t_seen returned (no completion yet: status -1); T_PEER's owner says
 * whether an endpoint has a receive buffer by rx_space (NULL: always).
 */
static struct t_seen *t_pair_open_on(struct t_pair *tp, const char *conf,
				     bool (*rx_space)(void *, uint16_t, uint16_t))
{
	static struct t_seen seen[2];

	*tp = (struct t_pair) { .now = 1000000, .slot = 1,
				.avail = rte_mempool_avail_count(t_mp), .conf = conf };
	for (int k = 0; k < 2; k++) {
		t_seen_clear(&seen[k]);
		tp->ops[k] = (struct nic_ops) { .ctx = &seen[k], .complete = t_seen_complete,
						.deliver = t_seen_deliver,
						.rx_space = k ? rx_space : NULL };
		tp->port[k] = tport_create(k ? "peer" : "node", 256);
		tp->nic[k] = t_nic_with(tp->port[k], conf, &tp->ops[k]);
	}
	t_pair_slot(tp, true, false);
	return seen;
}

/* The same on conf4-sr, every endpoint with buffers. */
static struct t_seen *t_pair_open(struct t_pair *tp)
{
	return t_pair_open_on(tp, "conf4-sr", NULL);
}

/* Take a pair of t_pair_open down; the pool is back where it was. */
static void t_pair_free(struct t_pair *tp)
{
	for (int k = 0; k < 2; k++) {
		nic_destroy(tp->nic[k]);
		dp_port_destroy(tp->port[k]);
	}
	cr_assert_eq(rte_mempool_avail_count(t_mp), tp->avail, "frames leaked");
}

/*
 * Move the frames T_NODE (k = 0) or T_PEER (k = 1) sent to the other,
 * except those `skip` says (freed), or `hold` says (kept in *held).
 */
static void t_move_frames(struct t_pair *tp, int k, bool (*skip)(const struct proto_pkt *),
		       bool (*hold)(const struct proto_pkt *), struct rte_mbuf **held)
{
	struct dp_port *from = tp->port[k], *to = tp->port[!k];

	for (unsigned int i = 0; i < tport_sent(from); i++) {
		struct rte_mbuf *m = tport_frame(from, i);
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(m, &p), PROTO_R_OK);
		if (p.dst_node != (k ? T_NODE : T_PEER) || (skip && skip(&p)))
			rte_pktmbuf_free(m);
		else if (hold && hold(&p) && !*held)
			*held = m;
		else
			tport_push(to, m);
	}
	tport_forget(from);
}

/* The first transmission of QREQ packet 1. */
static bool t_is_first_qreq1(const struct proto_pkt *p)
{
	return p->type == PROTO_T_QREQ && p->pkt_num == 1 && !(p->flags & PROTO_F_RETX);
}

/* The first transmission of quick packet 2. */
static bool t_is_first_qreq2(const struct proto_pkt *p)
{
	return p->type == PROTO_T_QREQ && p->pkt_num == 2 && !(p->flags & PROTO_F_RETX);
}

/* The sender's packets still unacknowledged on its connection to T_PEER. */
static uint32_t t_outstanding(struct nic *nic)
{
	struct pipeline *pl = nic_pipeline(nic, T_VNET);

	return pl->conns[T_PEER] ? pl->conns[T_PEER]->outstanding : 0;
}

/*
 * An endpoint closes while its sends wait in the NIC: nic_cancel completes
 * every one of them at once (SN_ERR_CANCELLED) and the NIC never reads their
 * payloads again (the test unmaps them, as nicd does with the endpoint's
 * shared memory: a read would crash it). The other endpoint's messages on
 * the same connection all arrive, once each, intact, and on the ordered
 * configuration in the order sent: a cancelled message that already had a
 * packet number left a marker that the receiver took in its place and
 * delivered nothing for. Cases: a NIC that never joined (the switch is
 * absent: everything waits in the NIC: in rate, in genp's window, numbered
 * in the channel); one joined whose frames so far were all lost (numbered
 * packets sent and unacknowledged, bulk ones waiting for their BACK); and an
 * unreliable configuration paced by rate, with no numbers at all.
 */
Test(nic, a_closed_endpoints_sends_are_cancelled_and_the_others_arrive_in_order)
{
	/* joined: before the close; ordered: numbered and delivered in order (conf4). */
	static const struct { const char *conf; bool joined; bool ordered; } cases[] = {
		{ "conf4-sr", false, true },
		{ "conf4-sr", true, true },
		/*
		 * Numbered quick packets hold every quick send buffer, waiting
		 * for acks the receiver cannot give past a cancelled bulk
		 * packet's number until its marker comes: the marker must not
		 * wait for a quick buffer behind them.
		 */
		{ "conf4-gbn", true, true },
		{ "conf4-sr,order:buffer=4", true, true },
		{ "conf4-gbn,rate:pps=200000", false, true },
		{ "conf1,rate:pps=20000", false, false },
	};

	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned int avail = rte_mempool_avail_count(t_mp), gone_msgs = 0;
		static struct t_seen seen;
		struct nic_ops tx_ops = { .ctx = &seen, .complete = t_seen_complete };
		struct nic_ops rx_ops = { .ctx = &seen, .deliver = t_seen_deliver };
		size_t shm_len = T_MSGS * T_LEN;
		static uint8_t stays[T_MSGS * T_LEN];
		uint8_t *gone = mmap(NULL, shm_len, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct t_pair tp = { .now = 1000000, .slot = 1 };
		uint16_t next_seq = 0;
		uint32_t cancelled;

		cr_assert_neq(gone, MAP_FAILED);
		memset(&seen, 0, sizeof(seen));
		memset(seen.status, -1, sizeof(seen.status));
		for (int k = 0; k < 2; k++)
			tp.port[k] = tport_create(k ? "peer" : "node", 256);
		tp.nic[0] = t_nic_with(tp.port[0], cases[c].conf, &tx_ops);
		tp.nic[1] = t_nic_with(tp.port[1], cases[c].conf, &rx_ops);
		t_pair_slot(&tp, cases[c].joined, false);
		t_send_both(tp.nic[0], gone, stays, tp.now);
		for (int k = 0; k < 3; k++)
			t_pair_slot(&tp, cases[c].joined, true);
		cr_assert_eq(nic_pending(tp.nic[0]), T_MSGS,
			     "%s: a message completed before the close", cases[c].conf);

		cancelled = nic_cancel(tp.nic[0], T_VNET, T_EP_GONE, tp.now);
		munmap(gone, shm_len);
		for (unsigned int i = 0; i < T_MSGS; i++) {
			bool of_gone = seen.status[i] == SN_ERR_CANCELLED;

			gone_msgs += of_gone;
			cr_assert_eq(seen.completions[i], of_gone ? 1u : 0u,
				     "%s: message %u completed %u times at the close",
				     cases[c].conf, i, seen.completions[i]);
		}
		cr_assert_eq(gone_msgs, T_MSGS / 2, "%s: cancelled %u of the closing endpoint's %u",
			     cases[c].conf, gone_msgs, T_MSGS / 2);
		cr_assert_eq(cancelled, T_MSGS / 2);
		cr_assert_eq(nic_stats(tp.nic[0])->cancelled, T_MSGS / 2);
		cr_assert_eq(nic_pending(tp.nic[0]), T_MSGS / 2);
		cr_assert_eq(nic_cancel(tp.nic[0], T_VNET, T_EP_GONE, tp.now), 0, "twice");

		for (unsigned int s = 0; s < 5000 && (nic_pending(tp.nic[0]) ||
						      t_outstanding(tp.nic[0])); s++)
			t_pair_slot(&tp, true, false);
		cr_assert_eq(nic_pending(tp.nic[0]), 0, "%s: %u messages never completed",
			     cases[c].conf, nic_pending(tp.nic[0]));
		cr_assert_eq(t_outstanding(tp.nic[0]), 0, "%s: markers never acknowledged",
			     cases[c].conf);
		for (unsigned int i = 0; i < T_MSGS; i++)
			cr_assert(seen.status[i] == SN_ERR_CANCELLED ||
				  (seen.status[i] == SN_OK && seen.completions[i] == 1),
				  "%s: message %u: status %d, %u completions", cases[c].conf, i,
				  seen.status[i], seen.completions[i]);
		cr_assert_eq(seen.n_delivered, T_MSGS / 2, "%s: %u delivered", cases[c].conf,
			     seen.n_delivered);
		cr_assert_eq(seen.bad_payload, 0);
		cr_assert_eq(seen.bulk, T_ROUNDS / T_BULK_EVERY, "%s: %u bulk delivered",
			     cases[c].conf, seen.bulk);
		for (unsigned int d = 0; d < seen.n_delivered; d++) {
			cr_assert_eq(seen.delivered_ep[d], T_EP_STAYS,
				     "%s: a cancelled message arrived", cases[c].conf);
			if (cases[c].ordered)
				cr_assert_eq(seen.delivered_seq[d], next_seq,
					     "%s: delivery %u is %u", cases[c].conf, d,
					     seen.delivered_seq[d]);
			next_seq++;
		}
		/* The receiver took a marker for each cancelled message that had a number. */
		cr_assert_eq(nic_stats(tp.nic[1])->rx_abandoned, !cases[c].ordered ? 0 :
			     T_MSGS / 2 - t_stage_count(tp.nic[0], "genp.cancelled_unnumbered ") -
			     t_stage_count(tp.nic[0], "rate.cancelled "), "%s", cases[c].conf);
		cr_assert_eq(nic_stats(tp.nic[0])->back_unmatched, 0);
		for (int k = 0; k < 2; k++) {
			nic_destroy(tp.nic[k]);
			dp_port_destroy(tp.port[k]);
		}
		cr_assert_eq(rte_mempool_avail_count(t_mp), avail, "%s: frames leaked",
			     cases[c].conf);
	}
}

/*
 * A numbered send queued before the NIC joins, to a node the cluster turns
 * out not to have, and cancelled before the join: its marker goes at the
 * join with the connection (no message waits for that node any more, but
 * the marker would be resent to it for ever).
 */
Test(nic, a_cancelled_send_beyond_the_cluster_leaves_no_marker)
{
	unsigned int avail = rte_mempool_avail_count(t_mp), before;
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic_new(port, "conf3");
	struct nic_msg quick = {
		.vnet = T_VNET, .dst_node = 3, .src_ep = T_EP_GONE, .handler = 7,
		.chan = SN_CHAN_QUICK,
	};
	struct pipeline *pl = nic_pipeline(nic, T_VNET);
	uint64_t now = 1000000;

	cr_assert_eq(nic_send(nic, &quick, now), 0);
	nic_poll(nic, now);
	cr_assert_eq(nic_cancel(nic, T_VNET, T_EP_GONE, now), 1);
	cr_assert_eq(pl->conns[3]->outstanding, 1, "the marker of packet 1");
	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 3, 0);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->joins, 1);
	cr_assert_eq(pl->conns[3]->outstanding, 0, "a marker for node 3 of 3 stayed");
	for (int k = 0; k < 10; k++) {
		now += 1000000;
		nic_poll(nic, now);
	}
	cr_assert_eq(t_count(port, PROTO_T_QREQ, &before), 0, "a QREQ left for node 3");
	t_done(nic, port, avail);
}

/* Which of port's sent frames are data QREQs of node dst in vnet (their numbers in seen). */
static unsigned int t_count_qreqs(struct dp_port *port, uint16_t dst, uint16_t vnet,
				  uint32_t seen[32])
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < tport_sent(port); i++) {
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(tport_frame(port, i), &p), PROTO_R_OK);
		if (p.type != PROTO_T_QREQ || p.dst_node != dst || p.vnet != vnet ||
		    (p.flags & PROTO_F_ABANDONED))
			continue;
		n++;
		if (seen && p.pkt_num < 32)
			seen[p.pkt_num] = 1;
	}
	return n;
}

/* The same, and forget port's sent frames. */
static unsigned int t_take_qreqs(struct dp_port *port, uint16_t dst, uint16_t vnet,
				 uint32_t seen[32])
{
	unsigned int n = t_count_qreqs(port, dst, vnet, seen);

	tport_clear(port);
	return n;
}

/* One quick message from nic to node dst at now. */
static void t_send_quick_to(struct nic *nic, uint16_t dst, uint64_t now)
{
	struct nic_msg msg = {
		.vnet = T_VNET, .dst_node = dst, .handler = 7, .chan = SN_CHAN_QUICK,
	};

	cr_assert_eq(nic_send(nic, &msg, now), 0);
}

/*
 * A NIC of cfg in a cluster of n_nodes whose quick messages are given up
 * fast (conf3, 3 tries of 10 us), joined at now, that sent 16 quick
 * messages to each of the n silent nodes (nobody acknowledges) and polled
 * once.
 */
static struct nic *t_nic_silent_of(struct dp_port *port, const struct nic_config *cfg,
				   uint16_t n_nodes, uint64_t now, const uint16_t *silent, int n)
{
	struct nic *nic = t_nic_of(port, "conf3,genp:max_retx=3,"
				   "timer:timeout_ns=10000:adaptive=off", NULL, cfg);

	t_push_gnt_of(port, 1, PROTO_NODE_NONE, n_nodes, 0);
	nic_poll(nic, now);
	cr_assert(nic_is_up(nic));
	for (int k = 0; k < n; k++)
		for (int i = 0; i < 16; i++)
			t_send_quick_to(nic, silent[k], now);
	nic_poll(nic, now);
	return nic;
}

/* The same, of t_config(1, 0) (16 quick buffers, 4 of them the reserve) in a cluster of 4. */
static struct nic *t_nic_silent(struct dp_port *port, uint64_t now, const uint16_t *silent,
				int n)
{
	struct nic_config cfg = t_config(1, 0);

	return t_nic_silent_of(port, &cfg, 4, now, silent, n);
}

/*
 * 50 ms of slots (a GNT of a cluster of n_nodes every 50) from *now: the
 * data QREQs to node 3 sent meanwhile, and those to T_PEER noted in seen
 * (if not NULL).
 */
static unsigned int t_run_50ms_of(struct dp_port *port, struct nic *nic, uint16_t n_nodes,
				  uint64_t *now, uint32_t seen[32])
{
	unsigned int to3 = 0;
	uint32_t slot = 1;

	for (int k = 0; k < 5000; k++) {
		*now += T_SLOT_NS;
		if (k % 50 == 0) {
			slot += 50;
			t_push_gnt_of(port, slot, PROTO_NODE_NONE, n_nodes, 0);
		}
		nic_poll(nic, *now);
		to3 += t_count_qreqs(port, 3, T_VNET, NULL);
		t_take_qreqs(port, T_PEER, T_VNET, seen);
	}
	return to3;
}

/* The same in a cluster of 4. */
static unsigned int t_run_50ms(struct dp_port *port, struct nic *nic, uint64_t *now,
			       uint32_t seen[32])
{
	return t_run_50ms_of(port, nic, 4, now, seen);
}

/*
 * 16 quick messages to a peer that never acknowledges take 12 of the 16
 * quick send buffers, leaving the reserve (quick_reserve 4) to the others,
 * and keep them once given up (max_retx: their markers are resent), while
 * the other 4 wait behind them and never leave, until the markers went
 * 2 * max_retx times and the connection restarts: they fail then. A quick
 * message to node 3 leaves at once. Before the reserve the 16 held every
 * buffer, and after giving up their markers did, for ever: no quick
 * message to anyone left again.
 */
Test(nic, a_silent_peer_leaves_quick_buffers_to_the_others)
{
	static const uint16_t silent[] = { T_PEER };
	unsigned int avail = rte_mempool_avail_count(t_mp), to3;
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_silent(port, now, silent, 1);
	uint32_t seen[32] = { 0 }, resent = 0, never = 0;

	t_send_quick_to(nic, 3, now);
	nic_poll(nic, now);
	cr_assert_eq(t_take_qreqs(port, 3, T_VNET, NULL), 1, "the message to node 3 waited");
	to3 = t_run_50ms(port, nic, &now, seen);
	for (int i = 1; i <= 16; i++)
		*(i <= 12 ? &resent : &never) += seen[i];
	cr_log_info("completed_err %llu, pending %u, QREQs to node 3 after the first: %u",
		    (unsigned long long)nic_stats(nic)->completed_err, nic_pending(nic), to3);
	cr_assert_eq(resent, 12, "%u of the 12 that took a buffer were resent", resent);
	cr_assert_eq(never, 0, "%u of the 4 behind them left", never);
	/* The silent peer's 16 and node 3's: nobody acknowledges, each connection restarts. */
	cr_assert_eq(nic_stats(nic)->completed_err, 17);
	cr_assert_eq(nic_pending(nic), 0);
	cr_assert_eq(t_stage_count(nic, "genp.stuck_restarts "), 2);
	cr_assert_gt(to3, 0);
	t_done(nic, port, avail);
}

/*
 * doc/endpoints.md: a receiver that stops polling does not stall other
 * virtual networks. Quick messages to an endpoint that refuses them (no
 * receive buffer, so no ack) take all but a share of the quick send
 * buffers, so a quick message in vnet 2 to the same, willing, node leaves
 * at once. Before, the 16 held all 16 buffers until they were given up
 * (max_retx, about a second by default).
 */
Test(nic, a_stuck_receiver_does_not_stall_quick_sends_of_other_vnets)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic_with(port, "conf4-sr", NULL);
	struct nic_msg msg = {
		.vnet = T_VNET, .dst_node = T_PEER, .handler = 7, .chan = SN_CHAN_QUICK,
	};
	uint64_t now = 1000000;

	t_add_vnet2(nic, "build_acks,order,dup_find,timer,genp");
	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	for (int i = 0; i < 16; i++)
		cr_assert_eq(nic_send(nic, &msg, now), 0);
	nic_poll(nic, now);
	cr_assert_eq(t_take_qreqs(port, T_PEER, T_VNET, NULL), 12, "all but a share");
	msg.vnet = 2;
	cr_assert_eq(nic_send(nic, &msg, now), 0);
	nic_poll(nic, now);
	cr_assert_eq(t_take_qreqs(port, T_PEER, 2, NULL), 1, "the vnet-2 quick message waited");
	t_done(nic, port, avail);
}

/* The last QACK sent on port, in *q; false if none. */
static bool t_last_qack(struct dp_port *port, struct proto_pkt *q)
{
	bool found = false;

	for (unsigned int i = 0; i < tport_sent(port); i++) {
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(tport_frame(port, i), &p), PROTO_R_OK);
		if (p.type == PROTO_T_QACK) {
			*q = p;
			found = true;
		}
	}
	return found;
}

/*
 * Ingress checks a frame's epoch before its pipeline sees it: the first
 * frame of a peer sets it; an older one is dropped whole (rx_stale_epoch)
 * and answered at once by a QACK of the current epoch; a newer one restarts
 * the connection (epoch_restarts) and is taken as the new incarnation's.
 */
Test(nic, frames_are_checked_against_their_connections_epoch)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic_new(port, "conf4-sr");
	uint64_t now = 1000000;
	struct proto_pkt q;

	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	t_welcome(nic, port, T_VNET, 7, now);
	t_push_qreq_of(port, 1, 7);
	t_push_qreq_of(port, 2, 7);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->delivered, 2);
	tport_clear(port);
	t_push_qreq_of(port, 3, 6);		/* from before a reset */
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->rx_stale_epoch, 1);
	cr_assert_eq(nic_stats(nic)->delivered, 2, "a stale frame was delivered");
	cr_assert(t_last_qack(port, &q), "no reply to the stale frame");
	cr_assert_eq(q.epoch, 7);
	cr_assert_eq(q.ack_base, 2, "the stale packet 3 was recorded");
	t_push_qreq_of(port, 1, 8);		/* the peer restarted: its packet 1 */
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->epoch_restarts, 1);
	cr_assert_eq(nic_stats(nic)->delivered, 3);
	cr_assert(t_last_qack(port, &q));
	cr_assert_eq(q.epoch, 8);
	cr_assert_eq(q.ack_base, 1);
	cr_assert_eq(nic_stats(nic)->rx_data, 4);
	t_done(nic, port, avail);
}

/*
 * Two BREQs in one slot (a grant of 2 frames), one per virtual network: a
 * BACK answers the BREQ of its own virtual network and packet number, not
 * the first BREQ of that slot. vnet 2's is refused and vnet 1's accepted
 * (BACKs in that order): vnet 2's goes out again, vnet 1's does not. Before,
 * the NACK was taken for vnet 1's BREQ and the positive BACK for vnet 2's.
 */
Test(nic, a_back_answers_the_breq_of_its_vnet_and_number)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic_cap(port, "conf3", NULL, 2);
	uint16_t vnet[16];
	uint32_t num[16], slot = 1;
	uint64_t now = 1000000;
	unsigned int n;
	struct proto_pkt b = {
		.type = PROTO_T_BACK, .src_node = T_PEER, .dst_node = T_NODE,
	};

	t_add_vnet2(nic, "conf3");
	t_push_gnt_k(port, T_NODE, slot++, PROTO_NODE_NONE, 4, 0, 2);	/* joins: 2 frames a slot */
	nic_poll(nic, now);
	tport_clear(port);
	t_welcome(nic, port, T_VNET, 0, now);
	t_welcome(nic, port, 2, 0, now);
	t_send_bulk(nic, T_VNET, now);
	t_send_bulk(nic, 2, now);
	nic_poll(nic, now);
	t_push_gnt_k(port, T_NODE, slot, T_PEER, 4, 0, 2);
	nic_poll(nic, now);
	n = t_sent_of(port, PROTO_T_BREQ, vnet, num, 16);
	cr_assert_eq(n, 2, "both BREQs in slot %u: %u", slot, n);
	cr_assert(vnet[0] == T_VNET && vnet[1] == 2);
	b.slot = slot++;
	b.vnet = 2;
	b.pkt_num = num[1];
	b.flags = PROTO_F_NACK;
	tport_push(port, tdp_encode(t_mp, &b));
	b.vnet = T_VNET;
	b.pkt_num = num[0];
	b.flags = 0;
	tport_push(port, tdp_encode(t_mp, &b));
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->back_ok, 1);
	cr_assert_eq(nic_stats(nic)->back_nack, 1);
	tport_clear(port);
	for (int k = 0; k < 20 && !t_sent_of(port, PROTO_T_BREQ, vnet, num, 16); k++) {
		now += T_SLOT_NS;
		t_push_gnt_k(port, T_NODE, slot++, T_PEER, 4, 0, 2);
		nic_poll(nic, now);
	}
	n = t_sent_of(port, PROTO_T_BREQ, vnet, num, 16);
	cr_assert_eq(n, 1);
	cr_assert_eq(vnet[0], 2, "the BREQ requested again is vnet %u's, not the refused one (2)",
		     vnet[0]);
	t_done(nic, port, avail);
}

/* Slots of T_LONG_FRAMES bulk frames of T_FRAME_NS each: the grants of the slot tests. */
enum {
	T_LONG_FRAMES = 64,
	T_FRAME_NS = 1739,
	T_LONG_SLOT_NS = T_LONG_FRAMES * T_FRAME_NS,
	T_WINDOW = 32,		/* genp's window: packets a connection has unacknowledged */
};

/*
 * A NIC of conf3 whose 128 bulk send buffers may all go to one target,
 * joined at now to slots of frames frames of T_FRAME_NS, its connection to
 * T_PEER welcomed, with n bulk messages for T_PEER queued and prefetched.
 */
static struct nic *t_nic_slots(struct dp_port *port, uint16_t frames, unsigned int n,
			       uint64_t now)
{
	struct nic_config cfg = t_config(128, 0);
	struct nic *nic;

	cfg.bulk_bufs = 128;
	nic = t_nic_of(port, "conf3", NULL, &cfg);
	t_push_gnt_ns(port, T_NODE, 1, PROTO_NODE_NONE, 4, 0, frames, frames * T_FRAME_NS);
	nic_poll(nic, now);
	cr_assert_eq(nic_node_id(nic), T_NODE);
	tport_clear(port);
	t_welcome(nic, port, T_VNET, 0, now);
	for (unsigned int i = 0; i < n; i++)
		t_send_bulk(nic, T_VNET, now);
	nic_poll(nic, now);
	tport_clear(port);
	return nic;
}

/* The BREQs sent on port, their numbers in num (at most cap); all must be for slot. */
static unsigned int t_breqs_of_slot(struct dp_port *port, uint32_t slot, uint32_t *num,
				    unsigned int cap)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < tport_sent(port); i++) {
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(tport_frame(port, i), &p), PROTO_R_OK);
		if (p.type != PROTO_T_BREQ)
			continue;
		cr_assert_eq(p.slot, slot, "a BREQ for slot %u, not %u", p.slot, slot);
		cr_assert_lt(n, cap);
		num[n++] = p.pkt_num;
	}
	return n;
}

/* T_PEER's positive BACKs for the BREQs num[0..n) of slot, each acknowledging its packet. */
static void t_push_acking_backs(struct dp_port *port, uint32_t slot, const uint32_t *num,
				unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct proto_pkt b = {
			.type = PROTO_T_BACK, .flags = PROTO_F_ACK, .src_node = T_PEER,
			.dst_node = T_NODE, .vnet = T_VNET, .pkt_num = num[i], .slot = slot,
			.ack_base = num[i],
		};

		tport_push(port, tdp_encode(t_mp, &b));
	}
}

/*
 * The grant of slot for T_PEER (slots of T_LONG_FRAMES) reaches nic at
 * when: it takes genp's window of BREQs (numbers in num, 2 * T_WINDOW
 * room), and their BACKs, each acknowledging its packet, wait on port.
 */
static void t_window_granted(struct nic *nic, struct dp_port *port, uint32_t slot,
			     uint64_t when, uint32_t *num)
{
	unsigned int n;

	t_push_gnt_ns(port, T_NODE, slot, T_PEER, 4, 0, T_LONG_FRAMES, T_LONG_SLOT_NS);
	nic_poll(nic, when);
	n = t_breqs_of_slot(port, slot, num, 2 * T_WINDOW);
	cr_assert_eq(n, T_WINDOW, "the grant took %u BREQs, genp's window is %u", n, T_WINDOW);
	tport_clear(port);
	t_push_acking_backs(port, slot, num, n);
}

/*
 * A grant of T_LONG_FRAMES frames finds genp's window of BREQs (T_WINDOW)
 * to send; their BACKs come back early in the slot and open the window: the
 * next T_WINDOW packets leave in the same slot, on the same grant, as the
 * switch takes up to T_LONG_FRAMES BREQs a grant. Before, they waited for
 * the next grant: a connection sent at most a window a slot, whatever the
 * slot's length (the bulk benchmark's 32 BREQs a grant of 64).
 */
Test(nic, backs_early_in_a_long_slot_let_the_next_window_use_its_grant)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 512);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_slots(port, T_LONG_FRAMES, 2 * T_WINDOW, now);
	uint32_t num[2 * T_WINDOW];
	unsigned int n;

	t_window_granted(nic, port, 2, now, num);
	nic_poll(nic, now + 20000);
	cr_assert_eq(nic_stats(nic)->back_ok, T_WINDOW);
	n = t_breqs_of_slot(port, 2, num, 2 * T_WINDOW);
	cr_log_info("BREQs in the slot after the BACKs: %u (breq_after_gnt %llu)", n,
		    (unsigned long long)nic_stats(nic)->breq_after_gnt);
	cr_assert_eq(n, T_WINDOW, "the opened window sent %u BREQs in the granted slot, not %u",
		     n, T_WINDOW);
	cr_assert_eq(nic_stats(nic)->breq_after_gnt, T_WINDOW);
	cr_assert_eq(nic_stats(nic)->breq_sent, 2 * T_WINDOW);
	/* The grant is used up: BACKs still in the slot send nothing more on it. */
	tport_clear(port);
	t_send_bulk(nic, T_VNET, now + 20000);
	t_push_acking_backs(port, 2, num, n);
	nic_poll(nic, now + 40000);
	cr_assert_eq(t_breqs_of_slot(port, 2, num, 2 * T_WINDOW), 0,
		     "more BREQs than the grant's %u frames", T_LONG_FRAMES);
	t_done(nic, port, avail);
}

/*
 * BREQs that become ready late in a granted slot leave only as far as they
 * still end inside it, back to back at the slot's bulk rate: BACKs 5 frame
 * times before the slot's end let 5 BREQs out (the last ends with the
 * slot), one ns later 4, and a poll after them none; the rest wait for the
 * next grant. A later one would reach the switch after the slot's frames
 * and run into the next slot's on the target's link.
 */
Test(nic, a_breq_that_would_end_past_its_slot_waits_for_the_next_grant)
{
	for (unsigned int late = 0; late < 2; late++) {
		unsigned int avail = rte_mempool_avail_count(t_mp);
		struct dp_port *port = tport_create("nic", 512);
		uint64_t now = 1000000;
		struct nic *nic = t_nic_slots(port, T_LONG_FRAMES, 2 * T_WINDOW, now);
		uint64_t backs = now + T_LONG_SLOT_NS - 5 * T_FRAME_NS + late;
		uint32_t num[2 * T_WINDOW];
		unsigned int n;

		t_window_granted(nic, port, 2, now, num);
		nic_poll(nic, backs);
		n = t_breqs_of_slot(port, 2, num, 2 * T_WINDOW);
		cr_assert_eq(n, 5 - late, "BACKs 5 frames %s the slot's end: %u BREQs, not %u",
			     late ? "(less 1 ns) before" : "before", n, 5 - late);
		nic_poll(nic, backs + 1);
		cr_assert_eq(t_breqs_of_slot(port, 2, num, 2 * T_WINDOW), 5 - late,
			     "a BREQ left that would end past the slot");
		tport_clear(port);
		t_push_gnt_ns(port, T_NODE, 3, T_PEER, 4, 0, T_LONG_FRAMES, T_LONG_SLOT_NS);
		nic_poll(nic, now + T_LONG_SLOT_NS);
		n = t_breqs_of_slot(port, 3, num, 2 * T_WINDOW);
		cr_assert_eq(n, T_WINDOW - 5 + late, "the next grant: %u BREQs", n);
		cr_assert_eq(nic_stats(nic)->breq_after_gnt, 5 - late);
		t_done(nic, port, avail);
	}
}

/*
 * A GNT that comes late (it waited behind another frame on the quick link)
 * does not move its slot's end: the slot clock of the GNTs before it says
 * when the slot began, and BREQs readied late in the slot leave only as
 * far as they end by then. Here the GNT of slot 3 comes 3 frames late and
 * BACKs 5 frames before the slot's end let 5 BREQs out, not 8.
 */
Test(nic, a_late_gnt_does_not_move_its_slots_end)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 512);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_slots(port, T_LONG_FRAMES, 2 * T_WINDOW, now);
	uint32_t num[2 * T_WINDOW];
	unsigned int n;

	t_push_gnt_ns(port, T_NODE, 2, PROTO_NODE_NONE, 4, 0, T_LONG_FRAMES, T_LONG_SLOT_NS);
	nic_poll(nic, now);
	/* It still takes its BREQs at once. */
	t_window_granted(nic, port, 3, now + T_LONG_SLOT_NS + 3 * T_FRAME_NS, num);
	nic_poll(nic, now + 2 * T_LONG_SLOT_NS - 5 * T_FRAME_NS);
	n = t_breqs_of_slot(port, 3, num, 2 * T_WINDOW);
	cr_assert_eq(n, 5, "%u BREQs in the last 5 frame times of a slot whose GNT came late", n);
	t_done(nic, port, avail);
}

/*
 * With one frame a slot (the simulator's figures) a grant has room at the
 * GNT's moment only: a packet a BACK readies 1 ns after it waits for the
 * next grant, as it always did.
 */
Test(nic, with_one_frame_a_slot_a_packet_readied_after_the_gnt_waits_for_the_next)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 512);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_slots(port, 1, 2, now);
	uint32_t num[4];

	t_push_gnt_ns(port, T_NODE, 2, T_PEER, 4, 0, 1, T_FRAME_NS);
	nic_poll(nic, now);
	cr_assert_eq(t_breqs_of_slot(port, 2, num, 4), 1);
	tport_clear(port);
	t_push_acking_backs(port, 2, num, 1);
	nic_poll(nic, now + 1);
	cr_assert_eq(tport_sent(port), 0, "a frame left on a used grant of one frame");
	t_push_gnt_ns(port, T_NODE, 3, T_PEER, 4, 0, 1, T_FRAME_NS);
	nic_poll(nic, now + T_FRAME_NS);
	cr_assert_eq(t_breqs_of_slot(port, 3, num, 4), 1);
	cr_assert_eq(nic_stats(nic)->breq_after_gnt, 0);
	t_done(nic, port, avail);
}

/*
 * A data frame of a virtual network the NIC does not serve is answered with
 * a QACK flagged NO_VNET that echoes its vnet and epoch, so its sender stops
 * resending it. Before, it was counted (rx_unknown_vnet) and dropped: the
 * sender resent it until it gave up, and then resent its marker for ever.
 */
Test(nic, a_data_frame_of_a_vnet_not_served_is_answered_no_vnet)
{
	static const uint8_t args[PROTO_ARGS_LEN];
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	struct nic *nic = t_nic(port, 1000000);
	struct proto_pkt d = {
		.type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_LAST,
		.src_node = T_PEER, .dst_node = T_NODE, .vnet = 9, .pkt_num = 1,
		.epoch = 7, .args = args,
	};
	unsigned int answers = 0;

	tport_push(port, tdp_encode(t_mp, &d));
	d.type = PROTO_T_BREQ;
	d.slot = 1;
	tport_push(port, tdp_encode(t_mp, &d));
	nic_poll(nic, 1000000);
	for (unsigned int i = 0; i < tport_sent(port); i++) {
		struct proto_pkt q;

		cr_assert_eq(tdp_decode(tport_frame(port, i), &q), PROTO_R_OK);
		if (q.type != PROTO_T_QACK)
			continue;
		cr_assert_eq(q.flags, PROTO_F_NO_VNET);
		cr_assert(q.src_node == T_NODE && q.dst_node == T_PEER);
		cr_assert(q.vnet == 9 && q.epoch == 7);
		answers++;
	}
	cr_assert_eq(answers, 2, "%u NO_VNET answers to a QREQ and a BREQ", answers);
	cr_assert_eq(nic_stats(nic)->rx_unknown_vnet, 2);
	cr_assert_eq(nic_stats(nic)->no_vnet_sent, 2);
	t_done(nic, port, avail);
}

/* T_PEER's NO_VNET answer to a frame of T_VNET of epoch. */
static void t_push_no_vnet(struct dp_port *port, uint16_t epoch)
{
	struct proto_pkt q = {
		.type = PROTO_T_QACK, .flags = PROTO_F_NO_VNET, .src_node = T_PEER,
		.dst_node = T_NODE, .vnet = T_VNET, .epoch = epoch,
	};

	tport_push(port, tdp_encode(t_mp, &q));
}

/*
 * A NO_VNET answer restarts the connection: its messages fail at once
 * (SN_ERR_DOWN) and nothing of them is resent; one that knows no epoch
 * still knows none. An answer to a frame of an earlier epoch (the
 * connection restarted since) changes nothing.
 */
Test(nic, a_no_vnet_answer_fails_the_connections_messages)
{
	unsigned int avail = rte_mempool_avail_count(t_mp), before;
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_conf(port, "conf3", now);
	struct nic_msg msg = {
		.vnet = T_VNET, .dst_node = T_PEER, .handler = 7, .chan = SN_CHAN_QUICK,
	};

	for (int i = 0; i < 3; i++)
		cr_assert_eq(nic_send(nic, &msg, now), 0);
	nic_poll(nic, now);
	cr_assert_eq(t_count(port, PROTO_T_QREQ, &before), 3);
	t_push_no_vnet(port, 0);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->no_vnet_received, 1);
	cr_assert_eq(nic_stats(nic)->completed_err, 3, "the 3 messages did not fail");
	cr_assert_eq(nic_pending(nic), 0);
	tport_clear(port);
	for (int k = 0; k < 50; k++) {
		now += 100000;
		nic_poll(nic, now);
	}
	cr_assert_eq(t_count(port, PROTO_T_QREQ, &before), 0, "a QREQ was resent");
	cr_assert_not(nic_pipeline(nic, T_VNET)->conns[T_PEER]->epoch_known,
		      "the answer gave the connection an epoch");
	/* Welcomed at epoch 4, it restarts at 5: an answer of epoch 4 is late then. */
	t_welcome(nic, port, T_VNET, 4, now);
	cr_assert_eq(nic_send(nic, &msg, now), 0);
	nic_poll(nic, now);
	t_push_no_vnet(port, 4);
	nic_poll(nic, now);
	cr_assert_eq(nic_pending(nic), 0);
	cr_assert_eq(nic_pipeline(nic, T_VNET)->conns[T_PEER]->epoch, 5);
	cr_assert_eq(nic_send(nic, &msg, now), 0);
	nic_poll(nic, now);
	t_push_no_vnet(port, 4);
	nic_poll(nic, now);
	cr_assert_eq(nic_pending(nic), 1, "a late answer failed the new message");
	cr_assert_eq(nic_rx_outcomes(nic_stats(nic)), nic_stats(nic)->rx_frames);
	t_done(nic, port, avail);
}

/*
 * Two silent connections (nodes 2 and 0, conf3 with max_retx: their markers
 * are resent until their connections restart) take 12 + 1 of the 16 quick buffers, and a quick
 * message to node 3 leaves: the reserve is for connections that hold none.
 * With a per-connection share (a connection below its share could take
 * from it) they took 12 + 4, all 16, and node 3's message never left.
 */
Test(nic, two_silent_peers_leave_a_quick_buffer_to_the_others)
{
	static const uint16_t silent[] = { T_PEER, 0 };
	unsigned int avail = rte_mempool_avail_count(t_mp), to3;
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_silent(port, now, silent, 2);

	t_send_quick_to(nic, 3, now);
	to3 = t_run_50ms(port, nic, &now, NULL);
	cr_log_info("completed_err %llu, pending %u, QREQs to node 3: %u",
		    (unsigned long long)nic_stats(nic)->completed_err, nic_pending(nic), to3);
	cr_assert_gt(to3, 0, "the quick message to node 3 never left (50 ms)");
	t_done(nic, port, avail);
}

/*
 * More silent connections than quick buffers: 7 silent peers (16 quick
 * messages each, conf3 with max_retx: their markers are resent until
 * their connections restart) and 6 quick buffers, 2 of them the reserve.
 * A quick message to node 3 must still leave. With the reserve alone, the
 * first silent connection took 4, the next two 1 each (they held none),
 * and node 3's message never left: every buffer waited for an
 * acknowledgment that never came. And every message completes: before
 * the restart of a connection whose marker went 2 * max_retx times, 96
 * of the 113 were still pending after 50 ms (never sent, behind their
 * connections' markers).
 */
Test(nic, more_silent_peers_than_quick_buffers_do_not_stall_the_others)
{
	static const uint16_t silent[] = { 0, T_PEER, 4, 5, 6, 7, 8 };
	unsigned int avail = rte_mempool_avail_count(t_mp), to3;
	struct dp_port *port = tport_create("nic", 256);
	struct nic_config cfg = t_config(1, 0);
	uint64_t now = 1000000;
	struct nic *nic;

	cfg.max_nodes = 9;
	cfg.quick_bufs = 6;
	cfg.quick_reserve = 2;
	nic = t_nic_silent_of(port, &cfg, 9, now, silent, 7);
	t_send_quick_to(nic, 3, now);
	to3 = t_run_50ms_of(port, nic, 9, &now, NULL);
	cr_log_info("completed_err %llu, pending %u, QREQs to node 3: %u",
		    (unsigned long long)nic_stats(nic)->completed_err, nic_pending(nic), to3);
	cr_assert_gt(to3, 0, "the quick message to node 3 never left (50 ms)");
	cr_assert_eq(nic_pending(nic), 0, "%u messages still pending after 50 ms", nic_pending(nic));
	cr_assert_eq(nic->ch.quick_used, 0);
	t_done(nic, port, avail);
}

/* Quick messages to a silent peer in t_stuck_conf: more than its window. */
enum { T_STUCK_MSGS = 40 };

/* What t_stuck_conf's owner saw: each message's completions and last status. */
struct t_stuck_seen {
	unsigned int completions[T_STUCK_MSGS];	/* per message (cookie - 1) */
	int status[T_STUCK_MSGS];		/* its last */
	uint64_t last;				/* when the last completion came */
};

/* The owner of t_stuck_conf's NIC: message (cookie - 1) completed. */
static void t_stuck_complete(void *ctx, const struct sn_pkt *pkt, int status, uint64_t now)
{
	struct t_stuck_seen *s = ctx;
	uintptr_t i = (uintptr_t)pkt->cookie - 1;

	cr_assert_lt(i, T_STUCK_MSGS, "a completion for no message");
	s->completions[i]++;
	s->status[i] = status;
	s->last = now;
}

/*
 * T_STUCK_MSGS quick messages to a peer that the switch has up but that
 * acknowledges nothing, on conf with max_retx=3 and 10 us timeouts (not
 * adaptive), 16 quick buffers of which 4 the reserve: polled every 10 us,
 * every message must complete once, within 2 * max_retx timeouts. The
 * packets that left fail (SN_ERR_RETRIES) after 3 transmissions and
 * become markers; when a marker went 6 times, the connection restarts and
 * the messages behind (in the quick backlog behind the markers' buffers,
 * waiting for window space) fail (SN_ERR_DOWN). Before, those waited for
 * ever: 28 of the 40 were pending after 50 ms, on each configuration, and
 * nothing told the application. Welcomed at epoch 7 first (welcomed), the
 * connection restarts at epoch 8; else over, still knowing none.
 */
static void t_stuck_conf(const char *conf, bool welcomed)
{
	unsigned int avail = rte_mempool_avail_count(t_mp), left = 0, retries = 0, once = 0;
	struct dp_port *port = tport_create("nic", 256);
	static struct t_stuck_seen seen;
	struct nic_ops ops = { .ctx = &seen, .complete = t_stuck_complete };
	struct nic_config cfg = t_config(1, 0);
	char spec[128];
	uint64_t t0 = 1000000, now = t0;
	uint32_t sent[32] = { 0 }, slot = 1;
	/* 2 * max_retx timeouts (a poll each) */
	uint64_t bound = 2 * 3 * T_SLOT_NS;
	struct nic *nic;

	memset(&seen, 0, sizeof(seen));
	snprintf(spec, sizeof(spec), "%s,genp:max_retx=3,timer:timeout_ns=10000:adaptive=off", conf);
	nic = t_nic_of(port, spec, &ops, &cfg);
	t_push_gnt_of(port, slot, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	tport_clear(port);
	if (welcomed)
		t_welcome(nic, port, T_VNET, 7, now);
	for (uintptr_t i = 0; i < T_STUCK_MSGS; i++) {
		struct nic_msg m = { .vnet = T_VNET, .dst_node = T_PEER, .handler = 7,
				     .chan = SN_CHAN_QUICK, .cookie = (void *)(i + 1) };

		cr_assert_eq(nic_send(nic, &m, now), 0);
	}
	for (int k = 0; k < 5000 && nic_pending(nic); k++) {
		if (k % 50 == 0) {
			slot += 50;
			t_push_gnt_of(port, slot, PROTO_NODE_NONE, 4, 0);
		}
		nic_poll(nic, now);
		t_take_qreqs(port, T_PEER, T_VNET, sent);
		now += T_SLOT_NS;
	}
	for (int i = 0; i < 32; i++)
		left += sent[i];
	for (int i = 0; i < T_STUCK_MSGS; i++) {
		once += seen.completions[i] == 1;
		retries += seen.status[i] == SN_ERR_RETRIES;
	}
	cr_log_info("%s%s: %u of %d pending, %u completed once, %u SN_ERR_RETRIES, %u left; "
		    "the last at %.1f us", conf, welcomed ? " (welcomed)" : "", nic_pending(nic), T_STUCK_MSGS, once, retries, left,
		    seen.last ? (seen.last - t0) / 1e3 : -1.0);
	cr_assert_eq(nic_pending(nic), 0, "%s: %u messages still pending after 50 ms", conf,
		     nic_pending(nic));
	cr_assert_eq(once, T_STUCK_MSGS, "%s: %u completed once", conf, once);
	cr_assert_eq(retries, left, "%s: %u failed SN_ERR_RETRIES, %u left", conf, retries, left);
	cr_assert_lt(left, T_STUCK_MSGS, "%s: every message left", conf);
	cr_assert_eq(nic_stats(nic)->completed_err, T_STUCK_MSGS);
	cr_assert_eq(t_stage_count(nic, "genp.stuck_restarts "), 1, "%s", conf);
	cr_assert_leq(seen.last - t0, bound, "%s: the last completion came %.1f us after the sends",
		      conf, (seen.last - t0) / 1e3);
	cr_assert_eq(nic->ch.quick_used, 0, "%s: buffers still held", conf);
	cr_assert_eq(nic_pipeline(nic, T_VNET)->conns[T_PEER]->epoch_known, welcomed);
	cr_assert_eq(nic_pipeline(nic, T_VNET)->conns[T_PEER]->epoch, welcomed ? 8 : 0);
	t_done(nic, port, avail);
}

/* t_stuck_conf on every reliable configuration, welcomed or not. */
Test(nic, every_message_to_a_silent_peer_completes)
{
	static const char *const confs[] = { "conf2", "conf3", "conf4-gbn", "conf4-sr" };

	for (size_t i = 0; i < sizeof(confs) / sizeof(confs[0]); i++) {
		t_stuck_conf(confs[i], false);
		t_stuck_conf(confs[i], true);
	}
}

/*
 * n messages to a silent peer on conf with max_retx=3 and 10 us timeouts
 * (not adaptive), bulk ones every bulk_every (1: all), a grant to the
 * peer every slot: the first leaves and fails (SN_ERR_RETRIES); the others
 * fail (SN_ERR_DOWN) when its marker went 2 * max_retx times and the
 * connection restarts. Every message completes once within 50 ms; the
 * NIC's counters for the caller in *stats.
 */
static void t_silent_first_leaves(const char *conf, unsigned int n, unsigned int bulk_every,
				  struct nic_stats *stats)
{
	unsigned int avail = rte_mempool_avail_count(t_mp), once = 0;
	struct dp_port *port = tport_create("nic", 256);
	static struct t_stuck_seen seen;
	struct nic_ops ops = { .ctx = &seen, .complete = t_stuck_complete };
	struct nic_config cfg = t_config(1, 0);
	uint64_t now = 1000000;
	uint32_t slot = 1;
	char spec[128];
	struct nic *nic;

	cr_assert_leq(n, T_STUCK_MSGS);
	memset(&seen, 0, sizeof(seen));
	snprintf(spec, sizeof(spec), "%s,genp:max_retx=3,timer:timeout_ns=10000:adaptive=off", conf);
	nic = t_nic_of(port, spec, &ops, &cfg);
	t_push_gnt_of(port, slot++, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	for (uintptr_t i = 0; i < n; i++) {
		struct nic_msg m = { .vnet = T_VNET, .dst_node = T_PEER, .handler = 7,
				     .chan = (i + 1) % bulk_every ? SN_CHAN_QUICK : SN_CHAN_BULK,
				     .cookie = (void *)(i + 1) };

		cr_assert_eq(nic_send(nic, &m, now), 0);
	}
	for (int k = 0; k < 5000 && nic_pending(nic); k++) {
		now += T_SLOT_NS;
		t_push_gnt_of(port, slot++, T_PEER, 4, 0);
		nic_poll(nic, now);
		tport_clear(port);
	}
	for (unsigned int i = 0; i < n; i++)
		once += seen.completions[i] == 1;
	cr_log_info("%s: %u pending, %llu BACKs missing, the first %d, the others %d", conf,
		    nic_pending(nic), (unsigned long long)nic_stats(nic)->back_missing,
		    seen.status[0], seen.status[1]);
	cr_assert_eq(nic_pending(nic), 0, "%s: %u messages still pending after 50 ms", conf,
		     nic_pending(nic));
	cr_assert_eq(once, n);
	cr_assert_eq(seen.status[0], SN_ERR_RETRIES);
	for (unsigned int i = 1; i < n; i++)
		cr_assert_eq(seen.status[i], SN_ERR_DOWN, "message %u: %d", i + 1, seen.status[i]);
	cr_assert_eq(t_stage_count(nic, "genp.stuck_restarts "), 1);
	*stats = *nic_stats(nic);
	t_done(nic, port, avail);
}

/*
 * Going back N across both channels, a packet whose predecessor took the
 * other channel leaves once everything before it is acknowledged: to a
 * silent peer, never. 8 messages on conf4-gbn, quick and bulk in turn:
 * the first leaves and fails, its marker is resent, and the 7 behind it,
 * never sent, fail at the restart (t_silent_first_leaves). Before, the 7
 * were pending for ever (50 ms here).
 */
Test(nic, going_back_n_what_waits_for_a_silent_peers_ack_on_the_other_channel_fails)
{
	struct nic_stats stats;

	t_silent_first_leaves("conf4-gbn", 8, 2, &stats);
}

/*
 * A bulk packet whose BACK does not come is requested again; to a peer
 * that never answers (no BACK, no ack) it was for ever: never timed,
 * never given up, its message pending (conf3, 4 bulk messages were all
 * pending after 50 ms, 999 BACKs missing). Once it went max_retx times
 * it waits for its acknowledgment instead, and the timer gives it up;
 * its marker, a QREQ, restarts the connection after 2 * max_retx, and
 * the 3 others fail (t_silent_first_leaves).
 */
Test(nic, bulk_messages_to_a_peer_that_never_answers_complete)
{
	struct nic_stats stats;

	t_silent_first_leaves("conf3", 4, 1, &stats);
	cr_assert_eq(stats.back_missing, 3, "BREQs sent without their BACK");
}

/* The switch's DOWN notice to `to` (on port) that node `down` is down: a QACK (as for a QREQ to a down node). */
static void t_push_notice_of(struct dp_port *port, uint16_t to, uint16_t down,
			     enum proto_down_kind kind, uint16_t nonce)
{
	struct proto_pkt d = {
		.type = PROTO_T_QACK, .flags = PROTO_F_DOWN, .src_node = down,
		.dst_node = to, .vnet = T_VNET, .epoch = kind, .handler = nonce,
	};

	tport_push(port, tdp_encode(t_mp, &d));
}

/* The same, of the process of boot nonce 0 (incarnation 0). */
static void t_push_notice(struct dp_port *port, uint16_t to, uint16_t down,
			  enum proto_down_kind kind)
{
	t_push_notice_of(port, to, down, kind, 0);
}

/* A DOWN notice to `to` that node `down` is down. */
static void t_push_down(struct dp_port *port, uint16_t to, uint16_t down)
{
	t_push_notice(port, to, down, PROTO_DOWN_DOWN);
}

/* Node k of the pair hears no grant for PROTO_LOST_GNT_SLOTS and rejoins (the other stays up). */
static void t_pair_rejoin(struct t_pair *tp, int k)
{
	uint64_t before = nic_stats(tp->nic[k])->rejoins;

	tp->now += (PROTO_LOST_GNT_SLOTS + 1ull) * T_SLOT_NS;
	tp->slot += PROTO_LOST_GNT_SLOTS + 1;
	t_push_gnt_to(tp->port[!k], k ? T_NODE : T_PEER, tp->slot++, PROTO_NODE_NONE, 4, 0);
	nic_poll(tp->nic[0], tp->now);
	nic_poll(tp->nic[1], tp->now);
	tport_clear(tp->port[0]);
	tport_clear(tp->port[1]);
	cr_assert_eq(nic_stats(tp->nic[k])->rejoins, before + 1);
}

/*
 * The switch restarts: both nodes of the pair miss their grants and rejoin;
 * T_NODE joins the new switch first.
 */
static void t_pair_switch_restarts(struct t_pair *tp)
{
	tp->now += (PROTO_LOST_GNT_SLOTS + 1ull) * T_SLOT_NS;
	tp->slot += PROTO_LOST_GNT_SLOTS + 1;
	for (int k = 0; k < 2; k++) {
		nic_poll(tp->nic[k], tp->now);
		tport_clear(tp->port[k]);
		cr_assert_eq(nic_stats(tp->nic[k])->rejoins, 1);
	}
	t_push_gnt_to(tp->port[0], T_NODE, tp->slot, PROTO_NODE_NONE, 4, PROTO_GNT_F_JOINED);
	nic_poll(tp->nic[0], tp->now);
	tport_clear(tp->port[0]);
}

/* T_PEER rejoins and the switch tells T_NODE so; a slot passes. */
static void t_pair_peer_returns(struct t_pair *tp)
{
	t_pair_rejoin(tp, 1);
	t_push_notice(tp->port[0], T_NODE, T_PEER, PROTO_DOWN_REJOINED);
	t_pair_slot(tp, true, false);
}

/* T_NODE sends quick message m to T_PEER while it is away: a DOWN notice answers. */
static void t_pair_send_to_absent(struct t_pair *tp, struct nic_msg *m)
{
	cr_assert_eq(nic_send(tp->nic[0], m, tp->now), 0);
	nic_poll(tp->nic[0], tp->now);
	tport_clear(tp->port[0]);
	t_push_down(tp->port[0], T_NODE, T_PEER);
	nic_poll(tp->nic[0], tp->now);
	tport_clear(tp->port[0]);
}

/*
 * Message `id` from each node of the pair to the other, slots until both
 * complete: both must complete OK and arrive (the ends' epochs agree).
 */
static void t_pair_exchange(struct t_pair *tp, struct t_seen *seen, uintptr_t id,
			    const char *when)
{
	uint16_t node[2] = { T_NODE, T_PEER };
	unsigned int got[2] = { seen[0].n_delivered, seen[1].n_delivered };

	for (int k = 0; k < 2; k++) {
		struct nic_msg m = {
			.vnet = T_VNET, .dst_node = node[!k], .handler = 7,
			.chan = SN_CHAN_QUICK, .cookie = (void *)id,
		};

		cr_assert_eq(nic_send(tp->nic[k], &m, tp->now), 0);
	}
	for (int s = 0; s < 2000 && (seen[0].status[id - 1] < 0 || seen[1].status[id - 1] < 0); s++)
		t_pair_slot(tp, true, false);
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(seen[k].status[id - 1], SN_OK,
			     "%s: node %d's message failed (%d): epochs %u and %u", when, k,
			     seen[k].status[id - 1],
			     nic_pipeline(tp->nic[0], T_VNET)->conns[T_PEER]->epoch,
			     nic_pipeline(tp->nic[1], T_VNET)->conns[T_NODE]->epoch);
		cr_assert_eq(seen[!k].n_delivered, got[!k] + 1, "%s: not delivered", when);
	}
}

/*
 * The switch restarts: both NICs lose their grants and rejoin (each takes a
 * new epoch). T_NODE joins the new switch first and sends to T_PEER, which
 * has not joined it: the notice says so (PROTO_DOWN_NOT_JOINED), and T_NODE
 * fails the message without a second new epoch, since T_PEER's own rejoin is
 * the one restart of its side. When every notice moved the epoch on, T_NODE
 * ended one ahead and the first message after the restart failed (a review:
 * `lab.sh restart-switchd` in a 3-node lab, 4 failed sends).
 */
Test(nic, a_switch_restart_leaves_both_ends_at_one_epoch)
{
	struct nic_msg m = { .vnet = T_VNET, .dst_node = T_PEER, .chan = SN_CHAN_QUICK,
			     .cookie = (void *)2 };
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);

	t_pair_exchange(&tp, seen, 1, "before");
	t_pair_switch_restarts(&tp);
	cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	nic_poll(tp.nic[0], tp.now);
	tport_clear(tp.port[0]);
	t_push_notice(tp.port[0], T_NODE, T_PEER, PROTO_DOWN_NOT_JOINED);
	nic_poll(tp.nic[0], tp.now);
	tport_clear(tp.port[0]);
	cr_assert_eq(seen[0].status[1], SN_ERR_DOWN, "T_PEER had not joined: %d", seen[0].status[1]);
	seen[0].status[1] = -1;
	t_pair_exchange(&tp, seen, 3, "after the switch restart");
	t_pair_free(&tp);
}

/*
 * T_PEER rejoins twice without a frame to T_NODE in between: the switch's
 * two PROTO_DOWN_REJOINED notices each move T_NODE's epoch on, as T_PEER's
 * two rejoins moved its own. When a notice moved it on only if a frame of
 * the peer had come since the last one, T_NODE stayed one behind.
 */
Test(nic, a_peer_that_rejoins_twice_is_restarted_twice)
{
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);

	t_pair_exchange(&tp, seen, 1, "before");
	t_pair_peer_returns(&tp);
	t_pair_peer_returns(&tp);
	t_pair_exchange(&tp, seen, 2, "after two rejoins");
	t_pair_free(&tp);
}

/*
 * T_PEER is away twice; each time T_NODE's requests get DOWN notices and its
 * return a PROTO_DOWN_REJOINED one. Only T_NODE sends (no frame of T_PEER
 * comes between): the rejoin notice ends the absence, so the second one
 * moves the epoch on again, as T_PEER's second rejoin did. Before, only a
 * frame of the peer ended it, and T_NODE stayed one behind.
 */
Test(nic, each_absence_of_a_silent_peer_moves_the_epoch_on_once)
{
	struct nic_msg m = { .vnet = T_VNET, .dst_node = T_PEER, .chan = SN_CHAN_QUICK };
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);

	t_pair_exchange(&tp, seen, 1, "before");
	for (int r = 0; r < 2; r++) {
		for (int i = 0; i < 2; i++) {		/* requests while it is away */
			m.cookie = (void *)(uintptr_t)(2 + 2 * r + i);
			t_pair_send_to_absent(&tp, &m);
		}
		t_pair_peer_returns(&tp);
	}
	t_pair_exchange(&tp, seen, 6, "after two absences");
	t_pair_free(&tp);
}

/*
 * The switch sends a DOWN notice for every QREQ to a node that is down
 * (sw_dispatch), and one when it rejoins. T_NODE sends 3 quick messages
 * while T_PEER is down (3 notices), then T_PEER comes back (its own reset:
 * epoch 1) and the switch's rejoin notice reaches T_NODE. Only the first
 * notice since a frame of the peer moves T_NODE's epoch on, so both ends
 * are at 1 and T_PEER's first message after its return arrives (SN_OK).
 * When every notice moved the epoch on (T_NODE at 4), that message failed
 * with SN_ERR_DOWN: T_NODE's reply was "newer" and T_PEER restarted again.
 */
Test(nic, a_message_after_a_peer_came_back_is_not_failed_by_a_second_restart)
{
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	uint8_t args[PROTO_ARGS_LEN] = { 0 };
	struct nic_msg m = {
		.vnet = T_VNET, .dst_node = T_PEER, .handler = 7, .chan = SN_CHAN_QUICK,
		.args = args,
	};

	/* both ends talk: both know epoch 0 */
	m.cookie = (void *)1;
	cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	for (int s = 0; s < 20; s++)
		t_pair_slot(&tp, true, false);
	cr_assert_eq(seen[0].status[0], SN_OK);
	/* T_PEER goes down: 3 quick messages to it, each answered by a DOWN notice */
	for (int i = 0; i < 3; i++) {
		m.cookie = (void *)(uintptr_t)(2 + i);
		t_pair_send_to_absent(&tp, &m);
	}
	/* T_PEER comes back: it restarts its connections, the switch tells T_NODE */
	t_push_down(tp.port[1], T_PEER, T_NODE);
	t_push_notice(tp.port[0], T_NODE, T_PEER, PROTO_DOWN_REJOINED);
	nic_poll(tp.nic[0], tp.now);
	nic_poll(tp.nic[1], tp.now);
	tport_clear(tp.port[0]);
	tport_clear(tp.port[1]);
	cr_log_info("epochs: node %u, peer %u",
		    nic_pipeline(tp.nic[0], T_VNET)->conns[T_PEER]->epoch,
		    nic_pipeline(tp.nic[1], T_VNET)->conns[T_NODE]->epoch);
	/* T_PEER sends a quick message to T_NODE */
	m.dst_node = T_NODE;
	m.cookie = (void *)1;
	cr_assert_eq(nic_send(tp.nic[1], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[1].status[0] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_log_info("peer: status %d, delivered at node %u, epoch_restarts %llu, stale %llu",
		    seen[1].status[0], seen[0].n_delivered,
		    (unsigned long long)nic_stats(tp.nic[1])->epoch_restarts,
		    (unsigned long long)nic_stats(tp.nic[0])->rx_stale_epoch);
	cr_assert_eq(seen[1].status[0], SN_OK, "the message sent after the restart failed: %d",
		     seen[1].status[0]);
	t_pair_free(&tp);
}

/*
 * conf4-sr: a quick packet its receiver holds behind a hole (acknowledged by
 * mask) is never resent, so it gives its quick send buffer back at once. It
 * completes only when the hole fills (genp: the mask does not mean
 * delivered under order), and the buffer must not wait that long. A
 * message each way first: the ends know their epoch (a FRESH packet is not
 * taken, so the hole would be all four).
 */
Test(nic, a_quick_packet_held_behind_a_hole_gives_its_buffer_back)
{
	struct nic_msg m = { .vnet = T_VNET, .dst_node = T_PEER, .chan = SN_CHAN_QUICK };
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	struct sn_conn *c;

	t_pair_exchange(&tp, seen, 1, "first");
	for (int s = 0; s < 5; s++)
		t_pair_slot(&tp, true, false);
	t_seen_clear(&seen[0]);
	t_seen_clear(&seen[1]);
	for (uintptr_t i = 0; i < 4; i++) {
		m.cookie = (void *)(i + 1);
		cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	}
	nic_poll(tp.nic[0], tp.now);
	t_move_frames(&tp, 0, t_is_first_qreq2, NULL, NULL);	/* packet 2: the hole */
	nic_poll(tp.nic[1], tp.now);		/* holds 3 .. 5, acks them by mask */
	t_carry(tp.port[1], tp.port[0], T_NODE, false);
	nic_poll(tp.nic[0], tp.now);
	c = nic_pipeline(tp.nic[0], T_VNET)->conns[T_PEER];
	cr_assert_eq(seen[1].n_delivered, 0);
	cr_assert_eq(c->outstanding, 4, "all four wait for the hole: %u", c->outstanding);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(seen[0].status[i], -1, "message %d completed (%d) before delivery", i,
			     seen[0].status[i]);
	cr_assert_eq(c->quick_held, 1, "quick buffers held: %u (only the hole's is needed)",
		     c->quick_held);
	cr_assert_eq(tp.nic[0]->ch.quick_used, 1);
	for (int s = 0; s < 2000 && seen[0].status[0] < 0; s++)
		t_pair_slot(&tp, true, false);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(seen[0].status[i], SN_OK, "message %d: %d", i, seen[0].status[i]);
	cr_assert_eq(seen[1].n_delivered, 4);
	cr_assert_eq(tp.nic[0]->ch.quick_used, 0);
	t_pair_free(&tp);
}

/* T_PEER's process restarts (a new boot nonce); the switch's notice of it is lost. */
static void t_pair_new_peer_process(struct t_pair *tp)
{
	nic_destroy(tp->nic[1]);
	tport_clear(tp->port[1]);
	tp->nic[1] = t_nic_inc(tp->port[1], "conf4-sr", &tp->ops[1], 1, 5);
}

/*
 * T_PEER's process restarts and the switch's notice of it is lost. The new
 * process's first frame of T_NODE is mid-stream (packet 4 of epoch 0, 1..3
 * delivered to the old process): it must not take that epoch, or it holds
 * packet 4 behind a hole T_NODE never fills (1..3 were acknowledged) and
 * T_NODE's messages never complete. Now it drops the frame and answers
 * FRESH, T_NODE restarts for the new process (its messages fail with
 * SN_ERR_DOWN) and welcomes it, and the next message arrives. No message
 * completes OK without being delivered.
 */
Test(nic, a_new_process_takes_no_epoch_from_a_peer_that_never_heard_of_it)
{
	struct nic_msg m = { .vnet = T_VNET, .dst_node = T_PEER, .chan = SN_CHAN_QUICK };
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	unsigned int ok = 0;

	for (uintptr_t i = 0; i < 3; i++) {
		m.cookie = (void *)(i + 1);
		cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	}
	for (int s = 0; s < 200 && seen[0].status[2] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_assert_eq(seen[1].n_delivered, 3);
	t_pair_new_peer_process(&tp);
	for (uintptr_t i = 3; i < 6; i++) {
		m.cookie = (void *)(i + 1);
		cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	}
	for (int s = 0; s < 2000 && seen[0].status[5] < 0; s++)
		t_pair_slot(&tp, true, false);
	for (int i = 3; i < 6; i++)
		cr_assert_geq(seen[0].status[i], 0, "message %d never completed", i);
	m.cookie = (void *)7;
	cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[0].status[6] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_assert_eq(seen[0].status[6], SN_OK, "the message after the restart: %d",
		     seen[0].status[6]);
	for (int i = 0; i < 7; i++)
		ok += seen[0].status[i] == SN_OK;
	cr_assert_leq(ok, seen[1].n_delivered, "%u completed OK, %u delivered", ok,
		      seen[1].n_delivered);
	cr_assert_leq(seen[1].n_delivered, 7);
	cr_assert_geq(nic_stats(tp.nic[1])->rx_unwelcome, 1);
	cr_assert_eq(nic_stats(tp.nic[0])->fresh_restarts, 1);
	t_pair_free(&tp);
}

/* Drop every frame T_PEER sent (its answers never reach T_NODE). */
static bool t_any(const struct proto_pkt *p)
{
	(void)p;
	return true;
}

/*
 * As above (T_NODE at epoch 2 after notices, packets 1..3 of it delivered
 * to the old process), and the new process rejoins (it was told to) after its
 * first answer to T_NODE was lost, before any WELCOME. The rejoin restarted
 * its connection at the next epoch (1), which it then knew without ever
 * being welcomed: T_NODE's mid-stream frame of epoch 2 was newer, the
 * connection took it, and T_NODE's message 6 never completed. Now a
 * connection that knows no epoch fails its messages in place at a restart
 * and still waits for a WELCOME.
 */
Test(nic, a_new_process_that_rejoins_before_its_welcome_still_waits_for_one)
{
	struct nic_msg m = { .vnet = T_VNET, .dst_node = T_PEER, .chan = SN_CHAN_QUICK };
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	struct sn_conn *c;

	for (uintptr_t i = 0; i < 6; i++) {
		if (i == 3) {		/* T_NODE moves on to epoch 2, T_PEER follows */
			t_push_down(tp.port[0], T_NODE, T_PEER);
			t_push_notice(tp.port[0], T_NODE, T_PEER, PROTO_DOWN_REJOINED);
			t_push_down(tp.port[0], T_NODE, T_PEER);
			nic_poll(tp.nic[0], tp.now);
			cr_assert_eq(nic_pipeline(tp.nic[0], T_VNET)->conns[T_PEER]->epoch, 2);
		}
		m.cookie = (void *)(i + 1);
		cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
		for (int s = 0; s < 200 && seen[0].status[i] < 0; s++)
			t_pair_slot(&tp, true, false);
		cr_assert_eq(seen[0].status[i], SN_OK);
	}
	cr_assert_eq(seen[1].n_delivered, 6);
	t_pair_new_peer_process(&tp);
	t_push_gnt_to(tp.port[1], T_PEER, tp.slot++, PROTO_NODE_NONE, 4, 0);
	nic_poll(tp.nic[1], tp.now);
	m.cookie = (void *)7;
	cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	nic_poll(tp.nic[0], tp.now);
	t_move_frames(&tp, 0, NULL, NULL, NULL);	/* packet 4 of epoch 2 */
	nic_poll(tp.nic[1], tp.now);
	t_move_frames(&tp, 1, t_any, NULL, NULL);	/* its answer is lost */
	c = nic_pipeline(tp.nic[1], T_VNET)->conns[T_NODE];
	cr_assert_not_null(c);
	cr_assert_not(c->epoch_known);
	t_push_gnt_k(tp.port[1], T_PEER, tp.slot, PROTO_NODE_NONE, 4, PROTO_GNT_F_REJOIN, 1);
	nic_poll(tp.nic[1], tp.now);
	cr_assert_eq(nic_stats(tp.nic[1])->told_to_rejoin, 1);
	cr_assert_not(c->epoch_known, "a restart gave an epoch no peer welcomed it to");
	for (int s = 0; s < 2000 && seen[0].status[6] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_assert_geq(seen[0].status[6], 0, "message 6 never completed");
	m.cookie = (void *)8;
	cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[0].status[7] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_assert_eq(seen[0].status[7], SN_OK, "the message after the restart: %d",
		     seen[0].status[7]);
	cr_assert_leq(seen[1].n_delivered, 8);
	t_pair_free(&tp);
}

/*
 * conf4-gbn: 12 quick packets hold the buffers (the other 4 are the
 * reserve), 13..16 wait for one, and 16 bulk packets behind them are
 * cancelled: their markers take buffers past the cap. Once 1..12 are
 * acknowledged the markers hold all 16, and packet 13 waited for a free
 * one for ever while a go-back-N receiver acknowledges no marker before
 * it (a stress: T_REJOIN=3 T_PROC=1 T_PNOTICE=5, 10 runs of 1000 with
 * messages that never completed, all conf4-gbn). A connection's oldest
 * packet now takes a buffer past the cap, as markers do.
 */
Test(nic, the_oldest_quick_packet_is_not_kept_out_by_its_connections_markers)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_conf(port, "conf4-gbn", now);
	struct nic_msg quick = {
		.vnet = T_VNET, .dst_node = T_PEER, .src_ep = 1, .handler = 7,
		.chan = SN_CHAN_QUICK,
	};
	struct nic_msg bulk = quick;
	struct proto_pkt a = {
		.type = PROTO_T_QACK, .flags = PROTO_F_ACK, .src_node = T_PEER,
		.dst_node = T_NODE, .vnet = T_VNET, .ack_base = 12,
	};
	bool sent13 = false;

	t_welcome(nic, port, T_VNET, 0, now);
	for (int i = 0; i < 16; i++)
		cr_assert_eq(nic_send(nic, &quick, now), 0);
	bulk.src_ep = 2;
	bulk.chan = SN_CHAN_BULK;
	for (int i = 0; i < 16; i++)
		cr_assert_eq(nic_send(nic, &bulk, now), 0);
	nic_poll(nic, now);
	cr_assert_eq(t_last_qreq_num(port), 12, "the quick packets that took a buffer");
	cr_assert_eq(nic_cancel(nic, T_VNET, 2, now), 16);
	nic_poll(nic, now);
	tport_push(port, tdp_encode(t_mp, &a));
	for (int k = 0; k < 200 && !sent13; k++) {
		uint32_t num[256];
		unsigned int n;

		tport_clear(port);
		now += 10000;
		nic_poll(nic, now);
		n = t_sent_of(port, PROTO_T_QREQ, NULL, num, 256);
		for (unsigned int i = 0; i < n; i++)
			sent13 |= num[i] == 13;
	}
	cr_assert(sent13, "packet 13 never left: %u quick buffers in use", nic->ch.quick_used);
	t_done(nic, port, avail);
}

/* The stresses' random numbers (seeded per run). */
static uint32_t t_rng_state;

static uint32_t t_rng(void)
{
	t_rng_state = t_rng_state * 1103515245u + 12345u;
	return t_rng_state >> 8;
}

static void t_check_quick_acct(struct nic *nic, const char *when, unsigned int it)
{
	struct pipeline *pl = nic_pipeline(nic, T_VNET);
	unsigned int held = 0;

	for (uint16_t k = 0; pl && k < pl->n_nodes; k++)
		if (pl->conns[k]) {
			cr_assert_leq(pl->conns[k]->quick_held, 64, "%s %u: conn %u quick_held %u",
				      when, it, k, pl->conns[k]->quick_held);
			held += pl->conns[k]->quick_held;
		}
	cr_assert_eq(nic->ch.quick_used, nic->ch.qtx.len + nic->ch.qwait.len,
		     "%s %u: quick_used %u, qtx %u qwait %u", when, it, nic->ch.quick_used,
		     nic->ch.qtx.len, nic->ch.qwait.len);
	cr_assert_eq(held, nic->ch.quick_used, "%s %u: held %u, quick_used %u", when, it, held,
		     nic->ch.quick_used);
}

/* T_PEER's quick data packet pkt_num from a process that knows no epoch yet (boot nonce). */
static void t_push_qreq_fresh(struct dp_port *port, uint32_t pkt_num, uint16_t nonce)
{
	static const uint8_t args[PROTO_ARGS_LEN];
	struct proto_pkt q = {
		.type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_FRESH, .src_node = T_PEER,
		.dst_node = T_NODE, .vnet = T_VNET, .handler = 7, .pkt_num = pkt_num,
		.args = args, .epoch = nonce,
	};

	tport_push(port, tdp_encode(t_mp, &q));
}

/* Side k of tp (0: T_NODE, 1: T_PEER) starts afresh on conf: process incarnation inc, reporting to seen. */
static void t_pair_start(struct t_pair *tp, int k, const char *conf, struct t_seen *seen,
			 uint32_t inc)
{
	struct nic_ops ops = { .ctx = seen, .complete = t_seen_complete,
			       .deliver = t_seen_deliver };

	t_seen_clear(seen);
	nic_destroy(tp->nic[k]);
	tp->nic[k] = t_nic_inc(tp->port[k], conf, &ops, 1, inc);
}

/* The sides of tp start afresh, T_NODE on conf0 and T_PEER on conf1 (incarnations 1 and 2), and join. */
static void t_pair_up_on(struct t_pair *tp, const char *conf0, const char *conf1,
			 struct t_seen seen[2])
{
	for (int k = 0; k < 2; k++) {
		tp->port[k] = tport_create(k ? "peer" : "node", 256);
		t_pair_start(tp, k, k ? conf1 : conf0, &seen[k], (uint32_t)k + 1);
	}
	t_pair_slot(tp, true, false);
}

/* Both sides of tp start afresh on conf and join. */
static void t_pair_up(struct t_pair *tp, const char *conf, struct t_seen seen[2])
{
	t_pair_up_on(tp, conf, conf, seen);
}

/* A message (quick, or bulk of T_LEN bytes) from side k of tp to the other, with cookie. */
static void t_pair_send(struct t_pair *tp, int k, uint8_t chan, uintptr_t cookie)
{
	static uint8_t payload[T_LEN];
	struct nic_msg m = {
		.vnet = T_VNET, .dst_node = k ? T_NODE : T_PEER, .handler = 7, .chan = chan,
		.payload = chan == SN_CHAN_BULK ? payload : NULL,
		.len = chan == SN_CHAN_BULK ? T_LEN : 0, .cookie = (void *)cookie,
	};

	cr_assert_eq(nic_send(tp->nic[k], &m, tp->now), 0);
}

/* n slots of tp, both up, nothing lost. */
static void t_pair_run(struct t_pair *tp, int n)
{
	for (int s = 0; s < n; s++)
		t_pair_slot(tp, true, false);
}

/* Destroy both NICs and ports of tp; every frame must be back in the pool. */
static void t_pair_done(struct t_pair *tp, unsigned int avail)
{
	for (int k = 0; k < 2; k++) {
		nic_destroy(tp->nic[k]);
		dp_port_destroy(tp->port[k]);
	}
	cr_assert_eq(rte_mempool_avail_count(t_mp), avail, "frames leaked");
}

/* Side a's connection to side b's node in tp. */
static const struct sn_conn *t_pair_conn(const struct t_pair *tp, int a)
{
	const struct sn_conn *c = nic_pipeline(tp->nic[a], T_VNET)->conns[a ? T_NODE : T_PEER];

	cr_assert_not_null(c);
	return c;
}

/* An acknowledgment T_PEER sends (a QACK with ACK). */
static bool t_is_qack(const struct proto_pkt *p)
{
	return p->type == PROTO_T_QACK && (p->flags & PROTO_F_ACK);
}

/* A slot's grants to both sides of tp, and their polls; the frames stay on the ports. */
static void t_pair_poll_slot(struct t_pair *tp)
{
	t_push_gnt_to(tp->port[0], T_NODE, tp->slot, PROTO_NODE_NONE, 4, 0);
	t_push_gnt_to(tp->port[1], T_PEER, tp->slot, PROTO_NODE_NONE, 4, 0);
	tp->slot++;
	nic_poll(tp->nic[0], tp->now);
	nic_poll(tp->nic[1], tp->now);
	tp->now += T_SLOT_NS;
}

/*
 * T_PEER's ack of a quick message comes late, after T_NODE resent it: on
 * the wire, the ack of the copy says DUP and names packet 2 (the ack of
 * the packet itself names nothing); it reaches T_NODE after the late ack,
 * which completed the message, so T_NODE counts the resend needless (genp
 * spurious_retx) and, with timer:late_floor=on, raises the connection's
 * floor to the first copy's round trip.
 */
Test(nic, the_ack_of_a_copy_says_so_on_the_wire_and_shows_the_resend_needless)
{
	struct t_pair tp;
	struct t_seen *seen = t_pair_open_on(&tp, "conf4-sr,timer:late_floor=on", NULL);
	struct rte_mbuf *late = NULL;
	const struct sn_conn *c;
	unsigned int resent = 0, dups = 0;
	struct proto_pkt q;
	uint64_t t0;

	/* A first message settles the epoch (its frame FRESH, a WELCOME back). */
	t_pair_exchange(&tp, seen, 1, "first");
	t_pair_run(&tp, 5);
	t_seen_clear(&seen[0]);
	t0 = tp.now;
	t_pair_send(&tp, 0, SN_CHAN_QUICK, 2);
	t_pair_poll_slot(&tp);
	t_move_frames(&tp, 0, NULL, NULL, NULL);
	nic_poll(tp.nic[1], tp.now);
	t_move_frames(&tp, 1, NULL, t_is_qack, &late);
	cr_assert_not_null(late, "T_PEER acknowledged nothing");
	cr_assert_eq(tdp_decode(late, &q), PROTO_R_OK);
	cr_assert(!(q.flags & PROTO_F_DUP) && q.pkt_num == 0, "flags 0x%x pkt_num %u", q.flags,
		  q.pkt_num);
	/* The ack is late: T_NODE's wait passes. */
	for (int k = 0; k < 200 && !resent; k++) {
		t_pair_poll_slot(&tp);
		for (unsigned int i = 0; i < tport_sent(tp.port[0]); i++) {
			cr_assert_eq(tdp_decode(tport_frame(tp.port[0], i), &q), PROTO_R_OK);
			resent += q.type == PROTO_T_QREQ && (q.flags & PROTO_F_RETX);
		}
		t_move_frames(&tp, 0, NULL, NULL, NULL);
	}
	cr_assert_eq(resent, 1, "resent %u", resent);
	nic_poll(tp.nic[1], tp.now);
	for (unsigned int i = 0; i < tport_sent(tp.port[1]); i++) {
		cr_assert_eq(tdp_decode(tport_frame(tp.port[1], i), &q), PROTO_R_OK);
		if (q.type == PROTO_T_QACK && (q.flags & PROTO_F_DUP)) {
			dups++;
			cr_assert_eq(q.pkt_num, 2);
			cr_assert(q.flags & PROTO_F_ACK);
			cr_assert(proto_ack_covers(2, q.ack_base, q.ack_mask));
		}
	}
	cr_assert_eq(dups, 1, "the copy's ack names it");
	/* The late ack arrives first, then the copy's. */
	tport_push(tp.port[0], late);
	t_move_frames(&tp, 1, NULL, NULL, NULL);
	nic_poll(tp.nic[0], tp.now);
	cr_assert_eq(seen[0].status[1], SN_OK, "status %d", seen[0].status[1]);
	cr_assert_eq(t_stage_count(tp.nic[0], "genp.spurious_retx"), 1);
	c = t_pair_conn(&tp, 0);
	cr_assert(sn_conn_rto_floor(c, tp.now) >= 2 * T_SLOT_NS &&
		  sn_conn_rto_floor(c, tp.now) <= tp.now - t0,
		  "floor %llu", (unsigned long long)sn_conn_rto_floor(c, tp.now));
	t_pair_free(&tp);
}

/*
 * T_PEER's process restarts (conf1, unreliable): the switch's notice moves
 * T_NODE's connection on by one, from its pair's first epoch (the hash of
 * nonces 1 and 2), and the new process, which knows no epoch, sends one
 * quick message. It arrives: the frame says FRESH, and T_NODE's connection
 * heard nothing since its reset. Before, the frame carried epoch 0, was
 * dropped as stale (rx_stale_epoch) and the message was lost. The new
 * process then takes T_NODE's epoch from its WELCOME.
 */
Test(nic, a_fresh_nics_first_unreliable_message_is_not_taken_as_stale)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	static struct t_seen seen[2];
	struct t_pair tp = { .now = 1000000, .slot = 1 };
	uint64_t fresh;

	t_pair_up(&tp, "conf1", seen);
	t_pair_send(&tp, 0, SN_CHAN_QUICK, 1);
	t_pair_send(&tp, 1, SN_CHAN_QUICK, 1);
	t_pair_run(&tp, 5);
	cr_assert(seen[0].n_delivered == 1 && seen[1].n_delivered == 1);
	t_pair_start(&tp, 1, "conf1", &seen[1], 3);
	t_push_down(tp.port[0], T_NODE, T_PEER);
	t_pair_run(&tp, 1);
	cr_assert(nic_is_up(tp.nic[1]));
	cr_assert_eq(t_pair_conn(&tp, 0)->epoch, (uint16_t)(pipeline_pair_epoch(1, 2) + 1));
	fresh = nic_stats(tp.nic[0])->rx_fresh;
	t_pair_send(&tp, 1, SN_CHAN_QUICK, 1);
	t_pair_run(&tp, 5);
	cr_assert_eq(seen[0].n_delivered, 2,
		     "the fresh NIC's first message was lost (stale frames %llu)",
		     (unsigned long long)nic_stats(tp.nic[0])->rx_stale_epoch);
	cr_assert_eq(nic_stats(tp.nic[0])->rx_stale_epoch, 0);
	cr_assert_eq(nic_stats(tp.nic[0])->rx_fresh, fresh + 1);
	cr_assert_eq(nic_stats(tp.nic[0])->fresh_restarts, 0);
	t_pair_send(&tp, 0, SN_CHAN_QUICK, 2);
	t_pair_run(&tp, 5);
	cr_assert_eq(seen[1].n_delivered, 1);
	cr_assert(t_pair_conn(&tp, 1)->epoch_known);
	cr_assert_eq(t_pair_conn(&tp, 1)->epoch, (uint16_t)(pipeline_pair_epoch(1, 2) + 1));
	t_pair_done(&tp, avail);
}

/*
 * A fresh process's frames overtaken by its own later ones: packet 1
 * (FRESH) arrives, the process takes epoch 1 from the answer (a WELCOME
 * that acknowledges nothing: a FRESH packet is not taken) and sends 1 again
 * and 3, which arrive before 2 (FRESH, sent before it knew). Nothing
 * restarts: 2 carries the nonce already taken; it is not taken either, and
 * all three are delivered, in order, once 2 comes again in the epoch.
 */
Test(nic, reordered_fresh_frames_of_one_process_restart_nothing)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_conf(port, "conf4-sr", now);
	struct proto_pkt q;

	t_welcome(nic, port, T_VNET, 0, now);
	t_push_qreq_of(port, 1, 0);		/* the peer's earlier process */
	t_push_down(port, T_NODE, T_PEER);	/* ... is gone: epoch 1 */
	nic_poll(nic, now);
	cr_assert_eq(nic_pipeline(nic, T_VNET)->conns[T_PEER]->epoch, 1);
	tport_clear(port);
	t_push_qreq_fresh(port, 1, 0xBEEF);
	nic_poll(nic, now);
	now += 1000000;
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->delivered, 1, "the FRESH frame was delivered");
	cr_assert_eq(nic_stats(nic)->rx_fresh_data, 1);
	cr_assert(t_last_qack(port, &q), "no answer to the FRESH frame");
	cr_assert(q.flags & PROTO_F_WELCOME);
	cr_assert_eq(q.epoch, 1);
	cr_assert_not(q.flags & PROTO_F_FRESH, "the answer of a connection that knows its epoch");
	cr_assert_eq(q.ack_base, 0, "the FRESH packet acknowledged");
	t_push_qreq_of(port, 1, 1);
	t_push_qreq_of(port, 3, 1);
	t_push_qreq_fresh(port, 2, 0xBEEF);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->delivered, 2);
	t_push_qreq_of(port, 2, 1);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->delivered, 4);
	cr_assert_eq(nic_stats(nic)->rx_fresh, 2);
	cr_assert_eq(nic_stats(nic)->rx_fresh_data, 2);
	cr_assert_eq(nic_stats(nic)->fresh_restarts, 0);
	cr_assert_eq(nic_stats(nic)->epoch_restarts, 0);
	cr_assert_eq(nic_stats(nic)->rx_stale_epoch, 0);
	cr_assert_eq(nic_pipeline(nic, T_VNET)->conns[T_PEER]->epoch, 1);
	t_done(nic, port, avail);
}

/* T_PEER's ack-only QACK of epoch, acknowledging up to base and what mask names past it. */
static void t_push_sack_of(struct dp_port *port, uint32_t base, uint32_t mask, uint16_t epoch)
{
	struct proto_pkt a = {
		.type = PROTO_T_QACK, .flags = PROTO_F_ACK, .src_node = T_PEER,
		.dst_node = T_NODE, .vnet = T_VNET, .ack_base = base, .ack_mask = mask,
		.epoch = epoch,
	};

	tport_push(port, tdp_encode(t_mp, &a));
}

/* T_PEER's ack-only QACK of epoch, acknowledging up to base. */
static void t_push_ack_of(struct dp_port *port, uint32_t base, uint16_t epoch)
{
	t_push_sack_of(port, base, 0, epoch);
}

/* Data QREQs (not markers) sent on port, and in *fresh how many of them were FRESH. */
static unsigned int t_data_qreqs(struct dp_port *port, unsigned int *fresh)
{
	unsigned int n = 0;

	*fresh = 0;
	for (unsigned int i = 0; i < tport_sent(port); i++) {
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(tport_frame(port, i), &p), PROTO_R_OK);
		if (p.type != PROTO_T_QREQ || (p.flags & PROTO_F_ABANDONED))
			continue;
		n++;
		*fresh += !!(p.flags & PROTO_F_FRESH);
	}
	return n;
}

/*
 * A packet sent FRESH is not taken (nic_split_data), and the WELCOME sends
 * it again at once (nic_resend_fresh): no timeout, and a transmission that
 * was not taken uses up none of its retries. A new process sends 2 quick
 * messages with genp:max_retx=1 (FRESH), T_PEER welcomes it, and both
 * leave again in the epoch, counted in genp's welcome_retx, and complete
 * OK once acknowledged. Before, the resend took genp's timeout path
 * (counted in timeout_retx), where the FRESH transmission counted against
 * max_retx: both messages gave up at the WELCOME (SN_ERR_RETRIES) and only
 * their markers left.
 */
Test(nic, a_resend_after_a_welcome_uses_up_no_retry)
{
	static const char *const confs[] = {
		"conf4-sr,genp:max_retx=1", "conf4-gbn,genp:max_retx=1", "conf2,genp:max_retx=1",
	};

	for (unsigned int c = 0; c < sizeof(confs) / sizeof(confs[0]); c++) {
		unsigned int avail = rte_mempool_avail_count(t_mp);
		struct dp_port *port = tport_create("nic", 256);
		static struct t_seen seen;
		struct nic_ops ops = { .ctx = &seen, .complete = t_seen_complete };
		uint64_t now = 1000000;
		unsigned int fresh;
		struct nic *nic;

		t_seen_clear(&seen);
		nic = t_nic_with(port, confs[c], &ops);
		t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
		nic_poll(nic, now);
		tport_clear(port);
		for (uintptr_t i = 1; i <= 2; i++) {
			struct nic_msg m = { .vnet = T_VNET, .dst_node = T_PEER, .handler = 7,
					     .chan = SN_CHAN_QUICK, .cookie = (void *)i };

			cr_assert_eq(nic_send(nic, &m, now), 0);
		}
		nic_poll(nic, now);
		cr_assert_eq(t_data_qreqs(port, &fresh), 2, "%s", confs[c]);
		cr_assert_eq(fresh, 2, "%s: sent before any WELCOME, not FRESH", confs[c]);
		tport_clear(port);
		t_push_welcome(port, T_VNET, 0);
		nic_poll(nic, now);
		cr_assert_eq(seen.status[0], -1, "%s: message 1 completed %d at the WELCOME",
			     confs[c], seen.status[0]);
		cr_assert_eq(seen.status[1], -1, "%s: message 2 completed %d at the WELCOME",
			     confs[c], seen.status[1]);
		cr_assert_eq(t_data_qreqs(port, &fresh), 2, "%s: not resent at the WELCOME", confs[c]);
		cr_assert_eq(fresh, 0, "%s", confs[c]);
		cr_assert_eq(t_stage_count(nic, "genp.welcome_retx "), 2, "%s", confs[c]);
		cr_assert_eq(t_stage_count(nic, "genp.timeout_retx "), 0, "%s", confs[c]);
		cr_assert_eq(t_stage_count(nic, "genp.gave_up "), 0, "%s", confs[c]);
		tport_clear(port);
		t_push_ack_of(port, 2, 0);
		nic_poll(nic, now);
		cr_assert_eq(seen.status[0], SN_OK, "%s: %d", confs[c], seen.status[0]);
		cr_assert_eq(seen.status[1], SN_OK, "%s: %d", confs[c], seen.status[1]);
		t_done(nic, port, avail);
	}
}

/*
 * A connection that knows no epoch sent everything FRESH, which no receiver
 * takes: the WELCOME that gives it its epoch cannot acknowledge any of its
 * packets, and one that does comes from a receive state of another
 * numbering (a process of the peer's node that is gone, whose late frames
 * that epoch took). A new process sends 2 quick messages and is welcomed
 * at epoch 3 by a WELCOME that acknowledges packet 1 (by the base on
 * conf4-sr, by the mask on conf2): the connection restarts at epoch 4
 * (ack_contradictions), the 2 fail with SN_ERR_DOWN, and an ack-only frame
 * of epoch 4 tells the peer. Before, the WELCOME's ack completed packet 1
 * OK, never delivered. An ack below packet 1 (a base of 0xFFFFFF, as the
 * fuzz seeds write one) covers none of them: both are sent again.
 */
Test(nic, a_welcome_that_acknowledges_packets_sent_fresh_restarts_the_connection)
{
	static const struct { const char *conf; uint32_t base, mask; bool contradicts; } cases[] = {
		{ "conf4-sr", 1, 0, true }, { "conf2", 0, 1, true }, { "conf4-sr", 0xFFFFFF, 0, false },
	};

	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned int avail = rte_mempool_avail_count(t_mp);
		struct dp_port *port = tport_create("nic", 256);
		static struct t_seen seen;
		struct nic_ops ops = { .ctx = &seen, .complete = t_seen_complete };
		struct proto_pkt w = {
			.type = PROTO_T_QACK, .flags = PROTO_F_WELCOME | PROTO_F_ACK,
			.src_node = T_PEER, .dst_node = T_NODE, .vnet = T_VNET, .epoch = 3,
			.handler = T_PEER_NONCE, .ack_base = cases[c].base,
			.ack_mask = cases[c].mask,
		};
		uint64_t now = 1000000;
		struct proto_pkt q;
		struct nic *nic;

		t_seen_clear(&seen);
		nic = t_nic_with(port, cases[c].conf, &ops);
		t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
		nic_poll(nic, now);
		for (uintptr_t i = 1; i <= 2; i++) {
			struct nic_msg m = { .vnet = T_VNET, .dst_node = T_PEER, .handler = 7,
					     .chan = SN_CHAN_QUICK, .cookie = (void *)i };

			cr_assert_eq(nic_send(nic, &m, now), 0);
		}
		nic_poll(nic, now);
		tport_clear(port);
		tport_push(port, tdp_encode(t_mp, &w));
		nic_poll(nic, now);
		if (!cases[c].contradicts) {
			cr_assert_eq(seen.status[0], -1, "%s: message 1 completed %d",
				     cases[c].conf, seen.status[0]);
			cr_assert_eq(nic_stats(nic)->ack_contradictions, 0, "%s", cases[c].conf);
			cr_assert_eq(t_take_qreqs(port, T_PEER, T_VNET, NULL), 2, "%s: not resent",
				     cases[c].conf);
			t_done(nic, port, avail);
			continue;
		}
		cr_assert_eq(seen.status[0], SN_ERR_DOWN, "%s: message 1 completed %d",
			     cases[c].conf, seen.status[0]);
		cr_assert_eq(seen.status[1], SN_ERR_DOWN, "%s: message 2 completed %d",
			     cases[c].conf, seen.status[1]);
		cr_assert_eq(nic_stats(nic)->ack_contradictions, 1, "%s", cases[c].conf);
		cr_assert_eq(nic_pipeline(nic, T_VNET)->conns[T_PEER]->epoch, 4, "%s",
			     cases[c].conf);
		cr_assert(t_last_qack(port, &q), "%s: no answer", cases[c].conf);
		cr_assert_eq(q.epoch, 4, "%s", cases[c].conf);
		cr_assert_not(q.flags & PROTO_F_FRESH, "%s", cases[c].conf);
		t_done(nic, port, avail);
	}
}

/*
 * The peer's process restarted and the switch's notice about it was lost:
 * its first frame (FRESH, another nonce) finds the connection in use (packets
 * of the earlier process taken, 2 messages to it pending). The connection
 * restarts as for a newer epoch: the 2 fail with SN_ERR_DOWN, it moves to
 * epoch 2, the frame is taken (its packet not: it comes again as packet 1
 * of epoch 2, after the WELCOME), and the next message leaves as packet 1
 * of epoch 2. Before, the new process's packets met the old numbering (its
 * packet 1 a duplicate).
 */
Test(nic, a_fresh_frame_of_a_new_process_restarts_a_connection_in_use)
{
	unsigned int avail = rte_mempool_avail_count(t_mp), before;
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_conf(port, "conf3", now);
	struct proto_pkt q;

	t_welcome(nic, port, T_VNET, 0, now);
	t_push_qreq_of(port, 1, 0);
	t_push_qreq_of(port, 1, 1);		/* the peer rejoined: epoch 1 */
	t_push_qreq_of(port, 2, 1);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->delivered, 3);
	t_send_quick_to(nic, T_PEER, now);
	t_send_quick_to(nic, T_PEER, now);
	nic_poll(nic, now);
	cr_assert_eq(nic_pending(nic), 2);
	tport_clear(port);
	t_push_qreq_fresh(port, 1, 0x5678);	/* its next process */
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->completed_err, 2, "the pending messages did not fail");
	cr_assert_eq(nic_pending(nic), 0);
	cr_assert_eq(nic_stats(nic)->delivered, 3, "a FRESH packet was delivered");
	cr_assert_eq(nic_pipeline(nic, T_VNET)->conns[T_PEER]->epoch, 2);
	cr_assert_eq(nic_stats(nic)->fresh_restarts, 1);
	t_push_qreq_of(port, 1, 2);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->delivered, 4, "the new process's packet 1 was not delivered");
	tport_clear(port);
	t_send_quick_to(nic, T_PEER, now);
	nic_poll(nic, now);
	cr_assert_eq(t_count(port, PROTO_T_QREQ, &before), 1);
	for (unsigned int i = 0; i < tport_sent(port); i++) {
		cr_assert_eq(tdp_decode(tport_frame(port, i), &q), PROTO_R_OK);
		if (q.type != PROTO_T_QREQ)
			continue;
		cr_assert_eq(q.pkt_num, 1);
		cr_assert_eq(q.epoch, 2);
		cr_assert_not(q.flags & PROTO_F_FRESH);
	}
	t_done(nic, port, avail);
}

/*
 * Two NICs that start together (conf3) send each other a quick message in
 * the same slot, and T_NODE a bulk one: both quick frames say FRESH and
 * cross. Everything arrives, nothing restarts, and both ends know one
 * epoch: the first of their pair of processes (pipeline_pair_epoch of
 * their nonces, 1 and 2).
 */
Test(nic, two_fresh_nics_agree_on_an_epoch)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	static struct t_seen seen[2];
	struct t_pair tp = { .now = 1000000, .slot = 1 };

	t_pair_up(&tp, "conf3", seen);
	t_pair_send(&tp, 0, SN_CHAN_QUICK, 1);
	t_pair_send(&tp, 0, SN_CHAN_BULK, 2);
	t_pair_send(&tp, 1, SN_CHAN_QUICK, 1);
	t_pair_run(&tp, 20);
	cr_assert_eq(seen[0].status[1], SN_OK, "bulk: %d", seen[0].status[1]);
	cr_assert_eq(seen[1].n_delivered, 2);
	cr_assert_eq(seen[0].n_delivered, 1);
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(seen[k].status[0], SN_OK, "side %d: %d", k, seen[k].status[0]);
		cr_assert(t_pair_conn(&tp, k)->epoch_known, "side %d", k);
		cr_assert_eq(t_pair_conn(&tp, k)->epoch, pipeline_pair_epoch(1, 2), "side %d", k);
		cr_assert_eq(nic_stats(tp.nic[k])->epoch_restarts, 0);
		cr_assert_eq(nic_stats(tp.nic[k])->fresh_restarts, 0);
		cr_assert_eq(nic_stats(tp.nic[k])->rx_stale_epoch, 0);
		cr_assert_gt(nic_stats(tp.nic[k])->rx_fresh, 0, "side %d", k);
	}
	cr_assert_eq(seen[1].bulk, 1);
	t_pair_done(&tp, avail);
}

/* Quick message with sequence number seq (args[1..2]) from side k, cookie id. */
static void t_send_seq(struct t_pair *tp, int k, uint16_t seq, uintptr_t id)
{
	uint8_t args[PROTO_ARGS_LEN] = { 0, (uint8_t)seq, (uint8_t)(seq >> 8) };
	struct nic_msg m = {
		.vnet = T_VNET, .dst_node = k ? T_NODE : T_PEER, .handler = 7,
		.chan = SN_CHAN_QUICK, .args = args, .cookie = (void *)id,
	};

	cr_assert_eq(nic_send(tp->nic[k], &m, tp->now), 0);
}

/* T_PEER joins (its GNT), then T_NODE's message seq (cookie id) reaches it. */
static void t_pair_peer_joins_and_takes(struct t_pair *tp, uint16_t seq, uintptr_t id)
{
	t_push_gnt_to(tp->port[1], T_PEER, tp->slot, PROTO_NODE_NONE, 4, PROTO_GNT_F_JOINED);
	nic_poll(tp->nic[1], tp->now);
	tport_clear(tp->port[1]);
	t_send_seq(tp, 0, seq, id);
	nic_poll(tp->nic[0], tp->now);
	t_carry(tp->port[0], tp->port[1], T_PEER, false);
	nic_poll(tp->nic[1], tp->now);
}

/*
 * T_PEER's deliveries after the first (T_NODE sent sequence numbers seq0 ..
 * seq0 + n - 1 as messages id0 .. id0 + n - 1): none twice, in sending
 * order, each that completed OK among them, and the last one sent. One
 * that failed with SN_ERR_DOWN may have arrived (delivered or not).
 */
static void t_assert_seq_deliveries(const struct t_seen *seen, uint16_t seq0, uintptr_t id0,
				    int n)
{
	unsigned int count[16] = { 0 };
	uint16_t last = 0;

	cr_assert_leq(n, 16);
	for (unsigned int i = 1; i < seen[1].n_delivered; i++) {
		uint16_t q = seen[1].delivered_seq[i];

		cr_log_info("T_PEER delivered seq %u", q);
		cr_assert(q >= seq0 && q < seq0 + n, "seq %u was never sent", q);
		cr_assert_gt(q, last, "seq %u delivered after seq %u (twice, or out of order)", q,
			     last);
		last = q;
		count[q - seq0]++;
	}
	for (int k = 0; k < n; k++)
		if (seen[0].status[id0 - 1 + (uintptr_t)k] == SN_OK)
			cr_assert_eq(count[k], 1, "seq %u completed OK, delivered %u times",
				     seq0 + k, count[k]);
	cr_assert_eq(last, seq0 + n - 1, "the last message sent was not delivered last (%u)", last);
}

/*
 * A switch restart. Both NICs rejoin (epoch 1). T_NODE joins the
 * new switch first and sends A (packet 1): T_PEER has not joined, the switch
 * drops A and answers NOT_JOINED; before that notice reaches T_NODE, T_PEER
 * joins and T_NODE's next message B (packet 2, epoch 1) passes the switch:
 * T_PEER holds it behind the hole. The notice takes no new epoch (T_PEER's
 * join is its own rejoin, matched by T_NODE's), so it fails A and B in
 * place: markers of packets 1 and 2, and C and D are packets 3 and 4. When
 * it restarted the numbering instead (a review), C and D went out as
 * packets 1 and 2 of the same epoch again: T_PEER delivered C, then the old
 * B, and took D for a duplicate of B: D completed OK and was never
 * delivered.
 */
Test(nic, a_late_not_joined_notice_fails_in_place_and_reuses_no_number)
{
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);

	t_pair_exchange(&tp, seen, 1, "before");
	t_pair_switch_restarts(&tp);
	/* T_NODE sends A: dropped, T_PEER has not joined */
	t_send_seq(&tp, 0, 100, 2);
	nic_poll(tp.nic[0], tp.now);
	tport_clear(tp.port[0]);
	/* T_PEER joins; then T_NODE's B passes the switch */
	t_pair_peer_joins_and_takes(&tp, 101, 3);
	t_carry(tp.port[1], tp.port[0], T_NODE, false);
	/* the notice about A arrives */
	t_push_notice(tp.port[0], T_NODE, T_PEER, PROTO_DOWN_NOT_JOINED);
	nic_poll(tp.nic[0], tp.now);
	cr_log_info("A %d B %d; epochs %u / %u; delivered at peer %u",
		    seen[0].status[1], seen[0].status[2], t_pair_conn(&tp, 0)->epoch,
		    t_pair_conn(&tp, 1)->epoch, seen[1].n_delivered);
	/* C and D */
	t_send_seq(&tp, 0, 102, 4);
	t_send_seq(&tp, 0, 103, 5);
	for (int s = 0; s < 2000 && (seen[0].status[3] < 0 || seen[0].status[4] < 0); s++)
		t_pair_slot(&tp, true, false);
	cr_log_info("A %d B %d C %d D %d", seen[0].status[1], seen[0].status[2],
		    seen[0].status[3], seen[0].status[4]);
	cr_assert_eq(seen[0].status[3], SN_OK);
	cr_assert_eq(seen[0].status[4], SN_OK);
	t_assert_seq_deliveries(seen, 100, 2, 4);
	t_pair_free(&tp);
}

static bool t_is_back(const struct proto_pkt *p)
{
	return p->type == PROTO_T_BACK;
}

/*
 * T_PEER on conf4-sr with order:buffer=1, T_NODE on conf4-sr (its window of
 * 32 is more than the peer can keep: on the same configuration the window
 * would be 2, and 3 would wait for 1's ack). T_NODE sends quick 1, quick 2,
 * bulk 3; quick 1 is lost, T_PEER holds 2 (acknowledged by mask: SACKED)
 * and, its one-packet reorder buffer full, discards 3's data but answers
 * its BREQ with a positive BACK, which is slower than the retransmission
 * timeout (it arrives 25 us after the BREQ, before the channel's BACK
 * deadline of 40 us). Quick 1 is resent at its timeout and 1 and 2 are
 * delivered; the timer scans again (ack progress) while 3 still waits for
 * its BACK, so 3 gets no deadline; when the BACK comes 3 waits for its
 * acknowledgment, and nothing ever timed it again: it was never resent and
 * never completed while the connection sent nothing more (a review). Now
 * the channel hands it back to the timer when its BACK comes (chan_done).
 */
Test(nic, a_bulk_packet_whose_back_comes_after_the_timer_scan_is_resent)
{
	const char *conf = "conf4-sr,timer:timeout_ns=10000:adaptive=off";
	const char *peer_conf = "conf4-sr,order:buffer=1,timer:timeout_ns=10000:adaptive=off";
	static struct t_seen seen[2];
	struct t_pair tp = { .now = 1000000, .slot = 1 };
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct rte_mbuf *back = NULL;
	uint64_t t0;

	t_pair_up_on(&tp, conf, peer_conf, seen);
	t_pair_run(&tp, 3);
	t_pair_send(&tp, 0, SN_CHAN_QUICK, 1);
	t_pair_send(&tp, 0, SN_CHAN_QUICK, 2);
	t_pair_send(&tp, 0, SN_CHAN_BULK, 3);
	/* slots in which T_NODE is granted T_PEER until its BREQ leaves; quick 1 lost, the BACK held */
	t0 = 0;
	for (int s = 0; s < 20 && !back; s++) {
		t_push_gnt_to(tp.port[0], T_NODE, tp.slot, T_PEER, 4, 0);
		t_push_gnt_to(tp.port[1], T_PEER, tp.slot, PROTO_NODE_NONE, 4, 0);
		tp.slot++;
		for (int round = 0; round < 3; round++) {
			nic_poll(tp.nic[0], tp.now);
			t_move_frames(&tp, 0, t_is_first_qreq1, NULL, NULL);
			nic_poll(tp.nic[1], tp.now);
			t_move_frames(&tp, 1, NULL, t_is_back, &back);
		}
		t0 = tp.now;
		if (!back)
			tp.now += T_SLOT_NS;
	}
	cr_assert_not_null(back, "T_PEER sent no BACK for the BREQ");
	cr_log_info("after the BREQ: peer rx_base %u mask %x",
		    t_pair_conn(&tp, 1)->rx_base, t_pair_conn(&tp, 1)->rx_mask);
	/* 1 us steps up to 25 us: quick 1 times out and is resent, 1 and 2 arrive */
	for (tp.now = t0 + 1000; tp.now <= t0 + 25000; tp.now += 1000) {
		nic_poll(tp.nic[0], tp.now);
		t_move_frames(&tp, 0, NULL, NULL, NULL);
		nic_poll(tp.nic[1], tp.now);
		t_move_frames(&tp, 1, NULL, NULL, NULL);
	}
	cr_log_info("at 25 us: status %d %d %d, delivered %u", seen[0].status[0],
		    seen[0].status[1], seen[0].status[2], seen[1].n_delivered);
	/* the BACK arrives (before the channel's deadline: no BREQ again) */
	tport_push(tp.port[0], back);
	nic_poll(tp.nic[0], tp.now);
	/* 20 ms of slots, nothing lost */
	for (int s = 0; s < 2000 && seen[0].status[2] < 0; s++) {
		tp.now += T_SLOT_NS - tp.now % T_SLOT_NS;
		t_pair_slot(&tp, true, false);
	}
	cr_log_info("status %d %d %d, delivered %u, outstanding %u, timer expired %llu",
		    seen[0].status[0], seen[0].status[1], seen[0].status[2], seen[1].n_delivered,
		    t_pair_conn(&tp, 0)->outstanding, t_stage_count(tp.nic[0], "timer.expired"));
	cr_expect_eq(seen[0].status[2], SN_OK, "bulk message 3 never completed (%d) in 20 ms",
		     seen[0].status[2]);
	cr_expect_eq(seen[1].n_delivered, 3, "delivered %u of 3", seen[1].n_delivered);
	t_pair_done(&tp, avail);
}

/*
 * The same with a late DOWN notice. T_PEER is away: T_NODE's A gets a DOWN
 * notice (epoch 1, noticed), its B (packet 1 of epoch 1) a second one that
 * is still on its way when T_PEER rejoins (epoch 1) and T_NODE's C (packet
 * 2 of epoch 1) reaches it: held behind the hole. The second notice and the
 * rejoined one take no new epoch (noticed), so they fail B and C in place,
 * and D and E are packets 3 and 4. When they restarted the numbering (a
 * review), D and E were packets 1 and 2 of epoch 1 again: T_PEER delivered
 * D, the failed C, and took E for C's duplicate.
 */
Test(nic, a_late_down_notice_fails_in_place_and_reuses_no_number)
{
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);

	t_pair_exchange(&tp, seen, 1, "before");
	/* T_PEER is away: A dropped, its DOWN notice comes */
	t_send_seq(&tp, 0, 100, 2);
	nic_poll(tp.nic[0], tp.now);
	tport_clear(tp.port[0]);
	t_push_down(tp.port[0], T_NODE, T_PEER);
	nic_poll(tp.nic[0], tp.now);
	tport_clear(tp.port[0]);
	/* B dropped too; its notice is late */
	t_send_seq(&tp, 0, 101, 3);
	nic_poll(tp.nic[0], tp.now);
	tport_clear(tp.port[0]);
	/* T_PEER rejoins (epoch 1); C passes the switch */
	t_pair_rejoin(&tp, 1);
	t_pair_peer_joins_and_takes(&tp, 102, 4);
	/* B's DOWN notice, then the rejoined notice (queued at the switch before T_PEER's answer) */
	t_push_down(tp.port[0], T_NODE, T_PEER);
	t_push_notice(tp.port[0], T_NODE, T_PEER, PROTO_DOWN_REJOINED);
	t_carry(tp.port[1], tp.port[0], T_NODE, false);
	nic_poll(tp.nic[0], tp.now);
	cr_log_info("A %d B %d C %d; epochs %u / %u", seen[0].status[1], seen[0].status[2],
		    seen[0].status[3], t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 1)->epoch);
	t_send_seq(&tp, 0, 103, 5);
	t_send_seq(&tp, 0, 104, 6);
	for (int s = 0; s < 2000 && (seen[0].status[4] < 0 || seen[0].status[5] < 0); s++)
		t_pair_slot(&tp, true, false);
	cr_log_info("D %d E %d", seen[0].status[4], seen[0].status[5]);
	cr_assert_eq(seen[0].status[4], SN_OK);
	cr_assert_eq(seen[0].status[5], SN_OK);
	t_assert_seq_deliveries(seen, 100, 2, 5);
	t_pair_free(&tp);
}

/*
 * A pair on conf4-sr: T_NODE, fresh (its connection knows no epoch), sends 3
 * quick messages (sequence numbers 1 .. 3, cookies the same); T_PEER takes
 * their FRESH frames (delivering none: a FRESH packet is not taken,
 * nic_split_data), its WELCOMEs lost; T_PEER rejoins and its rejoined
 * notice to T_NODE is lost.
 */
static void t_fresh_sends_then_peer_rejoins(struct t_pair *tp, struct t_seen seen[2])
{
	t_pair_up(tp, "conf4-sr", seen);
	for (uintptr_t i = 1; i <= 3; i++)
		t_send_seq(tp, 0, (uint16_t)i, i);
	for (int s = 0; s < 3; s++) {
		t_push_gnt_to(tp->port[0], T_NODE, tp->slot, PROTO_NODE_NONE, 4, 0);
		t_push_gnt_to(tp->port[1], T_PEER, tp->slot, PROTO_NODE_NONE, 4, 0);
		tp->slot++;
		nic_poll(tp->nic[0], tp->now);
		t_carry(tp->port[0], tp->port[1], T_PEER, false);
		nic_poll(tp->nic[1], tp->now);
		t_carry(tp->port[1], tp->port[0], T_NODE, true);	/* T_PEER's WELCOMEs lost */
		tp->now += T_SLOT_NS;
	}
	cr_assert_eq(seen[1].n_delivered, 0);
	cr_assert_geq(nic_stats(tp->nic[1])->rx_fresh_data, 3);
	cr_assert(!t_pair_conn(tp, 0)->epoch_known);
	t_pair_rejoin(tp, 1);
}

/*
 * Slots until T_NODE's 3 messages (and with peer_msg T_PEER's one) complete;
 * T_PEER delivered none of T_NODE's 3 before the RESTART answer (they went
 * FRESH), and each once after it, in order, all completed OK.
 */
static void t_fresh_three_settle(struct t_pair *tp, struct t_seen seen[2], int peer_msg)
{
	for (int s = 0; s < 2000 && (seen[0].status[0] < 0 || seen[0].status[1] < 0 ||
				     seen[0].status[2] < 0 || (peer_msg && seen[1].status[0] < 0));
	     s++)
		t_pair_slot(tp, true, false);
	cr_log_info("status %d %d %d, delivered %u, T_NODE epoch %u, epoch_restarts %llu",
		    seen[0].status[0], seen[0].status[1], seen[0].status[2], seen[1].n_delivered,
		    t_pair_conn(tp, 0)->epoch,
		    (unsigned long long)nic_stats(tp->nic[0])->epoch_restarts);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(seen[0].status[i], SN_OK, "message %d: %d", i + 1, seen[0].status[i]);
	cr_assert_eq(seen[1].n_delivered, 3, "3 messages sent, %u deliveries", seen[1].n_delivered);
	for (unsigned int i = 0; i < 3; i++)
		cr_assert_eq(seen[1].delivered_seq[i], i + 1, "delivery %u: message %u", i + 1,
			     seen[1].delivered_seq[i]);
}

/*
 * T_NODE's process is new (its connection knows no epoch: FRESH frames) and
 * sends 3 quick messages; T_PEER takes their frames, but its answers are
 * lost. T_PEER rejoins (its connection restarts at epoch 1, the nonce
 * retired) and its rejoined notice to T_NODE is lost, the case epochs are
 * for. T_NODE's FRESH resends are stale at T_PEER, which answers with a
 * QACK flagged RESTART, and T_NODE takes epoch 1. When a FRESH packet was
 * taken, T_PEER had delivered the 3 before its rejoin, and the flag made
 * T_NODE restart (the 3 failed with SN_ERR_DOWN: delivered or not); before
 * the flag (a review), T_NODE resent packets 1 .. 3 at epoch 1 and T_PEER,
 * restarted, delivered them a second time. Since a FRESH packet is not
 * taken (nic_split_data), T_PEER delivered none of them before its rejoin,
 * and the restart only failed 3 messages that nobody had (0 deliveries, 3
 * SN_ERR_DOWN). Now a numbered connection does not restart at RESTART
 * (pipeline_rx_welcome): the 3 go again at epoch 1, numbers 1 .. 3, to
 * T_PEER's restarted connection, and arrive once each, in order.
 */
Test(nic, a_fresh_connection_answered_restart_delivers_each_message_once)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	static struct t_seen seen[2];
	struct t_pair tp = { .now = 1000000, .slot = 1 };

	t_fresh_sends_then_peer_rejoins(&tp, seen);
	t_fresh_three_settle(&tp, seen, 0);
	cr_assert_eq(nic_stats(tp.nic[0])->epoch_restarts, 0);
	cr_assert_eq(t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 1)->epoch);
	t_pair_done(&tp, avail);
}

/*
 * Stress of two NICs under loss, late frames, cancels, give-ups and notices
 * of every kind, with each message tagged (its id in args), so a message
 * completed twice, completed OK and never delivered, delivered twice
 * (conf3, conf4) or out of order (conf4) is seen one by one, not only in
 * totals; the quick buffers' accounting is checked at every step. Knobs:
 * T_SEED0, T_SEEDS, T_CONF, T_KINDS, T_ITERS (3000), T_NPCT, T_REJOIN,
 * T_PROC (process restarts per 1000 steps and NIC, 0), T_PNOTICE (in how
 * many of 10 process restarts the peer gets the rejoined notice, 8),
 * T_NOSPACE (in how many of 100 asks an endpoint has no receive buffer
 * while faults last, 0: messages then go to T_EPS endpoints at random, and
 * order is checked per endpoint), T_RXSPACE (1 by default: with T_NOSPACE
 * 0 the owners still say, always yes, as nicd's host does, so nic_rx_admit
 * runs for every data frame; 0: they do not, as in the simulator),
 * T_NOLATEFRESH (no FRESH frame held
 * late), T_LATEDIES (a process restart drops the frames of the process held
 * late: a start takes longer than a fabric holds a frame), T_TLO/T_THI
 * (trace messages of these ids), T_FTRACE (trace every frame carried and
 * every process restart), T_NOVNET (in how many of 10 process restarts
 * the new process does not serve the stress's vnet: it answers NO_VNET,
 * 0), T_DUMP.
 */
enum { T_IDS = 8192, T_EPS = 3 };

struct t_idtrack {
	uint32_t next_id;
	uint8_t completions[T_IDS];
	int8_t status[T_IDS];
	uint8_t deliveries[T_IDS];	/* at the peer: this end's messages delivered there */
	uint32_t last_delivered[T_EPS];	/* at the peer: per endpoint, the highest id delivered (+1) */
	unsigned long twice, out_of_order;
	uint32_t first_twice, first_ooo, first_ooo_prev;
};

static struct t_idtrack t_trk[2];

static bool t_tr(uint32_t id)
{
	const char *lo = getenv("T_TLO"), *hi = getenv("T_THI");

	return lo && hi && id >= (uint32_t)atoi(lo) && id <= (uint32_t)atoi(hi);
}

/*
 * The stress's connection of nic to peer for its traces, or NULL: none yet,
 * or the process does not serve T_VNET (T_NOVNET).
 */
static const struct sn_conn *t_stress_conn(struct nic *nic, uint16_t peer)
{
	struct pipeline *pl = nic_pipeline(nic, T_VNET);

	return pl ? pl->conns[peer] : NULL;
}

/* With T_FTRACE, one line per frame the stress carries: its fate and header. */
static void t_trace_frame(const char *fate, const struct proto_pkt *p)
{
	if (getenv("T_FTRACE"))
		cr_log_info("  frame to %u %s: type %u flags %x epoch %u pkt %u ack %u/%x handler %u",
			    p->dst_node, fate, p->type, p->flags, p->epoch, p->pkt_num, p->ack_base,
			    p->ack_mask, p->handler);
}

/*
 * Frames of from for to_node to port `to`: lost with prob loss/1000, held
 * back (late) with prob lateness/1000; with T_NOLATEFRESH a FRESH frame is
 * never held late.
 */
static void t_carry_faulty(struct dp_port *from, struct dp_port *to, uint16_t to_node,
			    struct rte_mbuf **late, unsigned int *n_late, unsigned int loss,
			    unsigned int lateness)
{
	bool nolatefresh = getenv("T_NOLATEFRESH") != NULL;

	for (unsigned int i = 0; i < tport_sent(from); i++) {
		struct rte_mbuf *m = tport_frame(from, i);
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(m, &p), PROTO_R_OK);
		if (p.dst_node != to_node) {
			rte_pktmbuf_free(m);
		} else if (t_rng() % 1000 < loss) {
			t_trace_frame("lost", &p);
			rte_pktmbuf_free(m);
		} else if (*n_late < 64 && t_rng() % 1000 < lateness &&
			   !(nolatefresh && (p.flags & PROTO_F_FRESH))) {
			t_trace_frame("held late", &p);
			late[(*n_late)++] = m;
		} else {
			t_trace_frame("carried", &p);
			tport_push(to, m);
		}
	}
	tport_forget(from);
}

struct t_idctx {
	int k;			/* this NIC (its sent messages are t_trk[k]) */
};

static void t_id_complete(void *ctx, const struct sn_pkt *pkt, int status, uint64_t now)
{
	struct t_idtrack *t = &t_trk[((struct t_idctx *)ctx)->k];
	uint32_t id;

	(void)now;
	memcpy(&id, pkt->args, sizeof(id));
	cr_assert_lt(id, T_IDS);
	t->completions[id]++;
	t->status[id] = (int8_t)status;
	if (t_tr(id))
		cr_log_info("t=%llu nic %d complete id %u status %d pkt %u epoch %u chan %u tx %u",
			    (unsigned long long)now, ((struct t_idctx *)ctx)->k, id, status,
			    pkt->h.pkt_num, pkt->conn ? pkt->conn->epoch : 0, pkt->chan, pkt->tx_count);
}

static void t_id_deliver(void *ctx, const struct sn_pkt *pkt, uint64_t now)
{
	struct t_idtrack *t = &t_trk[!((struct t_idctx *)ctx)->k];	/* the peer's messages */
	uint32_t id;

	(void)now;
	memcpy(&id, pkt->h.args, sizeof(id));
	cr_assert_lt(id, T_IDS);
	if (t_tr(id))
		cr_log_info("t=%llu nic %d deliver id %u pkt %u epoch %u flags %x type %u",
			    (unsigned long long)now, ((struct t_idctx *)ctx)->k, id, pkt->h.pkt_num,
			    pkt->h.epoch, pkt->h.flags, pkt->h.type);
	if (t->deliveries[id]++ && !t->twice++)
		t->first_twice = id;
	if (id + 1 < t->last_delivered[pkt->h.dst_ep % T_EPS]) {
		if (!t->out_of_order++)
			t->first_ooo = id,
			t->first_ooo_prev = t->last_delivered[pkt->h.dst_ep % T_EPS] - 1;
	} else {
		t->last_delivered[pkt->h.dst_ep % T_EPS] = id + 1;
	}
}

/* The stress's T_NOSPACE, and whether faults last (endpoints refuse only then). */
static unsigned int t_nospace;
static bool t_rxspace;			/* the owners answer rx_space (T_RXSPACE) */
static bool t_faults;

/*
 * Receive space in the stress: none in T_NOSPACE of 100 asks while faults
 * last (with none, no draw: T_RXSPACE runs the same frames as without).
 */
static bool t_id_rx_space(void *ctx, uint16_t vnet, uint16_t ep)
{
	(void)ctx;
	(void)vnet;
	(void)ep;
	return !t_faults || !t_nospace || t_rng() % 100 >= t_nospace;
}

Test(nic, tagged_messages_survive_notices_of_every_kind, .timeout = 600)
{
	static const char *confs[] = {
		"conf4-sr,genp:max_retx=3,timer:timeout_ns=30000:adaptive=off",
		"conf3,genp:max_retx=2,timer:timeout_ns=30000:adaptive=off",
		"conf4-gbn,genp:max_retx=3,timer:timeout_ns=30000:adaptive=off",
		"conf2,genp:max_retx=3,timer:timeout_ns=30000:adaptive=off",
		"conf1",
	};
	uint32_t seed0 = getenv("T_SEED0") ? (uint32_t)atoi(getenv("T_SEED0")) : 1;
	uint32_t nseeds = getenv("T_SEEDS") ? (uint32_t)atoi(getenv("T_SEEDS")) : 20;
	unsigned int iters = getenv("T_ITERS") ? (unsigned int)atoi(getenv("T_ITERS")) : 3000;
	unsigned int kinds = getenv("T_KINDS") ? (unsigned int)atoi(getenv("T_KINDS")) : 3;
	unsigned int nconfs = sizeof(confs) / sizeof(confs[0]);
	unsigned long bad = 0;
	unsigned int npct = getenv("T_NPCT") ? (unsigned int)atoi(getenv("T_NPCT")) : 1;

	if (getenv("T_CONF")) {
		confs[0] = getenv("T_CONF");
		nconfs = 1;
	}
	for (unsigned int c = 0; c < nconfs; c++)
	for (uint32_t seed = seed0; seed < seed0 + nseeds; seed++) {
		unsigned int avail = rte_mempool_avail_count(t_mp);
		static struct t_idctx ctx[2] = { { 0 }, { 1 } };
		struct nic_ops ops[2];
		struct t_pair tp = { .now = 1000000, .slot = 1 };
		struct rte_mbuf *late[2][64];
		unsigned int n_late[2] = { 0, 0 };
		static uint8_t payload[256];
		uint16_t node[2] = { T_NODE, T_PEER };
		bool reliable = strncmp(confs[c], "conf1", 5) != 0;
		bool nodup = reliable && strncmp(confs[c], "conf2", 5) != 0;
		bool ordered = strncmp(confs[c], "conf4", 5) == 0;
		unsigned int rejoin = getenv("T_REJOIN") ? (unsigned int)atoi(getenv("T_REJOIN")) : 0;
		unsigned int away[2] = { 0, 0 };
		unsigned int proc = getenv("T_PROC") ? (unsigned int)atoi(getenv("T_PROC")) : 0;
		unsigned int pnotice = getenv("T_PNOTICE") ?
				       (unsigned int)atoi(getenv("T_PNOTICE")) : 8;
		uint32_t inc = 10;
		uint16_t nonce[2] = { 0, 0 };	/* each NIC's process (incarnation) */
		unsigned int novnet = getenv("T_NOVNET") ? (unsigned int)atoi(getenv("T_NOVNET")) : 0;

		t_rng_state = seed;
		memset(t_trk, 0, sizeof(t_trk));
		t_nospace = getenv("T_NOSPACE") ? (unsigned int)atoi(getenv("T_NOSPACE")) : 0;
		t_rxspace = t_nospace || !getenv("T_RXSPACE") || atoi(getenv("T_RXSPACE"));
		for (int k = 0; k < 2; k++) {
			ops[k] = (struct nic_ops) { .ctx = &ctx[k], .complete = t_id_complete,
						     .deliver = t_id_deliver,
						     .rx_space = t_rxspace ? t_id_rx_space : NULL };
			tp.port[k] = tport_create(k ? "peer" : "node", 1024);
			tp.nic[k] = t_nic_cap(tp.port[k], confs[c], &ops[k], 2);
		}
		for (unsigned int it = 0; it < iters + 1000; it++) {
			bool faults = it < iters;

			t_faults = faults;

			for (int k = 0; k < 2; k++) {
				unsigned int r = t_rng() % 100;

				if (faults && r < 30 && t_trk[k].next_id < T_IDS) {
					uint8_t args[PROTO_ARGS_LEN] = { 0 };
					uint32_t id = t_trk[k].next_id;
					struct nic_msg m = {
						.vnet = T_VNET, .dst_node = node[!k], .handler = 7,
						.src_ep = (uint16_t)(t_rng() % 3),
						.chan = t_rng() % 3 ? SN_CHAN_QUICK : SN_CHAN_BULK,
						.payload = payload, .len = 64, .args = args,
					};

					memcpy(args, &id, sizeof(id));
					if (t_nospace)
						m.dst_ep = (uint16_t)(t_rng() % T_EPS);
					if (m.chan == SN_CHAN_QUICK)
						m.len = 0, m.payload = NULL;
					t_trk[k].status[id] = -1;
					if (nic_send(tp.nic[k], &m, tp.now) == 0) {
						if (t_tr(id))
							cr_log_info("t=%llu nic %d send id %u chan %u ep %u",
								    (unsigned long long)tp.now, k, id, m.chan, m.src_ep);
						t_trk[k].next_id++;
					}
				} else if (faults && r < 32) {
					nic_cancel(tp.nic[k], T_VNET, (uint16_t)(t_rng() % 3), tp.now);
				} else if (faults && r < 32 + npct) {
					enum proto_down_kind kd = (enum proto_down_kind)(t_rng() % kinds);

					if (t_tr(t_trk[0].next_id) || t_tr(t_trk[1].next_id))
						cr_log_info("t=%llu notice to nic %d kind %d (conn epoch %u tx_next %u)",
							    (unsigned long long)tp.now, k, kd,
							    t_stress_conn(tp.nic[k], node[!k]) ? t_stress_conn(tp.nic[k], node[!k])->epoch : 0,
							    t_stress_conn(tp.nic[k], node[!k]) ? t_stress_conn(tp.nic[k], node[!k])->tx_next : 0);
					t_push_notice_of(tp.port[k], node[k], node[!k], kd,
							 kd == PROTO_DOWN_NOT_JOINED ? 0 : nonce[!k]);
				}
			}
			for (int k = 0; k < 2; k++) {
				if (!(faults && t_rng() % 1000 < proc))
					continue;
				/* k's process restarts: what it held is lost with it */
				if (t_tr(t_trk[0].next_id) || t_tr(t_trk[1].next_id) || getenv("T_FTRACE"))
					cr_log_info("t=%llu nic %d process restarts (inc %u)", (unsigned long long)tp.now, k, inc);
				nic_destroy(tp.nic[k]);
				tport_clear(tp.port[k]);
				if (getenv("T_LATEDIES")) {
					/* the fabric holds no frame for the time a start takes */
					for (unsigned int i = 0; i < n_late[!k]; i++)
						rte_pktmbuf_free(late[!k][i]);
					n_late[!k] = 0;
				}
				for (uint32_t id = 0; id < t_trk[k].next_id; id++)
					if (!t_trk[k].completions[id])
						t_trk[k].completions[id] = 1, t_trk[k].status[id] = 99;
				nonce[k] = (uint16_t)inc;
				if (novnet && t_rng() % 10 < novnet)	/* no draw without: same runs */
					tp.nic[k] = t_nic_without_vnet(tp.port[k], &ops[k], 2, inc++);
				else
					tp.nic[k] = t_nic_inc(tp.port[k], confs[c], &ops[k], 2, inc++);
				if (t_rng() % 10 < pnotice)
					t_push_notice_of(tp.port[!k], node[!k], node[k],
							 PROTO_DOWN_REJOINED, nonce[k]);
			}
			for (int k = 0; k < 2; k++) {
				uint16_t tg = t_rng() % 2 ? node[!k] : PROTO_NODE_NONE;

				if (faults && !away[k] && !away[!k] && t_rng() % 1000 < rejoin)
					away[k] = PROTO_LOST_GNT_SLOTS + 2;
				if (away[k]) {
					/* k hears no grant: it rejoins; the switch tells !k (maybe lost) */
					if (--away[k] == 0 && t_rng() % 10 < 8)
						t_push_notice_of(tp.port[!k], node[!k], node[k],
								 PROTO_DOWN_REJOINED, nonce[k]);
					if (away[k])
						continue;
				}
				t_push_gnt_k(tp.port[k], node[k], tp.slot, tg, 4, 0, 2);
			}
			tp.slot++;
			for (int round = 0; round < 2; round++) {
				nic_poll(tp.nic[0], tp.now);
				nic_poll(tp.nic[1], tp.now);
				t_carry_faulty(tp.port[0], tp.port[1], T_PEER, late[1], &n_late[1],
					       faults ? 50 : 0, faults ? 20 : 0);
				t_carry_faulty(tp.port[1], tp.port[0], T_NODE, late[0], &n_late[0],
					       faults ? 50 : 0, faults ? 20 : 0);
			}
			for (int k = 0; k < 2; k++) {
				if (n_late[k] && (t_rng() % 50 == 0 || !faults)) {
					for (unsigned int i = 0; i < n_late[k]; i++) {
						struct proto_pkt lp;

						cr_assert_eq(tdp_decode(late[k][i], &lp), PROTO_R_OK);
						t_trace_frame("released", &lp);
						tport_push(tp.port[k], late[k][i]);
					}
					n_late[k] = 0;
				}
				t_check_quick_acct(tp.nic[k], confs[c], it);
				t_check_counts(tp.nic[k], confs[c], it);
				for (uint32_t id = 0; id < t_trk[k].next_id; id++)
					cr_assert_leq(t_trk[k].completions[id], 1,
						      "%s seed %u: nic %d message %u completed %u times (it %u)",
						      confs[c], seed, k, id, t_trk[k].completions[id], it);
			}
			tp.now += T_SLOT_NS;
		}
		for (int k = 0; k < 2; k++) {
			struct t_idtrack *t = &t_trk[k];
			unsigned long never = 0, ok_lost = 0, st[8] = { 0 };
			uint32_t first_lost = 0;

			for (uint32_t id = 0; id < t->next_id; id++) {
				if (!t->completions[id]) {
					if (!never)
						cr_log_info("nic %d: message %u never completed", k, id);
					never++;
					continue;
				}
				if (t->status[id] >= 0 && t->status[id] < 8)
					st[t->status[id]]++;
				if (t->status[id] == SN_OK && !t->deliveries[id] && !ok_lost++)
					first_lost = id;
			}
			cr_log_info("%s seed %u nic %d: sent %u never completed %lu, ok %lu (%lu not delivered, first %u), st1 %lu st2 %lu down %lu cancelled %lu, twice %lu (first %u), out of order %lu (%u after %u); rejoins %llu epoch_restarts %llu fresh_restarts %llu; endpoint refusals %llu, requeued %llu",
				    confs[c], seed, k, t->next_id, never, st[SN_OK], ok_lost, first_lost,
				    st[1], st[2], st[SN_ERR_DOWN], st[SN_ERR_CANCELLED], t->twice,
				    t->first_twice, t->out_of_order, t->first_ooo, t->first_ooo_prev,
				    (unsigned long long)nic_stats(tp.nic[k])->rejoins,
				    (unsigned long long)nic_stats(tp.nic[k])->epoch_restarts,
				    (unsigned long long)nic_stats(tp.nic[k])->fresh_restarts,
				    (unsigned long long)nic_stats(tp.nic[!k])->ep_refusals_sent,
				    (unsigned long long)nic_stats(tp.nic[k])->requeued);
			if (never && getenv("T_DUMP") &&
			    (!t_stress_conn(tp.nic[k], node[!k]) || !t_stress_conn(tp.nic[!k], node[k]))) {
				cr_log_info("nic %d conn: none at one end (its process serves no vnet %u, T_NOVNET)",
					    k, T_VNET);
			} else if (never && getenv("T_DUMP")) {
				const struct sn_conn *sc = t_stress_conn(tp.nic[k], node[!k]);
				const struct sn_conn *rc = t_stress_conn(tp.nic[!k], node[k]);

				cr_log_info("nic %d conn: active %u unscanned %llu backoff %u epoch %u known %u tx_next %u outstanding %u; peer rx_base %u mask %x epoch %u known %u",
					    k, sc->on_active, (unsigned long long)sc->tx_unscanned, sc->rto_backoff,
					    sc->epoch, sc->epoch_known, sc->tx_next, sc->outstanding, rc->rx_base, rc->rx_mask, rc->epoch, rc->epoch_known);
				for (const struct sn_pkt *q = sc->unacked; q; q = q->next)
					cr_log_info("  unacked %u flags %x hflags %x tx_count %u cq %u chan %u t_tx %llu",
						    q->h.pkt_num, q->flags, q->h.flags, q->tx_count, q->cq, q->chan,
						    (unsigned long long)q->t_tx);
				cr_log_info("  pending %u, now %llu", nic_pending(tp.nic[k]), (unsigned long long)tp.now);
			}
			if (never || (reliable && ok_lost) || (nodup && t->twice) ||
			    (ordered && t->out_of_order)) {
				bad++;
				cr_log_error("%s seed %u nic %d: never %lu, ok-not-delivered %lu, twice %lu, out of order %lu (peer fresh_restarts %llu)",
					     confs[c], seed, k, never, ok_lost, t->twice, t->out_of_order,
					     (unsigned long long)nic_stats(tp.nic[!k])->fresh_restarts);
			}
		}
		for (int k = 0; k < 2; k++) {
			nic_destroy(tp.nic[k]);
			dp_port_destroy(tp.port[k]);
		}
		cr_assert_eq(rte_mempool_avail_count(t_mp), avail, "%s seed %u: frames leaked %d",
			     confs[c], seed, (int)(avail - rte_mempool_avail_count(t_mp)));
	}
	cr_expect_eq(bad, 0, "%lu runs broke a guarantee", bad);
}

/*
 * nic::a_fresh_connection_answered_restart_delivers_each_message_once
 * with one change: after T_PEER's rejoin (its rejoined notice to T_NODE
 * lost), T_PEER's own message reaches T_NODE before any RESTART answer
 * does. When only the answer to a stale FRESH frame said RESTART (a
 * review), T_NODE, which knew no epoch, took epoch 1 from that message (as
 * any first epoch) and resent its 3 packets in it, numbers 1..3: T_PEER,
 * restarted, took them as new and delivered the 3 messages again (that
 * was when a FRESH packet was taken). Now T_NODE, which knows no epoch,
 * drops T_PEER's message and answers FRESH, which T_PEER answers with a
 * WELCOME that says RESTART (the nonce retired): T_NODE takes epoch 1, and
 * its 3 messages, never taken, go again in it and arrive once each, as
 * does T_PEER's.
 */
Test(nic, a_fresh_connection_that_hears_the_restarted_peer_first_delivers_each_once)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	static struct t_seen seen[2];
	struct t_pair tp = { .now = 1000000, .slot = 1 };

	t_fresh_sends_then_peer_rejoins(&tp, seen);
	/* T_PEER's message reaches T_NODE first; T_NODE's frames of this slot are lost */
	t_pair_send(&tp, 1, SN_CHAN_QUICK, 1);
	t_push_gnt_to(tp.port[0], T_NODE, tp.slot, PROTO_NODE_NONE, 4, 0);
	t_push_gnt_to(tp.port[1], T_PEER, tp.slot, PROTO_NODE_NONE, 4, 0);
	tp.slot++;
	nic_poll(tp.nic[1], tp.now);
	t_carry(tp.port[1], tp.port[0], T_NODE, false);
	nic_poll(tp.nic[0], tp.now);
	t_carry(tp.port[0], tp.port[1], T_PEER, true);
	tp.now += T_SLOT_NS;
	cr_log_info("T_NODE epoch_known %u epoch %u; T_PEER epoch %u", t_pair_conn(&tp, 0)->epoch_known,
		    t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 1)->epoch);
	t_fresh_three_settle(&tp, seen, 1);
	cr_assert_eq(seen[0].n_delivered, 1, "T_PEER's message: %u deliveries", seen[0].n_delivered);
	cr_assert_eq(seen[1].status[0], SN_OK, "T_PEER's message: %d", seen[1].status[0]);
	cr_assert_eq(t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 1)->epoch);
	t_pair_done(&tp, avail);
}

/*
 * The two tests below: both ends at epoch 1 with a message each way, then
 * T_PEER's process restarts (no notice comes), joins, sends X (FRESH,
 * lost: message 2 of seen[1]), and gets a DOWN notice about T_NODE before
 * any WELCOME.
 */
static void t_pair_unwelcomed_notice(struct t_pair *tp, struct t_seen *seen)
{
	struct nic_msg m = { .vnet = T_VNET, .dst_node = T_NODE, .chan = SN_CHAN_QUICK,
			     .cookie = (void *)3 };

	t_pair_exchange(tp, seen, 1, "welcome");
	t_pair_peer_returns(tp);
	t_pair_exchange(tp, seen, 2, "before");
	cr_assert_eq(t_pair_conn(tp, 0)->epoch, 1);
	t_pair_new_peer_process(tp);
	t_push_gnt_to(tp->port[1], T_PEER, tp->slot++, PROTO_NODE_NONE, 4, 0);
	nic_poll(tp->nic[1], tp->now);
	cr_assert_eq(nic_send(tp->nic[1], &m, tp->now), 0);
	nic_poll(tp->nic[1], tp->now);
	tport_clear(tp->port[1]);
	t_push_notice(tp->port[1], T_PEER, T_NODE, PROTO_DOWN_DOWN);
	nic_poll(tp->nic[1], tp->now);
	tport_clear(tp->port[1]);
}

/*
 * A review. T_PEER's process restarts and T_NODE never hears of it
 * (its rejoined notice lost): T_NODE keeps epoch 1 of T_PEER's old process,
 * with packet 1 of it received. The new process sends X (FRESH, lost), then
 * gets a DOWN notice about T_NODE (kind down) before any WELCOME: the
 * notice resets its connection (pipeline_conn_reset), which then knows
 * epoch 0 + 1 = 1 without a WELCOME, the very epoch of T_NODE's old state.
 * Its next message Y goes out as packet 1 of epoch 1, no FRESH: T_NODE
 * takes it for a duplicate of the old process's packet 1 and acknowledges
 * it. Expected: Y delivered if it completes OK, and T_NODE's next message
 * completes. Now a restart of a connection no peer has welcomed gives it
 * no epoch (nic_fail_peer).
 */
Test(nic, a_notice_gives_no_epoch_to_a_connection_no_peer_welcomed)
{
	struct nic_msg m = { .vnet = T_VNET, .dst_node = T_NODE, .chan = SN_CHAN_QUICK };
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	const struct sn_conn *c;
	unsigned int got;

	t_pair_unwelcomed_notice(&tp, seen);
	c = t_pair_conn(&tp, 1);
	cr_log_info("after the notice: X %d, known %u epoch %u", seen[1].status[2],
		    c->epoch_known, c->epoch);
	cr_log_info("T_NODE: epoch %u rx_base %u", t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 0)->rx_base);
	got = seen[0].n_delivered;
	m.cookie = (void *)4;			/* Y */
	cr_assert_eq(nic_send(tp.nic[1], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[1].status[3] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_log_info("Y %d, delivered at T_NODE %u (before %u)", seen[1].status[3],
		    seen[0].n_delivered, got);
	cr_assert(seen[1].status[3] != SN_OK || seen[0].n_delivered > got,
		  "Y completed OK and was never delivered");
	t_pair_free(&tp);
}

/*
 * A review. As above, the other way: T_NODE's next message after the
 * notice, packet 2 of epoch 1 (packet 1 went to T_PEER's old process), is
 * taken by the new process's connection at epoch 1, which holds it behind
 * the hole 1 for ever (conf4-sr).
 */
Test(nic, after_such_a_notice_the_peers_next_message_completes)
{
	struct nic_msg n = { .vnet = T_VNET, .dst_node = T_PEER, .chan = SN_CHAN_QUICK };
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);

	t_pair_unwelcomed_notice(&tp, seen);
	n.cookie = (void *)4;			/* T_NODE's next message: packet 2 of epoch 1 */
	cr_assert_eq(nic_send(tp.nic[0], &n, tp.now), 0);
	for (int s = 0; s < 2000 && seen[0].status[3] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_log_info("T_NODE's message: %d; T_PEER rx_base %u mask %x epoch %u",
		    seen[0].status[3], t_pair_conn(&tp, 1)->rx_base, t_pair_conn(&tp, 1)->rx_mask,
		    t_pair_conn(&tp, 1)->epoch);
	cr_assert_geq(seen[0].status[3], 0, "T_NODE's message never completed");
	t_pair_free(&tp);
}

/*
 * A review. A FRESH frame of T_PEER's earlier process, held late in
 * the fabric, reaches T_NODE after T_PEER's next process was welcomed.
 * T_NODE's connection holds the new process's nonce (CURRENT), so the old
 * nonce looks like yet another process: it restarts (epoch 2) and takes the
 * late frame as packet 1 of the new incarnation, delivering P1 a second
 * time (P1 was delivered by its retransmission). Its WELCOME names the old
 * nonce and is dropped by the new process, which learns epoch 2 from the
 * answer to its next frame, restarts, and numbers Q3 as packet 1: T_NODE
 * takes it for a duplicate of the old process's packet 1, and Q3 completes
 * OK without being delivered. Expected: P1 delivered once; Q3 delivered.
 * Now a connection remembers its peer's earlier nonces (SN_OLD_NONCES):
 * the late frame is stale.
 */
static bool t_is_fresh_qreq1(const struct proto_pkt *p)
{
	return p->type == PROTO_T_QREQ && p->pkt_num == 1 && (p->flags & PROTO_F_FRESH) &&
	       !(p->flags & PROTO_F_RETX);
}

/* Side k of a t_pair_open pair: its process restarts on the pair's configuration as incarnation inc, with no notice. */
static void t_pair_new_process(struct t_pair *tp, int k, uint32_t inc)
{
	nic_destroy(tp->nic[k]);
	tport_clear(tp->port[k]);
	tp->nic[k] = t_nic_inc(tp->port[k], tp->conf, &tp->ops[k], 1, inc);
}

/* One slot of tp, no BREQ granted; T_PEER's first frame that hold says is kept in *held. */
static void t_pair_slot_holding(struct t_pair *tp, bool (*hold)(const struct proto_pkt *),
				struct rte_mbuf **held)
{
	t_push_gnt_to(tp->port[0], T_NODE, tp->slot, PROTO_NODE_NONE, 4, 0);
	t_push_gnt_to(tp->port[1], T_PEER, tp->slot, PROTO_NODE_NONE, 4, 0);
	tp->slot++;
	for (int round = 0; round < 2; round++) {
		nic_poll(tp->nic[0], tp->now);
		nic_poll(tp->nic[1], tp->now);
		t_move_frames(tp, 0, NULL, NULL, NULL);
		t_move_frames(tp, 1, NULL, hold, held);
	}
	tp->now += T_SLOT_NS;
}

Test(nic, a_late_fresh_frame_of_an_earlier_process_is_stale)
{
	struct nic_msg m = { .vnet = T_VNET, .dst_node = T_NODE, .chan = SN_CHAN_QUICK };
	struct rte_mbuf *held = NULL;
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	unsigned int p1, q2, q3;

	m.cookie = (void *)1;			/* P1, from the first process (nonce 0) */
	cr_assert_eq(nic_send(tp.nic[1], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[1].status[0] < 0; s++)
		t_pair_slot_holding(&tp, t_is_fresh_qreq1, &held);
	cr_assert_not_null(held);
	cr_assert_eq(seen[1].status[0], SN_OK);
	cr_assert_eq(seen[0].n_delivered, 1);
	/* T_PEER's process restarts (nonce 5); the rejoined notice reaches T_NODE */
	t_pair_new_process(&tp, 1, 5);
	t_push_notice(tp.port[0], T_NODE, T_PEER, PROTO_DOWN_REJOINED);
	m.cookie = (void *)2;			/* Q1 */
	cr_assert_eq(nic_send(tp.nic[1], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[1].status[1] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_assert_eq(seen[1].status[1], SN_OK);
	cr_assert_eq(seen[0].n_delivered, 2);
	/* the old process's FRESH packet 1 arrives at last */
	tport_push(tp.port[0], held);
	nic_poll(tp.nic[0], tp.now);
	p1 = seen[0].n_delivered - 1;
	cr_log_info("late frame: T_NODE epoch %u, fresh_restarts %llu, deliveries %u",
		    t_pair_conn(&tp, 0)->epoch,
		    (unsigned long long)nic_stats(tp.nic[0])->fresh_restarts, seen[0].n_delivered);
	t_pair_run(&tp, 3);
	q2 = seen[0].n_delivered;
	m.cookie = (void *)3;			/* Q2 */
	cr_assert_eq(nic_send(tp.nic[1], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[1].status[2] < 0; s++)
		t_pair_slot(&tp, true, false);
	q3 = seen[0].n_delivered;
	m.cookie = (void *)4;			/* Q3 */
	cr_assert_eq(nic_send(tp.nic[1], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[1].status[3] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_log_info("Q2 %d Q3 %d; deliveries %u (before Q2 %u, Q3 %u); epochs %u / %u",
		    seen[1].status[2], seen[1].status[3], seen[0].n_delivered, q2, q3,
		    t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 1)->epoch);
	cr_log_info("new process: epoch_restarts %llu rx_stale_epoch %llu; T_NODE rx_stale_epoch %llu",
		    (unsigned long long)nic_stats(tp.nic[1])->epoch_restarts,
		    (unsigned long long)nic_stats(tp.nic[1])->rx_stale_epoch,
		    (unsigned long long)nic_stats(tp.nic[0])->rx_stale_epoch);
	cr_expect_eq(p1, 1, "P1 delivered %u times", p1);
	cr_expect(seen[1].status[2] != SN_OK || q3 > q2, "Q2 completed OK and was never delivered");
	cr_expect(seen[1].status[3] != SN_OK || seen[0].n_delivered > q3,
		  "Q3 completed OK and was never delivered");
	t_pair_free(&tp);
}

/* A message from side k of a t_pair_open pair (cookie: its index + 1 in seen[k]); slots until it completes. */
static void t_pair_message(struct t_pair *tp, struct t_seen *seen, int k, uintptr_t cookie,
			   bool (*hold)(const struct proto_pkt *), struct rte_mbuf **held)
{
	struct nic_msg m = { .vnet = T_VNET, .dst_node = k ? T_NODE : T_PEER,
			     .chan = SN_CHAN_QUICK, .cookie = (void *)cookie };

	cr_assert_eq(nic_send(tp->nic[k], &m, tp->now), 0);
	for (int s = 0; s < 2000 && seen[k].status[cookie - 1] < 0; s++)
		t_pair_slot_holding(tp, hold, held);
}

/*
 * T_PEER's message `cookie` completes, OK only if delivered (it may fail
 * SN_ERR_DOWN: a connection restarted), and the next one, cookie + 1,
 * completes OK and arrives once.
 */
static void t_pair_settles(struct t_pair *tp, struct t_seen *seen, uintptr_t cookie)
{
	unsigned int before = seen[0].n_delivered;

	t_pair_message(tp, seen, 1, cookie, NULL, NULL);
	cr_assert_geq(seen[1].status[cookie - 1], 0, "message %lu never completed (T_NODE rx_base %u mask %x)",
		      (unsigned long)cookie, t_pair_conn(tp, 0)->rx_base, t_pair_conn(tp, 0)->rx_mask);
	cr_assert(seen[1].status[cookie - 1] != SN_OK || seen[0].n_delivered == before + 1,
		  "message %lu completed OK and was never delivered", (unsigned long)cookie);
	before = seen[0].n_delivered;
	t_pair_message(tp, seen, 1, cookie + 1, NULL, NULL);
	cr_assert_eq(seen[1].status[cookie], SN_OK, "message %lu: %d (T_NODE epoch %u, T_PEER epoch %u)",
		     (unsigned long)cookie + 1, seen[1].status[cookie], t_pair_conn(tp, 0)->epoch,
		     t_pair_conn(tp, 1)->epoch);
	cr_assert_eq(seen[0].n_delivered, before + 1, "message %lu not delivered",
		     (unsigned long)cookie + 1);
}

/*
 * A t_pair_open pair exchanges message 1; T_PEER's process restarts
 * (nonce 5) and sends M (cookie 2), whose first frame (FRESH) it returns,
 * held; M completes OK through its retransmission.
 */
static struct rte_mbuf *t_pair_hold_fresh_of_5(struct t_pair *tp, struct t_seen *seen)
{
	struct rte_mbuf *held = NULL;

	t_pair_exchange(tp, seen, 1, "first");
	t_pair_new_process(tp, 1, 5);
	t_pair_message(tp, seen, 1, 2, t_is_fresh_qreq1, &held);
	cr_assert_not_null(held);
	cr_assert_eq(seen[1].status[1], SN_OK);
	return held;
}

/*
 * The tagged stress (T_PROC=3 T_PNOTICE=0, conf4-sr seed 103): a FRESH
 * frame of T_PEER's process held late reaches a process of T_NODE that
 * started after T_PEER's next one, every notice lost. P1 (T_PEER's first
 * process, nonce 2) is delivered by its retransmission; both processes
 * restart and the new pair exchanges Q1; then P1's first frame (FRESH, nonce
 * 2) arrives. T_NODE's process never knew nonce 2: as far as it can tell a
 * new process of T_PEER (nonces carry no order), it restarts for it. When
 * a FRESH packet was taken, P1 was delivered a second time; now a FRESH
 * frame only introduces its process (its packet comes again in the epoch of
 * the WELCOME: nic_split_data), and P1 stays delivered once. The restart
 * costs Q2 (SN_ERR_DOWN, or OK and delivered); Q3 arrives.
 */
Test(nic, a_late_fresh_frame_reaching_a_process_started_after_it_delivers_nothing)
{
	struct rte_mbuf *held = NULL;
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	unsigned int before;

	t_pair_message(&tp, seen, 1, 1, t_is_fresh_qreq1, &held);	/* P1 */
	cr_assert_not_null(held);
	cr_assert_eq(seen[1].status[0], SN_OK);
	cr_assert_eq(seen[0].n_delivered, 1);
	t_pair_new_process(&tp, 1, 5);
	t_pair_new_process(&tp, 0, 6);
	t_pair_message(&tp, seen, 1, 2, NULL, NULL);			/* Q1 */
	cr_assert_eq(seen[1].status[1], SN_OK);
	cr_assert_eq(seen[0].n_delivered, 2);
	before = seen[0].n_delivered;
	tport_push(tp.port[0], held);				/* P1's FRESH frame, at last */
	t_pair_run(&tp, 3);
	cr_log_info("late frame: T_NODE fresh_restarts %llu rx_fresh_data %llu, deliveries %u",
		    (unsigned long long)nic_stats(tp.nic[0])->fresh_restarts,
		    (unsigned long long)nic_stats(tp.nic[0])->rx_fresh_data, seen[0].n_delivered);
	cr_assert_eq(seen[0].n_delivered, before, "P1 delivered again by a process that never knew its sender");
	t_pair_settles(&tp, seen, 3);					/* Q2, Q3 */
	t_pair_free(&tp);
}

/*
 * The tagged stress (T_PROC=3 T_PNOTICE=0, conf4-sr seed 196), every
 * notice lost: T_PEER's process restarts (nonce 5) and sends M, whose first
 * frame (FRESH) is held late; T_NODE restarts for the new process and
 * welcomes it, M arrives in the epoch (1). T_NODE's process restarts
 * (nonce 6), and M's late FRESH frame reaches it: both ends new as far as
 * it can tell, it takes the frame (not its packet), knows its own epoch, 0,
 * and welcomes nonce 5. T_PEER's connection knows epoch 1 from T_NODE's
 * earlier process. When it took that WELCOME as any frame, it was stale
 * (0 < 1) and answered at 1, and T_NODE's new process restarted into 1,
 * as newer, with nothing received, while T_PEER numbered on from 2: N, its
 * next message, waited behind the hole at 1 for ever (never completed). Now
 * a WELCOME from a process the connection holds no state of is news of that
 * process, as its FRESH frame would be: T_PEER restarts (fresh_restarts),
 * and N leaves as packet 1 of epoch 2. T_NODE took the first epoch of its
 * pair with nonce 5 (pipeline_pair_epoch), beyond SN_EPOCH_REACH of 2: N's
 * frame is of another pair as far as it can tell, dropped and answered
 * with a FRESH QACK that introduces nonce 6; T_PEER's WELCOME to it names
 * both processes, so T_NODE compares its epoch however far: older, it
 * answers with a WELCOME of its own, which T_PEER takes as newer (N fails
 * SN_ERR_DOWN, undelivered); the next message, O, arrives.
 */
Test(nic, a_welcome_from_a_process_the_connection_never_knew_restarts_it)
{
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	struct rte_mbuf *held = t_pair_hold_fresh_of_5(&tp, seen);	/* M */

	cr_assert_eq(t_pair_conn(&tp, 1)->epoch, 1);
	t_pair_new_process(&tp, 0, 6);
	t_pair_run(&tp, 1);					/* it joins */
	tport_push(tp.port[0], held);				/* M's FRESH frame, at last */
	t_pair_run(&tp, 3);
	cr_log_info("T_NODE epoch %u rx_base %u; T_PEER epoch %u tx_next %u fresh_restarts %llu",
		    t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 0)->rx_base,
		    t_pair_conn(&tp, 1)->epoch, t_pair_conn(&tp, 1)->tx_next,
		    (unsigned long long)nic_stats(tp.nic[1])->fresh_restarts);
	t_pair_settles(&tp, seen, 3);					/* N, O */
	t_pair_free(&tp);
}

/*
 * T_PEER's message M (cookie m) is delivered by its retransmission while
 * its first frame (packet 1) is held; both processes restart (nonces 5
 * and 6, every notice lost), and the new pair exchanges Q1 (T_PEER's
 * cookie m + 1). Returns M's frame.
 */
static struct rte_mbuf *t_pair_hold_past_both_restarts(struct t_pair *tp, struct t_seen *seen,
							uintptr_t m)
{
	struct rte_mbuf *held = NULL;

	t_pair_message(tp, seen, 1, m, t_is_first_qreq1, &held);		/* M */
	cr_assert_not_null(held);
	cr_assert_eq(seen[1].status[m - 1], SN_OK);
	t_pair_new_process(tp, 1, 5);
	t_pair_new_process(tp, 0, 6);
	t_pair_message(tp, seen, 1, m + 1, NULL, NULL);			/* Q1 */
	cr_assert_eq(seen[1].status[m], SN_OK);
	return held;
}

/*
 * M's frame (t_pair_hold_past_both_restarts) reaches T_NODE's new process
 * at last: of another pair, it is dropped (rx_other_pair) and delivers
 * nothing, nothing restarts; the next message (cookie next) arrives.
 */
static void t_pair_gone_pairs_frame_arrives(struct t_pair *tp, struct t_seen *seen,
					    struct rte_mbuf *held, uintptr_t next)
{
	unsigned int before = seen[0].n_delivered;
	uint64_t restarts = nic_stats(tp->nic[0])->epoch_restarts;

	tport_push(tp->port[0], held);
	t_pair_run(tp, 3);
	cr_log_info("late frame: T_NODE epoch %u epoch_restarts %llu rx_other_pair %llu, deliveries %u",
		    t_pair_conn(tp, 0)->epoch,
		    (unsigned long long)nic_stats(tp->nic[0])->epoch_restarts,
		    (unsigned long long)nic_stats(tp->nic[0])->rx_other_pair, seen[0].n_delivered);
	cr_assert_eq(seen[0].n_delivered, before, "M delivered again by the new pair");
	cr_assert_eq(nic_stats(tp->nic[0])->epoch_restarts, restarts,
		     "a frame of the gone pair restarted the new pair's connection");
	cr_assert_eq(nic_stats(tp->nic[0])->rx_other_pair, 1);
	t_pair_message(tp, seen, 1, next, NULL, NULL);
	cr_assert_eq(seen[1].status[next - 1], SN_OK, "message %lu: %d", (unsigned long)next,
		     seen[1].status[next - 1]);
	cr_assert_eq(seen[0].n_delivered, before + 1, "message %lu not delivered",
		     (unsigned long)next);
}

/*
 * The tagged stress (T_REJOIN=3 T_PROC=1 T_PNOTICE=5, conf4-sr seed 104):
 * a frame (not FRESH) of a pair of processes that are both gone, held
 * late, reaches the new pair. T_PEER's rejoin takes the first pair (nonces
 * 0 and 0) to epoch 1, and M, packet 1 of epoch 1, is delivered by its
 * retransmission while its first frame is held. Both processes restart
 * (nonces 5 and 6), and the new pair exchanges Q1; then M's frame arrives.
 * When every new pair started its epochs at 0, epoch 1 was newer: T_NODE
 * restarted into it and delivered M again, after Q1, from a process that
 * is gone. Now the new pair's first epoch is pipeline_pair_epoch(5, 6),
 * and 1 is beyond SN_EPOCH_REACH of it: of another pair, dropped
 * (rx_other_pair); nothing restarts, and Q2 arrives.
 */
Test(nic, a_late_frame_of_a_gone_pair_of_processes_restarts_nothing)
{
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	struct rte_mbuf *held;

	t_pair_exchange(&tp, seen, 1, "first");
	t_pair_peer_returns(&tp);
	cr_assert_eq(t_pair_conn(&tp, 0)->epoch, 1);
	cr_assert_eq(t_pair_conn(&tp, 1)->epoch, 1);
	held = t_pair_hold_past_both_restarts(&tp, seen, 2);		/* M, Q1 */
	t_pair_gone_pairs_frame_arrives(&tp, seen, held, 4);		/* Q2 */
	t_pair_free(&tp);
}

/*
 * The tagged stress (T_PROC=3 T_PNOTICE=0 on conf3, seeds 214 and 361 of
 * 201 .. 400 before the epochs were tied to the pair of processes; traced
 * 2026-11-24): the same order of events on a configuration that promises
 * no duplicates, with the new pair's connection restarted before the late
 * frame arrives. Seed 361: T_PEER's message 476, packet 3 of epoch 27, is
 * delivered by its retransmission while its first frame is held; both
 * processes restart at once, every notice lost, and the new pair starts
 * at 0 and restarts twice (epoch 2); the late frame's epoch 27 is newer,
 * T_NODE restarts into it and delivers 476 a second time (seed 214 the
 * same: message 696, epoch 46 against the new pair's 45). Here: the first
 * pair at epoch 2 (two rejoins of T_PEER), M held, both processes
 * restart, Q1, T_PEER's rejoin restarts the new pair's connection (then
 * at epoch 1 when pairs started at 0: 2 was newer, and M was delivered
 * twice), Q2; then M's frame arrives. Now the new pair is at
 * pipeline_pair_epoch(5, 6) + 1, and a restart of the connection keeps
 * it knowing its peer's process (its nonce retired, not forgotten), so 2
 * is still compared by reach: of another pair, dropped; Q3 arrives.
 */
Test(nic, a_gone_pairs_frame_after_the_new_pair_restarted_is_not_delivered_twice)
{
	struct t_pair tp;
	struct t_seen *seen = t_pair_open_on(&tp, "conf3", NULL);
	struct rte_mbuf *held;

	t_pair_exchange(&tp, seen, 1, "first");
	t_pair_peer_returns(&tp);
	t_pair_peer_returns(&tp);
	cr_assert_eq(t_pair_conn(&tp, 0)->epoch, 2);
	cr_assert_eq(t_pair_conn(&tp, 1)->epoch, 2);
	held = t_pair_hold_past_both_restarts(&tp, seen, 2);		/* M, Q1 */
	t_pair_peer_returns(&tp);
	t_pair_message(&tp, seen, 1, 4, NULL, NULL);			/* Q2 */
	cr_assert_eq(seen[1].status[3], SN_OK);
	cr_assert_eq(t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 1)->epoch);
	cr_assert_eq(t_pair_conn(&tp, 0)->epoch, (uint16_t)(pipeline_pair_epoch(5, 6) + 1));
	t_pair_gone_pairs_frame_arrives(&tp, seen, held, 5);		/* Q3 */
	t_pair_free(&tp);
}

/*
 * T_PEER's process of boot nonce `inc` serving another virtual network
 * than T_VNET only: it answers every data frame of T_VNET with NO_VNET.
 */
static void t_pair_process_without_vnet(struct t_pair *tp, uint32_t inc)
{
	nic_destroy(tp->nic[1]);
	tport_clear(tp->port[1]);
	tp->nic[1] = t_nic_without_vnet(tp->port[1], &tp->ops[1], 1, inc);
}

/*
 * A NO_VNET answer to a connection that knows no epoch. The first pair
 * (nonces 0 and 0) is at epoch 2 (two rejoins of T_PEER), and T_PEER's M,
 * packet 1, is delivered by its retransmission while its first frame is
 * held. Both processes restart, every notice lost: T_NODE's (nonce 6)
 * knows no epoch, and T_PEER's (nonce 5) does not serve T_VNET; T_NODE's
 * X, sent FRESH, is answered NO_VNET and fails. Then M's frame arrives.
 * When the answer restarted the connection at epoch 1, it knew an epoch
 * and no process of its peer (no reach): M's epoch 2 was newer, T_NODE
 * restarted into it and delivered M a second time, to a process that
 * never heard of the pair that sent it. Now the connection starts over
 * knowing no epoch, as toward a peer that is gone: M's frame is dropped
 * as unwelcome. T_PEER's next process (nonce 7) serves T_VNET, and a
 * message each way arrives.
 */
Test(nic, a_no_vnet_answer_gives_a_new_connection_no_epoch)
{
	struct t_pair tp;
	struct t_seen *seen = t_pair_open_on(&tp, "conf3", NULL);
	struct rte_mbuf *held = NULL;
	unsigned int before;

	t_pair_exchange(&tp, seen, 1, "first");
	t_pair_peer_returns(&tp);
	t_pair_peer_returns(&tp);
	cr_assert_eq(t_pair_conn(&tp, 0)->epoch, 2);
	t_pair_message(&tp, seen, 1, 2, t_is_first_qreq1, &held);		/* M */
	cr_assert_not_null(held);
	cr_assert_eq(seen[1].status[1], SN_OK);
	before = seen[0].n_delivered;
	t_pair_new_process(&tp, 0, 6);
	t_pair_process_without_vnet(&tp, 5);
	t_pair_message(&tp, seen, 0, 2, NULL, NULL);			/* X */
	cr_log_info("X %d: T_NODE epoch %u known %d no_vnet_received %llu rx_welcome %llu; T_PEER no_vnet_sent %llu rx_unknown_vnet %llu",
		    seen[0].status[1], t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 0)->epoch_known,
		    (unsigned long long)nic_stats(tp.nic[0])->no_vnet_received,
		    (unsigned long long)nic_stats(tp.nic[0])->rx_welcome,
		    (unsigned long long)nic_stats(tp.nic[1])->no_vnet_sent,
		    (unsigned long long)nic_stats(tp.nic[1])->rx_unknown_vnet);
	cr_assert_eq(seen[0].status[1], SN_ERR_DOWN, "X: %d", seen[0].status[1]);
	cr_assert_eq(nic_stats(tp.nic[0])->no_vnet_received, 1);
	tport_push(tp.port[0], held);					/* M's frame, at last */
	for (int s = 0; s < 3; s++)
		t_pair_slot_holding(&tp, NULL, NULL);
	cr_log_info("late frame: T_NODE epoch %u known %d, epoch_restarts %llu rx_unwelcome %llu, deliveries %u",
		    t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 0)->epoch_known,
		    (unsigned long long)nic_stats(tp.nic[0])->epoch_restarts,
		    (unsigned long long)nic_stats(tp.nic[0])->rx_unwelcome, seen[0].n_delivered);
	cr_assert_eq(seen[0].n_delivered, before, "M delivered again to a new process");
	cr_assert_eq(nic_stats(tp.nic[0])->epoch_restarts, 0);
	cr_assert_not(t_pair_conn(&tp, 0)->epoch_known);
	t_pair_new_process(&tp, 1, 7);
	t_pair_run(&tp, 1);						/* it joins */
	t_pair_exchange(&tp, seen, 3, "after");
	cr_assert_eq(seen[0].n_delivered, before + 1);
	t_pair_free(&tp);
}

/*
 * The way back: a process that took a gone process for its peer. T_PEER's
 * process 5 sends M, whose first frame (FRESH) is held; its process 7
 * follows, and T_NODE's process (nonce 0) restarts for it. Then T_NODE's
 * process restarts (nonce 6), every notice lost, and M's late FRESH frame
 * reaches it first: both ends new as far as it can tell, it takes nonce 5
 * for its peer's and the pair's first epoch, pipeline_pair_epoch(6, 5),
 * and welcomes 5 (which process 7 drops). Process 7 knows its epoch from
 * nonce 0 and sends N: its epoch is beyond reach of T_NODE's, of another
 * pair. Answered by a WELCOME of the pair T_NODE holds (nonces 5 and 6),
 * which process 7 drops as to an earlier process of its node, the two
 * ends dropped each other's frames for ever (N and every later message
 * gave up, SN_ERR_RETRIES). Answered by a FRESH QACK that introduces
 * nonce 6, process 7 takes it as news of a new process (it restarts: N
 * fails SN_ERR_DOWN), and its WELCOME, naming 6 and 7, is news of 7 at
 * T_NODE (it restarts too); then each end knows the other's process, and
 * O's frame, still of another pair, is answered until one end takes the
 * other's epoch (here T_PEER, by the WELCOMEs' compare: O fails
 * SN_ERR_DOWN). P, sent after, arrives.
 */
Test(nic, a_process_that_took_a_gone_process_for_its_peer_is_welcomed_by_the_live_one)
{
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	struct rte_mbuf *held = t_pair_hold_fresh_of_5(&tp, seen);	/* M */

	t_pair_new_process(&tp, 1, 7);
	t_pair_message(&tp, seen, 1, 3, NULL, NULL);			/* L */
	cr_assert_eq(seen[1].status[2], SN_OK);
	t_pair_new_process(&tp, 0, 6);
	t_pair_run(&tp, 1);					/* it joins */
	tport_push(tp.port[0], held);				/* M's FRESH frame, at last */
	t_pair_run(&tp, 1);
	cr_assert_eq(t_pair_conn(&tp, 0)->fresh_nonce, 5);
	t_pair_message(&tp, seen, 1, 4, NULL, NULL);			/* N */
	cr_log_info("N %d; T_NODE epoch %u nonce %u rx_other_pair %llu; T_PEER epoch %u nonce %u",
		    seen[1].status[3], t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 0)->fresh_nonce,
		    (unsigned long long)nic_stats(tp.nic[0])->rx_other_pair,
		    t_pair_conn(&tp, 1)->epoch, t_pair_conn(&tp, 1)->fresh_nonce);
	cr_assert_geq(seen[1].status[3], 0, "N never completed");
	t_pair_settles(&tp, seen, 5);					/* O, P */
	cr_assert_eq(t_pair_conn(&tp, 0)->epoch, t_pair_conn(&tp, 1)->epoch, "the ends' epochs differ");
	t_pair_free(&tp);
}

/*
 * T_PEER's new process (nonce 5) sends first: T_NODE restarts for it and
 * welcomes it (epoch 1). The switch's notice of its join comes late and
 * restarts T_NODE's connection again (epoch 2); T_NODE's next message
 * reaches that process, which takes the newer epoch and delivers it, and
 * dies before its acknowledgment leaves. Its successor (nonce 6), whose
 * notice is lost, answers T_NODE's retransmission FRESH. T_NODE's
 * connection heard nothing since its restart, so it kept its numbering
 * and sent the message again: delivered twice (the tagged stress's seed
 * 93 with T_PROC=1). The notice named the process it restarted for, 5:
 * a FRESH frame of another means its packets since may have gone to 5.
 */
Test(nic, a_message_taken_by_a_process_that_died_is_not_delivered_again_to_the_next)
{
	struct nic_msg m = { .vnet = T_VNET, .chan = SN_CHAN_QUICK };
	struct t_pair tp;
	struct t_seen *seen = t_pair_open(&tp);
	unsigned int before;

	m.dst_node = T_PEER;
	m.cookie = (void *)1;
	cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[0].status[0] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_assert_eq(seen[0].status[0], SN_OK);
	/* T_PEER's process restarts (nonce 5) and sends first; the notice waits */
	nic_destroy(tp.nic[1]);
	tport_clear(tp.port[1]);
	tp.nic[1] = t_nic_inc(tp.port[1], "conf4-sr", &tp.ops[1], 1, 5);
	m.dst_node = T_NODE;
	cr_assert_eq(nic_send(tp.nic[1], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[1].status[0] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_assert_eq(seen[1].status[0], SN_OK);
	cr_assert_eq(nic_stats(tp.nic[0])->fresh_restarts, 1);
	/* the notice of that join comes now */
	t_push_notice_of(tp.port[0], T_NODE, T_PEER, PROTO_DOWN_REJOINED, 5);
	nic_poll(tp.nic[0], tp.now);
	tport_clear(tp.port[0]);
	/* T_NODE's message 2 reaches process 5, whose acknowledgment is lost with it */
	before = seen[1].n_delivered;
	m.dst_node = T_PEER;
	m.cookie = (void *)2;
	cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	nic_poll(tp.nic[0], tp.now);
	t_carry(tp.port[0], tp.port[1], T_PEER, false);
	nic_poll(tp.nic[1], tp.now);
	cr_assert_eq(seen[1].n_delivered, before + 1, "process 5 took message 2");
	nic_destroy(tp.nic[1]);
	tport_clear(tp.port[1]);
	tp.nic[1] = t_nic_inc(tp.port[1], "conf4-sr", &tp.ops[1], 1, 6);
	for (int s = 0; s < 2000 && seen[0].status[1] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_log_info("message 2: status %d, delivered %u times; T_NODE fresh_restarts %llu",
		    seen[0].status[1], seen[1].n_delivered - before,
		    (unsigned long long)nic_stats(tp.nic[0])->fresh_restarts);
	cr_assert_geq(seen[0].status[1], 0, "message 2 never completed");
	cr_expect_eq(seen[1].n_delivered, before + 1, "message 2 delivered %u times",
		     seen[1].n_delivered - before);
	/* and the next message reaches process 6 */
	m.cookie = (void *)3;
	cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	for (int s = 0; s < 2000 && seen[0].status[2] < 0; s++)
		t_pair_slot(&tp, true, false);
	cr_assert_eq(seen[0].status[2], SN_OK);
	cr_assert_eq(seen[1].n_delivered, before + 2);
	t_pair_free(&tp);
}

/*
 * A conf4-sr NIC on port, joined, its connection to T_PEER at epoch 7,
 * that sent one message per letter of chans to T_PEER (B bulk, Q quick;
 * cookies 1, 2, ..., completions in seen) and polled once at now; no grant
 * targets T_PEER yet, so the bulk ones wait unsent.
 */
static struct nic *t_nic_sent(struct dp_port *port, struct t_seen *seen, const char *chans,
			      uint64_t now)
{
	static uint8_t payload[64];
	struct nic_ops ops = { .ctx = seen, .complete = t_seen_complete,
			       .deliver = t_seen_deliver };
	struct nic *nic = t_nic_with(port, "conf4-sr", &ops);

	memset(seen, 0, sizeof(*seen));
	memset(seen->status, -1, sizeof(seen->status));
	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	t_welcome(nic, port, T_VNET, 7, now);
	for (uintptr_t i = 0; chans[i]; i++) {
		struct nic_msg m = {
			.vnet = T_VNET, .dst_node = T_PEER, .handler = 7, .chan = SN_CHAN_QUICK,
			.cookie = (void *)(i + 1),
		};

		if (chans[i] == 'B')
			m.chan = SN_CHAN_BULK, m.payload = payload, m.len = sizeof(payload);
		cr_assert_eq(nic_send(nic, &m, now), 0);
	}
	nic_poll(nic, now);
	tport_clear(port);
	return nic;
}

/*
 * An acknowledgment of packets this end numbered and never sent can only
 * come from a receive state of another numbering of the connection (the
 * tagged stress, T_REJOIN=3 T_PROC=1 T_PNOTICE=5, seed 3: a new process's
 * message completed OK before it was ever sent, and was never delivered).
 * Three bulk messages wait for their grants, and T_PEER acknowledges 1
 * and 2: before, both completed OK. Now the connection restarts at the
 * next epoch (counter ack_contradictions), the three fail with
 * SN_ERR_DOWN, and an ack-only frame of the new epoch tells the peer. An
 * acknowledgment of numbers never given (before, ignored: genp's
 * stale_acks) does the same.
 */
Test(nic, an_ack_of_packets_never_sent_restarts_the_connection)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	static struct t_seen seen;
	uint64_t now = 1000000;
	struct nic *nic = t_nic_sent(port, &seen, "BBB", now);
	struct proto_pkt q;

	t_push_ack_of(port, 2, 7);
	nic_poll(nic, now);
	for (int i = 0; i < 3; i++)
		cr_expect_neq(seen.status[i], SN_OK, "message %d completed OK, never sent", i);
	cr_assert_eq(seen.status[0], SN_ERR_DOWN);
	cr_assert_eq(seen.status[2], SN_ERR_DOWN);
	cr_assert_eq(nic_pipeline(nic, T_VNET)->conns[T_PEER]->epoch, 8);
	cr_assert_eq(nic_stats(nic)->ack_contradictions, 1);
	cr_assert(t_last_qack(port, &q), "the peer is not told");
	cr_assert_eq(q.epoch, 8);
	tport_clear(port);
	/* the same for an acknowledgment of numbers never given (genp's stale_acks) */
	t_push_ack_of(port, 3, 8);
	nic_poll(nic, now);
	cr_assert_eq(nic_pipeline(nic, T_VNET)->conns[T_PEER]->epoch, 9);
	cr_assert_eq(nic_stats(nic)->ack_contradictions, 2);
	tport_clear(port);
	t_done(nic, port, avail);
}

/*
 * pipeline_rx_ack_base walks the packets an ack covers only while the
 * connection has packets numbered and never sent (sn_conn.never_sent);
 * without, an ack below tx_next is taken at once. Two quick messages
 * leave, then a bulk one waits for its grant (a quick one leaves after
 * it): an ack of the two is taken by the walk (never_sent 1) and
 * completes them, not the others. Once the bulk packet left, an ack of
 * all four is taken without a walk (never_sent 0), and one of a number
 * never given still restarts the connection.
 * (an_ack_of_packets_never_sent_restarts_the_connection: the walk finds
 * a packet never sent.)
 */
Test(nic, an_ack_of_sent_packets_is_taken_while_a_later_one_waits_unsent)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	static struct t_seen seen;
	uint64_t now = 1000000;
	struct nic *nic = t_nic_sent(port, &seen, "QQBQ", now);
	struct sn_conn *c;

	c = nic_pipeline(nic, T_VNET)->conns[T_PEER];
	cr_assert_eq(c->never_sent, 1, "the bulk packet waits for its grant");
	t_push_ack_of(port, 2, 7);
	nic_poll(nic, now);
	cr_assert_eq(seen.status[0], SN_OK);
	cr_assert_eq(seen.status[1], SN_OK);
	cr_assert_eq(seen.status[2], -1);
	cr_assert_eq(seen.status[3], -1);
	cr_assert_eq(nic_stats(nic)->ack_contradictions, 0);
	cr_assert_eq(c->never_sent, 1);
	/* the bulk packet's grant: it leaves, and its ack needs no walk */
	t_push_gnt_of(port, 2, T_PEER, 4, 0);
	nic_poll(nic, now + 10000);
	cr_assert_eq(c->never_sent, 0, "the bulk packet never left");
	tport_clear(port);
	t_push_ack_of(port, 4, 7);
	nic_poll(nic, now + 10000);
	cr_assert_eq(seen.status[2], SN_OK);
	cr_assert_eq(seen.status[3], SN_OK);
	cr_assert_eq(nic_stats(nic)->ack_contradictions, 0);
	cr_assert_eq(c->epoch, 7);
	/* a number never given still restarts the connection */
	t_push_ack_of(port, 5, 7);
	nic_poll(nic, now + 10000);
	cr_assert_eq(nic_stats(nic)->ack_contradictions, 1);
	cr_assert_eq(c->epoch, 8);
	tport_clear(port);
	t_done(nic, port, avail);
}

/*
 * The selective-ack mask contradicts this end as the base does: a receiver
 * records only numbers it was sent, within the 32 of its mask, where
 * genp's window keeps every number sent, so a mask bit for a packet
 * numbered and never sent, or for a number never given, is of another
 * numbering. Packets 1, 2 and 4 leave (quick), 3 waits for its grant
 * (bulk): a mask of 2 and 4 is taken; one of 3 (base 1) restarts the
 * connection (epoch 8); there, with nothing numbered, a mask of 1 restarts
 * it again (epoch 9). Before, both were taken: only the base was checked.
 */
Test(nic, a_selective_ack_of_packets_never_sent_restarts_the_connection)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	static struct t_seen seen;
	uint64_t now = 1000000;
	struct nic *nic = t_nic_sent(port, &seen, "QQBQ", now);
	struct sn_conn *c = nic_pipeline(nic, T_VNET)->conns[T_PEER];

	cr_assert_eq(c->never_sent, 1, "the bulk packet waits for its grant");
	t_push_sack_of(port, 0, 0xA, 7);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->ack_contradictions, 0);
	cr_assert_eq(c->epoch, 7);
	t_push_sack_of(port, 1, 0x2, 7);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->ack_contradictions, 1, "a mask of packet 3, never sent");
	cr_assert_eq(c->epoch, 8);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(seen.status[i], SN_ERR_DOWN, "message %d completed %d", i + 1,
			     seen.status[i]);
	t_push_sack_of(port, 0, 0x1, 8);
	nic_poll(nic, now);
	cr_assert_eq(nic_stats(nic)->ack_contradictions, 2, "a mask of number 1, never given");
	cr_assert_eq(c->epoch, 9);
	tport_clear(port);
	t_done(nic, port, avail);
}

/* nic_poll at base + us microseconds. */
static void t_poll_at(struct nic *nic, uint64_t base, unsigned int us)
{
	nic_poll(nic, base + us * 1000ull);
}

/*
 * A quick buffer taken back (chan_quick_reclaim) from an overdue packet:
 * the packet waits for its ack without one, as a bulk packet after its
 * BACK. 6 quick buffers, 2 of them the reserve, conf4-sr with timeouts of
 * 10 us: T_PEER's packets 1 and 2 (sent at 0 and 2 us) and one packet to
 * each of 4 silent nodes (at 4 us) take all 6, and are resent every 10
 * us. Once packet 2 is overdue (sent CHAN_OVERDUE_TX times, at t2), a
 * message to node 3 takes its buffer: packet 2 was the last overdue one
 * sent. At its next timeout (t2 + 10 us) packet 2 waits for a buffer to
 * be resent: its connection holds packet 1, overdue, so it may take none
 * back. T_PEER's ack then holds it (the mask): it leaves the queue and is
 * not sent again; an ack of both completes both OK, and the buffers add
 * up.
 */
Test(nic, a_packet_whose_quick_buffer_was_taken_back_still_completes_on_its_ack)
{
	static const uint16_t silent[] = { 0, 4, 5, 6 };
	unsigned int avail = rte_mempool_avail_count(t_mp), t2;
	struct dp_port *port = tport_create("nic", 256);
	static struct t_seen seen;
	struct nic_ops ops = { .ctx = &seen, .complete = t_seen_complete };
	struct nic_config cfg = t_config(1, 0);
	uint64_t t0 = 1000000;
	uint32_t sent[32] = { 0 };
	struct sn_pkt *p2;
	struct nic *nic;
	uintptr_t id = 0;

	cfg.max_nodes = 9;
	cfg.quick_bufs = 6;
	cfg.quick_reserve = 2;
	nic = t_nic_of(port, "conf4-sr,timer:timeout_ns=10000:adaptive=off", &ops, &cfg);
	t_seen_clear(&seen);
	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 9, 0);
	nic_poll(nic, t0);
	t_welcome(nic, port, T_VNET, 7, t0);
	for (unsigned int k = 0; k < 6; k++) {
		struct nic_msg m = {
			.vnet = T_VNET, .dst_node = k < 2 ? T_PEER : silent[k - 2], .handler = 7,
			.chan = SN_CHAN_QUICK, .cookie = (void *)++id,
		};

		cr_assert_eq(nic_send(nic, &m, t0 + (k < 2 ? 2 * k : 4) * 1000ull), 0);
		t_poll_at(nic, t0, k < 2 ? 2 * k : 4);
	}
	cr_assert_eq(nic->ch.quick_used, 6);
	p2 = nic_pipeline(nic, T_VNET)->conns[T_PEER]->unacked->next;
	cr_assert_eq(p2->h.pkt_num, 2);
	for (t2 = 5; t2 < 100 && p2->tx_count < CHAN_OVERDUE_TX; t2++)
		t_poll_at(nic, t0, t2);
	t2--;
	cr_assert_eq(p2->tx_count, CHAN_OVERDUE_TX, "packet 2 not resent every 10 us");
	cr_assert_eq(nic->ch.quick_overdue, 2, "packets 1 and 2 overdue, the others not yet");
	cr_assert_eq(nic_stats(nic)->quick_reclaimed, 0);
	{
		struct nic_msg m = { .vnet = T_VNET, .dst_node = 3, .handler = 7,
				     .chan = SN_CHAN_QUICK, .cookie = (void *)++id };

		cr_assert_eq(nic_send(nic, &m, t0 + (t2 + 1) * 1000ull), 0);
	}
	t_poll_at(nic, t0, t2 + 1);
	cr_assert_eq(nic_stats(nic)->quick_reclaimed, 1);
	cr_assert_eq(p2->cq, CQ_NONE, "packet 2 kept its buffer");
	cr_assert_eq(nic->ch.quick_used, 6);
	t_check_quick_acct(nic, "taken back", 0);
	for (unsigned int us = t2 + 2; us <= t2 + 10; us++)
		t_poll_at(nic, t0, us);
	cr_assert_eq(p2->tx_count, CHAN_OVERDUE_TX);
	cr_assert_eq(p2->cq, CQ_QBACKLOG, "packet 2's resend does not wait for a buffer");
	tport_clear(port);
	t_push_sack_of(port, 0, 0x2, 7);
	t_poll_at(nic, t0, t2 + 10);
	cr_assert(p2->flags & SN_PKT_SACKED);
	cr_assert_eq(p2->cq, CQ_NONE, "packet 2, held by its receiver, still waits to be resent");
	for (unsigned int us = t2 + 11; us <= t2 + 50; us++) {
		t_poll_at(nic, t0, us);
		t_take_qreqs(port, T_PEER, T_VNET, sent);
	}
	cr_assert_eq(sent[2], 0, "packet 2 was sent again after its receiver held it");
	cr_assert_eq(sent[1], 1, "packet 1 (resent every 10 us) did not leave");
	cr_assert_eq(seen.status[1], -1, "packet 2 completed before the base reached it");
	t_push_ack_of(port, 2, 7);
	t_poll_at(nic, t0, t2 + 50);
	cr_assert_eq(seen.status[0], SN_OK);
	cr_assert_eq(seen.status[1], SN_OK);
	cr_assert_eq(seen.completions[1], 1);
	t_check_quick_acct(nic, "acked", 0);
	t_done(nic, port, avail);
}

/* Message seq (args[1..2], cookie seq + 1) on chan from T_NODE to T_PEER; a bulk one carries T_LEN bytes. */
static void t_pair_send_seq(struct t_pair *tp, uint8_t chan, uint16_t seq)
{
	static uint8_t payload[T_MSGS][T_LEN];
	uint8_t args[PROTO_ARGS_LEN] = { 0, (uint8_t)seq, (uint8_t)(seq >> 8) };
	struct nic_msg m = {
		.vnet = T_VNET, .dst_node = T_PEER, .handler = 7, .chan = chan, .args = args,
		.cookie = (void *)(uintptr_t)(seq + 1),
	};

	if (chan == SN_CHAN_BULK) {
		for (unsigned int k = 0; k < T_LEN; k++)
			payload[seq][k] = t_byte(seq, k);
		m.payload = payload[seq];
		m.len = T_LEN;
	}
	cr_assert_eq(nic_send(tp->nic[0], &m, tp->now), 0);
}

/*
 * Go-back-N with both channels on one connection, nothing lost: T_NODE
 * sends 40 messages, a bulk one and then three quick ones, ten times over.
 * Each bulk packet waits for its grant (one a slot), and the quick packets
 * numbered after it leave at once unless the sender keeps them back: they
 * overtake it, T_PEER's order stage discards them (nothing out of order is
 * kept), and the sender goes back N, resending bulk packets that then take
 * slots of their own. Before, that took 791 slots and 210 data frames (170
 * resent, 170 discarded). Now a packet whose predecessor is on the other
 * channel leaves once everything before it is acknowledged: nothing is
 * discarded or resent, all 40 arrive in order from 40 data frames, in a
 * few slots per bulk message (31 slots). A message each way first: the ends
 * know their epoch (a FRESH packet is not taken: sent again, 41 frames).
 */
Test(nic, go_back_n_sends_quick_packets_only_after_the_bulk_packet_before_them)
{
	static struct t_seen seen[2];
	struct t_pair tp = { .now = 1000000, .slot = 1 };
	unsigned int avail = rte_mempool_avail_count(t_mp), done = 0, slots = 0;
	const struct nic_stats *st;
	uint64_t frames0;
	enum { N = 40 };

	t_pair_up(&tp, "conf4-gbn", seen);
	t_pair_exchange(&tp, seen, 1, "first");
	t_pair_run(&tp, 5);
	t_seen_clear(&seen[0]);
	t_seen_clear(&seen[1]);
	frames0 = nic_stats(tp.nic[0])->tx_frames;
	for (uint16_t i = 0; i < N; i++)
		t_pair_send_seq(&tp, i % 4 ? SN_CHAN_QUICK : SN_CHAN_BULK, i);
	for (; slots < 2000 && done < N; slots++) {
		t_pair_slot(&tp, true, false);
		for (done = 0; done < N && seen[0].status[done] >= 0; done++)
			;
	}
	st = nic_stats(tp.nic[0]);
	cr_log_info("%u slots, %llu data frames (%llu resent), %llu discarded out of order, "
		    "%llu timer expiries", slots, (unsigned long long)(st->tx_frames - frames0),
		    (unsigned long long)st->retransmissions,
		    t_stage_count(tp.nic[1], "order.discarded_out_of_order"),
		    t_stage_count(tp.nic[0], "timer.expired"));
	cr_assert_eq(done, N, "%u of %d messages completed in %u slots", done, N, slots);
	cr_assert_eq(seen[1].n_delivered, N, "delivered %u of %d", seen[1].n_delivered, N);
	for (unsigned int i = 0; i < N; i++) {
		cr_assert_eq(seen[0].status[i], SN_OK, "message %u: status %d", i, seen[0].status[i]);
		cr_assert_eq(seen[1].delivered_seq[i], i, "delivery %u was message %u", i,
			     seen[1].delivered_seq[i]);
	}
	cr_assert_eq(seen[1].bad_payload, 0);
	cr_assert_eq(t_stage_count(tp.nic[1], "order.discarded_out_of_order"), 0,
		     "T_PEER discarded %llu packets that overtook a bulk packet",
		     t_stage_count(tp.nic[1], "order.discarded_out_of_order"));
	cr_assert_eq(st->tx_frames - frames0, N, "%llu data frames for %d messages",
		     (unsigned long long)(st->tx_frames - frames0), N);
	cr_assert_leq(slots, 4 * (N / 4), "%u slots for %d bulk messages", slots, N / 4);
	t_pair_done(&tp, avail);
}

/* A NIC on port with conf and quick_bufs quick send buffers, none of them a reserve (segnet-sim's), joined at now. */
static struct nic *t_nic_quick_bufs(struct dp_port *port, const char *conf, uint16_t quick_bufs,
				    uint64_t now)
{
	struct nic_config cfg = {
		.max_nodes = 4, .bulk_bufs = 4, .bulk_per_target = 1, .quick_bufs = quick_bufs,
		.descriptors = 256, .mp = t_mp, .check_crc = true,
	};
	struct nic_ops none = { 0 };
	char err[128], spec[256];
	struct nic *nic = nic_create(&cfg, &none, port, port, err, sizeof(err));

	cr_assert_not_null(nic, "nic_create: %s", err);
	cr_assert_eq(conf_expand(conf, spec, sizeof(spec), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(nic_add_vnet(nic, T_VNET, spec, err, sizeof(err)), 0, "%s", err);
	t_push_gnt_of(port, 1, PROTO_NODE_NONE, 4, 0);
	nic_poll(nic, now);
	cr_assert(nic_is_up(nic));
	tport_clear(port);
	return nic;
}

/*
 * 4 quick send buffers and no reserve, as segnet-sim's clint preset. On
 * conf4-gbn T_NODE sends 4 quick messages to T_PEER, then one to node 3.
 * T_PEER acknowledges none (its first was lost, and a go-back-N receiver
 * discards the others until the sender goes back). Before, T_PEER's 4
 * took the 4 buffers and kept them, resent from them, and node 3's
 * message never left in 2 ms; at clint rates and load 0.2 on one virtual
 * network that held the quick buffers 45 us a message against 30 with
 * selective repeat, more than the channel had to spare. Now a go-back-N
 * connection that holds a quick buffer takes another only while no
 * packet of another connection waits for one: node 3's message leaves in
 * the first poll, and T_PEER's connection still gets the buffers left.
 */
Test(nic, a_go_back_n_connection_leaves_quick_buffers_to_others_first)
{
	unsigned int avail = rte_mempool_avail_count(t_mp), to3 = 0, to_peer;
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	struct nic *nic = t_nic_quick_bufs(port, "conf4-gbn", 4, now);

	for (int i = 0; i < 4; i++)
		t_send_quick_to(nic, T_PEER, now);
	t_send_quick_to(nic, 3, now);
	nic_poll(nic, now);
	to3 = t_take_qreqs(port, 3, T_VNET, NULL);
	cr_log_info("first poll: %u quick buffers in use, %u QREQs to node 3", nic->ch.quick_used,
		    to3);
	for (int k = 0; k < 200 && !to3; k++) {
		now += 10000;
		nic_poll(nic, now);
		to3 += t_take_qreqs(port, 3, T_VNET, NULL);
		tport_clear(port);
	}
	cr_assert_eq(to3, 1, "node 3's message did not leave (%u QREQs in 2 ms)", to3);
	to_peer = nic->ch.quick_used;
	cr_assert_eq(to_peer, 4, "the buffers left: %u in use", to_peer);
	t_done(nic, port, avail);
}

/* Push-back tests: whether T_PEER's endpoints 0 and 1 have a receive buffer. */
static bool t_ep_space[2];

/* T_PEER's owner: receive space as t_ep_space says (other endpoints: always). */
static bool t_ep_space_of(void *ctx, uint16_t vnet, uint16_t ep)
{
	(void)ctx;
	(void)vnet;
	return ep >= 2 || t_ep_space[ep];
}

enum {
	T_PB_MSGS = 40,		/* messages sent, alternating endpoints 0 and 1 */
	T_PB_STUCK_SLOTS = 3000,	/* slots (30 ms) endpoint 0 has no buffer, at most */
	T_PB_MAX_SLOTS = 3000,	/* slots for endpoint 0's to arrive once it has */
};

/*
 * Send T_PB_MSGS messages from T_NODE to endpoints 0 and 1 of T_PEER in
 * turn, two quick then two bulk: message i has cookie i + 1 and args (its
 * endpoint, its sequence number to that endpoint).
 */
static void t_pb_send(struct t_pair *tp)
{
	static uint8_t payload[T_PB_MSGS][T_LEN];
	uint16_t seq[2] = { 0, 0 };

	for (unsigned int i = 0; i < T_PB_MSGS; i++) {
		uint8_t ep = (uint8_t)(i % 2);
		uint8_t args[PROTO_ARGS_LEN] = { ep, (uint8_t)seq[ep], (uint8_t)(seq[ep] >> 8) };
		bool bulk = i % 4 >= 2;
		struct nic_msg m = {
			.vnet = T_VNET, .dst_node = T_PEER, .dst_ep = ep, .handler = 7,
			.chan = bulk ? SN_CHAN_BULK : SN_CHAN_QUICK, .args = args,
			.payload = bulk ? payload[i] : NULL, .len = bulk ? T_LEN : 0,
			.cookie = (void *)(uintptr_t)(i + 1),
		};

		for (unsigned int k = 0; k < T_LEN; k++)
			payload[i][k] = t_byte(seq[ep], k);
		cr_assert_eq(nic_send(tp->nic[0], &m, tp->now), 0, "send %u", i);
		seq[ep]++;
	}
}

/*
 * Deliveries to endpoint ep in seen: how many, checking none came twice
 * and, ordered, that they came in the order sent.
 */
static unsigned int t_pb_delivered(const struct t_seen *seen, uint8_t ep, bool ordered,
				   const char *conf)
{
	bool got[T_PB_MSGS] = { false };
	unsigned int n = 0;

	for (unsigned int i = 0; i < seen->n_delivered; i++) {
		uint16_t q = seen->delivered_seq[i];

		if (seen->delivered_ep[i] != ep)
			continue;
		cr_assert(q < T_PB_MSGS && !got[q], "%s: endpoint %u got message %u twice",
			  conf, ep, q);
		cr_assert(!ordered || q == n, "%s: endpoint %u got message %u where %u was due",
			  conf, ep, q, n);
		got[q] = true;
		n++;
	}
	return n;
}

/*
 * doc/endpoints.md, push-back: endpoint 0 of T_PEER has no receive buffer
 * (its application stopped polling) while endpoint 1 has. The messages
 * T_NODE sends to endpoint 1, on the same connection, arrive and complete;
 * those to endpoint 0 neither arrive nor complete while it has no buffer,
 * and once it has, all arrive, once each, in the order sent (ordered
 * configurations), and complete OK. Before, the refused packet kept its
 * number, genp numbered nothing past its window of 32, and the ordered
 * receivers delivered nothing after the refused packet: endpoint 1 got 0
 * of its 20 messages in 30 ms on conf4-sr and conf4-gbn, and 8 on conf3. Now conf4-sr: 22 slots of 10 us (the
 * same 40 messages with both endpoints willing: 41); conf4-gbn, whose
 * receiver discards every packet after the refused one until the markers
 * come and the sender goes back: 147 (51 with both willing).
 */
Test(nic, a_stuck_endpoint_does_not_stall_the_other_endpoints_of_its_node)
{
	static const char *confs[] = { "conf4-sr", "conf4-gbn", "conf3" };

	for (unsigned int c = 0; c < sizeof(confs) / sizeof(confs[0]); c++) {
		bool ordered = strncmp(confs[c], "conf4", 5) == 0;
		unsigned int slots = 0;
		struct t_seen *seen;
		struct t_pair tp;

		t_ep_space[0] = false;
		t_ep_space[1] = true;
		seen = t_pair_open_on(&tp, confs[c], t_ep_space_of);
		t_pb_send(&tp);
		while (t_pb_delivered(&seen[1], 1, ordered, confs[c]) < T_PB_MSGS / 2 ||
		       seen[0].status[T_PB_MSGS - 1] != SN_OK) {
			cr_assert_lt(slots++, T_PB_STUCK_SLOTS,
				     "%s: endpoint 1 got %u of its %u messages while endpoint 0 was stuck",
				     confs[c], t_pb_delivered(&seen[1], 1, ordered, confs[c]),
				     T_PB_MSGS / 2);
			t_pair_slot(&tp, true, false);
		}
		cr_log_info("%s: endpoint 1's messages arrived in %u slots", confs[c], slots);
		cr_assert_eq(t_pb_delivered(&seen[1], 0, ordered, confs[c]), 0);
		for (unsigned int i = 0; i < T_PB_MSGS; i++)
			cr_assert_eq(seen[0].status[i], i % 2 ? SN_OK : -1,
				     "%s: message %u (to endpoint %u) completed %d", confs[c], i,
				     i % 2, seen[0].status[i]);

		t_ep_space[0] = true;
		slots = 0;
		while (t_pb_delivered(&seen[1], 0, ordered, confs[c]) < T_PB_MSGS / 2 ||
		       nic_pending(tp.nic[0])) {
			cr_assert_lt(slots++, T_PB_MAX_SLOTS,
				     "%s: endpoint 0 got %u of its %u messages, %u pending",
				     confs[c], t_pb_delivered(&seen[1], 0, ordered, confs[c]),
				     T_PB_MSGS / 2, nic_pending(tp.nic[0]));
			t_pair_slot(&tp, true, false);
		}
		cr_log_info("%s: endpoint 0's messages arrived %u slots after it had buffers",
			    confs[c], slots);
		cr_assert_eq(seen[1].n_delivered, T_PB_MSGS, "%s: %u deliveries", confs[c],
			     seen[1].n_delivered);
		cr_assert_eq(seen[1].bad_payload, 0);
		for (unsigned int i = 0; i < T_PB_MSGS; i++)
			cr_assert(seen[0].status[i] == SN_OK && seen[0].completions[i] == 1,
				  "%s: message %u completed %u times, status %d", confs[c], i,
				  seen[0].completions[i], seen[0].status[i]);
		t_pair_free(&tp);
	}
}

/*
 * conf4-gbn: endpoint 0 of T_PEER refuses T_NODE's first message, and the
 * receiver discards the second (to endpoint 1), sent behind it. The REFUSED
 * answer makes the first a marker and sends the second again at once
 * (refuse.c): no timeout, so genp counts it in refusal_retx, not
 * timeout_retx (a timeout of 10 ms, far beyond the run). Before, the
 * resend was raised as STAGE_EV_TIMEOUT: timeout_retx 1, as if lost.
 */
Test(nic, a_go_back_at_a_refusal_is_no_timeout)
{
	static const char conf[] = "conf4-gbn,timer:timeout_ns=10000000:adaptive=off";
	unsigned int slots = 0;
	struct t_seen *seen;
	struct t_pair tp;

	t_ep_space[0] = false;
	t_ep_space[1] = true;
	seen = t_pair_open_on(&tp, conf, t_ep_space_of);
	for (uint8_t ep = 0; ep < 2; ep++) {
		uint8_t args[PROTO_ARGS_LEN] = { ep };
		struct nic_msg m = {
			.vnet = T_VNET, .dst_node = T_PEER, .dst_ep = ep, .handler = 7,
			.chan = SN_CHAN_QUICK, .args = args, .cookie = (void *)(uintptr_t)(ep + 1),
		};

		cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
	}
	while (seen[0].status[1] != SN_OK) {
		cr_assert_lt(slots++, 100, "message 2 completed %d", seen[0].status[1]);
		t_pair_slot(&tp, true, false);
	}
	cr_assert_eq(seen[0].status[0], -1, "message 1 completed %d", seen[0].status[0]);
	cr_assert_geq(nic_stats(tp.nic[1])->ep_refusals_sent, 1);
	cr_assert_eq(t_stage_count(tp.nic[0], "genp.timeout_retx "), 0, "timeout_retx %llu",
		     t_stage_count(tp.nic[0], "genp.timeout_retx "));
	cr_assert_eq(t_stage_count(tp.nic[0], "genp.refusal_retx "), 1);
	t_pair_free(&tp);
}

/*
 * A connection restart (here at a notice that its peer is down) ends the
 * blocks it had, and their count with them (t_pair_slot checks the count
 * against the entries at every slot): a count left over would not refuse
 * anything, but nic_rx_admit would scan the entries at every data frame.
 */
Test(nic, a_connection_restart_ends_its_receive_blocks)
{
	struct pipeline *pl;
	struct t_pair tp;
	unsigned int slots = 0;

	t_ep_space[0] = false;
	t_ep_space[1] = true;
	t_pair_open_on(&tp, "conf4-sr", t_ep_space_of);
	pl = nic_pipeline(tp.nic[1], T_VNET);
	t_pb_send(&tp);
	while (!pl->conns[T_NODE] || !pl->conns[T_NODE]->rx_blocks_used) {
		cr_assert_lt(slots++, T_PB_STUCK_SLOTS, "endpoint 0 was never blocked");
		t_pair_slot(&tp, true, false);
	}
	t_push_down(tp.port[1], T_PEER, T_NODE);
	t_pair_slot(&tp, false, false);
	cr_assert_eq(pl->conns[T_NODE]->rx_blocks_used, 0);
	t_pair_free(&tp);
}

/*
 * doc/protocol.md, per-endpoint push-back: a receiver that never polls
 * again. Its endpoint refuses the message every time it comes, under a
 * new number each time, and the message fails with SN_ERR_RETRIES once it
 * was sent max_retx times in all (T_PB_RETX here), as a packet refused
 * with its number kept did; the other endpoint's message, sent after it,
 * arrives meanwhile. T_PB_PATIENCE_NS: with the defaults (max_retx 1000),
 * how long the sender waits (the hold backs off to timer's timeout_ns,
 * 1 ms; the same as a refused packet's retransmissions did).
 */
Test(nic, a_message_to_an_endpoint_that_never_polls_fails_after_max_retx)
{
	static const struct { const char *conf; unsigned int retx; } cases[] = {
		{ "conf4-sr,genp:max_retx=20", 20 }, { "conf4-sr", 1000 },
	};

	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct t_pair tp;
		struct t_seen *seen;
		uint64_t start;

		t_ep_space[0] = false;
		t_ep_space[1] = true;
		seen = t_pair_open_on(&tp, cases[c].conf, t_ep_space_of);
		start = tp.now;
		for (uint8_t ep = 0; ep < 2; ep++) {
			uint8_t args[PROTO_ARGS_LEN] = { ep };
			struct nic_msg m = {
				.vnet = T_VNET, .dst_node = T_PEER, .dst_ep = ep, .handler = 7,
				.chan = SN_CHAN_QUICK, .args = args,
				.cookie = (void *)(uintptr_t)(ep + 1),
			};

			cr_assert_eq(nic_send(tp.nic[0], &m, tp.now), 0);
		}
		while (seen[0].status[0] < 0) {
			cr_assert_lt(tp.now - start, 5000000000ull, "%s: still pending after 5 s",
				     cases[c].conf);
			t_pair_slot(&tp, true, false);
		}
		cr_log_info("%s: failed after %.3f s, %llu refusals", cases[c].conf,
			    (double)(tp.now - start) / 1e9,
			    (unsigned long long)nic_stats(tp.nic[1])->ep_refusals_sent);
		cr_assert_eq(seen[0].status[0], SN_ERR_RETRIES);
		cr_assert_eq(seen[0].status[1], SN_OK);
		cr_assert_eq(seen[1].n_delivered, 1);
		cr_assert_eq(seen[1].delivered_ep[0], 1);
		cr_assert_geq(nic_stats(tp.nic[1])->ep_refusals_sent, cases[c].retx / 2);
		cr_assert_leq(nic_stats(tp.nic[1])->ep_refusals_sent, cases[c].retx);
		t_pair_free(&tp);
	}
}

/* Descriptor recycling: what two runs of one scenario sent, delivered and completed. */
enum {
	T_RC_FRAMES = 4096,	/* frames of one side recorded, at most */
	T_RC_WAVE1 = 40,	/* T_NODE's messages at the start ... */
	T_RC_WAVE2 = 20,	/* ... and once endpoint 0 has buffers again */
	T_RC_BACK = 8,		/* T_PEER's quick messages to T_NODE */
	T_RC_STUCK = 50,	/* slots endpoint 0 of T_PEER has no buffer */
	T_RC_SLOTS = 800,	/* slots of a run */
};

/* One run: a hash of every frame each side sent, and of the owners' calls. */
struct t_rc_run {
	uint64_t frame[2][T_RC_FRAMES];	/* side k's frames, in order */
	unsigned int n_frames[2];	/* how many */
	uint64_t calls;			/* the deliveries and completions, in order */
	unsigned int delivered;		/* deliveries */
	unsigned int completed_ok;	/* completions with SN_OK */
	unsigned int completed;		/* all completions */
};

/* FNV-1a of n bytes at b, going on from h. */
static uint64_t t_rc_hash(uint64_t h, const void *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const uint8_t *)b)[i]) * 0x100000001b3ull;
	return h;
}

/* Add value v to the hash of run r's owner calls. */
static void t_rc_add(struct t_rc_run *r, uint64_t v)
{
	r->calls = t_rc_hash(r->calls, &v, sizeof(v));
}

/* A packet's header fields as its owner sees them (pointers aside). */
static void t_rc_add_hdr(struct t_rc_run *r, const struct proto_pkt *h)
{
	uint64_t f[] = { h->type, h->flags, h->src_node, h->dst_node, h->vnet, h->src_ep,
			 h->dst_ep, h->handler, h->pkt_num, h->payload_len, h->epoch, h->slot };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		t_rc_add(r, f[i]);
	t_rc_add(r, h->args != NULL);
	if (h->args)
		r->calls = t_rc_hash(r->calls, h->args, PROTO_ARGS_LEN);
	if (h->payload)
		r->calls = t_rc_hash(r->calls, h->payload, h->payload_len);
}

/* Owner: a delivery, all that it carries. */
static void t_rc_deliver(void *ctx, const struct sn_pkt *pkt, uint64_t now)
{
	struct t_rc_run *r = ctx;

	r->delivered++;
	t_rc_add(r, 1);
	t_rc_add(r, now);
	t_rc_add_hdr(r, &pkt->h);
	t_rc_add(r, pkt->flags);
	t_rc_add(r, pkt->chan);
}

/* Owner: a completion, with the transmit state of its packet. */
static void t_rc_complete(void *ctx, const struct sn_pkt *pkt, int status, uint64_t now)
{
	struct t_rc_run *r = ctx;
	uint64_t f[] = { (uintptr_t)pkt->cookie, (uint64_t)status, now, pkt->t_gen,
			 pkt->t_first_tx, pkt->t_tx, pkt->slot, pkt->tx_count, pkt->tries,
			 pkt->untaken, pkt->flags, pkt->chan };

	r->completed++;
	r->completed_ok += status == SN_OK;
	t_rc_add(r, 2);
	t_rc_add_hdr(r, &pkt->h);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		t_rc_add(r, f[i]);
}

/*
 * Fill every free descriptor of nic with 0xa5, but for its free-list link
 * and its frame, which a free descriptor never has (nic_desc_alloc counts
 * on it).
 */
static void t_rc_poison(struct nic *nic)
{
	for (struct sn_pkt *p = nic->free_descs, *next; p; p = next) {
		next = p->next;
		cr_assert_null(p->m, "a free descriptor holds a frame");
		memset(p, 0xa5, sizeof(*p));
		p->next = next;
		p->m = NULL;
	}
}

/* Record the frames side k of tp sent in r. */
static void t_rc_record(struct t_pair *tp, int k, struct t_rc_run *r)
{
	for (unsigned int i = 0; i < tport_sent(tp->port[k]); i++) {
		struct rte_mbuf *m = tport_frame(tp->port[k], i);

		cr_assert_lt(r->n_frames[k], T_RC_FRAMES);
		r->frame[k][r->n_frames[k]++] =
			t_rc_hash(0xcbf29ce484222325ull, rte_pktmbuf_mtod(m, const void *),
				  m->data_len);
	}
}

/* t_pair_slot, recording in r, the free descriptors poisoned before every poll. */
static void t_rc_slot(struct t_pair *tp, struct t_rc_run *r, bool poison)
{
	t_push_gnt_to(tp->port[0], T_NODE, tp->slot, T_PEER, 4, 0);
	t_push_gnt_to(tp->port[1], T_PEER, tp->slot, PROTO_NODE_NONE, 4, 0);
	tp->slot++;
	for (int round = 0; round < 2; round++) {
		for (int k = 0; k < 2; k++) {
			if (poison)
				t_rc_poison(tp->nic[k]);
			nic_poll(tp->nic[k], tp->now);
		}
		for (int k = 0; k < 2; k++)
			t_rc_record(tp, k, r);
		t_carry(tp->port[0], tp->port[1], T_PEER, false);
		t_carry(tp->port[1], tp->port[0], T_NODE, false);
	}
	t_check_counts(tp->nic[0], "slot", tp->slot);
	t_check_counts(tp->nic[1], "slot", tp->slot);
	tp->now += T_SLOT_NS;
}

/*
 * n messages from T_NODE to T_PEER, numbered from first (cookie first + 1):
 * by turns quick and bulk, with arguments and without (NULL: zeros), to
 * endpoint 0 or 1 four at a time.
 */
static void t_rc_send(struct t_pair *tp, unsigned int first, unsigned int n, bool poison)
{
	static uint8_t payload[T_RC_WAVE1 + T_RC_WAVE2][T_LEN];

	if (poison)
		t_rc_poison(tp->nic[0]);
	for (unsigned int i = first; i < first + n; i++) {
		uint8_t args[PROTO_ARGS_LEN] = { (uint8_t)i, 0x3c, [PROTO_ARGS_LEN - 1] = 0x5a };
		bool bulk = i % 4 >= 2;
		struct nic_msg m = {
			.vnet = T_VNET, .dst_node = T_PEER, .dst_ep = (uint16_t)(i / 4 % 2),
			.handler = 7, .chan = bulk ? SN_CHAN_BULK : SN_CHAN_QUICK,
			.args = i % 2 ? NULL : args, .payload = bulk ? payload[i] : NULL,
			.len = bulk ? T_LEN : 0, .cookie = (void *)(uintptr_t)(i + 1),
		};

		for (unsigned int k = 0; k < T_LEN; k++)
			payload[i][k] = t_byte((uint16_t)i, k);
		cr_assert_eq(nic_send(tp->nic[0], &m, tp->now), 0, "send %u", i);
	}
}

/*
 * One run on conf: T_NODE sends wave 1 while endpoint 0 of T_PEER has no
 * buffer (refused: copies of its messages go out under new numbers), T_PEER
 * sends T_NODE quick messages (acks ride on them, or go alone), then
 * endpoint 0 has buffers and T_NODE sends wave 2. Poisoned, every free
 * descriptor is filled with 0xa5 before every poll and send.
 */
static void t_rc_run(const char *conf, bool poison, struct t_rc_run *r,
		     struct nic_stats st[2], char *counters[2])
{
	struct t_pair tp;

	memset(r, 0, sizeof(*r));
	t_ep_space[0] = false;
	t_ep_space[1] = true;
	t_pair_open_on(&tp, conf, t_ep_space_of);
	for (int k = 0; k < 2; k++) {
		tp.nic[k]->ops.ctx = r;
		tp.nic[k]->ops.deliver = t_rc_deliver;
		tp.nic[k]->ops.complete = t_rc_complete;
	}
	t_rc_send(&tp, 0, T_RC_WAVE1, poison);
	if (poison)
		t_rc_poison(tp.nic[1]);
	for (unsigned int i = 0; i < T_RC_BACK; i++) {
		struct nic_msg m = {
			.vnet = T_VNET, .dst_node = T_NODE, .handler = 9, .chan = SN_CHAN_QUICK,
			.cookie = (void *)(uintptr_t)(1000 + i),
		};

		cr_assert_eq(nic_send(tp.nic[1], &m, tp.now), 0);
	}
	for (unsigned int s = 0; s < T_RC_SLOTS; s++) {
		if (s == T_RC_STUCK) {
			t_ep_space[0] = true;
			t_rc_send(&tp, T_RC_WAVE1, T_RC_WAVE2, poison);
		}
		t_rc_slot(&tp, r, poison);
	}
	for (int k = 0; k < 2; k++) {
		FILE *f = open_memstream(&counters[k], &(size_t){ 0 });

		cr_assert_not_null(f);
		pipeline_print_counters(nic_pipeline(tp.nic[k], T_VNET), "n", f);
		fclose(f);
		st[k] = *nic_stats(tp.nic[k]);
	}
	t_pair_free(&tp);
}

/*
 * Descriptors are recycled without being cleared whole (nic_desc_alloc):
 * the header comes from whoever makes the packet, the state is cleared,
 * and args[] is filled where it is used. Nothing of a descriptor's last
 * packet may show: a run whose free descriptors are all filled with 0xa5
 * before every poll and send puts the same bytes on the wire, delivers and
 * completes the same, and counts the same as one on descriptors never used
 * (calloc'd). The run takes descriptors by every path: sends (with and
 * without arguments, quick and bulk), data and acks received, standalone
 * acks, and the copies of refused messages.
 */
Test(nic, a_recycled_descriptor_carries_nothing_of_its_last_packet)
{
	static const char *confs[] = { "conf4-sr", "conf4-gbn", "conf3" };
	static struct t_rc_run run[2];

	for (unsigned int c = 0; c < sizeof(confs) / sizeof(confs[0]); c++) {
		struct nic_stats st[2][2];
		char *counters[2][2];

		for (int p = 0; p < 2; p++)
			t_rc_run(confs[c], p, &run[p], st[p], counters[p]);
		/* The clean run did what the test is for. */
		cr_assert_eq(run[0].completed_ok, T_RC_WAVE1 + T_RC_WAVE2 + T_RC_BACK,
			     "%s: %u of the messages completed", confs[c], run[0].completed_ok);
		cr_assert_eq(run[0].delivered, T_RC_WAVE1 + T_RC_WAVE2 + T_RC_BACK);
		cr_assert_gt(st[0][0].requeued, 0, "%s: no refused message was copied", confs[c]);
		cr_assert_gt(st[0][1].qack_sent, 0, "%s: no standalone ack", confs[c]);
		cr_assert_gt(st[0][0].rx_acks, 0, "%s: no ack received", confs[c]);
		for (int k = 0; k < 2; k++) {
			cr_assert_eq(run[1].n_frames[k], run[0].n_frames[k],
				     "%s: side %d sent %u frames poisoned, %u clean", confs[c], k,
				     run[1].n_frames[k], run[0].n_frames[k]);
			for (unsigned int i = 0; i < run[0].n_frames[k]; i++)
				cr_assert_eq(run[1].frame[k][i], run[0].frame[k][i],
					     "%s: side %d's frame %u of %u differs poisoned",
					     confs[c], k, i, run[0].n_frames[k]);
			cr_assert(!memcmp(&st[1][k], &st[0][k], sizeof(st[0][k])),
				  "%s: side %d's NIC counters differ poisoned", confs[c], k);
			cr_assert_str_eq(counters[1][k], counters[0][k], "%s: side %d's stage counters",
					 confs[c], k);
		}
		cr_assert_eq(run[1].completed, run[0].completed, "%s: completions", confs[c]);
		cr_assert_eq(run[1].delivered, run[0].delivered, "%s: deliveries", confs[c]);
		cr_assert_eq(run[1].calls, run[0].calls,
			     "%s: what the owners were given differs poisoned", confs[c]);
		cr_log_info("%s: %u and %u frames, %u deliveries, %u completions alike", confs[c],
			    run[0].n_frames[0], run[0].n_frames[1], run[0].delivered,
			    run[0].completed);
		for (int p = 0; p < 2; p++)
			for (int k = 0; k < 2; k++)
				free(counters[p][k]);
	}
}
