/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command lines of nicd and the tools: --help, exit status 2 with a
 * message naming the bad argument (nicd's --capture options too), exit
 * status 1 when there is no nicd to talk to; segnet-stat reading a running nicd's counters; segnet-ping
 * giving up when the NIC never joins.
 */
#include <poll.h>
#include <pthread.h>

#include "nicd_test.h"

/* Run a command (NULL-terminated arguments after the binary); its status. */
static int t_cmd(const char *out, const char *bin, ...)
{
	char *argv[T_ARGS_MAX];
	va_list ap;

	va_start(ap, bin);
	t_argv_va(argv, bin, ap);
	va_end(ap);
	return t_run(argv, out, 30000);
}

/* Output file of the tests, and a key file and an empty file some write. */
static char t_out[128], t_key[128], t_empty[128];

/* Make per-test file names. */
static void t_out_init(void)
{
	snprintf(t_out, sizeof(t_out), "/tmp/segnet-it-tools.%d.out", (int)getpid());
	snprintf(t_key, sizeof(t_key), "/tmp/segnet-it-tools.%d.key", (int)getpid());
	snprintf(t_empty, sizeof(t_empty), "/tmp/segnet-it-tools.%d.empty", (int)getpid());
}

/* Remove them, after a failed test too. */
static void t_out_fini(void)
{
	unlink(t_out);
	unlink(t_key);
	unlink(t_empty);
	t_nicd_cleanup_all();	/* what a failed test left */
}

TestSuite(tools, .init = t_out_init, .fini = t_out_fini);

Test(tools, help)
{
	const char *bins[] = { NICD_BIN, SEGNET_PING_BIN, SEGNET_PERF_BIN, SEGNET_STAT_BIN };

	for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		cr_assert_eq(t_cmd(t_out, bins[i], "--help", NULL), 0, "%s --help", bins[i]);
		cr_assert(strstr(t_read_file(t_out), "usage:"), "%s", t_read_file(t_out));
	}
	cr_assert_eq(t_cmd(t_out, NICD_BIN, "--no-huge", "--", "--help", NULL), 0,
		     "help after the EAL arguments");
	cr_assert(strstr(t_read_file(t_out), "--vnet ID:KEYFILE:CONF"));
}

/* Run bin with arguments (NULL-terminated); expect status 2 and text in the output. */
static void t_usage_error(const char *text, const char *bin, ...)
{
	char *argv[T_ARGS_MAX];
	va_list ap;
	int rc;

	va_start(ap, bin);
	t_argv_va(argv, bin, ap);
	va_end(ap);
	rc = t_run(argv, t_out, 30000);
	cr_assert_eq(rc, 2, "%s %s: exit %d\n%s", bin, argv[1] ? argv[1] : "", rc,
		     t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), text), "expected \"%s\" in:\n%s", text,
		  t_read_file(t_out));
}

