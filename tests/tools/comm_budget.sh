#!/bin/sh
# comm_budget.sh LIBAUTOCOLL_MPICH SOURCE DIR: the communicator budget under MPICH, whose limit
# on live communicators is low (2046 on Debian's MPICH 4.0). comm_budget.c duplicates
# MPI_COMM_WORLD until MPICH refuses, with an allreduce on each; run natively and with the
# library (built for MPICH) preloaded, in the default mode. The library must cost at most one
# communicator per user communicator (count >= native / 2 - 2), never abort the job when MPICH
# runs out, keep every collective working at the limit, and say so once.
# Skipped (77) without MPICH.
lib=$1
src=$2
dir=$3
command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null || {
    echo "MPICH (mpicc.mpich, mpiexec.mpich) not installed: skipped"
    exit 77
}
[ -f "$lib" ] || { echo "no MPICH build of the library at $lib"; exit 1; }
mkdir -p "$dir" && cd "$dir" || exit 1
mpicc.mpich -O1 -o comm_budget "$src" || exit 1
fail=0
timeout 300 mpiexec.mpich -n 2 ./comm_budget >native.out 2>&1 || fail=1
timeout 600 mpiexec.mpich -n 2 -genv LD_PRELOAD "$lib" ./comm_budget >lib.out 2>&1 || fail=1
cat native.out lib.out
n0=$(sed -n 's/^communicators //p' native.out)
n1=$(sed -n 's/^communicators //p' lib.out)
[ -n "$n0" ] && [ -n "$n1" ] || { echo "FAIL: no counts"; exit 1; }
echo "native $n0 communicators, with autocoll $n1 (ratio $(awk "BEGIN{printf \"%.3f\", $n1/$n0}"))"
[ "$n1" -ge $((n0 / 2 - 2)) ] || { echo "FAIL: more than one communicator per user communicator"; fail=1; }
grep -q '^collectives ok' lib.out || { echo "FAIL: collectives at the limit"; fail=1; }
said=$(grep -c 'cannot create the private communicator' lib.out)
[ "$said" -eq 1 ] || { echo "FAIL: the limit was reported $said times (want once)"; fail=1; }
[ $fail -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
