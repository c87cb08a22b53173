/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port capture: the dp_tap adapter between ports and the capture writer.
 * One clock reading per burst stamps all its frames (they crossed the port
 * in the same poll); single-segment frames (the port contract) are written
 * straight from the mbuf, a multi-segment one is gathered first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dataplane/dp_eal.h"
#include "pcap/port_capture.h"

/* A capture and the ports it watches. */
struct port_capture {
	/* the tap every attached port points to */
	struct dp_tap tap;
	/* the pcap writer */
	struct capture *w;
	/* crossings written (enum port_capture_dirs) */
	unsigned int dirs;
	/* timestamp clock */
	struct port_capture_clock clock;
	/* added to the clock's reading (the TSC's distance to the epoch) */
	uint64_t epoch_offset;
	/* snaplen in force, the size of gather */
	uint32_t snaplen;
	/* a multi-segment frame is gathered here (snaplen bytes) */
	uint8_t *gather;
	/* attached ports */
	struct dp_port **ports;
	/* entries used in ports */
	unsigned int n_ports;
	/* entries allocated in ports */
	unsigned int cap_ports;
	/* the file name, for the summary */
	char *path;
};

/* The default clock: the TSC in ns. */
static uint64_t port_capture_tsc_now(void *ctx)
{
	(void)ctx;
	return dp_tsc_ns();
}

/* CLOCK_REALTIME in ns since the epoch. */
static uint64_t port_capture_realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Bytes of m to write (caplen) as one block: in place or gathered. */
static const void *port_capture_bytes(struct port_capture *cap, const struct rte_mbuf *m)
{
	uint32_t n = m->pkt_len < cap->snaplen ? m->pkt_len : cap->snaplen;

	if (likely(m->nb_segs == 1))
		return rte_pktmbuf_mtod(m, const void *);
	return rte_pktmbuf_read(m, 0, n, cap->gather);
}

/* The tap: write a burst that crossed port in direction dir. */
static void port_capture_frames(void *ctx, const struct dp_port *port, enum dp_dir dir,
				struct rte_mbuf *const *pkts, uint16_t n)
{
	struct port_capture *cap = ctx;
	unsigned int bit = dir == DP_DIR_RX ? PORT_CAPTURE_RX : PORT_CAPTURE_TX;
	uint64_t ts;

	(void)port;
	if (!(cap->dirs & bit))
		return;
	ts = cap->clock.now(cap->clock.ctx) + cap->epoch_offset;
	for (uint16_t i = 0; i < n; i++)
		capture_write(cap->w, ts, port_capture_bytes(cap, pkts[i]), pkts[i]->pkt_len);
}

struct port_capture *port_capture_open(const char *path,
				       const struct port_capture_opts *o)
{
	struct port_capture *cap;
	int e = -capture_opts_check(&o->file);

	/* Before the gather buffer: a huge snaplen is refused, not allocated. */
	if (e) {
		errno = e;
		return NULL;
	}
	cap = calloc(1, sizeof(*cap));
	if (cap == NULL)
		return NULL;
	cap->snaplen = o->file.snaplen ? o->file.snaplen : CAPTURE_SNAPLEN_DEFAULT;
	cap->path = strdup(path);
	cap->gather = malloc(cap->snaplen);
	if (cap->path == NULL || cap->gather == NULL)
		goto fail;
	cap->w = capture_open(path, &o->file);
	if (cap->w == NULL)
		goto fail;
	cap->tap.frames = port_capture_frames;
	cap->tap.ctx = cap;
	cap->dirs = o->dirs ? o->dirs : PORT_CAPTURE_BOTH;
	cap->clock = o->clock;
	if (cap->clock.now == NULL) {
		cap->clock.now = port_capture_tsc_now;
		cap->epoch_offset = port_capture_realtime() - dp_tsc_ns();
	}
	return cap;
fail:
	e = errno ? errno : ENOMEM;
	free(cap->gather);
	free(cap->path);
	free(cap);
	errno = e;
	return NULL;
}

