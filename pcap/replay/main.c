/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segnet-replay: replays a pcap/pcapng trace. It parses its arguments and
 * validates and loads the whole trace before the EAL starts (a bad command
 * line or a damaged trace fails at once, with nothing sent), then sets up
 * the mode, schedules the records the mode kept, runs the sender loop on
 * the TSC clock (CLOCK_MONOTONIC for a mode without the EAL), lets the
 * mode drain and prints the report; a replay a signal stopped early exits
 * 128 + the signal (130, 143). doc/man/segnet-replay.1 documents it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_pause.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_in_use.h"
#include "dataplane/dp_opts.h"
#include "pcap/replay/replay.h"

/* What main builds and runs. */
struct replay_main {
	/* the command line */
	struct replay_opts opts;
	/* the mode it names */
	const struct replay_mode *mode;
	/* the mode's state */
	void *state;
	/* the trace, in memory */
	struct trace *trace;
	/* records in the file (a mode may leave some out of the trace) */
	uint64_t file_records;
	/* its schedule */
	struct timing_sched *sched;
	/* departures */
	struct replay_stats *stats;
	/* the clock the loop waits on */
	struct waiter_clock clock;
	/* the EAL was started */
	bool eal;
};

/* The TSC in ns, as a waiter clock reading. */
static uint64_t replay_tsc_now(void *ctx)
{
	(void)ctx;
	return dp_tsc_ns();
}

/* One busy-wait step. */
static void replay_relax(void *ctx)
{
	(void)ctx;
	rte_pause();
}

/*
 * Parse the arguments after "--" (all of them without "--"). True when
 * main must exit (--help, bad arguments) with *status.
 */
static bool replay_parse_args(struct replay_main *r, const struct dp_args *a,
			      int *status)
{
	char err[512] = "";
	int rc = replay_opts_parse(&r->opts, a->own_argc, a->own, err, sizeof(err));

	*status = rc == 1 ? REPLAY_EXIT_OK : REPLAY_EXIT_USAGE;
	if (rc < 0)
		fprintf(stderr, "segnet-replay: %s\n", err);
	return rc != 0;
}

/*
 * Check that every report file named on the command line can be written,
 * before anything is sent; 0 or the exit status.
 */
static int replay_check_outputs(const struct replay_opts *o)
{
	const struct {
		const char *opt, *path;
	} out[] = {
		{ "--csv", o->csv }, { "--json", o->json }, { "--latency-csv", o->latency_csv },
	};
	char err[512];

	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		if (out[i].path && dp_opt_output(out[i].opt, out[i].path, err, sizeof(err))) {
			fprintf(stderr, "segnet-replay: %s (nothing sent)\n", err);
			return REPLAY_EXIT_USAGE;
		}
	}
	return 0;
}

/* Say why the EAL arguments (before "--") cannot be used (rc: -errno); the exit status. */
static int replay_eal_refused(int rc, const char *err)
{
	fprintf(stderr, "segnet-replay: %s (EAL arguments, before --)\n", err);
	return dp_eal_bad_args(rc) ? REPLAY_EXIT_USAGE : REPLAY_EXIT_FAIL;
}

/*
 * The EAL arguments, checked with the other arguments before the trace is
 * read: a mode that runs without the EAL takes none; for one that starts
 * it, a --vdev the EAL would refuse only once started (an af_packet
 * iface= naming no interface: dp_ethdev_vdev_check) and, when it will
 * start (not --check, which may run beside a lab on the same prefix), a
 * file prefix or server socket another process holds (dp_in_use_check,
 * which dp_eal_init runs again: the trace's read may be long). 0 or the
 * exit status.
 */
static int replay_check_eal_args(const struct replay_opts *o, int eal_argc, char **argv)
{
	const struct replay_mode *mode = replay_mode_find(o->mode);
	char err[512] = "";
	int rc;

	if (!mode->no_eal) {
		rc = dp_ethdev_vdev_check(eal_argc, argv, err, sizeof(err));
		if (!rc && !o->check)
			rc = dp_in_use_check(eal_argc, argv, err, sizeof(err));
		return rc ? replay_eal_refused(rc, err) : 0;
	}
	if (eal_argc <= 1)
		return 0;
	fprintf(stderr, "segnet-replay: --mode %s starts no EAL: give no arguments before -- (%s ...)\n",
		mode->name, argv[1]);
	return REPLAY_EXIT_USAGE;
}

