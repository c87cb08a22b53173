/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A guard around the callbacks of listening sockets that DPDK 22.11's EAL
 * interrupt thread runs, against a driver that registers a callback on a
 * connection it accepted and then closes that connection without
 * unregistering it: drivers/net/memif/memif_socket.c, memif_listener_handler
 * (in every release up to 25.11), when the client hung up before the
 * server's HELLO could be sent. The EAL's next rebuild of its epoll set
 * (lib/eal/linux/eal_interrupts.c, eal_intr_thread_main) then fails on the
 * closed descriptor and calls rte_panic: the whole process aborts.
 *
 * The executables that link this file (dp_memif_guard_dep: switchd, nicd,
 * segnet-replay, the tests' memif servers) define rte_intr_callback_register
 * themselves and export it, so the drivers, loaded as plugins, call it
 * instead of the EAL's, which it calls in turn. The memif driver's callback
 * on a listening socket is registered wrapped (the driver never
 * unregisters it): the wrapper runs it, watching what it registers; a
 * registration whose descriptor is closed (or is another file) when the
 * callback returns is unregistered at once, before the interrupt thread
 * rebuilds its set, logged and counted (dp_memif_removed: the daemons'
 * summaries, switchd's telemetry). See doc/operations.md (memif).
 */
/* rte_intr_instance_alloc and the handle accessors are experimental in 22.11. */
#define ALLOW_EXPERIMENTAL_API
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <rte_interrupts.h>

#include "dp_eal.h"
#include "dp_log.h"

DP_LOG_REGISTER(dp_memif_guard_logtype, DATAPLANE_EAL);

/* A callback of a listening socket, registered wrapped. */
struct dp_memif_guard {
	rte_intr_callback_fn cb;	/* the driver's callback */
	void *cb_arg;			/* its argument */
};

/* What a wrapped callback registered while it ran (memif: its new control channel). */
struct dp_memif_guard_reg {
	bool seen;			/* a registration was made */
	int fd;				/* on this descriptor */
	dev_t dev;			/* whose file was this one */
	ino_t ino;
	rte_intr_callback_fn cb;	/* with this callback */
	void *cb_arg;			/* and argument */
};

/* The registration being watched in this thread (the interrupt thread), or NULL. */
static __thread struct dp_memif_guard_reg *dp_memif_guard_watch;

/* The warnings about them: at most 5 a minute. */
static struct dp_ratelimit dp_memif_guard_log = { .interval_ns = 60000000000ull, .burst = 5 };

/* The type of rte_intr_callback_register. */
typedef int dp_memif_guard_register_fn(const struct rte_intr_handle *intr_handle,
				       rte_intr_callback_fn cb, void *cb_arg);

/* The EAL's rte_intr_callback_register (the next definition after this executable's). */
static dp_memif_guard_register_fn *dp_memif_guard_real(void)
{
	static dp_memif_guard_register_fn *real;
	void *sym;

	if (!__atomic_load_n(&real, __ATOMIC_ACQUIRE)) {
		sym = dlsym(RTLD_NEXT, "rte_intr_callback_register");
		__atomic_store_n(&real, (dp_memif_guard_register_fn *)(uintptr_t)sym,
				 __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&real, __ATOMIC_ACQUIRE);
}

/* True when cb, a callback of the memif driver, is for fd, a listening socket. */
static bool dp_memif_guard_listener(rte_intr_callback_fn cb, int fd)
{
	Dl_info info;
	int on = 0;
	socklen_t len = sizeof(on);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) || !on)
		return false;
	return dladdr((void *)(uintptr_t)cb, &info) && info.dli_fname &&
	       strstr(info.dli_fname, "rte_net_memif");
}

/* True when the descriptor reg watched is still the file it was. */
static bool dp_memif_guard_same(const struct dp_memif_guard_reg *reg)
{
	struct stat st;

	return !fstat(reg->fd, &st) && st.st_dev == reg->dev && st.st_ino == reg->ino;
}

/* Unregister what reg watched: its descriptor was closed by the callback that registered it. */
static void dp_memif_guard_drop(const struct dp_memif_guard_reg *reg)
{
	struct rte_intr_handle *ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	uint64_t n;
	int ret = -ENOMEM;

	if (ih && !rte_intr_fd_set(ih, reg->fd) && !rte_intr_type_set(ih, RTE_INTR_HANDLE_EXT))
		ret = rte_intr_callback_unregister(ih, reg->cb, reg->cb_arg);
	rte_intr_instance_free(ih);
	/* Counted only when removed: a failure is the error below. */
	n = ret > 0 ? dp_memif_removed_add() : 0;
	if (!dp_ratelimit_ok(&dp_memif_guard_log, dp_mono_ns()))
		return;
	if (ret > 0)
		DP_LOG(dp_memif_guard_logtype, WARNING,
		       "a connection to a listening socket (memif) closed before its handshake: its callback on fd %d removed, which the driver left on the closed descriptor (%" PRIu64 " so far)",
		       reg->fd, n);
	else
		DP_LOG(dp_memif_guard_logtype, ERR,
		       "a connection to a listening socket (memif) closed before its handshake: its callback on fd %d could not be removed (%d): the EAL may abort",
		       reg->fd, ret);
}

/* Run a listening socket's callback, then drop what it registered on a descriptor it closed. */
static void dp_memif_guard_run(void *arg)
{
	struct dp_memif_guard *g = arg;
	struct dp_memif_guard_reg reg = { .seen = false };
	struct dp_memif_guard_reg *outer = dp_memif_guard_watch;

	dp_memif_guard_watch = &reg;
	g->cb(g->cb_arg);
	dp_memif_guard_watch = outer;
	if (reg.seen && !dp_memif_guard_same(&reg))
		dp_memif_guard_drop(&reg);
}

/* Note in reg a registration of cb on intr_handle's descriptor. */
static void dp_memif_guard_note(struct dp_memif_guard_reg *reg,
				const struct rte_intr_handle *intr_handle,
				rte_intr_callback_fn cb, void *cb_arg)
{
	struct stat st;
	int fd = rte_intr_fd_get(intr_handle);

	if (reg->seen || fd < 0 || fstat(fd, &st))
		return;
	*reg = (struct dp_memif_guard_reg){ .seen = true, .fd = fd, .dev = st.st_dev,
					    .ino = st.st_ino, .cb = cb, .cb_arg = cb_arg };
}

/* The EAL's function for every caller, the memif listener's callback wrapped. */
int rte_intr_callback_register(const struct rte_intr_handle *intr_handle,
			       rte_intr_callback_fn cb, void *cb_arg)
{
	dp_memif_guard_register_fn *real = dp_memif_guard_real();
	struct dp_memif_guard *g;
	int ret;

	if (!real)
		return -ENOSYS;
	if (dp_memif_guard_watch)
		dp_memif_guard_note(dp_memif_guard_watch, intr_handle, cb, cb_arg);
	if (!cb || !dp_memif_guard_listener(cb, rte_intr_fd_get(intr_handle)))
		return real(intr_handle, cb, cb_arg);
	/* Never freed: DPDK 22.11's memif never unregisters its listening socket's callback. */
	g = malloc(sizeof(*g));
	if (!g)
		return -ENOMEM;
	*g = (struct dp_memif_guard){ .cb = cb, .cb_arg = cb_arg };
	ret = real(intr_handle, dp_memif_guard_run, g);
	if (ret < 0)
		free(g);
	return ret;
}
