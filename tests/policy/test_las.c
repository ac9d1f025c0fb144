/* las's hysteresis setting (src/policy/las.c, sched/prio.c): a golden trace worked out by
 * hand, the plain rule it leaves alone by default, and a bad value's message. */
#include "policytest.h"

/* 1x1, quantum 60 s. A 0 s, 1000 s; B 100 s, 1000 s. With hysteresis=0.9 a waiting job
 * takes the GPU only from a job with more than 1.9 times its attained GPU-time:
 *  100  B (0) preempts A (100).
 *  300  B has 200 > 190 (first grid pass past 290): A resumes.
 *  600  A has 400 > 380 (past 580): B resumes.
 * 1200  B has 800 > 760 (past 1160): A resumes with 600 s left; B would need A past
 *       1520 (t = 2320): A is done at 1800, B runs its last 200 s: 1800-2000.
 * Two preemptions each (the plain rule: a swap every quantum, 15 each). */
static const char *trace = "job_id,arrival_s,duration_s,num_gpus\nA,0,1000,1\nB,100,1000,1\n";

static void test_hysteresis(void)
{
    struct berth__params p = {.quantum_us = 60 * BERTH_US_PER_S, .settings = "hysteresis=0.9"};
    const struct pt_want w[] = {{"A", 0, 1800, 2}, {"B", 100, 2000, 2}};
    pt_engine(trace, "1x1:v100", "las", &p, w, 2, 1850, 4);
    const struct pt_want plain[] = {{"A", 0, 1980, 15}, {"B", 100, 2000, 15}};
    p.settings = "hysteresis=0"; /* the default: the same as no setting */
    pt_engine(trace, "1x1:v100", "las", &p, plain, 2, 1940, 30);
    p.settings = NULL;
    pt_engine(trace, "1x1:v100", "las", &p, plain, 2, 1940, 30);
}

static void test_bad_hysteresis(void)
{
    struct berth__params p = {.quantum_us = 60 * BERTH_US_PER_S, .settings = "hysteresis=-1"};
    struct enginetest et;
    struct berth_err err = {0};
    CHECK_I64(enginetest_run(trace, "1x1:v100", "las", &p, NULL, &et, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "policy las: setting hysteresis");
}

static const struct check_test tests[] = {
    {"hysteresis", test_hysteresis},
    {"bad_hysteresis", test_bad_hysteresis},
};

CHECK_MAIN(tests)
