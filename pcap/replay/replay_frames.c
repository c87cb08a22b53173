/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames mode: trace records as raw frames on a dp_port. A prebuilt frame
 * holds one reference of its own for the whole replay; each send adds one,
 * which the driver drops when it is done with the frame, so the same mbuf
 * goes out loop after loop without being rebuilt or returned to the pool.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "pcap/replay/replay_frames.h"

/* Frames mode over one port. */
struct replay_frames {
	/* where frames go */
	struct dp_port *port;
	/* the trace being replayed */
	const struct trace *t;
	/* prebuilt frames or send-time copies */
	struct rte_mempool *mp;
	/* per record, its prebuilt frame; NULL when frames are copied at send */
	struct rte_mbuf **frames;
	/* the configuration */
	struct replay_frames_conf c;
	/* frames queued for the next flush */
	struct rte_mbuf *q[REPLAY_BURST_MAX];
	/* their lengths */
	uint32_t qlen[REPLAY_BURST_MAX];
	/* entries used in q */
	uint16_t nq;
	/* the port took nothing for the stall time-out, and nothing since */
	bool stalled;
	/* the counters */
	struct replay_frames_stats st;
};

/* Pools made so far, for unique names. */
static unsigned int replay_frames_pools;

/* Longest captured length of t. */
static uint32_t replay_frames_longest(const struct trace *t)
{
	uint32_t max = 0;

	for (uint64_t k = 0; k < t->n; k++)
		if (t->recs[k].caplen > max)
			max = t->recs[k].caplen;
	return max;
}

uint32_t replay_frames_mtu_needed(const struct trace *t, const struct dp_frame_limit *rule,
				  const struct trace_rec **rec)
{
	const struct trace_rec *best = NULL;
	uint32_t max = 0, mtu;

	for (uint64_t k = 0; t->info.linktype == REPLAY_LINKTYPE_ETHERNET && k < t->n; k++) {
		mtu = dp_frame_mtu_needed(t->recs[k].data, t->recs[k].caplen, rule);
		if (best == NULL || mtu > max) {
			max = mtu;
			best = &t->recs[k];
		}
	}
	if (rec != NULL)
		*rec = best;
	return max;
}

/*
 * Leave out of t (compacted), counting them, the records shorter than an
 * Ethernet header (a driver would pad or flag them: nothing of the trace's
 * goes out as it was) and those longer than f->st.limit allows.
 */
static void replay_frames_leave_out(struct replay_frames *f, struct trace *t)
{
	uint64_t kept = 0;

	for (uint64_t k = 0; k < t->n; k++) {
		if (t->recs[k].caplen < RTE_ETHER_HDR_LEN) {
			if (f->st.too_short++ == 0)
				f->st.first_too_short = t->recs[k];
		} else if (!dp_frame_fits(&f->st.limit, t->recs[k].data, t->recs[k].caplen)) {
			if (f->st.too_long++ == 0)
				f->st.first_too_long = t->recs[k];
		} else {
			t->recs[kept++] = t->recs[k];
		}
	}
	t->n = kept;
}

/* The message when no record is left to send; EMSGSIZE. */
static void replay_frames_none_left(const struct replay_frames *f, const struct dp_port *port,
				    char *err, size_t errlen)
{
	char lim[128];

	dp_frame_limit_describe(&f->st.limit, lim, sizeof(lim));
	if (f->st.too_short == 0)
		snprintf(err, errlen, "every record (%" PRIu64 ") is longer than port %s sends, frames of %s: nothing to send",
			 f->st.too_long, port->name, lim);
	else if (f->st.too_long == 0)
		snprintf(err, errlen, "every record (%" PRIu64 ") is shorter than an Ethernet header (%d bytes): nothing to send",
			 f->st.too_short, RTE_ETHER_HDR_LEN);
	else
		snprintf(err, errlen, "every record is too short (%" PRIu64 ", under %d bytes) or longer than port %s sends (%" PRIu64 ", frames of %s): nothing to send",
			 f->st.too_short, RTE_ETHER_HDR_LEN, port->name, f->st.too_long, lim);
	errno = EMSGSIZE;
}

