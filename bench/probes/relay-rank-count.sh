#!/bin/sh
# What one relayed 8 B ping-pong message costs each RANK process, by count rather than by time, per
# thread: a relay process and `railyard bench latency --np 2 --sizes 8 --transports relay`; after
# DELAY seconds (past warm-up and the JIT's settling) `perf stat --per-thread` on both ranks for
# WINDOW seconds (system calls entered, context switches, CPU time), divided by the messages the
# relay stored meanwhile (its `stored` counter before and after; each message is one way of a
# ping-pong, so each rank sends half of them and receives the other half). Rows: one per thread
# name (summed over both ranks; JIT and GC threads folded into "jvm"; names from jcmd Thread.print, the relay address cut off), then the total. Needs perf
# (root, or perf_event_paranoid <= 0). No code of the library changes.
# With BENCH=bw (SIZE, default 1m) the ranks run a bulk stream instead (`bench bw`) and the counts
# are per MiB the relay stored (its stored_bytes counter), not per message.
# Usage: [BENCH=latency|bw] [SIZE=1m] bench/probes/relay-rank-count.sh LIBDIR [DELAY_S] [WINDOW_S]   (LIBDIR: railyard-cli/target/lib)
set -eu
LIB=$1; DELAY=${2:-20}; WINDOW=${3:-5}
BENCH=${BENCH:-latency}
if [ "$BENCH" = latency ]; then SIZE=${SIZE:-8}; else SIZE=${SIZE:-1m}; fi
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
export RAILYARD_AOT=off
tmp=$(mktemp -d /tmp/relay-rank-count.XXXXXX)
"$JAVA" -Xmx1g -cp "$LIB/*" org.railyard.relay.RelayCommand --port 0 --bind 127.0.0.1 --max-bytes 2g > "$tmp/relay" 2>&1 &
rp=$!
bp=""
trap 'kill $rp $bp 2>/dev/null || true; rm -rf "$tmp"' EXIT INT TERM
i=0
until grep -q "listening on" "$tmp/relay"; do i=$((i+1)); [ $i -lt 600 ] || { echo "relay did not start" >&2; exit 1; }; sleep 0.1; done
PORT=$(sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$tmp/relay" | head -1)
"$JAVA" -cp "$LIB/*" org.railyard.cli.Main bench "$BENCH" --np 2 --sizes "$SIZE" --iters 2000000 --transports relay \
    --env RAILYARD_RELAYS=127.0.0.1:$PORT > "$tmp/bench" 2>&1 &
bp=$!
sleep "$DELAY"
RANKS=$(pgrep -P $bp | tr '\n' ',' | sed 's/,$//')
[ -n "$RANKS" ] || { echo "no rank processes under $bp" >&2; cat "$tmp/bench" >&2; exit 1; }
UNIT=msg; COUNTER=stored
[ "$BENCH" = latency ] || { UNIT=MiB; COUNTER=stored_bytes; }
stored() { "$JAVA" -cp "$LIB/*" org.railyard.relay.RelayCommand --stats 127.0.0.1:$PORT | sed -n "s/^$COUNTER //p"; }
for p in $(echo "$RANKS" | tr ',' ' '); do  # native thread id -> full Java thread name (comm is cut at 15 bytes)
    "$(dirname "$JAVA")/jcmd" "$p" Thread.print 2>/dev/null | sed -n 's/^"\([^"]*\)".* nid=\([0-9]*\) .*/\2,\1/p'
done > "$tmp/names"
s0=$(stored)
perf stat --per-thread -x, -o "$tmp/perf" -e raw_syscalls:sys_enter,context-switches,task-clock -p "$RANKS" -- sleep "$WINDOW"
s1=$(stored)
for p in $(echo "$RANKS" | tr ',' ' '); do kill "$p" 2>/dev/null || true; done
[ "$UNIT" = msg ] && m=$((s1 - s0)) || m=$(awk -v d=$((s1 - s0)) 'BEGIN{printf "%.3f", d/1048576}')
awk -F, -v m="$m" -v u="$UNIT" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
    FILENAME ~ /names$/ { n = $2; gsub(/[0-9.:\/]+$/, "", n); full[$1] = n; next }
    NF >= 4 && $1 !~ /^#/ {
        name = $1; tid = name; sub(/^.*-/, "", tid); sub(/-[0-9]+$/, "", name)   # perf writes comm-tid
        if (tid in full) name = full[tid]
        if (name ~ /^(C[12] CompilerThre|GC Thread|G1 |VM |Common-Cleaner|Reference Han|Finalizer|Signal Disp|Service Thre|Monitor Def|Notification|Attach|Sweeper|Cleaner|process reaper)/) name = "jvm"
        v = $2; if (v == "<not counted>" || v == "") v = 0
        if ($4 == "raw_syscalls:sys_enter") s[name] += v
        else if ($4 == "context-switches") c[name] += v
        else if ($4 == "task-clock") t[name] += v
        names[name] = 1
    }
    END {
        printf "%s %s in the window, load %s\n", u, m, load
        printf "%-40s %12s %12s %12s\n", "thread (both ranks)", "syscalls/" u, "cswitch/" u, "cpu_us/" u
        for (n in names) { printf "%-40s %12.2f %12.3f %12.2f\n", n, s[n]/m, c[n]/m, t[n]*1000/m; S += s[n]; C += c[n]; T += t[n] }
        printf "%-40s %12.2f %12.3f %12.2f\n", "all", S/m, C/m, T*1000/m
    }' "$tmp/names" "$tmp/perf"
