/* Queues with quotas, borrowing, lending, cohorts and limits (sched/quota.c through the
 * ordering scheduler), by hand on one server of 4 GPUs under fifo-skip, and the why codes.
 *
 * Queues a and b in cohort lab, 2 GPUs of quota each.
 * Borrow and reclaim: X1 and X2 (queue b, 2 GPUs, 100 s) arrive at 0; b's quota is 2, but a
 *   uses nothing, so X2 borrows a's 2 GPUs and both run from 0. Y (queue a, 2 GPUs, 50 s)
 *   arrives at 10: a is within its quota (0 + 2 <= 2) but the cohort's pool (4) is all
 *   used, so a reclaims: b's youngest job is X2 (both started at 0, X2 is the later job) and
 *   it is preempted at 10. Y runs 10-60. X2 cannot borrow again while Y runs (the cohort
 *   would use 6 of 4); at 60 it restarts with its 90 s left: 60-150. X1 runs 0-100.
 *   JCTs 100, 150, 50: 100 on average; 1 preemption.
 * Lending limit: a lends at most 1 GPU (lend=1): the pool is 1 + 2 = 3, X2 would make the
 *   cohort's use 4: it waits until X1 ends (100-200). Y starts at 10 (a's own 2 GPUs are
 *   idle). JCTs 100, 200, 50.
 * Borrowing limit: b may borrow 1 (borrow=1): X2 would hold 4 > 2 + 1: the same as above.
 * No cohort: a queue never goes past its quota: X2 waits for X1 although 2 GPUs are idle. */
#include "ctltest.h"
#include "engine/engine.h"
#include "model/queues.h"
#include "sched/lend.h"

static const char *jobs = "job_id,arrival_s,duration_s,num_gpus,queue\n"
                          "X1,0,100,2,b\n"
                          "X2,0,100,2,b\n"
                          "Y,10,50,2,a\n";

static void test_reclaim(void)
{
    const char *q = "queue a cohort=lab quota=2\nqueue b cohort=lab quota=2\n";
    const struct pt_want w[] = {{"X1", 0, 100, 0}, {"X2", 0, 150, 1}, {"Y", 10, 60, 0}};
    ct_check(jobs, "1x4:v100", "fifo-skip", NULL, q, 0, w, 3, 100);
    /* the same under sjf and las: the quota gate and the reclaim are the family's */
    ct_check(jobs, "1x4:v100", "sjf", NULL, q, 0, w, 3, 100);
}

static void test_lend_borrow(void)
{
    const struct pt_want w[] = {{"X1", 0, 100, 0}, {"X2", 100, 200, 0}, {"Y", 10, 60, 0}};
    const char *lend = "queue a cohort=lab quota=v100:2 lend=v100:1\nqueue b cohort=lab quota=2\n";
    ct_check(jobs, "1x4:v100", "fifo-skip", NULL, lend, 0, w, 3, 350.0 / 3);
    const char *borrow = "queue a cohort=lab quota=2\nqueue b cohort=lab quota=2 borrow=1\n";
    ct_check(jobs, "1x4:v100", "fifo-skip", NULL, borrow, 0, w, 3, 350.0 / 3);
    const char *alone = "queue a quota=2\nqueue b quota=2\n";
    ct_check(jobs, "1x4:v100", "fifo-skip", NULL, alone, 0, w, 3, 350.0 / 3);
}

/* Limits: user alice may hold 1 GPU (max_gpus=1): her two 1-GPU jobs run one after the
 * other while bob's runs at once; queue b may hold 2 GPUs (max_gpus=2), whatever its
 * quota. Jobs without a queue are in "default", and "*" takes every queue not named. */
static void test_limits(void)
{
    const char *t = "job_id,arrival_s,duration_s,num_gpus,user,queue\n"
                    "P,0,10,1,alice,\nQ,0,10,1,alice,\nR,0,10,1,bob,\n"
                    "S,0,10,2,carol,b\nT,0,10,1,carol,b\n";
    const char *q = "user alice max_gpus=1\nqueue b max_gpus=2\nqueue * share=1\n";
    const struct pt_want w[] = {
        {"P", 0, 10, 0}, {"Q", 10, 20, 0}, {"R", 0, 10, 0}, {"S", 0, 10, 0}, {"T", 10, 20, 0}};
    ct_check(t, "1x8:v100", "fifo-skip", NULL, q, 0, w, 5, 14);
}

