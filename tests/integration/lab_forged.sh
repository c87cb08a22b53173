#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: switchd drops frames with a forged source node.
#
#   lab_forged.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# A 3-node lab where n2 has a nicd of its own (--solo 1). lab.sh stop-node
# n2 frees n2's switch port; lab-inject (a small DPDK program) takes it
# with the EAL arguments lab.sh attach prints and sends 5 QREQs that claim
# to come from node 1, for node 0. switchd's telemetry must count exactly
# 5 more forged_src, and n0 must receive none of them. Then n2 comes back
# on its port (lab.sh start-node) and answers pings.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

count=5
inj_prefix=segnet-lab-$lab_name-inject
lab_up --nodes 3 --solo 1
f0=$(tel "$SEGNET_LAB_SWITCHD_PREFIX" /segnet/switch/stats switch.stats.forged_src)
r0=$(tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n0 nic.stats.n0.host_rx_no_endpoint)
lab stop-node n2 || fail "lab.sh stop-node n2"
lab attach n2 >"$tmp/attach.log" 2>&1 || fail "lab.sh attach n2"
cat "$tmp/attach.log"
# netns, vdev, port, eal and control_queue, as shell assignments.
# shellcheck disable=SC1091
. "$tmp/attach.log"
rxq=1
# shellcheck disable=SC2154
[ "$control_queue" = on ] && rxq=2
ns=()
[ -n "${netns:-}" ] && ns=(ip netns exec "$netns")
# shellcheck disable=SC2086,SC2154
"${ns[@]}" "$inject" $eal -l 0 --file-prefix "$inj_prefix" --log-level lib.telemetry:error \
	--log-level lib.vhost.config:warning --vdev "$vdev" -- --port "$port" --src 1 --dst 0 \
	--count "$count" --rx-queues "$rxq" >"$tmp/inject.log" 2>&1
st=$?
for rd in "/var/run/dpdk/$inj_prefix" "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$inj_prefix"; do
	rm -rf "$rd"
done
cat "$tmp/inject.log"
[ "$st" = 0 ] || fail "lab-inject exited with $st"
sleep 0.2
f1=$(tel "$SEGNET_LAB_SWITCHD_PREFIX" /segnet/switch/stats switch.stats.forged_src)
r1=$(tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n0 nic.stats.n0.host_rx_no_endpoint)
echo "switchd forged_src: $f0 before, $f1 after; n0 host_rx_no_endpoint: $r0 before, $r1 after"
[ $((f1 - f0)) = "$count" ] || fail "switchd counted $((f1 - f0)) forged frames, not $count"
[ "$r1" = "$r0" ] || fail "a forged frame reached n0"

lab start-node n2 || fail "lab.sh start-node n2"
ping_server 2
"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 2 --count 3 --interval 20 \
	>"$tmp/ping.log" 2>&1 || fail "ping n0 -> n2 after the injection"
cat "$tmp/ping.log"
pass
