/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK-free helpers of the daemons and tools: checked option values and
 * the getopt_long loop that names what it refuses and refuses an option given
 * twice (dp_opts.h), JSON strings (dp_json.h) and percentile ranks (dp_rank.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		{ "\xe2\x82\xac \xf0\x9f\x98\x80", "\"\xe2\x82\xac \xf0\x9f\x98\x80\"" },
		/* bytes that are not UTF-8 (a path's): U+FFFD each, the JSON stays valid */
		{ "cap\xff\xfe.pcap", "\"cap\\ufffd\\ufffd.pcap\"" },
		{ "cut\xe2\x82", "\"cut\\ufffd\\ufffd\"" },	/* a sequence cut short */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },		/* overlong '/' */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* a surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },	/* past U+10FFFF */
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
	/* Too large for an unsigned long is a number out of range too, not "not a whole number". */
	cr_assert_eq(dp_opt_ulong("--n", "99999999999999999999999", 0, 100, &u, err, sizeof(err)),
		     -EINVAL);
	cr_assert_str_eq(err, "--n 99999999999999999999999: out of range, must be between 0 and 100");
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
	/* Too small for a double is a number (0 or nearly), not "not a number". */
	cr_assert_eq(dp_opt_double("--g", "1e-310", 0, 10, &d, err, sizeof(err)), 0, "%s", err);
	cr_assert(d >= 0 && d < 1e-300);
	cr_assert_eq(dp_opt_double("--g", "1e-400", 0, 10, &d, err, sizeof(err)), 0, "%s", err);
	cr_assert_float_eq(d, 0, 0);
	cr_assert_eq(dp_opt_double("--g", "1e999", 0, 10, &d, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "out of range"), "%s", err);
}

