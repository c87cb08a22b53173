/* SPDX-License-Identifier: BSD-3-Clause */
/* Mempools sized for segnet frames. */
#include <string.h>

#include "dp_mbuf.h"

_Static_assert(DP_MAX_FRAME <= DP_MBUF_DATA, "mbuf data room too small");

struct rte_mempool *dp_pool_create(const char *name, unsigned int n, int socket)
{
	unsigned int cache = n >= 4096 ? 256 : n / 16;

	return rte_pktmbuf_pool_create(name, n, cache, 0,
				       RTE_PKTMBUF_HEADROOM + DP_MBUF_DATA, socket);
}

struct rte_mbuf *dp_frame_copy(struct rte_mempool *mp, const struct rte_mbuf *m)
{
	struct rte_mbuf *c = dp_frame_alloc(mp, m->data_len);

	if (c)
		memcpy(rte_pktmbuf_mtod(c, void *),
		       rte_pktmbuf_mtod(m, const void *), m->data_len);
	return c;
}
