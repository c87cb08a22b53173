/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual-network keys: reading one from a file (nicd's --vnet, the tools'
 * --key-file) and comparing two in constant time. No DPDK here.
 */
#ifndef SEGNET_KEYFILE_H
#define SEGNET_KEYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	KEY_MAX = 64,	/* bytes of a key */
};

/*
 * Read the key in file path into key (KEY_MAX bytes): the file's bytes,
 * without one trailing newline. Returns its length (1 .. KEY_MAX) or
 * -errno with a message naming the file in err: missing or unreadable
 * (-errno of open/read), empty (-ENODATA), longer than KEY_MAX (-E2BIG).
 */
int key_read_file(const char *path, uint8_t *key, char *err, size_t errlen);

/*
 * True when a (alen bytes) equals b (blen bytes). Takes the same time
 * whatever the contents and wherever they differ: it always reads
 * KEY_MAX bytes of both (which must be that large, zero-padded).
 */
bool key_equal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

#endif
