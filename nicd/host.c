/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host interface: the endpoint table, the shared memory of each
 * endpoint, and the data path between the endpoints' rings and the NIC.
 * The control socket is in ctl.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "dataplane/dp_log.h"
#include "dataplane/dp_telemetry.h"
#include "host_priv.h"
#include "nicd_tel_names.h"
#include "segnet.h"

DP_LOG_REGISTER(host_logtype, NICD_HOST);

const char *const host_counter_names[] = {
	HOST_COUNTERS(DP_COUNTER_NAME)
};

/* Names of struct host_ep_stats fields. */
static const char *const host_ep_counter_names[] = {
	HOST_EP_COUNTERS(DP_COUNTER_NAME)
};

/* CLOCK_MONOTONIC in nanoseconds: the heartbeat clock libsegnet reads. */
static uint64_t host_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The served virtual network vnet, or NULL. */
static const struct host_vnet *host_vnet_find(const struct host *h, uint16_t vnet)
{
	for (unsigned int i = 0; i < h->n_vnets; i++)
		if (h->vnets[i].vnet == vnet)
			return &h->vnets[i];
	return NULL;
}

/* The endpoint open as ep on vnet, or NULL. */
static struct host_ep *host_ep_find(struct host *h, uint16_t vnet, uint16_t ep)
{
	struct host_ep *e;

	if (ep >= h->n_eps)
		return NULL;
	e = &h->eps[ep];
	return e->open && e->vnet == vnet ? e : NULL;
}

/* A free table entry, or NULL. */
static struct host_ep *host_ep_free_slot(struct host *h)
{
	for (uint16_t i = 0; i < h->n_eps; i++)
		if (!h->eps[i].open)
			return &h->eps[i];
	return NULL;
}

/* Free a region that is on no list: unmap it. */
static void host_region_free(struct host_region *r)
{
	if (r->base)
		munmap(r->base, r->size);
	free(r->sends);
	free(r);
}

/* Take a region off the host's list and free it. */
static void host_region_drop(struct host *h, struct host_region *r)
{
	struct host_region **p = &h->regions;

	while (*p && *p != r)
		p = &(*p)->next;
	if (*p)
		*p = r->next;
	host_region_free(r);
}

/* A region for a mapping of l's layout. */
static struct host_region *host_region_new(void *base, const struct ep_layout *l)
{
	struct host_region *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->sends = calloc(l->send_bufs, sizeof(*r->sends));
	if (!r->sends) {
		free(r);
		return NULL;
	}
	r->base = base;
	r->size = l->size;
	for (uint32_t i = 0; i < l->send_bufs; i++) {
		r->sends[i].region = r;
		r->sends[i].buf = i;
	}
	return r;
}

/* Check an OPEN against the served networks; 0 or -errno. */
static int host_open_check(struct host *h, const struct ctl_open *m)
{
	const struct host_vnet *v = host_vnet_find(h, m->vnet);
	uint8_t key[KEY_MAX] = { 0 };

	if (!v) {
		h->stats.open_no_vnet++;
		return -ENOENT;
	}
	/* Bytes past key_len are not part of the key, whatever the sender put there. */
	memcpy(key, m->key, m->key_len < KEY_MAX ? m->key_len : KEY_MAX);
	if (m->key_len < 1 || m->key_len > KEY_MAX ||
	    !key_equal(key, m->key_len, v->key, v->key_len)) {
		h->stats.open_bad_key++;
		return -EACCES;
	}
	if (m->send_bufs > EP_MAX_BUFS || m->recv_bufs > EP_MAX_BUFS) {
		h->stats.open_bad_msg++;
		return -EINVAL;
	}
	return 0;
}

/* Set up an entry's receive-buffer bookkeeping; 0 or -ENOMEM. */
static int host_ep_alloc_rbufs(struct host_ep *e)
{
	uint32_t n = e->l.recv_bufs;

	e->rfree = calloc(n, sizeof(*e->rfree));
	e->with_app = calloc(n, 1);
	if (!e->rfree || !e->with_app)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		e->rfree[i] = n - 1 - i;
	e->n_rfree = n;
	return 0;
}

