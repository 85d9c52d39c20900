#!/usr/bin/env bash
# bench/startup.sh: time from a launcher's start to every rank past init, by job size.
#
#   bench/startup.sh [--sizes "2 8 32 64 128"] [--rounds 3] [--launchers "srun railyard railyard-aot railyard-cached railyard-threads hydra hydra-pmi2 ompi mpj"]
#                    [--out DIR] [--timeout SECONDS]
#
# Launchers (each skipped, with a message, where its tools are missing):
#   srun        srun --mpi=pmi2 --overcommit -n N java ... StartupRank   (Railyard over PMI-2; needs a
#               working Slurm: sinfo must answer, SLURM_CONF pointing at its slurm.conf if not the default)
#   railyard    railyard run -np N --aot off StartupRank                  (Railyard's own launcher, no cache)
#   railyard-aot  the same with --aot DIR: every rank starts from JDK 25's ahead-of-time cache,
#               trained by one job before the first round (its time is printed, not measured)
#   railyard-cached  railyard-aot, and the launcher's own JVM from its own cache as bin/railyard
#               makes one (JDK 25's -XX:AOTCache; made by one recorded job before the first round)
#   railyard-threads  railyard run -np N --threads StartupRank          (every rank a thread of the launcher's JVM,
#               with a class loader of its own; the rank JVM options do not apply)
#   hydra       mpiexec.hydra -n N java ... StartupRank                   (Railyard over PMI-1)
#   hydra-pmi2  the same with RAILYARD_PMI=2                              (Railyard over Hydra's PMI-2)
#   ompi        Open MPI's mpirun --oversubscribe of an empty C MPI program (bench/startup/empty_mpi.c)
#   mpj         MPJ Express (Debian's libmpj-java), multicore device, an empty Java MPI program
#
# Each rank prints the wall-clock time at which init returned; a measurement is the latest of
# them less the time the launcher was started, in ms ("to every rank past init"), and the wall
# time until the launcher exited. Sizes and launchers alternate within each round (the order of the
# launchers rotates from round to round), so that a slow spell of a shared machine does not fall
# on one launcher. Ranks are oversubscribed on a small machine: the numbers are what it can do.
#
# Railyard's ranks also print their start-up stages (railyard.startup.timing, from the launcher's
# start, which the script exports as RAILYARD_LAUNCH_US): for each measurement the tsv holds, over
# the ranks, the latest process start, call of init, bootstrap done and init done, in ms, so that
# where the time goes is visible (spawning, the JVM reaching main, the key-value exchange, the
# transports), and the median process start (ranks spawned one after the other show a median
# far from the first and the latest), and the mean processor time of a rank by init done (equal
# processor times with unequal wall times mean waiting for processors, not more work).
# Each rank's second line, of init's finer stages and the native set-up thread's steps
# ("railyard startup stages: ..."), stays in the logs under DIR/logs, not in the tsv.
#
# Railyard's ranks also count the PMI-2 requests they sent (0 under other bootstraps), after init
# and after one barrier: their sum over the job, divided by N, shows whether the key-value
# exchange grows linearly (a constant per rank) or quadratically (a count per rank that grows with N).
#
# Uses the jars of railyard-cli/target/lib (build them first: mvn -DskipTests package), or those of
# RAILYARD_LIB; the railyard launcher's JVM gets bin/railyard's options, or RAILYARD_LAUNCHER_JVM's
# (old against new: RAILYARD_LIB=/copy/of/old/lib RAILYARD_LAUNCHER_JVM="--enable-native-access=ALL-UNNAMED").
# It never builds or installs anything. Output: DIR/startup.tsv (every measurement) and DIR/summary.tsv
# (medians per launcher and size, and the ratio to Open MPI's), both printed at the end.
set -euo pipefail

PROG=startup.sh
ROOT=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/.." && pwd -P)
SIZES="2 8 32 64 128"
ROUNDS=3
LAUNCHERS="srun railyard railyard-aot hydra hydra-pmi2 ompi mpj"
OUT="$ROOT/bench/results/startup"
TIMEOUT=600

