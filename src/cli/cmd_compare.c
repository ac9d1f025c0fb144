/* `berth compare`: the tournament. Every applicable policy (or the ones named) runs on the
 * user's trace and cluster over seeds (each seed a bootstrap resample of the trace by
 * default), is ranked on the metric the user names, tested against the best, and one is
 * recommended with the reason. It is a sweep (sweep_run.h) of a grid it writes itself. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "berth/report.h"
#include "cli.h"
#include "flags.h"
#include "sweep_run.h"

struct compare_args {
    const char *cluster, *trace, *policies, *metric, *resample, *out, *report;
    uint64_t seeds, jobs;
    double alpha;
    int json, quiet;
};

#define A struct compare_args
static const struct cli_flag compare_flags[] = {
    {"cluster", 0, "SPEC", "the cluster, as berth sim takes it (required)", CLI_STR_AT(A, cluster),
     .bits = CLI_ONCE},
    {"trace", 0, "FILE", "your workload, any format berth sim reads (required)",
     CLI_STR_AT(A, trace), .bits = CLI_ONCE},
    {"policies", 0, "LIST",
     "the policies to run, comma-separated (default: every policy; those that cannot run "
     "this trace are listed as not applicable, with the reason)",
     CLI_STR_AT(A, policies), .bits = CLI_ONCE},
    {"metric", 'm', "M",
     "what to rank on: avg-jct (default), median-jct, p95-jct, p99-jct, avg-wait, "
     "p99-wait, makespan, util, fairness (the worst job's rho), mean-rho, jain, preemptions",
     CLI_STR_AT(A, metric), .bits = CLI_ONCE},
    {"seeds", 0, "N", "seeds 1..N, each a resample of the trace (default 5)", CLI_U64_AT(A, seeds),
     .lo = 1, .hi = 1000, .bits = CLI_ONCE},
    {"resample", 0, "R",
     "how a seed varies the trace: bootstrap (default: as many jobs, drawn with "
     "replacement), none (the trace as it is; seeds then change the policies' own draws "
     "only), or a fraction in (0, 1] of the jobs",
     CLI_STR_AT(A, resample), .bits = CLI_ONCE},
    {"alpha", 0, "A", "the significance level (default 0.05)", CLI_NUM_AT(A, alpha), .lo = 1e-6,
     .hi = 0.5, .bits = CLI_ONCE},
    {"jobs", 'j', "N", "runs at once (default: this machine's CPUs)", CLI_U64_AT(A, jobs), .lo = 1,
     .hi = 1024, .bits = CLI_ONCE},
    {"out", 'o', "DIR",
     "keep the runs there, as berth sweep does (and resume from it); default: a temporary "
     "folder, removed at the end",
     CLI_STR_AT(A, out), .bits = CLI_ONCE},
    {"report", 0, "FILE", "also write the ranking and its charts as one HTML file",
     CLI_STR_AT(A, report), .bits = CLI_ONCE},
    {"json", 0, NULL, "print the ranking as one JSON object on stdout", CLI_ON_AT(A, json)},
    {"quiet", 'q', NULL, "no progress bar on stderr (there is one only on a terminal)",
     CLI_ON_AT(A, quiet)},
    CLI_HELP_FLAG,
    {0},
};
#undef A

static const struct cli_section compare_sections[] = {{NULL, compare_flags, 0}, {0}};

static const struct cli_spec compare_spec = {
    .cmd = "compare",
    .usage = "compare --cluster SPEC --trace FILE [--policies LIST] [--metric M] [--seeds N] "
             "[--resample R] [--alpha A] [-j N] [--out DIR] [--report FILE] [--json] [--quiet] "
             "[--help] [-- SIM FLAGS...]",
    .about = "Runs the policies on your trace and cluster over seeds, ranks them on the\n"
             "metric, tests each against the best (paired t-test over the seeds, Holm's\n"
             "correction) and recommends one, saying why: the best, or, among the policies\n"
             "not significantly worse and within 5 % of its mean, the one that preempts,\n"
             "migrates and resizes jobs the least. Words after -- are berth sim flags for every "
             "run (a restart cost, a\n"
             "time mode).",
    .sections = compare_sections,
    .epilogue = "Exit status: 0 a policy recommended, 1 none could run, 2 bad input.",
};

/* s as one grid word: quoted when it needs it; 0, or -1 when it cannot be */
static int grid_word(char *b, size_t len, const char *s)
{
    int dq = strchr(s, '"') != NULL, sq = strchr(s, '\'') != NULL;
    if (dq && sq)
        return -1;
    int n = snprintf(b, len, "%c%s%c", dq ? '\'' : '"', s, dq ? '\'' : '"');
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Removes the folder the comparison made (cells/, traces/, slurm/ and its files). */
static void rm_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[PATH_MAX];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (!lstat(p, &st) && S_ISDIR(st.st_mode) && depth > 0)
            rm_tree(p, depth - 1);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static int copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = a ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t n;
    int bad = !a || !b;
    while (!bad && (n = fread(buf, 1, sizeof buf, a)) > 0)
        bad = fwrite(buf, 1, n, b) != n;
    if (a)
        fclose(a);
    if (b && fclose(b))
        bad = 1;
    return bad ? -1 : 0;
}

