/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The protocol-stage framework. A stage is a small registration struct (name,
 * validated parameters, per-pipeline and per-connection state, a transmit and
 * a receive function on a burst, a timer tick, counters). A pipeline is
 * assembled from a list of stage names with parameters, e.g.
 *
 *     "build_acks:threshold=4,order:mode=sr,dup_find,timer:timeout_us=60,genp:window=32"
 *
 * listed from the application (top) to the wire (bottom). Transmit bursts run
 * top to bottom and end in the pipeline's sink (the channel layer); receive
 * bursts run bottom to top and end in delivery to the application. One
 * pipeline serves one virtual network; it keeps one connection per peer node.
 *
 * Stages share a few standard per-connection fields (struct sn_conn): the
 * packet-number state of each direction. Everything else a stage keeps is its
 * own. The frame format is known only to the ingress and egress stages
 * (bad_filter, split, xmit), which the NIC runs around every pipeline.
 */
#ifndef SEGNET_STAGE_H
#define SEGNET_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

enum {
	STAGE_MAX = 12,		/* stages in one pipeline */
	STAGE_MAX_PARAMS = 6,	/* parameters of one stage */
	STAGE_MAX_COUNTERS = 24,	/* counters of one stage */
};

struct stage;
struct pipeline;

/* A stage parameter: an integer in [min, max], or one of `choices`. */
struct stage_param {
	const char *name;		/* key in "stage:key=value" */
	const char *help;		/* one line */
	int64_t min;			/* smallest value (integers) */
	int64_t max;			/* largest value (integers) */
	int64_t def;			/* default (index into choices if any) */
	const char *const *choices;	/* NULL-terminated names, or NULL */
};

/* Events one stage raises for the others (e.g. a timer expiry). */
enum stage_event {
	STAGE_EV_TIMEOUT,	/* the packet given waited too long for its ack */
	STAGE_EV_RESET,		/* peer down or restarted: forget the connection */
	STAGE_EV_FAIL,		/* peer away, the connection stays: complete
				 * (SN_ERR_DOWN) what has no packet number; the
				 * NIC makes the numbered ones markers */
	STAGE_EV_UNTAKEN,	/* the packet given, waiting for its ack, was
				 * sent FRESH and not taken (its receiver's
				 * WELCOME came): send it again now, as at a
				 * timeout (sn_pkt.untaken: no retry used) */
	STAGE_EV_REFUSED,	/* the packet given, first of those its endpoint
				 * refused, is a marker now, and the receiver goes
				 * back N: it discarded what came after, which goes
				 * again now, as at a timeout (retries used) */
};

/* A stage's registration. */
struct stage_ops {
	const char *name;			/* in pipeline specs */
	const char *help;			/* one line for --help */
	const struct stage_param *params;	/* NULL-terminated by name */
	const char *const *counter_names;	/* NULL-terminated */
	size_t priv_size;			/* per-pipeline state */
	size_t conn_size;			/* per-connection state */
	/* Check parameters and neighbours; 0 or -EINVAL with a message. */
	int (*init)(struct stage *st, char *err, size_t errlen);
	/* Transmit burst; returns how many continue down (kept in front). */
	uint16_t (*tx)(struct stage *st, struct sn_pkt **pkts, uint16_t n,
		       uint64_t now);
	/* Receive burst; returns how many continue up (kept in front). */
	uint16_t (*rx)(struct stage *st, struct sn_pkt **pkts, uint16_t n,
		       uint64_t now);
	/* Timers; returns the next time the stage needs a tick. */
	uint64_t (*tick)(struct stage *st, uint64_t now);
	/* An event about conn (and the packet it concerns, if any). */
	void (*event)(struct stage *st, struct sn_conn *conn, enum stage_event ev,
		      struct sn_pkt *pkt, uint64_t now);
	/*
	 * Endpoint src_ep is closing: complete (pipeline_complete,
	 * SN_ERR_CANCELLED) the packets of its messages that the stage keeps
	 * and that have no packet number yet. Numbered ones stay: the NIC
	 * turns them into markers (nic_cancel).
	 */
	void (*cancel)(struct stage *st, uint16_t src_ep, uint64_t now);
	/*
	 * True when the stage keeps a received data packet of conn for
	 * endpoint ep numbered after n, to be delivered (a reorder buffer):
	 * refusing n would let that message pass n's (NULL: keeps none).
	 */
	bool (*holds_later)(struct stage *st, struct sn_conn *conn, uint16_t ep, uint32_t n);
	/* Set up a new connection's state (already zeroed). */
	void (*conn_init)(struct stage *st, struct sn_conn *conn);
	/* Release what a connection's state holds (pipeline teardown). */
	void (*conn_fini)(struct stage *st, struct sn_conn *conn);
	/* Release what the stage's own state holds (pipeline teardown). */
	void (*fini)(struct stage *st);
};

