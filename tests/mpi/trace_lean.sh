#!/usr/bin/env bash
# The lean traced path writes the records of the full path (trace_lean.c): the same calls traced
# where the lean path is taken and with AUTOCOLL_VERBOSE=1 (every call through the full path),
# record for record, at p = 1 and 3, for the three ways a call reaches the MPI library's
# algorithm without the dispatcher: mode native, a forced native instance, and a settled adaptive
# key whose only candidate is the MPI library's algorithm.
# usage: trace_lean.sh AC_TRACE_LEAN MPIEXEC [mpiexec flags...]
set -u
prog=$1 mpiexec=$2
shift 2
flags=("$@")
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
colls="BCAST REDUCE ALLREDUCE ALLGATHER ALLTOALL REDUCE_SCATTER_BLOCK BARRIER"
for np in 1 3; do
  for case in mode forced adaptive; do
    set --
    case $case in
      mode) set -- AUTOCOLL_MODE=native ;;
      forced) for c in $colls; do set -- "$@" "AUTOCOLL_$c=native"; done ;;
      adaptive) for c in $colls; do set -- "$@" "AUTOCOLL_CANDIDATES_$c=native"; done ;;
    esac
    d=$tmp/$case$np
    mkdir -p "$d/lean" "$d/full"
    ok=1
    for way in lean full; do
      v=0
      [ $way = full ] && v=1
      "$mpiexec" "${flags[@]}" -np $np env AUTOCOLL_TRACE=collectives \
          AUTOCOLL_TRACE_DIR="$d/$way" AUTOCOLL_VERBOSE=$v "$@" "$prog" run >"$d/$way.out" 2>&1 ||
        { echo "FAIL $case p=$np: the $way run failed"; cat "$d/$way.out"; ok=0; }
    done
    if [ $ok = 1 ] && "$prog" cmp "$d/lean" "$d/full" $np >"$d/cmp" 2>&1; then
      echo "ok   $case p=$np: $(tail -1 "$d/cmp")"
    else
      fails=$((fails + 1))
      echo "FAIL $case p=$np"
      head -30 "$d/cmp" 2>/dev/null
    fi
  done
done
exit $((fails != 0))
