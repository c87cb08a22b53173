/* SPDX-License-Identifier: BSD-3-Clause */
/* The protocol-stage framework: spec parsing, assembly, burst driving. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counters.h"
#include "stage.h"

/* Burst size used when a stage releases packets one by one. */
enum { STAGE_BURST = 64 };

const struct stage_ops *stage_find(const struct stage_registry *reg,
				   const char *name)
{
	for (const struct stage_ops *const *o = reg->ops; *o; o++)
		if (strcmp((*o)->name, name) == 0)
			return *o;
	return NULL;
}

/* Index of parameter `key` in ops, or -1. */
static int stage_param_index(const struct stage_ops *ops, const char *key)
{
	for (int i = 0; ops->params && ops->params[i].name; i++)
		if (strcmp(ops->params[i].name, key) == 0)
			return i;
	return -1;
}

int64_t stage_param(const struct stage *st, const char *name)
{
	int i = stage_param_index(st->ops, name);

	return i >= 0 ? st->param[i] : 0;
}

/* Parse one "key=value" for stage st; 0 or -EINVAL with a message. */
static int stage_parse_param(struct stage *st, char *kv, char *err, size_t errlen)
{
	const struct stage_param *p;
	char *eq = strchr(kv, '='), *end;
	long long v;
	int i;

	if (!eq) {
		snprintf(err, errlen, "stage %s: parameter '%s' needs a value (key=value)",
			 st->ops->name, kv);
		return -EINVAL;
	}
	*eq = '\0';
	i = stage_param_index(st->ops, kv);
	if (i < 0) {
		snprintf(err, errlen, "stage %s has no parameter '%s'", st->ops->name, kv);
		return -EINVAL;
	}
	p = &st->ops->params[i];
	if (p->choices) {
		for (int c = 0; p->choices[c]; c++) {
			if (strcmp(p->choices[c], eq + 1) == 0) {
				st->param[i] = c;
				return 0;
			}
		}
		snprintf(err, errlen, "stage %s: %s must be one of", st->ops->name, kv);
		for (int c = 0; p->choices[c]; c++)
			snprintf(err + strlen(err), errlen - strlen(err), " %s", p->choices[c]);
		return -EINVAL;
	}
	errno = 0;
	v = strtoll(eq + 1, &end, 10);
	if (errno || end == eq + 1 || *end || v < p->min || v > p->max) {
		snprintf(err, errlen, "stage %s: %s='%s' must be an integer in [%lld, %lld]",
			 st->ops->name, kv, eq + 1, (long long)p->min, (long long)p->max);
		return -EINVAL;
	}
	st->param[i] = v;
	return 0;
}

/* Parse "name:key=value:key=value" into stage st. */
static int stage_parse(const struct stage_registry *reg, struct stage *st,
		       char *item, char *err, size_t errlen)
{
	char *save = NULL, *name = strtok_r(item, ":", &save), *kv;

	if (!name || !*name) {
		snprintf(err, errlen, "empty stage name in pipeline spec");
		return -EINVAL;
	}
	st->ops = stage_find(reg, name);
	if (!st->ops) {
		snprintf(err, errlen, "unknown stage '%s' (stages:", name);
		for (const struct stage_ops *const *o = reg->ops; *o; o++)
			snprintf(err + strlen(err), errlen - strlen(err), " %s", (*o)->name);
		snprintf(err + strlen(err), errlen - strlen(err), ")");
		return -EINVAL;
	}
	for (int i = 0; st->ops->params && st->ops->params[i].name; i++) {
		if (i >= STAGE_MAX_PARAMS)
			return -EINVAL;
		st->param[i] = st->ops->params[i].def;
	}
	while ((kv = strtok_r(NULL, ":", &save)))
		if (stage_parse_param(st, kv, err, errlen))
			return -EINVAL;
	return 0;
}

