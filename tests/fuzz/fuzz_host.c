/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for nicd's host interface (nicd/host.c) as a hostile
 * application meets it (doc/endpoints.md, Trust). Each input makes a host
 * with its control socket (a directory under /tmp unique to the process;
 * at start it removes those of processes gone without removing theirs)
 * and opens two endpoints the normal way (segnet_open, in a thread, while
 * the host is polled): endpoint 0 is the hostile application's, which the
 * harness drives through its own mapping of the object and the views
 * libsegnet builds (ep_view_init), and endpoint 1 an honest one driven
 * through libsegnet alone. The NIC is the stub of tests/common/host_stub.h
 * (nic_send, nic_cancel, nic_node_id, nic_cluster_size, the calls host.c
 * makes): it holds what it is given, completes, refuses or delivers when
 * the input says so, and cancels as nic_cancel does (or, when the input
 * says so, keeps a closed endpoint's sends to complete later). The hostile
 * application may also close its endpoint through libsegnet, die (its
 * control connection closed, its mapping left behind and scribbled on),
 * die between its OPEN and the answer, and open again, through libsegnet
 * or by hand, which reuses the endpoint id at once. A second hostile
 * application may open beside it (the input says which one acts), both
 * may die and open again in one look of nicd (wanting the same id), the
 * honest endpoint may close (while the hostile one floods it) and open
 * again, and connections may come that never send their OPEN (nicd keeps
 * 16, evicting the oldest for a newcomer) or hang up. Besides the
 * sanitizers' checks (LeakSanitizer included), it aborts when
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
 *   from opens less closes and ring_broken, the messages the NIC delivered
 *   from those posted, held and dropped (rx_ring_full, rx_no_endpoint,
 *   rx_overflow, rx_held_closed);
 * - after a poll a hostile endpoint is open with a ring view nicd found
 *   broken, or with a send ring head nicd read that is further than the
 *   ring's size from its tail (or, armed for a wake-up, a completion or
 *   receive tail nicd read that is);
 * - the honest endpoint is closed (but by its application), refused a
 *   send, gets a completion it did not send or a message it was not
 *   delivered (each time it opens, checked afresh);
 * - an endpoint opened is another application's, or its object is not its
 *   own; an OPEN by hand, behind connections that never speak, is not
 *   answered within HOST_F_CTL_POLLS looks;
 * - the connections that never spoke nicd closed differ from those it
 *   counted, open_evicted and open_expired; it counts more connections
 *   that hung up before their OPEN (open_abandoned) than the harness hung
 *   up, or, at the end, fewer;
 * - after an open or a close, the process has other descriptors than the
 *   host's, 3 per open endpoint and one per pending connection in nicd, 2
 *   per endpoint in the applications and the connections that never speak;
 * - the hostile application's completions and messages, each time it
 *   opens again, are checked as above against what it did since (a
 *   completion or buffer of its endpoint before is one more than it had);
 * - a completion of a closed endpoint's send reaches any ring, or is not
 *   counted in completions_orphaned; a message for an endpoint not open
 *   reaches any ring, or is not counted in rx_no_endpoint; a completion or
 *   message reaches a ring other than its endpoint's;
 * - nicd keeps a mapping that is neither an open endpoint's nor one of a
 *   closed endpoint with sends in the NIC, or a send the NIC holds names a
 *   mapping nicd let go; a closed endpoint is still open after nicd looked
 *   at its sockets; after the shutdown (and the NIC's last completions) a
 *   mapping is left, or a descriptor.
 *
 * The header: byte 0 the hostile endpoint's buffers (bits 0-2: send - 1;
 * bits 3-5: receive - 1), bit 6 the NIC joined to a cluster of 4 nodes;
 * byte 1 the messages the stub NIC holds at most (1 + (b & 15)), bit 4 the
 * hostile application rewrites each descriptor of its while nicd hands it
 * to the NIC (stub_scribble_sending, from check_send). Then
 * records, an op byte each (bits 0-3 the op of enum host_f_op, bits 4-7
 * its argument) and the bytes the op reads.
 * With SEGNET_FUZZ_COUNTERS set, each run prints the host's counters.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
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
	HOST_F_GOOD = 1,	/* the honest endpoint's first id (the hostile one's is 0) */
	HOST_F_GOOD_BUFS = 4,	/* the honest endpoint's buffers each way */
	HOST_F_APPS = 2,	/* hostile applications */
	HOST_F_IDLE_MAX = 48,	/* connections that never speak made, at most: nicd's
				 * backlog (64) holds them (hung up or not) and the
				 * opens, whose connect would wait for room */
	HOST_F_STEP_NS = 100000,	/* the time unit of a poll's advance */
	/* Looks an OPEN by hand waits for its answer: behind 48 connections that
	 * never speak, nicd takes 16 a look (evicting the 16 before). */
	HOST_F_CTL_POLLS = 6,
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
	HOST_F_ARM,		/* hostile application (arg bit 0) acts from now on;
				 * arms its wake-up (unless arg bit 1) */
	HOST_F_CLOSE,		/* hostile: close or die (arg bit 0: keep its mapping);
				 * arg bit 1: the honest endpoint closes instead */
	HOST_F_OPEN,		/* hostile: open again (byte: buffers, host_f_opts; arg
				 * 1: by hand; 2: another application opens by hand
				 * and dies before the answer; 3: connections that
				 * never speak (host_f_idle); bit 2: the honest
				 * endpoint opens again instead; bit 3: both hostile
				 * applications open by hand in one look) */
	HOST_F_NIC_KEEP,	/* NIC: nic_cancel keeps (arg bit 0); at the end the NIC
				 * goes without completing what it kept (arg bit 1) */
	HOST_F_OPS,
};

