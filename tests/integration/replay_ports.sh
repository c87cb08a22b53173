#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# segnet-replay on real ports, against what capture_sink receives on the
# other end: it does not report as sent a frame the port cannot send (the
# driver and the kernel drop those silently), and it raises the port's MTU
# for a jumbo trace when the device takes it:
#
#   replay_ports.sh SEGNET_REPLAY CAPTURE_SINK af_packet|vhost
#
# af_packet: a veth pair between two network namespaces, MTU 2200,
# af_packet slots of 2304 bytes (2272 for the frame). The trace holds
# frames of 9000 (longer than a slot), 2250 and 2215 (longer than the MTU
# and Ethernet header), 2214 and 60 bytes, then VLAN-tagged ones: 2218
# bytes with an 802.1Q tag (the kernel takes 4 more bytes for it), 2219
# with one, 2218 with an 802.1ad tag and 2218 with 802.1ad + 802.1Q (no
# more bytes for those), 2218 with two 802.1Q tags (4 more bytes, not 8).
# segnet-replay must say it cannot raise af_packet's MTU for the
# 9000-byte frame and what would take it, leave the six frames the port
# cannot send out (too long, exit 1, the first one named up front) and
# send the other four, which capture_sink must receive: exactly those,
# byte for byte. Then, both ends at MTU 9000 with 9216-byte slots (what
# the message says to do), the same trace: all ten frames arrive (exit 0).
# Root only (exit 77, skipped, otherwise).
#
# vhost: segnet-replay on net_virtio_user, capture_sink on net_vhost (its
# buffers 9216 bytes: --data-room) on a vhost-user socket in a temp dir, no
# hugepages and no privileges. The trace holds frames of 9000 bytes, 9004
# with an 802.1Q tag (also MTU 8986) and 60 bytes: segnet-replay must say
# it raised the MTU from segnet's 2120 to 8986, send all three (exit 0),
# and capture_sink must receive exactly them, byte for byte. Then records of
# 0, 5, 13 and 60 bytes: the three shorter than an Ethernet header are left
# out (too short, exit 1) and only the 60-byte one arrives.
#
# Everything it creates (processes, namespaces, veths, temp dir, runtime
# dirs) goes at exit.
set -u

replay=${1:?usage: replay_ports.sh SEGNET_REPLAY CAPTURE_SINK af_packet|vhost}
sink=${2:?usage: replay_ports.sh SEGNET_REPLAY CAPTURE_SINK af_packet|vhost}
mode=${3:?usage: replay_ports.sh SEGNET_REPLAY CAPTURE_SINK af_packet|vhost}
compare="python3 $(dirname "$0")/replay_compare.py"
tag=segnet-it-rp$mode-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/segnet-rpports.XXXXXX") || exit 1
pids=
netns_a=
netns_b=
eal="--no-huge -m 256 --no-pci --no-shconf --no-telemetry --log-level *:warning"

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

# replay_into COUNT SINK_VDEV REPLAY_VDEV [SINK_ARGS...]: capture_sink on
# SINK_VDEV (in $netns_b when there is one) expecting COUNT frames, then
# segnet-replay of the trace on REPLAY_VDEV (in $netns_a); the replay's
# exit status in $rc, its output in replay.log, what the sink received in
# sink.pcap. The sink stays until the replay is gone (virtio-user writes
# to the vhost-user socket as it closes: SIGPIPE if nobody is there), then
# is stopped, and must have received exactly COUNT frames.
replay_into() {
	_count=$1
	_sdev=$2
	_rdev=$3
	shift 3
	rm -f "$tmp/sink.ready" "$tmp/sink.pcap"
	# shellcheck disable=SC2086
	${netns_b:+ip netns exec "$netns_b"} "$sink" $eal -l 0 --file-prefix "$tag-sink" \
		--vdev "$_sdev" -- --port "${_sdev%%,*}" --capture "$tmp/sink.pcap" \
		--count "$_count" --linger-ms 20000 --timeout-ms 20000 \
		--ready-file "$tmp/sink.ready" "$@" >"$tmp/sink.log" 2>&1 &
	skpid=$!
	pids=$skpid
	wait_for "$tmp/sink.ready" 100 "$skpid" || fail "capture_sink did not come up"
	# shellcheck disable=SC2086
	${netns_a:+ip netns exec "$netns_a"} "$replay" $eal -l 1 --file-prefix "$tag-rp" \
		--vdev "$_rdev" -- --port "${_rdev%%,*}" --pps 100 "$tmp/trace.pcap" \
		>"$tmp/replay.log" 2>&1
	rc=$?
	cat "$tmp/replay.log"
	kill -TERM "$skpid"
	wait "$skpid"
	_src=$?
	pids=
	cat "$tmp/sink.log"
	[ "$_src" = 0 ] || fail "capture_sink exited $_src (frames missing or extra)"
}

# say WORD...: each WORD is in replay.log.
say() {
	for _word in "$@"; do
		grep -q -e "$_word" "$tmp/replay.log" || fail "segnet-replay does not say '$_word'"
	done
}

