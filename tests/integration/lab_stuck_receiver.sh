#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: a receiver that stops polling does not stall another
# virtual network's bulk traffic to its node.
#
#   lab_stuck_receiver.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# On a 2-node lab (vnet 1 and 2, conf3), segnet-perf sends bulk from n0 to
# a server on n1 (vnet 1) that has 4 receive buffers and does not poll for
# its first 6 s (--start-delay): n1 refuses its BREQs with negative BACKs,
# again and again. Meanwhile 5 bulk pings from n0 to an echo server on n1 in
# vnet 2 must all come back: the refused connection holds its packets back
# from the target's send buffers for a while after each refusal, so the
# other connection's packets take the grants. Then the server polls, and
# every message sent reaches it.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

lab_up --nodes 2 --conf conf3 --vnet 2:conf3
# Not perf_server: the banner comes after the start delay.
"$perf" --nicd n1 --key-file "$SEGNET_LAB_KEY" --server --json --recv-buffers 4 \
	--start-delay 6000 --messages 400 --duration 60 >"$tmp/stuck.json" 2>"$tmp/stuck.log" &
psrv_stuck=$!
pids="$pids $psrv_stuck"
sleep 0.3	# its endpoint is open
"$perf" --nicd n0 --key-file "$SEGNET_LAB_KEY" --client --node 1 --chan bulk --size 2048 \
	--messages 400 --window 32 --json >"$tmp/cli.json" 2>"$tmp/cli.log" &
cli=$!
pids="$pids $cli"
"$ping" --nicd n1 --key-file "$SEGNET_LAB_KEY_2" --vnet 2 --server >"$tmp/ping-server.log" 2>&1 &
srv=$!
pids="$pids $srv"
wait_grep "$tmp/ping-server.log" "echoing on node 1" "$srv" || fail "ping server on n1 (vnet 2) did not start"
# Endpoint ids are the node's: the perf server has 0.
ep=$(sed -n 's/.*echoing on node 1 endpoint \([0-9]*\) .*/\1/p' "$tmp/ping-server.log")
sleep 1	# the client's window is out, refused
refused=$(tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n1 nic.stats.n1.host_rx_refused)
echo "$test_name: n1 refused ${refused:-?} frames after 1 s"
[ "${refused:-0}" -gt 0 ] || fail "n1 refused nothing: the receiver is not stuck"
"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY_2" --vnet 2 --node 1 --ep "$ep" --bulk --count 5 \
	--interval 50 --timeout 1000 >"$tmp/ping.log" 2>&1
echo "$test_name: vnet 2, bulk, while vnet 1's receiver is stuck: $(tail -n 1 "$tmp/ping.log")"
grep -q "5 sent, 5 received, 0% lost" "$tmp/ping.log" || fail "bulk pings in vnet 2 lost behind vnet 1's stuck receiver"
wait_exit "$cli" 60
[ "$st" = 0 ] || fail "perf client exited with $st: $(tail -n 2 "$tmp/cli.log")"
wait_exit "$psrv_stuck" 60
[ "$st" = 0 ] || fail "perf server exited with $st"
python3 - "$tmp" <<'PY' || fail "the stuck receiver's transfer is wrong"
import json, sys
d = sys.argv[1]
c = json.load(open(f"{d}/cli.json"))["channels"]["bulk"]
s = json.load(open(f"{d}/stuck.json"))["channels"]["bulk"]
assert c["messages"] == 400 and c["errors"] == 0, c
assert s["messages"] == 400 and s["corrupt"] == 0 and c["hash"] == s["hash"], (c, s)
print("vnet 1: 400 bulk messages delivered once the server polled, hash", s["hash"], "matches")
PY
pass