/* A stage in a pipeline. */
struct stage {
	const struct stage_ops *ops;	/* registration */
	struct pipeline *pl;		/* owner */
	unsigned int index;		/* 0 = top */
	int64_t param[STAGE_MAX_PARAMS];	/* values, in ops->params order */
	void *priv;			/* ops->priv_size bytes, zeroed */
	size_t conn_off;		/* offset of its state in a connection */
	uint64_t cnt[STAGE_MAX_COUNTERS];	/* counters, named by ops */
};

/* What a pipeline calls outside itself (the NIC). */
struct pipeline_env {
	void *ctx;	/* first argument of every callback */
	/* Bottom of transmit: hand a packet to the channel layer. */
	void (*sink)(void *ctx, struct sn_pkt *pkt, uint64_t now);
	/* Top of receive: a data packet for the application. */
	void (*deliver)(void *ctx, struct sn_pkt *pkt, uint64_t now);
	/* A transmitted packet is finished with (status: enum sn_status). */
	void (*complete)(void *ctx, struct sn_pkt *pkt, int status, uint64_t now);
	/* A fresh packet (for acknowledgments): header and state zero, or NULL. */
	struct sn_pkt *(*alloc)(void *ctx);
	/* Give back a packet nobody holds. */
	void (*release)(void *ctx, struct sn_pkt *pkt);
	/*
	 * True when so few descriptors or frames are left that a received
	 * packet must not be held for later (it would take one the next packet
	 * in order needs); NULL: never.
	 */
	bool (*rx_tight)(void *ctx);
	/*
	 * conn restarts (a reset here, or its peer's newer epoch): finish
	 * what the outside holds of it as a DOWN notice would; NULL: nothing.
	 */
	void (*restart)(void *ctx, struct sn_conn *conn, uint64_t now);
	/*
	 * pkt arrived and its receiver holds it (acknowledged by mask under
	 * order): it is never resent, so the channel need not keep it; it
	 * completes later. NULL: nothing.
	 */
	void (*held)(void *ctx, struct sn_pkt *pkt, uint64_t now);
};

/* What the epoch of a frame received on a connection says (pipeline_rx_epoch). */
enum pipeline_epoch {
	PIPELINE_EPOCH_CURRENT,	/* the connection's own (or its first): take the frame */
	PIPELINE_EPOCH_NEWER,	/* the peer restarted it: restarted here too, take the frame */
	PIPELINE_EPOCH_STALE,	/* from before a reset: drop the frame whole */
	PIPELINE_EPOCH_FRESH_RESTART,	/* FRESH, of a new process of the peer: restarted, take it */
	PIPELINE_EPOCH_OTHER_PAIR,	/* beyond SN_EPOCH_REACH: of another pair of
					 * processes as far as conn can tell: drop it */
};

