#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# End to end, without NICs or hugepages: switchd with three memif server
# ports on CPU 0, one nicd serving three nodes (--node) on the memif
# clients on CPU 1, and applications on libsegnet:
#
#   nicd_e2e.sh SWITCHD NICD SEGNET_PING SEGNET_PERF SEGNET_STAT
#
#   1. segnet-ping --server on node 1; quick pings from node 0 and bulk
#      pings of 2048 bytes from node 2 all come back; a ping to a node
#      outside the cluster is refused (EINVAL);
#   2. segnet-perf --server on node 2; a bulk transfer of 400 messages of
#      2048 bytes from node 0 completes without error, and the bytes and
#      the hash the receiver computed match the sender's; on an ordered
#      virtual network, a server with two receive buffers that starts late
#      still gets 30 bulk and 30 quick messages, through back-pressure;
#   3. segnet-stat reads both daemons' counters;
#   4. SIGTERM stops every process cleanly: nicd and switchd exit 0 with no
#      mbuf leaked, and the ping server sees nicd go (-ESHUTDOWN, exit 1);
#      nicd's summary names every counter once, NODE.KEY (stage counters
#      NODE.vnetID.STAGE.COUNTER).
#
# Every process runs with idle back-off and is stopped by its PID.
# Everything it starts or creates goes at exit.
set -u

switchd=${1:?usage: nicd_e2e.sh SWITCHD NICD SEGNET_PING SEGNET_PERF SEGNET_STAT}
nicd=${2:?}
ping=${3:?}
perf=${4:?}
stat=${5:?}
# A bulk slot of 0.17 ms (0.1 Gbit/s) is long next to the 100 us back-off
# sleeps; the quick channel runs at 10 Gbit/s.
gbps=0.1

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
daemons_test e2e


printf 'e2e-key\n' >"$tmp/vnet1.key"
printf 'other key' >"$tmp/vnet2.key"
vdevs=
cvdevs=
ports=
nodes=
for i in 0 1 2; do
	dev="net_memif$i,id=0,socket=$tmp/sw$i.sock,socket-abstract=no,bsize=4096"
	vdevs="$vdevs --vdev $dev,role=server"
	cvdevs="$cvdevs --vdev $dev,role=client"
	ports="$ports --port $i=net_memif$i"
	nodes="$nodes --node n$i:net_memif$i"
done

# shellcheck disable=SC2086
"$switchd" $eal -l 0 --file-prefix "$tag-sw" $vdevs -- --nodes 3 $ports \
	--link-gbps $gbps --quick-gbps 10 >"$tmp/switchd.log" 2>&1 &
swpid=$!
for i in 0 1 2; do
	wait_for "$tmp/sw$i.sock" 100 "$swpid" || fail "switchd did not open its memif sockets"
done
# shellcheck disable=SC2086
"$nicd" $eal -l 1 --file-prefix "$tag-nic" $cvdevs -- $nodes \
	--vnet "1:$tmp/vnet1.key:conf3" --vnet "2:$tmp/vnet2.key:conf4-sr,genp:max_retx=0" \
	--socket-dir "$tmp/run" --stats-interval 2 \
	>"$tmp/nicd.log" 2>&1 &
nicpid=$!
for i in 0 1 2; do
	wait_for "$tmp/run/n$i.sock" 200 "$nicpid" || fail "nicd did not open its control sockets"
done
# And for every node to join: a server opened before its node did reports
# node 65535 (seen on a loaded machine).
joined=0
for _ in $(seq 100); do
	"$stat" --prefix "$tag-nic" --once --all >"$tmp/stat-join.log" 2>&1 &&
		joined=$(grep -c "^nic.stats.n[0-2].node_id [0-2]$" "$tmp/stat-join.log")
	[ "$joined" = 3 ] && break
	kill -0 "$nicpid" 2>/dev/null || break
	sleep 0.1
done
[ "$joined" = 3 ] || fail "the nodes did not join in 10 s ($joined of 3): $(grep node_id "$tmp/stat-join.log")"
common="--key-file $tmp/vnet1.key --vnet 1"

# 1. Ping: quick from node 0, bulk from node 2, to the echo server on node 1.
# shellcheck disable=SC2086
"$ping" --nicd "$tmp/run/n1.sock" $common --server >"$tmp/ping-server.log" 2>&1 &
pingsrv=$!
pids="$pingsrv"
wait_grep "$tmp/ping-server.log" "echoing on node 1 endpoint 0" "$pingsrv" ||
	fail "ping server did not start"
