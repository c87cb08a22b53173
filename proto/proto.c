/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Encoding and validating decoding of segnet frames. The decoder trusts no
 * field: every length is checked against the frame before it is used, and
 * every rejection names its reason (PROTO_REASONS).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "crc32c.h"
#include "proto.h"

/* Per-type rules of the common header. */
struct proto_type_rule {
	const char *name;
	uint16_t flags_allowed;
	uint16_t flags_required;
	bool data_fields;	/* endpoints, vnet, handler are meaningful */
};

/* Indexed by type; entry 0 is unused. */
static const struct proto_type_rule proto_rules[PROTO_T_MAX + 1] = {
	[PROTO_T_BREQ] = { "BREQ", PROTO_F_DATA | PROTO_F_ACK | PROTO_F_LAST |
			   PROTO_F_RETX | PROTO_F_FORCE_ACK | PROTO_F_FRESH,
			   PROTO_F_DATA, true },
	[PROTO_T_BACK] = { "BACK", PROTO_F_ACK | PROTO_F_NACK | PROTO_F_DOWN | PROTO_F_FRESH |
			   PROTO_F_REFUSED, 0, true },
	[PROTO_T_QREQ] = { "QREQ", PROTO_F_DATA | PROTO_F_ACK | PROTO_F_LAST |
			   PROTO_F_RETX | PROTO_F_FORCE_ACK | PROTO_F_ABANDONED | PROTO_F_FRESH |
			   PROTO_F_REFUSED, PROTO_F_DATA, true },
	[PROTO_T_QACK] = { "QACK", PROTO_F_ACK | PROTO_F_DOWN | PROTO_F_NO_VNET | PROTO_F_FRESH |
			   PROTO_F_RESTART | PROTO_F_WELCOME | PROTO_F_REFUSED | PROTO_F_DUP,
			   0, true },
	[PROTO_T_CFG] = { "CFG", 0, 0, false },
	[PROTO_T_GNT] = { "GNT", 0, 0, false },
	[PROTO_T_HELLO] = { "HELLO", 0, 0, false },
};

static const char *const proto_reason_names[PROTO_R_COUNT] = {
#define PROTO_REASON_NAME(id, name, text) [PROTO_R_##id] = name,
	PROTO_REASONS(PROTO_REASON_NAME)
#undef PROTO_REASON_NAME
};

static const char *const proto_reason_texts[PROTO_R_COUNT] = {
#define PROTO_REASON_TEXT(id, name, text) [PROTO_R_##id] = text,
	PROTO_REASONS(PROTO_REASON_TEXT)
#undef PROTO_REASON_TEXT
};

const char *proto_reason_name(enum proto_reason r)
{
	return (unsigned int)r < PROTO_R_COUNT ? proto_reason_names[r] : "?";
}

const char *proto_reason_text(enum proto_reason r)
{
	return (unsigned int)r < PROTO_R_COUNT ? proto_reason_texts[r] : "?";
}

const char *proto_type_name(uint8_t type)
{
	return type >= 1 && type <= PROTO_T_MAX ? proto_rules[type].name : "?";
}

/* Bytes in one CFG enable vector. */
static size_t proto_vec_len(uint16_t n_nodes)
{
	return ((size_t)n_nodes + 7) / 8;
}

/* proto_body_len, inlined where frames are decoded. */
static inline size_t proto_body_len_of(uint8_t type, uint16_t cfg_nodes)
{
	switch (type) {
	case PROTO_T_BREQ:
		return sizeof(struct proto_breq_body);
	case PROTO_T_QREQ:
		return PROTO_ARGS_LEN;
	case PROTO_T_BACK:
		return sizeof(struct proto_back_body);
	case PROTO_T_CFG:
		return sizeof(struct proto_cfg_body) + cfg_nodes +
		       2 * proto_vec_len(cfg_nodes);
	case PROTO_T_GNT:
		return sizeof(struct proto_gnt_body);
	case PROTO_T_HELLO:
		return sizeof(struct proto_hello_body);
	default:
		return 0;
	}
}

size_t proto_body_len(uint8_t type, uint16_t cfg_nodes)
{
	return proto_body_len_of(type, cfg_nodes);
}

