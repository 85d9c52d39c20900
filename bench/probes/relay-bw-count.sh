#!/bin/sh
# What a relayed bulk stream costs per MiB, by count rather than by time: a relay process (log off,
# or on tmpfs with batch fsync) and `railyard bench bw --np 2 --transports relay`, with `perf stat`
# on the relay process and on the bench command (launcher and both ranks, start-up included) for
# the whole run: system calls entered, context switches and CPU time, divided by the MiB the relay
# stored (its stored_bytes counter). With TRANSPORT=tcp the same bench runs direct (no relay), per
# MiB sent. Needs perf (root). No code of the library changes.
# Usage: [TRANSPORT=relay|tcp] [LOG=off|tmpfs] bench/probes/relay-bw-count.sh LIBDIR [SIZE] [ITERS]
set -eu
LIB=$1; SIZE=${2:-1m}; ITERS=${3:-20}
TRANSPORT=${TRANSPORT:-relay}; LOG=${LOG:-off}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
export RAILYARD_AOT=off
tmp=$(mktemp -d /tmp/relay-bw-count.XXXXXX)
rp=""
trap '[ -z "$rp" ] || kill $rp 2>/dev/null || true; rm -rf "$tmp" /dev/shm/"$(basename "$tmp")"' EXIT INT TERM
env=""
if [ "$TRANSPORT" = relay ]; then
    opts=""
    if [ "$LOG" = tmpfs ]; then mkdir -p /dev/shm/"$(basename "$tmp")"; opts="--log /dev/shm/$(basename "$tmp") --fsync batch"; fi
    # shellcheck disable=SC2086
    "$JAVA" -Xmx1g -cp "$LIB/*" org.railyard.relay.RelayCommand --port 0 --bind 127.0.0.1 --max-bytes 2g $opts > "$tmp/relay" 2>&1 &
    rp=$!
    i=0
    until grep -q "listening on" "$tmp/relay" 2>/dev/null; do i=$((i+1)); [ $i -lt 600 ] || { echo "relay did not start" >&2; exit 1; }; sleep 0.1; done
    PORT=$(sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$tmp/relay" | head -1)
    perf stat -x, -o "$tmp/perf-relay" -e raw_syscalls:sys_enter,context-switches,task-clock -p $rp &
    pp=$!
    sleep 0.5 # perf attached before the first rank connects
    env="--env RAILYARD_RELAYS=127.0.0.1:$PORT"
fi
# shellcheck disable=SC2086
perf stat -x, -o "$tmp/perf-ranks" -e raw_syscalls:sys_enter,context-switches,task-clock \
    "$JAVA" -cp "$LIB/*" org.railyard.cli.Main bench bw --np 2 --sizes "$SIZE" --iters "$ITERS" --transports "$TRANSPORT" \
    $env > "$tmp/bench" 2>&1
mbs=$(awk -F'\t' '$1=="bw"{print $NF}' "$tmp/bench")
if [ "$TRANSPORT" = relay ]; then
    "$JAVA" -cp "$LIB/*" org.railyard.relay.RelayCommand --stats 127.0.0.1:$PORT > "$tmp/stats" 2>&1
    kill -INT $pp; wait $pp 2>/dev/null || true
    mib=$(awk '$1=="stored_bytes"{printf "%.1f", $2/1048576}' "$tmp/stats")
else
    # direct: the bytes the benchmark sent (its row: bytes, iterations; window 64 a timed iteration, plus its warm-up)
    mib=$(awk -F'\t' '$1=="bw"{printf "%.1f", $4*$5*64/1048576}' "$tmp/bench")
    : > "$tmp/perf-relay"
fi
per() { awk -F, -v m="$mib" '$3=="raw_syscalls:sys_enter"{s=$1} $3=="context-switches"{c=$1} $3=="task-clock"{t=$1}
    END{if (t) printf "syscalls/MiB %.1f\tcswitch/MiB %.1f\tcpu_ms/MiB %.2f", s/m, c/m, t/m; else printf "-"}' "$1"; }
printf "%s log %s size %s\tMiB %s\tMB/s %s\trelay: %s\tbench (launcher+ranks): %s\tload %s\n" "$TRANSPORT" "$LOG" "$SIZE" "$mib" \
    "$mbs" "$(per "$tmp/perf-relay")" "$(per "$tmp/perf-ranks")" "$(cut -d' ' -f1 /proc/loadavg)"
