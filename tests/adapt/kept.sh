#!/usr/bin/env bash
# The kept choice of settled adaptive keys and sampled monitoring change nothing but the cost:
# runs kept.c (results checked against the MPI library's on every rank) and checks that the
# engine's summary at AUTOCOLL_VERBOSE=1 counts every key's calls on that key (one summary line
# per key: "adaptive comm 0 KEY: calls N, ..."). Two runs: every candidate with AUTOCOLL_CHECK=1
# (every rank runs the same instance at every call); then without the check, bcast on the MPI
# library's algorithm alone and allreduce on it or recursive doubling with no switching back,
# so that most calls take the short path of a settled key on the MPI library's algorithm
# (src/pmpi/dispatch.c), which the check turns off.
# usage: kept.sh PROGRAM MPIEXEC [MPIEXEC FLAGS...]
set -euo pipefail
prog=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export AUTOCOLL_ITER=3 AUTOCOLL_VERBOSE=1
run() { # run NAME [env settings...]
    local name=$1
    shift
    env "$@" "${mpi[@]}" -n 3 "$prog" > "$dir/$name.out" 2> "$dir/$name.err" ||
        { cat "$dir/$name.out" "$dir/$name.err"; exit 1; }
    grep -q '^0 failed' "$dir/$name.out" || { cat "$dir/$name.out" "$dir/$name.err"; exit 1; }
    counts "$dir/$name.out" "$dir/$name.err" || exit 1
}
counts() {
python3 - "$1" "$2" <<'PY'
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
}
mpi=("$@")
run all AUTOCOLL_CHECK=1
run native AUTOCOLL_CHECK=0 AUTOCOLL_EPSILON=10 AUTOCOLL_CANDIDATES_BCAST=native \
    AUTOCOLL_CANDIDATES_ALLREDUCE=native,recursive_doubling
