#!/usr/bin/env bash
# The application, not a micro-benchmark: Railyard's main demo (org.railyard.apps.obstacle.ObstacleDemo,
# synchronous scheme) against its C twin on MPI (bench/peers/c/obstacle.c, the same solver, decomposition,
# halo exchange and convergence test, built -O3 -march=native), side by side on this machine.
#
# Every round runs, for each n and np, both programs one after the other, the order turning from round
# to round, so that a disturbance of the machine falls on both alike. Each run prints a RESULT line
# (iterations, residual, the slowest rank's solve time, the mean per rank of compute, halo wait, send
# wait and test); the script adds the job's wall time from the shell and checks that both stopped at
# the same iteration with the same residual. Then org.railyard.bench.AppCompare prints the tables:
# solve time, speed-up over each one's own np-1 run of the same round, their ratios (medians of the
# per-round ratios), time per iteration split into compute / halo / test, and issue 21's targets; and
# draws app-speedup.png and app-per-iteration.png.
#
# With --suite mpijava (or all) it runs mpiJava 1.2 programs instead (or as well), unchanged, on MPJ
# Express's multicore device (ranks as threads of one JVM) and on Railyard's mpi facade, in
# alternating rounds at np 2 and 4: bench/peers/mpijava/LuPivot.java (LU with partial pivoting, a
# pivot broadcast per step), and reports each one's kernel time (the program's own, between two
# barriers, by System.nanoTime: MPJ Express 0.44's MPI.Wtime counts whole seconds) and the median of
# the per-round ratios. With --threads, Railyard runs each mpiJava program a second way as well,
# its ranks as threads of one JVM (`railyard run --threads`, a class loader per rank, as MPJ Express's
# multicore device does), as a third column with its own ratio to MPJ Express.
#
# Usage: bench/compare-app.sh [--rounds R] [--np LIST] [--n LIST] [--mpi openmpi|mpich] [--out DIR]
#                             [--label TEXT] [--no-build] [--suite obstacle|mpijava|all]
#                             [--lu-n N] [--mpijava-np LIST] [--threads] [--async]
#        bench/compare-app.sh --tables-from DIR [--label TEXT]
#   --rounds R   alternating rounds (default 3)
#   --np LIST    comma-separated process counts (default 1,2,4,8; 1 is needed for the speed-ups)
#   --n LIST     comma-separated grid sizes (default 48,96)
#   --mpi M      the twin's MPI: openmpi (default; mpicc.openmpi, mpirun.openmpi over btl self,vader)
#                or mpich (mpicc.mpich, mpirun.mpich)
#   --out DIR    where the build, raw.tsv, the logs, tables.md and the plots go
#                (default bench/out/compare-app-<time>)
#   --label TEXT a line for the tables (e.g. the state of the machine)
#   --no-build   use railyard-cli/target/lib as it is (default: mvn -q -DskipTests package first,
#                which installs nothing)
#   --suite S    obstacle (default), mpijava, or all
#   --lu-n N     LuPivot's matrix order (default 1000)
#   --mpijava-np LIST  process counts of the mpiJava programs (default 2,4)
#   --threads    mpiJava suite: also run Railyard with its ranks as threads of one JVM (run --threads)
#   --async      obstacle suite: also run Railyard's asynchronous scheme (ObstacleDemo --scheme async) in
#                every cell, as a column of its own (railyard-async: its speed-up over its own np-1 run,
#                its solve time over the synchronous scheme's); its iterations differ by design, so it
#                is not in the agreement check
#   --tables-from DIR  runs nothing: the tables and plots again from DIR/raw.tsv
#
# A measurement's results file, bench/results/app-obstacle-<mpi>-n<N>-r<R>-<date>.md (the machine
# and the command, the tables, the raw rows), and its two plots beside it are written at the end
# (bench/results/app-mpijava-r<R>-<date>.md for the mpiJava suite).
#
# Needs a JDK 25 (bin/jdk.sh finds it), Maven unless --no-build, and the twin's MPI (Debian packages
# openmpi-bin and libopenmpi-dev, or mpich and libmpich-dev); the mpiJava suite needs what
# bench/compare.sh needs for MPJ Express (libmpj-java and its runtime, a javac). STEP_TIMEOUT (seconds, default 900)
# bounds each run.
set -euo pipefail
# Railyard's ahead-of-time cache stays off unless RAILYARD_AOT is set: with the launcher's default
# (auto) a program's second job trains the cache, and that job would fall into one round.
export RAILYARD_AOT="${RAILYARD_AOT:-off}"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROG=compare-app.sh
# shellcheck source=bench/compare.sh
source "$ROOT/bench/compare.sh" # its helpers only: fail, need_*, make_mpj_home, compile_on_facade, AWK_COMBINE

