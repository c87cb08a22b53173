#!/usr/bin/env bash
# One run of the fuzz suite (tests/fuzz/meson.build): HARNESS, the harness
# of TARGET, from the seeds scripts/fuzz.sh TARGET starts from (copied into
# DIR/corpus), with the libFuzzer OPTIONs: -runs=0 replays each seed once,
# -runs=N -seed=S fuzzes N inputs from the fixed seed S. Fails, naming
# TARGET and the input, on any crash, leak, sanitizer report or timeout
# (10 s an input); the log is DIR/log, failing inputs are written in DIR/.
#
#   fuzz_run.sh HARNESS TARGET DIR [LIBFUZZER_OPTION...]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
prog=fuzz_run.sh
synopsis="fuzz_run.sh HARNESS TARGET DIR [LIBFUZZER_OPTION...]"
# shellcheck source=scripts/lib/cli.sh
. "$top/scripts/lib/cli.sh"
# shellcheck source=scripts/lib/fuzz.sh
. "$top/scripts/lib/fuzz.sh"

[ $# -ge 3 ] || die_usage "expected HARNESS, TARGET and DIR, got $# arguments"
harness=$1
target=$2
dir=$3
shift 3

# meson's timeout sends SIGTERM to the test's process group, SIGKILL 0.5 s
# later: the harness stops, and fuzz_run says so (and how far it came).
trap : TERM
rm -rf "$dir"
fuzz_seeds "$target" "$dir/corpus"
fuzz_run "$harness" "$target" "$dir/corpus" "$dir/" "$dir/log" "$@"
