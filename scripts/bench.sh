#!/usr/bin/env bash
# segnet benchmarks. Each prints its measurements and, last, one summary line
# per figure: "NAME: segnet=X reference=Y ratio=Z" (the reference measured in
# the same run), so scripts can pick the figures up.
#
#   scripts/bench.sh LIST...     run the named benchmarks (or "all")
#   scripts/bench.sh --help
#
# Benchmarks:
#   guarantees every configuration under loss 1% and 5%, duplication 1%,
#              reordering 2% and corruption 1%, 10^6 messages each, both
#              channels on one virtual network; fails if a guarantee breaks
#   protocol   protocol stages in segnet-sim: goodput vs loss (go-back-N vs
#              selective repeat), recovery after an outage, acks per data
#              packet vs threshold, cost of each configuration
#   rate       the rate stage on the TSC in a busy loop (rate-bench)
#   replay     segnet-replay (frames mode, af_packet) against tcpreplay on one
#              veth pair, 10 kpps, 100 kpps and top speed: achieved rate and
#              p99 inter-departure error at the receiving end (needs root)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$top/build"
out="${SEGNET_BENCH_OUT:-$top/build/bench}"
sim="$build/tests/sim/segnet-sim"

usage() {
	sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

# Make sure the tree is built (the setup installs what is missing).
ensure_built() {
	if [ ! -x "$sim" ] || [ ! -x "$build/tests/bench/rate-bench" ] ||
		[ ! -x "$build/pcap/replay/segnet-replay" ] || [ ! -x "$build/tests/bench/rx-stamp" ]; then
		"$top/scripts/setup.sh" --builddir "$build"
	fi
	mkdir -p "$out"
}

# Summary lines are collected here and printed last.
summary=()

# Print a figure and keep it for the summary.
figure() {
	summary+=("$1: segnet=$2 reference=$3 ratio=$4")
}

# Throughput column of a segnet-sim row for the given channel.
sim_thru() {
	awk -v ch="$1" '$2 == ch && $1 != "arbiter" { print $7; exit }'
}

# csv_field FILE COLUMN: the column of the first row of a segnet-sim CSV.
csv_field() {
	/usr/bin/python3 -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1])))[sys.argv[2]])' "$1" "$2"
}

# ratio a b: a / b with 3 decimals.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'
}

bench_protocol() {
	local conf loss thr base_sr base_gbn sr1 gbn1 t line
	echo "== protocol: goodput vs loss, saturated bulk channel, 16 nodes, uniform"
	printf "%-10s %8s %10s\n" conf loss goodput
	for conf in conf4-sr conf4-gbn; do
		for loss in 0 0.001 0.01 0.05; do
			thr=$("$sim" --nodes 16 --channels bulk --load 1.0 --conf "$conf" \
				--loss "$loss" --duration 10ms --jobs 1 2>/dev/null | sim_thru bulk)
			printf "%-10s %8s %10s\n" "$conf" "$loss" "$thr"
			case "$conf/$loss" in
			conf4-sr/0) base_sr=$thr ;;
			conf4-gbn/0) base_gbn=$thr ;;
			conf4-sr/0.01) sr1=$thr ;;
			conf4-gbn/0.01) gbn1=$thr ;;
			esac
		done
	done
	figure "protocol-sr-goodput-1pct-loss" "$sr1" "$base_sr" "$(ratio "$sr1" "$base_sr")"
	figure "protocol-gbn-goodput-1pct-loss" "$gbn1" "$base_gbn" "$(ratio "$gbn1" "$base_gbn")"

	echo "== protocol: recovery after a 100 us outage of node 0's links (clint rates, load 0.2, both channels on one virtual network)"
	for conf in conf4-sr conf4-gbn; do
		line=$("$sim" --preset clint --arbiter lcf --no-bursty --one-vnet --load 0.2 \
			--conf "$conf" --duration 10ms --outage 3ms:100us --jobs 1 2>/dev/null |
			grep '^recovery:' || echo "recovery: none")
		echo "$conf: $line"
	done

	echo "== protocol: standalone acks per quick data packet vs ack threshold (2 nodes, quick channel, load 0.3 each way)"
	printf "%-10s %14s %12s %14s\n" threshold acks_per_data goodput retx_per_msg
	for t in 1 2 4 8 16; do
		"$sim" --preset clint --nodes 2 --arbiter lcf --no-bursty --channels quick --load 0.3 \
			--conf "conf2,build_acks:threshold=$t" --duration 10ms --jobs 1 \
			--csv "$out/acks-$t.csv" >/dev/null 2>&1
		printf "%-10s %14s %12s %14s\n" "$t" "$(csv_field "$out/acks-$t.csv" acks_per_data)" \
			"$(csv_field "$out/acks-$t.csv" throughput)" \
			"$(csv_field "$out/acks-$t.csv" retx_per_pkt)"
	done

	echo "== protocol: cost of each configuration (10^5 messages, both channels on one virtual network)"
	printf "%-10s %22s %22s\n" conf sim_packets_per_wall_s instructions_per_msg
	for conf in conf1 conf2 conf3 conf4-gbn conf4-sr; do
		local pps ir
		pps=$("$sim" --preset clint --arbiter lcf --no-bursty --one-vnet --load 0.15 \
			--conf "$conf" --messages 100000 --jobs 1 2>/dev/null |
			sed -n 's/.*(\([0-9]*\) simulated packets per wall-clock second).*/\1/p')
		ir=na
		if command -v valgrind >/dev/null 2>&1; then
			valgrind --tool=callgrind --callgrind-out-file="$out/cg-$conf.out" \
				--toggle-collect='nic_poll' --toggle-collect='nic_send' \
				"$sim" --preset clint --arbiter lcf --no-bursty --one-vnet --load 0.15 \
				--conf "$conf" --messages 10000 --jobs 1 >/dev/null 2>&1 || true
			ir=$(awk '/^summary:/ { printf "%.0f", $2 / 10000 }' "$out/cg-$conf.out" 2>/dev/null || echo na)
		fi
		printf "%-10s %22s %22s\n" "$conf" "$pps" "$ir"
	done
}

