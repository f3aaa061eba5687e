#!/usr/bin/env bash
# Five runs of the same floating-point reduction program at p = 5 in adaptive mode (the engine
# probes different instances in different runs, as timing decides) must print the same checksum
# of their results; each run also checks every result against the rank-ordered reference.
# usage: repro.sh MPIEXEC AC_REPRO [mpiexec flags...]
set -euo pipefail
mpiexec=$1 prog=$2
shift 2
sums=""
for run in 1 2 3 4 5; do
  out=$("$mpiexec" -n 5 "$@" "$prog" --adaptive 20)
  echo "$out" | grep -v checksum
  sum=$(echo "$out" | sed -n 's/^repro checksum //p')
  echo "run $run: checksum $sum"
  sums="$sums $sum"
done
if [ "$(echo $sums | tr ' ' '\n' | sort -u | wc -l)" -ne 1 ]; then
  echo "repro.sh: the five runs gave different results:$sums" >&2
  exit 1
fi
echo "repro.sh: five runs, identical results"
