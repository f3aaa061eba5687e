/*
 * autocoll-info: lists collectives, algorithms, STAR groups, restrictions, parameters and cost
 * formulas from the registry. Uses only the public API (include/autocoll.h).
 *
 *   autocoll-info [COLLECTIVE]        table of algorithms (all collectives when none given)
 *   autocoll-info --instances [COLL]  every parameter instance, one per line ("coll name:p=v")
 */
#include <stdio.h>
#include <string.h>
#include "autocoll.h"

static int usage(void) {
    fprintf(stderr, "usage: autocoll-info [--instances] [COLLECTIVE]\n");
    return 2;
}

int main(int argc, char **argv) {
    int instances = 0, only = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--instances"))
            instances = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return usage() - 2;
        else if ((only = autocoll_coll_from_name(argv[i])) < 0) {
            fprintf(stderr, "autocoll-info: unknown collective '%s'\n", argv[i]);
            return usage();
        }
    }
    printf(instances ? "" : "autocoll %s\n", autocoll_version());
    for (int c = 0; c < AUTOCOLL_NCOLL; c++) {
        if (only >= 0 && c != only) continue;
        for (int k = 0; k < autocoll_alg_count(c); k++) {
            autocoll_alg_info_t in;
            autocoll_alg_info(c, k, &in);
            if (instances) {
                char name[256];
                int n = autocoll_instance_count(c, k);
                for (int j = 0; j < n; j++) {
                    autocoll_instance_name(c, k, j, name, sizeof name);
                    printf("%s %s\n", in.coll, name);
                }
                continue;
            }
            char r[128];
            autocoll_restrictions_string(in.restrictions, r, sizeof r);
            printf("%s.%s\n  group: %s\n  restrictions: %s\n  parameters: %s\n  cost: %s\n  %s\n",
                   in.coll, in.name, in.group, r, in.params[0] ? in.params : "-", in.cost,
                   in.description);
        }
    }
    return 0;
}
