#!/usr/bin/env bash
# Railyard's collectives against native and Java MPI on this machine, with one method (that of
# org.railyard.bench.CollectiveBenchRank, bench/README.md): Open MPI C over shared memory (btl vader,
# bench/peers/c/ry_coll.c), MPJ Express 0.44 (multicore device, bench/peers/mpijava/RyCollPeer.java),
# Railyard (CollectiveBenchRank over shm), Railyard with off-heap buffers (the same with --buffers
# offheap: MemorySegments instead of arrays) and Railyard's mpiJava facade (RyCollPeer, unchanged, over
# shm). Prints one markdown table per collective (mean microseconds per call by size, for each np and
# implementation, and the ratios of Railyard to Open MPI and to MPJ Express), then issue 3's targets.
#
# Usage: bench/compare-coll.sh [--repeat N] [--stat median|best] [--only LIST] [--np LIST] [--sizes SPEC]
#                              [--iters N] [--colls LIST] [--out DIR] [--calm US] [--touch] [--paired]
#        bench/compare-coll.sh --tables-from DIR [--stat median|best] [--calm US]
#   --repeat N    run every measurement N times (default 3)
#   --stat S      how the runs combine: median (default), or best (the lowest mean: the machine's
#                 capability when other processes disturb some runs)
#   --only LIST   comma-separated subset of: ompi-vader,mpj-multicore,railyard-shm,railyard-shm-offheap,
#                 railyard-mpijava
#   --np LIST     comma-separated process counts (default 2,4,8)
#   --sizes SPEC  message sizes as the programs take them (default 1:1m)
#   --iters N     timed calls up to 8 KiB (default 1000; a fifth of it to 64 KiB, a twentieth beyond).
#                 For sizes from 64 KiB give 20000 (1000 calls a size): the default's 50 calls last
#                 milliseconds, and its cells moved up to 2x between runs on the 2-core machine
#   --colls LIST  comma-separated collectives: allreduce,bcast,alltoall,allgather,barrier or all (default)
#   --out DIR     where builds, raw TSV and the tables go (default bench/out/compare-coll-<time>)
#   --calm US     tables from the runs only that the machine probe (below) timed at US or less both
#                 before and after; a cell with no such run shows -
#   --touch       every program writes one byte (one double for allreduce) in every 64 bytes of what
#                 a call sends before each call, untimed, as a program that computes its data between
#                 calls does; without it, a reader may find the lines of a send buffer that never
#                 changes still in its cache from the call before. The tables' title says so
#   --paired      keep one job of every implementation alive at each np (the programs' --serve) and
#                 measure cell by cell: each round, a collective at a size is measured by every
#                 implementation in turn, seconds apart, the order turning from cell to cell, so that
#                 they meet the machine in the same state. Round 0 (not kept) warms every cell up.
#                 The ratio columns and the targets are then the median of the per-round ratios (with
#                 --stat best, the ratio of the two implementations' fastest rounds, which favours
#                 neither side), and the probe is read before each cell's round from 64 KiB
#   --tables-from DIR  runs nothing: the tables again from DIR's raw.tsv and machine.tsv, into
#                 DIR/tables-<stat>[-calm<US>].md
#
# Needs what bench/compare.sh needs for the same implementations (Debian packages openmpi-bin and
# libopenmpi-dev; libmpj-java, liblog4j1.2-java, libcommons-cli-java, libcommons-codec-java,
# libcommons-io-java and a javac; a JDK 25 and a built Railyard for bin/railyard). STEP_TIMEOUT
# (seconds, default 1800) bounds each run of one implementation at one np. RAILYARD_LIB, a directory
# of jars (a copy of railyard-cli/target/lib of a build), runs that build's command line instead of
# bin/railyard, which then neither builds nor installs anything (to measure two builds one after the
# other, or a checkout that must not touch ~/.m2).
#
# Before and after each run, bench/probes/xcore_copy.c (built with cc when there is one) times for a
# second how long two threads on processors 0 and 1 take to pass 384 KiB back and forth. On a
# virtual machine that time can change severalfold from one minute to the next, and large
# collectives follow it; the tables end with it, one line a run, so that a cell can be read
# against the state the machine was in.
set -euo pipefail
# Railyard's ahead-of-time cache stays off unless RAILYARD_AOT is set: with the launcher's default
# (auto) a program's second job trains the cache, and that job would fall into one round.
export RAILYARD_AOT="${RAILYARD_AOT:-off}"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROG=compare-coll.sh
# shellcheck source=bench/compare.sh
source "$ROOT/bench/compare.sh" # its helpers only: need_*, make_mpj_home, compile_on_facade, tsv_only, AWK_COMBINE

