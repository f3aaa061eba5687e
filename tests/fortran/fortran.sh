#!/bin/sh
# fortran.sh FC BINDING MODE LIB SRC DIR MPIEXEC [mpiexec flags...]
# A Fortran program (SRC = colls.F90) built with the MPI's Fortran compiler wrapper FC for one
# binding (mpifh: include 'mpif.h', mpi: use mpi, f08: use mpi_f08), with the library LIB
# preloaded (MODE preload) or linked before the MPI libraries (MODE link), run on 3 ranks. The
# settings are given to rank 0 only: the library must take them from there at the Fortran
# MPI_INIT (a library set up without seeing it would use local settings on the other ranks,
# which then run other algorithms: wrong results, errors or a hang, cut by a timeout).
#  1. MPI_INIT; every collective forced to autocoll's linear algorithm, AUTOCOLL_VERBOSE=1:
#     every result right (the program compares each with values it computes: integers, bit
#     for bit), each of the 12 collectives logged as served by autocoll, and the finalize
#     summary (the Fortran MPI_FINALIZE) counting exactly the calls the program made (in-place
#     variants included), with no fallback;
#  2. MPI_INIT_THREAD; the default (adaptive) mode but bcast and alltoallv forced: results
#     right, every call counted in the summary;
#  3. AUTOCOLL_DISABLE=1 (every rank): results right through the MPI library's collectives.
# Exit 77 (skipped) when FC or MPIEXEC is not installed or FC cannot build a Fortran program.
set -u
fc=$1 binding=$2 mode=$3 lib=$4 src=$5 dir=$6 mpiexec=$7
shift 7
. "$(dirname "$0")/common.sh"
# -O0: the MPI_BOTTOM broadcast writes a variable the compiler does not see passed.
if [ "$mode" = link ]; then
  "$fc" -cpp -O0 $flags -o colls "$src" "$lib" -Wl,-rpath,"$(dirname "$lib")" >build.log 2>&1
  rc=$?
  pre=
else
  "$fc" -cpp -O0 $flags -o colls "$src" >build.log 2>&1
  rc=$?
  pre="LD_PRELOAD=$lib"
fi
[ $rc -eq 0 ] || { cat build.log; echo "FAIL: $fc could not build the $binding program"; exit 1; }
if [ "$mode" = link ]; then
  readelf -d colls | grep -q "NEEDED.*libautocoll" && ok "linked with libautocoll" \
    || bad "the program does not link libautocoll"
fi

colls="allgather allgatherv alltoall alltoallv bcast reduce allreduce reduce_scatter
       reduce_scatter_block gather scatter barrier"
force=
for c in $colls; do
  force="$force AUTOCOLL_$(echo "$c" | tr a-z A-Z)=linear"
done

# run NAME "VAR=VALUE..." "VAR=VALUE...": the program on 3 ranks, the first settings on every
# rank, the second on rank 0 only; output in NAME.out; exit code, results and error codes checked.
run() {
  name=$1
  timeout 60 "$mpiexec" $launch -n 1 env $pre $2 $3 ./colls : -n 2 env $pre $2 ./colls \
    >"$name.out" 2>&1
  rc=$?
  if [ $rc -eq 0 ] && grep -q '^fortran collectives: all ok' "$name.out" &&
     grep -q '^finalize ok' "$name.out" && ! grep -q FAIL "$name.out"; then
    ok "$name: every result and error code right"
  else
    sed -n '1,60p' "$name.out"
    bad "$name: exit $rc or wrong results"
  fi
}
# The calls the program made and the summary's count (summed over algorithms), per collective.
summary_counts() {
  out=$1 alg=$2
  for c in $colls; do
    want=$(awk -v c="$c" '$1 == "calls" && $2 == c { print $3 }' "$out")
    got=$(awk -v c="$c" -v a="$alg" '$2 == "summary" && $3 == c && (a == "" || $4 == a) \
          { n += $5 } END { print n + 0 }' "$out")
    [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ] \
      && ok "$c: $want calls in the summary${alg:+ ($alg)}" \
      || bad "$c: the program made ${want:-?} calls, the summary counts $got${alg:+ ($alg)}"
  done
}

launch="$*" # the launcher's flags

# 1. forced linear, verbose
run forced "" "AUTOCOLL_VERBOSE=1 $force"
for c in $colls; do
  grep -qE " $c (\[|\().*-> linear \(forced\)" forced.out && ok "$c served by autocoll (log)" \
    || bad "$c: no log line showing autocoll's algorithm"
done
grep -q 'summary (max over ranks)' forced.out && ok "finalize summary" \
  || bad "no finalize summary (MPI_Finalize not seen)"
summary_counts forced.out linear
grep -q 'could not run' forced.out && bad "a forced instance could not run" \
  || ok "no fallback to the MPI library"

# 2. MPI_INIT_THREAD, default (adaptive) mode but two collectives
run default "AC_FTEST_INIT_THREAD=1" \
  "AUTOCOLL_VERBOSE=1 AUTOCOLL_BCAST=linear AUTOCOLL_ALLTOALLV=linear"
summary_counts default.out ""

# 3. disabled: the MPI library's collectives
run disabled AUTOCOLL_DISABLE=1 ""

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
