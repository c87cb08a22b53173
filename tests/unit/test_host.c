/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nicd's host interface (nicd/host.c) against an application that
 * scribbles on its endpoint's shared memory: it can corrupt only its own
 * endpoint (doc/endpoints.md, Trust). The NIC is the stub of
 * tests/common/host_stub.h; endpoints are opened with libsegnet.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nicd/host_priv.h"
#include "tests/common/host_stub.h"

/*
 * After each test (each runs in a process of its own): remove what a test
 * that failed an assertion, and so never reached its host_destroy and
 * rmdir, left of its host, the socket and its directory.
 */
static void t_host_leftovers(void)
{
	char path[96];

	snprintf(path, sizeof(path), "/tmp/segnet-ut-host.%d/ut.sock", (int)getpid());
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

TestSuite(host, .fini = t_host_leftovers);

/* A host "ut" serving vnet 1 (key "secret") in a directory of this process. */
static struct host *t_host(char *dir, size_t len)
{
	static const struct host_vnet vnet = { .vnet = 1, .key_len = 6, .key = "secret" };
	struct host_config cfg = {
		.name = "ut", .socket_dir = dir, .socket_mode = 0700, .endpoints = 4,
		.max_nodes = 4, .vnets = &vnet, .n_vnets = 1, .generation = 1,
	};
	char err[256];
	struct host *h;

	snprintf(dir, len, "/tmp/segnet-ut-host.%d", (int)getpid());
	h = host_create(&cfg, err, sizeof(err));
	cr_assert_not_null(h, "host_create: %s", err);
	return h;
}

/*
 * An endpoint closed for its ring indices in a poll does not cost the
 * endpoints after it that poll: the honest endpoint's send is taken in
 * the same poll (fuzz_host found the next one skipped).
 */
Test(host, broken_ring_closes_only_its_endpoint)
{
	const struct segnet_open_opts o = { .send_bufs = 4, .recv_bufs = 4 };
	struct nic nic = { .cap = 8 };
	struct segnet_ep *bad, *good;
	uint64_t now = 0, next = UINT64_MAX;
	struct host_ep *e;
	char dir[64];
	struct host *h = t_host(dir, sizeof(dir));

	stub_nic_attach(&nic, h);
	bad = stub_open(h, &now, 1, "secret", &o);
	good = stub_open(h, &now, 1, "secret", &o);
	cr_assert(bad && good, "segnet_open: %s", strerror(errno));
	cr_assert_eq(segnet_endpoint(bad), 0);
	cr_assert_eq(segnet_endpoint(good), 1);
	/* Endpoint 0's send ring head, far past the ring's size from its tail. */
	e = &h->eps[0];
	atomic_store(&e->v.send.r->head, e->v.send.mine + 0x1000);
	cr_assert_eq(segnet_send_quick(good, 1, 2, 3, NULL, 7), 0);
	host_poll(h, now + 1, &next);
	cr_assert_eq(host_stats(h)->ring_broken, 1, "endpoint 0 is closed");
	cr_assert_eq(host_open_count(h), 1);
	cr_assert(h->eps[1].open, "endpoint 1 stays open");
	cr_assert_eq(nic.accepted, 1, "endpoint 1's send is taken in the same poll");
	segnet_close(good);
	segnet_close(bad);
	host_shutdown(h);
	cr_assert_eq(nic.n_held, 0, "the shutdown cancels what the NIC held");
	host_destroy(h);
	rmdir(dir);
}

/*
 * An application that sends its OPEN and exits before the answer never
 * had an endpoint: nicd's reply fails, and the endpoint it made for it is
 * counted as a failed OPEN, not as one opened that nobody closed (open
 * endpoints = opens - closes - ring_broken; fuzz_host found it).
 */
Test(host, an_application_gone_before_the_reply_opened_nothing)
{
	const struct segnet_open_opts o = { .send_bufs = 4, .recv_bufs = 4 };
	struct nic nic = { .cap = 8 };
	uint64_t now = 0, next = UINT64_MAX;
	const struct host_stats *st;
	char dir[64];
	struct host *h = t_host(dir, sizeof(dir));
	int fd;

	stub_nic_attach(&nic, h);
	fd = stub_send_open(h, 1, "secret", &o);
	cr_assert_geq(fd, 0, "OPEN sent: %s", strerror(-fd));
	close(fd);
	st = host_stats(h);
	for (int i = 0; i < 4 && !st->open_failed; i++) {
		now += HOST_CTL_NS;
		host_poll(h, now, &next);
	}
	cr_assert_eq(st->open_failed, 1, "the reply to a gone application fails");
	cr_assert_eq(host_open_count(h), 0);
	cr_assert_eq(st->opens, 0, "opens counts only endpoints an application got");
	cr_assert_eq(host_open_count(h), st->opens - st->closes - st->ring_broken);
	host_shutdown(h);
	host_destroy(h);
	rmdir(dir);
}

/* Host counter name's value, or UINT64_MAX when it has none (host_counter_names). */
static uint64_t t_counter(const struct host *h, const char *name)
{
	const uint64_t *v = (const uint64_t *)host_stats(h);

	for (size_t i = 0; i < sizeof(struct host_stats) / sizeof(uint64_t); i++)
		if (!strcmp(host_counter_names[i], name))
			return v[i];
	return UINT64_MAX;
}

/*
 * Messages nicd holds back for an endpoint (no receive buffer free) that
 * closes are dropped and counted: every message the NIC delivers is
 * posted, held, or counted as dropped (fuzz_host found the close's
 * uncounted).
 */
Test(host, held_back_messages_of_a_closed_endpoint_are_counted)
{
	const struct segnet_open_opts o = { .send_bufs = 1, .recv_bufs = 1 };
	struct nic nic = { .cap = 8 };
	struct sn_pkt p = { .h = { .vnet = 1, .dst_ep = 0, .src_node = 1, .handler = 1 },
			    .chan = SN_CHAN_QUICK };
	uint64_t now = 0, next = UINT64_MAX;
	const struct host_stats *st;
	struct segnet_ep *ep;
	char dir[64];
	struct host *h = t_host(dir, sizeof(dir));

	stub_nic_attach(&nic, h);
	ep = stub_open(h, &now, 1, "secret", &o);
	cr_assert_not_null(ep, "segnet_open: %s", strerror(errno));
	for (int i = 0; i < 3; i++)
		nic.ops.deliver(nic.ops.ctx, &p, now);
	st = host_stats(h);
	cr_assert_eq(st->delivered, 1, "one receive buffer: one message posted");
	cr_assert_eq(st->rx_held, 2, "two held back");
	segnet_close(ep);
	now += HOST_CTL_NS;
	host_poll(h, now, &next);
	cr_assert_eq(host_open_count(h), 0);
	cr_assert_eq(t_counter(h, "rx_held_closed"), 2,
		     "the two held back are counted as dropped at the close");
	host_shutdown(h);
	host_destroy(h);
	rmdir(dir);
}

/* check_send hook: the application rewrites the descriptor nicd is sending. */
static void t_scribble_sending(struct nic *nic, const struct nic_msg *m)
{
	struct host *h = nic->owner;

	stub_scribble_sending(&h->eps[m->src_ep].v.send);
}

/*
 * nicd reads each send descriptor once, into a copy it checks and uses: an
 * application that rewrites the descriptor while nicd hands it to the NIC
 * (which then refuses it) changes nothing, the refusal completes the
 * buffer sent (a nicd that read the shared descriptor again after
 * nic_send completes buffer ~0 instead, and this test fails).
 */
Test(host, a_descriptor_rewritten_while_sent_is_not_read_again)
{
	const struct segnet_open_opts o = { .send_bufs = 2, .recv_bufs = 2 };
	struct nic nic = { .cap = 8, .mode = -EINVAL, .check_send = t_scribble_sending };
	struct segnet_completion c;
	uint64_t now = 0, next = UINT64_MAX;
	struct segnet_ep *ep;
	char dir[64];
	struct host *h = t_host(dir, sizeof(dir));

	nic.owner = h;
	stub_nic_attach(&nic, h);
	ep = stub_open(h, &now, 1, "secret", &o);
	cr_assert_not_null(ep, "segnet_open: %s", strerror(errno));
	cr_assert_eq(segnet_send_quick(ep, 1, 2, 3, NULL, 7), 0);
	host_poll(h, now + 1, &next);
	cr_assert_eq(host_stats(h)->send_invalid, 1, "the NIC refused the send");
	cr_assert_eq(segnet_poll(ep, &c, 1), 1, "the refusal completes the buffer sent");
	cr_assert_eq(c.cookie, 7);
	cr_assert_eq(c.status, SEGNET_EINVAL);
	cr_assert_eq(host_open_count(h), 1, "the endpoint stays open");
	segnet_close(ep);
	host_shutdown(h);
	host_destroy(h);
	rmdir(dir);
}

/* A connection to h's control socket, accepted by a look (pending, no OPEN sent). */
static int t_connect_pending(struct host *h, uint64_t *now)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t next = UINT64_MAX;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0, "socket: %s", strerror(errno));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", host_socket_path(h));
	cr_assert_eq(connect(fd, (const struct sockaddr *)&sa, sizeof(sa)), 0,
		     "connect: %s", strerror(errno));
	*now += HOST_CTL_NS;
	host_poll(h, *now, &next);
	cr_assert_eq(h->pending[0].fd >= 0, true, "accepted, waiting for its OPEN");
	return fd;
}

