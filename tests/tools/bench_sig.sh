#!/bin/sh
# bench_sig.sh BENCH DIR MPIEXEC [FLAGS...]: validation when every rank describes the same data
# with its own (count, datatype) of equal type signature (autocoll-bench -c -d mixed,
# docs/bench.md): bcast binomial and pipe_chain:seg=512, every allgather and gather instance, at
# 3 and 4 processes, 512 B to 4 KB; option errors of -d; and a negative control (the library's
# fault injection must be caught with mixed descriptions too).
#
# Each run is limited to BENCH_SIG_TIMEOUT seconds (default 60): an algorithm that cuts messages
# in elements of the local datatype usually leaves ranks waiting for segments that never come,
# so a hang counts as a failure of that instance.
bench=$1
dir=$2
shift 2
fail=0
limit=${BENCH_SIG_TIMEOUT:-60}
mkdir -p "$dir" || exit 1
cd "$dir" || exit 1

# timeout(1) turns a hang into status 124 (137 when mpiexec had to be killed).
limited() {
    if command -v timeout >/dev/null 2>&1; then
        timeout -k 10 "$limit" "$@"
    else
        "$@"
    fi
}

# Option errors, started as singletons: status 2 and the usage text.
for bad in "-d bogus" "-d" "-C allreduce -d mixed" "-C allgather,reduce --dtype contig"; do
    # shellcheck disable=SC2086
    out=$("$bench" $bad 2>&1)
    rc=$?
    if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -q "usage: autocoll-bench"; then
        echo "FAIL: '$bad' gave status $rc (expected 2 and the usage text)"
        printf '%s\n' "$out"
        fail=1
    fi
done
"$bench" -C allreduce -d mixed 2>&1 | grep -q "reductions need the same count and datatype" ||
    { echo "FAIL: -d mixed with a reduction: no reason given"; fail=1; }

# check P COLL ALG ROOT MPIEXEC...: a validated run with mixed descriptions must end in time,
# with status 0 and every call equal to the MPI library's result.
check() {
    p=$1 coll=$2 alg=$3 root=$4
    shift 4
    name="$coll $alg, p=$p, root $root"
    out=$coll-$(printf '%s' "$alg" | tr -c 'a-zA-Z0-9_' '_')-p$p.txt
    limited "$@" -n "$p" "$bench" -c -d mixed -C "$coll" -a "$alg" -r "$root" -m 512:4K -i 3 \
        -x 1 >"$out" 2>&1
    rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        echo "FAIL: $name: did not end within $limit s (hang); its last lines:"
        tail -n 4 "$out"
        fail=1
    elif [ $rc -ne 0 ] || grep -q "Fail\|did not run" "$out"; then
        echo "FAIL: $name: status $rc"
        grep "VALIDATION FAILED\|MPI error\|did not run\|note:" "$out"
        fail=1
    elif ! grep -q "datatypes mixed" "$out" || ! grep -q "Pass" "$out"; then
        echo "FAIL: $name: no validated call with mixed descriptions"
        cat "$out"
        fail=1
    else
        echo "ok: $name ($(grep -c Pass "$out") validated sizes)"
    fi
}

for n in 3 4; do
    check "$n" bcast binomial 0 "$@"
    check "$n" bcast pipe_chain:seg=512 0 "$@"
    check "$n" allgather all 0 "$@"
    check "$n" gather all "$((n - 1))" "$@"
done

# Negative control: a corrupted result must be caught with mixed descriptions as well (the
# library corrupts the first data byte of the last rank's allgather output).
AUTOCOLL_TEST_FAULT=allgather limited "$@" -n 3 "$bench" -c -d mixed -C allgather -a ring \
    -m 512:1K -i 2 >fault.txt 2>&1
rc=$?
if [ $rc -ne 1 ] || ! grep -q "VALIDATION FAILED: allgather instance ring, .* rank 2" fault.txt; then
    echo "FAIL: injected fault not detected with mixed descriptions (status $rc)"
    cat fault.txt
    fail=1
fi

[ $fail -eq 0 ] && echo "bench_sig: all checks passed"
exit $fail
