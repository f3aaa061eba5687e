/*
 * Algorithm: combined total exchange TE3(i): first i steps of the standard exchange, then the
 *   direct exchange inside every group. Splitting step s = 1..i halves the current contiguous
 *   group of S = p/2^(s-1) ranks; r exchanges with r +/- S/2 (same offset in the other half) the
 *   p/2 blocks it holds whose destination lies in the other half. After i steps r holds, for each
 *   member of its group of G = p/2^i ranks, the 2^i blocks from sources (r mod G) + k G; direct
 *   step j = 1..G-1 sends those 2^i blocks to base + (o+j) mod G and receives from
 *   base + (o-j) mod G (o = r mod G). Slot arithmetic and worked examples (p = 8, i = 2;
 *   p = 6, i = 1): src/sched/te.c.
 *   i is the number of splitting steps, capped at the largest e with 2^e dividing p (the
 *   mixed-radix form p = 2^i G of spec 5.7); i = 0 is the direct exchange TE1.
 * Cost: i(alpha + (p/2) n beta) + (G-1)(alpha + 2^i n beta), G = p/2^i; in seed 004's units
 *   TE3_F1(i) = i(d + N/2) + (N/2^i - 1)(d + 2^i); n = bytes of one block.
 * Restrictions: none (i is capped as above). In place: works on copies (send data in rbuf).
 * Memory: 3p blocks (two work buffers, two pack buffers of max(p/2, 2^i) blocks).
 * Reference: seed 004 (Afsahi 2000), section 5.7, Lemma 2, eq. 5.42; spec predictors-latency.md
 *   5.2 and 5.7 (mixed-radix extension).
 */
#include "a2a_util.h"
#include "../../sched/te.h"

int ac_alltoall_te3(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)ctx;
    int i = (int)ac_param_int(in, "i"), imax = ac_te_max_i(a->size);
    return ac_a2a_te(a, i < 0 ? 0 : i > imax ? imax : i);
}
