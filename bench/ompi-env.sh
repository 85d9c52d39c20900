# Sourced by the benchmark scripts that time Open MPI's mpirun from the shell (start-up, whole jobs).
#
# Open MPI's PMIx authenticates through munge where libmunge is installed (Slurm's packages bring
# it). A munged killed by SIGKILL leaves its socket behind, and every mpirun then waits about 2.3 s
# on it before giving up (libmunge's retries; bench/results/log/2026-11-29-1340-quiet-window.md).
# A measurement must not charge that to Open MPI: when the socket is there and munge does not
# answer, Open MPI's runs use PMIx's native security instead, and the script says so.
ompi_munge_guard() {
  if [ -S /run/munge/munge.socket.2 ] && command -v munge > /dev/null 2>&1 \
      && ! munge -n < /dev/null > /dev/null 2>&1; then
    export PMIX_MCA_psec=native
    echo "$1: munged does not answer on /run/munge/munge.socket.2 (a socket left by a killed munged):" \
      "Open MPI runs with PMIX_MCA_psec=native, or each mpirun would wait about 2.3 s on it" >&2
  fi
}
