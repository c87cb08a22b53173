/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The options switchd and nicd share (dataplane/dp_daemon.h): defaults,
 * each one parsed by its id with its bounds and message, the daemon's own
 * options handed to it, the checks across them, and what a parse result
 * means for the exit status. No EAL.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <criterion/criterion.h>

#include "dataplane/dp_daemon.h"

/* A daemon's own options beside the shared ones: one value, one list. */
enum { T_NAME = 256, T_PORT };

/* Its table: its own, then the shared ones. */
static const struct option t_opts[] = {
	{ "name", required_argument, NULL, T_NAME },
	{ "port", required_argument, NULL, T_PORT },
	DP_DAEMON_LONG_OPTS,
	{ NULL, 0, NULL, 0 },
};

/* The list among them. */
static const int t_lists[] = { T_PORT, 0 };

/* What the daemon's own options were given. */
struct t_own {
	const char *name;	/* --name */
	int ports;		/* --port given how often */
};

/* The daemon's handler of its own options; --name bad is refused. */
static int t_own_opt(void *ctx, int c, const char *arg, char *err, size_t errlen)
{
	struct t_own *own = ctx;

	if (c == T_PORT) {
		own->ports++;
		return 0;
	}
	cr_assert_eq(c, T_NAME, "option %d is not the daemon's own", c);
	if (!strcmp(arg, "bad"))
		return dp_opt_fail(err, errlen, "--name bad: refused");
	own->name = arg;
	return 0;
}

/* Parse args (NULL-terminated) with defaults of idle_after_us 50; the parse's result. */
static int t_parse(struct dp_daemon_opts *o, struct dp_opt_parser *p, struct t_own *own,
		   char **args, char *err, size_t errlen)
{
	char *argv[40] = { "prog" };
	int argc = 1;

	while (*args && argc < 39)
		argv[argc++] = *args++;
	cr_assert_null(*args, "more arguments than the test's argv holds");
	memset(own, 0, sizeof(*own));
	err[0] = '\0';
	dp_daemon_opts_defaults(o, 50);
	dp_opt_start(p, t_opts, t_lists, true);
	return dp_daemon_opts_parse(o, p, argc, argv, t_own_opt, own, err, errlen);
}

Test(daemon_opts, defaults_are_the_documented_ones)
{
	struct dp_daemon_opts o;

	dp_daemon_opts_defaults(&o, 200);
	cr_assert_eq(o.idle_after_us, 200, "the daemon's own default");
	cr_assert_eq(o.idle_sleep_us, 100);
	cr_assert_eq(o.core, -1);
	cr_assert_float_eq(o.stats_interval, 0, 0);
	cr_assert_eq(o.link_wait_ms, 0);
	cr_assert(o.check_crc && o.control_queue && !o.check);
	cr_assert_null(o.capture);
	cr_assert_eq(o.capture_max_bytes, 0);
	cr_assert_eq(o.capture_max_packets, 0);
	cr_assert(!dp_fault_active(&o.fault));
	cr_assert_eq(o.fault_seed, 1);
}

