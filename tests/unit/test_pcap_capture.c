/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture writer: what is written reads back (through the reader, so
 * through libpcap) with identical bytes and nanosecond timestamps; the size
 * and count bounds hold and what they refuse is counted; write errors are
 * reported.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "pcap/capture.h"
#include "test_pcap_util.h"

/* Frames of the tests. */
enum { NFRAMES = 200, MAXLEN = 1514 };

/* Length of frame k: 60 .. 1514, varied. */
static uint32_t frame_len(unsigned int k)
{
	return 60 + (k * 577u) % (MAXLEN - 60 + 1);
}

/* Timestamp of frame k, with all nine sub-second digits used. */
static uint64_t frame_ts(unsigned int k)
{
	return 1700000000123456789ull + (uint64_t)k * 1000001ull;
}

/* Bytes of frame k. */
static void frame_fill(unsigned int k, uint8_t *f)
{
	for (uint32_t i = 0; i < frame_len(k); i++)
		f[i] = (uint8_t)(k * 31 + i * 7);
}

/* A fresh scratch path (the file is created empty). */
static char *scratch(const char *tag)
{
	struct tbuf none = { 0 };

	return tbuf_save(&none, 0, tag);
}

/* Size of a file. */
static uint64_t file_size(const char *p)
{
	struct stat st;

	cr_assert_eq(stat(p, &st), 0);
	return (uint64_t)st.st_size;
}

/* Host-order value of n bytes (2 or 4) at p. */
static uint32_t host_at(const uint8_t *p, size_t n)
{
	uint32_t v32;
	uint16_t v16;

	if (n == 2) {
		memcpy(&v16, p, 2);
		return v16;
	}
	memcpy(&v32, p, 4);
	return v32;
}

/* Write frames 0 .. n-1 to c; returns how many were written. */
static unsigned int write_frames(struct capture *c, unsigned int n)
{
	uint8_t f[MAXLEN];
	unsigned int done = 0;

	for (unsigned int k = 0; k < n; k++) {
		frame_fill(k, f);
		done += capture_write(c, frame_ts(k), f, frame_len(k)) == 0;
	}
	return done;
}

/* Frames 0 .. n-1 are exactly the records of the file at p. */
static void assert_frames(const char *p, unsigned int n)
{
	struct trace *t = load_ok(p);
	uint8_t f[MAXLEN];

	cr_assert_eq(t->n, n);
	cr_assert_eq(t->info.format, TRACE_FMT_PCAP_NS);
	for (unsigned int k = 0; k < n; k++) {
		frame_fill(k, f);
		cr_assert_eq(t->recs[k].ts_ns, frame_ts(k));
		cr_assert_eq(t->recs[k].caplen, frame_len(k));
		cr_assert_eq(t->recs[k].wirelen, frame_len(k));
		cr_assert_eq(memcmp(t->recs[k].data, f, frame_len(k)), 0);
	}
	trace_free(t);
}

Test(capture, round_trip)
{
	struct capture_opts o = { 0 };
	char *p = scratch("cap");
	struct capture *c = capture_open(p, &o);
	struct capture_counts n;
	uint64_t size = CAPTURE_FILE_HDR;

	cr_assert_not_null(c);
	cr_assert_eq(write_frames(c, NFRAMES), NFRAMES);
	cr_assert_eq(capture_close(c, &n), 0);
	for (unsigned int k = 0; k < NFRAMES; k++)
		size += CAPTURE_REC_HDR + frame_len(k);
	cr_assert_eq(n.packets, NFRAMES);
	cr_assert_eq(n.bytes, size);
	cr_assert_eq(n.dropped, 0);
	cr_assert_eq(n.state, CAPTURE_OPEN);
	cr_assert_eq(file_size(p), size);
	assert_frames(p, NFRAMES);
	scratch_drop(p);
}

Test(capture, header_is_nanosecond_pcap)
{
	struct capture_opts o = { .snaplen = 9000 };
	char *p = scratch("hdr");
	struct tbuf b;

	cr_assert_eq(capture_close(capture_open(p, &o), NULL), 0);
	b = tbuf_load(p);
	cr_assert_eq(b.len, 24);
	cr_assert_eq(host_at(b.p, 4), 0xa1b23c4d, "magic, host order");
	cr_assert_eq(host_at(b.p + 4, 2), 2);
	cr_assert_eq(host_at(b.p + 6, 2), 4);
	cr_assert_eq(host_at(b.p + 16, 4), 9000);
	cr_assert_eq(host_at(b.p + 20, 4), 1, "Ethernet by default");
	free(b.p);
	scratch_drop(p);
}

