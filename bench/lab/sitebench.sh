#!/usr/bin/env bash
# bench/lab/sitebench.sh: site-aware against flat collectives over the emulated WAN (issue 23):
# 8 ranks over 2 sites (4 + 4) of bench/lab/wanlab.sh, ranks talking tcp straight across the WAN,
# allreduce of 8 B and bcast of 1 MiB, each in alternating rounds of site-aware and flat
# (org.railyard.systest.lab.SiteBench). Root.
#
#   bench/lab/sitebench.sh [-d DELAY_MS] [-r RATE_MBIT] [-l LOSS_PERCENT] [--rounds N] [--ops N] [--counts-only]
#
# Defaults: 10 ms one way, 200 Mbit/s, no loss, 20 rounds (10 each way) of 10 ops. Output goes to
# stdout and to bench/lab/results/sitebench.txt (appended), with the load average of the machine.
# After the timed runs, each algorithm runs alone in a job of its own while wanem counts the
# frames and bytes that cross the WAN (less those of a job that runs no collective). STLAB_ID and
# STLAB_DIR name the lab as for wanlab.sh; SITEBENCH_OUT replaces the results file.
set -euo pipefail

here=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")
repo=$(cd -- "$here/../.." && pwd -P)
id=${STLAB_ID:-}
dir=${STLAB_DIR:-/tmp/stlab$id}
export STLAB_DIR=$dir
out=${SITEBENCH_OUT:-$here/results/sitebench.txt}
delay=10 rate=200 loss=0 rounds=20 ops=10 counts_only=
while (($#)); do
    case $1 in
        -d) delay=$2; shift 2 ;;
        -r) rate=$2; shift 2 ;;
        -l) loss=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --ops) ops=$2; shift 2 ;;
        --counts-only) counts_only=1; shift ;;
        *) echo "sitebench: unknown option $1" >&2; exit 2 ;;
    esac
done

export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
if [[ -z ${SITEBENCH_NO_BUILD:-} ]]; then
    (cd "$repo" && mvn -B -o -q -DskipTests package && mvn -B -o -q -pl railyard-tests -am test-compile)
fi
cp="$repo/railyard-cli/target/lib/*:$repo/railyard-tests/target/test-classes"
java=$JAVA_HOME/bin/java

"$here/wanlab.sh" up -d "$delay" -r "$rate" -l "$loss"
trap '"$here/wanlab.sh" down' EXIT
mkdir -p "$dir" "$(dirname "$out")"
"$here/wanrsh.sh" "$dir/rsh"
printf 'sts0%s slots=4\nsts1%s slots=4\n' "$id" "$id" >"$dir/hosts"

job() {
    ip netns exec "sts0$id" "$java" --sun-misc-unsafe-memory-access=allow -Drailyard.launcher.host=10.77.0.1 -cp "$cp" \
        org.railyard.cli.Main run -np 8 --hosts "$dir/hosts" --rsh "$dir/rsh" --transports tcp --timeout 900s \
        --env RAILYARD_RAIL_NETS=10.77.0.0/24 --classpath "$cp" --jvm-arg=-Xmx256m --jvm-arg=-XX:+UseSerialGC \
        org.railyard.systest.lab.SiteBench "$@"
}

frames() {
    "$here/wanlab.sh" counters | awk '{ f += $4; b += substr($6, 2) } END { print f, b }'
}

{
    echo "## $(date -u +%Y-%m-%dT%H:%MZ) bench/lab/sitebench.sh -d $delay -r $rate -l $loss --rounds $rounds --ops $ops${counts_only:+ --counts-only}"
    echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores (other work on the machine shows in the numbers)"
    head -1 "$dir/wanem.log"
    for spec in "allreduce 8" "bcast 1048576"; do
        [[ -n $counts_only ]] && break
        echo "\$ SiteBench $spec $rounds $ops"
        # shellcheck disable=SC2086
        job $spec "$rounds" "$ops" 2>&1 | grep -E "^\[0\] (round|RESULT)|rror|FAIL" | sed 's/^\[0\] //'
    done
    # what crosses the WAN: frames and bytes (both directions, Ethernet) of a job of N operations of
    # one algorithm, less those of a job that runs none (bootstrap, connections, barriers)
    count=$((rounds * ops))
    for spec in "allreduce 8" "bcast 1048576"; do
        declare -A got=()
        for mode in none site-aware flat; do
            read -r f0 b0 < <(frames)
            # shellcheck disable=SC2086
            job $spec "$rounds" "$ops" "$mode" 2>&1 | grep -E "rror|FAIL|SiteBench|usage" || true
            read -r f1 b1 < <(frames)
            got[$mode]="$((f1 - f0)) $((b1 - b0))"
        done
        read -r nf nb <<<"${got[none]}"
        for mode in site-aware flat; do
            read -r f b <<<"${got[$mode]}"
            awk -v m="$mode" -v s="$spec" -v n="$count" -v f="$((f - nf))" -v b="$((b - nb))" 'BEGIN {
                printf "WAN %s %s B: %.1f frames, %.0f bytes per operation (%d operations)\n", m, s, f / n, b / n, n }'
        done
    done
} | tee -a "$out"
