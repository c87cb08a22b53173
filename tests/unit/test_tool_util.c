/* SPDX-License-Identifier: BSD-3-Clause */
/* What the segnet tools share (nicd/tools/tool_util.c): how they print a share. */
#include <criterion/criterion.h>

#include "nicd/tools/tool_util.h"

/* The share part of whole as the tools print it. */
static const char *t_pct(uint64_t part, uint64_t whole)
{
	static char buf[32];

	return tool_percent(part, whole, buf, sizeof(buf));
}

Test(tool_util, a_share_is_never_printed_as_none_or_all_when_it_is_not)
{
	cr_assert_str_eq(t_pct(0, 1900), "0");
	cr_assert_str_eq(t_pct(1900, 1900), "100");
	cr_assert_str_eq(t_pct(1, 4), "25");
	cr_assert_str_eq(t_pct(1, 3), "33");
	/* One of 1900 is 0.0526...%: not 0. */
	cr_assert_str_eq(t_pct(1, 1900), "0.05");
	cr_assert_str_eq(t_pct(1, 2000000), "0.00005");
	/* 1899 of 1900 is 99.947...%: not 100. */
	cr_assert_str_eq(t_pct(1899, 1900), "99.95");
	cr_assert_str_eq(t_pct(0, 0), "0");
}
