/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Around the EAL: initialisation, per-socket frame pools, NUMA placement
 * checks, core pinning, the TSC clock, idle back-off and the stop signal.
 */
/*
 * rte_intr_instance_alloc and the handle setters are experimental in DPDK
 * 22.11 (a handle of our own for dp_eal_intr_hold), as is the device
 * iterator (dp_eal_dev_probed).
 */
#define ALLOW_EXPERIMENTAL_API

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/un.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <numa.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>

#include "dp_eal.h"
#include "dp_ethdev.h"
#include "dp_in_use.h"
#include "dp_log.h"
#include "dp_mbuf.h"

DP_LOG_REGISTER(dp_eal_logtype, DATAPLANE_EAL);

enum {
	/* Fixed-point shift of the TSC-to-nanoseconds multiplier. */
	DP_TSC_SHIFT = 40,
	/* Ports dp_numa_check remembers having warned about. */
	DP_NUMA_WARNED_MAX = 64,
	/* Longest port name it compares. */
	DP_NUMA_NAME_LEN = 64,
	/* TSC calibration: length of the measurement (ns). */
	DP_TSC_CAL_NS = 20 * 1000 * 1000,
	/* ... a clock read bracketed by more TSC cycles than this is retried. */
	DP_TSC_CAL_BRACKET = 4000,
	/* ... tries per bracketed read. */
	DP_TSC_CAL_TRIES = 100,
	/* Sockets of its own a process removes from its EAL runtime directory. */
	DP_RUNDIR_SOCKS = 8,
	/* How often dp_eal_intr_hold looks whether the interrupt thread came (us). */
	DP_INTR_POLL_US = 50,
	/* The held interrupt thread's sleeps (us). */
	DP_INTR_HELD_SLEEP_US = 100 * 1000,
	/* dp_eal_cleanup waits this long at most for the interrupt thread (ms). */
	DP_INTR_CLEANUP_WAIT_MS = 1000,
};

/* Where the EAL interrupt thread is, for dp_eal_intr_hold. */
enum dp_intr_state {
	DP_INTR_FREE,		/* not held */
	DP_INTR_ASKED,		/* the holding callback is registered */
	DP_INTR_HELD,		/* the thread is in it, for good */
};

/*
 * What this process made in its EAL runtime directory: the sockets it
 * listens on there (telemetry, and the multi-process socket of a primary
 * with shared config), noted while they are open.
 */
struct dp_rundir {
	char dir[PATH_MAX];					/* the directory */
	char sock[DP_RUNDIR_SOCKS][sizeof(((struct sockaddr_un *)0)->sun_path)];	/* paths */
	unsigned int n_sock;					/* entries in sock */
	bool primary;		/* one of them is DIR/mp_socket: this process owns the shared config */
};

volatile sig_atomic_t dp_stop;

/* Nanoseconds per TSC cycle << DP_TSC_SHIFT; 0 until first needed. */
static uint64_t dp_tsc_mult;

/* Names of the ports dp_numa_check warned about. */
static char dp_numa_warned[DP_NUMA_WARNED_MAX][DP_NUMA_NAME_LEN];

/* An enum dp_intr_state, written by the interrupt thread too. */
static int dp_intr_state;

/* The interrupt source dp_eal_intr_hold registers (an eventfd's). */
static struct rte_intr_handle *dp_intr_handle;

/* Guards dp_numa_warned (set-up code may run on several threads). */
static pthread_mutex_t dp_numa_lock = PTHREAD_MUTEX_INITIALIZER;

