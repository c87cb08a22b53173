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
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

nicd_fault="loss=0.03,dup=0.02,reorder=0.03,corrupt=0.01,seed=$seed"
switch_fault="loss=0.02,corrupt=0.01,seed=$seed"
lab_up --nodes 3 --conf conf4-sr --vnet 2:conf1 --fault "$nicd_fault" --switch-fault "$switch_fault"
grep -q "fault injection on every frame sent: loss=0.03,dup=0.02,reorder=0.03,corrupt=0.01 (seed $seed)" \
	"$lab_dir/logs/nicd.log" || fail "nicd did not announce its faults"

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

# The faults acted, and the protocol repaired them.
nic=segnet-lab-$lab_name-nicd
sw=segnet-lab-$lab_name-sw
# n0's fault counters over its ports (bulk_ and quick_, or port_ on veth).
n0_faults() {
	"$stat" --prefix "$nic" --once --all --cmd /segnet/nic/stats 2>/dev/null |
		awk -v k="$1" '$1 ~ ("^nic\\.stats\\.n0\\.[a-z]+_fault_" k "$") { s += $2; n++ }
			END { if (n) print s }'
}
for k in lost duplicated reordered corrupted; do
	v=$(n0_faults "$k")
	[ "${v:-0}" -gt 0 ] || fail "nicd n0: *_fault_$k is '${v:-}', expected > 0"
done
for k in lost corrupted; do
	v=$(tel "$sw" /segnet/switch/stats "switch.stats.fault.$k")
	[ "${v:-0}" -gt 0 ] || fail "switchd: fault.$k is '${v:-}', expected > 0"
done
retx=$(tel "$nic" /segnet/nic/stats nic.stats.n0.retransmissions)
[ "${retx:-0}" -gt 0 ] || fail "nicd n0 retransmitted nothing under loss"
echo "n0: $retx retransmissions; switchd lost $(tel "$sw" /segnet/switch/stats switch.stats.fault.lost) frames"
pass
