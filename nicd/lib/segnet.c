/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libsegnet: the application side of an endpoint (segnet.h). It opens the
 * endpoint through nicd's control socket, maps the shared memory nicd
 * passes back, and from then on only touches the endpoint's rings: it
 * produces on the send and return rings, consumes the completion and
 * receive rings. No DPDK, no locks, no threads.
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dataplane/dp_watch.h"
#include "nicd/ctl_msg.h"
#include "nicd/ep_shm.h"
#include "nicd/keyfile.h"
#include "nicd/segnet.h"

_Static_assert((int)SEGNET_ARGS_LEN == (int)EP_ARGS_LEN, "argument length");
_Static_assert((int)SEGNET_MAX_PAYLOAD == (int)EP_BUF_SIZE, "buffer size");
_Static_assert((int)SEGNET_MAX_KEY == (int)CTL_MAX_KEY &&
	       (int)SEGNET_MAX_KEY == (int)KEY_MAX, "key size");

enum {
	/* Longest wait for nicd's answer to OPEN. */
	SEGNET_OPEN_TIMEOUT_MS = 5000,
	/* Interval between checks that nicd is alive, in segnet_poll. */
	SEGNET_CHECK_NS = 10 * 1000 * 1000,
	/* Longest single sleep of segnet_wait before it looks at the heartbeat. */
	SEGNET_WAIT_SLICE_MS = 100,
};

/*
 * The most one gap between two looks at the heartbeat counts towards its
 * time-out: a longer one is time this process did not run, and nicd
 * likely did not either (a paused machine). Above segnet_wait's slice.
 */
#define SEGNET_WATCH_CAP_NS (2ull * SEGNET_WAIT_SLICE_MS * 1000 * 1000)

/* A registered handler. */
struct segnet_handler {
	segnet_handler_fn fn;	/* NULL: messages are dropped */
	void *ctx;		/* its argument */
};

/* An open endpoint. */
struct segnet_ep {
	int sock;			/* control connection (its EOF: nicd died) */
	int efd;			/* eventfd nicd writes to wake us */
	void *base;			/* the mapped object */
	size_t size;			/* its bytes */
	struct ep_layout l;		/* its layout */
	struct ep_view v;		/* our views of its rings */
	uint32_t *free_bufs;		/* send buffers we may fill */
	uint32_t n_free;		/* entries in free_bufs */
	uint64_t *cookies;		/* per send buffer: the send's cookie */
	uint8_t *busy;			/* per send buffer: handed to nicd */
	uint64_t next_check;		/* next liveness check (CLOCK_MONOTONIC ns) */
	uint64_t hb_seen;		/* the heartbeat last read */
	struct dp_watch hb_watch;	/* watched since it last changed */
	uint64_t generation;		/* nicd incarnation */
	bool dead;			/* nicd is gone */
	bool in_poll;			/* inside segnet_poll (handlers run) */
	struct segnet_handler handlers[SEGNET_MAX_HANDLERS];	/* by id */
};

/* CLOCK_MONOTONIC in nanoseconds (nicd's heartbeat clock). */
static uint64_t segnet_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Control socket path of nicd (a path, or a name in the socket directory). */
static int segnet_socket_path(const char *nicd, struct sockaddr_un *sa)
{
	const char *dir = getenv(CTL_SOCKET_DIR_ENV);
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (!nicd || !*nicd)
		nicd = "segnet0";
	if (!dir || !*dir)
		dir = CTL_SOCKET_DIR;
	if (strchr(nicd, '/'))
		n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", nicd);
	else
		n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s%s", dir, nicd,
			     CTL_SOCKET_SUFFIX);
	return n < 0 || (size_t)n >= sizeof(sa->sun_path) ? -ENAMETOOLONG : 0;
}

/*
 * The errno segnet_open reports for connect's: its backlog full past the
 * send timeout is nicd not answering (ETIMEDOUT); a refusal on the
 * socket's permissions (nicd --socket-mode, a directory on the way) is
 * EPERM, as EACCES is nicd's answer to a wrong key.
 */
static int segnet_connect_error(int err)
{
	if (err == EAGAIN)
		return -ETIMEDOUT;
	if (err == EACCES)
		return -EPERM;
	return -err;
}

