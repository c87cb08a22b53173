# shellcheck shell=bash disable=SC2034,SC2154
# Sourced by fuzz.sh and test.sh --sanitize: how segnet builds and runs
# under AddressSanitizer (with LeakSanitizer) and UBSan. Needs cli.sh's die.

# What a sanitizer report does to the process: stop it, by abort (SIGABRT,
# not an exit status a test may expect, like 1), leaks included.
san_asan_options=abort_on_error=1:detect_leaks=1:allocator_may_return_null=0
san_ubsan_options=halt_on_error=1:abort_on_error=1:print_stacktrace=1

# san_configure BUILDDIR [MESON_OPTION...]: configure BUILDDIR with clang
# (the fuzzers need it; one compiler for every sanitized build) and the
# sanitizers, plus MESON_OPTIONs; again each time, so that options change
# with the caller. A BUILDDIR set up with another compiler is refused.
san_configure() {
	local dir=$1
	shift
	local opts=("-Db_sanitize=address,undefined" -Dbuildtype=debugoptimized "$@")

	command -v clang >/dev/null || die "clang not found (scripts/setup.sh installs it)"
	if [ ! -f "$dir/build.ninja" ]; then
		CC=clang meson setup "$dir" "$top" "${opts[@]}" ||
			die "meson setup of $dir failed"
	elif ! grep -A1 '^rule c_COMPILER' "$dir/build.ninja" | grep -q 'command = clang '; then
		die "$dir was not configured with clang; remove it and run again"
	else
		meson configure "$dir" "${opts[@]}" >/dev/null ||
			die "meson configure of $dir failed"
	fi
}
