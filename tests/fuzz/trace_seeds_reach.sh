#!/usr/bin/env bash
# fuzz_trace's seeds as scripts/fuzz.sh trace starts from them: the
# committed corpus and the large seeds seeds.py writes (records past
# 262144 bytes; not committed), in a scratch folder, replayed once with
# seeds_reach.sh: clean, and each COUNTER moved (SEED:COUNTER, SEED:!COUNTER
# as seeds_reach.sh reads them).
#
#   trace_seeds_reach.sh HARNESS SEEDS_PY CORPUS COUNTER|SEED:COUNTER|SEED:!COUNTER...
set -euo pipefail

[ $# -ge 4 ] || { echo "usage: trace_seeds_reach.sh HARNESS SEEDS_PY CORPUS COUNTER..." >&2; exit 2; }
harness=$1
seeds_py=$2
corpus=$3
shift 3

dir=$(mktemp -d "${TMPDIR:-/tmp}/segnet-trace-seeds.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cp "$corpus"/* "$dir"/
python3 "$seeds_py" --large-trace "$dir"
"$(dirname "$0")/seeds_reach.sh" "$harness" "$dir" "$@"
