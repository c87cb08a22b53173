/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd and libsegnet together, without a switch (a NIC that has not
 * joined still serves endpoints and queues sends): opening and closing
 * endpoints, the refusals (wrong key EACCES, unknown network ENOENT, full
 * table ENOSPC), the shared-memory object (a sealed memfd with no name in
 * /dev/shm, that an application cannot resize to crash nicd), send
 * argument checks and send buffers, nicd's death by SIGKILL (socket EOF),
 * SIGSTOP (stale heartbeat) and SIGTERM (clean stop), and reopening
 * through a restarted nicd. nicd's argument errors are in test_tools.c.
 */
#include <dirent.h>
#include <glob.h>
#include <grp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "nicd/ctl_msg.h"
#include "nicd/ep_shm.h"
#include "nicd/segnet.h"
#include "nicd_test.h"

/*
 * The endpoint objects nicd n holds (memfds called segnet.NAME.*): how
 * many; the /proc path of the last one in path and its name in name.
 */
static int t_nicd_memfds(const struct t_nicd *n, char *path, char *name, size_t len)
{
	char dirpath[64], link[256], prefix[64];
	struct dirent *d;
	DIR *dir;
	int count = 0;
	ssize_t got;

	snprintf(dirpath, sizeof(dirpath), "/proc/%d/fd", (int)n->pid);
	snprintf(prefix, sizeof(prefix), "/memfd:segnet.%s.", n->name);
	dir = opendir(dirpath);
	cr_assert_not_null(dir, "%s: %s", dirpath, strerror(errno));
	while ((d = readdir(dir))) {
		got = readlinkat(dirfd(dir), d->d_name, link, sizeof(link) - 1);
		if (got <= 0)
			continue;
		link[got] = '\0';
		if (strncmp(link, prefix, strlen(prefix)))
			continue;
		cr_assert(strstr(link, " (deleted)"), "%s", link);
		if (path)
			snprintf(path, len, "%s/%d", dirpath, atoi(d->d_name));
		if (name)
			snprintf(name, len, "%.*s", (int)(strcspn(link, " ") - strlen("/memfd:")),
				 link + strlen("/memfd:"));
		count++;
	}
	closedir(dir);
	return count;
}

/* Objects of nicd n in /dev/shm (there must be none). */
static size_t t_dev_shm_objects(const struct t_nicd *n)
{
	char pattern[96];
	glob_t g;
	size_t count;

	snprintf(pattern, sizeof(pattern), "/dev/shm/segnet.%s.*", n->name);
	if (glob(pattern, 0, NULL, &g))
		return 0;
	count = g.gl_pathc;
	globfree(&g);
	return count;
}

/*
 * OPEN an endpoint of vnet 1 on the control socket by hand, as libsegnet
 * does, keeping the shared-memory descriptor it maps and closes: the
 * connection (the endpoint lives while it is open), or -1.
 */
static int t_open_by_hand(const struct t_nicd *n, struct ctl_reply *r, int *shm_fd)
{
	struct ctl_open m = {
		.magic = CTL_MAGIC, .version = CTL_VERSION, .type = CTL_OPEN,
		.vnet = 1, .key_len = 6, .key = "secret",
	};
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char cbuf[CMSG_SPACE(sizeof(int) * CTL_FDS)];
	struct iovec iov = { .iov_base = r, .iov_len = sizeof(*r) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int fds[CTL_FDS];

	cr_assert_lt(strlen(n->sock), sizeof(sa.sun_path));
	memcpy(sa.sun_path, n->sock, strlen(n->sock) + 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(fd, &m, sizeof(m), 0) != (ssize_t)sizeof(m) ||
	    recvmsg(fd, &mh, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(*r) ||
	    r->type != CTL_OPEN_OK || !(c = CMSG_FIRSTHDR(&mh)) ||
	    c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(fds))) {
		close(fd);
		return -1;
	}
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	close(fds[1]);		/* the eventfd */
	*shm_fd = fds[0];
	return fd;
}

/* Open an endpoint of vnet 1 with the right key (and opts). */
static struct segnet_ep *t_open(const struct t_nicd *n, const struct segnet_open_opts *o)
{
	return segnet_open(n->sock, 1, "secret", 6, o);
}

/* A failed assertion skips a test's t_nicd_fini: stop and remove what it left. */
TestSuite(nicd, .fini = t_nicd_cleanup_all);

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

Test(nicd, shm_is_a_sealed_memfd_nobody_can_name, .timeout = 60)
{
	char path[256], name[256], theirs[260];
	struct segnet_ep *ep;
	struct ctl_reply r;
	struct t_nicd n;
	struct stat st;
	int sock, fd, wst;
	pid_t child;

	t_nicd_init(&n, "shm");
	t_nicd_start(&n, NULL);
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep, "%s", strerror(errno));
	cr_assert_eq(t_nicd_memfds(&n, path, name, sizeof(name)), 1, "nicd holds the object");
	cr_assert_eq(t_dev_shm_objects(&n), 0, "nothing in /dev/shm");
	/* The descriptor the library gets: sealed at its size. */
	sock = t_open_by_hand(&n, &r, &fd);
	cr_assert_geq(sock, 0, "%s", strerror(errno));
	cr_assert_eq(t_nicd_memfds(&n, NULL, NULL, 0), 2);
	/* F_SEAL_EXEC as well where the kernel has it (6.3 and later). */
	cr_assert_eq(fcntl(fd, F_GET_SEALS) & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
		     F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq((uint64_t)st.st_size, r.shm_size);
	cr_assert_eq(ftruncate(fd, (off_t)r.shm_size * 2), -1, "cannot grow it either");
	cr_assert_eq(errno, EPERM);
	cr_assert(strncmp(r.shm_name, name, strlen("segnet.") + strlen(n.name)) == 0,
		  "the reply names the memfd: %s", r.shm_name);
	close(fd);
	close(sock);
	segnet_close(ep);
	t_sleep_ms(50);
	cr_assert_eq(t_nicd_memfds(&n, NULL, NULL, 0), 0, "closing releases the objects");
	if (geteuid() != 0) {
		t_nicd_fini(&n);
		cr_skip_test("another uid's application needs root");
	}
	/* Another user's application can reach its own endpoint, not ours. */
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep);
	cr_assert_eq(t_nicd_memfds(&n, path, name, sizeof(name)), 1);
	snprintf(theirs, sizeof(theirs), "/%s", name);
	child = fork();
	if (child == 0) {
		struct segnet_ep *mine;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(10);
		if (shm_open(theirs, O_RDWR, 0) >= 0 || errno != ENOENT)
			_exit(11);	/* no name to open */
		if (open(path, O_RDWR) >= 0 || errno != EACCES)
			_exit(12);	/* nor through nicd's descriptor */
		mine = segnet_open(n.sock, 1, "secret", 6, NULL);
		if (!mine)
			_exit(13);
		segnet_close(mine);
		_exit(0);
	}
	cr_assert_eq(waitpid(child, &wst, 0), child);
	cr_assert(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "child failed with %d",
		  WEXITSTATUS(wst));
	segnet_close(ep);
	cr_assert_eq(t_nicd_stop(&n, SIGTERM), 0, "%s", t_read_file(n.log));
	t_nicd_fini(&n);
}

