#!/usr/bin/env bash
# Tracing changes no result, and its files are written and parsed at every process count: the
# correctness matrix (quick level: every registered instance of every collective, compared with
# the MPI library's result on every rank) runs with AUTOCOLL_TRACE=all at p = 1..8; each run
# must pass, leave one trace file per rank, and autocoll-report must read them and list every
# collective the matrix called.
# usage: trace_matrix.sh MATRIX AUTOCOLL_REPORT MPIEXEC [mpiexec flags...]
set -u
matrix=$1 report=$2 mpiexec=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
colls="allgather allgatherv alltoall alltoallv bcast reduce allreduce reduce_scatter
reduce_scatter_block gather scatter barrier"
for p in 1 2 3 4 5 6 7 8; do
    d="$tmp/p$p"
    mkdir "$d"
    if ! "$mpiexec" "$@" -np "$p" env AUTOCOLL_TRACE=all AUTOCOLL_TRACE_DIR="$d" \
        "$matrix" --level quick >"$d.out" 2>&1 || ! grep -Eq '^[0-9]+ passed, 0 failed' "$d.out"; then
        echo "FAIL p=$p: the matrix with tracing on"
        tail -20 "$d.out"
        fails=$((fails + 1))
        continue
    fi
    n=$(ls "$d" | grep -c '^autocoll-trace\.[0-9]*\.bin$')
    [ "$n" -eq "$p" ] || { echo "FAIL p=$p: $n trace files"; fails=$((fails + 1)); }
    if ! "$report" "$d" >"$d.rep" 2>&1; then
        echo "FAIL p=$p: autocoll-report"
        head -20 "$d.rep"
        fails=$((fails + 1))
        continue
    fi
    # The table of collective calls names each collective in its third column.
    listed=$(awk -F'|' '/^## Collective calls/{a=1; next} /^## /{a=0} a {gsub(/ /, "", $3); print $3}' \
        "$d.rep" | sort -u)
    for c in $colls; do
        echo "$listed" | grep -qx "$c" || { echo "FAIL p=$p: $c not in the report"; fails=$((fails + 1)); }
    done
    echo "ok   p=$p: matrix passed traced, $n files, the report lists every collective"
done
[ $fails -eq 0 ]
