/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd and libsegnet together, without a switch (a NIC that has not
 * joined still serves endpoints and queues sends): opening and closing
 * endpoints, the refusals (wrong key EACCES, unknown network ENOENT, full
 * table ENOSPC), the shared-memory object's mode and owner, send argument
 * checks and send buffers, nicd's death by SIGKILL (socket EOF), SIGSTOP
 * (stale heartbeat) and SIGTERM (clean stop), and reopening through a
 * restarted nicd. nicd's argument errors are in test_tools.c.
 */
#include <dirent.h>
#include <grp.h>
#include <sys/mman.h>

#include "nicd/segnet.h"
#include "nicd_test.h"

/* The shared-memory objects of nicd n: how many, their mode and owner. */
static int t_shm_objects(const struct t_nicd *n, mode_t *mode, uid_t *uid, char *name,
			 size_t len)
{
	char prefix[64], path[320];
	struct dirent *d;
	struct stat st;
	DIR *dir = opendir("/dev/shm");
	int count = 0;

	snprintf(prefix, sizeof(prefix), "segnet.%s.", n->name);
	cr_assert_not_null(dir);
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "/dev/shm/%s", d->d_name);
		cr_assert_eq(stat(path, &st), 0);
		*mode = st.st_mode & 07777;
		*uid = st.st_uid;
		if (name)
			snprintf(name, len, "/%s", d->d_name);
		count++;
	}
	closedir(dir);
	return count;
}

/* Open an endpoint of vnet 1 with the right key (and opts). */
static struct segnet_ep *t_open(const struct t_nicd *n, const struct segnet_open_opts *o)
{
	return segnet_open(n->sock, 1, "secret", 6, o);
}

Test(nicd, open_close_and_refusals, .timeout = 60)
{
	struct segnet_ep *ep[4], *x;
	struct t_nicd n;

	t_nicd_init(&n, "open");
	t_nicd_start(&n, "--endpoints", "4", NULL);
	for (int i = 0; i < 4; i++) {
		ep[i] = t_open(&n, NULL);
		cr_assert_not_null(ep[i], "open %d: %s", i, strerror(errno));
		cr_assert_lt(segnet_endpoint(ep[i]), 4);
		for (int j = 0; j < i; j++)
			cr_assert_neq(segnet_endpoint(ep[i]), segnet_endpoint(ep[j]));
	}
	cr_assert_eq(segnet_node(ep[0]), 0xFFFF, "no node id before joining");
	cr_assert_eq(segnet_cluster_size(ep[0]), 0);
	errno = 0;
	cr_assert_null(t_open(&n, NULL));
	cr_assert_eq(errno, ENOSPC, "full table: %s", strerror(errno));
	segnet_close(ep[2]);
	t_sleep_ms(50);		/* nicd looks at its sockets every millisecond */
	x = t_open(&n, NULL);
	cr_assert_not_null(x, "a closed endpoint's entry is free again: %s", strerror(errno));
	cr_assert_null(segnet_open(n.sock, 1, "secreT", 6, NULL));
	cr_assert_eq(errno, EACCES, "wrong key: %s", strerror(errno));
	cr_assert_null(segnet_open(n.sock, 1, "secret\n", 7, NULL));
	cr_assert_eq(errno, EACCES, "the newline is not part of the key");
	cr_assert_null(segnet_open(n.sock, 2, "secret", 6, NULL));
	cr_assert_eq(errno, EACCES, "vnet 2 has its own key");
	cr_assert_null(segnet_open(n.sock, 9, "secret", 6, NULL));
	cr_assert_eq(errno, ENOENT, "unknown vnet: %s", strerror(errno));
	cr_assert_null(segnet_open(n.sock, 1, "secret", 65, NULL));
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(segnet_open(n.sock, 1, "secret", 0, NULL));
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(segnet_open("/nonexistent/segnet.sock", 1, "secret", 6, NULL));
	cr_assert_eq(errno, ENOENT);
	segnet_close(x);
	for (int i = 0; i < 4; i++)
		if (i != 2)
			segnet_close(ep[i]);
	cr_assert_eq(t_nicd_stop(&n, SIGTERM), 0, "%s", t_read_file(n.log));
	cr_assert(strstr(t_read_file(n.log), "open_bad_key 3"), "%s", t_read_file(n.log));
	t_nicd_fini(&n);
}

