/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reader: what depends on a trace's link type. The largest record
 * (libpcap's max_snaplen_for_dlt: 262144, but 128 MiB for D-Bus, 1 MiB for
 * USBPCAP, 8 MiB for EBHSCR) and the pcapng block limit that follows it,
 * on files made in the test with fixed content (records of up to 128 MiB
 * are written as sparse files: their first and last 16 bytes, a hole
 * between).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <unistd.h>

#include "test_pcap_util.h"

/* Bytes written at each end of a large record; the rest is a hole. */
enum { BIG_END = 16 };

/* Offsets of the one record: after the pcap file header, or after SHB + IDB. */
enum { PCAP_REC_OFF = 24, NG_REC_OFF = 48 };

/* Link types whose largest record is not 262144, and Ethernet's. */
static const struct {
	/* link type */
	uint16_t lt;
	/* its largest record, libpcap's max_snaplen_for_dlt */
	uint32_t max;
} maxima[] = {
	{ 1, 262144 },		/* Ethernet, as most link types */
	{ 231, 128u << 20 },	/* D-Bus */
	{ 249, 1u << 20 },	/* USBPCAP */
	{ 279, 8u << 20 },	/* EBHSCR */
};

/* Byte k of the first (tail 0) or last (tail 1) BIG_END bytes of a large record. */
static uint8_t big_byte(int tail, unsigned int k)
{
	return (uint8_t)((tail ? 0xc0 : 0xa0) + k);
}

/* Write b at byte off of the file at path (past its end: a hole before it). */
static void put_at(const char *path, uint64_t off, const struct tbuf *b)
{
	int fd = open(path, O_WRONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, b->p, b->len, (off_t)off), (ssize_t)b->len);
	cr_assert_eq(close(fd), 0);
}

/* Save head, then hole bytes of zeros (no disk used), then tail, as a new scratch file. */
static char *save_sparse(const struct tbuf *head, uint64_t hole, const struct tbuf *tail)
{
	char *p = tbuf_save(head, head->len, "big");

	put_at(p, head->len + hole, tail);
	return p;
}

/* Append a pcapng SHB and an IDB of link type lt and snaplen snap. */
static void ng_head(struct tbuf *b, uint16_t lt, uint32_t snap)
{
	struct tbuf body = { 0 };

	ng_shb(b, 0);
	tbuf_put16(&body, lt, 0);
	tbuf_put16(&body, 0, 0);
	tbuf_put32(&body, snap, 0);
	ng_block(b, 1, &body, 0);
	free(body.p);
}

/* Append a classic pcap file header (microseconds) of link type lt and snaplen snap. */
static void pcap_head(struct tbuf *b, uint32_t lt, uint32_t snap, int big)
{
	tbuf_put32(b, 0xa1b2c3d4, big);
	tbuf_put16(b, 2, big);
	tbuf_put16(b, 4, big);
	tbuf_put32(b, 0, big);
	tbuf_put32(b, 0, big);
	tbuf_put32(b, snap, big);
	tbuf_put32(b, lt, big);
}

/*
 * A little-endian file (pcap, or pcapng with ng) of link type lt, snaplen
 * snap, holding one record of n >= 2 * BIG_END bytes: BIG_END bytes of
 * big_byte(0, k), zeros, BIG_END bytes of big_byte(1, k). An EPB's block
 * also holds room zeros (a multiple of 4) after the padded record.
 * Returns its path.
 */
static char *big_record_file(int ng, uint16_t lt, uint32_t snap, uint32_t n, uint32_t room)
{
	uint32_t total = 32 + ((n + 3) & ~3u) + room;
	struct tbuf head = { 0 }, tail = { 0 }, trailer = { 0 };
	static const uint8_t zero[4];
	char *p;

	if (ng) {
		ng_head(&head, lt, snap);
		tbuf_put32(&head, 6, 0);
		tbuf_put32(&head, total, 0);
		tbuf_put32(&head, 0, 0);		/* interface */
		tbuf_put32(&head, 0, 0);		/* timestamp */
		tbuf_put32(&head, 1000000, 0);
	} else {
		pcap_head(&head, lt, snap, 0);
		tbuf_put32(&head, 1700000000, 0);
		tbuf_put32(&head, 0, 0);
	}
	tbuf_put32(&head, n, 0);
	tbuf_put32(&head, n, 0);
	for (unsigned int k = 0; k < BIG_END; k++) {
		tbuf_put(&head, &(uint8_t){ big_byte(0, k) }, 1);
		tbuf_put(&tail, &(uint8_t){ big_byte(1, k) }, 1);
	}
	if (ng)
		tbuf_put(&tail, zero, (4 - n % 4) % 4);
	p = save_sparse(&head, n - 2 * BIG_END, &tail);
	if (ng) {
		/* the room is a hole before the trailing length */
		tbuf_put32(&trailer, total, 0);
		put_at(p, NG_REC_OFF + (uint64_t)total - 4, &trailer);
	}
	free(head.p);
	free(tail.p);
	free(trailer.p);
	return p;
}

