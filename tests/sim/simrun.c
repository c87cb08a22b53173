/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One simulation run: build a switch fabric and N NICs on simulated links,
 * generate traffic, run the engine, measure. The NIC and switch are the same
 * code switchd and nicd run; only the ports and the clock are simulated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_mempool.h>

#include "dataplane/dp_mbuf.h"
#include "dataplane/dp_opts.h"
#include "dataplane/dp_rank.h"
#include "dataplane/sim/sim.h"
#include "nicd/conf.h"
#include "nicd/nic.h"
#include "simrun.h"

/* Growable array of latency samples (ns). */
struct samples {
	uint32_t *v;	/* samples */
	size_t n;	/* used */
	size_t cap;	/* allocated */
	bool short_of_memory;	/* a sample was not kept: the statistics are wrong */
};

/* What the receiver of one flow (src -> dst) has seen. */
struct flow {
	uint8_t *seen;		/* bitmap by sequence number */
	uint32_t cap_bits;	/* bits in seen */
	uint32_t max_seen;	/* highest sequence delivered + 1 */
	uint32_t max_chan[SN_CHAN_COUNT];	/* the same, per channel */
};

struct simctx;

/* One simulated host: its NIC, its ports and its generators. */
struct simnode {
	struct simctx *ctx;		/* the run */
	uint16_t idx;			/* index = switch port = node id */
	int actor;			/* engine actor */
	struct nic *nic;		/* the NIC under test */
	struct dp_port *bulk;		/* node side of the bulk link */
	struct dp_port *quick;		/* node side of the quick link */
	struct traffic_gen gen[SN_CHAN_COUNT];	/* per channel */
	bool gen_on[SN_CHAN_COUNT];	/* generator still running */
	uint32_t *seq;			/* next sequence number per destination */
};

/* Arguments the generator writes into each message. */
struct sim_args {
	uint64_t gen_ns;	/* generation time */
	uint32_t seq;		/* sequence in its flow */
	uint16_t src;		/* sender */
	uint8_t chan;		/* channel */
	uint8_t pad[17];	/* to PROTO_ARGS_LEN */
} __attribute__((packed));
_Static_assert(sizeof(struct sim_args) == PROTO_ARGS_LEN, "sim args");

/* A run in progress. */
struct simctx {
	const struct simrun_config *cfg;	/* parameters */
	struct simrun_result *res;		/* results */
	struct sim_engine *eng;			/* the engine */
	struct rte_mempool *mp;			/* frames */
	struct sw_fabric *sw;			/* the switch */
	int sw_actor;				/* its actor */
	struct dp_port **sw_bulk;		/* switch side of bulk links */
	struct dp_port **sw_quick;		/* switch side of quick links */
	struct bulk_watch **bulk_watch;		/* the switch's bulk link ends, watched */
	uint16_t n_bulk_watch;			/* entries in bulk_watch */
	struct simnode *nodes;			/* the hosts */
	uint64_t win_start;			/* measurement window start */
	uint64_t win_end;			/* end of generation */
	uint64_t msgs_left;			/* messages mode: still to generate */
	struct samples queue[SN_CHAN_COUNT];	/* gen -> first tx start */
	struct samples e2e[SN_CHAN_COUNT];	/* gen -> delivery */
	uint64_t delivered_all[SN_CHAN_COUNT];	/* deliveries, whole run */
	uint64_t retx[SN_CHAN_COUNT];		/* retransmissions, whole run */
	uint64_t grants0, slots0;		/* switch counters at window start */
	uint64_t grants1, slots1;		/* and at window end */
	uint64_t refused;			/* sends refused: no descriptor */
	struct flow *flows;			/* nodes x nodes */
	struct outage_port *outage[2];		/* node 0's uplinks, if an outage */
	uint64_t outage_end;			/* when the outage ends (absolute) */
	uint64_t recovered;			/* last delivery of node 0's earlier messages */
	bool short_of_memory;			/* the checker could not record a delivery */
	int send_err;				/* first send refused for another reason */
	uint8_t payload[PROTO_MAX_PAYLOAD];	/* bulk payload (a pattern) */
};

void simrun_defaults(struct simrun_config *c)
{
	memset(c, 0, sizeof(*c));
	c->nodes = 16;
	c->arbiter = "lcf";
	c->quick_mode = SW_QUICK_DROP;
	c->load = 0.5;
	c->burst_max = 1;
	c->traffic = TRAFFIC_UNIFORM;
	c->hot_share = 0.25;
	c->channels = SIMRUN_BOTH;
	c->bulk_gbps = 10;
	c->quick_gbps = 10;
	c->prop_ns = 100;
	c->slot_frames = 1;
	c->bulk_bufs = 16;
	c->per_target = 2;
	c->quick_bufs = 16;		/* nicd's default is 20 (--quick-buffers) */
	c->quick_reserve = 0;		/* nicd keeps a fifth (--quick-reserve) */
	c->descriptors = 16384;
	c->cfg_keepalive = 8;
	c->payload = PROTO_MAX_PAYLOAD;
	c->conf = "conf2";
	c->duration_ns = 20000000;
	c->warmup = 0.2;
	c->seed = 1;
	c->check_crc = true;
}

/* Add one sample. */
static void samples_add(struct samples *s, uint64_t ns)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		uint32_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			s->short_of_memory = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

/* Order for qsort. */
static int samples_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Mean, median and 99th percentile in microseconds. */
static struct simrun_lat samples_stats(struct samples *s)
{
	struct simrun_lat l = { 0, 0, 0 };
	double sum = 0;

