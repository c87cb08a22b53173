/* SPDX-License-Identifier: BSD-3-Clause */
/* segnet-sim's table, CSV and gnuplot output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dataplane/dp_opts.h"
#include "sim_cli.h"

static const char *const chan_names[SN_CHAN_COUNT] = { "bulk", "quick" };

/* True when channel ch carried generated traffic in run c. */
static bool chan_used(const struct simrun_config *c, int ch)
{
	return c->channels == SIMRUN_BOTH ||
	       (c->channels == SIMRUN_BULK) == (ch == SN_CHAN_BULK);
}

/* Name of a quick mode. */
static const char *qmode_name(enum sw_quick_mode m)
{
	return m == SW_QUICK_DROP ? "drop" : "interleave";
}

void sim_print_header(const struct sim_cli *cli)
{
	const struct simrun_config *c = &cli->base;
	uint32_t lead = simrun_grant_lead(c);
	char bulk[DP_OPT_NUM_LEN], quick[DP_OPT_NUM_LEN];

	printf("segnet-sim: %u nodes, bulk %s Gbit/s, quick %s Gbit/s, payload %u B, "
	       "%u+%u send buffers (per-target cap %u",
	       c->nodes, dp_opt_num(c->bulk_gbps, bulk), dp_opt_num(c->quick_gbps, quick), c->payload, c->bulk_bufs,
	       c->quick_bufs, c->per_target);
	/* Only when given: the header stays as it was without a reserve. */
	if (c->quick_reserve)
		printf(", quick reserve %u", c->quick_reserve);
	printf("), conf %s, seed %llu, %d run%s", c->conf, (unsigned long long)c->seed,
	       cli->n_runs, cli->n_runs == 1 ? "" : "s");
	if (lead > 1)
		printf(", grant lead %u slots", lead);
	printf("\n");
	printf("%-17s %-5s %-6s %-10s %5s %6s %6s %9s %9s %9s %9s %7s %7s %6s\n",
	       "arbiter", "chan", "burst", "quick", "load", "offer", "thru",
	       "mean_us", "p99_us", "e2e_mean", "e2e_p99", "coll", "retx", "match");
}

/* The outage's line: its window, and whether the run reached it or caught a message in it. */
static void sim_print_outage(const struct simrun_config *c, const struct simrun_result *r)
{
	printf("outage of node 0's links: %.1f us from %.1f us after the cluster formed",
	       (double)c->outage_ns / 1000.0, (double)c->outage_at_ns / 1000.0);
	if (!r->outage_ran_ns)
		printf(": never began, the run ended first\n");
	else if (r->outage_ran_ns < c->outage_ns)
		printf(", the run ended %.1f us into it\n", (double)r->outage_ran_ns / 1000.0);
	else if (r->recovery_ns < 0)
		printf(", no message of node 0 was caught in it\n");
	else
		printf("\n");
}

void sim_print_row(const struct sim_cli *cli, int i)
{
	const struct simrun_config *c = &cli->runs[i];
	const struct sim_outcome *o = &cli->out[i];

	if (o->rc) {
		printf("%-17s run failed: %s\n", c->arbiter, o->err);
		return;
	}
	if (c->outage_ns)
		sim_print_outage(c, &o->res);
	if (o->res.recovery_ns >= 0)
		printf("recovery: node 0's last earlier message arrived %.1f us after the outage ended\n",
		       (double)o->res.recovery_ns / 1000.0);
	for (int ch = 0; ch < SN_CHAN_COUNT; ch++) {
		const struct simrun_chan *r = &o->res.chan[ch];

		if (!chan_used(c, ch))
			continue;
		printf("%-17s %-5s %-6s %-10s %5.3f %6.3f %6.3f %9.2f %9.2f %9.2f %9.2f %7.4f %7.4f %6.2f\n",
		       c->arbiter, chan_names[ch], c->burst_max > 1 ? "bursty" : "no",
		       qmode_name(c->quick_mode), r->load, r->offered, r->throughput,
		       r->queue.mean, r->queue.p99, r->e2e.mean, r->e2e.p99,
		       r->collisions, r->retransmissions, o->res.matched_per_slot);
	}
	fflush(stdout);
}

