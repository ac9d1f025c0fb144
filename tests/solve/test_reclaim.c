/* Golden tests of Aryl/Lyra's reclaim order (policy/reclaim.c), worked out by hand. */
#include "check.h"
#include "solve/reclaim.h"

/* Loaned servers 0..3; server 9 is a training server (not a candidate).
 *   J0 elastic, 4 workers, min 2: 2 on s0, 2 on s1.
 *   J1 inelastic, 2 workers on s1.
 *   J2 elastic, 3 workers, min 3 (cannot shrink): 1 on s2, 2 on s9.
 *   s3 is empty.
 * Reclaim 3. Pick 1: costs s0 = 0 (J0 shrinks to 2), s1 = 1 (J1), s2 = 1 (J2), s3 = 0 with
 * no busy worker -> s3. Pick 2: s0 (cost 0, 2 busy): J0 shrinks to 2. Pick 3, recomputed:
 * s1 now costs 2 (J0 at its minimum, and J1), s2 costs 1 -> s2: J2 is preempted, its 2
 * workers on s9 go with it. */
static void golden(void)
{
    struct berth__rc_job jobs[] = {{4, 2, 1, 100}, {2, 2, 0, 50}, {3, 3, 1, 10}};
    const struct berth__rc_place places[] = {
        {0, 0, 2}, {1, 0, 2}, {1, 1, 2}, {2, 2, 1}, {9, 2, 2},
    };
    const uint32_t cand[] = {0, 1, 2, 3};
    struct berth__rc_step steps[4];
    uint8_t pre[3] = {0};
    size_t n = 0;
    struct berth_err err = {0};
    CHECK_I64(berth__reclaim(cand, 4, jobs, 3, places, 5, 3, steps, &n, pre, &err), 0);
    CHECK_I64(n, 3);
    CHECK_I64(steps[0].server, 3);
    CHECK_I64(steps[0].preempted + steps[0].shrunk, 0);
    CHECK_I64(steps[1].server, 0);
    CHECK_I64(steps[1].preempted, 0);
    CHECK_I64(steps[1].shrunk, 1);
    CHECK_I64(steps[2].server, 2);
    CHECK_I64(steps[2].preempted, 1);
    CHECK_I64(jobs[0].workers, 2);
    CHECK_I64(jobs[1].workers, 2);
    CHECK_I64(jobs[2].workers, 0);
    CHECK_I64(pre[0] + pre[1], 0);
    CHECK_I64(pre[2], 1);
}

/* Costs must be recomputed after each pick: J elastic, 4 workers, min 2, on s4 (2) and s5
 * (2). Both cost 0 at first (equal busy and work: the lower number, s4, goes); after J
 * shrinks to 2, returning s5 preempts it: the second step costs 1, not the stale 0. */
static void recomputed(void)
{
    struct berth__rc_job jobs[] = {{4, 2, 1, 5}};
    const struct berth__rc_place places[] = {{5, 0, 2}, {4, 0, 2}};
    const uint32_t cand[] = {5, 4};
    struct berth__rc_step steps[2];
    uint8_t pre[1] = {0};
    size_t n = 0;
    struct berth_err err = {0};
    CHECK_I64(berth__reclaim(cand, 2, jobs, 1, places, 2, 2, steps, &n, pre, &err), 0);
    CHECK_I64(n, 2);
    CHECK_I64(steps[0].server, 4);
    CHECK_I64(steps[0].shrunk, 1);
    CHECK_I64(steps[1].server, 5);
    CHECK_I64(steps[1].preempted, 1);
    CHECK_I64(pre[0], 1);
}

/* Tie on cost and busy workers: the server whose preempted jobs have less work left goes
 * first (s1: an inelastic job with 10 left, before s0: one with 30 left). k larger than the
 * candidates: every candidate, once. */
static void ties_and_bounds(void)
{
    struct berth__rc_job jobs[] = {{1, 1, 0, 30}, {1, 1, 0, 10}};
    const struct berth__rc_place places[] = {{0, 0, 1}, {1, 1, 1}};
    const uint32_t cand[] = {0, 1};
    struct berth__rc_step steps[2];
    uint8_t pre[2] = {0};
    size_t n = 0;
    struct berth_err err = {0};
    CHECK_I64(berth__reclaim(cand, 2, jobs, 2, places, 2, 5, steps, &n, pre, &err), 0);
    CHECK_I64(n, 2);
    CHECK_I64(steps[0].server, 1);
    CHECK_I64(steps[1].server, 0);
    /* a place with more workers than its job runs is bad input */
    struct berth__rc_job j1[] = {{1, 1, 0, 1}};
    const struct berth__rc_place bad[] = {{0, 0, 2}};
    CHECK_I64(berth__reclaim(cand, 1, j1, 1, bad, 1, 1, steps, &n, pre, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "place 0");
}

static const struct check_test tests[] = {
    {"golden", golden},
    {"recomputed", recomputed},
    {"ties_and_bounds", ties_and_bounds},
};

CHECK_MAIN(tests)
