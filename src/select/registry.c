/*
 * The algorithm registry, built from one X-macro list per collective (src/coll/<c>/<c>.def).
 * From the lists come the name table, the dispatch table, autocoll-info, the correctness matrix
 * and the tuner's search space. Parameter specifications are parsed once, at first use.
 *
 * Parameter specification grammar (docs/registry.md):
 *   spec   := "" | param (";" param)*
 *   param  := name "=" type ":" value ("," value)*      first value = default
 *   type   := "int[" min ".." max "]" | "alg(" collective ")" | "str"
 * A str parameter's candidates are names (no ',' or ';'); any string can be forced.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "select.h"

#include "../coll/algs.h"

#define AC_ALG(C, NAME, FN, GROUP, FLAGS, PARAMS, COST, DESC)                                      \
    {.coll = AUTOCOLL_##C,                                                                         \
     .name = #NAME,                                                                                \
     .fn = FN,                                                                                     \
     .group = GROUP,                                                                               \
     .flags = FLAGS,                                                                               \
     .param_spec = PARAMS,                                                                         \
     .cost = COST,                                                                                 \
     .desc = DESC},
/* Every algorithm of every collective: the build lists each src/coll/<c>/<c>.def in
 * ac_alg_lists.def (generated, see CMakeLists.txt), so a new collective's list is picked up
 * without an edit here. The lines of one collective are adjacent (one .def per collective). */
static ac_alg_t algs[] = {
#include "ac_alg_lists.def"
};
#undef AC_ALG
enum { AC_NALGS = (int)(sizeof algs / sizeof algs[0]) };

static struct {
    ac_alg_t *algs;
    int n;
} colls[AUTOCOLL_NCOLL];

/* Each collective's slice of algs[]; a list that is split, too long or missing is a build
 * defect, reported here (the unit tests fail on it) and cut off. */
static void index_lists(void) {
    for (int i = 0; i < AC_NALGS; i++) {
        int c = algs[i].coll;
        if (!colls[c].algs) colls[c].algs = &algs[i];
        if (&colls[c].algs[colls[c].n] != &algs[i] || colls[c].n == AC_MAX_ALGS) {
            fprintf(stderr, "autocoll: registry: %s.%s: %s\n", ac_coll_name(c), algs[i].name,
                    colls[c].n == AC_MAX_ALGS
                        ? "too many algorithms"
                        : "not adjacent to the other lines of its collective");
            continue;
        }
        colls[c].n++;
    }
    for (int c = 0; c < AUTOCOLL_NCOLL; c++)
        if (!colls[c].n)
            fprintf(stderr, "autocoll: registry: %s: no algorithm list\n", ac_coll_name(c));
}

static int parse_long(const char **p, long *out) {
    char *end;
    if (!isdigit((unsigned char)**p) && **p != '-') return -1;
    long v = strtol(*p, &end, 10);
    if (end == *p) return -1;
    *p = end;
    *out = v;
    return 0;
}

