/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the NIC core: one NIC serving one or two virtual
 * networks receives, as if from the switch, the frames the input describes
 * (tests/fuzz/fuzz_records.h: GNTs, BACKs, QREQs, BREQs, QACKs, DOWN
 * notices, ...), sends messages when the input says so, and is polled with
 * a clock the input advances; what it sends is freed. Acknowledgment bases
 * in the input count from the last packet number the NIC sent, so the
 * protocol stages (genp, timer, build_acks, dup_find, order) see acks near
 * their window, epochs from the last the NIC sent to the frame's source on
 * its vnet, and a WELCOME's nonce from the NIC's boot nonce, so frames of
 * the current epoch, stale ones and newer ones (pipeline_rx_epoch), FRESH
 * ones (pipeline_rx_fresh), WELCOMEs of the NIC's process, with and without
 * RESTART (pipeline_rx_welcome), and of an earlier one, frames to a
 * connection that knows no epoch yet (pipeline_rx_unwelcome) and NO_VNET
 * answers all reach the connections. Besides the sanitizers' checks, it
 * aborts when
 * - a frame the NIC sends does not decode (CRC checked), or does not carry
 *   its boot nonce where one belongs (the epoch field of a FRESH frame, the
 *   handler of a WELCOME);
 * - a completion names a message not sent, or one already completed, or
 *   has an unknown status; a delivery is for a virtual network or endpoint
 *   the NIC does not serve;
 * - nic_cancel does not complete, within the call and with SN_ERR_CANCELLED,
 *   exactly the messages of its (vnet, src_ep) in flight, or a message
 *   completes SN_ERR_CANCELLED outside it;
 * - the NIC reads a bulk payload after completing its message (each has its
 *   own heap copy, freed at the completion: AddressSanitizer's
 *   use-after-free);
 * - messages accepted differ from completed plus pending;
 * - a frame received is not counted by what became of it (nic_rx_outcomes);
 * - after nic_destroy a frame is missing from the pool.
 *
 * The header: the configurations (bits 0-2: vnet 1's, an index into
 * conf_table; bits 3-5: vnet 2's; bit 6: serve vnet 2 too; bit 7: both with
 * the timer's late_floor on, where they have a timer); the options
 * (enum nic_opt bits); the buffers (bits 0-1: bulk buffers - 1; bits 2-3:
 * quick buffers - 1; bits 4-5: descriptors 16 << n; bit 6: one bulk buffer
 * per target); the timing (bits 0-3: slots without GNT before rejoining - 1;
 * bits 4-7: the CFG keepalive, 0: the default).
 * Own action (5): a byte with bit 7 set turns refusing receive space on or
 * off; with bit 6 set it cancels the messages of vnet (byte & 3) and the
 * src_ep of the next byte (nic_cancel: their endpoint closed); else it
 * sends 1 + (count & 15) messages: vnet (byte & 3), dst_ep, src_ep,
 * handler, length / 9, count; the record's `who` is the target and its
 * bulk bit the channel.
 * With SEGNET_FUZZ_COUNTERS set, each run prints the NIC's counters (to see
 * what a seed reaches).
 */
#include <stdlib.h>
#include <string.h>

#include "nicd/conf.h"
#include "nicd/nic.h"
#include "tests/common/array_port.h"
#include "fuzz_records.h"

enum {
	NIC_F_NODES = 4,	/* largest cluster the NIC joins */
	NIC_F_SLOT_NS = 10000,	/* slot length GNTs carry by default */
	NIC_F_POOL = 2047,	/* frames in the pool */
	NIC_F_PORT_CAP = 256,	/* frames an array port holds each way */
	NIC_F_MAX_EPS = 64,	/* endpoint ids must be below this */
	NIC_F_MSGS = 4096,	/* messages one input may send */
	NIC_F_INCARNATION = 1,	/* the NIC's incarnation (nic_config) */
};

