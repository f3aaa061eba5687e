/*
 * Cost models: the evaluator of src/select/models.def (one C expression per registered
 * algorithm), predictions, the lower bound and default network parameters.
 *
 * Model. 1-port alpha-beta(-gamma) (spec star-stage-ethernet.md 1.1): a message of m bytes
 * costs alpha + m beta; a rank sends one message and receives one at a time (full duplex), so
 * messages a rank posts together are serialised on its port. Pairs on the same node use
 * (ai, bi), pairs on different nodes (ao, bo). Every node has one NIC shared by its ranks:
 * when c ranks of a node send off-node at once, each sees c * bo per byte (never less than bi).
 * Placement is sequential (ranks of a node are consecutive); a pattern's step at rank
 * distance d then has min(d, p - d, ppn) ranks per node talking off-node. Reductions cost
 * g (gamma) per byte combined.
 *
 * Variables of a models.def expression (all double): p, n (selection bytes, core/coll.c), L =
 * ceil(log2 p), a/b = alpha/beta of a flat algorithm (inter-node values on several nodes,
 * intra on one), ai/bi, ao/bo (intra/inter explicitly), g, nodes, ppn, pp = largest power of
 * two <= p, lpp = log2 pp, ex = p - pp, f = p / pp; derived terms:
 *   tau  issue cost of one more message to the same peer in a step = a/4 (Sparbit tau, seed 001
 *        4.3, spec sparbit.md 3.5)
 *   th   theta, phase sequentialisation = a/4 (spec star-stage-ethernet.md 1.1)
 *   dl   delta_l, one zero-byte token on the critical path = a (spec 2.0)
 *   dh   delta_h, one MPI barrier = net->sync, or a dissemination barrier of this case
 *   Gf, Glb, Gmb, Gsp, Gn   contention factors applied to the bytes: plain ring/pair/simple
 *        (gamma_n + gamma_l + gamma_s), light barrier (gamma_l + gamma_s), MPI barrier
 *        (gamma_l), spreading simple (gamma_n / 2 + ...), many-to-one (gamma_n). The sources
 *        give no values; gamma_n = 0.10, gamma_l = gamma_s = 0.05 of the bandwidth term, the
 *        link and switch terms only on several nodes.
 *   cp   local copy cost per byte = bi.
 * Parameters: K("k"), SEG("seg"), NB("n"), PI("name", default) read integer parameters of the
 * instance; PART("param", COLL, p, nodes, ppn, n) is the prediction of the alg(...) part named
 * by a parameter on the part's case (node communicator: ppn, 1, ppn; leaders: nodes, nodes, 1).
 *
 * Sources of the formulas: ring, pair, simple, mesh, rdb, bruck (alltoall, allgather(v)),
 * allreduce families, bcast and reduce trees and pipelines: seed 000 (Faraj 2006) 4.1.1.1,
 * 3.4.1 (spec star-stage-ethernet.md 2.0-2.7). Sparbit, neighbour exchange, Bruck direct
 * placement: seed 001 (Loch 2021) 2.4, 4.3 (spec sparbit.md 3). k-port Bruck, TE2/TE3, scatter
 * trees, k-nomial trees: seed 004 (Afsahi 2000) 5.3-5.7 (spec predictors-latency.md 5), here
 * under the 1-port model. Reduction trees: seed 003 (Bongo et al.) (spec allreduce-trees.md
 * 3.2, 5). Pipelines use the exact stage count (hops - 1 full segments + the whole message),
 * which is (X + hops - 1)(alpha + n/X beta) for equal segments and non-decreasing in n.
 *
 * Limits: no overlap of latencies of messages posted together (so k-port schemes gain no
 * bandwidth and pay k alphas per step); contention is a fixed fraction; cyclic or irregular
 * placement, stragglers, eager/rendezvous switching, derived-datatype packing and memory
 * bandwidth are not modelled; allgatherv/alltoallv/reduce_scatter assume equal blocks; rooted
 * collectives assume root 0; allreduce `tree` ignores links/split/spread placement.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include "model.h"
#include "../sched/rtree.h"
#include "../sched/te.h"

/* ---------------------------------------------------------------- evaluation context */

typedef struct ac_mx {
    double p, n, L, a, b, ai, bi, ao, bo, g, nodes, ppn;
    double pp, lpp, ex, f, tau, th, dl, dh, cp;
    double Gf, Glb, Gmb, Gsp, Gn;
    int multi, commutative;
    const ac_inst_t *in;
    const ac_net_t *net;
} ac_mx_t;

enum { AC_GN_PCT = 10, AC_GL_PCT = 5, AC_GS_PCT = 5 };

static double lg2c(double x) { /* ceil(log2 x), x >= 1 */
    double l = 0, v = 1;
    while (v < x) {
        v *= 2;
        l++;
    }
    return l;
}

static int is_pof2(long x) {
    return x > 0 && (x & (x - 1)) == 0;
}

static double bar_dissemination(const ac_mx_t *X);

