/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port capture: a dp_tap that writes every frame crossing the ports it is
 * attached to into one nanosecond pcap (pcap/capture.h), timestamped on
 * an injected clock (the TSC by default). A daemon needs two calls to
 * capture, and one to stop:
 *
 *   cap = port_capture_open("run.pcap", &opts);      once
 *   port_capture_attach(cap, port);                   per port
 *   port_capture_close(cap, stdout, NULL);            at shutdown
 *
 * Every port attached to one capture must be polled by the same thread:
 * the tap takes no lock. The per-burst cost is one clock read; per frame,
 * a copy into a 1 MiB buffer, written to the file when full (no system
 * call per frame). doc/replay.md describes it.
 */
#ifndef SEGNET_PCAP_PORT_CAPTURE_H
#define SEGNET_PCAP_PORT_CAPTURE_H

#include <stdint.h>
#include <stdio.h>

#include "dataplane/dp_daemon.h"
#include "dataplane/dp_port.h"
#include "pcap/capture.h"

/* Which crossings a capture writes (port_capture_opts.dirs). */
enum port_capture_dirs {
	PORT_CAPTURE_RX = 1u << 0,	/* frames received on the port */
	PORT_CAPTURE_TX = 1u << 1,	/* frames sent on the port */
	PORT_CAPTURE_BOTH = PORT_CAPTURE_RX | PORT_CAPTURE_TX,
};

/* A clock for the timestamps, in ns. */
struct port_capture_clock {
	/* current time, ns */
	uint64_t (*now)(void *ctx);
	/* passed to now */
	void *ctx;
};

/* How to capture; zero fields take the defaults. */
struct port_capture_opts {
	/* file and record bounds, snaplen, link type (pcap/capture.h) */
	struct capture_opts file;
	/* enum port_capture_dirs mask; 0 means both */
	unsigned int dirs;
	/*
	 * Timestamp clock. NULL now: dp_tsc_ns(), shifted to the Unix epoch by
	 * one CLOCK_REALTIME reading at open. An injected clock's readings are
	 * written as they are.
	 */
	struct port_capture_clock clock;
};

/* A capture being written by the ports' polling thread; opaque. */
struct port_capture;

/*
 * Create (or truncate) path and write the pcap header. NULL with errno:
 * EINVAL (a bound below the header size, a snaplen above
 * CAPTURE_SNAPLEN_MAX: capture_opts_check), or the file system's error.
 */
struct port_capture *port_capture_open(const char *path,
				       const struct port_capture_opts *o);

/*
 * Show every frame crossing port to cap. 0, -EBUSY when port already has a
 * tap, -ENOMEM. Detach (or close cap) before the port is destroyed.
 */
int port_capture_attach(struct port_capture *cap, struct dp_port *port);

/* Stop showing port's frames to cap: 0, or -ENOENT if it was not attached. */
int port_capture_detach(struct port_capture *cap, struct dp_port *port);

/* Counts so far (frames written, dropped by a bound, ...). */
void port_capture_counts(const struct port_capture *cap, struct capture_counts *out);

/* The file being written. */
const char *port_capture_path(const struct port_capture *cap);

/*
 * Print the one-line summary of counts n of the capture to path:
 * "capture PATH: W frames written (B bytes), D dropped by bound[ (why)]..."
 */
void port_capture_print_summary(FILE *f, const char *path, const struct capture_counts *n);

/*
 * Detach every port, flush and close the file, print the summary line to
 * summary (may be NULL), fill out (may be NULL) and free cap (NULL is
 * allowed). 0, or -errno of the first failed write, flush or close.
 */
int port_capture_close(struct port_capture *cap, FILE *summary,
		       struct capture_counts *out);

/*
 * A daemon's --capture (none when o->capture is NULL): open the file with
 * o's bounds (a byte bound below the file header raised to it), attach it
 * to the daemon's ports through attach(ctx, cap), and say so on stdout
 * ("PROG: capturing every PORTS, both directions, into FILE"). 0, or
 * -errno after a message on stderr naming --capture. *cap is the capture
 * (NULL when none or its open failed): close it, at shutdown or after a
 * failed attach, before the ports go.
 */
int port_capture_start(const char *prog, const struct dp_daemon_opts *o, const char *ports,
		       int (*attach)(void *ctx, struct port_capture *cap), void *ctx,
		       struct port_capture **cap);

#endif /* SEGNET_PCAP_PORT_CAPTURE_H */
