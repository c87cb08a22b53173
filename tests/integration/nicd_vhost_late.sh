#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# nicd started before switchd on vhost-user links, with virtio-user
# devargs that give one queue pair (no queues=) while --control-queue is on:
#
#   nicd_vhost_late.sh SWITCHD NICD SEGNET_PING
#
# nicd must say the late devices will have one receive queue (control
# frames on the data queue) and join once switchd (one queue pair per port,
# --control-queue off) appears; quick pings from node 0 to node 1 then come
# back. Before, nicd asked the late devices for two receive queues, every
# re-creation failed ("at most 1") and the nodes never joined.
#
# Every process runs with idle back-off and is stopped by its PID.
# Everything it starts or creates goes at exit.
set -u

switchd=${1:?usage: nicd_vhost_late.sh SWITCHD NICD SEGNET_PING}
nicd=${2:?}
ping=${3:?}

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
daemons_test vlate


printf 'late-key\n' >"$tmp/vnet1.key"
svdevs=
cvdevs=
ports=
nodes=
for i in 0 1; do
	svdevs="$svdevs --vdev net_vhost$i,iface=$tmp/vh$i.sock,queues=1"
	cvdevs="$cvdevs --vdev net_virtio_user$i,path=$tmp/vh$i.sock"
	ports="$ports --port $i=net_vhost$i"
	nodes="$nodes --node n$i:net_virtio_user$i"
done

# shellcheck disable=SC2086
"$nicd" $eal -l 1 --file-prefix "$tag-nic" $cvdevs -- $nodes \
	--vnet "1:$tmp/vnet1.key:conf3" --socket-dir "$tmp/run" >"$tmp/nicd.log" 2>&1 &
nicpid=$!
for i in 0 1; do
	wait_for "$tmp/run/n$i.sock" 200 "$nicpid" || fail "nicd did not open its control sockets"
done
for i in 0 1; do
	grep -q "port net_virtio_user$i: the device (not created yet) will have 1 receive queue" \
		"$tmp/nicd.log" || fail "nicd did not say net_virtio_user$i will have one receive queue"
done
# shellcheck disable=SC2086
"$switchd" $eal -l 0 --file-prefix "$tag-sw" $svdevs -- --nodes 2 $ports \
	--control-queue off --bulk-gbps 0.05 >"$tmp/switchd.log" 2>&1 &
swpid=$!
for i in 0 1; do
	wait_grep "$tmp/nicd.log" "joined as node $i of 2" "$nicpid" ||
		fail "node $i did not join in 10 s: $(grep -v VHOST "$tmp/nicd.log" | tail -3)"
done

common="--key-file $tmp/vnet1.key --vnet 1"
# shellcheck disable=SC2086
"$ping" --nicd "$tmp/run/n1.sock" $common --server >"$tmp/ping-server.log" 2>&1 &
pingsrv=$!
pids="$pingsrv"
wait_grep "$tmp/ping-server.log" "echoing on node 1 endpoint 0" "$pingsrv" ||
	fail "the ping server did not start: $(cat "$tmp/ping-server.log")"
# shellcheck disable=SC2086
"$ping" --nicd "$tmp/run/n0.sock" $common --join-wait 15000 --node 1 --count 5 --interval 20 \
	>"$tmp/ping.log" 2>&1 || fail "quick pings from node 0 to node 1 did not come back"
grep -q "5 received" "$tmp/ping.log" || fail "not every ping came back: $(tail -2 "$tmp/ping.log")"
echo "PASS: nicd first with one queue pair per late virtio-user device; joined and 5 of 5 pings came back"