Test(capture, packet_bound)
{
	struct capture_opts o = { .max_packets = 10 };
	char *p = scratch("count");
	struct capture *c = capture_open(p, &o);
	struct capture_counts n;
	uint64_t refused = 0;
	uint8_t f[MAXLEN] = { 0 };

	cr_assert_eq(write_frames(c, 20), 10);
	cr_assert_eq(capture_write(c, 1, f, 60), -ENOSPC);
	cr_assert_eq(capture_close(c, &n), 0);
	for (unsigned int k = 10; k < 20; k++)
		refused += frame_len(k);
	cr_assert_eq(n.packets, 10);
	cr_assert_eq(n.dropped, 11);
	cr_assert_eq(n.dropped_bytes, refused + 60);
	cr_assert_eq(n.state, CAPTURE_FULL_PACKETS);
	cr_assert_str_eq(capture_state_name(n.state), "full-packets");
	assert_frames(p, 10);
	scratch_drop(p);
}

Test(capture, size_bound_stops_writing)
{
	uint64_t three = CAPTURE_FILE_HDR;
	struct capture_opts o = { 0 };
	struct capture_counts n;
	uint8_t tiny[10] = { 0 };
	struct capture *c;
	char *p = scratch("size");

	for (unsigned int k = 0; k < 3; k++)
		three += CAPTURE_REC_HDR + frame_len(k);
	/* room for three records and 50 bytes: the fourth does not fit */
	o.max_bytes = three + 50;
	c = capture_open(p, &o);
	cr_assert_eq(write_frames(c, 6), 3);
	/* a small frame would fit in the 50 bytes left, but writing has stopped */
	cr_assert_eq(capture_write(c, 1, tiny, sizeof(tiny)), -ENOSPC);
	capture_get_counts(c, &n);
	cr_assert_eq(n.state, CAPTURE_FULL_BYTES);
	cr_assert_eq(capture_close(c, &n), 0);
	cr_assert_eq(n.packets, 3);
	cr_assert_eq(n.dropped, 4);
	cr_assert_eq(n.bytes, three);
	cr_assert_eq(file_size(p), three);
	cr_assert_leq(file_size(p), o.max_bytes);
	assert_frames(p, 3);
	scratch_drop(p);
}

Test(capture, exact_size_bound_fits)
{
	struct capture_opts o = { .max_bytes = CAPTURE_FILE_HDR + CAPTURE_REC_HDR + 60 };
	char *p = scratch("exact");
	struct capture *c = capture_open(p, &o);
	struct capture_counts n;

	cr_assert_eq(write_frames(c, 2), 1);
	cr_assert_eq(capture_close(c, &n), 0);
	cr_assert_eq(file_size(p), o.max_bytes);
	scratch_drop(p);
}

Test(capture, snaplen_cuts_frames)
{
	struct capture_opts o = { .snaplen = 64 };
	char *p = scratch("snap");
	struct capture *c = capture_open(p, &o);
	struct capture_counts n;
	uint8_t f[MAXLEN];
	struct trace *t;

	frame_fill(1, f);
	cr_assert_eq(capture_write(c, frame_ts(1), f, frame_len(1)), 0);
	cr_assert_eq(capture_close(c, &n), 0);
	cr_assert_eq(n.truncated, 1);
	t = load_ok(p);
	cr_assert_eq(t->recs[0].caplen, 64);
	cr_assert_eq(t->recs[0].wirelen, frame_len(1));
	cr_assert_eq(memcmp(t->recs[0].data, f, 64), 0);
	trace_free(t);
	scratch_drop(p);
}

/*
 * A snaplen above the largest is refused before the file is touched (a
 * record of it would overrun the 1 MiB buffer); at the largest, a 2 MiB
 * frame is cut to it and reads back.
 */
