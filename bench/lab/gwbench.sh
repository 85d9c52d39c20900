#!/usr/bin/env bash
# bench/lab/gwbench.sh: the site gateways against direct cross-site tcp over the emulated WAN of
# bench/lab/wanlab.sh (issue 23, seed 003 Table 2): ping-pong latency (1 B) and bandwidth (4 MiB)
# between one rank of each site, alltoall of 2 MiB over 8 ranks (4 + 4), and on request the
# BT/SP-like pattern of org.railyard.bench.HaloBenchRank (compute phases longer than TCP's idle
# restart, then halo exchanges across the site boundary; seed 003's NPB BT and SP), in alternating
# rounds direct / gateway. The gateways run as `railyard gateway` processes in the two site namespaces
# (sts0 at 10.77.0.1:7430, sts1 at 10.77.0.2:7430); only they cross the WAN in the gateway runs.
# Root.
#
#   bench/lab/gwbench.sh [-n SITES] [-d DELAY_MS] [-r RATE_MBIT] [-l LOSS_PERCENT] [--rounds N]
#       [--connections K[,K...]] [--base DIR] [--only LIST] [--warm MS] [--halo 'ARGS'] [--sizes LIST] [--iters N]
#       [--gw-warmup N] [--gw-self-warm N]
#
# Defaults: 2 sites, 10 ms one way, 200 Mbit/s, no loss, 2 rounds, 1 WAN connection. Several
# connection counts (--connections 1,2) make one gateway mode each (gateway-c1, gateway-c2: a pair
# of gateways of its own per count, on ports 7430, 7431, ...), and --base DIR one more (base-cK,
# the first count) whose gateways and ranks run the jars built in DIR (another checkout, after
# `mvn -B -o -q -DskipTests package` there): a before/after pair of builds. Every round runs
# direct then each gateway mode in turn. --only LIST: which of pingpong, alltoall and halo run
# (comma-separated; default pingpong,alltoall). halo: HaloBenchRank over all the ranks (4 per site),
# with ARGS of --halo added (its defaults: 30 steps of 250 ms compute, halos of 160k and 26k); each
# of its rows is followed by the kernel's congestion signals in each site namespace over that job.
# --sizes and --iters: the ping-pong's (default 1,4m and 50). --gw-warmup N (default 1000; 0: none):
# before the first round, an untimed 1 B ping-pong of N iterations through each gateway mode's
# gateways, so that the rounds measure gateways whose forwarding path the JIT has compiled, as in a
# long-running daemon, instead of freshly started ones (the ranks start afresh in every job, direct
# or not, so nothing else is warmed). --gw-self-warm N: the gateways' --self-warm (round trips
# each gateway daemon forwards through two throwaway loopback gateways before it reports ready;
# default: the daemon's own, 0: off; not for --base). --warm MS is the gateways' --warm (not for --base). The site namespaces inherit the machine's TCP
# congestion control (printed; this machine's is bbr, and a namespace may not change it) unless
# STLAB_CC names one for the route across the WAN (wanlab.sh). With -n 3,
# three sites (wanlab.sh -n 3: each behind its own access link), the ping-pong between sites 0 and
# 1, and the alltoall over 6 ranks (3 sites x 2). STLAB_ID and STLAB_DIR name the lab as for
# wanlab.sh (STLAB_DIR defaults to /tmp/stlab$STLAB_ID). Output goes to stdout and to
# bench/lab/results/gwbench.txt (appended; GWBENCH_OUT replaces it), with the load average.
set -euo pipefail
# Railyard's ahead-of-time cache stays off unless RAILYARD_AOT is set: with the launcher's default
# (auto) a program's second job trains the cache, and that job would fall into one round.
export RAILYARD_AOT="${RAILYARD_AOT:-off}"

