/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dp_in_use_check: a server socket of the EAL arguments that another
 * process listens on (the kernel's sock_diag dump of listening unix
 * sockets), and a --file-prefix whose config another process locks. The
 * listeners here are this process's own sockets: the check does not ask
 * whose a socket is.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dataplane/dp_in_use.h"

/* A scratch folder of this test, removed by t_cleanup. */
static char t_dir[64];

static void t_setup(void)
{
	snprintf(t_dir, sizeof(t_dir), "/tmp/segnet-inuse.XXXXXX");
	cr_assert_not_null(mkdtemp(t_dir));
}

static void t_cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t_dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(in_use, .init = t_setup, .fini = t_cleanup);

/*
 * A socket of type bound to path (abstract: at '\0' path, its name padded
 * with NULs to the whole sun_path, as DPDK's memif binds it).
 */
static int t_bind(const char *path, int type, bool abstract)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type, 0);

	cr_assert_geq(fd, 0);
	cr_assert_lt(strlen(path) + 1, sizeof(sa.sun_path));
	memcpy(sa.sun_path + abstract, path, strlen(path));
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa,
			  abstract ? sizeof(sa) : sizeof(sa.sun_family) + strlen(path) + 1), 0,
		     "bind %s: %s", path, strerror(errno));
	return fd;
}

/* The same, listening. */
static int t_listen(const char *path, int type, bool abstract)
{
	int fd = t_bind(path, type, abstract);

	cr_assert_eq(listen(fd, 1), 0);
	return fd;
}

/* dp_in_use_check on "prog --no-shconf --vdev VDEV"; the message in err. */
static int t_check_vdev(const char *vdev, char *err, size_t errlen)
{
	char *argv[] = { "prog", "--no-shconf", "--vdev", (char *)vdev, NULL };

	err[0] = '\0';
	return dp_in_use_check(4, argv, err, errlen);
}

/* The scratch folders DIR/a and DIR/b, made; their paths in a and b (len each). */
static void t_dirs(char *a, char *b, size_t len)
{
	snprintf(a, len, "%s/a", t_dir);
	snprintf(b, len, "%s/b", t_dir);
	cr_assert_eq(mkdir(a, 0700), 0);
	cr_assert_eq(mkdir(b, 0700), 0);
}

/*
 * A path with a space in it (a --dir of the user's): the whole path is
 * compared, not its first word ("DIR/a" is not "DIR/a b/s.sock").
 */
Test(in_use, a_server_socket_path_with_a_space)
{
	char dir[128], path[160], vdev[256], err[512];
	int fd;

	snprintf(dir, sizeof(dir), "%s/a b", t_dir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	fd = t_listen(path, SOCK_SEQPACKET, false);

	snprintf(vdev, sizeof(vdev), "net_memif0,role=server,id=0,socket=%s,socket-abstract=no", path);
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), -EADDRINUSE, "%s: not found in use", path);
	cr_assert(strstr(err, path), "the message names %s: %s", path, err);

	/* The path's first word, "DIR/a", is another socket (none listens there). */
	snprintf(vdev, sizeof(vdev), "net_memif0,role=server,id=0,socket=%s/a,socket-abstract=no",
		 t_dir);
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), 0, "%s", err);
	close(fd);
}

/*
 * A relative socket path is this process's directory's: another
 * process's relative path of the same name, in another directory, is
 * another file; an absolute one there is this one; a relative one bound
 * in this directory is this one.
 */
