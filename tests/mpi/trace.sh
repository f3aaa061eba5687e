#!/usr/bin/env bash
# Collective tracing end to end (docs/tracing.md): known calls at p = 3 leave one trace file per
# rank holding exactly those calls (ac_trace_check); autocoll-report reads them and names the
# rank made to arrive late as the latest arriver with at least its sleep as worst-case
# imbalance; bad settings and unusable directories give a message and tracing off, never a
# crash; a damaged file gives a located message.
# Point-to-point tracing (trace_p2p.c): records and identifiers checked, and the report's hit
# ratios of the window heuristics, the predictor memory and the traffic characterisation
# against values counted by hand from the program's stream; the wrapper overheads calibrated at
# MPI_Init are the ones the report subtracts. Persistent requests (trace_p2p.c --persistent):
# starts recorded as sends and receives with their requests' identifiers, receive starts
# completed by completion records, counted and paired by the report.
# usage: trace.sh TRACE_CALLS TRACE_CHECK AUTOCOLL_REPORT TRACE_P2P MPIEXEC [mpiexec flags...]
set -u
prog=$1 check=$2 report=$3 p2p=$4 mpiexec=$5
shift 5
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { "$mpiexec" "$@"; }

mkdir "$tmp/t"
run "$@" -np 3 env AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$tmp/t" \
    AUTOCOLL_BCAST=binomial "$prog" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "traced program exits 0 (its autocoll_arrival_patterns checks pass)" ||
    { bad "traced program exit code $rc"; cat "$tmp/out"; }
"$check" "$tmp/t" 3 >"$tmp/check" 2>&1 && ok "trace files hold exactly the calls made" ||
    { bad "trace files"; cat "$tmp/check"; }
ls "$tmp/t" | grep -q tmp && bad "temporary files left" || ok "no temporary file left"

"$report" "$tmp/t" >"$tmp/rep" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "autocoll-report exits 0" || { bad "autocoll-report exit code $rc"; cat "$tmp/rep"; }
# Arrival table row of the alltoall: p 3, 6 calls, worst-case imbalance >= 18 ms, latest rank 2
# in all 6 calls, none balanced.
row=$(awk -F'|' '/^## Process arrival/{a=1} a && $3 ~ / alltoall /' "$tmp/rep")
echo "$row" | awk -F'|' '{gsub(/ /,"");
  exit !($5 == 3 && $6 == 6 && $10 >= 18000 && $17 == "2(6)" && $15 == 0 && $16 == 6)}' &&
    ok "report: rank 2 (20 ms late) is the latest arriver of all 6 alltoalls" ||
    { bad "report alltoall arrival row: $row"; cat "$tmp/rep"; }
# Arrival-factor distributions: the 6 alltoalls (20 ms late against T of a few us) all in the
# top class (>= 128) and their CDF's minimum above 128; with -t MAPDIR, the CDF data file, and
# the PNG when gnuplot runs here (gnuplot is optional).
grep -qE '^\| [0-9]+ \| alltoall( \| 0){8} \| 6 \|$' "$tmp/rep" &&
    awk -F'|' '/^## Arrival-factor/{a=1} a && $4 ~ / alltoall / && $6 == 6 && $7 >= 128 {ok=1}
         END {exit !ok}' "$tmp/rep" &&
    ok "report: the 6 alltoalls' worst-case factors all >= 128 (histogram and CDF)" ||
    { bad "report arrival-factor distribution"; sed -n '/^## Arrival-factor/,/^## Point/p' "$tmp/rep"; }
mkdir "$tmp/m"
"$report" -t "$tmp/m" "$tmp/t" >"$tmp/repm" 2>&1
# 11 groups: 11 blocks of the data file, 5 + 3 + 1 x 7 + 6 + 7 = 28 calls
[ "$(grep -c '^[0-9]' "$tmp/m/arrival-cdf.dat" 2>/dev/null)" -eq 28 ] &&
    ok "report -t: arrival-factor CDF data, one line per complete call (28)" ||
    bad "report -t: arrival-cdf.dat"
if command -v gnuplot >/dev/null 2>&1; then
  [ -s "$tmp/m/arrival-cdf.png" ] && grep -q '^Arrival-factor CDFs: .*arrival-cdf.png' "$tmp/repm" &&
      ok "report -t: arrival-factor CDF PNG (gnuplot)" || bad "report -t: arrival-cdf.png"