here=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")
repo=$(cd -- "$here/../.." && pwd -P)
id=${STLAB_ID:-}
dir=${STLAB_DIR:-/tmp/stlab$id}
export STLAB_DIR=$dir
out=${GWBENCH_OUT:-$here/results/gwbench.txt}
delay=10 rate=200 loss=0 rounds=2 connections=1 sites=2 base="" only=pingpong,alltoall warm=0 pp_sizes=1,4m pp_iters=50 halo=""
gw_warmup=1000 gw_self_warm=""
while (($#)); do
    case $1 in
        -n) sites=$2; shift 2 ;;
        -d) delay=$2; shift 2 ;;
        -r) rate=$2; shift 2 ;;
        -l) loss=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --base) base=$(cd -- "$2" && pwd -P); shift 2 ;;
        --only) only=$2; shift 2 ;;
        --warm) warm=$2; shift 2 ;;
        --halo) halo=$2; shift 2 ;;
        --sizes) pp_sizes=$2; shift 2 ;;
        --iters) pp_iters=$2; shift 2 ;;
        --gw-warmup) gw_warmup=$2; shift 2 ;;
        --gw-self-warm) gw_self_warm=$2; shift 2 ;;
        *) echo "gwbench: unknown option $1" >&2; exit 2 ;;
    esac
done

export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
if [[ -z ${GWBENCH_NO_BUILD:-} ]]; then
    (cd "$repo" && mvn -B -o -q -DskipTests package)
fi
cp="$repo/railyard-cli/target/lib/*"
java=$JAVA_HOME/bin/java

"$here/wanlab.sh" up -n "$sites" -d "$delay" -r "$rate" -l "$loss"
gw_pids=()
cleanup() {
    for p in "${gw_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    "$here/wanlab.sh" down
}
trap cleanup EXIT
mkdir -p "$dir" "$(dirname "$out")"
"$here/wanrsh.sh" "$dir/rsh" node
wants() { [[ ,$only, == *,$1,* ]]; }

