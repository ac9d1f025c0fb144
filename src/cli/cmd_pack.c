/* berth pack: the command-line face of berth_pack_run (include/berth/pack.h), FGD's one-shot
 * packing experiment. Prints a summary (text or --json) and writes the 1 % checkpoints as
 * CSV with --out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/pack.h"
#include "cli.h"
#include "flags.h"
#include "progress.h"

/* What the flags fill. */
struct pack_args {
    struct berth_pack_opts o;
    const char *cluster, *trace, *format, *out;
    int json, quiet;
};

static int set_popularity(const struct cli_flag *f, void *base, const char *v,
                          struct berth_err *err)
{
    struct pack_args *a = base;
    double pct = 0;
    (void)f;
    if (cli_flags_num(v, 1, 100, &pct, err))
        return err->code;
    a->o.popularity_pct = (int)pct;
    return 0;
}

#define A struct pack_args
static const struct cli_flag pack_flags[] = {
    {"cluster", 0, "SPEC", "cluster: an openb node list, a JSON file or a shorthand",
     CLI_STR_AT(A, cluster)},
    {"trace", 0, "FILE", "pods, e.g. an openb pod list", CLI_STR_AT(A, trace)},
    {"format", 0, "F", "trace format (default: detected)", CLI_STR_AT(A, format)},
    {"scorer", 0, "NAME",
     "fgd (default), best-fit, first-fit, dot-product, random, fgd-k8s (FGD's integer score as "
     "the paper's simulator computes it, random among ties)",
     CLI_STR_AT(A, o.scorer)},
    {"seed", 0, "N", "seed for --shuffle, --tune and random (default: 1)", CLI_U64_AT(A, o.seed)},
    {"shuffle", 0, NULL, "pods in a seeded random order (default: trace order)",
     CLI_ON_AT(A, o.shuffle)},
    {"tune", 0, "R",
     "add pods drawn from the trace until the GPUs asked reach R x capacity (the paper uses "
     "1.3; default: 0, none)",
     CLI_NUM_AT(A, o.tune), .lo = 0, .hi = 100},
    {"popularity", 0, "PCT", "typical pods cover PCT % of the pods (default: 95)",
     CLI_SET(set_popularity)},
    {"out", 0, "FILE.csv",
     "checkpoints at each 1 % of capacity asked, the columns pct, tried, placed, failed, "
     "requested_gpus, allocated_gpus, alloc_ratio, frag_gpus, frag_ratio (fragmented / idle "
     "GPUs)",
     CLI_STR_AT(A, out)},
    {"json", 0, NULL, "print the summary as one JSON object", CLI_ON_AT(A, json)},
    {"quiet", 'q', NULL, "no progress bar on stderr (there is one only on a terminal)",
     CLI_ON_AT(A, quiet)},
    CLI_HELP_FLAG,
    {0},
};
#undef A

static const struct cli_section pack_sections[] = {{NULL, pack_flags, 0}, {0}};

static const struct cli_spec pack_spec = {
    .cmd = "pack",
    .usage = "pack --cluster SPEC --trace FILE [--format F] [--scorer NAME] [--seed N] "
             "[--shuffle] [--tune R] [--popularity PCT] [--out FILE.csv] [--json] [--quiet] "
             "[--help]",
    .about = "Places the trace's pods one by one on an empty cluster, none leaving (the FGD "
             "paper's experiment). A pod that fits nowhere fails; the run goes on to the end.",
    .sections = pack_sections,
};

static double unalloc(const struct berth_pack_result *r, const struct berth_pack_point *p)
{
    return r->capacity > 0 ? 1.0 - p->allocated / r->capacity : 0.0;
}

static double frag_ratio(const struct berth_pack_result *r, const struct berth_pack_point *p)
{
    double idle = r->capacity - p->allocated;
    return idle > 1e-9 ? p->frag / idle : 0.0;
}

static void print_point(const char *name, const struct berth_pack_result *r,
                        const struct berth_pack_point *p, int json)
{
    if (json)
        printf(",\"%s\":{\"tried\":%zu,\"placed\":%zu,\"failed\":%zu,\"requested_gpus\":%.3f,"
               "\"allocated_gpus\":%.3f,\"unallocated_ratio\":%.6f,\"frag_gpus\":%.3f,"
               "\"frag_ratio\":%.6f}",
               name, p->tried, p->placed, p->failed, p->requested, p->allocated, unalloc(r, p),
               p->frag, frag_ratio(r, p));
    else
        printf("%-12s after %zu pods (%.1f GPUs asked): %.3f GPUs allocated, %.2f %% "
               "unallocated, %.3f GPUs fragmented (%.2f %% of idle)\n",
               name, p->tried, p->requested, p->allocated, 100 * unalloc(r, p), p->frag,
               100 * frag_ratio(r, p));
}

