/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture writer: frames given as (timestamp in ns, bytes, length) go into a
 * nanosecond pcap file (magic 0xa1b23c4d), bounded in size and/or packet
 * count. Nothing DPDK-specific: the daemons adapt their mbufs to it. It is
 * meant for one polling thread: no locks, no allocation per frame, writes
 * go through a 1 MiB buffer that is flushed on close (or capture_flush).
 */
#ifndef SEGNET_PCAP_CAPTURE_H
#define SEGNET_PCAP_CAPTURE_H

#include <stdint.h>

/* Format constants of the files written. */
enum {
	CAPTURE_FILE_HDR = 24,		/* pcap file header */
	CAPTURE_REC_HDR = 16,		/* pcap record header */
	/*
	 * libpcap's largest Ethernet record, and ours: every segnet frame
	 * (DP_MAX_FRAME, 2134) and every frame a port's 16-bit MTU lets in
	 * fits; a longer one is cut (doc/replay.md, Capture).
	 */
	CAPTURE_SNAPLEN_MAX = 262144,
	CAPTURE_SNAPLEN_DEFAULT = CAPTURE_SNAPLEN_MAX,
	CAPTURE_LINKTYPE_ETHERNET = 1,	/* LINKTYPE_ETHERNET */
};

/* Why a capture stopped writing. */
enum capture_state {
	CAPTURE_OPEN,		/* writing */
	CAPTURE_FULL_PACKETS,	/* max_packets reached */
	CAPTURE_FULL_BYTES,	/* the next record would pass max_bytes */
	CAPTURE_FAILED,		/* a write failed; see capture_counts.error */
};

/* Bounds and header fields of a capture; zero fields take the defaults. */
struct capture_opts {
	/* largest file size in bytes, header included; 0 means no bound */
	uint64_t max_bytes;
	/* most records; 0 means no bound */
	uint64_t max_packets;
	/* longer frames are cut to this (at most CAPTURE_SNAPLEN_MAX); 0 means the default */
	uint32_t snaplen;
	/* LINKTYPE_ value of the header; 0 means Ethernet */
	uint32_t linktype;
};

/* One frame of a burst. */
struct capture_frame {
	/* time the frame crossed the port, ns since the Unix epoch */
	uint64_t ts_ns;
	/* the frame's bytes */
	const void *data;
	/* the frame's length */
	uint32_t len;
};

/* What a capture wrote and did not write. */
struct capture_counts {
	/* records written */
	uint64_t packets;
	/* file size so far, header included */
	uint64_t bytes;
	/* frames not written because a bound was reached */
	uint64_t dropped;
	/* total length of those frames */
	uint64_t dropped_bytes;
	/* frames not written because a write failed (those buffered then, and after) */
	uint64_t lost;
	/* total length of those frames */
	uint64_t lost_bytes;
	/* frames written cut to snaplen */
	uint64_t truncated;
	/* state: still writing, or why not */
	enum capture_state state;
	/* the errno of the failed write, 0 if none */
	int error;
};

/* A capture file being written; opaque. */
struct capture;

/*
 * Whether o can be opened: 0, or -EINVAL when max_bytes is below the header
 * size or snaplen above CAPTURE_SNAPLEN_MAX (a record must fit the buffer).
 */
int capture_opts_check(const struct capture_opts *o);

/*
 * Create (or truncate) path and write the file header. NULL with errno
 * EINVAL (capture_opts_check), or the error of the file system.
 */
struct capture *capture_open(const char *path, const struct capture_opts *o);

/*
 * Append one frame: 0 written; -ENOSPC a bound is reached (this frame and
 * every later one are counted as dropped); -errno a write failed.
 */
int capture_write(struct capture *c, uint64_t ts_ns, const void *data, uint32_t len);

/* Append a burst; returns how many frames were written. */
unsigned int capture_write_burst(struct capture *c, const struct capture_frame *f,
				 unsigned int n);

/* Push buffered records to the file: 0 or -errno. */
int capture_flush(struct capture *c);

/* Current counts. */
void capture_get_counts(const struct capture *c, struct capture_counts *out);

/*
 * Flush, close and free c (NULL is allowed); fills out (may be NULL) with the
 * final counts. 0, or -errno of the first failed write, flush or close.
 */
int capture_close(struct capture *c, struct capture_counts *out);

/* Name of a state ("open", "full-packets", "full-bytes", "failed"). */
const char *capture_state_name(enum capture_state s);

#endif /* SEGNET_PCAP_CAPTURE_H */
