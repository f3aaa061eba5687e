/*
 * Switched Ethernet tree topologies: text format, validation, derived tree, paths, random
 * generator and SimGrid platform writer. No MPI.
 *
 * Source: seed 000 (Faraj 2006) §3.1; spec star-stage-ethernet.md section 1.2 (network model)
 * and section 3.1 (topology information, input format, several ranks per machine).
 * The format itself is documented in docs/topology.md.
 *
 * Model. Switches are inner nodes of a tree, machines are leaves, links are full duplex: each
 * physical link is two directed edges. A switch without any rank below it carries no traffic and
 * is pruned on load. A machine that runs several ranks becomes an extra "NIC" switch whose uplink
 * is the machine's link and whose leaves are the ranks (spec 3.1, autocoll extension), so every
 * schedule below works on ranks and never needs to know about the mapping.
 *
 * Derived tree. Vertices 0 .. nranks-1 are the ranks (the leaves), then the kept switches in
 * declaration order, then the NIC switches in machine declaration order. The tree is rooted at
 * vertex nranks: the first kept switch (the NIC switch when the whole job runs on one machine,
 * whose switch is then a leaf and pruned); children are listed in increasing vertex id, which is the
 * "increasing id order" of spec 3.1 (ids are ordered by declaration, machines before switches).
 * Directed edge ids: 2v is v -> parent(v) (up), 2v+1 is parent(v) -> v (down), v != root.
 *
 * Cost: parsing and validation O(lines + links), path queries O(depth).
 */
#ifndef AC_TOPO_H
#define AC_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { AC_TV_RANK = 0, AC_TV_SWITCH = 1, AC_TV_NIC = 2 };

/* Limits that keep a hostile file from exhausting memory (reported as errors, never a crash). */
enum { AC_TOPO_MAX_NODES = 1 << 20, AC_TOPO_MAX_RANKS = 1 << 20, AC_TOPO_MAX_ID = 255 };

typedef struct ac_topo {
    /* As declared. Ids are kept as strings; indices follow declaration order. */
    int nsw, nmach, nlink, nranks;
    char **sw_name;             /* [nsw] */
    char **mach_name;           /* [nmach] */
    int *mach_sw;               /* [nmach] switch index the machine is plugged into */
    char **mach_bw;             /* [nmach] NIC link bandwidth as written (NULL: default) */
    char **mach_lat;            /* [nmach] NIC link latency as written (NULL: default) */
    char **mach_speed;          /* [nmach] host speed as written (NULL: default) */
    int *link_a, *link_b;       /* [nlink] switch indices */
    char **link_bw, **link_lat; /* [nlink] (NULL: default) */
    int *rank_mach;             /* [nranks] machine of each rank */
    int explicit_ranks;         /* 1 if the file had rank records */

    /* Derived tree (see the header comment). */
    int nv, root;
    int *parent; /* [nv], -1 at the root */
    int *depth;  /* [nv], 0 at the root */
    int *kind;   /* [nv] AC_TV_* */
    int *orig;   /* [nv] rank: machine index; switch: switch index; NIC: machine index */
    int *cstart; /* [nv+1] children of v are child[cstart[v] .. cstart[v+1]) */
    int *child;
    int *nleaves; /* [nv] ranks in the subtree of v */
} ac_topo_t;

/* Parses a topology text of len bytes (need not be NUL-terminated). fname names the source in
 * messages. On success returns 0 and sets *out. Otherwise returns the number of errors, sets
 * *out = NULL and, if errs is not NULL, *errs to a malloc'd text with one "fname:line: reason"
 * line per error (at most 50, then a count). */
int ac_topo_parse(const char *text, size_t len, const char *fname, ac_topo_t **out, char **errs);
/* Same for a file; an unreadable file is one error at line 0. */
int ac_topo_load(const char *path, ac_topo_t **out, char **errs);
void ac_topo_free(ac_topo_t *t);

/* Canonical text of a parsed topology (malloc'd; parse(format(t)) == t). NULL on no memory. */
char *ac_topo_format(const ac_topo_t *t);

/* Random switch tree in the style of GT-ITM transit-stub trees as used in seed 000 §3.4.3:
 * max(1, round(nmach / mean)) switches, switch s >= 1 cabled to a uniformly drawn switch < s,
 * every machine plugged into a uniformly drawn switch, ppn >= 1 ranks per machine (rank r on
 * machine r / ppn). Deterministic in seed (splitmix64, no rand()). Returns malloc'd text. */
char *ac_topo_generate(int nmach, double mean_per_switch, uint64_t seed, int ppn);

/* Seeded PRNG shared by the generator and the tests. */
typedef struct {
    uint64_t s;
} ac_rng_t;
uint64_t ac_rng_next(ac_rng_t *r);
/* Uniform in [0, n), n >= 1. */
uint32_t ac_rng_below(ac_rng_t *r, uint32_t n);

/* Lowest common ancestor of two vertices. */
int ac_topo_lca(const ac_topo_t *t, int u, int v);
/* Directed edges of path(u, v) in order, written to edges (capacity 2 * max depth + 2 is
 * enough); returns their number. */
int ac_topo_path(const ac_topo_t *t, int u, int v, int *edges);
/* Path length of spec 1.2: number of switches (and NIC switches) traversed from u to v. */
int ac_topo_hops(const ac_topo_t *t, int u, int v);
/* Largest depth of any vertex. */
int ac_topo_height(const ac_topo_t *t);
/* 1 if the vertex is a switch of the derived tree (declared or NIC). */
static inline int ac_topo_is_switch(const ac_topo_t *t, int v) {
    return t->kind[v] != AC_TV_RANK;
}

/* Host name of rank r (its machine's id). */
const char *ac_topo_rank_host(const ac_topo_t *t, int r);

/* SimGrid platform (version 4.1) of the topology: one host per machine (core = ranks on it),
 * one router per switch, one SPLITDUPLEX link per cable with the bandwidth and latency of the
 * file (defaults: machine links 12.5MBps/30us, switch links 12.5MBps/10us, speed 1Gf, as
 * sim/platforms/faraj32.xml), and Floyd routing over explicit one-hop routes, which follows the
 * tree. The host file has one line per rank: the host of that rank. Returns 0, -1 on a write
 * error. */
int ac_topo_write_simgrid(const ac_topo_t *t, const char *zone_id, FILE *xml, FILE *hosts);

#endif
