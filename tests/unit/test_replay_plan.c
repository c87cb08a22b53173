/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Messages mode of segnet-replay without a network: what a frame carries
 * (UDP/TCP payload after VLAN tags, IPv6, never the Ethernet padding; the
 * whole frame for fragments and non-IP), the maps (ip and mac numbered by
 * first appearance, hash, files and their errors), the channel of each
 * message and its cut, the plan of the bundled sample, the message
 * header's bytes, the command line of messages mode and the lab state file,
 * and that the timing options take what the timing engine takes.
 * Then messages mode's sends through libsegnet to fake nicds on a
 * simulated clock: its stall time-out counts watched time.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "dataplane/dp_opts.h"
#include "nicd/ctl_msg.h"
#include "nicd/ep_shm.h"
#include "pcap/replay/replay.h"
#include "pcap/replay/replay_messages.h"
#include "pcap/replay/replay_plan.h"

/* The bundled sample trace. */
#define SAMPLE SEGNET_PCAP_SAMPLES "/cluster-udp.pcap"

/* UDP payloads of the sample of at most 24 bytes (tshark: udp.length - 8). */
enum { SAMPLE_RECORDS = 260, SAMPLE_QUICK = 21 };

/* A frame being built. */
struct tframe {
	/* its bytes */
	uint8_t b[256];
	/* how many */
	uint32_t len;
};

