/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NIC: a state machine handed its two channel ports and the time. It
 * joins the cluster (HELLO until the switch's grant gives it an id), runs one
 * protocol pipeline per virtual network, and drives both channels: per-target
 * bulk send buffers with a CFG when its requests change (and a keepalive)
 * and a BREQ in each granted slot, and the quick channel's send buffers.
 * nicd and segnet-sim drive it alike; it never calls ethdev and never reads
 * a clock.
 */
#ifndef SEGNET_NIC_H
#define SEGNET_NIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "dataplane/dp_counters.h"
#include "dataplane/dp_port.h"
#include "dataplane/pkt.h"
#include "dataplane/stage.h"

enum {
	NIC_MAX_VNETS = 64,	/* virtual networks one NIC serves */
};

/*
 * 1/share of bufs send buffers, at least 1: how nicd and segnet-sim derive
 * the per-target cap (and nicd the quick reserve) when it is not given.
 */
static inline uint16_t nic_per_target_share(uint16_t bufs, uint16_t share)
{
	return bufs >= share ? (uint16_t)(bufs / share) : 1;
}

/* Configuration of one NIC. */
struct nic_config {
	uint16_t max_nodes;		/* largest cluster it can join */
	uint16_t max_endpoints;		/* endpoint ids must be below this */
	uint16_t bulk_bufs;		/* bulk send buffers */
	uint16_t bulk_per_target;	/* of which one target may hold at most */
	uint16_t quick_bufs;		/* quick send buffers */
	uint16_t quick_reserve;		/* quick buffers kept for connections that
					 * hold none, one each; with one, the
					 * buffers of packets sent several times
					 * and still unacknowledged are taken back
					 * for connections that need one (0: neither) */
	uint32_t descriptors;		/* packet descriptors (tx + rx in flight) */
	uint64_t hello_ns;		/* HELLO interval while joining */
	uint32_t lost_gnt_slots;	/* slots without GNT before rejoining (0 = PROTO_LOST_GNT_SLOTS) */
	struct rte_mempool *mp;		/* frames */
	bool check_crc;			/* verify CRC32C of received frames */
	uint32_t cfg_keepalive;		/* slots between CFGs when nothing changes (0 = 8) */
	uint32_t incarnation;		/* differs each time the NIC starts (HELLO nonce) */
	double quick_gbps;		/* the fabric's quick rate (switchd --quick-gbps):
					 * QREQs leave at most this fast, or the quick
					 * port's speed if lower (0: that speed alone) */
};

/* What a NIC reports to its owner (endpoints in nicd, the generator in sim). */
struct nic_ops {
	void *ctx;	/* first argument of every callback */
	/* A data packet arrived for endpoint pkt->h.dst_ep. */
	void (*deliver)(void *ctx, const struct sn_pkt *pkt, uint64_t now);
	/* A sent packet finished; status is enum sn_status. */
	void (*complete)(void *ctx, const struct sn_pkt *pkt, int status,
			 uint64_t now);
	/* True when endpoint ep of vnet can take a packet (else BACK is NACK). */
	bool (*rx_space)(void *ctx, uint16_t vnet, uint16_t ep);
};

/* A message to send. */
struct nic_msg {
	uint16_t vnet;			/* virtual network */
	uint16_t dst_node;		/* target node */
	uint16_t dst_ep;		/* target endpoint */
	uint16_t src_ep;		/* sending endpoint */
	uint16_t handler;		/* active-message handler */
	uint8_t chan;			/* enum sn_chan */
	const uint8_t *args;		/* PROTO_ARGS_LEN bytes, or NULL for zeros */
	const uint8_t *payload;		/* bulk payload; must stay valid until completion */
	uint16_t len;			/* payload bytes (bulk only) */
	void *cookie;			/* returned with the completion */
};

#define NIC_COUNTERS(X) \
	X(rx_frames, "frames received") \
	X(rx_invalid, "frames that failed validation (bad_filter, by reason)") \
	X(rx_misdelivered, "frames addressed to another node") \
	X(rx_unknown_vnet, "frames of a virtual network this NIC does not serve") \
	X(rx_unexpected, "frames of a type a NIC does not take (CFG, HELLO)") \
	X(rx_no_desc, "frames dropped: no packet descriptor, or no memory for a new connection (a BREQ gets a NACK)") \
	X(rx_no_space, "data frames refused: no receive buffer (bulk: NACK sent)") \
	X(ep_refusals_sent, "of those, refused for their endpoint alone (REFUSED): the sender sends the message again, the connection goes on") \
	X(ep_blocks_full, "refusals that could not name their endpoint (all the connection's blocks in use): the packet keeps its number") \
	X(rx_over_promise, "data frames taken for an endpoint without a receive buffer: a later message for it waited in order already (held back in nicd)") \
	X(rx_stale_epoch, "frames of a connection dropped whole: from before a reset (an older epoch); an ack-only frame answers") \
	X(rx_other_pair, "frames of a connection dropped whole: their epoch too far from its own, of another pair of processes (one that is gone); a FRESH QACK that introduces this process answers (intro_sent)") \
	X(rx_before_join, "frames received before the NIC had an id") \
	X(rx_data, "data frames for this node (BREQ + QREQ), taken or refused") \
	X(rx_acks, "BACKs and QACKs for this node (DOWN notices apart)") \
	X(tx_msgs, "messages accepted for sending") \
	X(tx_no_desc, "sends refused: no packet descriptor left for sending (a quarter is kept for receiving)") \
	X(tx_frames, "data frames sent (BREQ + QREQ)") \
	X(retransmissions, "data frames sent again") \
	X(hello_sent, "HELLOs sent") \
	X(joins, "times the NIC joined (got an id)") \
	X(rejoins, "times the NIC lost its grants, or was told to, and said HELLO again") \
	X(told_to_rejoin, "GNTs flagged REJOIN: the switch did not have this node up (restarted, or marked it down)") \
	X(gnt_received, "GNTs received") \
	X(gnt_granted, "GNTs granting a target") \
	X(gnt_unused, "grants for a target with nothing queued") \
	X(gnt_out_of_order, "GNTs for an old slot, ignored") \
	X(slots_paused, "slots of the NIC's own pauses (of a gap between polls, what is over 100 ms), not counted as the switch's silence") \
	X(cfg_sent, "CFGs sent") \
	X(breq_sent, "BREQs sent") \
	X(breq_after_gnt, "of those, sent after their GNT was taken, still in its slot: packets that became ready while it lasted (a BACK opened the window or freed a send buffer); 0 with one frame a slot") \
	X(back_ok, "positive BACKs") \
	X(back_nack, "negative BACKs (target had no buffer): requested again") \
	X(ep_refusals_received, "REFUSED answers (BACK or QACK): the target's endpoint refused a packet") \
	X(ep_refusals_stale, "of those, for a packet no longer a message (a marker already, or acknowledged)") \
	X(ep_refusals_ignored, "of those, not acted on (no descriptor or hold free): the packet keeps its number and is resent") \
	X(requeued, "messages sent again under a new number after their endpoint refused them") \
	X(bulk_held_back, "connections held back from the bulk send buffers after a negative BACK") \
	X(back_missing, "BACKs that did not come in time") \
	X(back_unmatched, "BACKs matching no BREQ in flight") \
	X(back_sent, "BACKs sent") \
	X(qreq_sent, "QREQs sent") \
	X(qack_sent, "QACKs sent") \
	X(qreq_deferred, "polls that kept a QREQ back: the quick link had a backlog") \
	X(quick_reclaimed, "quick send buffers taken back from overdue packets (sent 4 times, not yet acknowledged) for a connection that has none: the packet waits for its ack without a buffer and takes one again to be resent") \
	X(down_notices, "DOWN notices from the switch") \
	X(no_vnet_sent, "NO_VNET answers sent: a data frame of a virtual network this NIC does not serve") \
	X(no_vnet_received, "NO_VNET answers received: the target does not serve the virtual network; its connection restarts (messages fail: SEGNET_EDOWN)") \
	X(epoch_restarts, "connections restarted by a frame of a newer epoch, or a RESTART answer on conf1: the peer restarted them") \
	X(rx_fresh, "frames flagged FRESH taken: their sender's connection knew no epoch yet (a process just started)") \
	X(rx_fresh_data, "of those, data frames and markers not taken into their pipeline (a BREQ gets a NACK): their sender sends them again in the epoch its WELCOME gives") \
	X(fresh_restarts, "connections restarted by a FRESH frame of a new process of the peer: they held an earlier one's state (its DOWN notice was lost)") \
	X(welcome_sent, "WELCOMEs sent: answers to a FRESH frame taken, with the epoch for its sender to take") \
	X(intro_sent, "FRESH QACKs sent by a connection that knows its epoch, answering a frame of another pair (rx_other_pair): the peer's WELCOME names both processes") \
	X(rx_welcome, "WELCOMEs taken by a connection that knew no epoch: it took the epoch") \
	X(rx_unwelcome, "frames dropped by a connection that knows no epoch yet (not a WELCOME of its own nonce); a FRESH ack-only frame answers") \
	X(ack_contradictions, "connections restarted by an acknowledgment of packets they numbered and never sent (or sent only FRESH, never taken): the peer's state was of another numbering") \
	X(completed_ok, "sends completed successfully") \
	X(completed_err, "sends completed with an error") \
	X(cancelled, "sends cancelled: their endpoint closed (among completed_err)") \
	X(delivered, "data packets delivered") \
	X(rx_abandoned, "markers of messages their sender gave up or cancelled, taken in order, nothing delivered") \
	X(no_mbuf, "frames not sent: mempool empty")

/* NIC counters. */
struct nic_stats {
	NIC_COUNTERS(DP_COUNTER_FIELD)
};

/* Names of struct nic_stats fields. */
extern const char *const nic_counter_names[];

struct nic;

/*
 * A NIC on a bulk and a quick port (the same port for both when there is
 * one). It does not own the ports. NULL with errno and a message in err.
 */
struct nic *nic_create(const struct nic_config *cfg, const struct nic_ops *ops,
		       struct dp_port *bulk, struct dp_port *quick,
		       char *err, size_t errlen);

/* Free a NIC and everything it holds (pending sends are not completed). */
void nic_destroy(struct nic *nic);

/*
 * Serve virtual network vnet with the protocol given by a pipeline spec
 * (see nicd/conf.h for the standard configurations). 0 or -errno with a
 * message naming the bad stage or parameter.
 */
int nic_add_vnet(struct nic *nic, uint16_t vnet, const char *spec,
		 char *err, size_t errlen);

/* Queue a message; 0, -EINVAL (bad fields), -ENOBUFS (no descriptor). */
int nic_send(struct nic *nic, const struct nic_msg *msg, uint64_t now);

/*
 * Cancel the messages endpoint src_ep of vnet sent that the NIC still holds
 * (the endpoint is closing): each completes before this returns, with
 * SN_ERR_CANCELLED, and the NIC never reads its payload again. One that
 * has no packet number yet is removed; a numbered one leaves a marker that
 * takes its number, so the connection's numbering stays whole and the
 * other endpoints' messages on it are delivered in order. A message whose
 * frame has left may still arrive. Returns how many were cancelled.
 */
uint32_t nic_cancel(struct nic *nic, uint16_t vnet, uint16_t src_ep, uint64_t now);

/* Do the work due at now; returns when it must run next. */
uint64_t nic_poll(struct nic *nic, uint64_t now);

/* This NIC's node id, or PROTO_NODE_NONE before it joined. */
uint16_t nic_node_id(const struct nic *nic);

/* Cluster size learned from the switch (0 before joining). */
uint16_t nic_cluster_size(const struct nic *nic);

/* True while the NIC is joined (grants arrive); its node id may outlive a lost switch. */
bool nic_is_up(const struct nic *nic);

/* Counters. */
const struct nic_stats *nic_stats(const struct nic *nic);

/*
 * Frames received, summed over the counters of what became of them (invalid,
 * before joining, misdelivered, unexpected, GNTs, data, acks, DOWN notices,
 * NO_VNET answers, REJOIN grants):
 * each frame is in exactly one, so this always equals s->rx_frames.
 */
uint64_t nic_rx_outcomes(const struct nic_stats *s);

/* Validation failures by enum proto_reason (the bad_filter counters). */
const uint64_t *nic_decode_drops(const struct nic *nic);

/* The pipeline of a virtual network, or NULL. */
struct pipeline *nic_pipeline(struct nic *nic, uint16_t vnet);

/* Messages waiting or in flight (not yet completed). */
uint32_t nic_pending(const struct nic *nic);

/* Print every non-zero counter, prefixed by name. */
void nic_print_counters(const struct nic *nic, const char *name, FILE *f);

#endif
