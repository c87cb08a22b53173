#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# segnet-replay in messages mode, end to end, and nicd's capture:
#
#   replay_messages.sh SWITCHD NICD SEGNET_REPLAY CAPTURE_SINK SAMPLE SEGNET_LUA
#
# 1. switchd on four memif server ports, one nicd serving four nodes on the
#    clients with --capture (bounded by --capture-max-mb).
# 2. segnet-replay --mode messages replays the sample through the four
#    nodes at 2000 messages/s, twice over: every message is delivered, the
#    counts per node and per channel are those the trace gives
#    (replay_messages_check.py reads the trace itself), both channels
#    carry messages, the CSV and the latency CSV agree.
# 3. Again with a map file putting 10.0.0.1 and 10.0.0.2 on node 0, at top
#    speed, every message on the bulk channel: the packets between them
#    are skipped and counted, 10.0.0.4 is unmapped, the rest arrive.
#    Then a replay that never ends, stopped by SIGINT: exit 130, and the
#    report (table and JSON) says how many messages were in flight; and a
#    slow one (nothing in flight) stopped so: the drain is "stopped", not
#    "all in".
# 4. SIGTERM stops nicd: its summary ends with the capture's line, no mbuf
#    leaked; tshark with proto/segnet.lua decodes every frame of the capture
#    as segnet, BREQ and QREQ among them (skipped without tshark).
# 5. The capture replayed in frames mode into capture_sink over memif
#    gives the same frames, byte for byte, in order.
#
# No NICs or hugepages. Everything it starts or creates goes at exit.
set -u

switchd=${1:?usage: replay_messages.sh SWITCHD NICD SEGNET_REPLAY CAPTURE_SINK SAMPLE LUA}
nicd=${2:?}
replay=${3:?}
sink=${4:?}
sample=${5:?}
lua=${6:?}
here=$(cd "$(dirname "$0")" && pwd)
compare="python3 $here/replay_compare.py"
check="python3 $here/replay_messages_check.py"

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
daemons_test rm sink rp
eal="--no-huge -m 256 --no-pci --no-shconf --no-telemetry --log-level *:warning"


# 1. switchd and one nicd serving four nodes, with --capture.
printf 'replay-key\n' >"$tmp/vnet1.key"
vdevs=
cvdevs=
ports=
nodes=
nicds=
for i in 0 1 2 3; do
	dev="net_memif$i,id=0,socket=$tmp/sw$i.sock,socket-abstract=no,bsize=4096"
	vdevs="$vdevs --vdev $dev,role=server"
	cvdevs="$cvdevs --vdev $dev,role=client"
	ports="$ports --port $i=net_memif$i"
	nodes="$nodes --node n$i:net_memif$i"
	nicds="$nicds --nicd $tmp/run/n$i.sock"
done
# shellcheck disable=SC2086
"$switchd" $eal -l 0 --file-prefix "$tag-sw" $vdevs -- --nodes 4 $ports \
	--bulk-gbps 0.1 --quick-gbps 1 >"$tmp/switchd.log" 2>&1 &
swpid=$!
for i in 0 1 2 3; do
	wait_for "$tmp/sw$i.sock" 100 "$swpid" || fail "switchd did not open its memif sockets"
done
# shellcheck disable=SC2086
"$nicd" $eal -l 1 --file-prefix "$tag-nic" $cvdevs -- $nodes \
	--vnet "1:$tmp/vnet1.key:conf3" --socket-dir "$tmp/run" \
	--capture "$tmp/nicd.pcap" --capture-max-mb 32 >"$tmp/nicd.log" 2>&1 &
nicpid=$!
for i in 0 1 2 3; do
	wait_for "$tmp/run/n$i.sock" 200 "$nicpid" || fail "nicd did not open its control sockets"
done
# nicd prints (and flushes) the line after it opened its sockets: wait for it.
wait_grep "$tmp/nicd.log" "^nicd: capturing every port of every node, both directions, into $tmp/nicd.pcap" \
	"$nicpid" || fail "nicd does not say it captures"

# 2. The sample, twice, through the four nodes.
# shellcheck disable=SC2086
"$replay" --mode messages $nicds --key-file "$tmp/vnet1.key" --pps 2000 --loop 2 \
	--csv "$tmp/report.csv" --json "$tmp/report.json" --latency-csv "$tmp/lat.csv" \
	"$sample" >"$tmp/replay.log" 2>&1
rc=$?
cat "$tmp/replay.log"
[ "$rc" = 0 ] || fail "segnet-replay exited $rc"
$check "$sample" 4 "$tmp/report.json" "$tmp/lat.csv" --loops 2 || fail "the report is wrong"
grep -q "^total,,,all,520,520,0," "$tmp/report.csv" || fail "CSV total row"
grep -q "^channel,,,quick,42,42," "$tmp/report.csv" || fail "CSV quick row"
grep -q "^channel,,,bulk,478,478," "$tmp/report.csv" || fail "CSV bulk row"
[ "$(grep -c '^node,' "$tmp/report.csv")" = 8 ] || fail "CSV: not 4 nodes x 2 channels"

# 3. A map file, every message bulk, at top speed.
printf '# two hosts on node 0\n10.0.0.1 0\n10.0.0.2 0\n10.0.0.3 1\n' >"$tmp/hosts.map"
# shellcheck disable=SC2086
"$replay" --mode messages $nicds --key-file "$tmp/vnet1.key" --topspeed \
	--map "$tmp/hosts.map" --channel bulk --json "$tmp/map.json" \
	--latency-csv "$tmp/map-lat.csv" "$sample" >"$tmp/replay-map.log" 2>&1
