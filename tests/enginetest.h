/* Runs a trace through the engine with policy parameters that berth_sim_opts does not carry
 * yet (round length, queue limits) or with a hook applied to the policy's state: a small
 * discrete-event loop with the simulator's rules (completions, then arrivals, then one pass;
 * the policy's own timer; fixed speed) and invariant checks after every pass. Next events
 * are found by scanning the jobs, which is fine for the tests' traces. */
#ifndef BERTH_TESTS_ENGINETEST_H
#define BERTH_TESTS_ENGINETEST_H

#include "engine/engine.h"
#include "simtest.h"

#define ENGINETEST_MAX_PASSES 2000000 /* a policy that never lets the run end fails */

struct enginetest {
    struct berth_trace *t;
    struct berth_cluster *c;
    struct berth__engine *e; /* e->jobs[i] is the trace's i-th job (rows in arrival order) */
    berth_us *passes;        /* the instant of every pass, in order */
    size_t npasses;
};

static inline void enginetest_free(struct enginetest *et)
{
    berth__engine_destroy(et->e);
    berth_cluster_free(et->c);
    berth_trace_free(et->t);
    free(et->passes);
    memset(et, 0, sizeof *et);
}

/* When set, called with the engine after every pass; nonzero fails the run. */
static int (*enginetest_after_pass)(const struct berth__engine *e);

/* The next instant something happens: an arrival, a completion or the policy's timer. */
static inline berth_us enginetest_next(const struct berth__engine *e, size_t next, berth_us tick)
{
    berth_us t = tick;
    if (next < e->njobs && (t == BERTH_TIME_NONE || e->jobs[next].spec->arrival_us < t))
        t = e->jobs[next].spec->arrival_us;
    for (size_t i = 0; i < e->njobs; i++) {
        const struct berth__job *j = &e->jobs[i];
        berth_us f = j->since + j->spec->duration_us - j->run_us;
        if (j->state == BERTH_JOB_RUNNING && (t == BERTH_TIME_NONE || f < t))
            t = f;
    }
    return t;
}

/* Replays csv (native, rows in arrival order) on cluster under policy with params; hook,
 * when given, sees the policy's state before the first pass; exec (may be NULL) gets the
 * engine's executor calls and metric (may be NULL) is the jobs' progress metric in the
 * policy's view. Returns 0 with et filled (free it with enginetest_free), or the error code
 * with err filled. */
static inline int enginetest_run_exec(const char *csv, const char *cluster, const char *policy,
                                      const struct berth__params *params, void (*hook)(void *self),
                                      const struct berth__engine_exec *exec,
                                      double (*metric)(void *, const struct berth__job *, berth_us),
                                      struct enginetest *et, struct berth_err *err)
{
    memset(et, 0, sizeof *et);
    const char *path = simtest_write(csv);
    int rc = berth_cluster_parse(cluster, &et->c, err);
    if (!rc)
        rc = berth_trace_load(path, "native", &et->t, err);
    unlink(path);
    if (!rc) /* as the simulator does: a job that could never fit is bad input */
        rc = berth_trace_check(et->t, et->c, err);
    if (!rc)
        rc = berth__engine_create(et->c, policy, NULL, params, exec, &et->e, err);
    size_t n = rc ? 0 : berth_trace_count(et->t);
    const struct berth_jobspec *specs = rc ? NULL : berth_trace_jobs(et->t);
    for (size_t i = 0; i < n && !rc; i++) {
        uint32_t idx;
        rc = berth__engine_add(et->e, &specs[i], &idx, err);
    }
    if (rc) {
        enginetest_free(et);
        return rc;
    }
    berth__engine_set_check(et->e, 1);
    berth__engine_set_metric(et->e, metric, NULL);
    if (hook)
        hook(et->e->self);
    size_t next = 0;
    berth_us now, tick = BERTH_TIME_NONE;
    while ((now = enginetest_next(et->e, next, tick)) != BERTH_TIME_NONE && !rc) {
        for (size_t i = 0; i < n && !rc; i++) {
            const struct berth__job *j = &et->e->jobs[i];
            if (j->state == BERTH_JOB_RUNNING && j->since + j->spec->duration_us - j->run_us == now)
                rc = berth__engine_finish(et->e, (uint32_t)i, now, err);
        }
        while (!rc && next < n && specs[next].arrival_us == now)
            rc = berth__engine_arrive(et->e, (uint32_t)next++, now, err);
        berth_us *p = et->npasses < ENGINETEST_MAX_PASSES
                          ? realloc(et->passes, (et->npasses + 1) * sizeof *p)
                          : NULL;
        if (et->npasses >= ENGINETEST_MAX_PASSES)
            rc = berth_err_set(err, BERTH_EINTERNAL, "enginetest: no end after %zu passes",
                               et->npasses);
        else if (!p)
            rc = berth_err_set(err, BERTH_ENOMEM, "enginetest: out of memory");
        else
            (et->passes = p)[et->npasses++] = now;
        if (!rc)
            rc = berth__engine_pass(et->e, now, err);
        if (!rc && enginetest_after_pass && enginetest_after_pass(et->e))
            rc = berth_err_set(err, BERTH_EINTERNAL,
                               "enginetest: check after the pass at %lld us "
                               "failed",
                               (long long)now);
        tick = berth__engine_next_pass(et->e, now);
    }
    if (!rc && et->e->ndone != n)
        rc = berth_err_set(err, BERTH_EINTERNAL, "enginetest: %zu of %zu jobs done", et->e->ndone,
                           n);
    if (rc)
        enginetest_free(et);
    return rc;
}

/* enginetest_run_exec with no executor and no metric. */
static inline int enginetest_run(const char *csv, const char *cluster, const char *policy,
                                 const struct berth__params *params, void (*hook)(void *self),
                                 struct enginetest *et, struct berth_err *err)
{
    return enginetest_run_exec(csv, cluster, policy, params, hook, NULL, NULL, et, err);
}

#endif