Test(tools, nicd_bad_arguments)
{
	const char *key = t_key, *empty = t_empty;
	char vnet[300];

	t_write_file(key, "k");
	t_write_file(empty, "");
	t_usage_error("no virtual network", NICD_BIN, "--bulk-port", "net_null0", NULL);
	snprintf(vnet, sizeof(vnet), "1:%s:conf1", key);
	t_usage_error("no port", NICD_BIN, "--vnet", vnet, NULL);
	t_usage_error("/nonexistent/k.key", NICD_BIN, "--bulk-port", "x",
		      "--vnet", "1:/nonexistent/k.key:conf1", NULL);
	snprintf(vnet, sizeof(vnet), "1:%s:conf2", empty);
	t_usage_error("is empty", NICD_BIN, "--bulk-port", "x", "--vnet", vnet, NULL);
	snprintf(vnet, sizeof(vnet), "1:%s:conf9", key);
	t_usage_error("neither a configuration", NICD_BIN, "--bulk-port", "x", "--vnet", vnet, NULL);
	snprintf(vnet, sizeof(vnet), "1:%s:conf1", key);
	t_usage_error("NAME 'bad/name'", NICD_BIN, "--node", "bad/name:net_null0", "--vnet", vnet,
		      NULL);
	snprintf(vnet, sizeof(vnet), "1:%s:conf3,timer:bogus=1", key);
	t_usage_error("bogus", NICD_BIN, "--bulk-port", "net_null0", "--vnet", vnet, NULL);
	t_usage_error("ID:KEYFILE:CONF", NICD_BIN, "--bulk-port", "x", "--vnet", "1", NULL);
	snprintf(vnet, sizeof(vnet), "1:%s:conf1", key);
	t_usage_error("--endpoints", NICD_BIN,
		      "--bulk-port", "x", "--vnet", vnet, "--endpoints", NULL);
	t_usage_error("--endpoints 0", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "x", "--endpoints=0", NULL);
	t_usage_error("--cfg-keepalive 0", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "x", "--cfg-keepalive", "0", NULL);
	/* The fabric's quick rate, in switchd --quick-gbps's range. */
	t_usage_error("--quick-gbps 0: must be between 0.001 and 1000", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "x", "--quick-gbps", "0", "--check", NULL);
	t_usage_error("--quick-gbps abc: not a number", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "x", "--quick-gbps=abc", "--check", NULL);
	/* --check: the arguments, key files and configurations, nothing started. */
	t_usage_error("key file /nonexistent", NICD_BIN, "--vnet", "1:/nonexistent:conf3",
		      "--bulk-port", "x", "--check", NULL);
	/* Longer would let switchd's default --down-slots mark an idle node down. */
	t_usage_error("--cfg-keepalive 2501", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "x", "--cfg-keepalive", "2501", NULL);
	t_usage_error("--bogus", NICD_BIN, "--bogus", NULL);
	t_usage_error("NAME:BULKDEV", NICD_BIN, "--vnet", vnet, "--node", "onlyname", NULL);
	t_usage_error("share a device", NICD_BIN,
		      "--vnet", vnet, "--node", "a:d0", "--node", "b:d0", NULL);
	/* Telemetry keys of nodes turn '-' into '_': one node's would hide the other's. */
	t_usage_error("--node: names n-1 and n_1 both become telemetry key n_1", NICD_BIN,
		      "--vnet", vnet, "--node", "n-1:d0", "--node", "n_1:d1", NULL);
	/* PCI addresses hold colons: the quick device here is 0000:3c:00.1. */
	t_usage_error("share a device", NICD_BIN, "--vnet", vnet,
		      "--node", "a:0000:3b:00.0:0000:3c:00.1", "--node", "b:0000:3c:00.1", NULL);
	t_usage_error("unexpected text after 0000:3b:00.0", NICD_BIN, "--vnet", vnet,
		      "--node", "a:0000:3b:00.0x", NULL);
	t_usage_error("do not go together", NICD_BIN,
		      "--vnet", vnet, "--node", "a:d0", "--bulk-port", "d1", NULL);
	t_usage_error("--per-target-cap 100: must not exceed --send-buffers 64", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "d", "--per-target-cap=100", NULL);
	t_usage_error("--per-target-cap 9: must not exceed --send-buffers 8", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "d", "--send-buffers", "8",
		      "--per-target-cap", "9", NULL);
	t_usage_error("--quick-reserve 21: must not exceed --quick-buffers 20", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "d", "--quick-reserve", "21", NULL);
	t_usage_error("--quick-reserve 0", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "d", "--quick-reserve", "0", NULL);
	t_usage_error("--capture-max-packets needs --capture FILE", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "d", "--capture-max-packets", "5", NULL);
	t_usage_error("--capture-max-mb x", NICD_BIN, "--vnet", vnet, "--bulk-port", "d",
		      "--capture", "n.pcap", "--capture-max-mb", "x", NULL);
	t_usage_error("--capture needs a file name", NICD_BIN, "--vnet", vnet,
		      "--bulk-port", "d", "--capture=", NULL);
	/* A capture file that cannot be written is refused with the arguments, --check too. */
	t_usage_error("--capture /nonexistent-dir/n.pcap: cannot be written: No such file or directory",
		      NICD_BIN, "--vnet", vnet, "--bulk-port", "d", "--capture",
		      "/nonexistent-dir/n.pcap", "--check", NULL);
	t_usage_error("--capture /tmp: cannot be written: Is a directory", NICD_BIN, "--vnet", vnet,
		      "--bulk-port", "d", "--capture", "/tmp", "--check", NULL);
	t_usage_error("--name a.b", NICD_BIN, "--vnet", vnet, "--bulk-port", "d",
		      "--name", "a.b", NULL);
	t_usage_error("--socket-dir", NICD_BIN, "--vnet", vnet, "--bulk-port", "d",
		      "--socket-dir", "/tmp/a-folder-whose-name-is-far-too-long-to-hold-a-unix-"
		      "socket-because-sun-path-has-only-108-bytes-in-all", NULL);
	t_usage_error("--stats-interval 1e-12", NICD_BIN, "--vnet", vnet, "--bulk-port", "d",
		      "--stats-interval", "1e-12", NULL);
	/* A short option in a cluster is named by its letter, not by the argument before it. */
	t_usage_error("nicd: -x: unknown option", NICD_BIN, "--bulk-port", "a", "-xq", NULL);
	/*
	 * An option that is not a list is refused the second time; without --vnet,
	 * a parser that took the last value fails for that instead.
	 */
	t_usage_error("--bulk-port given twice", NICD_BIN, "--bulk-port", "a", "--bulk-port", "b",
		      NULL);
	t_usage_error("--name given twice", NICD_BIN, "--bulk-port", "a", "--name", "x",
		      "--name", "y", NULL);
}