/* Parses one param specification (see grammar above) into out[]; returns the count or -1. */
int ac_param_spec_parse(const char *spec, ac_param_t *out, int max, char *err, size_t errlen) {
    int n = 0;
    const char *p = spec ? spec : "";
    while (*p) {
        if (n == max) {
            snprintf(err, errlen, "more than %d parameters", max);
            return -1;
        }
        ac_param_t *q = &out[n];
        memset(q, 0, sizeof *q);
        size_t k = strcspn(p, "=");
        if (k == 0 || k >= AC_NAME_LEN || p[k] != '=') {
            snprintf(err, errlen, "parameter %d: expected name=type", n + 1);
            return -1;
        }
        memcpy(q->name, p, k);
        p += k + 1;
        if (strncmp(p, "int[", 4) == 0) {
            p += 4;
            q->type = AC_PT_INT;
            if (parse_long(&p, &q->min) || strncmp(p, "..", 2) ||
                (p += 2, parse_long(&p, &q->max)) || *p != ']' || q->min > q->max) {
                snprintf(err, errlen, "parameter %s: expected int[min..max]", q->name);
                return -1;
            }
            p++;
        } else if (strncmp(p, "alg(", 4) == 0) {
            p += 4;
            size_t m = strcspn(p, ")");
            char cname[AC_NAME_LEN] = {0};
            if (p[m] != ')' || m >= sizeof cname) {
                snprintf(err, errlen, "parameter %s: expected alg(collective)", q->name);
                return -1;
            }
            memcpy(cname, p, m);
            q->type = AC_PT_ALG;
            q->ref_coll = ac_coll_from_name(cname);
            if (q->ref_coll < 0) {
                snprintf(err, errlen, "parameter %s: unknown collective '%s'", q->name, cname);
                return -1;
            }
            p += m + 1;
        } else if (strncmp(p, "str", 3) == 0) {
            q->type = AC_PT_STR;
            p += 3;
        } else {
            snprintf(err, errlen, "parameter %s: unknown type (int[..], alg(..) or str)", q->name);
            return -1;
        }
        if (*p != ':') {
            snprintf(err, errlen, "parameter %s: expected ':' and candidate values", q->name);
            return -1;
        }
        p++;
        for (;;) {
            if (q->ncand == AC_MAX_CANDIDATES) {
                snprintf(err, errlen, "parameter %s: more than %d candidates", q->name,
                         AC_MAX_CANDIDATES);
                return -1;
            }
            if (q->type == AC_PT_INT) {
                long v;
                if (parse_long(&p, &v) || v < q->min || v > q->max) {
                    snprintf(err, errlen, "parameter %s: candidate not an integer in range",
                             q->name);
                    return -1;
                }
                q->cand[q->ncand++] = v;
            } else {
                size_t m = strcspn(p, ",;");
                if (m == 0 || m >= AC_NAME_LEN) {
                    snprintf(err, errlen, "parameter %s: empty or overlong candidate", q->name);
                    return -1;
                }
                memcpy(q->cand_alg[q->ncand++], p, m);
                p += m;
            }
            if (*p != ',') break;
            p++;
        }
        if (*p == ';') {
            p++;
            if (!*p) {
                snprintf(err, errlen, "trailing ';'");
                return -1;
            }
        } else if (*p) {
            snprintf(err, errlen, "parameter %s: unexpected '%c'", q->name, *p);
            return -1;
        }
        n++;
    }
    return n;
}

static const ac_alg_t *find_alg(int coll, const char *name) {
    for (int i = 0; i < colls[coll].n; i++)
        if (strcmp(colls[coll].algs[i].name, name) == 0) return &colls[coll].algs[i];
    return NULL;
}

/* ---------------------------------------------------------------- parts of composites
 *
 * A composite runs each alg(...) parameter's algorithm (its part, with that algorithm's default
 * instance) through ac_run_part. The selector checks only the composite's own restrictions, so
 * a part is valid only when it can run every call its composite accepts (docs/settings.md,
 * "Composite algorithms"). Audit of every alg(...) parameter in src/coll/<c>/<c>.def: where the
 * composite runs the part (read from the composites' sources). */
enum {
    AC_STAGE_SAME = 1, /* on the composite's own communicator and context (same p, same op) */
    AC_STAGE_OWN = 2,  /* on a node or leader communicator with that communicator's own context */
    AC_STAGE_SUB = 4,  /* on a node or leader communicator with the composite's context, whose
                        * node layout describes the whole communicator, not the stage's */
    AC_STAGE_NO_NATIVE = 8 /* the stage's communicator is not passed as the user communicator:
                            * the MPI library's collective would run on the whole communicator */
};
static const struct {
    const char *coll, *alg, *param;
    int stage;
} part_stages[] = {
    /* leaders' allgatherv of node segments on leader_comm, in place (allgather_hier.c) */
    {"allgather", "hier", "inter", AC_STAGE_SUB},
    {"allgatherv", "hier", "inter", AC_STAGE_SUB},
    {"allreduce", "reduce_bcast", "reduce", AC_STAGE_SAME},
    {"allreduce", "reduce_bcast", "bcast", AC_STAGE_SAME},
    {"allreduce", "ag_reduce", "ag", AC_STAGE_SAME},
    {"allreduce", "rab1", "ag", AC_STAGE_SAME},
    {"allreduce", "rab2", "a2a", AC_STAGE_SAME},
    {"allreduce", "rab2", "ag", AC_STAGE_SAME},
    {"reduce", "rab2", "a2a", AC_STAGE_SAME},
    /* node_comm and leader_comm with their own contexts (ac_ctx_get), ucomm set */
    {"allreduce", "hierarchical", "inter", AC_STAGE_OWN},
    {"allreduce", "hierarchical", "reduce", AC_STAGE_OWN},
    {"allreduce", "hierarchical", "bcast", AC_STAGE_OWN},
    /* node_comm and leader_comm with the composite's context; ucomm stays the user's */
    {"bcast", "hier", "inter", AC_STAGE_SUB | AC_STAGE_NO_NATIVE},
    {"bcast", "hier", "intra", AC_STAGE_SUB | AC_STAGE_NO_NATIVE},
    {"reduce", "hier", "inter", AC_STAGE_SUB | AC_STAGE_NO_NATIVE},
    {"reduce", "hier", "intra", AC_STAGE_SUB | AC_STAGE_NO_NATIVE},
    {"reduce_scatter", "reduce_scatterv", "reduce", AC_STAGE_SAME},
    {"reduce_scatter_block", "reduce_scatterv", "reduce", AC_STAGE_SAME},
};

