#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# segnet-replay refuses bad command lines with exit status 2 and a message
# naming the argument (messages mode's too), a report file that cannot be
# written among them; --help succeeds; a damaged, missing or empty trace (or
# a FIFO) fails with 1 before any port is touched, and messages mode with 1
# when no nicd answers or the lab is not up (a lab without the key of the
# network is fine with --key-file); --check passes a valid empty trace; a
# replay that sent nothing reports no timing error; a trace that is not
# Ethernet is refused by both modes, --check included, naming the file and
# the link type's number and libpcap's name; a port that stops
# taking frames costs the stall time-out once, not once per burst:
#
#   replay_args.sh SEGNET_REPLAY SAMPLE_PCAP
#
# The cases that may start the EAL use net_null, no hugepages and no
# telemetry: an ethdev that names nothing, a report that fails to be
# written while the others are, a jumbo frame the port gets a larger MTU
# for, a frame longer than the port sends (and, before report files were
# checked first, those refused now).
set -u

replay=${1:?usage: replay_args.sh SEGNET_REPLAY SAMPLE_PCAP}
sample=${2:?usage: replay_args.sh SEGNET_REPLAY SAMPLE_PCAP}
tag=segnet-it-rpargs-$$
out=$(mktemp "${TMPDIR:-/tmp}/segnet-rpargs.XXXXXX") || exit 1
cut=$out.cut.pcap
fifo=$out.fifo
empty=$out.empty.pcap
json=$out.json
newcsv=$out.new.csv
jumbo=$out.jumbo.pcap
linktype=$out.linktype.pcap
key=$out.key
lab=$out.lab.state
eal="--no-huge -m 64 --no-pci --no-shconf --no-telemetry -l 0 --file-prefix $tag \
	--log-level *:error"
failed=0
passed=0

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
holder=
trap '[ -z "$holder" ] || kill "$holder" 2>/dev/null
rm -rf "$out" "$out.held" "$cut" "$fifo" "$empty" "$json" "$newcsv" "$jumbo" "$linktype" "$key" "$lab" \
	"$(dpdk_runtime_dir "$tag")" "$(dpdk_runtime_dir "$tag-held")"' EXIT
printf 'secret\n' >"$key"

expect_prog=$replay

# le32 N: N as four little-endian bytes.
le32() {
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}

# out_says WHAT WORD...: the output of the last expect says each WORD (WHAT: for the message).
out_says() {
	_what=$1
	shift
	for _w in "$@"; do
		if grep -q -e "$_w" "$out"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			echo "FAIL: $_what does not say '$_w'"
		fi
	done
}

p="--port net_null0"
expect 0 "--pps N" --help
expect 0 "--topspeed" -- --help
expect 2 "--pps 0: must be between 0.001 and 1000000000$" -- $p --pps 0 "$sample"
expect 2 "--pps abc" -- $p --pps abc "$sample"
expect 2 "--multiplier -1: must be between 0.000001 and 1000000$" -- $p --multiplier -1 "$sample"
expect 2 "--mbps 1e9" -- $p --mbps 1e9 "$sample"
expect 2 "--pps and --topspeed" -- $p --pps 10 --topspeed "$sample"
expect 2 "--multiplier and --mbps" -- $p --multiplier 2 --mbps 10 "$sample"
expect 2 "--loop x" -- $p --loop x "$sample"
expect 2 "--limit 0" -- $p --limit 0 "$sample"
expect 2 "--duration -1: must be between 1e-9 and 1000000000$" -- $p --duration -1 "$sample"
expect 2 "--burst 65" -- $p --burst 65 "$sample"
expect 2 "--overhead 4 only applies to --mbps" -- $p --overhead 4 "$sample"
expect 2 "--mode bogus" -- $p --mode bogus "$sample"
expect 2 "--port ETHDEV" -- --pps 10 "$sample"
expect 2 "no trace given" -- $p --pps 10
expect 2 "unexpected argument" -- $p "$sample" other.pcap
expect 2 "--bogus: unknown option" -- $p --bogus "$sample"
expect 2 "--pps needs a value" -- $p "$sample" --pps
m="--mode messages"
two="--nicd /nonexistent/n0.sock --nicd /nonexistent/n1.sock"
expect 2 "messages mode needs the nodes: --nicd NAME" -- $m --key-file "$key" "$sample"
expect 2 "--nicd only applies to --mode messages" -- $p --nicd n0 "$sample"
expect 2 "--port only applies to frames mode" -- $m $p $two --key-file "$key" "$sample"
expect 2 "messages mode needs --key-file FILE" -- $m $two "$sample"
expect 2 "--quick-max 30: must be between 0 and 24" -- $m $two --key-file "$key" \
	--quick-max 30 "$sample"
