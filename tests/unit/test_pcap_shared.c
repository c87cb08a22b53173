/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reader on the shared tcpreplay captures (../shared/pcaps next to the
 * source tree, or $SEGNET_PCAP_DIR): exact counts, timestamps and record
 * offsets, and refusal of truncated and corrupt copies at the exact byte
 * offset. Exits 77 (skipped) when the captures are absent.
 *
 * Where the numbers come from (tshark/capinfos 4.0.x, Debian 12):
 *   capinfos -c -a -e -S FILE          packet count, first and last time
 *   tshark -r FILE -T fields -e frame.number -e frame.time_epoch \
 *          -e frame.cap_len -e frame.len
 *                                      every timestamp (9 digits) and length
 *   record offsets: 24 + the sum, over earlier records, of 16 + frame.cap_len
 *   (awk over that tshark listing); the last record ends at the file size.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "test_pcap_util.h"

/* Exit code that tells meson a test was skipped. */
enum { EXIT_SKIP = 77 };

/* Folder of the shared captures: $SEGNET_PCAP_DIR, else the one meson set. */
static const char *pcap_dir(void)
{
	const char *d = getenv("SEGNET_PCAP_DIR");

	return d != NULL && *d != '\0' ? d : SEGNET_PCAP_DIR;
}

/* Path of a shared capture; free it. */
static char *shared(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", pcap_dir(), name) < 0)
		abort();
	return p;
}

/* The shared tcpreplay-test.pcap, loaded, and its bytes. */
static struct trace *load_shared(const char *name, struct tbuf *bytes)
{
	char *p = shared(name);
	struct trace *t = load_ok(p);

	if (bytes != NULL)
		*bytes = tbuf_load(p);
	free(p);
	return t;
}

Test(shared, test_pcap_exact)
{
	struct trace *t = load_shared("tcpreplay-test.pcap", NULL);

	cr_assert_eq(t->n, 179);
	cr_assert_eq(t->info.records, 179);
	cr_assert_eq(t->info.format, TRACE_FMT_PCAP_US);
	cr_assert(!t->info.swapped);
	cr_assert_eq(t->info.linktype, 1);
	cr_assert_eq(t->info.snaplen, 262144);
	cr_assert_eq(t->info.cap_bytes, 69000);		/* capinfos "Data size" */
	cr_assert_eq(t->info.file_size, 71888);
	cr_assert_eq(t->recs[0].ts_ns, 1278472579466743000ull);	/* 1278472579.466743 */
	cr_assert_eq(t->recs[178].ts_ns, 1278472582723492000ull);	/* 1278472582.723492 */
	cr_assert_eq(t->recs[0].offset, 24);
	cr_assert_eq(t->recs[0].caplen, 93);
	cr_assert_eq(t->recs[1].offset, 133);
	cr_assert_eq(t->recs[50].offset, 18822);
	cr_assert_eq(t->recs[100].offset, 54533);
	cr_assert_eq(t->recs[178].offset, 71728);
	cr_assert_eq(t->recs[178].caplen, 144);
	cr_assert_eq(t->recs[178].index, 178);
	cr_assert_eq(t->ts_backwards, 0);
	trace_free(t);
}

Test(shared, nano_keeps_its_digits)
{
	struct trace *t = load_shared("tcpreplay-nano.pcap", NULL);

	cr_assert_eq(t->n, 179);
	cr_assert_eq(t->info.format, TRACE_FMT_PCAP_NS);
	cr_assert_eq(t->recs[0].ts_ns, 1278472579466743000ull);	/* .466743000 */
	cr_assert_eq(t->recs[1].ts_ns, 1278472579467465137ull);	/* .467465137 */
	cr_assert_eq(t->recs[2].ts_ns, 1278472579488320274ull);	/* .488320274 */
	cr_assert_eq(t->recs[178].ts_ns, 1278472582723492386ull);	/* .723492386 */
	/* frames 15 and 16 (tshark numbering) go back in time by 863 ns */
	cr_assert_eq(t->recs[14].ts_ns, 1278472580666770918ull);
	cr_assert_eq(t->recs[15].ts_ns, 1278472580666770055ull);
	cr_assert_eq(t->ts_backwards, 1);
	cr_assert_eq(t->recs[100].offset, 54533);
	trace_free(t);
}

