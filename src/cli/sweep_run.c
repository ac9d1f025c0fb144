/* Running a grid's cells (see sweep_run.h). A cell runs as `berth sim ... --out
 * CELL.part`; only once it exited 0 is the folder renamed to its name, with the command it
 * ran in command.txt, so a folder named for a cell holds a whole run of that very command
 * and an interrupted sweep resumes where it stopped. A failed cell leaves CELL.failed: its
 * exit status and what it said. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "berth/slurm.h"
#include "cli.h"
#include "runner.h"
#include "sweep_run.h"

static char *path_of(const struct sweep_ctx *x, const char *name, const char *suffix)
{
    size_t n = strlen(x->out) + strlen(name) + strlen(suffix) + 16;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/cells/%s%s", x->out, name, suffix);
    return p;
}

/* Removes a folder of plain files (a cell's), if it is there. */
static void rm_flat(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[PATH_MAX];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(dir);
}

static char *slurp(const char *path, size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *b = malloc(max + 1);
    size_t n = b ? fread(b, 1, max, f) : 0;
    fclose(f);
    if (b)
        b[n] = '\0';
    return b;
}

static int spit(const char *path, const char *a, const char *b)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int bad = fputs(a, f) < 0 || (b && fputs(b, f) < 0);
    return fclose(f) || bad ? -1 : 0;
}

/* A cell's command, one word a line (what command.txt holds). */
static char *command_text(const struct berth_grid_cell *c)
{
    size_t n = 8;
    for (size_t i = 0; i < c->argc; i++)
        n += strlen(c->argv[i]) + 1;
    char *t = malloc(n);
    if (!t)
        return NULL;
    size_t o = (size_t)snprintf(t, n, "sim\n");
    for (size_t i = 0; i < c->argc; i++)
        o += (size_t)snprintf(t + o, n - o, "%s\n", c->argv[i]);
    return t;
}

int sweep_cell_done(const struct sweep_ctx *x, size_t i)
{
    const struct berth_grid_cell *c = berth_grid_cell(x->g, i);
    char *dir = path_of(x, c->name, ""), *cmd = command_text(c);
    char *sum = path_of(x, c->name, "/summary.json"), *ct = path_of(x, c->name, "/command.txt");
    char *had = ct ? slurp(ct, 1 << 20) : NULL;
    int done = dir && cmd && sum && !access(sum, R_OK) && had && !strcmp(had, cmd);
    free(dir), free(cmd), free(sum), free(ct), free(had);
    return done;
}

/* ---- opening ---------------------------------------------------------------------------- */

int sweep_open(struct sweep_ctx *x, const char *grid_path, const char *out)
{
    struct berth_err err = {0};
    char real[PATH_MAX], sub[PATH_MAX + 16];
    if (mkdir(out, 0777) && errno != EEXIST) {
        fprintf(stderr, "berth %s: --out %s: cannot create the folder: %s\n", x->cmd, out,
                strerror(errno));
        return EXIT_BAD_INPUT;
    }
    if (!realpath(out, real) || access(real, W_OK)) {
        fprintf(stderr, "berth %s: --out %s: cannot write there: %s\n", x->cmd, out,
                strerror(errno));
        return EXIT_BAD_INPUT;
    }
    static const char *const subs[] = {"cells", "traces", "slurm"};
    for (int k = 0; k < 3; k++) {
        snprintf(sub, sizeof sub, "%s/%s", real, subs[k]);
        if (mkdir(sub, 0777) && errno != EEXIST) {
            fprintf(stderr, "berth %s: %s: cannot create: %s\n", x->cmd, sub, strerror(errno));
            return EXIT_RUNTIME;
        }
    }
    x->out = strdup(real);
    char greal[PATH_MAX];
    x->grid = realpath(grid_path, greal) ? strdup(greal) : strdup(grid_path);
    if (!x->out || !x->grid)
        return EXIT_RUNTIME;
    if (berth_grid_load(grid_path, &x->g, &err) || berth_grid_expand(x->g, x->out, &err))
        return cli_fail(&err);
    for (size_t i = 0; i < berth_grid_nflagsets(x->g); i++) {
        size_t n;
        unsigned line;
        const char *const *w = berth_grid_flagset(x->g, i, &n, &line);
        if (cli_sim_check_flags(w, n, &err)) {
            fprintf(stderr, "berth %s: %s:%u: a flag of berth sim: %s\n", x->cmd, grid_path, line,
                    err.msg);
            return EXIT_BAD_INPUT;
        }
    }
    return 0;
}

void sweep_close(struct sweep_ctx *x)
{
    berth_grid_free(x->g);
    free((char *)x->out);
    free((char *)x->grid);
    x->g = NULL;
    x->out = x->grid = NULL;
}

/* ---- inputs ----------------------------------------------------------------------------- */

