/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segnet-sim as a program: a seed fixes the whole CSV, another seed changes
 * it, parallel jobs give the rows one job gives, bad arguments exit 2 naming
 * the argument, --help exits 0. Runs are 4 nodes for a millisecond or two so
 * the suite stays fast.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

enum {
	T_MAX_ARGS = 48,	/* arguments of one run */
	T_OUT = 1 << 16,	/* bytes of output kept */
	T_MAX_ROWS = 16,	/* CSV rows compared */
	T_MAX_COLS = 32,	/* CSV columns */
};

/* A scratch file name unique to this process: SEGNET_TEST_TMPDIR/sim-<pid>-<tag>. */
static void t_path(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "%s/sim-%d-%s", SEGNET_TEST_TMPDIR, (int)getpid(), tag);
}

/* Read a file into buf (NUL-terminated, truncated to len - 1). */
static void t_slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t got = 0;

	buf[0] = '\0';
	if (!f)
		return;
	got = fread(buf, 1, len - 1, f);
	buf[got] = '\0';
	fclose(f);
}

/* What one run of segnet-sim did. */
struct t_run {
	int status;		/* exit status, or -1 when it did not exit */
	char out[T_OUT];	/* its stdout */
	char err[T_OUT];	/* its stderr */
};

/* In the child: output to the two files, die with the test, run argv. */
static void t_exec(char *const *argv, const char *out_path, const char *err_path)
{
	int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	/* A test that times out is killed; its segnet-sim must not outlive it. */
	if (out < 0 || err < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) || dup2(out, 1) < 0 ||
	    dup2(err, 2) < 0)
		_exit(127);
	execv(argv[0], argv);
	_exit(127);
}

/* Run segnet-sim with args (NULL-terminated); fills r. */
static void t_sim(const char *const *args, struct t_run *r)
{
	char *argv[T_MAX_ARGS + 2], out_path[256], err_path[256];
	int n = 0, ws;
	pid_t pid;

	argv[n++] = (char *)SEGNET_SIM_BIN;
	for (; args[n - 1]; n++) {
		cr_assert_lt(n, T_MAX_ARGS);
		argv[n] = (char *)args[n - 1];
	}
	argv[n] = NULL;
	t_path(out_path, sizeof(out_path), "stdout");
	t_path(err_path, sizeof(err_path), "stderr");
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0)
		t_exec(argv, out_path, err_path);
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	t_slurp(out_path, r->out, sizeof(r->out));
	t_slurp(err_path, r->err, sizeof(r->err));
	unlink(out_path);
	unlink(err_path);
}

/* A CSV file split into rows and fields (pointers into text; quotes taken off). */
struct t_csv {
	char text[T_OUT];			/* the file, commas and newlines cut */
	char *cell[T_MAX_ROWS][T_MAX_COLS];	/* row 0 is the header */
	int rows;				/* rows including the header */
	int cols;				/* fields of the header */
};