/* A hostile application (its latest endpoint): its mapping, views and bookkeeping. */
struct host_f_app {
	struct segnet_ep *lib;		/* opened through libsegnet (NULL: by hand, or closed) */
	int sock;			/* opened by hand: its control connection (-1: none) */
	int efd;			/* ... and its eventfd */
	uint16_t id;			/* its endpoint id */
	char name[EP_SHM_NAME_MAX];	/* nicd's name of its object: an id reused differs */
	bool closed;			/* it closed the endpoint or died */
	void *base;			/* its own mapping of the object (NULL: none) */
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

/* An endpoint whose application closed it, until nicd looks at its socket. */
struct host_f_gone {
	uint16_t id;			/* its id */
	char name[EP_SHM_NAME_MAX];	/* its object's name */
};

/* One run. */
struct host_run {
	struct host *h;			/* under test */
	struct nic nic;			/* the stub */
	struct segnet_ep *good;		/* the honest endpoint (NULL: closed) */
	uint16_t good_id;		/* its id */
	/* Sends nicd took from the honest endpoints before this one (sent or invalid). */
	uint64_t good_base;
	struct host_f_app apps[HOST_F_APPS];	/* the hostile applications */
	unsigned int cur;		/* the one acting */
	int idle[HOST_F_IDLE_MAX];	/* connections that never speak */
	unsigned int n_idle;		/* how many */
	unsigned int idle_made;		/* ... made in all (hung up or not) */
	uint64_t idle_closed;		/* of them, closed by nicd */
	uint64_t idle_hung;		/* ... hung up by the harness */
	uint64_t now;			/* the clock */
	uint64_t good_sent;		/* honest sends accepted */
	uint64_t good_completed;	/* ... completed */
	uint64_t good_handled;		/* ... its handler ran for */
	struct host_f_gone gone[HOST_F_EPS];	/* closed, nicd has not looked yet */
	unsigned int n_gone;		/* how many */
	uint64_t orphaned;		/* completions of closed endpoints' sends made */
	uint64_t delivers;		/* messages the NIC delivered */
	bool kept;			/* nic_cancel kept sends at some time */
	bool drop_kept;			/* the NIC goes without completing what it kept */
	bool scribble_sending;		/* the hostile application rewrites what nicd sends */
	int fds;			/* descriptors open before the run */
	int fds_host;			/* ... and once the host is made */
};

const char *const fuzz_name = "fuzz_host";

/* Where the socket directories are: HOST_F_TMP/HOST_F_DIR_PREFIX followed by a pid. */
static const char HOST_F_TMP[] = "/tmp";
static const char HOST_F_DIR_PREFIX[] = "segnet-fuzz-host.";

/* The socket directory of this process. */
static char host_f_dir[64];

/* Remove the socket directory (each host removed its socket). */
static void host_f_rmdir(void)
{
	rmdir(host_f_dir);
}

/* The pid a socket directory's name ends with, or 0 when it is none of ours. */
static pid_t host_f_dir_pid(const char *name)
{
	size_t n = strlen(HOST_F_DIR_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, HOST_F_DIR_PREFIX, n) || name[n] < '1' || name[n] > '9')
		return 0;
	pid = strtol(name + n, &end, 10);
	return *end || pid > INT_MAX ? 0 : (pid_t)pid;
}

/* Remove directory name under dir and what it holds (a socket a host left). */
static void host_f_remove_dir(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	unlinkat(dir, name, AT_REMOVEDIR);
}

/*
 * Remove the socket directories of fuzz_host processes that ended without
 * their atexit (a crash, a timeout, SIGKILL), so they do not pile up under
 * /tmp: those whose pid no process has. One whose pid was reused stays
 * until that process ends.
 */
static void host_f_sweep(void)
{
	DIR *d = opendir(HOST_F_TMP);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		pid_t pid = host_f_dir_pid(de->d_name);

		if (pid > 0 && pid != getpid() && kill(pid, 0) && errno == ESRCH)
			host_f_remove_dir(dirfd(d), de->d_name);
	}
	closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	host_f_sweep();
	snprintf(host_f_dir, sizeof(host_f_dir), "%s/%s%d", HOST_F_TMP, HOST_F_DIR_PREFIX,
		 (int)getpid());
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

/* Endpoint id's entry while it is open with the object called name, or NULL. */
static struct host_ep *host_f_ep_named(struct host *h, uint16_t id, const char *name)
{
	struct host_ep *e = host_f_ep(h, id);

	return e && !strcmp(e->shm_name, name) ? e : NULL;
}

/* Hostile application a's endpoint in nicd, or NULL when nicd closed it. */
static struct host_ep *host_f_app_ep(struct host *h, const struct host_f_app *a)
{
	return a->name[0] ? host_f_ep_named(h, a->id, a->name) : NULL;
}

/* The hostile application acting. */
static struct host_f_app *host_f_cur(struct host_run *r)
{
	return &r->apps[r->cur];
}

/* True when e is a hostile application's endpoint. */
static bool host_f_hostile(struct host_run *r, const struct host_ep *e)
{
	for (unsigned int k = 0; k < HOST_F_APPS; k++)
		if (e && e == host_f_app_ep(r->h, &r->apps[k]))
			return true;
	return false;
}

/* Descriptors this process has open. */
static int host_f_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	fuzz_check(d != NULL, "/proc/self/fd opens");
	while (readdir(d))
		n++;
	closedir(d);
	return n;
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
	if (r->scribble_sending && host_f_hostile(r, e))
		stub_scribble_sending(&e->v.send);
}

static void host_f_poll(struct host_run *r, uint64_t adv);

/* One look of the host at its sockets, checked as every poll. */
static void host_f_look(void *arg)
{
	host_f_poll(arg, HOST_CTL_NS);
}