Test(nicd, sends_before_joining, .timeout = 60)
{
	struct segnet_open_opts o = { .send_bufs = 4, .recv_bufs = 4 };
	struct segnet_completion c[8];
	uint8_t args[SEGNET_ARGS_LEN] = { 1 }, data[SEGNET_MAX_PAYLOAD + 1] = { 0 };
	struct segnet_ep *ep;
	struct t_nicd n;

	t_nicd_init(&n, "send");
	t_nicd_start(&n, NULL);
	ep = t_open(&n, &o);
	cr_assert_not_null(ep, "%s", strerror(errno));
	cr_assert_eq(segnet_send_bulk(ep, 1, 0, 1, args, data, SEGNET_MAX_PAYLOAD + 1, 0), -EINVAL);
	cr_assert_eq(segnet_send_quick(ep, 64, 0, 1, args, 0), -EINVAL, "node beyond --max-nodes");
	cr_assert_eq(segnet_send_quick(ep, 1, 64, 1, args, 0), -EINVAL, "endpoint beyond --endpoints");
	cr_assert_eq(segnet_send_quick(ep, 1, 0, SEGNET_MAX_HANDLERS, args, 0), -EINVAL);
	cr_assert_eq(segnet_set_handler(ep, SEGNET_MAX_HANDLERS, NULL, NULL), -EINVAL);
	/* Not joined: the NIC queues the sends, so the four buffers stay taken. */
	cr_assert_eq(segnet_send_quick(ep, 1, 0, 1, args, 1), 0);
	cr_assert_eq(segnet_send_bulk(ep, 1, 0, 1, args, data, 100, 2), 0);
	cr_assert_eq(segnet_send_bulk(ep, 2, 3, 1, args, data, SEGNET_MAX_PAYLOAD, 3), 0);
	cr_assert_eq(segnet_send_quick(ep, 1, 0, 1, NULL, 4), 0);
	cr_assert_eq(segnet_send_quick(ep, 1, 0, 1, args, 5), -EAGAIN, "no send buffer left");
	cr_assert_eq(segnet_poll(ep, c, 8), 0, "nothing completes before joining");
	cr_assert_eq(segnet_wait(ep, 20), -ETIMEDOUT);
	segnet_close(ep);
	t_sleep_ms(50);
	cr_assert_eq(t_nicd_stop(&n, SIGTERM), 0, "%s", t_read_file(n.log));
	cr_assert(strstr(t_read_file(n.log), "host.sends 4"), "%s", t_read_file(n.log));
	cr_assert(strstr(t_read_file(n.log), "no mbuf leaked"), "%s", t_read_file(n.log));
	t_nicd_fini(&n);
}

Test(nicd, shm_is_0600_and_the_applications, .timeout = 60)
{
	char name[320];
	struct segnet_ep *ep;
	struct t_nicd n;
	mode_t mode = 0;
	uid_t uid = 0;
	pid_t child;
	int st;

	t_nicd_init(&n, "shm");
	t_nicd_start(&n, NULL);
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep, "%s", strerror(errno));
	cr_assert_eq(t_shm_objects(&n, &mode, &uid, name, sizeof(name)), 1);
	cr_assert_eq(mode, 0600, "mode %o", mode);
	cr_assert_eq(uid, getuid());
	segnet_close(ep);
	t_sleep_ms(50);
	cr_assert_eq(t_shm_objects(&n, &mode, &uid, NULL, 0), 0, "closing removes the object");
	if (geteuid() != 0) {
		t_nicd_fini(&n);
		cr_skip_test("another uid's application needs root");
	}
	/* An application of another user gets an object only it can map. */
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep);
	cr_assert_eq(t_shm_objects(&n, &mode, &uid, name, sizeof(name)), 1);
	child = fork();
	if (child == 0) {
		struct segnet_ep *mine;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(10);
		if (shm_open(name, O_RDWR, 0) >= 0 || errno != EACCES)
			_exit(11);	/* root's endpoint is not ours to map */
		mine = segnet_open(n.sock, 1, "secret", 6, NULL);
		if (!mine)
			_exit(12);
		t_sleep_ms(300);	/* the parent looks at the object meanwhile */
		segnet_close(mine);
		_exit(0);
	}
	t_sleep_ms(150);
	{
		char path[320];
		struct dirent *d;
		DIR *dir = opendir("/dev/shm");
		int theirs = 0;

		while ((d = readdir(dir))) {
			struct stat s;

			snprintf(path, sizeof(path), "/dev/shm/%s", d->d_name);
			if (strncmp(d->d_name, name + 1, strlen("segnet.") + strlen(n.name)) ||
			    stat(path, &s) || s.st_uid != 65534)
				continue;
			cr_assert_eq(s.st_mode & 07777, 0600);
			theirs++;
		}
		closedir(dir);
		cr_assert_eq(theirs, 1, "the child's object belongs to uid 65534");
	}
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed with %d", WEXITSTATUS(st));
	segnet_close(ep);
	t_nicd_fini(&n);
}

