/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire format: round trips, one crafted frame per rejection reason, CRC32C,
 * byte order, and bounds (every decode runs on a buffer that ends at a
 * PROT_NONE page, so a read past len crashes the test).
 *
 * With SEGNET_PROTO_CORPUS=DIR set, the corpus::write test also writes every
 * frame of this file to DIR: the libFuzzer seed corpus (tests/fuzz/README.md).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "proto/crc32c.h"
#include "proto/proto.h"
#include "test_doc_util.h"

/* Byte offsets from the frame start, as doc/protocol.md lists them. */
enum {
	OFF_ETH_DST = 0,
	OFF_ETH_SRC = 6,
	OFF_ETHERTYPE = 12,
	OFF_VERSION = 14,
	OFF_TYPE = 15,
	OFF_FLAGS = 16,
	OFF_SRC_NODE = 18,
	OFF_DST_NODE = 20,
	OFF_VNET = 22,
	OFF_SRC_EP = 24,
	OFF_DST_EP = 26,
	OFF_HANDLER = 28,
	OFF_PKT_NUM = 30,
	OFF_ACK_BASE = 34,
	OFF_ACK_MASK = 38,
	OFF_PAYLOAD_LEN = 42,
	OFF_EPOCH = 44,
	OFF_BODY = 46,
	OFF_BREQ_SLOT = 46,
	OFF_BREQ_ARGS = 50,
	OFF_BREQ_PAYLOAD = 82,
	OFF_QREQ_ARGS = 46,
	OFF_QREQ_CRC = 78,
	OFF_BACK_SLOT = 46,
	OFF_CFG_SLOT = 46,
	OFF_CFG_N_NODES = 50,
	OFF_CFG_RESERVED = 52,
	OFF_CFG_COUNTS = 54,
	OFF_GNT_SLOT = 46,
	OFF_GNT_TARGET = 50,
	OFF_GNT_NODE_ID = 52,
	OFF_GNT_N_NODES = 54,
	OFF_GNT_GFLAGS = 56,
	OFF_GNT_SLOT_NS = 58,
	OFF_GNT_TIMESTAMP = 62,
	OFF_GNT_BACK_SLOTS = 70,
	OFF_GNT_SLOT_FRAMES = 72,
	OFF_HELLO_NONCE = 46,
	OFF_HELLO_CAPS = 50,
};

/* Largest frame the format allows: BREQ with 2048 bytes of payload. */
enum { MAX_FRAME = PROTO_ETH_LEN + PROTO_HDR_LEN + sizeof(struct proto_breq_body) +
		   PROTO_MAX_PAYLOAD + PROTO_CRC_LEN };
_Static_assert(MAX_FRAME == 2134, "full BREQ frame");

/* Room for a packet's args, payload and CFG vectors. */
struct pkt_store {
	uint8_t args[PROTO_ARGS_LEN];		/* BREQ, QREQ arguments */
	uint8_t payload[PROTO_MAX_PAYLOAD];	/* BREQ payload */
	uint8_t counts[PROTO_MAX_NODES];	/* CFG request counts */
	uint8_t bulk_en[PROTO_MAX_NODES / 8];	/* CFG bulk enable vector */
	uint8_t quick_en[PROTO_MAX_NODES / 8];	/* CFG quick enable vector */
};

/* An encoded frame with room to grow past its length. */
struct frame {
	uint8_t buf[MAX_FRAME + 64];	/* frame bytes, then spare room */
	size_t len;			/* frame length */
};

/* Limits used by the crafted frames that test configured maxima. */
static const struct proto_limits lim16 = { .max_nodes = 16, .max_endpoints = 64 };

/* Write v big endian into size bytes at p. */
static void put_be(uint8_t *p, unsigned int size, uint64_t v)
{
	for (unsigned int i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * (size - 1 - i)));
}

/* Read size bytes big endian at p. */
static uint64_t get_be(const uint8_t *p, unsigned int size)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < size; i++)
		v = v << 8 | p[i];
	return v;
}

/* Frame length before padding: what the decoder needs, CRC included. */
static size_t raw_len(const struct proto_pkt *p)
{
	uint16_t n = p->type == PROTO_T_CFG ? p->cfg.n_nodes : 0;
	uint16_t pl = p->type == PROTO_T_BREQ ? p->payload_len : 0;

	return PROTO_ETH_LEN + PROTO_HDR_LEN + proto_body_len(p->type, n) + pl +
	       PROTO_CRC_LEN;
}

/* Recompute the CRC trailer of a frame whose CRC ends at raw. */
static void fix_crc(uint8_t *f, size_t raw)
{
	size_t end = raw - PROTO_CRC_LEN;

	put_be(f + end, 4, crc32c(f + PROTO_ETH_LEN, end - PROTO_ETH_LEN));
}

/*
 * Decode len bytes placed right before a PROT_NONE page: a read past len
 * faults and Criterion reports the test as crashed. The page is kept for
 * the whole test process.
 */
static enum proto_reason decode_guarded(const void *frame, size_t len,
					const struct proto_limits *lim,
					struct proto_pkt *out)
{
	static uint8_t *area;
	static size_t page;

	if (!area) {
		page = (size_t)sysconf(_SC_PAGESIZE);
		area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		cr_assert_neq(area, MAP_FAILED, "mmap: %s", strerror(errno));
		cr_assert_eq(mprotect(area + page, page, PROT_NONE), 0);
	}
	cr_assert_leq(len, page);
	memcpy(area + page - len, frame, len);
	return proto_decode(area + page - len, len, lim, out);
}

/* One valid packet of the round-trip set (and of the seed corpus). */
struct valid_case {
	const char *name;		/* test message and corpus file name */
	int fill;			/* byte for args/payload/vectors, -1: pattern */
	struct proto_pkt pkt;		/* buffers are attached by valid_pkt() */
};

/* Round-trip cases: every type with the boundary values of its fields. */
static const struct valid_case valid_cases[] = {
	{ "breq-payload0-min", 0, { .type = PROTO_T_BREQ, .flags = PROTO_F_DATA,
	  .src_node = 0, .dst_node = 1023, .src_ep = 0, .dst_ep = 4095,
	  .slot = 0 } },
	{ "breq-payload1-all-flags", -1, { .type = PROTO_T_BREQ,
	  .flags = PROTO_F_DATA | PROTO_F_ACK | PROTO_F_LAST | PROTO_F_RETX |
		   PROTO_F_FORCE_ACK,
	  .src_node = 1023, .dst_node = 0, .vnet = 1, .src_ep = 4095,
	  .dst_ep = 0, .handler = 1, .pkt_num = 0xFFFFFF, .ack_base = 0xFFFFFF,
	  .ack_mask = 0xFFFFFFFF, .payload_len = 1, .slot = 0x01020304 } },
	{ "breq-payload2047", -1, { .type = PROTO_T_BREQ,
	  .flags = PROTO_F_DATA | PROTO_F_RETX, .src_node = 17, .dst_node = 18,
	  .vnet = 0x1234, .src_ep = 7, .dst_ep = 8, .handler = 0x4321,
	  .pkt_num = 0x800000, .payload_len = 2047, .slot = 0x80000000 } },
	{ "breq-payload2048-ones", 0xFF, { .type = PROTO_T_BREQ,
	  .flags = PROTO_F_DATA | PROTO_F_LAST, .src_node = 1023,
	  .dst_node = 1023, .vnet = 0xFFFF, .src_ep = 4095, .dst_ep = 4095,
	  .handler = 0xFFFF, .pkt_num = 0xFFFFFF, .payload_len = 2048,
	  .slot = 0xFFFFFFFF } },
	{ "back-min", 0, { .type = PROTO_T_BACK, .src_node = 0, .dst_node = 0,
	  .slot = 0 } },
	{ "back-max", 0, { .type = PROTO_T_BACK,
	  .flags = PROTO_F_ACK | PROTO_F_NACK | PROTO_F_DOWN,
	  .src_node = 1023, .dst_node = 1023, .vnet = 0xFFFF, .src_ep = 4095,
	  .dst_ep = 4095, .ack_base = 0xFFFFFF, .ack_mask = 0xFFFFFFFF,
	  .slot = 0xFFFFFFFF } },
	{ "back-nack", 0, { .type = PROTO_T_BACK, .flags = PROTO_F_NACK,
	  .src_node = 4, .dst_node = 9, .vnet = 3, .slot = 77 } },
	{ "back-down-notice", 0, { .type = PROTO_T_BACK, .flags = PROTO_F_DOWN,
	  .src_node = 6, .dst_node = 2, .slot = 123456 } },
	/* a notice names the node's process by its boot nonce in handler */
	{ "back-down-notice-nonce", 0, { .type = PROTO_T_BACK, .flags = PROTO_F_DOWN,
	  .src_node = 6, .dst_node = 2, .handler = 0xFFFF, .slot = 1,
	  .epoch = PROTO_DOWN_REJOINED } },
	{ "qack-down-notice-nonce", 0, { .type = PROTO_T_QACK, .flags = PROTO_F_DOWN,
	  .src_node = 6, .dst_node = 2, .vnet = 9, .handler = 0x1234 } },
	{ "qreq-args-zero", 0, { .type = PROTO_T_QREQ, .flags = PROTO_F_DATA,
	  .src_node = 0, .dst_node = 1023, .pkt_num = 0 } },
	{ "qreq-args-ones", 0xFF, { .type = PROTO_T_QREQ,
	  .flags = PROTO_F_DATA | PROTO_F_ACK | PROTO_F_LAST | PROTO_F_FORCE_ACK,
	  .src_node = 1023, .dst_node = 0, .vnet = 0xFFFF, .src_ep = 4095,
	  .dst_ep = 4095, .handler = 0xFFFF, .pkt_num = 0xFFFFFF,
	  .ack_base = 0, .ack_mask = 0xFFFFFFFF } },
	{ "qreq-pattern", -1, { .type = PROTO_T_QREQ,
	  .flags = PROTO_F_DATA | PROTO_F_RETX, .src_node = 1, .dst_node = 2,
	  .vnet = 7, .src_ep = 3, .dst_ep = 4, .handler = 9, .pkt_num = 1 } },
	{ "qack-zero", 0, { .type = PROTO_T_QACK, .flags = PROTO_F_ACK,
	  .src_node = 0, .dst_node = 0 } },
	{ "qack-max", 0, { .type = PROTO_T_QACK, .flags = PROTO_F_ACK | PROTO_F_DOWN,
	  .src_node = 1023, .dst_node = 1023, .vnet = 0xFFFF, .src_ep = 4095,
	  .dst_ep = 4095, .ack_base = 0xFFFFFF, .ack_mask = 0xFFFFFFFF } },
	{ "qack-no-flags", 0, { .type = PROTO_T_QACK, .flags = 0,
	  .src_node = 7, .dst_node = 8, .vnet = 4, .src_ep = 5, .dst_ep = 6 } },
	{ "qack-down-notice", 0, { .type = PROTO_T_QACK, .flags = PROTO_F_DOWN,
	  .src_node = 6, .dst_node = 2, .vnet = 9, .slot = 55 } },
	{ "cfg-n1", -1, { .type = PROTO_T_CFG, .src_node = 0,
	  .dst_node = PROTO_NODE_SWITCH, .cfg = { .slot = 0, .n_nodes = 1 } } },
	{ "cfg-n1-ones", 0xFF, { .type = PROTO_T_CFG, .src_node = 0,
	  .dst_node = PROTO_NODE_SWITCH, .cfg = { .slot = 1, .n_nodes = 1 } } },
	{ "cfg-n8-ones", 0xFF, { .type = PROTO_T_CFG, .src_node = 7,
	  .dst_node = PROTO_NODE_SWITCH, .cfg = { .slot = 0xFFFFFFFF, .n_nodes = 8 } } },
	{ "cfg-n9", -1, { .type = PROTO_T_CFG, .src_node = 8,
	  .dst_node = PROTO_NODE_SWITCH, .cfg = { .slot = 9, .n_nodes = 9 } } },
	{ "cfg-n9-ones", 0xFF, { .type = PROTO_T_CFG, .src_node = 8,
	  .dst_node = PROTO_NODE_SWITCH, .cfg = { .slot = 10, .n_nodes = 9 } } },
	{ "cfg-n1024", -1, { .type = PROTO_T_CFG, .src_node = 1023,
	  .dst_node = PROTO_NODE_SWITCH, .cfg = { .slot = 0x80000000, .n_nodes = 1024 } } },
	{ "cfg-n1024-ones", 0xFF, { .type = PROTO_T_CFG, .src_node = 1023,
	  .dst_node = PROTO_NODE_SWITCH, .cfg = { .slot = 5, .n_nodes = 1024 } } },
	{ "gnt-target-none", 0, { .type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH,
	  .dst_node = 0, .gnt = { .slot = 0, .target = PROTO_NODE_NONE,
	  .node_id = 0, .n_nodes = 1, .slot_ns = 1, .slot_frames = 1 } } },
	{ "gnt-max", 0, { .type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH,
	  .dst_node = 1023, .gnt = { .slot = 0xFFFFFFFF, .target = 1023,
	  .node_id = 1023, .n_nodes = 1024, .gflags = PROTO_GNT_F_ALL,
	  .slot_ns = 0xFFFFFFFF, .timestamp_ns = UINT64_MAX,
	  .back_slots = 0xFFFF, .slot_frames = 0xFFFF } } },
	{ "gnt-target0-joined", 0, { .type = PROTO_T_GNT,
	  .src_node = PROTO_NODE_SWITCH, .dst_node = 2, .gnt = { .slot = 12345,
	  .target = 0, .node_id = 2, .n_nodes = 3, .gflags = PROTO_GNT_F_JOINED,
	  .slot_ns = 1638, .timestamp_ns = 0x0123456789ABCDEFull, .back_slots = 2,
	  .slot_frames = 4 } } },
	{ "gnt-fifo-self", 0, { .type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH,
	  .dst_node = 5, .gnt = { .slot = 1, .target = 5, .node_id = 5,
	  .n_nodes = 6, .gflags = PROTO_GNT_F_FIFO, .slot_ns = 1000,
	  .slot_frames = 1 } } },
	{ "hello-unassigned", 0, { .type = PROTO_T_HELLO, .src_node = PROTO_NODE_NONE,
	  .dst_node = PROTO_NODE_SWITCH, .hello_nonce = 0 } },
	{ "hello-node-max", 0, { .type = PROTO_T_HELLO, .src_node = 1023,
	  .dst_node = PROTO_NODE_SWITCH, .hello_nonce = 0xFFFFFFFF } },
	{ "hello-node0", 0, { .type = PROTO_T_HELLO, .src_node = 0,
	  .dst_node = PROTO_NODE_SWITCH, .hello_nonce = 0xC0FFEE } },
	/* the connection epoch (any value on the four types of a connection) */
	{ "qreq-epoch-half", -1, { .type = PROTO_T_QREQ, .flags = PROTO_F_DATA,
	  .src_node = 1, .dst_node = 2, .vnet = 7, .pkt_num = 2, .epoch = 0x8000 } },
	{ "breq-epoch-max", -1, { .type = PROTO_T_BREQ, .flags = PROTO_F_DATA | PROTO_F_ACK,
	  .src_node = 2, .dst_node = 1, .vnet = 7, .pkt_num = 3, .ack_base = 1,
	  .payload_len = 5, .slot = 6, .epoch = 0xFFFF } },
	{ "back-epoch-1", 0, { .type = PROTO_T_BACK, .flags = PROTO_F_NACK,
	  .src_node = 1, .dst_node = 2, .vnet = 7, .slot = 8, .epoch = 1 } },
	/* a BACK names the BREQ it answers by its packet number */
	{ "back-pkt-num", 0, { .type = PROTO_T_BACK, .flags = PROTO_F_ACK,
	  .src_node = 1, .dst_node = 2, .vnet = 7, .pkt_num = 0xFFFFFF, .ack_base = 4,
	  .slot = 9, .epoch = 2 } },
	{ "qack-epoch-ff00", 0, { .type = PROTO_T_QACK, .flags = PROTO_F_ACK,
	  .src_node = 2, .dst_node = 1, .vnet = 7, .ack_base = 2, .epoch = 0xFF00 } },
};

