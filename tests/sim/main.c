/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segnet-sim: runs N nodes and one switch on simulated links, with the same
 * switch and NIC code as switchd and nicd, and reports throughput, latency,
 * collisions and retransmissions per channel, optionally over a sweep of
 * loads and architectures, as a table, CSV and a gnuplot PNG.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_log.h>

#include "dataplane/dp_fault.h"
#include "dataplane/dp_mbuf.h"
#include "dataplane/dp_opts.h"
#include "dataplane/stage.h"
#include "nicd/conf.h"
#include "nicd/nic.h"
#include "nicd/stages/stages.h"
#include "sim_cli.h"
#include "simrun.h"
#include "switchd/arb.h"

/* The architectures a preset sweep compares. */
static const char *const sim_all_arbiters[] = {
	"lcf", "islip:1", "islip:4", "pim:1", "rr",
	"fifo-drop", "fifo-backpressure", "fifo-outbuf", NULL,
};

/* Exit status for bad arguments. */
enum { EXIT_USAGE = 2 };

/* Report a bad argument and exit with status 2. */
static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("segnet-sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see --help)\n", stderr);
	exit(EXIT_USAGE);
}

static const char sim_help[] =
"Usage: segnet-sim [options]\n"
"Simulate a segnet cluster: N nodes and one switch on simulated links, running\n"
"the switch and NIC code of switchd and nicd.\n"
"\n"
"Cluster:\n"
"  --nodes N               nodes (2..1024; default 16)\n"
"  --arbiter SPEC          lcf | islip:K | pim:K | rr | fifo-drop |\n"
"                          fifo-backpressure | fifo-outbuf | all (default lcf;\n"
"                          with --preset, all)\n"
"  --quick-mode MODE       drop | interleave | both (default drop)\n"
"  --bulk-gbps G           bulk link rate (default 10)\n"
"  --quick-gbps G          quick link rate (default 10)\n"
"  --prop-ns NS            propagation delay of every link (default 100)\n"
"  --slot-frames N         bulk frames per slot (default 1)\n"
"  --grant-lead L          switch grants slot k+L at slot k (default: the\n"
"                          slots a GNT and the link delays take, at least 1)\n"
"  --send-buffers N        bulk send buffers per node (default 16)\n"
"  --per-target-cap N      of which one target may hold (default 1/8 of them)\n"
"  --quick-buffers N       quick send buffers per node (default 16)\n"
"  --quick-reserve N       of which kept for connections that hold none, as\n"
"                          nicd's --quick-reserve (then a packet sent 4 times\n"
"                          and unacknowledged gives its buffer back); 0..the\n"
"                          quick buffers (default 0: no reserve)\n"
"  --descriptors N         packet descriptors per NIC (default 16384)\n"
"  --cfg-keepalive N       slots between CFGs while a NIC's requests do not\n"
"                          change (default 8, as nicd; 1 = a CFG every slot)\n"
"  --payload BYTES         bulk payload (default 2048)\n"
"  --preset clint          16 nodes, bulk 2 Gbit/s, quick 0.53 Gbit/s, 2 KiB\n"
"                          payload, 16 bulk and 4 quick send buffers, bursts\n"
"                          up to 5; sweeps every architecture, bursty and not\n"
"Traffic:\n"
"  --load L                offered load, fraction of capacity in (0, 1]\n"
"  --load-sweep A:B:STEP   loads A, A+STEP, ... B\n"
"  --quick-load L          the quick channel's load instead, the same in every\n"
"                          run (--load and --load-sweep then set the bulk\n"
"                          channel's); same-rate: as many quick messages per\n"
"                          second as bulk ones\n"
"  --traffic PATTERN       uniform | hotspot | diagonal (default uniform)\n"
"  --hot-share F           hotspot: share of traffic to node 0 (default 0.25)\n"
"  --bursty                bursts of uniform length 1..K to one destination\n"
"  --no-bursty             single messages only (with --preset: not both);\n"
"                          one of --bursty and --no-bursty\n"
"  --burst-max K           K for --bursty (default 5)\n"
"  --channels WHICH        both | bulk | quick (default both)\n"
"  --duration T            generation time, e.g. 20ms, 0.5s (default 20ms)\n"
"  --messages N            instead of --duration (not with it): generate N\n"
"                          messages, then drain (the run fails if none\n"
"                          completes for a simulated second)\n"
"Protocol and faults:\n"
"  --conf NAME             conf1 | conf2 | conf3 | conf4-gbn | conf4-sr, or a\n"
"                          stage list (default conf2)\n"
"  --one-vnet              both channels on one virtual network (one packet-\n"
"                          number space, so ordering spans the channels);\n"
"                          default: each channel its own virtual network\n"
"  --outage AT:LEN         node 0's links drop everything for LEN from AT after\n"
"                          the cluster formed (e.g. 2ms:200us); reports recovery\n"
"  --loss P --dup P --reorder P --corrupt P\n"
"                          fault probabilities per frame on every link\n"
"Output:\n"
"  --seed N                seed of every random draw (default 1)\n"
"  --csv FILE              write one row per run and channel\n"
"  --plot FILE.png         plot latency, throughput and collisions vs load\n"
"  --jobs N                runs in parallel, 1..8 (default: online CPUs)\n"
"  --verbose               print every component's counters after each run,\n"
"                          and links.bulk_waited: BREQs that found a switch's\n"
"                          bulk output still busy (from 1 ns), with the\n"
"                          longest wait (links.bulk_wait_max_ps)\n"
"  --help                  this text\n"
"\n"
"Exit status: 0 ok, 1 a run failed, 2 bad arguments.\n";

