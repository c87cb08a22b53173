#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The segnet demo: real traffic through a virtual cluster, in one command.
#
#   scripts/demo.sh [--pcap FILE] [--nodes N] [--out DIR] [options]
#   scripts/demo.sh --help
#
# It builds the tree when needed (scripts/setup.sh), brings up a virtual lab
# of N nodes (scripts/lab.sh up --link memif: switchd and one nicd joined by
# memif links, no privileges needed), replays the trace through it with
# segnet-replay in messages mode (each packet a segnet message from the
# node of its source to the node of its destination, quick or bulk by
# size), prints the report per node and per channel, writes it with the
# latency of every message and a plot of the latency per channel into DIR,
# and takes the lab down (also on failure or Ctrl-C).
#
# Options:
#   --pcap FILE     the trace (default pcap/samples/cluster-udp.pcap, 260
#                   UDP packets among four hosts, see pcap/samples/README.md)
#   --nodes N       nodes of the lab, 2 to 32 (default 4; lab.sh's limit)
#   --out DIR       output directory (default ./segnet-demo-out)
#   --loop N        passes over the trace (default 1)
#   --limit N       stop after N packets
#   --multiplier X  replay X times as fast as recorded (default 1)
#   --build DIR     the build directory (default the tree's build/)
#   --no-build      use the binaries in the build directory as they are (no
#                   setup, no ninja: the integration test runs it so)
#   --help          this text
#
# Output in DIR: report.txt (what it prints), report.csv and report.json
# (segnet-replay --csv/--json), latency.csv (channel, latency_ns, ... of
# every delivered message), latency.png (latency distribution per channel),
# lab.log (lab.sh's output). Exit status: 0 every message delivered, 1 a
# failure (the message says which), 2 bad arguments. Interrupted by Ctrl-C
# (SIGINT; SIGTERM, SIGHUP, SIGQUIT), it takes the lab down all the same and
# ends by that signal (a shell says 130, 143, 129, 131); 130 (143) when its
# shell ignores the signal and only segnet-replay stopped. A signal to its
# shell alone, or that shell killed (SIGKILL: "interrupted: its shell was
# killed"), is noticed within a tenth of a second, also while the lab comes
# up or the trace is replayed: that step is stopped (SIGTERM) and the lab
# taken down at once, not after the step.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=demo.sh
pcap="$top/pcap/samples/cluster-udp.pcap"
nodes=4
out=./segnet-demo-out
loop=1
limit=
multiplier=1
build="$top/build"
no_build=0
lab_name=
lab_dir=

synopsis="scripts/demo.sh [--pcap FILE] [--nodes N] [--out DIR] [options]"
# shellcheck source=scripts/lib/cli.sh
. "$top/scripts/lib/cli.sh"
# shellcheck source=scripts/lib/signals.sh
. "$top/scripts/lib/signals.sh"

say() {
	echo "$prog: $*"
}

# need OPTION VALUE-COUNT: check that an option has its value.
need() {
	[ "$2" -ge 2 ] || die_usage "$1 needs a value"
}

is_uint() {
	[[ "$1" =~ ^[0-9]+$ ]]
}

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		-h|--help) usage; exit 0 ;;
		--pcap) need "$1" $#; pcap=$2; shift ;;
		--nodes) need "$1" $#; nodes=$2; shift ;;
		--out) need "$1" $#; out=$2; shift ;;
		--loop) need "$1" $#; loop=$2; shift ;;
		--limit) need "$1" $#; limit=$2; shift ;;
		--multiplier) need "$1" $#; multiplier=$2; shift ;;
		--build) need "$1" $#; build=$2; shift ;;
		--no-build) no_build=1 ;;
		*) die_usage "unknown argument '$1'" ;;
		esac
		shift
	done
	[ -n "$pcap" ] || die_usage "--pcap needs a file"
	[ -n "$out" ] || die_usage "--out needs a directory"
	is_uint "$nodes" && [ "$nodes" -ge 2 ] && [ "$nodes" -le 32 ] ||
		die_usage "--nodes must be 2 to 32 (lab.sh's limit), not '$nodes'"
	is_uint "$loop" && [ "$loop" -ge 1 ] || die_usage "--loop must be 1 or more, not '$loop'"
	[ -z "$limit" ] || { is_uint "$limit" && [ "$limit" -ge 1 ]; } ||
		die_usage "--limit must be 1 or more, not '$limit'"
	[[ "$multiplier" =~ ^[0-9]*\.?[0-9]+$ ]] &&
		awk -v m="$multiplier" 'BEGIN { exit !(m >= 1e-6 && m <= 1e6) }' ||
		die_usage "--multiplier must be a number from 0.000001 to 1000000, not '$multiplier'"
}