/* Append n bytes. */
static void put(struct tframe *f, const void *p, uint32_t n)
{
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

/* Append a big-endian 16-bit value. */
static void put16(struct tframe *f, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(f, b, 2);
}

/* Ethernet header from MAC ...:s to ...:d, with vlans tags, then type. */
static void eth(struct tframe *f, uint8_t s, uint8_t d, int vlans, uint16_t type)
{
	uint8_t dst[6] = { 2, 0, 0, 0, 0, d }, src[6] = { 2, 0, 0, 0, 0, s };

	f->len = 0;
	put(f, dst, 6);
	put(f, src, 6);
	for (int i = 0; i < vlans; i++) {
		put16(f, i ? 0x8100 : 0x88a8);
		put16(f, (uint16_t)(100 + i));
	}
	put16(f, type);
}

/* IPv4 header 10.0.0.s -> 10.0.0.d carrying l4len bytes of proto; frag field. */
static void ip4(struct tframe *f, uint8_t s, uint8_t d, uint8_t proto, uint16_t l4len,
		uint16_t frag)
{
	uint8_t h[20] = { 0x45, 0 };

	h[2] = (uint8_t)((20 + l4len) >> 8);
	h[3] = (uint8_t)(20 + l4len);
	h[6] = (uint8_t)(frag >> 8);
	h[7] = (uint8_t)frag;
	h[8] = 64;
	h[9] = proto;
	h[12] = 10, h[15] = s;
	h[16] = 10, h[19] = d;
	put(f, h, sizeof(h));
}

/* UDP header and n payload bytes 0, 1, 2, ... */
static void udp(struct tframe *f, uint16_t n)
{
	put16(f, 1000);
	put16(f, 2000);
	put16(f, (uint16_t)(8 + n));
	put16(f, 0);
	for (uint16_t i = 0; i < n; i++)
		f->b[f->len++] = (uint8_t)i;
}

Test(replay_plan, udp_payload_without_ethernet_padding)
{
	struct replay_pkt p;
	struct tframe f;

	eth(&f, 1, 2, 0, 0x0800);
	ip4(&f, 1, 2, 17, 8 + 4, 0);
	udp(&f, 4);
	cr_assert_eq(f.len, 46);
	memset(f.b + f.len, 0xee, 14);	/* padding to the 60-byte minimum */
	f.len = 60;
	replay_pkt_parse(f.b, f.len, &p);
	cr_assert_eq(p.content, REPLAY_CONTENT_UDP);
	cr_assert_eq(p.off, 42);
	cr_assert_eq(p.len, 4, "the padding is not payload: %u", p.len);
	cr_assert_eq(p.ip_src.kind, REPLAY_ADDR_IP4);
	cr_assert_eq(p.ip_src.b[3], 1);
	cr_assert_eq(p.ip_dst.b[3], 2);
	cr_assert_eq(p.mac_src.kind, REPLAY_ADDR_MAC);
	cr_assert_eq(p.mac_src.b[5], 1);
	cr_assert_eq(p.mac_dst.b[5], 2);
	/* Cut by the capture: what was captured. */
	replay_pkt_parse(f.b, 44, &p);
	cr_assert_eq(p.content, REPLAY_CONTENT_UDP);
	cr_assert_eq(p.len, 2);
}

Test(replay_plan, tcp_payload_after_two_vlan_tags)
{
	uint8_t tcp[24] = { 0 };
	struct replay_pkt p;
	struct tframe f;

	eth(&f, 3, 4, 2, 0x0800);
	ip4(&f, 3, 4, 6, 24 + 5, 0);
	tcp[12] = 6 << 4;	/* 24-byte header: 4 bytes of options */
	put(&f, tcp, sizeof(tcp));
	put(&f, "hello", 5);
	replay_pkt_parse(f.b, f.len, &p);
	cr_assert_eq(p.content, REPLAY_CONTENT_TCP);
	cr_assert_eq(p.off, 14 + 8 + 20 + 24);
	cr_assert_eq(p.len, 5);
	cr_assert(!memcmp(f.b + p.off, "hello", 5));
	cr_assert_eq(p.ip_dst.b[3], 4);
}

Test(replay_plan, ipv6_udp)
{
	uint8_t h[40] = { 0x60 };
	struct replay_pkt p;
	struct tframe f;

	eth(&f, 5, 6, 0, 0x86dd);
	h[5] = 8 + 3;
	h[6] = 17;
	h[8] = 0xfe, h[23] = 5;
	h[24] = 0xfe, h[39] = 6;
	put(&f, h, sizeof(h));
	udp(&f, 3);
	replay_pkt_parse(f.b, f.len, &p);
	cr_assert_eq(p.content, REPLAY_CONTENT_UDP);
	cr_assert_eq(p.off, 14 + 40 + 8);
	cr_assert_eq(p.len, 3);
	cr_assert_eq(p.ip_src.kind, REPLAY_ADDR_IP6);
	cr_assert_eq(p.ip_src.len, 16);
	cr_assert_eq(p.ip_src.b[15], 5);
	cr_assert_eq(p.ip_dst.b[15], 6);
}

Test(replay_plan, frames_carried_whole)
{
	uint8_t arp[28] = { 0 };
	struct replay_pkt p;
	struct tframe f;

	/* A fragment: IP addresses, but the frame is the content. */
	eth(&f, 1, 2, 0, 0x0800);
	ip4(&f, 1, 2, 17, 8 + 10, 0x2000);
	udp(&f, 10);
	replay_pkt_parse(f.b, f.len, &p);
	cr_assert_eq(p.content, REPLAY_CONTENT_FRAME);
	cr_assert_eq(p.off, 0);
	cr_assert_eq(p.len, f.len);
	cr_assert_eq(p.ip_src.kind, REPLAY_ADDR_IP4);
	/* ICMP. */
	eth(&f, 1, 2, 0, 0x0800);
	ip4(&f, 1, 2, 1, 8, 0);
	udp(&f, 0);
	replay_pkt_parse(f.b, f.len, &p);
	cr_assert_eq(p.content, REPLAY_CONTENT_FRAME);
	/* ARP: MAC addresses only. */
	eth(&f, 1, 2, 0, 0x0806);
	put(&f, arp, sizeof(arp));
	replay_pkt_parse(f.b, f.len, &p);
	cr_assert_eq(p.content, REPLAY_CONTENT_FRAME);
	cr_assert_eq(p.ip_src.kind, REPLAY_ADDR_NONE);
	cr_assert_eq(p.mac_src.kind, REPLAY_ADDR_MAC);
	/* A runt: nothing. */
	replay_pkt_parse(f.b, 10, &p);
	cr_assert_eq(p.mac_src.kind, REPLAY_ADDR_NONE);
	cr_assert_eq(p.len, 10);
	/* A UDP length beyond the IP packet: malformed, carried whole. */
	eth(&f, 1, 2, 0, 0x0800);
	ip4(&f, 1, 2, 17, 8 + 4, 0);
	udp(&f, 4);
	f.b[14 + 20 + 5] = 200;
	replay_pkt_parse(f.b, f.len, &p);
	cr_assert_eq(p.content, REPLAY_CONTENT_FRAME);
}

/* A trace of n frames from 10.0.0.src[k] to 10.0.0.dst[k], payloads of len[k]. */
static struct trace *small_trace(const uint8_t *src, const uint8_t *dst, const uint16_t *len,
				 unsigned int n)
{
	struct trace *t = calloc(1, sizeof(*t));

	cr_assert_not_null(t);
	t->recs = calloc(n, sizeof(*t->recs));
	t->data = calloc(n, sizeof(struct tframe));
	cr_assert(t->recs && t->data);
	for (unsigned int k = 0; k < n; k++) {
		struct tframe *f = (struct tframe *)t->data + k;

		eth(f, src[k], dst[k], 0, 0x0800);
		ip4(f, src[k], dst[k], 17, (uint16_t)(8 + len[k]), 0);
		udp(f, len[k]);
		t->recs[k] = (struct trace_rec){
			.caplen = f->len, .wirelen = f->len, .data = f->b, .index = k,
		};
	}
	t->n = n;
	return t;
}

/* A map from spec, which must parse. */
static struct replay_map *map_of(const char *spec)
{
	char err[256] = "";
	struct replay_map *m = replay_map_parse(spec, err, sizeof(err));

	cr_assert_not_null(m, "%s: %s", spec, err);
	return m;
}

/* The plan of t over nodes with map and the channel rules. */
static struct replay_plan *plan_of(const struct trace *t, const struct replay_map *map,
				   unsigned int nodes, enum replay_chan_choice ch, uint32_t qmax)
{
	struct replay_plan_conf c = {
		.map = map, .nodes = nodes, .channel = ch, .quick_max = qmax,
	};
	char err[256] = "";
	struct replay_plan *p = replay_plan_build(t, &c, err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	return p;
}

Test(replay_plan, ip_addresses_numbered_by_first_appearance)
{
	static const uint8_t src[] = { 7, 9, 8, 7, 5 }, dst[] = { 9, 7, 7, 8, 9 };
	static const uint16_t len[] = { 1, 24, 25, 0, 3 };
	struct trace *t = small_trace(src, dst, len, 5);
	struct replay_map *m = map_of("ip");
	struct replay_plan *p = plan_of(t, m, 3, REPLAY_CHAN_AUTO, REPLAY_QUICK_CAP);

	/* 10.0.0.7 -> 0, .9 -> 1, .8 -> 2, .5 -> 3 % 3 = 0. */
	cr_assert_eq(p->addresses, 4);
	cr_assert_eq(p->n, 5);
	cr_assert_eq(p->rec[0].src, 0);
	cr_assert_eq(p->rec[0].dst, 1);
	cr_assert_eq(p->rec[1].src, 1);
	cr_assert_eq(p->rec[2].src, 2);
	cr_assert_eq(p->rec[2].dst, 0);
	cr_assert_eq(p->rec[4].src, 0);
	cr_assert_eq(p->rec[4].dst, 1);
	/* Channels: 24 bytes fit the quick arguments, 25 do not. */
	cr_assert_eq(p->rec[1].chan, REPLAY_QUICK);
	cr_assert_eq(p->rec[2].chan, REPLAY_BULK);
	cr_assert_eq(p->rec[3].chan, REPLAY_QUICK);
	cr_assert_eq(p->rec[3].len, 0);
	cr_assert_eq(p->per_chan[REPLAY_QUICK], 4);
	cr_assert_eq(p->cut, 0);
	replay_plan_free(p);
	/* On two nodes .7, .8 are on node 0 and .9, .5 on node 1. */
	p = plan_of(t, m, 2, REPLAY_CHAN_AUTO, REPLAY_QUICK_CAP);
	cr_assert_eq(p->same_node, 3, "8->7, 7->8 and 5->9 stay on one node");
	cr_assert_eq(p->n, 2);
	cr_assert_eq(p->rec[1].rec, 1, "entries keep the trace's record index");
	cr_assert_eq(p->rec[1].src, 1);
	replay_plan_compact(p, t);
	cr_assert_eq(t->n, 2);
	cr_assert_eq(t->recs[1].index, 1);
	replay_plan_free(p);
	/* The compacted trace plans again to the same messages. */
	p = plan_of(t, m, 3, REPLAY_CHAN_AUTO, REPLAY_QUICK_CAP);
	cr_assert_eq(p->n, 2);
	replay_plan_free(p);
	replay_map_free(m);
	trace_free(t);
}

Test(replay_plan, channel_overrides_and_cuts)
{
	static const uint8_t src[] = { 1, 2, 1 }, dst[] = { 2, 1, 2 };
	static const uint16_t len[] = { 10, 30, 0 };
	struct trace *t = small_trace(src, dst, len, 3);
	struct replay_map *m = map_of("ip");
	struct replay_plan *p = plan_of(t, m, 2, REPLAY_CHAN_QUICK, 0);

	cr_assert_eq(p->per_chan[REPLAY_QUICK], 3);
	cr_assert_eq(p->cut, 1);
	cr_assert(p->rec[1].cut);
	cr_assert_eq(p->rec[1].len, REPLAY_QUICK_CAP);
	replay_plan_free(p);
	p = plan_of(t, m, 2, REPLAY_CHAN_BULK, REPLAY_QUICK_CAP);
	cr_assert_eq(p->per_chan[REPLAY_BULK], 3);
	cr_assert_eq(p->cut, 0);
	replay_plan_free(p);
	p = plan_of(t, m, 2, REPLAY_CHAN_AUTO, 0);
	cr_assert_eq(p->per_chan[REPLAY_QUICK], 1, "--quick-max 0: only empty content");
	cr_assert_eq(p->rec[2].chan, REPLAY_QUICK);
	replay_plan_free(p);
	replay_map_free(m);
	trace_free(t);
}

Test(replay_plan, mac_and_hash_maps)
{
	static const uint8_t src[] = { 1, 2, 3 }, dst[] = { 2, 3, 1 };
	static const uint16_t len[] = { 1, 1, 1 };
	struct trace *t = small_trace(src, dst, len, 3);
	struct replay_map *m = map_of("mac");
	struct replay_plan *p = plan_of(t, m, 4, REPLAY_CHAN_AUTO, REPLAY_QUICK_CAP);
	uint8_t ip[4] = { 10, 0, 0, 1 };
	uint64_t h = 14695981039346656037ull;

	cr_assert_eq(replay_map_kind(m), REPLAY_MAP_MAC);
	cr_assert_eq(p->addresses, 3);
	cr_assert_eq(p->rec[1].src, 1);
	cr_assert_eq(p->rec[1].dst, 2);
	replay_plan_free(p);
	replay_map_free(m);
	/* hash: FNV-1a 64 of the IPv4 address's four bytes, modulo the nodes. */
	m = map_of("hash");
	p = plan_of(t, m, 5, REPLAY_CHAN_AUTO, REPLAY_QUICK_CAP);
	for (int i = 0; i < 4; i++)
		h = (h ^ ip[i]) * 1099511628211ull;
	cr_assert_eq(p->addresses, 0);
	cr_assert_eq(p->n + p->same_node, 3);
	if (p->n && p->rec[0].rec == 0)
		cr_assert_eq(p->rec[0].src, h % 5);
	replay_plan_free(p);
	replay_map_free(m);
	trace_free(t);
}

/* Write text to a scratch file; its path (static). */
static const char *scratch(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/replay-plan-%d-%s", SEGNET_TEST_TMPDIR, (int)getpid(),
		 name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Expect map file text to be refused with a message holding want. */
static void map_refused(const char *text, const char *want)
{
	const char *path = scratch("bad.map", text);
	char err[512] = "";

	cr_assert_null(replay_map_parse(path, err, sizeof(err)), "accepted: %s", text);
	cr_assert(strstr(err, want), "%s: want \"%s\"", err, want);
	unlink(path);
}

Test(replay_plan, map_files)
{
	static const uint8_t src[] = { 1, 2, 3, 4 }, dst[] = { 2, 3, 1, 1 };
	static const uint16_t len[] = { 1, 1, 1, 1 };
	const char *path = scratch("good.map",
				   "# hosts\n10.0.0.1 0\n\n10.0.0.2   2 # comment\n"
				   "02:00:00:00:00:03 1\nfe80::1 3\n");
	struct trace *t = small_trace(src, dst, len, 4);
	struct replay_map *m = map_of(path);
	struct replay_plan_conf c = { .map = m, .nodes = 3 };
	char err[256] = "";
	struct replay_plan *p;

	unlink(path);
	cr_assert_eq(replay_map_kind(m), REPLAY_MAP_FILE);
	cr_assert_eq(replay_map_max_node(m), 3);
	cr_assert_null(replay_plan_build(t, &c, err, sizeof(err)));
	cr_assert(strstr(err, "names node 3, but there are 3 nodes"), "%s", err);
	p = plan_of(t, m, 4, REPLAY_CHAN_AUTO, REPLAY_QUICK_CAP);
	/* .1 -> 0, .2 -> 2, .3 by its MAC -> 1, .4 unknown. */
	cr_assert_eq(p->unmapped, 1);
	cr_assert_eq(p->n, 3);
	cr_assert_eq(p->rec[0].src, 0);
	cr_assert_eq(p->rec[0].dst, 2);
	cr_assert_eq(p->rec[1].dst, 1);
	replay_plan_free(p);
	replay_map_free(m);
	trace_free(t);
	map_refused("10.0.0.1\n", "line 1: must be ADDRESS NODE");
	map_refused("10.0.0.1 0\nbogus 1\n", "line 2: bogus is not a MAC, IPv4 or IPv6 address");
	map_refused("10.0.0.1 64\n", "node 64 must be a node index, 0 .. 63");
	map_refused("10.0.0.1 x\n", "node x must be a node index");
	map_refused("10.0.0.1 0\n10.0.0.1 1\n", "line 2: 10.0.0.1 is given twice");
	map_refused("# nothing\n", "no ADDRESS NODE line");
	cr_assert_null(replay_map_parse("/nonexistent/x.map", err, sizeof(err)));
	cr_assert(strstr(err, "give hash, mac, ip or a file"), "%s", err);
}

Test(replay_plan, the_sample_on_four_nodes)
{
	struct trace_err terr;
	struct trace *t = trace_load(SAMPLE, &terr);
	struct replay_map *m = map_of("ip");
	struct replay_plan *p;

	cr_assert_not_null(t, "%s", terr.msg);
	p = plan_of(t, m, 4, REPLAY_CHAN_AUTO, REPLAY_QUICK_CAP);
	cr_assert_eq(p->records, SAMPLE_RECORDS);
	cr_assert_eq(p->n, SAMPLE_RECORDS, "four hosts on four nodes: nothing skipped");
	cr_assert_eq(p->addresses, 4);
	cr_assert_eq(p->per_chan[REPLAY_QUICK], SAMPLE_QUICK);
	cr_assert_eq(p->per_chan[REPLAY_BULK], SAMPLE_RECORDS - SAMPLE_QUICK);
	for (uint64_t k = 0; k < p->n; k++) {
		cr_assert_neq(p->rec[k].src, p->rec[k].dst);
		cr_assert_eq(p->rec[k].content, REPLAY_CONTENT_UDP);
		cr_assert_eq(p->rec[k].off, 42);
		cr_assert_eq(p->rec[k].len + 42, t->recs[k].caplen);
	}
	replay_plan_free(p);
	/* Two nodes: every address shares a node with another one. */
	p = plan_of(t, m, 2, REPLAY_CHAN_AUTO, REPLAY_QUICK_CAP);
	cr_assert_gt(p->same_node, 0);
	cr_assert_eq(p->n + p->same_node, SAMPLE_RECORDS);
	replay_plan_free(p);
	replay_map_free(m);
	trace_free(t);
}

Test(replay_plan, message_header_bytes)
{
	struct replay_msg_hdr h = { .id = 0x04030201, .len = 0x0605, .flags = REPLAY_MSG_CUT,
				    .content = REPLAY_CONTENT_FRAME };
	static const uint8_t want[8] = { 1, 2, 3, 4, 5, 6, 1, 2 };
	uint8_t args[REPLAY_ARGS_LEN] = { 0 };
	struct replay_msg_hdr g;

	replay_msg_hdr_put(args, &h);
	cr_assert(!memcmp(args, want, sizeof(want)), "little endian, in order");
	replay_msg_hdr_get(args, &g);
	cr_assert_eq(g.id, h.id);
	cr_assert_eq(g.len, h.len);
	cr_assert_eq(g.flags, h.flags);
	cr_assert_eq(g.content, h.content);
	cr_assert_eq(REPLAY_QUICK_CAP, 24);
}

/* Parse a segnet-replay command line (argv after the name); the return value. */
static int parse_v(struct replay_opts *o, char *err, size_t len, va_list ap)
{
	char *argv[32] = { "segnet-replay" };
	int argc = 1;

	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	err[0] = '\0';
	return replay_opts_parse(o, argc, argv, err, len);
}

/* Parse a command line (NULL-terminated); the return value. */
static int parse(struct replay_opts *o, char *err, size_t len, ...)
{
	va_list ap;
	int rc;

	va_start(ap, len);
	rc = parse_v(o, err, len, ap);
	va_end(ap);
	return rc;
}

/* Expect a command line (NULL-terminated) to be refused with a message holding want. */
static void refused(const char *want, ...)
{
	struct replay_opts o;
	char err[512];
	va_list ap;
	int rc;

	va_start(ap, want);
	rc = parse_v(&o, err, sizeof(err), ap);
	va_end(ap);
	cr_assert_eq(rc, -EINVAL, "accepted, want: %s", want);
	cr_assert(strstr(err, want), "%s: want \"%s\"", err, want);
}

Test(replay_plan, messages_command_line)
{
	const char *key = scratch("vnet.key", "secret\n");
	char kf[512], err[512];
	struct replay_opts o;

	snprintf(kf, sizeof(kf), "%s", key);
	cr_assert_eq(parse(&o, err, sizeof(err), "--mode", "messages", "--nicd", "a", "--nicd", "b",
			   "--key-file", kf, "--map", "mac", "--channel", "auto", "--quick-max", "7",
			   "--vnet", "9", "--drain-ms", "100", "--latency-csv", "l.csv", "--pps", "10",
			   SAMPLE, NULL), 0, "%s", err);
	cr_assert_eq(o.n_nicd, 2);
	cr_assert_str_eq(o.nicd[1], "b");
	cr_assert_eq(o.channel, REPLAY_CHAN_AUTO);
	cr_assert_eq(o.quick_max, 7);
	cr_assert_eq(o.vnet, 9);
	cr_assert_eq(o.drain_ms, 100);
	cr_assert_str_eq(o.map, "mac");
	cr_assert_eq(parse(&o, err, sizeof(err), "--mode", "messages", "--lab", "/nowhere", SAMPLE,
			   NULL), 0, "--lab alone: the key comes from the lab (%s)", err);
	cr_assert_str_eq(o.map, "ip");
	cr_assert_eq(o.quick_max, REPLAY_QUICK_CAP);
	refused("--nicd only applies to --mode messages", "--port", "p", "--nicd", "a", SAMPLE, NULL);
	refused("--port only applies to frames mode", "--mode", "messages", "--port", "p",
		"--nicd", "a", "--nicd", "b", "--key-file", kf, SAMPLE, NULL);
	refused("messages mode needs the nodes", "--mode", "messages", "--key-file", kf, SAMPLE, NULL);
	refused("give at least 2", "--mode", "messages", "--nicd", "a", "--key-file", kf, SAMPLE, NULL);
	refused("--nicd and --lab do not go together", "--mode", "messages", "--nicd", "a",
		"--nicd", "b", "--lab", "d", "--key-file", kf, SAMPLE, NULL);
	refused("needs --key-file FILE, the key of --vnet 1", "--mode", "messages", "--nicd", "a",
		"--nicd", "b", SAMPLE, NULL);
	refused("--key-file /nonexistent/k: No such file", "--mode", "messages", "--nicd", "a",
		"--nicd", "b", "--key-file", "/nonexistent/k", SAMPLE, NULL);
	refused("--quick-max 25: must be between 0 and 24", "--mode", "messages", "--quick-max",
		"25", SAMPLE, NULL);
	refused("--channel both: must be auto, quick or bulk", "--mode", "messages", "--channel",
		"both", SAMPLE, NULL);
	cr_assert_eq(parse(&o, err, sizeof(err), "--mode", "messages", "--nicd", "a", "--nicd", "b",
			   "--key-file", kf, "--channel", "bulk", SAMPLE, NULL), 0, "%s", err);
	cr_assert_eq(o.channel, REPLAY_CHAN_BULK);
	/* Every message goes on the one channel: --quick-max would sort nothing. */
	refused("--quick-max only applies to --channel auto", "--mode", "messages", "--nicd", "a",
		"--nicd", "b", "--key-file", kf, "--channel", "quick", "--quick-max", "7", SAMPLE,
		NULL);
	refused("--vnet 70000", "--mode", "messages", "--vnet", "70000", SAMPLE, NULL);
	refused("--drain-ms x", "--mode", "messages", "--drain-ms", "x", SAMPLE, NULL);
	refused("--map /nonexistent/m", "--mode", "messages", "--nicd", "a", "--nicd", "b",
		"--key-file", kf, "--map", "/nonexistent/m", SAMPLE, NULL);
	/* Named as given, refused the second time but for a list (--nicd, above). */
	refused("-x: unknown option", "--mode", "messages", "-xq", SAMPLE, NULL);
	refused("--pps given twice", "--port", "p", "--pps", "10", "--pps", "20", SAMPLE, NULL);
	refused("--pps and --topspeed do not go together: give one of --multiplier, --pps, --mbps, --topspeed",
		"--port", "p", "--pps", "10", "--topspeed", SAMPLE, NULL);
	refused("--vnet given twice", "--mode", "messages", "--nicd", "a", "--nicd", "b",
		"--key-file", kf, "--vnet", "1", "--vnet", "2", SAMPLE, NULL);
	unlink(kf);
}

Test(replay_plan, lab_state_file)
{
	char err[512], dir[400], state[512];
	struct replay_lab lab;
	const char *path;
	FILE *f;

	path = scratch("lab.state", "name=x\ndir=/tmp/labx\nstate=starting\nnodes=4\n"
			"key.1=/tmp/labx/vnet1.key\n");
	cr_assert_eq(replay_lab_read(path, 1, true, &lab, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "is not up (state starting)"), "%s", err);
	path = scratch("lab.state", "name=x\ndir=/tmp/labx\nstate=starting\nnodes=4\n"
			"key.1=/tmp/labx/vnet1.key\nkey.2=/tmp/labx/vnet2.key\nstate=up\n");
	cr_assert_eq(replay_lab_read(path, 2, true, &lab, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab.nodes, 4);
	cr_assert_str_eq(lab.sock[3], "/tmp/labx/nicd/n3.sock");
	cr_assert_str_eq(lab.key_file, "/tmp/labx/vnet2.key");
	free(lab.sock);
	cr_assert_eq(replay_lab_read(path, 3, true, &lab, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "no virtual network 3"), "%s", err);
	/* With --key-file given, the lab needs no key line for the network. */
	cr_assert_eq(replay_lab_read(path, 3, false, &lab, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab.nodes, 4);
	cr_assert_str_eq(lab.key_file, "");
	free(lab.sock);
	unlink(path);
	/* The directory holding lab.state works as well as the file. */
	snprintf(dir, sizeof(dir), "%s/replay-plan-%d-lab", SEGNET_TEST_TMPDIR, (int)getpid());
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(replay_lab_read(dir, 1, true, &lab, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "lab.state: No such file"), "%s", err);
	snprintf(state, sizeof(state), "%s/lab.state", dir);
	f = fopen(state, "w");
	cr_assert_not_null(f);
	fprintf(f, "dir=%s\nnodes=2\nstate=up\nkey.1=%s/vnet1.key\n", dir, dir);
	fclose(f);
	cr_assert_eq(replay_lab_read(dir, 1, true, &lab, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab.nodes, 2);
	cr_assert(strstr(lab.sock[1], "-lab/nicd/n1.sock"), "%s", lab.sock[1]);
	free(lab.sock);
	unlink(state);
	rmdir(dir);
}

/*
 * Messages mode's sends on a simulated clock, through libsegnet to fake
 * nicds: each node's endpoint is served over its control socket (a thread
 * answers the opens), then the test is nicd, draining the send rings
 * (completion, delivery to the target's receive ring) at the clock reads
 * the scenario says. The replay looks at the clock once per send call.
 */

/* Nodes of the fake cluster. */
enum { FAKE_NODES = 2 };

/* One fake nicd: its control socket and the endpoint it served. */
struct fake_nicd {
	/* the control socket's path */
	char path[108];
	/* listening, then the endpoint's connection (kept open: its EOF ends the endpoint) */
	int lfd, conn;
	/* the endpoint's object, nicd's side */
	void *base;
	/* its layout */
	struct ep_layout l;
	/* nicd's views of its rings */
	struct ep_view v;
	/* next receive buffer handed out */
	uint32_t next_buf;
};

/* The simulated clock, and nicd as it runs or not at each read. */
struct fake_rig {
	/* the nodes */
	struct fake_nicd n[FAKE_NODES];
	/* the clock's reading */
	uint64_t now;
	/* every read advances the clock this much (the replay's time between looks) */
	uint64_t read_ns;
	/* nicd does not run (its send rings fill up) */
	bool asleep;
	/* reads while asleep with node 0's send ring full (the replay retrying) */
	unsigned int full_reads;
	/* at that read the clock jumps pause_ns (both paused) ... */
	unsigned int pause_read;
	/* ... this far */
	uint64_t pause_ns;
	/* at that read nicd wakes up (0: never) */
	unsigned int wake_read;
	/* what the loop waits on */
	struct waiter_clock clock;
};

/* Messages mode's entry of the mode table. */
static const struct replay_mode *messages(void)
{
	return replay_mode_find("messages");
}

/* nicd's turn: every send taken, completed and delivered to its target. */
static void fake_run(struct fake_rig *r)
{
	for (unsigned int i = 0; i < FAKE_NODES; i++) {
		struct fake_nicd *n = &r->n[i];
		struct ep_send_desc d;
		struct ep_rret ret;

		while (spsc_pop(&n->v.rret, &ret))
			;
		while (spsc_pop(&n->v.send, &d)) {
			struct fake_nicd *t = &r->n[d.dst_node];
			struct ep_recv_desc rd = {
				.buf = t->next_buf++ % t->l.recv_bufs, .src_node = (uint16_t)i,
				.handler = d.handler, .chan = d.chan, .len = d.len,
			};
			struct ep_comp c = { .buf = d.buf, .status = SEGNET_OK };

			memcpy(rd.args, d.args, sizeof(rd.args));
			memcpy(t->v.recv_bufs + (size_t)rd.buf * EP_BUF_SIZE,
			       n->v.send_bufs + (size_t)d.buf * EP_BUF_SIZE, d.len);
			cr_assert(spsc_push(&t->v.recv, &rd));
			cr_assert(spsc_push(&n->v.comp, &c));
		}
	}
}

/* The simulated clock: a read; nicd runs, or the scenario's pause or wake-up happens. */
static uint64_t fake_now(void *ctx)
{
	struct fake_rig *r = ctx;

	r->now += r->read_ns;
	if (r->asleep && spsc_avail(&r->n[0].v.send) == r->n[0].l.send_bufs) {
		r->full_reads++;
		if (r->full_reads == r->pause_read)
			r->now += r->pause_ns;
		if (r->full_reads == r->wake_read)
			r->asleep = false;
	}
	if (!r->asleep)
		fake_run(r);
	return r->now;
}

/* Simulated sleep. */
static void fake_sleep(void *ctx, uint64_t ns)
{
	struct fake_rig *r = ctx;

	r->now += ns;
}

/* Answer one OPEN on n's socket with a fresh endpoint of node id in a cluster of FAKE_NODES. */
static void fake_serve(struct fake_nicd *n, uint16_t id)
{
	struct ctl_reply rep = {
		.magic = CTL_MAGIC, .version = CTL_VERSION, .type = CTL_OPEN_OK, .node = id,
		.generation = 1,
	};
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct ctl_open o;
	int fds[CTL_FDS];

	n->conn = accept(n->lfd, NULL, NULL);
	cr_assert_geq(n->conn, 0);
	cr_assert_eq(recv(n->conn, &o, sizeof(o), 0), (ssize_t)sizeof(o));
	cr_assert_eq(ep_layout_compute(EP_DEFAULT_BUFS, EP_DEFAULT_BUFS, &n->l), 0);
	cr_assert_eq(ep_shm_create("replay-plan-fake", &n->l, &fds[0], &n->base), 0);
	ep_shm_format(n->base, &n->l, 1, 0, o.vnet);
	ep_view_init(&n->v, n->base, &n->l, true);
	n->v.hdr->max_nodes = FAKE_NODES;
	n->v.hdr->max_endpoints = 1;
	atomic_store(&n->v.hdr->node, id);
	atomic_store(&n->v.hdr->cluster_size, FAKE_NODES);
	fds[1] = eventfd(0, EFD_CLOEXEC);
	cr_assert_geq(fds[1], 0);
	rep.shm_size = n->l.size;
	memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), fds, sizeof(fds));
	CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
	CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
	CMSG_FIRSTHDR(&mh)->cmsg_len = CMSG_LEN(sizeof(fds));
	cr_assert_eq(sendmsg(n->conn, &mh, 0), (ssize_t)sizeof(rep));
	close(fds[0]);
	close(fds[1]);
}

/* The thread answering the opens, one per node in node order. */
static void *fake_server(void *arg)
{
	struct fake_rig *r = arg;

	for (unsigned int i = 0; i < FAKE_NODES; i++)
		fake_serve(&r->n[i], (uint16_t)i);
	return NULL;
}

/*
 * Messages mode set up on the fake nicds for a trace of n messages from
 * node 0 to node 1 (10.0.0.1 -> 10.0.0.2, 4 bytes each: quick).
 */
static void *fake_setup(struct fake_rig *r, struct replay_opts *o, struct trace **t,
			unsigned int n)
{
	uint8_t src[128], dst[128];
	uint16_t len[128];
	char err[512] = "", kf[512];
	struct replay_env env = { .opts = o, .clock = &r->clock };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pthread_t th;
	void *state = NULL;

	cr_assert_leq(n, 128);
	for (unsigned int k = 0; k < n; k++) {
		src[k] = 1;
		dst[k] = 2;
		len[k] = 4;
	}
	*t = small_trace(src, dst, len, n);
	r->clock = (struct waiter_clock){ .now = fake_now, .sleep = fake_sleep, .ctx = r };
	for (unsigned int i = 0; i < FAKE_NODES; i++) {
		struct fake_nicd *f = &r->n[i];

		snprintf(f->path, sizeof(f->path), "%s/rp-%d-n%u.sock", SEGNET_TEST_TMPDIR,
			 (int)getpid(), i);
		unlink(f->path);
		f->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
		cr_assert_eq(bind(f->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", f->path);
		cr_assert_eq(listen(f->lfd, 1), 0);
	}
	snprintf(kf, sizeof(kf), "%s", scratch("fake.key", "secret\n"));
	cr_assert_eq(parse(o, err, sizeof(err), "--mode", "messages", "--nicd", r->n[0].path,
			   "--nicd", r->n[1].path, "--key-file", kf, SAMPLE, NULL), 0, "%s", err);
	env.trace = *t;
	cr_assert_eq(pthread_create(&th, NULL, fake_server, r), 0);
	cr_assert_eq(messages()->setup(&env, &state, err, sizeof(err)), 0, "%s", err);
	pthread_join(th, NULL);
	unlink(kf);
	return state;
}

/* Close the mode and the fake nicds. */
static void fake_teardown(struct fake_rig *r, void *state, struct trace *t)
{
	messages()->teardown(state);
	for (unsigned int i = 0; i < FAKE_NODES; i++) {
		close(r->n[i].conn);
		close(r->n[i].lfd);
		munmap(r->n[i].base, r->n[i].l.size);
		unlink(r->n[i].path);
	}
	trace_free(t);
}

/* Send the trace's messages one per flush, as a paced replay does; how many were sent. */
static unsigned int fake_send_all(void *state, const struct trace *t)
{
	unsigned int sent = 0;

	for (uint64_t k = 0; k < t->n; k++) {
		cr_assert_eq(messages()->send(state, &t->recs[k]), 0);
		sent += messages()->flush(state);
	}
	return sent;
}

/*
 * nicd does not run while node 0's 64 send buffers fill up, so the 65th
 * send finds none and retries; at its second look the replay and nicd are
 * paused together for twice the stall time-out (the machine paused), and
 * nicd runs again two looks later. The pause is not time the replay
 * watched: it retries, and every message goes. Before, the 4 s counted:
 * the message was dropped as stalled at the first look after the pause,
 * before nicd had run again.
 */
Test(replay_messages, a_sender_paused_past_the_stall_time_out_retries_and_drops_nothing)
{
	struct fake_rig r = { .read_ns = 1000, .asleep = true, .pause_read = 2,
			      .pause_ns = 2 * REPLAY_MSGS_STALL_NS, .wake_read = 4 };
	struct replay_opts o;
	struct replay_msgs *m;
	struct trace *t;
	unsigned int sent;

	m = fake_setup(&r, &o, &t, 100);
	sent = fake_send_all(m, t);
	cr_assert_eq(m->chan[REPLAY_QUICK].dropped, 0, "%llu messages dropped after a pause",
		     (unsigned long long)m->chan[REPLAY_QUICK].dropped);
	cr_assert_eq(sent, 100);
	cr_assert_eq(m->chan[REPLAY_QUICK].busy, 1);
	cr_assert_eq(r.full_reads, 4);
	messages()->drain(m);
	cr_assert_eq(m->chan[REPLAY_QUICK].delivered, 100);
	cr_assert_eq(replay_msgs_failures(m), 0);
	fake_teardown(&r, m, t);
}

/*
 * An endpoint whose nicd never runs again is still given up on when the
 * replay is preempted between every two send calls (50 ms each time,
 * counted as REPLAY_GAP_NS): after the stall time-out of watched time, so
 * within REPLAY_MSGS_STALL_NS / REPLAY_GAP_NS looks, not never. The
 * message is dropped; the next one is dropped the same way.
 */
Test(replay_messages, a_stalled_endpoint_is_given_up_on_by_a_sender_preempted_at_every_call)
{
	const uint64_t looks = REPLAY_MSGS_STALL_NS / REPLAY_GAP_NS;
	struct fake_rig r = { .read_ns = 1000, .asleep = true };
	struct replay_opts o;
	struct replay_msgs *m;
	struct trace *t;

	m = fake_setup(&r, &o, &t, 65);
	r.read_ns = 50ull * 1000 * 1000;
	cr_assert_eq(fake_send_all(m, t), 64);
	cr_assert_eq(m->chan[REPLAY_QUICK].dropped, 1);
	cr_assert_eq(r.full_reads, looks + 1, "%u looks, want %llu", r.full_reads,
		     (unsigned long long)(looks + 1));
	fake_teardown(&r, m, t);
}

/*
 * --multiplier, --pps and --mbps take, at both ends, what the timing engine
 * takes (one definition of the bounds, timing_*_range): each end as a user
 * types it is accepted and passes timing_opts_check; the next double past
 * it is refused, the message naming the engine's bounds.
 */
Test(replay_plan, timing_options_take_what_the_engine_takes)
{
	static const struct {
		const char *opt;
		const struct timing_range *r;
	} rates[] = {
		{ "--multiplier", &timing_multiplier_range },
		{ "--pps", &timing_pps_range },
		{ "--mbps", &timing_mbps_range },
	};
	char err[512], lo[DP_OPT_NUM_LEN], hi[DP_OPT_NUM_LEN], v[64], want[256];
	struct replay_opts o;

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		const struct timing_range *r = rates[i].r;
		const double ends[2] = { r->min, r->max };
		const double past[2] = { nextafter(r->min, 0), nextafter(r->max, INFINITY) };

		dp_opt_num(r->min, lo);
		dp_opt_num(r->max, hi);
		for (int e = 0; e < 2; e++) {
			dp_opt_num(ends[e], v);
			cr_assert_eq(parse(&o, err, sizeof(err), "--port", "p", rates[i].opt, v, SAMPLE,
					   NULL), 0, "%s %s: %s", rates[i].opt, v, err);
			cr_assert_eq(timing_opts_check(&o.timing, err, sizeof(err)), 0, "%s %s: %s",
				     rates[i].opt, v, err);
			snprintf(v, sizeof(v), "%.17g", past[e]);
			snprintf(want, sizeof(want), "%s %s: must be between %s and %s", rates[i].opt,
				 v, lo, hi);
			refused(want, "--port", "p", rates[i].opt, v, SAMPLE, NULL);
		}
	}
}
