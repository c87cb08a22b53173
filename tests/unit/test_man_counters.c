/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd(8) and switchd(8) name every counter their daemon exports through
 * telemetry and prints when it stops. The names come from the code's X-macro
 * lists, so a counter added without a word in its man page fails here. A
 * page names a counter when it sets the name in bold, as a whole word: on a
 * .B, .BR, .RB, .BI or .IB line, or between \fB and \fR. The stage counters
 * (vnetID_STAGE_COUNTER) are documented in doc/protocol.md's table of stages,
 * which test_stages checks.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_fault.h"
#include "dataplane/dp_port.h"
#include "nicd/host_priv.h"
#include "nicd/nic.h"
#include "switchd/fabric.h"

/* One of a daemon's counter lists: what its man page calls it, and its names. */
struct t_counter_list {
	const char *what;
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

/* The text page (in doc/man) sets in bold, one span a line; malloc'd. */
static char *t_bold_text(const char *page)
{
	static const char *const macros[] = { ".B ", ".BR ", ".RB ", ".BI ", ".IB " };
	char path[512], *line = NULL, *out = NULL;
	size_t cap = 0, len = 0;
	FILE *f, *o = open_memstream(&out, &len);

	snprintf(path, sizeof(path), "%s/man/%s", SEGNET_DOC_DIR, page);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: cannot open", path);
	while (getline(&line, &cap, f) > 0) {
		for (size_t i = 0; i < sizeof(macros) / sizeof(macros[0]); i++)
			if (!strncmp(line, macros[i], strlen(macros[i])))
				fputs(line + strlen(macros[i]), o);
		for (const char *b = strstr(line, "\\fB"); b; b = strstr(b, "\\fB")) {
			const char *e = strstr(b += 3, "\\f");

			fprintf(o, "%.*s\n", (int)(e ? e - b : (long)strlen(b)), b);
		}
	}
	fclose(f);
	fclose(o);
	free(line);
	return out;
}

/* Whether name is a whole word of text (words: letters, digits, '_'). */
static bool t_has_word(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
		bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool end = !(isalnum((unsigned char)p[n]) || p[n] == '_');

		if (start && end)
			return true;
	}
	return false;
}

/* Every name of lists is in bold in page. */
static void t_page_names_all(const char *page, const struct t_counter_list *lists,
			     size_t n_lists)
{
	char *bold = t_bold_text(page);

	for (size_t l = 0; l < n_lists; l++)
		for (const char *const *c = lists[l].names; *c; c++)
			cr_expect(t_has_word(bold, *c), "%s does not name %s counter %s", page,
				  lists[l].what, *c);
	free(bold);
}

/* nicd: /segnet/nic/stats and /segnet/nic/endpoints, and its summary at exit. */
Test(man_counters, nicd_8_names_every_counter_nicd_exports)
{
	static const struct t_counter_list lists[] = {
		{ "NIC", t_nic }, { "host_", t_host }, { "endpoint", t_host_ep },
		{ "port", t_port }, { "port", t_ethdev_port }, { "link", t_link },
		{ "fault", t_fault },
	};

	t_page_names_all("nicd.8", lists, sizeof(lists) / sizeof(lists[0]));
}

/* switchd: /segnet/switch/stats and /segnet/switch/nodes, and its summary at exit. */
Test(man_counters, switchd_8_names_every_counter_switchd_exports)
{
	static const struct t_counter_list lists[] = {
		{ "switch", t_switch }, { "port", t_port }, { "port", t_ethdev_port },
		{ "fault", t_fault },
	};

	t_page_names_all("switchd.8", lists, sizeof(lists) / sizeof(lists[0]));
}