int port_capture_attach(struct port_capture *cap, struct dp_port *port)
{
	struct dp_port **p;

	if (port->tap != NULL)
		return -EBUSY;
	if (cap->n_ports == cap->cap_ports) {
		unsigned int want = cap->cap_ports ? 2 * cap->cap_ports : 8;

		p = realloc(cap->ports, want * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		cap->ports = p;
		cap->cap_ports = want;
	}
	cap->ports[cap->n_ports++] = port;
	port->tap = &cap->tap;
	return 0;
}

int port_capture_detach(struct port_capture *cap, struct dp_port *port)
{
	for (unsigned int i = 0; i < cap->n_ports; i++) {
		if (cap->ports[i] != port)
			continue;
		if (port->tap == &cap->tap)
			port->tap = NULL;
		cap->ports[i] = cap->ports[--cap->n_ports];
		return 0;
	}
	return -ENOENT;
}

void port_capture_counts(const struct port_capture *cap, struct capture_counts *out)
{
	capture_get_counts(cap->w, out);
}

const char *port_capture_path(const struct port_capture *cap)
{
	return cap->path;
}

void port_capture_print_summary(FILE *f, const char *path, const struct capture_counts *n)
{
	fprintf(f, "capture %s: %" PRIu64 " frames written (%" PRIu64 " bytes), %" PRIu64
		" dropped by bound", path, n->packets, n->bytes, n->dropped);
	if (n->state == CAPTURE_FULL_PACKETS || n->state == CAPTURE_FULL_BYTES)
		fprintf(f, " (%s)", capture_state_name(n->state));
	if (n->truncated)
		fprintf(f, ", %" PRIu64 " cut to the snaplen", n->truncated);
	if (n->state == CAPTURE_FAILED)
		fprintf(f, ", %" PRIu64 " lost when a write failed: %s", n->lost,
			strerror(n->error));
	fputc('\n', f);
}

int port_capture_close(struct port_capture *cap, FILE *summary,
		       struct capture_counts *out)
{
	struct capture_counts n;
	int rc;

	if (cap == NULL)
		return 0;
	while (cap->n_ports)
		port_capture_detach(cap, cap->ports[cap->n_ports - 1]);
	rc = capture_close(cap->w, &n);
	if (rc && n.state != CAPTURE_FAILED) {
		n.state = CAPTURE_FAILED;
		n.error = -rc;
	}
	if (summary != NULL)
		port_capture_print_summary(summary, cap->path, &n);
	if (out != NULL)
		*out = n;
	free(cap->gather);
	free(cap->ports);
	free(cap->path);
	free(cap);
	return rc;
}

int port_capture_start(const char *prog, const struct dp_daemon_opts *o, const char *ports,
		       int (*attach)(void *ctx, struct port_capture *cap), void *ctx,
		       struct port_capture **cap)
{
	struct port_capture_opts co = {
		.file = { .max_bytes = o->capture_max_bytes, .max_packets = o->capture_max_packets },
	};
	int rc;

	*cap = NULL;
	if (!o->capture)
		return 0;
	if (co.file.max_bytes && co.file.max_bytes < CAPTURE_FILE_HDR)
		co.file.max_bytes = CAPTURE_FILE_HDR;
	*cap = port_capture_open(o->capture, &co);
	if (!*cap) {
		rc = -errno;
		fprintf(stderr, "%s: --capture %s: %s\n", prog, o->capture, strerror(-rc));
		return rc;
	}
	rc = attach(ctx, *cap);
	if (rc) {
		fprintf(stderr, "%s: --capture %s: cannot attach to the ports: %s\n", prog,
			o->capture, strerror(-rc));
		return rc;
	}
	printf("%s: capturing every %s, both directions, into %s\n", prog, ports, o->capture);
	return 0;
}