ROUNDS=3
NPS="1,2,4,8"
NS="48,96"
MPI=openmpi
OUT=""
LABEL=""
BUILD=1
FROM=""
SUITE=obstacle
LU_N=1000
MJ_NPS="2,4"
THREADS=""
ASYNC=""
STEP_TIMEOUT=${STEP_TIMEOUT:-900}

while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="${2:-}"; shift 2 ;;
    --np) NPS="${2:-}"; shift 2 ;;
    --n) NS="${2:-}"; shift 2 ;;
    --mpi) MPI="${2:-}"; shift 2 ;;
    --out) OUT="${2:-}"; shift 2 ;;
    --label) LABEL="${2:-}"; shift 2 ;;
    --no-build) BUILD=""; shift ;;
    --suite) SUITE="${2:-}"; shift 2 ;;
    --lu-n) LU_N="${2:-}"; shift 2 ;;
    --mpijava-np) MJ_NPS="${2:-}"; shift 2 ;;
    --threads) THREADS=1; shift ;;
    --async) ASYNC=1; shift ;;
    --tables-from) FROM="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,46p' "$0"; exit 0 ;;
    *) fail "unknown argument '$1' (try --help)" ;;
  esac
done
case "$ROUNDS" in ''|*[!0-9]*|0*) fail "--rounds needs a positive number, got '$ROUNDS'" ;; esac
case "$NPS" in ''|*[!0-9,]*|*,,*|,*|*,) fail "--np needs comma-separated process counts, e.g. 1,2,4, got '$NPS'" ;; esac
case ",$NPS," in *,0*) fail "--np: process counts start at 1, got '$NPS'" ;; esac
case "$NS" in ''|*[!0-9,]*|*,,*|,*|*,) fail "--n needs comma-separated grid sizes, e.g. 48,96, got '$NS'" ;; esac
case ",$NS," in *,0*) fail "--n: grid sizes start at 1, got '$NS'" ;; esac
case "$MPI" in openmpi|mpich) ;; *) fail "--mpi is openmpi or mpich, got '$MPI'" ;; esac
case "$SUITE" in obstacle|mpijava|all) ;; *) fail "--suite is obstacle, mpijava or all, got '$SUITE'" ;; esac
case "$LU_N" in ''|*[!0-9]*|0*) fail "--lu-n needs a positive number, got '$LU_N'" ;; esac
case "$MJ_NPS" in ''|*[!0-9,]*|*,,*|,*|*,) fail "--mpijava-np needs comma-separated process counts, got '$MJ_NPS'" ;; esac
case ",$MJ_NPS," in *,0*) fail "--mpijava-np: process counts start at 1, got '$MJ_NPS'" ;; esac
suite() { [ "$SUITE" = all ] || [ "$SUITE" = "$1" ]; }

# shellcheck source=bin/jdk.sh
source "$ROOT/bin/jdk.sh"
# shellcheck source=bench/ompi-env.sh
source "$ROOT/bench/ompi-env.sh"
ompi_munge_guard "$PROG"
JDK=$(find_jdk) || fail "no JDK 25 or newer: install one (apt-get install temurin-25-jdk or openjdk-25-jdk)"
LIB="$ROOT/railyard-cli/target/lib"

