/* Scheduling-pass latency as berthd sees it: a cluster of 5,000 servers x 8 GPUs kept full,
 * 100,000 jobs pending; each step one running job finishes, one new job arrives, and one
 * pass runs (what berthd does at an event). Prints p50 / p99 / max of the pass time.
 * Jobs belong to 100 users in 10 queues (fair-share's accounts) and have a time limit of
 * twice their run time (backfill's reservations). Times are the pass's CPU time. SETTINGS are
 * --policy-arg's (KEY=VALUE,...), e.g. fairshare_weight=3600 or backfill=1. The salus policies run
 * 1-GPU jobs only: under them every job asks for one GPU. Usage: bench_live_pass [POLICY] [SERVERS]
 * [PENDING] [PASSES] [SETTINGS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"

/* The pass's CPU time (this thread's), not the wall clock: on a shared machine a pass that
 * the kernel puts off for another process's time slice would count that slice (at load 5,
 * wall p99 was 70-120 ms where CPU p99 is 2 ms). */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *policy = argc > 1 ? argv[1] : "fifo";
    long servers = argc > 2 ? strtol(argv[2], NULL, 10) : 5000;
    long pending = argc > 3 ? strtol(argv[3], NULL, 10) : 100000;
    long passes = argc > 4 ? strtol(argv[4], NULL, 10) : 2000;
    const char *settings = argc > 5 ? argv[5] : NULL;
    char spec[64];
    snprintf(spec, sizeof spec, "%ldx8:a100", servers);
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    struct berth__engine *e = NULL;
    struct berth__params p = {.quantum_us = 60 * BERTH_US_PER_S, .settings = settings};
    if (berth_cluster_parse(spec, &c, &err) ||
        berth__engine_create(c, policy, NULL, &p, NULL, &e, &err)) {
        fprintf(stderr, "bench_pass: %s\n", err.msg);
        return 1;
    }
    /* enough jobs to fill the cluster, the pending ones, and one arrival per pass */
    long fill = servers * 8, total = fill + pending + passes;
    struct berth_jobspec *specs = calloc((size_t)total, sizeof *specs);
    struct berth_jobspec_extra *extras = calloc((size_t)total, sizeof *extras);
    char(*ids)[24] = calloc((size_t)total, sizeof *ids);
    static char users[100][8], queues[10][8];
    for (int u = 0; u < 100; u++)
        snprintf(users[u], sizeof users[u], "u%d", u);
    for (int q = 0; q < 10; q++)
        snprintf(queues[q], sizeof queues[q], "q%d", q);
    double *lat = calloc((size_t)passes, sizeof *lat);
    uint64_t x = 88172645463325252ULL;
    int one_gpu = !strncmp(policy, "salus", 5);
    for (long i = 0; i < total; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int g = i < fill || one_gpu ? 1 : 1 << (x % 4); /* 1, 2, 4 or 8 GPUs */
        snprintf(ids[i], sizeof ids[i], "%ld", i);
        berth_us dur = (berth_us)(1 + x % 36000) * BERTH_US_PER_S;
        extras[i] = (struct berth_jobspec_extra){.time_limit_us = 2 * dur,
                                                 .job_type = "",
                                                 .user = users[(x >> 8) % 100],
                                                 .status = "",
                                                 .gpu_type = ""};
        specs[i] = (struct berth_jobspec){.id = ids[i],
                                          .duration_us = dur,
                                          .num_gpus = g,
                                          .min_gpus = g,
                                          .max_gpus = g,
                                          .gpu_share_milli = 1000,
                                          .queue = queues[(x >> 8) % 100 / 10],
                                          .extra = &extras[i]};
        uint32_t idx;
        if (berth__engine_add(e, &specs[i], &idx, &err)) {
            fprintf(stderr, "bench_pass: %s\n", err.msg);
            return 1;
        }
    }
    berth_us t = 0;
    for (long i = 0; i < fill + pending; i++)
        berth__engine_arrive(e, (uint32_t)i, t, &err);
    double t0 = now_s();
    if (berth__engine_pass(e, t, &err)) {
        fprintf(stderr, "bench_pass: %s\n", err.msg);
        return 1;
    }
    double first = now_s() - t0;
    long next = fill + pending;
    for (long k = 0; k < passes; k++) {
        t += BERTH_US_PER_S;
        /* a random running job finishes, a new one arrives */
        for (;;) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint32_t j = (uint32_t)(x % (uint64_t)(next));
            if (e->jobs[j].state == BERTH_JOB_RUNNING) {
                berth__engine_finish(e, j, t, &err);
                break;
            }
        }
        berth__engine_arrive(e, (uint32_t)next++, t, &err);
        double a = now_s();
        if (berth__engine_pass(e, t, &err)) {
            fprintf(stderr, "bench_pass: %s\n", err.msg);
            return 1;
        }
        lat[k] = now_s() - a;
    }
    qsort(lat, (size_t)passes, sizeof *lat, cmp);
    printf("policy %s%s%s, %ld servers (%ld GPUs), %zu pending, %ld passes: first pass %.1f ms; "
           "p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
           e->ops->name, settings ? " " : "", settings ? settings : "", servers, fill, e->npending,
           passes, first * 1e3, lat[passes / 2] * 1e3, lat[passes * 99 / 100] * 1e3,
           lat[passes - 1] * 1e3);
    berth__engine_destroy(e);
    berth_cluster_free(c);
    free(specs);
    free(extras);
    free(ids);
    free(lat);
    return 0;
}
