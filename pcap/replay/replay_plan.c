/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plan of messages mode: frames read for addresses and content, the
 * map from addresses to nodes, the channel of each message, the message
 * header. Addresses live in a small open-addressing table (a trace has
 * few hosts and many records).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap/replay/replay_plan.h"

/* Ethernet and IP numbers the parser knows. */
enum {
	ETH_HDR = 14,
	ETH_VLAN = 0x8100,
	ETH_QINQ = 0x88a8,
	ETH_IP4 = 0x0800,
	ETH_IP6 = 0x86dd,
	IP4_HDR_MIN = 20,
	IP6_HDR = 40,
	IP_UDP = 17,
	IP_TCP = 6,
	UDP_HDR = 8,
	TCP_HDR_MIN = 20,
	VLAN_TAGS_MAX = 2,
};

/* Line length of a map file, at most. */
enum { REPLAY_MAP_LINE = 256 };

/* One address and its node in a table. */
struct addr_slot {
	/* the address (kind NONE: the slot is free) */
	struct replay_addr a;
	/* its node index */
	uint16_t node;
};

/* Addresses and their nodes. */
struct addr_table {
	/* the slots; a power of two of them */
	struct addr_slot *slot;
	/* slots - 1 */
	uint64_t mask;
	/* slots used */
	uint64_t used;
};

struct replay_map {
	/* what it maps by */
	enum replay_map_kind kind;
	/* a file's addresses */
	struct addr_table file;
	/* largest node a file names, -1 when none */
	int max_node;
};

/* A big-endian 16-bit field. */
static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* printf into err; returns NULL with errno e. */
static void *__attribute__((format(printf, 4, 5)))
plan_fail(int e, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	errno = e;
	return NULL;
}

/* Set address a. */
static void addr_set(struct replay_addr *a, enum replay_addr_kind kind, const uint8_t *b,
		     uint8_t len)
{
	a->kind = (uint8_t)kind;
	a->len = len;
	memcpy(a->b, b, len);
}

