/* SPDX-License-Identifier: BSD-3-Clause */
/* The endpoint's shared-memory object: layout, creation, checks. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ep_shm.h"

/* Round x up to a multiple of a (a power of two). */
static uint64_t ep_align(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Bytes of a ring of slots elements of esize bytes, with its indices. */
static uint64_t ep_ring_bytes(uint32_t slots, uint32_t esize)
{
	return ep_align(sizeof(struct spsc_ring) + (uint64_t)slots * esize,
			SPSC_CACHE_LINE);
}

int ep_layout_compute(uint32_t send_bufs, uint32_t recv_bufs, struct ep_layout *l)
{
	uint64_t off = EP_PAGE;

	if (send_bufs < 1 || send_bufs > EP_MAX_BUFS ||
	    recv_bufs < 1 || recv_bufs > EP_MAX_BUFS)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->send_bufs = send_bufs;
	l->recv_bufs = recv_bufs;
	l->send_slots = spsc_pow2(send_bufs);
	l->recv_slots = spsc_pow2(recv_bufs);
	l->off_send_ring = off;
	off += ep_ring_bytes(l->send_slots, sizeof(struct ep_send_desc));
	l->off_comp_ring = off;
	off += ep_ring_bytes(l->send_slots, sizeof(struct ep_comp));
	l->off_recv_ring = off;
	off += ep_ring_bytes(l->recv_slots, sizeof(struct ep_recv_desc));
	l->off_rret_ring = off;
	off += ep_ring_bytes(l->recv_slots, sizeof(struct ep_rret));
	l->off_send_bufs = ep_align(off, EP_PAGE);
	l->off_recv_bufs = l->off_send_bufs + (uint64_t)send_bufs * EP_BUF_SIZE;
	l->size = ep_align(l->off_recv_bufs + (uint64_t)recv_bufs * EP_BUF_SIZE, EP_PAGE);
	return 0;
}

void ep_shm_format(void *base, const struct ep_layout *l, uint64_t generation,
		   uint16_t ep, uint16_t vnet)
{
	struct ep_shm_hdr *h = base;
	unsigned char *b = base;

	memset(h, 0, sizeof(*h));
	h->magic = EP_SHM_MAGIC;
	h->version = EP_SHM_VERSION;
	h->generation = generation;
	h->size = l->size;
	h->ep = ep;
	h->vnet = vnet;
	h->send_bufs = l->send_bufs;
	h->recv_bufs = l->recv_bufs;
	h->buf_size = EP_BUF_SIZE;
	h->send_slots = l->send_slots;
	h->recv_slots = l->recv_slots;
	h->off_send_ring = l->off_send_ring;
	h->off_comp_ring = l->off_comp_ring;
	h->off_recv_ring = l->off_recv_ring;
	h->off_rret_ring = l->off_rret_ring;
	h->off_send_bufs = l->off_send_bufs;
	h->off_recv_bufs = l->off_recv_bufs;
	spsc_ring_reset((struct spsc_ring *)(b + l->off_send_ring), 0);
	spsc_ring_reset((struct spsc_ring *)(b + l->off_comp_ring), 0);
	spsc_ring_reset((struct spsc_ring *)(b + l->off_recv_ring), 0);
	spsc_ring_reset((struct spsc_ring *)(b + l->off_rret_ring), 0);
	atomic_store_explicit(&h->node, 0xFFFF, memory_order_relaxed);
	atomic_store_explicit(&h->state, EP_STATE_OPEN, memory_order_release);
}

int ep_shm_check(const void *base, size_t mapped, struct ep_layout *l)
{
	const struct ep_shm_hdr *h = base;

	if (mapped < EP_PAGE)
		return -EINVAL;
	if (h->magic != EP_SHM_MAGIC || h->version != EP_SHM_VERSION)
		return -EPROTO;
	if (ep_layout_compute(h->send_bufs, h->recv_bufs, l))
		return -EINVAL;
	if (h->size != l->size || l->size > mapped || h->buf_size != EP_BUF_SIZE ||
	    h->send_slots != l->send_slots || h->recv_slots != l->recv_slots ||
	    h->off_send_ring != l->off_send_ring || h->off_comp_ring != l->off_comp_ring ||
	    h->off_recv_ring != l->off_recv_ring || h->off_rret_ring != l->off_rret_ring ||
	    h->off_send_bufs != l->off_send_bufs || h->off_recv_bufs != l->off_recv_bufs)
		return -EINVAL;
	return 0;
}

/* The slots that follow a ring's indices. */
static void *ep_ring_slots(unsigned char *b, uint64_t off)
{
	return b + off + sizeof(struct spsc_ring);
}

void ep_view_init(struct ep_view *v, void *base, const struct ep_layout *l,
		  bool nicd_side)
{
	unsigned char *b = base;
	struct spsc_ring *send = (struct spsc_ring *)(b + l->off_send_ring);
	struct spsc_ring *comp = (struct spsc_ring *)(b + l->off_comp_ring);
	struct spsc_ring *recv = (struct spsc_ring *)(b + l->off_recv_ring);
	struct spsc_ring *rret = (struct spsc_ring *)(b + l->off_rret_ring);
	bool (*app_side)(struct spsc *, struct spsc_ring *, void *, uint32_t, uint32_t) =
		nicd_side ? spsc_consumer_init : spsc_producer_init;
	bool (*nic_side)(struct spsc *, struct spsc_ring *, void *, uint32_t, uint32_t) =
		nicd_side ? spsc_producer_init : spsc_consumer_init;

	v->hdr = base;
	app_side(&v->send, send, ep_ring_slots(b, l->off_send_ring), l->send_slots,
		 sizeof(struct ep_send_desc));
	nic_side(&v->comp, comp, ep_ring_slots(b, l->off_comp_ring), l->send_slots,
		 sizeof(struct ep_comp));
	nic_side(&v->recv, recv, ep_ring_slots(b, l->off_recv_ring), l->recv_slots,
		 sizeof(struct ep_recv_desc));
	app_side(&v->rret, rret, ep_ring_slots(b, l->off_rret_ring), l->recv_slots,
		 sizeof(struct ep_rret));
	v->send_bufs = b + l->off_send_bufs;
	v->recv_bufs = b + l->off_recv_bufs;
}

/*
 * Linux 6.3's MFD_NOEXEC_SEAL (include/uapi/linux/memfd.h), which a
 * vm.memfd_noexec of 2 requires; older kernels refuse it with EINVAL.
 */
enum { EP_MFD_NOEXEC_SEAL = 0x0008U };

int ep_shm_create(const char *name, const struct ep_layout *l, int *fd, void **base)
{
	void *m;
	int f, ret;

	f = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | EP_MFD_NOEXEC_SEAL);
	if (f < 0 && errno == EINVAL)
		f = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (f < 0)
		return -errno;
	/* Fixed size for good: an application that could shrink it would SIGBUS nicd. */
	if (ftruncate(f, (off_t)l->size) ||
	    fcntl(f, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		goto fail;
	m = mmap(NULL, l->size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	if (m == MAP_FAILED)
		goto fail;
	*fd = f;
	*base = m;
	return 0;
fail:
	ret = -errno;
	close(f);
	return ret;
}

void *ep_shm_map(int fd, size_t size)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return m == MAP_FAILED ? NULL : m;
}
