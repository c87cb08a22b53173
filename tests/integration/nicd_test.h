/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the nicd integration tests: start nicd in a temporary
 * directory with its own EAL file prefix (net_null ports that receive
 * nothing, so it runs without a switch and without hugepages), wait for
 * its control socket, stop it by PID, run tools and read their output.
 * Every process a test starts dies with the test (PR_SET_PDEATHSIG) and
 * is killed by PID, never by name.
 */
#ifndef SEGNET_NICD_TEST_H
#define SEGNET_NICD_TEST_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
	T_ARGS_MAX = 64,	/* arguments of a command */
	T_START_MS = 20000,	/* longest wait for nicd's socket */
};

/* A nicd under test. */
struct t_nicd {
	pid_t pid;		/* 0 when not running */
	char dir[128];		/* temporary directory (sockets, keys, logs) */
	char name[32];		/* node / socket name */
	char prefix[64];	/* EAL file prefix */
	char sock[192];		/* DIR/NAME.sock */
	char log[192];		/* its stdout and stderr */
	char key1[192];		/* key file of vnet 1 ("secret") */
	char key2[192];		/* key file of vnet 2 ("other") */
};

/*
 * Copies of the nicds a test made, by the directory that names them: a
 * failed assertion leaves the test before its t_nicd_fini, and the suite's
 * .fini (t_nicd_cleanup_all) still stops them and removes what they made.
 */
enum { T_NICD_MAX = 8 };
static struct t_nicd t_nicd_made[T_NICD_MAX];

/* The registry entry of n (by its directory), or a free one when add. */
static inline struct t_nicd *t_nicd_entry(const struct t_nicd *n, bool add)
{
	for (int i = 0; i < T_NICD_MAX; i++)
		if (t_nicd_made[i].dir[0] && !strcmp(t_nicd_made[i].dir, n->dir))
			return &t_nicd_made[i];
	for (int i = 0; add && i < T_NICD_MAX; i++)
		if (!t_nicd_made[i].dir[0])
			return &t_nicd_made[i];
	return NULL;
}

/* Record n's state (after init, start and stop). */
static inline void t_nicd_note(const struct t_nicd *n)
{
	struct t_nicd *e = t_nicd_entry(n, true);

	if (e)
		*e = *n;
}

/* CLOCK_MONOTONIC in ms. */
static inline uint64_t t_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Sleep ms milliseconds. */
static inline void t_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Write a small file. */
static inline void t_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* Read a file into a static buffer (for assertions on logs). */
static inline const char *t_read_file(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (!f)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Fork and exec argv with stdout and stderr to out (NULL: /dev/null). */
static inline pid_t t_spawn(char *const argv[], const char *out)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0, "fork");
	if (pid == 0) {
		int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0644);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait up to ms for pid; its exit status (128+signal when killed), -1 on timeout. */
static inline int t_wait(pid_t pid, unsigned int ms)
{
	uint64_t end = t_ms() + ms;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (t_ms() >= end)
			return -1;
		t_sleep_ms(5);
	}
}

/* Run argv to completion (at most ms); its exit status, output in out. */
static inline int t_run(char *const argv[], const char *out, unsigned int ms)
{
	pid_t pid;
	int rc;

	if (out)
		unlink(out);
	pid = t_spawn(argv, out);
	rc = t_wait(pid, ms);
	if (rc < 0) {
		kill(pid, SIGKILL);
		t_wait(pid, 5000);
	}
	return rc;
}

