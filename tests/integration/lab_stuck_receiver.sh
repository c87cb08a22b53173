#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: a receiver that stops polling does not stall the traffic to
# the other endpoints of its node, in its own virtual network or another,
# bulk or quick.
#
#   lab_stuck_receiver.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# On a 2-node lab (vnet 1 and 2, conf3; vnet 1 without a retry limit, so
# that the refused quick messages are not given up), segnet-perf sends from
# n0 to a server on n1 (vnet 1) that has 4 receive buffers and does not
# poll for its first 6 s (--start-delay): n1 refuses its frames again and
# again (bulk: negative BACKs; quick: no QACK, so the sender resends).
# Meanwhile 5 pings on the same channel from n0 to an echo server on n1 in
# vnet 2 must all come back, and 5 to another echo server on n1 in vnet 1,
# on the stuck receiver's own connection. Vnet 1: n1 refuses the frames for
# the stuck endpoint alone (REFUSED): their numbers are not taken, n0 sends
# those messages again later, and the connection carries the pings
# meanwhile (doc/protocol.md, per-endpoint push-back; before, the refused
# packets kept their numbers and the window of 32 stalled the connection:
# 0 pings of 5 came back). Vnet 2, bulk: the refused connection holds its
# packets back from the target's send buffers for a while after each
# refusal, so the other connection's packets take the grants. Quick: nicd
# keeps a reserve of quick send buffers for connections that hold none
# (nicd --quick-reserve), so the refused packets never hold them all. Then
# the server polls, and every message sent reaches it. One round per
# channel, bulk first.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

lab_up --nodes 2 --conf conf3,genp:max_retx=0 --vnet 2:conf3
"$ping" --nicd n1 --key-file "$SEGNET_LAB_KEY_2" --vnet 2 --server >"$tmp/ping-server.log" 2>&1 &
srv=$!
pids="$pids $srv"
wait_grep "$tmp/ping-server.log" "echoing on node 1" "$srv" || fail "ping server on n1 (vnet 2) did not start"
"$ping" --nicd n1 --key-file "$SEGNET_LAB_KEY" --server >"$tmp/ping-server-1.log" 2>&1 &
srv1=$!
pids="$pids $srv1"
wait_grep "$tmp/ping-server-1.log" "echoing on node 1" "$srv1" ||
	fail "ping server on n1 (vnet 1) did not start"
# Endpoint ids are the node's, the lowest free one first: the ping servers
# have 0 (vnet 2) and 1 (vnet 1), and each round's perf server 2 (the one
# before has closed it).
ep=$(sed -n 's/.*echoing on node 1 endpoint \([0-9]*\) .*/\1/p' "$tmp/ping-server.log")
[ "$ep" = 0 ] || fail "the ping server has endpoint '$ep', not 0"
ep1=$(sed -n 's/.*echoing on node 1 endpoint \([0-9]*\) .*/\1/p' "$tmp/ping-server-1.log")
[ "$ep1" = 1 ] || fail "the vnet-1 ping server has endpoint '$ep1', not 1"

# One round on channel $1: the stuck receiver in vnet 1, pings in vnet 2.
stuck_round() {
	local chan=$1 before refused size=()
	# --size is the bulk payload: segnet-perf refuses it with --chan quick.
	[ "$chan" = bulk ] && size=(--size 2048)
	before=$(tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n1 nic.stats.n1.host_rx_refused)
	# Not perf_server: the banner comes after the start delay.
	"$perf" --nicd n1 --key-file "$SEGNET_LAB_KEY" --server --json --recv-buffers 4 \
		--start-delay 6000 --messages 400 --duration 60 >"$tmp/stuck-$chan.json" \
		2>"$tmp/stuck-$chan.log" &
	psrv_stuck=$!
	pids="$pids $psrv_stuck"
	sleep 0.3	# its endpoint is open
	"$perf" --nicd n0 --key-file "$SEGNET_LAB_KEY" --client --node 1 --ep 2 --chan "$chan" \
		"${size[@]}" --messages 400 --window 32 --json >"$tmp/cli-$chan.json" \
		2>"$tmp/cli-$chan.log" &
	cli=$!
	pids="$pids $cli"
	sleep 1	# the client's window is out, refused
	refused=$(tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n1 nic.stats.n1.host_rx_refused)
	refused=$((${refused:-0} - ${before:-0}))
	echo "$test_name: $chan: n1 refused $refused frames after 1 s"
	[ "$refused" -gt 0 ] || fail "$chan: n1 refused nothing: the receiver is not stuck"
	"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY_2" --vnet 2 --node 1 --ep "$ep" "--$chan" \
		--count 5 --interval 50 --timeout 1000 >"$tmp/ping-$chan.log" 2>&1
	echo "$test_name: vnet 2, $chan, while vnet 1's receiver is stuck: $(tail -n 1 "$tmp/ping-$chan.log")"
	grep -q "5 sent, 5 received, 0% lost" "$tmp/ping-$chan.log" ||
		fail "$chan pings in vnet 2 lost behind vnet 1's stuck receiver"
	"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 1 --ep "$ep1" "--$chan" \
		--count 5 --interval 50 --timeout 1000 >"$tmp/ping1-$chan.log" 2>&1
	echo "$test_name: vnet 1, endpoint $ep1, $chan, while endpoint 2 is stuck: $(tail -n 1 "$tmp/ping1-$chan.log")"
	grep -q "5 sent, 5 received, 0% lost" "$tmp/ping1-$chan.log" ||
		fail "$chan pings to another endpoint of n1 in vnet 1 lost behind its stuck receiver"
	wait_exit "$cli" 60
	[ "$st" = 0 ] || fail "$chan: perf client exited with $st: $(tail -n 2 "$tmp/cli-$chan.log")"
	wait_exit "$psrv_stuck" 60
	[ "$st" = 0 ] || fail "$chan: perf server exited with $st"
	python3 - "$tmp" "$chan" <<'PY' || fail "$chan: the stuck receiver's transfer is wrong"
import json, sys
d, ch = sys.argv[1], sys.argv[2]
c = json.load(open(f"{d}/cli-{ch}.json"))["channels"][ch]
s = json.load(open(f"{d}/stuck-{ch}.json"))["channels"][ch]
assert c["messages"] == 400 and c["errors"] == 0, c
assert s["messages"] == 400 and s["corrupt"] == 0 and c["hash"] == s["hash"], (c, s)
print(f"vnet 1: 400 {ch} messages delivered once the server polled, hash", s["hash"], "matches")
PY
}

stuck_round bulk
stuck_round quick
pass
