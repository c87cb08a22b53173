/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch fabric on array ports (tests/unit/test_dp_util.h): the test
 * decides exactly which frames one poll reads and sees every frame sent.
 * Joining, the enforced bulk schedule, enable vectors under every arbiter,
 * the inverted schedule of BACKs, first-come and round-robin quick
 * arbitration, forged and unjoined sources, and down nodes. Scripted, no
 * randomness (the arbiters' seed is fixed).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "switchd/arb.h"
#include "switchd/fabric.h"
#include "test_dp_util.h"

enum {
	T_N = 4,		/* nodes */
	T_SLOT = 100000,	/* slot length, ns */
	T_POOL = 4095,		/* frames in the pool */
	T_PORT_CAP = 1024,	/* frames an array port holds each way */
};

/* The pool every test uses (made by the suite's init). */
static struct rte_mempool *t_mp;

/* EAL and a pool in this test's process. */
static void t_setup(void)
{
	tdp_eal_init();
	t_mp = tdp_pool("t_fabric", T_POOL);
}

TestSuite(fabric, .init = t_setup);

/* A switch on T_N array ports (one port per node) and its clock. */
struct t_sw {
	struct sw_fabric *sw;			/* the fabric under test */
	struct dp_port *port[T_N];		/* node i's port */
	unsigned int avail;			/* pool frames before it was built */
};

/* Build a switch from cfg on T_N test ports. */
static struct t_sw *t_sw_new_cfg(const struct sw_config *cfg)
{
	struct t_sw *t = calloc(1, sizeof(*t));
	char err[256] = "", name[16];

	cr_assert_not_null(t);
	t->avail = rte_mempool_avail_count(t_mp);
	for (int i = 0; i < T_N; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		t->port[i] = tport_create(name, T_PORT_CAP);
	}
	t->sw = sw_fabric_create(cfg, t->port, t->port, err, sizeof(err));
	cr_assert_not_null(t->sw, "sw_fabric_create(%s): %s", cfg->arbiter, err);
	return t;
}

/*
 * Build a switch with arbiter spec, quick mode, down_slots and GNT keepalive
 * (1: every node gets a GNT every slot, which most tests look at).
 */
static struct t_sw *t_sw_new_ka(const char *arbiter, enum sw_quick_mode mode,
				uint32_t down_slots, uint32_t keepalive)
{
	struct sw_config cfg = {
		.n_nodes = T_N, .arbiter = arbiter, .quick_mode = mode,
		.bulk_gbps = 10, .quick_gbps = 10, .slot_frames = 1,
		.slot_ns = T_SLOT, .down_slots = down_slots, .seed = 1,
		.mp = t_mp, .check_crc = true, .gnt_keepalive = keepalive,
	};

	return t_sw_new_cfg(&cfg);
}

/* A switch whose nodes get a GNT every slot. */
static struct t_sw *t_sw_new(const char *arbiter, enum sw_quick_mode mode,
			     uint32_t down_slots)
{
	return t_sw_new_ka(arbiter, mode, down_slots, 1);
}

/* A switch with arbiter that sleeps through idle boundaries (idle_skip, GNT keepalive 8). */
static struct t_sw *t_sw_idle(const char *arbiter)
{
	struct sw_config cfg = {
		.n_nodes = T_N, .arbiter = arbiter, .quick_mode = SW_QUICK_DROP,
		.bulk_gbps = 10, .quick_gbps = 10, .slot_frames = 1,
		.slot_ns = T_SLOT, .seed = 1, .mp = t_mp, .check_crc = true,
		.gnt_keepalive = 8, .idle_skip = true,
	};

	return t_sw_new_cfg(&cfg);
}

/* Free the switch and its ports; no frame may be missing from the pool. */
static void t_sw_free(struct t_sw *t)
{
	sw_fabric_destroy(t->sw);
	for (int i = 0; i < T_N; i++)
		dp_port_destroy(t->port[i]);
	cr_assert_eq(rte_mempool_avail_count(t_mp), t->avail, "frames leaked: %d",
		     (int)t->avail - (int)rte_mempool_avail_count(t_mp));
	free(t);
}

/* Queue p (MACs filled in) on the port of node `on`. */
static void t_push(struct t_sw *t, int on, struct proto_pkt p)
{
	proto_node_mac(p.src_node, p.eth_src);
	proto_node_mac(p.dst_node, p.eth_dst);
	tport_push(t->port[on], tdp_encode(t_mp, &p));
}

/* The boot nonce of node i's process in t_hello. */
#define T_BOOT(i) ((uint16_t)(0xB000 + (i)))

/* HELLO from node i (its process T_BOOT(i), join 7), with src_node set to src (i or PROTO_NODE_NONE). */
static void t_hello(struct t_sw *t, int i, uint16_t src)
{
	t_push(t, i, (struct proto_pkt) {
		.type = PROTO_T_HELLO, .src_node = src, .dst_node = PROTO_NODE_SWITCH,
		.hello_nonce = proto_hello_nonce(T_BOOT(i), 7),
	});
}

/* HELLO from node i carrying incarnation nonce. */
static void t_hello_nonce(struct t_sw *t, int i, uint32_t nonce)
{
	t_push(t, i, (struct proto_pkt) {
		.type = PROTO_T_HELLO, .src_node = PROTO_NODE_NONE,
		.dst_node = PROTO_NODE_SWITCH, .hello_nonce = nonce,
	});
}

/* CFG from node i: targets in `req` (bit t), enable vectors as bit masks. */
static void t_cfg(struct t_sw *t, int i, unsigned int req, uint8_t bulk_en,
		  uint8_t quick_en)
{
	uint8_t counts[T_N] = { 0 };

	for (int k = 0; k < T_N; k++)
		counts[k] = (req >> k) & 1;
	t_push(t, i, (struct proto_pkt) {
		.type = PROTO_T_CFG, .src_node = (uint16_t)i, .dst_node = PROTO_NODE_SWITCH,
		.cfg = { .n_nodes = T_N, .counts = counts, .bulk_en = &bulk_en,
			 .quick_en = &quick_en },
	});
}

/* Every node of t joins at time 0 and enables every initiator. */
static struct t_sw *t_join_all(struct t_sw *t)
{
	for (int i = 0; i < T_N; i++)
		t_hello(t, i, PROTO_NODE_NONE);
	sw_fabric_poll(t->sw, 0);
	for (int i = 0; i < T_N; i++)
		t_cfg(t, i, 0, 0xF, 0xF);
	sw_fabric_poll(t->sw, 10);
	for (int i = 0; i < T_N; i++)
		tport_clear(t->port[i]);
	return t;
}

/* A switch with arbiter and quick mode whose nodes have all joined. */
static struct t_sw *t_sw_joined(const char *arbiter, enum sw_quick_mode mode,
				uint32_t down_slots)
{
	return t_join_all(t_sw_new(arbiter, mode, down_slots));
}

/* A data frame of type type from src to dst (BREQ: with slot). */
static void t_data(struct t_sw *t, uint8_t type, int src, int dst, uint32_t slot)
{
	static const uint8_t args[PROTO_ARGS_LEN] = { 1, 2, 3 };
	static const uint8_t payload[16] = { 9 };
	struct proto_pkt p = {
		.type = type, .flags = PROTO_F_DATA, .src_node = (uint16_t)src,
		.dst_node = (uint16_t)dst, .vnet = 1, .pkt_num = 5, .args = args,
	};

	if (type == PROTO_T_BREQ) {
		p.slot = slot;
		p.payload = payload;
		p.payload_len = sizeof(payload);
	}
	t_push(t, src, p);
}

/* An acknowledgment of type type (BACK or QACK) from src to dst. */
static void t_ack(struct t_sw *t, uint8_t type, int src, int dst, uint32_t slot)
{
	t_push(t, src, (struct proto_pkt) {
		.type = type, .flags = PROTO_F_ACK, .src_node = (uint16_t)src,
		.dst_node = (uint16_t)dst, .vnet = 1, .ack_base = 5, .slot = slot,
	});
}

/* Frames of type type sent to node i (any type when type is 0). */
static unsigned int t_count(struct t_sw *t, int i, uint8_t type)
{
	unsigned int c = 0;

	for (unsigned int k = 0; k < tport_sent(t->port[i]); k++) {
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(tport_frame(t->port[i], k), &p), PROTO_R_OK,
			     "the switch sent node %d an invalid frame", i);
		c += !type || p.type == type;
	}
	return c;
}

/* The k-th frame sent to node i, decoded. */
static struct proto_pkt t_sent(struct t_sw *t, int i, unsigned int k)
{
	struct proto_pkt p;

	cr_assert_lt(k, tport_sent(t->port[i]), "node %d got %u frames", i,
		     tport_sent(t->port[i]));
	cr_assert_eq(tdp_decode(tport_frame(t->port[i], k), &p), PROTO_R_OK);
	return p;
}

/* The GNT sent to node i in the frames it has now (or fail). */
static struct proto_gnt t_gnt(struct t_sw *t, int i)
{
	for (unsigned int k = 0; k < tport_sent(t->port[i]); k++) {
		struct proto_pkt p = t_sent(t, i, k);

		if (p.type == PROTO_T_GNT)
			return p.gnt;
	}
	cr_assert_fail("no GNT for node %d", i);
	return (struct proto_gnt) { 0 };
}

/* Forget what every port has sent. */
static void t_clear(struct t_sw *t)
{
	for (int i = 0; i < T_N; i++)
		tport_clear(t->port[i]);
}

/* Counters of the switch. */
static const struct sw_stats *t_st(struct t_sw *t)
{
	return sw_fabric_stats(t->sw);
}

/* ---- joining ------------------------------------------------------------ */

