#!/usr/bin/env bash
# Replay TARGET's seeds, those scripts/fuzz.sh TARGET starts from (the
# committed corpus and, for trace, the large seeds of seeds.py, copied into
# a scratch folder), once with SEGNET_FUZZ_COUNTERS set and fail unless each
# counter named is non-zero after some seed: the seeds (and the record
# format they are written in) reach those paths. SEED:COUNTER names a
# counter that seed alone must move (a path the counter shares with others,
# such as epoch_restarts on a WELCOME that says RESTART), and SEED:!COUNTER
# one it must leave at 0 (the same seed without that flag). A seed that
# fails is named; what libFuzzer writes of it goes with the scratch folder.
#
#   seeds_reach.sh HARNESS TARGET COUNTER|SEED:COUNTER|SEED:!COUNTER...
#   e.g. nic.rx_fresh seed-fresh-answered-restart:nic.epoch_restarts
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
prog=seeds_reach.sh
synopsis="seeds_reach.sh HARNESS TARGET COUNTER|SEED:COUNTER|SEED:!COUNTER..."
# shellcheck source=scripts/lib/cli.sh
. "$top/scripts/lib/cli.sh"
# shellcheck source=scripts/lib/fuzz.sh
. "$top/scripts/lib/fuzz.sh"

[ $# -ge 3 ] || die_usage "expected HARNESS, TARGET and a check, got $# arguments"
harness=$1
target=$2
shift 2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/segnet-seeds-reach.XXXXXX")
# The log of a replay; one that fails is kept as LOG.failed.
log=$(mktemp "${TMPDIR:-/tmp}/segnet-seeds-reach-log.XXXXXX")
trap 'rm -rf "$tmp" "$log"' EXIT
corpus=$tmp/corpus
fuzz_seeds "$target" "$corpus"

# The counters HARNESS prints after running INPUT (a file or a folder).
counters() {
	local rc=0

	fuzz_exec "$log" env SEGNET_FUZZ_COUNTERS=1 "$harness" -runs=0 -artifact_prefix="$tmp/" "$1" ||
		rc=$?
	if fuzz_found "$harness" "$log" "$rc"; then
		mv "$log" "$log.failed"
		fuzz_failed "$harness" "$target" "$log.failed" "$rc" "$top/tests/fuzz/corpus/$target" "$corpus"
		echo "seeds_reach.sh: $harness failed on $1" >&2
		return 1
	fi
	cat "$log"
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
		miss="no seed of $target reaches $counter"
	else
		[ -f "$corpus/$seed" ] || die_usage "no seed $seed among the seeds of $target"
		out=$(counters "$corpus/$seed")
		miss="$seed does not reach $counter"
		[ $moved -eq 1 ] || miss="$seed moves $counter"
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
[ $missing -eq 0 ] && echo "seeds_reach.sh: $target: every check holds: $*"
exit $missing
