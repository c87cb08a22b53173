/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * switchd's telemetry endpoints read back through the EAL's socket, over a
 * fabric on array ports behind fault injection. DPDK 22.11 answers a
 * callback that fails with null and frees none of the nested dictionaries
 * its reply holds (only writing a reply frees them), so a reply that fails
 * part way must free them itself. rte_tel_data_alloc and rte_tel_data_free
 * are wrapped (--wrap, in meson.build) to fail the allocation chosen and to
 * count what switchd's code allocated and freed.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_fault.h"
#include "switchd/swd.h"
#include "test_dp_util.h"
#include "test_tel_util.h"

enum {
	T_N = 4,		/* nodes */
	T_POOL = 1023,		/* frames in the pool */
	T_PORT_CAP = 64,	/* frames an array port holds each way */
};

/* DPDK's telemetry containers (the test links with --wrap of both). */
struct rte_tel_data *__real_rte_tel_data_alloc(void);
struct rte_tel_data *__wrap_rte_tel_data_alloc(void);
void __real_rte_tel_data_free(struct rte_tel_data *data);
void __wrap_rte_tel_data_free(struct rte_tel_data *data);

/*
 * Set and read by the test between replies, changed by the callbacks on
 * DPDK's telemetry thread while the test waits for a reply: the socket
 * orders the two.
 */
static unsigned int t_allocs;	/* rte_tel_data_alloc calls since the test reset it */
static unsigned int t_fail_at;	/* the call that returns NULL (1: the first), 0: none */
static int t_live;		/* containers allocated and not freed by switchd */

/* rte_tel_data_alloc, refused at call t_fail_at, counted. */
struct rte_tel_data *__wrap_rte_tel_data_alloc(void)
{
	struct rte_tel_data *d;

	if (++t_allocs == t_fail_at)
		return NULL;
	d = __real_rte_tel_data_alloc();
	t_live += d != NULL;
	return d;
}

/* rte_tel_data_free, counted (DPDK's own frees of a written reply are not). */
void __wrap_rte_tel_data_free(struct rte_tel_data *data)
{
	t_live -= data != NULL;
	__real_rte_tel_data_free(data);
}

/* The pool of the fabric and the fault ports. */
static struct rte_mempool *t_mp;

/* The EAL's runtime directory, removed at the end of a test. */
static char t_runtime_dir[PATH_MAX];

/* The EAL with telemetry (a file prefix of this process's own), a pool, switchd's endpoints. */
static void t_eal_start(void)
{
	char prefix[64], err[256];
	char *argv[] = {
		"test_swd_telemetry", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
		"-l", "0", "--file-prefix", prefix, "--log-level", "lib.eal:warning",
		"--log-level", "lib.telemetry:error",
	};
	int argc = (int)RTE_DIM(argv), ret;

	snprintf(prefix, sizeof(prefix), "segnet-ut-swdtel-%d", (int)getpid());
	ret = dp_eal_init(argc, argv, err, sizeof(err));
	cr_assert_eq(ret, argc - 1, "dp_eal_init: %d %s", ret, err);
	snprintf(t_runtime_dir, sizeof(t_runtime_dir), "%s", rte_eal_get_runtime_dir());
	t_mp = tdp_pool("t_swdtel", T_POOL);
	cr_assert_eq(swd_telemetry_register(), 0);
}

/* A fabric and the ports switchd's telemetry reads. */
struct t_switch {
	struct sw_fabric *sw;		/* the fabric published */
	struct dp_port *bulk[T_N];	/* node i's bulk port */
	struct dp_port *quick[T_N];	/* node i's quick port (== bulk but for node 1) */
	struct swd_node node[T_N];	/* the nodes' ports as switchd keeps them */
	struct swd_ports ports;		/* what swd_telemetry_publish is handed */
};

/* An array port behind fault injection. */
static struct dp_port *t_fault_port(const char *name)
{
	struct dp_fault_params fp = { .loss = 0.5 };
	struct dp_port *p = dp_fault_port_create(tport_create(name, T_PORT_CAP), &fp, 1, t_mp);

	cr_assert_not_null(p, "dp_fault_port_create(%s)", name);
	return p;
}

/*
 * Build and publish a switch whose ports are behind fault injection (as
 * with --fault): one port per node but node 1, which has one per channel,
 * so /segnet/switch/stats has fault roles port, bulk and quick.
 */
