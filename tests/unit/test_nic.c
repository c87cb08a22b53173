/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NIC on an array port: what it sends on its quick port, and in which
 * order. A NIC keeps QREQs in its quick send buffers while the quick link
 * has a backlog, so a BACK it owes goes out before them instead of waiting
 * behind them in the link's FIFO (and missing the sender's deadline).
 */
#include "test_dp_util.h"

#include "nicd/nic.h"

enum {
	T_NODE = 1,		/* the NIC's node id */
	T_PEER = 2,		/* the node it talks to */
	T_VNET = 1,		/* its virtual network */
	T_QREQS = 8,		/* quick messages sent at once */
	T_SLOT_NS = 10000,	/* slot length in the grant */
};

static struct rte_mempool *t_mp;

static void t_setup(void)
{
	tdp_eal_init();
	if (!t_mp)
		t_mp = tdp_pool("test_nic", 1024);
}

TestSuite(nic, .init = t_setup);

/* A NIC on port (bulk and quick), joined as node T_NODE at time now. */
static struct nic *t_nic(struct dp_port *port, uint64_t now)
{
	struct nic_config cfg = {
		.max_nodes = 4, .bulk_bufs = 4, .bulk_per_target = 1,
		.quick_bufs = 16, .descriptors = 256, .mp = t_mp, .check_crc = true,
	};
	struct nic_ops ops = { 0 };
	struct proto_pkt g = {
		.type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH, .dst_node = T_NODE,
		.gnt = {
			.slot = 1, .target = PROTO_NODE_NONE, .node_id = T_NODE,
			.n_nodes = 4, .slot_ns = T_SLOT_NS, .back_slots = 2,
			.slot_frames = 1,
		},
	};
	char err[128];
	struct nic *nic = nic_create(&cfg, &ops, port, port, err, sizeof(err));

	cr_assert_not_null(nic, "nic_create: %s", err);
	cr_assert_eq(nic_add_vnet(nic, T_VNET, "", err, sizeof(err)), 0, "%s", err);
	tport_push(port, tdp_encode(t_mp, &g));
	nic_poll(nic, now);
	cr_assert_eq(nic_node_id(nic), T_NODE);
	tport_clear(port);
	return nic;
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
		nic_destroy(nic);
		dp_port_destroy(port);
		cr_assert_eq(rte_mempool_avail_count(t_mp), avail, "frames leaked: %d",
			     (int)(avail - rte_mempool_avail_count(t_mp)));
	}
}

/* A port that does not know its rate: QREQs leave at once, as before. */
Test(nic, unknown_rate_sends_at_once)
{
	unsigned int avail = rte_mempool_avail_count(t_mp);
	struct dp_port *port = tport_create("nic", 256);
	uint64_t now = 1000000;
	unsigned int before;
	struct nic *nic;

	nic = t_nic(port, now);
	t_send_quick(nic, now);
	nic_poll(nic, now);
	cr_assert_eq(t_count(port, PROTO_T_QREQ, &before), T_QREQS);
	cr_assert_eq(nic_stats(nic)->qreq_deferred, 0);
	nic_destroy(nic);
	dp_port_destroy(port);
	cr_assert_eq(rte_mempool_avail_count(t_mp), avail, "frames leaked: %d",
		     (int)(avail - rte_mempool_avail_count(t_mp)));
}
