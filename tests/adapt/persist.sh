#!/usr/bin/env bash
# Persistence: a run writes what it learned (AUTOCOLL_TABLE_OUT), the table is valid, and a second
# run that loads it (AUTOCOLL_TABLE) serves those keys from the table without probing them.
# usage: persist.sh PROGRAM INFO_TOOL MPIEXEC [MPIEXEC FLAGS...]
set -euo pipefail
prog=$1 info=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# AUTOCOLL_ITER=3 (classic learner) and AUTOCOLL_EXPLORE=100 (racing: no budget limit) make
# the keys settle within the program's few calls.
export AUTOCOLL_ITER=3 AUTOCOLL_EXPLORE=100 AUTOCOLL_CHECK=1
AUTOCOLL_TABLE_OUT=$dir/learned.json "$@" -n 4 "$prog" > "$dir/run1.out" 2>&1 || { cat "$dir/run1.out"; exit 1; }
"$info" --check "$dir/learned.json"
rules=$(grep -c '"collective"' "$dir/learned.json")
[ "$rules" -ge 3 ] || { echo "only $rules rules learned"; exit 1; }
AUTOCOLL_TABLE=$dir/learned.json AUTOCOLL_VERBOSE=1 "$@" -n 4 "$prog" > "$dir/run2.out" 2>&1 || { cat "$dir/run2.out"; exit 1; }
grep -q '0 failed' "$dir/run2.out"
# Every learned allreduce size of p=4 is now served by the table (logged once per power-of-two
# class: "allreduce [c, 2c) B -> ... (table)") and never probed.
for b in $(python3 -c 'import json,sys
t=json.load(open(sys.argv[1]))
print(" ".join(str(r["bytes"][0]) for r in t["rules"] if r["collective"]=="allreduce" and r["comm_size"]==[4,4]))' "$dir/learned.json"); do
  c=$(python3 -c 'import sys; b=int(sys.argv[1]); c=1
while c*2<=b: c*=2
print(0 if b==0 else c)' "$b")
  grep -q "allreduce \[$c, [0-9]*) B -> .*(table)" "$dir/run2.out" || { echo "allreduce $b B not served by the table"; grep allreduce "$dir/run2.out"; exit 1; }
  if grep -q "adaptive comm 0 allreduce $b B" "$dir/run2.out"; then echo "allreduce $b B probed again"; exit 1; fi
done
echo "persistence: $rules rules learned, reloaded and used"
