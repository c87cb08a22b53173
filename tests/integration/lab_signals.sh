#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Virtual lab: scripts/lab.sh and signals, directories and the environment.
#
#   lab_signals.sh LAB_SH BUILD_DIR      (lab_lib.sh: link type, clean-up)
#
#   1. up interrupted by a SIGINT to its process group (a Ctrl-C), when
#      switchd has just been started, when the nicd has, and a moment
#      later: it exits 130 saying "up interrupted" (no "switchd did not
#      come up", no "up failed") and leaves nothing; or, when up had
#      already finished, it exited 0 and every daemon is alive;
#   2. a script that ran up is interrupted afterwards (SIGINT to its
#      process group): the lab's daemons run on, status exits 0;
#   3. lab.sh finds the lab of the environment (SEGNET_LAB_DIR, as
#      lab.sh env exports it); --name goes first;
#   4. up with the lab's name in another directory (empty, or not there):
#      refused before anything is made, no teardown message, the empty
#      directory the user gave stays and the missing one is not made;
#   5. a lab brought up in a directory that was there (empty) before: down
#      keeps that directory.
#   7. (first) a SEGNET_LAB_DIR lab.sh cannot take: exit 2, the message
#      names SEGNET_LAB_DIR (before: --dir, which was not given).
#   6. (first) up that fails after making --dir and two parents that were
#      not there (a --conf nicd refuses): exit 2, and none of the three is
#      left (before: the top one was), a parent that was there stays.
#   8. a SIGINT to up's shell alone while its work finishes (the shell's
#      trap held on a FIFO until the work has exited 0): up exits 0, the
#      lab up (before: 130, the lab left running);
#   9. (with strace, as 10) a second SIGINT to up's process group while
#      up's shell removes its temporary folder (strace holds its rm): the
#      folder goes all the same (before: the signal killed rm, it stayed);
#  10. (with strace) a SIGTERM to up's shell just after it made its
#      temporary folder, before its traps (strace slows its wait4 calls):
#      exit 143 and the folder is gone (before: it stayed).
#  11. a script that runs up and goes on, interrupted during up: up ends
#      by the SIGINT and the script stops too (before: up exited 130 and
#      the script went on).
#  12. SIGQUIT to up's shell alone, then to its process group (Ctrl-\),
#      while it starts switchd: up ends by SIGQUIT once its work has torn
#      down, nothing left (before: bash ignores SIGQUIT, so up's shell went
#      on: to the shell alone, the lab came up, exit 0; to the group, up
#      was torn down only because the SIGQUIT killed a command its work
#      ran at that moment, exit 131);
#  13. SIGKILL to up's shell while it starts switchd: its work notices,
#      tears down, removes the temporary folder (before: it brought the lab
#      up and the folder stayed); a folder of a killed up whose PID is gone
#      is removed by the next down;
#  14. up's output closed (up --nicd-first | :, SIGPIPE at its first line,
#      before the lab is up): it tears down saying so, not "interrupted",
#      and exits 141 (before: its work's EXIT trap saw status 0 and did
#      nothing, the nicd was left running, silently).
# Every up runs with TMPDIR=$tmp/tmpdir: no segnet-lab-up.* may be left.

# A signal ignored when a shell starts stays ignored in it and every shell
# it starts, and cannot be trapped: run in the background without job
# control (`scripts/test.sh &`), this test and every up it starts would
# ignore SIGINT and SIGQUIT, and the cases above fail. Start again with the
# default dispositions, as a test run from a terminal has them.
if [ -z "${LAB_SIGNALS_DEFAULTS:-}" ]; then
	LAB_SIGNALS_DEFAULTS=1 exec env --default-signal=INT,QUIT "$0" "$@"
fi
# shellcheck source=tests/integration/lab_lib.sh
. "$(dirname "$0")/lab_lib.sh"

# Job control: each background job is a process group of its own, as a
# command in an interactive shell is, and does not ignore SIGINT.
set -m

