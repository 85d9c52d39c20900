#!/bin/sh
# Two builds of Railyard (two worktrees, each after mvn -DskipTests package) against each other
# through one relay each, 2 local ranks: per round, for each build in turn, direct tcp, the relay
# with its log off and the relay with its log on tmpfs (batch fsync); rounds alternate the builds
# so that a machine shared with other work loads both alike. Each build runs its own relay.
# Usage: [ITERS=N] bench/relay-compare.sh OLD_DIR NEW_DIR [ROUNDS] [SIZES] [BENCHMARKS]
# Rows: round, build, configuration, then railyard bench's columns (bench/results/relay/compare-*.tsv).
set -eu
# Railyard's ahead-of-time cache stays off unless RAILYARD_AOT is set: with the launcher's default
# (auto) a program's second job trains the cache, and that job would fall into one round.
export RAILYARD_AOT="${RAILYARD_AOT:-off}"
OLD=$1
NEW=$2
ROUNDS=${3:-3}
SIZES=${4:-8,64k,1m,4m}
WHAT=${5:-latency,bw}
ITERS=${ITERS:+--iters $ITERS}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
OUT=${OUT:-bench/results/relay/compare-$(date -u +%Y-%m-%d-%H%M).tsv}
mkdir -p "$(dirname "$OUT")"
TMPFS=$(mktemp -d /dev/shm/relay-compare.XXXXXX)
LOGS=$(mktemp -d /tmp/relay-compare.XXXXXX)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMPFS" "$LOGS"; }
trap cleanup EXIT INT TERM
start_relay() { # build dir, name, extra options; sets PORT (not in a subshell: pids must reach the trap)
    dir=$1; log="$LOGS/relay-$2.log"; shift 2
    "$JAVA" -Xmx1g -cp "$dir/railyard-cli/target/lib/*" org.railyard.relay.RelayCommand --port 0 --bind 127.0.0.1 \
        --max-bytes 2g "$@" > "$log" 2>&1 &
    pids="$pids $!"
    i=0
    until grep -q "listening on" "$log"; do i=$((i+1)); [ $i -lt 600 ] || { echo "relay did not start: $log" >&2; exit 1; }; sleep 0.1; done
    PORT=$(sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)
}
mkdir -p "$TMPFS/old" "$TMPFS/new"
start_relay "$OLD" old-off; OLD_OFF=$PORT
start_relay "$OLD" old-tmpfs --log "$TMPFS/old" --fsync batch; OLD_TMPFS=$PORT
start_relay "$NEW" new-off; NEW_OFF=$PORT
start_relay "$NEW" new-tmpfs --log "$TMPFS/new" --fsync batch; NEW_TMPFS=$PORT
echo "# old $OLD ($(git -C "$OLD" rev-parse --short HEAD)), new $NEW ($(git -C "$NEW" rev-parse --short HEAD)); rounds $ROUNDS; sizes $SIZES; $WHAT; ${ITERS:-default iterations}; $(nproc) cores" | tee "$OUT"
bench() { # build dir, label, bench options
    dir=$1; label=$2; shift 2
    "$JAVA" -cp "$dir/railyard-cli/target/lib/*" org.railyard.cli.Main bench "$WHAT" --np 2 --sizes "$SIZES" $ITERS "$@" \
        | grep -v '^#' | grep -v '^benchmark' | sed "s/^/$label\t/"
}
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for b in old new; do
        if [ $b = old ]; then dir=$OLD; off=$OLD_OFF; tmpfs=$OLD_TMPFS; else dir=$NEW; off=$NEW_OFF; tmpfs=$NEW_TMPFS; fi
        load=$(cut -d' ' -f1 /proc/loadavg)
        bench "$dir" "round$r	$b	tcp	load $load" --transports tcp >> "$OUT"
        bench "$dir" "round$r	$b	relay-log-off	load $load" --transports relay --env RAILYARD_RELAYS=127.0.0.1:$off >> "$OUT"
        bench "$dir" "round$r	$b	relay-log-tmpfs	load $load" --transports relay --env RAILYARD_RELAYS=127.0.0.1:$tmpfs >> "$OUT"
    done
    r=$((r+1))
done
cat "$OUT"