/* FNV-1a, 64 bits, of an address's bytes. */
static uint64_t addr_hash(const struct replay_addr *a)
{
	uint64_t h = 14695981039346656037ull;

	for (unsigned int i = 0; i < a->len; i++) {
		h ^= a->b[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* True when a and b are the same address. */
static bool addr_eq(const struct replay_addr *a, const struct replay_addr *b)
{
	return a->kind == b->kind && a->len == b->len && !memcmp(a->b, b->b, a->len);
}

/* The slot of a in t: its own, or the free one it would take. */
static struct addr_slot *addr_find(const struct addr_table *t, const struct replay_addr *a)
{
	uint64_t i = addr_hash(a) & t->mask;

	while (t->slot[i].a.kind != REPLAY_ADDR_NONE && !addr_eq(&t->slot[i].a, a))
		i = (i + 1) & t->mask;
	return &t->slot[i];
}

/* An empty table of n slots (a power of two); 0 or -ENOMEM. */
static int addr_table_init(struct addr_table *t, uint64_t n)
{
	t->slot = calloc(n, sizeof(*t->slot));
	t->mask = n - 1;
	t->used = 0;
	return t->slot ? 0 : -ENOMEM;
}

/* Double the table; 0 or -ENOMEM. */
static int addr_table_grow(struct addr_table *t)
{
	struct addr_table big;

	if (addr_table_init(&big, 2 * (t->mask + 1)))
		return -ENOMEM;
	for (uint64_t i = 0; i <= t->mask; i++)
		if (t->slot[i].a.kind != REPLAY_ADDR_NONE)
			*addr_find(&big, &t->slot[i].a) = t->slot[i];
	big.used = t->used;
	free(t->slot);
	*t = big;
	return 0;
}

/* Add a with node; 0, -EEXIST (already there) or -ENOMEM. */
static int addr_table_add(struct addr_table *t, const struct replay_addr *a, uint16_t node)
{
	struct addr_slot *s;

	if (2 * (t->used + 1) > t->mask + 1 && addr_table_grow(t))
		return -ENOMEM;
	s = addr_find(t, a);
	if (s->a.kind != REPLAY_ADDR_NONE)
		return -EEXIST;
	s->a = *a;
	s->node = node;
	t->used++;
	return 0;
}

/* Node of a in t, or -1. */
static int addr_table_get(const struct addr_table *t, const struct replay_addr *a)
{
	const struct addr_slot *s;

	if (a->kind == REPLAY_ADDR_NONE)
		return -1;
	s = addr_find(t, a);
	return s->a.kind == REPLAY_ADDR_NONE ? -1 : s->node;
}

/* Content of a UDP or TCP packet whose L4 header is at l4, IP ending at end. */
static void l4_content(const uint8_t *f, uint32_t caplen, uint8_t proto, uint32_t l4,
		       uint32_t end, struct replay_pkt *p)
{
	uint32_t hdr, len;

	if (proto == IP_UDP && l4 + UDP_HDR <= end && l4 + UDP_HDR <= caplen) {
		len = be16(f + l4 + 4);
		if (len < UDP_HDR || l4 + len > end)
			return;
		hdr = UDP_HDR;
		len -= UDP_HDR;
		p->content = REPLAY_CONTENT_UDP;
	} else if (proto == IP_TCP && l4 + TCP_HDR_MIN <= end && l4 + TCP_HDR_MIN <= caplen) {
		hdr = (uint32_t)(f[l4 + 12] >> 4) * 4;
		if (hdr < TCP_HDR_MIN || l4 + hdr > end)
			return;
		len = end - l4 - hdr;
		p->content = REPLAY_CONTENT_TCP;
	} else {
		return;
	}
	p->off = l4 + hdr;
	p->len = p->off >= caplen ? 0 : len < caplen - p->off ? len : caplen - p->off;
}

/* IPv4 at off: addresses, and the payload of an unfragmented UDP/TCP packet. */
static void parse_ip4(const uint8_t *f, uint32_t caplen, uint32_t off, struct replay_pkt *p)
{
	uint32_t ihl, tot;

	if (caplen < off + IP4_HDR_MIN || f[off] >> 4 != 4)
		return;
	addr_set(&p->ip_src, REPLAY_ADDR_IP4, f + off + 12, 4);
	addr_set(&p->ip_dst, REPLAY_ADDR_IP4, f + off + 16, 4);
	ihl = (uint32_t)(f[off] & 0xf) * 4;
	tot = be16(f + off + 2);
	if (ihl < IP4_HDR_MIN || tot < ihl || (be16(f + off + 6) & 0x3fff))
		return;		/* bad header, or a fragment: the frame is carried */
	l4_content(f, caplen, f[off + 9], off + ihl, off + tot, p);
}

/* IPv6 at off: addresses, and the payload when the next header is UDP/TCP. */
static void parse_ip6(const uint8_t *f, uint32_t caplen, uint32_t off, struct replay_pkt *p)
{
	if (caplen < off + IP6_HDR || f[off] >> 4 != 6)
		return;
	addr_set(&p->ip_src, REPLAY_ADDR_IP6, f + off + 8, 16);
	addr_set(&p->ip_dst, REPLAY_ADDR_IP6, f + off + 24, 16);
	l4_content(f, caplen, f[off + 6], off + IP6_HDR, off + IP6_HDR + be16(f + off + 4), p);
}

void replay_pkt_parse(const uint8_t *frame, uint32_t caplen, struct replay_pkt *p)
{
	uint32_t off = ETH_HDR;
	uint16_t type;

	memset(p, 0, sizeof(*p));
	p->content = REPLAY_CONTENT_FRAME;
	p->len = caplen;
	if (caplen < ETH_HDR)
		return;
	addr_set(&p->mac_dst, REPLAY_ADDR_MAC, frame, 6);
	addr_set(&p->mac_src, REPLAY_ADDR_MAC, frame + 6, 6);
	type = be16(frame + 12);
	for (int i = 0; i < VLAN_TAGS_MAX && (type == ETH_VLAN || type == ETH_QINQ) &&
	     caplen >= off + 4; i++) {
		type = be16(frame + off + 2);
		off += 4;
	}
	if (type == ETH_IP4)
		parse_ip4(frame, caplen, off, p);
	else if (type == ETH_IP6)
		parse_ip6(frame, caplen, off, p);
}

/* Parse a MAC, IPv4 or IPv6 address; 0 or -EINVAL. */
static int addr_parse(const char *s, struct replay_addr *a)
{
	unsigned int m[6];
	uint8_t b[16];
	int n = 0;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%n", &m[0], &m[1], &m[2], &m[3], &m[4],
		   &m[5], &n) == 6 && s[n] == '\0') {
		for (int i = 0; i < 6; i++)
			b[i] = (uint8_t)m[i];
		addr_set(a, REPLAY_ADDR_MAC, b, 6);
		return 0;
	}
	if (inet_pton(AF_INET, s, b) == 1) {
		addr_set(a, REPLAY_ADDR_IP4, b, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, b) == 1) {
		addr_set(a, REPLAY_ADDR_IP6, b, 16);
		return 0;
	}
	return -EINVAL;
}

/* Parse one line of a map file into m; 0, or -errno with a message. */
static int map_line(struct replay_map *m, char *line, const char *path, unsigned int ln,
		    char *err, size_t errlen)
{
	char *addr, *node, *rest, *end;
	struct replay_addr a;
	unsigned long v;
	int rc;

	line[strcspn(line, "#\r\n")] = '\0';
	addr = strtok_r(line, " \t", &rest);
	if (!addr)
		return 0;
	node = strtok_r(NULL, " \t", &rest);
	if (!node || strtok_r(NULL, " \t", &rest)) {
		plan_fail(EINVAL, err, errlen, "--map %s: line %u: must be ADDRESS NODE", path, ln);
		return -EINVAL;
	}
	if (addr_parse(addr, &a)) {
		plan_fail(EINVAL, err, errlen, "--map %s: line %u: %s is not a MAC, IPv4 or IPv6 address",
			  path, ln, addr);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(node, &end, 10);
	if (node[0] < '0' || node[0] > '9' || *end || errno || v >= REPLAY_NODES_MAX) {
		plan_fail(EINVAL, err, errlen, "--map %s: line %u: node %s must be a node index, 0 .. %d",
			  path, ln, node, REPLAY_NODES_MAX - 1);
		return -EINVAL;
	}
	rc = addr_table_add(&m->file, &a, (uint16_t)v);
	if (rc == -EEXIST)
		plan_fail(EINVAL, err, errlen, "--map %s: line %u: %s is given twice", path, ln, addr);
	else if (rc)
		plan_fail(ENOMEM, err, errlen, "out of memory");
	if (!rc && (int)v > m->max_node)
		m->max_node = (int)v;
	return rc == -EEXIST ? -EINVAL : rc;
}

/* Read a map file into m; 0 or -errno with a message. */
static int map_read_file(struct replay_map *m, const char *path, char *err, size_t errlen)
{
	char line[REPLAY_MAP_LINE];
	unsigned int ln = 0;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f) {
		rc = -errno;
		plan_fail(-rc, err, errlen, "--map %s: %s (give hash, mac, ip or a file)", path,
			  strerror(-rc));
		return rc;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		ln++;
		if (!strchr(line, '\n') && !feof(f)) {
			plan_fail(EINVAL, err, errlen, "--map %s: line %u is too long", path, ln);
			rc = -EINVAL;
			break;
		}
		rc = map_line(m, line, path, ln, err, errlen);
	}
	if (!rc && ferror(f))
		rc = -EIO;
	if (!rc && m->file.used == 0) {
		plan_fail(EINVAL, err, errlen, "--map %s: no ADDRESS NODE line", path);
		rc = -EINVAL;
	}
	fclose(f);
	return rc;
}

struct replay_map *replay_map_parse(const char *spec, char *err, size_t errlen)
{
	struct replay_map *m = calloc(1, sizeof(*m));
	int rc;

	if (!m || addr_table_init(&m->file, 16)) {
		replay_map_free(m);
		return plan_fail(ENOMEM, err, errlen, "out of memory");
	}
	m->max_node = -1;
	if (!strcmp(spec, "ip"))
		m->kind = REPLAY_MAP_IP;
	else if (!strcmp(spec, "mac"))
		m->kind = REPLAY_MAP_MAC;
	else if (!strcmp(spec, "hash"))
		m->kind = REPLAY_MAP_HASH;
	else
		m->kind = REPLAY_MAP_FILE;
	if (m->kind != REPLAY_MAP_FILE)
		return m;
	rc = map_read_file(m, spec, err, errlen);
	if (!rc)
		return m;
	replay_map_free(m);
	errno = -rc;
	return NULL;
}

enum replay_map_kind replay_map_kind(const struct replay_map *m)
{
	return m->kind;
}

int replay_map_max_node(const struct replay_map *m)
{
	return m->max_node;
}

void replay_map_free(struct replay_map *m)
{
	if (!m)
		return;
	free(m->file.slot);
	free(m);
}

const char *replay_chan_name(unsigned int chan)
{
	return chan == REPLAY_QUICK ? "quick" : chan == REPLAY_BULK ? "bulk" : "?";
}

/* State of a plan being built. */
struct plan_ctx {
	/* the configuration */
	const struct replay_plan_conf *c;
	/* ip and mac maps: the addresses seen, numbered */
	struct addr_table seen;
};

/* The address the map goes by, of one side of a packet. */
static const struct replay_addr *plan_addr(enum replay_map_kind k, const struct replay_addr *ip,
					   const struct replay_addr *mac)
{
	if (k == REPLAY_MAP_MAC)
		return mac;
	if (k == REPLAY_MAP_IP || ip->kind != REPLAY_ADDR_NONE)
		return ip;
	return mac;
}

/* Node of one side (ip, mac) of a packet; -1 unmapped, -ENOMEM. */
static int plan_node(struct plan_ctx *x, const struct replay_addr *ip,
		     const struct replay_addr *mac)
{
	const struct replay_map *m = x->c->map;
	const struct replay_addr *a = plan_addr(m->kind, ip, mac);
	int node;

	if (a->kind == REPLAY_ADDR_NONE)
		return -1;
	switch (m->kind) {
	case REPLAY_MAP_HASH:
		return (int)(addr_hash(a) % x->c->nodes);
	case REPLAY_MAP_FILE:
		node = addr_table_get(&m->file, ip);
		return node >= 0 ? node : addr_table_get(&m->file, mac);
	case REPLAY_MAP_IP:
	case REPLAY_MAP_MAC:
		break;
	}
	node = addr_table_get(&x->seen, a);
	if (node >= 0)
		return node;
	node = (int)(x->seen.used % x->c->nodes);
	return addr_table_add(&x->seen, a, (uint16_t)node) ? -ENOMEM : node;
}

/* Channel and length of entry e with content of len bytes. */
static void plan_channel(const struct replay_plan_conf *c, struct replay_plan_rec *e,
			 uint32_t len)
{
	uint32_t cap;

	if (c->channel == REPLAY_CHAN_QUICK ||
	    (c->channel == REPLAY_CHAN_AUTO && len <= c->quick_max))
		e->chan = REPLAY_QUICK;
	else
		e->chan = REPLAY_BULK;
	cap = e->chan == REPLAY_QUICK ? REPLAY_QUICK_CAP : REPLAY_BULK_CAP;
	e->cut = len > cap;
	e->len = e->cut ? cap : len;
}

/* Plan record k into p (if it becomes a message); 0 or -ENOMEM. */
static int plan_record(struct plan_ctx *x, const struct trace_rec *r, uint64_t k,
		       struct replay_plan *p)
{
	struct replay_plan_rec *e = &p->rec[p->n];
	struct replay_pkt pkt;
	int src, dst;

	replay_pkt_parse(r->data, r->caplen, &pkt);
	src = plan_node(x, &pkt.ip_src, &pkt.mac_src);
	dst = src < 0 ? src : plan_node(x, &pkt.ip_dst, &pkt.mac_dst);
	if (src == -ENOMEM || dst == -ENOMEM)
		return -ENOMEM;
	if (src < 0 || dst < 0) {
		p->unmapped++;
		return 0;
	}
	if (src == dst) {
		p->same_node++;
		return 0;
	}
	e->rec = k;
	e->src = (uint16_t)src;
	e->dst = (uint16_t)dst;
	e->content = pkt.content;
	e->off = pkt.off;
	plan_channel(x->c, e, pkt.len);
	p->per_chan[e->chan]++;
	p->cut += e->cut;
	p->n++;
	return 0;
}

struct replay_plan *replay_plan_build(const struct trace *t, const struct replay_plan_conf *c,
				      char *err, size_t errlen)
{
	struct plan_ctx x = { .c = c };
	struct replay_plan *p;
	int rc = 0;

	if (c->nodes < 2 || c->nodes > REPLAY_NODES_MAX)
		return plan_fail(EINVAL, err, errlen, "%u nodes: must be 2 .. %d", c->nodes,
				 REPLAY_NODES_MAX);
	if (c->map->max_node >= (int)c->nodes)
		return plan_fail(EINVAL, err, errlen, "--map names node %d, but there are %u nodes (0 .. %u)",
				 c->map->max_node, c->nodes, c->nodes - 1);
	p = calloc(1, sizeof(*p));
	if (!p || addr_table_init(&x.seen, 16)) {
		free(p);
		return plan_fail(ENOMEM, err, errlen, "out of memory");
	}
	p->rec = calloc(t->n ? t->n : 1, sizeof(*p->rec));
	p->records = t->n;
	for (uint64_t k = 0; p->rec && !rc && k < t->n; k++)
		rc = plan_record(&x, &t->recs[k], k, p);
	p->addresses = x.seen.used;
	free(x.seen.slot);
	if (!p->rec || rc) {
		replay_plan_free(p);
		return plan_fail(ENOMEM, err, errlen, "out of memory");
	}
	return p;
}

void replay_plan_free(struct replay_plan *p)
{
	if (!p)
		return;
	free(p->rec);
	free(p);
}

void replay_plan_compact(const struct replay_plan *p, struct trace *t)
{
	for (uint64_t k = 0; k < p->n; k++)
		t->recs[k] = t->recs[p->rec[k].rec];
	t->n = p->n;
}

void replay_msg_hdr_put(uint8_t *args, const struct replay_msg_hdr *h)
{
	for (int i = 0; i < 4; i++)
		args[i] = (uint8_t)(h->id >> (8 * i));
	args[4] = (uint8_t)h->len;
	args[5] = (uint8_t)(h->len >> 8);
	args[6] = h->flags;
	args[7] = h->content;
}

void replay_msg_hdr_get(const uint8_t *args, struct replay_msg_hdr *h)
{
	h->id = (uint32_t)args[0] | (uint32_t)args[1] << 8 | (uint32_t)args[2] << 16 |
		(uint32_t)args[3] << 24;
	h->len = (uint16_t)(args[4] | args[5] << 8);
	h->flags = args[6];
	h->content = args[7];
}
