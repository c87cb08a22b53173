#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: scripts/lab.sh itself. Errors are clear and exit non-zero,
# up and down are safe to repeat, and down leaves nothing behind.
#
#   lab_script.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
#   1. --help; bad arguments exit 2 naming the argument (a value a daemon
#      refuses too, without "tearing down": nothing was started); missing binaries
#      exit 1 and point at scripts/setup.sh; a daemon that exits before it
#      runs its binary: exit 1 with its status; veth as an ordinary user
#      exits 1 saying it needs root (when run as root, with setpriv);
#   2. status and down of a lab that is not up: 1 and 0;
#   3. up, then up again: "already up", exit 1, the lab unharmed;
#      stop-node on a node that shares its nicd: exit 1; a NODE spelt
#      otherwise than nI (n01) or not in the lab: exit 2; restart-switchd
#      while n1 is stopped waits for the others only; vnet 1 runs conf3
#      with the timer's late_floor on, as up appends it by default;
#   4. every process of the lab killed with SIGKILL (a crash): status says
#      so, and up cleans the leftovers and brings the lab up again (with
#      --no-late-floor: conf3 as it is);
#   5. a nicd that does not answer SIGTERM (SIGSTOP) is killed after
#      down --timeout; down leaves nothing; down again: exit 0;
#   6. as root: up --huge reserves hugepages and mounts hugetlbfs in the
#      lab directory; down unmounts it and gives the pages back.
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

# expect_now STATUS TEXT CMD...: run CMD, check its status and that TEXT is in
# its output; fail at once if not (test_lib.sh's expect counts and goes on).
expect_now() {
	local want=$1 text=$2 rc
	shift 2
	"$@" >"$tmp/cmd.log" 2>&1
	rc=$?
	if [ "$rc" != "$want" ] || ! grep -q -- "$text" "$tmp/cmd.log"; then
		cat "$tmp/cmd.log"
		fail "'$*': exit $rc (expected $want) or no '$text' in the output"
	fi
	echo "ok: exit $rc: $(grep -m 1 -- "$text" "$tmp/cmd.log")"
}

# 1. Command line.
expect_now 0 "scripts/lab.sh up \[--nodes N\]" "$lab_sh" --help
expect_now 2 "--nodes must be 2 to 32" lab up --nodes 1
expect_now 2 "--nodes must be 2 to 32" lab up --nodes 33
expect_now 2 "--nodes must be 2 to 32" lab up --nodes 08	# not octal 8, not an error of bash's
expect_now 2 "--link needs a value" lab up --link --nodes 3
touch "$tmp/a-file"
expect_now 2 "is not a directory" "$lab_sh" up --link "$link" --name "$lab_name" --dir "$tmp/a-file"
expect_now 2 "--link must be vhost, veth or memif" lab up --link ethernet
expect_now 2 "unknown command 'sideways'" lab sideways
expect_now 2 "--bulk-gbps must be a rate" lab up --bulk-gbps fast
# The rates switchd and nicd take (switchd's refusal says which): up refuses
# one outside them itself, before it makes anything (not a daemon's refusal
# after DIR was made, nor --down-ms's for a slot of seconds), and takes both
# ends (--down-ms 5, refused after the rates, shows they passed).
"$build/switchd/switchd" -- --nodes 2 --port 0=a --port 1=b --bulk-gbps 0 --check \
	>"$tmp/cmd.log" 2>&1
read -r lo hi < <(sed -n 's/.*--bulk-gbps 0: must be between \([0-9.]*\) and \([0-9.]*\)$/\1 \2/p' \
	"$tmp/cmd.log")
[ -n "$hi" ] || { cat "$tmp/cmd.log"; fail "switchd does not say the rates it takes"; }
expect_now 2 "^lab.sh: --bulk-gbps must be a rate in Gbit/s from $lo to $hi (what switchd and nicd take), not '$(awk -v g="$lo" 'BEGIN { print g / 2 }')'" \
	lab up --link "$link" --bulk-gbps "$(awk -v g="$lo" 'BEGIN { print g / 2 }')"
[ -e "$lab_dir" ] && fail "up refusing --bulk-gbps below $lo left $lab_dir"
expect_now 2 "^lab.sh: --quick-gbps must be a rate in Gbit/s from $lo to $hi (what switchd and nicd take), not '${hi}1'" \
	lab up --link "$link" --quick-gbps "${hi}1"
expect_now 2 "^lab.sh: --down-ms must be a whole number" lab up --link "$link" \
	--bulk-gbps "$lo" --quick-gbps "$hi" --down-ms 5
expect_now 2 "--vnet must be ID:CONF" lab up --vnet 1:conf3
expect_now 2 "--grant-lead must be 1 to 64" lab up --grant-lead 0
expect_now 2 "--fault must be KEY=VALUE" lab up --fault "loss 0.1"
expect_now 2 "--switch-fault must be KEY=VALUE" lab up --switch-fault "loss=0.1;rm"
# A value the daemon refuses: up checks it with the daemon's --check first.
# A refusal, with nothing started: it says why, not "tearing down".
expect_now 2 "--fault loss=2: must be between 0 and 1" lab up --link "$link" --fault loss=2
[ -e "$lab_dir" ] && fail "a failed up left $lab_dir"
grep -q "tearing down" "$tmp/cmd.log" && fail "up refusing --fault says it tears down"
expect_now 2 "'conf9' is neither a configuration" lab up --link "$link" --conf conf9
[ -e "$lab_dir" ] && fail "a failed up left $lab_dir"
grep -q "tearing down" "$tmp/cmd.log" && fail "up refusing --conf says it tears down"
expect_now 1 "scripts/setup.sh" "$lab_sh" up --link "$link" --build "$tmp/no-build" \
	--name "$lab_name" --dir "$lab_dir"
