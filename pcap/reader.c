/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Trace reader. Two views of one file: a walk over the record headers
 * (pcap) or blocks (pcapng) that knows byte offsets, checks every length
 * against the file size and converts timestamps to nanoseconds, and
 * libpcap, which decodes the records. The walk covers the whole file before
 * libpcap reads anything, then runs again in step with libpcap to give every
 * record its offset and timestamp. Rules and messages: doc/replay.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "pcap/reader.h"

/* Magic numbers of the formats, as the first four bytes read in file order. */
static const uint32_t walk_magic_us = 0xa1b2c3d4;
static const uint32_t walk_magic_ns = 0xa1b23c4d;
static const uint32_t walk_ng_shb = 0x0a0d0d0a;
static const uint32_t walk_ng_bom = 0x1a2b3c4d;

/* Fixed sizes and block types of the two formats. */
enum {
	WALK_PCAP_HDR = 24,		/* classic file header */
	WALK_PCAP_REC = 16,		/* classic record header */
	WALK_NG_BLOCK_HDR = 8,		/* block type + total length */
	WALK_NG_BLOCK_MIN = 12,		/* header + trailing total length */
	WALK_NG_SHB_MIN = 28,		/* SHB with no options */
	WALK_NG_SHB_MAX = 1 << 20,	/* libpcap refuses larger SHBs */
	WALK_NG_IDB = 1,		/* interface description block */
	WALK_NG_PB = 2,			/* packet block (obsolete) */
	WALK_NG_SPB = 3,		/* simple packet block */
	WALK_NG_EPB = 6,		/* enhanced packet block */
	WALK_NG_IDB_BODY = 8,		/* link type, reserved, snaplen */
	WALK_NG_EPB_BODY = 20,		/* EPB and PB fixed fields */
	WALK_NG_SPB_BODY = 4,		/* original length */
	WALK_NG_OPT_TSRESOL = 9,	/* if_tsresol: 1 byte */
	WALK_NG_OPT_TSOFFSET = 14,	/* if_tsoffset: 8 bytes */
	/* libpcap's room around a record in a block: EPB fields, 128 KiB of options */
	WALK_NG_EPB_ROOM = WALK_NG_BLOCK_MIN + WALK_NG_EPB_BODY + (128 << 10),
};

/*
 * The pcap header's link type field: the type in the low 16 bits, then
 * reserved bits, an "FCS present" bit and the FCS length (bits 28-31).
 */
enum {
	WALK_LT_TYPE = 0x0000ffff,	/* the link type */
	WALK_LT_FCS = 0x04000000,	/* frames end in an FCS */
	WALK_LT_USB_MMAPPED = 220,	/* Linux USB, memory-mapped */
	WALK_LT_DBUS = 231,		/* D-Bus messages */
	WALK_LT_USBPCAP = 249,		/* Windows USBPcap */
	WALK_LT_EBHSCR = 279,		/* Elektrobit high-speed capture and replay */
	WALK_LT_USER0 = 147,		/* LINKTYPE_USER0 .. USER15: private use, */
	WALK_LT_USER15 = 162,		/* which libpcap 1.10 does not name */
};


/* What a pcapng interface's timestamps mean (if_tsresol, if_tsoffset). */
struct walk_iface {
	/* timestamp units per second: 10^r or 2^b */
	uint64_t units;
	/* seconds added to every timestamp (signed; added modulo 2^64) */
	uint64_t offset;
};

/* A walk over a file's structure, independent of libpcap. */
struct trace_walk {
	/* the file, read with its own stdio buffer */
	FILE *f;
	/* path, for messages */
	const char *path;
	/* what the walk has learned so far */
	struct trace_info info;
	/* multi-byte fields are stored big endian */
	bool big_endian;
	/* offset of the first record header or block */
	uint64_t start;
	/* offset of the next record header or block */
	uint64_t off;
	/* current position of f, to skip needless seeks */
	uint64_t pos;
	/* pcap: limit of the sub-second field (10^6 or 10^9) */
	uint32_t subsec_limit;
	/* pcapng: an interface description block has been seen */
	bool have_idb;
	/* pcapng: interfaces defined in the current section */
	uint32_t ifcount;
	/* pcapng: their timestamp units and offsets (ifalloc entries) */
	struct walk_iface *ifaces;
	/* entries allocated in ifaces */
	uint32_t ifalloc;
	/* pcapng: the first interface's snaplen as libpcap adjusts it (walk_idb_snaplen) */
	uint32_t idb_snaplen;
	/* device and inode of f, to give libpcap the same file */
	dev_t dev;
	ino_t ino;
};

/* One packet record as the walk sees it. */
struct walk_rec {
	/* byte offset of the record header or packet block */
	uint64_t offset;
	/* captured length */
	uint32_t caplen;
	/* length on the wire */
	uint32_t wirelen;
	/* timestamp, nanoseconds since the epoch */
	uint64_t ts_ns;
};

/* Streaming reader: the walk for offsets, libpcap for the records. */
struct trace_reader {
	/* walk run in step with libpcap */
	struct trace_walk walk;
	/* libpcap's handle on the same file */
	pcap_t *pcap;
	/* what the validation walk found */
	struct trace_info info;
	/* copy of the path the walk's messages name */
	char *path;
};

