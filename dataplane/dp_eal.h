/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a daemon's main needs around the EAL: initialisation with the EAL's
 * arguments before "--" and the daemon's own after, NUMA placement of
 * mempools and polling cores, explicit core pinning, the TSC clock, idle
 * back-off so several pollers can share a small machine, and a stop flag
 * set by SIGINT/SIGTERM.
 */
#ifndef SEGNET_DP_EAL_H
#define SEGNET_DP_EAL_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

/*
 * A daemon's command line, split at the first "--": the EAL's arguments
 * before it, the daemon's own after it (all of them when there is no "--",
 * and then the EAL starts with its defaults).
 */
struct dp_args {
	int eal_argc;	/* argv[0 .. eal_argc-1] go to the EAL */
	int own_argc;	/* entries in own */
	char **own;	/* the daemon's own arguments, own[0] = argv[0] */
};

/* Split argv; 0 or -ENOMEM. */
int dp_args_split(int argc, char **argv, struct dp_args *a);

/* Free what dp_args_split allocated. */
void dp_args_free(struct dp_args *a);

/*
 * The value of EAL option name ("--vdev") at argv[*i], given as "--name
 * VALUE" or "--name=VALUE", moving *i to its last word; NULL when argv[*i]
 * is not that option.
 */
const char *dp_eal_arg_value(int argc, char **argv, int *i, const char *name);

/*
 * Initialise the EAL from argv (EAL arguments up to "--"). Returns how many
 * arguments it consumed (so argv + ret, argc - ret are the daemon's own,
 * with argv[ret] being the program name again), or -errno with a message.
 * A program may call it with no "--" and no EAL arguments: then defaults
 * suitable for tests are NOT added; the caller passes what it needs.
 */
int dp_eal_init(int argc, char **argv, char *err, size_t errlen);

/*
 * True when dp_eal_init's error rc is the arguments' fault (an unknown
 * option or a bad value: EINVAL; a --vdev naming no driver: ENODEV), for an
 * exit status 2 rather than 1.
 */
static inline bool dp_eal_bad_args(int rc)
{
	return rc == -EINVAL || rc == -ENODEV;
}

/* Release the EAL at exit. */
void dp_eal_cleanup(void);

/*
 * A frame pool for NUMA node socket (SOCKET_ID_ANY for any), named
 * "<prefix>-s<socket>" ("<prefix>-sany" for SOCKET_ID_ANY), created once and
 * returned again on later calls. NULL with a message (and errno) on failure.
 */
struct rte_mempool *dp_pool_for_socket(const char *prefix, int socket,
				       unsigned int frames, char *err, size_t errlen);

/*
 * Whether bus ("vdev", "pci") holds a probed device called name: one the
 * EAL created or a driver took, even after its ethdev was closed (the
 * close releases the ethdev, not the device; rte_eal_cleanup removes it).
 */
bool dp_eal_dev_probed(const char *bus, const char *name);

/* NUMA node of lcore, or SOCKET_ID_ANY when unknown. */
int dp_lcore_socket(unsigned int lcore);

/*
 * NUMA node of CPU core (as for dp_pin_to_core, not an EAL lcore id), from
 * libnuma, or SOCKET_ID_ANY when unknown.
 */
int dp_core_socket(int core);

/*
 * Warn (log, once per port) when port_socket and the polling lcore's socket
 * differ: each frame would cross the NUMA interconnect. Returns true when
 * they match or either is unknown.
 */
bool dp_numa_check(const char *port_name, int port_socket, unsigned int lcore);

/* The same for a poller pinned to CPU cpu (cpu < 0: the calling lcore). */
bool dp_numa_check_poller(const char *port_name, int port_socket, int cpu);

/*
 * At exit, after the ports are closed: print each pool's available mbufs
 * to f and return how many are missing (leaked) over all n pools (NULLs
 * are skipped).
 */
unsigned int dp_pools_check(struct rte_mempool *const *pools, unsigned int n, FILE *f);

/* Pin the calling thread to CPU core; 0 or -errno with a message. */
int dp_pin_to_core(int core, char *err, size_t errlen);

/*
 * Nanoseconds from the TSC (monotonic; 0 until the EAL is up). One
 * multiplication and shift per call. dp_eal_init measures the TSC's rate
 * against CLOCK_MONOTONIC_RAW (20 ms at start-up) rather than trusting the
 * EAL's nominal frequency, which can be 0.15 % off in a VM; without
 * dp_eal_init it uses the EAL's.
 */
uint64_t dp_tsc_ns(void);

/* TSC cycles (for arbitration-time counters). */
uint64_t dp_tsc_cycles(void);

/* CLOCK_MONOTONIC in nanoseconds: before the EAL (and the TSC clock) starts, or to measure a sleep. */
uint64_t dp_mono_ns(void);

