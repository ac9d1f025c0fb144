/* Scheduling-pass benchmark: how long one pass of a policy takes with many active jobs on a
 * large cluster (issue 5's target: < 10 ms with 5,000 active jobs on 1,000 servers).
 *
 * Gavel-like jobs (berth gen's "gavel" profile: job classes of the built-in throughput
 * model, gangs of 1/2/4/8) are registered with the engine; ACTIVE of them arrive at time 0
 * and a first pass places what fits (timed apart: it starts thousands of jobs at once).
 * Then each step advances the clock by 10 s, finishes one running job chosen by the seeded
 * generator, lets the next job arrive, and runs one pass, timed; a policy's own timer is
 * honoured by the same pass. Times are the thread's CPU time. ELASTIC percent of the jobs get
 * min_gpus = 1 and max_gpus = twice their gang (at most 16). Progress is by steps at the model's
 * V100 rate for the gang, kept by a small executor here as the simulator's executor keeps it
 * (without its spread and restart details, which do not change what a pass costs). ONE_GPU = 1
 * makes every job a 1-GPU job (the salus policies run only those). Usage: bench_pass POLICY
 * [SERVERS] [GPUS_PER_SERVER] [ACTIVE] [STEPS] [ELASTIC_PCT] [ONE_GPU] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "berth/gen.h"
#include "berth/tput.h"
#include "engine/engine.h"
#include "model/tput.h"
#include "util/rng.h"

/* CPU time of this thread: on a shared, loaded machine a wall-clock p99 measures the other
 * processes; the pass itself is single-threaded and does no I/O. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fold(struct berth__job *j, berth_us now)
{
    j->done = berth__job_done(j, now);
    j->progress_at = now;
}

/* a step job runs at the model's rate for its gang on V100s (type 0), consolidated */
static void on_start(void *ctx, struct berth__job *j, berth_us now)
{
    const struct berth__engine *e = ctx;
    fold(j, now);
    j->rate = berth__tput_rate(e->tput, j->cls, e->tput_type[0], j->gpus, 0) / 1e6;
}

