/* SPDX-License-Identifier: BSD-3-Clause */
/* CRC32C (Castagnoli), as in iSCSI and ext4: the segnet frame trailer. */
#ifndef SEGNET_CRC32C_H
#define SEGNET_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC32C of buf; the standard check value of "123456789" is 0xE3069283. */
uint32_t crc32c(const void *buf, size_t len);

/* Continue a CRC32C: crc32c(ab) == crc32c_update(crc32c(a), b). */
uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len);

/* The portable table path, whatever the CPU: lets tests compare the two. */
uint32_t crc32c_update_portable(uint32_t crc, const void *buf, size_t len);

#endif
