/*
 * Algorithm instances: enumeration, defaults, formatting and the parameter accessors that
 * algorithm code calls. Everything is read from the ac_alg_t records themselves (the registry,
 * src/select/registry.c, resolves every alg(...) candidate to its record when it is built), so
 * this needs no lookup and sits below the algorithms.
 */
#include <stdio.h>
#include <string.h>
#include "ac.h"

int ac_inst_count(const ac_alg_t *alg) {
    if (alg->nparam < 0) return 0;
    int n = 1;
    for (int k = 0; k < alg->nparam; k++)
        n *= alg->param[k].ncand;
    return n;
}

/* Instance i in mixed radix: the first parameter varies slowest. */
void ac_inst_nth(const ac_alg_t *alg, int i, ac_inst_t *out) {
    memset(out, 0, sizeof *out);
    out->alg = alg;
    for (int k = alg->nparam - 1; k >= 0; k--) {
        const ac_param_t *q = &alg->param[k];
        int j = i % q->ncand;
        i /= q->ncand;
        if (q->type == AC_PT_INT)
            out->val[k].i = q->cand[j];
        else if (q->type == AC_PT_ALG)
            out->val[k].alg = q->cand_ref[j];
        else
            snprintf(out->val[k].s, sizeof out->val[k].s, "%s", q->cand_alg[j]);
    }
}

void ac_inst_default(const ac_alg_t *alg, ac_inst_t *out) {
    ac_inst_nth(alg, 0, out);
}

void ac_inst_format(const ac_inst_t *in, char *buf, size_t len) {
    size_t used = (size_t)snprintf(buf, len, "%s", in->alg ? in->alg->name : "?");
    for (int k = 0; in->alg && k < in->alg->nparam && used < len; k++) {
        const ac_param_t *q = &in->alg->param[k];
        if (q->type == AC_PT_INT)
            used += (size_t)snprintf(buf + used, len - used, "%c%s=%ld", k ? ',' : ':', q->name,
                                     in->val[k].i);
        else if (q->type == AC_PT_ALG)
            used += (size_t)snprintf(buf + used, len - used, "%c%s=%s", k ? ',' : ':', q->name,
                                     in->val[k].alg ? in->val[k].alg->name : "?");
        else /* quoted when the string holds a separator of this syntax */
            used += (size_t)snprintf(buf + used, len - used,
                                     in->val[k].s[strcspn(in->val[k].s, ",:=; \"")] ? "%c%s=\"%s\""
                                                                                    : "%c%s=%s",
                                     k ? ',' : ':', q->name, in->val[k].s);
    }
}

long ac_param_int(const ac_inst_t *in, const char *name) {
    for (int k = 0; k < in->alg->nparam; k++)
        if (in->alg->param[k].type == AC_PT_INT && strcmp(in->alg->param[k].name, name) == 0)
            return in->val[k].i;
    return -1;
}

const char *ac_param_str(const ac_inst_t *in, const char *name) {
    for (int k = 0; k < in->alg->nparam; k++)
        if (in->alg->param[k].type == AC_PT_STR && strcmp(in->alg->param[k].name, name) == 0)
            return in->val[k].s;
    return NULL;
}

const ac_alg_t *ac_param_alg(const ac_inst_t *in, const char *name) {
    for (int k = 0; k < in->alg->nparam; k++)
        if (in->alg->param[k].type == AC_PT_ALG && strcmp(in->alg->param[k].name, name) == 0)
            return in->val[k].alg;
    return NULL;
}