static void mx_init(ac_mx_t *X, int p, int nodes, int ppn, double n, int commutative,
                    const ac_inst_t *in, const ac_net_t *net) {
    ac_mcase_t c; /* the same bounds as a case (on one node, ppn = p) */
    ac_mcase_set(&c, p, nodes, ppn, n, commutative);
    memset(X, 0, sizeof *X);
    X->p = c.p;
    X->nodes = c.nodes;
    X->ppn = c.ppn;
    X->n = c.n;
    X->commutative = c.commutative;
    X->multi = c.nodes > 1;
    X->ai = net->a_intra;
    X->bi = net->b_intra;
    X->ao = net->a_inter;
    X->bo = net->b_inter;
    X->g = net->gamma;
    X->a = X->multi ? X->ao : X->ai;
    X->b = X->multi ? X->bo : X->bi;
    X->L = lg2c(c.p);
    long pp = 1;
    while (pp * 2 <= c.p)
        pp *= 2;
    X->pp = (double)pp;
    X->lpp = lg2c((double)pp);
    X->ex = c.p - (double)pp;
    X->f = c.p / (double)pp;
    X->tau = X->a / 4;
    X->th = X->a / 4;
    X->dl = X->a;
    X->cp = X->bi;
    double gn = AC_GN_PCT / 100.0, gl = X->multi ? AC_GL_PCT / 100.0 : 0,
           gs = X->multi ? AC_GS_PCT / 100.0 : 0;
    X->Gf = 1 + gn + gl + gs;
    X->Glb = 1 + gl + gs;
    X->Gmb = 1 + gl;
    X->Gsp = 1 + gn / 2 + gl + gs;
    X->Gn = 1 + gn;
    X->in = in;
    X->net = net;
    X->dh = net->sync > 0 ? net->sync : bar_dissemination(X);
}

/* ---------------------------------------------------------------- message classes */

/* Ranks per node talking off-node in a step where every rank exchanges with rank +/- d. */
static double off_shift(const ac_mx_t *X, double d) {
    if (!X->multi) return 0;
    double dd = fmin(d, X->p - d);
    if (dd < 1) dd = 1;
    return fmin(dd, X->ppn);
}
/* The same for rank XOR s (aligned nodes when ppn is a power of two). */
static double off_xor(const ac_mx_t *X, double s) {
    if (!X->multi) return 0;
    if (X->ppn <= 1) return 1;
    if (is_pof2((long)X->ppn)) return s >= X->ppn ? X->ppn : 0;
    return fmin(fmax(s, 1), X->ppn);
}
static double msg_off(const ac_mx_t *X, double off, double m) {
    if (off <= 0) return X->ai + m * X->bi;
    return X->ao + m * fmax(X->bi, X->bo * off);
}
/* One message of m bytes in a step where all ranks talk at distance d / XOR s. */
static double msg_sh(const ac_mx_t *X, double d, double m) {
    return msg_off(X, off_shift(X, d), m);
}
static double msg_xr(const ac_mx_t *X, double s, double m) {
    return msg_off(X, off_xor(X, s), m);
}
/* One tree edge at rank distance d: off-node once d reaches the node size, one sender per
 * node region (no NIC sharing). */
static double msg_tr(const ac_mx_t *X, double d, double m) {
    return (X->multi && d >= X->ppn) ? X->ao + m * X->bo : X->ai + m * X->bi;
}
static double lat_sh(const ac_mx_t *X, double d) {
    return off_shift(X, d) > 0 ? X->ao : X->ai;
}

/* p-1 messages of m bytes through one rank's port (a root): ppn-1 on its node, p-ppn off. */
static double lin1(const ac_mx_t *X, double m) {
    if (!X->multi) return (X->p - 1) * (X->ai + m * X->bi);
    return (X->ppn - 1) * (X->ai + m * X->bi) + (X->p - X->ppn) * (X->ao + m * X->bo);
}
/* The same done by every rank at once: the off-node part shares the NIC. */
static double linall(const ac_mx_t *X, double m) {
    if (!X->multi) return (X->p - 1) * (X->ai + m * X->bi);
    return (X->ppn - 1) * (X->ai + m * X->bi) +
           (X->p - X->ppn) * (X->ao + m * fmax(X->bi, X->bo * X->ppn));
}

