#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# switchd against three NICs over memif, without NICs or hugepages:
#
#   switchd_memif.sh SWITCHD NIC_PEERS
#
# switchd runs with three memif server ports (one per node) on CPU 0;
# nic_peers opens the three memif clients in one process on CPU 1 and runs
# a struct nic on each (see nic_peers.c for what it checks). While
# nic_peers holds after injecting a forged frame, this script reads
# switchd's telemetry (/segnet/switch/stats, nodes, arbiter) and checks the
# forged source was counted; then it stops switchd with SIGTERM and checks
# its exit status, its summary and that no mbuf leaked. Both processes use
# idle back-off. memif buffers of 4096 bytes hold a full BREQ (2134 bytes)
# in one descriptor: DPDK 22.11's memif receive path can replay stale ring
# slots when a frame spans two (see doc/operations.md). Everything it
# starts or creates goes at exit.
set -u

switchd=${1:?usage: switchd_memif.sh SWITCHD NIC_PEERS}
peers=${2:?usage: switchd_memif.sh SWITCHD NIC_PEERS}
# A slot of 0.86 ms (bulk channel at 0.02 Gbit/s) is long next to the
# 100 us back-off sleeps; a node is down after 60 slots (52 ms). The quick
# channel runs at 1 Gbit/s, so QREQs sent together rarely collide.
gbps=0.02
down=60

# shellcheck source=scripts/lib/dpdk.sh
. "$(dirname "$0")/../../scripts/lib/dpdk.sh"
# shellcheck source=tests/integration/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
daemons_test switchd

# Read switchd's endpoints and check them (python3 parses the JSON).
check_telemetry() {
	if ! command -v dpdk-telemetry.py >/dev/null 2>&1; then
		echo "dpdk-telemetry.py not installed: telemetry not checked"
		return 0
	fi
	for ep in stats nodes arbiter; do
		echo "/segnet/switch/$ep" | dpdk-telemetry.py -f "$tag-sw" \
			>"$tmp/tel-$ep.json" 2>&1 || return 1
	done
	python3 - "$tmp" <<'EOF'
import json, sys
def reply(ep):
    text = open(f"{sys.argv[1]}/tel-{ep}.json").read()
    return json.loads(text[text.index('{'):])[f"/segnet/switch/{ep}"]
st, nodes, arb = reply("stats"), reply("nodes"), reply("arbiter")
assert st["forged_src"] >= 1, st
assert st["joins"] >= 3 and st["downs"] >= 1, st
assert st["breq_forwarded"] > 0 and st["qreq_forwarded"] > 0, st
assert "decode" in st and "crc" in st["decode"], st
assert st["memif_removed"] == 0, st
assert nodes["nodes"] == 3 and nodes["up"] == 2, nodes
for i in range(3):
    n = nodes[f"node{i}"]
    assert n["joined"] == 1 and n["port_rx_frames"] > 0, n
    assert n["control_tx_frames"] > 0, n
assert nodes["node2"]["up"] == 0, nodes
assert arb["name"] == "lcf" and arb["slots"] > 0 and arb["grants"] > 0, arb
# Counters are read while the poller writes them: one update apart at most.
assert abs(sum(arb["match_hist"]) - arb["slots"]) <= 2, arb
print("telemetry: forged_src", st["forged_src"], "joins", st["joins"],
      "downs", st["downs"], "mean grants/slot", arb["mean_grants_per_slot"],
      "mean arbitration", arb["mean_arb_ns"], "ns")
EOF
}

vdevs=
cvdevs=
ports=
for i in 0 1 2; do
	dev="net_memif$i,id=0,socket=$tmp/sw$i.sock,socket-abstract=no,bsize=4096"
	vdevs="$vdevs --vdev $dev,role=server"
	cvdevs="$cvdevs --vdev $dev,role=client"
	ports="$ports --port net_memif$i"
done

# shellcheck disable=SC2086
"$switchd" $eal -l 0 --file-prefix "$tag-sw" $vdevs -- --nodes 3 \
	--port 0=net_memif0 --port 1=net_memif1 --port 2=net_memif2 \
	--link-gbps $gbps --quick-gbps 1 --down-slots $down --stats-interval 0.5 \
	>"$tmp/switchd.log" 2>&1 &
swpid=$!
for i in 0 1 2; do
	wait_for "$tmp/sw$i.sock" 100 "$swpid" || fail "switchd did not open its memif sockets"
done
# shellcheck disable=SC2086
"$peers" $eal -l 1 --file-prefix "$tag-nic" $cvdevs -- $ports \
	--link-gbps $gbps --down-slots $down \
	--forged-file "$tmp/forged" --release-file "$tmp/release" \
	>"$tmp/peers.log" 2>&1 &
pids=$!
tel=0
if wait_for "$tmp/forged" 400 "$pids"; then
	sleep 0.2
	check_telemetry || tel=1
fi
touch "$tmp/release"
wait "$pids"
prc=$?
pids=
cat "$tmp/peers.log"
[ "$prc" = 0 ] || fail "nic_peers exited with $prc"
[ "$tel" = 0 ] || { cat "$tmp"/tel-*.json; fail "telemetry"; }
kill -TERM "$swpid"
wait "$swpid"
src=$?
swpid=
echo "--- switchd (exit $src)"
cat "$tmp/switchd.log"
[ "$src" = 0 ] || fail "switchd exited with $src"
grep -q "^switch.forged_src 1$" "$tmp/switchd.log" || fail "forged_src not in the summary"
grep -q "^switchd: no mbuf leaked$" "$tmp/switchd.log" || fail "no leak verdict"
grep -q "^switchd: polling on CPU" "$tmp/switchd.log" || fail "no placement line"
echo "PASS"
