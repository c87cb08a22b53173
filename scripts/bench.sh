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
#   rtt        quick round trip node 0 -> node 1 -> node 0 through nicd and
#              switchd on memif, busy polling (segnet-ping), against kernel
#              UDP over a veth pair between two network namespaces (sockperf)
#   forward    switchd's quick-channel forwarding rate between two memif
#              ports against dpdk-testpmd --forward-mode=io (fwd-gen)
#   fabric     instructions of the switch fabric per forwarded QREQ, no NICs
#              (fabric-cost under callgrind; needs valgrind)
#   bulk       bulk goodput of 2 KiB messages through nicd and switchd
#              (segnet-perf) against dpdk-testpmd forwarding 2 KiB frames
#   idle       CPU of idle switchd and nicd with back-off, against the same
#              daemons busy polling, and the quick messages/s of a ping-pong
#              (one message in flight) with back-off against busy polling
#   replay     segnet-replay (frames mode, af_packet) against tcpreplay on one
#              veth pair, 10 kpps, 100 kpps and top speed: achieved rate and
#              p99 inter-departure error at the receiving end (needs root)
#
# rtt, forward, bulk and idle need root (network namespaces) and the two
# cores to themselves as far as possible; each prints its core placement.
# forward and bulk also print, before and after each measurement, the
# round trip of a cache line between CPU 0 and CPU 1 (xcpu-probe): on a VM
# it changes as the hypervisor moves the vCPUs, and so does their speed.
# SEGNET_BENCH_ROUNDS (default 5) sets how many times each pair of
# measurements is repeated (the figure is the median).
# SEGNET_GUARANTEE_MESSAGES (default 1000000) sets guarantees' messages per
# case; SEGNET_GUARANTEE_SIM_ARGS adds segnet-sim options to each of its
# cases, e.g. "--quick-buffers 4 --quick-reserve 1" to check the guarantees
# with quick buffers kept for connections holding none (both printed).
# SEGNET_BENCH_EAL replaces the EAL options every DPDK process of rtt,
# forward, bulk and idle gets (default "--no-huge -m 256 --no-pci
# --no-shconf ..."), e.g. "-m 256 --huge-dir DIR --no-pci --no-shconf" to
# run them on hugepages reserved and mounted beforehand.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$top/build"
out="${SEGNET_BENCH_OUT:-$top/build/bench}"
sim="$build/tests/sim/segnet-sim"

prog=bench.sh
synopsis="scripts/bench.sh LIST..."
# shellcheck source=scripts/lib/cli.sh
. "$top/scripts/lib/cli.sh"

# Make sure the tree is built (the setup installs what is missing).
ensure_built() {
	if [ ! -x "$sim" ] || [ ! -x "$build/tests/bench/rate-bench" ] ||
		[ ! -x "$build/pcap/replay/segnet-replay" ] || [ ! -x "$build/tests/bench/rx-stamp" ] ||
		[ ! -x "$build/tests/bench/fwd-gen" ] || [ ! -x "$build/tests/bench/fabric-cost" ] ||
		[ ! -x "$build/tests/bench/xcpu-probe" ]; then
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

# ---- the lab benchmarks (rtt, forward, bulk, idle) --------------------------
#
# They start switchd, nicd, the tools, dpdk-testpmd and sockperf themselves,
# each with its own EAL file prefix, memif sockets in a temporary directory
# (never in /run/segnet), and stop every process they started by its PID.

rounds=${SEGNET_BENCH_ROUNDS:-5}
[[ "$rounds" =~ ^[0-9]{1,4}$ ]] && [ "$rounds" -ge 1 ] ||
	die_usage "SEGNET_BENCH_ROUNDS must be a whole number from 1 to 9999, not '$rounds'"
eal_common=${SEGNET_BENCH_EAL:-"--no-huge -m 256 --no-pci --no-shconf --log-level lib.telemetry:error"}
memif_args="id=0,socket-abstract=no,bsize=4096"
lab_tmp=""		# temporary directory: sockets, keys
vdevs=()		# memif_vdevs: the two memif ports' --vdev arguments
lab_logs="$out/lab"	# every process's output, kept after the run
lab_pids=()		# processes started and not yet stopped
lab_netns=()		# network namespaces created
lab_prefixes=()		# EAL file prefixes used
lab_pid=""		# the process lab_start started last
lab_seq=0		# numbers file prefixes

# shellcheck source=scripts/lib/dpdk.sh
. "$top/scripts/lib/dpdk.sh"

# Stop everything started, remove what was created.
lab_cleanup() {
	local ns pf
	while [ "${#lab_pids[@]}" -gt 0 ]; do
		lab_stop "${lab_pids[0]}"
	done
	for ns in "${lab_netns[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	lab_netns=()
	for pf in "${lab_prefixes[@]}"; do
		rm -rf "$(dpdk_runtime_dir "$pf")"
	done
	lab_prefixes=()
	[ -z "$lab_tmp" ] || rm -rf "$lab_tmp"
	lab_tmp=""
}

# Create the temporary directory and the cleanup traps (once).
lab_init() {
	[ -z "$lab_tmp" ] || return 0
	if [ "$(id -u)" != 0 ]; then
		echo "bench.sh: rtt, forward, bulk, idle and replay need root (network namespaces, /proc)" >&2
		exit 2
	fi
	lab_tmp=$(mktemp -d /tmp/segnet-bench.XXXXXX)
	mkdir -p "$lab_tmp/run"
	rm -rf "$lab_logs"
	mkdir -p "$lab_logs"
	printf 'segnet-bench\n' >"$lab_tmp/vnet1.key"
	chmod 600 "$lab_tmp/vnet1.key"
	trap lab_cleanup EXIT
	trap 'exit 1' INT TERM HUP
}

# lab_prefix NAME: a new EAL file prefix in pf (its runtime directory is
# removed at exit); lab_seq numbers it and the logs.
lab_prefix() {
	lab_seq=$((lab_seq + 1))
	pf="segnet-bench-$$-$lab_seq-$1"
	lab_prefixes+=("$pf")
}

# lab_start LOG CMD...: start CMD in the background, output to LOG; its PID
# in lab_pid.
lab_start() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 &
	lab_pid=$!
	lab_pids+=("$lab_pid")
}

