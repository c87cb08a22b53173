#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: a node leaves and joins again while two others keep
# sending.
#
#   lab_churn.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# A 3-node lab where n2 has a nicd of its own (--solo 1) and switchd marks
# a silent node down after 300 ms. segnet-perf streams quick and bulk
# messages from n0 to n1 the whole time. n2 answers pings, then
# lab.sh stop-node n2 takes it away: its ping server sees nicd go, messages
# from n0 to n2 complete with SEGNET_EDOWN, lab.sh status reports it, and
# n1 keeps receiving from n0; a segnet-perf client to n2 counts its
# failures as "down" and says why hashes may then differ. lab.sh start-node n2 brings it back: it
# joins as node 2 again and answers pings. At the end the stream from n0
# to n1 had no error and its hash matches at n1.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

delivered_n1() {
	tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n1 nic.stats.n1.host_delivered
}

lab_up --nodes 3 --solo 1 --down-ms 300
perf_server 1 srv --duration 120
"$perf" --nicd n0 --key-file "$SEGNET_LAB_KEY" --client --node 1 --chan both --size 1024 \
	--duration 8 --window 4 --json >"$tmp/cli.json" 2>"$tmp/cli.log" &
pcli=$!
pids="$pids $pcli"

ping_server 2
"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 2 --count 3 --interval 20 \
	>"$tmp/ping-before.log" 2>&1 || fail "ping n0 -> n2 before it left"
d0=$(delivered_n1)

lab stop-node n2 || fail "lab.sh stop-node n2"
echo "$test_name: n2 stopped at $(elapsed) s"
wait_exit "$srv" 200
[ "$st" = 1 ] || fail "n2's ping server exited with $st, not 1"
grep -q "nicd went away" "$tmp/ping-server-n2.log" || fail "n2's ping server did not see nicd go"
"$app" probe --nicd n0 --node 2 --key-file "$SEGNET_LAB_KEY" --count 4 --expect down \
	--timeout-ms 10000 >"$tmp/probe-down.log" 2>&1 || fail "messages to the departed n2"
cat "$tmp/probe-down.log"
# segnet-perf says why its messages to n2 failed, by status, and fails.
if "$perf" --nicd n0 --key-file "$SEGNET_LAB_KEY" --client --node 2 --chan quick --messages 8 \
	--window 4 >"$tmp/perf-down.log" 2>&1; then
	fail "segnet-perf to the departed n2 exited 0"
fi
grep -q "quick: 8 sent, 0 acknowledged, 8 failed (down 8)" "$tmp/perf-down.log" ||
	fail "segnet-perf to the departed n2: failures not counted by status: $(cat "$tmp/perf-down.log")"
grep -q "hashes: the client's covers the acknowledged messages only" "$tmp/perf-down.log" ||
	fail "segnet-perf with failures does not say why the hashes may differ: $(cat "$tmp/perf-down.log")"
if lab status >"$tmp/status-down.log" 2>&1; then
	fail "lab.sh status says all is well with n2 away"
fi
grep -q "nicd-n2 .*stopped (stop-node)" "$tmp/status-down.log" || fail "status: n2's nicd not shown stopped"
grep -q "n2 .*NOT joined" "$tmp/status-down.log" || fail "status: n2 not shown down"
d1=$(delivered_n1)
echo "$test_name: n1 received $((d1 - d0)) messages from n0 while n2 was away"
[ "$d1" -gt "$d0" ] || fail "n0 -> n1 stopped while n2 was away"

lab start-node n2 || fail "lab.sh start-node n2"
echo "$test_name: n2 joined again at $(elapsed) s"
ping_server 2
"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 2 --count 3 --interval 20 \
	>"$tmp/ping-after.log" 2>&1 || fail "ping n0 -> n2 after it came back"
grep -q "3 sent, 3 received" "$tmp/ping-after.log" || fail "pings to n2 lost after it came back"
"$app" probe --nicd n1 --node 2 --key-file "$SEGNET_LAB_KEY" --count 4 --expect ok \
	>"$tmp/probe-up.log" 2>&1 || fail "messages n1 -> n2 after it came back"
cat "$tmp/probe-up.log"
d2=$(delivered_n1)
[ "$d2" -gt "$d1" ] || fail "n0 -> n1 stopped after n2 came back"

wait_exit "$pcli" 200
[ "$st" = 0 ] || fail "the stream n0 -> n1 exited with $st"
kill -INT "$psrv"
wait_exit "$psrv" 200
downs=$(tel "$SEGNET_LAB_SWITCHD_PREFIX" /segnet/switch/stats switch.stats.downs)
joins=$(tel "$SEGNET_LAB_SWITCHD_PREFIX" /segnet/switch/stats switch.stats.joins)
echo "switchd: downs $downs, joins $joins"
[ "${downs:-0}" -ge 1 ] && [ "${joins:-0}" -ge 4 ] || fail "switchd did not see n2 leave and join"
python3 - "$tmp/cli.json" "$tmp/srv.json" <<'PY' || fail "the stream n0 -> n1 lost or corrupted messages"
import json, sys
c = json.load(open(sys.argv[1]))["channels"]
s = json.load(open(sys.argv[2]))["channels"]
for ch in ("bulk", "quick"):
    assert c[ch]["messages"] > 0 and c[ch]["errors"] == 0, c
    assert s[ch]["messages"] == c[ch]["messages"] and s[ch]["corrupt"] == 0, (c, s)
    assert c[ch]["hash"] == s[ch]["hash"], (c, s)
print("n0 -> n1 during the churn: %d bulk + %d quick, no error, hashes match"
      % (c["bulk"]["messages"], c["quick"]["messages"]))
PY
pass
