#!/usr/bin/env bash
# Per-hop timing of the 1 B ping-pong through the site gateways over the WAN lab: bench/lab/gwbench.sh
# (its arguments after OUT) runs while tcpdump captures every TCP packet in the three namespaces
# (site 0, the WAN emulator's, site 1; one clock), then gateway-hops.py follows each message packet
# by packet (rank -> its gateway, gateway -> WAN, through wanem, WAN -> the other gateway -> its
# rank, and that rank's reply) and prints the median of each step per job, direct jobs beside.
# No code of the library changes. Root; needs tcpdump (apt-get install -y tcpdump).
# Usage: STLAB_ID=ID bench/probes/gateway-hops.sh OUT [gwbench options]   (OUT: a directory for the pcaps)
# e.g.   STLAB_ID=h bench/probes/gateway-hops.sh /tmp/hops --rounds 1 --only pingpong --sizes 1 --iters 200
set -eu
out=$1; shift
id=${STLAB_ID:-}
here=$(dirname -- "$(readlink -f -- "$0")")
command -v tcpdump >/dev/null || { echo "gateway-hops: needs tcpdump" >&2; exit 2; }
mkdir -p "$out"
: >"$out/tcpdump.pids"
(
    # the lab's namespaces appear when gwbench brings it up; the capture starts before the first job
    for _ in $(seq 600); do
        ip netns list | grep -q "^sts1$id\b" && ip netns list | grep -q "^stwan$id\b" && break
        sleep 0.1
    done
    for ns in "sts0$id" "sts1$id" "stwan$id"; do
        ip netns exec "$ns" tcpdump -i any -n -s 160 -w "$out/$ns.pcap" tcp >"$out/$ns.tcpdump.log" 2>&1 &
        echo $! >>"$out/tcpdump.pids"
    done
) &
GWBENCH_OUT="$out/gwbench.txt" "$here/../lab/gwbench.sh" "$@"
for p in $(cat "$out/tcpdump.pids"); do kill -INT "$p" 2>/dev/null || true; done
sleep 1
python3 "$here/gateway-hops.py" "$out" "$id"
