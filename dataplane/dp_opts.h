/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checked parsing of command-line values for the daemons and tools: every
 * failure writes a message naming the option and the value into err and
 * returns -EINVAL, so a main can print it and exit with status 2.
 */
#ifndef SEGNET_DP_OPTS_H
#define SEGNET_DP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* printf into err; returns -EINVAL. */
int dp_opt_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An unsigned decimal in [min, max] for option opt. */
int dp_opt_ulong(const char *opt, const char *arg, unsigned long min,
		 unsigned long max, unsigned long *out, char *err, size_t errlen);

/* The same, stored in a uint32_t. */
int dp_opt_u32(const char *opt, const char *arg, unsigned long min,
	       unsigned long max, uint32_t *out, char *err, size_t errlen);

/* The same, stored in a uint16_t. */
int dp_opt_u16(const char *opt, const char *arg, unsigned long min,
	       unsigned long max, uint16_t *out, char *err, size_t errlen);

/* A finite decimal number in [min, max] (no spaces, no hex). */
int dp_opt_double(const char *opt, const char *arg, double min, double max,
		  double *out, char *err, size_t errlen);

/* A period in seconds: 0 (off) or a number in [0.001, max]. */
int dp_opt_period(const char *opt, const char *arg, double max, double *out, char *err,
		  size_t errlen);

/* One of two words; *out is true for the first. */
int dp_opt_choice(const char *opt, const char *arg, const char *yes,
		  const char *no, bool *out, char *err, size_t errlen);

#endif