Test(fabric, nodes_join_with_hello_and_get_grants_carrying_their_id)
{
	struct t_sw *t = t_sw_new("lcf", SW_QUICK_DROP, 0);
	struct sw_node_info info;

	/* Nodes 0..2 say HELLO (node 2 with its id already); 3 stays silent. */
	t_hello(t, 0, PROTO_NODE_NONE);
	t_hello(t, 1, PROTO_NODE_NONE);
	t_hello(t, 2, 2);
	cr_assert_eq(sw_fabric_poll(t->sw, 0), T_SLOT, "next poll at the next slot");
	cr_assert_eq(t_st(t)->joins, 3);
	for (int i = 0; i < 3; i++) {
		struct proto_gnt g = t_gnt(t, i);

		cr_assert_eq(t_count(t, i, 0), 1, "node %d: one frame, its GNT", i);
		cr_assert_eq(g.node_id, i, "node %d's GNT names node %u", i, g.node_id);
		cr_assert_eq(t_sent(t, i, 0).dst_node, i);
		cr_assert_eq(g.slot, 1);
		cr_assert_eq(g.target, PROTO_NODE_NONE);
		cr_assert_eq(g.n_nodes, T_N);
		cr_assert_eq(g.slot_ns, T_SLOT);
		cr_assert_eq(g.slot_frames, 1);
		cr_assert_eq(g.gflags, PROTO_GNT_F_JOINED, "the first GNT announces the join");
		sw_fabric_node_info(t->sw, (uint16_t)i, &info);
		cr_assert(info.joined && info.up);
	}
	cr_assert_eq(t_count(t, 3, 0), 0, "node 3 has not joined: no GNT");
	sw_fabric_node_info(t->sw, 3, &info);
	cr_assert_not(info.joined);
	t_clear(t);
	/* Next slot: a GNT for slot 2, without the join flag. */
	sw_fabric_poll(t->sw, T_SLOT);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(t_gnt(t, i).slot, 2);
		cr_assert_eq(t_gnt(t, i).gflags, 0);
	}
	cr_assert_eq(t_st(t)->gnt_sent, 6);
	/* A HELLO claiming another node's id is forged. */
	t_hello(t, 3, 1);
	sw_fabric_poll(t->sw, T_SLOT + 10);
	cr_assert_eq(t_st(t)->forged_src, 1);
	cr_assert_eq(t_st(t)->joins, 3);
	t_sw_free(t);
}

/* With the default keepalive, only granted nodes get a GNT every slot. */
Test(fabric, grants_go_to_granted_nodes_and_keepalives_to_the_rest)
{
	struct t_sw *t = t_sw_new_ka("lcf", SW_QUICK_DROP, 0, 8);
	unsigned int gnts[T_N] = { 0 };

	for (int i = 0; i < T_N; i++)
		t_hello(t, i, PROTO_NODE_NONE);
	sw_fabric_poll(t->sw, 0);		/* everyone's join GNT */
	for (int i = 1; i < T_N; i++)
		t_cfg(t, i, 0, 0xF, 0xF);	/* accept everyone, request nothing */
	t_clear(t);
	for (int s = 1; s <= 16; s++) {
		t_cfg(t, 0, 1u << 1, 0xF, 0xF);	/* node 0 always wants node 1 */
		sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
		for (int i = 0; i < T_N; i++)
			for (unsigned int k = 0; k < tport_sent(t->port[i]); k++)
				gnts[i] += t_sent(t, i, k).type == PROTO_T_GNT;
		t_clear(t);
	}
	cr_assert_eq(gnts[0], 16, "the granted node hears every slot, got %u", gnts[0]);
	for (int i = 1; i < T_N; i++)
		cr_assert_eq(gnts[i], 2, "node %d: a keepalive every 8 slots, got %u",
			     i, gnts[i]);
	t_sw_free(t);
}

/*
 * sw_fabric_create takes its configuration from any caller (switchd,
 * segnet-sim, the benchmarks, the fuzz harness), not only from checked
 * options: a rate outside the options' range (zero, negative, NaN, so small
 * that a frame's wire time overflows, above 1000 Gbit/s) is refused with a
 * message, rather than turned into an infinite or wrapped wire time.
 */
Test(fabric, a_link_rate_outside_the_options_range_is_refused)
{
	static const double bad[] = { 0, -10, NAN, 1e-12, 1001 };
	struct dp_port *none[T_N] = { NULL };
	char err[256];

	for (size_t i = 0; i < 2 * RTE_DIM(bad); i++) {
		struct sw_config cfg = {
			.n_nodes = T_N, .arbiter = "lcf", .bulk_gbps = 10, .quick_gbps = 10,
			.slot_frames = 1, .seed = 1, .mp = t_mp,
		};

		*(i % 2 ? &cfg.quick_gbps : &cfg.bulk_gbps) = bad[i / 2];
		err[0] = '\0';
		errno = 0;
		cr_assert_null(sw_fabric_create(&cfg, none, none, err, sizeof(err)),
			       "bulk %g, quick %g Gbit/s", cfg.bulk_gbps, cfg.quick_gbps);
		cr_assert_eq(errno, EINVAL);
		cr_assert(strstr(err, "link rates must be between 0.001 and 1000 Gbit/s"), "%s", err);
	}
}

/*
 * A NIC joins again after PROTO_LOST_GNT_SLOTS slots without a GNT: a
 * keepalive longer than PROTO_MAX_GNT_KEEPALIVE is refused, and at that
 * longest an idle node still hears a GNT every PROTO_MAX_GNT_KEEPALIVE slots.
 */
Test(fabric, the_longest_keepalive_stays_well_inside_the_nics_lost_grant_limit)
{
	struct sw_config cfg = {
		.n_nodes = T_N, .arbiter = "lcf", .bulk_gbps = 10, .quick_gbps = 10,
		.slot_frames = 1, .slot_ns = T_SLOT, .seed = 1, .mp = t_mp,
		.check_crc = true, .gnt_keepalive = PROTO_MAX_GNT_KEEPALIVE + 1,
	};
	struct dp_port *none[T_N] = { NULL };
	uint64_t last = 0, gap = 0;
	char err[256] = "";
	struct t_sw *t;

	cr_assert_null(sw_fabric_create(&cfg, none, none, err, sizeof(err)));
	cr_assert(strstr(err, "gnt-keepalive"), "%s", err);
	cfg.gnt_keepalive = PROTO_MAX_GNT_KEEPALIVE;
	t = t_sw_new_cfg(&cfg);
	t_hello(t, 0, PROTO_NODE_NONE);
	for (uint64_t s = 0; s <= PROTO_LOST_GNT_SLOTS; s++) {
		sw_fabric_poll(t->sw, s * T_SLOT);
		if (t_count(t, 0, PROTO_T_GNT)) {
			gap = s - last > gap ? s - last : gap;
			last = s;
		}
		t_clear(t);
	}
	cr_assert_eq(gap, PROTO_MAX_GNT_KEEPALIVE, "longest gap %llu slots",
		     (unsigned long long)gap);
	cr_assert_leq(8 * gap, PROTO_LOST_GNT_SLOTS, "a NIC rejoins only when about 8 are lost");
	t_sw_free(t);
}

/* ---- bulk channel --------------------------------------------------------- */

Test(fabric, schedule_enforcement_drops_what_was_not_granted)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);

	/* Node 0 has data for 1, node 2 for 3. */
	t_cfg(t, 0, 1u << 1, 0xF, 0xF);
	t_cfg(t, 2, 1u << 3, 0xF, 0xF);
	sw_fabric_poll(t->sw, T_SLOT);		/* slot 1 starts: grants for slot 2 */
	cr_assert_eq(t_gnt(t, 0).slot, 2);
	cr_assert_eq(t_gnt(t, 0).target, 1);
	cr_assert_eq(t_gnt(t, 2).target, 3);
	cr_assert_eq(t_gnt(t, 1).target, PROTO_NODE_NONE);
	cr_assert_eq(t_gnt(t, 3).target, PROTO_NODE_NONE);
	t_clear(t);
	t_data(t, PROTO_T_BREQ, 0, 1, 2);	/* granted */
	t_data(t, PROTO_T_BREQ, 0, 1, 2);	/* second frame on a 1-frame grant */
	t_data(t, PROTO_T_BREQ, 0, 2, 2);	/* wrong target */
	t_data(t, PROTO_T_BREQ, 1, 0, 2);	/* no grant at all */
	t_data(t, PROTO_T_BREQ, 2, 3, 3);	/* slot not granted yet */
	t_data(t, PROTO_T_BREQ, 2, 3, 1);	/* slot 1 had no grants */
	t_data(t, PROTO_T_BREQ, 2, 3, 2);	/* granted */
	sw_fabric_poll(t->sw, T_SLOT + 1000);
	cr_assert_eq(t_st(t)->breq_forwarded, 2);
	cr_assert_eq(t_st(t)->breq_not_granted, 5, "not granted: %llu",
		     (unsigned long long)t_st(t)->breq_not_granted);
	cr_assert_eq(t_count(t, 1, PROTO_T_BREQ), 1);
	cr_assert_eq(t_sent(t, 1, 0).src_node, 0);
	cr_assert_eq(t_count(t, 3, PROTO_T_BREQ), 1);
	cr_assert_eq(t_sent(t, 3, 0).src_node, 2);
	cr_assert_eq(t_count(t, 0, 0) + t_count(t, 2, 0), 0, "nothing else forwarded");
	t_sw_free(t);
}