/* Open an endpoint the normal way; aborts when it fails. */
static struct segnet_ep *host_f_open(struct host_run *r, uint16_t send_bufs,
				     uint16_t recv_bufs)
{
	const struct segnet_open_opts o = { .send_bufs = send_bufs, .recv_bufs = recv_bufs };
	struct segnet_ep *ep = stub_open_looking(r->h, host_f_look, r, HOST_F_VNET,
						 "secret", &o);

	fuzz_check(ep != NULL, "segnet_open succeeds");
	return ep;
}

/*
 * Hostile application a's new endpoint id, mapped from fd (size bytes):
 * it checks the object, builds its views and starts its bookkeeping afresh.
 */
static void host_f_app_attach(struct host_run *r, struct host_f_app *a, uint16_t id,
			      int fd, size_t size)
{
	struct host_ep *e = host_f_ep(r->h, id);

	fuzz_check(e != NULL, "an endpoint opened is open");
	fuzz_check(!host_f_hostile(r, e) && (!r->good || id != r->good_id),
		   "an endpoint opened is no other application's");
	memset(a, 0, sizeof(*a));
	a->sock = a->efd = -1;
	a->id = id;
	snprintf(a->name, sizeof(a->name), "%s", e->shm_name);
	a->base = ep_shm_map(fd, size);
	fuzz_check(a->base != NULL, "the application maps the object");
	fuzz_check(ep_shm_check(a->base, size, &a->l) == 0, "the object's header is sound");
	ep_view_init(&a->v, a->base, &a->l, false);
	fuzz_check(a->v.hdr->ep == id, "an endpoint's object is its own");
	for (uint32_t i = 0; i < a->l.send_bufs; i++)
		a->free_bufs[a->n_free++] = a->l.send_bufs - 1 - i;
}

/* Hostile application a lets go of its mapping. */
static void host_f_unmap(struct host_f_app *a)
{
	if (a->base)
		munmap(a->base, a->l.size);
	a->base = NULL;
}

/* Endpoint id (its object: name), closed by its application, must be closed at nicd's next look. */
static void host_f_gone_add(struct host_run *r, uint16_t id, const char *name)
{
	if (!host_f_ep_named(r->h, id, name) || r->n_gone >= HOST_F_EPS)
		return;
	r->gone[r->n_gone].id = id;
	snprintf(r->gone[r->n_gone++].name, sizeof(r->gone[0].name), "%s", name);
}

/*
 * Hostile application a closes its endpoint: through libsegnet (opened
 * so), or it dies (closes its control connection and eventfd); it keeps
 * its mapping when keep, to scribble on.
 */
static void host_f_close(struct host_run *r, struct host_f_app *a, bool keep)
{
	if (!keep)
		host_f_unmap(a);
	if (a->closed || !a->name[0])
		return;
	if (a->lib)
		segnet_close(a->lib);
	if (a->sock >= 0) {
		close(a->sock);
		close(a->efd);
	}
	a->lib = NULL;
	a->sock = a->efd = -1;
	a->closed = true;
	host_f_gone_add(r, a->id, a->name);
}

/* After nicd looked at its sockets: the endpoints closed are closed. */
static void host_f_check_gone(struct host_run *r)
{
	for (unsigned int i = 0; i < r->n_gone; i++)
		fuzz_check(!host_f_ep_named(r->h, r->gone[i].id, r->gone[i].name),
			   "an endpoint its application closed is closed at nicd's next look");
	r->n_gone = 0;
}

/* The honest endpoint's handler: count what it is given. */
static void host_f_good_handler(struct segnet_ep *ep, const struct segnet_msg *m, void *ctx)
{
	struct host_run *r = ctx;

	(void)ep;
	fuzz_check(m->len <= SEGNET_MAX_PAYLOAD, "a message fits its buffer");
	r->good_handled++;
}

/* Hostile application a opens an endpoint through libsegnet (buffers: as header byte 0). */
static void host_f_open_lib(struct host_run *r, struct host_f_app *a, uint8_t bufs)
{
	struct segnet_ep *ep = host_f_open(r, 1 + (bufs & 7), 1 + ((bufs >> 3) & 7));
	struct host_ep *e = host_f_ep(r->h, segnet_endpoint(ep));

	fuzz_check(e != NULL, "an endpoint libsegnet opened is open");
	host_f_app_attach(r, a, e->id, e->shm_fd, e->l.size);
	a->lib = ep;
}

/* The honest endpoint closes (segnet_close), if open. */
static void host_f_good_close(struct host_run *r)
{
	const struct host_ep *e = host_f_ep(r->h, r->good_id);

	if (!r->good)
		return;
	fuzz_check(e != NULL, "the honest endpoint stays open");
	r->good_base += e->stats.sent + e->stats.invalid;
	segnet_close(r->good);
	r->good = NULL;
	host_f_gone_add(r, e->id, e->shm_name);
}

/* The honest endpoint opens (again: closed first); its bookkeeping starts afresh. */
static void host_f_good_open(struct host_run *r)
{
	host_f_good_close(r);
	r->good = host_f_open(r, HOST_F_GOOD_BUFS, HOST_F_GOOD_BUFS);
	r->good_id = segnet_endpoint(r->good);
	r->good_sent = r->good_completed = r->good_handled = 0;
	for (uint16_t i = 0; i < 4; i++)
		segnet_set_handler(r->good, i, host_f_good_handler, r);
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
	r->scribble_sending = cap & 0x10;
	r->nic.cluster_size = bufs & 0x40 ? HOST_F_NODES : 0;
	stub_nic_attach(&r->nic, r->h);
	r->fds_host = host_f_fds();
	for (unsigned int k = 0; k < HOST_F_APPS; k++)
		r->apps[k].sock = r->apps[k].efd = -1;
	host_f_open_lib(r, &r->apps[0], bufs);
	fuzz_check(r->apps[0].id == 0, "the first endpoint opened is endpoint 0");
	host_f_good_open(r);
	fuzz_check(r->good_id == HOST_F_GOOD, "the second endpoint is 1");
}

