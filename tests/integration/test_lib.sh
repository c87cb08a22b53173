# shellcheck shell=sh disable=SC2034,SC2154
# Sourced by the integration tests (POSIX sh): waiting for files, log lines
# and processes, and failing with the logs. Uses $tmp, the test's folder.

# wait_for FILE TENTHS [PID]: wait up to TENTHS tenths of a second for FILE,
# giving up early when PID (if given) has ended.
wait_for() {
	_i=0
	while [ ! -e "$1" ] && [ "$_i" -lt "$2" ]; do
		if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
			return 1
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -e "$1" ]
}

# stop_and_remove "PIDS" SUFFIX...: a test's clean-up. Kill the processes
# PIDS (a list; may be empty), wait for them, then remove the EAL runtime
# directories of the file prefixes $tag-SUFFIX (scripts/lib/dpdk.sh) and $tmp.
stop_and_remove() {
	for _p in $1; do
		kill "$_p" 2>/dev/null
	done
	wait 2>/dev/null
	shift
	for _s in "$@"; do
		rm -rf "$(dpdk_runtime_dir "$tag-$_s")"
	done
	rm -rf "$tmp"
}

# daemons_test NAME [SUFFIX...]: the set-up of a test that runs switchd,
# nicd and tools in the background: $tag (segnet-it-NAME-PID, their file
# prefixes $tag-sw, $tag-nic, $tag-SUFFIX), $tmp, the PIDs $pids, $swpid and
# $nicpid (empty), the EAL arguments $eal, and at exit (or INT, TERM, HUP)
# stop_and_remove of those PIDs and prefixes. Source scripts/lib/dpdk.sh first.
daemons_test() {
	tag=segnet-it-$1-$$
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/segnet-$1.XXXXXX") || exit 1
	shift
	pids=
	swpid=
	nicpid=
	eal="--no-huge -m 256 --no-pci --no-shconf --log-level lib.telemetry:error"
	_prefixes="sw nic $*"
	# shellcheck disable=SC2086
	trap 'stop_and_remove "$pids $nicpid $swpid" $_prefixes' EXIT
	trap 'exit 1' INT TERM HUP
}

# wait_grep FILE TEXT PID: wait up to 10 s for TEXT in FILE while PID lives.
wait_grep() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ "$_i" -lt 100 ]; do
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
	grep -q "$2" "$1"
}

# wait_exit PID [TENTHS]: wait up to TENTHS (default 100) tenths of a second
# for PID to exit; its status in $st. A process still running then is
# killed, and $st is 124 (as timeout(1) says).
wait_exit() {
	_i=0
	while kill -0 "$1" 2>/dev/null && [ "$_i" -lt "${2:-100}" ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		echo "wait_exit: PID $1 still running after $(( ${2:-100} / 10 )).$(( ${2:-100} % 10 )) s: killed" >&2
		kill -KILL "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		st=124
		return
	fi
	wait "$1"
	st=$?
}

# kill_pids: end the processes listed in $pids and wait for them.
kill_pids() {
	for _p in $pids; do
		kill "$_p" 2>/dev/null
	done
	wait 2>/dev/null
}

# veth_pair_up TAG VA VB: a veth pair between two network namespaces, VA in
# TAG-a ($netns_a), VB in TAG-b ($netns_b), both up at MTU 2200 (a full
# BREQ is 2134 bytes: the kernel drops it at MTU 1500), without IPv6 (its
# neighbour discovery frames would reach the peers). Exits 77 (skipped)
# without root, ip(8) or namespaces, 1 when a step fails. veth_pair_down
# removes it.
veth_pair_up() {
	if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
		echo "SKIP: needs root and ip(8) for network namespaces"
		exit 77
	fi
	netns_a=$1-a
	if ! ip netns add "$netns_a" 2>/dev/null; then
		netns_a=
		echo "SKIP: cannot create network namespaces"
		exit 77
	fi
	netns_b=$1-b
	ip netns add "$netns_b" || exit 1
	ip link add "$2" type veth peer name "$3" || exit 1
	ip link set "$2" netns "$netns_a" || exit 1
	ip link set "$3" netns "$netns_b" || exit 1
	ip netns exec "$netns_a" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" 2>/dev/null
	ip netns exec "$netns_b" sysctl -qw "net.ipv6.conf.$3.disable_ipv6=1" 2>/dev/null
	ip -n "$netns_a" link set "$2" mtu 2200 up || exit 1
	ip -n "$netns_b" link set "$3" mtu 2200 up || exit 1
}

# veth_pair_down: remove the namespaces of veth_pair_up, and the veths in them.
veth_pair_down() {
	[ -n "${netns_a:-}" ] && ip netns del "$netns_a" 2>/dev/null
	[ -n "${netns_b:-}" ] && ip netns del "$netns_b" 2>/dev/null
}

# fail MESSAGE...: print it and every log in $tmp, exit 1.
fail() {
	echo "FAIL: $*"
	for _f in "$tmp"/*.log; do
		[ -e "$_f" ] || continue
		echo "--- $(basename "$_f")"
		cat "$_f"
	done
	exit 1
}

# expect STATUS WORD ARGS...: $expect_prog ARGS exits STATUS and prints WORD
# (its output in $out); counts in $passed and $failed.
expect() {
	_want=$1
	_word=$2
	shift 2
	"$expect_prog" "$@" >"$out" 2>&1
	_rc=$?
	if [ "$_rc" = "$_want" ] && grep -q -e "$_word" "$out"; then
		passed=$((passed + 1))
		echo "ok: exit $_rc, names '$_word': $(grep -e "$_word" "$out" | head -1)"
	else
		failed=$((failed + 1))
		echo "FAIL: $(basename "$expect_prog") $* exited $_rc (want $_want), output:"
		cat "$out"
	fi
}
