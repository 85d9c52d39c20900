#!/usr/bin/env bash
# bench/lab/wanlab.sh: two sites joined by an emulated WAN, as network namespaces on this machine
# (root). This kernel has no netem: bench/lab/wanem.c forwards the frames between the two sites
# with a one-way delay, a rate and random loss (docs/wanlab.md).
#
#   bench/lab/wanlab.sh up [-d DELAY_MS] [-r RATE_MBIT] [-l LOSS_PERCENT]   (defaults 10, 200, 0)
#   bench/lab/wanlab.sh down
#   bench/lab/wanlab.sh check        ping RTT (must be within 10% of 2 x delay) and iperf3 rate
#   bench/lab/wanlab.sh counters     wanem's frame counters so far (on its log)
#
#   namespace stwan: wanem between stw0 and stw1
#   namespace sts0:  sts0w 10.77.0.1/24 --veth-- stw0 [wanem] stw1 --veth-- sts1w 10.77.0.2/24  :namespace sts1
#
# Every name starts with "st" (other labs on this machine use other prefixes); STLAB_ID (up to 4 of
# [a-z0-9]) is appended to every name, so two labs can exist at once (sts0ID, stwanID, ...). Run a
# command in a site with `ip netns exec sts0 CMD`. The lab's directory (wanem's binary, log and
# pid) is $STLAB_DIR, /tmp/stlab by default (give each lab its own). wanem runs under SCHED_FIFO (chrt) unless STLAB_RT=0.
set -euo pipefail

here=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")
dir=${STLAB_DIR:-/tmp/stlab}
id=${STLAB_ID:-}
[[ $id =~ ^[a-z0-9]{0,4}$ ]] || { echo "wanlab: STLAB_ID must be 0 to 4 of [a-z0-9]" >&2; exit 2; }
NS_WAN=stwan$id
NS=("sts0$id" "sts1$id")
WAN_IF=("stw0$id" "stw1$id")
ADDR=(10.77.0.1 10.77.0.2)

die() {
    echo "wanlab: $*" >&2
    exit 1
}

down() {
    if [[ -f $dir/wanem.pid ]]; then
        local pid
        pid=$(cat "$dir/wanem.pid")
        if kill "$pid" 2>/dev/null; then
            for _ in $(seq 50); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
        fi
        rm -f "$dir/wanem.pid"
    fi
    for ns in "${NS[@]}" "$NS_WAN"; do
        ip netns del "$ns" 2>/dev/null || true
    done
}

up() {
    local delay=10 rate=200 loss=0
    while (($#)); do
        case $1 in
            -d) delay=$2; shift 2 ;;
            -r) rate=$2; shift 2 ;;
            -l) loss=$2; shift 2 ;;
            *) die "unknown option $1 (up takes -d MS, -r MBIT, -l PERCENT)" ;;
        esac
    done
    [[ $(id -u) == 0 ]] || die "needs root (network namespaces, raw packet sockets)"
    command -v ethtool >/dev/null || die "needs ethtool (apt-get install ethtool): offloads must be off for wanem"
    mkdir -p "$dir"
    gcc -O2 -Wall -o "$dir/wanem" "$here/wanem.c" || die "cannot build wanem"
    down
    ip netns add "$NS_WAN"
    for i in 0 1; do
        local ns=${NS[$i]}
        ip netns add "$ns"
        ip link add "${ns}w" netns "$ns" type veth peer name "${WAN_IF[$i]}" netns "$NS_WAN"
        ip -n "$ns" addr add "${ADDR[$i]}/24" dev "${ns}w"
        ip -n "$ns" link set lo up
        ip -n "$ns" link set "${ns}w" up
        ip -n "$NS_WAN" link set "${WAN_IF[$i]}" up
        # wanem reads whole frames with their checksums: no segmentation or checksum offload on
        # the sending ends, no receive coalescing on either
        ip netns exec "$ns" ethtool -K "${ns}w" tx off sg off tso off gso off gro off >/dev/null 2>&1 || true
        ip netns exec "$NS_WAN" ethtool -K "${WAN_IF[$i]}" tx off sg off tso off gso off gro off >/dev/null 2>&1 || true
    done
    # wanem sleeps until the next frame is due: on a loaded machine a normal thread wakes late and
    # the delay grows with the load, so it runs real-time (it only sleeps or forwards; STLAB_RT=0: not)
    local rt=()
    if [[ ${STLAB_RT:-1} != 0 ]] && command -v chrt >/dev/null; then
        rt=(chrt -f 20)
    fi
    ip netns exec "$NS_WAN" "${rt[@]}" "$dir/wanem" "${WAN_IF[0]}" "${WAN_IF[1]}" -d "$delay" -r "$rate" -l "$loss" >"$dir/wanem.log" 2>&1 &
    echo $! >"$dir/wanem.pid"
    # the link is up once a frame crosses it (ARP then ICMP): bounded
    for _ in $(seq 50); do
        if ip netns exec "${NS[0]}" ping -c 1 -W 1 "${ADDR[1]}" >/dev/null 2>&1; then
            echo "wanlab: up: ${NS[0]} ${ADDR[0]} <-> ${NS[1]} ${ADDR[1]}, $(head -1 "$dir/wanem.log" | sed 's/^wanem: //')"
            return 0
        fi
        kill -0 "$(cat "$dir/wanem.pid")" 2>/dev/null || die "wanem stopped: $(cat "$dir/wanem.log")"
    done
    die "no ping crosses the WAN after 50 tries; wanem log: $(cat "$dir/wanem.log")"
}

check() {
    local delay rate
    delay=$(sed -n 's/.*delay \([0-9.]*\) ms.*/\1/p' "$dir/wanem.log" | head -1)
    rate=$(sed -n 's/.*rate \([0-9.]*\) Mbit.*/\1/p' "$dir/wanem.log" | head -1)
    [[ -n $delay ]] || die "no lab up (no wanem log in $dir)"
    echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
    echo "\$ ip netns exec ${NS[0]} ping -c 50 -i 0.1 ${ADDR[1]}"
    local out avg
    out=$(ip netns exec "${NS[0]}" ping -c 50 -i 0.1 "${ADDR[1]}")
    echo "$out" | tail -2
    avg=$(echo "$out" | sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
    awk -v a="$avg" -v d="$delay" 'BEGIN {
        want = 2 * d; err = (a - want) / want * 100;
        printf "ping RTT avg %.3f ms, setting %.3f ms: %+.2f%% (%s)\n", a, want, err,
            (err < 10 && err > -10) ? "within 10%" : "NOT within 10%" }'
    ip netns exec "${NS[1]}" iperf3 -s -1 -D -B "${ADDR[1]}" --logfile "$dir/iperf3-server.log"
    for _ in $(seq 50); do
        ip netns exec "${NS[1]}" ss -ltn | grep -q ":5201" && break
        sleep 0.1
    done
    echo "\$ ip netns exec ${NS[0]} iperf3 -c ${ADDR[1]} -t 10 -O 2"
    ip netns exec "${NS[0]}" iperf3 -c "${ADDR[1]}" -t 10 -O 2 | grep -E "sender|receiver"
    echo "(rate setting $rate Mbit/s of Ethernet frames; TCP goodput over 1514-byte frames is at most 1448/1514 of it)"
}

case ${1:-} in
    up) shift; up "$@" ;;
    down) down ;;
    check) check ;;
    counters) kill -USR1 "$(cat "$dir/wanem.pid")"; sleep 0.2; tail -2 "$dir/wanem.log" ;;
    *) sed -n '2,/^set -euo/p' "$0" | grep '^#' | cut -c3-; exit 2 ;;
esac
