# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash disable=SC2034
#
# What the virtual-lab tests (lab_*.sh) share; sourced, not run. Each test
# is called as
#
#   lab_TEST.sh LAB_SH BUILD_DIR
#
# and brings its own lab up with scripts/lab.sh in a temporary directory,
# on the link type $SEGNET_LAB_LINK (memif by default; vhost; veth needs
# root and is skipped, exit 77, without it). $SEGNET_LAB_SEED seeds
# what is random (default 1). At exit, failure included, it stops every
# process it started by PID, takes the lab down with lab.sh and checks
# that nothing of it is left.

# wait_for, wait_grep, wait_exit (fail is this file's own, below).
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

lab_sh=${1:?usage: $0 LAB_SH BUILD_DIR}
build=${2:?usage: $0 LAB_SH BUILD_DIR}
link=${SEGNET_LAB_LINK:-memif}
seed=${SEGNET_LAB_SEED:-1}
test_name=$(basename "$0" .sh)
ping="$build/nicd/tools/segnet-ping"
perf="$build/nicd/tools/segnet-perf"
stat="$build/nicd/tools/segnet-stat"
app="$build/tests/integration/lab-app"
inject="$build/tests/integration/lab-inject"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/segnet-lab-it.XXXXXX") || exit 1
# Short and unique: telemetry prefixes and namespaces carry it.
lab_name=it$$
lab_dir=$tmp/lab
lab_up_done=0
pids=
lab_pids=
t_start=$(date +%s.%N)

case "$link" in
memif) ;;
vhost|veth)
	if [ "$(id -u)" != 0 ] && [ "$link" = veth ]; then
		echo "SKIP: --link veth needs root"
		rm -rf "$tmp"
		exit 77
	fi
	;;
*)
	echo "SEGNET_LAB_LINK must be memif, vhost or veth, not '$link'" >&2
	rm -rf "$tmp"
	exit 2
	;;
esac
echo "$test_name: link $link, seed $seed, lab $lab_name in $lab_dir"

# lab.sh on this test's lab, with the binaries of the build under test
# (not the tree's build/: an ASan build must run its own daemons).
lab() {
	"$lab_sh" "$@" --name "$lab_name" --dir "$lab_dir" --build "$build"
}

# Elapsed seconds since the test started.
elapsed() {
	awk -v a="$t_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# True when process $1 runs (a zombie waiting for its reaper does not).
pid_running() {
	[ -r "/proc/$1/stat" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# Take the lab down and check that nothing of it is left; 0 when clean.
lab_down_check() {
	lab down >"$tmp/down.log" 2>&1 || { cat "$tmp/down.log"; return 1; }
	# After a failed up, lab.sh has already torn down: nothing to do.
	grep -q "checked: no process\|nothing to do" "$tmp/down.log" ||
		{ cat "$tmp/down.log"; return 1; }
	lab_left_check
}

# Check, apart from what lab.sh says, that nothing of the lab is left:
# its directory, EAL runtime directories, namespaces, processes.
lab_left_check() {
	local left=
	[ -e "$lab_dir" ] && left="$left $lab_dir"
	for p in sw nicd nicd-n0 nicd-n1 nicd-n2 nicd-n3; do
		for rd in "/var/run/dpdk/segnet-lab-$lab_name-$p" \
			  "${XDG_RUNTIME_DIR:-/tmp}/dpdk/segnet-lab-$lab_name-$p"; do
			[ -e "$rd" ] && left="$left $rd"
		done
		if command -v ip >/dev/null 2>&1 &&
		   ip netns list 2>/dev/null | grep -q "^segnet-lab-$lab_name-$p\b"; then
			left="$left netns:segnet-lab-$lab_name-$p"
		fi
	done
	for p in $lab_pids; do
		pid_running "$p" && left="$left pid:$p"
	done
	if [ -n "$left" ]; then
		echo "left behind:$left"
		return 1
	fi
	return 0
}

# More labs a test brings up itself ("NAME:DIR ..."): taken down at exit.
lab_others=

cleanup() {
	local rc=$?
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for o in $lab_others; do
		"$lab_sh" down --name "${o%%:*}" --dir "${o#*:}" >/dev/null 2>&1
	done
	if [ "$lab_up_done" = 1 ]; then
		if ! lab_down_check; then
			echo "FAIL: lab.sh down did not clean up"
			rc=1
		fi
	fi
	rm -rf "$tmp"
	exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
	echo "FAIL ($test_name, link $link, seed $seed, after $(elapsed) s): $*"
	if [ "$lab_up_done" = 1 ]; then
		lab status 2>&1
		for f in "$lab_dir"/logs/*.log; do
			[ -f "$f" ] || continue
			echo "--- $f"
			tail -n 40 "$f"
		done
	fi
	for f in "$tmp"/*.log "$tmp"/*.json; do
		[ -f "$f" ] || continue
		echo "--- $f"
		tail -n 40 "$f"
	done
	exit 1
}

# Bring the lab up with these options (and the link type); export its
# environment (SEGNET_SOCKET_DIR, SEGNET_LAB_KEY, ...).
lab_up() {
	lab_up_done=1
	lab up --link "$link" "$@" >"$tmp/up.log" 2>&1 || { cat "$tmp/up.log"; fail "lab.sh up $*"; }
	cat "$tmp/up.log"
	eval "$(lab env)"
	lab_note_pids
	echo "$test_name: lab up after $(elapsed) s"
}

# The lab's processes as its state file has them now (a key's last value:
# after a restart-switchd or start-node, the new ones), in $lab_pids: those
# checked gone at the end.
lab_note_pids() {
	lab_pids=$(awk -F= '$1 ~ /^proc\..*\.pid$/ { v[$1] = $2 } END { for (k in v) print v[k] }' \
		"$lab_dir/lab.state" | sort -u | tr '\n' ' ')
}

# A counter of a daemon: tel PREFIX COMMAND NAME.
tel() {
	"$stat" --prefix "$1" --once --all --cmd "$2" 2>/dev/null | awk -v k="$3" '$1 == k { print $2 }'
}

# Start a segnet-perf server on node $1 (vnet 1) with more options
# ($3...): its JSON report in $tmp/$2.json, its log in $tmp/$2.log, its
# PID in $psrv.
perf_server() {
	local node=$1 name=$2
	shift 2
	"$perf" --nicd "n$node" --key-file "$SEGNET_LAB_KEY" --server --json "$@" \
		>"$tmp/$name.json" 2>"$tmp/$name.log" &
	psrv=$!
	pids="$pids $psrv"
	wait_grep "$tmp/$name.log" "server on node $node endpoint" "$psrv" ||
		fail "perf server $name on n$node did not start"
}

# Start a ping server on node $1 (vnet 1); its PID in $srv.
ping_server() {
	"$ping" --nicd "n$1" --key-file "$SEGNET_LAB_KEY" --server >"$tmp/ping-server-n$1.log" 2>&1 &
	srv=$!
	pids="$pids $srv"
	wait_grep "$tmp/ping-server-n$1.log" "echoing on node $1" "$srv" ||
		fail "ping server on n$1 did not start"
}

pass() {
	echo "PASS ($test_name, link $link, seed $seed, $(elapsed) s)"
}
