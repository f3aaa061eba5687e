#!/usr/bin/env bash
# The raw path of a settled key (src/pmpi/dispatch.c, ac_pass_raw) counts every call on the key
# the full path would have chosen and changes no result: runs raw.c at p = 3 with the MPI
# library's algorithm as the only candidate of its collectives (every key settles on it, so most
# calls take the raw path), then checks every rank's "key COLL BYTES CALLS EXPECTED" lines and
# its "0 failed". A second run with a second candidate per collective and AUTOCOLL_CHECK=1 (the
# raw path off, every rank proven to run the same instance) gives the same counts.
# usage: raw.sh PROGRAM MPIEXEC [MPIEXEC FLAGS...]
set -euo pipefail
prog=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export AUTOCOLL_ITER=3
run() { # run NAME [env settings...]
    local name=$1
    shift
    env "$@" "${mpi[@]}" -n 3 "$prog" > "$dir/$name.out" 2> "$dir/$name.err" ||
        { cat "$dir/$name.out" "$dir/$name.err"; exit 1; }
    python3 - "$dir/$name.out" "$name" <<'PY' || { cat "$dir/$name.err"; exit 1; }
import sys
lines = open(sys.argv[1]).read().splitlines()
keys = [l.split() for l in lines if l.startswith("key ")]
bad = [k for k in keys if k[3] != k[4]]
failed = [l for l in lines if l.endswith(" failed")]
reused = [l for l in lines if l.startswith("handle reused")]
if len(keys) != 3 * 7 or bad or failed != ["0 failed"] * 3:
    print("\n".join(lines))
    print("keys whose calls differ (coll, bytes, calls, expected):", bad)
    sys.exit(1)
print(sys.argv[2] + ": ok, 7 keys on 3 ranks, every call counted on its key;",
      "the freed type's handle came back" if "handle reused 1" in reused else
      "the freed type's handle did not come back on any rank")
PY
}
mpi=("$@")
native="AUTOCOLL_CANDIDATES_BCAST=native AUTOCOLL_CANDIDATES_ALLREDUCE=native"
native="$native AUTOCOLL_CANDIDATES_REDUCE=native AUTOCOLL_CANDIDATES_BARRIER=native"
# shellcheck disable=SC2086
run raw AUTOCOLL_VERBOSE=0 AUTOCOLL_CHECK=0 $native
run checked AUTOCOLL_VERBOSE=0 AUTOCOLL_CHECK=1 AUTOCOLL_CANDIDATES_BCAST=native,binomial \
    AUTOCOLL_CANDIDATES_ALLREDUCE=native,recursive_doubling \
    AUTOCOLL_CANDIDATES_REDUCE=native,binomial AUTOCOLL_CANDIDATES_BARRIER=native,dissemination
