/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The segnet wire format: packet types, the packed wire headers, and the
 * encoder and validating decoder. Pure C, no DPDK: every component and the
 * fuzzer share it. doc/protocol.md is the prose authority for every field.
 */
#ifndef SEGNET_PROTO_H
#define SEGNET_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fixed properties of the format. */
enum {
	PROTO_ETHERTYPE = 0x88B5,	/* IEEE 802 local experimental 1 */
	PROTO_VERSION = 1,
	PROTO_ETH_LEN = 14,		/* dst MAC, src MAC, EtherType */
	PROTO_HDR_LEN = 32,		/* common segnet header */
	PROTO_CRC_LEN = 4,		/* CRC32C trailer */
	PROTO_MIN_FRAME = 60,		/* Ethernet minimum without FCS */
	PROTO_ARGS_LEN = 32,		/* active-message arguments */
	PROTO_MAX_PAYLOAD = 2048,	/* bulk payload */
	PROTO_MAX_NODES = 1024,		/* node ids 0 .. 1023 */
	PROTO_MAX_ENDPOINTS = 4096,	/* endpoint ids 0 .. 4095 */
	PROTO_NODE_SWITCH = 0xFFFE,	/* address of the switch itself */
	PROTO_NODE_NONE = 0xFFFF,	/* no node: unassigned or no grant */
	PROTO_PKT_NUM_BITS = 24,
	PROTO_PKT_NUM_MASK = 0xFFFFFF,
	PROTO_SACK_BITS = 32,
};

/*
 * Liveness, which the switch and the NICs must agree on: a NIC that hears
 * no GNT for PROTO_LOST_GNT_SLOTS slots joins again (a new incarnation, so
 * every peer's connection to it restarts), and the switch sends an idle
 * node a keepalive GNT at least every PROTO_MAX_GNT_KEEPALIVE slots (its
 * --gnt-keepalive), so only a run of about eight lost keepalives (a dead
 * switch or link) makes an idle node rejoin.
 */
enum {
	PROTO_LOST_GNT_SLOTS = 1000,
	PROTO_MAX_GNT_KEEPALIVE = PROTO_LOST_GNT_SLOTS / 8,
};

/*
 * The other way: the switch marks a node down after PROTO_DOWN_SLOTS slots
 * without a CFG (its --down-slots default), and a NIC whose requests do not
 * change sends a keepalive CFG at least every PROTO_MAX_CFG_KEEPALIVE slots
 * (its --cfg-keepalive), an eighth of that.
 */
enum {
	PROTO_DOWN_SLOTS = 20000,
	PROTO_MAX_CFG_KEEPALIVE = PROTO_DOWN_SLOTS / 8,
};

/* Packet types; the value is the on-wire type byte. */
enum proto_type {
	PROTO_T_BREQ = 1,	/* bulk request: message + payload (bulk) */
	PROTO_T_BACK = 2,	/* bulk acknowledgment, positive or negative */
	PROTO_T_QREQ = 3,	/* quick request: handler + 32 bytes of args */
	PROTO_T_QACK = 4,	/* quick acknowledgment */
	PROTO_T_CFG = 5,	/* per-slot configuration, node -> switch */
	PROTO_T_GNT = 6,	/* per-slot grant, switch -> node */
	PROTO_T_HELLO = 7,	/* join request, node -> switch */
	PROTO_T_MAX = 7,
};