# tables DIR: AppCompare's tables (stdout and DIR/tables.md) and plots from DIR/raw.tsv
tables() {
  compgen -G "$LIB/railyard-bench-*.jar" > /dev/null || fail "$LIB has no railyard-bench jar: build with mvn -DskipTests package"
  "$JDK/bin/java" -cp "$LIB/*" org.railyard.bench.AppCompare "$1/raw.tsv" "$1" "$LABEL"
}

# mpijava_tables DIR: per program and np, the median kernel time of each and of the per-round ratios
mpijava_tables() {
  echo "## mpiJava programs, unchanged: Railyard's mpi facade against MPJ Express multicore"
  echo
  echo "Kernel time (the program's own, between barriers), median of the rounds; ratio: the median of the per-round ratios Railyard / MPJ Express."
  local threads=""
  if grep -q '^railyard-threads' "$1/mpijava.tsv"; then
    threads=1
    echo "Railyard threads: the same program under railyard run --threads (ranks as threads of one JVM); its ratio likewise."
  fi
  echo
  if [ -n "$threads" ]; then
    echo "| program | np | MPJ Express s | Railyard s | ratio | Railyard threads s | ratio | MPJ job s | Railyard job s | threads job s | rounds |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
  else
    echo "| program | np | MPJ Express s | Railyard s | ratio | MPJ job s | Railyard job s | rounds |"
    echo "|---|---|---|---|---|---|---|---|"
  fi
  awk -F'\t' -v threads="$threads" "$AWK_COMBINE"'
    { t[$1, $2, $3, $4] = $5; j[$1, $2, $3, $4] = $6; cell[$3 "\t" $4] = 1; round[$2] = 1 }
    END {
      for (c in cell) {
        split(c, k, "\t")
        for (r in round) {
          if (("mpj", r, k[1], k[2]) in t && ("railyard", r, k[1], k[2]) in t) {
            put(c "m", t["mpj", r, k[1], k[2]]); put(c "r", t["railyard", r, k[1], k[2]])
            put(c "mj", j["mpj", r, k[1], k[2]]); put(c "rj", j["railyard", r, k[1], k[2]])
            put(c "q", t["railyard", r, k[1], k[2]] / t["mpj", r, k[1], k[2]])
          }
          if (threads && ("mpj", r, k[1], k[2]) in t && ("railyard-threads", r, k[1], k[2]) in t) {
            put(c "t", t["railyard-threads", r, k[1], k[2]]); put(c "tj", j["railyard-threads", r, k[1], k[2]])
            put(c "tq", t["railyard-threads", r, k[1], k[2]] / t["mpj", r, k[1], k[2]])
          }
        }
        if (cnt[c "q"] > 0 && threads)
          printf "| %s | %s | %.3f | %.3f | %.2f | %s | %s | %.1f | %.1f | %s | %d |\n", k[1], k[2], combine(c "m"),
            combine(c "r"), combine(c "q"), (cnt[c "tq"] > 0) ? sprintf("%.3f", combine(c "t")) : "-",
            (cnt[c "tq"] > 0) ? sprintf("%.2f", combine(c "tq")) : "-", combine(c "mj"), combine(c "rj"),
            (cnt[c "tq"] > 0) ? sprintf("%.1f", combine(c "tj")) : "-", cnt[c "q"]
        else if (cnt[c "q"] > 0)
          printf "| %s | %s | %.3f | %.3f | %.2f | %.1f | %.1f | %d |\n", k[1], k[2], combine(c "m"), combine(c "r"),
            combine(c "q"), combine(c "mj"), combine(c "rj"), cnt[c "q"]
      }
    }' "$1/mpijava.tsv" | sort -t'|' -k2,2 -k3,3n
}

