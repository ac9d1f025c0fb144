/* berth trace: the command-line face of include/berth/trace_tools.h. Looks at a trace
 * (stats), rewrites it as native CSV (convert), cuts it (slice) and lists the formats. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/trace_tools.h"
#include "cli.h"
#include "cmd_trace.h"
#include "flags.h"
#include "progress.h"

struct names {
    char **v;
    size_t n, cap;
};

struct opts {
    const char *cmd; /* "trace stats", for messages */
    const char *format;
    int lenient, json, rebase, bootstrap, quiet;
    uint64_t top, count, seed;
    berth_us from, to;
    double sample;
    struct names queues, users;
    char *pos[2];
};

static void names_free(struct names *n)
{
    for (size_t i = 0; i < n->n; i++)
        free(n->v[i]);
    free(n->v);
}

/* Adds the names of a comma list: --queue, --user (at: their struct names). */
static int set_names(const struct cli_flag *f, void *base, const char *list, struct berth_err *err)
{
    struct names *n = (struct names *)((char *)base + f->at);
    size_t before = n->n;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len) {
            if (n->n == n->cap) {
                size_t cap = n->cap * 2 + 4;
                char **v = realloc(n->v, cap * sizeof *v);
                if (!v)
                    return berth_err_set(err, BERTH_ENOMEM, "out of memory");
                n->v = v;
                n->cap = cap;
            }
            char *s = malloc(len + 1);
            if (!s)
                return berth_err_set(err, BERTH_ENOMEM, "out of memory");
            memcpy(s, p, len);
            s[len] = '\0';
            n->v[n->n++] = s;
        }
        p += len + (p[len] == ',');
    }
    if (n->n == before)
        return berth_err_set(err, BERTH_EINPUT,
                             "expected a name (or a comma list of names), found '%s'", list);
    return 0;
}

/* --from, --to (at: their berth_us). */
static int set_time(const struct cli_flag *f, void *base, const char *s, struct berth_err *err)
{
    if (berth_parse_seconds(s, (berth_us *)((char *)base + f->at)))
        return berth_err_set(err, BERTH_EINPUT, "expected a number of seconds, found '%s'", s);
    return 0;
}

static int set_sample(const struct cli_flag *f, void *base, const char *s, struct berth_err *err)
{
    struct opts *o = base;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    (void)f;
    if (!*s || *end || errno || !isfinite(v) || !(v > 0) || v > 1)
        return berth_err_set(err, BERTH_EINPUT, "expected a fraction in (0, 1], found '%s'", s);
    o->sample = v;
    return 0;
}

/* The subcommands: the variants of the flag table (V_READ: those that read a trace). */
enum { V_STATS = 1, V_CONVERT = 2, V_SLICE = 4, V_FORMATS = 8, V_READ = 7 };

#define O struct opts
static const struct cli_flag trace_flags[] = {
    {"format", 0, "F",
     "the input's format: auto (default: from the header), or a name from 'berth trace "
     "formats'",
     CLI_STR_AT(O, format), .only = V_READ},
    {"lenient", 0, NULL,
     "skip bad rows (counted per reason on stderr) instead of stopping at the first one",
     CLI_ON_AT(O, lenient), .only = V_READ},
    {"json", 0, NULL, "stats: print one JSON object (every queue and user) instead of the table",
     CLI_ON_AT(O, json), .only = V_STATS},
    {"top", 0, "N", "stats: queues and users the table shows, 0 = all (default: 20)",
     CLI_U64_AT(O, top), .only = V_STATS},
    {"from", 0, "S", "slice: keep jobs arriving at or after S seconds (the trace's time)",
     CLI_SET(set_time), .at = CLI_AT(O, from, berth_us), .only = V_SLICE},
    {"to", 0, "S", "slice: keep jobs arriving before S seconds", CLI_SET(set_time),
     .at = CLI_AT(O, to, berth_us), .only = V_SLICE},
    {"queue", 0, "Q",
     "slice: keep jobs of queue (virtual cluster) Q; repeat the flag or give a comma list for "
     "several",
     CLI_SET(set_names), .at = CLI_AT(O, queues, struct names), .only = V_SLICE},
    {"user", 0, "U", "slice: keep jobs of user U; repeatable, comma lists", CLI_SET(set_names),
     .at = CLI_AT(O, users, struct names), .only = V_SLICE},
    {"sample", 0, "FRAC",
     "slice: keep a seeded sample of round(FRAC x matched) jobs,\n0 < FRAC <= 1",
     CLI_SET(set_sample), .only = V_SLICE},
    {"count", 0, "N", "slice: keep a seeded sample of N jobs (all when fewer match)",
     CLI_U64_AT(O, count), .lo = 1, .only = V_SLICE},
    {"seed", 0, "N", "slice: seed of the sample, a whole number >= 0 (default: 1)",
     CLI_U64_AT(O, seed), .only = V_SLICE},
    {"rebase", 0, NULL, "slice: shift arrivals so the first kept job arrives at 0",
     CLI_ON_AT(O, rebase), .only = V_SLICE},
    {"bootstrap", 0, NULL,
     "slice: draw the jobs with replacement (as many as kept, or --sample / --count of them): "
     "a seeded resample of the same load; the k-th copy of a job is named ID#k",
     CLI_ON_AT(O, bootstrap), .only = V_SLICE},
    {"quiet", 'q', NULL, "convert: no progress bar on stderr (there is one only on a terminal)",
     CLI_ON_AT(O, quiet), .only = V_CONVERT},
    CLI_HELP_FLAG,
    {0},
};
#undef O

