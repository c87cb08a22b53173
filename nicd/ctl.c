/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket of a node: AF_UNIX SOCK_SEQPACKET at DIR/NAME.sock.
 * Applications connect and send one OPEN; the reply carries the
 * endpoint's shared-memory descriptor and eventfd. The connection then
 * stays open: its EOF closes the endpoint. Everything is non-blocking and
 * looked at through one epoll set, from nicd's poll loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "dataplane/dp_log.h"
#include "host_priv.h"

DP_LOG_REGISTER(ctl_logtype, NICD_CTL);

enum {
	CTL_EVENTS = 32,	/* epoll events taken per look */
	CTL_BACKLOG = 64,	/* listen backlog */
};

/* The epoll tag of (kind, index). */
static uint64_t ctl_tag(enum host_tag kind, uint32_t index)
{
	return (uint64_t)kind << 32 | index;
}

/* Add fd to the epoll set under tag; 0 or -errno. */
static int ctl_watch(struct host *h, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.u64 = tag };

	return epoll_ctl(h->epoll_fd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* Make directory path with mode (whatever the umask) unless it exists; 0 or -errno. */
static int ctl_mkdir(const char *path, mode_t mode)
{
	if (mkdir(path, mode) == 0)
		return chmod(path, mode) ? -errno : 0;
	return errno == EEXIST ? 0 : -errno;
}

/* mkdir -p dir with mode for what it creates; 0 or -errno. */
static int ctl_mkdirs(const char *dir, mode_t mode)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int ret;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		ret = ctl_mkdir(path, mode);
		if (ret)
			return ret;
		*p = '/';
	}
	return ctl_mkdir(path, mode);
}

/* True when a process answers on the socket at sa (another nicd). */
static bool ctl_in_use(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	bool used;

	if (fd < 0)
		return false;
	used = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
	close(fd);
	return used;
}

/*
 * Remove the socket a nicd that died left at h->path (nobody answers on
 * it); anything else there is not nicd's: 0, or -errno with a message.
 */
static int ctl_remove_stale(struct host *h, char *err, size_t errlen)
{
	struct stat st;
	int ret = 0;

	if (lstat(h->path, &st)) {
		ret = errno == ENOENT ? 0 : -errno;
		if (ret)
			snprintf(err, errlen, "control socket %s: %s", h->path, strerror(-ret));
	} else if (!S_ISSOCK(st.st_mode)) {
		ret = -EEXIST;
		snprintf(err, errlen, "control socket %s: a file that is not a socket is there; not removing it",
			 h->path);
	} else if (unlink(h->path) && errno != ENOENT) {
		ret = -errno;
		snprintf(err, errlen, "control socket %s: cannot remove the stale socket: %s",
			 h->path, strerror(-ret));
	}
	return ret;
}

/* Bind and listen on sa; the socket or -errno with a message. */
static int ctl_bind(struct host *h, const struct sockaddr_un *sa, mode_t mode,
		    char *err, size_t errlen)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "control socket: %s", strerror(errno));
		return ret;
	}
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) ||
	    chmod(sa->sun_path, mode) || listen(fd, CTL_BACKLOG)) {
		ret = -errno;
		snprintf(err, errlen, "control socket %s: %s", h->path, strerror(errno));
		close(fd);
		return ret;
	}
	return fd;
}