Test(shared, nano_is_test_with_more_digits)
{
	struct trace *us = load_shared("tcpreplay-test.pcap", NULL);
	struct trace *ns = load_shared("tcpreplay-nano.pcap", NULL);

	cr_assert_eq(us->n, ns->n);
	for (uint64_t k = 0; k < us->n; k++) {
		cr_assert_eq(us->recs[k].ts_ns % 1000, 0, "us file: ns digits must be zero");
		cr_assert_eq(us->recs[k].ts_ns / 1000, ns->recs[k].ts_ns / 1000);
		cr_assert_eq(us->recs[k].caplen, ns->recs[k].caplen);
		cr_assert_eq(us->recs[k].offset, ns->recs[k].offset);
		cr_assert_eq(memcmp(us->recs[k].data, ns->recs[k].data, us->recs[k].caplen), 0);
	}
	trace_free(us);
	trace_free(ns);
}

Test(shared, fragroute_exact)
{
	struct trace *t = load_shared("tcpreplay-fragroute.pcap", NULL);

	cr_assert_eq(t->n, 20);
	cr_assert_eq(t->info.cap_bytes, 4778);
	cr_assert_eq(t->info.file_size, 5122);
	cr_assert_eq(t->recs[0].ts_ns, 1278472579466743000ull);	/* 1278472579.466743 */
	cr_assert_eq(t->recs[19].ts_ns, 1278472580873217000ull);	/* 1278472580.873217 */
	cr_assert_eq(t->recs[16].offset, 1429);
	cr_assert_eq(t->recs[16].caplen, 535);
	cr_assert_eq(t->recs[19].offset, 3592);
	cr_assert_eq(t->recs[19].caplen, 1514);
	cr_assert_eq(t->recs[19].offset + 16 + t->recs[19].caplen, t->info.file_size);
	trace_free(t);
}

Test(shared, streaming_reader_matches_loader)
{
	char *p = shared("tcpreplay-nano.pcap");
	struct trace *t = load_ok(p);
	struct trace_err e = { 0 };
	struct trace_reader *r = trace_reader_open(p, &e);
	struct trace_rec rec;
	uint64_t k = 0;
	int rc;

	cr_assert_not_null(r, "%s", e.msg);
	cr_assert_eq(trace_reader_info(r)->records, 179);
	while ((rc = trace_reader_next(r, &rec, &e)) == 1) {
		cr_assert_lt(k, t->n);
		cr_assert_eq(rec.index, k);
		cr_assert_eq(rec.offset, t->recs[k].offset);
		cr_assert_eq(rec.ts_ns, t->recs[k].ts_ns);
		cr_assert_eq(rec.caplen, t->recs[k].caplen);
		cr_assert_eq(memcmp(rec.data, t->recs[k].data, rec.caplen), 0);
		k++;
	}
	cr_assert_eq(rc, 0, "%s", e.msg);
	cr_assert_eq(k, 179);
	trace_reader_close(r);
	trace_free(t);
	free(p);
}

Test(shared, validate_counts_every_file)
{
	static const struct {
		const char *name;
		uint64_t records;
	} files[] = {
		{ "tcpreplay-test.pcap", 179 },
		{ "tcpreplay-nano.pcap", 179 },
		{ "tcpreplay-fragroute.pcap", 20 },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct trace_info info;
		struct trace_err e = { 0 };
		char *p = shared(files[i].name);

		cr_assert_eq(trace_validate(p, &info, &e), 0, "%s", e.msg);
		cr_assert_eq(info.records, files[i].records);
		free(p);
	}
}

Test(shared, cut_in_record_header)
{
	struct tbuf b;
	struct trace *t = load_shared("tcpreplay-test.pcap", &b);
	char *p = tbuf_save(&b, 54533 + 7, "cut-hdr");

	assert_refused(p, -EBADMSG, 54533, 100,
		       "truncated record header (7 of 16 bytes) at byte offset 54533 (record 100)");
	scratch_drop(p);
	trace_free(t);
	free(b.p);
}