/* Long options; values are enum sim_opt. */
enum sim_opt {
	O_NODES = 256, O_ARBITER, O_QUICK_MODE, O_BULK_GBPS, O_QUICK_GBPS,
	O_PROP, O_SLOT_FRAMES, O_GRANT_LEAD, O_SEND_BUFFERS, O_PER_TARGET, O_QUICK_BUFFERS, O_QUICK_RESERVE,
	O_DESCRIPTORS,
	O_CFG_KEEPALIVE,
	O_PAYLOAD, O_PRESET, O_LOAD, O_QUICK_LOAD, O_LOAD_SWEEP, O_TRAFFIC, O_HOT_SHARE,
	O_BURSTY, O_BURST_MAX, O_CHANNELS, O_DURATION, O_MESSAGES, O_CONF,
	O_LOSS, O_DUP, O_REORDER, O_CORRUPT, O_SEED, O_CSV, O_PLOT, O_JOBS,
	O_VERBOSE, O_HELP, O_ONE_VNET, O_NO_BURSTY, O_OUTAGE,
};

static const struct option sim_options[] = {
	{ "nodes", required_argument, NULL, O_NODES },
	{ "arbiter", required_argument, NULL, O_ARBITER },
	{ "quick-mode", required_argument, NULL, O_QUICK_MODE },
	{ "bulk-gbps", required_argument, NULL, O_BULK_GBPS },
	{ "quick-gbps", required_argument, NULL, O_QUICK_GBPS },
	{ "prop-ns", required_argument, NULL, O_PROP },
	{ "slot-frames", required_argument, NULL, O_SLOT_FRAMES },
	{ "grant-lead", required_argument, NULL, O_GRANT_LEAD },
	{ "send-buffers", required_argument, NULL, O_SEND_BUFFERS },
	{ "per-target-cap", required_argument, NULL, O_PER_TARGET },
	{ "quick-buffers", required_argument, NULL, O_QUICK_BUFFERS },
	{ "quick-reserve", required_argument, NULL, O_QUICK_RESERVE },
	{ "descriptors", required_argument, NULL, O_DESCRIPTORS },
	{ "cfg-keepalive", required_argument, NULL, O_CFG_KEEPALIVE },
	{ "payload", required_argument, NULL, O_PAYLOAD },
	{ "preset", required_argument, NULL, O_PRESET },
	{ "load", required_argument, NULL, O_LOAD },
	{ "quick-load", required_argument, NULL, O_QUICK_LOAD },
	{ "load-sweep", required_argument, NULL, O_LOAD_SWEEP },
	{ "traffic", required_argument, NULL, O_TRAFFIC },
	{ "hot-share", required_argument, NULL, O_HOT_SHARE },
	{ "bursty", no_argument, NULL, O_BURSTY },
	{ "no-bursty", no_argument, NULL, O_NO_BURSTY },
	{ "burst-max", required_argument, NULL, O_BURST_MAX },
	{ "channels", required_argument, NULL, O_CHANNELS },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "messages", required_argument, NULL, O_MESSAGES },
	{ "conf", required_argument, NULL, O_CONF },
	{ "one-vnet", no_argument, NULL, O_ONE_VNET },
	{ "outage", required_argument, NULL, O_OUTAGE },
	{ "loss", required_argument, NULL, O_LOSS },
	{ "dup", required_argument, NULL, O_DUP },
	{ "reorder", required_argument, NULL, O_REORDER },
	{ "corrupt", required_argument, NULL, O_CORRUPT },
	{ "seed", required_argument, NULL, O_SEED },
	{ "csv", required_argument, NULL, O_CSV },
	{ "plot", required_argument, NULL, O_PLOT },
	{ "jobs", required_argument, NULL, O_JOBS },
	{ "verbose", no_argument, NULL, O_VERBOSE },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

