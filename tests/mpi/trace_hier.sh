#!/usr/bin/env bash
# Stage records of the trees inside node-aware calls (docs/tracing.md, "Stage records of
# hierarchical calls"; seed 003 §4): trace_hier.c with bcast and reduce `hier` and allreduce
# `hierarchical` forced and collective tracing, at p = 6 on emulated nodes of 3 ranks (two
# nodes) and of 2 ranks (three nodes); ac_trace_hier_check checks every call's intra-node and
# inter-node trees (which ranks, labels, shape, roots, stamp order). Then gather, scatter,
# allgather and alltoall `hier` (trace_hier.c steps) on the same layouts, their intra-node
# trees checked the same way (ac_trace_hier_check ... steps); autocoll-report's
# tables of both runs (section "Stages of hierarchical calls"): every call complete and every
# rank's path formed, both identities within the clock uncertainty (as the report computes
# them, and on its printed per-rank means: total = down + up with and without arrival waits),
# no stamp out of order, the signs of the metrics, and the number of samples of each metric and
# part counted by hand from the algorithms (trace_hier_report.sh).
# usage: trace_hier.sh TRACE_HIER TRACE_HIER_CHECK REPORT MPIEXEC [mpiexec flags...]
set -u
prog=$1 check=$2 report=$3 mpiexec=$4
shift 4
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/trace_hier_report.sh"

for ppn in 3 2; do
    d="$tmp/t$ppn"
    mkdir "$d"
    "$mpiexec" "$@" -np 6 env AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$d" \
        AUTOCOLL_NODE_LAYOUT=block:$ppn AUTOCOLL_BCAST=hier AUTOCOLL_REDUCE=hier \
        AUTOCOLL_ALLREDUCE=hierarchical "$prog" >"$tmp/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] && ok "p = 6, nodes of $ppn: results correct" ||
        { bad "p = 6, nodes of $ppn: exit code $rc"; cat "$tmp/out"; }
    "$check" "$d" 6 $ppn >"$tmp/check" 2>&1 &&
        ok "nodes of $ppn: stage records ($(tail -1 "$tmp/check"))" ||
        { bad "nodes of $ppn: stage records"; cat "$tmp/check"; }
    rep="$tmp/rep$ppn"
    "$report" "$d" >"$rep" 2>&1 || { bad "nodes of $ppn: autocoll-report failed"; cat "$rep"; }
    check_hier_report "$rep" $ppn "$tmp/check"

    # Gather, scatter, allgather, alltoall `hier`: their step and tree records.
    d="$tmp/s$ppn"
    mkdir "$d"
    "$mpiexec" "$@" -np 6 env AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$d" \
        AUTOCOLL_NODE_LAYOUT=block:$ppn AUTOCOLL_GATHER=hier AUTOCOLL_SCATTER=hier \
        AUTOCOLL_ALLGATHER=hier AUTOCOLL_ALLTOALL=hier "$prog" steps >"$tmp/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] && ok "steps, nodes of $ppn: results correct" ||
        { bad "steps, nodes of $ppn: exit code $rc"; cat "$tmp/out"; }
    "$check" "$d" 6 $ppn steps >"$tmp/check" 2>&1 &&
        ok "steps, nodes of $ppn: tree records ($(tail -1 "$tmp/check"))" ||
        { bad "steps, nodes of $ppn: tree records"; cat "$tmp/check"; }
    rep="$tmp/reps$ppn"
    "$report" "$d" >"$rep" 2>&1 || { bad "steps, nodes of $ppn: autocoll-report failed"; cat "$rep"; }
    check_steps_report "$rep" $ppn "$tmp/check"
done

# The leaders' part of allreduce `hierarchical` as allreduce `tree`: it leaves no whole-call
# record of its own (those would carry the leaders' communicator and call numbers), but part
# records of its rank-level tree (inter-node reduce and bcast trees over the leaders), which
# the checker and the report's tables see.
d="$tmp/tt"
mkdir "$d"
"$mpiexec" "$@" -np 6 env AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$d" \
    AUTOCOLL_NODE_LAYOUT=block:2 AUTOCOLL_BCAST=hier AUTOCOLL_REDUCE=hier \
    AUTOCOLL_ALLREDUCE=hierarchical:inter=tree "$prog" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "hierarchical:inter=tree: results correct" ||
    { bad "hierarchical:inter=tree: exit code $rc"; cat "$tmp/out"; }
"$check" "$d" 6 2 tree >"$tmp/check" 2>&1 &&
    ok "hierarchical:inter=tree: stage records ($(tail -1 "$tmp/check"))" ||
    { bad "hierarchical:inter=tree: stage records"; cat "$tmp/check"; }
rep="$tmp/rept"
"$report" "$d" >"$rep" 2>&1 || { bad "inter=tree: autocoll-report failed"; cat "$rep"; }
check_tree_report "$rep" 2

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
