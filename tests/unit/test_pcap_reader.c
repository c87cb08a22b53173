/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reader on the bundled sample (pcap/samples/cluster-udp.pcap) and on
 * variants made from it in the test: big-endian pcap, pcapng in both byte
 * orders and in two sections, and damaged copies, each refused with the
 * exact byte offset. Needs nothing outside the tree.
 *
 * Sample truth from `capinfos -c -a -e -S -d cluster-udp.pcap` and
 * `tshark -r cluster-udp.pcap -T fields -e frame.time_epoch -e frame.cap_len`:
 * 260 packets, data size 109209 bytes, file 113393 bytes, first
 * 1700000000.000000000, last 1700000001.007544463.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_pcap_util.h"

/* Path of the bundled sample. */
static const char sample_path[] = SEGNET_PCAP_SAMPLES "/cluster-udp.pcap";

/* Records in the sample. */
enum { SAMPLE_N = 260 };

Test(reader, sample_exact)
{
	struct trace *t = load_ok(sample_path);

	cr_assert_eq(t->n, SAMPLE_N);
	cr_assert_eq(t->info.format, TRACE_FMT_PCAP_NS);
	cr_assert_eq(t->info.cap_bytes, 109209);
	cr_assert_eq(t->info.file_size, 113393);
	cr_assert_eq(t->recs[0].ts_ns, 1700000000000000000ull);
	cr_assert_eq(t->recs[SAMPLE_N - 1].ts_ns, 1700000001007544463ull);
	cr_assert_eq(t->recs[0].offset, 24);
	for (uint64_t k = 1; k < t->n; k++)
		cr_assert_eq(t->recs[k].offset, t->recs[k - 1].offset + 16 + t->recs[k - 1].caplen);
	cr_assert_eq(t->recs[SAMPLE_N - 1].offset + 16 + t->recs[SAMPLE_N - 1].caplen,
		     t->info.file_size);
	trace_free(t);
}

Test(reader, format_names)
{
	cr_assert_str_eq(trace_format_name(TRACE_FMT_PCAP_US), "pcap (us)");
	cr_assert_str_eq(trace_format_name(TRACE_FMT_PCAP_NS), "pcap (ns)");
	cr_assert_str_eq(trace_format_name(TRACE_FMT_PCAPNG), "pcapng");
}

Test(reader, missing_file)
{
	struct trace_err e = { 0 };
	const char *p = SEGNET_TEST_TMPDIR "/no-such-file.pcap";

	cr_assert_eq(trace_validate(p, NULL, &e), -ENOENT);
	cr_assert_eq(e.offset, -1);
	cr_assert_str_eq(e.msg, SEGNET_TEST_TMPDIR "/no-such-file.pcap: cannot open: "
			 "No such file or directory");
	errno = 0;
	cr_assert_null(trace_load(p, NULL));
	cr_assert_eq(errno, ENOENT);
}

/* A FIFO with no writer is refused at once (it used to block in fopen). */
Test(reader, fifo_is_refused_without_waiting, .timeout = 10)
{
	struct trace_err e = { 0 };
	char *p;

	cr_assert_geq(asprintf(&p, "%s/fifo-%d.pcap", SEGNET_TEST_TMPDIR, (int)getpid()), 0);
	unlink(p);
	cr_assert_eq(mkfifo(p, 0600), 0, "mkfifo %s: %s", p, strerror(errno));
	cr_assert_eq(trace_validate(p, NULL, &e), -EINVAL);
	cr_assert(strstr(e.msg, "not a regular file"), "%s", e.msg);
	errno = 0;
	cr_assert_null(trace_reader_open(p, &e));
	cr_assert_eq(errno, EINVAL);
	scratch_drop(p);
}

Test(reader, big_endian_pcap)
{
	struct trace *t = load_ok(sample_path), *be;
	struct tbuf b = make_pcap_be(t);
	char *p = tbuf_save(&b, b.len, "be");

	be = load_ok(p);
	cr_assert(be->info.swapped);
	cr_assert_eq(be->info.format, TRACE_FMT_PCAP_NS);
	cr_assert(same_records(t, be));
	trace_free(be);
	trace_free(t);
	scratch_drop(p);
	free(b.p);
}

