/*
 * autocoll-topo: switch-tree topology files (docs/topology.md) without MPI.
 *
 *   autocoll-topo check FILE                  validate; errors as FILE:LINE: reason
 *   autocoll-topo show [-r ROOT] FILE         the derived tree, the AAPC phases (spec 3.2), the
 *                                             logical rings LR1/LR2/LR3 (spec 3.4) and the
 *                                             Algorithm 4/5 broadcast chain and tree (spec 3.5)
 *   autocoll-topo simgrid FILE XML HOSTS      the matching SimGrid platform and host file
 *   autocoll-topo generate -n N [-m MEAN] [-s SEED] [-p PPN]
 *                                             a random switch tree of N machines (MEAN machines
 *                                             per switch on average, PPN ranks per machine)
 *   autocoll-topo --help | --version
 *
 * Exit status: 0 success; 1 the file is not a valid topology (every error listed) or a file
 * cannot be written; 2 bad usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "autocoll.h"
#include "../src/topo/aapc.h"
#include "../src/topo/rings.h"
#include "../src/topo/topo.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: autocoll-topo check FILE\n"
            "       autocoll-topo show [-r ROOT] FILE\n"
            "       autocoll-topo simgrid FILE PLATFORM.xml HOSTFILE\n"
            "       autocoll-topo generate -n MACHINES [-m MEAN] [-s SEED] [-p PPN]\n"
            "       autocoll-topo --help | --version\n"
            "Switch-tree topology files (AUTOCOLL_TOPOLOGY, docs/topology.md):\n"
            "  check     validate FILE; every error is printed as FILE:LINE: reason\n"
            "  show      the tree, the contention-free all-to-all phases, the logical rings\n"
            "            (LR1, LR2, LR3) and the broadcast chain and binary tree from ROOT (0)\n"
            "  simgrid   write the matching SimGrid platform and host file (one line per rank)\n"
            "  generate  print a random switch tree: MACHINES machines, MEAN machines per switch\n"
            "            on average (8), SEED (1), PPN ranks per machine (1)\n"
            "Exit status: 0 success, 1 invalid topology or write error, 2 bad usage.\n");
}

static ac_topo_t *load(const char *path) {
    ac_topo_t *t = NULL;
    char *errs = NULL;
    int n = ac_topo_load(path, &t, &errs);
    if (n) {
        fputs(errs ? errs : "", stderr);
        fprintf(stderr, "autocoll-topo: %s: %d error%s\n", path, n, n == 1 ? "" : "s");
    }
    free(errs);
    return t;
}

static const char *vname(const ac_topo_t *t, int v, char *buf, size_t n) {
    if (t->kind[v] == AC_TV_RANK)
        snprintf(buf, n, "%d", v);
    else if (t->kind[v] == AC_TV_SWITCH)
        snprintf(buf, n, "%s", t->sw_name[t->orig[v]]);
    else
        snprintf(buf, n, "nic(%s)", t->mach_name[t->orig[v]]);
    return buf;
}

static void print_ring(const ac_topo_t *t, const char *name, const int *ring, int rc) {
    int P = t->nranks;
    if (rc < 0) {
        printf("%s: not available%s\n", name,
               rc == -2 ? " (a switch has too many sub-switches)" : " (condition fails)");
        return;
    }
    printf("%s (longest path %d switches, %s):", name, ac_ring_maxpath(t, ring, P),
           ac_ring_contention_free(t, ring, P) ? "contention free" : "CONTENTION");
    for (int i = 0; i < P; i++)
        printf(" %d", ring[i]);
    printf("\n");
}

static int show(const char *path, int root) {
    ac_topo_t *t = load(path);
    if (!t) return 1;
    int P = t->nranks, rc = 0;
    char a[300], b[300];
    if (root < 0 || root >= P) {
        fprintf(stderr, "autocoll-topo: root %d is not a rank of %s (0..%d)\n", root, path, P - 1);
        ac_topo_free(t);
        return 2;
    }
    printf("%s: %d switches, %d machines, %d links, %d ranks; derived tree: %d vertices, height "
           "%d\n",
           path, t->nsw, t->nmach, t->nlink, P, t->nv, ac_topo_height(t));
    for (int v = 0; v < t->nv; v++)
        if (t->kind[v] != AC_TV_RANK) {
            printf("  %s:", vname(t, v, a, sizeof a));
            for (int c = t->cstart[v]; c < t->cstart[v + 1]; c++)
                printf(" %s", vname(t, t->child[c], b, sizeof b));
            printf("\n");
        }
    for (int r = 0; r < P; r++)
        printf("  rank %d on %s\n", r, ac_topo_rank_host(t, r));
    ac_aapc_t s;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (ac_aapc_build(t, &s) == 0) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
        printf("AAPC: %d phases (load %lld), root %s, %d subtrees, built in %.3f ms\n", s.nphases,
               (long long)ac_aapc_load(t), s.root >= 0 ? vname(t, s.root, a, sizeof a) : "-", s.k,
               ms);
        for (int i = 0; i < s.k; i++) {
            printf("  t%d:", i);
            for (int j = s.sub_start[i]; j < s.sub_start[i + 1]; j++)
                printf(" %d", s.sub_rank[j]);
            printf("\n");
        }
        for (int p = 0; p < s.nphases; p++) {
            printf("  phase %d:", p);
            for (int x = s.pstart[p]; x < s.pstart[p + 1]; x++)
                printf(" %d->%d", s.msg[x].src, s.msg[x].dst);
            printf("\n");
        }
        ac_aapc_free(&s);
    } else {
        printf("AAPC: cannot build the schedule (out of memory or more than 32768 ranks)\n");
        rc = 1;
    }
    int *ring = malloc((size_t)P * sizeof *ring), *c1 = malloc((size_t)P * sizeof *c1),
        *c2 = malloc((size_t)P * sizeof *c2);
    if (!ring || !c1 || !c2) {
        free(ring), free(c1), free(c2);
        ac_topo_free(t);
        return 1;
    }
    print_ring(t, "LR1", ring, ac_ring_lr1(t, ring));
    print_ring(t, "LR2", ring, ac_ring_lr2(t, ring));
    print_ring(t, "LR3", ring, ac_ring_lr3(t, ring));
    if (ac_bcast_chain(t, root, ring) == 0) {
        printf("chain from %d (Algorithm 4):", root);
        for (int i = 0; i < P; i++)
            printf(" %d", ring[i]);
        printf("\n");
    }
    int h = ac_bcast_bintree(t, root, c1, c2);
    if (h >= 0) {
        printf("binary tree from %d (Algorithm 5), height %d:", root, h);
        for (int r = 0; r < P; r++) {
            if (c1[r] >= 0) printf(" %d->%d", r, c1[r]);
            if (c2[r] >= 0) printf(" %d->%d", r, c2[r]);
        }
        printf("\n");
    }
    free(ring), free(c1), free(c2);
    ac_topo_free(t);
    return rc;
}

static int simgrid(const char *path, const char *xmlpath, const char *hostpath) {
    ac_topo_t *t = load(path);
    if (!t) return 1;
    FILE *x = fopen(xmlpath, "w"), *h = x ? fopen(hostpath, "w") : NULL;
    int rc = 0;
    if (!x || !h) {
        fprintf(stderr, "autocoll-topo: cannot write %s: %s\n", x ? hostpath : xmlpath,
                strerror(errno));
        rc = 1;
    } else if (ac_topo_write_simgrid(t, "topo", x, h) != 0) {
        fprintf(stderr, "autocoll-topo: write error\n");
        rc = 1;
    }
    if (h && fclose(h) != 0) rc = 1;
    if (x && fclose(x) != 0) rc = 1;
    ac_topo_free(t);
    return rc;
}

/* Integer option value in [lo, hi], else -1 after a message. */
static long num(const char *opt, const char *v, long lo, long hi) {
    char *end;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || *end || x < lo || x > hi) {
        fprintf(stderr, "autocoll-topo: %s expects an integer in [%ld, %ld], got '%s'\n", opt, lo,
                hi, v ? v : "");
        return -1;
    }
    return x;
}