int ctl_listen(struct host *h, const char *dir, mode_t mode, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int ret, n;

	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s%s", dir, h->name,
		     CTL_SOCKET_SUFFIX);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "control socket path %s/%s%s is longer than %zu bytes",
			 dir, h->name, CTL_SOCKET_SUFFIX, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	snprintf(h->path, sizeof(h->path), "%s", sa.sun_path);
	ret = ctl_mkdirs(dir, 0755);
	if (ret) {
		snprintf(err, errlen, "socket directory %s: %s", dir, strerror(-ret));
		return ret;
	}
	if (ctl_in_use(&sa)) {
		snprintf(err, errlen, "another nicd serves %s already (name %s taken)",
			 h->path, h->name);
		return -EADDRINUSE;
	}
	ret = ctl_remove_stale(h, err, errlen);
	if (ret)
		return ret;
	h->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (h->epoll_fd < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		return -errno;
	}
	h->listen_fd = ctl_bind(h, &sa, mode, err, errlen);
	if (h->listen_fd < 0) {
		ret = h->listen_fd;
		h->listen_fd = -1;
		return ret;
	}
	ret = ctl_watch(h, h->listen_fd, ctl_tag(HOST_TAG_LISTEN, 0));
	if (ret)
		snprintf(err, errlen, "epoll: %s", strerror(-ret));
	h->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return ret;
}

/* Send a reply, with fds when n > 0; 0 or -errno. */
static int ctl_send_reply(int fd, const struct ctl_reply *r, const int *fds, int n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)r, .iov_len = sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (n > 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(*r) ?
	       0 : -errno;
}

/* Refuse an OPEN with error (positive errno). */
static void ctl_refuse(int fd, int error)
{
	struct ctl_reply r = {
		.magic = CTL_MAGIC, .version = CTL_VERSION, .type = CTL_OPEN_ERR,
		.error = error,
	};

	ctl_send_reply(fd, &r, NULL, 0);
}

/*
 * accept failed for want of descriptors: take the connection on the spare
 * one and refuse it (EMFILE) at once, rather than leave it in the backlog
 * until its application gives up (ETIMEDOUT, 5 s). False when even that
 * cannot be done.
 */
static bool ctl_refuse_no_fd(struct host *h)
{
	int fd;

	if (h->spare_fd < 0)
		return false;
	close(h->spare_fd);
	fd = accept4(h->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd >= 0) {
		char open_msg[sizeof(struct ctl_open)];

		/* Read its OPEN first: a socket closed with it unread resets the peer. */
		(void)!recv(fd, open_msg, sizeof(open_msg), MSG_TRUNC);
		ctl_refuse(fd, EMFILE);
		close(fd);
		h->stats.open_failed++;
		if (dp_ratelimit_ok(&h->refusal_log, h->now))
			DP_LOG(ctl_logtype, NOTICE, "%s: OPEN refused: %s (raise ulimit -n)",
			       h->name, strerror(EMFILE));
	}
	h->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return fd >= 0;
}

/*
 * accept found no descriptor: true when it found none at the last look
 * too. nicd polls its nodes in turn, so another node may close an
 * endpoint its application closed right before this connection came (and
 * free its three descriptors) later in this round: the connection waits
 * in the backlog for the next look (HOST_CTL_NS) before it is refused.
 */
static bool ctl_no_fd_waited(struct host *h)
{
	bool waited = h->no_fd_waited;

	h->no_fd_waited = true;
	return waited;
}

/* Forget a pending connection (closing it unless handed on). */
static void ctl_pending_drop(struct host *h, struct host_pending *p, bool close_it)
{
	epoll_ctl(h->epoll_fd, EPOLL_CTL_DEL, p->fd, NULL);
	if (close_it)
		close(p->fd);
	p->fd = -1;
}

static void ctl_handle_open(struct host *h, struct host_pending *p, uint64_t now);

/*
 * Accept waiting connections into free pending slots. With every slot
 * taken, the oldest pending connection makes room if it has had a poll to
 * send its OPEN (ctl_poll reads OPENs before it accepts; one accepted in
 * this poll is never evicted, the newcomer waits in the backlog; one whose
 * OPEN came after all, past epoll's batch or since, is served instead), so
 * connections that send nothing cannot lock clients out until they expire.
 */
