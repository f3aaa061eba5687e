#!/bin/sh
# ring_window.sh BENCH DIR SMALL LARGE MPIEXEC [FLAGS...]: benchmark of the segmented ring
# allreduce against the plain ring at 2 ranks (issue 22, item 4). The segmented ring keeps a
# window of AC_RS_RING_WINDOW segments in flight per step; without it, time grew superlinearly
# with the vector size (all segments of a step posted at once). Sizes double from SMALL up to
# LARGE bytes (autocoll-bench -m SMALL:LARGE); prints, per size, time(ring_segmented:seg=8192)
# / time(ring), and time(last size) / time(first size) for both next to the linear ratio.
# A benchmark, not a timed test: it fails only when a result is wrong (validation of the
# segmented ring against the MPI library with windows of very short segments) or a run fails,
# never on the timings, which are noisy on a shared machine.
bench=$1
dir=$2
small=$3
large=$4
shift 4
fail=0
mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
rm -f check.txt time.csv

# Correctness: many windows per step (seg of 8 and 1000 bytes, up to 1 MB), every call checked.
"$@" -n 2 "$bench" -C allreduce -a "ring_segmented:seg=8,ring_segmented:seg=1000,ring" \
    -m 1:1M -i 2 -x 1 -c >check.txt 2>&1 || { echo "FAIL: validation run"; cat check.txt; fail=1; }
if grep -qi "fail" check.txt; then
    echo "FAIL: wrong results"
    cat check.txt
    fail=1
fi

# Timing, one run (ratios from one run only).
"$@" -n 2 "$bench" -C allreduce -a "ring_segmented:seg=8192,ring" -m "$small:$large" -i 2 -x 1 \
    --csv time.csv >/dev/null 2>&1 || { echo "FAIL: timing run"; exit 1; }
awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
        b = $(col["bytes"]) + 0
        if (!(b in seen)) { seen[b] = 1; sz[++n] = b }
        t[$(col["instance"]) "@" b] = $(col["avg_s"])
    }
    END {
        seg = "ring_segmented:seg=8192"
        printf "ring_window: p = 2, seg = 8192 bytes, bounded window of segments in flight\n"
        printf "%12s %14s %14s %10s\n", "bytes", "segmented_s", "ring_s", "seg/ring"
        for (i = 1; i <= n; i++) {
            a = t[seg "@" sz[i]]; r = t["ring@" sz[i]]
            printf "%12d %14.6f %14.6f %10.2f\n", sz[i], a, r, (r > 0 ? a / r : 0)
        }
        a1 = t[seg "@" sz[1]]; a2 = t[seg "@" sz[n]]; r1 = t["ring@" sz[1]]; r2 = t["ring@" sz[n]]
        printf "time(%d)/time(%d): ring_segmented %.2f, ring %.2f (linear: %.2f)\n", sz[n],
            sz[1], (a1 > 0 ? a2 / a1 : 0), (r1 > 0 ? r2 / r1 : 0), sz[n] / sz[1]
    }' time.csv
[ $fail -eq 0 ] && echo "ring_window: results correct (timings are for reading, not checked)"
exit $fail
