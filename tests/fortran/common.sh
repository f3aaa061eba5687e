# Shared by fortran.sh and p2p.sh (sourced): skip (exit 77) when the Fortran compiler $fc or the
# launcher $mpiexec is missing or cannot build a program; fail without the library $lib; enter
# $dir; ok/bad counters; the compiler flags of binding $binding (mpifh, mpi or f08) in $flags.
command -v "$fc" >/dev/null 2>&1 || { echo "$fc not installed: skipped"; exit 77; }
command -v "$mpiexec" >/dev/null 2>&1 || { echo "$mpiexec not installed: skipped"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: no library at $lib"; exit 1; }
mkdir -p "$dir" && cd "$dir" || exit 1
printf 'program hello\nend program hello\n' >hello.f90
"$fc" -o hello hello.f90 >/dev/null 2>&1 || { echo "$fc cannot build Fortran programs: skipped"; exit 77; }
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; }

case $binding in
mpifh) flags="-DBIND_MPIFH -fallow-argument-mismatch" ;;
mpi) flags="-DBIND_MPI -fallow-argument-mismatch" ;;
f08) flags="-DBIND_F08" ;;
*) echo "unknown binding $binding"; exit 2 ;;
esac