/* Sum over s = 1..p-1 of a step at distance s (rank +/- s ring) of m bytes. */
static double ring_pm(const ac_mx_t *X, double m) {
    if (!X->multi) return (X->p - 1) * (X->ai + m * X->bi);
    long P = (long)X->p, C = (long)X->ppn, counted = 0;
    double t = 0;
    for (long s = 1; s < P && s < C; s++, counted++)
        t += msg_sh(X, (double)s, m);
    for (long s = P - C + 1; s < P; s++) {
        if (s < C || s < 1) continue;
        t += msg_sh(X, (double)s, m);
        counted++;
    }
    return t + (double)(P - 1 - counted) * msg_off(X, X->ppn, m);
}
/* Sum over s = 1..p-1 of a step with partner rank XOR s. */
static double pair_sum(const ac_mx_t *X, double m) {
    if (!X->multi) return (X->p - 1) * (X->ai + m * X->bi);
    long P = (long)X->p, C = (long)X->ppn, counted = 0;
    double t = 0;
    for (long s = 1; s < P && s < C; s++, counted++)
        t += msg_xr(X, (double)s, m);
    return t + (double)(P - 1 - counted) * msg_off(X, X->ppn, m);
}
/* Neighbour ring: p-1 steps at distance 1. */
static double lring(const ac_mx_t *X, double m) {
    return (X->p - 1) * msg_sh(X, 1, m);
}
/* Steps at distances d = 1, 2, 4, ... < p carrying min(d, p - d) blocks of m bytes, each a
 * message of class msg: Bruck with direct placement (every rank sends: msg_sh) and the block
 * ranges of a binomial scatter/gather from/to the root (tree edges: msg_tr). */
static double doubling_ranges(const ac_mx_t *X, double m,
                              double (*msg)(const ac_mx_t *, double, double)) {
    double t = 0;
    for (double d = 1; d < X->p; d *= 2)
        t += msg(X, d, fmin(d, X->p - d) * m);
    return t;
}
/* Recursive doubling (XOR) over the pp participants: at distance k, k f blocks of m bytes (f
 * blocks per participant on average). */
static double rdb_steps(const ac_mx_t *X, double m) {
    double t = 0;
    for (double k = 1; k < X->pp; k *= 2)
        t += msg_xr(X, k, k * X->f * m);
    return t;
}

/* ---------------------------------------------------------------- allgather patterns (block m) */

/* Recursive doubling (XOR), fold for other p: u + pp sends its block to u first, virtual rank
 * u carries f blocks on average, u finally sends u + pp all blocks but its own. */
static double ag_rdb(const ac_mx_t *X, double m) {
    double t = rdb_steps(X, m);
    t += (X->lpp > 1 ? X->lpp - 1 : 0) * X->th;
    if (X->ex > 0) t += msg_sh(X, X->pp, m) + msg_sh(X, X->pp, (X->p - 1) * m);
    return t;
}
/* Bruck, direct placement: distance d = 2^s, min(d, p-d) blocks. */
static double ag_bruck(const ac_mx_t *X, double m) {
    return doubling_ranges(X, m, msg_sh);
}
/* k-port Bruck, ports serialised: step s, port j, offset o = j (k+1)^s, min(D, p-o) blocks. */
static double ag_kbruck(const ac_mx_t *X, double m, double k) {
    double t = 0;
    if (k < 1) k = 1;
    for (double D = 1; D < X->p; D *= (k + 1))
        for (double j = 1; j <= k; j++) {
            double o = j * D;
            if (o >= X->p) break;
            t += msg_sh(X, o, fmin(D, X->p - o) * m);
        }
    return t;
}
/* Sparbit: distances 2^(L-1) .. 1; h = ceil(p/2d) held blocks, the last withheld when
 * ((p-1) & d) == 0; one message per block (tau each after the first) unless packed. */
static double ag_sparbit(const ac_mx_t *X, double m, int packed) {
    double t = 0;
    long P = (long)X->p;
    for (long d = 1L << ((int)X->L - 1); d >= 1; d /= 2) {
        long h = (P + 2 * d - 1) / (2 * d);
        long z = ((P - 1) & d) == 0;
        double nb = (double)(h - z);
        if (nb <= 0) continue;
        t += lat_sh(X, (double)d) + (packed ? 0 : (nb - 1) * X->tau) +
             nb * m * (msg_sh(X, (double)d, 1) - lat_sh(X, (double)d));
    }
    return t;
}
/* Neighbour exchange: ceil(p/2) steps at distance 1, p-1 blocks in all. */
static double ag_nbx(const ac_mx_t *X, double m) {
    return ceil(X->p / 2) * lat_sh(X, 1) + (X->p - 1) * m * (msg_sh(X, 1, 1) - lat_sh(X, 1));
}
/* Mesh (seed 000 4.1.1.1): dims of the rule of spec 2.1; phase d exchanges everything held so
 * far (product of earlier dims blocks) with the g_d - 1 peers of that dimension. */