static void t_switch_up(struct t_switch *t)
{
	struct sw_config cfg = {
		.n_nodes = T_N, .arbiter = "lcf", .bulk_gbps = 10, .quick_gbps = 10,
		.slot_frames = 1, .seed = 1, .mp = t_mp, .check_crc = true,
	};
	char err[256] = "", name[16];

	for (int i = 0; i < T_N; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		t->bulk[i] = t->quick[i] = t_fault_port(name);
	}
	t->quick[1] = t_fault_port("n1q");
	for (int i = 0; i < T_N; i++)
		t->node[i] = (struct swd_node){ .bulk = t->bulk[i], .quick = t->quick[i] };
	t->ports = (struct swd_ports){ .n = T_N, .node = t->node, .faulty = true };
	t->sw = sw_fabric_create(&cfg, t->bulk, t->quick, err, sizeof(err));
	cr_assert_not_null(t->sw, "sw_fabric_create: %s", err);
	swd_telemetry_publish(t->sw, &t->ports);
}

/* Unpublish and free the switch and its ports. */
static void t_switch_down(struct t_switch *t)
{
	swd_telemetry_unpublish();
	sw_fabric_destroy(t->sw);
	dp_port_destroy(t->quick[1]);
	for (int i = 0; i < T_N; i++)
		dp_port_destroy(t->bulk[i]);
}

/* The switch every test reads. */
static struct t_switch t_sw;

/* The EAL and the switch, published. */
static void t_up(void)
{
	t_eal_start();
	t_switch_up(&t_sw);
}

/* The switch freed, then the EAL. */
static void t_down(void)
{
	t_switch_down(&t_sw);
	dp_eal_cleanup();
	tel_runtime_dir_remove(t_runtime_dir);
}

TestSuite(swd_telemetry, .init = t_up, .fini = t_down);

/*
 * Read cmd (with params, or none) once whole, into buf, then once with each
 * allocation that reply made refused in turn: every such read is answered
 * null and leaves nothing allocated. Returns the allocations of the whole
 * reply.
 */
static unsigned int t_fail_each(const char *cmd, const char *params, char *buf, size_t len)
{
	char query[128], whole[128], null_reply[128], failed[256];
	unsigned int n;
	int fd = tel_connect(buf, len);

	snprintf(query, sizeof(query), "%s%s%s", cmd, params ? "," : "", params ? params : "");
	snprintf(whole, sizeof(whole), "{\"%s\":{", cmd);
	snprintf(null_reply, sizeof(null_reply), "{\"%s\":null}", cmd);
	t_allocs = 0;
	t_fail_at = 0;
	tel_query(fd, query, buf, len);
	n = t_allocs;
	cr_assert_eq(strncmp(buf, whole, strlen(whole)), 0, "%s: %s", query, buf);
	for (unsigned int k = 1; k <= n; k++) {
		t_allocs = 0;
		t_live = 0;
		t_fail_at = k;
		tel_query(fd, query, failed, sizeof(failed));
		cr_assert_str_eq(failed, null_reply, "%s with allocation %u refused", query, k);
		cr_expect_eq(t_live, 0,
			     "%s with allocation %u of %u refused: %d nested containers not freed",
			     query, k, n, t_live);
	}
	t_fail_at = 0;
	close(fd);
	return n;
}

/* Decode drops, fault counters (a dictionary per role) and the switch's counters. */
Test(swd_telemetry, a_stats_reply_that_fails_part_way_frees_what_it_added)
{
	char buf[16384];

	cr_assert_eq(t_fail_each("/segnet/switch/stats", NULL, buf, sizeof(buf)), 5,
		     "decode, fault, and fault's port, bulk and quick: %s", buf);
	cr_assert_not_null(strstr(buf, "\"decode\":{"), "%s", buf);
	cr_assert_not_null(strstr(buf, "\"fault\":{\"port\":{\"lost\":"), "%s", buf);
	cr_assert_not_null(strstr(buf, "\"bulk\":{\"lost\":"), "%s", buf);
	cr_assert_not_null(strstr(buf, "\"quick\":{\"lost\":"), "%s", buf);
}

/* A dictionary per node: every node, or the one asked for. */
Test(swd_telemetry, a_nodes_reply_that_fails_part_way_frees_what_it_added)
{
	char buf[16384];

	cr_assert_eq(t_fail_each("/segnet/switch/nodes", NULL, buf, sizeof(buf)), T_N, "%s", buf);
	cr_assert_not_null(strstr(buf, "\"node3\":{\"joined\":0,"), "%s", buf);
	cr_assert_eq(t_fail_each("/segnet/switch/nodes", "1", buf, sizeof(buf)), 1, "%s", buf);
	cr_assert_not_null(strstr(buf, "\"node1\":{\"joined\":0,"), "%s", buf);
	cr_assert_not_null(strstr(buf, "\"bulk_tx_frames\":0"), "%s", buf);
}

/* The match histogram, the arbiter's one nested container. */
Test(swd_telemetry, an_arbiter_reply_that_fails_frees_what_it_added)
{
	char buf[16384];

	cr_assert_eq(t_fail_each("/segnet/switch/arbiter", NULL, buf, sizeof(buf)), 1, "%s", buf);
	cr_assert_not_null(strstr(buf, "\"match_hist\":[0]"), "%s", buf);
}