/* Parse a whole spec into pl->stages. */
static int pipeline_parse(const struct stage_registry *reg, struct pipeline *pl,
			  const char *spec, char *err, size_t errlen)
{
	char *copy = strdup(spec), *save = NULL, *item;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		while (*item == ' ')
			item++;
		if (!*item)
			continue;
		if (pl->n_stages == STAGE_MAX) {
			snprintf(err, errlen, "more than %d stages in pipeline spec", STAGE_MAX);
			rc = -EINVAL;
			break;
		}
		rc = stage_parse(reg, &pl->stages[pl->n_stages], item, err, errlen);
		if (rc)
			break;
		pl->n_stages++;
	}
	free(copy);
	return rc;
}

/* Reject a stage listed twice. */
static int pipeline_check_unique(const struct pipeline *pl, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < pl->n_stages; i++)
		for (unsigned int j = i + 1; j < pl->n_stages; j++)
			if (pl->stages[i].ops == pl->stages[j].ops) {
				snprintf(err, errlen, "stage %s is listed twice",
					 pl->stages[i].ops->name);
				return -EINVAL;
			}
	return 0;
}

/* Lay out per-connection state and allocate per-pipeline state. */
static int pipeline_layout(struct pipeline *pl)
{
	size_t off = sizeof(struct sn_conn);

	for (unsigned int i = 0; i < pl->n_stages; i++) {
		struct stage *st = &pl->stages[i];

		st->pl = pl;
		st->index = i;
		off = (off + 7) & ~(size_t)7;
		st->conn_off = off;
		off += st->ops->conn_size;
		if (st->ops->priv_size) {
			st->priv = calloc(1, st->ops->priv_size);
			if (!st->priv)
				return -ENOMEM;
		}
		if (st->ops->tick)
			pl->tickers[pl->n_tickers++] = st;
	}
	pl->conn_size = off;
	return 0;
}

struct pipeline *pipeline_create(const struct stage_registry *reg,
				 const char *spec, uint16_t vnet, uint16_t self,
				 uint16_t n_nodes, const struct pipeline_env *env,
				 char *err, size_t errlen)
{
	struct pipeline *pl = calloc(1, sizeof(*pl));
	int rc = -ENOMEM;

	if (!pl)
		goto fail_errno;
	pl->vnet = vnet;
	pl->self = self;
	pl->n_nodes = n_nodes;
	pl->env = *env;
	snprintf(pl->name, sizeof(pl->name), "vnet%u", vnet);
	pl->conns = calloc(n_nodes ? n_nodes : 1, sizeof(*pl->conns));
	if (!pl->conns)
		goto fail;
	rc = pipeline_parse(reg, pl, spec, err, errlen);
	if (!rc)
		rc = pipeline_check_unique(pl, err, errlen);
	if (!rc)
		rc = pipeline_layout(pl);
	if (rc)
		goto fail;
	for (unsigned int i = 0; i < pl->n_stages; i++) {
		struct stage *st = &pl->stages[i];

		if (strcmp(st->ops->name, "genp") == 0)
			pl->numbered = true;
		if (strcmp(st->ops->name, "build_acks") == 0)
			pl->acked = true;
	}
	for (unsigned int i = 0; i < pl->n_stages; i++) {
		struct stage *st = &pl->stages[i];

		if (st->ops->init && (rc = st->ops->init(st, err, errlen)))
			goto fail;
	}
	return pl;
fail:
	pipeline_destroy(pl);
fail_errno:
	errno = -rc;
	return NULL;
}

void pipeline_destroy(struct pipeline *pl)
{
	if (!pl)
		return;
	for (unsigned int p = 0; pl->conns && p < pl->n_nodes; p++) {
		struct sn_conn *c = pl->conns[p];

		if (!c)
			continue;
		for (unsigned int i = 0; i < pl->n_stages; i++)
			if (pl->stages[i].ops->conn_fini)
				pl->stages[i].ops->conn_fini(&pl->stages[i], c);
		free(c);
	}
	for (unsigned int i = 0; i < pl->n_stages; i++) {
		if (pl->stages[i].ops->fini && pl->stages[i].priv)
			pl->stages[i].ops->fini(&pl->stages[i]);
		free(pl->stages[i].priv);
	}
	free(pl->conns);
	free(pl);
}