/* True when a peer's index idx is further than size from mine (either way). */
static bool host_f_nonsense(uint32_t mine, uint32_t idx, uint32_t size, bool producer)
{
	return producer ? idx - mine > size : mine - idx > size;
}

/* The counters against each other and the stub; the mappings nicd keeps. */
static void host_f_check_counts_common(struct host_run *r)
{
	const struct host_stats *st = host_stats(r->h);
	uint64_t held_back = 0;

	fuzz_check(st->sends == r->nic.accepted, "sends taken = messages the NIC accepted");
	for (uint16_t i = 0; i < HOST_F_EPS; i++)
		held_back += host_f_ep(r->h, i) ? r->h->eps[i].n_held : 0;
	fuzz_check(r->delivers == st->delivered + st->rx_ring_full + st->rx_no_endpoint +
		   st->rx_overflow + st->rx_held_closed + held_back,
		   "every message delivered is posted, held, or counted as dropped");
	fuzz_check(st->sends_cancelled == r->nic.cancelled,
		   "sends_cancelled = what nic_cancel cancelled");
	fuzz_check(st->completions_orphaned == r->orphaned,
		   "completions_orphaned = the completions of closed endpoints' sends");
	fuzz_check(host_open_count(r->h) == st->opens - st->closes - st->ring_broken,
		   "open endpoints = opens - closes - ring_broken");
	/*
	 * nicd keeps the mapping of each open endpoint, and of each closed one
	 * while the NIC holds sends of it (as many as it counts), and no other.
	 */
	for (const struct host_region *g = r->h->regions; g; g = g->next) {
		uint32_t held = 0;

		for (unsigned int i = 0; i < r->nic.n_held; i++)
			held += ((const struct host_send *)r->nic.held[i].pkt.cookie)->region == g;
		fuzz_check(g->inflight == held,
			   "a mapping's inflight = the messages the NIC holds of it");
		fuzz_check(g->ep ? g->ep->open && g->ep->region == g : g->inflight > 0,
			   "nicd keeps the mappings of open endpoints and of sends in flight alone");
	}
	for (unsigned int i = 0; i < r->nic.n_held; i++) {
		const struct host_region *g = r->h->regions;
		const struct host_send *hs = r->nic.held[i].pkt.cookie;

		while (g && g != hs->region)
			g = g->next;
		fuzz_check(g && hs->busy, "a send the NIC holds names a mapping nicd keeps");
	}
	for (uint16_t i = 0; i < HOST_F_EPS; i++) {
		struct host_ep *e = host_f_ep(r->h, i);

		if (e)
			fuzz_check(e->region->ep == e, "an open endpoint has its mapping");
	}
}

/*
 * The connections that never speak: those nicd closed (seen once, then
 * closed here) were evicted (open_evicted) or expired (open_expired), and
 * nicd evicted or expired nothing else (an opener sends its OPEN first);
 * those the harness hung up are counted (open_abandoned) once nicd has
 * looked at them (some may wait in its backlog), and nothing else is.
 */
static void host_f_check_idle(struct host_run *r)
{
	const struct host_stats *st = host_stats(r->h);
	struct pollfd p[HOST_F_IDLE_MAX];
	unsigned int k = 0;

	for (unsigned int i = 0; i < r->n_idle; i++)
		p[i] = (struct pollfd) { .fd = r->idle[i], .events = POLLRDHUP };
	fuzz_check(stub_poll(p, r->n_idle, 0) >= 0, "poll of the connections that never speak");
	for (unsigned int i = 0; i < r->n_idle; i++) {
		if (!(p[i].revents & (POLLRDHUP | POLLHUP))) {
			r->idle[k++] = r->idle[i];
			continue;
		}
		r->idle_closed++;
		close(r->idle[i]);
	}
	r->n_idle = k;
	fuzz_check(r->idle_closed == st->open_evicted + st->open_expired,
		   "open_evicted and open_expired count the connections that never spoke nicd closed");
	fuzz_check(st->open_abandoned <= r->idle_hung,
		   "open_abandoned counts only connections that hung up before their OPEN");
}

/*
 * The descriptors of the process: those of the host (listen, epoll and
 * spare), 3 per open endpoint (socket, eventfd, object) and one per pending
 * connection in nicd; 2 per endpoint of an application (socket, eventfd)
 * and the connections that never speak in the harness. None is left behind.
 */
static void host_f_check_fds(struct host_run *r)
{
	int want = r->fds_host + 3 * (int)host_open_count(r->h) + (int)r->n_idle +
		   (r->good ? 2 : 0);

	for (unsigned int i = 0; i < HOST_PENDING_MAX; i++)
		want += r->h->pending[i].fd >= 0;
	for (unsigned int k = 0; k < HOST_F_APPS; k++)
		want += r->apps[k].lib || r->apps[k].sock >= 0 ? 2 : 0;
	fuzz_check(host_f_fds() == want,
		   "nicd holds a descriptor of each pending connection and three of each endpoint, no more");
}

/* The counters and mappings, and the honest endpoint is open while it did not close. */
static void host_f_check_counts(struct host_run *r)
{
	host_f_check_counts_common(r);
	fuzz_check(!r->good || host_f_ep(r->h, r->good_id) != NULL,
		   "the honest endpoint stays open");
	if (r->idle_made)
		host_f_check_idle(r);
}

/* What nicd may take from one hostile endpoint in a poll. */
struct host_f_snap {
	uint16_t id;			/* the endpoint */
	char name[EP_SHM_NAME_MAX];	/* its object */
	uint32_t mine;			/* nicd's send ring tail before the poll */
	uint32_t n;			/* descriptors nicd may take */
	bool must_close;		/* its send ring head makes no sense */
	bool armed;			/* the application sleeps */
	uint32_t comp_tail;		/* its completion ring tail */
	uint32_t recv_tail;		/* its receive ring tail */
	struct ep_send_desc d[HOST_SEND_BUDGET];	/* copies of those descriptors */
};