REPEAT=3
STAT=median
ONLY="ompi-vader,mpj-multicore,railyard-shm,railyard-shm-offheap,railyard-mpijava"
NPS="2,4,8"
SIZES="1:1m"
ITERS=""
COLLS="all"
OUT=""
CALM=""
FROM=""
TOUCH=""
PAIRED=""
STEP_TIMEOUT=${STEP_TIMEOUT:-1800}

while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) REPEAT="$2"; shift 2 ;;
    --stat) STAT="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --np) NPS="$2"; shift 2 ;;
    --sizes) SIZES="$2"; shift 2 ;;
    --iters) ITERS="$2"; shift 2 ;;
    --colls) COLLS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --calm) CALM="$2"; shift 2 ;;
    --touch) TOUCH=1; shift ;;
    --paired) PAIRED=1; shift ;;
    --tables-from) FROM="$2"; shift 2 ;;
    -h|--help) sed -n '2,49p' "$0"; exit 0 ;;
    *) fail "unknown argument '$1' (try --help)" ;;
  esac
done
case "$REPEAT" in ''|*[!0-9]*|0) fail "--repeat needs a positive number" ;; esac
case "$ITERS" in *[!0-9]*|0*) fail "--iters needs a positive number" ;; esac
case "$STAT" in median|best) ;; *) fail "--stat is median or best" ;; esac
case "$CALM" in *[!0-9.]*|.|*.*.*) fail "--calm needs a time in microseconds, e.g. 40" ;; esac
if [ -n "$FROM" ]; then
  [ -f "$FROM/raw.tsv" ] || fail "--tables-from: no raw.tsv in $FROM"
  [ -z "$CALM" ] || [ -f "$FROM/machine.tsv" ] || fail "--calm: no machine.tsv in $FROM (runs before the probe existed)"
  # what the runs measured, not what the options say
  ONLY=$(awk -F'\t' '{ print $1 }' "$FROM/raw.tsv" | sort -u | paste -sd, -)
  NPS=$(awk -F'\t' '{ print $5 }' "$FROM/raw.tsv" | sort -nu | paste -sd, -)
  REPEAT=$(awk -F'\t' '$2 > n { n = $2 } END { print n + 0 }' "$FROM/raw.tsv")
  if [ -f "$FROM/touched" ]; then TOUCH=1; fi
  if [ -f "$FROM/paired" ]; then PAIRED=1; fi
  OUT="$FROM"
fi
case "$NPS" in ''|*[!0-9,]*|*,,*|,*|*,) fail "--np needs comma-separated process counts, e.g. 2,4,8" ;; esac
case ",$NPS," in *,0,*|*,0[0-9]*) fail "--np: process counts start at 1" ;; esac
if [ -n "$PAIRED" ] && [ -n "$CALM" ]; then
  fail "--calm selects whole runs by the machine's state; a --paired run has none to select (its implementations met the same state cell by cell)"
fi
IMPLS=()
for impl in ompi-vader mpj-multicore railyard-shm railyard-shm-offheap railyard-mpijava; do
  case ",$ONLY," in *",$impl,"*) IMPLS+=("$impl") ;; esac