Test(fabric, a_grant_lead_grants_ahead_and_takes_breqs_in_their_slot)
{
	struct sw_config cfg = {
		.n_nodes = T_N, .arbiter = "lcf", .bulk_gbps = 10, .quick_gbps = 10,
		.slot_frames = 1, .slot_ns = T_SLOT, .seed = 1, .mp = t_mp,
		.check_crc = true, .gnt_keepalive = 1, .grant_lead = 3,
	};
	struct t_sw *t = t_join_all(t_sw_new_cfg(&cfg));

	t_cfg(t, 0, 1u << 1, 0xF, 0xF);
	sw_fabric_poll(t->sw, T_SLOT);		/* slot 1 starts: grants for slot 4 */
	cr_assert_eq(t_gnt(t, 0).slot, 4);
	cr_assert_eq(t_gnt(t, 0).target, 1);
	cr_assert_eq(t_gnt(t, 0).back_slots, 2 + 3 * 2, "three more BACK slots per slot of lead");
	t_clear(t);
	t_data(t, PROTO_T_BREQ, 0, 1, 4);	/* slot 1: two slots early */
	sw_fabric_poll(t->sw, T_SLOT + 1000);
	cr_assert_eq(t_st(t)->breq_early, 1);
	sw_fabric_poll(t->sw, 2 * T_SLOT);	/* grants for slot 5 */
	sw_fabric_poll(t->sw, 3 * T_SLOT);	/* slot 3 starts */
	t_data(t, PROTO_T_BREQ, 0, 1, 4);	/* a slot early: taken */
	sw_fabric_poll(t->sw, 3 * T_SLOT + 1000);
	cr_assert_eq(t_st(t)->breq_forwarded, 1);
	for (int s = 4; s <= 7; s++)
		sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
	t_data(t, PROTO_T_BREQ, 0, 1, 5);	/* slot 7: two slots late */
	sw_fabric_poll(t->sw, 7 * T_SLOT + 1000);
	cr_assert_eq(t_st(t)->breq_late, 1);
	cr_assert_eq(t_st(t)->breq_not_granted, 2, "early and late are dropped");
	cr_assert_eq(t_count(t, 1, PROTO_T_BREQ), 1, "node 1 got the BREQ on time only");
	t_sw_free(t);
}

/* The time the fabric's injected clock reads (a_preempted_poll_...). */
static uint64_t t_clock_ns;

static uint64_t t_clock(void)
{
	return t_clock_ns;
}

/*
 * A poll that reads the time, is preempted for two slots and then receives
 * judges the BREQs it takes by the clock after the receive: the one for
 * the slot after the one under way is on time, not early. Without a clock
 * the same holds for a poll that comes two slots late: the BREQs wait for
 * it, and it runs the boundaries it missed after it has taken them.
 */
/* One switch of a_late_or_preempted_poll_...: with the clock or late. */
static void t_late_poll(bool with_clock)
{
	struct sw_config cfg = {
		.n_nodes = T_N, .arbiter = "lcf", .bulk_gbps = 10, .quick_gbps = 10,
		.slot_frames = 1, .slot_ns = T_SLOT, .seed = 1, .mp = t_mp,
		.check_crc = true, .gnt_keepalive = 1, .grant_lead = 3,
		.clock = with_clock ? t_clock : NULL,
	};
	struct t_sw *t = t_join_all(t_sw_new_cfg(&cfg));

	t_cfg(t, 0, 1u << 1, 0xF, 0xF);
	sw_fabric_poll(t->sw, T_SLOT);		/* slot 1 starts: grants for slot 4 */
	cr_assert_eq(t_gnt(t, 0).slot, 4);
	cr_assert_eq(t_gnt(t, 0).target, 1);
	t_clear(t);
	t_data(t, PROTO_T_BREQ, 0, 1, 4);	/* sent in slot 3 */
	t_data(t, PROTO_T_BREQ, 0, 1, 4);	/* a second frame on a 1-frame grant */
	t_clock_ns = 3 * T_SLOT + 500;		/* slot 3, after the receive */
	/* With the clock: the time read before a preemption. Else two slots late. */
	sw_fabric_poll(t->sw, with_clock ? T_SLOT + 1000 : t_clock_ns);
	cr_assert_eq(t_st(t)->breq_forwarded, 1, "clock %d", with_clock);
	cr_assert_eq(t_st(t)->breq_early, 0, "clock %d", with_clock);
	cr_assert_eq(t_st(t)->breq_not_granted, 1, "clock %d: the second frame", with_clock);
	cr_assert_eq(t_count(t, 1, PROTO_T_BREQ), 1, "clock %d", with_clock);
	t_sw_free(t);
}

Test(fabric, a_late_or_preempted_poll_judges_breqs_by_the_time_they_came)
{
	t_late_poll(false);
	t_late_poll(true);
}

/*
 * A BREQ whose slot is older than the switch's ring of slots (lead 1: slots
 * cur - 4 .. cur + 1) is late whatever its grant was; within the ring only a
 * granted one is.
 */
Test(fabric, a_breq_ten_slots_late_is_counted_late)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);

	t_cfg(t, 0, 1u << 1, 0xF, 0xF);		/* node 0 wants node 1 every slot */
	for (int s = 1; s <= 12; s++)
		sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
	t_clear(t);
	t_data(t, PROTO_T_BREQ, 0, 1, 2);	/* slot 12: ten slots late, forgotten */
	t_data(t, PROTO_T_BREQ, 0, 1, 8);	/* four late, granted, still kept */
	t_data(t, PROTO_T_BREQ, 1, 0, 9);	/* three late, never granted */
	sw_fabric_poll(t->sw, 12 * T_SLOT + 1000);
	cr_assert_eq(t_st(t)->breq_late, 2, "late: %llu",
		     (unsigned long long)t_st(t)->breq_late);
	cr_assert_eq(t_st(t)->breq_not_granted, 3, "every one is dropped");
	cr_assert_eq(t_st(t)->breq_early, 0);
	cr_assert_eq(t_count(t, 0, PROTO_T_BREQ) + t_count(t, 1, PROTO_T_BREQ), 0);
	t_sw_free(t);
}

Test(fabric, a_back_naming_a_slot_never_granted_is_dropped)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);

	/* Nothing requested; 0xFFFFFFFF unwraps to the mark of unused ring entries. */
	t_ack(t, PROTO_T_BACK, 0, 2, 0xFFFFFFFFu);
	t_ack(t, PROTO_T_BACK, 0, 2, 0);
	sw_fabric_poll(t->sw, 20);
	cr_assert_eq(t_st(t)->back_forwarded, 0);
	cr_assert_eq(t_st(t)->back_not_scheduled, 2);
	cr_assert_eq(t_count(t, 2, PROTO_T_BACK), 0);
	t_sw_free(t);
}

Test(fabric, the_output_buffered_model_sends_a_slots_frames)
{
	struct sw_config cfg = {
		.n_nodes = T_N, .arbiter = "fifo-outbuf", .bulk_gbps = 10, .quick_gbps = 10,
		.slot_frames = 4, .slot_ns = T_SLOT, .seed = 1, .mp = t_mp,
		.check_crc = true, .gnt_keepalive = 1,
	};
	struct t_sw *t = t_join_all(t_sw_new_cfg(&cfg));

	t_cfg(t, 0, 1u << 1, 0xF, 0xF);
	sw_fabric_poll(t->sw, T_SLOT);		/* grants for slot 2 */
	cr_assert_eq(t_gnt(t, 0).target, 1);
	t_clear(t);
	sw_fabric_poll(t->sw, 2 * T_SLOT);	/* slot 2 starts */
	for (int k = 0; k < 4; k++)
		t_data(t, PROTO_T_BREQ, 0, 1, 2);
	sw_fabric_poll(t->sw, 2 * T_SLOT + 10);
	cr_assert_eq(t_count(t, 1, PROTO_T_BREQ), 4, "a slot of 4 frames sent %u",
		     t_count(t, 1, PROTO_T_BREQ));
	t_sw_free(t);
}

/*
 * LCF's bound counts decisions: with a poller so late that only every
 * fourth slot boundary is arbitrated, a request still wins its diagonal
 * within n decisions (tied to the slot number, the diagonal it needs never
 * came round).
 */
Test(fabric, the_lcf_bound_holds_when_boundaries_are_skipped)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);
	unsigned int wait = 0, longest = 0;

	t_cfg(t, 0, (1u << 1) | (1u << 2), 0xF, 0xF);	/* node 0 wants 1 or 2 */
	t_cfg(t, 2, 1u << 1, 0xF, 0xF);			/* the others only 1 */
	t_cfg(t, 3, 1u << 1, 0xF, 0xF);
	sw_fabric_poll(t->sw, 20);
	t_clear(t);
	for (int s = 1; s <= 40; s++) {
		sw_fabric_poll(t->sw, (uint64_t)(4 * s + 2) * T_SLOT + 10);
		wait++;
		if (t_gnt(t, 0).target == 1) {
			longest = wait > longest ? wait : longest;
			wait = 0;
		}
		t_clear(t);
	}
	longest = wait > longest ? wait : longest;
	cr_assert_gt(t_st(t)->slots_skipped, 100, "the poller was not late");
	cr_assert_leq(longest, T_N, "(0, 1) waited %u decisions, n = %d", longest, T_N);
	t_sw_free(t);
}

Test(fabric, a_cfg_from_a_node_marked_down_is_counted)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 2);
	struct sw_node_info info;

	for (int s = 1; s <= 5; s++) {		/* node 3 stays silent */
		for (int i = 0; i < 3; i++)
			t_cfg(t, i, 0, 0xF, 0xF);
		sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
	}
	sw_fabric_node_info(t->sw, 3, &info);
	cr_assert_not(info.up);
	t_cfg(t, 3, 1u << 0, 0xF, 0xF);
	sw_fabric_poll(t->sw, 5 * T_SLOT + 10);
	cr_assert_eq(t_st(t)->cfg_node_down, 1);
	sw_fabric_node_info(t->sw, 3, &info);
	cr_assert_eq(info.requests, 0, "the CFG of a node that is down counts for nothing");
	t_sw_free(t);
}

