/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Messages mode of segnet-replay, inside: one endpoint per node through
 * libsegnet, the messages in flight (a ring indexed by message number, to
 * match deliveries and completions to sends), the counters and the
 * report. replay_messages.c sends and receives, replay_messages_report.c
 * prints, replay_lab.c reads a lab.sh lab. Only these files include it.
 */
#ifndef SEGNET_PCAP_REPLAY_MESSAGES_H
#define SEGNET_PCAP_REPLAY_MESSAGES_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nicd/segnet.h"
#include "pcap/replay/replay.h"

_Static_assert((int)REPLAY_ARGS_LEN == (int)SEGNET_ARGS_LEN, "argument length");
_Static_assert((int)REPLAY_BULK_CAP == (int)SEGNET_MAX_PAYLOAD, "bulk payload");
_Static_assert((int)REPLAY_QUICK == (int)SEGNET_QUICK && (int)REPLAY_BULK == (int)SEGNET_BULK,
	       "channel numbers");

enum {
	/* Messages in flight that can be matched (a power of two). */
	REPLAY_MSGS_RING = 1 << 16,
	/* Handler id of every replayed message. */
	REPLAY_MSGS_HANDLER = 1,
	/* Completions reaped per poll call. */
	REPLAY_MSGS_COMPS = 64,
	/* Length of a control socket path. */
	REPLAY_SOCK_LEN = 108,
	/* Length of a key file path. */
	REPLAY_PATH_LEN = 512,
};

/*
 * A send that finds no free buffer for this long drops the rest of its
 * burst (ns of watched time: see REPLAY_GAP_NS).
 */
#define REPLAY_MSGS_STALL_NS (2ull * 1000 * 1000 * 1000)

/* Where a message in flight is (struct replay_flight.flags). */
enum replay_flight_flag {
	REPLAY_FL_SENT = 1u << 0,	/* sent, not yet finished */
	REPLAY_FL_DELIVERED = 1u << 1,	/* its handler ran at the destination */
	REPLAY_FL_COMPLETED = 1u << 2,	/* its completion came back */
	REPLAY_FL_FAILED = 1u << 3,	/* ... with an error status */
};

/* How the drain after the loop ended (struct replay_msgs.drain_end). */
enum replay_drain_end {
	REPLAY_DRAIN_ALL_IN,	/* every message sent finished */
	REPLAY_DRAIN_TIMEOUT,	/* --drain-ms ran out first */
	REPLAY_DRAIN_STOPPED,	/* a signal stopped the replay or the drain */
	REPLAY_DRAIN_ERROR,	/* a fatal error (a nicd went away) ended it */
};

/* One message in flight, at ring[number % REPLAY_MSGS_RING]. */
struct replay_flight {
	/* its number in the replay (the header carries the low 32 bits) */
	uint64_t seq;
	/* clock reading just before the send call that took it */
	uint64_t t_send;
	/* its entry in the plan */
	uint64_t k;
	/* enum replay_flight_flag */
	uint32_t flags;
};

/* Counters of one channel. */
struct replay_chan_stats {
	/* messages sent */
	uint64_t sent;
	/* content bytes sent */
	uint64_t bytes;
	/* messages delivered (their handler ran, first time) */
	uint64_t delivered;
	/* completions with an error status */
	uint64_t errors;
	/* messages whose content was cut to fit the channel */
	uint64_t cut;
	/* send calls that found no free send buffer (then retried) */
	uint64_t busy;
	/* records never sent: the send buffers stayed full (stall) */
	uint64_t dropped;
	/* deliveries whose content, destination or channel differ from the send */
	uint64_t corrupt;
	/* latency, send to delivery handler (the "error" of a replay_stats) */
	struct replay_stats *lat;
};