/* Load and split a CSV file; every row must have the header's width. */
static void t_csv_load(const char *path, struct t_csv *c)
{
	char *line, *save = NULL;

	t_slurp(path, c->text, sizeof(c->text));
	c->rows = 0;
	for (line = strtok_r(c->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int n = 0;

		cr_assert_lt(c->rows, T_MAX_ROWS, "%s: too many rows", path);
		for (char *f = line; f; n++) {
			/* A quoted field (conf: "conf4-sr,timer:...") ends at its quote. */
			char *end = *f == '"' ? strchr(f + 1, '"') : f;
			char *comma = strchr(end ? end : f, ',');

			cr_assert_lt(n, T_MAX_COLS, "%s: too many columns", path);
			if (*f == '"' && end) {
				*end = '\0';
				f++;
			}
			c->cell[c->rows][n] = f;
			if (comma)
				*comma++ = '\0';
			f = comma;
		}
		if (c->rows == 0)
			c->cols = n;
		cr_assert_eq(n, c->cols, "%s row %d: %d fields, header has %d", path,
			     c->rows, n, c->cols);
		c->rows++;
	}
	cr_assert_gt(c->rows, 1, "%s: no data rows", path);
}

/* Index of column name in c, or fail. */
static int t_csv_col(const struct t_csv *c, const char *name)
{
	for (int k = 0; k < c->cols; k++)
		if (strcmp(c->cell[0][k], name) == 0)
			return k;
	cr_assert_fail("no column %s", name);
	return -1;
}

/* Cells (outside column skip) where a and b differ. */
static int t_csv_diff(const struct t_csv *a, const struct t_csv *b, const char *skip,
		      char *first, size_t len)
{
	int diffs = 0;

	cr_assert_eq(a->cols, b->cols);
	cr_assert_eq(a->rows, b->rows, "%d rows, then %d", a->rows, b->rows);
	for (int k = 0; k < a->cols; k++)
		cr_assert_str_eq(a->cell[0][k], b->cell[0][k], "headers differ");
	first[0] = '\0';
	for (int r = 1; r < a->rows; r++) {
		for (int k = 0; k < a->cols; k++) {
			if ((skip && strcmp(a->cell[0][k], skip) == 0) ||
			    strcmp(a->cell[r][k], b->cell[r][k]) == 0)
				continue;
			if (!diffs++)
				snprintf(first, len, "row %d %s: %s vs %s", r, a->cell[0][k],
					 a->cell[r][k], b->cell[r][k]);
		}
	}
	return diffs;
}

/*
 * Run a short simulation with seed and extra args (one run: one job; load
 * 0.3 unless extra has a --load-sweep, conf4-sr unless it has a --conf);
 * its CSV into c.
 */
static void t_sim_csv(const char *seed, const char *const *extra, struct t_csv *c)
{
	const char *args[T_MAX_ARGS] = {
		"--nodes", "4", "--duration", "2ms",
		"--loss", "0.01", "--reorder", "0.02", "--seed", seed,
	};
	int n = 10;
	bool sweep = false, conf = false;
	char csv[256];
	struct t_run *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	t_path(csv, sizeof(csv), "csv");
	args[n++] = "--csv";
	args[n++] = csv;
	for (int i = 0; extra && extra[i]; i++) {
		sweep |= !strcmp(extra[i], "--load-sweep");
		conf |= !strcmp(extra[i], "--conf");
		args[n++] = extra[i];
	}
	if (!sweep) {
		args[n++] = "--load";
		args[n++] = "0.3";
	}
	if (!conf) {
		args[n++] = "--conf";
		args[n++] = "conf4-sr";
	}
	args[n] = NULL;
	t_sim(args, r);
	cr_assert_eq(r->status, 0, "segnet-sim exited %d: %s", r->status, r->err);
	t_csv_load(csv, c);
	unlink(csv);
	free(r);
}

Test(simrun, same_seed_gives_an_identical_csv)
{
	struct t_csv *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char first[256];
	int gen, seed;

	cr_assert(a && b);
	t_sim_csv("7", NULL, a);
	t_sim_csv("7", NULL, b);
	cr_assert_eq(a->rows, 3, "a header and one row per channel");
	gen = t_csv_col(a, "generated");
	seed = t_csv_col(a, "seed");
	cr_assert_str_eq(a->cell[1][seed], "7");
	cr_assert_gt(atoll(a->cell[1][gen]), 0, "the run generated no bulk traffic");
	cr_assert_gt(atoll(a->cell[2][gen]), 0, "the run generated no quick traffic");
	cr_assert_eq(t_csv_diff(a, b, NULL, first, sizeof(first)), 0,
		     "seed 7 twice: %s", first);
	free(a);
	free(b);
}

Test(simrun, another_seed_gives_another_csv)
{
	struct t_csv *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char first[256];

	cr_assert(a && b);
	t_sim_csv("7", NULL, a);
	t_sim_csv("8", NULL, b);
	cr_assert_gt(t_csv_diff(a, b, "seed", first, sizeof(first)), 0,
		     "seeds 7 and 8 gave the same results");
	cr_log_info("seeds 7 and 8: first difference %s", first);
	free(a);
	free(b);
}

Test(simrun, parallel_jobs_give_the_rows_of_one_job)
{
	static const char *const sweep1[] = { "--load-sweep", "0.2:0.3:0.1", "--jobs", "1", NULL };
	static const char *const sweep2[] = { "--load-sweep", "0.2:0.3:0.1", "--jobs", "2", NULL };
	struct t_csv *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char first[256];

	cr_assert(a && b);
	t_sim_csv("7", sweep1, a);
	t_sim_csv("7", sweep2, b);
	cr_assert_eq(a->rows, 5, "two loads, two channels");
	cr_assert_eq(t_csv_diff(a, b, NULL, first, sizeof(first)), 0,
		     "--jobs 1 and --jobs 2: %s", first);
	free(a);
	free(b);
}

/*
 * A named configuration keeps the simulated round-trip bound when --conf
 * overrides another timer parameter: "conf4-sr,timer:min_ns=2000" (min_ns
 * at its default) runs as conf4-sr does. It once replaced the bound with
 * nicd's 1 ms default as soon as --conf named the timer at all.
 */
Test(simrun, a_timer_override_keeps_the_simulated_round_trip_bound)
{
	static const char *const same[] = { "--conf", "conf4-sr,timer:min_ns=2000", NULL };
	struct t_csv *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char first[256];

	cr_assert(a && b);
	t_sim_csv("7", NULL, a);
	t_sim_csv("7", same, b);
	cr_assert_str_eq(b->cell[1][t_csv_col(b, "conf")], "conf4-sr,timer:min_ns=2000");
	cr_assert_eq(t_csv_diff(a, b, "conf", first, sizeof(first)), 0,
		     "conf4-sr and conf4-sr,timer:min_ns=2000: %s", first);
	free(a);
	free(b);
}

/* Column col of row r as a number. */
static double t_num(const struct t_csv *c, int r, const char *col)
{
	return atof(c->cell[r][t_csv_col(c, col)]);
}

Test(simrun, quick_load_keeps_the_quick_channel_at_its_own_load)
{
	static const char *const sweep[] = { "--load-sweep", "0.2:0.4:0.2", "--quick-load",
					     "0.05", NULL };
	struct t_csv *c = calloc(1, sizeof(*c));
	int chan;

	cr_assert_not_null(c);
	t_sim_csv("7", sweep, c);
	cr_assert_eq(c->rows, 5, "two loads, two channels");
	chan = t_csv_col(c, "channel");
	for (int r = 1; r < c->rows; r++) {
		bool quick = strcmp(c->cell[r][chan], "quick") == 0;
		double want = quick ? 0.05 : (r <= 2 ? 0.2 : 0.4);

		cr_assert_float_eq(t_num(c, r, "load"), want, 1e-9, "row %d (%s)", r,
				   c->cell[r][chan]);
		/* 2 ms on 4 nodes: the offered load is within 30 % of the asked. */
		cr_assert_float_eq(t_num(c, r, "offered"), want, 0.3 * want,
				   "row %d (%s): offered %s", r, c->cell[r][chan],
				   c->cell[r][t_csv_col(c, "offered")]);
	}
	free(c);
}

Test(simrun, same_rate_offers_as_many_quick_messages_as_bulk_ones)
{
	/* Clint's rates: the quick load is 0.185 of the bulk load, 3 digits in the CSV. */
	static const char *const sweep[] = { "--load-sweep", "0.2:0.4:0.2", "--quick-load",
					     "same-rate", "--bulk-gbps", "2", "--quick-gbps",
					     "0.53", NULL };
	struct t_csv *c = calloc(1, sizeof(*c));
	double ratio[2];

	cr_assert_not_null(c);
	t_sim_csv("7", sweep, c);
	cr_assert_eq(c->rows, 5, "two loads, two channels");
	for (int k = 0; k < 2; k++) {
		int bulk = 1 + 2 * k, quick = bulk + 1;

		cr_assert_str_eq(c->cell[quick][t_csv_col(c, "channel")], "quick");
		/* A QREQ is shorter than a bulk slot: the same rate is a smaller load. */
		ratio[k] = t_num(c, quick, "load") / t_num(c, bulk, "load");
		cr_assert(ratio[k] > 0.01 && ratio[k] < 0.9, "quick/bulk load %g", ratio[k]);
		cr_assert_float_eq(t_num(c, quick, "offered"), t_num(c, quick, "load"),
				   0.3 * t_num(c, quick, "load"), "row %d: offered %g, load %g",
				   quick, t_num(c, quick, "offered"), t_num(c, quick, "load"));
	}
	cr_assert_float_eq(ratio[0], ratio[1], 0.02 * ratio[0],
			   "the ratio is the same at every load: %g, %g", ratio[0], ratio[1]);
	free(c);
}

/* One bad command line and the argument its message must name. */
struct t_bad {
	const char *args[7];	/* NULL-terminated */
	const char *names;	/* text the message must contain */
};

Test(simrun, bad_arguments_exit_2_naming_the_argument)
{
	static const struct t_bad bad[] = {
		{ { "--arbiter", "nope", NULL }, "--arbiter" },
		{ { "--arbiter", "islip:0", NULL }, "--arbiter" },
		{ { "--load", "0", NULL }, "--load 0: must be in (0, 1]" },
		{ { "--load", "1.5", NULL }, "--load 1.5: must be in (0, 1]" },
		{ { "--load", "x", NULL }, "--load" },
		{ { "--quick-load", "0", NULL }, "--quick-load 0: must be in (0, 1]" },
		{ { "--quick-load", "2", NULL }, "--quick-load" },
		{ { "--quick-load", "same", NULL }, "--quick-load" },
		{ { "--quick-load", "0.1", "--channels", "bulk", NULL }, "--quick-load" },
		{ { "--nodes", "5000", NULL }, "--nodes" },
		{ { "--nodes", "1", NULL }, "--nodes" },
		{ { "--traffic", "x", NULL }, "--traffic" },
		{ { "--duration", "-1", NULL }, "--duration" },
		{ { "--duration", "5 parsecs", NULL }, "--duration" },
		{ { "--duration", "0.1ns", NULL }, "--duration" },
		{ { "--load-sweep", "0.1:nan:0.1", NULL }, "--load-sweep" },
		{ { "--load-sweep", "0.001:1:0.001", NULL }, "--load-sweep" },
		{ { "--load-sweep", "0.9:0.1:0.1", NULL }, "--load-sweep" },
		{ { "--csv", "/", NULL }, "--csv" },
		{ { "--plot", ".", NULL }, "--plot" },
		{ { "--quick-mode", "fast", NULL }, "--quick-mode" },
		{ { "--loss", "1", NULL }, "--loss" },
		{ { "--conf", "conf9", NULL }, "--conf" },
		{ { "--conf", "conf2,genp:window=99", NULL }, "--conf" },
		{ { "--conf", "order", NULL }, "--conf" },
		{ { "stray", NULL }, "stray" },
		{ { "--load-sweep", "0.5:0.9:inf", NULL }, "--load-sweep STEP" },
		{ { "--load-sweep", "0x0.1p0:0.5:0.1", NULL }, "--load-sweep A" },
		{ { "--load-sweep", " 0.1:0.5:0.1", NULL }, "--load-sweep A" },
		{ { "--load-sweep", "0.1::0.1", NULL }, "--load-sweep B" },
		{ { "--load-sweep", "0.1:0.2", NULL }, "--load-sweep" },
		{ { "--load", "1e-300", NULL }, "--load 1e-300: under the smallest load, 0.000001" },
		{ { "--quick-load", "1e-9", NULL }, "--quick-load" },
		{ { "--duration", "0x10ms", NULL }, "--duration" },
		{ { "--duration", " 1ms", NULL }, "--duration" },
		{ { "--outage", "2ms", NULL }, "--outage" },
		{ { "--load", NULL }, "--load" },
		{ { "--bursty=1", NULL }, "--bursty" },
		{ { "--seed", "1", "--seed", "2", NULL }, "--seed given twice" },
		{ { "--cfg-keepalive", "2501", NULL }, "--cfg-keepalive" },
		{ { "--quick-reserve", "x", NULL }, "--quick-reserve" },
		{ { "--quick-reserve", "17", NULL },
		  "--quick-reserve 17: must not exceed --quick-buffers 16" },
		/* Checked against the buffers the preset gives after it. */
		{ { "--quick-reserve", "5", "--preset", "clint", NULL },
		  "--quick-reserve 5: must not exceed --quick-buffers 4" },
		{ { "--csv", "/proc/segnet-sim-test.csv", NULL }, "--csv" },
		{ { "--load", "0.3", "--load-sweep", "0.1:0.2:0.1", NULL },
		  "--load and --load-sweep do not go together" },
		{ { "--dur", "1ms", NULL }, "give the whole name, --duration" },
		/* One of each pair would be ignored: both are refused, by name. */
		{ { "--duration", "1ms", "--messages", "10", NULL },
		  "--duration and --messages do not go together" },
		{ { "--messages", "10", "--duration", "1ms", NULL },
		  "--messages and --duration do not go together" },
		{ { "--bursty", "--no-bursty", NULL }, "--bursty and --no-bursty do not go together" },
		/* The load as typed (%g said 0.123457). */
		{ { "--quick-gbps", "0.01", "--quick-load", "same-rate", "--load", "0.1234567", NULL },
		  "--quick-load same-rate: at --load 0.1234567 the quick channel" },
	};
	struct t_run *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t_sim(bad[i].args, r);
		cr_assert_eq(r->status, 2, "%s %s: exit %d (want 2); stderr: %s",
			     bad[i].args[0], bad[i].args[1] ? bad[i].args[1] : "",
			     r->status, r->err);
		cr_assert_not_null(strstr(r->err, bad[i].names),
				   "%s %s: message does not name %s: %s", bad[i].args[0],
				   bad[i].args[1] ? bad[i].args[1] : "", bad[i].names, r->err);
		cr_assert_eq(r->out[0], '\0', "%s: nothing on stdout: %s", bad[i].args[0],
			     r->out);
	}
	free(r);
}