void sim_print_summary(const struct sim_cli *cli)
{
	struct simrun_delivery d = { 0 };
	uint64_t frames = 0;
	double wall = 0, sim_s = 0;

	for (int i = 0; i < cli->n_runs; i++) {
		const struct simrun_result *r = &cli->out[i].res;

		if (cli->out[i].rc)
			continue;
		frames += r->frames;
		wall += r->wall_s;
		sim_s += (double)r->sim_ns / 1e9;
		d.sent += r->delivery.sent;
		d.delivered += r->delivery.delivered;
		d.lost += r->delivery.lost;
		d.duplicated += r->delivery.duplicated;
		d.reordered += r->delivery.reordered;
		d.failed += r->delivery.failed;
		d.queued += r->delivery.queued;
	}
	printf("simulated %.6f s of network time: %llu frames in %.2f s of run time "
	       "(%.0f simulated packets per wall-clock second)\n",
	       sim_s, (unsigned long long)frames, wall, wall > 0 ? (double)frames / wall : 0);
	if (d.failed)
		printf("sends completed with an error: %llu\n", (unsigned long long)d.failed);
	if (d.queued)
		printf("still queued when the run stopped (saturated channels): %llu\n",
		       (unsigned long long)d.queued);
	printf("delivery: sent=%llu delivered=%llu lost=%llu duplicated=%llu reordered=%llu\n",
	       (unsigned long long)d.sent, (unsigned long long)d.delivered,
	       (unsigned long long)d.lost, (unsigned long long)d.duplicated,
	       (unsigned long long)d.reordered);
}

/* A load with 3 decimals, or up to the 6 a sweep keeps when it has more. */
static const char *load_str(double v, char buf[24])
{
	size_t n;

	snprintf(buf, 24, "%.6f", v);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0' && strlen(strchr(buf, '.')) > 4)
		buf[--n] = '\0';
	return buf;
}

int sim_write_csv(const struct sim_cli *cli, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "segnet-sim: --csv %s: %s\n", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "arbiter,channel,traffic,bursty,nodes,load,quick_mode,conf,offered,"
		   "throughput,mean_us,p50_us,p99_us,e2e_mean_us,e2e_p50_us,e2e_p99_us,"
		   "collisions_per_pkt,retx_per_pkt,matched_per_slot,generated,delivered,"
		   "seed,acks_per_data,recovery_us\n");
	for (int i = 0; i < cli->n_runs; i++) {
		const struct simrun_config *c = &cli->runs[i];
		const struct simrun_result *r = &cli->out[i].res;

		if (cli->out[i].rc)
			continue;
		for (int ch = 0; ch < SN_CHAN_COUNT; ch++) {
			const struct simrun_chan *x = &r->chan[ch];
			char load[24];

			if (!chan_used(c, ch))
				continue;
			fprintf(f, "%s,%s,%s,%d,%u,%s,%s,\"%s\",%.4f,%.4f,%.3f,%.3f,%.3f,%.3f,"
				   "%.3f,%.3f,%.5f,%.5f,%.3f,%llu,%llu,%llu,%.4f,%.3f\n",
				c->arbiter, chan_names[ch], traffic_pattern_name(c->traffic),
				c->burst_max > 1, c->nodes, load_str(x->load, load),
				qmode_name(c->quick_mode),
				c->conf, x->offered, x->throughput, x->queue.mean, x->queue.p50,
				x->queue.p99, x->e2e.mean, x->e2e.p50, x->e2e.p99, x->collisions,
				x->retransmissions, r->matched_per_slot,
				(unsigned long long)x->generated, (unsigned long long)x->delivered,
				(unsigned long long)c->seed, r->acks_per_data,
				r->recovery_ns >= 0 ? (double)r->recovery_ns / 1000.0 : -1.0);
		}
	}
	if (fclose(f)) {
		fprintf(stderr, "segnet-sim: --csv %s: %s\n", path, strerror(errno));
		return -errno;
	}
	printf("wrote %s\n", path);
	return 0;
}

/* Which value a plot panel shows. */
enum plot_value {
	PV_MEAN,	/* mean latency until the packet leaves its buffer */
	PV_THROUGHPUT,	/* delivered / capacity */
	PV_COLLISIONS,	/* collisions per packet */
};

