/* The start-time estimate (live/daemon/estimate.c) by hand, on a daemon of 1 server x 4
 * GPUs whose live engine ran one pass at t0 (J1 started then). The virtual run counts each
 * running job's time left from what it ran by now, so its end is t0 + its run time whatever
 * the instant the estimate runs at: the figures below are exact.
 *
 * fifo: J1 4 GPUs 3 s runs from t0; J2 2 GPUs 2 s, J3 2 GPUs 1 s, J4 4 GPUs 1 s pending.
 *   J2 and J3 start at t0 + 3 s; J3 ends at + 4 s, J2 at + 5 s; J4 starts at + 5 s, ends
 *   at + 6 s.
 * backfill (run times are limits): J1 2 GPUs, limit 10 s, runs from t0; J2 4 GPUs, 5 s,
 *   the head: reserved at t0 + 10 s; J3 2 GPUs 4 s ends before that: it backfills now;
 *   J4 2 GPUs 20 s would delay J2: it waits for J2's end, t0 + 15 s.
 * Run times: a job without est_s takes its limit; without either, its user's mean over
 *   completed jobs (100 s and 300 s: 200 s); est_s above the limit is cut to the limit.
 * A held job (outside the scheduler) has no estimate. */
#include <stdlib.h>

#include "check.h"
#include "live/daemon/daemon.h"
#include "live/daemon/estimate.h"

#define S(x) ((berth_us)(x)*BERTH_US_PER_S)

struct fixture {
    struct berth__daemon d;
    struct berth__ljob *jobs[16];
    uint32_t by_eidx[16];
    struct berth__est_result *er; /* the last run's */
};

static struct berth__ljob *job(struct fixture *f, const char *user, int gpus, double est_s,
                               double limit_s)
{
    struct berth__ljob *j = calloc(1, sizeof *j);
    j->spec.extra = &j->extra;
    j->user = strdup(user);
    j->name = strdup("x");
    j->extra.user = j->user;
    j->spec.queue = strdup("");
    j->extra.gpu_type = strdup("");
    j->extra.job_type = strdup("");
    j->extra.status = "";
    j->spec.num_gpus = gpus;
    j->spec.gpu_share_milli = 1000;
    j->spec.duration_us = est_s > 0 ? (berth_us)(est_s * 1e6) : S(3600);
    j->est_given = est_s > 0;
    j->extra.time_limit_us = (berth_us)(limit_s * 1e6);
    j->exit_code = j->exit_signal = -1;
    berth__ljob_set_id(j, f->d.njobs + 1);
    f->jobs[f->d.njobs++] = j;
    return j;
}

static void setup(struct fixture *f, const char *policy)
{
    memset(f, 0, sizeof *f);
    struct berth_err err = {0};
    CHECK_I64(berth_cluster_parse("1x4:v100", &f->d.cluster, &err), 0);
    struct berth__params p = {.quantum_us = S(60)};
    CHECK_I64(berth__engine_create(f->d.cluster, policy, NULL, &p, NULL, &f->d.engine, &err), 0);
    f->d.jobs = f->jobs;
    f->d.by_eidx = f->by_eidx;
}

/* Puts j into the live engine (arrived at t0), unless it is held. */
static void enter(struct fixture *f, struct berth__ljob *j, berth_us t0)
{
    struct berth_err err = {0};
    uint32_t k;
    CHECK_I64(berth__engine_add(f->d.engine, &j->spec, &k, &err), 0);
    f->by_eidx[k] = (uint32_t)j->id;
    j->eidx = k;
    j->in_engine = 1;
    j->state = BERTH_L_PENDING;
    CHECK_I64(berth__engine_arrive(f->d.engine, k, t0, &err), 0);
}

static void teardown(struct fixture *f)
{
    berth__engine_destroy(f->d.engine);
    berth_cluster_free(f->d.cluster);
    for (size_t i = 0; i < f->d.njobs; i++)
        berth__ljob_free(f->jobs[i]);
    berth__est_result_free(f->er);
}