	if (!s->n)
		return l;
	qsort(s->v, s->n, sizeof(*s->v), samples_cmp);
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	l.mean = sum / (double)s->n / 1000.0;
	l.p50 = s->v[dp_rank_index(s->n, 50)] / 1000.0;
	l.p99 = s->v[dp_rank_index(s->n, 99)] / 1000.0;
	return l;
}

/*
 * Record a delivery of (src, seq) on channel ch at dst in the checker; false
 * for a duplicate. Order is promised within a virtual network: across both
 * channels with --one-vnet, else per channel (each its own virtual network).
 */
static bool flow_deliver(struct simctx *ctx, uint16_t src, uint16_t dst, uint8_t ch, uint32_t seq)
{
	struct flow *f = &ctx->flows[(size_t)src * ctx->cfg->nodes + dst];
	struct simrun_delivery *d = &ctx->res->delivery;

	d->delivered++;
	if (seq >= f->cap_bits) {
		uint32_t cap = f->cap_bits ? f->cap_bits : 1024;
		uint8_t *s;

		while (cap <= seq)
			cap *= 2;
		s = realloc(f->seen, cap / 8);
		if (!s) {
			ctx->short_of_memory = true;
			return true;
		}
		memset(s + f->cap_bits / 8, 0, (cap - f->cap_bits) / 8);
		f->seen = s;
		f->cap_bits = cap;
	}
	if (proto_bit(f->seen, seq)) {
		d->duplicated++;
		return false;
	}
	proto_bit_set(f->seen, seq);
	if (seq + 1 < (ctx->cfg->one_vnet ? f->max_seen : f->max_chan[ch]))
		d->reordered++;
	if (seq + 1 > f->max_seen)
		f->max_seen = seq + 1;
	if (seq + 1 > f->max_chan[ch])
		f->max_chan[ch] = seq + 1;
	return true;
}

/* NIC callback: a message arrived. */
static void sim_on_deliver(void *arg, const struct sn_pkt *pkt, uint64_t now)
{
	struct simnode *node = arg;
	struct simctx *ctx = node->ctx;
	struct sim_args a;

	memcpy(&a, pkt->h.args, sizeof(a));
	if (a.chan >= SN_CHAN_COUNT || a.src >= ctx->cfg->nodes)
		return;
	if (!flow_deliver(ctx, a.src, node->idx, a.chan, a.seq))
		return;		/* throughput and latency count each message once */
	if (a.src == 0 && ctx->outage_end && a.gen_ns < ctx->outage_end && now > ctx->recovered)
		ctx->recovered = now;
	ctx->delivered_all[a.chan]++;
	if (now >= ctx->win_start && now < ctx->win_end)
		ctx->res->chan[a.chan].delivered++;
	if (a.gen_ns >= ctx->win_start && a.gen_ns < ctx->win_end)
		samples_add(&ctx->e2e[a.chan], now - a.gen_ns);
}

/* NIC callback: a sent message finished. */
static void sim_on_complete(void *arg, const struct sn_pkt *pkt, int status,
			    uint64_t now)
{
	struct simnode *node = arg;
	struct simctx *ctx = node->ctx;

	(void)now;
	if (status != SN_OK) {
		ctx->res->delivery.failed++;
		return;
	}
	if (pkt->tx_count > 1)
		ctx->retx[pkt->chan] += pkt->tx_count - 1u;
	if (pkt->tx_count && pkt->t_gen >= ctx->win_start && pkt->t_gen < ctx->win_end)
		samples_add(&ctx->queue[pkt->chan], pkt->t_first_tx - pkt->t_gen);
}

/* Generate the messages of channel ch that are due. */
static void simnode_generate(struct simnode *node, uint8_t ch, uint64_t now)
{
	struct simctx *ctx = node->ctx;
	struct traffic_gen *g = &node->gen[ch];

	while (node->gen_on[ch] && g->next_ns <= now) {
		uint64_t t = g->next_ns;
		struct sim_args a = { .gen_ns = t, .src = node->idx, .chan = ch };
		int rc;
		struct nic_msg m = {
			.vnet = ctx->cfg->one_vnet ? 1 : 1 + ch, .chan = ch, .args = (const uint8_t *)&a,
			.payload = ch == SN_CHAN_BULK ? ctx->payload : NULL,
			.len = ch == SN_CHAN_BULK ? ctx->cfg->payload : 0,
		};

		if (t >= ctx->win_end || (ctx->cfg->messages && !ctx->msgs_left)) {
			node->gen_on[ch] = false;
			break;
		}
		m.dst_node = traffic_next(g);
		a.seq = node->seq[m.dst_node];
		if (t >= ctx->win_start)
			ctx->res->chan[ch].generated++;
		rc = nic_send(node->nic, &m, now);
		if (rc) {
			ctx->refused += rc == -ENOBUFS;
			if (rc != -ENOBUFS && !ctx->send_err)
				ctx->send_err = rc;
			continue;
		}
		node->seq[m.dst_node]++;
		ctx->res->delivery.sent++;
		if (ctx->msgs_left)
			ctx->msgs_left--;
	}
}

/* Engine actor of a host. */
static uint64_t simnode_poll(void *arg, uint64_t now)
{
	struct simnode *node = arg;
	uint64_t next;

	for (uint8_t ch = 0; ch < SN_CHAN_COUNT; ch++)
		simnode_generate(node, ch, now);
	next = nic_poll(node->nic, now);
	for (uint8_t ch = 0; ch < SN_CHAN_COUNT; ch++)
		if (node->gen_on[ch] && node->gen[ch].next_ns < next)
			next = node->gen[ch].next_ns;
	return next;
}

/* Engine actor of the switch. */
static uint64_t simswitch_poll(void *arg, uint64_t now)
{
	struct simctx *ctx = arg;

	return sw_fabric_poll(ctx->sw, now);
}