fail() { echo "$PROG: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --launchers) LAUNCHERS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown option '$1' (see --help)" ;;
  esac
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || fail "--rounds must be a whole number >= 1, got '$ROUNDS'"
for n in $SIZES; do [[ "$n" =~ ^[1-9][0-9]*$ ]] || fail "--sizes holds '$n', not a whole number >= 1"; done

# shellcheck source=bin/jdk.sh
source "$ROOT/bin/jdk.sh"
# shellcheck source=bench/ompi-env.sh
source "$ROOT/bench/ompi-env.sh"
ompi_munge_guard "$PROG"
JDK=$(find_jdk) || fail "no JDK 25 or newer (JAVA_HOME or /usr/lib/jvm)"
JAVA="$JDK/bin/java"
# The jars measured: railyard-cli/target/lib, or RAILYARD_LIB (another build's, e.g. a copy of
# main's, to measure old against new).
LIB=${RAILYARD_LIB:-$ROOT/railyard-cli/target/lib}
# The railyard launcher's own JVM options, as bin/railyard gives them; RAILYARD_LAUNCHER_JVM
# replaces them (an older bin/railyard's, to measure old against new).
read -r -a LAUNCHER_JVM <<< "${RAILYARD_LAUNCHER_JVM:---enable-native-access=ALL-UNNAMED -XX:UserThreadWaitAttemptsAtExit=0}"
compgen -G "$LIB/railyard-*.jar" > /dev/null || fail "no jars in $LIB: build them first with 'mvn -DskipTests package' (or set RAILYARD_LIB)"
mkdir -p "$OUT/logs"
# Compiled ranks and MPJ Express's private home: scratch, removed at the end.
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
mkdir -p "$SCRATCH/classes"
# Ranks: a small heap and no JIT tiers beyond C1, so that 128 JVMs fit a small machine.
RANK_JVM=(--enable-native-access=ALL-UNNAMED -Xmx96m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1)
"$JDK/bin/javac" -nowarn -cp "$LIB/*" -d "$SCRATCH/classes" "$ROOT/bench/startup/StartupRank.java"
RANK_CP="$SCRATCH/classes:$LIB/*"

have() { command -v "$1" > /dev/null 2>&1; }
usable=()
for l in $LAUNCHERS; do
  case "$l" in
    srun) if have srun && sinfo -h > /dev/null 2>&1; then usable+=(srun); else echo "$PROG: skipping srun: no Slurm answers (sinfo)" >&2; fi ;;
    railyard|railyard-threads) usable+=("$l") ;;
    railyard-aot|railyard-cached)
      # the JVM caches classes from jars only: the rank goes into one
      "$JDK/bin/jar" cf "$SCRATCH/startuprank.jar" -C "$SCRATCH/classes" .
      usable+=("$l") ;;
    hydra|hydra-pmi2) if have mpiexec.hydra; then usable+=("$l"); else echo "$PROG: skipping $l: no mpiexec.hydra (apt-get install mpich)" >&2; fi ;;
    ompi)
      if have mpicc.openmpi && have mpirun.openmpi && mpicc.openmpi -O2 -o "$SCRATCH/empty_mpi" "$ROOT/bench/startup/empty_mpi.c"; then
        usable+=(ompi)
      else
        echo "$PROG: skipping ompi: no Open MPI (apt-get install openmpi-bin libopenmpi-dev)" >&2
      fi ;;
    mpj)
      if [ -f /usr/share/mpj/lib/mpj.jar ] && [ -d /etc/mpj ]; then
        MPJ_HOME_DIR="$SCRATCH/mpj-home"
        rm -rf "$MPJ_HOME_DIR"; mkdir -p "$MPJ_HOME_DIR/lib" "$MPJ_HOME_DIR/logs"; cp -r /etc/mpj "$MPJ_HOME_DIR/conf"
        for j in /usr/share/mpj/lib/*-0.44.jar; do cp "$j" "$MPJ_HOME_DIR/lib/$(basename "$j" -0.44.jar).jar"; done
        for j in log4j-1.2 commons-cli commons-codec commons-io; do cp -L "/usr/share/java/$j.jar" "$MPJ_HOME_DIR/lib/$j.jar"; done
        mkdir -p "$SCRATCH/mpj-classes"
        # MPJ Express starts its ranks with the java on the PATH, which may be older than 25.
        "$JDK/bin/javac" -nowarn --release 17 -cp /usr/share/mpj/lib/mpj.jar -d "$SCRATCH/mpj-classes" "$ROOT/bench/startup/EmptyMpj.java"
        usable+=(mpj)
      else
        echo "$PROG: skipping mpj: MPJ Express is not installed (apt-get install libmpj-java)" >&2
      fi ;;
    *) fail "unknown launcher '$l' (srun railyard railyard-aot railyard-cached railyard-threads hydra hydra-pmi2 ompi mpj)" ;;
  esac
done
((${#usable[@]})) || fail "no launcher to measure"

# run_one LAUNCHER N: starts the job, its output on stdout
run_one() {
  local n=$2
  case "$1" in
    srun) timeout "$TIMEOUT" srun --mpi=pmi2 --overcommit -n "$n" "$JAVA" "${RANK_JVM[@]}" -cp "$RANK_CP" StartupRank ;;
    railyard) timeout "$TIMEOUT" "$JAVA" "${LAUNCHER_JVM[@]}" -cp "$LIB/*" org.railyard.cli.Main run -np "$n" --timeout "${TIMEOUT}s" --aot off \
                $(printf -- '--jvm-arg %s ' "${RANK_JVM[@]:1}") -cp "$SCRATCH/classes" StartupRank ;;
    railyard-aot) timeout "$TIMEOUT" "$JAVA" "${LAUNCHER_JVM[@]}" -cp "$LIB/*" org.railyard.cli.Main run -np "$n" --timeout "${TIMEOUT}s" \
                --aot "$SCRATCH/aot" $(printf -- '--jvm-arg %s ' "${RANK_JVM[@]:1}") -cp "$SCRATCH/startuprank.jar" StartupRank ;;
    railyard-cached) timeout "$TIMEOUT" "$JAVA" "${LAUNCHER_JVM[@]}" -XX:AOTCache="$SCRATCH/cli.aot" '-Xlog:aot*=off' \
                -cp "$LIB/*" org.railyard.cli.Main run -np "$n" --timeout "${TIMEOUT}s" \
                --aot "$SCRATCH/aot" $(printf -- '--jvm-arg %s ' "${RANK_JVM[@]:1}") -cp "$SCRATCH/startuprank.jar" StartupRank ;;
    railyard-threads) timeout "$TIMEOUT" "$JAVA" "${LAUNCHER_JVM[@]}" -cp "$LIB/*" org.railyard.cli.Main run -np "$n" --timeout "${TIMEOUT}s" --threads \
                -cp "$SCRATCH/classes" StartupRank ;;
    hydra) timeout "$TIMEOUT" mpiexec.hydra -n "$n" "$JAVA" "${RANK_JVM[@]}" -cp "$RANK_CP" StartupRank ;;
    hydra-pmi2) RAILYARD_PMI=2 timeout "$TIMEOUT" mpiexec.hydra -n "$n" "$JAVA" "${RANK_JVM[@]}" -cp "$RANK_CP" StartupRank ;;
    ompi) timeout "$TIMEOUT" mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" "$SCRATCH/empty_mpi" ;;
    mpj) (cd "$SCRATCH/mpj-classes" && MPJ_HOME="$MPJ_HOME_DIR" timeout "$TIMEOUT" "$JAVA" -jar "$MPJ_HOME_DIR/lib/starter.jar" \
            -np "$n" -dev multicore -cp "$SCRATCH/mpj-classes" EmptyMpj) ;;
  esac
}

now_us() { date +%s%6N; }
if [[ " ${usable[*]} " == *" railyard-aot "* ]]; then
  t0=$(now_us)
  if run_one railyard-aot 2 > "$OUT/logs/railyard-aot-training.log" 2>&1 && compgen -G "$SCRATCH/aot/*.aot" > /dev/null; then
    echo "$PROG: railyard-aot: cache trained by a 2-rank job in $(( ($(now_us) - t0) / 1000 )) ms" >&2
  else
    echo "$PROG: skipping railyard-aot: the training job kept no cache (see $OUT/logs/railyard-aot-training.log)" >&2
    kept=(); for l in "${usable[@]}"; do [ "$l" = railyard-aot ] || kept+=("$l"); done; usable=("${kept[@]}")
    ((${#usable[@]})) || fail "no launcher to measure"
  fi
fi
if [[ " ${usable[*]} " == *" railyard-cached "* ]]; then
  # the launcher's own cache, made as bin/railyard makes it (record one job, then create)
  "$JAVA" --enable-native-access=ALL-UNNAMED -XX:AOTMode=record -XX:AOTConfiguration="$SCRATCH/cli.aotconf" '-Xlog:aot*=off' \
      -XX:+UnlockDiagnosticVMOptions -XX:-DisplayVMOutput -cp "$LIB/*" org.railyard.cli.Main run -np 2 --aot off \
      -cp "$SCRATCH/startuprank.jar" StartupRank > "$OUT/logs/railyard-cached-record.log" 2>&1 || true
  "$JAVA" --enable-native-access=ALL-UNNAMED -XX:AOTMode=create -XX:AOTConfiguration="$SCRATCH/cli.aotconf" \
      -XX:AOTCache="$SCRATCH/cli.aot" '-Xlog:aot*=off' -cp "$LIB/*" >> "$OUT/logs/railyard-cached-record.log" 2>&1 || true
  if [ ! -s "$SCRATCH/cli.aot" ] || ! run_one railyard-cached 2 >> "$OUT/logs/railyard-cached-record.log" 2>&1 \
      || ! compgen -G "$SCRATCH/aot/*.aot" > /dev/null; then
    echo "$PROG: skipping railyard-cached: no launcher or rank cache made (see $OUT/logs/railyard-cached-record.log)" >&2
    kept=(); for l in "${usable[@]}"; do [ "$l" = railyard-cached ] || kept+=("$l"); done; usable=("${kept[@]}")
    ((${#usable[@]})) || fail "no launcher to measure"
  fi
fi
TSV="$OUT/startup.tsv"
printf 'round\tlauncher\tsize\tall_past_init_ms\twall_ms\tranks_seen\tpmi_init_total\tpmi_barrier_total\tprocess_median_ms\tprocess_last_ms\tinit_called_last_ms\tbootstrap_last_ms\tinit_done_last_ms\tcpu_per_rank_ms\n' > "$TSV"
for ((round = 1; round <= ROUNDS; round++)); do
  # rotate the launchers' order each round
  k=$(( (round - 1) % ${#usable[@]} ))
  order=("${usable[@]:k}" "${usable[@]:0:k}")
  for n in $SIZES; do
    for l in "${order[@]}"; do
      log="$OUT/logs/$l-$n-r$round.log"
      start=$(now_us)
      if RAILYARD_LAUNCH_US=$start RAILYARD_STARTUP_TIMING=true run_one "$l" "$n" > "$log" 2>&1; then status=ok; else status="exit $?"; fi
      end=$(now_us)
      line=$(awk -v start="$start" -v end="$end" -v n="$n" '
        /STARTUP rank=/ {
          for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
          seen++; if (v["init_us"] > last) last = v["init_us"]; pi += v["pmi_init"]; pb += v["pmi_barrier"]
        }
        /railyard startup: rank / {
          s = $0; sub(/.*ms from launch: /, "", s); sub(/; cpu .*/, "", s); gsub(/[a-z ]+/, " ", s); split(s, t, "[ ,]+")
          c = $0; sub(/.*; cpu /, "", c); cpu += c
          # t[2..5]: process, init called, bootstrap, init done (t[1] is empty)
          proc[++staged] = t[2] + 0
          for (k = 2; k <= 5; k++) if (t[k] + 0 > stage[k]) stage[k] = t[k] + 0
        }
        END {
          for (i = 1; i <= staged; i++) for (j = i + 1; j <= staged; j++) if (proc[j] < proc[i]) { x = proc[i]; proc[i] = proc[j]; proc[j] = x }
          med = staged ? proc[int((staged + 1) / 2)] : -1
          printf "%.1f\t%.1f\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f", seen == n ? (last - start) / 1000 : -1, (end - start) / 1000,
            seen, pi, pb, med, staged ? stage[2] : -1, staged ? stage[3] : -1, staged ? stage[4] : -1, staged ? stage[5] : -1, staged ? cpu / staged : -1 }' "$log")
      printf '%d\t%s\t%d\t%s\n' "$round" "$l" "$n" "$line" >> "$TSV"
      if [ "$status" != ok ]; then echo "$PROG: $l at $n ranks: $status (see $log)" >&2; fi
      printf '%s\n' "round $round $l n=$n: $(echo "$line" | cut -f1,2) ms" >&2
    done
  done
