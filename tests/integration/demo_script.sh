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
#    demo's shell takes SIGINT or ignores it: "interrupted", the lab down;
#    the demo ends by SIGINT (a shell says 130), or exits 130 when its
#    shell ignores SIGINT (only segnet-replay stopped).
# 4. (with gdb) Ctrl-C when the demo's shell, its SIGINT trap set, expands
#    a $(...) (gdb stops it in xparse_dolparen, then the test sends SIGINT
#    to the process group); else, as in 3., during the replay: the demo ends
#    by SIGINT, the lab down (before: bash failed to run the trap, exit 2,
#    "interrupt trap: line 2: unexpected EOF while looking for matching").
#    The test says which of the two happened (the shell with the traps
#    should expand no $(...) now: scripts/lib/signals.sh). Skipped, saying which is
#    missing, without gdb, without bash's symbols xparse_dolparen and
#    trap_list (bash's own dynamic symbol table: Debian's bash exports them
#    for loadable builtins; no debug symbols needed) or without leave to
#    attach to a process (ptrace: root, or kernel.yama.ptrace_scope 0).
# 5. SIGKILL to the demo's shell alone during a long replay: its work
#    notices within a tenth of a second (its parent changed), stops
#    segnet-replay and takes the lab down within a few seconds, saying
#    "interrupted: its shell was killed" (before: the replay ran to its
#    end, 100 passes over the trace, and the lab stayed up meanwhile).
# The checks are strings eval'd later: single quotes on purpose.
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
#    way: "interrupted", the lab down and its directory gone.
# 4. The same, but at the moment the demo's shell, its SIGINT trap set,
#    expands a $(...), if it does: gdb (attached before the demo starts:
#    it waits on a FIFO, then execs it) stops it in xparse_dolparen, where
#    bash 5.2 fails to parse the trap, and sends the SIGINT.
# interrupt NAME DISPOSITION: run the demo in a process group of its own
# (SIGINT default, ignore, or gdb: default, and gdb as above), SIGINT the
# group once the replay runs; its exit status (or the signal that ended
# it, SIGINT) in $rc, its output in $tmp/NAME.log, gdb's in $tmp/NAME.gdb.
interrupt() {
	rc=$(python3 - "$demo" "$build" "$tmp/out-$1" "$tmp/$1.log" "$2" <<-'EOF'
		import os, signal, subprocess, sys, time
		demo, build, out, log, how = sys.argv[1:6]
		signal.signal(signal.SIGINT, signal.SIG_IGN if how == "ignore" else signal.SIG_DFL)
		cmd = [demo, "--no-build", "--build", build, "--loop", "100", "--out", out]
		if how == "gdb":
		    go = log + ".go"
		    os.mkfifo(go)
		    cmd = ["bash", "-c", 'read -r _ <"$0" && exec bash "$@"', go] + cmd
		with open(log, "w") as f:
		    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
		                         start_new_session=True)
		# wait_for PATH TEXT SEC: TEXT in file PATH within SEC s (while the demo runs).
		def wait_for(path, text, sec):
		    end = time.time() + sec
		    while time.time() < end and text not in open(path).read() and p.poll() is None:
		        time.sleep(0.05)
		    return text in open(path).read()
		if how == "gdb":
		    gdb_log = log[:-4] + ".gdb"
		    with open(gdb_log + ".x", "w") as x:
		        x.write("set pagination off\n"
		                "handle SIGINT nostop noprint pass\n"
		                "break xparse_dolparen if ((char **)&trap_list)[2] > (char *)1\n"
		                "commands\nsilent\necho stopped in a $(...) with the INT trap set\\n\n"
		                "shell kill -INT -- -%d\ndetach\nend\n"
		                "echo attached\\n\ncontinue\n" % p.pid)
		    g = subprocess.Popen(["gdb", "-q", "-batch", "-nx", "-p", str(p.pid), "-x",
		                          gdb_log + ".x"], stdout=open(gdb_log, "w"),
		                         stderr=subprocess.STDOUT, start_new_session=True)
		    if not wait_for(gdb_log, "attached", 30):
		        # (the demo has not started: its shell waits on the FIFO)
		        g.kill()
		        p.kill()
		        p.wait()
		        print("no-gdb")
		        sys.exit(0)
		    open(go, "w").write("\n")
		wait_for(log, "mode messages", 60)
		time.sleep(1)
		if p.poll() is None:
		    os.killpg(p.pid, signal.SIGINT)
		try:
		    rc = p.wait(timeout=60)
		    print(rc if rc >= 0 else signal.Signals(-rc).name)
		except subprocess.TimeoutExpired:
		    os.killpg(p.pid, signal.SIGKILL)
		    print("timeout")
		if how == "gdb":
		    g.wait(timeout=30)
		EOF
	)
	cat "$tmp/$1.log"
}
# gdb_missing: what case 4 lacks before gdb attaches (nothing: empty): gdb,
# or the two symbols of the bash that runs the demo its breakpoint needs.
gdb_missing() {
	command -v gdb >/dev/null 2>&1 || { echo "no gdb"; return; }
	_bash=$(command -v bash)
	gdb -q -batch -nx -ex 'info address xparse_dolparen' -ex 'info address trap_list' \
		"$_bash" 2>&1 | grep -q "No symbol" &&
		echo "$_bash has no symbol xparse_dolparen or trap_list (a bash 5.2 exporting them, as Debian's does for loadable builtins; debug symbols are not needed)"
}
case4="case 4 (Ctrl-C while the demo's shell expands a \$(...))"
for how in default ignore gdb; do
	if [ "$how" = gdb ] && missing=$(gdb_missing) && [ -n "$missing" ]; then
		echo "SKIP: $case4 needs gdb and bash's symbols xparse_dolparen and trap_list: $missing"
		continue
	fi
	interrupt "int-$how" "$how"
	if [ "$rc" = no-gdb ]; then
		echo "SKIP: $case4: gdb could not attach to bash (it needs ptrace: root, or kernel.yama.ptrace_scope 0): $(cat "$tmp/int-$how.gdb")"
		continue
	fi
	if [ "$how" = gdb ]; then
		cat "$tmp/int-$how.gdb"
		if grep -q "stopped in a" "$tmp/int-$how.gdb"; then
			echo "case 4: gdb stopped the shell in a \$(...) with its INT trap set; SIGINT came there"
		else
			echo "case 4: gdb's breakpoint (xparse_dolparen with the INT trap set) was not hit: SIGINT came during the replay, as in 3."
		fi
	fi
	if [ "$how" = ignore ]; then want=130; else want=SIGINT; fi
	check '[ "$rc" = "$want" ]' "SIGINT ($how in the shell): the demo ends by $want (it ended by $rc)"
	check 'grep -q "^demo.sh: interrupted" "$tmp/int-$how.log"' "SIGINT ($how): it says it was interrupted"
	check '! grep -q "reported a failure\|interrupt trap\|unexpected EOF" "$tmp/int-$how.log"' \
		"SIGINT ($how): not reported as a failure (of the replay or of bash)"
	check 'grep -q "is down" "$tmp/int-$how.log"' "SIGINT ($how): the lab is taken down"
	lab=$(sed -n 's/.*--lab \([^ ]*\) .*/\1/p' "$tmp/int-$how.log" | head -1)
	check '[ -n "$lab" ] && [ ! -e "$lab" ]' "SIGINT ($how): the lab's directory ($lab) is gone"