/* Name of each format, indexed by enum trace_format. */
static const char *const trace_format_names[] = {
	[TRACE_FMT_PCAP_US] = "pcap (us)",
	[TRACE_FMT_PCAP_NS] = "pcap (ns)",
	[TRACE_FMT_PCAPNG] = "pcapng",
};

const char *trace_format_name(enum trace_format f)
{
	if ((unsigned int)f >= sizeof(trace_format_names) / sizeof(trace_format_names[0]))
		return "?";
	return trace_format_names[f];
}

/* Big-endian 32-bit value of four bytes in file order. */
static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Little-endian 32-bit value of four bytes in file order. */
static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

/* 32-bit field in the file's byte order. */
static uint32_t walk_u32(const struct trace_walk *w, const uint8_t *p)
{
	return w->big_endian ? get_be32(p) : get_le32(p);
}

/* 16-bit field in the file's byte order. */
static uint16_t walk_u16(const struct trace_walk *w, const uint8_t *p)
{
	return w->big_endian ? (uint16_t)(p[0] << 8 | p[1]) :
			       (uint16_t)(p[1] << 8 | p[0]);
}

/*
 * libpcap's max_snaplen_for_dlt (1.10): its largest record of a link type,
 * whose LINKTYPE_ number is its DLT for these three. libpcap refuses a
 * larger pcap record; the reader refuses a larger pcapng one too.
 */
uint32_t trace_max_snaplen(uint32_t linktype)
{
	switch (linktype) {
	case WALK_LT_DBUS:
		return 128u << 20;
	case WALK_LT_USBPCAP:
		return 1u << 20;
	case WALK_LT_EBHSCR:
		return 8u << 20;
	default:
		return TRACE_MAX_SNAPLEN;
	}
}

/* Snapshot length in force: 0 and values above the link type's maximum mean the maximum. */
static uint32_t walk_snaplen(uint32_t linktype, uint32_t snaplen)
{
	uint32_t max = trace_max_snaplen(linktype);

	return snaplen == 0 || snaplen > max ? max : snaplen;
}

/*
 * An interface's snaplen as libpcap (1.10, pcap_adjust_snapshot) adjusts
 * it: 0 and values above INT_MAX are the link type's maximum
 * (trace_max_snaplen), any other is taken as it is (300000 is not
 * 262144). libpcap compares every later interface's with the first
 * one's so, and cuts a simple packet block, which has no captured length,
 * at the first one's.
 */
static uint32_t walk_idb_snaplen(uint32_t linktype, uint32_t snaplen)
{
	if (snaplen != 0 && snaplen <= INT32_MAX)
		return snaplen;
	return trace_max_snaplen(linktype);
}

/*
 * libpcap's DLT_ number of a link type on Linux (linktype_to_dlt, 1.10):
 * the same number, but for five it renumbers (100 -> 11, 101 -> 12,
 * 102 -> 15, 103 -> 16, 106 -> 19).
 */
static uint32_t walk_lt_dlt(uint32_t linktype)
{
	switch (linktype) {
	case 100:
		return 11;
	case 101:
		return 12;
	case 102:
		return 15;
	case 103:
		return 16;
	case 106:
		return 19;
	default:
		return linktype;
	}
}

/*
 * True for the link types libpcap keeps under another (DLT) number. It
 * compares every later pcapng interface's link type with that number,
 * so it reads no second interface of these types.
 */
static bool walk_lt_renumbered(uint32_t linktype)
{
	return walk_lt_dlt(linktype) != linktype;
}

const char *trace_linktype_str(uint32_t linktype, char *buf, size_t len)
{
	int dlt = (int)walk_lt_dlt(linktype);
	const char *name = pcap_datalink_val_to_name(dlt);
	const char *desc = pcap_datalink_val_to_description(dlt);

	if (name == NULL && linktype >= WALK_LT_USER0 && linktype <= WALK_LT_USER15)
		snprintf(buf, len, "%u (USER%u, private use)", linktype, linktype - WALK_LT_USER0);
	else if (name == NULL)
		snprintf(buf, len, "%u (no name in libpcap)", linktype);
	else if (desc == NULL)
		snprintf(buf, len, "%u (%s)", linktype, name);
	else
		snprintf(buf, len, "%u (%s, %s)", linktype, name, desc);
	return buf;
}

/* n rounded up to a multiple of 4, as pcapng pads. */
static uint64_t pad4(uint64_t n)
{
	return (n + 3) & ~(uint64_t)3;
}

