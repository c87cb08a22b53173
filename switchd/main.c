/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * switchd: the segnet switch. It parses its arguments (before the EAL
 * starts, so a bad command line fails at once), starts the EAL, opens every
 * node's ports, builds the switch fabric on them and polls it on the TSC
 * clock, sleeping when idle, until SIGINT or SIGTERM; then it prints its
 * counters, closes the capture (--capture) and the ports and checks that
 * every mbuf came back.
 * doc/man/switchd.8 documents it.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "dataplane/dp_log.h"
#include "dataplane/dp_opts.h"
#include "switchd/swd.h"

enum {
	/* Wake-up latency of a sleep beyond what it asked for (us, typical). */
	SWD_WAKE_US = 60,
	/*
	 * With back-off on, slots shorter than this many wake-ups are missed
	 * often while bulk traffic flows (measured in the lab: 86 us and less,
	 * 9 to 36 %; 115 us, 1 to 19 %; 173 us and more, 1 to 3 % unless other
	 * jobs take the core: doc/operations.md, "Missed slot boundaries").
	 */
	SWD_SHORT_SLOT_WAKES = 2,
};

/* What main builds and the loop runs. */
struct swd {
	struct swd_opts opts;		/* the command line */
	struct swd_ports ports;		/* devices, ports, pools */
	struct sw_fabric *sw;		/* the switch */
	struct port_capture *cap;	/* --capture, or NULL */
	struct dp_idle idle;		/* back-off state */
	struct swd_slot_watch watch;	/* missed slot boundaries */
	uint64_t t_start;		/* dp_tsc_ns() when the loop started */
};

/* Attach --capture to every port (port_capture_start). */
static int swd_capture_attach(void *ctx, struct port_capture *cap)
{
	return swd_ports_capture(ctx, cap);
}

/* Build the fabric over the open ports. */
static int swd_build(struct swd *d)
{
	const struct swd_opts *o = &d->opts;
	struct sw_config cfg = {
		.n_nodes = o->nodes, .arbiter = o->arbiter, .quick_mode = o->quick_mode,
		.bulk_gbps = o->bulk_gbps, .quick_gbps = o->quick_gbps,
		.slot_frames = o->slot_frames, .down_slots = o->down_slots,
		.gnt_keepalive = o->gnt_keepalive, .grant_lead = o->grant_lead, .seed = o->seed,
		.mp = d->ports.mp, .check_crc = o->common.check_crc,
		.cycles = dp_tsc_cycles, .clock = dp_tsc_ns, .control = d->ports.control,
		.idle_skip = o->common.idle_after_us != 0,
	};
	char err[256], bulk[DP_OPT_NUM_LEN], quick[DP_OPT_NUM_LEN];

	d->sw = sw_fabric_create(&cfg, d->ports.bulk, d->ports.quick, err, sizeof(err));
	if (!d->sw) {
		fprintf(stderr, "switchd: %s\n", err);
		return -EINVAL;
	}
	printf("switchd: %u nodes, arbiter %s, slot %llu ns (bulk %s Gbit/s x %u frames), quick %s Gbit/s %s, down after %u slots, back-off %s\n",
	       o->nodes, sw_fabric_arbiter(d->sw), (unsigned long long)sw_fabric_slot_ns(d->sw),
	       dp_opt_num(o->bulk_gbps, bulk), o->slot_frames, dp_opt_num(o->quick_gbps, quick),
	       o->quick_mode == SW_QUICK_DROP ? "drop" : "interleave",
	       o->down_slots, o->common.idle_after_us ? "on" : "off (busy polling)");
	dp_daemon_fault_announce("switchd", &o->common);
	/* The one loss certain before traffic: doc/operations.md has the measurements. */
	if (o->common.idle_after_us && o->common.idle_sleep_us &&
	    sw_fabric_slot_ns(d->sw) < SWD_SHORT_SLOT_WAKES * SWD_WAKE_US * 1000ull)
		DP_LOG(swd_logtype, NOTICE,
		       "a slot of %llu ns is under %u times the wake-up latency of a back-off sleep (about %u us): polls often come more than a slot late while bulk traffic flows (in the lab, slots of 115 us and less missed up to 36%% of their boundaries); use --idle-after-us 0 (busy polling) on a dedicated core, or a lower --bulk-gbps (longer slots)",
		       (unsigned long long)sw_fabric_slot_ns(d->sw), SWD_SHORT_SLOT_WAKES, SWD_WAKE_US);
	if (swd_telemetry_register())
		DP_LOG(swd_logtype, WARNING, "telemetry endpoints not registered");
	swd_telemetry_publish(d->sw, &d->ports);
	return 0;
}

/*
 * Poll the fabric until a signal. Work, for the back-off, is a frame
 * received other than a CFG, a grant made, or a DOWN notice; keepalives
 * (CFGs without news, GNTs granting nothing) are not: their times are
 * known, and while nobody requests a target the fabric asks for the next
 * poll only at the next keepalive GNT (idle_skip), so an idle switch
 * wakes once per --gnt-keepalive slots or per 1 ms, whichever comes
 * first, not at every slot boundary. With nobody up no boundary is due, so
 * sleeps are not cut at them.
 */