rc=$?
cat "$tmp/replay-map.log"
[ "$rc" = 0 ] || fail "segnet-replay --map FILE exited $rc"
$check "$sample" 4 "$tmp/map.json" "$tmp/map-lat.csv" "$tmp/hosts.map" --channel bulk ||
	fail "the --map FILE report is wrong"

# replay_interrupted NAME ARGS...: a messages-mode replay that never ends
# (--loop 0) with these options, its log $tmp/replay-NAME.log and its JSON
# $tmp/NAME.json, stopped by SIGINT a second after it began: exit 130.
replay_interrupted() {
	_name=$1
	shift
	# shellcheck disable=SC2086
	"$replay" --mode messages $nicds --key-file "$tmp/vnet1.key" --loop 0 "$@" \
		--json "$tmp/$_name.json" "$sample" >"$tmp/replay-$_name.log" 2>&1 &
	pids=$!
	wait_grep "$tmp/replay-$_name.log" "260 records, mode messages" "$pids" ||
		fail "segnet-replay ($_name) did not start its replay in 10 s"
	sleep 1
	kill -INT "$pids"
	wait_exit "$pids" 100
	pids=
	cat "$tmp/replay-$_name.log"
	[ "$st" = 130 ] || fail "segnet-replay ($_name) exited $st after SIGINT, want 130"
}

# 3b. SIGINT during a replay that never ends (every message bulk, at top
# speed, on a 0.1 Gbit/s bulk channel: always some in flight): exit 130,
# no drain, and the report says how many were still in flight, not "all in".
replay_interrupted int --topspeed --channel bulk
line=$(grep "^delivered " "$tmp/replay-int.log")
dlvd=$(echo "$line" | sed -n 's/^delivered  *\([0-9]*\) of \([0-9]*\) sent, .*/\1/p')
sent=$(echo "$line" | sed -n 's/^delivered  *\([0-9]*\) of \([0-9]*\) sent, .*/\2/p')
if [ -z "$dlvd" ] || [ "$dlvd" -ge "$sent" ]; then
	fail "SIGINT: no message in flight at the stop, or no delivered line: $line"
fi
echo "$line" | grep -q "$((sent - dlvd)) still in flight when stopped (no drain)$" ||
	fail "SIGINT: the report does not say that $((sent - dlvd)) were in flight: $line"
grep -q "\"in_flight\": $((sent - dlvd)), \"drain_end\": \"stopped\"" "$tmp/int.json" ||
	fail "SIGINT: --json does not say $((sent - dlvd)) in flight, drain stopped: $(cat "$tmp/int.json")"

# 3c. SIGINT during a slow replay that never ends (quick messages, 20 a
# second: nothing in flight at almost any moment): the drain did not run,
# and the report says so ("stopped", not "all in ... after the last send").
replay_interrupted idle --pps 20 --channel quick
grep -q "^delivered .* still in flight when stopped (no drain)$" "$tmp/replay-idle.log" ||
	fail "SIGINT with nothing in flight: the report does not say the replay was stopped"
grep -q '"drain_end": "stopped"' "$tmp/idle.json" ||
	fail "SIGINT with nothing in flight: --json drain_end is not stopped: $(cat "$tmp/idle.json")"

# 4. Stop nicd; its capture decodes as segnet.
kill -TERM "$nicpid"
wait_exit "$nicpid"
nicpid=
[ "$st" = 0 ] || fail "nicd exited with $st"
grep -q "^capture $tmp/nicd.pcap: [1-9][0-9]* frames written" "$tmp/nicd.log" ||
	fail "no capture line in nicd's summary"
grep -q "^nicd: no mbuf leaked$" "$tmp/nicd.log" || fail "nicd leak verdict"
grep "^capture " "$tmp/nicd.log"
kill -TERM "$swpid"
wait_exit "$swpid"
swpid=
[ "$st" = 0 ] || fail "switchd exited with $st"
n=$($compare count "$tmp/nicd.pcap") || fail "nicd.pcap unreadable"
echo "nicd captured $n frames"
$compare segnet "$lua" "$tmp/nicd.pcap" >"$tmp/tshark.out" 2>&1
rc=$?
cat "$tmp/tshark.out"
if [ "$rc" = 0 ]; then
	grep -q "BREQ [1-9]" "$tmp/tshark.out" || fail "no BREQ in nicd's capture"
	grep -q "QREQ [1-9]" "$tmp/tshark.out" || fail "no QREQ in nicd's capture"
elif [ "$rc" != 77 ]; then
	fail "tshark does not decode nicd.pcap"
fi

# 5. nicd's capture, replayed as frames, arrives unchanged.
sdev="net_memif0,id=0,socket=$tmp/rt.sock,socket-abstract=no,bsize=4096"
# shellcheck disable=SC2086
"$sink" $eal -l 0 --file-prefix "$tag-sink" --vdev "$sdev,role=server" -- \
	--port net_memif0 --capture "$tmp/sink.pcap" --count "$n" --timeout-ms 60000 \
	--ready-file "$tmp/sink.ready" >"$tmp/sink.log" 2>&1 &
skpid=$!
pids=$skpid
wait_for "$tmp/sink.ready" 100 "$skpid" || fail "capture_sink did not come up"
# shellcheck disable=SC2086
"$replay" $eal -l 1 --file-prefix "$tag-rp" --vdev "$sdev,role=client" -- \
	--port net_memif0 --pps 50000 "$tmp/nicd.pcap" >"$tmp/replay-frames.log" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "segnet-replay (frames) exited $rc"
wait "$skpid"
rc=$?
pids=
[ "$rc" = 0 ] || fail "capture_sink exited $rc (frames missing or extra)"
$compare same "$tmp/nicd.pcap" "$tmp/sink.pcap" || fail "the frames differ"
echo "PASS"