enum { N_VALID = sizeof(valid_cases) / sizeof(valid_cases[0]) };

/* Byte i of a fill pattern: a constant, or a sequence seeded by seed. */
static uint8_t fill_byte(int fill, unsigned int seed, size_t i)
{
	return fill >= 0 ? (uint8_t)fill : (uint8_t)(i * 37 + seed * 11 + 5);
}

/* Fill a CFG enable vector for n nodes, leaving the bits past n clear. */
static void fill_vec(uint8_t *vec, uint16_t n, int fill, unsigned int seed)
{
	size_t vl = ((size_t)n + 7) / 8;

	for (size_t i = 0; i < vl; i++)
		vec[i] = fill_byte(fill, seed, i);
	if (n & 7)
		vec[vl - 1] &= (uint8_t)((1u << (n & 7)) - 1);
}

/* Attach filled buffers from s to a copy of pkt; MACs follow the nodes. */
static void pkt_attach(struct proto_pkt *p, int fill, unsigned int seed,
		       struct pkt_store *s)
{
	for (size_t i = 0; i < sizeof(s->args); i++)
		s->args[i] = fill_byte(fill, seed, i);
	for (size_t i = 0; i < sizeof(s->payload); i++)
		s->payload[i] = fill_byte(fill, seed + 1, i);
	for (size_t i = 0; i < sizeof(s->counts); i++)
		s->counts[i] = fill_byte(fill, seed + 2, i);
	proto_node_mac(p->dst_node, p->eth_dst);
	proto_node_mac(p->src_node, p->eth_src);
	if (p->type == PROTO_T_BREQ || p->type == PROTO_T_QREQ)
		p->args = s->args;
	if (p->type == PROTO_T_BREQ)
		p->payload = s->payload;
	if (p->type == PROTO_T_CFG) {
		fill_vec(s->bulk_en, p->cfg.n_nodes, fill, seed + 3);
		fill_vec(s->quick_en, p->cfg.n_nodes, fill, seed + 4);
		p->cfg.counts = s->counts;
		p->cfg.bulk_en = s->bulk_en;
		p->cfg.quick_en = s->quick_en;
	}
}

/* The packet of valid case i, with its buffers in s. */
static void valid_pkt(size_t i, struct proto_pkt *p, struct pkt_store *s)
{
	*p = valid_cases[i].pkt;
	pkt_attach(p, valid_cases[i].fill, (unsigned int)i, s);
}

/* The packet of the valid case called name. */
static void valid_named(const char *name, struct proto_pkt *p,
			struct pkt_store *s)
{
	size_t i = 0;

	while (i < N_VALID && strcmp(valid_cases[i].name, name))
		i++;
	cr_assert_lt(i, N_VALID, "no valid case %s", name);
	valid_pkt(i, p, s);
}

/* Encode p into f, asserting success and the documented length. */
static void encode_ok(const struct proto_pkt *p, struct frame *f)
{
	int n;

	memset(f->buf, 0xA5, sizeof(f->buf));
	n = proto_encode(p, f->buf, sizeof(f->buf));
	cr_assert_gt(n, 0, "encode %s: %d", proto_type_name(p->type), n);
	f->len = (size_t)n;
	cr_assert_eq(f->len, proto_frame_len(p));
	cr_assert_eq(f->len, raw_len(p) < 60 ? 60 : raw_len(p));
}

/* Assert two decoded CFG bodies are equal, vectors included. */
static void assert_cfg_eq(const struct proto_cfg *a, const struct proto_cfg *b,
			  const char *name)
{
	size_t vl = ((size_t)a->n_nodes + 7) / 8;

	cr_assert_eq(a->slot, b->slot, "%s: cfg slot", name);
	cr_assert_eq(a->n_nodes, b->n_nodes, "%s: n_nodes", name);
	cr_assert_eq(memcmp(a->counts, b->counts, a->n_nodes), 0, "%s: counts", name);
	cr_assert_eq(memcmp(a->bulk_en, b->bulk_en, vl), 0, "%s: bulk_en", name);
	cr_assert_eq(memcmp(a->quick_en, b->quick_en, vl), 0, "%s: quick_en", name);
}

/* Assert two GNT bodies are equal field by field. */
static void assert_gnt_eq(const struct proto_gnt *a, const struct proto_gnt *b,
			  const char *name)
{
	cr_assert_eq(a->slot, b->slot, "%s: gnt slot", name);
	cr_assert_eq(a->target, b->target, "%s: target", name);
	cr_assert_eq(a->node_id, b->node_id, "%s: node_id", name);
	cr_assert_eq(a->n_nodes, b->n_nodes, "%s: gnt n_nodes", name);
	cr_assert_eq(a->gflags, b->gflags, "%s: gflags", name);
	cr_assert_eq(a->slot_ns, b->slot_ns, "%s: slot_ns", name);
	cr_assert_eq(a->timestamp_ns, b->timestamp_ns, "%s: timestamp", name);
	cr_assert_eq(a->back_slots, b->back_slots, "%s: back_slots", name);
	cr_assert_eq(a->slot_frames, b->slot_frames, "%s: slot_frames", name);
}

/*
 * Assert the fields of b (decoded) equal those of a (encoded), for a's type.
 * Only BREQ and BACK carry the common slot; the decoder sets it to 0 on the
 * other types whatever the encoder was given.
 */
static void assert_pkt_eq(const struct proto_pkt *a, const struct proto_pkt *b,
			  const char *name)
{
	cr_assert_eq(memcmp(a->eth_dst, b->eth_dst, 6), 0, "%s: eth dst", name);
	cr_assert_eq(memcmp(a->eth_src, b->eth_src, 6), 0, "%s: eth src", name);
	cr_assert_eq(a->type, b->type, "%s: type", name);
	cr_assert_eq(a->flags, b->flags, "%s: flags", name);
	cr_assert_eq(a->src_node, b->src_node, "%s: src_node", name);
	cr_assert_eq(a->dst_node, b->dst_node, "%s: dst_node", name);
	cr_assert_eq(a->vnet, b->vnet, "%s: vnet", name);
	cr_assert_eq(a->src_ep, b->src_ep, "%s: src_ep", name);
	cr_assert_eq(a->dst_ep, b->dst_ep, "%s: dst_ep", name);
	cr_assert_eq(a->handler, b->handler, "%s: handler", name);
	cr_assert_eq(a->pkt_num, b->pkt_num, "%s: pkt_num", name);
	cr_assert_eq(a->ack_base, b->ack_base, "%s: ack_base", name);
	cr_assert_eq(a->ack_mask, b->ack_mask, "%s: ack_mask", name);
	cr_assert_eq(a->payload_len, b->payload_len, "%s: payload_len", name);
	cr_assert_eq(a->epoch, b->epoch, "%s: epoch", name);
	if (a->type == PROTO_T_BREQ || a->type == PROTO_T_BACK)
		cr_assert_eq(a->slot, b->slot, "%s: slot", name);
	else
		cr_assert_eq(b->slot, 0, "%s: slot of a type without one", name);
	switch (a->type) {
	case PROTO_T_BREQ:
		cr_assert_eq(memcmp(a->payload, b->payload, a->payload_len), 0,
			     "%s: payload", name);
		cr_assert_eq(memcmp(a->args, b->args, PROTO_ARGS_LEN), 0,
			     "%s: args", name);
		break;
	case PROTO_T_QREQ:
		cr_assert_eq(memcmp(a->args, b->args, PROTO_ARGS_LEN), 0,
			     "%s: args", name);
		break;
	case PROTO_T_CFG:
		assert_cfg_eq(&a->cfg, &b->cfg, name);
		break;
	case PROTO_T_GNT:
		assert_gnt_eq(&a->gnt, &b->gnt, name);
		break;
	case PROTO_T_HELLO:
		cr_assert_eq(a->hello_nonce, b->hello_nonce, "%s: nonce", name);
		break;
	}
}

