#!/usr/bin/env bash
# The topology-specific algorithms in SimGrid (docs/topology.md; issue: p = 64 and 127): a random
# switch tree from `autocoll-topo generate`, its platform and host file from `autocoll-topo
# simgrid`, and tests/mpi/topo.c (--quick: every topology instance forced and compared byte for
# byte with the MPI library on every rank, on the world and two sub-communicators) with
# AUTOCOLL_TOPOLOGY naming the tree and AUTOCOLL_CHECK=1.
# usage: topo_sim.sh SMPIRUN AUTOCOLL_TOPO TOPO_SIM OUTDIR NP MACHINES MEAN SEED PPN
set -eu
smpirun=$1 topo=$2 prog=$3 out=$4 np=$5 n=$6 mean=$7 seed=$8 ppn=$9
mkdir -p "$out"
t="$out/p$np.topo"
"$topo" generate -n "$n" -m "$mean" -s "$seed" -p "$ppn" >"$t"
"$topo" simgrid "$t" "$out/p$np.xml" "$out/p$np.hosts"
AUTOCOLL_CHECK=1 AUTOCOLL_TOPOLOGY="$t" "$smpirun" -np "$np" -platform "$out/p$np.xml" \
    -hostfile "$out/p$np.hosts" --cfg=smpi/simulate-computation:no --log=root.thres:critical \
    "$prog" --expect use --quick