/* A frame whose CRC32C trailer is wrong is dropped and counted; with the check off it passes. */
Test(fabric, a_frame_with_a_bad_crc_is_dropped_unless_the_check_is_off)
{
	for (int check = 1; check >= 0; check--) {
		struct sw_config cfg = {
			.n_nodes = T_N, .arbiter = "lcf", .bulk_gbps = 10, .quick_gbps = 10,
			.slot_frames = 1, .slot_ns = T_SLOT, .seed = 1, .mp = t_mp,
			.check_crc = check, .gnt_keepalive = 1,
		};
		struct t_sw *t = t_join_all(t_sw_new_cfg(&cfg));
		struct proto_pkt p = {
			.type = PROTO_T_QREQ, .flags = PROTO_F_DATA, .src_node = 0,
			.dst_node = 1, .vnet = 1, .pkt_num = 5,
		};
		struct rte_mbuf *m;

		proto_node_mac(p.src_node, p.eth_src);
		proto_node_mac(p.dst_node, p.eth_dst);
		m = tdp_encode(t_mp, &p);
		/* One bit of the trailer, the frame's last 4 bytes. */
		rte_pktmbuf_mtod(m, uint8_t *)[m->data_len - 1] ^= 1;
		tport_push(t->port[0], m);
		sw_fabric_poll(t->sw, 20);
		cr_assert_eq(t_st(t)->qreq_forwarded, check ? 0 : 1, "check_crc %d", check);
		cr_assert_eq(sw_fabric_decode_drops(t->sw)[PROTO_R_CRC], check ? 1 : 0);
		t_sw_free(t);
	}
}

/* The unscheduled drop model: a second frame for a taken output in one slot is lost. */
Test(fabric, fifo_drop_loses_the_second_frame_for_an_output)
{
	struct t_sw *t = t_sw_joined("fifo-drop", SW_QUICK_DROP, 0);

	t_cfg(t, 0, 1u << 2, 0xF, 0xF);		/* heads of line: 0 -> 2, 1 -> 2 */
	t_cfg(t, 1, 1u << 2, 0xF, 0xF);
	sw_fabric_poll(t->sw, T_SLOT);		/* grants for slot 2: both may send */
	cr_assert_eq(t_gnt(t, 0).target, 2);
	cr_assert_eq(t_gnt(t, 1).target, 2);
	t_clear(t);
	sw_fabric_poll(t->sw, 2 * T_SLOT);
	t_data(t, PROTO_T_BREQ, 0, 2, 2);
	t_data(t, PROTO_T_BREQ, 1, 2, 2);
	sw_fabric_poll(t->sw, 2 * T_SLOT + 10);
	cr_assert_eq(t_st(t)->breq_forwarded, 1);
	cr_assert_eq(t_st(t)->breq_collision, 1);
	cr_assert_eq(t_count(t, 2, PROTO_T_BREQ), 1);
	t_sw_free(t);
}

Test(fabric, back_must_follow_the_inverted_schedule)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);

	t_cfg(t, 0, 1u << 1, 0xF, 0xF);
	t_cfg(t, 2, 1u << 3, 0xF, 0xF);
	sw_fabric_poll(t->sw, T_SLOT);
	t_data(t, PROTO_T_BREQ, 0, 1, 2);	/* the BREQs the BACKs answer */
	t_data(t, PROTO_T_BREQ, 2, 3, 2);
	sw_fabric_poll(t->sw, T_SLOT + 500);
	cr_assert_eq(t_st(t)->breq_forwarded, 2);
	t_clear(t);
	t_ack(t, PROTO_T_BACK, 1, 0, 2);	/* 0 -> 1 in slot 2: back to 0 */
	t_ack(t, PROTO_T_BACK, 1, 2, 2);	/* 1 was not 2's target */
	t_ack(t, PROTO_T_BACK, 3, 0, 2);	/* 3 was not 0's target */
	t_ack(t, PROTO_T_BACK, 1, 0, 1);	/* slot 1 had no grants */
	t_ack(t, PROTO_T_BACK, 1, 0, 9);	/* a slot never arbitrated */
	t_ack(t, PROTO_T_BACK, 3, 2, 2);	/* 2 -> 3 in slot 2: back to 2 */
	sw_fabric_poll(t->sw, T_SLOT + 1000);
	cr_assert_eq(t_st(t)->back_forwarded, 2);
	cr_assert_eq(t_st(t)->back_not_scheduled, 4);
	cr_assert_eq(t_count(t, 0, PROTO_T_BACK), 1);
	cr_assert_eq(t_sent(t, 0, 0).src_node, 1);
	cr_assert_eq(t_count(t, 2, PROTO_T_BACK), 1);
	cr_assert_eq(t_sent(t, 2, 0).src_node, 3);
	t_sw_free(t);
}

/* Run slots with node 0 requesting req0 and nodes 1, 2 requesting 3; count grants. */
static void t_enable_case(const char *arbiter, unsigned int req0, unsigned int *to3,
			  unsigned int *from0, unsigned int *zero_to3)
{
	struct t_sw *t = t_sw_joined(arbiter, SW_QUICK_DROP, 0);

	/* Node 3 accepts bulk from 1 and 2 only; every node requests every slot. */
	for (int s = 1; s <= 40; s++) {
		t_cfg(t, 0, req0, 0xF, 0xF);
		t_cfg(t, 1, 1u << 3, 0xF, 0xF);
		t_cfg(t, 2, 1u << 3, 0xF, 0xF);
		t_cfg(t, 3, 0, 0xE, 0xF);
		sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
		for (int i = 0; i < T_N; i++) {
			uint16_t g = t_gnt(t, i).target;

			*to3 += g == 3;
			*from0 += i == 0 && g != PROTO_NODE_NONE;
			*zero_to3 += i == 0 && g == 3;
		}
		t_clear(t);
	}
	t_sw_free(t);
}

Test(fabric, every_arbiter_respects_the_bulk_enable_vectors)
{
	for (const struct arb_ops *const *o = arb_list(); *o; o++) {
		unsigned int to3 = 0, from0 = 0, zero_to3 = 0;

		/* Node 0 wants only 3, which refuses it: it never gets a grant. */
		t_enable_case((*o)->name, 1u << 3, &to3, &from0, &zero_to3);
		cr_assert_eq(from0, 0, "%s granted node 0 %u times", (*o)->name, from0);
		cr_assert_gt(to3, 0, "%s never granted target 3", (*o)->name);
		/* Node 0 wants 1, 2 and 3: granted, but never 3. */
		to3 = from0 = 0;
		t_enable_case((*o)->name, 0xEu, &to3, &from0, &zero_to3);
		cr_assert_gt(from0, 0, "%s never granted node 0", (*o)->name);
		cr_assert_eq(zero_to3, 0, "%s granted 0 -> 3 against 3's enable vector",
			     (*o)->name);
	}
}

Test(fabric, idle_skip_polls_only_at_keepalives_while_nobody_requests)
{
	struct t_sw *t = t_sw_idle("lcf");
	uint64_t next, now;

	for (int i = 0; i < T_N; i++)
		t_hello(t, i, PROTO_NODE_NONE);
	/* Joins need the next boundary (the GNT that says so). */
	next = sw_fabric_poll(t->sw, 0);
	cr_assert_eq(next, T_SLOT);
	next = sw_fabric_poll(t->sw, T_SLOT);
	/* Joined, nobody requests: the next poll is due at the keepalive. */
	cr_assert_eq(next, 8 * T_SLOT, "next %llu", (unsigned long long)next);
	now = next;
	next = sw_fabric_poll(t->sw, now);
	cr_assert_eq(sw_fabric_stats(t->sw)->slots_skipped, 0);
	cr_assert_eq(sw_fabric_stats(t->sw)->slots_idle, 6);
	cr_assert_eq(next, now + 8 * T_SLOT);
	/* A CFG with a request (node 1 accepts it): every boundary again. */
	t_cfg(t, 1, 0, 0xF, 0xF);
	t_cfg(t, 0, 1u << 1, 0xF, 0xF);
	next = sw_fabric_poll(t->sw, now + 10);
	cr_assert_eq(next, now + T_SLOT);
	sw_fabric_poll(t->sw, next);
	cr_assert_eq(sw_fabric_stats(t->sw)->grants, 1);
	t_sw_free(t);
}

/* ---- quick channel -------------------------------------------------------- */

Test(fabric, quick_arbitration_is_first_come)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);
	uint64_t qreq_ns = dp_wire_ps(PROTO_ETH_LEN + PROTO_HDR_LEN + PROTO_ARGS_LEN +
				      PROTO_CRC_LEN, 10) / 1000 + 1;

	/* Two QREQs for output 2 in one poll: one wins. */
	t_data(t, PROTO_T_QREQ, 0, 2, 0);
	t_data(t, PROTO_T_QREQ, 1, 2, 0);
	sw_fabric_poll(t->sw, 50000);
	cr_assert_eq(t_st(t)->qreq_forwarded, 1);
	cr_assert_eq(t_st(t)->qreq_collision, 1);
	cr_assert_eq(t_count(t, 2, PROTO_T_QREQ), 1);
	/* Later polls: the first to arrive wins while its frame serializes. */
	t_data(t, PROTO_T_QREQ, 3, 2, 0);
	sw_fabric_poll(t->sw, 60000);
	t_data(t, PROTO_T_QREQ, 0, 2, 0);
	sw_fabric_poll(t->sw, 60000 + qreq_ns - 2);
	cr_assert_eq(t_st(t)->qreq_collision, 2, "a QREQ beat one still on the wire");
	t_data(t, PROTO_T_QREQ, 0, 2, 0);
	sw_fabric_poll(t->sw, 60000 + qreq_ns);
	cr_assert_eq(t_st(t)->qreq_forwarded, 3);
	cr_assert_eq(t_count(t, 2, PROTO_T_QREQ), 3);
	cr_assert_eq(t_sent(t, 2, 1).src_node, 3);
	cr_assert_eq(t_sent(t, 2, 2).src_node, 0);
	/* Outputs are independent. */
	t_data(t, PROTO_T_QREQ, 0, 1, 0);
	t_data(t, PROTO_T_QREQ, 2, 3, 0);
	sw_fabric_poll(t->sw, 70000);
	cr_assert_eq(t_st(t)->qreq_forwarded, 5);
	t_sw_free(t);
}

