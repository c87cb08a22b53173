#!/usr/bin/env bash
# Replay a committed seed corpus once with SEGNET_FUZZ_COUNTERS set and fail
# unless each counter named is non-zero after some seed: the seeds (and the
# record format they are written in) reach those paths. SEED:COUNTER names
# a counter that seed alone must move (a path the counter shares with
# others, such as epoch_restarts on a WELCOME that says RESTART), and
# SEED:!COUNTER one it must leave at 0 (the same seed without that flag).
#
#   seeds_reach.sh HARNESS CORPUS COUNTER|SEED:COUNTER|SEED:!COUNTER...
#   e.g. nic.rx_fresh seed-fresh-answered-restart:nic.epoch_restarts
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: seeds_reach.sh HARNESS CORPUS COUNTER|SEED:COUNTER|SEED:!COUNTER..." >&2; exit 2; }
harness=$1
corpus=$2
shift 2

# The counters HARNESS prints after running INPUT (a file or a folder).
counters() {
	local out

	out=$(SEGNET_FUZZ_COUNTERS=1 "$harness" -runs=0 "$1" 2>&1) || {
		echo "$out" | tail -n 20 >&2
		echo "seeds_reach.sh: $harness failed on $1" >&2
		return 1
	}
	echo "$out"
}

all=$(counters "$corpus")
missing=0
for arg in "$@"; do
	seed=
	counter=$arg
	moved=1
	if [ "${arg#*:}" != "$arg" ]; then
		seed=${arg%%:*}
		counter=${arg#*:}
	fi
	if [ -n "$seed" ] && [ "${counter#!}" != "$counter" ]; then
		counter=${counter#!}
		moved=0
	fi
	if [ -z "$seed" ]; then
		out=$all
		miss="no seed in $corpus reaches $counter"
	else
		[ -f "$corpus/$seed" ] || { echo "seeds_reach.sh: no seed $corpus/$seed" >&2; exit 2; }
		out=$(counters "$corpus/$seed")
		miss="$corpus/$seed does not reach $counter"
		[ $moved -eq 1 ] || miss="$corpus/$seed moves $counter"
	fi
	if grep -qE "^${counter//./\\.} [1-9]" <<<"$out"; then
		reached=1
	else
		reached=0
	fi
	if [ $reached -ne $moved ]; then
		echo "seeds_reach.sh: $miss" >&2
		missing=1
	fi
done
[ $missing -eq 0 ] && echo "seeds_reach.sh: $corpus: every check holds: $*"
exit $missing
