#!/usr/bin/env bash
# Benchmark of the adaptive engine on the simulated 16-node 100 Mbit/s Ethernet cluster of seed
# 000 (deterministic SimGrid time). For each point, a 1000-call run with the defaults (racing
# learner, model pruning) and one as basic STAR-MPI (classic learner, every candidate, no
# grouping). Prints
# ratios against the goals of the adaptive-engine issue; it gates nothing.
# usage: bench.sh SMPIRUN ADAPT_SIM PLATFORM_BASE(without .xml/.hosts) [points...]
set -euo pipefail
smpirun=$1 prog=$2 plat=$3
shift 3
points=${*:-"allreduce:4096 allgather:16384 alltoall:2048 bcast:65536 reduce:65536"}
run() { # extra env, coll, bytes
  env $1 "$smpirun" -np 16 -platform "$plat.xml" -hostfile "$plat.hosts" \
    --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi --log=root.thres:critical \
    "$prog" --coll "$2" --bytes "$3" --calls 1000 | grep '^RATIO'
}
printf '%-10s %8s | %-28s | %-28s | %s\n' collective bytes "after-conv/best (goal<=1.03)" \
  "probe-overhead/total (<=0.10)" "probe calls vs basic STAR (<=0.4)"
for pt in $points; do
  c=${pt%%:*} n=${pt##*:}
  d=$(run "AUTOCOLL_CHECK=0" "$c" "$n")
  b=$(run "AUTOCOLL_LEARN=classic AUTOCOLL_GROUPING=0 AUTOCOLL_PRUNE=0" "$c" "$n")
  # RATIO coll bytes after-convergence/best X probing-overhead/total Y chosen/best Z probe-calls N
  set -- $d; conv=$5 over=$7 calls=${11}
  set -- $b; bconv=$5 bover=$7 bcalls=${11}
  printf '%-10s %8s | %8s (basic %6s)          | %8s (basic %6s)          | %s/%s = %.2f\n' \
    "$c" "$n" "$conv" "$bconv" "$over" "$bover" "$calls" "$bcalls" \
    "$(awk -v a="$calls" -v b="$bcalls" 'BEGIN{print (b>0)?a/b:0}')"
done