/* Fill the header fields nicd owns at open. */
static void host_ep_header(struct host *h, struct host_ep *e, const struct ctl_open *m)
{
	struct ep_shm_hdr *hd = e->v.hdr;

	hd->max_nodes = h->max_nodes;
	hd->max_endpoints = h->n_eps;
	hd->wake_threshold = e->wake_threshold;
	hd->wake_delay_us = m->wake_delay_us;
	hd->heartbeat_ms = HOST_HEARTBEAT_MS;
	hd->heartbeat_timeout_ms = HOST_HEARTBEAT_TIMEOUT_MS;
	atomic_store_explicit(&hd->node, h->nic ? nic_node_id(h->nic) : 0xFFFF,
			      memory_order_relaxed);
	atomic_store_explicit(&hd->cluster_size, h->nic ? nic_cluster_size(h->nic) : 0,
			      memory_order_relaxed);
	atomic_store_explicit(&hd->heartbeat_ns, host_mono_ns(), memory_order_release);
}

/* Create an entry's shared memory (a sealed memfd) and eventfd; 0 or -errno. */
static int host_ep_create(struct host *h, struct host_ep *e, const struct ctl_open *m)
{
	uint32_t sb = m->send_bufs ? m->send_bufs : EP_DEFAULT_BUFS;
	uint32_t rb = m->recv_bufs ? m->recv_bufs : EP_DEFAULT_BUFS;
	void *base;
	int ret;

	if (ep_layout_compute(sb, rb, &e->l))
		return -EINVAL;
	snprintf(e->shm_name, sizeof(e->shm_name), "%s%u.%08x.%u", h->shm_prefix,
		 e->id, (uint32_t)h->generation, ++h->shm_seq);
	ret = ep_shm_create(e->shm_name, &e->l, &e->shm_fd, &base);
	if (ret)
		return ret;
	e->region = host_region_new(base, &e->l);
	e->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!e->region || e->efd < 0 || host_ep_alloc_rbufs(e)) {
		ret = e->efd < 0 ? -errno : -ENOMEM;
		if (!e->region)
			munmap(base, e->l.size);
		return ret;
	}
	ep_shm_format(base, &e->l, h->generation, e->id, m->vnet);
	ep_view_init(&e->v, base, &e->l, true);
	if (e->wake_delay_ns) {
		e->comp_at = calloc(spsc_size(&e->v.comp), sizeof(*e->comp_at));
		e->recv_at = calloc(spsc_size(&e->v.recv), sizeof(*e->recv_at));
		if (!e->comp_at || !e->recv_at)
			return -ENOMEM;
	}
	return 0;
}

/* Release what a failed or closed entry holds (not its region). */
static void host_ep_release(struct host_ep *e)
{
	struct host_held *x;

	if (e->efd >= 0)
		close(e->efd);
	if (e->sock >= 0)
		close(e->sock);
	if (e->shm_fd >= 0)
		close(e->shm_fd);
	while ((x = e->held)) {
		e->held = x->next;
		free(x);
	}
	free(e->rfree);
	free(e->with_app);
	free(e->comp_at);
	free(e->recv_at);
	memset(e, 0, offsetof(struct host_ep, stats));
	e->efd = -1;
	e->sock = -1;
	e->shm_fd = -1;
}

struct host_ep *host_ep_open(struct host *h, const struct ctl_open *m,
			     const struct ucred *cred, int *error)
{
	struct host_ep *e;
	uint16_t id;
	int ret = host_open_check(h, m);

	if (ret)
		goto fail;
	e = host_ep_free_slot(h);
	if (!e) {
		h->stats.open_full++;
		ret = -ENOSPC;
		goto fail;
	}
	id = e->id;
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->efd = -1;
	e->sock = -1;
	e->shm_fd = -1;
	e->vnet = m->vnet;
	e->cred = *cred;
	e->wake_threshold = m->wake_threshold ? m->wake_threshold : 1;
	e->wake_delay_ns = (uint64_t)m->wake_delay_us * 1000;
	ret = host_ep_create(h, e, m);
	if (ret) {
		h->stats.open_failed++;
		if (e->region)
			host_region_free(e->region);
		host_ep_release(e);
		e->id = id;
		goto fail;
	}
	host_ep_header(h, e, m);
	e->region->ep = e;
	e->region->next = h->regions;
	h->regions = e->region;
	e->open = true;
	h->n_open++;
	return e;
fail:
	*error = -ret;
	return NULL;
}