Test(reader, pcapng_both_byte_orders)
{
	struct trace *t = load_ok(sample_path);

	for (int big = 0; big < 2; big++) {
		uint64_t off[SAMPLE_N];
		struct tbuf b = make_pcapng(t, big, off);
		char *p = tbuf_save(&b, b.len, "ng");
		struct trace *ng = load_ok(p);

		cr_assert_eq(ng->info.format, TRACE_FMT_PCAPNG);
		cr_assert_eq(ng->info.swapped, big);
		cr_assert_eq(ng->info.linktype, 1);
		cr_assert_eq(ng->info.file_size, b.len);
		cr_assert(same_records(t, ng));
		/* SHB 28 bytes, IDB 32 bytes: the first EPB is at 60 */
		cr_assert_eq(off[0], 60);
		for (uint64_t k = 0; k < t->n; k++)
			cr_assert_eq(ng->recs[k].offset, off[k]);
		trace_free(ng);
		scratch_drop(p);
		free(b.p);
	}
	trace_free(t);
}

Test(reader, pcapng_two_sections)
{
	struct trace *t = load_ok(sample_path), *ng;
	struct tbuf b = make_pcapng(t, 0, NULL);
	struct tbuf twice = { 0 };
	size_t one = b.len;
	char *p;

	tbuf_put(&twice, b.p, one);
	tbuf_put(&twice, b.p, one);
	free(b.p);
	b = twice;
	p = tbuf_save(&b, b.len, "ng2");
	ng = load_ok(p);
	cr_assert_eq(ng->n, 2 * SAMPLE_N);
	cr_assert_eq(ng->recs[SAMPLE_N].offset, one + 60);
	cr_assert_eq(ng->recs[SAMPLE_N].ts_ns, t->recs[0].ts_ns);
	cr_assert_eq(ng->ts_backwards, 1);
	trace_free(ng);
	trace_free(t);
	scratch_drop(p);
	free(b.p);
}

Test(reader, header_only_pcap_is_empty)
{
	struct tbuf b = tbuf_load(sample_path);
	char *p = tbuf_save(&b, 24, "empty");
	struct trace *t = load_ok(p);

	cr_assert_eq(t->n, 0);
	trace_free(t);
	scratch_drop(p);
	free(b.p);
}

Test(reader, pcap_header_faults)
{
	struct tbuf b = tbuf_load(sample_path);

	refuse(&b, 0, -EBADMSG, 0, -1, "truncated file header (0 bytes)");
	refuse(&b, 10, -EBADMSG, 0, -1, "truncated file header (10 of 24 bytes)");
	b.p[6] = 3;	/* version 2.3 */
	refuse(&b, b.len, -ENOTSUP, 0, -1, "unsupported pcap version 2.3 (only 2.4 is read)");
	free(b.p);
}

/* Link type fields libpcap does not read as plain Ethernet (or reads with an FCS as payload). */
Test(reader, pcap_link_type_bits_beyond_the_type_are_refused)
{
	struct tbuf b = tbuf_load(sample_path);

	tbuf_set32(&b, 20, 0x00010001, 0);	/* reserved bits: libpcap says link type 65537 */
	refuse(&b, b.len, -ENOTSUP, 0, -1, "link type field 0x00010001 has reserved bits set");
	tbuf_set32(&b, 20, 0x14000001, 0);	/* an FCS on every frame */
	refuse(&b, b.len, -ENOTSUP, 0, -1,
	       "link type field 0x14000001 says every frame ends in an FCS (not supported)");
	free(b.p);
}

