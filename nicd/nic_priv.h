/* SPDX-License-Identifier: BSD-3-Clause */
/* The NIC's internal state, shared by its files and nobody else. */
#ifndef SEGNET_NIC_PRIV_H
#define SEGNET_NIC_PRIV_H

#include "chan.h"
#include "dataplane/dp_mbuf.h"
#include "dataplane/dp_watch.h"
#include "nic.h"

/* How soon a quick send that found the mempool empty tries again. */
enum { NIC_NO_MBUF_RETRY_NS = 5000 };

/* Joining state. */
enum nic_state {
	NIC_JOINING,	/* saying HELLO until a grant gives an id */
	NIC_UP,		/* has an id, receives a grant every slot */
};

/* One served virtual network. */
struct nic_vnet {
	uint16_t vnet;		/* its id */
	struct pipeline *pl;	/* its protocol */
};

/* GNTs the slot clock of the BREQs sent after their GNT remembers (chan_slot_start). */
enum { CHAN_CLOCK_GNTS = 4 };

/* Channel state. */
struct nic_chan {
	struct chan_list *backlog;	/* per target: bulk waiting for a buffer */
	struct chan_list *voq;		/* per target: bulk send buffers */
	struct chan_list fifo;		/* FIFO mode: bulk send buffers in order */
	struct chan_list fifo_backlog;	/* FIFO mode: bulk waiting for a buffer */
	struct chan_list inflight;	/* bulk sent, waiting for BACK, oldest first */
	uint16_t *held;			/* per target: buffers in voq + inflight */
	uint16_t bulk_used;		/* bulk buffers in use */
	uint16_t rr;			/* prefetch round-robin pointer */
	bool prefetch_idle;		/* the last prefetch scan found nothing and
					 * nothing it looks at changed since
					 * (chan_prefetch_changed) */
	uint64_t prefetch_wake;		/* ... until then: the earliest end of
					 * a hold it passed over */
	struct chan_list qbacklog;	/* quick waiting for a buffer */
	struct chan_list qtx;		/* quick in a buffer, to send */
	struct chan_list qwait;		/* quick sent, waiting for its ack */
	uint16_t quick_used;		/* quick buffers in use (qtx + qwait) */
	uint16_t quick_overdue;		/* of qwait, packets sent CHAN_OVERDUE_TX
					 * times or more (chan_quick_reclaim) */
	uint32_t backlogged;		/* packets on the per-target backlogs */
	uint8_t *cfg_counts;		/* CFG request vector being built */
	uint8_t *cfg_enable;		/* CFG enable vector: every node */
	uint8_t *cfg_sent;		/* request set of the last CFG sent */
	uint64_t cfg_time;		/* when the last CFG left (0: none yet) */
	uint64_t voq_changes;		/* send buffers changed this many times */
	uint64_t hold_wake;		/* the earliest hold to end, UINT64_MAX: none */
	uint64_t cfg_changes;		/* ... as of the last request-set check */
	uint16_t gnt_target;		/* the last grant's target while its slot may
					 * take more BREQs, PROTO_NODE_NONE: none */
	uint16_t gnt_used;		/* BREQs sent on it (at most slot_frames) */
	uint64_t gnt_start;		/* when its slot began by the slot clock */
	uint64_t gnt_end_ps;		/* when the last of them ends at the bulk rate,
					 * ps after gnt_start (chan_breq_end_ps) */
	uint64_t clock_time[CHAN_CLOCK_GNTS];	/* the last GNTs' arrivals, a ring */
	uint32_t clock_slot[CHAN_CLOCK_GNTS];	/* ... and their slots */
	uint8_t clock_n;		/* entries of the ring filled */
	uint8_t clock_next;		/* the entry the next GNT takes */
};

/* The NIC. */
struct nic {
	struct nic_config cfg;		/* as given */
	struct nic_ops ops;		/* the owner */
	struct dp_port *bulk;		/* bulk-channel port */
	struct dp_port *quick;		/* quick-channel port (may equal bulk) */
	double quick_gbps;		/* the rate QREQs are paced at: its speed, or
					 * cfg.quick_gbps if lower; 0 if neither is
					 * known: QREQs never wait */
	double quick_ps_per_byte;	/* its byte time, when the rate is known */
	struct dp_ps_epoch quick_epoch;	/* time 0 of quick_free_ps */
	uint64_t quick_free_ps;		/* when what was sent on it will have left */
	uint64_t quick_backlog_ps;	/* backlog up to which a QREQ may join it */
	enum nic_state state;		/* joining or up */
	uint16_t id;			/* node id, PROTO_NODE_NONE before joining */
	uint16_t n_nodes;		/* cluster size */
	uint64_t slot_ns;		/* slot length from the grants */
	uint16_t back_slots;		/* slots a BACK may take */
	uint16_t slot_frames;		/* BREQs one grant allows */
	bool fifo;			/* unscheduled model: request head only */
	uint32_t gnt_slot;		/* slot of the last grant */
	uint64_t gnt_time;		/* when it arrived */
	struct dp_watch gnt_watch;	/* watched since (DP_WATCH_POLL_CAP_NS a gap) */
	struct dp_pause pause;		/* its own pauses (stats.slots_paused) */
	uint64_t next_hello;		/* next HELLO while joining */
	uint32_t hello_nonce;		/* incarnation: the same in every HELLO of one join */
	uint16_t boot_nonce;		/* this process's: in the epoch field of FRESH frames */
	bool *noticed;			/* by peer: a down notice came, and no rejoin
					 * notice nor frame of the peer's since (its
					 * connections took a new epoch once for this
					 * absence) */
	struct nic_vnet vnets[NIC_MAX_VNETS];	/* served virtual networks */
	unsigned int n_vnets;		/* entries in vnets */
	struct sn_pkt *descs;		/* descriptor array */
	struct sn_pkt *free_descs;	/* free list through next */
	uint32_t n_free;		/* descriptors on free_descs */
	uint32_t pending;		/* sends not yet completed */
	struct nic_chan ch;		/* channel layer */
	struct proto_limits lim;	/* what bad_filter accepts */
	struct nic_stats stats;		/* counters */
	uint64_t decode[PROTO_R_COUNT];	/* bad_filter drops by reason */
};

