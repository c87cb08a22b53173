/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segnet-stat: live counters of a running switchd or nicd, refreshed like
 * top. It speaks DPDK's telemetry protocol itself (no DPDK needed): connect
 * to <runtime dir>/dpdk_telemetry.v2 (AF_UNIX, SOCK_SEQPACKET), read the
 * greeting, send a command such as /segnet/nic/stats, read one JSON reply.
 * Every number in the replies becomes a counter named by its path; rates
 * are the difference between two samples. doc/man/segnet-stat.1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dataplane/dp_json.h"
#include "tool_util.h"

static const char stat_prog[] = "segnet-stat";

enum {
	STAT_REPLY_MAX = 1 << 20,	/* bytes of one telemetry reply we read */
	STAT_REPLY_WAIT_S = 5,		/* a daemon silent this long is stopped */
	STAT_NAME_MAX = 160,		/* bytes of a counter name */
	STAT_CMDS_MAX = 32,		/* commands sampled */
	STAT_DEPTH_MAX = 16,		/* JSON nesting we follow */
};

/* One counter. */
struct stat_entry {
	char name[STAT_NAME_MAX];	/* dotted path */
	double value;			/* its value */
};

/* One sample of every counter. */
struct stat_sample {
	struct stat_entry *e;		/* entries, in reply order */
	size_t n, cap;			/* used, allocated */
	uint64_t t_ns;			/* when taken */
	bool short_of_memory;		/* a counter could not be kept: the sample lacks it */
};

/* The command line. */
struct stat_opts {
	const char *prefix;		/* --prefix */
	const char *socket;		/* --socket */
	const char *cmds[STAT_CMDS_MAX];	/* --cmd */
	unsigned int n_cmds;		/* entries in cmds */
	double interval;		/* --interval in s */
	uint64_t count;			/* samples (0 = until interrupted) */
	const char *filter;		/* --filter */
	bool all;			/* --all: zeros too */
	bool json;			/* --json */
	bool once;			/* --once */
};

/* Print the usage text. */
static void stat_usage(FILE *f)
{
	fprintf(f,
		"usage: segnet-stat [--prefix PREFIX | --socket PATH] [--cmd PATH]...\n"
		"                   [--interval SEC] [--count N] [--once] [--filter TEXT]\n"
		"                   [--all] [--json]\n"
		"\n"
		"Live counters of a running switchd or nicd through its DPDK telemetry\n"
		"socket, refreshed like top: every counter with its per-second rate.\n"
		"\n"
		"  --prefix PREFIX  the daemon's EAL --file-prefix (default rte); the socket\n"
		"                   is /var/run/dpdk/PREFIX/dpdk_telemetry.v2 for root, else\n"
		"                   $XDG_RUNTIME_DIR/dpdk/PREFIX/... or /tmp/dpdk/PREFIX/...\n"
		"  --socket PATH    the telemetry socket itself\n"
		"  --cmd PATH       a telemetry command to sample (repeatable; default every\n"
		"                   /segnet/ command the daemon has, e.g. /segnet/nic/stats)\n"
		"  --interval SEC   between refreshes, 0.01 .. 3600 (default 1)\n"
		"  --count N        refreshes, then exit (default 0: until interrupted)\n"
		"  --once           one sample, values only, no screen control (for scripts;\n"
		"                   not with --interval or --count)\n"
		"  --filter TEXT    only counters whose name contains TEXT\n"
		"  --all            counters that are zero too\n"
		"  --json           with --once: one JSON object {name: value}\n"
		"  --help           this text\n"
		"\n"
		"Exit status: 0 on success, 1 when the daemon cannot be reached, 2 on bad\n"
		"arguments.\n");
}

