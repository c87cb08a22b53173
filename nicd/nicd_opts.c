/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd's command line: getopt_long over the arguments after "--", every
 * value checked with a message that names its option, key files read and
 * configurations expanded. It runs before the EAL starts, so a bad command
 * line fails at once.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "nicd/conf.h"
#include "nicd/ctl_msg.h"
#include "nicd/host.h"
#include "dataplane/dp_daemon.h"
#include "nicd/nicd.h"
#include "nicd/stages/stages.h"

/* --per-target-cap's default: 1/NICD_CAP_SHARE of --send-buffers (16 of 64). */
enum { NICD_CAP_SHARE = 4 };

/*
 * --quick-reserve's default: 1/NICD_QUICK_RESERVE of --quick-buffers (4 of
 * 20), so one busy connection alone has the 16 it had before the reserve.
 */
enum { NICD_QUICK_RESERVE = 5 };

/* Long-only options without a short letter. */
enum nicd_opt {
	NICD_OPT_BULK_PORT = 256,
	NICD_OPT_QUICK_PORT,
	NICD_OPT_NAME,
	NICD_OPT_NODE,
	NICD_OPT_VNET,
	NICD_OPT_ENDPOINTS,
	NICD_OPT_MAX_NODES,
	NICD_OPT_SEND_BUFFERS,
	NICD_OPT_PER_TARGET_CAP,
	NICD_OPT_QUICK_BUFFERS,
	NICD_OPT_QUICK_RESERVE,
	NICD_OPT_DESCRIPTORS,
	NICD_OPT_CFG_KEEPALIVE,
	NICD_OPT_HELLO_US,
	NICD_OPT_SOCKET_DIR,
	NICD_OPT_SOCKET_MODE,
	NICD_OPT_QUICK_GBPS,
};

/* The options getopt_long knows. */
static const struct option nicd_long_opts[] = {
	{ "bulk-port", required_argument, NULL, NICD_OPT_BULK_PORT },
	{ "quick-port", required_argument, NULL, NICD_OPT_QUICK_PORT },
	{ "name", required_argument, NULL, NICD_OPT_NAME },
	{ "node", required_argument, NULL, NICD_OPT_NODE },
	{ "vnet", required_argument, NULL, NICD_OPT_VNET },
	{ "endpoints", required_argument, NULL, NICD_OPT_ENDPOINTS },
	{ "max-nodes", required_argument, NULL, NICD_OPT_MAX_NODES },
	{ "send-buffers", required_argument, NULL, NICD_OPT_SEND_BUFFERS },
	{ "per-target-cap", required_argument, NULL, NICD_OPT_PER_TARGET_CAP },
	{ "quick-buffers", required_argument, NULL, NICD_OPT_QUICK_BUFFERS },
	{ "quick-reserve", required_argument, NULL, NICD_OPT_QUICK_RESERVE },
	{ "descriptors", required_argument, NULL, NICD_OPT_DESCRIPTORS },
	{ "cfg-keepalive", required_argument, NULL, NICD_OPT_CFG_KEEPALIVE },
	{ "hello-us", required_argument, NULL, NICD_OPT_HELLO_US },
	{ "socket-dir", required_argument, NULL, NICD_OPT_SOCKET_DIR },
	{ "socket-mode", required_argument, NULL, NICD_OPT_SOCKET_MODE },
	{ "quick-gbps", required_argument, NULL, NICD_OPT_QUICK_GBPS },
	DP_DAEMON_LONG_OPTS,
	{ NULL, 0, NULL, 0 },
};

/* The options that are lists: one node or virtual network each. */
static const int nicd_list_opts[] = { NICD_OPT_NODE, NICD_OPT_VNET, 0 };

/* What the single-node options (--bulk-port, --quick-port, --name) gave. */
struct nicd_single {
	const char *bulk;	/* --bulk-port */
	const char *quick;	/* --quick-port */
	const char *name;	/* --name */
};