else
  grep -q 'gnuplot unavailable or failed: no PNG' "$tmp/repm" &&
      ok "report -t: no gnuplot, data only, said" || bad "report -t without gnuplot"
fi
grep -E '^\| 0\.0 \| bcast \|.*\| 400 \| 9 \|.*binomial \(9\) \| forced 9 \|' "$tmp/rep" >/dev/null &&
    ok "report: 3 forced binomial bcasts of 400 B on 3 ranks" || bad "report bcast row"
grep -E '^\| 0\.[0-9]+ \| allreduce \|.*\| 16 \| 14 \|' "$tmp/rep" >/dev/null &&
    ok "report: 7 allreduces of 16 B on the 2-rank split communicator" || bad "report split row"

# A damaged file: a located message, status 1, the other files still reported.
mkdir "$tmp/bad"
cp "$tmp/t"/autocoll-trace.0.bin "$tmp/t"/autocoll-trace.2.bin "$tmp/bad"/
head -c 200 "$tmp/t"/autocoll-trace.1.bin >"$tmp/bad"/autocoll-trace.1.bin
"$report" "$tmp/bad" >"$tmp/rep2" 2>"$tmp/err2"
rc=$?
[ $rc -eq 1 ] && grep -q 'autocoll-trace.1.bin: offset [0-9]*: ' "$tmp/err2" &&
    grep -q '^2 rank files of 3' "$tmp/rep2" &&
    ok "truncated file: located message, status 1, the others reported" ||
    { bad "truncated file (status $rc)"; cat "$tmp/err2"; }
"$report" "$tmp/nothere" >/dev/null 2>&1
[ $? -eq 1 ] && ok "missing directory: status 1" || bad "missing directory"
"$report" -a x "$tmp/t" >/dev/null 2>&1
[ $? -eq 2 ] && ok "bad option: status 2" || bad "bad option"
"$report" --version | grep -q '^autocoll-report (autocoll) ' && ok "--version" || bad "--version"
"$report" --help | grep -q '^usage: autocoll-report' && ok "--help" || bad "--help"