/*
 * Idle back-off: a poller that found no work for idle_ns sleeps sleep_us per
 * empty poll (capped at the time of its next timer) until work comes back;
 * before that, each empty poll yields the core (sched_yield), so that a
 * process sharing it does not wait for the spin to end. idle_ns == 0
 * disables both (pure busy polling), and so does sleep_us == 0.
 */
struct dp_idle {
	uint64_t idle_ns;	/* empty polling before sleeping */
	uint32_t sleep_us;	/* sleep per empty poll once idle */
	uint64_t last_work;	/* time work was last seen */
	uint64_t sleeps;	/* sleeps taken (counter) */
	uint64_t slept_ns;	/* time spent sleeping (counter) */
	uint64_t last_sleep_ns;	/* length of the last sleep asked for */
	uint64_t yields;	/* empty polls before idle_ns that yielded the core (counter) */
};

/* Set up back-off parameters. */
void dp_idle_init(struct dp_idle *idle, uint64_t idle_ns, uint32_t sleep_us,
		  uint64_t now);

/* How the daemons' idle sleeps grow (dp_idle_sleep_us). */
enum {
	DP_IDLE_MAX_SLEEP_US = 1000,	/* sleeps grow up to this (us) */
	DP_IDLE_SLEEP_SHARE = 4,	/* a grown sleep is 1/N of the time idle so far */
};

/*
 * The sleep of switchd's and nicd's next idle poll, from --idle-sleep-us
 * first_us: first_us at first, then a quarter of the time idle so far, up
 * to DP_IDLE_MAX_SLEEP_US (a wake-up costs ~20 us of CPU in a VM, so a long
 * idle period should not pay one per 100 us), and that at once while
 * nobody waits on the poller (awaited false: no node up, no endpoint
 * open). A first_us of DP_IDLE_MAX_SLEEP_US or more is used as given, and
 * 0 too (never sleep).
 */
uint32_t dp_idle_sleep_us(const struct dp_idle *idle, uint32_t first_us, bool awaited,
			  uint64_t now);

/*
 * Call once per poll with whether it did work and the next time the poller
 * must run (UINT64_MAX if none); sleeps when idle. Returns the time after:
 * now, plus the time the sleep took when it slept (measured on
 * CLOCK_MONOTONIC, so an injected clock only has to be in nanoseconds). A
 * signal cuts a sleep short.
 */
uint64_t dp_idle_poll(struct dp_idle *idle, bool did_work, uint64_t now,
		      uint64_t next_due);

/* The summary line of a daemon's back-off: sleeps, time asleep, yields. */
void dp_idle_print(FILE *f, const struct dp_idle *idle, double seconds);

/*
 * Callbacks that the memif guard (dp_memif_guard.c) removed from connections
 * DPDK's memif server closed in their handshake: one count per process, 0
 * in a program without the guard. dp_memif_removed_add counts one more and
 * returns the count; dp_memif_removed_print prints a summary line to f when
 * it is not 0.
 */
uint64_t dp_memif_removed(void);
uint64_t dp_memif_removed_add(void);
void dp_memif_removed_print(FILE *f);

/*
 * Hold the EAL interrupt thread, where drivers' socket and alarm callbacks
 * run, in a callback of its own until the process ends, so that none of
 * them runs while devices stop and close and the EAL's memory is unmapped:
 * for the end of a process (no alarm or device interrupt is served after
 * it). 0 (also when it is held already), or -errno (-ETIMEDOUT: it did not
 * come within wait_ms, busy in another callback; it is then not held).
 */
int dp_eal_intr_hold(unsigned int wait_ms);

/* True once dp_eal_intr_hold holds the EAL interrupt thread: no callback runs there any more. */
bool dp_eal_intr_held(void);

/* 0, or the signal (SIGINT, SIGTERM) that came once dp_signals_install() ran. */
extern volatile sig_atomic_t dp_stop;

/* The SIGINT or SIGTERM (either, counted together) that ends a stopping process at once. */
enum { DP_SIGNALS_FORCE = 3 };

/*
 * Install the SIGINT/SIGTERM handlers that set dp_stop. The first signal
 * comes without SA_RESTART, so a sleep or blocking call returns; later
 * ones with it, so that the teardown's calls are not failed. A second
 * signal while the process stops is said on stderr and otherwise ignored
 * (a second Ctrl-C does not leave the EAL runtime files, sockets and
 * pools behind); the DP_SIGNALS_FORCE-th gets the default action (kills a
 * process whose teardown hangs). SIGPIPE is ignored: a driver writing to
 * a peer that went away (virtio-user to its vhost-user server, when nicd
 * stops or removes the device) gets EPIPE instead of the process being
 * killed.
 */
void dp_signals_install(void);

#endif