static const struct cli_section trace_sections[] = {{NULL, trace_flags, 0}, {0}};

static const struct cli_spec trace_spec = {
    .cmd = "trace",
    .usage = "trace stats FILE [--format F] [--lenient] [--json] [--top N]\n"
             "trace convert IN OUT [--format F] [--lenient] [--quiet]\n"
             "trace slice IN OUT [--format F] [--lenient] [--from S] [--to S] [--queue Q] "
             "[--user U] [--sample FRACTION | --count N] [--seed N] [--rebase] [--bootstrap]\n"
             "trace formats",
    .about = "  stats    summary of a trace: jobs, GPUs per job, durations (min, median, p90, "
             "p99, max, mean; numpy-style percentiles), GPU-hours, arrival span, jobs per queue "
             "and per user\n"
             "  convert  rewrite a trace as berth's native CSV (OUT - = standard output)\n"
             "  slice    keep the jobs of a time window, queues, users and/or a seeded sample, "
             "in file order, as native CSV (OUT - = standard output)\n"
             "  formats  list the trace formats, one a line",
    .sections = trace_sections,
    .epilogue = "Exit status: 0 done, 2 bad input (message names FILE:LINE and the column),\n"
                "1 runtime failure (such as a failed write).",
};

/* Parses the flags of one subcommand (argv[0] = its name, variant its bit) into o, and
 * exactly npos positional arguments. Returns 0, -1 (--help shown) or an exit code. */
static int parse(int argc, char **argv, unsigned variant, int npos, const char *posnames,
                 struct opts *o)
{
    struct cli_spec spec = trace_spec;
    spec.cmd = o->cmd;
    spec.help_cmd = "trace";
    spec.variant = variant;
    const char *cmd = o->cmd;
    int nargs, rc = cli_flags_parse(&spec, argc, argv, o, &nargs);
    if (rc == EXIT_OK)
        return -1;
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs > npos)
        return cli_usage_error(cmd, "unexpected argument '%s' (see berth trace --help)",
                               argv[1 + npos]);
    if (nargs < npos)
        return cli_usage_error(cmd, "expected %s (see berth trace --help)", posnames);
    for (int i = 0; i < npos; i++)
        o->pos[i] = argv[1 + i];
    if (o->sample > 0 && o->count)
        return cli_usage_error(cmd, "--sample and --count: expected one of them, found both");
    return 0;
}

static int load(const struct opts *o, const char *path, struct berth_trace **t, int bar_on)
{
    struct cli_progress bar;
    cli_progress_start(&bar, "loading", !bar_on || o->quiet);
    struct berth_load_opts lo = {.format = o->format,
                                 .lenient = o->lenient,
                                 .progress = cli_progress_update,
                                 .progress_ctx = &bar};
    struct berth_load_report rep;
    struct berth_err err = {0};
    int rc = berth_trace_load_opts(path, &lo, &rep, t, &err);
    cli_progress_end(&bar);
    cli_report_load(path, &rep);
    return rc ? cli_fail(&err) : 0;
}

