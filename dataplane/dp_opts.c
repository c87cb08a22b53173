/* SPDX-License-Identifier: BSD-3-Clause */
/* Checked parsing of command lines. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp_opts.h"

void dp_opt_start(struct dp_opt_parser *p, const struct option *opts, const int *lists,
		  bool eal)
{
	p->opts = opts;
	p->lists = lists;
	p->eal = eal;
	p->groups = NULL;
	p->seen = 0;
	optind = 0;	/* 1 would keep the place in a cluster (-xq) of an earlier parse */
	opterr = 0;	/* dp_opt_next's messages name the option */
}

/*
 * What getopt_long refused (c is '?' or ':'); at is optind before the call.
 * A long option is the argument it consumed; a short one is optopt, from a
 * cluster (-xq) that optind may not have left.
 */
static int dp_opt_refuse(const struct dp_opt_parser *p, int c, char **argv, int at,
			 char *err, size_t errlen)
{
	const char *arg = argv[optind - 1];
	bool is_long = optind - 1 >= at && !strncmp(arg, "--", 2);
	char letter[3] = { '-', (char)optopt, '\0' };
	const char *name = is_long ? arg : letter;
	int len = (int)strcspn(name, "=");

	if (c == ':')
		return dp_opt_fail(err, errlen, "%.*s needs a value (see --help)", len, name);
	if (is_long && optopt)
		return dp_opt_fail(err, errlen, "%.*s takes no value (see --help)", len, name);
	return dp_opt_fail(err, errlen, "%.*s: unknown option (see --help%s)", len, name,
			   p->eal ? "; EAL arguments go before --" : "");
}

/* Index in opts of the option with val c, or -1. */
static int dp_opt_index(const struct option *opts, int c)
{
	for (int i = 0; opts[i].name; i++)
		if (opts[i].val == c)
			return i;
	return -1;
}

/* True when c is in vals (ending in 0; NULL: none). */
static bool dp_opt_in(const int *vals, int c)
{
	for (; vals && *vals; vals++)
		if (*vals == c)
			return true;
	return false;
}

/* Refuse option i when another of a group it is in was given before. */
static int dp_opt_group_check(const struct dp_opt_parser *p, int i, char *err, size_t errlen)
{
	for (const int *const *g = p->groups; g && *g; g++) {
		char names[256] = "";
		size_t len = 0;
		int other = -1;

		if (!dp_opt_in(*g, p->opts[i].val))
			continue;
		for (const int *v = *g; *v; v++) {
			int j = dp_opt_index(p->opts, *v);

			if (j >= 0 && j != i && j < DP_OPT_MAX && (p->seen & (1ull << j)))
				other = j;
		}
		if (other < 0)
			continue;
		for (const int *v = *g; *v && len < sizeof(names); v++) {
			int j = dp_opt_index(p->opts, *v);

			if (j >= 0)
				len += (size_t)snprintf(names + len, sizeof(names) - len, "%s--%s",
							len ? ", " : "", p->opts[j].name);
		}
		return dp_opt_fail(err, errlen, "--%s and --%s do not go together: give one of %s (see --help)",
				   p->opts[other].name, p->opts[i].name, names);
	}
	return 0;
}

/*
 * Refuse option i given by a shorter name (getopt_long takes any unique
 * prefix: --key for --key-file, which another tool's --key may mean, and
 * one that a new option would make ambiguous).
 */
static int dp_opt_whole_name(const struct dp_opt_parser *p, int i, char **argv, char *err,
			     size_t errlen)
{
	/* The option's word: before its value when that came as the next word. */
	bool apart = p->opts[i].has_arg == required_argument && optarg == argv[optind - 1];
	const char *word = argv[optind - (apart ? 2 : 1)];
	size_t len = strcspn(word, "=");

	if (len == strlen(p->opts[i].name) + 2 && !strncmp(word + 2, p->opts[i].name, len - 2))
		return 0;
	return dp_opt_fail(err, errlen, "%.*s: give the whole name, --%s (see --help)",
			   (int)len, word, p->opts[i].name);
}

/*
 * Refuse a value, given as the next word, that is an option ("--key-file
 * --server": the value is missing, not the file --server). A value that
 * starts with "--" is given as --opt=VALUE.
 */
static int dp_opt_value_check(const struct dp_opt_parser *p, int i, char **argv, char *err,
			      size_t errlen)
{
	if (p->opts[i].has_arg != required_argument || optarg != argv[optind - 1] ||
	    strncmp(optarg, "--", 2) || !isalpha((unsigned char)optarg[2]))
		return 0;
	return dp_opt_fail(err, errlen, "--%s needs a value (see --help): %s is an option (a value that starts with -- goes as --%s=VALUE)",
			   p->opts[i].name, optarg, p->opts[i].name);
}

int dp_opt_next(struct dp_opt_parser *p, int argc, char **argv, char *err, size_t errlen)
{
	int at = optind ? optind : 1, i = -1;
	int c = getopt_long(argc, argv, ":h", p->opts, &i);

	if (c == -1)
		return 0;
	if (c == '?' || c == ':')
		return dp_opt_refuse(p, c, argv, at, err, errlen);
	if (i >= 0 && (dp_opt_whole_name(p, i, argv, err, errlen) ||
		       dp_opt_value_check(p, i, argv, err, errlen)))
		return -EINVAL;
	if (i < 0)
		i = dp_opt_index(p->opts, c);	/* -h */
	if (i < 0 || dp_opt_in(p->lists, c))
		return c;
	if (i >= DP_OPT_MAX)
		return dp_opt_fail(err, errlen, "--%s: more than %d options to tell apart",
				   p->opts[i].name, DP_OPT_MAX);
	if (p->seen & (1ull << i))
		return dp_opt_fail(err, errlen, "--%s given twice: give it once (see --help)",
				   p->opts[i].name);
	if (dp_opt_group_check(p, i, err, errlen))
		return -EINVAL;
	p->seen |= 1ull << i;
	return c;
}

