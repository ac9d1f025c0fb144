/* Helpers shared by the tests that compare a fast path with its plain reference on
 * overloaded workloads (tests/sim/test_las_fast.c, tests/policy/test_gavel.c): a random
 * overloaded trace with the throughput model's job types (so consolidate-or-wait is on),
 * and a job-by-job comparison of two results. */
#ifndef BERTH_TESTS_OVERLOAD_H
#define BERTH_TESTS_OVERLOAD_H

#include "simtest.h"
#include "util/rng.h"

/* n jobs arriving every 90 s on average, of hours, gangs drawn from gangs[0..10); some
 * tied to V100 (typed, one in three), one in single_in to one server. */
static inline char *overload_trace(uint64_t seed, int n, const struct berth_tput *m, int typed,
                                   const int gangs[10], int single_in)
{
    struct berth__rng r;
    berth__rng_seed(&r, seed);
    size_t cap = (size_t)n * 120 + 128, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    len += (size_t)snprintf(s + len, cap - len,
                            "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,gpu_type,"
                            "single_server\n");
    size_t ncls = berth_tput_class_count(m);
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += berth__rng_exp(&r, 1.0 / 90);
        int g = gangs[berth__rng_below(&r, 10)];
        const char *cls = berth_tput_class_name(m, berth__rng_below(&r, ncls));
        long steps = 2000 + (long)berth__rng_below(&r, 200000);
        const char *ty = typed && berth__rng_below(&r, 3) == 0 ? "v100" : "";
        int single = berth__rng_below(&r, (uint64_t)single_in) == 0;
        double d = 60 + berth__rng_unit(&r) * 20000;
        len += (size_t)snprintf(s + len, cap - len, "j%d,%.3f,%.3f,%d,%s,%ld,%s,%d\n", i, t, d, g,
                                cls, steps, ty, single);
    }
    return s;
}

/* 1 when a and b agree job by job (start, finish, preemptions, servers, run time) and in
 * the summary's figures (the passes too when passes); the first job that differs is
 * printed. */
static inline int overload_same(const struct berth_sim_result *a, const struct berth_sim_result *b,
                                int passes)
{
    if (a->njobs != b->njobs)
        return 0;
    for (size_t i = 0; i < a->njobs; i++) {
        const struct berth_job_result *x = &a->jobs[i], *y = &b->jobs[i];
        if (strcmp(x->spec->id, y->spec->id) || x->first_start_us != y->first_start_us ||
            x->finish_us != y->finish_us || x->preemptions != y->preemptions ||
            x->servers != y->servers || x->run_us != y->run_us) {
            fprintf(stderr, "  job %s: start %lld/%lld finish %lld/%lld preempted %d/%d\n",
                    x->spec->id, (long long)x->first_start_us, (long long)y->first_start_us,
                    (long long)x->finish_us, (long long)y->finish_us, x->preemptions,
                    y->preemptions);
            return 0;
        }
    }
    return a->summary.avg_jct_s == b->summary.avg_jct_s &&
           a->summary.preemptions == b->summary.preemptions &&
           a->summary.migrations == b->summary.migrations &&
           (!passes || a->summary.passes == b->summary.passes);
}

/* Runs csv on cluster under o with the fast path on (*no_fast 0) and off (1), checks that
 * both runs succeed and agree (overload_same; what names the case when they do not).
 * Returns 1 when both ran (*preemptions: the fast run's), 0 otherwise. */
static inline int overload_fast_vs_plain(const char *csv, const char *cluster,
                                         const struct berth_sim_opts *o, int *no_fast, int passes,
                                         const char *what, long long *preemptions)
{
    struct simtest a, b;
    struct berth_err err = {0};
    *no_fast = 0;
    int rc = simtest_run_opts(csv, cluster, o, &a, &err);
    CHECK_I64(rc, 0);
    *no_fast = 1;
    int rc2 = simtest_run_opts(csv, cluster, o, &b, &err);
    *no_fast = 0;
    CHECK_I64(rc2, 0);
    if (!rc && !rc2) {
        int ok = overload_same(&a.r, &b.r, passes);
        if (!ok)
            fprintf(stderr, "  %s on %s: fast and plain differ\n", what, cluster);
        CHECK(ok);
        *preemptions = (long long)a.r.summary.preemptions;
    }
    if (!rc)
        simtest_free(&a);
    if (!rc2)
        simtest_free(&b);
    return !rc && !rc2;
}

#endif