void host_ep_close(struct host *h, struct host_ep *e, bool by_app)
{
	struct host_region *r = e->region;
	uint32_t cancelled = 0;
	uint16_t id = e->id;

	if (!e->open)
		return;
	if (e->sock >= 0)
		epoll_ctl(h->epoll_fd, EPOLL_CTL_DEL, e->sock, NULL);
	atomic_store_explicit(&e->v.hdr->state, EP_STATE_CLOSED, memory_order_release);
	if (by_app)
		h->stats.closes++;
	/* Its sends in the NIC complete now (cancelled): nothing points into the mapping. */
	if (r->inflight && h->nic)
		cancelled = nic_cancel(h->nic, e->vnet, id, h->now);
	DP_LOG(host_logtype, INFO, "%s: endpoint %u (vnet %u, pid %d) closed%s, %u sends cancelled",
	       h->name, id, e->vnet, (int)e->cred.pid, by_app ? " by its application" : "",
	       cancelled);
	/* Without a NIC to cancel them, the last completion unmaps. */
	r->ep = NULL;
	h->stats.rx_held_closed += e->n_held;
	if (!r->inflight)
		host_region_drop(h, r);
	host_ep_release(e);
	e->id = id;
	h->n_open--;
}

/* Map a NIC status to the library's. */
static int host_status(int status)
{
	switch (status) {
	case SN_OK:
		return SEGNET_OK;
	case SN_ERR_LOST:
		return SEGNET_ELOST;
	case SN_ERR_RETRIES:
		return SEGNET_ERETRIES;
	case SN_ERR_DOWN:
		return SEGNET_EDOWN;
	case SN_ERR_RESET:
		return SEGNET_ERESET;
	default:
		return SEGNET_EINVAL;
	}
}

/*
 * An event was just pushed on ring q: note when, in at (its slot's post
 * time; NULL without a wake delay), so that a delay counts from the oldest
 * event still waiting whatever the application took by polling.
 */
static void host_note_posted(const struct spsc *q, uint64_t *at, uint64_t now)
{
	if (at)
		at[(q->mine - 1) & q->mask] = now;
}

/*
 * Events waiting on e's rings; with a wake delay, *oldest is when the
 * oldest of them was posted (UINT64_MAX when none waits).
 */
static uint32_t host_waiting(struct host_ep *e, uint64_t *oldest)
{
	struct spsc *rings[2] = { &e->v.recv, &e->v.comp };
	const uint64_t *at[2] = { e->recv_at, e->comp_at };
	uint32_t n = 0;

	*oldest = UINT64_MAX;
	for (unsigned int i = 0; i < 2; i++) {
		uint32_t used = spsc_used_count(rings[i]);	/* reads the tail into peer */

		n += used;
		if (used && at[i] && at[i][rings[i]->peer & rings[i]->mask] < *oldest)
			*oldest = at[i][rings[i]->peer & rings[i]->mask];
	}
	return n;
}

/* Post a completion of send buffer buf to e. */
static void host_post_comp(struct host *h, struct host_ep *e, uint32_t buf, int status,
			   uint64_t now)
{
	struct ep_comp c = { .buf = buf, .status = status };

	/* Cannot fail while the application behaves: a slot per send buffer. */
	if (!spsc_push(&e->v.comp, &c)) {
		h->stats.comp_ring_full++;
		return;
	}
	h->stats.completions++;
	e->stats.completed++;
	host_note_posted(&e->v.comp, e->comp_at, now);
}

/* Fill the free receive buffers from the return ring; how many nicd holds. */
static uint32_t host_refill_rbufs(struct host *h, struct host_ep *e)
{
	struct ep_rret r;

	while (e->n_rfree < e->l.recv_bufs && spsc_pop(&e->v.rret, &r)) {
		if (r.buf >= e->l.recv_bufs || !e->with_app[r.buf]) {
			h->stats.rret_invalid++;
			continue;
		}
		e->with_app[r.buf] = 0;
		e->rfree[e->n_rfree++] = r.buf;
	}
	return e->n_rfree;
}

