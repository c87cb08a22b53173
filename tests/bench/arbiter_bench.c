/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arbiter-bench: decision time and matching size of every arbiter on
 * saturated random request matrices, as CSV. No DPDK: the arbiters are
 * pure C. Matrices are generated before timing starts; doc/arbiters.md
 * gives the method and the figures.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dataplane/dp_opts.h"
#include "switchd/arb.h"

/* Entries in a static array (a macro, as the kernel's ARRAY_SIZE). */
#define BENCH_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum {
	BENCH_MAX_LIST = 32,		/* arbiters, node counts or loads given */
	BENCH_MATRICES = 64,		/* pre-generated matrices per (n, load), cycled */
	BENCH_REPS = 31,		/* timed repetitions; the best is reported */
	BENCH_WARMUP_NS = 2000000,	/* warm-up and calibration per configuration */
	BENCH_SPIN_NS = 200000000,	/* busy time before the first timing: clocks up */
	BENCH_REP_NS = 1000000,		/* one repetition: below a time slice */
	BENCH_QUALITY = 4096,		/* untimed decisions that measure matching size */
	BENCH_FULL = 1000000,		/* load in parts per million: every pair */
	BENCH_EXIT_USAGE = 2,
};

/* Default arbiter specs: every registration, iSLIP and PIM at 1 and 4. */
static const char *const bench_default_specs[] = {
	"lcf", "islip:1", "islip:4", "pim:1", "pim:4", "rr",
	"fifo-drop", "fifo-backpressure", "fifo-outbuf",
};

/* Default node counts. */
static const unsigned int bench_default_nodes[] = { 16, 32, 64, 128 };

/* Default loads in parts per million: each pair with p = 0.5, and full. */
static const unsigned int bench_default_loads[] = { 500000, BENCH_FULL };

/* Node counts and targets the summary line compares LCF against. */
static const struct {
	unsigned int n;		/* nodes */
	double target_ns;	/* decision time to stay under */
} bench_targets[] = { { 16, 150 }, { 64, 2000 } };

/* What to run, from the command line. */
struct bench_opts {
	const char *specs[BENCH_MAX_LIST];	/* arbiter specs */
	unsigned int nspecs;			/* entries in specs */
	unsigned int nodes[BENCH_MAX_LIST];	/* node counts */
	unsigned int nnodes;			/* entries in nodes */
	unsigned int loads[BENCH_MAX_LIST];	/* loads, parts per million */
	unsigned int nloads;			/* entries in loads */
	unsigned long iterations;		/* fixed decisions; 0: timed mode */
	uint64_t seed;				/* matrix and arbiter seed */
	const char *csv;			/* output file; NULL: stdout */
};

/* One measured configuration. */
struct bench_result {
	const char *spec;	/* arbiter spec */
	unsigned int n;		/* nodes */
	unsigned int load;	/* parts per million */
	unsigned long decisions;	/* per repetition */
	double ns_best;		/* lowest mean ns per decision of the repetitions */
	double ns_median;	/* median of the repetitions' means */
	double ns_worst;	/* highest of them */
	double grants_mean;	/* mean grants per decision */
	double outputs_mean;	/* mean distinct targets granted per decision */
};

/* Print the usage text to f. */
static void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: arbiter-bench [options]\n"
		"Time every arbiter's decision on saturated random request matrices; CSV out.\n"
		"  -a, --arbiter SPEC[,SPEC]  arbiters to run (repeatable; default: lcf, islip:1,\n"
		"                             islip:4, pim:1, pim:4, rr, fifo-drop,\n"
		"                             fifo-backpressure, fifo-outbuf)\n"
		"  -n, --nodes N[,N]          node counts, 1..%d (default 16,32,64,128)\n"
		"  -l, --load L[,L]           request probability per pair in [0.000001, 1], or\n"
		"                             'full' (default 0.5,full)\n"
		"  -i, --iterations N         exactly N decisions per configuration, no timing\n"
		"                             columns (deterministic output, for callgrind)\n"
		"  -s, --seed S               matrix and arbiter seed (default 1)\n"
		"  -c, --csv FILE             write the CSV to FILE (default stdout)\n"
		"  -h, --help                 this text\n"
		"Matrices (%d per node count and load) are generated before timing; FIFO\n"
		"arbiters see each row cut to one random requested target (its head of line).\n"
		"Columns: ns_per_decision is the mean over one repetition, best of %d (median\n"
		"and worst follow); grants_mean and outputs_mean (distinct targets granted)\n"
		"come from %d untimed decisions on a fresh instance. Exit 2 on bad arguments.\n"
		"Arbiters:\n", ARB_MAX_NODES, BENCH_MATRICES, BENCH_REPS, BENCH_QUALITY);
	for (const struct arb_ops *const *o = arb_list(); *o; o++)
		fprintf(f, "  %-18s %s\n", (*o)->name, (*o)->help);
}