/*
 * A connection that sends no OPEN within HOST_PENDING_NS is closed and
 * counted, as one evicted for a newcomer is: every connection nicd closes
 * for its silence is a drop under its reason (fuzz_host found the expired
 * ones closed uncounted, so open_evicted could not be checked exactly).
 */
Test(host, a_connection_silent_past_its_time_is_counted)
{
	struct nic nic = { .cap = 8 };
	uint64_t now = 0, next = UINT64_MAX;
	struct pollfd p = { .events = POLLRDHUP };
	char dir[64];
	struct host *h = t_host(dir, sizeof(dir));

	stub_nic_attach(&nic, h);
	p.fd = t_connect_pending(h, &now);
	cr_assert_eq(poll(&p, 1, 0), 0, "accepted, waiting for its OPEN");
	now += HOST_PENDING_NS + HOST_CTL_NS;
	host_poll(h, now, &next);
	cr_assert_eq(poll(&p, 1, 0), 1, "closed after HOST_PENDING_NS");
	cr_assert_eq(host_stats(h)->open_evicted, 0, "not evicted: nobody came");
	cr_assert_eq(t_counter(h, "open_expired"), 1,
		     "closed for its silence and counted");
	close(p.fd);
	host_shutdown(h);
	host_destroy(h);
	rmdir(dir);
}

