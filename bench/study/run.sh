#!/usr/bin/env bash
# bench/study/run.sh: the synchronous/asynchronous study of the obstacle demo (issue 5, item 6).
#
#   bench/study/run.sh [options]
#
# Runs org.railyard.apps.obstacle.ObstacleDemo (seed 000, sec. IV) in these scenarios:
#   seq    the sequential reference: 1 rank, its SequentialSolver check line ("sequential: ... s"),
#          timed in a JVM of its own with no other rank on the machine; T_seq of the efficiency.
#          Run first whenever the TSV holds no seq rows for the grid size.
#   scale  sync/async x tcp/udp x np 1,2,4,8, local ranks, nothing slowed (np 8 on a 2-core
#          machine is oversubscribed 4 times)
#   slow   np 4 (--slow-np, a list), sync/async x tcp/udp, rank 1 slowed by half (--slow 1:2:spin, a busy loop: the
#          rank's work really costs twice the CPU time) against the same runs unslowed
#   loss   in a network lab (bench/study/lab.sh, root): one rank per host, 0 %, 1 % and 5 % of the
#          packets lost on the rail, sync/tcp, async/udp, async/tcp, sync/udp, np 4 and 2
# Every run is bounded (--run-timeout), printed as a runnable command before it runs with the
# machine's load average, and its whole output kept in OUT/logs/. Repeats are interleaved (all
# configurations once, then all again) so that a drift of the machine spreads over every
# configuration. One line per run goes to OUT/study.tsv (appended: delete OUT to start over),
# the medians per configuration to OUT/summary.tsv, machine facts to OUT/machine.txt.
# Efficiency = T_seq / (p x T_par), T_seq the median of the seq runs for the same grid size.
#
# Options:
#   --repeat N        runs per configuration; the summary takes the median (default 3)
#   --n N             grid points per axis (default 48: see docs/study/README.md)
#   --only LIST       scenarios to run, comma separated: seq,scale,slow,loss (default all)
#                     and calibrate: one sync/tcp run on 4 ranks, its wall time only (no TSV row)
#   --out DIR         output directory (default docs/study/data)
#   --np LIST         rank counts of scale (default 1,2,4,8)
#   --lab-np LIST     rank counts (= lab hosts) of loss (default 4,2)
#   --loss LIST       loss percentages of loss (default 0,1,5)
#   --slow SPEC       the slowdown of slow (default 1:2:spin; 1:2:sleep for a lower CPU share)
#   --slow-np LIST    rank counts of slow (default 4)
#   --run-timeout S   bound of one run in seconds (default 900)
#   --build           build first with bin/railyard (runs Maven) if the sources changed since
#                     the last build; without it a stale or missing build is an error
#   --dry-run         print the commands, run nothing
#   --help            this text
#
# The ranks run from the jars of the last build through bench/study/ry (bin/railyard without its
# build step), so every run of a study runs the same code. Plots: bench/study/plot.sh OUT.
set -euo pipefail

script=$(readlink -f -- "${BASH_SOURCE[0]}")
here=$(dirname -- "$script")
repo=$(cd -- "$here/../.." && pwd -P)
cd "$repo"
argv=("$@")

usage() { sed -n '2,/^set -euo/p' "$script" | sed '$d; s/^# \{0,1\}//'; }

repeat=3
n=48
only=seq,scale,slow,loss
out=docs/study/data
np_list=1,2,4,8
lab_np=4,2
loss_list=0,1,5
slow=1:2:spin
slow_np=4
run_timeout=900
build=
dry=
while (($#)); do
    case $1 in
        --repeat) repeat=$2; shift 2 ;;
        --n) n=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --np) np_list=$2; shift 2 ;;
        --lab-np) lab_np=$2; shift 2 ;;
        --loss) loss_list=$2; shift 2 ;;
        --slow) slow=$2; shift 2 ;;
        --slow-np) slow_np=$2; shift 2 ;;
        --run-timeout) run_timeout=$2; shift 2 ;;
        --build) build=1; shift ;;
        --dry-run) dry=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
for v in repeat n run_timeout; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --${v/_/-} must be a positive integer" >&2; exit 2; }
done
IFS=, read -ra scenarios <<<"$only"
for s in "${scenarios[@]}"; do
    case $s in seq | scale | slow | loss | calibrate) ;; *) echo "run.sh: unknown scenario '$s'" >&2; exit 2 ;; esac