/* Report a bad argument and return the usage exit code. */
static int __attribute__((format(printf, 1, 2))) bench_bad(const char *fmt, ...)
{
	va_list ap;

	fputs("arbiter-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (try --help)\n", stderr);
	return BENCH_EXIT_USAGE;
}

/* Parse a load: "full" or a probability in [1e-6, 1]; parts per million. */
static int bench_parse_load(const char *s, unsigned int *ppm, char *err, size_t errlen)
{
	double p;

	if (!strcmp(s, "full")) {
		*ppm = BENCH_FULL;
		return 0;
	}
	if (dp_opt_double("--load", s, 1.0 / BENCH_FULL, 1, &p, err, errlen))
		return -EINVAL;
	*ppm = (unsigned int)(p * BENCH_FULL + 0.5);
	return 0;
}

/* Split a comma list into one option's entries; 0 or the exit code. */
static int bench_parse_list(const char *opt, char *list, struct bench_opts *o)
{
	char whole[256], err[256];

	snprintf(whole, sizeof(whole), "%s", list);
	for (char *tok; (tok = strsep(&list, ","));) {
		unsigned long v;
		struct arb *a;

		if (!*tok)
			return bench_bad("%s: '%s' has an empty entry", opt, whole);
		if (!strcmp(opt, "--arbiter")) {
			if (o->nspecs == BENCH_MAX_LIST)
				return bench_bad("--arbiter: more than %d specs", BENCH_MAX_LIST);
			a = arb_create(tok, 1, 0, err, sizeof(err));
			if (!a)
				return bench_bad("--arbiter: %s", err);
			arb_destroy(a);
			o->specs[o->nspecs++] = tok;
		} else if (!strcmp(opt, "--nodes")) {
			if (o->nnodes == BENCH_MAX_LIST)
				return bench_bad("--nodes: more than %d counts", BENCH_MAX_LIST);
			if (dp_opt_ulong("--nodes", tok, 1, ARB_MAX_NODES, &v, err, sizeof(err)))
				return bench_bad("%s", err);
			o->nodes[o->nnodes++] = (unsigned int)v;
		} else {
			if (o->nloads == BENCH_MAX_LIST)
				return bench_bad("--load: more than %d loads", BENCH_MAX_LIST);
			if (bench_parse_load(tok, &o->loads[o->nloads], err, sizeof(err)))
				return bench_bad("%s (or 'full')", err);
			o->nloads++;
		}
	}
	return 0;
}

