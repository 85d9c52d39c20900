#!/usr/bin/env bash
# bench/lab/wanlab.sh: two sites joined by an emulated WAN, as network namespaces on this machine
# (root). This kernel has no netem: bench/lab/wanem.c forwards the frames between the two sites
# with a one-way delay, a rate and random loss (docs/wanlab.md).
#
#   bench/lab/wanlab.sh up [-n SITES] [-d DELAY_MS] [-r RATE_MBIT] [-l LOSS_PERCENT]   (defaults 2, 10, 200, 0)
#   bench/lab/wanlab.sh down
#   bench/lab/wanlab.sh check        ping RTT (must be within 10% of 2 x delay) and iperf3 rate
#   bench/lab/wanlab.sh counters     wanem's frame counters so far (on its log)
#
#   namespace stwan: wanem between stw0 and stw1
#   namespace sts0:  sts0w 10.77.0.1/24 --veth-- stw0 [wanem] stw1 --veth-- sts1w 10.77.0.2/24  :namespace sts1
#
#   -n 3: three sites (sts0, sts1, sts2 at 10.77.0.1-3) around a bridge stbr in stwan, each site
#   behind a wanem of its own (its WAN access link): stsNw --veth-- stwN [wanem] stcN --veth-- stpN
#   (a port of stbr). A frame between two sites crosses two wanems, so each gets half the one-way
#   delay and about half the loss (1 - sqrt(1 - l)); the rate is each site's access rate.
#
# Every name starts with "st" (other labs on this machine use other prefixes); STLAB_ID (up to 4 of
# [a-z0-9]) is appended to every name, so two labs can exist at once (sts0ID, stwanID, ...). Run a
# command in a site with `ip netns exec sts0 CMD`. The lab's directory (wanem's binary, log and
# pid) is $STLAB_DIR, /tmp/stlab by default (give each lab its own). wanem runs under SCHED_FIFO (chrt) unless STLAB_RT=0.
# STLAB_CC names the TCP congestion control of the sites' connections across the WAN (a route's
# `congctl`, one of net.ipv4.tcp_available_congestion_control): the sites otherwise inherit the
# machine's default, and a namespace may not change its own (this machine's is bbr).
set -euo pipefail

here=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")
dir=${STLAB_DIR:-/tmp/stlab}
id=${STLAB_ID:-}
[[ $id =~ ^[a-z0-9]{0,4}$ ]] || { echo "wanlab: STLAB_ID must be 0 to 4 of [a-z0-9]" >&2; exit 2; }
NS_WAN=stwan$id
NS=("sts0$id" "sts1$id" "sts2$id")
WAN_IF=("stw0$id" "stw1$id" "stw2$id")
ADDR=(10.77.0.1 10.77.0.2 10.77.0.3)
BRIDGE=stbr$id

die() {
    echo "wanlab: $*" >&2
    exit 1
}

down() {
    if [[ -f $dir/wanem.pid ]]; then
        local pid
        for pid in $(cat "$dir/wanem.pid"); do
            if kill "$pid" 2>/dev/null; then
                for _ in $(seq 50); do
                    kill -0 "$pid" 2>/dev/null || break
                    sleep 0.1
                done
            fi
        done
        rm -f "$dir/wanem.pid"
    fi
    for ns in "${NS[@]}" "$NS_WAN"; do  # the bridge and the core veths go with stwan
        ip netns del "$ns" 2>/dev/null || true
    done
}