/*
 * On a host up for more than 213 days the TSC's ns times 1000 no longer fit
 * 64 bits: quick arbitration counts ps from an epoch that follows the clock.
 * Before, every QREQ for an output lost for good once the product wrapped.
 */
Test(fabric, quick_arbitration_works_past_213_days_of_uptime)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);
	uint64_t wrap_ns = UINT64_MAX / 1000;	/* where ns * 1000 wraps */

	t_data(t, PROTO_T_QREQ, 0, 2, 0);
	sw_fabric_poll(t->sw, wrap_ns - 5000);
	cr_assert_eq(t_st(t)->qreq_forwarded, 1);
	t_data(t, PROTO_T_QREQ, 1, 2, 0);
	t_data(t, PROTO_T_QREQ, 3, 2, 0);
	sw_fabric_poll(t->sw, wrap_ns + 5000);
	cr_assert_eq(t_st(t)->qreq_forwarded, 2, "a QREQ on a free output lost");
	cr_assert_eq(t_st(t)->qreq_collision, 1, "the one behind it must still lose");
	t_data(t, PROTO_T_QREQ, 3, 2, 0);
	sw_fabric_poll(t->sw, wrap_ns + 10000);
	cr_assert_eq(t_st(t)->qreq_forwarded, 3);
	t_sw_free(t);
}

Test(fabric, quick_burst_of_one_input_does_not_collide_with_itself)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);

	/*
	 * Three QREQs of node 0 for output 2 read in one poll came one after
	 * another on 0's link: all leave. Node 1's, read with them, loses.
	 */
	t_data(t, PROTO_T_QREQ, 0, 2, 0);
	t_data(t, PROTO_T_QREQ, 0, 2, 0);
	t_data(t, PROTO_T_QREQ, 0, 2, 0);
	t_data(t, PROTO_T_QREQ, 1, 2, 0);
	sw_fabric_poll(t->sw, 50000);
	cr_assert_eq(t_st(t)->qreq_forwarded, 3);
	cr_assert_eq(t_st(t)->qreq_collision, 1);
	cr_assert_eq(t_count(t, 2, PROTO_T_QREQ), 3);
	for (unsigned int f = 0; f < 3; f++)
		cr_assert_eq(t_sent(t, 2, f).src_node, 0);
	t_sw_free(t);
}

/*
 * A node that sends faster than the quick link's rate (a NIC paced at its
 * device's speed, faster than --quick-gbps, as on virtual links): its
 * frames' arrivals run ahead of the time they are read by at most
 * QUICK_LEAD_FRAMES wire times, so another node's QREQ for the same output
 * gets through soon after it stops. Before, the lead grew without end, and
 * the other node's QREQs lost for as long as the fast one had sent (a lab
 * with --quick-gbps 0.1: every QREQ of another node lost for seconds).
 */
Test(fabric, a_node_faster_than_the_quick_link_does_not_lock_others_out)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);
	uint64_t now = 1000;

	/* 20 polls 1 us apart, each with 32 QREQs of node 0 for 2 (2.7 us of wire at 10 Gbit/s). */
	for (int poll = 0; poll < 20; poll++, now += 1000) {
		for (int k = 0; k < 32; k++)
			t_data(t, PROTO_T_QREQ, 0, 2, 0);
		sw_fabric_poll(t->sw, now);
		tport_clear(t->port[2]);
	}
	cr_expect_gt(t_st(t)->quick_over_rate, 0, "node 0 sent over the rate: counted");
	/* 10 us after node 0 stopped, node 1's QREQ for 2 finds the output free. */
	t_data(t, PROTO_T_QREQ, 1, 2, 0);
	sw_fabric_poll(t->sw, now + 10000);
	cr_assert_eq(t_count(t, 2, PROTO_T_QREQ), 1, "node 1's QREQ lost: %" PRIu64 " collisions",
		     t_st(t)->qreq_collision);
	cr_assert_eq(t_sent(t, 2, 0).src_node, 1);
	t_sw_free(t);
}

Test(fabric, qreq_behind_an_ack_of_its_own_input_is_forwarded)
{
	for (int mode = SW_QUICK_DROP; mode <= SW_QUICK_INTERLEAVE; mode++) {
		struct t_sw *t = t_sw_joined("lcf", (enum sw_quick_mode)mode, 0);

		/*
		 * Node 1 acknowledges node 2's request, then sends its answer:
		 * read in one poll, the two came one after another on 1's link.
		 */
		t_ack(t, PROTO_T_QACK, 1, 2, 0);
		t_data(t, PROTO_T_QREQ, 1, 2, 0);
		sw_fabric_poll(t->sw, 50000);
		cr_assert_eq(t_st(t)->qack_forwarded, 1);
		cr_assert_eq(t_st(t)->qreq_forwarded, 1, "mode %d: the QREQ lost to its own QACK", mode);
		cr_assert_eq(t_st(t)->qreq_collision, 0);
		cr_assert_eq(t_sent(t, 2, 0).type, PROTO_T_QACK);
		cr_assert_eq(t_sent(t, 2, 1).type, PROTO_T_QREQ);
		t_sw_free(t);
	}
}

/* A QACK to 2, then a QREQ to 2 while the QACK serializes; QREQs forwarded. */
static uint64_t t_qreq_behind_qack(enum sw_quick_mode mode)
{
	struct t_sw *t = t_sw_joined("lcf", mode, 0);
	uint64_t fwd;

	t_ack(t, PROTO_T_QACK, 3, 2, 0);
	sw_fabric_poll(t->sw, 50000);
	cr_assert_eq(t_st(t)->qack_forwarded, 1);
	t_data(t, PROTO_T_QREQ, 0, 2, 0);
	sw_fabric_poll(t->sw, 50010);
	fwd = t_st(t)->qreq_forwarded;
	cr_assert_eq(fwd + t_st(t)->qreq_collision, 1);
	cr_assert_eq(t_count(t, 2, PROTO_T_QREQ), fwd);
	t_sw_free(t);
	return fwd;
}

Test(fabric, drop_mode_drops_a_qreq_behind_an_ack_interleave_forwards_it)
{
	cr_assert_eq(t_qreq_behind_qack(SW_QUICK_DROP), 0, "drop mode forwarded the QREQ");
	cr_assert_eq(t_qreq_behind_qack(SW_QUICK_INTERLEAVE), 1,
		     "interleave mode dropped the QREQ");
}

Test(fabric, control_beats_qreq_in_the_same_poll)
{
	for (int mode = SW_QUICK_DROP; mode <= SW_QUICK_INTERLEAVE; mode++) {
		struct t_sw *t = t_sw_joined("lcf", (enum sw_quick_mode)mode, 0);

		/* Both orders of ports, so the QREQ is read first in one of them. */
		for (int k = 0; k < 2; k++) {
			t_data(t, PROTO_T_QREQ, k, 2, 0);
			t_ack(t, PROTO_T_QACK, 1 - k, 2, 0);
			sw_fabric_poll(t->sw, 50000 + 10000 * (uint64_t)k);
			cr_assert_eq(t_st(t)->qack_forwarded, (uint64_t)k + 1);
			cr_assert_eq(t_sent(t, 2, 0).type, PROTO_T_QACK,
				     "mode %d order %d: the QACK leaves first", mode, k);
			if (mode == SW_QUICK_DROP) {
				cr_assert_eq(t_count(t, 2, 0), 1);
				cr_assert_eq(t_st(t)->qreq_collision, (uint64_t)k + 1);
			} else {
				cr_assert_eq(t_count(t, 2, 0), 2);
				cr_assert_eq(t_sent(t, 2, 1).type, PROTO_T_QREQ);
			}
			t_clear(t);
		}
		t_sw_free(t);
	}
}

Test(fabric, quick_arbitration_is_round_robin_fair)
{
	enum { POLLS = 200 };

	/* Every pair of inputs contending for one output, in every poll. */
	for (int a = 0; a < T_N; a++) {
		for (int b = a + 1; b < T_N; b++) {
			struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);
			int out = 0, wins[T_N] = { 0 };

			while (out == a || out == b)
				out++;
			for (int k = 0; k < POLLS; k++) {
				t_data(t, PROTO_T_QREQ, a, out, 0);
				t_data(t, PROTO_T_QREQ, b, out, 0);
				sw_fabric_poll(t->sw, 50000 + 1000 * (uint64_t)k);
				cr_assert_eq(t_count(t, out, PROTO_T_QREQ), 1);
				for (unsigned int f = 0; f < tport_sent(t->port[out]); f++) {
					struct proto_pkt p = t_sent(t, out, f);

					if (p.type == PROTO_T_QREQ)
						wins[p.src_node]++;
				}
				t_clear(t);
			}
			cr_log_info("inputs %d and %d -> %d: %d / %d", a, b, out, wins[a], wins[b]);
			cr_assert(wins[a] >= POLLS * 2 / 5 && wins[b] >= POLLS * 2 / 5,
				  "inputs %d and %d contending for %d won %d and %d of %d",
				  a, b, out, wins[a], wins[b], POLLS);
			t_sw_free(t);
		}
	}
}