/* The record of big_record_file(ng, lt, snap, n, 0): read whole, its bytes as written. */
static void check_big_record(int ng, uint16_t lt, uint32_t snap, uint32_t n)
{
	char *p = big_record_file(ng, lt, snap, n, 0);
	struct trace *t = load_ok(p);
	const uint8_t *d = t->recs[0].data;

	cr_assert_eq(t->n, 1);
	cr_assert_eq(t->recs[0].caplen, n, "link type %u: caplen %u", lt, t->recs[0].caplen);
	cr_assert_eq(t->recs[0].wirelen, n);
	cr_assert_eq(t->recs[0].offset, ng ? NG_REC_OFF : PCAP_REC_OFF);
	for (unsigned int k = 0; k < BIG_END; k++) {
		cr_assert_eq(d[k], big_byte(0, k));
		cr_assert_eq(d[n - BIG_END + k], big_byte(1, k));
	}
	cr_assert_eq(d[n / 2], 0);
	trace_free(t);
	scratch_drop(p);
}

/*
 * A record as large as its link type allows is read, in pcap and pcapng
 * (snaplen 0: the link type's maximum). Before, anything past 262144 was
 * refused, "caplen 1048576 exceeds snaplen 262144", where libpcap reads
 * up to 128 MiB (D-Bus), 1 MiB (USBPCAP), 8 MiB (EBHSCR).
 */
Test(linktype, records_up_to_the_link_types_maximum_are_read, .timeout = 60)
{
	for (size_t i = 0; i < sizeof(maxima) / sizeof(maxima[0]); i++)
		for (int ng = 0; ng < 2; ng++)
			check_big_record(ng, maxima[i].lt, 0, maxima[i].max);
}

/* One byte more than the link type's maximum is refused at its record, the file whole. */
Test(linktype, one_byte_over_the_maximum_is_refused_at_its_record, .timeout = 60)
{
	char what[96];

	for (size_t i = 0; i < sizeof(maxima) / sizeof(maxima[0]); i++) {
		uint32_t max = maxima[i].max;

		snprintf(what, sizeof(what), "caplen %u exceeds snaplen %u", max + 1, max);
		for (int ng = 0; ng < 2; ng++) {
			char *p = big_record_file(ng, maxima[i].lt, 0, max + 1, 0);
			char *msg = at(what, ng ? NG_REC_OFF : PCAP_REC_OFF, 0);

			assert_refused(p, -EBADMSG, ng ? NG_REC_OFF : PCAP_REC_OFF, 0, msg);
			free(msg);
			scratch_drop(p);
		}
	}
}

/* trace_max_snaplen() says each link type's maximum. */
Test(linktype, largest_record_per_link_type)
{
	for (size_t i = 0; i < sizeof(maxima) / sizeof(maxima[0]); i++)
		cr_assert_eq(trace_max_snaplen(maxima[i].lt), maxima[i].max);
	cr_assert_eq(trace_max_snaplen(101), TRACE_MAX_SNAPLEN);
	cr_assert_eq(trace_max_snaplen(220), TRACE_MAX_SNAPLEN);
}

/*
 * The snaplen in force is the file's, 0 and values above the link type's
 * maximum meaning the maximum (D-Bus's 0 was taken as 262144); a record
 * above it is refused, however small for the link type.
 */
Test(linktype, snaplen_in_force_is_the_files_up_to_the_maximum)
{
	static const struct { uint16_t lt; uint32_t snap, want; } rows[] = {
		{ 231, 0, 128u << 20 }, { 231, 65535, 65535 }, { 231, 200u << 20, 128u << 20 },
		{ 231, UINT32_MAX, 128u << 20 }, { 249, 0, 1u << 20 }, { 279, 300000, 300000 },
		{ 1, 0, 262144 }, { 1, 300000, 262144 },
	};
	struct trace_info info;
	struct trace_err e = { 0 };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		for (int ng = 0; ng < 2; ng++) {
			struct tbuf b = { 0 };
			char *p;

			if (ng)
				ng_head(&b, rows[i].lt, rows[i].snap);
			else
				pcap_head(&b, rows[i].lt, rows[i].snap, 0);
			p = tbuf_save(&b, b.len, "snap");
			cr_assert_eq(trace_validate(p, &info, &e), 0, "%s", e.msg);
			cr_assert_eq(info.snaplen, rows[i].want, "link type %u, snaplen %u%s: %u",
				     rows[i].lt, rows[i].snap, ng ? " (pcapng)" : "", info.snaplen);
			scratch_drop(p);
			free(b.p);
		}
	}
	/* D-Bus, snaplen 65535: a 70000-byte record is refused */
	for (int ng = 0; ng < 2; ng++) {
		char *p = big_record_file(ng, 231, 65535, 70000, 0);
		char *msg = at("caplen 70000 exceeds snaplen 65535", ng ? NG_REC_OFF : PCAP_REC_OFF, 0);

		assert_refused(p, -EBADMSG, ng ? NG_REC_OFF : PCAP_REC_OFF, 0, msg);
		free(msg);
		scratch_drop(p);
	}
}

