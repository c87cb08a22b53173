/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault-injection port wrapper. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_fault.h"
#include "dp_mbuf.h"
#include "dp_opts.h"
#include "dp_rand.h"

const char *const dp_fault_counter_names[] = {
	DP_FAULT_COUNTERS(DP_COUNTER_NAME)
};

/* A fault port: the wrapper's state around the inner port. */
struct dp_fault_port {
	struct dp_port port;		/* must be first */
	struct dp_port *inner;		/* where surviving frames go */
	struct dp_fault_params p;	/* probabilities */
	struct dp_rand rng;		/* draws, from the seed */
	struct rte_mempool *mp;		/* for copies */
	struct dp_fault_stats stats;	/* what was done */
	struct rte_mbuf *held;		/* frame held back, or NULL */
	uint32_t held_left;		/* later frames still to pass it */
	uint32_t held_polls;		/* polls since it was held */
	bool owner_polls;		/* dp_fault_port_poll ages it, not rx */
	uint64_t now;			/* the time of the last dp_fault_port_poll */
	uint64_t (*clock)(void);	/* or read at each send (a daemon's), or NULL */
	struct fault_delayed *dq;	/* delay queue (ring), when delay_ns > 0 */
	uint32_t dq_cap;		/* its entries */
	uint32_t dq_head;		/* oldest entry */
	uint32_t dq_n;			/* entries held */
};

/* A frame waiting out the delay. */
struct fault_delayed {
	struct rte_mbuf *m;	/* the frame */
	uint64_t due;		/* when it leaves */
};

/* The keys of a --fault spec, in the order messages list them. */
enum fault_key {
	K_LOSS, K_DUP, K_REORDER, K_CORRUPT,	/* the probabilities */
	K_DELAY_US, K_DELAY_FRAMES, K_SEED,
	FAULT_KEYS,
	FAULT_PROBS = K_CORRUPT + 1
};

const char *const dp_fault_spec_keys[FAULT_KEYS + 1] = {
	"loss", "dup", "reorder", "corrupt", "delay-us", "delay-frames", "seed", NULL,
};

/* Where probability k (K_LOSS .. K_CORRUPT) is in the parameters. */
static const size_t fault_prob_at[FAULT_PROBS] = {
	offsetof(struct dp_fault_params, loss), offsetof(struct dp_fault_params, dup),
	offsetof(struct dp_fault_params, reorder), offsetof(struct dp_fault_params, corrupt),
};

/* Probability k of p. */
static double fault_prob(const struct dp_fault_params *p, unsigned int k)
{
	return *(const double *)((const char *)p + fault_prob_at[k]);
}

/* Frames collected before handing them to the inner port. */
enum { FAULT_OUT = 64 };

/* Container of a port. */
static struct dp_fault_port *fault_of(struct dp_port *port)
{
	return (struct dp_fault_port *)port;
}

bool dp_fault_active(const struct dp_fault_params *p)
{
	return p->loss > 0 || p->dup > 0 || p->reorder > 0 || p->corrupt > 0 ||
	       p->delay_ns > 0;
}

int dp_fault_validate(const struct dp_fault_params *p, char *err, size_t errlen)
{
	char num[DP_OPT_NUM_LEN];

	for (unsigned int k = 0; k < FAULT_PROBS; k++) {
		if (!(fault_prob(p, k) >= 0 && fault_prob(p, k) < 1)) {
			snprintf(err, errlen, "%s probability %s is outside [0, 1)",
				 dp_fault_spec_keys[k], dp_opt_num(fault_prob(p, k), num));
			return -EINVAL;
		}
	}
	if (p->delay_frames > DP_FAULT_DELAY_FRAMES_MAX) {
		snprintf(err, errlen, "delay-frames %u is over the limit of %u",
			 p->delay_frames, DP_FAULT_DELAY_FRAMES_MAX);
		return -EINVAL;
	}
	if (p->delay_frames && !p->delay_ns) {
		snprintf(err, errlen, "delay-frames without delay-us");
		return -EINVAL;
	}
	if (p->delay_ns > DP_FAULT_DELAY_MAX_NS) {
		snprintf(err, errlen, "delay of %llu ns is over the limit of %u ns",
			 (unsigned long long)p->delay_ns, DP_FAULT_DELAY_MAX_NS);
		return -EINVAL;
	}
	return 0;
}

/* Parse value val of key k (an index in dp_fault_spec_keys) into p or seed. */
static int fault_parse_value(const char *opt, unsigned int k, const char *val,
			     struct dp_fault_params *p, uint64_t *seed, char *err, size_t errlen)
{
	char name[64];
	unsigned long s;
	double v;
	int rc;

