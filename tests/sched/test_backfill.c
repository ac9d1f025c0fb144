/* EASY backfill (sched/prio.c with sched/reserve.c: the backfill policy and the family's
 * backfill setting) and time limits in the simulator (sim/sim.c: a job is stopped at its
 * limit, timed out), by hand on one server of 4 GPUs.
 *
 * Jobs (arrival, run time, GPUs), each with a time limit equal to its run time:
 *   A 0 100 2,  B 1 50 4,  C 2 30 2,  D 3 120 1,  E 4 60 1.
 * fifo-skip (first fit, no reservation): A 0-100; C fits at 2 (2-32); at 32 D (32-152) and
 *   E (32-92) take the 2 idle GPUs; B needs all 4 and gets them only when D ends: 152-202.
 *   JCTs 100, 201, 30, 149, 88: 113.6 on average.
 * backfill: B, the first job that does not fit, is reserved at 100 (A's limit: 2 idle + 2)
 *   with 0 GPUs to spare. C ends at 32 <= 100: it backfills, 2-32. At 32 D would end at
 *   152 > 100 and there is nothing to spare: it waits; E ends at 92: it backfills, 32-92. B
 *   starts at 100 as reserved (100-150), D after it (150-270).
 *   JCTs 100, 149, 30, 267, 88: 126.8 on average. B waits 99 s instead of 151.
 * fifo (strict): A 0-100, B 100-150, then C, D, E together: 150-180, 150-270, 150-210.
 *   JCTs 100, 149, 178, 267, 206: 180.
 * backfill's reservation comes from limits, not from run times: with D's limit 40 s (it
 *   runs 120 s, so it is stopped at 40: timed out) D ends at 72 <= 100 by its limit and
 *   backfills at 32, beside E; it is stopped at 72 (72 - 3 = 69 s of JCT), and B still
 *   starts at 100. JCTs 100, 149, 30, 69, 88: 87.2. */
#include "ctltest.h"

static const char *jobs = "job_id,arrival_s,duration_s,num_gpus,time_limit_s\n"
                          "A,0,100,2,100\n"
                          "B,1,50,4,50\n"
                          "C,2,30,2,30\n"
                          "D,3,120,1,120\n"
                          "E,4,60,1,60\n";

static void test_fifo_skip(void)
{
    const struct pt_want w[] = {
        {"A", 0, 100, 0}, {"B", 152, 202, 0}, {"C", 2, 32, 0}, {"D", 32, 152, 0}, {"E", 32, 92, 0}};
    ct_check(jobs, "1x4:v100", "fifo-skip", NULL, NULL, 0, w, 5, 113.6);
}

static void test_backfill(void)
{
    const struct pt_want w[] = {{"A", 0, 100, 0},
                                {"B", 100, 150, 0},
                                {"C", 2, 32, 0},
                                {"D", 150, 270, 0},
                                {"E", 32, 92, 0}};
    ct_check(jobs, "1x4:v100", "backfill", NULL, NULL, 0, w, 5, 126.8);
    /* the family's switch on fifo-skip and on strict fifo is the same EASY */
    ct_check(jobs, "1x4:v100", "fifo-skip", "backfill=1", NULL, 0, w, 5, 126.8);
    ct_check(jobs, "1x4:v100", "fifo", "backfill=1", NULL, 0, w, 5, 126.8);
    /* limits from the factor (run time x 1) reserve the same */
    const char *nolimits = "job_id,arrival_s,duration_s,num_gpus\n"
                           "A,0,100,2\nB,1,50,4\nC,2,30,2\nD,3,120,1\nE,4,60,1\n";
    ct_check(nolimits, "1x4:v100", "backfill", NULL, NULL, 1.0, w, 5, 126.8);
}

static void test_fifo(void)
{
    const struct pt_want w[] = {{"A", 0, 100, 0},
                                {"B", 100, 150, 0},
                                {"C", 150, 180, 0},
                                {"D", 150, 270, 0},
                                {"E", 150, 210, 0}};
    ct_check(jobs, "1x4:v100", "fifo", NULL, NULL, 0, w, 5, 180);
}