/* Node-aware algorithms: they read the node layout of the context they are given (node_comm,
 * leader_comm, node_of, ...), which is wrong for the communicator of a SUB stage.
 * allreduce.tree is not one: it uses the layout only when it runs on the context's own
 * communicator (one rank per node otherwise). */
static const struct {
    const char *coll, *alg;
} node_aware_algs[] = {
    {"allgather", "hier"}, {"allgatherv", "hier"}, {"alltoall", "hier"},
    {"barrier", "hier"},   {"bcast", "hier"},      {"gather", "hier"},
    {"scatter", "hier"},   {"reduce", "hier"},     {"allreduce", "hierarchical"},
};

/* How composite c runs the part of its parameter q (AC_STAGE_*), 0 when not audited. */
static int part_stage(const ac_alg_t *c, const ac_param_t *q) {
    for (size_t i = 0; i < sizeof part_stages / sizeof part_stages[0]; i++)
        if (!strcmp(part_stages[i].coll, ac_coll_name(c->coll)) &&
            !strcmp(part_stages[i].alg, c->name) && !strcmp(part_stages[i].param, q->name))
            return part_stages[i].stage;
    return 0;
}

/* The default part of p's parameter k (what p runs), NULL when none. */
static const ac_alg_t *default_part(const ac_alg_t *p, int k) {
    const ac_param_t *q = &p->param[k];
    return q->type == AC_PT_ALG && q->ncand > 0 ? find_alg(q->ref_coll, q->cand_alg[0]) : NULL;
}

enum { AC_PART_DEPTH = 8 }; /* nesting followed by the checks below */

/* 1 when p is c or runs c somewhere in its tree of default parts (recursion). */
static int part_reaches(const ac_alg_t *p, const ac_alg_t *c, int depth) {
    if (p == c) return 1;
    for (int k = 0; depth < AC_PART_DEPTH && k < p->nparam; k++) {
        const ac_alg_t *d = default_part(p, k);
        if (d && part_reaches(d, c, depth + 1)) return 1;
    }
    return 0;
}

/* 1 when p is in node_aware_algs. */
static int listed_node_aware(const ac_alg_t *p) {
    for (size_t i = 0; i < sizeof node_aware_algs / sizeof node_aware_algs[0]; i++)
        if (!strcmp(node_aware_algs[i].coll, ac_coll_name(p->coll)) &&
            !strcmp(node_aware_algs[i].alg, p->name))
            return 1;
    return 0;
}

/* 1 when p reads the node layout of the context it is given, itself or through a part that it
 * runs with that context on its own communicator (SAME stages). */
static int part_node_aware(const ac_alg_t *p, int depth) {
    if (listed_node_aware(p)) return 1;
    for (int k = 0; depth < AC_PART_DEPTH && k < p->nparam; k++) {
        const ac_alg_t *d = default_part(p, k);
        if (d && (part_stage(p, &p->param[k]) & AC_STAGE_SAME) && part_node_aware(d, depth + 1))
            return 1;
    }
    return 0;
}

