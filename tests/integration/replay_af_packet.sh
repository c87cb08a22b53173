#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# segnet-replay over af_packet does not report as sent a frame the port
# cannot send (the driver and the kernel drop those silently):
#
#   replay_af_packet.sh SEGNET_REPLAY CAPTURE_SINK
#
# A veth pair between two network namespaces, MTU 2200, af_packet slots of
# 2304 bytes (2272 for the frame). The trace holds frames of 9000 (longer
# than a slot), 2250 and 2215 (longer than the MTU and Ethernet header),
# 2214 and 60 bytes. segnet-replay must leave the first three out (too long,
# exit 1, the first one named up front) and send the other two, which
# capture_sink, on the other end, must receive: exactly those, nothing
# else. Root only (exit 77, skipped, otherwise). Everything it creates
# (processes, namespaces, veths, temp dir, runtime dirs) goes at exit.
set -u

replay=${1:?usage: replay_af_packet.sh SEGNET_REPLAY CAPTURE_SINK}
sink=${2:?usage: replay_af_packet.sh SEGNET_REPLAY CAPTURE_SINK}
compare="python3 $(dirname "$0")/replay_compare.py"
tag=segnet-it-rpafp-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/segnet-rpafp.XXXXXX") || exit 1
pids=
netns_a=
netns_b=
eal="--no-huge -m 256 --no-pci --no-shconf --no-telemetry --log-level *:warning"
afp="framesz=2304,blocksz=36864"

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"

cleanup() {
	kill_pids
	veth_pair_down
	rm -rf "$tmp" "$(dpdk_runtime_dir "$tag-rp")" "$(dpdk_runtime_dir "$tag-sink")"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

va=sgrpa$$
vb=sgrpb$$
veth_pair_up "$tag" "$va" "$vb"
$compare frames "$tmp/trace.pcap" 9000 2250 2215 2214 60 || fail "cannot write the trace"

# shellcheck disable=SC2086
ip netns exec "$netns_b" "$sink" $eal -l 0 --file-prefix "$tag-sink" \
	--vdev "net_af_packet0,iface=$vb,$afp" -- --port net_af_packet0 \
	--capture "$tmp/sink.pcap" --count 2 --linger-ms 500 --timeout-ms 20000 \
	--ready-file "$tmp/sink.ready" >"$tmp/sink.log" 2>&1 &
skpid=$!
pids=$skpid
wait_for "$tmp/sink.ready" 100 "$skpid" || fail "capture_sink did not come up"

# shellcheck disable=SC2086
ip netns exec "$netns_a" "$replay" $eal -l 1 --file-prefix "$tag-rp" \
	--vdev "net_af_packet0,iface=$va,$afp" -- --port net_af_packet0 --pps 100 \
	"$tmp/trace.pcap" >"$tmp/replay.log" 2>&1
rc=$?
cat "$tmp/replay.log"
[ "$rc" = 1 ] || fail "segnet-replay exited $rc with frames too long for the port (want 1)"
for word in "sends frames of 2214 bytes at most: 3 longer records left out, not sent (the first: record 0, 9000 bytes, at byte offset 24)" \
	"5 records (2 to replay)" "frames sent  *2$" \
	"too long  *3  (records longer than the port's 2214-byte frames, not sent)"; do
	grep -q -e "$word" "$tmp/replay.log" || fail "segnet-replay does not say '$word'"
done
wait "$skpid"
rc=$?
pids=
cat "$tmp/sink.log"
[ "$rc" = 0 ] || fail "capture_sink exited $rc (frames missing or extra)"
got=$($compare lengths "$tmp/sink.pcap") || fail "sink.pcap unreadable"
[ "$got" = "2214 60" ] || fail "the sink received frames of $got bytes (want 2214 60)"
echo "PASS: 2214 and 60 bytes arrived, 9000, 2250 and 2215 counted too long"
