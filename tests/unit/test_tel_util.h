/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the tests that read telemetry back through the EAL's socket
 * (the EAL started without --no-telemetry, with a file prefix of its own
 * and --no-shconf): connect, ask, and remove the runtime directory the EAL
 * leaves behind.
 */
#ifndef SEGNET_TEST_TEL_UTIL_H
#define SEGNET_TEST_TEL_UTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_eal.h>

/* Send cmd to the telemetry socket fd and read the reply into buf. */
static inline void tel_query(int fd, const char *cmd, char *buf, size_t len)
{
	ssize_t n;

	cr_assert_eq(write(fd, cmd, strlen(cmd)), (ssize_t)strlen(cmd));
	n = read(fd, buf, len - 1);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
}

/* Connect to this process's telemetry socket; its greeting is read into buf. */
static inline int tel_connect(char *buf, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	ssize_t n;

	cr_assert_geq(fd, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	cr_assert_eq(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), 0,
		     "%s: %s", sun.sun_path, strerror(errno));
	n = read(fd, buf, len - 1);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	return fd;
}

/* Remove an EAL runtime directory (this test's prefix only) and what is in it. */
static inline void tel_runtime_dir_remove(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

#endif