/* Option table. */
static const struct option stat_long_opts[] = {
	{ "prefix", required_argument, NULL, 'p' },
	{ "socket", required_argument, NULL, 's' },
	{ "cmd", required_argument, NULL, 'c' },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'n' },
	{ "once", no_argument, NULL, 'o' },
	{ "filter", required_argument, NULL, 'f' },
	{ "all", no_argument, NULL, 'a' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The options that are lists: --cmd. */
static const int stat_list_opts[] = { 'c', 0 };

/* Options of which one may be given: where the telemetry socket is. */
static const int stat_where_group[] = { 'p', 's', 0 };
static const int *const stat_groups[] = { stat_where_group, NULL };

/* Handle one option; false after printing an error. */
static bool stat_option(void *opts, int c, const char *arg)
{
	struct stat_opts *o = opts;

	switch (c) {
	case 'p':
		o->prefix = arg;
		return true;
	case 's':
		o->socket = arg;
		return true;
	case 'f':
		o->filter = arg;
		return true;
	case 'a':
		o->all = true;
		return true;
	case 'j':
		o->json = true;
		return true;
	case 'o':
		o->once = true;
		return true;
	case 'c':
		if (arg[0] != '/' || o->n_cmds == STAT_CMDS_MAX) {
			fprintf(stderr, "%s: --cmd %s: a telemetry command starts with '/' (at most %d)\n",
				stat_prog, arg, STAT_CMDS_MAX);
			return false;
		}
		o->cmds[o->n_cmds++] = arg;
		return true;
	case 'i':
		return tool_parse_double(stat_prog, "--interval", arg, 0.01, 3600, &o->interval);
	case 'n':
		return tool_parse_u64(stat_prog, "--count", arg, 0, UINT32_MAX, &o->count);
	}
	fprintf(stderr, "%s: unknown option (see --help)\n", stat_prog);
	return false;
}

/* Parse the command line; 0 to run, 1 after --help, 2 on an error. */
static int stat_parse(struct stat_opts *o, int argc, char **argv)
{
	struct dp_opt_parser p;
	int rc;

	memset(o, 0, sizeof(*o));
	o->prefix = "rte";
	o->interval = 1;
	rc = tool_getopt(stat_prog, argc, argv, stat_long_opts, stat_list_opts, stat_groups,
			 stat_usage, stat_option, o, &p);
	if (rc)
		return rc;
	if (o->json && !o->once) {
		fprintf(stderr, "%s: --json goes with --once\n", stat_prog);
		return 2;
	}
	/* One sample: no refreshes to count or space out. */
	if (o->once && !tool_refuse_given(stat_prog, &p, (const int[]){ 'n', 'i', 0 },
					  "does not go with --once (one sample, no refreshes)"))
		return 2;
	if (o->once)
		o->count = 1;
	return 0;
}

/* Connect to the telemetry socket at path; the socket or -errno. */
static int stat_connect_path(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/* Connect to the daemon (--socket, or the runtime dirs of --prefix). */
static int stat_connect(const struct stat_opts *o, char *path, size_t len)
{
	const char *bases[4] = { getenv("RUNTIME_DIRECTORY"), "/var/run",
				 getenv("XDG_RUNTIME_DIR"), "/tmp" };
	int fd = -ENOENT, first = 0;

	if (o->socket) {
		snprintf(path, len, "%s", o->socket);
		return stat_connect_path(path);
	}
	for (int i = 0; i < 4; i++) {
		char p[256];

		if (!bases[i] || !*bases[i])
			continue;
		snprintf(p, sizeof(p), "%s/dpdk/%s/dpdk_telemetry.v2", bases[i], o->prefix);
		fd = stat_connect_path(p);
		if (!first)
			snprintf(path, len, "%s", p);
		first = 1;
		if (fd >= 0) {
			snprintf(path, len, "%s", p);
			return fd;
		}
	}
	return fd;
}

/* Send cmd and read its reply into buf; length or -errno. */
static ssize_t stat_request(int fd, const char *cmd, char *buf, size_t len)
{
	ssize_t got;

	if (send(fd, cmd, strlen(cmd), MSG_NOSIGNAL) < 0)
		return -errno;
	got = recv(fd, buf, len - 1, 0);
	if (got < 0)
		return -errno;
	if (got == 0)
		return -ECONNRESET;
	buf[got] = '\0';
	return got;
}

/* JSON: skip white space. */
static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* JSON: read a string into out (escapes kept as the escaped character). */
static const char *json_string(const char *p, char *out, size_t len)
{
	size_t n = 0;

	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		char c = *p++;

		if (c == '\\' && *p)
			c = *p++;
		if (n + 1 < len)
			out[n++] = c;
	}
	if (len)
		out[n] = '\0';
	return *p == '"' ? p + 1 : NULL;
}

/* Add a counter to a sample. */
static void stat_add(struct stat_sample *s, const char *name, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct stat_entry *e = realloc(s->e, cap * sizeof(*e));

		if (!e) {
			s->short_of_memory = true;
			return;
		}
		s->e = e;
		s->cap = cap;
	}
	snprintf(s->e[s->n].name, STAT_NAME_MAX, "%s", name);
	s->e[s->n].value = v;
	s->n++;
}

