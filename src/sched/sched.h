/*
 * Shared communication schedules: pure functions (no MPI, no allocation) that say who talks to
 * whom at which step and which blocks move. Every collective that needs one of these patterns
 * uses these functions, and the unit tests (tests/unit/test_sched_allgather.c) check the same
 * functions, so a schedule is written once and tested once.
 *
 * Conventions: p = communicator size (p >= 1), r = rank (0 <= r < p), "block b" = the block
 * contributed by rank b. All results are ranks or block indices in [0, p) unless stated.
 * The API below is stable: other collectives depend on it.
 *
 *   arithmetic   ac_mod, ac_ceil_log2, ac_floor_pof2, ac_is_pof2
 *   ring         rank +/- s exchange (STAR "ring"): steps s = 1..p-1
 *   lring        logical neighbour ring: send to r+1, receive from r-1, steps s = 0..p-2
 *   pair         XOR exchange: steps s = 1..p-1, p a power of two
 *   nbar         placement of N barriers over the steps of a ring/pair algorithm
 *   mesh         2D/3D grid shapes, coordinates, peers in one dimension
 *   bruck        Bruck / k-port Bruck dissemination: offsets and block counts per step
 *   sparbit      Sparbit (Loch 2021) per-step distance, blocks and ignore rule
 *   nbx          neighbour exchange (Chen et al. 2005), even p
 *   rdb          recursive doubling, power of two, and the fold for other p
 *   nodes        node-ordered layout of per-rank blocks (hierarchical gather and scatter)
 */
#ifndef AC_SCHED_H
#define AC_SCHED_H

/* ------------------------------------------------------------------ arithmetic (sched/ring.c) */
int ac_mod(long long x, int p); /* mathematical modulo, result in [0, p) */
int ac_ceil_log2(int p);        /* ceil(log2 p); 0 for p <= 1; integer only */
int ac_floor_pof2(int p);       /* largest power of two <= p (p >= 1) */
int ac_is_pof2(int p);          /* 1 when p is a power of two (p >= 1) */

/* ------------------------------------------------------------------ ring (sched/ring.c)
 * rank +/- s exchange: at step s = 1..p-1, rank r sends to ac_ring_to and receives from
 * ac_ring_from (allgather: own block out, block ac_ring_from in; alltoall: block addressed to
 * ac_ring_to out, block from ac_ring_from in). */
int ac_ring_to(int r, int p, int s);   /* (r + s) mod p */
int ac_ring_from(int r, int p, int s); /* (r - s) mod p */
/* Logical neighbour ring (LR): at step s = 0..p-2 rank r sends block ac_lring_send_block to
 * r+1 and receives block ac_lring_recv_block from r-1. */
int ac_lring_send_block(int r, int p, int s); /* (r - s) mod p */
int ac_lring_recv_block(int r, int p, int s); /* (r - s - 1) mod p */

/* ------------------------------------------------------------------ pair (sched/pair.c)
 * XOR exchange, p a power of two: at step s = 1..p-1 the partner is r ^ s (mutual). */
int ac_pair_peer(int r, int s);

/* ------------------------------------------------------------------ nbar (sched/pair.c)
 * N barriers spread over nsteps steps (STAR "N MPI barriers"): the steps 1..nsteps are cut into
 * N+1 consecutive blocks as evenly as possible, block b = steps floor(b*nsteps/(N+1))+1 ..
 * floor((b+1)*nsteps/(N+1)), and a barrier follows the last step of blocks 0..N-1.
 * Returns how many barriers to run right after step s (s = 0 means before step 1); the sum over
 * s = 0..nsteps is exactly N (N >= 0). */
int ac_nbar_count(int s, int nsteps, int N);

/* ------------------------------------------------------------------ mesh (sched/mesh.c)
 * Grid shapes (STAR resolution, star-stage-ethernet.md section 2.1):
 *   nd = 2: dims[0] = largest divisor x of p with x <= floor(sqrt p), dims[1] = p / x
 *   nd = 3: dims[0] = largest divisor x of p with x <= floor(cbrt p), (dims[1], dims[2]) =
 *           the 2D shape of p / x
 *   nd = 1: dims[0] = p
 * Prime p gives 1 x p (2D) and 1 x 1 x p (3D): one real phase with p-1 peers. Dimensions of size 1
 * are phases without peers. Coordinates: c0 = r mod dims[0], c1 = (r / dims[0]) mod dims[1],
 * c2 = r / (dims[0] dims[1]) (dimension 0 varies fastest). */
