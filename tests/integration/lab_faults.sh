#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab under injected faults: the protocol's guarantees hold end to
# end through the daemons, not only in segnet-sim.
#
#   lab_faults.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# Every nicd loses, duplicates, reorders and corrupts frames it sends
# (--fault), and switchd loses and corrupts frames it sends
# (--switch-fault), from the test's seed. On vnet 1 (conf4-sr) lab-app's
# 300 messages over both channels must all arrive once, intact and in send
# order, and a segnet-perf transfer on both channels must match bytes and
# hash. On vnet 2 (conf1, unreliable) the same messages must show a loss
# or a duplicate: evidence that the faults reach the applications when no
# stage repairs them. The fault
# counters of both daemons and nicd's retransmissions must have moved.
# Frames are lost, so up leaves the timer's late_floor off (it would hold
# every lost frame back) and says so.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

nicd_fault="loss=0.03,dup=0.02,reorder=0.03,corrupt=0.01,seed=$seed"
switch_fault="loss=0.02,corrupt=0.01,seed=$seed"
lab_up --nodes 3 --conf conf4-sr --vnet 2:conf1 --fault "$nicd_fault" --switch-fault "$switch_fault"
grep -q "fault injection on every frame sent: loss=0.03,dup=0.02,reorder=0.03,corrupt=0.01 (seed $seed)" \
	"$lab_dir/logs/nicd.log" || fail "nicd did not announce its faults"
grep -q "frames are lost (--fault or --switch-fault): the timer's late_floor stays off" "$tmp/up.log" ||
	fail "up did not say it leaves late_floor off under loss"
grep -qx "conf=conf4-sr" "$lab_dir/lab.state" ||
	fail "up turned late_floor on although frames are lost: $(grep '^conf=' "$lab_dir/lab.state")"

"$app" order --from n0 --to n2 --key-file "$SEGNET_LAB_KEY_1" --vnet 1 --count 300 \
	--seed "$seed" --expect in-order >"$tmp/order-conf4.log" 2>&1 ||
	fail "conf4-sr under faults: not every message once and in send order"
cat "$tmp/order-conf4.log"

perf_server 2 srv --messages 300 --duration 60
"$perf" --nicd n1 --key-file "$SEGNET_LAB_KEY" --client --node 2 --chan both --size 1500 \
	--messages 300 --window 8 --json >"$tmp/cli.json" 2>"$tmp/cli.log" ||
	fail "perf client n1 -> n2 under faults"
wait_exit "$psrv" 60
[ "$st" = 0 ] || fail "perf server exited with $st"
python3 - "$tmp" <<'PY' || fail "transfer under faults differs"
import json, sys
d = sys.argv[1]
c = json.load(open(f"{d}/cli.json"))["channels"]
s = json.load(open(f"{d}/srv.json"))["channels"]
for ch in ("bulk", "quick"):
    assert c[ch]["messages"] == 150 and c[ch]["errors"] == 0, c
    assert s[ch]["messages"] == 150 and s[ch]["corrupt"] == 0, s
    assert c[ch]["hash"] == s[ch]["hash"] and c[ch]["bytes"] == s[ch]["bytes"], (c, s)
print("n1 -> n2 under faults: 150 bulk of 1500 bytes + 150 quick, hashes match")
PY

"$app" order --from n0 --to n2 --key-file "$SEGNET_LAB_KEY_2" --vnet 2 --count 300 \
	--seed "$seed" --expect violations >"$tmp/order-conf1.log" 2>&1 ||
	fail "conf1 under faults: expected a lost or duplicated message"
cat "$tmp/order-conf1.log"

# The faults acted on every port of each daemon, and the protocol repaired
# them. Counters per port role: nicd's n0 has bulk_ and quick_ (port_ when
# both channels share a queue, on veth); switchd's sums are per role.
nic=segnet-lab-$lab_name-nicd
sw=segnet-lab-$lab_name-sw
"$stat" --prefix "$nic" --once --all --cmd /segnet/nic/stats >"$tmp/nic-stats.txt" 2>&1
"$stat" --prefix "$sw" --once --all --cmd /segnet/switch/stats >"$tmp/sw-stats.txt" 2>&1
for k in lost duplicated reordered corrupted; do
	v=$(awk -v k="$k" '$1 ~ ("^nic\\.stats\\.n0\\.[a-z]+_fault_" k "$") { s += $2; n++ }
		END { if (n) print s }' "$tmp/nic-stats.txt")
	[ "${v:-0}" -gt 0 ] || fail "nicd n0: *_fault_$k is '${v:-}', expected > 0"
done
# Each port n0 sends on (its *_tx_frames) lost frames; each port role of
# switchd (node 0's *_tx_frames in /segnet/switch/nodes) lost frames.
"$stat" --prefix "$sw" --once --all --cmd /segnet/switch/nodes,0 >"$tmp/sw-nodes.txt" 2>&1
roles=$(awk -F'[._]' '$1 == "nic" && $3 == "n0" && $0 ~ /_tx_frames / { print $4 }' "$tmp/nic-stats.txt")
sroles=$(awk '$1 ~ /_tx_frames$/ { sub(/_tx_frames$/, "", $1); n = split($1, a, "."); print a[n] }' \
	"$tmp/sw-nodes.txt")
[ -n "$roles" ] && [ -n "$sroles" ] || fail "no port counters (nicd: '$roles', switchd: '$sroles')"
for r in $roles; do
	v=$(awk -v k="nic.stats.n0.${r}_fault_lost" '$1 == k { print $2 }' "$tmp/nic-stats.txt")
	[ "${v:-0}" -gt 0 ] || fail "nicd n0: ${r}_fault_lost is '${v:-}': its $r port lost nothing"
done
for r in $sroles; do
	v=$(awk -v k="switch.stats.fault.$r.lost" '$1 == k { print $2 }' "$tmp/sw-stats.txt")
	[ "${v:-0}" -gt 0 ] || fail "switchd: fault.$r.lost is '${v:-}': its $r ports lost nothing"
done
grep -q "fault injection on every frame sent: loss=0.02,corrupt=0.01 (seed $seed)" \
	"$lab_dir/logs/sw.log" || fail "switchd did not announce its faults"
echo "fault injection lost frames on nicd n0's ports:" $roles "and switchd's:" $sroles
retx=$(tel "$nic" /segnet/nic/stats nic.stats.n0.retransmissions)
[ "${retx:-0}" -gt 0 ] || fail "nicd n0 retransmitted nothing under loss"
echo "n0: $retx retransmissions"
pass
