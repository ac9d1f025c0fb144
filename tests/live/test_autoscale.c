/* The service autoscaler's arithmetic (live/daemon/autoscale.c) on hand-computed cases.
 * Target 10 req/s per replica with headroom 0.2 plans each replica at 8 req/s:
 *   load 0 -> min (1); 8 -> 1; 8.01 -> 2; 16 -> 2; 17 -> ceil(2.125) = 3; 1000 -> max (4).
 * Hysteresis with n = 3, cool-down 10 s: load 17 keeps 3 (need 3); 24 keeps 3 (24/8 = 3,
 * not above 3 x 8); 24.5 goes to 4 at once; load 9 (need 2) at t = 100 s keeps 4 until
 * t = 110 s, then 2; a load that rises back above the line in between resets the wait.
 * Servers: replicas of 1 GPU on 2-GPU servers, 3 wanted -> 2 servers; of 2 GPUs on 4-GPU
 * servers, 5 -> 3; of 2 GPUs on 3-GPU servers (one fits), 2 -> 2; 4 GPUs on 2: -1. */
#include "check.h"
#include "live/daemon/autoscale.h"

#define S(x) ((berth_us)(x)*BERTH_US_PER_S)

static const struct berth__as_params P = {
    .min = 1, .max = 4, .target = 10, .headroom = 0.2, .cooldown_us = S(10)};

static void test_need(void)
{
    CHECK_I64(berth__autoscale_need(&P, 0), 1);
    CHECK_I64(berth__autoscale_need(&P, -5), 1);
    CHECK_I64(berth__autoscale_need(&P, 8), 1);
    CHECK_I64(berth__autoscale_need(&P, 8.01), 2);
    CHECK_I64(berth__autoscale_need(&P, 16), 2);
    CHECK_I64(berth__autoscale_need(&P, 17), 3);
    CHECK_I64(berth__autoscale_need(&P, 1000), 4);
    CHECK_I64(berth__autoscale_need(&P, 1e300), 4);
    struct berth__as_params none = P;
    none.target = 0; /* no target: the service keeps min */
    CHECK_I64(berth__autoscale_need(&none, 1000), 1);
    struct berth__as_params nohead = P;
    nohead.headroom = 0; /* 10 per replica */
    CHECK_I64(berth__autoscale_need(&nohead, 30), 3);
    CHECK_I64(berth__autoscale_need(&nohead, 30.5), 4);
}

static void test_hysteresis(void)
{
    struct berth__as_state s = {BERTH_TIME_NONE};
    CHECK_I64(berth__autoscale_step(&P, &s, 3, 17, S(1)), 3);
    CHECK_I64(berth__autoscale_step(&P, &s, 3, 24, S(2)), 3);
    CHECK_I64(berth__autoscale_step(&P, &s, 3, 24.5, S(3)), 4); /* up at once */
    CHECK_I64(s.low_since, BERTH_TIME_NONE);
    CHECK_I64(berth__autoscale_step(&P, &s, 4, 9, S(100)), 4); /* low: the cool-down starts */
    CHECK_I64(s.low_since, S(100));
    CHECK_I64(berth__autoscale_step(&P, &s, 4, 9, S(109)), 4);
    CHECK_I64(berth__autoscale_step(&P, &s, 4, 9, S(110)), 2); /* low for 10 s: down to 2 */
    CHECK_I64(s.low_since, BERTH_TIME_NONE);
    /* low, then back above the line: the wait starts over */
    CHECK_I64(berth__autoscale_step(&P, &s, 2, 1, S(200)), 2);
    CHECK_I64(berth__autoscale_step(&P, &s, 2, 16, S(205)), 2); /* need 2: not low */
    CHECK_I64(s.low_since, BERTH_TIME_NONE);
    CHECK_I64(berth__autoscale_step(&P, &s, 2, 1, S(206)), 2);
    CHECK_I64(berth__autoscale_step(&P, &s, 2, 1, S(215)), 2); /* 9 s low only */
    CHECK_I64(berth__autoscale_step(&P, &s, 2, 1, S(216)), 1);
    /* n out of range is clamped first */
    CHECK_I64(berth__autoscale_step(&P, &s, 9, 17, S(300)), 4);
    CHECK_I64(berth__autoscale_step(&P, &s, 0, 0, S(301)), 1);
}

static void test_servers(void)
{
    CHECK_I64(berth__autoscale_servers(3, 1, 2), 2);
    CHECK_I64(berth__autoscale_servers(4, 1, 2), 2);
    CHECK_I64(berth__autoscale_servers(5, 2, 4), 3);
    CHECK_I64(berth__autoscale_servers(2, 2, 3), 2);
    CHECK_I64(berth__autoscale_servers(0, 1, 2), 0);
    CHECK_I64(berth__autoscale_servers(1, 4, 2), -1);
}

static const struct check_test tests[] = {
    {"need", test_need},
    {"hysteresis", test_hysteresis},
    {"servers", test_servers},
};

CHECK_MAIN(tests)
