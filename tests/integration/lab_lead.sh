#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: switchd --grant-lead carries the bulk channel over a round
# trip longer than two slots, end to end through the daemons.
#
#   lab_lead.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# switchd delays each frame it sends by 0.75 ms and every nicd each frame
# it sends by 0.75 ms (--switch-fault and --fault delay-us=750): the round
# trip from a GNT to the BREQ answering it takes 1.5 ms, 4.3 slots of 345
# us. With --grant-lead 1 the BREQ of slot k+1 is late (switchd takes it
# until slot k+2 ends): bulk messages from n0 to n2 for 3 s must fill
# under a fifth of the slots, with breq_late counted. With --grant-lead 5
# (doc/protocol.md, "Grant lead": L = ceil(round trip / slot)) they must
# carry at least 20 times as many and fill at least 0.3 of the slots (0.99
# on an idle machine; a busy loop on the same cores took it to 0.29 to 0.99,
# from run to run, by how late the daemons' polls came), with fewer BREQs
# late than forwarded and fewer early than one in fifty of those forwarded.
# None are early, idle or with a busy loop: switchd judges a BREQ by the
# time after its receive, not the time it read before (which, preempted in
# between, counted up to 12 % early). (A delay cut short by switchd's idle
# sleeps once made 14 % early on an idle machine; the daemons' fault ports
# now stamp delays with the clock at the send, dp_fault_port_set_clock, so
# that cannot come back.)
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

# Bulk from n0 to n2 for 3 s under lead $1; writes "slots/s msgs/s late
# forwarded early" to $tmp/lead-$1.txt.
run_lead() {
	local lead=$1 slot_ns
	lab_up --nodes 3 --fault delay-us=750 --switch-fault delay-us=750 --grant-lead "$lead"
	slot_ns=$(awk -F= '$1 == "slot_ns" { print $2 }' "$lab_dir/lab.state")
	perf_server 2 "srv-$lead" --duration 8
	# Under lead 1 some sends cannot complete in time: exit 1 is expected there.
	"$perf" --nicd n0 --key-file "$SEGNET_LAB_KEY" --client --node 2 --chan bulk --size 2048 \
		--window 16 --duration 3 --json >"$tmp/cli-$lead.json" 2>"$tmp/cli-$lead.log"
	[ -s "$tmp/cli-$lead.json" ] || fail "lead $lead: perf client wrote no report"
	echo "$(awk -v s="$slot_ns" 'BEGIN { printf "%.1f", 1e9 / s }')" \
		"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["channels"]["bulk"]["msgs_per_s"])' "$tmp/cli-$lead.json")" \
		"$(tel "segnet-lab-$lab_name-sw" /segnet/switch/stats switch.stats.breq_late)" \
		"$(tel "segnet-lab-$lab_name-sw" /segnet/switch/stats switch.stats.breq_forwarded)" \
		"$(tel "segnet-lab-$lab_name-sw" /segnet/switch/stats switch.stats.breq_early)" \
		>"$tmp/lead-$lead.txt"
	wait_exit "$psrv" 30
	lab_down_check || fail "lab.sh down did not clean up"
	lab_up_done=0
}

run_lead 1
read -r slots rate1 late1 fwd1 early1 <"$tmp/lead-1.txt"
echo "lead 1: $rate1 msg/s of $slots slots/s, breq_late $late1, breq_forwarded $fwd1, breq_early $early1"
awk -v r="$rate1" -v s="$slots" 'BEGIN { exit !(r < 0.2 * s) }' ||
	fail "lead 1 carried $rate1 msg/s of $slots slots/s: the delay did not make BREQs late"
[ "${late1:-0}" -gt 100 ] || fail "lead 1: breq_late is '${late1:-}', expected > 100"

run_lead 5
read -r slots rate5 late5 fwd5 early5 <"$tmp/lead-5.txt"
echo "lead 5: $rate5 msg/s of $slots slots/s, breq_late $late5, breq_forwarded $fwd5, breq_early $early5"
awk -v r="$rate5" -v r1="$rate1" -v s="$slots" 'BEGIN { exit !(r >= 0.3 * s && r >= 20 * r1) }' ||
	fail "lead 5 carried only $rate5 msg/s of $slots slots/s (lead 1: $rate1)"
[ "${late5:-0}" -lt "${fwd5:-0}" ] || fail "lead 5: $late5 BREQs late of $fwd5 forwarded"
[ "${early5:-0}" -lt $(( ${fwd5:-0} / 50 + 1 )) ] ||
	fail "lead 5: $early5 BREQs early of $fwd5 forwarded"
pass