/* A regular file named "-" is read, not stdin (libpcap's name for it). */
Test(reader, file_named_dash_is_read_from_itself_not_stdin, .timeout = 10)
{
	struct tbuf b = tbuf_load(sample_path);
	char dir[] = SEGNET_TEST_TMPDIR "/dashXXXXXX";
	char cwd[PATH_MAX];
	struct trace_err err = { 0 };
	struct trace *t;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	f = fopen("-", "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(b.p, 1, b.len, f), b.len);
	fclose(f);
	cr_assert_not_null(freopen("/dev/null", "rb", stdin));
	t = trace_load("-", &err);
	unlink("-");
	cr_assert_eq(chdir(cwd), 0);
	rmdir(dir);
	cr_assert_not_null(t, "the file \"-\" passed validation, then: %s", err.msg);
	cr_assert_eq(t->n, SAMPLE_N);
	trace_free(t);
	free(b.p);
}

Test(reader, pcap_record_faults)
{
	struct trace *t = load_ok(sample_path);
	struct tbuf b = tbuf_load(sample_path);
	uint64_t off = t->recs[5].offset;
	uint32_t caplen = t->recs[5].caplen;
	char what[96];

	tbuf_set32(&b, off + 4, 1000000000, 0);
	refuse(&b, b.len, -EBADMSG, off, 5, "nanosecond field 1000000000 out of range");
	tbuf_set32(&b, off + 4, 0, 0);
	tbuf_set32(&b, off + 12, caplen - 1, 0);
	snprintf(what, sizeof(what), "caplen %u exceeds wire length %u", caplen, caplen - 1);
	refuse(&b, b.len, -EBADMSG, off, 5, what);
	tbuf_set32(&b, off + 8, 300000, 0);
	tbuf_set32(&b, off + 12, 300000, 0);
	refuse(&b, b.len, -EBADMSG, off, 5, "caplen 300000 exceeds snaplen 262144");
	trace_free(t);
	free(b.p);
}

/* A pcap header's seconds are unsigned: 2^31 s and more is after January 2038, not before 1970. */
Test(reader, pcap_timestamps_after_2038)
{
	struct trace *t = load_ok(sample_path), *u;
	struct tbuf b = tbuf_load(sample_path);
	uint64_t off = t->recs[SAMPLE_N - 1].offset;
	char *p;

	tbuf_set32(&b, off, 0x80000001u, 0);
	tbuf_set32(&b, off + 4, 7, 0);
	p = tbuf_save(&b, b.len, "y2038");
	u = load_ok(p);
	cr_assert_eq(u->recs[SAMPLE_N - 1].ts_ns, 0x80000001ull * 1000000000u +
		     (t->info.format == TRACE_FMT_PCAP_NS ? 7 : 7000),
		     "ts_ns %" PRIu64, u->recs[SAMPLE_N - 1].ts_ns);
	cr_assert_eq(u->ts_backwards, 0);
	scratch_drop(p);
	trace_free(u);
	trace_free(t);
	free(b.p);
}

Test(reader, pcapng_faults)
{
	struct trace *t = load_ok(sample_path);
	uint64_t off[SAMPLE_N], k = 100;
	struct tbuf b = make_pcapng(t, 0, off);
	uint32_t len = 32 + ((t->recs[k].caplen + 3) & ~3u);
	char what[128];

	/* trailing length disagrees with the leading one */
	tbuf_set32(&b, off[k] + len - 4, len + 4, 0);
	snprintf(what, sizeof(what), "block total length %u does not match trailing length %u",
		 len, len + 4);
	refuse(&b, b.len, -EBADMSG, off[k], (int64_t)k, what);
	tbuf_set32(&b, off[k] + len - 4, len, 0);

	/* total length not a multiple of 4 */
	tbuf_set32(&b, off[k] + 4, len + 2, 0);
	snprintf(what, sizeof(what), "bad block total length %u (block type 0x00000006)", len + 2);
	refuse(&b, b.len, -EBADMSG, off[k], (int64_t)k, what);
	tbuf_set32(&b, off[k] + 4, len, 0);

	/* cut inside the block, then inside its header */
	snprintf(what, sizeof(what), "truncated block (total length %u, 20 bytes left)", len);
	refuse(&b, off[k] + 20, -EBADMSG, off[k], (int64_t)k, what);
	refuse(&b, off[k] + 5, -EBADMSG, off[k], -1, "truncated block header (5 of 8 bytes)");

	/* interface that no IDB defined */
	tbuf_set32(&b, off[k] + 8, 1, 0);
	refuse(&b, b.len, -EBADMSG, off[k], (int64_t)k, "packet block for undefined interface 1");
	tbuf_set32(&b, off[k] + 8, 0, 0);

	/* captured length larger than the block holds */
	tbuf_set32(&b, off[k] + 20, t->recs[k].caplen + 100, 0);
	tbuf_set32(&b, off[k] + 24, t->recs[k].caplen + 100, 0);
	snprintf(what, sizeof(what), "caplen %u does not fit in the block (total length %u)",
		 t->recs[k].caplen + 100, len);
	refuse(&b, b.len, -EBADMSG, off[k], (int64_t)k, what);

	/* end of the IDB's options with a length (libpcap refuses it too) */
	tbuf_set32(&b, 28 + 8 + 16, 4u << 16, 0);
	refuse(&b, b.len, -EBADMSG, 28, -1,
	       "interface options: end of options with length 4 (must be 0)");
	tbuf_set32(&b, 28 + 8 + 16, 0, 0);

	/* timestamp resolution libpcap cannot convert (2^-100 s) */
	b.p[28 + 16 + 4] = 0x80 | 100;
	refuse(&b, b.len, -EBADMSG, 28, -1, "interface timestamp resolution 0xe4 out of range");
	b.p[28 + 16 + 4] = 9;

	/* no IDB at all: the SHB alone */
	refuse(&b, 28, -EBADMSG, 28, -1,
	       "no interface description block before the end of the file");

	/* bad byte-order magic */
	tbuf_set32(&b, 8, 0x01020304, 1);
	refuse(&b, b.len, -EBADMSG, 0, -1,
	       "bad byte-order magic 0x01020304 in section header block");
	trace_free(t);
	free(b.p);
}

/* A pcapng copy of t in two sections, each one *one bytes long. */
static struct tbuf two_sections(const struct trace *t, size_t *one)
{
	struct tbuf b = make_pcapng(t, 0, NULL);
	struct tbuf twice = { 0 };

	*one = b.len;
	tbuf_put(&twice, b.p, b.len);
	tbuf_put(&twice, b.p, b.len);
	free(b.p);
	return twice;
}

Test(reader, pcapng_section_faults)
{
	struct trace *t = load_ok(sample_path);
	size_t one;
	struct tbuf b = two_sections(t, &one);
	/* second section written in the other byte order */
	tbuf_set32(&b, one + 8, 0x1a2b3c4d, 1);
	refuse(&b, b.len, -ENOTSUP, one, -1, "section byte order differs from the first section's");
	tbuf_set32(&b, one + 8, 0x1a2b3c4d, 0);
	/* second section's interface has another link type */
	b.p[one + 28 + 8] = 101;
	refuse(&b, b.len, -ENOTSUP, one + 28, -1,
	       "interface link type 101 differs from the first interface's 1");
	b.p[one + 28 + 8] = 1;
	/* unsupported version in the second section */
	b.p[one + 12] = 2;
	refuse(&b, b.len, -ENOTSUP, one, -1, "unsupported pcapng version 2.0");
	trace_free(t);
	free(b.p);
}

/* A 60-byte Ethernet frame. */
static const uint8_t eth60[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 8, 0 };

/* Append a little-endian EPB of eth60 on interface iface at timestamp ts. */
static void ng_epb60(struct tbuf *f, uint32_t iface, uint64_t ts)
{
	struct tbuf body = { 0 };

	tbuf_put32(&body, iface, 0);
	tbuf_put32(&body, (uint32_t)(ts >> 32), 0);
	tbuf_put32(&body, (uint32_t)ts, 0);
	tbuf_put32(&body, sizeof(eth60), 0);
	tbuf_put32(&body, sizeof(eth60), 0);
	tbuf_put(&body, eth60, sizeof(eth60));
	ng_block(f, 6, &body, 0);
	free(body.p);
}

/* pcapng: SHB, two IDBs of link type lt and the given snaplens, one EPB on the second. */
static struct tbuf ng_two_idbs(uint16_t lt, uint32_t snap0, uint32_t snap1)
{
	struct tbuf f = { 0 }, body = { 0 };

	ng_shb(&f, 0);
	for (int i = 0; i < 2; i++) {
		body.len = 0;
		tbuf_put16(&body, lt, 0);
		tbuf_put16(&body, 0, 0);
		tbuf_put32(&body, i ? snap1 : snap0, 0);
		ng_block(&f, 1, &body, 0);
	}
	ng_epb60(&f, 1, 1);
	free(body.p);
	return f;
}

/*
 * Interfaces' snaplens compared as libpcap compares them: 0 is the link
 * type's maximum (262144; 128 MiB for D-Bus), a larger value is itself;
 * the walk refuses what libpcap would, at the interface block (28 + 20 =
 * 48). (D-Bus 0 against 128 MiB: refused while 0 was taken as 262144
 * whatever the link type.)
 */
Test(reader, interface_snaplens_compared_as_libpcap_does)
{
	/* link type, the two snaplens; 0 is the link type's maximum (D-Bus, 231: 128 MiB) */
	static const uint32_t same[][3] = { { 1, 0, 0 }, { 1, 0, 262144 }, { 1, 262144, 0 },
					    { 1, 300000, 300000 }, { 1, 100, 100 },
					    { 231, 0, 128u << 20 } };
	static const uint32_t differ[][3] = { { 1, 0, 300000 }, { 1, 300000, 0 },
					      { 1, 300000, 262144 }, { 1, 100, 0 },
					      { 231, 0, 262144 } };
	struct tbuf f;
	char *p, what[96];

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		struct trace *t;

		f = ng_two_idbs((uint16_t)same[i][0], same[i][1], same[i][2]);
		p = tbuf_save(&f, f.len, "snap");
		t = load_ok(p);
		cr_assert_eq(t->n, 1);
		trace_free(t);
		scratch_drop(p);
		free(f.p);
	}
	for (size_t i = 0; i < sizeof(differ) / sizeof(differ[0]); i++) {
		f = ng_two_idbs((uint16_t)differ[i][0], differ[i][1], differ[i][2]);
		snprintf(what, sizeof(what), "interface snaplen %u differs from the first interface's %u",
			 differ[i][2], differ[i][1] ? differ[i][1] :
			 differ[i][0] == 231 ? 128u << 20 : 262144);
		refuse(&f, f.len, -ENOTSUP, 48, -1, what);
		free(f.p);
	}
}