struct input_run {
    struct cli_job *jobs;
    const char **argv_store;
    size_t *which;
    char **part, **errs;
    const struct sweep_ctx *x;
    int failed;
};

static void input_done(void *ctx, size_t k)
{
    struct input_run *r = ctx;
    const struct berth_grid_input *in = berth_grid_input(r->x->g, r->which[k]);
    if (r->jobs[k].status != 0 && cli_interrupted()) {
        unlink(r->part[k]);
        unlink(r->errs[k]);
        return;
    }
    if (r->jobs[k].status == 0 && !rename(r->part[k], in->path)) {
        unlink(r->errs[k]);
        return;
    }
    char *msg = slurp(r->errs[k], 4096);
    fprintf(stderr, "berth %s: making %s failed (berth", r->x->cmd, in->path);
    for (size_t i = 0; i < in->argc; i++)
        fprintf(stderr, " %s", in->argv[i]);
    fprintf(stderr, "):\n%s", msg ? msg : "");
    free(msg);
    unlink(r->part[k]);
    unlink(r->errs[k]);
    r->failed = r->jobs[k].status == 2 ? 2 : r->failed ? r->failed : 1;
}

int sweep_inputs(struct sweep_ctx *x)
{
    size_t n = berth_grid_ninputs(x->g), m = 0;
    struct input_run r = {.x = x};
    r.jobs = calloc(n + 1, sizeof *r.jobs);
    r.which = calloc(n + 1, sizeof *r.which);
    r.part = calloc(n + 1, sizeof *r.part);
    r.errs = calloc(n + 1, sizeof *r.errs);
    const char ***argvs = calloc(n + 1, sizeof *argvs);
    int rc = r.jobs && r.which && r.part && r.errs && argvs ? 0 : EXIT_RUNTIME;
    for (size_t i = 0; !rc && i < n; i++) {
        const struct berth_grid_input *in = berth_grid_input(x->g, i);
        if (!access(in->path, R_OK))
            continue;
        size_t len = strlen(in->path) + 8;
        r.part[m] = malloc(len);
        r.errs[m] = malloc(len);
        argvs[m] = malloc((in->argc + 1) * sizeof **argvs);
        if (!r.part[m] || !r.errs[m] || !argvs[m]) {
            rc = EXIT_RUNTIME;
            m++;
            break;
        }
        snprintf(r.part[m], len, "%s.part", in->path);
        snprintf(r.errs[m], len, "%s.err", in->path);
        for (size_t k = 0; k <= in->argc; k++) /* the output path becomes PATH.part */
            argvs[m][k] = in->argv[k] == in->path ? r.part[m] : in->argv[k];
        r.jobs[m] = (struct cli_job){argvs[m], NULL, r.errs[m], -1};
        r.which[m++] = i;
    }
    if (!rc && m) {
        struct cli_progress bar;
        cli_progress_start(&bar, "inputs", x->quiet);
        int run = cli_run_jobs(r.jobs, m, x->jobs, &bar, "traces", input_done, &r);
        cli_progress_end(&bar);
        rc = run ? (cli_interrupted() ? 130 : EXIT_RUNTIME) : r.failed;
    }
    for (size_t i = 0; i < m; i++) {
        free(r.part[i]);
        free(r.errs[i]);
        free(argvs[i]);
    }
    free(r.jobs), free(r.which), free(r.part), free(r.errs), free(argvs);
    return rc;
}

/* ---- cells ------------------------------------------------------------------------------ */

struct cell_run {
    struct sweep_ctx *x;
    struct cli_job *jobs;
    size_t *which;
    const char ***argvs;
    char **part, **errs;
};

static void cell_done(void *ctx, size_t k)
{
    struct cell_run *r = ctx;
    struct sweep_ctx *x = r->x;
    const struct berth_grid_cell *c = berth_grid_cell(x->g, r->which[k]);
    char *dir = path_of(x, c->name, ""), *failed = path_of(x, c->name, ".failed");
    char *cmd = command_text(c), *msg = slurp(r->errs[k], 1 << 16);
    int st = r->jobs[k].status;
    if (st != 0 && cli_interrupted()) { /* stopped by the interruption: not a failure */
        rm_flat(r->part[k]);
        unlink(r->errs[k]);
        free(dir), free(failed), free(cmd), free(msg);
        return;
    }
    if (st == 0 && dir && cmd) {
        char ct[PATH_MAX], se[PATH_MAX];
        snprintf(ct, sizeof ct, "%s/command.txt", r->part[k]);
        snprintf(se, sizeof se, "%s/stderr.txt", r->part[k]);
        if (msg && *msg)
            spit(se, msg, NULL);
        rm_flat(dir);
        if (!spit(ct, cmd, NULL) && !rename(r->part[k], dir)) {
            x->ran++;
            unlink(r->errs[k]);
            free(dir), free(failed), free(cmd), free(msg);
            return;
        }
        st = -1;
    }
    char head[64];
    snprintf(head, sizeof head, "exit %d\n", st);
    if (failed)
        spit(failed, head, msg ? msg : "");
    rm_flat(r->part[k]);
    unlink(r->errs[k]);
    x->failed++;
    free(dir), free(failed), free(cmd), free(msg);
}

