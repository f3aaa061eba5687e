#!/bin/sh
# autocoll-bench and autocoll-tune see the topology algorithms (docs/topology.md) exactly when
# AUTOCOLL_TOPOLOGY covers their communicator (autocoll_topology_applies).
#   topo_bench.sh AUTOCOLL-BENCH AUTOCOLL-TUNE TOPODIR WORKDIR MPIRUN...
# 1. With tests/mpi/topo/p4.topo at p = 4, autocoll-bench runs and validates alltoall topo_aapc
#    (default and dummy schemes), allgather topo_ring and bcast topo_chain/topo_tree: every size
#    Pass, none skipped.
# 2. Without the variable, the same instances are skipped with the restriction's reason.
# 3. autocoll-tune with the file measures the topology instances (none left out).
bench=$1 tune=$2 dir=$3 work=$4
shift 4
fails=0
mkdir -p "$work" && cd "$work" || exit 1
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
args="-c -m 1:4096 -i 2 -x 1"

AUTOCOLL_TOPOLOGY=$dir/p4.topo "$@" -n 4 "$bench" $args -C alltoall \
    -a topo_aapc,topo_aapc:sync=receiver_part2,topo_aapc_notoken:sync=dummy >a2a.out 2>&1 ||
    bad "bench alltoall with a topology exited with $?"
{ AUTOCOLL_TOPOLOGY=$dir/p4.topo "$@" -n 4 "$bench" $args -C allgather -a topo_ring &&
    AUTOCOLL_TOPOLOGY=$dir/p4.topo "$@" -n 4 "$bench" $args -C bcast -a topo_chain,topo_tree; } \
    >other.out 2>&1 || bad "bench allgather/bcast with a topology exited with $?"
for f in a2a.out other.out; do
    grep -q 'skipped' $f && bad "$f: an instance was skipped"
    grep -Eq 'Fail|VALIDATION' $f && bad "$f: a validation failed"
done
[ "$(grep -c 'Pass$' a2a.out)" -eq 39 ] || bad "a2a.out: 3 instances x 13 sizes must pass"
[ "$(grep -c 'Pass$' other.out)" -eq 39 ] || bad "other.out: 3 instances x 13 sizes must pass"

"$@" -n 4 "$bench" $args -C alltoall -a topo_aapc >none.out 2>&1 ||
    bad "bench without a topology exited with $?"
grep -q 'topo_aapc: skipped (needs a topology file' none.out ||
    bad "without AUTOCOLL_TOPOLOGY topo_aapc must be skipped with its reason"

AUTOCOLL_TOPOLOGY=$dir/p4.topo "$@" -n 4 "$tune" -C alltoall -m 64:64 -i 2 -x 1 --budget 20 \
    -o table.json >tune.out 2>&1 || bad "tune with a topology exited with $?"
grep -q 'topo_aapc.*left out' tune.out && bad "tune left a topology algorithm out"
grep -q 'topo_aapc_notoken:sync=dummy' tune.out || bad "tune did not measure the dummy scheme"

for f in a2a.out other.out none.out tune.out; do
    [ $fails -eq 0 ] || { echo "--- $f"; cat $f; }
done
[ $fails -eq 0 ] && echo "topo_bench: all checks passed"
exit $fails