# the gateway modes: name, connections, port, classpath
IFS=, read -r -a counts <<<"$connections"
modes=() mode_k=() mode_port=() mode_cp=()
for k in "${counts[@]}"; do
    [[ $k =~ ^[0-9]+$ ]] || { echo "gwbench: --connections takes counts like 1,2, not $connections" >&2; exit 2; }
    if ((${#counts[@]} == 1)) && [[ -z $base ]]; then modes+=(gateway); else modes+=("gateway-c$k"); fi
    mode_k+=("$k") mode_port+=($((7430 + ${#mode_port[@]}))) mode_cp+=("$cp")
done
if [[ -n $base ]]; then
    [[ -d $base/railyard-cli/target/lib ]] || { echo "gwbench: --base $base has no railyard-cli/target/lib (package it first)" >&2; exit 2; }
    modes+=("base-c${counts[0]}") mode_k+=("${counts[0]}") mode_port+=($((7430 + ${#mode_port[@]})))
    mode_cp+=("$base/railyard-cli/target/lib/*")
fi
[[ $gw_warmup =~ ^[0-9]+$ ]] || { echo "gwbench: --gw-warmup takes a number of iterations, not $gw_warmup" >&2; exit 2; }
[[ -z $gw_self_warm || $gw_self_warm =~ ^[0-9]+$ ]] \
    || { echo "gwbench: --gw-self-warm takes a number of round trips, not $gw_self_warm" >&2; exit 2; }
mode_warm=() # the --warm and --self-warm options of each mode's gateways, or nothing
for m in "${!modes[@]}"; do
    o=""
    if [[ ${modes[$m]} != base-* ]]; then
        [[ $warm == 0 ]] || o+="--warm $warm "
        [[ -z $gw_self_warm ]] || o+="--self-warm $gw_self_warm"
    fi
    mode_warm+=("$o")
done

gateway() { # site, address, peers, mode index
    ip netns exec "$1" "$java" -Xmx256m -cp "${mode_cp[$4]}" org.railyard.cli.Main gateway --site "$1" --bind "$2" \
        --port "${mode_port[$4]}" --peers "$3" --connections "${mode_k[$4]}" ${mode_warm[$4]} >"$dir/gw-$1-$4.log" 2>&1 &
    gw_pids+=($!)
}
site_ns() { echo "sts$1$id"; }
for m in "${!modes[@]}"; do
    for ((i = 0; i < sites; i++)); do
        peers=()
        for ((j = 0; j < sites; j++)); do
            ((j == i)) || peers+=("$(site_ns "$j")=10.77.0.$((j + 1)):${mode_port[$m]}")
        done
        gateway "$(site_ns "$i")" "10.77.0.$((i + 1))" "$(IFS=,; echo "${peers[*]}")" "$m"
    done
done
for _ in $(seq 1 300); do # a daemon warms itself before it reports ready (--self-warm, up to 10 s)
    ready=1
    for m in "${!modes[@]}"; do
        for ((i = 0; i < sites; i++)); do
            grep -q listening "$dir/gw-$(site_ns "$i")-$m.log" 2>/dev/null || ready=0
        done
    done
    ((ready)) && break
    sleep 0.2
done

hosts() { for ((i = 0; i < sites; i++)); do printf '%s slots=%s\n' "$(site_ns "$i")" "$1"; done >"$dir/hosts"; }
sites() {
    for m in "${!modes[@]}"; do
        for ((i = 0; i < sites; i++)); do
            printf 'site %s gateway 10.77.0.%s:%s\n%s slots=%s\n' "$(site_ns "$i")" $((i + 1)) "${mode_port[$m]}" \
                "$(site_ns "$i")" "$1"
        done >"$dir/sites-$m"
    done
}
run() { # mode np main args...
    local mode=$1 np=$2
    shift 2
    # the site namespaces share one node identity: tcp only, inside a site too, in every mode
    local where=(--hosts "$dir/hosts") transports=tcp jars=$cp m
    for m in "${!modes[@]}"; do
        if [[ $mode == "${modes[$m]}" ]]; then
            where=(--sites "$dir/sites-$m") transports=tcp,gateway jars=${mode_cp[$m]}
        fi
    done
    ip netns exec "$(site_ns 0)" "$java" --sun-misc-unsafe-memory-access=allow -Drailyard.launcher.host=10.77.0.1 -cp "$jars" \
        org.railyard.cli.Main run -np "$np" "${where[@]}" --rsh "$dir/rsh" --timeout 900s --transports "$transports" \
        --env RAILYARD_RAIL_NETS=10.77.0.0/24 --jvm-arg=-Xmx384m --jvm-arg=-XX:+UseSerialGC "$@" 2>&1 \
        | grep -E "^\[0\] (latency|bw|alltoall|halo)|rror|FAIL" | sed "s/^\[0\] /$mode\t/" || true
}

# the kernel's congestion signals of a site namespace: RetransSegs TCPTimeouts TCPLossProbes
signals() {
    ip netns exec "$(site_ns "$1")" cat /proc/net/snmp /proc/net/netstat | awk '
        /^Tcp:/ { if (!tn) { tn = split($0, th); next } for (i = 1; i <= NF; i++) if (th[i] == "RetransSegs") r = $i }
        /^TcpExt:/ { if (!en) { en = split($0, eh); next } for (i = 1; i <= NF; i++) { if (eh[i] == "TCPTimeouts") t = $i; if (eh[i] == "TCPLossProbes") p = $i } }
        END { print r + 0, t + 0, p + 0 }'
}

{
    args="-n $sites -d $delay -r $rate -l $loss --rounds $rounds --connections $connections${base:+ --base $base} --only $only"
    [[ $warm == 0 ]] || args+=" --warm $warm"
    [[ -z $halo ]] || args+=" --halo '$halo'"
    [[ $pp_sizes == 1,4m && $pp_iters == 50 ]] || args+=" --sizes $pp_sizes --iters $pp_iters"
    args+=" --gw-warmup $gw_warmup"
    [[ -z $gw_self_warm ]] || args+=" --gw-self-warm $gw_self_warm"
    echo "## $(date -u +%Y-%m-%dT%H:%MZ) ${STLAB_ID:+STLAB_ID=$STLAB_ID }bench/lab/gwbench.sh $args"
    echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores (other work on the machine shows in the numbers)"
    cc=$(ip netns exec "$(site_ns 0)" sysctl -n net.ipv4.tcp_congestion_control)
    [[ -z ${STLAB_CC:-} ]] || cc="$STLAB_CC on the WAN route (STLAB_CC; the default is $cc)"
    echo "# TCP in the sites: congestion control $cc," \
        "slow start after idle $(ip netns exec "$(site_ns 0)" sysctl -n net.ipv4.tcp_slow_start_after_idle)"
    head -1 "$dir/wanem.log"
    for f in "$dir"/gw-*.log; do
        grep -h "self-warm" "$f" | sed "s|^|# $(basename "$f" .log): |" || true
    done
    echo "# mode benchmark transport np bytes iterations mean_us p50_us p99_us max_us MB_s"
    hosts 1
    sites 1
    if ((gw_warmup > 0)); then
        # untimed: the gateways' first frames run interpreted (docs/gateway.md, "The gateways' share in the WAN lab")
        for mode in "${modes[@]}"; do
            run "$mode" 2 org.railyard.bench.BenchRank latency --sizes 1 --iters "$gw_warmup" --no-jit-warmup >/dev/null
        done
        echo "# gateways warmed: $gw_warmup untimed 1 B ping-pongs through each mode's gateways; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
    fi
    for r in $(seq 1 "$rounds"); do
        wants pingpong || break
        for mode in direct "${modes[@]}"; do
            # ping-pong, as the seed's Table 2: 1 B for latency, 4 MiB for bandwidth (MB_s column)
            run "$mode" 2 org.railyard.bench.BenchRank latency --sizes "$pp_sizes" --iters "$pp_iters" --no-jit-warmup
        done
    done
    per=$((sites == 2 ? 4 : 2))
    hosts "$per"
    sites "$per"
    for r in $(seq 1 "$rounds"); do
        wants alltoall || break
        for mode in direct "${modes[@]}"; do
            run "$mode" $((sites * per)) org.railyard.bench.CollectiveBenchRank alltoall --sizes 2m --iters 4 --no-jit-warmup
        done
    done
    if wants halo; then
        hosts 4
        sites 4
        echo "# mode halo transport ranks steps compute_ms halo_bytes completion_s exchange_s exchange_ms_per_step"
    fi
    for r in $(seq 1 "$rounds"); do
        wants halo || break
        for mode in direct "${modes[@]}"; do
            before=() after=()
            for ((i = 0; i < sites; i++)); do before+=("$(signals "$i")"); done
            # shellcheck disable=SC2086
            run "$mode" $((sites * 4)) org.railyard.bench.HaloBenchRank --transport "$mode" $halo
            for ((i = 0; i < sites; i++)); do after+=("$(signals "$i")"); done
            for ((i = 0; i < sites; i++)); do
                read -r r0 t0 p0 <<<"${before[$i]}"
                read -r r1 t1 p1 <<<"${after[$i]}"
                echo "#   site $i over that job: $((r1 - r0)) segments retransmitted, $((t1 - t0)) RTOs, $((p1 - p0)) loss probes"
            done
        done
    done
    for m in "${!modes[@]}"; do
        echo "# gateway $(site_ns 0) of ${modes[$m]}: counters after the runs:"
        ip netns exec "$(site_ns 0)" "$java" -cp "$cp" org.railyard.cli.Main gateway --stats "10.77.0.1:${mode_port[$m]}" 2>&1 \
            | sed 's/^/#   /' || true
    done
} | tee -a "$out"
