/* `berth fidelity`: how much each modelling choice moves a result. Runs a trace first as a
 * peer simulator would (the peer-exact preset, --mode tiresias, gavel or blox), then turns
 * berth's deliberate differences on one at a time, each rung keeping the ones before, up
 * to berth's own default (des time) and one step past it (restart costs), and prints the
 * ladder: avg, median and p99 JCT, makespan and utilisation at each rung, with the change
 * from the rung before. A rung whose switch the policy does not have is left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sim_model_flags.h"

struct fid_args {
    const char *cluster, *trace, *format, *family, *policy, *throughputs;
    uint64_t seed;
    int json;
};

#define A struct fid_args
static const struct cli_flag fid_flags[] = {
    {"cluster", 0, "SPEC", "the cluster, as berth sim --cluster takes it", CLI_STR_AT(A, cluster)},
    {"trace", 0, "FILE", "the workload (berth's native CSV, or --format)", CLI_STR_AT(A, trace)},
    {"format", 0, "FMT", "auto (default: from the header) or a name from `berth trace formats`",
     CLI_STR_AT(A, format)},
    {"family", 0, "PEER", "tiresias, gavel or blox: whose simulator the first rung reproduces",
     CLI_STR_AT(A, family)},
    {"policy", 0, "NAME",
     "the policy (default tiresias-dlas-gpu, gavel-fifo or blox-las, by family)",
     CLI_STR_AT(A, policy)},
    {"throughputs", 0, "FILE", "Gavel's throughput file (default: the built-in catalog)",
     CLI_STR_AT(A, throughputs)},
    {"seed", 0, "N", "seed for every random draw (default 1)", CLI_U64_AT(A, seed)},
    {"json", 0, NULL, "print one JSON object on stdout instead of the table", CLI_ON_AT(A, json)},
    {0},
};
#undef A

static const struct cli_section fid_sections[] = {{NULL, fid_flags, 0}, {0}};

static const struct cli_spec fid_spec = {
    .cmd = "fidelity",
    .usage = "fidelity --cluster SPEC --trace FILE --family tiresias|gavel|blox [--policy NAME] "
             "[--format FMT] [--throughputs FILE] [--seed N] [--json]",
    .about = "Runs the trace as the peer's simulator does (its preset), then applies berth's "
             "differences one at a time up to berth's default, and prints each rung's JCT, "
             "makespan and utilisation with the change from the rung before.",
    .sections = fid_sections,
    .epilogue = "Exit status: 0 done, 2 bad input, 1 runtime failure.",
};

/* What a rung changes in the options (on top of the rungs before). */
enum change {
    PEER,      /* the peer's preset: --mode */
    SET,       /* a policy setting (skipped when the policy lacks it) */
    SPREAD,    /* measured spread rates */
    WAIT,      /* consolidate-or-wait */
    STEPS,     /* progress by steps, spread rates still off */
    FLAT_OFF,  /* progress by the allocation */
    JCT_OFF,   /* finishes recorded when the work ends */
    WHOLE_OFF, /* progress not cut to whole steps per round */
    PLACEMENT, /* the policy's own placement */
    DES,       /* exact time: berth's default */
    RESTART,   /* Helios' restart costs */
};

struct rung {
    const char *family;
    enum change what;
    const char *name, *arg; /* arg: the setting KEY=VALUE (SET) */
};

