/* SPDX-License-Identifier: BSD-3-Clause */
/* The protocol stages nicd offers, and their registry. */
#ifndef SEGNET_STAGES_H
#define SEGNET_STAGES_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dataplane/stage.h"

extern const struct stage_ops stage_genp;
extern const struct stage_ops stage_timer;
extern const struct stage_ops stage_build_acks;
extern const struct stage_ops stage_dup_find;
extern const struct stage_ops stage_order;
extern const struct stage_ops stage_rate;

/* True when the genp stage given retransmits go-back-N (the timer asks). */
bool genp_goes_back_n(const struct stage *genp);

/*
 * Packets the genp stage given lets a connection have outstanding: its
 * window, but at most one more than the reorder buffer of a selective-repeat
 * order above it, so the receiver can keep every packet it is sent.
 */
int64_t genp_window(struct stage *genp);

/*
 * True when the genp stage given can hold messages back for the peer's
 * endpoint ep on c (it has an entry for it, or one free): genp_hold would
 * take them.
 */
bool genp_may_hold(struct stage *genp, struct sn_conn *c, uint16_t ep, uint64_t now);

/*
 * The peer's endpoint ep refused the messages msgs (n, in send order:
 * unnumbered copies of packets the NIC made markers of their numbers). Each
 * waits for ep's hold, which doubles with every refusal in a row, and is
 * then numbered again, ahead of the connection's other messages to ep;
 * one sent max_retx times already fails (SN_ERR_RETRIES). genp_may_hold
 * must have said yes.
 */
void genp_hold(struct stage *genp, struct sn_conn *c, uint16_t ep, struct sn_pkt **msgs,
	       uint16_t n, uint64_t now);

/* Out-of-order packets the order stage given keeps per connection (sr); 0 with gbn. */
int64_t order_sr_buffer(const struct stage *order);

/* Every stage, for pipeline specs. */
extern const struct stage_registry stage_registry;

#endif