struct sn_conn *pipeline_conn(struct pipeline *pl, uint16_t peer)
{
	struct sn_conn *c;

	if (peer >= pl->n_nodes)
		return NULL;
	c = pl->conns[peer];
	if (c)
		return c;
	c = calloc(1, pl->conn_size);
	if (!c)
		return NULL;
	c->peer = peer;
	c->vnet = pl->vnet;
	c->pl = pl;
	c->tx_next = 1;
	for (unsigned int i = 0; i < pl->n_stages; i++)
		if (pl->stages[i].ops->conn_init)
			pl->stages[i].ops->conn_init(&pl->stages[i], c);
	pl->conns[peer] = c;
	return c;
}

void pipeline_conn_activate(struct pipeline *pl, struct sn_conn *conn)
{
	if (conn->on_active)
		return;
	conn->on_active = 1;
	conn->active_next = pl->active;
	pl->active = conn;
}

void pipeline_touch(struct pipeline *pl)
{
	pl->tick_due = 0;
}

struct stage *pipeline_stage(struct pipeline *pl, const char *name)
{
	for (unsigned int i = 0; i < pl->n_stages; i++)
		if (strcmp(pl->stages[i].ops->name, name) == 0)
			return &pl->stages[i];
	return NULL;
}

bool pipeline_holds_later(struct pipeline *pl, struct sn_conn *conn, uint16_t ep, uint32_t n)
{
	for (unsigned int i = 0; i < pl->n_stages; i++) {
		struct stage *st = &pl->stages[i];

		if (st->ops->holds_later && st->ops->holds_later(st, conn, ep, n))
			return true;
	}
	return false;
}

/* Run stages from index `from` downwards, then the sink. */
static void pipeline_run_tx(struct pipeline *pl, unsigned int from,
			    struct sn_pkt **pkts, uint16_t n, uint64_t now)
{
	pipeline_touch(pl);
	for (unsigned int i = from; i < pl->n_stages && n; i++) {
		struct stage *st = &pl->stages[i];

		if (st->ops->tx)
			n = st->ops->tx(st, pkts, n, now);
	}
	for (uint16_t k = 0; k < n; k++)
		pl->env.sink(pl->env.ctx, pkts[k], now);
}

/* Run stages from index `from` upwards, then deliver or release. */
static void pipeline_run_rx(struct pipeline *pl, int from,
			    struct sn_pkt **pkts, uint16_t n, uint64_t now)
{
	pipeline_touch(pl);
	for (int i = from; i >= 0 && n; i--) {
		struct stage *st = &pl->stages[i];

		if (st->ops->rx)
			n = st->ops->rx(st, pkts, n, now);
	}
	for (uint16_t k = 0; k < n; k++) {
		struct sn_pkt *p = pkts[k];

		if (p->flags & SN_PKT_BUFFERED)
			continue;	/* the order stage still holds it */
		if ((p->h.flags & PROTO_F_DATA) && !(p->flags & SN_PKT_HDR_ONLY))
			pl->env.deliver(pl->env.ctx, p, now);
		else
			pl->env.release(pl->env.ctx, p);
	}
}

void pipeline_tx(struct pipeline *pl, struct sn_pkt **pkts, uint16_t n,
		 uint64_t now)
{
	pipeline_run_tx(pl, 0, pkts, n, now);
}

void pipeline_rx(struct pipeline *pl, struct sn_pkt **pkts, uint16_t n,
		 uint64_t now)
{
	pipeline_run_rx(pl, (int)pl->n_stages - 1, pkts, n, now);
}

void pipeline_cancel(struct pipeline *pl, uint16_t src_ep, uint64_t now)
{
	pipeline_touch(pl);
	for (unsigned int i = 0; i < pl->n_stages; i++) {
		struct stage *st = &pl->stages[i];

		if (st->ops->cancel)
			st->ops->cancel(st, src_ep, now);
	}
}

