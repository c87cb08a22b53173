/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rx-stamp: the receiving end of `scripts/bench.sh replay`. It reads the
 * IPv4 frames arriving on one interface through an AF_PACKET socket with a
 * TPACKET_V3 receive ring and takes the kernel's nanosecond timestamp of
 * each (SO_TIMESTAMPNS turns timestamping on, so a frame crossing a veth is
 * stamped when the peer's transmit hands it over, in the sender's system
 * call). The ring is filled by the kernel, not by this program, so how fast
 * it reads does not change the timestamps; the ring (128 MiB, blocks
 * retired after 20 ms) holds 2.5 s of traffic at any rate up to 200 kpps
 * of 600-byte frames, and the kernel's drop count is reported.
 *
 *   rx-stamp --iface IF --count N [--rate PPS] [--timeout-ms MS]
 *            [--idle-ms MS] [--ready-file PATH]
 *
 * It stops after N frames, after --idle-ms without a frame once one came,
 * or after --timeout-ms, and prints one line:
 *
 *   rx-stamp: frames=N rate_pps=R gap_err_p50_ns=A gap_err_p99_ns=B
 *             gap_err_max_ns=C drops=D
 *
 * rate_pps is (N - 1) over the first-to-last span; gap_err is, for each gap
 * between consecutive frames, |gap - 1/PPS| (PPS: --rate, or the achieved
 * rate when --rate is 0, for top speed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dataplane/dp_opts.h"
#include "dataplane/dp_rank.h"

enum {
	RX_BLOCK = 1 << 20,	/* ring block: 1 MiB */
	RX_BLOCKS = 128,	/* 128 MiB of ring */
	RX_FRAME = 2048,	/* frame slot size (V3 packs frames; a hint) */
	/*
	 * A block is handed over when full or this old: the ring holds at
	 * least 128 x 20 ms = 2.56 s of traffic however slowly it fills, so
	 * this program may be descheduled that long without a drop.
	 */
	RX_RETIRE_MS = 20,
	RX_ETH_IPV4 = 0x0800,	/* the sample trace's EtherType */
};

/* Options. */
struct rx_opts {
	/* interface to read */
	const char *iface;
	/* frames to wait for */
	uint64_t count;
	/* packets per second asked of the sender (0: top speed) */
	double rate;
	/* give up after this long */
	int timeout_ms;
	/* stop after this long without a frame, once one came */
	int idle_ms;
	/* created once the socket is ready */
	const char *ready_file;
};

/* The receive ring. */
struct rx_ring {
	/* the socket */
	int fd;
	/* the mapped ring */
	uint8_t *map;
	/* next block to read */
	unsigned int block;
};

/* The timestamps collected. */
struct rx_stamps {
	/* ns since the epoch, in arrival order */
	uint64_t *t;
	/* how many */
	uint64_t n;
	/* room */
	uint64_t cap;
};

/* Monotonic ms, for the time-outs. */
static int64_t rx_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The usage line, on f. */
static void rx_usage(FILE *f)
{
	fprintf(f, "usage: rx-stamp --iface IF --count N [--rate PPS] [--timeout-ms MS] "
		"[--idle-ms MS] [--ready-file PATH]\n");
}

/*
 * Parse the options: 0, 1 for --help (usage printed), or -1 after a message
 * naming the option that was wrong.
 */
static int rx_parse(struct rx_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "idle-ms", required_argument, NULL, 'd' },
		{ "ready-file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[160] = "";
	unsigned long count = 0;
	uint32_t ms;
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->timeout_ms = 60000;
	o->idle_ms = 1000;
	while (!rc && (c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->iface = optarg;
			break;
		case 'n':
			rc = dp_opt_ulong("--count", optarg, 1, 100000000, &count, err, sizeof(err));
			o->count = count;
			break;
		case 'r':
			rc = dp_opt_double("--rate", optarg, 0, 1e9, &o->rate, err, sizeof(err));
			break;
		case 't':
			rc = dp_opt_u32("--timeout-ms", optarg, 1, 86400000, &ms, err, sizeof(err));
			o->timeout_ms = (int)ms;
			break;
		case 'd':
			rc = dp_opt_u32("--idle-ms", optarg, 1, 86400000, &ms, err, sizeof(err));
			o->idle_ms = (int)ms;
			break;
		case 'f':
			o->ready_file = optarg;
			break;
		case 'h':
			rx_usage(stdout);
			return 1;
		default:
			rx_usage(stderr);
			return -1;
		}
	}
	if (!rc && optind != argc)
		rc = dp_opt_fail(err, sizeof(err), "unexpected argument '%s'", argv[optind]);
	if (!rc && !o->iface)
		rc = dp_opt_fail(err, sizeof(err), "--iface is required");
	if (!rc && !o->count)
		rc = dp_opt_fail(err, sizeof(err), "--count is required");
	if (rc) {
		fprintf(stderr, "rx-stamp: %s\n", err);
		return -1;
	}
	return 0;
}

/* Open the socket and its ring on iface; 0 or -errno. */
static int rx_open(struct rx_ring *r, const char *iface)
{
	struct tpacket_req3 req = {
		.tp_block_size = RX_BLOCK, .tp_block_nr = RX_BLOCKS,
		.tp_frame_size = RX_FRAME, .tp_frame_nr = RX_BLOCK / RX_FRAME * RX_BLOCKS,
		.tp_retire_blk_tov = RX_RETIRE_MS,
	};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int v = TPACKET_V3, one = 1;

	memset(r, 0, sizeof(*r));
	sll.sll_ifindex = (int)if_nametoindex(iface);
	if (sll.sll_ifindex == 0)
		return -ENODEV;
	r->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (r->fd < 0)
		return -errno;
	if (setsockopt(r->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) ||
	    setsockopt(r->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    setsockopt(r->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
		return -errno;
	r->map = mmap(NULL, (size_t)RX_BLOCK * RX_BLOCKS, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_LOCKED, r->fd, 0);
	if (r->map == MAP_FAILED)
		r->map = mmap(NULL, (size_t)RX_BLOCK * RX_BLOCKS, PROT_READ | PROT_WRITE,
			      MAP_SHARED, r->fd, 0);
	if (r->map == MAP_FAILED)
		return -errno;
	if (bind(r->fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -errno;
	return 0;
}

/* Keep the timestamp of every IPv4 frame of block b. */
static void rx_block(struct tpacket_block_desc *b, struct rx_stamps *s)
{
	struct tpacket3_hdr *h = (struct tpacket3_hdr *)((uint8_t *)b +
							 b->hdr.bh1.offset_to_first_pkt);

	for (uint32_t i = 0; i < b->hdr.bh1.num_pkts; i++) {
		const struct ether_header *eh = (const void *)((uint8_t *)h + h->tp_mac);

		if (h->tp_snaplen >= sizeof(*eh) && ntohs(eh->ether_type) == RX_ETH_IPV4 &&
		    s->n < s->cap)
			s->t[s->n++] = (uint64_t)h->tp_sec * 1000000000u + h->tp_nsec;
		h = (struct tpacket3_hdr *)((uint8_t *)h + h->tp_next_offset);
	}
}

/* Read blocks until the count, idleness or the time-out. */
static void rx_run(struct rx_ring *r, const struct rx_opts *o, struct rx_stamps *s)
{
	int64_t start = rx_ms(), last = 0;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN | POLLERR };

	while (s->n < o->count) {
		struct tpacket_block_desc *b = (struct tpacket_block_desc *)
			(r->map + (size_t)r->block * RX_BLOCK);
		int64_t now = rx_ms();

		if (now - start > o->timeout_ms || (last && now - last > o->idle_ms))
			break;
		if (!(b->hdr.bh1.block_status & TP_STATUS_USER)) {
			poll(&pfd, 1, 10);
			continue;
		}
		rx_block(b, s);
		last = rx_ms();
		__atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		r->block = (r->block + 1) % RX_BLOCKS;
	}
}

/* Compare for qsort. */
static int rx_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Print the figures of s. */
static void rx_report(const struct rx_stamps *s, double rate, unsigned int drops)
{
	uint64_t span, *err, n = s->n;
	double ideal, pps;

	if (n < 2) {
		printf("rx-stamp: frames=%llu rate_pps=0 gap_err_p50_ns=0 gap_err_p99_ns=0 gap_err_max_ns=0 drops=%u\n",
		       (unsigned long long)n, drops);
		return;
	}
	span = s->t[n - 1] - s->t[0];
	pps = span ? (double)(n - 1) * 1e9 / (double)span : 0;
	ideal = rate > 0 ? 1e9 / rate : (double)span / (double)(n - 1);
	err = malloc((n - 1) * sizeof(*err));
	if (err == NULL)
		return;
	for (uint64_t i = 1; i < n; i++) {
		double gap = (double)(int64_t)(s->t[i] - s->t[i - 1]);
		double e = gap > ideal ? gap - ideal : ideal - gap;

		err[i - 1] = (uint64_t)(e + 0.5);
	}
	qsort(err, n - 1, sizeof(*err), rx_cmp);
	printf("rx-stamp: frames=%llu rate_pps=%.1f gap_err_p50_ns=%llu gap_err_p99_ns=%llu gap_err_max_ns=%llu drops=%u\n",
	       (unsigned long long)n, pps, (unsigned long long)err[dp_rank_index(n - 1, 50)],
	       (unsigned long long)err[dp_rank_index(n - 1, 99)],
	       (unsigned long long)err[n - 2], drops);
	free(err);
}

int main(int argc, char **argv)
{
	struct tpacket_stats_v3 st = { 0 };
	socklen_t len = sizeof(st);
	struct rx_stamps s = { 0 };
	struct rx_ring r;
	struct rx_opts o;
	FILE *f;
	int rc;

	rc = rx_parse(&o, argc, argv);
	if (rc)
		return rc > 0 ? 0 : 2;
	s.cap = o.count;
	s.t = malloc(s.cap * sizeof(*s.t));
	rc = s.t ? rx_open(&r, o.iface) : -ENOMEM;
	if (rc) {
		fprintf(stderr, "rx-stamp: %s: %s\n", o.iface, strerror(-rc));
		return 1;
	}
	/* Drop what arrived before the count starts (nothing, normally). */
	getsockopt(r.fd, SOL_PACKET, PACKET_STATISTICS, &st, &len);
	if (o.ready_file && (f = fopen(o.ready_file, "w")) != NULL)
		fclose(f);
	rx_run(&r, &o, &s);
	len = sizeof(st);
	getsockopt(r.fd, SOL_PACKET, PACKET_STATISTICS, &st, &len);
	rx_report(&s, o.rate, st.tp_drops);
	close(r.fd);
	free(s.t);
	return s.n == o.count ? 0 : 1;
}