/*
 * Before a poll: what nicd will read of hostile endpoint e's rings. Its
 * send head, when nicd has taken all it saw: notes when it makes no sense
 * (the endpoint must be closed by the poll); its completion and receive
 * tails, when the application sleeps (they make sense or not against what
 * nicd posted by then: host_f_after_poll). Copies the descriptors nicd may
 * take: those it saw, then up to the head.
 */
static void host_f_snap_ep(struct host_ep *e, struct host_f_snap *sn)
{
	uint32_t head, end, size = spsc_size(&e->v.send);

	sn->id = e->id;
	memcpy(sn->name, e->shm_name, sizeof(sn->name));
	sn->mine = e->v.send.mine;
	sn->n = 0;
	sn->must_close = false;
	head = atomic_load(&e->v.send.r->head);
	end = e->v.send.peer;
	if (!host_f_nonsense(end, head, size, true))
		end = head;
	else if (e->v.send.peer == e->v.send.mine)
		sn->must_close = true;
	for (uint32_t i = e->v.send.mine; i != end && sn->n < HOST_SEND_BUDGET; i++)
		memcpy(&sn->d[sn->n++], spsc_slot(&e->v.send, i), sizeof(sn->d[0]));
	sn->comp_tail = atomic_load(&e->v.comp.r->tail);
	sn->recv_tail = atomic_load(&e->v.recv.r->tail);
	sn->armed = atomic_load(&e->v.hdr->wake_armed);
}

/*
 * After a poll: e, open, had to be closed: its send head made no sense, or
 * it slept with a completion or receive tail that made none against what
 * nicd had posted when it looked (its wake-up check: after its sends and
 * held-back messages, the last posts of the poll to e).
 */
static bool host_f_must_close(const struct host_ep *e, const struct host_f_snap *sn)
{
	return sn->must_close ||
	       (sn->armed &&
		(host_f_nonsense(e->v.comp.mine, sn->comp_tail, spsc_size(&e->v.comp), false) ||
		 host_f_nonsense(e->v.recv.mine, sn->recv_tail, spsc_size(&e->v.recv), false)));
}

/*
 * Descriptors nicd took from the hostile endpoints' send rings so far:
 * each is sent, refused or dropped (host.send_invalid counts the drops, the
 * endpoint's counters do not), less those of the honest endpoint until its
 * application closed it (from then on, it is one of the others).
 */
static uint64_t host_f_bad_taken(const struct host_run *r)
{
	const struct host_stats *st = host_stats(r->h);
	const struct host_ep_stats *good = &r->h->eps[r->good_id].stats;
	uint64_t honest = r->good_base + (r->good ? good->sent + good->invalid : 0);

	return st->sends + st->send_invalid - honest;
}

/*
 * After a poll: how many descriptors nicd took from each hostile endpoint
 * (of taken in all): from its send ring tail while it is open, else the
 * rest, when only one closed (UINT32_MAX: not known). Each is at most what
 * it was given; one still open has no broken view and made sense.
 */
static void host_f_after_poll(struct host_run *r, const struct host_f_snap *sn,
			      unsigned int n_sn, uint64_t taken, uint32_t *took)
{
	uint64_t known = 0, given = 0;
	unsigned int closed = 0, last = 0;

	for (unsigned int k = 0; k < n_sn; k++) {
		struct host_ep *e = host_f_ep_named(r->h, sn[k].id, sn[k].name);

		given += sn[k].n;
		took[k] = UINT32_MAX;
		if (!e) {
			closed++;
			last = k;
			continue;
		}
		took[k] = e->v.send.mine - sn[k].mine;
		known += took[k];
		fuzz_check(took[k] <= sn[k].n, "nicd took only what it was given");
		fuzz_check(!host_f_must_close(e, &sn[k]),
			   "an endpoint whose ring indices make no sense is closed");
		fuzz_check(!e->v.send.broken && !e->v.comp.broken && !e->v.recv.broken &&
			   !e->v.rret.broken, "an endpoint with a broken ring view is closed");
	}
	fuzz_check(taken <= given && known <= taken, "nicd took only what it was given");
	if (closed == 1) {
		took[last] = (uint32_t)(taken - known);
		fuzz_check(took[last] <= sn[last].n, "nicd took only what it was given");
	}
}

/* Poll the host at now + adv; check what it did. */
static void host_f_poll(struct host_run *r, uint64_t adv)
{
	struct host_f_snap sn[HOST_F_EPS];
	uint32_t took[HOST_F_EPS];
	unsigned int n_sn = 0, mine[HOST_F_APPS];
	struct host_ep *good;
	uint64_t busy = host_stats(r->h)->send_nic_busy, next = UINT64_MAX;
	uint64_t taken = host_f_bad_taken(r), ctl = r->h->next_ctl;

	for (unsigned int k = 0; k < HOST_F_APPS; k++)
		mine[k] = HOST_F_EPS;
	for (uint16_t i = 0; i < r->h->n_eps; i++) {
		struct host_ep *e = host_f_ep(r->h, i);

		if (!e || (r->good && i == r->good_id))
			continue;
		for (unsigned int k = 0; k < HOST_F_APPS; k++)
			if (e == host_f_app_ep(r->h, &r->apps[k]))
				mine[k] = n_sn;
		host_f_snap_ep(e, &sn[n_sn++]);
	}
	r->now += adv;
	host_poll(r->h, r->now, &next);
	good = r->good ? host_f_ep(r->h, r->good_id) : NULL;
	fuzz_check(!good || host_stats(r->h)->send_nic_busy != busy ||
		   atomic_load(&good->v.send.r->head) == good->v.send.mine,
		   "every poll takes the honest endpoint's sends (unless the NIC is full)");
	host_f_after_poll(r, sn, n_sn, host_f_bad_taken(r) - taken, took);
	if (r->h->next_ctl != ctl)
		host_f_check_gone(r);
	/* Which buffers each application's completions may name. */
	for (unsigned int k = 0; k < HOST_F_APPS; k++) {
		struct host_f_app *a = &r->apps[k];
		unsigned int j = mine[k];

		if (j == HOST_F_EPS)
			continue;
		if (took[j] == UINT32_MAX)
			a->comp_tainted = true;
		else
			for (uint32_t i = 0; i < took[j]; i++)
				if (sn[j].d[i].buf < a->l.send_bufs)
					a->taken[sn[j].d[i].buf]++;
	}
}

