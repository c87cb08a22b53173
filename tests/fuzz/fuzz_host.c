/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for nicd's host interface (nicd/host.c) as a hostile
 * application meets it (doc/endpoints.md, Trust). Each input makes a host
 * with its control socket (a directory under /tmp unique to the process)
 * and opens two endpoints the normal way (segnet_open, in a thread, while
 * the host is polled): endpoint 0 is the hostile application's, which the
 * harness drives through its own mapping of the object and the views
 * libsegnet builds (ep_view_init), and endpoint 1 an honest one driven
 * through libsegnet alone. The NIC is the stub of tests/common/host_stub.h
 * (nic_send, nic_cancel, nic_node_id, nic_cluster_size, the calls host.c
 * makes): it holds what it is given, completes, refuses or delivers when
 * the input says so, and cancels as nic_cancel does. Besides the sanitizers' checks,
 * it aborts when
 * - the NIC is handed a message whose cookie is not a send buffer of the
 *   sending endpoint, whose payload is not that buffer, whose length,
 *   handler or channel is impossible, whose buffer it holds already, or
 *   whose vnet or endpoint is not the sender's;
 * - a completion names a send buffer the application never had nicd take
 *   (more completions of a buffer than descriptors naming it nicd took
 *   from the send ring), or has an unknown status; a receive descriptor
 *   names a buffer outside the endpoint or one the application holds
 *   (while it gave back only buffers it held), or is longer than a buffer;
 * - the counters contradict each other or the stub: sends taken differ
 *   from what the NIC accepted, sends the NIC holds from the endpoint's
 *   inflight, cancellations from what nic_cancel cancelled, open endpoints
 *   from opens less closes and ring_broken;
 * - after a poll the hostile endpoint is open with a ring view nicd found
 *   broken, or with a send ring head nicd read that is further than the
 *   ring's size from its tail (or, armed for a wake-up, a completion or
 *   receive tail nicd read that is);
 * - the honest endpoint is closed, refused a send, gets a completion it did
 *   not send or a message it was not delivered.
 *
 * The header: byte 0 the hostile endpoint's buffers (bits 0-2: send - 1;
 * bits 3-5: receive - 1), bit 6 the NIC joined to a cluster of 4 nodes;
 * byte 1 the messages the stub NIC holds at most (1 + (b & 15)). Then
 * records, an op byte each (bits 0-3 the op of enum host_f_op, bits 4-7
 * its argument) and the bytes the op reads.
 * With SEGNET_FUZZ_COUNTERS set, each run prints the host's counters.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_log.h>

#include "nicd/host_priv.h"
#include "tests/common/host_stub.h"
#include "fuzz_records.h"

enum {
	HOST_F_EPS = 4,		/* endpoint table size */
	HOST_F_NODES = 4,	/* cluster size once joined */
	HOST_F_VNET = 1,	/* the virtual network both endpoints open */
	HOST_F_BAD = 0,		/* the hostile endpoint's id */
	HOST_F_GOOD = 1,	/* the honest one's */
	HOST_F_GOOD_BUFS = 4,	/* the honest endpoint's buffers each way */
	HOST_F_STEP_NS = 100000,	/* the time unit of a poll's advance */
};

/* Record ops (bits 0-3 of the op byte). */
enum host_f_op {
	HOST_F_POLL,		/* advance (byte * arg) units, host_poll */
	HOST_F_SEND,		/* hostile: a plausible send of a free buffer */
	HOST_F_RAW_SEND,	/* hostile: push any descriptor (16 bytes of fields) */
	HOST_F_INDEX,		/* hostile: move a ring index (arg: ring, field, mode) */
	HOST_F_WRITE,		/* hostile: 4 bytes anywhere it may write */
	HOST_F_REAP,		/* hostile: take completions */
	HOST_F_RECV,		/* hostile: take messages, give back (arg bit 0) */
	HOST_F_RETURN,		/* hostile: give back a held buffer, or any index */
	HOST_F_DELIVER,		/* NIC: deliver a message (to ep arg & 3) */
	HOST_F_COMPLETE,	/* NIC: complete a held message */
	HOST_F_HONEST,		/* honest: send (arg bit 0: bulk) and poll */
	HOST_F_NIC_MODE,	/* NIC: accept, say -ENOBUFS or -EINVAL (arg) */
	HOST_F_ARM,		/* hostile: arm the wake-up */
	HOST_F_OPS,
};

