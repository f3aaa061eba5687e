#!/bin/sh
# expect.sh STATUS REGEX COMMAND...: runs COMMAND, passes when its exit status is STATUS ("nonzero"
# for any failure) and its output (stdout and stderr) matches the extended regular expression.
want=$1
re=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$want" = nonzero ]; then
    [ "$rc" -ne 0 ] || { echo "expect.sh: exit status 0, expected a failure"; exit 1; }
else
    [ "$rc" -eq "$want" ] || { echo "expect.sh: exit status $rc, expected $want"; exit 1; }
fi
printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "expect.sh: output does not match '$re'"; exit 1; }
exit 0
