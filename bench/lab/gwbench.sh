#!/usr/bin/env bash
# bench/lab/gwbench.sh: the site gateways against direct cross-site tcp over the emulated WAN of
# bench/lab/wanlab.sh (issue 23, seed 003 Table 2): ping-pong latency (1 B) and bandwidth (4 MiB)
# between one rank of each site, and alltoall of 2 MiB over 8 ranks (4 + 4), in alternating rounds
# direct / gateway. The gateways run as `railyard gateway` processes in the two site namespaces
# (sts0 at 10.77.0.1:7430, sts1 at 10.77.0.2:7430); only they cross the WAN in the gateway runs.
# Root.
#
#   bench/lab/gwbench.sh [-d DELAY_MS] [-r RATE_MBIT] [-l LOSS_PERCENT] [--rounds N] [--connections K]
#
# Defaults: 10 ms one way, 200 Mbit/s, no loss, 2 rounds, 1 WAN connection. Output goes to stdout
# and to bench/lab/results/gwbench.txt (appended), with the load average of the machine.
set -euo pipefail

here=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")
repo=$(cd -- "$here/../.." && pwd -P)
dir=${STLAB_DIR:-/tmp/stlab}
out="$here/results/gwbench.txt"
delay=10 rate=200 loss=0 rounds=2 connections=1
while (($#)); do
    case $1 in
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

"$here/wanlab.sh" up -d "$delay" -r "$rate" -l "$loss"
gw_pids=()
cleanup() {
    for p in "${gw_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    "$here/wanlab.sh" down
}
trap cleanup EXIT
mkdir -p "$dir" "$(dirname "$out")"
cat >"$dir/rsh" <<'EOR'
#!/bin/sh
# rsh of the WAN lab: host = site namespace = the rank's site and node
host=$1
shift
exec ip netns exec "$host" env RAILYARD_SITE="$host" RAILYARD_NODE="$host" /bin/sh -c "$*"
EOR
chmod +x "$dir/rsh"

gateway() { # site, address, peer
    ip netns exec "$1" "$java" -Xmx256m -cp "$cp" org.railyard.cli.Main gateway --site "$1" --bind "$2" \
        --port 7430 --peers "$3" --connections "$connections" >"$dir/gw-$1.log" 2>&1 &
    gw_pids+=($!)
}
gateway sts0 10.77.0.1 sts1=10.77.0.2:7430
gateway sts1 10.77.0.2 sts0=10.77.0.1:7430
for i in $(seq 1 100); do
    grep -q listening "$dir/gw-sts0.log" 2>/dev/null && grep -q listening "$dir/gw-sts1.log" 2>/dev/null && break
    sleep 0.2
done

hosts() { printf 'sts0 slots=%s\nsts1 slots=%s\n' "$1" "$1" >"$dir/hosts"; }
sites() {
    printf 'site sts0 gateway 10.77.0.1:7430\nsts0 slots=%s\nsite sts1 gateway 10.77.0.2:7430\nsts1 slots=%s\n' \
        "$1" "$1" >"$dir/sites"
}
run() { # mode np main args...
    local mode=$1 np=$2
    shift 2
    # the site namespaces share one node identity: tcp only, inside a site too, in both modes
    local where=(--hosts "$dir/hosts") transports=tcp
    [[ $mode == gateway ]] && where=(--sites "$dir/sites") transports=tcp,gateway
    ip netns exec sts0 "$java" --sun-misc-unsafe-memory-access=allow -Drailyard.launcher.host=10.77.0.1 -cp "$cp" \
        org.railyard.cli.Main run -np "$np" "${where[@]}" --rsh "$dir/rsh" --timeout 900s --transports "$transports" \
        --env RAILYARD_RAIL_NETS=10.77.0.0/24 --jvm-arg=-Xmx384m --jvm-arg=-XX:+UseSerialGC "$@" 2>&1 \
        | grep -E "^\[0\] (latency|bw|alltoall)|rror|FAIL" | sed "s/^\[0\] /$mode\t/" || true
}

{
    echo "## $(date -u +%Y-%m-%dT%H:%MZ) bench/lab/gwbench.sh -d $delay -r $rate -l $loss --rounds $rounds --connections $connections"
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
    hosts 4
    sites 4
    for r in $(seq 1 "$rounds"); do
        for mode in direct gateway; do
            run "$mode" 8 org.railyard.bench.CollectiveBenchRank alltoall --sizes 2m --iters 4 --no-jit-warmup
        done
    done
    echo "# gateway sts0 counters after the runs:"
    ip netns exec sts0 "$java" -cp "$cp" org.railyard.cli.Main gateway --stats 10.77.0.1:7430 2>&1 | sed 's/^/#   /' || true
} | tee -a "$out"