/* A pipeline: the stages of one virtual network and its connections. */
struct pipeline {
	char name[16];			/* "vnet3": its counters' key (as in telemetry) */
	uint16_t vnet;			/* virtual network it serves */
	uint16_t self;			/* this node's id */
	uint16_t nonce;			/* this process's boot nonce (0 unless set):
					 * with the peer's, a new pair's first epoch */
	uint16_t n_nodes;		/* peers: 0 .. n_nodes-1 */
	unsigned int n_stages;		/* stages[0] is the top */
	struct stage stages[STAGE_MAX];	/* the stages */
	unsigned int n_tickers;		/* stages with a tick */
	struct stage *tickers[STAGE_MAX];	/* those, top first (pipeline_tick
						 * skips the others without a look) */
	size_t conn_size;		/* bytes of one connection */
	struct sn_conn **conns;		/* by peer node, created on first use */
	struct sn_conn *active;		/* connections with unacknowledged packets */
	struct pipeline_env env;	/* the outside */
	bool numbered;			/* has genp: packets carry numbers */
	bool acked;			/* has build_acks: frames carry acks */
	bool goes_back_n;		/* genp goes back N: its receiver discards what
					 * comes out of order */
	uint32_t max_tries;		/* genp's max_retx: transmissions after which it
					 * gives a packet up (0: no limit) */
	/*
	 * pipeline_tick has nothing to do before this time: the earliest
	 * deadline its stages returned, or 0 once a packet passed a stage, an
	 * event came or a data frame left since (pipeline_touch).
	 */
	uint64_t tick_due;
};

/* A registry of stages, NULL-terminated (nicd provides the table). */
struct stage_registry {
	const struct stage_ops *const *ops;
};

/* Find a stage by name in a registry. */
const struct stage_ops *stage_find(const struct stage_registry *reg,
				   const char *name);

/*
 * Build a pipeline from a spec for virtual network vnet on node self in a
 * cluster of n_nodes. NULL with errno and a message naming the stage or
 * parameter in err when the spec is bad or the stages cannot work together.
 */
struct pipeline *pipeline_create(const struct stage_registry *reg,
				 const char *spec, uint16_t vnet, uint16_t self,
				 uint16_t n_nodes, const struct pipeline_env *env,
				 char *err, size_t errlen);

/* Free a pipeline, its connections and what their stages hold. */
void pipeline_destroy(struct pipeline *pl);

/* The connection to peer, created on first use; NULL if out of range. */
struct sn_conn *pipeline_conn(struct pipeline *pl, uint16_t peer);

/* Put conn on the pipeline's list of connections with packets in flight. */
void pipeline_conn_activate(struct pipeline *pl, struct sn_conn *conn);

/* The stage named name in pl, or NULL. */
struct stage *pipeline_stage(struct pipeline *pl, const char *name);

/* True when a stage of pl holds a packet of conn for ep after n (stage_ops.holds_later). */
bool pipeline_holds_later(struct pipeline *pl, struct sn_conn *conn, uint16_t ep, uint32_t n);

/* Run a transmit burst from the top. */
void pipeline_tx(struct pipeline *pl, struct sn_pkt **pkts, uint16_t n,
		 uint64_t now);

/* Run a receive burst from the bottom. */
void pipeline_rx(struct pipeline *pl, struct sn_pkt **pkts, uint16_t n,
		 uint64_t now);

/*
 * Tick every stage; returns the earliest next tick wanted. Before that time
 * and with nothing passed through the pipeline since, it only returns it:
 * a stage's tick must do nothing before the deadline it returned that a
 * later tick would not do the same (a token refill, a list pruned).
 */
uint64_t pipeline_tick(struct pipeline *pl, uint64_t now);

/* Tell every stage about an event (bottom to top). */
void pipeline_event(struct pipeline *pl, struct sn_conn *conn,
		    enum stage_event ev, struct sn_pkt *pkt, uint64_t now);

/*
 * Reset conn here (its peer is down or restarted): its packets fail with
 * SN_ERR_DOWN, numbering starts over, and with new_epoch it takes the next
 * epoch; it knows its epoch from then on.
 */
void pipeline_conn_reset(struct pipeline *pl, struct sn_conn *conn, bool new_epoch,
			 uint64_t now);

/*
 * The same without touching the epoch or whether conn knows one: for a
 * connection that knows none (a NIC takes an epoch only from a WELCOME).
 */
void pipeline_conn_start_over(struct pipeline *pl, struct sn_conn *conn, uint64_t now);

/*
 * Restart conn because its peer does not take its packets (a NO_VNET
 * answer, a marker never acknowledged): at the next epoch when it knows
 * one (pipeline_conn_reset), else over, still knowing none
 * (pipeline_conn_start_over): given an epoch it would know no process of
 * its peer, and a late frame of a gone pair would be compared by sign
 * alone.
 */
void pipeline_conn_renew(struct pipeline *pl, struct sn_conn *conn, uint64_t now);

