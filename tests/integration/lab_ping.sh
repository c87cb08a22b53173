#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: quick and bulk pings between the nodes of a 3-node lab.
#
#   lab_ping.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# scripts/lab.sh up brings switchd and one nicd serving n0, n1 and n2 up;
# status reports every process alive and every node joined; nicd knows
# the rate of every port up at its set-up and the lab's --quick-gbps (it
# paces QREQs at the lower); an echo
# server on n1 answers 20 quick pings from n0 and 10 bulk pings of 2048
# bytes from n2, none lost; a ping whose --timeout (50 us) is under the
# round trip counts no late echo as received; a ping to a node outside the
# cluster is refused; doc/endpoints.md's hello.c builds and runs as the
# page says. lab.sh down then leaves nothing behind.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

lab_up --nodes 3
lab status >"$tmp/status.log" 2>&1 || fail "lab.sh status on a lab that is up"
cat "$tmp/status.log"
[ "$(grep -c 'joined as node' "$tmp/status.log")" = 3 ] || fail "status: not 3 nodes joined"
[ "$(grep -c ' alive ' "$tmp/status.log")" = 2 ] || fail "status: not 2 processes alive"
grep -q "export SEGNET_SOCKET_DIR=$lab_dir/nicd" "$tmp/status.log" || fail "status: no export line"
# The counters line, a list of commands a user can paste (no trailing ';').
grep -q "^  counters: segnet-stat --prefix [^;]*; segnet-stat --prefix [^;]*$" "$tmp/status.log" ||
	fail "status: the counters line is not 'segnet-stat --prefix SW; segnet-stat --prefix NICD'"
# A nicd port whose link was up at set-up knows its rate, which paces its
# QREQs (0: unpaced): on vhost, virtio-user reports one only when its
# devargs give speed=. (A memif client's link comes up later: the rate is
# read then.)
grep -h "^port .* Mb/s" "$lab_dir"/logs/nicd*.log >"$tmp/rates.log"
cat "$tmp/rates.log"
[ "$(grep -c . "$tmp/rates.log")" = 3 ] || fail "nicd: not 3 ports set up in its log"
! grep "link up 0 Mb/s" "$tmp/rates.log" || fail "nicd: a port with no link rate (its QREQs are not paced)"
# The switch's quick rate (lab.sh --quick-gbps, default 1) paces them too:
# every virtual device says it is faster.
grep -q "^nicd: QREQs paced at most at 1 Gbit/s (--quick-gbps)" "$lab_dir"/logs/nicd*.log ||
	fail "nicd: not given the lab's --quick-gbps 1"

# doc/endpoints.md's first application, built and run as the page says.
doc="$(dirname "$lab_sh")/../doc/endpoints.md"
awk '/^## A first application/ { on = 1; next } on && /^Build it against/ { exit }
	on && /^    / { sub(/^    /, ""); print }' "$doc" >"$tmp/hello.c"
grep -q "segnet_open" "$tmp/hello.c" || fail "no hello.c in $doc"
# The build's compiler and sanitizer flags, from meson (run by hand: cc).
read -ra build_cc <<<"${SEGNET_LAB_CC:-cc}"
"${build_cc[@]}" -I "$(dirname "$lab_sh")/../nicd" "$tmp/hello.c" -o "$tmp/hello" -L "$build/nicd/lib" -lsegnet \
	>"$tmp/hello-cc.log" 2>&1 || fail "hello.c of doc/endpoints.md does not build: $(cat "$tmp/hello-cc.log")"
LD_LIBRARY_PATH="$build/nicd/lib" timeout 10 "$tmp/hello" n1 >"$tmp/hello-rx.log" 2>&1 &
hello_rx=$!
pids="$pids $hello_rx"
# The page waits 0.5 s for the receiver's endpoint; here, until nicd has it.
for ((i = 0; i < 200; i++)); do
	[ "$(tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n1 nic.stats.n1.endpoints_open)" != 1 ] || break
	sleep 0.05
done
LD_LIBRARY_PATH="$build/nicd/lib" timeout 10 "$tmp/hello" n0 1 >"$tmp/hello-tx.log" 2>&1 ||
	fail "hello n0 1: $(cat "$tmp/hello-tx.log")"
wait "$hello_rx" || fail "hello n1: $(cat "$tmp/hello-rx.log")"
grep -qx "sent: ok" "$tmp/hello-tx.log" || fail "hello n0 1 did not print 'sent: ok'"
grep -qx "from node 0 ep 0: hello" "$tmp/hello-rx.log" || fail "hello n1 did not print the message"
ping_server 1
"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 1 --count 20 --interval 5 \
	>"$tmp/ping-quick.log" 2>&1 || fail "quick ping n0 -> n1"
grep -q "20 sent, 20 received, 0% lost" "$tmp/ping-quick.log" || fail "quick pings lost"
# A timeout under the round trip (50 us: a lab's takes longer): an echo after
# it is lost, not received, and the timeout is printed as given (%g said 0.05
# for 0.05000001).
"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 1 --count 5 --interval 5 \
	--timeout 0.05000001 >"$tmp/ping-timeout.log" 2>&1
cat "$tmp/ping-timeout.log"
late=$(sed -n 's/.* time=\([0-9.]*\) us$/\1/p' "$tmp/ping-timeout.log" |
	awk '$1 > 50' | wc -l)
[ "$late" = 0 ] || fail "--timeout 0.05000001: $late echoes after 50 us counted as received"
! grep -q "within 0 ms" "$tmp/ping-timeout.log" || fail "--timeout 0.05000001 printed as 0 ms"
got=$(grep -c " time=" "$tmp/ping-timeout.log")
grep -q "5 sent, $got received" "$tmp/ping-timeout.log" ||
	fail "--timeout 0.05000001: the summary does not count the $got echoes in time"
[ "$got" = 5 ] || grep -q "no echo within 0.05000001 ms" "$tmp/ping-timeout.log" ||
	fail "--timeout 0.05000001: a lost ping not named with its timeout"
"$ping" --nicd n2 --key-file "$SEGNET_LAB_KEY" --node 1 --bulk --size 2048 --count 10 \
	--interval 5 --csv >"$tmp/ping-bulk.csv" 2>"$tmp/ping-bulk.log" || fail "bulk ping n2 -> n1"
[ "$(grep -c '^[0-9]*,2048,' "$tmp/ping-bulk.csv")" = 10 ] || fail "bulk ping: not 10 echoes of 2048 bytes"
grep -q "10 sent, 10 received" "$tmp/ping-bulk.log" || fail "bulk pings lost"
if "$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 3 --count 1 >"$tmp/ping-3.log" 2>&1; then
	fail "a ping to node 3 of 3 succeeded"
fi
grep -q -- "--node 3: not in the cluster" "$tmp/ping-3.log" || fail "node 3: not refused by name"
# Below the tool, libsegnet refuses a send beyond the cluster with EINVAL.
"$app" probe --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 3 --expect refused \
	>"$tmp/probe-3.log" 2>&1 || fail "node 3: libsegnet did not refuse the sends: $(cat "$tmp/probe-3.log")"
echo "quick n0 -> n1: $(tail -n 1 "$tmp/ping-quick.log")"
echo "bulk  n2 -> n1: $(tail -n 1 "$tmp/ping-bulk.log")"
echo "switchd: slots $(tel "$SEGNET_LAB_SWITCHD_PREFIX" /segnet/switch/stats switch.stats.slots), skipped $(tel "$SEGNET_LAB_SWITCHD_PREFIX" /segnet/switch/stats switch.stats.slots_skipped)"
pass
