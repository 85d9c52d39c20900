#!/usr/bin/env bash
# bench/lab/gwbench.sh: the site gateways against direct cross-site tcp over the emulated WAN of
# bench/lab/wanlab.sh (issue 23, seed 003 Table 2): ping-pong latency (1 B) and bandwidth (4 MiB)
# between one rank of each site, and alltoall of 2 MiB over 8 ranks (4 + 4), in alternating rounds
# direct / gateway. The gateways run as `railyard gateway` processes in the two site namespaces
# (sts0 at 10.77.0.1:7430, sts1 at 10.77.0.2:7430); only they cross the WAN in the gateway runs.
# Root.
#
#   bench/lab/gwbench.sh [-n SITES] [-d DELAY_MS] [-r RATE_MBIT] [-l LOSS_PERCENT] [--rounds N] [--connections K]
#
# Defaults: 2 sites, 10 ms one way, 200 Mbit/s, no loss, 2 rounds, 1 WAN connection. With -n 3,
# three sites (wanlab.sh -n 3: each behind its own access link), the ping-pong between sites 0 and
# 1, and the alltoall over 6 ranks (3 sites x 2). STLAB_ID and STLAB_DIR name the lab as for
# wanlab.sh. Output goes to stdout
# and to bench/lab/results/gwbench.txt (appended), with the load average of the machine.
set -euo pipefail

here=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")
repo=$(cd -- "$here/../.." && pwd -P)
dir=${STLAB_DIR:-/tmp/stlab}
out="$here/results/gwbench.txt"
delay=10 rate=200 loss=0 rounds=2 connections=1 sites=2
id=${STLAB_ID:-}
while (($#)); do
    case $1 in
        -n) sites=$2; shift 2 ;;
        -d) delay=$2; shift 2 ;;
        -r) rate=$2; shift 2 ;;
        -l) loss=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
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

gateway() { # site, address, peer
    ip netns exec "$1" "$java" -Xmx256m -cp "$cp" org.railyard.cli.Main gateway --site "$1" --bind "$2" \
        --port 7430 --peers "$3" --connections "$connections" >"$dir/gw-$1.log" 2>&1 &
    gw_pids+=($!)
}
site_ns() { echo "sts$1$id"; }
for ((i = 0; i < sites; i++)); do
    peers=()
    for ((j = 0; j < sites; j++)); do
        ((j == i)) || peers+=("$(site_ns "$j")=10.77.0.$((j + 1)):7430")
    done
    gateway "$(site_ns "$i")" "10.77.0.$((i + 1))" "$(IFS=,; echo "${peers[*]}")"
done
for _ in $(seq 1 100); do
    ready=1
    for ((i = 0; i < sites; i++)); do
        grep -q listening "$dir/gw-$(site_ns "$i").log" 2>/dev/null || ready=0
    done
    ((ready)) && break
    sleep 0.2
done

hosts() { for ((i = 0; i < sites; i++)); do printf '%s slots=%s\n' "$(site_ns "$i")" "$1"; done >"$dir/hosts"; }
sites() {
    for ((i = 0; i < sites; i++)); do
        printf 'site %s gateway 10.77.0.%s:7430\n%s slots=%s\n' "$(site_ns "$i")" $((i + 1)) "$(site_ns "$i")" "$1"
    done >"$dir/sites"
}
run() { # mode np main args...
    local mode=$1 np=$2
    shift 2
    # the site namespaces share one node identity: tcp only, inside a site too, in both modes
    local where=(--hosts "$dir/hosts") transports=tcp
    [[ $mode == gateway ]] && where=(--sites "$dir/sites") transports=tcp,gateway
    ip netns exec "$(site_ns 0)" "$java" --sun-misc-unsafe-memory-access=allow -Drailyard.launcher.host=10.77.0.1 -cp "$cp" \
        org.railyard.cli.Main run -np "$np" "${where[@]}" --rsh "$dir/rsh" --timeout 900s --transports "$transports" \
        --env RAILYARD_RAIL_NETS=10.77.0.0/24 --jvm-arg=-Xmx384m --jvm-arg=-XX:+UseSerialGC "$@" 2>&1 \
        | grep -E "^\[0\] (latency|bw|alltoall)|rror|FAIL" | sed "s/^\[0\] /$mode\t/" || true
}

{
    echo "## $(date -u +%Y-%m-%dT%H:%MZ) bench/lab/gwbench.sh -n $sites -d $delay -r $rate -l $loss --rounds $rounds --connections $connections"
    echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores (other work on the machine shows in the numbers)"
    head -1 "$dir/wanem.log"
    echo "# mode benchmark transport np bytes iterations mean_us p50_us p99_us max_us MB_s"
    hosts 1
    sites 1
    for r in $(seq 1 "$rounds"); do
        for mode in direct gateway; do
            # ping-pong, as the seed's Table 2: 1 B for latency, 4 MiB for bandwidth (MB_s column)
            run "$mode" 2 org.railyard.bench.BenchRank latency --sizes 1,4m --iters 50 --no-jit-warmup
        done
    done
    per=$((sites == 2 ? 4 : 2))
    hosts "$per"
    sites "$per"
    for r in $(seq 1 "$rounds"); do
        for mode in direct gateway; do
            run "$mode" $((sites * per)) org.railyard.bench.CollectiveBenchRank alltoall --sizes 2m --iters 4 --no-jit-warmup
        done
    done
    echo "# gateway $(site_ns 0) counters after the runs:"
    ip netns exec "$(site_ns 0)" "$java" -cp "$cp" org.railyard.cli.Main gateway --stats 10.77.0.1:7430 2>&1 \
        | sed 's/^/#   /' || true
} | tee -a "$out"