# wait_key STATE KEY: wait up to 20 s for KEY= in the state file STATE.
wait_key() {
	local i
	for ((i = 0; i < 2000; i++)); do
		grep -q "^$2=" "$1" 2>/dev/null && return 0
		sleep 0.01
	done
	return 1
}

# The daemons' PIDs in state file $1.
state_pids() {
	awk -F= '$1 ~ /^proc\..*\.pid$/ { print $2 }' "$1" 2>/dev/null | sort -u | tr '\n' ' '
}

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"

# up's temporary folders (segnet-lab-up.*) go here: none may be left.
export TMPDIR=$tmp/tmpdir
mkdir "$TMPDIR"
no_up_tmp() {
	! compgen -G "$TMPDIR/segnet-lab-up.*" >/dev/null ||
		fail "$1 left $(echo "$TMPDIR"/segnet-lab-up.*)"
}

# 7. A directory from the environment that cannot be a lab's is said so.
SEGNET_LAB_DIR="$tmp/a b" "$lab_sh" status >"$tmp/envdir.log" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "^lab.sh: SEGNET_LAB_DIR .* must be a path" "$tmp/envdir.log" ||
	fail "SEGNET_LAB_DIR with a space: exit $rc, want 2 naming SEGNET_LAB_DIR: $(cat "$tmp/envdir.log")"
echo "ok: a SEGNET_LAB_DIR that cannot be a lab's is named as such"

# 6. A failed up removes every folder it made for --dir, and only those.
mkdir "$tmp/had"
for d in "$tmp/deep/er/lab" "$tmp/had/lab"; do
	"$lab_sh" up --link "$link" --nodes 2 --name "${lab_name}d" --dir "$d" --conf nosuchconf \
		--build "$build" >"$tmp/deep.log" 2>&1
	rc=$?
	[ "$rc" = 2 ] && grep -q "nosuchconf" "$tmp/deep.log" ||
		fail "up with a --conf nicd refuses, --dir $d: exit $rc, want 2: $(cat "$tmp/deep.log")"
done
[ ! -e "$tmp/deep" ] || fail "a failed up left $(find "$tmp/deep")"
[ -d "$tmp/had" ] && [ ! -e "$tmp/had/lab" ] ||
	fail "a failed up in $tmp/had/lab: $(ls -A "$tmp/had" 2>&1)"
echo "ok: a failed up removes the folders it made for --dir, not one that was there"

# 1. up interrupted at three moments.
iname=${lab_name}i
idir=$tmp/intr
# (and the lab's name in other directories, should a refused up succeed)
lab_others="$iname:$idir ${lab_name}k:$tmp/other $lab_name:$tmp/other $lab_name:$tmp/new/lab"
for when in sw nicd late; do
	"$lab_sh" up --link "$link" --nodes 2 --name "$iname" --dir "$idir" --build "$build" \
		>"$tmp/intr-$when.log" 2>&1 &
	job=$!
	key=proc.$when.pid
	[ "$when" != late ] || key=proc.nicd.pid
	wait_key "$idir/lab.state" "$key" || fail "up ($when): no $key in its state file"
	[ "$when" != late ] || sleep 0.3
	ipids=$(state_pids "$idir/lab.state")
	kill -INT -- "-$job"
	wait "$job"
	rc=$?
	echo "$test_name: SIGINT to up's process group at $when: exit $rc"
	sed 's/^/  | /' "$tmp/intr-$when.log"
	if [ "$rc" = 0 ]; then
		# up had finished: every daemon must be alive.
		"$lab_sh" status --name "$iname" --dir "$idir" >"$tmp/intr-status.log" 2>&1 ||
			fail "up exited 0 after the SIGINT at $when, but status fails: $(cat "$tmp/intr-status.log")"
		"$lab_sh" down --name "$iname" --dir "$idir" >/dev/null 2>&1 ||
			fail "down after up ($when)"
		continue
	fi
	[ "$rc" = 130 ] || fail "up interrupted at $when: exit $rc, want 130"
	grep -q "up interrupted; tearing down what it started" "$tmp/intr-$when.log" ||
		fail "up interrupted at $when does not say so"
	# (a daemon still running after the stop timeout ignored the SIGTERM)
	if grep -q "did not come up\|up failed\|exited\|interrupt trap\|unexpected EOF\|still running" \
		"$tmp/intr-$when.log"; then
		fail "up interrupted at $when reports a failure of the lab or of bash"
	fi
	[ ! -e "$idir" ] || fail "up interrupted at $when left $idir: $(ls -R "$idir")"
	for p in $ipids; do
		pid_running "$p" && fail "up interrupted at $when left process $p running"
	done
	for p in sw nicd; do
		[ ! -e "$(dpdk_runtime_dir "segnet-lab-$iname-$p")" ] ||
			fail "up interrupted at $when left $(dpdk_runtime_dir "segnet-lab-$iname-$p")"
	done
	no_up_tmp "up interrupted at $when"
