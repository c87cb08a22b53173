#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# A replay stopped early by a signal says so in its exit status, and still
# prints (and writes) its report:
#
#   replay_signal.sh SEGNET_REPLAY SAMPLE_PCAP
#
# segnet-replay loops over the sample for ever (--loop 0) out of net_null
# (no hugepages, no telemetry); once it has printed its first line (its
# signal handlers are in place then) and sent for a while, it gets SIGINT,
# then, in a second run, SIGTERM. Each must exit 128 + the signal (130,
# 143), as a shell says of a process a signal stopped, and print its report
# ending in "stopped by signal", and write --json. Before, both exited 0,
# like a complete replay. (A process killed by the signal, its handler not
# yet in place, would exit 130 too, as the shell says it: the report is what
# tells them apart.)
set -u

replay=${1:?usage: replay_signal.sh SEGNET_REPLAY SAMPLE_PCAP}
sample=${2:?usage: replay_signal.sh SEGNET_REPLAY SAMPLE_PCAP}

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
daemons_test rpsig INT TERM

# stopped_by SIG STATUS: replay until SIG, then check STATUS and the report.
stopped_by() {
	log=$tmp/$1.log
	json=$tmp/$1.json
	# shellcheck disable=SC2086
	"$replay" $eal --no-telemetry -l 0 --file-prefix "$tag-$1" --vdev net_null0 -- \
		--port net_null0 --pps 1000 --loop 0 --json "$json" "$sample" >"$log" 2>&1 &
	pids=$!
	wait_grep "$log" "260 records, mode frames" "$pids" ||
		fail "segnet-replay did not start its replay in 10 s"
	sleep 0.5
	kill "-$1" "$pids"
	wait_exit "$pids" 100
	pids=
	[ "$st" = "$2" ] || fail "segnet-replay exited $st after SIG$1, want $2 (124: still running after 10 s)"
	for word in "^packets  *[1-9]" "^frames sent  *[1-9]" "^stopped by  *signal$"; do
		grep -q -e "$word" "$log" || fail "the report after SIG$1 does not say '$word'"
	done
	grep -q '"packets": [1-9]' "$json" 2>/dev/null ||
		fail "--json was not written after SIG$1: $(cat "$json" 2>&1)"
	echo "ok: SIG$1: exit $st, $(grep -e '^packets' "$log"), $(grep -e '^stopped by' "$log")"
}

stopped_by INT 130
stopped_by TERM 143
echo "PASS: a replay stopped by SIGINT exits 130, by SIGTERM 143, each with its report"
