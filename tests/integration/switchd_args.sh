#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# switchd refuses bad command lines with exit status 2 and a message naming
# the argument; --help succeeds:
#
#   switchd_args.sh SWITCHD
#
# All but the last cases fail before the EAL starts; the unknown ethdev is
# found after it (net_null, no hugepages, no telemetry). A link that stays
# down (a memif server nobody connects to) is a failure at run time: exit 1
# naming the port, and its stdout (line-buffered) comes before that error
# in one file. An af_packet device without CAP_NET_RAW or CAP_NET_ADMIN
# (dropped with setpriv as root) is exit 1 naming both. Then switchd runs
# for a second on a 10 Gbit/s slot and says the slot is under two wake-ups
# of a back-off sleep. Last, what the EAL
# leaves in its runtime directory: a start without hugepages fails with a
# message that says so, and a run with shared config (no --no-shconf,
# telemetry on) stopped by SIGINT; neither leaves its runtime directory.
# What a running switchd holds is in use, exit 1 (not a bad argument): its
# --file-prefix with shared config, its memif and vhost-user server sockets.
set -u

switchd=${1:?usage: switchd_args.sh SWITCHD}
tag=segnet-it-swargs-$$
out=$(mktemp "${TMPDIR:-/tmp}/segnet-swargs.XXXXXX") || exit 1
sock=$out.sock
eal="--no-huge -m 64 --no-pci --no-shconf --no-telemetry -l 0 --file-prefix $tag \
	--log-level *:error"
failed=0
passed=0

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
trap 'rm -rf "$out" "$out.shconf" "$out.first" "$out.rt" "$sock" "$(dpdk_runtime_dir "$tag")" \
	"$(dpdk_runtime_dir "$tag-nodrv")" "$(dpdk_runtime_dir "$tag-nohuge")" \
	"$(dpdk_runtime_dir "$tag-shconf")" "$(dpdk_runtime_dir "$tag-two")" \
	"$(dpdk_runtime_dir "$tag-srv")" "$(dpdk_runtime_dir "$tag-srv2")"' EXIT

# tally OK WHAT [FILE]: count a check that passed (OK is 0) or failed; a
# failure prints FILE, the output it was made on.
tally() {
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
		echo "ok: $2"
	else
		failed=$((failed + 1))
		echo "FAIL: $2${3:+, output:}"
		[ -z "${3:-}" ] || cat "$3"
	fi
}

expect_prog=$switchd

ports="--port 0=net_null0 --port 1=net_null1 --port 2=net_null2"
expect 0 "--nodes N" --help
expect 0 "--arbiter SPEC" -- --help
# The options nicd shares read as nicd's: --check-crc checks what is received.
expect 0 "--check-crc on|off      verify CRC32C of received frames (default on)" --help
expect 0 "arguments ok" -- --nodes 2 --port 0=a --port 1=b --check
expect 2 "--fault loss=2: must be between 0 and 1" -- --nodes 2 --port 0=a --port 1=b --fault loss=2 --check
expect 2 "--nodes 0" -- --nodes 0 --port 0=a --port 1=b
expect 2 "--nodes 5000" -- --nodes 5000 $ports
expect 2 "--nodes" -- --port 0=a
expect 2 "--arbiter bogus" -- --nodes 3 --arbiter bogus $ports
expect 2 "node 2 has no port" -- --nodes 3 --port 0=a --port 1=b
many=$(for i in $(seq 0 32); do printf -- '--port %d=d%d ' "$i" "$i"; done)
# shellcheck disable=SC2086
expect 2 "33 devices, but this DPDK was built for at most 32" -- --nodes 33 $many
expect 2 "--fault loss=1: a probability must be below 1" -- --nodes 3 --fault loss=1 $ports
expect 2 "--fault: unknown key 'jitter'" -- --nodes 3 --fault jitter=1 $ports
expect 2 "--fault seed=4: injects nothing" -- --nodes 3 --fault seed=4 $ports
expect 2 "--fault given twice" -- --nodes 3 --fault loss=0.1 --fault dup=0.1 $ports
expect 2 "node 1 is given twice" -- --nodes 3 $ports --port 1=c
expect 2 "device a is given to node 0 and node 1" -- --nodes 2 --port 0=a --port 1=a
expect 2 "node 1 has --bulk-port but no --quick-port" -- --nodes 2 --port 0=a --bulk-port 1=b
expect 2 "--link-gbps -1" -- --nodes 3 $ports --link-gbps -1
expect 2 "--quick-mode fast" -- --nodes 3 $ports --quick-mode fast
expect 2 "--check-crc maybe" -- --nodes 3 $ports --check-crc maybe
expect 2 "--slot-frames 0" -- --nodes 3 $ports --slot-frames 0
# A NIC rejoins after 1000 slots without a GNT: the keepalive stays far below.
expect 2 "--gnt-keepalive 1000: must be between 1 and 125" -- --nodes 3 $ports \
	--gnt-keepalive 1000
expect 2 "--gnt-keepalive 126" -- --nodes 3 $ports --gnt-keepalive 126
expect 2 "--grant-lead 0" -- --nodes 3 $ports --grant-lead 0
expect 2 "--grant-lead 65" -- --nodes 3 $ports --grant-lead 65
expect 2 "--stats-interval 1e-12" -- --nodes 3 $ports --stats-interval 1e-12
expect 2 "--port 7=x" -- --nodes 3 $ports --port 7=x
expect 2 "--bogus" -- --nodes 3 $ports --bogus
expect 2 "^switchd: unexpected argument extra (see --help)$" -- --nodes 2 --port 0=a --port 1=b extra
expect 2 "-l" -l 0 --nodes 3 $ports
# A short option in a cluster is named by its letter, not by the argument before it.
expect 2 "^switchd: -x: unknown option" -- --nodes 2 -xq
# An option that is not a list is refused the second time (not the last value taken);
# without node 2's port, a parser that took the last value fails for that instead.
expect 2 "--nodes given twice" -- --nodes 2 --nodes 3 --port 0=a --port 1=b
expect 2 "--arbiter given twice" -- --nodes 3 --arbiter pim --arbiter lcf --port 0=a --port 1=b
expect 2 "--capture-max-packets needs --capture FILE" -- --nodes 3 $ports --capture-max-packets 5
expect 2 "--capture-max-mb x" -- --nodes 3 $ports --capture sw.pcap --capture-max-mb x
# A capture file that cannot be written is refused with the arguments, --check too.
expect 2 "--capture /nonexistent-dir/sw.pcap: cannot be written: No such file or directory" \
	-- --nodes 2 --port 0=a --port 1=b --capture /nonexistent-dir/sw.pcap --check
expect 2 "--capture /tmp: cannot be written: Is a directory" \
	-- --nodes 2 --port 0=a --port 1=b --capture /tmp --check
# shellcheck disable=SC2086
expect 2 "net_bogus" $eal --vdev net_null0 --vdev net_null1 -- --nodes 3 \
	--port 0=net_null0 --port 1=net_null1 --port 2=net_bogus
# shellcheck disable=SC2086
expect 2 "--capture /nonexistent-dir/sw.pcap: cannot be written: No such file or directory" $eal \
	--vdev net_null0 --vdev net_null1 -- --nodes 2 --port 0=net_null0 --port 1=net_null1 \
	--capture /nonexistent-dir/sw.pcap
# An af_packet device whose iface= names no interface, said before the EAL
# starts (dp_ethdev_vdev_check), not as "its driver did not create the device".
# shellcheck disable=SC2086
expect 2 "^switchd: --vdev net_af_packet0,iface=segnet-noif$$: iface=segnet-noif$$: no such network interface" \
	$eal --vdev net_null0 --vdev net_af_packet0,iface=segnet-noif$$ -- --nodes 2 \
	--port 0=net_null0 --port 1=net_af_packet0
