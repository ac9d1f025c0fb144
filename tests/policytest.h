/* Golden-trace checks shared by the policy tests: a table of expected (start, finish,
 * preemptions) per job, compared with a run of the simulator (berth_sim_run) or of the
 * engine driver (enginetest.h, for parameters the simulator does not take yet). */
#ifndef BERTH_TESTS_POLICYTEST_H
#define BERTH_TESTS_POLICYTEST_H

#include "enginetest.h"
#include "util/rng.h"

struct pt_want {
    const char *id;
    double start, finish; /* seconds */
    int preemptions;
};

struct pt_got { /* one finished job, whichever way it was run */
    const char *id;
    berth_us arrival, duration, start, finish, run;
    int32_t preemptions;
};

/* Checks every wanted job, that every job ran exactly its duration, the average JCT and the
 * total preemptions. */
static inline void pt_check(const struct pt_got *g, size_t ng, const struct pt_want *w, size_t nw,
                            double avg_jct, int preemptions)
{
    double jct = 0;
    int pre = 0;
    for (size_t i = 0; i < ng; i++) {
        CHECK_I64(g[i].run, g[i].duration);
        jct += (double)(g[i].finish - g[i].arrival) / 1e6;
        pre += g[i].preemptions;
    }
    for (size_t k = 0; k < nw; k++) {
        const struct pt_got *j = NULL;
        for (size_t i = 0; i < ng && !j; i++)
            j = strcmp(g[i].id, w[k].id) ? NULL : &g[i];
        CHECK(j != NULL);
        if (!j)
            continue;
        double s = (double)j->start / 1e6, f = (double)j->finish / 1e6;
        if (s != w[k].start || f != w[k].finish || j->preemptions != w[k].preemptions)
            fprintf(stderr, "  job %s: start %.6f finish %.6f preemptions %d\n", j->id, s, f,
                    j->preemptions);
        CHECK_DBL(s, w[k].start, 1e-9);
        CHECK_DBL(f, w[k].finish, 1e-9);
        CHECK_I64(j->preemptions, w[k].preemptions);
    }
    CHECK_DBL(ng ? jct / (double)ng : 0, avg_jct, 1e-6);
    CHECK_I64(pre, preemptions);
}

/* Runs csv under policy in the simulator and checks it against w. */
static inline void pt_sim(const char *csv, const char *cluster, const char *policy,
                          const char *placement, const struct pt_want *w, size_t nw, double avg_jct,
                          int preemptions)
{
    struct simtest st;
    struct berth_err err = {0};
    int rc = simtest_run(csv, cluster, policy, placement, &st, &err);
    CHECK_I64(rc, 0);
    if (rc) {
        fprintf(stderr, "  %s: %s\n", policy, err.msg);
        return;
    }
    struct pt_got *g = calloc(st.r.njobs + 1, sizeof *g);
    for (size_t i = 0; i < st.r.njobs; i++) {
        const struct berth_job_result *j = &st.r.jobs[i];
        g[i] = (struct pt_got){j->spec->id,       j->spec->arrival_us, j->spec->duration_us,
                               j->first_start_us, j->finish_us,        j->run_us,
                               j->preemptions};
    }
    CHECK_I64(st.r.summary.completed, st.r.njobs);
    CHECK_I64(st.r.summary.preemptions, preemptions);
    pt_check(g, st.r.njobs, w, nw, avg_jct, preemptions);
    free(g);
    simtest_free(&st);
}

/* The jobs of a finished engine run as pt_got rows (g has room for e->njobs). */
static inline size_t pt_from_engine(const struct berth__engine *e, struct pt_got *g)
{
    for (size_t i = 0; i < e->njobs; i++) {
        const struct berth__job *j = &e->jobs[i];
        g[i] =
            (struct pt_got){j->spec->id, j->spec->arrival_us, j->spec->duration_us, j->first_start,
                            j->finish,   j->run_us,           j->preemptions};
    }
    return e->njobs;
}