/* CLOCK_MONOTONIC_RAW and the TSC read together (the TSC at the midpoint). */
static bool dp_tsc_pair(uint64_t *ns, uint64_t *tsc)
{
	struct timespec ts;

	for (int i = 0; i < DP_TSC_CAL_TRIES; i++) {
		uint64_t a = rte_rdtsc(), b;

		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		b = rte_rdtsc();
		if (b - a <= DP_TSC_CAL_BRACKET) {
			*ns = (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
			*tsc = a + (b - a) / 2;
			return true;
		}
	}
	return false;
}

/*
 * TSC cycles per second measured against the kernel's raw monotonic clock
 * over DP_TSC_CAL_NS, or 0. The EAL takes the TSC's nominal frequency when
 * the CPU states one, which can be off: 2600 MHz for a TSC the kernel
 * calibrates at 2596.14 MHz on the lab VM, a clock 0.15 % slow.
 */
static uint64_t dp_tsc_measure_hz(void)
{
	struct timespec pause = { .tv_sec = 0, .tv_nsec = DP_TSC_CAL_NS };
	uint64_t n0, c0, n1, c1;

	if (!dp_tsc_pair(&n0, &c0))
		return 0;
	nanosleep(&pause, NULL);
	if (!dp_tsc_pair(&n1, &c1) || n1 <= n0)
		return 0;
	return (uint64_t)(((__uint128_t)(c1 - c0) * NS_PER_S) / (n1 - n0));
}

/* Set the TSC multiplier from the measured frequency, if it is plausible. */
static void dp_tsc_calibrate(void)
{
	uint64_t nominal = rte_get_tsc_hz(), hz = dp_tsc_measure_hz();

	/* A measurement more than 2 % off the EAL's is a disturbed one. */
	if (!hz || !nominal || hz < nominal / 50 * 49 || hz > nominal / 50 * 51) {
		dp_tsc_ns();
		return;
	}
	if (hz / 10000 != nominal / 10000)
		DP_LOG(dp_eal_logtype, INFO, "TSC runs at %.3f MHz (the EAL assumes %.3f MHz): using the measured rate",
		       (double)hz / 1e6, (double)nominal / 1e6);
	__atomic_store_n(&dp_tsc_mult,
			 (uint64_t)(((__uint128_t)NS_PER_S << DP_TSC_SHIFT) / hz),
			 __ATOMIC_RELAXED);
}

int dp_args_split(int argc, char **argv, struct dp_args *a)
{
	int dd = argc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			dd = i;
			break;
		}
	}
	a->eal_argc = dd < argc ? dd : 1;
	a->own_argc = dd < argc ? argc - dd : argc;
	a->own = calloc((size_t)a->own_argc + 1, sizeof(*a->own));
	if (!a->own)
		return -ENOMEM;
	a->own[0] = argv[0];
	for (int i = 1; i < a->own_argc; i++)
		a->own[i] = argv[dd < argc ? dd + i : i];
	return 0;
}

void dp_args_free(struct dp_args *a)
{
	free(a->own);
	a->own = NULL;
}

/* Note r's directory dir and the sockets this process bound in it. */
static void dp_rundir_note(struct dp_rundir *r, const char *dir)
{
	size_t len = strlen(dir);
	struct dirent *e;
	DIR *fds;

	memset(r, 0, sizeof(*r));
	if (!dir[0] || len >= sizeof(r->dir))
		return;
	memcpy(r->dir, dir, len + 1);
	fds = opendir("/proc/self/fd");
	if (!fds)
		return;
	while ((e = readdir(fds)) && r->n_sock < DP_RUNDIR_SOCKS) {
		struct sockaddr_un a;
		socklen_t alen = sizeof(a);
		char *path = r->sock[r->n_sock];

		memset(&a, 0, sizeof(a));
		if (e->d_name[0] == '.' ||
		    getsockname(atoi(e->d_name), (struct sockaddr *)&a, &alen) ||
		    a.sun_family != AF_UNIX || strncmp(a.sun_path, dir, len) ||
		    a.sun_path[len] != '/')
			continue;
		memcpy(path, a.sun_path, sizeof(a.sun_path) - 1);
		r->primary |= !strcmp(path + len, "/mp_socket");
		r->n_sock++;
	}
	closedir(fds);
}

