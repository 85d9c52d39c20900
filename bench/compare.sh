#!/usr/bin/env bash
# Railyard against native and Java MPI on this machine, with one method (bench/README.md):
#   Open MPI C over shared memory (btl vader) and TCP (btl tcp), MPJ Express 0.44 (multicore and
#   niodev devices), Railyard (shm and tcp transports, and the mpiJava peer on Railyard's `mpi`
#   facade over shm). Prints one table with 8 B latency and 1 MiB / 4 MiB bandwidth for each, the
#   ratios of Railyard to each peer, and the project's targets.
#
# Usage: bench/compare.sh [--repeat N] [--stat median|best] [--lat-iters N] [--only LIST] [--out DIR] [--full]
#   --repeat N   run every measurement N times (default 3)
#   --stat S     how the runs combine: median (default), or best (lowest latency, highest
#                bandwidth: the machine's capability when other processes disturb some runs)
#   --lat-iters N  round trips of the 8 B latency test in every program (default 10000; fewer
#                keep a run short when the machine is busy and spinning peers crawl)
#   --only LIST  comma-separated subset of: ompi-vader,ompi-tcp,mpj-multicore,mpj-niodev,railyard-shm,railyard-tcp,
#                railyard-mpijava
#   --out DIR    where builds, raw TSV and the table go (default bench/out/compare-<time>)
#   --full       also run every benchmark over 1 B..4 MiB for each implementation (raw TSV only)
#
# Needs (Debian packages): openmpi-bin and libopenmpi-dev (mpicc/mpirun for Open MPI), libmpj-java
# (MPJ Express), liblog4j1.2-java, libcommons-cli-java, libcommons-codec-java, libcommons-io-java
# (MPJ Express's runtime), a JDK for javac, and a JDK 25 plus a built Railyard (mvn install) for
# bin/railyard (railyard-mpijava also compiles RyPeer with that JDK's javac).
set -euo pipefail
# Railyard's ahead-of-time cache stays off unless RAILYARD_AOT is set: with the launcher's default
# (auto) a program's second job trains the cache, and that job would fall into one round.
export RAILYARD_AOT="${RAILYARD_AOT:-off}"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# ---------------------------------------------------------------- helpers, shared with compare-coll.sh
# bench/compare-coll.sh sources this file, which then stops at the end of this part. PROG names the
# script in messages.
PROG=${PROG:-compare.sh}
fail() { echo "$PROG: $*" >&2; exit 1; }
need_file() { [ -e "$1" ] || fail "$1 is missing: install the Debian package $2 (apt-get install $2)"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || fail "'$1' not found: install the Debian package $2 (apt-get install $2)"; }

need_openmpi() {
  need_cmd mpirun.openmpi openmpi-bin
  need_cmd mpicc.openmpi openmpi-bin
  need_file /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h libopenmpi-dev
  mpirun.openmpi --version 2>&1 | grep -q "OpenRTE\|Open MPI" || fail "mpirun.openmpi does not run: reinstall openmpi-bin"
}

need_mpj() {
  need_cmd java default-jre-headless
  need_cmd javac default-jdk-headless
  need_file /usr/share/mpj/lib/mpj.jar libmpj-java
  need_file /usr/share/mpj/lib/starter.jar libmpj-java
  need_file /usr/share/java/log4j-1.2.jar liblog4j1.2-java
  need_file /usr/share/java/commons-cli.jar libcommons-cli-java
  need_file /usr/share/java/commons-codec.jar libcommons-codec-java
  need_file /usr/share/java/commons-io.jar libcommons-io-java
}

need_railyard() {
  [ -x "$ROOT/bin/railyard" ] || fail "$ROOT/bin/railyard is missing: this checkout has no Railyard launcher script"
}