/*
 * A free descriptor made a new packet with header h, or NULL. Not cleared
 * whole (struct sn_pkt): h is copied in, the state cleared, m is NULL
 * already, and args[] keeps a former packet's bytes, read only where a
 * maker points h.args at them and fills them (nic_send, nic_copy_msg,
 * sn_pkt_make_marker). That saves clearing 144 of its 224 bytes on every
 * message, frame received and acknowledgment.
 */
static inline struct sn_pkt *nic_desc_alloc(struct nic *nic, const struct proto_pkt *h)
{
	struct sn_pkt *p = nic->free_descs;

	if (!p)
		return NULL;
	nic->free_descs = p->next;
	nic->n_free--;
	p->h = *h;
	memset((char *)p + SN_PKT_STATE_OFF, 0, sizeof(*p) - SN_PKT_STATE_OFF);
	return p;
}

/* Return a descriptor and the frame it holds. */
void nic_desc_free(struct nic *nic, struct sn_pkt *pkt);

/* The vnet entry of id vnet, or NULL. */
struct nic_vnet *nic_vnet_find(struct nic *nic, uint16_t vnet);

/* True when pkt carries a message endpoint src_ep sent (a marker carries none). */
static inline bool nic_sent_by(const struct sn_pkt *pkt, uint16_t src_ep)
{
	return pkt->h.src_ep == src_ep && (pkt->h.flags & PROTO_F_DATA) &&
	       !(pkt->h.flags & PROTO_F_ABANDONED) && !(pkt->flags & SN_PKT_ACK_ONLY);
}

/* Finish a transmitted packet that nobody else holds. */
void nic_finish(struct nic *nic, struct sn_pkt *pkt, int status, uint64_t now);

/*
 * Join again as a new incarnation (lost grants, or the switch said so):
 * every connection starts over, pending messages fail, HELLO at once.
 */
void nic_rejoin(struct nic *nic, uint64_t now);

/*
 * A peer is down, rejoined or not joined (kind): fail and forget everything
 * towards it. Down or rejoined, the switch names the process it last saw
 * join as peer by its boot nonce.
 */
void nic_peer_down(struct nic *nic, uint16_t peer, enum proto_down_kind kind, uint16_t nonce,
		   uint64_t now);

/*
 * A NO_VNET answer q: its source does not serve q->vnet. The connection
 * restarts (its messages fail) unless q answers an earlier epoch of it;
 * one that knows no epoch starts over, still knowing none.
 */
void nic_peer_no_vnet(struct nic *nic, const struct proto_pkt *q, uint64_t now);

/* A join to a smaller cluster: fail what waits for nodes beyond it (SN_ERR_DOWN). */
void nic_left_cluster(struct nic *nic, uint64_t now);

/* Ingress: validate, split and dispatch a burst of frames. */
void nic_ingress(struct nic *nic, struct rte_mbuf **frames, uint16_t n,
		 uint64_t now);

/*
 * Egress: take the quick port's rate (dp_port_tx_gbps), or the fabric's
 * (cfg.quick_gbps) when that is lower, which paces QREQs; at creation and
 * at every join, since a device created late (a virtio-user client whose
 * server was not up) knows its link speed only then.
 */
void nic_quick_rate(struct nic *nic);

/*
 * Egress: true when the quick link's transmit backlog is short enough for a
 * QREQ; else *wake is when it will be.
 */
bool nic_quick_ready(const struct nic *nic, uint64_t now, uint64_t *wake);

/*
 * Egress: build and send the frame of a data or ack-only packet; false when
 * no frame could be had (counted as no_mbuf), and the packet did not leave.
 */
bool nic_xmit(struct nic *nic, struct sn_pkt *pkt, uint64_t now);