/* Unlink the files of pattern (a glob) in r's directory. */
static void dp_rundir_unlink(const struct dp_rundir *r, const char *pattern)
{
	char path[PATH_MAX + 32];
	glob_t g;

	snprintf(path, sizeof(path), "%s/%s", r->dir, pattern);
	if (glob(path, GLOB_NOSORT, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++)
		(void)unlink(g.gl_pathv[i]);
	globfree(&g);
}

/*
 * Remove what this process made in its EAL runtime directory, then the
 * directory if nothing else is left: its own sockets and, when it was the
 * primary process of a shared config, the files of that config (the EAL
 * leaves them at exit). Another process's files (a primary this one could
 * not lock out, a process with the same --file-prefix and --no-shconf)
 * stay, and the directory with them.
 */
static void dp_rundir_remove(const struct dp_rundir *r)
{
	if (!r->dir[0])
		return;
	for (unsigned int i = 0; i < r->n_sock; i++)
		(void)unlink(r->sock[i]);
	if (r->primary) {
		dp_rundir_unlink(r, "config");
		dp_rundir_unlink(r, "hugepage_info");
		dp_rundir_unlink(r, "fbarray_*");
	}
	(void)rmdir(r->dir);
}

const char *dp_eal_arg_value(int argc, char **argv, int *i, const char *name)
{
	size_t len = strlen(name);

	if (strncmp(argv[*i], name, len))
		return NULL;
	if (argv[*i][len] == '=')
		return argv[*i] + len + 1;
	if (argv[*i][len] || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

int dp_eal_init(int argc, char **argv, char *err, size_t errlen)
{
	struct dp_rundir r;
	int ret;

	/* Before anything is made: a device that cannot be, what another process holds. */
	ret = dp_ethdev_vdev_check(argc, argv, err, errlen);
	if (!ret)
		ret = dp_in_use_check(argc, argv, err, errlen);
	if (ret)
		return ret;
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		int e = rte_errno ? rte_errno : EINVAL;

		/* The EAL's only EACCES: no hugepage it may use (root too). */
		if (e == EACCES)
			snprintf(err, errlen, "cannot initialise the DPDK EAL: no usable hugepages (none reserved or mounted, or no access to them): reserve some (doc/operations.md, Bare metal host set-up) or run without them: --no-huge -m 256");
		else
			snprintf(err, errlen, "cannot initialise the DPDK EAL: %s",
				 rte_strerror(e));
		/* A start that failed (a bad --vdev, no hugepages) made it, and left it. */
		dp_rundir_note(&r, rte_eal_get_runtime_dir());
		dp_rundir_remove(&r);
		return -e;
	}
	dp_tsc_calibrate();
	return ret;
}

void dp_eal_cleanup(void)
{
	struct dp_rundir r;

	/*
	 * The EAL makes its runtime directory even with --no-shconf and
	 * leaves it behind, with the telemetry socket (DPDK 22.11 does not
	 * unlink it) and, with shared config, the config and fbarray files.
	 * The sockets are noted while this process still holds them.
	 */
	dp_rundir_note(&r, rte_eal_get_runtime_dir());
	/*
	 * DPDK 22.11 does not stop its interrupt thread: a callback, or the
	 * rebuild of its wait list (memif's listening socket stays on it,
	 * with a handle in the EAL's memory), ran while the memory was
	 * unmapped.
	 */
	if (dp_eal_intr_hold(DP_INTR_CLEANUP_WAIT_MS))
		DP_LOG(dp_eal_logtype, WARNING,
		       "the EAL interrupt thread stayed busy for %u ms: cleaning up while it runs",
		       DP_INTR_CLEANUP_WAIT_MS);
	rte_eal_cleanup();
	dp_rundir_remove(&r);
}

struct rte_mempool *dp_pool_for_socket(const char *prefix, int socket,
				       unsigned int frames, char *err, size_t errlen)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;
	int n;

	if (socket == SOCKET_ID_ANY)
		n = snprintf(name, sizeof(name), "%s-sany", prefix);
	else
		n = snprintf(name, sizeof(name), "%s-s%d", prefix, socket);
	if (n < 0 || (size_t)n >= sizeof(name)) {
		snprintf(err, errlen, "pool name \"%s\" longer than %zu characters",
			 prefix, sizeof(name) - 7);
		errno = ENAMETOOLONG;
		return NULL;
	}
	mp = rte_mempool_lookup(name);
	if (mp)
		return mp;
	mp = dp_pool_create(name, frames, socket);
	if (!mp) {
		errno = rte_errno ? rte_errno : ENOMEM;
		snprintf(err, errlen, "cannot create pool %s of %u frames on socket %d: %s",
			 name, frames, socket, rte_strerror(errno));
		return NULL;
	}
	return mp;
}

bool dp_eal_dev_probed(const char *bus, const char *name)
{
	struct rte_dev_iterator it;
	struct rte_device *dev;
	char filter[32];

	snprintf(filter, sizeof(filter), "bus=%s", bus);
	RTE_DEV_FOREACH(dev, filter, &it)
		if (!strcmp(rte_dev_name(dev), name))
			return rte_dev_is_probed(dev);
	return false;
}

int dp_lcore_socket(unsigned int lcore)
{
	if (lcore >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lcore))
		return SOCKET_ID_ANY;
	return (int)rte_lcore_to_socket_id(lcore);
}

