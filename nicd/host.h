/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host interface of one node: the endpoint table that applications
 * reach through libsegnet. It owns the node's control socket, creates each
 * endpoint's shared memory and eventfd, turns the descriptors of the send
 * rings into nic_send calls, and posts deliveries and completions to the
 * endpoints' rings (doc/endpoints.md). The NIC it serves is handed to it;
 * it is polled by nicd's loop and never sleeps.
 */
#ifndef SEGNET_HOST_H
#define SEGNET_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <rte_telemetry.h>

#include "dataplane/dp_counters.h"
#include "keyfile.h"
#include "nic.h"

/* A virtual network the node serves, with its key. */
struct host_vnet {
	uint16_t vnet;			/* its id */
	uint16_t key_len;		/* bytes of key */
	uint8_t key[KEY_MAX];		/* the key, zero-padded */
};

/* Configuration of one node's host interface. */
struct host_config {
	const char *name;		/* control socket NAME (letters, digits, '_', '-') */
	const char *socket_dir;		/* directory of NAME.sock */
	mode_t socket_mode;		/* permissions of the socket */
	uint16_t endpoints;		/* endpoint table size */
	uint16_t max_nodes;		/* node ids below this are valid targets */
	const struct host_vnet *vnets;	/* served virtual networks */
	unsigned int n_vnets;		/* entries in vnets */
	uint64_t generation;		/* this nicd's incarnation */
};

#define HOST_COUNTERS(X) \
	X(opens, "endpoints opened") \
	X(closes, "endpoints closed by their application") \
	X(open_bad_key, "OPENs refused: wrong key (EACCES)") \
	X(open_no_vnet, "OPENs refused: unknown virtual network (ENOENT)") \
	X(open_full, "OPENs refused: endpoint table full (ENOSPC)") \
	X(open_bad_msg, "OPENs refused: malformed, bad sizes or wrong version") \
	X(open_failed, "OPENs that failed in nicd (shared memory, eventfd, reply)") \
	X(open_evicted, "connections closed before their OPEN to make room for a new one") \
	X(open_expired, "connections closed for sending no OPEN within 5 s") \
	X(open_abandoned, "connections closed for hanging up before their OPEN") \
	X(sends, "sends taken from send rings to the NIC") \
	X(send_invalid, "send descriptors refused: completed with SEGNET_EINVAL, or dropped " \
			"uncompleted when their buffer is not the endpoint's or is in flight") \
	X(send_nic_busy, "times a send ring waited: no NIC descriptor free") \
	X(completions, "completions posted") \
	X(sends_cancelled, "sends the NIC still held when their endpoint closed, cancelled") \
	X(completions_orphaned, "completions of closed endpoints, dropped") \
	X(delivered, "messages posted to receive rings") \
	X(rx_no_endpoint, "messages for an endpoint not open on their virtual network, dropped") \
	X(rx_refused, "frames refused: the endpoint had no free receive buffer") \
	X(rx_held, "messages delivered while no receive buffer was free, held in nicd") \
	X(rx_overflow, "messages dropped: the held-back queue was full") \
	X(rx_held_closed, "messages dropped: held in nicd when their endpoint closed") \
	X(rx_ring_full, "messages dropped: the receive ring was full (buffers given back unread)") \
	X(comp_ring_full, "completions dropped: the completion ring was full") \
	X(rret_invalid, "receive buffers given back that the application did not hold") \
	X(wakeups, "eventfd wake-ups") \
	X(ring_broken, "endpoints closed because their rings held nonsense")

/* Counters of a node's host interface. */
struct host_stats {
	HOST_COUNTERS(DP_COUNTER_FIELD)
};

/* Names of struct host_stats fields. */
extern const char *const host_counter_names[];

struct host;

/*
 * Create the host interface and its control socket (DIR/NAME.sock; an
 * error when another nicd answers there). NULL with errno and a message.
 */
struct host *host_create(const struct host_config *cfg, char *err, size_t errlen);

/* The NIC callbacks that feed this host (ctx is the host). */
struct nic_ops host_nic_ops(struct host *h);

/* Attach the NIC the host sends through (before the first poll). */
void host_set_nic(struct host *h, struct nic *nic);

/*
 * True when name may name a node: 1 to 31 letters, digits, '_' or '-' (it
 * becomes part of file names).
 */
bool host_name_valid(const char *name);

/*
 * Do the host's work due at now: send rings, held-back messages, wake-ups,
 * heartbeats, the control socket. Returns true when it moved messages;
 * lowers *next to the next time it must run.
 */
bool host_poll(struct host *h, uint64_t now, uint64_t *next);

/*
 * Close every endpoint (their applications see -ESHUTDOWN; the NIC cancels
 * their sends, so their shared memory is unmapped) and the control socket.
 * Without a NIC, mappings the NIC might hold payloads in stay until
 * host_destroy: destroy the NIC in between.
 */
void host_shutdown(struct host *h);

/* Free the host (after host_shutdown and nic_destroy). */
void host_destroy(struct host *h);

/* Counters. */
const struct host_stats *host_stats(const struct host *h);

/* Endpoints open now. */
unsigned int host_open_count(const struct host *h);

/* Path of the control socket. */
const char *host_socket_path(const struct host *h);

/*
 * Add one dictionary per open endpoint to d, keyed "<prefix>ep<id>", while
 * they fit in *budget bytes of reply (taken from it); the others are
 * counted in *left_out. 0 or -ENOMEM.
 */
int host_telemetry_endpoints(const struct host *h, const char *prefix,
			     struct rte_tel_data *d, size_t *budget, unsigned int *left_out);

/* Print non-zero counters, prefixed by name. */
void host_print_counters(const struct host *h, const char *name, FILE *f);

#endif
