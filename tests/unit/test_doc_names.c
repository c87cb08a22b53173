/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The names a user gives on the command line from the code's registries
 * are in the docs: every arbiter of arb_list() (switchd --arbiter,
 * segnet-sim --arbiter) and every standard configuration of conf_table
 * (nicd --vnet, segnet-sim --conf) is set in bold in the option's entry of
 * each man page, and has its row in the table of doc/arbiters.md ("The
 * arbiters") or doc/protocol.md ("Configurations"); every key of a --fault
 * SPEC (dp_fault_spec_keys) is in bold in both daemons' --fault entry. The options themselves are
 * man_options' (tests/integration), the stages test_stages'.
 */
#include <criterion/criterion.h>

#include "dataplane/dp_fault.h"
#include "nicd/conf.h"
#include "switchd/arb.h"
#include "test_doc_util.h"

/* An option's entry in a man page's OPTIONS. */
struct t_option_entry {
	const char *page;
	const char *option;	/* "--arbiter" */
	const char *tag;	/* as the tag line of its entry writes it (\-\-arbiter) */
};

/* name is in bold in the entry of each of the n options. */
static void t_in_entries(const char *name, const struct t_option_entry *opts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct t_man_where w = { "OPTIONS", NULL, opts[i].tag, false };
		char *text;

		t_man_bold(opts[i].page, &w, &text);
		cr_expect(t_has_word(text, name), "%s, OPTIONS, %s: %s is not in bold",
			  opts[i].page, opts[i].option, name);
		free(text);
	}
}

/* doc/page has a row that starts with head in section, for name. */
static void t_has_row(const char *page, const char *section, const char *head,
		      const char *name)
{
	char *row = t_doc_section_line(page, section, head);

	cr_expect_not_null(row, "doc/%s, %s: no row \"%s...\" for %s", page, section, head,
			   name);
	free(row);
}

Test(doc_names, every_arbiter_is_in_the_man_pages_and_arbiters_md)
{
	static const struct t_option_entry opts[] = {
		{ "switchd.8", "--arbiter", "\\-\\-arbiter " },
		{ "segnet-sim.1", "--arbiter", "\\-\\-arbiter " },
	};
	char head[64];

	for (const struct arb_ops *const *o = arb_list(); *o; o++) {
		t_in_entries((*o)->name, opts, sizeof(opts) / sizeof(opts[0]));
		/* the row names the spec: name[:K] for the arbiters that take iterations */
		snprintf(head, sizeof(head), "| `%s%s` ", (*o)->name,
			 (*o)->takes_iterations ? "[:K]" : "");
		t_has_row("arbiters.md", "## The arbiters", head, (*o)->name);
	}
}

Test(doc_names, every_configuration_is_in_the_man_pages_and_protocol_md)
{
	static const struct t_option_entry opts[] = {
		{ "nicd.8", "--vnet", "\\-\\-vnet " },
		{ "segnet-sim.1", "--conf", "\\-\\-conf " },
	};
	char head[64];

	for (const struct conf_def *c = conf_table; c->name; c++) {
		t_in_entries(c->name, opts, sizeof(opts) / sizeof(opts[0]));
		snprintf(head, sizeof(head), "| %s |", c->name);
		t_has_row("protocol.md", "### Configurations", head, c->name);
	}
}

Test(doc_names, every_fault_spec_key_is_in_both_daemons_man_pages)
{
	static const struct t_option_entry opts[] = {
		{ "switchd.8", "--fault", "\\-\\-fault " },
		{ "nicd.8", "--fault", "\\-\\-fault " },
	};

	for (const char *const *k = dp_fault_spec_keys; *k; k++)
		t_in_entries(*k, opts, sizeof(opts) / sizeof(opts[0]));
}
