/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter sets published through DPDK telemetry.
 *
 * Where the endpoints can be read (DPDK 22.11.11 on Debian 12, checked with
 * dpdk-telemetry.py): the EAL's telemetry thread listens on
 * <runtime dir>/dpdk_telemetry.v2, the runtime dir being
 * $RUNTIME_DIRECTORY/dpdk/<file-prefix> under systemd, else
 * /var/run/dpdk/<file-prefix> for root and $XDG_RUNTIME_DIR/dpdk/<prefix>
 * (or /tmp/dpdk/<prefix>) for other users. The socket exists whenever the
 * EAL runs without --no-telemetry, with --no-shconf too (the directory is
 * still created, only the shared config files are not; nothing removes the
 * directory at exit). Two processes with the same prefix and --no-shconf
 * both answer: the second binds dpdk_telemetry.v2:1 (read it with
 * dpdk-telemetry.py -f <prefix> -i 1); without --no-shconf a second primary
 * with the same prefix does not start ("Cannot create lock"). So give every
 * daemon its own --file-prefix and read it with dpdk-telemetry.py -f
 * <prefix>.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_log.h"
#include "dp_telemetry.h"

DP_LOG_REGISTER(dp_tel_logtype, DATAPLANE_TELEMETRY);

enum {
	/* DPDK's limit on a command (MAX_CMD_LEN in lib/telemetry). */
	DP_TEL_CMD_MAX = 56,
};

/* A path this process registered (DPDK itself accepts duplicates). */
struct dp_tel_path {
	struct dp_tel_path *next;	/* next registered path */
	char path[DP_TEL_CMD_MAX];	/* the command */
};

/* Two group names dp_telemetry_add_groups found to become one key, and logged. */
struct dp_tel_clash {
	struct dp_tel_clash *next;	/* next pair logged */
	char *a;			/* one name (malloc'd) */
	char *b;			/* the other (malloc'd) */
};

/* Paths registered through dp_telemetry_register. */
static struct dp_tel_path *dp_tel_paths;

/* Pairs of groups whose clash was logged: each is logged once, not at every read. */
static struct dp_tel_clash *dp_tel_clashes;

/* Guards dp_tel_paths and dp_tel_clashes. */
static pthread_mutex_t dp_tel_lock = PTHREAD_MUTEX_INITIALIZER;

/* Map DPDK's positive E2BIG (name truncated) to a negative errno. */
static int dp_tel_ret(int ret)
{
	return ret > 0 ? -ret : ret;
}

int dp_telemetry_add_set(struct rte_tel_data *d, const struct dp_counter_set *set)
{
	for (unsigned int i = 0; i < set->n; i++) {
		int ret = rte_tel_data_add_dict_u64(d, set->names[i], set->values[i]);

		if (ret)
			return dp_tel_ret(ret);
	}
	return 0;
}

/* c as a telemetry key has it: names take letters, digits, '_' and '/' only. */
static char dp_tel_key_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '/' ? c : '_';
}

/* name as a telemetry key (key holds RTE_TEL_MAX_STRING_LEN bytes; longer names are cut). */
static void dp_tel_key(char *key, const char *name)
{
	snprintf(key, RTE_TEL_MAX_STRING_LEN, "%s", name);
	for (char *c = key; *c; c++)
		*c = dp_tel_key_char(*c);
}

/* True when names a and b become the same key (cut to RTE_TEL_MAX_STRING_LEN - 1). */
static bool dp_tel_same_key(const char *a, const char *b)
{
	size_t i;

	for (i = 0; i < RTE_TEL_MAX_STRING_LEN - 1 && a[i] && b[i]; i++)
		if (dp_tel_key_char(a[i]) != dp_tel_key_char(b[i]))
			return false;
	return i == RTE_TEL_MAX_STRING_LEN - 1 || (!a[i] && !b[i]);
}

/*
 * True the first time groups a and b (in either order) are reported as one
 * key; then remembered. Without memory for it, true each time: a line
 * repeated beats a refusal nobody explains.
 */
static bool dp_tel_clash_first(const char *a, const char *b)
{
	struct dp_tel_clash *c;
	bool first = true;

	pthread_mutex_lock(&dp_tel_lock);
	for (c = dp_tel_clashes; c && first; c = c->next)
		first = !((!strcmp(c->a, a) && !strcmp(c->b, b)) ||
			  (!strcmp(c->a, b) && !strcmp(c->b, a)));
	c = first ? calloc(1, sizeof(*c)) : NULL;
	if (c) {
		c->a = strdup(a);
		c->b = strdup(b);
		if (c->a && c->b) {
			c->next = dp_tel_clashes;
			dp_tel_clashes = c;
		} else {
			free(c->a);
			free(c->b);
			free(c);
		}
	}
	pthread_mutex_unlock(&dp_tel_lock);
	return first;
}

