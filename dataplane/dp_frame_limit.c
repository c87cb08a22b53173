/* SPDX-License-Identifier: BSD-3-Clause */
/* A port's frame length limit, VLAN tags included (dp_frame_limit.h). */
#include <stdio.h>

#include "dp_frame_limit.h"

/* TPIDs of the VLAN tags a frame may start with. */
enum {
	DP_TPID_8021Q = 0x8100,		/* 802.1Q customer tag */
	DP_TPID_8021AD = 0x88a8,	/* 802.1ad service tag */
	DP_TPID_QINQ_OLD = 0x9100,	/* pre-802.1ad QinQ */
	DP_FRAME_TYPE_OFF = 12,		/* where the first EtherType or TPID is */
};

/* True when tpid starts a VLAN tag that counts. */
static bool dp_frame_is_tpid(uint16_t tpid, bool ctag_only)
{
	if (tpid == DP_TPID_8021Q)
		return true;
	return !ctag_only && (tpid == DP_TPID_8021AD || tpid == DP_TPID_QINQ_OLD);
}

unsigned int dp_frame_vlan_tags(const uint8_t *frame, uint32_t len, bool ctag_only,
				unsigned int max)
{
	uint32_t off = DP_FRAME_TYPE_OFF;
	unsigned int n = 0;

	while (n < max && off + DP_FRAME_VLAN_TAG <= len &&
	       dp_frame_is_tpid((uint16_t)(frame[off] << 8 | frame[off + 1]), ctag_only)) {
		n++;
		off += DP_FRAME_VLAN_TAG;
	}
	return n;
}

uint32_t dp_frame_limit_for(const struct dp_frame_limit *l, const uint8_t *frame,
			    uint32_t len)
{
	uint64_t max = UINT32_MAX;

	if (l->untagged)
		max = l->untagged + (uint64_t)DP_FRAME_VLAN_TAG *
		      dp_frame_vlan_tags(frame, len, l->ctag_only, l->tags);
	if (l->cap && l->cap < max)
		max = l->cap;
	return max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
}

struct dp_frame_limit dp_frame_limit_capped(struct dp_frame_limit l, uint32_t cap)
{
	if (l.cap == 0 || cap < l.cap)
		l.cap = cap;
	return l;
}

const struct dp_frame_limit dp_frame_rule_one_ctag = { .tags = 1, .ctag_only = true };

uint32_t dp_frame_mtu_needed(const uint8_t *frame, uint32_t len,
			     const struct dp_frame_limit *rule)
{
	uint32_t over = DP_FRAME_ETH_HDR + DP_FRAME_VLAN_TAG *
			dp_frame_vlan_tags(frame, len, rule && rule->ctag_only,
					   rule ? rule->tags : DP_FRAME_TAGS_ANY);

	return len > over ? len - over : 0;
}

/* What tags add, in words, for dp_frame_limit_describe ("" when nothing). */
static const char *dp_frame_tags_words(const struct dp_frame_limit *l)
{
	if (l->tags == 0)
		return "";
	if (l->tags == 1)
		return l->ctag_only ? "4 more with an 802.1Q tag" : "4 more with a VLAN tag";
	return l->ctag_only ? "4 more per 802.1Q tag" : "4 more per VLAN tag";
}

const char *dp_frame_limit_describe(const struct dp_frame_limit *l, char *buf, size_t len)
{
	const char *tags = dp_frame_tags_words(l);
	bool capped = l->cap && (!l->untagged || l->cap > l->untagged);

	if (!l->untagged && !l->cap)
		snprintf(buf, len, "no limit");
	else if (!l->untagged || (l->cap && l->cap <= l->untagged))
		snprintf(buf, len, "%u bytes", l->cap);
	else if (!*tags)
		snprintf(buf, len, "%u bytes", l->untagged);
	else if (capped)
		snprintf(buf, len, "%u bytes (%s, %u at most)", l->untagged, tags, l->cap);
	else
		snprintf(buf, len, "%u bytes (%s)", l->untagged, tags);
	return buf;
}
