#!/usr/bin/env bash
# Stage records of the trees inside node-aware calls under SimGrid (docs/tracing.md, "Stage
# records of hierarchical calls"): tests/mpi/trace_hier.c built with smpicc, p = 6 on the
# 64-host cluster, emulated nodes of 3 and of 2 ranks, bcast/reduce `hier` and allreduce
# `hierarchical` forced and traced; ac_trace_hier_check checks every call (simulated time is
# global: the stamp order across ranks is exact). Then the same program's gather, scatter,
# allgather and alltoall `hier` run, their intra-node trees checked the same way;
# autocoll-report's hierarchical stage tables of both runs
# are checked as in tests/mpi/trace_hier.sh (tests/mpi/trace_hier_report.sh): with the global
# clock the identities are exact (uncertainty 0) and no edge is negative.
# usage: trace_hier_sim.sh SMPIRUN PLATFORM HOSTFILE TRACE_HIER_SIM TRACE_HIER_CHECK OUTDIR REPORT
set -u
smpirun=$1 plat=$2 hosts=$3 prog=$4 check=$5 out=$6 report=$7
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; }
rm -rf "$out"
. "$(dirname "$0")/../mpi/trace_hier_report.sh"
for ppn in 3 2; do
    d="$out/t$ppn"
    mkdir -p "$d"
    AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$d" AUTOCOLL_NODE_LAYOUT=block:$ppn \
        AUTOCOLL_BCAST=hier AUTOCOLL_REDUCE=hier AUTOCOLL_ALLREDUCE=hierarchical \
        "$smpirun" -np 6 -platform "$plat" -hostfile "$hosts" \
        --cfg=smpi/simulate-computation:no --log=root.thres:critical "$prog" >"$out/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] && ok "simulated p = 6, nodes of $ppn: results correct" ||
        { bad "simulated p = 6, nodes of $ppn: exit code $rc"; cat "$out/out"; }
    "$check" "$d" 6 $ppn >"$out/check" 2>&1 &&
        ok "nodes of $ppn: stage records ($(tail -1 "$out/check"))" ||
        { bad "nodes of $ppn: stage records"; cat "$out/check"; }
    "$report" "$d" >"$out/rep$ppn" 2>&1 || { bad "nodes of $ppn: autocoll-report failed"; }
    check_hier_report "$out/rep$ppn" $ppn "$out/check"
    d="$out/s$ppn"
    mkdir -p "$d"
    AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$d" AUTOCOLL_NODE_LAYOUT=block:$ppn \
        AUTOCOLL_GATHER=hier AUTOCOLL_SCATTER=hier AUTOCOLL_ALLGATHER=hier AUTOCOLL_ALLTOALL=hier \
        "$smpirun" -np 6 -platform "$plat" -hostfile "$hosts" \
        --cfg=smpi/simulate-computation:no --log=root.thres:critical "$prog" steps >"$out/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] && ok "simulated steps, nodes of $ppn: results correct" ||
        { bad "simulated steps, nodes of $ppn: exit code $rc"; cat "$out/out"; }
    "$check" "$d" 6 $ppn steps >"$out/check" 2>&1 &&
        ok "steps, nodes of $ppn: tree records ($(tail -1 "$out/check"))" ||
        { bad "steps, nodes of $ppn: tree records"; cat "$out/check"; }
    "$report" "$d" >"$out/reps$ppn" 2>&1 || { bad "steps, nodes of $ppn: autocoll-report failed"; }
    check_steps_report "$out/reps$ppn" $ppn "$out/check"
done
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
