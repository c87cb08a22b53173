/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reader: what depends on a trace's link type. The largest record
 * (libpcap's max_snaplen_for_dlt: 262144, but 128 MiB for D-Bus, 1 MiB for
 * USBPCAP, 8 MiB for EBHSCR) and the pcapng block limit that follows it,
 * on files made in the test with fixed content (records of up to 128 MiB
 * are written as sparse files: their first and last 16 bytes, a hole
 * between); and the pseudo-headers libpcap rewrites in a file of the
 * other byte order, which reach the user as tcpdump and tshark show them.
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

	cr_assert_eq(trace_max_block(231), dbus_max);
	cr_assert_eq(trace_max_block(249), TRACE_MAX_BLOCK, "USBPCAP: 1 MiB + room stays under 16 MiB");
	cr_assert_eq(trace_max_block(1), TRACE_MAX_BLOCK);
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

/* Append a 64-bit value in big or little endian. */
static void put64(struct tbuf *b, uint64_t v, int big)
{
	tbuf_put32(b, (uint32_t)(big ? v >> 32 : v), big);
	tbuf_put32(b, (uint32_t)(big ? v : v >> 32), big);
}

/* Append n bytes of value v. */
static void put_fill(struct tbuf *b, uint8_t v, size_t n)
{
	while (n--)
		tbuf_put(b, &v, 1);
}

/* Append the 20-byte IPv4 header the pflog and nflog records carry. */
static void put_ipv4(struct tbuf *b)
{
	static const uint8_t ip[20] = { 0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0,
					10, 0, 0, 1, 10, 0, 0, 2 };

	tbuf_put(b, ip, sizeof(ip));
}

/* Append a SocketCAN frame whose CAN id is in the writer's byte order (big). */
static void put_can(struct tbuf *b, uint32_t id, int big)
{
	tbuf_put32(b, id, big);
	tbuf_put(b, (const uint8_t[]){ 8, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7 }, 12);
}

/* Append a Linux USB header (48 bytes; with mmapped, 64 and one iso descriptor). */
static void put_usb(struct tbuf *b, int mmapped, int big)
{
	put64(b, 0x1122334455667788ull, big);		/* URB id */
	tbuf_put(b, (const uint8_t[]){ mmapped ? 'C' : 'S', mmapped ? 0 : 2, 0x81, 2 }, 4);
	tbuf_put16(b, 5, big);				/* bus */
	tbuf_put(b, (const uint8_t[]){ mmapped ? '-' : 0, mmapped ? 0 : '<' }, 2);
	put64(b, 1700000000, big);			/* ts_sec */
	tbuf_put32(b, 123456, big);			/* ts_usec */
	tbuf_put32(b, (uint32_t)-115, big);		/* status */
	tbuf_put32(b, 8, big);				/* urb_len */
	tbuf_put32(b, mmapped ? 8 : 0, big);		/* data_len */
	if (mmapped) {
		tbuf_put32(b, 0, big);			/* iso error_count */
		tbuf_put32(b, 1, big);			/* iso numdesc */
		tbuf_put32(b, 1, big);			/* interval */
		tbuf_put32(b, 77, big);			/* start_frame */
		tbuf_put32(b, 0x200, big);		/* xfer_flags */
		tbuf_put32(b, 1, big);			/* ndesc */
		tbuf_put32(b, (uint32_t)-18, big);	/* descriptor: status */
		tbuf_put32(b, 0, big);			/* offset */
		tbuf_put32(b, 8, big);			/* len */
		tbuf_put32(b, 0, big);			/* padding */
		put_fill(b, 0x5a, 8);
	} else {
		tbuf_put(b, (const uint8_t[]){ 0x80, 6, 0, 1, 0, 0, 64, 0 }, 8);
	}
}

/*
 * A record of link type lt as a host of byte order big writes it: the
 * fields libpcap's swap_pseudo_headers (pcap-util.c, 1.10) converts are in
 * that order, the others as the format fixes them. Fixed content.
 */
static struct tbuf pseudo_record(uint16_t lt, int big)
{
	struct tbuf b = { 0 };

	switch (lt) {
	case 113:	/* Linux SLL, CAN: the CAN id */
		tbuf_put(&b, (const uint8_t[]){ 0, 0, 1, 24, 0, 0 }, 6);
		put_fill(&b, 0, 8);
		tbuf_put16(&b, 0x000c, 1);		/* protocol: CAN */
		put_can(&b, 0x123, big);
		break;
	case 276:	/* Linux SLL2, CAN: the CAN id */
		tbuf_put16(&b, 0x000c, 1);
		tbuf_put(&b, (const uint8_t[]){ 0, 0, 0, 0, 0, 3, 1, 24, 0, 0 }, 10);
		put_fill(&b, 0, 8);
		put_can(&b, 0x80000123, big);
		break;
	case 117:	/* PFLOG: uid, pid, rule_uid, rule_pid */
		tbuf_put(&b, (const uint8_t[]){ 61, 2, 0, 0, 'e', 'm', '0' }, 7);
		put_fill(&b, 0, 29);
		tbuf_put32(&b, 1, 1);			/* rule number */
		tbuf_put32(&b, UINT32_MAX, 1);		/* subrule number */
		tbuf_put32(&b, 1000, big);
		tbuf_put32(&b, 4242, big);
		tbuf_put32(&b, 65534, big);
		tbuf_put32(&b, 77, big);
		tbuf_put(&b, (const uint8_t[]){ 1, 0, 0, 0 }, 4);
		put_ipv4(&b);
		break;
	case 189:	/* Linux USB: the header's multi-byte fields */
	case 220:	/* ... memory-mapped: and the iso descriptors */
		put_usb(&b, lt == 220, big);
		break;
	case 239:	/* NFLOG: each TLV's length and type */
		tbuf_put(&b, (const uint8_t[]){ 2, 0, 0, 0 }, 4);
		tbuf_put16(&b, 8, big);
		tbuf_put16(&b, 1, big);
		tbuf_put(&b, (const uint8_t[]){ 8, 0, 3, 0 }, 4);
		tbuf_put16(&b, 24, big);
		tbuf_put16(&b, 9, big);
		put_ipv4(&b);
		break;
	default:	/* (227, CAN SocketCAN: its id is big endian in every file) */
		put_can(&b, 0x123, 1);
		break;
	}
	return b;
}