/* True when prebuilding n frames of room data bytes stays in the limits. */
static bool replay_frames_can_prebuild(uint64_t n, uint32_t room)
{
	uint64_t per = room + sizeof(struct rte_mbuf) + RTE_CACHE_LINE_SIZE;

	return n <= REPLAY_FRAMES_PREBUILD_RECORDS &&
	       n * per <= (uint64_t)REPLAY_FRAMES_PREBUILD_BYTES;
}

/* A pktmbuf pool of n mbufs with room bytes of data each; NULL with rte_errno. */
static struct rte_mempool *replay_frames_pool(unsigned int n, uint32_t room, int socket)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "replay-fr%u", replay_frames_pools++);
	return rte_pktmbuf_pool_create(name, n, 0, 0, (uint16_t)(RTE_PKTMBUF_HEADROOM + room),
				       socket);
}

/* Copy record rec into a new mbuf of f's pool, or NULL. */
static struct rte_mbuf *replay_frames_build(struct replay_frames *f, const struct trace_rec *rec)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(f->mp);

	if (m == NULL)
		return NULL;
	memcpy(rte_pktmbuf_mtod(m, void *), rec->data, rec->caplen);
	m->data_len = (uint16_t)rec->caplen;
	m->pkt_len = rec->caplen;
	return m;
}

/* Build every record's frame; 0 or -ENOMEM. */
static int replay_frames_prebuild(struct replay_frames *f)
{
	f->frames = calloc(f->t->n, sizeof(*f->frames));
	if (f->frames == NULL)
		return -ENOMEM;
	for (uint64_t k = 0; k < f->t->n; k++) {
		f->frames[k] = replay_frames_build(f, &f->t->recs[k]);
		if (f->frames[k] == NULL)
			return -ENOMEM;
	}
	f->st.prebuilt = f->t->n;
	return 0;
}

