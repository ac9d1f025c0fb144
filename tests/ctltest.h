/* Helpers for the shared-cluster controls' tests (quotas, fair-share, backfill, time
 * limits): a simulation of a native trace given as text, with a queues file given as text,
 * and the finished jobs checked against a table of (start, finish, preemptions). */
#ifndef BERTH_TESTS_CTLTEST_H
#define BERTH_TESTS_CTLTEST_H

#include "policytest.h"

struct ct_run {
    struct berth_trace *t;
    struct berth_cluster *c;
    struct berth_queues *q;
    struct berth_sim_result r;
};

static inline void ct_free(struct ct_run *x)
{
    berth_sim_result_free(&x->r);
    berth_trace_free(x->t);
    berth_queues_free(x->q);
    berth_cluster_free(x->c);
    memset(x, 0, sizeof *x);
}

/* Simulates csv on cluster under policy with settings (NULL: none), the queues file text
 * queues (NULL: none) and time-limit factor tlf (0: none). 0, or the error (err filled). */
static inline int ct_sim(const char *csv, const char *cluster, const char *policy,
                         const char *settings, const char *queues, double tlf, struct ct_run *x,
                         struct berth_err *err)
{
    memset(x, 0, sizeof *x);
    const char *tp = simtest_write(csv);
    char tpath[64];
    snprintf(tpath, sizeof tpath, "%s", tp);
    int rc = berth_cluster_parse(cluster, &x->c, err);
    if (!rc)
        rc = berth_trace_load(tpath, "native", &x->t, err);
    unlink(tpath);
    if (!rc && queues) {
        const char *qp = simtest_write(queues);
        char qpath[64];
        snprintf(qpath, sizeof qpath, "%s", qp);
        rc = berth_queues_load(qpath, x->c, &x->q, err);
        unlink(qpath);
    }
    if (!rc) {
        struct berth_sim_opts o;
        berth_sim_opts_init(&o);
        o.policy = policy;
        o.policy_settings = settings;
        o.queues = x->q;
        o.time_limit_factor = tlf;
        o.check_invariants = 1;
        rc = berth_sim_run(x->t, x->c, &o, &x->r, err);
    }
    if (rc) {
        berth_trace_free(x->t);
        berth_queues_free(x->q);
        berth_cluster_free(x->c);
        memset(x, 0, sizeof *x);
    }
    return rc;
}

/* Runs and checks every wanted job's start, finish and preemptions, and the average JCT. */
static inline void ct_check(const char *csv, const char *cluster, const char *policy,
                            const char *settings, const char *queues, double tlf,
                            const struct pt_want *w, size_t nw, double avg_jct)
{
    struct ct_run x;
    struct berth_err err = {0};
    int rc = ct_sim(csv, cluster, policy, settings, queues, tlf, &x, &err);
    CHECK_I64(rc, 0);
    if (rc) {
        fprintf(stderr, "  %s: %s\n", policy, err.msg);
        return;
    }
    double jct = 0;
    for (size_t i = 0; i < x.r.njobs; i++)
        jct += (double)(x.r.jobs[i].finish_us - x.r.jobs[i].spec->arrival_us) / 1e6;
    for (size_t k = 0; k < nw; k++) {
        const struct berth_job_result *j = simtest_job(&x.r, w[k].id);
        CHECK(j != NULL);
        if (!j)
            continue;
        double s = (double)j->first_start_us / 1e6, f = (double)j->finish_us / 1e6;
        if (s != w[k].start || f != w[k].finish || j->preemptions != w[k].preemptions)
            fprintf(stderr, "  %s job %s: start %.6f finish %.6f preemptions %d\n", policy, w[k].id,
                    s, f, j->preemptions);
        CHECK_DBL(s, w[k].start, 1e-9);
        CHECK_DBL(f, w[k].finish, 1e-9);
        CHECK_I64(j->preemptions, w[k].preemptions);
    }
    CHECK_DBL(x.r.njobs ? jct / (double)x.r.njobs : 0, avg_jct, 1e-6);
    ct_free(&x);
}

#endif
