/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the trace reader (pcap/reader.c). Each input is
 * written to a memfd, which the reader opens by its /proc/self/fd path as
 * it opens any file. Besides the sanitizers' own checks it enforces the
 * reader's contract:
 * - a refusal (trace_validate()) is -EBADMSG or -ENOTSUP with that code in
 *   the error, a byte offset inside the file (its size at most) named in
 *   "<path>: <what> at byte offset <n>[ (record <k>)]", a record index of
 *   -1 or more, and trace_load() and trace_reader_open() refuse with the
 *   same message;
 * - a file validation accepts is read to its end by trace_reader_next()
 *   and by trace_load() without an error (validation rejects a corrupt
 *   file as a whole, so libpcap must never fail after it);
 * - the records read are those the harness finds itself, walking the file
 *   by the format's definition: as many as trace_info.records, at the
 *   offsets of the record headers or packet blocks, in order, inside the
 *   file, with their captured and wire lengths (summing to cap_bytes and
 *   wire_bytes; caplen at most the snaplen, itself at most the link type's
 *   trace_max_snaplen(), and the wire length), their
 *   bytes, and their timestamps in nanoseconds: pcap seconds unsigned,
 *   pcapng ones from the interface's if_tsresol and if_tsoffset, the
 *   fraction scaled exactly (rounded down);
 * - trace_load() holds the same records, and ts_backwards counts the
 *   records earlier than their predecessor.
 * A broken invariant aborts, so libFuzzer saves the input as a crash.
 *
 * What only a large input reaches is counted per input (struct
 * ft_counts): records past 262144 bytes, which only D-Bus, USBPCAP and
 * EBHSCR allow, read whole by both readers, and refusals at the larger
 * limits. The branches that count them are coverage libFuzzer keeps
 * inputs for; with SEGNET_FUZZ_COUNTERS set each input's counts are
 * printed (seeds_reach.sh, trace_seeds_reach.sh), with SEGNET_FUZZ_TOTALS
 * set how many inputs moved each, at exit (scripts/fuzz.sh trace).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pcap/reader.h"

/* Sizes and block types of the two formats (doc/replay.md). */
enum {
	FT_PCAP_HDR = 24,	/* classic file header */
	FT_PCAP_REC = 16,	/* classic record header */
	FT_NG_SHB = 0x0a0d0d0a,	/* section header block */
	FT_NG_IDB = 1,		/* interface description block */
	FT_NG_PB = 2,		/* packet block (obsolete) */
	FT_NG_SPB = 3,		/* simple packet block */
	FT_NG_EPB = 6,		/* enhanced packet block */
	FT_NG_PKT_HDR = 28,	/* EPB and PB: up to the packet data */
	FT_NG_SPB_HDR = 12,	/* SPB: up to the packet data */
	FT_NG_IDB_MIN = 20,	/* shortest IDB */
};

/* One interface as its IDB defines it: timestamp units per second, offset. */
struct ft_iface {
	/* 10^r or 2^b: what one unit of a timestamp is */
	uint64_t units;
	/* if_tsoffset, seconds (added modulo 2^64, as a signed value would be) */
	uint64_t offset;
};

/* One record as the harness reads the file. */
struct ft_rec {
	/* offset of the record header or packet block */
	uint64_t offset;
	/* captured and wire lengths */
	uint32_t caplen, wirelen;
	/* timestamp in nanoseconds */
	uint64_t ts_ns;
	/* offset of the captured bytes */
	uint64_t data;
};

/* The harness's reading of one input. */
struct ft_file {
	/* the input */
	const uint8_t *p;
	/* its size */
	size_t size;
	/* multi-byte fields are big endian */
	bool big;
	/* the records found (at most one per 12 bytes) */
	struct ft_rec *recs;
	/* how many */
	uint64_t n;
	/* pcapng: the current section's interfaces (one per 20 bytes at most) */
	struct ft_iface *ifaces;
	/* how many */
	uint32_t nif;
};

/* Link types whose largest record is not 262144 (trace_max_snaplen). */
enum { FT_LT_DBUS = 231, FT_LT_USBPCAP = 249, FT_LT_EBHSCR = 279 };

/*
 * What one input reached of the large-record paths. X(name, what): the
 * counter and what it counts.
 */