static long largest_div_le(long p, long lim) {
    long x = lim < 1 ? 1 : lim;
    while (x > 1 && p % x)
        x--;
    return x;
}
static long isqrt_l(long p) {
    long x = (long)sqrt((double)p);
    while (x * x > p)
        x--;
    while ((x + 1) * (x + 1) <= p)
        x++;
    return x;
}
static long icbrt_l(long p) {
    long x = (long)cbrt((double)p);
    while (x > 0 && x * x * x > p)
        x--;
    while ((x + 1) * (x + 1) * (x + 1) <= p)
        x++;
    return x;
}
static double ag_mesh(const ac_mx_t *X, double m, int nd) {
    long P = (long)X->p, dims[3] = {1, 1, 1};
    int k = 0;
    if (nd == 3) {
        dims[k] = largest_div_le(P, icbrt_l(P));
        P /= dims[k++];
    }
    dims[k] = largest_div_le(P, isqrt_l(P));
    dims[k + 1] = P / dims[k];
    k += 2;
    double t = 0, stride = 1, held = 1;
    int phases = 0;
    for (int i = 0; i < k; i++) {
        if (dims[i] > 1) {
            for (long j = 1; j < dims[i]; j++)
                t += msg_sh(X, (double)j * stride, held * m);
            phases++;
        }
        stride *= (double)dims[i];
        held *= (double)dims[i];
    }
    return t + (phases > 1 ? phases - 1 : 0) * X->th;
}
/* Binomial gather to rank 0 then binomial bcast of the blocks each child lacks (root's port). */
static double ag_gather_bcast(const ac_mx_t *X, double m) {
    double t = doubling_ranges(X, m, msg_tr);
    for (double k = 1; k < X->p; k *= 2)
        t += msg_tr(X, k, (X->p - fmin(k, X->p - k)) * m);
    return t;
}

static double part(const ac_mx_t *X, const char *pname, int coll, double p, double nodes,
                   double ppn, double n);

/* Node leader gathers, leaders allgatherv (part), node binomial bcast of everything. */
static double ag_hier(const ac_mx_t *X, double m, const char *pname) {
    double ppn = X->ppn, t = (ppn - 1) * (X->ai + m * X->bi);
    if (X->multi) {
        double in = part(X, pname, AUTOCOLL_ALLGATHERV, X->nodes, X->nodes, 1, X->p * m);
        if (in < 0 || isnan(in)) return NAN;
        t += in + 2 * (X->p - ppn) * m * X->cp;
    }
    return t + lg2c(ppn) * (X->ai + X->p * m * X->bi);
}

/* ---------------------------------------------------------------- alltoall patterns (block m) */

/* Blocks t in [0,p) whose base-(k+1) digit at D = (k+1)^s equals j. */
static double digit_count(double p, double D, double k, double j) {
    double cyc = D * (k + 1), full = floor(p / cyc) * D;
    double rem = fmod(p, cyc) - j * D;
    return full + fmin(fmax(rem, 0), D);
}
static double a2a_bruck(const ac_mx_t *X, double m, double k) {
    double t = 0;
    int steps = 0;
    if (k < 1) k = 1;
    for (double D = 1; D < X->p; D *= (k + 1), steps++)
        for (double j = 1; j <= k; j++) {
            double o = j * D;
            if (o >= X->p) break;
            t += msg_sh(X, o, digit_count(X->p, D, k, j) * m * X->Gf);
        }
    return t + (steps > 1 ? steps - 1 : 0) * X->th + 2 * X->p * m * X->cp;
}
/* TE3(i): i splitting steps (p/2 blocks to the partner in the other half), then the direct
 * exchange in groups of G = p/2^i, 2^i blocks per message; i capped at the largest e with
 * 2^e | p (src/sched/te.c). */
static double a2a_te3(const ac_mx_t *X, double m, long i) {
    long P = (long)X->p, e = 0;
    while (((P >> e) & 1) == 0 && (1L << e) < P)
        e++;
    if (i > e) i = e;
    if (i < 0) i = 0;
    double t = 0, S = X->p;
    for (long s = 1; s <= i; s++, S /= 2)
        t += is_pof2(P) ? msg_xr(X, S / 2, X->p / 2 * m) : msg_sh(X, S / 2, X->p / 2 * m);
    long G = P >> i;
    double blk = (double)(1L << i) * m;
    for (long j = 1; j < G; j++)
        t += msg_sh(X, (double)(j < G - j ? j : G - j), blk);
    return t + 2 * X->p * m * X->cp;
}
static double a2a_te3_auto(const ac_mx_t *X, double m) {
    /* alltoall_te3_auto.c chooses i with its fixed AC_TE_ALPHA = 5e-6, AC_TE_BETA = 1e-9 */
    int i = ac_te3_best_i((long)X->p, ac_te_dtilde(5e-6, 1e-9, m));
    return a2a_te3(X, m, i < 0 ? 0 : i);
}
/* All-gather of whole send buffers (p m bytes per row) by recursive doubling; the fold sends
 * the folded rank its column (p blocks) at the end. */
static double a2a_rdb(const ac_mx_t *X, double m) {
    double t = 0, row = X->p * m;
    for (double k = 1; k < X->pp; k *= 2)
        t += msg_xr(X, k, k * X->f * row * X->Gf);
    t += (X->lpp > 1 ? X->lpp - 1 : 0) * X->th;
    if (X->ex > 0) t += msg_sh(X, X->pp, row) + msg_sh(X, X->pp, row);
    return t + row * X->cp;
}
/* Leaders gather p blocks from each member, exchange c*c blocks with every other leader,
 * scatter p blocks to each member (seed 000 5.2 future work; alltoall_hier.c). */
