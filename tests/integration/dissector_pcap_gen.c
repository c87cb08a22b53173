/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes a pcap with one frame of each segnet type (plus a bad CRC and
 * trailing bytes), all with distinctive field values, and prints what the
 * Wireshark dissector must show for each frame, one line per field:
 *
 *   FRAME <tab> FIELD <tab> KIND <tab> VALUE
 *
 * KIND is u (unsigned, decimal; a list is comma separated), b (boolean
 * 0/1) or x (bytes, lowercase hex). test_dissector.py compares these with
 * tshark's output. The values come from the encoder's input, not from the
 * dissector, so a wrong dissector fails the test.
 */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "proto/proto.h"

/* Largest frame written here. */
enum { GEN_MAX_FRAME = 2200 };

/* Flag bits and their dissector field names. */
static const struct {
	uint16_t bit;		/* enum proto_flag */
	const char *field;	/* dissector field */
} gen_flags[] = {
	{ PROTO_F_DATA, "segnet.flags.data" },
	{ PROTO_F_ACK, "segnet.flags.ack" },
	{ PROTO_F_LAST, "segnet.flags.last" },
	{ PROTO_F_RETX, "segnet.flags.retx" },
	{ PROTO_F_FORCE_ACK, "segnet.flags.force_ack" },
	{ PROTO_F_NACK, "segnet.flags.nack" },
	{ PROTO_F_DOWN, "segnet.flags.down" },
	{ PROTO_F_ABANDONED, "segnet.flags.abandoned" },
	{ PROTO_F_NO_VNET, "segnet.flags.no_vnet" },
	{ PROTO_F_FRESH, "segnet.flags.fresh" },
	{ PROTO_F_RESTART, "segnet.flags.restart" },
	{ PROTO_F_WELCOME, "segnet.flags.welcome" },
	{ PROTO_F_REFUSED, "segnet.flags.refused" },
	{ PROTO_F_DUP, "segnet.flags.dup" },
};

/* Print an unsigned expected value. */
static void gen_u(int frame, const char *field, uint64_t v)
{
	printf("%d\t%s\tu\t%" PRIu64 "\n", frame, field, v);
}

/* Print a boolean expected value. */
static void gen_b(int frame, const char *field, bool v)
{
	printf("%d\t%s\tb\t%d\n", frame, field, v ? 1 : 0);
}

