/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the host-interface unit tests and fuzz_host share to drive nicd's
 * host interface (nicd/host.h) without a NIC: a stub NIC that defines the
 * calls host.c makes (nic_send, nic_cancel, nic_node_id, nic_cluster_size),
 * holds what it is given, and completes it when the caller says so; and an
 * endpoint opened the normal way, segnet_open in a thread while the host
 * is polled. It defines those functions: include it in one file of a
 * program, which links host.c and libsegnet but not the NIC core. No test
 * framework: failures are return values.
 */
#ifndef SEGNET_TEST_HOST_STUB_H
#define SEGNET_TEST_HOST_STUB_H

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nicd/ctl_msg.h"
#include "nicd/host_priv.h"
#include "nicd/nic.h"
#include "nicd/nicd_tel_names.h"
#include "nicd/segnet.h"

enum {
	STUB_NIC_HELD = 64,	/* messages the stub holds at most */
	STUB_SETTLE_LOOKS = 64,	/* looks stub_open gives what the caller left */
};

/* A message the stub NIC holds. */
struct stub_msg {
	struct sn_pkt pkt;	/* what its completion carries (the cookie) */
	uint16_t vnet;		/* its virtual network */
	uint16_t src_ep;	/* its sender */
};

/* The stub NIC. */
struct nic {
	struct nic_ops ops;		/* the host's callbacks */
	uint16_t cluster_size;		/* 0: not joined */
	unsigned int cap;		/* messages held at most (<= STUB_NIC_HELD) */
	int mode;			/* 0, or the error nic_send returns */
	/*
	 * nic_cancel leaves what it holds, to complete later: a NIC that
	 * cannot take back a closed endpoint's sends (nicd must then keep
	 * their memory and drop their completions).
	 */
	bool cancel_keeps;
	/* Called first by nic_send (NULL: none): the caller's checks. */
	void (*check_send)(struct nic *nic, const struct nic_msg *m);
	void *owner;			/* for check_send */
	struct stub_msg held[STUB_NIC_HELD];	/* messages held */
	unsigned int n_held;		/* how many */
	uint64_t accepted;		/* nic_send calls that returned 0 */
	uint64_t cancelled;		/* completions nic_cancel made */
};

/* host_telemetry_endpoints names it; nicd_telemetry.c, nicd's, is not linked. */
const struct nicd_tel_endpoints_keys nicd_tel_endpoints_key;

int nic_send(struct nic *nic, const struct nic_msg *m, uint64_t now)
{
	(void)now;
	if (nic->check_send)
		nic->check_send(nic, m);
	if (nic->mode)
		return nic->mode;
	if (nic->n_held >= nic->cap || nic->n_held >= STUB_NIC_HELD)
		return -ENOBUFS;
	nic->held[nic->n_held++] = (struct stub_msg) {
		.pkt = { .cookie = m->cookie }, .vnet = m->vnet, .src_ep = m->src_ep,
	};
	nic->accepted++;
	return 0;
}

/* Complete held message i with status (forgotten first, as the NIC does). */
static inline void stub_nic_complete(struct nic *nic, unsigned int i, int status,
				     uint64_t now)
{
	struct stub_msg x = nic->held[i];

	nic->held[i] = nic->held[--nic->n_held];
	nic->ops.complete(nic->ops.ctx, &x.pkt, status, now);
}

uint32_t nic_cancel(struct nic *nic, uint16_t vnet, uint16_t src_ep, uint64_t now)
{
	uint32_t n = 0;

	for (unsigned int i = 0; i < nic->n_held && !nic->cancel_keeps;) {
		if (nic->held[i].vnet != vnet || nic->held[i].src_ep != src_ep) {
			i++;
			continue;
		}
		stub_nic_complete(nic, i, SN_ERR_CANCELLED, now);
		n++;
	}
	nic->cancelled += n;
	return n;
}

uint16_t nic_node_id(const struct nic *nic)
{
	return nic->cluster_size ? 0 : PROTO_NODE_NONE;
}

uint16_t nic_cluster_size(const struct nic *nic)
{
	return nic->cluster_size;
}

/*
 * What an application may do while nicd hands its send to the NIC (from a
 * check_send hook): rewrite the descriptor nicd is taking, the slot at its
 * tail of the send ring (its view send), with impossible fields. nicd
 * checked a copy, and must use that copy alone (doc/endpoints.md, Trust).
 */
static inline void stub_scribble_sending(const struct spsc *send)
{
	struct ep_send_desc *d = spsc_slot(send, send->mine);

	d->buf = ~d->buf;
	d->dst_node = 0xFFFF;
	d->dst_ep = 0xFFFF;
	d->handler = 0xFFFF;
	d->chan = 0xFF;
	d->len = 0xFFFF;
	memset(d->args, 0xEE, sizeof(d->args));
}

/* Attach the stub to h: its callbacks, and h sends through it. */
static inline void stub_nic_attach(struct nic *nic, struct host *h)
{
	nic->ops = host_nic_ops(h);
	host_set_nic(h, nic);
}

/* segnet_open in a thread, while the caller polls the host. */
struct stub_opener {
	const char *path;		/* the control socket */
	uint16_t vnet;			/* the network */
	const char *key;		/* its key (a string) */
	struct segnet_open_opts o;	/* options */
	struct segnet_ep *ep;		/* the result */
	int err;			/* errno when ep is NULL */
	int done_fd;			/* eventfd written when segnet_open returned */
};