Test(fabric, quick_enable_vector_refuses_qreqs)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);

	t_cfg(t, 2, 0, 0xF, 0xD);		/* 2 takes quick traffic from all but 1 */
	sw_fabric_poll(t->sw, 20);
	t_data(t, PROTO_T_QREQ, 1, 2, 0);
	sw_fabric_poll(t->sw, 50000);
	cr_assert_eq(t_st(t)->qreq_disabled, 1);
	t_data(t, PROTO_T_QREQ, 0, 2, 0);
	sw_fabric_poll(t->sw, 51000);
	cr_assert_eq(t_st(t)->qreq_forwarded, 1);
	cr_assert_eq(t_count(t, 2, PROTO_T_QREQ), 1);
	cr_assert_eq(t_sent(t, 2, 0).src_node, 0);
	t_sw_free(t);
}

/* ---- sources and liveness --------------------------------------------------- */

Test(fabric, forged_source_is_dropped)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);
	uint8_t counts[T_N] = { 0 }, off = 0;

	/* Frames on node 1's port that claim to come from other nodes. */
	t_push(t, 1, (struct proto_pkt) {
		.type = PROTO_T_QREQ, .flags = PROTO_F_DATA, .src_node = 2, .dst_node = 3,
		.vnet = 1,
	});
	t_push(t, 1, (struct proto_pkt) {
		.type = PROTO_T_QACK, .flags = PROTO_F_ACK, .src_node = 0, .dst_node = 3,
		.vnet = 1, .ack_base = 1,
	});
	/* A forged CFG would switch off node 3's quick enable vector. */
	t_push(t, 1, (struct proto_pkt) {
		.type = PROTO_T_CFG, .src_node = 3, .dst_node = PROTO_NODE_SWITCH,
		.cfg = { .n_nodes = T_N, .counts = counts, .bulk_en = &off, .quick_en = &off },
	});
	sw_fabric_poll(t->sw, 50000);
	cr_assert_eq(t_st(t)->forged_src, 3, "forged: %llu",
		     (unsigned long long)t_st(t)->forged_src);
	cr_assert_eq(t_st(t)->cfg_received, T_N, "the forged CFG was taken");
	cr_assert_eq(t_count(t, 3, 0), 0, "a forged frame was forwarded");
	cr_assert_eq(t_st(t)->qreq_forwarded + t_st(t)->qack_forwarded, 0);
	/* The genuine node 1 still reaches 3. */
	t_data(t, PROTO_T_QREQ, 1, 3, 0);
	sw_fabric_poll(t->sw, 60000);
	cr_assert_eq(t_st(t)->qreq_forwarded, 1);
	cr_assert_eq(t_st(t)->qreq_disabled, 0);
	t_sw_free(t);
}

Test(fabric, frames_from_a_node_that_has_not_joined_are_dropped)
{
	struct t_sw *t = t_sw_new("lcf", SW_QUICK_DROP, 0);

	for (int i = 0; i < 3; i++)
		t_hello(t, i, PROTO_NODE_NONE);
	sw_fabric_poll(t->sw, 0);
	for (int i = 0; i < 3; i++)
		t_cfg(t, i, 0, 0xF, 0xF);
	sw_fabric_poll(t->sw, 10);
	t_clear(t);
	/* Node 3 never said HELLO. */
	t_data(t, PROTO_T_QREQ, 3, 0, 0);
	t_cfg(t, 3, 1u << 0, 0xF, 0xF);
	t_data(t, PROTO_T_BREQ, 3, 0, 1);
	sw_fabric_poll(t->sw, 50000);
	cr_assert_eq(t_st(t)->not_joined, 3);
	cr_assert_eq(t_st(t)->cfg_received, 3, "its CFG must not count");
	cr_assert_eq(t_count(t, 0, 0), 0);
	/* Its CFG says its NIC thinks it is up (a restarted switch): told to join. */
	cr_assert_eq(t_count(t, 3, PROTO_T_GNT), 1, "node 3 not told to say HELLO");
	cr_assert_eq(t_gnt(t, 3).gflags & PROTO_GNT_F_REJOIN, PROTO_GNT_F_REJOIN);
	cr_assert_eq(t_gnt(t, 3).node_id, 3);
	cr_assert_eq(t_st(t)->rejoin_told, 1);
	t_clear(t);
	/* Frames for it: it is not up, the sender hears it is down. */
	t_data(t, PROTO_T_QREQ, 0, 3, 0);
	sw_fabric_poll(t->sw, 60000);
	cr_assert_eq(t_st(t)->dst_down, 1);
	cr_assert_eq(t_count(t, 3, 0), 0);
	cr_assert_eq(t_count(t, 0, PROTO_T_QACK), 1);
	cr_assert(t_sent(t, 0, 0).flags & PROTO_F_DOWN);
	cr_assert_eq(t_sent(t, 0, 0).src_node, 3);
	cr_assert_eq(t_sent(t, 0, 0).epoch, PROTO_DOWN_NOT_JOINED,
		     "the notice says node 3 never joined: %u", t_sent(t, 0, 0).epoch);
	cr_assert_eq(t_sent(t, 0, 0).handler, 0, "it knows no process of node 3");
	t_sw_free(t);
}

Test(fabric, silent_node_is_marked_down_and_requesters_are_told)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 3);
	struct sw_node_info info;
	int first_notice = -1;

	/* Everyone but node 2 keeps sending CFGs; node 0 wants to send to 2. */
	for (int s = 1; s <= 6; s++) {
		t_cfg(t, 0, 1u << 2, 0xF, 0xF);
		t_cfg(t, 1, 0, 0xF, 0xF);
		t_cfg(t, 3, 0, 0xF, 0xF);
		sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
		for (unsigned int k = 0; k < tport_sent(t->port[0]); k++) {
			struct proto_pkt p = t_sent(t, 0, k);

			if (p.type == PROTO_T_BACK && (p.flags & PROTO_F_DOWN)) {
				cr_assert_eq(p.src_node, 2, "the notice names the down node");
				cr_assert_eq(p.epoch, PROTO_DOWN_DOWN, "and says it is down");
				cr_assert_eq(p.handler, T_BOOT(2), "and names its process");
				if (first_notice < 0)
					first_notice = s;
			}
		}
		sw_fabric_node_info(t->sw, 2, &info);
		/* CFG last at slot 0; down once more than 3 slots have passed. */
		cr_assert_eq(info.up, s < 4, "slot %d: node 2 up=%d", s, info.up);
		if (s >= 4)
			cr_assert_eq(t_count(t, 2, PROTO_T_GNT), 0, "a down node gets no GNT");
		t_clear(t);
	}
	cr_assert_eq(t_st(t)->downs, 1);
	cr_assert_eq(first_notice, 4, "first DOWN notice in slot %d", first_notice);
	/* A QREQ for the down node is answered with a DOWN QACK. */
	t_data(t, PROTO_T_QREQ, 1, 2, 0);
	sw_fabric_poll(t->sw, 6 * T_SLOT + 50000);
	cr_assert_eq(t_st(t)->dst_down, 1);
	cr_assert_eq(t_count(t, 1, PROTO_T_QACK), 1);
	cr_assert(t_sent(t, 1, 0).flags & PROTO_F_DOWN);
	cr_assert_eq(t_sent(t, 1, 0).src_node, 2);
	cr_assert_eq(t_sent(t, 1, 0).epoch, PROTO_DOWN_DOWN);
	cr_assert_eq(t_count(t, 2, 0), 0);
	t_clear(t);
	/*
	 * A CFG does not revive it, but says its NIC thinks it is up: it is
	 * told to join again at once (before, it noticed after 1000 slots
	 * without a grant); HELLO revives it, and its peers hear it restarted.
	 */
	t_cfg(t, 2, 0, 0xF, 0xF);
	sw_fabric_poll(t->sw, 6 * T_SLOT + 60000);
	sw_fabric_node_info(t->sw, 2, &info);
	cr_assert_not(info.up);
	cr_assert_eq(t_count(t, 2, PROTO_T_GNT), 1, "node 2 not told to rejoin");
	cr_assert_eq(t_gnt(t, 2).gflags & PROTO_GNT_F_REJOIN, PROTO_GNT_F_REJOIN);
	cr_assert_eq(t_gnt(t, 2).target, PROTO_NODE_NONE, "it grants nothing");
	t_clear(t);
	t_hello(t, 2, 2);
	sw_fabric_poll(t->sw, 6 * T_SLOT + 70000);
	sw_fabric_node_info(t->sw, 2, &info);
	cr_assert(info.up);
	for (int i = 0; i < T_N; i++) {
		if (i == 2)
			continue;
		cr_assert_eq(t_count(t, i, PROTO_T_BACK), 1, "node %d not told of the restart", i);
		cr_assert(t_sent(t, i, 0).flags & PROTO_F_DOWN);
		cr_assert_eq(t_sent(t, i, 0).epoch, PROTO_DOWN_REJOINED,
			     "node %d: the notice says node 2 rejoined: %u", i, t_sent(t, i, 0).epoch);
	}
	t_sw_free(t);
}

/* A repeated HELLO (same incarnation) is answered; only a new incarnation restarts peers. */
Test(fabric, a_repeated_hello_resets_nothing_a_new_incarnation_does)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);

	/* t_sw_joined joined everyone with t_hello: the same nonce is a repeat. */
	t_hello_nonce(t, 2, proto_hello_nonce(T_BOOT(2), 7));
	sw_fabric_poll(t->sw, T_SLOT);
	cr_assert_eq(t_st(t)->hello_repeats, 1);
	cr_assert_eq(t_st(t)->down_notices, 0, "a repeat must not reset the peers");
	cr_assert_eq(t_gnt(t, 2).gflags, PROTO_GNT_F_JOINED, "the join is announced again");
	t_clear(t);
	/* Another nonce: the NIC joins again, and its peers are told which process did. */
	t_hello_nonce(t, 2, proto_hello_nonce(0x5EED, 1));
	sw_fabric_poll(t->sw, 2 * T_SLOT);
	cr_assert_eq(t_st(t)->hello_repeats, 1);
	for (int i = 0; i < T_N; i++)
		if (i != 2) {
			cr_assert_eq(t_count(t, i, PROTO_T_BACK), 1, "node %d not told", i);
			cr_assert_eq(t_sent(t, i, 0).epoch, PROTO_DOWN_REJOINED);
			cr_assert_eq(t_sent(t, i, 0).handler, 0x5EED, "node %d: process %#x named",
				     i, t_sent(t, i, 0).handler);
		}
	t_sw_free(t);
}