done
for impl in ${ONLY//,/ }; do
  case " ${IMPLS[*]} " in *" $impl "*) ;; *) fail "--only: unknown implementation '$impl'" ;; esac
done
[ ${#IMPLS[@]} -gt 0 ] || fail "--only names no implementation"
want() { case " ${IMPLS[*]} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
[ -n "$OUT" ] || OUT="$ROOT/bench/out/compare-coll-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT/raw"
OUT=$(cd "$OUT" && pwd)
RAW="$OUT/raw.tsv"
MACHINE="$OUT/machine.tsv"
TABLES="$OUT/tables.md"

if [ -z "$FROM" ]; then
# ---------------------------------------------------------------- prerequisites, before anything runs
if want ompi-vader; then need_openmpi; fi
if want mpj-multicore; then need_mpj; fi
if want railyard-shm || want railyard-shm-offheap || want railyard-mpijava; then
  if [ -n "${RAILYARD_LIB:-}" ]; then
    compgen -G "$RAILYARD_LIB/railyard-cli-*.jar" > /dev/null || fail "RAILYARD_LIB=$RAILYARD_LIB has no railyard-cli-*.jar"
  else
    need_railyard
  fi
fi

echo "$PROG: results in $OUT ($STAT of $REPEAT runs; np $NPS; sizes $SIZES)" >&2

# ---------------------------------------------------------------- build the peers
if want ompi-vader; then
  mpicc.openmpi -O2 -o "$OUT/ry_coll" "$ROOT/bench/peers/c/ry_coll.c"
fi
MPJ_HOME_DIR="$OUT/mpj-home"
if want mpj-multicore; then
  mkdir -p "$OUT/mpj-classes"
  javac -nowarn -cp /usr/share/mpj/lib/mpj.jar -d "$OUT/mpj-classes" "$ROOT/bench/peers/mpijava/RyCollPeer.java"
  make_mpj_home "$MPJ_HOME_DIR"
fi
# RY: Railyard's command line, of RAILYARD_LIB's build or of bin/railyard
if [ -n "${RAILYARD_LIB:-}" ]; then
  # shellcheck source=bin/jdk.sh
  source "$ROOT/bin/jdk.sh"
  RY_JDK=$(find_jdk) || fail "no JDK 25 or newer: install one or set JAVA_HOME"
  RY=("$RY_JDK/bin/java" --enable-native-access=ALL-UNNAMED -cp "$RAILYARD_LIB/*" org.railyard.cli.Main)
else
  RY=("$ROOT/bin/railyard")
  if want railyard-shm || want railyard-shm-offheap || want railyard-mpijava; then build_railyard; fi
fi
if want railyard-mpijava; then compile_on_facade "$OUT/ry-classes" "$ROOT/bench/peers/mpijava/RyCollPeer.java"; fi
PROBE=""
if [ "$(nproc)" -ge 2 ] && command -v cc >/dev/null && cc -O2 -pthread -o "$OUT/xcore_copy" "$ROOT/bench/probes/xcore_copy.c"; then
  PROBE="$OUT/xcore_copy"
else
  echo "$PROG: no cross-core copy probe (needs cc and 2 processors); the tables will not say the machine's state" >&2
fi
# probe: the probe's mean time of a turn, us, or - without it
probe() { if [ -n "$PROBE" ]; then "$PROBE" 1 | awk '{ print $1 }'; else echo -; fi; }

# ---------------------------------------------------------------- runners (each prints TSV on stdout)
ARGS=("$COLLS" --sizes "$SIZES")
if [ -n "$ITERS" ]; then ARGS+=(--iters "$ITERS"); fi
if [ -n "$TOUCH" ]; then ARGS+=(--touch); touch "$OUT/touched"; else rm -f "$OUT/touched"; fi

# run_impl_raw NAME NP [ARG...]: a job of an implementation, every collective and size (or, with
# --serve, what its command file names), its output as it comes
JOB_TIMEOUT=$STEP_TIMEOUT
run_impl_raw() {
  local more=("${@:3}")
  case "$1" in
    ompi-vader)
      timeout "$JOB_TIMEOUT" mpirun.openmpi --allow-run-as-root --oversubscribe -np "$2" --mca btl self,vader \
        "$OUT/ry_coll" "${ARGS[@]}" "${more[@]}" --transport vader ;;
    mpj-multicore)
      (cd "$OUT/mpj-classes" && MPJ_HOME="$MPJ_HOME_DIR" timeout "$JOB_TIMEOUT" java -jar "$MPJ_HOME_DIR/lib/starter.jar" \
        -np "$2" -dev multicore -cp "$OUT/mpj-classes" RyCollPeer "${ARGS[@]}" "${more[@]}" --transport multicore) ;;
    railyard-shm)
      timeout $((JOB_TIMEOUT + 30)) "${RY[@]}" run -np "$2" --transports shm --timeout "${JOB_TIMEOUT}s" \
        org.railyard.bench.CollectiveBenchRank "${ARGS[@]}" "${more[@]}" --transport shm ;;
    railyard-shm-offheap) # its transport column says shm+offheap
      timeout $((JOB_TIMEOUT + 30)) "${RY[@]}" run -np "$2" --transports shm --timeout "${JOB_TIMEOUT}s" \
        org.railyard.bench.CollectiveBenchRank "${ARGS[@]}" "${more[@]}" --transport shm --buffers offheap ;;
    railyard-mpijava)
      timeout $((JOB_TIMEOUT + 30)) "${RY[@]}" run -np "$2" --transports shm --timeout "${JOB_TIMEOUT}s" \
        -cp "$OUT/ry-classes" RyCollPeer "${ARGS[@]}" "${more[@]}" --transport shm ;;
  esac
}
# run_impl NAME NP: one measurement of an implementation, every collective and size, as TSV
run_impl() { run_impl_raw "$1" "$2" | tsv_only; }

