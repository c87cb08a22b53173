/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Trace reader: pcap (microsecond and nanosecond, either byte order) and
 * pcapng files through libpcap, every timestamp in nanoseconds, every record
 * with its byte offset in the file. A validation walk over the record
 * headers (or pcapng blocks) runs before any record is handed out, so a
 * truncated or corrupt file is rejected as a whole, with an error that names
 * the byte offset. doc/replay.md lists the rules and the messages.
 */
#ifndef SEGNET_PCAP_READER_H
#define SEGNET_PCAP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits of what the reader accepts. */
enum {
	TRACE_MAX_SNAPLEN = 262144,	/* libpcap's largest record for most link types */
	TRACE_MAX_BLOCK = 16 << 20,	/* largest pcapng block libpcap reads (more after a D-Bus interface) */
	TRACE_ERR_LEN = 512,		/* size of trace_err.msg */
};

/* File formats the reader knows. */
enum trace_format {
	TRACE_FMT_PCAP_US,	/* classic pcap, microsecond timestamps */
	TRACE_FMT_PCAP_NS,	/* classic pcap, nanosecond timestamps */
	TRACE_FMT_PCAPNG,	/* pcapng */
};

/* Why a file was refused, and where. */
struct trace_err {
	/* the negative errno the call returned (0: no error) */
	int code;
	/* byte offset of the header or block at fault; -1 when none */
	int64_t offset;
	/* index of the record at fault; -1 when not a record */
	int64_t record;
	/* "<path>: <what> at byte offset <n> (record <k>)" */
	char msg[TRACE_ERR_LEN];
};

/* What the validation walk learned about a file. */
struct trace_info {
	/* container format */
	enum trace_format format;
	/* file byte order is the opposite of the host's */
	bool swapped;
	/* link-layer type (LINKTYPE_ value; 1 is Ethernet) */
	uint32_t linktype;
	/* snapshot length in force: the file's, 0 and larger values meaning trace_max_snaplen() */
	uint32_t snaplen;
	/* number of packet records */
	uint64_t records;
	/* sum of captured lengths */
	uint64_t cap_bytes;
	/* sum of lengths on the wire */
	uint64_t wire_bytes;
	/* size of the file in bytes */
	uint64_t file_size;
};

/* One packet record. */
struct trace_rec {
	/* capture time, nanoseconds since the Unix epoch */
	uint64_t ts_ns;
	/* bytes captured: the length of data */
	uint32_t caplen;
	/* length of the packet on the wire */
	uint32_t wirelen;
	/* the captured bytes (lifetime: see the function that filled it) */
	const uint8_t *data;
	/* 0-based position of the record among the file's packet records */
	uint64_t index;
	/* byte offset of the record header (pcap) or packet block (pcapng) */
	uint64_t offset;
};

/* A whole trace in memory, validated, ready to replay any number of times. */
struct trace {
	/* what the validation walk found */
	struct trace_info info;
	/* number of records (info.records) */
	uint64_t n;
	/* the records; their data points into the data block below */
	struct trace_rec *recs;
	/* every record's bytes, back to back */
	uint8_t *data;
	/* records whose timestamp is earlier than their predecessor's */
	uint64_t ts_backwards;
};

/* Streaming reader; opaque. */
struct trace_reader;

/* Human name of a format ("pcap (us)", "pcap (ns)", "pcapng"). */
const char *trace_format_name(enum trace_format f);

/*
 * Largest record the reader (and libpcap) reads of a link type:
 * TRACE_MAX_SNAPLEN, but 128 MiB for D-Bus (231), 1 MiB for USBPCAP (249)
 * and 8 MiB for EBHSCR (279).
 */
uint32_t trace_max_snaplen(uint32_t linktype);

/*
 * Largest pcapng block the reader (and libpcap, MAX_BLOCKSIZE_FOR_SNAPLEN)
 * reads after an interface block of a link type: room for a record of
 * trace_max_snaplen with its fields and 128 KiB of options, and never
 * less than TRACE_MAX_BLOCK (more only for D-Bus).
 */
uint32_t trace_max_block(uint32_t linktype);

/*
 * A link type for messages, into buf (len bytes; returned): its number
 * and libpcap's name and description of it, "231 (DBUS, D-Bus)", or
 * "65000 (no name in libpcap)" for a number libpcap does not know
 * ("147 (USER0, private use)" for 147 .. 162, which it does not name).
 * Link types 100-103 and 106 are named as libpcap reads them (101: RAW).
 */
const char *trace_linktype_str(uint32_t linktype, char *buf, size_t len);

/*
 * Walk a whole file's structure without handing out records.
 * Returns 0 and fills info (may be NULL), or -errno and fills err (may be
 * NULL): -EBADMSG corrupt or truncated, -ENOTSUP valid but unsupported,
 * other values from open/read.
 */
int trace_validate(const char *path, struct trace_info *info,
		   struct trace_err *err);

/*
 * Validate path, then open it for reading record by record.
 * Returns NULL with errno set and err filled when the file is refused.
 */
struct trace_reader *trace_reader_open(const char *path, struct trace_err *err);

/* What the validation walk found; valid for the reader's lifetime. */
const struct trace_info *trace_reader_info(const struct trace_reader *r);

/*
 * Next record: 1 and rec filled, 0 at the end, or -errno with err filled.
 * rec->data is valid until the next call or trace_reader_close().
 */
int trace_reader_next(struct trace_reader *r, struct trace_rec *rec,
		      struct trace_err *err);

/* Close a reader; NULL is allowed. */
void trace_reader_close(struct trace_reader *r);

/*
 * Validate path and read every record into memory. Returns NULL with errno
 * set and err filled if anything is wrong: no partial trace is returned.
 */
struct trace *trace_load(const char *path, struct trace_err *err);

/* Free a loaded trace; NULL is allowed. */
void trace_free(struct trace *t);

#endif /* SEGNET_PCAP_READER_H */