/* A number in [lo, hi] from option `opt`, or exit 2. */
static double parse_num(const char *opt, const char *s, double lo, double hi)
{
	char name[48], err[192];
	double v;

	snprintf(name, sizeof(name), "--%s", opt);
	if (dp_opt_double(name, s, lo, hi, &v, err, sizeof(err)))
		usage_error("%s", err);
	return v;
}

/* A whole number in [lo, hi] for option opt, or exit 2. */
static uint64_t parse_count(const char *opt, const char *s, unsigned long lo,
			    unsigned long hi)
{
	char name[48], err[192];
	unsigned long v;

	snprintf(name, sizeof(name), "--%s", opt);
	if (dp_opt_ulong(name, s, lo, hi, &v, err, sizeof(err)))
		usage_error("%s", err);
	return v;
}

/*
 * A duration for option opt: a decimal number and a unit ns, us, ms or s
 * (plain: seconds), at most an hour; 0 only when zero_ok. Or exit 2.
 */
static uint64_t parse_duration_opt(const char *opt, const char *s, bool zero_ok)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 },
	};
	char num[64], name[48], err[192];
	size_t len = strlen(s), u = len;
	double v;

	while (u > 0 && isalpha((unsigned char)s[u - 1]))
		u--;
	snprintf(name, sizeof(name), "--%s", opt);
	snprintf(num, sizeof(num), "%.*s", (int)u, s);
	if (u && u < sizeof(num) && !dp_opt_double(name, num, 0, 3600e9, &v, err, sizeof(err)))
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (strcmp(s + u, units[i].unit) || v * units[i].ns > 3600e9)
				continue;
			if (v == 0 && zero_ok)
				return 0;
			/* Under a nanosecond would truncate to a run of nothing. */
			if (v * units[i].ns < 1)
				usage_error("%s: '%s' is under the clock's 1 ns", name, s);
			return (uint64_t)(v * units[i].ns);
		}
	usage_error("%s: '%s' is not a %sduration such as 20ms or 0.5s (at most 1 hour)", name,
		    s, zero_ok ? "" : "positive ");
}

/* Check an arbiter spec by creating it, or exit 2 with its message. */
static void check_arbiter(const char *spec, uint16_t nodes)
{
	char err[256];
	struct arb *a = arb_create(spec, nodes, 1, err, sizeof(err));

	if (!a)
		usage_error("--arbiter: %s", err);
	arb_destroy(a);
}