int ac_inst_node_aware(const ac_inst_t *in) {
    const ac_alg_t *p = in->alg;
    if (listed_node_aware(p)) return 1;
    for (int k = 0; k < p->nparam; k++)
        if (p->param[k].type == AC_PT_ALG && in->val[k].alg &&
            (part_stage(p, &p->param[k]) & AC_STAGE_SAME) && part_node_aware(in->val[k].alg, 1))
            return 1;
    return 0;
}

/* 1 when p is the MPI library's collective or runs it on the communicator p was given. */
static int part_native(const ac_alg_t *p, int depth) {
    if (p->flags & AUTOCOLL_R_NATIVE) return 1;
    for (int k = 0; depth < AC_PART_DEPTH && k < p->nparam; k++) {
        const ac_alg_t *d = default_part(p, k);
        if (d && (part_stage(p, &p->param[k]) & AC_STAGE_SAME) && part_native(d, depth + 1))
            return 1;
    }
    return 0;
}

/* The rule (docs/settings.md): 0 when composite c can run p as the part of its parameter q,
 * otherwise -1 and the reason in err. Registry lookups only (usable while it is being built). */
static int part_check(const ac_alg_t *c, const ac_param_t *q, const ac_alg_t *p, char *err,
                      size_t errlen) {
    static const struct {
        unsigned flag;
        const char *what;
    } needs[] = {
        {AUTOCOLL_R_POF2, "needs a power-of-two number of processes"},
        {AUTOCOLL_R_EVEN_P, "needs an even number of processes"},
        {AUTOCOLL_R_P2, "needs exactly two processes"},
        {AUTOCOLL_R_COMMUTATIVE, "needs a commutative operation"},
        {AUTOCOLL_R_NO_INPLACE, "does not support MPI_IN_PLACE"},
        {AUTOCOLL_R_MULTINODE, "needs ranks on more than one node"},
        {AUTOCOLL_R_UNIFORM_PPN, "needs the same number of ranks on every node"},
        {AUTOCOLL_R_TOPOLOGY_FILE, "needs a topology file"},
    };
    const unsigned sizes = AUTOCOLL_R_POF2 | AUTOCOLL_R_EVEN_P | AUTOCOLL_R_P2;
    int stage = part_stage(c, q);
    if (!stage) {
        snprintf(err, errlen, "%s: parameter %s is missing from the audit of parts (registry.c)",
                 c->name, q->name);
        return -1;
    }
    if (part_reaches(p, c, 0)) {
        snprintf(err, errlen, "%s: %s=%s: a composite cannot run itself as a part", c->name,
                 q->name, p->name);
        return -1;
    }
    /* What the stage guarantees: the composite's own restrictions hold for a part on the same
     * communicator; a node or leader communicator has its own size; the operation is always the
     * caller's; composites may run a part in place whatever the caller passed. */
    unsigned given = c->flags & ~AUTOCOLL_R_NO_INPLACE;
    if (!(stage & AC_STAGE_SAME)) given &= ~(sizes | AUTOCOLL_R_MULTINODE | AUTOCOLL_R_UNIFORM_PPN);
    unsigned missing = p->flags & ~AUTOCOLL_R_NATIVE & ~given;
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (missing & needs[i].flag) {
            snprintf(err, errlen,
                     "%s: %s=%s cannot run as a part: %s %s, which %s does not guarantee", c->name,
                     q->name, p->name, p->name, needs[i].what,
                     (stage & AC_STAGE_SAME) || needs[i].flag == AUTOCOLL_R_COMMUTATIVE
                         ? c->name
                         : "a node or leader communicator");
            return -1;
        }
    if ((stage & AC_STAGE_SUB) && part_node_aware(p, 0)) {
        snprintf(err, errlen,
                 "%s: %s=%s cannot run as a part: %s is node-aware, and this stage runs on a node "
                 "or leader communicator with the whole communicator's node layout",
                 c->name, q->name, p->name, p->name);
        return -1;
    }
    if ((stage & AC_STAGE_NO_NATIVE) && part_native(p, 0)) {
        snprintf(err, errlen,
                 "%s: %s=%s cannot run as a part: this stage cannot hand its node or leader "
                 "communicator to the MPI library's collective",
                 c->name, q->name, p->name);
        return -1;
    }
    return 0;
}