/* Fill err (if any) with a message that has no byte offset; returns code. */
static int __attribute__((format(printf, 4, 5)))
trace_err_set(struct trace_err *err, int code, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (err == NULL)
		return code;
	err->code = code;
	err->offset = -1;
	err->record = -1;
	n = snprintf(err->msg, sizeof(err->msg), "%s: ", path);
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		return code;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

/* Fill err with "<path>: <what> at byte offset <off>[ (record <k>)]". */
static int __attribute__((format(printf, 6, 7)))
walk_fail(const struct trace_walk *w, struct trace_err *err, int code,
	  uint64_t off, int64_t rec, const char *fmt, ...)
{
	size_t n, cap;
	va_list ap;
	int k;

	if (err == NULL)
		return code;
	err->code = code;
	err->offset = (int64_t)off;
	err->record = rec;
	cap = sizeof(err->msg);
	k = snprintf(err->msg, cap, "%s: ", w->path);
	n = k < 0 ? 0 : (size_t)k;
	va_start(ap, fmt);
	if (n < cap) {
		k = vsnprintf(err->msg + n, cap - n, fmt, ap);
		n += k < 0 ? 0 : (size_t)k;
	}
	va_end(ap);
	if (n < cap) {
		k = snprintf(err->msg + n, cap - n, " at byte offset %" PRIu64, off);
		n += k < 0 ? 0 : (size_t)k;
	}
	if (n < cap && rec >= 0)
		snprintf(err->msg + n, cap - n, " (record %" PRId64 ")", rec);
	return code;
}

/* Read n bytes at off (present in the file: the caller checked the size). */
static int walk_read(struct trace_walk *w, uint64_t off, void *buf, size_t n,
		     struct trace_err *err)
{
	if (w->pos != off && fseeko(w->f, (off_t)off, SEEK_SET) != 0)
		return walk_fail(w, err, -errno, off, -1, "cannot seek: %s", strerror(errno));
	w->pos = off;
	if (fread(buf, 1, n, w->f) != n)
		return walk_fail(w, err, -EIO, off, -1, "read error or file shrank");
	w->pos = off + n;
	return 0;
}

/* Check the classic pcap file header; the magic is already known good. */
static int walk_pcap_open(struct trace_walk *w, const uint8_t *h, struct trace_err *err)
{
	uint16_t major = walk_u16(w, h + 4), minor = walk_u16(w, h + 6);
	uint32_t lt = walk_u32(w, h + 20);

	if (w->info.file_size < WALK_PCAP_HDR)
		return walk_fail(w, err, -EBADMSG, 0, -1,
				 "truncated file header (%" PRIu64 " of %d bytes)",
				 w->info.file_size, WALK_PCAP_HDR);
	if (major != 2 || minor != 4)
		return walk_fail(w, err, -ENOTSUP, 0, -1,
				 "unsupported pcap version %u.%u (only 2.4 is read)",
				 major, minor);
	/* libpcap keeps reserved bits in the link type and drops the FCS bits */
	if (lt & WALK_LT_FCS)
		return walk_fail(w, err, -ENOTSUP, 0, -1,
				 "link type field 0x%08x says every frame ends in an FCS (not supported)",
				 lt);
	if (lt & ~(uint32_t)WALK_LT_TYPE)
		return walk_fail(w, err, -ENOTSUP, 0, -1,
				 "link type field 0x%08x has reserved bits set", lt);
	w->info.snaplen = walk_snaplen(lt, walk_u32(w, h + 16));
	w->info.linktype = lt;
	w->start = WALK_PCAP_HDR;
	return 0;
}

/*
 * Open w->path if it is a regular file, filling st. It is opened without
 * blocking and checked before anything is read, so a FIFO is refused
 * instead of waited on for a writer (O_NONBLOCK changes nothing for the
 * reads of a regular file).
 */
static int walk_open_file(struct trace_walk *w, struct stat *st, struct trace_err *err)
{
	int fd = open(w->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int e;

	if (fd < 0)
		return trace_err_set(err, -errno, w->path, "cannot open: %s", strerror(errno));
	if (fstat(fd, st) != 0) {
		e = errno;
		close(fd);
		return trace_err_set(err, -e, w->path, "cannot stat: %s", strerror(e));
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return trace_err_set(err, S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL, w->path,
				     "not a regular file (a pcap or pcapng file is needed)");
	}
	w->dev = st->st_dev;
	w->ino = st->st_ino;
	w->f = fdopen(fd, "rb");
	if (w->f == NULL) {
		e = errno;
		close(fd);
		return trace_err_set(err, -e, w->path, "cannot open: %s", strerror(e));
	}
	return 0;
}

/* Recognize the format from the first bytes and check the file header. */
static int walk_open(struct trace_walk *w, const char *path, struct trace_err *err)
{
	uint8_t h[WALK_PCAP_HDR] = { 0 };
	uint32_t be, le;
	struct stat st;
	size_t n;
	int rc;

	memset(w, 0, sizeof(*w));
	w->path = path;
	rc = walk_open_file(w, &st, err);
	if (rc)
		return rc;
	w->info.file_size = (uint64_t)st.st_size;
	n = w->info.file_size < sizeof(h) ? (size_t)w->info.file_size : sizeof(h);
	if (n < 4)
		return walk_fail(w, err, -EBADMSG, 0, -1,
				 "truncated file header (%zu bytes)", n);
	rc = walk_read(w, 0, h, n, err);
	if (rc)
		return rc;
	be = get_be32(h);
	le = get_le32(h);
	if (be == walk_ng_shb) {
		if (n < WALK_NG_BLOCK_MIN)
			return walk_fail(w, err, -EBADMSG, 0, -1,
					 "truncated section header block (%zu of %d bytes)",
					 n, WALK_NG_SHB_MIN);
		if (get_be32(h + 8) != walk_ng_bom && get_le32(h + 8) != walk_ng_bom)
			return walk_fail(w, err, -EBADMSG, 0, -1,
					 "bad byte-order magic 0x%08x in section header block",
					 get_be32(h + 8));
		w->info.format = TRACE_FMT_PCAPNG;
		w->big_endian = get_be32(h + 8) == walk_ng_bom;
		w->start = 0;
	} else if (le == walk_magic_us || le == walk_magic_ns ||
		   be == walk_magic_us || be == walk_magic_ns) {
		w->big_endian = be == walk_magic_us || be == walk_magic_ns;
		w->info.format = walk_u32(w, h) == walk_magic_ns ?
				 TRACE_FMT_PCAP_NS : TRACE_FMT_PCAP_US;
		w->subsec_limit = w->info.format == TRACE_FMT_PCAP_NS ?
				  1000000000 : 1000000;
		rc = walk_pcap_open(w, h, err);
		if (rc)
			return rc;
	} else {
		return walk_fail(w, err, -EBADMSG, 0, -1, "bad magic 0x%08x", be);
	}
	w->info.swapped = w->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	w->off = w->start;
	return 0;
}

/* Account for one packet record found at w->off and step past it. */
static void walk_count(struct trace_walk *w, struct walk_rec *wr, uint32_t caplen,
		       uint32_t wirelen, uint64_t ts_ns, uint64_t size)
{
	wr->offset = w->off;
	wr->caplen = caplen;
	wr->wirelen = wirelen;
	wr->ts_ns = ts_ns;
	w->info.records++;
	w->info.cap_bytes += caplen;
	w->info.wire_bytes += wirelen;
	w->off += size;
}

/* Lengths of record rec at w->off: caplen within the snaplen and the wire length. */
static int walk_check_lengths(const struct trace_walk *w, int64_t rec, uint32_t caplen,
			      uint32_t wirelen, struct trace_err *err)
{
	if (caplen > w->info.snaplen)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "caplen %u exceeds snaplen %u", caplen, w->info.snaplen);
	if (caplen > wirelen)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "caplen %u exceeds wire length %u", caplen, wirelen);
	return 0;
}

