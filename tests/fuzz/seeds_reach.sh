#!/usr/bin/env bash
# Replay a committed seed corpus once with SEGNET_FUZZ_COUNTERS set and fail
# unless each counter named is non-zero after some seed: the seeds (and the
# record format they are written in) reach those paths.
#
#   seeds_reach.sh HARNESS CORPUS COUNTER...   e.g. nic.rx_fresh
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: seeds_reach.sh HARNESS CORPUS COUNTER..." >&2; exit 2; }
harness=$1
corpus=$2
shift 2
out=$(SEGNET_FUZZ_COUNTERS=1 "$harness" -runs=0 "$corpus" 2>&1) || {
	echo "$out" | tail -n 20 >&2
	echo "seeds_reach.sh: $harness failed on $corpus" >&2
	exit 1
}
missing=0
for counter in "$@"; do
	if ! grep -qE "^${counter//./\\.} [1-9]" <<<"$out"; then
		echo "seeds_reach.sh: no seed in $corpus reaches $counter" >&2
		missing=1
	fi
done
[ $missing -eq 0 ] && echo "seeds_reach.sh: $corpus reaches $*"
exit $missing
