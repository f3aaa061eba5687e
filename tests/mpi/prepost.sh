#!/usr/bin/env bash
# Receive pre-posting end to end (docs/prepost.md): prepost_stress at p = 2..8 (1008 iterations
# in all, split over p), once with AUTOCOLL_PREPOST=0 and once with 1. Both runs must pass the
# program's own checks (statuses, counts, errors, data, MPI's order) and print the same
# per-rank digests; the runs with pre-posting must arm, capture and hit (AUTOCOLL_VERBOSE=1
# summary), and serve persistent receives created after their message was captured, so the test
# cannot pass by never speculating. Each run has a time limit (no hang).
# Odd p run without Open MPI's single-copy mechanism (long messages then take several progress
# steps, so a captured message's receive can still be running when it is delivered, and an
# MPI_Irecv served from it must return before it finishes: the program's 'outside' case, whose
# sender waits outside MPI).
# usage: prepost.sh PREPOST_STRESS MPIEXEC [mpiexec flags...]
# PREPOST_NPS: the process counts (default 2 to 8); PREPOST_ITERS: iterations per run (144).
set -u
prog=$1 mpiexec=$2
shift 2
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
iters=${PREPOST_ITERS:-144}
for np in ${PREPOST_NPS:-2 3 4 5 6 7 8}; do
    for pp in 0 1; do
        # odd p: Open MPI's shared-memory transport without single-copy, so long messages
        # match before they complete (a capture's receive still running at delivery)
        nocopy=$([ $((np % 2)) -eq 1 ] && echo none || echo "${OMPI_MCA_btl_vader_single_copy_mechanism:-}")
        OMPI_MCA_btl_vader_single_copy_mechanism=$nocopy \
        timeout 120 "$mpiexec" "$@" -np $np env AUTOCOLL_PREPOST=$pp AUTOCOLL_VERBOSE=1 \
            "$prog" --iters $iters --timeout 100 >"$tmp/out$pp" 2>"$tmp/err$pp"
        rc=$?
        [ $rc -eq 0 ] && ok "p=$np prepost=$pp: checks pass" ||
            { bad "p=$np prepost=$pp: exit code $rc"; head -20 "$tmp/out$pp" "$tmp/err$pp"; }
    done
    grep '^digest' "$tmp/out0" >"$tmp/d0"
    grep '^digest' "$tmp/out1" >"$tmp/d1"
    [ -s "$tmp/d0" ] && cmp -s "$tmp/d0" "$tmp/d1" && ok "p=$np: identical digests" ||
        { bad "p=$np: digests differ"; diff "$tmp/d0" "$tmp/d1" | head; }
    grep -q 'prepost:' "$tmp/err0" && bad "p=$np: pre-posting active although off" ||
        ok "p=$np: off means off"
    # sum over ranks of armed streams, hits, captures, served and early captures
    read -r armed hits capt served early < <(sed -n 's/.*prepost: \([0-9]*\) armed, \([0-9]*\) hits, \([0-9]*\) captured, \([0-9]*\) served from the queue (\([0-9]*\) captured before.*/\1 \2 \3 \4 \5/p' \
        "$tmp/err1" | awk '{a+=$1; b+=$2; c+=$3; d+=$4; e+=$5} END {print a+0, b+0, c+0, d+0, e+0}')
    [ "$armed" -gt 0 ] && [ "$hits" -gt 0 ] && [ "$served" -gt 0 ] && [ "$early" -gt 0 ] &&
        ok "p=$np: $armed armed, $hits hits, $capt captured, $served served from the queue ($early captured before the receiving call)" ||
        bad "p=$np: pre-posting not exercised ($armed armed, $hits hits, $served served, $early early)"
    # every p: persistent receives created after their message was captured got it
    pers=$(sed -n 's/.*, \([0-9]*\) persistent receive starts served.*/\1/p' "$tmp/err1" |
        awk '{a+=$1} END {print a+0}')
    [ "$pers" -gt 0 ] && ok "p=$np: $pers persistent receive starts served from the queue" ||
        bad "p=$np: no persistent receive start served from the queue"
    # odd p (no single-copy): some MPI_Irecv must have been served while its capture still ran
    # (it returned a request that completed later, as the 'outside' case needs)
    later=$(sed -n 's/.*, \([0-9]*\) non-blocking receives served before their capture finished.*/\1/p' \
        "$tmp/err1" | awk '{a+=$1} END {print a+0}')
    if [ $((np % 2)) -eq 1 ]; then
        [ "$later" -gt 0 ] && ok "p=$np: $later non-blocking receives served before their capture finished" ||
            bad "p=$np: no non-blocking receive served before its capture finished"
    fi
done
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