/* Make the pool: prebuilt frames when they fit, else a copy pool. */
static int replay_frames_make_pool(struct replay_frames *f, uint32_t room,
				   char *err, size_t errlen)
{
	uint64_t n = f->t->n;

	if (!f->c.no_prebuild && n > 0 && replay_frames_can_prebuild(n, room)) {
		f->mp = replay_frames_pool((unsigned int)n, room, f->c.socket);
		if (f->mp != NULL && replay_frames_prebuild(f) == 0)
			return 0;
		/* Not enough memory for them all: copy at send time instead. */
		for (uint64_t k = 0; f->frames && k < n; k++)
			rte_pktmbuf_free(f->frames[k]);
		free(f->frames);
		f->frames = NULL;
		f->st.prebuilt = 0;
		rte_mempool_free(f->mp);
	}
	f->mp = replay_frames_pool(REPLAY_FRAMES_COPY_POOL, room, f->c.socket);
	if (f->mp == NULL) {
		snprintf(err, errlen, "cannot create a pool of %u frames of %u bytes: %s",
			 REPLAY_FRAMES_COPY_POOL, room, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

struct replay_frames *replay_frames_create(struct dp_port *port, struct trace *t,
					   const struct replay_frames_conf *c,
					   char *err, size_t errlen)
{
	struct replay_frames *f;
	uint32_t room;
	int rc;

	if (replay_trace_ethernet(t, REPLAY_FRAMES_ETHERNET, err, errlen)) {
		errno = EPROTONOSUPPORT;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->port = port;
	f->t = t;
	f->c = *c;
	f->st.limit = dp_frame_limit_capped(c->limit, REPLAY_FRAMES_MBUF_MAX);
	replay_frames_leave_out(f, t);
	if (t->n == 0 && (f->st.too_long || f->st.too_short)) {
		replay_frames_none_left(f, port, err, errlen);
		free(f);
		return NULL;
	}
	room = replay_frames_longest(t);
	if (room < RTE_ETHER_MIN_LEN)
		room = RTE_ETHER_MIN_LEN;
	rc = replay_frames_make_pool(f, room, err, errlen);
	if (rc) {
		replay_frames_free(f);
		errno = -rc;
		return NULL;
	}
	for (uint64_t k = 0; k < t->n; k++)
		f->st.cut += t->recs[k].caplen < t->recs[k].wirelen;
	return f;
}

/* Start watching for progress (the port taking a frame, an mbuf coming free). */
static void replay_frames_watch(const struct replay_frames *f, struct replay_stall *w)
{
	replay_stall_start(w, f->c.clock.now(f->c.clock.ctx), REPLAY_FRAMES_STALL_NS);
}

/*
 * True when a retry should give up: stop flag, or no progress for the stall
 * time-out of watched time (a stretch in which the replay did not run
 * counts as REPLAY_GAP_NS: the peer may not have run either).
 */
static bool replay_frames_give_up(const struct replay_frames *f, struct replay_stall *w)
{
	if (f->c.stop != NULL && *f->c.stop)
		return true;
	return replay_stall_over(w, f->c.clock.now(f->c.clock.ctx));
}

/*
 * A send-time copy of rec, or NULL. With frames queued an empty pool is
 * the caller's to flush (the port gives mbufs back as it sends, and the
 * flush is the caller's to account); with none, wait for the driver to
 * free some, up to the stall time-out.
 */
static struct rte_mbuf *replay_frames_copy(struct replay_frames *f, const struct trace_rec *rec)
{
	struct rte_mbuf *m = replay_frames_build(f, rec);
	struct replay_stall w;

	if (m != NULL || f->nq)
		return m;
	replay_frames_watch(f, &w);
	while ((m = replay_frames_build(f, rec)) == NULL && !replay_frames_give_up(f, &w))
		rte_pause();
	return m;
}

int replay_frames_queue(struct replay_frames *f, const struct trace_rec *rec)
{
	struct rte_mbuf *m;

	if (f->nq == REPLAY_BURST_MAX)
		return -EAGAIN;
	if (f->frames != NULL) {
		m = f->frames[rec - f->t->recs];
		rte_mbuf_refcnt_update(m, 1);
	} else {
		m = replay_frames_copy(f, rec);
		if (m == NULL && f->nq)
			return -EAGAIN;
		if (m == NULL) {
			f->st.dropped++;
			return -ENOBUFS;
		}
	}
	f->q[f->nq] = m;
	f->qlen[f->nq] = rec->caplen;
	f->nq++;
	return 0;
}

/* Drop queued frames from .. to - 1 (the port would not take them). */
static void replay_frames_drop(struct replay_frames *f, uint16_t from, uint16_t to)
{
	rte_pktmbuf_free_bulk(f->q + from, to - from);
	f->st.dropped += to - from;
}

unsigned int replay_frames_flush(struct replay_frames *f)
{
	uint16_t n = f->nq, off = 0, k;
	bool busy = false, watching = false;
	struct replay_stall w;

	f->nq = 0;
	while (off < n) {
		k = dp_port_tx_keep(f->port, f->q + off, n - off);
		for (uint16_t i = off; i < off + k; i++)
			f->st.bytes += f->qlen[i];
		off += k;
		if (k != 0)
			f->stalled = false;
		if (off == n)
			break;
		if (!busy) {
			/* once per burst: the retries that follow are no news */
			busy = true;
			f->st.tx_busy++;
			f->st.tx_waited += n - off;
		}
		if (f->stalled) {
			/* still stalled: no second wait, the burst is lost at once */
			replay_frames_drop(f, off, n);
			break;
		}
		if (k != 0 || !watching) {
			replay_frames_watch(f, &w);
			watching = true;
		} else if (replay_frames_give_up(f, &w)) {
			replay_frames_drop(f, off, n);
			/* (a stop flag is no stall: the replay ends) */
			f->stalled = f->c.stop == NULL || !*f->c.stop;
			f->st.stalls += f->stalled;
			break;
		}
		rte_pause();
	}
	f->st.sent += off;
	return off;
}

void replay_frames_close_wait(const struct replay_frames *f)
{
	waiter_sleep_watched(&f->c.clock, REPLAY_FRAMES_CLOSE_NS, REPLAY_FRAMES_CLOSE_STEP_NS,
			     REPLAY_GAP_NS);
}

void replay_frames_get_stats(const struct replay_frames *f, struct replay_frames_stats *out)
{
	*out = f->st;
}

void replay_frames_free(struct replay_frames *f)
{
	if (f == NULL)
		return;
	if (f->nq)
		rte_pktmbuf_free_bulk(f->q, f->nq);
	for (uint64_t k = 0; f->frames && k < f->t->n; k++)
		rte_pktmbuf_free(f->frames[k]);
	free(f->frames);
	rte_mempool_free(f->mp);
	free(f);
}
