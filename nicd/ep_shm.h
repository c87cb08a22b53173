/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared-memory layout of an endpoint, which nicd creates and an
 * application maps through libsegnet (doc/endpoints.md draws it). One
 * object per endpoint: a header, four single-producer/single-consumer
 * rings (nicd/spsc.h) and the send and receive buffers.
 *
 *   send ring        application -> nicd   struct ep_send_desc (the send register)
 *   completion ring  nicd -> application   struct ep_comp
 *   receive ring     nicd -> application   struct ep_recv_desc
 *   return ring      application -> nicd   struct ep_rret (receive buffers given back)
 *
 * Both sides include this header; neither trusts what the other wrote:
 * nicd checks every descriptor, libsegnet checks the header before use.
 * No DPDK here.
 */
#ifndef SEGNET_EP_SHM_H
#define SEGNET_EP_SHM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "spsc.h"

enum {
	EP_SHM_MAGIC = 0x53474e45,	/* "SGNE" */
	EP_SHM_VERSION = 1,		/* bumped on any layout change */
	EP_ARGS_LEN = 32,		/* bytes of active-message arguments */
	EP_BUF_SIZE = 2048,		/* bytes of one send or receive buffer */
	EP_MAX_BUFS = 4096,		/* send or receive buffers of one endpoint */
	EP_DEFAULT_BUFS = 64,		/* when the application asks for 0 */
	EP_PAGE = 4096,			/* regions start on page boundaries */
	EP_SHM_NAME_MAX = 96,		/* bytes of an object (memfd) name with its NUL */
};

/* Life of an endpoint as the header shows it. */
enum ep_state {
	EP_STATE_OPEN = 1,	/* nicd serves it */
	EP_STATE_CLOSED = 2,	/* nicd closed it (shutdown): reopen */
};

/*
 * The header at offset 0. The first block is written once by nicd before
 * the object is handed over; the second by nicd while it runs; the last
 * line by the application.
 */
struct ep_shm_hdr {
	uint32_t magic;			/* EP_SHM_MAGIC */
	uint32_t version;		/* EP_SHM_VERSION */
	uint64_t generation;		/* the nicd incarnation that made it */
	uint64_t size;			/* bytes of the object */
	uint16_t ep;			/* endpoint id */
	uint16_t vnet;			/* virtual network */
	uint16_t max_nodes;		/* node ids below this are valid targets */
	uint16_t max_endpoints;		/* endpoint ids below this are valid targets */
	uint32_t send_bufs;		/* send buffers */
	uint32_t recv_bufs;		/* receive buffers */
	uint32_t buf_size;		/* bytes per buffer (EP_BUF_SIZE) */
	uint32_t send_slots;		/* slots of the send and completion rings */
	uint32_t recv_slots;		/* slots of the receive and return rings */
	uint32_t wake_threshold;	/* wake once this many events are ready */
	uint32_t wake_delay_us;		/* ... or this long after the first one */
	uint32_t heartbeat_ms;		/* nicd refreshes heartbeat_ns this often */
	uint32_t heartbeat_timeout_ms;	/* an older heartbeat means nicd is gone */
	uint32_t reserved0;		/* zero */
	uint64_t off_send_ring;		/* struct spsc_ring, then its slots */
	uint64_t off_comp_ring;		/* ditto */
	uint64_t off_recv_ring;		/* ditto */
	uint64_t off_rret_ring;		/* ditto */
	uint64_t off_send_bufs;		/* send_bufs * buf_size bytes */
	uint64_t off_recv_bufs;		/* recv_bufs * buf_size bytes */
	_Alignas(SPSC_CACHE_LINE) _Atomic uint32_t state;	/* enum ep_state */
	_Atomic uint32_t node;		/* node id, 0xFFFF before joining */
	_Atomic uint32_t cluster_size;	/* nodes in the cluster, 0 before joining */
	_Atomic uint64_t heartbeat_ns;	/* CLOCK_MONOTONIC when nicd last ran */
	_Alignas(SPSC_CACHE_LINE) _Atomic uint32_t wake_armed;	/* 1: the application sleeps */
};

