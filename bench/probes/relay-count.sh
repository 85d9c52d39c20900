#!/bin/sh
# What one relayed 8 B ping-pong message costs the relay process, by count rather than by time: a
# relay process and `railyard bench latency --np 2 --sizes 8 --transports relay`, with `perf stat`
# on the relay for the whole run (system calls entered, context switches, CPU time), divided by the
# messages it stored. Counts move far less with the machine's load than latencies do. Needs perf
# (root, or perf_event_paranoid <= 0 for tracepoints). No code of the library changes.
# Usage: bench/probes/relay-count.sh LIBDIR [ITERS]   (LIBDIR: railyard-cli/target/lib after package)
set -eu
LIB=$1; ITERS=${2:-3000}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
export RAILYARD_AOT=off
tmp=$(mktemp -d /tmp/relay-count.XXXXXX)
"$JAVA" -Xmx1g -cp "$LIB/*" org.railyard.relay.RelayCommand --port 0 --bind 127.0.0.1 --max-bytes 2g > "$tmp/relay" 2>&1 &
rp=$!
trap 'kill $rp 2>/dev/null || true; rm -rf "$tmp"' EXIT INT TERM
i=0
until grep -q "listening on" "$tmp/relay"; do i=$((i+1)); [ $i -lt 600 ] || { echo "relay did not start" >&2; exit 1; }; sleep 0.1; done
PORT=$(sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$tmp/relay" | head -1)
perf stat -x, -o "$tmp/perf" -e raw_syscalls:sys_enter,context-switches,task-clock -p $rp &
pp=$!
sleep 0.5 # perf attached before the first rank connects
"$JAVA" -cp "$LIB/*" org.railyard.cli.Main bench latency --np 2 --sizes 8 --iters "$ITERS" --transports relay \
    --env RAILYARD_RELAYS=127.0.0.1:$PORT > "$tmp/bench" 2>&1
"$JAVA" -cp "$LIB/*" org.railyard.relay.RelayCommand --stats 127.0.0.1:$PORT > "$tmp/stats" 2>&1
kill -INT $pp; wait $pp 2>/dev/null || true
msgs=$(sed -n 's/^stored //p' "$tmp/stats")
p50=$(awk -F'\t' '$1=="latency"{print $7}' "$tmp/bench")
awk -F, -v m="$msgs" -v p50="$p50" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
    $3=="raw_syscalls:sys_enter"{s=$1} $3=="context-switches"{c=$1} $3=="task-clock"{t=$1}
    END{printf "messages %d\tsyscalls/msg %.2f\tcswitch/msg %.2f\tcpu_us/msg %.1f\tp50_us %s\tload %s\n", m, s/m, c/m, t*1000/m, p50, load}' "$tmp/perf"