/* The header gives the rates as typed (%g said bulk 2.5 and quick 1.23457). */
Test(simrun, the_header_gives_the_rates_as_typed)
{
	static const char *const args[] = { "--nodes", "4", "--messages", "10", "--seed", "1",
					    "--bulk-gbps", "2.5000001", "--quick-gbps",
					    "1.23456789", NULL };
	struct t_run *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	t_sim(args, r);
	cr_assert_eq(r->status, 0, "exit %d: %s", r->status, r->err);
	cr_assert_not_null(strstr(r->out, "segnet-sim: 4 nodes, bulk 2.5000001 Gbit/s, quick 1.23456789 Gbit/s,"),
			   "%s", r->out);
	free(r);
}

Test(simrun, help_exits_0)
{
	static const char *const args[] = { "--help", NULL };
	struct t_run *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	t_sim(args, r);
	cr_assert_eq(r->status, 0, "--help exited %d", r->status);
	cr_assert_not_null(strstr(r->out, "Usage: segnet-sim"));
	cr_assert_not_null(strstr(r->out, "Exit status"));
	cr_assert_eq(r->err[0], '\0', "--help wrote to stderr: %s", r->err);
	free(r);
}

/*
 * --plot of a run whose quick channel had no queueing (mean latency 0, no
 * point on a log axis): the other panels are drawn, exit 0. Before, gnuplot
 * gave up on the empty log panel ("all points y value undefined"), exit 1.
 * Skipped without gnuplot.
 */
