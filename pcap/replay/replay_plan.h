/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plan of messages mode: what each record of a trace becomes before
 * anything is sent. A frame is read for its addresses (MAC, IPv4, IPv6)
 * and its content (the UDP or TCP payload, else the whole frame); --map
 * turns its source and destination into node indices; --quick-max and
 * --channel pick the channel; the message header carries an id that
 * matches deliveries to sends. Pure logic: no DPDK, no libsegnet, no
 * clock, so the unit tests check every rule. doc/replay.md#messages-mode
 * documents the rules.
 */
#ifndef SEGNET_PCAP_REPLAY_PLAN_H
#define SEGNET_PCAP_REPLAY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcap/reader.h"

/* Sizes of a message (libsegnet's, checked against segnet.h where both meet). */
enum {
	REPLAY_ARGS_LEN = 32,		/* bytes of active-message arguments */
	REPLAY_MSG_HDR = 8,		/* the message header, first in the arguments */
	REPLAY_QUICK_CAP = REPLAY_ARGS_LEN - REPLAY_MSG_HDR,	/* content of a quick message */
	REPLAY_BULK_CAP = 2048,		/* content of a bulk message (its payload) */
	REPLAY_NODES_MAX = 64,		/* nodes (--nicd) at most */
};

/* Where an address comes from. */
enum replay_addr_kind {
	REPLAY_ADDR_NONE,	/* the frame has no such address */
	REPLAY_ADDR_MAC,	/* Ethernet, 6 bytes */
	REPLAY_ADDR_IP4,	/* IPv4, 4 bytes */
	REPLAY_ADDR_IP6,	/* IPv6, 16 bytes */
};

/* One address of a frame's source or destination. */
struct replay_addr {
	/* enum replay_addr_kind */
	uint8_t kind;
	/* bytes used in b */
	uint8_t len;
	/* the address, network order */
	uint8_t b[16];
};

/* What a message carries of its frame (the header's content byte). */
enum replay_content {
	REPLAY_CONTENT_UDP = 0,		/* the UDP payload */
	REPLAY_CONTENT_TCP = 1,		/* the TCP payload */
	REPLAY_CONTENT_FRAME = 2,	/* the whole captured frame */
};

/* A frame as messages mode reads it. */
struct replay_pkt {
	/* Ethernet source and destination (NONE below 14 bytes) */
	struct replay_addr mac_src, mac_dst;
	/* IPv4 or IPv6 source and destination (NONE when not IP) */
	struct replay_addr ip_src, ip_dst;
	/* enum replay_content */
	uint8_t content;
	/* offset of the content in the frame */
	uint32_t off;
	/* content bytes present in the capture */
	uint32_t len;
};

/*
 * Read frame (caplen bytes): addresses after up to two VLAN tags, and the
 * content: the UDP or TCP payload of an unfragmented IPv4 packet or an
 * IPv6 packet whose next header is UDP or TCP, bounded by the IP and UDP
 * lengths (never the Ethernet padding) and by the capture; any other
 * frame is carried whole.
 */
void replay_pkt_parse(const uint8_t *frame, uint32_t caplen, struct replay_pkt *p);

/* How endpoints map to nodes (--map). */
enum replay_map_kind {
	REPLAY_MAP_IP,		/* IP addresses, numbered in order of first appearance */
	REPLAY_MAP_MAC,		/* MAC addresses, likewise */
	REPLAY_MAP_HASH,	/* FNV-1a of the IP address (else the MAC), modulo nodes */
	REPLAY_MAP_FILE,	/* ADDRESS NODE lines of a file */
};

/* Which channel a message takes (--channel). */
enum replay_chan_choice {
	REPLAY_CHAN_AUTO,	/* quick when the content fits --quick-max, else bulk */
	REPLAY_CHAN_QUICK,	/* every message quick; longer content is cut */
	REPLAY_CHAN_BULK,	/* every message bulk */
};

