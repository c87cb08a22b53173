/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK backend of the port interface: a dp_port on one receive and one
 * transmit queue of an ethdev (a PCI NIC bound to vfio-pci, virtio-net,
 * vhost-user, virtio-user, af_packet, memif, ring, null ...). The port is
 * set up for segnet frames: MTU and mbuf size large enough for a full BREQ.
 */
#ifndef SEGNET_DP_ETHDEV_H
#define SEGNET_DP_ETHDEV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "dp_frame_limit.h"
#include "dp_log.h"
#include "dp_mbuf.h"
#include "dp_port.h"

enum {
	/* The MTU dp_ethdev_setup gives a device: a full BREQ without its Ethernet header. */
	DP_ETHDEV_MTU = DP_MAX_FRAME - DP_FRAME_ETH_HDR,
};

/* How to bring up an ethdev. */
struct dp_ethdev_conf {
	uint16_t rx_queues;		/* receive queues (>= 1) */
	uint16_t tx_queues;		/* transmit queues (>= 1) */
	uint16_t rx_desc;		/* descriptors per receive queue (0 = 1024) */
	uint16_t tx_desc;		/* descriptors per transmit queue (0 = 1024) */
	uint32_t link_wait_ms;		/* wait this long for link up (0 = don't wait) */
	bool promiscuous;		/* accept frames for any MAC */
	bool late_peer;			/* a client whose server is not there
					 * yet (memif; virtio-user, which the EAL
					 * could not create) is set up but left
					 * stopped, link down, for
					 * dp_ethdev_watch to start or create;
					 * without it, an error */
	/*
	 * A larger MTU than DP_ETHDEV_MTU to give the device (for longer
	 * frames), as far as it takes one; 0: DP_ETHDEV_MTU.
	 */
	uint16_t mtu;
	/*
	 * The MTU the same frames need where one 802.1Q tag alone adds to the
	 * limit (dp_frame_rule_one_ctag: af_packet, whose MTU segnet cannot
	 * set; what to do is said in dp_ethdev.mtu_note); 0: mtu.
	 */
	uint16_t mtu_one_ctag;
};

#define DP_ETHDEV_LINK_COUNTERS(X) \
	X(link_down, "times the link went down") \
	X(link_up, "times it came back up after going down") \
	X(port_restarts, "stops and starts (or re-creations) to bring the link back") \
	X(restart_failed, "restarts whose start (or creation) failed (the peer not there yet), or not made (the EAL interrupt thread stayed busy)") \
	X(rx_flushed_on_restart, "received frames freed undelivered at a restart or re-creation: they came before it, from the peer or session that went away") \
	X(server_silent, "re-creations put off: the vhost-user server took the connection and had not answered when one was due")

/* Link events of a device and what dp_ethdev_watch did about them. */
struct dp_ethdev_link_stats {
	DP_ETHDEV_LINK_COUNTERS(DP_COUNTER_FIELD)
};

/* Names of struct dp_ethdev_link_stats fields, in order. */
extern const char *const dp_ethdev_link_counter_names[];

/* What dp_ethdev_watch does while a device's link is down, by its driver. */
enum dp_ethdev_link_policy {
	DP_ETHDEV_LINK_WAIT,	/* wait: it comes back by itself (NICs,
				 * af_packet, servers, a virtio-user server) */
	DP_ETHDEV_LINK_RESTART,	/* restart the device until it is up (a memif
				 * client: it connects only when started) */
	DP_ETHDEV_LINK_REPLUG,	/* remove the device and create it again until
				 * it is up (a virtio-user client: it connects
				 * only when created) */
};

/* Where the alarm of dp_ethdev_watch.fence is. */
enum dp_ethdev_fence {
	DP_ETHDEV_FENCE_NONE,		/* none set: nothing to wait for */
	DP_ETHDEV_FENCE_SET,		/* set, not run yet */
	DP_ETHDEV_FENCE_RAN,		/* ran: the driver's alarm before it did too */
};