/* Messages per second one node can send on a channel at load 1. */
static double sim_capacity_pps(const struct simrun_config *cfg, uint8_t ch,
			       uint64_t slot_ns)
{
	struct proto_pkt q = { .type = PROTO_T_QREQ };

	if (ch == SN_CHAN_BULK)
		return 1e9 * cfg->slot_frames / (double)slot_ns;
	return 1e12 / (double)dp_wire_ps((uint32_t)proto_frame_len(&q), cfg->quick_gbps);
}

/* The offered load of channel ch, a fraction of its capacity. */
static double sim_chan_load(const struct simrun_config *cfg, uint8_t ch, uint64_t slot_ns)
{
	if (ch == SN_CHAN_QUICK && cfg->quick_same_rate)
		return cfg->load * sim_capacity_pps(cfg, SN_CHAN_BULK, slot_ns) /
		       sim_capacity_pps(cfg, SN_CHAN_QUICK, slot_ns);
	if (ch == SN_CHAN_QUICK && cfg->quick_load > 0)
		return cfg->quick_load;
	return cfg->load;
}

/* Wire time in ns of a frame of type `type` on a link of gbps. */
static uint64_t sim_wire_ns(uint8_t type, uint16_t nodes, double gbps)
{
	struct proto_pkt p = { .type = type };

	p.cfg.n_nodes = type == PROTO_T_CFG ? nodes : 0;
	return dp_wire_ps((uint32_t)proto_frame_len(&p), gbps) / 1000 + 1;
}

/*
 * Retransmission timeout: the round-trip bound of the quick channel. A QREQ
 * and then its QACK each cross two links; on each link a frame may wait
 * behind one frame of every control kind (CFG or GNT, a BACK, a QACK) and,
 * on the way up, behind the node's other quick buffers. A single switch
 * makes that a fixed bound; nothing queues beyond it.
 */
static uint64_t sim_rtt_bound(const struct simrun_config *cfg)
{
	double g = cfg->quick_gbps;
	uint64_t qreq = sim_wire_ns(PROTO_T_QREQ, cfg->nodes, g);
	uint64_t qack = sim_wire_ns(PROTO_T_QACK, cfg->nodes, g);
	uint64_t back = sim_wire_ns(PROTO_T_BACK, cfg->nodes, g);
	uint64_t cfgf = sim_wire_ns(PROTO_T_CFG, cfg->nodes, g);
	uint64_t gnt = sim_wire_ns(PROTO_T_GNT, cfg->nodes, g);
	uint64_t ctl = (cfgf > gnt ? cfgf : gnt) + back + qack;

	return 2 * qreq + 2 * qack + 4 * cfg->prop_ns + 4 * ctl +
	       (cfg->quick_bufs - 1u) * qreq;
}

/* A GNT's wire time and the two link delays it and its BREQ take, in ns. */
static uint64_t sim_grant_trip_ns(const struct simrun_config *cfg)
{
	return sim_wire_ns(PROTO_T_GNT, cfg->nodes, cfg->quick_gbps) + 2 * cfg->prop_ns;
}

uint32_t simrun_grant_lead(const struct simrun_config *cfg)
{
	uint64_t slot_ns = sw_slot_ns_for(cfg->bulk_gbps, cfg->slot_frames), lead;

	if (cfg->grant_lead)
		return cfg->grant_lead;
	lead = (sim_grant_trip_ns(cfg) + slot_ns - 1) / slot_ns;
	return lead < 1 ? 1 : lead > SW_MAX_GRANT_LEAD ? SW_MAX_GRANT_LEAD : (uint32_t)lead;
}

int simrun_check(const struct simrun_config *cfg, char *err, size_t errlen)
{
	char num[DP_OPT_NUM_LEN];
	uint64_t slot_ns = sw_slot_ns_for(cfg->bulk_gbps, cfg->slot_frames);
	uint64_t trip = sim_grant_trip_ns(cfg), lead = simrun_grant_lead(cfg);
	double quick = sim_chan_load(cfg, SN_CHAN_QUICK, slot_ns);

	/*
	 * The switch sends the grants of slot s at the start of slot s - lead
	 * and takes the BREQs of slot s from slot s - 1 to the end of slot
	 * s + 1; the BREQs themselves fill a slot of that time.
	 */
	if (cfg->channels != SIMRUN_QUICK &&
	    (trip >= (lead + 1) * slot_ns || trip + slot_ns / cfg->slot_frames < (lead - 1) * slot_ns)) {
		snprintf(err, errlen, "%s: a GNT and the link delays of its BREQ take %llu ns, "
			 "which a grant lead of %llu (slots of %llu ns) does not fit; %s",
			 cfg->grant_lead ? "--grant-lead" : "--prop-ns",
			 (unsigned long long)trip, (unsigned long long)lead,
			 (unsigned long long)slot_ns,
			 cfg->grant_lead ? "leave it out to have it chosen"
					 : "lengthen the slot or shorten --prop-ns");
		return -EINVAL;
	}
	if (quick > 1) {
		snprintf(err, errlen, "--quick-load same-rate: at --load %s the quick channel "
			 "would be offered %.3f of its capacity (at most 1)", dp_opt_num(cfg->load, num),
			 quick);
		return -EINVAL;
	}
	return 0;
}

/* A port in front of a link end it owns: the simulator's own wrappers. */
struct sim_wrap {
	struct dp_port port;		/* must be first */
	struct dp_port *inner;		/* the link end */
	struct sim_engine *eng;		/* for the time */
};

/* Receive: pass through. */
static uint16_t sim_wrap_rx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	return dp_port_rx(((struct sim_wrap *)port)->inner, pkts, n);
}

/* Free the wrapper and the link end. */
static void sim_wrap_destroy(struct dp_port *port)
{
	dp_port_destroy(((struct sim_wrap *)port)->inner);
	free(port);
}