static void test_limit_backfills(void)
{
    const char *short_d = "job_id,arrival_s,duration_s,num_gpus,time_limit_s\n"
                          "A,0,100,2,100\nB,1,50,4,50\nC,2,30,2,30\nD,3,120,1,40\nE,4,60,1,60\n";
    const struct pt_want w[] = {
        {"A", 0, 100, 0}, {"B", 100, 150, 0}, {"C", 2, 32, 0}, {"D", 32, 72, 0}, {"E", 32, 92, 0}};
    ct_check(short_d, "1x4:v100", "backfill", NULL, NULL, 0, w, 5, 87.2);
    struct ct_run x;
    struct berth_err err = {0};
    CHECK_I64(ct_sim(short_d, "1x4:v100", "backfill", NULL, NULL, 0, &x, &err), 0);
    CHECK_I64(x.r.summary.timeouts, 1);
    CHECK_I64(x.r.summary.completed, 4);
    const struct berth_job_result *d = simtest_job(&x.r, "D");
    CHECK(d && d->timed_out && d->run_us == 40 * BERTH_US_PER_S);
    char *js = berth_summary_json(&x.r, 0);
    CHECK_HAS(js, "\"timeouts\": 1");
    free(js);
    ct_free(&x);
}

/* One GPU: A (0, runs 100 s, limit 60) is stopped at 60; B (10, 20 s) runs 60-80. A job
 * whose work ends exactly at its limit completes. A preempted job's limit counts the run
 * time of all its attempts: under las (quantum 10) X (0, 50 s, limit 30) and Y (5, 50 s)
 * take turns; X has run 30 s in all when it is stopped. */
static void test_timeout(void)
{
    const char *t =
        "job_id,arrival_s,duration_s,num_gpus,time_limit_s\nA,0,100,1,60\nB,10,20,1,20\n";
    struct ct_run x;
    struct berth_err err = {0};
    CHECK_I64(ct_sim(t, "1x1:v100", "fifo", NULL, NULL, 0, &x, &err), 0);
    const struct berth_job_result *a = simtest_job(&x.r, "A"), *b = simtest_job(&x.r, "B");
    CHECK(a && a->timed_out && a->finish_us == 60 * BERTH_US_PER_S);
    CHECK(b && !b->timed_out && b->first_start_us == 60 * BERTH_US_PER_S &&
          b->finish_us == 80 * BERTH_US_PER_S);
    CHECK_I64(x.r.summary.timeouts, 1);
    CHECK_I64(x.r.summary.completed, 1);
    ct_free(&x);
    const char *l = "job_id,arrival_s,duration_s,num_gpus,time_limit_s\nX,0,50,1,30\nY,5,50,1,0\n";
    CHECK_I64(ct_sim(l, "1x1:v100", "las", "quantum=10", NULL, 0, &x, &err), 0);
    const struct berth_job_result *j = simtest_job(&x.r, "X");
    CHECK(j && j->timed_out && j->run_us == 30 * BERTH_US_PER_S);
    CHECK(j && j->preemptions >= 1);
    CHECK_I64(x.r.summary.timeouts, 1);
    ct_free(&x);
    /* without limits the outputs keep their old columns: no timeouts key */
    const char *none = "job_id,arrival_s,duration_s,num_gpus\nA,0,10,1\n";
    CHECK_I64(ct_sim(none, "1x1:v100", "fifo", NULL, NULL, 0, &x, &err), 0);
    char *js = berth_summary_json(&x.r, 0);
    CHECK(js && !strstr(js, "timeouts"));
    free(js);
    ct_free(&x);
}

/* A bad limit is bad input naming the file, line and column. */
static void test_bad_limit(void)
{
    struct ct_run x;
    struct berth_err err = {0};
    CHECK_I64(ct_sim("job_id,arrival_s,duration_s,num_gpus,time_limit_s\nA,0,10,1,-5\n", "1x1:v100",
                     "fifo", NULL, NULL, 0, &x, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, ":2: column time_limit_s: expected a time limit in seconds >= 0");
}

static const struct check_test tests[] = {
    {"fifo_skip", test_fifo_skip}, {"backfill", test_backfill},
    {"fifo", test_fifo},           {"limit_backfills", test_limit_backfills},
    {"timeout", test_timeout},     {"bad_limit", test_bad_limit},
};

CHECK_MAIN(tests)