/* Next classic pcap record: 1, 0 at the end, or -errno. */
static int walk_pcap_next(struct trace_walk *w, struct walk_rec *wr, struct trace_err *err)
{
	uint64_t left = w->info.file_size - w->off;
	int64_t rec = (int64_t)w->info.records;
	uint32_t sub, caplen, wirelen;
	uint8_t h[WALK_PCAP_REC];
	int rc;

	if (left == 0)
		return 0;
	if (left < WALK_PCAP_REC)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "truncated record header (%" PRIu64 " of %d bytes)",
				 left, WALK_PCAP_REC);
	rc = walk_read(w, w->off, h, sizeof(h), err);
	if (rc)
		return rc;
	sub = walk_u32(w, h + 4);
	caplen = walk_u32(w, h + 8);
	wirelen = walk_u32(w, h + 12);
	if (sub >= w->subsec_limit)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "%s field %u out of range",
				 w->subsec_limit == 1000000 ? "microsecond" : "nanosecond", sub);
	rc = walk_check_lengths(w, rec, caplen, wirelen, err);
	if (rc)
		return rc;
	if (left - WALK_PCAP_REC < caplen)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "truncated record data (caplen %u, %" PRIu64 " bytes left)",
				 caplen, left - WALK_PCAP_REC);
	/* the seconds are unsigned: 2^31 and later are after January 2038 */
	walk_count(w, wr, caplen, wirelen,
		   (uint64_t)walk_u32(w, h) * 1000000000u +
		   (uint64_t)sub * (1000000000u / w->subsec_limit),
		   WALK_PCAP_REC + (uint64_t)caplen);
	return 1;
}

/* Section header block of total length len at w->off. */
static int walk_ng_section(struct trace_walk *w, uint32_t len, struct trace_err *err)
{
	uint8_t b[4];
	uint16_t major, minor;
	int rc;

	if (len < WALK_NG_SHB_MIN)
		return walk_fail(w, err, -EBADMSG, w->off, -1,
				 "section header block too short (total length %u)", len);
	if (len > WALK_NG_SHB_MAX)
		return walk_fail(w, err, -EBADMSG, w->off, -1,
				 "section header block length %u exceeds %d", len, WALK_NG_SHB_MAX);
	rc = walk_read(w, w->off + 12, b, sizeof(b), err);
	if (rc)
		return rc;
	major = walk_u16(w, b);
	minor = walk_u16(w, b + 2);
	if (major != 1 || (minor != 0 && minor != 2))
		return walk_fail(w, err, -ENOTSUP, w->off, -1,
				 "unsupported pcapng version %u.%u", major, minor);
	w->ifcount = 0;
	return 0;
}

/* if_tsresol value v (at most 10^-19 or 2^-63 s, as libpcap converts). */
static bool walk_tsresol_ok(uint8_t v)
{
	return v & 0x80 ? (v & 0x7f) <= 63 : v <= 19;
}

