#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Capture -> replay -> capture gives the same frames:
#
#   replay_roundtrip.sh SWITCHD NIC_PEERS SEGNET_REPLAY CAPTURE_SINK SEGNET_LUA
#
# 1. switchd runs with --capture on three memif ports while nic_peers (three
#    NICs) joins and exchanges messages through it: sw.pcap holds every
#    segnet frame switchd received and sent. Its exit summary must carry the
#    capture's line.
# 2. capture_sink (memif server) captures what arrives on its port, receive
#    direction only, into sink.pcap. One whose --port names no device fails
#    (exit 1) and removes its memif server's socket and runtime directory.
# 3. segnet-replay is given a copy of sw.pcap cut inside a record: it must
#    refuse it, naming that record's byte offset, and send nothing.
# 4. segnet-replay (memif client) replays sw.pcap in frames mode at
#    20,000 frames/s into the sink, which must receive exactly as many.
# 5. sink.pcap holds sw.pcap's frames byte for byte, in order; tshark with
#    proto/segnet.lua decodes every frame of both as segnet, with the same
#    counts per type (skipped without tshark).
#
# No NICs or hugepages. Everything it starts or creates goes at exit.
set -u

switchd=${1:?usage: replay_roundtrip.sh SWITCHD NIC_PEERS SEGNET_REPLAY CAPTURE_SINK LUA}
peers=${2:?}
replay=${3:?}
sink=${4:?}
lua=${5:?}
here=$(cd "$(dirname "$0")" && pwd)
compare="python3 $here/replay_compare.py"
tag=segnet-it-rt-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/segnet-rt.XXXXXX") || exit 1
pids=
eal="--no-huge -m 256 --no-pci --no-shconf --no-telemetry --log-level *:warning"

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"

cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for s in sw nic sink sinkbad rp bad; do
		rm -rf "$(dpdk_runtime_dir "$tag-$s")"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# 1. switchd with --capture, three NICs through it.
vdevs=
cvdevs=
ports=
for i in 0 1 2; do
	dev="net_memif$i,id=0,socket=$tmp/sw$i.sock,socket-abstract=no,bsize=4096"
	vdevs="$vdevs --vdev $dev,role=server"
	cvdevs="$cvdevs --vdev $dev,role=client"
	ports="$ports --port net_memif$i"
done
# shellcheck disable=SC2086
"$switchd" $eal -l 0 --file-prefix "$tag-sw" $vdevs -- --nodes 3 \
	--port 0=net_memif0 --port 1=net_memif1 --port 2=net_memif2 \
	--link-gbps 0.02 --quick-gbps 1 --down-slots 60 \
	--capture "$tmp/sw.pcap" --capture-max-mb 64 >"$tmp/switchd.log" 2>&1 &
swpid=$!
pids=$swpid
for i in 0 1 2; do
	wait_for "$tmp/sw$i.sock" 100 "$swpid" || fail "switchd did not open its memif sockets"
done
# shellcheck disable=SC2086
"$peers" $eal -l 1 --file-prefix "$tag-nic" $cvdevs -- $ports \
	--link-gbps 0.02 --down-slots 60 >"$tmp/peers.log" 2>&1 &
pppid=$!
pids="$swpid $pppid"
wait "$pppid" || fail "nic_peers failed"
kill -TERM "$swpid"
wait "$swpid" || fail "switchd exited with $?"
pids=
grep -q "^capture $tmp/sw.pcap: [1-9][0-9]* frames written" "$tmp/switchd.log" ||
	fail "no capture line in switchd's summary"
grep "^capture " "$tmp/switchd.log"
n=$($compare count "$tmp/sw.pcap") || fail "sw.pcap unreadable"
echo "switchd captured $n frames"
[ "$n" -gt 100 ] || fail "only $n frames captured"
$compare segnet "$lua" "$tmp/sw.pcap"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 77 ] || fail "tshark does not decode sw.pcap"

# 2. The sink, waiting for exactly n frames; first one whose set-up fails.
sdev="net_memif0,id=0,socket=$tmp/rt.sock,socket-abstract=no,bsize=4096"
# shellcheck disable=SC2086
"$sink" $eal -l 0 --file-prefix "$tag-sinkbad" --vdev "$sdev,role=server" -- \
	--port net_nosuch0 --capture "$tmp/bad-sink.pcap" >"$tmp/sinkbad.log" 2>&1
rc=$?
cat "$tmp/sinkbad.log"
[ "$rc" = 1 ] || fail "capture_sink exited $rc on a --port that names no device (want 1)"
[ -e "$tmp/rt.sock" ] && fail "capture_sink left its memif server's socket $tmp/rt.sock"
[ -d "$(dpdk_runtime_dir "$tag-sinkbad")" ] &&
	fail "capture_sink left its runtime directory $(dpdk_runtime_dir "$tag-sinkbad")"
# shellcheck disable=SC2086
"$sink" $eal -l 0 --file-prefix "$tag-sink" --vdev "$sdev,role=server" -- \
	--port net_memif0 --capture "$tmp/sink.pcap" --count "$n" --timeout-ms 30000 \
	--ready-file "$tmp/sink.ready" >"$tmp/sink.log" 2>&1 &
skpid=$!
pids=$skpid
wait_for "$tmp/sink.ready" 100 "$skpid" || fail "capture_sink did not come up"

# 3. A damaged trace is refused with its offset; nothing is sent.
off=$($compare cut "$tmp/sw.pcap" "$tmp/cut.pcap" $((n / 2))) || fail "cannot cut sw.pcap"
# shellcheck disable=SC2086
"$replay" $eal -l 1 --file-prefix "$tag-bad" --vdev "$sdev,role=client" -- \
	--port net_memif0 --pps 20000 "$tmp/cut.pcap" >"$tmp/bad.log" 2>&1
rc=$?
cat "$tmp/bad.log"
[ "$rc" = 1 ] || fail "segnet-replay exited $rc on a damaged trace (want 1)"
grep -q "truncated record data .* at byte offset $off (record $((n / 2))) (nothing sent)" \
	"$tmp/bad.log" || fail "the refusal does not name byte offset $off"
grep -q "^packets" "$tmp/bad.log" && fail "segnet-replay reported sending a damaged trace"

# 4. The replay.
# shellcheck disable=SC2086
"$replay" $eal -l 1 --file-prefix "$tag-rp" --vdev "$sdev,role=client" -- \
	--port net_memif0 --pps 20000 --csv "$tmp/report.csv" "$tmp/sw.pcap" \
	>"$tmp/replay.log" 2>&1
rc=$?
cat "$tmp/replay.log"
[ "$rc" = 0 ] || fail "segnet-replay exited $rc"
wait "$skpid"
rc=$?
pids=
cat "$tmp/sink.log"
[ "$rc" = 0 ] || fail "capture_sink exited $rc (frames missing or extra)"
grep -q "^$n," "$tmp/report.csv" || fail "the CSV report does not say $n packets"

# 5. Same frames, same order; tshark agrees.
$compare same "$tmp/sw.pcap" "$tmp/sink.pcap" || fail "the frames differ"
$compare segnet "$lua" "$tmp/sw.pcap" "$tmp/sink.pcap"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 77 ] || fail "tshark does not decode sink.pcap as sw.pcap"
echo "PASS"
