/* SPDX-License-Identifier: BSD-3-Clause */
/* What switchd and nicd do alike: shared options, start-up and exit steps. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "dataplane/dp_daemon.h"
#include "dataplane/dp_eal.h"

void dp_daemon_opts_defaults(struct dp_daemon_opts *o, uint32_t idle_after_us)
{
	memset(o, 0, sizeof(*o));
	o->idle_sleep_us = 100;
	o->idle_after_us = idle_after_us;
	o->core = -1;
	o->check_crc = true;
	o->control_queue = true;
	o->fault_seed = 1;
}

/* Parse shared option c's value arg into o. */
static int dp_daemon_opt(struct dp_daemon_opts *o, int c, const char *arg, char *err,
			 size_t errlen)
{
	unsigned long v = 0;
	int rc;

	switch (c) {
	case DP_DAEMON_OPT_IDLE_SLEEP_US:
		return dp_opt_u32("--idle-sleep-us", arg, 0, 1000000, &o->idle_sleep_us, err, errlen);
	case DP_DAEMON_OPT_IDLE_AFTER_US:
		return dp_opt_u32("--idle-after-us", arg, 0, 60000000, &o->idle_after_us, err, errlen);
	case DP_DAEMON_OPT_CORE:
		rc = dp_opt_ulong("--core", arg, 0, CPU_SETSIZE - 1, &v, err, errlen);
		o->core = (int)v;
		return rc;
	case DP_DAEMON_OPT_STATS_INTERVAL:
		return dp_opt_period("--stats-interval", arg, 86400, &o->stats_interval, err, errlen);
	case DP_DAEMON_OPT_LINK_WAIT_MS:
		return dp_opt_u32("--link-wait-ms", arg, 0, 600000, &o->link_wait_ms, err, errlen);
	case DP_DAEMON_OPT_CHECK_CRC:
		return dp_opt_choice("--check-crc", arg, "on", "off", &o->check_crc, err, errlen);
	case DP_DAEMON_OPT_CONTROL_QUEUE:
		return dp_opt_choice("--control-queue", arg, "on", "off", &o->control_queue, err,
				     errlen);
	case DP_DAEMON_OPT_CAPTURE:
		if (!*arg)
			return dp_opt_fail(err, errlen, "--capture needs a file name");
		o->capture = arg;
		return 0;
	case DP_DAEMON_OPT_CAPTURE_MAX_MB:
		rc = dp_opt_ulong("--capture-max-mb", arg, 0, 1000000000, &v, err, errlen);
		o->capture_max_bytes = (uint64_t)v * 1000000;
		return rc;
	case DP_DAEMON_OPT_CAPTURE_MAX_PACKETS:
		rc = dp_opt_ulong("--capture-max-packets", arg, 0, ULONG_MAX, &v, err, errlen);
		o->capture_max_packets = v;
		return rc;
	case DP_DAEMON_OPT_FAULT:
		return dp_fault_option(arg, &o->fault, &o->fault_seed, err, errlen);
	case DP_DAEMON_OPT_CHECK:
		o->check = true;
		return 0;
	}
	return dp_opt_fail(err, errlen, "unknown option (see --help)");
}

int dp_daemon_opts_parse(struct dp_daemon_opts *o, struct dp_opt_parser *p, int argc,
			 char **argv,
			 int (*own)(void *ctx, int c, const char *arg, char *err, size_t errlen),
			 void *ctx, char *err, size_t errlen)
{
	int c = 0, rc = 0;

	while (!rc && (c = dp_opt_next(p, argc, argv, err, errlen)) > 0) {
		if (c == 'h')
			return 1;
		rc = c >= DP_DAEMON_OPT_IDLE_SLEEP_US ? dp_daemon_opt(o, c, optarg, err, errlen) :
			own(ctx, c, optarg, err, errlen);
	}
	if (c < 0)
		return c;
	if (!rc && optind < argc)
		rc = dp_opt_fail(err, errlen, "unexpected argument %s (see --help)", argv[optind]);
	return rc;
}

int dp_daemon_opts_check(const struct dp_daemon_opts *o, char *err, size_t errlen)
{
	if (!o->capture && (o->capture_max_bytes || o->capture_max_packets))
		return dp_opt_fail(err, errlen, "--capture-max-%s needs --capture FILE",
				   o->capture_max_bytes ? "mb" : "packets");
	/* A file the run could not open is an argument error, found by --check too. */
	if (o->capture && dp_opt_output("--capture", o->capture, err, errlen))
		return -EINVAL;
	return 0;
}

int dp_daemon_opts_check_effect(const struct dp_daemon_opts *o,
				const struct dp_opt_parser *p, char *err, size_t errlen)
{
	if (o->idle_after_us)
		return 0;
	return dp_opt_refuse_given(p, (const int[]){ DP_DAEMON_OPT_IDLE_SLEEP_US, 0 },
				   "has no effect with --idle-after-us 0 (busy polling never sleeps)",
				   err, errlen);
}

int dp_daemon_args_status(const char *prog, int rc, const char *err, bool check)
{
	if (rc == 1)
		return DP_DAEMON_EXIT_OK;
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return DP_DAEMON_EXIT_USAGE;
	}
	if (check) {
		printf("%s: arguments ok (--check: nothing started)\n", prog);
		return DP_DAEMON_EXIT_OK;
	}
	return -1;
}

int dp_daemon_eal_init(const char *prog, int argc, char **argv)
{
	char err[512] = "";
	int rc = dp_eal_init(argc, argv, err, sizeof(err));

	if (rc >= 0)
		return 0;
	fprintf(stderr, "%s: %s (EAL arguments, before --)\n", prog, err);
	return dp_eal_bad_args(rc) ? DP_DAEMON_EXIT_USAGE : DP_DAEMON_EXIT_FAIL;
}

int dp_daemon_place(const char *prog, int core)
{
	char err[256];
	int cpu;

	if (core >= 0 && dp_pin_to_core(core, err, sizeof(err))) {
		fprintf(stderr, "%s: --core %d: %s\n", prog, core, err);
		return -EINVAL;
	}
	cpu = sched_getcpu();
	printf("%s: polling on CPU %d (NUMA node %d), %s\n", prog, cpu, dp_core_socket(cpu),
	       core >= 0 ? "pinned by --core" : "EAL main lcore placement (-l / --lcores)");
	return 0;
}

void dp_daemon_fault_announce(const char *prog, const struct dp_daemon_opts *o)
{
	char spec[160];

	if (!dp_fault_active(&o->fault))
		return;
	dp_fault_format(&o->fault, spec, sizeof(spec));
	printf("%s: fault injection on every frame sent: %s (seed %llu)\n", prog, spec,
	       (unsigned long long)o->fault_seed);
}

int dp_daemon_exit_status(const char *prog, unsigned int missing, bool failed)
{
	if (missing)
		printf("%s: %u mbufs leaked\n", prog, missing);
	else
		printf("%s: no mbuf leaked\n", prog);
	fflush(stdout);
	return missing || failed ? DP_DAEMON_EXIT_FAIL : DP_DAEMON_EXIT_OK;
}