/* The starter test; it flipped byte 40 (ack_mask, caught as ACK_FIELDS). */
Test(proto, qreq_round_trip)
{
	uint8_t args[PROTO_ARGS_LEN], buf[256];
	struct proto_pkt p = { .type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_LAST,
		.src_node = 1, .dst_node = 2, .vnet = 7, .src_ep = 3, .dst_ep = 4,
		.handler = 9, .pkt_num = 0xFFFFFF, .args = args }, q;
	int len;

	for (int i = 0; i < PROTO_ARGS_LEN; i++)
		args[i] = (uint8_t)i;
	len = proto_encode(&p, buf, sizeof(buf));
	cr_assert_eq(len, 82);
	cr_assert_eq(proto_decode(buf, (size_t)len, NULL, &q), PROTO_R_OK);
	cr_assert_eq(q.pkt_num, 0xFFFFFF);
	cr_assert_eq(memcmp(q.args, args, PROTO_ARGS_LEN), 0);
	buf[OFF_QREQ_ARGS + 4] ^= 1;	/* covered by the CRC, checked by nothing else */
	cr_assert_eq(proto_decode(buf, (size_t)len, NULL, &q), PROTO_R_CRC);
}

/* Every valid case decodes OK to the fields it was encoded from. */
Test(proto, round_trip_every_type_and_boundary)
{
	static struct pkt_store s;
	bool seen[PROTO_T_MAX + 1] = { false };
	struct proto_pkt p, q;
	struct frame f;

	for (size_t i = 0; i < N_VALID; i++) {
		enum proto_reason r;

		valid_pkt(i, &p, &s);
		encode_ok(&p, &f);
		memset(&q, 0x5A, sizeof(q));
		r = decode_guarded(f.buf, f.len, NULL, &q);
		cr_assert_eq(r, PROTO_R_OK, "%s: %s", valid_cases[i].name,
			     proto_reason_name(r));
		assert_pkt_eq(&p, &q, valid_cases[i].name);
		seen[p.type] = true;
	}
	for (unsigned int t = 1; t <= PROTO_T_MAX; t++)
		cr_expect(seen[t], "no round trip for type %s", proto_type_name((uint8_t)t));
}

/* Frame lengths as doc/protocol.md lists them, padding included. */
Test(proto, frame_lengths)
{
	static struct pkt_store s;
	static const struct { const char *name; size_t len; } want[] = {
		{ "breq-payload0-min", 86 }, { "breq-payload1-all-flags", 87 },
		{ "breq-payload2047", 2133 }, { "breq-payload2048-ones", 2134 },
		{ "back-min", 60 }, { "back-down-notice", 60 },
		{ "qreq-args-zero", 82 }, { "qack-zero", 60 }, { "qack-no-flags", 60 },
		{ "cfg-n1", 61 },
		{ "cfg-n8-ones", 68 }, { "cfg-n9", 71 }, { "cfg-n1024", 1338 },
		{ "gnt-max", 78 }, { "hello-node0", 60 },
	};
	struct proto_pkt p;

	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		valid_named(want[w].name, &p, &s);
		cr_expect_eq(proto_frame_len(&p), want[w].len, "%s: %zu", want[w].name,
			     proto_frame_len(&p));
	}
}

/* The encoder refuses what it cannot lay out, and short buffers. */
Test(proto, encode_errors)
{
	static struct pkt_store s;
	struct proto_pkt p;
	uint8_t buf[MAX_FRAME];

	valid_named("breq-payload0-min", &p, &s);
	p.type = 0;
	cr_expect_eq(proto_encode(&p, buf, sizeof(buf)), -EINVAL);
	p.type = PROTO_T_MAX + 1;
	cr_expect_eq(proto_encode(&p, buf, sizeof(buf)), -EINVAL);
	p.type = PROTO_T_BREQ;
	p.payload_len = PROTO_MAX_PAYLOAD + 1;
	cr_expect_eq(proto_encode(&p, buf, sizeof(buf)), -EINVAL);
	p.payload_len = 10;
	cr_expect_eq(proto_encode(&p, buf, 95), -ENOSPC);
	cr_expect_eq(proto_encode(&p, buf, 96), 96);
	p.payload_len = PROTO_MAX_PAYLOAD;	/* the largest frame, 2134 bytes */
	cr_expect_eq(proto_encode(&p, buf, MAX_FRAME - 1), -ENOSPC);
	cr_expect_eq(proto_encode(&p, buf, MAX_FRAME), MAX_FRAME);
	valid_named("cfg-n9", &p, &s);
	p.cfg.n_nodes = 0;
	cr_expect_eq(proto_encode(&p, buf, sizeof(buf)), -EINVAL);
	p.cfg.n_nodes = PROTO_MAX_NODES + 1;
	cr_expect_eq(proto_encode(&p, buf, sizeof(buf)), -EINVAL);
	valid_named("qack-zero", &p, &s);	/* 60 bytes after padding */
	cr_expect_eq(proto_encode(&p, buf, 59), -ENOSPC);
}

/* payload_len is written as 0 on every type but BREQ. */
Test(proto, encode_ignores_payload_of_other_types)
{
	static struct pkt_store s;
	struct proto_pkt p, q;
	struct frame f;

	valid_named("qreq-args-zero", &p, &s);
	p.payload_len = 100;
	encode_ok(&p, &f);
	cr_expect_eq(f.len, 82);
	cr_expect_eq(get_be(f.buf + OFF_PAYLOAD_LEN, 2), 0);
	cr_expect_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_OK);
}

/* Every prefix shorter than the frame's content is rejected, never OK. */
Test(proto, prefixes_are_rejected)
{
	static struct pkt_store s;
	static const size_t min_hdr = PROTO_ETH_LEN + PROTO_HDR_LEN + PROTO_CRC_LEN;
	struct proto_pkt p, q;
	struct frame f;

	for (size_t i = 0; i < N_VALID; i++) {
		size_t raw;

		valid_pkt(i, &p, &s);
		encode_ok(&p, &f);
		raw = raw_len(&p);
		for (size_t l = 0; l < raw; l++) {
			enum proto_reason r = decode_guarded(f.buf, l, NULL, &q);

			cr_assert_eq(r, l < min_hdr ? PROTO_R_TOO_SHORT : PROTO_R_TRUNCATED,
				     "%s prefix %zu: %s", valid_cases[i].name, l,
				     proto_reason_name(r));
		}
		/* Between the content and the padded length: padding, accepted. */
		for (size_t l = raw; l <= f.len; l++)
			cr_assert_eq(decode_guarded(f.buf, l, NULL, &q), PROTO_R_OK,
				     "%s length %zu", valid_cases[i].name, l);
		f.buf[f.len] = 0;
		cr_assert_eq(decode_guarded(f.buf, f.len + 1, NULL, &q), PROTO_R_TRAILING,
			     "%s plus one byte", valid_cases[i].name);
	}
}

/* Padding is not covered by the CRC and its content is not checked. */
Test(proto, padding_content_is_ignored)
{
	static struct pkt_store s;
	struct proto_pkt p, q;
	struct frame f;

	valid_named("back-min", &p, &s);	/* 54 bytes of content */
	encode_ok(&p, &f);
	cr_assert_eq(f.len, 60);
	for (size_t i = raw_len(&p); i < f.len; i++) {
		cr_assert_eq(f.buf[i], 0, "encoder pads with zeros");
		f.buf[i] = 0xEE;
	}
	cr_expect_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_OK);
}

/* The CRC starts after the Ethernet header: MACs may be rewritten. */
Test(proto, crc_excludes_ethernet_header)
{
	static struct pkt_store s;
	struct proto_pkt p, q;
	struct frame f;

	valid_named("qreq-pattern", &p, &s);
	encode_ok(&p, &f);
	f.buf[OFF_ETH_DST + 5] ^= 0xFF;
	f.buf[OFF_ETH_SRC] ^= 0x01;
	cr_expect_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_OK);
	cr_expect_eq(q.eth_src[0], 0x03);
}

/* Configured limits narrow node and endpoint ranges; 0 means maxima. */
Test(proto, limits)
{
	static struct pkt_store s;
	static const struct proto_limits zero = { 0 }, big = { 60000, 60000, false };
	struct proto_pkt p, q;
	struct frame f;

	valid_named("breq-payload0-min", &p, &s);	/* dst 1023, dst_ep 4095 */
	encode_ok(&p, &f);
	cr_expect_eq(decode_guarded(f.buf, f.len, &zero, &q), PROTO_R_OK,
		     "zero limits mean the format's maxima");
	cr_expect_eq(decode_guarded(f.buf, f.len, &big, &q), PROTO_R_OK,
		     "limits above the format's maxima are clamped");
	p.dst_node = 15;
	p.dst_ep = 63;
	encode_ok(&p, &f);
	cr_expect_eq(decode_guarded(f.buf, f.len, &lim16, &q), PROTO_R_OK);
	p.dst_ep = 64;
	encode_ok(&p, &f);
	cr_expect_eq(decode_guarded(f.buf, f.len, &lim16, &q), PROTO_R_ENDPOINT);
	p.dst_node = 16;
	p.dst_ep = 0;
	encode_ok(&p, &f);
	cr_expect_eq(decode_guarded(f.buf, f.len, &lim16, &q), PROTO_R_DST_NODE);
}

/* skip_crc accepts a bad CRC and nothing else. */
Test(proto, skip_crc)
{
	static struct pkt_store s;
	static const struct proto_limits nocrc = { .skip_crc = true };
	struct proto_pkt p, q;
	struct frame f;

	valid_named("qreq-pattern", &p, &s);
	encode_ok(&p, &f);
	f.buf[OFF_QREQ_ARGS] ^= 1;
	cr_expect_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_CRC);
	cr_expect_eq(decode_guarded(f.buf, f.len, &nocrc, &q), PROTO_R_OK);
	f.buf[OFF_PKT_NUM] = 1;
	cr_expect_eq(decode_guarded(f.buf, f.len, &nocrc, &q), PROTO_R_PKT_NUM,
		     "skip_crc skips only the CRC");
}

/* Bases the crafted frames start from: valid frames of each type. */
enum base {
	B_BREQ,		/* 16 bytes of payload: 102 bytes */
	B_BACK,
	B_QREQ,
	B_QACK,
	B_CFG9,
	B_GNT,
	B_HELLO,
	B_COUNT
};

