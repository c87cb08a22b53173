/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switchd daemon around the fabric: its options (swd_opts.c), its
 * ports on ethdevs (swd_ports.c), its telemetry endpoints
 * (swd_telemetry.c) and its reports (swd_report.c). main.c ties them
 * together; nothing else includes this header but the test of the
 * endpoints (tests/unit/test_swd_telemetry.c).
 */
#ifndef SEGNET_SWD_H
#define SEGNET_SWD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "dataplane/dp_daemon.h"
#include "dataplane/dp_eal.h"
#include "dataplane/dp_ethdev.h"
#include "dataplane/dp_fault.h"
#include "dataplane/dp_log.h"
#include "pcap/port_capture.h"
#include "switchd/fabric.h"

/* The daemon's log type, segnet.switchd.daemon (defined in swd_ports.c). */
extern int swd_logtype;

/* Where a node's frames go, as the command line names the devices. */
struct swd_node_names {
	const char *port;	/* --port: one device for both channels, or NULL */
	const char *bulk;	/* --bulk-port, or NULL */
	const char *quick;	/* --quick-port, or NULL */
};

/* switchd's own options (the arguments after "--"). */
struct swd_opts {
	struct dp_daemon_opts common;	/* the options nicd takes too */
	uint16_t nodes;			/* --nodes: cluster size */
	struct swd_node_names *node;	/* per node id: its devices */
	const char *arbiter;		/* --arbiter spec */
	uint32_t slot_frames;		/* --slot-frames */
	double link_gbps;		/* --link-gbps: both channels' rate */
	double bulk_gbps;		/* --bulk-gbps, else link_gbps */
	double quick_gbps;		/* --quick-gbps, else link_gbps */
	enum sw_quick_mode quick_mode;	/* --quick-mode */
	uint32_t down_slots;		/* --down-slots (0 = never) */
	uint32_t gnt_keepalive;		/* --gnt-keepalive */
	uint32_t grant_lead;		/* --grant-lead */
	uint64_t seed;			/* --seed of randomized arbiters */
	bool arb_seeded;		/* the arbiter takes --seed (its ops' seeded) */
};

/*
 * Parse switchd's arguments (argv[0] is the program name). 0 when they are
 * good, 1 after printing --help, -EINVAL with a message naming the argument
 * in err. Needs no EAL. Free with swd_opts_free either way.
 */
int swd_opts_parse(struct swd_opts *o, int argc, char **argv, char *err,
		   size_t errlen);

/* Free what swd_opts_parse allocated. */
void swd_opts_free(struct swd_opts *o);

/* Print the usage text. */
void swd_opts_usage(FILE *f, const char *prog);

/* Slot length the options give, in ns. */
uint64_t swd_opts_slot_ns(const struct swd_opts *o);

/* One ethdev switchd brought up. */
struct swd_dev {
	struct dp_ethdev eth;		/* the started device */
	const char *name;		/* as the command line named it */
	uint16_t port_id;		/* the DPDK port the name resolves to */
	uint16_t tx_queues;		/* 2 when queue 1 carries control frames */
	struct rte_mempool *mp;		/* its receive pool (its NUMA node's) */
};

/* What a port of a node carries, as reports and telemetry name it. */
enum swd_role {
	SWD_ROLE_PORT,		/* both channels (one device) */
	SWD_ROLE_BULK,		/* the bulk channel (its own device) */
	SWD_ROLE_QUICK,		/* the quick channel (its own device) */
	SWD_ROLE_CONTROL,	/* control frames: transmit queue 1 of the one device */
	SWD_ROLES
};

/* "port", "bulk", "quick", "control" (SWD_TEL_ROLES). */
extern const char *const swd_role_names[SWD_ROLES];

/* The ports of one node. */
struct swd_node {
	struct dp_port *bulk;		/* bulk channel (rx queue 0, tx queue 0) */
	struct dp_port *quick;		/* quick channel (== bulk with one device) */
	struct dp_port *control;	/* control frames, or NULL: quick's queue */
	int bulk_dev;			/* index in swd_ports.dev */
	int quick_dev;			/* index in swd_ports.dev (== bulk_dev) */
};