/* The hostile application: its mapping, views and bookkeeping. */
struct host_f_app {
	void *base;			/* its own mapping of the object */
	struct ep_layout l;		/* its layout */
	struct ep_view v;		/* the application's views */
	uint32_t free_bufs[EP_MAX_BUFS];	/* send buffers it may fill */
	uint32_t n_free;		/* how many */
	uint32_t taken[EP_MAX_BUFS];	/* descriptors naming buffer i nicd took */
	uint32_t completed[EP_MAX_BUFS];	/* completions of buffer i */
	bool held[EP_MAX_BUFS];		/* receive buffer i is the application's */
	/* It gave back what it did not hold, or moved the receive ring's head
	 * (nicd's), so its own view reads stale messages. */
	bool recv_tainted;
	bool comp_tainted;		/* it moved the completion ring's head (nicd's) */
};

/* One run. */
struct host_run {
	struct host *h;			/* under test */
	struct nic nic;			/* the stub */
	struct segnet_ep *bad;		/* the hostile endpoint's library handle */
	struct segnet_ep *good;		/* the honest endpoint */
	struct host_f_app app;		/* the hostile application */
	uint64_t now;			/* the clock */
	uint64_t good_sent;		/* honest sends accepted */
	uint64_t good_completed;	/* ... completed */
	uint64_t good_handled;		/* ... its handler ran for */
};

const char *const fuzz_name = "fuzz_host";

/* The socket directory of this process. */
static char host_f_dir[64];

