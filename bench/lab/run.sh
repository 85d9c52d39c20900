#!/usr/bin/env bash
# bench/lab/run.sh: the multi-rail numbers of issue 4, measured in network labs on this machine (root).
#
#   bench/lab/run.sh [SCENARIO...]      default: all of them, in this order
#
#   two400     1 GiB over 2 x 400 Mbit/s: even, adaptive, and one rail alone
#   unequal    1 GiB over 600 + 150 Mbit/s: even, adaptive, BSS(2,2)
#   bss4       four paths, two throttled to a tenth (20,20,200,200 Mbit/s): BSS(4,2), adaptive, even
#   cut        2 GiB checksummed over 2 x 400: rail 1 cut at 30%, restored 8 s later
#   partition  1 GiB over 2 x 400: both rails cut for 10 s, then restored
#   beyond     both rails cut and never restored, partition bound 10 s: the error
#   latency    small-message latency, four rails against one (unlimited rails, hosts pinned to CPUs)
#
# Each run is one bench/lab/labbench.sh command (a fresh lab each time), printed before it runs;
# its output goes to bench/lab/results/<scenario>.txt and the plots to docs/plots/. The machine's
# load average is printed with every run: other work on the machine shows in the numbers.
set -uo pipefail

script=$(readlink -f -- "${BASH_SOURCE[0]}")
here=$(dirname -- "$script")
repo=$(cd -- "$here/../.." && pwd -P)
results="$here/results"
plots="$repo/docs/plots"
mkdir -p "$results" "$plots"
lab="$here/labbench.sh"
# settings of every stream: a 256 MiB warm-up outside the timing, 4 MiB messages
stream=(stream --message 4m --warmup 256m)
built=

run() {
    local out=$1
    shift
    echo "\$ ${RYLAB_PIN:+RYLAB_PIN=$RYLAB_PIN }bench/lab/labbench.sh $*" | tee -a "$out"
    echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores" | tee -a "$out"
    LABBENCH_NO_BUILD=$built "$lab" "$@" 2>&1 | grep -v '^\[[01]\] SERIES ' | tee -a "$out"
    built=1
}

scenario_two400() {
    local out="$results/two400.txt"
    : >"$out"
    run "$out" --rates 400mbit,400mbit "${stream[@]}" --bytes 1g --policy even
    run "$out" --rates 400mbit,400mbit "${stream[@]}" --bytes 1g --policy adaptive --png "$plots/two400-adaptive.png" \
        --title "1 GiB over 2 x 400 Mbit/s, adaptive striping"
    run "$out" --rates 400mbit,400mbit "${stream[@]}" --bytes 1g --policy even --label one-rail \
        --env RAILYARD_RAIL_NETS=10.201.0.0/24
}

scenario_unequal() {
    local out="$results/unequal.txt"
    : >"$out"
    run "$out" --rates 600mbit,150mbit "${stream[@]}" --bytes 1g --policy even --png "$plots/unequal-even.png" \
        --title "1 GiB over 600 + 150 Mbit/s, even striping"
    run "$out" --rates 600mbit,150mbit "${stream[@]}" --bytes 1g --policy adaptive --png "$plots/unequal-adaptive.png" \
        --title "1 GiB over 600 + 150 Mbit/s, adaptive striping"
    run "$out" --rates 600mbit,150mbit "${stream[@]}" --bytes 1g --policy bss:2,2 --png "$plots/unequal-bss.png" \
        --title "1 GiB over 600 + 150 Mbit/s, BSS(2,2)"
}

scenario_bss4() {
    local out="$results/bss4.txt"
    : >"$out"
    run "$out" --rates 20mbit,20mbit,200mbit,200mbit stream --message 4m --warmup 0 --bytes 512m --policy bss:4,2 \
        --png "$plots/bss4.png" --title "512 MiB over four paths (20, 20, 200, 200 Mbit/s), BSS(4,2)"
    run "$out" --rates 20mbit,20mbit,200mbit,200mbit stream --message 4m --warmup 0 --bytes 512m --policy adaptive
    run "$out" --rates 20mbit,20mbit,200mbit,200mbit stream --message 4m --warmup 0 --bytes 128m --policy even
}

scenario_cut() {
    local out="$results/cut.txt"
    : >"$out"
    run "$out" --rates 400mbit,400mbit "${stream[@]}" --bytes 2g --policy adaptive --env RAILYARD_RAIL_TIMEOUT=1s \
        --step '30%:{cut:1}' --step '+8s:{restore:1}' --png "$plots/cut.png" \
        --title "2 GiB over 2 x 400 Mbit/s, rail 1 cut at 30% and restored 8 s later"
}

scenario_partition() {
    local out="$results/partition.txt"
    : >"$out"
    run "$out" --rates 400mbit,400mbit "${stream[@]}" --bytes 1g --policy adaptive --env RAILYARD_RAIL_TIMEOUT=1s \
        --step '40%:{cut:0} && {cut:1}' --step '+10s:{restore:0} && {restore:1}' --png "$plots/partition.png" \
        --title "1 GiB over 2 x 400 Mbit/s, both rails cut for 10 s at 40%"
}

scenario_beyond() {
    local out="$results/beyond.txt"
    : >"$out"
    run "$out" --rates 400mbit,400mbit "${stream[@]}" --bytes 1g --policy adaptive --env RAILYARD_RAIL_TIMEOUT=1s \
        --env RAILYARD_PARTITION_TIMEOUT=10s --step '40%:{cut:0} && {cut:1}' --png "$plots/beyond.png" \
        --title "1 GiB over 2 x 400 Mbit/s, both rails cut for good at 40% (bound 10 s)"
}

scenario_latency() {
    local out="$results/latency.txt"
    : >"$out"
    local four=10.201.0.0/24,10.202.0.0/24,10.203.0.0/24,10.204.0.0/24
    # one rail and four, interleaved, five rounds: a run's mean moves by 15-20 % from one run to
    # the next, more than the difference looked for, so the medians of the rounds are compared;
    # RYLAB_PIN puts host h on CPU h (as two machines would be), which steadies the runs
    for round in 1 2 3 4 5; do
        for nets in 10.201.0.0/24 "$four"; do
            RYLAB_PIN=1 run "$out" --rates -,-,-,- latency --sizes 8,1k --iters 200000 --env RAILYARD_RAIL_NETS=$nets
        done
    done
}

scenarios=("$@")
((${#scenarios[@]})) || scenarios=(two400 unequal bss4 cut partition beyond latency)
for s in "${scenarios[@]}"; do
    case $s in
        two400 | unequal | bss4 | cut | partition | beyond | latency) "scenario_$s" ;;
        *) echo "run.sh: unknown scenario $s" >&2; exit 2 ;;
    esac
done
