/* SPDX-License-Identifier: BSD-3-Clause */
/* The record format and the checks fuzz_fabric and fuzz_nic share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/array_port.h"
#include "fuzz_records.h"

enum {
	/* Raw frames are at most this long (a full BREQ and then some). */
	FUZZ_RAW_MAX = 2200,
	/* Frames fuzz_hold keeps at most. */
	FUZZ_HOLD_MAX = 4096,
};

bool fuzz_print_counters;

/* Frames fuzz_hold took out of their pool. */
static struct rte_mbuf *fuzz_held[FUZZ_HOLD_MAX];

/* Entries used in fuzz_held. */
static unsigned int fuzz_n_held;

uint8_t fuzz_u8(struct fuzz_in *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t hi = fuzz_u8(in);

	return (uint16_t)(hi << 8 | fuzz_u8(in));
}

/* True when every byte is read. */
static bool fuzz_done(const struct fuzz_in *in)
{
	return in->left == 0;
}

/* Read a record's op and adv bytes; slot_ns scales the advance. */
static struct fuzz_op fuzz_op_read(struct fuzz_in *in, uint64_t slot_ns)
{
	uint8_t op = fuzz_u8(in), adv = fuzz_u8(in);
	struct fuzz_op o = {
		.who = op & 3, .bulk = op & 4, .action = (op >> 3) & 7,
	};

	switch (op >> 6) {
	case FUZZ_S_NONE:
		break;
	case FUZZ_S_FINE:
		o.advance_ns = adv * slot_ns / 64;
		break;
	case FUZZ_S_SLOTS:
		o.advance_ns = adv * slot_ns / 4;
		break;
	default:
		o.advance_ns = adv * slot_ns * 4;
		break;
	}
	return o;
}

/*
 * The clock of a FUZZ_A_NEXT record: the time the component asked to run
 * at (next), but never before now, nor more than FUZZ_NEXT_MAX_SLOTS slots
 * ahead: a component with nothing to do may ask for the end of time.
 */
static uint64_t fuzz_next(uint64_t now, uint64_t next, uint64_t slot_ns)
{
	if (next <= now)
		return now;
	return next - now > FUZZ_NEXT_MAX_SLOTS * slot_ns ?
	       now + FUZZ_NEXT_MAX_SLOTS * slot_ns : next;
}

/* A node id from a record byte: 0 .. 5 as they are, then the switch and none. */
static uint16_t fuzz_node(uint8_t code)
{
	code &= 7;
	if (code == 6)
		return PROTO_NODE_SWITCH;
	return code == 7 ? PROTO_NODE_NONE : code;
}

/* The header flags a frame record can set: every one (fuzz_flags_read). */
_Static_assert((PROTO_F_ALL & ~(0xFFu | 3u << 8 | 3u << 10 | 3u << 12)) == 0,
	       "a frame record sets flags bits 0-13 only: give a new flag a bit of the record");

/*
 * The header flags of a frame record: bits 0-7 from its flags byte, 8-9
 * from its epoch byte ecode, 10 to 13 from its sel byte.
 */
static uint16_t fuzz_flags_read(uint8_t sel, uint8_t fbyte, uint8_t ecode)
{
	unsigned int hi = (ecode >> FUZZ_E_FLAGS_SHIFT) & 3u;

	hi |= ((sel >> FUZZ_SEL_RESTART_SHIFT) & 1u) << 2;
	hi |= ((sel >> FUZZ_SEL_WELCOME_SHIFT) & 1u) << 3;
	hi |= ((sel >> FUZZ_SEL_REFUSED_SHIFT) & 1u) << 4;
	hi |= ((sel >> FUZZ_SEL_DUP_SHIFT) & 1u) << 5;
	return (uint16_t)((fbyte | hi << 8) & PROTO_F_ALL);
}

/* The signed delta -8 .. 7 in bits 0-3 of a record byte. */
static int fuzz_delta4(uint8_t code)
{
	return ((code & FUZZ_E_DELTA) ^ 8) - 8;
}