/* JSON: any value under path (defined below; containers recurse into it). */
static const char *json_value(const char *p, char *path, size_t plen, int depth,
			      struct stat_sample *s);

/* JSON: an object or array under path; every number goes into s. */
static const char *json_container(const char *p, char *path, size_t plen, int depth,
				  struct stat_sample *s)
{
	bool object = *p == '{';
	char close = object ? '}' : ']';
	size_t base = strlen(path);
	char key[STAT_NAME_MAX];
	unsigned int index = 0;

	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			p = json_string(json_ws(p), key, sizeof(key));
			if (!p || *(p = json_ws(p)) != ':')
				return NULL;
			p++;
		} else {
			snprintf(key, sizeof(key), "%u", index++);
		}
		snprintf(path + base, plen - base, "%s%s", base ? "." : "", key);
		p = json_value(json_ws(p), path, plen, depth + 1, s);
		path[base] = '\0';
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == ',') {
			p++;
			continue;
		}
		return *p == close ? p + 1 : NULL;
	}
}

/* JSON: any value under path. */
static const char *json_value(const char *p, char *path, size_t plen, int depth,
			      struct stat_sample *s)
{
	char *end;
	double v;

	if (depth > STAT_DEPTH_MAX)
		return NULL;
	if (*p == '{' || *p == '[')
		return json_container(p, path, plen, depth, s);
	if (*p == '"')
		return json_string(p, NULL, 0);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	v = strtod(p, &end);
	if (end == p)
		return NULL;
	stat_add(s, path, v);
	return end;
}

/* The name under which cmd's counters appear: "/segnet/nic/stats" -> "nic.stats". */
static void stat_cmd_root(const char *cmd, char *out, size_t len)
{
	const char *c = strncmp(cmd, "/segnet/", 8) ? cmd + 1 : cmd + 8;

	snprintf(out, len, "%s", c);
	for (char *x = out; *x; x++)
		if (*x == '/' || *x == ',')
			*x = '.';
}

/* Parse the reply of cmd ({"cmd": value}) into s; false when malformed. */
static bool stat_parse_reply(const char *cmd, const char *reply, struct stat_sample *s)
{
	char path[STAT_NAME_MAX], key[STAT_NAME_MAX];
	const char *p = json_ws(reply);

	if (*p++ != '{')
		return false;
	p = json_string(json_ws(p), key, sizeof(key));
	if (!p || *(p = json_ws(p)) != ':')
		return false;
	stat_cmd_root(cmd, path, sizeof(path));
	return json_value(json_ws(p + 1), path, sizeof(path), 0, s) != NULL;
}

/* Ask for "/" and keep the /segnet/ commands; how many, or -errno when no answer came. */
static int stat_discover(int fd, char *buf, const char **cmds)
{
	static char names[STAT_CMDS_MAX][64];
	int n = 0;
	ssize_t got;
	const char *p;

	got = stat_request(fd, "/", buf, STAT_REPLY_MAX);
	if (got < 0)
		return (int)got;
	for (p = strstr(buf, "\"/segnet/"); p && n < STAT_CMDS_MAX;
	     p = strstr(p, "\"/segnet/")) {
		if (!json_string(p, names[n], sizeof(names[n])))
			break;
		cmds[n] = names[n];
		n++;
		p++;
	}
	return n;
}

/*
 * True when the daemon knows every command of o: DPDK's telemetry answers
 * null for a command it does not have (or a parameter it rejects), which
 * would otherwise show as nothing at all.
 */
static bool stat_commands_known(int fd, const struct stat_opts *o, char *buf)
{
	bool ok = true;

	for (unsigned int i = 0; i < o->n_cmds; i++) {
		const char *p;

		if (stat_request(fd, o->cmds[i], buf, STAT_REPLY_MAX) < 0)
			return ok;	/* the daemon went away: the loop says so */
		p = strchr(buf, ':');
		if (p && strncmp(json_ws(p + 1), "null", 4) == 0) {
			fprintf(stderr, "%s: --cmd %s: the daemon has no such command, or refused its parameter (it answered null)\n",
				stat_prog, o->cmds[i]);
			ok = false;
		}
	}
	return ok;
}

