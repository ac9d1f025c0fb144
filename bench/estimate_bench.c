/* The start-time estimate's two halves at berthd's scale, for every policy: the snapshot
 * (berth__est_snap_take: what holds berthd's lock) and the virtual run within its budget
 * (berth__est_snap_run: under no lock), on a daemon's job table as berthd keeps it (one
 * live job per submission, its own strings) with 8 servers x 8 GPUs busy and PENDING jobs
 * pending (1, 2, 4 and 8 GPUs, 1 under salus-*, estimates from 5 min to 4 h, 100 users). Times are
 * this thread's CPU time (a shared machine's time slices do not count), the median of REPS, and the
 * run's jobs reached. Usage: bench_estimate [PENDING] [BUDGET_S] [REPS] [POLICY...] (no POLICY:
 * every one of berth_policy_name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "berth/policy.h"
#include "berth/tput.h"
#include "live/daemon/daemon.h"
#include "live/daemon/estimate.h"

static berth_us cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (berth_us)ts.tv_sec * BERTH_US_PER_S + ts.tv_nsec / 1000;
}

static int cmp(const void *a, const void *b)
{
    berth_us x = *(const berth_us *)a, y = *(const berth_us *)b;
    return (x > y) - (x < y);
}

static struct berth__ljob *job(struct berth__daemon *d, int user, int gpus, berth_us est)
{
    char u[16];
    snprintf(u, sizeof u, "user%d", user);
    struct berth__ljob *j = calloc(1, sizeof *j);
    j->spec.extra = &j->extra;
    j->user = strdup(u);
    j->name = strdup("train");
    j->extra.user = j->user;
    j->spec.queue = strdup("");
    j->extra.gpu_type = strdup("");
    j->extra.job_type = strdup("");
    j->extra.status = "";
    j->spec.num_gpus = j->spec.min_gpus = j->spec.max_gpus = gpus;
    j->spec.gpu_share_milli = 1000;
    j->spec.duration_us = est;
    j->est_given = 1;
    j->exit_code = j->exit_signal = -1;
    berth__ljob_set_id(j, d->njobs + 1);
    d->jobs[d->njobs++] = j;
    return j;
}

static int enter(struct berth__daemon *d, struct berth__ljob *j, berth_us t0)
{
    struct berth_err err = {0};
    uint32_t k;
    if (berth__engine_add(d->engine, &j->spec, &k, &err) ||
        berth__engine_arrive(d->engine, k, t0, &err)) {
        fprintf(stderr, "bench_estimate: %s\n", err.msg);
        return 1;
    }
    d->by_eidx[k] = (uint32_t)j->id;
    j->eidx = k;
    j->in_engine = 1;
    j->state = BERTH_L_PENDING;
    return 0;
}

/* One policy: the table, one live pass (the 64 one-GPU jobs start), then REPS estimates. */
static int bench(const char *policy, long pending, berth_us budget, int reps)
{
    struct berth__daemon d;
    memset(&d, 0, sizeof d);
    struct berth_err err = {0};
    struct berth__params p = {.quantum_us = 60 * BERTH_US_PER_S, .round_us = 360 * BERTH_US_PER_S};
    size_t n = (size_t)pending + 64;
    d.jobs = calloc(n, sizeof *d.jobs);
    d.by_eidx = calloc(n, sizeof *d.by_eidx);
    if (berth_cluster_parse("8x8:a100", &d.cluster, &err) || berth_tput_builtin(&d.tput, &err) ||
        berth__engine_create(d.cluster, policy, NULL, &p, NULL, &d.engine, &err) ||
        berth__engine_set_tput(d.engine, d.tput, &err)) {
        printf("%-20s %s\n", policy, err.msg);
        return 0;
    }
    berth_us t0 = berth__wall_us();
    int rc = 0;
    for (int i = 0; i < 64 && !rc; i++)
        rc = enter(&d, job(&d, i % 100, 1, 3600 * BERTH_US_PER_S), t0);
    if (!rc && berth__engine_pass(d.engine, t0, &err)) {
        printf("%-20s %s\n", policy, err.msg);
        rc = 1;
    }
    for (size_t i = 0; i < 64 && !rc; i++)
        if (d.engine->jobs[i].state == BERTH_JOB_RUNNING)
            d.jobs[i]->state = BERTH_L_RUNNING, d.jobs[i]->start_us = t0;
    for (long k = 0; k < pending && !rc; k++)
        rc = enter(&d,
                   job(&d, (int)(k % 100), 1 << (k % 4), (300 + k * 7919 % 14100) * BERTH_US_PER_S),
                   t0);
    berth_us *snap = calloc((size_t)reps, sizeof *snap), *run = calloc((size_t)reps, sizeof *run);
    size_t reached = 0, injob = 0;
    int stop = 0;
    struct berth__est_snap *s = NULL; /* reused, as berthd's thread does */
    for (int r = 0; r < reps && !rc; r++) {
        struct berth__est_result *res = NULL;
        berth_us a = cpu_us();
        rc = berth__est_snap_take(&d, berth__wall_us(), &s, &err);
        berth_us b = cpu_us();
        if (!rc)
            rc = berth__est_snap_run(s, budget, &res, &err);
        berth_us c = cpu_us();
        snap[r] = b - a, run[r] = c - b;
        if (res)
            reached = res->started, injob = res->n, stop = res->stop;
        berth__est_result_free(res);
    }
    berth__est_snap_free(s);
    if (rc) {
        printf("%-20s %s\n", policy, err.msg);
    } else {
        qsort(snap, (size_t)reps, sizeof *snap, cmp);
        qsort(run, (size_t)reps, sizeof *run, cmp);
        printf("%-20s %8ld %10.1f %10.1f %8s %9zu of %zu\n", policy, pending,
               (double)snap[reps / 2] / 1e3, (double)run[reps / 2] / 1e3,
               berth__est_stop_name(stop), reached, injob);
    }
    fflush(stdout);
    free(snap);
    free(run);
    berth__engine_destroy(d.engine);
    berth_tput_free(d.tput);
    berth_cluster_free(d.cluster);
    for (size_t i = 0; i < d.njobs; i++)
        berth__ljob_free(d.jobs[i]);
    free(d.jobs);
    free(d.by_eidx);
    return 0;
}

int main(int argc, char **argv)
{
    long pending = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
    double budget_s = argc > 2 ? strtod(argv[2], NULL) : 0.2;
    int reps = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 3;
    if (pending < 1 || budget_s <= 0 || reps < 1) {
        fprintf(stderr, "usage: bench_estimate [PENDING] [BUDGET_S] [REPS] [POLICY...]\n");
        return 2;
    }
    berth_us budget = (berth_us)(budget_s * 1e6);
    printf("%-20s %8s %10s %10s %8s %s\n", "policy", "pending", "snap_ms", "run_ms", "stopped",
           "jobs reached a start");
    if (argc > 4) {
        for (int i = 4; i < argc; i++)
            bench(argv[i], pending, budget, reps);
    } else {
        for (size_t i = 0; i < berth_policy_count(); i++)
            bench(berth_policy_name(i), pending, budget, reps);
    }
    return 0;
}
