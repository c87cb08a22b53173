/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON output helpers for the reports of the daemons and tools (no DPDK,
 * so the libsegnet tools use them too).
 */
#ifndef SEGNET_DP_JSON_H
#define SEGNET_DP_JSON_H

#include <stdio.h>

/*
 * Write s to f as a JSON string, quotes included: quotes, backslashes and
 * control characters escaped, and each byte that is not part of a
 * well-formed UTF-8 sequence written as U+FFFD (paths and names may hold
 * anything; the output is always valid JSON).
 */
void dp_json_str(FILE *f, const char *s);

#endif