/* Frame length before padding to the Ethernet minimum. */
static size_t proto_raw_len(const struct proto_pkt *pkt)
{
	uint16_t cfg_nodes = pkt->type == PROTO_T_CFG ? pkt->cfg.n_nodes : 0;
	uint16_t payload = pkt->type == PROTO_T_BREQ ? pkt->payload_len : 0;

	return PROTO_ETH_LEN + PROTO_HDR_LEN +
	       proto_body_len(pkt->type, cfg_nodes) + payload + PROTO_CRC_LEN;
}

size_t proto_frame_len(const struct proto_pkt *pkt)
{
	size_t len = proto_raw_len(pkt);

	return len < PROTO_MIN_FRAME ? PROTO_MIN_FRAME : len;
}

void proto_node_mac(uint16_t node, uint8_t mac[6])
{
	/* 02:53:4e = locally administered, "SN". */
	mac[0] = 0x02;
	mac[1] = 0x53;
	mac[2] = 0x4e;
	mac[3] = 0x00;
	mac[4] = node >> 8;
	mac[5] = node & 0xff;
}

/* Write the type-specific body; returns its length. */
static size_t proto_encode_body(const struct proto_pkt *pkt, uint8_t *b)
{
	uint32_t slot = htonl(pkt->slot);

	switch (pkt->type) {
	case PROTO_T_BREQ:
		memcpy(b, &slot, sizeof(slot));
		b += sizeof(slot);
		__attribute__((fallthrough));	/* the arguments follow */
	case PROTO_T_QREQ:
		if (pkt->args)
			memcpy(b, pkt->args, PROTO_ARGS_LEN);
		else
			memset(b, 0, PROTO_ARGS_LEN);
		return proto_body_len(pkt->type, 0);
	case PROTO_T_BACK: {
		struct proto_back_body bb = { .slot = slot };

		memcpy(b, &bb, sizeof(bb));
		return sizeof(bb);
	}
	case PROTO_T_CFG: {
		const struct proto_cfg *c = &pkt->cfg;
		struct proto_cfg_body cb = {
			.slot = htonl(c->slot), .n_nodes = htons(c->n_nodes),
		};
		size_t vl = proto_vec_len(c->n_nodes), off = sizeof(cb);

		memcpy(b, &cb, sizeof(cb));
		memcpy(b + off, c->counts, c->n_nodes);
		off += c->n_nodes;
		memcpy(b + off, c->bulk_en, vl);
		off += vl;
		memcpy(b + off, c->quick_en, vl);
		return off + vl;
	}
	case PROTO_T_GNT: {
		const struct proto_gnt *g = &pkt->gnt;
		struct proto_gnt_body gb = {
			.slot = htonl(g->slot), .target = htons(g->target),
			.node_id = htons(g->node_id), .n_nodes = htons(g->n_nodes),
			.gflags = htons(g->gflags), .slot_ns = htonl(g->slot_ns),
			.timestamp_ns = htobe64(g->timestamp_ns),
			.back_slots = htons(g->back_slots),
			.slot_frames = htons(g->slot_frames),
		};

		memcpy(b, &gb, sizeof(gb));
		return sizeof(gb);
	}
	case PROTO_T_HELLO: {
		struct proto_hello_body hb = { .nonce = htonl(pkt->hello_nonce) };

		memcpy(b, &hb, sizeof(hb));
		return sizeof(hb);
	}
	default:
		return 0;
	}
}

