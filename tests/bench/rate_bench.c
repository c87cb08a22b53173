/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rate-bench: the rate stage paced by the TSC in a busy-polling loop, as a
 * daemon runs it. For each rate, N packets wait in the stage; the loop ticks
 * the pipeline with dp_tsc_ns() and records when each packet leaves. It
 * reports the achieved rate against the configured one and the error of the
 * gaps between departures (|gap - 1/rate|): mean, p50, p99, max.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/dp_eal.h"
#include "dataplane/dp_opts.h"
#include "dataplane/dp_rank.h"
#include "dataplane/stage.h"
#include "nicd/stages/stages.h"

/* Packets kept waiting in the rate stage during a measurement. */
enum { RB_BACKLOG = 64 };

/* One measurement. */
struct rate_run {
	double pps;		/* configured rate */
	uint32_t n;		/* packets */
	uint64_t *t;		/* departure times */
	uint32_t left;		/* departures still to come */
};

/* Pipeline sink: a packet left. */
static void rb_sink(void *ctx, struct sn_pkt *pkt, uint64_t now)
{
	struct rate_run *r = ctx;

	(void)pkt;
	r->t[r->n - r->left--] = now;
}

/* Unused pipeline callbacks. */
static void rb_deliver(void *ctx, struct sn_pkt *pkt, uint64_t now)
{
	(void)ctx; (void)pkt; (void)now;
}

/* Unused: nothing completes. */
static void rb_complete(void *ctx, struct sn_pkt *pkt, int status, uint64_t now)
{
	(void)ctx; (void)pkt; (void)status; (void)now;
}

/* Unused: the stage allocates nothing. */
static struct sn_pkt *rb_alloc(void *ctx)
{
	(void)ctx;
	return NULL;
}

/* Unused: packets are freed by the benchmark. */
static void rb_release(void *ctx, struct sn_pkt *pkt)
{
	(void)ctx; (void)pkt;
}

/* Order for qsort. */
static int rb_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Measure one rate; prints a line (and a CSV row). 0 or -errno. */
static int rb_measure(double pps, uint32_t n, uint32_t burst, uint32_t catchup_ns, FILE *csv)
{
	struct rate_run r = { .pps = pps, .n = n, .left = n };
	struct pipeline_env env = {
		.ctx = &r, .sink = rb_sink, .deliver = rb_deliver,
		.complete = rb_complete, .alloc = rb_alloc, .release = rb_release,
	};
	struct sn_pkt *pkts = calloc(n, sizeof(*pkts));
	double *err = calloc(n, sizeof(*err)), gap = 1e9 / pps, sum = 0, rate, rerr;
	char spec[96], msg[256];
	struct pipeline *pl;
	uint32_t queued = 0;
	uint64_t now;
	int rc = 0;

	r.t = calloc(n, sizeof(*r.t));
	snprintf(spec, sizeof(spec), "rate:pps=%.0f:burst=%u:catchup_ns=%u", pps, burst, catchup_ns);
	pl = pipeline_create(&stage_registry, spec, 1, 0, 2, &env, msg, sizeof(msg));
	if (!pkts || !err || !r.t || !pl) {
		fprintf(stderr, "rate-bench: %s\n", pl ? "out of memory" : msg);
		rc = pl ? -ENOMEM : -EINVAL;
		goto out;
	}
	/* Touch every page of the record now: a page fault in the loop is a stall. */
	memset(r.t, 0xff, n * sizeof(*r.t));
	for (uint32_t i = 0; i < n; i++) {
		pkts[i].h.flags = PROTO_F_DATA;
		pkts[i].conn = pipeline_conn(pl, 1);
	}
	/*
	 * Keep a few packets waiting, topped up from the loop: queueing all of
	 * them first would take long enough (10^6 packets) to earn the bucket
	 * credit that the measurement would then see spent.
	 */
	while (r.left) {
		now = dp_tsc_ns();
		while (queued < n && queued - (n - r.left) < RB_BACKLOG) {
			struct sn_pkt *p = &pkts[queued++];

			pipeline_tx(pl, &p, 1, now);
		}
		pipeline_tick(pl, now);
	}
	/* The first packet left from pipeline_tx, the rest from the ticks. */
	n--;
	for (uint32_t i = 1; i < n; i++) {
		double g = (double)(r.t[i + 1] - r.t[i]);

		err[i - 1] = g > gap ? g - gap : gap - g;
		sum += err[i - 1];
	}
	qsort(err, n - 1, sizeof(*err), rb_cmp);
	rate = (double)(n - 1) * 1e9 / (double)(r.t[n] - r.t[1]);
	rerr = 100.0 * (rate - pps) / pps;
	printf("%10.0f pps: achieved %12.1f pps (%+.3f%%), gap error mean %.0f p50 %.0f p99 %.0f max %.0f ns\n",
	       pps, rate, rerr, sum / (n - 1), err[dp_rank_index(n - 1, 50)],
	       err[dp_rank_index(n - 1, 99)], err[n - 2]);
	if (csv)
		fprintf(csv, "%.0f,%u,%.1f,%.4f,%.0f,%.0f,%.0f,%.0f\n", pps, n, rate, rerr,
			sum / (n - 1), err[dp_rank_index(n - 1, 50)], err[dp_rank_index(n - 1, 99)],
			err[n - 2]);
out:
	pipeline_destroy(pl);
	free(pkts);
	free(err);
	free(r.t);
	return rc;
}