# Bad settings: a message naming the setting, tracing off (checked by the program), no files.
mkdir "$tmp/e"
for setting in "AUTOCOLL_TRACE=bogus|AUTOCOLL_TRACE='bogus'" \
               "AUTOCOLL_TRACE_DIR=$tmp/none|AUTOCOLL_TRACE_DIR='$tmp/none': No such file" \
               "AUTOCOLL_TRACE_DIR=$tmp/t/autocoll-trace.0.bin|not a directory"; do
  env=${setting%%|*} msg=${setting#*|}
  run "$@" -np 3 env AUTOCOLL_TRACE=collectives AUTOCOLL_TRACE_DIR="$tmp/e" "$env" \
      "$prog" --off >"$tmp/out" 2>&1
  rc=$?
  [ $rc -eq 0 ] && grep -qF "$msg" "$tmp/out" && [ -z "$(ls "$tmp/e")" ] &&
      ok "$env: message, tracing off, no file" || { bad "$env (status $rc)"; cat "$tmp/out"; }
done
# Point-to-point only: no collective records, autocoll_arrival_patterns says tracing is off.
mkdir "$tmp/q"
run "$@" -np 3 env AUTOCOLL_TRACE=p2p AUTOCOLL_TRACE_DIR="$tmp/q" "$prog" --off >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(ls "$tmp/q" | wc -l)" -eq 3 ] && "$report" "$tmp/q" | grep -q '^| 0\.0 |' &&
    bad "AUTOCOLL_TRACE=p2p: collective records present" ||
    { [ $rc -eq 0 ] && [ "$(ls "$tmp/q" | wc -l)" -eq 3 ] &&
          ok "AUTOCOLL_TRACE=p2p: files, no collective records, arrival patterns off" ||
          { bad "AUTOCOLL_TRACE=p2p (status $rc)"; cat "$tmp/out"; }; }
# A bad ring size keeps the default; a small ring overwrites (drops counted, calls incomplete).
mkdir "$tmp/r"
run "$@" -np 3 env AUTOCOLL_TRACE=all AUTOCOLL_TRACE_DIR="$tmp/r" AUTOCOLL_TRACE_RECORDS=5 \
    AUTOCOLL_BCAST=binomial "$prog" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "AUTOCOLL_TRACE_RECORDS='5'" "$tmp/out" && "$check" "$tmp/r" 3 >/dev/null &&
    ok "AUTOCOLL_TRACE_RECORDS=5: message, default ring, complete files" ||
    { bad "AUTOCOLL_TRACE_RECORDS=5 (status $rc)"; cat "$tmp/out"; }
rm -f "$tmp/r"/*
run "$@" -np 3 env AUTOCOLL_TRACE=coll AUTOCOLL_TRACE_DIR="$tmp/r" AUTOCOLL_TRACE_RECORDS=16 \
    "$prog" >"$tmp/out" 2>&1
"$report" "$tmp/r" >"$tmp/rep3" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^3 rank files of 3 .*; 29 records overwritten' "$tmp/rep3" &&
    ok "16-record rings: the report counts 29 (12 + 5 + 12) overwritten records" ||
    { bad "small ring (status $rc)"; head -5 "$tmp/rep3"; }

# Point-to-point: per rank the send stream is (A B) x 50, A (sendrecv_replace), A (send), C, D
# (two duplicates): LRU with window 2 hits 98 + 2 of 104 = 0.962, window 1 hits 1 of 104 = 0.010;
# the receive stream (L R) x 50, W (wildcard), E, F: window 2 hits 98 of 103 = 0.951.
mkdir "$tmp/p"
run "$@" -np 3 env AUTOCOLL_TRACE=p2p AUTOCOLL_TRACE_DIR="$tmp/p" "$p2p" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "p2p program exits 0" || { bad "p2p program exit code $rc"; cat "$tmp/out"; }
"$check" "$tmp/p" 3 p2p >"$tmp/check" 2>&1 && ok "p2p records and identifiers" ||
    { bad "p2p trace files"; cat "$tmp/check"; }
"$report" "$tmp/p" >"$tmp/rep4" 2>&1 || bad "autocoll-report on p2p traces"
awk '/hit ratios, send side/{s=1} /hit ratios, receive side/{s=2}
     s==1 && /^\| LRU \| 2 \| 0.962 \/ 0.962 \/ 0.962 \|$/ {a++}
     s==1 && /^\| LRU \| 1 \| 0.010 \/ 0.010 \/ 0.010 \|$/ {b++}
     s==2 && /^\| LRU \| 2 \| 0.951 \/ 0.951 \/ 0.951 \|$/ {c++}
     END {exit !(a==1 && b==1 && c==1)}' "$tmp/rep4" &&
    ok "report: LRU hit ratios 0.962 (k = 2), 0.010 (k = 1) sends, 0.951 (k = 2) receives" ||
    { bad "report p2p hit ratios"; cat "$tmp/rep4"; }
# The wrapper overheads calibrated at MPI_Init (spec 2.3; plausibility checked per file by
# ac_trace_check) are those the report says it subtracts: rank 0's "#wrap" string.
w=$(grep -a -o '#wrap send=[0-9.]*/[0-9.]* recv=[0-9.]*/[0-9.]* other=[0-9.]*/[0-9.]*' \
        "$tmp/p/autocoll-trace.0.bin" |
    sed -E 's|#wrap send=([0-9.]+)/([0-9.]+) recv=([0-9.]+)/([0-9.]+) other=([0-9.]+)/([0-9.]+)|send \1 / \2, receive \3 / \4, other \5 / \6|')
[ -n "$w" ] && grep -qF "wrapper overheads calibrated at MPI_Init (rank 0's file, entry / exit, ns: $w)" "$tmp/rep4" &&
    ok "report: subtracts rank 0's calibrated wrapper overheads ($w ns)" ||
    bad "report wrapper overheads (file: '$w')"
[ "$(grep -cE '^\| (LRU|Better-cycle2|Tag-bettercycle2) \| (1|10) \|( [0-9.]+ / [0-9.]+ / [0-9.]+ \|){4}$' "$tmp/rep4")" -eq 6 ] &&
    ok "report: reconfiguration-hiding table (3 predictors x 2 CPU factors x 4 delays)" ||
    bad "report reconfiguration table"

