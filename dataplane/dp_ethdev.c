/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK backend of the port interface: finding an ethdev, bringing it up
 * for segnet frames (queues, MTU, promiscuous mode, link) and dp_ports on
 * its queues.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_pci.h>

#include "dp_eal.h"
#include "dp_ethdev.h"
#include "dp_ethdev_priv.h"
#include "dp_fault.h"
#include "dp_log.h"
#include "dp_mbuf.h"
#include "dp_vhost_probe.h"

DP_LOG_REGISTER(dp_ethdev_logtype, DATAPLANE_ETHDEV);

enum {
	/* Descriptors per queue when the configuration says 0. */
	DP_ETHDEV_DEFAULT_DESC = 1024,
	/* Interval between link status polls. */
	DP_ETHDEV_LINK_POLL_MS = 10,
	/* Frames drained from one receive queue at close, at most. */
	DP_ETHDEV_DRAIN_MAX = 65536,
	/* Burst size used to drain receive queues. */
	DP_ETHDEV_DRAIN_BURST = 32,
	/* af_packet's frame slots when its framesz devarg is not given. */
	DP_AFP_DEFAULT_FRAMESZ = 2048,
	/* Where TPACKET_V2 puts a received frame in its slot (macoff). */
	DP_AFP_RX_OFFSET = 66,
	/* memif's buffer size when its bsize devarg is not given. */
	DP_MEMIF_DEFAULT_BSIZE = 2048,
	/* Slot bytes the af_packet driver does not copy to the mbuf. */
	DP_AFP_DATA_OFFSET = 32,
	/* Smallest slot for a full BREQ, a multiple of TPACKET_ALIGNMENT. */
	DP_AFP_MIN_FRAMESZ = (DP_MAX_FRAME + DP_AFP_RX_OFFSET + 15) / 16 * 16,
	/* Nanoseconds in a millisecond. */
	DP_NS_PER_MS = 1000000,
	/* dp_ethdev_watch reads the link this often (ms). */
	DP_ETHDEV_WATCH_MS = 10,
	/* A link down this long gets its first restart (ms)... */
	DP_ETHDEV_RESTART_FIRST_MS = 100,
	/* ... and the next ones at doubling intervals up to this (ms). */
	DP_ETHDEV_RESTART_MAX_MS = 2000,
	/* dp_ethdev_close waits this long at most for a watch's fence (ms). */
	DP_ETHDEV_FENCE_WAIT_MS = 1000,
	/*
	 * dp_ethdev_close_all, a close or the stop after a failed set-up wait
	 * this long at most for the EAL interrupt thread (ms)...
	 */
	DP_ETHDEV_INTR_WAIT_MS = 1000,
	/* ... a restart, which the watch tries again, this long (ms)... */
	DP_ETHDEV_INTR_CALL_WAIT_MS = 100,
	/* ... looking whether it was made this often (us). */
	DP_ETHDEV_INTR_CALL_POLL_US = 50,
	/*
	 * A vhost-user server silent this long since the probe connected is
	 * said to be (ms): DPDK 22.11's, just started, answers within its
	 * first poll of up to a second.
	 */
	DP_ETHDEV_SILENT_SAY_MS = 2000,
};

/* Names of the backend counters, from the X-macro list. */
const char *const dp_ethdev_port_counter_names[] = {
	DP_ETHDEV_PORT_COUNTERS(DP_COUNTER_NAME)
};

/* Names of the link counters, from the X-macro list. */
const char *const dp_ethdev_link_counter_names[] = {
	DP_ETHDEV_LINK_COUNTERS(DP_COUNTER_NAME)
};

/* A dp_port on one queue pair of an ethdev. */
struct dp_ethdev_port {
	struct dp_port port;			/* must be first */
	const struct dp_ethdev *dev;		/* its device (stopped or not; its
						 * port_id changes when the watch
						 * creates it again) */
	uint16_t rxq;				/* receive queue polled */
	uint16_t txq;				/* transmit queue used */
	struct dp_ethdev_port_stats stats;	/* backend drops */
	struct dp_ratelimit drop_log;		/* limits the drop warning */
};

/*
 * A driver whose reported maximum frame (dev_info.max_rx_pktlen) is a fixed
 * value that does not limit what it carries, so segnet frames pass anyway.
 */
struct dp_ethdev_lax_driver {
	const char *driver;	/* dev_info.driver_name */
	const char *limit;	/* what really limits the frame size */
	/* Check what really limits it, if it can be checked; 0 or -errno. */
	int (*check)(const char *name, const struct rte_eth_dev_info *info,
		     uint32_t buf, char *err, size_t errlen);
	/* Its frame limit (dp_ethdev.limit); NULL: none of its own. */
	void (*frame_limit)(const struct rte_eth_dev_info *info, struct dp_frame_limit *l);
	/* Say what would take frames of MTU want, since segnet sets none; NULL: it has no limit */
	void (*jumbo)(const struct rte_eth_dev_info *info, uint16_t want, char *note,
		      size_t notelen);
};

/* What dp_ethdev reads of an af_packet device: its devargs, and its interface's MTU. */
struct dp_afp_args {
	unsigned long framesz;	/* frame slot size (framesz=) */
	unsigned long blocksz;	/* ring block size (blocksz=) */
	const char *iface;	/* kernel interface (iface=), or NULL; valid until freed */
	int mtu;		/* the kernel interface's MTU, or -1 if unknown */
	struct rte_kvargs *kv;	/* the parsed devargs, which iface points into */
};

/* MTU of kernel interface ifname, or -1 if it cannot be read. */
static int dp_ethdev_kernel_mtu(const char *ifname)
{
	struct ifreq ifr;
	int fd, ret;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	ret = ioctl(fd, SIOCGIFMTU, &ifr);
	close(fd);
	return ret ? -1 : ifr.ifr_mtu;
}

/* The device's devargs as given (the part after its name), or NULL. */
static const char *dp_ethdev_vdev_args(const struct rte_eth_dev_info *info)
{
	const struct rte_devargs *da = info->device ? rte_dev_devargs(info->device) : NULL;

	return da ? da->args : NULL;
}

/* Devargs args (may be NULL) as key-value pairs (rte_kvargs_free them), or NULL. */
static struct rte_kvargs *dp_ethdev_parse_args(const char *args)
{
	return args ? rte_kvargs_parse(args, NULL) : NULL;
}

/* The device's devargs as key-value pairs (rte_kvargs_free them), or NULL. */
static struct rte_kvargs *dp_ethdev_kvargs(const struct rte_eth_dev_info *info)
{
	return dp_ethdev_parse_args(dp_ethdev_vdev_args(info));
}

/* The af_packet devargs that carry full BREQs in 2304-byte mbufs. */
#define DP_AFP_HINT "framesz=2304,blocksz=36864"

/* What af_packet needs of the kernel, said when it is refused (EPERM). */
#define DP_AFP_PRIV_HINT \
	"af_packet needs CAP_NET_RAW (its socket) and CAP_NET_ADMIN (its interface's flags, set when it starts): run it as root or give it both capabilities"

/* True for a device or driver name of af_packet (its alias eth_af_packet too). */
static bool dp_afp_named(const char *name)
{
	return !strncmp(name, "net_af_packet", 13) || !strncmp(name, "eth_af_packet", 13);
}