int dp_core_socket(int core)
{
	int node;

	if (core < 0 || numa_available() < 0)
		return SOCKET_ID_ANY;
	node = numa_node_of_cpu(core);
	return node < 0 ? SOCKET_ID_ANY : node;
}

/* True the first time port_name is seen (then remembers it). */
static bool dp_numa_first_warning(const char *port_name)
{
	bool first = true;
	int i;

	pthread_mutex_lock(&dp_numa_lock);
	for (i = 0; i < DP_NUMA_WARNED_MAX && dp_numa_warned[i][0]; i++)
		if (!strncmp(dp_numa_warned[i], port_name, DP_NUMA_NAME_LEN - 1)) {
			first = false;
			break;
		}
	if (first && i < DP_NUMA_WARNED_MAX)
		snprintf(dp_numa_warned[i], DP_NUMA_NAME_LEN, "%s", port_name);
	pthread_mutex_unlock(&dp_numa_lock);
	return first;
}

/* Warn once per port when it and its poller (named by who) sit on different nodes. */
static bool dp_numa_compare(const char *port_name, int port_socket, int poller_socket,
			    const char *who, int id)
{
	if (port_socket == SOCKET_ID_ANY || poller_socket == SOCKET_ID_ANY ||
	    port_socket == poller_socket)
		return true;
	if (dp_numa_first_warning(port_name))
		DP_LOG(dp_eal_logtype, WARNING,
		       "port %s is on NUMA node %d but is polled by %s %d on node %d: every frame crosses the interconnect",
		       port_name, port_socket, who, id, poller_socket);
	return false;
}

bool dp_numa_check(const char *port_name, int port_socket, unsigned int lcore)
{
	return dp_numa_compare(port_name, port_socket, dp_lcore_socket(lcore), "lcore",
			       (int)lcore);
}

bool dp_numa_check_poller(const char *port_name, int port_socket, int cpu)
{
	if (cpu < 0)
		return dp_numa_check(port_name, port_socket, rte_lcore_id());
	return dp_numa_compare(port_name, port_socket, dp_core_socket(cpu), "CPU", cpu);
}

unsigned int dp_pools_check(struct rte_mempool *const *pools, unsigned int n, FILE *f)
{
	unsigned int missing = 0;

	for (unsigned int i = 0; i < n; i++) {
		const struct rte_mempool *mp = pools[i];
		unsigned int avail;

		if (!mp)
			continue;
		avail = rte_mempool_avail_count(mp);
		fprintf(f, "pool %s: %u of %u mbufs available\n", mp->name, avail, mp->size);
		if (avail < mp->size)
			missing += mp->size - avail;
	}
	return missing;
}

int dp_pin_to_core(int core, char *err, size_t errlen)
{
	cpu_set_t set;
	int ret;

	if (core < 0 || core >= CPU_SETSIZE) {
		snprintf(err, errlen, "cannot pin to core %d: not a CPU number", core);
		return -EINVAL;
	}
	CPU_ZERO(&set);
	CPU_SET(core, &set);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (ret) {
		snprintf(err, errlen, "cannot pin to core %d: %s%s", core, strerror(ret),
			 ret == EINVAL ? " (core offline or outside this process's cpuset)" : "");
		return -ret;
	}
	return 0;
}

/* The TSC multiplier, computed on first use (the EAL must be up). */
static uint64_t dp_tsc_mult_get(void)
{
	uint64_t mult = __atomic_load_n(&dp_tsc_mult, __ATOMIC_RELAXED);
	uint64_t hz;

	if (likely(mult))
		return mult;
	hz = rte_get_tsc_hz();
	if (!hz)
		return 0;
	mult = (uint64_t)(((__uint128_t)NS_PER_S << DP_TSC_SHIFT) / hz);
	__atomic_store_n(&dp_tsc_mult, mult, __ATOMIC_RELAXED);
	return mult;
}

