#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# nicd on vhost-user links while one node's server takes connections and
# never answers (a stopped switchd, or anything listening at the path):
#
#   nicd_vhost_silent.sh SWITCHD NICD
#
# nicd starts first, with node 0's virtio-user device on a path where a
# silent server (python3) then listens and node 1's on switchd's. nicd's
# loop must keep running: node 1 joins switchd, nicd says node 0's server
# has not answered, counts it (server_silent) and exits promptly on
# SIGINT. Before nicd asked the server first, the creation of node 0's
# device waited for the silent server's reply for ever, holding every
# node of that nicd: node 1 never joined. Then a second nicd starts while
# the silent server is there: it must not hang in the EAL's start-up (it
# did, for good), and node 1 joins again.
#
# Every process runs with idle back-off and is stopped by its PID.
# Everything it starts or creates goes at exit.
set -u

switchd=${1:?usage: nicd_vhost_silent.sh SWITCHD NICD}
nicd=${2:?}
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: needs python3 to play the silent vhost-user server"
	exit 77
fi

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
daemons_test vsilent


printf 'silent-key\n' >"$tmp/vnet1.key"
# shellcheck disable=SC2086
"$nicd" $eal -l 1 --file-prefix "$tag-nic" \
	--vdev "net_virtio_user0,path=$tmp/silent.sock" --vdev "net_virtio_user1,path=$tmp/vh1.sock" \
	-- --node n0:net_virtio_user0 --node n1:net_virtio_user1 \
	--vnet "1:$tmp/vnet1.key:conf3" --socket-dir "$tmp/run" >"$tmp/nicd.log" 2>&1 &
nicpid=$!
for i in 0 1; do
	wait_for "$tmp/run/n$i.sock" 200 "$nicpid" || fail "nicd did not open its control sockets"
done

# Takes every connection, reads nothing, answers nothing.
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(8)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    print("accepted", len(held), flush=True)
' "$tmp/silent.sock" >"$tmp/silent.log" 2>&1 &
pids=$!
wait_grep "$tmp/silent.log" "accepted 1" "$pids" ||
	fail "nicd did not connect to the silent server in 10 s"

# shellcheck disable=SC2086
"$switchd" $eal -l 0 --file-prefix "$tag-sw" \
	--vdev "net_vhost0,iface=$tmp/vh0.sock,queues=1" --vdev "net_vhost1,iface=$tmp/vh1.sock,queues=1" \
	-- --nodes 2 --port 0=net_vhost0 --port 1=net_vhost1 \
	--control-queue off --bulk-gbps 0.05 >"$tmp/switchd.log" 2>&1 &
swpid=$!
wait_grep "$tmp/nicd.log" "joined as node 1 of 2" "$nicpid" ||
	fail "node 1 did not join in 10 s while node 0's server said nothing: nicd's loop is held"
wait_grep "$tmp/nicd.log" "net_virtio_user0: the vhost-user server at $tmp/silent.sock took the connection .* ago and has not answered" "$nicpid" ||
	fail "nicd did not say that node 0's server does not answer"
grep -q "accepted 2" "$tmp/silent.log" && fail "nicd opened a second connection to the silent server"

kill -INT "$nicpid"
wait_exit "$nicpid" 50
nicpid=
[ "$st" = 0 ] || fail "nicd exited $st after SIGINT (124: it did not exit in 5 s)"
grep -Eq "net_virtio_user0\.server_silent +[1-9]" "$tmp/nicd.log" ||
	fail "nicd's summary counts no server_silent for net_virtio_user0"
first=$(grep -Eo "net_virtio_user0\.server_silent +[0-9]+" "$tmp/nicd.log")

# A nicd started while the silent server is already there: the EAL would
# create node 0's device at start-up and wait for the reply for ever. nicd
# asks first, leaves that device to its link watch, and runs.
# shellcheck disable=SC2086
"$nicd" $eal -l 1 --file-prefix "$tag-nic" \
	--vdev "net_virtio_user0,path=$tmp/silent.sock" --vdev "net_virtio_user1,path=$tmp/vh1.sock" \
	-- --node n0:net_virtio_user0 --node n1:net_virtio_user1 \
	--vnet "1:$tmp/vnet1.key:conf3" --socket-dir "$tmp/run" >"$tmp/nicd2.log" 2>&1 &
nicpid=$!
wait_grep "$tmp/nicd2.log" "joined as node 1 of 2" "$nicpid" ||
	fail "a nicd started while node 0's server was silent did not run: node 1 did not join in 10 s"
grep -q "net_virtio_user0: not created yet: no answer from the vhost-user server at $tmp/silent.sock" \
	"$tmp/nicd2.log" || fail "nicd did not say that node 0's device waits for its server's answer"
kill -INT "$nicpid"
wait_exit "$nicpid" 50
nicpid=
[ "$st" = 0 ] || fail "the second nicd exited $st after SIGINT (124: it did not exit in 5 s)"
echo "PASS: node 1 joined while node 0's vhost-user server was silent; nicd counted $first on one connection and exited on SIGINT; a nicd started while that server was silent ran as well"
