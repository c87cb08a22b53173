# shellcheck shell=bash disable=SC2154
# Sourced by fuzz.sh and the fuzz suite's scripts (tests/fuzz/): how segnet
# runs a libFuzzer harness, from which seeds, with which options, and what
# in its output is a finding. Needs $top, $prog and cli.sh's die.

# fuzz_seeds TARGET DIR: the seeds TARGET starts from, in DIR (emptied
# first): the committed tests/fuzz/corpus/TARGET/ and, for trace, the large
# seeds of tests/fuzz/seeds.py (records past 262144 bytes; not committed).
# Sets fuzz_max_len, the longest input a run makes: 4096, or the longest
# seed (trace's large ones, about 256 KiB).
fuzz_seeds() {
	local target=$1 dir=$2 largest
	local seeds="$top/tests/fuzz/corpus/$target"

	[ -d "$seeds" ] || die "no seed corpus at $seeds"
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$seeds"/* "$dir"/
	if [ "$target" = trace ]; then
		python3 "$top/tests/fuzz/seeds.py" --large-trace "$dir" ||
			die "writing the large trace seeds into $dir failed"
	fi
	fuzz_max_len=4096
	largest=$(find "$dir" -type f -printf '%s\n' | sort -n | tail -n 1)
	[ "$largest" -le "$fuzz_max_len" ] || fuzz_max_len=$largest
}

# fuzz_inputs HARNESS TARGET LOG [DIR...]: name each input LOG says
# libFuzzer wrote (a crash, leak, timeout or out-of-memory, in a file named
# by its SHA-1) and what it did: the file in a DIR with those bytes (a
# seed), else the file written; and how to replay it.
fuzz_inputs() {
	local harness=$1 target=$2 log=$3 file input kind
	shift 3

	sed -nE 's/.*Test unit written to (.*(crash|leak|timeout|oom)-[0-9a-f]{40})$/\1/p' "$log" |
	sort -u | while read -r file; do
		input=$(find "$@" -maxdepth 1 -type f -exec sha1sum {} + 2>/dev/null |
			awk -v s="${file##*-}" '$1 == s && !n++ { print $2 }')
		kind=${file##*/}
		kind=${kind%-*}
		echo "$prog: $target: ${kind##*-} on input ${input:-$file}"
		echo "$prog: $target: replay it: $(realpath "$harness") ${input:-$file}"
	done >&2
}

# fuzz_run HARNESS TARGET CORPUS ARTIFACT_PREFIX LOG [LIBFUZZER_OPTION...]:
# run HARNESS (of TARGET) on CORPUS (from fuzz_seeds) with TARGET's
# dictionary, inputs up to fuzz_max_len bytes, 10 s at most per input and
# the OPTIONs (how long: -runs, -max_total_time; -seed), its output into
# LOG, failing inputs written as ARTIFACT_PREFIX{crash,leak,timeout,oom}-SHA1.
# Prints the seed, coverage and statistics; returns 0 when the run is clean,
# else 1 after naming TARGET, what went wrong and each failing input.
fuzz_run() {
	local harness=$1 target=$2 corpus=$3 prefix=$4 log=$5 rc=0 dict=()
	shift 5

	[ -f "$top/tests/fuzz/$target.dict" ] && dict=(-dict="$top/tests/fuzz/$target.dict")
	echo "$prog: $target: $(basename "$harness") $* from $(find "$corpus" -type f | wc -l) seeds, inputs up to $fuzz_max_len bytes; log $log"
	SEGNET_FUZZ_TOTALS=1 "$harness" "${dict[@]}" -max_len="$fuzz_max_len" -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$prefix" "$@" "$corpus" >"$log" 2>&1 || rc=$?

	grep -E '^INFO: Seed: ' "$log" || true
	# The final coverage line and libFuzzer's statistics.
	grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)' "$log" | tail -n 2 || true
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" || true
	# What the harness counts of the inputs it ran (fuzz_trace: the large-record paths).
	grep -E '^fuzz_[a-z]+: reached ' "$log" || true
	# A sanitizer report goes to LOG, or (test.sh --sanitize) where ASAN_OPTIONS's log_path says;
	# libFuzzer writes the input of each finding either way.
	if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|invariant broken|SUMMARY: |Test unit written to .*(crash|leak|timeout|oom)-' "$log"; then
		grep -E 'ERROR:|runtime error:|invariant broken|SUMMARY:' "$log" | head -n 20 >&2 || true
		fuzz_inputs "$harness" "$target" "$log" "$top/tests/fuzz/corpus/$target" "$corpus"
		echo "$prog: $target: finding reported, exit status $rc (full log: $log)" >&2
		return 1
	fi
	if [ $rc -ne 0 ]; then
		tail -n 20 "$log" >&2
		echo "$prog: $target: $(basename "$harness") exited with status $rc (full log: $log)" >&2
		return 1
	fi
	echo "$prog: $target: clean"
}