Test(tools, nicd_missing_port_and_busy_name, .timeout = 60)
{
	struct t_nicd n;
	char vnet[256];
	int rc;

	t_nicd_init(&n, "args");
	snprintf(vnet, sizeof(vnet), "1:%s:conf1", n.key1);
	rc = t_cmd(t_out, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf", "-l", "0",
		   "--file-prefix", n.prefix, "--log-level", "lib.telemetry:error", "--",
		   "--bulk-port", "net_nothere0", "--vnet", vnet, "--socket-dir", n.dir, NULL);
	cr_assert_eq(rc, 2, "unknown port: exit %d\n%s", rc, t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "net_nothere0"), "%s", t_read_file(t_out));
	/* A --vdev that names no driver is a bad argument too (the EAL cannot parse it). */
	rc = t_cmd(t_out, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf", "-l", "0",
		   "--file-prefix", n.prefix, "--vdev", "net_nodriver0", "--log-level",
		   "lib.telemetry:error", "--", "--bulk-port", "net_nodriver0", "--vnet", vnet,
		   "--socket-dir", n.dir, NULL);
	cr_assert_eq(rc, 2, "--vdev naming no driver: exit %d\n%s", rc, t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "net_nodriver0"), "%s", t_read_file(t_out));
	/* A capture file that cannot be created fails at start-up, before the EAL. */
	rc = t_cmd(t_out, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf", "-l", "0",
		   "--file-prefix", n.prefix, "--vdev", "net_null0,no-rx=1",
		   "--log-level", "lib.telemetry:error", "--", "--bulk-port", "net_null0",
		   "--vnet", vnet, "--socket-dir", n.dir, "--capture", "/nonexistent-dir/n.pcap",
		   NULL);
	cr_assert_eq(rc, 2, "bad capture file: exit %d\n%s", rc, t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out),
			 "--capture /nonexistent-dir/n.pcap: cannot be written: No such file or directory"),
		  "%s", t_read_file(t_out));
	/* A memif server nobody connects to: its link stays down. */
	{
		char dev[320];

		snprintf(dev, sizeof(dev),
			 "net_memif0,role=server,socket=%s/mif.sock,socket-abstract=no,bsize=4096",
			 n.dir);
		rc = t_cmd(t_out, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf",
			   "-l", "0", "--file-prefix", n.prefix, "--vdev", dev,
			   "--log-level", "lib.telemetry:error", "--", "--bulk-port", "net_memif0",
			   "--vnet", vnet, "--socket-dir", n.dir, "--link-wait-ms", "200", NULL);
	}
	cr_assert_eq(rc, 1, "link down: exit %d\n%s", rc, t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "port net_memif0: link still down after 200 ms"),
		  "%s", t_read_file(t_out));
	/* A second nicd on the same name refuses to start. */
	t_nicd_start(&n, NULL);
	snprintf(vnet, sizeof(vnet), "--file-prefix=%s-2", n.prefix);
	rc = t_cmd(t_out, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf", "-l", "1",
		   vnet, "--vdev", "net_null1,no-rx=1", "--log-level", "lib.telemetry:error",
		   "--", "--bulk-port", "net_null1", "--vnet", "1:/dev/null:conf1", NULL);
	cr_assert_eq(rc, 2, "the empty key file /dev/null: exit %d\n%s", rc, t_read_file(t_out));
	snprintf(vnet, sizeof(vnet), "1:%s:conf1", n.key1);
	{
		char prefix[96];

		snprintf(prefix, sizeof(prefix), "--file-prefix=%s-2", n.prefix);
		rc = t_cmd(t_out, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf",
			   "-l", "1", prefix, "--vdev", "net_null1,no-rx=1",
			   "--log-level", "lib.telemetry:error", "--", "--bulk-port", "net_null1",
			   "--vnet", vnet, "--name", n.name, "--socket-dir", n.dir, NULL);
	}
	cr_assert_eq(rc, 1, "busy name: exit %d\n%s", rc, t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "another nicd"), "%s", t_read_file(t_out));
	cr_assert(t_socket_up(n.sock), "the first nicd still serves");
	t_nicd_fini(&n);
}