Test(in_use, a_relative_server_socket_path)
{
	char a[128], b[128], abs[200], vdev[256], err[512];
	int fd_rel, fd_abs;

	t_dirs(a, b, sizeof(a));
	cr_assert_eq(chdir(a), 0);
	fd_rel = t_listen("s.sock", SOCK_SEQPACKET, false);	/* shown as "s.sock" */
	snprintf(abs, sizeof(abs), "%s/t.sock", b);
	fd_abs = t_listen(abs, SOCK_SEQPACKET, false);

	cr_assert_eq(chdir(b), 0);
	cr_assert_eq(t_check_vdev("net_memif0,socket=s.sock,socket-abstract=no", err, sizeof(err)),
		     0, "DIR/b/s.sock taken for DIR/a/s.sock: %s", err);
	cr_assert_eq(t_check_vdev("net_memif0,socket=t.sock,socket-abstract=no", err, sizeof(err)),
		     -EADDRINUSE, "t.sock here is %s: not found in use", abs);
	cr_assert(strstr(err, abs), "the message names %s: %s", abs, err);
	snprintf(vdev, sizeof(vdev), "net_memif0,socket=./t.sock,socket-abstract=no");
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), -EADDRINUSE, "./t.sock not found in use");

	cr_assert_eq(chdir(a), 0);
	cr_assert_eq(t_check_vdev("net_memif0,socket=s.sock,socket-abstract=no", err, sizeof(err)),
		     -EADDRINUSE, "s.sock bound here as s.sock: not found in use");
	cr_assert(strstr(err, "s.sock"), "the message names s.sock: %s", err);
	close(fd_rel);
	close(fd_abs);
}

/*
 * A socket file left here by a process gone (bound, never removed) is
 * said to be one, not in use, though a process in another directory
 * listens on the same relative name (bound to its own directory's file);
 * the driver could not bind it. So is a file that is not a socket.
 * Removed, the path is free.
 */
Test(in_use, a_stale_socket_file_here_of_a_name_listened_on_elsewhere)
{
	char a[128], b[128], err[512];
	int fd_live, fd_gone;

	t_dirs(a, b, sizeof(a));
	cr_assert_eq(chdir(b), 0);
	fd_gone = t_listen("s.sock", SOCK_SEQPACKET, false);
	close(fd_gone);					/* b/s.sock stays, stale */
	cr_assert_eq(chdir(a), 0);
	fd_live = t_listen("s.sock", SOCK_SEQPACKET, false);	/* a/s.sock, shown as "s.sock" */

	cr_assert_eq(chdir(b), 0);
	cr_assert_eq(t_check_vdev("net_memif0,socket=s.sock,socket-abstract=no", err, sizeof(err)),
		     -EEXIST, "stale DIR/b/s.sock taken for the listener on DIR/a/s.sock: %s", err);
	cr_assert(strstr(err, "b/s.sock is a socket file no process listens on"), "%s", err);
	cr_assert(strstr(err, "remove it"), "%s", err);
	cr_assert_eq(unlink("s.sock"), 0);
	cr_assert_eq(t_check_vdev("net_memif0,socket=s.sock,socket-abstract=no", err, sizeof(err)),
		     0, "%s", err);
	/* Bound, not listening yet (a server starting): held all the same. */
	fd_gone = t_bind("s.sock", SOCK_SEQPACKET, false);
	cr_assert_eq(t_check_vdev("net_memif0,socket=s.sock,socket-abstract=no", err, sizeof(err)),
		     -EADDRINUSE, "a socket bound to b/s.sock taken for a stale file: %s", err);
	close(fd_gone);
	cr_assert_eq(unlink("s.sock"), 0);
	fd_gone = open("s.sock", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	cr_assert_geq(fd_gone, 0);
	close(fd_gone);
	cr_assert_eq(t_check_vdev("net_vhost0,iface=s.sock", err, sizeof(err)), -EEXIST);
	cr_assert(strstr(err, "b/s.sock is a file that is not a socket"), "%s", err);
	cr_assert_eq(chdir(a), 0);
	cr_assert_eq(t_check_vdev("net_memif0,socket=s.sock,socket-abstract=no", err, sizeof(err)),
		     -EADDRINUSE, "DIR/a/s.sock: not found in use");
	close(fd_live);
}

/* memif and vhost-user servers, by path and abstract name; clients take none. */
Test(in_use, server_sockets_in_use_and_not)
{
	char path[160], name[64], vdev[256], err[512];
	int fd_memif, fd_vhost, fd_abs;

	snprintf(path, sizeof(path), "%s/sw0.sock", t_dir);
	fd_memif = t_listen(path, SOCK_SEQPACKET, false);
	snprintf(vdev, sizeof(vdev), "net_memif0,role=server,socket=%s,socket-abstract=no", path);
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), -EADDRINUSE);
	cr_assert(strstr(err, "--vdev net_memif0: its server socket"), "%s", err);
	/* A client connects to it: nothing of its own in use. */
	snprintf(vdev, sizeof(vdev), "net_memif0,role=client,socket=%s,socket-abstract=no", path);
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), 0, "%s", err);
	/* A vhost-user server on the file a SEQPACKET socket holds: its bind fails too. */
	snprintf(vdev, sizeof(vdev), "net_vhost0,iface=%s,queues=1", path);
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), -EADDRINUSE, "%s", err);
	close(fd_memif);
	unlink(path);

	fd_vhost = t_listen(path, SOCK_STREAM, false);
	snprintf(vdev, sizeof(vdev), "net_vhost0,iface=%s,queues=1", path);
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), -EADDRINUSE);
	snprintf(vdev, sizeof(vdev), "net_vhost0,iface=%s,client=1", path);
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), 0, "%s", err);
	close(fd_vhost);

	/* memif's default: an abstract name, shown padded with '@' by the kernel. */
	snprintf(name, sizeof(name), "/segnet-inuse-%d.sock", (int)getpid());
	fd_abs = t_listen(name, SOCK_SEQPACKET, true);
	snprintf(vdev, sizeof(vdev), "net_memif0,socket=%s", name);
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), -EADDRINUSE, "@%s not found", name);
	cr_assert(strstr(err, "socket @/segnet-inuse-"), "%s", err);
	/* A longer name that starts with it, and the name as a path: other sockets. */
	snprintf(vdev, sizeof(vdev), "net_memif0,socket=%sx", name);
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), 0, "%s", err);
	snprintf(vdev, sizeof(vdev), "net_memif0,socket=%s,socket-abstract=no", name);
	cr_assert_eq(t_check_vdev(vdev, err, sizeof(err)), 0, "%s", err);
	close(fd_abs);
}

