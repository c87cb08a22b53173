#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: CONF4 delivers in send order across both channels; CONF3
# does not.
#
#   lab_order.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# One lab, two virtual networks: 1 on conf4-sr, 2 on conf3. lab-app sends
# 300 messages numbered in send order from n0 to n2, each on the quick or
# the bulk channel as the seed picks. On vnet 1 they must all arrive in
# send order; on vnet 2 some quick message must overtake a bulk one (bulk
# messages wait for a slot): evidence that the check can fail.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

lab_up --nodes 3 --conf conf4-sr --vnet 2:conf3
"$app" order --from n0 --to n2 --key-file "$SEGNET_LAB_KEY_1" --vnet 1 --count 300 \
	--seed "$seed" --expect in-order >"$tmp/order-conf4.log" 2>&1 ||
	fail "conf4-sr: not in send order"
cat "$tmp/order-conf4.log"
"$app" order --from n0 --to n2 --key-file "$SEGNET_LAB_KEY_2" --vnet 2 --count 300 \
	--seed "$seed" --expect reordered >"$tmp/order-conf3.log" 2>&1 ||
	fail "conf3: expected quick messages to overtake bulk ones"
cat "$tmp/order-conf3.log"
pass
