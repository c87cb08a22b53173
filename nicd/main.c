/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd: the segnet NIC of a host. It parses its arguments (before the EAL
 * starts, so a bad command line fails at once), starts the EAL, opens every
 * node's ports, builds each node's NIC and host interface (endpoints in
 * shared memory behind a control socket) and polls them on the TSC clock,
 * sleeping when idle, until SIGINT or SIGTERM; then it closes the
 * endpoints, prints its counters, closes the capture (--capture) and the
 * ports and checks that every mbuf came back. doc/man/nicd.8 documents it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "dataplane/dp_log.h"
#include "nicd/nicd.h"

DP_LOG_REGISTER(nicd_logtype, NICD_DAEMON);

enum {
	NICD_FDS_PER_NODE = 24,	/* beside the endpoints: listener, epoll, pending connections */
	NICD_FDS_BASE = 64,	/* the EAL, the telemetry socket, stdio, a capture */
};

/* What main builds and the loop runs. */
struct nicd {
	struct nicd_opts opts;		/* the command line */
	struct nicd_nodes nodes;	/* devices, ports, NICs, endpoints */
	struct port_capture *cap;	/* --capture, or NULL */
	struct dp_idle idle;		/* back-off state */
	uint64_t t_start;		/* dp_tsc_ns() when the loop started */
};

/* Attach --capture to every port (port_capture_start). */
static int nicd_capture_attach(void *ctx, struct port_capture *cap)
{
	return nicd_nodes_capture(ctx, cap);
}

/*
 * Raise the soft limit of open files to the hard one: each endpoint holds
 * three (its connection, eventfd and object). Warn when even that is too
 * few for every node's table: the opens past it fail with EMFILE.
 */
static void nicd_fd_limit(const struct nicd *d)
{
	uint64_t need = (uint64_t)d->opts.n_nodes * (d->opts.endpoints * 3u +
							  NICD_FDS_PER_NODE) + NICD_FDS_BASE;
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim))
		return;
	if (lim.rlim_cur != lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &lim))
			getrlimit(RLIMIT_NOFILE, &lim);
	}
	if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < need)
		fprintf(stderr, "nicd: warning: %u node(s) of %u endpoints need about %llu open files (3 per endpoint), the limit is %llu (ulimit -n): opens past it fail with EMFILE\n",
			d->opts.n_nodes, d->opts.endpoints, (unsigned long long)need,
			(unsigned long long)lim.rlim_cur);
}

/* A number no earlier nicd used: tells a restarted nicd's endpoints apart. */
static uint64_t nicd_generation(void)
{
	struct timespec ts;
	uint64_t g = 0;

	if (getrandom(&g, sizeof(g), GRND_NONBLOCK) == (ssize_t)sizeof(g) && g)
		return g;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid();
}

/* Say what runs where. */
static void nicd_announce(const struct nicd *d)
{
	const struct nicd_opts *o = &d->opts;

	for (unsigned int i = 0; i < d->nodes.n; i++) {
		const struct nicd_node *n = &d->nodes.node[i];

		const char *how = n->bulk_dev != n->quick_dev ? " (bulk) + " :
				  n->bulk != n->quick ? " (control frames on receive queue 1)" : "";

		printf("nicd: node %s on %s%s%s, control socket %s, %u endpoints\n",
		       n->name, o->node[i].bulk, how,
		       n->bulk_dev != n->quick_dev ? o->node[i].quick : "",
		       host_socket_path(n->host), o->endpoints);
	}
	printf("nicd: per node %u bulk send buffers (at most %u per target), %u quick (%u kept for connections holding none)\n",
	       o->send_buffers, o->per_target_cap, o->quick_buffers, o->quick_reserve);
	if (o->quick_gbps > 0) {
		char g[DP_OPT_NUM_LEN];

		printf("nicd: QREQs paced at most at %s Gbit/s (--quick-gbps), or at a slower quick port's speed\n",
		       dp_opt_num(o->quick_gbps, g));
	}
	for (unsigned int v = 0; v < o->n_vnets; v++)
		printf("nicd: vnet %u: %s (key from %s)\n", o->vnet[v].hv.vnet,
		       o->vnet[v].conf, o->vnet[v].keyfile);
	printf("nicd: back-off %s\n", o->common.idle_after_us ? "on" : "off (busy polling)");
	dp_daemon_fault_announce("nicd", &o->common);
}