static const char rb_help[] =
"Usage: rate-bench [--rates R1,R2,...] [--seconds S] [--burst B] [--catchup-ns NS] [--csv FILE]\n"
"Pace packets with the rate stage on the TSC in a busy loop and measure the\n"
"achieved rate and the inter-departure error. Defaults: rates\n"
"1000,10000,100000,1000000 pps, 1 s (at most 10^6 packets) per rate, burst 1,\n"
"catchup-ns 0 (the rate stage's parameters burst and catchup_ns).\n";

/* Most rates one run takes. */
enum { RB_MAX_RATES = 16 };

/* Parse --rates into pps[]; 0 or -EINVAL with a message in err. */
static int rb_parse_rates(char *list, double *pps, unsigned int *n, char *err,
			  size_t errlen)
{
	char *save = NULL;
	int rc;

	*n = 0;
	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == RB_MAX_RATES)
			return dp_opt_fail(err, errlen, "--rates: at most %d rates", RB_MAX_RATES);
		rc = dp_opt_double("--rates", tok, 1, 1e8, &pps[(*n)++], err, errlen);
		if (rc)
			return rc;
	}
	return *n ? 0 : dp_opt_fail(err, errlen, "--rates: give at least one rate");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rates", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "burst", required_argument, NULL, 'b' },
		{ "catchup-ns", required_argument, NULL, 'u' },
		{ "csv", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char rates_buf[256] = "1000,10000,100000,1000000", err[256];
	char prefix[64];
	char *eal[] = { argv[0], "--no-huge", "-m", "64", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--file-prefix", prefix, "--log-level", "*:error", NULL };
	const char *csv_path = NULL;
	double seconds = 1, rates[RB_MAX_RATES];
	unsigned long burst = 1, catchup_ns = 0;
	unsigned int n_rates = 0;
	FILE *csv = NULL;
	int opt, rc = 0;

	while (!rc && (opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			snprintf(rates_buf, sizeof(rates_buf), "%s", optarg);
			break;
		case 's':
			rc = dp_opt_double("--seconds", optarg, 0.001, 3600, &seconds, err, sizeof(err));
			break;
		case 'b':
			rc = dp_opt_ulong("--burst", optarg, 1, 1000000, &burst, err, sizeof(err));
			break;
		case 'u':
			rc = dp_opt_ulong("--catchup-ns", optarg, 0, 1000000000, &catchup_ns,
					  err, sizeof(err));
			break;
		case 'c':
			csv_path = optarg;
			break;
		case 'h':
			fputs(rb_help, stdout);
			return 0;
		default:
			fputs(rb_help, stderr);
			return 2;
		}
	}
	if (!rc && optind != argc)
		rc = dp_opt_fail(err, sizeof(err), "unexpected argument '%s'", argv[optind]);
	if (!rc)
		rc = rb_parse_rates(rates_buf, rates, &n_rates, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "rate-bench: %s\n", err);
		return 2;
	}
	if (csv_path) {
		csv = fopen(csv_path, "w");
		if (!csv) {
			fprintf(stderr, "rate-bench: --csv %s: %s\n", csv_path, strerror(errno));
			return 1;
		}
		fprintf(csv, "pps,packets,achieved_pps,rate_error_pct,gap_err_mean_ns,"
			     "gap_err_p50_ns,gap_err_p99_ns,gap_err_max_ns\n");
	}
	snprintf(prefix, sizeof(prefix), "rate-bench-%d", (int)getpid());
	if (dp_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal, err, sizeof(err)) < 0) {
		fprintf(stderr, "rate-bench: %s\n", err);
		if (csv)
			fclose(csv);
		return 1;
	}
	for (unsigned int i = 0; i < n_rates && !rc; i++) {
		double want = rates[i] * seconds;
		uint32_t n = want > 1e6 ? 1000000 : (want < 100 ? 100 : (uint32_t)want);

		rc = rb_measure(rates[i], n, (uint32_t)burst, (uint32_t)catchup_ns, csv);
	}
	if (csv)
		fclose(csv);
	dp_eal_cleanup();
	return rc ? 1 : 0;
}
