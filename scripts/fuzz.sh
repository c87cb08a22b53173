#!/usr/bin/env bash
# Fuzz one libFuzzer harness for SECONDS under ASan and UBSan. Exits 0 when
# the run is clean, 1 on a crash, a leak, a sanitizer report, a timeout
# (10 s an input) or a build error, and 2 on bad arguments. (CI runs each
# harness shorter, from a fixed seed: scripts/test.sh --sanitize, suite
# fuzz, tests/fuzz/README.md.)
#
#   scripts/fuzz.sh TARGET SECONDS     TARGET: proto (fuzz_proto, proto_decode),
#                                      fabric (fuzz_fabric, the switch fabric),
#                                      nic (fuzz_nic, the NIC core),
#                                      trace (fuzz_trace, the pcap/pcapng
#                                      trace reader), host (fuzz_host,
#                                      nicd's host interface against a
#                                      hostile application)
#   scripts/fuzz.sh --help
#
# It configures build-fuzz/ (CC=clang, -Dfuzz=true, -Dtests=false,
# -Db_sanitize=address,undefined), builds the harness, copies the committed
# seeds tests/fuzz/corpus/TARGET/ into the scratch corpus
# tests/fuzz/corpus-run/TARGET/ (ignored by git, emptied at each run), and
# runs on one core (scripts/lib/fuzz.sh). Inputs are at most 4096 bytes,
# or as long as the longest seed: for trace, the scratch corpus also gets
# the large seeds of tests/fuzz/seeds.py (records past 262144 bytes, which
# D-Bus, USBPCAP and EBHSCR allow; not committed, about 256 KiB).
# The log is build-fuzz/fuzz-TARGET.log; failing inputs are kept as
# build-fuzz/artifacts/TARGET-*, and each is named (the seed, when it is
# one) with the kind of finding, the start of the sanitizer's report (its
# error line and top frames) and the command that replays it:
#   build-fuzz/tests/fuzz/fuzz_TARGET FILE
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir="$top/build-fuzz"
targets=(proto fabric nic trace host)

prog=fuzz.sh
synopsis="scripts/fuzz.sh TARGET SECONDS"
# shellcheck source=scripts/lib/cli.sh
. "$top/scripts/lib/cli.sh"
# shellcheck source=scripts/lib/sanitize.sh
. "$top/scripts/lib/sanitize.sh"
# shellcheck source=scripts/lib/fuzz.sh
. "$top/scripts/lib/fuzz.sh"

case "${1:-}" in
-h|--help) usage; exit 0 ;;
esac
for a in "$@"; do
	case "$a" in
	-[!0-9]*) die_usage "unknown option '$a'" ;;
	esac
done
[ $# -eq 2 ] || die_usage "expected 2 arguments, TARGET and SECONDS, got $#"
target=$1
seconds=$2
known=0
for t in "${targets[@]}"; do
	[ "$t" = "$target" ] && known=1
done
[ $known -eq 1 ] || die_usage "unknown TARGET '$target' (known: ${targets[*]})"
[[ "$seconds" =~ ^[0-9]{1,6}$ ]] && [ "$((10#$seconds))" -gt 0 ] ||
	die_usage "SECONDS must be a whole number of seconds from 1 to 999999, got '$seconds'"
seconds=$((10#$seconds))

san_configure "$builddir" -Dfuzz=true -Dtests=false
ninja -C "$builddir" -j2 "tests/fuzz/fuzz_$target" || die "build of fuzz_$target failed"

run="$top/tests/fuzz/corpus-run/$target"
mkdir -p "$builddir/artifacts"
fuzz_seeds "$target" "$run"
export ASAN_OPTIONS=$san_asan_options UBSAN_OPTIONS=$san_ubsan_options
fuzz_run "$builddir/tests/fuzz/fuzz_$target" "$target" "$run" "$builddir/artifacts/$target-" \
	"$builddir/fuzz-$target.log" -max_total_time="$seconds" || exit 1