static int write_csv(const char *path, const struct berth_pack_result *r)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "berth pack: --out %s: cannot write: %s\n", path, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    fprintf(f, "pct,tried,placed,failed,requested_gpus,allocated_gpus,alloc_ratio,frag_gpus,"
               "frag_ratio\n");
    for (size_t i = 0; i < r->npoints; i++) {
        const struct berth_pack_point *p = &r->points[i];
        fprintf(f, "%d,%zu,%zu,%zu,%.3f,%.3f,%.6f,%.3f,%.6f\n", p->pct, p->tried, p->placed,
                p->failed, p->requested, p->allocated, 1.0 - unalloc(r, p), p->frag,
                frag_ratio(r, p));
    }
    if (fclose(f)) {
        fprintf(stderr, "berth pack: --out %s: write failed: %s\n", path, strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

int cmd_pack(int argc, char **argv)
{
    struct pack_args a = {.cluster = NULL};
    berth_pack_opts_init(&a.o);
    int nargs, rc = cli_flags_parse(&pack_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs)
        return cli_usage_error("pack", "unexpected argument '%s'", argv[1]);
    if (!a.cluster || !a.trace)
        return cli_usage_error("pack", "%s is required (see berth pack --help)",
                               !a.cluster ? "--cluster SPEC" : "--trace FILE");
    struct cli_progress bar;
    cli_progress_start(&bar, "packing", a.quiet || a.json);
    a.o.progress = cli_progress_update;
    a.o.progress_ctx = &bar;
    const struct berth_pack_opts o = a.o;
    const char *cluster = a.cluster, *trace = a.trace, *format = a.format, *out = a.out;
    int json = a.json;
    static const char *const scorers[] = {"fgd",         "best-fit", "first-fit",
                                          "dot-product", "random",   "fgd-k8s"};
    int known = 0;
    for (size_t i = 0; i < sizeof scorers / sizeof *scorers; i++)
        known |= !strcmp(o.scorer, scorers[i]);
    if (!known)
        return cli_usage_error("pack",
                               "--scorer: unknown scorer '%s' (expected fgd, best-fit, "
                               "first-fit, dot-product, random or fgd-k8s)",
                               o.scorer);
    struct berth_err err = {0};
    struct berth_cluster *cl = NULL;
    struct berth_trace *t = NULL;
    struct cli_progress lbar;
    cli_progress_start(&lbar, "loading", a.quiet || a.json);
    struct berth_load_opts lo = {
        .format = format, .progress = cli_progress_update, .progress_ctx = &lbar};
    struct berth_load_report rep;
    rc = berth_cluster_parse(cluster, &cl, &err);
    if (!rc) {
        rc = berth_trace_load_opts(trace, &lo, &rep, &t, &err);
        cli_progress_end(&lbar);
        if (!rc)
            cli_report_load(trace, &rep);
    }
    if (rc) {
        berth_cluster_free(cl);
        return cli_fail(&err);
    }
    struct berth_pack_result r;
    rc = berth_pack_run(t, cl, &o, &r, &err);
    cli_progress_end(&bar);
    berth_trace_free(t);
    berth_cluster_free(cl);
    if (rc)
        return cli_fail(&err);
    int code = out ? write_csv(out, &r) : EXIT_OK;
    if (json) {
        printf("{\"scorer\":\"%s\",\"seed\":%llu,\"shuffle\":%d,\"capacity_gpus\":%.0f,"
               "\"pods\":%zu,\"placed\":%zu,\"failed\":%zu,\"typical_pod_types\":%zu",
               r.scorer, (unsigned long long)o.seed, o.shuffle, r.capacity, r.pods, r.placed,
               r.failed, r.typical);
        if (r.has_first_fail)
            print_point("first_failure", &r, &r.first, 1);
        print_point("end", &r, &r.end, 1);
        printf("}\n");
    } else {
        printf("scorer %s: %zu pods on %.0f GPUs, %zu placed, %zu failed (%zu typical pod "
               "types)\n",
               r.scorer, r.pods, r.capacity, r.placed, r.failed, r.typical);
        if (r.has_first_fail)
            print_point("first failure", &r, &r.first, 0);
        print_point("end", &r, &r.end, 0);
    }
    berth_pack_result_free(&r);
    return code;
}