/* The link's rate. */
static double sim_wrap_tx_gbps(const struct dp_port *port)
{
	return dp_port_tx_gbps(((const struct sim_wrap *)port)->inner);
}

/*
 * A wrapper of size bytes (a struct that starts with a struct sim_wrap)
 * with ops around p, or NULL.
 */
static void *sim_wrap_new(struct simctx *ctx, struct dp_port *p, size_t size,
			  const struct dp_port_ops *ops)
{
	struct sim_wrap *w = calloc(1, size);

	if (!w)
		return NULL;
	w->port.ops = ops;
	snprintf(w->port.name, sizeof(w->port.name), "%s", p->name);
	w->inner = p;
	w->eng = ctx->eng;
	return w;
}

/* A port that drops everything it is asked to send during a time window. */
struct outage_port {
	struct sim_wrap w;		/* must be first */
	uint64_t from;			/* window start (ns, absolute) */
	uint64_t to;			/* window end */
	uint64_t dropped;		/* frames dropped */
};

/* Send: nothing gets through during the window. */
static uint16_t outage_tx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct outage_port *o = (struct outage_port *)port;
	uint64_t now = sim_engine_now(o->w.eng);

	if (now >= o->from && now < o->to) {
		o->dropped += n;
		rte_pktmbuf_free_bulk(pkts, n);
		return n;
	}
	dp_port_tx(o->w.inner, pkts, n);
	return n;
}

static const struct dp_port_ops outage_ops = {
	.kind = "outage", .rx = sim_wrap_rx, .tx = outage_tx, .destroy = sim_wrap_destroy,
	.tx_gbps = sim_wrap_tx_gbps,
};

/* How much of the outage window the run simulated up to now (0: none, or no window yet). */
static uint64_t sim_outage_ran(const struct simctx *ctx, uint64_t now)
{
	const struct outage_port *o = ctx->outage[0];

	if (!o || !ctx->outage_end || now <= o->from)
		return 0;
	return (now < o->to ? now : o->to) - o->from;
}

/* Wrap p in an outage window (set once the cluster formed); NULL if out of memory. */
static struct outage_port *sim_outage(struct simctx *ctx, struct dp_port *p)
{
	struct outage_port *o = sim_wrap_new(ctx, p, sizeof(*o), &outage_ops);

	if (o)
		o->from = o->to = UINT64_MAX;
	return o;
}

/*
 * The switch's end of a bulk link, watched: a frame the switch sends while
 * the link still carries an earlier one waits behind it (the link times
 * frames as this does), which the bulk channel's schedule promises never
 * happens. Counted from 1 ns, with the longest wait, for --verbose: frames
 * land at the ns after their last bit, so the frames of one burst (slots
 * of several frames) reach the switch up to 999 ps closer together than
 * the link sends them, and wait that much there without queuing.
 */
struct bulk_watch {
	struct sim_wrap w;		/* must be first */
	double ps_per_byte;		/* the link's byte time */
	uint64_t busy_until_ps;		/* end of the last frame sent on it */
	uint64_t waited;		/* frames sent while it was busy for 1 ns or more */
	uint64_t wait_max_ps;		/* the longest wait, shorter ones too */
};

/* Send: note the frames that find the link busy, then pass them on. */
static uint16_t bulk_watch_tx(struct dp_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct bulk_watch *bw = (struct bulk_watch *)port;
	uint64_t start = sim_engine_now(bw->w.eng) * 1000;

	for (uint16_t i = 0; i < n; i++) {
		if (bw->busy_until_ps > start) {
			bw->waited += bw->busy_until_ps - start >= 1000;
			if (bw->busy_until_ps - start > bw->wait_max_ps)
				bw->wait_max_ps = bw->busy_until_ps - start;
			start = bw->busy_until_ps;
		}
		bw->busy_until_ps = start + dp_wire_ps_at(pkts[i]->data_len, bw->ps_per_byte);
	}
	dp_port_tx(bw->w.inner, pkts, n);
	return n;
}

static const struct dp_port_ops bulk_watch_ops = {
	.kind = "bulk-watch", .rx = sim_wrap_rx, .tx = bulk_watch_tx,
	.destroy = sim_wrap_destroy, .tx_gbps = sim_wrap_tx_gbps,
};

/* Watch the switch's end p of a bulk link (bulk_watch); NULL if out of memory. */
static struct dp_port *sim_bulk_watch(struct simctx *ctx, struct dp_port *p)
{
	struct bulk_watch *bw = sim_wrap_new(ctx, p, sizeof(*bw), &bulk_watch_ops);

	if (!bw)
		return NULL;
	bw->ps_per_byte = dp_ps_per_byte(dp_port_tx_gbps(p));
	ctx->bulk_watch[ctx->n_bulk_watch++] = bw;
	return &bw->w.port;
}

/* p wrapped in fault injection when faults are asked for, else p; NULL if out of memory. */
static struct dp_port *sim_faulty(struct simctx *ctx, struct dp_port *p, uint64_t stream)
{
	if (!dp_fault_active(&ctx->cfg->faults))
		return p;
	return dp_fault_port_create(p, &ctx->cfg->faults, ctx->cfg->seed ^ (stream * 0x9E37), ctx->mp);
}

/* *end becomes wrapped, which owns the old *end; -ENOMEM if no wrapper was made. */
static int sim_replace(struct dp_port **end, struct dp_port *wrapped)
{
	if (!wrapped)
		return -ENOMEM;
	*end = wrapped;
	return 0;
}

/* The outage window's port, NULL when o is (out of memory). */
static struct dp_port *sim_outage_port(struct outage_port *o)
{
	return o ? &o->w.port : NULL;
}