# af_packet without the privileges it needs (on lo, which every host has):
# a run-time failure (exit 1) that names them, not the driver's bare
# "Operation not permitted" at start (CAP_NET_RAW but no CAP_NET_ADMIN) nor
# "a bad or missing device argument?" when it could not open its socket (no
# CAP_NET_RAW). Root drops them with setpriv (as user nobody, its EAL
# runtime directory in $out.rt); an ordinary user has neither.
afp="net_af_packet0,iface=lo,framesz=2304,blocksz=36864"
afp_hint="af_packet needs CAP_NET_RAW (its socket) and CAP_NET_ADMIN (its interface's flags, set when it starts): run it as root or give it both capabilities"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	mkdir -m 0777 "$out.rt"
	drop="-u RUNTIME_DIRECTORY XDG_RUNTIME_DIR=$out.rt setpriv --reuid=65534 --regid=65534 --clear-groups"
	expect_prog=env
	# shellcheck disable=SC2086
	expect 1 "^switchd: port net_af_packet0: cannot start: Operation not permitted: $afp_hint$" \
		$drop --inh-caps=-all,+net_raw --ambient-caps=+net_raw "$switchd" $eal \
		--vdev net_null0 --vdev $afp -- --nodes 2 --port 0=net_null0 --port 1=net_af_packet0
	# shellcheck disable=SC2086
	expect 1 "^switchd: --vdev $afp: its driver cannot open an AF_PACKET socket: Operation not permitted: $afp_hint$" \
		$drop --inh-caps=-all "$switchd" $eal --vdev net_null0 --vdev $afp -- --nodes 2 \
		--port 0=net_null0 --port 1=net_af_packet0
	expect_prog=$switchd
	rm -rf "$out.rt"
elif [ "$(id -u)" != 0 ]; then
	# shellcheck disable=SC2086
	expect 1 "^switchd: --vdev $afp: its driver cannot open an AF_PACKET socket: Operation not permitted: $afp_hint$" \
		$eal --vdev net_null0 --vdev $afp -- --nodes 2 --port 0=net_null0 \
		--port 1=net_af_packet0
else
	echo "skip: af_packet without privileges (root without setpriv cannot drop them)"
fi
# shellcheck disable=SC2086
expect 2 "are the same device" $eal --vdev net_null0 --vdev net_null1 -- --nodes 2 \
	--port 0=net_null0 --port 1=0
# shellcheck disable=SC2086
expect 1 "net_memif0: link still down after 300 ms" $eal --vdev net_null0 \
	--vdev net_memif0,role=server,id=0,socket=$sock,socket-abstract=no,bsize=4096 \
	-- --nodes 2 --port 0=net_null0 --port 1=net_memif0 --link-wait-ms 300
# That set-up gave its device up stopped, not closed (dp_ethdev_setup): the
# EAL's cleanup at exit removed it, and its socket file with it, which the
# next switchd on that socket would find in its way.
[ ! -e "$sock" ]
tally $? "the memif server of the failed set-up removed at exit (no $sock)" "$out"
# Its output in the order it was written, stdout and stderr in one file:
# stdout is line-buffered, so "polling on CPU" (set-up) comes before the
# error of the port that followed it, not at exit after it.
grep -m 1 "polling on CPU\|link still down" "$out" | grep -q "polling on CPU"
tally $? "stdout before the error that followed it, in one file (stdout line-buffered)" "$out"
expect 2 "--core 4096" -- --nodes 2 --port 0=a --port 1=b --core 4096
# Options without effect with the others given are refused by name.
expect 2 "^switchd: --idle-sleep-us has no effect with --idle-after-us 0" -- --nodes 2 \
	--port 0=a --port 1=b --idle-sleep-us 50 --idle-after-us 0 --check
expect 2 "^switchd: --link-gbps has no effect: --bulk-gbps and --quick-gbps set both rates" \
	-- --nodes 2 --port 0=a --port 1=b --link-gbps 1 --bulk-gbps 2 --quick-gbps 3 --check
expect 0 "arguments ok" -- --nodes 2 --port 0=a --port 1=b --link-gbps 1 --bulk-gbps 2 --check
expect 2 "^switchd: --control-queue is for nodes on one device (--port)" -- --nodes 2 \
	--bulk-port 0=a --quick-port 0=b --bulk-port 1=c --quick-port 1=d --control-queue on --check
expect 0 "arguments ok" -- --nodes 2 --bulk-port 0=a --quick-port 0=b --port 1=c \
	--control-queue on --check
expect 2 "^switchd: --seed has no effect: arbiter lcf makes no random choice" -- --nodes 2 \
	--port 0=a --port 1=b --seed 7 --check
expect 0 "arguments ok" -- --nodes 2 --port 0=a --port 1=b --arbiter pim:2 --seed 7 --check
# A --vdev that names no driver: the EAL cannot parse it, an argument error;
# the runtime directory the failed start made is removed.
expect 2 "net_nodriver0" --no-huge -m 64 --no-pci --no-shconf --no-telemetry -l 0 \
	--file-prefix "$tag-nodrv" --vdev net_nodriver0 -- --nodes 2 --port 0=a --port 1=b
# no_runtime_dir SUFFIX WHAT: the runtime directory of prefix $tag-SUFFIX is gone.
no_runtime_dir() {
	if [ -e "$(dpdk_runtime_dir "$tag-$1")" ]; then
		failed=$((failed + 1))
		echo "FAIL: $2 left $(dpdk_runtime_dir "$tag-$1"):"
		ls -l "$(dpdk_runtime_dir "$tag-$1")"
	else
		passed=$((passed + 1))
		echo "ok: $2 left no runtime directory"
	fi
}
no_runtime_dir nodrv "a failed EAL start"
# A slot under two wake-ups of a back-off sleep: the notice names the option
# that sets the slot, --bulk-gbps (a --link-gbps loses to it). Stopped by SIGINT.
# The banner gives the rates as typed (%g said 10 and 1.23457).
expect_prog=timeout
# shellcheck disable=SC2086
expect 0 "or a lower --bulk-gbps" -s INT --preserve-status 1 "$switchd" $eal \
	--log-level "segnet.switchd.*:notice" --vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1 \
	-- --nodes 2 --port 0=net_null0 --port 1=net_null1 --bulk-gbps 10.0000001 \
	--quick-gbps 1.23456789
grep -q "(bulk 10.0000001 Gbit/s x 1 frames), quick 1.23456789 Gbit/s" "$out"
tally $? "the banner gives --bulk-gbps 10.0000001 and --quick-gbps 1.23456789 as typed" "$out"
expect_prog=$switchd
# No hugepage to use (none mounted at --huge-dir): the EAL's "Permission
# denied" would send a root user the wrong way. Shared config: the EAL made
# its config and multi-process socket before it failed.
expect 1 "no usable hugepages .* or run without them: --no-huge -m 256" -l 0 --no-pci \
	--no-telemetry --huge-dir /nonexistent-dir --file-prefix "$tag-nohuge" \
	--log-level "*:error" -- --nodes 2 --port 0=a --port 1=b
no_runtime_dir nohuge "a start without hugepages (shared config)"
# Shared config and telemetry, as the README's commands run it: the EAL
# leaves its config and fbarray files at exit, switchd removes them.
"$switchd" --no-huge -m 64 --no-pci -l 0 --file-prefix "$tag-shconf" --log-level "*:error" \
	--vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1 -- --nodes 2 --port 0=net_null0 \
	--port 1=net_null1 --bulk-gbps 0.02 >"$out.shconf" 2>&1 &
swpid=$!
wait_grep "$out.shconf" "switchd: 2 nodes" "$swpid"
[ -S "$(dpdk_runtime_dir "$tag-shconf")/dpdk_telemetry.v2" ] &&
	[ -e "$(dpdk_runtime_dir "$tag-shconf")/config" ]
tally $? "shared config and telemetry socket in $(dpdk_runtime_dir "$tag-shconf") while switchd runs" \
	"$out.shconf"
# The same prefix again while it runs: in use (its pid named), exit 1, a
# condition at run time (not the EAL's "Invalid argument", exit 2).
expect 1 "EAL file prefix $tag-shconf is in use by another process (pid $swpid" \
	--no-huge -m 64 --no-pci -l 0 --file-prefix "$tag-shconf" --log-level "*:error" \
	--vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1 -- --nodes 2 --port 0=net_null0 \
	--port 1=net_null1
