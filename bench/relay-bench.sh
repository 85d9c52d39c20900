#!/bin/sh
# Relay against direct tcp, 2 local ranks: latency (pp) and bandwidth (bw) through one relay with
# its log off, on tmpfs (/dev/shm) and on disk with batch fsync, in alternating rounds (the machine
# may be shared: each round runs every configuration once, in the same order).
# Usage: bench/relay-bench.sh [ROUNDS] [SIZES]     (after mvn -DskipTests package)
set -eu
# Railyard's ahead-of-time cache stays off unless RAILYARD_AOT is set: with the launcher's default
# (auto) a program's second job trains the cache, and that job would fall into one round.
export RAILYARD_AOT="${RAILYARD_AOT:-off}"
ROUNDS=${1:-2}
SIZES=${2:-8,1k,64k,1m,4m}
CP="railyard-cli/target/lib/*"
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
OUT=${OUT:-bench/results/relay}
mkdir -p "$OUT"
TMPFS=$(mktemp -d /dev/shm/relay2-bench.XXXXXX)
DISK=$(mktemp -d /tmp/relay2-bench.XXXXXX)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMPFS" "$DISK"; }
trap cleanup EXIT INT TERM
start_relay() { # name, extra options; sets PORT (not in a subshell: pids must reach the trap)
    log="$OUT/relay-$1.log"
    shift
    "$JAVA" -Xmx1g -cp "$CP" org.railyard.relay.RelayCommand --port 0 --bind 127.0.0.1 --max-bytes 2g "$@" > "$log" 2>&1 &
    pids="$pids $!"
    i=0
    until grep -q "listening on" "$log"; do i=$((i+1)); [ $i -lt 600 ] || { echo "relay did not start: $log" >&2; exit 1; }; sleep 0.1; done
    PORT=$(sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)
}
start_relay off; P_OFF=$PORT
start_relay tmpfs --log "$TMPFS" --fsync batch; P_TMPFS=$PORT
start_relay disk --log "$DISK" --fsync batch; P_DISK=$PORT
echo "# relays: log off :$P_OFF, tmpfs :$P_TMPFS, disk (batch) :$P_DISK; rounds $ROUNDS; sizes $SIZES" | tee "$OUT/runs.tsv"
bench() { # label, bench options
    label=$1; shift
    "$JAVA" -cp "$CP" org.railyard.cli.Main bench --np 2 --sizes "$SIZES" "$@" | grep -v '^#' | grep -v '^benchmark' \
        | sed "s/^/$label\t/"
}
r=1
while [ "$r" -le "$ROUNDS" ]; do
    bench "round$r	tcp" --transports tcp >> "$OUT/runs.tsv"
    bench "round$r	relay-log-off" --transports relay --env RAILYARD_RELAYS=127.0.0.1:$P_OFF >> "$OUT/runs.tsv"
    bench "round$r	relay-log-tmpfs" --transports relay --env RAILYARD_RELAYS=127.0.0.1:$P_TMPFS >> "$OUT/runs.tsv"
    bench "round$r	relay-log-disk-batch" --transports relay --env RAILYARD_RELAYS=127.0.0.1:$P_DISK >> "$OUT/runs.tsv"
    r=$((r+1))
done
cat "$OUT/runs.tsv"