/* Writes t as native CSV to path ("-" = standard output). */
static int write_native(const char *path, const struct berth_trace *t)
{
    struct berth_err err = {0};
    int to_stdout = !strcmp(path, "-");
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        berth_err_set(&err, BERTH_EIO, "%s: cannot open for writing: %s", path, strerror(errno));
        return cli_fail(&err);
    }
    int rc = berth_trace_write_native(f, berth_trace_jobs(t), berth_trace_count(t), &err);
    int bad = rc || ferror(f);
    int closed = to_stdout ? fflush(f) : fclose(f);
    if (bad || closed) { /* a failed write (disk full) is a runtime failure, not bad input */
        fprintf(stderr, "berth: %s: write error: %s\n", to_stdout ? "standard output" : path,
                strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

static int run_stats(struct opts *o)
{
    struct berth_trace *t = NULL;
    int rc = load(o, o->pos[0], &t, 0);
    if (rc)
        return rc;
    struct berth_err err = {0};
    struct berth_trace_stats s;
    if (berth_trace_stats(t, &s, &err)) {
        berth_trace_free(t);
        return cli_fail(&err);
    }
    berth_trace_free(t);
    rc = EXIT_OK;
    if (o->json) {
        char *js = berth_trace_stats_json(&s, o->pos[0], 0);
        if (js)
            printf("%s\n", js);
        else
            rc = EXIT_RUNTIME;
        free(js);
    } else if (berth_trace_stats_print(stdout, &s, o->pos[0], (size_t)o->top)) {
        rc = EXIT_RUNTIME;
    }
    berth_trace_stats_free(&s);
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "berth: standard output: write error: %s\n", strerror(errno));
        rc = EXIT_RUNTIME;
    }
    return rc;
}

static int run_convert(struct opts *o)
{
    struct berth_trace *t = NULL;
    int rc = load(o, o->pos[0], &t, 1);
    if (rc)
        return rc;
    rc = write_native(o->pos[1], t);
    berth_trace_free(t);
    return rc;
}

static int run_slice(struct opts *o)
{
    struct berth_slice_opts so;
    berth_slice_opts_init(&so);
    so.from_us = o->from;
    so.to_us = o->to;
    so.queues = (const char *const *)o->queues.v;
    so.nqueues = o->queues.n;
    so.users = (const char *const *)o->users.v;
    so.nusers = o->users.n;
    so.fraction = o->sample;
    so.count = o->count > SIZE_MAX ? SIZE_MAX : (size_t)o->count;
    so.seed = o->seed;
    so.rebase = o->rebase;
    so.bootstrap = o->bootstrap;
    struct berth_trace *t = NULL, *s = NULL;
    struct berth_err err = {0};
    /* option conflicts first: a bad flag should not cost a trace load */
    if (so.from_us != BERTH_TIME_NONE && so.to_us != BERTH_TIME_NONE && so.to_us <= so.from_us)
        return cli_usage_error(o->cmd, "--to: expected a time after --from");
    int rc = load(o, o->pos[0], &t, 0);
    if (rc)
        return rc;
    if (berth_trace_slice(t, &so, &s, &err)) {
        berth_trace_free(t);
        return cli_fail(&err);
    }
    fprintf(stderr, "berth trace slice: kept %zu of %zu jobs\n", berth_trace_count(s),
            berth_trace_count(t));
    berth_trace_free(t);
    rc = write_native(o->pos[1], s);
    berth_trace_free(s);
    return rc;
}

static int run_formats(struct opts *o)
{
    (void)o;
    for (const char *const *f = berth_trace_formats(); *f; f++)
        printf("%s\n", *f);
    if (fflush(stdout)) {
        fprintf(stderr, "berth: standard output: write error: %s\n", strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

static const struct {
    const char *name, *cmd;
    unsigned variant;
    int npos;
    const char *posnames;
    int (*run)(struct opts *o);
} subs[] = {
    {"stats", "trace stats", V_STATS, 1, "a trace FILE", run_stats},
    {"convert", "trace convert", V_CONVERT, 2, "IN and OUT files", run_convert},
    {"slice", "trace slice", V_SLICE, 2, "IN and OUT files", run_slice},
    {"formats", "trace formats", V_FORMATS, 0, "", run_formats},
};

int cmd_trace(int argc, char **argv)
{
    if (argc < 2) {
        cli_flags_help(&trace_spec, stderr);
        return EXIT_BAD_INPUT;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
        cli_flags_help(&trace_spec, stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
        if (strcmp(sub, subs[i].name))
            continue;
        struct opts o = {.cmd = subs[i].cmd, .top = 20, .seed = 1};
        o.from = o.to = BERTH_TIME_NONE;
        int rc = parse(argc - 1, argv + 1, subs[i].variant, subs[i].npos, subs[i].posnames, &o);
        if (rc == 0)
            rc = subs[i].run(&o);
        else if (rc < 0)
            rc = EXIT_OK; /* --help */
        names_free(&o.queues);
        names_free(&o.users);
        return rc;
    }
    return cli_usage_error("trace",
                           "unknown subcommand '%s' (expected stats, convert, slice or formats; "
                           "see berth trace --help)",
                           sub);
}