static double a2a_hier(const ac_mx_t *X, double m) {
    double c = X->ppn, q = X->nodes;
    double t = 2 * (c - 1) * (X->ai + X->p * m * X->bi);
    if (X->multi) t += (q - 1) * (X->ao + c * c * m * X->bo);
    return t;
}

/* ---------------------------------------------------------------- trees and pipelines */

/* k-nomial tree from rank 0 (binomial: k = 2, L rounds): in the round at K = k^j the holders send
 * to distances d K, d < k; whole message of m bytes + e per byte at each hop on the root's port
 * (bcast: e = 0; reduce: e = g). */
static double knomial(const ac_mx_t *X, double m, double e, double k) {
    double t = 0;
    if (k < 2) k = 2;
    for (double K = 1; K < X->p; K *= k)
        for (double d = 1; d < k && d * K < X->p; d++)
            t += msg_tr(X, d * K, m) + m * e;
    return t;
}
static double binomial(const ac_mx_t *X, double m, double e) {
    return knomial(X, m, e, 2);
}
/* Ranges of blocks from/to the root (binomial scatter/gather): min(2^j, p - 2^j) blocks. */
static double binom_blocks(const ac_mx_t *X, double m) {
    return doubling_ranges(X, m, msg_tr);
}
/* (k+1)-nomial scatter from the root, k sends per step on one port. */
static double kport_scatter(const ac_mx_t *X, double m, double k) {
    double t = 0, R = X->p;
    if (k < 1) k = 1;
    while (R > 1) {
        double sub = ceil(R / (k + 1));
        for (double j = 1; j <= k; j++) {
            double sz = fmin(sub, R - j * sub);
            if (sz <= 0) break;
            t += msg_tr(X, j * sub, sz * m);
        }
        R = sub;
    }
    return t;
}
/* Pipeline of segments over a tree with `hops` hops on its longest path and out-degree D:
 * (hops - 1) D full-segment stages, then the whole message (X segments) through the last hop;
 * e = extra seconds per byte at each stage (reduction). */
static double pipeline(const ac_mx_t *X, double seg, double hops, double D, double e) {
    if (seg < 1) seg = 1;
    double nseg = fmax(1, ceil(X->n / seg)), s1 = fmin(seg, X->n);
    if (hops < 1) hops = 1;
    return (hops - 1) * D * (X->a + s1 * (X->b + e)) + D * (nseg * X->a + X->n * (X->b + e));
}
static double heap_depth(double p, double k) { /* depth of node p-1 in a k-ary heap */
    double d = 0;
    if (k < 1) k = 1;
    for (double v = p - 1; v > 0; v = floor((v - 1) / k))
        d++;
    return d;
}
static double heap_size(double p, double v) { /* nodes in the binary-heap subtree of v */
    double lo = v, hi = v, c = 0;
    while (lo < p) {
        c += fmin(hi, p - 1) - lo + 1;
        lo = 2 * lo + 1;
        hi = 2 * hi + 2;
    }
    return c;
}
static double bc_binary(const ac_mx_t *X, double m) {
    double H = floor(log2(X->p)), t = 0;
    for (double l = 0; l < H; l++)
        t += fmin(2, X->p - 1) * msg_tr(X, pow(2, l), m);
    return t;
}
static double bc_split_binary(const ac_mx_t *X) {
    double h = X->n / 2, t = bc_binary(X, h);
    double orphans = heap_size(X->p, 1) - heap_size(X->p, 2);
    if (X->p > 2) t += msg_sh(X, X->p / 2, h); /* left/right half exchange */
    return t + fmax(orphans, 0) * msg_tr(X, X->p / 2, h);
}
static double bc_scatter_ag(const ac_mx_t *X, int ring) {
    double m = X->n / X->p, t = binom_blocks(X, m);
    if (ring) return t + lring(X, m);
    for (double k = 1; k < X->pp; k *= 2)
        t += msg_xr(X, k, k * X->f * m);
    if (X->ex > 0) t += msg_sh(X, X->pp, m) + msg_sh(X, X->pp, X->n);
    return t;
}
static double bc_hier(const ac_mx_t *X) {
    double intra = part(X, "intra", AUTOCOLL_BCAST, X->ppn, 1, X->ppn, X->n);
    if (!X->multi) return part(X, "intra", AUTOCOLL_BCAST, X->p, 1, X->p, X->n);
    /* root's node first, then the leaders, then the other nodes */
    return 2 * intra + part(X, "inter", AUTOCOLL_BCAST, X->nodes, X->nodes, 1, X->n);
}

/* ---------------------------------------------------------------- reductions */

static double red_inorder(const ac_mx_t *X) {
    double lv = lg2c(fmax(X->p - 1, 1)) + 1, t = 0;
    for (double l = 0; l < lv; l++)
        t += (l == 0 ? 1 : 2) *
             (msg_tr(X, fmax(1, floor(X->p / pow(2, l + 1))), X->n) + X->n * X->g);
    return t;
}
/* Fold of non-power-of-two p: pairs at distance 1 combine. */
static double fold_in(const ac_mx_t *X, double N) {
    return X->ex > 0 ? msg_sh(X, 1, N) + N * X->g : 0;
}
/* Recursive halving over pp participants: halves N/2, N/4, ... at XOR distances (in real
 * ranks f times the participant distance), each combined at g seconds per byte. */