	/* "--fault loss=": messages quote it with the value, as the user typed it. */
	snprintf(name, sizeof(name), "%s %s=", opt, dp_fault_spec_keys[k]);
	switch (k) {
	case K_DELAY_FRAMES:
		return dp_opt_u32(name, val, 1, DP_FAULT_DELAY_FRAMES_MAX, &p->delay_frames, err,
				  errlen);
	case K_SEED:
		rc = dp_opt_ulong(name, val, 0, ULONG_MAX, &s, err, errlen);
		if (!rc)
			*seed = s;
		return rc;
	case K_DELAY_US:
		rc = dp_opt_double(name, val, 0, DP_FAULT_DELAY_MAX_NS / 1000, &v, err, errlen);
		if (!rc)
			p->delay_ns = (uint64_t)(v * 1000 + 0.5);
		if (!rc && v > 0 && !p->delay_ns)
			rc = dp_opt_fail(err, errlen, "%s%s: under a nanosecond", name, val);
		return rc;
	default:	/* a probability */
		rc = dp_opt_double(name, val, 0, 1, &v, err, errlen);
		if (!rc && v >= 1)
			rc = dp_opt_fail(err, errlen, "%s%s: a probability must be below 1", name,
					 val);
		if (!rc)
			*(double *)((char *)p + fault_prob_at[k]) = v;
		return rc;
	}
}

/* Parse one KEY=VALUE of a --fault spec; seen marks the keys given so far. */
static int fault_parse_one(const char *opt, char *kv, bool *seen, struct dp_fault_params *p,
			   uint64_t *seed, char *err, size_t errlen)
{
	char *val = strchr(kv, '=');
	unsigned int k;

	if (!val || val == kv || !val[1])
		return dp_opt_fail(err, errlen, "%s: '%s' is not KEY=VALUE", opt, kv);
	*val++ = '\0';
	for (k = 0; k < FAULT_KEYS && strcmp(kv, dp_fault_spec_keys[k]); k++)
		;
	if (k == FAULT_KEYS) {
		char keys[FAULT_KEYS * 16] = "";

		for (k = 0; k < FAULT_KEYS; k++)
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s",
				 k ? ", " : "", dp_fault_spec_keys[k]);
		return dp_opt_fail(err, errlen, "%s: unknown key '%s' (%s)", opt, kv, keys);
	}
	if (seen[k])
		return dp_opt_fail(err, errlen, "%s: %s given twice", opt, kv);
	seen[k] = true;
	return fault_parse_value(opt, k, val, p, seed, err, errlen);
}

int dp_fault_parse(const char *opt, const char *spec, struct dp_fault_params *p,
		   uint64_t *seed, char *err, size_t errlen)
{
	char *copy = strdup(spec), *rest = copy, *kv;
	bool seen[FAULT_KEYS] = { false };
	char msg[96];
	int rc = 0;

	memset(p, 0, sizeof(*p));
	if (!copy)
		return dp_opt_fail(err, errlen, "%s: out of memory", opt);
	if (!copy[0])
		rc = dp_opt_fail(err, errlen, "%s: empty (give e.g. loss=0.01,delay-us=100)", opt);
	while (!rc && (kv = strsep(&rest, ",")) != NULL) {
		if (!kv[0])
			rc = dp_opt_fail(err, errlen, "%s %s: an empty field", opt, spec);
		else
			rc = fault_parse_one(opt, kv, seen, p, seed, err, errlen);
	}
	free(copy);
	if (!rc && dp_fault_validate(p, msg, sizeof(msg)))
		rc = dp_opt_fail(err, errlen, "%s %s: %s", opt, spec, msg);
	return rc;
}

int dp_fault_option(const char *spec, struct dp_fault_params *p, uint64_t *seed, char *err,
		    size_t errlen)
{
	int rc = dp_fault_parse("--fault", spec, p, seed, err, errlen);

	if (!rc && !dp_fault_active(p))
		rc = dp_opt_fail(err, errlen, "--fault %s: injects nothing", spec);
	return rc;
}

/* Append key k of a spec with its value to buf (len bytes, at used): the new at. */
static size_t fault_format_key(char *buf, size_t len, size_t at, unsigned int k,
			       const char *val)
{
	if (at >= len)
		return at;
	return at + (size_t)snprintf(buf + at, len - at, "%s%s=%s", at ? "," : "",
				     dp_fault_spec_keys[k], val);
}

void dp_fault_format(const struct dp_fault_params *p, char *buf, size_t len)
{
	char num[DP_OPT_NUM_LEN];
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int k = 0; k < FAULT_PROBS; k++)
		if (fault_prob(p, k) > 0)
			at = fault_format_key(buf, len, at, k, dp_opt_num(fault_prob(p, k), num));
	if (p->delay_ns)
		at = fault_format_key(buf, len, at, K_DELAY_US,
				      dp_opt_num((double)p->delay_ns / 1000, num));
	if (p->delay_frames) {
		snprintf(num, sizeof(num), "%u", p->delay_frames);
		fault_format_key(buf, len, at, K_DELAY_FRAMES, num);
	}
}