done
IFS=, read -ra nps <<<"$np_list"
IFS=, read -ra lab_nps <<<"$lab_np"
IFS=, read -ra losses <<<"$loss_list"
IFS=, read -ra slow_nps <<<"$slow_np"
for v in "${nps[@]}" "${lab_nps[@]}" "${slow_nps[@]}"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: rank counts must be positive integers, got '$v'" >&2; exit 2; }
done
wants() { [[ ,$only, == *,$1,* ]]; }

# --- the build ----------------------------------------------------------------------------------
lib=railyard-cli/target/lib
stale() {
    compgen -G "$lib/railyard-cli-*.jar" >/dev/null || return 0
    [[ -n $(find "$repo" \( -name target -o -name .git \) -prune -o \
        \( -name pom.xml -o -path '*/src/*' \) -type f -newer "$lib" -print -quit) ]]
}
if [[ -z $dry ]] && stale; then
    if [[ -n $build ]]; then
        bin/railyard --help >/dev/null
    else
        echo "run.sh: the build in $lib is missing or older than the sources; build with" \
            "'bin/railyard --help' (Maven) or pass --build" >&2
        exit 1
    fi
fi
if wants loss && [[ -z $dry ]] && [[ $(id -u) -ne 0 ]]; then
    echo "run.sh: the loss scenario needs root (network namespaces); run as root or leave it out (--only)" >&2
    exit 3
fi

# --- output -------------------------------------------------------------------------------------
tsv="$out/study.tsv"
logs="$out/logs"
header="run_id	scenario	scheme	transport	np	condition	n	repeat	exit	wall_s	iterations	iter_min	iter_max	converged	agreed	t_check_s	t_seq_s	efficiency	load1	load5	load15	started	log"
if [[ -z $dry ]]; then
    mkdir -p "$logs"
    if [[ ! -s $tsv ]]; then
        echo "$header" >"$tsv"
    elif [[ $(head -n 1 "$tsv") != "$header" ]]; then
        echo "run.sh: $tsv has another header (an older layout): move it away" >&2
        exit 1
    fi
    {
        echo "# study started $(date -u +%FT%TZ): bench/study/run.sh ${argv[*]}"
        echo "command: bench/study/run.sh --repeat $repeat --n $n --only $only --out $out --np $np_list" \
            "--lab-np $lab_np --loss $loss_list --slow $slow --slow-np $slow_np --run-timeout $run_timeout"
        echo "commit: $(git rev-parse HEAD 2>/dev/null || echo '?')," \
            "$(git status --porcelain --untracked-files=no 2>/dev/null | wc -l) modified tracked file(s)"
        echo "build: $(stat -c %y "$lib" 2>/dev/null || echo '?')"
        echo "nproc: $(nproc)"
        echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sort | uniq -c | sed 's/^ *//')"
        echo "memory (free -g):"
        free -g
        echo "kernel: $(uname -sr)"
        echo "java: $(source bin/jdk.sh && "$(find_jdk)/bin/java" -version 2>&1 | head -n 1)"
        echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo
    } | tee -a "$out/machine.txt"
fi

# --- one run ------------------------------------------------------------------------------------
demo=org.railyard.apps.obstacle.ObstacleDemo
run_id=$( [[ -s $tsv ]] && tail -n +2 "$tsv" | wc -l || echo 0)

# field VALUE of the rank-0 line starting with LABEL in the log FILE
rank0() { sed -n "s|^\[0\] $2 *||p" "$1" | head -n 1; }