/* Runs csv under policy with params through the engine driver and checks it against w. */
static inline void pt_engine(const char *csv, const char *cluster, const char *policy,
                             const struct berth__params *params, const struct pt_want *w, size_t nw,
                             double avg_jct, int preemptions)
{
    struct enginetest et;
    struct berth_err err = {0};
    int rc = enginetest_run(csv, cluster, policy, params, NULL, &et, &err);
    CHECK_I64(rc, 0);
    if (rc) {
        fprintf(stderr, "  %s: %s\n", policy, err.msg);
        return;
    }
    struct pt_got *g = calloc(et.e->njobs + 1, sizeof *g);
    pt_check(g, pt_from_engine(et.e, g), w, nw, avg_jct, preemptions);
    free(g);
    enginetest_free(&et);
}

/* Compares a run with a reference model's results, job by job (start, finish, preemptions);
 * prints the first differences under what and returns how many jobs differ. */
static inline int pt_compare(const struct pt_got *got, const struct pt_got *ref, size_t n,
                             const char *what)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const struct pt_got *g = &got[i], *r = &ref[i];
        if (g->start == r->start && g->finish == r->finish && g->preemptions == r->preemptions)
            continue;
        if (bad++ < 3)
            fprintf(stderr, "  %s job %zu: got %lld-%lld (%d), reference %lld-%lld (%d)\n", what, i,
                    (long long)g->start, (long long)g->finish, g->preemptions, (long long)r->start,
                    (long long)r->finish, r->preemptions);
    }
    return bad;
}

/* Runs csv on cluster under policy in the simulator (params NULL) or the engine driver
 * (params and hook), and writes each job's start, finish and preemptions to got (room for
 * every job). Returns 0 or the error code. */
static inline int pt_run_into(const char *csv, const char *cluster, const char *policy,
                              const struct berth__params *params, void (*hook)(void *self),
                              struct pt_got *got)
{
    struct berth_err err = {0};
    int rc;
    if (!params) {
        struct simtest st;
        if ((rc = simtest_run(csv, cluster, policy, NULL, &st, &err)) == 0) {
            for (size_t i = 0; i < st.r.njobs; i++)
                got[i] = (struct pt_got){.start = st.r.jobs[i].first_start_us,
                                         .finish = st.r.jobs[i].finish_us,
                                         .preemptions = st.r.jobs[i].preemptions};
            simtest_free(&st);
        }
    } else {
        struct enginetest et;
        if ((rc = enginetest_run(csv, cluster, policy, params, hook, &et, &err)) == 0) {
            pt_from_engine(et.e, got);
            enginetest_free(&et);
        }
    }
    if (rc)
        fprintf(stderr, "  %s: %s\n", policy, err.msg);
    return rc;
}

/* One job of a random workload (microseconds, GPUs). */
struct pt_job {
    berth_us arr, dur;
    int g;
};

/* A random overloaded workload for the reference comparisons: bursts of arrivals (mean gap
 * gap_s), gangs of 1-8, durations from 1 s to max_s with microsecond parts (so limits and
 * rounds fall between whole seconds). mixed: some jobs are tied to a GPU type of
 * 3x4:v100,2x8:p100,4x2:k80 and some 1-2 GPU gangs to one server; PT_ONE_SERVER: the jobs of
 * mixed = 0, every gang on one server. Fills jobs[0..n) and returns the native CSV (free it). */
#define PT_ONE_SERVER 2
static inline char *pt_random_jobs(uint64_t seed, int n, double gap_s, double max_s, int mixed,
                                   struct pt_job *jobs)
{
    struct berth__rng r;
    berth__rng_seed(&r, seed);
    size_t cap = (size_t)n * 80 + 80, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "job_id,arrival_s,duration_s,num_gpus%s\n",
                            mixed == PT_ONE_SERVER ? ",single_server"
                            : mixed                ? ",gpu_type,single_server"
                                                   : "");
    static const int gangs[] = {1, 1, 1, 1, 2, 2, 4, 8};
    static const char *types[] = {"", "", "", "v100", "p100", "k80"};
    berth_us t = 0;
    for (int i = 0; i < n; i++) {
        if (berth__rng_unit(&r) > 0.3)
            t += (berth_us)(berth__rng_exp(&r, 1.0 / gap_s) * 1e6);
        berth_us d = 1000000 + (berth_us)(berth__rng_unit(&r) * (max_s - 1) * 1e6);
        int g = gangs[berth__rng_below(&r, 8)];
        jobs[i] = (struct pt_job){t, d, g};
        len += (size_t)snprintf(s + len, cap - len, "j%d,%lld.%06lld,%lld.%06lld,%d", i,
                                (long long)(t / 1000000), (long long)(t % 1000000),
                                (long long)(d / 1000000), (long long)(d % 1000000), g);
        if (mixed == PT_ONE_SERVER)
            len += (size_t)snprintf(s + len, cap - len, ",1");
        else if (mixed)
            len += (size_t)snprintf(s + len, cap - len, ",%s,%d", types[berth__rng_below(&r, 6)],
                                    g <= 2 && berth__rng_unit(&r) < 0.3);
        len += (size_t)snprintf(s + len, cap - len, "\n");
    }
    return s;
}