#define FT_COUNTS(X) \
	X(big_records, "records past 262144 bytes read whole (any link type, either format)") \
	X(big_pcap, "of them, in classic pcap") \
	X(big_pcapng, "of them, in pcapng enhanced or obsolete packet blocks") \
	X(big_spb, "of them, in pcapng simple packet blocks") \
	X(big_dbus, "of them, D-Bus (231)") \
	X(big_usbpcap, "of them, USBPCAP (249)") \
	X(big_ebhscr, "of them, EBHSCR (279)") \
	X(at_ethernet_max, "records of exactly 262144 bytes, a link type's largest for most") \
	X(cut_spb, "simple packet blocks whose wire length passes 262144, cut to it or the snaplen") \
	X(refused_past_large_snaplen, "refusals: a caplen past a snaplen in force above 262144 (only these link types have one)") \
	X(refused_block_past_16mib, "refusals: a pcapng block past 16 MiB") \
	X(refused_block_past_dbus_max, "refusals: a pcapng block past D-Bus's 128 MiB + 131104")

/* Counts of one input, each named by FT_COUNTS. */
struct ft_counts {
#define FT_FIELD(name, what) uint64_t name;
	FT_COUNTS(FT_FIELD)
#undef FT_FIELD
};

/* Print each input's counts (SEGNET_FUZZ_COUNTERS set). */
static bool ft_print_counts;

/* Inputs each count moved in, printed at exit (SEGNET_FUZZ_TOTALS set). */
static struct ft_counts ft_inputs;

/* The memfd inputs are written to, and its path. */
static int ft_fd = -1;
static char ft_path[64];

/* libFuzzer's entry point; declared for -Wmissing-prototypes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with the name of the broken invariant when ok is false. */
static void ft_check(bool ok, const char *what, const char *detail)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_trace: invariant broken: %s%s%s\n", what,
		detail ? ": " : "", detail ? detail : "");
	abort();
}

/* 32-bit field at off in the file's byte order (off + 4 inside the file). */
static uint32_t ft_u32(const struct ft_file *f, uint64_t off)
{
	const uint8_t *q = f->p + off;

	ft_check(off <= f->size && f->size - off >= 4, "a field read lies inside the file", NULL);
	return f->big ? (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3]
		      : (uint32_t)q[3] << 24 | (uint32_t)q[2] << 16 | (uint32_t)q[1] << 8 | q[0];
}

/* 16-bit field at off in the file's byte order. */
static uint16_t ft_u16(const struct ft_file *f, uint64_t off)
{
	const uint8_t *q = f->p + off;

	ft_check(off <= f->size && f->size - off >= 2, "a field read lies inside the file", NULL);
	return f->big ? (uint16_t)(q[0] << 8 | q[1]) : (uint16_t)(q[1] << 8 | q[0]);
}

/* 64-bit field at off in the file's byte order (an option value). */
static uint64_t ft_u64(const struct ft_file *f, uint64_t off)
{
	uint64_t a = ft_u32(f, off), b = ft_u32(f, off + 4);

	return f->big ? a << 32 | b : b << 32 | a;
}

/* Record a packet found at off, its bytes at data. */
static void ft_add(struct ft_file *f, uint64_t off, uint32_t caplen, uint32_t wirelen,
		   uint64_t ts_ns, uint64_t data)
{
	ft_check(data <= f->size && caplen <= f->size - data,
		 "an accepted record's bytes lie inside the file", NULL);
	f->recs[f->n++] = (struct ft_rec){ .offset = off, .caplen = caplen,
					   .wirelen = wirelen, .ts_ns = ts_ns, .data = data };
}

/* Walk a classic pcap file validation accepted. */
static void ft_walk_pcap(struct ft_file *f, bool ns)
{
	uint64_t off = FT_PCAP_HDR;

	while (off < f->size) {
		uint32_t sec = ft_u32(f, off), sub = ft_u32(f, off + 4);
		uint32_t caplen = ft_u32(f, off + 8);

		ft_add(f, off, caplen, ft_u32(f, off + 12),
		       (uint64_t)sec * 1000000000u + (uint64_t)sub * (ns ? 1 : 1000),
		       off + FT_PCAP_REC);
		off += FT_PCAP_REC + (uint64_t)caplen;
	}
}

