#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# switchd survives clients that connect to its memif sockets and hang up
# before the memif handshake:
#
#   switchd_memif_hangup.sh SWITCHD
#
# switchd runs two memif server ports; a Python client connects to the
# first port's socket and closes at once, 20 times, 20 ms apart. DPDK
# 22.11's memif server then often fails to send its HELLO (EPIPE) and
# leaves its callback on the connection it closed, and the EAL aborts
# the process at its next epoll rebuild (`PANIC in eal_intr_thread_main()`;
# each connection lost that race about half the time, doc/operations.md).
# switchd's guard (dataplane/dp_memif_guard.c) removes the callback: the
# test checks that switchd still runs, said so when a HELLO failed (the
# warning is limited to 5 a minute), stops cleanly on SIGTERM with no
# mbuf leaked, and counts in its summary one removal per failed HELLO. On a switchd without the guard it fails: 20 connections
# all winning the race happens about once in a million runs.
set -u

switchd=${1:?usage: switchd_memif_hangup.sh SWITCHD}
tries=20

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
daemons_test switchd_memif_hangup

vdevs=
for i in 0 1; do
	vdevs="$vdevs --vdev net_memif$i,role=server,id=0,socket=$tmp/sw$i.sock,socket-abstract=no,bsize=4096"
done
# shellcheck disable=SC2086
"$switchd" $eal -l 0 --file-prefix "$tag-sw" $vdevs -- --nodes 2 \
	--port 0=net_memif0 --port 1=net_memif1 --link-gbps 0.02 \
	>"$tmp/switchd.log" 2>&1 &
swpid=$!
wait_grep "$tmp/switchd.log" "^switchd: 2 nodes" "$swpid" || fail "switchd did not start"

client=0
python3 - "$tmp/sw0.sock" "$tries" <<'EOF' || client=$?
import socket, sys, time
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sys.argv[1])
    s.close()
    time.sleep(0.02)
EOF
sleep 0.3
kill -0 "$swpid" 2>/dev/null || { wait "$swpid"; fail "switchd died (exit $?) while a client connected and closed at once, up to $tries times"; }
[ "$client" = 0 ] || fail "the client could not connect (exit $client)"
races=$(grep -c "sendmsg fail" "$tmp/switchd.log")
removed=$(grep -c "closed before its handshake: its callback on fd [0-9]* removed" "$tmp/switchd.log")
echo "$tries connections closed at once: HELLO failed $races times, $removed removals logged (at most 5 a minute)"
[ "$races" = 0 ] || [ "$removed" -gt 0 ] || fail "HELLO failed but no callback was removed"
! grep -q "could not be removed" "$tmp/switchd.log" || fail "a callback could not be removed"
kill -TERM "$swpid"
wait "$swpid"
src=$?
swpid=
[ "$src" = 0 ] || fail "switchd exited with $src"
grep -q "^switchd: no mbuf leaked$" "$tmp/switchd.log" || fail "no leak verdict"
# Every failed HELLO left a callback, and the summary counts each removal.
counted=$(sed -n 's/^memif: \([0-9]*\) callbacks removed .*/\1/p' "$tmp/switchd.log")
echo "summary: ${counted:-no} removals counted"
[ "${counted:-0}" = "$races" ] || fail "HELLO failed $races times but the summary counts ${counted:-no} removals"
echo "PASS"