/* Header byte 1: the NIC's options. */
enum nic_opt {
	NIC_OPT_TWO_PORTS = 1 << 0,	/* separate bulk and quick ports */
	NIC_OPT_NO_CRC = 1 << 1,	/* check_crc off */
	NIC_OPT_QUICK_RATE = 1 << 2,	/* the quick port knows its rate: QREQs may wait */
	NIC_OPT_NO_SPACE = 1 << 3,	/* receive space refused from the start */
};

/* The first byte of an own action. */
enum nic_own_op {
	NIC_OWN_SPACE = 1 << 7,		/* turn refusing receive space on or off */
	NIC_OWN_CANCEL = 1 << 6,	/* cancel an endpoint's messages on this vnet */
	NIC_OWN_VNET = 3,		/* else send messages on this vnet */
};

const char *const fuzz_name = "fuzz_nic";

/* The pool of every run, made once. */
static struct rte_mempool *nic_f_mp;

/* One run: the NIC, its ports, its clock and what the owner saw. */
struct nic_run {
	struct nic *nic;		/* under test */
	struct dp_port *bulk;		/* its bulk port */
	struct dp_port *quick;		/* its quick port (maybe bulk) */
	uint32_t last_pkt_num;		/* the last packet number it sent */
	uint16_t nonce;			/* its boot nonce, as its FRESH frames carry it */
	/* The last epoch it sent on vnet v to node n, without FRESH or NO_VNET. */
	uint16_t epoch[FUZZ_EPOCH_VNETS][FUZZ_EPOCH_NODES];
	uint32_t frame_records;		/* frame records so far (packet numbers) */
	uint16_t vnets;			/* 1 or 2: vnets 1 .. vnets are served */
	bool no_space;			/* rx_space says no */
	uint32_t n_msgs;		/* messages sent so far */
	uint64_t completions;		/* complete callbacks */
	bool in_flight[NIC_F_MSGS];	/* message i sent, not completed */
	uint8_t vnet[NIC_F_MSGS];	/* message i's virtual network */
	uint8_t src_ep[NIC_F_MSGS];	/* ... and sending endpoint */
	uint8_t *payload[NIC_F_MSGS];	/* its bulk payload (heap), until it completes */
	bool cancelling;		/* inside nic_cancel ... */
	uint8_t cancel_vnet;		/* ... of this vnet */
	uint8_t cancel_ep;		/* ... and endpoint */
	uint32_t cancelled;		/* completions within it */
};

/* Start the EAL and make the pool, once. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	nic_f_mp = fuzz_pool("fuzz_nic", NIC_F_POOL);
	return 0;
}

/* Owner callback: a delivery must be for a served vnet and endpoint. */
static void nic_f_deliver(void *ctx, const struct sn_pkt *pkt, uint64_t now)
{
	const struct nic_run *r = ctx;

	(void)now;
	fuzz_check(pkt->h.vnet >= 1 && pkt->h.vnet <= r->vnets,
		   "deliveries are for a served virtual network");
	fuzz_check(pkt->h.dst_ep < NIC_F_MAX_EPS, "deliveries are for a valid endpoint");
	fuzz_check(pkt->h.payload_len <= PROTO_MAX_PAYLOAD, "payload within the format");
}

/* Owner callback: each message sent completes once, with a known status. */
static void nic_f_complete(void *ctx, const struct sn_pkt *pkt, int status,
			   uint64_t now)
{
	struct nic_run *r = ctx;
	uintptr_t i = (uintptr_t)pkt->cookie;

	(void)now;
	fuzz_check(i >= 1 && i <= r->n_msgs, "completions name a message sent");
	fuzz_check(r->in_flight[i - 1], "a message completes once");
	fuzz_check(status >= SN_OK && status <= SN_ERR_CANCELLED, "completion status known");
	fuzz_check((status == SN_ERR_CANCELLED) == r->cancelling,
		   "cancelled exactly within nic_cancel");
	if (r->cancelling) {
		fuzz_check(r->vnet[i - 1] == r->cancel_vnet && r->src_ep[i - 1] == r->cancel_ep,
			   "nic_cancel cancels only its endpoint's messages");
		r->cancelled++;
	}
	r->in_flight[i - 1] = false;
	free(r->payload[i - 1]);
	r->payload[i - 1] = NULL;
	r->completions++;
}

