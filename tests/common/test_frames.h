/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fixed sequence of valid segnet frames for port tests: a BREQ of every
 * payload length 0 .. 2048 (frames of 86 .. 2134 bytes), CFGs of 1 .. 24
 * nodes (61 .. 88 bytes), then one BACK, QACK, HELLO (60 bytes), GNT (78)
 * and QREQ (82): every length a segnet frame can have up to the largest
 * (no frame is 69, 70, 79 or 80 bytes long). Frame i from node `from`
 * differs from frame i from the other node, so a frame that went the wrong
 * way is noticed.
 */
#ifndef SEGNET_TEST_FRAMES_H
#define SEGNET_TEST_FRAMES_H

#include <stdint.h>
#include <string.h>

#include "proto/proto.h"

enum {
	/* BREQs, one per payload length. */
	TEST_FRAMES_BREQ = PROTO_MAX_PAYLOAD + 1,
	/* CFGs, one per node count 1 .. TEST_FRAMES_CFG. */
	TEST_FRAMES_CFG = 24,
	/* Frames in the sequence. */
	TEST_FRAMES_N = TEST_FRAMES_BREQ + TEST_FRAMES_CFG + 5,
	/* Room for any of them. */
	TEST_FRAMES_MAX_LEN = 2200,
};

/* Bytes of the variable parts, derived from the index and the sender. */
static inline uint8_t test_frames_byte(unsigned int i, uint16_t from, unsigned int j)
{
	return (uint8_t)(j * 7 + i * 3 + from * 101 + 1);
}

/* The control frame k (0 .. 4) after the BREQs and CFGs. */
static inline void test_frames_control(struct proto_pkt *p, unsigned int k,
				       uint16_t from, uint16_t to)
{
	switch (k) {
	case 0:
		p->type = PROTO_T_BACK;
		p->slot = 77;
		break;
	case 1:
		p->type = PROTO_T_QACK;
		p->flags = PROTO_F_ACK;
		p->ack_base = 1000 + from;
		p->ack_mask = 0x5;
		break;
	case 2:
		p->type = PROTO_T_HELLO;
		p->dst_node = PROTO_NODE_SWITCH;
		p->hello_nonce = 0xC0FFEE00u + from;
		break;
	case 3:
		p->type = PROTO_T_GNT;
		p->src_node = PROTO_NODE_SWITCH;
		p->gnt = (struct proto_gnt) { .slot = 9, .target = from,
			.node_id = to, .n_nodes = 2, .slot_ns = 2000,
			.timestamp_ns = 123456789, .back_slots = 2,
			.slot_frames = 1 };
		break;
	default:
		p->type = PROTO_T_QREQ;
		p->flags = PROTO_F_DATA | PROTO_F_LAST;
		p->handler = 5;
		p->pkt_num = 42;
		break;
	}
}

/*
 * Encode frame i (0 .. TEST_FRAMES_N - 1) from node `from` to node `to`
 * (both 0 or 1) into buf; returns its length or -errno.
 */
static inline int test_frames_encode(unsigned int i, uint16_t from, uint16_t to,
				     uint8_t *buf, size_t cap)
{
	uint8_t args[PROTO_ARGS_LEN], data[PROTO_MAX_PAYLOAD];
	uint8_t counts[TEST_FRAMES_CFG], bulk[4] = { 0 }, quick[4] = { 0 };
	struct proto_pkt p;

	memset(&p, 0, sizeof(p));
	for (unsigned int j = 0; j < sizeof(args); j++)
		args[j] = test_frames_byte(i, from, j + 5000);
	proto_node_mac(to, p.eth_dst);
	proto_node_mac(from, p.eth_src);
	p.src_node = from;
	p.dst_node = to;
	p.args = args;
	if (i < TEST_FRAMES_BREQ) {
		for (unsigned int j = 0; j < i; j++)
			data[j] = test_frames_byte(i, from, j);
		p.type = PROTO_T_BREQ;
		p.flags = PROTO_F_DATA | PROTO_F_LAST;
		p.pkt_num = i;
		p.slot = i;
		p.payload_len = (uint16_t)i;
		p.payload = data;
	} else if (i < TEST_FRAMES_BREQ + TEST_FRAMES_CFG) {
		uint16_t n = (uint16_t)(i - TEST_FRAMES_BREQ + 1);

		for (unsigned int j = 0; j < n; j++)
			counts[j] = test_frames_byte(i, from, j);
		proto_bit_set(bulk, 0);
		proto_bit_set(quick, n - 1);
		p.type = PROTO_T_CFG;
		p.dst_node = PROTO_NODE_SWITCH;
		p.cfg = (struct proto_cfg) { .slot = i, .n_nodes = n,
			.counts = counts, .bulk_en = bulk, .quick_en = quick };
	} else {
		test_frames_control(&p, i - TEST_FRAMES_BREQ - TEST_FRAMES_CFG,
				    from, to);
	}
	return proto_encode(&p, buf, cap);
}

#endif