done

# 11. A script that runs up and goes on, interrupted during up (a Ctrl-C
# to its process group): up ends by the SIGINT, so the script stops too
# (before: up exited 130, and bash went on after a child that did).
bash -c '"$@" >"'"$tmp/intr-caller.log"'" 2>&1; echo "up: $?, went on" >"'"$tmp/caller.rc"'"' up \
	"$lab_sh" up --link "$link" --nodes 2 --name "$iname" --dir "$idir" --build "$build" &
job=$!
wait_key "$idir/lab.state" proc.sw.pid || fail "up (11): no proc.sw.pid in its state file"
kill -INT -- "-$job"
wait "$job"
rc=$?
echo "$test_name: a script running up, SIGINT to its process group during up: exit $rc"
sed 's/^/  | /' "$tmp/intr-caller.log"
[ "$rc" = 130 ] && [ ! -e "$tmp/caller.rc" ] ||
	fail "the script that ran up went on after a Ctrl-C during up: exit $rc, $(cat "$tmp/caller.rc" 2>&1)"
[ ! -e "$idir" ] || fail "up interrupted in a script left $idir"
no_up_tmp "up interrupted in a script"
echo "ok: a Ctrl-C during up stops the script that ran it"

# 8. A signal to up's shell alone as its work ends: up's status is the
# work's. The shell's trap writes the signal's status into a FIFO put in
# place of its file (a plain file to up's work, which does not see it as a
# signal): it is held there until the work has exited 0.
"$lab_sh" up --link "$link" --nodes 2 --name "$iname" --dir "$idir" --build "$build" \
	>"$tmp/intr-end.log" 2>&1 &
job=$!
pids="$pids $job"	# (a SIGTERM at a failure: up tears down)
wait_key "$idir/lab.state" proc.nicd.pid || fail "up (8): no proc.nicd.pid in its state file"
work=$(pgrep -P "$job")
utmp=$(compgen -G "$TMPDIR/segnet-lab-up.*") || fail "no temporary folder of up's in $TMPDIR"
mkfifo "$utmp/sig"
kill -INT "$job"
for ((i = 0; i < 600; i++)); do pid_running "$work" || break; sleep 0.1; done
! pid_running "$work" || fail "up's work (pid $work) did not end"
cat "$utmp/sig" >/dev/null
wait "$job"
rc=$?
echo "$test_name: SIGINT to up's shell alone as its work ends: exit $rc"
sed 's/^/  | /' "$tmp/intr-end.log"
"$lab_sh" status --name "$iname" --dir "$idir" >"$tmp/intr-status.log" 2>&1
st=$?
"$lab_sh" down --name "$iname" --dir "$idir" >/dev/null 2>&1
[ "$rc" = 0 ] && [ "$st" = 0 ] ||
	fail "up whose work brought the lab up: exit $rc (want 0), status $st (want 0, the lab up)"
no_up_tmp "up signalled as its work ended"
echo "ok: a signal to up's shell as its work ends: exit 0, the lab up"