/* The valid packet a crafted frame starts from. */
static void base_pkt(enum base b, struct proto_pkt *p, struct pkt_store *s)
{
	static const struct proto_pkt bases[B_COUNT] = {
		[B_BREQ] = { .type = PROTO_T_BREQ,
			.flags = PROTO_F_DATA | PROTO_F_ACK | PROTO_F_LAST,
			.src_node = 3, .dst_node = 5, .vnet = 2, .src_ep = 10,
			.dst_ep = 11, .handler = 7, .pkt_num = 100, .ack_base = 50,
			.ack_mask = 5, .payload_len = 16, .slot = 41 },
		[B_BACK] = { .type = PROTO_T_BACK, .flags = PROTO_F_ACK,
			.src_node = 5, .dst_node = 3, .vnet = 2, .src_ep = 11,
			.dst_ep = 10, .ack_base = 100, .ack_mask = 1, .slot = 41 },
		[B_QREQ] = { .type = PROTO_T_QREQ, .flags = PROTO_F_DATA,
			.src_node = 3, .dst_node = 5, .vnet = 2, .src_ep = 10,
			.dst_ep = 11, .handler = 9, .pkt_num = 7 },
		[B_QACK] = { .type = PROTO_T_QACK, .flags = PROTO_F_ACK,
			.src_node = 5, .dst_node = 3, .vnet = 2, .src_ep = 11,
			.dst_ep = 10, .ack_base = 7 },
		[B_CFG9] = { .type = PROTO_T_CFG, .src_node = 3,
			.dst_node = PROTO_NODE_SWITCH,
			.cfg = { .slot = 42, .n_nodes = 9 } },
		[B_GNT] = { .type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH,
			.dst_node = 3, .gnt = { .slot = 43, .target = 5,
			.node_id = 3, .n_nodes = 9, .slot_ns = 1000,
			.timestamp_ns = 123456789, .back_slots = 2,
			.slot_frames = 1 } },
		[B_HELLO] = { .type = PROTO_T_HELLO, .src_node = PROTO_NODE_NONE,
			.dst_node = PROTO_NODE_SWITCH, .hello_nonce = 0xC0FFEE },
	};

	*p = bases[b];
	pkt_attach(p, -1, 100 + (unsigned int)b, s);
	if (b == B_CFG9) {
		/* bulk: nodes 0, 2, 4, 8; quick: nodes 1, 3, 8 */
		s->bulk_en[0] = 0x15;
		s->bulk_en[1] = 0x01;
		s->quick_en[0] = 0x0A;
		s->quick_en[1] = 0x01;
	}
}

/* A change to size (1, 2, 4) bytes at off, big endian; size 0: none. */
struct patch {
	uint16_t off;		/* frame offset */
	uint8_t size;		/* bytes: 1, 2 or 4; 0 ends the list */
	uint32_t val;		/* value written, or xor-ed when corrupting */
};

/* A frame built from a valid base to fail with one expected reason. */
struct craft {
	enum proto_reason reason;	/* what the decoder must answer */
	const char *name;		/* test message and corpus file name */
	enum base base;			/* the valid frame it starts from */
	struct patch patch[2];	/* set, then the CRC is recomputed */
	bool corrupt;		/* patches XOR after the CRC instead */
	int len_delta;		/* zero bytes added, or bytes cut at the end */
	const struct proto_limits *lim;	/* decoder limits; NULL: format's */
};