# run SCENARIO SCHEME TRANSPORT NP CONDITION REPEAT: one run, one TSV line
run() {
    local scenario=$1 scheme=$2 transport=$3 np=$4 condition=$5 rep=$6
    local cmd=() demo_args=(--n "$n" --quiet) launcher_timeout=$((run_timeout - 10))
    ((launcher_timeout > 0)) || launcher_timeout=$run_timeout
    case $scenario in
        seq) demo_args+=(--scheme sync) ;;
        *) demo_args+=(--scheme "$scheme" --transport "$transport") ;;
    esac
    [[ $condition != slow ]] || demo_args+=(--slow "$slow")
    if [[ $condition == loss* ]]; then
        cmd=(bench/study/lab.sh --hosts "$np" --loss "${condition#loss}" -- bench/study/ry run -np "$np"
            --timeout "${launcher_timeout}s" --hosts '{hosts}' --rsh '{rsh}' --env 'RAILYARD_RAIL_NETS={nets}'
            --env "RAILYARD_TRANSPORTS=$transport" "$demo" "${demo_args[@]}")
    else
        cmd=(bench/study/ry run -np "$np" --timeout "${launcher_timeout}s" "$demo" "${demo_args[@]}")
    fi
    local load
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "\$ ${cmd[*]}"
    echo "# $scenario $scheme/$transport np $np $condition, repeat $rep; load average $load, $(nproc) cores"
    [[ -z $dry ]] || return 0

    run_id=$((run_id + 1))
    local log
    log="$logs/$(printf %04d "$run_id")-$scenario-$scheme-$transport-np$np-$condition-r$rep.txt"
    local started status=0
    started=$(date -u +%FT%TZ)
    {
        echo "\$ ${cmd[*]}"
        echo "# load average $load, started $started"
    } >"$log"
    timeout --kill-after=30 "$((run_timeout + 30))" "${cmd[@]}" >>"$log" 2>&1 </dev/null || status=$?

    local wall iterations iter_min=- iter_max=- converged=no agreed=no t_check=- line
    line=$(rank0 "$log" 'iterations:')
    iterations=${line%% *}
    [[ $line == *"(converged)"* ]] && converged=yes
    wall=$(rank0 "$log" 'wall time:')
    wall=${wall%% s}
    line=$(rank0 "$log" 'iterations/rank:')
    if [[ -n $line ]]; then
        iter_min=$(awk '{print $1}' <<<"$line")
        iter_max=$(awk '{sub(/,$/, "", $3); print $3}' <<<"$line")
    fi
    grep -q '^\[0\] OK: ' "$log" && agreed=yes
    line=$(rank0 "$log" 'sequential:')
    [[ -z $line ]] || t_check=$(awk '{print $3}' <<<"$line")
    if [[ $scenario == seq ]]; then
        # the reference's time is its sequential solver's, timed alone in its JVM
        wall=$t_check
    fi
    local eff=- tseq=${t_seq:--}
    [[ $scenario != seq ]] || tseq=$wall
    if [[ $status -eq 0 && $tseq != - && -n $wall && $wall != - ]]; then
        eff=$(awk -v s="$tseq" -v p="$np" -v w="$wall" 'BEGIN { if (w > 0) printf "%.4f", s / (p * w); else print "-" }')
    fi
    [[ $scenario != seq ]] || eff=-
    printf '%s\n' "$run_id	$scenario	$scheme	$transport	$np	$condition	$n	$rep	$status	${wall:--}	${iterations:--}	$iter_min	$iter_max	$converged	$agreed	$t_check	$tseq	$eff	${load// /	}	$started	${log#"$out"/}" >>"$tsv"
    echo "# -> exit $status, wall ${wall:-?} s, iterations ${iterations:-?}, converged $converged, agreed $agreed, efficiency $eff"
    if [[ $status -ne 0 ]]; then
        echo "# (failed: see $log)"
        tail -n 5 "$log" | sed 's/^/#   /'
    fi
}

# sweep: runs each configuration of the array configs ("scenario scheme transport np condition")
# once, then all of them again, --repeat times in all
sweep() {
    local r c
    for ((r = 1; r <= repeat; r++)); do
        for c in "${configs[@]}"; do
            # shellcheck disable=SC2086 # five words
            run $c "$r"
        done
    done
}

# --- the reference T_seq ------------------------------------------------------------------------
t_seq=
median_seq() {
    [[ -s $tsv ]] || return 0
    awk -F'\t' -v n="$n" 'NR > 1 && $2 == "seq" && $7 == n && $9 == 0 && $10 != "-" { print $10 }' "$tsv" |
        sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%s", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
needs_seq=
for s in scale slow loss; do wants $s && needs_seq=1; done
if wants seq || { [[ -n $needs_seq ]] && [[ -z $(median_seq) ]]; }; then
    echo "## seq: the sequential reference, n = $n"
    configs=("seq seq - 1 none")
    sweep
fi
[[ -n $dry ]] || t_seq=$(median_seq)
[[ -n $dry || -z $needs_seq || -n $t_seq ]] || echo "run.sh: no successful seq run for n = $n: efficiency left out" >&2
[[ -z $t_seq ]] || echo "## T_seq (median of the seq runs, n = $n): $t_seq s"

# --- the scenarios ------------------------------------------------------------------------------
if wants calibrate; then
    echo "## calibrate: one sync/tcp run on 4 ranks, n = $n (aim: 3 to 10 s on an idle 2-core machine)"
    if [[ -z $dry ]]; then
        mkdir -p "$logs"
        cal="$logs/calibrate-n$n.txt"
        echo "\$ bench/study/ry run -np 4 $demo --n $n --quiet --scheme sync --transport tcp --no-check"
        echo "# load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
        timeout --kill-after=30 "$run_timeout" bench/study/ry run -np 4 "$demo" --n "$n" --quiet --scheme sync \
            --transport tcp --no-check >"$cal" 2>&1 </dev/null || true
        w=$(rank0 "$cal" 'wall time:')
        w=${w%% s}
        echo "## calibrate: wall ${w:-?} s, iterations $(rank0 "$cal" 'iterations:')"
        if [[ -n $w ]]; then
            awk -v w="$w" 'BEGIN { if (w < 3) print "## below 3 s: try a larger --n (64 takes about 3 times as long as 48)";
                else if (w > 10) print "## above 10 s: try a smaller --n (40, or 32)"; else print "## within 3 to 10 s" }'
        fi
    fi
