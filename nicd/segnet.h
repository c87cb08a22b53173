/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libsegnet: the application interface of segnet. An application opens an
 * endpoint on a virtual network (presenting the network's key) through the
 * nicd serving its node, then sends active messages — quick (a handler and
 * 32 bytes of arguments) or bulk (a handler, arguments and up to 2 KiB) — to
 * (node, endpoint) pairs, and polls to run the handlers of the messages that
 * arrived and to reap the completions of its sends. The endpoint lives in
 * shared memory (a sealed memfd) that only the holders of its descriptor,
 * nicd and the application, can map; the library and nicd exchange
 * everything through single-producer/single-consumer rings, so neither
 * ever takes a lock, and the library has no DPDK dependency.
 */
#ifndef SEGNET_LIBSEGNET_H
#define SEGNET_LIBSEGNET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
	SEGNET_ARGS_LEN = 32,		/* bytes of active-message arguments */
	SEGNET_MAX_PAYLOAD = 2048,	/* bytes of a bulk message */
	SEGNET_MAX_KEY = 64,		/* bytes of a virtual network's key */
	SEGNET_MAX_HANDLERS = 256,	/* handler ids 0 .. 255 */
};

/* Channels. */
enum segnet_chan {
	SEGNET_BULK = 0,
	SEGNET_QUICK = 1,
};

/* Completion status of a send (0 = delivered, or sent on an unreliable network). */
enum segnet_status {
	SEGNET_OK = 0,
	SEGNET_ELOST = 1,	/* unreliable configuration: the frame was lost */
	SEGNET_ERETRIES = 2,	/* reliable: retransmission limit reached */
	SEGNET_EDOWN = 3,	/* the target node is down or restarted, or does not
				 * serve the virtual network */
	SEGNET_ERESET = 4,	/* the connection was reset */
	SEGNET_EINVAL = 5,	/* nicd refused the send (bad target or length) */
};

struct segnet_ep;

/* A message as a handler sees it; valid only during the handler call. */
struct segnet_msg {
	uint16_t src_node;		/* sender node */
	uint16_t src_ep;		/* sender endpoint */
	uint16_t handler;		/* handler id */
	uint8_t chan;			/* enum segnet_chan */
	uint8_t args[SEGNET_ARGS_LEN];	/* arguments */
	const void *data;		/* bulk payload, or NULL */
	uint16_t len;			/* payload bytes */
};

/* An active-message handler. */
typedef void (*segnet_handler_fn)(struct segnet_ep *ep,
				  const struct segnet_msg *msg, void *ctx);

/* A finished send. */
struct segnet_completion {
	uint64_t cookie;	/* as given to the send */
	int status;		/* enum segnet_status */
};

/*
 * Options of segnet_open; zero fields take defaults. Events are arrived
 * messages and finished sends. With the default delay of 0, the first event
 * wakes segnet_wait at once whatever the threshold: a threshold above 1
 * only batches wake-ups together with a delay.
 */
struct segnet_open_opts {
	uint16_t send_bufs;	/* messages in flight at once (default 64, at most 4096) */
	uint16_t recv_bufs;	/* messages received, not yet polled (default 64, at most 4096) */
	uint32_t wake_threshold;	/* segnet_wait returns once this many events are ready (default 1) */
	uint32_t wake_delay_us;	/* ... or this long after the first one (default 0: at once) */
};

/*
 * Open an endpoint of virtual network vnet through the nicd whose control
 * socket is `nicd` (a path when it holds a '/', else a name looked up as
 * /run/segnet/NAME.sock, or under $SEGNET_SOCKET_DIR when that is set;
 * NULL means "segnet0"). Returns NULL with errno: EACCES (wrong key),
 * EPERM (no permission to connect to nicd's socket: its --socket-mode,
 * or a directory on the way), ENOSPC (endpoint table full), ENOENT (no
 * such virtual network), ECONNREFUSED / ENOENT (no nicd), EPROTO (version
 * mismatch), EINVAL (bad key length or buffer counts), ETIMEDOUT (nicd
 * did not take the connection or answer within 5 s), EMFILE / ENFILE
 * (nicd, or this process, is out of file descriptors: see ulimit -n).
 * segnet_open_error says which in words.
 */
struct segnet_ep *segnet_open(const char *nicd, uint16_t vnet, const void *key,
			      size_t key_len, const struct segnet_open_opts *opts);

