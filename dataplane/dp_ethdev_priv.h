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

#endif
