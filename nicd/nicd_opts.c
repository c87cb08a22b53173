/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd's command line: getopt_long over the arguments after "--", every
 * value checked with a message that names its option, key files read and
 * configurations expanded. It runs before the EAL starts, so a bad command
 * line fails at once.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "nicd/conf.h"
#include "nicd/ctl_msg.h"
#include "nicd/host.h"
#include "dataplane/dp_fault.h"
#include "dataplane/dp_opts.h"
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
	NICD_OPT_IDLE_SLEEP_US,
	NICD_OPT_IDLE_AFTER_US,
	NICD_OPT_HELLO_US,
	NICD_OPT_CORE,
	NICD_OPT_STATS_INTERVAL,
	NICD_OPT_LINK_WAIT_MS,
	NICD_OPT_SOCKET_DIR,
	NICD_OPT_SOCKET_MODE,
	NICD_OPT_CHECK_CRC,
	NICD_OPT_CONTROL_QUEUE,
	NICD_OPT_CAPTURE,
	NICD_OPT_CAPTURE_MAX_MB,
	NICD_OPT_CAPTURE_MAX_PACKETS,
	NICD_OPT_FAULT,
	NICD_OPT_CHECK,
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
	{ "idle-sleep-us", required_argument, NULL, NICD_OPT_IDLE_SLEEP_US },
	{ "idle-after-us", required_argument, NULL, NICD_OPT_IDLE_AFTER_US },
	{ "hello-us", required_argument, NULL, NICD_OPT_HELLO_US },
	{ "core", required_argument, NULL, NICD_OPT_CORE },
	{ "stats-interval", required_argument, NULL, NICD_OPT_STATS_INTERVAL },
	{ "link-wait-ms", required_argument, NULL, NICD_OPT_LINK_WAIT_MS },
	{ "socket-dir", required_argument, NULL, NICD_OPT_SOCKET_DIR },
	{ "socket-mode", required_argument, NULL, NICD_OPT_SOCKET_MODE },
	{ "check-crc", required_argument, NULL, NICD_OPT_CHECK_CRC },
	{ "control-queue", required_argument, NULL, NICD_OPT_CONTROL_QUEUE },
	{ "capture", required_argument, NULL, NICD_OPT_CAPTURE },
	{ "capture-max-mb", required_argument, NULL, NICD_OPT_CAPTURE_MAX_MB },
	{ "capture-max-packets", required_argument, NULL, NICD_OPT_CAPTURE_MAX_PACKETS },
	{ "fault", required_argument, NULL, NICD_OPT_FAULT },
	{ "check", no_argument, NULL, NICD_OPT_CHECK },
	{ "help", no_argument, NULL, 'h' },
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
		"                          least 1: 4 of 20)\n"
		"  --descriptors N         packet descriptors per NIC (default 16384)\n"
		"  --cfg-keepalive N       slots between CFGs while a NIC's requests do not\n"
		"                          change (default 8; 1 = a CFG every slot)\n"
		"  --idle-after-us US      poll this long without work before sleeping\n"
		"                          (default 200; 0 = busy polling, no back-off)\n"
		"  --idle-sleep-us US      first sleep per idle poll (default 100); sleeps\n"
		"                          grow to a quarter of the idle time, up to 1000,\n"
		"                          and are 1000 at once while no endpoint is open;\n"
		"                          1000 or more: used as is; 0: never sleep\n"
		"  --hello-us US           HELLO interval while joining (default 1000)\n"
		"  --core C                pin the polling thread to CPU C\n"
		"  --stats-interval SEC    print a summary line per node every SEC seconds\n"
		"                          (default 0 = off)\n"
		"  --link-wait-ms MS       wait MS for every link; fail if one stays down\n"
		"                          (default 0: don't wait, join when it comes up;\n"
		"                          a memif client waits for its switchd either way)\n"
		"  --socket-dir DIR        directory of the control sockets (default %s)\n"
		"  --socket-mode MODE      permissions of the sockets, octal (default 0666)\n"
		"  --check-crc on|off      verify CRC32C of received frames (default on)\n"
		"  --control-queue on|off  a node on one device also polls its receive\n"
		"                          queue 1, where switchd --control-queue on (its\n"
		"                          default) sends GNT, BACK and QACK (default on)\n"
		"  --capture FILE.pcap     write every frame received and sent on every\n"
		"                          port of every node into FILE.pcap (nanosecond pcap)\n"
		"  --capture-max-mb M      stop capturing before the file passes M MB\n"
		"                          (10^6 bytes; default 0: no bound)\n"
		"  --capture-max-packets N stop capturing after N frames (default 0: no bound)\n"
		DP_FAULT_USAGE
		DP_CHECK_USAGE
		"  --help                  this text\n"
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
	o->endpoints = 64;
	o->max_nodes = 64;
	o->send_buffers = 64;
	o->quick_buffers = 20;
	o->descriptors = 16384;
	o->cfg_keepalive = 8;
	o->idle_sleep_us = 100;
	o->idle_after_us = 200;
	o->hello_us = 1000;
	o->core = -1;
	o->socket_dir = CTL_SOCKET_DIR;
	o->socket_mode = 0666;
	o->check_crc = true;
	o->control_queue = true;
	o->fault_seed = 1;
}