/*
 * Why segnet_open(nicd, vnet, ...) failed with errno err, in words, into
 * buf (len bytes); returns buf. It looks at nicd's socket path to tell
 * the cases one errno covers apart: no socket there, a file there that is
 * not a socket, a socket nobody answers on (stale), a nicd that does not
 * serve vnet.
 */
const char *segnet_open_error(const char *nicd, uint16_t vnet, int err, char *buf,
			      size_t len);

/*
 * Close an endpoint. Its pending sends get no completion: nicd cancels
 * those that have not left (they never arrive; one that left may still
 * arrive) and frees the endpoint's memory at once. Every
 * call below refuses a NULL endpoint: -EINVAL (segnet_node and
 * segnet_endpoint: 0xFFFF; segnet_cluster_size and segnet_max_endpoints:
 * 0); segnet_close(NULL) does nothing.
 */
void segnet_close(struct segnet_ep *ep);

/* This endpoint's address. */
uint16_t segnet_node(const struct segnet_ep *ep);
uint16_t segnet_endpoint(const struct segnet_ep *ep);

/* Nodes in the cluster (0 until the NIC joined). */
uint16_t segnet_cluster_size(const struct segnet_ep *ep);

/* Endpoint ids a send may target: 0 .. this - 1 (nicd's --endpoints). */
uint16_t segnet_max_endpoints(const struct segnet_ep *ep);

/* Register fn for messages with handler id h (0 .. SEGNET_MAX_HANDLERS-1). */
int segnet_set_handler(struct segnet_ep *ep, uint16_t h, segnet_handler_fn fn,
		       void *ctx);

/*
 * Send a quick message (handler h, SEGNET_ARGS_LEN bytes of args) to
 * endpoint dst_ep of node dst_node. 0, or -EAGAIN (no send buffer free: poll
 * and retry), -EINVAL (a node outside the cluster, an endpoint beyond
 * nicd's table, a handler id too large), -ESHUTDOWN (nicd is gone: reopen).
 * Before the NIC joined, sends wait in it.
 */
int segnet_send_quick(struct segnet_ep *ep, uint16_t dst_node, uint16_t dst_ep,
		      uint16_t h, const void *args, uint64_t cookie);

/* Send a bulk message: args and len (<= SEGNET_MAX_PAYLOAD) bytes of data. */
int segnet_send_bulk(struct segnet_ep *ep, uint16_t dst_node, uint16_t dst_ep,
		     uint16_t h, const void *args, const void *data, size_t len,
		     uint64_t cookie);

/*
 * Run the handlers of arrived messages and return up to max completions.
 * Returns how many completions it wrote (>= 0), or -ESHUTDOWN when nicd is
 * gone (the endpoint must be closed and reopened). Handlers may send but
 * must not call segnet_poll, segnet_wait or segnet_close. A message whose
 * handler id has no handler is dropped.
 */
int segnet_poll(struct segnet_ep *ep, struct segnet_completion *comps, int max);

/*
 * Sleep until something is ready to poll (see the wake options) or
 * timeout_ms passes (-1: no limit). 0 (also when a signal cut the sleep
 * short), -ETIMEDOUT, -ESHUTDOWN.
 */
int segnet_wait(struct segnet_ep *ep, int timeout_ms);

/*
 * A file descriptor that becomes readable when segnet_wait would return,
 * once segnet_arm armed it: for applications that sleep in their own
 * poll/epoll loop.
 */
int segnet_fd(const struct segnet_ep *ep);

/*
 * Ask nicd to make segnet_fd readable at the next wake-up (see the wake
 * options). Returns 1 when events are ready already (poll now, do not
 * sleep), 0 when armed, -ESHUTDOWN when nicd is gone. Arm again after
 * each wake-up; segnet_wait does all this itself.
 */
int segnet_arm(struct segnet_ep *ep);

/*
 * Read a virtual network's key from a file as nicd does (the file's bytes
 * without one trailing newline) into key (SEGNET_MAX_KEY bytes). Returns
 * the key's length, or -errno (-ENODATA for an empty file, -E2BIG for one
 * longer than SEGNET_MAX_KEY).
 */
int segnet_read_key(const char *path, void *key);

/* Name of a status. */
const char *segnet_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif
