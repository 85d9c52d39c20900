#!/usr/bin/env bash
# bench/jit-compare.sh: the obstacle demo at np 2 with the ranks' JIT left alone ("default"), C1
# only ("c1": -XX:TieredStopAtLevel=1) and C2 only ("c2": -XX:-TieredCompilation), in alternating
# rounds; prints each run's solve_s, compute_s and halo_wait_s, then per option set the median
# solve_s and the median of the per-round ratios to the default.
# Usage: bench/jit-compare.sh [ROUNDS] [N]      (after mvn -DskipTests package)
set -euo pipefail
# Railyard's ahead-of-time cache stays off unless RAILYARD_AOT is set: with the launcher's default
# (auto) a program's second job trains the cache, and that job would fall into one round.
export RAILYARD_AOT="${RAILYARD_AOT:-off}"
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
N=${2:-48}
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for r in $(seq 1 "$ROUNDS"); do
    for v in default c1 c2; do
        case $v in
            default) opt=() ;;
            c1) opt=(--jvm-arg=-XX:TieredStopAtLevel=1) ;;
            c2) opt=(--jvm-arg=-XX:-TieredCompilation) ;;
        esac
        line=$(bin/railyard run -np 2 "${opt[@]}" org.railyard.apps.obstacle.ObstacleDemo --n "$N" --no-check 2>&1 \
            | grep -m1 'RESULT obstacle') || { echo "round $r $v: no RESULT line" >&2; exit 1; }
        get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$line"; }
        echo "round $r $v solve_s=$(get solve_s) compute_s=$(get compute_s) halo_wait_s=$(get halo_wait_s) test_s=$(get test_s)"
        echo "$r $v $(get solve_s)" >> "$rows"
    done
done
python3 - "$rows" <<'PY'
import sys, statistics, collections
by = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    r, v, s = l.split()
    by[v][r] = float(s)
for v in ("default", "c1", "c2"):
    ratios = [by[v][r] / by["default"][r] for r in by["default"]]
    print(f"{v:8s} median solve_s {statistics.median(by[v].values()):.3f}  median ratio to default {statistics.median(ratios):.3f} "
          f"({min(ratios):.3f}-{max(ratios):.3f}, {len(ratios)} rounds)")
PY