/* Shorthands for the crafted-frame table. */
#define P(off, size, val) { (off), (size), (val) }
#define C(r, nm, b, ...) \
	{ .reason = PROTO_R_##r, .name = nm, .base = b, __VA_ARGS__ }

/* At least one crafted frame for every reason but OK. */
static const struct craft crafts[] = {
	C(TOO_SHORT, "empty", B_QACK, .len_delta = -60),
	C(TOO_SHORT, "ethernet-only", B_QACK, .len_delta = -46),
	C(TOO_SHORT, "49-bytes", B_QACK, .len_delta = -11),
	C(ETHERTYPE, "ipv4", B_QREQ, .patch = { P(OFF_ETHERTYPE, 2, 0x0800) }),
	C(ETHERTYPE, "byte-swapped", B_QREQ, .patch = { P(OFF_ETHERTYPE, 2, 0xB588) }),
	C(ETHERTYPE, "local-experimental-2", B_BACK, .patch = { P(OFF_ETHERTYPE, 2, 0x88B6) }),
	C(VERSION, "v0", B_QREQ, .patch = { P(OFF_VERSION, 1, 0) }),
	C(VERSION, "v2", B_GNT, .patch = { P(OFF_VERSION, 1, 2) }),
	C(VERSION, "v255", B_QACK, .patch = { P(OFF_VERSION, 1, 255) }),
	C(TYPE, "type0", B_QREQ, .patch = { P(OFF_TYPE, 1, 0) }),
	C(TYPE, "type8", B_QREQ, .patch = { P(OFF_TYPE, 1, PROTO_T_MAX + 1) }),
	C(TYPE, "type255", B_HELLO, .patch = { P(OFF_TYPE, 1, 255) }),
	C(FLAGS, "undefined-bit14", B_QREQ, .patch = { P(OFF_FLAGS, 2, PROTO_F_DATA | 0x4000) }),
	/* DUP: a node's QACK with its acknowledgment, answering a data frame. */
	C(FLAGS, "dup-on-qreq", B_QREQ, .patch = { P(OFF_FLAGS, 2, PROTO_F_DATA | PROTO_F_DUP) }),
	C(FLAGS, "dup-on-back", B_BACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_ACK | PROTO_F_DUP) }),
	C(FLAGS, "dup-on-gnt", B_GNT, .patch = { P(OFF_FLAGS, 2, PROTO_F_DUP) }),
	C(FLAGS, "dup-without-ack", B_QACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_DUP),
		P(OFF_ACK_BASE, 4, 0) }),
	C(FLAGS, "dup-on-down", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_DOWN | PROTO_F_DUP) }),
	C(FLAGS, "dup-on-no-vnet", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_NO_VNET | PROTO_F_DUP) }),
	C(FLAGS, "dup-with-fresh", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_FRESH | PROTO_F_DUP) }),
	C(FLAGS, "dup-on-welcome", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_WELCOME | PROTO_F_DUP) }),
	C(FLAGS, "dup-on-refusal", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_REFUSED | PROTO_F_DUP) }),
	C(FLAGS, "refused-on-breq", B_BREQ, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_DATA | PROTO_F_REFUSED) }),
	C(FLAGS, "refused-back-without-nack", B_BACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_REFUSED) }),
	C(FLAGS, "refused-qreq-not-a-marker", B_QREQ, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_DATA | PROTO_F_REFUSED) }),
	C(FLAGS, "refused-on-welcome", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_WELCOME | PROTO_F_REFUSED) }),
	C(FLAGS, "refused-on-down", B_BACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_NACK | PROTO_F_DOWN | PROTO_F_REFUSED) }),
	C(FLAGS, "refused-on-no-vnet", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_NO_VNET | PROTO_F_REFUSED) }),
	C(FLAGS, "refused-on-gnt", B_GNT, .patch = { P(OFF_FLAGS, 2, PROTO_F_REFUSED) }),
	/* A refusal carries the receiver's acknowledgment: its sender acts on nothing else. */
	C(FLAGS, "refused-qack-without-ack", B_QACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_REFUSED),
		P(OFF_ACK_BASE, 4, 0) }),
	C(FLAGS, "refused-back-without-ack", B_BACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_NACK | PROTO_F_REFUSED), P(OFF_ACK_BASE, 4, 0) }),
	C(FLAGS, "welcome-on-qreq", B_QREQ, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_DATA | PROTO_F_WELCOME) }),
	C(FLAGS, "restart-on-gnt", B_GNT, .patch = { P(OFF_FLAGS, 2, PROTO_F_RESTART) }),
	C(FLAGS, "restart-without-welcome", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_RESTART) }),
	C(FLAGS, "welcome-with-fresh", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_FRESH | PROTO_F_WELCOME) }),
	C(FLAGS, "welcome-on-down", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_DOWN | PROTO_F_WELCOME | PROTO_F_RESTART) }),
	C(FLAGS, "fresh-on-down-qack", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_DOWN | PROTO_F_FRESH) }),
	C(FLAGS, "fresh-on-down-back", B_BACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_DOWN | PROTO_F_FRESH) }),
	C(FLAGS, "fresh-on-no-vnet", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_NO_VNET | PROTO_F_FRESH) }),
	C(FLAGS, "fresh-on-cfg", B_CFG9, .patch = { P(OFF_FLAGS, 2, PROTO_F_FRESH) }),
	C(FLAGS, "fresh-on-gnt", B_GNT, .patch = { P(OFF_FLAGS, 2, PROTO_F_FRESH) }),
	C(FLAGS, "fresh-on-hello", B_HELLO, .patch = { P(OFF_FLAGS, 2, PROTO_F_FRESH) }),
	C(FLAGS, "no-vnet-on-qreq", B_QREQ, .patch = { P(OFF_FLAGS, 2, PROTO_F_DATA | 0x100) }),
	C(FLAGS, "abandoned-on-breq", B_BREQ, .patch = { P(OFF_FLAGS, 2, PROTO_F_DATA | 0x80) }),
	C(FLAGS, "top-bit", B_BREQ, .patch = { P(OFF_FLAGS, 2, PROTO_F_DATA | 0x8000) }),
	C(FLAGS, "nack-on-breq", B_BREQ, .patch = { P(OFF_FLAGS, 2, PROTO_F_DATA | PROTO_F_NACK) }),
	C(FLAGS, "breq-without-data", B_BREQ, .patch = { P(OFF_FLAGS, 2, PROTO_F_ACK | PROTO_F_LAST) }),
	C(FLAGS, "qreq-without-data", B_QREQ, .patch = { P(OFF_FLAGS, 2, 0) }),
	C(FLAGS, "data-on-qack", B_QACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_ACK | PROTO_F_DATA) }),
	C(FLAGS, "nack-on-qack", B_QACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_ACK | PROTO_F_NACK) }),
	C(FLAGS, "down-on-qreq", B_QREQ, .patch = { P(OFF_FLAGS, 2, PROTO_F_DATA | PROTO_F_DOWN) }),
	C(FLAGS, "down-on-breq", B_BREQ, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_DATA | PROTO_F_ACK | PROTO_F_LAST | PROTO_F_DOWN) }),
	C(FLAGS, "down-on-cfg", B_CFG9, .patch = { P(OFF_FLAGS, 2, PROTO_F_DOWN) }),
	C(FLAGS, "down-on-gnt", B_GNT, .patch = { P(OFF_FLAGS, 2, PROTO_F_DOWN) }),
	C(FLAGS, "down-on-hello", B_HELLO, .patch = { P(OFF_FLAGS, 2, PROTO_F_DOWN) }),
	C(FLAGS, "data-on-back", B_BACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_ACK | PROTO_F_DATA) }),
	C(FLAGS, "retx-on-qack", B_QACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_ACK | PROTO_F_RETX) }),
	C(FLAGS, "ack-on-cfg", B_CFG9, .patch = { P(OFF_FLAGS, 2, PROTO_F_ACK) }),
	C(FLAGS, "data-on-gnt", B_GNT, .patch = { P(OFF_FLAGS, 2, PROTO_F_DATA) }),
	C(FLAGS, "last-on-hello", B_HELLO, .patch = { P(OFF_FLAGS, 2, PROTO_F_LAST) }),
	C(SRC_NODE, "breq-src-1024", B_BREQ, .patch = { P(OFF_SRC_NODE, 2, 1024) }),
	C(SRC_NODE, "qack-src-switch", B_QACK, .patch = { P(OFF_SRC_NODE, 2, PROTO_NODE_SWITCH) }),
	C(SRC_NODE, "back-src-none", B_BACK, .patch = { P(OFF_SRC_NODE, 2, PROTO_NODE_NONE) }),
	C(SRC_NODE, "cfg-src-none", B_CFG9, .patch = { P(OFF_SRC_NODE, 2, PROTO_NODE_NONE) }),
	C(SRC_NODE, "hello-src-1024", B_HELLO, .patch = { P(OFF_SRC_NODE, 2, 1024) }),
	C(SRC_NODE, "hello-src-switch", B_HELLO, .patch = { P(OFF_SRC_NODE, 2, PROTO_NODE_SWITCH) }),
	C(SRC_NODE, "gnt-src-node0", B_GNT, .patch = { P(OFF_SRC_NODE, 2, 0) }),
	C(SRC_NODE, "qreq-src-at-limit", B_QREQ, .patch = { P(OFF_SRC_NODE, 2, 16) }, .lim = &lim16),
	C(DST_NODE, "qreq-dst-1024", B_QREQ, .patch = { P(OFF_DST_NODE, 2, 1024) }),
	C(DST_NODE, "back-dst-none", B_BACK, .patch = { P(OFF_DST_NODE, 2, PROTO_NODE_NONE) }),
	C(DST_NODE, "breq-dst-switch", B_BREQ, .patch = { P(OFF_DST_NODE, 2, PROTO_NODE_SWITCH) }),
	C(DST_NODE, "cfg-dst-node0", B_CFG9, .patch = { P(OFF_DST_NODE, 2, 0) }),
	C(DST_NODE, "hello-dst-node3", B_HELLO, .patch = { P(OFF_DST_NODE, 2, 3) }),
	C(DST_NODE, "gnt-dst-switch", B_GNT, .patch = { P(OFF_DST_NODE, 2, PROTO_NODE_SWITCH) }),
	C(DST_NODE, "gnt-dst-1024", B_GNT, .patch = { P(OFF_DST_NODE, 2, 1024),
		P(OFF_GNT_NODE_ID, 2, 1024) }),
	C(DST_NODE, "qack-dst-at-limit", B_QACK, .patch = { P(OFF_DST_NODE, 2, 16) }, .lim = &lim16),
	C(ENDPOINT, "qreq-src-ep-4096", B_QREQ, .patch = { P(OFF_SRC_EP, 2, 4096) }),
	C(ENDPOINT, "breq-dst-ep-ffff", B_BREQ, .patch = { P(OFF_DST_EP, 2, 0xFFFF) }),
	C(ENDPOINT, "back-ep-at-limit", B_BACK, .patch = { P(OFF_SRC_EP, 2, 64) }, .lim = &lim16),
	C(ENDPOINT, "qack-dst-ep-4096", B_QACK, .patch = { P(OFF_DST_EP, 2, 4096) }),
	C(ENDPOINT, "cfg-src-ep", B_CFG9, .patch = { P(OFF_SRC_EP, 2, 1) }),
	C(ENDPOINT, "gnt-dst-ep", B_GNT, .patch = { P(OFF_DST_EP, 2, 1) }),
	C(ENDPOINT, "hello-src-ep", B_HELLO, .patch = { P(OFF_SRC_EP, 2, 0x8000) }),
	C(VNET, "cfg-vnet", B_CFG9, .patch = { P(OFF_VNET, 2, 1) }),
	C(VNET, "gnt-handler", B_GNT, .patch = { P(OFF_HANDLER, 2, 1) }),
	C(VNET, "hello-vnet", B_HELLO, .patch = { P(OFF_VNET, 2, 0xFFFF) }),
	C(VNET, "back-handler", B_BACK, .patch = { P(OFF_HANDLER, 2, 1) }),
	C(VNET, "qack-handler", B_QACK, .patch = { P(OFF_HANDLER, 2, 0x8000) }),
	/* A REFUSED marker's resume distance is 1 .. the window (<= 32, the sack mask). */
	C(FLAGS, "refused-marker-distance-0", B_QREQ, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_DATA | PROTO_F_LAST | PROTO_F_ABANDONED | PROTO_F_REFUSED),
		P(OFF_HANDLER, 2, 0) }),
	C(FLAGS, "refused-marker-distance-33", B_QREQ, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_DATA | PROTO_F_LAST | PROTO_F_ABANDONED | PROTO_F_REFUSED),
		P(OFF_HANDLER, 2, PROTO_SACK_BITS + 1) }),
	C(PKT_NUM, "breq-25-bits", B_BREQ, .patch = { P(OFF_PKT_NUM, 4, 0x01000000) }),
	C(PKT_NUM, "qreq-top-byte", B_QREQ, .patch = { P(OFF_PKT_NUM, 4, 0xFF000000) }),
	C(PKT_NUM, "qack-without-data", B_QACK, .patch = { P(OFF_PKT_NUM, 4, 1) }),
	/* A copy is of a packet received already: its own ack (base 7) covers it. */
	C(PKT_NUM, "dup-past-its-ack", B_QACK, .patch = { P(OFF_FLAGS, 2,
		PROTO_F_ACK | PROTO_F_DUP), P(OFF_PKT_NUM, 4, 8) }),
	C(PKT_NUM, "welcome-nonce-17-bits", B_QACK, .patch = {
		P(OFF_FLAGS, 2, PROTO_F_WELCOME), P(OFF_PKT_NUM, 4, 0x10000) }),
	C(PKT_NUM, "back-25-bits", B_BACK, .patch = { P(OFF_PKT_NUM, 4, 0x01000000) }),
	C(PKT_NUM, "cfg-pkt-num", B_CFG9, .patch = { P(OFF_PKT_NUM, 4, 1) }),
	C(ACK_FIELDS, "back-base-25-bits", B_BACK, .patch = { P(OFF_ACK_BASE, 4, 0x01000000) }),
	C(ACK_FIELDS, "qack-base-top-byte", B_QACK, .patch = { P(OFF_ACK_BASE, 4, 0x80FFFFFF) }),
	C(ACK_FIELDS, "qreq-mask-without-ack", B_QREQ, .patch = { P(OFF_ACK_MASK, 4, 1) }),
	C(ACK_FIELDS, "qreq-base-without-ack", B_QREQ, .patch = { P(OFF_ACK_BASE, 4, 1) }),
	C(ACK_FIELDS, "nack-without-ack", B_BACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_NACK) }),
	C(ACK_FIELDS, "back-down-without-ack", B_BACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_DOWN) }),
	C(ACK_FIELDS, "qack-without-ack", B_QACK, .patch = { P(OFF_FLAGS, 2, 0) }),
	C(ACK_FIELDS, "qack-down-without-ack", B_QACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_DOWN) }),
	C(ACK_FIELDS, "gnt-mask", B_GNT, .patch = { P(OFF_ACK_MASK, 4, 0x80000000) }),
	C(ACK_FIELDS, "hello-base", B_HELLO, .patch = { P(OFF_ACK_BASE, 4, 5) }),
	C(PAYLOAD_LEN, "breq-2049", B_BREQ, .patch = { P(OFF_PAYLOAD_LEN, 2, 2049) }),
	C(PAYLOAD_LEN, "breq-ffff", B_BREQ, .patch = { P(OFF_PAYLOAD_LEN, 2, 0xFFFF) }),
	C(PAYLOAD_LEN, "qreq-payload", B_QREQ, .patch = { P(OFF_PAYLOAD_LEN, 2, 1) }),
	C(PAYLOAD_LEN, "back-payload", B_BACK, .patch = { P(OFF_PAYLOAD_LEN, 2, 4) }),
	C(PAYLOAD_LEN, "qack-payload", B_QACK, .patch = { P(OFF_PAYLOAD_LEN, 2, 2048) }),
	C(PAYLOAD_LEN, "cfg-payload", B_CFG9, .patch = { P(OFF_PAYLOAD_LEN, 2, 1) }),
	C(PAYLOAD_LEN, "gnt-payload", B_GNT, .patch = { P(OFF_PAYLOAD_LEN, 2, 1) }),
	C(PAYLOAD_LEN, "hello-payload", B_HELLO, .patch = { P(OFF_PAYLOAD_LEN, 2, 1) }),
	C(TRUNCATED, "breq-payload-len-plus-1", B_BREQ, .patch = { P(OFF_PAYLOAD_LEN, 2, 17) }),
	C(TRUNCATED, "breq-payload-len-2048", B_BREQ, .patch = { P(OFF_PAYLOAD_LEN, 2, 2048) }),
	C(TRUNCATED, "breq-cut-1", B_BREQ, .len_delta = -1),
	C(TRUNCATED, "breq-args-cut", B_BREQ, .len_delta = -(16 + 4 + 1)),
	C(TRUNCATED, "qreq-cut-to-60", B_QREQ, .len_delta = -22),
	C(TRUNCATED, "back-cut-to-53", B_BACK, .len_delta = -7),
	C(TRUNCATED, "hello-cut-to-57", B_HELLO, .len_delta = -3),
	C(TRUNCATED, "gnt-cut-1", B_GNT, .len_delta = -1),
	C(TRUNCATED, "cfg-fixed-part-cut", B_CFG9, .len_delta = -14),
	C(TRUNCATED, "cfg-n-nodes-1024", B_CFG9, .patch = { P(OFF_CFG_N_NODES, 2, 1024) }),
	C(TRUNCATED, "cfg-n-nodes-10", B_CFG9, .patch = { P(OFF_CFG_N_NODES, 2, 10) }),
	C(TRUNCATED, "cfg-cut-1", B_CFG9, .len_delta = -1),
	C(TRAILING, "breq-plus-1", B_BREQ, .len_delta = 1),
	C(TRAILING, "breq-with-fcs", B_BREQ, .len_delta = 4),
	C(TRAILING, "back-61", B_BACK, .len_delta = 1),
	C(TRAILING, "qack-with-fcs", B_QACK, .len_delta = 4),
	C(TRAILING, "cfg-plus-1", B_CFG9, .len_delta = 1),
	C(TRAILING, "cfg-n-nodes-8", B_CFG9, .patch = { P(OFF_CFG_N_NODES, 2, 8) }),
	C(TRAILING, "breq-payload-len-15", B_BREQ, .patch = { P(OFF_PAYLOAD_LEN, 2, 15) }),
	C(BODY, "cfg-n-nodes-0", B_CFG9, .patch = { P(OFF_CFG_N_NODES, 2, 0) }),
	C(BODY, "cfg-n-nodes-1025", B_CFG9, .patch = { P(OFF_CFG_N_NODES, 2, 1025) }),
	C(BODY, "cfg-n-nodes-ffff", B_CFG9, .patch = { P(OFF_CFG_N_NODES, 2, 0xFFFF) }),
	C(BODY, "cfg-n-nodes-above-limit", B_CFG9, .patch = { P(OFF_CFG_N_NODES, 2, 17) },
	  .lim = &lim16),
	C(BODY, "gnt-n-nodes-0", B_GNT, .patch = { P(OFF_GNT_N_NODES, 2, 0) }),
	C(BODY, "gnt-n-nodes-1025", B_GNT, .patch = { P(OFF_GNT_N_NODES, 2, 1025) }),
	C(BODY, "gnt-n-nodes-above-limit", B_GNT, .patch = { P(OFF_GNT_N_NODES, 2, 17) },
	  .lim = &lim16),
	C(BODY, "gnt-node-id-not-dst", B_GNT, .patch = { P(OFF_GNT_NODE_ID, 2, 4) }),
	C(BODY, "gnt-node-id-at-n-nodes", B_GNT, .patch = { P(OFF_GNT_N_NODES, 2, 3),
		P(OFF_GNT_TARGET, 2, PROTO_NODE_NONE) }),
	C(BODY, "gnt-target-at-n-nodes", B_GNT, .patch = { P(OFF_GNT_TARGET, 2, 9) }),
	C(BODY, "gnt-target-switch", B_GNT, .patch = { P(OFF_GNT_TARGET, 2, PROTO_NODE_SWITCH) }),
	C(BODY, "gnt-gflags-bit3", B_GNT, .patch = { P(OFF_GNT_GFLAGS, 2, 8) }),
	C(BODY, "gnt-gflags-top", B_GNT, .patch = { P(OFF_GNT_GFLAGS, 2, 0x8001) }),
	C(BODY, "gnt-slot-ns-0", B_GNT, .patch = { P(OFF_GNT_SLOT_NS, 4, 0) }),
	C(BODY, "gnt-slot-frames-0", B_GNT, .patch = { P(OFF_GNT_SLOT_FRAMES, 2, 0) }),
	C(RESERVED, "hello-epoch", B_HELLO, .patch = { P(OFF_EPOCH, 2, 1) }),
	C(RESERVED, "cfg-epoch", B_CFG9, .patch = { P(OFF_EPOCH, 2, 0x8000) }),
	C(RESERVED, "cfg-reserved", B_CFG9, .patch = { P(OFF_CFG_RESERVED, 2, 1) }),
	C(RESERVED, "cfg-bulk-bit-9", B_CFG9, .patch = { P(OFF_CFG_COUNTS + 9 + 1, 1, 0x03) }),
	C(RESERVED, "cfg-quick-bit-15", B_CFG9, .patch = { P(OFF_CFG_COUNTS + 9 + 3, 1, 0x81) }),
	C(RESERVED, "gnt-epoch", B_GNT, .patch = { P(OFF_EPOCH, 2, 1) }),
	C(RESERVED, "down-kind-3", B_QACK, .patch = { P(OFF_FLAGS, 2, PROTO_F_ACK | PROTO_F_DOWN),
		P(OFF_EPOCH, 2, PROTO_DOWN_MAX + 1) }),
	C(RESERVED, "hello-caps", B_HELLO, .patch = { P(OFF_HELLO_CAPS, 4, 1) }),
	C(CRC, "crc-byte", B_QREQ, .patch = { P(OFF_QREQ_CRC, 1, 0x01) }, .corrupt = true),
	C(CRC, "args-bit", B_QREQ, .patch = { P(OFF_QREQ_ARGS, 1, 0x80) },
	  .corrupt = true),
	C(CRC, "breq-slot", B_BREQ, .patch = { P(OFF_BREQ_SLOT, 4, 0x80000001) },
	  .corrupt = true),
	C(CRC, "breq-args-last-byte", B_BREQ, .patch = { P(OFF_BREQ_ARGS + 31, 1, 0x02) },
	  .corrupt = true),
	C(CRC, "payload-last-byte", B_BREQ, .patch = { P(OFF_BREQ_PAYLOAD + 15, 1, 0x10) },
	  .corrupt = true),
	C(CRC, "back-slot", B_BACK, .patch = { P(OFF_BACK_SLOT, 4, 0x00010000) }, .corrupt = true),
	C(CRC, "qack-ack-mask", B_QACK, .patch = { P(OFF_ACK_MASK, 4, 0x40000000) },
	  .corrupt = true),
	C(CRC, "cfg-count", B_CFG9, .patch = { P(OFF_CFG_COUNTS, 1, 0x10) }, .corrupt = true),
	C(CRC, "gnt-timestamp", B_GNT, .patch = { P(OFF_GNT_TIMESTAMP + 7, 1, 0x01) },
	  .corrupt = true),
	C(CRC, "hello-nonce", B_HELLO, .patch = { P(OFF_HELLO_NONCE, 4, 0xFFFFFFFF) },
	  .corrupt = true),
	C(CRC, "breq-pkt-num-swap", B_BREQ, .patch = { P(OFF_PKT_NUM + 3, 1, 0x01),
		P(OFF_ACK_BASE + 3, 1, 0x01) }, .corrupt = true),
};