/* Timestamp units per second of a good if_tsresol value v. */
static uint64_t walk_tsresol_units(uint8_t v)
{
	uint64_t units = 1;

	if (v & 0x80)
		return units << (v & 0x7f);
	while (v--)
		units *= 10;
	return units;
}

/* One option of the IDB at w->off: code, length olen, value at p; fills ifc. */
static int walk_ng_idb_option(struct trace_walk *w, uint16_t code, uint16_t olen,
			      uint64_t p, unsigned int *seen, struct walk_iface *ifc,
			      struct trace_err *err)
{
	uint8_t v[8];
	int rc;

	if (code != WALK_NG_OPT_TSRESOL && code != WALK_NG_OPT_TSOFFSET)
		return 0;
	if (*seen & (1u << code))
		return walk_fail(w, err, -EBADMSG, w->off, -1,
				 "interface option %u appears twice", code);
	*seen |= 1u << code;
	if (olen != (code == WALK_NG_OPT_TSRESOL ? 1 : 8))
		return walk_fail(w, err, -EBADMSG, w->off, -1,
				 "interface option %u has bad length %u", code, olen);
	rc = walk_read(w, p, v, olen, err);
	if (rc)
		return rc;
	if (code == WALK_NG_OPT_TSOFFSET) {
		ifc->offset = w->big_endian ? (uint64_t)get_be32(v) << 32 | get_be32(v + 4)
					    : (uint64_t)get_le32(v + 4) << 32 | get_le32(v);
		return 0;
	}
	if (!walk_tsresol_ok(v[0]))
		return walk_fail(w, err, -EBADMSG, w->off, -1,
				 "interface timestamp resolution 0x%02x out of range", v[0]);
	ifc->units = walk_tsresol_units(v[0]);
	return 0;
}

/* Options of the interface description block at w->off: they must fit in
 * it, and the timestamp ones must be what libpcap can convert; fills ifc. */
static int walk_ng_idb_options(struct trace_walk *w, uint32_t len, struct walk_iface *ifc,
			       struct trace_err *err)
{
	uint64_t p = w->off + WALK_NG_BLOCK_HDR + WALK_NG_IDB_BODY;
	uint64_t end = w->off + len - 4;
	unsigned int seen = 0;
	uint16_t code, olen;
	uint8_t o[4];
	int rc;

	while (p < end) {
		if (end - p < sizeof(o))
			return walk_fail(w, err, -EBADMSG, w->off, -1,
					 "interface options overrun the block");
		rc = walk_read(w, p, o, sizeof(o), err);
		if (rc)
			return rc;
		code = walk_u16(w, o);
		olen = walk_u16(w, o + 2);
		if (code == 0 && olen)
			return walk_fail(w, err, -EBADMSG, w->off, -1,
					 "interface options: end of options with length %u (must be 0)",
					 olen);
		if (code == 0)
			break;
		p += sizeof(o);
		if (pad4(olen) > end - p)
			return walk_fail(w, err, -EBADMSG, w->off, -1,
					 "interface options overrun the block");
		rc = walk_ng_idb_option(w, code, olen, p, &seen, ifc, err);
		if (rc)
			return rc;
		p += pad4(olen);
	}
	return 0;
}

/* Interface description block of total length len at w->off. */
static int walk_ng_interface(struct trace_walk *w, uint32_t len, struct trace_err *err)
{
	uint32_t linktype, raw;
	uint8_t b[WALK_NG_IDB_BODY];
	int rc;

	if (len < WALK_NG_BLOCK_MIN + WALK_NG_IDB_BODY)
		return walk_fail(w, err, -EBADMSG, w->off, -1,
				 "interface description block too short (total length %u)", len);
	rc = walk_read(w, w->off + WALK_NG_BLOCK_HDR, b, sizeof(b), err);
	if (rc)
		return rc;
	linktype = walk_u16(w, b);
	raw = walk_u32(w, b + 4);
	if (!w->have_idb) {
		w->have_idb = true;
		w->info.linktype = linktype;
		w->info.snaplen = walk_snaplen(linktype, raw);
		w->idb_snaplen = walk_idb_snaplen(linktype, raw);
	} else if (linktype != w->info.linktype) {
		return walk_fail(w, err, -ENOTSUP, w->off, -1,
				 "interface link type %u differs from the first interface's %u",
				 linktype, w->info.linktype);
	} else if (walk_lt_renumbered(linktype)) {
		return walk_fail(w, err, -ENOTSUP, w->off, -1,
				 "another interface of link type %u (libpcap reads one only of a type it renumbers)",
				 linktype);
	} else if (walk_idb_snaplen(linktype, raw) != w->idb_snaplen) {
		return walk_fail(w, err, -ENOTSUP, w->off, -1,
				 "interface snaplen %u differs from the first interface's %u",
				 raw, w->idb_snaplen);
	}
	if (w->ifcount == w->ifalloc) {
		uint32_t n = w->ifalloc ? 2 * w->ifalloc : 8;
		struct walk_iface *a = realloc(w->ifaces, n * sizeof(*a));

		if (a == NULL)
			return trace_err_set(err, -ENOMEM, w->path, "out of memory");
		w->ifaces = a;
		w->ifalloc = n;
	}
	/* no if_tsresol: microseconds; no if_tsoffset: 0 */
	w->ifaces[w->ifcount] = (struct walk_iface){ .units = 1000000, .offset = 0 };
	rc = walk_ng_idb_options(w, len, &w->ifaces[w->ifcount], err);
	if (rc)
		return rc;
	w->ifcount++;
	return 0;
}

