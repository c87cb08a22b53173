# shellcheck shell=bash
# Sourced by lab.sh (up) and demo.sh, after cli.sh (die) and before any
# trap: work that a signal must not cut short, run in a child while the
# script's shell only waits for it (sig_run).
#
# Why: bash 5.2 runs a SIGINT trap where the shell is; in the middle of
# parsing a $(...) it fails ("interrupt trap: line 2: unexpected EOF while
# looking for matching `)'", exit 2), and a command substitution's child
# can hang. So the shell whose traps take INT, TERM, HUP and QUIT runs no
# $(...): it waits for the work, and its traps only write the first signal
# down, into a folder of its own, ${TMPDIR:-/tmp}/segnet-NAME.PID. The
# work ignores these signals and looks for one between its steps and in its
# waits (sig_check), also while a long step runs (sig_wait); when it has
# undone what it did and exited with the signal's status, the shell ends by
# that signal, so that a script that ran it stops too (bash goes on after a
# child that caught SIGINT and exited 130).

# The folder, and what the waiting shell got: status and name (130 INT).
sig_dir=
sig_status=
sig_name=
# The work's PID: in the work, sig_got notices when the shell waiting for
# it is gone (SIGKILL), and the work then stops as if interrupted.
sig_work=

# The signals the script did not ignore when it started (a background job
# of a script ignores INT and QUIT), for the commands the work runs with
# sig_restore. Read here, before any trap of the script's.
sig_defaults=
for sig_name in INT TERM HUP QUIT; do
	[ -n "$(trap -p "$sig_name")" ] || sig_defaults+=${sig_defaults:+,}$sig_name
done
sig_name=

# sig_note STATUS NAME: the waiting shell's traps; the first signal stays.
sig_note() {
	[ -s "$sig_dir/sig" ] || echo "$1 $2" >"$sig_dir/sig"
}

# True when the waiting shell got a signal, or, in the work, when that
# shell is gone (its status in sig_status, 137 KILL then; its name in
# sig_name). Reads with read, not $(...): the waiting shell has traps set.
sig_got() {
	local stat
	[ -n "$sig_dir" ] || return 1
	if [ -s "$sig_dir/sig" ] && read -r sig_status sig_name <"$sig_dir/sig"; then
		return 0
	fi
	[ -n "$sig_work" ] && read -r stat <"/proc/$sig_work/stat" || return 1
	# (pid (comm) state ppid ...: the work's parent is the waiting shell)
	stat=${stat##*) }
	stat=${stat#* }
	[ "${stat%% *}" != "$$" ] || return 1
	rm -rf "$sig_dir"
	sig_status=137
	sig_name=KILL
}

# In the work: exit with the signal's status if the waiting shell got one
# (or is gone).
sig_check() {
	! sig_got || exit "$sig_status"
}

# In the work: wait for its last background job, a long step (a command or
# a pipeline), looking every 0.1 s, as the work's waits do, whether the
# waiting shell got a signal or is gone (sig_got). If so, the job's first
# command gets SIGTERM and, once the job has ended, the work exits with the
# signal's status (its EXIT trap undoes what it did). Else returns the
# job's status (a pipeline's as pipefail says).
sig_wait() {
	local first last=$!
	# (a job already over is no job: then only its last command is known)
	first=$(jobs -p %+ 2>/dev/null) || first=$last
	while kill -0 "$first" 2>/dev/null || kill -0 "$last" 2>/dev/null; do
		if sig_got; then
			kill -s TERM "$first" 2>/dev/null || true
			wait "$last" || true
			exit "$sig_status"
		fi
		sleep 0.1
	done
	wait "$last"
}

# sig_restore COMMAND...: become COMMAND (exec), with the signal
# dispositions the script started with, not those of the work (an ignored
# signal stays ignored across exec): a Ctrl-C reaches it as it would have.
# For a long step of the work, in the background (sig_restore COMMAND &,
# or first in a pipeline run so), which it replaces: sig_wait's SIGTERM
# then reaches COMMAND, not a subshell that ignores it.
sig_restore() {
	if [ -n "$sig_defaults" ]; then
		exec env --default-signal="$sig_defaults" "$@"
	else
		exec "$@"
	fi
}

# sig_clean NAME: remove the folders of sig_run NAME that a shell killed
# before it could (SIGKILL) left: those of this user whose PID is gone.
sig_clean() {
	local d
	for d in "${TMPDIR:-/tmp}/segnet-$1".*; do
		[[ "${d##*.}" =~ ^[0-9]+$ ]] && [ -d "$d" ] && [ -O "$d" ] && [ ! -e "/proc/${d##*.}" ] ||
			continue
		rm -rf "$d"
	done
}

# sig_run NAME COMMAND...: run COMMAND (a function: the work) in a child
# that ignores INT, TERM, HUP and QUIT, wait for it, and end as it did: by
# the signal this shell got when the work exited with its status, else
# with the work's status. The folder is named by the PID, not by
# $(mktemp), so that the EXIT trap, set first, knows it if a signal comes
# before the other traps (one of this PID's was a killed shell's); it
# ignores the signals, or a second Ctrl-C would kill rm.
sig_run() {
	# (no locals: the work, a function called here, would see them)
	sig_dir=${TMPDIR:-/tmp}/segnet-$1.$$
	trap 'trap "" INT TERM HUP QUIT; rm -rf "$sig_dir"' EXIT
	sig_clean "$1"
	shift
	rm -rf "$sig_dir"
	mkdir -m 700 "$sig_dir" 2>/dev/null || die "cannot create a temporary directory $sig_dir"
	trap 'sig_note 130 INT' INT
	trap 'sig_note 143 TERM' TERM
	trap 'sig_note 129 HUP' HUP
	trap 'sig_note 131 QUIT' QUIT
	(
		trap '' INT TERM HUP QUIT
		sig_work=$BASHPID
		"$@"
	) &
	sig_work=$!
	# (wait returns early for each trapped signal; the work goes on)
	while kill -0 "$sig_work" 2>/dev/null; do
		wait "$sig_work" || true
	done
	# The work's status (bash keeps it): the wait above returns the
	# signal's when the work ended while the trap ran.
	wait "$sig_work" && set -- 0 || set -- $?
	sig_work=
	if sig_got && [ "$1" = "$sig_status" ]; then
		rm -rf "$sig_dir"
		trap - EXIT INT TERM HUP QUIT
		# (ended by SIGQUIT, as asked, but without a core file of bash)
		ulimit -c 0
		kill -s "$sig_name" $$
	fi
	exit "$1"
}