Test(fabric, control_frames_a_node_may_not_send_are_counted)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);
	uint8_t counts[8] = { 0 }, en = 0x7;

	/* A GNT from a node. */
	t_push(t, 1, (struct proto_pkt) {
		.type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH, .dst_node = 1,
		.gnt = { .slot = 3, .target = PROTO_NODE_NONE, .node_id = 1, .n_nodes = T_N,
			 .slot_ns = 1, .slot_frames = 1 },
	});
	/* A CFG sized for another cluster. */
	t_push(t, 1, (struct proto_pkt) {
		.type = PROTO_T_CFG, .src_node = 1, .dst_node = PROTO_NODE_SWITCH,
		.cfg = { .n_nodes = 3, .counts = counts, .bulk_en = &en, .quick_en = &en },
	});
	sw_fabric_poll(t->sw, 50000);
	/* A GNT always names the switch as its source: it is forged on a port. */
	cr_assert_eq(t_st(t)->forged_src, 1, "the GNT is refused");
	cr_assert_eq(t_st(t)->cfg_bad_size, 1, "the CFG of another size is refused");
	cr_assert_eq(t_st(t)->rx_invalid, 0);
	t_sw_free(t);
}

/* ---- control ports ---------------------------------------------------------- */

/* Frames of type type in what port sent (any type when type is 0). */
static unsigned int t_port_count(struct dp_port *port, uint8_t type)
{
	unsigned int c = 0;

	for (unsigned int k = 0; k < tport_sent(port); k++) {
		struct proto_pkt p;

		cr_assert_eq(tdp_decode(tport_frame(port, k), &p), PROTO_R_OK);
		c += !type || p.type == type;
	}
	return c;
}

Test(fabric, control_frames_leave_on_the_control_ports)
{
	struct dp_port *port[T_N], *ctl[T_N];
	struct sw_config cfg = {
		.n_nodes = T_N, .arbiter = "lcf", .quick_mode = SW_QUICK_DROP,
		.bulk_gbps = 10, .quick_gbps = 10, .slot_frames = 1,
		.slot_ns = T_SLOT, .down_slots = 3, .seed = 1, .mp = t_mp,
		.check_crc = true, .gnt_keepalive = 1, .control = ctl,
	};
	unsigned int avail = rte_mempool_avail_count(t_mp);
	uint8_t counts[T_N] = { 0 }, all = 0xF;
	char err[256] = "", name[16];
	struct sw_fabric *sw;

	for (int i = 0; i < T_N; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		port[i] = tport_create(name, T_PORT_CAP);
		snprintf(name, sizeof(name), "c%d", i);
		ctl[i] = tport_create(name, T_PORT_CAP);
	}
	sw = sw_fabric_create(&cfg, port, port, err, sizeof(err));
	cr_assert_not_null(sw, "%s", err);
	cr_assert_eq(sw_fabric_nodes_up(sw), 0);
	/* Nobody up: a late poll skips nothing. */
	sw_fabric_poll(sw, 0);
	sw_fabric_poll(sw, 10 * T_SLOT);
	cr_assert_eq(sw_fabric_stats(sw)->slots_skipped, 0);
	/* Nodes 0..2 join: their GNTs leave on the control ports only. */
	for (int i = 0; i < 3; i++) {
		struct proto_pkt p = {
			.type = PROTO_T_HELLO, .src_node = PROTO_NODE_NONE,
			.dst_node = PROTO_NODE_SWITCH, .hello_nonce = 1,
		};

		proto_node_mac(p.src_node, p.eth_src);
		proto_node_mac(p.dst_node, p.eth_dst);
		tport_push(port[i], tdp_encode(t_mp, &p));
	}
	sw_fabric_poll(sw, 11 * T_SLOT);
	cr_assert_eq(sw_fabric_nodes_up(sw), 3);
	for (int i = 0; i < 3; i++) {
		struct proto_pkt c = {
			.type = PROTO_T_CFG, .src_node = (uint16_t)i,
			.dst_node = PROTO_NODE_SWITCH,
			.cfg = { .n_nodes = T_N, .counts = counts, .bulk_en = &all,
				 .quick_en = &all },
		};

		cr_assert_eq(t_port_count(ctl[i], PROTO_T_GNT), 1, "node %d: GNT", i);
		cr_assert_eq(tport_sent(port[i]), 0, "node %d: a frame on the data queue", i);
		proto_node_mac(c.src_node, c.eth_src);
		proto_node_mac(c.dst_node, c.eth_dst);
		tport_push(port[i], tdp_encode(t_mp, &c));
		tport_clear(ctl[i]);
	}
	/* A QREQ is data; its QACK is control. */
	{
		static const uint8_t args[PROTO_ARGS_LEN] = { 1 };
		struct proto_pkt q = {
			.type = PROTO_T_QREQ, .flags = PROTO_F_DATA, .src_node = 0,
			.dst_node = 1, .vnet = 1, .pkt_num = 1, .args = args,
		};
		struct proto_pkt a = {
			.type = PROTO_T_QACK, .flags = PROTO_F_ACK, .src_node = 1,
			.dst_node = 0, .vnet = 1, .ack_base = 1,
		};

		proto_node_mac(0, q.eth_src);
		proto_node_mac(1, q.eth_dst);
		tport_push(port[0], tdp_encode(t_mp, &q));
		proto_node_mac(1, a.eth_src);
		proto_node_mac(0, a.eth_dst);
		tport_push(port[1], tdp_encode(t_mp, &a));
	}
	sw_fabric_poll(sw, 11 * T_SLOT + 10000);
	cr_assert_eq(t_port_count(port[1], PROTO_T_QREQ), 1, "QREQ on the data queue");
	cr_assert_eq(t_port_count(port[0], 0), 0);
	cr_assert_eq(t_port_count(ctl[0], PROTO_T_QACK), 1, "QACK on the control queue");
	/* Node 2 goes silent; node 0's QREQ for it gets a DOWN QACK on control. */
	for (int s = 12; s <= 16; s++) {
		for (int i = 0; i < 2; i++) {
			struct proto_pkt c = {
				.type = PROTO_T_CFG, .src_node = (uint16_t)i,
				.dst_node = PROTO_NODE_SWITCH,
				.cfg = { .n_nodes = T_N, .counts = counts, .bulk_en = &all,
					 .quick_en = &all },
			};

			proto_node_mac(c.src_node, c.eth_src);
			proto_node_mac(c.dst_node, c.eth_dst);
			tport_push(port[i], tdp_encode(t_mp, &c));
		}
		sw_fabric_poll(sw, (uint64_t)s * T_SLOT);
	}
	cr_assert_eq(sw_fabric_nodes_up(sw), 2);
	for (int i = 0; i < T_N; i++) {
		tport_clear(port[i]);
		tport_clear(ctl[i]);
	}
	{
		static const uint8_t args[PROTO_ARGS_LEN] = { 2 };
		struct proto_pkt q = {
			.type = PROTO_T_QREQ, .flags = PROTO_F_DATA, .src_node = 0,
			.dst_node = 2, .vnet = 1, .pkt_num = 2, .args = args,
		};

		proto_node_mac(0, q.eth_src);
		proto_node_mac(2, q.eth_dst);
		tport_push(port[0], tdp_encode(t_mp, &q));
	}
	sw_fabric_poll(sw, 16 * T_SLOT + 10000);
	cr_assert_eq(t_port_count(ctl[0], PROTO_T_QACK), 1, "DOWN notice on control");
	cr_assert_eq(t_port_count(port[0], 0), 0);
	sw_fabric_destroy(sw);
	for (int i = 0; i < T_N; i++) {
		dp_port_destroy(port[i]);
		dp_port_destroy(ctl[i]);
	}
	cr_assert_eq(rte_mempool_avail_count(t_mp), avail, "frames leaked");
}

/* ---- late polls, BACK limits, nodes marked down, output buffers ---------- */

/*
 * A poll that comes late (the loop stalled) past --down-slots: the CFGs the
 * nodes kept sending meanwhile are in this poll's receive, yet every node is
 * marked down, because the CFG is stamped with the stale slot and the slot
 * clock catches up after the receive.
 */
Test(fabric, a_stalled_poll_does_not_mark_nodes_that_sent_cfgs_down)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 5);

	for (int s = 1; s <= 3; s++) {
		for (int i = 0; i < T_N; i++)
			t_cfg(t, i, 0, 0xF, 0xF);
		sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
	}
	/* The loop stalls 20 slots; every node kept sending CFGs (the last one shown). */
	for (int i = 0; i < T_N; i++)
		t_cfg(t, i, 0, 0xF, 0xF);
	sw_fabric_poll(t->sw, 23 * T_SLOT);
	cr_expect_eq(t_st(t)->downs, 0, "nodes whose CFG is in this very poll marked down: %llu",
		     (unsigned long long)t_st(t)->downs);
	cr_expect_eq(sw_fabric_nodes_up(t->sw), T_N, "nodes up: %u", sw_fabric_nodes_up(t->sw));
	t_sw_free(t);
}

/*
 * The switch's own pause (the machine paused, its nodes with it: nothing
 * arrived meanwhile) is not its nodes' silence: a poll more than
 * DP_WATCH_POLL_CAP_NS after the one before counts that much of the gap
 * towards --down-slots. Before, every node was marked down after a pause
 * longer than --down-slots and had to join again (its pending messages
 * failed). A node silent while the switch watches is still marked down.
 */
