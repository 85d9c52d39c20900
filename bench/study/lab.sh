#!/usr/bin/env bash
# bench/study/lab.sh: runs one command against a fresh network lab with packet loss, then removes
# the lab (as root).
#
#   bench/study/lab.sh [--hosts N] [--loss PCT] -- COMMAND [ARGS...]
#
# The lab is the one of railyard-tests' NetLab (org.railyard.systest.lab), made with ip/iptables
# directly so that no Maven build is needed (LabBench, behind bench/lab/labbench.sh, builds the
# test classes first and only runs `railyard bench` commands):
#   - N hosts (default 2), each a network namespace rylab-<pid>-<hex>-h<i>, with a management
#     link (veth, a /30 of a free 10.220-249.x.0/24) to the root namespace, where the launcher runs;
#   - one rail, 10.201.0.0/24, no rate limit: a veth pair for 2 hosts, otherwise a bridge in a
#     switch namespace with a veth from every host;
#   - loss: PCT % (default 0) of the packets arriving on the rail are dropped at every host, chosen
#     at random per packet (iptables statistic match in a chain RYLOSS0 hooked to INPUT -i r0:
#     NetLab.loss), whatever their protocol (tcp segments, handshakes, udp datagrams alike); the
#     management links, which carry only the launcher's key-value bootstrap, lose nothing.
# In COMMAND's arguments {hosts} stands for a hosts file with one slot per host, {rsh} for the
# lab's rsh script (runs a command inside a host's namespace), {nets} for the rail network (for
# RAILYARD_RAIL_NETS) and {launcher} for the root namespace's address the ranks reach the launcher
# at; RAILYARD_LAUNCHER_HOST is exported with it. Example:
#
#   bench/study/lab.sh --hosts 4 --loss 5 -- bench/study/ry run -np 4 --hosts {hosts} --rsh {rsh} \
#       --env RAILYARD_RAIL_NETS={nets} org.railyard.apps.obstacle.ObstacleDemo --scheme async --transport udp
#
# Namespaces follow NetLab's naming, so a lab left by a killed process is swept by the next lab
# (this script's or NetLab's). Exit status: COMMAND's; 3 if no lab can be made; 2 on bad usage.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

hosts=2
loss=0
while (($#)); do
    case $1 in
        --hosts) hosts=$2; shift 2 ;;
        --loss) loss=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        --) shift; break ;;
        *) echo "lab.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
