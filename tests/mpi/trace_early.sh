#!/usr/bin/env bash
# Early arrival of receives end to end (trace_early.c): at p = 3 with AUTOCOLL_TRACE=p2p, the
# report's per-process early-arrival table and average must equal the hand counts of the
# program's comment: rank 0 6 paired / 4 early, rank 1 16 / 8, rank 2 6 / 2, average 50.0 %.
# Breaks it catches: the early comparison flipped (rows 0 and 2: rank 1's 50 % and the average
# are symmetric under the flip), MPI_Irecv timed at its posting (row 1), the completing wait
# instead of the first that listed the request (row 1), pairing without the communicator
# (row 0, case 9). Clock offsets are about 0 on one machine: test_trace_pairs covers them.
# usage: trace_early.sh TRACE_EARLY AUTOCOLL_REPORT MPIEXEC [mpiexec flags...]
set -u
prog=$1 report=$2 mpiexec=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { fails=1; echo "FAIL $1"; }
"$mpiexec" "$@" -np 3 env AUTOCOLL_TRACE=p2p AUTOCOLL_TRACE_DIR="$tmp" "$prog" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "program exits 0 (every message where expected)" ||
    { bad "program exit $rc"; cat "$tmp/out"; }
"$report" "$tmp" >"$tmp/rep" 2>&1 || { bad "autocoll-report failed"; cat "$tmp/rep"; }
sed -n '/^## Early arrival/,/^Left out/p' "$tmp/rep" >"$tmp/ea"
for row in '| 0 | 6 | 6 | 4 | 66.7 | 0 |' '| 1 | 16 | 16 | 8 | 50.0 | 0 |' '| 2 | 6 | 6 | 2 | 33.3 | 0 |'; do
  grep -qxF "$row" "$tmp/ea" && ok "row $row" || bad "row $row"
done
grep -q '^Early receives: 50.0 % of paired receives, average over processes (min 33.3 %, max 66.7 %); 28 sends, 28 receives, 28 pairs timed, 0 paired without a time' "$tmp/ea" &&
    ok "average 50.0 % (min 33.3, max 66.7), 28 pairs" || bad "summary line"
grep -q '^Left out: 0 sends or receives .*, 0 wildcard .*, 0 persistent starts, 0 completions' "$tmp/ea" &&
    ok "nothing left out" || bad "left-out line"
[ $fails -eq 0 ] || cat "$tmp/ea"
exit $fails
