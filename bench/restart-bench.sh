#!/bin/sh
# Recovery of a rank SIGKILLed and started again (railyard run --relays 1 --restart 1): the obstacle
# demo on 4 local ranks with no failure and with rank 2 killing itself after AFTER iterations, in
# alternating rounds (the machine may be shared: each round runs both, in the same order).
# Per run: the job's wall time, the solve time the demo reports, and for the killed run the time
# from the SIGKILL to the rank started again being past the iteration it died at (its replay done,
# computing again), from the two wall-clock lines the demo prints.
# With EVERY above 0, each round also runs a third case, "ckpt": the same kill with
# --checkpoint-every EVERY, where the rank started again goes on from its last checkpoint instead of
# from the start (Railyard.checkpoint); its recovery ends at the same line.
# Usage: bench/restart-bench.sh [ROUNDS] [N] [AFTER] [EVERY]     (after mvn -DskipTests package)
set -eu
ROUNDS=${1:-3}
N=${2:-32}
AFTER=${3:-100}
EVERY=${4:-0}
CP="railyard-cli/target/lib/*"
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
OUT=${OUT:-bench/results/restart}
mkdir -p "$OUT"
LOG=$(mktemp /tmp/restart-bench.XXXXXX)
trap 'rm -f "$LOG"' EXIT INT TERM
printf '# np 4, n %s, check every 5, kill rank 2 after %s iterations; checkpoint every %s (0: none); rounds %s\n' \
    "$N" "$AFTER" "$EVERY" "$ROUNDS" | tee "$OUT/runs.tsv"
printf 'round\tcase\tjob_s\tsolve_s\titerations\trecovery_ms\n' | tee -a "$OUT/runs.tsv"
one() { # round, case, extra demo options
    round=$1; case=$2; shift 2
    start=$(date +%s%N)
    "$JAVA" -cp "$CP" org.railyard.cli.Main run -np 4 --relays 1 --restart 1 --timeout 600s \
        org.railyard.apps.obstacle.ObstacleDemo --n "$N" --check-every 5 --quiet "$@" > "$LOG" 2>&1 \
        || { echo "run failed:" >&2; cat "$LOG" >&2; exit 1; }
    end=$(date +%s%N)
    grep -q 'OK: parallel solution agrees' "$LOG" || { echo "no agreement:" >&2; cat "$LOG" >&2; exit 1; }
    solve=$(sed -n 's/.*RESULT obstacle .* solve_s=\([0-9.]*\).*/\1/p' "$LOG")
    iters=$(sed -n 's/.*RESULT obstacle .* iterations=\([0-9]*\).*/\1/p' "$LOG")
    killed=$(sed -n 's/.*kills itself .* at \([0-9]*\) ms.*/\1/p' "$LOG")
    back=$(sed -n 's/.*back past iteration .* at \([0-9]*\) ms.*/\1/p' "$LOG")
    rec=-
    if [ -n "$killed" ] && [ -n "$back" ]; then rec=$((back - killed)); fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$case" "$(echo "$start $end" | awk '{printf "%.3f", ($2-$1)/1e9}')" \
        "$solve" "$iters" "$rec" | tee -a "$OUT/runs.tsv"
}
r=1
while [ "$r" -le "$ROUNDS" ]; do
    one "$r" none
    one "$r" kill --kill "2:$AFTER"
    if [ "$EVERY" -gt 0 ]; then
        one "$r" ckpt --kill "2:$AFTER" --checkpoint-every "$EVERY"
    fi
    r=$((r+1))
done
