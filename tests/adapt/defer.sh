#!/usr/bin/env bash
# Deferred decisions (docs/adaptive.md, "Deferred decisions"), in SimGrid on the 16-node
# switch, with tests/adapt/defer.c (30 broadcasts; the root reaches each call 10 ms before the
# others):
#  1. with AUTOCOLL_DEFER=0 every decision's reduction holds the root about 10 ms; with the
#     default the root is not held: its time inside the calls is at least 8 ms per decision
#     shorter, and less than half;
#  2. the decisions are the same in number in both modes, and the one still under way when the
#     communicator is freed is made then: its summary line counts one more reduction than the
#     engine had made before the free;
#  3. every broadcast's data are right, in both modes and with every call proved agreed
#     (AUTOCOLL_CHECK=1).
# Usage: defer.sh SMPIRUN DEFER_BIN PLATFORM_PREFIX
set -u
smpirun=$1 prog=$2 plat=$3
. "$(dirname "$0")/checks.sh"

run() { # out env...
    local out=$1
    shift
    env AUTOCOLL_VERBOSE=1 "$@" "$smpirun" -np 16 -platform "$plat.xml" -hostfile "$plat.hosts" \
        --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi \
        --log=root.thres:critical "$prog" 30 >"$tmp/$out" 2>&1
    local rc=$?
    grep -q '^DEFER .* bad 0$' "$tmp/$out" || { bad "$out: run failed (status $rc)"; tail -5 "$tmp/$out"; }
}
field() { sed -n "s/^DEFER .*$2 \([0-9.-]*\).*/\1/p" "$tmp/$1"; }
summary() { sed -n 's/.*adaptive comm .* bcast 4 B root 0: .*, reductions \([0-9]*\) .*/\1/p' "$tmp/$1"; }

run blocking AUTOCOLL_DEFER=0
run deferred AUTOCOLL_DEFER=1
run checked AUTOCOLL_DEFER=1 AUTOCOLL_CHECK=1
s0=$(field blocking in-call) s1=$(field deferred in-call)
d0=$(field blocking decisions) d1=$(field deferred decisions)
r0=$(summary blocking) r1=$(summary deferred)
echo "blocking: in-call $s0 s, decisions $d0, summary $r0; deferred: in-call $s1 s, decisions $d1 before the free, summary $r1"
if [ -n "$s0" ] && [ -n "$s1" ] && [ -n "$d0" ] && awk -v a="$s0" -v b="$s1" -v d="$d0" \
    'BEGIN { exit !(d > 0 && a - b >= 0.008 * d && b < a / 2) }'; then
    ok "1: the root is not held by the decisions ($s1 s against $s0 s, $d0 decisions)"
else
    bad "1: the root is held by the decisions ($s1 s against $s0 s, $d0 decisions)"
fi
if [ -n "$r0" ] && [ "$r0" = "$r1" ] && [ -n "$d1" ] && [ "$r1" -eq $((d1 + 1)) ]; then
    ok "2: $r1 decisions in both modes, the last one made at the communicator's free"
else
    bad "2: decisions blocking $r0, deferred $r1 (summary) and $d1 before the free"
fi
[ "$fail" = 0 ] && ok "3: every broadcast right, agreement proved"
exit $fail
