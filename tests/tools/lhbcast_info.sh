#!/bin/sh
# autocoll-info --lhbcast (spec predictors-latency.md 5.5-5.6): the modelled times of Tables 5.1,
# 5.2 (N corrected to 22073) and 5.4 and the grouping-schema example N = 17, k = 2, d = 1 as the
# spec prints them; the d = 0 note; bad arguments exit 2 with the reason.
#   lhbcast_info.sh AUTOCOLL-INFO
tool=$1
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
# has WHAT PATTERN ARGS...: exit 0 and a line matching PATTERN
has() {
    what=$1 pat=$2
    shift 2
    out=$("$tool" --lhbcast "$@" 2>&1)
    if [ $? -eq 0 ] && printf '%s\n' "$out" | grep -Eq -- "$pat"; then ok "$what"; else
        bad "$what (/$pat/)"
        printf '%s\n' "$out" | head -30
    fi
}
# Table 5.1, k = 2, d = 1, N = 1393: B1 20, B2 14, B3 11, B4 8, log3 7
has "T5.1 B1" '^B1 .*= 20$' 1393 2 1
has "T5.1 B2" '^B2 .*= 14$' 1393 2 1
has "T5.1 B3" '^B3 .*= 11$' 1393 2 1
has "T5.1 B4" '^B4  latency hiding \(dedicated\) .*= 8$' 1393 2 1
has "T5.1 best" '^best case .*= 7$' 1393 2 1
# Table 5.2 (corrected), k = 4, d = 3, N = 22073: 32 28 11 7 7; Table 5.4 M = 10: MB1 100, MB2 83
has "T5.2 B1" '^B1 .*= 32$' 22073 4 3 10
has "T5.2 B4" '^B4  latency hiding \(dedicated\) .*= 7$' 22073 4 3 10
has "T5.4 MB1" '^MB1 .*= 100$' 22073 4 3 10
has "T5.4 MB2" '^MB2 .*= 83$' 22073 4 3 10
has "N(S) k=4 d=3" '^N\(S\), S = 0\.\.7: 1 5 21 85 341 1369 5497 22073$' 22073 4 3
# Table 5.3, single port, d = 3, N = 1252: B_F1 = 21
has "T5.3 B_F1" '^B4  latency hiding \(dedicated\) .*= 21$' 1252 1 3
# spec 5.5 example schedule, root 0, then root 5 (ids shifted by 5 mod 17)
out=$("$tool" --lhbcast 17 2 1 | sed -n '/^schedule/,$p' | tail -n +2 | tr '\n' '|')
want='1 0 -> 1 2|2 1 -> 3 4|2 2 -> 5 6|3 0 -> 7 8|3 3 -> 9 10|3 4 -> 11 12|3 5 -> 13 14|3 6 -> 15 16|'
if [ "$out" = "$want" ]; then ok "schedule N=17"; else bad "schedule N=17: $out"; fi
has "schedule root 5" '^3 8 -> 14 15$' 17 2 1 1 5
has "d = 0 is knomial" 'radix 3 \(bcast knomial:k=3' 9 2 0
has "d > 0 analysis" 'analysis only' 9 2 1
for a in "0 2 1" "9 0 1" "9 2 -1" "9 2 x" "9 2 1 0" "9 2 1 1 9"; do
    # shellcheck disable=SC2086
    out=$("$tool" --lhbcast $a 2>&1)
    st=$?
    if [ $st -eq 2 ] && printf '%s\n' "$out" | grep -q 'must be an integer'; then ok "rejects $a"
    else bad "rejects $a (status $st)"; printf '%s\n' "$out" | head -3; fi
done
"$tool" --lhbcast 9 2 >/dev/null 2>&1
[ $? -eq 2 ] && ok "too few arguments: usage" || bad "too few arguments"
[ $fails -eq 0 ] && echo "all passed" || echo "$fails failed"
[ $fails -eq 0 ]
