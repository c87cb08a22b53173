#!/usr/bin/env bash
# The segnet test command: set up when needed, build with warnings as errors,
# then run every meson test suite. Exits non-zero on any failure.
#
#   scripts/test.sh [--sanitize] [--suite NAME]...   (default: every suite)
#
# --sanitize builds build-asan/ instead of build/, with clang,
# AddressSanitizer (leaks included) and UBSan (configured as scripts/fuzz.sh
# configures build-fuzz/), the libFuzzer harnesses included, and runs the
# suites there, the suite fuzz too (tests/fuzz/README.md: each harness's
# seeds replayed, then a short fuzz run of each from a fixed seed). Any
# report fails the run, also one from a process whose exit status no test
# checks (a daemon, a Criterion worker): each lands in
# build-asan/sanitizer-reports/, which is emptied first and printed at the
# end.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir="$top/build"
sanitize=0
suites=()

prog=test.sh
# shellcheck source=scripts/lib/cli.sh
. "$top/scripts/lib/cli.sh"
# shellcheck source=scripts/lib/sanitize.sh
. "$top/scripts/lib/sanitize.sh"

while [ $# -gt 0 ]; do
	case "$1" in
	--sanitize) sanitize=1 ;;
	--suite) [ $# -ge 2 ] || { echo "test.sh: --suite needs a name" >&2; exit 2; }
		suites+=(--suite "$2"); shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "test.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
	shift
done

if [ $sanitize -eq 1 ]; then
	builddir="$top/build-asan"
	"$top/scripts/setup.sh" --no-build
	san_configure "$builddir" -Dwerror=true -Dfuzz=true
	ninja -C "$builddir"
else
	"$top/scripts/setup.sh" --builddir "$builddir" --werror
fi
# meson runs nothing, and succeeds, for a suite it does not know. The list
# is read whole first: grep -q stopping at the first match could end meson
# with SIGPIPE, which pipefail would take for an unknown suite.
for ((i = 1; i < ${#suites[@]}; i += 2)); do
	listed=$(meson test -C "$builddir" --list --suite "${suites[i]}" 2>/dev/null) || listed=
	grep -q ' / ' <<<"$listed" || {
		echo "test.sh: --suite ${suites[i]}: no such suite (unit, integration, lab, ...)" >&2
		exit 2
	}
done
if [ $sanitize -eq 1 ]; then
	# Under the sanitizers: every report into one folder, checked afterwards.
	reports="$builddir/sanitizer-reports"
	rm -rf "$reports"
	mkdir -p "$reports"
	# One runtime serves both sanitizers (and LeakSanitizer): one log path.
	log="log_path=$reports/report:log_exe_name=1"
	export ASAN_OPTIONS="$san_asan_options:$log"
	export UBSAN_OPTIONS="$san_ubsan_options:$log"
	# Criterion ends its workers with _exit: without this, LeakSanitizer never runs in them.
	export CRITERION_NO_EARLY_EXIT=1
fi
rc=0
meson test -C "$builddir" --print-errorlogs --num-processes 2 "${suites[@]}" || rc=$?
if [ $sanitize -eq 1 ] && [ -n "$(ls -A "$reports")" ]; then
	for f in "$reports"/*; do
		echo "=== $f"
		cat "$f"
	done
	echo "test.sh: $(find "$reports" -type f | wc -l) sanitizer report(s) in $reports (printed above)" >&2
	exit 1
fi
exit $rc
