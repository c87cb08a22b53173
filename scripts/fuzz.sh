#!/usr/bin/env bash
# Fuzz one libFuzzer harness for SECONDS under ASan and UBSan. Exits 0 when
# the run is clean, 1 on a crash, a sanitizer report or a build error, and
# 2 on bad arguments.
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
# runs on one core. Inputs are at most 4096 bytes, but for trace: its
# scratch corpus also gets the large seeds of tests/fuzz/seeds.py (records
# past 262144 bytes, which D-Bus, USBPCAP and EBHSCR allow; not committed)
# and its inputs may be as long as the longest seed (about 256 KiB).
# The log is build-fuzz/fuzz-TARGET.log; crashing inputs
# are kept as build-fuzz/artifacts/TARGET-*. Replay one with
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

seeds="$top/tests/fuzz/corpus/$target"
[ -d "$seeds" ] || die "no seed corpus at $seeds"

san_configure "$builddir" -Dfuzz=true -Dtests=false
ninja -C "$builddir" -j2 "tests/fuzz/fuzz_$target" || die "build of fuzz_$target failed"

run="$top/tests/fuzz/corpus-run/$target"
artifacts="$builddir/artifacts"
log="$builddir/fuzz-$target.log"
rm -rf "$run"
mkdir -p "$run" "$artifacts"
cp "$seeds"/* "$run"/
max_len=4096
if [ "$target" = trace ]; then
	python3 "$top/tests/fuzz/seeds.py" --large-trace "$run" ||
		die "writing the large trace seeds into $run failed"
	largest=$(find "$run" -type f -printf '%s\n' | sort -n | tail -n 1)
	[ "$largest" -le "$max_len" ] || max_len=$largest
fi
dict=()
[ -f "$top/tests/fuzz/$target.dict" ] && dict=(-dict="$top/tests/fuzz/$target.dict")

echo "fuzz.sh: fuzzing $target for ${seconds}s from $(ls "$run" | wc -l) seeds, inputs up to $max_len bytes; log $log"
set +e
SEGNET_FUZZ_TOTALS=1 ASAN_OPTIONS=$san_asan_options UBSAN_OPTIONS=$san_ubsan_options \
	"$builddir/tests/fuzz/fuzz_$target" "${dict[@]}" \
	-max_total_time="$seconds" -max_len="$max_len" -timeout=10 -print_final_stats=1 \
	-artifact_prefix="$artifacts/$target-" "$run" >"$log" 2>&1
rc=$?
set -e

# The final coverage line and libFuzzer's statistics.
grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)' "$log" | tail -n 2 || true
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" || true
# What the harness counts of the inputs it ran (fuzz_trace: the large-record paths).
grep -E '^fuzz_[a-z]+: reached ' "$log" || true
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|invariant broken|SUMMARY: ' "$log"; then
	grep -E 'ERROR:|runtime error:|invariant broken|SUMMARY:|Test unit written' "$log" | head -n 20 >&2
	die "$target: finding reported (full log: $log)"
fi
[ $rc -eq 0 ] || die "$target: fuzzer exited with status $rc (full log: $log)"
echo "fuzz.sh: $target clean after ${seconds}s"