Test(fabric, a_pause_of_the_switch_is_not_its_nodes_silence)
{
	/* 1500 slots of 100 us: 150 ms, more than one gap counts (100 ms, 1000 slots). */
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 1500);
	uint64_t now = 3 * T_SLOT;
	struct sw_node_info info;
	int s;

	for (s = 1; s <= 3; s++) {
		for (int i = 0; i < T_N; i++)
			t_cfg(t, i, 0, 0xF, 0xF);
		sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
	}
	/* Two seconds paused, then a poll with nothing received. */
	now += 2000000000ull;
	sw_fabric_poll(t->sw, now);
	cr_expect_eq(t_st(t)->downs, 0, "nodes marked down after the switch's own pause: %llu",
		     (unsigned long long)t_st(t)->downs);
	cr_expect_eq(sw_fabric_nodes_up(t->sw), T_N, "nodes up: %u", sw_fabric_nodes_up(t->sw));
	cr_expect_eq(t_st(t)->slots_paused, (2000000000ull - 100000000ull) / T_SLOT,
		     "slots paused: %llu", (unsigned long long)t_st(t)->slots_paused);
	/* Node 2 stays silent, watched slot by slot: down after the rest, 500 slots. */
	for (s = 1; s <= 1500; s++) {
		for (int i = 0; i < T_N; i++)
			if (i != 2)
				t_cfg(t, i, 0, 0xF, 0xF);
		sw_fabric_poll(t->sw, now + (uint64_t)s * T_SLOT);
		sw_fabric_node_info(t->sw, 2, &info);
		if (!info.up)
			break;
		t_clear(t);
	}
	cr_assert(s >= 499 && s <= 503, "node 2, silent and watched, down after %d slots", s);
	cr_assert_eq(t_st(t)->downs, 1, "only node 2 is down");
	t_sw_free(t);
}

/*
 * The boundaries of the switch's own pause are counted once, in
 * slots_paused: slots_skipped keeps the boundaries a late poll missed while
 * the switch watched (the first DP_WATCH_POLL_CAP_NS of the gap), and so
 * does slots_idle asleep. Before, a 2 s pause added all 19999 missed
 * boundaries to slots_skipped as well as 19000 to slots_paused.
 */
Test(fabric, a_pause_of_the_switch_is_counted_once_in_slots_paused)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);
	uint64_t now;

	/* Polled at slots 1-3, then 2 s paused: boundary 4 is 19999 slots late. */
	for (int s = 1; s <= 3; s++)
		sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
	sw_fabric_poll(t->sw, 3 * T_SLOT + 2000000000ull);
	cr_expect_eq(t_st(t)->slots_paused, 19000, "slots paused: %llu",
		     (unsigned long long)t_st(t)->slots_paused);
	cr_expect_eq(t_st(t)->slots_skipped, 999, "slots skipped: %llu",
		     (unsigned long long)t_st(t)->slots_skipped);
	/* A late poll without a pause still counts every boundary it missed. */
	sw_fabric_poll(t->sw, 3 * T_SLOT + 2000000000ull + 10 * T_SLOT);
	cr_expect_eq(t_st(t)->slots_skipped, 1008, "slots skipped: %llu",
		     (unsigned long long)t_st(t)->slots_skipped);
	cr_expect_eq(t_st(t)->slots_paused, 19000);
	t_sw_free(t);

	/* Asleep with nothing due (idle_skip), the same pause is not idle time either. */
	t = t_sw_idle("lcf");
	for (int i = 0; i < T_N; i++)
		t_hello(t, i, PROTO_NODE_NONE);
	sw_fabric_poll(t->sw, 0);
	now = sw_fabric_poll(t->sw, T_SLOT);
	cr_assert_eq(now, 8 * T_SLOT, "asleep to the keepalive at %llu", (unsigned long long)now);
	sw_fabric_poll(t->sw, T_SLOT + 2000000000ull);
	cr_expect_eq(t_st(t)->slots_paused, 19000, "slots paused: %llu",
		     (unsigned long long)t_st(t)->slots_paused);
	cr_expect_eq(t_st(t)->slots_idle, 999, "slots idle: %llu",
		     (unsigned long long)t_st(t)->slots_idle);
	cr_expect_eq(t_st(t)->slots_skipped, 0);
	t_sw_free(t);
}

/* Same, with a HELLO of a new incarnation in the late poll: joined and marked down at once. */
Test(fabric, a_node_joining_in_a_late_poll_stays_up)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 5);
	struct sw_node_info info;

	t_hello_nonce(t, 1, 99);
	sw_fabric_poll(t->sw, 30 * T_SLOT);
	sw_fabric_node_info(t->sw, 1, &info);
	cr_expect(info.up, "node 1 joined in this poll and is down already (joins %llu downs %llu)",
		  (unsigned long long)t_st(t)->joins, (unsigned long long)t_st(t)->downs);
	cr_expect_eq(t_count(t, 1, PROTO_T_GNT), 1, "the join is not answered: %u GNTs",
		     t_count(t, 1, PROTO_T_GNT));
	t_sw_free(t);
}

/*
 * A target answers a grant of one frame (slot-frames 1) with 20 BACKs, none
 * of them for a BREQ the switch forwarded: every one reaches the initiator.
 */
Test(fabric, backs_beyond_the_breqs_of_a_grant_are_not_forwarded)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 0);

	t_cfg(t, 0, 1u << 1, 0xF, 0xF);
	sw_fabric_poll(t->sw, T_SLOT);
	cr_assert_eq(t_gnt(t, 0).target, 1);
	t_clear(t);
	for (int k = 0; k < 20; k++)
		t_ack(t, PROTO_T_BACK, 1, 0, 2);
	sw_fabric_poll(t->sw, T_SLOT + 1000);
	cr_expect_leq(t_st(t)->back_forwarded, 1, "BACKs forwarded for a grant of 1 frame and 0 BREQs: %llu",
		      (unsigned long long)t_st(t)->back_forwarded);
	cr_expect_leq(t_count(t, 0, PROTO_T_BACK), 1, "node 0 got %u BACKs", t_count(t, 0, PROTO_T_BACK));
	t_sw_free(t);
}

/* A node marked down (no CFG for down-slots) still has its QREQs forwarded; answers to it are dropped. */
Test(fabric, a_node_marked_down_cannot_send_quick_requests)
{
	struct t_sw *t = t_sw_joined("lcf", SW_QUICK_DROP, 3);
	struct sw_node_info info;

	for (int s = 1; s <= 6; s++) {
		t_cfg(t, 0, 0, 0xF, 0xF);
		t_cfg(t, 1, 0, 0xF, 0xF);
		t_cfg(t, 3, 0, 0xF, 0xF);
		sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
	}
	sw_fabric_node_info(t->sw, 2, &info);
	cr_assert_not(info.up);
	t_clear(t);
	t_data(t, PROTO_T_QREQ, 2, 0, 0);
	sw_fabric_poll(t->sw, 6 * T_SLOT + 1000);
	t_ack(t, PROTO_T_QACK, 0, 2, 0);
	sw_fabric_poll(t->sw, 6 * T_SLOT + 50000);
	cr_expect_eq(t_st(t)->qreq_forwarded, 0, "QREQs of the down node 2 forwarded: %llu; node 0 got %u QREQs, its QACK back dropped (dst_down %llu)",
		     (unsigned long long)t_st(t)->qreq_forwarded, t_count(t, 0, PROTO_T_QREQ),
		     (unsigned long long)t_st(t)->dst_down);
	t_sw_free(t);
}

/*
 * Output-buffered model with idle_skip (switchd's default back-off): BREQs
 * still queued at an output when nobody requests any more are drained one
 * slot's worth per boundary the switch runs, but the poll asks to run only
 * at the next keepalive, so the queue drains at a keepalive per frame and
 * the last BREQ leaves long after the initiator's BACK deadline (back_slots + 2).
 */
Test(fabric, idle_skip_does_not_strand_buffered_breqs)
{
	struct t_sw *t = t_join_all(t_sw_idle("fifo-outbuf"));
	uint64_t now, next = T_SLOT, last_at = 0;
	unsigned int got = 0, sent = 0;

	/* Slots 1 .. 6: nodes 0, 1, 2 request 3 and send the BREQ of every grant. */
	for (int s = 1; s <= 6; s++) {
		for (int i = 0; i < 3; i++) {
			t_cfg(t, i, 1u << 3, 0xF, 0xF);
			if (s > 1) {
				t_data(t, PROTO_T_BREQ, i, 3, (uint32_t)s);
				sent++;
			}
		}
		t_cfg(t, 3, 0, 0xF, 0xF);
		next = sw_fabric_poll(t->sw, (uint64_t)s * T_SLOT);
		got += t_count(t, 3, PROTO_T_BREQ);
		t_clear(t);
	}
	/* Slot 7: the last BREQs; nobody requests any more. */
	for (int i = 0; i < 4; i++) {
		if (i < 3) {
			t_data(t, PROTO_T_BREQ, i, 3, 7);
			sent++;
		}
		t_cfg(t, i, 0, 0xF, 0xF);
	}
	now = 7 * T_SLOT;
	for (int polls = 0; polls < 200 && got < sent; polls++) {
		unsigned int c;

		next = sw_fabric_poll(t->sw, now);
		c = t_count(t, 3, PROTO_T_BREQ);
		got += c;
		if (c)
			last_at = now;
		t_clear(t);
		now = next;
	}
	cr_expect_eq(got, sent, "%u of %u BREQs forwarded", got, sent);
	cr_expect_leq(last_at, 7 * T_SLOT + 16 * T_SLOT,
		      "the last buffered BREQ (queued by slot 7, 16 per output) left in slot %llu; its initiator gives up on its BACK after back_slots + 2 = 20 slots",
		      (unsigned long long)(last_at / T_SLOT));
	t_sw_free(t);
}