/* What dp_ethdev_watch keeps between calls (times in ns, as its now). */
struct dp_ethdev_watch {
	uint64_t next_check;		/* when to read the link again */
	uint64_t down_since;		/* when it was first seen down; 0 while up */
	uint64_t next_restart;		/* when to restart the device next */
	uint64_t backoff;		/* wait after that restart before the next one */
	uint64_t restarts_before;	/* stats.port_restarts when it went down */
	enum dp_ethdev_link_policy policy;	/* what to do while it is down */
	/*
	 * DP_ETHDEV_LINK_REPLUG: an EAL alarm set after the link was read
	 * down, queued behind the one the virtio-user driver sets then (it
	 * reads the device's memory); the device is removed only once this
	 * one ran. An enum dp_ethdev_fence, also written by the alarm thread.
	 */
	int fence;
	/*
	 * DP_ETHDEV_LINK_REPLUG with a vhost-user socket: a connection of
	 * its own asks the server whether it answers (dp_vhost_probe), and
	 * the device is created only once it did; probe_fd is open while
	 * probing.
	 */
	bool probing;
	int probe_fd;			/* the probe's socket, while probing */
	uint64_t probe_since;		/* when it connected */
	struct dp_ratelimit log;	/* limits the restart lines */
	struct dp_ratelimit silent_log;	/* limits the lines on a server that does not answer */
	struct dp_ethdev_link_stats stats;	/* link events, restarts */
};

/* An ethdev that is set up and started. */
struct dp_ethdev {
	uint16_t port_id;		/* DPDK port id */
	char name[64];			/* as the user named it */
	int socket;			/* NUMA node of the device, or SOCKET_ID_ANY */
	uint16_t mtu;			/* MTU the port carries (see dp_ethdev_setup) */
	/*
	 * Longest frame the port sends, Ethernet header included: MTU + 14 and
	 * 4 more per VLAN tag, or the driver's own limit (af_packet: its slots,
	 * and the kernel interface's MTU + 14, 4 more for an 802.1Q tag); none
	 * for memif (it chains buffers). A longer frame is dropped, by most
	 * drivers silently.
	 */
	struct dp_frame_limit limit;
	/* why the MTU conf.mtu asked for was not given ("" when it was, or none asked) */
	char mtu_note[320];
	bool link_up;			/* link status after the wait, then as
					 * dp_ethdev_watch last read it */
	bool stopped;			/* left stopped by a failed restart (or
					 * its link went down, for a device the
					 * watch creates again): its ports pass
					 * nothing until one succeeds */
	bool unplugged;			/* no device (port_id RTE_MAX_ETHPORTS):
					 * removed, or the EAL could not create
					 * it; the watch creates it again */
	struct dp_ethdev_conf conf;	/* as set up, to set it up again */
	struct rte_mempool *mp;		/* its receive buffers' pool */
	char vdev[64];			/* a device the watch creates again: its
					 * vdev name ... */
	char *vdev_args;		/* ... and devargs (malloc'd) */
	uint32_t link_speed_mbps;	/* link speed, 0 if unknown */
	struct dp_ethdev_watch watch;	/* dp_ethdev_watch's state */
};

/*
 * Find an ethdev by name: a PCI address ("0000:3b:00.0" or "3b:00.0",
 * probed now if the EAL did not probe it at start-up), a vdev name already
 * created with --vdev ("net_memif0"), or a DPDK port number ("0").
 * 0 or -ENODEV with a message naming it (and the ports there are) in err;
 * for a --vdev its driver did not create, the message names the --vdev
 * argument (one created and since closed is said closed), and a
 * virtio-user client whose vhost-user server is not there
 * (path= missing, or a socket nobody answers on) is -ENOTCONN, with what
 * to do, and an af_packet device this process may not open a socket for
 * (no CAP_NET_RAW) is -EPERM, with what it needs.
 */
int dp_ethdev_find(const char *name, uint16_t *port_id, char *err, size_t errlen);

/*
 * Before the EAL starts (argv: its arguments, *argc of them): ask the
 * vhost-user server of every virtio-user client --vdev (path= a socket,
 * not server=1) whether it answers (dp_vhost_probe), for up to wait_ms in
 * all, and take out of argv the --vdev of each server that took the
 * connection and did not answer: the EAL would create that device by
 * waiting for the server's replies without a time-out, before any signal
 * handler or loop runs. dp_ethdev_defer_register gives them to the EAL
 * afterwards, uncreated, so that dp_ethdev_setup leaves them to the link
 * watch (late_peer). Returns how many were taken out.
 */
int dp_ethdev_defer_silent(int *argc, char **argv, uint32_t wait_ms);

