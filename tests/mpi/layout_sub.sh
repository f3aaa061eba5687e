#!/usr/bin/env bash
# Layouts of sub-communicators from MPI_COMM_WORLD's (src/core/context.c), in SimGrid on the 8W
# SMP cluster with 29 ranks placed unevenly (7, 8, 8 and 6 per host, not in rank order): every
# communicator of tests/mpi/layout_sub.c has the layout MPI's shared-memory split of the world
# gives and the node-aware algorithms' results (the program checks both); the world is laid out
# by communication, every later communicator of rank 0 without (AUTOCOLL_VERBOSE=2 lines).
# Usage: layout_sub.sh SMPIRUN BIN PLATFORM_XML
set -u
smpirun=$1 bin=$2 xml=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in 0 0 0 1 1 1 1 1 1 1 2 2 0 3 3 3 3 3 2 2 2 2 2 1 0 0 0 3 2; do echo "smp8w-$h"; done >"$tmp/hosts"
AUTOCOLL_VERBOSE=2 timeout 300 "$smpirun" -np 29 -platform "$xml" -hostfile "$tmp/hosts" \
    --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi --log=root.thres:critical \
    "$bin" >"$tmp/out" 2>&1
rc=$?
fail=0
grep -q '^layout_sub: 6 communicators, 0 bad$' "$tmp/out" && [ $rc = 0 ] && echo "ok: layouts and node-aware results" ||
    { echo "FAIL: layouts or results (status $rc)"; grep 'layout_sub' "$tmp/out" | head; fail=1; }
byc=$(grep -c '^autocoll\[0\]: comm [0-9]*: .*layout found by communication' "$tmp/out")
local=$(grep -c '^autocoll\[0\]: comm [0-9]*: .*layout from MPI_COMM_WORLD.s (no communication)' "$tmp/out")
[ "$byc" = 1 ] && [ "$local" -ge 5 ] && echo "ok: the world by communication, $local later communicators without" ||
    { echo "FAIL: $byc layouts by communication, $local without"; grep '^autocoll\[0\]: comm' "$tmp/out"; fail=1; }
exit $fail