/*
 * Timestamp t of interface ifc in nanoseconds, in *ns: the seconds with
 * if_tsoffset added (a signed offset, added modulo 2^64 as libpcap does),
 * the fraction scaled exactly, rounded down. libpcap's own conversion
 * multiplies the fraction by 10^9 in 64 bits, which overflows for
 * resolutions finer than 2^-34. False when the time is before 1970 or
 * its nanoseconds do not fit 64 bits (after 2554); *sec is the seconds.
 */
static bool walk_ng_ts(const struct walk_iface *ifc, uint64_t t, int64_t *sec, uint64_t *ns)
{
	uint64_t s = t / ifc->units + ifc->offset;
	unsigned __int128 frac = (unsigned __int128)(t % ifc->units) * 1000000000u;

	*sec = (int64_t)s;
	if (*sec < 0 || s > (UINT64_MAX - 999999999u) / 1000000000u)
		return false;
	*ns = s * 1000000000u + (uint64_t)(frac / ifc->units);
	return true;
}

/* Enhanced, simple or obsolete packet block of total length len at w->off. */
static int walk_ng_packet(struct trace_walk *w, uint32_t type, uint32_t len,
			  struct walk_rec *wr, struct trace_err *err)
{
	int64_t rec = (int64_t)w->info.records;
	uint32_t fixed = type == WALK_NG_SPB ? WALK_NG_SPB_BODY : WALK_NG_EPB_BODY;
	uint32_t iface, caplen, wirelen;
	uint8_t b[WALK_NG_EPB_BODY];
	uint64_t t, ts_ns;
	int64_t sec;
	int rc;

	if (len < WALK_NG_BLOCK_MIN + fixed)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "packet block too short (total length %u)", len);
	rc = walk_read(w, w->off + WALK_NG_BLOCK_HDR, b, fixed, err);
	if (rc)
		return rc;
	if (type == WALK_NG_SPB) {
		/* no timestamp: libpcap takes 0 on the first interface */
		iface = 0;
		t = 0;
		wirelen = walk_u32(w, b);
		caplen = wirelen < w->idb_snaplen ? wirelen : w->idb_snaplen;
		if (caplen > trace_max_snaplen(w->info.linktype))
			return walk_fail(w, err, -EBADMSG, w->off, rec,
					 "simple packet block: captured length %u (wire length %u, snaplen %u) exceeds %u",
					 caplen, wirelen, w->idb_snaplen,
					 trace_max_snaplen(w->info.linktype));
	} else {
		iface = type == WALK_NG_EPB ? walk_u32(w, b) : walk_u16(w, b);
		t = (uint64_t)walk_u32(w, b + 4) << 32 | walk_u32(w, b + 8);
		caplen = walk_u32(w, b + 12);
		wirelen = walk_u32(w, b + 16);
	}
	if (iface >= w->ifcount)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "packet block for undefined interface %u", iface);
	rc = walk_check_lengths(w, rec, caplen, wirelen, err);
	if (rc)
		return rc;
	if (pad4(caplen) > len - WALK_NG_BLOCK_MIN - fixed)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "caplen %u does not fit in the block (total length %u)",
				 caplen, len);
	if (!walk_ng_ts(&w->ifaces[iface], t, &sec, &ts_ns))
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "timestamp %" PRId64 " s is outside 1970 to 2554", sec);
	walk_count(w, wr, caplen, wirelen, ts_ns, len);
	return 1;
}

/* True for the block types that carry a packet. */
static bool walk_ng_is_packet(uint32_t type)
{
	return type == WALK_NG_EPB || type == WALK_NG_SPB || type == WALK_NG_PB;
}

/* Byte-order magic of a section header block that is not the first. */
static int walk_ng_check_bom(struct trace_walk *w, struct trace_err *err)
{
	uint8_t b[4];
	int rc;

	rc = walk_read(w, w->off + WALK_NG_BLOCK_HDR, b, sizeof(b), err);
	if (rc)
		return rc;
	if (walk_u32(w, b) == walk_ng_bom)
		return 0;
	if ((w->big_endian ? get_le32(b) : get_be32(b)) == walk_ng_bom)
		return walk_fail(w, err, -ENOTSUP, w->off, -1,
				 "section byte order differs from the first section's");
	return walk_fail(w, err, -EBADMSG, w->off, -1,
			 "bad byte-order magic 0x%08x in section header block",
			 get_be32(b));
}

uint32_t trace_max_block(uint32_t linktype)
{
	uint32_t room = trace_max_snaplen(linktype) + WALK_NG_EPB_ROOM;

	return room > TRACE_MAX_BLOCK ? room : TRACE_MAX_BLOCK;
}

/*
 * Largest block libpcap reads at w->off: TRACE_MAX_BLOCK up to the first
 * interface block, then trace_max_block of its link type.
 */
