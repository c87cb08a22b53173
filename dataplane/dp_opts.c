/* SPDX-License-Identifier: BSD-3-Clause */
/* Checked parsing of command-line values. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_opts.h"

int dp_opt_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int dp_opt_ulong(const char *opt, const char *arg, unsigned long min,
		 unsigned long max, unsigned long *out, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || errno)
		return dp_opt_fail(err, errlen, "%s %s: not a whole number from %lu to %lu",
				   opt, arg, min, max);
	if (v < min || v > max)
		return dp_opt_fail(err, errlen, "%s %s: must be between %lu and %lu",
				   opt, arg, min, max);
	*out = v;
	return 0;
}

int dp_opt_u32(const char *opt, const char *arg, unsigned long min,
	       unsigned long max, uint32_t *out, char *err, size_t errlen)
{
	unsigned long v;
	int rc = dp_opt_ulong(opt, arg, min, max > UINT32_MAX ? UINT32_MAX : max,
			      &v, err, errlen);

	if (!rc)
		*out = (uint32_t)v;
	return rc;
}

int dp_opt_u16(const char *opt, const char *arg, unsigned long min,
	       unsigned long max, uint16_t *out, char *err, size_t errlen)
{
	unsigned long v;
	int rc = dp_opt_ulong(opt, arg, min, max > UINT16_MAX ? UINT16_MAX : max,
			      &v, err, errlen);

	if (!rc)
		*out = (uint16_t)v;
	return rc;
}

int dp_opt_double(const char *opt, const char *arg, double min, double max,
		  double *out, char *err, size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	/* Decimal only: strtod also takes leading spaces and hex floats. */
	if (end == arg || *end || errno || !isfinite(v) || isspace((unsigned char)arg[0]) ||
	    strpbrk(arg, "xX"))
		return dp_opt_fail(err, errlen, "%s %s: not a number", opt, arg);
	if (v < min || v > max)
		return dp_opt_fail(err, errlen, "%s %s: must be between %g and %g",
				   opt, arg, min, max);
	*out = v;
	return 0;
}

int dp_opt_period(const char *opt, const char *arg, double max, double *out, char *err,
		  size_t errlen)
{
	double v;

	if (dp_opt_double(opt, arg, 0, max, &v, err, errlen))
		return -EINVAL;
	/* A shorter period would round to no period at all in the daemons' ms and ns. */
	if (v > 0 && v < 0.001)
		return dp_opt_fail(err, errlen, "%s %s: must be 0 (off) or at least 0.001",
				   opt, arg);
	*out = v;
	return 0;
}

int dp_opt_choice(const char *opt, const char *arg, const char *yes,
		  const char *no, bool *out, char *err, size_t errlen)
{
	if (!strcmp(arg, yes))
		*out = true;
	else if (!strcmp(arg, no))
		*out = false;
	else
		return dp_opt_fail(err, errlen, "%s %s: must be %s or %s", opt, arg, yes, no);
	return 0;
}