# up_ended WHAT STATUS LOG: wait for the up $job, signalled as WHAT; it must
# exit STATUS and leave neither $idir nor its temporary folder.
up_ended() {
	wait "$job"
	rc=$?
	echo "$test_name: $1: exit $rc"
	[ "$rc" = "$2" ] || fail "$1: exit $rc, want $2: $(cat "$3")"
	[ ! -e "$idir" ] || fail "$1: $idir left"
	no_up_tmp "$1"
}

# 9 and 10 slow up's shell down with strace (-D: the PID is lab.sh's).
if ! command -v strace >/dev/null 2>&1 || ! strace -o /dev/null true 2>/dev/null; then
	echo "$test_name: no strace (or no ptrace): cases 9 and 10 skipped"
else
	# 9. A second signal while up's shell removes its temporary folder:
	# strace holds each unlinkat of the shell's children (its rm) 1 s.
	"$lab_sh" up --link "$link" --nodes 2 --name "$iname" --dir "$idir" --build "$build" \
		>"$tmp/intr-rm.log" 2>&1 &
	job=$!
	pids="$pids $job"
	wait_key "$idir/lab.state" proc.nicd.pid || fail "up (9): no proc.nicd.pid in its state file"
	strace -q -f -p "$job" -o /dev/null -e trace=unlinkat -e inject=unlinkat:delay_enter=1000000 &
	pids="$pids $!"
	for ((i = 0; i < 500; i++)); do
		[ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$job/status")" = 0 ] || break
		sleep 0.01
	done
	kill -INT -- "-$job"
	for ((i = 0; i < 3000; i++)); do pgrep -P "$job" -x rm >/dev/null && break; sleep 0.01; done
	kill -INT -- "-$job" || fail "up's shell was gone before it removed its temporary folder"
	up_ended "a second SIGINT while up removes its temporary folder" 130 "$tmp/intr-rm.log"
	echo "ok: a second signal does not keep up's temporary folder"

	# 10. A signal just after up's shell made its temporary folder, before
	# its traps: strace holds each wait4 of the shell 0.2 s.
	strace -q -D -o /dev/null -e trace=wait4 -e inject=wait4:delay_exit=200000 \
		"$lab_sh" up --link "$link" --nodes 2 --name "$iname" --dir "$idir" --build "$build" \
		>"$tmp/intr-tmp.log" 2>&1 &
	job=$!
	pids="$pids $job"
	for ((i = 0; i < 3000; i++)); do
		compgen -G "$TMPDIR/segnet-lab-up.*" >/dev/null && break
		sleep 0.01
	done
	kill -TERM "$job"
	up_ended "SIGTERM to up's shell as it made its temporary folder" 143 "$tmp/intr-tmp.log"
	echo "ok: a signal just after up made its temporary folder does not keep it"
fi

# up_gone WHAT: nothing of the up $job (signalled as WHAT) is left: $idir,
# the daemons of $ipids, its temporary folder.
up_gone() {
	[ ! -e "$idir" ] || fail "$1: $idir left: $(ls -A "$idir")"
	for p in $ipids; do
		pid_running "$p" && fail "$1: process $p left running"
	done
	no_up_tmp "$1"
}

# 12. SIGQUIT to up's shell alone (kill -QUIT), then to its process group
# (Ctrl-\\), while up starts switchd.
for to in shell group; do
	"$lab_sh" up --link "$link" --nodes 2 --name "$iname" --dir "$idir" --build "$build" \
		>"$tmp/quit-$to.log" 2>&1 &
	job=$!
	wait_key "$idir/lab.state" proc.sw.pid || fail "up (12, $to): no proc.sw.pid in its state file"
	ipids=$(state_pids "$idir/lab.state")
	work=$(pgrep -P "$job")
	if [ "$to" = shell ]; then kill -QUIT "$job"; else kill -QUIT -- "-$job"; fi
	wait "$job"
	rc=$?
	echo "$test_name: SIGQUIT to up's $to as it starts switchd: exit $rc"
	sed 's/^/  | /' "$tmp/quit-$to.log"
	! pid_running "$work" || fail "up ended by SIGQUIT ($to) while its work (pid $work) still runs"
	[ "$rc" = 131 ] && grep -q "up interrupted; tearing down what it started" "$tmp/quit-$to.log" ||
		fail "up after a SIGQUIT to its $to: exit $rc (want 131), or no 'up interrupted'"
	up_gone "up after a SIGQUIT to its $to"