Test(simrun, a_plot_leaves_out_values_a_log_axis_cannot_show)
{
	char png[256];
	const char *args[] = {
		"--nodes", "4", "--load", "0.5", "--messages", "10", "--seed", "1",
		"--plot", png, NULL,
	};
	struct t_run *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	if (system("command -v gnuplot >/dev/null 2>&1"))
		cr_skip_test("gnuplot is not installed");
	t_path(png, sizeof(png), "plot.png");
	t_sim(args, r);
	unlink(png);
	cr_assert_not_null(strstr(r->out, "lcf               quick no     drop       0.500  0.001  0.001      0.00"),
			   "the quick channel's mean latency is no longer 0: %s", r->out);
	cr_assert_eq(r->status, 0, "exit %d: %s", r->status, r->err);
	cr_assert_not_null(strstr(r->out, "wrote "), "%s", r->out);
	free(r);
}

/*
 * An outage due after the run ended never began: the report says so, not
 * that it lasted its length and caught no message.
 */
Test(simrun, an_outage_after_the_end_of_the_run_is_said_never_to_have_begun)
{
	static const char *const late[] = {
		"--nodes", "4", "--duration", "1ms", "--load", "0.3", "--outage", "1s:1ms", NULL,
	};
	static const char *const early[] = {
		"--nodes", "4", "--duration", "2ms", "--load", "0.3", "--outage", "100us:200us",
		NULL,
	};
	struct t_run *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	t_sim(late, r);
	cr_assert_eq(r->status, 0, "exit %d: %s", r->status, r->err);
	cr_assert_not_null(strstr(r->out, "outage of node 0's links: 1000.0 us from 1000000.0 us after the cluster formed: never began, the run ended first"),
			   "%s", r->out);
	cr_assert_null(strstr(r->out, "was caught in it"), "%s", r->out);
	t_sim(early, r);
	cr_assert_eq(r->status, 0, "exit %d: %s", r->status, r->err);
	cr_assert_not_null(strstr(r->out, "outage of node 0's links: 200.0 us from 100.0 us after the cluster formed"),
			   "%s", r->out);
	cr_assert_null(strstr(r->out, "never began"), "%s", r->out);
	free(r);
}