done

# 5. SIGKILL to the demo's shell during the replay. The result: the tenths
# of a second from the kill until the work (the shell's child) had ended
# and the lab's directory was gone (or "timeout" after 15 s: then the test kills
# what is left and takes the lab down itself), and the lab's directory.
killed=$(python3 - "$demo" "$build" "$tmp/out-kill" "$tmp/kill.log" <<-'EOF'
	import os, re, signal, subprocess, sys, time
	demo, build, out, log = sys.argv[1:5]
	with open(log, "w") as f:
	    p = subprocess.Popen([demo, "--no-build", "--build", build, "--loop", "100", "--out", out],
	                         stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
	end = time.time() + 60
	while time.time() < end and "mode messages" not in open(log).read() and p.poll() is None:
	    time.sleep(0.05)
	time.sleep(1)
	m = re.search(r"--lab (\S+) ", open(log).read())
	lab = m.group(1) if m else ""
	work = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True,
	                      text=True).stdout.split()
	os.kill(p.pid, signal.SIGKILL)
	p.wait()
	t0 = time.time()
	# running(PID): not gone, nor a zombie waiting for its reaper
	def running(pid):
	    try:
	        return open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()[0] != "Z"
	    except OSError:
	        return False
	def gone():
	    return not (work and running(work[0])) and not (lab and os.path.exists(lab))
	while time.time() < t0 + 15 and not gone():
	    time.sleep(0.1)
	if gone():
	    print(round((time.time() - t0) * 10), lab)
	else:
	    os.killpg(p.pid, signal.SIGKILL)
	    if lab:
	        subprocess.run([os.path.join(os.path.dirname(demo), "lab.sh"), "down", "--name",
	                        "demo-%d" % p.pid, "--dir", lab], stdout=subprocess.DEVNULL,
	                       stderr=subprocess.DEVNULL)
	        subprocess.run(["rm", "-rf", lab])
	    # (the killed shell's folder: lib/signals.sh, sig_run demo-run)
	    subprocess.run(["rm", "-rf", "%s/segnet-demo-run.%d" % (os.environ.get("TMPDIR", "/tmp"),
	                                                            p.pid)])
	    print("timeout", lab)
	EOF
)
cat "$tmp/kill.log"
echo "SIGKILL of the demo's shell: work and lab gone after ${killed%% *} tenths of a second"
check '[ "${killed%% *}" != timeout ] && [ "${killed%% *}" -le 50 ]' \
	"SIGKILL of the shell: the work stops and the lab is down within 5 s (${killed%% *} tenths)"
check 'grep -q "^demo.sh: interrupted: its shell was killed" "$tmp/kill.log"' \
	"SIGKILL of the shell: the work says its shell was killed"
check 'grep -q "is down" "$tmp/kill.log" && [ ! -e "${killed#* }" ]' \
	"SIGKILL of the shell: the lab is taken down, its directory gone"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