/*
 * Run nicd on net_null0 (and a memif server nobody connects to) with the
 * node arguments given; expect status rc, text in the output, and no device
 * closed that was never set up (DPDK's "not ready port" with a stack dump,
 * "already stopped").
 */
static void t_nicd_bad_device(const struct t_nicd *n, int rc, const char *text, ...)
{
	char *argv[T_ARGS_MAX], vnet[256], mif[320];
	const char *out;
	va_list ap;
	int got;

	snprintf(vnet, sizeof(vnet), "1:%s:conf1", n->key1);
	snprintf(mif, sizeof(mif),
		 "net_memif0,role=server,socket=%s/mif.sock,socket-abstract=no,bsize=4096", n->dir);
	t_argv(argv, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf", "-l", "0",
	       "--file-prefix", n->prefix, "--vdev", "net_null0,no-rx=1", "--vdev", mif,
	       "--log-level", "lib.telemetry:error", "--", "--vnet", vnet,
	       "--socket-dir", n->dir, NULL);
	va_start(ap, text);
	t_argv_append_va(argv, ap);
	va_end(ap);
	got = t_run(argv, t_out, 30000);
	out = t_read_file(t_out);
	cr_assert_eq(got, rc, "%s: exit %d, not %d\n%s", text, got, rc, out);
	cr_assert(strstr(out, text), "expected \"%s\" in:\n%s", text, out);
	cr_assert(!strstr(out, "not ready port") && !strstr(out, "rte_dump_stack") &&
		  !strstr(out, "already stopped"), "%s: a device closed unopened:\n%s", text, out);
}

/* A device that fails lookup or set-up: only the devices set up are closed. */
Test(tools, nicd_bad_device_closes_nothing_unopened, .timeout = 60)
{
	struct t_nicd n;

	t_nicd_init(&n, "baddev");
	t_nicd_bad_device(&n, 2, "no DPDK port called \"bogus\"",
			  "--node", "n0:net_null0", "--node", "n1:bogus", NULL);
	t_nicd_bad_device(&n, 2, "net_null0 and 0 are the same device",
			  "--node", "n0:net_null0", "--node", "n1:0", NULL);
	/* The first device's link wait fails: net_null0 after it was never set up. */
	t_nicd_bad_device(&n, 1, "port net_memif0: link still down after 100 ms",
			  "--node", "n0:net_memif0", "--node", "n1:net_null0",
			  "--link-wait-ms", "100", NULL);
	t_nicd_fini(&n);
}

/* A vhost-user reply to VHOST_USER_GET_FEATURES: the header and the feature bits. */
struct t_vhost_reply {
	uint32_t request;	/* 1: GET_FEATURES */
	uint32_t flags;		/* version 1, reply bit 0x4 */
	uint32_t size;		/* 8 */
	uint64_t features;	/* none */
} __attribute__((packed));

/*
 * A vhost-user server's first answer: take the connection on the listening
 * socket *arg (within 10 s), answer its GET_FEATURES and return it (as an
 * intptr_t; -1 when none came), so that nicd, which asks first, knows that
 * a server answers there.
 */
static void *t_vhost_answer_once(void *arg)
{
	const struct t_vhost_reply rep = { .request = 1, .flags = 0x5, .size = 8 };
	struct pollfd pfd = { .fd = *(int *)arg, .events = POLLIN };
	uint32_t req[3];
	int c;

	if (poll(&pfd, 1, 10000) != 1 || (c = accept(pfd.fd, NULL, NULL)) < 0)
		return (void *)(intptr_t)-1;
	if (read(c, req, sizeof(req)) == (ssize_t)sizeof(req))
		(void)!write(c, &rep, sizeof(rep));
	return (void *)(intptr_t)c;
}

/*
 * A virtio-user client refused for a bad argument while its vhost-user
 * server answers: a bad argument (exit 2), not a server to wait for (nicd
 * used to take any socket there for a server not up yet, and re-created
 * the device for ever). The server answers nicd's first question (a
 * silent one is waited for: nicd_vhost_silent).
 */