/*
 * Before the EAL starts (argv[1 .. argc-1]: its arguments): refuse a
 * --vdev whose devargs name what is not there, which the driver would
 * refuse only when the EAL creates it: an af_packet device's iface= that
 * names no network interface. 0, or -ENODEV with "--vdev VALUE: iface=NAME:
 * no such network interface" in err (a bad argument: dp_eal_bad_args).
 * dp_eal_init checks it first; a program with work to do before the EAL
 * starts (segnet-replay reads its trace) calls it before that work.
 */
int dp_ethdev_vdev_check(int argc, char **argv, char *err, size_t errlen);

/* After the EAL started: the devargs dp_ethdev_defer_silent took out. 0 or -errno with a message. */
int dp_ethdev_defer_register(char *err, size_t errlen);

/*
 * Queue pairs a --vdev called name will have once created, as its devargs
 * say (queues=, as virtio-user takes it); 1 when they do not say. For a
 * device dp_ethdev_find could not find yet (-ENOTCONN).
 */
uint16_t dp_ethdev_vdev_queues(const char *name);

/*
 * Configure and start the ethdev called name with receive buffers from
 * mp: queues, MTU >= the largest segnet frame (an error naming the port and
 * the MTU it supports if it cannot: -EMSGSIZE), or up to conf->mtu when the
 * device takes it (out->mtu_note says why not), promiscuous mode, optional
 * link wait (an error naming the port when the link stays down:
 * -ETIMEDOUT). A device dp_ethdev_watch restarts or creates again (memif
 * and virtio-user clients) is watched during the wait as in a loop; with
 * conf->late_peer, one that cannot start or was not created (its server
 * is not there yet) is no error but left stopped (out->stopped, link
 * down; a virtio-user client also out->unplugged) for dp_ethdev_watch to
 * start or create with back-off.
 * A name dp_ethdev_find does not find fails as there. 0 or -errno. On
 * failure the device is left stopped, not closed (one found started, set
 * up twice, stays so): one the set-up started, then stopped again
 * (promiscuous mode refused, link still down) is stopped in the EAL
 * interrupt thread, as dp_ethdev_close stops it, and what its receive
 * queues took in meanwhile is freed. Not closed because the device is the
 * EAL's (a --vdev, a probed NIC), which the set-up only configures: a
 * closed ethdev is released and its name finds nothing for the rest of the
 * process, so no set-up could take it again (with other queues, a longer
 * link wait, once its peer is there; the tests do); and a program that
 * gives up loses nothing by it, as dp_eal_cleanup's rte_eal_cleanup
 * removes every device the EAL created (a memif server's socket file too)
 * with the interrupt thread held. The exception is a virtio-user client
 * that failed once configured (its start, promiscuous mode, link wait):
 * the wait may have created it again, a device of the set-up's own, so it
 * is closed. Drivers known to report a
 * frame limit they do not enforce (memif, af_packet in DPDK 22.11) keep
 * their MTU and out->mtu says the segnet MTU. out is filled on failure too
 * (port_id RTE_MAX_ETHPORTS), so dp_ethdev_close on it does nothing.
 */
int dp_ethdev_setup(const char *name, const struct dp_ethdev_conf *conf,
		    struct rte_mempool *mp, struct dp_ethdev *out,
		    char *err, size_t errlen);

/*
 * Stop and close an ethdev set up by dp_ethdev_setup (frees its mbufs, the
 * frames still in its receive queues included, also those of a net_ring
 * device a failed restart left stopped, which is started again to free
 * them; first waits, up to a second, for a virtio-user driver's alarm
 * after its link went down). The stop and the close run in the EAL
 * interrupt thread, between the drivers' callbacks (DPDK 22.11's memif
 * client handles its control channel there with no lock against them):
 * not to be called from that thread. When it stays busy for a second, or
 * no alarm can be set, they run in the calling thread, with a warning;
 * once it is held (dp_ethdev_close_all, dp_eal_intr_hold), there at once.
 * Ports made on it must not be polled any more; destroy them too. A second
 * call does nothing.
 */
void dp_ethdev_close(struct dp_ethdev *dev);

/*
 * Close devs[0 .. n-1] as dp_ethdev_close does, at the end of the process
 * (whenever a signal stopped it, set-up included, while a memif peer may
 * be stopping too): first the EAL interrupt thread is held for good
 * (dp_eal_intr_hold), so that no driver callback runs while the devices
 * stop and close (in the calling thread), nor after. DPDK 22.11's memif driver, stopped in that
 * thread by its peer's hang-up and in this one by the stop, frees its
 * regions twice; and it never unregisters its listening socket's
 * callback, which a connection after the close ran on freed memory.
 */
