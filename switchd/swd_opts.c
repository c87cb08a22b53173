/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * switchd's command line: getopt_long over the arguments after "--", every
 * value checked with a message that names its option, and the node-to-port
 * map checked for gaps and duplicates. It runs before the EAL starts, so a
 * bad command line fails at once.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/dp_daemon.h"
#include "switchd/arb.h"
#include "switchd/swd.h"

/* Long-only options without a short letter. */
enum swd_opt {
	SWD_OPT_NODES = 256,
	SWD_OPT_PORT,
	SWD_OPT_BULK_PORT,
	SWD_OPT_QUICK_PORT,
	SWD_OPT_ARBITER,
	SWD_OPT_SLOT_FRAMES,
	SWD_OPT_LINK_GBPS,
	SWD_OPT_BULK_GBPS,
	SWD_OPT_QUICK_GBPS,
	SWD_OPT_QUICK_MODE,
	SWD_OPT_DOWN_SLOTS,
	SWD_OPT_GNT_KEEPALIVE,
	SWD_OPT_GRANT_LEAD,
	SWD_OPT_SEED,
};

/* The options getopt_long knows. */
static const struct option swd_long_opts[] = {
	{ "nodes", required_argument, NULL, SWD_OPT_NODES },
	{ "port", required_argument, NULL, SWD_OPT_PORT },
	{ "bulk-port", required_argument, NULL, SWD_OPT_BULK_PORT },
	{ "quick-port", required_argument, NULL, SWD_OPT_QUICK_PORT },
	{ "arbiter", required_argument, NULL, SWD_OPT_ARBITER },
	{ "slot-frames", required_argument, NULL, SWD_OPT_SLOT_FRAMES },
	{ "link-gbps", required_argument, NULL, SWD_OPT_LINK_GBPS },
	{ "bulk-gbps", required_argument, NULL, SWD_OPT_BULK_GBPS },
	{ "quick-gbps", required_argument, NULL, SWD_OPT_QUICK_GBPS },
	{ "quick-mode", required_argument, NULL, SWD_OPT_QUICK_MODE },
	{ "down-slots", required_argument, NULL, SWD_OPT_DOWN_SLOTS },
	{ "gnt-keepalive", required_argument, NULL, SWD_OPT_GNT_KEEPALIVE },
	{ "grant-lead", required_argument, NULL, SWD_OPT_GRANT_LEAD },
	{ "seed", required_argument, NULL, SWD_OPT_SEED },
	DP_DAEMON_LONG_OPTS,
	{ NULL, 0, NULL, 0 },
};

/* The options that are lists: one NODE=ETHDEV each. */
static const int swd_list_opts[] = { SWD_OPT_PORT, SWD_OPT_BULK_PORT, SWD_OPT_QUICK_PORT, 0 };

/* Which channels a NODE=ETHDEV argument gives. */
enum swd_port_kind {
	SWD_PORT_BOTH,
	SWD_PORT_BULK,
	SWD_PORT_QUICK,
};

/* Option names of the kinds, for messages. */
static const char *const swd_port_opt[] = { "--port", "--bulk-port", "--quick-port" };

/* A NODE=ETHDEV argument, kept until --nodes is known. */
struct swd_port_arg {
	enum swd_port_kind kind;	/* which option gave it */
	unsigned long node;		/* NODE */
	const char *name;		/* ETHDEV */
};

