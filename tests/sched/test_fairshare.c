/* Fair-share (sched/fairshare.c): the decayed usage by hand, the factors, the fairshare
 * policy and the fairshare_weight of the ordering family, on one GPU.
 *
 * Jobs: a1 (user u1, 0, 100 s), a2 (u1, 1, 10 s), b1 (u2, 2, 10 s). With a half-life of
 * 10^10 s the decay over these 120 s is below 10^-8: usage is GPU-seconds. At 100, when a1
 * ends, u1 has used 100 GPU-s and u2 nothing; two users of equal share (1/2 each): u1's
 * factor is 2^(-1 / 0.5) = 0.25 and u2's 2^0 = 1; both are in the one queue "" (usage 1,
 * share 1: factor 0.5), so a2's factor is sqrt(0.25 x 0.5) = 0.354 and b1's sqrt(0.5) =
 * 0.707: b1 runs first (100-110), then a2 (110-120). fifo runs a2 first (100-110, then
 * b1 110-120). fifo-skip's key is the arrival time: with fairshare_weight=100 s a2's key
 * (1 s) becomes 1 - 35.4 and b1's (2 s) 2 - 70.7: b1 first, as under fairshare; with
 * 0.5 s they become 1 - 0.177 and 2 - 0.354: a2 first, as under fifo.
 * Shares from a file of user lines only (queues not gated): u1 share 3, u2 share 1 (0.75
 * and 0.25): u1's factor is 2^(-1 / 0.75) = 0.397, u2's still 1: b1 first.
 */
#include <math.h>

#include "ctltest.h"
#include "sched/fairshare.h"

static const char *jobs = "job_id,arrival_s,duration_s,num_gpus,user\n"
                          "a1,0,100,1,u1\n"
                          "a2,1,10,1,u1\n"
                          "b1,2,10,1,u2\n";

#define NODECAY "fairshare_half_life=10000000000,fairshare_period=0.001"

static void test_policy(void)
{
    const struct pt_want fs[] = {{"a1", 0, 100, 0}, {"a2", 110, 120, 0}, {"b1", 100, 110, 0}};
    ct_check(jobs, "1x1:v100", "fairshare", NODECAY, NULL, 0, fs, 3, (100.0 + 119 + 108) / 3);
    const struct pt_want fifo[] = {{"a1", 0, 100, 0}, {"a2", 100, 110, 0}, {"b1", 110, 120, 0}};
    ct_check(jobs, "1x1:v100", "fifo", NULL, NULL, 0, fifo, 3, (100.0 + 109 + 118) / 3);
    ct_check(jobs, "1x1:v100", "fifo-skip", NODECAY ",fairshare_weight=100", NULL, 0, fs, 3,
             (100.0 + 119 + 108) / 3);
    ct_check(jobs, "1x1:v100", "fifo-skip", NODECAY ",fairshare_weight=0.5", NULL, 0, fifo, 3,
             (100.0 + 109 + 118) / 3);
    ct_check(jobs, "1x1:v100", "fairshare", NODECAY, "user u1 share=3\nuser u2 share=1\n", 0, fs, 3,
             (100.0 + 119 + 108) / 3);
}

/* The decay by hand: one job of 2 GPUs for 100 s at weight 1, half-life 50 s. While it runs,
 * U(t) = 2 tau (1 - 2^(-t/h)) with tau = h / ln 2: at 100 s, 2 x 72.13 x 0.75 = 108.2
 * GPU-s; 50 s after it ended, half of that: 54.1. Two users with equal shares, one with
 * all the usage: factors 2^(-2) = 0.25 and 1. */
static void test_usage(void)
{
    struct berth_trace *t = NULL;
    struct berth_err err = {0};
    const char *p = simtest_write("job_id,arrival_s,duration_s,num_gpus,user\nj,0,100,2,u\n"
                                  "k,0,1,1,v\n");
    char path[64];
    snprintf(path, sizeof path, "%s", p);
    CHECK_I64(berth_trace_load(path, "native", &t, &err), 0);
    unlink(path);
    struct berth__job j, k;
    CHECK_I64(berth__job_init(&j, &berth_trace_jobs(t)[0], 0, NULL), 0);
    CHECK_I64(berth__job_init(&k, &berth_trace_jobs(t)[1], 1, NULL), 0);
    struct berth__tenants ten;
    berth__tenants_init(&ten, NULL);
    struct berth__fairshare f;
    berth__fs_init(&f, NULL, &ten, 50 * BERTH_US_PER_S, 1);
    CHECK_I64(berth__tenants_see(&ten, &j), 0);
    CHECK_I64(berth__tenants_see(&ten, &k), 0);
    CHECK_I64(berth__fs_see(&f, &j, 0), 0);
    CHECK_I64(berth__fs_see(&f, &k, 0), 0);
    j.type = 0;
    CHECK_I64(berth__fs_charge(&f, &j, 1, 0), 0);
    double tau = 50 / M_LN2;
    CHECK_DBL(berth__fs_usage(&f, 0, 0, 100 * BERTH_US_PER_S), 2 * tau * 0.75, 1e-6);
    CHECK_I64(berth__fs_charge(&f, &j, 0, 100 * BERTH_US_PER_S), 0);
    CHECK_DBL(berth__fs_usage(&f, 0, 0, 150 * BERTH_US_PER_S), tau * 0.75, 1e-6);
    CHECK_I64(berth__fs_update(&f, 150 * BERTH_US_PER_S), 1);
    CHECK_I64(berth__fs_update(&f, 150 * BERTH_US_PER_S), 0); /* within the period */
    /* u: all the usage at share 1/2: 2^-2; v: none; one queue: 2^-1 */
    CHECK_DBL(berth__fs_factor(&f, 0), sqrt(0.25 * 0.5), 1e-12);
    CHECK_DBL(berth__fs_factor(&f, 1), sqrt(1 * 0.5), 1e-12);
    berth__fs_free(&f);
    berth__tenants_free(&ten);
    berth_trace_free(t);
}

static const struct check_test tests[] = {
    {"policy", test_policy},
    {"usage", test_usage},
};

CHECK_MAIN(tests)