done
echo "ok: a SIGQUIT (Ctrl-\\) during up tears down and ends by SIGQUIT"

# 13. SIGKILL to up's shell alone while up starts switchd: the work finds
# its shell gone in its waits (its parent changed) and tears down.
"$lab_sh" up --link "$link" --nodes 2 --name "$iname" --dir "$idir" --build "$build" \
	>"$tmp/kill.log" 2>&1 &
job=$!
wait_key "$idir/lab.state" proc.sw.pid || fail "up (13): no proc.sw.pid in its state file"
work=$(pgrep -P "$job")
ipids=$(state_pids "$idir/lab.state")
kill -KILL "$job"
wait "$job"
for ((i = 0; i < 300; i++)); do pid_running "$work" || break; sleep 0.1; done
echo "$test_name: SIGKILL to up's shell as it starts switchd; its work (pid $work) gone after $i tenths"
sed 's/^/  | /' "$tmp/kill.log"
! pid_running "$work" || fail "up's work (pid $work) still runs 30 s after its shell was killed"
grep -q "up interrupted: its shell was killed; tearing down what it started" "$tmp/kill.log" ||
	fail "up's work, its shell killed, does not say it tears down"
up_gone "up whose shell was killed"
true &
wait $!
mkdir "$TMPDIR/segnet-lab-up.$!"
"$lab_sh" down --name "$iname" --dir "$idir" >/dev/null 2>&1 || fail "down (13)"
no_up_tmp "down after an up whose shell was killed"
echo "ok: up's work tears down when its shell is killed; down removes a killed up's folder"

# 14. up's output closed before the lab is up (--nicd-first: its first line
# is printed before switchd starts; ':' read nothing and is gone).
"$lab_sh" up --link "$link" --nodes 2 --name "$iname" --dir "$idir" --build "$build" \
	--nicd-first 2>"$tmp/pipe.log" | :
rc=${PIPESTATUS[0]}
echo "$test_name: up --nicd-first | : (its output closed): exit $rc"
sed 's/^/  | /' "$tmp/pipe.log"
[ "$rc" = 141 ] &&
	grep -q "up ended by a signal (SIGPIPE if its output was closed); tearing down what it started" \
		"$tmp/pipe.log" &&
	! grep -q "interrupted" "$tmp/pipe.log" ||
	fail "up whose output was closed: exit $rc (want 141), or not said so: $(cat "$tmp/pipe.log")"
ipids=
up_gone "up whose output was closed"
for p in sw nicd; do
	[ ! -e "$(dpdk_runtime_dir "segnet-lab-$iname-$p")" ] ||
		fail "up whose output was closed left $(dpdk_runtime_dir "segnet-lab-$iname-$p") (its $p running?)"
done
echo "ok: up whose output is closed says so (not interrupted) and tears down"

# 2. A script runs up, then is interrupted (Ctrl-C): the lab stays up.
lab_up_done=1
bash -c '"$@" >"'"$tmp/up.log"'" 2>&1; echo $? >"'"$tmp/up.rc"'"; sleep 30' up \
	"$lab_sh" up --link "$link" --nodes 2 --name "$lab_name" --dir "$lab_dir" --build "$build" &