Test(tools, nicd_bad_virtio_argument_with_its_server_there, .timeout = 60)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char *argv[T_ARGS_MAX], vnet[256], vdev[400];
	struct t_nicd n;
	pthread_t answer;
	void *conn;
	int srv, got;

	t_nicd_init(&n, "virtio");
	cr_assert_lt(strlen(n.dir) + sizeof("/vh.sock"), sizeof(sa.sun_path));
	memcpy(sa.sun_path, n.dir, strlen(n.dir));
	memcpy(sa.sun_path + strlen(n.dir), "/vh.sock", sizeof("/vh.sock"));
	srv = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert(srv >= 0 && !bind(srv, (struct sockaddr *)&sa, sizeof(sa)) && !listen(srv, 4),
		  "cannot listen at %s", sa.sun_path);
	cr_assert_eq(pthread_create(&answer, NULL, t_vhost_answer_once, &srv), 0);
	snprintf(vdev, sizeof(vdev), "net_virtio_user0,path=%s,queues=2,bogus=1", sa.sun_path);
	snprintf(vnet, sizeof(vnet), "1:%s:conf1", n.key1);
	t_argv(argv, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf", "-l", "0",
	       "--file-prefix", n.prefix, "--vdev", vdev, "--log-level", "lib.telemetry:error",
	       "--", "--vnet", vnet, "--socket-dir", n.dir, "--bulk-port", "net_virtio_user0",
	       "--link-wait-ms", "300", NULL);
	got = t_run(argv, t_out, 30000);
	pthread_join(answer, &conn);
	if ((intptr_t)conn >= 0)
		close((int)(intptr_t)conn);
	close(srv);
	unlink(sa.sun_path);
	cr_assert_neq((intptr_t)conn, -1, "nicd did not ask the server first");
	cr_assert_eq(got, 2, "exit %d\n%s", got, t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "its driver did not create the device"), "%s",
		  t_read_file(t_out));
	t_nicd_fini(&n);
}

Test(tools, ping_and_perf_arguments)
{
	t_usage_error("no key", SEGNET_PING_BIN, "--node", "1", NULL);
	t_usage_error("--quick and --bulk do not go together", SEGNET_PING_BIN,
		      "--key", "k", "--node", "1", "--quick", "--bulk", NULL);
	t_usage_error("--key and --key-file do not go together", SEGNET_PERF_BIN,
		      "--key", "k", "--key-file", "/dev/null", "--client", NULL);
	t_usage_error("--node N", SEGNET_PING_BIN, "--key", "k", NULL);
	t_usage_error("--count x", SEGNET_PING_BIN, "--key", "k", "--node", "1", "--count=x", NULL);
	t_usage_error("--size 4000", SEGNET_PING_BIN,
		      "--key", "k", "--node", "1", "--size=4000", NULL);
	t_usage_error("--bogus", SEGNET_PING_BIN, "--bogus", NULL);
	t_usage_error("--key-file /nonexistent", SEGNET_PING_BIN,
		      "--key-file", "/nonexistent", "--node", "1", NULL);
	/* A forgotten file name: the next option is not taken for it. */
	t_usage_error("--key-file needs a value (see --help): --server is an option", SEGNET_PING_BIN,
		      "--key-file", "--server", NULL);
	t_usage_error("--server or --client", SEGNET_PERF_BIN, "--key", "k", NULL);
	t_usage_error("--server and --client do not go together", SEGNET_PERF_BIN,
		      "--key", "k", "--server", "--client", NULL);
	/* A number too large for any type is out of range, not "not a whole number". */
	t_usage_error("--count 99999999999999999999: out of range, must be between 0 and 4294967294",
		      SEGNET_PING_BIN, "--key", "k", "--node", "1", "--count",
		      "99999999999999999999", NULL);
	t_usage_error("--messages 99999999999999999999: out of range", SEGNET_PERF_BIN,
		      "--key", "k", "--server", "--messages", "99999999999999999999", NULL);
	/* No echo can come within no time at all. */
	t_usage_error("--timeout 0: must be between 0.001 and", SEGNET_PING_BIN,
		      "--key", "k", "--node", "1", "--timeout", "0", NULL);
	t_usage_error("--client needs --node", SEGNET_PERF_BIN, "--key", "k", "--client", NULL);
	t_usage_error("--window 0", SEGNET_PERF_BIN,
		      "--key", "k", "--client", "--node=1", "--window=0", NULL);
	t_usage_error("--chan", SEGNET_PERF_BIN, "--key", "k", "--server", "--chan=fast", NULL);
	t_usage_error("--json goes with --once", SEGNET_STAT_BIN, "--json", NULL);
	t_usage_error("--interval x", SEGNET_STAT_BIN, "--interval", "x", NULL);
	/* The range said is the one taken: 0 is refused, so it is not its bottom. */
	t_usage_error("--interval 3601: must be between 0.01 and 3600", SEGNET_STAT_BIN,
		      "--interval", "3601", NULL);
	t_usage_error("--interval 0: must be between 0.01 and 3600", SEGNET_STAT_BIN,
		      "--interval", "0", NULL);
	t_usage_error("--duration 86401: must be between 0.001 and 86400", SEGNET_PERF_BIN,
		      "--key", "k", "--server", "--duration", "86401", NULL);
	t_usage_error("--duration 0: must be between 0.001 and 86400", SEGNET_PERF_BIN,
		      "--key", "k", "--server", "--duration", "0", NULL);
	t_usage_error("--cmd", SEGNET_STAT_BIN, "--cmd", "nic/stats", NULL);
	t_usage_error("unexpected argument", SEGNET_STAT_BIN, "extra", NULL);
	/* Named as given, refused the second time but for a list (--cmd). */
	t_usage_error("segnet-ping: -x: unknown option", SEGNET_PING_BIN, "--key", "k", "-xq", NULL);
	t_usage_error("--count given twice", SEGNET_PING_BIN, "--key", "k", "--node", "1",
		      "--count", "1", "--count", "2", NULL);
	t_usage_error("--window given twice", SEGNET_PERF_BIN, "--key", "k", "--window", "1",
		      "--window", "2", NULL);
	t_usage_error("--json goes with --once", SEGNET_STAT_BIN, "--cmd", "/a", "--cmd", "/b",
		      "--json", NULL);
	t_usage_error("--interval given twice", SEGNET_STAT_BIN, "--interval", "1",
		      "--interval", "2", NULL);
	t_usage_error("--prefix and --socket do not go together", SEGNET_STAT_BIN,
		      "--prefix", "a", "--socket", "/b", NULL);
}

