/* las's hysteresis and max_preempt settings (src/policy/las.c, sched/prio.c): golden traces
 * worked out by hand, the plain rule they leave alone by default, and a bad value's
 * message. */
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

/* 2x1, quantum 60 s. A and B 0 s, 1000 s; C and D 100 s, 10 s. At 100 both running jobs
 * (100 s attained) are worse than C and D (0). Plainly one pass swaps both: C takes B's
 * GPU (on a tie the later job is the worse), D A's; both end at 110, and B and A resume
 * then, done at 1010. With max_preempt=1 the pass at 100 preempts B only and asks for the
 * next pass 1 us later, where D takes A's GPU: D runs 100.000001-110.000001, A resumes
 * then with 899.999999 s left and is done at 1010 all the same. */
static void test_max_preempt(void)
{
    static const char *four = "job_id,arrival_s,duration_s,num_gpus\nA,0,1000,1\nB,0,1000,1\n"
                              "C,100,10,1\nD,100,10,1\n";
    struct berth__params p = {.quantum_us = 60 * BERTH_US_PER_S, .settings = "max_preempt=1"};
    const struct pt_want w[] = {
        {"A", 0, 1010, 1}, {"B", 0, 1010, 1}, {"C", 100, 110, 0}, {"D", 100.000001, 110.000001, 0}};
    pt_engine(four, "2x1:v100", "las", &p, w, 4, (1010 + 1010 + 10 + 10.000001) / 4, 2);
    const struct pt_want plain[] = {
        {"A", 0, 1010, 1}, {"B", 0, 1010, 1}, {"C", 100, 110, 0}, {"D", 100, 110, 0}};
    p.settings = NULL;
    pt_engine(four, "2x1:v100", "las", &p, plain, 4, (1010 + 1010 + 10 + 10) / 4.0, 2);
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
    {"max_preempt", test_max_preempt},
    {"bad_hysteresis", test_bad_hysteresis},
};

CHECK_MAIN(tests)