/* base moved by a signed byte, modulo 2^24. */
static uint32_t fuzz_seq(uint32_t base, uint8_t delta)
{
	return proto_seq_add(base, (uint32_t)(int32_t)(int8_t)delta);
}

/*
 * A WELCOME's packet number, the boot nonce it took: ctx's (the
 * component's own) moved by the delta in bits 0-3 of the packet number
 * byte code, so that one in 16 welcomes the component's process and the
 * others an earlier one.
 */
static uint16_t fuzz_welcome_nonce(const struct fuzz_ctx *ctx, uint8_t code)
{
	return (uint16_t)(ctx->nonce + fuzz_delta4(code));
}

/* The epoch fuzz_ctx holds for p's connection (from its source, on its vnet), else 0. */
static uint16_t fuzz_conn_epoch(const struct fuzz_ctx *ctx, const struct proto_pkt *p)
{
	if (p->vnet >= FUZZ_EPOCH_VNETS || p->src_node >= FUZZ_EPOCH_NODES)
		return 0;
	return ctx->epoch[p->vnet][p->src_node];
}

/* The epoch field an epoch byte gives for a frame of a connection at conn. */
static uint16_t fuzz_epoch_read(struct fuzz_in *in, uint8_t code, uint16_t conn)
{
	int delta = fuzz_delta4(code);
	uint16_t base;

	switch ((code >> FUZZ_E_BASE_SHIFT) & 3) {
	case FUZZ_E_CONN:
		base = conn;
		break;
	case FUZZ_E_ZERO:
		base = 0;
		break;
	case FUZZ_E_HALF:
		base = (uint16_t)(conn + 0x8000);
		break;
	default:
		base = fuzz_u16(in);
		break;
	}
	return (uint16_t)(base + delta);
}

/* Read a CFG body: size, request counts and the two enable vectors. */
static void fuzz_cfg_read(struct fuzz_in *in, const struct fuzz_ctx *ctx,
			  struct proto_pkt *p, uint8_t *vecs)
{
	uint8_t code = fuzz_u8(in);
	uint16_t n = code ? code : ctx->n_nodes;
	size_t vl = (n + 7u) / 8, len = n + 2 * vl;

	for (size_t i = 0; i < len; i++)
		vecs[i] = fuzz_u8(in);
	p->cfg = (struct proto_cfg) {
		.slot = p->slot, .n_nodes = n, .counts = vecs,
		.bulk_en = vecs + n, .quick_en = vecs + n + vl,
	};
}

/* Read a GNT body. */
static void fuzz_gnt_read(struct fuzz_in *in, const struct fuzz_ctx *ctx,
			  struct proto_pkt *p)
{
	struct proto_gnt *g = &p->gnt;
	uint8_t n, ns;

	g->slot = p->slot;
	g->target = fuzz_node(fuzz_u8(in));
	g->node_id = fuzz_node(fuzz_u8(in));
	n = fuzz_u8(in);
	g->n_nodes = n ? n : ctx->n_nodes;
	g->gflags = fuzz_u8(in) & PROTO_GNT_F_ALL;
	ns = fuzz_u8(in);
	g->slot_ns = ns ? ns * 1000u : ctx->slot_ns;
	g->back_slots = fuzz_u8(in);
	g->slot_frames = fuzz_u8(in);
}

/*
 * The WELCOME flag of p made plausible: only a QACK that is neither a
 * notice nor a NO_VNET answer is a WELCOME; it is not FRESH, and its
 * handler, its sender's boot nonce, is the handler byte as a delta from 0
 * (-128 .. 127), near the nonces of FRESH frames (FUZZ_E_ZERO). Only a
 * WELCOME says RESTART.
 */
static void fuzz_plausible_welcome(struct proto_pkt *p)
{
	if (p->type != PROTO_T_QACK || (p->flags & (PROTO_F_DOWN | PROTO_F_NO_VNET)))
		p->flags &= (uint16_t)~PROTO_F_WELCOME;
	if (!(p->flags & PROTO_F_WELCOME)) {
		p->flags &= (uint16_t)~PROTO_F_RESTART;
		return;
	}
	p->flags &= (uint16_t)~PROTO_F_FRESH;
	p->handler = (uint16_t)(int8_t)p->handler;
}