/* One panel of the plot. */
struct plot_panel {
	int chan;		/* channel shown */
	enum plot_value v;	/* value shown */
	const char *title;	/* panel title */
	const char *ylabel;	/* y axis */
	bool logy;		/* log scale */
	bool by_quick_mode;	/* series split by quick mode, else by arbiter */
};

static const struct plot_panel plot_panels[] = {
	{ SN_CHAN_BULK, PV_MEAN, "bulk channel: mean latency", "microseconds", true, false },
	{ SN_CHAN_QUICK, PV_MEAN, "quick channel: mean latency", "microseconds", true, true },
	{ SN_CHAN_BULK, PV_THROUGHPUT, "bulk channel: throughput", "delivered / capacity", false, false },
	{ SN_CHAN_QUICK, PV_COLLISIONS, "quick channel: collisions per packet", "collisions / packet", false, true },
};

/* The value of panel p in run i. */
static double plot_value(const struct sim_cli *cli, const struct plot_panel *p, int i)
{
	const struct simrun_chan *c = &cli->out[i].res.chan[p->chan];

	switch (p->v) {
	case PV_MEAN: return c->queue.mean;
	case PV_THROUGHPUT: return c->throughput;
	default: return c->collisions;
	}
}

/*
 * Series key of run i in panel p; false when the run is not in the panel.
 * Quick-channel panels show the first architecture's runs only (the quick
 * channel does not depend on the bulk arbiter), one series per quick mode.
 * A log axis cannot show 0 (a channel that never queued): gnuplot drops
 * such a point, and gives up on a panel that has no other.
 */
static bool plot_key(const struct sim_cli *cli, const struct plot_panel *p, int i,
		     char *key, size_t len)
{
	const struct simrun_config *c = &cli->runs[i];

	if (cli->out[i].rc || !chan_used(c, p->chan))
		return false;
	if (p->logy && !(plot_value(cli, p, i) > 0))
		return false;
	if (p->by_quick_mode) {
		if (strcmp(c->arbiter, cli->runs[0].arbiter))
			return false;
		snprintf(key, len, "%s%s", qmode_name(c->quick_mode),
			 c->burst_max > 1 ? " bursty" : "");
	} else {
		/* Bulk runs differ by quick mode too when both modes were run. */
		bool both = cli->quick_mode && !strcmp(cli->quick_mode, "both");

		snprintf(key, len, "%s%s%s", c->arbiter, both ? (c->quick_mode == SW_QUICK_DROP ?
			 " (drop)" : " (interleave)") : "", c->burst_max > 1 ? " bursty" : "");
	}
	return true;
}

/* Write panel p's series as gnuplot data blocks; returns how many. */
static int plot_write_panel(const struct sim_cli *cli, const struct plot_panel *p,
			    FILE *dat, char titles[][48], int max)
{
	int n = 0;

	for (int i = 0; i < cli->n_runs && n < max; i++) {
		char key[48];
		bool seen = false;

		if (!plot_key(cli, p, i, key, sizeof(key)))
			continue;
		for (int k = 0; k < n; k++)
			seen |= !strcmp(titles[k], key);
		if (seen)
			continue;
		snprintf(titles[n++], sizeof(titles[0]), "%s", key);
		fprintf(dat, "# %s\n", key);
		for (int j = i; j < cli->n_runs; j++) {
			char k2[48];

			if (plot_key(cli, p, j, k2, sizeof(k2)) && !strcmp(k2, key))
				fprintf(dat, "%g %g\n", cli->runs[j].load, plot_value(cli, p, j));
		}
		fprintf(dat, "\n\n");
	}
	return n;
}

/* Say why the plot was not drawn: rc from system(), -1 for no data; err holds gnuplot's stderr. */
static void plot_failed(const char *png, int rc, const char *err_path)
{
	char line[512];
	FILE *err;

	if (rc == -1) {
		fprintf(stderr, "segnet-sim: --plot %s: nothing to plot\n", png);
		return;
	}
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 127) {
		fprintf(stderr, "segnet-sim: --plot %s: gnuplot not found (Debian: "
				"apt-get install gnuplot-nox)\n", png);
		return;
	}
	fprintf(stderr, "segnet-sim: --plot %s: gnuplot failed:\n", png);
	err = fopen(err_path, "r");
	while (err && fgets(line, sizeof(line), err))
		fprintf(stderr, "  %s", line);
	if (err)
		fclose(err);
}

