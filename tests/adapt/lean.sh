#!/usr/bin/env bash
# The engine's reductions in short runs (docs/adaptive.md, "Reductions of a short run"), in
# SimGrid on the 16-node switch, every call proved agreed (AUTOCOLL_CHECK=1) and every result
# checked by the driver (sim/app_learn.c). Read from each key's summary line, "reductions R (key
# creation K)":
#  1. 7 keys interleaved, 10 calls each: no reduction at all (creation from the pool; the first
#     entry lasts until the budget covers a batch of probes, 16 calls);
#  2. the same, 20 calls each: no creation reduction, and every key has decided;
#  3. 12 keys, more than the first pool holds (8): exactly one creation reduction (the refill);
#  4. the same pattern on 3 communicators of one shape, one after the other: the keys of the
#     first make no creation reduction, those of the later two (created when this process had
#     records of their shape) one each, and some start on what the first one chose; the network
#     is measured on the first and its figures reused by the later two;
#  5. the classic learner: one creation reduction per key.
# Usage: lean.sh SMPIRUN APP_BIN PLATFORM_PREFIX
set -u
smpirun=$1 app=$2 plat=$3
. "$(dirname "$0")/checks.sh"

run() { # out env... -- app args
    local out=$1
    shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    env AUTOCOLL_CHECK=1 AUTOCOLL_VERBOSE=2 "${envs[@]}" "$smpirun" -np 16 -platform "$plat.xml" \
        -hostfile "$plat.hosts" --cfg=smpi/simulate-computation:no \
        --cfg=smpi/coll-selector:ompi --log=root.thres:critical "$app" "$@" >"$tmp/$out" 2>&1
    local rc=$?
    grep -q '^APP .* bad 0$' "$tmp/$out" || { bad "$out: run failed (status $rc)"; tail -5 "$tmp/$out"; }
}

# "R K" of every key of comm C
keys() { sed -n "s/.*adaptive comm $2 .*, reductions \([0-9]*\) (key creation \([0-9]\)).*/\1 \2/p" "$tmp/$1"; }

P7="allreduce:64 allreduce:256 allreduce:4096 bcast:16384 bcast:65536 reduce:65536 allgather:1024"
P12="$P7 allreduce:1024 bcast:1024 bcast:4096 reduce:4096 allgather:256"

run r10 -- --rounds 10 $P7
k=$(keys r10 '[0-9]*')
n=$(echo "$k" | grep -c .)
[ "$n" = 7 ] && [ "$(echo "$k" | sort -u)" = "0 0" ] && ok "7 keys, 10 calls each: no reduction" ||
    { bad "7 keys, 10 calls each: expected 7 keys without reductions, got:"; echo "$k"; }

run r20 -- --rounds 20 $P7
k=$(keys r20 '[0-9]*')
[ "$(echo "$k" | grep -c ' 0$')" = 7 ] && ! echo "$k" | grep -q '^0 ' &&
    ok "7 keys, 20 calls each: decided, no creation reduction" ||
    { bad "7 keys, 20 calls each:"; echo "$k"; }

run r12 -- --rounds 10 $P12
k=$(keys r12 '[0-9]*')
[ "$(echo "$k" | grep -c .)" = 12 ] && [ "$(echo "$k" | grep -c ' 1$')" = 1 ] &&
    ok "12 keys: one creation reduction (the pool's refill)" ||
    { bad "12 keys: expected one creation reduction in 12 keys, got:"; echo "$k"; }

run comms -- --rounds 60 --comms 3 --sequential allreduce:256 allreduce:1024 allreduce:4096
ids=$(sed -n 's/.*adaptive comm \([0-9]*\) .*reductions.*/\1/p' "$tmp/comms" | sort -un)
first=$(echo "$ids" | head -1)
k1=$(keys comms "$first" | awk '{print $2}' | sort -u)
kl=$(for c in $(echo "$ids" | tail -n +2); do keys comms "$c"; done | awk '{print $2}' | sort -u)
[ "$(echo "$ids" | grep -c .)" = 3 ] && [ "$k1" = 0 ] && [ "$kl" = 1 ] &&
    grep -q 'starts on .* (same shape)' "$tmp/comms" &&
    ok "3 communicators of one shape: the first without creation reductions, the later ones with, same-shape starts" ||
    { bad "3 communicators: ids $(echo $ids), first $k1, later $kl"; grep 'reductions\|starts on' "$tmp/comms"; }
[ "$(grep -c 'alpha/beta intra-node' "$tmp/comms")" = 1 ] &&
    [ "$(grep -c 'alpha/beta as measured on an earlier communicator of its shape' "$tmp/comms")" = 2 ] &&
    ok "3 communicators of one shape: the network measured once, then reused" ||
    { bad "3 communicators: network measurements"; grep 'alpha/beta' "$tmp/comms"; }

run classic AUTOCOLL_LEARN=classic -- --rounds 10 allreduce:256 bcast:4096 reduce:4096
k=$(keys classic '[0-9]*' | awk '{print $2}' | sort -u)
[ "$k" = 1 ] && [ "$(keys classic '[0-9]*' | grep -c .)" = 3 ] &&
    ok "classic learner: one creation reduction per key" ||
    { bad "classic learner:"; keys classic '[0-9]*'; }

[ $fail = 0 ] && echo "lean: all checks passed" || echo "lean: FAILED"
exit $fail
