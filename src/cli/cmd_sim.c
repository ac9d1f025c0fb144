/* `berth sim`: replay a trace on a cluster under a policy and report what happened. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "berth/report.h"
#include "cli.h"
#include "progress.h"
#include "sim_model_flags.h"

/* --policy-arg KEY=VALUE: appended to the policy's settings string (sched/settings.h) */
static int set_policy_arg(const struct cli_flag *f, void *base, const char *arg,
                          struct berth_err *err)
{
    struct sim_args *a = base;
    (void)f;
    if (!strchr(arg, '='))
        return berth_err_set(err, BERTH_EINPUT, "expected KEY=VALUE, found '%s'", arg);
    size_t n = strlen(a->policy_args);
    if (n + strlen(arg) + 2 > sizeof a->policy_args)
        return berth_err_set(err, BERTH_EINPUT, "the policy's settings: more than %zu bytes",
                             sizeof a->policy_args - 1);
    snprintf(a->policy_args + n, sizeof a->policy_args - n, "%s%s", n ? "," : "", arg);
    a->o.policy_settings = a->policy_args;
    return 0;
}

#define A struct sim_args
static const struct cli_flag sim_flags[] = {
    {"cluster", 0, "SPEC",
     "NxG:type[,NxG:type...] (16x4:v100 = 16 servers with 4 V100 each), Gavel's GPU counts "
     "gavel:V100:P100:K80 (servers of 4), a JSON cluster file (see docs/topology.md), or a "
     "built-in name: "
     "philly (64x8:v100), gavel (gavel:36:36:36, 9x4 each of v100, p100, k80), tiresias "
     "(16x4:v100), and with a topology (docs/topology.md) h100-8r "
     "(64x8:h100,racks=8,blocks=2,nvl=8) and gb200-nvl72 (72x4:gb200,racks=4,nvl=72: four "
     "NVL72 racks)",
     CLI_STR_AT(A, cluster)},
    {"topology", 0, "FILE",
     "a Slurm topology file laid onto the cluster by server name: topology.conf "
     "(topology/tree: leaf switches are racks, their parents blocks; topology/block: base "
     "blocks are racks and NVLink domains) or topology.yaml (Slurm 25.05); it replaces the "
     "cluster's own racks, blocks and NVLink domains, and must name every server (see "
     "docs/topology.md)",
     CLI_STR_AT(A, topology)},
    {"trace", 0, "FILE", "the workload (berth's native CSV, or --format)", CLI_STR_AT(A, trace)},
    {"format", 0, "FMT", "auto (default: from the header) or a name from `berth trace formats`",
     CLI_STR_AT(A, format)},
    {"policy", 0, "NAME", "scheduling policy (default fifo); `berth policies` lists them",
     CLI_STR_AT(A, o.policy)},
    {"policy-arg", 0, "KEY=VALUE",
     "one of the policy's own settings (repeatable; a list's items separated by ':'), as "
     "`berth policies` lists them",
     CLI_SET(set_policy_arg)},
    {"placement", 0, "P",
     "consolidate, spread, best-fit, fgd, blox-scattered, blox-consolidated or topology "
     "(default: the policy's; jobs with a required or preferred topology level or tp > 1 are "
     "placed by topology on a cluster with a topology)",
     CLI_STR_AT(A, o.placement)},
    {"seed", 0, "N", "seed for every random draw (default 1)", CLI_U64_AT(A, o.seed)},
    {"quantum", 0, "S", "time slice of las and salus-fair, in seconds (default 60)",
     CLI_SECS_AT(A, o.quantum_us)},
    {"out", 0, "DIR", "write DIR/jobs.csv, DIR/series.csv and DIR/summary.json",
     CLI_STR_AT(A, out)},
    {"report", 0, "FILE",
     "also write the run's report: one HTML file with its charts (see berth report; - = "
     "stdout)",
     CLI_STR_AT(A, report)},
    {"json", 0, NULL, "print exactly one JSON object on stdout instead of the table",
     CLI_ON_AT(A, json)},
    {"quiet", 'q', NULL, "no progress bar on stderr (there is one only on a terminal)",
     CLI_ON_AT(A, quiet)},
    {"check", 0, NULL, "verify every GPU and job after each pass (slow; for tests)",
     CLI_ON_AT(A, o.check_invariants)},
    {"lenient", 0, NULL,
     "skip bad trace rows (counted per reason on stderr) instead of stopping at the first one",
     CLI_ON_AT(A, lenient)},
    {0},
};
static const struct cli_flag sim_shared_flags[] = {
    {"queues", 0, "FILE",
     "a queues file: quotas, borrowing and cohorts, per-user and per-queue limits, fair-share "
     "shares (see docs/queues.md); the ordering policies enforce it, the trace's queue and user "
     "columns say whose each job is",
     CLI_STR_AT(A, queues)},
    {"time-limit-factor", 0, "F",
     "a job without a time_limit_s of its own gets its run time alone times F as its limit "
     "(backfill reserves by limits; a job is stopped, timed out, at its limit; default: none)",
     CLI_NUM_AT(A, o.time_limit_factor), .lo = 0.001, .hi = 1e6},
    {0},
};
#undef A