/* An IDB's timestamp units and offset from its options (body at off, end at end). */
static struct ft_iface ft_idb(const struct ft_file *f, uint64_t off, uint64_t end)
{
	struct ft_iface ifc = { .units = 1000000, .offset = 0 };

	for (off += 8; off + 4 <= end;) {
		uint16_t code = ft_u16(f, off), len = ft_u16(f, off + 2);

		if (code == 0)
			break;
		if (code == 9 && len == 1) {
			uint8_t v = f->p[off + 4];

			ifc.units = 1;
			if (v & 0x80)
				ifc.units <<= v & 0x7f;
			else
				for (int i = 0; i < v; i++)
					ifc.units *= 10;
		} else if (code == 14 && len == 8) {
			ifc.offset = ft_u64(f, off + 4);
		}
		off += 4 + ((len + 3u) & ~3u);
	}
	return ifc;
}

/* Nanoseconds of a pcapng timestamp t on interface ifc, exactly, rounded down. */
static uint64_t ft_ng_ns(const struct ft_iface *ifc, uint64_t t)
{
	uint64_t sec = t / ifc->units + ifc->offset;
	unsigned __int128 frac = (unsigned __int128)(t % ifc->units) * 1000000000u / ifc->units;

	return sec * 1000000000u + (uint64_t)frac;
}

/* Walk a pcapng file validation accepted. */
static void ft_walk_ng(struct ft_file *f, uint32_t snaplen)
{
	uint64_t off = 0;

	while (off < f->size) {
		uint32_t type = ft_u32(f, off), len = ft_u32(f, off + 4);
		uint32_t iface, caplen, wirelen;
		uint64_t t;

		ft_check(len >= 12 && len <= f->size - off, "an accepted block lies inside the file",
			 NULL);
		switch (type) {
		case FT_NG_SHB:
			f->nif = 0;
			break;
		case FT_NG_IDB:
			ft_check(len >= FT_NG_IDB_MIN, "an accepted interface block holds its fields",
				 NULL);
			f->ifaces[f->nif++] = ft_idb(f, off + 8, off + len - 4);
			break;
		case FT_NG_EPB:
		case FT_NG_PB:
			iface = type == FT_NG_EPB ? ft_u32(f, off + 8) : ft_u16(f, off + 8);
			t = (uint64_t)ft_u32(f, off + 12) << 32 | ft_u32(f, off + 16);
			caplen = ft_u32(f, off + 20);
			wirelen = ft_u32(f, off + 24);
			ft_check(iface < f->nif, "an accepted packet's interface is defined", NULL);
			ft_add(f, off, caplen, wirelen, ft_ng_ns(&f->ifaces[iface], t),
			       off + FT_NG_PKT_HDR);
			break;
		case FT_NG_SPB:
			/* no timestamp: libpcap takes 0 on interface 0 */
			wirelen = ft_u32(f, off + 8);
			ft_check(f->nif > 0, "an accepted packet's interface is defined", NULL);
			ft_add(f, off, wirelen < snaplen ? wirelen : snaplen, wirelen,
			       ft_ng_ns(&f->ifaces[0], 0), off + FT_NG_SPB_HDR);
			break;
		default:
			break;
		}
		off += len;
	}
}

/*
 * libpcap rewrites the pseudo-header of these link types in a file of the
 * other byte order (pcap-util.c, swap_pseudo_headers): PFLOG, LINUX_SLL,
 * LINUX_SLL2, USB_LINUX, USB_LINUX_MMAPPED, NFLOG.
 */
static bool ft_bytes_rewritten(const struct trace_info *info)
{
	switch (info->linktype) {
	case 113: case 117: case 189: case 220: case 239: case 276:
		return info->swapped;
	default:
		return false;
	}
}

/* Two infos say the same (compared field by field: a struct may hold padding). */
static bool ft_same_info(const struct trace_info *a, const struct trace_info *b)
{
	return a->format == b->format && a->swapped == b->swapped &&
	       a->linktype == b->linktype && a->snaplen == b->snaplen &&
	       a->records == b->records && a->cap_bytes == b->cap_bytes &&
	       a->wire_bytes == b->wire_bytes && a->file_size == b->file_size;
}

