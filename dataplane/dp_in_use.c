/* SPDX-License-Identifier: BSD-3-Clause */
/* Is a --file-prefix or a server socket of the EAL arguments in use? (dp_in_use.h) */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_kvargs.h>

#include "dp_in_use.h"

/* The flag of a listening socket in /proc/net/unix (the kernel's __SO_ACCEPTCON). */
enum { DP_IN_USE_ACCEPTCON = 1 << 16 };

/* What the EAL arguments say about the runtime directory and its lock. */
struct dp_in_use_eal {
	const char *prefix;	/* --file-prefix (the EAL's default: rte) */
	bool shared;		/* a shared config the primary locks (no --no-shconf, --in-memory) */
	bool primary;		/* no --proc-type other than primary */
};

/*
 * The value of option name at argv[*i] ("--name VALUE" or "--name=VALUE"),
 * moving *i past it; NULL if argv[*i] is not that option.
 */
static const char *dp_in_use_value(int argc, char **argv, int *i, const char *name)
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

/* The EAL's runtime directory of prefix, as DPDK 22.11 makes it. */
static void dp_in_use_runtime_dir(const char *prefix, char *dir, size_t len)
{
	const char *base = getenv("RUNTIME_DIRECTORY");

	if (!base || !*base) {
		base = getenv("XDG_RUNTIME_DIR");
		if (getuid() == 0 || !base || !*base)
			base = getuid() == 0 ? "/var/run" : "/tmp";
	}
	snprintf(dir, len, "%s/dpdk/%s", base, prefix);
}

/* A primary process holds the config lock of the prefix: say which. */
static int dp_in_use_prefix(const struct dp_in_use_eal *e, char *err, size_t errlen)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char dir[256], path[300];
	int fd;

	if (!e->shared || !e->primary)
		return 0;
	dp_in_use_runtime_dir(e->prefix, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/config", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fcntl(fd, F_GETLK, &fl) || fl.l_type == F_UNLCK) {
		close(fd);
		return 0;
	}
	close(fd);
	snprintf(err, errlen, "EAL file prefix %s is in use by another process (pid %ld, runtime directory %s): stop it, or give this one another --file-prefix",
		 e->prefix, (long)fl.l_pid, dir);
	return -EADDRINUSE;
}

/* path (relative) made absolute in buf; NULL when it does not fit. */
static const char *dp_in_use_absolute(const char *path, char *buf, size_t len)
{
	size_t n;

	while (!strncmp(path, "./", 2))
		path += 2;
	if (!getcwd(buf, len))
		return NULL;
	n = strlen(buf);
	if ((size_t)snprintf(buf + n, len - n, "/%s", path) >= len - n)
		return NULL;
	return buf;
}

/*
 * The server socket a --vdev value's device would listen on, in sa, and
 * its type: a memif server's socket= (role=server is memif's default, and
 * so are /run/memif.sock and an abstract name; SOCK_SEQPACKET), a
 * vhost-user server's iface= (not client=1; SOCK_STREAM). A relative path
 * is made absolute in sa and kept as given in rel, of sun_path's size
 * (else rel is empty). False when the device listens on none.
 */
static bool dp_in_use_server_socket(const char *value, struct sockaddr_un *sa, int *type,
				    char *rel)
{
	const char *comma = strchr(value, ',');
	size_t nlen = comma ? (size_t)(comma - value) : strlen(value);
	struct rte_kvargs *kv = comma ? rte_kvargs_parse(comma + 1, NULL) : NULL;
	const char *path = NULL, *v;
	char cwd[PATH_MAX];
	bool abstract = false;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	rel[0] = '\0';
	if (nlen > 9 && !strncmp(value, "net_memif", 9)) {
		v = kv ? rte_kvargs_get(kv, "role") : NULL;
		*type = SOCK_SEQPACKET;
		if (!v || !strcmp(v, "server")) {
			path = kv ? rte_kvargs_get(kv, "socket") : NULL;
			path = path ? path : "/run/memif.sock";
			v = kv ? rte_kvargs_get(kv, "socket-abstract") : NULL;
			abstract = !v || !strcmp(v, "yes");
		}
	} else if (nlen > 9 && (!strncmp(value, "net_vhost", 9) || !strncmp(value, "eth_vhost", 9))) {
		v = kv ? rte_kvargs_get(kv, "client") : NULL;
		*type = SOCK_STREAM;
		if (!v || !strcmp(v, "0"))
			path = kv ? rte_kvargs_get(kv, "iface") : NULL;
	}
	/*
	 * A relative path is a file of this process's directory: compared as
	 * an absolute one, since the kernel's table shows a path as it was
	 * bound, and another process's relative path is of its own directory.
	 */
	if (path && !abstract && path[0] != '/') {
		if (strlen(path) < sizeof(sa->sun_path))
			strcpy(rel, path);
		path = dp_in_use_absolute(path, cwd, sizeof(cwd));
	}
	if (path && strlen(path) + abstract < sizeof(sa->sun_path))
		memcpy(sa->sun_path + abstract, path, strlen(path));
	else
		path = NULL;
	rte_kvargs_free(kv);
	return path != NULL;
}