# Predictor memory (spec 3.5, Tables 3.1/6.1 form), counted by hand from the same streams with the
# sites: send Isend-right (A), Isend-left (B), Sendrecv_replace (A), Send (A), Send on the dups
# (C, D: one site); receive Irecv-left (L), Irecv-right (R), wildcard Recv (W), Recv on the dups
# (E, F). Cycle kinds store only [A B] (then A misses and [A C D] stays unclosed): formula 2,
# peak 2 + 3 = 5. Tagging: 5 send sites, 4 receive sites. Tag kinds: every closed cycle has
# length 1 and one head, formula = sites; peak: send [A] [B] + builds [A] [A] [C D] = 6,
# receive [L] [R] + builds [W] [E F] = 5.
awk '/^## Predictor memory/{s=1} /^## /&&!/Predictor memory/{s=0}
     s && /^\| (Single|Better)-cycle2? \| 2 \| 5 \| 2 \| 5 \|$/ {a++}
     s && /^\| Tagging \| 5 \| 5 \| 4 \| 4 \|$/ {b++}
     s && /^\| Tag-(better)?cycle2? \| 5 \| 6 \| 4 \| 5 \|$/ {c++}
     END {exit !(a==4 && b==1 && c==4)}' "$tmp/rep4" &&
    ok "report: predictor memory (formula and peak) as counted by hand" ||
    { bad "report predictor memory"; sed -n '/^## Predictor memory/,$p' "$tmp/rep4"; }

# Traffic characterisation (spec 2.4), counted by hand from the same program at p = 3: per rank
# 104 sends (identifiers A B C D), 103 receives (L R W E F), 1 wildcard; each rank sends 54 to its
# right (50 Isend, Sendrecv_replace, Send, 2 Sends on the dups) and 50 to its left, so every
# rank gets 104 pooled and process 0 sends 54 to 1 and 50 to 2; process 0 posts 50 receives from
# 1 (right), 52 from 2 (left: 50 Irecv + 2 on the dups) and 1 wildcard; every message is one int:
# 312 sends and 309 receives of 4 B; 103 inter-send gaps on process 0, quantiles non-decreasing.
sed -n '/^## Traffic characterisation/,/^## Early/p' "$tmp/rep4" >"$tmp/traffic"
tf=0
for row in '| send requests | 104.000 / 104.000 / 104.000 |' \
           '| receive requests | 103.000 / 103.000 / 103.000 |' \
           '| distinct send identifiers | 4.000 / 4.000 / 4.000 |' \
           '| distinct receive identifiers | 5.000 / 5.000 / 5.000 |' \
           '| wildcard receives | 1.000 / 1.000 / 1.000 |' \
           '| 0 | 104 | 0 | 0 |' '| 1 | 104 | 54 | 50 |' '| 2 | 104 | 50 | 52 |' \
           '| unknown / any | 0 | 0 | 1 |' '| 4-7 | 312 | 309 |'; do
  grep -qxF "$row" "$tmp/traffic" || { tf=1; echo "missing: $row"; }
done
[ "$(sed -n '/^| bytes | sends/,/^$/p' "$tmp/traffic" | grep -c '^| [0-9]')" -eq 1 ] ||
    { tf=1; echo "more than one size class"; }
grep -q "the given fraction of its 103 gaps lie" "$tmp/traffic" || { tf=1; echo "gap count"; }
awk -F'|' '/^\| fraction/{c=1; next} c && /^\| [0-9.]+ \| [0-9.]+ \|$/ {n++; if ($3 + 0 < last) bad = 1; last = $3 + 0}
     /^\| communication \/ computation \| [0-9.]+ \/ / {r = 1}
     END {exit !(n == 8 && !bad && r)}' "$tmp/traffic" || { tf=1; echo "CDF or ratio"; }
[ $tf -eq 0 ] && ok "report: traffic characterisation (counts, identifiers, destinations, sizes, CDF)" ||
    { bad "report traffic characterisation"; cat "$tmp/traffic"; }
# The same with -t: the figures' data (destinations as in the table, 103 gaps), and the PNGs
# when gnuplot runs here.
mkdir "$tmp/pm"
"$report" -t "$tmp/pm" "$tmp/p" >"$tmp/rep5" 2>&1
[ "$(cat "$tmp/pm/destinations.dat" 2>/dev/null)" = "$(printf '0 104 0\n1 104 54\n2 104 50')" ] &&
    [ "$(grep -c '^[0-9]' "$tmp/pm/intersend-cdf.dat" 2>/dev/null)" -eq 103 ] &&
    ok "report -t: destination and inter-send CDF data" || bad "report -t: traffic figure data"
