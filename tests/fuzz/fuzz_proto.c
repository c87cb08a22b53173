/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for proto_decode(). Besides the sanitizers' own checks
 * it enforces the decoder's contract:
 * - every reason is a PROTO_REASONS entry;
 * - skipping the CRC changes nothing but CRC into OK, and tighter limits
 *   never accept what the format's limits reject;
 * - an accepted frame's pointers lie inside the frame; only BREQ and BACK
 *   have a non-zero slot; a GNT's slot_frames is at least 1; only a QACK
 *   is a WELCOME, never with FRESH, DOWN or NO_VNET, and its pkt_num (a
 *   boot nonce) fits 16 bits; only a WELCOME says RESTART; the frame's
 *   length is its content plus at most the padding to 60 bytes;
 *   re-encoding the decoded packet gives back the same bytes (the encoding
 *   is canonical) and a frame that decodes OK to the same fields.
 * A broken invariant aborts, so libFuzzer saves the input as a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"

/* The largest frame the format allows: BREQ with 2048 bytes of payload. */
enum { FUZZ_MAX_FRAME = PROTO_ETH_LEN + PROTO_HDR_LEN + sizeof(struct proto_breq_body) +
			PROTO_MAX_PAYLOAD + PROTO_CRC_LEN };

/* Limits each input is decoded with; the order is used by the checks. */
enum { FUZZ_LIM_FORMAT, FUZZ_LIM_NOCRC, FUZZ_LIM_SMALL, FUZZ_LIM_COUNT };

/* The format's maxima; the same without the CRC; a 16-node cluster. */
static const struct proto_limits fuzz_limits[FUZZ_LIM_COUNT] = {
	[FUZZ_LIM_FORMAT] = { 0 },
	[FUZZ_LIM_NOCRC] = { .skip_crc = true },
	[FUZZ_LIM_SMALL] = { .max_nodes = 16, .max_endpoints = 64, .skip_crc = true },
};

/* libFuzzer's entry point; declared for -Wmissing-prototypes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with the name of the broken invariant when ok is false. */
static void fuzz_check(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_proto: invariant broken: %s\n", what);
	abort();
}

/* True when [p, p + n) lies inside [f, f + len). */
static bool fuzz_inside(const uint8_t *f, size_t len, const uint8_t *p, size_t n)
{
	return p && p >= f && n <= len && (size_t)(p - f) <= len - n;
}

/* Bytes in one CFG enable vector. */
static size_t fuzz_vec_len(uint16_t n_nodes)
{
	return ((size_t)n_nodes + 7) / 8;
}

/* Frame length before padding, CRC included, of a decoded packet. */
static size_t fuzz_raw_len(const struct proto_pkt *p)
{
	uint16_t n = p->type == PROTO_T_CFG ? p->cfg.n_nodes : 0;

	return PROTO_ETH_LEN + PROTO_HDR_LEN + proto_body_len(p->type, n) +
	       p->payload_len + PROTO_CRC_LEN;
}

/* Every pointer of an accepted packet points inside its frame. */
static void fuzz_check_pointers(const uint8_t *f, size_t len,
				const struct proto_pkt *p)
{
	const struct proto_cfg *c = &p->cfg;

	if (p->type == PROTO_T_BREQ || p->type == PROTO_T_QREQ)
		fuzz_check(fuzz_inside(f, len, p->args, PROTO_ARGS_LEN), "args inside");
	if (p->type == PROTO_T_BREQ && p->payload_len)
		fuzz_check(fuzz_inside(f, len, p->payload, p->payload_len),
			   "payload inside");
	if (p->type != PROTO_T_CFG)
		return;
	fuzz_check(fuzz_inside(f, len, c->counts, c->n_nodes), "counts inside");
	fuzz_check(fuzz_inside(f, len, c->bulk_en, fuzz_vec_len(c->n_nodes)),
		   "bulk_en inside");
	fuzz_check(fuzz_inside(f, len, c->quick_en, fuzz_vec_len(c->n_nodes)),
		   "quick_en inside");
}

/* True when the common-header fields of a and b are equal. */
static bool fuzz_hdr_equal(const struct proto_pkt *a, const struct proto_pkt *b)
{
	return !memcmp(a->eth_dst, b->eth_dst, 6) &&
	       !memcmp(a->eth_src, b->eth_src, 6) &&
	       a->type == b->type && a->flags == b->flags &&
	       a->src_node == b->src_node && a->dst_node == b->dst_node &&
	       a->vnet == b->vnet && a->src_ep == b->src_ep &&
	       a->dst_ep == b->dst_ep && a->handler == b->handler &&
	       a->pkt_num == b->pkt_num && a->ack_base == b->ack_base &&
	       a->ack_mask == b->ack_mask && a->payload_len == b->payload_len;
}

/* True when the CFG bodies of a and b are equal, vectors included. */
static bool fuzz_cfg_equal(const struct proto_cfg *a, const struct proto_cfg *b)
{
	size_t vl = fuzz_vec_len(a->n_nodes);

	return a->slot == b->slot && a->n_nodes == b->n_nodes &&
	       !memcmp(a->counts, b->counts, a->n_nodes) &&
	       !memcmp(a->bulk_en, b->bulk_en, vl) &&
	       !memcmp(a->quick_en, b->quick_en, vl);
}