/*
 * A daemon says what did not fit a reply in a "more" string (DPDK's limits):
 * show it once, since strings are not counters and would go unseen.
 */
static void stat_note_more(const char *cmd, const char *buf)
{
	static char said[STAT_CMDS_MAX][STAT_NAME_MAX];
	const char *p = strstr(buf, "\"more\"");
	char note[256];
	unsigned int i;

	if (!p || !(p = strchr(p + 6, ':')) || !json_string(json_ws(p + 1), note, sizeof(note)))
		return;
	for (i = 0; i < STAT_CMDS_MAX && said[i][0]; i++)
		if (!strcmp(said[i], cmd))
			return;
	if (i < STAT_CMDS_MAX)
		snprintf(said[i], sizeof(said[i]), "%s", cmd);
	fprintf(stderr, "%s: %s: %s\n", stat_prog, cmd, note);
}

/*
 * Take one sample of every command; 0, -ENOMEM when a counter could not be
 * kept, or -errno when the daemon did not answer.
 */
static int stat_sample(int fd, const struct stat_opts *o, char *buf, struct stat_sample *s)
{
	ssize_t got;

	s->n = 0;
	s->short_of_memory = false;
	s->t_ns = tool_now_ns();
	for (unsigned int i = 0; i < o->n_cmds; i++) {
		got = stat_request(fd, o->cmds[i], buf, STAT_REPLY_MAX);
		if (got < 0)
			return (int)got;
		if (!stat_parse_reply(o->cmds[i], buf, s))
			fprintf(stderr, "%s: %s: reply not understood\n", stat_prog, o->cmds[i]);
		stat_note_more(o->cmds[i], buf);
	}
	return s->short_of_memory ? -ENOMEM : 0;
}

/* Why the daemon did not answer, for err from a receive: EXIT status (SIGINT: quietly 0). */
static int stat_no_answer(const char *path, const char *what, int err)
{
	if (tool_stop)
		return TOOL_EXIT_OK;
	if (err == EAGAIN || err == EWOULDBLOCK)
		fprintf(stderr, "%s: %s: no %s within %d s: is the daemon stopped?\n", stat_prog,
			path, what, STAT_REPLY_WAIT_S);
	else
		fprintf(stderr, "%s: %s: the daemon went away\n", stat_prog, path);
	return TOOL_EXIT_FAIL;
}

/*
 * Read the daemon's greeting, find its /segnet/ commands unless --cmd named
 * them, and check that each one answers: TOOL_EXIT_OK, or the exit status.
 */
static int stat_start(int fd, struct stat_opts *o, const char *path, char *buf)
{
	ssize_t got = recv(fd, buf, STAT_REPLY_MAX - 1, 0);

	if (got <= 0)
		return stat_no_answer(path, "greeting", got < 0 ? errno : ECONNRESET);
	if (!o->n_cmds) {
		got = stat_discover(fd, buf, o->cmds);
		if (got < 0)
			return stat_no_answer(path, "reply", (int)-got);
		o->n_cmds = (unsigned int)got;
	}
	if (!o->n_cmds) {
		fprintf(stderr, "%s: %s has no /segnet/ commands: not a switchd or nicd?\n",
			stat_prog, path);
		return TOOL_EXIT_FAIL;
	}
	return stat_commands_known(fd, o, buf) ? TOOL_EXIT_OK : TOOL_EXIT_USAGE;
}

/* True when entry e is to be shown. */
static bool stat_shown(const struct stat_opts *o, const struct stat_entry *e)
{
	if (o->filter && !strstr(e->name, o->filter))
		return false;
	return o->all || e->value != 0;
}

/* The value of name in prev (hint: its index there), or NAN-free 0 and false. */
static bool stat_prev_value(const struct stat_sample *prev, size_t hint,
			    const char *name, double *v)
{
	if (hint < prev->n && !strcmp(prev->e[hint].name, name)) {
		*v = prev->e[hint].value;
		return true;
	}
	for (size_t i = 0; i < prev->n; i++)
		if (!strcmp(prev->e[i].name, name)) {
			*v = prev->e[i].value;
			return true;
		}
	return false;
}