static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
static void registry_build(void) {
    index_lists();
    for (int c = 0; c < AUTOCOLL_NCOLL; c++) {
        for (int i = 0; i < colls[c].n; i++) {
            ac_alg_t *a = &colls[c].algs[i];
            char err[256];
            a->index = i;
            a->nparam =
                ac_param_spec_parse(a->param_spec, a->param, AC_MAX_PARAMS, err, sizeof err);
            if (a->nparam < 0) {
                /* A malformed spec is a build defect; the unit tests catch it. Keep the algorithm
                 * usable with its defaults impossible: mark it as having no instances. */
                fprintf(stderr, "autocoll: registry: %s.%s: %s\n", ac_coll_name(c), a->name, err);
                a->nparam = -1;
            }
        }
    }
    /* Second pass, once every list is indexed: an alg(...) candidate must name a registered
     * algorithm of that collective that can run as that part (part_check). */
    for (int c = 0; c < AUTOCOLL_NCOLL; c++)
        for (int i = 0; i < colls[c].n; i++) {
            ac_alg_t *a = &colls[c].algs[i];
            for (int k = 0; k < a->nparam; k++)
                for (int j = 0; a->param[k].type == AC_PT_ALG && j < a->param[k].ncand; j++) {
                    const ac_alg_t *part = find_alg(a->param[k].ref_coll, a->param[k].cand_alg[j]);
                    char err[256];
                    a->param[k].cand_ref[j] = part; /* core reads instances without lookups */
                    if (!part)
                        snprintf(err, sizeof err, "%s is not a %s algorithm",
                                 a->param[k].cand_alg[j], ac_coll_name(a->param[k].ref_coll));
                    else if (part_check(a, &a->param[k], part, err, sizeof err) == 0)
                        continue;
                    fprintf(stderr, "autocoll: registry: %s.%s: %s\n", ac_coll_name(c), a->name,
                            err);
                    a->nparam = -1;
                    break;
                }
        }
}
void ac_registry_init(void) {
    pthread_once(&reg_once, registry_build);
}

int ac_alg_count(int coll) {
    ac_registry_init();
    return (coll >= 0 && coll < AUTOCOLL_NCOLL) ? colls[coll].n : 0;
}

const ac_alg_t *ac_alg_get(int coll, int idx) {
    ac_registry_init();
    if (coll < 0 || coll >= AUTOCOLL_NCOLL || idx < 0 || idx >= colls[coll].n) return NULL;
    return &colls[coll].algs[idx];
}

const ac_alg_t *ac_alg_find(int coll, const char *name) {
    ac_registry_init();
    return (coll >= 0 && coll < AUTOCOLL_NCOLL && name) ? find_alg(coll, name) : NULL;
}