# ---------------------------------------------------------------- --paired: serving jobs, cell by cell
# cells: "COLLECTIVE BYTES" lines in the programs' order, for the collectives and sizes asked for
cells() {
  local c
  for c in barrier bcast allreduce allgather alltoall; do
    case ",$COLLS," in *,all,*|*",$c,"*) ;; *) continue ;; esac
    if [ "$c" = barrier ]; then echo "barrier 0"; continue; fi
    awk -v spec="$SIZES" -v c="$c" '
      function bytes(s,   n, u) {
        n = s + 0; u = tolower(s); sub(/i?b$/, "", u); u = substr(u, length(u))
        return u == "k" ? n * 1024 : u == "m" ? n * 1048576 : u == "g" ? n * 1073741824 : n
      }
      BEGIN {
        k = split(spec, item, ",")
        for (i = 1; i <= k; i++) {
          if (item[i] == "") continue
          j = index(item[i], ":")
          lo = bytes(j ? substr(item[i], 1, j - 1) : item[i]); hi = j ? bytes(substr(item[i], j + 1)) : lo
          for (s = lo; s <= hi; s = s == 0 ? 1 : s * 2) if (!(s in seen)) { seen[s] = 1; n++; v[n] = s }
        }
        for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
        for (i = 1; i <= n; i++) if (c != "allreduce" || v[i] >= 8) printf "%s %d\n", c, v[i]
      }'
  done
}
# rows FILE: the TSV lines (header included) a serving job has printed so far
rows() { tsv_only < "$1" | wc -l; }
SERVING=() # "impl np pid" of the jobs alive
# kill_tree PID: TERM to a process and all its descendants, the deepest first
kill_tree() {
  local child
  for child in $(pgrep -P "$1"); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
stop_serving() {
  local job impl np pid
  for job in "${SERVING[@]}"; do
    read -r impl np pid <<< "$job"
    echo quit >> "$OUT/serve/$impl-np$np.cmd"
  done
  for job in "${SERVING[@]}"; do
    read -r impl np pid <<< "$job"
    for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done # bounded: 60 s
    if kill -0 "$pid" 2>/dev/null; then kill_tree "$pid"; fi
    wait "$pid" 2>/dev/null || true
  done
  SERVING=()
}
# await_rows IMPL NP N: waits until the job of IMPL at NP has printed N TSV lines; fails if it exits first
# or takes longer than STEP_TIMEOUT
await_rows() {
  local out="$OUT/serve/$1-np$2.out" pid=$4 t0=$SECONDS
  while [ "$(rows "$out")" -lt "$3" ]; do
    kill -0 "$pid" 2>/dev/null || fail "$1 at np $2 exited while serving; its output: $out"
    [ $((SECONDS - t0)) -le "$STEP_TIMEOUT" ] || fail "$1 at np $2 printed nothing for $STEP_TIMEOUT s; its output: $out"
    sleep 0.05
  done
}
run_paired() {
  local np impl cell r i k n pid before out want _np
  local -a list
  mapfile -t list < <(cells)
  [ ${#list[@]} -gt 0 ] || fail "--paired: no cell to measure (--colls $COLLS, --sizes $SIZES)"
  JOB_TIMEOUT=$((STEP_TIMEOUT * (REPEAT + 1) * ${#list[@]}))
  mkdir -p "$OUT/serve"
  trap stop_serving EXIT
  printf 'round\tnp\tcollective\tbytes\tprobe_us\n' > "$OUT/cells.tsv"
  for np in ${NPS//,/ }; do
    for impl in "${IMPLS[@]}"; do
      : > "$OUT/serve/$impl-np$np.cmd"
      run_impl_raw "$impl" "$np" --serve "$OUT/serve/$impl-np$np.cmd" > "$OUT/serve/$impl-np$np.out" 2>&1 &
      SERVING+=("$impl $np $!")
      echo "$PROG: np $np: $impl started, serving $OUT/serve/$impl-np$np.cmd" >&2
    done
    for k in "${!SERVING[@]}"; do
      read -r impl _np pid <<< "${SERVING[$k]}"
      await_rows "$impl" "$np" 1 "$pid" # the header: initialized
    done
    for r in $(seq 0 "$REPEAT"); do
      for i in "${!list[@]}"; do
        cell=${list[$i]}
        before=- # a second of probe would outlast the cell's bursts below 64 KiB
        if [ "${cell#* }" -ge 65536 ]; then before=$(probe); fi
        [ "$r" -eq 0 ] || printf '%s\t%s\t%s\t%s\n' "$r" "$np" "${cell// /$'\t'}" "$before" >> "$OUT/cells.tsv"
        echo "$PROG: round $r/$REPEAT$([ "$r" -gt 0 ] || echo ' (warm-up, not kept)'): np $np: $cell (cross-core copy $before us)" >&2
        # the order turns from cell to cell and round to round, so that no implementation is always
        # first (a rotation: each still follows the same one)
        n=${#SERVING[@]}
        for k in $(seq 0 $((n - 1))); do
          read -r impl _np pid <<< "${SERVING[$(((k + i + r) % n))]}"
          out="$OUT/serve/$impl-np$np.out"
          want=$(($(rows "$out") + 1))
          echo "$cell" >> "$OUT/serve/$impl-np$np.cmd"
          await_rows "$impl" "$np" "$want" "$pid"
          [ "$r" -eq 0 ] && continue
          tsv_only < "$out" | tail -n 1 | awk -F'\t' -v impl="$impl" -v run="$r" '{ print impl "\t" run "\t" $0 }' >> "$RAW"
        done
      done
    done
    stop_serving
  done
  trap - EXIT
}

echo "$PROG: load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2

: > "$RAW"
if [ -n "$PAIRED" ]; then
  touch "$OUT/paired"
  run_paired
else
rm -f "$OUT/paired"
printf 'round\tnp\timpl\tprobe_before_us\tprobe_after_us\n' > "$MACHINE"
# Rounds of every np and implementation in turn, so that a disturbance of the machine falls on all
# of them alike rather than on whichever ran at that moment.
for r in $(seq 1 "$REPEAT"); do
  for np in ${NPS//,/ }; do
    for impl in "${IMPLS[@]}"; do
      before=$(probe)
      echo "$PROG: round $r/$REPEAT: np $np: $impl (load $(cut -d' ' -f1 /proc/loadavg), cross-core copy $before us)" >&2
      file="$OUT/raw/$impl-np$np-run$r.tsv"
      run_impl "$impl" "$np" > "$file" || fail "$impl at np $np failed (exit $?); rerun it alone to see its output"
      printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$np" "$impl" "$before" "$(probe)" >> "$MACHINE"
      [ "$(wc -l < "$file")" -gt 1 ] || fail "$impl at np $np printed no result line"
      awk -F'\t' -v impl="$impl" -v run="$r" '$1 != "benchmark" { print impl "\t" run "\t" $0 }' "$file" >> "$RAW"
    done
  done
done
fi
else
  TABLES="$OUT/tables-$STAT${CALM:+-calm$CALM}.md"
fi

# the runs the tables use: all, or with --calm those the probe found the machine calm around
USED="$RAW"
CALMNOTE=""
if [ -n "$TOUCH" ]; then CALMNOTE="; send buffers written before each call (--touch)"; fi
if [ -n "$CALM" ]; then
  USED="$OUT/raw-calm$CALM.tsv"
  awk -F'\t' -v calm="$CALM" '
    NR == FNR { if (FNR > 1 && $4 != "-" && $5 != "-" && $4 + 0 <= calm && $5 + 0 <= calm) ok[$3, $1, $2] = 1; next }
    ($1, $2, $5) in ok' "$MACHINE" "$RAW" > "$USED"
  CALMNOTE="$CALMNOTE; only runs with the cross-core copy probe at $CALM us or less before and after"
fi

# ---------------------------------------------------------------- the tables
# raw.tsv: impl run benchmark transport np bytes iterations mean_us p50_us p99_us max_us MB_s
awk -F'\t' -v order="${IMPLS[*]}" -v nps="${NPS//,/ }" -v stat="$STAT" -v repeat="$REPEAT" -v calmnote="$CALMNOTE" \
    -v paired="$PAIRED" "$AWK_COMBINE"'
{
  k = $1 SUBSEP $5 SUBSEP $3 SUBSEP $6
  put(k, $8)
  byrun[k, $2] = $8
  if (!(($3, $6) in seen)) { seen[$3, $6] = 1; nsz[$3]++; sz[$3, nsz[$3]] = $6 + 0 }
}
function mean(who, procs, coll, bytes) { return combine(who SUBSEP procs SUBSEP coll SUBSEP bytes, 0) }
function cell(v) { return v < 0 ? "-" : v < 10 ? sprintf("%.3f", v) : v < 1000 ? sprintf("%.1f", v) : sprintf("%.0f", v) }
function ratio(a, b) { return (a < 0 || b <= 0) ? "-" : sprintf("%.2f", a / b) }
# rel(x, y, procs, coll, bytes): how x compares with y, -1 if unknown: the ratio of their combined
# means (with stat best, of their fastest rounds; the lowest per-round ratio would favour x), or in
# a paired run with stat median the median of the per-round ratios
function rel(x, y, procs, coll, bytes,   kx, ky, r, key, a, b) {
  if (!paired || stat == "best") { a = mean(x, procs, coll, bytes); b = mean(y, procs, coll, bytes); return (a < 0 || b <= 0) ? -1 : a / b }
  kx = x SUBSEP procs SUBSEP coll SUBSEP bytes; ky = y SUBSEP procs SUBSEP coll SUBSEP bytes
  key = "rel" SUBSEP kx SUBSEP ky
  if (!(key in cnt)) for (r = 1; r <= repeat; r++) if ((kx, r) in byrun && (ky, r) in byrun && byrun[ky, r] > 0) put(key, byrun[kx, r] / byrun[ky, r])
  return combine(key, 0)
}
function rcell(v) { return v < 0 ? "-" : sprintf("%.2f", v) }
function label(b) {
  if (b >= 1048576 && b % 1048576 == 0) return (b / 1048576) "m"
  if (b >= 1024 && b % 1024 == 0) return (b / 1024) "k"
  return b
}
# check(name, ok, rt, a, b, where): counts a case of a target and keeps its worst ratio rt (of
# the mean a of Railyard to the mean b of the peer)
function check(name, ok, rt, a, b, where) {
  cases[name]++
  if (!ok) misses[name]++
  if (!(name in worst) || rt > worst[name]) { worst[name] = rt; at[name] = where sprintf(" (%s vs %s us)", cell(a), cell(b)) }
}
function verdict(name) {
  if (!(name in cases)) { printf "- not measured: %s\n", name; return }
  printf "- %s: %s: %d of %d cases met; worst Railyard/peer %.2f at %s\n", misses[name] ? "MISS" : "MET", name,
    cases[name] - misses[name], cases[name], worst[name], at[name]
}
END {
  ni = split(order, impl, " "); nn = split(nps, np, " "); nc = split("barrier bcast allreduce allgather alltoall", colls, " ")
  ry = "railyard-shm"; ro = "railyard-shm-offheap"; fj = "railyard-mpijava"; om = "ompi-vader"; mj = "mpj-multicore"
  for (i = 1; i <= ni; i++) has[impl[i]] = 1
  T1 = "Railyard faster than MPJ Express everywhere"
  T2 = "np 4, <= 8 KiB: Railyard within 3x Open MPI"
  T3 = "np 4, >= 64 KiB: Railyard within 1.5x Open MPI"
  T4 = "(facade) railyard-mpijava faster than MPJ Express everywhere"
  O1 = "(off-heap buffers) " T1; O2 = "(off-heap buffers) " T2; O3 = "(off-heap buffers) " T3
  printf "# Collectives: mean us per call (%s of %d runs%s)\n\n", stat, repeat, calmnote
  printf "Mean over the ranks of each rank'"'"'s mean time per call, in microseconds. ry/ompi and ry/mpj are\n"
  printf "railyard-shm'"'"'s time over the peer'"'"'s (below 1: Railyard is faster); ry-off/ompi and ry-off/mpj the same\n"
  printf "for railyard-shm-offheap (Railyard with off-heap buffers).\n"
  if (paired) {
    printf "\nPaired run: in each round every implementation measured a cell (a collective at a size) in\n"
    if (stat == "best") {
      printf "turn, seconds apart. The ratio columns and the targets compare each implementation'"'"'s fastest\n"
      printf "round of a cell (the time columns), a measure of what each can do when the machine lets it.\n"
    } else {
      printf "turn, seconds apart. The ratio columns and the targets are the median of the per-round ratios,\n"
      printf "so each ratio compares times taken with the machine in the same state.\n"
    }
  }
  for (c = 1; c <= nc; c++) {
    C = colls[c]
    if (!(C in nsz)) continue
    # sizes in ascending order
    n = nsz[C]
    for (i = 1; i <= n; i++) s[i] = sz[C, i]
    for (i = 2; i <= n; i++) { t = s[i]; for (j = i - 1; j >= 1 && s[j] > t; j--) s[j + 1] = s[j]; s[j + 1] = t }
    printf "\n## %s\n\n| bytes |", C
    line = "|---:|"
    for (p = 1; p <= nn; p++) {
      for (i = 1; i <= ni; i++) { printf " np%s %s |", np[p], impl[i]; line = line "---:|" }
      if (has[ry] && has[om]) { printf " np%s ry/ompi |", np[p]; line = line "---:|" }
      if (has[ry] && has[mj]) { printf " np%s ry/mpj |", np[p]; line = line "---:|" }
      if (has[ro] && has[om]) { printf " np%s ry-off/ompi |", np[p]; line = line "---:|" }
      if (has[ro] && has[mj]) { printf " np%s ry-off/mpj |", np[p]; line = line "---:|" }
    }
    printf "\n%s\n", line
    for (k = 1; k <= n; k++) {
      S = s[k]
      printf "| %s |", label(S)
      for (p = 1; p <= nn; p++) {
        P = np[p]
        for (i = 1; i <= ni; i++) printf " %s |", cell(mean(impl[i], P, C, S))
        r = mean(ry, P, C, S); o = mean(om, P, C, S); m = mean(mj, P, C, S); f = mean(fj, P, C, S)
        q = mean(ro, P, C, S)
        ro_ = rel(ry, om, P, C, S); rm = rel(ry, mj, P, C, S); qo = rel(ro, om, P, C, S); qm = rel(ro, mj, P, C, S)
        fm = rel(fj, mj, P, C, S)
        if (has[ry] && has[om]) printf " %s |", rcell(ro_)
        if (has[ry] && has[mj]) printf " %s |", rcell(rm)
        if (has[ro] && has[om]) printf " %s |", rcell(qo)
        if (has[ro] && has[mj]) printf " %s |", rcell(qm)
        where = sprintf("%s np %s %s B", C, P, S)
        if (rm > 0) check(T1, rm < 1, rm, r, m, where)
        if (fm > 0) check(T4, fm < 1, fm, f, m, where)
        if (P == 4 && ro_ > 0 && S <= 8192) check(T2, ro_ <= 3, ro_, r, o, where)
        if (P == 4 && ro_ > 0 && S >= 65536) check(T3, ro_ <= 1.5, ro_, r, o, where)
        if (qm > 0) check(O1, qm < 1, qm, q, m, where)
        if (P == 4 && qo > 0 && S <= 8192) check(O2, qo <= 3, qo, q, o, where)
        if (P == 4 && qo > 0 && S >= 65536) check(O3, qo <= 1.5, qo, q, o, where)
      }
      printf "\n"
    }
  }
  printf "\n## Targets (issue 3)\n\n"
  verdict(T1); verdict(T2); verdict(T3); verdict(T4); verdict(O1); verdict(O2); verdict(O3)
}' "$USED" | tee "$TABLES"
if [ -n "$PAIRED" ] && [ -f "$OUT/cells.tsv" ]; then {
  printf '\n## The machine during the runs\n\n'
  printf 'bench/probes/xcore_copy.c before each round of a cell: us for one thread to copy in the 384 KiB the\n'
  printf 'other wrote and write 384 KiB for it (processors 0 and 1; lower is faster).\n\n'
  awk -F'\t' 'NR > 1 { if ($5 != "-") n++; if ($5 != "-" && $5 + 0 > 100) slow++; w = $2 " | " $1; v[w] = v[w] (v[w] == "" ? "" : " ") $5; if (!(w in seen)) { seen[w] = 1; order[++k] = w } }
    END {
      printf "Over 100 us (the slow state) before %d of %d rounds of a cell.\n\n| np | round | probe before each cell, in order |\n|---:|---:|---|\n", slow, n
      for (i = 1; i <= k; i++) printf "| %s | %s |\n", order[i], v[order[i]]
    }' "$OUT/cells.tsv"
} | tee -a "$TABLES"
elif [ -f "$MACHINE" ]; then {
  printf '\n## The machine during the runs\n\n'
  printf 'bench/probes/xcore_copy.c before and after each run: us for one thread to copy in the 384 KiB the\n'
  printf 'other wrote and write 384 KiB for it (processors 0 and 1; lower is faster).\n\n'
  printf '| round | np | implementation | before | after |\n|---:|---:|---|---:|---:|\n'
  awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$MACHINE"
} | tee -a "$TABLES"; fi