void ac_mesh_dims(int p, int nd, int *dims);
void ac_mesh_coords(int r, int nd, const int *dims, int *c);
int ac_mesh_rank(int nd, const int *dims, const int *c);
/* The rank equal to r in every coordinate but d, where it is (c_d + j) mod dims[d]
 * (j = 1..dims[d]-1 is the spreading order; j = -1.. gives the mirror). */
int ac_mesh_peer(int r, int nd, const int *dims, int d, int j);
/* Blocks held by r after phases 0..d-1 of the mesh allgather: ranks equal to r in coordinates
 * d..nd-1. Writes them in increasing order into out (room for p) and returns their number. */
int ac_mesh_held(int r, int nd, const int *dims, int d, int *out);

/* ------------------------------------------------------------------ bruck (sched/bruck.c)
 * k-port Bruck dissemination (Bruck et al. 1997; k = 1 is plain Bruck). Blocks are relative:
 * "relative block t" of rank r is block (r + t) mod p. Before step s, rank r holds relative
 * blocks [0, D) with D = (k+1)^s (clipped to p). At step s, for every port j = 1..k with
 * o = j*D < p: r sends its relative blocks [0, cnt) to (r - o) mod p and receives relative
 * blocks [o, o + cnt) (block (r + o + t) mod p, t < cnt) from (r + o) mod p, cnt = min(D, p - o).
 * After the last step r holds all p blocks. */
int ac_bruck_nsteps(int p);         /* ceil(log2 p) */
int ac_kbruck_nsteps(int p, int k); /* ceil(log_{k+1} p) */
/* Port j (1..k) of step s: 1 and *offset, *count when it exists, else 0. */
int ac_kbruck_part(int p, int k, int s, int j, int *offset, int *count);

/* ------------------------------------------------------------------ sparbit (sched/sparbit.c)
 * Sparbit (seed 001, Loch 2021, section 4.2; spec/sparbit.md 1.2): L = ceil(log2 p) steps,
 * distance d_i = 2^(L-1-i), ignore flag z = ((p-1) & d) == 0, n_i = ceil(p/d) - ceil(p/2d).
 * At step i rank r sends blocks (r - 2jd) mod p, j = 0..n-1, to (r + d) mod p and receives
 * blocks (r - (2j+1)d) mod p, same order, from (r - d) mod p. */
int ac_sparbit_nsteps(int p);
void ac_sparbit_step(int p, int i, int *d, int *n); /* distance and block count of step i */
int ac_sparbit_send_block(int r, int p, int d, int j);
int ac_sparbit_recv_block(int r, int p, int d, int j);

/* ------------------------------------------------------------------ nbx (sched/nbx.c)
 * Neighbour exchange, p even (spec/sparbit.md 3.2): p/2 steps. At step s the partner is
 * (r + sigma (-1)^s) mod p, sigma = +1 for even r, -1 for odd r. Step 0 exchanges the own block
 * (1 block); step s >= 1 sends the aligned pair (2 consecutive blocks) starting at
 * ac_nbx_send_start and receives the pair starting at ac_nbx_recv_start. */
int ac_nbx_nsteps(int p);
int ac_nbx_peer(int r, int p, int s);
int ac_nbx_nblocks(int s);                  /* 1 at s = 0, else 2 */
int ac_nbx_send_start(int r, int p, int s); /* s = 0: r */
int ac_nbx_recv_start(int r, int p, int s); /* s = 0: the partner */

/* ------------------------------------------------------------------ rdb (sched/pair.c)
 * Recursive doubling, p a power of two: at step k = 0..log2(p)-1 the partner is r ^ 2^k; r
 * holds the 2^k blocks starting at ac_rdb_start(r, k) and receives those starting at
 * ac_rdb_start(r ^ 2^k, k).
 * Other p (fold): with p' = ac_floor_pof2(p) and e = p - p', rank u + p' (u < e) hands its block
 * to u before the doubling and receives the whole result from u after it; in the doubling,
 * virtual rank u < p' carries blocks u and (when u < e) u + p'. */
int ac_rdb_start(int r, int k); /* (r >> k) << k */
/* Blocks carried by the virtual ranks [v0, v0 + nv) in the fold: writes them (virtual ranks in
 * increasing order, each followed by its partner block) into out and returns their number. */
int ac_rdb_fold_blocks(int p, int v0, int nv, int *out);

/* ------------------------------------------------------------------ nodes (sched/nodes.c)
 * Node-ordered layout of p per-rank blocks, node_of[r] = node of rank r (nodes 0 .. nn-1): the
 * region of node n holds the blocks of its ranks in rank order, size[n] blocks from block
 * start[n]; regions follow one another in node order. pos[r] = start[node_of[r]] + the index of
 * r among the ranks of its node (the slot of rank r's block). */
void ac_node_regions(const int *node_of, int p, int nn, int *size, int *start, int *pos);

#endif
