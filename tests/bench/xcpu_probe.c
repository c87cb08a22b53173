/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xcpu-probe: how long a cache line takes to go from one CPU to another and
 * back, the cost every memif ring (and every shared-memory endpoint) pays
 * per handover. Two threads, pinned to the two CPUs, pass a counter in one
 * cache line back and forth for the given time; the line printed is the
 * median round trip over slices of 10 ms:
 *
 *   xcpu-probe --cpus A,B [--duration SEC]
 *   xcpu-probe: cpus=A,B round_trip_ns=N slices=S
 *
 * On the lab VM this figure is either 50-90 ns or 310-340 ns and switches
 * between the two every few seconds, while one CPU alone keeps its speed:
 * the hypervisor moves the vCPUs between host cores that share a cache and
 * cores that do not. The forwarding benchmarks hand every frame across the
 * two CPUs and have two speeds too, so scripts/bench.sh prints the probe
 * before and after each measurement (doc/performance.md).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dataplane/dp_opts.h"

enum {
	XP_MAX_SLICES = 100000,	/* 10 ms slices: over 16 minutes */
	XP_SLICE_NS = 10000000,
	XP_BATCH = 256,		/* round trips between clock reads */
};

/* The line passed back and forth: odd = the peer's turn, even = ours. */
static struct {
	_Atomic uint64_t ball;
	_Atomic bool stop;
} xp_line __attribute__((aligned(128)));

/* CLOCK_MONOTONIC in ns. */
static uint64_t xp_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Pin the calling thread to cpu; 0 or an errno. */
static int xp_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The peer: answer every odd value with the next even one. */
static void *xp_peer(void *arg)
{
	int rc = xp_pin(*(const int *)arg);

	if (rc) {
		fprintf(stderr, "xcpu-probe: cannot pin to CPU %d: %s\n",
			*(const int *)arg, strerror(rc));
		exit(1);
	}
	while (!atomic_load_explicit(&xp_line.stop, memory_order_relaxed)) {
		uint64_t v = atomic_load_explicit(&xp_line.ball, memory_order_acquire);

		if (v & 1)
			atomic_store_explicit(&xp_line.ball, v + 1, memory_order_release);
	}
	return NULL;
}

/* Ascending order of two doubles, for qsort. */
static int xp_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Parse "A,B" into two CPU numbers; 0 or -EINVAL with a message in err. */
static int xp_parse_cpus(const char *arg, int cpu[2], char *err, size_t errlen)
{
	char a[32], *comma;
	uint32_t v[2];

	snprintf(a, sizeof(a), "%s", arg);
	comma = strchr(a, ',');
	if (!comma)
		return dp_opt_fail(err, errlen, "--cpus: '%s' is not two CPUs such as 0,1", arg);
	*comma = '\0';
	if (dp_opt_u32("--cpus", a, 0, CPU_SETSIZE - 1, &v[0], err, errlen) ||
	    dp_opt_u32("--cpus", comma + 1, 0, CPU_SETSIZE - 1, &v[1], err, errlen))
		return -EINVAL;
	if (v[0] == v[1])
		return dp_opt_fail(err, errlen, "--cpus: '%s' names one CPU twice", arg);
	cpu[0] = (int)v[0];
	cpu[1] = (int)v[1];
	return 0;
}

/* Usage on f. */
static void xp_usage(FILE *f)
{
	fprintf(f,
		"usage: xcpu-probe --cpus A,B [--duration SEC]\n"
		"Round trip of a cache line between CPU A and CPU B (median of 10 ms\n"
		"slices over SEC seconds, default 0.3).\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static double slice_ns[XP_MAX_SLICES];
	double duration = 0.3;
	char err[160];
	int cpu[2] = { -1, -1 }, c, rc;
	unsigned int n = 0;
	uint64_t end;
	pthread_t peer;

	rc = 0;
	while (!rc && (c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			rc = xp_parse_cpus(optarg, cpu, err, sizeof(err));
			break;
		case 'd':
			rc = dp_opt_double("--duration", optarg, 0.01, 1000, &duration,
					   err, sizeof(err));
			break;
		case 'h':
			xp_usage(stdout);
			return 0;
		default:
			xp_usage(stderr);
			return 2;
		}
	}
	if (!rc && optind != argc)
		rc = dp_opt_fail(err, sizeof(err), "unexpected argument '%s'", argv[optind]);
	if (!rc && cpu[0] < 0)
		rc = dp_opt_fail(err, sizeof(err), "--cpus is required");
	if (rc) {
		fprintf(stderr, "xcpu-probe: %s\n", err);
		return 2;
	}
	rc = xp_pin(cpu[0]);
	if (rc) {
		fprintf(stderr, "xcpu-probe: cannot pin to CPU %d: %s\n", cpu[0], strerror(rc));
		return 1;
	}
	rc = pthread_create(&peer, NULL, xp_peer, &cpu[1]);
	if (rc) {
		fprintf(stderr, "xcpu-probe: cannot start the peer thread: %s\n", strerror(rc));
		return 1;
	}
	end = xp_now_ns() + (uint64_t)(duration * 1e9);
	while (n < XP_MAX_SLICES) {
		uint64_t t0 = xp_now_ns(), t, trips = 0;

		if (t0 >= end)
			break;
		do {
			for (int i = 0; i < XP_BATCH; i++) {
				uint64_t v = atomic_load_explicit(&xp_line.ball,
								  memory_order_relaxed);

				atomic_store_explicit(&xp_line.ball, v + 1, memory_order_release);
				while (atomic_load_explicit(&xp_line.ball, memory_order_acquire) == v + 1)
					;
			}
			trips += XP_BATCH;
			t = xp_now_ns();
		} while (t - t0 < XP_SLICE_NS);
		slice_ns[n++] = (double)(t - t0) / (double)trips;
	}
	atomic_store(&xp_line.stop, true);
	pthread_join(peer, NULL);
	qsort(slice_ns, n, sizeof(slice_ns[0]), xp_cmp);
	printf("xcpu-probe: cpus=%d,%d round_trip_ns=%.0f slices=%u\n", cpu[0], cpu[1],
	       n ? slice_ns[n / 2] : 0.0, n);
	return 0;
}