/*
 * Flip one random bit of m, copying it first if someone else holds it; a
 * frame of no bytes has none to flip and passes as it is.
 */
static struct rte_mbuf *fault_corrupt(struct dp_fault_port *f, struct rte_mbuf *m)
{
	uint8_t *d;
	uint64_t bit;

	if (!m->data_len)
		return m;
	if (rte_mbuf_refcnt_read(m) > 1) {
		struct rte_mbuf *c = dp_frame_copy(f->mp, m);

		if (!c) {
			f->stats.no_mbuf++;
			return m;
		}
		rte_pktmbuf_free(m);
		m = c;
	}
	d = rte_pktmbuf_mtod(m, uint8_t *);
	bit = dp_rand_below(&f->rng, (uint64_t)m->data_len * 8);
	d[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	f->stats.corrupted++;
	return m;
}

/*
 * Send the delayed frames that are due, oldest first, as any frame is sent:
 * what a full transmit queue does not take is dropped and counted there
 * (tx_full), so frames never wait for a peer that stopped reading.
 */
static void fault_release_due(struct dp_fault_port *f)
{
	struct rte_mbuf *out[FAULT_OUT];
	uint16_t k = 0;

	while (f->dq_n && f->dq[f->dq_head].due <= f->now) {
		out[k++] = f->dq[f->dq_head].m;
		f->dq_head = (f->dq_head + 1) % f->dq_cap;
		f->dq_n--;
		if (k == FAULT_OUT) {
			dp_port_tx(f->inner, out, k);
			k = 0;
		}
	}
	dp_port_tx(f->inner, out, k);
}

/* Frames that came through the faults: to the inner port, or to wait. */
static void fault_out(struct dp_fault_port *f, struct rte_mbuf **pkts, uint16_t n)
{
	if (!f->dq) {
		dp_port_tx(f->inner, pkts, n);
		return;
	}
	fault_release_due(f);
	for (uint16_t i = 0; i < n; i++) {
		struct fault_delayed *d;

		if (f->dq_n == f->dq_cap) {
			rte_pktmbuf_free(pkts[i]);
			f->stats.delay_full++;
			continue;
		}
		d = &f->dq[(f->dq_head + f->dq_n++) % f->dq_cap];
		d->m = pkts[i];
		d->due = (f->clock ? f->clock() : f->now) + f->p.delay_ns;
		f->stats.delayed++;
	}
}

/* Send what was collected on. */
static void fault_flush(struct dp_fault_port *f, struct rte_mbuf **out, uint16_t *k)
{
	fault_out(f, out, *k);
	*k = 0;
}

/* Release the held frame into out. */
static void fault_release(struct dp_fault_port *f, struct rte_mbuf **out, uint16_t *k)
{
	out[(*k)++] = f->held;
	f->held = NULL;
}

/* Apply the faults to one frame, appending what survives to out. */
static void fault_one(struct dp_fault_port *f, struct rte_mbuf *m,
		      struct rte_mbuf **out, uint16_t *k)
{
	bool lose = dp_rand_unit(&f->rng) < f->p.loss;
	bool corrupt = dp_rand_unit(&f->rng) < f->p.corrupt;
	bool hold = dp_rand_unit(&f->rng) < f->p.reorder;
	bool dup = dp_rand_unit(&f->rng) < f->p.dup;

	if (lose) {
		rte_pktmbuf_free(m);
		f->stats.lost++;
		return;
	}
	if (corrupt)
		m = fault_corrupt(f, m);
	if (dup) {
		struct rte_mbuf *c = dp_frame_copy(f->mp, m);

		if (c) {
			out[(*k)++] = c;
			f->stats.duplicated++;
		} else {
			f->stats.no_mbuf++;
		}
	}
	if (hold && !f->held) {
		f->held = m;
		f->held_left = 1 + (uint32_t)dp_rand_below(&f->rng, f->p.hold_max);
		f->held_polls = 0;
		f->stats.reordered++;
		return;
	}
	out[(*k)++] = m;
	if (f->held && --f->held_left == 0)
		fault_release(f, out, k);
}

/* Transmit: every frame is taken; survivors go to the inner port. */
static uint16_t fault_tx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct dp_fault_port *f = fault_of(port);
	struct rte_mbuf *out[FAULT_OUT];
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++) {
		if (k > FAULT_OUT - 3)
			fault_flush(f, out, &k);
		fault_one(f, pkts[i], out, &k);
	}
	fault_flush(f, out, &k);
	return n;
}