job=$!
wait_for "$tmp/up.rc" 300 "$job" || fail "the script's up did not return"
[ "$(cat "$tmp/up.rc")" = 0 ] || { cat "$tmp/up.log"; fail "the script's up: exit $(cat "$tmp/up.rc")"; }
lab_note_pids
kill -INT -- "-$job"
wait "$job"
echo "$test_name: the script that ran up, interrupted: exit $?"
sleep 0.5
lab status >"$tmp/status.log" 2>&1 ||
	fail "the lab did not survive a SIGINT to the script that brought it up: $(cat "$tmp/status.log")"
echo "ok: the lab survived a SIGINT to the process group of the script that ran up"
# The daemons start with the default dispositions, not those of up's work
# (it ignores SIGINT, SIGTERM, SIGHUP): a SIGTERM before a daemon sets its
# handler ends it, and SIGHUP, which no daemon handles, is not ignored.
for p in $lab_pids; do
	ign=$(awk '/^SigIgn:/ { print $2 }' "/proc/$p/status")
	[ $((0x$ign & 0x1)) = 0 ] || fail "daemon $p ignores SIGHUP (SigIgn $ign): started with up's dispositions"
done
echo "ok: the daemons do not inherit the signals up's work ignores"

# 3. The lab of the environment.
eval "$(lab env)"
SEGNET_LAB_DIR=$lab_dir "$lab_sh" status --build "$build" >"$tmp/env-status.log" 2>&1 ||
	fail "status with SEGNET_LAB_DIR=$lab_dir: $(cat "$tmp/env-status.log")"
grep -q "lab '$lab_name' in $lab_dir" "$tmp/env-status.log" ||
	fail "status with SEGNET_LAB_DIR did not find lab $lab_name: $(cat "$tmp/env-status.log")"
if SEGNET_LAB_DIR=$lab_dir "$lab_sh" status --name "${lab_name}x" >"$tmp/env-name.log" 2>&1 ||
   ! grep -q "lab '${lab_name}x' is not up" "$tmp/env-name.log"; then
	fail "--name did not go before SEGNET_LAB_DIR: $(cat "$tmp/env-name.log")"
fi
echo "ok: status finds the lab of SEGNET_LAB_DIR; --name goes first"

# 4. The lab's name in another directory: refused before anything is made.
mkdir "$tmp/other"
"$lab_sh" up --link "$link" --nodes 2 --name "$lab_name" --dir "$tmp/other" --build "$build" \
	>"$tmp/other.log" 2>&1
rc=$?
cat "$tmp/other.log"
[ "$rc" = 1 ] && grep -q "is in use" "$tmp/other.log" ||
	fail "up with the name of a running lab in another directory: exit $rc"
! grep -q "tearing down" "$tmp/other.log" || fail "a refused up says it tears down"
[ -d "$tmp/other" ] || fail "a refused up removed the user's directory $tmp/other"
"$lab_sh" up --link "$link" --nodes 2 --name "$lab_name" --dir "$tmp/new/lab" --build "$build" \
	>"$tmp/new.log" 2>&1 && fail "up with the name of a running lab in a new directory succeeded"
[ ! -e "$tmp/new" ] || fail "a refused up made $tmp/new"
echo "ok: up with a running lab's name elsewhere is refused before anything is made"
lab status >/dev/null 2>&1 || fail "the refused up harmed the running lab"

# 5. A directory that was there before up stays after down.
"$lab_sh" up --link "$link" --nodes 2 --name "${lab_name}k" --dir "$tmp/other" \
	--build "$build" >"$tmp/kept.log" 2>&1 || { cat "$tmp/kept.log"; fail "up in $tmp/other"; }
"$lab_sh" down --name "${lab_name}k" --dir "$tmp/other" >"$tmp/kept-down.log" 2>&1 ||
	{ cat "$tmp/kept-down.log"; fail "down of the lab in $tmp/other"; }
cat "$tmp/kept-down.log"
[ -d "$tmp/other" ] && [ -z "$(ls -A "$tmp/other")" ] ||
	fail "down did not leave the user's $tmp/other (empty): $(ls -A "$tmp/other" 2>&1)"
echo "ok: down keeps an empty directory that was there before up"
no_up_tmp "this test's ups"
pass