uint64_t dp_tsc_ns(void)
{
	return (uint64_t)(((__uint128_t)rte_rdtsc() * dp_tsc_mult_get()) >> DP_TSC_SHIFT);
}

uint64_t dp_tsc_cycles(void)
{
	return rte_rdtsc();
}

void dp_idle_init(struct dp_idle *idle, uint64_t idle_ns, uint32_t sleep_us,
		  uint64_t now)
{
	memset(idle, 0, sizeof(*idle));
	idle->idle_ns = idle_ns;
	idle->sleep_us = sleep_us;
	idle->last_work = now;
}

uint32_t dp_idle_sleep_us(const struct dp_idle *idle, uint32_t first_us, bool awaited,
			  uint64_t now)
{
	uint64_t grown = (now - idle->last_work) / 1000 / DP_IDLE_SLEEP_SHARE;

	if (!first_us || first_us >= DP_IDLE_MAX_SLEEP_US)
		return first_us;
	if (!awaited || grown >= DP_IDLE_MAX_SLEEP_US)
		return DP_IDLE_MAX_SLEEP_US;
	return grown > first_us ? (uint32_t)grown : first_us;
}

uint64_t dp_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t dp_idle_poll(struct dp_idle *idle, bool did_work, uint64_t now,
		      uint64_t next_due)
{
	uint64_t ns = (uint64_t)idle->sleep_us * 1000;
	struct timespec ts;
	uint64_t t0, took;

	if (did_work || idle->idle_ns == 0) {
		idle->last_work = now;
		return now;
	}
	if (next_due <= now || ns == 0)
		return now;
	if (now < idle->last_work || now - idle->last_work < idle->idle_ns) {
		/*
		 * Still spinning: let a process woken on this core (an
		 * application whose message completed) run now rather than
		 * after the spin; with nobody else runnable this returns at once.
		 */
		sched_yield();
		idle->yields++;
		return now;
	}
	if (next_due - now < ns)
		ns = next_due - now;
	ts.tv_sec = (time_t)(ns / NS_PER_S);
	ts.tv_nsec = (long)(ns % NS_PER_S);
	t0 = dp_mono_ns();
	nanosleep(&ts, NULL);
	took = dp_mono_ns() - t0;
	idle->sleeps++;
	idle->slept_ns += took;
	idle->last_sleep_ns = ns;
	return now + took;
}

void dp_idle_print(FILE *f, const struct dp_idle *idle, double seconds)
{
	fprintf(f, "idle back-off: %llu sleeps, %.3f s asleep (%.0f%% of the run), %llu yields\n",
		(unsigned long long)idle->sleeps, (double)idle->slept_ns / 1e9,
		seconds > 0 ? 100.0 * (double)idle->slept_ns / 1e9 / seconds : 0.0,
		(unsigned long long)idle->yields);
}

/* Callbacks the memif guard removed (written by the interrupt thread). */
static uint64_t dp_memif_removals;

uint64_t dp_memif_removed(void)
{
	return __atomic_load_n(&dp_memif_removals, __ATOMIC_RELAXED);
}

uint64_t dp_memif_removed_add(void)
{
	return __atomic_add_fetch(&dp_memif_removals, 1, __ATOMIC_RELAXED);
}

void dp_memif_removed_print(FILE *f)
{
	uint64_t n = dp_memif_removed();

	if (n)
		fprintf(f, "memif: %llu callbacks removed that the memif server left on connections it closed in their handshake\n",
			(unsigned long long)n);
}