/* One node: its endpoint and what it sent and received. */
struct replay_node {
	/* the nicd control socket (name or path) */
	const char *nicd;
	/* the endpoint */
	struct segnet_ep *ep;
	/* its segnet node id and endpoint id */
	uint16_t id, ep_id;
	/* its index (the map's node number) */
	unsigned int index;
	/* messages sent from this node, per channel */
	uint64_t sent[REPLAY_NCHAN];
	/* messages delivered to this node, per channel */
	uint64_t delivered[REPLAY_NCHAN];
	/* back to the mode (handlers get the node) */
	struct replay_msgs *m;
};

/* Messages mode's state. */
struct replay_msgs {
	/* the command line */
	const struct replay_opts *o;
	/* the trace, compacted to the records of the plan */
	struct trace *trace;
	/* what each record becomes */
	struct replay_plan *plan;
	/* the map's name, for the report */
	const char *map;
	/* the nodes */
	struct replay_node *node;
	/* how many */
	unsigned int n;
	/* control socket paths read from --lab */
	char (*lab_sock)[REPLAY_SOCK_LEN];
	/* one eventfd per node, for sleeping */
	struct pollfd *pfd;
	/* the loop's clock, before adapt_clock */
	struct waiter_clock base;
	/* stop flag (SIGINT/SIGTERM) */
	const volatile sig_atomic_t *stop;
	/* plan entries queued for the next flush */
	uint64_t pending[REPLAY_BURST_MAX];
	/* how many */
	unsigned int n_pending;
	/* messages in flight, by number */
	struct replay_flight *ring;
	/* messages numbered so far */
	uint64_t seq;
	/* messages sent and not yet finished */
	uint64_t outstanding;
	/* per channel */
	struct replay_chan_stats chan[REPLAY_NCHAN];
	/* completions reaped */
	uint64_t completed;
	/* deliveries of a message already delivered */
	uint64_t duplicates;
	/* deliveries matching no message in flight */
	uint64_t unmatched;
	/* messages still unfinished when their ring entry was reused */
	uint64_t lost_track;
	/* drain: how long it waited, ns */
	uint64_t drain_ns;
	/* how it ended */
	enum replay_drain_end drain_end;
	/* it did not begin: a signal or an error came first */
	bool drain_skipped;
	/* messages sent, neither delivered nor failed when it ended */
	uint64_t in_flight;
	/* the first fatal error of a send or poll (-ESHUTDOWN ...) */
	int error;
	/* --latency-csv, or NULL */
	FILE *lat_csv;
	/* a write of --latency-csv failed */
	bool lat_csv_failed;
};

/* Where a lab.sh lab's nodes are. */
struct replay_lab {
	/* nodes */
	unsigned int nodes;
	/* their control sockets, in node order */
	char (*sock)[REPLAY_SOCK_LEN];
	/* the key file of the virtual network asked for */
	char key_file[REPLAY_PATH_LEN];
};

/*
 * Read the state file of the lab in dir (dir/lab.state, or dir itself when
 * it is the file) for virtual network vnet, whose key.vnet= line is needed
 * when need_key (no --key-file given; else lab->key_file may be empty).
 * 0, or -errno with a message: ENOENT (no state file), EINVAL (not up, or
 * a field missing), ENOMEM. lab->sock is allocated (free it).
 */
int replay_lab_read(const char *dir, uint16_t vnet, bool need_key, struct replay_lab *lab,
		    char *err, size_t errlen);

/* Print messages mode's lines of the table report. */
void replay_msgs_print(const struct replay_msgs *m, FILE *f);

/* Write the CSV or JSON report, summary included; 0 or -EIO. */
int replay_msgs_write(const struct replay_msgs *m, const struct replay_summary *sum,
		      enum replay_stats_format fmt, FILE *f);

/* Messages sent and never delivered, or corrupt, or dropped (exit status 1). */
uint64_t replay_msgs_failures(const struct replay_msgs *m);

#endif /* SEGNET_PCAP_REPLAY_MESSAGES_H */
