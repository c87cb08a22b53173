/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segnet-replay: send the records of a pcap/pcapng trace on the schedule
 * of pcap/timing.h. The tool is three parts:
 *
 *   - its options (replay_opts.c), checked before the EAL starts;
 *   - the sender loop (replay_loop.c): timing_next, wait on an injected
 *     clock, hand the record to the mode, account the departure. No DPDK:
 *     tests run it on a simulated clock;
 *   - the modes (replay_modes.c): a table of what to do with a record.
 *     "frames" sends the raw frames out of a DPDK port
 *     (replay_frames.c); "messages" sends each record as a segnet message
 *     between the nodes of a cluster through nicd's libsegnet and receives
 *     it there (replay_messages.c, on the plan of replay_plan.c). A mode
 *     is one file and one table line.
 *
 * doc/man/segnet-replay.1 and doc/replay.md document the tool.
 */
#ifndef SEGNET_PCAP_REPLAY_H
#define SEGNET_PCAP_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcap/reader.h"
#include "pcap/replay/replay_plan.h"
#include "pcap/replay_stats.h"
#include "pcap/timing.h"
#include "pcap/waiter.h"

/* Exit statuses (doc/man/segnet-replay.1, EXIT STATUS). */
enum replay_exit {
	REPLAY_EXIT_OK = 0,	/* every record handed out was sent */
	REPLAY_EXIT_FAIL = 1,	/* trace refused, port or mode failed, frames not sent */
	REPLAY_EXIT_USAGE = 2,	/* bad arguments */
	REPLAY_EXIT_SIGNAL = 128,	/* + the signal (SIGINT, SIGTERM) that stopped it early */
};

/* LINKTYPE_ETHERNET: the only link type the modes read. */
enum { REPLAY_LINKTYPE_ETHERNET = 1 };

/* Limits of the options. */
enum {
	REPLAY_BURST_MAX = 64,		/* --burst at most */
	REPLAY_BURST_DEFAULT = 32,	/* --burst default on a paced schedule */
	REPLAY_BURST_TOPSPEED = 2,	/* --burst default at --topspeed */
	REPLAY_CATCHUP_NS = 20000,	/* paced: late by more, frames share a call */
	REPLAY_LINK_WAIT_DEFAULT = 5000,	/* --link-wait-ms */
	REPLAY_DRAIN_DEFAULT = 5000,	/* --drain-ms */
	REPLAY_VNET_DEFAULT = 1,	/* --vnet */
};

/* segnet-replay's own options (the arguments after "--"). */
struct replay_opts {
	/* --mode: name of an entry of the mode table */
	const char *mode;
	/* --port: the ethdev of frames mode */
	const char *port;
	/* the trace to replay */
	const char *file;
	/* --check: read and validate the trace, send nothing */
	bool check;
	/* --multiplier, --pps, --mbps, --topspeed, --loop, --limit, --duration, --overhead */
	struct timing_opts timing;
	/* --csv FILE: the report as CSV, or NULL */
	const char *csv;
	/* --json FILE: the report as JSON, or NULL */
	const char *json;
	/* --burst: records per transmit call at most */
	unsigned int burst;
	/* --spin-us in ns: busy-wait window before each due time */
	uint64_t spin_ns;
	/* --link-wait-ms: wait this long for the port's link (messages: the joins) */
	uint32_t link_wait_ms;
	/* messages mode: --nicd, in node order */
	const char *nicd[REPLAY_NODES_MAX];
	/* how many --nicd */
	unsigned int n_nicd;
	/* messages mode: --lab DIR, the directory of a lab.sh lab, or NULL */
	const char *lab;
	/* messages mode: --vnet */
	uint16_t vnet;
	/* messages mode: --key-file, or NULL (from the lab) */
	const char *key_file;
	/* messages mode: --map (hash, mac, ip or a file) */
	const char *map;
	/* messages mode: --channel */
	enum replay_chan_choice channel;
	/* messages mode: --quick-max */
	uint32_t quick_max;
	/* messages mode: --latency-csv FILE, or NULL */
	const char *latency_csv;
	/* messages mode: --drain-ms */
	uint32_t drain_ms;
	/* the first messages-mode option given (frames mode refuses it), or NULL */
	const char *msg_opt;
};

/*
 * Parse segnet-replay's arguments (argv[0] is the program name). 0 when
 * they are good, 1 after printing --help, -EINVAL with a message naming
 * the argument in err. Needs no EAL.
 */
int replay_opts_parse(struct replay_opts *o, int argc, char **argv, char *err,
		      size_t errlen);

/* Print the usage text. */
void replay_opts_usage(FILE *f, const char *prog);

/*
 * How late (ns) a due record must be to join the transmit call of the one
 * before it: 0 at top speed (every due record), REPLAY_CATCHUP_NS on a paced
 * schedule, so that a sender on time sends one record per call (keeping the
 * spacing) and one far behind (preempted) catches up in bursts.
 */
uint64_t replay_opts_catchup_ns(const struct replay_opts *o);

/*
 * A gap this long or longer between two looks at a port or an endpoint
 * that takes nothing (two transmit or send calls) counts as this long
 * toward a stall time-out, or frames mode's wait before it closes the port
 * (ns): the replay did not run then (preempted, the machine paused), and
 * whatever drains the queue (a port's peer, nicd) may not have either, so
 * it gets the time-out while the replay can see it act. Above a
 * scheduler's time slice, far below the time-outs.
 */
#define REPLAY_GAP_NS (10ull * 1000 * 1000)

/*
 * A mode watching a port or an endpoint that takes nothing, for its stall
 * time-out in watched time (struct dp_watch, gaps counting up to
 * REPLAY_GAP_NS): frames mode's transmit queue, messages mode's send
 * buffers.
 */