/* Connect to nicd; the socket or -errno. */
static int segnet_connect(const char *nicd)
{
	struct timeval tv = {
		.tv_sec = SEGNET_OPEN_TIMEOUT_MS / 1000,
		.tv_usec = SEGNET_OPEN_TIMEOUT_MS % 1000 * 1000,
	};
	struct sockaddr_un sa;
	int fd, ret = segnet_socket_path(nicd, &sa);

	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = segnet_connect_error(errno);
		close(fd);
		return ret;
	}
	return fd;
}

/* Receive nicd's reply and up to CTL_FDS descriptors; 0 or -errno. */
static int segnet_recv_reply(int sock, struct ctl_reply *r, int *fds, int *nfds)
{
	ssize_t got;

	memset(r, 0, sizeof(*r));
	got = ctl_recv_reply(sock, r, fds, nfds, 0);
	if (got < 0)
		return got == -EAGAIN ? -ETIMEDOUT : (int)got;
	if (got == 0)
		return -ECONNRESET;
	if ((size_t)got < offsetof(struct ctl_reply, ep) || r->magic != CTL_MAGIC ||
	    r->version != CTL_VERSION)
		return -EPROTO;
	if (r->type == CTL_OPEN_ERR)
		return r->error > 0 ? -r->error : -EPROTO;
	if (r->type != CTL_OPEN_OK || (size_t)got != sizeof(*r) || *nfds != CTL_FDS)
		return -EPROTO;
	return 0;
}

/* Ask nicd for an endpoint; 0 with the reply and descriptors, or -errno. */
static int segnet_request(int sock, uint16_t vnet, const void *key, size_t key_len,
			  const struct segnet_open_opts *o, struct ctl_reply *r,
			  int *fds)
{
	struct ctl_open m = {
		.magic = CTL_MAGIC, .version = CTL_VERSION, .type = CTL_OPEN,
		.vnet = vnet, .key_len = (uint16_t)key_len,
	};
	int nfds = 0, ret;

	if (o) {
		m.send_bufs = o->send_bufs;
		m.recv_bufs = o->recv_bufs;
		m.wake_threshold = o->wake_threshold;
		m.wake_delay_us = o->wake_delay_us;
	}
	memcpy(m.key, key, key_len);
	if (send(sock, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m))
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	ret = segnet_recv_reply(sock, r, fds, &nfds);
	if (ret)
		while (nfds > 0)
			close(fds[--nfds]);
	return ret;
}

/* Map and check the object nicd created; 0 or -errno. */
static int segnet_map(struct segnet_ep *ep, int shm_fd, const struct ctl_reply *r)
{
	struct stat st;
	int ret;

	if (fstat(shm_fd, &st) || (uint64_t)st.st_size < r->shm_size || r->shm_size < EP_PAGE)
		return -EPROTO;
	ep->size = (size_t)r->shm_size;
	ep->base = ep_shm_map(shm_fd, ep->size);
	if (!ep->base)
		return -errno;
	ret = ep_shm_check(ep->base, ep->size, &ep->l);
	if (ret)
		return ret;
	ep_view_init(&ep->v, ep->base, &ep->l, false);
	if (ep->v.hdr->ep != r->ep)
		return -EPROTO;
	return 0;
}

/* Set up the private send-buffer bookkeeping; 0 or -ENOMEM. */
static int segnet_alloc_bufs(struct segnet_ep *ep)
{
	uint32_t n = ep->l.send_bufs;

	ep->free_bufs = calloc(n, sizeof(*ep->free_bufs));
	ep->cookies = calloc(n, sizeof(*ep->cookies));
	ep->busy = calloc(n, 1);
	if (!ep->free_bufs || !ep->cookies || !ep->busy)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		ep->free_bufs[i] = n - 1 - i;
	ep->n_free = n;
	return 0;
}

/* Free an endpoint and everything it holds. */
static void segnet_free(struct segnet_ep *ep)
{
	if (ep->sock >= 0)
		close(ep->sock);
	if (ep->efd >= 0)
		close(ep->efd);
	if (ep->base)
		munmap(ep->base, ep->size);
	free(ep->free_bufs);
	free(ep->cookies);
	free(ep->busy);
	free(ep);
}

/* Check the caller's arguments to segnet_open. */
static bool segnet_open_args_ok(const void *key, size_t key_len,
				const struct segnet_open_opts *o)
{
	if (!key || key_len < 1 || key_len > SEGNET_MAX_KEY)
		return false;
	return !o || (o->send_bufs <= EP_MAX_BUFS && o->recv_bufs <= EP_MAX_BUFS);
}

