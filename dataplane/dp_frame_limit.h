/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How long a frame a port sends may be. A port's limit is its MTU plus the
 * Ethernet header, and VLAN tags may add to it: how many, and which, is the
 * device's (af_packet's kernel takes 4 more bytes for one 802.1Q tag
 * only: doc/replay.md says what was measured). No DPDK: tests check it on
 * made-up frames.
 */
#ifndef SEGNET_DP_FRAME_LIMIT_H
#define SEGNET_DP_FRAME_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	/* Ethernet header: destination, source, EtherType. */
	DP_FRAME_ETH_HDR = 14,
	/* One VLAN tag: TPID and TCI. */
	DP_FRAME_VLAN_TAG = 4,
	/* dp_frame_limit.tags: every tag the frame has counts. */
	DP_FRAME_TAGS_ANY = UINT8_MAX,
};

/* A port's frame length limit (zeroed: none). */
struct dp_frame_limit {
	/* longest untagged frame, Ethernet header included; 0: no limit */
	uint32_t untagged;
	/* VLAN tags that add 4 bytes each to it, outer first (DP_FRAME_TAGS_ANY: all) */
	uint8_t tags;
	/* only 802.1Q tags (TPID 0x8100) add; otherwise 0x88a8 and 0x9100 too */
	bool ctag_only;
	/* longest frame whatever its tags (a driver's buffer); 0: none */
	uint32_t cap;
};

/*
 * VLAN tags at the front of frame (len bytes), outer first, up to max:
 * consecutive TPIDs 0x8100, 0x88a8 or 0x9100 (only 0x8100 when ctag_only),
 * each followed by its TCI within len.
 */
unsigned int dp_frame_vlan_tags(const uint8_t *frame, uint32_t len, bool ctag_only,
				unsigned int max);

/* Longest frame like frame (its tags) that a port with limit l sends; UINT32_MAX: any. */
uint32_t dp_frame_limit_for(const struct dp_frame_limit *l, const uint8_t *frame,
			    uint32_t len);

/* True when a port with limit l sends frame (len bytes). */
static inline bool dp_frame_fits(const struct dp_frame_limit *l, const uint8_t *frame,
				 uint32_t len)
{
	return len <= dp_frame_limit_for(l, frame, len);
}

/* The rule of af_packet's kernel: one 802.1Q tag adds 4 bytes, no other does. */
extern const struct dp_frame_limit dp_frame_rule_one_ctag;

/* l capped at cap bytes (an mbuf's room): the lower of the two caps. */
struct dp_frame_limit dp_frame_limit_capped(struct dp_frame_limit l, uint32_t cap);

/*
 * MTU a frame needs on a port whose VLAN tags add to its limit as rule's
 * do (tags, ctag_only; NULL: every tag): its length less the Ethernet
 * header and 4 bytes per tag that adds (0 for a frame shorter than that).
 */
uint32_t dp_frame_mtu_needed(const uint8_t *frame, uint32_t len,
			     const struct dp_frame_limit *rule);

/*
 * Say l in words into buf: "2214 bytes", "2214 bytes (4 more with an
 * 802.1Q tag)", "2214 bytes (4 more per VLAN tag, 2272 at most)", "no
 * limit". Returns buf.
 */
const char *dp_frame_limit_describe(const struct dp_frame_limit *l, char *buf, size_t len);

#endif