fi

# configurations SCENARIO NPS CONDITIONS PAIRS: sets configs to every np x condition x
# scheme/transport pair (space-separated lists)
configurations() {
    local np condition pair
    configs=()
    for np in $2; do
        for condition in $3; do
            for pair in $4; do
                configs+=("$1 ${pair%/*} ${pair#*/} $np $condition")
            done
        done
    done
}

if wants scale; then
    echo "## scale: sync/async x tcp/udp x np ${nps[*]}, local ranks, n = $n"
    configurations scale "${nps[*]}" none "sync/tcp sync/udp async/tcp async/udp"
    sweep
fi

if wants slow; then
    echo "## slow: np ${slow_nps[*]}, rank 1 slowed (--slow $slow) and not, sync/async x tcp/udp, n = $n"
    configurations slow "${slow_nps[*]}" "none slow" "sync/tcp async/tcp sync/udp async/udp"
    sweep
fi

if wants loss; then
    echo "## loss: network lab, one rank per host, np ${lab_nps[*]}, loss ${losses[*]} %, n = $n"
    configurations loss "${lab_nps[*]}" "${losses[*]/#/loss}" "sync/tcp async/udp async/tcp sync/udp"
    sweep
fi

# --- the medians --------------------------------------------------------------------------------
if [[ -z $dry && -s $tsv ]]; then
    # per configuration (scenario, scheme, transport, np, condition, n): runs, successful runs
    # (exit 0, converged, agreed), median/min/max wall of the successful ones, median iterations,
    # T_seq and the efficiency of the median wall
    {
        echo "scenario	scheme	transport	np	condition	n	runs	ok	wall_median_s	wall_min_s	wall_max_s	iterations_median	t_seq_s	efficiency"
        awk -F'\t' 'NR > 1 { ok = ($9 == 0 && $14 == "yes" && $15 == "yes") ? 1 : 0
                print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\t" ok "\t" ($10 == "-" ? "" : $10) "\t" $11 "\t" $17 }' "$tsv" |
            sort -t$'\t' -k1,1 -k2,2 -k3,3 -k4,4n -k5,5 -k6,6n -k7,7nr -k8,8g |
            awk -F'\t' '
                function flush(   m, it, i, j, t, eff) {
                    if (key == "") return
                    if (k) {
                        if (scen == "seq") tseq = ""
                        m = (k % 2) ? w[(k + 1) / 2] : (w[k / 2] + w[k / 2 + 1]) / 2
                        # iterations: their own median (sorted here, a small insertion sort)
                        for (i = 2; i <= k; i++) { t = its[i]; for (j = i - 1; j >= 1 && its[j] > t; j--) its[j + 1] = its[j]; its[j + 1] = t }
                        it = (k % 2) ? its[(k + 1) / 2] : (its[k / 2] + its[k / 2 + 1]) / 2
                        eff = (tseq != "-" && tseq != "" && m > 0 && scen != "seq") ? sprintf("%.4f", tseq / (np * m)) : "-"
                        if (scen == "seq") tseq = m
                        printf "%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%s\t%s\t%s\n", key, runs, k, m, w[1], w[k], it, tseq, eff
                    } else {
                        printf "%s\t%d\t0\t-\t-\t-\t-\t%s\t-\n", key, runs, tseq
                    }
                }
                { cur = $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6
                  if (cur != key) { flush(); key = cur; scen = $1; np = $4; runs = 0; k = 0; tseq = $10 }
                  runs++
                  if ($7 == 1 && $8 != "") { k++; w[k] = $8 + 0; its[k] = $9 + 0 } }
                END { flush() }'
    } >"$out/summary.tsv"
    echo "## $(($(wc -l <"$tsv") - 1)) run(s) in $tsv; medians in $out/summary.tsv; plots: bench/study/plot.sh $out"
fi
