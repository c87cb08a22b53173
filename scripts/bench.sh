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
	echo "== rate: the rate stage on the TSC in a busy loop"
	"$build/tests/bench/rate-bench" --csv "$out/rate.csv"
	local worst_rate worst_p99
	worst_rate=$(awk -F, 'NR > 1 { e = $4 < 0 ? -$4 : $4; if (e > m) m = e } END { printf "%.3f", m }' "$out/rate.csv")
	worst_p99=$(awk -F, 'NR > 1 { if ($7 > m) m = $7 } END { printf "%.0f", m }' "$out/rate.csv")
	figure "rate-error-pct-worst" "$worst_rate" "0.5" "$(ratio "$worst_rate" 0.5)"
	figure "rate-p99-gap-error-ns-worst" "$worst_p99" "1000" "$(ratio "$worst_p99" 1000)"
}

# What bench_replay creates, removed on every exit path.
replay_ns=()
replay_pids=()

# Kill what bench_replay started (by PID) and delete its namespaces.
replay_cleanup() {
	local p ns
	for p in "${replay_pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${replay_pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	replay_pids=()
	for ns in "${replay_ns[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	replay_ns=()
	rm -rf "/var/run/dpdk/segnet-bench-replay-$$"
}

# field LINE NAME: the value of NAME=value in an rx-stamp line.
field() {
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"
}

# replay_measure TOOL PPS COUNT: send COUNT frames of the sample with TOOL
# (segnet or tcpreplay) at PPS (0: top speed) from namespace A; print the
# receiver's line from namespace B.
replay_measure() {
	local tool=$1 pps=$2 count=$3 loops rxpid ready="$out/replay-rx.ready" line
	local sample="$top/pcap/samples/cluster-udp.pcap"
	loops=$(( (count + 259) / 260 ))
	rm -f "$ready"
	ip netns exec "${replay_ns[1]}" taskset -c 0 "$build/tests/bench/rx-stamp" \
		--iface sgrb --count "$count" --rate "$pps" --timeout-ms 60000 --idle-ms 1000 \
		--ready-file "$ready" >"$out/replay-rx.out" 2>&1 &
	rxpid=$!
	replay_pids=("$rxpid")
	while [ ! -e "$ready" ]; do
		kill -0 "$rxpid" 2>/dev/null || { cat "$out/replay-rx.out" >&2; return 1; }
		sleep 0.05
	done
	if [ "$tool" = segnet ]; then
		local timing=(--pps "$pps")
		[ "$pps" = 0 ] && timing=(--topspeed)
		ip netns exec "${replay_ns[0]}" "$build/pcap/replay/segnet-replay" \
			--no-huge -m 256 --no-pci --no-shconf --no-telemetry -l 1 \
			--file-prefix "segnet-bench-replay-$$" --log-level '*:error' \
			--vdev net_af_packet0,iface=sgra,framesz=2304,blocksz=36864 -- \
			--port net_af_packet0 "${timing[@]}" --loop "$loops" --limit "$count" \
			"$sample" >"$out/replay-tx-$tool-$pps.out" 2>&1 || true
	else
		local timing=(--pps="$pps")
		[ "$pps" = 0 ] && timing=(--topspeed)
		ip netns exec "${replay_ns[0]}" taskset -c 1 tcpreplay -q -i sgra "${timing[@]}" \
			--loop="$loops" --limit="$count" "$sample" \
			>"$out/replay-tx-$tool-$pps.out" 2>&1 || true
	fi
	wait "$rxpid" || true
	replay_pids=()
	line=$(grep '^rx-stamp:' "$out/replay-rx.out" || echo "rx-stamp: frames=0")
	echo "$line"
}

bench_replay() {
	local runs=${SEGNET_REPLAY_RUNS:-1} rate tool line count r frames pps err
	local seg100="" ref100="" seg_rate100="" ok=1
	if [ "$(id -u)" -ne 0 ] || ! command -v tcpreplay >/dev/null 2>&1; then
		echo "== replay: needs root (network namespaces, veth) and tcpreplay: skipped"
		return 0
	fi
	trap replay_cleanup EXIT
	trap 'exit 1' INT TERM HUP
	replay_ns=("sgr-a-$$" "sgr-b-$$")
	ip netns add "${replay_ns[0]}"
	ip netns add "${replay_ns[1]}"
	ip link add sgra netns "${replay_ns[0]}" type veth peer name sgrb netns "${replay_ns[1]}"
	for r in "0 sgra" "1 sgrb"; do
		set -- $r
		ip netns exec "${replay_ns[$1]}" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
		ip -n "${replay_ns[$1]}" link set "$2" mtu 2200 up
		ip netns exec "${replay_ns[$1]}" ethtool -K "$2" gro off >/dev/null 2>&1 || true
	done
	echo "== replay: pcap/samples/cluster-udp.pcap looped, veth pair between two namespaces;"
	echo "   segnet-replay on net_af_packet (framesz=2304,blocksz=36864, lcore 1), tcpreplay -i (taskset -c 1);"
	echo "   receiver: rx-stamp (AF_PACKET TPACKET_V3, kernel ns timestamps, CPU 0); $runs run(s)"
	printf "%-4s %-10s %-9s %8s %13s %9s %12s %12s %12s %6s\n" run rate tool frames achieved_pps rate_err% \
		gap_err_p50 gap_err_p99 gap_err_max drops
	for ((run = 1; run <= runs; run++)); do
		for rate in 10000 100000 0; do
			count=$((rate == 10000 ? 20000 : 200000))
			for tool in segnet tcpreplay; do
				line=$(replay_measure "$tool" "$rate" "$count")
				frames=$(field "$line" frames)
				pps=$(field "$line" rate_pps)
				err=na
				[ "$rate" != 0 ] && err=$(awk -v a="$pps" -v b="$rate" 'BEGIN { printf "%.3f", (a - b) / b * 100 }')
				printf "%-4s %-10s %-9s %8s %13s %9s %12s %12s %12s %6s\n" "$run" \
					"$([ "$rate" = 0 ] && echo top || echo "$rate")" "$tool" "$frames" "$pps" "$err" \
					"$(field "$line" gap_err_p50_ns)" "$(field "$line" gap_err_p99_ns)" \
					"$(field "$line" gap_err_max_ns)" "$(field "$line" drops)"
				if [ "$rate" = 100000 ] && [ "$tool" = segnet ]; then
					seg100+=" $(field "$line" gap_err_p99_ns)"
					seg_rate100+=" $err"
				elif [ "$rate" = 100000 ]; then
					ref100+=" $(field "$line" gap_err_p99_ns)"
				fi
			done
		done
	done
	replay_cleanup
	trap - EXIT
	# The figure: medians over the runs of the p99 error at 100 kpps.
	seg100=$(tr ' ' '\n' <<<"$seg100" | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	ref100=$(tr ' ' '\n' <<<"$ref100" | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	for err in $seg_rate100; do
		awk -v e="$err" 'BEGIN { exit !(e <= 1 && e >= -1) }' || ok=0
	done
	awk -v a="$seg100" -v b="$ref100" 'BEGIN { exit !(a <= b) }' || ok=0
	if [ "$ok" = 1 ]; then
		echo "replay: at 100 kpps segnet's rate is within 1% and its p99 inter-departure error is no worse than tcpreplay's"
	else
		echo "replay: NOT MET at 100 kpps (rate within 1%: $seg_rate100 %; p99 error segnet $seg100 ns, tcpreplay $ref100 ns)"
	fi
	figure "replay" "$seg100" "$ref100" "$(ratio "$seg100" "$ref100")"
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
