/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the segnet tools share: number parsing with messages that name the
 * option, the clock, latency statistics, the endpoint options (--nicd,
 * --vnet, --key-file) and the message hash. No DPDK.
 */
#ifndef SEGNET_TOOL_UTIL_H
#define SEGNET_TOOL_UTIL_H

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/dp_opts.h"
#include "nicd/segnet.h"

/* Exit statuses of the tools. */
enum tool_exit {
	TOOL_EXIT_OK = 0,	/* did what was asked */
	TOOL_EXIT_FAIL = 1,	/* failed at run time (no nicd, no reply, ...) */
	TOOL_EXIT_USAGE = 2,	/* bad arguments */
};

/* A tool's handler of one parsed option; false after printing why it is bad. */
typedef bool (*tool_option_fn)(void *opts, int c, const char *arg);

/*
 * Run getopt_long over argv with longopts (dp_opt_next), calling option for
 * every option; lists (vals ending in 0, or NULL) may repeat, any other
 * option is refused the second time, and so is one of groups (sets of
 * which one may be given, struct dp_opt_parser; or NULL) after another of
 * its set; usage prints --help. Returns 0 when every argument was taken, 1
 * after --help, 2 after a bad argument (with a message naming it). The
 * parser is left in *parsed (NULL: not wanted): which options were given.
 */
int tool_getopt(const char *prog, int argc, char **argv, const struct option *longopts,
		const int *lists, const int *const *groups, void (*usage)(FILE *f),
		tool_option_fn option, void *opts, struct dp_opt_parser *parsed);

/*
 * Refuse the first option of vals (getopt_long vals ending in 0) that
 * tool_getopt saw, with "PROG: --NAME WHY" on stderr: an option without
 * effect with the others given. True when none of them was given.
 */
bool tool_refuse_given(const char *prog, const struct dp_opt_parser *parsed, const int *vals,
		       const char *why);

/* Set by SIGINT and SIGTERM once tool_signals() ran. */
extern volatile sig_atomic_t tool_stop;

/* Install SIGINT/SIGTERM handlers that set tool_stop (no SA_RESTART). */
void tool_signals(void);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tool_now_ns(void);

/* Parse an unsigned decimal in [min, max]; false after printing why. */
bool tool_parse_u64(const char *prog, const char *opt, const char *arg, uint64_t min,
		    uint64_t max, uint64_t *out);

/* Parse a number of seconds (or ms, ...) in [min, max]; false after printing why. */
bool tool_parse_double(const char *prog, const char *opt, const char *arg, double min,
		       double max, double *out);

/* How to reach an endpoint: --nicd, --vnet, --key-file / --key. */
struct tool_ep_opts {
	const char *nicd;		/* control socket name or path */
	uint16_t vnet;			/* virtual network */
	uint8_t key[SEGNET_MAX_KEY];	/* its key */
	int key_len;			/* 0: not given */
};

/*
 * Handle an endpoint option (c is the getopt_long value of --nicd = 'n',
 * --vnet = 'v', --key-file = 'k', --key = 'K'); 1 when it was one, 0 when
 * not, -1 after printing an error.
 */
int tool_ep_option(const char *prog, struct tool_ep_opts *o, int c, const char *arg);

/* --key-file and --key (vals 'k', 'K'): a group of tool_getopt, one of them. */
extern const int tool_key_group[];

/* Open the endpoint; NULL after printing why. */
struct segnet_ep *tool_ep_open(const char *prog, const struct tool_ep_opts *o,
			       const struct segnet_open_opts *oo);

/*
 * True when dst_ep (the --ep a client sends to) is an endpoint id the
 * endpoint's nicd addresses; false after printing the ids it does.
 */
bool tool_check_ep(const char *prog, const struct segnet_ep *ep, unsigned int dst_ep);

/*
 * Wait until the endpoint's NIC joined a cluster (cluster size > 0), for at
 * most ms, and check that node (the --node a client sends to) is in it;
 * false (after printing why) on timeout, a signal, nicd's end or a node
 * outside the cluster.
 */
bool tool_wait_joined(const char *prog, struct segnet_ep *ep, uint32_t ms, long node);

/*
 * Where a server serves, for its banner: "node N endpoint E (vnet V)", or,
 * before its NIC joined (it has no node id yet), "endpoint E (vnet V) of a
 * node that has not joined a cluster yet". Returns buf.
 */
const char *tool_ep_where(const struct segnet_ep *ep, unsigned int vnet, char *buf,
			  size_t len);

/*
 * part of whole in percent, with as many decimals as it takes never to
 * print 0 for a share above none or 100 for one below all ("0.05" for 1 of
 * 1900); "0" when whole is 0. Returns buf.
 */
const char *tool_percent(uint64_t part, uint64_t whole, char *buf, size_t len);

/* Latency samples in nanoseconds. */
struct tool_samples {
	uint64_t *v;	/* samples */
	size_t n;	/* used */
	size_t cap;	/* allocated */
};

/* Add a sample (dropped when memory runs out). */
void tool_samples_add(struct tool_samples *s, uint64_t ns);

/* Summary of samples, in microseconds. */
struct tool_lat {
	double min, mean, p50, p99, max;	/* us */
};

/* Compute the summary (sorts the samples); zeros when empty. */
struct tool_lat tool_samples_stats(struct tool_samples *s);

/* Free the samples. */
void tool_samples_free(struct tool_samples *s);

/* A 64-bit hash (FNV-1a on 8-byte words, mixed) of seq and len bytes of data. */
uint64_t tool_msg_hash(uint64_t seq, const void *data, size_t len);

/* Fill len bytes with the test pattern of message seq. */
void tool_pattern(uint64_t seq, void *data, size_t len);

/* True when len bytes of data are the test pattern of message seq. */
bool tool_pattern_ok(uint64_t seq, const void *data, size_t len);

#endif