/* pcapng: SHB, one IDB of link type lt and snaplen snap, one SPB of wire length n (all there). */
static struct tbuf ng_spb(uint16_t lt, uint32_t snap, uint32_t n)
{
	struct tbuf f = { 0 }, body = { 0 };

	ng_shb(&f, 0);
	tbuf_put16(&body, lt, 0);
	tbuf_put16(&body, 0, 0);
	tbuf_put32(&body, snap, 0);
	ng_block(&f, 1, &body, 0);
	body.len = 0;
	tbuf_put32(&body, n, 0);
	for (uint32_t i = 0; i < n; i++)
		tbuf_put(&body, &(uint8_t){ (uint8_t)i }, 1);
	ng_block(&f, 3, &body, 0);
	free(body.p);
	return f;
}

/*
 * A simple packet block has no captured length: libpcap takes the wire
 * length cut at the first interface's snaplen as it adjusts it (0 is the
 * link type's maximum: 262144, but 128 MiB for D-Bus, 231). The walk
 * refuses one whose captured length passes the link type's maximum, at the
 * block (28 + 20 = 48), as validation: it was accepted and then read as
 * "libpcap and the validation walk disagree". (The block of the D-Bus one
 * holds 60 bytes: its captured length is refused before it is looked for.)
 */
Test(reader, simple_packet_block_beyond_the_largest_snaplen_refused)
{
	static const struct { uint16_t lt; uint32_t snap, n, cut, max; } bad[] = {
		{ 1, 300000, 280000, 300000, 262144 },	/* Ethernet, a snaplen above 262144 */
		{ 231, 200u << 20, (128u << 20) + 1, 200u << 20, 128u << 20 },	/* D-Bus */
	};
	struct tbuf f;
	struct trace *t;
	char *p, what[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = ng_spb(bad[i].lt, bad[i].snap, bad[i].n < 280000 ? bad[i].n : 60);
		tbuf_set32(&f, 48 + 8, bad[i].n, 0);
		snprintf(what, sizeof(what),
			 "simple packet block: captured length %u (wire length %u, snaplen %u) exceeds %u",
			 bad[i].n, bad[i].n, bad[i].cut, bad[i].max);
		refuse(&f, f.len, -EBADMSG, 48, 0, what);
		free(f.p);
	}
	/* cut at 262144 where the snaplen is 0 on Ethernet, as libpcap does */
	f = ng_spb(1, 0, 280000);
	p = tbuf_save(&f, f.len, "spb");
	t = load_ok(p);
	cr_assert_eq(t->n, 1);
	cr_assert_eq(t->recs[0].caplen, 262144);
	cr_assert_eq(t->recs[0].wirelen, 280000);
	trace_free(t);
	scratch_drop(p);
	free(f.p);
	/* D-Bus, snaplen 0: 300000 bytes read whole (refused, "exceeds 262144", before) */
	f = ng_spb(231, 0, 300000);
	p = tbuf_save(&f, f.len, "spb");
	t = load_ok(p);
	cr_assert_eq(t->n, 1);
	cr_assert_eq(t->recs[0].caplen, 300000);
	cr_assert_eq(t->recs[0].data[299999], (uint8_t)299999);
	trace_free(t);
	scratch_drop(p);
	free(f.p);
}