void swd_opts_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL args] -- --nodes N (--port NODE=ETHDEV ... |\n"
		"         --bulk-port NODE=ETHDEV --quick-port NODE=ETHDEV ...) [options]\n"
		"\n"
		"The segnet switch: arbitrates the bulk channel slot by slot and\n"
		"forwards the quick channel first come, first served. ETHDEV is a --vdev\n"
		"name (net_memif0), a PCI address (0000:3b:00.0) or a DPDK port number.\n"
		"\n"
		"  --nodes N               cluster size, 2 .. %d (node ids 0 .. N-1)\n"
		"  --port NODE=ETHDEV      one device carries both channels of NODE; control\n"
		"                          frames leave on its transmit queue 1\n"
		"  --bulk-port NODE=ETHDEV, --quick-port NODE=ETHDEV\n"
		"                          separate devices for NODE's two channels\n"
		"  --arbiter SPEC          bulk arbiter (default lcf), see below\n"
		"  --slot-frames K         bulk frames per slot, 1 .. 64 (default 1)\n"
		"  --link-gbps G           rate of both channels in Gbit/s (default 10)\n"
		"  --bulk-gbps G           bulk rate alone: sets the slot length\n"
		"  --quick-gbps G          quick rate alone: sets output busy times\n"
		"  --quick-mode MODE       drop (default) or interleave\n"
		"  --down-slots N          slots without CFG before a node is down\n"
		"                          (default 20000; 0 = never)\n"
		"  --gnt-keepalive N       slots between GNTs to an idle node, 1 .. %d\n"
		"                          (default 8; a NIC rejoins after %d slots\n"
		"                          without a GNT)\n"
		"  --grant-lead L          grant slot k+L at the start of slot k (default 1);\n"
		"                          raise it when breq_late grows: the GNT-to-BREQ\n"
		"                          round trip takes more than two slots\n"
		DP_DAEMON_IDLE_AFTER_USAGE("50")
		"  --idle-sleep-us US      first sleep once idle (default 100); sleeps grow\n"
		"                          with the idle time up to 1 ms, never past a slot\n"
		"                          boundary while a node requests; 1000 or more:\n"
		"                          used as is; 0: never sleep\n"
		DP_DAEMON_CORE_USAGE
		"  --stats-interval SEC    print a summary line every SEC seconds (0 = off)\n"
		"  --link-wait-ms MS       wait MS for every link; fail if one stays down\n"
		"                          (default 0: don't wait)\n"
		DP_DAEMON_CHECK_CRC_USAGE
		"  --control-queue on|off  with --port, control frames on transmit queue 1\n"
		"                          (default on; a memif or vhost peer then needs\n"
		"                          two receive queues)\n"
		"  --seed S                seed of the randomized arbiter, pim (default 1)\n"
		DP_DAEMON_CAPTURE_USAGE("port")
		"\n"
		"Arbiters:\n",
		prog, PROTO_MAX_NODES, PROTO_MAX_GNT_KEEPALIVE, PROTO_LOST_GNT_SLOTS);
	for (const struct arb_ops *const *a = arb_list(); *a; a++) {
		char name[32];

		snprintf(name, sizeof(name), "%s%s", (*a)->name,
			 (*a)->takes_iterations ? "[:K]" : "");
		fprintf(f, "  %-22s  %s\n", name, (*a)->help);
	}
	fprintf(f,
		"\n"
		"Telemetry (dpdk-telemetry.py -f PREFIX): /segnet/switch/stats,\n"
		"/segnet/switch/nodes[,ID], /segnet/switch/arbiter. See switchd(8).\n");
}

/* Parse NODE=ETHDEV into a (with node not yet checked against --nodes). */
static int swd_parse_port(enum swd_port_kind kind, const char *arg,
			  struct swd_port_arg *a, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	char node[16];
	size_t len = eq ? (size_t)(eq - arg) : 0;

	if (!eq || len == 0 || len >= sizeof(node) || !eq[1])
		return dp_opt_fail(err, errlen, "%s %s: must be NODE=ETHDEV (e.g. 0=net_memif0)",
				swd_port_opt[kind], arg);
	memcpy(node, arg, len);
	node[len] = '\0';
	a->kind = kind;
	a->name = eq + 1;
	if (dp_opt_ulong(swd_port_opt[kind], node, 0, PROTO_MAX_NODES - 1, &a->node,
			    err, errlen))
		return dp_opt_fail(err, errlen, "%s %s: NODE must be a node id (0 .. N-1)",
				swd_port_opt[kind], arg);
	return 0;
}