Test(shared, cut_in_record_data)
{
	struct tbuf b;
	struct trace *t = load_shared("tcpreplay-test.pcap", &b);
	char *p = tbuf_save(&b, 54533 + 16 + 10, "cut-data");

	/* record 100 (frame 101) has caplen 66: 10 of its bytes are left */
	assert_refused(p, -EBADMSG, 54533, 100,
		       "truncated record data (caplen 66, 10 bytes left) at byte offset 54533 (record 100)");
	scratch_drop(p);
	trace_free(t);
	free(b.p);
}

Test(shared, caplen_over_snaplen)
{
	struct tbuf b;
	struct trace *t = load_shared("tcpreplay-test.pcap", &b);
	char *p;

	tbuf_set32(&b, 16, 65535, 0);		/* file snaplen */
	tbuf_set32(&b, 18822 + 8, 70000, 0);	/* record 50 caplen */
	tbuf_set32(&b, 18822 + 12, 70000, 0);	/* record 50 wire length */
	p = tbuf_save(&b, b.len, "snaplen");
	assert_refused(p, -EBADMSG, 18822, 50,
		       "caplen 70000 exceeds snaplen 65535 at byte offset 18822 (record 50)");
	scratch_drop(p);
	trace_free(t);
	free(b.p);
}

Test(shared, bad_magic)
{
	struct tbuf b;
	struct trace *t = load_shared("tcpreplay-test.pcap", &b);
	char *p;

	tbuf_set32(&b, 0, 0xdeadbeef, 1);
	p = tbuf_save(&b, b.len, "magic");
	assert_refused(p, -EBADMSG, 0, -1, "bad magic 0xdeadbeef at byte offset 0");
	scratch_drop(p);
	trace_free(t);
	free(b.p);
}

Test(shared, big_endian_copies_read_the_same)
{
	static const char *const names[] = { "tcpreplay-test.pcap", "tcpreplay-nano.pcap" };

	for (size_t i = 0; i < 2; i++) {
		struct trace *t = load_shared(names[i], NULL), *be;
		struct tbuf b = make_pcap_be(t);
		char *p = tbuf_save(&b, b.len, "be");

		be = load_ok(p);
		cr_assert(be->info.swapped);
		cr_assert_eq(be->info.format, t->info.format);
		cr_assert(same_records(t, be));
		cr_assert_eq(be->recs[100].offset, 54533);
		trace_free(be);
		trace_free(t);
		scratch_drop(p);
		free(b.p);
	}
}

Test(shared, pcapng_copy_reads_the_same)
{
	struct trace *t = load_shared("tcpreplay-nano.pcap", NULL), *ng;
	uint64_t off[179];
	struct tbuf b;
	char *p;

	cr_assert_eq(t->n, sizeof(off) / sizeof(off[0]), "make_pcapng writes an offset per record");
	b = make_pcapng(t, 0, off);
	p = tbuf_save(&b, b.len, "ng");
	ng = load_ok(p);
	cr_assert_eq(ng->info.format, TRACE_FMT_PCAPNG);
	cr_assert(same_records(t, ng), "pcapng keeps every ns digit");
	cr_assert_eq(ng->recs[1].ts_ns, 1278472579467465137ull);
	for (uint64_t k = 0; k < t->n; k++)
		cr_assert_eq(ng->recs[k].offset, off[k]);
	trace_free(ng);
	trace_free(t);
	scratch_drop(p);
	free(b.p);
}

/* Skip the whole program when the shared captures are not there. */
int main(int argc, char *argv[])
{
	struct criterion_test_set *tests;
	char *probe = shared("tcpreplay-test.pcap");
	struct stat st;
	int rc = 0;

	if (stat(probe, &st) != 0) {
		fprintf(stderr, "%s: not found, skipping (set SEGNET_PCAP_DIR)\n", probe);
		free(probe);
		return EXIT_SKIP;
	}
	free(probe);
	tests = criterion_initialize();
	if (criterion_handle_args(argc, argv, true))
		rc = !criterion_run_all_tests(tests);
	criterion_finalize(tests);
	return rc;
}