/* Runs njobs of the generator's gavel profile (80 jobs/hour, seed 11) on a heterogeneous
 * cluster under policy with invariants checked after every pass: every job finishes after
 * exactly its duration, and the policy preempts. */
static inline void pt_generated(const char *policy, int njobs)
{
    struct berth_gen_opts o;
    berth_gen_opts_init(&o);
    o.profile = "gavel";
    o.jobs = njobs;
    o.rate_per_hour = 80;
    o.seed = 11;
    struct berth_trace *t = NULL;
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_gen(&o, &t, &err), 0);
    CHECK_I64(berth_cluster_parse("6x4:v100,4x4:p100,8x2:k80", &c, &err), 0);
    struct berth_sim_opts so;
    berth_sim_opts_init(&so);
    so.policy = policy;
    so.check_invariants = 1;
    struct berth_sim_result r;
    int rc = t && c ? berth_sim_run(t, c, &so, &r, &err) : -1;
    CHECK_I64(rc, 0);
    if (!rc) {
        CHECK_I64(r.summary.completed, njobs);
        CHECK(r.summary.preemptions > 0);
        for (size_t i = 0; i < r.njobs; i++)
            CHECK_I64(r.jobs[i].run_us, r.jobs[i].spec->duration_us);
        berth_sim_result_free(&r);
    }
    berth_cluster_free(c);
    berth_trace_free(t);
}

/* Runs the real Philly trace ($BERTH_SHARED, 82k jobs on 64x8 V100) under each policy:
 * every job finishes once after exactly its duration and never starts before it arrives.
 * Fills jct[i] and pre[i] and prints them with the wall time; returns 0 when Philly is not
 * there (the test is skipped). */
/* Loads the real Philly trace ($BERTH_SHARED) and its 64x8 V100 cluster: 1, or 0 (with a
 * note naming what is skipped) when the trace is not there. */
static inline int pt_philly_load(struct berth_trace **t, struct berth_cluster **c, const char *what)
{
    const char *shared = getenv("BERTH_SHARED");
    char path[4096];
    struct berth_err err = {0};
    snprintf(path, sizeof path, "%s/traces/philly-pollux/philly.csv", shared ? shared : "");
    if (!shared || !*shared || berth_trace_load(path, NULL, t, &err)) {
        printf("note: %s not there, %s skipped\n", path, what);
        return 0;
    }
    CHECK_I64(berth_cluster_parse("64x8:v100", c, &err), 0);
    return 1;
}

static inline int pt_philly(const char *const *policies, size_t n, double *jct, uint64_t *pre)
{
    struct berth_trace *t;
    struct berth_cluster *c;
    struct berth_err err = {0};
    if (!pt_philly_load(&t, &c, "philly"))
        return 0;
    for (size_t k = 0; k < n; k++) {
        struct berth_sim_opts so;
        berth_sim_opts_init(&so);
        so.policy = policies[k];
        struct berth_sim_result r;
        int rc = berth_sim_run(t, c, &so, &r, &err);
        CHECK_I64(rc, 0);
        if (rc)
            continue;
        CHECK_I64(r.summary.completed, berth_trace_count(t));
        for (size_t i = 0; i < r.njobs; i++) {
            CHECK_I64(r.jobs[i].run_us, r.jobs[i].spec->duration_us);
            CHECK(r.jobs[i].first_start_us >= r.jobs[i].spec->arrival_us);
        }
        jct[k] = r.summary.avg_jct_s;
        pre[k] = r.summary.preemptions;
        printf("  %s: avg JCT %.1f s, %llu preemptions, %.3f s\n", policies[k], r.summary.avg_jct_s,
               (unsigned long long)r.summary.preemptions, r.summary.wall_s);
        berth_sim_result_free(&r);
    }
    berth_cluster_free(c);
    berth_trace_free(t);
    return 1;
}

#endif
