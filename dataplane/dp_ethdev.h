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

#include "dp_port.h"

/* How to bring up an ethdev. */
struct dp_ethdev_conf {
	uint16_t rx_queues;		/* receive queues (>= 1) */
	uint16_t tx_queues;		/* transmit queues (>= 1) */
	uint16_t rx_desc;		/* descriptors per receive queue (0 = 1024) */
	uint16_t tx_desc;		/* descriptors per transmit queue (0 = 1024) */
	uint32_t link_wait_ms;		/* wait this long for link up (0 = don't wait) */
	bool promiscuous;		/* accept frames for any MAC */
};

/* An ethdev that is set up and started. */
struct dp_ethdev {
	uint16_t port_id;		/* DPDK port id */
	char name[64];			/* as the user named it */
	int socket;			/* NUMA node of the device, or SOCKET_ID_ANY */
	uint16_t mtu;			/* MTU the port carries (see dp_ethdev_setup) */
	/*
	 * Longest frame the port sends, Ethernet header included: MTU + 14, or
	 * the driver's own limit (af_packet: its slots and the kernel
	 * interface's MTU); 0 when it has none (memif chains buffers). A longer
	 * frame is dropped, by most drivers silently. A VLAN tag counts in.
	 */
	uint32_t max_frame;
	bool link_up;			/* link status after the wait */
	uint32_t link_speed_mbps;	/* link speed, 0 if unknown */
};

/*
 * Find an ethdev by name: a PCI address ("0000:3b:00.0" or "3b:00.0",
 * probed now if the EAL did not probe it at start-up), a vdev name already
 * created with --vdev ("net_memif0"), or a DPDK port number ("0").
 * 0 or -ENODEV with a message naming it (and the ports there are) in err.
 */
int dp_ethdev_find(const char *name, uint16_t *port_id, char *err, size_t errlen);

/*
 * Configure and start the ethdev called name with receive buffers from
 * mp: queues, MTU >= the largest segnet frame (an error naming the port and
 * the MTU it supports if it cannot: -EMSGSIZE), promiscuous mode, optional
 * link wait (an error naming the port when the link stays down:
 * -ETIMEDOUT). 0 or -errno; on failure the device is left stopped. Drivers
 * known to report a frame limit they do not enforce (memif, af_packet in
 * DPDK 22.11) keep their MTU and out->mtu says the segnet MTU. out is
 * filled on failure too (port_id RTE_MAX_ETHPORTS), so dp_ethdev_close on
 * it does nothing.
 */
int dp_ethdev_setup(const char *name, const struct dp_ethdev_conf *conf,
		    struct rte_mempool *mp, struct dp_ethdev *out,
		    char *err, size_t errlen);

/*
 * Stop and close an ethdev set up by dp_ethdev_setup (frees its mbufs, the
 * frames still in its receive queues included). Ports made on it must not
 * be polled any more; destroy them too. A second call does nothing.
 */
void dp_ethdev_close(struct dp_ethdev *dev);

/*
 * A dp_port on receive queue rxq and transmit queue txq of a started ethdev.
 * Several ports may share a device on different queues (e.g. data and
 * control traffic). NULL with errno on failure.
 */
struct dp_port *dp_ethdev_port_create(const struct dp_ethdev *dev, uint16_t rxq,
				      uint16_t txq);

/*
 * Whether n devices fit in the ports this DPDK was built for
 * (RTE_MAX_ETHPORTS: 32 in Debian's); 0, or -EINVAL with a message. Needs
 * no EAL, so option checks can call it.
 */
int dp_ethdev_devices_fit(unsigned int n, char *err, size_t errlen);

/* The DPDK port id under a dp_port made by dp_ethdev_port_create, or -1. */
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
