/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checked parsing of command lines for the daemons and tools: every
 * failure writes a message naming the option (and the value) into err and
 * returns -EINVAL, so a main can print it and exit with status 2. A value
 * is quoted as "OPT VALUE: why", or, when OPT ends in '=' (a KEY= inside
 * a spec, "--fault loss="), as "OPT=VALUE: why", the way it was typed.
 */
#ifndef SEGNET_DP_OPTS_H
#define SEGNET_DP_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The daemons' --check in their usage text. */
#define DP_CHECK_USAGE \
	"  --check                 check these arguments (nicd: and its key files;\n" \
	"                          a --capture file is opened for writing) and exit:\n" \
	"                          0 when they are good, 2 with the message if not\n"

/* Options a parser can tell apart: bits of dp_opt_parser.seen. */
enum { DP_OPT_MAX = 64 };

/*
 * A command line of long options (and -h) being parsed with getopt_long:
 * dp_opt_next names what it refuses and refuses a second occurrence of an
 * option that is not a list.
 */
struct dp_opt_parser {
	const struct option *opts;	/* getopt_long's table, ending in a zero entry */
	const int *lists;		/* vals of the options that may repeat, ending in 0 */
	bool eal;			/* EAL arguments go before "--": say so of an unknown option */
	/*
	 * Sets of options of which one may be given (vals, each set ending in
	 * 0; the list ends in NULL), or NULL. dp_opt_start clears it: set it
	 * after. Their options must not be lists.
	 */
	const int *const *groups;
	uint64_t seen;			/* bit i: opts[i] was given */
};

/* Start a parse (getopt_long's state reset, its own messages off); lists may be NULL. */
void dp_opt_start(struct dp_opt_parser *p, const struct option *opts, const int *lists,
		  bool eal);

/*
 * The next option's val (its value in optarg), 0 when only operands are left
 * (argv[optind] on), or -EINVAL with a message in err naming the option as
 * given: unknown, without its value, a second time when it is not a list,
 * or after another of its group.
 */
int dp_opt_next(struct dp_opt_parser *p, int argc, char **argv, char *err, size_t errlen);

/* True when option val (not a list) was on the command line parsed with p. */
bool dp_opt_given(const struct dp_opt_parser *p, int val);

/*
 * Refuse the first option of vals (ending in 0; not lists) that was given,
 * for one that has no effect with the others: -EINVAL with "--NAME WHY" in
 * err; 0 when none of them was given.
 */
int dp_opt_refuse_given(const struct dp_opt_parser *p, const int *vals, const char *why,
			char *err, size_t errlen);

/* Room for dp_opt_num's text, its NUL included. */
enum { DP_OPT_NUM_LEN = 48 };

/*
 * v as a user would type it, for messages: plain decimals, the fewest that
 * read back as v (1000000, 0.5, 0.001), never %g's 1e+06; an exponent
 * (1e-9, 2.5e20) only under 0.000001 or from 10^15 on, where zeros are
 * hard to count. Returns buf.
 */
const char *dp_opt_num(double v, char buf[DP_OPT_NUM_LEN]);

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

/* The link rates every program takes, in Gbit/s: 1 Mbit/s to 1000 Gbit/s. */
#define DP_OPT_GBPS_MIN 0.001
#define DP_OPT_GBPS_MAX 1000.0

/*
 * A link rate in Gbit/s, DP_OPT_GBPS_MIN to DP_OPT_GBPS_MAX, as switchd's
 * --link-gbps, --bulk-gbps, --quick-gbps and nicd's --quick-gbps take it
 * (segnet-sim's rates too).
 */
int dp_opt_gbps(const char *opt, const char *arg, double *out, char *err, size_t errlen);

/* A period in seconds: 0 (off) or a number in [0.001, max]. */
int dp_opt_period(const char *opt, const char *arg, double max, double *out, char *err,
		  size_t errlen);

/*
 * An output file for option opt that is written later (a report after the
 * run): checked now by opening it, since access() says yes to root whatever
 * the file. A file that is there is not truncated, one made for the check
 * is removed, and a FIFO without a reader yet (ENXIO) is no reason to
 * refuse. 0, or -EINVAL with "OPT PATH: cannot be written: why" in err.
 */
int dp_opt_output(const char *opt, const char *path, char *err, size_t errlen);

/* One of two words; *out is true for the first. */
int dp_opt_choice(const char *opt, const char *arg, const char *yes,
		  const char *no, bool *out, char *err, size_t errlen);

#endif