/* The grid of the comparison, written to DIR/grid.txt. */
static int write_grid(const struct compare_args *a, char **sim, int nsim, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    char w[PATH_MAX + 8];
    fprintf(f, "# written by berth compare\npolicy");
    if (a->policies) {
        char *list = strdup(a->policies), *save = NULL;
        for (char *p = list ? strtok_r(list, ",", &save) : NULL; p; p = strtok_r(NULL, ",", &save))
            fprintf(f, " %s", p);
        free(list);
    } else {
        for (size_t i = 0; i < berth_policy_count(); i++)
            fprintf(f, " %s", berth_policy_name(i));
    }
    int bad = grid_word(w, sizeof w, a->cluster);
    fprintf(f, "\ncluster %s\n", w);
    char real[PATH_MAX];
    bad |= grid_word(w, sizeof w, realpath(a->trace, real) ? real : a->trace);
    fprintf(f, "trace %s\nseed 1-%llu\nresample %s\n", w, (unsigned long long)a->seeds,
            a->resample ? a->resample : "bootstrap");
    if (nsim) {
        fprintf(f, "sim");
        for (int i = 0; i < nsim; i++) {
            bad |= grid_word(w, sizeof w, sim[i]);
            fprintf(f, " %s", w);
        }
        fputc('\n', f);
    }
    bad |= ferror(f);
    return fclose(f) || bad ? -1 : 0;
}

int cmd_compare(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    struct compare_args a = {.seeds = 5, .alpha = 0.05, .jobs = cpus > 0 ? (uint64_t)cpus : 1};
    int nargs, rc = cli_flags_parse(&compare_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (!a.cluster || !a.trace)
        return cli_usage_error("compare", "%s is required (see berth compare --help)",
                               !a.cluster ? "--cluster SPEC" : "--trace FILE");
    int metric = berth_metric_find(a.metric ? a.metric : "avg-jct");
    if (metric < 0)
        return cli_usage_error("compare",
                               "--metric: unknown metric '%s' (expected avg-jct, median-jct, "
                               "p95-jct, p99-jct, avg-wait, p99-wait, makespan, util, fairness, "
                               "mean-rho, jain or preemptions) (see berth compare --help)",
                               a.metric);
    if (a.policies) {
        char *list = strdup(a.policies), *save = NULL;
        int bad = !list;
        for (char *p = list ? strtok_r(list, ",", &save) : NULL; p && !bad;
             p = strtok_r(NULL, ",", &save))
            if (berth_policy_find(p) < 0) {
                cli_usage_error("compare",
                                "--policies: unknown policy '%s' (berth policies "
                                "lists them) (see berth compare --help)",
                                p);
                bad = 2;
            }
        free(list);
        if (bad)
            return bad == 2 ? EXIT_BAD_INPUT : EXIT_RUNTIME;
    }
    char tmp[PATH_MAX] = "";
    const char *out = a.out;
    if (!out) {
        const char *t = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/berth-compare-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmp)) {
            fprintf(stderr, "berth compare: cannot make a temporary folder: %s\n", strerror(errno));
            return EXIT_RUNTIME;
        }
        out = tmp;
    } else if (mkdir(out, 0777) && errno != EEXIST) {
        fprintf(stderr, "berth compare: --out %s: cannot create the folder: %s\n", out,
                strerror(errno));
        return EXIT_BAD_INPUT;
    }
    char grid[PATH_MAX + 16];
    snprintf(grid, sizeof grid, "%s/grid.txt", out);
    if (write_grid(&a, argv + 1, nargs, grid)) {
        fprintf(stderr,
                "berth compare: %s: cannot write the comparison's grid (a quote in "
                "a name?)\n",
                grid);
        if (tmp[0])
            rm_tree(tmp, 3);
        return EXIT_RUNTIME;
    }
    struct sweep_ctx x = {.cmd = "compare", .jobs = (int)a.jobs, .quiet = a.quiet || a.json};
    rc = sweep_open(&x, grid, out);
    if (!rc)
        rc = sweep_inputs(&x);
    if (!rc)
        rc = sweep_run_local(&x);
    struct berth_err err = {0};
    struct berth_sweep_table *t = NULL;
    struct berth_ranking *r = NULL;
    if (rc == 0 || rc == 1) {
        rc = EXIT_OK;
        char title[PATH_MAX + 64];
        snprintf(title, sizeof title, "berth compare: %s on %s", a.trace, a.cluster);
        if (berth_sweep_table_load(x.g, x.out, 1, &t, &err) ||
            berth_compare_rank(t, metric, a.alpha, &r, &err) ||
            berth_sweep_table_write(t, x.out, title, r, &err))
            rc = cli_fail(&err);
    }
    if (!rc && a.report) {
        char from[PATH_MAX + 16];
        snprintf(from, sizeof from, "%s/report.html", x.out);
        if (copy_file(from, a.report)) {
            fprintf(stderr, "berth compare: --report %s: cannot write: %s\n", a.report,
                    strerror(errno));
            rc = EXIT_RUNTIME;
        }
    }
    if (!rc) {
        if (a.json) {
            char *js = berth_ranking_json(r);
            if (js)
                printf("%s\n", js);
            else
                rc = EXIT_RUNTIME;
            free(js);
        } else {
            printf("berth compare: %s on %s, %llu seeds (%s), ranked on %s\n\n", a.trace, a.cluster,
                   (unsigned long long)a.seeds, a.resample ? a.resample : "bootstrap",
                   berth_metric(metric)->name);
            berth_ranking_print(r, stdout);
        }
        if (!rc && !berth_ranking_winner(r)[0])
            rc = 1;
    }
    berth_ranking_free(r);
    berth_sweep_table_free(t);
    sweep_close(&x);
    if (tmp[0])
        rm_tree(tmp, 3);
    return rc;
}
