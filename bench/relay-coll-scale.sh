#!/bin/sh
# Relay scaling as one job (issue 22): N local ranks in one job running a collective
# (org.railyard.bench.CollectiveBenchRank, which checks the first result of each size), once with
# every pair through R relays the launcher starts (`railyard run --relays R --transports relay`),
# once direct (`--transports tcp`); per run the benchmark's rows, the job's wall time and the load.
# Usage: bench/relay-coll-scale.sh [RANKS] [RELAYS] [COLLECTIVE] [SIZES] [ITERS]   (after mvn -DskipTests package)
#   RANKS: comma-separated rank counts (default 8,16,32); RELAYS default 4; COLLECTIVE default
#   alltoall; SIZES default 1k,64k; ITERS default 20. Each job is bounded by TIMEOUT (default 10m).
# Rows: bench/results/relay/coll-scale-<time>.tsv (ranks, relays, transport, wall_s, load, exit,
# then the benchmark's columns).
set -eu
export RAILYARD_AOT="${RAILYARD_AOT:-off}"
RANKS=${1:-8,16,32}
RELAYS=${2:-4}
COLL=${3:-alltoall}
SIZES=${4:-1k,64k}
ITERS=${5:-20}
TIMEOUT=${TIMEOUT:-10m}
CP="railyard-cli/target/lib/*"
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
OUT=${OUT:-bench/results/relay/coll-scale-$(date -u +%Y-%m-%d-%H%M).tsv}
mkdir -p "$(dirname "$OUT")"
LOG=$(mktemp /tmp/relay-coll-scale.XXXXXX)
trap 'rm -f "$LOG"' EXIT INT TERM
echo "# $(git rev-parse --short HEAD); $COLL sizes $SIZES iters $ITERS; $RELAYS relays; $(nproc) cores" | tee "$OUT"
for n in $(echo "$RANKS" | tr ',' ' '); do
    for t in relay tcp; do
        if [ "$t" = relay ]; then extra="--relays $RELAYS"; r=$RELAYS; else extra=""; r=0; fi
        load=$(cut -d' ' -f1 /proc/loadavg)
        start=$(date +%s.%N)
        rc=0
        # shellcheck disable=SC2086
        "$JAVA" -cp "$CP" org.railyard.cli.Main run -np "$n" $extra --transports "$t" --timeout "$TIMEOUT" -cp "$CP" \
            org.railyard.bench.CollectiveBenchRank "$COLL" --sizes "$SIZES" --iters "$ITERS" > "$LOG" 2>&1 || rc=$?
        wall=$(echo "$(date +%s.%N) - $start" | bc)
        rows=$(grep -P "^\[0\] $COLL\t" "$LOG" | sed 's/^\[0\] //' || true)
        if [ -z "$rows" ]; then
            printf '%s\t%s\t%s\t%.1f\t%s\t%s\t(no rows: %s)\n' "$n" "$r" "$t" "$wall" "$load" "$rc" "$(grep -v '^railyard: relay' "$LOG" | tail -1)" | tee -a "$OUT"
        else
            echo "$rows" | while IFS= read -r row; do
                printf '%s\t%s\t%s\t%.1f\t%s\t%s\t%s\n' "$n" "$r" "$t" "$wall" "$load" "$rc" "$row"
            done | tee -a "$OUT"
        fi
    done
done