/* The checker's counts from segnet-sim's last line. */
struct t_delivery {
	unsigned long long sent, delivered, lost, dup, reord;
};

/* Run conf under every fault at once (fixed seed); parse the delivery line. */
static void t_guarantee_run(const char *conf, struct t_delivery *d)
{
	const char *args[] = {
		"--preset", "clint", "--arbiter", "lcf", "--no-bursty", "--one-vnet",
		"--load", "0.15", "--conf", conf, "--loss", "0.02", "--dup", "0.01",
		"--reorder", "0.02", "--corrupt", "0.01", "--messages", "20000",
		"--seed", "7", NULL,
	};
	struct t_run r;
	const char *line;

	t_sim(args, &r);
	cr_assert_eq(r.status, 0, "%s: exit %d: %s", conf, r.status, r.err);
	line = strstr(r.out, "delivery: ");
	cr_assert_not_null(line, "%s: no delivery line", conf);
	cr_assert_eq(sscanf(line, "delivery: sent=%llu delivered=%llu lost=%llu duplicated=%llu reordered=%llu",
			    &d->sent, &d->delivered, &d->lost, &d->dup, &d->reord), 5);
	cr_assert_eq(d->sent, 20000);
}

/* Each configuration keeps its guarantees under loss, duplication, reordering, corruption. */
Test(simrun, configurations_keep_their_guarantees_under_faults, .timeout = 120)
{
	struct t_delivery d1, d2, d3, dg, ds;

	t_guarantee_run("conf1", &d1);
	cr_assert_gt(d1.lost, 0, "conf1 is unreliable: the checker must see losses");
	t_guarantee_run("conf2", &d2);
	cr_assert_eq(d2.lost, 0, "conf2 lost %llu", d2.lost);
	cr_assert_gt(d2.dup, 0, "conf2 lets duplicates through: the checker must see them");
	t_guarantee_run("conf3", &d3);
	cr_assert_eq(d3.lost + d3.dup, 0, "conf3 lost %llu, duplicated %llu", d3.lost, d3.dup);
	cr_assert_gt(d3.reord, 0, "conf3 is unordered across channels: the checker must see it");
	t_guarantee_run("conf4-gbn", &dg);
	cr_assert_eq(dg.lost + dg.dup + dg.reord, 0, "conf4-gbn lost %llu dup %llu reord %llu",
		     dg.lost, dg.dup, dg.reord);
	t_guarantee_run("conf4-sr", &ds);
	cr_assert_eq(ds.lost + ds.dup + ds.reord, 0, "conf4-sr lost %llu dup %llu reord %llu",
		     ds.lost, ds.dup, ds.reord);
}

