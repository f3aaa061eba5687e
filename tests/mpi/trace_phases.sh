#!/usr/bin/env bash
# Phased arrival patterns end to end (trace_phases.c checks autocoll_arrival_windows); the
# finalize summary (AUTOCOLL_VERBOSE=1) names the alltoall's spike window, calls 22-31.
# usage: trace_phases.sh TRACE_PHASES MPIEXEC [mpiexec flags...]
set -u
prog=$1 mpiexec=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
"$mpiexec" "$@" -np 3 env AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$tmp" AUTOCOLL_VERBOSE=1 \
    "$prog" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && echo "ok   autocoll_arrival_windows: the spike window and its latest rank" ||
    { fails=1; echo "FAIL trace_phases exit $rc"; cat "$tmp/out"; }
grep -Eq 'phases 0\.0 alltoall [^ ]+ 10 4 ' "$tmp/out" &&
    grep -Eq 'spike 0\.0 alltoall [^ ]+ calls 22-31 .* latest 2:(9|10)$' "$tmp/out" &&
    echo "ok   finalize summary: 4 windows of 10, spike at calls 22-31, latest rank 2" ||
    { fails=1; echo "FAIL finalize summary"; grep -E 'phases|spike' "$tmp/out"; }
exit $fails