/* 0 if this process may open an AF_PACKET socket, else -errno (-EPERM without CAP_NET_RAW). */
static int dp_afp_socket_allowed(void)
{
	int fd = socket(AF_PACKET, SOCK_RAW, 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Read af_packet devargs args (may be NULL), with the driver's defaults; free a->kv after. */
static void dp_afp_args_parse(const char *args, struct dp_afp_args *a)
{
	const char *fs, *bs;

	a->kv = dp_ethdev_parse_args(args);
	fs = a->kv ? rte_kvargs_get(a->kv, "framesz") : NULL;
	bs = a->kv ? rte_kvargs_get(a->kv, "blocksz") : NULL;
	a->iface = a->kv ? rte_kvargs_get(a->kv, "iface") : NULL;
	a->framesz = fs ? strtoul(fs, NULL, 0) : DP_AFP_DEFAULT_FRAMESZ;
	a->blocksz = bs ? strtoul(bs, NULL, 0) : (unsigned long)getpagesize();
	a->mtu = a->iface ? dp_ethdev_kernel_mtu(a->iface) : -1;
}

/* Read an af_packet device's devargs, as dp_afp_args_parse; free a->kv after. */
static void dp_afp_args_read(const struct rte_eth_dev_info *info, struct dp_afp_args *a)
{
	dp_afp_args_parse(dp_ethdev_vdev_args(info), a);
}

/*
 * A --vdev value that is an af_packet device (the driver's name, or its
 * alias eth_af_packet, then a number or nothing) whose iface= names no
 * network interface: -ENODEV with a message naming both.
 */
static int dp_afp_vdev_check(const char *value, char *err, size_t errlen)
{
	const char *comma = strchr(value, ',');
	struct dp_afp_args a;
	int ret = 0;

	if (!comma || !dp_afp_named(value))
		return 0;
	dp_afp_args_parse(comma + 1, &a);
	if (a.iface && !if_nametoindex(a.iface)) {
		snprintf(err, errlen, "--vdev %s: iface=%s: no such network interface",
			 value, a.iface);
		ret = -ENODEV;
	}
	rte_kvargs_free(a.kv);
	return ret;
}

int dp_ethdev_vdev_check(int argc, char **argv, char *err, size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const char *v = dp_eal_arg_value(argc, argv, &i, "--vdev");
		int ret = v ? dp_afp_vdev_check(v, err, errlen) : 0;

		if (ret)
			return ret;
	}
	return 0;
}

/*
 * af_packet: each frame slot (framesz) must hold a full BREQ after the
 * TPACKET_V2 header and fit the pool's buffers, a block must hold whole
 * slots, and the kernel interface must take the frames.
 */
static int dp_ethdev_check_af_packet(const char *name,
				     const struct rte_eth_dev_info *info,
				     uint32_t buf, char *err, size_t errlen)
{
	struct dp_afp_args a;
	int ret = -EMSGSIZE;

	dp_afp_args_read(info, &a);
	if (a.framesz < DP_AFP_MIN_FRAMESZ)
		snprintf(err, errlen, "port %s: af_packet framesz=%lu holds frames of %lu bytes, segnet sends %u: use " DP_AFP_HINT,
			 name, a.framesz, a.framesz > DP_AFP_RX_OFFSET ? a.framesz - DP_AFP_RX_OFFSET : 0,
			 DP_MAX_FRAME);
	else if (a.framesz - DP_AFP_DATA_OFFSET > buf)
		snprintf(err, errlen, "port %s: af_packet framesz=%lu needs receive buffers of %lu bytes, the pool's hold %u: use " DP_AFP_HINT,
			 name, a.framesz, a.framesz - DP_AFP_DATA_OFFSET, buf);
	else if (a.blocksz % a.framesz)
		/* The driver addresses slot i at i * framesz, the kernel per block. */
		snprintf(err, errlen, "port %s: af_packet blocksz=%lu is not a multiple of framesz=%lu, frames would be misplaced: use " DP_AFP_HINT,
			 name, a.blocksz, a.framesz);
	else if (a.mtu >= 0 && a.mtu < DP_ETHDEV_MTU)
		snprintf(err, errlen, "port %s: kernel interface %s has MTU %d, segnet needs %u: ip link set dev %s mtu 2200",
			 name, a.iface, a.mtu, DP_ETHDEV_MTU, a.iface);
	else
		ret = 0;
	rte_kvargs_free(a.kv);
	return ret;
}

/*
 * Frames af_packet sends. Both limits drop a longer frame without a trace:
 * the driver one that does not fit a slot after the TPACKET_V2 header (and
 * still counts it sent), the kernel (PACKET_LOSS) one longer than the
 * interface's MTU and Ethernet header, 4 bytes more when its outer tag is
 * 802.1Q (0x8100): one tag's worth, however many tags, and nothing for
 * 802.1ad (0x88a8) or 0x9100 (measured on Linux 6.18, doc/replay.md).
 */
static void dp_ethdev_limit_af_packet(const struct rte_eth_dev_info *info,
				      struct dp_frame_limit *l)
{
	struct dp_afp_args a;
	unsigned long slot;

	dp_afp_args_read(info, &a);
	slot = a.framesz > DP_AFP_DATA_OFFSET ? a.framesz - DP_AFP_DATA_OFFSET : 1;
	l->cap = slot > UINT32_MAX ? UINT32_MAX : (uint32_t)slot;
	l->untagged = a.mtu >= 0 ? (uint32_t)a.mtu + RTE_ETHER_HDR_LEN : 0;
	l->tags = dp_frame_rule_one_ctag.tags;
	l->ctag_only = dp_frame_rule_one_ctag.ctag_only;
	rte_kvargs_free(a.kv);
}

/*
 * What an af_packet port needs for frames of MTU want (one 802.1Q tag
 * included): the kernel interface's MTU, on both ends of a veth, and slots
 * that hold them where received frames sit (66 bytes in), in 1 KiB steps
 * so that 4 whole slots make a block of 4 KiB pages.
 */
static void dp_ethdev_jumbo_af_packet(const struct rte_eth_dev_info *info, uint16_t want,
				      char *note, size_t notelen)
{
	unsigned long fs = ((unsigned long)want + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN +
			    DP_AFP_RX_OFFSET + 1023) / 1024 * 1024;
	struct dp_afp_args a;

	dp_afp_args_read(info, &a);
	snprintf(note, notelen, "its limits are the kernel interface's MTU and its slots: ip link set dev %s mtu %u (both ends of a veth), framesz=%lu,blocksz=%lu",
		 a.iface ? a.iface : "IFACE", want, fs, 4 * fs);
	rte_kvargs_free(a.kv);
}

/* The memif devarg that holds a full BREQ in one buffer. */
#define DP_MEMIF_HINT "bsize=4096"

/* memif's socket when its socket devarg is not given. */
#define DP_MEMIF_DEFAULT_SOCKET "/run/memif.sock"

/*
 * memif: a frame longer than a buffer (bsize, 2048 by default) travels in
 * chained descriptors and arrives whole, but with them switchd over memif
 * saw DPDK 22.11's memif receive path replay stale ring slots, about 65,000
 * phantom frames at a time, in half of its test runs; with bsize=4096
 * never. (Likely cause, from the driver's source: the sender sets the NEXT
 * flag on a frame's first descriptor but never clears it when the slot is
 * reused, and the receiver follows NEXT without checking that the slot
 * after was published, so its 16-bit slot count wraps.) Warn, do not
 * refuse: frames within one buffer are unaffected.
 */
static int dp_ethdev_check_memif(const char *name, const struct rte_eth_dev_info *info,
				 uint32_t buf, char *err, size_t errlen)
{
	struct rte_kvargs *kv = dp_ethdev_kvargs(info);
	const char *bs = kv ? rte_kvargs_get(kv, "bsize") : NULL;
	unsigned long bsize = bs ? strtoul(bs, NULL, 0) : DP_MEMIF_DEFAULT_BSIZE;

	(void)buf;
	(void)err;
	(void)errlen;
	if (bsize < DP_MAX_FRAME)
		DP_LOG(dp_ethdev_logtype, WARNING,
		       "port %s: memif bsize=%lu splits full BREQs (%u bytes) over two buffers, which DPDK 22.11's memif receive path can mishandle (stale frames replayed): use " DP_MEMIF_HINT " on both ends",
		       name, bsize, DP_MAX_FRAME);
	rte_kvargs_free(kv);
	return 0;
}

/*
 * DPDK 22.11 reports 1518-byte frames for both, and refuses a larger MTU
 * before the driver sees it; tests/integration/ethdev_pair.sh sends full
 * BREQs over each.
 */
static const struct dp_ethdev_lax_driver dp_ethdev_lax_drivers[] = {
	/* The check warns, with the hint, only when bsize is too small; no frame limit. */
	{ "net_memif", "the bsize devarg is the limit: a longer frame spans several memif buffers",
	  dp_ethdev_check_memif, NULL, NULL },
	{ "net_af_packet",
	  "its frame slots (" DP_AFP_HINT ") and the kernel interface MTU (2120 or more) are the limits",
	  dp_ethdev_check_af_packet, dp_ethdev_limit_af_packet, dp_ethdev_jumbo_af_packet },
};

/* The lax-driver entry for driver, or NULL. */
static const struct dp_ethdev_lax_driver *dp_ethdev_lax(const char *driver)
{
	for (size_t i = 0; i < RTE_DIM(dp_ethdev_lax_drivers); i++)
		if (driver && !strcmp(driver, dp_ethdev_lax_drivers[i].driver))
			return &dp_ethdev_lax_drivers[i];
	return NULL;
}

/*
 * Frames a device set up with MTU mtu sends: the MTU's and the Ethernet
 * header, 4 bytes more per VLAN tag (DPDK's drivers size their frame limit
 * as the MTU plus an overhead that most of them make room for tags in), or
 * a lax driver's own limit (set_mtu false), none when it has none.
 */
static struct dp_frame_limit dp_ethdev_limit(const struct rte_eth_dev_info *info, bool set_mtu,
					     uint16_t mtu)
{
	const struct dp_ethdev_lax_driver *lax = set_mtu ? NULL : dp_ethdev_lax(info->driver_name);
	struct dp_frame_limit l = { 0 };

	if (lax == NULL) {
		l.untagged = (uint32_t)mtu + RTE_ETHER_HDR_LEN;
		l.tags = DP_FRAME_TAGS_ANY;
	} else if (lax->frame_limit) {
		lax->frame_limit(info, &l);
	}
	return l;
}

/*
 * True for a virtio-user client: a device or driver named net_virtio_user*
 * whose devargs kv do not make it the server (server=1).
 */
static bool dp_ethdev_virtio_client(const char *name, const struct rte_kvargs *kv)
{
	const char *server = kv ? rte_kvargs_get(kv, "server") : NULL;

	return !strncmp(name, "net_virtio_user", strlen("net_virtio_user")) &&
	       !(server && strtoul(server, NULL, 0));
}

/*
 * What brings the device's link back once its peer went away and came
 * again, in DPDK 22.11: a memif client connects to its server only in
 * rte_eth_dev_start; a virtio-user client connects to its vhost-user server
 * only when probed (a restart does not reconnect it: the device must be
 * removed and created again), and a virtio-user server takes the
 * vhost-user client's reconnection by itself, as NICs, af_packet and
 * servers do.
 */
static enum dp_ethdev_link_policy dp_ethdev_link_policy(const struct rte_eth_dev_info *info)
{
	enum dp_ethdev_link_policy policy = DP_ETHDEV_LINK_WAIT;
	struct rte_kvargs *kv = dp_ethdev_kvargs(info);
	const char *role = kv ? rte_kvargs_get(kv, "role") : NULL;
	const char *driver = info->driver_name ? info->driver_name : "";

	if (!strcmp(driver, "net_memif") && role && !strcmp(role, "client"))
		policy = DP_ETHDEV_LINK_RESTART;
	else if (dp_ethdev_virtio_client(driver, kv))
		policy = DP_ETHDEV_LINK_REPLUG;
	rte_kvargs_free(kv);
	return policy;
}

/* True when s is a decimal port number, stored in *id. */
static bool dp_ethdev_parse_number(const char *s, uint16_t *id)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= RTE_MAX_ETHPORTS)
		return false;
	*id = (uint16_t)v;
	return true;
}

/* Append the names of the known ports to err (for "no such port"). */
static void dp_ethdev_list_known(char *err, size_t errlen)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	bool any = false;
	size_t len;
	uint16_t id;

	if (errlen == 0)
		return;
	len = strlen(err);
	RTE_ETH_FOREACH_DEV(id) {
		if (len + 1 >= errlen || rte_eth_dev_get_name_by_port(id, name))
			break;
		len += snprintf(err + len, errlen - len, "%s%u=%s",
				any ? ", " : " (known ports: ", id, name);
		any = true;
	}
	if (len + 1 < errlen)
		snprintf(err + len, errlen - len, "%s",
			 any ? ")" : " (no ports: add one with --vdev or -a)");
}

/* The --vdev argument that names device name, or NULL. */
static const struct rte_devargs *dp_ethdev_vdev_given(const char *name)
{
	const struct rte_devargs *da;

	RTE_EAL_DEVARGS_FOREACH("vdev", da)
		if (!strcmp(da->name, name))
			return da;
	return NULL;
}

/*
 * True when no server listens at path: nothing is there, or a socket that
 * refuses a connection (a server that went away). A server that takes one
 * is there, and the device failed for another reason (a bad argument).
 */
static bool dp_ethdev_no_server(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	bool none;
	int fd;

	if (stat(path, &st))
		return errno == ENOENT;
	if (!S_ISSOCK(st.st_mode) || strlen(path) >= sizeof(sa.sun_path))
		return false;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return true;	/* cannot tell: wait for it, as before */
	memcpy(sa.sun_path, path, strlen(path) + 1);
	none = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	       (errno == ECONNREFUSED || errno == ENOENT);
	close(fd);
	return none;
}

/* virtio-user clients dp_ethdev_defer_silent kept from the EAL. */
enum { DP_ETHDEV_DEFER_MAX = 32 };
static struct {
	const char *vdev[DP_ETHDEV_DEFER_MAX];	/* their --vdev values (in argv): NAME,ARGS */
	unsigned int n;				/* how many */
	uint32_t wait_ms;			/* how long their servers had */
} dp_ethdev_deferred;