/*
 * A connection that hangs up before its OPEN is closed and counted
 * (open_abandoned), as one evicted or expired is: every pending
 * connection nicd lets go of is counted under its reason (it was dropped
 * uncounted before).
 */
Test(host, a_connection_that_hangs_up_before_its_open_is_counted)
{
	struct nic nic = { .cap = 8 };
	uint64_t now = 0, next = UINT64_MAX;
	char dir[64];
	struct host *h = t_host(dir, sizeof(dir));

	stub_nic_attach(&nic, h);
	close(t_connect_pending(h, &now));
	now += HOST_CTL_NS;
	host_poll(h, now, &next);
	cr_assert_eq(h->pending[0].fd, -1, "its slot is free");
	cr_assert_eq(t_counter(h, "open_abandoned"), 1, "closed for its hang-up and counted");
	cr_assert_eq(host_stats(h)->open_evicted + host_stats(h)->open_expired, 0,
		     "neither evicted nor expired");
	host_shutdown(h);
	host_destroy(h);
	rmdir(dir);
}

/*
 * poll as the test binary calls it (-Wl,--wrap=poll, tests/unit/meson.build):
 * the next t_poll_fails calls fail with t_poll_errno, then it is poll.
 */
int __real_poll(struct pollfd *fds, nfds_t n, int timeout);
static unsigned int t_poll_fails;
static int t_poll_errno;

int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	if (!t_poll_fails)
		return __real_poll(fds, n, timeout);
	t_poll_fails--;
	errno = t_poll_errno;
	return -1;
}

/*
 * A pending connection sends a zero-length message while nicd's poll,
 * which tells it from a hang-up, fails the next fails times with error:
 * the next look lets the connection go; nicd's answer's error (counted as
 * a malformed OPEN), or 0 when none came.
 */
static int t_empty_open_answer(unsigned int fails, int error)
{
	struct nic nic = { .cap = 8 };
	uint64_t now = 0, next = UINT64_MAX;
	struct ctl_reply rep;
	int fds[CTL_FDS], got;
	char dir[64];
	struct host *h = t_host(dir, sizeof(dir));
	int fd;

	stub_nic_attach(&nic, h);
	fd = t_connect_pending(h, &now);
	cr_assert_eq(send(fd, "", 0, 0), 0, "empty message: %s", strerror(errno));
	t_poll_fails = fails;
	t_poll_errno = error;
	now += HOST_CTL_NS;
	host_poll(h, now, &next);
	cr_assert_eq(h->pending[0].fd, -1, "the connection is let go");
	got = stub_take_reply(fd, &rep, fds);
	cr_assert_eq(fds[0], -1, "no descriptors without an endpoint");
	if (got == 1)
		cr_assert_eq(host_stats(h)->open_bad_msg, 1, "an answer: a malformed OPEN");
	close(fd);
	host_shutdown(h);
	host_destroy(h);
	rmdir(dir);
	return got == 1 && rep.type == CTL_OPEN_ERR ? rep.error : 0;
}

/* Without a failing poll: the empty message is a malformed OPEN (EPROTO). */
Test(host, an_empty_message_is_a_malformed_open)
{
	cr_assert_eq(t_empty_open_answer(0, 0), EPROTO);
}

/*
 * A signal that interrupts the poll (EINTR) does not make an empty
 * message a hang-up: nicd polls again and refuses it (EPROTO). Before,
 * any failed poll was a hang-up: the connection was closed unanswered.
 */
Test(host, an_interrupted_poll_does_not_take_an_empty_message_for_a_hang_up)
{
	cr_assert_eq(t_empty_open_answer(2, EINTR), EPROTO,
		     "refused as malformed, not dropped unanswered");
	cr_assert_eq(t_poll_fails, 0, "polled again after each interruption");
}

/*
 * A poll that fails otherwise cannot tell: nicd answers as for the
 * message (EPROTO), which a live peer reads and a gone one never sees.
 */
Test(host, a_failed_poll_answers_an_empty_message_as_malformed)
{
	cr_assert_eq(t_empty_open_answer(1, ENOMEM), EPROTO,
		     "refused as malformed, not dropped unanswered");
}
