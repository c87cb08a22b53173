/* SPDX-License-Identifier: BSD-3-Clause */
/* segnet-sim's command line, plan of runs and reporting. */
#ifndef SEGNET_SIM_CLI_H
#define SEGNET_SIM_CLI_H

#include <stdbool.h>

#include "simrun.h"

enum {
	SIM_MAX_LOADS = 100,	/* points of a load sweep */
	SIM_MAX_RUNS = 4096,	/* runs of one invocation */
	SIM_MAX_JOBS = 8,	/* runs in parallel */
	SIM_POOL_MB = 200,	/* memory of one job's frame pool */
};

/* The smallest load: the 1e-6 a sweep is rounded to and the CSV shows. */
#define SIM_MIN_LOAD 1e-6

/* What one run produced. */
struct sim_outcome {
	int rc;				/* 0 or -errno */
	char err[256];			/* message when rc != 0 */
	struct simrun_result res;	/* results when rc == 0 */
};

/* The parsed command line and the runs it asks for. */
struct sim_cli {
	struct simrun_config base;		/* options common to every run */
	const char *arbiter;			/* --arbiter, or NULL */
	const char *quick_mode;			/* --quick-mode, or NULL */
	int bursty;				/* 1, 0, or -1 = not given */
	uint32_t burst_max;			/* --burst-max */
	uint16_t per_target;			/* --per-target-cap, 0 = default */
	bool preset;				/* --preset clint given */
	double loads[SIM_MAX_LOADS];		/* loads to run */
	int n_loads;				/* entries in loads */
	const char *csv;			/* --csv */
	const char *plot;			/* --plot */
	int jobs;				/* --jobs */
	bool verbose;				/* --verbose */
	struct rte_mempool *pools[SIM_MAX_JOBS];	/* frames, one pool per job */
	struct simrun_config runs[SIM_MAX_RUNS];	/* the plan */
	struct sim_outcome out[SIM_MAX_RUNS];	/* results, by plan index */
	int n_runs;				/* entries in runs */
};

/* Print the table header. */
void sim_print_header(const struct sim_cli *cli);

/* Print the rows of run i (one per channel with traffic). */
void sim_print_row(const struct sim_cli *cli, int i);

/* Print the totals: speed of the simulator and the delivery checker. */
void sim_print_summary(const struct sim_cli *cli);

/* Write every run's rows as CSV; 0 or -errno (message printed). */
int sim_write_csv(const struct sim_cli *cli, const char *path);

/* Plot the runs with gnuplot into a PNG; 0 or -1 (message printed). */
int sim_plot(const struct sim_cli *cli, const char *png);

#endif