/* An option without effect with the role, channel or mode given is refused by name. */
Test(tools, options_without_effect_are_refused_by_name)
{
	const char *key = t_key;
	char vnet[300];

	t_usage_error("segnet-ping: --ep is for the client (a server echoes whoever pings",
		      SEGNET_PING_BIN, "--key", "k", "--server", "--ep", "1", NULL);
	/* --node as the other options of the client: the same words, --help named. */
	t_usage_error("segnet-ping: --node is for the client (a server echoes whoever pings, on the channel it came on) (see --help)",
		      SEGNET_PING_BIN, "--key", "k", "--server", "--node", "1", NULL);
	t_usage_error("segnet-ping: --join-wait is for the client", SEGNET_PING_BIN,
		      "--key", "k", "--server", "--join-wait", "100", NULL);
	t_usage_error("segnet-ping: --bulk is for the client", SEGNET_PING_BIN,
		      "--key", "k", "--bulk", "--server", NULL);
	t_usage_error("segnet-ping: --interval is for the client", SEGNET_PING_BIN,
		      "--key", "k", "--server", "--interval", "5", NULL);
	t_usage_error("segnet-ping: --size is the bulk payload: give --bulk", SEGNET_PING_BIN,
		      "--key", "k", "--node", "1", "--size", "100", NULL);
	t_usage_error("segnet-perf: --window is for the client (a server counts what arrives)",
		      SEGNET_PERF_BIN, "--key", "k", "--server", "--window", "4", NULL);
	t_usage_error("segnet-perf: --node is for the client", SEGNET_PERF_BIN,
		      "--key", "k", "--server", "--node", "1", NULL);
	t_usage_error("segnet-perf: --start-delay is for the server", SEGNET_PERF_BIN,
		      "--key", "k", "--client", "--node", "1", "--start-delay", "5", NULL);
	t_usage_error("segnet-perf: --recv-buffers is for the server", SEGNET_PERF_BIN,
		      "--key", "k", "--client", "--node", "1", "--recv-buffers", "5", NULL);
	t_usage_error("segnet-perf: --size is the bulk payload: --chan quick", SEGNET_PERF_BIN,
		      "--key", "k", "--client", "--node", "1", "--chan", "quick", "--size", "8",
		      NULL);
	t_usage_error("segnet-stat: --count does not go with --once", SEGNET_STAT_BIN,
		      "--once", "--count", "3", NULL);
	t_usage_error("segnet-stat: --interval does not go with --once", SEGNET_STAT_BIN,
		      "--interval", "2", "--once", NULL);
	t_write_file(key, "k");
	snprintf(vnet, sizeof(vnet), "1:%s:conf1", key);
	t_usage_error("nicd: --idle-sleep-us has no effect with --idle-after-us 0", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "d", "--idle-sleep-us", "50",
		      "--idle-after-us", "0", "--check", NULL);
	t_usage_error("nicd: --control-queue is for a node on one device", NICD_BIN,
		      "--vnet", vnet, "--bulk-port", "d", "--quick-port", "q",
		      "--control-queue", "on", "--check", NULL);
	cr_assert_eq(t_cmd(t_out, NICD_BIN, "--vnet", vnet, "--node", "a:d0:q0", "--node", "b:d1",
			   "--control-queue", "off", "--check", NULL), 0,
		     "--control-queue with a node on one device: %s", t_read_file(t_out));
}

