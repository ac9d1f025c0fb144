/* berth gen: the command-line face of berth_gen (include/berth/gen.h). Parses the flags,
 * generates the workload and writes it as native CSV to stdout or --out. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flags.h"

/* What the flags fill. */
struct gen_args {
    struct berth_gen_opts o;
    uint64_t jobs;
    const char *out;
};

static int set_rate(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    struct gen_args *a = base;
    char *end;
    errno = 0;
    double r = strtod(v, &end);
    (void)f;
    if (!*v || *end || errno || !isfinite(r) || r < 0)
        return berth_err_set(err, BERTH_EINPUT,
                             "expected a number of jobs per hour >= 0 (0 = the profile's "
                             "default), found '%s'",
                             v);
    a->o.rate_per_hour = r;
    return 0;
}

static int set_elastic(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    struct gen_args *a = base;
    uint64_t n = 0;
    (void)f;
    if (cli_flags_u64(v, 0, 0, &n, err) || n > 1024)
        return berth_err_set(err, BERTH_EINPUT,
                             "expected a largest gang of 1 to 1024 GPUs (0 = inelastic), found "
                             "'%s'",
                             v);
    a->o.elastic_max = (int32_t)n;
    return 0;
}

#define A struct gen_args
static const struct cli_flag gen_flags[] = {
    {"profile", 0, "NAME",
     "job shapes (default: philly)\n"
     "  gavel   Gavel's generator: 1/2/4/8 GPUs, 60*10^U(1.5,3) s (80%) or 60*10^U(3,4) s; "
     "default rate 3 jobs/hour\n"
     "  philly  fitted to the Pollux-prepared Philly trace: GPU counts, durations by gang "
     "size, virtual cluster as queue; default rate 31.47 jobs/hour (the trace's average)\n"
     "  llm     LLM development: 90% llm-finetune (1-8 GPUs, 10 min-8 h), 10% llm-pretrain "
     "(16-256 GPUs, tp 8, 4-48 h, topology rack/block required or preferred); default rate "
     "3.5 jobs/hour",
     CLI_STR_AT(A, o.profile)},
    {"jobs", 0, "N", "number of jobs, 1 to 100000000 (default: 1000)", CLI_U64_AT(A, jobs)},
    {"rate", 0, "R", "arrivals per hour, > 0; 0 = the profile's default (default: 0)",
     CLI_SET(set_rate)},
    {"seed", 0, "N", "random seed, a whole number >= 0 (default: 1)", CLI_U64_AT(A, o.seed)},
    {"elastic", 0, "MAX",
     "make every job elastic: min_gpus 1, max_gpus the larger of MAX and its gang, 1 to 1024 "
     "(default: 0, inelastic jobs)",
     CLI_SET(set_elastic)},
    {"out", 0, "FILE", "write to FILE instead of standard output (default: stdout)",
     CLI_STR_AT(A, out)},
    CLI_HELP_FLAG,
    {0},
};
#undef A

static const struct cli_section gen_sections[] = {{NULL, gen_flags, 0}, {0}};

static const struct cli_spec gen_spec = {
    .cmd = "gen",
    .usage = "gen [--profile gavel|philly|llm] [--jobs N] [--rate JOBS_PER_HOUR] [--seed N] "
             "[--elastic MAX] [--out FILE] [--help]",
    .about = "Generates a seeded synthetic workload (Poisson arrivals, the first job at\n"
             "time 0) as berth's native CSV. The same flags give the same bytes.",
    .sections = gen_sections,
};

int cmd_gen(int argc, char **argv)
{
    struct gen_args a = {.out = NULL};
    berth_gen_opts_init(&a.o);
    a.jobs = a.o.jobs;
    int nargs, rc = cli_flags_parse(&gen_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs)
        return cli_usage_error("gen", "unexpected argument '%s' (see berth gen --help)", argv[1]);
    struct berth_gen_opts o = a.o;
    o.jobs = a.jobs > SIZE_MAX ? SIZE_MAX : (size_t)a.jobs;
    const char *out_path = a.out;

    struct berth_err err = {0};
    struct berth_trace *t = NULL;
    if ((rc = berth_gen(&o, &t, &err)))
        return cli_fail(&err);

    /* Generated before the file is opened, so bad options never truncate it. */
    FILE *f = stdout;
    if (out_path && !(f = fopen(out_path, "w"))) {
        berth_err_set(&err, BERTH_EIO, "--out: cannot open '%s' for writing: %s", out_path,
                      strerror(errno));
        berth_trace_free(t);
        return cli_fail(&err);
    }
    rc = berth_trace_write_native(f, berth_trace_jobs(t), berth_trace_count(t), &err);
    berth_trace_free(t);
    int closed = f == stdout ? fflush(f) : fclose(f);
    if (rc || closed) { /* a failed write (disk full) is a runtime failure, not bad input */
        fprintf(stderr, "berth: %s: write error: %s\n", out_path ? out_path : "standard output",
                strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}
