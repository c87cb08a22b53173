#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: a wrong key is refused.
#
#   lab_keys.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# On a lab with two virtual networks (each with its own random key from
# lab.sh), segnet_open with vnet 1's key opens an endpoint; with one byte
# changed, one byte short or vnet 2's key it fails with EACCES; a network
# the lab does not serve fails with ENOENT. segnet-ping with a wrong key
# says so and exits 1.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

lab_up --nodes 3 --vnet 2:conf3
"$app" keys --nicd n0 --key-file "$SEGNET_LAB_KEY_1" --vnet 1 \
	--other-key-file "$SEGNET_LAB_KEY_2" >"$tmp/keys.log" 2>&1 || fail "keys"
cat "$tmp/keys.log"
[ "$(grep -c 'EACCES\|Permission denied' "$tmp/keys.log")" -ge 3 ] || fail "not 3 EACCES refusals"
if "$ping" --nicd n1 --key-file "$SEGNET_LAB_KEY_2" --vnet 1 --node 0 --count 1 \
	>"$tmp/ping-badkey.log" 2>&1; then
	fail "segnet-ping with vnet 2's key on vnet 1 succeeded"
fi
grep -q "wrong key for this virtual network" "$tmp/ping-badkey.log" ||
	fail "segnet-ping did not say the key is wrong"
cat "$tmp/ping-badkey.log"
bad_key=$(tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n0 nic.stats.n0.host_open_bad_key)
no_vnet=$(tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n0 nic.stats.n0.host_open_no_vnet)
echo "nicd n0: host_open_bad_key $bad_key, host_open_no_vnet $no_vnet"
[ "$bad_key" = 3 ] && [ "$no_vnet" = 1 ] || fail "nicd did not count the refusals"
pass