/*
 * The REFUSED flag of p made plausible: a QACK's or a BACK's that is
 * neither a notice, a NO_VNET answer nor a WELCOME (a BACK's says NACK
 * too), a QREQ's that is a marker (ABANDONED); no BREQ's.
 */
static void fuzz_plausible_refused(struct proto_pkt *p)
{
	if (!(p->flags & PROTO_F_REFUSED))
		return;
	if (p->type == PROTO_T_BREQ ||
	    (p->flags & (PROTO_F_DOWN | PROTO_F_NO_VNET | PROTO_F_WELCOME)))
		p->flags &= (uint16_t)~PROTO_F_REFUSED;
	else if (p->type == PROTO_T_BACK)
		p->flags |= PROTO_F_NACK;
	else if (p->type == PROTO_T_QREQ)
		p->flags |= PROTO_F_ABANDONED;
}

/*
 * The DUP flag of p made plausible: a QACK's that is neither a notice, a
 * NO_VNET answer, a WELCOME nor a refusal; it says ACK and is not FRESH.
 */
static void fuzz_plausible_dup(struct proto_pkt *p)
{
	if (!(p->flags & PROTO_F_DUP))
		return;
	if (p->type != PROTO_T_QACK ||
	    (p->flags & (PROTO_F_DOWN | PROTO_F_NO_VNET | PROTO_F_WELCOME | PROTO_F_REFUSED)))
		p->flags &= (uint16_t)~PROTO_F_DUP;
	else
		p->flags = (uint16_t)((p->flags | PROTO_F_ACK) & ~PROTO_F_FRESH);
}

/*
 * Make the fields of p plausible for its type, so that the decoder accepts
 * it and the state machines see it: what a field needs zero is zero; a
 * DOWN notice's epoch is its kind, from the epoch byte ecode, and its
 * handler names a process as a WELCOME's does; neither a
 * notice nor a NO_VNET answer is FRESH; the WELCOME and RESTART flags as
 * fuzz_plausible_welcome says, REFUSED as fuzz_plausible_refused, DUP as
 * fuzz_plausible_dup.
 */
static void fuzz_plausible(struct proto_pkt *p, uint8_t ecode)
{
	if (p->flags & PROTO_F_DOWN)
		p->epoch = ecode & FUZZ_E_KIND;
	if (p->flags & (PROTO_F_DOWN | PROTO_F_NO_VNET))
		p->flags &= (uint16_t)~PROTO_F_FRESH;
	fuzz_plausible_welcome(p);
	fuzz_plausible_refused(p);
	fuzz_plausible_dup(p);
	if (p->type == PROTO_T_BREQ || p->type == PROTO_T_QREQ)
		p->flags |= PROTO_F_DATA;
	if (!(p->flags & (PROTO_F_DATA | PROTO_F_WELCOME | PROTO_F_REFUSED | PROTO_F_DUP)))
		p->pkt_num = 0;
	if (p->flags & PROTO_F_DOWN)
		p->handler = (uint16_t)(int8_t)p->handler;	/* a process near the FRESH nonces */
	else if (!(p->flags & (PROTO_F_DATA | PROTO_F_WELCOME)))
		p->handler = 0;
	if (!(p->flags & PROTO_F_ACK))
		p->ack_base = p->ack_mask = 0;
	switch (p->type) {
	case PROTO_T_GNT:
		p->src_node = PROTO_NODE_SWITCH;
		p->dst_node = p->gnt.node_id;
		break;
	case PROTO_T_CFG:
	case PROTO_T_HELLO:
		p->dst_node = PROTO_NODE_SWITCH;
		break;
	default:
		return;
	}
	p->flags = p->vnet = p->src_ep = p->dst_ep = p->handler = p->epoch = 0;
	p->pkt_num = p->ack_base = p->ack_mask = 0;
}

/* A frame holding the next len bytes of the input as they are. */
static struct rte_mbuf *fuzz_raw_read(struct fuzz_in *in, struct rte_mempool *mp)
{
	uint16_t len = fuzz_u16(in) % FUZZ_RAW_MAX;
	struct rte_mbuf *m;