(($#)) || { echo "lab.sh: no command (see --help)" >&2; exit 2; }
[[ $hosts =~ ^[0-9]+$ ]] && ((hosts >= 2 && hosts <= 16)) || { echo "lab.sh: --hosts must be 2..16" >&2; exit 2; }
prob=$(awk -v p="$loss" 'BEGIN { if (p !~ /^[0-9]+(\.[0-9]+)?$/ || p > 100) exit 1; printf "%.6f", p / 100 }') ||
    { echo "lab.sh: --loss must be a percentage, 0..100" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "lab.sh: the network lab needs root (namespaces, veth, iptables)" >&2; exit 3; }
for tool in ip iptables; do
    command -v "$tool" >/dev/null || { echo "lab.sh: needs $tool (apt-get install iproute2 iptables)" >&2; exit 3; }
done

prefix=rylab-
hex=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
id="$prefix$$-$hex"
dev="ry$hex"
namespaces=()
dir=

teardown() {
    local ns i pids
    for ((i = ${#namespaces[@]} - 1; i >= 0; i--)); do
        ns=${namespaces[i]}
        # ranks that outlived the launcher (it stops them; this is the safety net): ours, by pid
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
        ip netns del "$ns" 2>/dev/null || true
    done
    namespaces=()
    [[ -z $dir ]] || rm -rf -- "$dir"
}
trap teardown EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# labs of processes that are gone (NetLab.sweepOrphans)
while read -r name _; do
    [[ $name == "$prefix"* ]] || continue
    pid=${name#"$prefix"}
    pid=${pid%%-*}
    [[ $pid =~ ^[0-9]+$ ]] || continue
    kill -0 "$pid" 2>/dev/null && continue
    ip netns del "$name" 2>/dev/null || true
done < <(ip netns list)

# a management /24 no address of the root namespace is in
used=$(ip -4 -o addr show)
mgmt=
for _ in $(seq 200); do
    net="10.$((220 + RANDOM % 30)).$((RANDOM % 256))"
    [[ $used == *" $net."* ]] || { mgmt=$net; break; }
done
[[ -n $mgmt ]] || { echo "lab.sh: no free 10.220-249.x.0/24 for the management links" >&2; exit 3; }
mgmt_addr() { echo "$mgmt.$((4 * $1 + $2))"; }
host() { echo "$id-h$1"; }

dir=$(mktemp -d "/tmp/$id.XXXX")
rsh="$dir/lab-rsh"
cat >"$rsh" <<'RSH'
#!/bin/sh
# rsh for railyard run --hosts: host = network namespace of the lab
ns="$1"; shift
exec ip netns exec "$ns" env RAILYARD_NODE="$ns" /bin/sh -c "$*"
RSH
chmod 755 "$rsh"
hostsfile="$dir/hosts"
echo "# lab $id" >"$hostsfile"

build() {
    local h ns root sw= port
    for ((h = 0; h < hosts; h++)); do
        ns=$(host $h)
        ip netns add "$ns"
        namespaces+=("$ns")
        echo "$ns slots=1" >>"$hostsfile"
        ip -n "$ns" link set lo up
        root="${dev}m$h"
        ip link add "$root" type veth peer name mgmt netns "$ns"
        ip addr add "$(mgmt_addr $h 1)/30" dev "$root"
        ip link set "$root" up
        ip -n "$ns" addr add "$(mgmt_addr $h 2)/30" dev mgmt
        ip -n "$ns" link set mgmt up
        ip -n "$ns" route add "$mgmt.0/24" via "$(mgmt_addr $h 1)"
    done
    if ((hosts == 2)); then
        ip -n "$(host 0)" link add r0 type veth peer name r0 netns "$(host 1)"
    else
        sw="$id-sw"
        ip netns add "$sw"
        namespaces+=("$sw")
        ip -n "$sw" link add br0 type bridge
        ip -n "$sw" link set br0 up
        for ((h = 0; h < hosts; h++)); do
            port="h${h}r0"
            ip -n "$(host $h)" link add r0 type veth peer name "$port" netns "$sw"
            ip -n "$sw" link set "$port" master br0
            ip -n "$sw" link set "$port" up
        done
    fi
    for ((h = 0; h < hosts; h++)); do
        ns=$(host $h)
        ip -n "$ns" addr add "10.201.0.$((h + 1))/24" dev r0
        ip -n "$ns" link set r0 up
        if [[ $prob != 0.000000 ]]; then
            ip netns exec "$ns" iptables -N RYLOSS0
            ip netns exec "$ns" iptables -A INPUT -i r0 -j RYLOSS0
            ip netns exec "$ns" iptables -A RYLOSS0 -m statistic --mode random --probability "$prob" -j DROP
        fi
    done
    # every link operationally up before a rank lists its interfaces (NetLab.awaitLinksUp)
    local deadline=$((SECONDS + 20)) down
    for ((h = 0; h < hosts; h++)); do
        while down=$(ip -n "$(host $h)" -o link show | grep -v ' lo:' | grep -v 'state UP' || true); [[ -n $down ]]; do
            ((SECONDS < deadline)) || { echo "lab.sh: links of $(host $h) not up within 20 s: $down" >&2; return 1; }
            sleep 0.02
        done
    done
}
if ! build; then
    echo "lab.sh: could not make the lab" >&2
    exit 3
fi

launcher=$(mgmt_addr 0 1)
export RAILYARD_LAUNCHER_HOST=$launcher
args=()
for a in "$@"; do
    a=${a//\{hosts\}/$hostsfile}
    a=${a//\{rsh\}/$rsh}
    a=${a//\{nets\}/10.201.0.0/24}
    a=${a//\{launcher\}/$launcher}
    args+=("$a")
done
echo "lab.sh: lab $id: $hosts hosts, rail 10.201.0.0/24 unlimited, loss $loss% (p = $prob) at every host" >&2
# in the background, so a TERM (timeout) reaches the trap at once; the command gets it too from
# timeout, which signals its whole process group
status=0
"${args[@]}" &
wait $! || status=$?
exit $status
