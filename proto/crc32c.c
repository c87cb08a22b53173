/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CRC32C with the SSE4.2 crc32 instruction when the CPU has it, and a
 * slicing-by-8 table otherwise. The choice is made once, at first use.
 *
 * One crc32 instruction takes 3 cycles before the next may use its result,
 * but a new one can start every cycle: a single chain over a 2 KiB bulk
 * frame runs at a third of the unit's speed. Long buffers are therefore
 * taken in chunks of three lanes, each with its own chain, and the lanes'
 * CRCs are joined with shift tables (CRC is linear: the register after
 * A then B is the register after A shifted over |B| zero bytes, xor the
 * register of B alone).
 */
#include <stdbool.h>
#include <string.h>

#include "crc32c.h"

/* Reflected Castagnoli polynomial. */
enum { CRC32C_POLY = 0x82F63B78 };

/* Slicing-by-8 tables, filled once. */
static uint32_t crc32c_table[8][256];

/* Lane length of the three-lane path (bytes, a multiple of 8). */
enum { CRC32C_LANE = 128 };

/*
 * crc32c_shift[k][b]: the raw register (b << 8k) carried over CRC32C_LANE
 * zero bytes. A register c shifted over a lane is the xor of the four
 * entries of its bytes.
 */
static uint32_t crc32c_shift[4][256];

/* Fill the slicing-by-8 tables. */
static void crc32c_table_init(void)
{
	for (unsigned int i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		crc32c_table[0][i] = c;
	}
	for (unsigned int i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc32c_table[t][i] = (crc32c_table[t - 1][i] >> 8) ^
				crc32c_table[0][crc32c_table[t - 1][i] & 0xff];
}

/* Portable slicing-by-8 over the raw (pre-inverted) crc. */
static uint32_t crc32c_sw(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		v ^= crc;	/* little-endian host: low bytes first */
		crc = crc32c_table[7][v & 0xff] ^
		      crc32c_table[6][(v >> 8) & 0xff] ^
		      crc32c_table[5][(v >> 16) & 0xff] ^
		      crc32c_table[4][(v >> 24) & 0xff] ^
		      crc32c_table[3][(v >> 32) & 0xff] ^
		      crc32c_table[2][(v >> 40) & 0xff] ^
		      crc32c_table[1][(v >> 48) & 0xff] ^
		      crc32c_table[0][v >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc32c_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

/* Fill the lane shift tables (after the slicing tables: they use them). */
static void crc32c_shift_init(void)
{
	static const uint8_t zeros[CRC32C_LANE];

	for (unsigned int k = 0; k < 4; k++)
		for (unsigned int b = 0; b < 256; b++)
			crc32c_shift[k][b] = crc32c_sw((uint32_t)b << (8 * k),
						       zeros, sizeof(zeros));
}

/* The raw register c carried over CRC32C_LANE zero bytes. */
static inline uint32_t crc32c_shift_lane(uint32_t c)
{
	return crc32c_shift[0][c & 0xff] ^ crc32c_shift[1][(c >> 8) & 0xff] ^
	       crc32c_shift[2][(c >> 16) & 0xff] ^ crc32c_shift[3][c >> 24];
}

#if defined(__x86_64__)
/*
 * The SSE4.2 crc32 instruction, 8 bytes at a time: chunks of three lanes
 * on three independent chains, then the rest on one.
 */
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	while (len >= 3 * CRC32C_LANE) {
		uint64_t b = 0, d = 0;

		for (size_t i = 0; i < CRC32C_LANE; i += 8) {
			uint64_t va, vb, vd;

			memcpy(&va, p + i, 8);
			memcpy(&vb, p + CRC32C_LANE + i, 8);
			memcpy(&vd, p + 2 * CRC32C_LANE + i, 8);
			c = __builtin_ia32_crc32di(c, va);
			b = __builtin_ia32_crc32di(b, vb);
			d = __builtin_ia32_crc32di(d, vd);
		}
		c = crc32c_shift_lane((uint32_t)c) ^ b;
		c = crc32c_shift_lane((uint32_t)c) ^ d;
		p += 3 * CRC32C_LANE;
		len -= 3 * CRC32C_LANE;
	}
	/* A frame's header and short bodies: 32 bytes per turn of the loop. */
	while (len >= 32) {
		uint64_t v0, v1, v2, v3;

		/* Four loads, not one copy: a copy would go through the stack. */
		memcpy(&v0, p, 8);
		memcpy(&v1, p + 8, 8);
		memcpy(&v2, p + 16, 8);
		memcpy(&v3, p + 24, 8);
		c = __builtin_ia32_crc32di(c, v0);
		c = __builtin_ia32_crc32di(c, v1);
		c = __builtin_ia32_crc32di(c, v2);
		c = __builtin_ia32_crc32di(c, v3);
		p += 32;
		len -= 32;
	}
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}

/* True when the CPU has SSE4.2. */
static bool crc32c_have_hw(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse4.2");
}
#else
/* Only x86-64 has the instruction path. */
static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	return crc32c_sw(crc, p, len);
}

/* No instruction path on other architectures. */
static bool crc32c_have_hw(void)
{
	return false;
}
#endif

/* The raw-register CRC of a buffer. */
typedef uint32_t crc32c_raw_fn(uint32_t crc, const uint8_t *p, size_t len);

static crc32c_raw_fn crc32c_first;

/* The implementation in use: crc32c_first until the first call chose one. */
static crc32c_raw_fn *crc32c_raw = crc32c_first;

/*
 * Fill the tables and choose the implementation. Threads that race here
 * fill the same values; the pointer is published after the tables.
 */
static uint32_t crc32c_first(uint32_t crc, const uint8_t *p, size_t len)
{
	crc32c_raw_fn *fn = crc32c_have_hw() ? crc32c_hw : crc32c_sw;

	crc32c_table_init();
	crc32c_shift_init();
	__atomic_store_n(&crc32c_raw, fn, __ATOMIC_RELEASE);
	return fn(crc, p, len);
}

/* Continue crc over buf with the implementation chosen (both entry points). */
static inline uint32_t crc32c_run(uint32_t crc, const void *buf, size_t len)
{
	return ~__atomic_load_n(&crc32c_raw, __ATOMIC_ACQUIRE)(~crc, buf, len);
}

uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len)
{
	return crc32c_run(crc, buf, len);
}

uint32_t crc32c_update_portable(uint32_t crc, const void *buf, size_t len)
{
	crc32c_update(0, NULL, 0);	/* make sure the tables are filled */
	return ~crc32c_sw(~crc, buf, len);
}

uint32_t crc32c(const void *buf, size_t len)
{
	return crc32c_run(0, buf, len);
}
