#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/demo.sh, the README's run command:
#
#   demo_script.sh DEMO_SH BUILD_DIR
#
# 1. --help exits 0 and names every option; bad arguments exit 2 naming the
#    argument; a missing trace exits 1.
# 2. A short run (the first 60 packets of the sample, 4 times as fast as
#    recorded) on the built binaries: a 4-node memif lab comes up, every
#    message is delivered, the report names every node and both channels,
#    the output directory holds the CSV, JSON, latency CSV and a PNG, and
#    the lab is down afterwards (no process, no directory left).
# 3. Ctrl-C (SIGINT to the process group) during the replay, whether the
#    demo's shell takes SIGINT or ignores it: "interrupted", exit 130, the
#    lab down.
# The checks of 2. are strings eval'd later: single quotes on purpose.
# shellcheck disable=SC2016
set -u

demo=${1:?usage: demo_script.sh DEMO_SH BUILD_DIR}
build=${2:?usage: demo_script.sh DEMO_SH BUILD_DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/segnet-demo-it.XXXXXX") || exit 1
failed=0
passed=0
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
expect_prog=$demo
out=$tmp/out

expect 0 "--pcap FILE" --help
expect 0 "--no-build" -h
expect 2 "unknown argument '--bogus'" --bogus
expect 2 "--nodes must be 2 to 32 (lab.sh's limit), not '1'" --nodes 1
expect 2 "--nodes must be 2 to 32 (lab.sh's limit), not 'x'" --nodes x
expect 2 "--nodes must be 2 to 32 (lab.sh's limit), not '33'" --nodes 33
expect 2 "--limit must be 1 or more, not '0'" --limit 0
expect 2 "--multiplier must be a number" --multiplier fast
expect 2 "--out needs a value" --out
expect 1 "--pcap /nonexistent/t.pcap: no such readable file" --pcap /nonexistent/t.pcap \
	--no-build --build "$build"

# 2. A short run.
"$demo" --no-build --build "$build" --limit 60 --multiplier 4 --out "$tmp/out-dir" \
	>"$tmp/run.log" 2>&1
rc=$?
cat "$tmp/run.log"
# check CONDITION WHAT: count CONDITION (eval'd) as passed or failed.
check() {
	if eval "$1"; then
		passed=$((passed + 1))
		echo "ok: $2"
	else
		failed=$((failed + 1))
		echo "FAIL: $2"
	fi
}
# shellcheck disable=SC2034 # o is read by the eval'd checks
o=$tmp/out-dir
check '[ "$rc" = 0 ]' "the demo exits 0 (it exited $rc)"
check 'grep -q "4-node lab on memif" "$tmp/run.log"' "it says which lab it brings up"
check 'grep -q "^delivered  *60 of 60 sent" "$tmp/run.log"' "every message delivered"
check '[ "$(grep -c "^[0-3]  *n[0-3] " "$tmp/run.log")" = 4 ] ' "a line per node"
check 'grep -q "^quick " "$tmp/run.log" && grep -q "^bulk " "$tmp/run.log"' "a line per channel"
check 'grep -q "^total,,,all,60,60," "$o/report.csv"' "report.csv"
check 'python3 -c "import json,sys; assert json.load(open(sys.argv[1]))[\"messages\"][\"delivered\"] == 60" "$o/report.json"' \
	"report.json"
check '[ "$(wc -l <"$o/latency.csv")" = 61 ]' "latency.csv: a line per message"
check '[ "$(head -c 8 "$o/latency.png" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a ]' \
	"latency.png is a PNG"
check 'grep -q "output in $o/" "$tmp/run.log"' "it prints the output directory"
check 'grep -q "is down" "$tmp/run.log"' "the lab is taken down"
lab=$(sed -n 's/.*--lab \([^ ]*\) .*/\1/p' "$tmp/run.log" | head -1)
check '[ -n "$lab" ] && [ ! -e "$lab" ]' "the lab's directory ($lab) is gone"
check '[ -s "$o/lab.log" ]' "lab.log holds lab.sh's output"

# 3. Ctrl-C: SIGINT to the demo's process group while it replays, with the
#    demo's shell taking SIGINT (a terminal) and ignoring it (started in the
#    background by a script: only segnet-replay stops, exit 130). Either
#    way: "interrupted", exit 130, the lab down and its directory gone.
# interrupt NAME DISPOSITION: run the demo in a process group of its own
# (SIGINT default or ignore), SIGINT the group once the replay runs; its
# exit status in $rc, its output in $tmp/NAME.log.
interrupt() {
	rc=$(python3 - "$demo" "$build" "$tmp/out-$1" "$tmp/$1.log" "$2" <<-'EOF'
		import os, signal, subprocess, sys, time
		demo, build, out, log, how = sys.argv[1:6]
		signal.signal(signal.SIGINT, signal.SIG_IGN if how == "ignore" else signal.SIG_DFL)
		with open(log, "w") as f:
		    p = subprocess.Popen([demo, "--no-build", "--build", build, "--loop", "100",
		                          "--out", out], stdout=f, stderr=subprocess.STDOUT,
		                         start_new_session=True)
		end = time.time() + 60
		while time.time() < end and "mode messages" not in open(log).read():
		    time.sleep(0.1)
		time.sleep(1)
		os.killpg(p.pid, signal.SIGINT)
		try:
		    print(p.wait(timeout=60))
		except subprocess.TimeoutExpired:
		    os.killpg(p.pid, signal.SIGKILL)
		    print("timeout")
		EOF
	)
	cat "$tmp/$1.log"
}
for how in default ignore; do
	interrupt "int-$how" "$how"
	check '[ "$rc" = 130 ]' "SIGINT ($how in the shell): the demo exits 130 (it exited $rc)"
	check 'grep -q "^demo.sh: interrupted" "$tmp/int-$how.log"' "SIGINT ($how): it says it was interrupted"
	check '! grep -q "reported a failure" "$tmp/int-$how.log"' "SIGINT ($how): not reported as a failure"
	check 'grep -q "is down" "$tmp/int-$how.log"' "SIGINT ($how): the lab is taken down"
	lab=$(sed -n 's/.*--lab \([^ ]*\) .*/\1/p' "$tmp/int-$how.log" | head -1)
	check '[ -n "$lab" ] && [ ! -e "$lab" ]' "SIGINT ($how): the lab's directory ($lab) is gone"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