/* A new temporary file from template path, open for writing; NULL and path "" on failure. */
static FILE *plot_tmp(char *path)
{
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		path[0] = '\0';
	}
	return f;
}

/* Close and remove a file plot_tmp made (f NULL and path "" when it failed). */
static void plot_tmp_remove(FILE *f, const char *path)
{
	if (f)
		fclose(f);
	if (path[0])
		unlink(path);
}

/* The gnuplot script: one panel per plot_panels entry with data (n[pi] series). */
static void plot_write_script(const struct sim_cli *cli, FILE *gp, const char *png,
			      const char *dat_path, const int *n, char titles[][64][48],
			      int shown)
{
	char num[DP_OPT_NUM_LEN];
	int block = 0;

	fprintf(gp, "set terminal pngcairo size 1400,%d font 'sans,10'\nset output '",
		shown > 2 ? 1000 : 500);
	/* In a single-quoted gnuplot string a quote is written twice. */
	for (const char *c = png; *c; c++)
		if (*c == '\'')
			fputs("''", gp);
		else
			fputc(*c, gp);
	fprintf(gp, "'\nset multiplot layout %d,%d\nset key outside right\nset grid\n",
		shown > 2 ? 2 : 1, shown > 1 ? 2 : 1);
	if (cli->base.quick_same_rate)
		fprintf(gp, "set xlabel 'offered load of the bulk channel (quick: as many "
			    "messages per second)'\n");
	else if (cli->base.quick_load > 0)
		fprintf(gp, "set xlabel 'offered load of the bulk channel (quick: %s)'\n",
			dp_opt_num(cli->base.quick_load, num));
	else
		fprintf(gp, "set xlabel 'offered load'\n");
	for (size_t pi = 0; pi < sizeof(plot_panels) / sizeof(plot_panels[0]); pi++) {
		const struct plot_panel *p = &plot_panels[pi];

		if (!n[pi])
			continue;
		fprintf(gp, "set title '%s'\nset ylabel '%s'\n%s\nplot ", p->title, p->ylabel,
			p->logy ? "set logscale y" : "unset logscale y");
		for (int k = 0; k < n[pi]; k++)
			fprintf(gp, "%s'%s' index %d using 1:2 with linespoints title '%s'",
				k ? ", " : "", dat_path, block + k, titles[pi][k]);
		fprintf(gp, "\n");
		block += n[pi];
	}
	fprintf(gp, "unset multiplot\n");
}

int sim_plot(const struct sim_cli *cli, const char *png)
{
	enum { N_PANELS = sizeof(plot_panels) / sizeof(plot_panels[0]) };
	char dat_path[] = "/tmp/segnet-sim-plot-XXXXXX";
	char gp_path[] = "/tmp/segnet-sim-gp-XXXXXX";
	char err_path[] = "/tmp/segnet-sim-err-XXXXXX";
	char cmd[256], titles[N_PANELS][64][48];
	FILE *dat = plot_tmp(dat_path), *gp = plot_tmp(gp_path), *err = plot_tmp(err_path);
	int n[N_PANELS], rc = -1, shown = 0;

	if (!dat || !gp || !err) {
		fprintf(stderr, "segnet-sim: --plot: cannot create temporary files in /tmp\n");
		goto out;
	}
	/* Only panels with data are drawn: gnuplot gives up on an empty log plot. */
	for (size_t pi = 0; pi < N_PANELS; pi++) {
		n[pi] = plot_write_panel(cli, &plot_panels[pi], dat, titles[pi], 64);
		shown += n[pi] > 0;
	}
	plot_write_script(cli, gp, png, dat_path, n, titles, shown);
	fflush(dat);
	fflush(gp);
	/* gnuplot's own messages are shown only when it fails. */
	snprintf(cmd, sizeof(cmd), "gnuplot %s 2>%s", gp_path, err_path);
	rc = shown ? system(cmd) : -1;
	if (rc != 0)
		plot_failed(png, shown ? rc : -1, err_path);
	else
		printf("wrote %s\n", png);
out:
	plot_tmp_remove(dat, dat_path);
	plot_tmp_remove(gp, gp_path);
	plot_tmp_remove(err, err_path);
	return rc ? -1 : 0;
}