Test(capture, snaplen_above_the_largest_is_refused)
{
	struct capture_opts o = { .snaplen = 2u << 20 };
	char *p = scratch("snapmax");
	uint8_t *f = calloc(1, 2u << 20);
	struct capture_counts n;
	struct capture *c;
	struct trace *t;

	cr_assert_not_null(f);
	errno = 0;
	cr_assert_null(capture_open(p, &o));
	cr_assert_eq(errno, EINVAL);
	o.snaplen = CAPTURE_SNAPLEN_MAX + 1;
	cr_assert_eq(capture_opts_check(&o), -EINVAL);
	cr_assert_null(capture_open(p, &o));
	cr_assert_eq(file_size(p), 0, "the file was written to");
	o.snaplen = CAPTURE_SNAPLEN_MAX;
	c = capture_open(p, &o);
	cr_assert_not_null(c);
	f[CAPTURE_SNAPLEN_MAX - 1] = 0xab;
	cr_assert_eq(capture_write(c, frame_ts(0), f, 2u << 20), 0);
	cr_assert_eq(capture_close(c, &n), 0);
	cr_assert_eq(n.truncated, 1);
	t = load_ok(p);
	cr_assert_eq(t->recs[0].caplen, CAPTURE_SNAPLEN_MAX);
	cr_assert_eq(t->recs[0].wirelen, 2u << 20);
	cr_assert_eq(t->recs[0].data[CAPTURE_SNAPLEN_MAX - 1], 0xab);
	trace_free(t);
	free(f);
	scratch_drop(p);
}

Test(capture, burst)
{
	struct capture_opts o = { .max_packets = 3 };
	uint8_t f[4][64] = { { 1 }, { 2 }, { 3 }, { 4 } };
	struct capture_frame fr[4];
	char *p = scratch("burst");
	struct capture *c = capture_open(p, &o);
	struct trace *t;

	for (int i = 0; i < 4; i++)
		fr[i] = (struct capture_frame){ .ts_ns = 5000000000ull + (uint64_t)i, .data = f[i],
						.len = 64 };
	cr_assert_eq(capture_write_burst(c, fr, 4), 3);
	cr_assert_eq(capture_close(c, NULL), 0);
	t = load_ok(p);
	cr_assert_eq(t->n, 3);
	cr_assert_eq(t->recs[2].ts_ns, 5000000002ull);
	cr_assert_eq(t->recs[2].data[0], 3);
	trace_free(t);
	scratch_drop(p);
}

Test(capture, bad_arguments_and_paths)
{
	struct capture_opts o = { .max_bytes = 23 };

	errno = 0;
	cr_assert_null(capture_open(SEGNET_TEST_TMPDIR "/x.pcap", &o));
	cr_assert_eq(errno, EINVAL);
	o.max_bytes = 0;
	errno = 0;
	cr_assert_null(capture_open(SEGNET_TEST_TMPDIR "/no/such/dir/x.pcap", &o));
	cr_assert_eq(errno, ENOENT);
	cr_assert_eq(capture_close(NULL, NULL), 0);
}

Test(capture, a_file_that_takes_nothing_fails_at_open)
{
	struct capture_opts o = { 0 };

	errno = 0;
	cr_assert_null(capture_open("/dev/full", &o));
	cr_assert_eq(errno, ENOSPC);
}

/*
 * A file system that fills up mid-run (here a file size limit of 64 KiB):
 * the counts say what the file holds, the file is a readable prefix of
 * whole records, and everything else is counted lost, not written.
 */
Test(capture, a_failed_write_counts_only_what_reached_the_file)
{
	struct rlimit lim = { 65536, 65536 };
	struct capture_opts o = { 0 };
	char *p = scratch("fsize");
	struct capture *c = capture_open(p, &o);
	struct capture_counts n;
	struct trace *t;

	cr_assert_not_null(c);
	signal(SIGXFSZ, SIG_IGN);	/* the write fails with EFBIG instead */
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	/* 2000 frames: the 1 MiB buffer overflows once, the rest waits for close */
	write_frames(c, 2000);
	cr_assert_eq(capture_close(c, &n), -EFBIG);
	cr_assert_eq(n.state, CAPTURE_FAILED);
	cr_assert_gt(n.lost, 0);
	cr_assert_eq(n.packets + n.lost + n.dropped, 2000, "%llu + %llu + %llu",
		     (unsigned long long)n.packets, (unsigned long long)n.lost,
		     (unsigned long long)n.dropped);
	cr_assert_eq(n.dropped, 0, "no bound was set");
	cr_assert_eq(file_size(p), n.bytes, "the counts say what the file holds");
	t = load_ok(p);
	cr_assert_eq(t->n, n.packets);
	trace_free(t);
	scratch_drop(p);
}