static void ctl_accept(struct host *h, uint64_t now)
{
	for (int k = 0; k < HOST_PENDING_MAX; k++) {
		int i, oldest = 0, fd;

		for (i = 0; i < HOST_PENDING_MAX && h->pending[i].fd >= 0; i++)
			if (h->pending[i].since < h->pending[oldest].since)
				oldest = i;
		if (i == HOST_PENDING_MAX && h->pending[oldest].since == now)
			return;
		fd = accept4(h->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
			if (ctl_no_fd_waited(h) && ctl_refuse_no_fd(h))
				continue;
			return;
		}
		h->no_fd_waited = false;
		if (fd < 0)
			return;
		if (i == HOST_PENDING_MAX) {
			i = oldest;
			ctl_handle_open(h, &h->pending[i], now);
			if (h->pending[i].fd >= 0) {
				ctl_pending_drop(h, &h->pending[i], true);
				h->stats.open_evicted++;
			}
		}
		if (ctl_watch(h, fd, ctl_tag(HOST_TAG_PENDING, (uint32_t)i))) {
			close(fd);
			continue;
		}
		h->pending[i].fd = fd;
		h->pending[i].since = now;
	}
}

/* Answer an opened endpoint; 0 or -errno (the endpoint is then closed). */
static int ctl_accept_open(struct host *h, struct host_ep *e, int fd)
{
	struct ctl_reply r = {
		.magic = CTL_MAGIC, .version = CTL_VERSION, .type = CTL_OPEN_OK,
		.ep = e->id, .node = (uint16_t)atomic_load(&e->v.hdr->node),
		.generation = h->generation, .shm_size = e->l.size,
	};
	int fds[CTL_FDS] = { e->shm_fd, e->efd };
	int ret;

	snprintf(r.shm_name, sizeof(r.shm_name), "%s", e->shm_name);
	ret = ctl_send_reply(fd, &r, fds, CTL_FDS);
	if (ret)
		return ret;
	e->sock = fd;
	return ctl_watch(h, fd, ctl_tag(HOST_TAG_EP, e->id));
}

/* Log a refused OPEN (at most 5 lines per second per node). */
static void ctl_log_refusal(struct host *h, const struct ucred *c, uint16_t vnet,
			    int error, uint64_t now)
{
	if (dp_ratelimit_ok(&h->refusal_log, now))
		DP_LOG(ctl_logtype, NOTICE, "%s: OPEN of vnet %u by pid %d uid %u refused: %s",
		       h->name, vnet, (int)c->pid, (unsigned int)c->uid, strerror(error));
}

/*
 * After recv returned 0: 1 when the peer closed (EOF), 0 when it sent a
 * zero-length message (SOCK_SEQPACKET tells them apart only so), -errno
 * when poll failed; a signal (EINTR) makes it poll again.
 */
static int ctl_peer_closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };
	int n;

	while ((n = poll(&p, 1, 0)) < 0 && errno == EINTR)
		;
	return n < 0 ? -errno : n > 0;
}

/*
 * After recv returned 0: true when the peer hung up. A poll that cannot
 * tell is logged, and the message taken as an empty OPEN: refused, which
 * a live peer reads and a gone one never sees.
 */
static bool ctl_hung_up(struct host *h, int fd, uint64_t now)
{
	int closed = ctl_peer_closed(fd);

	if (closed < 0 && dp_ratelimit_ok(&h->refusal_log, now))
		DP_LOG(ctl_logtype, WARNING, "%s: cannot tell an empty OPEN from a hang-up (poll: %s): refusing it",
		       h->name, strerror(-closed));
	return closed > 0;
}