/* Run conf4-gbn at 5 % loss with 4 quick buffers and --quick-reserve reserve; r gets it. */
static unsigned long long t_reclaim_run(const char *reserve, struct t_run *r)
{
	const char *args[] = {
		"--preset", "clint", "--arbiter", "lcf", "--no-bursty", "--one-vnet",
		"--load", "0.15", "--conf", "conf4-gbn", "--loss", "0.05",
		"--messages", "5000", "--seed", "1", "--quick-reserve", reserve,
		"--verbose", NULL,
	};
	unsigned long long sum = 0, v, sent, delivered, lost, dup, reord;
	const char *line;

	t_sim(args, r);
	cr_assert_eq(r->status, 0, "reserve %s: exit %d: %s", reserve, r->status, r->err);
	/* The NICs' counters: nodeI.quick_reclaimed N, one line per node. */
	for (line = strstr(r->out, ".quick_reclaimed "); line;
	     line = strstr(line + 1, ".quick_reclaimed ")) {
		cr_assert_eq(sscanf(line, ".quick_reclaimed %llu", &v), 1);
		sum += v;
	}
	line = strstr(r->out, "delivery: ");
	cr_assert_not_null(line, "reserve %s: no delivery line", reserve);
	cr_assert_eq(sscanf(line, "delivery: sent=%llu delivered=%llu lost=%llu duplicated=%llu reordered=%llu",
			    &sent, &delivered, &lost, &dup, &reord), 5);
	cr_assert_eq(delivered, 5000, "reserve %s: %llu of %llu delivered", reserve, delivered, sent);
	cr_assert_eq(lost + dup + reord, 0, "reserve %s: lost %llu dup %llu reord %llu", reserve,
		     lost, dup, reord);
	return sum;
}

