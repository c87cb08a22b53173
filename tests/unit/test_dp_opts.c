/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK-free helpers of the daemons and tools: checked option values
 * (dp_opts.h), JSON strings (dp_json.h) and percentile ranks (dp_rank.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "dataplane/dp_json.h"
#include "dataplane/dp_opts.h"
#include "dataplane/dp_rank.h"

/* dp_json_str(s) as a string (freed by the caller). */
static char *t_json(const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	cr_assert_not_null(f);
	dp_json_str(f, s);
	fclose(f);
	return out;
}

Test(json, strings_are_quoted_and_escaped)
{
	const struct { const char *in, *out; } cases[] = {
		{ "", "\"\"" },
		{ "n0.bulk_fault_lost", "\"n0.bulk_fault_lost\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "C:\\dir", "\"C:\\\\dir\"" },
		{ "tab\there\nnl\x01", "\"tab\\u0009here\\u000anl\\u0001\"" },
		{ "na\xc3\xafve", "\"na\xc3\xafve\"" },	/* UTF-8 passes through */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = t_json(cases[i].in);

		cr_assert_str_eq(got, cases[i].out, "case %zu", i);
		free(got);
	}
}

Test(opts, numbers_out_of_range_or_malformed_are_refused_naming_the_option)
{
	const char *bad_ulong[] = { "", "-1", "+3", "12x", "0x10", "99999999999999999999999" };
	const char *bad_double[] = { "", "x", "1e999", "nan", "inf", "0.5x", " 1", "0x1p-1" };
	unsigned long u = 7;
	double d = 7;
	char err[128];

	for (size_t i = 0; i < sizeof(bad_ulong) / sizeof(bad_ulong[0]); i++) {
		err[0] = '\0';
		cr_assert_eq(dp_opt_ulong("--n", bad_ulong[i], 0, 100, &u, err, sizeof(err)), -EINVAL,
			     "'%s' accepted", bad_ulong[i]);
		cr_assert_not_null(strstr(err, "--n"), "'%s': message '%s'", bad_ulong[i], err);
	}
	cr_assert_eq(dp_opt_ulong("--n", "101", 0, 100, &u, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "between 0 and 100"), "%s", err);
	cr_assert_eq(u, 7, "a refused value is not stored");
	cr_assert_eq(dp_opt_ulong("--n", "100", 0, 100, &u, err, sizeof(err)), 0);
	cr_assert_eq(u, 100);
	for (size_t i = 0; i < sizeof(bad_double) / sizeof(bad_double[0]); i++) {
		err[0] = '\0';
		cr_assert_eq(dp_opt_double("--g", bad_double[i], 0, 10, &d, err, sizeof(err)),
			     -EINVAL, "'%s' accepted", bad_double[i]);
		cr_assert_not_null(strstr(err, "--g"), "'%s': message '%s'", bad_double[i], err);
	}
	cr_assert_eq(dp_opt_double("--g", "10.5", 0, 10, &d, err, sizeof(err)), -EINVAL);
	cr_assert_float_eq(d, 7, 0, "a refused value is not stored");
	cr_assert_eq(dp_opt_double("--g", "2.5e-1", 0, 10, &d, err, sizeof(err)), 0);
	cr_assert_float_eq(d, 0.25, 1e-15);
}

Test(rank, percentiles_are_the_nearest_rank)
{
	/* The smallest sample with at least p % of the samples at or below it. */
	cr_assert_eq(dp_rank_index(1, 50), 0);
	cr_assert_eq(dp_rank_index(1, 99), 0);
	cr_assert_eq(dp_rank_index(2, 50), 0);
	cr_assert_eq(dp_rank_index(2, 99), 1, "p99 of two samples is the larger");
	cr_assert_eq(dp_rank_index(4, 50), 1);
	cr_assert_eq(dp_rank_index(100, 99), 98);
	cr_assert_eq(dp_rank_index(101, 99), 99);
	cr_assert_eq(dp_rank_index(1000, 99), 989);
	cr_assert_eq(dp_rank_index(12345, 99), 12221);
	cr_assert_eq(dp_rank_index(7, 100), 6);
}
