/*
 * Algorithm: autocoll-netprobe's measurement, not a registry instance: the sweep of the grid
 *   broadcasts (ac_grid_probe: cluster pairs one at a time, the first sweep full, the later
 *   ones incremental) run on a period by processes of their own, one or two on each cluster,
 *   as seed 002's communication benchmark runs; rank 0 replaces the network file (spec 4.4,
 *   docs/grid-bcast.md "Network file") atomically whenever a sweep brought a new matrix
 *   version, and the root of a grid broadcast whose AUTOCOLL_GRID_NET names that file takes it
 *   at its next call (ac_grid_net_load). Why: measured in the call, a sweep takes 3.7 s on
 *   grid64 when nothing changed and up to 17 s when the pairs of a loaded cluster are
 *   re-measured, against broadcasts of 0.06-1 s (docs/reports/grid.md); here no broadcast pays
 *   for it.
 * Cost: per sweep that of ac_grid_probe, (N(N+1)/2) x C x (2 RTT(1) + RTT(M)) plus R x (...) for
 *   each changed pair, on the probes' processes and the network only; one file write per new
 *   version.
 * Restrictions: two or more clusters in the probes' map (ac_grid_netprobe_new refuses fewer).
 * Reference: seed 002 (Gupta & Vadhiyar) §2.5, Fig. 5; spec adaptive-bcast-grid.md sections 3,
 *   4.2-4.4, 16.3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "grid_bcast.h"

struct ac_grid_netprobe {
    MPI_Comm comm; /* private duplicate */
    int rank, size;
    ac_grid_comm_t *g;
    long written; /* matrix version last written (0: none) */
    char path[512];
};

int ac_grid_netprobe_new(MPI_Comm comm, const char *map, const char *path, ac_grid_netprobe_t **out,
                         char *why, size_t len) {
    *out = NULL;
    int p, me;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &me);
    if (strlen(path) >= sizeof((ac_grid_netprobe_t *)0)->path) {
        snprintf(why, len, "output path too long");
        return -1;
    }
    int *site = malloc((size_t)p * sizeof *site), *cl = malloc((size_t)p * sizeof *cl);
    int nc = site && cl ? ac_grid_map_layout(map, p, site, cl, why, len) : -1;
    if (nc == 0 || nc == 1) snprintf(why, len, "%d cluster: nothing to measure", nc);
    ac_grid_netprobe_t *np = nc >= 2 ? calloc(1, sizeof *np) : NULL;
    if (np && !(np->g = ac_grid_comm_new(p, 0, site, cl, nc))) {
        free(np);
        np = NULL;
        snprintf(why, len, "out of memory");
    }
    free(site);
    free(cl);
    if (!np) return -1;
    if (PMPI_Comm_dup(comm, &np->comm) != MPI_SUCCESS) {
        ac_grid_comm_free(np->g);
        free(np);
        snprintf(why, len, "MPI_Comm_dup failed");
        return -1;
    }
    np->g->netprobe = 1;
    np->rank = me;
    np->size = p;
    strcpy(np->path, path);
    *out = np;
    return 0;
}

int ac_grid_netprobe_sweep(ac_grid_netprobe_t *np) {
    ac_args_t a;
    memset(&a, 0, sizeof a);
    a.coll = AUTOCOLL_BCAST;
    a.comm = np->comm;
    a.rank = np->rank;
    a.size = np->size;
    a.root = 0;
    int err = ac_grid_probe(np->g, &a);
    char why[600];
    if (err == MPI_SUCCESS && np->rank == 0 && np->g->version != np->written) {
        if (ac_grid_net_save(np->g, np->path, why, sizeof why) == 0)
            np->written = np->g->version;
        else
            ac_log("autocoll-netprobe: %s\n", why);
    }
    return err;
}

void ac_grid_netprobe_free(ac_grid_netprobe_t *np) {
    if (!np) return;
    PMPI_Comm_free(&np->comm);
    ac_grid_comm_free(np->g);
    free(np);
}