/* Load the trace; 0 or the exit status. */
static int replay_load(struct replay_main *r)
{
	struct trace_err terr = { 0 };
	char err[512];

	r->mode = replay_mode_find(r->opts.mode);
	if (r->mode->unavailable) {
		fprintf(stderr, "segnet-replay: --mode %s: %s\n", r->mode->name,
			r->mode->unavailable);
		return REPLAY_EXIT_FAIL;
	}
	r->trace = trace_load(r->opts.file, &terr);
	if (r->trace == NULL) {
		fprintf(stderr, "segnet-replay: %s (nothing sent)\n", terr.msg);
		return REPLAY_EXIT_FAIL;
	}
	/* A trace the mode cannot read is refused here, by --check as by a replay. */
	if (r->mode->check_trace && r->mode->check_trace(r->trace, err, sizeof(err))) {
		fprintf(stderr, "segnet-replay: %s: %s (nothing sent)\n", r->opts.file, err);
		return REPLAY_EXIT_FAIL;
	}
	/* --check says a valid empty trace is valid; a replay has nothing to send. */
	if (r->trace->n == 0 && !r->opts.check) {
		fprintf(stderr, "segnet-replay: %s: no records (nothing sent)\n", r->opts.file);
		return REPLAY_EXIT_FAIL;
	}
	r->file_records = r->trace->n;
	return 0;
}

/*
 * Start the EAL on the arguments before "--", unless the mode runs
 * without it (replay_check_eal_args saw there are none); 0 or the exit
 * status.
 */
static int replay_start(struct replay_main *r, int eal_argc, char **argv)
{
	char err[512] = "";
	int rc;

	if (r->mode->no_eal)
		return 0;
	rc = dp_eal_init(eal_argc, argv, err, sizeof(err));
	if (rc < 0)
		return replay_eal_refused(rc, err);
	r->eal = true;
	return 0;
}

/* Set the mode up, then schedule what it kept; 0 or the exit status. */
static int replay_setup(struct replay_main *r)
{
	const struct waiter_clock *sys = waiter_clock_system();
	struct replay_env env = {
		.opts = &r->opts, .trace = r->trace, .clock = &r->clock, .stop = &dp_stop,
	};
	char err[512] = "";
	int rc;

	r->clock = *sys;
	if (r->eal)
		r->clock = (struct waiter_clock){
			.now = replay_tsc_now, .sleep = sys->sleep, .relax = replay_relax,
		};
	rc = r->mode->setup(&env, &r->state, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "segnet-replay: %s\n", err);
		return rc == -ENODEV ? REPLAY_EXIT_USAGE : REPLAY_EXIT_FAIL;
	}
	if (r->mode->adapt_clock)
		r->mode->adapt_clock(r->state, &r->clock);
	r->sched = replay_sched_new(r->trace, &r->opts.timing);
	r->stats = replay_stats_new();
	if (r->sched == NULL || r->stats == NULL) {
		fprintf(stderr, "segnet-replay: cannot schedule %s: %s\n", r->opts.file,
			strerror(errno));
		return REPLAY_EXIT_FAIL;
	}
	return 0;
}

/* Write the report to path in format fmt (the mode's, if it has one); 0 or the exit status. */
static int replay_write_report(const struct replay_main *r, const char *opt, const char *path,
			       const struct replay_summary *sum,
			       enum replay_stats_format fmt)
{
	FILE *f;
	int rc;

	if (path == NULL)
		return 0;
	f = fopen(path, "w");
	if (f == NULL) {
		fprintf(stderr, "segnet-replay: %s %s: %s\n", opt, path, strerror(errno));
		return REPLAY_EXIT_FAIL;
	}
	if (r->mode->write_report)
		rc = r->mode->write_report(r->state, sum, fmt, f);
	else
		rc = replay_stats_print(sum, fmt, f);
	if (fclose(f) || rc) {
		fprintf(stderr, "segnet-replay: %s %s: write failed\n", opt, path);
		return REPLAY_EXIT_FAIL;
	}
	return 0;
}

