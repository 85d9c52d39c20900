#!/usr/bin/env bash
# Two builds of Railyard side by side, paired: is the new one as fast as the old?
#
# Usage: bench/compare-builds.sh [--rounds R] [--iters N] [--only LIST] [--out DIR] OLD_LIBDIR NEW_LIBDIR
#   OLD_LIBDIR, NEW_LIBDIR  directories of jars, each a copy of railyard-cli/target/lib of one build
#                           (`mvn -B -DskipTests package`, then `cp -r railyard-cli/target/lib /tmp/old-lib`)
#   --rounds R   rounds (default 7); every round runs every measure once with each build
#   --iters N    round trips of the latency tests (default: the benchmark's own)
#   --only LIST  comma-separated subset of the measures (default all):
#                  lat-shm     `railyard bench latency` 8 B over shm, p50 (us)
#                  lat-tcp     the same over tcp
#                  bw-shm      `railyard bench bw` 1 MiB over shm (MB/s)
#                  bw-tcp      the same over tcp
#                  allreduce   `railyard bench allreduce --np 4` 8 B, p50 (us)
#                  obstacle    wall time of `railyard run -np 2 ObstacleDemo --n 48 --quiet --no-check` (s)
#   --out DIR    where the raw rows and the logs go (default bench/out/compare-builds-<time>)
#
# Method: within a round each measure runs with both builds back to back, the old one first in odd
# rounds and the new one first in even rounds, so that a disturbance of the machine falls on both
# alike; the ratio NEW/OLD of that pair is the round's figure. The table gives, per measure, the
# median over rounds of each build's value and the median of the per-round ratios, with the
# direction that is better (latency and time: below 1; bandwidth: above 1), and the spread of the
# ratios (lowest and highest) as a hint of the noise. Run it on a quiet machine: with other work on
# the cores, the spread says how far to trust the medians.
#
# Needs a JDK 25 (bin/jdk.sh finds it) and nothing else; it installs and builds nothing.
# STEP_TIMEOUT (seconds, default 600) bounds each run.
set -euo pipefail
# Railyard's ahead-of-time cache stays off unless RAILYARD_AOT is set: with the launcher's default
# (auto) a program's second job trains the cache, and that job would fall into one round.
export RAILYARD_AOT="${RAILYARD_AOT:-off}"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROG=compare-builds.sh
fail() { echo "$PROG: $*" >&2; exit 1; }

ROUNDS=7
ITERS=""
ONLY="lat-shm,lat-tcp,bw-shm,bw-tcp,allreduce,obstacle"
OUT=""
STEP_TIMEOUT=${STEP_TIMEOUT:-600}
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="${2:-}"; shift 2 ;;
    --iters) ITERS="${2:-}"; shift 2 ;;
    --only) ONLY="${2:-}"; shift 2 ;;
    --out) OUT="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "$PROG: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
[ "${#ARGS[@]}" -eq 2 ] || { echo "$PROG: needs OLD_LIBDIR and NEW_LIBDIR (try --help)" >&2; exit 2; }
case "$ROUNDS" in ''|*[!0-9]*|0) echo "$PROG: --rounds needs a positive number, got '$ROUNDS'" >&2; exit 2 ;; esac
case "$ITERS" in '') ;; *[!0-9]*|0*) echo "$PROG: --iters needs a positive number, got '$ITERS'" >&2; exit 2 ;; esac
ALL_MEASURES="lat-shm lat-tcp bw-shm bw-tcp allreduce obstacle"
MEASURES=()
IFS=, read -r -a wanted <<< "$ONLY"
for m in "${wanted[@]}"; do
  case " $ALL_MEASURES " in *" $m "*) MEASURES+=("$m") ;; *) echo "$PROG: unknown measure '$m' in --only (one of: $ALL_MEASURES)" >&2; exit 2 ;; esac
done
[ "${#MEASURES[@]}" -gt 0 ] || { echo "$PROG: --only names no measure" >&2; exit 2; }

libdir() {
  local d
  [ -d "$1" ] || fail "$1 is not a directory (give a copy of railyard-cli/target/lib of a build)"
  d=$(cd "$1" && pwd)
  compgen -G "$d/railyard-cli-*.jar" > /dev/null || fail "$d has no railyard-cli-*.jar: not a railyard-cli/target/lib of a build"
  echo "$d"
}
OLD=$(libdir "${ARGS[0]}")
NEW=$(libdir "${ARGS[1]}")

# shellcheck source=bin/jdk.sh
source "$ROOT/bin/jdk.sh"
JDK=$(find_jdk) || fail "no JDK 25 or newer: install one (apt-get install temurin-25-jdk or openjdk-25-jdk) or set JAVA_HOME"