#undef P
#undef C

enum { N_CRAFTS = sizeof(crafts) / sizeof(crafts[0]) };

/* Build crafted frame c into f. */
static void craft_frame(const struct craft *c, struct frame *f)
{
	static struct pkt_store s;
	struct proto_pkt p;
	size_t raw;

	base_pkt(c->base, &p, &s);
	encode_ok(&p, f);
	raw = raw_len(&p);
	for (int i = 0; i < 2 && c->patch[i].size; i++) {
		const struct patch *pt = &c->patch[i];
		uint64_t v = pt->val;

		if (c->corrupt)
			v ^= get_be(f->buf + pt->off, pt->size);
		put_be(f->buf + pt->off, pt->size, v);
	}
	if (!c->corrupt)
		fix_crc(f->buf, raw);
	if (c->len_delta > 0)
		memset(f->buf + f->len, 0, (size_t)c->len_delta);
	cr_assert_geq((long)f->len + c->len_delta, 0);
	f->len = (size_t)((long)f->len + c->len_delta);
}

/* The frames the crafted ones start from are valid, with limits too. */
Test(proto, bases_are_valid)
{
	static struct pkt_store s;
	struct proto_pkt p, q;
	struct frame f;

	for (int b = 0; b < B_COUNT; b++) {
		base_pkt((enum base)b, &p, &s);
		encode_ok(&p, &f);
		cr_assert_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_OK,
			     "base %d", b);
		cr_assert_eq(decode_guarded(f.buf, f.len, &lim16, &q), PROTO_R_OK,
			     "base %d with limits", b);
		assert_pkt_eq(&p, &q, proto_type_name(p.type));
	}
}

/* A reason added to PROTO_REASONS without a crafted frame fails here. */
Test(proto, every_reason_has_a_crafted_frame)
{
	for (int r = PROTO_R_OK + 1; r < PROTO_R_COUNT; r++) {
		int n = 0;

		for (size_t i = 0; i < N_CRAFTS; i++)
			n += crafts[i].reason == (enum proto_reason)r;
		cr_expect_gt(n, 0, "reason %s (%s) has no crafted frame",
			     proto_reason_name((enum proto_reason)r),
			     proto_reason_text((enum proto_reason)r));
	}
}

/* Each crafted frame is rejected with exactly its reason. */
Test(proto, crafted_frames_fail_with_their_reason)
{
	struct proto_pkt q;
	struct frame f;

	for (size_t i = 0; i < N_CRAFTS; i++) {
		const struct craft *c = &crafts[i];
		enum proto_reason r;

		craft_frame(c, &f);
		r = decode_guarded(f.buf, f.len, c->lim, &q);
		cr_expect_eq(r, c->reason, "%s-%s: got %s", proto_reason_name(c->reason),
			     c->name, proto_reason_name(r));
	}
}

/*
 * doc/protocol.md's table of validation reasons has each reason's row, with
 * the name and the log sentence the code has: a reason added, renamed or
 * reworded in PROTO_REASONS without its row fails here.
 */
Test(proto, protocol_md_has_every_reason_row)
{
#define T_REASON_ROW(id, name, text) "| `PROTO_R_" #id "` | " name " | " text " |",
	static const char *const rows[] = { PROTO_REASONS(T_REASON_ROW) };
#undef T_REASON_ROW

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *line = t_doc_line("protocol.md", rows[i]);

		cr_expect_not_null(line, "protocol.md has no row starting '%s'", rows[i]);
		free(line);
	}
}

/* Every reason has a unique name and a sentence; out of range is "?". */
Test(proto, reason_names)
{
	for (int r = 0; r < PROTO_R_COUNT; r++) {
		const char *n = proto_reason_name((enum proto_reason)r);

		cr_assert_not_null(n);
		cr_expect_neq(strcmp(n, "?"), 0, "reason %d has no name", r);
		cr_expect_gt(strlen(proto_reason_text((enum proto_reason)r)), 5);
		for (int o = 0; o < r; o++)
			cr_expect_neq(strcmp(n, proto_reason_name((enum proto_reason)o)),
				      0, "duplicate reason name %s", n);
	}
	cr_expect_str_eq(proto_reason_name(PROTO_R_OK), "ok");
	cr_expect_str_eq(proto_reason_name(PROTO_R_CRC), "crc");
	cr_expect_str_eq(proto_reason_name(PROTO_R_COUNT), "?");
	cr_expect_str_eq(proto_reason_text((enum proto_reason)-1), "?");
}

/* Type names and the channel predicates. */
Test(proto, type_names)
{
	static const char *const names[] = {
		"?", "BREQ", "BACK", "QREQ", "QACK", "CFG", "GNT", "HELLO", "?",
	};

	for (unsigned int t = 0; t < sizeof(names) / sizeof(names[0]); t++)
		cr_expect_str_eq(proto_type_name((uint8_t)t), names[t], "type %u", t);
	cr_expect_str_eq(proto_type_name(255), "?");
	cr_expect(proto_type_is_bulk(PROTO_T_BREQ));
	cr_expect_not(proto_type_is_bulk(PROTO_T_QREQ));
	cr_expect(proto_type_is_control(PROTO_T_GNT));
	cr_expect_not(proto_type_is_control(PROTO_T_QREQ));
	cr_expect_not(proto_type_is_control(PROTO_T_BREQ));
}

/* Packet-number arithmetic wraps modulo 2^24. */
Test(proto, seq_arithmetic)
{
	cr_expect_eq(proto_seq_add(0xFFFFFF, 1), 0);
	cr_expect_eq(proto_seq_add(0xFFFFFE, 5), 3);
	cr_expect_eq(proto_seq_diff(0, 0xFFFFFF), 1);
	cr_expect_eq(proto_seq_diff(0xFFFFFF, 0), -1);
	cr_expect_eq(proto_seq_diff(0x800000, 0), -0x800000);
	cr_expect_eq(proto_seq_diff(0x7FFFFF, 0), 0x7FFFFF);
	cr_expect(proto_seq_lt(0xFFFFF0, 3));
	cr_expect_not(proto_seq_lt(3, 0xFFFFF0));
	cr_expect_not(proto_seq_lt(9, 9));
}

/* Bit vectors are LSB first within each byte. */
Test(proto, bit_vectors)
{
	uint8_t v[3] = { 0 };

	proto_bit_set(v, 0);
	proto_bit_set(v, 9);
	proto_bit_set(v, 23);
	cr_expect_eq(v[0], 0x01);
	cr_expect_eq(v[1], 0x02);
	cr_expect_eq(v[2], 0x80);
	cr_expect(proto_bit(v, 9));
	cr_expect_not(proto_bit(v, 8));
}

/* Node MACs are 02:53:4e:00 followed by the node id. */
Test(proto, node_mac)
{
	static const uint8_t want[6] = { 0x02, 0x53, 0x4e, 0x00, 0x01, 0x23 };
	uint8_t mac[6];

	proto_node_mac(0x0123, mac);
	cr_expect_eq(memcmp(mac, want, 6), 0);
}

/* Assert size bytes at off of f are v, big endian. */
static void expect_be(const struct frame *f, size_t off, unsigned int size,
		      uint64_t v, const char *what)
{
	cr_expect_eq(get_be(f->buf + off, size), v, "%s at %zu: 0x%llx, want 0x%llx",
		     what, off, (unsigned long long)get_be(f->buf + off, size),
		     (unsigned long long)v);
}

