#!/usr/bin/env bash
# Every cell of issue 24's one-sided matrix, Railyard against Open MPI, in one command: the
# benchmarks put_latency, get_latency, put_bw, get_bw, acc_latency, fop_latency and cas_latency
# under the synchronisation modes flush, lock, fence and pscw, 1 B to 4 MiB, over shm and tcp (the
# pairings of bench/compare-rma.sh: Open MPI with osc sm over vader, and osc pt2pt over btl tcp),
# and Railyard's shared_copy (a shared window against an in-process copy) on shm.
#
# A group is one round, path, benchmark and mode with all its sizes: one run of each program. The
# two programs alternate group by group (which goes first flips from each group to the next), so a
# change of the machine's load falls on both within a minute or so. Each group's rows are appended
# to OUT/raw.tsv as soon as both programs finished it, and the group to OUT/done: a sweep cut short
# keeps its rows, and the same command again resumes it at the first group not done (a group that
# failed is retried; OUT/config holds the matrix, and a command asking for another matrix in the
# same OUT is refused). It prints an estimate before starting and its pace as it goes, and ends
# with bench/compare-rma.sh's tables (each cell: Open MPI, Railyard, ratio, target, met or MISSED,
# then the list of missed cells) and plots, from all rounds in OUT/raw.tsv.
#
# Usage: bench/rma-sweep.sh [--quick] [--repeat N] [--only LIST] [--benches LIST] [--sync LIST]
#                           [--sizes LIST] [--iters N] [--op OP[:TYPE]] [--out DIR] [--fresh] [--estimate]
#   --quick       sizes 1,8,256,4k,64k,1m,4m and --iters 1000 (the estimate printed first says how
#                 long); its default OUT is bench/out/rma-sweep-quick
#   --repeat N    rounds (default 1); each round runs the whole matrix
#   --only LIST   paths: shm,tcp (default both)
#   --benches L   default all: put_latency,get_latency,put_bw,get_bw,acc_latency,fop_latency,
#                 cas_latency,shared_copy (shared_copy runs on shm, Railyard only)
#   --sync LIST   flush,lock,fence,pscw (default all)
#   --sizes LIST  comma-separated sizes with k and m suffixes (default every power of two 1 .. 4m)
#   --iters N     latency iterations up to 8 KiB (default 10000; the rest scales with it)
#   --op OP[:TYPE]  acc_latency's operation, to both programs (default sum:int)
#   --out DIR     default bench/out/rma-sweep (bench/out/rma-sweep-quick with --quick)
#   --fresh       start OUT over (its raw.tsv, done list and logs are removed first)
#   --estimate    print the matrix and the estimate, run nothing
#
# RAILYARD_CMD and STEP_TIMEOUT (seconds, default 1800, for one program's run of one group) as in
# bench/compare-rma.sh. Each run's output is kept in OUT/log/.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROG=rma-sweep.sh
# shellcheck source=bench/compare.sh
source "$ROOT/bench/compare.sh" # its helpers only: need_*, build_railyard, tsv_only
# shellcheck source=bench/rma-common.sh
source "$ROOT/bench/rma-common.sh"

ALL_BENCHES="put_latency,get_latency,put_bw,get_bw,acc_latency,fop_latency,cas_latency,shared_copy"
QUICK=""
REPEAT=1
ONLY="shm,tcp"
BENCHES=$ALL_BENCHES
SYNC="flush,lock,fence,pscw"
SIZES=""
ITERS=""
OP="sum:int"
OUT=""
FRESH=""
ESTIMATE=""
STEP_TIMEOUT=${STEP_TIMEOUT:-1800}

while [ $# -gt 0 ]; do
  if [ $# -ge 2 ] && rma_option "$1" "$2"; then shift 2; continue; fi
  case "$1" in
    --quick) QUICK=1; shift ;;
    --fresh) FRESH=1; shift ;;
    --estimate) ESTIMATE=1; shift ;;
    -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
    *) fail "unknown argument '$1' (try --help)" ;;
  esac
done
if [ -n "$QUICK" ]; then
  SIZES=${SIZES:-1,8,256,4k,64k,1m,4m}
  ITERS=${ITERS:-1000}
  OUT=${OUT:-$ROOT/bench/out/rma-sweep-quick}
