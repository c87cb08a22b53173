/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters. A component declares its counters once as an X-macro list; the
 * same list gives the struct fields and the names that telemetry and the
 * exit summary print. Each polling component owns its counters (one core
 * writes them), so no atomics are needed; readers on other cores may see a
 * value one update old.
 */
#ifndef SEGNET_DP_COUNTERS_H
#define SEGNET_DP_COUNTERS_H

#include <stdint.h>
#include <stdio.h>

/* X-macro helpers: X(name, "description"). */
#define DP_COUNTER_FIELD(name, text) uint64_t name;
#define DP_COUNTER_NAME(name, text) #name,

/* A named, read-only view of a block of uint64_t counters. */
struct dp_counter_set {
	const char *group;		/* "switch", "node3", "port.q0" */
	const char *const *names;	/* n counter names */
	const uint64_t *values;		/* n live values */
	unsigned int n;			/* number of counters */
};

/* View of a struct made only of uint64_t fields, named by `names`. */
#define DP_COUNTER_SET(group_, names_, ptr_) \
	((struct dp_counter_set) { .group = (group_), .names = (names_), \
		.values = (const uint64_t *)(ptr_), \
		.n = sizeof(*(ptr_)) / sizeof(uint64_t) })

/* Print the non-zero counters of a set, one "group.name value" per line. */
void dp_counters_print(FILE *f, const struct dp_counter_set *set);

/* Print a set as a JSON object {"name": value, ...} (no trailing newline). */
void dp_counters_json(FILE *f, const struct dp_counter_set *set);

#endif