bool dp_opt_given(const struct dp_opt_parser *p, int val)
{
	int i = dp_opt_index(p->opts, val);

	return i >= 0 && i < DP_OPT_MAX && (p->seen & (1ull << i));
}

int dp_opt_refuse_given(const struct dp_opt_parser *p, const int *vals, const char *why,
			char *err, size_t errlen)
{
	for (; *vals; vals++)
		if (dp_opt_given(p, *vals))
			return dp_opt_fail(err, errlen, "--%s %s (see --help)",
					   p->opts[dp_opt_index(p->opts, *vals)].name, why);
	return 0;
}

int dp_opt_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Drop the '+' and the leading zeros of the exponent in text: 1e-09 -> 1e-9. */
static void num_short_exponent(char *text)
{
	char *e = strchr(text, 'e'), *to, *from;

	if (!e)
		return;
	to = e + 1;
	from = to + (*to == '+');
	if (*from == '-')
		*to++ = *from++;
	while (from[0] == '0' && from[1])
		from++;
	memmove(to, from, strlen(from) + 1);
}

const char *dp_opt_num(double v, char buf[DP_OPT_NUM_LEN])
{
	double a = fabs(v);
	bool fixed = a == 0 || (a >= 1e-6 && a < 1e15);

	if (v == 0)
		v = 0;	/* no "-0" */
	/* 17 significant digits always read back; under 1 they start up to 6 places in. */
	for (int prec = 0; prec <= 24; prec++) {
		snprintf(buf, DP_OPT_NUM_LEN, fixed ? "%.*f" : "%.*e", prec, v);
		if (!isfinite(v) || strtod(buf, NULL) == v)
			break;
	}
	num_short_exponent(buf);
	return buf;
}

/* What goes between opt and its value in a message: nothing after a KEY= of a spec. */
static const char *opt_sep(const char *opt)
{
	size_t len = strlen(opt);

	return len && opt[len - 1] == '=' ? "" : " ";
}

int dp_opt_ulong(const char *opt, const char *arg, unsigned long min,
		 unsigned long max, unsigned long *out, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || (errno && errno != ERANGE))
		return dp_opt_fail(err, errlen, "%s%s%s: not a whole number from %lu to %lu",
				   opt, opt_sep(opt), arg, min, max);
	/* Digits only, too many for an unsigned long: a whole number all the same. */
	if (errno == ERANGE)
		return dp_opt_fail(err, errlen, "%s%s%s: out of range, must be between %lu and %lu",
				   opt, opt_sep(opt), arg, min, max);
	if (v < min || v > max)
		return dp_opt_fail(err, errlen, "%s%s%s: must be between %lu and %lu",
				   opt, opt_sep(opt), arg, min, max);
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
	char lo[DP_OPT_NUM_LEN], hi[DP_OPT_NUM_LEN];
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	/* Decimal only: strtod also takes leading spaces and hex floats. */
	if (end == arg || *end || isnan(v) || (isinf(v) && errno != ERANGE) ||
	    isspace((unsigned char)arg[0]) || strpbrk(arg, "xX"))
		return dp_opt_fail(err, errlen, "%s%s%s: not a number", opt, opt_sep(opt), arg);
	/* ERANGE: an overflow (HUGE_VAL, refused) or an underflow (0 or nearly: a number). */
	if (errno == ERANGE && fabs(v) > 1)
		return dp_opt_fail(err, errlen, "%s%s%s: out of range", opt, opt_sep(opt), arg);
	if (v < min || v > max)
		return dp_opt_fail(err, errlen, "%s%s%s: must be between %s and %s",
				   opt, opt_sep(opt), arg, dp_opt_num(min, lo), dp_opt_num(max, hi));
	*out = v;
	return 0;
}

int dp_opt_gbps(const char *opt, const char *arg, double *out, char *err, size_t errlen)
{
	return dp_opt_double(opt, arg, DP_OPT_GBPS_MIN, DP_OPT_GBPS_MAX, out, err, errlen);
}

int dp_opt_period(const char *opt, const char *arg, double max, double *out, char *err,
		  size_t errlen)
{
	double v;

	if (dp_opt_double(opt, arg, 0, max, &v, err, errlen))
		return -EINVAL;
	/* A shorter period would round to no period at all in the daemons' ms and ns. */
	if (v > 0 && v < 0.001)
		return dp_opt_fail(err, errlen, "%s%s%s: must be 0 (off) or at least 0.001",
				   opt, opt_sep(opt), arg);
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
		return dp_opt_fail(err, errlen, "%s%s%s: must be %s or %s", opt, opt_sep(opt), arg,
				   yes, no);
	return 0;
}

int dp_opt_output(const char *opt, const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, 0644);

	if (fd >= 0) {
		close(fd);
		if (!unlink(path))
			return 0;
	} else if (errno == EEXIST) {
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
	}
	if (errno == ENXIO)
		return 0;
	return dp_opt_fail(err, errlen, "%s%s%s: cannot be written: %s", opt, opt_sep(opt), path,
			   strerror(errno));
}