void nicd_opts_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL args] -- --bulk-port ETHDEV [--quick-port ETHDEV] [--name NAME]\n"
		"         --vnet ID:KEYFILE:CONF ... [options]\n"
		"       %s [EAL args] -- --node NAME:BULKDEV[:QUICKDEV] ... --vnet ID:KEYFILE:CONF ...\n"
		"\n"
		"The segnet NIC of a host: joins the cluster through the switch, runs the\n"
		"protocol of each virtual network, and serves endpoints to applications\n"
		"(libsegnet) through shared memory and the control socket DIR/NAME.sock.\n"
		"ETHDEV is a --vdev name (net_memif0), a PCI address or a DPDK port number.\n"
		"\n"
		"  --bulk-port ETHDEV      device of the bulk channel\n"
		"  --quick-port ETHDEV     device of the quick channel (default: the bulk one)\n"
		"  --name NAME             control socket name (default segnet0)\n"
		"  --node NAME:BULK[:QUICK]\n"
		"                          one more node in this process, with its own NIC,\n"
		"                          devices and control socket (instead of the three\n"
		"                          options above; repeat for a small lab; PCI\n"
		"                          addresses keep their colons)\n"
		"  --vnet ID:KEYFILE:CONF  serve virtual network ID (0 .. 65535); KEYFILE holds\n"
		"                          its key (1 .. %d bytes, one trailing newline\n"
		"                          ignored); CONF is conf1, conf2, conf3, conf4-gbn,\n"
		"                          conf4-sr, with overrides (e.g.\n"
		"                          conf3,timer:timeout_ns=500000), or a stage list.\n"
		"                          Repeatable, at least one\n"
		"  --endpoints N           endpoint table size per node (default 64, <= %d)\n"
		"  --max-nodes N           largest cluster to join (default 64, 2 .. %d)\n"
		"  --send-buffers N        bulk send buffers of a NIC (default 64)\n"
		"  --per-target-cap N      of which one target may hold (default a quarter\n"
		"                          of them, at least 1: 16 of 64)\n"
		"  --quick-buffers N       quick send buffers of a NIC (default 20)\n"
		"  --quick-reserve N       quick buffers kept for connections (a peer in a\n"
		"                          virtual network) that hold none, one each: one\n"
		"                          that holds any takes another only while more\n"
		"                          than N are free (default a fifth of them, at\n"
		"                          least 1: 4 of 20); a packet sent 4 times and\n"
		"                          not acknowledged gives its buffer to a\n"
		"                          connection that needs one\n"
		"  --descriptors N         packet descriptors per NIC (default 16384)\n"
		"  --quick-gbps G          the fabric's quick rate in Gbit/s (switchd\n"
		"                          --quick-gbps): QREQs leave at most this fast,\n"
		"                          or at the quick device's speed if lower\n"
		"                          (default: that speed)\n"
		"  --cfg-keepalive N       slots between CFGs while a NIC's requests do not\n"
		"                          change (default 8; 1 = a CFG every slot)\n"
		DP_DAEMON_IDLE_AFTER_USAGE("200")
		"  --idle-sleep-us US      first sleep per idle poll (default 100); sleeps\n"
		"                          grow to a quarter of the idle time, up to 1000,\n"
		"                          and are 1000 at once while no endpoint is open;\n"
		"                          1000 or more: used as is; 0: never sleep\n"
		"  --hello-us US           HELLO interval while joining (default 1000)\n"
		DP_DAEMON_CORE_USAGE
		"  --stats-interval SEC    print a summary line per node every SEC seconds\n"
		"                          (default 0 = off)\n"
		"  --link-wait-ms MS       wait MS for every link; fail if one stays down\n"
		"                          (default 0: don't wait, join when it comes up;\n"
		"                          a memif client waits for its switchd either way)\n"
		"  --socket-dir DIR        directory of the control sockets (default %s)\n"
		"  --socket-mode MODE      permissions of the sockets, octal (default 0666)\n"
		DP_DAEMON_CHECK_CRC_USAGE
		"  --control-queue on|off  a node on one device also polls its receive\n"
		"                          queue 1, where switchd --control-queue on (its\n"
		"                          default) sends GNT, BACK and QACK (default on)\n"
		DP_DAEMON_CAPTURE_USAGE("port of every node")
		"\n"
		"Configurations:\n",
		prog, prog, KEY_MAX, PROTO_MAX_ENDPOINTS, PROTO_MAX_NODES, CTL_SOCKET_DIR);
	for (const struct conf_def *c = conf_table; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->what);
	fprintf(f,
		"\n"
		"Telemetry (dpdk-telemetry.py -f PREFIX, or segnet-stat --prefix PREFIX):\n"
		"/segnet/nic/stats[,NAME], /segnet/nic/endpoints[,NAME]. See nicd(8).\n");
}

