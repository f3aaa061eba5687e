#!/bin/sh
# abi_mismatch.sh LIBAUTOCOLL DIR: libautocoll built for Open MPI, preloaded into a program built
# with MPICH (Debian's mpich package: mpicc.mpich, mpirun.mpich), must say once that it was built
# for the other MPI and stay out of the way: the program runs and gets correct results. Skipped
# (77) without MPICH or when the library was not built for Open MPI. Needs the call of
# ac_mpi_abi_check at the start of the MPI_Init / MPI_Init_thread wrappers (src/pmpi/wrappers.c).
lib=$1
dir=$2
command -v mpicc.mpich >/dev/null && command -v mpirun.mpich >/dev/null || {
    echo "MPICH (mpicc.mpich, mpirun.mpich) not installed: skipped"
    exit 77
}
ldd "$lib" | grep -q 'libmpi\.so\.40' || {
    echo "$lib is not built for Open MPI: skipped"
    exit 77
}
mkdir -p "$dir" && cd "$dir" || exit 1
cat >probe.c <<'PROBE'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int me, p, x, got[64], ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    x = me;
    MPI_Allgather(&x, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < p; i++) ok &= got[i] == i;
    if (me == 0) printf("probe: p=%d allgather %s\n", p, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return !ok;
}
PROBE
mpicc.mpich probe.c -o probe || exit 1
out=$(timeout 120 mpirun.mpich -np 3 env LD_PRELOAD="$lib" ./probe 2>&1)
rc=$?
printf '%s\n' "$out"
fail=0
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; fail=1; }
printf '%s\n' "$out" | grep -q "probe: p=3 allgather ok" || { echo "FAIL: no correct result"; fail=1; }
n=$(printf '%s\n' "$out" | grep -c "autocoll library was built for Open MPI, but the program runs with 'MPICH")
[ "$n" -eq 1 ] || { echo "FAIL: $n messages about the MPI mismatch (expected 1)"; fail=1; }
exit $fail