static double halving_steps(const ac_mx_t *X, double N, double g) {
    double t = 0, sz = N / 2;
    for (double k = 1; k < X->pp; k *= 2, sz /= 2)
        t += msg_xr(X, k * X->f, sz) + sz * g;
    return t;
}
static double halving(const ac_mx_t *X, double N) {
    return halving_steps(X, N, X->g);
}
/* The same blocks back by recursive doubling, nothing combined. */
static double doubling_blocks(const ac_mx_t *X, double N) {
    return halving_steps(X, N, 0);
}
static double red_rab(const ac_mx_t *X) {
    double t = fold_in(X, X->n) + halving(X, X->n), sz = X->n / X->pp;
    for (double k = 1; k < X->pp; k *= 2, sz *= 2)
        t += msg_tr(X, k * X->f, sz);
    if (X->ex > 0) t += msg_sh(X, 1, X->n); /* rank 0 idles in the fold: result handed back */
    return t;
}
static double ar_rdb(const ac_mx_t *X) {
    double t = fold_in(X, X->n);
    for (double k = 1; k < X->pp; k *= 2)
        t += msg_xr(X, k * X->f, X->n) + X->n * X->g;
    if (X->ex > 0) t += msg_sh(X, 1, X->n);
    return t;
}
static double ar_knomial(const ac_mx_t *X, double k) {
    if (k < 2) k = 2;
    double P = 1;
    while (P * k <= X->p)
        P *= k;
    double gs = ceil(X->p / P), t = 0, n = X->n;
    t += (gs - 1) * (msg_sh(X, 1, n) + n * X->g) + (gs - 1) * msg_sh(X, 1, n);
    for (double K = 1; K < P; K *= k)
        for (double d = 1; d < k; d++)
            t += msg_sh(X, d * K * (X->p / P), n) + n * X->g;
    return t;
}
static double ar_ring(const ac_mx_t *X, double seg) {
    double m = X->n / X->p, a1 = lat_sh(X, 1), b1 = msg_sh(X, 1, 1) - a1;
    if (seg <= 0) return 2 * (X->p - 1) * (a1 + m * b1) + (X->p - 1) * m * X->g;
    double S = fmax(1, ceil(m / seg)), sfirst = fmin(seg, m);
    double rs = S * a1 + m * fmax(b1, X->g) + sfirst * fmin(b1, X->g);
    return (X->p - 1) * (rs + S * a1 + m * b1);
}
/* Levels of a fan-in list over `items` inputs (rtree.c grouping): cost (F-1) messages in and
 * out at each level's owner plus (F-1) combinations. */
static double tree_levels(const ac_rt_fan_t *fan, double items, double a, double b, double n,
                          double g) {
    double t = 0;
    int lv = 0;
    while (items > 1) {
        double F;
        if (fan->nlv == 0)
            F = items;
        else if (lv < fan->nlv)
            F = fan->f[lv];
        else if (fan->rep)
            F = fan->f[fan->nlv - 1];
        else
            F = items; /* one final flat level */
        if (F < 2) F = 2;
        double Fe = fmin(F, items);
        t += 2 * (Fe - 1) * (a + n * b) + (Fe - 1) * n * g;
        items = ceil(items / F);
        lv++;
    }
    return t;
}
static double ar_tree(const ac_mx_t *X) {
    const char *s = ac_param_str(X->in, "spec");
    if (!s) s = "flat";
    for (int i = 0; i < ac_rt_npresets(); i++)
        if (strcmp(s, ac_rt_preset_name(i)) == 0) {
            s = ac_rt_preset_spec(i);
            break;
        }
    ac_rt_spec_t sp;
    char err[160];
    if (ac_rt_parse(s, &sp, err, sizeof err) != 0) return NAN;
    double t = tree_levels(&sp.host, X->ppn, X->ai, X->bi, X->n, X->g);
    if (X->multi) t += tree_levels(&sp.cluster, X->nodes, X->ao, X->bo, X->n, X->g);
    return t;
}
static double ar_hier(const ac_mx_t *X) {
    double t = part(X, "reduce", AUTOCOLL_REDUCE, X->ppn, 1, X->ppn, X->n) +
               part(X, "bcast", AUTOCOLL_BCAST, X->ppn, 1, X->ppn, X->n);
    if (X->multi) t += part(X, "inter", AUTOCOLL_ALLREDUCE, X->nodes, X->nodes, 1, X->n);
    return t;
}
static double red_hier(const ac_mx_t *X) {
    if (!X->multi) return part(X, "intra", AUTOCOLL_REDUCE, X->p, 1, X->p, X->n);
    return part(X, "intra", AUTOCOLL_REDUCE, X->ppn, 1, X->ppn, X->n) +
           part(X, "inter", AUTOCOLL_REDUCE, X->nodes, X->nodes, 1, X->n);
}
/* Reduce-scatter of N bytes by recursive halving with fold; out = blocks handed to the folded
 * ranks (recursive_halving) or one block to its owner (butterfly). */
