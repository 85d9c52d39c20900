#!/usr/bin/env bash
# bench/lab/relaybench.sh: relay bandwidth against direct tcp where the wire is the limit (issue 22,
# seed 001): a sender, a receiver and a relay on three "hosts" (network namespaces) joined by a
# bridge, each host's link shaped with tc tbf to RATE both ways, so a relayed byte crosses two
# shaped links (sender -> relay, relay -> receiver) where a direct one crosses the sender's and the
# receiver's. `railyard bench bw` (np 2, window 64) with the ranks on hosts 0 and 1, in alternating
# rounds: direct tcp, the relay with its log off, the relay with its log on tmpfs (batch fsync).
# Prints the rows, then per round and size the share of the same round's direct run. Root.
#
#   bench/lab/relaybench.sh [-r RATE_MBIT] [--rounds N] [--sizes LIST] [--iters N] [--base DIR]
#
# Defaults: 1000 Mbit/s, 3 rounds, sizes 1m,4m, 20 iterations. --base DIR: the relay and the ranks
# run the jars built in DIR instead (another checkout, after `mvn -B -o -q -DskipTests package`).
# RBLAB_ID (up to 4 of [a-z0-9]) is appended to every name (rb0ID, rb1ID, rb2ID, rbswID), so two
# labs can exist at once. Output goes to stdout and to bench/lab/results/relaybench.txt (appended;
# RELAYBENCH_OUT replaces it), with the load average.
set -euo pipefail
# Railyard's ahead-of-time cache stays off unless RAILYARD_AOT is set: with the launcher's default
# (auto) a program's second job trains the cache, and that job would fall into one round.
export RAILYARD_AOT="${RAILYARD_AOT:-off}"

here=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")
repo=$(cd -- "$here/../.." && pwd -P)
id=${RBLAB_ID:-}
[[ $id =~ ^[a-z0-9]{0,4}$ ]] || { echo "relaybench: RBLAB_ID must be 0 to 4 of [a-z0-9]" >&2; exit 2; }
out=${RELAYBENCH_OUT:-$here/results/relaybench.txt}
rate=1000 rounds=3 sizes=1m,4m iters=20 jars=$repo
while (($#)); do
    case $1 in
        -r) rate=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --iters) iters=$2; shift 2 ;;
        --base) jars=$(cd -- "$2" && pwd -P); shift 2 ;;
        *) echo "relaybench: unknown option $1" >&2; exit 2 ;;
    esac
done
[[ $rate =~ ^[0-9]+$ && $rate -gt 0 ]] || { echo "relaybench: -r takes a rate in Mbit/s, not $rate" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "relaybench: the network lab needs root" >&2; exit 3; }
[[ -d $jars/railyard-cli/target/lib ]] || { echo "relaybench: $jars has no railyard-cli/target/lib (package it first)" >&2; exit 2; }
cp="$jars/railyard-cli/target/lib/*"
java=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java

sw=rbsw$id
hosts=("rb0$id" "rb1$id" "rb2$id")
addr=(10.78.0.1 10.78.0.2 10.78.0.3)
dir=$(mktemp -d /tmp/relaybench.XXXXXX)
tmpfs=$(mktemp -d /dev/shm/relaybench.XXXXXX)
pids=()
down() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for ns in "${hosts[@]}" "$sw"; do ip netns del "$ns" 2>/dev/null || true; done
    rm -rf "$dir" "$tmpfs"
}
trap down EXIT INT TERM
for ns in "${hosts[@]}" "$sw"; do ip netns del "$ns" 2>/dev/null || true; done

# tbf: the bucket holds at least a GSO packet and a tick's worth at the rate; the queue 20 ms
burst=$((rate * 1000000 / 8 / 250))
((burst >= 131072)) || burst=131072
shape() { ip netns exec "$1" tc qdisc replace dev "$2" root tbf rate "${rate}mbit" burst "$burst" latency 20ms; }
ip netns add "$sw"
ip -n "$sw" link add rbbr type bridge
ip -n "$sw" link set rbbr up
for i in 0 1 2; do
    ns=${hosts[$i]}
    ip netns add "$ns"
    ip link add "rbh$i$id" netns "$ns" type veth peer name "rbp$i$id" netns "$sw"
    ip -n "$ns" addr add "${addr[$i]}/24" dev "rbh$i$id"
    ip -n "$ns" link set lo up
    ip -n "$ns" link set "rbh$i$id" up
    ip -n "$sw" link set "rbp$i$id" master rbbr
    ip -n "$sw" link set "rbp$i$id" up
    shape "$ns" "rbh$i$id"  # host -> bridge
    shape "$sw" "rbp$i$id"  # bridge -> host