/* Check --conf by building its pipeline (no EAL needed), or exit 2. */
static void check_conf(const char *conf, uint16_t nodes)
{
	const struct pipeline_env env = { .ctx = NULL };
	char spec[512], err[256] = "";
	struct pipeline *pl;

	if (conf_expand(conf, spec, sizeof(spec), err, sizeof(err)))
		usage_error("--conf: %s", err);
	pl = pipeline_create(&stage_registry, spec, 1, 0, nodes, &env, err, sizeof(err));
	if (!pl)
		usage_error("--conf: %s", err);
	pipeline_destroy(pl);
}

/* An output file is written after every run: refuse at once one that cannot be. */
static void check_output(const char *opt, const char *path)
{
	char err[PATH_MAX + 128];

	if (!path)
		return;
	/* The plot's path goes into gnuplot's script. */
	if (strchr(path, '\n'))
		usage_error("%s: '%s' is not a file name", opt, path);
	if (dp_opt_output(opt, path, err, sizeof(err)))
		usage_error("%s", err);
}

/* A load for option opt in [SIM_MIN_LOAD, 1], or exit 2. */
static double parse_load(const char *opt, const char *s)
{
	double v = parse_num(opt, s, -DBL_MAX, DBL_MAX);
	char min[DP_OPT_NUM_LEN];

	if (!(v > 0 && v <= 1))
		usage_error("--%s %s: must be in (0, 1]", opt, s);
	if (v < SIM_MIN_LOAD)
		usage_error("--%s %s: under the smallest load, %s", opt, s,
			    dp_opt_num(SIM_MIN_LOAD, min));
	return v;
}

/* Parse A:B:STEP into the load list of cli. */
static void parse_sweep(struct sim_cli *cli, const char *s)
{
	static const char *const names[] = { "load-sweep A", "load-sweep B", "load-sweep STEP" };
	double v[3], points;
	const char *f = s;

	for (int i = 0; i < 3; i++) {
		const char *colon = strchr(f, ':');
		size_t len = colon && i < 2 ? (size_t)(colon - f) : strlen(f);
		char field[64];

		if ((i < 2 && !colon) || len >= sizeof(field))
			usage_error("--load-sweep: '%s' must be A:B:STEP with 0 < A <= B <= 1, STEP > 0", s);
		snprintf(field, sizeof(field), "%.*s", (int)len, f);
		v[i] = i < 2 ? parse_load(names[i], field) : parse_num(names[i], field, 0, 1);
		f += len + 1;
	}
	if (!(v[2] > 0) || v[0] > v[1] + 1e-9)
		usage_error("--load-sweep: '%s' must be A:B:STEP with 0 < A <= B <= 1, STEP > 0", s);
	points = floor((v[1] - v[0]) / v[2] + 1e-9) + 1;
	if (points > SIM_MAX_LOADS)
		usage_error("--load-sweep: '%s' has %.0f points, at most %d", s, points,
			    SIM_MAX_LOADS);
	cli->n_loads = (int)points;
	/* Loads are kept to the 1e-6 the CSV shows. */
	for (int i = 0; i < cli->n_loads; i++)
		cli->loads[i] = round((v[0] + i * v[2]) * 1e6) / 1e6;
}

/* Apply the clint preset (explicit options given later still win). */
static void apply_clint(struct sim_cli *cli)
{
	struct simrun_config *c = &cli->base;

	c->nodes = 16;
	c->bulk_gbps = 2;
	c->quick_gbps = 0.53;
	c->payload = 2048;
	c->bulk_bufs = 16;
	c->quick_bufs = 4;
	cli->burst_max = 5;
	cli->preset = true;
}

