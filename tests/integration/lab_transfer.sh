#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: a bulk transfer whose bytes and hash match at the receiver,
# and switchd's warning about the slot boundaries a stop made it miss.
#
#   lab_transfer.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# On a 3-node lab (conf3: reliable, no duplicates), segnet-perf sends 400
# bulk messages of 2048 bytes from n0 to n2 while n1 sends 200 messages on
# both channels to n2's second endpoint; each receiver must count every
# message, every byte and the sender's hash (a sum of a hash of each
# message's number and payload), and nothing corrupt. Once the servers
# are gone, a client's report says its messages were acknowledged by n2's
# NIC, and that only a server's count says what an application received.
# Then switchd warns about slot boundaries it missed: stopped (SIGSTOP) for
# 0.15 s while bulk traffic flows, it misses the first 100 ms of the gap
# (290 of the lab's 345 us slots, in slots_skipped; the rest of a longer
# stop is slots_paused), over 8 % of the boundaries due in any one-second
# window that holds them, and the threshold is 5 %: the warning follows
# within its window, naming the share and the slot. (A stop while nothing
# is requested counts the boundaries as idle, so up to three stops; a
# warning the machine's load caused before holds the next for a minute,
# and then that one is checked.) The lab's slot is more than two
# back-off wake-ups: no start-up notice.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

lab_up --nodes 3
perf_server 2 srv-bulk --messages 400 --duration 60
s1=$psrv
perf_server 2 srv-both --messages 200 --duration 60
s2=$psrv
grep -q "server on node 2 endpoint 1" "$tmp/srv-both.log" || fail "perf server 2 not on endpoint 1"
"$perf" --nicd n1 --key-file "$SEGNET_LAB_KEY" --client --node 2 --ep 1 --chan both \
	--size 1500 --messages 200 --window 8 --json >"$tmp/cli-both.json" 2>"$tmp/cli-both.log" &
c2=$!
pids="$pids $c2"
"$perf" --nicd n0 --key-file "$SEGNET_LAB_KEY" --client --node 2 --chan bulk --size 2048 \
	--messages 400 --window 16 --json >"$tmp/cli-bulk.json" 2>"$tmp/cli-bulk.log" ||
	fail "perf client n0 -> n2"
wait_exit "$c2" 200
[ "$st" = 0 ] || fail "perf client n1 -> n2 exited with $st"
wait_exit "$s1" 200
[ "$st" = 0 ] || fail "perf server 1 exited with $st"
wait_exit "$s2" 200
[ "$st" = 0 ] || fail "perf server 2 exited with $st"
python3 - "$tmp" <<'PY' || fail "transfer results differ"
import json, sys
d = sys.argv[1]
def chans(f):
    return json.load(open(f"{d}/{f}.json"))["channels"]
c, s = chans("cli-bulk")["bulk"], chans("srv-bulk")["bulk"]
assert c["messages"] == 400 and c["errors"] == 0, c
assert s["messages"] == 400 and s["corrupt"] == 0, s
assert c["bytes"] == s["bytes"] == 400 * 2048, (c, s)
assert c["hash"] == s["hash"], (c, s)
print("n0 -> n2: 400 x 2048 bytes, hash", s["hash"], "matches;",
      round(c["msgs_per_s"]), "msg/s,", round(c["gbit_per_s"], 4), "Gbit/s")
cb, sb = chans("cli-both"), chans("srv-both")
for ch in ("bulk", "quick"):
    assert cb[ch]["messages"] == 100 and cb[ch]["errors"] == 0, cb
    assert sb[ch]["messages"] == 100 and sb[ch]["corrupt"] == 0, sb
    assert cb[ch]["hash"] == sb[ch]["hash"] and cb[ch]["bytes"] == sb[ch]["bytes"], (cb, sb)
print("n1 -> n2: 100 bulk of 1500 bytes + 100 quick, hashes match")
PY
# The servers are gone: n2's NIC acknowledges (and drops) what comes for
# their endpoints, and the client says that acknowledged is no more than that.
"$perf" --nicd n0 --key-file "$SEGNET_LAB_KEY" --client --node 2 --chan quick --messages 20 \
	>"$tmp/cli-gone.log" 2>&1 || fail "perf client n0 -> n2 with no server: $(cat "$tmp/cli-gone.log")"
grep -q "quick: 20 sent, 20 acknowledged, 0 failed" "$tmp/cli-gone.log" &&
	grep -q "the server's count says what an application received" "$tmp/cli-gone.log" ||
	fail "perf client with no server: acknowledged not explained: $(cat "$tmp/cli-gone.log")"
sw_log=$lab_dir/logs/sw.log
missed="missed [0-9.]*% of the slot boundaries due in [0-9.]* s ([0-9]* of [0-9]*, slots of 345280 ns)"
! grep -q "a slot of .* wake-up" "$sw_log" || fail "a start-up notice at the lab's 345 us slot"
if grep -q "$missed" "$sw_log"; then
	echo "switchd warned before the stop (the machine's load): $(grep "$missed" "$sw_log")"
else
	sw_pid=$(awk -F= '$1 == "proc.sw.pid" { v = $2 } END { print v }' "$lab_dir/lab.state")
	perf_server 2 srv-stop --duration 30
	s3=$psrv
	"$perf" --nicd n0 --key-file "$SEGNET_LAB_KEY" --client --node 2 --chan bulk \
		--duration 8 >"$tmp/cli-stop.log" 2>&1 &
	c3=$!
	pids="$pids $c3"
	for try in 1 2 3; do
		sleep 0.5
		kill -STOP "$sw_pid"
		sleep 0.15
		kill -CONT "$sw_pid"
		for ((i = 0; i < 25; i++)); do
			grep -q "$missed" "$sw_log" && break 2
			sleep 0.1
		done
	done
	echo "switchd stopped $try time(s) for 0.15 s: $(grep "$missed" "$sw_log")"
	grep -q "$missed" "$sw_log" || fail "no warning about missed slot boundaries after stopping switchd"
	wait_exit "$c3" 200
	kill -INT "$s3" 2>/dev/null
	wait_exit "$s3" 50
fi
grep -q "$missed: polls came more than a slot late.*or use a lower --bulk-gbps (longer slots)$" "$sw_log" ||
	fail "the warning does not give the cause and the remedies: $(grep "$missed" "$sw_log")"
pass
