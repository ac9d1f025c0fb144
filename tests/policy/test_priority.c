/* Tests for the priority policy (src/policy/priority.c), a policy that is one file and one
 * registry line: hand-computed runs on one GPU, without and with preemption, and its one
 * setting refused in any other form.
 *
 *   A at 0 for 100 s, priority 0;  B at 10 for 50 s, priority 5;
 *   C at 20 for 30 s, priority 1;  D at 20 for 10 s, priority 5.
 * Without preemption A runs 0-100; then B (5, the earlier of the two 5s), D (5), C (1):
 * B 100-150, D 150-160, C 160-190. JCTs 100, 140, 170, 140: 137.5 on average.
 * With preempt=1 B preempts A at 10 and runs 10-60; D (5) does not preempt B (same
 * priority, B came first), C (1) neither; at 60 D 60-70, C 70-100, then A its last 90 s,
 * 100-190. JCTs 190, 50, 80, 50: 92.5 on average, one preemption. */
#include "policytest.h"

static const char *trace = "job_id,arrival_s,duration_s,num_gpus,priority\n"
                           "A,0,100,1,0\n"
                           "B,10,50,1,5\n"
                           "C,20,30,1,1\n"
                           "D,20,10,1,5\n";

static void test_order(void)
{
    const struct pt_want w[] = {
        {"A", 0, 100, 0}, {"B", 100, 150, 0}, {"D", 150, 160, 0}, {"C", 160, 190, 0}};
    pt_sim(trace, "1x1:v100", "priority", NULL, w, 4, 137.5, 0);
}

static void test_preempt(void)
{
    struct berth__params p = {.settings = "preempt=1"};
    const struct pt_want w[] = {
        {"A", 0, 190, 1}, {"B", 10, 60, 0}, {"D", 60, 70, 0}, {"C", 70, 100, 0}};
    pt_engine(trace, "1x1:v100", "priority", &p, w, 4, 92.5, 1);
    p.settings = "preempt=off"; /* the same as no setting */
    const struct pt_want w0[] = {
        {"A", 0, 100, 0}, {"B", 100, 150, 0}, {"D", 150, 160, 0}, {"C", 160, 190, 0}};
    pt_engine(trace, "1x1:v100", "priority", &p, w0, 4, 137.5, 0);
}

static void test_bad_setting(void)
{
    struct berth__params p = {.settings = "preempt=maybe"};
    struct enginetest et;
    struct berth_err err = {0};
    CHECK_I64(enginetest_run(trace, "1x1:v100", "priority", &p, NULL, &et, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "policy priority: setting preempt: expected 0/1, off/on, no/yes or "
                       "false/true, found \"maybe\"");
}

static const struct check_test tests[] = {
    {"order", test_order},
    {"preempt", test_preempt},
    {"bad_setting", test_bad_setting},
};

CHECK_MAIN(tests)