	if (len > in->left)
		len = (uint16_t)in->left;
	if (!len)
		return NULL;
	m = dp_frame_alloc(mp, len);
	if (m)
		memcpy(rte_pktmbuf_mtod(m, void *), in->p, len);
	in->p += len;
	in->left -= len;
	return m;
}

/*
 * A frame from mp built from the record body: proto_encode of the fields
 * it gives, or (raw) its bytes as they are. NULL when the pool is empty,
 * the encoder refuses the fields, or raw bytes are too few.
 */
static struct rte_mbuf *fuzz_frame_read(struct fuzz_in *in, struct rte_mempool *mp,
					const struct fuzz_ctx *ctx, bool raw)
{
	static const uint8_t bytes[PROTO_MAX_PAYLOAD];
	static uint8_t vecs[3 * 256];
	struct proto_pkt p = { .args = bytes, .payload = bytes };
	uint8_t sel, fbyte, pbyte, ecode;
	int rc;

	if (raw)
		return fuzz_raw_read(in, mp);
	sel = fuzz_u8(in);
	p.type = (uint8_t)((sel & FUZZ_SEL_TYPE) % PROTO_T_MAX + 1);
	fbyte = fuzz_u8(in);
	p.src_node = fuzz_node(fuzz_u8(in));
	p.dst_node = fuzz_node(fuzz_u8(in));
	p.vnet = fuzz_u8(in);
	p.src_ep = fuzz_u8(in);
	p.dst_ep = fuzz_u8(in);
	p.handler = fuzz_u8(in);
	pbyte = fuzz_u8(in);
	p.pkt_num = fuzz_seq(ctx->pkt_num, pbyte);
	p.ack_base = fuzz_seq(ctx->ack_base, fuzz_u8(in));
	p.ack_mask = fuzz_u8(in);
	p.slot = ctx->slot + (uint32_t)(int32_t)(int8_t)fuzz_u8(in);
	p.payload_len = (uint16_t)RTE_MIN(fuzz_u8(in) * FUZZ_PAYLOAD_UNIT,
					  PROTO_MAX_PAYLOAD);
	ecode = fuzz_u8(in);
	p.flags = fuzz_flags_read(sel, fbyte, ecode);
	p.epoch = fuzz_epoch_read(in, ecode, fuzz_conn_epoch(ctx, &p));
	if (p.type == PROTO_T_CFG)
		fuzz_cfg_read(in, ctx, &p, vecs);
	else if (p.type == PROTO_T_GNT)
		fuzz_gnt_read(in, ctx, &p);
	else if (p.type == PROTO_T_HELLO)
		p.hello_nonce = fuzz_u8(in);
	if (!(sel & FUZZ_SEL_AS_GIVEN))
		fuzz_plausible(&p, ecode);
	if (p.flags & PROTO_F_WELCOME)
		p.pkt_num = fuzz_welcome_nonce(ctx, pbyte);
	/* A refusal names a packet the component sent: near the last one. */
	if ((p.flags & PROTO_F_REFUSED) && p.type != PROTO_T_QREQ)
		p.pkt_num = fuzz_seq(ctx->ack_base, pbyte);
	/* A copy's: one its own ack covers, 0 .. 31 below the base. */
	if (p.flags & PROTO_F_DUP)
		p.pkt_num = proto_seq_add(p.ack_base, PROTO_PKT_NUM_MASK + 1u - (pbyte & 31u));
	proto_node_mac(p.src_node, p.eth_src);
	proto_node_mac(p.dst_node, p.eth_dst);
	return tdp_frame(mp, &p, &rc);
}

/*
 * Take up to n frames out of mp and keep them, so that the component under
 * test finds the pool empty; fuzz_release gives them back.
 */
static void fuzz_hold(struct rte_mempool *mp, unsigned int n)
{
	while (n-- && fuzz_n_held < FUZZ_HOLD_MAX) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

		if (!m)
			return;
		fuzz_held[fuzz_n_held++] = m;
	}
}