Test(nicd, shrinking_the_object_does_not_crash_nicd, .timeout = 60)
{
	struct segnet_ep *ep;
	struct ctl_reply r;
	struct t_nicd n;
	int sock, fd, ret, err, rc;

	t_nicd_init(&n, "shrink");
	t_nicd_start(&n, NULL);
	sock = t_open_by_hand(&n, &r, &fd);
	cr_assert_geq(sock, 0, "%s", strerror(errno));
	/* What a misbehaving application does; nicd's heartbeat write would SIGBUS. */
	ret = ftruncate(fd, 0);
	err = errno;
	rc = t_wait(n.pid, 200);
	cr_assert_eq(rc, -1, "nicd died (exit %d) after ftruncate returned %d:\n%s", rc, ret,
		     t_read_file(n.log));
	cr_assert_eq(ret, -1, "the object was shrunk");
	cr_assert_eq(err, EPERM, "%s", strerror(err));
	/* nicd still serves: a new endpoint sees a fresh heartbeat. */
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep, "%s", strerror(errno));
	t_sleep_ms(50);
	cr_assert_eq(segnet_poll(ep, NULL, 0), 0);
	segnet_close(ep);
	close(fd);
	close(sock);
	t_sleep_ms(50);
	cr_assert_eq(t_nicd_stop(&n, SIGTERM), 0, "%s", t_read_file(n.log));
	cr_assert(strstr(t_read_file(n.log), "no mbuf leaked"), "%s", t_read_file(n.log));
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
	cr_assert_eq(t_dev_shm_objects(&n), 0, "SIGKILL leaves no object behind");
	segnet_close(a);
	segnet_close(b);
	/* A new nicd takes over the name and serves again. */
	t_nicd_start(&n, NULL);
	a = t_open(&n, NULL);
	cr_assert_not_null(a, "reopen through the restarted nicd: %s", strerror(errno));
	cr_assert_eq(segnet_poll(a, NULL, 0), 0);
	cr_assert_eq(segnet_send_quick(a, 1, 0, 1, args, 0), 0);
	segnet_close(a);
	t_nicd_fini(&n);
}

/*
 * A frozen nicd is found by its heartbeat, after about 1 s of the
 * application's looks. A pause of the application and nicd together (a
 * paused machine: both stopped, the application running again first) is
 * not nicd gone: by the clock the heartbeat is then 1.5 s old, but the
 * application watched it for one look only. Here nicd stays stopped while
 * the application, its own pause over, polls once.
 */
Test(nicd, stopped_nicd_found_by_heartbeat, .timeout = 60)
{
	uint8_t args[SEGNET_ARGS_LEN] = { 0 };
	struct segnet_ep *ep;
	struct t_nicd n;
	int rc, ms;

	t_nicd_init(&n, "stop");
	t_nicd_start(&n, NULL);
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep, "%s", strerror(errno));
	cr_assert_eq(segnet_poll(ep, NULL, 0), 0);
	kill(n.pid, SIGSTOP);
	t_sleep_ms(1500);
	rc = segnet_poll(ep, NULL, 0);
	kill(n.pid, SIGCONT);
	cr_assert_eq(rc, 0, "a poll after a 1.5 s pause of both: %s", strerror(-rc));
	cr_assert_eq(segnet_send_quick(ep, 0, 0, 1, args, 0), 0);
	t_sleep_ms(50);
	/* Frozen, not dead: the socket stays open, only the heartbeat stops. */
	kill(n.pid, SIGSTOP);
	ms = t_until_shutdown(ep, 5000);
	kill(n.pid, SIGCONT);
	cr_assert(ms >= 500 && ms < 2500, "a stale heartbeat is noticed after ~1 s, took %d ms", ms);
	segnet_close(ep);
	t_nicd_fini(&n);
}