/* Post a message into a free receive buffer of e (there must be one). */
static void host_post_recv(struct host *h, struct host_ep *e, struct ep_recv_desc *d,
			   const void *data, uint64_t now)
{
	uint32_t buf = e->rfree[--e->n_rfree];

	d->buf = buf;
	if (d->len)
		memcpy(e->v.recv_bufs + (size_t)buf * EP_BUF_SIZE, data, d->len);
	e->with_app[buf] = 1;
	/*
	 * A slot per receive buffer: full only when the application gave
	 * buffers back without taking their messages off the ring.
	 */
	if (!spsc_push(&e->v.recv, d)) {
		e->with_app[buf] = 0;
		e->rfree[e->n_rfree++] = buf;
		h->stats.rx_ring_full++;
		e->stats.dropped++;
		return;
	}
	h->stats.delivered++;
	e->stats.received++;
	host_note_posted(&e->v.recv, e->recv_at, now);
}

/* Keep a message until a receive buffer comes back. */
static void host_hold(struct host *h, struct host_ep *e, const struct ep_recv_desc *d,
		      const void *data)
{
	struct host_held *x;

	if (e->n_held >= HOST_HELD_MAX || !(x = malloc(sizeof(*x) + d->len))) {
		h->stats.rx_overflow++;
		e->stats.dropped++;
		return;
	}
	x->next = NULL;
	x->d = *d;
	if (d->len)
		memcpy(x->data, data, d->len);
	if (e->held_tail)
		e->held_tail->next = x;
	else
		e->held = x;
	e->held_tail = x;
	e->n_held++;
	h->stats.rx_held++;
	e->stats.held++;
}

/* Post held-back messages while receive buffers are free; true if any. */
static bool host_post_held(struct host *h, struct host_ep *e, uint64_t now)
{
	bool work = false;
	struct host_held *x;

	while ((x = e->held) && host_refill_rbufs(h, e)) {
		e->held = x->next;
		if (!e->held)
			e->held_tail = NULL;
		e->n_held--;
		host_post_recv(h, e, &x->d, x->data, now);
		free(x);
		work = true;
	}
	return work;
}

/* NIC callback: a message arrived for pkt->h.dst_ep. */
static void host_on_deliver(void *ctx, const struct sn_pkt *pkt, uint64_t now)
{
	struct host *h = ctx;
	struct host_ep *e = host_ep_find(h, pkt->h.vnet, pkt->h.dst_ep);
	struct ep_recv_desc d = {
		.src_node = pkt->h.src_node, .src_ep = pkt->h.src_ep,
		.handler = pkt->h.handler, .chan = pkt->chan,
		.len = pkt->h.payload ? pkt->h.payload_len : 0,
	};

	if (!e) {
		h->stats.rx_no_endpoint++;
		return;
	}
	if (d.len > EP_BUF_SIZE)
		d.len = EP_BUF_SIZE;
	if (pkt->h.args)
		memcpy(d.args, pkt->h.args, EP_ARGS_LEN);
	if (!e->held && host_refill_rbufs(h, e))
		host_post_recv(h, e, &d, pkt->h.payload, now);
	else
		host_hold(h, e, &d, pkt->h.payload);
}

/* NIC callback: a send finished. */
static void host_on_complete(void *ctx, const struct sn_pkt *pkt, int status,
			     uint64_t now)
{
	struct host *h = ctx;
	struct host_send *s = pkt->cookie;
	struct host_region *r;

	if (!s || !s->busy)
		return;
	r = s->region;
	s->busy = false;
	r->inflight--;
	/* Only host_ep_close cancels: the application is gone, nothing to post. */
	if (status == SN_ERR_CANCELLED) {
		h->stats.sends_cancelled++;
	} else if (r->ep) {
		host_post_comp(h, r->ep, s->buf, host_status(status), now);
		return;
	} else {
		h->stats.completions_orphaned++;
	}
	/* While host_ep_close cancels, r->ep is still set: it unmaps after. */
	if (!r->ep && !r->inflight)
		host_region_drop(h, r);
}

/*
 * NIC callback: may a frame for (vnet, ep) come in? An endpoint that is not
 * open takes it (to drop and count it at delivery: refusing would make a
 * bulk sender retry forever); an open one needs a receive buffer that no
 * held-back message claims.
 */
static bool host_on_rx_space(void *ctx, uint16_t vnet, uint16_t ep)
{
	struct host *h = ctx;
	struct host_ep *e = host_ep_find(h, vnet, ep);

	if (!e || host_refill_rbufs(h, e) > e->n_held)
		return true;
	h->stats.rx_refused++;
	e->stats.refused++;
	return false;
}

struct nic_ops host_nic_ops(struct host *h)
{
	return (struct nic_ops) {
		.ctx = h, .deliver = host_on_deliver, .complete = host_on_complete,
		.rx_space = host_on_rx_space,
	};
}