# Build (or install and build, scripts/setup.sh) when something is missing.
ensure_built() {
	local bin
	local missing=0

	for bin in switchd/switchd nicd/nicd pcap/replay/segnet-replay nicd/tools/segnet-stat; do
		[ -x "$build/$bin" ] || missing=1
	done
	command -v gnuplot >/dev/null 2>&1 || missing=1
	if [ "$no_build" = 1 ]; then
		[ "$missing" = 0 ] || die "--no-build: the binaries in $build or gnuplot are missing"
	elif [ "$missing" = 1 ]; then
		say "setting up (scripts/setup.sh --builddir $build): this installs packages and builds once"
		"$top/scripts/setup.sh" --builddir "$build" || die "the setup failed (see above)"
	elif [ -f "$build/build.ninja" ] && command -v ninja >/dev/null 2>&1; then
		ninja -C "$build" >"$out/build.log" 2>&1 ||
			die "the build failed: see $out/build.log"
		rm -f "$out/build.log"
	fi
	command -v gnuplot >/dev/null 2>&1 || die "gnuplot is missing (apt-get install gnuplot-nox)"
}

# Take the lab down if this run brought one up (the work's EXIT trap; the
# work ignores signals: a second Ctrl-C does not cut it short). A signal
# the demo's shell got, or one that stopped lab.sh or segnet-replay while
# the shell ignores it (started in the background by a script), is said.
teardown() {
	local rc=$?

	trap - EXIT
	! sig_got || rc=$sig_status
	case "$rc" in
	129 | 130 | 131 | 143) echo "$prog: interrupted" >&2 ;;
	137) echo "$prog: interrupted: its shell was killed" >&2 ;;
	esac
	if [ -n "$lab_dir" ] && [ -e "$lab_dir" ]; then
		"$top/scripts/lab.sh" down --name "$lab_name" --dir "$lab_dir" >>"$out/lab.log" 2>&1 ||
			echo "$prog: lab.sh down failed: see $out/lab.log" >&2
		rmdir "$lab_dir" 2>/dev/null || true
		say "lab '$lab_name' is down"
	fi
	exit "$rc"
}

# check_interrupted STATUS: after lab.sh or segnet-replay ended with
# STATUS, exit if a signal stopped the demo (EXIT trap: teardown).
check_interrupted() {
	sig_check
	case "$1" in
	129 | 130 | 131 | 143) exit "$1" ;;
	esac
}

# Bring up the lab: N nodes on memif, in a directory of its own.
lab_up() {
	local rc=0

	lab_name="demo-$$"
	lab_dir=$(mktemp -d "${TMPDIR:-/tmp}/segnet-demo.XXXXXX") || die "cannot make a directory"
	say "bringing up a $nodes-node lab on memif links (no privileges needed): switchd + nicd"
	sig_restore "$top/scripts/lab.sh" up --nodes "$nodes" --link memif --name "$lab_name" \
		--dir "$lab_dir" --build "$build" >"$out/lab.log" 2>&1 &
	sig_wait || rc=$?
	if [ "$rc" != 0 ]; then
		check_interrupted "$rc"
		cat "$out/lab.log" >&2
		die "the lab did not come up (see $out/lab.log)"
	fi
	sed -n 's/^lab.sh: //p' "$out/lab.log" | head -1 | sed "s/^/$prog: /"
}