static void on_stop(void *ctx, struct berth__job *j, berth_us now)
{
    (void)ctx;
    fold(j, now);
    j->rate = 0.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long arg(int argc, char **argv, int i, long def)
{
    return argc > i ? strtol(argv[i], NULL, 10) : def;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_pass POLICY [SERVERS] [GPUS] [ACTIVE] [STEPS] "
                        "[ELASTIC_PCT] [ONE_GPU]\n");
        return 2;
    }
    const char *policy = argv[1];
    long servers = arg(argc, argv, 2, 1000), gpus = arg(argc, argv, 3, 8);
    long active = arg(argc, argv, 4, 5000), steps = arg(argc, argv, 5, 200);
    long elastic = arg(argc, argv, 6, 0);
    long one_gpu = arg(argc, argv, 7, 0);
    if (servers < 1 || gpus < 1 || gpus > 64 || active < 1 || steps < 1 || elastic < 0 ||
        elastic > 100) {
        fprintf(stderr, "bench_pass: bad arguments\n");
        return 2;
    }
    struct berth_err err = {0};
    struct berth_gen_opts go;
    berth_gen_opts_init(&go);
    go.profile = "gavel";
    go.jobs = (size_t)(active + steps);
    go.seed = 1;
    struct berth_trace *t = NULL;
    struct berth_cluster *c = NULL;
    struct berth_tput *m = NULL;
    struct berth__engine *e = NULL;
    char spec[64];
    snprintf(spec, sizeof spec, "%ldx%ld:v100", servers, gpus);
    int rc = berth_gen(&go, &t, &err);
    if (!rc)
        rc = berth_cluster_parse(spec, &c, &err);
    if (!rc)
        rc = berth_tput_builtin(&m, &err);
    size_t n = rc ? 0 : berth_trace_count(t);
    struct berth_jobspec *specs = rc ? NULL : malloc(n * sizeof *specs);
    if (!rc && !specs)
        rc = BERTH_ENOMEM;
    struct berth__rng rng;
    berth__rng_seed(&rng, 7);
    for (size_t i = 0; i < n && !rc; i++) {
        specs[i] = berth_trace_jobs(t)[i];
        /* the first ACTIVE arrive at 0, then one every 10 s */
        specs[i].arrival_us =
            i < (size_t)active ? 0 : (berth_us)(i - (size_t)active + 1) * 10000000;
        if (one_gpu)
            specs[i].num_gpus = specs[i].min_gpus = specs[i].max_gpus = 1;
        if ((long)berth__rng_below(&rng, 100) < elastic) {
            specs[i].min_gpus = 1;
            specs[i].max_gpus = specs[i].num_gpus * 2 > 16 ? 16 : specs[i].num_gpus * 2;
        }
    }
    /* the simulator's defaults (berth_sim_opts_init): 60 s quantum, policies' own rounds */
    struct berth__params params = {.seed = 1, .quantum_us = 60 * BERTH_US_PER_S};
    struct berth__engine_exec ex = {.start = on_start, .stop = on_stop, .migrate = on_start};
    if (!rc)
        rc = berth__engine_create(c, policy, NULL, &params, &ex, &e, &err);
    if (!rc)
        e->exec.ctx = e;
    if (!rc)
        rc = berth__engine_set_tput(e, m, &err);
    for (size_t i = 0; i < n && !rc; i++) {
        uint32_t idx;
        rc = berth__engine_add(e, &specs[i], &idx, &err);
        struct berth__job *j = rc ? NULL : &e->jobs[idx];
        if (j && (j->cls = berth__tput_class_find(m, berth_jobspec_extra(&specs[i])->job_type)) < 0)
            rc = berth_err_set(&err, BERTH_EINPUT, "job type %s not in the model",
                               berth_jobspec_extra(&specs[i])->job_type);
        if (j && !rc) { /* as the simulator's executor sets a step job up */
            j->work = (double)specs[i].total_steps;
            double r = berth__tput_rate(m, j->cls, e->tput_type[0], j->gpus, 0);
            j->est_us = (berth_us)(j->work / r * 1e6) + 1;
        }
    }
    double first = 0, *lat = calloc((size_t)steps, sizeof *lat);
    if (!rc && !lat)
        rc = BERTH_ENOMEM;
    for (long i = 0; i < active && !rc; i++)
        rc = berth__engine_arrive(e, (uint32_t)i, 0, &err);
    if (!rc) {
        double t0 = now_s();
        rc = berth__engine_pass(e, 0, &err);
        first = now_s() - t0;
    }
    uint32_t *running = rc ? NULL : malloc(n * sizeof *running);
    if (!rc && !running)
        rc = BERTH_ENOMEM;
    long done_steps = 0;
    for (long s = 0; s < steps && !rc; s++) {
        berth_us now = (berth_us)(s + 1) * 10000000;
        size_t nr = 0;
        for (size_t i = 0; i < e->njobs; i++)
            if (e->jobs[i].state == BERTH_JOB_RUNNING)
                running[nr++] = (uint32_t)i;
        if (nr)
            rc = berth__engine_finish(e, running[berth__rng_below(&rng, nr)], now, &err);
        if (!rc)
            rc = berth__engine_arrive(e, (uint32_t)(active + s), now, &err);
        if (rc)
            break;
        double t0 = now_s();
        rc = berth__engine_pass(e, now, &err);
        lat[s] = now_s() - t0;
        done_steps++;
    }
    if (rc) {
        fprintf(stderr, "bench_pass: %s\n", err.msg);
    } else {
        qsort(lat, (size_t)done_steps, sizeof *lat, cmp_double);
        double sum = 0;
        for (long i = 0; i < done_steps; i++)
            sum += lat[i];
        long p99 = (done_steps * 99 + 99) / 100 - 1;
        printf("%-22s %ld servers x %ld GPUs, %ld active (%ld%% elastic): CPU time of the first "
               "pass %.2f ms, "
               "then p50 %.3f ms, p99 %.3f ms, max %.3f ms, mean %.3f ms over %ld passes "
               "(%zu running, %zu pending)\n",
               policy, servers, gpus, active, elastic, first * 1e3, lat[done_steps / 2] * 1e3,
               lat[p99] * 1e3, lat[done_steps - 1] * 1e3, sum / (double)done_steps * 1e3,
               done_steps, e->nrunning, e->npending);
    }
    free(running);
    free(lat);
    berth__engine_destroy(e);
    free(specs);
    berth_tput_free(m);
    berth_cluster_free(c);
    berth_trace_free(t);
    return rc ? 1 : 0;
}
