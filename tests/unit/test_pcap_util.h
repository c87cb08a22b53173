/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the pcap tests: scratch files, byte patching, and writers of
 * the variants the reader must accept (big-endian pcap, pcapng in either
 * byte order) made from a loaded trace, so no extra capture is committed.
 */
#ifndef SEGNET_TEST_PCAP_UTIL_H
#define SEGNET_TEST_PCAP_UTIL_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcap/reader.h"

/* A file's bytes in memory. */
struct tbuf {
	/* the bytes */
	uint8_t *p;
	/* how many */
	size_t len;
	/* allocated */
	size_t cap;
};

/* Append n bytes to b; p must not point into b (aborts when out of memory). */
static inline void tbuf_put(struct tbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (b->p == NULL)
			abort();
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* Append a 16-bit value in big or little endian. */
static inline void tbuf_put16(struct tbuf *b, uint32_t v, int big)
{
	uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	if (big) {
		x[0] = (uint8_t)(v >> 8);
		x[1] = (uint8_t)v;
	}
	tbuf_put(b, x, 2);
}

/* Append a 32-bit value in big or little endian. */
static inline void tbuf_put32(struct tbuf *b, uint32_t v, int big)
{
	tbuf_put16(b, big ? v >> 16 : v & 0xffff, big);
	tbuf_put16(b, big ? v & 0xffff : v >> 16, big);
}

/* Overwrite a 32-bit value at off, in big or little endian. */
static inline void tbuf_set32(struct tbuf *b, size_t off, uint32_t v, int big)
{
	size_t len = b->len;

	b->len = off;
	tbuf_put32(b, v, big);
	b->len = len;
}

/* Read a whole file. */
static inline struct tbuf tbuf_load(const char *path)
{
	struct tbuf b = { 0 };
	uint8_t chunk[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		abort();
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		tbuf_put(&b, chunk, n);
	fclose(f);
	return b;
}

/* Write the first len bytes of b to a new scratch file; returns its path. */
static inline char *tbuf_save(const struct tbuf *b, size_t len, const char *tag)
{
	char *path;
	FILE *f;
	int fd;

	if (asprintf(&path, "%s/%sXXXXXX", SEGNET_TEST_TMPDIR, tag) < 0)
		abort();
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	f = fdopen(fd, "wb");
	if (f == NULL || (len > 0 && fwrite(b->p, 1, len, f) != len) || fclose(f) != 0)
		abort();
	return path;
}

/* Remove a scratch file and free its path. */
static inline void scratch_drop(char *path)
{
	unlink(path);
	free(path);
}

/* Classic pcap of t in big-endian byte order (the magic says which precision). */
static inline struct tbuf make_pcap_be(const struct trace *t)
{
	int ns = t->info.format == TRACE_FMT_PCAP_NS;
	uint32_t div = ns ? 1 : 1000;
	struct tbuf b = { 0 };

	tbuf_put32(&b, ns ? 0xa1b23c4d : 0xa1b2c3d4, 1);
	tbuf_put16(&b, 2, 1);
	tbuf_put16(&b, 4, 1);
	tbuf_put32(&b, 0, 1);
	tbuf_put32(&b, 0, 1);
	tbuf_put32(&b, t->info.snaplen, 1);
	tbuf_put32(&b, t->info.linktype, 1);
	for (uint64_t k = 0; k < t->n; k++) {
		const struct trace_rec *r = &t->recs[k];

		tbuf_put32(&b, (uint32_t)(r->ts_ns / 1000000000u), 1);
		tbuf_put32(&b, (uint32_t)(r->ts_ns % 1000000000u / div), 1);
		tbuf_put32(&b, r->caplen, 1);
		tbuf_put32(&b, r->wirelen, 1);
		tbuf_put(&b, r->data, r->caplen);
	}
	return b;
}

/* Append one pcapng block: type, body, padding, trailing length. */
static inline void ng_block(struct tbuf *b, uint32_t type, const struct tbuf *body, int big)
{
	static const uint8_t zero[4];
	size_t pad = (4 - body->len % 4) % 4;
	uint32_t total = (uint32_t)(12 + body->len + pad);

	tbuf_put32(b, type, big);
	tbuf_put32(b, total, big);
	tbuf_put(b, body->p, body->len);
	tbuf_put(b, zero, pad);
	tbuf_put32(b, total, big);
}

/* Append a section header block: version 1.0, section length unknown. */
static inline void ng_shb(struct tbuf *b, int big)
{
	struct tbuf body = { 0 };

	tbuf_put32(&body, 0x1a2b3c4d, big);
	tbuf_put16(&body, 1, big);
	tbuf_put16(&body, 0, big);
	tbuf_put32(&body, 0xffffffff, big);
	tbuf_put32(&body, 0xffffffff, big);
	ng_block(b, 0x0a0d0d0a, &body, big);
	free(body.p);
}

/*
 * pcapng of t: one SHB, one IDB with if_tsresol = 9 (ns), one EPB per
 * record. offsets (t->n entries, may be NULL) receives each EPB's offset.
 */
static inline struct tbuf make_pcapng(const struct trace *t, int big, uint64_t *offsets)
{
	struct tbuf b = { 0 }, body = { 0 };
	static const uint8_t tsresol[4] = { 9 };

	ng_shb(&b, big);
	tbuf_put16(&body, t->info.linktype, big);
	tbuf_put16(&body, 0, big);
	tbuf_put32(&body, t->info.snaplen, big);
	tbuf_put16(&body, 9, big);
	tbuf_put16(&body, 1, big);
	tbuf_put(&body, tsresol, 4);
	tbuf_put32(&body, 0, big);
	ng_block(&b, 1, &body, big);
	for (uint64_t k = 0; k < t->n; k++) {
		const struct trace_rec *r = &t->recs[k];

		if (offsets != NULL)
			offsets[k] = b.len;
		body.len = 0;
		tbuf_put32(&body, 0, big);
		tbuf_put32(&body, (uint32_t)(r->ts_ns >> 32), big);
		tbuf_put32(&body, (uint32_t)r->ts_ns, big);
		tbuf_put32(&body, r->caplen, big);
		tbuf_put32(&body, r->wirelen, big);
		tbuf_put(&body, r->data, r->caplen);
		ng_block(&b, 6, &body, big);
	}
	free(body.p);
	return b;
}

/* Loaded trace, or a failed test naming the loader's message. */
static inline struct trace *load_ok(const char *path)
{
	struct trace_err e = { 0 };
	struct trace *t = trace_load(path, &e);

	cr_assert_not_null(t, "load %s: %s", path, e.msg);
	return t;
}

/*
 * path is refused by the validation, the loader and the streaming reader,
 * each with code, the byte offset off, record rec and "<path>: <what>".
 */
static inline void assert_refused(const char *path, int code, int64_t off, int64_t rec,
				  const char *what)
{
	struct trace_err e = { 0 };
	char *want;

	if (asprintf(&want, "%s: %s", path, what) < 0)
		abort();
	cr_assert_eq(trace_validate(path, NULL, &e), code, "validate gave %d: %s", e.code, e.msg);
	cr_assert_eq(e.code, code);
	cr_assert_eq(e.offset, off, "offset %lld, want %lld", (long long)e.offset, (long long)off);
	cr_assert_eq(e.record, rec, "record %lld, want %lld", (long long)e.record, (long long)rec);
	cr_assert_str_eq(e.msg, want);
	memset(&e, 0, sizeof(e));
	errno = 0;
	cr_assert_null(trace_load(path, &e), "the loader must return no records");
	cr_assert_eq(errno, -code);
	cr_assert_str_eq(e.msg, want);
	memset(&e, 0, sizeof(e));
	cr_assert_null(trace_reader_open(path, &e));
	cr_assert_str_eq(e.msg, want);
	free(want);
}

/* Refusal message "<what> at byte offset <off>[ (record <rec>)]" for assert_refused. */
static inline char *at(const char *what, uint64_t off, int64_t rec)
{
	char *s;
	int n;

	if (rec >= 0)
		n = asprintf(&s, "%s at byte offset %" PRIu64 " (record %" PRId64 ")", what, off, rec);
	else
		n = asprintf(&s, "%s at byte offset %" PRIu64, what, off);
	if (n < 0)
		abort();
	return s;
}

/* Save b as a scratch file and check it is refused as described. */
static inline void refuse(const struct tbuf *b, size_t len, int code, uint64_t off, int64_t rec,
		   const char *what)
{
	char *p = tbuf_save(b, len, "bad");
	char *msg = at(what, off, rec);

	assert_refused(p, code, (int64_t)off, rec, msg);
	free(msg);
	scratch_drop(p);
}

/* Two traces hold the same records: timestamps, lengths, bytes. */
static inline int same_records(const struct trace *a, const struct trace *b)
{
	if (a->n != b->n)
		return 0;
	for (uint64_t k = 0; k < a->n; k++) {
		const struct trace_rec *x = &a->recs[k], *y = &b->recs[k];

		if (x->ts_ns != y->ts_ns || x->caplen != y->caplen ||
		    x->wirelen != y->wirelen || memcmp(x->data, y->data, x->caplen))
			return 0;
	}
	return 1;
}

#endif /* SEGNET_TEST_PCAP_UTIL_H */
