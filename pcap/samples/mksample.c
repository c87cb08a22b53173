/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes the bundled sample trace, cluster-udp.pcap: synthetic IPv4/UDP
 * traffic among four hosts (request/response pairs and bulk bursts) with
 * nanosecond timestamps, from a fixed seed, through the capture writer.
 *
 *   pcap-mksample OUT.pcap            write the sample
 *   pcap-mksample --check FILE.pcap   exit 0 if FILE is what would be written
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcap/capture.h"
#include "pcap/reader.h"

/* Shape of the sample. */
enum {
	SAMPLE_HOSTS = 4,
	SAMPLE_ROUNDS = 100,		/* request/response pairs */
	SAMPLE_BULK_EVERY = 5,		/* a bulk burst every this many rounds */
	SAMPLE_BULK_FRAMES = 3,		/* frames per burst */
	SAMPLE_BULK_PAYLOAD = 1472,	/* UDP payload of a full 1514-byte frame */
	SAMPLE_REQ_MIN = 18,		/* smallest request payload (60-byte frame) */
	SAMPLE_REQ_SPREAD = 64,		/* request payloads are MIN .. MIN+SPREAD-1 */
	SAMPLE_PORT = 7000,		/* UDP port of the service */
	SAMPLE_HDRS = 14 + 20 + 8,	/* Ethernet + IPv4 + UDP */
};

/* First timestamp: 2023-11-14 22:13:20 UTC. */
static const uint64_t sample_t0_ns = 1700000000ull * 1000000000ull;

/* State of the generator. */
struct sample_gen {
	/* the capture being written */
	struct capture *cap;
	/* xorshift64 state */
	uint64_t rng;
	/* time of the next frame */
	uint64_t now_ns;
	/* IPv4 identification counter */
	uint16_t ip_id;
};

/* Next pseudo-random number (xorshift64). */
static uint64_t gen_rand(struct sample_gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

/* Store a 16-bit value big endian. */
static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* One's-complement sum of len bytes, added to sum. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/* Fold a one's-complement sum into the 16-bit checksum. */
static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Build an Ethernet/IPv4/UDP frame from host src to host dst; returns its length. */
static uint32_t gen_frame(struct sample_gen *g, uint8_t *f, int src, int dst,
			  uint16_t sport, uint16_t dport, uint32_t payload)
{
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint32_t sum;

	memset(f, 0, SAMPLE_HDRS);
	f[0] = 0x02;
	f[5] = (uint8_t)(dst + 1);
	f[6] = 0x02;
	f[11] = (uint8_t)(src + 1);
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, 20 + 8 + payload);
	put16(ip + 4, g->ip_id++);
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10;
	ip[15] = (uint8_t)(src + 1);
	ip[16] = 10;
	ip[19] = (uint8_t)(dst + 1);
	put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	put16(udp, sport);
	put16(udp + 2, dport);
	put16(udp + 4, 8 + payload);
	for (uint32_t i = 0; i < payload; i++)
		udp[8 + i] = (uint8_t)(gen_rand(g) >> 24);
	sum = csum_add(0, ip + 12, 8) + 17 + 8 + payload;
	sum = csum_add(sum, udp, 8 + payload);
	put16(udp + 6, csum_fold(sum));
	return SAMPLE_HDRS + payload;
}

/* Write one frame at the current time, then advance the time by gap_ns. */
static int gen_emit(struct sample_gen *g, int src, int dst, uint16_t sport,
		    uint16_t dport, uint32_t payload, uint64_t gap_ns)
{
	uint8_t f[SAMPLE_HDRS + SAMPLE_BULK_PAYLOAD];
	uint32_t len = gen_frame(g, f, src, dst, sport, dport, payload);
	int rc = capture_write(g->cap, g->now_ns, f, len);

	g->now_ns += gap_ns;
	return rc;
}

/* A request payload length; draws from the generator. */
static uint32_t gen_req_len(struct sample_gen *g)
{
	return SAMPLE_REQ_MIN + (uint32_t)(gen_rand(g) % SAMPLE_REQ_SPREAD);
}

/* A delay of at least base ns plus up to spread - 1 more. */
static uint64_t gen_delay(struct sample_gen *g, uint64_t base, uint64_t spread)
{
	return base + gen_rand(g) % spread;
}

