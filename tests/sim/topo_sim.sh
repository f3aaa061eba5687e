#!/usr/bin/env bash
# The topology-specific algorithms in SimGrid (docs/topology.md; issue: p = 64 and 127, and
# token schemes above 256 ranks): a switch tree, its platform and host file from `autocoll-topo
# simgrid`, and tests/mpi/topo.c (every topology instance forced and compared byte for byte with
# the MPI library on every rank) with AUTOCOLL_TOPOLOGY naming the tree and AUTOCOLL_CHECK=1.
# usage: topo_sim.sh SMPIRUN AUTOCOLL_TOPO TOPO_SIM OUTDIR NP MODE TREE
#   MODE  quick, large or tokens (tests/mpi/topo.c --quick, --large, --tokens)
#   TREE  gen:MACHINES:MEAN:SEED:PPN  a random tree of `autocoll-topo generate`
#         two:A:B                     switches s0 (A machines) and s1 (B machines), one link
#         leaves:K:N                  a root switch s0 and K leaf switches cabled to it, N
#                                     machines on the leaves by turns (largest subtree N/K)
set -euo pipefail
smpirun=$1 topo=$2 prog=$3 out=$4 np=$5 mode=$6 tree=$7
mkdir -p "$out"
t="$out/p$np.topo"
IFS=: read -r kind a b c d <<<"$tree"
case $kind in
gen) "$topo" generate -n "$a" -m "$b" -s "$c" -p "$d" >"$t" ;;
two)
    {
        printf 'switch s0\nswitch s1\nlink s0 s1\n'
        for ((i = 0; i < a + b; i++)); do
            printf 'machine m%d s%d\n' "$i" $((i < a ? 0 : 1))
        done
    } >"$t"
    ;;
leaves)
    {
        printf 'switch s0\n'
        for ((k = 1; k <= a; k++)); do
            printf 'switch s%d\nlink s0 s%d\n' "$k" "$k"
        done
        for ((i = 0; i < b; i++)); do
            printf 'machine m%d s%d\n' "$i" $((1 + i % a))
        done
    } >"$t"
    ;;
*)
    echo "topo_sim.sh: unknown tree '$tree'" >&2
    exit 2
    ;;
esac
"$topo" simgrid "$t" "$out/p$np.xml" "$out/p$np.hosts"
# The reference collectives: at large p SMPI's `ompi` selector, as the other SimGrid tests
# (the default one's linear alltoall waits on all its requests at once, which SMPI serves in
# time quadratic in p: 80 % of a profiled sample of the former p = 127 run, which ran past an
# hour); --quick keeps the default selector, since SimGrid 3.32's ompi reduce divides by zero
# at count 0, which --quick calls.
sel=ompi
[ "$mode" = quick ] && sel=default
# SMPI exits 0 after it finds a deadlock: the program's own verdict line must be there too
log="$out/p$np.log"
AUTOCOLL_CHECK=1 AUTOCOLL_TOPOLOGY="$t" "$smpirun" -np "$np" -platform "$out/p$np.xml" \
    -hostfile "$out/p$np.hosts" --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:$sel \
    --log=root.thres:critical \
    "$prog" --expect use "--$mode" 2>&1 | tee "$log"
grep -qx "topo p=$np: ok (0 failed checks)" "$log"