/* True when a send descriptor asks for something possible. */
static bool host_send_ok(const struct ep_send_desc *s)
{
	/* The receiving library has no handler beyond these: it would drop it. */
	if (s->handler >= SEGNET_MAX_HANDLERS)
		return false;
	if (s->chan == SEGNET_QUICK)
		return s->len == 0;
	return s->chan == SEGNET_BULK && s->len <= EP_BUF_SIZE;
}

/* Complete send buffer buf of e with SEGNET_EINVAL: never sent. */
static void host_refuse_send(struct host *h, struct host_ep *e, uint32_t buf, uint64_t now)
{
	h->stats.send_invalid++;
	e->stats.invalid++;
	host_post_comp(h, e, buf, SEGNET_EINVAL, now);
}

/* Hand one send to the NIC; 0, or -ENOBUFS to try again later. */
static int host_send_one(struct host *h, struct host_ep *e, const struct ep_send_desc *s,
			 uint64_t now)
{
	struct host_region *r = e->region;
	struct host_send *hs;
	struct nic_msg m;
	int ret;

	if (s->buf >= e->l.send_bufs || r->sends[s->buf].busy) {
		h->stats.send_invalid++;	/* no buffer to complete: drop it */
		return 0;
	}
	hs = &r->sends[s->buf];
	if (!host_send_ok(s) || (nic_cluster_size(h->nic) &&
				 s->dst_node >= nic_cluster_size(h->nic))) {
		host_refuse_send(h, e, s->buf, now);
		return 0;
	}
	m = (struct nic_msg) {
		.vnet = e->vnet, .dst_node = s->dst_node, .dst_ep = s->dst_ep,
		.src_ep = e->id, .handler = s->handler, .chan = s->chan,
		.args = s->args, .len = s->len, .cookie = hs,
		.payload = e->v.send_bufs + (size_t)s->buf * EP_BUF_SIZE,
	};
	hs->busy = true;
	r->inflight++;
	ret = nic_send(h->nic, &m, now);
	if (!ret) {
		h->stats.sends++;
		e->stats.sent++;
		return 0;
	}
	hs->busy = false;
	r->inflight--;
	if (ret == -ENOBUFS)
		return ret;
	host_refuse_send(h, e, s->buf, now);
	return 0;
}

/* Take up to HOST_SEND_BUDGET sends from e's send ring; true if any. */
static bool host_pull_sends(struct host *h, struct host_ep *e, uint64_t now)
{
	const struct ep_send_desc *d;
	struct ep_send_desc s;
	unsigned int n = 0;

	while (n < HOST_SEND_BUDGET && (d = spsc_front(&e->v.send))) {
		s = *d;		/* the application could change it under us */
		if (host_send_one(h, e, &s, now)) {
			h->stats.send_nic_busy++;
			break;
		}
		spsc_advance(&e->v.send);
		n++;
	}
	return n > 0;
}

/* Wake e's application if it sleeps and its wake condition holds. */
static void host_wake(struct host *h, struct host_ep *e, uint64_t now, uint64_t *next)
{
	_Atomic uint32_t *armed = &e->v.hdr->wake_armed;
	uint64_t v = 1, oldest, due;
	uint32_t pending;

	if (!atomic_load_explicit(armed, memory_order_relaxed))
		return;
	atomic_thread_fence(memory_order_seq_cst);
	pending = host_waiting(e, &oldest);
	if (!pending)
		return;
	due = e->wake_delay_ns && oldest != UINT64_MAX ? oldest + e->wake_delay_ns : 0;
	if (pending < e->wake_threshold && now < due) {
		if (due < *next)
			*next = due;
		return;
	}
	if (!atomic_exchange_explicit(armed, 0, memory_order_acq_rel))
		return;
	if (write(e->efd, &v, sizeof(v)) == (ssize_t)sizeof(v)) {
		h->stats.wakeups++;
		e->stats.wakeups++;
	}
}