void stage_pass_down(struct stage *st, struct sn_pkt **pkts, uint16_t n,
		     uint64_t now)
{
	pipeline_run_tx(st->pl, st->index + 1, pkts, n, now);
}

void stage_pass_up(struct stage *st, struct sn_pkt **pkts, uint16_t n,
		   uint64_t now)
{
	pipeline_run_rx(st->pl, (int)st->index - 1, pkts, n, now);
}

uint64_t pipeline_tick(struct pipeline *pl, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	if (now < pl->tick_due)
		return pl->tick_due;
	/* Not 0 unless a stage's tick passes packets on (then tick again). */
	pl->tick_due = UINT64_MAX;
	for (unsigned int i = 0; i < pl->n_tickers; i++) {
		struct stage *st = pl->tickers[i];
		uint64_t t = st->ops->tick(st, now);

		if (t < next)
			next = t;
	}
	if (pl->tick_due)
		pl->tick_due = next;
	return next;
}

void pipeline_event(struct pipeline *pl, struct sn_conn *conn,
		    enum stage_event ev, struct sn_pkt *pkt, uint64_t now)
{
	pipeline_touch(pl);
	/* Bottom up: lower stages let go of packets before genp finishes them. */
	for (int i = (int)pl->n_stages - 1; i >= 0; i--) {
		struct stage *st = &pl->stages[i];

		if (st->ops->event)
			st->ops->event(st, conn, ev, pkt, now);
	}
}

/* Start conn over: the outside's and the stages' packets fail, numbers restart. */
static void pipeline_conn_restart(struct pipeline *pl, struct sn_conn *c, uint64_t now)
{
	if (pl->env.restart)
		pl->env.restart(pl->env.ctx, c, now);
	pipeline_event(pl, c, STAGE_EV_RESET, NULL, now);
	c->tx_next = 1;
	c->rto_backoff = 0;	/* the old packets' timeouts; the path's srtt stays */
	c->tx_unscanned = 0;
	c->rx_base = 0;
	c->rx_mask = 0;
	c->rx_unacked = 0;
	c->ack_now = 0;
	memset(c->rx_blocks, 0, sizeof(c->rx_blocks));
	c->rx_blocks_used = 0;
	c->rx_heard = false;
	c->epoch_adopted = false;
	c->named = false;
	if (c->fresh_seen == SN_FRESH_CURRENT)
		c->fresh_seen = SN_FRESH_RETIRED;
}

void pipeline_conn_reset(struct pipeline *pl, struct sn_conn *c, bool new_epoch,
			 uint64_t now)
{
	pipeline_conn_restart(pl, c, now);
	if (new_epoch)
		c->epoch++;
	c->epoch_known = true;
}

void pipeline_conn_start_over(struct pipeline *pl, struct sn_conn *c, uint64_t now)
{
	pipeline_conn_restart(pl, c, now);
}

void pipeline_conn_renew(struct pipeline *pl, struct sn_conn *c, uint64_t now)
{
	if (c->epoch_known)
		pipeline_conn_reset(pl, c, true, now);
	else
		pipeline_conn_start_over(pl, c, now);
}

struct sn_pkt *pipeline_ack_only(struct pipeline *pl, struct sn_conn *c)
{
	struct sn_pkt *a = pl->env.alloc(pl->env.ctx);

	if (!a)
		return NULL;
	a->flags = SN_PKT_ACK_ONLY;
	a->h.dst_node = c->peer;
	a->h.vnet = c->vnet;
	a->chan = SN_CHAN_QUICK;
	a->conn = c;
	return a;
}

/* True when epoch e is after conn's; a tie (half the range apart) goes to the lower node. */
static bool pipeline_epoch_newer(const struct pipeline *pl, const struct sn_conn *c,
				 uint16_t e)
{
	int16_t d = (int16_t)(e - c->epoch);

	return d > 0 || (d == INT16_MIN && c->peer < pl->self);
}

