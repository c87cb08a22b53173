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
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include <rte_kvargs.h>

#include "dp_eal.h"
#include "dp_in_use.h"

/* What the EAL arguments say about the runtime directory and its lock. */
struct dp_in_use_eal {
	const char *prefix;	/* --file-prefix (the EAL's default: rte) */
	bool shared;		/* a shared config the primary locks (no --no-shconf, --in-memory) */
	bool primary;		/* no --proc-type other than primary */
};

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
 * is of this process's directory, made absolute. False when the device
 * listens on none.
 */
static bool dp_in_use_server_socket(const char *value, struct sockaddr_un *sa, int *type)
{
	const char *comma = strchr(value, ',');
	size_t nlen = comma ? (size_t)(comma - value) : strlen(value);
	struct rte_kvargs *kv = comma ? rte_kvargs_parse(comma + 1, NULL) : NULL;
	const char *path = NULL, *v;
	char cwd[PATH_MAX];
	bool abstract = false;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
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
	if (path && !abstract && path[0] != '/')
		path = dp_in_use_absolute(path, cwd, sizeof(cwd));
	if (path && strlen(path) + abstract < sizeof(sa->sun_path))
		memcpy(sa->sun_path + abstract, path, strlen(path));
	else
		path = NULL;
	rte_kvargs_free(kv);
	return path != NULL;
}

/* What a listening socket must be bound to: an abstract name, or a socket file. */
struct dp_in_use_want {
	const char *name;	/* the abstract name, or NULL */
	struct stat file;	/* the socket file, when no name */
};

/*
 * True when the attribute a of a listening socket's message says it is
 * bound to w: its address, an abstract name ('\0', the name, NULs to its
 * end as memif pads it), or its file's inode and device (the kernel's
 * s_dev: a 12-bit major above a 20-bit minor).
 */
static bool dp_in_use_bound_to(const struct rtattr *a, const struct dp_in_use_want *w)
{
	if (w->name && a->rta_type == UNIX_DIAG_NAME) {
		const char *p = RTA_DATA(a);
		size_t len = RTA_PAYLOAD(a), nlen = strlen(w->name);

		if (len < nlen + 1 || p[0] || memcmp(p + 1, w->name, nlen))
			return false;
		for (size_t i = nlen + 1; i < len; i++)
			if (p[i])
				return false;
		return true;
	}
	if (!w->name && a->rta_type == UNIX_DIAG_VFS && RTA_PAYLOAD(a) >= sizeof(struct unix_diag_vfs)) {
		const struct unix_diag_vfs *v = RTA_DATA(a);

		return v->udiag_vfs_ino == w->file.st_ino &&
		       v->udiag_vfs_dev >> 20 == major(w->file.st_dev) &&
		       (v->udiag_vfs_dev & 0xfffff) == minor(w->file.st_dev);
	}
	return false;
}

/*
 * True when a sock_diag message of the dump is a socket bound to w: of
 * type for an abstract name, of any for a file (which no other socket can
 * bind while it is there).
 */