/*
 * libpcap keeps the first interface's link type under its DLT number and
 * compares a later interface's link type with that: of the types it
 * renumbers (100 -> 11, 101 raw IP -> 12, 102 -> 15, 103 -> 16, 106 -> 19
 * on Linux) it reads no second interface, so the walk refuses it at the
 * second interface block (28 + 20 = 48); other types read on (fuzz_trace
 * found libpcap failing at the packet after validation had accepted two
 * raw IP interfaces).
 */
Test(reader, second_interface_of_a_renumbered_link_type_refused)
{
	static const uint16_t renumbered[] = { 100, 101, 102, 103, 106 };
	static const uint16_t kept[] = { 1, 12, 104, 105, 220 };
	struct tbuf f;
	char *p, what[112];

	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		struct trace *t;

		f = ng_two_idbs(kept[i], 0, 0);
		p = tbuf_save(&f, f.len, "lt");
		t = load_ok(p);
		cr_assert_eq(t->n, 1);
		cr_assert_eq(t->info.linktype, kept[i]);
		trace_free(t);
		scratch_drop(p);
		free(f.p);
	}
	for (size_t i = 0; i < sizeof(renumbered) / sizeof(renumbered[0]); i++) {
		f = ng_two_idbs(renumbered[i], 0, 0);
		snprintf(what, sizeof(what),
			 "another interface of link type %u (libpcap reads one only of a type it renumbers)",
			 renumbered[i]);
		refuse(&f, f.len, -ENOTSUP, 48, -1, what);
		free(f.p);
	}
}

