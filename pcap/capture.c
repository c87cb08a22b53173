/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture writer. The format is written directly rather than through
 * pcap_dump(): it is two fixed headers, and writing them ourselves keeps the
 * byte count exact for the size bound and the error of each write visible.
 * Fields are in host byte order, as libpcap writes them; readers detect it
 * from the magic. Records wait in a buffer of our own, which remembers where
 * each ends: when the file system refuses a write, the counts keep only the
 * records that reached the file, the file is cut back to the last whole
 * record, and the rest count as lost to the failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcap/capture.h"

/* Size of the buffer between the polling thread and the file. */
enum { CAPTURE_BUF = 1 << 20 };

/* Records the buffer can hold: each is at least a record header. */
enum { CAPTURE_BUF_RECS = CAPTURE_BUF / CAPTURE_REC_HDR };
_Static_assert(CAPTURE_REC_HDR + CAPTURE_SNAPLEN_MAX <= CAPTURE_BUF,
	       "the longest record fits the buffer");

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
	int fd;
	/* records not written yet */
	char *buf;
	/* bytes in buf */
	size_t used;
	/* per buffered record: where it ends in buf, and its frame's length */
	uint32_t *rec_end;
	uint32_t *rec_len;
	/* records in buf */
	unsigned int n_rec;
	/* bytes the file holds */
	uint64_t on_disk;
	/* bounds, defaults applied */
	struct capture_opts o;
	/* what was written, buffered records included */
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

/* Record the failure err. */
static int capture_fail(struct capture *c, int err)
{
	c->n.state = CAPTURE_FAILED;
	c->n.error = err ? err : EIO;
	return -c->n.error;
}

/*
 * Write the buffer out; 0 or -errno. On a failure the records that did not
 * reach the file whole leave the written counts for the lost ones, and the
 * file is cut back to the end of the last whole record.
 */
static int capture_drain(struct capture *c)
{
	size_t done = 0;
	ssize_t w;
	int err = 0;
	unsigned int whole = 0;

	while (done < c->used) {
		w = write(c->fd, c->buf + done, c->used - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : ENOSPC;
			break;
		}
		done += (size_t)w;
	}
	if (!err) {
		c->on_disk += c->used;
		c->used = 0;
		c->n_rec = 0;
		return 0;
	}
	while (whole < c->n_rec && c->rec_end[whole] <= done)
		whole++;
	for (unsigned int i = whole; i < c->n_rec; i++) {
		uint32_t start = i ? c->rec_end[i - 1] : 0;

		c->n.packets--;
		c->n.bytes -= c->rec_end[i] - start;
		c->n.lost++;
		c->n.lost_bytes += c->rec_len[i];
	}
	c->on_disk += whole ? c->rec_end[whole - 1] : 0;
	/* A readable prefix: no record cut in half at the end. */
	if (ftruncate(c->fd, (off_t)c->on_disk) != 0)
		c->on_disk += done - (whole ? c->rec_end[whole - 1] : 0);
	c->used = 0;
	c->n_rec = 0;
	return capture_fail(c, err);
}

/* Append a record (header h, then caplen bytes of data) of a frame of len bytes. */
static int capture_append(struct capture *c, const struct capture_rec_hdr *h,
			  const void *data, uint32_t caplen, uint32_t len)
{
	size_t size = sizeof(*h) + caplen;
	int rc;

	if (c->used + size > CAPTURE_BUF) {
		rc = capture_drain(c);
		if (rc)
			return rc;
	}
	memcpy(c->buf + c->used, h, sizeof(*h));
	memcpy(c->buf + c->used + sizeof(*h), data, caplen);
	c->used += size;
	c->rec_end[c->n_rec] = (uint32_t)c->used;
	c->rec_len[c->n_rec++] = len;
	return 0;
}

/* Free c's resources; the file is closed without a flush check. */
static void capture_destroy(struct capture *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	free(c->rec_end);
	free(c->rec_len);
	free(c);
}

int capture_opts_check(const struct capture_opts *o)
{
	if (o->max_bytes != 0 && o->max_bytes < CAPTURE_FILE_HDR)
		return -EINVAL;
	if (o->snaplen > CAPTURE_SNAPLEN_MAX)
		return -EINVAL;
	return 0;
}

struct capture *capture_open(const char *path, const struct capture_opts *o)
{
	struct capture_file_hdr h = { .magic = capture_magic_ns, .major = 2, .minor = 4 };
	struct capture *c;
	int rc = capture_opts_check(o);

	if (rc) {
		errno = -rc;
		return NULL;
	}
	rc = -ENOMEM;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->fd = -1;
	c->o = *o;
	c->o.snaplen = o->snaplen ? o->snaplen : CAPTURE_SNAPLEN_DEFAULT;
	c->o.linktype = o->linktype ? o->linktype : CAPTURE_LINKTYPE_ETHERNET;
	c->buf = malloc(CAPTURE_BUF);
	c->rec_end = malloc(CAPTURE_BUF_RECS * sizeof(*c->rec_end));
	c->rec_len = malloc(CAPTURE_BUF_RECS * sizeof(*c->rec_len));
	if (c->buf == NULL || c->rec_end == NULL || c->rec_len == NULL)
		goto fail;
	c->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c->fd < 0) {
		rc = -errno;
		goto fail;
	}
	h.snaplen = c->o.snaplen;
	h.linktype = c->o.linktype;
	if (write(c->fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		rc = -(errno ? errno : ENOSPC);
		goto fail;
	}
	c->on_disk = CAPTURE_FILE_HDR;
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
	if (c->n.state == CAPTURE_FAILED) {
		c->n.lost++;
		c->n.lost_bytes += len;
		return -c->n.error;
	}
	c->n.dropped++;
	c->n.dropped_bytes += len;
	return -ENOSPC;
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
	rc = capture_append(c, &h, data, caplen, len);
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
	return capture_drain(c);
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
	if (close(c->fd) != 0 && rc == 0)
		rc = capture_fail(c, errno);
	c->fd = -1;
	if (out != NULL)
		*out = c->n;
	capture_destroy(c);
	return rc;
}