static const struct cli_section sim_sections[] = {
    {NULL, sim_flags, 0},
    {"Shared cluster (see docs/queues.md):", sim_shared_flags, 0},
    {SIM_PROGRESS_TITLE, sim_progress_flags, 0},
    {SIM_TIME_TITLE, sim_time_flags, 0},
    {SIM_POOLS_TITLE, sim_pool_flags, 0},
    {0},
};

static const struct cli_spec sim_spec = {
    .cmd = "sim",
    .usage = "sim --cluster SPEC [--topology FILE] --trace FILE [--format FMT] [--policy NAME] "
             "[--policy-arg KEY=VALUE]... [--placement P] "
             "[--seed N] [--quantum S] [--out DIR] [--report FILE] [--json] [--quiet] "
             "[--check] [--lenient]",
    .sections = sim_sections,
    .epilogue = "Exit status: 0 done, 2 bad input (message names FILE:LINE and the column),\n"
                "1 runtime failure, or a run that can make no more progress: nothing runs,\n"
                "nothing is to arrive, and the pending jobs can never start (the message names\n"
                "them, at most 10 of each kind, and why: no server holds them, the placement\n"
                "finds no GPUs for them on the idle cluster, or the policy has started none\n"
                "of them in 2000 h of simulated time with the cluster idle).",
};

int cli_sim_check_flags(const char *const *words, size_t n, struct berth_err *err)
{
    struct sim_args a = {.cluster = NULL};
    berth_sim_opts_init(&a.o);
    char **argv = malloc((n + 2) * sizeof *argv);
    if (!argv)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    argv[0] = "sim";
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = (char *)words[i];
    argv[n + 1] = NULL;
    int nargs = 0, rc = cli_flags_read(&sim_spec, (int)n + 1, argv, &a, &nargs, err);
    if (!rc && nargs)
        rc = berth_err_set(err, BERTH_EINPUT, "unexpected argument '%s'", argv[1]);
    if (rc > 0) /* --help */
        rc = berth_err_set(err, BERTH_EINPUT, "--help is not a flag of a run");
    free(argv);
    return rc;
}