static void swd_loop(struct swd *d)
{
	const struct sw_stats *st = sw_fabric_stats(d->sw);
	uint64_t interval = (uint64_t)(d->opts.common.stats_interval * 1e9);
	uint64_t now = dp_tsc_ns(), seen = 0, next_stats = UINT64_MAX;
	struct swd_snapshot snap;

	d->t_start = now;
	dp_idle_init(&d->idle, (uint64_t)d->opts.common.idle_after_us * 1000,
		     d->opts.common.idle_sleep_us, now);
	swd_report_snapshot(d->sw, &d->ports, now, &snap);
	swd_slot_watch_start(&d->watch, d->sw, d->opts.common.idle_after_us != 0, now);
	if (interval)
		next_stats = now + interval;
	while (!dp_stop) {
		uint64_t next, work, fault_next;
		bool up;

		now = dp_tsc_ns();
		swd_ports_fault_poll(&d->ports, now);
		next = sw_fabric_poll(d->sw, now);
		work = st->rx_frames - st->cfg_received + st->grants + st->down_notices;
		if (now >= next_stats) {
			swd_report_line(stdout, d->sw, &d->ports, &snap, now);
			next_stats = now + interval;
		}
		if (now >= d->watch.next_ns)
			swd_slot_watch_check(&d->watch, d->sw, now);
		up = sw_fabric_nodes_up(d->sw) != 0;
		if (!up)
			next = UINT64_MAX;
		fault_next = swd_ports_fault_next_due(&d->ports);
		if (fault_next < next)
			next = fault_next;
		if (next_stats < next)
			next = next_stats;
		/* With no node up, nothing is due at slot boundaries: the longest sleeps. */
		d->idle.sleep_us = dp_idle_sleep_us(&d->idle, d->opts.common.idle_sleep_us, up, now);
		dp_idle_poll(&d->idle, work != seen, now, next);
		seen = work;
	}
}

/* Print the summary, close the capture, free everything, check the pools. */
static int swd_finish(struct swd *d)
{
	double secs = (double)(dp_tsc_ns() - d->t_start) / 1e9;
	unsigned int missing;
	bool cap_failed;

	swd_telemetry_unpublish();
	swd_report_summary(stdout, d->sw, &d->ports, &d->idle, secs);
	/* A failed write is in the capture's summary line, and fails the exit. */
	cap_failed = port_capture_close(d->cap, stdout, NULL) != 0;
	d->cap = NULL;
	sw_fabric_destroy(d->sw);
	d->sw = NULL;
	swd_ports_close(&d->ports);
	missing = swd_ports_check_pools(&d->ports, stdout);
	return dp_daemon_exit_status("switchd", missing, cap_failed);
}

/* Release what set-up built, on a failure before the loop. */
static void swd_abort(struct swd *d)
{
	swd_telemetry_unpublish();
	port_capture_close(d->cap, NULL, NULL);
	sw_fabric_destroy(d->sw);
	swd_ports_close(&d->ports);
	swd_ports_free(&d->ports);
	swd_opts_free(&d->opts);
	dp_eal_cleanup();
}

int main(int argc, char **argv)
{
	struct dp_args args;
	struct swd d;
	char err[512] = "";
	int rc;

	/* A log file gets each line when it is written, in order with stderr. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&d, 0, sizeof(d));
	if (dp_args_split(argc, argv, &args)) {
		fprintf(stderr, "switchd: out of memory\n");
		return DP_DAEMON_EXIT_FAIL;
	}
	rc = swd_opts_parse(&d.opts, args.own_argc, args.own, err, sizeof(err));
	dp_args_free(&args);
	rc = dp_daemon_args_status("switchd", rc, err, d.opts.common.check);
	if (rc >= 0) {
		swd_opts_free(&d.opts);
		return rc;
	}
	rc = dp_daemon_eal_init("switchd", args.eal_argc, argv);
	if (rc) {
		swd_opts_free(&d.opts);
		return rc;
	}
	/*
	 * From here a SIGINT/SIGTERM sets dp_stop: a wait for the links ends
	 * with the ports closed (memif sockets removed) instead of the
	 * default action killing us with everything left behind.
	 */
	dp_signals_install();
	if (dp_daemon_place("switchd", d.opts.common.core)) {
		swd_abort(&d);
		return DP_DAEMON_EXIT_USAGE;
	}
	rc = swd_ports_open(&d.ports, &d.opts, dp_core_socket(sched_getcpu()),
			    err, sizeof(err));
	if (rc) {
		fprintf(stderr, "switchd: %s\n", err);
		swd_abort(&d);
		return rc == -ENODEV || rc == -EINVAL ? DP_DAEMON_EXIT_USAGE : DP_DAEMON_EXIT_FAIL;
	}
	swd_ports_numa_check(&d.ports, d.opts.common.core);
	if (swd_build(&d) || port_capture_start("switchd", &d.opts.common, "port", swd_capture_attach,
						 &d.ports, &d.cap)) {
		swd_abort(&d);
		return DP_DAEMON_EXIT_USAGE;
	}
	fflush(stdout);
	swd_loop(&d);
	rc = swd_finish(&d);
	swd_ports_free(&d.ports);
	swd_opts_free(&d.opts);
	dp_eal_cleanup();
	return rc;
}
