/* Loader benchmark: loads one trace REPEAT times through the public API and prints the best
 * wall time, the rows and jobs, and the process's peak memory. bench/run.sh drives it.
 * Usage: bench_load FORMAT PATH [REPEAT] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "berth/berth.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_load FORMAT PATH [REPEAT]\n");
        return 2;
    }
    int repeat = argc > 3 ? atoi(argv[3]) : 3;
    double best = 1e30;
    struct berth_load_report rep = {0};
    for (int i = 0; i < (repeat > 0 ? repeat : 1); i++) {
        struct berth_load_opts o = {.format = argv[1]};
        struct berth_trace *t = NULL;
        struct berth_err err = {0};
        double t0 = now_s();
        if (berth_trace_load_opts(argv[2], &o, &rep, &t, &err)) {
            fprintf(stderr, "bench_load: %s\n", err.msg);
            return 1;
        }
        double dt = now_s() - t0;
        if (dt < best)
            best = dt;
        berth_trace_free(t);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%.4f s best of %d, %zu rows, %zu jobs, %zu left out, peak %.1f MB\n", best, repeat,
           rep.rows, rep.jobs, rep.skipped, (double)ru.ru_maxrss / 1024);
    return 0;
}
