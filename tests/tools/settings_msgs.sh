#!/bin/sh
# settings_msgs.sh AC_SPLIT DIR MPIEXEC [FLAGS...]: messages of the library about settings it
# cannot use (issue 22), each checked on a real MPI run of ac_split:
#  - a nested part that cannot run (allgather hier:inter=hier) is refused at MPI_Init with a
#    message, and the job completes on the MPI library's algorithm (AUTOCOLL_ON_ERROR=native);
#  - a forced algorithm that cannot run is reported once per job, by world rank 0 only, however
#    many communicators hit it; AUTOCOLL_VERBOSE=1 counts every such call in the summary;
#  - a FIFO as AUTOCOLL_TABLE is refused without blocking MPI_Init;
#  - AUTOCOLL_TABLE_OUT in a missing directory is reported with the reason;
#  - AUTOCOLL_MODE=table without AUTOCOLL_TABLE is reported once.
split=$1
dir=$2
shift 2
fail=0
mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
run() { # run NP [VAR=VALUE...] -- ARGS: ac_split's output (stdout and stderr) in out.txt
    np=$1
    shift
    vars=
    while [ "$1" != "--" ]; do
        vars="$vars $1"
        shift
    done
    shift
    # shellcheck disable=SC2086
    env $vars timeout 240 "$@" -np "$np" "$split" $args >out.txt 2>&1
    echo $?
}
check() { # check WHAT CONDITION...: reports and remembers a failure
    what=$1
    shift
    if "$@"; then
        echo "ok   $what"
    else
        echo "FAIL $what"
        sed 's/^/     | /' out.txt | head -40
        fail=1
    fi
}
has() { grep -Eq -- "$1" out.txt; }
count() { grep -Ec -- "$1" out.txt; }

# A: nested part that cannot run.
args=2
rc=$(run 4 AUTOCOLL_ALLGATHER=hier:inter=hier AUTOCOLL_NODE_LAYOUT=block:2 -- "$@")
check "nested hier:inter=hier: job completes" [ "$rc" -eq 0 ]
check "nested hier:inter=hier: refused with a message" \
    has "autocoll\[0\]: AUTOCOLL_ALLGATHER: hier: inter=hier cannot run as a part: hier is node-aware"
check "nested hier:inter=hier: correct results" has "results correct"

# B: 100 splits of 6 ranks into halves of 3; rdb needs a power of two.
args=100
rc=$(run 6 AUTOCOLL_ALLGATHER=rdb -- "$@")
check "restriction: job completes" [ "$rc" -eq 0 ]
check "restriction: one line per job" [ "$(count 'cannot run on this call')" -eq 1 ]
check "restriction: from world rank 0" has "autocoll\[0\]: allgather rdb cannot run on this call"
check "restriction: from no other rank" [ "$(count 'autocoll\[[1-9][0-9]*\]: .*cannot run')" -eq 0 ]
rc=$(run 6 AUTOCOLL_ALLGATHER=rdb AUTOCOLL_VERBOSE=1 -- "$@")
check "restriction, verbose 1: one line per job" [ "$(count 'cannot run on this call')" -eq 1 ]
check "restriction, verbose 1: summary counts every call (2 halves x 100)" \
    has "autocoll\[0\]: summary allgather: the forced rdb could not run 200 calls"

# C: a FIFO as the table must not block MPI_Init.
rm -f fifo.json
mkfifo fifo.json || exit 1
args=1
rc=$(run 2 AUTOCOLL_TABLE="$dir/fifo.json" -- "$@")
check "FIFO table: job completes" [ "$rc" -eq 0 ]
check "FIFO table: refused with a message" has "fifo.json' is a FIFO, not a regular file"
rm -f fifo.json

# C: AUTOCOLL_TABLE_OUT where it cannot be written.
rc=$(run 2 AUTOCOLL_TABLE_OUT="$dir/no-such-dir/learned.json" -- "$@")
check "TABLE_OUT: job completes" [ "$rc" -eq 0 ]
check "TABLE_OUT: reason given" \
    has "AUTOCOLL_TABLE_OUT=.*no-such-dir/learned.json: cannot write in directory .*: No such file or directory"

# C: mode table without a table, said once.
rc=$(run 3 AUTOCOLL_MODE=table -- "$@")
check "mode table without table: job completes" [ "$rc" -eq 0 ]
check "mode table without table: said once" \
    [ "$(count 'AUTOCOLL_MODE=table without AUTOCOLL_TABLE')" -eq 1 ]

[ $fail -eq 0 ] && echo "settings_msgs: all passed"
exit $fail
