#!/bin/sh
# tune_table.sh TUNE BENCH CHECK DIR MPIEXEC [FLAGS...]
# 1. autocoll-tune at p = 4 on a few sizes writes a table (and the two exports) that
#    autocoll_table_load accepts without problems;
# 2. a second run with the same --state file measures nothing and gives the same rules;
# 3. autocoll-bench -a auto with AUTOCOLL_TABLE / AUTOCOLL_MODE=table runs, at every size, the
#    instance autocoll_table_lookup gives (checked on the AUTOCOLL_VERBOSE=1 decision lines);
# 4. --budget: the run stops measuring, writes a table marked incomplete that loads cleanly.
tune=$1
bench=$2
check=$3
dir=$4
shift 4
colls=allgather,allreduce
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f table.json state t.ompi t.mpich run1.out run2.out run2.err bench.log
args="-C $colls -m 64:4096 -i 3 -x 1 --budget 40 -o table.json --state state"

# shellcheck disable=SC2086
"$@" -n 4 "$tune" $args --export-ompi t.ompi --export-mpich t.mpich >run1.out 2>run1.err ||
    { echo "FAIL: autocoll-tune exited with $?"; cat run1.out run1.err; exit 1; }
cat run1.out
[ -s t.ompi ] && [ -s t.mpich ] || { echo "FAIL: exports missing"; exit 1; }
"$check" table.json || { echo "FAIL: the table does not load cleanly"; cat table.json; exit 1; }
grep -q '"tool": "autocoll-tune"' table.json || { echo "FAIL: provenance"; exit 1; }

# shellcheck disable=SC2086
"$@" -n 4 "$tune" $args >run2.out 2>run2.err || { echo "FAIL: resumed run"; cat run2.err; exit 1; }
grep -q "resuming from state" run2.err || { echo "FAIL: state not used"; cat run2.err; exit 1; }
if grep -q " B .*measured" run2.err; then
    echo "FAIL: the resumed run measured again"
    cat run2.err
    exit 1
fi
grep -v '^#' run1.out >rules1
grep -v '^#' run2.out >rules2
cmp -s rules1 rules2 || { echo "FAIL: the resumed run chose differently"; diff rules1 rules2; exit 1; }

AUTOCOLL_TABLE=$dir/table.json AUTOCOLL_MODE=table AUTOCOLL_VERBOSE=1 \
    "$@" -n 4 "$bench" -C $colls -a auto -m 64:4096 -i 2 -x 0 -c >bench.out 2>bench.log ||
    { echo "FAIL: autocoll-bench in table mode"; cat bench.out bench.log; exit 1; }
"$check" table.json bench.log $colls || { cat bench.log; exit 1; }
# 4. Time budget: measuring stops, the table is still written, marked incomplete, and loads.
"$@" -n 4 "$tune" -m 64:256K -i 20 -x 1 --budget 1 -o budget.json >budget.out 2>budget.err ||
    { echo "FAIL: budget run exited with $?"; cat budget.err; exit 1; }
grep -q "time budget of 1 s exceeded" budget.err || { echo "FAIL: budget not reported"; exit 1; }
grep -q '"status": "incomplete' budget.json || { echo "FAIL: budget status"; exit 1; }
"$check" budget.json || { echo "FAIL: the budget table does not load cleanly"; exit 1; }
echo "tune_table: all checks passed"