expect 2 "--channel fast: must be auto, quick or bulk" -- $m $two --key-file "$key" \
	--channel fast "$sample"
# --channel quick or bulk sends everything there: --quick-max would do nothing.
expect 2 "--quick-max only applies to --channel auto" -- $m $two --key-file "$key" \
	--channel bulk --quick-max 10 "$sample"
expect 2 "--map /nonexistent/hosts.map: No such file" -- $m $two --key-file "$key" \
	--map /nonexistent/hosts.map "$sample"
expect 2 "--mode messages starts no EAL: give no arguments before --" --no-huge -- \
	$m $two --key-file "$key" "$sample"
# A bad argument before the trace is read: exit 2 for it, not 1 for a missing trace.
expect 2 "--mode messages starts no EAL: give no arguments before --" --no-huge -- \
	$m $two --key-file "$key" /nonexistent/trace.pcap
expect 1 "node 0: cannot open an endpoint of vnet 1 at nicd /nonexistent/n0.sock: no nicd socket at /nonexistent/n0.sock" -- \
	$m $two --key-file "$key" "$sample"
expect 1 "--lab /nonexistent/lab: /nonexistent/lab/lab.state: No such file or directory" -- \
	$m --lab /nonexistent/lab "$sample"
# With --key-file the lab needs no key.V= line: the replay goes on to the nodes.
printf 'state=up\nnodes=2\ndir=/nonexistent/lab\n' >"$lab"
expect 1 "node 0: cannot open an endpoint of vnet 1 at nicd /nonexistent/lab/nicd/n0.sock" -- \
	$m --lab "$lab" --key-file "$key" "$sample"
expect 1 "--lab $lab: the lab has no virtual network 1 (no key.1= line)" -- $m --lab "$lab" "$sample"
expect 1 "cannot open" -- $p /nonexistent/trace.pcap
head -c 5000 "$sample" >"$cut"
expect 1 "truncated record data (caplen 117, 4 bytes left) at byte offset 4980 (record 6) (nothing sent)" \
	-- $p "$cut"
expect 1 "truncated record data (caplen 117, 4 bytes left) at byte offset 4980" -- --check "$cut"
printf 'garbage garbage garbage garbage' >"$cut"
expect 1 "bad magic 0x67617262 at byte offset 0 (nothing sent)" -- $p "$cut"
expect 1 "not a regular file" -- --check /tmp
# A FIFO is refused at once, not waited on for a writer.
mkfifo "$fifo" || exit 1
expect 1 "not a regular file" -- --check "$fifo"
# Both modes read Ethernet frames: another link type is refused when the
# trace is loaded, by --check as by a replay, before any port or nicd,
# naming the file and the link type by number and libpcap's name.
{ head -c 20 "$sample"; le32 101; tail -c +25 "$sample"; } >"$linktype"
expect 1 "$linktype: link type 101 (RAW, Raw IP) is not Ethernet (1): messages mode reads the addresses of Ethernet frames (nothing sent)" -- \
	$m $two --key-file "$key" "$linktype"