/* A frame of conn is stale: answer at once with an ack-only frame of its epoch. */
static enum pipeline_epoch pipeline_rx_stale(struct pipeline *pl, struct sn_conn *c,
					     uint64_t now)
{
	struct sn_pkt *a = pipeline_ack_only(pl, c);

	if (a)
		pipeline_run_tx(pl, 0, &a, 1, now);
	return PIPELINE_EPOCH_STALE;
}

uint16_t pipeline_pair_epoch(uint16_t a, uint16_t b)
{
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a;

	return (uint16_t)(((lo << 16 | hi) * 0x9E3779B1u) >> 16);	/* Knuth's multiplier */
}

/* True when epoch e is too far from c's to be compared: of another pair of processes. */
static bool pipeline_epoch_beyond_reach(const struct sn_conn *c, uint16_t e)
{
	int16_t d = (int16_t)(e - c->epoch);

	return c->fresh_seen != SN_FRESH_NONE && (d > SN_EPOCH_REACH || d < -SN_EPOCH_REACH);
}

enum pipeline_epoch pipeline_rx_epoch(struct pipeline *pl, struct sn_conn *c,
				      uint16_t epoch, bool named, uint64_t now)
{
	if (!c->epoch_known || epoch == c->epoch) {
		if (!c->epoch_known)
			c->epoch_adopted = true;
		c->epoch = epoch;
		c->epoch_known = true;
		c->rx_heard = true;
		return PIPELINE_EPOCH_CURRENT;
	}
	if (!named && pipeline_epoch_beyond_reach(c, epoch))
		return PIPELINE_EPOCH_OTHER_PAIR;
	if (pipeline_epoch_newer(pl, c, epoch)) {
		pipeline_conn_restart(pl, c, now);
		c->epoch = epoch;
		c->rx_heard = true;
		return PIPELINE_EPOCH_NEWER;
	}
	return named ? PIPELINE_EPOCH_STALE : pipeline_rx_stale(pl, c, now);
}

/*
 * conn's peer is the process of nonce from now on: the nonce it knew (taken
 * since or before its last restart) is of an earlier process, whose late
 * FRESH frames are stale, so it joins the few remembered.
 */
static void pipeline_note_nonce(struct sn_conn *c, uint16_t nonce)
{
	if (c->fresh_seen != SN_FRESH_NONE && c->fresh_nonce != nonce) {
		if (c->n_old_nonces == SN_OLD_NONCES) {
			memmove(c->old_nonces, c->old_nonces + 1,
				(SN_OLD_NONCES - 1) * sizeof(c->old_nonces[0]));
			c->n_old_nonces--;
		}
		c->old_nonces[c->n_old_nonces++] = c->fresh_nonce;
	}
	c->fresh_nonce = nonce;
	c->fresh_seen = SN_FRESH_CURRENT;
}

/* True when nonce is of an earlier process of conn's peer than the one it knows. */
static bool pipeline_nonce_is_old(const struct sn_conn *c, uint16_t nonce)
{
	if (c->fresh_seen != SN_FRESH_NONE && c->fresh_nonce == nonce)
		return c->fresh_seen == SN_FRESH_RETIRED;
	for (unsigned int i = 0; i < c->n_old_nonces; i++)
		if (c->old_nonces[i] == nonce)
			return true;
	return false;
}

enum pipeline_epoch pipeline_rx_unwelcome(struct pipeline *pl, struct sn_conn *c,
					  uint64_t now)
{
	return pipeline_rx_stale(pl, c, now);
}

/* An ack of c contradicts this end: restart at the next epoch, and tell the peer. */
static enum pipeline_epoch pipeline_rx_contradicted(struct pipeline *pl, struct sn_conn *c,
						    uint64_t now)
{
	pipeline_conn_reset(pl, c, true, now);
	return pipeline_rx_stale(pl, c, now);
}