[ -e "$lab_dir" ] && fail "a failed up left $lab_dir"
# A switchd that exits before it runs (here a script that passes --check
# and exits 3; env not finding its binary is another): up says so at once,
# with the status, and leaves nothing.
mkdir -p "$tmp/exits-build/switchd" "$tmp/exits-build/nicd/tools"
printf '#!/bin/sh\ncase "$*" in *--check*) exit 0 ;; esac\nexit 3\n' \
	>"$tmp/exits-build/switchd/switchd"
chmod +x "$tmp/exits-build/switchd/switchd"
ln -s "$build/nicd/nicd" "$tmp/exits-build/nicd/nicd"
ln -s "$build/nicd/tools/segnet-stat" "$tmp/exits-build/nicd/tools/segnet-stat"
expect_now 1 "switchd (pid [0-9]*) exited with status 3 before it ran" \
	"$lab_sh" up --link "$link" --build "$tmp/exits-build" --name "$lab_name" --dir "$lab_dir"
[ -e "$lab_dir" ] && fail "a failed up left $lab_dir"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	expect_now 1 "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$lab_sh" up --link veth --name "$lab_name" --dir "$tmp/nobody"
fi

# 2. A lab that is not up.
expect_now 1 "is not up" lab status
expect_now 1 "is not up" lab restart-switchd
expect_now 2 "restart-switchd takes no NODE" lab restart-switchd n0
expect_now 0 "nothing to do" lab down

# 3. Up twice; stop-node on a shared node.
lab_up --nodes 2 --solo 1
grep -qx "conf=conf3,timer:late_floor=on" "$lab_dir/lab.state" ||
	fail "up did not turn the timer's late_floor on: $(grep '^conf=' "$lab_dir/lab.state")"
expect_now 1 "already up" lab up --link "$link" --nodes 2
expect_now 0 "joined as node 1" lab status
expect_now 1 "shares its nicd" lab stop-node n0
expect_now 2 "no node 'n7'" lab stop-node n7
expect_now 2 "no node 'n99999999999999999999'" lab attach n99999999999999999999
# n01 is not n1: its device (net_memif01, ...) and process (nicd-n01) are
# nobody's, so attach would hand out n1's link while n1 runs, and stop-node
# would stop nothing and say it did.
expect_now 2 "NODE must be n0, n1, ... (n and the node's number, no leading zero), not 'n01'" \
	lab attach n01
expect_now 2 "not 'n01'" lab stop-node n01
expect_now 2 "not 'n01'" lab start-node n01
expect_now 2 "not 'node1'" lab attach node1
expect_now 1 "n1 is running (nicd-n1)" lab attach n1
expect_now 0 "n1 stopped" lab stop-node n1
expect_now 1 "n1 is stopped already" lab stop-node n1
expect_now 0 "every running node joined it again" lab restart-switchd
expect_now 0 "n1 started" lab start-node n1
lab_note_pids

# 4. A crash: every process killed; up brings it back.
for p in $lab_pids; do
	kill -KILL "$p"
done
sleep 0.3
expect_now 1 "DEAD" lab status
expect_now 1 "switchd does not answer" lab status
if [ "$link" != vhost ]; then
	expect_now 1 "is not running" lab restart-switchd
fi
expect_now 0 "cleaning up what a previous run left" lab up --link "$link" --nodes 2 --solo 1 \
	--no-late-floor
grep -qx "conf=conf3" "$lab_dir/lab.state" ||
	fail "up --no-late-floor changed the configuration: $(grep '^conf=' "$lab_dir/lab.state")"
expect_now 0 "joined as node 1" lab status
eval "$(lab env)"
lab_note_pids

# 5. A nicd that ignores SIGTERM while stopped; down kills it and cleans up.
nicpid=$(awk -F= '$1 == "proc.nicd.pid" { v = $2 } END { print v }' "$lab_dir/lab.state")
kill -STOP "$nicpid"
expect_now 0 "SIGKILL" lab down --timeout 1
grep -q "checked: no process" "$tmp/cmd.log" || fail "down did not check what is left"
lab_left_check || fail "down left something"
expect_now 0 "nothing to do" lab down
lab_up_done=0

# 6. Hugepages (root only).
if [ "$(id -u)" = 0 ] && grep -q hugetlbfs /proc/filesystems; then
	pages=$(cat /proc/sys/vm/nr_hugepages)
	lab_up --nodes 2 --huge
	mountpoint -q "$lab_dir/huge" || fail "--huge: no hugetlbfs on $lab_dir/huge"
	grep -q -- "--huge-dir $lab_dir/huge" "$lab_dir/logs/sw.log" || fail "--huge: switchd not on hugepages"
	expect_now 0 "joined as node 1" lab status
	lab_down_check || fail "down left something after --huge"
	lab_up_done=0
	mountpoint -q "$lab_dir/huge" 2>/dev/null && fail "--huge: still mounted"
	[ "$(cat /proc/sys/vm/nr_hugepages)" = "$pages" ] ||
		fail "--huge: nr_hugepages $(cat /proc/sys/vm/nr_hugepages), was $pages"
	echo "ok: --huge: mounted and unmounted, nr_hugepages back to $pages"
fi
pass
