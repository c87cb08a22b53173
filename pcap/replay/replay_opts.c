/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segnet-replay's command line: getopt_long over the arguments after "--",
 * every value checked with a message that names its option, the timing
 * options mapped onto struct timing_opts. It runs before the EAL starts,
 * so a bad command line fails at once.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_opts.h"
#include "pcap/replay/replay.h"

/* Long-only options. */
enum replay_opt {
	REPLAY_OPT_MODE = 256,
	REPLAY_OPT_PORT,
	REPLAY_OPT_MULTIPLIER,
	REPLAY_OPT_PPS,
	REPLAY_OPT_MBPS,
	REPLAY_OPT_TOPSPEED,
	REPLAY_OPT_LOOP,
	REPLAY_OPT_LIMIT,
	REPLAY_OPT_DURATION,
	REPLAY_OPT_OVERHEAD,
	REPLAY_OPT_BURST,
	REPLAY_OPT_SPIN_US,
	REPLAY_OPT_LINK_WAIT_MS,
	REPLAY_OPT_CSV,
	REPLAY_OPT_JSON,
	REPLAY_OPT_CHECK,
	REPLAY_OPT_NICD,
	REPLAY_OPT_LAB,
	REPLAY_OPT_VNET,
	REPLAY_OPT_KEY_FILE,
	REPLAY_OPT_MAP,
	REPLAY_OPT_CHANNEL,
	REPLAY_OPT_QUICK_MAX,
	REPLAY_OPT_LATENCY_CSV,
	REPLAY_OPT_DRAIN_MS,
};

