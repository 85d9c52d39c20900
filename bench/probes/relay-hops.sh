#!/bin/sh
# Per-hop trace of relayed 8 B ping-pongs: a relay process and `railyard bench latency --np 2
# --transports relay`, then 2 s of scheduler and system-call tracepoints on the whole machine
# (perf record, needs root), matched per message by relay-hops.py. No code of the library changes.
# Usage: bench/probes/relay-hops.sh LIBDIR OUT [DELAY_S]   (LIBDIR: railyard-cli/target/lib after package)
set -eu
LIB=$1; OUT=$2; DELAY=${3:-30}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
export RAILYARD_AOT=off
log=$(mktemp /tmp/relay-hops.XXXXXX)
"$JAVA" -Xmx1g -cp "$LIB/*" org.railyard.relay.RelayCommand --port 0 --bind 127.0.0.1 --max-bytes 2g > "$log" 2>&1 &
rp=$!
until grep -q "listening on" "$log"; do sleep 0.1; done
PORT=$(sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)
"$JAVA" -cp "$LIB/*" org.railyard.cli.Main bench latency --np 2 --sizes 8 --iters 200000 --transports relay \
    --env RAILYARD_RELAYS=127.0.0.1:$PORT > "$OUT.bench" 2>&1 &
bp=$!
sleep "$DELAY" # past the JIT settling passes: the trace is of the timed loop
RANKS=$(pgrep -P $bp | tr '\n' ' ')
for p in $RANKS $rp; do for t in /proc/$p/task/*; do echo "$p $(basename "$t") $(cat "$t/comm")"; done; done > "$OUT.tids"
echo "relay $rp ranks $RANKS" > "$OUT.pids"
perf record -q -o "$OUT.data" -a -e sched:sched_wakeup,sched:sched_switch,syscalls:sys_enter_write,syscalls:sys_exit_read,syscalls:sys_enter_read -- sleep 2
kill $bp; sleep 1; for p in $RANKS; do kill "$p" 2>/dev/null || true; done; kill $rp; rm -f "$log"
perf script -i "$OUT.data" -F comm,tid,cpu,time,event,trace > "$OUT.txt" 2>/dev/null
python3 "$(dirname "$0")/relay-hops.py" "$OUT.txt" "$OUT.tids" "$OUT.pids"
