/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture writer. The format is written directly rather than through
 * pcap_dump(): it is two fixed headers, and writing them ourselves keeps the
 * byte count exact for the size bound and the error of each write visible.
 * Fields are in host byte order, as libpcap writes them; readers detect it
 * from the magic.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap/capture.h"

/* Size of the stdio buffer between the polling thread and the file. */
enum { CAPTURE_BUF = 1 << 20 };

/* Nanosecond pcap magic, written in host order. */
static const uint32_t capture_magic_ns = 0xa1b23c4d;

/* The pcap file header. */
struct capture_file_hdr {
	uint32_t magic;		/* capture_magic_ns */
	uint16_t major;		/* 2 */
	uint16_t minor;		/* 4 */
	int32_t thiszone;	/* 0: timestamps are UTC */
	uint32_t sigfigs;	/* 0 */
	uint32_t snaplen;	/* longest record */
	uint32_t linktype;	/* LINKTYPE_ value */
};
_Static_assert(sizeof(struct capture_file_hdr) == CAPTURE_FILE_HDR, "file header");

/* The pcap record header, nanosecond flavour. */
struct capture_rec_hdr {
	uint32_t sec;		/* seconds since the epoch */
	uint32_t nsec;		/* nanoseconds within the second */
	uint32_t caplen;	/* bytes that follow */
	uint32_t len;		/* length of the frame */
};
_Static_assert(sizeof(struct capture_rec_hdr) == CAPTURE_REC_HDR, "record header");

/* A capture in progress. */
struct capture {
	/* the file */
	FILE *f;
	/* its stdio buffer */
	char *buf;
	/* bounds, defaults applied */
	struct capture_opts o;
	/* what was written */
	struct capture_counts n;
};

/* Names of the states. */
static const char *const capture_state_names[] = {
	[CAPTURE_OPEN] = "open",
	[CAPTURE_FULL_PACKETS] = "full-packets",
	[CAPTURE_FULL_BYTES] = "full-bytes",
	[CAPTURE_FAILED] = "failed",
};

const char *capture_state_name(enum capture_state s)
{
	if ((unsigned int)s > CAPTURE_FAILED)
		return "?";
	return capture_state_names[s];
}

/* Write n bytes or record the failure; 0 or -errno. */
static int capture_put(struct capture *c, const void *p, size_t n)
{
	if (fwrite_unlocked(p, 1, n, c->f) == n)
		return 0;
	c->n.state = CAPTURE_FAILED;
	c->n.error = errno ? errno : EIO;
	return -c->n.error;
}

/* Free c's resources; the file is closed without a flush check. */
static void capture_destroy(struct capture *c)
{
	if (c->f != NULL)
		fclose(c->f);
	free(c->buf);
	free(c);
}

struct capture *capture_open(const char *path, const struct capture_opts *o)
{
	struct capture_file_hdr h = { .magic = capture_magic_ns, .major = 2, .minor = 4 };
	struct capture *c;
	int rc = -ENOMEM;

	if (o->max_bytes != 0 && o->max_bytes < CAPTURE_FILE_HDR) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->o = *o;
	c->o.snaplen = o->snaplen ? o->snaplen : CAPTURE_SNAPLEN_DEFAULT;
	c->o.linktype = o->linktype ? o->linktype : CAPTURE_LINKTYPE_ETHERNET;
	c->buf = malloc(CAPTURE_BUF);
	if (c->buf == NULL)
		goto fail;
	c->f = fopen(path, "wb");
	if (c->f == NULL) {
		rc = -errno;
		goto fail;
	}
	setvbuf(c->f, c->buf, _IOFBF, CAPTURE_BUF);
	h.snaplen = c->o.snaplen;
	h.linktype = c->o.linktype;
	rc = capture_put(c, &h, sizeof(h));
	if (rc)
		goto fail;
	c->n.bytes = CAPTURE_FILE_HDR;
	return c;
fail:
	capture_destroy(c);
	errno = -rc;
	return NULL;
}

/* Count a frame that is not written; returns the reason as -errno. */
static int capture_drop(struct capture *c, uint32_t len)
{
	c->n.dropped++;
	c->n.dropped_bytes += len;
	return c->n.state == CAPTURE_FAILED ? -c->n.error : -ENOSPC;
}

int capture_write(struct capture *c, uint64_t ts_ns, const void *data, uint32_t len)
{
	uint32_t caplen = len < c->o.snaplen ? len : c->o.snaplen;
	struct capture_rec_hdr h = {
		.sec = (uint32_t)(ts_ns / 1000000000u),
		.nsec = (uint32_t)(ts_ns % 1000000000u),
		.caplen = caplen,
		.len = len,
	};
	uint64_t size = CAPTURE_REC_HDR + (uint64_t)caplen;
	int rc;

	if (c->n.state == CAPTURE_OPEN && c->o.max_packets && c->n.packets >= c->o.max_packets)
		c->n.state = CAPTURE_FULL_PACKETS;
	if (c->n.state == CAPTURE_OPEN && c->o.max_bytes && c->n.bytes + size > c->o.max_bytes)
		c->n.state = CAPTURE_FULL_BYTES;
	if (c->n.state != CAPTURE_OPEN)
		return capture_drop(c, len);
	rc = capture_put(c, &h, sizeof(h));
	if (rc == 0)
		rc = capture_put(c, data, caplen);
	if (rc)
		return capture_drop(c, len);
	c->n.packets++;
	c->n.bytes += size;
	c->n.truncated += caplen < len;
	return 0;
}

unsigned int capture_write_burst(struct capture *c, const struct capture_frame *f,
				 unsigned int n)
{
	unsigned int done = 0;

	for (unsigned int i = 0; i < n; i++)
		done += capture_write(c, f[i].ts_ns, f[i].data, f[i].len) == 0;
	return done;
}

int capture_flush(struct capture *c)
{
	if (c->n.state == CAPTURE_FAILED)
		return -c->n.error;
	if (fflush(c->f) == 0)
		return 0;
	c->n.state = CAPTURE_FAILED;
	c->n.error = errno ? errno : EIO;
	return -c->n.error;
}

void capture_get_counts(const struct capture *c, struct capture_counts *out)
{
	*out = c->n;
}

int capture_close(struct capture *c, struct capture_counts *out)
{
	int rc;

	if (c == NULL)
		return 0;
	rc = capture_flush(c);
	if (fclose(c->f) != 0 && rc == 0)
		rc = -errno;
	c->f = NULL;
	if (out != NULL)
		*out = c->n;
	capture_destroy(c);
	return rc;
}
