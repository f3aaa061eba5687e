#!/usr/bin/env bash
# Per-stage tracing of the reduction trees (docs/tracing.md, seed 003 §4, spec
# allreduce-trees.md §7): autocoll-gsum at p = 4 on two emulated nodes (block:2) with collective
# tracing; autocoll-report assembles every call's stage records, forms every rank's path, finds
# the two total identities within the clock uncertainty, no negative one-clock stage (waits and
# latencies of a vertex), network edges between the nodes, and, with two different trees,
# analyses them apart. Gsum's own checks (every result on every rank, bad options) too.
# usage: trace_tree.sh AUTOCOLL_GSUM AUTOCOLL_REPORT MPIEXEC [mpiexec flags...]
set -u
gsum=$1 report=$2 mpiexec=$3
shift 3
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Identities, stage signs and paths of one report section ($1: file, $2: tree name).
check_group() {
    awk -v tree="$2" '
      /^### / { in_g = index($0, tree) > 0 }
      in_g && /paths could not be formed/ { paths = $(NF-5) + 0; seen_p = 1 }
      in_g && /^Identities/ {
        match($0, /largest error [0-9.]+/); e = substr($0, RSTART + 14, RLENGTH - 14) + 0
        match($0, /uncertainty [0-9.]+/); u = substr($0, RSTART + 12, RLENGTH - 12) + 0
        match($0, /stages \(waits, latencies\): [0-9]+/); n = substr($0, RSTART + 28, RLENGTH - 28) + 0
        seen_i = 1 }
      in_g && /^\| network edges \|/ { split($0, f, "|"); net = f[3] + f[4] + f[5] + f[6] }
      in_g && /^\| total, with arrival wait \|/ { split($0, f, "|"); tot = f[6] + 0 }
      END { ok = seen_p && seen_i && paths == 0 && e <= u && n == 0 && net > 0 && tot > 0
            printf "paths-failed=%s err=%s unc=%s neg=%s net=%s total3=%s\n", paths, e, u, n, net, tot
            exit !ok }' "$1"
}

mkdir "$tmp/t"
"$mpiexec" "$@" -np 4 env AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$tmp/t" \
    AUTOCOLL_NODE_LAYOUT=block:2 "$gsum" -n 150 -r 2 -A binary >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'all correct' "$tmp/out" && ok "gsum binary at p = 4: results correct" ||
    { bad "gsum exit code $rc"; cat "$tmp/out"; }
"$report" "$tmp/t" >"$tmp/rep" 2>&1 || { bad "autocoll-report failed"; cat "$tmp/rep"; }
grep -q '^### 0.0 tree:spec=binary, p = 4' "$tmp/rep" && ok "report: a stage section of the tree" ||
    { bad "report: no stage section"; cat "$tmp/rep"; }
grep -q '^601 complete calls, the first 10 left out' "$tmp/rep" &&
    ok "report: all 601 calls (2 x 2 x 150 and the check) complete on every rank" || bad "report: call count"
r=$(check_group "$tmp/rep" "tree:spec=binary") && ok "identities within clock uncertainty, no negative wait or latency, network edges ($r)" ||
    { bad "stage checks: $r"; sed -n '/Reduction-tree/,$p' "$tmp/rep"; }
# Table 2 is of the slowest rank, which varies from run to run: its path always has a core
# stage and, with host=2 subtrees, a host arrival wait; ranks 2 and 3 also cross the network.
grep -q '^| core |' "$tmp/rep" && grep -q '^| host L0 arrival wait |' "$tmp/rep" &&
    ok "report: Table 2 stages (core, host arrival wait)" ||
    { bad "Table 2 stages"; sed -n '/Reduction-tree/,$p' "$tmp/rep"; }

# Two different trees alternating: two sections, each consistent.
mkdir "$tmp/u"
"$mpiexec" "$@" -np 4 env AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$tmp/u" \
    AUTOCOLL_NODE_LAYOUT=block:2 "$gsum" -n 60 -r 1 -A flat -B 'host=2;cluster=flat' \
    -s 256 >"$tmp/out2" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'all correct' "$tmp/out2" && ok "gsum flat / host=2;cluster=flat, 256 B" ||
    { bad "gsum two trees exit code $rc"; cat "$tmp/out2"; }
"$report" "$tmp/u" >"$tmp/rep2" 2>&1
[ "$(grep -c '^### 0.0 tree:spec=' "$tmp/rep2")" = 2 ] &&
    ok "report: the two alternating trees analysed apart" ||
    { bad "two tree sections"; cat "$tmp/rep2"; }
r=$(check_group "$tmp/rep2" 'tree:spec="host=2;cluster=flat"') &&
    ok "second tree: identities and signs ($r)" || bad "second tree: $r"

# Untraced: no file.
mkdir "$tmp/v"
(cd "$tmp/v" && "$mpiexec" "$@" -np 2 "$gsum" -n 10 -r 1 >/dev/null 2>&1) &&
    [ -z "$(ls "$tmp/v")" ] && ok "untraced run: no trace file" || bad "untraced run"
"$gsum" -s 6 >/dev/null 2>&1
[ $? -eq 2 ] && ok "gsum -s 6: status 2" || bad "gsum -s 6"
"$gsum" --version | grep -q '^autocoll-gsum (autocoll) ' && ok "gsum --version" || bad "--version"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