/* Common-header flags (16 bits on the wire). */
enum proto_flag {
	PROTO_F_DATA = 1u << 0,		/* carries a message */
	PROTO_F_ACK = 1u << 1,		/* ack_base and ack_mask are valid */
	PROTO_F_LAST = 1u << 2,		/* last packet of its message */
	PROTO_F_RETX = 1u << 3,		/* a retransmission */
	PROTO_F_FORCE_ACK = 1u << 4,	/* receiver must acknowledge at once */
	PROTO_F_NACK = 1u << 5,		/* BACK: no receive buffer, retry */
	PROTO_F_DOWN = 1u << 6,		/* BACK/QACK from the switch: target is down */
	PROTO_F_ABANDONED = 1u << 7,	/* QREQ: the sender gave its message up or
					 * cancelled it; take the number, deliver nothing */
	PROTO_F_NO_VNET = 1u << 8,	/* QACK from a node: it does not serve the
					 * vnet of the data frame it answers */
	PROTO_F_FRESH = 1u << 9,	/* BREQ/BACK/QREQ/QACK from a node: its connection
					 * knows no epoch yet (or, a QACK without ACK,
					 * took the receiver's frame for another pair's
					 * and introduces its process); epoch holds its
					 * boot nonce */
	PROTO_F_RESTART = 1u << 10,	/* with WELCOME only: the sender took the FRESH
					 * frames of the receiver's process before a restart
					 * of its own: the receiver's connection, which
					 * knows no epoch, restarts too */
	PROTO_F_WELCOME = 1u << 11,	/* QACK from a node that took a FRESH frame (or
					 * answers one whose epoch is of another pair
					 * of processes): pkt_num holds the receiver's
					 * boot nonce, handler the sender's; a connection
					 * that knows no epoch takes one only from this */
	PROTO_F_REFUSED = 1u << 12,	/* BACK (with NACK), QACK: the receiving endpoint
					 * refused packet pkt_num, whose number is not
					 * taken: make it a marker, send its message again;
					 * QREQ (a marker, with ABANDONED): its message was
					 * refused and is sent again from number pkt_num +
					 * handler on */
	PROTO_F_DUP = 1u << 13,		/* QACK with ACK, from a node: the data frame it
					 * answers, packet pkt_num (which its ack covers),
					 * was a copy of one received already */
	PROTO_F_ALL = (1u << 14) - 1,
};

/*
 * What a DOWN notice (a BACK or QACK from the switch with PROTO_F_DOWN) says
 * of the node it names, in its epoch field: the NIC decides by it whether
 * its connections to the node take a new epoch (doc/protocol.md).
 */
enum proto_down_kind {
	PROTO_DOWN_DOWN = 0,		/* marked down: no CFG for --down-slots */
	PROTO_DOWN_REJOINED = 1,	/* it joined again, a new incarnation */
	PROTO_DOWN_NOT_JOINED = 2,	/* it has not joined this switch */
	PROTO_DOWN_MAX = 2,
};

/*
 * A HELLO's nonce: the high half is the joining process's boot nonce (the
 * one its FRESH frames carry), the low half tells that process's joins
 * apart. The switch names the process by it in its DOWN notices (handler).
 */
static inline uint32_t proto_hello_nonce(uint16_t boot_nonce, uint16_t join)
{
	return (uint32_t)boot_nonce << 16 | join;
}

static inline uint16_t proto_hello_boot_nonce(uint32_t hello_nonce)
{
	return (uint16_t)(hello_nonce >> 16);
}

/* GNT body flags. */
enum proto_gnt_flag {
	PROTO_GNT_F_FIFO = 1u << 0,	/* unscheduled model: request head only */
	PROTO_GNT_F_JOINED = 1u << 1,	/* answer to a HELLO */
	PROTO_GNT_F_REJOIN = 1u << 2,	/* answer to a CFG of a node this switch does
					 * not have up: grants nothing; say HELLO */
	PROTO_GNT_F_ALL = (1u << 3) - 1,
};

/*
 * Why a frame was rejected. One list gives the enum, the short name used in
 * counters and telemetry, and the sentence used in logs.
 */
#define PROTO_REASONS(X) \
	X(OK, "ok", "valid frame") \
	X(TOO_SHORT, "too_short", "frame shorter than Ethernet + segnet header + CRC") \
	X(ETHERTYPE, "ethertype", "EtherType is not 0x88B5") \
	X(VERSION, "version", "unsupported protocol version") \
	X(TYPE, "type", "unknown packet type") \
	X(FLAGS, "flags", "flag not defined or not allowed for this type") \
	X(SRC_NODE, "src_node", "source node out of range for this type") \
	X(DST_NODE, "dst_node", "destination node out of range for this type") \
	X(ENDPOINT, "endpoint", "endpoint out of range or set on a control packet") \
	X(VNET, "vnet", "virtual network or handler set on a control packet") \
	X(PKT_NUM, "pkt_num", "packet number wider than 24 bits or set without data") \
	X(ACK_FIELDS, "ack_fields", "ack base wider than 24 bits or ack fields set without the ACK flag") \
	X(PAYLOAD_LEN, "payload_len", "payload length above 2048 or not allowed for this type") \
	X(TRUNCATED, "truncated", "frame shorter than its length fields say") \
	X(TRAILING, "trailing", "bytes after the CRC beyond minimum-frame padding") \
	X(BODY, "body", "type-specific body field out of range") \
	X(RESERVED, "reserved", "reserved field, unused bits or a control packet's epoch not zero") \
	X(CRC, "crc", "CRC32C mismatch")