/* The channels, as libsegnet numbers them (enum segnet_chan). */
enum replay_chan {
	REPLAY_BULK = 0,
	REPLAY_QUICK = 1,
	REPLAY_NCHAN = 2,
};

/* A --map: its kind, and for a file its addresses; opaque. */
struct replay_map;

/*
 * Parse --map SPEC: hash, mac, ip, or the name of a file of
 * "ADDRESS NODE" lines (MAC aa:bb:cc:dd:ee:ff, IPv4 or IPv6 addresses;
 * NODE an index, 0 for the first node; '#' starts a comment). NULL with
 * errno and a message naming the line in err.
 */
struct replay_map *replay_map_parse(const char *spec, char *err, size_t errlen);

/* Kind of a map. */
enum replay_map_kind replay_map_kind(const struct replay_map *m);

/* Largest node index a map file names (-1: none, or not a file). */
int replay_map_max_node(const struct replay_map *m);

/* Free a map; NULL is allowed. */
void replay_map_free(struct replay_map *m);

/* Name of a channel ("quick", "bulk"). */
const char *replay_chan_name(unsigned int chan);

/* What one record becomes. */
struct replay_plan_rec {
	/* index of the record in the trace as loaded */
	uint64_t rec;
	/* node index of the source and of the destination */
	uint16_t src, dst;
	/* enum replay_chan */
	uint8_t chan;
	/* enum replay_content */
	uint8_t content;
	/* content was cut to fit the channel */
	bool cut;
	/* offset of the content in the record's bytes */
	uint32_t off;
	/* bytes carried (after any cut) */
	uint32_t len;
};

/* How to make a plan. */
struct replay_plan_conf {
	/* the map */
	const struct replay_map *map;
	/* nodes (2 .. REPLAY_NODES_MAX) */
	unsigned int nodes;
	/* enum replay_chan_choice */
	enum replay_chan_choice channel;
	/* auto: content of at most this many bytes goes quick (<= REPLAY_QUICK_CAP) */
	uint32_t quick_max;
};

/* A plan: one entry per record that becomes a message. */
struct replay_plan {
	/* the entries, in trace order */
	struct replay_plan_rec *rec;
	/* how many */
	uint64_t n;
	/* records of the trace */
	uint64_t records;
	/* records skipped: source and destination on the same node */
	uint64_t same_node;
	/* records skipped: an address the map does not know (or no address) */
	uint64_t unmapped;
	/* planned messages per channel */
	uint64_t per_chan[REPLAY_NCHAN];
	/* planned messages whose content is cut to fit their channel */
	uint64_t cut;
	/* distinct addresses numbered (ip and mac maps) */
	uint64_t addresses;
};

/*
 * Plan every record of t. NULL with errno and a message: ENOMEM, EINVAL
 * (a map file naming a node beyond c->nodes).
 */
struct replay_plan *replay_plan_build(const struct trace *t, const struct replay_plan_conf *c,
				      char *err, size_t errlen);

/* Free a plan; NULL is allowed. */
void replay_plan_free(struct replay_plan *p);

/*
 * Keep only the records of plan p in t, in order (t->n becomes p->n), so
 * that record k of t is entry k of p.
 */
void replay_plan_compact(const struct replay_plan *p, struct trace *t);

/* The message header (first REPLAY_MSG_HDR bytes of the arguments). */
struct replay_msg_hdr {
	/* message id: low 32 bits of the message's number in the replay */
	uint32_t id;
	/* content bytes carried */
	uint16_t len;
	/* REPLAY_MSG_CUT when the content was cut to fit */
	uint8_t flags;
	/* enum replay_content */
	uint8_t content;
};

/* Header flags. */
enum { REPLAY_MSG_CUT = 1u << 0 };

/* Write h into the first REPLAY_MSG_HDR bytes of args, little endian. */
void replay_msg_hdr_put(uint8_t *args, const struct replay_msg_hdr *h);

/* Read the header from args. */
void replay_msg_hdr_get(const uint8_t *args, struct replay_msg_hdr *h);

#endif /* SEGNET_PCAP_REPLAY_PLAN_H */