/* Poll until -ESHUTDOWN or ms pass; how long it took (ms), or -1. */
static int t_until_shutdown(struct segnet_ep *ep, unsigned int ms)
{
	uint64_t t0 = t_ms();

	while (t_ms() - t0 < ms) {
		if (segnet_poll(ep, NULL, 0) == -ESHUTDOWN)
			return (int)(t_ms() - t0);
		t_sleep_ms(1);
	}
	return -1;
}

Test(nicd, sigkill_then_restart, .timeout = 60)
{
	uint8_t args[SEGNET_ARGS_LEN] = { 0 };
	struct segnet_ep *a, *b;
	struct t_nicd n;
	mode_t mode;
	uid_t uid;
	uint64_t t0;
	int ms;

	t_nicd_init(&n, "kill");
	t_nicd_start(&n, NULL);
	a = t_open(&n, NULL);
	b = t_open(&n, NULL);
	cr_assert(a && b, "%s", strerror(errno));
	cr_assert_eq(t_nicd_stop(&n, SIGKILL), 128 + SIGKILL);
	ms = t_until_shutdown(a, 3000);
	cr_assert(ms >= 0 && ms < 500, "segnet_poll saw nicd's death after %d ms", ms);
	t0 = t_ms();
	cr_assert_eq(segnet_wait(b, 5000), -ESHUTDOWN);
	cr_assert_lt(t_ms() - t0, 500, "segnet_wait returned after %llu ms",
		     (unsigned long long)(t_ms() - t0));
	cr_assert_eq(segnet_send_quick(a, 1, 0, 1, args, 0), -ESHUTDOWN);
	cr_assert_eq(segnet_poll(a, NULL, 0), -ESHUTDOWN, "stays shut down");
	cr_assert_eq(t_shm_objects(&n, &mode, &uid, NULL, 0), 2, "SIGKILL leaves the objects");
	segnet_close(a);
	segnet_close(b);
	/* A new nicd takes over the name, removes the leftovers, serves again. */
	t_nicd_start(&n, NULL);
	cr_assert_eq(t_shm_objects(&n, &mode, &uid, NULL, 0), 0, "stale objects removed");
	a = t_open(&n, NULL);
	cr_assert_not_null(a, "reopen through the restarted nicd: %s", strerror(errno));
	cr_assert_eq(segnet_poll(a, NULL, 0), 0);
	cr_assert_eq(segnet_send_quick(a, 1, 0, 1, args, 0), 0);
	segnet_close(a);
	t_nicd_fini(&n);
}

Test(nicd, stopped_nicd_found_by_heartbeat, .timeout = 60)
{
	struct segnet_ep *ep;
	struct t_nicd n;
	int ms;

	t_nicd_init(&n, "stop");
	t_nicd_start(&n, NULL);
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep, "%s", strerror(errno));
	cr_assert_eq(segnet_poll(ep, NULL, 0), 0);
	/* Frozen, not dead: the socket stays open, only the heartbeat stops. */
	kill(n.pid, SIGSTOP);
	ms = t_until_shutdown(ep, 5000);
	kill(n.pid, SIGCONT);
	cr_assert(ms >= 500 && ms < 2500, "a stale heartbeat is noticed after ~1 s, took %d ms", ms);
	segnet_close(ep);
	t_nicd_fini(&n);
}

Test(nicd, sigterm_closes_endpoints, .timeout = 60)
{
	struct segnet_ep *ep;
	struct t_nicd n;
	uint64_t t0;
	pid_t pid;
	int st;

	t_nicd_init(&n, "term");
	t_nicd_start(&n, NULL);
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep, "%s", strerror(errno));
	pid = n.pid;
	kill(pid, SIGTERM);
	t0 = t_ms();
	cr_assert_eq(segnet_wait(ep, 5000), -ESHUTDOWN);
	cr_assert_lt(t_ms() - t0, 1000);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	n.pid = 0;
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", t_read_file(n.log));
	cr_assert(strstr(t_read_file(n.log), "nicd: summary"), "%s", t_read_file(n.log));
	cr_assert(strstr(t_read_file(n.log), "no mbuf leaked"), "%s", t_read_file(n.log));
	cr_assert_not(t_socket_up(n.sock));
	segnet_close(ep);
	t_nicd_fini(&n);
}

Test(nicd, wake_on_event, .timeout = 60)
{
	struct segnet_ep *ep;
	struct t_nicd n;
	uint64_t t0;

	t_nicd_init(&n, "wake");
	t_nicd_start(&n, NULL);
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep, "%s", strerror(errno));
	cr_assert_geq(segnet_fd(ep), 0);
	cr_assert_eq(segnet_arm(ep), 0, "nothing ready: armed");
	t0 = t_ms();
	cr_assert_eq(segnet_wait(ep, 100), -ETIMEDOUT);
	cr_assert_geq(t_ms() - t0, 90);
	segnet_close(ep);
	t_nicd_fini(&n);
}