/*
 * The path of a line of /proc/net/unix: after the inode and one space, to
 * the end of the line, spaces included (a path may hold them); NULL when
 * the line is not one of the table's or its socket is not bound.
 */
static char *dp_in_use_line_path(char *line, unsigned int *flags, unsigned int *type)
{
	unsigned int st;
	int at = -1;

	if (sscanf(line, "%*s %*s %*s %x %x %x %*s%n", flags, type, &st, &at) != 3 || at < 0 ||
	    line[at] != ' ')
		return NULL;
	line[at + 1 + strcspn(line + at + 1, "\n")] = '\0';
	return line + at + 1;
}

/* True when the line's path p (up to its NUL) is name, or with '@'s after it when abstract. */
static bool dp_in_use_same(const char *p, const char *name, bool abstract)
{
	size_t len = strlen(name);

	if (strncmp(p, name, len))
		return false;
	for (p += len; *p == '@' && abstract; p++)
		;
	return !*p;
}

/*
 * True when a process listens on sa, a socket of type: the kernel's table
 * of unix sockets (of this network namespace) has a listening one bound to
 * its path (an abstract name: '@', its NULs shown as '@' too), or to the
 * relative path rel (not empty) when that is a socket file in this
 * directory (a process started here bound it: the table does not say
 * where a relative path is). Not a connection: DPDK 22.11's memif server
 * panics when a client hangs up at once (its interrupt thread adds the
 * closed descriptor to epoll).
 */
static bool dp_in_use_listening(const struct sockaddr_un *sa, int type, const char *rel)
{
	bool abstract = !sa->sun_path[0];
	const char *name = abstract ? sa->sun_path + 1 : sa->sun_path;
	struct stat st;
	bool here = rel[0] && !stat(rel, &st) && S_ISSOCK(st.st_mode);
	FILE *f = fopen("/proc/net/unix", "re");
	unsigned int flags, ty;
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *p = dp_in_use_line_path(line, &flags, &ty);

		if (!p || !(flags & DP_IN_USE_ACCEPTCON) || (int)ty != type)
			continue;
		if (abstract && *p++ != '@')
			continue;
		found = dp_in_use_same(p, name, abstract) || (here && dp_in_use_same(p, rel, false));
	}
	fclose(f);
	return found;
}

/* A --vdev value whose server socket another process listens on. */
static int dp_in_use_vdev(const char *value, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	char rel[sizeof(sa.sun_path)];
	const char *comma = strchr(value, ',');
	int nlen = comma ? (int)(comma - value) : (int)strlen(value), type = SOCK_STREAM;

	if (!dp_in_use_server_socket(value, &sa, &type, rel) || !dp_in_use_listening(&sa, type, rel))
		return 0;
	snprintf(err, errlen, "--vdev %.*s: its server socket %s%s is in use by another process (one running with the same device arguments?): stop it, or give this one another socket",
		 nlen, value, sa.sun_path[0] ? "" : "@", sa.sun_path[0] ? sa.sun_path : sa.sun_path + 1);
	return -EADDRINUSE;
}

int dp_in_use_check(int argc, char **argv, char *err, size_t errlen)
{
	struct dp_in_use_eal e = { .prefix = "rte", .shared = true, .primary = true };
	const char *v;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-shconf") || !strcmp(argv[i], "--in-memory")) {
			e.shared = false;
		} else if ((v = dp_in_use_value(argc, argv, &i, "--file-prefix"))) {
			e.prefix = v;
		} else if ((v = dp_in_use_value(argc, argv, &i, "--proc-type"))) {
			e.primary = !strcmp(v, "primary");
		} else if ((v = dp_in_use_value(argc, argv, &i, "--vdev"))) {
			ret = dp_in_use_vdev(v, err, errlen);
			if (ret)
				return ret;
		}
	}
	return dp_in_use_prefix(&e, err, errlen);
}