enum proto_reason {
#define PROTO_REASON_ENUM(id, name, text) PROTO_R_##id,
	PROTO_REASONS(PROTO_REASON_ENUM)
#undef PROTO_REASON_ENUM
	PROTO_R_COUNT
};

/* Ethernet header as on the wire. */
struct proto_eth {
	uint8_t dst[6];
	uint8_t src[6];
	uint16_t ethertype;	/* big endian */
} __attribute__((packed));
_Static_assert(sizeof(struct proto_eth) == PROTO_ETH_LEN, "eth header");

/* Common segnet header, every field big endian. */
struct proto_hdr {
	uint8_t version;
	uint8_t type;
	uint16_t flags;
	uint16_t src_node;
	uint16_t dst_node;
	uint16_t vnet;
	uint16_t src_ep;
	uint16_t dst_ep;
	uint16_t handler;
	uint32_t pkt_num;	/* 24 bits used, top byte zero */
	uint32_t ack_base;	/* 24 bits used, top byte zero */
	uint32_t ack_mask;
	uint16_t payload_len;
	uint16_t epoch;		/* connection epoch (BREQ, BACK, QREQ, QACK); else zero */
} __attribute__((packed));
_Static_assert(sizeof(struct proto_hdr) == PROTO_HDR_LEN, "segnet header");

/* Fixed part of the BREQ body; the payload follows. */
struct proto_breq_body {
	uint32_t slot;			/* slot of the grant it uses */
	uint8_t args[PROTO_ARGS_LEN];	/* active-message arguments */
} __attribute__((packed));
_Static_assert(sizeof(struct proto_breq_body) == 36, "BREQ body");

/* BACK body. */
struct proto_back_body {
	uint32_t slot;		/* slot of the BREQ being acknowledged */
} __attribute__((packed));
_Static_assert(sizeof(struct proto_back_body) == 4, "BACK body");

/* Fixed part of the CFG body; counts and enable vectors follow. */
struct proto_cfg_body {
	uint32_t slot;		/* the node's current slot */
	uint16_t n_nodes;	/* length of the vectors that follow */
	uint16_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct proto_cfg_body) == 8, "CFG body");

/* GNT body. */
struct proto_gnt_body {
	uint32_t slot;		/* slot the grant is for */
	uint16_t target;	/* granted target or PROTO_NODE_NONE */
	uint16_t node_id;	/* the receiving node's id */
	uint16_t n_nodes;	/* cluster size */
	uint16_t gflags;	/* enum proto_gnt_flag */
	uint32_t slot_ns;	/* slot length */
	uint64_t timestamp_ns;	/* switch clock when the grant left */
	uint16_t back_slots;	/* slots after transfer within which BACK comes */
	uint16_t slot_frames;	/* BREQs one grant allows (>= 1) */
} __attribute__((packed));
_Static_assert(sizeof(struct proto_gnt_body) == 28, "GNT body");

/* HELLO body. */
struct proto_hello_body {
	uint32_t nonce;		/* switchd: a repeat of the same join, or a new process; high half in DOWN notices */
	uint32_t caps;		/* reserved for capabilities, zero */
} __attribute__((packed));
_Static_assert(sizeof(struct proto_hello_body) == 8, "HELLO body");

/* Decoded CFG: vectors point into the frame. */
struct proto_cfg {
	uint32_t slot;
	uint16_t n_nodes;
	const uint8_t *counts;		/* n_nodes request counts */
	const uint8_t *bulk_en;		/* ceil(n_nodes/8) bytes, LSB first */
	const uint8_t *quick_en;	/* same layout */
};

/* Decoded GNT. */
struct proto_gnt {
	uint32_t slot;
	uint16_t target;
	uint16_t node_id;
	uint16_t n_nodes;
	uint16_t gflags;
	uint32_t slot_ns;
	uint64_t timestamp_ns;
	uint16_t back_slots;
	uint16_t slot_frames;
};

/*
 * A packet in host byte order. Decoding fills it with pointers into the
 * frame (zero copy); encoding reads it.
 */