/* Assert the CRC trailer ends at raw and covers bytes 14 .. raw - 4. */
static void expect_crc_at(const struct frame *f, size_t raw)
{
	expect_be(f, raw - 4, 4, crc32c(f->buf + 14, raw - 4 - 14), "crc");
}

/* Every common-header field at its documented offset, big endian. */
Test(proto, byte_order_common_header)
{
	static uint8_t args[PROTO_ARGS_LEN], payload[258];
	static const uint8_t dst[6] = { 0xD0, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5 };
	static const uint8_t src[6] = { 0x50, 0x51, 0x52, 0x53, 0x54, 0x55 };
	struct proto_pkt p = { .type = PROTO_T_BREQ,
		.flags = PROTO_F_DATA | PROTO_F_ACK | PROTO_F_FORCE_ACK,
		.src_node = 0x0123, .dst_node = 0x0345, .vnet = 0xA1B2,
		.src_ep = 0x0C0D, .dst_ep = 0x0E0F, .handler = 0x1A2B,
		.pkt_num = 0xABCDEF, .ack_base = 0x123456, .ack_mask = 0x89ABCDEF,
		.payload_len = 0x0102, .epoch = 0xE1F2, .args = args, .payload = payload,
		.slot = 0xA0B1C2D3 }, q;
	struct frame f;

	memcpy(p.eth_dst, dst, 6);
	memcpy(p.eth_src, src, 6);
	for (int i = 0; i < PROTO_ARGS_LEN; i++)
		args[i] = (uint8_t)(0x80 + i);
	for (int i = 0; i < 258; i++)
		payload[i] = (uint8_t)(i ^ 0x3C);
	encode_ok(&p, &f);
	cr_expect_eq(f.len, 14 + 32 + 4 + 32 + 258 + 4);
	cr_expect_eq(memcmp(f.buf + OFF_ETH_DST, dst, 6), 0);
	cr_expect_eq(memcmp(f.buf + OFF_ETH_SRC, src, 6), 0);
	cr_expect_eq(f.buf[12], 0x88);
	cr_expect_eq(f.buf[13], 0xB5);
	expect_be(&f, 14, 1, 1, "version");
	expect_be(&f, 15, 1, PROTO_T_BREQ, "type");
	expect_be(&f, 16, 2, 0x0013, "flags");
	expect_be(&f, 18, 2, 0x0123, "src_node");
	expect_be(&f, 20, 2, 0x0345, "dst_node");
	expect_be(&f, 22, 2, 0xA1B2, "vnet");
	expect_be(&f, 24, 2, 0x0C0D, "src_ep");
	expect_be(&f, 26, 2, 0x0E0F, "dst_ep");
	expect_be(&f, 28, 2, 0x1A2B, "handler");
	expect_be(&f, 30, 4, 0x00ABCDEF, "pkt_num");
	expect_be(&f, 34, 4, 0x00123456, "ack_base");
	expect_be(&f, 38, 4, 0x89ABCDEF, "ack_mask");
	expect_be(&f, 42, 2, 0x0102, "payload_len");
	expect_be(&f, 44, 2, 0xE1F2, "epoch");
	expect_be(&f, 46, 4, 0xA0B1C2D3, "BREQ slot");
	cr_expect_eq(memcmp(f.buf + 50, args, 32), 0, "args at 50");
	cr_expect_eq(memcmp(f.buf + 82, payload, 258), 0, "payload at 82");
	expect_crc_at(&f, f.len);
	cr_expect_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_OK);
	assert_pkt_eq(&p, &q, "byte order");
	/* the decoded pointers are the documented offsets of this frame */
	cr_assert_eq(proto_decode(f.buf, f.len, NULL, &q), PROTO_R_OK);
	cr_expect_eq(q.args, f.buf + OFF_BREQ_ARGS, "args pointer");
	cr_expect_eq(q.payload, f.buf + OFF_BREQ_PAYLOAD, "payload pointer");
	cr_expect_eq(q.slot, 0xA0B1C2D3);
}

/*
 * The header's last field is the connection epoch on the four types of a
 * connection: any value round-trips, big endian at byte 44, and the frame
 * is as long as without it. A control type (CFG, GNT, HELLO) keeps it zero:
 * the crafted RESERVED frames.
 */
Test(proto, epoch_round_trips_on_connection_types)
{
	static const uint8_t types[] = { PROTO_T_BREQ, PROTO_T_BACK, PROTO_T_QREQ, PROTO_T_QACK };
	static const uint16_t epochs[] = { 0, 1, 0x7FFF, 0x8000, 0xFFFF };
	static const uint8_t args[PROTO_ARGS_LEN];

	for (size_t t = 0; t < sizeof(types); t++) {
		for (size_t e = 0; e < sizeof(epochs) / sizeof(epochs[0]); e++) {
			struct proto_pkt p = { .type = types[t], .src_node = 3, .dst_node = 4,
				.vnet = 2, .args = args, .epoch = epochs[e] }, q;
			struct frame f;
			size_t len0;

			if (types[t] == PROTO_T_BREQ || types[t] == PROTO_T_QREQ)
				p.flags = PROTO_F_DATA;
			p.epoch = 0;
			len0 = proto_frame_len(&p);
			p.epoch = epochs[e];
			encode_ok(&p, &f);
			cr_assert_eq(f.len, len0, "%s: the epoch changes the length",
				     proto_type_name(types[t]));
			expect_be(&f, OFF_EPOCH, 2, epochs[e], "epoch");
			cr_assert_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_OK,
				     "%s epoch 0x%x", proto_type_name(types[t]), epochs[e]);
			cr_assert_eq(q.epoch, epochs[e], "%s: epoch 0x%x decoded as 0x%x",
				     proto_type_name(types[t]), epochs[e], q.epoch);
		}
	}
}

/*
 * A WELCOME (QACK) carries the nonce it took in pkt_num and its sender's in
 * handler, at their offsets, with or without RESTART and ACK; the same
 * fields without WELCOME are refused (PKT_NUM, VNET).
 */
Test(proto, welcome_carries_two_nonces)
{
	static const uint16_t flags[] = {
		PROTO_F_WELCOME, PROTO_F_WELCOME | PROTO_F_RESTART,
		PROTO_F_WELCOME | PROTO_F_ACK | PROTO_F_RESTART,
	};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		struct proto_pkt p = { .type = PROTO_T_QACK, .flags = flags[i], .src_node = 3,
				       .dst_node = 4, .vnet = 2, .epoch = 9, .pkt_num = 0xBEEF,
				       .handler = 0xFFFF }, q;
		struct frame f;

		if (flags[i] & PROTO_F_ACK)
			p.ack_base = 5;
		encode_ok(&p, &f);
		expect_be(&f, OFF_PKT_NUM, 4, 0xBEEF, "pkt_num");
		expect_be(&f, OFF_HANDLER, 2, 0xFFFF, "handler");
		cr_assert_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_OK, "flags 0x%x",
			     flags[i]);
		cr_assert_eq(q.pkt_num, 0xBEEF);
		cr_assert_eq(q.handler, 0xFFFF);
		cr_assert_eq(q.flags, flags[i]);
	}
	{
		struct proto_pkt p = { .type = PROTO_T_QACK, .src_node = 3, .dst_node = 4,
				       .vnet = 2, .handler = 1 }, q;
		struct frame f;

		encode_ok(&p, &f);
		cr_assert_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_VNET);
	}
}

/*
 * REFUSED names a packet: a QACK's pkt_num is the packet refused (any 24
 * bits), a BACK's the BREQ's as ever (with NACK), a marker's handler says
 * from which number its messages come again. Without REFUSED a QACK's
 * pkt_num must be 0.
 */
Test(proto, refused_names_the_packet)
{
	static const struct proto_pkt pkts[] = {
		{ .type = PROTO_T_QACK, .flags = PROTO_F_REFUSED | PROTO_F_ACK, .src_node = 3,
		  .dst_node = 4, .vnet = 2, .src_ep = 1, .dst_ep = 5, .pkt_num = 0xFFFFFF,
		  .ack_base = 0xFFFFFE, .epoch = 7 },
		{ .type = PROTO_T_BACK, .flags = PROTO_F_REFUSED | PROTO_F_NACK | PROTO_F_ACK,
		  .src_node = 3, .dst_node = 4, .vnet = 2, .pkt_num = 12, .slot = 99,
		  .ack_base = 11, .ack_mask = 0x5 },
		{ .type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_LAST | PROTO_F_ABANDONED |
		  PROTO_F_REFUSED, .src_node = 4, .dst_node = 3, .vnet = 2, .dst_ep = 1,
		  .pkt_num = 12, .handler = 32 },
	};

	for (size_t i = 0; i < sizeof(pkts) / sizeof(pkts[0]); i++) {
		static const uint8_t args[PROTO_ARGS_LEN];
		struct proto_pkt p = pkts[i], q;
		struct frame f;

		p.args = p.type == PROTO_T_QREQ ? args : NULL;
		encode_ok(&p, &f);
		expect_be(&f, OFF_FLAGS, 2, p.flags, "flags");
		expect_be(&f, OFF_PKT_NUM, 4, p.pkt_num, "pkt_num");
		cr_assert_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_OK, "%s",
			     proto_type_name(p.type));
		cr_assert_eq(q.flags, p.flags);
		cr_assert_eq(q.pkt_num, p.pkt_num);
		cr_assert_eq(q.handler, p.handler);
		cr_assert_eq(q.src_ep, p.src_ep);
	}
	{
		struct proto_pkt p = { .type = PROTO_T_QACK, .flags = PROTO_F_ACK, .src_node = 3,
				       .dst_node = 4, .vnet = 2, .pkt_num = 12 }, q;
		struct frame f;

		encode_ok(&p, &f);
		cr_assert_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_PKT_NUM);
	}
}

/*
 * DUP names the copied packet in a QACK's pkt_num: any number its own ack
 * covers (below or at the base, or in the mask, across the wrap), with
 * ACK alone or with nothing else.
 */
Test(proto, dup_names_a_packet_its_ack_covers)
{
	static const struct { uint32_t num, base, mask; } ok[] = {
		{ 7, 7, 0 }, { 0, 7, 0 }, { 9, 7, 0x2 }, { 0xFFFFFF, 0, 0 }, { 1, 0xFFFFFF, 0x3 },
		{ 0x7FFFFF, 0xFFFFFE, 0 },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct proto_pkt p = { .type = PROTO_T_QACK, .flags = PROTO_F_ACK | PROTO_F_DUP,
				       .src_node = 3, .dst_node = 4, .vnet = 2, .epoch = 5,
				       .pkt_num = ok[i].num, .ack_base = ok[i].base,
				       .ack_mask = ok[i].mask }, q;
		struct frame f;

		encode_ok(&p, &f);
		expect_be(&f, OFF_FLAGS, 2, 0x2002, "ACK | DUP");
		expect_be(&f, OFF_PKT_NUM, 4, ok[i].num, "pkt_num");
		cr_assert_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_OK, "0x%x by 0x%x/0x%x",
			     ok[i].num, ok[i].base, ok[i].mask);
		cr_assert_eq(q.flags, p.flags);
		cr_assert_eq(q.pkt_num, ok[i].num);
		/* One past what the ack covers (the mask's next bit unset) is no copy. */
		p.pkt_num = proto_seq_add(proto_ack_top(ok[i].base, ok[i].mask), 1);
		encode_ok(&p, &f);
		cr_assert_eq(decode_guarded(f.buf, f.len, NULL, &q), PROTO_R_PKT_NUM,
			     "0x%x by 0x%x/0x%x", p.pkt_num, ok[i].base, ok[i].mask);
	}
}

