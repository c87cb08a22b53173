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