/* A refusal: its code, its offset inside the file, its message. */
static void ft_check_refusal(int rc, const struct trace_err *e, size_t size)
{
	char at[64];
	size_t plen = strlen(ft_path);
	const char *tail;

	ft_check(rc == -EBADMSG || rc == -ENOTSUP, "a refusal is -EBADMSG or -ENOTSUP", e->msg);
	ft_check(e->code == rc, "the error's code is the one returned", e->msg);
	ft_check(e->offset >= 0 && (uint64_t)e->offset <= size,
		 "a refusal's offset lies inside the file", e->msg);
	ft_check(e->record >= -1, "a refusal's record is -1 or an index", e->msg);
	ft_check(strncmp(e->msg, ft_path, plen) == 0 && strncmp(e->msg + plen, ": ", 2) == 0 &&
		 e->msg[plen + 2] != '\0' && strncmp(e->msg + plen + 2, " at byte", 8) != 0,
		 "a refusal's message is \"<path>: <what> ...\"", e->msg);
	snprintf(at, sizeof(at), " at byte offset %" PRId64, e->offset);
	tail = strstr(e->msg, at);
	ft_check(tail != NULL, "a refusal's message names its offset", e->msg);
	tail += strlen(at);
	if (e->record >= 0) {
		snprintf(at, sizeof(at), " (record %" PRId64 ")", e->record);
		ft_check(strcmp(tail, at) == 0, "a refusal's message names its record", e->msg);
	} else {
		ft_check(*tail == '\0', "a refusal's message ends with its offset", e->msg);
	}
}

/* The loader and the streaming reader refuse what validation refused, alike. */
static void ft_check_refused_alike(int rc, const struct trace_err *want)
{
	struct trace_err e = { 0 };

	errno = 0;
	ft_check(trace_load(ft_path, &e) == NULL, "the loader refuses a refused file", want->msg);
	ft_check(errno == -rc && strcmp(e.msg, want->msg) == 0,
		 "the loader refuses with validation's error", e.msg);
	memset(&e, 0, sizeof(e));
	ft_check(trace_reader_open(ft_path, &e) == NULL,
		 "the streaming reader refuses a refused file", want->msg);
	ft_check(strcmp(e.msg, want->msg) == 0,
		 "the streaming reader refuses with validation's error", e.msg);
}

/* One record handed out against the harness's reading of the file. */
static void ft_check_rec(const struct ft_file *f, const struct trace_info *info, uint64_t k,
			 const struct trace_rec *r, bool bytes)
{
	const struct ft_rec *x = &f->recs[k];
	char d[96];

	ft_check(r->index == k, "records come in order, indexed from 0", NULL);
	ft_check(r->offset == x->offset, "a record's offset is its header's or block's", NULL);
	ft_check(k == 0 || r->offset > f->recs[k - 1].offset, "offsets increase", NULL);
	ft_check(r->offset < f->size, "a record's offset lies inside the file", NULL);
	ft_check(r->caplen == x->caplen && r->wirelen == x->wirelen,
		 "a record's lengths are the file's", NULL);
	ft_check(r->caplen <= info->snaplen, "caplen <= snaplen", NULL);
	ft_check(r->caplen <= r->wirelen, "caplen <= wire length", NULL);
	snprintf(d, sizeof(d), "record %" PRIu64 ": %" PRIu64 " ns, the file says %" PRIu64,
		 k, r->ts_ns, x->ts_ns);
	ft_check(r->ts_ns == x->ts_ns, "a record's timestamp is the file's, in ns", d);
	ft_check(!bytes || r->caplen == 0 || memcmp(r->data, f->p + x->data, r->caplen) == 0,
		 "a record's bytes are the file's", NULL);
}

