/* What berth sweep and berth compare share: preparing a grid's folder and inputs, running its
 * cells here (several at once) or as one Slurm job array, and what a cell's folder says
 * about it (done, failed, not run). */
#ifndef BERTH_CLI_SWEEP_RUN_H
#define BERTH_CLI_SWEEP_RUN_H

#include <stddef.h>

#include "berth/report.h"

struct sweep_ctx {
    const char *cmd;  /* "sweep" or "compare", for messages */
    const char *out;  /* the sweep's folder, absolute */
    const char *grid; /* the grid file, absolute (what Slurm's tasks read) */
    struct berth_grid *g;
    int jobs;  /* -j */
    int quiet; /* no progress bar */
    /* counts of this run */
    size_t ran, skipped, failed;
};

/* Makes out (and out/cells, out/traces), loads and expands the grid, checks every flag set
 * with berth sim's own parser: 0 or an exit code (the error said). */
int sweep_open(struct sweep_ctx *x, const char *grid_path, const char *out);
void sweep_close(struct sweep_ctx *x);
/* Makes the inputs that are missing (generated and resampled traces), -j at once. */
int sweep_inputs(struct sweep_ctx *x);
/* Whether cell i's results are in, for its command as the grid now says it. */
int sweep_cell_done(const struct sweep_ctx *x, size_t i);
/* Runs the cells that are not done, -j at once: 0, 1 when some failed, 130 when interrupted. */
int sweep_run_local(struct sweep_ctx *x);
/* Runs cell i alone, now (a Slurm array task's work): its exit status. */
int sweep_run_cell(struct sweep_ctx *x, size_t i);
/* Submits the cells that are not done as one Slurm job array and waits until its tasks are
 * over (a second sweep while it runs waits for that array instead of submitting another). */
int sweep_run_slurm(struct sweep_ctx *x, const char *partition, const char *conf,
                    double time_limit_s);

#endif