/* Parse one option into cli. */
static void parse_opt(struct sim_cli *cli, int opt, const char *arg)
{
	struct simrun_config *c = &cli->base;

	switch (opt) {
	case O_NODES: c->nodes = (uint16_t)parse_count("nodes", arg, 2, PROTO_MAX_NODES); break;
	case O_ARBITER: cli->arbiter = arg; break;
	case O_QUICK_MODE:
		if (strcmp(arg, "drop") && strcmp(arg, "interleave") && strcmp(arg, "both"))
			usage_error("--quick-mode: '%s' is not drop, interleave or both", arg);
		cli->quick_mode = arg;
		break;
	case O_BULK_GBPS:
		c->bulk_gbps = parse_num("bulk-gbps", arg, DP_OPT_GBPS_MIN, DP_OPT_GBPS_MAX);
		break;
	case O_QUICK_GBPS:
		c->quick_gbps = parse_num("quick-gbps", arg, DP_OPT_GBPS_MIN, DP_OPT_GBPS_MAX);
		break;
	case O_PROP: c->prop_ns = (uint64_t)parse_count("prop-ns", arg, 0, 1000000000); break;
	case O_SLOT_FRAMES: c->slot_frames = (uint32_t)parse_count("slot-frames", arg, 1, 64); break;
	case O_GRANT_LEAD:
		c->grant_lead = (uint32_t)parse_count("grant-lead", arg, 1, SW_MAX_GRANT_LEAD);
		break;
	case O_SEND_BUFFERS: c->bulk_bufs = (uint16_t)parse_count("send-buffers", arg, 1, 4096); break;
	case O_PER_TARGET: cli->per_target = (uint16_t)parse_count("per-target-cap", arg, 1, 4096); break;
	case O_QUICK_BUFFERS: c->quick_bufs = (uint16_t)parse_count("quick-buffers", arg, 1, 4096); break;
	case O_QUICK_RESERVE: c->quick_reserve = (uint16_t)parse_count("quick-reserve", arg, 0, 4096); break;
	case O_DESCRIPTORS: c->descriptors = (uint32_t)parse_count("descriptors", arg, 16, 1 << 22); break;
	case O_CFG_KEEPALIVE: c->cfg_keepalive = (uint32_t)parse_count("cfg-keepalive", arg, 1, PROTO_MAX_CFG_KEEPALIVE); break;
	case O_PAYLOAD: c->payload = (uint16_t)parse_count("payload", arg, 0, PROTO_MAX_PAYLOAD); break;
	case O_PRESET:
		if (strcmp(arg, "clint"))
			usage_error("--preset: unknown preset '%s' (clint)", arg);
		apply_clint(cli);
		break;
	case O_LOAD:
		cli->loads[0] = parse_load("load", arg);
		cli->n_loads = 1;
		break;
	case O_QUICK_LOAD:
		if (!strcmp(arg, "same-rate")) {
			c->quick_same_rate = true;
			break;
		}
		c->quick_same_rate = false;
		c->quick_load = parse_load("quick-load", arg);
		break;
	case O_LOAD_SWEEP: parse_sweep(cli, arg); break;
	case O_TRAFFIC:
		if (traffic_pattern_parse(arg) < 0)
			usage_error("--traffic: '%s' is not uniform, hotspot or diagonal", arg);
		c->traffic = (enum traffic_pattern)traffic_pattern_parse(arg);
		break;
	case O_HOT_SHARE: c->hot_share = parse_num("hot-share", arg, 0, 1); break;
	case O_BURSTY: cli->bursty = 1; break;
	case O_NO_BURSTY: cli->bursty = 0; break;
	case O_BURST_MAX: cli->burst_max = (uint32_t)parse_count("burst-max", arg, 1, 1000); break;
	case O_CHANNELS:
		if (!strcmp(arg, "both"))
			c->channels = SIMRUN_BOTH;
		else if (!strcmp(arg, "bulk"))
			c->channels = SIMRUN_BULK;
		else if (!strcmp(arg, "quick"))
			c->channels = SIMRUN_QUICK;
		else
			usage_error("--channels: '%s' is not both, bulk or quick", arg);
		break;
	case O_DURATION: c->duration_ns = parse_duration_opt("duration", arg, false); break;
	case O_MESSAGES: c->messages = (uint64_t)parse_count("messages", arg, 1, 1000000000000ul); break;
	case O_CONF: c->conf = arg; break;
	case O_ONE_VNET: c->one_vnet = true; break;
	case O_OUTAGE: {
		const char *colon = strchr(arg, ':');
		char *at;

		if (!colon)
			usage_error("--outage: '%s' must be AT:LEN, e.g. 2ms:200us", arg);
		at = strndup(arg, (size_t)(colon - arg));
		if (!at)
			usage_error("--outage: out of memory");
		c->outage_at_ns = parse_duration_opt("outage", at, true);
		c->outage_ns = parse_duration_opt("outage", colon + 1, false);
		free(at);
		break;
	}
	case O_LOSS: c->faults.loss = parse_num("loss", arg, 0, 0.999); break;
	case O_DUP: c->faults.dup = parse_num("dup", arg, 0, 0.999); break;
	case O_REORDER: c->faults.reorder = parse_num("reorder", arg, 0, 0.999); break;
	case O_CORRUPT: c->faults.corrupt = parse_num("corrupt", arg, 0, 0.999); break;
	case O_SEED: c->seed = (uint64_t)parse_count("seed", arg, 0, UINT64_MAX); break;
	case O_CSV: cli->csv = arg; break;
	case O_PLOT: cli->plot = arg; break;
	case O_JOBS: cli->jobs = (int)parse_count("jobs", arg, 1, SIM_MAX_JOBS); break;
	case O_VERBOSE: cli->verbose = true; break;
	case 'h':
	case O_HELP: fputs(sim_help, stdout); exit(0);
	default: usage_error("unknown option");	/* not reached: getopt_long's own */
	}
}

