#!/usr/bin/env bash
# The kept choice of settled adaptive keys and sampled monitoring change nothing but the cost:
# runs kept.c (results checked against the MPI library's on every rank, AUTOCOLL_CHECK=1 for
# agreement at every call), then checks that the engine's summary at AUTOCOLL_VERBOSE=1 counts
# every key's calls on that key (one summary line per key: "adaptive comm 0 KEY: calls N, ...").
# usage: kept.sh PROGRAM MPIEXEC [MPIEXEC FLAGS...]
set -euo pipefail
prog=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export AUTOCOLL_ITER=3 AUTOCOLL_CHECK=1 AUTOCOLL_VERBOSE=1
"$@" -n 3 "$prog" > "$dir/run.out" 2> "$dir/run.err" || { cat "$dir/run.out" "$dir/run.err"; exit 1; }
grep -q '^0 failed' "$dir/run.out" || { cat "$dir/run.out" "$dir/run.err"; exit 1; }
python3 - "$dir/run.out" "$dir/run.err" <<'PY'
import re, sys
from collections import Counter
expect = Counter(tuple(l.split()[1:3]) for l in open(sys.argv[1]) if l.startswith("expect "))
got = Counter()
for l in open(sys.argv[2]):
    m = re.search(r"adaptive comm 0 (.*?): calls (\d+),", l)
    if m:
        got[(m.group(1).replace(" ", "_"), m.group(2))] += 1
if got != expect:
    print("keys and their calls in the summary:", sorted(got.items()))
    print("expected:", sorted(expect.items()))
    sys.exit(1)
print("ok:", sum(expect.values()), "keys, every call counted on its key")
PY
