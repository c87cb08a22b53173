/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What switchd and nicd do alike: the options both take (each one's name,
 * bounds, default, messages and --help lines here; one getopt_long loop
 * parses them with the daemon's own) and the start-up and exit steps that
 * do not depend on what the daemon polls. Only a daemon's main exits:
 * these return the exit status.
 */
#ifndef SEGNET_DP_DAEMON_H
#define SEGNET_DP_DAEMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/dp_fault.h"
#include "dataplane/dp_opts.h"

/* Exit statuses of the daemons (their man pages, EXIT STATUS). */
enum dp_daemon_exit {
	DP_DAEMON_EXIT_OK = 0,		/* clean stop, every mbuf back in its pool */
	DP_DAEMON_EXIT_FAIL = 1,	/* failure at run time: port, link, socket, leak */
	DP_DAEMON_EXIT_USAGE = 2,	/* bad arguments, unknown ethdev */
};

/* getopt_long vals of the shared options: past a daemon's own (from 256). */
enum dp_daemon_opt {
	DP_DAEMON_OPT_IDLE_SLEEP_US = 4096,
	DP_DAEMON_OPT_IDLE_AFTER_US,
	DP_DAEMON_OPT_CORE,
	DP_DAEMON_OPT_STATS_INTERVAL,
	DP_DAEMON_OPT_LINK_WAIT_MS,
	DP_DAEMON_OPT_CHECK_CRC,
	DP_DAEMON_OPT_CONTROL_QUEUE,
	DP_DAEMON_OPT_CAPTURE,
	DP_DAEMON_OPT_CAPTURE_MAX_MB,
	DP_DAEMON_OPT_CAPTURE_MAX_PACKETS,
	DP_DAEMON_OPT_FAULT,
	DP_DAEMON_OPT_CHECK,
};

/* The shared options' getopt_long entries and --help's: a daemon's table ends with them. */
#define DP_DAEMON_LONG_OPTS \
	{ "idle-sleep-us", required_argument, NULL, DP_DAEMON_OPT_IDLE_SLEEP_US }, \
	{ "idle-after-us", required_argument, NULL, DP_DAEMON_OPT_IDLE_AFTER_US }, \
	{ "core", required_argument, NULL, DP_DAEMON_OPT_CORE }, \
	{ "stats-interval", required_argument, NULL, DP_DAEMON_OPT_STATS_INTERVAL }, \
	{ "link-wait-ms", required_argument, NULL, DP_DAEMON_OPT_LINK_WAIT_MS }, \
	{ "check-crc", required_argument, NULL, DP_DAEMON_OPT_CHECK_CRC }, \
	{ "control-queue", required_argument, NULL, DP_DAEMON_OPT_CONTROL_QUEUE }, \
	{ "capture", required_argument, NULL, DP_DAEMON_OPT_CAPTURE }, \
	{ "capture-max-mb", required_argument, NULL, DP_DAEMON_OPT_CAPTURE_MAX_MB }, \
	{ "capture-max-packets", required_argument, NULL, DP_DAEMON_OPT_CAPTURE_MAX_PACKETS }, \
	{ "fault", required_argument, NULL, DP_DAEMON_OPT_FAULT }, \
	{ "check", no_argument, NULL, DP_DAEMON_OPT_CHECK }, \
	{ "help", no_argument, NULL, 'h' }

/*
 * The --help lines of the shared options that read the same in both
 * daemons (what differs, the daemon says itself: --idle-sleep-us,
 * --stats-interval, --link-wait-ms, --control-queue).
 */
/* --idle-after-us, with the daemon's default (a string). */
#define DP_DAEMON_IDLE_AFTER_USAGE(dflt) \
	"  --idle-after-us US      poll this long without work before sleeping\n" \
	"                          (default " dflt "; 0 = busy polling, no back-off)\n"
#define DP_DAEMON_CORE_USAGE \
	"  --core C                pin the polling thread to CPU C\n"
#define DP_DAEMON_CHECK_CRC_USAGE \
	"  --check-crc on|off      verify CRC32C of received frames (default on)\n"
/* --capture to --help: which ports the capture sees ("port", "port of every node"). */
#define DP_DAEMON_CAPTURE_USAGE(ports) \
	"  --capture FILE.pcap     write every frame received and sent on every\n" \
	"                          " ports " into FILE.pcap (nanosecond pcap)\n" \
	"  --capture-max-mb M      stop capturing before the file passes M MB\n" \
	"                          (10^6 bytes; default 0: no bound)\n" \
	"  --capture-max-packets N stop capturing after N frames (default 0: no bound)\n" \
	DP_FAULT_USAGE \
	DP_CHECK_USAGE \
	"  --help                  this text\n"

/* The values of the shared options, in a daemon's own. */
struct dp_daemon_opts {
	bool check;			/* --check: check the arguments and exit */
	uint32_t idle_sleep_us;		/* --idle-sleep-us */
	uint32_t idle_after_us;		/* --idle-after-us (0 = busy polling) */
	int core;			/* --core, -1 when not given */
	double stats_interval;		/* --stats-interval in s (0 = off) */
	uint32_t link_wait_ms;		/* --link-wait-ms (0 = don't wait) */
	bool check_crc;			/* --check-crc */
	bool control_queue;		/* --control-queue: queue 1 of a one-device
					 * node carries control frames */
	const char *capture;		/* --capture: pcap of every port, or NULL */
	uint64_t capture_max_bytes;	/* --capture-max-mb in bytes (0 = no bound) */
	uint64_t capture_max_packets;	/* --capture-max-packets (0 = no bound) */
	struct dp_fault_params fault;	/* --fault on every port (all zero: none) */
	uint64_t fault_seed;		/* its seed= (default 1) */
};

/* The defaults the man pages document; --idle-after-us's is the daemon's. */
void dp_daemon_opts_defaults(struct dp_daemon_opts *o, uint32_t idle_after_us);

/*
 * Parse argv with p (started on a table that ends in DP_DAEMON_LONG_OPTS):
 * the shared options into o, each of the daemon's own through own(ctx, its
 * val, its value), which returns 0 or -EINVAL with a message. 1 at --help
 * (the caller prints its usage), 0 when every option is good and no
 * operand is left, or -EINVAL with a message in err.
 */
int dp_daemon_opts_parse(struct dp_daemon_opts *o, struct dp_opt_parser *p, int argc,
			 char **argv,
			 int (*own)(void *ctx, int c, const char *arg, char *err, size_t errlen),
			 void *ctx, char *err, size_t errlen);

/*
 * The shared options' checks across options once all are parsed: a capture
 * bound needs --capture, and its file must be one the run can write.
 */
int dp_daemon_opts_check(const struct dp_daemon_opts *o, char *err, size_t errlen);

/* Refuse --idle-sleep-us with --idle-after-us 0 (p: the parse): it has no effect. */
int dp_daemon_opts_check_effect(const struct dp_daemon_opts *o,
				const struct dp_opt_parser *p, char *err, size_t errlen);

/*
 * After the parse (rc and err from it): -1 to go on, or the exit status
 * after saying why: 0 after --help or a --check that passed, 2 after the
 * message for bad arguments (on stderr, prog first).
 */
int dp_daemon_args_status(const char *prog, int rc, const char *err, bool check);

/*
 * Start the EAL on argv's first argc arguments: 0, or the exit status (2
 * when its arguments are at fault, else 1) after the message on stderr.
 */
int dp_daemon_eal_init(const char *prog, int argc, char **argv);

/* Pin the polling thread to --core if given and say where it polls; 0 or -EINVAL. */
int dp_daemon_place(const char *prog, int core);

/* Say what --fault injects, if anything. */
void dp_daemon_fault_announce(const char *prog, const struct dp_daemon_opts *o);

/*
 * At exit: say whether mbufs leaked (missing of them), flush stdout and
 * return the exit status, 1 when any leaked or failed (a capture write) is
 * true.
 */
int dp_daemon_exit_status(const char *prog, unsigned int missing, bool failed);

#endif
