#!/usr/bin/env bash
# Phased arrival patterns end to end (trace_phases.c checks autocoll_arrival_windows); the
# finalize summary (AUTOCOLL_VERBOSE=1) names the alltoall's spike window, calls 22-31, and so
# does autocoll-report's phases section, from the trace files.
# usage: trace_phases.sh TRACE_PHASES AUTOCOLL_REPORT MPIEXEC [mpiexec flags...]
set -u
prog=$1 report=$2 mpiexec=$3
shift 3
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
# The report's phases: the alltoall's 4 windows, the one of calls 22-31 a spike whose latest
# rank is 2, the other three not.
"$report" "$tmp" >"$tmp/rep" 2>&1
rows=$(awk '/^## Phases/{a=1} /^## /&&!/^## Phases/{a=0} a && / alltoall /' "$tmp/rep")
[ "$(echo "$rows" | grep -c .)" -eq 4 ] &&
    echo "$rows" | awk -F'|' '{gsub(/ /, "", $5); gsub(/ /, "", $10); gsub(/ /, "", $12)}
      $5 == "22-31" {s++; ok = $12 == "yes" && $10 ~ /^2\((9|10)\)$/} $5 != "22-31" && $12 != "no" {bad++}
      END {exit !(s == 1 && ok && !bad)}' &&
    echo "ok   autocoll-report phases: 4 alltoall windows, the spike at calls 22-31, latest rank 2" ||
    { fails=1; echo "FAIL autocoll-report phases"; sed -n '/^## Phases/,/^## Arrival-factor/p' "$tmp/rep"; }
exit $fails
