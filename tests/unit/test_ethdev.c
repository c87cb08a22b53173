/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK backend without hardware: ethdev ports on net_ring vdevs (a
 * net_ring vdev created without devargs loops each transmit queue back to
 * the receive queue of the same number), the MTU plan for made-up devices,
 * the EAL helpers (pools, NUMA, pinning, TSC clock, idle back-off, log
 * limits, signals) and telemetry read back through the EAL's socket.
 *
 * Criterion runs every test in its own process, so each one brings up its
 * own EAL, with a file prefix of its own and no shared config.
 */
#include <inttypes.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_ethdev_priv.h"
#include "dataplane/dp_mbuf.h"
#include "dataplane/dp_telemetry.h"
#include "tests/common/test_frames.h"
#include "test_tel_util.h"

enum {
	/* Frames in the test pool. */
	POOL_FRAMES = 4096,
	/* Burst size of the tests. */
	BURST = 32,
	/* MTU a full BREQ needs. */
	SEGNET_MTU = DP_MAX_FRAME - RTE_ETHER_HDR_LEN,
};

/* The pool every test uses. */
static struct rte_mempool *pool;

/* The EAL's runtime directory, removed at the end of a test. */
static char runtime_dir[PATH_MAX];

/* Where that client's server would be (a test may play it; removed at the end). */
static char memif_no_server_sock[64];

/* memif's devargs for a client of a server that is not there (a socket in /tmp, which it checks). */
static char memif_no_server[160];

/* A directory of this test's own for vhost-user sockets (suite peerless). */
static char vhost_dir[64];

/* virtio-user's devargs for a client whose server is started later, in vhost_dir. */
static char virtio_late[160];

/* virtio-user's devargs for a client whose server takes connections and never answers. */
static char virtio_silent[160];

/* Devices whose peers are not there (suite peerless). */
static const char *const peerless_vdevs[] = {
	/* A memif client whose server's socket is missing. */
	"--vdev", memif_no_server,
	/* A memif device its driver refuses. */
	"--vdev", "net_memif1,role=bogus",
	/* A virtio-user client whose vhost-user server's socket is missing. */
	"--vdev", "net_virtio_user0,path=/nonexistent-segnet-ut/vh0.sock,queues=1",
	/* One whose server the test starts later. */
	"--vdev", virtio_late,
	/* One whose server the test plays: it listens and says nothing. */
	"--vdev", virtio_silent,
	/* Its vhost-user server (net_vhost0, hot-plugged) logs every message at INFO. */
	"--log-level", "lib.vhost.config:warning",
};

/* Bring up the EAL with two net_ring vdevs, the n_extra arguments extra and a pool. */
static void eal_start(const char *const *extra, int n_extra)
{
	char prefix[64], err[256];
	char *argv[32] = {
		"test_ethdev", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
		"-l", "0", "--file-prefix", prefix, "--vdev", "net_ring0",
		"--vdev", "net_ring1", "--log-level", "lib.eal:warning",
		"--log-level", "lib.telemetry:error",
	};
	int argc = 18;
	int ret;

	cr_assert_lt(argc + n_extra, (int)RTE_DIM(argv));
	for (int i = 0; i < n_extra; i++)
		argv[argc++] = (char *)extra[i];
	snprintf(prefix, sizeof(prefix), "segnet-ut-ethdev-%d", (int)getpid());
	ret = dp_eal_init(argc, argv, err, sizeof(err));
	cr_assert_eq(ret, argc - 1, "dp_eal_init: %d %s", ret, err);
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	pool = dp_pool_for_socket("ut", SOCKET_ID_ANY, POOL_FRAMES, err, sizeof(err));
	cr_assert_not_null(pool, "%s", err);
}

/* The EAL with two net_ring vdevs and a pool. */
static void eal_up(void)
{
	eal_start(NULL, 0);
}

/* The EAL of eal_up, and the peerless devices. */
static void eal_up_peerless(void)
{
	snprintf(memif_no_server_sock, sizeof(memif_no_server_sock),
		 "/tmp/segnet-ut-no-server-%d.sock", (int)getpid());
	snprintf(memif_no_server, sizeof(memif_no_server),
		 "net_memif0,role=client,id=0,socket=%s,socket-abstract=no,bsize=4096",
		 memif_no_server_sock);
	snprintf(vhost_dir, sizeof(vhost_dir), "/tmp/segnet-ut-vhost-%d", (int)getpid());
	cr_assert_eq(mkdir(vhost_dir, 0700), 0, "mkdir %s: %s", vhost_dir, strerror(errno));
	/* speed=: virtio-user reports no link speed unless told one. */
	snprintf(virtio_late, sizeof(virtio_late), "net_virtio_user1,path=%s/vh.sock,queues=1,speed=10000",
		 vhost_dir);
	snprintf(virtio_silent, sizeof(virtio_silent),
		 "net_virtio_user2,path=%s/silent.sock,queues=1", vhost_dir);
	eal_start(peerless_vdevs, (int)RTE_DIM(peerless_vdevs));
}

/* Release the EAL and remove its runtime directory (our prefix only). */
static void eal_down(void)
{
	dp_eal_cleanup();
	tel_runtime_dir_remove(runtime_dir);
}