/* The holding callback: the interrupt thread stays in it until the process ends. */
static void dp_intr_wait_here(void *arg)
{
	int asked = DP_INTR_ASKED;

	(void)arg;
	if (!__atomic_compare_exchange_n(&dp_intr_state, &asked, DP_INTR_HELD, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	for (;;)
		rte_delay_us_sleep(DP_INTR_HELD_SLEEP_US);
}

/*
 * The interrupt source that holds the thread: an eventfd, always readable,
 * in a handle of its own (not an alarm: the EAL's cleanup waits until no
 * alarm runs). 0 or -errno.
 */
static int dp_intr_source(void)
{
	int efd;

	if (dp_intr_handle)
		return 0;
	efd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0)
		return -errno;
	dp_intr_handle = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (!dp_intr_handle || rte_intr_fd_set(dp_intr_handle, efd) ||
	    rte_intr_type_set(dp_intr_handle, RTE_INTR_HANDLE_EXT)) {
		rte_intr_instance_free(dp_intr_handle);
		dp_intr_handle = NULL;
		close(efd);
		return -ENOMEM;
	}
	return 0;
}

bool dp_eal_intr_held(void)
{
	return __atomic_load_n(&dp_intr_state, __ATOMIC_ACQUIRE) == DP_INTR_HELD;
}

int dp_eal_intr_hold(unsigned int wait_ms)
{
	uint64_t end = dp_mono_ns() + (uint64_t)wait_ms * 1000000;
	int asked = DP_INTR_ASKED;
	int ret;

	if (dp_eal_intr_held())
		return 0;
	ret = dp_intr_source();
	if (ret)
		return ret;
	__atomic_store_n(&dp_intr_state, DP_INTR_ASKED, __ATOMIC_RELEASE);
	ret = rte_intr_callback_register(dp_intr_handle, dp_intr_wait_here, NULL);
	if (ret) {
		__atomic_store_n(&dp_intr_state, DP_INTR_FREE, __ATOMIC_RELEASE);
		return ret;
	}
	while (__atomic_load_n(&dp_intr_state, __ATOMIC_ACQUIRE) != DP_INTR_HELD) {
		if (dp_mono_ns() < end) {
			rte_delay_us_sleep(DP_INTR_POLL_US);
			continue;
		}
		/* Still busy elsewhere: withdraw (the callback returns at once if it starts). */
		if (!__atomic_compare_exchange_n(&dp_intr_state, &asked, DP_INTR_FREE, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return 0;	/* it came just now */
		while (rte_intr_callback_unregister(dp_intr_handle, dp_intr_wait_here,
						    NULL) == -EAGAIN)
			rte_delay_us_sleep(DP_INTR_POLL_US);
		return -ETIMEDOUT;
	}
	return 0;
}

/* SIGINTs and SIGTERMs that came, both kinds together (any thread may take one). */
static int dp_signals_seen;

/* Install handler for SIGINT and SIGTERM, each blocking the other while it runs. */
static void dp_signals_set(void (*handler)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sa.sa_flags = flags;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Say on stderr, from the handler (write(2) only), that a signal came while stopping. */
static void dp_signals_say(const char *what)
{
	const char *name = program_invocation_short_name;

	if (write(STDERR_FILENO, name, strlen(name)) < 0 ||
	    write(STDERR_FILENO, what, strlen(what)) < 0)
		return;	/* nowhere to say it */
}

/*
 * The first signal asks the poll loops to stop, saying which came; from
 * then on a blocking call (a write to a full pipe, say) is restarted, not
 * failed, so the teardown finishes. A second one (Ctrl-C pressed again)
 * does not cut short that teardown, which removes what a killed process
 * leaves (EAL runtime files, sockets); the DP_SIGNALS_FORCE-th ends the
 * process at once by the default action, for a teardown that hangs.
 */
static void dp_stop_handler(int sig)
{
	int n = __atomic_add_fetch(&dp_signals_seen, 1, __ATOMIC_SEQ_CST);

	if (n == 1) {
		dp_stop = sig;
		dp_signals_set(dp_stop_handler, SA_RESTART);
	} else if (n < DP_SIGNALS_FORCE) {
		dp_signals_say(": stopping already, cleaning up (one more signal ends it at once, leaving its runtime files)\n");
	} else {
		dp_signals_say(": ended by a signal before its clean-up finished\n");
		dp_signals_set(SIG_DFL, 0);
		raise(sig);	/* delivered when the handler returns */
	}
}

void dp_signals_install(void)
{
	struct sigaction sa;

	dp_signals_set(dp_stop_handler, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
}
