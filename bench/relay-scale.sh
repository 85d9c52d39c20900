#!/bin/sh
# Relay scaling (issue 22, the seed's Fig. 2): N ranks in N/2 pairs, every pair a job of 2 local
# ranks (`railyard bench --np 2 --transports relay`), all pairs at once through 1, 2 or 4
# memory-only relays (a pair's ranks own different relays when there are several; the pairs are
# spread over the relays in turn). Per point: the round trip of 8 B (twice the latency p50, median
# over the pairs) with every pair running the latency benchmark at once, then the aggregate
# throughput (the sum of the pairs' MB/s) with every pair running bw at once.
# Usage: bench/relay-scale.sh [ROUNDS] [RANKS] [RELAYS] [BW_SIZE]   (after mvn -DskipTests package)
#   RANKS: even rank counts, comma-separated (default 2,4,8); RELAYS: relay counts (default 1,2,4)
# Rows: bench/results/relay/scale-<time>.tsv (relays, ranks, round, rtt_us, aggregate_MB_s, load)
# and the raw rows beside it (.raw); plot: the same name .png (org.railyard.bench.RelayScalePlot).
set -eu
# Railyard's ahead-of-time cache stays off unless RAILYARD_AOT is set: with the launcher's default
# (auto) a program's second job trains the cache, and that job would fall into one round.
export RAILYARD_AOT="${RAILYARD_AOT:-off}"
ROUNDS=${1:-1}
RANKS=${2:-2,4,8}
RELAYS=${3:-1,2,4}
SIZE=${4:-1m}
CP="railyard-cli/target/lib/*"
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
OUT=${OUT:-bench/results/relay/scale-$(date -u +%Y-%m-%d-%H%M).tsv}
mkdir -p "$(dirname "$OUT")"
LOGS=$(mktemp -d /tmp/relay-scale.XXXXXX)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$LOGS"; }
trap cleanup EXIT INT TERM
MAXR=$(echo "$RELAYS" | tr ',' '\n' | sort -n | tail -1)
PORTS=""
i=0
while [ "$i" -lt "$MAXR" ]; do
    log="$LOGS/relay-$i.log"
    "$JAVA" -Xmx1g -cp "$CP" org.railyard.relay.RelayCommand --port 0 --bind 127.0.0.1 --max-bytes 2g > "$log" 2>&1 &
    pids="$pids $!"
    n=0
    until grep -q "listening on" "$log"; do n=$((n+1)); [ $n -lt 600 ] || { echo "relay did not start: $log" >&2; exit 1; }; sleep 0.1; done
    PORTS="$PORTS $(sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)"
    i=$((i+1))
done
relays_of() { # pair index, relay count: the pair's relay list, starting at relay (2*pair) mod count
    k=0; list=""
    while [ "$k" -lt "$2" ]; do
        idx=$(( (2 * $1 + k) % $2 ))
        port=$(echo $PORTS | cut -d' ' -f$((idx + 1)))
        list="${list:+$list,}127.0.0.1:$port"
        k=$((k+1))
    done
    echo "$list"
}
phase() { # relay count, ranks, benchmark, sizes: runs every pair at once, prints their rows
    pairs=$(($2 / 2)); p=0; ps=""
    while [ "$p" -lt "$pairs" ]; do
        "$JAVA" -cp "$CP" org.railyard.cli.Main bench "$3" --np 2 --sizes "$4" --transports relay --timeout 10m \
            --env RAILYARD_RELAYS="$(relays_of "$p" "$1")" > "$LOGS/pair-$p.out" 2>&1 &
        ps="$ps $!"; p=$((p+1))
    done
    for q in $ps; do wait "$q" || { echo "a pair failed (relays $1, ranks $2, $3):" >&2; cat "$LOGS"/pair-*.out >&2; exit 1; }; done
    cat "$LOGS"/pair-*.out | grep "^$3	"
    rm -f "$LOGS"/pair-*.out
}
echo "# relay scaling; rounds $ROUNDS; ranks $RANKS; relays $RELAYS; bw size $SIZE; $(nproc) cores" > "$OUT"
printf 'relays\tranks\tround\trtt_us\taggregate_MB_s\tload\n' >> "$OUT"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for nr in $(echo "$RELAYS" | tr ',' ' '); do
        for n in $(echo "$RANKS" | tr ',' ' '); do
            load=$(cut -d' ' -f1 /proc/loadavg)
            lat=$(phase "$nr" "$n" latency 8)
            bw=$(phase "$nr" "$n" bw "$SIZE")
            printf '%s\n' "$lat" "$bw" | sed "s/^/$nr\t$n\t$r\t/" >> "${OUT%.tsv}.raw"
            rtt=$(printf '%s\n' "$lat" | awk -F'\t' '{print 2 * $7}' | sort -g | awk '{v[NR]=$1} END{print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')
            agg=$(printf '%s\n' "$bw" | awk -F'\t' '{s += $10} END{printf "%.1f", s}')
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$nr" "$n" "$r" "$rtt" "$agg" "$load" | tee -a "$OUT"
        done
    done
    r=$((r+1))
done
"$JAVA" -cp "$CP" org.railyard.bench.RelayScalePlot "$OUT" "${OUT%.tsv}.png"
