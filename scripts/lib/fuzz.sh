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

# fuzz_exec LOG COMMAND...: run COMMAND (a harness, or env VAR=VALUE
# HARNESS ...) with its output into LOG, whose first line names its PID:
# under test.sh --sanitize the sanitizers write their report into a file
# named after the program and that PID (fuzz_report_file). The shell's own
# line about a signal that ended it (Aborted) goes into LOG too. Returns
# COMMAND's exit status.
fuzz_exec() {
	local log=$1
	shift
	{ (echo "$prog: pid $BASHPID: $*"; exec "$@"); } >"$log" 2>&1
}

# fuzz_report_file LOG HARNESS: the file the sanitizers wrote their report
# of LOG's run (fuzz_exec) into, when ASAN_OPTIONS or UBSAN_OPTIONS names a
# log_path (test.sh --sanitize: build-asan/sanitizer-reports/report) and
# the run wrote one there: PATH.HARNESS.PID (log_exe_name=1) or PATH.PID.
# Nothing otherwise: the report, if any, is in LOG.
fuzz_report_file() {
	local log=$1 exe pid path='' f opts o kv

	exe=$(basename "$2")
	pid=$(sed -nE '1s/^[^ ]+: pid ([0-9]+): .*/\1/p' "$log")
	for opts in "${ASAN_OPTIONS:-}" "${UBSAN_OPTIONS:-}"; do
		IFS=':, ' read -ra kv <<<"$opts"
		for o in "${kv[@]}"; do
			case "$o" in
			log_path=*) path=${o#log_path=}; break 2 ;;
			esac
		done
	done
	case "$path" in
	''|stderr|stdout) return 0 ;;
	esac
	[ -n "$pid" ] || return 0
	for f in "$path.$exe.$pid" "$path.$pid"; do
		[ -s "$f" ] && { echo "$f"; return 0; }
	done
	return 0
}

# fuzz_said [--excerpt] FILE: the first 8 lines of FILE that say what went
# wrong, not the frames: a sanitizer's or libFuzzer's ERROR, UBSan's
# runtime error, ASan's access and LeakSanitizer's leaks, a harness's
# broken invariant or failed set-up ("fuzz_nic: nic_create: ..."; not
# fuzz_trace's "reached" totals). With --excerpt, the start of FILE's first
# report: those lines and the frames of the first stack after them, down
# to the harness's entry (LLVMFuzzerTestOneInput; libFuzzer's own frames
# below it are left out), at most 12, without build ids.
fuzz_said() {
	local excerpt=0

	[ "$1" = --excerpt ] && { excerpt=1; shift; }
	awk -v excerpt=$excerpt '
	excerpt && /^ *#[0-9]+ 0x/ {
		sub(/ \(BuildId: [0-9a-f]+\)$/, "")
		print
		if (/ in LLVMFuzzerTestOneInput / || ++n == 12)
			exit
		next
	}
	n { exit }
	/^fuzz_[a-z]+: reached / { next }
	/ERROR: |runtime error:|invariant broken|^fuzz_[a-z]+: |^(READ|WRITE) of size|^(Direct|Indirect) leak of/ {
		print
		if (++said == 8)
			exit
	}' "$1"
}

# fuzz_what LOG REPORT: in one line, what the run of LOG found: the
# harness's broken invariant, else UBSan's runtime error, else the first
# SUMMARY of the sanitizers or libFuzzer (REPORT's, then LOG's:
# "AddressSanitizer: heap-buffer-overflow FILE:LINE in FUNCTION",
# "libFuzzer: timeout", ...); or that libFuzzer was interrupted.
fuzz_what() {
	local log=$1 report=$2 what

	what=$(awk '/^fuzz_[a-z]+: invariant broken: / { sub(/^[^ ]+ /, ""); print; exit }' "$log")
	[ -n "$what" ] || what=$(awk '/runtime error: / { sub(/.*runtime error: /, "runtime error: "); print; exit }' \
		${report:+"$report"} "$log")
	[ -n "$what" ] || what=$(awk '/^SUMMARY: / { sub(/^SUMMARY: /, ""); print; exit }' \
		${report:+"$report"} "$log")
	[ -n "$what" ] || ! grep -q 'libFuzzer: run interrupted' "$log" ||
		what="libFuzzer: run interrupted (by SIGINT, or SIGTERM: meson's timeout sends it)"
	echo "${what:-no sanitizer or libFuzzer report}"
}