int proto_encode(const struct proto_pkt *pkt, void *buf, size_t cap)
{
	uint8_t *p = buf;
	struct proto_eth eth;
	struct proto_hdr h;
	size_t off, raw, len;
	uint16_t payload = pkt->type == PROTO_T_BREQ ? pkt->payload_len : 0;
	uint32_t crc;

	if (pkt->type < 1 || pkt->type > PROTO_T_MAX ||
	    payload > PROTO_MAX_PAYLOAD ||
	    (pkt->type == PROTO_T_CFG &&
	     (pkt->cfg.n_nodes == 0 || pkt->cfg.n_nodes > PROTO_MAX_NODES)))
		return -EINVAL;
	raw = proto_raw_len(pkt);
	len = proto_frame_len(pkt);
	if (len > cap)
		return -ENOSPC;

	memcpy(eth.dst, pkt->eth_dst, 6);
	memcpy(eth.src, pkt->eth_src, 6);
	eth.ethertype = htons(PROTO_ETHERTYPE);
	memcpy(p, &eth, sizeof(eth));

	h = (struct proto_hdr) {
		.version = PROTO_VERSION,
		.type = pkt->type,
		.flags = htons(pkt->flags),
		.src_node = htons(pkt->src_node),
		.dst_node = htons(pkt->dst_node),
		.vnet = htons(pkt->vnet),
		.src_ep = htons(pkt->src_ep),
		.dst_ep = htons(pkt->dst_ep),
		.handler = htons(pkt->handler),
		.pkt_num = htonl(pkt->pkt_num),
		.ack_base = htonl(pkt->ack_base),
		.ack_mask = htonl(pkt->ack_mask),
		.payload_len = htons(payload),
		.epoch = htons(pkt->epoch),
	};
	off = PROTO_ETH_LEN;
	memcpy(p + off, &h, sizeof(h));
	off += sizeof(h);
	off += proto_encode_body(pkt, p + off);
	if (payload) {
		memcpy(p + off, pkt->payload, payload);
		off += payload;
	}
	crc = htonl(crc32c(p + PROTO_ETH_LEN, off - PROTO_ETH_LEN));
	memcpy(p + off, &crc, sizeof(crc));
	off += sizeof(crc);
	if (len > raw)
		memset(p + raw, 0, len - raw);
	return (int)len;
}

/* Node-id rules: data types address nodes, control types the switch. */
static enum proto_reason proto_check_nodes(const struct proto_pkt *pkt,
					   uint16_t max_nodes)
{
	uint16_t s = pkt->src_node, d = pkt->dst_node;

	switch (pkt->type) {
	case PROTO_T_CFG:
		if (s >= max_nodes)
			return PROTO_R_SRC_NODE;
		return d == PROTO_NODE_SWITCH ? PROTO_R_OK : PROTO_R_DST_NODE;
	case PROTO_T_HELLO:
		if (s >= max_nodes && s != PROTO_NODE_NONE)
			return PROTO_R_SRC_NODE;
		return d == PROTO_NODE_SWITCH ? PROTO_R_OK : PROTO_R_DST_NODE;
	case PROTO_T_GNT:
		if (s != PROTO_NODE_SWITCH)
			return PROTO_R_SRC_NODE;
		return d < max_nodes ? PROTO_R_OK : PROTO_R_DST_NODE;
	default:
		if (s >= max_nodes)
			return PROTO_R_SRC_NODE;
		return d < max_nodes ? PROTO_R_OK : PROTO_R_DST_NODE;
	}
}

/*
 * How the flags that name processes (FRESH, WELCOME, RESTART), REFUSED and
 * DUP combine with the others; only a frame carrying one of them comes here.
 */
static enum proto_reason proto_check_process_flags(uint16_t flags)
{
	/* A switch's notice or a NO_VNET answer is no connection's own frame. */
	if (flags & (PROTO_F_DOWN | PROTO_F_NO_VNET))
		return PROTO_R_FLAGS;
	/* A WELCOME comes from an end that knows its epoch; only it says RESTART. */
	if ((flags & PROTO_F_FRESH) && (flags & PROTO_F_WELCOME))
		return PROTO_R_FLAGS;
	if ((flags & PROTO_F_RESTART) && !(flags & PROTO_F_WELCOME))
		return PROTO_R_FLAGS;
	return PROTO_R_OK;
}

/*
 * REFUSED (after proto_check_process_flags: not on a switch's notice nor a
 * NO_VNET answer): on a BACK only with NACK, on a QREQ only with ABANDONED
 * (a marker), never on a WELCOME. A refusal (BACK, QACK) carries the
 * receiver's acknowledgment, which its sender needs to act on it: without
 * ACK, it would be dropped uncounted. A REFUSED marker's handler is the
 * distance to the number its messages come again from: 1 .. the window
 * (<= 32, the sack mask); a larger one would bound the receiver's block
 * that far ahead, refusing the endpoint's messages for up to 65535
 * numbers. Checked here, with the flag, so other frames pay nothing.
 */
static enum proto_reason proto_check_refused(const struct proto_pkt *pkt)
{
	if (pkt->flags & PROTO_F_WELCOME)
		return PROTO_R_FLAGS;
	if (pkt->type == PROTO_T_BACK && !(pkt->flags & PROTO_F_NACK))
		return PROTO_R_FLAGS;
	if (pkt->type == PROTO_T_QREQ && !(pkt->flags & PROTO_F_ABANDONED))
		return PROTO_R_FLAGS;
	if (pkt->type != PROTO_T_QREQ && !(pkt->flags & PROTO_F_ACK))
		return PROTO_R_FLAGS;
	if (pkt->type == PROTO_T_QREQ && (pkt->handler < 1 || pkt->handler > PROTO_SACK_BITS))
		return PROTO_R_FLAGS;
	return PROTO_R_OK;
}

