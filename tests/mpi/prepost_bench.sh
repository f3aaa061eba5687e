#!/usr/bin/env bash
# Pre-posting on/off ratios (docs/prepost.md, "Measured"): prepost_bench's ping-pong (p = 2)
# and halo (p = 4) at a few sizes, off, on, and on with the hint autocoll_prepost_early (long
# captures received at once) launched in turn REPS times in one run; prints the median time of
# each and the ratios on/off and hint/off (< 1: pre-posting saves time).
# usage: prepost_bench.sh PREPOST_BENCH MPIEXEC [mpiexec flags...]
set -u
prog=$1 mpiexec=$2
shift 2
reps=${REPS:-5}
med() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf "%-9s %8s %3s %10s %10s %10s %8s %9s\n" pattern bytes p off_us on_us hint_us on/off hint/off
for cfg in "pingpong 2 8" "pingpong 2 65536" "pingpong 2 1048576" "halo 4 8" "halo 4 65536" \
    "halo 4 524288"; do
    set -- $cfg "$@"
    pat=$1 np=$2 bytes=$3
    shift 3
    iters=$([ "$bytes" -ge 500000 ] && echo 100 || echo 500)
    : >/tmp/ppb.0
    : >/tmp/ppb.1
    : >/tmp/ppb.2
    for r in $(seq "$reps"); do
        for pp in 0 1 2; do
            "$mpiexec" "$@" -np "$np" env AUTOCOLL_PREPOST=$((pp > 0)) "$prog" "$pat" \
                --bytes "$bytes" --iters "$iters" --hint $((pp == 2)) | awk '{print $3}' >>/tmp/ppb.$pp
        done
    done
    off=$(med </tmp/ppb.0) on=$(med </tmp/ppb.1) hint=$(med </tmp/ppb.2)
    printf "%-9s %8s %3s %10s %10s %10s %8.3f %9.3f\n" "$pat" "$bytes" "$np" "$off" "$on" "$hint" \
        "$(echo "$on / $off" | bc -l)" "$(echo "$hint / $off" | bc -l)"
done