/* Count a record the reader handed out, against what only a large input holds. */
static void ft_count_rec(struct ft_counts *c, const struct ft_file *f,
			 const struct trace_info *info, const struct trace_rec *r)
{
	bool spb = info->format == TRACE_FMT_PCAPNG && ft_u32(f, r->offset) == FT_NG_SPB;

	c->at_ethernet_max += r->caplen == TRACE_MAX_SNAPLEN;
	c->cut_spb += spb && r->wirelen > TRACE_MAX_SNAPLEN && r->caplen < r->wirelen;
	if (r->caplen <= TRACE_MAX_SNAPLEN)
		return;
	c->big_records++;
	if (info->format != TRACE_FMT_PCAPNG)
		c->big_pcap++;
	else if (spb)
		c->big_spb++;
	else
		c->big_pcapng++;
	switch (info->linktype) {
	case FT_LT_DBUS:
		c->big_dbus++;
		break;
	case FT_LT_USBPCAP:
		c->big_usbpcap++;
		break;
	case FT_LT_EBHSCR:
		c->big_ebhscr++;
		break;
	default:
		ft_check(false, "a record past 262144 is of D-Bus, USBPCAP or EBHSCR", NULL);
	}
}

/* Count a refusal at a limit only these link types have, or at a block limit. */
static void ft_count_refusal(struct ft_counts *c, const struct trace_err *e)
{
	const char *p = strstr(e->msg, " exceeds snaplen ");
	char lim[32];

	if (p && strtoul(p + strlen(" exceeds snaplen "), NULL, 10) > TRACE_MAX_SNAPLEN)
		c->refused_past_large_snaplen++;
	snprintf(lim, sizeof(lim), " exceeds %u at ", (unsigned int)TRACE_MAX_BLOCK);
	c->refused_block_past_16mib += strstr(e->msg, lim) != NULL;
	snprintf(lim, sizeof(lim), " exceeds %u at ", trace_max_block(FT_LT_DBUS));
	c->refused_block_past_dbus_max += strstr(e->msg, lim) != NULL;
}

/* Print an input's counts, "trace.NAME VALUE" a line. */
static void ft_print(const struct ft_counts *c)
{
#define FT_PRINT(name, what) fprintf(stderr, "trace.%s %" PRIu64 "\n", #name, c->name);
	FT_COUNTS(FT_PRINT)
#undef FT_PRINT
}

/* Add an input to ft_inputs under each count it moved. */
static void ft_add_input(const struct ft_counts *c)
{
#define FT_ADD(name, what) ft_inputs.name += c->name != 0;
	FT_COUNTS(FT_ADD)
#undef FT_ADD
}