/* Log, once per pair, that groups a and b become one key. */
static void dp_tel_clash_log(const char *a, const char *b)
{
	char key[RTE_TEL_MAX_STRING_LEN];

	if (!dp_tel_clash_first(a, b))
		return;
	dp_tel_key(key, a);
	DP_LOG(dp_tel_logtype, ERR,
	       "telemetry groups \"%s\" and \"%s\" both become key \"%s\" (a key keeps letters, digits, '_' and '/', other characters become '_', and at most %d of them): reply refused, as one group would hide the other, at every read (logged once); rename one",
	       a, b, key, RTE_TEL_MAX_STRING_LEN - 1);
}

/* 0 when the n sets' groups become n keys, else -EEXIST, each clashing pair logged once. */
static int dp_tel_groups_distinct(const struct dp_counter_set *sets, unsigned int n)
{
	int ret = 0;

	for (unsigned int i = 0; i < n; i++)
		for (unsigned int j = i + 1; j < n; j++) {
			if (!dp_tel_same_key(sets[i].group, sets[j].group))
				continue;
			dp_tel_clash_log(sets[i].group, sets[j].group);
			ret = -EEXIST;
		}
	return ret;
}

/*
 * DPDK 22.11 frees the nested containers of a reply (keep = 0) only when it
 * writes the reply; it drops the reply of a callback that fails without
 * looking at it, so each container added is noted for the callback to free
 * then.
 */
int dp_telemetry_add_container(struct rte_tel_data *d, const char *key, struct rte_tel_data *c,
			       struct dp_telemetry_held *held)
{
	int ret = -ENOSPC;

	if (held->n < DP_TELEMETRY_HELD_MAX)
		ret = rte_tel_data_add_dict_container(d, key, c, 0);
	if (ret < 0) {
		rte_tel_data_free(c);
		return ret;
	}
	/* 0, or E2BIG: added under a key cut short. */
	held->c[held->n++] = c;
	return dp_tel_ret(ret);
}

struct rte_tel_data *dp_telemetry_add_dict(struct rte_tel_data *d, const char *key,
					   struct dp_telemetry_held *held)
{
	struct rte_tel_data *c = rte_tel_data_alloc();
	int ret;

	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	rte_tel_data_start_dict(c);
	ret = dp_telemetry_add_container(d, key, c, held);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	return c;
}

void dp_telemetry_held_free(struct dp_telemetry_held *held)
{
	while (held->n)
		rte_tel_data_free(held->c[--held->n]);
}

/* Add set as a nested dictionary under its group's key, noted in held. */
static int dp_tel_add_group(struct rte_tel_data *d, const struct dp_counter_set *set,
			    struct dp_telemetry_held *held)
{
	char key[RTE_TEL_MAX_STRING_LEN];
	struct rte_tel_data *child;

	dp_tel_key(key, set->group);
	child = dp_telemetry_add_dict(d, key, held);
	return child ? dp_telemetry_add_set(child, set) : -errno;
}

int dp_telemetry_add_groups(struct rte_tel_data *d, const struct dp_counter_set *sets,
			    unsigned int n, struct dp_telemetry_held *held)
{
	int ret = dp_tel_groups_distinct(sets, n);

	for (unsigned int i = 0; i < n && !ret; i++)
		ret = dp_tel_add_group(d, &sets[i], held);
	return ret;
}

/* True when path is a command DPDK accepts. */
static bool dp_tel_path_ok(const char *path)
{
	if (!path || path[0] != '/' || strlen(path) >= DP_TEL_CMD_MAX)
		return false;
	for (const char *c = path; *c; c++)
		if (dp_tel_key_char(*c) != *c)
			return false;
	return true;
}

/* True when this process registered path already. */
static bool dp_tel_path_taken(const char *path)
{
	for (struct dp_tel_path *p = dp_tel_paths; p; p = p->next)
		if (!strcmp(p->path, path))
			return true;
	return false;
}

int dp_telemetry_register(const char *path, telemetry_cb fn, const char *help)
{
	struct dp_tel_path *p;
	int ret;

	if (!dp_tel_path_ok(path) || !fn) {
		DP_LOG(dp_tel_logtype, ERR,
		       "telemetry path \"%s\" refused: it must start with '/', hold only letters, digits, '_' and '/', and be shorter than %d characters",
		       path ? path : "(null)", DP_TEL_CMD_MAX);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	snprintf(p->path, sizeof(p->path), "%s", path);
	pthread_mutex_lock(&dp_tel_lock);
	if (dp_tel_path_taken(path)) {
		ret = -EEXIST;
	} else {
		ret = rte_telemetry_register_cmd(path, fn, help ? help : "");
		if (!ret) {
			p->next = dp_tel_paths;
			dp_tel_paths = p;
		}
	}
	pthread_mutex_unlock(&dp_tel_lock);
	if (ret) {
		DP_LOG(dp_tel_logtype, ERR, "cannot register telemetry path %s: %s",
		       path, strerror(-ret));
		free(p);
	}
	return ret;
}

size_t dp_telemetry_u64_bytes(const char *key, uint64_t v)
{
	char digits[24];

	/* "key":v, */
	return strlen(key) + 4 +
	       (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
}
