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
#                              [--iters N] [--colls LIST] [--out DIR] [--calm US] [--touch]
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
#   --tables-from DIR  runs nothing: the tables again from DIR's raw.tsv and machine.tsv, into
#                 DIR/tables-<stat>[-calm<US>].md
#
# Needs what bench/compare.sh needs for the same implementations (Debian packages openmpi-bin and
# libopenmpi-dev; libmpj-java, liblog4j1.2-java, libcommons-cli-java, libcommons-codec-java,
# libcommons-io-java and a javac; a JDK 25 and a built Railyard for bin/railyard). STEP_TIMEOUT
# (seconds, default 1800) bounds each run of one implementation at one np.
#
# Before and after each run, bench/probes/xcore_copy.c (built with cc when there is one) times for a
# second how long two threads on processors 0 and 1 take to pass 384 KiB back and forth. On a
# virtual machine that time can change severalfold from one minute to the next, and large
# collectives follow it; the tables end with it, one line a run, so that a cell can be read
# against the state the machine was in.
set -euo pipefail

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
    --tables-from) FROM="$2"; shift 2 ;;
    -h|--help) sed -n '2,43p' "$0"; exit 0 ;;
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
  OUT="$FROM"
fi
case "$NPS" in ''|*[!0-9,]*|*,,*|,*|*,) fail "--np needs comma-separated process counts, e.g. 2,4,8" ;; esac
case ",$NPS," in *,0,*|*,0[0-9]*) fail "--np: process counts start at 1" ;; esac
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
if want railyard-shm || want railyard-shm-offheap || want railyard-mpijava; then need_railyard; fi

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
if want railyard-shm || want railyard-shm-offheap || want railyard-mpijava; then build_railyard; fi
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

# run_impl NAME NP: one measurement of an implementation, every collective and size
run_impl() {
  case "$1" in
    ompi-vader)
      timeout "$STEP_TIMEOUT" mpirun.openmpi --allow-run-as-root --oversubscribe -np "$2" --mca btl self,vader \
        "$OUT/ry_coll" "${ARGS[@]}" --transport vader ;;
    mpj-multicore)
      (cd "$OUT/mpj-classes" && MPJ_HOME="$MPJ_HOME_DIR" timeout "$STEP_TIMEOUT" java -jar "$MPJ_HOME_DIR/lib/starter.jar" \
        -np "$2" -dev multicore -cp "$OUT/mpj-classes" RyCollPeer "${ARGS[@]}" --transport multicore) ;;
    railyard-shm)
      timeout $((STEP_TIMEOUT + 30)) "$ROOT/bin/railyard" run -np "$2" --transports shm --timeout "${STEP_TIMEOUT}s" \
        org.railyard.bench.CollectiveBenchRank "${ARGS[@]}" --transport shm ;;
    railyard-shm-offheap) # its transport column says shm+offheap
      timeout $((STEP_TIMEOUT + 30)) "$ROOT/bin/railyard" run -np "$2" --transports shm --timeout "${STEP_TIMEOUT}s" \
        org.railyard.bench.CollectiveBenchRank "${ARGS[@]}" --transport shm --buffers offheap ;;
    railyard-mpijava)
      timeout $((STEP_TIMEOUT + 30)) "$ROOT/bin/railyard" run -np "$2" --transports shm --timeout "${STEP_TIMEOUT}s" \
        -cp "$OUT/ry-classes" RyCollPeer "${ARGS[@]}" --transport shm ;;
  esac | tsv_only
}

echo "$PROG: load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2

: > "$RAW"
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
awk -F'\t' -v order="${IMPLS[*]}" -v nps="${NPS//,/ }" -v stat="$STAT" -v repeat="$REPEAT" -v calmnote="$CALMNOTE" "$AWK_COMBINE"'
{
  k = $1 SUBSEP $5 SUBSEP $3 SUBSEP $6
  put(k, $8)
  if (!(($3, $6) in seen)) { seen[$3, $6] = 1; nsz[$3]++; sz[$3, nsz[$3]] = $6 + 0 }
}
function mean(who, procs, coll, bytes) { return combine(who SUBSEP procs SUBSEP coll SUBSEP bytes, 0) }
function cell(v) { return v < 0 ? "-" : v < 10 ? sprintf("%.3f", v) : v < 1000 ? sprintf("%.1f", v) : sprintf("%.0f", v) }
function ratio(a, b) { return (a < 0 || b <= 0) ? "-" : sprintf("%.2f", a / b) }
function label(b) {
  if (b >= 1048576 && b % 1048576 == 0) return (b / 1048576) "m"
  if (b >= 1024 && b % 1024 == 0) return (b / 1024) "k"
  return b
}
# check(name, ok, a, b, where): counts a case of a target and keeps its worst ratio a/b
function check(name, ok, a, b, where) {
  cases[name]++
  if (!ok) misses[name]++
  if (!(name in worst) || a / b > worst[name]) { worst[name] = a / b; at[name] = where sprintf(" (%s vs %s us)", cell(a), cell(b)) }
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
        if (has[ry] && has[om]) printf " %s |", ratio(r, o)
        if (has[ry] && has[mj]) printf " %s |", ratio(r, m)
        q = mean(ro, P, C, S)
        if (has[ro] && has[om]) printf " %s |", ratio(q, o)
        if (has[ro] && has[mj]) printf " %s |", ratio(q, m)
        where = sprintf("%s np %s %s B", C, P, S)
        if (r > 0 && m > 0) check(T1, r < m, r, m, where)
        if (f > 0 && m > 0) check(T4, f < m, f, m, where)
        if (P == 4 && r > 0 && o > 0 && S <= 8192) check(T2, r <= 3 * o, r, o, where)
        if (P == 4 && r > 0 && o > 0 && S >= 65536) check(T3, r <= 1.5 * o, r, o, where)
        if (q > 0 && m > 0) check(O1, q < m, q, m, where)
        if (P == 4 && q > 0 && o > 0 && S <= 8192) check(O2, q <= 3 * o, q, o, where)
        if (P == 4 && q > 0 && o > 0 && S >= 65536) check(O3, q <= 1.5 * o, q, o, where)
      }
      printf "\n"
    }
  }
  printf "\n## Targets (issue 3)\n\n"
  verdict(T1); verdict(T2); verdict(T3); verdict(T4); verdict(O1); verdict(O2); verdict(O3)
}' "$USED" | tee "$TABLES"
if [ -f "$MACHINE" ]; then {
  printf '\n## The machine during the runs\n\n'
  printf 'bench/probes/xcore_copy.c before and after each run: us for one thread to copy in the 384 KiB the\n'
  printf 'other wrote and write 384 KiB for it (processors 0 and 1; lower is faster).\n\n'
  printf '| round | np | implementation | before | after |\n|---:|---:|---|---:|---:|\n'
  awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$MACHINE"
} | tee -a "$TABLES"; fi