/* A file (pcap, or pcapng with ng) in byte order big holding rec, of link type lt. */
static char *one_record_file(int ng, uint16_t lt, const struct tbuf *rec, int big)
{
	struct tbuf b = { 0 }, body = { 0 };
	char *p;

	if (ng) {
		ng_shb(&b, big);
		tbuf_put16(&body, lt, big);
		tbuf_put16(&body, 0, big);
		tbuf_put32(&body, 0, big);
		ng_block(&b, 1, &body, big);
		body.len = 0;
		tbuf_put32(&body, 0, big);		/* interface */
		tbuf_put32(&body, 395812, big);		/* 1.7e15 us, high and low */
		tbuf_put32(&body, (uint32_t)1700000000000000ull, big);
		tbuf_put32(&body, (uint32_t)rec->len, big);
		tbuf_put32(&body, (uint32_t)rec->len, big);
		tbuf_put(&body, rec->p, rec->len);
		ng_block(&b, 6, &body, big);
	} else {
		pcap_head(&b, lt, 65535, big);
		tbuf_put32(&b, 1700000000, big);
		tbuf_put32(&b, 0, big);
		tbuf_put32(&b, (uint32_t)rec->len, big);
		tbuf_put32(&b, (uint32_t)rec->len, big);
		tbuf_put(&b, rec->p, rec->len);
	}
	p = tbuf_save(&b, b.len, "pseudo");
	free(b.p);
	free(body.p);
	return p;
}

/*
 * The six link types whose pseudo-headers hold fields in the writing
 * host's byte order (Linux SLL and SLL2 carrying CAN, PFLOG, Linux USB and
 * its memory-mapped form, NFLOG): in a file of the other byte order the
 * record's bytes are libpcap's, those fields converted to this host's
 * order, so a capture reads the same from a file of either byte order
 * (tcpdump shows libpcap's bytes; tshark -x shows the same, checked for
 * these records with tshark 4.0). A CAN SocketCAN (227) record, whose id
 * is big endian in any file, is read as it is.
 */
Test(linktype, pseudo_headers_of_the_other_byte_order_read_in_this_hosts)
{
	static const uint16_t lts[] = { 113, 117, 189, 220, 239, 276, 227 };
	const int here = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	for (size_t i = 0; i < sizeof(lts) / sizeof(lts[0]); i++) {
		struct tbuf mine = pseudo_record(lts[i], here), other = pseudo_record(lts[i], !here);

		cr_assert_eq(mine.len, other.len);
		cr_assert((memcmp(mine.p, other.p, mine.len) != 0) == (lts[i] != 227));
		for (int ng = 0; ng < 2; ng++) {
			for (int big = 0; big < 2; big++) {
				char *p = one_record_file(ng, lts[i], big == here ? &mine : &other, big);
				struct trace *t = load_ok(p);

				cr_assert_eq(t->info.swapped, big != here);
				cr_assert_eq(t->n, 1);
				cr_assert_eq(t->recs[0].caplen, mine.len);
				cr_assert_eq(memcmp(t->recs[0].data, mine.p, mine.len), 0,
					     "link type %u, %s, %s endian: not this host's bytes", lts[i],
					     ng ? "pcapng" : "pcap", big ? "big" : "little");
				trace_free(t);
				scratch_drop(p);
			}
		}
		free(mine.p);
		free(other.p);
	}
}

/*
 * A link type in messages: its number and libpcap's name and description
 * of the DLT libpcap reads it as (101, raw IP, is DLT 12; 12 in a file is
 * too), the private-use ones libpcap does not name, and a number it has
 * no name for.
 */
Test(linktype, named_as_libpcap_reads_it)
{
	static const struct {
		/* link type */
		uint32_t lt;
		/* what trace_linktype_str() says */
		const char *want;
	} names[] = {
		{ 1, "1 (EN10MB, Ethernet)" },
		{ 231, "231 (DBUS, D-Bus)" },
		{ 249, "249 (USBPCAP, USB with USBPcap header)" },
		{ 101, "101 (RAW, Raw IP)" },
		{ 12, "12 (RAW, Raw IP)" },
		{ 100, "100 (ATM_RFC1483, RFC 1483 LLC-encapsulated ATM)" },
		{ 106, "106 (ATM_CLIP, Linux Classical IP over ATM)" },
		{ 147, "147 (USER0, private use)" },
		{ 162, "162 (USER15, private use)" },
		{ 163, "163 (IEEE802_11_RADIO_AVS, 802.11 plus AVS radio information header)" },
		{ 65535, "65535 (no name in libpcap)" },
	};
	char buf[96];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		cr_expect_str_eq(trace_linktype_str(names[i].lt, buf, sizeof(buf)), names[i].want);
}