expect 1 "$linktype: link type 101 (RAW, Raw IP) is not Ethernet (1): messages mode" -- $m --check "$linktype"
{ head -c 20 "$sample"; le32 147; tail -c +25 "$sample"; } >"$linktype"
expect 1 "link type 147 (USER0, private use) is not Ethernet (1): messages mode" -- $m $two --key-file "$key" "$linktype"
expect 1 "link type 147 (USER0, private use) is not Ethernet (1): messages mode" -- $m --check "$linktype"
expect 1 "link type 147 (USER0, private use) is not Ethernet (1): frames mode sends Ethernet frames (nothing sent)" -- \
	$p "$linktype"
expect 1 "$linktype: link type 147 (USER0, private use) is not Ethernet (1): frames mode" -- --check "$linktype"
# Link types the reader treats apart (larger records: D-Bus, USBPCAP,
# EBHSCR; a pseudo-header libpcap rewrites: 220; the last of the private
# ones), and numbers libpcap has no name for, by --check in both modes.
for lt in "0 (NULL, BSD loopback)" "113 (LINUX_SLL, Linux cooked v1)" \
	"220 (USB_LINUX_MMAPPED, USB with padded Linux header)" "231 (DBUS, D-Bus)" \
	"249 (USBPCAP, USB with USBPcap header)" \
	"279 (EBHSCR, Elektrobit High Speed Capture and Replay (EBHSCR))" \
	"162 (USER15, private use)" "300 (no name in libpcap)" "65535 (no name in libpcap)"; do
	{ head -c 20 "$sample"; le32 "${lt%% *}"; tail -c +25 "$sample"; } >"$linktype"
	expect 1 "$linktype: link type $lt is not Ethernet (1): frames mode sends Ethernet frames (nothing sent)" -- \
		--check "$linktype"
	expect 1 "$linktype: link type $lt is not Ethernet (1): messages mode" -- $m --check "$linktype"