/* Parse --socket-mode: octal permission bits. */
static int nicd_parse_mode(const char *arg, mode_t *out, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 8);
	if (arg[0] < '0' || arg[0] > '7' || *end || errno || v > 0777)
		return dp_opt_fail(err, errlen, "--socket-mode %s: must be octal permissions (e.g. 0660)",
				 arg);
	*out = (mode_t)v;
	return 0;
}

/* Build and drop a pipeline of spec: its stages and parameters are good. */
static int nicd_check_spec(const char *spec, char *err, size_t errlen)
{
	struct pipeline_env env = { .ctx = NULL };
	struct pipeline *pl = pipeline_create(&stage_registry, spec, 0, 0, 2, &env, err,
					      errlen);

	if (!pl)
		return -EINVAL;
	pipeline_destroy(pl);
	return 0;
}

/*
 * Parse ID:KEYFILE:CONF. CONF may hold ':' itself (stage parameters), so
 * only ID and KEYFILE are split off the front.
 */
static int nicd_parse_vnet(const char *arg, struct nicd_vnet *v, char *err,
			   size_t errlen)
{
	const char *c1 = strchr(arg, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char id[8], cerr[256];
	unsigned long n;
	size_t len = c1 ? (size_t)(c1 - arg) : 0;
	char *path;
	int rc;

	if (!c1 || !c2 || len == 0 || len >= sizeof(id) || c2 == c1 + 1 || !c2[1])
		return dp_opt_fail(err, errlen, "--vnet %s: must be ID:KEYFILE:CONF (e.g. 1:/etc/segnet/vnet1.key:conf3)",
				 arg);
	memcpy(id, arg, len);
	id[len] = '\0';
	if (dp_opt_ulong("--vnet", id, 0, UINT16_MAX, &n, err, errlen))
		return dp_opt_fail(err, errlen, "--vnet %s: ID must be 0 .. 65535", arg);
	v->hv.vnet = (uint16_t)n;
	path = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
	if (!path)
		return dp_opt_fail(err, errlen, "out of memory");
	v->keyfile = path;
	v->conf = c2 + 1;
	rc = key_read_file(path, v->hv.key, cerr, sizeof(cerr));
	if (rc < 0)
		return dp_opt_fail(err, errlen, "--vnet %s: %s", arg, cerr);
	v->hv.key_len = (uint16_t)rc;
	if (conf_expand(v->conf, v->spec, sizeof(v->spec), cerr, sizeof(cerr)))
		return dp_opt_fail(err, errlen, "--vnet %s: CONF %s: %s", arg, v->conf, cerr);
	if (nicd_check_spec(v->spec, cerr, sizeof(cerr)))
		return dp_opt_fail(err, errlen, "--vnet %s: %s", arg, cerr);
	return 0;
}

/*
 * Length of the device name at s: a PCI address ("0000:3b:00.0" or
 * "3b:00.0") holds colons of its own; any other name ends at a colon.
 */
static size_t nicd_dev_len(const char *s)
{
	unsigned int dom, bus, dev, fn;
	int n = 0;

	if (sscanf(s, "%4x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &n) == 4 && n == 12)
		return (size_t)n;
	n = 0;
	if (sscanf(s, "%2x:%2x.%1u%n", &bus, &dev, &fn, &n) == 3 && n == 7)
		return (size_t)n;
	return strcspn(s, ":");
}

/* Parse NAME:BULKDEV[:QUICKDEV]; the strings point into a copy of arg. */
static int nicd_parse_node(const char *arg, struct nicd_node_names *n, char *err,
			   size_t errlen)
{
	char *copy = strdup(arg), *bulk, *quick;
	size_t len;

	if (!copy)
		return dp_opt_fail(err, errlen, "out of memory");
	n->name = copy;
	bulk = strchr(copy, ':');
	if (!bulk || bulk == copy || !bulk[1])
		return dp_opt_fail(err, errlen, "--node %s: must be NAME:BULKDEV[:QUICKDEV] (e.g. n0:net_memif0)",
				 arg);
	*bulk++ = '\0';
	if (!host_name_valid(copy))
		return dp_opt_fail(err, errlen, "--node %s: NAME '%s' must be 1 to 31 letters, digits, '_' or '-'",
				 arg, copy);
	len = nicd_dev_len(bulk);
	quick = NULL;
	if (bulk[len] == ':') {
		bulk[len] = '\0';
		quick = bulk + len + 1;
		if (!*quick)
			return dp_opt_fail(err, errlen, "--node %s: QUICKDEV is empty", arg);
	} else if (bulk[len]) {
		return dp_opt_fail(err, errlen, "--node %s: unexpected text after %.*s", arg,
				 (int)len, bulk);
	}
	n->bulk = bulk;
	n->quick = quick ? quick : bulk;
	return 0;
}

/* Set the defaults the man page documents. */
static void nicd_opts_defaults(struct nicd_opts *o)
{
	memset(o, 0, sizeof(*o));
	dp_daemon_opts_defaults(&o->common, 200);
	o->endpoints = 64;
	o->max_nodes = 64;
	o->send_buffers = 64;
	o->quick_buffers = 20;
	o->descriptors = 16384;
	o->cfg_keepalive = 8;
	o->hello_us = 1000;
	o->socket_dir = CTL_SOCKET_DIR;
	o->socket_mode = 0666;
}

/* Handle one option that takes a number or a word. */
static int nicd_parse_value(struct nicd_opts *o, int c, const char *arg, char *err,
			    size_t errlen)
{
	switch (c) {
	case NICD_OPT_ENDPOINTS:
		return dp_opt_u16("--endpoints", arg, 1, PROTO_MAX_ENDPOINTS, &o->endpoints, err, errlen);
	case NICD_OPT_MAX_NODES:
		return dp_opt_u16("--max-nodes", arg, 2, PROTO_MAX_NODES, &o->max_nodes, err, errlen);
	case NICD_OPT_SEND_BUFFERS:
		return dp_opt_u16("--send-buffers", arg, 1, 65535, &o->send_buffers, err, errlen);
	case NICD_OPT_PER_TARGET_CAP:
		return dp_opt_u16("--per-target-cap", arg, 1, 65535, &o->per_target_cap, err, errlen);
	case NICD_OPT_QUICK_BUFFERS:
		return dp_opt_u16("--quick-buffers", arg, 1, 65535, &o->quick_buffers, err, errlen);
	case NICD_OPT_QUICK_RESERVE:
		return dp_opt_u16("--quick-reserve", arg, 1, 65535, &o->quick_reserve, err, errlen);
	case NICD_OPT_DESCRIPTORS:
		return dp_opt_u32("--descriptors", arg, 16, 1u << 22, &o->descriptors, err, errlen);
	case NICD_OPT_CFG_KEEPALIVE:
		return dp_opt_u32("--cfg-keepalive", arg, 1, PROTO_MAX_CFG_KEEPALIVE,
				  &o->cfg_keepalive, err, errlen);
	case NICD_OPT_QUICK_GBPS:
		return dp_opt_gbps("--quick-gbps", arg, &o->quick_gbps, err, errlen);
	case NICD_OPT_HELLO_US:
		return dp_opt_u32("--hello-us", arg, 10, 10000000, &o->hello_us, err, errlen);
	case NICD_OPT_SOCKET_DIR:
		if (!*arg)
			return dp_opt_fail(err, errlen, "--socket-dir: empty directory name");
		o->socket_dir = arg;
		return 0;
	case NICD_OPT_SOCKET_MODE:
		return nicd_parse_mode(arg, &o->socket_mode, err, errlen);
	}
	return dp_opt_fail(err, errlen, "unknown option (see --help)");
}

/* Turn --bulk-port/--quick-port/--name into the node list. */
static int nicd_single_node(struct nicd_opts *o, const struct nicd_single *s,
			    char *err, size_t errlen)
{
	if (o->n_nodes && (s->bulk || s->quick || s->name))
		return dp_opt_fail(err, errlen, "--node and --%s do not go together: give every node with --node NAME:BULK[:QUICK]",
				 s->bulk ? "bulk-port" : s->quick ? "quick-port" : "name");
	if (o->n_nodes)
		return 0;
	if (!s->bulk)
		return dp_opt_fail(err, errlen, "no port: give --bulk-port ETHDEV (and --quick-port) or --node NAME:BULK[:QUICK]");
	o->node[0].name = strdup(s->name ? s->name : "segnet0");
	if (!o->node[0].name)
		return dp_opt_fail(err, errlen, "out of memory");
	o->node[0].bulk = s->bulk;
	o->node[0].quick = s->quick ? s->quick : s->bulk;
	o->n_nodes = 1;
	return 0;
}

/* True when node names a and b make one telemetry key ('-' becomes '_'). */
static bool nicd_same_key(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !(strchr("-_", *a) && strchr("-_", *b)))
			return false;
	return *a == *b;
}

/* Names, devices and vnets are each given once; names are valid and make socket paths. */
static int nicd_check_unique(const struct nicd_opts *o, char *err, size_t errlen)
{
	unsigned int devs = 0;

	for (unsigned int i = 0; i < o->n_nodes; i++) {
		const char *name = o->node[i].name;
		size_t path = strlen(o->socket_dir) + 1 + strlen(name) + strlen(CTL_SOCKET_SUFFIX);

		if (!host_name_valid(name))
			return dp_opt_fail(err, errlen, "--name %s: must be 1 to 31 letters, digits, '_' or '-'",
					   name);
		if (path >= sizeof(((struct sockaddr_un *)0)->sun_path))
			return dp_opt_fail(err, errlen, "--socket-dir %s: the socket path %s/%s%s is %zu bytes, at most %zu",
					   o->socket_dir, o->socket_dir, name, CTL_SOCKET_SUFFIX,
					   path, sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
	}
	for (unsigned int i = 0; i < o->n_nodes; i++)
		for (unsigned int j = 0; j < i; j++) {
			const struct nicd_node_names *a = &o->node[j], *b = &o->node[i];

			if (!strcmp(a->name, b->name))
				return dp_opt_fail(err, errlen, "--node: name %s is given twice", a->name);
			if (nicd_same_key(a->name, b->name)) {
				char key[32];	/* a valid name is shorter */

				snprintf(key, sizeof(key), "%s", a->name);
				for (char *c = strchr(key, '-'); c; c = strchr(c, '-'))
					*c = '_';
				return dp_opt_fail(err, errlen, "--node: names %s and %s both become telemetry key %s ('-' becomes '_'): rename one",
						 a->name, b->name, key);
			}
			if (!strcmp(a->bulk, b->bulk) || !strcmp(a->bulk, b->quick) ||
			    !strcmp(a->quick, b->bulk) || !strcmp(a->quick, b->quick))
				return dp_opt_fail(err, errlen, "nodes %s and %s share a device: every node needs its own",
						 a->name, b->name);
		}
	for (unsigned int i = 0; i < o->n_vnets; i++)
		for (unsigned int j = 0; j < i; j++)
			if (o->vnet[i].hv.vnet == o->vnet[j].hv.vnet)
				return dp_opt_fail(err, errlen, "--vnet: virtual network %u is given twice",
						 o->vnet[i].hv.vnet);
	for (unsigned int i = 0; i < o->n_nodes; i++)
		devs += strcmp(o->node[i].bulk, o->node[i].quick) ? 2 : 1;
	return dp_ethdev_devices_fit(devs, err, errlen);
}

/* Cross-option checks once everything is parsed. */
static int nicd_check(struct nicd_opts *o, const struct nicd_single *s, char *err,
		      size_t errlen)
{
	int rc = nicd_single_node(o, s, err, errlen);

	if (rc)
		return rc;
	if (!o->n_vnets)
		return dp_opt_fail(err, errlen, "no virtual network: give --vnet ID:KEYFILE:CONF");
	if (o->n_vnets > NIC_MAX_VNETS)
		return dp_opt_fail(err, errlen, "--vnet: at most %d virtual networks", NIC_MAX_VNETS);
	if (dp_daemon_opts_check(&o->common, err, errlen))
		return -EINVAL;
	if (!o->per_target_cap)
		o->per_target_cap = nic_per_target_share(o->send_buffers, NICD_CAP_SHARE);
	if (o->per_target_cap > o->send_buffers)
		return dp_opt_fail(err, errlen, "--per-target-cap %u: must not exceed --send-buffers %u",
				 o->per_target_cap, o->send_buffers);
	if (!o->quick_reserve)
		o->quick_reserve = nic_per_target_share(o->quick_buffers, NICD_QUICK_RESERVE);
	if (o->quick_reserve > o->quick_buffers)
		return dp_opt_fail(err, errlen, "--quick-reserve %u: must not exceed --quick-buffers %u",
				 o->quick_reserve, o->quick_buffers);
	return nicd_check_unique(o, err, errlen);
}

/* What the parse fills: the options, and the single-node ones until the end. */
struct nicd_parse {
	struct nicd_opts *o;	/* the options */
	struct nicd_single s;	/* --bulk-port, --quick-port, --name */
};

/* Handle one of nicd's own options (ctx: the struct nicd_parse). */
static int nicd_parse_one(void *ctx, int c, const char *arg, char *err, size_t errlen)
{
	struct nicd_parse *np = ctx;
	struct nicd_opts *o = np->o;

	switch (c) {
	case NICD_OPT_BULK_PORT:
		np->s.bulk = arg;
		return 0;
	case NICD_OPT_QUICK_PORT:
		np->s.quick = arg;
		return 0;
	case NICD_OPT_NAME:
		np->s.name = arg;
		return 0;
	case NICD_OPT_NODE:
		return nicd_parse_node(arg, &o->node[o->n_nodes++], err, errlen);
	case NICD_OPT_VNET:
		return nicd_parse_vnet(arg, &o->vnet[o->n_vnets++], err, errlen);
	}
	return nicd_parse_value(o, c, arg, err, errlen);
}

/* Options that have no effect with the others given; 0 or -EINVAL naming one. */
static int nicd_check_effect(const struct nicd_opts *o, const struct dp_opt_parser *p,
			     char *err, size_t errlen)
{
	bool one_device = false;
	int rc = dp_daemon_opts_check_effect(&o->common, p, err, errlen);

	for (unsigned int i = 0; i < o->n_nodes; i++)
		one_device |= !strcmp(o->node[i].bulk, o->node[i].quick);
	if (!rc && !one_device)
		rc = dp_opt_refuse_given(p, (const int[]){ DP_DAEMON_OPT_CONTROL_QUEUE, 0 },
					 "is for a node on one device: a node with a quick device of its own gets its control frames there",
					 err, errlen);
	return rc;
}

int nicd_opts_parse(struct nicd_opts *o, int argc, char **argv, char *err,
		    size_t errlen)
{
	struct nicd_parse np = { .o = o };
	struct dp_opt_parser p;
	int rc;

	nicd_opts_defaults(o);
	o->node = calloc((size_t)argc + 1, sizeof(*o->node));
	o->vnet = calloc((size_t)argc + 1, sizeof(*o->vnet));
	if (!o->node || !o->vnet)
		return dp_opt_fail(err, errlen, "out of memory");
	dp_opt_start(&p, nicd_long_opts, nicd_list_opts, true);
	rc = dp_daemon_opts_parse(&o->common, &p, argc, argv, nicd_parse_one, &np, err, errlen);
	if (rc == 1)
		nicd_opts_usage(stdout, argv[0]);
	if (!rc)
		rc = nicd_check(o, &np.s, err, errlen);
	if (!rc)
		rc = nicd_check_effect(o, &p, err, errlen);
	return rc;
}

void nicd_opts_free(struct nicd_opts *o)
{
	for (unsigned int i = 0; o->node && i < o->n_nodes; i++)
		free((char *)o->node[i].name);
	for (unsigned int i = 0; o->vnet && i < o->n_vnets; i++) {
		free((char *)o->vnet[i].keyfile);
		explicit_bzero(o->vnet[i].hv.key, sizeof(o->vnet[i].hv.key));
	}
	free(o->node);
	free(o->vnet);
	o->node = NULL;
	o->vnet = NULL;
}