/* Runs the cells idx[0..n): 0 or -1 (interrupted). */
static int run_cells(struct sweep_ctx *x, const size_t *idx, size_t n, int jobs, int bar_on)
{
    struct cell_run r = {x,
                         calloc(n + 1, sizeof *r.jobs),
                         calloc(n + 1, sizeof *r.which),
                         calloc(n + 1, sizeof *r.argvs),
                         calloc(n + 1, sizeof *r.part),
                         calloc(n + 1, sizeof *r.errs)};
    int rc = r.jobs && r.which && r.argvs && r.part && r.errs ? 0 : -1;
    size_t m = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        const struct berth_grid_cell *c = berth_grid_cell(x->g, idx[i]);
        r.part[m] = path_of(x, c->name, ".part");
        r.errs[m] = path_of(x, c->name, ".stderr");
        r.argvs[m] = malloc((c->argc + 6) * sizeof **r.argvs);
        char *failed = path_of(x, c->name, ".failed");
        if (!r.part[m] || !r.errs[m] || !r.argvs[m] || !failed) {
            free(failed);
            m++;
            rc = -1;
            break;
        }
        rm_flat(r.part[m]);
        unlink(failed);
        free(failed);
        r.argvs[m][0] = "sim";
        memcpy(r.argvs[m] + 1, c->argv, c->argc * sizeof *c->argv);
        r.argvs[m][c->argc + 1] = "--out";
        r.argvs[m][c->argc + 2] = r.part[m];
        r.argvs[m][c->argc + 3] = "--quiet";
        r.argvs[m][c->argc + 4] = NULL;
        r.jobs[m] = (struct cli_job){r.argvs[m], NULL, r.errs[m], -1};
        r.which[m++] = idx[i];
    }
    if (!rc && m) {
        struct cli_progress bar;
        cli_progress_start(&bar, "cells", !bar_on);
        rc = cli_run_jobs(r.jobs, m, jobs, &bar, "cells", cell_done, &r);
        cli_progress_end(&bar);
    }
    for (size_t i = 0; i < m; i++) {
        free(r.part[i]);
        free(r.errs[i]);
        free(r.argvs[i]);
    }
    free(r.jobs), free(r.which), free(r.argvs), free(r.part), free(r.errs);
    return rc;
}

/* The cells not done, in grid order (*n of them; NULL when out of memory). */
static size_t *undone(struct sweep_ctx *x, size_t *n)
{
    size_t total = berth_grid_ncells(x->g);
    size_t *idx = malloc((total + 1) * sizeof *idx);
    *n = 0;
    for (size_t i = 0; idx && i < total; i++) {
        if (sweep_cell_done(x, i))
            x->skipped++;
        else
            idx[(*n)++] = i;
    }
    return idx;
}

int sweep_run_local(struct sweep_ctx *x)
{
    size_t n;
    size_t *idx = undone(x, &n);
    if (!idx)
        return EXIT_RUNTIME;
    int rc = run_cells(x, idx, n, x->jobs, !x->quiet);
    free(idx);
    if (rc)
        return cli_interrupted() ? 130 : EXIT_RUNTIME;
    return x->failed ? 1 : 0;
}

int sweep_run_cell(struct sweep_ctx *x, size_t i)
{
    if (i >= berth_grid_ncells(x->g)) {
        fprintf(stderr, "berth %s: --cell %zu: the grid has %zu cells (0 to %zu)\n", x->cmd, i,
                berth_grid_ncells(x->g), berth_grid_ncells(x->g) - 1);
        return EXIT_BAD_INPUT;
    }
    if (sweep_cell_done(x, i))
        return 0;
    if (run_cells(x, &i, 1, 1, 0))
        return cli_interrupted() ? 130 : EXIT_RUNTIME;
    return x->failed ? 1 : 0;
}

/* ---- Slurm ------------------------------------------------------------------------------ */

/* s as one single-quoted shell word */
static void shell_word(char *b, size_t len, const char *s)
{
    size_t o = 0;
    if (o + 1 < len)
        b[o++] = '\'';
    for (; *s && o + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(b + o, "'\\''", 4);
            o += 4;
        } else {
            b[o++] = *s;
        }
    }
    if (o + 1 < len)
        b[o++] = '\'';
    b[o] = '\0';
}

static volatile sig_atomic_t slurm_stop;

static void on_stop(int sig)
{
    slurm_stop = sig;
}

