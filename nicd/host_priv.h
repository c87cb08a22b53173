/* SPDX-License-Identifier: BSD-3-Clause */
/* The host interface's internal state, shared by host.c and ctl.c only. */
#ifndef SEGNET_HOST_PRIV_H
#define SEGNET_HOST_PRIV_H

#include <limits.h>
#include <sys/socket.h>

#include "ctl_msg.h"
#include "dataplane/dp_log.h"
#include "ep_shm.h"
#include "host.h"

enum {
	HOST_PENDING_MAX = 16,		/* connections waiting for their OPEN */
	HOST_PENDING_NS = 5000000000ull,	/* ... for at most this long */
	HOST_CTL_NS = 1000000,		/* control sockets looked at this often */
	HOST_HEARTBEAT_MS = 10,		/* heartbeat refresh */
	HOST_HEARTBEAT_TIMEOUT_MS = 1000,	/* older: libsegnet says nicd is gone */
	HOST_SEND_BUDGET = 32,		/* sends taken from one ring per poll */
	HOST_HELD_MAX = 256,		/* held-back messages per endpoint */
};

struct host_region;

/* One send buffer of a region, as the NIC's cookie. */
struct host_send {
	struct host_region *region;	/* owner */
	uint32_t buf;			/* send buffer index */
	bool busy;			/* handed to the NIC, not completed */
};

/*
 * An endpoint's mapping. Closing the endpoint cancels the sends the NIC
 * holds (nic_cancel), so it goes with the endpoint; without a NIC to ask,
 * it outlives the endpoint until the last completion frees it.
 */
struct host_region {
	struct host_region *next;	/* next region of the host */
	void *base;			/* the mapping */
	size_t size;			/* its bytes */
	uint32_t inflight;		/* sends the NIC holds */
	struct host_ep *ep;		/* NULL once the endpoint closed */
	struct host_send *sends;	/* one per send buffer */
};

/* A message delivered while no receive buffer was free. */
struct host_held {
	struct host_held *next;		/* next, oldest first */
	struct ep_recv_desc d;		/* descriptor (buf filled on posting) */
	uint8_t data[];			/* d.len bytes of payload */
};

#define HOST_EP_COUNTERS(X) \
	X(sent, "sends handed to the NIC") \
	X(completed, "completions posted (of sends and of refusals)") \
	X(invalid, "sends refused: completed with SEGNET_EINVAL, never sent") \
	X(received, "messages posted") \
	X(refused, "frames refused for lack of a receive buffer") \
	X(held, "messages held in nicd for lack of a receive buffer") \
	X(dropped, "messages dropped: held-back queue or receive ring full") \
	X(wakeups, "eventfd wake-ups")

/* Counters of one endpoint (reset when it opens). */
struct host_ep_stats {
	HOST_EP_COUNTERS(DP_COUNTER_FIELD)
};

/* An endpoint table entry. */
struct host_ep {
	bool open;			/* in use */
	uint16_t id;			/* index = endpoint id */
	uint16_t vnet;			/* its virtual network */
	int sock;			/* control connection */
	int efd;			/* eventfd */
	int shm_fd;			/* the sealed memfd of the object (passed at OPEN) */
	struct ucred cred;		/* the application (SO_PEERCRED) */
	char shm_name[EP_SHM_NAME_MAX];	/* memfd name, for inspection */
	struct ep_layout l;		/* layout */
	struct ep_view v;		/* nicd's views of the rings */
	struct host_region *region;	/* mapping and send records */
	uint32_t *rfree;		/* receive buffers nicd holds */
	uint32_t n_rfree;		/* entries in rfree */
	uint8_t *with_app;		/* per receive buffer: the application has it */
	struct host_held *held;		/* held-back messages, oldest first */
	struct host_held *held_tail;	/* newest */
	uint32_t n_held;		/* how many */
	uint32_t wake_threshold;	/* events that wake at once */
	uint64_t wake_delay_ns;		/* delay after the first event (0: at once) */
	uint64_t *comp_at;		/* per completion ring slot: when its event was
					 * posted (with a wake delay only, else NULL) */
	uint64_t *recv_at;		/* the same for the receive ring */
	struct host_ep_stats stats;	/* counters */
};

/* A connection that has not sent its OPEN yet. */
struct host_pending {
	int fd;				/* -1: free */
	uint64_t since;			/* accepted at (ns) */
};

/* One node's host interface. */
struct host {
	char name[32];			/* NAME */
	char path[108];			/* DIR/NAME.sock */
	char shm_prefix[56];		/* "segnet.NAME.PATHHASH." */
	uint16_t max_nodes;		/* valid target nodes */
	uint64_t generation;		/* nicd incarnation */
	uint32_t shm_seq;		/* objects created so far */
	struct host_vnet *vnets;	/* served networks and keys */
	unsigned int n_vnets;		/* entries */
	struct nic *nic;		/* the NIC */
	struct host_ep *eps;		/* the endpoint table */
	struct host_region *regions;	/* every mapping, open or draining */
	uint16_t n_eps;			/* its size */
	unsigned int n_open;		/* open entries */
	int listen_fd;			/* control socket, -1 once closed */
	int epoll_fd;			/* listen, pending and endpoint sockets */
	int spare_fd;			/* held so that a connection can still be
					 * accepted and refused (EMFILE) when the
					 * descriptors run out; -1 while used */
	bool no_fd_waited;		/* accept found no descriptor at the last
					 * look: refuse (EMFILE) if still none */
	struct host_pending pending[HOST_PENDING_MAX];	/* waiting for OPEN */
	uint64_t now;			/* time of the latest host_poll (the NIC's clock) */
	uint64_t next_ctl;		/* next look at the sockets */
	uint64_t next_heartbeat;	/* next heartbeat */
	struct dp_ratelimit refusal_log;	/* limits the log of refused OPENs */
	struct host_stats stats;	/* counters */
};

/* epoll tags: kind in the top 32 bits, index below. */
enum host_tag {
	HOST_TAG_LISTEN = 1,
	HOST_TAG_PENDING = 2,
	HOST_TAG_EP = 3,
};

/* Control socket: create it (and its directory); 0 or -errno with a message. */
int ctl_listen(struct host *h, const char *dir, mode_t mode, char *err, size_t errlen);

/* Control socket: accept, read OPENs, notice closed connections. */
void ctl_poll(struct host *h, uint64_t now);

/* Control socket: close it and every pending connection. */
void ctl_close(struct host *h);

/*
 * Open an endpoint for the application behind cred; the endpoint, or NULL
 * with -errno in *err (ENOENT, EACCES, ENOSPC, EINVAL, or a system error).
 * The caller counts it in opens once its reply reached the application.
 */
struct host_ep *host_ep_open(struct host *h, const struct ctl_open *m,
			     const struct ucred *cred, int *error);

/* Close an endpoint (its application closed the socket, or nicd stops). */
void host_ep_close(struct host *h, struct host_ep *e, bool by_app);

#endif