/*
 * DUP (after proto_check_process_flags: not on a switch's notice nor a
 * NO_VNET answer): a node's answer to a data frame that was a copy of
 * packet pkt_num, received already, so it carries the acknowledgment,
 * which covers that number (checked with the ack fields); never on a
 * WELCOME or a refusal, nor FRESH: an end that knows no epoch has
 * received nothing.
 */
static enum proto_reason proto_check_dup(uint16_t flags)
{
	if (!(flags & PROTO_F_ACK) ||
	    (flags & (PROTO_F_FRESH | PROTO_F_WELCOME | PROTO_F_REFUSED)))
		return PROTO_R_FLAGS;
	return PROTO_R_OK;
}

/*
 * Everything in the common header that does not depend on the body. The
 * epoch is a connection's (any value) on the data types; the control types
 * belong to no connection and keep the field reserved.
 */
static enum proto_reason proto_check_hdr(const struct proto_pkt *pkt,
					 uint16_t max_nodes, uint16_t max_eps)
{
	const struct proto_type_rule *rule = &proto_rules[pkt->type];
	enum proto_reason r;

	if ((pkt->flags & ~rule->flags_allowed) ||
	    (pkt->flags & rule->flags_required) != rule->flags_required)
		return PROTO_R_FLAGS;
	/* The rare flags behind one test: it is on every frame the switch forwards. */
	if (pkt->flags & (PROTO_F_FRESH | PROTO_F_RESTART | PROTO_F_WELCOME | PROTO_F_REFUSED |
			  PROTO_F_DUP)) {
		r = proto_check_process_flags(pkt->flags);
		if (r == PROTO_R_OK && (pkt->flags & PROTO_F_REFUSED))
			r = proto_check_refused(pkt);
		if (r == PROTO_R_OK && (pkt->flags & PROTO_F_DUP))
			r = proto_check_dup(pkt->flags);
		if (r != PROTO_R_OK)
			return r;
	}
	r = proto_check_nodes(pkt, max_nodes);
	if (r != PROTO_R_OK)
		return r;
	if ((pkt->flags & PROTO_F_DOWN) && pkt->epoch > PROTO_DOWN_MAX)
		return PROTO_R_RESERVED;
	if (rule->data_fields) {
		if (pkt->src_ep >= max_eps || pkt->dst_ep >= max_eps)
			return PROTO_R_ENDPOINT;
		/*
		 * A WELCOME carries its sender's boot nonce there, a DOWN
		 * notice that of the process the switch last saw join.
		 */
		if (pkt->handler &&
		    !(pkt->flags & (PROTO_F_DATA | PROTO_F_WELCOME | PROTO_F_DOWN)))
			return PROTO_R_VNET;
	} else {
		if (pkt->src_ep || pkt->dst_ep)
			return PROTO_R_ENDPOINT;
		if (pkt->vnet || pkt->handler)
			return PROTO_R_VNET;
		if (pkt->epoch)
			return PROTO_R_RESERVED;
	}
	/*
	 * Without data, a BACK names the BREQ it answers by its number (0:
	 * none), a REFUSED QACK the packet refused, a DUP QACK the packet
	 * copied, a WELCOME the boot nonce it took; others carry none.
	 */
	if (pkt->pkt_num > PROTO_PKT_NUM_MASK)
		return PROTO_R_PKT_NUM;
	if (pkt->pkt_num && !(pkt->flags & (PROTO_F_DATA | PROTO_F_REFUSED | PROTO_F_DUP)) &&
	    pkt->type != PROTO_T_BACK &&
	    !((pkt->flags & PROTO_F_WELCOME) && pkt->pkt_num <= UINT16_MAX))
		return PROTO_R_PKT_NUM;
	if (pkt->ack_base > PROTO_PKT_NUM_MASK ||
	    ((pkt->ack_base | pkt->ack_mask) && !(pkt->flags & PROTO_F_ACK)))
		return PROTO_R_ACK_FIELDS;
	/* A copy is of a packet received already: the DUP QACK's own ack covers it. */
	if ((pkt->flags & PROTO_F_DUP) &&
	    !proto_ack_covers(pkt->pkt_num, pkt->ack_base, pkt->ack_mask))
		return PROTO_R_PKT_NUM;
	if (pkt->payload_len > PROTO_MAX_PAYLOAD ||
	    (pkt->payload_len && pkt->type != PROTO_T_BREQ))
		return PROTO_R_PAYLOAD_LEN;
	return PROTO_R_OK;
}

