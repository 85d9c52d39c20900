#!/usr/bin/env bash
# Railyard's one-sided communication against Open MPI's, in one run, with one method (the OSU
# one-sided method of bench/peers/c/ry_rma.c and org.railyard.bench.RmaBenchRank, bench/README.md):
#   shm: `railyard bench rma --transports shm` against Open MPI with btl vader and osc sm (windows in
#        shared memory, operations as loads and stores: its fastest one-sided path on one node);
#   tcp: `railyard bench rma --transports tcp` against Open MPI with btl tcp and osc pt2pt (operations
#        as active messages over TCP; osc rdma cannot run over btl tcp, and osc ucx would bypass TCP
#        through shared memory).
# Rounds alternate the order of the two implementations of a path (Railyard first in odd rounds), so
# that a disturbance of the machine falls on both alike. org.railyard.bench.RmaCompare then prints
# one table per path (medians over rounds of each implementation and the median of the per-round
# ratios Railyard / Open MPI, with issue 24's targets) and draws the plots.
#
# Usage: bench/compare-rma.sh [--repeat N] [--only LIST] [--benches LIST] [--sync LIST] [--sizes SPEC]
#                             [--iters N] [--op OP[:TYPE]] [--no-jit-warmup] [--out DIR]
#        bench/compare-rma.sh --tables-from DIR
#   --repeat N    rounds (default 3)
#   --only LIST   paths: shm,tcp (default both)
#   --benches L   benchmarks as the programs take them (default all): put_latency, get_latency, put_bw,
#                 get_bw, acc_latency, fop_latency, cas_latency, and shared_copy (Railyard only: a copy
#                 straight into the other rank's part of a shared window, against an in-process copy)
#   --sync LIST   flush,lock,fence,pscw (default all)
#   --sizes SPEC  sizes as the programs take them (default 8,1k,64k,1m,4m)
#   --iters N     latency iterations up to 8 KiB (default 10000; everything else scales with it)
#   --op OP[:TYPE]  acc_latency's operation, to both programs: sum (default), prod, max, min or bor, of
#                 int (default), long, float or double values, e.g. max:float (bor: integers only)
#   --no-jit-warmup  Railyard skips its untimed JIT passes before each size (bench/README.md)
#   --out DIR     where the build, the raw TSV, the tables and the plots go (default
#                 bench/out/compare-rma-<time>)
#   --tables-from DIR  runs nothing: the tables and plots again from DIR/raw.tsv
#
# Needs what bench/compare.sh needs for Open MPI and Railyard (Debian packages openmpi-bin and
# libopenmpi-dev; a JDK 25 and a built Railyard). RAILYARD_CMD (default bin/railyard) is the command
# that runs the Railyard CLI: set it to `java -cp 'railyard-cli/target/lib/*' org.railyard.cli.Main`
# to use a tree built with `mvn package` without bin/railyard's build. STEP_TIMEOUT (seconds, default
# 1800) bounds each run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROG=compare-rma.sh
# shellcheck source=bench/compare.sh
source "$ROOT/bench/compare.sh" # its helpers only: need_*, build_railyard, tsv_only
# shellcheck source=bench/rma-common.sh
source "$ROOT/bench/rma-common.sh"

REPEAT=3
ONLY="shm,tcp"
BENCHES="all"
SYNC="all"
SIZES="8,1k,64k,1m,4m"
ITERS=""
OP="sum"
JIT=""
OUT=""
FROM=""
STEP_TIMEOUT=${STEP_TIMEOUT:-1800}

while [ $# -gt 0 ]; do
  if [ $# -ge 2 ] && rma_option "$1" "$2"; then shift 2; continue; fi
  case "$1" in
    --no-jit-warmup) JIT="--no-jit-warmup"; shift ;;
    --tables-from) FROM="$2"; shift 2 ;;
    -h|--help) sed -n '2,37p' "$0"; exit 0 ;;
    *) fail "unknown argument '$1' (try --help)" ;;
  esac
done
rma_check_options

# shellcheck source=bin/jdk.sh
source "$ROOT/bin/jdk.sh"
JDK=$(find_jdk) || fail "no JDK 25 or newer: install one (apt-get install temurin-25-jdk or openjdk-25-jdk)"
LIB="$ROOT/railyard-cli/target/lib"

tables() { # DIR: RmaCompare's tables (stdout and DIR/tables.md) and plots from DIR/raw.tsv
  "$JDK/bin/java" -cp "$LIB/*" org.railyard.bench.RmaCompare "$1/raw.tsv" "$1"
}

if [ -n "$FROM" ]; then
  [ -f "$FROM/raw.tsv" ] || fail "$FROM/raw.tsv not found"
  tables "$FROM"
  exit 0
fi

need_openmpi
if [ -z "${RAILYARD_CMD:-}" ]; then
  need_railyard
  build_railyard
  RAILYARD_CMD="$ROOT/bin/railyard"
fi
[ -n "$OUT" ] || OUT="$ROOT/bench/out/compare-rma-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
echo "$PROG: results in $OUT ($REPEAT rounds)" >&2

mpicc.openmpi -O2 -o "$OUT/ry_rma" "$ROOT/bench/peers/c/ry_rma.c"

# the C twin has no shared_copy: its list without it (empty: Open MPI does not run)
OMPI_BENCHES=$(echo ",$BENCHES," | sed 's/,shared_copy,/,/g; s/^,//; s/,$//')

iters_args() { if [ -n "$ITERS" ]; then echo "--iters $ITERS"; fi; }

run_ompi() { # path
  # shellcheck disable=SC2046
  rma_run_ompi "$OUT/ry_rma" "$1" "$OMPI_BENCHES" "$SYNC" "$SIZES" $(iters_args) | tsv_only
}

# shared_copy needs a shared window (allocateShared), which tcp alone cannot map: Railyard's list
# over tcp leaves it out (empty: Railyard does not run)
TCP_BENCHES=$(echo ",$BENCHES," | sed 's/,all,/,put_latency,get_latency,put_bw,get_bw,acc_latency,fop_latency,cas_latency,/;
  s/,shared_copy,/,/g; s/^,//; s/,$//')

run_railyard() { # path
  local benches=$BENCHES
  if [ "$1" = tcp ]; then benches=$TCP_BENCHES; fi
  # shellcheck disable=SC2046,SC2086
  rma_run_railyard "$1" "$benches" "$SYNC" "$SIZES" $(iters_args) $JIT | tsv_only
}

RAW="$OUT/raw.tsv"
: > "$RAW"
echo "$PROG: load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
for r in $(seq 1 "$REPEAT"); do
  for path in ${ONLY//,/ }; do
    if [ $((r % 2)) = 1 ]; then order="railyard ompi"; else order="ompi railyard"; fi
    for impl in $order; do
      if [ "$impl" = ompi ] && [ -z "$OMPI_BENCHES" ]; then continue; fi
      if [ "$impl" = railyard ] && [ "$path" = tcp ] && [ -z "$TCP_BENCHES" ]; then continue; fi
      echo "$PROG: round $r/$REPEAT: $path: $impl (load $(cut -d' ' -f1 /proc/loadavg))" >&2
      out=$("run_$impl" "$path") || fail "$impl over $path failed (exit $?); rerun it alone to see its output"
      [ -n "$out" ] || fail "$impl over $path printed no result line"
      printf '%s\n' "$out" | awk -F'\t' -v impl="$impl" -v run="$r" -v path="$path" \
        '$1 != "benchmark" { print impl "\t" run "\t" path "\t" $0 }' >> "$RAW"
    done
  done
done
echo "$PROG: load average after measuring: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
tables "$OUT"