static bool dp_in_use_msg_bound_to(const struct nlmsghdr *h, int type,
				   const struct dp_in_use_want *w)
{
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));

	if (len < 0 || (w->name && m->udiag_type != type))
		return false;
	for (const struct rtattr *a = (const void *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (dp_in_use_bound_to(a, w))
			return true;
	return false;
}

/* What the kernel says of a server socket's address. */
enum dp_in_use_sock {
	DP_SOCK_FREE,		/* nothing bound there (or the kernel cannot say) */
	DP_SOCK_BOUND,		/* a process's socket is bound to it */
	DP_SOCK_STALE,		/* a socket file no socket is bound to */
	DP_SOCK_NOT_SOCKET,	/* a file there that is no socket */
};

/*
 * Whether a process holds sa, a socket of type: the kernel's sock_diag
 * dump of unix sockets in any state (of this network namespace; bound and
 * not listening yet blocks a bind too) has one bound to its abstract
 * name, or to the socket file at its path (by inode: a relative path is
 * of its binder's directory). A socket file that none is bound to was
 * left by a process gone: the driver's bind fails on it ("Address already
 * in use"). Not a connection: DPDK 22.11's
 * memif server panics when a client hangs up at once (its interrupt
 * thread adds the closed descriptor to epoll). Free when the kernel cannot
 * say (the EAL then fails as it would have).
 */
static enum dp_in_use_sock dp_in_use_bound(const struct sockaddr_un *sa, int type)
{
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .sdiag_family = AF_UNIX, .udiag_states = ~0U,
		       .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS },
	};
	struct dp_in_use_want w = { .name = sa->sun_path[0] ? NULL : sa->sun_path + 1 };
	long buf[8192 / sizeof(long)];
	bool found = false, done = false, all = false;
	int fd;

	if (!w.name && stat(sa->sun_path, &w.file))
		return DP_SOCK_FREE;
	if (!w.name && !S_ISSOCK(w.file.st_mode))
		return DP_SOCK_NOT_SOCKET;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return DP_SOCK_FREE;
	if (send(fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		done = true;
	while (!done && !found) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h = (const void *)buf;

		if (n <= 0)
			break;
		for (; NLMSG_OK(h, n) && !done && !found; h = NLMSG_NEXT(h, n)) {
			all = h->nlmsg_type == NLMSG_DONE;
			done = all || h->nlmsg_type == NLMSG_ERROR;
			found = !done && dp_in_use_msg_bound_to(h, type, &w);
		}
	}
	close(fd);
	if (found)
		return DP_SOCK_BOUND;
	return all && !w.name ? DP_SOCK_STALE : DP_SOCK_FREE;
}

/*
 * A --vdev value whose server socket another process holds, or whose
 * socket path holds a file the driver cannot bind.
 */
static int dp_in_use_vdev(const char *value, char *err, size_t errlen)
{
	static const char *const why[] = {
		[DP_SOCK_BOUND] = "is in use by another process (one running with the same device arguments?): stop it, or give this one another socket",
		[DP_SOCK_STALE] = "is a socket file no process listens on (left by one that ended without removing it?): remove it, or give this one another socket",
		[DP_SOCK_NOT_SOCKET] = "is a file that is not a socket: remove it, or give this one another socket",
	};
	struct sockaddr_un sa;
	const char *comma = strchr(value, ',');
	int nlen = comma ? (int)(comma - value) : (int)strlen(value), type = SOCK_STREAM;
	enum dp_in_use_sock st;

	if (!dp_in_use_server_socket(value, &sa, &type))
		return 0;
	st = dp_in_use_bound(&sa, type);
	if (st == DP_SOCK_FREE)
		return 0;
	snprintf(err, errlen, "--vdev %.*s: its server socket %s%s %s", nlen, value,
		 sa.sun_path[0] ? "" : "@", sa.sun_path[0] ? sa.sun_path : sa.sun_path + 1, why[st]);
	return st == DP_SOCK_BOUND ? -EADDRINUSE : -EEXIST;
}

int dp_in_use_check(int argc, char **argv, char *err, size_t errlen)
{
	struct dp_in_use_eal e = { .prefix = "rte", .shared = true, .primary = true };
	const char *v;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-shconf") || !strcmp(argv[i], "--in-memory")) {
			e.shared = false;
		} else if ((v = dp_eal_arg_value(argc, argv, &i, "--file-prefix"))) {
			e.prefix = v;
		} else if ((v = dp_eal_arg_value(argc, argv, &i, "--proc-type"))) {
			e.primary = !strcmp(v, "primary");
		} else if ((v = dp_eal_arg_value(argc, argv, &i, "--vdev"))) {
			ret = dp_in_use_vdev(v, err, errlen);
			if (ret)
				return ret;
		}
	}
	return dp_in_use_prefix(&e, err, errlen);
}