void dp_ethdev_close_all(struct dp_ethdev *const *devs, unsigned int n);

/*
 * Stop the device and start it again (its queues, MTU and promiscuous mode
 * stay as set up): what brings back the link of a memif client whose
 * server restarted, as DPDK 22.11's memif driver connects only in
 * rte_eth_dev_start. What its receive queues hold from before is freed,
 * not delivered, and counted (rx_flushed_on_restart): net_ring and
 * af_packet keep it across a stop and start. The stop runs in the EAL
 * interrupt thread, between the drivers' callbacks (memif handles its
 * control channel there, with no lock against its stop): not to be called
 * from that thread (once it is held, dp_eal_intr_hold, in the calling
 * one). 0, or -errno with a message naming the port: -EBUSY when that
 * thread stayed busy for 100 ms (a long callback), the device then as it
 * was; otherwise it is left stopped (dev->stopped) and its ports receive
 * and send nothing until a later restart succeeds.
 */
int dp_ethdev_restart(struct dp_ethdev *dev, char *err, size_t errlen);

/*
 * Watch dev's link at now (ns): read it every 10 ms, count and log when it
 * goes down and when it comes back. While it is down, what
 * dev->watch.policy says (dp_ethdev_setup sets it from the driver): wait;
 * restart the device after 100 ms, then at doubling intervals up to 2 s,
 * until the link is up (memif client, also one that set-up left stopped
 * for a server not there yet: a link that was never up counts no
 * link_down); or, the same way, stop the device, remove it and create it
 * again with the same devargs, configuration and pool (virtio-user
 * client, also one the EAL could not create; dev->port_id may change,
 * and its ports follow it). A virtio-user client whose path= is a socket
 * is created only once its vhost-user server answered a request of the
 * watch's own (dp_vhost_probe), looked for at each call without waiting:
 * the driver waits for the server's answers without a time-out, so no
 * call waits for a server just started or one that never answers (its
 * silence is counted in server_silent). True when it restarted,
 * re-created or asked about the device. Call it from the thread that
 * polls dev's ports.
 */
bool dp_ethdev_watch(struct dp_ethdev *dev, uint64_t now);

/*
 * A dp_port on receive queue rxq and transmit queue txq of an ethdev set
 * up (started, or left for the watch: rxq and txq within its
 * configuration). Several ports may share a device on different queues
 * (e.g. data and control traffic). The port reads dev at each burst
 * (dev->stopped, dev->port_id, which the watch may change): dev must stay
 * where it is as long as the port exists. NULL with errno on failure.
 */
struct dp_port *dp_ethdev_port_create(const struct dp_ethdev *dev, uint16_t rxq,
				      uint16_t txq);

/*
 * Whether n devices fit in the ports this DPDK was built for
 * (RTE_MAX_ETHPORTS: 32 in Debian's); 0, or -EINVAL with a message. Needs
 * no EAL, so option checks can call it.
 */
int dp_ethdev_devices_fit(unsigned int n, char *err, size_t errlen);

/*
 * The DPDK port id under a dp_port made by dp_ethdev_port_create (now: the
 * watch may create its device again under another), or -1 (none now).
 */
int dp_ethdev_port_id(const struct dp_port *port);

#define DP_ETHDEV_PORT_COUNTERS(X) \
	X(rx_multiseg, "multi-segment frames dropped on receive")

/* Drops of an ethdev port beyond the generic port counters. */
struct dp_ethdev_port_stats {
	DP_ETHDEV_PORT_COUNTERS(DP_COUNTER_FIELD)
};

/* Names of struct dp_ethdev_port_stats fields, in order. */
extern const char *const dp_ethdev_port_counter_names[];

/* The backend counters of an ethdev port, or NULL for another kind. */
const struct dp_ethdev_port_stats *dp_ethdev_port_stats(const struct dp_port *port);

/*
 * Print a daemon's port's non-zero counters to f: the port's and its
 * ethdev's. Behind fault injection (--fault) those of the wrapped port, the
 * wire, then the faults' as "NAME.fault.COUNTER".
 */
void dp_ethdev_port_print(FILE *f, const struct dp_port *port);

#endif