/*
 * Wrap node i's links at both ends: faults, node 0's outage window, the
 * switch's bulk watch. An end is replaced only once its wrapper exists, so
 * teardown frees whatever was built. -ENOMEM if out of memory.
 */
static int sim_wrap_links(struct simctx *ctx, struct simnode *node, uint16_t i)
{
	int rc = sim_replace(&node->bulk, sim_faulty(ctx, node->bulk, 4u * i));

	if (!rc)
		rc = sim_replace(&node->quick, sim_faulty(ctx, node->quick, 4u * i + 1));
	if (!rc && i == 0 && ctx->cfg->outage_ns) {
		ctx->outage[0] = sim_outage(ctx, node->bulk);
		rc = sim_replace(&node->bulk, sim_outage_port(ctx->outage[0]));
		if (!rc) {
			ctx->outage[1] = sim_outage(ctx, node->quick);
			rc = sim_replace(&node->quick, sim_outage_port(ctx->outage[1]));
		}
	}
	if (!rc)
		rc = sim_replace(&ctx->sw_bulk[i], sim_bulk_watch(ctx, ctx->sw_bulk[i]));
	if (!rc)
		rc = sim_replace(&ctx->sw_bulk[i], sim_faulty(ctx, ctx->sw_bulk[i], 4u * i + 2));
	if (!rc)
		rc = sim_replace(&ctx->sw_quick[i], sim_faulty(ctx, ctx->sw_quick[i], 4u * i + 3));
	return rc;
}

/* Build the switch, the hosts and their links. */
static int sim_build(struct simctx *ctx, char *err, size_t errlen)
{
	const struct simrun_config *cfg = ctx->cfg;
	uint16_t n = cfg->nodes;
	struct sim_link_params bl = { .gbps = cfg->bulk_gbps, .prop_ns = cfg->prop_ns };
	struct sim_link_params ql = { .gbps = cfg->quick_gbps, .prop_ns = cfg->prop_ns };
	struct sw_config swc = {
		.n_nodes = n, .arbiter = cfg->arbiter, .quick_mode = cfg->quick_mode,
		.bulk_gbps = cfg->bulk_gbps, .quick_gbps = cfg->quick_gbps,
		.slot_frames = cfg->slot_frames, .grant_lead = simrun_grant_lead(cfg),
		.seed = cfg->seed, .mp = ctx->mp,
		.check_crc = cfg->check_crc,
	};
	char name[32];

	ctx->sw_actor = sim_engine_add_actor(ctx->eng, simswitch_poll, ctx);
	for (uint16_t i = 0; i < n; i++) {
		struct simnode *node = &ctx->nodes[i];
		int rc;

		node->ctx = ctx;
		node->idx = i;
		node->actor = sim_engine_add_actor(ctx->eng, simnode_poll, node);
		snprintf(name, sizeof(name), "n%u.bulk", i);
		rc = sim_wire(ctx->eng, name, node->actor, ctx->sw_actor, &bl,
			      &node->bulk, &ctx->sw_bulk[i]);
		snprintf(name, sizeof(name), "n%u.quick", i);
		if (!rc)
			rc = sim_wire(ctx->eng, name, node->actor, ctx->sw_actor, &ql,
				      &node->quick, &ctx->sw_quick[i]);
		if (!rc)
			rc = sim_wrap_links(ctx, node, i);
		if (rc) {
			snprintf(err, errlen, "cannot build links: %s", strerror(-rc));
			return rc;
		}
	}
	ctx->sw = sw_fabric_create(&swc, ctx->sw_bulk, ctx->sw_quick, err, errlen);
	return ctx->sw ? 0 : -errno;
}

/* Create every host's NIC and generators. */
static int sim_build_nics(struct simctx *ctx, char *err, size_t errlen)
{
	const struct simrun_config *cfg = ctx->cfg;
	uint64_t slot_ns = sw_fabric_slot_ns(ctx->sw);
	struct nic_config nc = {
		.max_nodes = cfg->nodes, .bulk_bufs = cfg->bulk_bufs,
		.bulk_per_target = cfg->per_target, .quick_bufs = cfg->quick_bufs,
		.quick_reserve = cfg->quick_reserve,
		.descriptors = cfg->descriptors, .cfg_keepalive = cfg->cfg_keepalive,
		.hello_ns = 2 * slot_ns, .mp = ctx->mp,
		.check_crc = true,
	};
	char spec[512], over[600];
	int rc;

	/* Named reliable configurations get the simulated round-trip bound. */
	snprintf(over, sizeof(over), "%s", cfg->conf);
	if (strncmp(over, "conf", 4) == 0 && strncmp(over, "conf1", 5) != 0 &&
	    !strstr(over, "timeout_ns"))
		snprintf(over + strlen(over), sizeof(over) - strlen(over),
			 ",timer:timeout_ns=%llu",
			 (unsigned long long)sim_rtt_bound(cfg));
	rc = conf_expand(over, spec, sizeof(spec), err, errlen);
	if (rc)
		return rc;
	for (uint8_t ch = 0; ch < SN_CHAN_COUNT; ch++)
		ctx->res->chan[ch].load = sim_chan_load(cfg, ch, slot_ns);
	for (uint16_t i = 0; i < cfg->nodes; i++) {
		struct simnode *node = &ctx->nodes[i];
		struct nic_ops ops = {
			.ctx = node, .deliver = sim_on_deliver, .complete = sim_on_complete,
		};

		nc.incarnation = (uint32_t)(cfg->seed * 131 + i);	/* deterministic */
		node->nic = nic_create(&nc, &ops, node->bulk, node->quick, err, errlen);
		if (!node->nic)
			return -errno;
		rc = nic_add_vnet(node->nic, 1, spec, err, errlen);
		if (!rc && !cfg->one_vnet)
			rc = nic_add_vnet(node->nic, 2, spec, err, errlen);
		if (rc)
			return rc;
		node->seq = calloc(cfg->nodes, sizeof(*node->seq));
		if (!node->seq)
			return -ENOMEM;
		for (uint8_t ch = 0; ch < SN_CHAN_COUNT; ch++) {
			struct traffic_params tp = {
				.pattern = cfg->traffic, .load = ctx->res->chan[ch].load,
				.capacity_pps = sim_capacity_pps(cfg, ch, slot_ns),
				.burst_max = cfg->burst_max, .hot_share = cfg->hot_share,
				.nodes = cfg->nodes, .self = i,
			};

			/* Generators start once the cluster has formed (sim_form). */
			traffic_init(&node->gen[ch], &tp, cfg->seed, 2u * i + ch, 0);
		}
		sim_engine_wake(ctx->eng, node->actor, 0);
	}
	sim_engine_wake(ctx->eng, ctx->sw_actor, 0);
	return 0;
}