/*
 * A record header that claims a large record whose bytes the file does
 * not hold is refused by the walk, before libpcap reads (and sizes a
 * buffer for) anything: a 100-byte file cannot make the reader allocate
 * 128 MiB.
 */
Test(linktype, a_large_record_the_file_does_not_hold_is_refused_before_reading)
{
	struct tbuf b = { 0 };

	pcap_head(&b, 231, 0, 0);
	tbuf_put32(&b, 1700000000, 0);
	tbuf_put32(&b, 0, 0);
	tbuf_put32(&b, 128u << 20, 0);
	tbuf_put32(&b, 128u << 20, 0);
	for (int k = 0; k < 60; k++)
		tbuf_put(&b, &(uint8_t){ (uint8_t)k }, 1);
	refuse(&b, b.len, -EBADMSG, PCAP_REC_OFF, 0,
	       "truncated record data (caplen 134217728, 60 bytes left)");
	free(b.p);
	b = (struct tbuf){ 0 };
	ng_head(&b, 231, 0);
	tbuf_put32(&b, 6, 0);
	tbuf_put32(&b, 32 + (128u << 20), 0);
	for (int k = 0; k < 60; k++)
		tbuf_put(&b, &(uint8_t){ (uint8_t)k }, 1);
	refuse(&b, b.len, -EBADMSG, NG_REC_OFF, 0,
	       "truncated block (total length 134217760, 68 bytes left)");
	free(b.p);
}

/* A pcapng file: SHB, then a block of type 0xbad and total length len, then an IDB of lt. */
static char *custom_block_first(uint16_t lt, uint32_t len)
{
	struct tbuf head = { 0 }, tail = { 0 }, body = { 0 };
	char *p;

	ng_shb(&head, 0);
	tbuf_put32(&head, 0xbad, 0);
	tbuf_put32(&head, len, 0);
	tbuf_put32(&tail, len, 0);
	tbuf_put16(&body, lt, 0);
	tbuf_put16(&body, 0, 0);
	tbuf_put32(&body, 0, 0);
	ng_block(&tail, 1, &body, 0);
	p = save_sparse(&head, len - 12, &tail);
	free(head.p);
	free(tail.p);
	free(body.p);
	return p;
}

/*
 * The largest pcapng block is libpcap's: 16 MiB, raised after the first
 * interface block to hold a record of its link type's maximum and 128 KiB
 * of options (MAX_BLOCKSIZE_FOR_SNAPLEN: 128 MiB + 131104 bytes for D-Bus;
 * the other link types stay at 16 MiB). Before, every block past 16 MiB
 * was refused, so no D-Bus record past 16 MiB - 32 bytes was read.
 */
Test(linktype, pcapng_block_limit_follows_the_first_interfaces_link_type, .timeout = 60)
{
	const uint32_t dbus_max = (128u << 20) + 131104;
	struct trace *t;
	char *p, *msg, what[96];

	/* D-Bus: a block of caplen 64 and the largest room, read; 4 bytes more refused */
	p = big_record_file(1, 231, 0, 64, dbus_max - 32 - 64);
	t = load_ok(p);
	cr_assert_eq(t->n, 1);
	cr_assert_eq(t->recs[0].caplen, 64);
	cr_assert_eq(t->recs[0].data[63], big_byte(1, BIG_END - 1));
	trace_free(t);
	scratch_drop(p);
	p = big_record_file(1, 231, 0, 64, dbus_max - 32 - 64 + 4);
	snprintf(what, sizeof(what), "block total length %u exceeds %u", dbus_max + 4, dbus_max);
	msg = at(what, NG_REC_OFF, 0);
	assert_refused(p, -EBADMSG, NG_REC_OFF, 0, msg);
	free(msg);
	scratch_drop(p);
	/* Ethernet: 16 MiB after the interface too */
	p = big_record_file(1, 1, 0, 64, (16u << 20) - 32 - 64 + 4);
	msg = at("block total length 16777220 exceeds 16777216", NG_REC_OFF, 0);
	assert_refused(p, -EBADMSG, NG_REC_OFF, 0, msg);
	free(msg);
	scratch_drop(p);
	/* before the first interface block, 16 MiB whatever the link type */
	p = custom_block_first(231, (16u << 20) + 4);
	msg = at("block total length 16777220 exceeds 16777216", 28, -1);
	assert_refused(p, -EBADMSG, 28, -1, msg);
	free(msg);
	scratch_drop(p);
	p = custom_block_first(231, 16u << 20);
	cr_assert_eq(trace_validate(p, NULL, NULL), 0);
	scratch_drop(p);
}