static const struct rung rungs[] = {
    {"tiresias", PEER, "Tiresias as shipped (--mode tiresias)", NULL},
    {"tiresias", SET, "exact demotion instant", "exact_demotion=1"},
    {"tiresias", STEPS, "progress by steps (--progress steps)", NULL},
    {"tiresias", SPREAD, "measured spread rates (--spread-rates measured)", NULL},
    /* with it, every switch of --mode tiresias is off: berth's default (--mode des) */
    {"tiresias", WAIT, "consolidate-or-wait, berth's default (--mode des)", NULL},
    {"tiresias", RESTART, "restart costs (--restart-cost helios)", NULL},
    {"gavel", PEER, "Gavel as shipped (--mode gavel)", NULL},
    {"gavel", SET, "reset interval from time 0 too", "zero_reset=0"},
    {"gavel", SET, "time received = time held", "exec_time=0"},
    {"gavel", WHOLE_OFF, "fractional steps per round (--whole-steps off)", NULL},
    {"gavel", SET, "no half-round credit", "half_credit=0"},
    {"gavel", SET, "capacity-checked type choice", "fastest_type=1"},
    {"gavel", SET, "idle filling", "fill=1"},
    {"gavel", SPREAD, "measured spread rates (--spread-rates measured)", NULL},
    {"gavel", WAIT, "consolidate-or-wait (--spread-wait on)", NULL},
    {"gavel", DES, "exact time, berth's default (--mode des)", NULL},
    {"gavel", RESTART, "restart costs (--restart-cost helios)", NULL},
    {"blox", PEER, "Blox as shipped (--mode blox)", NULL},
    {"blox", PLACEMENT, "real placement (--placement: the policy's)", NULL},
    {"blox", FLAT_OFF, "progress by allocation (--flat-progress off)", NULL},
    {"blox", JCT_OFF, "exact finish times (--round-jct off)", NULL},
    {"blox", WAIT, "consolidate-or-wait (--spread-wait on)", NULL},
    {"blox", DES, "exact time, berth's default (--mode des)", NULL},
    {"blox", RESTART, "restart costs (--restart-cost helios)", NULL},
};
#define NRUNGS (sizeof rungs / sizeof *rungs)

struct result {
    const struct rung *r;
    char label[160];
    struct berth_sim_summary s;
};

/* Whether policy pi has the setting that KEY=VALUE names. */
static int has_setting(size_t pi, const char *kv)
{
    size_t klen = strcspn(kv, "=");
    for (size_t k = 0; k < berth_policy_setting_count(pi); k++) {
        const char *key = berth_policy_setting_key(pi, k);
        if (strlen(key) == klen && !strncmp(key, kv, klen))
            return 1;
    }
    return 0;
}

