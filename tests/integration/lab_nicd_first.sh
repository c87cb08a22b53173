#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: nicd started before switchd.
#
#   lab_nicd_first.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# lab.sh up --nicd-first starts the nicd of a 3-node lab and waits for its
# control sockets before it starts switchd, then waits for every node to
# join. The nicd started first is the one that serves them: it stayed up
# without its switch, and 5 pings n0 -> n1 all come back. On memif it said
# that its ports wait for their server, did not start them, and restarted
# them with back-off until switchd answered; on vhost, that the EAL could
# not create its virtio-user clients, and it created them with back-off
# until switchd's vhost-user server answered (n0's restart_failed and
# port_restarts; no link_down: the link was never up). On vhost, nicd
# alone with --link-wait-ms and no vhost-user server tries for that long,
# then exits 1 saying that the device was not created.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"
# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"

# vhost: nicd alone, its server never there, waits --link-wait-ms and exits 1.
vhost_wait_fails() {
	local prefix=segnet-lab-$lab_name-vu rc
	printf 'k\n' >"$tmp/vnet1.key"
	"$build/nicd/nicd" --no-huge -m 256 --no-pci --no-shconf -l 0 --file-prefix "$prefix" \
		--log-level lib.telemetry:error \
		--vdev "net_virtio_user0,path=$tmp/vh0.sock,queues=2" -- \
		--node n0:net_virtio_user0 --vnet "1:$tmp/vnet1.key:conf3" \
		--socket-dir "$tmp/nicd" --link-wait-ms 400 >"$tmp/nicd-vu.log" 2>&1
	rc=$?
	rm -rf "$(dpdk_runtime_dir "$prefix")"
	[ "$rc" = 1 ] || fail "nicd on a virtio-user client without its server exited $rc, not 1"
	grep -q "port net_virtio_user0: not created yet: no vhost-user server at $tmp/vh0.sock" \
		"$tmp/nicd-vu.log" || fail "nicd alone did not say that net_virtio_user0 waits for its server"
	grep -q "nicd: port net_virtio_user0: link still down after 400 ms (not created: its peer is not there)" \
		"$tmp/nicd-vu.log" || fail "nicd alone did not say why it gave up"
	echo "$test_name: $(grep "^nicd: port" "$tmp/nicd-vu.log")"
}

[ "$link" != vhost ] || vhost_wait_fails

# A counter of node n0 in nicd's telemetry.
n0_counter() {
	tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n0 "nic.stats.n0.$1"
}

lab_up --nodes 3 --nicd-first
grep -q "nicd up before switchd" "$tmp/up.log" || fail "lab.sh did not start nicd first"
nicd_log=$lab_dir/logs/nicd.log
[ ! -e "$lab_dir/logs/nicd.run1.log" ] || fail "nicd was started more than once"
case "$link" in
memif) dev=net_memif0 waits="cannot start yet (.*): no memif server at $lab_dir/links/sw0.sock" ;;
vhost) dev=net_virtio_user0 waits="not created yet: no vhost-user server at $lab_dir/links/vh0.sock" ;;
*) dev= ;;
esac
if [ -n "$dev" ]; then
	grep -q "port $dev: $waits" "$nicd_log" || fail "nicd did not say that $dev waits for its server"
	grep -q "port $dev: .*link down (waiting for the switch" "$nicd_log" ||
		fail "nicd did not say that n0 waits for the switch"
	grep -q "port $dev: link up after .* s down, [1-9][0-9]* restart(s)" "$nicd_log" ||
		fail "nicd did not say when $dev came up"
	echo "$test_name: $(grep "port $dev: link up after" "$nicd_log")"
	for c in restart_failed port_restarts; do
		v=$(n0_counter "$c")
		echo "$test_name: n0 $c $v"
		[ "${v:-0}" -ge 1 ] || fail "n0's $c is ${v:-none}, not at least 1"
	done
	[ "$(n0_counter link_down)" = 0 ] || fail "n0's link_down is $(n0_counter link_down), not 0"
fi
ping_server 1
"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 1 --count 5 --interval 20 \
	>"$tmp/ping.log" 2>&1 || fail "pings n0 -> n1"
grep -q "5 sent, 5 received, 0% lost" "$tmp/ping.log" || fail "pings n0 -> n1 lost"
echo "$test_name: $(tail -n 1 "$tmp/ping.log")"
pass
