/* SPDX-License-Identifier: BSD-3-Clause */
/* The stage registry: adding a stage is one file and one line here. */
#include "stages.h"

static const struct stage_ops *const stage_table[] = {
	&stage_genp,
	&stage_timer,
	&stage_build_acks,
	&stage_dup_find,
	&stage_order,
	&stage_rate,
	NULL,
};

const struct stage_registry stage_registry = { .ops = stage_table };