/*
 * pcapng: SHB, one Ethernet IDB with the options opts (n bytes, a multiple
 * of 4, the end of options included), one EPB of eth60 at timestamp ts.
 */
static struct tbuf ng_one_iface(const uint8_t *opts, size_t n, uint64_t ts)
{
	struct tbuf f = { 0 }, body = { 0 };

	ng_shb(&f, 0);
	tbuf_put16(&body, 1, 0);
	tbuf_put16(&body, 0, 0);
	tbuf_put32(&body, 0, 0);
	tbuf_put(&body, opts, n);
	ng_block(&f, 1, &body, 0);
	ng_epb60(&f, 0, ts);
	free(body.p);
	return f;
}

/* Offset of the EPB in ng_one_iface's file with n bytes of options. */
static uint64_t ng_one_iface_epb(size_t n)
{
	return 28 + 20 + n;
}

/*
 * A pcapng timestamp past 2554 (or before 1970, with if_tsoffset) is
 * refused by the validation walk, so by trace_validate() too, and the
 * streaming reader hands out no record of the file (fuzz_trace found
 * validation accepting it and the reading failing at the record).
 */
Test(reader, pcapng_timestamps_out_of_range_refused_by_validation)
{
	/* if_tsresol 9 (ns); if_tsoffset -2000000000 s */
	static const uint8_t ns[] = { 9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t back[] = { 14, 0, 8, 0, 0x00, 0x6c, 0xca, 0x88, 0xff, 0xff, 0xff, 0xff,
					0, 0, 0, 0 };
	struct tbuf f = ng_one_iface(ns, sizeof(ns), UINT64_MAX);

	refuse(&f, f.len, -EBADMSG, ng_one_iface_epb(sizeof(ns)), 0,
	       "timestamp 18446744073 s is outside 1970 to 2554");
	free(f.p);
	/* 1.7e9 s (2023) less 2e9 s */
	f = ng_one_iface(back, sizeof(back), 1700000000000000ull);
	refuse(&f, f.len, -EBADMSG, ng_one_iface_epb(sizeof(back)), 0,
	       "timestamp -300000000 s is outside 1970 to 2554");
	free(f.p);
}

/*
 * A binary if_tsresol finer than 2^-34 gives exact nanoseconds, rounded
 * down (libpcap's own conversion multiplies the fraction by 10^9 in 64 bits
 * and overflows; fuzz_trace found 2^-40).
 */
Test(reader, pcapng_fine_binary_resolution_exact)
{
	static const uint8_t bin[][8] = { { 9, 0, 1, 0, 0x80 | 40 }, { 9, 0, 1, 0, 0x80 | 63 },
					  { 9, 0, 1, 0, 0x80 | 34 } };
	static const unsigned int shift[] = { 40, 63, 34 };

	for (size_t i = 0; i < sizeof(bin) / sizeof(bin[0]); i++) {
		uint64_t frac = (1ull << shift[i]) - 1, sec = 1000 >> (shift[i] - 34);
		struct tbuf f = ng_one_iface(bin[i], sizeof(bin[i]), sec << shift[i] | frac);
		char *p = tbuf_save(&f, f.len, "bin");
		struct trace *t = load_ok(p);

		cr_assert_eq(t->n, 1);
		cr_assert_eq(t->recs[0].ts_ns, sec * 1000000000u + 999999999u,
			     "2^-%u: ts_ns %" PRIu64 ", want %" PRIu64, shift[i], t->recs[0].ts_ns,
			     sec * 1000000000u + 999999999u);
		trace_free(t);
		scratch_drop(p);
		free(f.p);
	}
}

/*
 * Link type 220 (Linux USB, memory-mapped): libpcap rewrites the wire
 * length of an incoming isochronous completion from its descriptors
 * (fixup_pcap_pkthdr); the record keeps the file's, and reading goes on
 * (fuzz_trace found the read failing, "libpcap and the validation walk
 * disagree", after validation had accepted the file).
 */
Test(reader, usb_mmapped_wire_length_is_the_files)
{
	/* 64-byte header: complete ('C'), isochronous, endpoint 1 in, 1 descriptor */
	static const uint8_t usb[80] = { [8] = 'C', [9] = 0, [10] = 0x81, [60] = 1,
					 /* descriptor: offset 100, length 50 */
					 [68] = 100, [72] = 50 };
	struct tbuf b = { 0 };
	struct trace *t;
	char *p;

	tbuf_put32(&b, 0xa1b2c3d4, 0);
	tbuf_put16(&b, 2, 0);
	tbuf_put16(&b, 4, 0);
	tbuf_put32(&b, 0, 0);
	tbuf_put32(&b, 0, 0);
	tbuf_put32(&b, 65535, 0);
	tbuf_put32(&b, 220, 0);
	tbuf_put32(&b, 1700000000, 0);
	tbuf_put32(&b, 0, 0);
	tbuf_put32(&b, sizeof(usb), 0);
	tbuf_put32(&b, sizeof(usb), 0);
	tbuf_put(&b, usb, sizeof(usb));
	p = tbuf_save(&b, b.len, "usb");
	t = load_ok(p);
	cr_assert_eq(t->n, 1);
	cr_assert_eq(t->recs[0].wirelen, sizeof(usb), "wirelen %u", t->recs[0].wirelen);
	cr_assert_eq(t->info.wire_bytes, sizeof(usb));
	trace_free(t);
	scratch_drop(p);
	free(b.p);
}

/* A later section header block too short to be one says so (not "bad byte-order magic"). */
Test(reader, later_short_section_header_block)
{
	struct trace *t = load_ok(sample_path);
	size_t one;
	struct tbuf b = two_sections(t, &one);

	tbuf_set32(&b, one + 4, 12, 0);
	tbuf_set32(&b, one + 8, 12, 0);
	refuse(&b, one + 12, -EBADMSG, one, -1, "section header block too short (total length 12)");
	trace_free(t);
	free(b.p);
}

/*
 * Cut b at byte cut. starts[] holds the offsets of every header, block or
 * record, the first nhdr being file headers. A cut at the start of a record
 * (or at the end of the file) leaves a valid file of the records before it;
 * any other cut is refused at the start of the structure it falls in.
 */
static void check_cut(const struct tbuf *b, const uint64_t *starts, uint64_t nstarts,
		      uint64_t nhdr, size_t cut)
{
	char *p = tbuf_save(b, cut, "cut");
	struct trace_err e = { 0 };
	struct trace_info info;
	uint64_t j = 0;
	int rc = trace_validate(p, &info, &e);

	while (j < nstarts && starts[j] < cut)
		j++;
	if (cut == b->len || (j >= nhdr && j < nstarts && starts[j] == cut)) {
		cr_assert_eq(rc, 0, "cut at %zu: %s", cut, e.msg);
		cr_assert_eq(info.records, j - nhdr, "cut at %zu", cut);
	} else {
		cr_assert_eq(rc, -EBADMSG, "cut at %zu", cut);
		/* a cut right at a file header's start: refused at the cut */
		if (j < nstarts && starts[j] == cut)
			j++;
		cr_assert_eq(e.offset, j ? (int64_t)starts[j - 1] : 0, "cut at %zu: %s", cut, e.msg);
	}
	scratch_drop(p);
}

/* Cut b every step bytes, and around every record start. */
static void cut_everywhere(const struct tbuf *b, const uint64_t *starts, uint64_t nstarts,
			   uint64_t nhdr, size_t step)
{
	static const size_t near[] = { 0, 1, 7, 8, 15, 16, 17 };

	for (size_t cut = 0; cut <= b->len; cut += step)
		check_cut(b, starts, nstarts, nhdr, cut);
	for (uint64_t j = 0; j < nstarts; j++)
		for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++)
			if (starts[j] + near[i] <= b->len)
				check_cut(b, starts, nstarts, nhdr, starts[j] + near[i]);
}