/*
 * The first epoch of a new pair of processes: a hash of both boot nonces
 * (either order), so that the epochs of pairs that are gone are far from
 * it (doc/protocol.md, connection epochs). 0 for two nonces 0.
 */
uint16_t pipeline_pair_epoch(uint16_t a, uint16_t b);

/*
 * Check the epoch of a frame from conn's peer before anything in it is used
 * (doc/protocol.md, connection epochs). A first epoch is adopted; a newer
 * one restarts conn and is adopted (not moved on); a stale frame is for the
 * caller to drop, and conn answers it with an ack-only frame at once so a
 * peer that missed the reset learns the current epoch. named: the frame
 * names both processes of conn's pair (a WELCOME of the peer's process
 * conn knows, to this one): its epoch is compared however far, and a
 * stale one gets no ack-only answer (the caller answers with a WELCOME).
 * Otherwise, while conn knows its peer's process, an epoch more than
 * SN_EPOCH_REACH away is of another pair (OTHER_PAIR): for the caller to
 * drop and answer by introducing this process (a FRESH frame), which the
 * peer's process answers with a WELCOME that names the pair.
 */
enum pipeline_epoch pipeline_rx_epoch(struct pipeline *pl, struct sn_conn *conn,
				      uint16_t epoch, bool named, uint64_t now);

/*
 * The same for a frame flagged FRESH (its sender's connection knows no epoch
 * yet) carrying the boot nonce of its sender's process instead of an epoch
 * (doc/protocol.md, connection epochs). Taken (CURRENT) when conn took that
 * nonce already (a FRESH frame or a WELCOME of it), or heard nothing of the
 * peer since its last restart, or took its own epoch from the peer while it
 * knew none itself; stale when conn took that nonce before its last
 * restart (no answer: the caller's WELCOME says RESTART); otherwise conn
 * holds state of an earlier process of the peer: it restarts at the next
 * epoch and takes the frame (FRESH_RESTART). Taken, conn knows its epoch
 * from then on, and the caller answers with a WELCOME; a conn that knew
 * none takes the pair's first epoch (pipeline_pair_epoch).
 */
enum pipeline_epoch pipeline_rx_fresh(struct pipeline *pl, struct sn_conn *conn,
				      uint16_t nonce, uint64_t now);

/*
 * A notice of the switch named the process of boot nonce `nonce` as conn's
 * peer (the one it last saw join): until conn restarts, what it numbers
 * goes to that process, and a FRESH frame of another restarts it.
 */
void pipeline_name_process(struct sn_conn *conn, uint16_t nonce);

/*
 * A frame without FRESH came on conn, which knows no epoch, and it is no
 * WELCOME of this process's nonce: it may be from before this process
 * (its peer never heard of it), so it is dropped and conn answers at once
 * with an ack-only frame, which says FRESH. STALE.
 */
enum pipeline_epoch pipeline_rx_unwelcome(struct pipeline *pl, struct sn_conn *conn,
					  uint64_t now);

/*
 * A frame of conn's current epoch acknowledges every packet up to
 * ack_base and those its ack_mask names past it. If one of them was
 * numbered here and never sent, or never numbered, the peer's receive
 * state is of another numbering of conn (a process or a restart it
 * missed): a receiver records only numbers it was sent, and within the
 * 32 of its mask, where genp's window keeps every number sent. conn
 * restarts at the next epoch (its messages fail SN_ERR_DOWN), answers at
 * once with an ack-only frame of it, from which the peer restarts too,
 * and the frame is for the caller to drop (STALE). Else CURRENT.
 */
enum pipeline_epoch pipeline_rx_ack_walk(struct pipeline *pl, struct sn_conn *conn,
					 uint32_t ack_base, uint32_t ack_mask, uint64_t now);

/*
 * The same, with no walk in the common case: without a packet numbered
 * and never sent (sn_conn.never_sent), an ack below tx_next (its highest
 * number, proto_ack_top) covers only packets that were sent. Else
 * pipeline_rx_ack_walk walks the packets the ack covers. Nearly every
 * frame carries an ack.
 */
