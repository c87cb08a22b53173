/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd(8) and switchd(8) name every counter their daemon exports through
 * telemetry and prints when it stops. The names come from the code's X-macro
 * lists, so a counter added without a word in its man page fails here. A
 * page names a counter when its COUNTERS section gives it an entry of its
 * own in the list's subsection: the tag line after a .TP sets the name in
 * bold, as a whole word (a .B, .BR, .RB, .BI or .IB line, or \fB...\fR);
 * a mention in prose, or elsewhere in the page, does not count. The stage
 * counters (vnetID_STAGE_COUNTER) are documented in doc/protocol.md's table
 * of stages, which test_stages checks.
 */
#include <criterion/criterion.h>

#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_fault.h"
#include "dataplane/dp_port.h"
#include "nicd/host_priv.h"
#include "nicd/nic.h"
#include "switchd/fabric.h"
#include "test_doc_util.h"

/* One of a daemon's counter lists: the subsection of COUNTERS that has it, and its names. */
struct t_counter_list {
	const char *ss;			/* .SS title */
	const char *const *names;	/* NULL-terminated */
};

static const char *const t_nic[] = { NIC_COUNTERS(DP_COUNTER_NAME) NULL };
static const char *const t_host[] = { HOST_COUNTERS(DP_COUNTER_NAME) NULL };
static const char *const t_host_ep[] = { HOST_EP_COUNTERS(DP_COUNTER_NAME) NULL };
static const char *const t_port[] = { DP_PORT_COUNTERS(DP_COUNTER_NAME) NULL };
static const char *const t_ethdev_port[] = { DP_ETHDEV_PORT_COUNTERS(DP_COUNTER_NAME) NULL };
static const char *const t_link[] = { DP_ETHDEV_LINK_COUNTERS(DP_COUNTER_NAME) NULL };
static const char *const t_fault[] = { DP_FAULT_COUNTERS(DP_COUNTER_NAME) NULL };
static const char *const t_switch[] = { SW_COUNTERS(DP_COUNTER_NAME) NULL };

/* Every name of lists has an entry in its subsection of page's COUNTERS. */
static void t_page_names_all(const char *page, const struct t_counter_list *lists,
			     size_t n_lists)
{
	for (size_t l = 0; l < n_lists; l++) {
		struct t_man_where w = { "COUNTERS", lists[l].ss, NULL, true };
		char *tags;

		t_man_bold(page, &w, &tags);

		for (const char *const *c = lists[l].names; *c; c++)
			cr_expect(t_has_word(tags, *c),
				  "%s, COUNTERS, \"%s\": no entry for counter %s", page,
				  lists[l].ss, *c);
		free(tags);
	}
}

/* nicd: /segnet/nic/stats and /segnet/nic/endpoints, and its summary at exit. */
Test(man_counters, nicd_8_names_every_counter_nicd_exports)
{
	static const struct t_counter_list lists[] = {
		{ "NIC counters", t_nic }, { "Host interface counters", t_host },
		{ "Endpoint counters", t_host_ep }, { "Port counters", t_port },
		{ "Port counters", t_ethdev_port }, { "Link counters", t_link },
		{ "Fault counters", t_fault },
	};

	t_page_names_all("nicd.8", lists, sizeof(lists) / sizeof(lists[0]));
}

/* switchd: /segnet/switch/stats and /segnet/switch/nodes, and its summary at exit. */
Test(man_counters, switchd_8_names_every_counter_switchd_exports)
{
	static const struct t_counter_list lists[] = {
		{ "Switch counters", t_switch }, { "Port counters", t_port },
		{ "Port counters", t_ethdev_port }, { "Fault counters", t_fault },
	};

	t_page_names_all("switchd.8", lists, sizeof(lists) / sizeof(lists[0]));
}