int sweep_run_slurm(struct sweep_ctx *x, const char *partition, const char *conf,
                    double time_limit_s)
{
    struct berth_err err = {0};
    if (!berth_slurm_available()) {
        fprintf(stderr,
                "berth %s: --slurm: this berth was built without libslurm (install "
                "libslurm-dev, Slurm 22.05, and rebuild)\n",
                x->cmd);
        return EXIT_BAD_INPUT;
    }
    char idfile[PATH_MAX];
    snprintf(idfile, sizeof idfile, "%s/slurm/job_id", x->out);
    uint32_t id = 0;
    size_t active = 0, n = 0;
    char *had = slurp(idfile, 64);
    if (had) { /* an array of an earlier sweep may still run: wait for it, never twice */
        id = (uint32_t)strtoul(had, NULL, 10);
        free(had);
        if (id && berth_slurm_array_active(conf, id, &active, &err)) {
            fprintf(stderr, "berth %s: --slurm: %s\n", x->cmd, err.msg);
            return EXIT_RUNTIME;
        }
    }
    size_t *idx = undone(x, &n);
    if (!idx)
        return EXIT_RUNTIME;
    if (!active && n) {
        char self[PATH_MAX + 8], grid[PATH_MAX + 8], out[PATH_MAX + 8], output[PATH_MAX];
        shell_word(self, sizeof self, cli_self_exe());
        shell_word(grid, sizeof grid, x->grid);
        shell_word(out, sizeof out, x->out);
        size_t len = strlen(self) + strlen(grid) + strlen(out) + 256;
        char *script = malloc(len);
        if (!script) {
            free(idx);
            return EXIT_RUNTIME;
        }
        /* the marker: an admin's array is Slurm's to place where berth's job_submit.lua
         * holds every other job for berthd (contrib/slurm/job_submit.lua) */
        snprintf(script, len,
                 "#!/bin/sh\n#BERTH: slurm-places-this\nexec %s sweep %s --out %s --cell "
                 "\"$SLURM_ARRAY_TASK_ID\" --quiet\n",
                 self, grid, out);
        snprintf(output, sizeof output, "%s/slurm/%%A_%%a.out", x->out);
        struct berth_slurm_array a = {.name = "berth-sweep",
                                      .script = script,
                                      .workdir = x->out,
                                      .output = output,
                                      .indices = idx,
                                      .nindices = n,
                                      .partition = partition,
                                      .cpus = 1,
                                      .time_limit_us = (berth_us)(time_limit_s * 1e6),
                                      .slurm_conf = conf};
        int rc = berth_slurm_array_submit(&a, &id, &err);
        free(script);
        if (rc) {
            free(idx);
            fprintf(stderr, "berth %s: --slurm: %s\n", x->cmd, err.msg);
            return rc == BERTH_EINPUT ? EXIT_BAD_INPUT : EXIT_RUNTIME;
        }
        char num[32];
        snprintf(num, sizeof num, "%u\n", id);
        spit(idfile, num, NULL);
        if (!x->quiet)
            fprintf(stderr, "berth %s: submitted %zu cells as Slurm job array %u\n", x->cmd, n, id);
        active = n;
    } else if (active && !x->quiet) {
        fprintf(stderr, "berth %s: waiting for Slurm job array %u of an earlier sweep\n", x->cmd,
                id);
    }
    struct sigaction sa = {.sa_handler = on_stop}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    slurm_stop = 0;
    struct cli_progress bar;
    cli_progress_start(&bar, "slurm", x->quiet);
    int rc = 0;
    while (active && !slurm_stop) {
        size_t ended = 0;
        for (size_t i = 0; i < n; i++) {
            char *f = path_of(x, berth_grid_cell(x->g, idx[i])->name, ".failed");
            ended += sweep_cell_done(x, idx[i]) || (f && !access(f, F_OK));
            free(f);
        }
        cli_progress_update(&bar, (double)ended, (double)n, "cells");
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
        if (berth_slurm_array_active(conf, id, &active, &err)) {
            fprintf(stderr, "berth %s: --slurm: %s\n", x->cmd, err.msg);
            rc = EXIT_RUNTIME;
            break;
        }
    }
    cli_progress_end(&bar);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (slurm_stop) {
        if (berth_slurm_array_cancel(conf, id, &err))
            fprintf(stderr, "berth %s: cancelling array %u: %s\n", x->cmd, id, err.msg);
        else
            fprintf(stderr, "berth %s: interrupted: Slurm job array %u cancelled\n", x->cmd, id);
        rc = 130;
    }
    for (size_t i = 0; !rc && i < n; i++) {
        if (sweep_cell_done(x, idx[i]))
            x->ran++;
        else
            x->failed++;
    }
    free(idx);
    return rc ? rc : x->failed ? 1 : 0;
}
