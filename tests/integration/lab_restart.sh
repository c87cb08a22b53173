#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: switchd restarts, and the nodes find it again.
#
#   lab_restart.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
# A 3-node lab; an echo server on n1 answers 5 quick pings from n0. Then
# lab.sh restart-switchd stops switchd (SIGTERM) and starts it again with
# the same command line; later switchd is killed (SIGKILL, a crash) and
# restart-switchd starts it again. After each, every node joins within
# --join-timeout (10 s), n0's pings to n1 all come back, and the time from
# the restart to the first echo is printed. nicd is not restarted: the same
# nicd and the same echo server keep running; on memif and vhost nicd saw
# its links go down and brought them back (link_down, port_restarts,
# link_up): memif by restarting its ports, vhost by creating its
# virtio-user devices again. nicd's mbufs are all back in their pools
# after the restarts (its exit check, at lab.sh down).
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

nicd_pid() {
	awk -F= '$1 == "proc.nicd.pid" { p = $2 } END { print p }' "$lab_dir/lab.state"
}

# A counter of node n0 in nicd's telemetry.
n0_counter() {
	tel "$SEGNET_LAB_NICD_PREFIX" /segnet/nic/stats,n0 "nic.stats.n0.$1"
}

# Ping n1 from n0 until an echo comes back (at most 10 s); print how long
# since $1 (date +%s.%N) it took.
first_echo_after() {
	local i
	for ((i = 0; i < 100; i++)); do
		if "$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 1 --count 1 --timeout 100 \
			--join-wait 100 --quiet >/dev/null 2>&1; then
			awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
			return 0
		fi
	done
	return 1
}

# Restart switchd with lab.sh ($1: how it went away, for the messages).
restart_and_ping() {
	local how=$1 t0 took
	t0=$(date +%s.%N)
	lab restart-switchd --join-timeout 10 >"$tmp/restart.log" 2>&1 ||
		{ cat "$tmp/restart.log"; fail "lab.sh restart-switchd after $how"; }
	cat "$tmp/restart.log"
	lab_note_pids
	took=$(first_echo_after "$t0") || fail "no echo from n1 within 10 s of restart-switchd after $how"
	echo "$test_name: $how: first echo $took s after restart-switchd began"
	"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 1 --count 5 --interval 20 \
		>"$tmp/ping.log" 2>&1 || fail "pings n0 -> n1 after $how"
	grep -q "5 sent, 5 received, 0% lost" "$tmp/ping.log" || fail "pings lost after $how"
}

lab_up --nodes 3
ping_server 1
"$ping" --nicd n0 --key-file "$SEGNET_LAB_KEY" --node 1 --count 5 --interval 20 \
	>"$tmp/ping.log" 2>&1 || fail "pings n0 -> n1 before the restart"
nicd0=$(nicd_pid)
srv0=$srv

restart_and_ping "SIGTERM"
kill -KILL "$(awk -F= '$1 == "proc.sw.pid" { p = $2 } END { print p }' "$lab_dir/lab.state")"
restart_and_ping "SIGKILL"

[ "$(nicd_pid)" = "$nicd0" ] || fail "nicd was restarted on $link"
pid_running "$srv0" || fail "the echo server on n1 did not live through the restarts"
[ "$(n0_counter rejoins)" -ge 2 ] || fail "n0 did not join again twice (rejoins $(n0_counter rejoins))"
if [ "$link" != veth ]; then
	for c in link_down link_up port_restarts; do
		v=$(n0_counter "$c")
		echo "$test_name: n0 $c $v"
		[ "${v:-0}" -ge 2 ] || fail "n0's $c is ${v:-none}, not at least 2"
	done
fi
# nicd's exit check after the restarts: every mbuf back, no abort at exit.
kill -TERM "$nicd0"
wait_exit "$nicd0" 100
grep -q "^nicd: no mbuf leaked" "$lab_dir/logs/nicd.log" ||
	{ tail -n 20 "$lab_dir/logs/nicd.log"; fail "nicd did not exit cleanly after the restarts"; }
! grep -q "PANIC" "$lab_dir/logs/nicd.log" || fail "nicd: EAL PANIC at exit"
pass