/* Build an argv from a NULL-terminated list of strings. */
static inline void t_argv(char **argv, const char *first, ...)
{
	va_list ap;
	int n = 0;

	va_start(ap, first);
	for (const char *a = first; a && n < T_ARGS_MAX - 1; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
}

/* Build an argv of bin and a va_list of strings ending in NULL. */
static inline void t_argv_va(char **argv, const char *bin, va_list ap)
{
	const char *a;
	int n = 0;

	argv[n++] = (char *)bin;
	while ((a = va_arg(ap, const char *)) && n < T_ARGS_MAX - 1)
		argv[n++] = (char *)a;
	argv[n] = NULL;
}

/* Append a va_list of strings ending in NULL to a NULL-terminated argv. */
static inline void t_argv_append_va(char **argv, va_list ap)
{
	const char *a;
	int n = 0;

	while (argv[n])
		n++;
	while ((a = va_arg(ap, const char *)) && n < T_ARGS_MAX - 1)
		argv[n++] = (char *)a;
	argv[n] = NULL;
}

/* True when something accepts connections at path. */
static inline bool t_socket_up(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	bool up;

	if (strlen(path) >= sizeof(sa.sun_path))
		return false;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	up = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return up;
}

/* Make the directory, key files and names of a nicd under test. */
static inline void t_nicd_init(struct t_nicd *n, const char *tag)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->dir, sizeof(n->dir), "/tmp/segnet-it-%s.XXXXXX", tag);
	cr_assert_not_null(mkdtemp(n->dir));
	chmod(n->dir, 0755);	/* other users' applications reach the socket */
	snprintf(n->name, sizeof(n->name), "it%d", (int)getpid());
	snprintf(n->prefix, sizeof(n->prefix), "segnet-it-%s-%d", tag, (int)getpid());
	snprintf(n->sock, sizeof(n->sock), "%s/%s.sock", n->dir, n->name);
	snprintf(n->log, sizeof(n->log), "%s/nicd.log", n->dir);
	snprintf(n->key1, sizeof(n->key1), "%s/vnet1.key", n->dir);
	snprintf(n->key2, sizeof(n->key2), "%s/vnet2.key", n->dir);
	t_write_file(n->key1, "secret\n");
	t_write_file(n->key2, "other");
	t_nicd_note(n);
}

/*
 * Start nicd with extra options (NULL-terminated, after the standard ones)
 * and wait for its control socket.
 */
static inline void t_nicd_start(struct t_nicd *n, ...)
{
	char *argv[T_ARGS_MAX];
	static char vnet1[256], vnet2[256];
	uint64_t end;
	va_list ap;

	snprintf(vnet1, sizeof(vnet1), "1:%s:conf3", n->key1);
	snprintf(vnet2, sizeof(vnet2), "2:%s:conf1", n->key2);
	t_argv(argv, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf", "-l", "0",
	       "--file-prefix", n->prefix, "--vdev", "net_null0,no-rx=1",
	       "--log-level", "lib.telemetry:error", "--",
	       "--bulk-port", "net_null0", "--name", n->name, "--socket-dir", n->dir,
	       "--vnet", vnet1, "--vnet", vnet2, "--descriptors", "1024", NULL);
	va_start(ap, n);
	t_argv_append_va(argv, ap);
	va_end(ap);
	n->pid = t_spawn(argv, n->log);
	t_nicd_note(n);
	end = t_ms() + T_START_MS;
	while (!t_socket_up(n->sock)) {
		int st;

		if (waitpid(n->pid, &st, WNOHANG) == n->pid) {
			n->pid = 0;
			cr_assert_fail("nicd exited at start:\n%s", t_read_file(n->log));
		}
		if (t_ms() > end)
			cr_assert_fail("nicd did not open %s:\n%s", n->sock, t_read_file(n->log));
		t_sleep_ms(20);
	}
}

/* Send sig to nicd and wait for it; its exit status. */
static inline int t_nicd_stop(struct t_nicd *n, int sig)
{
	int rc;

	if (!n->pid)
		return -1;
	kill(n->pid, sig);
	rc = t_wait(n->pid, 10000);
	if (rc < 0) {
		kill(n->pid, SIGKILL);
		rc = t_wait(n->pid, 5000);
	}
	n->pid = 0;
	t_nicd_note(n);
	return rc;
}

/* Stop nicd if it runs and remove what the test made. */
static inline void t_nicd_fini(struct t_nicd *n)
{
	char cmd[512];

	t_nicd_stop(n, SIGKILL);
	/* PREFIX* also takes the runtime dirs of the extra processes (PREFIX-2). */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' /var/run/dpdk/'%s'* /tmp/dpdk/'%s'*",
		 n->dir, n->prefix, n->prefix);
	if (system(cmd))
		cr_log_warn("cleanup failed: %s", cmd);
	{
		struct t_nicd *e = t_nicd_entry(n, false);

		if (e)
			memset(e, 0, sizeof(*e));
	}
}

/* Suite .fini: whatever a failed test left (see t_nicd_made). */
static inline void t_nicd_cleanup_all(void)
{
	for (int i = 0; i < T_NICD_MAX; i++)
		if (t_nicd_made[i].dir[0]) {
			struct t_nicd n = t_nicd_made[i];

			t_nicd_fini(&n);
		}
}

#endif
