#!/bin/sh
# p2p.sh FC BINDING LIB SRC CHECK REPORT DIR MPIEXEC [mpiexec flags...]
# The Fortran point-to-point program (SRC = p2p.F90, docs/fortran.md) built with the MPI's
# Fortran compiler wrapper FC for one binding (mpifh, mpi, f08), with the library LIB
# preloaded, run on 3 ranks:
#  1. without tracing: every value, status, index, flag and request handle right (the program
#     checks them), its "result" lines kept as the reference;
#  2. AUTOCOLL_TRACE=p2p: the same results; the trace files hold exactly the records of the
#     program's calls (CHECK = ac_fortran_p2p_check: events with kind, peer, tag, size, flags
#     and status source, one completion record per nonblocking or persistent receive, the
#     waits, tests and probes, call sites in the program); autocoll-report (REPORT) pairs them:
#     per rank 22 sends (the two of tags 13 and 14 have no traced receive: MPI_Mrecv and
#     MPI_Imrecv are not receive events) and 20 receives, so 66 sends, 60 receives, 60 pairs
#     timed, none untimed, no persistent start left out;
#  3. AUTOCOLL_TRACE=p2p with AUTOCOLL_PREPOST=1: the same results and the same records.
# Exit 77 (skipped) when FC or MPIEXEC is not installed or FC cannot build a Fortran program.
set -u
fc=$1 binding=$2 lib=$3 src=$4 check=$5 report=$6 dir=$7 mpiexec=$8
shift 8
. "$(dirname "$0")/common.sh"
# -O0: the MPI_BOTTOM exchange writes a variable the compiler does not see passed.
"$fc" -cpp -O0 $flags -o p2p "$src" >build.log 2>&1 ||
  { cat build.log; echo "FAIL: $fc could not build the $binding program"; exit 1; }
launch="$*"

# run NAME "VAR=VALUE...": the program on 3 ranks with these settings; NAME.out, NAME.res (its
# result lines, sorted).
run() {
  timeout 120 "$mpiexec" $launch -n 3 env LD_PRELOAD="$lib" $2 ./p2p >"$1.out" 2>&1
  rc=$?
  grep '^result ' "$1.out" | sort >"$1.res"
  if [ $rc -eq 0 ] && grep -q '^fortran p2p: all ok' "$1.out" && ! grep -q FAIL "$1.out" &&
     [ "$(wc -l <"$1.res")" -eq 3 ]; then
    ok "$1: every value, status, index, flag and request right"
  else
    sed -n '1,40p' "$1.out"
    bad "$1: exit $rc or wrong results"
  fi
}

run plain ""

rm -rf tr && mkdir tr
run traced "AUTOCOLL_TRACE=p2p AUTOCOLL_TRACE_DIR=$dir/tr"
cmp -s plain.res traced.res && ok "traced: the same results as without tracing" ||
  { bad "traced: results differ from the run without tracing"; diff plain.res traced.res; }
"$check" tr 3 >check.out 2>&1 && ok "traced: every record as the program's calls" ||
  { bad "traced: trace records"; head -30 check.out; }
"$report" tr >report.out 2>&1 || bad "autocoll-report exit code"
ea=$(sed -n '/^## Early arrival/,/^Left out/p' report.out)
echo "$ea" | grep -q '; 66 sends, 60 receives, 60 pairs timed, 0 paired without a time\.' &&
  echo "$ea" | grep -q ' 0 persistent starts, 0 completions without their receive\.' &&
  ok "report: 66 sends, 60 receives, all 60 paired with a time" ||
  { bad "report: early-arrival counts"; echo "$ea"; }

rm -rf trp && mkdir trp
run prepost "AUTOCOLL_PREPOST=1 AUTOCOLL_TRACE=p2p AUTOCOLL_TRACE_DIR=$dir/trp"
cmp -s plain.res prepost.res && ok "prepost: the same results as without tracing" ||
  { bad "prepost: results differ"; diff plain.res prepost.res; }
"$check" trp 3 >checkp.out 2>&1 && ok "prepost: every record as the program's calls" ||
  { bad "prepost: trace records"; head -30 checkp.out; }

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