/* Handle one option that takes a number or a word. */
static int nicd_parse_value(struct nicd_opts *o, int c, const char *arg, char *err,
			    size_t errlen)
{
	unsigned long v = 0;
	int rc;

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
	case NICD_OPT_IDLE_SLEEP_US:
		return dp_opt_u32("--idle-sleep-us", arg, 0, 1000000, &o->idle_sleep_us, err, errlen);
	case NICD_OPT_IDLE_AFTER_US:
		return dp_opt_u32("--idle-after-us", arg, 0, 60000000, &o->idle_after_us, err, errlen);
	case NICD_OPT_HELLO_US:
		return dp_opt_u32("--hello-us", arg, 10, 10000000, &o->hello_us, err, errlen);
	case NICD_OPT_CORE:
		rc = dp_opt_ulong("--core", arg, 0, CPU_SETSIZE - 1, &v, err, errlen);
		o->core = (int)v;
		return rc;
	case NICD_OPT_STATS_INTERVAL:
		return dp_opt_period("--stats-interval", arg, 86400, &o->stats_interval, err, errlen);
	case NICD_OPT_LINK_WAIT_MS:
		return dp_opt_u32("--link-wait-ms", arg, 0, 600000, &o->link_wait_ms, err, errlen);
	case NICD_OPT_SOCKET_DIR:
		if (!*arg)
			return dp_opt_fail(err, errlen, "--socket-dir: empty directory name");
		o->socket_dir = arg;
		return 0;
	case NICD_OPT_SOCKET_MODE:
		return nicd_parse_mode(arg, &o->socket_mode, err, errlen);
	case NICD_OPT_CHECK_CRC:
		return dp_opt_choice("--check-crc", arg, "on", "off", &o->check_crc, err, errlen);
	case NICD_OPT_CONTROL_QUEUE:
		return dp_opt_choice("--control-queue", arg, "on", "off", &o->control_queue, err, errlen);
	case NICD_OPT_CAPTURE:
		if (!*arg)
			return dp_opt_fail(err, errlen, "--capture needs a file name");
		o->capture = arg;
		return 0;
	case NICD_OPT_CAPTURE_MAX_MB:
		rc = dp_opt_ulong("--capture-max-mb", arg, 0, 1000000000, &v, err, errlen);
		o->capture_max_bytes = (uint64_t)v * 1000000;
		return rc;
	case NICD_OPT_CAPTURE_MAX_PACKETS:
		rc = dp_opt_ulong("--capture-max-packets", arg, 0, ULONG_MAX, &v, err, errlen);
		o->capture_max_packets = v;
		return rc;
	case NICD_OPT_FAULT:
		return dp_fault_option(arg, &o->fault, &o->fault_seed, err, errlen);
	case NICD_OPT_CHECK:
		o->check = true;
		return 0;
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
	if (!o->capture && (o->capture_max_bytes || o->capture_max_packets))
		return dp_opt_fail(err, errlen, "--capture-max-%s needs --capture FILE",
				 o->capture_max_bytes ? "mb" : "packets");
	/* A file the run could not open is an argument error, found by --check too. */
	if (o->capture && dp_opt_output("--capture", o->capture, err, errlen))
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

/* Handle one parsed option. */
static int nicd_parse_one(struct nicd_opts *o, struct nicd_single *s, int c, char *err,
			  size_t errlen)
{
	switch (c) {
	case NICD_OPT_BULK_PORT:
		s->bulk = optarg;
		return 0;
	case NICD_OPT_QUICK_PORT:
		s->quick = optarg;
		return 0;
	case NICD_OPT_NAME:
		s->name = optarg;
		return 0;
	case NICD_OPT_NODE:
		return nicd_parse_node(optarg, &o->node[o->n_nodes++], err, errlen);
	case NICD_OPT_VNET:
		return nicd_parse_vnet(optarg, &o->vnet[o->n_vnets++], err, errlen);
	}
	return nicd_parse_value(o, c, optarg, err, errlen);
}

/* Options that have no effect with the others given; 0 or -EINVAL naming one. */
static int nicd_check_effect(const struct nicd_opts *o, const struct dp_opt_parser *p,
			     char *err, size_t errlen)
{
	bool one_device = false;
	int rc = 0;

	for (unsigned int i = 0; i < o->n_nodes; i++)
		one_device |= !strcmp(o->node[i].bulk, o->node[i].quick);
	if (!o->idle_after_us)
		rc = dp_opt_refuse_given(p, (const int[]){ NICD_OPT_IDLE_SLEEP_US, 0 },
					 "has no effect with --idle-after-us 0 (busy polling never sleeps)",
					 err, errlen);
	if (!rc && !one_device)
		rc = dp_opt_refuse_given(p, (const int[]){ NICD_OPT_CONTROL_QUEUE, 0 },
					 "is for a node on one device: a node with a quick device of its own gets its control frames there",
					 err, errlen);
	return rc;
}

int nicd_opts_parse(struct nicd_opts *o, int argc, char **argv, char *err,
		    size_t errlen)
{
	struct nicd_single s = { NULL, NULL, NULL };
	struct dp_opt_parser p;
	int c, rc = 0;

	nicd_opts_defaults(o);
	o->node = calloc((size_t)argc + 1, sizeof(*o->node));
	o->vnet = calloc((size_t)argc + 1, sizeof(*o->vnet));
	if (!o->node || !o->vnet)
		return dp_opt_fail(err, errlen, "out of memory");
	dp_opt_start(&p, nicd_long_opts, nicd_list_opts, true);
	while (!rc && (c = dp_opt_next(&p, argc, argv, err, errlen)) > 0) {
		if (c == 'h') {
			nicd_opts_usage(stdout, argv[0]);
			return 1;
		}
		rc = nicd_parse_one(o, &s, c, err, errlen);
	}
	if (c < 0)
		rc = c;
	if (!rc && optind < argc)
		rc = dp_opt_fail(err, errlen, "unexpected argument %s (see --help)", argv[optind]);
	if (!rc)
		rc = nicd_check(o, &s, err, errlen);
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