struct replay_stall {
	/* the time watched so far */
	struct dp_watch w;
	/* the stall time-out, ns of watched time */
	uint64_t timeout_ns;
};

/* Start watching at clock reading now_ns (the first look), for a time-out of timeout_ns. */
void replay_stall_start(struct replay_stall *s, uint64_t now_ns, uint64_t timeout_ns);

/* A look at now_ns: true once the stall time-out of watched time has passed. */
bool replay_stall_over(struct replay_stall *s, uint64_t now_ns);

/* What the modes get at set-up. */
struct replay_env {
	/* the command line */
	const struct replay_opts *opts;
	/* the loaded trace; a mode may drop the records it will not send */
	struct trace *trace;
	/* the clock the loop waits on (for the modes' own time-outs) */
	const struct waiter_clock *clock;
	/* set by SIGINT/SIGTERM; may be NULL */
	const volatile sig_atomic_t *stop;
};

/* One way of replaying a record: an entry of the mode table. */
struct replay_mode {
	/* --mode name */
	const char *name;
	/* one line for --help */
	const char *help;
	/* why this build cannot run the mode, or NULL when it can */
	const char *unavailable;
	/* the mode needs no DPDK: no EAL, the system clock (CLOCK_MONOTONIC) */
	bool no_eal;
	/* Check the options the mode needs (before the EAL); 0 or -EINVAL. */
	int (*check)(const struct replay_opts *o, char *err, size_t errlen);
	/*
	 * Refuse a trace the mode cannot replay, once it is loaded (--check
	 * too): 0 or -errno with a message. NULL: any trace.
	 */
	int (*check_trace)(const struct trace *t, char *err, size_t errlen);
	/* Build the mode's state (EAL up); 0 or -errno with a message. */
	int (*setup)(const struct replay_env *env, void **state, char *err, size_t errlen);
	/*
	 * Queue one record for sending: 0, -EAGAIN when what is queued must be
	 * flushed first (the loop flushes, accounts it and offers rec again),
	 * or -errno (ends the replay). A mode never flushes on its own: the
	 * loop's departures would no longer match what was sent.
	 */
	int (*send)(void *state, const struct trace_rec *rec);
	/* Send what is queued, in order; returns how many left (the rest are dropped). */
	unsigned int (*flush)(void *state);
	/* Print the mode's own lines of the report (port counters ...). */
	void (*report)(void *state, FILE *f);
	/*
	 * Records not sent, or failed, so far (frames dropped or too short or
	 * too long for the port, messages dropped or not delivered): not 0
	 * makes the exit status 1.
	 */
	uint64_t (*dropped)(void *state);
	/* Release the state (NULL is allowed). */
	void (*teardown)(void *state);
	/*
	 * Put the mode's background work (receiving) into the waits of the loop:
	 * may replace c's sleep and relax, keeping its clock. NULL: none.
	 */
	void (*adapt_clock)(void *state, struct waiter_clock *c);
	/* After the loop: wait, bounded, for what is still under way. NULL: none. */
	void (*drain)(void *state);
	/*
	 * Write the CSV or JSON report with the mode's own fields, sum included;
	 * 0 or -EIO. NULL: the summary alone (replay_stats_print).
	 */
	int (*write_report)(void *state, const struct replay_summary *sum,
			    enum replay_stats_format fmt, FILE *f);
};

/* The mode called name, or NULL. */
const struct replay_mode *replay_mode_find(const char *name);

/* The mode table, NULL-terminated. */
const struct replay_mode *const *replay_mode_list(void);

/*
 * 0 when t is an Ethernet trace; else -EPROTONOSUPPORT with "link type N
 * (NAME, description) is not Ethernet (1): what" in err (trace_linktype_str).
 */
int replay_trace_ethernet(const struct trace *t, const char *what, char *err, size_t errlen);

/* How the sender loop runs. */
struct replay_loop_conf {
	/* the clock it waits on and reads departures from */
	struct waiter_clock clock;
	/* busy-wait window before a due time, ns */
	uint64_t spin_ns;
	/* records queued at most before a flush (1 .. REPLAY_BURST_MAX) */
	unsigned int burst;
	/* a due record joins the pending ones only when later than this (ns) */
	uint64_t catchup_ns;
	/* ends the replay when it becomes non-zero; may be NULL */
	const volatile sig_atomic_t *stop;
	/* longest sleep between two looks at *stop, ns (0: 100 ms) */
	uint64_t stop_check_ns;
};

/* What the sender loop did. */
struct replay_loop_result {
	/* records handed to the mode */
	uint64_t queued;
	/* records the mode sent */
	uint64_t sent;
	/* flushes (transmit calls of the mode) */
	uint64_t flushes;
	/* why the schedule stopped */
	enum timing_stop stop;
	/* *stop ended the replay early */
	bool interrupted;
	/* the mode's send failed with this -errno (0: never) */
	int error;
};

/*
 * Replay trace t on schedule s (anchored here at the clock's current
 * time) through mode m with state, on c's clock. Records already late by
 * more than c->catchup_ns when one is queued go out with it (up to c->burst
 * in one flush); every sent
 * record goes into st with its due time and its departure (the clock read
 * just before the flush that sent it). 0, or the mode's -errno.
 */
int replay_loop_run(struct timing_sched *s, const struct trace *t,
		    const struct replay_mode *m, void *state,
		    const struct replay_loop_conf *c, struct replay_stats *st,
		    struct replay_loop_result *res);

/* Timing options as the schedule of trace t needs them (lengths = caplen). */
struct timing_sched *replay_sched_new(const struct trace *t, const struct timing_opts *o);

#endif /* SEGNET_PCAP_REPLAY_H */