# shellcheck disable=SC2086
"$ping" --nicd "$tmp/run/n0.sock" $common --node 1 --ep 0 --count 20 --interval 5 \
	>"$tmp/ping-quick.log" 2>&1 || fail "quick ping"
grep -q "20 sent, 20 received, 0% lost" "$tmp/ping-quick.log" || fail "quick ping lost echoes"
grep -q "rtt min/mean/p50/p99/max" "$tmp/ping-quick.log" || fail "no quick latency summary"
# shellcheck disable=SC2086
"$ping" --nicd "$tmp/run/n2.sock" $common --node 1 --bulk --size 2048 --count 10 \
	--interval 5 --csv >"$tmp/ping-bulk.csv" 2>"$tmp/ping-bulk.log" || fail "bulk ping"
[ "$(grep -c '^[0-9]*,2048,' "$tmp/ping-bulk.csv")" = 10 ] || fail "bulk ping: not 10 echoes of 2048 bytes"
grep -q "10 sent, 10 received" "$tmp/ping-bulk.log" || fail "bulk ping summary"
# Node 5 is outside the cluster of 3: the tool refuses it once joined,
# naming --node and the cluster.
# shellcheck disable=SC2086
if "$ping" --nicd "$tmp/run/n0.sock" $common --node 5 --count 1 >"$tmp/ping-5.log" 2>&1; then
	fail "a ping to node 5 of 3 succeeded"
fi
grep -q -- "--node 5: not in the cluster, whose 3 nodes are 0 .. 2" "$tmp/ping-5.log" || fail "node 5: not refused by name"
echo "ping quick: $(tail -1 "$tmp/ping-quick.log")"
echo "ping bulk:  $(tail -1 "$tmp/ping-bulk.log")"

# 2. A bulk transfer from node 0 to node 2, checked by bytes and hash.
# shellcheck disable=SC2086
"$perf" --nicd "$tmp/run/n2.sock" $common --server --messages 400 --duration 60 --json \
	>"$tmp/perf-server.json" 2>"$tmp/perf-server.log" &
perfsrv=$!
pids="$pingsrv $perfsrv"
wait_grep "$tmp/perf-server.log" "server on node 2 endpoint 0" "$perfsrv" ||
	fail "perf server did not start"
# shellcheck disable=SC2086
"$perf" --nicd "$tmp/run/n0.sock" $common --client --node 2 --chan bulk --size 2048 \
	--messages 400 --window 16 --json >"$tmp/perf-client.json" 2>"$tmp/perf-client.log" ||
	fail "perf client"
wait_exit "$perfsrv"
pids="$pingsrv"
[ "$st" = 0 ] || fail "perf server exited with $st"
python3 - "$tmp/perf-client.json" "$tmp/perf-server.json" <<'EOF' || fail "perf results differ"
import json, sys
cr, sr = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
c, s = cr["channels"]["bulk"], sr["channels"]["bulk"]
# Each side reports its own fields (segnet-perf(1)): none of the client's
# (window, sent, errors) in the server's report, nor the server's corrupt
# in the client's.
shared = {"messages", "bytes", "msgs_per_s", "gbit_per_s", "hash"}
assert set(cr) == {"role", "duration_s", "window", "channels"}, cr
assert set(c) == shared | {"sent", "errors", "errors_by_status"}, c
assert set(sr) == {"role", "duration_s", "channels"}, sr
assert set(s) == shared | {"corrupt"}, s
assert c["messages"] == 400 and c["errors"] == 0, c
assert s["messages"] == 400 and s["corrupt"] == 0, s
assert c["bytes"] == s["bytes"] == 400 * 2048, (c, s)
assert c["hash"] == s["hash"], (c, s)
print("perf: 400 x 2048 bytes, hash", s["hash"], "matches;",
      round(c["msgs_per_s"]), "msg/s,", round(c["gbit_per_s"], 4), "Gbit/s")
EOF

# 2b. Back-pressure: an ordered virtual network (conf4-sr, no retry limit)
# to a server with two receive buffers that waits 500 ms before polling.
# nicd refuses what it cannot take (the senders retry), holds what the
# reorder buffer releases at once, and everything arrives.
"$perf" --nicd "$tmp/run/n1.sock" --key-file "$tmp/vnet2.key" --vnet 2 --server \
	--recv-buffers 2 --start-delay 500 --messages 60 --duration 60 --json \
	>"$tmp/bp-server.json" 2>"$tmp/bp-server.log" &