/* Messages not yet completed on any host. */
static uint64_t sim_pending(const struct simctx *ctx)
{
	uint64_t p = 0;

	for (uint16_t i = 0; i < ctx->cfg->nodes; i++)
		p += nic_pending(ctx->nodes[i].nic);
	return p;
}

/* True while some generator runs. */
static bool sim_generating(const struct simctx *ctx)
{
	for (uint16_t i = 0; i < ctx->cfg->nodes; i++)
		for (int ch = 0; ch < SN_CHAN_COUNT; ch++)
			if (ctx->nodes[i].gen_on[ch])
				return true;
	return false;
}

/* True when every NIC has joined the cluster. */
static bool sim_formed(const struct simctx *ctx)
{
	for (uint16_t i = 0; i < ctx->cfg->nodes; i++)
		if (nic_cluster_size(ctx->nodes[i].nic) != ctx->cfg->nodes)
			return false;
	return true;
}

/*
 * Run until every NIC has joined (HELLOs can be lost to faults), then start
 * the generators and shift the measurement window by the time that took: a
 * message for a node that has not joined yet would rightly fail.
 */
static int sim_form(struct simctx *ctx, char *err, size_t errlen)
{
	uint64_t slot_ns = sw_fabric_slot_ns(ctx->sw), t = 0;

	while (!sim_formed(ctx)) {
		if (t > 100000 * slot_ns) {
			snprintf(err, errlen, "the cluster did not form in 100000 slots");
			return -ETIMEDOUT;
		}
		t += slot_ns;
		sim_engine_run(ctx->eng, t);
	}
	for (uint16_t i = 0; i < ctx->cfg->nodes; i++) {
		struct simnode *node = &ctx->nodes[i];

		for (int ch = 0; ch < SN_CHAN_COUNT; ch++) {
			node->gen_on[ch] = ctx->cfg->channels == SIMRUN_BOTH ||
				(ctx->cfg->channels == SIMRUN_BULK) == (ch == SN_CHAN_BULK);
			node->gen[ch].next_ns += t;
		}
		sim_engine_wake(ctx->eng, node->actor, t);
	}
	ctx->win_start += t;
	ctx->win_end += t;
	if (ctx->outage[0]) {
		for (int k = 0; k < 2; k++) {
			ctx->outage[k]->from = t + ctx->cfg->outage_at_ns;
			ctx->outage[k]->to = t + ctx->cfg->outage_at_ns + ctx->cfg->outage_ns;
		}
		ctx->outage_end = ctx->outage[0]->to;
	}
	return 0;
}

/* Messages completed (or failed) on every host. */
static uint64_t sim_completions(const struct simctx *ctx)
{
	uint64_t n = 0;

	for (uint16_t i = 0; i < ctx->cfg->nodes; i++) {
		const struct nic_stats *s = nic_stats(ctx->nodes[i].nic);

		n += s->completed_ok + s->completed_err;
	}
	return n;
}

/* A message run that stops completing messages: when it last moved. */
struct sim_watch {
	uint64_t done;		/* completions then */
	uint64_t since;		/* simulated time then */
};

/* Simulated time without a completion after which a message run is stuck. */
static uint64_t sim_stuck_ns(const struct simctx *ctx)
{
	return 1000000000 + ctx->cfg->outage_ns;	/* a second after any outage */
}

/* True when messages are pending and none completed for sim_stuck_ns. */
static bool sim_stuck(const struct simctx *ctx, struct sim_watch *w, uint64_t t)
{
	uint64_t done = sim_completions(ctx);

	if (done != w->done || !sim_pending(ctx)) {
		w->done = done;
		w->since = t;
		return false;
	}
	return t - w->since > sim_stuck_ns(ctx);
}

/*
 * Run the engine: generation, then a drain until everything completed or
 * 2000 slots passed (a saturated channel's backlog never drains; its
 * latencies then cover the messages that did complete, a lower bound).
 * A message run fails (-EDEADLK, message in err) when no message completes
 * for a simulated second while some are pending.
 */
