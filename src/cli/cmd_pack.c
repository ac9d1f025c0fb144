/* berth pack: the command-line face of berth_pack_run (include/berth/pack.h), FGD's one-shot
 * packing experiment. Prints a summary (text or --json) and writes the 1 % checkpoints as
 * CSV with --out. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/pack.h"
#include "cli.h"

static void pack_usage(FILE *f)
{
    fprintf(f, "usage: berth pack --cluster SPEC --trace FILE [--format F] [--scorer NAME]\n"
               "                  [--seed N] [--shuffle] [--tune R] [--popularity PCT]\n"
               "                  [--out FILE.csv] [--json] [--help]\n"
               "\n"
               "Places the trace's pods one by one on an empty cluster, none leaving (the FGD\n"
               "paper's experiment). A pod that fits nowhere fails; the run goes on to the end.\n"
               "\n"
               "  --cluster SPEC    cluster: an openb node list, a JSON file or a shorthand\n"
               "  --trace FILE      pods, e.g. an openb pod list\n"
               "  --format F        trace format (default: detected)\n"
               "  --scorer NAME     fgd (default), best-fit, first-fit, dot-product, random,\n"
               "                    fgd-k8s (FGD's integer score as the paper's simulator\n"
               "                    computes it, random among ties)\n"
               "  --seed N          seed for --shuffle, --tune and random (default: 1)\n"
               "  --shuffle         pods in a seeded random order (default: trace order)\n"
               "  --tune R          add pods drawn from the trace until the GPUs asked reach\n"
               "                    R x capacity (the paper uses 1.3; default: 0, none)\n"
               "  --popularity PCT  typical pods cover PCT %% of the pods (default: 95)\n"
               "  --out FILE.csv    checkpoints at each 1 %% of capacity asked: pct,tried,placed,\n"
               "                    failed,requested_gpus,allocated_gpus,alloc_ratio,frag_gpus,\n"
               "                    frag_ratio (fragmented / idle GPUs)\n"
               "  --json            print the summary as one JSON object\n");
}

static int parse_ratio(const char *flag, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < lo || v > hi)
        return cli_usage_error("pack", "%s: expected a number from %g to %g, found '%s'", flag, lo,
                               hi, s);
    *out = v;
    return 0;
}

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
    static const struct option longopts[] = {
        {"cluster", required_argument, NULL, 'c'}, {"trace", required_argument, NULL, 't'},
        {"format", required_argument, NULL, 'f'},  {"scorer", required_argument, NULL, 'S'},
        {"seed", required_argument, NULL, 's'},    {"shuffle", no_argument, NULL, 'x'},
        {"tune", required_argument, NULL, 'u'},    {"popularity", required_argument, NULL, 'p'},
        {"out", required_argument, NULL, 'o'},     {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    struct berth_pack_opts o;
    berth_pack_opts_init(&o);
    const char *cluster = NULL, *trace = NULL, *format = NULL, *out = NULL;
    int json = 0, c, rc;
    double v = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            cluster = optarg;
            break;
        case 't':
            trace = optarg;
            break;
        case 'f':
            format = optarg;
            break;
        case 'S':
            o.scorer = optarg;
            break;
        case 's':
            if ((rc = cli_parse_u64("pack", "--seed", optarg, &o.seed)))
                return rc;
            break;
        case 'x':
            o.shuffle = 1;
            break;
        case 'u':
            if ((rc = parse_ratio("--tune", optarg, 0, 100, &o.tune)))
                return rc;
            break;
        case 'p':
            if ((rc = parse_ratio("--popularity", optarg, 1, 100, &v)))
                return rc;
            o.popularity_pct = (int)v;
            break;
        case 'o':
            out = optarg;
            break;
        case 'j':
            json = 1;
            break;
        case 'h':
            pack_usage(stdout);
            return EXIT_OK;
        default:
            return cli_flag_error("pack", "pack", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("pack", "unexpected argument '%s'", argv[optind]);
    if (!cluster || !trace)
        return cli_usage_error("pack", "%s is required (see berth pack --help)",
                               !cluster ? "--cluster SPEC" : "--trace FILE");
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
    struct berth_load_opts lo = {format, 0};
    struct berth_load_report rep;
    rc = berth_cluster_parse(cluster, &cl, &err);
    if (!rc) {
        rc = berth_trace_load_opts(trace, &lo, &rep, &t, &err);
        if (!rc)
            cli_report_load(trace, &rep);
    }
    if (rc) {
        berth_cluster_free(cl);
        return cli_fail(&err);
    }
    struct berth_pack_result r;
    rc = berth_pack_run(t, cl, &o, &r, &err);
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