Test(tools, no_daemon)
{
	int rc;

	rc = t_cmd(t_out, SEGNET_PING_BIN, "--nicd", "/nonexistent/x.sock", "--key", "k",
		   "--node", "1", NULL);
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out),
			 "cannot open an endpoint of vnet 1 at nicd /nonexistent/x.sock: no nicd socket at /nonexistent/x.sock"),
		  "%s", t_read_file(t_out));
	/* A nicd name without a socket: where nicd's sockets are said (SEGNET_SOCKET_DIR). */
	unsetenv("SEGNET_SOCKET_DIR");
	rc = t_cmd(t_out, SEGNET_PING_BIN, "--nicd", "segnet-it-none", "--key", "k", "--node", "1",
		   NULL);
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out),
			 "needs SEGNET_SOCKET_DIR set to that directory: eval \"$(scripts/lab.sh env)\" for a lab"),
		  "%s", t_read_file(t_out));
	setenv("SEGNET_SOCKET_DIR", "/nonexistent-dir", 1);
	rc = t_cmd(t_out, SEGNET_PING_BIN, "--nicd", "n0", "--key", "k", "--node", "1", NULL);
	unsetenv("SEGNET_SOCKET_DIR");
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out),
			 "no nicd socket at /nonexistent-dir/n0.sock (is nicd running, with --socket-dir /nonexistent-dir?"),
		  "%s", t_read_file(t_out));
	/* A file that is not a socket is not a stale socket. */
	t_write_file(t_empty, "");
	rc = t_cmd(t_out, SEGNET_PING_BIN, "--nicd", t_empty, "--key", "k", "--node", "1", NULL);
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "is not a socket"), "%s", t_read_file(t_out));
	cr_assert(!strstr(t_read_file(t_out), "stale"), "%s", t_read_file(t_out));
	rc = t_cmd(t_out, SEGNET_PERF_BIN, "--nicd", "/nonexistent/x.sock", "--key", "k",
		   "--server", NULL);
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	rc = t_cmd(t_out, SEGNET_STAT_BIN, "--prefix", "segnet-it-nobody-here", "--once", NULL);
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "cannot reach telemetry"), "%s", t_read_file(t_out));
}

/* A server whose NIC has not joined has no node id yet: its banner says so. */
Test(tools, a_server_on_a_node_not_joined_says_so, .timeout = 60)
{
	struct t_nicd n;
	int rc;

	t_nicd_init(&n, "banner");
	t_nicd_start(&n, NULL);
	rc = t_cmd(t_out, SEGNET_PERF_BIN, "--nicd", n.sock, "--key-file", n.key1, "--server",
		   "--duration", "0.2", NULL);
	cr_assert_eq(rc, 0, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out),
			 "server on endpoint 0 (vnet 1) of a node that has not joined a cluster yet"),
		  "%s", t_read_file(t_out));
	t_nicd_fini(&n);
}

/*
 * Without --per-target-cap the cap is a quarter of the send buffers (at
 * least 1), so --send-buffers alone is never refused; the default stays 16.
 */
Test(tools, nicd_derives_the_per_target_cap_from_the_send_buffers, .timeout = 60)
{
	static const char *const runs[][2] = {
		{ NULL, "64 bulk send buffers (at most 16 per target)" },
		{ "8", "8 bulk send buffers (at most 2 per target)" },
		{ "3", "3 bulk send buffers (at most 1 per target)" },
	};
	struct t_nicd n;

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		t_nicd_init(&n, "cap");
		if (runs[i][0])
			t_nicd_start(&n, "--send-buffers", runs[i][0], NULL);
		else
			t_nicd_start(&n, NULL);
		/* Its socket can be up before its start-up lines leave stdio's buffer. */
		t_nicd_stop(&n, SIGTERM);
		cr_assert(strstr(t_read_file(n.log), runs[i][1]), "expected \"%s\" in:\n%s",
			  runs[i][1], t_read_file(n.log));
		t_nicd_fini(&n);
	}
}