done
for i in 1 2; do
    ok=0
    for _ in $(seq 50); do
        if ip netns exec "${hosts[0]}" ping -c 1 -W 1 "${addr[$i]}" >/dev/null 2>&1; then ok=1; break; fi
        sleep 0.1
    done
    ((ok)) || { echo "relaybench: ${hosts[0]} cannot reach ${addr[$i]}" >&2; exit 1; }
done

cat >"$dir/rsh" <<EOR
#!/bin/sh
# rsh of the relay lab: a host is a namespace, with a node identity of its own (no shared memory)
host=\$1
shift
exec ip netns exec "\$host" env RAILYARD_NODE="\$host" /bin/sh -c "\$*"
EOR
chmod +x "$dir/rsh"
printf '%s slots=1\n%s slots=1\n' "${hosts[0]}" "${hosts[1]}" >"$dir/hosts"

relay() { # port, extra options
    local port=$1
    shift
    ip netns exec "${hosts[2]}" "$java" -Xmx1g -cp "$cp" org.railyard.relay.RelayCommand --port "$port" --bind "${addr[2]}" \
        --max-bytes 2g "$@" >"$dir/relay-$port.log" 2>&1 &
    pids+=($!)
}
relay 7440
relay 7441 --log "$tmpfs" --fsync batch
for port in 7440 7441; do
    for _ in $(seq 300); do grep -q "listening on" "$dir/relay-$port.log" 2>/dev/null && break; sleep 0.1; done
    grep -q "listening on" "$dir/relay-$port.log" || { echo "relaybench: relay :$port did not start" >&2; cat "$dir/relay-$port.log" >&2; exit 1; }
done

bench() { # label, transport, extra options
    local label=$1 transport=$2
    shift 2
    ip netns exec "${hosts[0]}" "$java" -Drailyard.launcher.host="${addr[0]}" -cp "$cp" org.railyard.cli.Main bench bw \
        --np 2 --hosts "$dir/hosts" --rsh "$dir/rsh" --sizes "$sizes" --iters "$iters" --no-jit-warmup --transports "$transport" "$@" 2>&1 \
        | grep -E "^bw|rror|FAIL" | sed "s/^/$label\t/" || true
}

{
    echo "## $(date -u +%Y-%m-%dT%H:%MZ) ${RBLAB_ID:+RBLAB_ID=$RBLAB_ID }bench/lab/relaybench.sh -r $rate --rounds $rounds --sizes $sizes --iters $iters${jars:+ (jars of $jars, $(git -C "$jars" rev-parse --short HEAD 2>/dev/null || echo '?'))}"
    echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores (other work on the machine shows in the numbers)"
    echo "# hosts: sender ${addr[0]}, receiver ${addr[1]}, relay ${addr[2]}; every link tbf ${rate} Mbit/s each way (burst $burst B, queue 20 ms)"
    echo "# round configuration benchmark transport np bytes iterations mean_us p50_us p99_us max_us MB_s"
    for r in $(seq 1 "$rounds"); do
        bench "round$r	direct" tcp
        bench "round$r	relay-log-off" relay --env "RAILYARD_RELAYS=${addr[2]}:7440"
        bench "round$r	relay-log-tmpfs" relay --env "RAILYARD_RELAYS=${addr[2]}:7441"
    done | tee "$dir/rows"
    echo "# share of the same round's direct tcp (relay MB/s / direct MB/s), per round, and the median over rounds:"
    awk -F'\t' '$3 == "bw" {
            key = $2 "\t" $6; mbs[$1 "\t" key] = $NF; if ($2 != "direct") seen[key] = 1
            r = substr($1, 6) + 0; if (r > last) last = r
        }
        END {
            for (k in seen) {
                split(k, p, "\t"); n = 0; line = ""
                for (i = 1; i <= last; i++) {
                    r = "round" i; d = mbs[r "\tdirect\t" p[2]]; v = mbs[r "\t" k]
                    if (d > 0 && v != "") { x[++n] = v / d; line = line sprintf(" %s %.2f", r, v / d) }
                }
                # median of the n ratios
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
                med = n == 0 ? 0 : (n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2)
                printf "#   %s %s bytes:%s; median %.2f over %d rounds\n", p[1], p[2], line, med, n
            }
        }' "$dir/rows" | sort
    for port in 7440 7441; do
        echo "# relay :$port counters after the runs:"
        ip netns exec "${hosts[2]}" "$java" -cp "$cp" org.railyard.relay.RelayCommand --stats "${addr[2]}:$port" 2>&1 \
            | grep -E '^(stored|stored_bytes|delivered|held_back) ' | sed 's/^/#   /' || true
    done
} | tee -a "$out"