/* True when the bits of vec at positions >= n are all zero. */
static bool proto_vec_tail_clear(const uint8_t *vec, uint16_t n)
{
	return (n & 7) == 0 || (vec[n >> 3] >> (n & 7)) == 0;
}

/* Decode and check a CFG body whose full length is already known good. */
static enum proto_reason proto_decode_cfg(const uint8_t *b, uint16_t reserved,
					  struct proto_pkt *out)
{
	struct proto_cfg *c = &out->cfg;
	size_t vl = proto_vec_len(c->n_nodes);

	if (reserved)
		return PROTO_R_RESERVED;
	c->counts = b + sizeof(struct proto_cfg_body);
	c->bulk_en = c->counts + c->n_nodes;
	c->quick_en = c->bulk_en + vl;
	if (!proto_vec_tail_clear(c->bulk_en, c->n_nodes) ||
	    !proto_vec_tail_clear(c->quick_en, c->n_nodes))
		return PROTO_R_RESERVED;
	return PROTO_R_OK;
}

/* Decode and check a GNT body. */
static enum proto_reason proto_decode_gnt(const uint8_t *b, uint16_t max_nodes,
					  struct proto_pkt *out)
{
	struct proto_gnt_body gb;
	struct proto_gnt *g = &out->gnt;

	memcpy(&gb, b, sizeof(gb));
	g->slot = ntohl(gb.slot);
	g->target = ntohs(gb.target);
	g->node_id = ntohs(gb.node_id);
	g->n_nodes = ntohs(gb.n_nodes);
	g->gflags = ntohs(gb.gflags);
	g->slot_ns = ntohl(gb.slot_ns);
	g->timestamp_ns = be64toh(gb.timestamp_ns);
	g->back_slots = ntohs(gb.back_slots);
	g->slot_frames = ntohs(gb.slot_frames);
	if (g->n_nodes == 0 || g->n_nodes > max_nodes ||
	    g->node_id >= g->n_nodes || g->node_id != out->dst_node ||
	    (g->target >= g->n_nodes && g->target != PROTO_NODE_NONE) ||
	    (g->gflags & ~PROTO_GNT_F_ALL) || g->slot_ns == 0 ||
	    g->slot_frames == 0)
		return PROTO_R_BODY;
	return PROTO_R_OK;
}

/* Decode and check the body after its length has been checked. */
static enum proto_reason proto_decode_body(const uint8_t *b, uint16_t max_nodes,
					   uint16_t cfg_reserved,
					   struct proto_pkt *out)
{
	switch (out->type) {
	case PROTO_T_BREQ: {
		uint32_t slot;

		memcpy(&slot, b, sizeof(slot));
		out->slot = ntohl(slot);
		out->args = b + sizeof(slot);
		out->payload = b + sizeof(struct proto_breq_body);
		return PROTO_R_OK;
	}
	case PROTO_T_QREQ:
		out->args = b;
		return PROTO_R_OK;
	case PROTO_T_BACK: {
		struct proto_back_body bb;

		memcpy(&bb, b, sizeof(bb));
		out->slot = ntohl(bb.slot);
		return PROTO_R_OK;
	}
	case PROTO_T_CFG:
		return proto_decode_cfg(b, cfg_reserved, out);
	case PROTO_T_GNT:
		return proto_decode_gnt(b, max_nodes, out);
	case PROTO_T_HELLO: {
		struct proto_hello_body hb;

		memcpy(&hb, b, sizeof(hb));
		out->hello_nonce = ntohl(hb.nonce);
		return hb.caps ? PROTO_R_RESERVED : PROTO_R_OK;
	}
	default:
		return PROTO_R_OK;
	}
}

