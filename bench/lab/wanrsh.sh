#!/usr/bin/env bash
# bench/lab/wanrsh.sh FILE [node]: writes the rsh script of the WAN lab (bench/lab/wanlab.sh) to
# FILE, for `railyard run --rsh`: a host is a site namespace, and a rank started there has that
# namespace as its site (railyard.site); with "node", as its node identity too (railyard.node),
# so that the ranks of a site do not share memory. Used by gwbench.sh and sitebench.sh.
set -euo pipefail
file=${1:?usage: wanrsh.sh FILE [node]}
node=""
[[ ${2:-} == node ]] && node=' RAILYARD_NODE="$host"'
cat >"$file" <<EOR
#!/bin/sh
# rsh of the WAN lab: host = site namespace = the rank's site${node:+ and node}
host=\$1
shift
exec ip netns exec "\$host" env RAILYARD_SITE="\$host"$node /bin/sh -c "\$*"
EOR
chmod +x "$file"