/*
 * Mappings in nicd n of the objects of endpoint ep (/proc/PID/maps lines of
 * memfds called segnet.NAME.HASH.EP.GENERATION.SEQ).
 */
static int t_nicd_mapped(const struct t_nicd *n, uint16_t ep)
{
	char path[64], line[512], prefix[64];
	int count = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)n->pid);
	snprintf(prefix, sizeof(prefix), "/memfd:segnet.%s.", n->name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, prefix);
		unsigned int id;

		if (at && sscanf(at + strlen(prefix), "%*x.%u.", &id) == 1 && id == ep)
			count++;
	}
	fclose(f);
	return count;
}

/* Wait up to 2 s for nicd n to unmap endpoint ep's object; true when it did. */
static bool t_nicd_unmaps(const struct t_nicd *n, uint16_t ep)
{
	uint64_t end = t_ms() + 2000;

	while (t_nicd_mapped(n, ep)) {
		if (t_ms() > end)
			return false;
		t_sleep_ms(10);
	}
	return true;
}

/* Value of counter key ("NAME.host.sends") in nicd n's summary; -1 if absent. */
static long long t_nicd_counter(const struct t_nicd *n, const char *key)
{
	const char *log = t_read_file(n->log), *at = log;
	size_t len = strlen(key);

	while ((at = strstr(at, key))) {
		if ((at == log || at[-1] == '\n') && at[len] == ' ')
			return strtoll(at + len + 1, NULL, 10);
		at += len;
	}
	return -1;
}

/* Fill endpoint ep's send buffers with bulk sends to node 1 (they wait: no switch); how many. */
static int t_fill_sends(struct segnet_ep *ep, int max)
{
	static uint8_t data[SEGNET_MAX_PAYLOAD];
	uint8_t args[SEGNET_ARGS_LEN] = { 0 };
	int n = 0;

	while (n < max && segnet_send_bulk(ep, 1, 0, 1, args, data, sizeof(data), (uint64_t)n) == 0)
		n++;
	return n;
}

/*
 * Sends of each closing endpoint: with nicd --descriptors 1024 (new sends
 * stop at a quarter free: 768), the NIC takes all of both endpoints'.
 */
enum { T_CANCEL_SENDS = 300 };

/*
 * An endpoint that closes, or whose application is killed, while its sends
 * wait in a NIC that cannot deliver them (no switch: it never joins) is
 * unmapped at once: nicd cancels those sends instead of keeping the 16 MB
 * of a 4096-buffer endpoint until they complete, which would be never. The
 * other endpoints keep their mappings and sends, and get no completion of
 * the cancelled ones. Both configurations: conf3 numbers packets (markers
 * take their numbers), conf1 does not.
 */