/*
 * A poll (receive, or dp_fault_port_poll): the held frame ages and goes once
 * it has waited hold_polls polls; delayed frames that are due go.
 */
static void fault_tick(struct dp_fault_port *f)
{
	if (f->held && ++f->held_polls >= f->p.hold_polls) {
		struct rte_mbuf *m = f->held;

		f->held = NULL;
		fault_out(f, &m, 1);
	}
	if (f->dq_n)
		fault_release_due(f);
}

/* Receive, after a tick unless the owner ticks with dp_fault_port_poll. */
static uint16_t fault_rx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct dp_fault_port *f = fault_of(port);

	if (!f->owner_polls)
		fault_tick(f);
	return dp_port_rx(f->inner, pkts, n);
}

/* Free the wrapper, the frames it holds and the inner port. */
static void fault_destroy(struct dp_port *port)
{
	struct dp_fault_port *f = fault_of(port);

	rte_pktmbuf_free(f->held);
	while (f->dq_n) {
		rte_pktmbuf_free(f->dq[f->dq_head].m);
		f->dq_head = (f->dq_head + 1) % f->dq_cap;
		f->dq_n--;
	}
	free(f->dq);
	dp_port_destroy(f->inner);
	free(f);
}

/* The inner port's rate. */
static double fault_tx_gbps(const struct dp_port *port)
{
	return dp_port_tx_gbps(((const struct dp_fault_port *)port)->inner);
}

/* The inner port's state. */
static bool fault_down(const struct dp_port *port)
{
	return dp_port_down(((const struct dp_fault_port *)port)->inner);
}

static const struct dp_port_ops fault_ops = {
	.kind = "fault",
	.rx = fault_rx,
	.tx = fault_tx,
	.destroy = fault_destroy,
	.tx_gbps = fault_tx_gbps,
	.down = fault_down,
};

struct dp_port *dp_fault_port_create(struct dp_port *inner,
				     const struct dp_fault_params *p,
				     uint64_t seed, struct rte_mempool *mp)
{
	struct dp_fault_port *f;
	char err[128];

	if (!inner || !mp || dp_fault_validate(p, err, sizeof(err))) {
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->port.ops = &fault_ops;
	snprintf(f->port.name, sizeof(f->port.name), "%s", inner->name);
	f->inner = inner;
	f->p = *p;
	if (f->p.hold_max == 0)
		f->p.hold_max = 3;
	if (f->p.hold_polls == 0)
		f->p.hold_polls = 4;
	f->mp = mp;
	if (p->delay_ns) {
		f->dq_cap = dp_fault_delay_frames(p);
		f->dq = calloc(f->dq_cap, sizeof(*f->dq));
		if (!f->dq) {
			free(f);
			errno = ENOMEM;
			return NULL;
		}
	}
	dp_rand_seed(&f->rng, seed, 0xFA17);
	return &f->port;
}

const struct dp_fault_stats *dp_fault_port_stats(const struct dp_port *port)
{
	if (port->ops != &fault_ops)
		return NULL;
	return &((const struct dp_fault_port *)port)->stats;
}

uint32_t dp_fault_delay_frames(const struct dp_fault_params *p)
{
	if (!p->delay_ns)
		return 0;
	return p->delay_frames ? p->delay_frames : DP_FAULT_DELAY_FRAMES;
}

void dp_fault_pool_hint(char *err, size_t errlen, uint32_t delay_frames)
{
	size_t at = strlen(err);

	if (at < errlen)
		snprintf(err + at, errlen - at,
			 " (it holds %u frames per port for the --fault delay: give a smaller delay-frames=N, or the EAL more memory with -m)",
			 delay_frames);
}

void dp_fault_port_set_clock(struct dp_port *port, uint64_t (*clock)(void))
{
	if (port->ops == &fault_ops)
		((struct dp_fault_port *)port)->clock = clock;
}

void dp_fault_port_poll(struct dp_port *port, uint64_t now)
{
	struct dp_fault_port *f;

	if (port->ops != &fault_ops)
		return;
	f = fault_of(port);
	f->now = now;
	f->owner_polls = true;
	fault_tick(f);
}

uint64_t dp_fault_port_next_due(const struct dp_port *port)
{
	const struct dp_fault_port *f;

	if (port->ops != &fault_ops)
		return UINT64_MAX;
	f = (const struct dp_fault_port *)port;
	if (f->held)
		return f->now;
	return f->dq_n ? f->dq[f->dq_head].due : UINT64_MAX;
}

struct dp_port *dp_fault_port_inner(const struct dp_port *port)
{
	if (port->ops == &fault_ops)
		return ((const struct dp_fault_port *)port)->inner;
	return (struct dp_port *)port;	/* the caller's, as it gave it */
}