/*
 * A --file-prefix with shared config whose config file another process
 * locks (a running primary): in use, naming that process. With
 * --no-shconf, or as a secondary, nothing is checked.
 */
Test(in_use, a_file_prefix_a_primary_locks)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char dir[160], path[200], err[512], want[64];
	char *shared[] = { "prog", "--file-prefix", "pfx", NULL };
	char *noshconf[] = { "prog", "--file-prefix=pfx", "--no-shconf", NULL };
	char *secondary[] = { "prog", "--file-prefix", "pfx", "--proc-type", "secondary", NULL };
	int fd, ready[2];
	pid_t child;
	char c;

	cr_assert_eq(setenv("RUNTIME_DIRECTORY", t_dir, 1), 0);
	snprintf(dir, sizeof(dir), "%s/dpdk", t_dir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/dpdk/pfx", t_dir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/config", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	/* Not locked: free. */
	cr_assert_eq(dp_in_use_check(3, shared, err, sizeof(err)), 0, "%s", err);

	cr_assert_eq(pipe(ready), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (!child) {
		if (fcntl(fd, F_SETLK, &fl) || write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	cr_assert_eq(read(ready[0], &c, 1), 1);
	cr_assert_eq(dp_in_use_check(3, shared, err, sizeof(err)), -EADDRINUSE);
	snprintf(want, sizeof(want), "(pid %ld,", (long)child);
	cr_assert(strstr(err, "EAL file prefix pfx is in use by another process") && strstr(err, want),
		  "%s", err);
	cr_assert_eq(dp_in_use_check(3, noshconf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dp_in_use_check(5, secondary, err, sizeof(err)), 0, "%s", err);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fd);
}