/* Poll every node until a signal. */
static void nicd_loop(struct nicd *d)
{
	struct nicd_snapshot *snap = calloc(d->nodes.n, sizeof(*snap));
	uint64_t interval = (uint64_t)(d->opts.common.stats_interval * 1e9);
	uint64_t now = dp_tsc_ns(), next_stats = UINT64_MAX;

	d->t_start = now;
	dp_idle_init(&d->idle, (uint64_t)d->opts.common.idle_after_us * 1000,
		     d->opts.common.idle_sleep_us, now);
	if (interval && snap) {
		nicd_report_snapshot(&d->nodes, now, snap);
		next_stats = now + interval;
	}
	while (!dp_stop) {
		uint64_t next = UINT64_MAX;
		bool work;

		now = dp_tsc_ns();
		work = nicd_nodes_poll(&d->nodes, now, &next);
		if (now >= next_stats) {
			nicd_report_line(stdout, &d->nodes, snap, now);
			next_stats = now + interval;
		}
		if (next_stats < next)
			next = next_stats;
		/* No endpoint open: no application waits for a send, the longest sleeps. */
		d->idle.sleep_us = dp_idle_sleep_us(&d->idle, d->opts.common.idle_sleep_us,
						    nicd_nodes_endpoints(&d->nodes) != 0, now);
		dp_idle_poll(&d->idle, work, now, next);
	}
	free(snap);
}

/* Close endpoints, print the summary, free everything; the exit status. */
static int nicd_finish(struct nicd *d)
{
	double secs = (double)(dp_tsc_ns() - d->t_start) / 1e9;
	unsigned int missing;
	bool cap_failed;

	nicd_nodes_shutdown(&d->nodes);
	nicd_telemetry_unpublish();
	nicd_report_summary(stdout, &d->nodes, &d->idle, secs);
	/* A failed write is in the capture's summary line, and fails the exit. */
	cap_failed = port_capture_close(d->cap, stdout, NULL) != 0;
	d->cap = NULL;
	nicd_nodes_close(&d->nodes);
	missing = nicd_nodes_check_pools(&d->nodes, stdout);
	return dp_daemon_exit_status("nicd", missing, cap_failed);
}

/* Release what set-up built, on a failure before the loop. */
static void nicd_abort(struct nicd *d)
{
	nicd_telemetry_unpublish();
	port_capture_close(d->cap, NULL, NULL);
	d->cap = NULL;
	nicd_nodes_close(&d->nodes);
	nicd_nodes_free(&d->nodes);
	nicd_opts_free(&d->opts);
	dp_eal_cleanup();
}

int main(int argc, char **argv)
{
	struct dp_args args;
	struct nicd d;
	char err[512] = "";
	int rc;

	/* A log file gets each line when it is written, in order with stderr. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&d, 0, sizeof(d));
	if (dp_args_split(argc, argv, &args)) {
		fprintf(stderr, "nicd: out of memory\n");
		return DP_DAEMON_EXIT_FAIL;
	}
	rc = nicd_opts_parse(&d.opts, args.own_argc, args.own, err, sizeof(err));
	dp_args_free(&args);
	rc = dp_daemon_args_status("nicd", rc, err, d.opts.common.check);
	if (rc >= 0) {
		nicd_opts_free(&d.opts);
		return rc;
	}
	nicd_fd_limit(&d);
	/* A vhost-user server that takes connections and never answers would hold the EAL's start. */
	if (dp_ethdev_defer_silent(&args.eal_argc, argv, NICD_SERVER_ANSWER_MS) > 0)
		fprintf(stderr, "nicd: a vhost-user server took no connection (backlog full) or did not answer in %u ms: its device is created once it answers\n",
			NICD_SERVER_ANSWER_MS);
	rc = dp_daemon_eal_init("nicd", args.eal_argc, argv);
	if (rc) {
		nicd_opts_free(&d.opts);
		return rc;
	}
	if (dp_ethdev_defer_register(err, sizeof(err))) {
		fprintf(stderr, "nicd: %s\n", err);
		nicd_opts_free(&d.opts);
		dp_eal_cleanup();
		return DP_DAEMON_EXIT_FAIL;
	}
	/* A signal during set-up (a link wait) closes the ports, as in switchd. */
	dp_signals_install();
	if (dp_daemon_place("nicd", d.opts.common.core)) {
		nicd_abort(&d);
		return DP_DAEMON_EXIT_USAGE;
	}
	rc = nicd_nodes_open(&d.nodes, &d.opts, nicd_generation(), err, sizeof(err));
	if (rc) {
		fprintf(stderr, "nicd: %s\n", err);
		nicd_abort(&d);
		return rc == -ENODEV || rc == -EINVAL ? DP_DAEMON_EXIT_USAGE : DP_DAEMON_EXIT_FAIL;
	}
	if (port_capture_start("nicd", &d.opts.common, "port of every node", nicd_capture_attach,
			       &d.nodes, &d.cap)) {
		nicd_abort(&d);
		return DP_DAEMON_EXIT_USAGE;
	}
	nicd_nodes_numa_check(&d.nodes, d.opts.common.core);
	if (nicd_telemetry_register())
		DP_LOG(nicd_logtype, WARNING, "telemetry endpoints not registered");
	nicd_telemetry_publish(&d.nodes);
	nicd_announce(&d);
	fflush(stdout);
	nicd_loop(&d);
	rc = nicd_finish(&d);
	nicd_nodes_free(&d.nodes);
	nicd_opts_free(&d.opts);
	dp_eal_cleanup();
	return rc;
}
