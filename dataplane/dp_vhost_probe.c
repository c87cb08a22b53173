/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A vhost-user request whose answer says that the server is serving its
 * socket. The message layout is the vhost-user protocol's (QEMU's
 * docs/interop/vhost-user.rst): a header of three 32-bit numbers in the
 * machine's byte order (the peer is on the same machine), then size bytes.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dp_vhost_probe.h"

enum {
	/* The request asked: the features the server offers. */
	DP_VHOST_GET_FEATURES = 1,
	/* flags: the protocol version, 1 ... */
	DP_VHOST_VERSION = 0x1,
	DP_VHOST_VERSION_MASK = 0x3,
	/* ... and the bit that marks a reply. */
	DP_VHOST_REPLY = 0x4,
};

/* A vhost-user message header. */
struct dp_vhost_hdr {
	uint32_t request;	/* what is asked (a reply: what it answers) */
	uint32_t flags;		/* version, reply bit */
	uint32_t size;		/* payload bytes after the header */
} __attribute__((packed));

_Static_assert(sizeof(struct dp_vhost_hdr) == 12, "vhost-user header is 12 bytes");

/* The reply to VHOST_USER_GET_FEATURES: the header and the feature bits. */
struct dp_vhost_features_reply {
	struct dp_vhost_hdr hdr;	/* request DP_VHOST_GET_FEATURES, flags with DP_VHOST_REPLY */
	uint64_t features;		/* not used: that it came is the answer */
} __attribute__((packed));

_Static_assert(sizeof(struct dp_vhost_features_reply) == 20, "GET_FEATURES reply is 20 bytes");

/* Connect fd to the socket at path without waiting; 0 or -errno. */
static int dp_vhost_connect(int fd, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(path);

	if (len >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, len + 1);
	/* A Unix socket connects at once, or fails at once (EAGAIN: backlog full). */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	return 0;
}

int dp_vhost_probe_start(const char *path)
{
	const struct dp_vhost_hdr req = {
		.request = DP_VHOST_GET_FEATURES, .flags = DP_VHOST_VERSION, .size = 0,
	};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int ret;

	if (fd < 0)
		return -errno;
	ret = dp_vhost_connect(fd, path);
	/* MSG_NOSIGNAL: a server gone since is an error here, not SIGPIPE. */
	if (!ret && send(fd, &req, sizeof(req), MSG_NOSIGNAL) != (ssize_t)sizeof(req))
		ret = errno ? -errno : -EIO;
	if (!ret)
		return fd;
	close(fd);
	return ret;
}

/* 1 when hdr is a reply to VHOST_USER_GET_FEATURES, else -EPROTO. */
static int dp_vhost_reply_ok(const struct dp_vhost_hdr *hdr)
{
	bool ok = hdr->request == DP_VHOST_GET_FEATURES &&
		  (hdr->flags & DP_VHOST_VERSION_MASK) == DP_VHOST_VERSION &&
		  (hdr->flags & DP_VHOST_REPLY) &&
		  hdr->size == sizeof(uint64_t);

	return ok ? 1 : -EPROTO;
}

/* Milliseconds on the monotonic clock. */
static int64_t dp_vhost_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * One look at fd, waiting up to wait_ms for something to read: as
 * dp_vhost_probe_answered, with *part set when only part of the reply is
 * there (poll then returns at once: the caller must not wait on it).
 */
static int dp_vhost_probe_look(int fd, int wait_ms, bool *part)
{
	struct dp_vhost_features_reply reply;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int ret;

	*part = false;
	ret = poll(&pfd, 1, wait_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (ret == 0)
		return 0;
	/* Look first: the reply may come in parts; it is taken when whole. */
	n = recv(fd, &reply, sizeof(reply), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;
	if ((size_t)n >= sizeof(reply.hdr) && dp_vhost_reply_ok(&reply.hdr) < 0)
		return -EPROTO;
	/*
	 * Take it: a Unix socket closed with unread data resets its peer,
	 * which DPDK's vhost library logs as an error (recvmsg failed).
	 */
	if ((size_t)n == sizeof(reply))
		return recv(fd, &reply, sizeof(reply), MSG_DONTWAIT) == n ? 1 : -EIO;
	/* Part of it, and the server hung up: it will not come. */
	if (pfd.revents & (POLLHUP | POLLERR))
		return -ECONNRESET;
	*part = true;
	return 0;
}

int dp_vhost_probe_answered(int fd, int wait_ms)
{
	int64_t end = dp_vhost_now_ms() + wait_ms;
	bool part;
	int ret;

	for (;;) {
		int left = (int)(end - dp_vhost_now_ms());

		ret = dp_vhost_probe_look(fd, left > 0 ? left : 0, &part);
		if (ret || left <= 0)
			return ret;
		/* The rest of a reply begun: look again in a millisecond. */
		if (part)
			(void)poll(NULL, 0, 1);
	}
}