static inline enum pipeline_epoch pipeline_rx_ack_base(struct pipeline *pl,
						       struct sn_conn *conn,
						       uint32_t ack_base, uint32_t ack_mask,
						       uint64_t now)
{
	if (!pl->numbered ||
	    (!conn->never_sent &&
	     proto_seq_diff(proto_ack_top(ack_base, ack_mask), conn->tx_next) < 0))
		return PIPELINE_EPOCH_CURRENT;
	return pipeline_rx_ack_walk(pl, conn, ack_base, ack_mask, now);
}

/*
 * A frame of the epoch conn took just now, while it knew none, acknowledges
 * (ack_base, ack_mask). On a numbered pipeline none of conn's packets can
 * have been taken (it sent them FRESH, and a FRESH packet is not taken),
 * so an ack that covers any (proto_ack_covers), or a number conn never
 * gave, is of another numbering of conn: as pipeline_rx_ack_walk, conn
 * restarts at the next epoch (STALE). Else CURRENT.
 */
enum pipeline_epoch pipeline_rx_ack_first(struct pipeline *pl, struct sn_conn *conn,
					  uint32_t ack_base, uint32_t ack_mask, uint64_t now);

/*
 * A WELCOME of this process's nonce came on conn, which knows no epoch: the
 * peer (process nonce) took conn's FRESH frames. conn takes epoch and notes
 * the peer's nonce. With restart (the peer took them before a restart of
 * its own) on an unnumbered pipeline, whose FRESH packets are taken and may
 * have been delivered, conn restarts first: its messages fail SN_ERR_DOWN
 * (NEWER). A numbered pipeline does not restart: none of its FRESH packets
 * was taken, and they go again in the epoch, numbers and all, to a peer
 * whose connection restarted (doc/protocol.md, connection epochs). Else
 * CURRENT.
 */
enum pipeline_epoch pipeline_rx_welcome(struct pipeline *pl, struct sn_conn *conn,
					uint16_t epoch, uint16_t nonce, bool restart,
					uint64_t now);

/* A standalone acknowledgment to conn's peer, not yet sent; NULL: no descriptor. */
struct sn_pkt *pipeline_ack_only(struct pipeline *pl, struct sn_conn *conn);

/* Tell every stage that endpoint src_ep is closing (see stage_ops.cancel). */
void pipeline_cancel(struct pipeline *pl, uint16_t src_ep, uint64_t now);

/* Continue a transmit burst below stage st (a stage releasing packets). */
void stage_pass_down(struct stage *st, struct sn_pkt **pkts, uint16_t n,
		     uint64_t now);

/* Continue a receive burst above stage st. */
void stage_pass_up(struct stage *st, struct sn_pkt **pkts, uint16_t n,
		   uint64_t now);

/* The stage named name below (or above) st, or NULL. */
struct stage *stage_below(struct stage *st, const char *name);
struct stage *stage_above(struct stage *st, const char *name);

/* Value of parameter `name` of stage st (which must declare it). */
int64_t stage_param(const struct stage *st, const char *name);

/* This stage's state in a connection. */
static inline void *stage_conn(const struct stage *st, struct sn_conn *conn)
{
	return (char *)conn + st->conn_off;
}

/* Finish a transmitted packet: completion to its owner, then release. */
void pipeline_complete(struct pipeline *pl, struct sn_pkt *pkt, int status,
		       uint64_t now);

/* How many counters st has (its ops->counter_names). */
unsigned int stage_n_counters(const struct stage *st);

/*
 * Print every stage's non-zero counters, one "PREFIX.vnetID.STAGE.COUNTER
 * value" per line (prefix: the node's name).
 */
void pipeline_print_counters(const struct pipeline *pl, const char *prefix, FILE *f);

/* Format the stage list ("genp(window=32) -> ...") into buf. */
void pipeline_describe(const struct pipeline *pl, char *buf, size_t len);

/*
 * The counts a connection keeps of what its lists say too, counted again
 * (never_sent: its unacknowledged packets not sent yet; rx_blocks_used:
 * its receive blocks in use), for the checks of tests and fuzzers. True
 * when every connection agrees; else false with the first one that does
 * not in buf.
 */
bool pipeline_counts_agree(const struct pipeline *pl, char *buf, size_t len);

#endif