case "$mode" in
af_packet)
	va=sgrpa$$
	vb=sgrpb$$
	afp="framesz=2304,blocksz=36864"
	veth_pair_up "$tag" "$va" "$vb"
	$compare frames "$tmp/trace.pcap" 9000 2250 2215 2214 60 2218:8100 2219:8100 2218:88a8 \
		2218:88a8:8100 2218:8100:8100 9006:88a8 || fail "cannot write the trace"
	replay_into 4 "net_af_packet0,iface=$vb,$afp" "net_af_packet0,iface=$va,$afp"
	[ "$rc" = 1 ] || fail "segnet-replay exited $rc with frames too long for the port (want 1)"
	# Record 10's 802.1ad tag adds nothing on af_packet: it needs MTU 8992 there
	# (9006 - 14), not the 8988 of a port where every tag adds 4 bytes.
	say "port net_af_packet0: the trace's longest frame (record 10, 9006 bytes) needs MTU 8992, which the port cannot have: segnet sets no MTU on net_af_packet" \
		"ip link set dev $va mtu 8992 (both ends of a veth), framesz=9216,blocksz=36864" \
		"sends frames of 2214 bytes (4 more with an 802.1Q tag, 2272 at most): 7 longer records left out, not sent (the first: record 0, 9000 bytes, at byte offset 24)" \
		"11 records (4 to replay)" "frames sent  *4$" \
		"too long  *7  (records longer than the port's frames of 2214 bytes (4 more with an 802.1Q tag, 2272 at most), not sent)"
	grep -q "MTU raised" "$tmp/replay.log" && fail "segnet-replay says it raised af_packet's MTU"
	$compare subset "$tmp/trace.pcap" "$tmp/sink.pcap" 3 4 5 9 ||
		fail "the sink did not receive exactly the frames of 2214, 60 and 2218 bytes (802.1Q)"
	echo "PASS: at MTU 2200, 2214, 60 and 2218 bytes with an 802.1Q tag (one or two) arrived;" \
		"9000, 2250, 2215, 2219 (802.1Q), 2218 (802.1ad first), 9006 (802.1ad) counted too long"

	afp="framesz=9216,blocksz=36864"
	ip -n "$netns_a" link set "$va" mtu 9000 || fail "cannot set MTU 9000"
	ip -n "$netns_b" link set "$vb" mtu 9000 || fail "cannot set MTU 9000"
	replay_into 11 "net_af_packet0,iface=$vb,$afp" "net_af_packet0,iface=$va,$afp" \
		--data-room 9216
	[ "$rc" = 0 ] || fail "segnet-replay exited $rc at MTU 9000 with 9216-byte slots (want 0)"
	say "11 records, mode frames" "frames sent  *11$"
	# The 802.1ad frames (records 7, 8 and 10) arrive with their outer TPID made
	# 0x8100: the receiving veth takes the outer tag off and DPDK's af_packet
	# receive path puts it back as 802.1Q. Only their lengths are checked.
	$compare subset "$tmp/trace.pcap" "$tmp/sink.pcap" 0 1 2 3 4 5 6 7/len 8/len 9 10/len ||
		fail "the sink did not receive every frame at MTU 9000"
	echo "PASS: at MTU 9000 with 9216-byte slots, all eleven frames (9006 bytes the longest) arrived"
	;;
vhost)
	sock=$tmp/vhost.sock
	$compare frames "$tmp/trace.pcap" 9000 9004:8100 60 || fail "cannot write the trace"
	replay_into 3 "net_vhost0,iface=$sock,queues=1" "net_virtio_user0,path=$sock,queues=1" \
		--data-room 9216
	[ "$rc" = 0 ] ||
		fail "segnet-replay exited $rc with a jumbo trace on a port that takes MTU 8986 (want 0)"
	say "port net_virtio_user0: MTU raised to 8986 (segnet's is 2120) for the trace's longest frame (record 0, 9000 bytes)" \
		"^mtu  *8986  (raised from segnet's 2120" "frames sent  *3$"
	grep -q "too long" "$tmp/replay.log" && fail "segnet-replay left frames out"
	$compare subset "$tmp/trace.pcap" "$tmp/sink.pcap" 0 1 2 || fail "the sink's frames differ"
	echo "PASS: MTU raised to 8986, frames of 9000, 9004 (tagged) and 60 bytes arrived whole"

	# Records shorter than an Ethernet header are left out, not sent as
	# runts (nor a 0-byte one as whatever the ring held): only the 60 arrives.
	$compare frames "$tmp/trace.pcap" 0 5 13 60 || fail "cannot write the trace"
	replay_into 1 "net_vhost0,iface=$sock,queues=1" "net_virtio_user0,path=$sock,queues=1"
	[ "$rc" = 1 ] || fail "segnet-replay exited $rc with records too short to send (want 1)"
	say "3 records shorter than an Ethernet header (14 bytes) left out, not sent (the first: record 0, 0 bytes, at byte offset 24)" \
		"frames sent  *1$" "too short  *3  (records shorter than an Ethernet header, 14 bytes, not sent)"
	$compare subset "$tmp/trace.pcap" "$tmp/sink.pcap" 3 || fail "the sink's frames differ"
	echo "PASS: records of 0, 5 and 13 bytes counted too short, the 60-byte one arrived"
	;;
*)
	echo "unknown mode $mode" >&2
	exit 2
	;;
esac
