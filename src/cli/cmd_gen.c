/* berth gen: the command-line face of berth_gen (include/berth/gen.h). Parses the flags,
 * generates the workload and writes it as native CSV to stdout or --out. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void gen_usage(FILE *f)
{
    fprintf(f,
            "usage: berth gen [--profile gavel|philly] [--jobs N] [--rate JOBS_PER_HOUR]\n"
            "                 [--seed N] [--elastic MAX] [--out FILE] [--help]\n"
            "\n"
            "Generates a seeded synthetic workload (Poisson arrivals, the first job at time 0)\n"
            "as berth's native CSV. The same flags give the same bytes.\n"
            "\n"
            "  --profile NAME  job shapes (default: philly)\n"
            "                    gavel   Gavel's generator: 1/2/4/8 GPUs, 60*10^U(1.5,3) s\n"
            "                            (80%%) or 60*10^U(3,4) s; default rate 3 jobs/hour\n"
            "                    philly  fitted to the Pollux-prepared Philly trace: GPU counts,\n"
            "                            durations by gang size, virtual cluster as queue;\n"
            "                            default rate 31.47 jobs/hour (the trace's average)\n"
            "  --jobs N        number of jobs, 1 to 100000000 (default: 1000)\n"
            "  --rate R        arrivals per hour, > 0; 0 = the profile's default (default: 0)\n"
            "  --seed N        random seed, a whole number >= 0 (default: 1)\n"
            "  --elastic MAX   make every job elastic: min_gpus 1, max_gpus the larger of MAX\n"
            "                  and its gang, 1 to 1024 (default: 0, inelastic jobs)\n"
            "  --out FILE      write to FILE instead of standard output (default: stdout)\n"
            "  --help          show this help and exit\n");
}

static int parse_rate(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < 0)
        return cli_usage_error("gen",
                               "--rate: expected a number of jobs per hour >= 0 (0 = the "
                               "profile's default), found '%s'",
                               s);
    *out = v;
    return 0;
}

int cmd_gen(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"profile", required_argument, NULL, 'p'}, {"jobs", required_argument, NULL, 'n'},
        {"rate", required_argument, NULL, 'r'},    {"seed", required_argument, NULL, 's'},
        {"out", required_argument, NULL, 'o'},     {"elastic", required_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    struct berth_gen_opts o;
    berth_gen_opts_init(&o);
    const char *out_path = NULL;
    uint64_t v;
    int c, rc;

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            o.profile = optarg;
            break;
        case 'n':
            if ((rc = cli_parse_u64("gen", "--jobs", optarg, &v)))
                return rc;
            o.jobs = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
            break;
        case 'r':
            if ((rc = parse_rate(optarg, &o.rate_per_hour)))
                return rc;
            break;
        case 's':
            if ((rc = cli_parse_u64("gen", "--seed", optarg, &v)))
                return rc;
            o.seed = v;
            break;
        case 'o':
            out_path = optarg;
            break;
        case 'e':
            if ((rc = cli_parse_u64("gen", "--elastic", optarg, &v)))
                return rc;
            if (v > 1024)
                return cli_usage_error("gen",
                                       "--elastic: expected a largest gang of 1 to 1024 GPUs (0 = "
                                       "inelastic), found '%s'",
                                       optarg);
            o.elastic_max = (int32_t)v;
            break;
        case 'h':
            gen_usage(stdout);
            return EXIT_OK;
        default:
            return cli_flag_error("gen", "gen", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("gen", "unexpected argument '%s' (see berth gen --help)",
                               argv[optind]);

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
