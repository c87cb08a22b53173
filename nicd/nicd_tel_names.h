/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The names nicd's telemetry publishes besides its counter lists (NIC,
 * host, endpoint, stage, port, link and fault counters): its commands and
 * the keys their callbacks (nicd_telemetry.c, host.c) add by name. nicd(8),
 * TELEMETRY, names each key in bold in its command's entry
 * (test_man_telemetry).
 */
#ifndef SEGNET_NICD_TEL_NAMES_H
#define SEGNET_NICD_TEL_NAMES_H

#include "dataplane/dp_telemetry.h"

#define NICD_TEL_CMDS(X) \
	X(stats, "/segnet/nic/stats") \
	X(endpoints, "/segnet/nic/endpoints")

/* A node's dictionary in /segnet/nic/stats, beside its counters. */
#define NICD_TEL_STATS_KEYS(X) \
	X(node_id, "the node's id (kept when the switch goes away)") \
	X(up, "joined now: grants arrive") \
	X(cluster_size, "the cluster size the switch gave") \
	X(endpoints_open, "open endpoints") \
	X(pending, "messages waiting or in flight") \
	X(bad_filter_, "bad_filter_REASON: frames that failed validation, by reason") \
	X(host_, "host_COUNTER: the host's counters") \
	X(port_, "port_COUNTER: port counters of a node whose channels share a queue") \
	X(bulk_, "bulk_COUNTER: port counters of the bulk channel's own queue") \
	X(quick_, "quick_COUNTER: port and link counters of the quick channel's own queue or device") \
	X(fault_, "PORT_fault_COUNTER (PORT: port, bulk, quick): with --fault, the fault counters") \
	X(vnet, "vnetID_STAGE_COUNTER: every stage's counters of every virtual network") \
	X(counters_left_out, "stage counters that did not fit the reply") \
	X(more, "the nodes that did not fit the reply")

/* /segnet/nic/endpoints: an endpoint's dictionary, and the reply's note. */
#define NICD_TEL_ENDPOINTS_KEYS(X) \
	X(ep, "epID (NAME_epID for every node): one endpoint's dictionary") \
	X(more, "the endpoints that did not fit the reply")

/* An endpoint's values before its counters, in host_tel_ep_values' order. */
#define NICD_TEL_EP_KEYS(X) \
	X(vnet, "its virtual network") \
	X(uid, "the application's uid") \
	X(pid, "the application's pid") \
	X(send_bufs, "send buffers") \
	X(recv_bufs, "receive buffers") \
	X(in_flight, "sends the NIC holds") \
	X(recv_free, "receive buffers nicd holds") \
	X(held_now, "messages held back now")

struct nicd_tel_cmds { NICD_TEL_CMDS(DP_TEL_NAME_FIELD) };
struct nicd_tel_stats_keys { NICD_TEL_STATS_KEYS(DP_TEL_NAME_FIELD) };
struct nicd_tel_endpoints_keys { NICD_TEL_ENDPOINTS_KEYS(DP_TEL_NAME_FIELD) };

/* The keys of NICD_TEL_ENDPOINTS_KEYS (defined in nicd_telemetry.c; host.c adds ep). */
extern const struct nicd_tel_endpoints_keys nicd_tel_endpoints_key;

#endif