/* Refresh every open endpoint's heartbeat and node identity. */
static void host_heartbeat(struct host *h)
{
	uint64_t t = host_mono_ns();
	uint32_t node = h->nic ? nic_node_id(h->nic) : 0xFFFF;
	uint32_t size = h->nic ? nic_cluster_size(h->nic) : 0;

	for (uint16_t i = 0; i < h->n_eps; i++) {
		struct ep_shm_hdr *hd = h->eps[i].v.hdr;

		if (!h->eps[i].open)
			continue;
		atomic_store_explicit(&hd->node, node, memory_order_relaxed);
		atomic_store_explicit(&hd->cluster_size, size, memory_order_relaxed);
		atomic_store_explicit(&hd->heartbeat_ns, t, memory_order_release);
	}
}

/* Close an endpoint whose rings make no sense. */
static void host_check_rings(struct host *h, struct host_ep *e)
{
	if (!e->v.send.broken && !e->v.comp.broken && !e->v.recv.broken &&
	    !e->v.rret.broken)
		return;
	h->stats.ring_broken++;
	DP_LOG(host_logtype, WARNING, "%s: endpoint %u (pid %d): its rings hold impossible indices, closing it",
	       h->name, e->id, (int)e->cred.pid);
	host_ep_close(h, e, false);
}

bool host_poll(struct host *h, uint64_t now, uint64_t *next)
{
	/* As many as were open before: the loop may close one (host_check_rings). */
	unsigned int seen = 0, open = h->n_open;
	bool work = false;

	h->now = now;
	for (uint16_t i = 0; i < h->n_eps && seen < open; i++) {
		struct host_ep *e = &h->eps[i];

		if (!e->open)
			continue;
		seen++;
		work |= host_pull_sends(h, e, now);
		if (e->held)
			work |= host_post_held(h, e, now);
		host_wake(h, e, now, next);
		host_check_rings(h, e);
	}
	if (now >= h->next_heartbeat) {
		host_heartbeat(h);
		h->next_heartbeat = now + HOST_HEARTBEAT_MS * 1000000ull;
	}
	if (now >= h->next_ctl) {
		ctl_poll(h, now);
		h->next_ctl = now + HOST_CTL_NS;
	}
	if (h->next_heartbeat < *next)
		*next = h->next_heartbeat;
	if (h->listen_fd >= 0 && h->next_ctl < *next)
		*next = h->next_ctl;
	return work;
}

/* FNV-1a of a string, for object names. */
static uint32_t host_hash32(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

bool host_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= sizeof(((struct host *)0)->name))
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'))
			return false;
	return true;
}

struct host *host_create(const struct host_config *cfg, char *err, size_t errlen)
{
	struct host *h;
	int ret;