int ac_inst_parse(int coll, const char *spec, ac_inst_t *inst, char *err, size_t errlen) {
    char buf[256];
    if (!spec || strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "algorithm specification missing or too long");
        return -1;
    }
    strcpy(buf, spec);
    char *colon = strchr(buf, ':');
    if (colon) *colon = '\0';
    const ac_alg_t *alg = ac_alg_find(coll, buf);
    if (!alg) {
        snprintf(err, errlen, "unknown %s algorithm '%s' (autocoll-info lists them)",
                 ac_coll_name(coll), buf);
        return -1;
    }
    if (alg->nparam < 0) {
        snprintf(err, errlen, "%s.%s has a malformed parameter specification", ac_coll_name(coll),
                 alg->name);
        return -1;
    }
    ac_inst_default(alg, inst);
    if (!colon) return 0;
    /* param=value pairs separated by ','; a value may be "quoted" (it then ends at the next
     * quote and may hold , : = ;). */
    char *kv = colon + 1;
    int given[AC_MAX_PARAMS] = {0};
    while (*kv) {
        char *eq = strchr(kv, '=');
        char *comma = strchr(kv, ',');
        if (!eq || (comma && comma < eq)) {
            snprintf(err, errlen, "%s: expected param=value, got '%.*s'", alg->name,
                     comma ? (int)(comma - kv) : (int)strlen(kv), kv);
            return -1;
        }
        *eq = '\0';
        char *v = eq + 1, *next;
        if (*v == '"') {
            char *close = strchr(++v, '"');
            if (!close || (close[1] && close[1] != ',')) {
                snprintf(err, errlen, "%s: %s: unterminated quoted value", alg->name, kv);
                return -1;
            }
            *close = '\0';
            next = close[1] ? close + 2 : close + 1;
        } else {
            size_t m = strcspn(v, ",");
            next = v[m] ? v + m + 1 : v + m;
            v[m] = '\0';
        }
        int k;
        for (k = 0; k < alg->nparam; k++)
            if (strcmp(alg->param[k].name, kv) == 0) break;
        if (k == alg->nparam) {
            snprintf(err, errlen, "%s has no parameter '%s'", alg->name, kv);
            return -1;
        }
        if (given[k]++) { /* which value would win is not obvious: refuse */
            snprintf(err, errlen, "%s: parameter %s given more than once", alg->name, kv);
            return -1;
        }
        const ac_param_t *q = &alg->param[k];
        if (q->type == AC_PT_INT) {
            char *end;
            long x = strtol(v, &end, 10);
            if (!*v || *end || x < q->min || x > q->max) {
                snprintf(err, errlen, "%s: %s=%s is not an integer in [%ld, %ld]", alg->name,
                         q->name, v, q->min, q->max);
                return -1;
            }
            inst->val[k].i = x;
        } else if (q->type == AC_PT_ALG) {
            const ac_alg_t *r = ac_alg_find(q->ref_coll, v);
            if (!r) {
                snprintf(err, errlen, "%s: %s=%s is not a %s algorithm", alg->name, q->name, v,
                         ac_coll_name(q->ref_coll));
                return -1;
            }
            if (part_check(alg, q, r, err, errlen)) return -1;
            inst->val[k].alg = r;
        } else {
            if (!*v || strlen(v) >= sizeof inst->val[k].s) {
                snprintf(err, errlen, "%s: %s is empty or longer than %d characters", alg->name,
                         q->name, AC_STR_LEN - 1);
                return -1;
            }
            if (strchr(v, '"')) { /* could not be written back as one quoted value */
                snprintf(err, errlen, "%s: %s must not contain '\"'", alg->name, q->name);
                return -1;
            }
            strcpy(inst->val[k].s, v);
        }
        kv = next;
    }
    return 0;
}

/* ---------------------------------------------------------------- restrictions of a call */

int ac_alg_applicable(const ac_alg_t *alg, const ac_args_t *a, const ac_ctx_t *ctx,
                      const char **why) {
    autocoll_situation_t s = {.p = a->size,
                              .nodes = ctx->nnodes,
                              .uniform_ppn = ctx->ppn_uniform,
                              .commutative = a->commutative,
                              .inplace = a->inplace && !ac_coll_rooted(a->coll),
                              .topology = ctx->topo != NULL,
                              .fixed_order = a->fixed_order};
    const char *w = alg->nparam < 0 ? "malformed parameter specification"
                                    : ac_restriction_reason(alg->flags, &s);
    if (why) *why = w;
    return w == NULL;
}

/* ---------------------------------------------------------------- public listing API */

AC_EXPORT int autocoll_alg_count(int coll) {
    return ac_alg_count(coll);
}

AC_EXPORT int autocoll_alg_info(int coll, int idx, autocoll_alg_info_t *info) {
    const ac_alg_t *a = ac_alg_get(coll, idx);
    if (!a || !info) return MPI_ERR_ARG;
    info->coll = ac_coll_name(coll);
    info->name = a->name;
    info->group = a->group;
    info->restrictions = a->flags;
    info->params = a->param_spec;
    info->cost = a->cost;
    info->description = a->desc;
    return MPI_SUCCESS;
}

AC_EXPORT int autocoll_instance_count(int coll, int idx) {
    const ac_alg_t *a = ac_alg_get(coll, idx);
    return a ? ac_inst_count(a) : 0;
}

AC_EXPORT int autocoll_instance_name(int coll, int idx, int i, char *buf, int len) {
    const ac_alg_t *a = ac_alg_get(coll, idx);
    if (!a || !buf || len <= 0) return 0;
    int n = ac_inst_count(a);
    if (i >= 0 && i < n) {
        ac_inst_t in;
        ac_inst_nth(a, i, &in);
        ac_inst_format(&in, buf, (size_t)len);
    }
    return n;
}