static double change_pct(double now, double before)
{
    return before != 0 ? 100.0 * (now - before) / before : 0;
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

static void print_json(const struct fid_args *a, const char *policy, const struct result *res,
                       size_t n)
{
    printf("{\"trace\": ");
    json_str(a->trace);
    printf(", \"cluster\": ");
    json_str(a->cluster);
    printf(", \"family\": ");
    json_str(a->family);
    printf(", \"policy\": ");
    json_str(policy);
    printf(", \"rungs\": [");
    for (size_t i = 0; i < n; i++) {
        const struct berth_sim_summary *s = &res[i].s, *b = i ? &res[i - 1].s : s;
        printf("%s{\"rung\": %zu, \"change\": ", i ? ", " : "", i);
        json_str(res[i].label);
        printf(", \"avg_jct_s\": %.6g, \"median_jct_s\": %.6g, \"p99_jct_s\": %.6g, "
               "\"makespan_s\": %.6g, \"gpu_util\": %.6g, \"avg_jct_change_pct\": %.4g, "
               "\"makespan_change_pct\": %.4g}",
               s->avg_jct_s, s->median_jct_s, s->p99_jct_s, s->makespan_s, s->gpu_util,
               change_pct(s->avg_jct_s, b->avg_jct_s), change_pct(s->makespan_s, b->makespan_s));
    }
    printf("]}\n");
}

static void print_table(const struct fid_args *a, const char *policy, const struct result *res,
                        size_t n)
{
    char buf[512];
    printf("berth fidelity: %s", cli_clean(a->trace, buf, sizeof buf));
    printf(" on %s, policy %s\n\n", cli_clean(a->cluster, buf, sizeof buf), policy);
    printf("  %-4s %-58s %12s %12s %12s %12s %6s %9s\n", "rung", "change", "avg JCT s",
           "median JCT s", "p99 JCT s", "makespan s", "util", "avg JCT");
    for (size_t i = 0; i < n; i++) {
        const struct berth_sim_summary *s = &res[i].s;
        char d[32] = "";
        if (i)
            snprintf(d, sizeof d, "%+.1f %%", change_pct(s->avg_jct_s, res[i - 1].s.avg_jct_s));
        printf("  %-4zu %-58s %12.1f %12.1f %12.1f %12.1f %5.1f%% %9s\n", i, res[i].label,
               s->avg_jct_s, s->median_jct_s, s->p99_jct_s, s->makespan_s, 100 * s->gpu_util, d);
    }
}

/* Applies rung r to o (settings accumulate in set, a comma list). 0, or 1 to skip it. */
static int apply(const struct rung *r, size_t pi, struct berth_sim_opts *o, char *set,
                 size_t setlen)
{
    size_t n = strlen(set);
    switch (r->what) {
    case PEER:
        o->mode = berth_sim_mode_find(r->family);
        break;
    case SET:
        if (!has_setting(pi, r->arg))
            return 1;
        snprintf(set + n, setlen - n, "%s%s", n ? "," : "", r->arg);
        o->policy_settings = set;
        break;
    case STEPS:
        o->fixed_speed = 0;
        o->spread_rates = 0;
        break;
    case SPREAD:
        o->spread_rates = 1;
        break;
    case WAIT:
        o->spread_wait = 1;
        break;
    case FLAT_OFF:
        o->flat_progress = 0;
        break;
    case JCT_OFF:
        o->round_jct = 0;
        break;
    case WHOLE_OFF:
        o->whole_steps = 0;
        break;
    case PLACEMENT:
        o->placement = berth_policy_default_placement(pi);
        break;
    case DES:
        o->mode = BERTH_MODE_DES;
        o->round_jct = o->flat_progress = o->round_early_end = o->whole_steps = -1;
        break;
    case RESTART:
        o->restart_tiers = BERTH_RESTART_HELIOS;
        break;
    }
    return 0;
}

int cmd_fidelity(int argc, char **argv)
{
    struct fid_args a = {.seed = 1};
    int nargs, rc = cli_flags_parse(&fid_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs)
        return cli_usage_error("fidelity", "unexpected argument '%s'", argv[1]);
    if (!a.cluster || !a.trace || !a.family)
        return cli_usage_error("fidelity", "%s is required (see berth fidelity --help)",
                               !a.cluster ? "--cluster SPEC"
                               : !a.trace ? "--trace FILE"
                                          : "--family PEER");
    const char *dflt = !strcmp(a.family, "tiresias") ? "tiresias-dlas-gpu"
                       : !strcmp(a.family, "gavel")  ? "gavel-fifo"
                       : !strcmp(a.family, "blox")   ? "blox-las"
                                                     : NULL;
    if (!dflt)
        return cli_usage_error("fidelity", "--family: expected tiresias, gavel or blox, found '%s'",
                               a.family);
    const char *policy = a.policy ? a.policy : dflt;
    int pi = berth_policy_find(policy);
    if (pi < 0)
        return cli_usage_error("fidelity",
                               "--policy: unknown policy '%s' (berth policies lists "
                               "them)",
                               policy);
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    struct berth_trace *t = NULL;
    struct berth_tput *model = NULL;
    struct sim_model_args ma = {.throughputs = a.throughputs};
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = policy;
    o.seed = a.seed;
    struct berth_load_opts lo = {.format = a.format};
    struct berth_load_report rep;
    rc = berth_cluster_parse(a.cluster, &c, &err);
    if (!rc)
        rc = sim_model_load(&ma, &o, &model, &err);
    if (!rc) {
        rc = berth_trace_load_opts(a.trace, &lo, &rep, &t, &err);
        cli_report_load(a.trace, &rep);
    }
    struct result res[NRUNGS];
    size_t n = 0;
    char set[256] = "";
    for (size_t i = 0; !rc && i < NRUNGS; i++) {
        if (strcmp(rungs[i].family, a.family) || apply(&rungs[i], (size_t)pi, &o, set, sizeof set))
            continue;
        struct berth_sim_result r;
        if ((rc = berth_sim_run(t, c, &o, &r, &err)))
            break;
        res[n].r = &rungs[i];
        if (rungs[i].what == SET)
            snprintf(res[n].label, sizeof res[n].label, "%s (--policy-arg %s)", rungs[i].name,
                     rungs[i].arg);
        else
            snprintf(res[n].label, sizeof res[n].label, "%s", rungs[i].name);
        res[n++].s = r.summary;
        berth_sim_result_free(&r);
    }
    int code = rc ? cli_fail(&err) : EXIT_OK;
    if (!rc && a.json)
        print_json(&a, policy, res, n);
    else if (!rc)
        print_table(&a, policy, res, n);
    berth_trace_free(t);
    berth_cluster_free(c);
    berth_tput_free(model);
    return code;
}
