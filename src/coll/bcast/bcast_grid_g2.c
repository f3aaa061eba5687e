/*
 * Algorithm: MPICH-G2-style static topology-aware broadcast from the declared site/cluster map
 *   (AUTOCOLL_GRID_CLUSTERS). The root sends to the lowest rank of every other site, flat, in
 *   order of the sites' lowest ranks; every site's entry node (the root in its own site) sends
 *   to the lowest rank of every other cluster of its site; every cluster's entry runs a
 *   binomial tree over the cluster's ranks (rank order rotated to the entry, largest subtree
 *   first). One message crosses between any two sites. Every rank builds the same tree from
 *   the map (src/sched/grid_plan.c), so no header travels and the tree never changes.
 * Cost: with S sites, C_s clusters in site s and k_c ranks in cluster c, sequential sends:
 *   (S-1)(alpha_wan + n beta_wan) + (C_s-1)(alpha_site + n beta_site)
 *   + ceil(lg k_c)(alpha_lan + n beta_lan) along the slowest path.
 * Restrictions: AUTOCOLL_R_GRID (two or more clusters declared). Memory: the tree (3p ints).
 * Reference: seed 002 (Gupta & Vadhiyar), §2.1 and §3 (MPICH-G2 baseline); spec
 *   adaptive-bcast-grid.md section 12.
 */
#include <stdlib.h>
#include "grid_bcast.h"

int ac_bcast_grid_g2(const ac_args_t *a, const ac_inst_t *in, ac_ctx_t *ctx) {
    (void)in;
    int err = MPI_SUCCESS, p = a->size, me = a->rank, tag = AC_TAG(a);
    int *site = malloc((size_t)p * sizeof *site), *cl = malloc((size_t)p * sizeof *cl);
    ac_grid_tree_t t;
    int have = 0;
    if (!site || !cl || ac_grid_layout(ctx, site, cl) < 1 || ac_grid_tree_alloc(&t, p) != 0) {
        err = MPI_ERR_NO_MEM;
        goto fn_exit;
    }
    have = 1;
    ac_grid_g2_tree(p, a->root, site, cl, &t);
    if (t.parent[me] >= 0)
        AC_CHECK(
            PMPI_Recv(a->rbuf, a->rcount, a->rtype, t.parent[me], tag, a->comm, MPI_STATUS_IGNORE));
    for (int j = t.first[me]; j < t.first[me + 1]; j++)
        AC_CHECK(PMPI_Send(a->rbuf, a->rcount, a->rtype, t.child[j], tag, a->comm));
fn_exit:
    if (have) ac_grid_tree_free(&t);
    free(site);
    free(cl);
    return err;
}