static int sim_run_engine(struct simctx *ctx, char *err, size_t errlen)
{
	uint64_t slot_ns = sw_fabric_slot_ns(ctx->sw), step = 200 * slot_ns;
	uint64_t t = sim_engine_now(ctx->eng), drain_end;
	struct sim_watch w = { .done = 0, .since = t };
	bool stuck = false;

	if (ctx->cfg->messages) {
		/* Generate until the count is reached, whatever the time. */
		ctx->win_end = UINT64_MAX;
		while (sim_generating(ctx) && !(stuck = sim_stuck(ctx, &w, t))) {
			t += step;
			sim_engine_run(ctx->eng, t);
		}
		ctx->win_end = t;
		ctx->grants1 = sw_fabric_stats(ctx->sw)->grants;
		ctx->slots1 = sw_fabric_stats(ctx->sw)->slots;
	} else {
		const struct sw_stats *st = sw_fabric_stats(ctx->sw);

		sim_engine_run(ctx->eng, ctx->win_start);
		ctx->grants0 = st->grants;
		ctx->slots0 = st->slots;
		sim_engine_run(ctx->eng, ctx->win_end);
		ctx->grants1 = st->grants;
		ctx->slots1 = st->slots;
		t = ctx->win_end;
	}
	/* A message run drains completely (bounded against a livelock). */
	drain_end = t + (ctx->cfg->messages ? 2000000 : 2000) * slot_ns;
	while (!stuck && t < drain_end && sim_pending(ctx)) {
		t += step;
		sim_engine_run(ctx->eng, t);
		stuck = ctx->cfg->messages && sim_stuck(ctx, &w, t);
	}
	if (stuck) {
		snprintf(err, errlen, "stuck: no message completed in %.1f s of simulated time "
			 "with %llu pending (%llu sent of %llu)",
			 (double)sim_stuck_ns(ctx) / 1e9,
			 (unsigned long long)sim_pending(ctx),
			 (unsigned long long)ctx->res->delivery.sent,
			 (unsigned long long)ctx->cfg->messages);
		return -EDEADLK;
	}
	/* Let the last frames of unreliable configurations land. */
	sim_engine_run(ctx->eng, t + 10 * slot_ns);
	return 0;
}

/* Sum of frames sent on every port. */
static uint64_t sim_frames(const struct simctx *ctx)
{
	uint64_t f = 0;

	for (uint16_t i = 0; i < ctx->cfg->nodes; i++)
		f += ctx->nodes[i].bulk->stats.tx_frames + ctx->nodes[i].quick->stats.tx_frames +
		     ctx->sw_bulk[i]->stats.tx_frames + ctx->sw_quick[i]->stats.tx_frames;
	return f;
}

/* Turn the raw measurements into results. */
static void sim_collect(struct simctx *ctx)
{
	const struct simrun_config *cfg = ctx->cfg;
	struct simrun_result *res = ctx->res;
	const struct sw_stats *st = sw_fabric_stats(ctx->sw);
	uint64_t slot_ns = sw_fabric_slot_ns(ctx->sw);
	double window = (double)(ctx->win_end - ctx->win_start) / 1e9;
	uint64_t coll[SN_CHAN_COUNT] = {
		[SN_CHAN_BULK] = st->breq_collision + st->breq_outbuf_full,
		[SN_CHAN_QUICK] = st->qreq_collision,
	};

	res->sw = *st;
	res->slot_ns = slot_ns;
	for (uint16_t i = 0; i < ctx->n_bulk_watch; i++) {
		res->bulk_waited += ctx->bulk_watch[i]->waited;
		if (ctx->bulk_watch[i]->wait_max_ps > res->bulk_wait_max_ps)
			res->bulk_wait_max_ps = ctx->bulk_watch[i]->wait_max_ps;
	}
	res->matched_per_slot = ctx->slots1 > ctx->slots0 ?
		(double)(ctx->grants1 - ctx->grants0) / (double)(ctx->slots1 - ctx->slots0) : 0;
	for (uint8_t ch = 0; ch < SN_CHAN_COUNT; ch++) {
		struct simrun_chan *c = &res->chan[ch];
		double cap = sim_capacity_pps(cfg, ch, slot_ns) * cfg->nodes * window;
		double deliv = (double)(ctx->delivered_all[ch] ? ctx->delivered_all[ch] : 1);

		c->offered = cap > 0 ? (double)c->generated / cap : 0;
		c->throughput = cap > 0 ? (double)c->delivered / cap : 0;
		c->queue = samples_stats(&ctx->queue[ch]);
		c->e2e = samples_stats(&ctx->e2e[ch]);
		c->collisions = (double)coll[ch] / deliv;
		c->retransmissions = (double)ctx->retx[ch] / deliv;
	}
	for (size_t f = 0; f < (size_t)cfg->nodes * cfg->nodes; f++) {
		const struct flow *fl = &ctx->flows[f];

		for (uint32_t s = 0; s < fl->max_seen; s++)
			if (!proto_bit(fl->seen, s))
				res->delivery.lost++;
	}
	/* Sent but beyond every delivered sequence of their flow: lost too. */
	for (uint16_t i = 0; i < cfg->nodes; i++)
		for (uint16_t d = 0; d < cfg->nodes; d++) {
			const struct flow *fl = &ctx->flows[(size_t)i * cfg->nodes + d];

			res->delivery.lost += ctx->nodes[i].seq[d] - fl->max_seen;
		}
	/*
	 * What a NIC still holds was not lost: the run stopped first. (Some of
	 * it may have arrived already, its ack still on the way, so lost is a
	 * lower bound in a run that stopped with messages pending; a --messages
	 * run drains until nothing is pending and is exact.)
	 */
	res->delivery.queued = sim_pending(ctx);
	res->delivery.lost -= res->delivery.queued < res->delivery.lost ?
			      res->delivery.queued : res->delivery.lost;
	res->frames = sim_frames(ctx);
	res->recovery_ns = ctx->recovered > ctx->outage_end && ctx->outage_end ?
		(int64_t)(ctx->recovered - ctx->outage_end) : -1;
	res->outage_ran_ns = sim_outage_ran(ctx, sim_engine_now(ctx->eng));
	{
		uint64_t acks = 0, data = 0;

		for (uint16_t i = 0; i < cfg->nodes; i++) {
			acks += nic_stats(ctx->nodes[i].nic)->qack_sent;
			data += nic_stats(ctx->nodes[i].nic)->qreq_sent;
		}
		res->acks_per_data = data ? (double)acks / (double)data : 0;
	}
	res->events = sim_engine_events(ctx->eng);
	res->sim_ns = sim_engine_now(ctx->eng);
}