/*
 * Options of which one may be given: one load or a sweep of them; a run of
 * a duration or of a number of messages; bursts or not.
 */
static const int sim_load_group[] = { O_LOAD, O_LOAD_SWEEP, 0 };
static const int sim_length_group[] = { O_DURATION, O_MESSAGES, 0 };
static const int sim_bursty_group[] = { O_BURSTY, O_NO_BURSTY, 0 };
static const int *const sim_groups[] = {
	sim_load_group, sim_length_group, sim_bursty_group, NULL,
};

/* Parse the command line (after EAL's arguments were removed). */
static void parse_args(struct sim_cli *cli, int argc, char **argv)
{
	struct dp_opt_parser p;
	char err[256];
	int opt;

	memset(cli, 0, sizeof(*cli));
	simrun_defaults(&cli->base);
	cli->burst_max = 5;
	cli->bursty = -1;
	cli->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (cli->jobs < 1 || cli->jobs > SIM_MAX_JOBS)
		cli->jobs = cli->jobs < 1 ? 1 : SIM_MAX_JOBS;
	cli->loads[0] = 0.5;
	cli->n_loads = 1;
	dp_opt_start(&p, sim_options, NULL, false);
	p.groups = sim_groups;
	while ((opt = dp_opt_next(&p, argc, argv, err, sizeof(err))) > 0)
		parse_opt(cli, opt, optarg);
	if (opt < 0) {
		/* dp_opt_next's message points to --help itself. */
		fprintf(stderr, "segnet-sim: %s\n", err);
		exit(EXIT_USAGE);
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (cli->per_target)
		cli->base.per_target = cli->per_target;
	else
		cli->base.per_target = nic_per_target_share(cli->base.bulk_bufs, 8);
	if (cli->base.per_target > cli->base.bulk_bufs)
		usage_error("--per-target-cap: %u is more than --send-buffers %u",
			    cli->base.per_target, cli->base.bulk_bufs);
	/* Checked here: --quick-buffers or --preset may come after it. */
	if (cli->base.quick_reserve > cli->base.quick_bufs)
		usage_error("--quick-reserve %u: must not exceed --quick-buffers %u",
			    cli->base.quick_reserve, cli->base.quick_bufs);
	if (cli->arbiter && strcmp(cli->arbiter, "all"))
		check_arbiter(cli->arbiter, cli->base.nodes);
	check_conf(cli->base.conf, cli->base.nodes);
	if (cli->base.traffic == TRAFFIC_DIAGONAL && cli->base.nodes < 3)
		usage_error("--traffic: diagonal needs at least 3 nodes");
	if ((cli->base.quick_load > 0 || cli->base.quick_same_rate) &&
	    cli->base.channels == SIMRUN_BULK)
		usage_error("--quick-load: --channels bulk gives the quick channel no traffic");
	check_output("--csv", cli->csv);
	check_output("--plot", cli->plot);
}

/* Build the list of runs from the parsed options. */
static void plan_runs(struct sim_cli *cli)
{
	const char *single[] = { cli->arbiter ? cli->arbiter : "lcf", NULL };
	const char *const *arbs = (!cli->arbiter && cli->preset) ||
		(cli->arbiter && !strcmp(cli->arbiter, "all")) ? sim_all_arbiters : single;
	int bursty_lo = cli->bursty >= 0 ? cli->bursty : 0;
	int bursty_hi = cli->bursty >= 0 ? cli->bursty : (cli->preset ? 1 : 0);
	int qm_lo = 0, qm_hi = 0;

	if (cli->quick_mode && !strcmp(cli->quick_mode, "interleave"))
		qm_lo = qm_hi = 1;
	else if (cli->quick_mode && !strcmp(cli->quick_mode, "both"))
		qm_hi = 1;
	cli->n_runs = 0;
	for (int a = 0; arbs[a]; a++)
		for (int b = bursty_lo; b <= bursty_hi; b++)
			for (int q = qm_lo; q <= qm_hi; q++)
				for (int l = 0; l < cli->n_loads; l++) {
					struct simrun_config *c = &cli->runs[cli->n_runs++];

					*c = cli->base;
					c->arbiter = arbs[a];
					c->burst_max = b ? cli->burst_max : 1;
					c->quick_mode = q ? SW_QUICK_INTERLEAVE : SW_QUICK_DROP;
					c->load = cli->loads[l];
				}
}

/*
 * Run plan entry i in a child process using the pool of job slot `job`; the
 * result comes back over a pipe. DPDK's memory is shared between parent and
 * children, so each job slot has its own pool, used by one child at a time.
 * Returns -1 with errno set and fd[0] = -1 when no process could be started.
 */
static pid_t run_child(struct sim_cli *cli, int i, int job, int fd[2])
{
	pid_t pid;

	if (pipe(fd)) {
		fd[0] = fd[1] = -1;
		return -1;
	}
	/* Or the child would print the parent's buffered output a second time. */
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		fd[0] = -1;
	}
	if (pid == 0) {
		struct sim_outcome out = { 0 };
		int rc = 0;

		close(fd[0]);
		out.rc = simrun(&cli->runs[i], cli->pools[job], &out.res, cli->verbose,
				out.err, sizeof(out.err));
		if (write(fd[1], &out, sizeof(out)) != (ssize_t)sizeof(out))
			rc = 1;
		/* _exit does not flush: the --verbose counters would be lost in a pipe. */
		fflush(stdout);
		_exit(rc);
	}
	close(fd[1]);
	return pid;
}

