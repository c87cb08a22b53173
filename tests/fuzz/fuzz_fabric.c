/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the switch fabric: four nodes on array ports
 * receive the frames the input describes (tests/fuzz/fuzz_records.h), the
 * fabric is polled with a clock the input advances, and what it sends is
 * freed. Besides the sanitizers' checks, it aborts when
 * - a frame the fabric sends does not decode (CRC checked) while it checks CRCs;
 * - the fabric counts another number of frames received than its ports gave;
 * - a frame received is not accounted for: forwarded, or dropped under a
 *   counter (the output-buffered model may still hold some);
 * - after sw_fabric_destroy a frame is missing from the pool.
 *
 * The header: the arbiter (an index into fab_arbiters); the options
 * (enum fab_opt bits); down_slots (bits 0-2), slot_frames - 1 (bits 3-4)
 * and the GNT keepalive (bits 5-7, 0: the default).
 * The harness has no action of its own: action 5 is a frame record too.
 * With SEGNET_FUZZ_COUNTERS set, each run prints the fabric's counters (to
 * see what a seed reaches).
 */
#include <stdlib.h>
#include <string.h>

#include "switchd/fabric.h"
#include "tests/common/array_port.h"
#include "fuzz_records.h"

enum {
	FAB_NODES = 4,		/* nodes of the fabric */
	FAB_SLOT_NS = 10000,	/* slot length */
	FAB_POOL = 2047,	/* frames in the pool */
	FAB_PORT_CAP = 256,	/* frames an array port holds each way */
	FAB_MAX_EPS = 64,	/* endpoint ids must be below this */
};

/* Header byte 1: the fabric's options. */
enum fab_opt {
	FAB_OPT_INTERLEAVE = 1 << 0,	/* quick mode interleave, else drop */
	FAB_OPT_TWO_PORTS = 1 << 1,	/* separate bulk and quick ports */
	FAB_OPT_IDLE_SKIP = 1 << 2,	/* idle_skip */
	FAB_OPT_NO_CRC = 1 << 3,	/* check_crc off */
	FAB_OPT_CONTROL = 1 << 4,	/* control frames on ports of their own */
};

/* The arbiters an input picks from. */
static const char *const fab_arbiters[] = {
	"lcf", "islip:2", "pim:1", "rr", "fifo-drop", "fifo-backpressure",
	"fifo-outbuf", "islip:1",
};

/* The arbiter whose output buffers may hold received frames. */
static const char fab_outbuf[] = "fifo-outbuf";

const char *const fuzz_name = "fuzz_fabric";

/* The pool of every run, made once. */
static struct rte_mempool *fab_mp;

/* One run: the fabric, its ports and its clock. */
struct fab_run {
	struct sw_fabric *sw;			/* under test */
	struct dp_port *bulk[FAB_NODES];	/* node i's bulk port */
	struct dp_port *quick[FAB_NODES];	/* its quick port (maybe bulk[i]) */
	struct dp_port *control[FAB_NODES];	/* its control port, or NULL */
	bool check_crc;				/* the fabric checks CRCs */
	bool outbuf;				/* the arbiter may hold frames */
};

/* Start the EAL and make the pool, once. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fab_mp = fuzz_pool("fuzz_fabric", FAB_POOL);
	return 0;
}

/* Make the ports of node i as the options say. */
static void fab_ports(struct fab_run *r, uint16_t i, uint8_t opts)
{
	char name[32];

	snprintf(name, sizeof(name), "n%u", i);
	r->bulk[i] = fuzz_port(name, FAB_PORT_CAP);
	r->quick[i] = r->bulk[i];
	if (opts & FAB_OPT_TWO_PORTS) {
		snprintf(name, sizeof(name), "n%u.quick", i);
		r->quick[i] = fuzz_port(name, FAB_PORT_CAP);
	}
	if (opts & FAB_OPT_CONTROL) {
		snprintf(name, sizeof(name), "n%u.control", i);
		r->control[i] = fuzz_port(name, FAB_PORT_CAP);
	}
}

