/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's frame limit with VLAN tags (dataplane/dp_frame_limit.h): which
 * tags count, how much they add, for a port that counts every tag (an MTU
 * device) and for af_packet's kernel (4 bytes for an outer 802.1Q tag
 * only, within its slots), the MTU a frame needs, and the limit in words.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "dataplane/dp_frame_limit.h"

/* A frame of len bytes (at most 64) starting with the given TPIDs (0-ended). */
static const uint8_t *tagged(uint32_t len, const uint16_t *tpids)
{
	static uint8_t f[64];
	unsigned int off = 12;

	memset(f, 0xab, sizeof(f));
	for (; *tpids && off + 4 <= sizeof(f); tpids++, off += 4) {
		f[off] = (uint8_t)(*tpids >> 8);
		f[off + 1] = (uint8_t)*tpids;
		f[off + 2] = 0;
		f[off + 3] = 100;
	}
	if (off + 2 <= len) {
		f[off] = 0x88;
		f[off + 1] = 0xb5;
	}
	return f;
}

/* TPID lists of the tests. */
static const uint16_t none[] = { 0 }, ctag[] = { 0x8100, 0 }, stag[] = { 0x88a8, 0 },
		      old[] = { 0x9100, 0 }, qinq[] = { 0x88a8, 0x8100, 0 },
		      cc[] = { 0x8100, 0x8100, 0 };

Test(frame_limit, counts_the_leading_vlan_tags)
{
	cr_assert_eq(dp_frame_vlan_tags(tagged(60, none), 60, false, DP_FRAME_TAGS_ANY), 0);
	cr_assert_eq(dp_frame_vlan_tags(tagged(60, ctag), 60, false, DP_FRAME_TAGS_ANY), 1);
	cr_assert_eq(dp_frame_vlan_tags(tagged(60, stag), 60, false, DP_FRAME_TAGS_ANY), 1);
	cr_assert_eq(dp_frame_vlan_tags(tagged(60, old), 60, false, DP_FRAME_TAGS_ANY), 1);
	cr_assert_eq(dp_frame_vlan_tags(tagged(60, qinq), 60, false, DP_FRAME_TAGS_ANY), 2);
	cr_assert_eq(dp_frame_vlan_tags(tagged(60, qinq), 60, false, 1), 1);
	/* 802.1Q only: an 802.1ad outer tag stops the count at once. */
	cr_assert_eq(dp_frame_vlan_tags(tagged(60, qinq), 60, true, DP_FRAME_TAGS_ANY), 0);
	cr_assert_eq(dp_frame_vlan_tags(tagged(60, stag), 60, true, DP_FRAME_TAGS_ANY), 0);
	cr_assert_eq(dp_frame_vlan_tags(tagged(60, cc), 60, true, DP_FRAME_TAGS_ANY), 2);
	cr_assert_eq(dp_frame_vlan_tags(tagged(60, cc), 60, true, 1), 1);
	/* A tag must be whole within the frame. */
	cr_assert_eq(dp_frame_vlan_tags(tagged(15, ctag), 15, false, DP_FRAME_TAGS_ANY), 0);
	cr_assert_eq(dp_frame_vlan_tags(tagged(16, ctag), 16, false, DP_FRAME_TAGS_ANY), 1);
	cr_assert_eq(dp_frame_vlan_tags(tagged(10, ctag), 10, false, DP_FRAME_TAGS_ANY), 0);
}

Test(frame_limit, an_mtu_port_takes_4_bytes_more_per_tag)
{
	struct dp_frame_limit l = { .untagged = 1514, .tags = DP_FRAME_TAGS_ANY };

	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, none), 60), 1514);
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, ctag), 60), 1518);
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, stag), 60), 1518);
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, qinq), 60), 1522);
	cr_assert(dp_frame_fits(&l, tagged(60, ctag), 60));
	/* The length decides; only the first 64 bytes are read here. */
	cr_assert(dp_frame_fits(&l, tagged(64, ctag), 1518));
	cr_assert_not(dp_frame_fits(&l, tagged(64, ctag), 1519));
	cr_assert_not(dp_frame_fits(&l, tagged(64, none), 1515));
	cr_assert(dp_frame_fits(&l, tagged(64, qinq), 1522));
}

