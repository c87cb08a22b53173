/* SPDX-License-Identifier: BSD-3-Clause */
/* Printing of counter sets for summaries and scripts. */
#include "dp_counters.h"

void dp_counters_print(FILE *f, const struct dp_counter_set *set)
{
	for (unsigned int i = 0; i < set->n; i++)
		if (set->values[i])
			fprintf(f, "%s.%s %llu\n", set->group, set->names[i],
				(unsigned long long)set->values[i]);
}

void dp_counters_json(FILE *f, const struct dp_counter_set *set)
{
	fputc('{', f);
	for (unsigned int i = 0; i < set->n; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", set->names[i],
			(unsigned long long)set->values[i]);
	fputc('}', f);
}