/* True when name is a device dp_ethdev_defer_silent kept from the EAL. */
static bool dp_ethdev_is_deferred(const char *name)
{
	size_t len = strlen(name);

	for (unsigned int i = 0; i < dp_ethdev_deferred.n; i++) {
		const char *v = dp_ethdev_deferred.vdev[i];

		if (!strncmp(v, name, len) && (v[len] == ',' || !v[len]))
			return true;
	}
	return false;
}

/* One --vdev of the EAL arguments being asked about. */
struct dp_ethdev_ask {
	int at;			/* its index in argv */
	int words;		/* 2: "--vdev VALUE", 1: "--vdev=VALUE" */
	const char *value;	/* VALUE */
	int fd;			/* the probe while its answer is awaited, else -1 */
	bool defer;		/* kept from the EAL (no answer yet, or backlog full) */
};

/*
 * The vhost-user socket a --vdev value's virtio-user client connects to, in
 * path, and the device's name in name; false if it is not such a client.
 */
static bool dp_ethdev_client_socket(const char *value, char *name, size_t namelen, char *path,
				    size_t pathlen)
{
	const char *comma = strchr(value, ',');
	struct rte_kvargs *kv;
	const char *p;
	struct stat st;
	bool ok;

	snprintf(name, namelen, "%.*s", (int)(comma ? comma - value : (long)strlen(value)), value);
	kv = comma ? rte_kvargs_parse(comma + 1, NULL) : NULL;
	p = kv ? rte_kvargs_get(kv, "path") : NULL;
	ok = p && dp_ethdev_virtio_client(name, kv) && !stat(p, &st) && S_ISSOCK(st.st_mode);
	if (ok)
		snprintf(path, pathlen, "%s", p);
	rte_kvargs_free(kv);
	return ok;
}

int dp_ethdev_defer_silent(int *argc, char **argv, uint32_t wait_ms)
{
	struct dp_ethdev_ask ask[DP_ETHDEV_DEFER_MAX];
	uint64_t end = dp_mono_ns() + (uint64_t)wait_ms * DP_NS_PER_MS;
	unsigned int n = 0, pending = 0, out = 0;
	char name[RTE_DEV_NAME_MAX_LEN], path[256];
	int k = 1;

	for (int i = 1; i < *argc && n < DP_ETHDEV_DEFER_MAX; i++) {
		struct dp_ethdev_ask *a = &ask[n];

		a->at = i;
		a->value = dp_eal_arg_value(*argc, argv, &i, "--vdev");
		if (!a->value)
			continue;
		a->words = i - a->at + 1;
		if (!dp_ethdev_client_socket(a->value, name, sizeof(name), path, sizeof(path)))
			continue;
		a->fd = dp_vhost_probe_start(path);
		/* No server: the EAL fails to create it at once. A full backlog: its
		 * blocking connect would wait for ever. */
		a->defer = a->fd >= 0 || a->fd == -EAGAIN;
		if (!a->defer)
			continue;
		pending += a->fd >= 0;
		n++;
	}
	while (pending && dp_mono_ns() < end) {
		for (unsigned int j = 0; j < n; j++) {
			if (ask[j].fd < 0 || !dp_vhost_probe_answered(ask[j].fd, 0))
				continue;
			close(ask[j].fd);	/* answered (or hung up): the EAL may create it */
			ask[j].fd = -1;
			ask[j].defer = false;
			pending--;
		}
		if (pending)
			usleep(5000);
	}
	dp_ethdev_deferred.wait_ms = wait_ms;
	for (unsigned int j = 0; j < n; j++) {
		if (ask[j].fd >= 0)
			close(ask[j].fd);
		if (!ask[j].defer)
			continue;
		dp_ethdev_deferred.vdev[dp_ethdev_deferred.n++] = ask[j].value;
		for (int w = 0; w < ask[j].words; w++)
			argv[ask[j].at + w] = NULL;
		out++;
	}
	/* Close the gaps, keeping the order. */
	for (int i = 1; i < *argc; i++)
		if (argv[i])
			argv[k++] = argv[i];
	for (int i = k; i < *argc; i++)
		argv[i] = NULL;
	*argc = k;
	return (int)out;
}