/* A job whose queue the file does not name (and no "*") is bad input before the run. */
static void test_unknown_queue(void)
{
    struct ct_run x;
    struct berth_err err = {0};
    CHECK_I64(ct_sim(jobs, "1x4:v100", "fifo-skip", NULL, "queue a quota=2\n", 0, &x, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, ":2: job X1: queue 'b' is not in the queues file");
    /* and a policy that does not enforce queues refuses the file */
    CHECK_I64(ct_sim(jobs, "1x4:v100", "gavel-fifo", NULL, "queue * quota=2\n", 0, &x, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, "policy gavel-fifo does not enforce queues");
}

/* Why codes after a pass: under strict fifo with A holding the GPU, B is the head that does
 * not fit (Resources) and C waits behind it (Priority, blocked by B); a job over its queue's
 * quota says Quota with the queue and what it uses. */
static void test_why(void)
{
    struct berth_err err = {0};
    const char *t = "job_id,arrival_s,duration_s,num_gpus,queue\n"
                    "A,0,100,1,q\nB,0,100,1,q\nC,0,10,1,q\nD,0,10,1,r\n";
    const char *qtext = "queue q quota=2\nqueue r quota=0\n";
    const char *qp = simtest_write(qtext);
    char qpath[64];
    snprintf(qpath, sizeof qpath, "%s", qp);
    struct berth_cluster *c = NULL;
    struct berth_queues *qf = NULL;
    CHECK_I64(berth_cluster_parse("1x2:v100", &c, &err), 0);
    CHECK_I64(berth_queues_load(qpath, c, &qf, &err), 0);
    unlink(qpath);
    struct berth__params p = {.queues = qf};
    /* one pass at 0 (D's queue has no quota at all: it would never run) */
    struct berth__engine *e = NULL;
    struct berth_trace *tr = NULL;
    const char *tp = simtest_write(t);
    CHECK_I64(berth_trace_load(tp, "native", &tr, &err), 0);
    unlink(tp);
    CHECK_I64(berth__engine_create(c, "fifo", NULL, &p, NULL, &e, &err), 0);
    for (size_t i = 0; i < berth_trace_count(tr); i++) {
        uint32_t idx;
        CHECK_I64(berth__engine_add(e, &berth_trace_jobs(tr)[i], &idx, &err), 0);
        CHECK_I64(berth__engine_arrive(e, idx, 0, &err), 0);
    }
    CHECK_I64(berth__engine_pass(e, 0, &err), 0);
    struct berth__why w;
    /* A and B start (q's quota 2 = the 2 GPUs); C is the head that does not fit */
    CHECK_I64(e->jobs[0].state, BERTH_JOB_RUNNING);
    CHECK_I64(e->jobs[1].state, BERTH_JOB_RUNNING);
    berth__engine_why(e, 2, 0, &w);
    CHECK_I64(w.code, BERTH_WHY_QUOTA); /* q is at its quota before the GPUs even matter */
    CHECK_I64(w.limit, BERTH_LIMIT_NOMINAL);
    CHECK_I64(w.used, 2000);
    CHECK_I64(w.cap, 2000);
    berth__engine_why(e, 3, 0, &w);
    CHECK_I64(w.code, BERTH_WHY_QUOTA);
    CHECK_I64(w.queue, 1);
    CHECK_I64(w.cap, 0);
    berth__engine_why(e, 0, 0, &w); /* running: nothing to say */
    CHECK_I64(w.code, BERTH_WHY_NONE);
    berth__engine_destroy(e);
    berth_trace_free(tr);
    /* plain strict fifo without queues: the head does not fit, the next waits behind it */
    const char *t2 = "job_id,arrival_s,duration_s,num_gpus\nA,0,100,2\nB,0,100,2\nC,0,10,1\n";
    tp = simtest_write(t2);
    CHECK_I64(berth_trace_load(tp, "native", &tr, &err), 0);
    unlink(tp);
    struct berth__params p0 = {0};
    CHECK_I64(berth__engine_create(c, "fifo", NULL, &p0, NULL, &e, &err), 0);
    for (size_t i = 0; i < berth_trace_count(tr); i++) {
        uint32_t idx;
        CHECK_I64(berth__engine_add(e, &berth_trace_jobs(tr)[i], &idx, &err), 0);
        CHECK_I64(berth__engine_arrive(e, idx, 0, &err), 0);
    }
    CHECK_I64(berth__engine_pass(e, 0, &err), 0);
    berth__engine_why(e, 1, 0, &w);
    CHECK_I64(w.code, BERTH_WHY_RESOURCES);
    berth__engine_why(e, 2, 0, &w);
    CHECK_I64(w.code, BERTH_WHY_PRIORITY);
    CHECK_I64(w.blocker, 1);
    berth__engine_destroy(e);
    berth_trace_free(tr);
    berth_queues_free(qf);
    berth_cluster_free(c);
}

/* The lender's accounting both lenders use (sched/lend.h), by hand.
 * A queue of nominal 2000 milli-GPUs lends all of it unless its line says less (lend=1:
 * 1000; a lend past the quota is the quota). Aryl's pool of 16 servers at a demand of 10 with
 * a headroom of 1 lends 5 (3 when it lends at most 3); at a demand of 16, nothing. A cohort of
 * limit 3000 with 2000 lent fits 1000 more, not 1001, has room 1000 and owes nothing; when its
 * limit drops to 1500 (a pool whose demand rose) it has no room and 500 must come back. */
static void test_lender(void)
{
    CHECK_I64(berth__lend_limit(2000, 0, BERTH_Q_UNLIMITED), 2000);
    CHECK_I64(berth__lend_limit(2000, 0, 1000), 1000);
    CHECK_I64(berth__lend_limit(2000, 0, 3000), 2000);
    CHECK_I64(berth__lend_limit(16, 10 + 1, BERTH_LEND_ALL), 5);
    CHECK_I64(berth__lend_limit(16, 16 + 1, BERTH_LEND_ALL), 0);
    CHECK_I64(berth__lend_limit(16, 10 + 1, 3), 3); /* a pool with a limit of its own */
    struct berth__lender l = {.limit = 3000, .lent = 2000};
    CHECK(berth__lend_fits(&l, 1000));
    CHECK(!berth__lend_fits(&l, 1001));
    CHECK(berth__lend_fits(&l, -500));
    CHECK_I64(berth__lend_room(&l), 1000);
    CHECK_I64(berth__lend_owed(&l), 0);
    l.limit = 1500;
    CHECK_I64(berth__lend_room(&l), 0);
    CHECK_I64(berth__lend_owed(&l), 500);
}

static const struct check_test tests[] = {
    {"reclaim", test_reclaim}, {"lend_borrow", test_lend_borrow},
    {"limits", test_limits},   {"unknown_queue", test_unknown_queue},
    {"why", test_why},         {"lender", test_lender},
};

CHECK_MAIN(tests)
