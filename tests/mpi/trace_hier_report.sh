# Checks of autocoll-report's section "Stages of hierarchical calls" on the runs of
# tests/mpi/trace_hier.c at p = 6 (4 calls of each collective), sourced by
# tests/mpi/trace_hier.sh and tests/sim/trace_hier_sim.sh (which define ok and bad).

# The report section of group $2 (a "### " header containing it) in file $1: calls, paths,
# identities (the report's largest error against the clock uncertainty, and the printed per-rank
# means: |total - (down + up)| within that error + 0.02 us of rounding, with and without arrival
# waits), no stamp out of order, the minima of the metrics measured on one clock (waits,
# latencies, parts) not negative and those of the edges (two clocks) not below minus the clock
# uncertainty. Prints the figures; status 1 when one is off.
check_group() {
    awk -v g="$2" '
      /^### / { in_g = index($0, g) > 0 }
      in_g && /complete calls/ { calls = $1 + 0; paths = $(NF-5) + 0; seen_p = 1 }
      in_g && /^Identities/ {
        match($0, /largest error [0-9.]+/); e = substr($0, RSTART + 14, RLENGTH - 14) + 0
        match($0, /uncertainty [0-9.]+/); u = substr($0, RSTART + 12, RLENGTH - 12) + 0
        match($0, /out of order\): [0-9]+/); n = substr($0, RSTART + 15, RLENGTH - 15) + 0
        seen_i = 1 }
      in_g && /^\| (intra|inter)-node \| / { split($0, f, "|"); mn = f[5] + 0
        if (f[3] ~ /edge/) { if (mn < -u) negedge++ } else if (mn < 0) negone++ }
      in_g && /^\| down, with arrival wait \|/ { nc = split($0, dw, "|") }
      in_g && /^\| down, no arrival wait \|/ { split($0, dn, "|") }
      in_g && /^\| up \|/ { split($0, up, "|") }
      in_g && /^\| total, no arrival wait \|/ { split($0, tn, "|") }
      in_g && /^\| total, with arrival wait \|/ { split($0, tw, "|"); seen_t = 1 }
      END {
        worst = 0
        for (i = 3; i < nc; i++) {
          d1 = tw[i] - (dw[i] + up[i]); d2 = tn[i] - (dn[i] + up[i])
          if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
          if (d1 > worst) worst = d1; if (d2 > worst) worst = d2 }
        ok = seen_p && seen_i && seen_t && calls == 4 && paths == 0 && e <= u && n == 0 &&
             worst <= e + 0.02 && nc >= 9 && negedge + negone == 0
        printf "calls=%s paths-failed=%s err=%s unc=%s out-of-order=%s table-err=%.2f " \
               "negative-metric-minima=%d edges-below-uncertainty=%d\n",
               calls, paths, e, u, n, worst, negone, negedge
        exit !ok }' "$1"
}

# Samples of a metric row ($3: stage, $4: metric name up to its parenthesis) of group $2.
samples() {
    awk -v g="$2" -v st="$3" -v m="$4" -F' [|] ' '
      /^### / { in_g = index($0, g) > 0 }
      in_g && $1 == "| " st && index($2, m) == 1 { print $3 + 0; exit }' "$1"
}

# The order matrix titled $3 (start of its line) in group $2 of report $1: prints its number of
# rows, columns, and rows and columns whose percentages do not sum to 100 (+-0.1).
matrix() {
    awk -v g="$2" -v t="$3" '
      /^### / { in_g = index($0, g) > 0 }
      in_g && index($0, t) == 1 { on = 1; next }
      on && /^\| [0-9]+ \|/ { nf = split($0, f, "|"); n++; s = 0; nc = nf - 3
                              for (i = 3; i < nf; i++) { s += f[i]; col[i] += f[i] }
                              if (s < 99.9 || s > 100.1) badrow++ }
      on && /^$/ && n { exit }
      END { for (i = 3; i < nc + 3; i++) if (col[i] < 99.9 || col[i] > 100.1) badcol++
            print n + 0, nc + 0, badrow + badcol + 0 }' "$1"
}