/* Build the fabric the header describes; false when it refuses the configuration. */
static bool fab_start(void *run, struct fuzz_in *in)
{
	struct fab_run *r = run;
	uint8_t arb = fuzz_u8(in), opts = fuzz_u8(in), sizes = fuzz_u8(in);
	struct sw_config cfg = {
		.n_nodes = FAB_NODES,
		.arbiter = fab_arbiters[arb % RTE_DIM(fab_arbiters)],
		.quick_mode = opts & FAB_OPT_INTERLEAVE ? SW_QUICK_INTERLEAVE : SW_QUICK_DROP,
		.bulk_gbps = 10, .quick_gbps = 10,
		.slot_frames = 1u + ((sizes >> 3) & 3), .slot_ns = FAB_SLOT_NS,
		.down_slots = sizes & 7, .gnt_keepalive = sizes >> 5,
		.max_endpoints = FAB_MAX_EPS, .seed = 1, .mp = fab_mp,
		.check_crc = !(opts & FAB_OPT_NO_CRC),
		.idle_skip = opts & FAB_OPT_IDLE_SKIP,
		.control = opts & FAB_OPT_CONTROL ? r->control : NULL,
	};
	char err[256];

	for (uint16_t i = 0; i < FAB_NODES; i++)
		fab_ports(r, i, opts);
	r->check_crc = cfg.check_crc;
	r->outbuf = strcmp(cfg.arbiter, fab_outbuf) == 0;
	r->sw = sw_fabric_create(&cfg, r->bulk, r->quick, err, sizeof(err));
	if (!r->sw)
		fprintf(stderr, "fuzz_fabric: sw_fabric_create(%s): %s\n", cfg.arbiter, err);
	return r->sw != NULL;
}

/* Frames the fabric read from its ports. */
static uint64_t fab_port_rx(const struct fab_run *r)
{
	uint64_t n = 0;

	for (uint16_t i = 0; i < FAB_NODES; i++) {
		n += r->bulk[i]->stats.rx_frames;
		if (r->quick[i] != r->bulk[i])
			n += r->quick[i]->stats.rx_frames;
	}
	return n;
}

/* Frames received whose fate a counter records. */
static uint64_t fab_accounted(const struct sw_stats *s)
{
	return s->rx_invalid + s->wrong_port + s->hello_received + s->forged_src +
	       s->forged_notice + s->not_joined + s->src_down + s->unexpected_type +
	       s->cfg_received + s->dst_down + s->breq_forwarded +
	       s->breq_not_granted + s->breq_collision + s->breq_outbuf_full +
	       s->back_forwarded + s->back_not_scheduled + s->qreq_forwarded +
	       s->qreq_collision + s->qreq_disabled + s->qack_forwarded;
}

/* Poll at now, free what was sent and check the counters. */
static uint64_t fab_poll(void *run, uint64_t now)
{
	struct fab_run *r = run;
	const struct sw_stats *s;
	uint64_t next = sw_fabric_poll(r->sw, now);

	for (uint16_t i = 0; i < FAB_NODES; i++) {
		fuzz_drain(r->bulk[i], r->check_crc);
		if (r->quick[i] != r->bulk[i])
			fuzz_drain(r->quick[i], r->check_crc);
		if (r->control[i])
			fuzz_drain(r->control[i], r->check_crc);
	}
	s = sw_fabric_stats(r->sw);
	fuzz_check(s->rx_frames == fab_port_rx(r), "rx_frames counts what the ports gave");
	fuzz_check(fab_accounted(s) <= s->rx_frames, "no frame is accounted twice");
	fuzz_check(r->outbuf || fab_accounted(s) == s->rx_frames,
		   "every frame received is forwarded or counted as dropped");
	fuzz_check(sw_fabric_nodes_up(r->sw) <= FAB_NODES, "nodes up <= nodes");
	return next;
}

/* A frame record goes to its node's bulk or quick port. */
static struct dp_port *fab_port(void *run, const struct fuzz_op *op)
{
	struct fab_run *r = run;

	return op->bulk ? r->bulk[op->who] : r->quick[op->who];
}

/*
 * Slots count from the clock; the cluster has FAB_NODES nodes; epochs and
 * a WELCOME's nonce count from 0 (the fabric forwards them unread).
 */
static struct fuzz_ctx fab_ctx(void *run, uint64_t now)
{
	(void)run;
	return (struct fuzz_ctx) {
		.n_nodes = FAB_NODES, .slot = (uint32_t)(now / FAB_SLOT_NS),
		.slot_ns = FAB_SLOT_NS,
	};
}

/* Free the fabric and its ports. */
static void fab_stop(void *run)
{
	struct fab_run *r = run;

	if (r->sw && fuzz_print_counters)
		sw_fabric_print_counters(r->sw, stderr);
	sw_fabric_destroy(r->sw);
	for (uint16_t i = 0; i < FAB_NODES; i++) {
		if (r->quick[i] != r->bulk[i])
			dp_port_destroy(r->quick[i]);
		dp_port_destroy(r->bulk[i]);
		dp_port_destroy(r->control[i]);
	}
}

/* Run one input; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct fuzz_harness h = {
		.mp = fab_mp, .slot_ns = FAB_SLOT_NS, .start = fab_start,
		.poll = fab_poll, .port = fab_port, .ctx = fab_ctx, .stop = fab_stop,
	};
	struct fab_run r = { 0 };

	fuzz_run(&h, &r, data, size);
	return 0;
}
