#!/usr/bin/env bash
# The adaptive engine's summary gives the arrival pattern of each key's calls (docs/adaptive.md,
# spec star-stage-ethernet.md §6.1). p = 3, 150 allreduces of 8 B chosen by the engine:
#  - the last rank sleeps D = 3000 us before every call: the key's mean worst-case imbalance,
#    over the calls it measured in and over all its calls, is at least 0.75 D (the other ranks
#    enter a call when they leave the previous one, which on 2 shared cores can be a few hundred
#    us after the late rank left it) and at most 2 D + 2 ms (sleep overshoot on a loaded
#    machine), and the
#    worst-case factor is that time over T(8 B) of the summary's network model (1 %);
#  - no delay: a mean worst-case imbalance below D / 10;
#  - a duplicate communicator used for 60 delayed calls of 32 B and freed before the others: its
#    key's line, written at MPI_Finalize, has the same range;
#  - tracing off: "arrival not measured".
# usage: adapt_arrival.sh PROG MPIEXEC [mpiexec flags...]
set -u
prog=$1 mpiexec=$2
shift 2
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=3000

# Fields of the allreduce key's line: measuring calls, avg, worst, worst_imb; all calls, ...
fields() {
  sed -n 's/.*adaptive comm [0-9]* allreduce 8 B: .*, arrival measuring \([0-9]*\) calls avg_factor \([0-9.]*\) worst_factor \([0-9.]*\) max [0-9.]* worst_imb \([0-9.]*\) us; all \([0-9]*\) calls avg_factor \([0-9.]*\) worst_factor \([0-9.]*\) max [0-9.]* worst_imb \([0-9.]*\) us$/\1 \2 \3 \4 \5 \6 \7 \8/p' "$1"
}
# T(8 B) in us from the arrival-pattern header of the same run
tof() {
  sed -n 's/.*arrival patterns (T = \([0-9.e+-]*\) us + \([0-9.e+-]*\) ns\/B;.*/\1 \2/p' "$1" |
      awk '{printf "%.6f", $1 + $2 * 8 / 1000}'
}

"$mpiexec" "$@" -np 3 env AUTOCOLL_VERBOSE=1 AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$tmp" \
    "$prog" 150 $D >"$tmp/late" 2>&1
rc=$?
f=$(fields "$tmp/late") T=$(tof "$tmp/late")
echo "delay $D us: T $T us; measuring n avg worst imb, all n avg worst imb: $f"
[ $rc -eq 0 ] && [ -n "$f" ] && [ -n "$T" ] && ok "delayed run: the key's line has its arrival pattern" ||
    { bad "delayed run (status $rc)"; grep -E 'adaptive comm|arrival' "$tmp/late"; }
# the freed duplicate's key: its line written at MPI_Finalize with its 60 calls' pattern
g=$(sed -n 's/.*adaptive comm [0-9]* allreduce 32 B: .*, arrival .*; all 60 calls avg_factor [0-9.]* worst_factor [0-9.]* max [0-9.]* worst_imb \([0-9.]*\) us$/\1/p' "$tmp/late")
echo "freed duplicate, 32 B: mean worst-case imbalance $g us"
[ -n "$g" ] && awk -v D=$D -v i="$g" 'BEGIN {exit !(i >= 0.75 * D && i <= 2 * D + 2000)}' &&
    ok "freed communicator: its key's line has the arrival pattern of its 60 calls" ||
    { bad "freed communicator ($g)"; grep -E 'adaptive comm' "$tmp/late"; }
echo "$f" | awk -v D=$D -v T="$T" '{
    good = $1 > 0 && $5 == 150
    for (k = 0; k < 2; k++) {
      w = $(3 + 4 * k); i = $(4 + 4 * k)
      good = good && i >= 0.75 * D && i <= 2 * D + 2000 && (w * T - i) <= 0.01 * i + 0.01 &&
             (i - w * T) <= 0.01 * i + 0.01
    }
    exit !good }' &&
    ok "delayed run: worst-case imbalance in [0.75 D, 2 D + 2 ms], factor = imbalance / T" ||
    bad "delayed run: worst-case figures out of range ($f, T $T)"

"$mpiexec" "$@" -np 3 env AUTOCOLL_VERBOSE=1 AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$tmp" \
    "$prog" 150 0 >"$tmp/even" 2>&1
rc=$?
f=$(fields "$tmp/even") T=$(tof "$tmp/even")
echo "no delay: T $T us; $f"
echo "$f" | awk -v D=$D -v T="$T" '{exit !($5 == 150 && $8 < D / 10 && $7 * T < D / 10)}' &&
    [ $rc -eq 0 ] && ok "no delay: mean worst-case imbalance below D / 10" ||
    { bad "no delay (status $rc): $f"; grep -E 'adaptive comm|arrival' "$tmp/even"; }

"$mpiexec" "$@" -np 3 env AUTOCOLL_VERBOSE=1 "$prog" 20 0 >"$tmp/off" 2>&1
grep -q 'adaptive comm [0-9]* allreduce 8 B: .*, arrival not measured (collective tracing off)$' "$tmp/off" &&
    ok "tracing off: arrival not measured" || { bad "tracing off"; grep 'adaptive comm' "$tmp/off"; }
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
