/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dp_vhost_probe against servers played by the test: none, one that
 * refuses, one that takes the connection and never answers, one that
 * answers as DPDK's vhost library does, one that answers something else
 * and one that hangs up. No EAL.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dataplane/dp_vhost_probe.h"

/* A vhost-user message header, as the protocol lays it out. */
struct msg_hdr {
	uint32_t request;	/* 1: VHOST_USER_GET_FEATURES */
	uint32_t flags;		/* version 1; 0x4 marks a reply */
	uint32_t size;		/* payload bytes */
} __attribute__((packed));

/* A directory of this test's own, and the socket path in it. */
static char dir[64], path[96];

/* Make dir and path (nothing at path yet). */
static void dir_up(void)
{
	snprintf(dir, sizeof(dir), "/tmp/segnet-ut-vprobe-%d", (int)getpid());
	cr_assert_eq(mkdir(dir, 0700), 0, "mkdir %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/vh.sock", dir);
}

/* Remove path and dir. */
static void dir_down(void)
{
	unlink(path);
	rmdir(dir);
}

TestSuite(vhost_probe, .init = dir_up, .fini = dir_down);

/* A socket bound at path, listening when listening says so. */
static int server_at_path(bool listening)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	cr_assert_geq(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "bind: %s", strerror(errno));
	if (listening)
		cr_assert_eq(listen(fd, 4), 0);
	return fd;
}

/* Accept the probe on lfd and check its request: VHOST_USER_GET_FEATURES, version 1, no payload. */
static int accept_request(int lfd)
{
	struct msg_hdr h;
	int fd = accept(lfd, NULL, NULL);

	cr_assert_geq(fd, 0);
	cr_assert_eq(recv(fd, &h, sizeof(h), MSG_WAITALL), (ssize_t)sizeof(h));
	cr_assert_eq(h.request, 1);
	cr_assert_eq(h.flags, 1);
	cr_assert_eq(h.size, 0);
	return fd;
}

/* Send a reply header (request, flags) and, if with_payload, the 8 feature bytes. */
static void reply(int fd, uint32_t request, uint32_t flags, bool with_payload)
{
	struct {
		struct msg_hdr h;
		uint64_t features;
	} __attribute__((packed)) r = { { request, flags, 8 }, 0x140000000ull };
	size_t len = with_payload ? sizeof(r) : sizeof(r.h);

	cr_assert_eq(send(fd, &r, len, 0), (ssize_t)len);
}

/* Milliseconds on the monotonic clock. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

Test(vhost_probe, no_server_is_no_connection)
{
	int lfd;

	cr_assert_eq(dp_vhost_probe_start(path), -ENOENT);
	/* A socket nobody listens on (a server gone away leaves one). */
	lfd = server_at_path(false);
	cr_assert_eq(dp_vhost_probe_start(path), -ECONNREFUSED);
	close(lfd);
	cr_assert_eq(dp_vhost_probe_start("/tmp/segnet-ut-vprobe-0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789.sock"),
		     -ENAMETOOLONG);
}

/* A server that takes the connection and does not answer: never waited for longer than asked. */
Test(vhost_probe, a_silent_server_holds_nobody)
{
	int lfd = server_at_path(true);
	int fd = dp_vhost_probe_start(path);
	double t0;

	cr_assert_geq(fd, 0, "connect: %s", strerror(-fd));
	cr_assert_eq(dp_vhost_probe_answered(fd, 0), 0);
	t0 = now_ms();
	cr_assert_eq(dp_vhost_probe_answered(fd, 20), 0);
	cr_assert_lt(now_ms() - t0, 500, "waited %.1f ms for 20", now_ms() - t0);
	/* It accepts and reads the request, still no answer. */
	close(accept_request(lfd));
	close(fd);
	close(lfd);
}