/*
 * One round: a request and its response, maybe a bulk burst, then idle.
 * Every draw is its own statement: the order in which function arguments
 * are evaluated is unspecified, and the sample must not depend on the
 * compiler.
 */
static int gen_round(struct sample_gen *g, int round)
{
	int a = (int)(gen_rand(g) % SAMPLE_HOSTS);
	int b = (a + 1 + (int)(gen_rand(g) % (SAMPLE_HOSTS - 1))) % SAMPLE_HOSTS;
	uint16_t sport = (uint16_t)(40000 + round);
	uint32_t len = gen_req_len(g);
	uint64_t gap = gen_delay(g, 8000, 4000);
	int rc;

	rc = gen_emit(g, a, b, sport, SAMPLE_PORT, len, gap);
	len = gen_req_len(g);
	gap = gen_delay(g, 1000, 1000);
	if (rc == 0)
		rc = gen_emit(g, b, a, SAMPLE_PORT, sport, len, gap);
	for (int i = 0; rc == 0 && round % SAMPLE_BULK_EVERY == 0 && i < SAMPLE_BULK_FRAMES; i++) {
		gap = gen_delay(g, 1230, 50);
		rc = gen_emit(g, b, a, SAMPLE_PORT, sport, SAMPLE_BULK_PAYLOAD, gap);
	}
	g->now_ns += gen_delay(g, 5000000, 10000000);
	return rc;
}

/* Write the sample to path; 0 or -errno. */
static int gen_sample(const char *path)
{
	struct capture_opts o = { 0 };
	struct sample_gen g = { .rng = 0x5e65e7c1u, .now_ns = sample_t0_ns };
	int rc = 0;

	g.cap = capture_open(path, &o);
	if (g.cap == NULL)
		return -errno;
	for (int r = 0; rc == 0 && r < SAMPLE_ROUNDS; r++)
		rc = gen_round(&g, r);
	if (capture_close(g.cap, NULL) && rc == 0)
		rc = -EIO;
	return rc;
}

/* 0 if the two traces hold the same records (timestamps, lengths, bytes). */
static int same_trace(const char *a, const char *b)
{
	struct trace_err err;
	struct trace *ta, *tb;
	int diff = 0;

	ta = trace_load(a, &err);
	if (ta == NULL) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	tb = trace_load(b, &err);
	if (tb == NULL) {
		fprintf(stderr, "%s\n", err.msg);
		trace_free(ta);
		return 1;
	}
	diff = ta->n != tb->n;
	for (uint64_t k = 0; !diff && k < ta->n; k++) {
		const struct trace_rec *x = &ta->recs[k], *y = &tb->recs[k];

		diff = x->ts_ns != y->ts_ns || x->caplen != y->caplen ||
		       x->wirelen != y->wirelen || memcmp(x->data, y->data, x->caplen);
		if (diff)
			fprintf(stderr, "record %llu differs\n", (unsigned long long)k);
	}
	if (ta->n != tb->n)
		fprintf(stderr, "%llu records, expected %llu\n",
			(unsigned long long)ta->n, (unsigned long long)tb->n);
	trace_free(ta);
	trace_free(tb);
	return diff;
}

/* Regenerate into a temporary file and compare with path. */
static int check_sample(const char *path)
{
	char tmp[] = "/tmp/segnet-mksample-XXXXXX";
	int fd = mkstemp(tmp), rc;

	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	rc = gen_sample(tmp);
	if (rc)
		fprintf(stderr, "%s: %s\n", tmp, strerror(-rc));
	else
		rc = same_trace(path, tmp);
	unlink(tmp);
	if (rc == 0)
		printf("%s matches the generator\n", path);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	bool help = argc == 2 && strcmp(argv[1], "--help") == 0;
	int rc;

	if (argc == 3 && strcmp(argv[1], "--check") == 0)
		return check_sample(argv[2]);
	/* --help asked for the usage: stdout; a wrong command line gets it on stderr. */
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(help ? stdout : stderr, "usage: %s OUT.pcap | --check FILE.pcap\n", argv[0]);
		return help ? 0 : 2;
	}
	rc = gen_sample(argv[1]);
	if (rc) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	return 0;
}