[ -n "$OUT" ] || OUT="$ROOT/bench/out/compare-builds-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
RAW="$OUT/raw.tsv"
printf 'round\tmeasure\tbuild\tvalue\tunit\n' > "$RAW"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "old: $OLD"
  echo "new: $NEW"
  echo "rounds: $ROUNDS, measures: ${MEASURES[*]}"
  echo "host: $(uname -n), $(nproc) processors, load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "jdk: $("$JDK/bin/java" -version 2>&1 | head -n 1)"
} > "$OUT/machine.txt"
echo "$PROG: results in $OUT" >&2

cli() { # LIB ARGS...: the Railyard command line of one build
  local lib=$1
  shift
  timeout "$((STEP_TIMEOUT + 30))" "$JDK/bin/java" --enable-native-access=ALL-UNNAMED -cp "$lib/*" org.railyard.cli.Main "$@"
}

# bench_value LIB LOG COLUMN BENCH ARGS...: one `railyard bench` run; prints COLUMN (1-based) of its
# first result row (TSV: benchmark, transport, np, bytes, iterations, mean_us, p50_us, p99_us, max_us, MB_s)
bench_value() {
  local lib=$1 log=$2 col=$3 v
  shift 3
  cli "$lib" bench "$@" --timeout "${STEP_TIMEOUT}s" > "$log" 2>&1 || fail "run failed: railyard bench $* (see $log)"
  v=$(sed 's/^\[[0-9]*\] //' "$log" | awk -F'\t' -v c="$col" 'NF >= 10 && $4 ~ /^[0-9]+$/ { print $c; exit }')
  [ -n "$v" ] || fail "no result row in $log"
  echo "$v"
}

iters_arg() { if [ -n "$ITERS" ]; then echo "--iters $ITERS"; fi; }

# measure NAME LIB LOG: prints "value unit"
measure() {
  local name=$1 lib=$2 log=$3 t0 t1
  case "$name" in
    lat-shm) echo "$(bench_value "$lib" "$log" 7 latency --np 2 --transports shm --sizes 8 $(iters_arg)) us" ;;
    lat-tcp) echo "$(bench_value "$lib" "$log" 7 latency --np 2 --transports tcp --sizes 8 $(iters_arg)) us" ;;
    bw-shm) echo "$(bench_value "$lib" "$log" 10 bw --np 2 --transports shm --sizes 1m) MB/s" ;;
    bw-tcp) echo "$(bench_value "$lib" "$log" 10 bw --np 2 --transports tcp --sizes 1m) MB/s" ;;
    allreduce) echo "$(bench_value "$lib" "$log" 7 allreduce --np 4 --sizes 8) us" ;;
    obstacle)
      t0=$(date +%s.%N)
      cli "$lib" run -np 2 --timeout "${STEP_TIMEOUT}s" org.railyard.apps.obstacle.ObstacleDemo --n 48 --quiet --no-check \
        > "$log" 2>&1 || fail "run failed: ObstacleDemo (see $log)"
      t1=$(date +%s.%N)
      grep -q "RESULT obstacle" "$log" || fail "no RESULT line in $log"
      echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s" ;;
  esac
}

for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for m in "${MEASURES[@]}"; do
    for b in $order; do
      if [ "$b" = old ]; then lib=$OLD; else lib=$NEW; fi
      read -r value unit <<< "$(measure "$m" "$lib" "$OUT/logs/$m-$b-r$r.txt")"
      printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$m" "$b" "$value" "$unit" >> "$RAW"
      echo "$PROG: round $r/$ROUNDS $m $b: $value $unit" >&2
    done
  done
done

# the table: per measure, medians of each build, the median of the per-round ratios NEW/OLD, their spread
awk -F'\t' -v order="${MEASURES[*]}" '
function median(arr, n,   i, j, t, a) {
  for (i = 1; i <= n; i++) a[i] = arr[i]
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
NR > 1 { v[$2, $3, $1] = $4; unit[$2] = $5; if ($1 > rounds) rounds = $1 }
END {
  printf "%-10s %-6s %12s %12s %10s %8s %8s  %s\n", "measure", "unit", "old", "new", "new/old", "lowest", "highest", "better"
  n = split(order, ms, " ")
  for (k = 1; k <= n; k++) {
    m = ms[k]; c = 0
    for (r = 1; r <= rounds; r++) {
      if ((m, "old", r) in v && (m, "new", r) in v && v[m, "old", r] > 0) {
        c++; o[c] = v[m, "old", r]; w[c] = v[m, "new", r]; q[c] = v[m, "new", r] / v[m, "old", r]
      }
    }
    if (c == 0) continue
    lo = q[1]; hi = q[1]
    for (i = 2; i <= c; i++) { if (q[i] < lo) lo = q[i]; if (q[i] > hi) hi = q[i] }
    better = (unit[m] == "MB/s") ? "above 1" : "below 1"
    printf "%-10s %-6s %12.3f %12.3f %10.3f %8.3f %8.3f  %s\n", m, unit[m], median(o, c), median(w, c), median(q, c), lo, hi, better
  }
}' "$RAW" | tee "$OUT/table.txt"
echo "$PROG: raw rows in $RAW, the table in $OUT/table.txt, the machine in $OUT/machine.txt" >&2