static uint32_t walk_ng_max_block(const struct trace_walk *w)
{
	return w->have_idb ? trace_max_block(w->info.linktype) : TRACE_MAX_BLOCK;
}

/* Block framing: total length sane, inside the file, equal to the trailer. */
static int walk_ng_frame(struct trace_walk *w, uint32_t type, uint32_t len,
			 struct trace_err *err)
{
	uint64_t left = w->info.file_size - w->off;
	int64_t rec = walk_ng_is_packet(type) ? (int64_t)w->info.records : -1;
	uint32_t max = walk_ng_max_block(w);
	uint8_t t[4];
	int rc;

	if (len < WALK_NG_BLOCK_MIN || len % 4 != 0)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "bad block total length %u (block type 0x%08x)", len, type);
	if (len > max)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "block total length %u exceeds %u", len, max);
	if (len > left)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "truncated block (total length %u, %" PRIu64 " bytes left)",
				 len, left);
	rc = walk_read(w, w->off + len - 4, t, sizeof(t), err);
	if (rc)
		return rc;
	if (walk_u32(w, t) != len)
		return walk_fail(w, err, -EBADMSG, w->off, rec,
				 "block total length %u does not match trailing length %u",
				 len, walk_u32(w, t));
	return 0;
}

/* Next pcapng packet block, skipping the others: 1, 0 at the end, or -errno. */
static int walk_ng_next(struct trace_walk *w, struct walk_rec *wr, struct trace_err *err)
{
	uint8_t h[WALK_NG_BLOCK_HDR];
	uint32_t type, len;
	uint64_t left;
	int rc;

	for (;;) {
		left = w->info.file_size - w->off;
		if (left == 0 && !w->have_idb)
			return walk_fail(w, err, -EBADMSG, w->off, -1,
					 "no interface description block before the end of the file");
		if (left == 0)
			return 0;
		if (left < sizeof(h))
			return walk_fail(w, err, -EBADMSG, w->off, -1,
					 "truncated block header (%" PRIu64 " of %zu bytes)",
					 left, sizeof(h));
		rc = walk_read(w, w->off, h, sizeof(h), err);
		if (rc)
			return rc;
		type = walk_u32(w, h);
		len = walk_u32(w, h + 4);
		/* (a length below an SHB's is not a section in the other byte order) */
		if (type == walk_ng_shb && w->off != 0 && left >= WALK_NG_BLOCK_MIN &&
		    len >= WALK_NG_SHB_MIN) {
			rc = walk_ng_check_bom(w, err);
			if (rc)
				return rc;
		}
		rc = walk_ng_frame(w, type, len, err);
		if (rc)
			return rc;
		if (walk_ng_is_packet(type))
			return walk_ng_packet(w, type, len, wr, err);
		if (type == walk_ng_shb)
			rc = walk_ng_section(w, len, err);
		else if (type == WALK_NG_IDB)
			rc = walk_ng_interface(w, len, err);
		if (rc)
			return rc;
		w->off += len;
	}
}

/* Next packet record of either format: 1, 0 at the end, or -errno. */
static int walk_next(struct trace_walk *w, struct walk_rec *wr, struct trace_err *err)
{
	if (w->info.format == TRACE_FMT_PCAPNG)
		return walk_ng_next(w, wr, err);
	return walk_pcap_next(w, wr, err);
}

/* Go back to the first record, forgetting the counts. */
static void walk_rewind(struct trace_walk *w)
{
	w->off = w->start;
	w->info.records = 0;
	w->info.cap_bytes = 0;
	w->info.wire_bytes = 0;
	w->ifcount = 0;
	w->have_idb = false;
}

/* Release the walk's file and interfaces. */
static void walk_close(struct trace_walk *w)
{
	if (w->f != NULL)
		fclose(w->f);
	w->f = NULL;
	free(w->ifaces);
	w->ifaces = NULL;
	w->ifalloc = 0;
}

/* Walk every record of an open walk; 0 or -errno. */
static int walk_all(struct trace_walk *w, struct trace_err *err)
{
	struct walk_rec wr;
	int rc;

	while ((rc = walk_next(w, &wr, err)) == 1)
		;
	return rc;
}

int trace_validate(const char *path, struct trace_info *info, struct trace_err *err)
{
	struct trace_walk w;
	int rc;

	rc = walk_open(&w, path, err);
	if (rc == 0)
		rc = walk_all(&w, err);
	if (rc == 0 && info != NULL)
		*info = w.info;
	walk_close(&w);
	return rc;
}

/*
 * libpcap's handle on the file the walk has open, in *out: opened by us
 * (libpcap would take "-" for stdin) and checked to be the same file (not
 * one put in its place since). 0 or -errno with err filled.
 */