# fuzz_inputs HARNESS TARGET LOG WHAT [DIR...]: name each input LOG says
# libFuzzer wrote (a crash, leak, timeout or out-of-memory, in a file named
# by its SHA-1), what it did (its kind and WHAT, fuzz_what) and where: the
# file in a DIR with those bytes (a seed), else the file written; and how
# to replay it.
fuzz_inputs() {
	local harness=$1 target=$2 log=$3 what=$4 file input kind
	shift 4

	sed -nE 's/.*Test unit written to (.*(crash|leak|timeout|oom)-[0-9a-f]{40})$/\1/p' "$log" |
	sort -u | while read -r file; do
		input=$(find "$@" -maxdepth 1 -type f -exec sha1sum {} + 2>/dev/null |
			awk -v s="${file##*-}" '$1 == s && !n++ { print $2 }')
		kind=${file##*/}
		kind=${kind%-*}
		echo "$prog: $target: ${kind##*-} ($what) on input ${input:-$file}"
		echo "$prog: $target: replay it: $(realpath "$harness") ${input:-$file}"
	done >&2
}

# fuzz_failed HARNESS TARGET LOG STATUS [DIR...]: say on stderr why LOG's
# run of HARNESS (fuzz_exec; of TARGET, exit status STATUS) failed, so
# that the failing test's own output holds it: what it found (fuzz_what),
# each failing input with the command that replays it (fuzz_inputs; DIRs
# hold the seeds), the start of the report (fuzz_said --excerpt: what went
# wrong and the top frames; from the sanitizers' own file under test.sh
# --sanitize, which keeps it whole, with LOG's lines from libFuzzer and
# the harness), or LOG's last lines when there is none.
fuzz_failed() {
	local harness=$1 target=$2 log=$3 rc=$4 report what excerpt said
	shift 4

	report=$(fuzz_report_file "$log" "$harness")
	what=$(fuzz_what "$log" "$report")
	fuzz_inputs "$harness" "$target" "$log" "$what" "$@"
	grep -qE 'Test unit written to .*(crash|leak|timeout|oom)-' "$log" ||
		echo "$prog: $target: $what" >&2
	if [ -n "$report" ]; then
		excerpt=$(fuzz_said --excerpt "$report")
		said=$(fuzz_said <(sed 1d "$log"))
		echo "$prog: $target: the report (whole in $report):"
		# The report's own error line first, else LOG's: libFuzzer's
		# deadly signal and timeout write only their frames there.
		if [ -n "$(fuzz_said <(echo "$excerpt"))" ]; then
			printf '%s\n' "$excerpt" ${said:+"$said"}
		else
			printf '%s\n' ${said:+"$said"} "$excerpt"
		fi
	elif [ -n "$(fuzz_said <(sed 1d "$log"))" ]; then
		echo "$prog: $target: the report:"
		fuzz_said --excerpt <(sed 1d "$log")
	else
		echo "$prog: $target: no report; the log ends:"
		tail -n 20 "$log"
	fi >&2
	echo "$prog: $target: $(basename "$harness") failed, exit status $rc (full log: $log)" >&2
}

# fuzz_found HARNESS LOG STATUS: whether LOG's run of HARNESS (fuzz_exec),
# which exited with STATUS, failed: a non-zero status, a sanitizer report
# (in LOG or in its own file, fuzz_report_file), a broken invariant or an
# input libFuzzer wrote as failing.
fuzz_found() {
	local harness=$1 log=$2 rc=$3

	[ "$rc" -ne 0 ] || [ -n "$(fuzz_report_file "$log" "$harness")" ] ||
		grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|invariant broken|SUMMARY: |Test unit written to .*(crash|leak|timeout|oom)-' "$log"
}

# fuzz_run HARNESS TARGET CORPUS ARTIFACT_PREFIX LOG [LIBFUZZER_OPTION...]:
# run HARNESS (of TARGET) on CORPUS (from fuzz_seeds) with TARGET's
# dictionary, inputs up to fuzz_max_len bytes, 10 s at most per input and
# the OPTIONs (how long: -runs, -max_total_time; -seed), its output into
# LOG, failing inputs written as ARTIFACT_PREFIX{crash,leak,timeout,oom}-SHA1.
# Prints the seed, coverage and statistics; returns 0 when the run is clean,
# else 1 after saying what went wrong (fuzz_failed).
fuzz_run() {
	local harness=$1 target=$2 corpus=$3 prefix=$4 log=$5 rc=0 dict=()
	shift 5

	[ -f "$top/tests/fuzz/$target.dict" ] && dict=(-dict="$top/tests/fuzz/$target.dict")
	echo "$prog: $target: $(basename "$harness") $* from $(find "$corpus" -type f | wc -l) seeds, inputs up to $fuzz_max_len bytes; log $log"
	fuzz_exec "$log" env SEGNET_FUZZ_TOTALS=1 "$harness" "${dict[@]}" -max_len="$fuzz_max_len" \
		-timeout=10 -print_final_stats=1 -artifact_prefix="$prefix" "$@" "$corpus" || rc=$?

	grep -E '^INFO: Seed: ' "$log" || true
	# The final coverage line and libFuzzer's statistics.
	grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)' "$log" | tail -n 2 || true
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" || true
	# What the harness counts of the inputs it ran (fuzz_trace: the large-record paths).
	grep -E '^fuzz_[a-z]+: reached ' "$log" || true
	if fuzz_found "$harness" "$log" "$rc"; then
		fuzz_failed "$harness" "$target" "$log" "$rc" "$top/tests/fuzz/corpus/$target" "$corpus"
		return 1
	fi
	echo "$prog: $target: clean"
}
