/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A user who wants --log-level=TYPE:debug finds TYPE in the man page of the
 * program: the LOGGING section of switchd(8), nicd(8) and segnet-replay(1)
 * has an entry (a .TP tag line with the name in bold) for every log type of
 * DP_LOG_TYPES the program links, and no entry for a type that does not
 * exist; doc/operations.md's Logging table has a row for each. Which types a
 * program links is the table below (nm on the built program lists its
 * *_logtype variables): the daemons take dataplane's and their own, and
 * segnet-replay dataplane's EAL and ethdev ones.
 */
#include <criterion/criterion.h>

#include "dataplane/dp_log.h"
#include "test_doc_util.h"

#define T_LOG_NAME(id, name, text) name,

static const char *const t_types[] = { DP_LOG_TYPES(T_LOG_NAME) NULL };

/* Whether name is a log type of DP_LOG_TYPES. */
static bool t_is_type(const char *name, size_t len)
{
	for (const char *const *t = t_types; *t; t++)
		if (strlen(*t) == len && !strncmp(*t, name, len))
			return true;
	return false;
}

/*
 * page's LOGGING has an entry for every type that starts with one of the
 * prefixes (a whole name is a prefix too), and none for a name that is no type.
 */
static void t_page_logging(const char *page, const char *const *prefixes)
{
	struct t_man_where w = { "LOGGING", NULL, NULL, true };
	size_t n = 0;
	char *tags;

	t_man_bold(page, &w, &tags);
	for (const char *const *t = t_types; *t; t++)
		for (const char *const *p = prefixes; *p; p++) {
			if (strncmp(*t, *p, strlen(*p)))
				continue;
			cr_expect(t_has_word(tags, *t), "%s, LOGGING: no entry for log type %s",
				  page, *t);
			n++;
			break;
		}
	cr_expect_gt(n, 0, "%s: no log type starts with the prefixes given", page);
	for (const char *s = strstr(tags, "segnet."); s; s = strstr(s + 1, "segnet.")) {
		size_t len = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_.");

		cr_expect(t_is_type(s, len), "%s, LOGGING: an entry for %.*s, which is no log type",
			  page, (int)len, s);
	}
	free(tags);
}

Test(man_logging, switchd_8_names_dataplane_and_switchd_types)
{
	static const char *const prefixes[] = { "segnet.dataplane.", "segnet.switchd.", NULL };

	t_page_logging("switchd.8", prefixes);
}

Test(man_logging, nicd_8_names_dataplane_and_nicd_types)
{
	static const char *const prefixes[] = { "segnet.dataplane.", "segnet.nicd.", NULL };

	t_page_logging("nicd.8", prefixes);
}

Test(man_logging, segnet_replay_1_names_the_eal_and_ethdev_types)
{
	static const char *const prefixes[] = { "segnet.dataplane.eal", "segnet.dataplane.ethdev",
						NULL };

	t_page_logging("segnet-replay.1", prefixes);
}

Test(man_logging, operations_md_has_a_row_for_every_type)
{
	for (const char *const *t = t_types; *t; t++) {
		char head[128], *row;

		snprintf(head, sizeof(head), "| `%s` |", *t);
		row = t_doc_section_line("operations.md", "## Logging", head);
		cr_expect_not_null(row, "operations.md, Logging: no row for log type %s", *t);
		free(row);
	}
}