/* The options getopt_long knows. */
static const struct option replay_long_opts[] = {
	{ "mode", required_argument, NULL, REPLAY_OPT_MODE },
	{ "port", required_argument, NULL, REPLAY_OPT_PORT },
	{ "multiplier", required_argument, NULL, REPLAY_OPT_MULTIPLIER },
	{ "pps", required_argument, NULL, REPLAY_OPT_PPS },
	{ "mbps", required_argument, NULL, REPLAY_OPT_MBPS },
	{ "topspeed", no_argument, NULL, REPLAY_OPT_TOPSPEED },
	{ "loop", required_argument, NULL, REPLAY_OPT_LOOP },
	{ "limit", required_argument, NULL, REPLAY_OPT_LIMIT },
	{ "duration", required_argument, NULL, REPLAY_OPT_DURATION },
	{ "overhead", required_argument, NULL, REPLAY_OPT_OVERHEAD },
	{ "burst", required_argument, NULL, REPLAY_OPT_BURST },
	{ "spin-us", required_argument, NULL, REPLAY_OPT_SPIN_US },
	{ "link-wait-ms", required_argument, NULL, REPLAY_OPT_LINK_WAIT_MS },
	{ "csv", required_argument, NULL, REPLAY_OPT_CSV },
	{ "json", required_argument, NULL, REPLAY_OPT_JSON },
	{ "nicd", required_argument, NULL, REPLAY_OPT_NICD },
	{ "lab", required_argument, NULL, REPLAY_OPT_LAB },
	{ "vnet", required_argument, NULL, REPLAY_OPT_VNET },
	{ "key-file", required_argument, NULL, REPLAY_OPT_KEY_FILE },
	{ "map", required_argument, NULL, REPLAY_OPT_MAP },
	{ "channel", required_argument, NULL, REPLAY_OPT_CHANNEL },
	{ "quick-max", required_argument, NULL, REPLAY_OPT_QUICK_MAX },
	{ "latency-csv", required_argument, NULL, REPLAY_OPT_LATENCY_CSV },
	{ "drain-ms", required_argument, NULL, REPLAY_OPT_DRAIN_MS },
	{ "check", no_argument, NULL, REPLAY_OPT_CHECK },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The options that are lists: one node each. */
static const int replay_list_opts[] = { REPLAY_OPT_NICD, 0 };

/* The timing modes: one may be given. */
static const int replay_timing_group[] = {
	REPLAY_OPT_MULTIPLIER, REPLAY_OPT_PPS, REPLAY_OPT_MBPS, REPLAY_OPT_TOPSPEED, 0
};
static const int *const replay_groups[] = { replay_timing_group, NULL };

void replay_opts_usage(FILE *f, const char *prog)
{
	char lo[DP_OPT_NUM_LEN], hi[DP_OPT_NUM_LEN];

	fprintf(f,
		"usage: %s [EAL args] -- [--mode frames] --port ETHDEV [timing] [options] FILE\n"
		"       %s --mode messages (--nicd NAME ... | --lab DIR) [--key-file F]\n"
		"         [--vnet N] [--map hash|mac|ip|MAPFILE] [timing] [options] FILE\n"
		"\n"
		"Replays the records of a pcap or pcapng trace (microsecond or nanosecond\n"
		"timestamps) on a schedule. The whole file is validated first: a truncated or\n"
		"corrupt trace is refused, naming the byte offset, and nothing is sent.\n"
		"\n"
		"Timing (one of; default: the recorded timestamps, --multiplier 1):\n"
		"  --multiplier X      recorded timing, X times as fast (%s .. %s)\n"
		"  --pps N             N packets per second, evenly spaced\n"
		"  --mbps M            M megabits (10^6 bit) per second of frame bytes\n"
		"  --topspeed          as fast as the port takes them\n"
		"  --loop N            passes over the trace (default 1; 0 = until stopped);\n"
		"                      timestamps keep increasing across loops\n"
		"  --limit N           stop after N packets in all\n"
		"  --duration S        stop S seconds (fractions allowed) after the start\n"
		"  --overhead B        --mbps counts B more bytes per frame (default 0)\n"
		"\n"
		"Options:\n"
		"  --mode MODE         what to do with each record (default frames), see below\n"
		"  --burst N           records per transmit call at most (1 .. %d, default %d,\n"
		"                      %d with --topspeed); on a paced schedule only records\n"
		"                      more than 20 us late share a call (a sender catching up)\n"
		"  --spin-us US        busy-wait the last US microseconds before each due time\n"
		"                      (default %d; sleep before that)\n"
		"  --link-wait-ms MS   frames: wait up to MS for the port's link; messages:\n"
		"                      for every node to join the cluster (default %d)\n"
		"  --csv FILE          also write the report as CSV to FILE\n"
		"  --json FILE         also write the report as JSON to FILE\n"
		"  --check             read and validate the whole trace (Ethernet, as both\n"
		"                      modes need), print one line and exit: no EAL, port,\n"
		"                      nicd or lab needed, nothing sent\n"
		"  --help              this text\n"
		"\n"
		"Frames mode (EAL arguments before --):\n"
		"  --port ETHDEV       the port to send on (a --vdev name, a PCI address or a\n"
		"                      DPDK port number)\n"
		"  The port gets segnet's MTU (%u), or, when the trace's longest frame needs\n"
		"  more (its length less 14, and less 4 per VLAN tag), as much more as the\n"
		"  device takes (said up front; no option needed: the port is segnet-replay's\n"
		"  for the run). A frame the port still cannot send (over its MTU + 14, 4 more\n"
		"  per VLAN tag; af_packet: its kernel interface's MTU + 14, 4 more for one\n"
		"  802.1Q tag, within its slots) is left out and counted (too long, exit 1),\n"
		"  with what limits the port and how to raise it. A record shorter than an\n"
		"  Ethernet header (14 bytes) is left out and counted too (too short, exit 1).\n"
		"\n"
		"Messages mode (no EAL: nothing before --):\n"
		"  --nicd NAME         a node's nicd control socket (a name in\n"
		"                      $SEGNET_SOCKET_DIR or /run/segnet, or a path); repeat\n"
		"                      for every node, in node order (2 .. %d)\n"
		"  --lab DIR           the nodes, sockets and key of a lab.sh lab (DIR or its\n"
		"                      DIR/lab.state), instead of --nicd\n"
		"  --vnet N            virtual network (default %d)\n"
		"  --key-file FILE     its key (default with --lab: the lab's)\n"
		"  --map MAP           source and destination to nodes: ip (default: IPv4/IPv6\n"
		"                      addresses numbered by first appearance, round robin\n"
		"                      over the nodes), mac (MAC addresses, likewise), hash\n"
		"                      (FNV-1a of the IP address, else the MAC, modulo the\n"
		"                      nodes) or MAPFILE (lines ADDRESS NODE-INDEX)\n"
		"  --channel CH        auto (default: quick when the content fits --quick-max,\n"
		"                      else bulk), quick or bulk (content too long for the\n"
		"                      channel is cut, and counted)\n"
		"  --quick-max BYTES   auto: content up to BYTES goes quick (0 .. %d, default %d)\n"
		"  --latency-csv FILE  one line per delivered message: channel, latency_ns, ...\n"
		"  --drain-ms MS       after the last send, wait up to MS for the deliveries\n"
		"                      (default %d; none after a signal: the report says how\n"
		"                      many were still in flight)\n"
		"\n"
		"Modes:\n",
		prog, prog, dp_opt_num(timing_multiplier_range.min, lo),
		dp_opt_num(timing_multiplier_range.max, hi), REPLAY_BURST_MAX, REPLAY_BURST_DEFAULT, REPLAY_BURST_TOPSPEED,
		WAITER_SPIN_NS_DEFAULT / 1000,
		REPLAY_LINK_WAIT_DEFAULT, DP_ETHDEV_MTU, REPLAY_NODES_MAX, REPLAY_VNET_DEFAULT, REPLAY_QUICK_CAP,
		REPLAY_QUICK_CAP, REPLAY_DRAIN_DEFAULT);
	for (const struct replay_mode *const *m = replay_mode_list(); *m; m++)
		fprintf(f, "  %-18s  %s%s\n", (*m)->name, (*m)->help,
			(*m)->unavailable ? " (not built in this version)" : "");
	fprintf(f,
		"\n"
		"At the end it prints packets sent, the rate achieved against the rate asked\n"
		"for and the timing error (actual departure - scheduled) p50/p99; messages\n"
		"mode adds messages sent and delivered per node and channel and the latency\n"
		"per channel. Exit status: 0 all sent (and delivered), 1 failure (trace\n"
		"refused, port, nicd, dropped or undelivered), 2 bad arguments, 130 (143)\n"
		"stopped early by SIGINT (SIGTERM), after printing the report.\n"
		"See segnet-replay(1).\n");
}

/* Name of a messages-mode option, for the refusal of frames mode. */
static const char *replay_msg_opt_name(int c)
{
	for (const struct option *l = replay_long_opts; l->name; l++)
		if (l->val == c)
			return l->name;
	return "?";
}

/* Handle one option of messages mode. */
static int replay_parse_msg_value(struct replay_opts *o, int c, const char *arg, char *err,
				  size_t errlen)
{
	uint64_t v;
	int rc = 0;

	if (!o->msg_opt)
		o->msg_opt = replay_msg_opt_name(c);
	switch (c) {
	case REPLAY_OPT_NICD:
		if (!*arg)
			return dp_opt_fail(err, errlen, "--nicd needs a control socket name or path");
		if (o->n_nicd == REPLAY_NODES_MAX)
			return dp_opt_fail(err, errlen, "--nicd %s: at most %d nodes", arg,
					   REPLAY_NODES_MAX);
		o->nicd[o->n_nicd++] = arg;
		return 0;
	case REPLAY_OPT_LAB:
		if (!*arg)
			return dp_opt_fail(err, errlen, "--lab needs a directory");
		o->lab = arg;
		return 0;
	case REPLAY_OPT_VNET:
		rc = dp_opt_ulong("--vnet", arg, 0, UINT16_MAX, &v, err, errlen);
		o->vnet = (uint16_t)v;
		return rc;
	case REPLAY_OPT_KEY_FILE:
		o->key_file = arg;
		return 0;
	case REPLAY_OPT_MAP:
		if (!*arg)
			return dp_opt_fail(err, errlen, "--map needs hash, mac, ip or a file");
		o->map = arg;
		return 0;
	case REPLAY_OPT_CHANNEL:
		if (!strcmp(arg, "auto"))
			o->channel = REPLAY_CHAN_AUTO;
		else if (!strcmp(arg, "quick"))
			o->channel = REPLAY_CHAN_QUICK;
		else if (!strcmp(arg, "bulk"))
			o->channel = REPLAY_CHAN_BULK;
		else
			return dp_opt_fail(err, errlen, "--channel %s: must be auto, quick or bulk", arg);
		return 0;
	case REPLAY_OPT_QUICK_MAX:
		rc = dp_opt_ulong("--quick-max", arg, 0, REPLAY_QUICK_CAP, &v, err, errlen);
		o->quick_max = (uint32_t)v;
		return rc;
	case REPLAY_OPT_LATENCY_CSV:
		o->latency_csv = arg;
		return 0;
	case REPLAY_OPT_DRAIN_MS:
		rc = dp_opt_ulong("--drain-ms", arg, 0, 600000, &v, err, errlen);
		o->drain_ms = (uint32_t)v;
		return rc;
	}
	return dp_opt_fail(err, errlen, "unknown option (see --help)");
}

/* Handle one option that takes a value (or --topspeed). */
static int replay_parse_value(struct replay_opts *o, int c, const char *arg, char *err,
			      size_t errlen)
{
	uint64_t v;
	double d;
	int rc;

	switch (c) {
	case REPLAY_OPT_MODE:
		if (!replay_mode_find(arg))
			return dp_opt_fail(err, errlen, "--mode %s: unknown mode (frames or messages)", arg);
		o->mode = arg;
		return 0;
	case REPLAY_OPT_PORT:
		if (!*arg)
			return dp_opt_fail(err, errlen, "--port needs an ethdev name");
		o->port = arg;
		return 0;
	case REPLAY_OPT_MULTIPLIER:	/* the timing modes: one of them (replay_groups) */
		o->timing.mode = TIMING_RECORDED;
		return dp_opt_double("--multiplier", arg, timing_multiplier_range.min,
				     timing_multiplier_range.max, &o->timing.multiplier, err, errlen);
	case REPLAY_OPT_PPS:
		o->timing.mode = TIMING_PPS;
		return dp_opt_double("--pps", arg, timing_pps_range.min, timing_pps_range.max,
				     &o->timing.pps, err, errlen);
	case REPLAY_OPT_MBPS:
		o->timing.mode = TIMING_MBPS;
		return dp_opt_double("--mbps", arg, timing_mbps_range.min, timing_mbps_range.max,
				     &o->timing.mbps, err, errlen);
	case REPLAY_OPT_TOPSPEED:
		o->timing.mode = TIMING_TOPSPEED;
		return 0;
	case REPLAY_OPT_LOOP:
		rc = dp_opt_ulong("--loop", arg, 0, UINT64_MAX - 1, &v, err, errlen);
		o->timing.loops = v ? v : TIMING_LOOPS_FOREVER;
		return rc;
	case REPLAY_OPT_LIMIT:
		return dp_opt_ulong("--limit", arg, 1, UINT64_MAX, &o->timing.limit, err, errlen);
	case REPLAY_OPT_DURATION:
		rc = dp_opt_double("--duration", arg, 1e-9, 1e9, &d, err, errlen);
		o->timing.duration_ns = (uint64_t)llround(d * 1e9);
		return rc;
	case REPLAY_OPT_OVERHEAD:
		rc = dp_opt_ulong("--overhead", arg, 0, 65535, &v, err, errlen);
		o->timing.overhead = (uint32_t)v;
		return rc;
	case REPLAY_OPT_BURST:
		rc = dp_opt_ulong("--burst", arg, 1, REPLAY_BURST_MAX, &v, err, errlen);
		o->burst = (unsigned int)v;
		return rc;
	case REPLAY_OPT_SPIN_US:
		rc = dp_opt_ulong("--spin-us", arg, 0, 1000000, &v, err, errlen);
		o->spin_ns = v * 1000;
		return rc;
	case REPLAY_OPT_LINK_WAIT_MS:
		rc = dp_opt_ulong("--link-wait-ms", arg, 0, 600000, &v, err, errlen);
		o->link_wait_ms = (uint32_t)v;
		return rc;
	case REPLAY_OPT_CSV:
		o->csv = arg;
		return 0;
	case REPLAY_OPT_JSON:
		o->json = arg;
		return 0;
	case REPLAY_OPT_CHECK:
		o->check = true;
		return 0;
	}
	return replay_parse_msg_value(o, c, arg, err, errlen);
}

/* Set the defaults the man page documents. */
static void replay_opts_defaults(struct replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = "frames";
	timing_opts_init(&o->timing);
	o->burst = 0;		/* set in replay_check: depends on --topspeed */
	o->spin_ns = WAITER_SPIN_NS_DEFAULT;
	o->link_wait_ms = REPLAY_LINK_WAIT_DEFAULT;
	o->vnet = REPLAY_VNET_DEFAULT;
	o->map = "ip";
	o->channel = REPLAY_CHAN_AUTO;
	o->quick_max = REPLAY_QUICK_CAP;
	o->drain_ms = REPLAY_DRAIN_DEFAULT;
}

/* Checks once every option is known: the file, the mode's own needs. */
static int replay_check(struct replay_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	const struct replay_mode *m = replay_mode_find(o->mode);
	char msg[160];

	if (optind >= argc)
		return dp_opt_fail(err, errlen, "no trace given: FILE (a pcap or pcapng) is required (see --help)");
	if (optind + 1 < argc)
		return dp_opt_fail(err, errlen, "%s: unexpected argument after FILE %s (see --help)",
				   argv[optind + 1], argv[optind]);
	o->file = argv[optind];
	if (timing_opts_check(&o->timing, msg, sizeof(msg)))
		return dp_opt_fail(err, errlen, "%s", msg);
	if (o->timing.overhead && o->timing.mode != TIMING_MBPS)
		return dp_opt_fail(err, errlen, "--overhead %u only applies to --mbps",
				   o->timing.overhead);
	/*
	 * At top speed every call is a burst: 2 frames a call sent more frames
	 * a second than tcpreplay with smaller gap errors on a veth pair, 8 or
	 * more bunched the departures (doc/performance.md, Replay).
	 */
	if (!o->burst)
		o->burst = o->timing.mode == TIMING_TOPSPEED ? REPLAY_BURST_TOPSPEED : REPLAY_BURST_DEFAULT;
	/* --check reads the trace only: what the mode sends to is not needed. */
	return m->check && !o->check ? m->check(o, err, errlen) : 0;
}

uint64_t replay_opts_catchup_ns(const struct replay_opts *o)
{
	return o->timing.mode == TIMING_TOPSPEED ? 0 : REPLAY_CATCHUP_NS;
}

int replay_opts_parse(struct replay_opts *o, int argc, char **argv, char *err,
		      size_t errlen)
{
	struct dp_opt_parser p;
	int c, rc = 0;

	replay_opts_defaults(o);
	dp_opt_start(&p, replay_long_opts, replay_list_opts, true);
	p.groups = replay_groups;
	while (!rc && (c = dp_opt_next(&p, argc, argv, err, errlen)) > 0) {
		if (c == 'h') {
			replay_opts_usage(stdout, argv[0]);
			return 1;
		}
		rc = replay_parse_value(o, c, optarg, err, errlen);
	}
	if (c < 0)
		rc = c;
	if (!rc)
		rc = replay_check(o, argc, argv, err, errlen);
	/* --channel quick or bulk sends everything there, whatever its length. */
	if (!rc && o->channel != REPLAY_CHAN_AUTO)
		rc = dp_opt_refuse_given(&p, (const int[]){ REPLAY_OPT_QUICK_MAX, 0 },
					 "only applies to --channel auto (content up to it goes quick)",
					 err, errlen);
	return rc;
}