if command -v gnuplot >/dev/null 2>&1; then
  [ -s "$tmp/pm/destinations.png" ] && [ -s "$tmp/pm/intersend-cdf.png" ] &&
      ok "report -t: destination and inter-send CDF PNGs (gnuplot)" || bad "report -t: traffic PNGs"
fi

# Persistent requests (trace_p2p.c --persistent, p = 3): per rank 20 iterations of 4 receive
# starts (left tags 6 and 8, right tags 7 and 9) and 4 send starts (right: 2-int send and bsend;
# left: ssend and rsend), then one Irecv from the left and one Isend to the right after the
# requests are freed. Counted by hand: 81 sends (41 to the right, 40 to the left) with 2
# identifiers (<right, world>, <left, world>); 81 receives with 5 identifiers (4 persistent, the
# Irecv); process 0 sends 41 to 1 and 40 to 2 and posts 41 receives from 2 and 40 from 1; every
# process gets 81 sends; 20 x 3 sends and receives of 8 B, 61 x 3 of 4 B.
mkdir "$tmp/ps"
run "$@" -np 3 env AUTOCOLL_TRACE=p2p AUTOCOLL_TRACE_DIR="$tmp/ps" "$p2p" --persistent \
    >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "persistent program exits 0 (values received checked)" ||
    { bad "persistent program exit code $rc"; cat "$tmp/out"; }
"$check" "$tmp/ps" 3 persistent >"$tmp/check" 2>&1 &&
    ok "persistent starts: send and receive records with the requests' identifiers" ||
    { bad "persistent trace files"; head -20 "$tmp/check"; }
"$report" "$tmp/ps" >"$tmp/rep6" 2>&1 || bad "autocoll-report on persistent traces"
sed -n '/^## Traffic characterisation/,/^## Early/p' "$tmp/rep6" >"$tmp/traffic"
tf=0
for row in '| send requests | 81.000 / 81.000 / 81.000 |' \
           '| receive requests | 81.000 / 81.000 / 81.000 |' \
           '| distinct send identifiers | 2.000 / 2.000 / 2.000 |' \
           '| distinct receive identifiers | 5.000 / 5.000 / 5.000 |' \
           '| wildcard receives | 0.000 / 0.000 / 0.000 |' \
           '| 0 | 81 | 0 | 0 |' '| 1 | 81 | 41 | 40 |' '| 2 | 81 | 40 | 41 |' \
           '| 4-7 | 183 | 183 |' '| 8-15 | 60 | 60 |'; do
  grep -qxF "$row" "$tmp/traffic" || { tf=1; echo "missing: $row"; }
done
grep -q "the given fraction of its 80 gaps lie" "$tmp/traffic" || { tf=1; echo "gap count"; }
[ $tf -eq 0 ] && ok "report: persistent starts counted as sends and receives (counts, identifiers, destinations, sizes)" ||
    { bad "report persistent traffic characterisation"; cat "$tmp/traffic"; }
# Early arrival with persistent requests: every start of a persistent send is a send and every
# start of a persistent receive a receive completed by its Waitall (a completion record each):
# per rank 80 starts of each plus the Isend/Irecv, so 3 x 81 = 243 sends, 243 receives, all 243
# pairs timed, none untimed, no persistent start left out; each process posts and pairs 81.
ea=$(sed -n '/^## Early arrival/,/^## /p' "$tmp/rep6")
ef=0
echo "$ea" | grep -q '; 243 sends, 243 receives, 243 pairs timed, 0 paired without a time\.' ||
    { ef=1; echo "missing: early-arrival counts"; }
echo "$ea" | grep -q ' 0 persistent starts, 0 completions without their receive\.' ||
    { ef=1; echo "missing: no persistent start left out"; }
for p in 0 1 2; do
  echo "$ea" | grep -qE "^\| $p \| 81 \| 81 \| [0-9]+ \| [0-9.]+ \| 0 \|$" ||
      { ef=1; echo "missing: row of process $p"; }
done
[ $ef -eq 0 ] && ok "report: persistent receive starts paired with their sends through their completions (243 pairs)" ||
    { bad "report early arrival with persistent requests"; echo "$ea"; }
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
