#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Two processes exchange every segnet frame length both ways through
# dp_ethdev ports (ethdev_peer, one server, one client), without NICs or
# hugepages:
#
#   ethdev_pair.sh ETHDEV_PEER memif      net_memif, socket file in a temp dir
#   ethdev_pair.sh ETHDEV_PEER vhost      net_vhost (server) and
#                                         net_virtio_user (client) on a
#                                         vhost-user socket in a temp dir
#   ethdev_pair.sh ETHDEV_PEER af_packet  net_af_packet on a veth pair between
#                                         two network namespaces (root only;
#                                         exit 77, skipped, otherwise)
#
# Each process runs its own EAL: --no-huge --no-shconf and a --file-prefix
# of its own, so the two (and any other DPDK program) never share runtime
# files or telemetry sockets. The memif run also reads the server's
# counters with dpdk-telemetry.py while it waits. Everything it creates
# (processes, namespaces, veths, temp dir, runtime dirs) goes at exit.
set -u

peer=${1:?usage: ethdev_pair.sh ETHDEV_PEER memif|af_packet}
mode=${2:?usage: ethdev_pair.sh ETHDEV_PEER memif|af_packet}
tag=segnet-it-$mode-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/segnet-ethdev.XXXXXX") || exit 1
pids=
netns_a=
netns_b=
eal="--no-huge -m 128 --no-pci --no-shconf --log-level lib.telemetry:error \
	--log-level lib.vhost.config:warning"

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"

cleanup() {
	kill_pids
	veth_pair_down
	rm -rf "$tmp" "$(dpdk_runtime_dir "$tag-s")" "$(dpdk_runtime_dir "$tag-c")"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# Read the server's counters through telemetry while it holds.
check_telemetry() {
	if ! command -v dpdk-telemetry.py >/dev/null 2>&1; then
		echo "dpdk-telemetry.py not installed: telemetry not checked"
		return 0
	fi
	echo /segnet/peer/stats | dpdk-telemetry.py -f "$tag-s" >"$tmp/telemetry.json" 2>&1
	python3 - "$tmp/telemetry.json" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
reply = json.loads(text[text.index('{'):])["/segnet/peer/stats"]
port = next(v for v in reply.values() if isinstance(v, dict))
assert reply["exchanged"] > 0 and reply["wrong"] == 0, reply
assert port["rx_frames"] >= reply["exchanged"], reply
print("telemetry:", json.dumps(reply))
EOF
}

# Run server and client (commands in $server_cmd / $client_cmd); 0 if both pass.
run_pair() {
	sh -c "$server_cmd" >"$tmp/server.log" 2>&1 &
	spid=$!
	pids="$spid"
	if [ -n "${server_ready:-}" ] && ! wait_for "$server_ready" 100 "$spid"; then
		echo "server did not come up"
	fi
	sh -c "$client_cmd" >"$tmp/client.log" 2>&1 &
	cpid=$!
	pids="$spid $cpid"
	tel=0
	if wait_for "$tmp/server.done" 400 "$spid"; then
		check_telemetry || tel=1
	fi
	touch "$tmp/release"
	wait "$cpid"
	crc=$?
	wait "$spid"
	src=$?
	pids=
	echo "--- server (exit $src)"
	cat "$tmp/server.log"
	echo "--- client (exit $crc)"
	cat "$tmp/client.log"
	[ "$src" = 0 ] && [ "$crc" = 0 ] && [ "$tel" = 0 ]
}

# Common arguments of both ends after the EAL's.
peer_args="--timeout-ms 30000 --link-wait-ms 10000"

case "$mode" in
memif)
	sock=$tmp/memif.sock
	dev="net_memif0,id=0,socket=$sock,socket-abstract=no"
	server_cmd="exec $peer $eal -l 0 --file-prefix $tag-s --vdev $dev,role=server -- \
		--port net_memif0 --role server $peer_args \
		--done-file $tmp/server.done --release-file $tmp/release"
	client_cmd="exec $peer $eal -l 1 --file-prefix $tag-c --vdev $dev,role=client -- \
		--port net_memif0 --role client $peer_args"
	server_ready=$sock
	run_pair
	;;
vhost)
	# DPDK 22.11 backs --no-huge memory with a memfd, which virtio-user
	# can share with the vhost side: no hugepages needed.
	sock=$tmp/vhost.sock
	server_cmd="exec $peer $eal -l 0 --file-prefix $tag-s \
		--vdev net_vhost0,iface=$sock,queues=1 -- \
		--port net_vhost0 --role server $peer_args"
	client_cmd="exec $peer $eal -l 1 --file-prefix $tag-c \
		--vdev net_virtio_user0,path=$sock,queues=1 -- \
		--port net_virtio_user0 --role client $peer_args"
	server_ready=$sock
	run_pair
	;;
af_packet)
	va=sga$$
	vb=sgb$$
	veth_pair_up "$tag" "$va" "$vb"
	server_cmd="exec ip netns exec $netns_a $peer $eal -l 0 --file-prefix $tag-s \
		--vdev net_af_packet0,iface=$va,framesz=2304,blocksz=36864 -- \
		--port net_af_packet0 --role server $peer_args"
	client_cmd="exec ip netns exec $netns_b $peer $eal -l 1 --file-prefix $tag-c \
		--vdev net_af_packet0,iface=$vb,framesz=2304,blocksz=36864 -- \
		--port net_af_packet0 --role client $peer_args"
	server_ready=
	run_pair
	;;
*)
	echo "unknown mode $mode" >&2
	exit 2
	;;
esac