/* At exit: "fuzz_trace: reached NAME in N inputs" for each count (fuzz.sh shows them). */
static void ft_print_inputs(void)
{
#define FT_TOTAL(name, what) \
	fprintf(stderr, "fuzz_trace: reached %s in %" PRIu64 " inputs\n", #name, ft_inputs.name);
	FT_COUNTS(FT_TOTAL)
#undef FT_TOTAL
}

/* Stream every record of an accepted file, check each one and count it. */
static void ft_check_stream(const struct ft_file *f, const struct trace_info *info,
			    struct ft_counts *c)
{
	bool bytes = !ft_bytes_rewritten(info);
	struct trace_err e = { 0 };
	struct trace_reader *r = trace_reader_open(ft_path, &e);
	uint64_t k = 0, cap = 0, wire = 0;
	struct trace_rec rec;
	int rc;

	ft_check(r != NULL, "the streaming reader opens an accepted file", e.msg);
	ft_check(ft_same_info(trace_reader_info(r), info),
		 "the streaming reader's info is validation's", NULL);
	while ((rc = trace_reader_next(r, &rec, &e)) == 1) {
		ft_check(k < f->n, "no more records than the file holds", NULL);
		ft_check_rec(f, info, k, &rec, bytes);
		ft_count_rec(c, f, info, &rec);
		cap += rec.caplen;
		wire += rec.wirelen;
		k++;
	}
	ft_check(rc == 0, "an accepted file is read to its end", e.msg);
	ft_check(k == f->n && k == info->records, "records read == trace_info.records", NULL);
	ft_check(cap == info->cap_bytes, "captured lengths sum to cap_bytes", NULL);
	ft_check(wire == info->wire_bytes, "wire lengths sum to wire_bytes", NULL);
	ft_check(trace_reader_next(r, &rec, &e) == 0, "the reader stays at the end", e.msg);
	trace_reader_close(r);
}

/* Load an accepted file and check it holds the same records. */
static void ft_check_load(const struct ft_file *f, const struct trace_info *info)
{
	bool bytes = !ft_bytes_rewritten(info);
	struct trace_err e = { 0 };
	struct trace *t = trace_load(ft_path, &e);
	uint64_t back = 0;

	ft_check(t != NULL, "the loader loads an accepted file", e.msg);
	ft_check(ft_same_info(&t->info, info), "the loader's info is validation's", NULL);
	ft_check(t->n == f->n, "the loader holds every record", NULL);
	for (uint64_t k = 0; k < t->n; k++) {
		ft_check_rec(f, info, k, &t->recs[k], bytes);
		back += k > 0 && t->recs[k].ts_ns < t->recs[k - 1].ts_ns;
	}
	ft_check(t->ts_backwards == back, "ts_backwards counts records earlier than the one before",
		 NULL);
	trace_free(t);
}

/* An accepted file: its info, then every record by both readers. */
static void ft_check_accepted(const uint8_t *data, size_t size, const struct trace_info *info,
			      struct ft_counts *c)
{
	struct ft_file f = { 0 };

	f.p = data;
	f.size = size;
	ft_check(info->file_size == size, "file_size is the file's size", NULL);
	ft_check(info->snaplen >= 1 && info->snaplen <= trace_max_snaplen(info->linktype),
		 "snaplen is 1 .. the link type's trace_max_snaplen()", NULL);
	f.recs = calloc(size / 12 + 1, sizeof(*f.recs));
	f.ifaces = calloc(size / FT_NG_IDB_MIN + 1, sizeof(*f.ifaces));
	ft_check(f.recs != NULL && f.ifaces != NULL, "memory for the records", NULL);
	if (info->format == TRACE_FMT_PCAPNG) {
		ft_check(size >= 28 && memcmp(data, "\x0a\x0d\x0d\x0a", 4) == 0,
			 "a pcapng file starts with a section header block", NULL);
		f.big = data[8] == 0x1a;
		ft_walk_ng(&f, info->snaplen);
	} else {
		ft_check(size >= FT_PCAP_HDR, "a pcap file has its header", NULL);
		f.big = data[0] == 0xa1;
		ft_check((ft_u32(&f, 0) == 0xa1b23c4d) == (info->format == TRACE_FMT_PCAP_NS),
			 "the format is the magic's", NULL);
		ft_walk_pcap(&f, info->format == TRACE_FMT_PCAP_NS);
	}
	ft_check(f.big == (info->swapped == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)),
		 "swapped is the file's byte order against the host's", NULL);
	ft_check(f.n == info->records, "validation counts the records the file holds", NULL);
	ft_check_stream(&f, info, c);
	ft_check_load(&f, info);
	free(f.recs);
	free(f.ifaces);
}

/* Write the input to the memfd the reader opens; created at the first input. */
static void ft_write(const uint8_t *data, size_t size)
{
	if (ft_fd < 0) {
		ft_print_counts = getenv("SEGNET_FUZZ_COUNTERS") != NULL;
		if (getenv("SEGNET_FUZZ_TOTALS"))
			ft_check(atexit(ft_print_inputs) == 0, "atexit", NULL);
		ft_fd = memfd_create("fuzz_trace", MFD_CLOEXEC);
		ft_check(ft_fd >= 0, "memfd_create", strerror(errno));
		snprintf(ft_path, sizeof(ft_path), "/proc/self/fd/%d", ft_fd);
	}
	ft_check(ftruncate(ft_fd, 0) == 0, "ftruncate", strerror(errno));
	ft_check(size == 0 || pwrite(ft_fd, data, size, 0) == (ssize_t)size, "pwrite",
		 strerror(errno));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_counts c = { 0 };
	struct trace_info info;
	struct trace_err e = { 0 };
	int rc;

	ft_write(data, size);
	rc = trace_validate(ft_path, &info, &e);
	if (rc) {
		ft_check_refusal(rc, &e, size);
		ft_check_refused_alike(rc, &e);
		ft_count_refusal(&c, &e);
	} else {
		ft_check_accepted(data, size, &info, &c);
	}
	if (ft_print_counts)
		ft_print(&c);
	ft_add_input(&c);
	return 0;
}