/* Fill the common fields of out from the wire header. */
static void proto_read_hdr(const uint8_t *f, struct proto_pkt *out)
{
	struct proto_eth eth;
	struct proto_hdr h;

	memcpy(&eth, f, sizeof(eth));
	memcpy(&h, f + PROTO_ETH_LEN, sizeof(h));
	memcpy(out->eth_dst, eth.dst, 6);
	memcpy(out->eth_src, eth.src, 6);
	out->type = h.type;
	out->flags = ntohs(h.flags);
	out->src_node = ntohs(h.src_node);
	out->dst_node = ntohs(h.dst_node);
	out->vnet = ntohs(h.vnet);
	out->src_ep = ntohs(h.src_ep);
	out->dst_ep = ntohs(h.dst_ep);
	out->handler = ntohs(h.handler);
	out->pkt_num = ntohl(h.pkt_num);
	out->ack_base = ntohl(h.ack_base);
	out->ack_mask = ntohl(h.ack_mask);
	out->payload_len = ntohs(h.payload_len);
	out->epoch = ntohs(h.epoch);
	out->args = NULL;
	out->payload = NULL;
	out->slot = 0;
}

enum proto_reason proto_decode(const void *frame, size_t len,
			       const struct proto_limits *lim,
			       struct proto_pkt *out)
{
	static const struct proto_limits defaults = {
		.max_nodes = PROTO_MAX_NODES,
		.max_endpoints = PROTO_MAX_ENDPOINTS,
	};
	const uint8_t *f = frame;
	const uint8_t *body = f + PROTO_ETH_LEN + PROTO_HDR_LEN;
	struct proto_cfg_body cb;
	uint16_t ethertype, max_nodes, max_eps;
	size_t fixed, need, end;
	enum proto_reason r;
	uint32_t crc_wire;

	if (!lim)
		lim = &defaults;
	/* Zero or oversized limits mean the format's own maxima. */
	max_nodes = lim->max_nodes && lim->max_nodes < PROTO_MAX_NODES ?
		    lim->max_nodes : PROTO_MAX_NODES;
	max_eps = lim->max_endpoints && lim->max_endpoints < PROTO_MAX_ENDPOINTS ?
		  lim->max_endpoints : PROTO_MAX_ENDPOINTS;
	if (len < PROTO_ETH_LEN + PROTO_HDR_LEN + PROTO_CRC_LEN)
		return PROTO_R_TOO_SHORT;
	memcpy(&ethertype, f + 12, 2);
	if (ntohs(ethertype) != PROTO_ETHERTYPE)
		return PROTO_R_ETHERTYPE;
	if (f[PROTO_ETH_LEN] != PROTO_VERSION)
		return PROTO_R_VERSION;
	if (f[PROTO_ETH_LEN + 1] < 1 || f[PROTO_ETH_LEN + 1] > PROTO_T_MAX)
		return PROTO_R_TYPE;
	proto_read_hdr(f, out);
	r = proto_check_hdr(out, max_nodes, max_eps);
	if (r != PROTO_R_OK)
		return r;

	/* The body's fixed part must be present before its fields are read. */
	fixed = PROTO_ETH_LEN + PROTO_HDR_LEN + proto_body_len_of(out->type, 0);
	if (len < fixed + PROTO_CRC_LEN)
		return PROTO_R_TRUNCATED;
	out->cfg.n_nodes = 0;
	cb.reserved = 0;
	end = fixed + out->payload_len;
	if (out->type == PROTO_T_CFG) {
		memcpy(&cb, body, sizeof(cb));
		out->cfg.slot = ntohl(cb.slot);
		out->cfg.n_nodes = ntohs(cb.n_nodes);
		if (out->cfg.n_nodes == 0 || out->cfg.n_nodes > max_nodes)
			return PROTO_R_BODY;
		end = PROTO_ETH_LEN + PROTO_HDR_LEN +
		      proto_body_len_of(PROTO_T_CFG, out->cfg.n_nodes);
	}
	need = end + PROTO_CRC_LEN;
	if (len < need)
		return PROTO_R_TRUNCATED;
	if (len > need && len > PROTO_MIN_FRAME)
		return PROTO_R_TRAILING;
	r = proto_decode_body(body, max_nodes, ntohs(cb.reserved), out);
	if (r != PROTO_R_OK)
		return r;
	if (lim->skip_crc)
		return PROTO_R_OK;
	memcpy(&crc_wire, f + end, sizeof(crc_wire));
	if (ntohl(crc_wire) != crc32c(f + PROTO_ETH_LEN, end - PROTO_ETH_LEN))
		return PROTO_R_CRC;
	return PROTO_R_OK;
}