Test(reader, every_cut_is_caught)
{
	struct trace *t = load_ok(sample_path);
	uint64_t starts[SAMPLE_N + 2];
	struct tbuf b = tbuf_load(sample_path), ng;

	/* pcap: the file header, then the records */
	starts[0] = 0;
	for (uint64_t k = 0; k < t->n; k++)
		starts[1 + k] = t->recs[k].offset;
	cut_everywhere(&b, starts, t->n + 1, 1, 37);
	/* pcapng: SHB at 0, IDB at 28, then the EPBs */
	starts[1] = 28;
	ng = make_pcapng(t, 1, starts + 2);
	cut_everywhere(&ng, starts, t->n + 2, 2, 41);
	free(ng.p);
	free(b.p);
	trace_free(t);
}

Test(reader, streaming_data_and_offsets)
{
	struct trace *t = load_ok(sample_path);
	struct trace_err e = { 0 };
	struct trace_reader *r = trace_reader_open(sample_path, &e);
	struct trace_rec rec;
	uint64_t k = 0;

	cr_assert_not_null(r, "%s", e.msg);
	cr_assert_eq(trace_reader_info(r)->format, TRACE_FMT_PCAP_NS);
	while (trace_reader_next(r, &rec, &e) == 1) {
		cr_assert_eq(rec.offset, t->recs[k].offset);
		cr_assert_eq(rec.ts_ns, t->recs[k].ts_ns);
		cr_assert_eq(memcmp(rec.data, t->recs[k].data, rec.caplen), 0);
		k++;
	}
	cr_assert_eq(k, SAMPLE_N);
	cr_assert_eq(trace_reader_next(r, &rec, &e), 0, "stays at the end");
	trace_reader_close(r);
	trace_free(t);
}