# lab_alive PID: true while PID runs (an exited child stays a zombie until
# waited for, and kill -0 succeeds on a zombie).
lab_alive() {
	[ -r "/proc/$1/stat" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# lab_stop PID: SIGTERM, then SIGKILL after 10 s; forget it.
lab_stop() {
	local pid=$1 i=0 keep=() p
	kill -TERM "$pid" 2>/dev/null || true
	while lab_alive "$pid" && [ "$i" -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	for p in "${lab_pids[@]}"; do
		[ "$p" = "$pid" ] || keep+=("$p")
	done
	lab_pids=("${keep[@]}")
}

# lab_wait_file PATH PID: wait up to 20 s for PATH while PID lives.
lab_wait_file() {
	local i=0
	while [ ! -e "$1" ] && [ "$i" -lt 200 ]; do
		lab_alive "$2" || return 1
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

# lab_count FILE TEXT: lines of FILE with TEXT (0 while FILE does not exist).
lab_count() {
	local n
	n=$(grep -c "$2" "$1" 2>/dev/null) || true
	echo "${n:-0}"
}

# lab_wait_count FILE TEXT N PID: wait up to 20 s for N lines with TEXT.
lab_wait_count() {
	local i=0
	while [ "$(lab_count "$1" "$2")" -lt "$3" ] && [ "$i" -lt 200 ]; do
		lab_alive "$4" || return 1
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(lab_count "$1" "$2")" -ge "$3" ]
}

# lab_fail WHAT LOG...: say what failed, show the logs, exit.
lab_fail() {
	local f
	echo "bench.sh: $1" >&2
	shift
	for f in "$@"; do
		echo "--- $f" >&2
		tail -20 "$f" >&2
	done
	exit 1
}

# memif_vdevs ROLE: the --vdev arguments of the two memif ports every lab
# benchmark uses (net_memif0 and net_memif1 on sockets sw0 and sw1 in
# $lab_tmp) in ROLE (server or client), in the array vdevs; a server first
# removes sockets a previous round left.
memif_vdevs() {
	[ "$1" = client ] || rm -f "$lab_tmp/sw0.sock" "$lab_tmp/sw1.sock"
	vdevs=(--vdev "net_memif0,socket=$lab_tmp/sw0.sock,$memif_args,role=$1"
	       --vdev "net_memif1,socket=$lab_tmp/sw1.sock,$memif_args,role=$1")
}

# switchd_start CPU OPTS...: switchd on CPU polling two memif server ports
# (node 0 and node 1); PID in sw_pid, log in sw_log.
switchd_start() {
	local cpu=$1 pf
	shift
	lab_prefix sw
	memif_vdevs server
	sw_log="$lab_logs/switchd-$lab_seq.log"
	# shellcheck disable=SC2086
	lab_start "$sw_log" "$build/switchd/switchd" $eal_common -l "$cpu" --file-prefix "$pf" \
		"${vdevs[@]}" -- \
		--nodes 2 --port 0=net_memif0 --port 1=net_memif1 "$@"
	sw_pid=$lab_pid
	# The memif socket exists from the device's probe on, but a client that
	# connects before the port is set up may never see its link come up:
	# wait for the line switchd prints once its ports are started.
	lab_wait_count "$sw_log" "^switchd: 2 nodes" 1 "$sw_pid" ||
		lab_fail "switchd did not start" "$sw_log"
}

# nicd_start CPU OPTS...: nicd on CPU serving nodes n0 and n1 on the memif
# clients of switchd's ports, virtual network 1 (conf3); waits until both
# joined. PID in nic_pid, log in nic_log.
nicd_start() {
	local cpu=$1 pf
	shift
	lab_prefix nic
	rm -f "$lab_tmp/run/n0.sock" "$lab_tmp/run/n1.sock"
	nic_log="$lab_logs/nicd-$lab_seq.log"
	memif_vdevs client
	# shellcheck disable=SC2086
	lab_start "$nic_log" "$build/nicd/nicd" $eal_common -l "$cpu" --file-prefix "$pf" \
		"${vdevs[@]}" -- \
		--node n0:net_memif0 --node n1:net_memif1 \
		--vnet "1:$lab_tmp/vnet1.key:conf3" --socket-dir "$lab_tmp/run" "$@"
	nic_pid=$lab_pid
	lab_wait_count "$nic_log" "joined as node" 2 "$nic_pid" ||
		lab_fail "nicd's nodes did not join switchd" "$nic_log" "$sw_log"
}

# testpmd_start CPU: dpdk-testpmd --forward-mode=io between two memif server
# ports on CPU (its main thread sleeps, its forwarding lcore polls).
testpmd_start() {
	local cpu=$1 pf
	lab_prefix tp
	memif_vdevs server
	tp_log="$lab_logs/testpmd-$lab_seq.log"
	# shellcheck disable=SC2086
	lab_start "$tp_log" dpdk-testpmd $eal_common --lcores "0@$cpu,1@$cpu" --file-prefix "$pf" \
		"${vdevs[@]}" -- \
		--forward-mode=io --auto-start --stats-period 3600 --no-lsc-interrupt \
		--total-num-mbufs 16384 --mbuf-size 2432
	tp_pid=$lab_pid
	# As for switchd: clients connect once the ports are started.
	lab_wait_count "$tp_log" "^io packet forwarding" 1 "$tp_pid" ||
		lab_fail "testpmd did not start forwarding" "$tp_log"
}

# fwd_gen CPU FWD_PID OPTS...: run fwd-gen on CPU as the memif clients of
# the two ports; its result line in gen_line, and in fwd_cpu the share of a
# core the forwarder FWD_PID got during (about) the measured window. It
# waits for SIGTERM after measuring (--hold), so the forwarder is stopped
# first: the memif server never sees its client go while it polls.
fwd_gen() {
	local cpu=$1 fwd=$2 pf log t0 t1 w0 w1
	shift 2
	lab_prefix gen
	log="$lab_logs/fwd-gen-$lab_seq.log"
	memif_vdevs client
	# shellcheck disable=SC2086
	lab_start "$log" "$build/tests/bench/fwd-gen" $eal_common -l "$cpu" --file-prefix "$pf" \
		"${vdevs[@]}" -- \
		--port-a net_memif0 --port-b net_memif1 --hold --warmup 0.5 "$@"
	gen_pid=$lab_pid
	# The window starts 0.5 s after the links are up (about 0.3 s from here).
	sleep 0.8
	t0=$(cpu_ticks "$fwd")
	w0=$(date +%s.%N)
	lab_wait_count "$log" "^fwd-gen:" 1 "$gen_pid" || lab_fail "fwd-gen failed" "$log"
	t1=$(cpu_ticks "$fwd")
	w1=$(date +%s.%N)
	gen_line=$(grep "^fwd-gen:" "$log")
	fwd_cpu=$(awk -v a="$t0" -v b="$t1" -v x="$w0" -v y="$w1" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%.0f", 100 * (b - a) / hz / (y - x) }')
}

# field LINE KEY: the value of KEY=value in LINE.
field() {
	sed -n "s/.* $2=\\([^ ]*\\).*/\\1/p" <<<" $1"
}

# median of the arguments (numbers).
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "na"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# cpu_ticks PID: user + system clock ticks of a process so far.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# The machine's load (both cores, %) over the next second, taken when none
# of our processes runs: how busy other jobs keep it.
machine_busy() {
	local a b
	read -r -a a </proc/stat
	sleep 1
	read -r -a b </proc/stat
	awk -v u="$(( (b[1] + b[2] + b[3] + b[6] + b[7]) - (a[1] + a[2] + a[3] + a[6] + a[7]) ))" \
		-v t="$(( (b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + b[7]) - (a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7]) ))" \
		'BEGIN { printf "%.0f", t ? 100 * u / t : 0 }'
}

# xcpu: the round trip of a cache line between CPU 0 and CPU 1 now, in ns
# (tests/bench/xcpu-probe, 0.2 s). On the lab VM it is either 50-90 or
# 310-340 ns and changes every few seconds as the hypervisor moves the
# vCPUs; printed before and after each measurement, it shows how often the
# machine changed state around it (it cannot tell the state during it);
# "na" when the probe cannot run (one CPU, no affinity): it only informs.
xcpu() {
	"$build/tests/bench/xcpu-probe" --cpus 0,1 --duration 0.2 2>/dev/null |
		sed -n 's/.*round_trip_ns=\([0-9]*\).*/\1/p' || echo na
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
	for conf in conf4-sr conf4-sr,order:buffer=4 conf4-sr,order:buffer=1 conf4-gbn; do
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
		ir=$(callgrind_ir "$out/cg-$conf.out" "nic_poll nic_send" \
			"$sim" --preset clint --arbiter lcf --no-bursty --one-vnet --load 0.15 \
			--conf "$conf" --messages 10000 --jobs 1) &&
			ir=$(awk -v i="$ir" 'BEGIN { printf "%.0f", i / 10000 }') || ir=na
		printf "%-10s %22s %22s\n" "$conf" "$pps" "$ir"
	done
}

# callgrind_ir OUT FUNCS CMD...: run CMD under callgrind, counting only
# inside the functions named in FUNCS (space-separated), and print the
# instructions counted. CMD's output goes to OUT.log, callgrind's to OUT.
# Fails when valgrind is missing or CMD fails.
callgrind_ir() {
	local cg=$1 f toggles=()
	for f in $2; do
		toggles+=("--toggle-collect=$f")
	done
	shift 2
	command -v valgrind >/dev/null 2>&1 || return 1
	valgrind --tool=callgrind --callgrind-out-file="$cg" "${toggles[@]}" "$@" \
		>"$cg.log" 2>&1 || return 1
	awk '/^summary:/ { print $2; found = 1 } END { exit !found }' "$cg"
}

# The fabric's cost per QREQ in steady state: the difference between runs of
# 2N and N polls, so joining and the first slot (counted in both) drop out.
bench_fabric() {
	local burst crc n ir1 ir2 fw1 fw2 polls=2000 flag
	if ! command -v valgrind >/dev/null 2>&1; then
		echo "== fabric: skipped (needs valgrind; scripts/setup.sh installs it)"
		return 0
	fi
	echo "== fabric: instructions in sw_fabric_poll per forwarded QREQ (fabric-cost under callgrind: 2 nodes on array ports, every QREQ node 0 -> node 1; runs of $((2 * polls)) and $polls polls, the difference over the difference in QREQs)"
	printf "%-6s %-4s %22s\n" burst crc instructions_per_qreq
	for burst in 32 1; do
		for crc in on off; do
			flag=()
			[ "$crc" = on ] || flag=(--no-crc)
			for n in "$polls" "$((2 * polls))"; do
				callgrind_ir "$out/cg-fabric-$burst-$crc-$n.out" sw_fabric_poll \
					"$build/tests/bench/fabric-cost" --polls "$n" --burst "$burst" "${flag[@]}" \
					>"$out/cg-fabric-$burst-$crc-$n.ir" ||
					{ echo "bench.sh: fabric-cost failed: $out/cg-fabric-$burst-$crc-$n.out.log" >&2; exit 1; }
			done
			ir1=$(cat "$out/cg-fabric-$burst-$crc-$polls.ir")
			ir2=$(cat "$out/cg-fabric-$burst-$crc-$((2 * polls)).ir")
			fw1=$(field "$(grep '^fabric-cost:' "$out/cg-fabric-$burst-$crc-$polls.out.log")" forwarded)
			fw2=$(field "$(grep '^fabric-cost:' "$out/cg-fabric-$burst-$crc-$((2 * polls)).out.log")" forwarded)
			printf "%-6s %-4s %22s\n" "$burst" "$crc" \
				"$(awk -v a="$ir1" -v b="$ir2" -v x="$fw1" -v y="$fw2" 'BEGIN { printf "%.0f", (b - a) / (y - x) }')"
		done
	done
}

bench_guarantees() {
	local f conf res line lost dup reord bad=0 n=${SEGNET_GUARANTEE_MESSAGES:-1000000}
	local extra=${SEGNET_GUARANTEE_SIM_ARGS:-}
	echo "== guarantees: $n messages per case, clint rates, load 0.15, both channels on one virtual network${extra:+, segnet-sim $extra}"
	for f in "--loss 0.01" "--loss 0.05" "--dup 0.01" "--reorder 0.02" "--corrupt 0.01"; do
		for conf in conf1 conf2 conf3 conf4-gbn conf4-sr; do
			# shellcheck disable=SC2086
			if ! res=$("$sim" --preset clint --arbiter lcf --no-bursty --one-vnet --load 0.15 \
				--conf "$conf" $f $extra --messages "$n" --jobs 1 2>&1) ||
				! line=$(grep '^delivery:' <<<"$res"); then
				printf "%s\n" "$res" >&2
				die "guarantees: segnet-sim failed ($conf $f${extra:+ $extra})"
			fi
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
		catchup) args=(--burst 1000000 --catchup-ns 500) ;;
		esac
		echo "== rate: the rate stage on the TSC in a busy loop ($mode${args:+: ${args[*]}}), pinned to CPU 1"
		taskset -c 1 "$build/tests/bench/rate-bench" "${args[@]}" --csv "$out/rate-$mode.csv"
		worst_rate=$(awk -F, 'NR > 1 { e = $4 < 0 ? -$4 : $4; if (e > m) m = e } END { printf "%.3f", m }' "$out/rate-$mode.csv")
		worst_p99=$(awk -F, 'NR > 1 { if ($7 > m) m = $7 } END { printf "%.0f", m }' "$out/rate-$mode.csv")
		figure "rate-$mode-error-pct-worst" "$worst_rate" "0.5" "$(ratio "$worst_rate" 0.5)"
		figure "rate-$mode-p99-gap-error-ns-worst" "$worst_p99" "1000" "$(ratio "$worst_p99" 1000)"
	done
}

# switchd's counter NAME from its exit summary in LOG (0 when absent).
sw_counter() {
	awk -v k="switch.$2" '$1 == k { print $2; found = 1 } END { if (!found) print 0 }' "$1"
}

# veth_pair NS_A NS_B ADDR_A ADDR_B: two network namespaces joined by a
# veth pair (removed at exit).
veth_pair() {
	ip netns add "$1"
	lab_netns+=("$1")
	ip netns add "$2"
	lab_netns+=("$2")
	ip link add "sb$$a" type veth peer name "sb$$b"
	ip link set "sb$$a" netns "$1"
	ip link set "sb$$b" netns "$2"
	ip -n "$1" addr add "$3/24" dev "sb$$a"
	ip -n "$2" addr add "$4/24" dev "sb$$b"
	ip -n "$1" link set lo up
	ip -n "$2" link set lo up
	ip -n "$1" link set "sb$$a" up
	ip -n "$2" link set "sb$$b" up
}

# rtt_segnet: one segnet-ping run; p50 and p99 in seg_p50, seg_p99.
rtt_segnet() {
	local srv log line
	switchd_start 0 --bulk-gbps 0.1 --quick-gbps 10 --idle-after-us 0
	nicd_start 1 --idle-after-us 0
	log="$lab_logs/ping-server-$lab_seq.log"
	lab_start "$log" nice -n -20 taskset -c 1 "$build/nicd/tools/segnet-ping" \
		--nicd "$lab_tmp/run/n1.sock" --key-file "$lab_tmp/vnet1.key" --server
	srv=$lab_pid
	lab_wait_count "$log" "echoing on node 1" 1 "$srv" || lab_fail "ping server" "$log" "$nic_log"
	line=$(nice -n -20 taskset -c 1 "$build/nicd/tools/segnet-ping" --nicd "$lab_tmp/run/n0.sock" \
		--key-file "$lab_tmp/vnet1.key" --node 1 --count "$rtt_pings" --interval 0 --quiet |
		tee "$lab_logs/ping-client-$lab_seq.log" | grep "^rtt")
	lab_stop "$srv"
	lab_stop "$nic_pid"
	lab_stop "$sw_pid"
	# rtt min/mean/p50/p99/max = a/b/c/d/e us
	seg_p50=$(awk -F'[=/ ]+' '{ print $9 }' <<<"$line")
	seg_p99=$(awk -F'[=/ ]+' '{ print $10 }' <<<"$line")
	[ -n "$seg_p50" ] || lab_fail "segnet-ping printed no summary" "$lab_logs/ping-client-$lab_seq.log" "$nic_log" "$sw_log"
}

# rtt_kernel: one sockperf ping-pong run over the veth pair; ref_p50, ref_p99.
rtt_kernel() {
	local srv log
	lab_seq=$((lab_seq + 1))
	log="$lab_logs/sockperf-$lab_seq.log"
	lab_start "$lab_logs/sockperf-server-$lab_seq.log" ip netns exec "sb$$-b" \
		nice -n -20 taskset -c 1 sockperf server -i 10.213.0.2 -p 11111
	srv=$lab_pid
	sleep 0.5
	ip netns exec "sb$$-a" nice -n -20 taskset -c 1 sockperf ping-pong -i 10.213.0.2 -p 11111 \
		-m 32 -t "$rtt_secs" --full-rtt >"$log" 2>&1 || lab_fail "sockperf ping-pong" "$log"
	lab_stop "$srv"
	ref_p50=$(awk '/percentile 50.000 =/ { print $NF }' "$log")
	ref_p99=$(awk '/percentile 99.000 =/ { print $NF }' "$log")
	[ -n "$ref_p50" ] || lab_fail "sockperf printed no percentiles" "$log"
}

bench_rtt() {
	local r f order busy seg50=() seg99=() ref50=() ref99=() ratios=()
	rtt_pings=${SEGNET_BENCH_PINGS:-50000}
	rtt_secs=3
	lab_init
	veth_pair "sb$$-a" "sb$$-b" 10.213.0.1 10.213.0.2
	echo "== rtt: quick round trip node 0 -> node 1 -> node 0 (segnet-ping, 32 bytes of arguments, conf3, $rtt_pings pings back to back) vs kernel UDP over a veth pair between two network namespaces (sockperf ping-pong, 32-byte messages, ${rtt_secs} s, --full-rtt); $rounds rounds"
	echo "placement: switchd busy polling on CPU 0 (--bulk-gbps 0.1 --quick-gbps 10 --idle-after-us 0), nicd busy polling on CPU 1 serving n0 and n1 (--idle-after-us 0), memif bsize=4096;"
	echo "           the two applications (segnet-ping client and server, or sockperf client and server) both on CPU 1 at nice -20, waking on events; the daemons are stopped while sockperf runs"
	printf "%-5s %-8s %10s %10s %10s %10s %8s %6s\n" round first segnet_p50 segnet_p99 kernel_p50 kernel_p99 ratio busy
	for r in $(seq 1 "$rounds"); do
		busy=$(machine_busy)
		order="segnet kernel"
		[ $((r % 2)) = 1 ] || order="kernel segnet"
		for f in $order; do
			if [ "$f" = segnet ]; then
				rtt_segnet
			else
				rtt_kernel
			fi
		done
		seg50+=("$seg_p50")
		seg99+=("$seg_p99")
		ref50+=("$ref_p50")
		ref99+=("$ref_p99")
		ratios+=("$(ratio "$seg_p50" "$ref_p50")")
		printf "%-5s %-8s %10s %10s %10s %10s %8s %5s%%\n" "$r" "${order%% *}" "$seg_p50" "$seg_p99" \
			"$ref_p50" "$ref_p99" "$(ratio "$seg_p50" "$ref_p50")" "$busy"
	done
	echo "rtt: medians (us): segnet p50 $(median "${seg50[@]}") p99 $(median "${seg99[@]}"), kernel UDP p50 $(median "${ref50[@]}") p99 $(median "${ref99[@]}"); p50 ratio per round, median $(median "${ratios[@]}") (logs: $lab_logs)"
	figure "rtt" "$(median "${seg50[@]}")" "$(median "${ref50[@]}")" "$(median "${ratios[@]}")"
	figure "rtt-p99" "$(median "${seg99[@]}")" "$(median "${ref99[@]}")" \
		"$(ratio "$(median "${seg99[@]}")" "$(median "${ref99[@]}")")"
}

# bulk_segnet: one segnet-perf transfer n0 -> n1; Gbit/s in seg_gbps.
bulk_segnet() {
	local srv log clog
	switchd_start 0 --bulk-gbps "$bulk_gbps" --slot-frames 64 --quick-gbps 10 --idle-after-us 0
	nicd_start 1 --idle-after-us 0 --send-buffers 128 --per-target-cap 128
	log="$lab_logs/perf-server-$lab_seq.log"
	clog="$lab_logs/perf-client-$lab_seq.log"
	lab_start "$log" nice -n -20 taskset -c 1 "$build/nicd/tools/segnet-perf" \
		--nicd "$lab_tmp/run/n1.sock" --key-file "$lab_tmp/vnet1.key" --server \
		--duration $((bulk_secs + 30)) --no-verify
	srv=$lab_pid
	lab_wait_count "$log" "server on node 1" 1 "$srv" || lab_fail "perf server" "$log" "$nic_log"
	nice -n -20 taskset -c 1 "$build/nicd/tools/segnet-perf" --nicd "$lab_tmp/run/n0.sock" \
		--key-file "$lab_tmp/vnet1.key" --client --node 1 --size 2048 --window 128 \
		--duration "$bulk_secs" --no-verify >"$clog" 2>&1 ||
		lab_fail "segnet-perf client failed" "$clog" "$nic_log" "$sw_log"
	lab_stop "$srv"
	lab_stop "$nic_pid"
	lab_stop "$sw_pid"
	#   bulk : N completed, ..., X msg/s, Y Gbit/s, hash H
	seg_gbps=$(sed -n 's/.* \([0-9.]*\) Gbit\/s.*/\1/p' "$clog" | head -1)
	seg_retx=$(awk '$1 == "n0.retransmissions" { print $2 }' "$nic_log")
	[ -n "$seg_gbps" ] || lab_fail "segnet-perf printed no rate" "$clog"
}

bench_bulk() {
	local r f order busy segs=() refs=() ratios=() ref cpu_tp gen_tp
	local x0 x_seg x_tp
	bulk_secs=4
	bulk_gbps=15
	lab_init
	echo "== bulk: goodput of 2048-byte bulk messages node 0 -> node 1 through nicd and switchd (segnet-perf --no-verify, window 128, conf3, ${bulk_secs} s) vs dpdk-testpmd --forward-mode=io forwarding 2134-byte frames (a full BREQ) from fwd-gen, counted as 2048 bytes each; $rounds rounds"
	echo "placement: switchd (or testpmd's forwarding lcore) busy polling on CPU 0; nicd (both nodes, or fwd-gen) busy polling on CPU 1; segnet-perf client and server on CPU 1 at nice -20"
	echo "switchd: --bulk-gbps $bulk_gbps --slot-frames 64: 73.7 us slots of up to 64 BREQs, a schedule of 14.2 Gbit/s of payload per pair; nicd: --send-buffers 128 --per-target-cap 128"
	echo "xcpu_seg, xcpu_tp: cache-line round trip between CPU 0 and 1 (ns, tests/bench/xcpu-probe) just before / just after the segnet and the testpmd measurement"
	printf "%-5s %-8s %12s %12s %8s %8s %10s %6s %9s %9s\n" round first segnet_gbps testpmd_gbps ratio cpu_tp seg_retx busy xcpu_seg xcpu_tp
	for r in $(seq 1 "$rounds"); do
		busy=$(machine_busy)
		order="segnet testpmd"
		[ $((r % 2)) = 1 ] || order="testpmd segnet"
		for f in $order; do
			x0=$(xcpu)
			if [ "$f" = segnet ]; then
				bulk_segnet
				x_seg="$x0/$(xcpu)"
			else
				testpmd_start 0
				fwd_gen 1 "$tp_pid" --frame breq --duration "$bulk_secs"
				gen_tp=$gen_line
				cpu_tp="$fwd_cpu/$(field "$gen_line" cpu_pct)"
				lab_stop "$tp_pid"
				lab_stop "$gen_pid"
				x_tp="$x0/$(xcpu)"
			fi
		done
		ref=$(field "$gen_tp" gbps_payload)
		segs+=("$seg_gbps")
		refs+=("$ref")
		ratios+=("$(ratio "$seg_gbps" "$ref")")
		printf "%-5s %-8s %12s %12s %8s %8s %10s %5s%% %9s %9s\n" "$r" "${order%% *}" "$seg_gbps" "$ref" \
			"$(ratio "$seg_gbps" "$ref")" "$cpu_tp" "$seg_retx" "$busy" "$x_seg" "$x_tp"
	done
	echo "bulk: medians: segnet $(median "${segs[@]}") Gbit/s, testpmd $(median "${refs[@]}") Gbit/s; median of the per-round ratios $(median "${ratios[@]}") (logs: $lab_logs)"
	figure "bulk" "$(median "${segs[@]}")" "$(median "${refs[@]}")" "$(median "${ratios[@]}")"
}

# idle_w1: quick messages n0 -> n1 one at a time (segnet-perf --window 1,
# each sent when the last one's acknowledgment completed it) for 2 s, the
# client on CPU 0 with switchd, the server unpinned; messages/s in w1_rate.
idle_w1() {
	local srv log clog
	log="$lab_logs/perf-server-$lab_seq.log"
	clog="$lab_logs/perf-client-$lab_seq.log"
	lab_start "$log" "$build/nicd/tools/segnet-perf" --nicd "$lab_tmp/run/n1.sock" \
		--key-file "$lab_tmp/vnet1.key" --server --duration 30
	srv=$lab_pid
	lab_wait_count "$log" "server on node 1" 1 "$srv" || lab_fail "perf server" "$log" "$nic_log"
	taskset -c 0 "$build/nicd/tools/segnet-perf" --nicd "$lab_tmp/run/n0.sock" \
		--key-file "$lab_tmp/vnet1.key" --client --node 1 --chan quick --window 1 \
		--duration 2 --json >"$clog" 2>&1 ||
		lab_fail "segnet-perf client failed" "$clog" "$nic_log" "$sw_log"
	lab_stop "$srv"
	w1_rate=$(sed -n 's/.*"msgs_per_s": \([0-9.]*\).*/\1/p' "$clog")
	[ -n "$w1_rate" ] || lab_fail "segnet-perf printed no rate" "$clog"
}

# idle_run AFTER_US: switchd and nicd with --idle-after-us AFTER_US (50 and
# 200 are their defaults), two nodes joined, an idle segnet-ping --server
# on n1; their CPU (% of a core) over idle_secs in sw_cpu and nic_cpu; then
# the window-1 rate (idle_w1) in w1_rate.
idle_run() {
	local sw_after=$1 nic_after=$2 srv log t0s t0n t1s t1n w0 w1 hz
	switchd_start 0 --bulk-gbps 0.1 --quick-gbps 10 --idle-after-us "$sw_after"
	nicd_start 1 --idle-after-us "$nic_after"
	log="$lab_logs/ping-server-$lab_seq.log"
	lab_start "$log" "$build/nicd/tools/segnet-ping" --nicd "$lab_tmp/run/n1.sock" \
		--key-file "$lab_tmp/vnet1.key" --server
	srv=$lab_pid
	lab_wait_count "$log" "echoing on node 1" 1 "$srv" || lab_fail "ping server" "$log" "$nic_log"
	sleep 2
	hz=$(getconf CLK_TCK)
	t0s=$(cpu_ticks "$sw_pid")
	t0n=$(cpu_ticks "$nic_pid")
	w0=$(date +%s.%N)
	sleep "$idle_secs"
	t1s=$(cpu_ticks "$sw_pid")
	t1n=$(cpu_ticks "$nic_pid")
	w1=$(date +%s.%N)
	sw_cpu=$(awk -v a="$t0s" -v b="$t1s" -v x="$w0" -v y="$w1" -v hz="$hz" \
		'BEGIN { printf "%.2f", 100 * (b - a) / hz / (y - x) }')
	nic_cpu=$(awk -v a="$t0n" -v b="$t1n" -v x="$w0" -v y="$w1" -v hz="$hz" \
		'BEGIN { printf "%.2f", 100 * (b - a) / hz / (y - x) }')
	lab_stop "$srv"
	idle_w1
	lab_stop "$nic_pid"
	lab_stop "$sw_pid"
}

bench_idle() {
	local r f order busy sws=() nics=() swb=() nicb=() w1s=() w1b=() s n sb nb rs rn w wb
	idle_secs=10
	lab_init
	echo "== idle: CPU of switchd and nicd over ${idle_secs} s (/proc/PID/stat) with back-off (their defaults: --idle-after-us 50 and 200, --idle-sleep-us 100), 2 nodes joined, an idle segnet-ping --server on n1; then quick messages n0 -> n1 one at a time for 2 s (segnet-perf --chan quick --window 1: what the back-off costs a ping-pong); reference: the same daemons busy polling (--idle-after-us 0); $rounds rounds"
	echo "placement: switchd on CPU 0 (--bulk-gbps 0.1: 173 us slots, --quick-gbps 10), nicd on CPU 1 serving n0 and n1; the ping and perf servers unpinned, the window-1 client on CPU 0 (with switchd: doc/tuning.md, Idle back-off)"
	printf "%-5s %-8s %10s %10s %10s %10s %10s %10s %6s\n" round first sw_idle sw_busy nicd_idle nicd_busy w1_idle w1_busy busy
	for r in $(seq 1 "$rounds"); do
		busy=$(machine_busy)
		order="idle busy"
		[ $((r % 2)) = 1 ] || order="busy idle"
		for f in $order; do
			if [ "$f" = idle ]; then
				idle_run 50 200
				s=$sw_cpu
				n=$nic_cpu
				w=$w1_rate
			else
				idle_run 0 0
				sb=$sw_cpu
				nb=$nic_cpu
				wb=$w1_rate
			fi
		done
		sws+=("$s")
		nics+=("$n")
		swb+=("$sb")
		nicb+=("$nb")
		w1s+=("$w")
		w1b+=("$wb")
		printf "%-5s %-8s %10s %10s %10s %10s %10s %10s %5s%%\n" "$r" "${order%% *}" "$s" "$sb" "$n" "$nb" "$w" "$wb" "$busy"
	done
	s=$(median "${sws[@]}")
	n=$(median "${nics[@]}")
	sb=$(median "${swb[@]}")
	nb=$(median "${nicb[@]}")
	rs=$(ratio "$s" "$sb")
	rn=$(ratio "$n" "$nb")
	w=$(median "${w1s[@]}")
	wb=$(median "${w1b[@]}")
	echo "idle: medians (% of a core): switchd $s idle, $sb busy polling; nicd $n idle, $nb busy polling; window 1 (messages/s): $w with back-off, $wb busy polling (logs: $lab_logs)"
	figure "idle-switchd" "$s" "$sb" "$rs"
	figure "idle-nicd" "$n" "$nb" "$rn"
	figure "idle-w1" "$w" "$wb" "$(ratio "$w" "$wb")"
	if awk -v a="$s" -v b="$n" 'BEGIN { exit !(a >= b) }'; then
		echo "idle: the worse of the two is switchd"
		figure "idle" "$s" "$sb" "$rs"
	else
		echo "idle: the worse of the two is nicd"
		figure "idle" "$n" "$nb" "$rn"
	fi
}

bench_forward() {
	local r f tp sw gen_tp gen_sw cpu_tp cpu_sw ratios=() sws=() tps=() busy dur=3 order
	local x0 x_tp x_sw
	lab_init
	echo "== forward: QREQs of 82 bytes from node A to node B through switchd (quick channel, --check-crc on) vs dpdk-testpmd --forward-mode=io, memif ports (bsize=4096), fwd-gen offering all it can, $rounds rounds of ${dur} s each"
	echo "placement: the forwarder (switchd --idle-after-us 0, or testpmd's forwarding lcore) on CPU 0; fwd-gen (sends on A, counts at B, one thread) on CPU 1"
	echo "switchd: --bulk-gbps 0.1 (173 us slots: slot work is negligible) --quick-gbps 1000 (a QREQ serializes in 0.85 ns: the model never limits)"
	echo "columns: Mpps delivered at B; cpu = share of a core the forwarder / fwd-gen got in the window; busy = the machine's load before the round (other jobs)"
	echo "xcpu_tp, xcpu_sw: cache-line round trip between CPU 0 and 1 (ns, tests/bench/xcpu-probe) just before / just after the testpmd and the switchd measurement"
	printf "%-5s %-8s %9s %9s %7s %8s %8s %6s %6s %9s %9s\n" round first testpmd switchd ratio cpu_tp cpu_sw sw_drop busy xcpu_tp xcpu_sw
	for r in $(seq 1 "$rounds"); do
		busy=$(machine_busy)
		order="testpmd switchd"
		[ $((r % 2)) = 1 ] || order="switchd testpmd"
		for f in $order; do
			x0=$(xcpu)
			if [ "$f" = testpmd ]; then
				testpmd_start 0
				fwd_gen 1 "$tp_pid" --duration "$dur"
				gen_tp=$gen_line
				cpu_tp="$fwd_cpu/$(field "$gen_line" cpu_pct)"
				lab_stop "$tp_pid"
				lab_stop "$gen_pid"
				x_tp="$x0/$(xcpu)"
			else
				switchd_start 0 --bulk-gbps 0.1 --quick-gbps 1000 --idle-after-us 0
				fwd_gen 1 "$sw_pid" --join --duration "$dur"
				gen_sw=$gen_line
				cpu_sw="$fwd_cpu/$(field "$gen_line" cpu_pct)"
				lab_stop "$sw_pid"
				lab_stop "$gen_pid"
				x_sw="$x0/$(xcpu)"
			fi
		done
		tp=$(field "$gen_tp" mpps)
		sw=$(field "$gen_sw" mpps)
		[ "$(field "$gen_sw" invalid)" = 0 ] || lab_fail "forward: B received invalid QREQs" "$sw_log"
		tps+=("$tp")
		sws+=("$sw")
		ratios+=("$(ratio "$sw" "$tp")")
		printf "%-5s %-8s %9s %9s %7s %8s %8s %6s %5s%% %9s %9s\n" "$r" "${order%% *}" "$tp" "$sw" \
			"$(ratio "$sw" "$tp")" "$cpu_tp" "$cpu_sw" \
			"$(( $(sw_counter "$sw_log" qreq_collision) + $(sw_counter "$sw_log" rx_invalid) ))" "$busy" \
			"$x_tp" "$x_sw"
	done
	echo "forward: medians: switchd $(median "${sws[@]}") Mpps, testpmd $(median "${tps[@]}") Mpps; median of the per-round ratios $(median "${ratios[@]}") (logs: $lab_logs)"
	figure "forward" "$(median "${sws[@]}")" "$(median "${tps[@]}")" "$(median "${ratios[@]}")"
}

# replay_measure TOOL PPS COUNT: send COUNT frames of the sample with TOOL
# (segnet or tcpreplay) at PPS (0: top speed) from namespace A; the
# receiver's line (namespace B) in rx_line. Not in a subshell: the PIDs and
# EAL prefixes it records must reach lab_cleanup.
replay_measure() {
	local tool=$1 pps=$2 count=$3 loops rxpid ready="$lab_tmp/replay-rx.ready" timing pf
	local sample="$top/pcap/samples/cluster-udp.pcap" rxlog="$lab_logs/rx-stamp-$tool-$pps.log"
	loops=$(( (count + 259) / 260 ))
	rm -f "$ready"
	lab_start "$rxlog" ip netns exec "sgr$$-b" taskset -c 0 "$build/tests/bench/rx-stamp" \
		--iface sgrb --count "$count" --rate "$pps" --timeout-ms 60000 --idle-ms 1000 \
		--ready-file "$ready"
	rxpid=$lab_pid
	lab_wait_file "$ready" "$rxpid" || lab_fail "rx-stamp did not start" "$rxlog"
	if [ "$tool" = segnet ]; then
		timing=(--pps "$pps")
		[ "$pps" = 0 ] && timing=(--topspeed)
		lab_prefix replay
		ip netns exec "sgr$$-a" "$build/pcap/replay/segnet-replay" \
			--no-huge -m 256 --no-pci --no-shconf --no-telemetry -l 1 \
			--file-prefix "$pf" --log-level '*:error' \
			--vdev net_af_packet0,iface=sgra,framesz=2304,blocksz=36864 -- \
			--port net_af_packet0 "${timing[@]}" --loop "$loops" --limit "$count" \
			"$sample" >"$lab_logs/replay-tx-$tool-$pps.log" 2>&1 || true
	else
		timing=(--pps="$pps")
		[ "$pps" = 0 ] && timing=(--topspeed)
		ip netns exec "sgr$$-a" taskset -c 1 tcpreplay -q -i sgra "${timing[@]}" \
			--loop="$loops" --limit="$count" "$sample" \
			>"$lab_logs/replay-tx-$tool-$pps.log" 2>&1 || true
	fi
	# rx-stamp ends by itself once it has COUNT frames or the link is idle.
	local i=0
	while lab_alive "$rxpid" && [ "$i" -lt 900 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	lab_stop "$rxpid"
	rx_line=$(grep '^rx-stamp:' "$rxlog" || echo "rx-stamp: frames=0")
}

bench_replay() {
	local runs=${SEGNET_REPLAY_RUNS:-1} rate tool line count r frames pps err run
	local seg100="" ref100="" seg_rate100="" ok=1
	local seg10="" ref10="" segtop="" reftop="" segtop_pps="" reftop_pps=""
	if ! command -v tcpreplay >/dev/null 2>&1; then
		echo "bench.sh: replay needs tcpreplay (scripts/setup.sh installs it)" >&2
		exit 2
	fi
	lab_init
	ip netns add "sgr$$-a"
	lab_netns+=("sgr$$-a")
	ip netns add "sgr$$-b"
	lab_netns+=("sgr$$-b")
	ip link add sgra netns "sgr$$-a" type veth peer name sgrb netns "sgr$$-b"
	for r in "a sgra" "b sgrb"; do
		set -- $r
		ip netns exec "sgr$$-$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
		ip -n "sgr$$-$1" link set "$2" mtu 2200 up
		ip netns exec "sgr$$-$1" ethtool -K "$2" gro off >/dev/null 2>&1 || true
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
				replay_measure "$tool" "$rate" "$count"
				line=$rx_line
				frames=$(field "$line" frames)
				pps=$(field "$line" rate_pps)
				err=na
				[ "$rate" != 0 ] && err=$(awk -v a="$pps" -v b="$rate" 'BEGIN { printf "%.3f", (a - b) / b * 100 }')
				printf "%-4s %-10s %-9s %8s %13s %9s %12s %12s %12s %6s\n" "$run" \
					"$([ "$rate" = 0 ] && echo top || echo "$rate")" "$tool" "$frames" "$pps" "$err" \
					"$(field "$line" gap_err_p50_ns)" "$(field "$line" gap_err_p99_ns)" \
					"$(field "$line" gap_err_max_ns)" "$(field "$line" drops)"
				case "$rate/$tool" in
				100000/segnet)
					seg100+=" $(field "$line" gap_err_p99_ns)"
					seg_rate100+=" $err" ;;
				100000/tcpreplay) ref100+=" $(field "$line" gap_err_p99_ns)" ;;
				10000/segnet) seg10+=" $(field "$line" gap_err_p99_ns)" ;;
				10000/tcpreplay) ref10+=" $(field "$line" gap_err_p99_ns)" ;;
				0/segnet)
					segtop+=" $(field "$line" gap_err_p99_ns)"
					segtop_pps+=" $pps" ;;
				0/tcpreplay)
					reftop+=" $(field "$line" gap_err_p99_ns)"
					reftop_pps+=" $pps" ;;
				esac
			done
		done
	done
	# Medians over the runs; the figure is the p99 error at 100 kpps (last).
	# shellcheck disable=SC2086
	seg10=$(median $seg10) ref10=$(median $ref10) segtop=$(median $segtop) reftop=$(median $reftop)
	# shellcheck disable=SC2086
	segtop_pps=$(median $segtop_pps) reftop_pps=$(median $reftop_pps)
	figure "replay-10k-p99-gap-error-ns" "$seg10" "$ref10" "$(ratio "$seg10" "$ref10")"
	figure "replay-top-p99-gap-error-ns" "$segtop" "$reftop" "$(ratio "$segtop" "$reftop")"
	figure "replay-top-pps" "$segtop_pps" "$reftop_pps" "$(ratio "$segtop_pps" "$reftop_pps")"
	# shellcheck disable=SC2086
	seg100=$(median $seg100)
	# shellcheck disable=SC2086
	ref100=$(median $ref100)
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
		all) names+=(guarantees protocol rate fabric rtt forward bulk idle replay) ;;
		guarantees|protocol|rate|fabric|rtt|forward|bulk|idle|replay) names+=("$n") ;;
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
