# The parts bench/compare-rma.sh and bench/rma-sweep.sh share: their common options, and one run of
# each program over a path. Sourced after bench/compare.sh (fail, STEP_TIMEOUT's default there is
# the caller's); sets and reads the caller's REPEAT, ONLY, BENCHES, SYNC, SIZES, ITERS, OP and OUT.

# rma_option FLAG VALUE: takes a common option into its variable; status 1 for another flag.
rma_option() {
  case "$1" in
    --repeat) REPEAT="$2" ;;
    --only) ONLY="$2" ;;
    --benches) BENCHES="$2" ;;
    --sync) SYNC="$2" ;;
    --sizes) SIZES="$2" ;;
    --iters) ITERS="$2" ;;
    --op) OP="$2" ;;
    --out) OUT="$2" ;;
    *) return 1 ;;
  esac
}

# rma_check_options: fails naming a bad --repeat, --iters (when set) or path of --only.
rma_check_options() {
  local p
  case "$REPEAT" in ''|*[!0-9]*|0) fail "--repeat needs a positive number" ;; esac
  if [ -n "$ITERS" ] && ! [[ "$ITERS" =~ ^[1-9][0-9]*$ ]]; then fail "--iters needs a positive number"; fi
  for p in ${ONLY//,/ }; do
    case "$p" in shm|tcp) ;; *) fail "--only: unknown path '$p' (shm or tcp)" ;; esac
  done
}

# rma_run_ompi PROGRAM PATH BENCHES SYNC SIZES [ARGS...]: the C twin over Open MPI's pairing for PATH
# (shm: btl vader and osc sm; tcp: btl tcp and osc pt2pt), its output unfiltered.
rma_run_ompi() {
  local prog=$1 path=$2 benches=$3 sync=$4 sizes=$5 mca
  shift 5
  case "$path" in
    shm) mca=(--mca btl self,vader --mca osc sm) ;;
    tcp) mca=(--mca btl self,tcp --mca osc pt2pt) ;;
  esac
  timeout "$STEP_TIMEOUT" mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 --mca pml ob1 "${mca[@]}" \
    "$prog" "$benches" --sync "$sync" --sizes "$sizes" --op "$OP" --transport "$path" "$@" < /dev/null
}

# rma_run_railyard PATH BENCHES SYNC SIZES [ARGS...]: `railyard bench rma` over transport PATH, by
# RAILYARD_CMD (a command line split at blanks, its words not expanded as file names: a class path 'lib/*').
rma_run_railyard() {
  local path=$1 benches=$2 sync=$3 sizes=$4
  shift 4
  # shellcheck disable=SC2086
  (set -f; timeout "$STEP_TIMEOUT" $RAILYARD_CMD bench rma "$benches" --sync "$sync" --sizes "$sizes" --op "$OP" \
    --transports "$path" --timeout "${STEP_TIMEOUT}s" "$@")
}
