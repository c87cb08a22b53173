#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The scripts a user runs besides lab.sh and demo.sh (their own tests check
# theirs) refuse bad command lines with exit status 2 and a message naming
# the argument, before they build or run anything; --help succeeds:
#
#   script_args.sh SCRIPTS_DIR
# (out and expect_prog are read by test_lib.sh's expect)
# shellcheck disable=SC2034
set -u

scripts=${1:?usage: script_args.sh SCRIPTS_DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/segnet-script-args.XXXXXX") || exit 1
out=$tmp/out
failed=0
passed=0
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"

expect_prog=$scripts/fuzz.sh
expect 0 "TARGET SECONDS" --help
expect 2 "unknown option '--bogus'" --bogus
expect 2 "unknown option '--x'" nic 5 --x
expect 2 "expected 2 arguments, TARGET and SECONDS, got 1" nic
expect 2 "unknown TARGET 'bogus'" bogus 10
expect 2 "SECONDS must be a whole number of seconds from 1 to 999999, got '-5'" nic -5
expect 2 "SECONDS must be a whole number of seconds from 1 to 999999, got '0'" nic 0

expect_prog=$scripts/bench.sh
expect 0 "LIST" --help
expect 2 "unknown benchmark '--bogus'" --bogus
expect 2 "unknown benchmark 'bogus'" rtt bogus

expect_prog=$scripts/test.sh
expect 0 "--sanitize" --help
expect 2 "unknown argument '--bogus'" --bogus

expect_prog=$scripts/setup.sh
expect 0 "--builddir" --help
expect 2 "unknown argument '--bogus'" --bogus

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