	if (!host_name_valid(cfg->name)) {
		snprintf(err, errlen, "name \"%s\": use 1 to 31 letters, digits, '_' or '-'",
			 cfg->name);
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->listen_fd = -1;
	h->epoll_fd = -1;
	h->spare_fd = -1;
	h->refusal_log = (struct dp_ratelimit) { .interval_ns = 1000000000ull, .burst = 5 };
	for (int i = 0; i < HOST_PENDING_MAX; i++)
		h->pending[i].fd = -1;
	snprintf(h->name, sizeof(h->name), "%s", cfg->name);
	h->max_nodes = cfg->max_nodes;
	h->generation = cfg->generation;
	h->n_eps = cfg->endpoints;
	h->eps = calloc(cfg->endpoints, sizeof(*h->eps));
	h->vnets = calloc(cfg->n_vnets ? cfg->n_vnets : 1, sizeof(*h->vnets));
	if (!h->eps || !h->vnets) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	memcpy(h->vnets, cfg->vnets, cfg->n_vnets * sizeof(*h->vnets));
	h->n_vnets = cfg->n_vnets;
	for (uint16_t i = 0; i < h->n_eps; i++) {
		h->eps[i].id = i;
		h->eps[i].efd = -1;
		h->eps[i].sock = -1;
		h->eps[i].shm_fd = -1;
	}
	ret = ctl_listen(h, cfg->socket_dir, cfg->socket_mode, err, errlen);
	if (ret)
		goto fail;
	/* The socket's path in the name tells apart the objects of nicds of one NAME. */
	snprintf(h->shm_prefix, sizeof(h->shm_prefix), "segnet.%s.%08x.", cfg->name,
		 host_hash32(h->path));
	return h;
fail:
	host_destroy(h);
	errno = -ret;
	return NULL;
}

void host_set_nic(struct host *h, struct nic *nic)
{
	h->nic = nic;
}

void host_shutdown(struct host *h)
{
	for (uint16_t i = 0; i < h->n_eps; i++) {
		struct host_ep *e = &h->eps[i];

		if (e->open)
			host_ep_close(h, e, false);
	}
	ctl_close(h);
}

void host_destroy(struct host *h)
{
	struct host_region *r;

	if (!h)
		return;
	if (h->eps)
		host_shutdown(h);
	/* Mappings kept for sends the NIC held: the NIC is gone now. */
	while ((r = h->regions)) {
		h->regions = r->next;
		host_region_free(r);
	}
	free(h->eps);
	free(h->vnets);
	free(h);
}

const struct host_stats *host_stats(const struct host *h)
{
	return &h->stats;
}

unsigned int host_open_count(const struct host *h)
{
	return h->n_open;
}

const char *host_socket_path(const struct host *h)
{
	return h->path;
}

/*
 * An endpoint's telemetry values, in the order of host_tel_ep_keys; then
 * its counters (whose "held" counts messages ever held: held_now is the
 * queue now).
 */
static const char *const host_tel_ep_keys[] = { NICD_TEL_EP_KEYS(DP_COUNTER_NAME) };

/*
 * Sends the NIC holds: sent less the completions of sent ones (refusals
 * complete too, unsent). From the counters, as the telemetry thread reads
 * them while the endpoint may close; read one update apart, they could
 * claim more completions than sends for a moment.
 */
static uint64_t host_tel_in_flight(const struct host_ep_stats *st)
{
	uint64_t done = st->completed - st->invalid;

	return st->sent > done ? st->sent - done : 0;
}

/* Fill v with e's values (host_tel_ep_keys, then its counters); how many. */
static size_t host_tel_ep_values(const struct host_ep *e, uint64_t *v)
{
	size_t n = 0;

	v[n++] = e->vnet;
	v[n++] = e->cred.uid;
	v[n++] = (uint64_t)e->cred.pid;
	v[n++] = e->l.send_bufs;
	v[n++] = e->l.recv_bufs;
	v[n++] = host_tel_in_flight(&e->stats);
	v[n++] = e->n_rfree;
	v[n++] = e->n_held;
	for (size_t k = 0; k < sizeof(e->stats) / sizeof(uint64_t); k++)
		v[n++] = ((const uint64_t *)&e->stats)[k];
	return n;
}

/* The name of value k of host_tel_ep_values. */
static const char *host_tel_ep_key(size_t k)
{
	size_t fixed = sizeof(host_tel_ep_keys) / sizeof(host_tel_ep_keys[0]);

	return k < fixed ? host_tel_ep_keys[k] : host_ep_counter_names[k - fixed];
}

int host_telemetry_endpoints(const struct host *h, const char *prefix,
			     struct rte_tel_data *d, size_t *budget, unsigned int *left_out)
{
	enum { N_VALUES = 8 + sizeof(struct host_ep_stats) / sizeof(uint64_t) };
	char key[RTE_TEL_MAX_STRING_LEN];
	uint64_t v[N_VALUES];
	int ret = 0;

	for (uint16_t i = 0; i < h->n_eps && !ret; i++) {
		const struct host_ep *e = &h->eps[i];
		struct rte_tel_data *c;
		size_t n, bytes;

		if (!e->open)
			continue;
		n = host_tel_ep_values(e, v);
		snprintf(key, sizeof(key), "%s%s%u", prefix, nicd_tel_endpoints_key.ep, e->id);
		bytes = strlen(key) + 8;	/* "key":{...}, */
		for (size_t k = 0; k < n; k++)
			bytes += dp_telemetry_u64_bytes(host_tel_ep_key(k), v[k]);
		/* What does not fit the reply is counted, not silently cut. */
		if (bytes > *budget) {
			(*left_out)++;
			continue;
		}
		c = rte_tel_data_alloc();
		if (!c)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		for (size_t k = 0; k < n; k++)
			rte_tel_data_add_dict_u64(c, host_tel_ep_key(k), v[k]);
		ret = rte_tel_data_add_dict_container(d, key, c, 0);
		if (ret) {
			rte_tel_data_free(c);
			(*left_out)++;
			ret = 0;
			continue;
		}
		*budget -= bytes;
	}
	return ret;
}

void host_print_counters(const struct host *h, const char *name, FILE *f)
{
	struct dp_counter_set set = DP_COUNTER_SET(name, host_counter_names, &h->stats);

	dp_counters_print(f, &set);
}
