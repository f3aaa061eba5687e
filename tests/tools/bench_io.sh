#!/bin/sh
# bench_io.sh BENCH DIR MPIEXEC [FLAGS...]: option errors (exit 2, usage, no output files),
# CSV and JSON output, and every timing mechanism of autocoll-bench.
bench=$1
dir=$2
shift 2
fail=0
mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
rm -f out.csv out.json bad.csv

# Started as singletons (no launcher): quicker, and enough to parse options.
for bad in "-t bogus" "-t imbalance:-1" "-m 8:4" "-m 0" "-i 0" "-C nosuch" "-a ring:n=3" \
    "-r 1" "-q" "extra"; do
    # shellcheck disable=SC2086
    out=$("$bench" $bad --csv bad.csv 2>&1)
    rc=$?
    if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -q "usage: autocoll-bench"; then
        echo "FAIL: '$bad' gave status $rc (expected 2 and the usage text)"
        printf '%s\n' "$out"
        fail=1
    fi
    if [ -e bad.csv ]; then
        echo "FAIL: '$bad' wrote an output file"
        fail=1
        rm -f bad.csv
    fi
done

# Machine-readable output: header, one record per size and instance, quoting of instance names.
"$@" -n 2 "$bench" -C allgather -a "native,kbruck:k=2,auto" -m 1:16 -i 2 -c --csv out.csv \
    --json out.json >/dev/null 2>&1 || { echo "FAIL: allgather CSV run"; fail=1; }
head -n 1 out.csv | grep -qx 'coll,instance,bytes,p,mechanism,iters,min_s,avg_s,max_s,valid' ||
    { echo "FAIL: CSV header"; head -n 1 out.csv; fail=1; }
n=$(tail -n +2 out.csv | wc -l)
[ "$n" -eq 15 ] || { echo "FAIL: $n CSV records, expected 15"; cat out.csv; fail=1; }
grep -q '^allgather,kbruck:k=2,16,2,b2b,2,.*,yes$' out.csv ||
    { echo "FAIL: CSV record of kbruck:k=2 at 16 B"; cat out.csv; fail=1; }
head -c 1 out.json | grep -q '\[' && tail -n 1 out.json | grep -q '^\]$' ||
    { echo "FAIL: JSON array"; cat out.json; fail=1; }
[ "$(grep -c '"coll": "allgather"' out.json)" -eq 15 ] || { echo "FAIL: JSON records"; fail=1; }
grep -q '"instance": "auto", "chosen": "' out.json || { echo "FAIL: JSON chosen"; fail=1; }

# Vector collective: the selection size is p x the block size.
"$@" -n 2 "$bench" -C allgatherv,reduce -a native -m 8:8 -i 2 -c --csv out.csv >/dev/null 2>&1 ||
    { echo "FAIL: allgatherv/reduce run"; fail=1; }
grep -q '^allgatherv,native,16,2,' out.csv || { echo "FAIL: allgatherv selection size"; fail=1; }
grep -q '^reduce,native,8,2,' out.csv || { echo "FAIL: reduce record"; fail=1; }

# Timing mechanisms, with validation.
for t in barrier compute:20 imbalance:2; do
    "$@" -n 2 "$bench" -C allreduce -a ring -m 4:64 -i 3 -c -f -t "$t" >out.txt 2>&1 ||
        { echo "FAIL: mechanism $t"; cat out.txt; fail=1; }
    grep -q "mechanism $t" out.txt || { echo "FAIL: mechanism $t not reported"; fail=1; }
done
[ $fail -eq 0 ] && echo "bench_io: all checks passed"
exit $fail