/* One estimate as berthd's thread makes it: the snapshot (under d->mu there), then the run. */
static int estimate(struct fixture *f, berth_us budget_us, struct berth_err *err)
{
    struct berth__est_snap *s = NULL;
    berth__est_result_free(f->er);
    f->er = NULL;
    int rc = berth__est_snap_take(&f->d, berth__wall_us(), &s, err);
    if (!rc)
        rc = berth__est_snap_run(s, budget_us, &f->er, err);
    berth__est_snap_free(s);
    return rc;
}

/* id's prediction, NULL when it has none (not in the run, or no start there). */
static const struct berth__est *est(struct fixture *f, int id)
{
    const struct berth__est *e = berth__est_find(f->er, (uint64_t)id);
    return e && e->start_us ? e : NULL;
}

/* The fifo case of the top: J1 (4 GPUs, 3 s) started at t0, then J2-J4 pending. */
static berth_us fifo_queue(struct fixture *f)
{
    struct berth_err err = {0};
    setup(f, "fifo");
    berth_us t0 = berth__wall_us();
    enter(f, job(f, "a", 4, 3, 0), t0);
    CHECK_I64(berth__engine_pass(f->d.engine, t0, &err), 0); /* J1 starts */
    CHECK_I64(f->d.engine->jobs[0].state, BERTH_JOB_RUNNING);
    f->jobs[0]->state = BERTH_L_RUNNING;
    enter(f, job(f, "a", 2, 2, 0), t0);
    enter(f, job(f, "a", 2, 1, 0), t0);
    enter(f, job(f, "a", 4, 1, 0), t0);
    return t0;
}

static void test_fifo(void)
{
    struct fixture f;
    struct berth_err err = {0};
    berth_us t0 = fifo_queue(&f);
    CHECK_I64(estimate(&f, S(60), &err), 0);
    CHECK(est(&f, 2) && est(&f, 3) && est(&f, 4));
    if (est(&f, 4)) {
        CHECK_I64(est(&f, 1)->end_us, t0 + S(3));
        CHECK_I64(est(&f, 2)->start_us, t0 + S(3));
        CHECK_I64(est(&f, 3)->start_us, t0 + S(3));
        CHECK_I64(est(&f, 3)->end_us, t0 + S(4));
        CHECK_I64(est(&f, 2)->end_us, t0 + S(5));
        CHECK_I64(est(&f, 4)->start_us, t0 + S(5));
        CHECK_I64(est(&f, 4)->end_us, t0 + S(6));
    }
    CHECK_I64(f.er->stop, BERTH_EST_DONE);
    CHECK_I64(f.er->n, 4);
    CHECK_I64(f.er->started, 4);
    CHECK_I64(f.er->passes, f.d.engine->passes); /* the live state it is of */
    CHECK_I64(f.er->njobs, 4);
    teardown(&f);
}

static void test_backfill(void)
{
    struct fixture f;
    setup(&f, "backfill");
    struct berth_err err = {0};
    berth_us t0 = berth__wall_us();
    enter(&f, job(&f, "a", 2, 0, 10), t0);
    CHECK_I64(berth__engine_pass(f.d.engine, t0, &err), 0);
    f.jobs[0]->state = BERTH_L_RUNNING;
    enter(&f, job(&f, "a", 4, 0, 5), t0);
    enter(&f, job(&f, "a", 2, 0, 4), t0);
    enter(&f, job(&f, "a", 2, 0, 20), t0);
    berth_us before = berth__wall_us();
    CHECK_I64(estimate(&f, S(60), &err), 0);
    berth_us after = berth__wall_us();
    CHECK(est(&f, 2) && est(&f, 3) && est(&f, 4));
    if (est(&f, 4)) {
        CHECK_I64(est(&f, 2)->start_us, t0 + S(10));
        CHECK_I64(est(&f, 2)->end_us, t0 + S(15));
        CHECK(est(&f, 3)->start_us >= before && est(&f, 3)->start_us <= after); /* now */
        CHECK_I64(est(&f, 3)->end_us - est(&f, 3)->start_us, S(4));
        CHECK_I64(est(&f, 4)->start_us, t0 + S(15));
    }
    teardown(&f);
}