enum {
	/* Pools: one per NUMA node, plus one for SOCKET_ID_ANY. */
	SWD_MAX_POOLS = RTE_MAX_NUMA_NODES + 1,
};

/* Every device, port and pool of the daemon. */
struct swd_ports {
	uint16_t n;				/* nodes */
	struct swd_node *node;			/* per node id */
	struct swd_dev *dev;			/* devices */
	unsigned int n_dev;			/* entries in dev */
	struct rte_mempool *pool[SWD_MAX_POOLS];	/* by socket + 1 */
	struct rte_mempool *mp;			/* frames the switch originates */
	struct dp_port **bulk;			/* per node, for sw_fabric_create */
	struct dp_port **quick;			/* per node */
	struct dp_port **control;		/* per node (entries may be NULL) */
	bool faulty;				/* --fault: ports behind fault injection */
};

/*
 * Find, set up and start every node's devices with pools on their NUMA
 * nodes (poll_socket: the polling core's, for the switch's own frames),
 * waiting o->link_wait_ms for their links. 0, or -ENODEV (a device name
 * that names nothing), -EINVAL (two nodes on one device), other -errno,
 * with a message naming the device in err. Close with swd_ports_close
 * either way.
 */
int swd_ports_open(struct swd_ports *p, const struct swd_opts *o, int poll_socket,
		   char *err, size_t errlen);

/* Calls fn(port, role, ctx) for each distinct port of node sn. */
void swd_node_ports(const struct swd_node *sn,
		    void (*fn)(struct dp_port *port, enum swd_role role, void *ctx), void *ctx);

/*
 * Hand the fault-injection ports (--fault) the time, before the fabric
 * sends at now (dp_fault_port_poll); nothing without --fault.
 */
void swd_ports_fault_poll(struct swd_ports *p, uint64_t now);

/* When the next delayed frame is due (UINT64_MAX: none, or no --fault). */
uint64_t swd_ports_fault_next_due(struct swd_ports *p);

/* Destroy the ports and stop and close the devices (frees their mbufs). */
void swd_ports_close(struct swd_ports *p);

/*
 * After swd_ports_close: print each pool's available count against its
 * size; returns the number of mbufs missing (0: no mbuf leaked).
 */
unsigned int swd_ports_check_pools(const struct swd_ports *p, FILE *f);

/* Free the port tables (after swd_ports_close). */
void swd_ports_free(struct swd_ports *p);

/*
 * Show every distinct port (bulk, quick, control) of every node to cap,
 * both directions. 0 or -errno; close cap before swd_ports_close.
 */
int swd_ports_capture(struct swd_ports *p, struct port_capture *cap);

/* Warn about ports polled across NUMA nodes from CPU core (-1: the lcore). */
void swd_ports_numa_check(const struct swd_ports *p, int core);

/*
 * Register /segnet/switch/{stats,nodes,arbiter}. 0 or -errno. They answer
 * with an empty reply until swd_telemetry_publish.
 */
int swd_telemetry_register(void);

/* Let the endpoints read sw and p (both must stay until unpublished). */
void swd_telemetry_publish(const struct sw_fabric *sw, const struct swd_ports *p);

/* Stop the endpoints reading; on return none is still reading. */
void swd_telemetry_unpublish(void);

/* Counter values the periodic summary line compares against. */
struct swd_snapshot {
	uint64_t t_ns;		/* when taken */
	uint64_t slots;		/* slots arbitrated */
	uint64_t grants;	/* grants made */
	uint64_t bulk;		/* BREQs forwarded */
	uint64_t quick;		/* QREQs, QACKs and BACKs forwarded */
	uint64_t drops;		/* frames dropped, collisions aside */
	uint64_t collisions;	/* QREQs and unscheduled BREQs lost at an output */
	uint64_t breq_late;	/* BREQs that came after their slot */
	uint64_t breq_early;	/* ... or before it */
	uint64_t paused;	/* slots of switchd's own pauses (slots_paused) */
};