/*
 * Whether an ack (ack_base, ack_mask) of c contradicts this end: it names a
 * number c never gave, or covers a packet of c that cannot have been taken
 * (never sent; with all_untaken, any: c sent only FRESH packets). Then c
 * restarts (STALE), else CURRENT.
 */
static enum pipeline_epoch pipeline_rx_ack_check(struct pipeline *pl, struct sn_conn *c,
						 uint32_t ack_base, uint32_t ack_mask,
						 bool all_untaken, uint64_t now)
{
	uint32_t top = proto_ack_top(ack_base, ack_mask);
	bool contradicts;

	contradicts = proto_seq_diff(top, c->tx_next) >= 0;	/* never numbered */
	/* unacked is in number order: what the ack may cover comes first */
	for (const struct sn_pkt *p = c->unacked; !contradicts && p &&
	     proto_seq_diff(p->h.pkt_num, top) <= 0; p = p->next)
		contradicts = (all_untaken || !p->tx_count) &&
			      proto_ack_covers(p->h.pkt_num, ack_base, ack_mask);
	if (!contradicts)
		return PIPELINE_EPOCH_CURRENT;
	return pipeline_rx_contradicted(pl, c, now);
}

enum pipeline_epoch pipeline_rx_ack_walk(struct pipeline *pl, struct sn_conn *c,
					 uint32_t ack_base, uint32_t ack_mask, uint64_t now)
{
	return pipeline_rx_ack_check(pl, c, ack_base, ack_mask, false, now);
}

enum pipeline_epoch pipeline_rx_ack_first(struct pipeline *pl, struct sn_conn *c,
					  uint32_t ack_base, uint32_t ack_mask, uint64_t now)
{
	if (!pl->numbered)
		return PIPELINE_EPOCH_CURRENT;
	return pipeline_rx_ack_check(pl, c, ack_base, ack_mask, true, now);
}

enum pipeline_epoch pipeline_rx_welcome(struct pipeline *pl, struct sn_conn *c,
					uint16_t epoch, uint16_t nonce, bool restart,
					uint64_t now)
{
	/* Numbered, nothing c sent FRESH was taken: it goes again in the epoch. */
	restart = restart && !pl->numbered;
	if (restart)
		pipeline_conn_restart(pl, c, now);
	c->epoch = epoch;
	c->epoch_known = true;
	c->epoch_adopted = true;
	c->rx_heard = true;
	pipeline_note_nonce(c, nonce);
	return restart ? PIPELINE_EPOCH_NEWER : PIPELINE_EPOCH_CURRENT;
}

void pipeline_name_process(struct sn_conn *c, uint16_t nonce)
{
	c->named = true;
	c->named_nonce = nonce;
}

/*
 * True when conn holds state of an earlier process of its peer than the one
 * whose FRESH frame brought nonce: it took another nonce since its last
 * restart, or frames of the peer at an epoch it knew itself (an epoch taken
 * while it knew none is from the peer's present process as far as it can
 * tell: its own process is newer). With nothing heard since its last
 * restart, the packets it numbered since may have gone to any process of
 * the peer that knew an epoch (a frame of a newer one restarts it): only
 * one a notice named since is known to be this one. A connection that knows
 * no epoch itself takes the frame: both ends are new.
 */
static bool pipeline_fresh_is_new_process(const struct sn_conn *c, uint16_t nonce)
{
	if (c->fresh_seen == SN_FRESH_CURRENT)
		return c->fresh_nonce != nonce;
	if (c->rx_heard)
		return !c->epoch_adopted;
	return c->epoch_known && c->tx_next != 1 && !(c->named && c->named_nonce == nonce);
}