/* Print an expected byte string as hex. */
static void gen_x(int frame, const char *field, const uint8_t *p, size_t n)
{
	printf("%d\t%s\tx\t", frame, field);
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

/* Print the common-header fields of pkt as the dissector must show them. */
static void gen_hdr(int n, const struct proto_pkt *p)
{
	gen_u(n, "segnet.version", PROTO_VERSION);
	gen_u(n, "segnet.type", p->type);
	gen_u(n, "segnet.flags", p->flags);
	for (size_t i = 0; i < sizeof(gen_flags) / sizeof(gen_flags[0]); i++)
		gen_b(n, gen_flags[i].field, p->flags & gen_flags[i].bit);
	gen_u(n, "segnet.flags.undefined", 0);
	gen_u(n, "segnet.src_node", p->src_node);
	gen_u(n, "segnet.dst_node", p->dst_node);
	gen_u(n, "segnet.vnet", p->vnet);
	gen_u(n, "segnet.src_ep", p->src_ep);
	gen_u(n, "segnet.dst_ep", p->dst_ep);
	gen_u(n, "segnet.handler", p->handler);
	gen_u(n, "segnet.pkt_num", p->pkt_num);
	if (p->flags & PROTO_F_WELCOME) {
		gen_u(n, "segnet.welcomed_nonce", p->pkt_num);
		gen_u(n, "segnet.sender_nonce", p->handler);
	}
	if (p->flags & PROTO_F_DOWN)
		gen_u(n, "segnet.down_nonce", p->handler);
	if (p->type == PROTO_T_QREQ && (p->flags & PROTO_F_REFUSED))
		gen_u(n, "segnet.resume", proto_seq_add(p->pkt_num, p->handler));
	gen_u(n, "segnet.ack_base", p->ack_base);
	gen_u(n, "segnet.ack_mask", p->ack_mask);
	gen_u(n, "segnet.payload_len", p->type == PROTO_T_BREQ ? p->payload_len : 0);
	gen_u(n, p->flags & PROTO_F_FRESH ? "segnet.nonce" :
		 p->flags & PROTO_F_DOWN ? "segnet.down_kind" : "segnet.epoch", p->epoch);
}

/* Print the nodes whose bit is set in an n-node vector, comma separated. */
static void gen_nodes(int frame, const char *field, const uint8_t *vec, uint16_t n)
{
	const char *sep = "";

	printf("%d\t%s\tu\t", frame, field);
	for (unsigned int i = 0; i < n; i++) {
		if (proto_bit(vec, i)) {
			printf("%s%u", sep, i);
			sep = ",";
		}
	}
	printf("\n");
}

/* Print the CFG body fields. */
static void gen_cfg(int n, const struct proto_cfg *c)
{
	size_t vl = ((size_t)c->n_nodes + 7) / 8;
	const char *sep = "";

	gen_u(n, "segnet.cfg.slot", c->slot);
	gen_u(n, "segnet.cfg.n_nodes", c->n_nodes);
	gen_u(n, "segnet.cfg.reserved", 0);
	gen_x(n, "segnet.cfg.counts", c->counts, c->n_nodes);
	printf("%d\tsegnet.cfg.count\tu\t", n);
	for (unsigned int i = 0; i < c->n_nodes; i++) {
		printf("%s%u", sep, c->counts[i]);
		sep = ",";
	}
	printf("\n");
	gen_x(n, "segnet.cfg.bulk_en", c->bulk_en, vl);
	gen_nodes(n, "segnet.cfg.bulk_node", c->bulk_en, c->n_nodes);
	gen_x(n, "segnet.cfg.quick_en", c->quick_en, vl);
	gen_nodes(n, "segnet.cfg.quick_node", c->quick_en, c->n_nodes);
}

/* Print the GNT body fields. */
static void gen_gnt(int n, const struct proto_gnt *g)
{
	gen_u(n, "segnet.gnt.slot", g->slot);
	gen_u(n, "segnet.gnt.target", g->target);
	gen_u(n, "segnet.gnt.node_id", g->node_id);
	gen_u(n, "segnet.gnt.n_nodes", g->n_nodes);
	gen_u(n, "segnet.gnt.gflags", g->gflags);
	gen_b(n, "segnet.gnt.gflags.fifo", g->gflags & PROTO_GNT_F_FIFO);
	gen_b(n, "segnet.gnt.gflags.joined", g->gflags & PROTO_GNT_F_JOINED);
	gen_b(n, "segnet.gnt.gflags.rejoin", g->gflags & PROTO_GNT_F_REJOIN);
	gen_u(n, "segnet.gnt.gflags.undefined", 0);
	gen_u(n, "segnet.gnt.slot_ns", g->slot_ns);
	gen_u(n, "segnet.gnt.timestamp_ns", g->timestamp_ns);
	gen_u(n, "segnet.gnt.back_slots", g->back_slots);
	gen_u(n, "segnet.gnt.slot_frames", g->slot_frames);
}

/* Print the type-specific fields of pkt. */
static void gen_body(int n, const struct proto_pkt *p)
{
	switch (p->type) {
	case PROTO_T_BREQ:
		gen_u(n, "segnet.breq.slot", p->slot);
		gen_x(n, "segnet.payload", p->payload, p->payload_len);
		gen_x(n, "segnet.args", p->args, PROTO_ARGS_LEN);
		break;
	case PROTO_T_QREQ:
		gen_x(n, "segnet.args", p->args, PROTO_ARGS_LEN);
		break;
	case PROTO_T_BACK:
		gen_u(n, "segnet.back.slot", p->slot);
		break;
	case PROTO_T_CFG:
		gen_cfg(n, &p->cfg);
		break;
	case PROTO_T_GNT:
		gen_gnt(n, &p->gnt);
		break;
	case PROTO_T_HELLO:
		gen_u(n, "segnet.hello.nonce", p->hello_nonce);
		gen_u(n, "segnet.hello.caps", 0);
		break;
	}
}

/* Frame length before padding, CRC included. */
static size_t gen_raw_len(const struct proto_pkt *p)
{
	uint16_t n = p->type == PROTO_T_CFG ? p->cfg.n_nodes : 0;
	uint16_t pl = p->type == PROTO_T_BREQ ? p->payload_len : 0;

	return PROTO_ETH_LEN + PROTO_HDR_LEN + proto_body_len(p->type, n) + pl +
	       PROTO_CRC_LEN;
}

/* Read 4 bytes big endian. */
static uint32_t gen_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Output state: the pcap dumper and the next frame number. */
struct gen {
	pcap_dumper_t *dump;	/* the output file */
	int frame;		/* frames written so far (tshark numbers from 1) */
};

/*
 * Encode pkt, apply a CRC corruption (xor) and extra trailing bytes, write
 * the frame and print every field the dissector must show. Returns 0 or
 * -errno.
 */
static int gen_frame(struct gen *g, struct proto_pkt *p, uint32_t crc_xor,
		     size_t extra)
{
	static uint8_t buf[GEN_MAX_FRAME];
	struct pcap_pkthdr ph = { 0 };
	size_t raw = gen_raw_len(p), crc_off = raw - PROTO_CRC_LEN;
	uint32_t crc;
	int len;

	proto_node_mac(p->dst_node, p->eth_dst);
	proto_node_mac(p->src_node, p->eth_src);
	memset(buf, 0, sizeof(buf));
	len = proto_encode(p, buf, sizeof(buf) - extra);
	if (len < 0)
		return len;
	crc = gen_be32(buf + crc_off);
	buf[crc_off] ^= (uint8_t)(crc_xor >> 24);
	buf[crc_off + 1] ^= (uint8_t)(crc_xor >> 16);
	buf[crc_off + 2] ^= (uint8_t)(crc_xor >> 8);
	buf[crc_off + 3] ^= (uint8_t)crc_xor;
	len += (int)extra;
	ph.ts.tv_sec = 1700000000 + g->frame;
	ph.caplen = ph.len = (uint32_t)len;
	pcap_dump((u_char *)g->dump, &ph, buf);

	g->frame++;
	gen_hdr(g->frame, p);
	gen_body(g->frame, p);
	gen_u(g->frame, "segnet.crc", crc ^ crc_xor);
	gen_u(g->frame, "segnet.crc.calculated", crc);
	gen_u(g->frame, "segnet.crc.status", crc_xor ? 0 : 1);
	if (raw < (size_t)len && (size_t)len <= PROTO_MIN_FRAME)
		gen_x(g->frame, "segnet.padding", buf + raw, (size_t)len - raw);
	if ((size_t)len > PROTO_MIN_FRAME && raw < (size_t)len)
		gen_x(g->frame, "segnet.trailing", buf + raw, (size_t)len - raw);
	return 0;
}

/* Argument and payload patterns. */
static uint8_t gen_args[PROTO_ARGS_LEN], gen_payload[PROTO_MAX_PAYLOAD];

/* CFG vectors: 11 nodes; bulk to 0, 5, 10; quick to 1, 2, 9. */
static const uint8_t gen_counts[11] = { 0, 1, 2, 3, 250, 0, 0, 7, 8, 9, 255 };
static const uint8_t gen_bulk[2] = { 0x21, 0x04 }, gen_quick[2] = { 0x06, 0x02 };

/* Write every frame of the test. */
static int gen_all(struct gen *g)
{
	struct proto_pkt pkts[] = {
		{ .type = PROTO_T_BREQ, .flags = PROTO_F_DATA | PROTO_F_ACK |
		  PROTO_F_LAST | PROTO_F_RETX, .src_node = 3, .dst_node = 1021,
		  .vnet = 0x0BEE, .src_ep = 17, .dst_ep = 4001, .handler = 0x0ABC,
		  .pkt_num = 0xABCDEF, .ack_base = 0x123456, .ack_mask = 0x89ABCDEF,
		  .payload_len = 100, .args = gen_args, .payload = gen_payload,
		  .slot = 0xFEDCBA98, .epoch = 0x8001 },
		{ .type = PROTO_T_BACK, .flags = PROTO_F_ACK | PROTO_F_NACK,
		  .src_node = 1021, .dst_node = 3, .vnet = 0x0BEE, .src_ep = 4001,
		  .dst_ep = 17, .ack_base = 0xABCDEF, .ack_mask = 1,
		  .slot = 0xDEADBEEF, .epoch = 0xFFFF },
		{ .type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_FORCE_ACK,
		  .src_node = 0, .dst_node = 1023, .vnet = 65535, .src_ep = 4095,
		  .dst_ep = 0, .handler = 0x7777, .pkt_num = 0, .args = gen_args },
		{ .type = PROTO_T_QACK, .flags = PROTO_F_ACK, .src_node = 1023,
		  .dst_node = 0, .vnet = 1, .src_ep = 1, .dst_ep = 2,
		  .ack_base = 0xFFFFFF, .ack_mask = 0xFFFFFFFF, .epoch = 1 },
		{ .type = PROTO_T_CFG, .src_node = 9, .dst_node = PROTO_NODE_SWITCH,
		  .cfg = { .slot = 0x01020304, .n_nodes = 11, .counts = gen_counts,
		  .bulk_en = gen_bulk, .quick_en = gen_quick } },
		{ .type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH, .dst_node = 3,
		  .gnt = { .slot = 0x0BADF00D, .target = PROTO_NODE_NONE,
		  .node_id = 3, .n_nodes = 12, .gflags = PROTO_GNT_F_JOINED,
		  .slot_ns = 1638, .timestamp_ns = 0x0123456789ABCDEFull,
		  .back_slots = 2, .slot_frames = 1 } },
		/* the answer to a CFG of a node the switch does not have up */
		{ .type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH, .dst_node = 2,
		  .gnt = { .slot = 77, .target = PROTO_NODE_NONE, .node_id = 2, .n_nodes = 4,
		  .gflags = PROTO_GNT_F_REJOIN, .slot_ns = 1638, .back_slots = 2,
		  .slot_frames = 1 } },
		{ .type = PROTO_T_GNT, .src_node = PROTO_NODE_SWITCH, .dst_node = 11,
		  .gnt = { .slot = 4000000000u, .target = 7, .node_id = 11,
		  .n_nodes = 12, .gflags = PROTO_GNT_F_FIFO, .slot_ns = 0xFFFFFFFF,
		  .timestamp_ns = UINT64_MAX, .back_slots = 65535,
		  .slot_frames = 65535 } },
		{ .type = PROTO_T_HELLO, .src_node = PROTO_NODE_NONE,
		  .dst_node = PROTO_NODE_SWITCH, .hello_nonce = 0xC0FFEE12 },
		/* the switch's DOWN notices: node 1021 is down, rejoined, never joined */
		{ .type = PROTO_T_BACK, .flags = PROTO_F_DOWN, .src_node = 1021,
		  .dst_node = 3, .handler = 0xBEEF, .slot = 4000000001u },
		{ .type = PROTO_T_QACK, .flags = PROTO_F_DOWN, .src_node = 1021,
		  .dst_node = 3, .vnet = 0x0BEE, .handler = 0xC0DE, .epoch = PROTO_DOWN_REJOINED },
		{ .type = PROTO_T_BACK, .flags = PROTO_F_DOWN, .src_node = 1021,
		  .dst_node = 3, .epoch = PROTO_DOWN_NOT_JOINED },
		/* node 5 does not serve vnet 9 (it answers a data frame of epoch 3) */
		{ .type = PROTO_T_QACK, .flags = PROTO_F_NO_VNET, .src_node = 5,
		  .dst_node = 6, .vnet = 9, .epoch = 3 },
		{ .type = PROTO_T_BREQ, .flags = PROTO_F_DATA, .src_node = 1,
		  .dst_node = 2, .args = gen_args, .payload = gen_payload,
		  .payload_len = PROTO_MAX_PAYLOAD, .slot = 0 },
		/* the answer to a FRESH frame taken: the epoch, the two boot nonces */
		{ .type = PROTO_T_QACK, .flags = PROTO_F_ACK | PROTO_F_WELCOME, .src_node = 2,
		  .dst_node = 4, .vnet = 1, .ack_base = 1, .epoch = 7, .pkt_num = 0xB007,
		  .handler = 0x2002 },
		/* ... to one of a nonce retired: it restarts */
		{ .type = PROTO_T_QACK, .flags = PROTO_F_ACK | PROTO_F_WELCOME | PROTO_F_RESTART,
		  .src_node = 2, .dst_node = 4, .vnet = 1, .ack_base = 0, .epoch = 8,
		  .pkt_num = 0xB007, .handler = 0x2002 },
		/* endpoint 6 refused packet 0xFFFFFF (quick) and packet 9 (bulk, slot 40) */
		{ .type = PROTO_T_QACK, .flags = PROTO_F_ACK | PROTO_F_REFUSED, .src_node = 2,
		  .dst_node = 4, .vnet = 1, .src_ep = 6, .dst_ep = 3, .pkt_num = 0xFFFFFF,
		  .ack_base = 0xFFFFFE, .epoch = 7 },
		{ .type = PROTO_T_BACK, .flags = PROTO_F_ACK | PROTO_F_NACK | PROTO_F_REFUSED,
		  .src_node = 2, .dst_node = 4, .vnet = 1, .pkt_num = 9, .ack_base = 8,
		  .slot = 40, .epoch = 7 },
		/* ... the marker of 0xFFFFFF: its messages come again from 2 (wrapped) */
		{ .type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_LAST | PROTO_F_ABANDONED |
		  PROTO_F_REFUSED, .src_node = 4, .dst_node = 2, .vnet = 1, .dst_ep = 6,
		  .handler = 3, .pkt_num = 0xFFFFFF, .args = gen_args, .epoch = 7 },
		/* the ack of a copy of packet 0xFFFFFE, which its ack covers */
		{ .type = PROTO_T_QACK, .flags = PROTO_F_ACK | PROTO_F_DUP, .src_node = 2,
		  .dst_node = 4, .vnet = 1, .pkt_num = 0xFFFFFE, .ack_base = 0xFFFFFD,
		  .ack_mask = 0x1, .epoch = 7 },
		/* a NIC just started: its connection knows no epoch (boot nonce) */
		{ .type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_LAST | PROTO_F_FRESH,
		  .src_node = 4, .dst_node = 2, .vnet = 1, .handler = 3, .pkt_num = 1,
		  .args = gen_args, .epoch = 0xB007 },
	};
	size_t n = sizeof(pkts) / sizeof(pkts[0]);
	int rc = 0;

	for (int i = 0; i < PROTO_ARGS_LEN; i++)
		gen_args[i] = (uint8_t)(0x10 + i);
	for (int i = 0; i < PROTO_MAX_PAYLOAD; i++)
		gen_payload[i] = (uint8_t)(i * 7 + 3);
	for (size_t i = 0; i < n && !rc; i++)
		rc = gen_frame(g, &pkts[i], 0, 0);
	/* a QREQ with a bad CRC, and a QACK that kept 4 bytes of FCS */
	if (!rc)
		rc = gen_frame(g, &pkts[2], 0x00FF0001, 0);
	if (!rc)
		rc = gen_frame(g, &pkts[3], 0, 4);
	return rc;
}

/* Write the pcap named on the command line and print the expectations. */
int main(int argc, char **argv)
{
	bool help = argc == 2 && !strcmp(argv[1], "--help");
	struct gen g = { 0 };
	pcap_t *p;
	int rc;

	/* --help asked for the usage: stdout; a wrong command line gets it on stderr. */
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(help ? stdout : stderr, "usage: %s OUT.pcap\n"
			"writes one segnet frame per type to OUT.pcap and prints the\n"
			"fields the dissector must show (frame, field, kind, value)\n",
			argv[0]);
		return help ? 0 : 2;
	}
	p = pcap_open_dead(DLT_EN10MB, 65535);
	if (!p) {
		fprintf(stderr, "pcap_open_dead failed\n");
		return 1;
	}
	g.dump = pcap_dump_open(p, argv[1]);
	if (!g.dump) {
		fprintf(stderr, "%s: %s\n", argv[1], pcap_geterr(p));
		pcap_close(p);
		return 1;
	}
	rc = gen_all(&g);
	pcap_dump_close(g.dump);
	pcap_close(p);
	if (rc) {
		fprintf(stderr, "encoding failed: %s\n", strerror(-rc));
		return 1;
	}
	return 0;
}
