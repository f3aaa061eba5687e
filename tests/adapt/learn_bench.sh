#!/usr/bin/env bash
# Cost of learning (docs/adaptive.md, "Learning cost"): for each point, runs of K calls per size
# with learning included, under AUTOCOLL_LEARN=classic (STAR's measurement as before) and race
# (racing + no-regret, the default), on a simulated platform (deterministic SimGrid time).
# Prints the K calls' total time / K x the best single instance (oracle) and / K x the MPI
# library's own algorithm (native, SMPI's ompi selector), then the geometric means per K and
# mode. The oracle of a point is measured once and shared by its runs (adapt_sim
# --oracle-cache, measured in a run of its own), so that every timed run starts on a fresh
# communicator. It gates nothing.
# usage: learn_bench.sh SMPIRUN ADAPT_SIM PLATFORM.xml HOSTFILE NP "CALLS..." POINT...
#   POINT: collective:bytes (allreduce, allgather, alltoall, bcast, reduce)
# environment: LEARN_MODES (default "classic race"), LEARN_ORACLE_REPS (4), LEARN_DIR (tmp)
set -euo pipefail
smpirun=$1 prog=$2 xml=$3 hosts=$4 np=$5 calls=$6
shift 6
modes=${LEARN_MODES:-"classic race"}
dir=${LEARN_DIR:-$(mktemp -d)}
mkdir -p "$dir"
printf '%-10s %8s %5s | %-8s %13s %13s %7s\n' collective bytes calls mode engine/oracle \
  engine/native probes
for pt in "$@"; do
  c=${pt%%:*} n=${pt##*:}
  cache=$dir/oracle.$(basename "$xml" .xml).$np.$c.$n
  # The oracle in a run of its own: a run that measures it has set up the communicator
  # before its timed calls, which would spare it the first call's set-up.
  [ -s "$cache" ] || "$smpirun" -np "$np" -platform "$xml" -hostfile "$hosts" \
    --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi --log=root.thres:critical \
    "$prog" --coll "$c" --bytes "$n" --calls 1 --oracle-reps "${LEARN_ORACLE_REPS:-4}" \
    --oracle-cache "$cache" >/dev/null 2>&1 || true
  for k in $calls; do
    for m in $modes; do
      line=$(env AUTOCOLL_LEARN="$m" "$smpirun" -np "$np" -platform "$xml" -hostfile "$hosts" \
        --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi \
        --log=root.thres:critical "$prog" --coll "$c" --bytes "$n" --calls "$k" \
        --oracle-reps "${LEARN_ORACLE_REPS:-4}" --oracle-cache "$cache" 2>/dev/null |
        grep '^TOTAL' || true)
      # TOTAL coll bytes calls K engine E oracle O native N engine/oracle R1 engine/native R2
      #   probe-calls P settled S
      set -- $line
      printf '%-10s %8s %5s | %-8s %13s %13s %7s\n' "$c" "$n" "$k" "$m" "${13:-?}" "${15:-?}" \
        "${17:-?}"
      echo "$k $m ${13:-0} ${15:-0}" >>"$dir/summary"
    done
  done
done
echo "geometric means (K, mode: engine/oracle, engine/native):"
awk '$3 > 0 && $4 > 0 { k = $1 " " $2; n[k]++; lo[k] += log($3); ln[k] += log($4) }
     END { for (k in n) printf "  %-14s %6.3f %6.3f (%d points)\n", k, exp(lo[k] / n[k]),
           exp(ln[k] / n[k]), n[k] }' "$dir/summary" | sort -n
rm -f "$dir/summary"