/* Owner callback: receive space, as the input last set it. */
static bool nic_f_rx_space(void *ctx, uint16_t vnet, uint16_t ep)
{
	const struct nic_run *r = ctx;

	(void)vnet;
	(void)ep;
	return !r->no_space;
}

/*
 * The pipeline spec of configuration index i of conf_table, into spec;
 * with late, the timer's late_floor on (a configuration without a timer
 * is left as it is).
 */
static void nic_f_conf(unsigned int i, bool late, char *spec, size_t len)
{
	const struct conf_def *c;
	unsigned int n = 0;
	char name[64], err[256];

	while (conf_table[n].name)
		n++;
	c = &conf_table[i % n];
	snprintf(name, sizeof(name), "%s%s", c->name,
		 late && strstr(c->spec, "timer") ? ",timer:late_floor=on" : "");
	if (conf_expand(name, spec, len, err, sizeof(err))) {
		fprintf(stderr, "fuzz_nic: %s: %s\n", name, err);
		abort();
	}
}

/* Make the ports as the options say. */
static void nic_f_ports(struct nic_run *r, uint8_t opts)
{
	r->bulk = fuzz_port("nic", NIC_F_PORT_CAP);
	r->quick = r->bulk;
	if (opts & NIC_OPT_TWO_PORTS)
		r->quick = fuzz_port("nic.quick", NIC_F_PORT_CAP);
	if (opts & NIC_OPT_QUICK_RATE)
		tport_of(r->quick)->gbps = 1;
}

/* Serve the virtual networks the header names; false if one is refused. */
static bool nic_f_vnets(struct nic_run *r, uint8_t confs)
{
	char err[256];

	r->vnets = confs & 0x40 ? 2 : 1;
	for (uint16_t v = 1; v <= r->vnets; v++) {
		char spec[256];

		nic_f_conf(v == 1 ? confs & 7 : (confs >> 3) & 7, confs & 0x80, spec,
			   sizeof(spec));
		if (nic_add_vnet(r->nic, v, spec, err, sizeof(err))) {
			fprintf(stderr, "fuzz_nic: nic_add_vnet(%s): %s\n", spec, err);
			return false;
		}
	}
	return true;
}

/* Build the NIC the header describes; false when it refuses the configuration. */
static bool nic_f_start(void *run, struct fuzz_in *in)
{
	struct nic_run *r = run;
	uint8_t confs = fuzz_u8(in), opts = fuzz_u8(in), bufs = fuzz_u8(in);
	uint8_t timing = fuzz_u8(in);
	uint16_t bulk_bufs = 1 + (bufs & 3);
	struct nic_config cfg = {
		.max_nodes = NIC_F_NODES, .max_endpoints = NIC_F_MAX_EPS,
		.bulk_bufs = bulk_bufs,
		.bulk_per_target = bufs & 0x40 ? 1 : bulk_bufs,
		.quick_bufs = 1 + ((bufs >> 2) & 3),
		.descriptors = 16u << ((bufs >> 4) & 3),
		.hello_ns = NIC_F_SLOT_NS, .lost_gnt_slots = 1u + (timing & 15),
		.mp = nic_f_mp, .check_crc = !(opts & NIC_OPT_NO_CRC),
		.cfg_keepalive = timing >> 4, .incarnation = NIC_F_INCARNATION,
	};
	struct nic_ops ops = {
		.ctx = r, .deliver = nic_f_deliver, .complete = nic_f_complete,
		.rx_space = nic_f_rx_space,
	};
	char err[256];

	nic_f_ports(r, opts);
	/* As nic_create derives it; nic_f_drain checks every frame that carries it. */
	r->nonce = (uint16_t)(cfg.incarnation ^ cfg.incarnation >> 16);
	r->no_space = opts & NIC_OPT_NO_SPACE;
	r->nic = nic_create(&cfg, &ops, r->bulk, r->quick, err, sizeof(err));
	if (!r->nic) {
		fprintf(stderr, "fuzz_nic: nic_create: %s\n", err);
		return false;
	}
	return nic_f_vnets(r, confs);
}

