/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segnet-replay --lab DIR: the nodes of a virtual lab that scripts/lab.sh
 * brought up, from its state file DIR/lab.state (KEY=VALUE lines, the
 * last value of a key wins, read as data): "state" must be "up", "nodes"
 * gives N, the nodes are n0 .. n(N-1) with their control sockets in
 * DIR/nicd (NAME.sock), and "key.V" names the key file of virtual network V.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pcap/replay/replay_messages.h"

/* Longest line of a state file. */
enum { REPLAY_LAB_LINE = 1024 };

/* The values messages mode reads from a state file. */
struct lab_values {
	/* "state" */
	char state[32];
	/* "nodes" */
	char nodes[16];
	/* "dir": the lab's directory */
	char dir[REPLAY_PATH_LEN];
	/* "key.V" of the virtual network asked for */
	char key[REPLAY_PATH_LEN];
};

/* printf into err; returns -e. */
static int __attribute__((format(printf, 4, 5)))
lab_fail(int e, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

/* Copy the value of line into out when line is KEY=value. */
static void lab_take(const char *line, const char *key, char *out, size_t len)
{
	size_t k = strlen(key);

	if (!strncmp(line, key, k) && line[k] == '=')
		snprintf(out, len, "%s", line + k + 1);
}

/* Read the values of file f. */
static void lab_scan(FILE *f, uint16_t vnet, struct lab_values *v)
{
	char line[REPLAY_LAB_LINE], key[32];

	snprintf(key, sizeof(key), "key.%u", vnet);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		lab_take(line, "state", v->state, sizeof(v->state));
		lab_take(line, "nodes", v->nodes, sizeof(v->nodes));
		lab_take(line, "dir", v->dir, sizeof(v->dir));
		lab_take(line, key, v->key, sizeof(v->key));
	}
}

/* The state file of dir: dir/lab.state, or dir when it is a file. */
static int lab_path(const char *dir, char *path, size_t len)
{
	struct stat st;
	int n;

	if (!stat(dir, &st) && S_ISREG(st.st_mode))
		n = snprintf(path, len, "%s", dir);
	else
		n = snprintf(path, len, "%s/lab.state", dir);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The node count of v; 0 when missing or out of range. */
static unsigned int lab_nodes(const struct lab_values *v)
{
	char *end;
	unsigned long n = strtoul(v->nodes, &end, 10);

	return *v->nodes && !*end && n >= 2 && n <= REPLAY_NODES_MAX ? (unsigned int)n : 0;
}

/* Fill lab from the values v of state file path. */
static int lab_fill(const struct lab_values *v, const char *path, uint16_t vnet,
		    bool need_key, struct replay_lab *lab, char *err, size_t errlen)
{
	if (strcmp(v->state, "up"))
		return lab_fail(EINVAL, err, errlen, "--lab: the lab of %s is not up (state %s): scripts/lab.sh up",
				path, *v->state ? v->state : "unknown");
	lab->nodes = lab_nodes(v);
	if (!lab->nodes || !*v->dir)
		return lab_fail(EINVAL, err, errlen, "--lab %s: no valid nodes= or dir= line", path);
	if (need_key && !*v->key)
		return lab_fail(EINVAL, err, errlen, "--lab %s: the lab has no virtual network %u (no key.%u= line)",
				path, vnet, vnet);
	snprintf(lab->key_file, sizeof(lab->key_file), "%s", v->key);
	lab->sock = calloc(lab->nodes, sizeof(*lab->sock));
	if (!lab->sock)
		return lab_fail(ENOMEM, err, errlen, "out of memory");
	for (unsigned int i = 0; i < lab->nodes; i++) {
		int n = snprintf(lab->sock[i], sizeof(lab->sock[i]), "%s/nicd/n%u.sock", v->dir, i);

		if (n < 0 || (size_t)n >= sizeof(lab->sock[i]))
			return lab_fail(ENAMETOOLONG, err, errlen, "--lab %s: the socket path of node %u is too long",
					path, i);
	}
	return 0;
}

int replay_lab_read(const char *dir, uint16_t vnet, bool need_key, struct replay_lab *lab,
		    char *err, size_t errlen)
{
	struct lab_values v = { .state = "" };
	char path[REPLAY_PATH_LEN];
	FILE *f;
	int rc;

	memset(lab, 0, sizeof(*lab));
	if (lab_path(dir, path, sizeof(path)))
		return lab_fail(ENAMETOOLONG, err, errlen, "--lab %s: path too long", dir);
	f = fopen(path, "r");
	if (!f)
		return lab_fail(errno, err, errlen, "--lab %s: %s: %s (is the lab up? scripts/lab.sh up)",
				dir, path, strerror(errno));
	lab_scan(f, vnet, &v);
	fclose(f);
	rc = lab_fill(&v, path, vnet, need_key, lab, err, errlen);
	if (rc) {
		free(lab->sock);
		lab->sock = NULL;
	}
	return rc;
}
