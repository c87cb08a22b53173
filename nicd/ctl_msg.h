/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control-socket messages between libsegnet and nicd (AF_UNIX,
 * SOCK_SEQPACKET, one connection per endpoint; doc/endpoints.md). The
 * application sends one OPEN; nicd answers with one reply carrying, on
 * success, the endpoint's shared-memory descriptor (a memfd sealed
 * against resizing) and its eventfd as SCM_RIGHTS. The connection then
 * stays open for the endpoint's life: either side closing it ends the
 * endpoint. No DPDK here.
 */
#ifndef SEGNET_CTL_MSG_H
#define SEGNET_CTL_MSG_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "ep_shm.h"

#define CTL_SOCKET_DIR "/run/segnet"	/* default directory of the sockets */
#define CTL_SOCKET_DIR_ENV "SEGNET_SOCKET_DIR"	/* overrides it for libsegnet */
#define CTL_SOCKET_SUFFIX ".sock"	/* NAME -> DIR/NAME.sock */

enum {
	CTL_MAGIC = 0x53474354,		/* "SGCT" */
	CTL_VERSION = 1,		/* bumped on any message change */
	CTL_MAX_KEY = 64,		/* bytes of a virtual network's key */
	CTL_FDS = 2,			/* descriptors of a successful reply */
};

/* Message types. */
enum ctl_type {
	CTL_OPEN = 1,		/* application -> nicd */
	CTL_OPEN_OK = 2,	/* nicd -> application, with [shm fd, eventfd] */
	CTL_OPEN_ERR = 3,	/* nicd -> application: error says why */
};

/* Open an endpoint. */
struct ctl_open {
	uint32_t magic;			/* CTL_MAGIC */
	uint16_t version;		/* CTL_VERSION */
	uint16_t type;			/* CTL_OPEN */
	uint16_t vnet;			/* virtual network */
	uint16_t key_len;		/* bytes of key used (1 .. CTL_MAX_KEY) */
	uint16_t send_bufs;		/* 0 = EP_DEFAULT_BUFS */
	uint16_t recv_bufs;		/* 0 = EP_DEFAULT_BUFS */
	uint32_t wake_threshold;	/* 0 = 1 */
	uint32_t wake_delay_us;		/* 0 = at once */
	uint8_t key[CTL_MAX_KEY];	/* the virtual network's key */
};

/* The answer to an OPEN. */
struct ctl_reply {
	uint32_t magic;			/* CTL_MAGIC */
	uint16_t version;		/* CTL_VERSION of nicd */
	uint16_t type;			/* CTL_OPEN_OK or CTL_OPEN_ERR */
	int32_t error;			/* positive errno for CTL_OPEN_ERR */
	uint16_t ep;			/* endpoint id */
	uint16_t node;			/* node id now (0xFFFF before joining) */
	uint64_t generation;		/* nicd incarnation */
	uint64_t shm_size;		/* bytes of the shared object */
	char shm_name[EP_SHM_NAME_MAX];	/* its memfd name, for inspection only */
};

_Static_assert(sizeof(struct ctl_open) == 88, "OPEN layout");

/*
 * Receive one reply on sock (recvmsg with MSG_CMSG_CLOEXEC and extra
 * flags, e.g. MSG_DONTWAIT; EINTR retried) into r, and the descriptors it
 * carries into fds (at most CTL_FDS, how many in *nfds, the caller's to
 * close); the bytes received (0: nicd hung up), or -errno. The reply is
 * not checked.
 */
static inline ssize_t ctl_recv_reply(int sock, struct ctl_reply *r, int fds[CTL_FDS],
				     int *nfds, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = r, .iov_len = sizeof(*r) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	ssize_t got;

	*nfds = 0;
	do
		got = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | flags);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		*nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		if (*nfds > CTL_FDS)
			*nfds = CTL_FDS;
		memcpy(fds, CMSG_DATA(c), sizeof(int) * (size_t)*nfds);
	}
	return got;
}

#endif
