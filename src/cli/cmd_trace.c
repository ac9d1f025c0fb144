/* berth trace: the command-line face of include/berth/trace_tools.h. Looks at a trace
 * (stats), rewrites it as native CSV (convert), cuts it (slice) and lists the formats. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/trace_tools.h"
#include "cli.h"
#include "cmd_trace.h"

static void trace_usage(FILE *f)
{
    fprintf(f,
            "usage: berth trace stats FILE [--format F] [--lenient] [--json] [--top N]\n"
            "       berth trace convert IN OUT [--format F] [--lenient]\n"
            "       berth trace slice IN OUT [--format F] [--lenient] [--from S] [--to S]\n"
            "                         [--queue Q] [--user U] [--sample FRACTION | --count N]\n"
            "                         [--seed N] [--rebase]\n"
            "       berth trace formats\n"
            "\n"
            "  stats    summary of a trace: jobs, GPUs per job, durations (min, median, p90,\n"
            "           p99, max, mean; numpy-style percentiles), GPU-hours, arrival span, jobs\n"
            "           per queue and per user\n"
            "  convert  rewrite a trace as berth's native CSV (OUT - = standard output)\n"
            "  slice    keep the jobs of a time window, queues, users and/or a seeded sample,\n"
            "           in file order, as native CSV (OUT - = standard output)\n"
            "  formats  list the trace formats, one a line\n"
            "\n"
            "  --format F     the input's format: auto (default: from the header), or a name\n"
            "                 from 'berth trace formats'\n"
            "  --lenient      skip bad rows (counted per reason on stderr) instead of stopping\n"
            "                 at the first one\n"
            "  --json         stats: print one JSON object (every queue and user) instead of\n"
            "                 the table\n"
            "  --top N        stats: queues and users the table shows, 0 = all (default: 20)\n"
            "  --from S       slice: keep jobs arriving at or after S seconds (the trace's time)\n"
            "  --to S         slice: keep jobs arriving before S seconds\n"
            "  --queue Q      slice: keep jobs of queue (virtual cluster) Q; repeat the flag or\n"
            "                 give a comma list for several\n"
            "  --user U       slice: keep jobs of user U; repeatable, comma lists\n"
            "  --sample FRAC  slice: keep a seeded sample of round(FRAC x matched) jobs,\n"
            "                 0 < FRAC <= 1\n"
            "  --count N      slice: keep a seeded sample of N jobs (all when fewer match)\n"
            "  --seed N       slice: seed of the sample, a whole number >= 0 (default: 1)\n"
            "  --rebase       slice: shift arrivals so the first kept job arrives at 0\n"
            "  --help         show this help and exit\n"
            "\n"
            "Exit status: 0 done, 2 bad input (message names FILE:LINE and the column),\n"
            "1 runtime failure (such as a failed write).\n");
}

enum {
    F_FORMAT = 1 << 0,
    F_LENIENT = 1 << 1,
    F_JSON = 1 << 2,
    F_TOP = 1 << 3,
    F_FROM = 1 << 4,
    F_TO = 1 << 5,
    F_QUEUE = 1 << 6,
    F_USER = 1 << 7,
    F_SAMPLE = 1 << 8,
    F_COUNT = 1 << 9,
    F_SEED = 1 << 10,
    F_REBASE = 1 << 11,
};

struct names {
    char **v;
    size_t n, cap;
};

struct opts {
    const char *cmd; /* "trace stats", for messages */
    const char *format;
    int lenient, json, rebase;
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

/* Adds the names of a comma list; returns 0, 2 (bad value) or 1 (out of memory). */
static int names_add(const char *cmd, const char *flag, struct names *n, const char *list)
{
    size_t before = n->n;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len) {
            if (n->n == n->cap) {
                size_t cap = n->cap * 2 + 4;
                char **v = realloc(n->v, cap * sizeof *v);
                if (!v) {
                    fprintf(stderr, "berth %s: out of memory\n", cmd);
                    return EXIT_RUNTIME;
                }
                n->v = v;
                n->cap = cap;
            }
            char *s = malloc(len + 1);
            if (!s) {
                fprintf(stderr, "berth %s: out of memory\n", cmd);
                return EXIT_RUNTIME;
            }
            memcpy(s, p, len);
            s[len] = '\0';
            n->v[n->n++] = s;
        }
        p += len + (p[len] == ',');
    }
    if (n->n == before)
        return cli_usage_error(cmd, "%s: expected a name (or a comma list of names), found '%s'",
                               flag, list);
    return 0;
}

static int parse_time(const char *cmd, const char *flag, const char *s, berth_us *out)
{
    if (berth_parse_seconds(s, out))
        return cli_usage_error(cmd, "%s: expected a number of seconds, found '%s'", flag, s);
    return 0;
}

static int parse_fraction(const char *cmd, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || !(v > 0) || v > 1)
        return cli_usage_error(cmd, "--sample: expected a fraction in (0, 1], found '%s'", s);
    *out = v;
    return 0;
}

/* Parses the flags of one subcommand (argv[0] = its name) into o, allowing those in
 * allowed, and exactly npos positional arguments. Returns 0, -1 (--help shown) or an exit
 * code. */