/* Read the OPEN of a pending connection and answer it. */
static void ctl_handle_open(struct host *h, struct host_pending *p, uint64_t now)
{
	struct ucred cred = { .pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1 };
	socklen_t clen = sizeof(cred);
	struct ctl_open m;
	struct host_ep *e;
	int fd = p->fd, error = 0;
	ssize_t got;

	memset(&m, 0, sizeof(m));
	/* MSG_TRUNC: the message's whole length, so a longer one is refused. */
	got = recv(fd, &m, sizeof(m), MSG_DONTWAIT | MSG_TRUNC);
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	/* A hang-up (EOF) or a failed recv before the OPEN: nothing to answer. */
	if (got < 0 || (got == 0 && ctl_hung_up(h, fd, now))) {
		ctl_pending_drop(h, p, true);
		h->stats.open_abandoned++;
		return;
	}
	ctl_pending_drop(h, p, false);
	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen);
	if ((size_t)got != sizeof(m) || m.magic != CTL_MAGIC ||
	    m.version != CTL_VERSION || m.type != CTL_OPEN) {
		h->stats.open_bad_msg++;
		error = EPROTO;
	} else if ((e = host_ep_open(h, &m, &cred, &error))) {
		error = -ctl_accept_open(h, e, fd);
		/* Opened once the application has it: a reply that fails opened nothing. */
		if (!error) {
			h->stats.opens++;
			DP_LOG(ctl_logtype, INFO, "%s: endpoint %u opened on vnet %u by pid %d uid %u (%s)",
			       h->name, e->id, e->vnet, (int)cred.pid, (unsigned int)cred.uid,
			       e->shm_name);
			return;
		}
		h->stats.open_failed++;
		e->sock = -1;
		host_ep_close(h, e, false);
	}
	ctl_log_refusal(h, &cred, m.vnet, error, now);
	ctl_refuse(fd, error);
	close(fd);
}

/* An endpoint's connection is readable: EOF (or anything else) closes it. */
static void ctl_handle_ep(struct host *h, uint32_t id)
{
	struct host_ep *e = id < h->n_eps ? &h->eps[id] : NULL;
	char b[sizeof(struct ctl_open)];
	ssize_t got;

	if (!e || !e->open)
		return;
	got = recv(e->sock, b, sizeof(b), MSG_DONTWAIT);
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	/* The protocol has nothing after OPEN: EOF, errors and surprises close. */
	host_ep_close(h, e, true);
}

/* Close (and count) pending connections that never sent their OPEN. */
static void ctl_expire(struct host *h, uint64_t now)
{
	for (int i = 0; i < HOST_PENDING_MAX; i++) {
		if (h->pending[i].fd < 0 || now - h->pending[i].since <= HOST_PENDING_NS)
			continue;
		ctl_pending_drop(h, &h->pending[i], true);
		h->stats.open_expired++;
	}
}

void ctl_poll(struct host *h, uint64_t now)
{
	struct epoll_event ev[CTL_EVENTS];
	int n;

	if (h->epoll_fd < 0)
		return;
	n = epoll_wait(h->epoll_fd, ev, CTL_EVENTS, 0);
	/* OPENs that came first, then new connections (which may evict). */
	for (int i = 0; i < n; i++) {
		uint32_t kind = (uint32_t)(ev[i].data.u64 >> 32);
		uint32_t index = (uint32_t)ev[i].data.u64;

		if (kind == HOST_TAG_PENDING && index < HOST_PENDING_MAX &&
		    h->pending[index].fd >= 0)
			ctl_handle_open(h, &h->pending[index], now);
		else if (kind == HOST_TAG_EP)
			ctl_handle_ep(h, index);
	}
	for (int i = 0; i < n; i++)
		if ((uint32_t)(ev[i].data.u64 >> 32) == HOST_TAG_LISTEN)
			ctl_accept(h, now);
	ctl_expire(h, now);
}

void ctl_close(struct host *h)
{
	for (int i = 0; i < HOST_PENDING_MAX; i++)
		if (h->pending[i].fd >= 0)
			ctl_pending_drop(h, &h->pending[i], true);
	if (h->listen_fd >= 0) {
		close(h->listen_fd);
		unlink(h->path);
		h->listen_fd = -1;
	}
	if (h->spare_fd >= 0) {
		close(h->spare_fd);
		h->spare_fd = -1;
	}
	if (h->epoll_fd >= 0) {
		close(h->epoll_fd);
		h->epoll_fd = -1;
	}
}
