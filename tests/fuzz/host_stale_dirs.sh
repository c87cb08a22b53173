#!/usr/bin/env bash
# fuzz_host removes, when it starts, the socket directories that fuzz_host
# processes gone without their atexit (SIGKILL, a crash, a timeout) left
# under /tmp: a directory /tmp/segnet-fuzz-host.PID of a PID no process
# has, with a file in it, is gone after a replay; one of a live process
# (this script's) stays.
#
#   host_stale_dirs.sh FUZZ_HOST CORPUS
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: host_stale_dirs.sh FUZZ_HOST CORPUS" >&2; exit 2; }
harness=$1
corpus=$2

# A PID that has just ended (again if one came back at once).
dead=$(sh -c 'echo $$')
while kill -0 "$dead" 2>/dev/null; do
	dead=$(sh -c 'echo $$')
done
stale=/tmp/segnet-fuzz-host.$dead
live=/tmp/segnet-fuzz-host.$$
# What libFuzzer writes of a failing seed (the seed is in CORPUS): nowhere kept.
artifacts=$(mktemp -d "${TMPDIR:-/tmp}/segnet-host-stale.XXXXXX")
trap 'rm -rf "$stale" "$live" "$artifacts"' EXIT
mkdir "$stale" "$live"
touch "$stale/fuzz.sock" "$live/fuzz.sock"

out=$("$harness" -runs=0 -artifact_prefix="$artifacts/" "$corpus" 2>&1) || {
	echo "$out" | tail -n 20 >&2
	echo "host_stale_dirs.sh: $harness failed on $corpus" >&2
	exit 1
}
[ ! -e "$stale" ] || { echo "host_stale_dirs.sh: $stale (pid $dead gone) is left" >&2; exit 1; }
[ -e "$live/fuzz.sock" ] || { echo "host_stale_dirs.sh: $live (pid $$ alive) was removed" >&2; exit 1; }
echo "host_stale_dirs.sh: $stale removed, $live kept"
