#!/usr/bin/env bash
# bench/lab/labbench.sh: runs one `railyard bench` command inside a fresh network lab (as root).
#
#   bench/lab/labbench.sh [--rates 400mbit,400mbit] [--hosts 2] stream|latency|... [railyard bench options]
#
# Builds this checkout (the library, launcher, bench and the lab's test classes) with the classes
# of this tree on the class path (never jars another build may have installed in ~/.m2), then runs
# org.railyard.systest.lab.LabBench, which makes the lab (network namespaces, veth rails limited
# with tc tbf), runs the benchmark on its hosts and removes the lab again. In the options,
# {cut:R} / {restore:R} / {rate:R:RATE} / {host:H} stand for lab commands (see LabBench).
set -euo pipefail

script=$(readlink -f -- "${BASH_SOURCE[0]}")
repo=$(cd -- "$(dirname -- "$script")/../.." && pwd -P)
# shellcheck source=bin/jdk.sh
source "$repo/bin/jdk.sh"
jdk=$(find_jdk) || { echo "labbench: needs a JDK 25" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "labbench: the network lab needs root" >&2; exit 3; }

cp_file="$repo/railyard-tests/target/lab.classpath"
if [[ -z ${LABBENCH_NO_BUILD:-} || ! -f $cp_file ]]; then
    (cd "$repo" && JAVA_HOME="$jdk" MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
        mvn -q -o -pl railyard-tests -am test-compile dependency:build-classpath \
        -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test >&2)
fi
exec "$jdk/bin/java" --enable-native-access=ALL-UNNAMED \
    -cp "$repo/railyard-tests/target/test-classes:$(cat "$cp_file")" org.railyard.systest.lab.LabBench "$@"