bpsrv=$!
pids="$pingsrv $bpsrv"
# Its banner comes after the delay: the client starts once nicd has the
# endpoint open, so it sends while the server is not polling yet.
wait_grep "$tmp/nicd.log" "^n1: endpoint 1 opened on vnet 2 by pid $bpsrv " "$bpsrv" ||
	fail "back-pressure server did not start"
"$perf" --nicd "$tmp/run/n2.sock" --key-file "$tmp/vnet2.key" --vnet 2 --client --node 1 \
	--ep 1 --chan both --size 1000 --messages 60 --window 40 --json \
	>"$tmp/bp-client.json" 2>"$tmp/bp-client.log" || fail "back-pressure client"
wait_exit "$bpsrv"
pids="$pingsrv"
[ "$st" = 0 ] || fail "back-pressure server exited with $st"
python3 - "$tmp/bp-client.json" "$tmp/bp-server.json" <<'EOF' || fail "back-pressure results differ"
import json, sys
c = json.load(open(sys.argv[1]))["channels"]
s = json.load(open(sys.argv[2]))["channels"]
for ch in ("bulk", "quick"):
    assert c[ch]["messages"] == 30 and c[ch]["errors"] == 0, c
    assert s[ch]["messages"] == 30 and s[ch]["corrupt"] == 0, s
    assert c[ch]["hash"] == s[ch]["hash"] and c[ch]["bytes"] == s[ch]["bytes"], (c, s)
print("back-pressure: 30 bulk + 30 quick through 2 receive buffers, hashes match")
EOF

# 3. Counters through the telemetry sockets.
"$stat" --prefix "$tag-nic" --once >"$tmp/stat-nic.log" 2>&1 || fail "segnet-stat nicd"
grep -q "^nic.stats.n0.host_sends [1-9]" "$tmp/stat-nic.log" || fail "n0 sent nothing?"
grep -q "^nic.stats.n2.host_delivered [1-9]" "$tmp/stat-nic.log" || fail "n2 received nothing?"
grep -q "^nic.stats.n1.node_id 1" "$tmp/stat-nic.log" || fail "n1 is not node 1"
grep -q "^nic.stats.n1.host_rx_refused [1-9]" "$tmp/stat-nic.log" || fail "n1 never pushed back"
"$stat" --prefix "$tag-sw" --once --cmd /segnet/switch/stats >"$tmp/stat-sw.log" 2>&1 ||
	fail "segnet-stat switchd"
grep -q "^switch.stats.breq_forwarded [1-9]" "$tmp/stat-sw.log" || fail "no BREQ forwarded"

# 4. Stop: nicd first (the ping server sees it go), then switchd.
kill -TERM "$nicpid"
wait_exit "$nicpid"
nicpid=
[ "$st" = 0 ] || fail "nicd exited with $st"
grep -q "^nicd: no mbuf leaked$" "$tmp/nicd.log" || fail "nicd leak verdict"
wait_exit "$pingsrv"
pids=
[ "$st" = 1 ] || fail "ping server exited with $st, not 1 (nicd gone)"
grep -q "nicd went away" "$tmp/ping-server.log" || fail "ping server did not see nicd go"
kill -TERM "$swpid"
wait_exit "$swpid"
swpid=
[ "$st" = 0 ] || fail "switchd exited with $st"
grep -q "^switchd: no mbuf leaked$" "$tmp/switchd.log" || fail "switchd leak verdict"
grep -E "^n[0-2]\.host\.(sends|delivered|rx_refused|rx_held) " "$tmp/nicd.log"
# The summary's counters are "NODE.KEY VALUE", each key once: the stage
# counters of every virtual network under their node (n0.vnet1.genp.numbered).
grep -q "^n0\.vnet1\.genp\.numbered [1-9]" "$tmp/nicd.log" || fail "no n0.vnet1.genp counters in nicd's summary"
grep -q "^n1\.vnet2\." "$tmp/nicd.log" || fail "no n1.vnet2 stage counters in nicd's summary"
bad=$(sed -n '/^nicd: summary after/,$p' "$tmp/nicd.log" | grep "^n[0-2]\." |
	awk 'NF != 2 || seen[$1]++')
[ -z "$bad" ] || fail "summary lines that are not 'NODE.KEY VALUE' with a new key: $bad"
grep "^vnet" "$tmp/nicd.log" && fail "stage counters without their node in nicd's summary"
echo "PASS"