Test(daemon_opts, every_shared_option_is_stored_and_the_own_ones_go_to_the_daemon)
{
	char *args[] = { "--name", "n0", "--port", "a", "--idle-sleep-us", "7",
			 "--idle-after-us", "8", "--core", "3", "--stats-interval", "0.5",
			 "--link-wait-ms", "9", "--check-crc", "off", "--control-queue", "off",
			 "--capture", "x.pcap", "--capture-max-mb", "2",
			 "--capture-max-packets", "11", "--fault", "loss=0.5,seed=4", "--check",
			 "--port", "b", NULL };
	struct dp_daemon_opts o;
	struct dp_opt_parser p;
	struct t_own own;
	char err[256];

	cr_assert_eq(t_parse(&o, &p, &own, args, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(own.name, "n0");
	cr_assert_eq(own.ports, 2);
	cr_assert_eq(o.idle_sleep_us, 7);
	cr_assert_eq(o.idle_after_us, 8);
	cr_assert_eq(o.core, 3);
	cr_assert_float_eq(o.stats_interval, 0.5, 0);
	cr_assert_eq(o.link_wait_ms, 9);
	cr_assert(!o.check_crc && !o.control_queue && o.check);
	cr_assert_str_eq(o.capture, "x.pcap");
	cr_assert_eq(o.capture_max_bytes, 2000000, "--capture-max-mb counts 10^6 bytes");
	cr_assert_eq(o.capture_max_packets, 11);
	cr_assert(dp_fault_active(&o.fault));
	cr_assert_eq(o.fault_seed, 4);
}

/* A command line refused, and its message. */
struct t_refusal {
	const char *msg;	/* the message */
	char *args[8];		/* the arguments after the program name */
};

Test(daemon_opts, bad_values_are_refused_with_their_bounds)
{
	const struct t_refusal cases[] = {
		{ "--idle-sleep-us 1000001: must be between 0 and 1000000",
		  { "--idle-sleep-us", "1000001" } },
		{ "--idle-after-us 60000001: must be between 0 and 60000000",
		  { "--idle-after-us", "60000001" } },
		{ "--core 1024: must be between 0 and 1023", { "--core", "1024" } },
		{ "--core x: not a whole number from 0 to 1023", { "--core", "x" } },
		{ "--stats-interval 86401: must be between 0 and 86400",
		  { "--stats-interval", "86401" } },
		{ "--stats-interval 0.0005: must be 0 (off) or at least 0.001",
		  { "--stats-interval", "0.0005" } },
		{ "--link-wait-ms 600001: must be between 0 and 600000",
		  { "--link-wait-ms", "600001" } },
		{ "--check-crc maybe: must be on or off", { "--check-crc", "maybe" } },
		{ "--control-queue ON: must be on or off", { "--control-queue", "ON" } },
		{ "--capture needs a file name", { "--capture=" } },
		{ "--capture-max-mb 1000000001: must be between 0 and 1000000000",
		  { "--capture-max-mb", "1000000001" } },
		{ "--capture-max-packets -1: not a whole number from 0 to 18446744073709551615",
		  { "--capture-max-packets", "-1" } },
		{ "--fault loss=2: must be between 0 and 1", { "--fault", "loss=2" } },
		{ "--fault delay-us=1000001: must be between 0 and 1000000",
		  { "--fault", "delay-us=1000001" } },
		{ "--check given twice: give it once (see --help)", { "--check", "--check" } },
		{ "--core given twice: give it once (see --help)", { "--core", "1", "--core", "1" } },
		{ "--name bad: refused", { "--core", "1", "--name", "bad", "--core", "x" } },
		{ "unexpected argument extra (see --help)", { "--core", "1", "extra" } },
	};
	struct dp_daemon_opts o;
	struct dp_opt_parser p;
	struct t_own own;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(t_parse(&o, &p, &own, (char **)cases[i].args, err, sizeof(err)),
			     -EINVAL, "case %zu accepted", i);
		cr_assert_str_eq(err, cases[i].msg, "case %zu", i);
	}
}

Test(daemon_opts, help_stops_the_parse)
{
	char *args[] = { "--core", "1", "--help", "--core", "x", NULL };
	struct dp_daemon_opts o;
	struct dp_opt_parser p;
	struct t_own own;
	char err[256];

	cr_assert_eq(t_parse(&o, &p, &own, args, err, sizeof(err)), 1);
	cr_assert_eq(dp_daemon_args_status("prog", 1, err, false), DP_DAEMON_EXIT_OK);
}

Test(daemon_opts, checks_across_the_shared_options)
{
	char *bound[] = { "--capture-max-packets", "5", NULL };
	char *unwritable[] = { "--capture", "/nonexistent-dir/x.pcap", NULL };
	char *busy[] = { "--idle-sleep-us", "5", "--idle-after-us", "0", NULL };
	char *busy_default[] = { "--idle-after-us", "0", NULL };
	struct dp_daemon_opts o;
	struct dp_opt_parser p;
	struct t_own own;
	char err[256];

	cr_assert_eq(t_parse(&o, &p, &own, bound, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dp_daemon_opts_check(&o, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--capture-max-packets needs --capture FILE");
	cr_assert_eq(t_parse(&o, &p, &own, unwritable, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dp_daemon_opts_check(&o, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--capture /nonexistent-dir/x.pcap: cannot be written: No such file or directory");
	cr_assert_eq(t_parse(&o, &p, &own, busy, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dp_daemon_opts_check(&o, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dp_daemon_opts_check_effect(&o, &p, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--idle-sleep-us has no effect with --idle-after-us 0 (busy polling never sleeps) (see --help)");
	cr_assert_eq(dp_daemon_args_status("prog", -EINVAL, err, false), DP_DAEMON_EXIT_USAGE);
	cr_assert_eq(t_parse(&o, &p, &own, busy_default, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dp_daemon_opts_check_effect(&o, &p, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dp_daemon_args_status("prog", 0, err, false), -1, "no --check: go on");
}