if [ -n "$FROM" ]; then
  [ -f "$FROM/raw.tsv" ] || [ -f "$FROM/mpijava.tsv" ] || fail "--tables-from: no raw.tsv or mpijava.tsv in $FROM"
  if [ -f "$FROM/raw.tsv" ]; then tables "$FROM"; fi
  if [ -f "$FROM/mpijava.tsv" ]; then mpijava_tables "$FROM"; fi
  exit 0
fi

# ---------------------------------------------------------------- prerequisites, before anything runs
MPICC=mpicc.$MPI
MPIRUN=mpirun.$MPI
if suite obstacle; then
command -v "$MPICC" > /dev/null || fail "no $MPICC: apt-get install $([ "$MPI" = openmpi ] && echo openmpi-bin libopenmpi-dev || echo mpich libmpich-dev)"
command -v "$MPIRUN" > /dev/null || fail "no $MPIRUN: apt-get install $([ "$MPI" = openmpi ] && echo openmpi-bin || echo mpich)"
fi
if suite mpijava; then need_mpj; fi
if [ -n "$BUILD" ]; then
  command -v mvn > /dev/null || fail "no mvn to build Railyard (apt-get install maven), or give --no-build"
  echo "$PROG: building Railyard (mvn -DskipTests package) ..." >&2
  (cd "$ROOT" && JAVA_HOME="$JDK" MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
      mvn -B -q -DskipTests package >&2) || fail "the build failed; run mvn -DskipTests package in $ROOT to see why"
fi
compgen -G "$LIB/railyard-apps-*.jar" > /dev/null || fail "$LIB has no railyard-apps jar: build with mvn -DskipTests package"

[ -n "$OUT" ] || OUT="$ROOT/bench/out/compare-app-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)

if suite obstacle; then
RAW="$OUT/raw.tsv"
: > "$RAW"
# The twin is built as its comment says; -ffp-contract=off keeps its arithmetic that of the Java
# solver (no fused multiply-add), which the agreement check below relies on.
"$MPICC" -O3 -march=native -ffp-contract=off -o "$OUT/obstacle" "$ROOT/bench/peers/c/obstacle.c" -lm

echo "$PROG: results in $OUT ($ROUNDS rounds; n $NS; np $NPS; twin on $MPI)" >&2
echo "$PROG: load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "java: $("$JDK/bin/java" -version 2>&1 | head -n 1)"
  echo "mpi: $("$MPIRUN" --version 2>&1 | head -n 1)"
  echo "command: bench/compare-app.sh --rounds $ROUNDS --np $NPS --n $NS --mpi $MPI${ASYNC:+ --async}"
} > "$OUT/machine.txt"

# run_one IMPL ROUND N NP: one run; appends its TSV row to raw.tsv
run_one() {
  local impl=$1 round=$2 n=$3 np=$4 log t0 t1 line
  log="$OUT/logs/$impl-r$round-n$n-np$np.txt"
  t0=$(date +%s.%N)
  if [ "$impl" = railyard ] || [ "$impl" = railyard-async ]; then
    local scheme=sync
    [ "$impl" = railyard-async ] && scheme=async
    timeout "$((STEP_TIMEOUT + 30))" "$JDK/bin/java" --enable-native-access=ALL-UNNAMED -cp "$LIB/*" org.railyard.cli.Main \
      run -np "$np" --timeout "${STEP_TIMEOUT}s" org.railyard.apps.obstacle.ObstacleDemo --n "$n" --quiet --no-check \
      --scheme "$scheme" > "$log" 2>&1 || fail "Railyard run failed ($impl, n $n, np $np, round $round): see $log"
  elif [ "$MPI" = openmpi ]; then
    timeout "$STEP_TIMEOUT" "$MPIRUN" --allow-run-as-root --oversubscribe --mca btl self,vader -np "$np" \
      "$OUT/obstacle" --n "$n" --quiet --no-check > "$log" 2>&1 || fail "C twin run failed (n $n, np $np, round $round): see $log"
  else
    timeout "$STEP_TIMEOUT" "$MPIRUN" -np "$np" "$OUT/obstacle" --n "$n" --quiet --no-check > "$log" 2>&1 \
      || fail "C twin run failed (n $n, np $np, round $round): see $log"
  fi
  t1=$(date +%s.%N)
  line=$(sed -n 's/^\(\[0\] \)\{0,1\}\(RESULT obstacle .*\)$/\2/p' "$log" | head -n 1)
  [ -n "$line" ] || fail "no RESULT line in $log"
  # key=value fields to the TSV columns AppCompare reads
  # the asynchronous scheme times no halo or test phase of its own: NaN there
  awk -v round="$round" -v job="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" '
    function f(k) { return (k in v) ? v[k] : "NaN" }
    {
      for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      printf "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v["impl"] (v["scheme"] == "async" ? "-async" : ""), round, v["n"], v["np"], v["iterations"],
        v["residual"], v["solve_s"], v["compute_s"], f("halo_wait_s"), f("send_wait_s"), f("test_s"), job
    }' <<< "$line" >> "$RAW"
  tail -n 1 "$RAW" | awk -F'\t' '{ printf "  %-10s round %d n %d np %d: %d iterations, solve %.3f s, job %.1f s\n", $1, $2, $3, $4, $5, $7, $12 }' >&2
}