/* Parse the command line into o; 0, -1 after --help, or the exit code. */
static int bench_parse(int argc, char **argv, struct bench_opts *o)
{
	static const struct option longopts[] = {
		{ "arbiter", required_argument, NULL, 'a' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "load", required_argument, NULL, 'l' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, 's' },
		{ "csv", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	unsigned long v;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->seed = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":a:n:l:i:s:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			ret = bench_parse_list("--arbiter", optarg, o);
			break;
		case 'n':
			ret = bench_parse_list("--nodes", optarg, o);
			break;
		case 'l':
			ret = bench_parse_list("--load", optarg, o);
			break;
		case 'i':
			if (dp_opt_ulong("--iterations", optarg, 1, 1000000000ul, &v, err,
					 sizeof(err)))
				return bench_bad("%s", err);
			o->iterations = v;
			ret = 0;
			break;
		case 's':
			if (dp_opt_ulong("--seed", optarg, 0, ULONG_MAX, &v, err, sizeof(err)))
				return bench_bad("%s", err);
			o->seed = v;
			ret = 0;
			break;
		case 'c':
			o->csv = optarg;
			ret = 0;
			break;
		case 'h':
			bench_usage(stdout);
			return -1;
		case ':':
			if (optopt && optopt != 'h' && strchr("anlisc", optopt))
				return bench_bad("option '-%c' needs an argument", optopt);
			return bench_bad("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				return bench_bad("unknown option '-%c'", optopt);
			return bench_bad("unknown option '%s'", argv[optind - 1]);
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		return bench_bad("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Fill in the defaults of every list not given. */
static void bench_defaults(struct bench_opts *o)
{
	if (!o->nspecs)
		for (size_t k = 0; k < BENCH_LEN(bench_default_specs); k++)
			o->specs[o->nspecs++] = bench_default_specs[k];
	if (!o->nnodes)
		for (size_t k = 0; k < BENCH_LEN(bench_default_nodes); k++)
			o->nodes[o->nnodes++] = bench_default_nodes[k];
	if (!o->nloads)
		for (size_t k = 0; k < BENCH_LEN(bench_default_loads); k++)
			o->loads[o->nloads++] = bench_default_loads[k];
}

/* The matrix generator (splitmix64), apart from the arbiters' PRNG. */
static uint64_t bench_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* The matrices of one (n, load): full rows, and their head-of-line cuts. */
struct bench_set {
	struct arb_req *full[BENCH_MATRICES];	/* every pair with the load */
	struct arb_req *hol[BENCH_MATRICES];	/* one random requested target per row */
};

/* Free what bench_set_make built. */
static void bench_set_free(struct bench_set *set)
{
	for (unsigned int m = 0; m < BENCH_MATRICES; m++) {
		arb_req_destroy(set->full[m]);
		arb_req_destroy(set->hol[m]);
	}
}

/* Generate the matrices of (n, load) from the seed; 0 or -ENOMEM. */
static int bench_set_make(struct bench_set *set, uint16_t n, unsigned int load,
			  uint64_t seed)
{
	uint64_t rng = seed ^ ((uint64_t)n << 32) ^ load;
	static uint16_t row[ARB_MAX_NODES];

	memset(set, 0, sizeof(*set));
	for (unsigned int m = 0; m < BENCH_MATRICES; m++) {
		set->full[m] = arb_req_create(n);
		set->hol[m] = arb_req_create(n);
		if (!set->full[m] || !set->hol[m]) {
			bench_set_free(set);
			return -ENOMEM;
		}
		for (uint16_t i = 0; i < n; i++) {
			uint16_t c = 0;

			for (uint16_t t = 0; t < n; t++) {
				if (load < BENCH_FULL &&
				    bench_rand(&rng) % BENCH_FULL >= load)
					continue;
				arb_req_set(set->full[m], i, t);
				row[c++] = t;
			}
			if (c)
				arb_req_set(set->hol[m], i, row[bench_rand(&rng) % c]);
		}
	}
	return 0;
}

/* Monotonic time in ns. */
static uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * count decisions from slot *slot on, the timed loop; returns the grants
 * made so that the calls cannot be optimised away. Not inlined, so that
 * callgrind --toggle-collect=bench_run counts exactly these decisions.
 */
static uint64_t __attribute__((noinline))
bench_run(struct arb *a, struct arb_req *const *mats, unsigned long count,
	  uint64_t *slot, uint16_t *grant)
{
	uint64_t grants = 0;

	for (unsigned long k = 0; k < count; k++, (*slot)++)
		grants += arb_match(a, mats[*slot % BENCH_MATRICES], *slot, grant);
	return grants;
}

/*
 * Keep the core busy for a while before the first measurement: without it
 * the first configuration of a run measured up to 40 % slow.
 */
static void bench_spin(void)
{
	uint64_t t0 = bench_now_ns();

	while (bench_now_ns() - t0 < BENCH_SPIN_NS)
		;
}

/* Order doubles for qsort. */
static int bench_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * Matching size on a fresh instance, apart from timing so that it is the
 * same in both modes: grants, and distinct targets granted (what can be
 * delivered when several initiators are granted one target).
 */
static void bench_quality(struct arb *a, struct arb_req *const *mats,
			  struct bench_result *r, uint16_t *grant)
{
	uint64_t seen[ARB_MAX_WORDS], grants = 0, outputs = 0;

	for (uint64_t slot = 0; slot < BENCH_QUALITY; slot++) {
		grants += arb_match(a, mats[slot % BENCH_MATRICES], slot, grant);
		memset(seen, 0, sizeof(seen));
		for (uint16_t i = 0; i < a->n; i++) {
			uint16_t t = grant[i];

			if (t == ARB_NONE || (seen[t / 64] >> (t % 64)) & 1)
				continue;
			seen[t / 64] |= 1ull << (t % 64);
			outputs++;
		}
	}
	r->grants_mean = (double)grants / BENCH_QUALITY;
	r->outputs_mean = (double)outputs / BENCH_QUALITY;
}

/* Create the arbiter of spec for n nodes, or print why not. */
static struct arb *bench_arb(const struct bench_opts *o, const char *spec,
			     uint16_t n)
{
	char err[256];
	struct arb *a = arb_create(spec, n, o->seed, err, sizeof(err));

	if (!a)
		fprintf(stderr, "arbiter-bench: %s\n", err);
	return a;
}

/* Measure one configuration into r; 0 or -errno. */
static int bench_one(const struct bench_opts *o, const char *spec,
		     const struct bench_set *set, uint16_t n, struct bench_result *r)
{
	static uint16_t grant[ARB_MAX_NODES];
	struct arb_req *const *mats;
	uint64_t slot = 0, t0, el;
	double sorted[BENCH_REPS];
	struct arb *a;

	a = bench_arb(o, spec, n);
	if (!a)
		return -errno;
	mats = a->ops->fifo ? set->hol : set->full;
	r->spec = spec;
	r->n = n;
	bench_quality(a, mats, r, grant);
	arb_destroy(a);
	a = bench_arb(o, spec, n);
	if (!a)
		return -errno;
	if (o->iterations) {
		r->decisions = o->iterations;
		bench_run(a, mats, o->iterations, &slot, grant);
		arb_destroy(a);
		return 0;
	}
	/* Warm up and calibrate: decisions for one repetition of BENCH_REP_NS. */
	t0 = bench_now_ns();
	r->decisions = 0;
	do {
		bench_run(a, mats, 256, &slot, grant);
		r->decisions += 256;
		el = bench_now_ns() - t0;
	} while (el < BENCH_WARMUP_NS);
	r->decisions = (unsigned long)((double)r->decisions * BENCH_REP_NS / (double)el);
	r->decisions = r->decisions < 100 ? 100 : r->decisions;
	for (int k = 0; k < BENCH_REPS; k++) {
		t0 = bench_now_ns();
		bench_run(a, mats, r->decisions, &slot, grant);
		sorted[k] = (double)(bench_now_ns() - t0) / (double)r->decisions;
	}
	qsort(sorted, BENCH_REPS, sizeof(*sorted), bench_cmp);
	r->ns_best = sorted[0];
	r->ns_median = sorted[BENCH_REPS / 2];
	r->ns_worst = sorted[BENCH_REPS - 1];
	arb_destroy(a);
	return 0;
}

/* A load as given on the command line: "0.5" or "full". */
static const char *bench_load_name(unsigned int ppm, char *buf, size_t len)
{
	if (ppm == BENCH_FULL)
		return "full";
	snprintf(buf, len, "%g", ppm / (double)BENCH_FULL);
	return buf;
}

/* Write the CSV header for the mode. */
static void bench_csv_header(FILE *f, bool timed)
{
	fprintf(f, "arbiter,n,load,decisions,%sgrants_mean,outputs_mean,outputs_per_node\n",
		timed ? "ns_per_decision,ns_median,ns_max," : "");
}

/* Write one CSV row. */
static void bench_csv_row(FILE *f, const struct bench_result *r, bool timed)
{
	char lb[32];

	fprintf(f, "%s,%u,%s,%lu,", r->spec, r->n, bench_load_name(r->load, lb, sizeof(lb)),
		r->decisions);
	if (timed)
		fprintf(f, "%.1f,%.1f,%.1f,", r->ns_best, r->ns_median, r->ns_worst);
	fprintf(f, "%.3f,%.3f,%.4f\n", r->grants_mean, r->outputs_mean,
		r->outputs_mean / r->n);
}

/* The result of spec at (n, load), or NULL. */
static const struct bench_result *bench_find(const struct bench_result *res,
					     size_t nres, const char *spec,
					     unsigned int n, unsigned int load)
{
	for (size_t k = 0; k < nres; k++)
		if (!strcmp(res[k].spec, spec) && res[k].n == n && res[k].load == load)
			return &res[k];
	return NULL;
}

/* Print LCF against its targets, and LCF/iSLIP-4, for one load. */
static void bench_summary(const struct bench_result *res, size_t nres,
			  unsigned int load)
{
	const struct bench_result *l, *s;
	bool any = false;
	char lb[32];

	for (size_t k = 0; k < BENCH_LEN(bench_targets); k++) {
		l = bench_find(res, nres, "lcf", bench_targets[k].n, load);
		if (!l)
			continue;
		if (!any)
			fprintf(stderr, "arbiter-bench: load %s: lcf",
				bench_load_name(load, lb, sizeof(lb)));
		any = true;
		fprintf(stderr, " n=%u %.0f ns (median %.0f; target %.0f ns, %s)",
			l->n, l->ns_best, l->ns_median, bench_targets[k].target_ns,
			l->ns_best <= bench_targets[k].target_ns ? "met" : "MISSED");
	}
	if (!any)
		return;
	fprintf(stderr, "; lcf/islip:4 time ratio");
	for (size_t k = 0; k < nres; k++) {
		if (strcmp(res[k].spec, "lcf") || res[k].load != load)
			continue;
		s = bench_find(res, nres, "islip:4", res[k].n, load);
		if (s)
			fprintf(stderr, " n=%u %.2f", res[k].n, res[k].ns_best / s->ns_best);
	}
	fputc('\n', stderr);
}

/* Parse, then per (n, load) generate matrices and run every arbiter. */
int main(int argc, char **argv)
{
	struct bench_result *res;
	struct bench_opts o;
	struct bench_set set;
	size_t nres = 0;
	bool timed;
	FILE *out = stdout;
	int ret;

	ret = bench_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	bench_defaults(&o);
	timed = !o.iterations;
	res = calloc((size_t)o.nspecs * o.nnodes * o.nloads, sizeof(*res));
	if (!res) {
		fprintf(stderr, "arbiter-bench: out of memory\n");
		return 1;
	}
	if (o.csv) {
		out = fopen(o.csv, "w");
		if (!out) {
			free(res);
			return bench_bad("--csv: cannot write '%s': %s", o.csv, strerror(errno));
		}
	}
	bench_csv_header(out, timed);
	if (timed)
		bench_spin();
	for (unsigned int z = 0; z < o.nnodes; z++) {
		for (unsigned int l = 0; l < o.nloads; l++) {
			if (bench_set_make(&set, (uint16_t)o.nodes[z], o.loads[l], o.seed)) {
				fprintf(stderr, "arbiter-bench: out of memory\n");
				return 1;
			}
			for (unsigned int k = 0; k < o.nspecs; k++) {
				struct bench_result *r = &res[nres++];

				r->load = o.loads[l];
				if (bench_one(&o, o.specs[k], &set, (uint16_t)o.nodes[z], r))
					return 1;
				bench_csv_row(out, r, timed);
				fflush(out);
			}
			bench_set_free(&set);
		}
	}
	if (out != stdout && fclose(out)) {
		fprintf(stderr, "arbiter-bench: --csv: '%s': %s\n", o.csv, strerror(errno));
		return 1;
	}
	for (unsigned int l = 0; timed && l < o.nloads; l++)
		bench_summary(res, nres, o.loads[l]);
	free(res);
	return 0;
}