static int parse(int argc, char **argv, unsigned allowed, int npos, const char *posnames,
                 struct opts *o)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, F_FORMAT},
        {"lenient", no_argument, NULL, F_LENIENT},
        {"json", no_argument, NULL, F_JSON},
        {"top", required_argument, NULL, F_TOP},
        {"from", required_argument, NULL, F_FROM},
        {"to", required_argument, NULL, F_TO},
        {"queue", required_argument, NULL, F_QUEUE},
        {"user", required_argument, NULL, F_USER},
        {"sample", required_argument, NULL, F_SAMPLE},
        {"count", required_argument, NULL, F_COUNT},
        {"seed", required_argument, NULL, F_SEED},
        {"rebase", no_argument, NULL, F_REBASE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = o->cmd;
    int c, rc = 0;
    opterr = 0;
    optind = 1;
    int li = -1;
    while ((c = getopt_long(argc, argv, ":h", longopts, &li)) != -1) {
        if (c > 0 && c != 'h' && c != ':' && c != '?' && !(allowed & (unsigned)c) && li >= 0)
            return cli_usage_error(cmd,
                                   "--%s is not a flag of this command (see berth trace --help)",
                                   longopts[li].name);
        li = -1;
        switch (c) {
        case F_FORMAT:
            o->format = optarg;
            break;
        case F_LENIENT:
            o->lenient = 1;
            break;
        case F_JSON:
            o->json = 1;
            break;
        case F_TOP:
            rc = cli_parse_u64(cmd, "--top", optarg, &o->top);
            break;
        case F_FROM:
            rc = parse_time(cmd, "--from", optarg, &o->from);
            break;
        case F_TO:
            rc = parse_time(cmd, "--to", optarg, &o->to);
            break;
        case F_QUEUE:
            rc = names_add(cmd, "--queue", &o->queues, optarg);
            break;
        case F_USER:
            rc = names_add(cmd, "--user", &o->users, optarg);
            break;
        case F_SAMPLE:
            rc = parse_fraction(cmd, optarg, &o->sample);
            break;
        case F_COUNT:
            rc = cli_parse_u64(cmd, "--count", optarg, &o->count);
            if (!rc && !o->count)
                rc = cli_usage_error(cmd, "--count: expected at least 1 job, found 0");
            break;
        case F_SEED:
            rc = cli_parse_u64(cmd, "--seed", optarg, &o->seed);
            break;
        case F_REBASE:
            o->rebase = 1;
            break;
        case 'h':
            trace_usage(stdout);
            return -1;
        default:
            return cli_flag_error(cmd, "trace", c, argv);
        }
        if (rc)
            return rc;
    }
    if (argc - optind > npos)
        return cli_usage_error(cmd, "unexpected argument '%s' (see berth trace --help)",
                               argv[optind + npos]);
    if (argc - optind < npos)
        return cli_usage_error(cmd, "expected %s (see berth trace --help)", posnames);
    for (int i = 0; i < npos; i++)
        o->pos[i] = argv[optind + i];
    if (o->sample > 0 && o->count)
        return cli_usage_error(cmd, "--sample and --count: expected one of them, found both");
    return 0;
}

static int load(const struct opts *o, const char *path, struct berth_trace **t)
{
    struct berth_load_opts lo = {o->format, o->lenient};
    struct berth_load_report rep;
    struct berth_err err = {0};
    int rc = berth_trace_load_opts(path, &lo, &rep, t, &err);
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
    int rc = load(o, o->pos[0], &t);
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
    int rc = load(o, o->pos[0], &t);
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
    struct berth_trace *t = NULL, *s = NULL;
    struct berth_err err = {0};
    /* option conflicts first: a bad flag should not cost a trace load */
    if (so.from_us != BERTH_TIME_NONE && so.to_us != BERTH_TIME_NONE && so.to_us <= so.from_us)
        return cli_usage_error(o->cmd, "--to: expected a time after --from");
    int rc = load(o, o->pos[0], &t);
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
    unsigned flags;
    int npos;
    const char *posnames;
    int (*run)(struct opts *o);
} subs[] = {
    {"stats", "trace stats", F_FORMAT | F_LENIENT | F_JSON | F_TOP, 1, "a trace FILE", run_stats},
    {"convert", "trace convert", F_FORMAT | F_LENIENT, 2, "IN and OUT files", run_convert},
    {"slice", "trace slice",
     F_FORMAT | F_LENIENT | F_FROM | F_TO | F_QUEUE | F_USER | F_SAMPLE | F_COUNT | F_SEED |
         F_REBASE,
     2, "IN and OUT files", run_slice},
    {"formats", "trace formats", 0, 0, "", run_formats},
};

int cmd_trace(int argc, char **argv)
{
    if (argc < 2) {
        trace_usage(stderr);
        return EXIT_BAD_INPUT;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
        trace_usage(stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
        if (strcmp(sub, subs[i].name))
            continue;
        struct opts o = {.cmd = subs[i].cmd, .top = 20, .seed = 1};
        o.from = o.to = BERTH_TIME_NONE;
        int rc = parse(argc - 1, argv + 1, subs[i].flags, subs[i].npos, subs[i].posnames, &o);
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