struct proto_pkt {
	uint8_t eth_dst[6];
	uint8_t eth_src[6];
	uint8_t type;
	uint16_t flags;
	uint16_t src_node;
	uint16_t dst_node;
	uint16_t vnet;
	uint16_t src_ep;
	uint16_t dst_ep;
	uint16_t handler;
	uint32_t pkt_num;
	uint32_t ack_base;
	uint32_t ack_mask;
	uint16_t payload_len;
	uint16_t epoch;			/* epoch of the connection the frame belongs to */
	const uint8_t *args;		/* PROTO_ARGS_LEN bytes: BREQ, QREQ */
	const uint8_t *payload;		/* payload_len bytes: BREQ */
	uint32_t slot;			/* BREQ: grant used; BACK: slot acknowledged */
	union {
		struct proto_cfg cfg;	/* CFG */
		struct proto_gnt gnt;	/* GNT */
		uint32_t hello_nonce;	/* HELLO */
	};
};

/* Decoder limits; a NULL pointer means the format's own maxima. */
struct proto_limits {
	uint16_t max_nodes;	/* node ids must be below this */
	uint16_t max_endpoints;	/* endpoint ids must be below this */
	bool skip_crc;		/* trust the CRC (checked end to end elsewhere) */
};

/* Size of the type-specific body before the payload, for a given CFG size. */
size_t proto_body_len(uint8_t type, uint16_t cfg_nodes);

/* Frame length the encoder produces for pkt, padding included. */
size_t proto_frame_len(const struct proto_pkt *pkt);

/* Encode pkt into buf; returns the frame length or -EINVAL / -ENOSPC. */
int proto_encode(const struct proto_pkt *pkt, void *buf, size_t cap);

/* Validate and decode a frame; PROTO_R_OK or the first reason it fails. */
enum proto_reason proto_decode(const void *frame, size_t len,
			       const struct proto_limits *lim,
			       struct proto_pkt *out);

/* Short name of a reason (counter and telemetry key). */
const char *proto_reason_name(enum proto_reason r);

/* One-sentence description of a reason (logs). */
const char *proto_reason_text(enum proto_reason r);

/* Name of a packet type ("BREQ"), or "?" for an unknown one. */
const char *proto_type_name(uint8_t type);

/* True for the types that travel on the bulk channel. */
static inline bool proto_type_is_bulk(uint8_t type)
{
	return type == PROTO_T_BREQ;
}

/* True for the control types that win quick-channel arbitration. */
static inline bool proto_type_is_control(uint8_t type)
{
	return type == PROTO_T_BACK || type == PROTO_T_QACK ||
	       type == PROTO_T_CFG || type == PROTO_T_GNT ||
	       type == PROTO_T_HELLO;
}

/* Locally administered MAC address of a node (or the switch). */
void proto_node_mac(uint16_t node, uint8_t mac[6]);

/* Test bit i of an LSB-first bit vector. */
static inline bool proto_bit(const uint8_t *vec, unsigned int i)
{
	return (vec[i >> 3] >> (i & 7)) & 1;
}

/* Set bit i of an LSB-first bit vector. */
static inline void proto_bit_set(uint8_t *vec, unsigned int i)
{
	vec[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* Packet-number arithmetic modulo 2^24. */
static inline uint32_t proto_seq_add(uint32_t a, uint32_t b)
{
	return (a + b) & PROTO_PKT_NUM_MASK;
}

/* Signed distance b - a modulo 2^24, in [-2^23, 2^23). */
static inline int32_t proto_seq_diff(uint32_t b, uint32_t a)
{
	uint32_t d = (b - a) & PROTO_PKT_NUM_MASK;

	return d & 0x800000 ? (int32_t)d - (1 << PROTO_PKT_NUM_BITS) : (int32_t)d;
}

/* True when a comes before b modulo 2^24. */
static inline bool proto_seq_lt(uint32_t a, uint32_t b)
{
	return proto_seq_diff(b, a) > 0;
}

/* True when an ack of ack_base and selective-ack mask ack_mask covers packet n. */
static inline bool proto_ack_covers(uint32_t n, uint32_t ack_base, uint32_t ack_mask)
{
	int32_t d = proto_seq_diff(n, ack_base);

	return d <= 0 || (d <= PROTO_SACK_BITS && ((ack_mask >> (d - 1)) & 1));
}

/* The highest packet number an ack of ack_base and ack_mask covers. */
static inline uint32_t proto_ack_top(uint32_t ack_base, uint32_t ack_mask)
{
	return ack_mask ? proto_seq_add(ack_base, 32u - (uint32_t)__builtin_clz(ack_mask)) :
			  ack_base;
}

#endif