/*
 * --quick-reserve reaches the NICs: with a reserve, buffers of overdue
 * packets are taken back (nicd's quick_reclaimed) and conf4-gbn still
 * keeps its guarantees; without one (the default) none is, and the header
 * does not change.
 */
Test(simrun, a_quick_reserve_reaches_the_nics, .timeout = 60)
{
	struct t_run *r = calloc(1, sizeof(*r));
	unsigned long long taken;

	cr_assert_not_null(r);
	taken = t_reclaim_run("1", r);
	cr_assert_gt(taken, 0, "reserve 1: no quick buffer taken back");
	cr_assert_not_null(strstr(r->out, "(per-target cap 2, quick reserve 1)"), "%s", r->out);
	taken = t_reclaim_run("0", r);
	cr_assert_eq(taken, 0, "reserve 0: %llu quick buffers taken back", taken);
	cr_assert_not_null(strstr(r->out, "(per-target cap 2), conf"), "%s", r->out);
	free(r);
}

/*
 * NICs whose sends outrun the network keep a quarter of their descriptors for
 * receiving: with 64 descriptors and load 0.9, a backlog of sends used to
 * take them all, every BREQ was refused, and the run never ended. Packets
 * held out of order keep an eighth free in turn: with 16 quick send buffers
 * the reorder buffers used to take every descriptor, and the packet that
 * would fill their gap was refused for ever.
 */
Test(simrun, a_send_backlog_leaves_descriptors_for_receiving, .timeout = 60)
{
	static const char *const confs[][3] = {
		{ "conf4-sr", "--loss", "0" },
		{ "conf4-gbn", "--loss", "0.05" },
	};

	for (size_t i = 0; i < sizeof(confs) / sizeof(confs[0]); i++) {
		const char *args[] = {
			"--nodes", "4", "--bulk-gbps", "2", "--quick-gbps", "0.53", "--no-bursty",
			"--one-vnet", "--load", "0.9", "--conf", confs[i][0], confs[i][1], confs[i][2],
			"--messages", "20000", "--descriptors", "64", "--quick-buffers", "16",
			"--seed", "7", NULL,
		};
		unsigned long long sent, delivered, lost, dup, reord;
		struct t_run r;
		const char *line;

		t_sim(args, &r);
		cr_assert_eq(r.status, 0, "%s: exit %d: %s", confs[i][0], r.status, r.err);
		line = strstr(r.out, "delivery: ");
		cr_assert_not_null(line, "%s: no delivery line", confs[i][0]);
		cr_assert_eq(sscanf(line, "delivery: sent=%llu delivered=%llu lost=%llu duplicated=%llu reordered=%llu",
				    &sent, &delivered, &lost, &dup, &reord), 5);
		cr_assert_eq(sent, 20000);
		cr_assert_eq(delivered, 20000, "%s: %llu delivered", confs[i][0], delivered);
		cr_assert_eq(lost + dup + reord, 0);
	}
}

/* The sum of the counters named name (".breq_after_gnt ": every node's) in out. */
static unsigned long long t_counter_sum(const char *out, const char *name)
{
	unsigned long long sum = 0, v;
	const char *line;

	for (line = strstr(out, name); line; line = strstr(line + 1, name)) {
		cr_assert_eq(sscanf(line + strlen(name), "%llu", &v), 1, "%s", name);
		sum += v;
	}
	return sum;
}