enum pipeline_epoch pipeline_rx_fresh(struct pipeline *pl, struct sn_conn *c,
				      uint16_t nonce, uint64_t now)
{
	enum pipeline_epoch r = PIPELINE_EPOCH_CURRENT;

	/*
	 * From before a restart here: the peer's process may still know no
	 * epoch and hold packets delivered here before it (the NIC's answer
	 * says RESTART), or know one (the frame was late: it ignores that).
	 */
	if (pipeline_nonce_is_old(c, nonce))
		return PIPELINE_EPOCH_STALE;
	if (pipeline_fresh_is_new_process(c, nonce)) {
		pipeline_conn_reset(pl, c, true, now);
		r = PIPELINE_EPOCH_FRESH_RESTART;
	}
	if (!c->epoch_known)	/* both ends new: the pair's first epoch */
		c->epoch = pipeline_pair_epoch(pl->nonce, nonce);
	pipeline_note_nonce(c, nonce);
	c->epoch_known = true;
	c->rx_heard = true;
	return r;
}

struct stage *stage_below(struct stage *st, const char *name)
{
	for (unsigned int i = st->index + 1; i < st->pl->n_stages; i++)
		if (strcmp(st->pl->stages[i].ops->name, name) == 0)
			return &st->pl->stages[i];
	return NULL;
}

struct stage *stage_above(struct stage *st, const char *name)
{
	for (int i = (int)st->index - 1; i >= 0; i--)
		if (strcmp(st->pl->stages[i].ops->name, name) == 0)
			return &st->pl->stages[i];
	return NULL;
}

void pipeline_complete(struct pipeline *pl, struct sn_pkt *pkt, int status,
		       uint64_t now)
{
	pl->env.complete(pl->env.ctx, pkt, status, now);
	pl->env.release(pl->env.ctx, pkt);
}

unsigned int stage_n_counters(const struct stage *st)
{
	unsigned int n = 0;

	while (st->ops->counter_names && st->ops->counter_names[n])
		n++;
	return n;
}

void pipeline_print_counters(const struct pipeline *pl, const char *prefix, FILE *f)
{
	char group[96];

	for (unsigned int i = 0; i < pl->n_stages; i++) {
		const struct stage *st = &pl->stages[i];
		struct dp_counter_set set = {
			.group = group, .names = st->ops->counter_names,
			.values = st->cnt, .n = stage_n_counters(st),
		};

		snprintf(group, sizeof(group), "%s.%s.%s", prefix, pl->name, st->ops->name);
		dp_counters_print(f, &set);
	}
}

bool pipeline_counts_agree(const struct pipeline *pl, char *buf, size_t len)
{
	for (uint16_t k = 0; k < pl->n_nodes; k++) {
		const struct sn_conn *c = pl->conns[k];
		unsigned int unsent = 0, blocks = 0;

		if (!c)
			continue;
		for (const struct sn_pkt *p = c->unacked; p; p = p->next)
			unsent += !p->tx_count;
		for (unsigned int i = 0; i < SN_RX_BLOCKS; i++)
			blocks += c->rx_blocks[i].used;
		if (c->never_sent != unsent || c->rx_blocks_used != blocks) {
			snprintf(buf, len, "conn %u: never_sent %u, %u on its list; rx_blocks_used %u, %u in use",
				 k, c->never_sent, unsent, c->rx_blocks_used, blocks);
			return false;
		}
	}
	return true;
}

void pipeline_describe(const struct pipeline *pl, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < pl->n_stages && off < len; i++) {
		const struct stage *st = &pl->stages[i];

		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " -> " : "",
					st->ops->name);
		for (int p = 0; st->ops->params && st->ops->params[p].name && off < len; p++) {
			const struct stage_param *sp = &st->ops->params[p];

			if (sp->choices)
				off += (size_t)snprintf(buf + off, len - off, "%s%s=%s",
					p ? "," : "(", sp->name, sp->choices[st->param[p]]);
			else
				off += (size_t)snprintf(buf + off, len - off, "%s%s=%lld",
					p ? "," : "(", sp->name, (long long)st->param[p]);
			if (!st->ops->params[p + 1].name && off < len)
				off += (size_t)snprintf(buf + off, len - off, ")");
		}
	}
}