struct segnet_ep *segnet_open(const char *nicd, uint16_t vnet, const void *key,
			      size_t key_len, const struct segnet_open_opts *opts)
{
	struct segnet_ep *ep;
	struct ctl_reply r;
	int fds[CTL_FDS] = { -1, -1 };
	uint64_t now;
	int ret;

	if (!segnet_open_args_ok(key, key_len, opts)) {
		errno = EINVAL;
		return NULL;
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return NULL;
	ep->efd = -1;
	ep->sock = segnet_connect(nicd);
	if (ep->sock < 0) {
		ret = ep->sock;
		goto fail;
	}
	ret = segnet_request(ep->sock, vnet, key, key_len, opts, &r, fds);
	if (ret)
		goto fail;
	ep->efd = fds[1];
	ret = segnet_map(ep, fds[0], &r);
	close(fds[0]);
	if (!ret)
		ret = segnet_alloc_bufs(ep);
	if (ret)
		goto fail;
	ep->generation = r.generation;
	now = segnet_now_ns();
	ep->next_check = now + SEGNET_CHECK_NS;
	ep->hb_seen = atomic_load_explicit(&ep->v.hdr->heartbeat_ns, memory_order_relaxed);
	dp_watch_start(&ep->hb_watch, now, SEGNET_WATCH_CAP_NS);
	return ep;
fail:
	segnet_free(ep);
	errno = -ret;
	return NULL;
}

/*
 * No socket at path, which a nicd name (not a path) gave: is nicd running,
 * and in which directory are its sockets (its --socket-dir, which
 * SEGNET_SOCKET_DIR must name; lab.sh env exports it for a lab)?
 */
static void segnet_no_socket(const char *path, bool named, char *buf, size_t len)
{
	const char *dir = getenv(CTL_SOCKET_DIR_ENV);

	if (!named)
		snprintf(buf, len, "no nicd socket at %s (is nicd running?)", path);
	else if (dir && *dir)
		snprintf(buf, len, "no nicd socket at %s (is nicd running, with --socket-dir %s? SEGNET_SOCKET_DIR names that directory)",
			 path, dir);
	else
		snprintf(buf, len, "no nicd socket at %s (is nicd running? a nicd with another --socket-dir, a lab's included, needs SEGNET_SOCKET_DIR set to that directory: eval \"$(scripts/lab.sh env)\" for a lab)",
			 path);
}

/* Why nothing answered at path (ENOENT or ECONNREFUSED), from what is there. */
static void segnet_socket_error(const char *path, bool named, uint16_t vnet, int err,
				char *buf, size_t len)
{
	struct stat st;
	int e = stat(path, &st) ? errno : 0;

	if (e == ENOENT)
		segnet_no_socket(path, named, buf, len);
	else if (e)
		snprintf(buf, len, "%s: %s", path, strerror(e));
	else if (!S_ISSOCK(st.st_mode))
		snprintf(buf, len, "%s is not a socket", path);
	else if (err == ENOENT)
		snprintf(buf, len, "nicd at %s does not serve virtual network %u", path, vnet);
	else
		snprintf(buf, len, "no nicd answers at %s (a stale socket: nicd is gone)", path);
}

const char *segnet_open_error(const char *nicd, uint16_t vnet, int err, char *buf,
			      size_t len)
{
	struct sockaddr_un sa;

	if (segnet_socket_path(nicd, &sa)) {
		snprintf(buf, len, "the socket path is longer than a unix socket's %zu bytes",
			 sizeof(sa.sun_path) - 1);
		return buf;
	}
	switch (err) {
	case ENOENT:
	case ECONNREFUSED:
		segnet_socket_error(sa.sun_path, !nicd || !strchr(nicd, '/'), vnet, err, buf,
				    len);
		break;
	case EACCES:
		snprintf(buf, len, "wrong key for this virtual network");
		break;
	case EPERM:
		snprintf(buf, len, "no permission to connect to %s (nicd --socket-mode, or its directory)",
			 sa.sun_path);
		break;
	case ETIMEDOUT:
		snprintf(buf, len, "nicd did not answer in %d s (stopped, or its backlog is full)",
			 SEGNET_OPEN_TIMEOUT_MS / 1000);
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, len, "out of file descriptors, here or in nicd (ulimit -n)");
		break;
	case ENOSPC:
		snprintf(buf, len, "nicd's endpoint table is full (nicd --endpoints)");
		break;
	case EPROTO:
		snprintf(buf, len, "nicd's answer was not understood (another version of segnet?)");
		break;
	default:
		snprintf(buf, len, "%s", strerror(err));
	}
	return buf;
}