static void print_table(const struct berth_sim_result *r, const struct berth_cluster *c,
                        const char *trace)
{
    const struct berth_sim_summary *s = &r->summary;
    char desc[256];
    berth_cluster_describe(c, desc, sizeof desc);
    printf("berth sim: %s on %s\n", trace, desc);
    printf("policy %s, placement %s, mode %s\n\n", r->policy, r->placement, r->mode);
    printf("  %-18s %zu\n", "jobs", s->jobs);
    printf("  %-18s %zu\n", "completed", s->completed);
    if (s->has_limits)
        printf("  %-18s %zu\n", "timed out", s->timeouts);
    printf("  %-18s %.1f s\n", "avg JCT", s->avg_jct_s);
    printf("  %-18s %.1f s\n", "median JCT", s->median_jct_s);
    printf("  %-18s %.1f s\n", "p95 JCT", s->p95_jct_s);
    printf("  %-18s %.1f s\n", "p99 JCT", s->p99_jct_s);
    printf("  %-18s %.1f s (median %.1f, p99 %.1f)\n", "avg queueing", s->avg_queue_s,
           s->median_queue_s, s->p99_queue_s);
    printf("  %-18s %.1f s (median %.1f, p99 %.1f)\n", "avg waiting", s->avg_wait_s,
           s->median_wait_s, s->p99_wait_s);
    printf("  %-18s %.1f s (%.2f days)\n", "makespan", s->makespan_s, s->makespan_s / 86400);
    printf("  %-18s %.1f %%\n", "GPU utilisation", 100 * s->gpu_util);
    printf("  %-18s %llu (migrations %llu, resizes %llu)\n", "preemptions",
           (unsigned long long)s->preemptions, (unsigned long long)s->migrations,
           (unsigned long long)s->resizes);
    printf("  %-18s %llu (%.1f s restoring checkpoints)\n", "restarts",
           (unsigned long long)s->restarts, s->restart_lost_s);
    printf("  %-18s max %.2f, mean %.2f, Jain %.3f\n", "FTF rho", s->ftf_rho_max, s->ftf_rho_avg,
           s->ftf_jain);
    if (s->has_infer) {
        printf("  %-18s %d servers, %.1f GPU-hours used by inference, %.1f lent to training\n",
               "inference pool", s->infer_servers, s->infer_gpu_hours, s->loaned_gpu_hours);
        printf("  %-18s %.1f %% (training and inference)\n", "cluster usage",
               100 * s->cluster_usage);
        printf("  %-18s %llu lent, %llu reclaimed; inference short %.2f server-hours, reclaim "
               "latency max %.1f s\n",
               "loans", (unsigned long long)s->lends, (unsigned long long)s->reclaims,
               s->infer_short_server_hours, s->reclaim_latency_max_s);
    }
    for (size_t i = 0; i < r->nby_type; i++)
        printf("  %-18s %.1f GPU-hours, %zu jobs, avg JCT %.1f s\n", r->by_type[i].name,
               r->by_type[i].gpu_hours, r->by_type[i].jobs, r->by_type[i].avg_jct_s);
    printf("  %-18s %llu in %llu passes\n", "events", (unsigned long long)s->events,
           (unsigned long long)s->passes);
    printf("  %-18s %.3f s (%.0f events/s)\n", "wall time", s->wall_s,
           s->wall_s > 0 ? (double)s->events / s->wall_s : 0);
}

static int write_outputs(const char *dir, const struct berth_sim_result *r,
                         const struct berth_cluster *c)
{
    struct berth_err err = {0};
    if (berth_write_outputs(dir, r, c, &err)) {
        fprintf(stderr, "berth sim: %s\n", err.msg);
        return EXIT_RUNTIME;
    }
    return 0;
}