/* The exit status of a replay a signal stopped: 128 + the signal, as a shell says it. */
static int replay_signal_status(void)
{
	return REPLAY_EXIT_SIGNAL + (int)dp_stop;
}

/* Run the replay and print the report; the exit status. */
static int replay_run(struct replay_main *r)
{
	struct replay_loop_conf lc = {
		.clock = r->clock, .spin_ns = r->opts.spin_ns,
		.burst = r->opts.burst, .catchup_ns = replay_opts_catchup_ns(&r->opts),
		.stop = &dp_stop,
	};
	const struct trace_info *ti = &r->trace->info;
	struct replay_loop_result res;
	struct replay_summary sum;
	uint64_t dropped;
	bool failed, interrupted;
	int rc;

	printf("segnet-replay: %s: %s, %" PRIu64 " records", r->opts.file,
	       trace_format_name(ti->format), r->file_records);
	if (r->trace->n != r->file_records)
		printf(" (%" PRIu64 " to replay)", (uint64_t)r->trace->n);
	printf(", mode %s\n", r->mode->name);
	fflush(stdout);
	rc = replay_loop_run(r->sched, r->trace, r->mode, r->state, &lc, r->stats, &res);
	if (r->mode->drain)
		r->mode->drain(r->state);
	/* A signal in the drain cut it short too: the replay did not end. */
	interrupted = res.interrupted || dp_stop;
	replay_stats_summary(r->stats, &sum);
	replay_stats_print(&sum, REPLAY_STATS_TABLE, stdout);
	r->mode->report(r->state, stdout);
	dp_memif_removed_print(stdout);
	dropped = r->mode->dropped(r->state);
	sum.not_sent = dropped;
	printf("%-14s %15s\n", "stopped by", interrupted ? "signal" :
	       res.error ? "error" : timing_stop_name(res.stop));
	if (rc)
		fprintf(stderr, "segnet-replay: sending failed: %s\n", strerror(-rc));
	fflush(stdout);
	/* Each report is written, whether or not another could be. */
	failed = replay_write_report(r, "--csv", r->opts.csv, &sum, REPLAY_STATS_CSV) != 0;
	failed |= replay_write_report(r, "--json", r->opts.json, &sum, REPLAY_STATS_JSON) != 0;
	if (interrupted)
		return replay_signal_status();
	return failed || rc || dropped ? REPLAY_EXIT_FAIL : REPLAY_EXIT_OK;
}

/* Free everything main built. */
static void replay_free(struct replay_main *r)
{
	if (r->mode != NULL && r->mode->teardown != NULL)
		r->mode->teardown(r->state);
	replay_stats_free(r->stats);
	timing_sched_free(r->sched);
	trace_free(r->trace);
}

int main(int argc, char **argv)
{
	struct replay_main r;
	struct dp_args args;
	bool done;
	int rc;

	/* A log file gets each line when it is written, in order with stderr. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&r, 0, sizeof(r));
	if (dp_args_split(argc, argv, &args)) {
		fprintf(stderr, "segnet-replay: out of memory\n");
		return REPLAY_EXIT_FAIL;
	}
	done = replay_parse_args(&r, &args, &rc);
	dp_args_free(&args);
	if (done)
		return rc;
	/* --check too: a report file a replay could not write is found now. */
	rc = replay_check_outputs(&r.opts);
	if (!rc)
		rc = replay_check_eal_args(&r.opts, args.eal_argc, argv);
	if (!rc)
		rc = replay_load(&r);
	if (!rc && r.opts.check) {
		printf("segnet-replay: %s: %" PRIu64 " records, valid%s (--check: nothing sent)\n",
		       r.opts.file, (uint64_t)r.trace->n,
		       r.trace->n ? "" : ", but nothing to replay");
		replay_free(&r);
		return 0;
	}
	if (!rc)
		rc = replay_start(&r, args.eal_argc, argv);
	if (rc) {
		replay_free(&r);
		return rc;
	}
	dp_signals_install();
	rc = replay_setup(&r);
	/* Stopped while waiting for the link or the nodes: interrupted, too. */
	if (rc && dp_stop)
		rc = replay_signal_status();
	if (!rc)
		rc = replay_run(&r);
	replay_free(&r);
	if (r.eal)
		dp_eal_cleanup();
	return rc;
}
