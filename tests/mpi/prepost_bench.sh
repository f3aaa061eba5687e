#!/usr/bin/env bash
# Pre-posting on/off ratios (docs/prepost.md, "Measured"): prepost_bench's ping-pong (p = 2)
# and halo (p = 4) at a few sizes, off and on launched alternately REPS times in one run;
# prints the median time of each and the ratio on/off (< 1: pre-posting saves time).
# usage: prepost_bench.sh PREPOST_BENCH MPIEXEC [mpiexec flags...]
set -u
prog=$1 mpiexec=$2
shift 2
reps=${REPS:-5}
med() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf "%-9s %8s %3s %12s %12s %8s\n" pattern bytes p off_us on_us on/off
for cfg in "pingpong 2 8" "pingpong 2 65536" "pingpong 2 1048576" "halo 4 8" "halo 4 65536" \
    "halo 4 524288"; do
    set -- $cfg "$@"
    pat=$1 np=$2 bytes=$3
    shift 3
    iters=$([ "$bytes" -ge 500000 ] && echo 100 || echo 500)
    : >/tmp/ppb.0
    : >/tmp/ppb.1
    for r in $(seq "$reps"); do
        for pp in 0 1; do
            "$mpiexec" "$@" -np "$np" env AUTOCOLL_PREPOST=$pp "$prog" "$pat" --bytes "$bytes" \
                --iters "$iters" | awk '{print $3}' >>/tmp/ppb.$pp
        done
    done
    off=$(med </tmp/ppb.0) on=$(med </tmp/ppb.1)
    printf "%-9s %8s %3s %12s %12s %8.3f\n" "$pat" "$bytes" "$np" "$off" "$on" \
        "$(echo "$on / $off" | bc -l)"
done
