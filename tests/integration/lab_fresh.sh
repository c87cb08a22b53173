#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: a node whose nicd starts afresh is heard at once.
#
#   lab_fresh.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# A 3-node lab on conf1 (unreliable: a frame dropped is a ping lost) where
# n2 has a nicd of its own (--solo 1). n0 echoes pings; n2 pings it, so
# n0's connection to n2 is in use. lab.sh stop-node n2 and start-node n2:
# a new nicd process, whose connections know no epoch, while n0's
# connection moved on to the next one at n2's return (the switch's
# notice). n2's 5 quick pings to n0 right after start-node all come back:
# its first frames say FRESH and n0 takes them (rx_fresh). Before, they
# carried epoch 0, n0 dropped them as stale (rx_stale_epoch) and the
# first ping was lost.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

# A NIC counter of node $1 in nicd $2's telemetry (a prefix variable's value).
node_counter() {
	tel "$2" "/segnet/nic/stats,$1" "nic.stats.$1.$3"
}

lab_up --nodes 3 --solo 1 --conf conf1 --down-ms 300
ping_server 0
"$ping" --nicd n2 --key-file "$SEGNET_LAB_KEY" --node 0 --count 3 --interval 20 \
	>"$tmp/ping-before.log" 2>&1 || fail "pings n2 -> n0 before the restart"
lab stop-node n2 || fail "lab.sh stop-node n2"
sleep 0.5
lab start-node n2 || fail "lab.sh start-node n2"
lab_note_pids
eval "$(lab env)"
"$ping" --nicd n2 --key-file "$SEGNET_LAB_KEY" --node 0 --count 5 --interval 20 \
	--timeout 200 >"$tmp/ping-after.log" 2>&1
cat "$tmp/ping-after.log"
stale=$(node_counter n0 "$SEGNET_LAB_NICD_PREFIX" rx_stale_epoch)
fresh=$(node_counter n0 "$SEGNET_LAB_NICD_PREFIX" rx_fresh)
echo "$test_name: n0 rx_stale_epoch ${stale:-0}, rx_fresh ${fresh:-0}"
grep -q "5 sent, 5 received" "$tmp/ping-after.log" ||
	fail "pings of the fresh n2 lost (n0: rx_stale_epoch ${stale:-0})"
[ "${stale:-0}" = 0 ] || fail "n0 dropped ${stale} frames as stale"
[ "${fresh:-0}" -ge 1 ] || fail "n0 took no FRESH frame"
pass