static void test_run_times(void)
{
    struct fixture f;
    setup(&f, "fifo");
    struct berth_err err = {0};
    berth_us t0 = berth__wall_us();
    for (int k = 0; k < 2; k++) { /* bob's history: 100 s and 300 s */
        struct berth__ljob *h = job(&f, "bob", 1, 0, 0);
        h->state = BERTH_L_COMPLETED;
        h->ran_us = S(100 + 200 * k);
    }
    enter(&f, job(&f, "a", 4, 50, 0), t0); /* J3 runs 50 s */
    CHECK_I64(berth__engine_pass(f.d.engine, t0, &err), 0);
    f.jobs[2]->state = BERTH_L_RUNNING;
    enter(&f, job(&f, "bob", 4, 0, 0), t0);           /* J4: bob's mean, 200 s */
    enter(&f, job(&f, "a", 4, 0, 30), t0);            /* J5: its limit, 30 s */
    enter(&f, job(&f, "a", 4, 90, 40), t0);           /* J6: est 90 s cut to its limit, 40 s */
    struct berth__ljob *held = job(&f, "a", 1, 1, 0); /* J7: held, outside */
    held->state = BERTH_L_HELD;
    CHECK_I64(estimate(&f, S(60), &err), 0);
    CHECK(est(&f, 4) && est(&f, 5) && est(&f, 6));
    if (est(&f, 6)) {
        CHECK_I64(est(&f, 4)->start_us, t0 + S(50));
        CHECK_I64(est(&f, 4)->end_us, t0 + S(250));
        CHECK_I64(est(&f, 5)->end_us, t0 + S(280));
        CHECK_I64(est(&f, 6)->end_us, t0 + S(320));
    }
    CHECK(!est(&f, 7));
    CHECK(!est(&f, 1)); /* a finished job */
    teardown(&f);
}

/* A budget spent after the first pass: J1 (running) keeps its end; J2-J4, which start only
 * when J1 ends, are in the run but not reached, and the result says the budget ended it. */
static void test_budget(void)
{
    struct fixture f;
    struct berth_err err = {0};
    berth_us t0 = fifo_queue(&f);
    CHECK_I64(estimate(&f, 0, &err), 0);
    CHECK_I64(f.er->stop, BERTH_EST_BUDGET);
    CHECK_I64(f.er->budget_us, 0);
    CHECK_I64(f.er->n, 4);
    CHECK_I64(f.er->started, 1);
    CHECK(est(&f, 1) && est(&f, 1)->end_us == t0 + S(3));
    for (int id = 2; id <= 4; id++) /* in the run, not reached */
        CHECK(berth__est_find(f.er, (uint64_t)id) && !est(&f, id));
    CHECK(!berth__est_find(f.er, 5));
    CHECK_STR(berth__est_stop_name(f.er->stop), "budget");
    teardown(&f);
}

/* The snapshot owns what it copied: the run gives the same answer after the live engine and
 * every live job are gone (under the sanitizers a pointer kept into them is an error). */
static void test_snapshot_owns(void)
{
    struct fixture f;
    struct berth_err err = {0};
    berth_us t0 = fifo_queue(&f);
    struct berth__est_snap *s = NULL;
    CHECK_I64(berth__est_snap_take(&f.d, berth__wall_us(), &s, &err), 0);
    berth__engine_destroy(f.d.engine);
    f.d.engine = NULL;
    for (size_t i = 0; i < f.d.njobs; i++) {
        memset(f.jobs[i]->user, 'X', strlen(f.jobs[i]->user)); /* a reused string */
        berth__ljob_free(f.jobs[i]);
    }
    f.d.njobs = 0;
    CHECK_I64(berth__est_snap_run(s, S(60), &f.er, &err), 0);
    berth__est_snap_free(s);
    CHECK(est(&f, 4));
    if (est(&f, 4)) {
        CHECK_I64(est(&f, 2)->end_us, t0 + S(5));
        CHECK_I64(est(&f, 3)->end_us, t0 + S(4));
        CHECK_I64(est(&f, 4)->start_us, t0 + S(5));
    }
    teardown(&f);
}

static const struct check_test tests[] = {
    {"fifo", test_fifo},     {"backfill", test_backfill},           {"run_times", test_run_times},
    {"budget", test_budget}, {"snapshot_owns", test_snapshot_owns},
};

CHECK_MAIN(tests)