kill -INT "$swpid"
wait "$swpid"
rc=$?
[ "$rc" = 0 ] && grep -q "no mbuf leaked" "$out.shconf"
tally $? "switchd stopped by SIGINT: exit $rc (want 0, no mbuf leaked)" "$out.shconf"
no_runtime_dir shconf "a run with shared config stopped by SIGINT"
# Two switchds with one prefix and --no-shconf: the second listens on
# dpdk_telemetry.v2:1 and removes that at exit, not the first one's socket.
two="--no-huge -m 64 --no-pci --no-shconf --file-prefix $tag-two --log-level *:error"
# shellcheck disable=SC2086
"$switchd" $two -l 0 --vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1 -- --nodes 2 \
	--port 0=net_null0 --port 1=net_null1 --bulk-gbps 0.02 >"$out.first" 2>&1 &
first=$!
wait_grep "$out.first" "switchd: 2 nodes" "$first"
# shellcheck disable=SC2086
"$switchd" $two -l 0 --vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1 -- --nodes 2 \
	--port 0=net_null0 --port 1=net_null1 --bulk-gbps 0.02 >"$out.shconf" 2>&1 &
second=$!
wait_grep "$out.shconf" "switchd: 2 nodes" "$second"
kill -INT "$second"
wait "$second"
if [ -S "$(dpdk_runtime_dir "$tag-two")/dpdk_telemetry.v2" ] &&
	[ ! -e "$(dpdk_runtime_dir "$tag-two")/dpdk_telemetry.v2:1" ]; then
	passed=$((passed + 1))
	echo "ok: the second switchd of a prefix removed its own telemetry socket only"
else
	failed=$((failed + 1))
	echo "FAIL: the second switchd of a prefix left:"
	ls -l "$(dpdk_runtime_dir "$tag-two")"
fi
kill -INT "$first"
wait "$first"
no_runtime_dir two "two runs with one prefix and --no-shconf"
# A memif or vhost-user server socket another switchd listens on (a lab's
# command line run again): in use, exit 1, before any device is made (not
# "its driver did not create the device", exit 2, nor a queue set-up's
# "Operation not permitted"), and the running switchd unharmed.
srv="--no-huge -m 64 --no-pci --no-shconf --log-level *:error"
for dev in "net_memif0,role=server,id=0,socket=$sock,socket-abstract=no" \
	"net_vhost0,iface=$sock,queues=1"; do
	# shellcheck disable=SC2086
	"$switchd" $srv --file-prefix "$tag-srv" -l 0 --vdev net_null0,no-rx=1 --vdev "$dev" -- --nodes 2 \
		--port 0=net_null0 --port 1="${dev%%,*}" --link-wait-ms 20000 >"$out.first" 2>&1 &
	first=$!
	wait_for "$sock" 100 "$first"
	# shellcheck disable=SC2086
	expect 1 "${dev%%,*}.*socket $sock is in use by another process" $srv \
		--file-prefix "$tag-srv2" -l 0 \
		--vdev net_null0,no-rx=1 --vdev "$dev" -- --nodes 2 --port 0=net_null0 \
		--port 1="${dev%%,*}"
	# The check asked the kernel, not the server: the running one is unharmed.
	kill -0 "$first" 2>/dev/null
	tally $? "the switchd on ${dev%%,*} still runs after the check" "$out.first"
	kill -INT "$first"
	wait "$first"
	rm -f "$sock"
done
# The socket file of a switchd killed outright stays, with no listener:
# said as such (remove it), exit 1, not memif's "Address already in use".
dev="net_memif0,role=server,id=0,socket=$sock,socket-abstract=no"
# shellcheck disable=SC2086
"$switchd" $srv --file-prefix "$tag-srv" -l 0 --vdev net_null0,no-rx=1 --vdev "$dev" -- --nodes 2 \
	--port 0=net_null0 --port 1=net_memif0 --link-wait-ms 20000 >"$out.first" 2>&1 &
first=$!
wait_for "$sock" 100 "$first"
kill -KILL "$first"
wait "$first" 2>/dev/null
# shellcheck disable=SC2086
expect 1 "net_memif0.*socket $sock is a socket file no process listens on .*remove it" $srv \
	--file-prefix "$tag-srv2" -l 0 --vdev net_null0,no-rx=1 --vdev "$dev" -- --nodes 2 \
	--port 0=net_null0 --port 1=net_memif0
rm -f "$sock"
rm -rf "$(dpdk_runtime_dir "$tag-srv")"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