/* Hostile: a plausible send of a free buffer, if it has one. */
static void host_f_send(struct host_run *r, struct fuzz_in *in, uint8_t arg)
{
	struct host_f_app *a = host_f_cur(r);
	struct ep_send_desc d = {
		.dst_node = fuzz_u8(in) & 7, .dst_ep = fuzz_u8(in) & 7,
		.handler = fuzz_u8(in), .chan = arg & 1 ? SEGNET_BULK : SEGNET_QUICK,
	};
	uint16_t len = fuzz_u16(in);

	d.len = d.chan == SEGNET_BULK ? len % (EP_BUF_SIZE + 2) : 0;
	if (arg & 2)
		d.handler += SEGNET_MAX_HANDLERS;
	if (!a->n_free || !a->base)
		return;
	d.buf = a->free_bufs[--a->n_free];
	if (!spsc_push(&a->v.send, &d))
		a->n_free++;
}

/* Hostile: push a descriptor of any fields. */
static void host_f_raw_send(struct host_run *r, struct fuzz_in *in)
{
	struct host_f_app *a = host_f_cur(r);
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
	if (a->base)
		spsc_push(&a->v.send, &d);
}

/* Hostile: move an index of ring (arg & 3), its head (arg bit 2) or tail. */
static void host_f_index(struct host_run *r, struct fuzz_in *in, uint8_t arg)
{
	struct host_f_app *a = host_f_cur(r);
	struct spsc *rings[4] = { &a->v.send, &a->v.comp, &a->v.recv, &a->v.rret };
	struct spsc *q = rings[arg & 3];
	_Atomic uint32_t *idx;
	uint32_t v;

	if (arg & 8) {
		v = (uint32_t)fuzz_u16(in) << 16;
		v |= fuzz_u16(in);
	} else {
		v = (uint32_t)(int32_t)(int8_t)fuzz_u8(in);
	}
	if (!a->base)
		return;
	idx = arg & 4 ? &q->r->head : &q->r->tail;
	atomic_store(idx, arg & 8 ? v : v + atomic_load(idx));
	if (q == &a->v.rret || (q == &a->v.recv && (arg & 4)))
		a->recv_tainted = true;
	if (q == &a->v.comp && (arg & 4))
		a->comp_tainted = true;
}

/* Hostile: write 4 bytes into the header, the send ring, the return ring or a send buffer. */
static void host_f_write(struct host_run *r, struct fuzz_in *in, uint8_t arg)
{
	struct host_f_app *a = host_f_cur(r);
	const struct ep_layout *l = &a->l;
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
	if (!a->base)
		return;
	memcpy((unsigned char *)a->base + off, &v, sizeof(v));
	if ((arg & 3) == 2)
		a->recv_tainted = true;
}

