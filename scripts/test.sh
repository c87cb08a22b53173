#!/usr/bin/env bash
# The segnet test command: set up when needed, build with warnings as errors,
# then run every meson test suite. Exits non-zero on any failure.
#
#   scripts/test.sh [--suite NAME]...   (default: every suite)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir="$top/build"
suites=()

while [ $# -gt 0 ]; do
	case "$1" in
	--suite) [ $# -ge 2 ] || { echo "test.sh: --suite needs a name" >&2; exit 2; }
		suites+=(--suite "$2"); shift ;;
	-h|--help) sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "test.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
	shift
done

"$top/scripts/setup.sh" --builddir "$builddir" --werror
# meson runs nothing, and succeeds, for a suite it does not know.
for ((i = 1; i < ${#suites[@]}; i += 2)); do
	meson test -C "$builddir" --list --suite "${suites[i]}" 2>/dev/null | grep -q ' / ' || {
		echo "test.sh: --suite ${suites[i]}: no such suite (unit, integration, lab, ...)" >&2
		exit 2
	}
done
meson test -C "$builddir" --print-errorlogs --num-processes 2 "${suites[@]}"
