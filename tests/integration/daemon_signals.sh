#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# A second Ctrl-C while a daemon stops does not cut its teardown short.
#
#   daemon_signals.sh SWITCHD NICD
#
# switchd and nicd each run with shared config (the EAL's config file and
# telemetry socket in the runtime directory; nicd's control socket too),
# their stdout a FIFO that the test fills, so that the summary each prints
# in its teardown blocks on a full pipe: the teardown is then certainly
# under way, and stays so, when the next signal comes.
#   1. SIGINT, then (the daemon blocked in its teardown) SIGINT again: the
#      daemon says it is stopping already and lives on; once the pipe is
#      read it finishes, exit 0, "no mbuf leaked", its runtime directory
#      and control socket gone. (Before: the second SIGINT killed it, exit
#      130, its runtime directory left.)
#   2. SIGINT, SIGINT, SIGTERM: the third signal ends it at once (killed by
#      SIGTERM, exit 143), saying its clean-up did not finish.
set -u

switchd=${1:?usage: daemon_signals.sh SWITCHD NICD}
nicd=${2:?usage: daemon_signals.sh SWITCHD NICD}

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
daemons_test dsig sw2 nic2
# A daemon left blocked on its full stdout (a failed check) takes no SIGTERM.
trap 'for p in $pids; do kill -KILL "$p" 2>/dev/null; done; stop_and_remove "" sw nic sw2 nic2' EXIT

# Shared config (no --no-shconf): the runtime directory holds the EAL's
# config file and telemetry socket, which only a finished teardown removes.
shared="--no-huge -m 64 --no-pci -l 0 --log-level *:error"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/vnet1.key"
mkdir "$tmp/run"

# start_daemon WHICH SUFFIX: switchd or nicd (WHICH) with file prefix
# $tag-SUFFIX, stdout into the FIFO $tmp/out.fifo (held open read-write on
# fd 3), stderr in $tmp/WHICH-SUFFIX.log; its PID in $dpid.
start_daemon() {
	rm -f "$tmp/out.fifo"
	mkfifo "$tmp/out.fifo"
	exec 3<>"$tmp/out.fifo"
	# shellcheck disable=SC2086
	if [ "$1" = switchd ]; then
		"$switchd" $shared --file-prefix "$tag-$2" --vdev net_null0,no-rx=1 \
			--vdev net_null1,no-rx=1 -- --nodes 2 --port 0=net_null0 --port 1=net_null1 \
			--bulk-gbps 0.02 >&3 2>"$tmp/$1-$2.log" &
	else
		"$nicd" $shared --file-prefix "$tag-$2" --vdev net_null0,no-rx=1 -- \
			--bulk-port net_null0 --name dsig --socket-dir "$tmp/run" \
			--vnet "1:$tmp/vnet1.key:conf3" >&3 2>"$tmp/$1-$2.log" &
	fi
	dpid=$!
	pids="$pids $dpid"
}

# ready WHICH SUFFIX: wait until the daemon runs (its telemetry socket, and
# nicd's control socket), then fill the pipe of its stdout to the brim.
ready() {
	wait_for "$(dpdk_runtime_dir "$tag-$2")/dpdk_telemetry.v2" 100 "$dpid" ||
		fail "$1 ($2) did not start"
	if [ "$1" = nicd ]; then
		wait_for "$tmp/run/dsig.sock" 100 "$dpid" || fail "nicd ($2): no control socket"
	fi
	sleep 0.3	# its start-up lines written
	# Non-blocking writes of a page each until the pipe takes no more.
	dd if=/dev/zero of="$tmp/out.fifo" bs=4096 count=64 oflag=nonblock 2>/dev/null
}

# blocked WHICH WHEN: the daemon is still running (blocked in its teardown).
blocked() {
	sleep 0.5
	kill -0 "$dpid" 2>/dev/null && return 0
	wait "$dpid"
	fail "$1: not running $2 (exit $?): $(cat "$tmp/$1-$3.log")"
}

# drain: read the FIFO to its end into $tmp/out.txt (in the background).
# Opened here, while fd 3 still holds a writer: a cat that opened it only
# after the daemon had gone and fd 3 was closed (a daemon ended at once by a
# third signal, a cat slow to start under load) would wait for a writer
# for ever, and the test with it (seen once: meson's 60 s timeout).
drain() {
	exec 4<"$tmp/out.fifo"
	cat <&4 >"$tmp/out.txt" 3>&- &
	drainer=$!
	exec 3>&- 4<&-
}

for which in switchd nicd; do
	sfx=$([ "$which" = switchd ] && echo sw || echo nic)
	# 1. Two SIGINTs: the second one during the teardown changes nothing.
	start_daemon "$which" "$sfx"
	ready "$which" "$sfx"
	kill -INT "$dpid"
	blocked "$which" "after the first SIGINT (its stdout full)" "$sfx"
	kill -INT "$dpid"
	blocked "$which" "after a second SIGINT during its teardown" "$sfx"
	grep -q "^$which: stopping already, cleaning up" "$tmp/$which-$sfx.log" ||
		fail "$which did not say it is stopping already: $(cat "$tmp/$which-$sfx.log")"
	drain
	wait_exit "$dpid" 100
	wait "$drainer"
	[ "$st" = 0 ] || fail "$which: exit $st after two SIGINTs, want 0: $(cat "$tmp/$which-$sfx.log")"
	grep -q "^$which: no mbuf leaked" "$tmp/out.txt" ||
		fail "$which: no 'no mbuf leaked' after two SIGINTs: $(tr -d '\000' <"$tmp/out.txt")"
	[ ! -e "$(dpdk_runtime_dir "$tag-$sfx")" ] ||
		fail "$which left $(dpdk_runtime_dir "$tag-$sfx") after two SIGINTs: $(ls "$(dpdk_runtime_dir "$tag-$sfx")")"
	[ ! -e "$tmp/run/dsig.sock" ] || fail "$which left its control socket after two SIGINTs"
	echo "ok: $which: a second SIGINT during the teardown: exit 0, nothing left"

	# 2. A third signal ends a teardown that hangs.
	start_daemon "$which" "${sfx}2"
	ready "$which" "${sfx}2"
	kill -INT "$dpid"
	blocked "$which" "after the first SIGINT (its stdout full)" "${sfx}2"
	kill -INT "$dpid"
	blocked "$which" "after a second SIGINT during its teardown" "${sfx}2"
	kill -TERM "$dpid"
	drain
	wait_exit "$dpid" 100
	wait "$drainer"
	[ "$st" = 143 ] || fail "$which: exit $st after a third signal (SIGTERM), want 143"
	grep -q "^$which: ended by a signal before its clean-up finished" "$tmp/$which-${sfx}2.log" ||
		fail "$which did not say its clean-up was cut short: $(cat "$tmp/$which-${sfx}2.log")"
	rm -rf "$(dpdk_runtime_dir "$tag-${sfx}2")" "$tmp/run/dsig.sock"
	echo "ok: $which: a third signal ends it at once (exit 143)"
done
echo "PASS"