Test(tools, stat_and_ping_on_a_lonely_nicd, .timeout = 60)
{
	struct t_nicd n;
	char key[256];
	int rc;

	t_nicd_init(&n, "stat");
	t_nicd_start(&n, NULL);
	rc = t_cmd(t_out, SEGNET_STAT_BIN, "--prefix", n.prefix, "--once", "--all", NULL);
	cr_assert_eq(rc, 0, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "nic.stats."), "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), ".hello_sent "), "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), ".host_opens "), "%s", t_read_file(t_out));
	rc = t_cmd(t_out, SEGNET_STAT_BIN, "--prefix", n.prefix, "--once", "--json",
		   "--filter", "endpoints_open", "--all", NULL);
	cr_assert_eq(rc, 0, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "{\"nic.stats."), "%s", t_read_file(t_out));
	rc = t_cmd(t_out, SEGNET_STAT_BIN, "--prefix", n.prefix, "--count", "2", "--interval",
		   "0.125", "--filter", "hello_sent", NULL);
	cr_assert_eq(rc, 0, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "per second"), "%s", t_read_file(t_out));
	/* The interval as typed (%.2g said 0.12). */
	cr_assert(strstr(t_read_file(t_out), "every 0.125 s"), "%s", t_read_file(t_out));
	/* A stopped daemon: segnet-stat gives up after its reply wait, not never. */
	kill(n.pid, SIGSTOP);
	rc = t_cmd(t_out, SEGNET_STAT_BIN, "--prefix", n.prefix, "--once", NULL);
	kill(n.pid, SIGCONT);
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "is the daemon stopped?"), "%s", t_read_file(t_out));
	/* The NIC never joins here: the client gives up after --join-wait. */
	snprintf(key, sizeof(key), "%s", n.key1);
	rc = t_cmd(t_out, SEGNET_PING_BIN, "--nicd", n.sock, "--key-file", key, "--node", "1",
		   "--join-wait", "200", NULL);
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "did not join"), "%s", t_read_file(t_out));
	rc = t_cmd(t_out, SEGNET_PING_BIN, "--nicd", n.sock, "--key", "wrong", "--node", "1", NULL);
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "wrong key"), "%s", t_read_file(t_out));
	t_nicd_fini(&n);
}

/*
 * A nicd that is there but does not serve the virtual network says so (not
 * "or no nicd socket"); an endpoint id beyond nicd's table is refused
 * naming --ep and the table, exit 2, before any ping is sent.
 */
Test(tools, ping_and_perf_name_what_a_lonely_nicd_refuses, .timeout = 60)
{
	struct t_nicd n;
	int rc;

	t_nicd_init(&n, "refuse");
	t_nicd_start(&n, "--endpoints", "8", NULL);
	rc = t_cmd(t_out, SEGNET_PING_BIN, "--nicd", n.sock, "--key", "k", "--vnet", "9",
		   "--node", "1", NULL);
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "does not serve virtual network 9"), "%s",
		  t_read_file(t_out));
	cr_assert(!strstr(t_read_file(t_out), "no nicd socket"), "%s", t_read_file(t_out));
	rc = t_cmd(t_out, SEGNET_PING_BIN, "--nicd", n.sock, "--key-file", n.key1, "--node", "1",
		   "--ep", "8", "--join-wait", "200", NULL);
	cr_assert_eq(rc, 2, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "--ep 8: nicd has endpoints 0 .. 7"), "%s",
		  t_read_file(t_out));
	rc = t_cmd(t_out, SEGNET_PERF_BIN, "--nicd", n.sock, "--key-file", n.key1, "--client",
		   "--node", "1", "--ep", "70", "--join-wait", "200", NULL);
	cr_assert_eq(rc, 2, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "--ep 70: nicd has endpoints 0 .. 7"), "%s",
		  t_read_file(t_out));
	/* The last endpoint is a good one: the client goes on to wait for the join. */
	rc = t_cmd(t_out, SEGNET_PING_BIN, "--nicd", n.sock, "--key-file", n.key1, "--node", "1",
		   "--ep", "7", "--join-wait", "200", NULL);
	cr_assert_eq(rc, 1, "%s", t_read_file(t_out));
	cr_assert(strstr(t_read_file(t_out), "did not join"), "%s", t_read_file(t_out));
	t_nicd_fini(&n);
}
