#!/usr/bin/env bash
# fuzz_host removes, when it starts, the socket directories that fuzz_host
# processes gone without their atexit (SIGKILL, a crash, a timeout) left
# under /tmp: a directory /tmp/segnet-fuzz-host.PID of a PID no process
# has, with a file in it, is gone after a replay; one of a live process
# (this script's) stays.
#
#   host_stale_dirs.sh FUZZ_HOST CORPUS
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
prog=host_stale_dirs.sh
synopsis="host_stale_dirs.sh FUZZ_HOST CORPUS"
# shellcheck source=scripts/lib/cli.sh
. "$top/scripts/lib/cli.sh"
# shellcheck source=scripts/lib/fuzz.sh
. "$top/scripts/lib/fuzz.sh"

[ $# -eq 2 ] || die_usage "expected FUZZ_HOST and CORPUS, got $# arguments"
harness=$1
corpus=$2

# A PID that has just ended (again if one came back at once).
dead=$(sh -c 'echo $$')
while kill -0 "$dead" 2>/dev/null; do
	dead=$(sh -c 'echo $$')
done
stale=/tmp/segnet-fuzz-host.$dead
live=/tmp/segnet-fuzz-host.$$
# The replay's log and what libFuzzer writes of a failing seed (the seed is
# in CORPUS): kept when the script fails.
artifacts=$(mktemp -d "${TMPDIR:-/tmp}/segnet-host-stale.XXXXXX")
cleanup() {
	local st=$?

	rm -rf "$stale" "$live"
	[ "$st" -ne 0 ] || rm -rf "$artifacts"
}
trap cleanup EXIT
mkdir "$stale" "$live"
touch "$stale/fuzz.sock" "$live/fuzz.sock"

rc=0
fuzz_exec "$artifacts/log" "$harness" -runs=0 -artifact_prefix="$artifacts/" "$corpus" || rc=$?
if fuzz_found "$harness" "$artifacts/log" "$rc"; then
	fuzz_failed "$harness" host "$artifacts/log" "$rc" "$corpus"
	echo "host_stale_dirs.sh: $harness failed on $corpus" >&2
	exit 1
fi
[ ! -e "$stale" ] || { echo "host_stale_dirs.sh: $stale (pid $dead gone) is left" >&2; exit 1; }
[ -e "$live/fuzz.sock" ] || { echo "host_stale_dirs.sh: $live (pid $$ alive) was removed" >&2; exit 1; }
echo "host_stale_dirs.sh: $stale removed, $live kept"