static int generate(int argc, char **argv) {
    long n = -1, seed = 1, ppn = 1;
    double mean = 8;
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "-n")) {
            if ((n = num("-n", v, 1, 1 << 20)) < 0) return 2;
        } else if (!strcmp(argv[i], "-s")) {
            if ((seed = num("-s", v, 0, 1L << 62)) < 0) return 2;
        } else if (!strcmp(argv[i], "-p")) {
            if ((ppn = num("-p", v, 1, 1024)) < 0) return 2;
        } else if (!strcmp(argv[i], "-m")) {
            char *end;
            mean = v ? strtod(v, &end) : 0;
            if (!v || *end || !(mean >= 1 && mean <= 1e6)) {
                fprintf(stderr, "autocoll-topo: -m expects a number >= 1, got '%s'\n", v ? v : "");
                return 2;
            }
        } else {
            fprintf(stderr, "autocoll-topo: generate: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        i++;
    }
    if (n < 0) {
        fprintf(stderr, "autocoll-topo: generate needs -n MACHINES\n");
        return 2;
    }
    if (n * ppn > AC_TOPO_MAX_RANKS) {
        fprintf(stderr, "autocoll-topo: more than %d ranks\n", AC_TOPO_MAX_RANKS);
        return 2;
    }
    char *g = ac_topo_generate((int)n, mean, (uint64_t)seed, (int)ppn);
    if (!g) return 1;
    fputs(g, stdout);
    free(g);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
        printf("autocoll-topo (autocoll) %s\n", autocoll_version());
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "check")) {
        ac_topo_t *t = load(argv[2]);
        if (!t) return 1;
        printf("%s: valid: %d switches, %d machines, %d ranks\n", argv[2], t->nsw, t->nmach,
               t->nranks);
        ac_topo_free(t);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "show")) return show(argv[2], 0);
    if (argc == 5 && !strcmp(argv[1], "show") && !strcmp(argv[2], "-r")) {
        long r = num("-r", argv[3], 0, 1 << 20);
        return r < 0 ? 2 : show(argv[4], (int)r);
    }
    if (argc == 5 && !strcmp(argv[1], "simgrid")) return simgrid(argv[2], argv[3], argv[4]);
    if (argc >= 2 && !strcmp(argv[1], "generate")) return generate(argc - 2, argv + 2);
    usage(stderr);
    return 2;
}