/* Hostile: take the completions; each must be of a buffer nicd took. */
static void host_f_reap(struct host_run *r)
{
	struct host_f_app *a = host_f_cur(r);
	struct ep_comp c;

	while (a->base && spsc_pop(&a->v.comp, &c)) {
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
	struct host_f_app *a = host_f_cur(r);
	struct ep_rret ret = { .buf = buf };

	if (!a->base)
		return;
	if (buf >= a->l.recv_bufs || !a->held[buf])
		a->recv_tainted = true;
	else
		a->held[buf] = false;
	spsc_push(&a->v.rret, &ret);
}

/* Hostile: take the messages; give them back at once when give_back. */
static void host_f_recv(struct host_run *r, bool give_back)
{
	struct host_f_app *a = host_f_cur(r);
	struct ep_recv_desc d;

	while (a->base && spsc_pop(&a->v.recv, &d)) {
		fuzz_check(d.buf < a->l.recv_bufs, "a message names a receive buffer");
		fuzz_check(d.len <= EP_BUF_SIZE, "a message fits its buffer");
		fuzz_check(a->recv_tainted || !a->held[d.buf],
			   "a receive buffer is not handed to the application twice");
		a->held[d.buf] = true;
		if (give_back)
			host_f_give_back(r, d.buf);
	}
}

/* nicd's head of every open endpoint's completion (comp) or receive ring. */
static void host_f_ring_heads(struct host_run *r, uint32_t *heads, bool comp)
{
	for (uint16_t i = 0; i < HOST_F_EPS; i++) {
		struct host_ep *e = host_f_ep(r->h, i);

		heads[i] = e ? (comp ? e->v.comp.mine : e->v.recv.mine) : 0;
	}
}

/* Since host_f_ring_heads: nothing was posted on a ring but to's (to may be NULL). */
static void host_f_check_heads(struct host_run *r, const uint32_t *heads, bool comp,
			       const struct host_ep *to)
{
	for (uint16_t i = 0; i < HOST_F_EPS; i++) {
		struct host_ep *e = host_f_ep(r->h, i);

		if (e && e != to)
			fuzz_check(heads[i] == (comp ? e->v.comp.mine : e->v.recv.mine),
				   "a completion or message reaches its endpoint's ring alone");
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
	const struct host_stats *st = host_stats(r->h);
	struct host_ep *to = host_f_ep(r->h, p.h.dst_ep);
	uint32_t posted[HOST_F_EPS];
	uint64_t no_ep = st->rx_no_endpoint;

	/* The NIC asks first, unless (arg bit 3) the frame was taken before. */
	if (!(arg & 8) && !r->nic.ops.rx_space(r->nic.ops.ctx, p.h.vnet, p.h.dst_ep))
		return;
	if (to && to->vnet != p.h.vnet)
		to = NULL;
	host_f_ring_heads(r, posted, false);
	r->delivers++;
	r->nic.ops.deliver(r->nic.ops.ctx, &p, r->now);
	fuzz_check(to || st->rx_no_endpoint == no_ep + 1,
		   "a message for an endpoint not open is counted in rx_no_endpoint");
	host_f_check_heads(r, posted, false, to);
}

/*
 * NIC: complete held message i with status. Its completion reaches its
 * endpoint's completion ring alone; a closed endpoint's reaches none and
 * is counted (completions_orphaned).
 */
static void host_f_complete_one(struct host_run *r, unsigned int i, int status)
{
	const struct host_send *s = r->nic.held[i].pkt.cookie;
	struct host_ep *to = s->region->ep;
	uint32_t posted[HOST_F_EPS];

	if (!to)
		r->orphaned++;
	host_f_ring_heads(r, posted, true);
	stub_nic_complete(&r->nic, i, status, r->now);
	host_f_check_heads(r, posted, true, to);
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
			host_f_complete_one(r, 0, SN_OK);
		return;
	}
	host_f_complete_one(r, which % r->nic.n_held, status);
}

/* Honest: send (bulk when arg bit 0), then poll; it must work (while open). */
static void host_f_honest(struct host_run *r, struct fuzz_in *in, uint8_t arg)
{
	struct segnet_completion c[HOST_F_GOOD_BUFS];
	uint8_t data[64] = { 0 };
	uint8_t target = fuzz_u8(in);
	uint16_t node = target % HOST_F_NODES, ep = (target >> 4) % HOST_F_EPS;
	int ret, n;

	if (!r->good)
		return;
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
	fuzz_check(r->good_handled <= host_f_ep(r->h, r->good_id)->stats.received,
		   "the honest endpoint runs handlers only for its messages");
}

/*
 * An OPEN's options from a byte: buffers as header byte 0; bits 6-7 (k) a
 * wake-up after k + 1 events or 50 << k us after the oldest (k > 0).
 */
static struct segnet_open_opts host_f_opts(uint8_t bufs)
{
	uint8_t k = bufs >> 6;

	return (struct segnet_open_opts) {
		.send_bufs = 1 + (bufs & 7), .recv_bufs = 1 + ((bufs >> 3) & 7),
		.wake_threshold = k ? k + 1u : 0, .wake_delay_us = k ? 50u << k : 0,
	};
}

/* An OPEN by hand (stub_send_open) with options from bufs; its socket. */
static int host_f_send_open(uint8_t bufs, struct host_run *r)
{
	const struct segnet_open_opts o = host_f_opts(bufs);
	int sock = stub_send_open(r->h, HOST_F_VNET, "secret", &o);

	fuzz_check(sock >= 0, "an OPEN by hand is sent");
	return sock;
}

/*
 * Hostile application a takes nicd's answer to its OPEN by hand on sock,
 * as a program without libsegnet would (stub_take_reply); aborts unless
 * nicd answers within HOST_F_CTL_POLLS looks at its sockets.
 */
static void host_f_take_open(struct host_run *r, struct host_f_app *a, int sock)
{
	int fds[CTL_FDS] = { -1, -1 }, got;
	struct ctl_reply rep;

	for (int i = 0; !(got = stub_take_reply(sock, &rep, fds)) && i < HOST_F_CTL_POLLS; i++)
		host_f_poll(r, HOST_CTL_NS);
	fuzz_check(got == 1 && rep.type == CTL_OPEN_OK && fds[0] >= 0 && fds[1] >= 0,
		   "nicd answers an OPEN by hand with an endpoint");
	host_f_app_attach(r, a, rep.ep, fds[0], rep.shm_size);
	close(fds[0]);
	a->sock = sock;
	a->efd = fds[1];
}

/*
 * Both hostile applications die and open again by hand, their OPENs sent
 * before nicd's next look: both may want the lowest id free then (the one
 * of the first, which nicd frees at that look).
 */
static void host_f_open_race(struct host_run *r, uint8_t bufs)
{
	int sock[HOST_F_APPS];

	for (unsigned int k = 0; k < HOST_F_APPS; k++)
		host_f_close(r, &r->apps[k], false);
	for (unsigned int k = 0; k < HOST_F_APPS; k++)
		sock[k] = host_f_send_open(bufs ^ (uint8_t)(k * 9), r);
	for (unsigned int k = 0; k < HOST_F_APPS; k++)
		host_f_take_open(r, &r->apps[k], sock[k]);
}

/*
 * Connections to nicd that never speak: 1 + (byte & 15) more (at most
 * HOST_F_IDLE_MAX in all), or (byte bit 7) as many of the oldest hung up.
 * nicd keeps HOST_PENDING_MAX waiting for their OPEN and evicts the oldest
 * for a newcomer (host_f_check_idle).
 */
static void host_f_idle(struct host_run *r, uint8_t byte)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned int n = 1 + (byte & 15);

	if (byte & 0x80) {
		n = n < r->n_idle ? n : r->n_idle;
		for (unsigned int i = 0; i < n; i++)
			close(r->idle[i]);
		memmove(r->idle, r->idle + n, (r->n_idle - n) * sizeof(r->idle[0]));
		r->n_idle -= n;
		r->idle_hung += n;
		return;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", host_socket_path(r->h));
	for (unsigned int i = 0; i < n && r->idle_made < HOST_F_IDLE_MAX; i++, r->idle_made++) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		fuzz_check(fd >= 0 && !connect(fd, (const struct sockaddr *)&sa, sizeof(sa)),
			   "a connection reaches nicd's backlog");
		r->idle[r->n_idle++] = fd;
	}
}