/* True when the GNT bodies of a and b are equal. */
static bool fuzz_gnt_equal(const struct proto_gnt *a, const struct proto_gnt *b)
{
	return a->slot == b->slot && a->target == b->target &&
	       a->node_id == b->node_id && a->n_nodes == b->n_nodes &&
	       a->gflags == b->gflags && a->slot_ns == b->slot_ns &&
	       a->timestamp_ns == b->timestamp_ns && a->back_slots == b->back_slots &&
	       a->slot_frames == b->slot_frames;
}

/* True when every field two decoded packets carry is equal. */
static bool fuzz_pkt_equal(const struct proto_pkt *a, const struct proto_pkt *b)
{
	if (!fuzz_hdr_equal(a, b) || a->slot != b->slot)
		return false;
	switch (a->type) {
	case PROTO_T_BREQ:
		return !memcmp(a->args, b->args, PROTO_ARGS_LEN) &&
		       !memcmp(a->payload, b->payload, a->payload_len);
	case PROTO_T_QREQ:
		return !memcmp(a->args, b->args, PROTO_ARGS_LEN);
	case PROTO_T_CFG:
		return fuzz_cfg_equal(&a->cfg, &b->cfg);
	case PROTO_T_GNT:
		return fuzz_gnt_equal(&a->gnt, &b->gnt);
	case PROTO_T_HELLO:
		return a->hello_nonce == b->hello_nonce;
	default:
		return true;
	}
}

/* The WELCOME and RESTART flags of an accepted packet keep doc/protocol.md's rules. */
static bool fuzz_welcome_ok(const struct proto_pkt *p)
{
	if (!(p->flags & PROTO_F_WELCOME))
		return !(p->flags & PROTO_F_RESTART);
	return p->type == PROTO_T_QACK && p->pkt_num <= UINT16_MAX &&
	       !(p->flags & (PROTO_F_FRESH | PROTO_F_DOWN | PROTO_F_NO_VNET));
}

/* Re-encode an accepted packet: same bytes, and it decodes to itself. */
static void fuzz_check_reencode(const uint8_t *f, size_t len,
				const struct proto_limits *lim,
				const struct proto_pkt *p)
{
	static uint8_t enc[FUZZ_MAX_FRAME];
	size_t raw = fuzz_raw_len(p);
	size_t padded = raw < PROTO_MIN_FRAME ? PROTO_MIN_FRAME : raw;
	size_t cmp = lim->skip_crc ? raw - PROTO_CRC_LEN : raw;
	struct proto_limits crc_on = *lim;
	struct proto_pkt q;
	int n;

	fuzz_check(len >= raw && len <= padded, "length is content plus padding");
	n = proto_encode(p, enc, sizeof(enc));
	fuzz_check(n > 0 && (size_t)n == padded, "re-encoded length");
	fuzz_check(proto_frame_len(p) == padded, "proto_frame_len");
	fuzz_check(!memcmp(enc, f, cmp), "re-encoding gives the same bytes");
	crc_on.skip_crc = false;
	fuzz_check(proto_decode(enc, (size_t)n, &crc_on, &q) == PROTO_R_OK,
		   "re-encoded frame decodes OK");
	fuzz_check(fuzz_pkt_equal(p, &q), "re-encoded frame decodes to equal fields");
}

/* Decode one input with every set of limits and check the invariants. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum proto_reason r[FUZZ_LIM_COUNT];
	struct proto_pkt pkt;

	for (int i = 0; i < FUZZ_LIM_COUNT; i++) {
		r[i] = proto_decode(data, size, &fuzz_limits[i], &pkt);
		fuzz_check((unsigned int)r[i] < PROTO_R_COUNT, "reason in range");
		fuzz_check(strcmp(proto_reason_name(r[i]), "?") != 0, "reason named");
		if (r[i] != PROTO_R_OK)
			continue;
		fuzz_check_pointers(data, size, &pkt);
		fuzz_check(pkt.type == PROTO_T_BREQ || pkt.type == PROTO_T_BACK ||
			   pkt.slot == 0, "slot is 0 on types without one");
		fuzz_check(pkt.type != PROTO_T_GNT || pkt.gnt.slot_frames >= 1,
			   "an accepted GNT allows at least one BREQ");
		fuzz_check(fuzz_welcome_ok(&pkt), "WELCOME and RESTART where the format allows");
		fuzz_check_reencode(data, size, &fuzz_limits[i], &pkt);
	}
	fuzz_check(r[FUZZ_LIM_FORMAT] == r[FUZZ_LIM_NOCRC] ||
		   (r[FUZZ_LIM_FORMAT] == PROTO_R_CRC && r[FUZZ_LIM_NOCRC] == PROTO_R_OK),
		   "skipping the CRC changes only CRC into OK");
	fuzz_check(r[FUZZ_LIM_SMALL] != PROTO_R_OK || r[FUZZ_LIM_NOCRC] == PROTO_R_OK,
		   "tighter limits accept no more");
	return 0;
}
