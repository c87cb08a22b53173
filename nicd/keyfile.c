/* SPDX-License-Identifier: BSD-3-Clause */
/* Virtual-network keys: files and constant-time comparison. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "keyfile.h"

int key_read_file(const char *path, uint8_t *key, char *err, size_t errlen)
{
	uint8_t buf[KEY_MAX + 2];
	size_t len = 0;
	ssize_t got;
	int fd, e;

	memset(key, 0, KEY_MAX);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "key file %s: %s", path, strerror(e));
		return -e;
	}
	/* Read one byte more than a key with its newline to notice a long file. */
	while (len < sizeof(buf)) {
		got = read(fd, buf + len, sizeof(buf) - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			close(fd);
			snprintf(err, errlen, "key file %s: %s", path, strerror(e));
			return -e;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (len && buf[len - 1] == '\n')
		len--;
	if (len == 0) {
		snprintf(err, errlen, "key file %s is empty", path);
		return -ENODATA;
	}
	if (len > KEY_MAX) {
		snprintf(err, errlen, "key file %s holds more than %d bytes", path, KEY_MAX);
		return -E2BIG;
	}
	memcpy(key, buf, len);
	return (int)len;
}

bool key_equal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	volatile uint8_t diff = (uint8_t)((alen ^ blen) | ((alen ^ blen) >> 8));

	for (size_t i = 0; i < KEY_MAX; i++)
		diff |= a[i] ^ b[i];
	return diff == 0 && alen == blen;
}