up() {
    local delay=10 rate=200 loss=0 sites=2
    while (($#)); do
        case $1 in
            -n) sites=$2; shift 2 ;;
            -d) delay=$2; shift 2 ;;
            -r) rate=$2; shift 2 ;;
            -l) loss=$2; shift 2 ;;
            *) die "unknown option $1 (up takes -n SITES, -d MS, -r MBIT, -l PERCENT)" ;;
        esac
    done
    [[ $sites == 2 || $sites == 3 ]] || die "-n takes 2 or 3 sites, not $sites"
    [[ $(id -u) == 0 ]] || die "needs root (network namespaces, raw packet sockets)"
    command -v ethtool >/dev/null || die "needs ethtool (apt-get install ethtool): offloads must be off for wanem"
    mkdir -p "$dir"
    gcc -O2 -Wall -o "$dir/wanem" "$here/wanem.c" || die "cannot build wanem"
    down
    ip netns add "$NS_WAN"
    for ((i = 0; i < sites; i++)); do
        local ns=${NS[$i]}
        ip netns add "$ns"
        ip link add "${ns}w" netns "$ns" type veth peer name "${WAN_IF[$i]}" netns "$NS_WAN"
        ip -n "$ns" addr add "${ADDR[$i]}/24" dev "${ns}w"
        ip -n "$ns" link set lo up
        ip -n "$ns" link set "${ns}w" up
        if [[ -n ${STLAB_CC:-} ]]; then
            # a namespace may not change its default congestion control, but a route may name one
            ip -n "$ns" route replace 10.77.0.0/24 dev "${ns}w" congctl "$STLAB_CC"
        fi
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
    : >"$dir/wanem.pid"
    if ((sites == 2)); then
        ip netns exec "$NS_WAN" "${rt[@]}" "$dir/wanem" "${WAN_IF[0]}" "${WAN_IF[1]}" -d "$delay" -r "$rate" -l "$loss" \
            >"$dir/wanem.log" 2>&1 &
        echo $! >>"$dir/wanem.pid"
    else
        ip -n "$NS_WAN" link add "$BRIDGE" type bridge
        ip -n "$NS_WAN" link set "$BRIDGE" up
        local half_delay half_loss
        half_delay=$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 2 }')
        half_loss=$(awk -v l="$loss" 'BEGIN { printf "%.4f", 100 * (1 - sqrt(1 - l / 100)) }')
        : >"$dir/wanem.log"
        for ((i = 0; i < sites; i++)); do
            local core="stc$i$id" port="stp$i$id"
            ip -n "$NS_WAN" link add "$core" type veth peer name "$port"
            ip -n "$NS_WAN" link set "$port" master "$BRIDGE"
            ip -n "$NS_WAN" link set "$core" up
            ip -n "$NS_WAN" link set "$port" up
            ip netns exec "$NS_WAN" ethtool -K "$core" tx off sg off tso off gso off gro off >/dev/null 2>&1 || true
            ip netns exec "$NS_WAN" ethtool -K "$port" tx off sg off tso off gso off gro off >/dev/null 2>&1 || true
            ip netns exec "$NS_WAN" "${rt[@]}" "$dir/wanem" "${WAN_IF[$i]}" "$core" -d "$half_delay" -r "$rate" \
                -l "$half_loss" -s $((i + 1)) >"$dir/wanem-$i.log" 2>&1 &
            echo $! >>"$dir/wanem.pid"
        done
        # the first line of wanem.log describes the lab (check reads the delay there)
        echo "wanem: $sites sites, one-way delay $delay ms between two (2 x $half_delay), rate $rate Mbit/s per site, loss $loss% between two (2 x $half_loss%)" \
            >"$dir/wanem.log"
    fi
    # the lab is up once a frame crosses between every pair (ARP then ICMP): bounded
    local a b ok
    for ((a = 0; a < sites; a++)); do
        for ((b = a + 1; b < sites; b++)); do
            ok=0
            for _ in $(seq 50); do
                if ip netns exec "${NS[$a]}" ping -c 1 -W 1 "${ADDR[$b]}" >/dev/null 2>&1; then
                    ok=1
                    break
                fi
                for pid in $(cat "$dir/wanem.pid"); do
                    kill -0 "$pid" 2>/dev/null || die "a wanem stopped: $(cat "$dir"/wanem*.log)"
                done
            done
            ((ok)) || die "no ping crosses from ${NS[$a]} to ${NS[$b]} after 50 tries; wanem logs: $(cat "$dir"/wanem*.log)"
        done
    done
    echo "wanlab: up: $sites sites (${NS[*]:0:$sites}) at ${ADDR[*]:0:$sites}, $(head -1 "$dir/wanem.log" | sed 's/^wanem: //')"
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
    counters)
        for pid in $(cat "$dir/wanem.pid"); do kill -USR1 "$pid"; done
        sleep 0.2
        for f in "$dir"/wanem*.log; do tail -2 "$f"; done
        ;;
    *) sed -n '2,/^set -euo/p' "$0" | grep '^#' | cut -c3-; exit 2 ;;
esac