/*
 * Traffic on channels (bulk at load 0.9, both at 0.7) on 8 nodes for 3 ms
 * with slots of frames frames and arbiter arb (conf3, --verbose, seed 1)
 * into r; nothing lost or duplicated.
 */
static void t_slot_run(const char *arb, const char *channels, const char *frames,
		       struct t_run *r)
{
	const char *args[] = {
		"--nodes", "8", "--arbiter", arb, "--channels", channels, "--no-bursty",
		"--load", strcmp(channels, "bulk") ? "0.7" : "0.9", "--slot-frames", frames,
		"--conf", "conf3", "--duration", "3ms", "--seed", "1", "--verbose", NULL,
	};
	const char *line;
	unsigned long long sent, delivered, lost, dup, reord;

	t_sim(args, r);
	cr_assert_eq(r->status, 0, "%s, %s, %s frames: exit %d: %s", arb, channels, frames,
		     r->status, r->err);
	line = strstr(r->out, "delivery: ");
	cr_assert_not_null(line, "%s, %s frames: no delivery line", arb, frames);
	cr_assert_eq(sscanf(line, "delivery: sent=%llu delivered=%llu lost=%llu duplicated=%llu reordered=%llu",
			    &sent, &delivered, &lost, &dup, &reord), 5);
	cr_assert_eq(lost + dup, 0, "%s, %s, %s frames: %llu lost, %llu duplicated", arb,
		     channels, frames, lost, dup);
	cr_log_info("%s, %s, %s frames: breq_after_gnt %llu of breq_sent %llu, bulk_waited %llu (longest %llu ps)",
		    arb, channels, frames, t_counter_sum(r->out, ".breq_after_gnt "),
		    t_counter_sum(r->out, ".breq_sent "), t_counter_sum(r->out, "links.bulk_waited "),
		    t_counter_sum(r->out, "links.bulk_wait_max_ps "));
}

/*
 * With slots of several frames, BREQs a BACK readies inside a granted slot
 * leave in it (nicd's breq_after_gnt), and still no BREQ waits on the
 * switch's output links behind another (links.bulk_waited: from 1 ns; the
 * frames of one burst land up to 999 ps closer together than they were
 * sent), none comes late or outside the schedule: bulk traffic alone, and
 * with quick traffic, whose frames make GNTs late (a slot clock from the
 * GNT's arrival let 4 BREQs wait up to 50 ns at 4 frames). The watch sees
 * queuing where there is some: the unscheduled fifo-drop model, whose
 * BREQs of one slot to one target overlap. With one frame a slot and
 * quick traffic BREQs do wait, behind late GNTs (before this change too).
 */
Test(simrun, slots_of_several_frames_fill_up_without_queuing_on_the_bulk_links, .timeout = 90)
{
	static const char *const runs[][2] = {
		{ "bulk", "4" }, { "bulk", "16" }, { "bulk", "64" }, { "both", "4" },
		{ "both", "16" },
	};
	struct t_run *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		t_slot_run("lcf", runs[i][0], runs[i][1], r);
		cr_assert_gt(t_counter_sum(r->out, ".breq_after_gnt "), 0,
			     "%s, %s frames: no BREQ left after its GNT", runs[i][0], runs[i][1]);
		cr_assert_eq(t_counter_sum(r->out, "links.bulk_waited "), 0,
			     "%s, %s frames: BREQs queued on the switch's bulk links", runs[i][0],
			     runs[i][1]);
		cr_assert_lt(t_counter_sum(r->out, "links.bulk_wait_max_ps "), 1000);
		cr_assert_eq(t_counter_sum(r->out, "switch.breq_not_granted "), 0,
			     "%s, %s frames: BREQs outside the schedule", runs[i][0], runs[i][1]);
		cr_assert_eq(t_counter_sum(r->out, "switch.breq_late "), 0);
	}
	t_slot_run("fifo-drop", "bulk", "4", r);
	cr_assert_gt(t_counter_sum(r->out, "links.bulk_waited "), 0,
		     "the unscheduled model's BREQs never queued");
	t_slot_run("lcf", "both", "1", r);
	cr_assert_gt(t_counter_sum(r->out, "links.bulk_waited "), 0,
		     "one frame a slot: no BREQ behind a late GNT");
	cr_assert_eq(t_counter_sum(r->out, ".breq_after_gnt "), 0);
	free(r);
}