/* Give back every frame fuzz_hold took. */
static void fuzz_release(void)
{
	rte_pktmbuf_free_bulk(fuzz_held, fuzz_n_held);
	fuzz_n_held = 0;
}

void fuzz_check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "%s: invariant broken: %s\n", fuzz_name, what);
	abort();
}

struct rte_mempool *fuzz_pool(const char *name, unsigned int n)
{
	struct rte_mempool *mp;

	fuzz_check(tdp_eal_start() == 0, "rte_eal_init succeeds");
	mp = dp_pool_create(name, n, SOCKET_ID_ANY);
	fuzz_check(mp != NULL, "the frame pool is made");
	fuzz_print_counters = getenv("SEGNET_FUZZ_COUNTERS") != NULL;
	return mp;
}

struct dp_port *fuzz_port(const char *name, unsigned int cap)
{
	struct dp_port *port = tport_new(name, cap);

	fuzz_check(port != NULL, "an array port is made");
	return port;
}

void fuzz_drain(struct dp_port *port, bool check)
{
	for (unsigned int i = 0; check && i < tport_sent(port); i++) {
		struct proto_pkt p;

		fuzz_check(tdp_decode(tport_frame(port, i), &p) == PROTO_R_OK,
			   "every frame sent decodes OK");
	}
	tport_clear(port);
}

/* Abort unless the pool holds avail frames again: a frame leaked. */
static void fuzz_check_pool(struct rte_mempool *mp, unsigned int avail)
{
	unsigned int now = rte_mempool_avail_count(mp);

	if (now == avail)
		return;
	fprintf(stderr, "%s: %d frames missing from the pool after destroy\n",
		fuzz_name, (int)avail - (int)now);
	fuzz_check(false, "every frame is back in the pool");
}

/* A FUZZ_A_POOL record: hold frames or give them back. */
static void fuzz_pool_op(struct rte_mempool *mp, uint8_t b)
{
	if (b & FUZZ_POOL_RELEASE)
		fuzz_release();
	else
		fuzz_hold(mp, (b & FUZZ_POOL_UNITS) * FUZZ_POOL_UNIT);
}

/* Queue frame m on port, polling first when its rx queue is full. */
static void fuzz_queue(const struct fuzz_harness *h, void *run, uint64_t now,
		       struct dp_port *port, struct rte_mbuf *m)
{
	if (!m)
		return;
	if (!tport_queue(port, m)) {
		h->poll(run, now);
		if (!tport_queue(port, m))
			rte_pktmbuf_free(m);
	}
}

/* Carry out one record; *now and *next are the clock and the poll's answer. */
static void fuzz_record(const struct fuzz_harness *h, void *run, struct fuzz_in *in,
			uint64_t *now, uint64_t *next)
{
	struct fuzz_op op = fuzz_op_read(in, h->slot_ns);
	bool raw = op.action == FUZZ_A_RAW;

	if (op.action == FUZZ_A_OWN && h->own) {
		h->own(run, in, &op, *now);
	} else if (op.action == FUZZ_A_POOL) {
		fuzz_pool_op(h->mp, fuzz_u8(in));
	} else if (op.action == FUZZ_A_NEXT) {
		*now = fuzz_next(*now, *next, h->slot_ns);
	} else {
		struct fuzz_ctx ctx = h->ctx(run, *now);

		fuzz_queue(h, run, *now, h->port(run, &op),
			   fuzz_frame_read(in, h->mp, &ctx, raw));
	}
	*now += op.advance_ns;
	if (op.advance_ns || op.action == FUZZ_A_NEXT)
		*next = h->poll(run, *now);
}

void fuzz_run(const struct fuzz_harness *h, void *run, const uint8_t *data,
	      size_t size)
{
	struct fuzz_in in = { .p = data, .left = size };
	unsigned int avail = rte_mempool_avail_count(h->mp);
	uint64_t now = 0, next = 0;

	if (h->start(run, &in)) {
		while (!fuzz_done(&in))
			fuzz_record(h, run, &in, &now, &next);
		h->poll(run, now);
	}
	h->stop(run);
	fuzz_release();
	fuzz_check_pool(h->mp, avail);
}