/* Put one NODE=ETHDEV into the node table; -EINVAL for a node given twice. */
static int swd_place_port(struct swd_opts *o, const struct swd_port_arg *a,
			  char *err, size_t errlen)
{
	struct swd_node_names *nn;
	const char **slot;

	if (a->node >= o->nodes)
		return dp_opt_fail(err, errlen, "%s %lu=%s: node %lu is outside 0 .. %u (--nodes %u)",
				swd_port_opt[a->kind], a->node, a->name, a->node,
				o->nodes - 1, o->nodes);
	nn = &o->node[a->node];
	slot = a->kind == SWD_PORT_BOTH ? &nn->port :
	       a->kind == SWD_PORT_BULK ? &nn->bulk : &nn->quick;
	if (*slot)
		return dp_opt_fail(err, errlen, "%s: node %lu is given twice (%s and %s)",
				swd_port_opt[a->kind], a->node, *slot, a->name);
	*slot = a->name;
	if (nn->port && (nn->bulk || nn->quick))
		return dp_opt_fail(err, errlen, "node %lu has --port and --%s-port: give one device (--port) or two (--bulk-port and --quick-port)",
				a->node, nn->bulk ? "bulk" : "quick");
	return 0;
}

/* Every node has its device(s), and no device serves two roles. */
/* The devices the nodes name: one per --port, two per --bulk-port/--quick-port pair. */
static unsigned int devs_of(const struct swd_opts *o)
{
	unsigned int n = 0;

	for (uint16_t i = 0; i < o->nodes; i++)
		n += o->node[i].port ? 1 : 2;
	return n;
}

static int swd_check_nodes(const struct swd_opts *o, char *err, size_t errlen)
{
	for (uint16_t i = 0; i < o->nodes; i++) {
		const struct swd_node_names *nn = &o->node[i];

		if (!nn->port && !nn->bulk && !nn->quick)
			return dp_opt_fail(err, errlen, "node %u has no port: give --port %u=ETHDEV (or --bulk-port and --quick-port)",
					i, i);
		if (!nn->port && (!nn->bulk || !nn->quick))
			return dp_opt_fail(err, errlen, "node %u has %s but no %s", i,
					nn->bulk ? "--bulk-port" : "--quick-port",
					nn->bulk ? "--quick-port" : "--bulk-port");
		if (!nn->port && !strcmp(nn->bulk, nn->quick))
			return dp_opt_fail(err, errlen, "node %u: --bulk-port and --quick-port name the same device %s: use --port %u=%s",
					i, nn->bulk, i, nn->bulk);
	}
	/* One device, one role (the same device under two names is caught later). */
	for (uint16_t i = 0; i < o->nodes; i++) {
		const char *mine[3] = { o->node[i].port, o->node[i].bulk, o->node[i].quick };

		for (uint16_t j = 0; j <= i; j++) {
			const char *theirs[3] = { o->node[j].port, o->node[j].bulk,
						  o->node[j].quick };

			for (int a = 0; a < 3; a++)
				for (int b = 0; b < 3; b++)
					if (mine[a] && theirs[b] && (i != j || a < b) &&
					    !strcmp(mine[a], theirs[b]))
						return dp_opt_fail(err, errlen, "device %s is given to node %u and node %u: every node needs its own",
								mine[a], j, i);
		}
	}
	return dp_ethdev_devices_fit(devs_of(o), err, errlen);
}