# expect_matrix FILE GROUP TITLE N: an N x N matrix, every row and column summing to 100 %.
expect_matrix() {
    local got
    got=$(matrix "$1" "$2" "$3")
    [ "$got" = "$4 $4 0" ] && ok "report: $2: $3: $4 x $4, rows and columns sum to 100 %" ||
        bad "report: $2: $3: rows, columns, bad sums: ${got}, expected $4 $4 0"
}

# same_matrix FILE GROUP TITLE CHECKOUT NAME: the rows of that matrix in the report are the rows
# that ac_trace_hier_check worked out on its own from the records ("matrix NAME" in CHECKOUT).
same_matrix() {
    local a b
    a=$(awk -v g="$2" -v t="$3" '
      /^### / { in_g = index($0, g) > 0 }
      in_g && index($0, t) == 1 { on = 1; next }
      on && /^\| [0-9]+ \|/ { print; n++ }
      on && /^$/ && n { exit }' "$1")
    b=$(awk -v m="matrix $5" '$0 == m { on = 1; next } on && /^$/ { exit } on { print }' "$4")
    [ -n "$a" ] && [ "$a" = "$b" ] && ok "report: $2: $3: the checker's matrix" ||
        bad "report: $2: $3: rows $(echo $a) against the checker's $(echo $b)"
}

# expect FILE GROUP STAGE METRIC N
# The metrics of node trees stamped by hand (one vertex with ppn - 1 children per node and call,
# both ways, a down latency on every rank): report $1, group $2; 4 calls, nn nodes of ppn.
flat_node_trees() {
    expect "$1" "$2" intra-node "arrival wait" $((4 * nn))
    expect "$1" "$2" intra-node "down latency" 24
    expect "$1" "$2" intra-node "edge down" $((4 * nn * (ppn - 1)))
    expect "$1" "$2" intra-node "up latency" $((4 * nn))
    expect "$1" "$2" intra-node "departure wait" $((4 * nn))
    expect "$1" "$2" intra-node "edge up" $((4 * nn * (ppn - 1)))
}
expect() {
    local got
    got=$(samples "$1" "$2" "$3" "$4")
    [ "${got:-none}" = "$5" ] && ok "report: $2: $3 $4: $5 samples" ||
        bad "report: $2: $3 $4: ${got:-no row}, expected $5"
}

# The bcast/reduce `hier` and allreduce `hierarchical` run: report $1, nodes of $2 ranks, the
# checker's output $3.
check_hier_report() {
    local rep=$1 ppn=$2 nn=$((6 / $2)) chk=$3 g r b m
    for g in "bcast hier:inter=binomial,intra=binomial, root 0" \
        "bcast hier:inter=binomial,intra=binomial, root 5" \
        "reduce hier:inter=binomial,intra=binomial, root 1" "allreduce hierarchical:"; do
        r=$(check_group "$rep" "$g") && ok "nodes of $ppn: $g: $r" ||
            { bad "nodes of $ppn: $g: $r"; sed -n "/^### .*$g/,/^### /p" "$rep"; }
    done
    # bcast from 0: every rank runs the intra-node tree, the nn leaders the inter-node one; a
    # binomial tree over n ranks has n - 1 edges.
    b="bcast hier:inter=binomial,intra=binomial, root 0"
    expect "$rep" "$b" intra-node "bcast part" 24
    expect "$rep" "$b" inter-node "bcast part" $((4 * nn))
    expect "$rep" "$b" intra-node "edge up" $((4 * nn * (ppn - 1)))
    expect "$rep" "$b" inter-node "edge up" $((4 * (nn - 1)))
    # reduce to rank 1 (not a leader): the hand-off from its leader is one more intra-node
    # reduce step on the leader and on rank 1; one inter-node root, the core, per call.
    g="reduce hier:inter=binomial,intra=binomial, root 1"
    expect "$rep" "$g" intra-node "reduce part" $((24 + 8))
    expect "$rep" "$g" inter-node "reduce part" $((4 * nn))
    expect "$rep" "$g" inter-node "core" 4
    expect "$rep" "$g" intra-node "edge down" $((4 * nn * (ppn - 1)))
    expect "$rep" "$g" inter-node "edge down" $((4 * (nn - 1)))
    # bcast and reduce `hier` alone: Table 1 at the root with most children of a tree that goes
    # one way (then intra-node before inter-node, then the lowest rank). Nodes of 3: the
    # binomial intra-node trees of the leaders (2 children; bcast from 5: rank 0 before the
    # tree rooted at rank 5, also 2 children); nodes of 2: the binomial inter-node tree over
    # the 3 leaders (2 children) from the leader of the root's node.
    # The values: those ac_trace_hier_check works out from the records on its own.
    local one="root vertex (one way)" b5="bcast hier:inter=binomial,intra=binomial, root 5"
    local t0 t5 tr
    if [ $ppn -eq 3 ]; then
        t0="Rank 0's intra-node bcast $one" t5=$t0 tr="Rank 0's intra-node reduce $one"
    else
        t0="Rank 0's inter-node bcast $one" t5="Rank 4's inter-node bcast $one"
        tr="Rank 0's inter-node reduce $one"
    fi
    expect_matrix "$rep" "$b" "$t0" 2
    expect_matrix "$rep" "$b5" "$t5" 2
    expect_matrix "$rep" "$g" "$tr" 2
    same_matrix "$rep" "$b" "$t0" "$chk" bcast0
    same_matrix "$rep" "$b5" "$t5" "$chk" bcastlast
    same_matrix "$rep" "$g" "$tr" "$chk" reduce
    g="allreduce hierarchical:"
    expect "$rep" "$g" intra-node "reduce part" 24
    expect "$rep" "$g" intra-node "bcast part" 24
    expect "$rep" "$g" inter-node "exchange part" $((4 * nn))
    if [ $ppn -eq 3 ]; then
        # Node leader 0 reduces and broadcasts over the same two children: a 2 x 2 order
        # matrix whose rows and columns each sum to 100 % (every arrival position and every
        # departure position once per call).
        m=$(awk '/^Rank 0.s intra-node reduce and bcast root vertex/ { on = 1; next }
                 on && /^\| [0-9]+ \|/ { split($0, f, "|"); s = f[3] + f[4]; n++
                                        c1 += f[3]; c2 += f[4]
                                        if (s < 99.9 || s > 100.1) badrow++ }
                 on && /^$/ && n { exit }
                 END { if (c1 < 99.9 || c1 > 100.1) badrow++
                       if (c2 < 99.9 || c2 > 100.1) badrow++
                       print n + 0, badrow + 0 }' "$rep")
        [ "$m" = "2 0" ] && ok "report: allreduce: 2 x 2 arrival/departure matrix at rank 0" ||
            bad "report: allreduce: arrival/departure matrix rows, bad rows: $m"
    fi
}

# The gather/scatter/allgather/alltoall `hier` run (trace_hier.c steps): report $1, nodes of $2,
# the checker's output $3.
check_steps_report() {
    local rep=$1 ppn=$2 nn=$((6 / $2)) chk=$3 g r
    for g in "gather hier, root 1" "scatter hier, root 5" "allgather hier:" "alltoall hier,"; do
        r=$(check_group "$rep" "$g") && ok "steps, nodes of $ppn: $g: $r" ||
            { bad "steps, nodes of $ppn: $g: $r"; sed -n "/^### .*$g/,/^### /p" "$rep"; }
    done
    # gather to rank 1: the nn leaders send their node's blocks, rank 1 waits for them; the
    # intra-node trees (binomial over ppn ranks: ppn - 1 edges, one vertex with children)
    # are stamped, and so are the scatter's.
    expect "$rep" "gather hier, root 1" intra-node "gather part" 24
    expect "$rep" "gather hier, root 1" intra-node "arrival wait" $((4 * nn))
    expect "$rep" "gather hier, root 1" intra-node "down latency" 24
    expect "$rep" "gather hier, root 1" intra-node "edge down" $((4 * nn * (ppn - 1)))
    expect "$rep" "scatter hier, root 5" intra-node "up latency" $((4 * nn))
    expect "$rep" "scatter hier, root 5" intra-node "departure wait" $((4 * nn))
    expect "$rep" "scatter hier, root 5" intra-node "edge up" $((4 * nn * (ppn - 1)))
    expect "$rep" "gather hier, root 1" inter-node "gather part" $((4 * (nn + 1)))
    # scatter from rank 5 (not a leader): the nn leaders receive, rank 5 sends.
    expect "$rep" "scatter hier, root 5" intra-node "scatter part" 24
    expect "$rep" "scatter hier, root 5" inter-node "scatter part" $((4 * (nn + 1)))
    expect "$rep" "allgather hier:" intra-node "gather part" 24
    expect "$rep" "allgather hier:" inter-node "exchange part" $((4 * nn))
    expect "$rep" "allgather hier:" intra-node "bcast part" 24
    # allgather `hier` writes its intra-node gather (flat: the ppn - 1 members send to the
    # leader) and bcast (binomial over ppn ranks) out with point-to-point calls, stamped as
    # trees: per node and call one vertex with children in each, ppn - 1 edges each way, and a
    # gather vertex (down latency) on every rank.
    g="allgather hier:"
    flat_node_trees "$rep" "$g"
    expect "$rep" "alltoall hier," intra-node "gather part" 24
    expect "$rep" "alltoall hier," inter-node "exchange part" $((4 * nn))
    expect "$rep" "alltoall hier," intra-node "scatter part" 24
    # alltoall `hier` stamps its intra-node gather (flat: the ppn - 1 members send their rows to
    # the leader) and scatter (flat: the leader sends each member its blocks) as trees: per node
    # and call one vertex with children in each, ppn - 1 edges each way, a gather vertex on
    # every rank; nodes of 3: Table 1 at leader 0's gather tree (one way, 2 children; the
    # first of its two roots with 2 children).
    g="alltoall hier,"
    flat_node_trees "$rep" "$g"
    if [ $ppn -eq 3 ]; then
        expect_matrix "$rep" "$g" "Rank 0's intra-node gather root vertex (one way)" 2
        same_matrix "$rep" "$g" "Rank 0's intra-node gather root vertex (one way)" "$chk" \
            alltoall
    fi
}

# allreduce `hierarchical:inter=tree` (the leaders' part is allreduce `tree`): report $1, nodes
# of $2 ranks. Among the leaders every node has one rank, and the tree's cluster-root subtree
# lives on the root node, so every vertex is the root leader's: the rank-level tree the part
# records show is flat, one root with nn - 1 leaf children, stamped as a reduce tree then a
# bcast tree of the inter-node stage. Per call: one arrival wait, core, up latency and
# departure wait (the root), nn - 1 leaf down latencies and nn - 1 edges each way.
check_tree_report() {
    local rep=$1 ppn=$2 nn=$((6 / $2)) g r
    g="allreduce hierarchical:inter=tree"
    r=$(check_group "$rep" "$g") && ok "inter=tree, nodes of $ppn: $r" ||
        { bad "inter=tree, nodes of $ppn: $r"; sed -n "/^### .*$g/,/^### /p" "$rep"; }
    expect "$rep" "$g" inter-node "arrival wait" 4
    expect "$rep" "$g" inter-node "down latency" $((4 * (nn - 1)))
    expect "$rep" "$g" inter-node "core" 4
    expect "$rep" "$g" inter-node "up latency" 4
    expect "$rep" "$g" inter-node "departure wait" 4
    expect "$rep" "$g" inter-node "edge down" $((4 * (nn - 1)))
    expect "$rep" "$g" inter-node "edge up" $((4 * (nn - 1)))
    expect "$rep" "$g" inter-node "exchange part" $((4 * nn))
    expect "$rep" "$g" intra-node "reduce part" 24
    expect "$rep" "$g" intra-node "bcast part" 24
}
