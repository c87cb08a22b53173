/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the dataplane, fabric and simulator tests: the array port and
 * EAL set-up of tests/common/array_port.h (shared with the fuzz harnesses)
 * with Criterion assertions, and a frame pool.
 */
#ifndef SEGNET_TEST_DP_UTIL_H
#define SEGNET_TEST_DP_UTIL_H

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mempool.h>

#include "tests/common/array_port.h"

/*
 * Start the EAL once in this process: each Criterion test runs in its own
 * process, so a suite's .init calls this.
 */
static inline void tdp_eal_init(void)
{
	if (tdp_eal_start() < 0)
		cr_assert_fail("rte_eal_init failed");
}

/* A frame pool of n mbufs (the test fails if it cannot be made). */
static inline struct rte_mempool *tdp_pool(const char *name, unsigned int n)
{
	struct rte_mempool *mp = dp_pool_create(name, n, SOCKET_ID_ANY);

	cr_assert_not_null(mp, "dp_pool_create(%s, %u) failed", name, n);
	return mp;
}

/* A new array port holding up to cap frames each way. */
static inline struct dp_port *tport_create(const char *name, unsigned int cap)
{
	struct dp_port *port = tport_new(name, cap);

	cr_assert_not_null(port);
	return port;
}

/* Queue frame m for the next rx of port. */
static inline void tport_push(struct dp_port *port, struct rte_mbuf *m)
{
	cr_assert(tport_queue(port, m), "array port %s: rx queue full", port->name);
}

/* Encode p into a new frame from mp (the test fails if it cannot). */
static inline struct rte_mbuf *tdp_encode(struct rte_mempool *mp,
					  const struct proto_pkt *p)
{
	int rc;
	struct rte_mbuf *m = tdp_frame(mp, p, &rc);

	cr_assert(m || rc, "pool %s is empty", mp->name);
	cr_assert_not_null(m, "proto_encode(type %u) = %d", p->type, rc);
	return m;
}

#endif