# The twin's name in the TSV, for the agreement check: what its RESULT line says
TWIN=""
for round in $(seq 1 "$ROUNDS"); do
  for n in ${NS//,/ }; do
    for np in ${NPS//,/ }; do
      if [ -n "$ASYNC" ]; then
        case $((round % 3)) in 1) order="c railyard railyard-async" ;; 2) order="railyard railyard-async c" ;;
          *) order="railyard-async c railyard" ;; esac
      elif [ $((round % 2)) -eq 1 ]; then order="c railyard"; else order="railyard c"; fi
      for impl in $order; do run_one "$impl" "$round" "$n" "$np"; done
      # this cell's synchronous rows: same iterations and the same residual, or the comparison is void
      sync_rows() { tail -n "$(wc -w <<< "$order")" "$RAW" | awk -F'\t' '$1 != "railyard-async"'; }
      TWIN=$(sync_rows | awk -F'\t' '$1 != "railyard" { print $1 }')
      sync_rows | awk -F'\t' -v raw="$RAW" '
        NR == 1 { it = $5; res = $6 + 0 }
        NR == 2 && ($5 != it || $6 + 0 != res) { printf "%s: the two programs disagree (iterations %s vs %s, residual %s vs %s)\n", raw, it, $5, res, $6; exit 1 }' \
        >&2 || fail "stopped: the C twin and Railyard did not do the same computation (n $n, np $np)"
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
echo "$PROG: twin $TWIN; tables and plots:" >&2
tables "$OUT"

# The results file: the machine, the tables and the raw rows, with the plots beside it
BASE="$ROOT/bench/results/app-obstacle-$MPI-n${NS//,/-}-r$ROUNDS-$(date +%Y-%m-%d)"
[ ! -e "$BASE.md" ] || BASE="$BASE-$(date +%H%M)"
{
  echo "# bench/compare-app.sh: the obstacle solver on Railyard and its C twin"
  echo
  sed 's/^/    /' "$OUT/machine.txt"
  echo
  cat "$OUT/tables.md"
  echo
  echo "Plots: $(basename "$BASE")-speedup.png, $(basename "$BASE")-per-iteration.png"
  echo
  echo "Raw rows (impl round n np iterations residual solve_s compute_s halo_wait_s send_wait_s test_s job_s):"
  echo
  sed 's/^/    /' "$RAW"
} > "$BASE.md"
cp "$OUT/app-speedup.png" "$BASE-speedup.png"
cp "$OUT/app-per-iteration.png" "$BASE-per-iteration.png"
echo "$PROG: wrote $BASE.md and its plots" >&2
fi

