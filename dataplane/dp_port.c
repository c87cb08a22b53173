/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared port definitions. */
#include "dp_port.h"

const char *const dp_port_counter_names[] = {
	DP_PORT_COUNTERS(DP_COUNTER_NAME)
};