bench_guarantees() {
	local f conf line lost dup reord bad=0 n=${SEGNET_GUARANTEE_MESSAGES:-1000000}
	echo "== guarantees: $n messages per case, clint rates, load 0.15, both channels on one virtual network"
	for f in "--loss 0.01" "--loss 0.05" "--dup 0.01" "--reorder 0.02" "--corrupt 0.01"; do
		for conf in conf1 conf2 conf3 conf4-gbn conf4-sr; do
			# shellcheck disable=SC2086
			line=$("$sim" --preset clint --arbiter lcf --no-bursty --one-vnet --load 0.15 \
				--conf "$conf" $f --messages "$n" --jobs 1 2>&1 | grep '^delivery:')
			printf "%-10s %-16s %s\n" "$conf" "$f" "$line"
			lost=$(sed -n 's/.* lost=\([0-9]*\).*/\1/p' <<<"$line")
			dup=$(sed -n 's/.* duplicated=\([0-9]*\).*/\1/p' <<<"$line")
			reord=$(sed -n 's/.* reordered=\([0-9]*\).*/\1/p' <<<"$line")
			case "$conf" in
			conf2) [ "$lost" = 0 ] || bad=1 ;;
			conf3) [ "$lost$dup" = 00 ] || bad=1 ;;
			conf4-*) [ "$lost$dup$reord" = 000 ] || bad=1 ;;
			esac
		done
	done
	if [ "$bad" -ne 0 ]; then
		echo "guarantees: VIOLATED (see above)" >&2
		exit 1
	fi
	echo "guarantees: conf2 lost nothing; conf3 lost and duplicated nothing; conf4 lost, duplicated and reordered nothing"
}

bench_rate() {
	local mode args worst_rate worst_p99
	for mode in classic catchup; do
		case $mode in
		classic) args=() ;;
		catchup) args=(--burst 1000000 --catchup 5) ;;
		esac
		echo "== rate: the rate stage on the TSC in a busy loop ($mode${args:+: ${args[*]}})"
		"$build/tests/bench/rate-bench" "${args[@]}" --csv "$out/rate-$mode.csv"
		worst_rate=$(awk -F, 'NR > 1 { e = $4 < 0 ? -$4 : $4; if (e > m) m = e } END { printf "%.3f", m }' "$out/rate-$mode.csv")
		worst_p99=$(awk -F, 'NR > 1 { if ($7 > m) m = $7 } END { printf "%.0f", m }' "$out/rate-$mode.csv")
		figure "rate-$mode-error-pct-worst" "$worst_rate" "0.5" "$(ratio "$worst_rate" 0.5)"
		figure "rate-$mode-p99-gap-error-ns-worst" "$worst_p99" "1000" "$(ratio "$worst_p99" 1000)"
	done
}

main() {
	local names=() n
	[ $# -gt 0 ] || { usage >&2; exit 2; }
	for n in "$@"; do
		case "$n" in
		-h|--help) usage; exit 0 ;;
		all) names+=(guarantees protocol rate replay) ;;
		guarantees|protocol|rate|replay) names+=("$n") ;;
		*) echo "bench.sh: unknown benchmark '$n' (try --help)" >&2; exit 2 ;;
		esac
	done
	ensure_built
	for n in "${names[@]}"; do
		"bench_$n"
	done
	echo
	printf '%s\n' "${summary[@]}"
}

main "$@"