# ---------------------------------------------------------------- the mpiJava programs
if suite mpijava; then
  MJ="$OUT/mpijava.tsv"
  : > "$MJ"
  MPJ_HOME_DIR="$OUT/mpj-home"
  make_mpj_home "$MPJ_HOME_DIR"
  mkdir -p "$OUT/mpj-classes"
  javac -nowarn -cp /usr/share/mpj/lib/mpj.jar -d "$OUT/mpj-classes" "$ROOT/bench/peers/mpijava/LuPivot.java"
  compile_on_facade "$OUT/ry-classes" "$ROOT/bench/peers/mpijava/LuPivot.java"
  # mj_one IMPL ROUND PROGRAM NP ARGS...: one run; appends "impl round program np kernel_s job_s"
  mj_one() {
    local impl=$1 round=$2 prog=$3 np=$4 log t0 t1 secs
    shift 4
    log="$OUT/logs/$impl-r$round-$prog-np$np.txt"
    t0=$(date +%s.%N)
    if [ "$impl" = mpj ]; then
      (cd "$OUT/mpj-classes" && MPJ_HOME="$MPJ_HOME_DIR" timeout "$STEP_TIMEOUT" java -jar "$MPJ_HOME_DIR/lib/starter.jar" \
        -np "$np" -dev multicore -cp "$OUT/mpj-classes" "$prog" "$@") > "$log" 2>&1 \
        || fail "MPJ Express run failed ($prog, np $np, round $round): see $log"
    else
      local mode=()
      [ "$impl" = railyard-threads ] && mode=(--threads)
      timeout "$((STEP_TIMEOUT + 30))" "$JDK/bin/java" --enable-native-access=ALL-UNNAMED -cp "$LIB/*" org.railyard.cli.Main \
        run "${mode[@]}" -np "$np" --timeout "${STEP_TIMEOUT}s" -cp "$OUT/ry-classes" "$prog" "$@" > "$log" 2>&1 \
        || fail "Railyard run failed ($impl, $prog, np $np, round $round): see $log"
    fi
    t1=$(date +%s.%N)
    grep -q "(checked)" "$log" || fail "$prog did not check its answer ($impl, np $np, round $round): see $log"
    secs=$(sed -n 's/.* in \([0-9.]*\) s.*/\1/p' "$log" | head -n 1)
    [ -n "$secs" ] || fail "no kernel time in $log"
    printf '%s\t%d\t%s\t%d\t%s\t%s\n' "$impl" "$round" "$prog" "$np" "$secs" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" >> "$MJ"
    echo "  $impl round $round $prog np $np: kernel $secs s" >&2
  }
  for round in $(seq 1 "$ROUNDS"); do
    for np in ${MJ_NPS//,/ }; do
      if [ $((round % 2)) -eq 1 ]; then order="mpj railyard${THREADS:+ railyard-threads}"
      else order="${THREADS:+railyard-threads }railyard mpj"; fi
      for impl in $order; do mj_one "$impl" "$round" LuPivot "$np" "$LU_N"; done
    done
  done
  mpijava_tables "$OUT" | tee "$OUT/mpijava.md"
  MBASE="$ROOT/bench/results/app-mpijava-r$ROUNDS-$(date +%Y-%m-%d)"
  [ ! -e "$MBASE.md" ] || MBASE="$MBASE-$(date +%H%M)"
  {
    echo "# bench/compare-app.sh --suite mpijava"
    echo
    echo "    date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), load after: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
    echo "    commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "    command: bench/compare-app.sh --suite mpijava --rounds $ROUNDS --mpijava-np $MJ_NPS --lu-n $LU_N${THREADS:+ --threads}"
    if [ -n "$LABEL" ]; then echo; echo "$LABEL"; fi
    echo
    cat "$OUT/mpijava.md"
    echo
    echo "Raw rows (impl round program np kernel_s job_s):"
    echo
    sed 's/^/    /' "$MJ"
  } > "$MBASE.md"
  echo "$PROG: wrote $MBASE.md" >&2
fi