done

# Medians per launcher and size; ratio of the time to every rank past init to Open MPI's.
SUMMARY="$OUT/summary.tsv"
awk -F'\t' 'NR > 1 && $4 >= 0 { key = $2 "\t" $3; v[key] = v[key] " " $4; w[key] = w[key] " " $5; pi[key] = $7; pb[key] = $8
    for (c = 10; c <= 14; c++) st[key, c] = st[key, c] " " $c }
  function median(s,   a, n, i, j, t) { n = split(s, a, " ");
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  END {
    for (k in v) { m[k] = median(v[k]); split(k, p, "\t"); if (p[1] == "ompi") ref[p[2]] = m[k] }
    print "launcher\tsize\tmedian_all_past_init_ms\tmedian_wall_ms\tratio_to_ompi\tpmi_requests_per_rank_init\tpmi_requests_per_rank_barrier\tlast_process_ms\tlast_init_called_ms\tlast_bootstrap_ms\tlast_init_done_ms\tcpu_per_rank_ms"
    for (k in v) { split(k, p, "\t");
      printf "%s\t%s\t%.1f\t%.1f\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\n", p[1], p[2], m[k], median(w[k]),
        (p[2] in ref && ref[p[2]] > 0) ? sprintf("%.2f", m[k] / ref[p[2]]) : "-", pi[k] / p[2], pb[k] / p[2],
        median(st[k, 10]), median(st[k, 11]), median(st[k, 12]), median(st[k, 13]), median(st[k, 14]) }
  }' "$TSV" | (read -r header; echo "$header"; sort -t$'\t' -k2,2n -k1,1) > "$SUMMARY"
column -t -s$'\t' "$SUMMARY"
echo "$PROG: every measurement in $TSV, medians in $SUMMARY" >&2
