/* LP benchmark: how long one allocation of the Gavel-family LPs takes with many active jobs
 * on three GPU types (target: < 100 ms a solve). The problem is generated from a fixed seed,
 * Gavel-like: gangs of 1/2/4/8 GPUs (70/10/15/5 %), six job classes whose speed on
 * V100/P100/K80 differs, 36 GPUs of each type, jobs that have waited up to a day and done
 * part of their work. Workloads: "classes", throughputs per class and gang as the policies
 * take them from the throughput model (identical jobs are common), and "distinct", every
 * job's throughputs perturbed by up to 20 % (no two alike: the LP's worst case); ", new":
 * the same jobs all just arrived, which makes finish-time fairness bisect (jobs that waited
 * long usually pin rho to its lower bound at once).
 * bench/run.sh drives it. Usage: bench_lp [JOBS] [REPEAT] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "solve/lp_alloc.h"
#include "util/rng.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { M = 3, CLASSES = 6 };

/* Solves the problem REPEAT times under each model (only finish-time fairness when
 * only_ftf); prints the best and mean time a solve. */
static int run(size_t n, long repeat, const char *workload, int only_ftf, const double *sf,
               const double *t, const double *ng, const double *el, const double *iso,
               const double *rem, double *x)
{
    struct berth__lp_problem p = {.n = n,
                                  .m = M,
                                  .sf = sf,
                                  .tput = t,
                                  .ngpus = ng,
                                  .elapsed = el,
                                  .iso_time = iso,
                                  .remaining = rem};
    const char *names[] = {"gavel-max-min", "gavel-max-min-perf", "themis-ftf"};
    for (int k = only_ftf ? 2 : 0; k < 3; k++) {
        double best = 1e30, sum = 0;
        struct berth__lp_stats st = {0};
        for (long rep = 0; rep < repeat; rep++) {
            struct berth_err err = {0};
            double t0 = now_s();
            int rc =
                k < 2 ? berth__lp_max_min(&p, k, x, &st, &err) : berth__lp_ftf(&p, x, &st, &err);
            double dt = now_s() - t0;
            if (rc) {
                fprintf(stderr, "bench_lp: %s\n", err.msg);
                return 1;
            }
            best = dt < best ? dt : best;
            sum += dt;
        }
        printf("%-19s %-14s %zu jobs x %d types: best %7.1f ms, mean %7.1f ms a solve "
               "(%d simplex calls, %d iterations, objective %.6g)\n",
               names[k], workload, n, M, best * 1e3, sum / (double)repeat * 1e3, st.solves,
               st.iterations, st.objective);
    }
    return 0;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    long repeat = argc > 2 ? strtol(argv[2], NULL, 10) : 5;
    if (n == 0 || repeat < 1) {
        fprintf(stderr, "usage: bench_lp [JOBS] [REPEAT]\n");
        return 2;
    }
    /* steps/s of each class on V100, P100, K80 */
    static const double cls_rate[CLASSES][M] = {{10, 6, 2.5}, {4, 3, 1.5},     {80, 40, 10},
                                                {20, 15, 10}, {1.5, 0.8, 0.2}, {30, 20, 0}};
    double ng[M] = {36, 36, 36};
    double *sf = malloc(n * sizeof *sf), *t = malloc(n * M * sizeof *t);
    double *el = malloc(n * sizeof *el), *iso = malloc(n * sizeof *iso);
    double *rem = malloc(n * sizeof *rem), *x = malloc(n * M * sizeof *x);
    if (!sf || !t || !el || !iso || !rem || !x) {
        fprintf(stderr, "bench_lp: out of memory\n");
        return 1;
    }
    struct berth__rng r;
    static const char *const workload[] = {"classes", "distinct", "classes, new", "distinct, new"};
    for (int w = 0; w < 4; w++) {
        int distinct = w & 1, fresh = w >> 1;
        berth__rng_seed(&r, 1);
        for (size_t i = 0; i < n; i++) {
            double u = berth__rng_unit(&r);
            sf[i] = u < 0.7 ? 1 : u < 0.8 ? 2 : u < 0.95 ? 4 : 8;
            size_t c = (size_t)berth__rng_below(&r, CLASSES);
            for (int j = 0; j < M; j++) { /* gangs scale at 90 % */
                double noise = berth__rng_uniform(&r, 0.8, 1.0);
                t[i * M + j] = cls_rate[c][j] * sf[i] * 0.9 * (distinct ? noise : 1);
            }
            el[i] = fresh ? 0 : berth__rng_uniform(&r, 0, 86400);
            iso[i] = el[i] * berth__rng_uniform(&r, 0.3, 1.0);
            rem[i] = t[i * M] * berth__rng_uniform(&r, 600, 86400);
        }
        if (run(n, repeat, workload[w], fresh, sf, t, ng, el, iso, rem, x))
            return 1;
    }
    free(sf);
    free(t);
    free(el);
    free(iso);
    free(rem);
    free(x);
    return 0;
}
