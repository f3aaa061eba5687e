#!/bin/sh
# autocoll-topo on good and bad topology files (docs/topology.md).
#   topo_tool.sh AUTOCOLL-TOPO TOPODIR WORKDIR
# Checks: --help/--version; check accepts the files of tests/mpi/topo and rejects bad ones with
# exit status 1 and the located reason (FILE:LINE: reason); show prints L phases (Table 3.4
# shape: 9) and contention-free rings; simgrid writes a platform and a host file that follow
# the rank records; generate is deterministic in its seed and its output validates; bad usage
# exits 2.
tool=$1 dir=$2 work=$3
fails=0
mkdir -p "$work" || exit 1
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
# expect STATUS PATTERN WHAT CMD...: exit status and a line matching PATTERN (stdout+stderr)
expect() {
    st=$1 pat=$2 what=$3
    shift 3
    out=$("$@" 2>&1)
    got=$?
    if [ "$got" -eq "$st" ] && printf '%s\n' "$out" | grep -Eq -- "$pat"; then
        ok "$what"
    else
        bad "$what (status $got, wanted $st and /$pat/)"
        printf '%s\n' "$out" | head -20
    fi
}

expect 0 '^usage: autocoll-topo' "--help" "$tool" --help
expect 0 '^autocoll-topo \(autocoll\) [0-9.]+$' "--version" "$tool" --version
expect 2 '^usage: autocoll-topo' "no command" "$tool"
expect 2 'expects an integer' "generate -n x" "$tool" generate -n x
expect 2 'needs -n' "generate without -n" "$tool" generate -s 3

for f in p3 p4 p5 p6; do
    expect 0 "valid: .* $(echo $f | cut -c2) ranks" "check $f.topo" "$tool" check "$dir/$f.topo"
done

# bad files: FILE:LINE: reason
mk() { printf "$2" > "$work/$1.topo"; }
mk cycle 'switch a\nswitch b\nswitch c\nlink a b\nlink b c\nlink c a\nmachine n a\n'
mk unknown 'switch s0\nmachine n0 s9\n'
mk duplicate 'switch s0\nmachine n0 s0\nmachine n0 s0\n'
mk norank 'switch s0\nmachine n0 s0\nrank 0 n0\nrank 1 n7\n'
mk discon 'switch a\nswitch b\nmachine n0 a\nmachine n1 b\n'
mk syntax 'switch s0\nmachine n0 s0 bw=fast\n'
expect 1 "cycle.topo:6: cycle" "cycle" "$tool" check "$work/cycle.topo"
expect 1 "unknown.topo:2: unknown id" "unknown id" "$tool" check "$work/unknown.topo"
expect 1 "duplicate.topo:3: duplicate" "duplicate" "$tool" check "$work/duplicate.topo"
expect 1 "norank.topo:4: rank without machine" "rank without machine" "$tool" check \
    "$work/norank.topo"
expect 1 "discon.topo:4: disconnected machine" "disconnected machine" "$tool" check \
    "$work/discon.topo"
expect 1 "syntax.topo:2: syntax" "syntax" "$tool" check "$work/syntax.topo"
expect 1 "cycle.topo: 1 error" "error count" "$tool" check "$work/cycle.topo"
expect 1 "missing.topo:0: cannot read" "missing file" "$tool" check "$work/missing.topo"
expect 1 "cycle.topo:6: cycle" "show rejects too" "$tool" show "$work/cycle.topo"

# show: Figure 3.2 shape -> L = |M0| (|M| - |M0|) = 3 * 3 = 9 phases
out=$("$tool" show "$dir/p6.topo")
n=$(printf '%s\n' "$out" | grep -c '^  phase ')
if [ "$n" -eq 9 ] && printf '%s\n' "$out" | grep -q '^AAPC: 9 phases (load 9)'; then
    ok "show: 9 AAPC phases"
else
    bad "show: $n phases"
fi
if printf '%s\n' "$out" | grep -q '^LR3 (longest path 3 switches, contention free)' &&
    ! printf '%s\n' "$out" | grep -q CONTENTION; then
    ok "show: rings contention free"
else
    bad "show: rings"
fi
expect 0 'chain from 2 \(Algorithm 4\): 2 ' "show -r 2" "$tool" show -r 2 "$dir/p6.topo"
expect 2 'not a rank' "show -r 9" "$tool" show -r 9 "$dir/p6.topo"

# simgrid: hosts follow the rank records (p4: m1 m0 m1 m2), m1 has two cores
if "$tool" simgrid "$dir/p4.topo" "$work/p4.xml" "$work/p4.hosts" &&
    [ "$(tr '\n' ' ' < "$work/p4.hosts")" = "m1 m0 m1 m2 " ] &&
    grep -q '<host id="m1" speed="1Gf" core="2"/>' "$work/p4.xml" &&
    grep -q '<router id="s0"/>' "$work/p4.xml" && grep -q '<platform version="4.1">' "$work/p4.xml"; then
    ok "simgrid platform and host file"
else
    bad "simgrid platform and host file"
fi
expect 1 'cannot write' "simgrid to a missing directory" "$tool" simgrid "$dir/p4.topo" \
    "$work/no/such/dir.xml" "$work/h"

# generate: deterministic, valid, N machines
"$tool" generate -n 40 -m 5 -s 11 -p 2 > "$work/g1.topo"
"$tool" generate -n 40 -m 5 -s 11 -p 2 > "$work/g2.topo"
"$tool" generate -n 40 -m 5 -s 12 -p 2 > "$work/g3.topo"
if cmp -s "$work/g1.topo" "$work/g2.topo" && ! cmp -s "$work/g1.topo" "$work/g3.topo" &&
    [ "$(grep -c '^machine ' "$work/g1.topo")" -eq 40 ] &&
    [ "$(grep -c '^switch ' "$work/g1.topo")" -eq 8 ]; then
    ok "generate: deterministic, 40 machines, 8 switches"
else
    bad "generate"
fi
expect 0 'valid: 8 switches, 40 machines, 80 ranks' "generated file validates" "$tool" check \
    "$work/g1.topo"

[ "$fails" -eq 0 ] && echo "autocoll-topo: all checks passed" && exit 0
echo "autocoll-topo: $fails failed"
exit 1
