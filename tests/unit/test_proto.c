/* SPDX-License-Identifier: BSD-3-Clause */
/* Wire format: round trips, rejections, CRC32C, byte order. */
#include <criterion/criterion.h>
#include <string.h>

#include "proto/crc32c.h"
#include "proto/proto.h"

Test(crc32c, check_value)
{
	cr_assert_eq(crc32c("123456789", 9), 0xE3069283u);
	cr_assert_eq(crc32c_update_portable(0, "123456789", 9), 0xE3069283u);
}

Test(proto, qreq_round_trip)
{
	uint8_t args[PROTO_ARGS_LEN], buf[256];
	struct proto_pkt p = { .type = PROTO_T_QREQ, .flags = PROTO_F_DATA | PROTO_F_LAST,
		.src_node = 1, .dst_node = 2, .vnet = 7, .src_ep = 3, .dst_ep = 4,
		.handler = 9, .pkt_num = 0xFFFFFF, .args = args }, q;
	int len;

	for (int i = 0; i < PROTO_ARGS_LEN; i++)
		args[i] = (uint8_t)i;
	len = proto_encode(&p, buf, sizeof(buf));
	cr_assert_eq(len, 82);
	cr_assert_eq(proto_decode(buf, (size_t)len, NULL, &q), PROTO_R_OK);
	cr_assert_eq(q.pkt_num, 0xFFFFFF);
	cr_assert_eq(memcmp(q.args, args, PROTO_ARGS_LEN), 0);
	buf[51] ^= 1;	/* inside the arguments */
	cr_assert_eq(proto_decode(buf, (size_t)len, NULL, &q), PROTO_R_CRC);
}