/*
 * Remember the epoch of p's connection, which the NIC sent to p's
 * destination: a FRESH frame's holds its boot nonce, a NO_VNET answer's the
 * epoch of the frame it answers, neither the connection's.
 */
static void nic_f_note_epoch(struct nic_run *r, const struct proto_pkt *p)
{
	if (p->type > PROTO_T_QACK || (p->flags & (PROTO_F_FRESH | PROTO_F_NO_VNET)) ||
	    p->vnet >= FUZZ_EPOCH_VNETS || p->dst_node >= FUZZ_EPOCH_NODES)
		return;
	r->epoch[p->vnet][p->dst_node] = p->epoch;
}

/*
 * Check and free what the NIC sent on port (one decode per frame, not the
 * second fuzz_drain's check would add; its boot nonce where one belongs);
 * remember the last packet number and each connection's epoch.
 */
static void nic_f_drain(struct nic_run *r, struct dp_port *port)
{
	for (unsigned int i = 0; i < tport_sent(port); i++) {
		struct proto_pkt p;

		fuzz_check(tdp_decode(tport_frame(port, i), &p) == PROTO_R_OK,
			   "every frame sent decodes OK");
		fuzz_check(!(p.flags & PROTO_F_FRESH) || p.epoch == r->nonce,
			   "a FRESH frame carries the NIC's boot nonce");
		fuzz_check(!(p.flags & PROTO_F_WELCOME) || p.handler == r->nonce,
			   "a WELCOME carries the NIC's boot nonce");
		if (p.flags & PROTO_F_DATA)
			r->last_pkt_num = p.pkt_num;
		nic_f_note_epoch(r, &p);
	}
	fuzz_drain(port, false);
}

/* The counts each connection keeps agree with its lists (pipeline_counts_agree). */
static void nic_f_check_counts(struct nic_run *r)
{
	char why[160];

	for (uint16_t v = 1; v <= r->vnets; v++)
		fuzz_check(pipeline_counts_agree(nic_pipeline(r->nic, v), why, sizeof(why)),
			   "a connection's never_sent and rx_blocks_used agree with its lists");
}

/* Poll at now, free what was sent and check the counters. */
static uint64_t nic_f_poll(void *run, uint64_t now)
{
	struct nic_run *r = run;
	const struct nic_stats *s;
	uint64_t next = nic_poll(r->nic, now);
	uint16_t id;

	nic_f_drain(r, r->bulk);
	if (r->quick != r->bulk)
		nic_f_drain(r, r->quick);
	s = nic_stats(r->nic);
	fuzz_check(s->tx_msgs == s->completed_ok + s->completed_err + nic_pending(r->nic),
		   "messages accepted = completed + pending");
	fuzz_check(r->completions == s->completed_ok + s->completed_err,
		   "every completion is reported to the owner");
	fuzz_check(nic_rx_outcomes(s) == s->rx_frames,
		   "every frame received is counted by what became of it");
	id = nic_node_id(r->nic);
	fuzz_check(id == PROTO_NODE_NONE || id < NIC_F_NODES, "node id in range");
	nic_f_check_counts(r);
	return next;
}

/* Send the messages a record describes to node `to`, at now. */
static void nic_f_send(struct nic_run *r, struct fuzz_in *in, uint8_t vnet,
		       uint16_t to, bool bulk, uint64_t now)
{
	struct nic_msg msg = {
		.vnet = vnet, .dst_node = to, .dst_ep = fuzz_u8(in),
		.src_ep = fuzz_u8(in), .handler = fuzz_u8(in),
		.chan = bulk ? SN_CHAN_BULK : SN_CHAN_QUICK,
	};
	unsigned int len = fuzz_u8(in) * FUZZ_PAYLOAD_UNIT, count = 1 + (fuzz_u8(in) & 15);

	msg.len = (uint16_t)(bulk ? RTE_MIN(len, (unsigned int)PROTO_MAX_PAYLOAD) : 0);
	for (unsigned int k = 0; k < count && r->n_msgs < NIC_F_MSGS; k++) {
		uint32_t i = r->n_msgs++;

		/* Its own copy, freed at its completion: a later read is a use after free. */
		r->payload[i] = bulk ? calloc(1, msg.len + 1u) : NULL;
		msg.payload = r->payload[i];
		msg.cookie = (void *)(uintptr_t)(i + 1);
		r->in_flight[i] = true;
		r->vnet[i] = vnet;
		r->src_ep[i] = (uint8_t)msg.src_ep;
		if (nic_send(r->nic, &msg, now)) {
			free(r->payload[i]);
			r->payload[i] = NULL;
			r->in_flight[--r->n_msgs] = false;
		}
	}
}

