#!/usr/bin/env bash
# bench/startup/slurm-local.sh: a one-node Slurm on this machine for bench/startup.sh, as the
# system tests' SlurmCluster makes it (own ports, state and spool under DIR, 64 CPUs declared so
# ranks may oversubscribe). As root, with slurm-wlm and munge installed.
#
#   bench/startup/slurm-local.sh start DIR   starts munged if none answers, slurmctld and slurmd;
#                                            waits (60 s at most) for the node to be idle
#   bench/startup/slurm-local.sh stop DIR    stops the daemons it started
#
# Then: SLURM_CONF=DIR/slurm.conf bench/startup.sh ...
set -euo pipefail
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
dir=$(mkdir -p "$dir" && cd "$dir" && pwd -P)
case "$cmd" in
  stop)
    for f in slurmd.pid slurmctld.pid; do
      [ -f "$dir/$f" ] && kill "$(cat "$dir/$f")" 2>/dev/null || true
    done
    exit 0 ;;
  start) ;;
  *) echo "$0: unknown command '$cmd' (start or stop)" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "$0: slurmd must run as root" >&2; exit 1; }
if ! (munge -n | unmunge) > /dev/null 2>&1; then
  mkdir -p /run/munge
  chown -R munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 30); do (munge -n | unmunge) > /dev/null 2>&1 && break; sleep 1; done
fi
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("",0)); print(s.getsockname()[1])'; }
node=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool"
cat > "$dir/slurm.conf" <<CONF
ClusterName=railyard-bench
SlurmctldHost=$node
SlurmUser=root
SlurmctldPort=$(port)
SlurmdPort=$(port)
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
SlurmdParameters=config_overrides
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
KillWait=5
MinJobAge=600
InactiveLimit=0
NodeName=$node CPUs=256 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
/usr/sbin/slurmctld -c -f "$dir/slurm.conf"
/usr/sbin/slurmd -f "$dir/slurm.conf"
for _ in $(seq 60); do
  [ "$(SLURM_CONF=$dir/slurm.conf sinfo -h -N -o %T 2>/dev/null)" = idle ] && { echo "SLURM_CONF=$dir/slurm.conf"; exit 0; }
  sleep 1
done
echo "$0: the node did not become idle in 60 s; see $dir/slurmctld.log and $dir/slurmd.log" >&2
exit 1