/* Cross-option checks once everything is parsed. */
static int swd_check(struct swd_opts *o, struct swd_port_arg *ports,
		     unsigned int n_ports, char *err, size_t errlen)
{
	char aerr[256], num[DP_OPT_NUM_LEN];
	struct arb *a;

	if (!o->nodes)
		return dp_opt_fail(err, errlen, "--nodes N is required (2 .. %d)", PROTO_MAX_NODES);
	if (dp_daemon_opts_check(&o->common, err, errlen))
		return -EINVAL;
	/* --bulk-gbps and --quick-gbps win over --link-gbps, in any order. */
	if (!o->bulk_gbps)
		o->bulk_gbps = o->link_gbps;
	if (!o->quick_gbps)
		o->quick_gbps = o->link_gbps;
	a = arb_create(o->arbiter, o->nodes, o->seed, aerr, sizeof(aerr));
	if (!a)
		return dp_opt_fail(err, errlen, "--arbiter %s: %s", o->arbiter, aerr);
	o->arb_seeded = a->ops->seeded;
	arb_destroy(a);
	if (swd_opts_slot_ns(o) > UINT32_MAX)
		return dp_opt_fail(err, errlen, "--bulk-gbps %s with --slot-frames %u: a slot of %llu ns is longer than the 4.29 s a GNT can say",
				dp_opt_num(o->bulk_gbps, num), o->slot_frames,
				(unsigned long long)swd_opts_slot_ns(o));
	o->node = calloc(o->nodes, sizeof(*o->node));
	if (!o->node)
		return dp_opt_fail(err, errlen, "out of memory");
	for (unsigned int k = 0; k < n_ports; k++)
		if (swd_place_port(o, &ports[k], err, errlen))
			return -EINVAL;
	return swd_check_nodes(o, err, errlen);
}

/* Set the defaults the man page documents. */
static void swd_opts_defaults(struct swd_opts *o)
{
	memset(o, 0, sizeof(*o));
	dp_daemon_opts_defaults(&o->common, 50);
	o->arbiter = "lcf";
	o->slot_frames = 1;
	o->link_gbps = 10;
	o->quick_mode = SW_QUICK_DROP;
	o->down_slots = PROTO_DOWN_SLOTS;
	o->gnt_keepalive = 8;
	o->grant_lead = 1;
	o->seed = 1;
}

/* Handle one option that takes a number or a word. */
static int swd_parse_value(struct swd_opts *o, int c, const char *arg, char *err,
			   size_t errlen)
{
	unsigned long v = 0;
	bool b = true;
	int rc;

	switch (c) {
	case SWD_OPT_NODES:
		rc = dp_opt_ulong("--nodes", arg, 2, PROTO_MAX_NODES, &v, err, errlen);
		o->nodes = (uint16_t)v;
		return rc;
	case SWD_OPT_ARBITER:
		o->arbiter = arg;
		return 0;
	case SWD_OPT_SLOT_FRAMES:
		return dp_opt_u32("--slot-frames", arg, 1, 64, &o->slot_frames, err, errlen);
	case SWD_OPT_LINK_GBPS:
		return dp_opt_gbps("--link-gbps", arg, &o->link_gbps, err, errlen);
	case SWD_OPT_BULK_GBPS:
		return dp_opt_gbps("--bulk-gbps", arg, &o->bulk_gbps, err, errlen);
	case SWD_OPT_QUICK_GBPS:
		return dp_opt_gbps("--quick-gbps", arg, &o->quick_gbps, err, errlen);
	case SWD_OPT_QUICK_MODE:
		rc = dp_opt_choice("--quick-mode", arg, "drop", "interleave", &b, err, errlen);
		o->quick_mode = b ? SW_QUICK_DROP : SW_QUICK_INTERLEAVE;
		return rc;
	case SWD_OPT_DOWN_SLOTS:
		return dp_opt_u32("--down-slots", arg, 0, UINT32_MAX, &o->down_slots, err, errlen);
	case SWD_OPT_GNT_KEEPALIVE:
		return dp_opt_u32("--gnt-keepalive", arg, 1, PROTO_MAX_GNT_KEEPALIVE,
				  &o->gnt_keepalive, err, errlen);
	case SWD_OPT_GRANT_LEAD:
		return dp_opt_u32("--grant-lead", arg, 1, SW_MAX_GRANT_LEAD, &o->grant_lead, err,
				  errlen);
	case SWD_OPT_SEED:
		rc = dp_opt_ulong("--seed", arg, 0, ULONG_MAX, &v, err, errlen);
		o->seed = v;
		return rc;
	}
	return dp_opt_fail(err, errlen, "unknown option (see --help)");
}