/*
 * Egress: send the BACK of a received BREQ (its slot, vnet and packet
 * number), with conn's epoch and (not a NACK) acks.
 */
void nic_send_back(struct nic *nic, struct sn_conn *conn, const struct proto_pkt *breq,
		   bool nack, uint64_t now);

/*
 * Egress: answer a data frame of a virtual network this NIC does not serve
 * with a QACK flagged NO_VNET (its vnet and epoch echoed).
 */
void nic_send_no_vnet(struct nic *nic, const struct proto_pkt *data, uint64_t now);

/*
 * Answer a FRESH frame of nonce that conn took (or, with restart, one it
 * took before its restart) with a WELCOME: conn's epoch and receive state,
 * the nonce taken and this process's own (doc/protocol.md, connection
 * epochs).
 */
void nic_send_welcome(struct nic *nic, struct sn_conn *conn, uint16_t nonce, bool restart,
		      uint64_t now);

/*
 * Introduce this process to conn's peer, whose frame was of another pair
 * of processes as far as conn can tell: a QACK flagged FRESH with this
 * process's boot nonce and no acknowledgment (conn's receive state may be
 * of another pair's numbering), which the peer answers with a WELCOME that
 * names both processes (doc/protocol.md, connection epochs).
 */
void nic_send_intro(struct nic *nic, struct sn_conn *conn, uint64_t now);

/* Egress: send a frame the NIC originates (CFG, HELLO) on the quick port. */
void nic_send_control(struct nic *nic, struct proto_pkt *p, uint64_t now);

/* What ingress does with a data frame (nic_rx_admit). */
enum nic_admit {
	NIC_ADMIT_TAKE,		/* into its pipeline */
	NIC_ADMIT_REFUSE,	/* refused, its number kept: a BREQ gets a NACK, a QREQ is resent */
	NIC_ADMIT_REFUSE_EP,	/* refused for its endpoint alone: answered REFUSED */
};

/*
 * Push-back: may data frame p of conn c (NULL: none) in pipeline pl come in?
 * Refused for its endpoint when it has no receive buffer or is blocked on
 * c (doc/protocol.md, per-endpoint push-back); a REFUSED marker may end a block.
 */
enum nic_admit nic_rx_admit(struct nic *nic, struct pipeline *pl, struct sn_conn *c,
			    const struct proto_pkt *p);

/*
 * Push-back: a REFUSED answer r (its acknowledgment already taken) on
 * connection c of pipeline pl: the refused packet and the others to its
 * endpoint that r's receiver did not take become markers, and genp sends
 * their messages again after a hold. False when it did nothing (stale, or
 * no descriptor or hold free): the packet keeps its number.
 */
bool nic_rx_refusal(struct nic *nic, struct pipeline *pl, struct sn_conn *c,
		    const struct proto_pkt *r, uint64_t now);

/*
 * Egress: refuse data frame p of conn for its endpoint alone: a BREQ's BACK
 * says NACK and REFUSED, a QREQ is answered by a QACK that says REFUSED
 * with its number, both with conn's acknowledgment.
 */
void nic_send_refusal(struct nic *nic, struct sn_conn *conn, const struct proto_pkt *p,
		      uint64_t now);

/* Channel: take a packet from the bottom of a pipeline. */
void chan_sink(struct nic *nic, struct sn_pkt *pkt, uint64_t now);

/* Channel: a packet finished by the protocol leaves the channel's lists. */
void chan_forget(struct nic *nic, struct sn_pkt *pkt);

/*
 * Channel: something the bulk prefetch scan looks at changed (a backlog, a
 * send buffer freed, a hold ended early): the next one scans again.
 */
static inline void chan_prefetch_changed(struct nic *nic)
{
	nic->ch.prefetch_idle = false;
}

/* Channel: a grant arrived (send its BREQs, refill buffers; chan_poll sends more in its slot). */
void chan_grant(struct nic *nic, const struct proto_gnt *g, uint64_t now);

/* Channel: a BACK arrived for one of our BREQs. */
void chan_back(struct nic *nic, const struct proto_pkt *p, uint64_t now);

/* Channel: per-poll work (BACK deadlines, refills, BREQs in the granted slot, quick sends). */
uint64_t chan_poll(struct nic *nic, uint64_t now);

/* Channel: cancel the packets of (vnet, src_ep) not held by a protocol. */
void chan_cancel(struct nic *nic, uint16_t vnet, uint16_t src_ep, uint64_t now);

/*
 * Channel: fail the packets of conn no protocol holds (SN_ERR_DOWN); with
 * held_too also take those a protocol holds off the channel's lists (their
 * protocol fails them: a restart), else they stay where they are.
 */
void chan_purge_conn(struct nic *nic, const struct sn_conn *conn, bool held_too,
		     uint64_t now);

/* Channel: set up and free per-target state. */
int chan_init(struct nic *nic);
void chan_fini(struct nic *nic);

/* Channel: the NIC joined; adopt the cluster's mode. */
void chan_joined(struct nic *nic);

#endif
