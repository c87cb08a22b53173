/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of dp_ethdev.c that tests drive with made-up device
 * descriptions (no NIC at hand has a small MTU limit).
 */
#ifndef SEGNET_DP_ETHDEV_PRIV_H
#define SEGNET_DP_ETHDEV_PRIV_H

#include <stdbool.h>

#include <rte_ethdev.h>

/*
 * Choose the MTU and receive offloads for the device described by info so
 * a full BREQ arrives whole, in one mbuf of mp when the device allows: sets
 * ec->rxmode, and *set_mtu when rte_eth_dev_set_mtu must follow. 0, or
 * -EMSGSIZE (MTU limit too small) / -EINVAL with a message naming name.
 */
int dp_ethdev_plan_rx(const char *name, const struct rte_eth_dev_info *info,
		      struct rte_mempool *mp, struct rte_eth_conf *ec,
		      bool *set_mtu, char *err, size_t errlen);

/*
 * The MTU to give the device described by info, planned by
 * dp_ethdev_plan_rx (set_mtu), when a larger one (want) is asked for: want,
 * or as much of it as the device takes (its max_mtu; with receive buffers of
 * mp that cannot hold its frames, what they hold unless it scatters,
 * scatter then set in ec). Sets ec->rxmode.mtu when larger than the segnet
 * MTU; otherwise returns that, and when want was larger says why in note
 * (as for any want on a lax driver, whose MTU segnet does not set).
 */
uint16_t dp_ethdev_plan_mtu(const struct rte_eth_dev_info *info, struct rte_mempool *mp,
			    bool set_mtu, uint16_t want, struct rte_eth_conf *ec,
			    char *note, size_t notelen);

#endif