/* Remove the socket directory (each host removed its socket). */
static void host_f_rmdir(void)
{
	rmdir(host_f_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(host_f_dir, sizeof(host_f_dir), "/tmp/segnet-fuzz-host.%d", (int)getpid());
	atexit(host_f_rmdir);
	/* Closing endpoints logs at INFO and WARNING: one line per input is noise. */
	rte_log_set_level_pattern("segnet.*", RTE_LOG_ERR);
	fuzz_print_counters = getenv("SEGNET_FUZZ_COUNTERS") != NULL;
	return 0;
}

/* Endpoint id's entry in the host, or NULL when not open. */
static struct host_ep *host_f_ep(struct host *h, uint16_t id)
{
	return id < h->n_eps && h->eps[id].open ? &h->eps[id] : NULL;
}

/* The stub NIC's checks of each message nicd hands it. */
static void host_f_check_send(struct nic *nic, const struct nic_msg *m)
{
	struct host_run *r = nic->owner;
	struct host_ep *e = host_f_ep(r->h, m->src_ep);
	const struct host_send *s = m->cookie;
	unsigned char *bufs;

	fuzz_check(e && m->vnet == e->vnet, "sends come from an open endpoint of their vnet");
	fuzz_check(s && s->region == e->region && s->buf < e->l.send_bufs &&
		   s == &e->region->sends[s->buf],
		   "a send's cookie is a send buffer of its endpoint");
	bufs = (unsigned char *)e->region->base + e->l.off_send_bufs;
	fuzz_check(m->payload == bufs + (size_t)s->buf * EP_BUF_SIZE,
		   "a send's payload is its buffer in its endpoint's object");
	fuzz_check(m->len <= EP_BUF_SIZE && m->handler < SEGNET_MAX_HANDLERS &&
		   (m->chan == SN_CHAN_BULK || (m->chan == SN_CHAN_QUICK && !m->len)),
		   "a send's length, handler and channel are possible");
	fuzz_check(!nic->cluster_size || m->dst_node < nic->cluster_size,
		   "a send's target is in the cluster");
	for (unsigned int i = 0; i < nic->n_held; i++)
		fuzz_check(nic->held[i].pkt.cookie != m->cookie,
			   "a send buffer the NIC holds is not sent again");
}

/* Open an endpoint the normal way; aborts when it fails. */
static struct segnet_ep *host_f_open(struct host_run *r, uint16_t send_bufs,
				     uint16_t recv_bufs)
{
	const struct segnet_open_opts o = { .send_bufs = send_bufs, .recv_bufs = recv_bufs };
	struct segnet_ep *ep = stub_open(r->h, &r->now, HOST_F_VNET, "secret", &o);

	fuzz_check(ep != NULL, "segnet_open succeeds");
	return ep;
}

/* The hostile application maps the object itself and builds its views. */
static void host_f_app_init(struct host_run *r)
{
	struct host_f_app *a = &r->app;
	struct host_ep *e = host_f_ep(r->h, HOST_F_BAD);

	fuzz_check(e != NULL, "the first endpoint opened is endpoint 0");
	a->l = e->l;
	a->base = ep_shm_map(e->shm_fd, e->l.size);
	fuzz_check(a->base != NULL, "the application maps the object");
	ep_view_init(&a->v, a->base, &a->l, false);
	for (uint32_t i = 0; i < a->l.send_bufs; i++)
		a->free_bufs[a->n_free++] = a->l.send_bufs - 1 - i;
}

/* The honest endpoint's handler: count what it is given. */
static void host_f_good_handler(struct segnet_ep *ep, const struct segnet_msg *m, void *ctx)
{
	struct host_run *r = ctx;

	(void)ep;
	fuzz_check(m->len <= SEGNET_MAX_PAYLOAD, "a message fits its buffer");
	r->good_handled++;
}

/* Build the host, the stub NIC and the two endpoints. */
static void host_f_start(struct host_run *r, struct fuzz_in *in)
{
	static const struct host_vnet vnet = { .vnet = HOST_F_VNET, .key_len = 6,
					       .key = "secret" };
	struct host_config cfg = {
		.name = "fuzz", .socket_dir = host_f_dir, .socket_mode = 0700,
		.endpoints = HOST_F_EPS, .max_nodes = HOST_F_NODES,
		.vnets = &vnet, .n_vnets = 1, .generation = 1,
	};
	uint8_t bufs = fuzz_u8(in), cap = fuzz_u8(in);
	char err[256];

	r->h = host_create(&cfg, err, sizeof(err));
	if (!r->h) {
		fprintf(stderr, "fuzz_host: host_create: %s\n", err);
		abort();
	}
	r->nic.owner = r;
	r->nic.check_send = host_f_check_send;
	r->nic.cap = 1 + (cap & 15);
	r->nic.cluster_size = bufs & 0x40 ? HOST_F_NODES : 0;
	stub_nic_attach(&r->nic, r->h);
	r->bad = host_f_open(r, 1 + (bufs & 7), 1 + ((bufs >> 3) & 7));
	host_f_app_init(r);
	r->good = host_f_open(r, HOST_F_GOOD_BUFS, HOST_F_GOOD_BUFS);
	fuzz_check(segnet_endpoint(r->good) == HOST_F_GOOD, "the second endpoint is 1");
	for (uint16_t i = 0; i < 4; i++)
		segnet_set_handler(r->good, i, host_f_good_handler, r);
}

/* True when a peer's index idx is further than size from mine (either way). */
static bool host_f_nonsense(uint32_t mine, uint32_t idx, uint32_t size, bool producer)
{
	return producer ? idx - mine > size : mine - idx > size;
}

/* The counters against each other and the stub. */
static void host_f_check_counts(struct host_run *r)
{
	const struct host_stats *st = host_stats(r->h);
	uint32_t held[HOST_F_EPS] = { 0 };

	fuzz_check(st->sends == r->nic.accepted, "sends taken = messages the NIC accepted");
	fuzz_check(st->sends_cancelled == r->nic.cancelled,
		   "sends_cancelled = what nic_cancel cancelled");
	fuzz_check(host_open_count(r->h) == st->opens - st->closes - st->ring_broken,
		   "open endpoints = opens - closes - ring_broken");
	for (unsigned int i = 0; i < r->nic.n_held; i++)
		held[r->nic.held[i].src_ep]++;
	for (uint16_t i = 0; i < HOST_F_EPS; i++) {
		struct host_ep *e = host_f_ep(r->h, i);

		if (e)
			fuzz_check(e->region->inflight == held[i],
				   "an endpoint's inflight = the messages the NIC holds of it");
	}
	fuzz_check(host_f_ep(r->h, HOST_F_GOOD) != NULL, "the honest endpoint stays open");
}

/*
 * Before a poll: what nicd will read of the hostile endpoint's rings. Its
 * send head, when nicd has taken all it saw; its completion and receive
 * tails, when the application sleeps. Returns true when one of them makes
 * no sense (the endpoint must be closed by the poll); copies into snap the
 * descriptors nicd may take: those it saw, then up to the head.
 */
static bool host_f_before_poll(struct host_run *r, struct ep_send_desc *snap, uint32_t *n_snap)
{
	struct host_ep *e = host_f_ep(r->h, HOST_F_BAD);
	uint32_t head, end, comp_tail, recv_tail, size;
	bool bad = false;

	*n_snap = 0;
	if (!e)
		return false;
	size = spsc_size(&e->v.send);
	head = atomic_load(&e->v.send.r->head);
	end = e->v.send.peer;
	if (!host_f_nonsense(end, head, size, true))
		end = head;
	else if (e->v.send.peer == e->v.send.mine)
		bad = true;
	for (uint32_t i = e->v.send.mine; i != end && *n_snap < HOST_SEND_BUDGET; i++)
		memcpy(&snap[(*n_snap)++], spsc_slot(&e->v.send, i), sizeof(*snap));
	comp_tail = atomic_load(&e->v.comp.r->tail);
	recv_tail = atomic_load(&e->v.recv.r->tail);
	if (atomic_load(&e->v.hdr->wake_armed) &&
	    (host_f_nonsense(e->v.comp.mine, comp_tail, spsc_size(&e->v.comp), false) ||
	     host_f_nonsense(e->v.recv.mine, recv_tail, spsc_size(&e->v.recv), false)))
		bad = true;
	return bad;
}

/*
 * Descriptors nicd took from the hostile endpoint's send ring so far: each
 * is sent, refused or dropped (host.send_invalid counts the drops, the
 * endpoint's counters do not), less the honest endpoint's, which stays open.
 */
static uint64_t host_f_bad_taken(const struct host_run *r)
{
	const struct host_stats *st = host_stats(r->h);
	const struct host_ep_stats *good = &r->h->eps[HOST_F_GOOD].stats;

	return st->sends + st->send_invalid - good->sent - good->invalid;
}

/* Poll the host at now + adv; check what it did. */
static void host_f_poll(struct host_run *r, uint64_t adv)
{
	struct ep_send_desc snap[HOST_SEND_BUDGET];
	uint32_t n_snap;
	bool must_close = host_f_before_poll(r, snap, &n_snap);
	struct host_ep *e, *good = host_f_ep(r->h, HOST_F_GOOD);
	uint64_t busy = host_stats(r->h)->send_nic_busy, next = UINT64_MAX;
	uint64_t taken = host_f_bad_taken(r);

	r->now += adv;
	host_poll(r->h, r->now, &next);
	fuzz_check(host_stats(r->h)->send_nic_busy != busy ||
		   atomic_load(&good->v.send.r->head) == good->v.send.mine,
		   "every poll takes the honest endpoint's sends (unless the NIC is full)");
	taken = host_f_bad_taken(r) - taken;
	fuzz_check(taken <= n_snap, "nicd took only what it was given");
	for (uint32_t i = 0; i < taken; i++)
		if (snap[i].buf < r->app.l.send_bufs)
			r->app.taken[snap[i].buf]++;
	e = host_f_ep(r->h, HOST_F_BAD);
	if (!e)
		return;
	fuzz_check(!must_close, "an endpoint whose ring indices make no sense is closed");
	fuzz_check(!e->v.send.broken && !e->v.comp.broken && !e->v.recv.broken &&
		   !e->v.rret.broken, "an endpoint with a broken ring view is closed");
}

/* Hostile: a plausible send of a free buffer, if it has one. */
static void host_f_send(struct host_run *r, struct fuzz_in *in, uint8_t arg)
{
	struct host_f_app *a = &r->app;
	struct ep_send_desc d = {
		.dst_node = fuzz_u8(in) & 7, .dst_ep = fuzz_u8(in) & 7,
		.handler = fuzz_u8(in), .chan = arg & 1 ? SEGNET_BULK : SEGNET_QUICK,
	};
	uint16_t len = fuzz_u16(in);

	d.len = d.chan == SEGNET_BULK ? len % (EP_BUF_SIZE + 2) : 0;
	if (arg & 2)
		d.handler += SEGNET_MAX_HANDLERS;
	if (!a->n_free)
		return;
	d.buf = a->free_bufs[--a->n_free];
	if (!spsc_push(&a->v.send, &d))
		a->n_free++;
}

/* Hostile: push a descriptor of any fields. */
static void host_f_raw_send(struct host_run *r, struct fuzz_in *in)
{
	struct ep_send_desc d;

	d.buf = fuzz_u16(in);
	if (d.buf >= 0x8000)
		d.buf = (d.buf - 0x8000) | 0xFFFF0000u;
	d.dst_node = fuzz_u16(in);
	d.dst_ep = fuzz_u16(in);
	d.handler = fuzz_u16(in);
	d.chan = fuzz_u8(in);
	d.reserved = fuzz_u8(in);
	d.len = fuzz_u16(in);
	d.reserved2 = fuzz_u16(in);
	memset(d.args, fuzz_u8(in), sizeof(d.args));
	spsc_push(&r->app.v.send, &d);
}

/* Hostile: move an index of ring (arg & 3), its head (arg bit 2) or tail. */
static void host_f_index(struct host_run *r, struct fuzz_in *in, uint8_t arg)
{
	struct spsc *rings[4] = { &r->app.v.send, &r->app.v.comp, &r->app.v.recv,
				  &r->app.v.rret };
	struct spsc *q = rings[arg & 3];
	_Atomic uint32_t *idx = arg & 4 ? &q->r->head : &q->r->tail;
	uint32_t v;

	if (arg & 8) {
		v = (uint32_t)fuzz_u16(in) << 16;
		v |= fuzz_u16(in);
	} else {
		v = atomic_load(idx) + (uint32_t)(int32_t)(int8_t)fuzz_u8(in);
	}
	atomic_store(idx, v);
	if (q == &r->app.v.rret || (q == &r->app.v.recv && (arg & 4)))
		r->app.recv_tainted = true;
	if (q == &r->app.v.comp && (arg & 4))
		r->app.comp_tainted = true;
}

/* Hostile: write 4 bytes into the header, the send ring, the return ring or a send buffer. */
static void host_f_write(struct host_run *r, struct fuzz_in *in, uint8_t arg)
{
	const struct ep_layout *l = &r->app.l;
	uint64_t area[4][2] = {
		{ 0, EP_PAGE },
		{ l->off_send_ring, sizeof(struct spsc_ring) + (uint64_t)l->send_slots *
		  sizeof(struct ep_send_desc) },
		{ l->off_rret_ring, sizeof(struct spsc_ring) + (uint64_t)l->recv_slots *
		  sizeof(struct ep_rret) },
		{ l->off_send_bufs, (uint64_t)l->send_bufs * EP_BUF_SIZE },
	};
	uint64_t off = area[arg & 3][0] + fuzz_u16(in) % (area[arg & 3][1] - 3);
	uint32_t v = (uint32_t)fuzz_u16(in) << 16;

	v |= fuzz_u16(in);
	memcpy((unsigned char *)r->app.base + off, &v, sizeof(v));
	if ((arg & 3) == 2)
		r->app.recv_tainted = true;
}

/* Hostile: take the completions; each must be of a buffer nicd took. */
static void host_f_reap(struct host_run *r)
{
	struct host_f_app *a = &r->app;
	struct ep_comp c;

	while (spsc_pop(&a->v.comp, &c)) {
		fuzz_check(c.buf < a->l.send_bufs, "a completion names a send buffer");
		fuzz_check(c.status >= SEGNET_OK && c.status <= SEGNET_EINVAL,
			   "a completion's status is known");
		fuzz_check(++a->completed[c.buf] <= a->taken[c.buf] || a->comp_tainted,
			   "a send buffer is handed back once per send nicd took");
		if (a->n_free < a->l.send_bufs)
			a->free_bufs[a->n_free++] = c.buf;
	}
}

/* Hostile: give back receive buffer buf. */
static void host_f_give_back(struct host_run *r, uint32_t buf)
{
	struct ep_rret ret = { .buf = buf };

	if (buf >= r->app.l.recv_bufs || !r->app.held[buf])
		r->app.recv_tainted = true;
	else
		r->app.held[buf] = false;
	spsc_push(&r->app.v.rret, &ret);
}

/* Hostile: take the messages; give them back at once when give_back. */
static void host_f_recv(struct host_run *r, bool give_back)
{
	struct host_f_app *a = &r->app;
	struct ep_recv_desc d;

	while (spsc_pop(&a->v.recv, &d)) {
		fuzz_check(d.buf < a->l.recv_bufs, "a message names a receive buffer");
		fuzz_check(d.len <= EP_BUF_SIZE, "a message fits its buffer");
		fuzz_check(a->recv_tainted || !a->held[d.buf],
			   "a receive buffer is not handed to the application twice");
		a->held[d.buf] = true;
		if (give_back)
			host_f_give_back(r, d.buf);
	}
}

/* NIC: deliver a message to endpoint (arg & 3) of the vnet (arg bit 2: another). */
static void host_f_deliver(struct host_run *r, struct fuzz_in *in, uint8_t arg)
{
	static uint8_t payload[EP_BUF_SIZE + 8];
	uint16_t len = fuzz_u16(in);
	struct sn_pkt p = {
		.h = { .vnet = arg & 4 ? HOST_F_VNET + 1 : HOST_F_VNET, .dst_ep = arg & 3,
		       .src_node = 1, .src_ep = 2, .handler = fuzz_u8(in) & 3,
		       .payload_len = len % (sizeof(payload) + 1), .payload = payload },
		.chan = SN_CHAN_BULK,
	};
	/* The NIC asks first, unless (arg bit 3) the frame was taken before. */
	if (!(arg & 8) && !r->nic.ops.rx_space(r->nic.ops.ctx, p.h.vnet, p.h.dst_ep))
		return;
	r->nic.ops.deliver(r->nic.ops.ctx, &p, r->now);
}

/* NIC: complete held message (byte % held) with a status; or all. */
static void host_f_nic_complete(struct host_run *r, struct fuzz_in *in, uint8_t arg)
{
	uint8_t which = fuzz_u8(in);
	int status = arg % 6 == SN_ERR_CANCELLED ? 7 : arg % 6;

	if (!r->nic.n_held)
		return;
	if (arg & 8) {
		while (r->nic.n_held)
			stub_nic_complete(&r->nic, 0, SN_OK, r->now);
		return;
	}
	stub_nic_complete(&r->nic, which % r->nic.n_held, status, r->now);
}

/* Honest: send (bulk when arg bit 0), then poll; it must work. */
static void host_f_honest(struct host_run *r, struct fuzz_in *in, uint8_t arg)
{
	struct segnet_completion c[HOST_F_GOOD_BUFS];
	uint8_t data[64] = { 0 };
	uint8_t target = fuzz_u8(in);
	uint16_t node = target % HOST_F_NODES, ep = (target >> 4) % HOST_F_EPS;
	int ret, n;

	if (arg & 1)
		ret = segnet_send_bulk(r->good, node, ep, arg >> 1,
				       NULL, data, sizeof(data), r->good_sent);
	else
		ret = segnet_send_quick(r->good, node, ep, arg >> 1,
					NULL, r->good_sent);
	fuzz_check(ret == 0 || ret == -EAGAIN, "the honest endpoint's sends are taken");
	if (!ret)
		r->good_sent++;
	n = segnet_poll(r->good, c, HOST_F_GOOD_BUFS);
	fuzz_check(n >= 0, "the honest endpoint polls");
	for (int i = 0; i < n; i++)
		fuzz_check(c[i].cookie < r->good_sent && c[i].status >= SEGNET_OK &&
			   c[i].status <= SEGNET_EINVAL,
			   "the honest endpoint's completions are of its sends");
	r->good_completed += (uint64_t)n;
	fuzz_check(r->good_completed <= r->good_sent, "no more completions than sends");
	fuzz_check(r->good_handled <= host_f_ep(r->h, HOST_F_GOOD)->stats.received,
		   "the honest endpoint runs handlers only for its messages");
}

/* Carry out one record. */
static void host_f_record(struct host_run *r, struct fuzz_in *in)
{
	uint8_t opb = fuzz_u8(in), arg = opb >> 4;
	static const int modes[4] = { 0, -ENOBUFS, -EINVAL, 0 };

	switch ((enum host_f_op)((opb & 15) % HOST_F_OPS)) {
	case HOST_F_POLL:
		host_f_poll(r, (uint64_t)fuzz_u8(in) * arg * HOST_F_STEP_NS);
		break;
	case HOST_F_SEND:
		host_f_send(r, in, arg);
		break;
	case HOST_F_RAW_SEND:
		host_f_raw_send(r, in);
		break;
	case HOST_F_INDEX:
		host_f_index(r, in, arg);
		break;
	case HOST_F_WRITE:
		host_f_write(r, in, arg);
		break;
	case HOST_F_REAP:
		host_f_reap(r);
		break;
	case HOST_F_RECV:
		host_f_recv(r, arg & 1);
		break;
	case HOST_F_RETURN:
		host_f_give_back(r, arg & 8 ? fuzz_u16(in) : fuzz_u8(in) % r->app.l.recv_bufs);
		break;
	case HOST_F_DELIVER:
		host_f_deliver(r, in, arg);
		break;
	case HOST_F_COMPLETE:
		host_f_nic_complete(r, in, arg);
		break;
	case HOST_F_HONEST:
		host_f_honest(r, in, arg);
		break;
	case HOST_F_NIC_MODE:
		r->nic.mode = modes[arg & 3];
		break;
	case HOST_F_ARM:
		atomic_store(&r->app.v.hdr->wake_armed, 1);
		break;
	case HOST_F_OPS:
		break;
	}
	host_f_check_counts(r);
}

/* Close both endpoints, shut the host down, check nothing is left. */
static void host_f_stop(struct host_run *r)
{
	struct segnet_completion c[HOST_F_GOOD_BUFS];
	const struct host_stats *st;
	uint64_t next = UINT64_MAX;
	int n;

	/*
	 * The honest endpoint still works: what nicd held back for it comes
	 * as it gives buffers back, and every message posted is handled.
	 */
	for (unsigned int i = 0; i <= HOST_HELD_MAX / HOST_F_GOOD_BUFS + 1; i++) {
		while ((n = segnet_poll(r->good, c, HOST_F_GOOD_BUFS)) > 0)
			r->good_completed += (uint64_t)n;
		fuzz_check(n == 0, "the honest endpoint polls at the end");
		r->now += HOST_F_STEP_NS;
		host_poll(r->h, r->now, &next);
	}
	fuzz_check(host_f_ep(r->h, HOST_F_GOOD)->n_held == 0,
		   "what nicd held back for the honest endpoint is posted");
	fuzz_check(r->good_handled == host_f_ep(r->h, HOST_F_GOOD)->stats.received,
		   "the honest endpoint handles every message posted to it");
	if (fuzz_print_counters)
		host_print_counters(r->h, "host", stderr);
	segnet_close(r->good);
	segnet_close(r->bad);
	r->now += HOST_CTL_NS;
	host_poll(r->h, r->now, &next);
	fuzz_check(host_open_count(r->h) == 0, "closing the sockets closes the endpoints");
	host_shutdown(r->h);
	fuzz_check(r->nic.n_held == 0, "closing cancels every send the NIC holds");
	st = host_stats(r->h);
	fuzz_check(st->sends_cancelled == r->nic.cancelled, "cancellations counted");
	host_destroy(r->h);
	munmap(r->app.base, r->app.l.size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct host_run r;
	struct fuzz_in in = { .p = data, .left = size };

	memset(&r, 0, sizeof(r));
	host_f_start(&r, &in);
	while (in.left)
		host_f_record(&r, &in);
	host_f_stop(&r);
	return 0;
}
