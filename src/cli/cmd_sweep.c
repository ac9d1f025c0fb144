/* `berth sweep GRID --out DIR`: every cell of a grid (policies x workloads x clusters x flags x
 * seeds) as a berth sim run, -j at once here or as one Slurm job array (--slurm), resumable;
 * then the results table (CSV, JSON) and its report, with each group's mean and 95 %
 * confidence interval over the seeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "berth/report.h"
#include "cli.h"
#include "flags.h"
#include "sweep_run.h"

struct sweep_args {
    const char *out, *partition, *slurm_conf, *title;
    uint64_t jobs, cell;
    int slurm, quiet, has_cell;
    double time_s;
};

static int set_cell(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    struct sweep_args *a = base;
    (void)f;
    a->has_cell = 1;
    return cli_flags_u64(v, 0, 0, &a->cell, err);
}

static int set_time(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    struct sweep_args *a = base;
    (void)f;
    return cli_flags_num(v, 1, 1e7, &a->time_s, err);
}

#define A struct sweep_args
static const struct cli_flag sweep_flags[] = {
    {"out", 'o', "DIR",
     "the sweep's folder (required): cells/, traces/, results.csv, results.json, summary.csv, "
     "report.html; what is in it already is not run again",
     CLI_STR_AT(A, out), .bits = CLI_ONCE},
    {"jobs", 'j', "N", "cells run at once on this machine (default: its CPUs)", CLI_U64_AT(A, jobs),
     .lo = 1, .hi = 1024, .bits = CLI_ONCE},
    {"title", 0, "TEXT", "the report's title (default: berth sweep GRID)", CLI_STR_AT(A, title),
     .bits = CLI_ONCE},
    {"quiet", 'q', NULL, "no progress bar on stderr (there is one only on a terminal)",
     CLI_ON_AT(A, quiet)},
    CLI_HELP_FLAG,
    {0},
};
static const struct cli_flag slurm_flags[] = {
    {"slurm", 0, NULL,
     "run the cells as one Slurm job array (one task per cell not done), wait until its "
     "tasks are over, then write the table",
     CLI_ON_AT(A, slurm)},
    {"partition", 0, "P", "--slurm: the partition (default: the cluster's)",
     CLI_STR_AT(A, partition), .bits = CLI_ONCE},
    {"time", 0, "S", "--slurm: each task's time limit in seconds (default: the partition's)",
     CLI_SET(set_time), .bits = CLI_ONCE},
    {"slurm-conf", 0, "FILE", "--slurm: the cluster's slurm.conf (default $SLURM_CONF)",
     CLI_STR_AT(A, slurm_conf), .bits = CLI_ONCE},
    {"cell", 0, "N",
     "run cell N only, and write no table (what each array task runs; cells count from 0 in "
     "results.csv's order)",
     CLI_SET(set_cell), .bits = CLI_ONCE},
    {0},
};
#undef A

static const struct cli_section sweep_sections[] = {
    {NULL, sweep_flags, 0},
    {"Slurm (see docs/slurm.md, \"Job arrays for berth sweep --slurm\"):", slurm_flags, 0},
    {0},
};

static const struct cli_spec sweep_spec = {
    .cmd = "sweep",
    .usage = "sweep GRID --out DIR [-j N] [--title TEXT] [--quiet] [--slurm [--partition P] "
             "[--time S] [--slurm-conf FILE]] [--cell N] [--help]",
    .about = "Runs every cell of the grid file GRID: each combination of its policy, cluster,\n"
             "trace or gen, flags and seed values is one berth sim run. A grid, a line a\n"
             "dimension, each value [LABEL=]VALUE, quotes grouping words:\n"
             "  policy   fifo sjf las tiresias-dlas        the policies\n"
             "  cluster  philly half=32x8:v100             the clusters\n"
             "  trace    philly.csv                        trace files, from the grid's folder\n"
             "  gen      gv=\"berth gen's flags\"            workloads berth gen makes per seed\n"
             "  seed     1-3                               seeds (default 1)\n"
             "  flags    base=\"\" rc=\"berth sim flags\"      variants (default: none)\n"
             "  sim      berth sim flags                   for every cell\n"
             "  resample none|bootstrap|FRACTION           how a seed varies a trace file\n"
             "A rerun skips the cells already done (an interrupted sweep goes on where it\n"
             "stopped); the table has a row per cell, the report each group's mean and 95 %\n"
             "confidence interval over the seeds.",
    .sections = sweep_sections,
    .epilogue = "Exit status: 0 every cell done, 1 some cell failed (listed; rerun to retry),\n"
                "2 bad input (the grid names FILE:LINE), 130 interrupted.",
};

static void report_failed(const struct berth_sweep_table *t, const struct berth_grid *g,
                          const char *out)
{
    size_t shown = 0, failed = berth_sweep_table_failed(t);
    for (size_t i = 0; i < berth_grid_ncells(g) && shown < 10; i++) {
        const char *why = berth_sweep_table_why(t, i);
        if (!why)
            continue;
        const char *name = berth_grid_cell(g, i)->name;
        fprintf(stderr, "  failed: %s: %s (see %s/cells/%s.failed)\n", name, why, out, name);
        shown++;
    }
    if (failed > shown)
        fprintf(stderr, "  and %zu more (results.csv's status column)\n", failed - shown);
}

int cmd_sweep(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    struct sweep_args a = {.jobs = cpus > 0 ? (uint64_t)cpus : 1};
    int nargs, rc = cli_flags_parse(&sweep_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs != 1)
        return nargs ? cli_usage_error("sweep",
                                       "expected one GRID file, found %d arguments (see berth "
                                       "sweep --help)",
                                       nargs)
                     : cli_usage_error("sweep", "expected a GRID file (see berth sweep --help)");
    if (!a.out)
        return cli_usage_error("sweep", "--out DIR is required (see berth sweep --help)");
    if (!a.slurm && (a.partition || a.time_s > 0 || a.slurm_conf))
        return cli_usage_error("sweep", "--%s goes with --slurm (see berth sweep --help)",
                               a.partition    ? "partition"
                               : a.time_s > 0 ? "time"
                                              : "slurm-conf");
    if (a.slurm && a.has_cell)
        return cli_usage_error("sweep",
                               "--cell and --slurm: expected one of them (see berth sweep --help)");
    struct sweep_ctx x = {.cmd = "sweep", .jobs = (int)a.jobs, .quiet = a.quiet};
    rc = sweep_open(&x, argv[1], a.out);
    if (!rc)
        rc = sweep_inputs(&x);
    if (!rc && a.has_cell) {
        rc = sweep_run_cell(&x, (size_t)a.cell);
        sweep_close(&x);
        return rc;
    }
    if (!rc)
        rc = a.slurm ? sweep_run_slurm(&x, a.partition, a.slurm_conf, a.time_s)
                     : sweep_run_local(&x);
    if (rc && rc != 1) {
        sweep_close(&x);
        return rc;
    }
    struct berth_err err = {0};
    struct berth_sweep_table *t = NULL;
    char title[512];
    snprintf(title, sizeof title, "berth sweep %s", argv[1]);
    if (berth_sweep_table_load(x.g, x.out, 1, &t, &err) ||
        berth_sweep_table_write(t, x.out, a.title ? a.title : title, NULL, &err)) {
        berth_sweep_table_free(t);
        sweep_close(&x);
        return cli_fail(&err);
    }
    size_t failed = berth_sweep_table_failed(t);
    printf("berth sweep: %zu cells: %zu run now, %zu done before, %zu failed\n",
           berth_grid_ncells(x.g), x.ran, x.skipped, failed);
    printf("  table:  %s/results.csv (and results.json, summary.csv)\n  report: %s/report.html\n",
           x.out, x.out);
    if (failed)
        report_failed(t, x.g, x.out);
    berth_sweep_table_free(t);
    sweep_close(&x);
    return failed ? 1 : EXIT_OK;
}
