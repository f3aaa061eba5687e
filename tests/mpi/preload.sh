#!/usr/bin/env bash
# Drop-in use: an MPI program built without autocoll, run with LD_PRELOAD, must be served by
# autocoll's algorithms (verbose log) with unchanged results; bad settings must give a message
# and correct results; ranks whose environments differ must not hang; the shared library must
# export only MPI_* and autocoll_* symbols.
# usage: preload.sh LIBAUTOCOLL DEMO MPIEXEC [mpiexec flags...]
set -u
lib=$1 demo=$2 mpiexec=$3
shift 3
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

extra=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -vE '^(MPI_|mpi_|autocoll_)' || true)
[ -z "$extra" ] && ok "exports only MPI_*, mpi_* (C and Fortran entry points) and autocoll_*" ||
    bad "unexpected exports: $extra"

algs="AUTOCOLL_ALLGATHER=linear AUTOCOLL_ALLGATHERV=linear AUTOCOLL_ALLTOALL=linear
      AUTOCOLL_ALLTOALLV=linear AUTOCOLL_BCAST=linear AUTOCOLL_REDUCE=linear
      AUTOCOLL_ALLREDUCE=linear AUTOCOLL_REDUCE_SCATTER=linear AUTOCOLL_REDUCE_SCATTER_BLOCK=linear
      AUTOCOLL_GATHER=linear AUTOCOLL_SCATTER=linear AUTOCOLL_BARRIER=linear"
"$mpiexec" "$@" -np 4 env LD_PRELOAD="$lib" AUTOCOLL_VERBOSE=1 $algs "$demo" 300 3 >"$out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "preloaded demo exits 0" || bad "preloaded demo exit code $rc"
for c in allgather allgatherv alltoall alltoallv bcast reduce allreduce reduce_scatter \
         reduce_scatter_block gather scatter barrier; do
  grep -qE " $c (\[|\().*-> linear \(forced\)" "$out" && ok "$c served by autocoll (log)" \
    || bad "$c: no log line showing autocoll's algorithm"
done
n=$(grep -c ' same$' "$out")
[ "$n" -eq 12 ] && ! grep -q DIFFERENT "$out" && ok "12 collectives give the MPI library's bytes" \
  || bad "results differ from the MPI library ($n of 12 same)"
grep -q 'summary allgather linear' "$out" && ok "finalize summary" || bad "no finalize summary"

"$mpiexec" "$@" -np 3 env LD_PRELOAD="$lib" AUTOCOLL_VERBOSE=abc AUTOCOLL_BCAST=no_such_alg \
  AUTOCOLL_ALLGATHER=linear:k=2 AUTOCOLL_ON_ERROR=maybe AUTOCOLL_TYPO=1 "$demo" 100 2 >"$out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ' same$' "$out")" -eq 12 ] && ok "garbage settings: correct results" \
  || bad "garbage settings: exit $rc or wrong results"
for m in "AUTOCOLL_VERBOSE='abc'" "AUTOCOLL_BCAST: unknown bcast algorithm 'no_such_alg'" \
         "AUTOCOLL_ALLGATHER: linear has no parameter 'k'" "AUTOCOLL_ON_ERROR='maybe'" \
         "AUTOCOLL_TYPO: unknown variable"; do
  [ "$(grep -cF "$m" "$out")" -eq 1 ] && ok "one message: $m" || bad "expected one message: $m"
done

# Rank 0's settings rule: another rank's different forcing must not split the ranks.
timeout 120 "$mpiexec" "$@" -np 1 env LD_PRELOAD="$lib" "$demo" 100 2 : \
  -np 2 env LD_PRELOAD="$lib" AUTOCOLL_ALLGATHER=linear AUTOCOLL_BCAST=linear "$demo" 100 2 >"$out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ' same$' "$out")" -eq 12 ] && ok "ranks with different environments agree" \
  || bad "ranks with different environments: exit $rc"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