done
# A record past Ethernet's largest (262144), which these link types allow,
# is read and the link type refused, in pcap and in pcapng, with its name.
big_record() {
	if [ "$1" = pcap ]; then
		# header: microseconds, snaplen 0; one record of 300000 bytes
		printf '\324\303\262\241\002\000\004\000'; le32 0; le32 0; le32 0; le32 "$2"
		le32 1700000000; le32 0; le32 300000; le32 300000
	else
		# section header, interface of snaplen 0, enhanced packet block
		le32 168627466; le32 28; le32 439041101; le32 1; le32 4294967295; le32 4294967295
		le32 28
		le32 1; le32 20; le32 "$2"; le32 0; le32 20
		le32 6; le32 300032; le32 0; le32 0; le32 0; le32 300000; le32 300000
	fi
	head -c 300000 /dev/zero
	[ "$1" = pcap ] || le32 300032
}
for f in "pcap 231 (DBUS, D-Bus)" "pcapng 249 (USBPCAP, USB with USBPcap header)" \
	"pcapng 279 (EBHSCR, Elektrobit High Speed Capture and Replay (EBHSCR))"; do
	lt=${f#* }
	big_record "${f%% *}" "${lt%% *}" >"$linktype"
	expect 1 "$linktype: link type $lt is not Ethernet (1): frames mode sends Ethernet frames (nothing sent)" -- \
		--check "$linktype"
	expect 1 "$linktype: link type $lt is not Ethernet (1): messages mode" -- $m $two --key-file "$key" "$linktype"
done
# --check reads and validates the trace only: no port, no lab, nothing sent.
expect 0 "260 records, valid (--check: nothing sent)" -- --check "$sample"
# --check also finds a report file the replay could not write.
expect 2 "--csv /nonexistent/r.csv: cannot be written: No such file or directory" -- \
	--check --csv /nonexistent/r.csv "$sample"
expect 0 "260 records, valid" -- --mode messages --check "$sample"
# A valid trace without records passes --check; a replay of it has nothing to send.
head -c 24 "$sample" >"$empty"
expect 0 "0 records, valid, but nothing to replay (--check: nothing sent)" -- --check "$empty"
expect 1 "no records (nothing sent)" -- $p "$empty"
# Report files are opened before the trace is loaded (and the EAL started):
# one that cannot be written is a bad argument, and a file made for the test
# is removed again.
# shellcheck disable=SC2086
expect 2 "--csv /nonexistent/r.csv: cannot be written: No such file or directory (nothing sent)" \
	$eal --vdev net_null0 -- $p --topspeed --csv /nonexistent/r.csv --json "$json" "$sample"
# shellcheck disable=SC2086
expect 2 "--json /tmp: cannot be written: Is a directory" $eal --vdev net_null0 -- \
	$p --topspeed --json /tmp "$sample"
expect 1 "bad magic" -- $p --csv "$newcsv" "$cut"
if [ -e "$json" ] || [ -e "$newcsv" ]; then
	failed=$((failed + 1))
	echo "FAIL: a report file was left behind by the check: $(ls "$json" "$newcsv" 2>&1)"
fi
# shellcheck disable=SC2086
expect 2 "net_bogus" $eal --vdev net_null0 -- --port net_bogus --pps 10 "$sample"
# An af_packet --vdev whose iface= names no network interface is a bad
# argument, refused before the trace is read (exit 2, not 1 for the trace),
# by --check too; an interface that is there passes on to the trace.
noif=segnet-noif$$
# shellcheck disable=SC2086
expect 2 "^segnet-replay: --vdev net_af_packet0,iface=$noif: iface=$noif: no such network interface" \
	$eal --vdev net_af_packet0,iface=$noif -- --port net_af_packet0 /nonexistent/trace.pcap
# shellcheck disable=SC2086
expect 2 "iface=$noif: no such network interface" $eal --vdev=net_af_packet0,iface=$noif -- \
	--check /nonexistent/trace.pcap
# shellcheck disable=SC2086
expect 1 "cannot open" $eal --vdev net_af_packet0,iface=lo -- --port net_af_packet0 \
	/nonexistent/trace.pcap
# An EAL file prefix another process holds (a replay on a shared config,
# sending one frame a second) is said before the trace is read, not after
# a long read: the damaged trace's "bad magic" would come first otherwise.
# --check starts no EAL: beside that process it reads the trace as ever.
held="--no-huge -m 64 --no-pci --no-telemetry -l 0 --file-prefix $tag-held --log-level *:error"
# shellcheck disable=SC2086
"$replay" $held --vdev net_null0 -- $p --pps 1 "$sample" >"$out.held" 2>&1 &
holder=$!
_i=0
while ! grep -q "mode frames" "$out.held" && kill -0 "$holder" 2>/dev/null && [ "$_i" -lt 100 ]; do
	sleep 0.1
	_i=$((_i + 1))
done
# shellcheck disable=SC2086
expect 1 "^segnet-replay: EAL file prefix $tag-held is in use by another process (pid $holder, " \
	$held --vdev net_null0 -- $p "$cut"
if grep -q "bad magic" "$out"; then
	failed=$((failed + 1))
	echo "FAIL: the replay beside a held file prefix read the trace first"
else
	passed=$((passed + 1))
fi
# shellcheck disable=SC2086
expect 1 "bad magic" $held --vdev net_null0 -- --check "$cut"
# shellcheck disable=SC2086
expect 0 "260 records, valid (--check: nothing sent)" $held --vdev net_null0 -- --check "$sample"
kill -INT "$holder"
wait "$holder"
holder=
# A report that fails to be written does not keep the others from being written.
# shellcheck disable=SC2086
expect 1 "--csv /dev/full: write failed" $eal --vdev net_null0 -- $p --topspeed \
	--csv /dev/full --json "$json" "$sample"
if grep -q '"packets": 260,' "$json" 2>/dev/null; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: --json was not written after --csv failed"
fi
# A replay that sent nothing has no timing error (null), not one of 0.
# shellcheck disable=SC2086
expect 0 "error (ns)  *-$" $eal --vdev net_null0 -- $p --pps 10 --duration 1e-9 --json "$json" \
	"$sample"
if grep -q '"packets": 0,.*"err_min_ns": null, "err_p50_ns": null, "err_p99_ns": null, "err_max_ns": null' \
	"$json" 2>/dev/null; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: the JSON report of a replay that sent nothing: $(cat "$json" 2>&1)"
fi
# net_ring's transmit ring is its own receive ring, which nobody reads: it
# stops taking frames after 1023. The first burst waits the stall time-out
# (1 s), later ones are dropped at once (not 1 s each: 25000 frames would
# take 13 minutes): exit 1, counted. tx busy counts those bursts (of 2 at
# top speed), 12489 with the one it took in part, not the retries of the
# first (18 million in that second, before); tx waited their frames.
expect_prog=timeout
# shellcheck disable=SC2086
expect 1 "stalls  *1  (times the port took nothing for 1 s" 30 "$replay" $eal --vdev net_ring0 -- \
	--port net_ring0 --topspeed --loop 100 "$sample"
expect_prog=$replay
out_says "the replay on a stalled net_ring" "frames sent  *1023$" "dropped  *24977$" \
	"tx busy  *12489  (bursts" "tx waited  *24977  (frames"
# A 9000-byte frame gets the port a larger MTU (net_null: no limit of its
# own) and is sent: exit 0, said up front and in the report.
python3 "$(dirname "$0")/replay_compare.py" frames "$jumbo" 9000 60 || exit 1
# shellcheck disable=SC2086
expect 0 "port net_null0: MTU raised to 8986 (segnet's is 2120) for the trace's longest frame (record 0, 9000 bytes)" \
	$eal --vdev net_null0 -- $p --pps 100 --json "$json" "$jumbo"
for word in "^mtu  *8986  (raised from segnet's 2120" "frames sent  *2$" "2 records, mode frames"; do
	if grep -q -e "$word" "$out" && ! grep -q "too long" "$out"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: the replay of a 9000-byte frame does not say '$word' (or says too long)"
	fi
done
if grep -q '"packets": 2,.*"not_sent": 0}' "$json" 2>/dev/null; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: the JSON report of a 9000-byte frame: $(cat "$json" 2>&1)"
fi
# A frame longer than the port can be given an MTU for (the receive buffers
# segnet-replay makes hold 65407 bytes, net_null cannot scatter, an mbuf
# holds 65407 bytes) is left out and counted, not reported sent: exit 1,
# why named up front with the first one left out.
python3 "$(dirname "$0")/replay_compare.py" frames "$jumbo" 66000 60 || exit 1
# shellcheck disable=SC2086
expect 1 "too long  *1  (records longer than the port's frames of 65403 bytes (4 more per VLAN tag, 65407 at most), not sent)" \
	$eal --vdev net_null0 -- $p --pps 100 --json "$json" "$jumbo"
# The reports count it too.
if grep -q '"packets": 1,.*"not_sent": 1}' "$json" 2>/dev/null; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: the JSON report of a 66000-byte frame: $(cat "$json" 2>&1)"
fi
out_says "the replay of a 66000-byte frame" \
	"the first: record 0, 66000 bytes, at byte offset 24" "frames sent  *1$" \
	"2 records (1 to replay)" \
	"MTU raised to 65389 (segnet's is 2120) as far as it goes, short of the 65986 for the trace's longest frame" \
	"(record 0, 66000 bytes) needs MTU 65986, which the port cannot have: its receive buffers hold frames of 65407 bytes (MTU 65389) and the device (net_null) cannot scatter"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