# make_mpj_home DIR: MPJ Express's starter and daemon find their jars through MPJ_HOME and their
# manifests' Class-Path (log4j, commons-*), which Debian's /usr/share/mpj lacks: lay out a private
# MPJ_HOME with real copies (a jar's Class-Path resolves against its real location).
make_mpj_home() {
  rm -rf "$1"
  mkdir -p "$1/lib" "$1/logs"
  cp -r /etc/mpj "$1/conf"
  for j in /usr/share/mpj/lib/*-0.44.jar; do cp "$j" "$1/lib/$(basename "$j" -0.44.jar).jar"; done
  for j in log4j-1.2 commons-cli commons-codec commons-io; do cp -L "/usr/share/java/$j.jar" "$1/lib/$j.jar"; done
}

# build_railyard: bin/railyard builds the project when sources changed: do it now, outside any measurement.
build_railyard() {
  "$ROOT/bin/railyard" run --help > /dev/null || fail "bin/railyard does not run (see above); build with mvn -DskipTests install"
}

# compile_on_facade DIR SOURCE...: compiles mpiJava programs against Railyard's `mpi` facade (the jar
# bin/railyard puts on every rank's class path) with the JDK bin/railyard uses; after build_railyard.
compile_on_facade() {
  local dir=$1 jdk jar
  shift
  # shellcheck source=bin/jdk.sh
  source "$ROOT/bin/jdk.sh"
  jdk=$(find_jdk) || fail "no JDK 25 or newer: install one (apt-get install temurin-25-jdk or openjdk-25-jdk)"
  jar=$(compgen -G "$ROOT/railyard-cli/target/lib/railyard-mpijava-*.jar" | head -n 1) \
    || fail "railyard-cli/target/lib has no railyard-mpijava jar: build with mvn -DskipTests install"
  mkdir -p "$dir"
  "$jdk/bin/javac" -nowarn -cp "$jar" -d "$dir" "$@"
}

# Result lines of the TSV format (bench/README.md), without the "[rank] " prefix of `railyard run`;
# status lines of the launchers go.
tsv_only() { sed 's/^\[[0-9]*\] //' | awk -F'\t' 'NF >= 10'; }

# awk: put(key, v) collects the runs of a measure, combine(key, higher_is_better) gives their median,
# or with stat=best the best run; -1 when there is none.
AWK_COMBINE='
function combine(key, higher,   n, i, j, t, a) {
  n = cnt[key]; if (n == 0) return -1
  for (i = 1; i <= n; i++) a[i] = val[key, i]
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  if (stat == "best") return higher ? a[n] : a[1]
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function put(key, v) { cnt[key]++; val[key, cnt[key]] = v }
'

if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then return 0; fi
# ---------------------------------------------------------------- end of the shared part

REPEAT=3
STAT=median
LAT_ITERS=""
ONLY="ompi-vader,ompi-tcp,mpj-multicore,mpj-niodev,railyard-shm,railyard-tcp,railyard-mpijava"
OUT=""
FULL=0
STEP_TIMEOUT=${STEP_TIMEOUT:-600}

while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) REPEAT="$2"; shift 2 ;;
    --stat) STAT="$2"; shift 2 ;;
    --lat-iters) LAT_ITERS="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --full) FULL=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
case "$REPEAT" in ''|*[!0-9]*|0) echo "compare.sh: --repeat needs a positive number" >&2; exit 2 ;; esac
case "$LAT_ITERS" in ''|[1-9]*) ;; *) echo "compare.sh: --lat-iters needs a positive number" >&2; exit 2 ;; esac
case "$STAT" in median|best) ;; *) echo "compare.sh: --stat is median or best" >&2; exit 2 ;; esac
[ -n "$OUT" ] || OUT="$ROOT/bench/out/compare-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

want() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# ---------------------------------------------------------------- prerequisites, before anything runs
if want ompi-vader || want ompi-tcp; then need_openmpi; fi
if want mpj-multicore || want mpj-niodev; then need_mpj; fi
if want railyard-shm || want railyard-tcp || want railyard-mpijava; then need_railyard; fi

echo "compare.sh: results in $OUT ($STAT of $REPEAT runs)" >&2

# ---------------------------------------------------------------- build the peers
if want ompi-vader || want ompi-tcp; then
  mpicc.openmpi -O2 -o "$OUT/ry_peer" "$ROOT/bench/peers/c/ry_peer.c"
fi
MPJ_HOME_DIR="$OUT/mpj-home"
if want mpj-multicore || want mpj-niodev; then
  mkdir -p "$OUT/mpj-classes"
  javac -nowarn -cp /usr/share/mpj/lib/mpj.jar -d "$OUT/mpj-classes" "$ROOT/bench/peers/mpijava/RyPeer.java"
  make_mpj_home "$MPJ_HOME_DIR"
fi

# ---------------------------------------------------------------- runners (each prints TSV on stdout)
DAEMON_PID=""
cleanup() {
  if [ -n "$DAEMON_PID" ]; then kill "$DAEMON_PID" 2>/dev/null || true; wait "$DAEMON_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

iters_for() { if [ "$1" = latency ] && [ -n "$LAT_ITERS" ]; then echo "--iters $LAT_ITERS"; fi; }

run_ompi() { # btl transport-label bench sizes
  timeout "$STEP_TIMEOUT" mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 --mca btl "self,$1" \
    "$OUT/ry_peer" "$3" --sizes "$4" --transport "$2" $(iters_for "$3") | tsv_only
}

run_mpj() { # device bench sizes
  local dev_args=(-dev "$1")
  if [ "$1" = niodev ]; then dev_args+=(-machinesfile "$OUT/mpj-machines"); fi
  (cd "$OUT/mpj-classes" && MPJ_HOME="$MPJ_HOME_DIR" timeout "$STEP_TIMEOUT" java -jar "$MPJ_HOME_DIR/lib/starter.jar" \
    -np 2 "${dev_args[@]}" -cp "$OUT/mpj-classes" RyPeer "$2" --sizes "$3" --transport "$1" $(iters_for "$2")) | tsv_only
}

start_mpj_daemon() {
  local port
  port=$(sed -n 's/^mpjexpress.mpjdaemon.port.1=//p' "$MPJ_HOME_DIR/conf/mpjexpress.conf")
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    fail "port $port (MPJ Express daemon) is already in use; stop the other daemon (mpjhalt) or free the port"
  fi
  echo localhost > "$OUT/mpj-machines"
  MPJ_HOME="$MPJ_HOME_DIR" java -jar "$MPJ_HOME_DIR/lib/daemon.jar" "$port" > "$OUT/mpj-daemon.log" 2>&1 &
  DAEMON_PID=$!
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    kill -0 "$DAEMON_PID" 2>/dev/null || fail "MPJ Express daemon exited at start; see $OUT/mpj-daemon.log"
    sleep 0.1
  done
  fail "MPJ Express daemon did not listen on port $port within 10 s; see $OUT/mpj-daemon.log"
}

run_railyard() { # transport bench sizes
  timeout "$STEP_TIMEOUT" "$ROOT/bin/railyard" bench "$2" --np 2 --transports "$1" --sizes "$3" $(iters_for "$2") | tsv_only
}

run_railyard_mpijava() { # bench sizes: the mpiJava peer, unchanged, on Railyard's mpi facade over shm
  timeout "$STEP_TIMEOUT" "$ROOT/bin/railyard" run -np 2 --transports shm -cp "$OUT/ry-classes" \
    RyPeer "$1" --sizes "$2" --transport shm $(iters_for "$1") | tsv_only
}

# run_impl NAME BENCH SIZES: one measurement of an implementation
run_impl() {
  case "$1" in
    ompi-vader) run_ompi vader vader "$2" "$3" ;;
    ompi-tcp) run_ompi tcp tcp "$2" "$3" ;;
    mpj-multicore) run_mpj multicore "$2" "$3" ;;
    mpj-niodev) run_mpj niodev "$2" "$3" ;;
    railyard-shm) run_railyard shm "$2" "$3" ;;
    railyard-tcp) run_railyard tcp "$2" "$3" ;;
    railyard-mpijava) run_railyard_mpijava "$2" "$3" ;;
  esac
}

if want railyard-shm || want railyard-tcp || want railyard-mpijava; then build_railyard; fi
if want railyard-mpijava; then compile_on_facade "$OUT/ry-classes" "$ROOT/bench/peers/mpijava/RyPeer.java"; fi
if want mpj-niodev; then start_mpj_daemon; fi
echo "compare.sh: load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2

RAW="$OUT/raw.tsv"
: > "$RAW"
IMPLS=()
for impl in ompi-vader ompi-tcp mpj-multicore mpj-niodev railyard-shm railyard-tcp railyard-mpijava; do
  if want "$impl"; then IMPLS+=("$impl"); fi
done
# Rounds of every implementation in turn, so that a disturbance of the machine falls on all of
# them alike rather than on whichever ran at that moment.
for r in $(seq 1 "$REPEAT"); do
  for impl in "${IMPLS[@]}"; do
    echo "compare.sh: round $r/$REPEAT: $impl (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    for spec in "latency 8" "bw 1m,4m"; do
      set -- $spec
      out=$(run_impl "$impl" "$1" "$2") || fail "$impl $1 failed (exit $?); rerun it alone to see its output"
      [ -n "$out" ] || fail "$impl $1 printed no result line"
      printf '%s\n' "$out" | awk -F'\t' -v impl="$impl" -v run="$r" '$1 != "benchmark" { print impl "\t" run "\t" $0 }' >> "$RAW"
    done
  done
done
if [ "$FULL" = 1 ]; then
  for impl in "${IMPLS[@]}"; do
    echo "compare.sh: $impl full sweep" >&2
    run_impl "$impl" all 1:4m > "$OUT/full-$impl.tsv" || fail "$impl full sweep failed"
  done
fi

# ---------------------------------------------------------------- the table
# raw.tsv: impl run benchmark transport np bytes iterations mean_us p50_us p99_us max_us MB_s
awk -F'\t' -v order="${IMPLS[*]}" -v stat="$STAT" "$AWK_COMBINE"'
$3 == "latency" && $6 == 8 { put($1 SUBSEP "lat", $8); put($1 SUBSEP "p50", $9) }
$3 == "bw" && $6 == 1048576 { put($1 SUBSEP "bw1", $12) }
$3 == "bw" && $6 == 4194304 { put($1 SUBSEP "bw4", $12) }
function cell(v, fmt) { return v < 0 ? "-" : sprintf(fmt, v) }
function ratio(a, b) { return (a < 0 || b <= 0) ? "-" : sprintf("%.2f", a / b) }
function target(name, ok, detail) { printf "  %-46s %s  %s\n", name, ok ? "MET " : "MISS", detail }
END {
  n = split(order, impl, " ")
  for (i = 1; i <= n; i++) { lat[impl[i]] = combine(impl[i] SUBSEP "lat", 0); b1[impl[i]] = combine(impl[i] SUBSEP "bw1", 1); b4[impl[i]] = combine(impl[i] SUBSEP "bw4", 1); p50[impl[i]] = combine(impl[i] SUBSEP "p50", 0) }
  printf "%s of the runs; latency: mean (and median) of half round trips\n", stat
  printf "%-17s %14s %14s %16s %16s\n", "implementation", "lat 8B (us)", "lat 8B p50", "bw 1MiB (MB/s)", "bw 4MiB (MB/s)"
  for (i = 1; i <= n; i++) printf "%-17s %14s %14s %16s %16s\n", impl[i], cell(lat[impl[i]], "%.3f"), cell(p50[impl[i]], "%.3f"), cell(b1[impl[i]], "%.1f"), cell(b4[impl[i]], "%.1f")
  for (r = 1; r <= n; r++) {
    if (impl[r] !~ /^railyard/) continue
    printf "\n%s relative to each peer (latency: Railyard/peer, lower is better; bandwidth: Railyard/peer, higher is better)\n", impl[r]
    printf "%-17s %14s %16s %16s\n", "peer", "lat ratio", "bw 1MiB ratio", "bw 4MiB ratio"
    for (i = 1; i <= n; i++) {
      if (impl[i] ~ /^railyard/) continue
      printf "%-17s %14s %16s %16s\n", impl[i], ratio(lat[impl[r]], lat[impl[i]]), ratio(b1[impl[r]], b1[impl[i]]), ratio(b4[impl[r]], b4[impl[i]])
    }
  }
  printf "\ntargets\n"
  s = "railyard-shm"; t = "railyard-tcp"; v = "ompi-vader"; c = "ompi-tcp"
  if (lat[s] > 0 && lat[v] > 0) target("shm 8B latency <= 2x Open MPI vader", lat[s] <= 2 * lat[v], sprintf("%.2fx (limit 2x)", lat[s] / lat[v]))
  if (lat[t] > 0 && lat[c] > 0) target("tcp 8B latency <= Open MPI tcp", lat[t] <= lat[c], sprintf("%.2fx (limit 1x)", lat[t] / lat[c]))
  if (b1[s] > 0 && b1[v] > 0) target("shm bw 1MiB >= 60% of Open MPI vader", b1[s] >= 0.6 * b1[v], sprintf("%.0f%%", 100 * b1[s] / b1[v]))
  if (b4[s] > 0 && b4[v] > 0) target("shm bw 4MiB >= 60% of Open MPI vader", b4[s] >= 0.6 * b4[v], sprintf("%.0f%%", 100 * b4[s] / b4[v]))
  if (b1[t] > 0 && b1[c] > 0) target("tcp bw 1MiB >= 80% of Open MPI tcp", b1[t] >= 0.8 * b1[c], sprintf("%.0f%%", 100 * b1[t] / b1[c]))
  if (b4[t] > 0 && b4[c] > 0) target("tcp bw 4MiB >= 80% of Open MPI tcp", b4[t] >= 0.8 * b4[c], sprintf("%.0f%%", 100 * b4[t] / b4[c]))
  # like for like: shared memory against MPJ multicore, TCP against MPJ niodev, and the mpiJava
  # peer on both (the facade, over shm, against the multicore device)
  split("mpj-multicore mpj-niodev mpj-multicore", mpj, " ")
  split("railyard-shm railyard-tcp railyard-mpijava", ry, " ")
  for (a = 1; a <= 3; a++) {
    x = ry[a]; p = mpj[a]
    if (lat[x] > 0 && lat[p] > 0) target(x " beats " p ": latency", lat[x] < lat[p], sprintf("%.3f vs %.3f us", lat[x], lat[p]))
    if (b1[x] > 0 && b1[p] > 0) target(x " beats " p ": bw 1MiB", b1[x] > b1[p], sprintf("%.0f vs %.0f MB/s", b1[x], b1[p]))
    if (b4[x] > 0 && b4[p] > 0) target(x " beats " p ": bw 4MiB", b4[x] > b4[p], sprintf("%.0f vs %.0f MB/s", b4[x], b4[p]))
  }
}' "$RAW" | tee "$OUT/table.txt"