int cmd_sim(int argc, char **argv)
{
    struct sim_args a = {.cluster = NULL};
    berth_sim_opts_init(&a.o);
    int nargs, rc = cli_flags_parse(&sim_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs)
        return cli_usage_error("sim", "unexpected argument '%s' (see berth sim --help)", argv[1]);
    if (!a.cluster || !a.trace)
        return cli_usage_error("sim", "%s is required (see berth sim --help)",
                               !a.cluster ? "--cluster SPEC" : "--trace FILE");
    const char *cluster = a.cluster, *trace = a.trace, *format = a.format, *out = a.out;
    int json = a.json, lenient = a.lenient;
    /* names first: a typo should not cost a trace load */
    if (berth_policy_find(a.o.policy) < 0) {
        fprintf(stderr, "berth sim: --policy: unknown policy '%s' (expected one of:", a.o.policy);
        for (size_t i = 0; i < berth_policy_count(); i++)
            fprintf(stderr, "%s %s", i ? "," : "", berth_policy_name(i));
        fprintf(stderr, ")\n");
        return EXIT_BAD_INPUT;
    }
    if (a.o.placement && berth_placement_find(a.o.placement) < 0) {
        char names[256] = "";
        size_t o = 0;
        for (size_t i = 0; i < berth_placement_count() && o < sizeof names; i++)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "",
                                  berth_placement_name(i));
        return cli_usage_error("sim", "--placement: unknown placement '%s' (expected one of: %s)",
                               a.o.placement, names);
    }
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    struct berth_trace *t = NULL;
    rc = berth_cluster_parse(cluster, &c, &err);
    if (!rc && a.topology)
        rc = berth_cluster_load_topology(&c, a.topology, &err);
    struct cli_progress bar;
    cli_progress_start(&bar, "loading", a.quiet || json);
    struct berth_load_opts lo = {.format = format,
                                 .lenient = lenient,
                                 .progress = cli_progress_update,
                                 .progress_ctx = &bar};
    struct berth_load_report rep;
    struct berth_tput *model = NULL;
    if (!rc)
        rc = sim_model_load(&a.ma, &a.o, &model, &err);
    if (!rc) {
        rc = berth_trace_load_opts(trace, &lo, &rep, &t, &err);
        cli_progress_end(&bar);
        cli_report_load(trace, &rep);
    }
    struct berth_queues *queues = NULL;
    if (!rc && a.queues && !(rc = berth_queues_load(a.queues, c, &queues, &err)))
        a.o.queues = queues;
    if (rc) {
        berth_trace_free(t);
        berth_tput_free(model);
        berth_infer_free(a.ma.infer);
        berth_topo_model_free(a.ma.topo);
        berth_cluster_free(c);
        return cli_fail(&err);
    }
    if (out && mkdir(out, 0777) && errno != EEXIST) {
        fprintf(stderr, "berth sim: --out %s: cannot create the folder: %s\n", out,
                strerror(errno));
        berth_trace_free(t);
        berth_cluster_free(c);
        berth_tput_free(model);
        berth_infer_free(a.ma.infer);
        berth_topo_model_free(a.ma.topo);
        berth_queues_free(queues);
        return EXIT_BAD_INPUT;
    }
    if (out && access(out, W_OK)) {
        fprintf(stderr, "berth sim: --out %s: cannot write there: %s\n", out, strerror(errno));
        berth_trace_free(t);
        berth_cluster_free(c);
        berth_tput_free(model);
        berth_infer_free(a.ma.infer);
        berth_topo_model_free(a.ma.topo);
        berth_queues_free(queues);
        return EXIT_BAD_INPUT;
    }
    a.o.record_series = out != NULL || a.report != NULL;
    struct berth_sim_result r;
    cli_progress_start(&bar, "simulating", a.quiet || json);
    a.o.progress = cli_progress_update;
    a.o.progress_ctx = &bar;
    rc = berth_sim_run(t, c, &a.o, &r, &err);
    cli_progress_end(&bar);
    int code = EXIT_OK;
    if (rc) {
        code = cli_fail(&err);
    } else {
        if (out)
            code = write_outputs(out, &r, c);
        if (a.report && code == EXIT_OK) {
            struct berth_run *run = NULL;
            if (berth_run_of_result(&r, NULL, &run, &err))
                code = cli_fail(&err);
            else
                code = cli_report_write("sim", &run, 1, a.report, NULL, NULL);
            berth_run_free(run);
        }
        if (json) {
            char *js = berth_summary_json(&r, 1);
            if (js)
                printf("%s\n", js);
            else
                code = EXIT_RUNTIME;
            free(js);
        } else {
            print_table(&r, c, trace);
        }
        berth_sim_result_free(&r);
    }
    berth_trace_free(t);
    berth_cluster_free(c);
    berth_tput_free(model);
    berth_infer_free(a.ma.infer);
    berth_topo_model_free(a.ma.topo);
    berth_queues_free(queues);
    return code;
}