/* Take a snapshot of the counters at now. */
void swd_report_snapshot(const struct sw_fabric *sw, const struct swd_ports *p,
			 uint64_t now, struct swd_snapshot *s);

/* Print the one-line summary of what happened since *prev; *prev = now's. */
void swd_report_line(FILE *f, const struct sw_fabric *sw, const struct swd_ports *p,
		     struct swd_snapshot *prev, uint64_t now);

enum {
	/* The missed-boundary watch's window (ms): one check per window. */
	SWD_MISSED_WINDOW_MS = 1000,
	/*
	 * It warns when more than this share (%) of a window's slot boundaries
	 * due were missed, and at least SWD_MISSED_WARN_MIN of them
	 * (doc/operations.md, "Missed slot boundaries", has the measurements).
	 */
	SWD_MISSED_WARN_PCT = 5,
	SWD_MISSED_WARN_MIN = 20,
	/* At most one warning per this long (s); the windows between are counted. */
	SWD_MISSED_WARN_EVERY_S = 60,
	/*
	 * Room for the warning swd_slots_missed_warning writes, with the count
	 * swd_slot_watch_window adds (469 bytes at most).
	 */
	SWD_MISSED_MSG_LEN = 512,
};

/* The fabric's slot counters at one time, for the missed-boundary watch. */
struct swd_slot_counts {
	uint64_t t_ns;		/* when read */
	uint64_t slots;		/* slots arbitrated (slots) */
	uint64_t skipped;	/* boundaries missed while a node was up (slots_skipped) */
};

/*
 * Whether the window from a to b missed too many slot boundaries: of those
 * due in it (arbitrated or missed), more than SWD_MISSED_WARN_PCT % and at
 * least SWD_MISSED_WARN_MIN missed. If so, the warning naming the share,
 * the window, the slot of slot_ns and the remedies (busy polling only when
 * backoff is on) is written to msg. False for a window with no boundary
 * due, or counters that went back.
 */
bool swd_slots_missed_warning(const struct swd_slot_counts *a,
			      const struct swd_slot_counts *b, uint64_t slot_ns,
			      bool backoff, char *msg, size_t len);

/* The polling loop's watch on missed slot boundaries. */
struct swd_slot_watch {
	struct swd_slot_counts last;	/* the counters when the window began */
	uint64_t next_ns;		/* when the window ends */
	bool backoff;			/* --idle-after-us is not 0 */
	struct dp_ratelimit limit;	/* one warning per SWD_MISSED_WARN_EVERY_S */
	uint64_t over;			/* windows over the threshold not warned about */
};

/* Start watching from counters c (backoff: idle back-off is on). */
void swd_slot_watch_begin(struct swd_slot_watch *w, const struct swd_slot_counts *c,
			  bool backoff);

/* Start watching sw at now: swd_slot_watch_begin with its counters. */
void swd_slot_watch_start(struct swd_slot_watch *w, const struct sw_fabric *sw,
			  bool backoff, uint64_t now);

/*
 * End the window at counters cur (at cur->t_ns) and start the next: true
 * when a warning is due, written to msg (with the count of the windows
 * over the threshold left out since the last one); at most one per
 * SWD_MISSED_WARN_EVERY_S, counted from the warning before.
 */
bool swd_slot_watch_window(struct swd_slot_watch *w, const struct swd_slot_counts *cur,
			   uint64_t slot_ns, char *msg, size_t len);

/*
 * Once a window is over (now >= w->next_ns; cheaper to test in the loop):
 * swd_slot_watch_window with sw's counters, and log its warning.
 */
void swd_slot_watch_check(struct swd_slot_watch *w, const struct sw_fabric *sw,
			  uint64_t now);

/* Print the exit summary: every non-zero counter, per node, and back-off. */
void swd_report_summary(FILE *f, const struct sw_fabric *sw,
			const struct swd_ports *p, const struct dp_idle *idle,
			double seconds);

#endif