Test(opts, a_key_of_a_spec_is_quoted_with_its_value_as_typed)
{
	unsigned long u;
	uint32_t u32;
	double d;
	bool b;
	char err[128];

	/* An opt ending in '=' is a KEY= inside a spec: KEY=VALUE, as the user typed it. */
	cr_assert_eq(dp_opt_ulong("--s n=", "x", 0, 9, &u, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--s n=x: not a whole number from 0 to 9");
	cr_assert_eq(dp_opt_ulong("--s n=", "99999999999999999999999", 0, 9, &u, err, sizeof(err)),
		     -EINVAL);
	cr_assert_str_eq(err, "--s n=99999999999999999999999: out of range, must be between 0 and 9");
	cr_assert_eq(dp_opt_u32("--s n=", "10", 0, 9, &u32, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--s n=10: must be between 0 and 9");
	cr_assert_eq(dp_opt_double("--s p=", "y", 0, 1, &d, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--s p=y: not a number");
	cr_assert_eq(dp_opt_double("--s p=", "1e999", 0, 1, &d, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--s p=1e999: out of range");
	cr_assert_eq(dp_opt_double("--s p=", "2", 0, 1, &d, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--s p=2: must be between 0 and 1");
	cr_assert_eq(dp_opt_period("--s t=", "0.0005", 10, &d, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--s t=0.0005: must be 0 (off) or at least 0.001");
	cr_assert_eq(dp_opt_choice("--s c=", "maybe", "on", "off", &b, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--s c=maybe: must be on or off");
	cr_assert_eq(dp_opt_output("--s f=", "/nonexistent-dir/x", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--s f=/nonexistent-dir/x: cannot be written: No such file or directory");
	/* An option on its own: OPT VALUE, as before. */
	cr_assert_eq(dp_opt_double("--p", "2", 0, 1, &d, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--p 2: must be between 0 and 1");
}

Test(opts, range_bounds_are_written_as_a_user_types_them)
{
	double d;
	char err[128];

	/* Not %g's 1e+06: nicd --fault delay-us=1000001 said "between 0 and 1e+06". */
	cr_assert_eq(dp_opt_double("--fault delay-us=", "1000001", 0, 1e6, &d, err, sizeof(err)),
		     -EINVAL);
	cr_assert_str_eq(err, "--fault delay-us=1000001: must be between 0 and 1000000");
	cr_assert_eq(dp_opt_double("--multiplier", "0", 1e-6, 1e6, &d, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--multiplier 0: must be between 0.000001 and 1000000");
	cr_assert_eq(dp_opt_double("--pps", "0", 1e-3, 1e9, &d, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--pps 0: must be between 0.001 and 1000000000");
	cr_assert_eq(dp_opt_double("--g", "0.75", 0.25, 0.5, &d, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--g 0.75: must be between 0.25 and 0.5");
	/* Under 0.000001 the zeros are hard to count: an exponent, as typed. */
	cr_assert_eq(dp_opt_double("--duration", "0", 1e-9, 1e9, &d, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--duration 0: must be between 1e-9 and 1000000000");
}

Test(opts, a_number_in_a_message_is_the_shortest_that_reads_back)
{
	const struct { double v; const char *text; } cases[] = {
		{ 0, "0" }, { -0.0, "0" }, { 1, "1" }, { -1, "-1" }, { 0.5, "0.5" },
		{ 0.001, "0.001" }, { 1e-6, "0.000001" }, { 1e6, "1000000" },
		{ 3600e9, "3600000000000" }, { 123456.789, "123456.789" },
		{ 1.0 / 3, "0.3333333333333333" }, { 1e-9, "1e-9" }, { 2.5e-7, "2.5e-7" },
		{ 1e15, "1e15" }, { -2.5e20, "-2.5e20" }, { 1e300, "1e300" },
	};
	char buf[DP_OPT_NUM_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_str_eq(dp_opt_num(cases[i].v, buf), cases[i].text, "case %zu", i);
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

/* Options of the dp_opt_next tests: two that take one value, a list, a flag. */
enum { T_NODES = 256, T_NAME, T_PORT, T_CHECK };

/* Their table. */
static const struct option t_opts[] = {
	{ "nodes", required_argument, NULL, T_NODES },
	{ "name", required_argument, NULL, T_NAME },
	{ "port", required_argument, NULL, T_PORT },
	{ "check", no_argument, NULL, T_CHECK },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The list among them. */
static const int t_lists[] = { T_PORT, 0 };

/* Parse args (NULL-terminated) to the end; the last return of dp_opt_next. */
static int t_parse(char **args, bool eal, char *err, size_t errlen)
{
	char *argv[16] = { "prog" };
	struct dp_opt_parser p;
	int argc = 1, c;

	while (*args)
		argv[argc++] = *args++;
	err[0] = '\0';
	dp_opt_start(&p, t_opts, t_lists, eal);
	while ((c = dp_opt_next(&p, argc, argv, err, errlen)) > 0)
		;
	return c;
}

/* A command line dp_opt_next refuses, and its message. */
struct t_refusal {
	const char *want;	/* the message */
	char *args[8];		/* the arguments after the name, NULL after the last */
};

/* Expect every command line of cases refused with its message. */
static void t_refused(const struct t_refusal *cases, size_t n)
{
	char err[160];

	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(t_parse((char **)cases[i].args, false, err, sizeof(err)), -EINVAL,
			     "accepted, want: %s", cases[i].want);
		cr_assert_str_eq(err, cases[i].want);
	}
}

Test(opts, a_refused_option_is_named_as_given_even_inside_a_cluster)
{
	/* The short option, not the argument before it (optind stays on -xq). */
	const struct t_refusal cases[] = {
		{ "-x: unknown option (see --help)", { "--nodes", "2", "-xq" } },
		{ "-x: unknown option (see --help)", { "--check", "-xq" } },
		{ "-x: unknown option (see --help)", { "--nodes=2", "-xq" } },
		{ "-x: unknown option (see --help)", { "-x" } },
		{ "-x: unknown option (see --help)", { "--port", "a", "operand", "-xq" } },
		{ "-x: unknown option (see --help)", { "operand", "-x" } },
		{ "--bogus: unknown option (see --help)", { "--nodes", "2", "--bogus=3" } },
		{ "--nodes needs a value (see --help)", { "--port", "a", "--nodes" } },
		{ "--check takes no value (see --help)", { "--check=yes" } },
	};
	char err[160];

	t_refused(cases, sizeof(cases) / sizeof(cases[0]));
	cr_assert_eq(t_parse((char *[]){ "-l", "0", NULL }, true, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "-l: unknown option (see --help; EAL arguments go before --)");
}

/*
 * getopt_long takes any unique prefix of a long option; dp_opt_next does
 * not: a prefix may mean another option in another tool (segnet-replay's
 * --key-file, segnet-ping's --key), and a new option makes it ambiguous.
 */
Test(opts, a_long_option_is_refused_by_a_shorter_name)
{
	const struct t_refusal cases[] = {
		{ "--nod: give the whole name, --nodes (see --help)", { "--nod", "2" } },
		{ "--nod: give the whole name, --nodes (see --help)", { "--nod=2" } },
		{ "--po: give the whole name, --port (see --help)", { "--port", "a", "--po", "b" } },
		{ "--che: give the whole name, --check (see --help)", { "--nodes", "2", "--che" } },
		{ "--he: give the whole name, --help (see --help)", { "--he" } },
	};
	char err[160];

	t_refused(cases, sizeof(cases) / sizeof(cases[0]));
	/* A value that looks like a shorter name is a value, given with '='. */
	cr_assert_eq(t_parse((char *[]){ "--nodes", "2", "--name=n", "--port=--che", NULL },
			     false, err, sizeof(err)), 0, "%s", err);
}

/*
 * "--key-file --server": the file name was forgotten. The next word is an
 * option, not the value: refused as a missing value, naming the option
 * that needs it (not "--server: No such file"). A negative number is a value.
 */
Test(opts, a_value_that_is_an_option_is_a_missing_value)
{
	const struct t_refusal cases[] = {
		{ "--port needs a value (see --help): --check is an option (a value that starts with -- goes as --port=VALUE)",
		  { "--port", "--check" } },
		{ "--name needs a value (see --help): --nodes is an option (a value that starts with -- goes as --name=VALUE)",
		  { "--name", "--nodes", "2" } },
		{ "--port needs a value (see --help): --bogus is an option (a value that starts with -- goes as --port=VALUE)",
		  { "--nodes", "2", "--port", "--bogus" } },
	};
	char err[200];

	t_refused(cases, sizeof(cases) / sizeof(cases[0]));
	cr_assert_eq(t_parse((char *[]){ "--name", "-1", "--port", "-", NULL }, false, err,
			     sizeof(err)), 0, "%s", err);
	cr_assert_eq(t_parse((char *[]){ "--name", "--", NULL }, false, err, sizeof(err)), 0,
		     "%s", err);
}

Test(opts, an_option_that_is_not_a_list_is_refused_the_second_time)
{
	char *argv[] = { "prog", "--port", "a", "op", "--nodes", "2", "--port=b", "--name", "x",
			 "--port", "c" };
	int want[] = { T_PORT, T_NODES, T_PORT, T_NAME, T_PORT };
	const struct t_refusal cases[] = {
		{ "--nodes given twice: give it once (see --help)", { "--nodes", "2", "--nodes", "3" } },
		{ "--name given twice: give it once (see --help)",
		  { "--name=a", "--port", "p", "--name", "b" } },
		{ "--check given twice: give it once (see --help)", { "--check", "--check" } },
	};
	struct dp_opt_parser p;
	char err[160];

	dp_opt_start(&p, t_opts, t_lists, false);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert_eq(dp_opt_next(&p, 11, argv, err, sizeof(err)), want[i], "option %zu", i);
	cr_assert_eq(dp_opt_next(&p, 11, argv, err, sizeof(err)), 0);
	cr_assert_str_eq(argv[optind], "op", "the operand is left at optind");
	t_refused(cases, sizeof(cases) / sizeof(cases[0]));
}

Test(opts, one_of_a_group_is_taken_and_a_second_one_is_refused_by_name)
{
	static const int group[] = { T_NAME, T_CHECK, 0 };
	static const int *const groups[] = { group, NULL };
	char *one[] = { "prog", "--check", "--nodes", "2" };
	char *two[] = { "prog", "--name", "a", "--nodes", "2", "--check" };
	struct dp_opt_parser p;
	char err[160];
	int c;

	dp_opt_start(&p, t_opts, t_lists, false);
	p.groups = groups;
	while ((c = dp_opt_next(&p, 4, one, err, sizeof(err))) > 0)
		;
	cr_assert_eq(c, 0, "%s", err);
	dp_opt_start(&p, t_opts, t_lists, false);
	cr_assert_null(p.groups, "a new parse keeps the groups of the last");
	p.groups = groups;
	while ((c = dp_opt_next(&p, 6, two, err, sizeof(err))) > 0)
		;
	cr_assert_eq(c, -EINVAL);
	cr_assert_str_eq(err, "--name and --check do not go together: give one of --name, --check (see --help)");
}

Test(opts, an_option_without_effect_is_refused_by_its_name_only_when_given)
{
	static const int idle[] = { T_NAME, T_CHECK, 0 };
	char *argv[] = { "prog", "--nodes", "2", "--check", "--port", "a" };
	struct dp_opt_parser p;
	char err[160] = "";
	int c;

	dp_opt_start(&p, t_opts, t_lists, false);
	while ((c = dp_opt_next(&p, 6, argv, err, sizeof(err))) > 0)
		;
	cr_assert_eq(c, 0, "%s", err);
	cr_assert(dp_opt_given(&p, T_NODES));
	cr_assert(dp_opt_given(&p, T_CHECK));
	cr_assert_not(dp_opt_given(&p, T_NAME));
	cr_assert_eq(dp_opt_refuse_given(&p, idle, "has no effect here", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--check has no effect here (see --help)");
	cr_assert_eq(dp_opt_refuse_given(&p, (const int[]){ T_NAME, 0 }, "x", err, sizeof(err)), 0);
}

Test(opts, a_parse_starts_afresh_after_one_that_stopped_inside_a_cluster)
{
	char err[160];

	cr_assert_eq(t_parse((char *[]){ "-xq", NULL }, false, err, sizeof(err)), -EINVAL);
	cr_assert_eq(t_parse((char *[]){ "--nodes", "2", NULL }, false, err, sizeof(err)), 0,
		     "%s", err);
}

Test(opts, an_output_file_is_checked_by_opening_it)
{
	char dir[] = "/tmp/test_dp_opts-XXXXXX", path[64], err[256];
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/new.csv", dir);
	cr_assert_eq(dp_opt_output("--csv", path, err, sizeof(err)), 0, "%s", err);
	cr_assert_neq(access(path, F_OK), 0, "the file made for the check is left");
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("kept", f);
	fclose(f);
	cr_assert_eq(dp_opt_output("--csv", path, err, sizeof(err)), 0, "%s", err);
	f = fopen(path, "r");
	cr_assert_eq(fgetc(f), 'k', "an existing file was truncated");
	fclose(f);
	unlink(path);
	cr_assert_eq(dp_opt_output("--plot", dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "--plot"), "%s", err);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(dp_opt_output("--json", path, err, sizeof(err)), 0,
		     "a FIFO without a reader yet: %s", err);
	unlink(path);
	snprintf(path, sizeof(path), "%s/no/such.csv", dir);
	cr_assert_eq(dp_opt_output("--csv", path, err, sizeof(err)), -EINVAL);
	rmdir(dir);
}