fi
SIZES=${SIZES:-1,2,4,8,16,32,64,128,256,512,1k,2k,4k,8k,16k,32k,64k,128k,256k,512k,1m,2m,4m}
ITERS=${ITERS:-10000}
OUT=${OUT:-$ROOT/bench/out/rma-sweep}
[ "$BENCHES" = all ] && BENCHES=$ALL_BENCHES
[ "$SYNC" = all ] && SYNC="flush,lock,fence,pscw"
rma_check_options
for b in ${BENCHES//,/ }; do
  case ",$ALL_BENCHES," in *",$b,"*) ;; *) fail "--benches: unknown benchmark '$b' (one of $ALL_BENCHES)" ;; esac
done
for s in ${SYNC//,/ }; do
  case "$s" in flush|lock|fence|pscw) ;; *) fail "--sync: unknown mode '$s' (flush, lock, fence or pscw)" ;; esac
done
bytes_of() { # a size with an optional k or m suffix, in bytes
  case "$1" in
    *[kK]) echo $(( ${1%[kK]} * 1024 )) ;;
    *[mM]) echo $(( ${1%[mM]} * 1048576 )) ;;
    *) echo "$1" ;;
  esac
}
for s in ${SIZES//,/ }; do
  [[ "$s" =~ ^[1-9][0-9]*[kKmM]?$ ]] || fail "--sizes: '$s' is not a size (a number, with k or m)"
done

# The matrix: one line per group, "round path benchmark mode sizes", in the order they run. fop and
# cas act on 8 bytes whatever the sizes; shared_copy has no mode of its own and no Open MPI side.
matrix() {
  local r p b s
  for r in $(seq 1 "$REPEAT"); do
    for p in ${ONLY//,/ }; do
      for b in ${BENCHES//,/ }; do
        case "$b" in
          shared_copy) if [ "$p" = shm ]; then echo "$r $p $b flush $SIZES"; fi ;;
          fop_latency|cas_latency) for s in ${SYNC//,/ }; do echo "$r $p $b $s 8"; done ;;
          *) for s in ${SYNC//,/ }; do echo "$r $p $b $s $SIZES"; done ;;
        esac
      done
    done
  done
}

# Seconds a group should take on an idle 2-core machine, by a rough model whose constants are
# guesses for such a machine (a JVM pair's start and JIT settling per size for Railyard; the timed
# and warm-up operations at a typical cost per operation and per byte of each path for both; Railyard
# runs its loop at least twice, the JIT passes and the timed one). A guide, not a bound.
estimate() { # sizes... on stdin as group lines
  awk -v iters="$ITERS" -v bytes_k=1024 -v bytes_m=1048576 '
    function b(s) { if (s ~ /[kK]$/) return s * bytes_k; if (s ~ /[mM]$/) return s * bytes_m; return s + 0 }
    {
      path = $2; bench = $3; mode = $4; n = split($5, sz, ",")
      ompi = (bench == "shared_copy") ? 0 : 1
      t = 4 + ompi * 1.5
      op = (path == "tcp") ? 25e-6 : 1.5e-6; rate = (path == "tcp") ? 1e9 : 5e9
      if (mode == "fence" || mode == "pscw") op *= 3
      for (i = 1; i <= n; i++) {
        s = b(sz[i]); large = s > 8192
        if (bench ~ /_bw$/ || bench == "shared_copy") ops = large ? iters / 333 * 32 : iters / 100 * 64
        else ops = large ? iters / 10 : iters
        if (bench == "acc_latency" && s < 4) continue
        work = ops * (op + s / rate)
        t += 1.2 + 2 * work + ompi * (0.05 + work)
      }
      total += t
    }
    END { printf "%d\n", total }'
}

MATRIX=$(matrix)
CONFIG="iters=$ITERS op=$OP
$MATRIX"
GROUPS_ALL=$(printf '%s\n' "$MATRIX" | wc -l)

if [ -n "$ESTIMATE" ]; then
  printf '%s\n' "$MATRIX"
  echo "$PROG: $GROUPS_ALL groups, about $(( $(printf '%s\n' "$MATRIX" | estimate) / 60 + 1 )) minutes on an idle 2-core machine"
  exit 0
fi

if [ -n "$FRESH" ]; then
  rm -rf "$OUT/raw.tsv" "$OUT/done" "$OUT/config" "$OUT/log"
fi
mkdir -p "$OUT/log"
OUT=$(cd "$OUT" && pwd)
if [ -f "$OUT/config" ]; then
  if [ "$(cat "$OUT/config")" != "$CONFIG" ]; then
    fail "$OUT holds a sweep of another matrix ($OUT/config): resume it with its own options, or pass --fresh or another --out"
  fi
else
  printf '%s\n' "$CONFIG" > "$OUT/config"
fi
touch "$OUT/done" "$OUT/raw.tsv"

TODO=$(printf '%s\n' "$MATRIX" | grep -vxF -f "$OUT/done" || true)
LEFT=$(printf '%s' "$TODO" | grep -c . || true)
echo "$PROG: $GROUPS_ALL groups, $(( GROUPS_ALL - LEFT )) done before, $LEFT to run; results in $OUT" >&2
if [ "$LEFT" -gt 0 ]; then
  echo "$PROG: estimate about $(( $(printf '%s\n' "$TODO" | estimate) / 60 + 1 )) minutes on an idle 2-core machine," \
    "more under load (load average now $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores)" >&2
fi

if [ "$LEFT" -gt 0 ]; then
  need_openmpi
  if [ -z "${RAILYARD_CMD:-}" ]; then
    need_railyard
    build_railyard
    RAILYARD_CMD="$ROOT/bin/railyard"
  fi
  mpicc.openmpi -O2 -o "$OUT/ry_rma" "$ROOT/bench/peers/c/ry_rma.c"
fi

run_ompi() { rma_run_ompi "$OUT/ry_rma" "$@" --iters "$ITERS"; } # path bench mode sizes
run_railyard() { rma_run_railyard "$@" --iters "$ITERS"; }      # path bench mode sizes

# The index of every group in the whole matrix decides which program goes first, so that a resumed
# sweep keeps the order a whole one has.
START=$(date +%s)
ran=0
failed=0
index=0
while read -r round path bench mode sizes; do
  index=$((index + 1))
  group="$round $path $bench $mode $sizes"
  if grep -qxF "$group" "$OUT/done"; then continue; fi
  if [ "$bench" = shared_copy ]; then
    order="railyard"
  elif [ $((index % 2)) = 1 ]; then
    order="railyard ompi"
  else
    order="ompi railyard"
  fi
  rows=""
  ok=1
  for impl in $order; do
    log="$OUT/log/r$round-$path-$bench-$mode.$impl.txt"
    if ! "run_$impl" "$path" "$bench" "$mode" "$sizes" > "$log" 2>&1; then
      echo "$PROG: $group: $impl failed (exit status in $log's end; output kept there)" >&2
      ok=0
      break
    fi
    out=$(tsv_only < "$log" | awk -F'\t' -v impl="$impl" -v run="$round" -v path="$path" \
      '$1 != "benchmark" { print impl "\t" run "\t" path "\t" $0 }')
    if [ -z "$out" ]; then
      echo "$PROG: $group: $impl printed no result row (see $log)" >&2
      ok=0
      break
    fi
    rows+="$out"$'\n'
  done
  ran=$((ran + 1))
  if [ "$ok" = 1 ]; then
    printf '%s' "$rows" >> "$OUT/raw.tsv"
    echo "$group" >> "$OUT/done"
  else
    failed=$((failed + 1))
  fi
  elapsed=$(( $(date +%s) - START ))
  echo "$PROG: [$ran/$LEFT] $group ($order) $( [ "$ok" = 1 ] && echo done || echo FAILED), load" \
    "$(cut -d' ' -f1 /proc/loadavg), $((elapsed / 60)) min so far, about $(( elapsed * (LEFT - ran) / ran / 60 )) min left" >&2
done <<< "$MATRIX"

[ -s "$OUT/raw.tsv" ] || fail "no rows in $OUT/raw.tsv"
echo "$PROG: load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# shellcheck source=bin/jdk.sh
source "$ROOT/bin/jdk.sh"
JDK=$(find_jdk) || fail "no JDK 25 or newer: install one (apt-get install temurin-25-jdk or openjdk-25-jdk)"
"$JDK/bin/java" -cp "$ROOT/railyard-cli/target/lib/*" org.railyard.bench.RmaCompare "$OUT/raw.tsv" "$OUT"
if [ "$failed" -gt 0 ]; then
  fail "$failed group(s) failed (logs in $OUT/log): the same command retries them"
fi