/*
 * An application sends an OPEN and dies before the answer: nicd looks at
 * it within HOST_F_CTL_POLLS looks, and must not count an endpoint open.
 */
static void host_f_open_and_die(struct host_run *r, uint8_t bufs)
{
	const struct host_stats *st = host_stats(r->h);
	uint64_t before = st->opens + st->open_failed;

	close(host_f_send_open(bufs, r));
	for (int i = 0; i < HOST_F_CTL_POLLS && st->opens + st->open_failed == before; i++)
		host_f_poll(r, HOST_CTL_NS);
	fuzz_check(st->opens + st->open_failed != before, "nicd reads an OPEN of an application gone");
}

/*
 * The hostile application acting opens again (its endpoint before, if
 * still there, closed first): through libsegnet, by hand (arg 1); or
 * another application sends an OPEN and dies (arg 2); or connections
 * come that never speak (arg 3); or the honest endpoint opens again (arg
 * bit 2); or both hostile applications open in one look (arg bit 3).
 */
static void host_f_reopen(struct host_run *r, uint8_t bufs, uint8_t arg)
{
	struct host_f_app *a = host_f_cur(r);

	if (arg & 4) {
		host_f_good_open(r);
	} else if (arg & 8) {
		host_f_open_race(r, bufs);
	} else if ((arg & 3) == 3) {
		host_f_idle(r, bufs);
	} else if (arg & 2) {
		host_f_open_and_die(r, bufs);
	} else {
		host_f_close(r, a, false);
		if (arg & 1)
			host_f_take_open(r, a, host_f_send_open(bufs, r));
		else
			host_f_open_lib(r, a, bufs);
	}
	host_f_check_fds(r);
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
		host_f_give_back(r, arg & 8 ? fuzz_u16(in) :
				 fuzz_u8(in) % (host_f_cur(r)->l.recv_bufs + !host_f_cur(r)->l.recv_bufs));
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
		r->cur = arg & 1;
		if (host_f_cur(r)->base && !(arg & 2))
			atomic_store(&host_f_cur(r)->v.hdr->wake_armed, 1);
		break;
	case HOST_F_CLOSE:
		if (arg & 2)
			host_f_good_close(r);
		else
			host_f_close(r, host_f_cur(r), arg & 1);
		host_f_check_fds(r);
		break;
	case HOST_F_OPEN:
		host_f_reopen(r, fuzz_u8(in), arg);
		break;
	case HOST_F_NIC_KEEP:
		r->nic.cancel_keeps = arg & 1;
		r->kept |= r->nic.cancel_keeps;
		r->drop_kept = arg & 2;
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
	const struct host_stats *st = host_stats(r->h);
	uint64_t next = UINT64_MAX;
	int n;

	/*
	 * The honest endpoint (if open) still works: what nicd held back for
	 * it comes as it gives buffers back, and every message posted is handled.
	 */
	for (unsigned int i = 0; r->good && i <= HOST_HELD_MAX / HOST_F_GOOD_BUFS + 1; i++) {
		while ((n = segnet_poll(r->good, c, HOST_F_GOOD_BUFS)) > 0)
			r->good_completed += (uint64_t)n;
		fuzz_check(n == 0, "the honest endpoint polls at the end");
		r->now += HOST_F_STEP_NS;
		host_poll(r->h, r->now, &next);
	}
	fuzz_check(!r->good || host_f_ep(r->h, r->good_id)->n_held == 0,
		   "what nicd held back for the honest endpoint is posted");
	fuzz_check(!r->good || r->good_handled == host_f_ep(r->h, r->good_id)->stats.received,
		   "the honest endpoint handles every message posted to it");
	if (fuzz_print_counters)
		host_print_counters(r->h, "host", stderr);
	host_f_good_close(r);
	for (unsigned int k = 0; k < HOST_F_APPS; k++)
		host_f_close(r, &r->apps[k], false);
	host_f_poll(r, HOST_CTL_NS);
	fuzz_check(host_open_count(r->h) == 0, "closing the sockets closes the endpoints");
	/* Hung-up connections still in the backlog: 16 are taken a look. */
	for (int i = 0; i < HOST_F_CTL_POLLS && st->open_abandoned < r->idle_hung; i++)
		host_f_poll(r, HOST_CTL_NS);
	fuzz_check(st->open_abandoned == r->idle_hung,
		   "nicd counts each connection that hung up before its OPEN (open_abandoned)");
	if (r->idle_made)
		host_f_check_idle(r);
	host_f_check_fds(r);
	while (r->n_idle)
		close(r->idle[--r->n_idle]);
	host_shutdown(r->h);
	fuzz_check(r->kept || r->nic.n_held == 0,
		   "closing cancels every send the NIC holds");
	/* A NIC that kept sends completes them now, or goes (host_destroy unmaps). */
	while (r->nic.n_held && !r->drop_kept)
		host_f_complete_one(r, 0, SN_OK);
	host_f_check_counts_common(r);
	r->nic.n_held = 0;
	fuzz_check(st->sends_cancelled == r->nic.cancelled, "cancellations counted");
	fuzz_check(r->drop_kept || !r->h->regions,
		   "no mapping is left once nothing of it is in flight");
	host_destroy(r->h);
	fuzz_check(host_f_fds() == r->fds, "no descriptor is left");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct host_run r;
	struct fuzz_in in = { .p = data, .left = size };

	memset(&r, 0, sizeof(r));
	r.fds = host_f_fds();
	host_f_start(&r, &in);
	while (in.left)
		host_f_record(&r, &in);
	host_f_stop(&r);
	return 0;
}