/* A send: the application fills one and pushes it on the send ring. */
struct ep_send_desc {
	uint32_t buf;			/* send buffer holding the payload */
	uint16_t dst_node;		/* target node */
	uint16_t dst_ep;		/* target endpoint */
	uint16_t handler;		/* active-message handler id */
	uint8_t chan;			/* enum segnet_chan */
	uint8_t reserved;		/* zero */
	uint16_t len;			/* payload bytes (bulk), 0 (quick) */
	uint16_t reserved2;		/* zero */
	uint8_t args[EP_ARGS_LEN];	/* arguments */
};

/* A finished send; the send buffer is the application's again. */
struct ep_comp {
	uint32_t buf;			/* send buffer of the send */
	int32_t status;			/* enum segnet_status */
};

/* A received message in receive buffer buf. */
struct ep_recv_desc {
	uint32_t buf;			/* receive buffer holding the payload */
	uint16_t src_node;		/* sender node */
	uint16_t src_ep;		/* sender endpoint */
	uint16_t handler;		/* handler id */
	uint8_t chan;			/* enum segnet_chan */
	uint8_t reserved;		/* zero */
	uint16_t len;			/* payload bytes */
	uint16_t reserved2;		/* zero */
	uint8_t args[EP_ARGS_LEN];	/* arguments */
};

/* A receive buffer the application is done with. */
struct ep_rret {
	uint32_t buf;			/* receive buffer */
};

_Static_assert(sizeof(struct ep_send_desc) == 48, "send descriptor layout");
_Static_assert(sizeof(struct ep_recv_desc) == 48, "receive descriptor layout");
_Static_assert(sizeof(struct ep_comp) == 8, "completion layout");
_Static_assert(sizeof(struct ep_shm_hdr) <= EP_PAGE, "header fits its page");

/* Where everything is, from the buffer counts. */
struct ep_layout {
	uint32_t send_bufs;		/* send buffers */
	uint32_t recv_bufs;		/* receive buffers */
	uint32_t send_slots;		/* power of two >= send_bufs */
	uint32_t recv_slots;		/* power of two >= recv_bufs */
	uint64_t off_send_ring;		/* send ring (as in the header) */
	uint64_t off_comp_ring;		/* completion ring */
	uint64_t off_recv_ring;		/* receive ring */
	uint64_t off_rret_ring;		/* return ring */
	uint64_t off_send_bufs;		/* send buffers */
	uint64_t off_recv_bufs;		/* receive buffers */
	uint64_t size;			/* bytes of the object */
};

/* One side's views of an endpoint's rings and buffers. */
struct ep_view {
	struct ep_shm_hdr *hdr;		/* the header */
	struct spsc send;		/* send ring */
	struct spsc comp;		/* completion ring */
	struct spsc recv;		/* receive ring */
	struct spsc rret;		/* return ring */
	unsigned char *send_bufs;	/* send buffer 0 */
	unsigned char *recv_bufs;	/* receive buffer 0 */
};

/* Lay out an endpoint of send_bufs and recv_bufs buffers; 0 or -EINVAL. */
int ep_layout_compute(uint32_t send_bufs, uint32_t recv_bufs, struct ep_layout *l);

/* Write a fresh header and empty rings for layout l at base. */
void ep_shm_format(void *base, const struct ep_layout *l, uint64_t generation,
		   uint16_t ep, uint16_t vnet);

/*
 * Check the header of a mapping of `mapped` bytes against the layout its
 * buffer counts give: 0, -EPROTO (magic or version) or -EINVAL.
 */
int ep_shm_check(const void *base, size_t mapped, struct ep_layout *l);

/*
 * Build the views of a formatted, checked object: nicd is the producer of
 * the completion and receive rings, the application of the other two.
 */
void ep_view_init(struct ep_view *v, void *base, const struct ep_layout *l,
		  bool nicd_side);

/*
 * Create the anonymous shared-memory object (a memfd called name, shown
 * as /memfd:name in /proc/PID/fd) of layout l, sealed against shrinking
 * and growing, and map it. Returns the descriptor and the mapping in *fd
 * and *base; 0 or -errno.
 */
int ep_shm_create(const char *name, const struct ep_layout *l, int *fd, void **base);

/* Map an object of size bytes from its descriptor; NULL with errno. */
void *ep_shm_map(int fd, size_t size);

#endif