Test(nicd, a_closed_endpoint_is_unmapped_while_its_sends_wait, .timeout = 60)
{
	struct segnet_open_opts big = { .send_bufs = 4096, .recv_bufs = 4096 };
	struct segnet_open_opts o = { .send_bufs = 8, .recv_bufs = 8 };
	struct segnet_completion c[8];
	struct segnet_ep *closing, *stays;
	char key[96], key2[96];
	uint16_t closing_id, killed_id;
	int pipefd[2], st;
	struct t_nicd n;
	pid_t child;

	t_nicd_init(&n, "cancel");
	t_nicd_start(&n, NULL);
	stays = t_open(&n, &o);
	cr_assert_not_null(stays, "%s", strerror(errno));
	cr_assert_eq(t_fill_sends(stays, 8), 8);
	closing = t_open(&n, &big);
	cr_assert_not_null(closing, "%s", strerror(errno));
	closing_id = segnet_endpoint(closing);
	cr_assert_eq(t_fill_sends(closing, T_CANCEL_SENDS), T_CANCEL_SENDS);
	/* An application on vnet 2 (conf1) that is killed with its sends waiting. */
	cr_assert_eq(pipe(pipefd), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		struct segnet_ep *ep;
		uint16_t id;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ep = segnet_open(n.sock, 2, "other", 5, &big);
		id = ep ? segnet_endpoint(ep) : 0xFFFF;
		if (ep && t_fill_sends(ep, T_CANCEL_SENDS) != T_CANCEL_SENDS)
			id = 0xFFFF;
		if (write(pipefd[1], &id, sizeof(id)) != (ssize_t)sizeof(id))
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	cr_assert_eq(read(pipefd[0], &killed_id, sizeof(killed_id)), (ssize_t)sizeof(killed_id));
	close(pipefd[0]);
	cr_assert_neq(killed_id, 0xFFFF, "the child could not open or send");
	t_sleep_ms(200);	/* nicd takes the sends into its NIC */
	cr_assert_eq(t_nicd_mapped(&n, closing_id), 1);
	cr_assert_eq(t_nicd_mapped(&n, killed_id), 1);

	segnet_close(closing);
	kill(child, SIGKILL);
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert(t_nicd_unmaps(&n, closing_id), "the closed endpoint stays mapped");
	cr_assert(t_nicd_unmaps(&n, killed_id), "the killed application's endpoint stays mapped");
	cr_assert_eq(t_nicd_mapped(&n, segnet_endpoint(stays)), 1, "the open one was unmapped");
	cr_assert_eq(segnet_poll(stays, c, 8), 0, "a completion reached the endpoint that stays");
	segnet_close(stays);
	cr_assert_eq(t_nicd_stop(&n, SIGTERM), 0, "%s", t_read_file(n.log));
	/* Every send nicd took was cancelled when its endpoint closed. */
	snprintf(key, sizeof(key), "%s.host.sends", n.name);
	snprintf(key2, sizeof(key2), "%s.host.sends_cancelled", n.name);
	cr_assert_eq(t_nicd_counter(&n, key), 2 * T_CANCEL_SENDS + 8, "%s", t_read_file(n.log));
	cr_assert_eq(t_nicd_counter(&n, key2), t_nicd_counter(&n, key), "%s", t_read_file(n.log));
	snprintf(key2, sizeof(key2), "%s.cancelled", n.name);
	cr_assert_eq(t_nicd_counter(&n, key2), t_nicd_counter(&n, key), "%s", t_read_file(n.log));
	cr_assert(strstr(t_read_file(n.log), "no mbuf leaked"), "%s", t_read_file(n.log));
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

/* A connection to nicd n's control socket that sends nothing yet, or -1. */
static int t_connect(const struct t_nicd *n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	memcpy(sa.sun_path, n->sock, strlen(n->sock) + 1);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Connections that never send their OPEN must not lock applications out:
 * nicd keeps 16 waiting and used to let them expire only after 5 s, as long
 * as libsegnet waits for an answer. The oldest now makes room. An OPEN
 * longer than the message is refused (EPROTO), not cut to size.
 */
Test(nicd, idle_connections_do_not_lock_out_an_open, .timeout = 60)
{
	struct ctl_open m = {
		.magic = CTL_MAGIC, .version = CTL_VERSION, .type = CTL_OPEN,
		.vnet = 1, .key_len = 6, .key = "secret",
	};
	char big[4096] = { 0 };
	struct ctl_reply r;
	struct segnet_ep *ep;
	struct t_nicd n;
	int idle[40], fd;
	uint64_t t0;

	t_nicd_init(&n, "idle");
	t_nicd_start(&n, NULL);
	for (int i = 0; i < 40; i++) {
		idle[i] = t_connect(&n);
		cr_assert_geq(idle[i], 0, "connect %d: %s", i, strerror(errno));
	}
	t_sleep_ms(20);
	t0 = t_ms();
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep, "open behind 40 idle connections: %s", strerror(errno));
	cr_assert_lt(t_ms() - t0, 1000, "the open took %llu ms",
		     (unsigned long long)(t_ms() - t0));
	segnet_close(ep);

	memcpy(big, &m, sizeof(m));
	fd = t_connect(&n);
	cr_assert_geq(fd, 0);
	cr_assert_eq(send(fd, big, sizeof(big), 0), (ssize_t)sizeof(big));
	cr_assert_eq(recv(fd, &r, sizeof(r), 0), (ssize_t)sizeof(r));
	cr_assert_eq(r.type, CTL_OPEN_ERR);
	cr_assert_eq(r.error, EPROTO, "a 4096-byte OPEN: error %d", r.error);
	close(fd);
	for (int i = 0; i < 40; i++)
		close(idle[i]);
	cr_assert_eq(t_nicd_stop(&n, SIGTERM), 0, "%s", t_read_file(n.log));
	cr_assert(strstr(t_read_file(n.log), "open_evicted "), "%s", t_read_file(n.log));
	t_nicd_fini(&n);
}

/* Every call that takes an endpoint refuses NULL instead of crashing. */
Test(nicd, a_null_endpoint_is_refused)
{
	uint8_t args[SEGNET_ARGS_LEN] = { 0 };

	cr_assert_eq(segnet_send_quick(NULL, 0, 0, 0, args, 0), -EINVAL);
	cr_assert_eq(segnet_send_bulk(NULL, 0, 0, 0, args, "x", 1, 0), -EINVAL);
	cr_assert_eq(segnet_poll(NULL, NULL, 0), -EINVAL);
	cr_assert_eq(segnet_wait(NULL, 0), -EINVAL);
	cr_assert_eq(segnet_arm(NULL), -EINVAL);
	cr_assert_eq(segnet_fd(NULL), -EINVAL);
	cr_assert_eq(segnet_set_handler(NULL, 0, NULL, NULL), -EINVAL);
	cr_assert_eq(segnet_node(NULL), 0xFFFF);
	cr_assert_eq(segnet_endpoint(NULL), 0xFFFF);
	cr_assert_eq(segnet_cluster_size(NULL), 0);
	segnet_close(NULL);
}

/*
 * Endpoints opened by hand, with wake options and their rings in reach: a
 * send descriptor nicd refuses (channel 7) completes at once with
 * SEGNET_EINVAL, which gives events without a cluster.
 */
struct t_raw_ep {
	int sock, efd;		/* control connection, eventfd */
	void *base;		/* the mapped object */
	struct ep_layout l;	/* its layout */
	struct ep_view v;	/* the application's views of its rings */
	struct ctl_reply r;	/* nicd's answer */
};

/* OPEN an endpoint of vnet 1 with 4 + 4 buffers and wake options thr, delay_us. */
static void t_raw_open(const struct t_nicd *n, struct t_raw_ep *x, uint32_t thr,
		       uint32_t delay_us)
{
	struct ctl_open m = {
		.magic = CTL_MAGIC, .version = CTL_VERSION, .type = CTL_OPEN,
		.vnet = 1, .key_len = 6, .key = "secret", .send_bufs = 4, .recv_bufs = 4,
		.wake_threshold = thr, .wake_delay_us = delay_us,
	};
	char cbuf[CMSG_SPACE(sizeof(int) * CTL_FDS)];
	struct iovec iov = { .iov_base = &x->r, .iov_len = sizeof(x->r) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fds[CTL_FDS];

	memset(x, 0, sizeof(*x));
	x->sock = t_connect(n);
	cr_assert_geq(x->sock, 0, "%s", strerror(errno));
	cr_assert_eq(send(x->sock, &m, sizeof(m), 0), (ssize_t)sizeof(m));
	cr_assert_eq(recvmsg(x->sock, &mh, MSG_CMSG_CLOEXEC), (ssize_t)sizeof(x->r));
	cr_assert_eq(x->r.type, CTL_OPEN_OK);
	c = CMSG_FIRSTHDR(&mh);
	cr_assert_not_null(c);
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	x->efd = fds[1];
	x->base = mmap(NULL, x->r.shm_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	close(fds[0]);
	cr_assert_neq(x->base, MAP_FAILED);
	cr_assert_eq(ep_shm_check(x->base, x->r.shm_size, &x->l), 0);
	ep_view_init(&x->v, x->base, &x->l, false);
}

/* Push a send nicd refuses (channel 7) on send buffer buf. */
static void t_raw_bad_send(struct t_raw_ep *x, uint32_t buf)
{
	struct ep_send_desc d = { .buf = buf, .chan = 7 };

	cr_assert(spsc_push(&x->v.send, &d));
}

/* Pop one completion (SEGNET_EINVAL), waiting up to 2 s, without arming. */
static void t_raw_reap(struct t_raw_ep *x)
{
	struct ep_comp c;
	uint64_t end = t_ms() + 2000;

	while (!spsc_pop(&x->v.comp, &c)) {
		cr_assert_lt(t_ms(), end, "no completion");
		t_sleep_ms(1);
	}
	cr_assert_eq(c.status, SEGNET_EINVAL);
}

/* Close a raw endpoint. */
static void t_raw_close(struct t_raw_ep *x)
{
	munmap(x->base, x->r.shm_size);
	close(x->efd);
	close(x->sock);
}

/* Wait up to 2 s until n completions are on x's ring, taking none. */
static void t_raw_wait_comps(struct t_raw_ep *x, uint32_t n)
{
	uint64_t end = t_ms() + 2000;

	while (spsc_avail(&x->v.comp) < n) {
		cr_assert_lt(t_ms(), end, "%u completions expected", n);
		t_sleep_ms(1);
	}
}

/* Start nicd n (name) with an endpoint x of threshold 100 and delay 500 ms. */
static void t_raw_start_delayed(struct t_nicd *n, struct t_raw_ep *x, const char *name)
{
	t_nicd_init(n, name);
	t_nicd_start(n, NULL);
	t_raw_open(n, x, 100, 500000);
}

/*
 * 20 ms after the event to wait for came, arm x and wait for the wake-up
 * (3 s at most): with the delay of 500 ms, at least 300 ms after arming.
 * Then x and n are closed.
 */
static void t_raw_expect_delayed_wake(struct t_nicd *n, struct t_raw_ep *x)
{
	struct pollfd p = { .fd = x->efd, .events = POLLIN };
	uint64_t t0, took;

	t_sleep_ms(20);
	atomic_store(&x->v.hdr->wake_armed, 1);
	t0 = t_ms();
	cr_assert_eq(poll(&p, 1, 3000), 1, "no wake-up within 3 s");
	took = t_ms() - t0;
	cr_expect_geq(took, 300, "woken %llu ms after arming; the event waited for came "
		      "20 ms before arming and the delay is 500 ms", (unsigned long long)took);
	t_raw_close(x);
	t_nicd_fini(n);
}

/*
 * wake_delay_us counts from the first event that is waiting. An event the
 * application took by polling alone (never armed) must not start the
 * delay of a later one: nicd kept the time of the old event, so a later
 * arming woke at once instead of after the delay.
 */
Test(nicd, wake_delay_starts_at_the_waiting_event, .timeout = 60)
{
	struct t_raw_ep x;
	struct t_nicd n;

	t_raw_start_delayed(&n, &x, "wdelay");
	t_raw_bad_send(&x, 0);
	t_raw_reap(&x);			/* taken by polling: never armed */
	t_sleep_ms(1500);
	t_raw_bad_send(&x, 1);
	t_raw_reap(&x);
	t_raw_bad_send(&x, 2);		/* the event we wait for */
	t_raw_expect_delayed_wake(&n, &x);
}

/*
 * The same after a partial poll: the application takes the older of two
 * waiting events and leaves the newer. The delay counts from the newer
 * one; nicd kept the time of the first of the two, so arming woke at once.
 */
Test(nicd, wake_delay_after_a_partial_poll_starts_at_the_event_left, .timeout = 60)
{
	struct t_raw_ep x;
	struct t_nicd n;

	t_raw_start_delayed(&n, &x, "wpartial");
	t_raw_bad_send(&x, 0);
	t_raw_wait_comps(&x, 1);
	t_sleep_ms(1500);
	t_raw_bad_send(&x, 1);		/* the event we wait for */
	t_raw_wait_comps(&x, 2);
	t_raw_reap(&x);			/* the older one only */
	t_raw_expect_delayed_wake(&n, &x);
}

/* The reply of telemetry command cmd of nicd n (root: /var/run/dpdk). */
static const char *t_telemetry(const struct t_nicd *n, const char *cmd)
{
	static char buf[65536];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ssize_t got;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/var/run/dpdk/%s/dpdk_telemetry.v2",
		 n->prefix);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s: %s",
		     sa.sun_path, strerror(errno));
	cr_assert_gt(recv(fd, buf, sizeof(buf), 0), 0);	/* the greeting */
	cr_assert_eq(send(fd, cmd, strlen(cmd), 0), (ssize_t)strlen(cmd));
	got = recv(fd, buf, sizeof(buf) - 1, 0);
	cr_assert_gt(got, 0);
	buf[got] = '\0';
	close(fd);
	return buf;
}

/*
 * /segnet/nic/endpoints: a refused send is completed without being sent,
 * so in_flight (sent - completed) wrapped to 2^64 - 4; and the endpoint's
 * object had the key "held" twice (held-back messages now, and the
 * counter), of which a JSON reader keeps one.
 */
Test(nicd, endpoint_telemetry_is_consistent, .timeout = 60)
{
	struct t_raw_ep x;
	struct t_nicd n;
	const char *t, *h;

	if (geteuid())
		cr_skip_test("the telemetry socket is root's");
	t_nicd_init(&n, "eptel");
	t_nicd_start(&n, NULL);
	t_raw_open(&n, &x, 0, 0);
	for (uint32_t b = 0; b < 4; b++)
		t_raw_bad_send(&x, b);
	for (int i = 0; i < 4; i++)
		t_raw_reap(&x);
	t = t_telemetry(&n, "/segnet/nic/endpoints");
	cr_expect(strstr(t, "\"in_flight\":0,"), "%s", t);
	h = strstr(t, "\"held\":");
	cr_expect(h && !strstr(h + 1, "\"held\":"), "two \"held\" keys: %s", t);
	cr_expect(strstr(t, "\"held_now\":0,"), "%s", t);
	cr_expect(strstr(t, "\"completed\":4,") && strstr(t, "\"invalid\":4,"),
		  "the refusals are counted as such: %s", t);
	t_raw_close(&x);
	t_nicd_fini(&n);
}

/*
 * A file at DIR/NAME.sock that is not a socket is not nicd's to remove:
 * nicd unlinked whatever was there ("left by a nicd that died"). It now
 * refuses to start and names the path.
 */
Test(nicd, a_regular_file_at_the_socket_path_is_kept, .timeout = 60)
{
	char *argv[T_ARGS_MAX];
	char vnet1[256];
	struct t_nicd n;
	struct stat st;
	int rc;

	t_nicd_init(&n, "regfile");
	t_write_file(n.sock, "not a socket\n");
	snprintf(vnet1, sizeof(vnet1), "1:%s:conf3", n.key1);
	t_argv(argv, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf",
	       "-l", "0", "--file-prefix", n.prefix, "--vdev", "net_null0,no-rx=1",
	       "--log-level", "lib.telemetry:error", "--", "--bulk-port", "net_null0",
	       "--name", n.name, "--socket-dir", n.dir, "--vnet", vnet1, NULL);
	n.pid = t_spawn(argv, n.log);
	t_nicd_note(&n);
	rc = t_wait(n.pid, T_START_MS);
	if (rc >= 0) {
		n.pid = 0;
		t_nicd_note(&n);
	}
	cr_expect_eq(lstat(n.sock, &st), 0);
	cr_expect(S_ISREG(st.st_mode), "nicd replaced the regular file %s:\n%s", n.sock,
		  t_read_file(n.log));
	cr_expect_gt(rc, 0, "nicd did not refuse to start (%d):\n%s", rc, t_read_file(n.log));
	cr_expect(strstr(t_read_file(n.log), n.sock), "the message names the path:\n%s",
		  t_read_file(n.log));
	t_nicd_fini(&n);
}

/*
 * nicd raises its soft limit of open files to the hard one: each endpoint
 * takes three descriptors (connection, eventfd, object), so under a soft
 * limit of 60 opens from about the 15th on failed with EMFILE.
 */
Test(nicd, endpoints_fit_under_a_low_soft_fd_limit, .timeout = 60)
{
	struct rlimit old, low;
	struct segnet_ep *ep[64];
	struct t_nicd n;

	t_nicd_init(&n, "nofile");
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < 512)
		cr_skip_test("hard limit of open files %llu: too low for the test",
			     (unsigned long long)old.rlim_max);
	low = (struct rlimit) { .rlim_cur = 60, .rlim_max = old.rlim_max };
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	t_nicd_start(&n, "--endpoints", "64", NULL);	/* inherits the limits */
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	for (int i = 0; i < 64; i++) {
		ep[i] = t_open(&n, NULL);
		cr_assert_not_null(ep[i], "open %d: %s\n%s", i, strerror(errno),
				   t_read_file(n.log));
	}
	for (int i = 0; i < 64; i++)
		segnet_close(ep[i]);
	t_nicd_fini(&n);
}

/*
 * With a hard limit too low for its endpoints, nicd says so at start, and
 * the opens past it fail with the EMFILE segnet.h documents.
 */
Test(nicd, a_hard_fd_limit_below_the_endpoints_is_reported, .timeout = 90)
{
	struct segnet_ep *ep[40];
	struct t_nicd n;
	char name[16];
	int i;

	/*
	 * Three limits a descriptor apart, so that one of them runs out at
	 * nicd's accept and the others at the endpoint's shared memory or
	 * eventfd: each open past the limit is refused with EMFILE at once.
	 * Before, one that found no descriptor for accept stayed in the
	 * backlog and failed with ETIMEDOUT after 5 s. The hard limit only
	 * goes down (Criterion runs each test in its own process).
	 */
	for (rlim_t lim = 102; lim >= 100; lim--) {
		struct rlimit low = { .rlim_cur = lim, .rlim_max = lim };
		uint64_t t0;

		snprintf(name, sizeof(name), "nofile%u", (unsigned int)lim);
		t_nicd_init(&n, name);
		cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
		t_nicd_start(&n, "--endpoints", "64", NULL);
		cr_assert(strstr(t_read_file(n.log), "fail with EMFILE"), "no warning:\n%s",
			  t_read_file(n.log));
		/* About 29 fit in nicd; this process holds 2 descriptors per endpoint. */
		for (i = 0; i < 40; i++) {
			t0 = t_ms();
			if (!(ep[i] = t_open(&n, NULL)))
				break;
		}
		cr_assert_lt(i, 40, "40 endpoints opened under a limit of %u", (unsigned int)lim);
		cr_assert_eq(errno, EMFILE, "limit %u, open %d: %s", (unsigned int)lim, i,
			     strerror(errno));
		cr_assert_lt(t_ms() - t0, 1000, "limit %u: EMFILE after %llu ms",
			     (unsigned int)lim, (unsigned long long)(t_ms() - t0));
		while (i)
			segnet_close(ep[--i]);
		t_nicd_fini(&n);
	}
}

/*
 * Two nodes in one nicd share its descriptors: an endpoint closed on one
 * node makes room for an endpoint opened on the other right after. nicd
 * polls the nodes in turn, so the other node (polled first) could accept
 * the new connection before the first one had seen its endpoint's close:
 * at the limit it found no descriptor and refused the open with EMFILE.
 * The closes are on node b, the opens on node a, which nicd polls first.
 */
Test(nicd, an_endpoint_closed_on_one_node_makes_room_on_another, .timeout = 90)
{
	struct segnet_ep *ep[40];
	char *argv[T_ARGS_MAX], vnet1[256], sock_a[256], sock_b[256];
	struct t_nicd n;
	char name[16];
	int i, opened;

	/* Three limits a descriptor apart: one of them runs out at nicd's accept. */
	for (rlim_t lim = 103; lim >= 101; lim--) {
		struct rlimit low = { .rlim_cur = lim, .rlim_max = lim };

		snprintf(name, sizeof(name), "twonode%u", (unsigned int)lim);
		t_nicd_init(&n, name);
		snprintf(vnet1, sizeof(vnet1), "1:%s:conf3", n.key1);
		snprintf(sock_a, sizeof(sock_a), "%s/a.sock", n.dir);
		snprintf(sock_b, sizeof(sock_b), "%s/b.sock", n.dir);
		cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
		t_argv(argv, NICD_BIN, "--no-huge", "-m", "64", "--no-pci", "--no-shconf",
		       "-l", "0", "--file-prefix", n.prefix, "--vdev", "net_null0,no-rx=1",
		       "--vdev", "net_null1,no-rx=1", "--log-level", "lib.telemetry:error", "--",
		       "--node", "a:net_null0", "--node", "b:net_null1", "--socket-dir", n.dir,
		       "--vnet", vnet1, "--descriptors", "1024", "--endpoints", "32", NULL);
		n.pid = t_spawn(argv, n.log);
		t_nicd_note(&n);
		for (uint64_t end = t_ms() + T_START_MS; !t_socket_up(sock_b); t_sleep_ms(20))
			cr_assert_lt(t_ms(), end, "nicd did not start:\n%s", t_read_file(n.log));
		for (opened = 0; opened < 40; opened++)
			if (!(ep[opened] = segnet_open(sock_b, 1, "secret", 6, NULL)))
				break;
		cr_assert_lt(opened, 40, "40 endpoints opened under a limit of %u",
			     (unsigned int)lim);
		cr_assert_eq(errno, EMFILE, "limit %u, open %d: %s", (unsigned int)lim, opened,
			     strerror(errno));
		/* Each endpoint closed on b makes room for one on a. */
		for (i = 0; i < opened && i < 10; i++) {
			segnet_close(ep[i]);
			ep[i] = segnet_open(sock_a, 1, "secret", 6, NULL);
			cr_assert_not_null(ep[i], "limit %u, %d endpoints: open %d on a after a close on b: %s\n%s",
					   (unsigned int)lim, opened, i, strerror(errno),
					   t_read_file(n.log));
		}
		while (opened)
			segnet_close(ep[--opened]);
		t_nicd_fini(&n);
	}
}

/*
 * connect() refused on the socket's permissions (--socket-mode 0600,
 * another user) is EPERM, told apart from a wrong key (EACCES): both were
 * EACCES, and segnet-ping said "wrong key".
 */
Test(nicd, no_permission_on_the_socket_is_not_a_wrong_key, .timeout = 60)
{
	char buf[2048] = "", *argv[T_ARGS_MAX];
	struct t_nicd n;
	size_t len = 0;
	int out[2], wst;
	ssize_t got;
	pid_t child;

	if (geteuid() != 0)
		cr_skip_test("another uid's application needs root");
	t_nicd_init(&n, "perm");
	t_nicd_start(&n, "--socket-mode", "0600", NULL);
	t_argv(argv, SEGNET_PING_BIN, "--nicd", n.sock, "--key", "secret", "--node", "1",
	       "--count", "1", NULL);
	cr_assert_eq(pipe(out), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(out[1], 1);
		dup2(out[1], 2);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(10);
		if (segnet_open(n.sock, 1, "secret", 6, NULL))
			_exit(11);
		printf("segnet_open: %s\n", strerrorname_np(errno));
		fflush(stdout);
		execv(argv[0], argv);
		_exit(12);
	}
	close(out[1]);
	while (len < sizeof(buf) - 1 && (got = read(out[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)got;
	buf[len] = '\0';
	close(out[0]);
	cr_assert_eq(waitpid(child, &wst, 0), child);
	cr_assert(WIFEXITED(wst) && WEXITSTATUS(wst) != 10 && WEXITSTATUS(wst) != 11 &&
		  WEXITSTATUS(wst) != 12, "exit %d: %s", WEXITSTATUS(wst), buf);
	cr_assert(strstr(buf, "segnet_open: EPERM"), "%s", buf);
	cr_assert(strstr(buf, "permission") && !strstr(buf, "wrong key"), "%s", buf);
	t_nicd_fini(&n);
}

/*
 * A nicd that does not take the connection (its backlog full) makes
 * segnet_open fail with ETIMEDOUT, as documented, not EAGAIN. A listener
 * that never accepts stands in for it.
 */
Test(nicd, an_open_nobody_accepts_times_out, .timeout = 60)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/segnet-it-backlog.XXXXXX";
	int lfd, fill[8], n_fill = 0;
	uint64_t t0;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/full.sock", dir);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	cr_assert_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(lfd, 0), 0);
	while (n_fill < 8) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			cr_assert_eq(errno, EAGAIN, "%s", strerror(errno));
			close(fd);
			break;
		}
		fill[n_fill++] = fd;
	}
	cr_assert_lt(n_fill, 8, "the backlog never filled");
	t0 = t_ms();
	errno = 0;
	cr_assert_null(segnet_open(sa.sun_path, 1, "secret", 6, NULL));
	cr_assert_eq(errno, ETIMEDOUT, "%s", strerror(errno));
	cr_assert_geq(t_ms() - t0, 4000, "gave up after %llu ms",
		      (unsigned long long)(t_ms() - t0));
	while (n_fill)
		close(fill[--n_fill]);
	close(lfd);
	unlink(sa.sun_path);
	rmdir(dir);
}

/*
 * A zero-length OPEN is a message of the wrong size (EPROTO), not an EOF:
 * nicd closed the connection without an answer.
 */
Test(nicd, a_zero_length_open_is_refused_with_eproto, .timeout = 60)
{
	struct ctl_reply r;
	struct t_nicd n;
	int fd;

	t_nicd_init(&n, "zero");
	t_nicd_start(&n, NULL);
	fd = t_connect(&n);
	cr_assert_geq(fd, 0);
	cr_assert_eq(send(fd, "", 0, 0), 0);
	memset(&r, 0, sizeof(r));
	cr_assert_eq(recv(fd, &r, sizeof(r), 0), (ssize_t)sizeof(r), "no answer: %s",
		     strerror(errno));
	cr_assert_eq(r.type, CTL_OPEN_ERR);
	cr_assert_eq(r.error, EPROTO, "error %d", r.error);
	close(fd);
	t_nicd_fini(&n);
}

/* After -ESHUTDOWN, a send with bad arguments returns -ESHUTDOWN as well. */
Test(nicd, every_send_is_shut_down_after_nicd_died, .timeout = 60)
{
	uint8_t args[SEGNET_ARGS_LEN] = { 0 };
	struct segnet_ep *ep;
	struct t_nicd n;

	t_nicd_init(&n, "gone");
	t_nicd_start(&n, NULL);
	ep = t_open(&n, NULL);
	cr_assert_not_null(ep, "%s", strerror(errno));
	cr_assert_eq(t_nicd_stop(&n, SIGKILL), 128 + SIGKILL);
	cr_assert_geq(t_until_shutdown(ep, 3000), 0);
	cr_assert_eq(segnet_send_quick(ep, 1, 0, SEGNET_MAX_HANDLERS, args, 0), -ESHUTDOWN);
	cr_assert_eq(segnet_send_quick(ep, 64, 0, 1, args, 0), -ESHUTDOWN);
	cr_assert_eq(segnet_send_bulk(ep, 1, 0, 1, args, NULL, 10, 0), -ESHUTDOWN);
	cr_assert_eq(segnet_send_bulk(ep, 1, 0, 1, args, args, SEGNET_MAX_PAYLOAD + 1, 0),
		     -ESHUTDOWN);
	segnet_close(ep);
	t_nicd_fini(&n);
}