/* Options that have no effect with the others given; 0 or -EINVAL naming one. */
static int swd_check_effect(const struct swd_opts *o, const struct dp_opt_parser *p,
			    char *err, size_t errlen)
{
	bool one_device = false;
	char why[128];
	int rc = dp_daemon_opts_check_effect(&o->common, p, err, errlen);

	for (uint16_t i = 0; i < o->nodes; i++)
		one_device |= o->node[i].port != NULL;
	if (!rc && dp_opt_given(p, SWD_OPT_BULK_GBPS) && dp_opt_given(p, SWD_OPT_QUICK_GBPS))
		rc = dp_opt_refuse_given(p, (const int[]){ SWD_OPT_LINK_GBPS, 0 },
					 "has no effect: --bulk-gbps and --quick-gbps set both rates",
					 err, errlen);
	if (!rc && !one_device)
		rc = dp_opt_refuse_given(p, (const int[]){ DP_DAEMON_OPT_CONTROL_QUEUE, 0 },
					 "is for nodes on one device (--port): a node with --bulk-port and --quick-port gets its control frames on the quick port",
					 err, errlen);
	snprintf(why, sizeof(why), "has no effect: arbiter %s makes no random choice (pim does)",
		 o->arbiter);
	if (!rc && !o->arb_seeded)
		rc = dp_opt_refuse_given(p, (const int[]){ SWD_OPT_SEED, 0 }, why, err, errlen);
	return rc;
}

/* The NODE=ETHDEV arguments, kept until --nodes is known. */
struct swd_parse {
	struct swd_opts *o;		/* the options */
	struct swd_port_arg *ports;	/* one per --port, --bulk-port, --quick-port */
	unsigned int n_ports;		/* entries in ports */
};

/* Handle one of switchd's own options (ctx: the struct swd_parse). */
static int swd_parse_one(void *ctx, int c, const char *arg, char *err, size_t errlen)
{
	struct swd_parse *sp = ctx;

	if (c == SWD_OPT_PORT || c == SWD_OPT_BULK_PORT || c == SWD_OPT_QUICK_PORT)
		return swd_parse_port((enum swd_port_kind)(c - SWD_OPT_PORT), arg,
				      &sp->ports[sp->n_ports++], err, errlen);
	return swd_parse_value(sp->o, c, arg, err, errlen);
}

int swd_opts_parse(struct swd_opts *o, int argc, char **argv, char *err,
		   size_t errlen)
{
	struct swd_parse sp = { .o = o, .ports = calloc((size_t)argc + 1, sizeof(*sp.ports)) };
	struct dp_opt_parser p;
	int rc;

	swd_opts_defaults(o);
	if (!sp.ports)
		return dp_opt_fail(err, errlen, "out of memory");
	dp_opt_start(&p, swd_long_opts, swd_list_opts, true);
	rc = dp_daemon_opts_parse(&o->common, &p, argc, argv, swd_parse_one, &sp, err, errlen);
	if (rc == 1)
		swd_opts_usage(stdout, argv[0]);
	if (!rc)
		rc = swd_check(o, sp.ports, sp.n_ports, err, errlen);
	if (!rc)
		rc = swd_check_effect(o, &p, err, errlen);
	free(sp.ports);
	return rc;
}

void swd_opts_free(struct swd_opts *o)
{
	free(o->node);
	o->node = NULL;
}

uint64_t swd_opts_slot_ns(const struct swd_opts *o)
{
	return sw_slot_ns_for(o->bulk_gbps, o->slot_frames);
}