static double rs_halving(const ac_mx_t *X, double N, int butterfly) {
    double t = fold_in(X, N) + halving(X, N);
    if (butterfly)
        t += msg_sh(X, X->p / 2, N / X->p);
    else if (X->ex > 0)
        t += msg_sh(X, 1, N / X->p);
    return t;
}

/* ---------------------------------------------------------------- rooted and barrier */

static double gat_hier(const ac_mx_t *X) {
    ac_mx_t in;
    mx_init(&in, (int)X->ppn, 1, (int)X->ppn, X->n, X->commutative, X->in, X->net);
    double t = binom_blocks(&in, X->n);
    if (X->multi) t += (X->nodes - 1) * (X->ao + X->ppn * X->n * X->bo);
    return t + X->p * X->n * X->cp;
}
static double bar_dissemination(const ac_mx_t *X) {
    double t = 0;
    for (double k = 1; k < X->p; k *= 2)
        t += lat_sh(X, k);
    return t;
}
static double bar_rdb(const ac_mx_t *X) {
    double t = rdb_steps(X, 0);
    return t + (X->ex > 0 ? 2 * lat_sh(X, X->pp) : 0);
}
static double bar_tree(const ac_mx_t *X) {
    return 2 * binomial(X, 0, 0);
}
static double bar_hier(const ac_mx_t *X) {
    return 2 * (X->ppn - 1) * X->ai + (X->multi ? lg2c(X->nodes) * X->ao : 0);
}

/* ---------------------------------------------------------------- parameters and parts */

static double pint(const ac_mx_t *X, const char *name, double def) {
    long v = ac_param_int(X->in, name);
    return v < 0 ? def : (double)v;
}

static double part(const ac_mx_t *X, const char *pname, int coll, double p, double nodes,
                   double ppn, double n) {
    if (p <= 1) return 0;
    const ac_alg_t *alg = ac_param_alg(X->in, pname);
    if (!alg || alg->coll != coll) return NAN;
    ac_inst_t inst;
    ac_inst_default(alg, &inst);
    ac_mcase_t c;
    ac_mcase_set(&c, (int)p, (int)nodes, (int)ppn, n, X->commutative);
    double t = ac_model_predict(&inst, &c, X->net);
    return t < 0 ? NAN : t;
}

/* ---------------------------------------------------------------- generated table */

#define PI(name, def) pint(X, name, def)
#define K(name) PI(name, 2)
#define SEG(name) PI(name, 1024)
#define NB(name) PI(name, 1)
#define PART(pname, COLL, pp_, nodes_, ppn_, n_)                                                   \
    part(X, pname, AUTOCOLL_##COLL, pp_, nodes_, ppn_, n_)

/* Every model sees the same named values; the (void) casts keep unused ones quiet. */
#define AC_MX_VARS                                                                                 \
    const double p = X->p, n = X->n, L = X->L, a = X->a, b = X->b, ai = X->ai, bi = X->bi,         \
                 ao = X->ao, bo = X->bo, g = X->g, nodes = X->nodes, ppn = X->ppn, pp = X->pp,     \
                 lpp = X->lpp, ex = X->ex, f = X->f, tau = X->tau, th = X->th, dl = X->dl,         \
                 dh = X->dh, cp = X->cp, Gf = X->Gf, Glb = X->Glb, Gmb = X->Gmb, Gsp = X->Gsp,     \
                 Gn = X->Gn;                                                                       \
    (void)p, (void)n, (void)L, (void)a, (void)b, (void)ai, (void)bi, (void)ao, (void)bo, (void)g,  \
        (void)nodes, (void)ppn, (void)pp, (void)lpp, (void)ex, (void)f, (void)tau, (void)th,       \
        (void)dl, (void)dh, (void)cp, (void)Gf, (void)Glb, (void)Gmb, (void)Gsp, (void)Gn

typedef double (*ac_model_fn)(const ac_mx_t *X);

#define AC_MODEL(C, NAME, EXPR)                                                                    \
    static double model_##C##_##NAME(const ac_mx_t *X) {                                           \
        AC_MX_VARS;                                                                                \
        return (EXPR);                                                                             \
    }
#include "models.def"
#undef AC_MODEL

static const struct {
    int coll;
    const char *name;
    ac_model_fn fn;
} entries[] = {
#define AC_MODEL(C, NAME, EXPR) {AUTOCOLL_##C, #NAME, model_##C##_##NAME},
#include "models.def"
#undef AC_MODEL
};

#define AC_NENTRIES ((int)(sizeof entries / sizeof entries[0]))