/* Run every planned run, up to cli->jobs at a time; results in cli->out. */
static void run_all(struct sim_cli *cli)
{
	pid_t pids[SIM_MAX_JOBS];
	int fds[SIM_MAX_JOBS], slot_of[SIM_MAX_JOBS], job_of[SIM_MAX_JOBS], errno_of[SIM_MAX_JOBS];
	int running = 0, next = 0;
	bool busy[SIM_MAX_JOBS] = { false };

	if (cli->jobs <= 1 || cli->n_runs == 1) {
		for (int i = 0; i < cli->n_runs; i++) {
			cli->out[i].rc = simrun(&cli->runs[i], cli->pools[0], &cli->out[i].res,
						cli->verbose, cli->out[i].err,
						sizeof(cli->out[i].err));
			sim_print_row(cli, i);
		}
		return;
	}
	while (next < cli->n_runs || running) {
		while (running < cli->jobs && next < cli->n_runs) {
			int fd[2], job = 0;

			while (busy[job])
				job++;
			busy[job] = true;
			pids[running] = run_child(cli, next, job, fd);
			errno_of[running] = errno;
			fds[running] = fd[0];
			job_of[running] = job;
			slot_of[running++] = next++;
		}
		/* Collect the oldest child, so rows print in plan order. */
		if (fds[0] < 0) {
			cli->out[slot_of[0]].rc = -EAGAIN;
			snprintf(cli->out[slot_of[0]].err, sizeof(cli->out[0].err),
				 "cannot start a run process: %s", strerror(errno_of[0]));
		} else if (read(fds[0], &cli->out[slot_of[0]], sizeof(cli->out[0])) !=
			   (ssize_t)sizeof(cli->out[0])) {
			cli->out[slot_of[0]].rc = -EIO;
			snprintf(cli->out[slot_of[0]].err, sizeof(cli->out[0].err),
				 "run process died");
		}
		if (fds[0] >= 0)
			close(fds[0]);
		if (pids[0] > 0)
			waitpid(pids[0], NULL, 0);
		busy[job_of[0]] = false;
		sim_print_row(cli, slot_of[0]);
		memmove(pids, pids + 1, (size_t)(running - 1) * sizeof(pids[0]));
		memmove(job_of, job_of + 1, (size_t)(running - 1) * sizeof(job_of[0]));
		memmove(fds, fds + 1, (size_t)(running - 1) * sizeof(fds[0]));
		memmove(errno_of, errno_of + 1, (size_t)(running - 1) * sizeof(errno_of[0]));
		memmove(slot_of, slot_of + 1, (size_t)(running - 1) * sizeof(slot_of[0]));
		running--;
	}
}