void segnet_close(struct segnet_ep *ep)
{
	if (ep)
		segnet_free(ep);
}

uint16_t segnet_node(const struct segnet_ep *ep)
{
	if (!ep)
		return UINT16_MAX;
	return (uint16_t)atomic_load_explicit(&ep->v.hdr->node, memory_order_relaxed);
}

uint16_t segnet_endpoint(const struct segnet_ep *ep)
{
	return ep ? ep->v.hdr->ep : UINT16_MAX;
}

uint16_t segnet_cluster_size(const struct segnet_ep *ep)
{
	if (!ep)
		return 0;
	return (uint16_t)atomic_load_explicit(&ep->v.hdr->cluster_size,
					      memory_order_relaxed);
}

uint16_t segnet_max_endpoints(const struct segnet_ep *ep)
{
	return ep ? ep->v.hdr->max_endpoints : 0;
}

int segnet_set_handler(struct segnet_ep *ep, uint16_t h, segnet_handler_fn fn,
		       void *ctx)
{
	if (!ep || h >= SEGNET_MAX_HANDLERS)
		return -EINVAL;
	ep->handlers[h].fn = fn;
	ep->handlers[h].ctx = ctx;
	return 0;
}

/* True when the control socket reached EOF or broke (nicd is gone). */
static bool segnet_sock_closed(int sock)
{
	char b;
	ssize_t got = recv(sock, &b, 1, MSG_PEEK | MSG_DONTWAIT);

	if (got == 0)
		return true;
	return got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

/* Throw away a message nicd should not have sent (keeps poll from spinning). */
static void segnet_discard(int sock)
{
	char b[64];

	(void)!recv(sock, b, sizeof(b), MSG_DONTWAIT);
}

/*
 * True when nicd is gone: it marked the endpoint closed, or (looked at every
 * SEGNET_CHECK_NS, or always when force) the control socket closed or its
 * heartbeat stood still for heartbeat_timeout_ms of watched time
 * (dataplane/dp_watch.h): each gap between looks counts up to
 * SEGNET_WATCH_CAP_NS, so a pause of this process and nicd together (a
 * paused machine) is not nicd gone, and a frozen nicd is found after about
 * that long of looks.
 */
static bool segnet_gone(struct segnet_ep *ep, bool force)
{
	const struct ep_shm_hdr *h = ep->v.hdr;
	uint64_t now, hb, limit;

	if (ep->dead)
		return true;
	if (atomic_load_explicit(&h->state, memory_order_acquire) != EP_STATE_OPEN) {
		ep->dead = true;
		return true;
	}
	now = segnet_now_ns();
	if (!force && now < ep->next_check)
		return false;
	ep->next_check = now + SEGNET_CHECK_NS;
	hb = atomic_load_explicit(&h->heartbeat_ns, memory_order_relaxed);
	limit = (uint64_t)h->heartbeat_timeout_ms * 1000000u;
	if (hb != ep->hb_seen) {
		ep->hb_seen = hb;
		dp_watch_start(&ep->hb_watch, now, SEGNET_WATCH_CAP_NS);
	} else if (limit && hb && dp_watch_look(&ep->hb_watch, now) > limit) {
		ep->dead = true;
	}
	if (segnet_sock_closed(ep->sock))
		ep->dead = true;
	return ep->dead;
}

/* Queue one send; 0 or -errno. */
static int segnet_send(struct segnet_ep *ep, const struct ep_send_desc *d,
		       const void *data, uint64_t cookie)
{
	const struct ep_shm_hdr *h;
	uint32_t size;
	struct ep_send_desc s;
	uint32_t buf;

	if (!ep)
		return -EINVAL;
	if (segnet_gone(ep, false))
		return -ESHUTDOWN;
	h = ep->v.hdr;
	size = atomic_load_explicit(&h->cluster_size, memory_order_relaxed);
	if (d->dst_node >= h->max_nodes || d->dst_ep >= h->max_endpoints ||
	    d->handler >= SEGNET_MAX_HANDLERS || (size && d->dst_node >= size))
		return -EINVAL;
	if (!ep->n_free)
		return -EAGAIN;
	buf = ep->free_bufs[--ep->n_free];
	if (d->len)
		memcpy(ep->v.send_bufs + (size_t)buf * EP_BUF_SIZE, data, d->len);
	ep->cookies[buf] = cookie;
	ep->busy[buf] = 1;
	s = *d;
	s.buf = buf;
	if (spsc_push(&ep->v.send, &s))
		return 0;
	/* Cannot happen while nicd behaves: the ring has a slot per buffer. */
	ep->busy[buf] = 0;
	ep->free_bufs[ep->n_free++] = buf;
	return ep->v.send.broken ? -EPROTO : -EAGAIN;
}

int segnet_send_quick(struct segnet_ep *ep, uint16_t dst_node, uint16_t dst_ep,
		      uint16_t h, const void *args, uint64_t cookie)
{
	struct ep_send_desc d = {
		.dst_node = dst_node, .dst_ep = dst_ep, .handler = h,
		.chan = SEGNET_QUICK,
	};

	if (args)
		memcpy(d.args, args, SEGNET_ARGS_LEN);
	return segnet_send(ep, &d, NULL, cookie);
}

int segnet_send_bulk(struct segnet_ep *ep, uint16_t dst_node, uint16_t dst_ep,
		     uint16_t h, const void *args, const void *data, size_t len,
		     uint64_t cookie)
{
	struct ep_send_desc d = {
		.dst_node = dst_node, .dst_ep = dst_ep, .handler = h,
		.chan = SEGNET_BULK, .len = (uint16_t)len,
	};

	/* Once nicd is gone every call says so, bad arguments or not. */
	if (len > SEGNET_MAX_PAYLOAD || (len && !data))
		return ep && segnet_gone(ep, false) ? -ESHUTDOWN : -EINVAL;
	if (args)
		memcpy(d.args, args, SEGNET_ARGS_LEN);
	return segnet_send(ep, &d, data, cookie);
}

/* Run the handler of one received message and give its buffer back. */
static void segnet_deliver(struct segnet_ep *ep, const struct ep_recv_desc *d)
{
	struct segnet_handler *hd;
	struct segnet_msg m;
	struct ep_rret ret = { .buf = d->buf };

	if (d->buf >= ep->l.recv_bufs)
		return;		/* nicd would never: ignore it */
	hd = d->handler < SEGNET_MAX_HANDLERS ? &ep->handlers[d->handler] : NULL;
	if (hd && hd->fn) {
		m.src_node = d->src_node;
		m.src_ep = d->src_ep;
		m.handler = d->handler;
		m.chan = d->chan;
		memcpy(m.args, d->args, SEGNET_ARGS_LEN);
		m.len = d->len > SEGNET_MAX_PAYLOAD ? SEGNET_MAX_PAYLOAD : d->len;
		m.data = m.len ? ep->v.recv_bufs + (size_t)d->buf * EP_BUF_SIZE : NULL;
		hd->fn(ep, &m, hd->ctx);
	}
	spsc_push(&ep->v.rret, &ret);
}

/* Run the handlers of the messages that arrived; how many. */
static int segnet_run_handlers(struct segnet_ep *ep)
{
	uint32_t n = spsc_avail(&ep->v.recv);
	struct ep_recv_desc d;

	for (uint32_t i = 0; i < n && spsc_pop(&ep->v.recv, &d); i++)
		segnet_deliver(ep, &d);
	return (int)n;
}

/* Reap up to max completions into comps; how many. */
static int segnet_reap(struct segnet_ep *ep, struct segnet_completion *comps, int max)
{
	struct ep_comp c;
	int n = 0;

	while (n < max && spsc_pop(&ep->v.comp, &c)) {
		if (c.buf >= ep->l.send_bufs || !ep->busy[c.buf])
			continue;	/* nicd would never: ignore it */
		ep->busy[c.buf] = 0;
		comps[n].cookie = ep->cookies[c.buf];
		comps[n].status = c.status;
		ep->free_bufs[ep->n_free++] = c.buf;
		n++;
	}
	return n;
}

int segnet_poll(struct segnet_ep *ep, struct segnet_completion *comps, int max)
{
	int n = 0;

	if (!ep)
		return -EINVAL;
	if (segnet_gone(ep, false))
		return -ESHUTDOWN;
	if (ep->in_poll)
		return -EINVAL;
	ep->in_poll = true;
	segnet_run_handlers(ep);
	if (comps && max > 0)
		n = segnet_reap(ep, comps, max);
	ep->in_poll = false;
	return n;
}

/* Events waiting for segnet_poll. */
static uint32_t segnet_ready(struct segnet_ep *ep)
{
	return spsc_avail(&ep->v.recv) + spsc_avail(&ep->v.comp);
}

/* Empty the eventfd (it is non-blocking). */
static void segnet_drain_efd(struct segnet_ep *ep)
{
	uint64_t v;

	while (read(ep->efd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		;
}

/* Withdraw the wake-up request. */
static void segnet_disarm(struct segnet_ep *ep)
{
	atomic_store_explicit(&ep->v.hdr->wake_armed, 0, memory_order_relaxed);
}

/* Enough events for the threshold to be met already. */
static bool segnet_threshold_met(struct segnet_ep *ep)
{
	uint32_t t = ep->v.hdr->wake_threshold;

	return segnet_ready(ep) >= (t ? t : 1);
}

int segnet_arm(struct segnet_ep *ep)
{
	if (!ep)
		return -EINVAL;
	if (segnet_gone(ep, false))
		return -ESHUTDOWN;
	segnet_drain_efd(ep);
	if (segnet_threshold_met(ep))
		return 1;
	atomic_store_explicit(&ep->v.hdr->wake_armed, 1, memory_order_seq_cst);
	/* nicd publishes, then reads the flag; we set it, then read its work. */
	atomic_thread_fence(memory_order_seq_cst);
	if (segnet_threshold_met(ep)) {
		segnet_disarm(ep);
		return 1;
	}
	return 0;
}

/* Milliseconds left until deadline (CLOCK_MONOTONIC ns), capped at a slice. */
static int segnet_slice_ms(uint64_t deadline)
{
	uint64_t now = segnet_now_ns(), left;

	if (deadline == UINT64_MAX)
		return SEGNET_WAIT_SLICE_MS;
	if (now >= deadline)
		return 0;
	left = (deadline - now + 999999) / 1000000;
	return left > SEGNET_WAIT_SLICE_MS ? SEGNET_WAIT_SLICE_MS : (int)left;
}

int segnet_wait(struct segnet_ep *ep, int timeout_ms)
{
	uint64_t deadline = timeout_ms < 0 ? UINT64_MAX :
			    segnet_now_ns() + (uint64_t)timeout_ms * 1000000u;
	struct pollfd p[2];
	int ret = segnet_arm(ep);	/* -EINVAL for NULL */

	if (ret)
		return ret > 0 ? 0 : ret;
	for (;;) {
		p[0] = (struct pollfd) { .fd = ep->efd, .events = POLLIN };
		p[1] = (struct pollfd) { .fd = ep->sock, .events = POLLIN };
		ret = poll(p, 2, segnet_slice_ms(deadline));
		if (ret < 0 && errno == EINTR)
			break;
		if (p[0].revents & POLLIN) {
			segnet_drain_efd(ep);
			break;
		}
		if (segnet_gone(ep, p[1].revents != 0)) {
			segnet_disarm(ep);
			return -ESHUTDOWN;
		}
		if (p[1].revents & POLLIN)
			segnet_discard(ep->sock);
		if (segnet_threshold_met(ep))
			break;
		if (segnet_now_ns() >= deadline) {
			segnet_disarm(ep);
			return -ETIMEDOUT;
		}
	}
	segnet_disarm(ep);
	return 0;
}

int segnet_fd(const struct segnet_ep *ep)
{
	return ep ? ep->efd : -EINVAL;
}

const char *segnet_status_name(int status)
{
	static const char *const names[] = {
		[SEGNET_OK] = "ok",
		[SEGNET_ELOST] = "lost",
		[SEGNET_ERETRIES] = "retries",
		[SEGNET_EDOWN] = "down",
		[SEGNET_ERESET] = "reset",
		[SEGNET_EINVAL] = "invalid",
	};

	if (status < 0 || (size_t)status >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[status];
}

int segnet_read_key(const char *path, void *key)
{
	char err[8];

	return key_read_file(path, key, err, sizeof(err));
}