static int walk_libpcap_open(const struct trace_walk *w, pcap_t **out, struct trace_err *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	int fd = open(w->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;
	int e;

	if (fd < 0)
		return trace_err_set(err, -errno, w->path, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0 || st.st_dev != w->dev || st.st_ino != w->ino) {
		close(fd);
		return trace_err_set(err, -EBADMSG, w->path, "file changed while loading");
	}
	f = fdopen(fd, "rb");
	if (f == NULL) {
		e = errno;
		close(fd);
		return trace_err_set(err, -e, w->path, "cannot open: %s", strerror(e));
	}
	*out = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (*out == NULL) {
		fclose(f);
		return trace_err_set(err, -EBADMSG, w->path, "libpcap: %s", errbuf);
	}
	return 0;
}

struct trace_reader *trace_reader_open(const char *path, struct trace_err *err)
{
	struct trace_reader *r;
	int rc;

	r = calloc(1, sizeof(*r));
	if (r == NULL || (r->path = strdup(path)) == NULL) {
		rc = trace_err_set(err, -ENOMEM, path, "out of memory");
		goto fail;
	}
	rc = walk_open(&r->walk, r->path, err);
	if (rc == 0)
		rc = walk_all(&r->walk, err);
	if (rc)
		goto fail;
	r->info = r->walk.info;
	walk_rewind(&r->walk);
	rc = walk_libpcap_open(&r->walk, &r->pcap, err);
	if (rc)
		goto fail;
	return r;
fail:
	trace_reader_close(r);
	errno = -rc;
	return NULL;
}

const struct trace_info *trace_reader_info(const struct trace_reader *r)
{
	return &r->info;
}

int trace_reader_next(struct trace_reader *r, struct trace_rec *rec, struct trace_err *err)
{
	struct trace_walk *w = &r->walk;
	struct pcap_pkthdr *h;
	const u_char *data;
	struct walk_rec wr;
	int rc, prc;

	rc = walk_next(w, &wr, err);
	if (rc < 0)
		return rc;
	prc = pcap_next_ex(r->pcap, &h, &data);
	if (rc == 0 && prc == PCAP_ERROR_BREAK)
		return 0;
	if (prc == PCAP_ERROR)
		return walk_fail(w, err, -EBADMSG, rc ? wr.offset : w->off,
				 rc ? (int64_t)w->info.records - 1 : -1,
				 "libpcap: %s", pcap_geterr(r->pcap));
	/* libpcap rewrites the wire length of some USB events (fixup_pcap_pkthdr) */
	if (rc == 0 || prc != 1 || h->caplen != wr.caplen ||
	    (h->len != wr.wirelen && r->info.linktype != WALK_LT_USB_MMAPPED))
		return walk_fail(w, err, -EBADMSG, rc ? wr.offset : w->off,
				 rc ? (int64_t)w->info.records - 1 : -1,
				 "libpcap and the validation walk disagree");
	/*
	 * The walk's timestamp: libpcap hands a pcap header's unsigned
	 * seconds over sign-extended (after January 2038 they would go
	 * negative) and overflows fine binary pcapng resolutions.
	 */
	rec->ts_ns = wr.ts_ns;
	rec->caplen = h->caplen;
	rec->wirelen = wr.wirelen;
	rec->data = data;
	rec->index = w->info.records - 1;
	rec->offset = wr.offset;
	return 1;
}

void trace_reader_close(struct trace_reader *r)
{
	if (r == NULL)
		return;
	if (r->pcap != NULL)
		pcap_close(r->pcap);
	walk_close(&r->walk);
	free(r->path);
	free(r);
}

/* Read every record of r into t, whose arrays are sized from r's info. */
static int trace_fill(struct trace *t, struct trace_reader *r, struct trace_err *err)
{
	uint64_t k = 0, used = 0;
	struct trace_rec rec;
	int rc;

	while ((rc = trace_reader_next(r, &rec, err)) == 1) {
		if (k == t->n || rec.caplen > t->info.cap_bytes - used)
			return trace_err_set(err, -EBADMSG, r->path, "file changed while loading");
		memcpy(t->data + used, rec.data, rec.caplen);
		rec.data = t->data + used;
		used += rec.caplen;
		if (k > 0 && rec.ts_ns < t->recs[k - 1].ts_ns)
			t->ts_backwards++;
		t->recs[k++] = rec;
	}
	if (rc == 0 && k != t->n)
		return trace_err_set(err, -EBADMSG, r->path, "file changed while loading");
	return rc;
}

struct trace *trace_load(const char *path, struct trace_err *err)
{
	struct trace_reader *r;
	struct trace *t;
	int rc;

	r = trace_reader_open(path, err);
	if (r == NULL)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		rc = trace_err_set(err, -ENOMEM, path, "out of memory");
		goto fail;
	}
	t->info = r->info;
	t->n = r->info.records;
	t->recs = calloc(t->n ? t->n : 1, sizeof(*t->recs));
	t->data = malloc(t->info.cap_bytes ? t->info.cap_bytes : 1);
	if (t->recs == NULL || t->data == NULL) {
		rc = trace_err_set(err, -ENOMEM, path, "out of memory for %" PRIu64
				   " records", t->n);
		goto fail;
	}
	rc = trace_fill(t, r, err);
	if (rc)
		goto fail;
	trace_reader_close(r);
	return t;
fail:
	trace_reader_close(r);
	trace_free(t);
	errno = -rc;
	return NULL;
}

void trace_free(struct trace *t)
{
	if (t == NULL)
		return;
	free(t->recs);
	free(t->data);
	free(t);
}
