#!/usr/bin/env bash
# The learned table merges the rules of every rank and keeps the loaded table's rules: runs
# learned.c on 4 ranks with a loaded table (AUTOCOLL_TABLE) that answers none of its calls, then
# checks AUTOCOLL_TABLE_OUT: valid; exactly the rules the program expects (one per key, the
# first communicator of a shape winning), followed by the loaded table's rules in their order.
# usage: learned.sh PROGRAM INFO_TOOL MPIEXEC [MPIEXEC FLAGS...]
set -euo pipefail
prog=$1 info=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/loaded.json" <<'JSON'
{"schema": "autocoll-tuning-table", "version": 1, "provenance": {"tool": "learned.sh"},
 "rules": [
  {"collective": "bcast", "comm_size": [64, 64], "nodes": 0, "ppn": 0, "bytes": [0, 100], "algorithm": "binomial"},
  {"collective": "gather", "comm_size": [1, null], "nodes": 0, "ppn": 0, "bytes": [0, null], "algorithm": "linear"},
  {"collective": "allreduce", "comm_size": [5, 8], "nodes": 0, "ppn": 0, "bytes": [16, 32], "algorithm": "recursive_doubling"}
 ]}
JSON
"$info" --check "$dir/loaded.json"
export AUTOCOLL_ITER=3 AUTOCOLL_CHECK=1 AUTOCOLL_CANDIDATES_ALLREDUCE=linear,recursive_doubling,native
# stdout (the expected rules) apart from stderr (the engine's log): mpiexec interleaves the two.
AUTOCOLL_TABLE=$dir/loaded.json AUTOCOLL_TABLE_OUT=$dir/learned.json AUTOCOLL_VERBOSE=1 \
    "$@" -n 4 "$prog" > "$dir/run.out" 2> "$dir/run.err" || { cat "$dir/run.out" "$dir/run.err"; exit 1; }
grep -q '^0 failed' "$dir/run.out" || { cat "$dir/run.out" "$dir/run.err"; exit 1; }
grep -q 'learned table written to' "$dir/run.err" || { cat "$dir/run.err"; exit 1; }
"$info" --check "$dir/learned.json"
python3 - "$dir/loaded.json" "$dir/learned.json" "$dir/run.out" <<'PY'
import json, sys
loaded = json.load(open(sys.argv[1]))["rules"]
out = json.load(open(sys.argv[2]))
rules = out["rules"]
expect = [l.split()[1:] for l in open(sys.argv[3]) if l.startswith("expect ")]
bad = []
n = len(rules) - len(loaded)
if n < 0 or rules[n:] != loaded:
    bad.append("the loaded table's rules are not at the end, in order")
learned = rules[:max(n, 0)]
got = {}
for r in learned:
    k = (r["collective"], r["comm_size"][0], r["bytes"][0])
    if r["comm_size"][0] != r["comm_size"][1] or r["bytes"][1] != r["bytes"][0] + 1:
        bad.append("not an exact learned rule: %s" % r)
    if k in got:
        bad.append("two rules for %s: %s and %s" % (k, got[k], r["algorithm"]))
    else:
        got[k] = r["algorithm"]  # the first matching rule is the one a run uses
want = {(c, int(p), int(b)): a for c, p, b, a in expect}
for k, a in want.items():
    if k not in got:
        bad.append("missing learned rule %s %s" % (k, a))
    elif got[k] != a:
        bad.append("rule %s: %s, expected %s (the first communicator of a shape wins)" % (k, got[k], a))
for k in got:
    if k not in want:
        bad.append("unexpected learned rule %s %s" % (k, got[k]))
if out["provenance"].get("tool") != "autocoll adaptive engine":
    bad.append("provenance.tool is %r" % out["provenance"].get("tool"))
if bad:
    print("\n".join(bad))
    print(open(sys.argv[2]).read())
    sys.exit(1)
print("learned table: %d learned rules from 3 leading ranks merged, %d loaded rules kept" % (len(learned), len(loaded)))
PY