/* A server that answers as DPDK's vhost library does (flags 0x5, 8 bytes of features). */
Test(vhost_probe, an_answer_is_taken_whole)
{
	int lfd = server_at_path(true);
	int fd = dp_vhost_probe_start(path);
	int sfd;

	cr_assert_geq(fd, 0);
	sfd = accept_request(lfd);
	reply(sfd, 1, 0x5, false);
	cr_assert_eq(dp_vhost_probe_answered(fd, 0), 0, "the header alone is not the answer yet");
	cr_assert_eq(send(sfd, "\0\0\0\x40\x01\0\0\0", 8, 0), 8);
	cr_assert_eq(dp_vhost_probe_answered(fd, 1000), 1);
	/* Taken: closing the probe then is a plain end, not a reset (DPDK logs that as an error). */
	close(fd);
	cr_assert_eq(recv(sfd, &fd, sizeof(fd), 0), 0, "the server sees: %s", strerror(errno));
	close(sfd);
	close(lfd);
}

/* The server's end of a probe, and what it sends after a pause. */
struct late_part {
	int fd;			/* the accepted connection */
	unsigned int after_ms;	/* pause before sending */
};

/* Send the reply's 8 feature bytes after the pause. */
static void *send_payload_later(void *arg)
{
	const struct late_part *l = arg;

	usleep(l->after_ms * 1000);
	(void)send(l->fd, "\0\0\0\x40\x01\0\0\0", 8, 0);
	return NULL;
}

/* A reply that comes in two parts within wait_ms is waited for, as promised. */
Test(vhost_probe, a_reply_in_two_parts_is_waited_for)
{
	int lfd = server_at_path(true);
	int fd = dp_vhost_probe_start(path);
	struct late_part l;
	pthread_t th;
	double t0;

	cr_assert_geq(fd, 0);
	l.fd = accept_request(lfd);
	l.after_ms = 50;
	reply(l.fd, 1, 0x5, false);
	cr_assert_eq(pthread_create(&th, NULL, send_payload_later, &l), 0);
	t0 = now_ms();
	cr_assert_eq(dp_vhost_probe_answered(fd, 2000), 1,
		     "the rest came 50 ms later, within the 2 s asked (returned after %.1f ms)",
		     now_ms() - t0);
	pthread_join(th, NULL);
	close(fd);
	close(l.fd);
	close(lfd);
}

/* What a server played by the test answers, and what the probe must make of it. */
struct bad_answer {
	const char *what;	/* the case */
	uint32_t request;	/* the reply's request ... */
	uint32_t flags;		/* ... and flags */
	int parts;		/* 0: nothing, 1: the header, 2: header and payload */
	bool hang_up;		/* then the server closes the connection */
	int want;		/* dp_vhost_probe_answered's verdict */
};

Test(vhost_probe, another_answer_or_a_hang_up_is_an_error)
{
	static const struct bad_answer cases[] = {
		{ "a reply to another request", 2, 0x5, 2, false, -EPROTO },
		{ "not marked as a reply", 1, 0x1, 2, false, -EPROTO },
		{ "closed without a word", 0, 0, 0, true, -ECONNRESET },
		{ "closed half-way", 1, 0x5, 1, true, -ECONNRESET },
	};
	int lfd = server_at_path(true);
	int fd, sfd;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_answer *c = &cases[i];

		fd = dp_vhost_probe_start(path);
		sfd = accept_request(lfd);
		if (c->parts)
			reply(sfd, c->request, c->flags, c->parts == 2);
		if (c->hang_up)
			close(sfd);
		cr_assert_eq(dp_vhost_probe_answered(fd, 1000), c->want, "%s", c->what);
		close(fd);
		if (!c->hang_up)
			close(sfd);
	}
	/* A server that goes away before taking the connection. */
	fd = dp_vhost_probe_start(path);
	cr_assert_geq(fd, 0);
	close(lfd);
	cr_assert_lt(dp_vhost_probe_answered(fd, 1000), 0);
	close(fd);
}