/* Print a sample for --once: name value (or JSON). */
static void stat_print_once(const struct stat_opts *o, const struct stat_sample *s)
{
	bool first = true;

	if (o->json)
		printf("{");
	for (size_t i = 0; i < s->n; i++) {
		if (!stat_shown(o, &s->e[i]))
			continue;
		if (o->json) {
			fputs(first ? "" : ", ", stdout);
			dp_json_str(stdout, s->e[i].name);
			printf(": %.17g", s->e[i].value);
		} else
			printf("%s %.17g\n", s->e[i].name, s->e[i].value);
		first = false;
	}
	if (o->json)
		printf("}\n");
}

/* Print a refresh: every shown counter with its rate since prev. */
static void stat_print_live(const struct stat_opts *o, const char *path,
			    const struct stat_sample *s, const struct stat_sample *prev,
			    bool tty)
{
	double dt = prev->n ? (double)(s->t_ns - prev->t_ns) / 1e9 : 0;
	time_t now = time(NULL);
	char when[16], num[DP_OPT_NUM_LEN];

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (tty)
		printf("\033[H\033[2J");
	printf("segnet-stat %s  %s  every %s s\n%-56s %18s %14s\n", path, when,
	       dp_opt_num(o->interval, num), "counter", "value", "per second");
	for (size_t i = 0; i < s->n; i++) {
		double pv, rate = 0;

		if (!stat_shown(o, &s->e[i]))
			continue;
		if (dt > 0 && stat_prev_value(prev, i, s->e[i].name, &pv))
			rate = (s->e[i].value - pv) / dt;
		printf("%-56s %18.17g %14.1f\n", s->e[i].name, s->e[i].value, rate);
	}
	if (!tty)
		printf("\n");
	fflush(stdout);
}

/* Sleep for the refresh interval (a signal ends it). */
static void stat_sleep(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	struct stat_sample cur = { 0 }, prev = { 0 }, tmp;
	char path[300] = "";
	struct stat_opts o;
	bool tty = isatty(STDOUT_FILENO);
	int fd, rc = stat_parse(&o, argc, argv);
	ssize_t got;
	char *buf;

	if (rc)
		return rc == 1 ? TOOL_EXIT_OK : TOOL_EXIT_USAGE;
	tool_signals();
	fd = stat_connect(&o, path, sizeof(path));
	if (fd < 0 && o.socket) {
		fprintf(stderr, "%s: --socket %s: cannot connect: %s (is the daemon running, without --no-telemetry?)\n",
			stat_prog, path, strerror(-fd));
		return TOOL_EXIT_FAIL;
	}
	if (fd < 0) {
		fprintf(stderr, "%s: cannot reach telemetry at %s: %s (is the daemon running with --file-prefix %s and without --no-telemetry?)\n",
			stat_prog, path, strerror(-fd), o.prefix);
		return TOOL_EXIT_FAIL;
	}
	/* A stopped daemon (SIGSTOP, a debugger) must not hang us for ever. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO,
		   &(struct timeval){ .tv_sec = STAT_REPLY_WAIT_S }, sizeof(struct timeval));
	buf = malloc(STAT_REPLY_MAX);
	if (!buf)
		fprintf(stderr, "%s: out of memory\n", stat_prog);
	rc = buf ? stat_start(fd, &o, path, buf) : TOOL_EXIT_FAIL;
	for (uint64_t k = 0; rc == TOOL_EXIT_OK && !tool_stop && (!o.count || k < o.count); k++) {
		if (k)
			stat_sleep(o.interval);
		if (tool_stop)
			break;
		got = stat_sample(fd, &o, buf, &cur);
		if (got == -ENOMEM) {
			fprintf(stderr, "%s: out of memory\n", stat_prog);
			rc = TOOL_EXIT_FAIL;
			break;
		}
		if (got < 0) {
			rc = stat_no_answer(path, "reply", (int)-got);
			break;
		}
		if (o.once)
			stat_print_once(&o, &cur);
		else
			stat_print_live(&o, path, &cur, &prev, tty);
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	close(fd);
	free(cur.e);
	free(prev.e);
	free(buf);
	return rc;
}
