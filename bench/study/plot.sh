#!/usr/bin/env bash
# bench/study/plot.sh: the study's plots, from the medians bench/study/run.sh wrote.
#
#   bench/study/plot.sh [DATA_DIR [PNG_DIR]]     defaults: docs/study/data, docs/study
#
# Runs bench/study/Plot.java (a single-file Java program: java runs it from source) with the
# XChart jar of the project's build, the plotting library railyard-bench already uses; so it
# needs only the JDK 25 and a build (bin/railyard --help makes one), no gnuplot or matplotlib.
# Reads DATA_DIR/summary.tsv (and DATA_DIR/machine.txt for the core count); writes into PNG_DIR
# time-vs-np.png, efficiency-vs-np.png, slow-np<N>.png and loss-np<N>.png for each rank count.
set -euo pipefail

script=$(readlink -f -- "${BASH_SOURCE[0]}")
here=$(dirname -- "$script")
repo=$(cd -- "$here/../.." && pwd -P)
case ${1:-} in -h | --help) sed -n '2,/^set -euo/p' "$script" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
data=${1:-$repo/docs/study/data}
png=${2:-$repo/docs/study}
# shellcheck source=bin/jdk.sh
source "$repo/bin/jdk.sh"
jdk=$(find_jdk) || { echo "plot.sh: needs a JDK 25 or newer" >&2; exit 1; }
xchart=$(compgen -G "$repo/railyard-cli/target/lib/xchart-*.jar" | head -n 1) ||
    { echo "plot.sh: no XChart jar in railyard-cli/target/lib: build once with bin/railyard --help" >&2; exit 1; }
[[ -s $data/summary.tsv ]] || { echo "plot.sh: no $data/summary.tsv: run bench/study/run.sh first" >&2; exit 1; }
exec "$jdk/bin/java" -Djava.awt.headless=true -cp "$xchart" "$here/Plot.java" "$data" "$png"
