/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd(8) and switchd(8) document every telemetry command their daemon
 * registers and every key its callbacks add by name: the lists of
 * nicd/nicd_tel_names.h and switchd/swd_tel_names.h, which the callbacks
 * take their names from (the counters are test_man_counters'). A page's
 * TELEMETRY section has an entry for each command (the tag line after a .TP
 * names its path) whose text sets each of the command's keys in bold as a
 * whole word (a key that is a prefix, such as nicd's host_, as well); and
 * every /segnet/ command a TELEMETRY entry names is one the daemon
 * registers. segnet-stat(1), which samples every /segnet/ command by
 * default, names them all, and no other.
 */
#include <criterion/criterion.h>

#include "nicd/nicd_tel_names.h"
#include "switchd/swd_tel_names.h"
#include "test_doc_util.h"

#define T_CMD_PATH(name, path) path,

/* A command and the lists of keys its callbacks add by name. */
struct t_tel_cmd {
	const char *path;
	const char *const *keys[3];	/* NULL-terminated lists, up to a NULL */
};

static const char *const t_sw_cmds[] = { SWD_TEL_CMDS(T_CMD_PATH) NULL };
static const char *const t_sw_stats[] = { SWD_TEL_STATS_KEYS(DP_COUNTER_NAME) NULL };
static const char *const t_sw_nodes[] = { SWD_TEL_NODES_KEYS(DP_COUNTER_NAME) NULL };
static const char *const t_sw_node[] = { SWD_TEL_NODE_KEYS(DP_COUNTER_NAME) NULL };
static const char *const t_sw_arbiter[] = { SWD_TEL_ARBITER_KEYS(DP_COUNTER_NAME) NULL };
static const char *const t_sw_roles[] = { SWD_TEL_ROLES(DP_COUNTER_NAME) NULL };
static const struct swd_tel_cmds t_sw_cmd = { SWD_TEL_CMDS(DP_TEL_CMD_INIT) };

static const char *const t_nic_cmds[] = { NICD_TEL_CMDS(T_CMD_PATH) NULL };
static const char *const t_nic_stats[] = { NICD_TEL_STATS_KEYS(DP_COUNTER_NAME) NULL };
static const char *const t_nic_endpoints[] = { NICD_TEL_ENDPOINTS_KEYS(DP_COUNTER_NAME) NULL };
static const char *const t_nic_ep[] = { NICD_TEL_EP_KEYS(DP_COUNTER_NAME) NULL };
static const struct nicd_tel_cmds t_nic_cmd = { NICD_TEL_CMDS(DP_TEL_CMD_INIT) };

/* Whether path is one of cmds. */
static bool t_is_cmd(const char *const *cmds, const char *path, size_t len)
{
	for (; *cmds; cmds++)
		if (strlen(*cmds) == len && !strncmp(*cmds, path, len))
			return true;
	return false;
}

/* The keys of cmd, a command of the table tel (n_tel entries), or NULL. */
static const struct t_tel_cmd *t_cmd_keys(const struct t_tel_cmd *tel, size_t n_tel,
					  const char *cmd)
{
	for (size_t i = 0; i < n_tel; i++)
		if (!strcmp(tel[i].path, cmd))
			return &tel[i];
	return NULL;
}

/*
 * page's TELEMETRY has an entry for every command of cmds with each of its
 * keys (from tel) in bold, and names no /segnet/ command outside cmds.
 */
static void t_page_tel(const char *page, const char *const *cmds, const struct t_tel_cmd *tel,
		       size_t n_tel)
{
	struct t_man_where tags_at = { "TELEMETRY", NULL, NULL, true };
	char *tags;

	for (const char *const *c = cmds; *c; c++) {
		struct t_man_where entry_at = { "TELEMETRY", NULL, *c, false };
		const struct t_tel_cmd *t = t_cmd_keys(tel, n_tel, *c);
		char *entry;

		t_man_bold(page, &entry_at, &entry);
		cr_expect(t_has_word(entry, *c), "%s, TELEMETRY: no entry for command %s", page,
			  *c);
		for (size_t l = 0; t && t->keys[l]; l++)
			for (const char *const *k = t->keys[l]; *k; k++)
				cr_expect(t_has_word(entry, *k),
					  "%s, TELEMETRY, %s: key %s is not in bold", page, *c, *k);
		free(entry);
	}
	t_man_bold(page, &tags_at, &tags);
	for (const char *p = strstr(tags, "/segnet/"); p; p = strstr(p + 1, "/segnet/")) {
		size_t len = strspn(p, "/abcdefghijklmnopqrstuvwxyz0123456789_");

		cr_expect(t_is_cmd(cmds, p, len),
			  "%s, TELEMETRY: an entry for %.*s, which the daemon does not register",
			  page, (int)len, p);
	}
	free(tags);
}

/* The text of doc/man/page (malloc'd). */
static char *t_man_text(const char *page)
{
	char path[512], *text;
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/man/%s", SEGNET_DOC_DIR, page);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: cannot open", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	cr_assert_not_null(text);
	cr_assert_eq(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return text;
}

Test(man_telemetry, segnet_stat_1_names_every_command_of_both_daemons)
{
	const char *const *daemons[] = { t_nic_cmds, t_sw_cmds };
	char *text = t_man_text("segnet-stat.1");

	for (size_t d = 0; d < sizeof(daemons) / sizeof(daemons[0]); d++)
		for (const char *const *c = daemons[d]; *c; c++)
			cr_expect(t_has_word(text, *c), "segnet-stat.1 does not name command %s",
				  *c);
	for (const char *p = strstr(text, "/segnet/"); p; p = strstr(p + 1, "/segnet/")) {
		size_t len = strspn(p, "/abcdefghijklmnopqrstuvwxyz0123456789_");

		/* the prefix alone ("every command under /segnet/") names none */
		cr_expect(len == strlen("/segnet/") || t_is_cmd(t_nic_cmds, p, len) ||
			  t_is_cmd(t_sw_cmds, p, len),
			  "segnet-stat.1 names %.*s, which neither daemon registers", (int)len, p);
	}
	free(text);
}

Test(man_telemetry, switchd_8_documents_every_command_and_key)
{
	const struct t_tel_cmd tel[] = {
		{ t_sw_cmd.stats, { t_sw_stats } },
		{ t_sw_cmd.nodes, { t_sw_nodes, t_sw_node } },
		{ t_sw_cmd.arbiter, { t_sw_arbiter } },
	};

	t_page_tel("switchd.8", t_sw_cmds, tel, sizeof(tel) / sizeof(tel[0]));
}

/*
 * switchd's port roles name a node's port counters (ROLE_COUNTER in the
 * nodes entry) and the dictionaries of --fault's sums (in the stats entry).
 */
Test(man_telemetry, switchd_8_names_every_port_role)
{
	struct t_man_where nodes_at = { "TELEMETRY", NULL, t_sw_cmd.nodes, false };
	struct t_man_where stats_at = { "TELEMETRY", NULL, t_sw_cmd.stats, false };
	char *nodes, *stats, prefix[32];

	t_man_bold("switchd.8", &nodes_at, &nodes);
	t_man_bold("switchd.8", &stats_at, &stats);
	for (const char *const *r = t_sw_roles; *r; r++) {
		snprintf(prefix, sizeof(prefix), "%s_", *r);
		cr_expect(t_has_word(nodes, prefix),
			  "switchd.8, TELEMETRY, %s: port prefix %s is not in bold", t_sw_cmd.nodes,
			  prefix);
		cr_expect(t_has_word(stats, *r),
			  "switchd.8, TELEMETRY, %s: the fault dictionary of role %s is not in bold",
			  t_sw_cmd.stats, *r);
	}
	free(nodes);
	free(stats);
}

Test(man_telemetry, nicd_8_documents_every_command_and_key)
{
	const struct t_tel_cmd tel[] = {
		{ t_nic_cmd.stats, { t_nic_stats } },
		{ t_nic_cmd.endpoints, { t_nic_endpoints, t_nic_ep } },
	};

	t_page_tel("nicd.8", t_nic_cmds, tel, sizeof(tel) / sizeof(tel[0]));
}