/* Print every component's counters. */
static void sim_print_counters(const struct simctx *ctx)
{
	char name[24];

	sw_fabric_print_counters(ctx->sw, stdout);
	printf("links.bulk_waited %llu\nlinks.bulk_wait_max_ps %llu\n",
	       (unsigned long long)ctx->res->bulk_waited,
	       (unsigned long long)ctx->res->bulk_wait_max_ps);
	for (uint16_t i = 0; i < ctx->cfg->nodes; i++) {
		snprintf(name, sizeof(name), "node%u", i);
		nic_print_counters(ctx->nodes[i].nic, name, stdout);
	}
}

/* Whether a latency sample or a delivery could not be recorded for want of memory. */
static bool sim_short_of_memory(const struct simctx *ctx)
{
	bool short_of_memory = ctx->short_of_memory;

	for (uint8_t ch = 0; ch < SN_CHAN_COUNT; ch++)
		short_of_memory |= ctx->queue[ch].short_of_memory || ctx->e2e[ch].short_of_memory;
	return short_of_memory;
}

/* Free everything a run built (nothing is built until every array exists). */
static void sim_teardown(struct simctx *ctx)
{
	bool built = ctx->nodes && ctx->sw_bulk && ctx->sw_quick;

	for (uint16_t i = 0; built && i < ctx->cfg->nodes; i++) {
		struct simnode *node = &ctx->nodes[i];

		nic_destroy(node->nic);
		free(node->seq);
		dp_port_destroy(node->bulk);
		dp_port_destroy(node->quick);
		dp_port_destroy(ctx->sw_bulk[i]);
		dp_port_destroy(ctx->sw_quick[i]);
	}
	sw_fabric_destroy(ctx->sw);
	sim_engine_destroy(ctx->eng);
	for (size_t f = 0; ctx->flows && f < (size_t)ctx->cfg->nodes * ctx->cfg->nodes; f++)
		free(ctx->flows[f].seen);
	for (int ch = 0; ch < SN_CHAN_COUNT; ch++) {
		free(ctx->queue[ch].v);
		free(ctx->e2e[ch].v);
	}
	free(ctx->flows);
	free(ctx->nodes);
	free(ctx->sw_bulk);
	free(ctx->sw_quick);
	free(ctx->bulk_watch);
}

int simrun(const struct simrun_config *cfg, struct rte_mempool *mp,
	   struct simrun_result *res, bool verbose, char *err, size_t errlen)
{
	struct simctx ctx = { .cfg = cfg, .res = res, .mp = mp };
	unsigned int avail = rte_mempool_avail_count(mp);
	struct timespec t0, t1;
	int rc = -ENOMEM;

	memset(res, 0, sizeof(*res));
	if (simrun_check(cfg, err, errlen))
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ctx.eng = sim_engine_create();
	ctx.nodes = calloc(cfg->nodes, sizeof(*ctx.nodes));
	ctx.sw_bulk = calloc(cfg->nodes, sizeof(*ctx.sw_bulk));
	ctx.sw_quick = calloc(cfg->nodes, sizeof(*ctx.sw_quick));
	ctx.bulk_watch = calloc(cfg->nodes, sizeof(*ctx.bulk_watch));
	ctx.flows = calloc((size_t)cfg->nodes * cfg->nodes, sizeof(*ctx.flows));
	if (!ctx.eng || !ctx.nodes || !ctx.sw_bulk || !ctx.sw_quick || !ctx.bulk_watch ||
	    !ctx.flows) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < sizeof(ctx.payload); i++)
		ctx.payload[i] = (uint8_t)(i * 7 + 1);
	ctx.win_end = cfg->duration_ns;
	ctx.win_start = (uint64_t)(cfg->warmup * (double)cfg->duration_ns);
	ctx.msgs_left = cfg->messages;
	if (cfg->messages)
		ctx.win_start = 0;
	rc = sim_build(&ctx, err, errlen);
	if (!rc)
		rc = sim_build_nics(&ctx, err, errlen);
	if (!rc)
		rc = sim_form(&ctx, err, errlen);
	if (rc)
		goto out;
	rc = sim_run_engine(&ctx, err, errlen);
	if (rc)
		goto out;
	sim_collect(&ctx);
	if (ctx.send_err) {
		snprintf(err, errlen, "a send failed: %s", strerror(-ctx.send_err));
		rc = ctx.send_err;
	} else if (sim_short_of_memory(&ctx)) {
		snprintf(err, errlen, "out of memory recording the results");
		rc = -ENOMEM;
	}
	for (uint16_t i = 0; i < cfg->nodes && !rc; i++) {
		const struct nic_stats *s = nic_stats(ctx.nodes[i].nic);

		if (nic_rx_outcomes(s) != s->rx_frames) {
			snprintf(err, errlen, "node %u: %llu frames received, %llu counted by outcome",
				 i, (unsigned long long)s->rx_frames,
				 (unsigned long long)nic_rx_outcomes(s));
			rc = -EFAULT;
		}
	}
	if (ctx.refused)
		fprintf(stderr, "segnet-sim: %llu sends refused (no descriptor)\n",
			(unsigned long long)ctx.refused);
	if (verbose)
		sim_print_counters(&ctx);
out:
	sim_teardown(&ctx);
	if (!rc && rte_mempool_avail_count(mp) != avail) {
		snprintf(err, errlen, "%d frames leaked", (int)avail - (int)rte_mempool_avail_count(mp));
		rc = -EFAULT;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return rc;
}