static inline void *stub_open_thread(void *arg)
{
	struct stub_opener *op = arg;
	uint64_t one = 1;

	op->ep = segnet_open(op->path, op->vnet, op->key, strlen(op->key), &op->o);
	op->err = errno;
	(void)!write(op->done_fd, &one, sizeof(one));
	return NULL;
}

/* The clock of a caller that polls h itself. */
struct stub_clock {
	struct host *h;		/* the host */
	uint64_t *now;		/* its clock */
};

/* One look of the host at its sockets: the clock one period on (HOST_CTL_NS). */
static inline void stub_look(void *arg)
{
	struct stub_clock *c = arg;
	uint64_t next = UINT64_MAX;

	*c->now += HOST_CTL_NS;
	host_poll(c->h, *c->now, &next);
}

/*
 * poll, again when a signal interrupted it (libFuzzer's timer, even with
 * timeout 0): what the descriptors say must not depend on when a signal came.
 */
static inline int stub_poll(struct pollfd *p, nfds_t n, int timeout_ms)
{
	int ret;

	while ((ret = poll(p, n, timeout_ms)) < 0 && errno == EINTR)
		;
	return ret;
}

/* True when a socket of h has something for its next look. */
static inline bool stub_ctl_ready(const struct host *h)
{
	struct pollfd p = { .fd = h->epoll_fd, .events = POLLIN };

	return stub_poll(&p, 1, 0) > 0;
}

/*
 * Open an endpoint of vnet (key) on h the normal way: segnet_open in a
 * thread, while look(ctx) makes h look at its sockets, each look one
 * period (HOST_CTL_NS) after the one before; the endpoint, or NULL with
 * errno. A look is made only when it has something to do: first for what
 * the caller left (until nothing is left, at most STUB_SETTLE_LOOKS), then
 * each time the thread's connection or OPEN came (a blocking poll of h's
 * epoll set). So the looks and the time an open takes depend on what the
 * caller did, never on how fast the thread ran: timers and the 5 s of a
 * connection that sends nothing see the same clock on every run.
 */
static inline struct segnet_ep *stub_open_looking(struct host *h, void (*look)(void *ctx),
						  void *ctx, uint16_t vnet, const char *key,
						  const struct segnet_open_opts *o)
{
	struct stub_opener op = { .path = host_socket_path(h), .vnet = vnet, .key = key,
				  .o = *o };
	struct pollfd p[2] = { { .fd = h->epoll_fd, .events = POLLIN },
			       { .events = POLLIN } };
	pthread_t t;
	int ret;

	for (int i = 0; i < STUB_SETTLE_LOOKS && stub_ctl_ready(h); i++)
		look(ctx);
	op.done_fd = p[1].fd = eventfd(0, EFD_CLOEXEC);
	if (op.done_fd < 0)
		return NULL;
	ret = pthread_create(&t, NULL, stub_open_thread, &op);
	if (ret) {
		close(op.done_fd);
		errno = ret;
		return NULL;
	}
	while (stub_poll(p, 2, -1) > 0 && !p[1].revents)
		if (p[0].revents)
			look(ctx);
	pthread_join(t, NULL);
	close(op.done_fd);
	errno = op.err;
	return op.ep;
}

/* stub_open_looking with host_poll as the looks, on the clock *now. */
static inline struct segnet_ep *stub_open(struct host *h, uint64_t *now, uint16_t vnet,
					  const char *key, const struct segnet_open_opts *o)
{
	struct stub_clock c = { .h = h, .now = now };

	return stub_open_looking(h, stub_look, &c, vnet, key, o);
}

/*
 * An application's first steps by hand, without libsegnet: connect to h's
 * control socket and send an OPEN of vnet (key) with options o; the socket
 * (the caller polls h for the answer), or -errno.
 */
static inline int stub_send_open(struct host *h, uint16_t vnet, const char *key,
				 const struct segnet_open_opts *o)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ctl_open m = {
		.magic = CTL_MAGIC, .version = CTL_VERSION, .type = CTL_OPEN, .vnet = vnet,
		.key_len = (uint16_t)strlen(key), .send_bufs = o->send_bufs,
		.recv_bufs = o->recv_bufs, .wake_threshold = o->wake_threshold,
		.wake_delay_us = o->wake_delay_us,
	};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -errno;
	memcpy(m.key, key, m.key_len);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", host_socket_path(h));
	if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) ||
	    send(fd, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * Take nicd's answer to stub_send_open without waiting: 1 with the reply,
 * 0 when none came yet, or -errno; the object's descriptor and the eventfd
 * are in fds when they came with it (else -1: the caller closes them).
 */
static inline int stub_take_reply(int sock, struct ctl_reply *r, int fds[CTL_FDS])
{
	int nfds;
	ssize_t got;

	fds[0] = fds[1] = -1;
	got = ctl_recv_reply(sock, r, fds, &nfds, MSG_DONTWAIT);
	if (got < 0)
		return got == -EAGAIN ? 0 : (int)got;
	return got == (ssize_t)sizeof(*r) ? 1 : -EPROTO;
}

#endif