int main(int argc, char **argv)
{
	char mem[16];
	char *eal_argv[] = {
		argv[0], "--no-huge", "-m", mem, "--no-pci", "--no-shconf",
		"--no-telemetry", "-l", "0", "--log-level", "*:warning",
		"--log-level", "lib.eal:error", NULL,
	};
	struct sim_cli *cli = calloc(1, sizeof(*cli));
	cpu_set_t cpus;
	bool have_cpus;
	int failed = 0;

	if (!cli)
		return 1;
	/* Options first: --help and bad arguments need no EAL. */
	parse_args(cli, argc, argv);
	plan_runs(cli);
	for (int i = 0; i < cli->n_runs; i++) {
		char err[256];

		if (simrun_check(&cli->runs[i], err, sizeof(err)))
			usage_error("%s", err);
	}
	if (cli->jobs > cli->n_runs)
		cli->jobs = cli->n_runs;
	snprintf(mem, sizeof(mem), "%d", 128 + cli->jobs * SIM_POOL_MB);
	have_cpus = sched_getaffinity(0, sizeof(cpus), &cpus) == 0;
	if (rte_eal_init((int)(sizeof(eal_argv) / sizeof(eal_argv[0])) - 1, eal_argv) < 0) {
		fprintf(stderr, "segnet-sim: cannot initialise DPDK EAL\n");
		return 1;
	}
	/*
	 * The EAL pins this thread to its lcore (CPU 0), and the runs are
	 * children forked from it: give back every CPU we had, or --jobs would
	 * run them all on CPU 0.
	 */
	if (have_cpus && sched_setaffinity(0, sizeof(cpus), &cpus))
		fprintf(stderr, "segnet-sim: cannot restore the CPU affinity: %s\n",
			strerror(errno));
	for (int j = 0; j < cli->jobs; j++) {
		char name[32];

		snprintf(name, sizeof(name), "segnet-sim%d", j);
		cli->pools[j] = dp_pool_create(name, SIMRUN_POOL_FRAMES, SOCKET_ID_ANY);
		if (!cli->pools[j]) {
			fprintf(stderr, "segnet-sim: cannot create a pool of %d frames\n",
				SIMRUN_POOL_FRAMES);
			return 1;
		}
	}
	sim_print_header(cli);
	run_all(cli);
	for (int i = 0; i < cli->n_runs; i++)
		failed |= cli->out[i].rc != 0;
	if (cli->csv && sim_write_csv(cli, cli->csv))
		failed = 1;
	if (cli->plot && sim_plot(cli, cli->plot))
		failed = 1;
	sim_print_summary(cli);
	for (int j = 0; j < cli->jobs; j++)
		rte_mempool_free(cli->pools[j]);
	rte_eal_cleanup();
	free(cli);
	return failed;
}