static ac_model_fn table[AUTOCOLL_NCOLL][AC_MAX_ALGS];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_build(void) {
    ac_registry_init();
    for (int i = 0; i < AC_NENTRIES; i++) {
        const ac_alg_t *alg = ac_alg_find(entries[i].coll, entries[i].name);
        if (alg && alg->index >= 0 && alg->index < AC_MAX_ALGS)
            table[entries[i].coll][alg->index] = entries[i].fn;
    }
}

static ac_model_fn lookup(int coll, int alg) {
    pthread_once(&table_once, table_build);
    if (coll < 0 || coll >= AUTOCOLL_NCOLL || alg < 0 || alg >= AC_MAX_ALGS) return NULL;
    return table[coll][alg];
}

int ac_model_exists(int coll, int alg) {
    return lookup(coll, alg) != NULL;
}

int ac_model_count(void) {
    return AC_NENTRIES;
}

int ac_model_entry(int i, int *coll, const char **name) {
    if (i < 0 || i >= AC_NENTRIES) return -1;
    if (coll) *coll = entries[i].coll;
    if (name) *name = entries[i].name;
    return 0;
}

/* ---------------------------------------------------------------- public entry points */

void ac_mcase_set(ac_mcase_t *c, int p, int nodes, int ppn, double n, int commutative) {
    if (p < 1) p = 1;
    if (nodes < 1) nodes = 1;
    if (nodes > p) nodes = p;
    int avg = (p + nodes - 1) / nodes;
    if (ppn < avg) ppn = avg;
    if (ppn > p) ppn = p;
    c->p = p;
    c->nodes = nodes;
    c->ppn = ppn;
    c->n = n > 0 ? n : 0;
    c->commutative = commutative;
}

double ac_model_predict(const ac_inst_t *in, const ac_mcase_t *c, const ac_net_t *net) {
    if (!in || !in->alg || !c || !net) return -1;
    ac_model_fn fn = lookup(in->alg->coll, in->alg->index);
    if (!fn) return -1;
    if (c->p <= 1) return 0;
    ac_mx_t X;
    mx_init(&X, c->p, c->nodes, c->ppn, c->n, c->commutative, in, net);
    double t = fn(&X);
    if (isnan(t) || t < 0) return -1;
    return t;
}

double ac_model_bound(int coll, const ac_mcase_t *c, const ac_net_t *net) {
    if (!c || !net || c->p <= 1) return 0;
    ac_mx_t X;
    mx_init(&X, c->p, c->nodes, c->ppn, c->n, c->commutative, NULL, net);
    double p = X.p, n = X.n, ppn = X.ppn, nodes = X.nodes;
    double amin = fmin(X.ai, X.ao), bmin = fmin(X.bi, X.bo);
    double lat = X.multi ? X.ao + (X.L - 1) * amin : X.L * X.ai;
    double bw = 0, comp = 0, m;
    switch (coll) {
    case AUTOCOLL_ALLGATHER:
    case AUTOCOLL_ALLGATHERV:
        m = coll == AUTOCOLL_ALLGATHER ? n : n / p;
        bw = fmax((p - 1) * m * bmin, X.multi ? (p - ppn) * m * X.bo : 0);
        break;
    case AUTOCOLL_ALLTOALL:
    case AUTOCOLL_ALLTOALLV:
        m = coll == AUTOCOLL_ALLTOALL ? n : n / p;
        bw = fmax((p - 1) * m * bmin, X.multi ? ppn * (p - ppn) * m * X.bo : 0);
        break;
    case AUTOCOLL_BCAST:
        bw = fmax(n * bmin, X.multi ? n * X.bo : 0);
        break;
    case AUTOCOLL_REDUCE:
        bw = fmax(n * bmin, X.multi ? n * X.bo : 0);
        comp = (p - 1) / p * n * X.g;
        break;
    case AUTOCOLL_ALLREDUCE:
        bw = fmax(2 * (p - 1) / p * n * bmin, X.multi ? 2 * (nodes - 1) / nodes * n * X.bo : 0);
        comp = (p - 1) / p * n * X.g;
        break;
    case AUTOCOLL_REDUCE_SCATTER:
    case AUTOCOLL_REDUCE_SCATTER_BLOCK: {
        double N = coll == AUTOCOLL_REDUCE_SCATTER ? n : n * p;
        bw = fmax((p - 1) / p * N * bmin, X.multi ? (nodes - 1) / nodes * N * X.bo : 0);
        comp = (p - 1) / p * N * X.g;
        break;
    }
    case AUTOCOLL_GATHER:
    case AUTOCOLL_SCATTER:
        bw = fmax((p - 1) * n * bmin, X.multi ? (p - ppn) * n * X.bo : 0);
        break;
    default:
        break;
    }
    return lat + fmax(bw, comp);
}

void ac_net_default(ac_net_t *net) {
    net->a_intra = 0.5e-6;
    net->b_intra = 1.0 / 10e9;
    net->a_inter = 5e-6;
    net->b_inter = 1.0 / 5e9;
    net->gamma = 1.0 / 5e9;
    net->sync = 0;
}