# Replay the trace in messages mode through the lab; segnet-replay's status.
replay() {
	local args=(--mode messages --lab "$lab_dir" --loop "$loop" --multiplier "$multiplier"
		    --csv "$out/report.csv" --json "$out/report.json"
		    --latency-csv "$out/latency.csv")
	local rc=0

	[ -z "$limit" ] || args+=(--limit "$limit")
	say "replaying $pcap in messages mode: each packet a message"
	say "from the node of its source to the node of its destination, payloads of up"
	say "to 24 bytes on the quick channel, larger ones on the bulk channel"
	say "segnet-replay ${args[*]} $pcap"
	echo
	# tee outlives a Ctrl-C (the work ignores signals): segnet-replay
	# prints its report when stopped. In the background, so that the work
	# notices a signal, or its shell gone, while it runs (sig_wait).
	sig_restore "$build/pcap/replay/segnet-replay" "${args[@]}" "$pcap" 2>&1 |
		tee "$out/report.txt" &
	sig_wait || rc=$?
	echo
	return "$rc"
}

# One "latency_us cumulative_fraction" line per message of channel $1.
cdf() {
	awk -F, -v ch="$1" 'NR > 1 && $1 == ch { print $2 / 1000 }' "$out/latency.csv" |
		sort -g | awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }'
}

# latency.png: the latency distribution (CDF) of each channel.
plot() {
	local quick="$out/.quick.dat" bulk="$out/.bulk.dat" series=() title

	cdf quick >"$quick"
	cdf bulk >"$bulk"
	[ -s "$quick" ] && series+=("'$quick' using 1:2 with steps lw 2 title 'quick ($(wc -l <"$quick") messages)'")
	[ -s "$bulk" ] && series+=("'$bulk' using 1:2 with steps lw 2 title 'bulk ($(wc -l <"$bulk") messages)'")
	if [ ${#series[@]} -eq 0 ]; then
		rm -f "$quick" "$bulk"
		echo "$prog: no message was delivered: no plot" >&2
		return 1
	fi
	title="segnet demo: $(basename "$pcap"), $nodes nodes (memif lab), latency send -> delivery handler"
	gnuplot <<-EOF || { rm -f "$quick" "$bulk"; return 1; }
		set terminal pngcairo size 1000,600 font 'sans,10'
		set output '$out/latency.png'
		set title "$title"
		set xlabel 'latency (us), log scale'
		set ylabel 'fraction of messages delivered within'
		set logscale x
		set yrange [0:1.02]
		set grid
		set key bottom right
		plot $(IFS=,; echo "${series[*]}")
	EOF
	rm -f "$quick" "$bulk"
}

main() {
	local rc=0 check

	parse_args "$@"
	[ -r "$pcap" ] || die "--pcap $pcap: no such readable file"
	mkdir -p "$out" || die "cannot create $out"
	out=$(cd "$out" && pwd)
	pcap=$(cd "$(dirname "$pcap")" && pwd)/$(basename "$pcap")
	build=$(cd "$build" 2>/dev/null && pwd || echo "$build")
	ensure_built
	# A damaged or empty trace is refused before any lab comes up.
	check=$("$build/pcap/replay/segnet-replay" --mode messages --check "$pcap") ||
		die "--pcap $pcap: not a trace segnet-replay can replay (its message above)"
	case "$check" in
	*"nothing to replay"*) die "--pcap $pcap: no records, nothing to replay" ;;
	esac
	rm -f "$out/report.txt" "$out/report.csv" "$out/report.json" "$out/latency.csv" \
		"$out/latency.png"
	# Ctrl-C and the like go to this shell, which only waits for the work
	# (lib/signals.sh): bash 5.2 can fail to run a SIGINT trap that comes
	# while the shell expands a $(...).
	sig_run demo-run run
}

# The demo's work, in a child that ignores signals (sig_run): the lab, the
# replay, the plot; the lab down at the end, also on failure or Ctrl-C.
run() {
	local rc=0

	trap teardown EXIT
	lab_up
	sig_check
	replay || rc=$?
	check_interrupted "$rc"
	[ "$rc" != 0 ] || plot || rc=1
	sig_check
	say "output in $out/:"
	for f in report.txt report.csv report.json latency.csv latency.png lab.log; do
		if [ -e "$out/$f" ]; then
			echo "  $f"
		fi
	done
	if [ "$rc" != 0 ]; then
		echo "$prog: segnet-replay reported a failure (exit $rc): see $out/report.txt" >&2
		exit 1
	fi
	say "every message delivered"
}

main "$@"