int dp_ethdev_defer_register(char *err, size_t errlen)
{
	for (unsigned int i = 0; i < dp_ethdev_deferred.n; i++) {
		int ret = rte_devargs_add(RTE_DEVTYPE_VIRTUAL, dp_ethdev_deferred.vdev[i]);

		if (ret < 0) {
			snprintf(err, errlen, "--vdev %s: cannot keep it for later: %s",
				 dp_ethdev_deferred.vdev[i], rte_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * A --vdev whose driver did not create the device at start-up: it said
 * why, and most often an argument is wrong (-ENODEV). A virtio-user client
 * connects to its vhost-user server only when created (DPDK 22.11): when
 * the server's socket is missing or refused it, say that (-ENOTCONN); with
 * late_peer, dp_ethdev_setup leaves it for the watch to create. An
 * af_packet device's driver could not open its socket when this process
 * may not (-EPERM, without CAP_NET_RAW): say what it needs (a run-time
 * condition, not a bad argument).
 */
static int dp_ethdev_vdev_failed(const struct rte_devargs *da, char *err, size_t errlen)
{
	struct rte_kvargs *kv = dp_ethdev_parse_args(da->args);
	const char *path = kv ? rte_kvargs_get(kv, "path") : NULL;
	int ret = -ENODEV;

	if (dp_afp_named(da->name) && dp_afp_socket_allowed() == -EPERM) {
		snprintf(err, errlen, "--vdev %s%s%s: its driver cannot open an AF_PACKET socket: %s: " DP_AFP_PRIV_HINT,
			 da->name, da->args && *da->args ? "," : "", da->args ? da->args : "",
			 rte_strerror(EPERM));
		ret = -EPERM;
	} else if (dp_ethdev_is_deferred(da->name)) {
		snprintf(err, errlen, "--vdev %s,%s: its vhost-user server at %s took no connection (backlog full) or did not answer in %u ms: not created at start-up (the creation would wait for it without a time-out)",
			 da->name, da->args, path ? path : "(no path=)", dp_ethdev_deferred.wait_ms);
		ret = -ENOTCONN;
	} else if (dp_ethdev_virtio_client(da->name, kv) && path && dp_ethdev_no_server(path)) {
		snprintf(err, errlen, "--vdev %s,%s: no vhost-user server at %s: a virtio-user client connects to its server only when it is created: start the vhost-user server first, let the program wait for it (nicd does), or make this end the server (server=1) and the other the client (client=1)",
			 da->name, da->args, path);
		ret = -ENOTCONN;
	} else {
		snprintf(err, errlen, "--vdev %s%s%s: its driver did not create the device (its message above says why: a bad or missing device argument?)",
			 da->name, da->args && *da->args ? "," : "", da->args ? da->args : "");
	}
	rte_kvargs_free(kv);
	return ret;
}

uint16_t dp_ethdev_vdev_queues(const char *name)
{
	const struct rte_devargs *da = dp_ethdev_vdev_given(name);
	struct rte_kvargs *kv = da ? dp_ethdev_parse_args(da->args) : NULL;
	const char *q = kv ? rte_kvargs_get(kv, "queues") : NULL;
	char *end = NULL;
	unsigned long n = q ? strtoul(q, &end, 10) : 1;

	if (!q || end == q || *end || n == 0 || n > UINT16_MAX)
		n = 1;
	rte_kvargs_free(kv);
	return (uint16_t)n;
}

int dp_ethdev_find(const char *name, uint16_t *port_id, char *err, size_t errlen)
{
	const struct rte_devargs *da;
	char canon[RTE_ETH_NAME_MAX_LEN];
	struct rte_pci_addr pci;
	bool is_pci;

	if (!name || !*name) {
		snprintf(err, errlen, "empty port name");
		return -ENODEV;
	}
	if (dp_ethdev_parse_number(name, port_id)) {
		if (rte_eth_dev_is_valid_port(*port_id))
			return 0;
		snprintf(err, errlen, "no DPDK port number %s", name);
		dp_ethdev_list_known(err, errlen);
		return -ENODEV;
	}
	/* The PCI bus names its devices in full: "0000:3b:00.0". */
	is_pci = rte_pci_addr_parse(name, &pci) == 0;
	if (is_pci)
		rte_pci_device_name(&pci, canon, sizeof(canon));
	else
		snprintf(canon, sizeof(canon), "%s", name);
	if (rte_eth_dev_get_port_by_name(canon, port_id) == 0)
		return 0;
	if (is_pci && rte_dev_probe(canon) == 0 &&
	    rte_eth_dev_get_port_by_name(canon, port_id) == 0) {
		DP_LOG(dp_ethdev_logtype, INFO, "probed PCI device %s as port %u",
		       canon, *port_id);
		return 0;
	}
	da = is_pci ? NULL : dp_ethdev_vdev_given(name);
	if (da && dp_eal_dev_probed("vdev", name)) {
		snprintf(err, errlen, "--vdev %s: the device was closed: a closed device cannot be set up again until the program starts again",
			 name);
		return -ENODEV;
	}
	if (da)
		return dp_ethdev_vdev_failed(da, err, errlen);
	/* A driver holds it, with no port: closed, or not a network device. */
	if (is_pci && dp_eal_dev_probed("pci", canon))
		snprintf(err, errlen,
			 "PCI device %s has no DPDK port although a driver took it: the device was closed (a closed device cannot be set up again until the program starts again), or its driver is not a network one",
			 canon);
	else if (is_pci)
		snprintf(err, errlen,
			 "no DPDK port on PCI device %s: is it bound to vfio-pci (dpdk-devbind.py --status) and allowed (no --no-pci, in the -a list)?",
			 canon);
	else
		snprintf(err, errlen, "no DPDK port called \"%s\"", name);
	dp_ethdev_list_known(err, errlen);
	return -ENODEV;
}

/* Largest MTU the device says it takes, as the ethdev layer checks it. */
static uint32_t dp_ethdev_max_mtu(const struct rte_eth_dev_info *info,
				  uint32_t *overhead)
{
	uint32_t max = info->max_mtu;

	*overhead = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	if (info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu)
		*overhead = info->max_rx_pktlen - info->max_mtu;
	if (info->max_rx_pktlen < *overhead)
		return 0;
	return RTE_MIN(max, info->max_rx_pktlen - *overhead);
}

/* Check the queue counts against the device. */
static int dp_ethdev_check_queues(const char *name, const struct dp_ethdev_conf *conf,
				  const struct rte_eth_dev_info *info,
				  char *err, size_t errlen)
{
	if (conf->rx_queues == 0 || conf->tx_queues == 0) {
		snprintf(err, errlen, "port %s: needs at least one receive and one transmit queue (asked for %u and %u)",
			 name, conf->rx_queues, conf->tx_queues);
		return -EINVAL;
	}
	if (conf->rx_queues > info->max_rx_queues) {
		snprintf(err, errlen, "port %s: %u receive queues asked for, the device (%s) has at most %u",
			 name, conf->rx_queues, info->driver_name, info->max_rx_queues);
		return -EINVAL;
	}
	if (conf->tx_queues > info->max_tx_queues) {
		snprintf(err, errlen, "port %s: %u transmit queues asked for, the device (%s) has at most %u",
			 name, conf->tx_queues, info->driver_name, info->max_tx_queues);
		return -EINVAL;
	}
	return 0;
}

int dp_ethdev_plan_rx(const char *name, const struct rte_eth_dev_info *info,
		      struct rte_mempool *mp, struct rte_eth_conf *ec,
		      bool *set_mtu, char *err, size_t errlen)
{
	uint32_t buf = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;
	const struct dp_ethdev_lax_driver *lax = NULL;
	uint32_t overhead, max_mtu = dp_ethdev_max_mtu(info, &overhead);
	uint32_t frame = DP_ETHDEV_MTU + overhead;

	*set_mtu = true;
	if (max_mtu < DP_ETHDEV_MTU) {
		lax = dp_ethdev_lax(info->driver_name);
		if (!lax) {
			snprintf(err, errlen, "port %s: segnet frames of %u bytes need MTU %u, but the device (%s) supports at most MTU %u: enable jumbo frames",
				 name, DP_MAX_FRAME, DP_ETHDEV_MTU, info->driver_name, max_mtu);
			return -EMSGSIZE;
		}
		if (lax->check) {
			int ret = lax->check(name, info, buf, err, errlen);

			if (ret)
				return ret;
		}
		DP_LOG(dp_ethdev_logtype, NOTICE,
		       "port %s: %s reports MTU %u at most, which it does not enforce; %s",
		       name, info->driver_name, max_mtu, lax->limit);
		*set_mtu = false;
		frame = DP_MAX_FRAME + RTE_ETHER_CRC_LEN;
	} else {
		ec->rxmode.mtu = DP_ETHDEV_MTU;
	}
	if (info->min_rx_bufsize > buf) {
		snprintf(err, errlen, "port %s: the device needs receive buffers of %u bytes, the pool's hold %u",
			 name, info->min_rx_bufsize, buf);
		return -EINVAL;
	}
	if (frame <= buf)
		return 0;
	if (!(info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)) {
		snprintf(err, errlen, "port %s: frames of %u bytes do not fit the pool's %u-byte buffers and the device cannot scatter",
			 name, frame, buf);
		return -EINVAL;
	}
	DP_LOG(dp_ethdev_logtype, NOTICE,
	       "port %s: frames of %u bytes exceed %u-byte buffers, receiving with scatter (multi-segment frames are dropped)",
	       name, frame, buf);
	ec->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	return 0;
}

/* Largest MTU the device described by info takes with buf-byte receive buffers; note says why. */
static uint32_t dp_ethdev_mtu_bound(const struct rte_eth_dev_info *info, uint32_t buf,
				    char *note, size_t notelen)
{
	uint32_t overhead, max_mtu = dp_ethdev_max_mtu(info, &overhead);
	uint32_t fit = buf > overhead ? buf - overhead : 0;

	if ((info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) || max_mtu <= fit) {
		snprintf(note, notelen, "the device (%s) takes MTU %u at most",
			 info->driver_name, max_mtu);
		return max_mtu;
	}
	snprintf(note, notelen, "its receive buffers hold frames of %u bytes (MTU %u) and the device (%s) cannot scatter",
		 buf, fit, info->driver_name);
	return fit;
}

uint16_t dp_ethdev_plan_mtu(const struct rte_eth_dev_info *info, struct rte_mempool *mp,
			    bool set_mtu, uint16_t want, struct rte_eth_conf *ec,
			    char *note, size_t notelen)
{
	uint32_t buf = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;
	const struct dp_ethdev_lax_driver *lax;
	uint32_t overhead, bound, mtu = want;
	char why[192] = "it has no frame limit of its own";

	if (want && !set_mtu) {
		lax = dp_ethdev_lax(info->driver_name);
		if (lax && lax->jumbo)
			lax->jumbo(info, want, why, sizeof(why));
		snprintf(note, notelen, "segnet sets no MTU on %s (DPDK 22.11 takes none over %u for it); %s",
			 info->driver_name, dp_ethdev_max_mtu(info, &overhead), why);
		return DP_ETHDEV_MTU;
	}
	if (want <= DP_ETHDEV_MTU)
		return DP_ETHDEV_MTU;
	bound = dp_ethdev_mtu_bound(info, buf, why, sizeof(why));
	if (bound < mtu) {
		mtu = bound;
		snprintf(note, notelen, "%s", why);
	}
	if (mtu <= DP_ETHDEV_MTU)
		return DP_ETHDEV_MTU;
	dp_ethdev_max_mtu(info, &overhead);
	if (mtu + overhead > buf)
		ec->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	ec->rxmode.mtu = (uint16_t)mtu;
	return (uint16_t)mtu;
}

/* Configure the device and set up its queues. */
static int dp_ethdev_configure(const char *name, uint16_t id,
			       const struct dp_ethdev_conf *conf,
			       const struct rte_eth_conf *ec, int socket,
			       struct rte_mempool *mp, char *err, size_t errlen)
{
	uint16_t nrx = conf->rx_desc ? conf->rx_desc : DP_ETHDEV_DEFAULT_DESC;
	uint16_t ntx = conf->tx_desc ? conf->tx_desc : DP_ETHDEV_DEFAULT_DESC;
	unsigned int qsock = socket == SOCKET_ID_ANY ? rte_socket_id() : (unsigned int)socket;
	int ret;

	ret = rte_eth_dev_configure(id, conf->rx_queues, conf->tx_queues, ec);
	if (ret) {
		snprintf(err, errlen, "port %s: cannot configure %u receive and %u transmit queues: %s%s",
			 name, conf->rx_queues, conf->tx_queues, rte_strerror(-ret),
			 ret == -EBUSY ? " (already started: set up twice?)" : "");
		return ret;
	}
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(id, &nrx, &ntx);
	if (ret) {
		snprintf(err, errlen, "port %s: cannot fit descriptor counts: %s",
			 name, rte_strerror(-ret));
		return ret;
	}
	for (uint16_t q = 0; q < conf->rx_queues; q++) {
		ret = rte_eth_rx_queue_setup(id, q, nrx, qsock, NULL, mp);
		if (ret) {
			snprintf(err, errlen, "port %s: cannot set up receive queue %u with %u descriptors: %s",
				 name, q, nrx, rte_strerror(-ret));
			return ret;
		}
	}
	for (uint16_t q = 0; q < conf->tx_queues; q++) {
		ret = rte_eth_tx_queue_setup(id, q, ntx, qsock, NULL);
		if (ret) {
			snprintf(err, errlen, "port %s: cannot set up transmit queue %u with %u descriptors: %s",
				 name, q, ntx, rte_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * Set MTU mtu (the segnet MTU or a larger one planned); a larger one the
 * driver refuses falls back to the segnet MTU, saying why in out->mtu_note.
 * A driver without an MTU operation already has it from
 * rte_eth_dev_configure (rxmode.mtu, checked against its limits there).
 */
static int dp_ethdev_set_mtu(const char *name, uint16_t id, uint16_t mtu,
			     struct dp_ethdev *out, char *err, size_t errlen)
{
	int ret = rte_eth_dev_set_mtu(id, mtu);

	if (ret == 0 || ret == -ENOTSUP)
		return 0;
	if (mtu > DP_ETHDEV_MTU) {
		snprintf(out->mtu_note, sizeof(out->mtu_note), "the driver refused MTU %u: %s",
			 mtu, rte_strerror(-ret));
		return dp_ethdev_set_mtu(name, id, DP_ETHDEV_MTU, out, err, errlen);
	}
	snprintf(err, errlen, "port %s: cannot set MTU %u for %u-byte segnet frames: %s",
		 name, DP_ETHDEV_MTU, DP_MAX_FRAME, rte_strerror(-ret));
	return ret;
}

/* Read the link without waiting; true when it is up (a driver that cannot tell: up). */
static bool dp_ethdev_read_link(uint16_t id, struct rte_eth_link *link)
{
	memset(link, 0, sizeof(*link));
	if (rte_eth_link_get_nowait(id, link) == -ENOTSUP)
		link->link_status = RTE_ETH_LINK_UP;
	return link->link_status == RTE_ETH_LINK_UP;
}

/* A link's speed in Mb/s, 0 when the driver does not know it. */
static uint32_t dp_ethdev_link_mbps(const struct rte_eth_link *link)
{
	return link->link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ? 0 : link->link_speed;
}

/*
 * Read dev's link without waiting; true when it is up. A device the watch
 * restarts or creates again (memif and virtio-user clients) is watched as
 * in the loop, so a wait brings it up with back-off once its peer
 * answers; the watch reads its link (and speed). A stopped device's link
 * is down.
 */
static bool dp_ethdev_link_now(struct dp_ethdev *dev)
{
	struct rte_eth_link link;
	bool up;

	if (dev->watch.policy != DP_ETHDEV_LINK_WAIT) {
		dp_ethdev_watch(dev, dp_tsc_ns());
		return dev->link_up;
	}
	up = dp_ethdev_read_link(dev->port_id, &link);
	dev->link_speed_mbps = dp_ethdev_link_mbps(&link);
	return up && !dev->stopped;
}

/* Poll dev's link until it is up, wait_ms passed or SIGINT/SIGTERM came (dp_stop). */
static int dp_ethdev_wait_link(struct dp_ethdev *dev, uint32_t wait_ms, char *err,
			       size_t errlen)
{
	/* Elapsed time, not passes: a pass may restart the device, and take a while. */
	uint64_t end = dp_tsc_ns() + (uint64_t)wait_ms * DP_NS_PER_MS;
	bool up;

	for (;;) {
		if (dp_stop) {
			snprintf(err, errlen, "port %s: stopped by a signal while waiting for the link",
				 dev->name);
			return -EINTR;
		}
		up = dp_ethdev_link_now(dev);
		if (up || dp_tsc_ns() >= end)
			break;
		rte_delay_us_sleep(DP_ETHDEV_LINK_POLL_MS * 1000);
	}
	dev->link_up = up;
	if (wait_ms && !up) {
		snprintf(err, errlen, "port %s: link still down after %u ms%s", dev->name, wait_ms,
			 dev->unplugged ? " (not created: its peer is not there)" :
			 dev->stopped ? " (not started: its peer is not there)" : "");
		return -ETIMEDOUT;
	}
	return 0;
}

/* Free the frames waiting in the device's receive queues (started); how many. */
static uint64_t dp_ethdev_drain(uint16_t id)
{
	struct rte_mbuf *pkts[DP_ETHDEV_DRAIN_BURST];
	struct rte_eth_dev_info info;
	uint64_t freed = 0;

	if (rte_eth_dev_info_get(id, &info))
		return 0;
	for (uint16_t q = 0; q < info.nb_rx_queues; q++) {
		for (unsigned int total = 0; total < DP_ETHDEV_DRAIN_MAX;) {
			uint16_t n = rte_eth_rx_burst(id, q, pkts, DP_ETHDEV_DRAIN_BURST);

			if (n == 0)
				break;
			rte_pktmbuf_free_bulk(pkts, n);
			total += n;
			freed += n;
		}
	}
	return freed;
}

/*
 * Free what dev's receive queues hold before a restart or re-creation:
 * frames of the peer or session that went away, which net_ring's rings
 * and af_packet's mapped ring keep across a stop and start (memif's
 * connection starts its rings afresh; a re-created device has new ones).
 */
static void dp_ethdev_flush(struct dp_ethdev *dev)
{
	dev->watch.stats.rx_flushed_on_restart += dp_ethdev_drain(dev->port_id);
}

/* Free what dev's receive queues hold, counted as rx_flushed_on_restart, and stop it. */
static int dp_ethdev_stop_flushed(struct dp_ethdev *dev)
{
	dp_ethdev_flush(dev);
	return rte_eth_dev_stop(dev->port_id);
}

/* A call of fn(dev) for the EAL interrupt thread to make, and what it returned. */
struct dp_ethdev_intr_call {
	int (*fn)(struct dp_ethdev *dev);	/* what to call */
	struct dp_ethdev *dev;			/* on which device */
	int ret;				/* what it returned, once done */
	int done;				/* set (release) by the interrupt thread once ret is */
};

/* The alarm that makes the call in the EAL interrupt thread. */
static void dp_ethdev_intr_alarm(void *arg)
{
	struct dp_ethdev_intr_call *c = arg;

	c->ret = c->fn(c->dev);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
}

/*
 * Call fn(dev) where no driver callback runs meanwhile, and wait for it:
 * in the EAL interrupt thread, where drivers handle their devices' events
 * (sockets, alarms), through an alarm (not from that thread), or in this
 * one once that thread is held for the end of the process
 * (dp_eal_intr_hold). 0 with what fn returned in *ret, or, fn not called,
 * -EBUSY when the thread stayed busy for wait_ms, -errno when no alarm
 * could be set.
 */
static int dp_ethdev_between_callbacks(int (*fn)(struct dp_ethdev *dev), struct dp_ethdev *dev,
				       unsigned int wait_ms, int *ret)
{
	struct dp_ethdev_intr_call c = { .fn = fn, .dev = dev };
	uint64_t end = dp_tsc_ns() + (uint64_t)wait_ms * DP_NS_PER_MS;
	int set;

	if (dp_eal_intr_held()) {
		*ret = fn(dev);
		return 0;
	}
	set = rte_eal_alarm_set(1, dp_ethdev_intr_alarm, &c);
	if (set)
		return set;
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) && dp_tsc_ns() < end)
		rte_delay_us_sleep(DP_ETHDEV_INTR_CALL_POLL_US);
	/* Withdrawn if it has not begun; if it has, the cancel waits until it is done. */
	if (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) &&
	    rte_eal_alarm_cancel(dp_ethdev_intr_alarm, &c) > 0)
		return -EBUSY;
	*ret = c.ret;
	return 0;
}

/*
 * Call fn(dev) between the drivers' callbacks where the caller cannot try
 * again later (a failed set-up, a close): when the EAL interrupt thread
 * stays busy for DP_ETHDEV_INTR_WAIT_MS, in this thread, with a warning,
 * as dp_ethdev_close_all does when it cannot hold it. What fn returned.
 */
static int dp_ethdev_between_callbacks_or_here(int (*fn)(struct dp_ethdev *dev),
					       struct dp_ethdev *dev, const char *what)
{
	int ret, set = dp_ethdev_between_callbacks(fn, dev, DP_ETHDEV_INTR_WAIT_MS, &ret);

	if (!set)
		return ret;
	if (set == -EBUSY)
		DP_LOG(dp_ethdev_logtype, WARNING,
		       "port %s: the EAL interrupt thread stayed busy for %u ms: %s it here, while its driver's callbacks may run",
		       dev->name, DP_ETHDEV_INTR_WAIT_MS, what);
	else
		DP_LOG(dp_ethdev_logtype, WARNING,
		       "port %s: cannot set an EAL alarm (%s): %s it here, while its driver's callbacks may run",
		       dev->name, rte_strerror(-set), what);
	return fn(dev);
}

/* The socket of a memif device (its socket devarg, or memif's default) into buf. */
static const char *dp_ethdev_memif_socket(const struct rte_eth_dev_info *info, char *buf,
					  size_t len)
{
	struct rte_kvargs *kv = dp_ethdev_kvargs(info);
	const char *sock = kv ? rte_kvargs_get(kv, "socket") : NULL;

	snprintf(buf, len, "%s", sock ? sock : DP_MEMIF_DEFAULT_SOCKET);
	rte_kvargs_free(kv);
	return buf;
}

/*
 * dev, a memif client, did not start (ret): its server is not there yet.
 * Leave it stopped, its link down, for dp_ethdev_watch to start.
 */
static void dp_ethdev_start_later(struct dp_ethdev *dev, const struct rte_eth_dev_info *info,
				  int ret)
{
	char sock[PATH_MAX];

	dev->stopped = true;
	DP_LOG(dp_ethdev_logtype, NOTICE,
	       "port %s: cannot start yet (%s): no memif server at %s; link down, the device is started again after %u ms, then at doubling intervals up to %u ms, until its server answers",
	       dev->name, rte_strerror(-ret), dp_ethdev_memif_socket(info, sock, sizeof(sock)),
	       DP_ETHDEV_RESTART_FIRST_MS, DP_ETHDEV_RESTART_MAX_MS);
}

/*
 * dev did not start (ret): say why, naming the server a memif client did
 * not find (its driver's own error is EPERM, "Operation not permitted"),
 * or what af_packet needs when it may not set its interface's flags
 * (EPERM without CAP_NET_ADMIN: the start sets promiscuous mode as asked).
 */
static void dp_ethdev_start_error(const struct dp_ethdev *dev,
				  const struct rte_eth_dev_info *info, int ret, char *err,
				  size_t errlen)
{
	char sock[PATH_MAX];

	if (dev->watch.policy == DP_ETHDEV_LINK_RESTART)
		snprintf(err, errlen,
			 "port %s: cannot start: no memif server at %s (%s): a memif client connects to its server when it starts: start the server first, or let the program wait for it (nicd does)",
			 dev->name, dp_ethdev_memif_socket(info, sock, sizeof(sock)),
			 rte_strerror(-ret));
	else if (ret == -EPERM && info->driver_name && dp_afp_named(info->driver_name))
		snprintf(err, errlen, "port %s: cannot start: %s: " DP_AFP_PRIV_HINT, dev->name,
			 rte_strerror(-ret));
	else
		snprintf(err, errlen, "port %s: cannot start: %s", dev->name, rte_strerror(-ret));
}

/* Promiscuous mode on started device id if dev->conf asks (on failure, the caller stops it). */
static int dp_ethdev_promiscuous(const struct dp_ethdev *dev, uint16_t id, char *err,
				 size_t errlen)
{
	int ret;

	/* A stopped device keeps the mode: rte_eth_dev_start restores it. */
	if (!dev->conf.promiscuous)
		return 0;
	ret = rte_eth_promiscuous_enable(id);
	if (!ret || ret == -ENOTSUP)
		return 0;
	snprintf(err, errlen, "port %s: cannot enable promiscuous mode: %s", dev->name,
		 rte_strerror(-ret));
	return ret;
}

/*
 * Stop dev, started by a set-up that then failed (why, -errno), as a
 * restart stops it: between the drivers' callbacks, since a memif client
 * whose link is not up yet may be in the handshake its start began, and
 * with what its receive queues took in since the start freed (net_ring
 * keeps it; the caller forgets the device, so nothing would read it).
 * Stopped by a signal, the process ends: its peer may be stopping too,
 * and the interrupt thread is held for good first (the stop then runs
 * here).
 */
static void dp_ethdev_start_undo(struct dp_ethdev *dev, int why)
{
	int ret;

	if (why == -EINTR)
		dp_eal_intr_hold(DP_ETHDEV_INTR_WAIT_MS);
	ret = dp_ethdev_between_callbacks_or_here(dp_ethdev_stop_flushed, dev, "stopping");
	dev->stopped = true;
	if (ret)
		DP_LOG(dp_ethdev_logtype, WARNING, "port %s: stop failed: %s", dev->name,
		       rte_strerror(-ret));
}

/*
 * Start the device (a memif client whose server is not there yet is left
 * stopped when conf->late_peer says so), promiscuous mode, link; on
 * failure it is stopped again.
 */
static int dp_ethdev_start(struct dp_ethdev *dev, const struct dp_ethdev_conf *conf,
			   const struct rte_eth_dev_info *info, char *err, size_t errlen)
{
	int ret = rte_eth_dev_start(dev->port_id);

	if (ret && conf->late_peer && dev->watch.policy == DP_ETHDEV_LINK_RESTART) {
		dp_ethdev_start_later(dev, info, ret);
		ret = 0;
	} else if (ret) {
		dp_ethdev_start_error(dev, info, ret, err, errlen);
		return ret;
	} else {
		ret = dp_ethdev_promiscuous(dev, dev->port_id, err, errlen);
	}
	if (!ret)
		ret = dp_ethdev_wait_link(dev, conf->link_wait_ms, err, errlen);
	if (ret && !dev->stopped)
		dp_ethdev_start_undo(dev, ret);
	return ret;
}

/*
 * Configure device id, as name, for dev->conf with receive buffers from
 * dev->mp: queues and MTU (dev->mtu_note says why not a larger one asked
 * for). info is read; *set_mtu false for a lax driver, whose MTU segnet
 * leaves alone.
 */
static int dp_ethdev_prepare(struct dp_ethdev *dev, uint16_t id, const char *name,
			     struct rte_eth_dev_info *info, bool *set_mtu, char *err,
			     size_t errlen)
{
	struct rte_eth_conf ec;
	uint16_t mtu;
	int ret = rte_eth_dev_info_get(id, info);

	if (ret) {
		snprintf(err, errlen, "port %s: cannot read device information: %s",
			 name, rte_strerror(-ret));
		return ret;
	}
	ret = dp_ethdev_check_queues(name, &dev->conf, info, err, errlen);
	if (ret)
		return ret;
	memset(&ec, 0, sizeof(ec));
	ret = dp_ethdev_plan_rx(name, info, dev->mp, &ec, set_mtu, err, errlen);
	if (ret)
		return ret;
	dev->mtu_note[0] = '\0';
	mtu = dp_ethdev_plan_mtu(info, dev->mp, *set_mtu,
				 !*set_mtu && dev->conf.mtu_one_ctag ? dev->conf.mtu_one_ctag :
				 dev->conf.mtu, &ec, dev->mtu_note, sizeof(dev->mtu_note));
	dev->socket = rte_eth_dev_socket_id(id);
	ret = dp_ethdev_configure(name, id, &dev->conf, &ec, dev->socket, dev->mp, err, errlen);
	if (!ret && *set_mtu)
		ret = dp_ethdev_set_mtu(name, id, mtu, dev, err, errlen);
	return ret;
}

/* The MTU and frame limit of dev, set up on the device described by info. */
static void dp_ethdev_settle(struct dp_ethdev *dev, const struct rte_eth_dev_info *info,
			     bool set_mtu)
{
	if (!set_mtu || rte_eth_dev_get_mtu(dev->port_id, &dev->mtu))
		dev->mtu = DP_ETHDEV_MTU;
	dev->limit = dp_ethdev_limit(info, set_mtu, dev->mtu);
}

/* Keep what creates vdev (its devargs args) again, for the watch; 0 or -ENOMEM. */
static int dp_ethdev_keep_vdev(struct dp_ethdev *dev, const char *vdev, const char *args,
			       char *err, size_t errlen)
{
	snprintf(dev->vdev, sizeof(dev->vdev), "%s", vdev);
	dev->vdev_args = strdup(args ? args : "");
	if (dev->vdev_args)
		return 0;
	snprintf(err, errlen, "port %s: out of memory", dev->name);
	return -ENOMEM;
}

/*
 * name is a virtio-user client the EAL could not create (its vhost-user
 * server is not there yet, late_peer): leave it unplugged, its link down,
 * for dp_ethdev_watch to create with back-off.
 */
static int dp_ethdev_setup_unplugged(const char *name, struct dp_ethdev *out, char *err,
				     size_t errlen)
{
	const struct rte_devargs *da = dp_ethdev_vdev_given(name);
	struct rte_kvargs *kv;
	const char *path;
	int ret;

	if (!da)
		return -ENODEV;
	ret = dp_ethdev_keep_vdev(out, da->name, da->args, err, errlen);
	if (ret)
		return ret;
	out->unplugged = out->stopped = true;
	out->socket = SOCKET_ID_ANY;
	out->mtu = DP_ETHDEV_MTU;
	out->watch.policy = DP_ETHDEV_LINK_REPLUG;
	kv = dp_ethdev_parse_args(out->vdev_args);
	path = kv ? rte_kvargs_get(kv, "path") : NULL;
	DP_LOG(dp_ethdev_logtype, NOTICE,
	       "port %s: not created yet: %s vhost-user server at %s (a virtio-user client connects only when created); link down, the device is created again after %u ms, then at doubling intervals up to %u ms, until its server answers",
	       name, dp_ethdev_is_deferred(name) ? "no answer from the" : "no", path ? path : "(no path=)",
	       DP_ETHDEV_RESTART_FIRST_MS, DP_ETHDEV_RESTART_MAX_MS);
	rte_kvargs_free(kv);
	err[0] = '\0';
	ret = dp_ethdev_wait_link(out, out->conf.link_wait_ms, err, errlen);
	if (ret)
		dp_ethdev_close(out);
	return ret;
}

int dp_ethdev_setup(const char *name, const struct dp_ethdev_conf *conf,
		    struct rte_mempool *mp, struct dp_ethdev *out,
		    char *err, size_t errlen)
{
	struct rte_eth_dev_info info;
	bool set_mtu;
	uint16_t id;
	int ret;

	memset(out, 0, sizeof(*out));
	out->port_id = RTE_MAX_ETHPORTS;
	ret = dp_ethdev_find(name, &id, err, errlen);
	if (ret && ret != -ENOTCONN)
		return ret;
	if (!mp) {
		snprintf(err, errlen, "port %s: no mempool for its receive buffers", name);
		return -EINVAL;
	}
	out->conf = *conf;
	out->mp = mp;
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->watch.log.interval_ns = 10ull * NS_PER_S;
	out->watch.log.burst = 1;
	out->watch.silent_log = out->watch.log;
	if (ret)
		return conf->late_peer ? dp_ethdev_setup_unplugged(name, out, err, errlen) : ret;
	ret = dp_ethdev_prepare(out, id, name, &info, &set_mtu, err, errlen);
	if (ret)
		return ret;
	/* The start and the link wait use what the watch does. */
	out->port_id = id;
	out->watch.policy = dp_ethdev_link_policy(&info);
	if (out->watch.policy == DP_ETHDEV_LINK_REPLUG)
		ret = dp_ethdev_keep_vdev(out, rte_dev_name(info.device),
					  dp_ethdev_vdev_args(&info), err, errlen);
	if (!ret)
		ret = dp_ethdev_start(out, conf, &info, err, errlen);
	if (ret && out->watch.policy == DP_ETHDEV_LINK_REPLUG) {
		/* The link wait may have created it again: that device is ours to close. */
		dp_ethdev_close(out);
		return ret;
	}
	if (ret) {
		free(out->vdev_args);
		out->vdev_args = NULL;
		out->port_id = RTE_MAX_ETHPORTS;
		return ret;
	}
	dp_ethdev_settle(out, &info, set_mtu);
	DP_LOG(dp_ethdev_logtype, INFO,
	       "port %s (%u, %s): %u rx / %u tx queues, MTU %u, socket %d, link %s %u Mb/s%s",
	       name, out->port_id, info.driver_name, conf->rx_queues, conf->tx_queues, out->mtu,
	       out->socket, out->link_up ? "up" : "down", out->link_speed_mbps,
	       out->stopped ? ", not started yet" : "");
	return 0;
}

/*
 * Take dev's received frames (some drivers, ring, keep them past close),
 * then stop it; how many it took.
 */
static uint64_t dp_ethdev_stop_drained(struct dp_ethdev *dev)
{
	uint64_t freed = dp_ethdev_drain(dev->port_id);
	int ret = rte_eth_dev_stop(dev->port_id);

	if (ret)
		DP_LOG(dp_ethdev_logtype, WARNING, "port %s: stop failed: %s", dev->name,
		       rte_strerror(-ret));
	return freed;
}

/*
 * True when the driver of device id keeps received frames in its queues
 * past close: net_ring, whose rings hold the frames a sender put there and
 * are freed without them. Others are closed stopped as they are: af_packet
 * and memif take a buffer only when a frame is read, and starting a memif
 * or virtio-user client would connect it to its server again.
 */
static bool dp_ethdev_keeps_frames(uint16_t id)
{
	struct rte_eth_dev_info info;

	return !rte_eth_dev_info_get(id, &info) && info.driver_name &&
	       !strcmp(info.driver_name, "net_ring");
}

/*
 * Start dev, left stopped, so that its receive queues can be drained:
 * DPDK 22.11 reads no queue of a stopped port (its dummy burst function
 * returns nothing). False, with a warning, when it does not start.
 */
static bool dp_ethdev_start_to_drain(struct dp_ethdev *dev)
{
	int ret = rte_eth_dev_start(dev->port_id);

	if (ret)
		DP_LOG(dp_ethdev_logtype, WARNING,
		       "port %s: cannot start it to free what its receive queues hold (%s): those frames stay out of their pool",
		       dev->name, rte_strerror(-ret));
	return !ret;
}

/* The alarm of dev's fence ran: so did every alarm set before it. */
static void dp_ethdev_fence_ran(void *arg)
{
	struct dp_ethdev *dev = arg;

	__atomic_store_n(&dev->watch.fence, DP_ETHDEV_FENCE_RAN, __ATOMIC_RELEASE);
}

/*
 * dev's link was read down: DPDK 22.11's virtio-user driver then sets an
 * alarm (1 us) that reads the device, which must not be removed before it
 * ran. Alarms run in the order they are due: set one due after it.
 */
static void dp_ethdev_fence_set(struct dp_ethdev *dev)
{
	int ret;

	__atomic_store_n(&dev->watch.fence, DP_ETHDEV_FENCE_SET, __ATOMIC_RELEASE);
	ret = rte_eal_alarm_set(1, dp_ethdev_fence_ran, dev);
	if (ret) {
		DP_LOG(dp_ethdev_logtype, WARNING,
		       "port %s: cannot set an alarm (%s): the device is removed without waiting for its driver's",
		       dev->name, rte_strerror(-ret));
		__atomic_store_n(&dev->watch.fence, DP_ETHDEV_FENCE_NONE, __ATOMIC_RELEASE);
	}
}

/* True while dev's fence is set and has not run. */
static bool dp_ethdev_fence_pending(const struct dp_ethdev *dev)
{
	return __atomic_load_n(&dev->watch.fence, __ATOMIC_ACQUIRE) == DP_ETHDEV_FENCE_SET;
}

/* Wait (a while at most) for dev's fence to run, then cancel it: dev may go away. */
static void dp_ethdev_fence_wait(struct dp_ethdev *dev)
{
	for (unsigned int ms = 0; dp_ethdev_fence_pending(dev) && ms < DP_ETHDEV_FENCE_WAIT_MS; ms++)
		rte_delay_us_sleep(1000);
	if (dp_ethdev_fence_pending(dev))
		rte_eal_alarm_cancel(dp_ethdev_fence_ran, dev);
	dev->watch.fence = DP_ETHDEV_FENCE_NONE;
}

/* Close dev's probe, if there is one. */
static void dp_ethdev_probe_end(struct dp_ethdev *dev)
{
	if (!dev->watch.probing)
		return;
	close(dev->watch.probe_fd);
	dev->watch.probing = false;
}

/* What dp_ethdev_close does before stopping dev: wait for its fence, end its probe. */
static void dp_ethdev_close_begin(struct dp_ethdev *dev)
{
	dp_ethdev_fence_wait(dev);
	dp_ethdev_probe_end(dev);
	free(dev->vdev_args);
	dev->vdev_args = NULL;
	dev->unplugged = false;
}

/*
 * Stop dev's device (drained) and close it, for fn of
 * dp_ethdev_between_callbacks: 0, or what the close returned (said).
 */
static int dp_ethdev_stop_close(struct dp_ethdev *dev)
{
	int ret;

	/*
	 * A device a failed restart left stopped is not stopped again, but
	 * one whose close would lose the frames its queues hold (net_ring) is
	 * started to drain them first.
	 */
	if (dev->stopped && dp_ethdev_keeps_frames(dev->port_id) &&
	    dp_ethdev_start_to_drain(dev))
		dev->stopped = false;
	if (!dev->stopped)
		dp_ethdev_stop_drained(dev);
	ret = rte_eth_dev_close(dev->port_id);
	if (ret)
		DP_LOG(dp_ethdev_logtype, WARNING, "port %s: close failed: %s",
		       dev->name, rte_strerror(-ret));
	return ret;
}

/*
 * The stop and the close run between the drivers' callbacks: DPDK 22.11's
 * memif client handles its control channel in the EAL interrupt thread
 * with no lock against its stop, and its close frees the device's data
 * that handler uses.
 */
void dp_ethdev_close(struct dp_ethdev *dev)
{
	if (!dev)
		return;
	dp_ethdev_close_begin(dev);
	if (!rte_eth_dev_is_valid_port(dev->port_id))
		return;
	dp_ethdev_between_callbacks_or_here(dp_ethdev_stop_close, dev, "closing");
	dev->port_id = RTE_MAX_ETHPORTS;
	dev->stopped = false;
}

void dp_ethdev_close_all(struct dp_ethdev *const *devs, unsigned int n)
{
	int ret;

	/* A virtio-user device's fence is an alarm: it must run before the hold. */
	for (unsigned int i = 0; i < n; i++)
		dp_ethdev_close_begin(devs[i]);
	ret = dp_eal_intr_hold(DP_ETHDEV_INTR_WAIT_MS);
	if (ret)
		DP_LOG(dp_ethdev_logtype, WARNING,
		       "the EAL interrupt thread stayed busy (%s): devices closed while their drivers' callbacks may run",
		       rte_strerror(-ret));
	for (unsigned int i = 0; i < n; i++)
		dp_ethdev_close(devs[i]);
}

/*
 * The stop of a restart, between the drivers' callbacks: DPDK 22.11's
 * memif client handles its control channel in the EAL interrupt thread (a
 * peer's hang-up, the handshake a start began) with no lock against its
 * stop, which frees the channel, its queued messages and the regions that
 * handler uses. 0 or -errno with a message; dev->stopped once it stopped
 * (or failed to).
 */
static int dp_ethdev_restart_stop(struct dp_ethdev *dev, char *err, size_t errlen)
{
	int stop, ret = dp_ethdev_between_callbacks(dp_ethdev_stop_flushed, dev,
						 DP_ETHDEV_INTR_CALL_WAIT_MS, &stop);

	if (ret == -EBUSY) {
		snprintf(err, errlen, "port %s: not restarted: the EAL interrupt thread stayed busy for %u ms (in a driver's callback)",
			 dev->name, DP_ETHDEV_INTR_CALL_WAIT_MS);
		return ret;
	}
	if (ret) {
		snprintf(err, errlen, "port %s: not restarted: cannot set an EAL alarm: %s",
			 dev->name, rte_strerror(-ret));
		return ret;
	}
	dev->stopped = true;
	if (stop)
		snprintf(err, errlen, "port %s: cannot stop: %s", dev->name, rte_strerror(-stop));
	return stop;
}

/*
 * The start stays in this thread: it makes a new control channel, which no
 * callback knows until its last step, and its connect waits until the
 * server accepts, which a server in this process does in that thread.
 */
int dp_ethdev_restart(struct dp_ethdev *dev, char *err, size_t errlen)
{
	bool was_stopped = dev->stopped;
	int ret;

	if (!rte_eth_dev_is_valid_port(dev->port_id)) {
		snprintf(err, errlen, "port %s: not set up", dev->name);
		return -ENODEV;
	}
	/* Stopped by a failed restart: stopping again would only log "already stopped". */
	if (!dev->stopped) {
		ret = dp_ethdev_restart_stop(dev, err, errlen);
		if (ret)
			return ret;
	}
	ret = rte_eth_dev_start(dev->port_id);
	if (ret) {
		snprintf(err, errlen, "port %s: cannot start: %s", dev->name, rte_strerror(-ret));
		return ret;
	}
	/* A stopped device's queues cannot be read: what it kept is freed once started. */
	if (was_stopped)
		dp_ethdev_flush(dev);
	dev->stopped = false;
	return 0;
}

/*
 * The link of dev, a device the watch creates again, was read down: stop
 * it (its ports pass nothing; the frames it received are freed, counted,
 * as the re-created device's ports must not get them) and set the fence
 * its removal waits for. The stop stays in this thread: DPDK 22.11's
 * virtio-user client runs nothing in the EAL interrupt thread that its
 * stop touches (no link-state interrupt is asked for; the alarm that read
 * sets only finds no callback to remove).
 */
static void dp_ethdev_replug_down(struct dp_ethdev *dev)
{
	dev->stopped = true;
	dev->watch.stats.rx_flushed_on_restart += dp_ethdev_stop_drained(dev);
	dp_ethdev_fence_set(dev);
}

/* Remove dev's device (stopped): closing it returns its frames to their pool. */
static void dp_ethdev_unplug(struct dp_ethdev *dev)
{
	int ret = rte_eal_hotplug_remove("vdev", dev->vdev);

	if (ret)
		DP_LOG(dp_ethdev_logtype, WARNING, "port %s: cannot remove device %s: %s",
		       dev->name, dev->vdev, rte_strerror(-ret));
	dev->port_id = RTE_MAX_ETHPORTS;
	dev->unplugged = dev->stopped = true;
}

/*
 * Remove dev's device (unless there is none) and create it again with the
 * same devargs, then set it up as before on the same pool and start it:
 * what connects a virtio-user client to its vhost-user server again, as
 * DPDK 22.11's virtio-user driver connects only when it creates the
 * device. 0, or -errno with a message naming the port; dev is then left
 * unplugged and its ports pass nothing until a later attempt succeeds.
 */
static int dp_ethdev_replug(struct dp_ethdev *dev, char *err, size_t errlen)
{
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	bool set_mtu;
	uint16_t id;
	int ret;

	if (!dev->unplugged)
		dp_ethdev_unplug(dev);
	ret = rte_eal_hotplug_add("vdev", dev->vdev, dev->vdev_args);
	if (ret) {
		snprintf(err, errlen, "port %s: cannot create the device again: %s", dev->name,
			 rte_strerror(-ret));
		return ret;
	}
	ret = rte_eth_dev_get_port_by_name(dev->vdev, &id);
	if (ret) {
		snprintf(err, errlen, "port %s: device %s created again has no port", dev->name,
			 dev->vdev);
		goto remove;
	}
	ret = dp_ethdev_prepare(dev, id, dev->name, &info, &set_mtu, err, errlen);
	if (ret)
		goto remove;
	ret = rte_eth_dev_start(id);
	if (ret) {
		snprintf(err, errlen, "port %s: cannot start: %s", dev->name, rte_strerror(-ret));
		goto remove;
	}
	ret = dp_ethdev_promiscuous(dev, id, err, errlen);
	if (ret) {
		/* A virtio-user client: its driver handles nothing in the EAL interrupt thread. */
		rte_eth_dev_stop(id);
		goto remove;
	}
	dev->port_id = id;
	dev->unplugged = dev->stopped = false;
	dp_ethdev_settle(dev, &info, set_mtu);
	/*
	 * Its ports pass frames now: a NIC may join, taking the rate, before
	 * the watch reads the link. Read down (its server gone again), the
	 * driver has set its alarm: the device's removal waits for it.
	 */
	if (!dp_ethdev_read_link(id, &link))
		dp_ethdev_fence_set(dev);
	dev->link_speed_mbps = dp_ethdev_link_mbps(&link);
	return 0;
remove:
	rte_eal_hotplug_remove("vdev", dev->vdev);
	return ret;
}

/* The link of dev went down at now (or was not up yet): start the back-off. */
static void dp_ethdev_link_lost(struct dp_ethdev *dev, uint64_t now)
{
	struct dp_ethdev_watch *w = &dev->watch;

	w->down_since = now;
	w->restarts_before = w->stats.port_restarts;
	w->next_restart = now + DP_ETHDEV_RESTART_FIRST_MS * DP_NS_PER_MS;
	w->backoff = 2 * DP_ETHDEV_RESTART_FIRST_MS * DP_NS_PER_MS;
	if (!dev->link_up)
		return;
	w->stats.link_down++;
	DP_LOG(dp_ethdev_logtype, WARNING, "port %s: link down%s", dev->name,
	       w->policy == DP_ETHDEV_LINK_RESTART ?
	       "; restarting the device until it is up again (its driver does not reconnect by itself)" :
	       w->policy == DP_ETHDEV_LINK_REPLUG ?
	       "; creating the device again until it is up (a virtio-user client connects only when created)" :
	       "");
}

/*
 * The link of dev is up at now after being down since w->down_since. A
 * link that was not up yet at set-up (a handshake under way) is news only
 * when it took restarts.
 */
static void dp_ethdev_link_back(struct dp_ethdev *dev, uint64_t now)
{
	struct dp_ethdev_watch *w = &dev->watch;
	uint64_t restarts = w->stats.port_restarts - w->restarts_before;

	if (w->stats.link_down)
		w->stats.link_up++;
	if (w->stats.link_down || restarts)
		DP_LOG(dp_ethdev_logtype, NOTICE, "port %s: link up %s%.2f s down, %llu restart(s)",
		       dev->name, w->stats.link_down ? "again after " : "after ",
		       (double)(now - w->down_since) / 1e9, (unsigned long long)restarts);
	w->down_since = 0;
}

/* The next attempt after the current back-off, which doubles (up to its maximum). */
static void dp_ethdev_backoff(struct dp_ethdev_watch *w, uint64_t now)
{
	w->next_restart = now + w->backoff;
	w->backoff = RTE_MIN(2 * w->backoff,
			     (uint64_t)DP_ETHDEV_RESTART_MAX_MS * DP_NS_PER_MS);
}

/* An attempt to bring dev's link back failed (err says why): count it, say it now and then. */
static void dp_ethdev_restart_failed(struct dp_ethdev *dev, const char *err, uint64_t now)
{
	struct dp_ethdev_watch *w = &dev->watch;

	w->stats.restart_failed++;
	if (dp_ratelimit_ok(&w->log, now))
		DP_LOG(dp_ethdev_logtype, INFO, "%s (restart %llu, link down for %.1f s; trying again in %.1f s)",
		       err, (unsigned long long)w->stats.port_restarts,
		       (double)(now - w->down_since) / 1e9,
		       (double)(w->next_restart > now ? w->next_restart - now : 0) / 1e9);
}

/*
 * The path= of dev's devargs in path (len bytes); true when the device is
 * to be created only once its vhost-user server answered a probe: a
 * socket, or nothing there yet (a vhost-kernel or vDPA device, path= a
 * character device, is created at once).
 */
static bool dp_ethdev_vhost_path(const struct dp_ethdev *dev, char *path, size_t len)
{
	struct rte_kvargs *kv = dp_ethdev_parse_args(dev->vdev_args);
	const char *p = kv ? rte_kvargs_get(kv, "path") : NULL;
	struct stat st;
	bool probe = p && (stat(p, &st) ? errno == ENOENT : S_ISSOCK(st.st_mode));

	snprintf(path, len, "%s", p ? p : "");
	rte_kvargs_free(kv);
	return probe;
}

/*
 * Remove dev's device and create it again, or, when its server is at a
 * vhost-user socket, ask that server first (dev->watch.probing): the
 * creation waits for the server's replies without a time-out, and would
 * hold the caller as long as the server does not answer (a server that
 * has just started serves its socket only after up to a second, a stopped
 * one never). 0 (created, or asked), or -errno with a message in err.
 */
static int dp_ethdev_replug_or_probe(struct dp_ethdev *dev, uint64_t now, char *err,
				     size_t errlen)
{
	char path[256];
	int fd;

	if (!dev->unplugged)
		dp_ethdev_unplug(dev);
	if (!dp_ethdev_vhost_path(dev, path, sizeof(path)))
		return dp_ethdev_replug(dev, err, errlen);
	fd = dp_vhost_probe_start(path);
	if (fd < 0) {
		snprintf(err, errlen, "port %s: no vhost-user server at %s (%s)", dev->name, path,
			 strerror(-fd));
		return fd;
	}
	dev->watch.probe_fd = fd;
	dev->watch.probe_since = now;
	dev->watch.probing = true;
	return 0;
}

/*
 * An attempt was due while dev's vhost-user server had taken the probe
 * and not answered: count it, keep the probe (one connection, which the
 * server answers when it serves its socket again), and say so once it
 * is silent for longer than a server just started would be, then at
 * most every 10 s.
 */
static void dp_ethdev_server_silent(struct dp_ethdev *dev, uint64_t now)
{
	struct dp_ethdev_watch *w = &dev->watch;
	char path[256];

	w->stats.server_silent++;
	dp_ethdev_backoff(w, now);
	if (now - w->probe_since < (uint64_t)DP_ETHDEV_SILENT_SAY_MS * DP_NS_PER_MS ||
	    !dp_ratelimit_ok(&w->silent_log, now))
		return;
	dp_ethdev_vhost_path(dev, path, sizeof(path));
	DP_LOG(dp_ethdev_logtype, NOTICE,
	       "port %s: the vhost-user server at %s took the connection %.1f s ago and has not answered (stopped?): the device is created once it answers",
	       dev->name, path, (double)(now - w->probe_since) / 1e9);
}

/*
 * dev's vhost-user server was asked whether it answers: once it did,
 * create the device; while it has not, count each attempt that falls due
 * (server_silent); one that closed the connection is a failed attempt.
 * True when it did something.
 */
static bool dp_ethdev_watch_probe(struct dp_ethdev *dev, uint64_t now)
{
	struct dp_ethdev_watch *w = &dev->watch;
	int ret = dp_vhost_probe_answered(w->probe_fd, 0);
	char err[512];

	if (ret == 0) {
		if (now >= w->next_restart)
			dp_ethdev_server_silent(dev, now);
		return false;
	}
	dp_ethdev_probe_end(dev);
	if (ret > 0)
		ret = dp_ethdev_replug(dev, err, sizeof(err));
	else
		snprintf(err, sizeof(err), "port %s: its vhost-user server closed the connection without answering (%s)",
			 dev->name, strerror(-ret));
	if (ret)
		dp_ethdev_restart_failed(dev, err, now);
	return true;
}

/*
 * Restart dev, or create it again (or ask its vhost-user server first),
 * down since w->down_since, and schedule the next attempt; false (nothing
 * done) while a fence holds its removal.
 */
static bool dp_ethdev_watch_restart(struct dp_ethdev *dev, uint64_t now)
{
	struct dp_ethdev_watch *w = &dev->watch;
	char err[512];
	int ret;

	if (dp_ethdev_fence_pending(dev))
		return false;
	if (w->policy == DP_ETHDEV_LINK_REPLUG)
		ret = dp_ethdev_replug_or_probe(dev, now, err, sizeof(err));
	else
		ret = dp_ethdev_restart(dev, err, sizeof(err));
	w->stats.port_restarts++;
	dp_ethdev_backoff(w, now);
	if (ret)
		dp_ethdev_restart_failed(dev, err, now);
	return true;
}

/* Read dev's link for the watch (not a stopped device's: down); true when up. */
static bool dp_ethdev_watch_read(struct dp_ethdev *dev)
{
	struct rte_eth_link link;

	if (dev->stopped)
		return false;
	if (!dp_ethdev_read_link(dev->port_id, &link)) {
		if (dev->watch.policy == DP_ETHDEV_LINK_REPLUG)
			dp_ethdev_replug_down(dev);
		return false;
	}
	dev->link_speed_mbps = dp_ethdev_link_mbps(&link);
	return true;
}

bool dp_ethdev_watch(struct dp_ethdev *dev, uint64_t now)
{
	struct dp_ethdev_watch *w = &dev->watch;
	bool up;

	if (now < w->next_check ||
	    (!dev->unplugged && !rte_eth_dev_is_valid_port(dev->port_id)))
		return false;
	w->next_check = now + DP_ETHDEV_WATCH_MS * DP_NS_PER_MS;
	up = dp_ethdev_watch_read(dev);
	if (up && w->down_since)
		dp_ethdev_link_back(dev, now);
	else if (!up && !w->down_since)
		dp_ethdev_link_lost(dev, now);
	dev->link_up = up;
	if (up || w->policy == DP_ETHDEV_LINK_WAIT)
		return false;
	if (w->probing)
		return dp_ethdev_watch_probe(dev, now);
	if (now < w->next_restart)
		return false;
	return dp_ethdev_watch_restart(dev, now);
}

/* Container of a port. */
static struct dp_ethdev_port *dp_ethdev_of(struct dp_port *port)
{
	return (struct dp_ethdev_port *)port;
}

/* Drop a multi-segment frame: components only handle single segments. */
static void dp_ethdev_drop_multiseg(struct dp_ethdev_port *p, struct rte_mbuf *m)
{
	p->stats.rx_multiseg++;
	if (dp_ratelimit_ok(&p->drop_log, dp_tsc_ns()))
		DP_LOG(dp_ethdev_logtype, WARNING,
		       "port %s: dropped a %u-byte frame in %u segments (%llu so far): receive buffers smaller than the frames?",
		       p->port.name, m->pkt_len, m->nb_segs,
		       (unsigned long long)p->stats.rx_multiseg);
	rte_pktmbuf_free(m);
}

/* Receive a burst, keeping only single-segment frames. */
static uint16_t dp_ethdev_rx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct dp_ethdev_port *p = dp_ethdev_of(port);
	uint16_t got, kept = 0;

	/* A stopped device's queues are DPDK's dummies, which complain. */
	if (unlikely(p->dev->stopped))
		return 0;
	got = rte_eth_rx_burst(p->dev->port_id, p->rxq, pkts, n);

	for (uint16_t i = 0; i < got; i++) {
		if (likely(pkts[i]->nb_segs == 1))
			pkts[kept++] = pkts[i];
		else
			dp_ethdev_drop_multiseg(p, pkts[i]);
	}
	return kept;
}

/* Queue a burst for transmission; returns how many the device took. */
static uint16_t dp_ethdev_tx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct dp_ethdev_port *p = dp_ethdev_of(port);

	if (unlikely(p->dev->stopped))
		return 0;
	return rte_eth_tx_burst(p->dev->port_id, p->txq, pkts, n);
}

/* Free the port (the device stays up: dp_ethdev_close owns it). */
static void dp_ethdev_destroy(struct dp_port *port)
{
	free(dp_ethdev_of(port));
}

/* The link speed its device reported last (it may be created late). */
static double dp_ethdev_tx_gbps(const struct dp_port *port)
{
	return ((const struct dp_ethdev_port *)port)->dev->link_speed_mbps / 1000.0;
}

/* A stopped device's port passes nothing (DPDK's dummy queues). */
static bool dp_ethdev_down(const struct dp_port *port)
{
	return ((const struct dp_ethdev_port *)port)->dev->stopped;
}

/* The ethdev backend of the port interface. */
static const struct dp_port_ops dp_ethdev_ops = {
	.kind = "ethdev",
	.rx = dp_ethdev_rx,
	.tx = dp_ethdev_tx,
	.destroy = dp_ethdev_destroy,
	.tx_gbps = dp_ethdev_tx_gbps,
	.down = dp_ethdev_down,
};

struct dp_port *dp_ethdev_port_create(const struct dp_ethdev *dev, uint16_t rxq,
				      uint16_t txq)
{
	struct dp_ethdev_port *p;

	/* An unplugged device gets the queues of its configuration when created. */
	if (!dev || (!dev->unplugged && !rte_eth_dev_is_valid_port(dev->port_id)) ||
	    rxq >= dev->conf.rx_queues || txq >= dev->conf.tx_queues) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->port.ops = &dp_ethdev_ops;
	if (rxq == txq)
		snprintf(p->port.name, sizeof(p->port.name), "%.38s.q%u", dev->name, rxq);
	else
		snprintf(p->port.name, sizeof(p->port.name), "%.32s.r%u.t%u",
			 dev->name, rxq, txq);
	p->dev = dev;
	p->rxq = rxq;
	p->txq = txq;
	p->drop_log.interval_ns = NS_PER_S;
	p->drop_log.burst = 1;
	return &p->port;
}

int dp_ethdev_port_id(const struct dp_port *port)
{
	const struct dp_ethdev *dev;

	if (!port || port->ops != &dp_ethdev_ops)
		return -1;
	dev = ((const struct dp_ethdev_port *)port)->dev;
	return rte_eth_dev_is_valid_port(dev->port_id) ? dev->port_id : -1;
}

const struct dp_ethdev_port_stats *dp_ethdev_port_stats(const struct dp_port *port)
{
	if (!port || port->ops != &dp_ethdev_ops)
		return NULL;
	return &((const struct dp_ethdev_port *)port)->stats;
}

void dp_ethdev_port_print(FILE *f, const struct dp_port *port)
{
	const struct dp_port *wire = dp_fault_port_inner(port);
	const struct dp_ethdev_port_stats *es = dp_ethdev_port_stats(wire);
	const struct dp_fault_stats *fs = dp_fault_port_stats(port);
	struct dp_counter_set set = dp_port_counters(wire);
	char group[sizeof(port->name) + 8];

	dp_counters_print(f, &set);
	if (es) {
		set = DP_COUNTER_SET(wire->name, dp_ethdev_port_counter_names, es);
		dp_counters_print(f, &set);
	}
	if (fs) {
		snprintf(group, sizeof(group), "%s.fault", port->name);
		set = DP_COUNTER_SET(group, dp_fault_counter_names, fs);
		dp_counters_print(f, &set);
	}
}

int dp_ethdev_devices_fit(unsigned int n, char *err, size_t errlen)
{
	if (n <= RTE_MAX_ETHPORTS)
		return 0;
	snprintf(err, errlen,
		 "the nodes name %u devices, but this DPDK was built for at most %d ports (RTE_MAX_ETHPORTS)",
		 n, RTE_MAX_ETHPORTS);
	return -EINVAL;
}