/* Cancel endpoint src_ep's messages on vnet: exactly those in flight complete, cancelled. */
static void nic_f_cancel(struct nic_run *r, uint8_t vnet, uint8_t src_ep, uint64_t now)
{
	uint32_t expected = 0, got;

	for (uint32_t i = 0; i < r->n_msgs; i++)
		expected += r->in_flight[i] && r->vnet[i] == vnet && r->src_ep[i] == src_ep;
	r->cancelling = true;
	r->cancel_vnet = vnet;
	r->cancel_ep = src_ep;
	r->cancelled = 0;
	got = nic_cancel(r->nic, vnet, src_ep, now);
	r->cancelling = false;
	fuzz_check(got == expected && r->cancelled == expected,
		   "nic_cancel completes every message of its endpoint in flight");
}

/* Own action: send messages, or turn refusing receive space on or off. */
static void nic_f_own(void *run, struct fuzz_in *in, const struct fuzz_op *op,
		      uint64_t now)
{
	struct nic_run *r = run;
	uint8_t b = fuzz_u8(in);

	if (b & NIC_OWN_SPACE)
		r->no_space = !r->no_space;
	else if (b & NIC_OWN_CANCEL)
		nic_f_cancel(r, b & NIC_OWN_VNET, fuzz_u8(in), now);
	else
		nic_f_send(r, in, b & NIC_OWN_VNET, op->who, op->bulk, now);
}

/* A frame record goes to the bulk or the quick port. */
static struct dp_port *nic_f_port(void *run, const struct fuzz_op *op)
{
	struct nic_run *r = run;

	return op->bulk ? r->bulk : r->quick;
}

/*
 * Slots count from the clock, data packet numbers from the frame records
 * so far, ack bases from the last packet number the NIC sent, epochs from
 * the last the NIC sent on each connection, the nonce a WELCOME took from
 * the NIC's own.
 */
static struct fuzz_ctx nic_f_ctx(void *run, uint64_t now)
{
	struct nic_run *r = run;
	struct fuzz_ctx ctx = {
		.n_nodes = NIC_F_NODES, .slot = (uint32_t)(now / NIC_F_SLOT_NS),
		.slot_ns = NIC_F_SLOT_NS, .pkt_num = ++r->frame_records,
		.ack_base = r->last_pkt_num, .nonce = r->nonce,
	};

	memcpy(ctx.epoch, r->epoch, sizeof(ctx.epoch));
	return ctx;
}

/* Free the NIC and its ports. */
static void nic_f_stop(void *run)
{
	struct nic_run *r = run;

	if (r->nic && fuzz_print_counters)
		nic_print_counters(r->nic, "nic", stderr);
	nic_destroy(r->nic);
	for (uint32_t i = 0; i < r->n_msgs; i++)
		free(r->payload[i]);
	if (r->quick != r->bulk)
		dp_port_destroy(r->quick);
	dp_port_destroy(r->bulk);
}

/* Run one input; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nic_run r;
	const struct fuzz_harness h = {
		.mp = nic_f_mp, .slot_ns = NIC_F_SLOT_NS, .start = nic_f_start,
		.poll = nic_f_poll, .port = nic_f_port, .ctx = nic_f_ctx,
		.own = nic_f_own, .stop = nic_f_stop,
	};

	memset(&r, 0, sizeof(r));
	fuzz_run(&h, &r, data, size);
	return 0;
}