/* af_packet on a veth of MTU 2200 with 2304-byte slots (replay_af_packet.sh). */
Test(frame_limit, af_packet_takes_one_8021q_tag_within_its_slots)
{
	struct dp_frame_limit l = { .untagged = 2214, .tags = 1, .ctag_only = true,
				    .cap = 2272 };

	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, none), 60), 2214);
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, ctag), 60), 2218);
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, cc), 60), 2218);
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, stag), 60), 2214);
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, old), 60), 2214);
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, qinq), 60), 2214);
	/* The slot bounds it whatever the tags. */
	l.cap = 2216;
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, ctag), 60), 2216);
	/* Interface MTU unknown: the slot alone. */
	l.untagged = 0;
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, none), 60), 2216);
}

Test(frame_limit, none_and_caps)
{
	struct dp_frame_limit l = { 0 };

	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, ctag), 60), UINT32_MAX);
	l = dp_frame_limit_capped(l, 65407);
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, ctag), 60), 65407);
	l = dp_frame_limit_capped((struct dp_frame_limit){ .cap = 2272 }, 65407);
	cr_assert_eq(l.cap, 2272);
	l = dp_frame_limit_capped((struct dp_frame_limit){ .untagged = 65535 + 14,
							   .tags = DP_FRAME_TAGS_ANY }, 65407);
	cr_assert_eq(dp_frame_limit_for(&l, tagged(60, none), 60), 65407);
}

Test(frame_limit, mtu_needed_leaves_out_header_and_tags)
{
	const struct dp_frame_limit *one = &dp_frame_rule_one_ctag;

	cr_assert_eq(dp_frame_mtu_needed(tagged(64, none), 9000, NULL), 8986);
	cr_assert_eq(dp_frame_mtu_needed(tagged(64, ctag), 1518, NULL), 1500);
	cr_assert_eq(dp_frame_mtu_needed(tagged(64, qinq), 1522, NULL), 1500);
	cr_assert_eq(dp_frame_mtu_needed(tagged(64, stag), 1518, NULL), 1500);
	cr_assert_eq(dp_frame_mtu_needed(tagged(10, none), 10, NULL), 0);
	cr_assert_eq(dp_frame_mtu_needed(tagged(16, ctag), 16, NULL), 0);
	/* af_packet's rule: one 802.1Q tag, outermost, adds; 802.1ad does not. */
	cr_assert_eq(dp_frame_mtu_needed(tagged(64, ctag), 1518, one), 1500);
	cr_assert_eq(dp_frame_mtu_needed(tagged(64, qinq), 1522, one), 1508);
	cr_assert_eq(dp_frame_mtu_needed(tagged(64, stag), 1518, one), 1504);
	cr_assert_eq(dp_frame_mtu_needed(tagged(64, none), 1514, one), 1500);
}

Test(frame_limit, says_the_limit_in_words)
{
	char b[128];
	struct dp_frame_limit l = { .untagged = 2134, .tags = DP_FRAME_TAGS_ANY };

	cr_assert_str_eq(dp_frame_limit_describe(&l, b, sizeof(b)),
			 "2134 bytes (4 more per VLAN tag)");
	l = (struct dp_frame_limit){ .untagged = 2214, .tags = 1, .ctag_only = true, .cap = 2272 };
	cr_assert_str_eq(dp_frame_limit_describe(&l, b, sizeof(b)),
			 "2214 bytes (4 more with an 802.1Q tag, 2272 at most)");
	l.cap = 2000;
	cr_assert_str_eq(dp_frame_limit_describe(&l, b, sizeof(b)), "2000 bytes");
	l = (struct dp_frame_limit){ .untagged = 1000 };
	cr_assert_str_eq(dp_frame_limit_describe(&l, b, sizeof(b)), "1000 bytes");
	l = (struct dp_frame_limit){ .cap = 65407 };
	cr_assert_str_eq(dp_frame_limit_describe(&l, b, sizeof(b)), "65407 bytes");
	l = (struct dp_frame_limit){ 0 };
	cr_assert_str_eq(dp_frame_limit_describe(&l, b, sizeof(b)), "no limit");
}
