/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry: publish counter sets through DPDK telemetry (read with
 * dpdk-telemetry.py), e.g. /segnet/switch/stats. A daemon registers
 * endpoints at start-up with a callback that fills a dictionary.
 */
#ifndef SEGNET_DP_TELEMETRY_H
#define SEGNET_DP_TELEMETRY_H

#include <rte_telemetry.h>

#include "dp_counters.h"

/*
 * A daemon's telemetry names outside its counter lists (the commands it
 * registers, the keys its callbacks add by name) are X-macro lists of
 * X(name, text), so that the callbacks and the test of its man page
 * (tests/unit/test_man_telemetry.c) read the same names: each list becomes
 * a struct of strings, a field per entry. A key is the entry's name (text
 * says what it holds); a command is its text, the path.
 */
#define DP_TEL_NAME_FIELD(name, text) const char *name;
#define DP_TEL_KEY_INIT(name, text) .name = #name,
#define DP_TEL_CMD_INIT(name, path) .name = path,

/*
 * Add every counter of set to a telemetry dictionary (d must be a dict),
 * keyed by counter name. 0, or -ENOSPC when the dictionary is full
 * (RTE_TEL_MAX_DICT_ENTRIES): the counters that fitted are in.
 */
int dp_telemetry_add_set(struct rte_tel_data *d, const struct dp_counter_set *set);

enum {
	/* Nested containers one reply notes in a struct dp_telemetry_held. */
	DP_TELEMETRY_HELD_MAX = RTE_TEL_MAX_DICT_ENTRIES,
};

/*
 * The nested containers a callback added to its reply, at any depth. DPDK
 * 22.11 frees them (added with keep = 0) only when it writes the reply,
 * and drops the reply of a callback that fails without freeing them: a
 * callback that fails part way frees them with dp_telemetry_held_free and
 * returns the error. Starts empty ({ .n = 0 }).
 */
struct dp_telemetry_held {
	unsigned int n;					/* containers in c */
	struct rte_tel_data *c[DP_TELEMETRY_HELD_MAX];	/* added, in order */
};

/*
 * Add container c (a dict or an array) to dictionary d under key, freed
 * with the reply, and note it in held. 0 or -errno: -ENOSPC when d or held
 * is full, -E2BIG when key was cut (RTE_TEL_MAX_STRING_LEN). On failure c
 * is either freed or, when d holds it anyway (-E2BIG), noted in held.
 */
int dp_telemetry_add_container(struct rte_tel_data *d, const char *key, struct rte_tel_data *c,
			       struct dp_telemetry_held *held);

/*
 * A new, empty dictionary added to d under key (dp_telemetry_add_container),
 * or NULL with errno.
 */
struct rte_tel_data *dp_telemetry_add_dict(struct rte_tel_data *d, const char *key,
					   struct dp_telemetry_held *held);

/* Free the containers noted in held (the reply naming them must fail); held is empty after. */
void dp_telemetry_held_free(struct dp_telemetry_held *held);

/*
 * Add each of the n sets as a nested dictionary under its group name, so
 * one reply can carry several sets; characters telemetry refuses in names
 * become '_' ("net_ring0.q0" is written "net_ring0_q0") and names are cut
 * to RTE_TEL_MAX_STRING_LEN - 1 characters (127). Give every group of a dictionary in one call: two
 * groups that would become one key ("a.b" and "a_b"), one hiding the
 * other, are refused before anything is added: -EEXIST at every call, and
 * an error naming both logged the first time that pair is seen (once per
 * pair in the process, not at every read). 0 or -errno: -ENOSPC when d
 * cannot hold them all (RTE_TEL_MAX_DICT_ENTRIES). The groups added are
 * noted in held: on failure, free them (dp_telemetry_held_free) and return
 * the error.
 */
int dp_telemetry_add_groups(struct rte_tel_data *d, const struct dp_counter_set *sets,
			    unsigned int n, struct dp_telemetry_held *held);

/*
 * JSON bytes of a "key":v entry with its separator: what a reply that must
 * fit DPDK's 16 KiB counts (DPDK drops what does not fit, without a word).
 */
size_t dp_telemetry_u64_bytes(const char *key, uint64_t v);

/*
 * Register endpoint path ("/segnet/switch/stats") with help text; fn fills
 * the reply. 0 or -errno: -EINVAL for a path DPDK refuses (it must start
 * with '/', hold only letters, digits, '_' and '/', and be shorter than 56
 * characters), -EEXIST when this process registered it already. Commands
 * are registered even when the EAL runs with --no-telemetry; nobody can
 * read them then.
 */
int dp_telemetry_register(const char *path, telemetry_cb fn, const char *help);

#endif