/* Every body field at its documented offset, and the CRC position. */
Test(proto, byte_order_bodies)
{
	static uint8_t counts[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static uint8_t bulk[2] = { 0xA5, 0x01 }, quick[2] = { 0x5A, 0x00 };
	struct proto_pkt p = { .type = PROTO_T_BACK,
		.flags = PROTO_F_ACK | PROTO_F_DOWN, .src_node = 1, .dst_node = 2,
		.ack_base = 3, .slot = 0x01020304 };
	struct frame f;

	encode_ok(&p, &f);
	expect_be(&f, OFF_FLAGS, 2, 0x0042, "ACK | DOWN");
	expect_be(&f, OFF_BACK_SLOT, 4, 0x01020304, "BACK slot");
	expect_crc_at(&f, 54);
	expect_be(&f, 54, 6, 0, "padding");

	p = (struct proto_pkt) { .type = PROTO_T_CFG, .src_node = 1,
		.dst_node = PROTO_NODE_SWITCH, .cfg = { .slot = 0xDEADBEEF,
		.n_nodes = 9, .counts = counts, .bulk_en = bulk, .quick_en = quick } };
	encode_ok(&p, &f);
	expect_be(&f, OFF_DST_NODE, 2, 0xFFFE, "switch address");
	expect_be(&f, OFF_CFG_SLOT, 4, 0xDEADBEEF, "CFG slot");
	expect_be(&f, OFF_CFG_N_NODES, 2, 9, "CFG n_nodes");
	expect_be(&f, OFF_CFG_RESERVED, 2, 0, "CFG reserved");
	cr_expect_eq(memcmp(f.buf + 54, counts, 9), 0, "counts at 54");
	cr_expect_eq(memcmp(f.buf + 63, bulk, 2), 0, "bulk_en at 63");
	cr_expect_eq(memcmp(f.buf + 65, quick, 2), 0, "quick_en at 65");
	expect_crc_at(&f, 71);

	p = (struct proto_pkt) { .type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH,
		.dst_node = 6, .gnt = { .slot = 0x01020304, .target = 0x0005,
		.node_id = 0x0006, .n_nodes = 0x0007, .gflags = 0x0003,
		.slot_ns = 0xA0B0C0D0, .timestamp_ns = 0x1122334455667788ull,
		.back_slots = 0x0E0F, .slot_frames = 0x0A0B } };
	encode_ok(&p, &f);
	expect_be(&f, OFF_GNT_SLOT, 4, 0x01020304, "GNT slot");
	expect_be(&f, OFF_GNT_TARGET, 2, 5, "GNT target");
	expect_be(&f, OFF_GNT_NODE_ID, 2, 6, "GNT node_id");
	expect_be(&f, OFF_GNT_N_NODES, 2, 7, "GNT n_nodes");
	expect_be(&f, OFF_GNT_GFLAGS, 2, 3, "GNT gflags");
	expect_be(&f, OFF_GNT_SLOT_NS, 4, 0xA0B0C0D0, "GNT slot_ns");
	expect_be(&f, OFF_GNT_TIMESTAMP, 8, 0x1122334455667788ull, "GNT timestamp");
	expect_be(&f, OFF_GNT_BACK_SLOTS, 2, 0x0E0F, "GNT back_slots");
	expect_be(&f, OFF_GNT_SLOT_FRAMES, 2, 0x0A0B, "GNT slot_frames");
	expect_crc_at(&f, 78);

	p = (struct proto_pkt) { .type = PROTO_T_HELLO, .src_node = PROTO_NODE_NONE,
		.dst_node = PROTO_NODE_SWITCH, .hello_nonce = 0xCAFEF00D };
	encode_ok(&p, &f);
	expect_be(&f, OFF_SRC_NODE, 2, 0xFFFF, "unassigned node");
	expect_be(&f, OFF_HELLO_NONCE, 4, 0xCAFEF00D, "HELLO nonce");
	expect_be(&f, OFF_HELLO_CAPS, 4, 0, "HELLO caps");
	expect_crc_at(&f, 58);

	p = (struct proto_pkt) { .type = PROTO_T_QACK, .flags = PROTO_F_ACK,
		.src_node = 1, .dst_node = 2, .ack_base = 0xFFFFFF };
	encode_ok(&p, &f);
	expect_be(&f, OFF_ACK_BASE, 4, 0x00FFFFFF, "QACK ack_base");
	expect_crc_at(&f, 50);

	/* a QACK has no slot: the encoder writes nothing of it */
	p = (struct proto_pkt) { .type = PROTO_T_QACK, .flags = PROTO_F_DOWN,
		.src_node = 1, .dst_node = 2, .slot = 0xFFFFFFFF };
	encode_ok(&p, &f);
	expect_be(&f, OFF_FLAGS, 2, 0x0040, "QACK DOWN");
	expect_crc_at(&f, 50);
	expect_be(&f, 50, 4, 0, "padding");
}

/*
 * Each flag bit alone on top of a valid frame of each type, against the
 * per-type rules written out here independently of proto.c.
 */
Test(proto, flag_bits_per_type)
{
	static const struct { enum base base; uint16_t allowed; } rules[] = {
		{ B_BREQ, 0x021F },	/* DATA ACK LAST RETX FORCE_ACK FRESH */
		{ B_QREQ, 0x029F },	/* and ABANDONED */
		{ B_BACK, 0x0262 },	/* ACK NACK DOWN FRESH */
		{ B_QACK, 0x3B42 },	/* ACK DOWN NO_VNET FRESH WELCOME REFUSED DUP (RESTART
					 * only with WELCOME; REFUSED needs NACK on a BACK,
					 * ABANDONED on a QREQ) */
		{ B_CFG9, 0 },
		{ B_GNT, 0 },
		{ B_HELLO, 0 },
	};
	static struct pkt_store s;
	struct proto_pkt p, q;
	struct frame f;

	cr_assert_eq(PROTO_F_DOWN, 0x0040);
	cr_assert_eq(PROTO_F_ABANDONED, 0x0080);
	cr_assert_eq(PROTO_F_NO_VNET, 0x0100);
	cr_assert_eq(PROTO_F_FRESH, 0x0200);
	cr_assert_eq(PROTO_F_RESTART, 0x0400);
	cr_assert_eq(PROTO_F_WELCOME, 0x0800);
	cr_assert_eq(PROTO_F_REFUSED, 0x1000);
	cr_assert_eq(PROTO_F_DUP, 0x2000);
	cr_assert_eq(PROTO_F_ALL, 0x3FFF);
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		for (unsigned int bit = 0; bit < 16; bit++) {
			uint16_t flag = (uint16_t)(1u << bit);
			enum proto_reason r, want;

			base_pkt(rules[i].base, &p, &s);
			p.flags |= flag;
			want = rules[i].allowed & flag ? PROTO_R_OK : PROTO_R_FLAGS;
			encode_ok(&p, &f);
			r = decode_guarded(f.buf, f.len, NULL, &q);
			cr_expect_eq(r, want, "%s with flag 0x%04x: %s, want %s",
				     proto_type_name(p.type), flag,
				     proto_reason_name(r), proto_reason_name(want));
		}
	}
}

/* The standard check value, through both paths. */
Test(crc32c, check_value)
{
	cr_assert_eq(crc32c("123456789", 9), 0xE3069283u);
	cr_assert_eq(crc32c_update_portable(0, "123456789", 9), 0xE3069283u);
	cr_assert_eq(crc32c("", 0), 0);
	cr_assert_eq(crc32c_update(0xE3069283u, "", 0), 0xE3069283u);
}

/* Test vectors of RFC 3720 (iSCSI). */
Test(crc32c, known_vectors)
{
	uint8_t zeros[32] = { 0 }, ones[32], inc[32];

	/* RFC 3720 appendix B.4 */
	memset(ones, 0xFF, sizeof(ones));
	for (int i = 0; i < 32; i++)
		inc[i] = (uint8_t)i;
	cr_expect_eq(crc32c(zeros, 32), 0x8A9136AAu);
	cr_expect_eq(crc32c(ones, 32), 0x62A8AB43u);
	cr_expect_eq(crc32c(inc, 32), 0x46DD794Eu);
	cr_expect_eq(crc32c_update_portable(0, inc, 32), 0x46DD794Eu);
}

/* xorshift64: a fixed, libc-independent sequence. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * SSE4.2 and table paths agree on random data of lengths 0..2500: one
 * chain, and from 384 bytes on chunks of three lanes with their joins
 * (a bulk frame is about 2.1 KiB).
 */
Test(crc32c, hardware_and_portable_agree)
{
	static const uint64_t seed = 0x5E6E7C3C2A1B0D11ull;
	enum { MAXLEN = 2500 };
	static uint8_t buf[MAXLEN + 8];
	uint64_t s = seed;

	fprintf(stderr, "crc32c: seed 0x%016llx, sse4.2 %s\n",
		(unsigned long long)seed,
		__builtin_cpu_supports("sse4.2") ? "yes" : "no");
	for (size_t len = 0; len <= MAXLEN; len++) {
		/* a random start offset exercises unaligned loads */
		size_t off = rng_next(&s) % 8;
		uint32_t init = (uint32_t)rng_next(&s);

		for (size_t i = 0; i < len; i++)
			buf[off + i] = (uint8_t)rng_next(&s);
		cr_assert_eq(crc32c_update(0, buf + off, len),
			     crc32c_update_portable(0, buf + off, len), "len %zu", len);
		cr_assert_eq(crc32c_update(init, buf + off, len),
			     crc32c_update_portable(init, buf + off, len),
			     "len %zu init 0x%08x", len, init);
		if (len) {
			size_t cut = rng_next(&s) % len;

			cr_assert_eq(crc32c_update(crc32c(buf + off, cut), buf + off + cut,
						   len - cut),
				     crc32c(buf + off, len), "len %zu cut %zu", len, cut);
		}
	}
}

/* Write len bytes of buf to DIR/name. */
static void corpus_write(const char *dir, const char *name, const void *buf,
			 size_t len)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	cr_assert_not_null(fp, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(buf, 1, len, fp), len);
	cr_assert_eq(fclose(fp), 0);
}

/* Writes the seed corpus when SEGNET_PROTO_CORPUS names a directory. */
Test(corpus, write)
{
	const char *dir = getenv("SEGNET_PROTO_CORPUS");
	static struct pkt_store s;
	struct proto_pkt p;
	struct frame f;
	char name[128];

	if (!dir || !*dir)
		cr_skip_test("SEGNET_PROTO_CORPUS not set");
	for (size_t i = 0; i < N_VALID; i++) {
		valid_pkt(i, &p, &s);
		encode_ok(&p, &f);
		snprintf(name, sizeof(name), "ok-%s", valid_cases[i].name);
		corpus_write(dir, name, f.buf, f.len);
	}
	for (size_t i = 0; i < N_CRAFTS; i++) {
		craft_frame(&crafts[i], &f);
		snprintf(name, sizeof(name), "bad-%s-%s",
			 proto_reason_name(crafts[i].reason), crafts[i].name);
		corpus_write(dir, name, f.buf, f.len);
	}
	fprintf(stderr, "corpus: %d frames written to %s\n", N_VALID + N_CRAFTS, dir);
}
