/* SPDX-License-Identifier: BSD-3-Clause */
/* What the engine and the simulated ports share, and nobody else. */
#ifndef SEGNET_SIM_PRIV_H
#define SEGNET_SIM_PRIV_H

#include <stdbool.h>

#include "sim.h"

struct sim_port;

/* Queue frame m to reach port at time t; 0 or -ENOMEM. */
int sim_engine_deliver_at(struct sim_engine *eng, uint64_t t,
			  struct sim_port *port, struct rte_mbuf *m);

/* Hand a frame that has arrived to its port's receive queue. */
void sim_port_deliver(struct sim_port *port, struct rte_mbuf *m);

/* The actor that owns port. */
int sim_port_owner(const struct sim_port *port);

#endif