/* eal_down, and vhost_dir and memif_no_server_sock removed. */
static void eal_down_peerless(void)
{
	char path[sizeof(vhost_dir) + 16];

	eal_down();
	unlink(memif_no_server_sock);
	snprintf(path, sizeof(path), "%s/vh.sock", vhost_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/silent.sock", vhost_dir);
	unlink(path);
	rmdir(vhost_dir);
}

/*
 * The DPDK log, captured from log_capture() on, the one way these tests
 * read it: kept to be searched (log_captured) and passed on to stderr. A
 * line is written by the thread that logs it (the EAL interrupt thread's
 * too), so the text is kept under a lock, and the thread that first said
 * log_capture's needle is noted (log_capture_intr).
 */
static struct {
	pthread_mutex_t lock;	/* over the fields below */
	FILE *f;		/* the stream the EAL logs to (line buffered) */
	char *text;		/* what it said since log_capture, NUL-terminated */
	size_t len;		/* bytes in text */
	const char *needle;	/* looked for as the log goes (NULL: nothing) */
	int needle_intr;	/* where first said: -1 not yet, 1 EAL interrupt thread, 0 another */
} log_cap = { .lock = PTHREAD_MUTEX_INITIALIZER, .needle_intr = -1 };

/* The capture stream's write: keep buf, note the needle's thread, pass buf on to stderr. */
static ssize_t log_capture_write(void *cookie, const char *buf, size_t size)
{
	char *text;

	(void)cookie;
	pthread_mutex_lock(&log_cap.lock);
	text = realloc(log_cap.text, log_cap.len + size + 1);
	if (text) {
		memcpy(text + log_cap.len, buf, size);
		log_cap.len += size;
		text[log_cap.len] = '\0';
		log_cap.text = text;
		/* (the first time it is there, this write said it, or its end) */
		if (log_cap.needle && log_cap.needle_intr < 0 && strstr(text, log_cap.needle))
			log_cap.needle_intr = rte_thread_is_intr();
	}
	pthread_mutex_unlock(&log_cap.lock);
	return (ssize_t)fwrite(buf, 1, size, stderr);
}

/* From now on, capture the DPDK log afresh, noting where it says needle (NULL: nothing). */
static void log_capture(const char *needle)
{
	cookie_io_functions_t io = { .write = log_capture_write };

	if (!log_cap.f) {
		log_cap.f = fopencookie(NULL, "w", io);
		cr_assert_not_null(log_cap.f);
		cr_assert_eq(setvbuf(log_cap.f, NULL, _IOLBF, BUFSIZ), 0);
	}
	fflush(log_cap.f);
	pthread_mutex_lock(&log_cap.lock);
	log_cap.len = 0;
	if (log_cap.text)
		log_cap.text[0] = '\0';
	log_cap.needle = needle;
	log_cap.needle_intr = -1;
	pthread_mutex_unlock(&log_cap.lock);
	cr_assert_eq(rte_openlog_stream(log_cap.f), 0);
}

/* A copy of what the DPDK log said since log_capture (free it). */
static char *log_captured(void)
{
	char *copy;

	fflush(log_cap.f);
	pthread_mutex_lock(&log_cap.lock);
	copy = strdup(log_cap.text ? log_cap.text : "");
	pthread_mutex_unlock(&log_cap.lock);
	cr_assert_not_null(copy);
	return copy;
}

/* Where the log first said log_capture's needle: -1 not yet, 1 EAL interrupt thread, 0 another. */
static int log_capture_intr(void)
{
	int intr;

	pthread_mutex_lock(&log_cap.lock);
	intr = log_cap.needle_intr;
	pthread_mutex_unlock(&log_cap.lock);
	return intr;
}

/* A memif server on a socket file of its own, for memif_end. */
static char memif_server[192];

/* Where memif_server's socket is. */
static char memif_sock[96];

/* The EAL of eal_up, a memif server and the DPDK log captured. */
static void eal_up_memif(void)
{
	const char *extra[] = { "--vdev", memif_server, "--log-level", "pmd.net.memif:info" };

	snprintf(memif_sock, sizeof(memif_sock), "/tmp/segnet-ut-memif-end-%d.sock", (int)getpid());
	snprintf(memif_server, sizeof(memif_server),
		 "net_memif0,role=server,id=0,socket=%s,socket-abstract=no,bsize=4096", memif_sock);
	eal_start(extra, (int)RTE_DIM(extra));
	log_capture(NULL);
}

/* eal_down, and memif_sock removed if the driver left it. */
static void eal_down_memif(void)
{
	eal_down();
	unlink(memif_sock);
}

TestSuite(ethdev, .init = eal_up, .fini = eal_down);
TestSuite(memif_end, .init = eal_up_memif, .fini = eal_down_memif);
TestSuite(eal, .init = eal_up, .fini = eal_down);
TestSuite(peerless, .init = eal_up_peerless, .fini = eal_down_peerless);
TestSuite(idle);
TestSuite(ratelimit);
TestSuite(signals);
TestSuite(frames);

/* Bring up a ring vdev with nq queue pairs. */
static void ring_up(const char *name, uint16_t nq, struct dp_ethdev *dev)
{
	struct dp_ethdev_conf conf = {
		.rx_queues = nq, .tx_queues = nq, .link_wait_ms = 1000,
		.promiscuous = true,
	};
	char err[256];
	int ret = dp_ethdev_setup(name, &conf, pool, dev, err, sizeof(err));

	cr_assert_eq(ret, 0, "setup %s: %d %s", name, ret, err);
}

/* An mbuf holding test frame i from node `from`. */
static struct rte_mbuf *frame_mbuf(unsigned int i, uint16_t from)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	int len;

	cr_assert_not_null(m, "pool empty");
	len = test_frames_encode(i, from, 1 - from, rte_pktmbuf_mtod(m, uint8_t *),
				 DP_MBUF_DATA);
	cr_assert_gt(len, 0, "encode frame %u: %d", i, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	return m;
}

/* Check that m is test frame i from node `from`, byte for byte. */
static void frame_check(const struct rte_mbuf *m, unsigned int i, uint16_t from)
{
	uint8_t want[TEST_FRAMES_MAX_LEN];
	struct proto_pkt pkt;
	int len = test_frames_encode(i, from, 1 - from, want, sizeof(want));

	cr_assert_eq(m->nb_segs, 1, "frame %u in %u segments", i, m->nb_segs);
	cr_assert_eq(m->data_len, (uint16_t)len, "frame %u: %u bytes, sent %d",
		     i, m->data_len, len);
	cr_assert_eq(memcmp(rte_pktmbuf_mtod(m, const void *), want, (size_t)len), 0,
		     "frame %u differs", i);
	cr_assert_eq(proto_decode(want, (size_t)len, NULL, &pkt), PROTO_R_OK,
		     "frame %u does not decode", i);
}

/* Send frames first .. first+n-1 on tx and receive them on rx. */
static void send_and_check(struct dp_port *tx, struct dp_port *rx,
			   unsigned int first, unsigned int n, uint16_t from)
{
	struct rte_mbuf *pkts[BURST];
	unsigned int got = 0;

	for (unsigned int k = 0; k < n; k++)
		pkts[k] = frame_mbuf(first + k, from);
	dp_port_tx(tx, pkts, (uint16_t)n);
	while (got < n) {
		uint16_t r = dp_port_rx(rx, pkts, BURST);

		cr_assert_gt(r, 0, "frames %u..%u: only %u came back", first,
			     first + n - 1, got);
		for (uint16_t k = 0; k < r; k++)
			frame_check(pkts[k], first + got + k, from);
		rte_pktmbuf_free_bulk(pkts, r);
		got += r;
	}
}

Test(frames, every_possible_length_up_to_a_full_breq)
{
	bool seen[DP_MAX_FRAME + 1] = { false };
	uint8_t buf[TEST_FRAMES_MAX_LEN];
	struct proto_pkt pkt;

	for (unsigned int i = 0; i < TEST_FRAMES_N; i++) {
		int len = test_frames_encode(i, 1, 0, buf, sizeof(buf));

		cr_assert(len >= PROTO_MIN_FRAME && len <= DP_MAX_FRAME, "frame %u: %d", i, len);
		cr_assert_eq(proto_decode(buf, (size_t)len, NULL, &pkt), PROTO_R_OK,
			     "frame %u", i);
		seen[len] = true;
	}
	for (int len = PROTO_MIN_FRAME; len <= DP_MAX_FRAME; len++)
		cr_assert_eq(seen[len], !(len == 69 || len == 70 || len == 79 || len == 80),
			     "length %d", len);
}

Test(ethdev, every_frame_size_loops_back)
{
	unsigned int avail = rte_mempool_avail_count(pool);
	struct dp_ethdev dev;
	struct dp_port *p;

	ring_up("net_ring0", 1, &dev);
	cr_assert(dev.link_up);
	p = dp_ethdev_port_create(&dev, 0, 0);
	cr_assert_not_null(p);
	cr_assert_str_eq(p->ops->kind, "ethdev");
	cr_assert_eq(dp_ethdev_port_id(p), dev.port_id);
	for (unsigned int i = 0; i < TEST_FRAMES_N; i += BURST)
		send_and_check(p, p, i, RTE_MIN((unsigned int)BURST, TEST_FRAMES_N - i), 0);
	cr_assert_eq(p->stats.tx_frames, TEST_FRAMES_N);
	cr_assert_eq(p->stats.rx_frames, TEST_FRAMES_N);
	cr_assert_eq(p->stats.rx_bytes, p->stats.tx_bytes);
	cr_assert_eq(p->stats.tx_full, 0);
	cr_assert_eq(dp_ethdev_port_stats(p)->rx_multiseg, 0);
	dp_port_destroy(p);
	dp_ethdev_close(&dev);
	cr_assert_eq(rte_mempool_avail_count(pool), avail);
}

Test(ethdev, queues_and_devices_are_separate)
{
	struct dp_ethdev d0, d1;
	struct dp_port *q0, *q1, *r1;
	struct rte_mbuf *pkts[BURST];

	ring_up("net_ring0", 2, &d0);
	ring_up("net_ring1", 1, &d1);
	q0 = dp_ethdev_port_create(&d0, 0, 0);
	q1 = dp_ethdev_port_create(&d0, 1, 1);
	r1 = dp_ethdev_port_create(&d1, 0, 0);
	cr_assert(q0 && q1 && r1);
	cr_assert_str_eq(q1->name, "net_ring0.q1");
	send_and_check(q1, q1, 0, 8, 1);
	cr_assert_eq(dp_port_rx(q0, pkts, BURST), 0);
	cr_assert_eq(dp_port_rx(r1, pkts, BURST), 0);
	send_and_check(r1, r1, TEST_FRAMES_BREQ - 4, 4, 0);
	cr_assert_eq(dp_port_rx(q0, pkts, BURST), 0);
	cr_assert_eq(dp_port_rx(q1, pkts, BURST), 0);
	dp_port_destroy(q0);
	dp_port_destroy(q1);
	dp_port_destroy(r1);
	dp_ethdev_close(&d0);
	dp_ethdev_close(&d1);
}

Test(ethdev, mtu_fits_a_full_breq)
{
	struct dp_ethdev dev;
	uint16_t mtu = 0;

	ring_up("net_ring1", 1, &dev);
	cr_assert_eq(dev.mtu, SEGNET_MTU);
	cr_assert_eq(rte_eth_dev_get_mtu(dev.port_id, &mtu), 0);
	cr_assert_eq(mtu, SEGNET_MTU);
	cr_assert_eq(DP_MAX_FRAME, 2134);
	/* What it sends: the MTU and the Ethernet header, a full BREQ, and VLAN tags. */
	cr_assert_eq(dev.limit.untagged, DP_MAX_FRAME);
	cr_assert_eq(dev.limit.tags, DP_FRAME_TAGS_ANY);
	cr_assert_eq(dev.limit.cap, 0);
	cr_assert_str_eq(dev.mtu_note, "");
	cr_assert_str_eq(dev.name, "net_ring1");
	dp_ethdev_close(&dev);
}

/* A made-up device description: a NIC that takes MTU max_mtu at most. */
static struct rte_eth_dev_info fake_nic(const char *driver, uint16_t max_mtu,
					uint32_t max_rx_pktlen, uint64_t rx_capa)
{
	struct rte_eth_dev_info info;

	memset(&info, 0, sizeof(info));
	info.driver_name = driver;
	info.max_mtu = max_mtu;
	info.max_rx_pktlen = max_rx_pktlen;
	info.rx_offload_capa = rx_capa;
	info.max_rx_queues = 4;
	info.max_tx_queues = 4;
	return info;
}

Test(ethdev, mtu_too_small_is_an_error_naming_the_port)
{
	struct rte_eth_dev_info info = fake_nic("net_ixgbe", 1500, 1518, 0);
	struct rte_eth_conf ec;
	bool set_mtu;
	char err[256] = "";

	memset(&ec, 0, sizeof(ec));
	cr_assert_eq(dp_ethdev_plan_rx("0000:3b:00.0", &info, pool, &ec, &set_mtu,
				       err, sizeof(err)), -EMSGSIZE);
	cr_assert(strstr(err, "0000:3b:00.0"), "%s", err);
	cr_assert(strstr(err, "at most MTU 1500"), "%s", err);
	cr_assert(strstr(err, "2120"), "%s", err);

	/* A jumbo-capable NIC: MTU set, no scatter with 2304-byte buffers. */
	info = fake_nic("net_ixgbe", 9710, 9728, RTE_ETH_RX_OFFLOAD_SCATTER);
	memset(&ec, 0, sizeof(ec));
	cr_assert_eq(dp_ethdev_plan_rx("p", &info, pool, &ec, &set_mtu, err,
				       sizeof(err)), 0, "%s", err);
	cr_assert(set_mtu);
	cr_assert_eq(ec.rxmode.mtu, SEGNET_MTU);
	cr_assert_eq(ec.rxmode.offloads & RTE_ETH_RX_OFFLOAD_SCATTER, 0);

	/* memif reports 1518-byte frames but carries more: no MTU set. */
	info = fake_nic("net_memif", UINT16_MAX, 1518, 0);
	memset(&ec, 0, sizeof(ec));
	cr_assert_eq(dp_ethdev_plan_rx("m", &info, pool, &ec, &set_mtu, err,
				       sizeof(err)), 0, "%s", err);
	cr_assert_not(set_mtu);
	cr_assert_eq(ec.rxmode.mtu, 0);
}

Test(ethdev, small_buffers_need_scatter)
{
	struct rte_mempool *small = rte_pktmbuf_pool_create("ut-small", 64, 0, 0,
		RTE_PKTMBUF_HEADROOM + 1024, SOCKET_ID_ANY);
	struct rte_eth_dev_info info = fake_nic("net_x", 9000, 9018,
						RTE_ETH_RX_OFFLOAD_SCATTER);
	struct rte_eth_conf ec;
	bool set_mtu;
	char err[256] = "";

	cr_assert_not_null(small);
	memset(&ec, 0, sizeof(ec));
	cr_assert_eq(dp_ethdev_plan_rx("s", &info, small, &ec, &set_mtu, err,
				       sizeof(err)), 0, "%s", err);
	cr_assert_neq(ec.rxmode.offloads & RTE_ETH_RX_OFFLOAD_SCATTER, 0);
	info.rx_offload_capa = 0;
	memset(&ec, 0, sizeof(ec));
	cr_assert_eq(dp_ethdev_plan_rx("s", &info, small, &ec, &set_mtu, err,
				       sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "cannot scatter"), "%s", err);
	rte_mempool_free(small);
}

/* Plan an MTU of want on the device info describes, with the test pool; note into note. */
static uint16_t plan_mtu(const struct rte_eth_dev_info *info, bool set_mtu, uint16_t want,
			 struct rte_eth_conf *ec, char *note, size_t notelen)
{
	memset(ec, 0, sizeof(*ec));
	note[0] = 0;
	return dp_ethdev_plan_mtu(info, pool, set_mtu, want, ec, note, notelen);
}

Test(ethdev, a_larger_mtu_is_given_as_far_as_the_device_takes_it)
{
	struct rte_eth_dev_info info = fake_nic("net_ixgbe", 9710, 9728,
						RTE_ETH_RX_OFFLOAD_SCATTER);
	struct rte_eth_conf ec;
	char note[320];

	/* None asked, or one segnet's covers: segnet's, nothing said. */
	cr_assert_eq(plan_mtu(&info, true, 0, &ec, note, sizeof(note)), SEGNET_MTU);
	cr_assert_eq(plan_mtu(&info, true, 1500, &ec, note, sizeof(note)), SEGNET_MTU);
	cr_assert_str_eq(note, "");
	cr_assert_eq(ec.rxmode.mtu, 0);

	/* A jumbo NIC: all of it, received with scatter (2304-byte buffers). */
	cr_assert_eq(plan_mtu(&info, true, 8986, &ec, note, sizeof(note)), 8986);
	cr_assert_eq(ec.rxmode.mtu, 8986);
	cr_assert_neq(ec.rxmode.offloads & RTE_ETH_RX_OFFLOAD_SCATTER, 0);
	cr_assert_str_eq(note, "");

	/* More than it takes: its most, and why not more. */
	cr_assert_eq(plan_mtu(&info, true, 12000, &ec, note, sizeof(note)), 9710);
	cr_assert_eq(ec.rxmode.mtu, 9710);
	cr_assert_str_eq(note, "the device (net_ixgbe) takes MTU 9710 at most");

	/* A 1500-byte NIC: segnet's (the plan_rx check refuses it anyway). */
	info = fake_nic("net_e1000", 1500, 1518, RTE_ETH_RX_OFFLOAD_SCATTER);
	cr_assert_eq(plan_mtu(&info, true, 8986, &ec, note, sizeof(note)), SEGNET_MTU);
	cr_assert_eq(ec.rxmode.mtu, 0);
	cr_assert(strstr(note, "takes MTU 1500 at most"), "%s", note);

	/* No scatter: what the 2304-byte buffers hold, less its 18-byte overhead. */
	info = fake_nic("net_null", UINT16_MAX, UINT32_MAX, 0);
	cr_assert_eq(plan_mtu(&info, true, 8986, &ec, note, sizeof(note)), 2286);
	cr_assert_eq(ec.rxmode.offloads & RTE_ETH_RX_OFFLOAD_SCATTER, 0);
	cr_assert(strstr(note, "receive buffers hold frames of 2304 bytes (MTU 2286)") &&
		  strstr(note, "(net_null) cannot scatter"), "%s", note);
}

Test(ethdev, a_lax_driver_gets_no_larger_mtu_and_says_what_limits_it)
{
	struct rte_eth_dev_info info = fake_nic("net_af_packet", UINT16_MAX, 1518, 0);
	struct rte_eth_conf ec;
	char note[320];

	cr_assert_eq(plan_mtu(&info, false, 8986, &ec, note, sizeof(note)), SEGNET_MTU);
	cr_assert_eq(ec.rxmode.mtu, 0);
	cr_assert(strstr(note, "segnet sets no MTU on net_af_packet (DPDK 22.11 takes none over 1500 for it)"),
		  "%s", note);
	cr_assert(strstr(note, "ip link set dev IFACE mtu 8986 (both ends of a veth), framesz=9216,blocksz=36864"),
		  "%s", note);
	/* Said for any MTU asked: the kernel interface's may be below segnet's. */
	cr_assert_eq(plan_mtu(&info, false, 1986, &ec, note, sizeof(note)), SEGNET_MTU);
	cr_assert_neq(note[0], 0);
	cr_assert_eq(plan_mtu(&info, false, 0, &ec, note, sizeof(note)), SEGNET_MTU);
	cr_assert_str_eq(note, "");
}

Test(ethdev, setup_gives_the_larger_mtu_asked_for)
{
	struct dp_ethdev_conf conf = { .rx_queues = 1, .tx_queues = 1, .mtu = 8986 };
	struct dp_ethdev dev;
	char err[256] = "";
	uint16_t mtu = 0;

	cr_assert_eq(dp_ethdev_setup("net_ring1", &conf, pool, &dev, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(dev.mtu, 8986);
	cr_assert_eq(rte_eth_dev_get_mtu(dev.port_id, &mtu), 0);
	cr_assert_eq(mtu, 8986);
	cr_assert_eq(dev.limit.untagged, 9000);
	cr_assert_str_eq(dev.mtu_note, "");
	dp_ethdev_close(&dev);
}

Test(ethdev, bad_names_are_enodev_with_the_name)
{
	struct dp_ethdev_conf conf = { .rx_queues = 1, .tx_queues = 1 };
	struct dp_ethdev dev;
	char err[256] = "", num[8];
	uint16_t id, id1;

	cr_assert_eq(dp_ethdev_find("net_ring1", &id1, err, sizeof(err)), 0, "%s", err);
	snprintf(num, sizeof(num), "%u", id1);
	cr_assert_eq(dp_ethdev_find(num, &id, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(id, id1);

	cr_assert_eq(dp_ethdev_find("net_nosuch7", &id, err, sizeof(err)), -ENODEV);
	cr_assert(strstr(err, "\"net_nosuch7\""), "%s", err);
	cr_assert(strstr(err, "net_ring0") && strstr(err, "net_ring1"), "%s", err);
	cr_assert_eq(dp_ethdev_find("77", &id, err, sizeof(err)), -ENODEV);
	cr_assert(strstr(err, "77"), "%s", err);
	cr_assert_eq(dp_ethdev_find("", &id, err, sizeof(err)), -ENODEV);
	/* --no-pci: the PCI address is written in full and not found. */
	cr_assert_eq(dp_ethdev_find("3b:00.0", &id, err, sizeof(err)), -ENODEV);
	cr_assert(strstr(err, "0000:3b:00.0") && strstr(err, "vfio-pci"), "%s", err);

	cr_assert_eq(dp_ethdev_setup("net_nosuch7", &conf, pool, &dev, err,
				     sizeof(err)), -ENODEV);
	cr_assert(strstr(err, "net_nosuch7"), "%s", err);
	/* A tiny buffer gets a truncated but terminated message. */
	cr_assert_eq(dp_ethdev_find("net_nosuch7", &id, err, 8), -ENODEV);
	cr_assert_eq(strlen(err), 7);
}

Test(ethdev, queue_counts_beyond_the_device_are_refused)
{
	struct dp_ethdev_conf conf = { .rx_queues = 17, .tx_queues = 1 };
	struct dp_ethdev dev;
	char err[256] = "";

	cr_assert_eq(dp_ethdev_setup("net_ring0", &conf, pool, &dev, err,
				     sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "net_ring0") && strstr(err, "17 receive queues") &&
		  strstr(err, "at most 16"), "%s", err);
	conf = (struct dp_ethdev_conf) { .rx_queues = 1, .tx_queues = 40 };
	cr_assert_eq(dp_ethdev_setup("net_ring0", &conf, pool, &dev, err,
				     sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "40 transmit queues") && strstr(err, "at most 16"), "%s", err);
	conf = (struct dp_ethdev_conf) { .rx_queues = 0, .tx_queues = 1 };
	cr_assert_eq(dp_ethdev_setup("net_ring0", &conf, pool, &dev, err,
				     sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "net_ring0"), "%s", err);
	cr_assert_eq(dp_ethdev_setup("net_ring0", &conf, NULL, &dev, err,
				     sizeof(err)), -EINVAL);
	/* The device is still usable after the refusals. */
	ring_up("net_ring0", 16, &dev);
	dp_ethdev_close(&dev);
}

Test(ethdev, setup_twice_and_bad_queues)
{
	struct dp_ethdev_conf conf = { .rx_queues = 1, .tx_queues = 1 };
	struct dp_ethdev dev, again;
	struct dp_port fake = { 0 };
	char err[256] = "";

	ring_up("net_ring0", 1, &dev);
	cr_assert_eq(dp_ethdev_setup("net_ring0", &conf, pool, &again, err,
				     sizeof(err)), -EBUSY);
	cr_assert(strstr(err, "net_ring0") && strstr(err, "already started"), "%s", err);
	errno = 0;
	cr_assert_null(dp_ethdev_port_create(&dev, 1, 0));
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(dp_ethdev_port_create(&dev, 0, 3));
	cr_assert_null(dp_ethdev_port_create(NULL, 0, 0));
	cr_assert_eq(dp_ethdev_port_id(&fake), -1);
	cr_assert_null(dp_ethdev_port_stats(&fake));
	dp_ethdev_close(&dev);
	dp_ethdev_close(&dev);
	cr_assert_null(dp_ethdev_port_create(&dev, 0, 0));
}

/*
 * A closed device's name finds nothing after (its ethdev is released; the
 * EAL removes the device at exit): the message says it was closed, not that
 * its driver did not create it, nor that no device has the name.
 */
Test(ethdev, a_closed_device_is_said_closed)
{
	struct dp_ethdev dev;
	char err[256] = "";
	uint16_t id;

	ring_up("net_ring0", 1, &dev);
	dp_ethdev_close(&dev);
	cr_assert_eq(dp_ethdev_find("net_ring0", &id, err, sizeof(err)), -ENODEV);
	cr_assert(strstr(err, "--vdev net_ring0: the device was closed") &&
		  !strstr(err, "did not create"), "%s", err);
	/* The other one is still there. */
	cr_assert_eq(dp_ethdev_find("net_ring1", &id, err, sizeof(err)), 0, "%s", err);
}

Test(ethdev, close_frees_every_frame)
{
	unsigned int avail = rte_mempool_avail_count(pool);
	struct rte_mbuf *pkts[BURST];
	struct dp_ethdev dev;
	struct dp_port *p;

	ring_up("net_ring0", 2, &dev);
	p = dp_ethdev_port_create(&dev, 1, 1);
	cr_assert_not_null(p);
	for (unsigned int i = 0; i < 100; i += 20) {
		for (unsigned int k = 0; k < 20; k++)
			pkts[k] = frame_mbuf(TEST_FRAMES_BREQ - 1 - i - k, 1);
		dp_port_tx(p, pkts, 20);
	}
	cr_assert_eq(dp_port_rx(p, pkts, 10), 10);
	rte_pktmbuf_free_bulk(pkts, 10);
	cr_assert_lt(rte_mempool_avail_count(pool), avail);
	dp_port_destroy(p);
	dp_ethdev_close(&dev);
	cr_assert_eq(rte_mempool_avail_count(pool), avail);
}

/*
 * A restart (a memif client's way back to its server) frees what the
 * receive queues held, counted: net_ring keeps its rings across a stop and
 * start, and would hand the daemon frames of the peer that went away.
 */
Test(ethdev, a_restart_frees_what_its_receive_queues_held)
{
	unsigned int in_use = rte_mempool_in_use_count(pool);
	struct rte_mbuf *pkts[BURST];
	struct dp_port *p[2];
	struct dp_ethdev dev;
	char err[256];

	ring_up("net_ring0", 2, &dev);
	for (uint16_t q = 0; q < 2; q++) {
		p[q] = dp_ethdev_port_create(&dev, q, q);
		cr_assert_not_null(p[q]);
		for (unsigned int k = 0; k < 20; k++)
			pkts[k] = frame_mbuf(k, q);
		dp_port_tx(p[q], pkts, 20);
	}
	cr_assert_eq(rte_mempool_in_use_count(pool), in_use + 40);
	cr_assert_eq(dp_ethdev_restart(&dev, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dev.watch.stats.rx_flushed_on_restart, 40);
	cr_assert_eq(rte_mempool_in_use_count(pool), in_use, "the held frames are back in the pool");
	for (uint16_t q = 0; q < 2; q++) {
		cr_assert_eq(dp_port_rx(p[q], pkts, BURST), 0, "queue %u delivered a frame from before",
			     q);
		/* What comes after the restart passes. */
		send_and_check(p[q], p[q], 20, 5, q);
		dp_port_destroy(p[q]);
	}
	cr_assert_eq(dev.watch.stats.rx_flushed_on_restart, 40);
	dp_ethdev_close(&dev);
	cr_assert_eq(rte_mempool_in_use_count(pool), in_use);
}

/* dp_ethdev_watch at now, the time advanced by ms first. */
static bool watch_after(struct dp_ethdev *dev, uint64_t *now, unsigned int ms)
{
	*now += (uint64_t)ms * 1000000;
	return dp_ethdev_watch(dev, *now);
}

/*
 * The link watch counts a link that goes down and comes back; by the
 * driver's policy it waits or restarts the device (after 100 ms, then at
 * doubling intervals up to 2 s: ring's link stays down here as a memif
 * client's would while its server is away). Creating a device again
 * (virtio-user) is in suite peerless.
 */
Test(ethdev, watch_counts_link_events_and_restarts_with_back_off)
{
	const unsigned int restart_at_ms[] = { 100, 300, 700, 1500, 3100, 5100, 7100 };
	const struct dp_ethdev_link_stats *st;
	struct dp_ethdev dev;
	uint64_t now = 1000000000, t0;
	unsigned int k = 0;

	ring_up("net_ring0", 1, &dev);
	st = &dev.watch.stats;
	cr_assert_eq(dev.watch.policy, DP_ETHDEV_LINK_WAIT, "a ring needs no restart");
	cr_assert_not(watch_after(&dev, &now, 0));
	cr_assert_eq(rte_eth_dev_set_link_down(dev.port_id), 0);
	cr_assert_not(watch_after(&dev, &now, 10));
	cr_assert_eq(st->link_down, 1);
	cr_assert_not(dev.link_up);
	cr_assert_not(watch_after(&dev, &now, 5000), "waiting: no restart");
	cr_assert_eq(rte_eth_dev_set_link_up(dev.port_id), 0);
	cr_assert_not(watch_after(&dev, &now, 10));
	cr_assert_eq(st->link_up, 1);
	cr_assert_eq(st->port_restarts, 0);

	dev.watch.policy = DP_ETHDEV_LINK_RESTART;
	cr_assert_eq(rte_eth_dev_set_link_down(dev.port_id), 0);
	cr_assert_not(watch_after(&dev, &now, 10));
	t0 = now;
	for (unsigned int ms = 10; ms <= 7100; ms += 10) {
		bool restarted = watch_after(&dev, &now, 10);

		cr_assert_eq(restarted, k < 7 && ms == restart_at_ms[k],
			     "restart at %u ms after going down: %d", ms, restarted);
		if (restarted) {
			k++;
			/* The peer is still away. */
			cr_assert_eq(rte_eth_dev_set_link_down(dev.port_id), 0);
		}
	}
	cr_assert_eq(k, 7);
	cr_assert_eq(st->port_restarts, 7);
	cr_assert_eq(st->restart_failed, 0);
	cr_assert_eq(now - t0, 7100ull * 1000000);
	/* The peer is back: the next restart brings the link up. */
	cr_assert(watch_after(&dev, &now, 2000));
	cr_assert_not(watch_after(&dev, &now, 10));
	cr_assert(dev.link_up);
	cr_assert_eq(st->link_down, 2);
	cr_assert_eq(st->link_up, 2);
	cr_assert_eq(st->port_restarts, 8);
	dp_ethdev_close(&dev);
}

/*
 * A device a failed restart left stopped: its ports pass nothing (DPDK's
 * dummy queues would complain), a restart starts it again and frees what
 * its rings kept from before (counted), and closing it while stopped
 * returns every frame.
 */
Test(ethdev, ports_of_a_stopped_device_pass_nothing)
{
	unsigned int avail = rte_mempool_avail_count(pool);
	struct rte_mbuf *pkts[BURST];
	struct dp_ethdev dev;
	struct dp_port *p;
	char err[256];

	ring_up("net_ring1", 1, &dev);
	p = dp_ethdev_port_create(&dev, 0, 0);
	cr_assert_not_null(p);
	pkts[0] = frame_mbuf(5, 0);
	dp_port_tx(p, pkts, 1);
	cr_assert_eq(rte_eth_dev_stop(dev.port_id), 0);
	dev.stopped = true;
	cr_assert_eq(dp_port_rx(p, pkts, BURST), 0);
	pkts[0] = frame_mbuf(6, 0);
	dp_port_tx(p, pkts, 1);
	cr_assert_eq(p->stats.tx_frames, 1);
	cr_assert_eq(p->stats.tx_down, 1, "a stopped device takes no frame");
	cr_assert_eq(p->stats.tx_full, 0, "counted as down, not as a full queue");
	cr_assert_eq(dp_ethdev_restart(&dev, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(dev.stopped);
	cr_assert_eq(dev.watch.stats.rx_flushed_on_restart, 1, "the frame sent before the stop");
	cr_assert_eq(dp_port_rx(p, pkts, BURST), 0);
	cr_assert_eq(rte_mempool_avail_count(pool), avail);
	send_and_check(p, p, 7, 1, 0);
	cr_assert_eq(rte_eth_dev_stop(dev.port_id), 0);
	dev.stopped = true;
	dp_port_destroy(p);
	dp_ethdev_close(&dev);
	cr_assert_eq(rte_mempool_avail_count(pool), avail);
}

/*
 * A device left stopped (by a failed restart) with frames in its receive
 * queues: DPDK reads no queue of a stopped port, and net_ring's close frees
 * its rings without the frames in them, so close starts it to take them
 * back first. Every frame is back in the pool.
 */
Test(ethdev, close_of_a_stopped_device_frees_what_its_queues_held)
{
	unsigned int avail = rte_mempool_avail_count(pool);
	struct rte_mbuf *pkts[BURST];
	struct dp_ethdev dev;

	ring_up("net_ring0", 2, &dev);
	for (uint16_t q = 0; q < 2; q++) {
		struct dp_port *p = dp_ethdev_port_create(&dev, q, q);

		cr_assert_not_null(p);
		for (unsigned int k = 0; k < 20; k++)
			pkts[k] = frame_mbuf(k, q);
		dp_port_tx(p, pkts, 20);
		cr_assert_eq(p->stats.tx_frames, 20);
		dp_port_destroy(p);
	}
	cr_assert_eq(rte_mempool_avail_count(pool), avail - 40);
	cr_assert_eq(rte_eth_dev_stop(dev.port_id), 0);
	dev.stopped = true;
	dp_ethdev_close(&dev);
	cr_assert_eq(rte_mempool_avail_count(pool), avail, "%u frames lost",
		     avail - rte_mempool_avail_count(pool));
	cr_assert_not(rte_eth_dev_is_valid_port(dev.port_id));
}

/*
 * A memif client whose server is not there: an error at set-up that names
 * the server's socket (before: "Operation not permitted" alone), unless
 * late_peer leaves it stopped, link down, its ports passing nothing, for
 * the watch to restart with back-off; a link wait restarts it the same way.
 */
Test(peerless, memif_client_without_its_server_is_left_for_the_watch)
{
	struct dp_ethdev_conf conf = { .rx_queues = 1, .tx_queues = 1, .promiscuous = true };
	const struct dp_ethdev_link_stats *st;
	struct rte_mbuf *pkts[BURST];
	struct dp_ethdev dev;
	struct dp_port *p;
	uint64_t now;
	char err[256] = "";

	cr_assert_lt(dp_ethdev_setup("net_memif0", &conf, pool, &dev, err, sizeof(err)), 0);
	cr_assert(strstr(err, "net_memif0: cannot start: no memif server at "), "%s", err);
	cr_assert(strstr(err, memif_no_server_sock), "the socket is named: %s", err);

	conf.late_peer = true;
	conf.link_wait_ms = 350;
	cr_assert_eq(dp_ethdev_setup("net_memif0", &conf, pool, &dev, err, sizeof(err)),
		     -ETIMEDOUT);
	cr_assert(strstr(err, "net_memif0: link still down after 350 ms (not started"), "%s", err);
	/* Due at 100 and 300 ms; a loaded machine may let one pass take both. */
	cr_assert(dev.watch.stats.port_restarts >= 1 && dev.watch.stats.port_restarts <= 2,
		  "restarts at 100 and 300 ms: %" PRIu64, dev.watch.stats.port_restarts);
	cr_assert_eq(dev.watch.stats.restart_failed, dev.watch.stats.port_restarts);
	dp_ethdev_close(&dev);

	conf.link_wait_ms = 0;
	cr_assert_eq(dp_ethdev_setup("net_memif0", &conf, pool, &dev, err, sizeof(err)), 0,
		     "%s", err);
	st = &dev.watch.stats;
	cr_assert(dev.stopped);
	cr_assert_not(dev.link_up);
	cr_assert_eq(dev.watch.policy, DP_ETHDEV_LINK_RESTART);
	p = dp_ethdev_port_create(&dev, 0, 0);
	cr_assert_not_null(p);
	cr_assert_eq(dp_port_rx(p, pkts, BURST), 0);
	now = dp_tsc_ns();
	cr_assert_not(watch_after(&dev, &now, 50));
	cr_assert(watch_after(&dev, &now, 60), "the first restart 100 ms after set-up");
	cr_assert(dev.stopped, "the server is still not there");
	cr_assert_eq(st->port_restarts, 1);
	cr_assert_eq(st->restart_failed, 1);
	cr_assert_eq(st->link_down, 0, "a link never up does not go down");
	cr_assert_not(watch_after(&dev, &now, 150));
	cr_assert(watch_after(&dev, &now, 60), "the next 200 ms after");
	cr_assert_eq(st->port_restarts, 2);
	dp_port_destroy(p);
	dp_ethdev_close(&dev);
	cr_assert_eq(dev.port_id, RTE_MAX_ETHPORTS);
}

/* Start the vhost-user server of net_virtio_user1 (net_vhost0, in this process): set up in srv. */
static void vhost_server_up(struct dp_ethdev *srv)
{
	struct dp_ethdev_conf conf = { .rx_queues = 1, .tx_queues = 1, .promiscuous = true };
	char args[128], err[256] = "";

	snprintf(args, sizeof(args), "iface=%s/vh.sock,queues=1", vhost_dir);
	cr_assert_eq(rte_eal_hotplug_add("vdev", "net_vhost0", args), 0);
	cr_assert_eq(dp_ethdev_setup("net_vhost0", &conf, pool, srv, err, sizeof(err)), 0,
		     "%s", err);
}

/*
 * Watch dev (time advanced in 10 ms steps, 1 ms of real time apart, for
 * 3 s of real time at most) until its link is up; it took a creation.
 * Real time: the device is created once its server answered, and DPDK
 * 22.11's vhost-user server takes a new socket's first connection only
 * after up to a second.
 */
static void watch_until_up(struct dp_ethdev *dev, uint64_t *now)
{
	uint64_t restarts = dev->watch.stats.port_restarts;

	for (unsigned int ms = 0; !dev->link_up && ms < 3000; ms++) {
		watch_after(dev, now, 10);
		/* The fence is an EAL alarm: let real time pass for it. */
		rte_delay_us_sleep(1000);
	}
	cr_assert(dev->link_up, "link of %s still down", dev->name);
	cr_assert_not(dev->stopped);
	cr_assert_not(dev->unplugged);
	cr_assert_gt(dev->watch.stats.port_restarts, restarts);
}

/* Frames first .. first+n-1 from tx, received on rx within 2 s (the vhost side gets ready in a thread). */
static void send_and_wait(struct dp_port *tx, struct dp_port *rx, unsigned int first,
			  unsigned int n)
{
	struct rte_mbuf *pkts[BURST];
	unsigned int got = 0;

	for (unsigned int k = 0; k < n; k++)
		pkts[k] = frame_mbuf(first + k, 0);
	dp_port_tx(tx, pkts, (uint16_t)n);
	for (unsigned int ms = 0; got < n && ms < 2000; ms++) {
		uint16_t r = dp_port_rx(rx, pkts, BURST);

		for (uint16_t k = 0; k < r; k++)
			frame_check(pkts[k], first + got + k, 0);
		rte_pktmbuf_free_bulk(pkts, r);
		got += r;
		if (!r)
			rte_delay_us_sleep(1000);
	}
	cr_assert_eq(got, n, "frames %u..%u: %u arrived", first, first + n - 1, got);
}

/*
 * A virtio-user client whose vhost-user server is not there: an error at
 * set-up, unless late_peer leaves it unplugged for the watch, which creates
 * it with back-off until the server answers; frames then pass both ways
 * through the dp_ports made before, and closing it returns every mbuf.
 * (Its server going away and coming back is in the lab tests: in one
 * process, the client does not see the server's socket close.)
 */
Test(peerless, virtio_user_client_is_created_once_its_server_is_there)
{
	struct dp_ethdev_conf conf = { .rx_queues = 1, .tx_queues = 1, .promiscuous = true };
	unsigned int avail = rte_mempool_avail_count(pool);
	struct rte_mbuf *pkts[BURST];
	struct dp_ethdev dev, srv;
	struct dp_port *p, *q;
	char err[512] = "";
	uint64_t now;
	uint16_t id;

	cr_assert_eq(dp_ethdev_find("net_virtio_user1", &id, err, sizeof(err)), -ENOTCONN);
	cr_assert_eq(dp_ethdev_setup("net_virtio_user1", &conf, pool, &dev, err, sizeof(err)),
		     -ENOTCONN);
	conf.late_peer = true;
	cr_assert_eq(dp_ethdev_setup("net_virtio_user1", &conf, pool, &dev, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert(dev.unplugged && dev.stopped && !dev.link_up);
	cr_assert_eq(dev.watch.policy, DP_ETHDEV_LINK_REPLUG);
	p = dp_ethdev_port_create(&dev, 0, 0);
	cr_assert_not_null(p);
	cr_assert_eq(dp_ethdev_port_id(p), -1);
	cr_assert_eq(dp_port_rx(p, pkts, BURST), 0);
	now = dp_tsc_ns();
	cr_assert_not(watch_after(&dev, &now, 50));
	cr_assert(watch_after(&dev, &now, 60), "the first creation 100 ms after set-up");
	cr_assert(dev.unplugged, "no server yet");
	cr_assert_eq(dev.watch.stats.restart_failed, 1);

	vhost_server_up(&srv);
	q = dp_ethdev_port_create(&srv, 0, 0);
	cr_assert_not_null(q);
	watch_until_up(&dev, &now);
	cr_assert_eq(dp_ethdev_port_id(p), dev.port_id);
	cr_assert_eq(dev.watch.stats.link_down, 0, "a link never up does not go down");
	send_and_wait(p, q, 0, 8);
	send_and_wait(q, p, 8, 8);
	dp_port_destroy(q);
	dp_port_destroy(p);
	dp_ethdev_close(&dev);
	dp_ethdev_close(&srv);
	cr_assert_eq(rte_eal_hotplug_remove("vdev", "net_vhost0"), 0);
	cr_assert_eq(rte_mempool_avail_count(pool), avail, "every mbuf back after closing both");
}

/*
 * The moment the watch has created a virtio-user client again its ports
 * pass frames (a NIC says HELLO and may join at once, taking its quick
 * rate then: nic_quick_rate), so the rate they report must be the new
 * device's already, not what was known before it existed (0).
 */
Test(peerless, a_created_device_reports_its_rate_at_once)
{
	struct dp_ethdev_conf conf = {
		.rx_queues = 1, .tx_queues = 1, .promiscuous = true, .late_peer = true,
	};
	struct rte_eth_link link;
	struct dp_ethdev dev, srv;
	struct dp_port *p, *q;
	char err[512] = "";
	uint64_t now;

	cr_assert_eq(dp_ethdev_setup("net_virtio_user1", &conf, pool, &dev, err, sizeof(err)), 0,
		     "%s", err);
	p = dp_ethdev_port_create(&dev, 0, 0);
	cr_assert_not_null(p);
	cr_assert_eq(dp_port_tx_gbps(p), 0, "no device, no rate");
	vhost_server_up(&srv);
	q = dp_ethdev_port_create(&srv, 0, 0);
	cr_assert_not_null(q);
	now = dp_tsc_ns();
	/* Up to the pass that created it: its port passes frames from then on. */
	for (unsigned int ms = 0; dp_port_down(p) && ms < 3000; ms++) {
		watch_after(&dev, &now, 10);
		rte_delay_us_sleep(1000);
	}
	cr_assert_not(dp_port_down(p), "not created in 3 s");
	cr_assert_eq(rte_eth_link_get_nowait(dev.port_id, &link), 0);
	cr_assert_neq(link.link_speed, RTE_ETH_SPEED_NUM_UNKNOWN, "the driver tells no speed");
	cr_assert_eq(dp_port_tx_gbps(p), link.link_speed / 1000.0,
		     "created at %u Mb/s, its port reports %.3f Gbit/s", link.link_speed,
		     dp_port_tx_gbps(p));
	dp_port_destroy(q);
	dp_port_destroy(p);
	dp_ethdev_close(&dev);
	dp_ethdev_close(&srv);
	cr_assert_eq(rte_eal_hotplug_remove("vdev", "net_vhost0"), 0);
}

/* A listening socket at vhost_dir/name that never accepts: the test plays a silent server. */
static int silent_server(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	cr_assert_geq(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", vhost_dir, name);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "bind: %s", strerror(errno));
	cr_assert_eq(listen(fd, 8), 0);
	return fd;
}

/*
 * A vhost-user server that takes the connection and never answers (a
 * stopped switchd, or anything listening at the path): the watch must not
 * create the device, whose driver would wait for the server's replies for
 * ever (DPDK 22.11's virtio-user reads them without a time-out), so no
 * pass of it takes long; it counts the attempts that fall due meanwhile
 * (server_silent) on one connection, and a server that then goes away is
 * a failed attempt. Before the probe, the first creation hung here.
 */
Test(peerless, a_silent_vhost_user_server_holds_no_watch, .timeout = 30)
{
	struct dp_ethdev_conf conf = {
		.rx_queues = 1, .tx_queues = 1, .promiscuous = true, .late_peer = true,
	};
	const struct dp_ethdev_link_stats *st;
	double longest = 0;
	struct dp_ethdev dev;
	char err[512] = "";
	uint64_t now;
	int lfd, cfd;

	cr_assert_eq(dp_ethdev_setup("net_virtio_user2", &conf, pool, &dev, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert(dev.unplugged);
	st = &dev.watch.stats;
	lfd = silent_server("silent.sock");
	now = dp_tsc_ns();
	for (unsigned int ms = 0; ms < 5000; ms += 10) {
		uint64_t t0 = dp_tsc_ns();

		watch_after(&dev, &now, 10);
		if ((double)(dp_tsc_ns() - t0) / 1e6 > longest)
			longest = (double)(dp_tsc_ns() - t0) / 1e6;
	}
	cr_assert_lt(longest, 100, "a pass of the watch took %.1f ms", longest);
	cr_assert(dev.unplugged, "not created: its server never answered");
	cr_assert_eq(st->port_restarts, 1, "one connection, kept: %" PRIu64, st->port_restarts);
	cr_assert_eq(st->restart_failed, 0);
	/* Attempts due at 0.3, 0.7, 1.5 and 3.1 s; the connection was made at 0.1 s. */
	cr_assert_eq(st->server_silent, 4, "server_silent %" PRIu64, st->server_silent);
	cfd = accept(lfd, NULL, NULL);
	cr_assert_geq(cfd, 0, "the probe's connection is waiting");
	cr_assert_lt(accept(lfd, NULL, NULL), 0, "and no other");
	close(cfd);
	close(lfd);
	watch_after(&dev, &now, 10);
	cr_assert_eq(st->restart_failed, 1, "the server hung up: a failed attempt");
	cr_assert(dev.unplugged);
	dp_ethdev_close(&dev);
}

/* A --vdev its driver refused is named, with what to do for a virtio-user client. */
Test(peerless, a_vdev_its_driver_refused_is_named)
{
	char err[512] = "";
	uint16_t id;

	cr_assert_eq(dp_ethdev_find("net_memif1", &id, err, sizeof(err)), -ENODEV);
	cr_assert(strstr(err, "--vdev net_memif1,role=bogus: its driver did not create the device"),
		  "%s", err);
	cr_assert_eq(dp_ethdev_find("net_virtio_user0", &id, err, sizeof(err)), -ENOTCONN);
	cr_assert(strstr(err, "--vdev net_virtio_user0,path=/nonexistent-segnet-ut/vh0.sock") &&
		  strstr(err, "no vhost-user server at /nonexistent-segnet-ut/vh0.sock") &&
		  strstr(err, "server=1"), "%s", err);
}

/* Where busy_alarm is: 1 while it keeps the EAL interrupt thread, 2 once it returned. */
static int busy_state;

/* Set: busy_alarm returns before its time. */
static int busy_let_go;

/* The busy_alarm argument that keeps the thread 300 ms, as a burst of events would. */
#define BUSY_300_MS ((void *)(uintptr_t)300)

/* The busy_alarm argument that keeps the thread until the test lets it go (10 s at most). */
#define BUSY_UNTIL_LET_GO ((void *)(uintptr_t)10000)

/* An alarm that keeps the EAL interrupt thread busy for arg ms, or until busy_let_go. */
static void busy_alarm(void *arg)
{
	unsigned int ms = (unsigned int)(uintptr_t)arg;

	__atomic_store_n(&busy_state, 1, __ATOMIC_RELEASE);
	for (unsigned int t = 0; t < ms && !__atomic_load_n(&busy_let_go, __ATOMIC_ACQUIRE); t++)
		rte_delay_us_sleep(1000);
	__atomic_store_n(&busy_state, 2, __ATOMIC_RELEASE);
}

/* Wait (5 s at most) until busy_state is want. */
static void busy_wait_for(int want)
{
	for (int ms = 0; ms < 5000 && __atomic_load_n(&busy_state, __ATOMIC_ACQUIRE) != want; ms++)
		rte_delay_us_sleep(1000);
	cr_assert_eq(__atomic_load_n(&busy_state, __ATOMIC_ACQUIRE), want);
}

/*
 * A client connects to a memif server while the process closes it, the
 * EAL interrupt thread busy elsewhere (what a lab's Ctrl-C made): DPDK
 * 22.11's memif driver never unregisters its listening socket's callback,
 * which then ran on the freed socket (accept on fd -1 in a loop, and a
 * SIGSEGV once the EAL's cleanup unmapped its memory). After
 * dp_ethdev_close_all nothing runs in the interrupt thread any more.
 */
Test(memif_end, a_connection_while_the_server_closes_runs_no_callback)
{
	struct dp_ethdev_conf conf = { .rx_queues = 1, .tx_queues = 1, .promiscuous = true };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct dp_ethdev dev, *devs[] = { &dev };
	char err[256] = "", *log;
	int fd;

	cr_assert_eq(dp_ethdev_setup("net_memif0", &conf, pool, &dev, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(rte_eal_alarm_set(1, busy_alarm, BUSY_300_MS), 0);
	busy_wait_for(1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	cr_assert_geq(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", memif_sock);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "connect %s: %s",
		     memif_sock, strerror(errno));

	dp_ethdev_close_all(devs, 1);
	cr_assert_eq(dev.port_id, RTE_MAX_ETHPORTS);
	busy_wait_for(2);
	/* The interrupt thread's next round would serve the listening socket. */
	rte_delay_us_sleep(100 * 1000);
	log = log_captured();
	cr_assert_null(strstr(log, "Failed to accept connection request"),
		       "the listening socket's callback ran after the close");
	free(log);
	cr_assert(access(memif_sock, F_OK) && errno == ENOENT, "the driver removes the socket file");
	close(fd);
}

/* What a_held_interrupt_thread_runs_no_alarm's alarm sets. */
static int alarm_ran;

/* Note that the alarm ran. */
static void note_alarm(void *arg)
{
	(void)arg;
	__atomic_store_n(&alarm_ran, 1, __ATOMIC_RELEASE);
}

Test(eal, a_held_interrupt_thread_runs_no_alarm)
{
	cr_assert_eq(rte_eal_alarm_set(1, note_alarm, NULL), 0);
	for (int ms = 0; ms < 1000 && !__atomic_load_n(&alarm_ran, __ATOMIC_ACQUIRE); ms++)
		rte_delay_us_sleep(1000);
	cr_assert_eq(__atomic_load_n(&alarm_ran, __ATOMIC_ACQUIRE), 1, "not held: it runs");
	__atomic_store_n(&alarm_ran, 0, __ATOMIC_RELEASE);
	cr_assert_eq(dp_eal_intr_hold(1000), 0);
	cr_assert_eq(dp_eal_intr_hold(1000), 0, "held already");
	cr_assert_eq(rte_eal_alarm_set(1, note_alarm, NULL), 0);
	rte_delay_us_sleep(100 * 1000);
	cr_assert_eq(__atomic_load_n(&alarm_ran, __ATOMIC_ACQUIRE), 0, "held: no alarm ran");
	/* The suite's teardown (dp_eal_cleanup) ends with it held. */
}

/* Keep the interrupt thread busy for 300 ms: a hold that waits 100 ms at most gives up. */
Test(eal, a_hold_gives_up_on_a_busy_interrupt_thread)
{
	cr_assert_eq(rte_eal_alarm_set(1, busy_alarm, BUSY_300_MS), 0);
	busy_wait_for(1);
	cr_assert_eq(dp_eal_intr_hold(100), -ETIMEDOUT);
	busy_wait_for(2);
	/* The withdrawn hold did not keep it: alarms run, and a hold now comes. */
	cr_assert_eq(rte_eal_alarm_set(1, note_alarm, NULL), 0);
	for (int ms = 0; ms < 1000 && !__atomic_load_n(&alarm_ran, __ATOMIC_ACQUIRE); ms++)
		rte_delay_us_sleep(1000);
	cr_assert_eq(__atomic_load_n(&alarm_ran, __ATOMIC_ACQUIRE), 1);
	cr_assert_eq(dp_eal_intr_hold(1000), 0);
}

/*
 * A restart stops the device in the EAL interrupt thread, between the
 * drivers' callbacks (DPDK 22.11's memif client handles its control
 * channel there, with no lock against its own stop): while a callback
 * keeps that thread, a restart does nothing and says so; once the thread
 * is free, the restart goes through. Before, it stopped and started the
 * device while the callback ran.
 */
Test(ethdev, a_restart_waits_for_the_interrupt_thread)
{
	struct rte_mbuf *pkts[BURST];
	struct dp_ethdev dev;
	struct dp_port *p;
	char err[256] = "";
	int ret;

	ring_up("net_ring1", 1, &dev);
	p = dp_ethdev_port_create(&dev, 0, 0);
	cr_assert_not_null(p);
	/* In its receive ring: what a restart frees. */
	pkts[0] = frame_mbuf(3, 0);
	dp_port_tx(p, pkts, 1);
	cr_assert_eq(rte_eal_alarm_set(1, busy_alarm, BUSY_UNTIL_LET_GO), 0);
	busy_wait_for(1);
	ret = dp_ethdev_restart(&dev, err, sizeof(err));
	cr_assert_eq(ret, -EBUSY, "restarted (%d) while a callback ran in the interrupt thread", ret);
	cr_assert(strstr(err, "port net_ring1: not restarted: the EAL interrupt thread stayed busy"),
		  "%s", err);
	cr_assert_eq(__atomic_load_n(&busy_state, __ATOMIC_ACQUIRE), 1, "the callback still runs");
	cr_assert_not(dev.stopped, "nothing done");
	cr_assert_eq(dev.watch.stats.rx_flushed_on_restart, 0, "nothing freed");
	__atomic_store_n(&busy_let_go, 1, __ATOMIC_RELEASE);
	busy_wait_for(2);
	cr_assert_eq(dp_ethdev_restart(&dev, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(dev.stopped);
	cr_assert_eq(dev.watch.stats.rx_flushed_on_restart, 1, "the frame from before");
	send_and_check(p, p, 4, 1, 0);
	dp_port_destroy(p);
	dp_ethdev_close(&dev);
}

/* Where a device was closed (its DESTROY event): -1 not yet, 1 in the EAL interrupt thread, 0 in another. */
static int closed_in_intr = -1;

/* The DESTROY event of a device: note the thread. */
static int note_destroy(uint16_t port_id, enum rte_eth_event_type event, void *cb_arg,
			void *ret_param)
{
	(void)port_id;
	(void)event;
	(void)cb_arg;
	(void)ret_param;
	__atomic_store_n(&closed_in_intr, rte_thread_is_intr(), __ATOMIC_RELEASE);
	return 0;
}

/*
 * A close stops and closes the device in the EAL interrupt thread, between
 * the drivers' callbacks, as a restart stops it: DPDK 22.11's memif client
 * handles its control channel there, with no lock against its stop, and
 * its close frees the device's data that handler uses (segnet-replay and
 * the test tools close their memif ports one by one). Before, it closed
 * the device in the calling thread.
 */
Test(ethdev, a_close_stops_and_closes_the_device_in_the_interrupt_thread)
{
	struct dp_ethdev dev;

	ring_up("net_ring1", 1, &dev);
	cr_assert_eq(rte_eth_dev_callback_register(dev.port_id, RTE_ETH_EVENT_DESTROY, note_destroy,
						   NULL), 0);
	dp_ethdev_close(&dev);
	cr_assert_eq(dev.port_id, RTE_MAX_ETHPORTS);
	cr_assert_eq(__atomic_load_n(&closed_in_intr, __ATOMIC_ACQUIRE), 1,
		     "closed (%d) outside the EAL interrupt thread", closed_in_intr);
}

/*
 * Once the interrupt thread is held for the end of the process
 * (dp_eal_intr_hold), nothing runs there: a close stops and closes the
 * device in the calling thread at once, without waiting for that thread
 * and saying it stayed busy.
 */
Test(eal, a_held_interrupt_thread_leaves_the_close_to_the_caller)
{
	struct dp_ethdev dev;

	ring_up("net_ring1", 1, &dev);
	cr_assert_eq(rte_eth_dev_callback_register(dev.port_id, RTE_ETH_EVENT_DESTROY, note_destroy,
						   NULL), 0);
	log_capture("stayed busy");
	cr_assert_eq(dp_eal_intr_hold(1000), 0);
	dp_ethdev_close(&dev);
	cr_assert_eq(dev.port_id, RTE_MAX_ETHPORTS);
	cr_assert_eq(__atomic_load_n(&closed_in_intr, __ATOMIC_ACQUIRE), 0);
	cr_assert_eq(log_capture_intr(), -1, "the close waited for the held thread");
}


/* DPDK's rte_eth_promiscuous_enable (the test links with --wrap of it). */
int __real_rte_eth_promiscuous_enable(uint16_t port_id);
int __wrap_rte_eth_promiscuous_enable(uint16_t port_id);

/* Set: __wrap_rte_eth_promiscuous_enable refuses the mode. */
static int promisc_refuse;

/*
 * What dp_ethdev calls for rte_eth_promiscuous_enable. No virtual driver
 * here refuses the mode (net_ring and net_null take it, memif has it from
 * the start, af_packet without CAP_NET_ADMIN fails its start first), as a
 * NIC's driver may (an SR-IOV VF its PF does not trust, say): with
 * promisc_refuse set, this one does, once a frame came into the started
 * device's receive queue 0.
 */
int __wrap_rte_eth_promiscuous_enable(uint16_t port_id)
{
	struct rte_mbuf *m;

	if (!promisc_refuse)
		return __real_rte_eth_promiscuous_enable(port_id);
	m = frame_mbuf(1, 0);
	cr_assert_eq(rte_eth_tx_burst(port_id, 0, &m, 1), 1);
	return -EIO;
}

/*
 * A set-up whose promiscuous mode is refused fails naming the port and the
 * reason; the device is left stopped (a second set-up takes it, where
 * rte_eth_dev_configure refuses a started one), and what its receive
 * queues took in since its start is back in the pool: the caller forgets
 * the device (its close does nothing), so nothing would read them again.
 * Before, that frame stayed out of the pool.
 */
Test(ethdev, a_refused_promiscuous_mode_fails_the_set_up_and_keeps_no_frame)
{
	struct dp_ethdev_conf conf = { .rx_queues = 1, .tx_queues = 1, .promiscuous = true };
	unsigned int avail = rte_mempool_avail_count(pool);
	struct dp_ethdev dev;
	char err[256] = "";
	int ret;

	promisc_refuse = 1;
	ret = dp_ethdev_setup("net_ring1", &conf, pool, &dev, err, sizeof(err));
	promisc_refuse = 0;
	cr_assert_eq(ret, -EIO, "%d %s", ret, err);
	cr_assert_str_eq(err, "port net_ring1: cannot enable promiscuous mode: Input/output error");
	cr_assert_eq(dev.port_id, RTE_MAX_ETHPORTS, "not the caller's to close");
	cr_assert_eq(rte_mempool_avail_count(pool), avail, "%u frame(s) out of the pool",
		     avail - rte_mempool_avail_count(pool));
	ring_up("net_ring1", 1, &dev);
	dp_ethdev_close(&dev);
	cr_assert_eq(rte_mempool_avail_count(pool), avail);
}

/*
 * A set-up whose link wait ends with the device started and its link down
 * (a memif client connected to a server that has not answered: its
 * handshake may be under way in the EAL interrupt thread) stops it there,
 * between the drivers' callbacks, as a restart does; the memif driver
 * says "Disconnected" in that stop. The test plays the server: a socket
 * that takes the connection and never answers. Before, the stop ran in
 * the calling thread.
 */
Test(peerless, a_set_up_whose_link_stays_down_stops_in_the_interrupt_thread)
{
	struct dp_ethdev_conf conf = {
		.rx_queues = 1, .tx_queues = 1, .promiscuous = true, .link_wait_ms = 20,
	};
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct dp_ethdev dev;
	char err[256] = "";
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	cr_assert_geq(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", memif_no_server_sock);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "bind %s: %s", sa.sun_path,
		     strerror(errno));
	cr_assert_eq(listen(fd, 8), 0);
	cr_assert_eq(rte_log_set_level_pattern("pmd.net.memif", RTE_LOG_DEBUG), 0);
	log_capture("Disconnected");
	cr_assert_eq(dp_ethdev_setup("net_memif0", &conf, pool, &dev, err, sizeof(err)),
		     -ETIMEDOUT, "%s", err);
	cr_assert(strstr(err, "port net_memif0: link still down after 20 ms"), "%s", err);
	cr_assert_eq(log_capture_intr(), 1, "stopped (%d) outside the EAL interrupt thread",
		     log_capture_intr());
	close(fd);
}

Test(ethdev, multi_segment_frames_are_dropped_and_counted)
{
	unsigned int avail = rte_mempool_avail_count(pool);
	struct rte_mbuf *pkts[BURST], *head, *tail;
	struct dp_ethdev dev;
	struct dp_port *p;

	ring_up("net_ring1", 1, &dev);
	p = dp_ethdev_port_create(&dev, 0, 0);
	head = frame_mbuf(100, 0);
	tail = frame_mbuf(200, 0);
	cr_assert_eq(rte_pktmbuf_chain(head, tail), 0);
	pkts[0] = frame_mbuf(5, 0);
	pkts[1] = head;
	pkts[2] = frame_mbuf(6, 0);
	/* Straight to the device: a driver may hand chains to the port. */
	cr_assert_eq(rte_eth_tx_burst(dev.port_id, 0, pkts, 3), 3);
	cr_assert_eq(dp_port_rx(p, pkts, BURST), 2);
	frame_check(pkts[0], 5, 0);
	frame_check(pkts[1], 6, 0);
	rte_pktmbuf_free_bulk(pkts, 2);
	cr_assert_eq(dp_ethdev_port_stats(p)->rx_multiseg, 1);
	cr_assert_eq(p->stats.rx_frames, 2);
	dp_port_destroy(p);
	dp_ethdev_close(&dev);
	cr_assert_eq(rte_mempool_avail_count(pool), avail);
}

Test(eal, init_twice_fails_with_a_message)
{
	char *argv[] = { "again", "--no-huge", NULL };
	char err[256] = "";
	int ret = dp_eal_init(2, argv, err, sizeof(err));

	cr_assert_eq(ret, -EALREADY, "%d", ret);
	cr_assert(strstr(err, "EAL"), "%s", err);
}

Test(eal, pools_per_socket_are_created_once)
{
	char err[256] = "";
	struct rte_mempool *a, *b;
	char longname[64];

	a = dp_pool_for_socket("ut", SOCKET_ID_ANY, 16, err, sizeof(err));
	cr_assert_eq(a, pool);
	cr_assert_str_eq(a->name, "ut-sany");
	a = dp_pool_for_socket("p2", 0, 128, err, sizeof(err));
	cr_assert_not_null(a, "%s", err);
	cr_assert_str_eq(a->name, "p2-s0");
	b = dp_pool_for_socket("p2", 0, 128, err, sizeof(err));
	cr_assert_eq(a, b);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	errno = 0;
	cr_assert_null(dp_pool_for_socket(longname, 0, 16, err, sizeof(err)));
	cr_assert_eq(errno, ENAMETOOLONG);
	cr_assert(strstr(err, "pool name"), "%s", err);
}

Test(eal, numa_sockets_and_the_mismatch_warning)
{
	int s0 = dp_lcore_socket(0);
	const char *w;
	char *log;

	cr_assert_geq(s0, 0);
	cr_assert_eq(dp_lcore_socket(1), SOCKET_ID_ANY);	/* not an EAL lcore */
	cr_assert_eq(dp_lcore_socket(RTE_MAX_LCORE + 5), SOCKET_ID_ANY);
	cr_assert_eq(dp_core_socket(-1), SOCKET_ID_ANY);
	cr_assert(dp_core_socket(0) >= 0 || dp_core_socket(0) == SOCKET_ID_ANY);

	log_capture(NULL);
	cr_assert(dp_numa_check("p0", s0, 0));
	cr_assert(dp_numa_check("p0", SOCKET_ID_ANY, 0));
	cr_assert_not(dp_numa_check("far", s0 + 1, 0));
	cr_assert_not(dp_numa_check("far", s0 + 1, 0));
	cr_assert_not(dp_numa_check("far2", s0 + 1, 0));
	log = log_captured();
	w = strstr(log, "port far is on NUMA node");
	cr_assert_not_null(w, "log: %s", log);
	cr_assert_null(strstr(w + 1, "port far is on"), "warned twice: %s", log);
	cr_assert_not_null(strstr(log, "port far2 is on"), "log: %s", log);
	free(log);
}

Test(eal, pin_to_core)
{
	char err[256] = "";
	cpu_set_t set;

	cr_assert_eq(dp_pin_to_core(0, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(pthread_getaffinity_np(pthread_self(), sizeof(set), &set), 0);
	cr_assert_eq(CPU_COUNT(&set), 1);
	cr_assert(CPU_ISSET(0, &set));
	cr_assert_eq(dp_pin_to_core(-1, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "core -1"), "%s", err);
	cr_assert_eq(dp_pin_to_core(1000, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "core 1000"), "%s", err);
}

Test(eal, tsc_clock_is_monotonic_and_in_nanoseconds)
{
	struct timespec ts = { .tv_nsec = 20 * 1000 * 1000 };
	uint64_t prev = dp_tsc_ns(), c0 = dp_tsc_cycles(), t0, t1;

	cr_assert_gt(prev, 0);
	for (int i = 0; i < 100000; i++) {
		uint64_t t = dp_tsc_ns();

		cr_assert_geq(t, prev);
		prev = t;
	}
	cr_assert_gt(dp_tsc_cycles(), c0);
	t0 = dp_tsc_ns();
	nanosleep(&ts, NULL);
	t1 = dp_tsc_ns();
	/* 20 ms asleep: the clock saw at least that, and not wildly more. */
	cr_assert_geq(t1 - t0, 20 * 1000 * 1000ull - 100 * 1000, "%llu",
		      (unsigned long long)(t1 - t0));
	cr_assert_lt(t1 - t0, 2000 * 1000 * 1000ull, "%llu",
		     (unsigned long long)(t1 - t0));
}

/* The telemetry reply's counters. */
static struct dp_port_stats tel_stats = { .rx_frames = 7, .tx_bytes = 1234 };

/* Fill a reply with the counters, flat and under their group. */
static int tel_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dp_counter_set set = DP_COUNTER_SET("net_ring0.q0", dp_port_counter_names,
						   &tel_stats);
	struct dp_telemetry_held held = { .n = 0 };

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	if (dp_telemetry_add_set(d, &set) || dp_telemetry_add_groups(d, &set, 1, &held)) {
		dp_telemetry_held_free(&held);
		return -1;
	}
	return 0;
}

Test(eal, telemetry_endpoint_reads_back_through_the_socket)
{
	char buf[16384], pid[32];
	struct rte_tel_data *d = rte_tel_data_alloc();
	int fd;

	cr_assert_eq(dp_telemetry_register("/segnet/test/stats", tel_cb, "test counters"), 0);
	cr_assert_eq(dp_telemetry_register("/segnet/test/stats", tel_cb, "again"), -EEXIST);
	cr_assert_eq(dp_telemetry_register("segnet/test", tel_cb, "no slash"), -EINVAL);
	cr_assert_eq(dp_telemetry_register("/segnet/te.st", tel_cb, "dot"), -EINVAL);
	cr_assert_eq(dp_telemetry_register("/segnet/x", NULL, "no callback"), -EINVAL);

	fd = tel_connect(buf, sizeof(buf));
	snprintf(pid, sizeof(pid), "\"pid\":%d", (int)getpid());
	cr_assert_not_null(strstr(buf, pid), "not our process: %s", buf);
	tel_query(fd, "/segnet/test/stats", buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "{\"/segnet/test/stats\":{\"rx_frames\":7,"), "%s", buf);
	cr_assert_not_null(strstr(buf, "\"tx_bytes\":1234"), "%s", buf);
	cr_assert_not_null(strstr(buf, "\"net_ring0_q0\":{\"rx_frames\":7,"), "%s", buf);
	close(fd);

	/* A full dictionary says so. */
	cr_assert_not_null(d);
	rte_tel_data_start_dict(d);
	for (int i = 0; i < RTE_TEL_MAX_DICT_ENTRIES; i++) {
		snprintf(buf, 32, "k%d", i);
		cr_assert_eq(rte_tel_data_add_dict_u64(d, buf, 1), 0);
	}
	{
		struct dp_counter_set set = DP_COUNTER_SET("g", dp_port_counter_names,
							   &tel_stats);
		struct dp_telemetry_held held = { .n = 0 };

		cr_assert_eq(dp_telemetry_add_set(d, &set), -ENOSPC);
		cr_assert_eq(dp_telemetry_add_groups(d, &set, 1, &held), -ENOSPC);
		cr_assert_eq(held.n, 0, "a full dictionary holds no group");
	}
	rte_tel_data_free(d);
}

/* Counters of two groups whose names differ only where telemetry takes '_'. */
static struct dp_port_stats clash_stats[2] = { { .rx_frames = 1 }, { .rx_frames = 2 } };

/* The groups groups_cb puts in its reply, and what dp_telemetry_add_groups returned there. */
static const struct dp_counter_set *tel_groups;
static unsigned int tel_groups_n;
static int tel_groups_ret = 1;

/*
 * Fill a reply with tel_groups. Only a reply read through the socket frees
 * the groups' dictionaries (DPDK does, once it wrote them out):
 * rte_tel_data_free() frees the outer one alone.
 */
static int groups_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dp_telemetry_held held = { .n = 0 };

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	tel_groups_ret = dp_telemetry_add_groups(d, tel_groups, tel_groups_n, &held);
	if (tel_groups_ret)
		dp_telemetry_held_free(&held);
	return tel_groups_ret ? -1 : 0;
}

/* Read path, registered with groups_cb, replying with the n groups of sets; the reply in buf. */
static void groups_query(const char *path, const struct dp_counter_set *sets, unsigned int n,
			 char *buf, size_t len)
{
	int fd;

	tel_groups = sets;
	tel_groups_n = n;
	tel_groups_ret = 1;
	fd = tel_connect(buf, len);
	tel_query(fd, path, buf, len);
	close(fd);
}

/*
 * Two groups that become one key ('.' is written '_'): one would hide the
 * other from a JSON reader (the last one wins). The reply is refused.
 */
Test(eal, telemetry_groups_that_become_one_key_are_refused)
{
	struct dp_counter_set sets[2] = {
		DP_COUNTER_SET("net_ring0.q0", dp_port_counter_names, &clash_stats[0]),
		DP_COUNTER_SET("net_ring0_q0", dp_port_counter_names, &clash_stats[1]),
	};
	char buf[16384];

	cr_assert_eq(dp_telemetry_register("/segnet/test/clash", groups_cb, "clashing groups"), 0);
	groups_query("/segnet/test/clash", sets, 2, buf, sizeof(buf));
	cr_assert_null(strstr(buf, "\"net_ring0_q0\""), "one key for two groups: %s", buf);
	cr_assert_not_null(strstr(buf, "{\"/segnet/test/clash\":null}"), "%s", buf);
	cr_assert_eq(tel_groups_ret, -EEXIST);
}

/*
 * Groups refused without the socket and taken through it (groups_cb says
 * why): names cut to one key clash too.
 */
Test(eal, telemetry_group_keys_must_differ)
{
	char a[RTE_TEL_MAX_STRING_LEN + 8], b[RTE_TEL_MAX_STRING_LEN + 8], buf[16384];
	struct rte_tel_data *d = rte_tel_data_alloc();
	struct dp_counter_set sets[3] = {
		DP_COUNTER_SET("a.b", dp_port_counter_names, &clash_stats[0]),
		DP_COUNTER_SET("a-c", dp_port_counter_names, &clash_stats[1]),
		DP_COUNTER_SET("a:b", dp_port_counter_names, &clash_stats[1]),
	};
	struct dp_telemetry_held held = { .n = 0 };

	cr_assert_not_null(d);
	cr_assert_eq(dp_telemetry_register("/segnet/test/groups", groups_cb, "groups"), 0);
	rte_tel_data_start_dict(d);
	cr_assert_eq(dp_telemetry_add_groups(d, sets, 3, &held), -EEXIST, "a.b and a:b are both a_b");
	groups_query("/segnet/test/groups", sets, 2, buf, sizeof(buf));
	cr_assert_eq(tel_groups_ret, 0, "%s", buf);
	cr_assert_not_null(strstr(buf, "\"a_b\":{"), "%s", buf);
	cr_assert_not_null(strstr(buf, "\"a_c\":{"), "%s", buf);
	memset(a, 'x', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	b[sizeof(b) - 2] = 'y';
	sets[0].group = a;
	sets[1].group = b;
	cr_assert_eq(dp_telemetry_add_groups(d, sets, 2, &held), -EEXIST, "the same first %d characters",
		     RTE_TEL_MAX_STRING_LEN - 1);
	cr_assert_eq(held.n, 0, "refused before any was added");
	b[RTE_TEL_MAX_STRING_LEN - 2] = 'y';
	groups_query("/segnet/test/groups", sets, 2, buf, sizeof(buf));
	cr_assert_eq(tel_groups_ret, 0, "%s", buf);
	rte_tel_data_free(d);
}

/*
 * One group more than a reply holds (RTE_TEL_MAX_DICT_ENTRIES) fails part
 * way, and groups_cb returns the error: DPDK then drops the reply without
 * freeing the group dictionaries already in it, so groups_cb frees those
 * dp_telemetry_add_groups noted. A leak here is seen by LeakSanitizer
 * (scripts/test.sh --sanitize).
 */
Test(eal, telemetry_groups_that_do_not_fit_are_freed)
{
	static char names[RTE_TEL_MAX_DICT_ENTRIES + 1][8];
	static struct dp_counter_set sets[RTE_TEL_MAX_DICT_ENTRIES + 1];
	char buf[16384];

	for (int i = 0; i < RTE_TEL_MAX_DICT_ENTRIES + 1; i++) {
		snprintf(names[i], sizeof(names[i]), "g%d", i);
		sets[i] = DP_COUNTER_SET(names[i], dp_port_counter_names, &clash_stats[0]);
	}
	cr_assert_eq(dp_telemetry_register("/segnet/test/full", groups_cb, "too many groups"), 0);
	groups_query("/segnet/test/full", sets, RTE_TEL_MAX_DICT_ENTRIES + 1, buf, sizeof(buf));
	cr_assert_eq(tel_groups_ret, -ENOSPC, "%s", buf);
	cr_assert_not_null(strstr(buf, "{\"/segnet/test/full\":null}"), "%s", buf);
}

/* How many times needle stands in haystack. */
static unsigned int count_of(const char *haystack, const char *needle)
{
	unsigned int n = 0;

	for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * A reply with groups that become one key is refused at every read, but
 * the error naming them is logged once per pair, not at every read (a
 * monitor polling each second would fill the log); another pair is named
 * once too.
 */
Test(eal, telemetry_clash_is_logged_once_per_pair)
{
	struct dp_counter_set sets[4] = {
		DP_COUNTER_SET("net_ring0.q0", dp_port_counter_names, &clash_stats[0]),
		DP_COUNTER_SET("net_ring0_q0", dp_port_counter_names, &clash_stats[1]),
		DP_COUNTER_SET("n1:bulk", dp_port_counter_names, &clash_stats[0]),
		DP_COUNTER_SET("n1-bulk", dp_port_counter_names, &clash_stats[1]),
	};
	struct dp_telemetry_held held = { .n = 0 };
	struct rte_tel_data *d = rte_tel_data_alloc();
	char *log;

	cr_assert_not_null(d);
	log_capture(NULL);
	for (int i = 0; i < 3; i++) {
		rte_tel_data_start_dict(d);
		cr_assert_eq(dp_telemetry_add_groups(d, sets, 2, &held), -EEXIST, "read %d", i);
	}
	for (int i = 0; i < 2; i++) {
		rte_tel_data_start_dict(d);
		cr_assert_eq(dp_telemetry_add_groups(d, sets, 4, &held), -EEXIST, "read %d", i);
	}
	log = log_captured();
	cr_assert_eq(count_of(log, "\"net_ring0.q0\" and \"net_ring0_q0\" both become key"), 1,
		     "log: %s", log);
	cr_assert_eq(count_of(log, "\"n1:bulk\" and \"n1-bulk\" both become key"), 1,
		     "log: %s", log);
	cr_assert_eq(count_of(log, "both become key"), 2, "log: %s", log);
	free(log);
	rte_tel_data_free(d);
}

/* Send SIGTERM to the thread given, 20 ms from now. */
static void *term_later(void *arg)
{
	struct timespec ts = { .tv_nsec = 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	pthread_kill(*(pthread_t *)arg, SIGTERM);
	return NULL;
}

Test(eal, signals_set_the_stop_flag_and_cut_sleeps_short)
{
	pthread_t self = pthread_self(), killer;
	struct sigaction now;
	struct dp_idle idle;
	uint64_t t0, t1;

	dp_signals_install();
	cr_assert_eq(sigaction(SIGTERM, NULL, &now), 0);
	cr_assert_eq(now.sa_flags & SA_RESTART, 0);
	cr_assert_eq(dp_stop, 0);

	/* Idle, asked to sleep 5 s: SIGTERM after 20 ms ends the sleep. */
	dp_idle_init(&idle, 1, 5000000, 0);
	cr_assert_eq(pthread_create(&killer, NULL, term_later, &self), 0);
	t0 = dp_tsc_ns();
	dp_idle_poll(&idle, false, 10, UINT64_MAX);
	t1 = dp_tsc_ns();
	pthread_join(killer, NULL);
	cr_assert_eq(dp_stop, SIGTERM, "dp_stop says which signal came");
	cr_assert_lt(t1 - t0, 2000 * 1000 * 1000ull);
	cr_assert_eq(idle.sleeps, 1);
	cr_assert_eq(idle.last_sleep_ns, 5000000000ull);
	/* One signal stops; the next ones must not kill the teardown it starts. */
	cr_assert_eq(sigaction(SIGTERM, NULL, &now), 0);
	cr_assert_neq(now.sa_handler, SIG_DFL);
}

/*
 * A second Ctrl-C while a daemon stops (closing its ports, removing its
 * EAL runtime files) is said and ignored, and a blocking call of the
 * teardown (a write to a full pipe) is restarted, not failed.
 */
Test(eal, a_second_signal_does_not_cut_the_teardown_short)
{
	struct sigaction now;

	dp_signals_install();
	raise(SIGINT);
	cr_assert_eq(dp_stop, SIGINT);
	raise(SIGINT);
	cr_assert_eq(dp_stop, SIGINT, "dp_stop still says the first signal");
	for (int sig = SIGINT; sig; sig = sig == SIGINT ? SIGTERM : 0) {
		cr_assert_eq(sigaction(sig, NULL, &now), 0);
		cr_assert(now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN,
			  "signal %d: no handler after the second SIGINT", sig);
		cr_assert_neq(now.sa_flags & SA_RESTART, 0, "signal %d: calls not restarted", sig);
	}
}

/*
 * The third signal, of either kind, ends a teardown that hangs (default
 * action). Without the EAL: killed, the test runs no .fini that would
 * remove an EAL runtime directory.
 */
Test(signals, a_third_signal_ends_a_stopping_process, .signal = SIGTERM)
{
	dp_signals_install();
	raise(SIGINT);
	raise(SIGINT);
	raise(SIGTERM);
	cr_assert_fail("still running after three signals");
}

/*
 * A log limit's first window opens at its first message, wherever the
 * clock starts: one message a minute, the first at 59 s on a clock that
 * started at 0, lets the next through at 119 s, not at 61 s.
 */
Test(ratelimit, the_first_window_opens_at_the_first_message)
{
	const uint64_t s = 1000000000ull;
	struct dp_ratelimit rl = { .interval_ns = 60 * s, .burst = 1 };

	cr_assert(dp_ratelimit_ok(&rl, 59 * s), "the first message");
	cr_assert_not(dp_ratelimit_ok(&rl, 61 * s), "2 s after the first");
	cr_assert_not(dp_ratelimit_ok(&rl, 118 * s), "59 s after the first");
	cr_assert(dp_ratelimit_ok(&rl, 119 * s), "60 s after the first");
	cr_assert_eq(rl.suppressed, 2);
}

/* burst messages a window, and a window opens only at a message. */
Test(ratelimit, burst_messages_a_window)
{
	const uint64_t s = 1000000000ull;
	struct dp_ratelimit rl = { .interval_ns = s, .burst = 3 };
	unsigned int ok = 0;

	for (unsigned int k = 0; k < 10; k++)
		ok += dp_ratelimit_ok(&rl, 5 * s + k * (s / 10));
	cr_assert_eq(ok, 3, "%u of 10 in 0.9 s", ok);
	/* 10 s later: a new window, whose start is this message */
	cr_assert(dp_ratelimit_ok(&rl, 15 * s + s / 2));
	cr_assert(dp_ratelimit_ok(&rl, 16 * s + s / 2 - 1));
	cr_assert(dp_ratelimit_ok(&rl, 16 * s + s / 2 - 1));
	cr_assert_not(dp_ratelimit_ok(&rl, 16 * s + s / 2 - 1));
	cr_assert(dp_ratelimit_ok(&rl, 16 * s + s / 2));
	cr_assert_eq(rl.suppressed, 8);
}

Test(idle, no_sleep_before_idle_ns)
{
	struct dp_idle idle;

	dp_idle_init(&idle, 1000000, 100, 5000);
	cr_assert_eq(dp_idle_poll(&idle, false, 5000, UINT64_MAX), 5000);
	cr_assert_eq(dp_idle_poll(&idle, false, 1004999, UINT64_MAX), 1004999);
	cr_assert_eq(idle.sleeps, 0);
	/* Work restarts the idle period. */
	cr_assert_eq(dp_idle_poll(&idle, true, 1004999, UINT64_MAX), 1004999);
	cr_assert_eq(dp_idle_poll(&idle, false, 2004998, UINT64_MAX), 2004998);
	cr_assert_eq(idle.sleeps, 0);
	cr_assert_eq(idle.last_work, 1004999);
}

/*
 * Before idle_ns each empty poll yields the core: an application woken on
 * a daemon's core (its message completed) runs at once instead of after
 * the spin, and its next message does not land in the daemon's first
 * sleep (doc/tuning.md, Idle back-off: window-1 throughput was 4,500
 * messages/s instead of 25,000 with the application on switchd's core).
 * A poll with work, a timer due now, busy polling and --idle-sleep-us 0
 * (never sleep) do not yield.
 */
Test(idle, empty_polls_before_idle_ns_yield_the_core)
{
	struct dp_idle idle;

	dp_idle_init(&idle, 1000000, 100, 5000);
	cr_assert_eq(dp_idle_poll(&idle, false, 6000, UINT64_MAX), 6000);
	cr_assert_eq(dp_idle_poll(&idle, false, 7000, 9000), 7000);
	cr_assert_eq(idle.yields, 2, "an empty poll while spinning yields");
	cr_assert_eq(idle.sleeps, 0);
	dp_idle_poll(&idle, true, 8000, UINT64_MAX);
	dp_idle_poll(&idle, false, 9000, 9000);
	cr_assert_eq(idle.yields, 2, "work, or a timer due now: poll again at once");
	dp_idle_init(&idle, 0, 100, 5000);
	dp_idle_poll(&idle, false, 6000, UINT64_MAX);
	dp_idle_init(&idle, 1000000, 0, 5000);
	dp_idle_poll(&idle, false, 6000, UINT64_MAX);
	cr_assert_eq(idle.yields, 0, "busy polling never yields");
}

Test(idle, sleeps_sleep_us_once_idle)
{
	struct dp_idle idle;
	uint64_t after;

	dp_idle_init(&idle, 1000000, 100, 0);
	after = dp_idle_poll(&idle, false, 1000000, UINT64_MAX);
	cr_assert_eq(idle.sleeps, 1);
	cr_assert_eq(idle.last_sleep_ns, 100000);
	cr_assert_geq(idle.slept_ns, 100000);
	cr_assert_eq(after, 1000000 + idle.slept_ns);
	after = dp_idle_poll(&idle, false, after, UINT64_MAX);
	cr_assert_eq(idle.sleeps, 2);
	cr_assert_geq(idle.slept_ns, 200000);
}

Test(idle, sleeps_at_most_until_next_due)
{
	struct dp_idle idle;

	dp_idle_init(&idle, 1000, 1000, 0);
	dp_idle_poll(&idle, false, 50000, 50000 + 30000);
	cr_assert_eq(idle.sleeps, 1);
	cr_assert_eq(idle.last_sleep_ns, 30000);
	/* Due now or overdue: no sleep at all. */
	cr_assert_eq(dp_idle_poll(&idle, false, 90000, 90000), 90000);
	cr_assert_eq(dp_idle_poll(&idle, false, 90000, 10), 90000);
	cr_assert_eq(idle.sleeps, 1);
	/* Next timer beyond sleep_us: sleep_us wins. */
	dp_idle_poll(&idle, false, 100000, 100000 + 5000000);
	cr_assert_eq(idle.last_sleep_ns, 1000000);
	cr_assert_eq(idle.sleeps, 2);
}

/*
 * switchd's and nicd's sleeps: --idle-sleep-us at first, a quarter of the
 * time idle later, up to 1 ms, 1 ms at once when nobody waits; 1000 or more
 * as given, grown or not; 0 never sleeps.
 */
Test(idle, the_daemons_sleeps_grow_to_1_ms_unless_given_longer)
{
	struct dp_idle idle;

	dp_idle_init(&idle, 1000, 100, 0);
	cr_assert_eq(dp_idle_sleep_us(&idle, 100, true, 0), 100);
	cr_assert_eq(dp_idle_sleep_us(&idle, 100, true, 200000), 100);
	cr_assert_eq(dp_idle_sleep_us(&idle, 100, true, 1000000), 250);
	cr_assert_eq(dp_idle_sleep_us(&idle, 100, true, 60000000), DP_IDLE_MAX_SLEEP_US);
	cr_assert_eq(dp_idle_sleep_us(&idle, 100, false, 0), DP_IDLE_MAX_SLEEP_US);
	cr_assert_eq(dp_idle_sleep_us(&idle, 999, true, 0), 999);
	for (int awaited = 0; awaited < 2; awaited++) {
		cr_assert_eq(dp_idle_sleep_us(&idle, 1000, awaited, 60000000), 1000);
		cr_assert_eq(dp_idle_sleep_us(&idle, 5000, awaited, 0), 5000);
		cr_assert_eq(dp_idle_sleep_us(&idle, 5000, awaited, 60000000), 5000);
		cr_assert_eq(dp_idle_sleep_us(&idle, 0, awaited, 60000000), 0);
	}
}

Test(idle, idle_ns_zero_is_busy_polling)
{
	struct dp_idle idle;

	dp_idle_init(&idle, 0, 100, 0);
	for (uint64_t t = 0; t < 100000000; t += 1000000)
		cr_assert_eq(dp_idle_poll(&idle, false, t, UINT64_MAX), t);
	cr_assert_eq(idle.sleeps, 0);
	/* And a clock that went back never makes it sleep. */
	dp_idle_init(&idle, 10, 100, 5000);
	cr_assert_eq(dp_idle_poll(&idle, false, 100, UINT64_MAX), 100);
	cr_assert_eq(idle.sleeps, 0);
}

TestSuite(defer);

/* A Unix socket listening at path (backlog 0) that never takes a connection; its fd. */
static int t_listen_never_accept(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	cr_assert_geq(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "bind: %s", strerror(errno));
	cr_assert_eq(listen(fd, 0), 0);
	return fd;
}

/*
 * A server whose backlog is full (it takes no connection: a stopped
 * switchd another client filled) refuses nicd's question at once with
 * EAGAIN, but the EAL's blocking connect would wait for it for ever: its
 * --vdev is kept from the EAL like a silent server's.
 */
Test(defer, a_server_with_a_full_backlog_is_kept_from_the_eal)
{
	char dir[] = "/tmp/segnet-defer.XXXXXX", path[64], vdev[128];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd, cfd, argc;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/vh.sock", dir);
	lfd = t_listen_never_accept(path);
	/* One waiting connection fills a backlog of 0. */
	cfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	cr_assert_eq(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(vdev, sizeof(vdev), "net_virtio_user0,path=%s", path);
	{
		char *argv[] = { "nicd", "--no-pci", "--vdev", vdev, "-l", "0", NULL };

		argc = 6;
		cr_assert_eq(dp_ethdev_defer_silent(&argc, argv, 50), 1,
			     "a server whose backlog is full was left to the EAL");
		cr_assert_eq(argc, 4);
		cr_assert_str_eq(argv[2], "-l");
		cr_assert_null(argv[4]);
	}
	close(cfd);
	close(lfd);
	unlink(path);
	rmdir(dir);
}
