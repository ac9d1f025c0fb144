/* The engine's run-time changes for berthd: cancel (pending and running), requeue from
 * outside (the view's requeued list), adopt (a job already running on given GPUs), and
 * jobs added after passes have run. Cluster 1x4:a100 throughout, fifo unless said. */
#include <stdlib.h>

#include "check.h"
#include "jobspec_make.h"
#include "engine/engine.h"

static struct berth_cluster *cl;
static struct berth_jobspec specs[8];

static struct berth__engine *mk(const char *policy)
{
    struct berth_err err = {0};
    struct berth__params p = {.quantum_us = BERTH_US_PER_S};
    struct berth__engine *e = NULL;
    if (!cl)
        CHECK(!berth_cluster_parse("1x4:a100", &cl, &err));
    CHECK(!berth__engine_create(cl, policy, NULL, &p, NULL, &e, &err));
    berth__engine_set_check(e, 1);
    return e;
}

static uint32_t add(struct berth__engine *e, int i, int gpus, berth_us dur)
{
    struct berth_err err = {0};
    static char ids[8][8];
    snprintf(ids[i], sizeof ids[i], "j%d", i);
    specs[i] = jobspec_make(ids[i], dur, gpus, gpus, gpus);
    uint32_t idx = 0;
    CHECK(!berth__engine_add(e, &specs[i], &idx, &err));
    return idx;
}

/* j0 (4 GPUs) runs, j1 (2) waits; cancelling j1 leaves j0 alone; cancelling j0 frees all 4. */
static void test_cancel(void)
{
    struct berth_err err = {0};
    struct berth__engine *e = mk("fifo");
    uint32_t a = add(e, 0, 4, 100), b = add(e, 1, 2, 100);
    CHECK(!berth__engine_arrive(e, a, 0, &err));
    CHECK(!berth__engine_arrive(e, b, 0, &err));
    CHECK(!berth__engine_pass(e, 0, &err));
    CHECK_I64(e->jobs[a].state, BERTH_JOB_RUNNING);
    CHECK(!berth__engine_cancel(e, b, 5, &err));
    CHECK_I64(e->jobs[b].state, BERTH_JOB_DONE);
    CHECK_I64(e->npending, 0);
    CHECK(!berth__engine_pass(e, 5, &err)); /* verifies the counts */
    CHECK(!berth__engine_cancel(e, a, 10, &err));
    CHECK_I64(berth_cluster_free_gpus(e->cluster), 4);
    CHECK_I64(e->jobs[a].run_us, 10); /* ran 0..10 */
    CHECK(!berth__engine_pass(e, 10, &err));
    CHECK(berth__engine_cancel(e, a, 11, &err) == BERTH_EINTERNAL); /* already gone */
    berth__engine_destroy(e);
}

/* j0 (2 GPUs) and j1 (2) run; j1 is requeued at 7 (it ran 7 us), j2 (2 GPUs) added at run
 * time arrives; fifo's next pass restarts j1 (older) before j2, both would not fit: j1
 * takes the 2 free GPUs and j2 waits. */
static void test_requeue_and_late_add(void)
{
    struct berth_err err = {0};
    struct berth__engine *e = mk("fifo");
    uint32_t a = add(e, 0, 2, 100), b = add(e, 1, 2, 100);
    CHECK(!berth__engine_arrive(e, a, 0, &err));
    CHECK(!berth__engine_arrive(e, b, 0, &err));
    CHECK(!berth__engine_pass(e, 0, &err));
    CHECK(!berth__engine_requeue(e, b, 7, &err));
    CHECK_I64(e->jobs[b].state, BERTH_JOB_PENDING);
    CHECK_I64(e->jobs[b].run_us, 7);
    CHECK_I64(e->nrequeued, 1);
    uint32_t c = add(e, 2, 2, 100);
    CHECK(!berth__engine_arrive(e, c, 7, &err));
    CHECK(!berth__engine_pass(e, 7, &err));
    CHECK_I64(e->jobs[b].state, BERTH_JOB_RUNNING);
    CHECK_I64(e->jobs[c].state, BERTH_JOB_PENDING);
    CHECK_I64(e->nrequeued, 0);
    CHECK(berth__engine_requeue(e, c, 8, &err) == BERTH_EINTERNAL); /* not running */
    berth__engine_destroy(e);
}

/* Under the Gavel family's fill, a job requeued between rounds starts again at the next
 * pass, not at the next round (360 s on): j0 and j1 (2 GPUs each) run from the round at 0, j1
 * is requeued at 7 us and the pass at 7 (no round) restarts it on the 2 GPUs it freed. The
 * fill's worklists hold only jobs that may be pending: the requeue must put j1 back. */
static void test_requeue_gavel_fill(void)
{
    const char *pols[] = {"gavel-max-min", "gavel-max-min-perf", "themis-ftf"};
    for (size_t p = 0; p < sizeof pols / sizeof *pols; p++) {
        struct berth_err err = {0};
        struct berth__engine *e = mk(pols[p]);
        uint32_t a = add(e, 0, 2, 100 * BERTH_US_PER_S), b = add(e, 1, 2, 100 * BERTH_US_PER_S);
        CHECK(!berth__engine_arrive(e, a, 0, &err));
        CHECK(!berth__engine_arrive(e, b, 0, &err));
        CHECK(!berth__engine_pass(e, 0, &err));
        CHECK_I64(e->jobs[b].state, BERTH_JOB_RUNNING);
        CHECK(!berth__engine_pass(e, 3, &err)); /* a pass between rounds: the fill's lists */
        CHECK(!berth__engine_requeue(e, b, 7, &err));
        CHECK(!berth__engine_pass(e, 7, &err));
        CHECK_I64(e->jobs[b].state, BERTH_JOB_RUNNING);
        CHECK_I64(e->jobs[b].since, 7);
        berth__engine_destroy(e);
    }
}

/* gavel-fifo's fill starts at the first active job that may be pending: j0 (2 GPUs) and j1 (1)
 * run from the round at 0 with a GPU left idle, so the passes move that start past both; j1
 * requeued at 7 us must start again at the pass at 7 (no round: the requeue sends the fill
 * back to the first job). */
static void test_requeue_gavel_fifo(void)
{
    struct berth_err err = {0};
    struct berth__engine *e = mk("gavel-fifo");
    uint32_t a = add(e, 0, 2, 100 * BERTH_US_PER_S), b = add(e, 1, 1, 100 * BERTH_US_PER_S);
    CHECK(!berth__engine_arrive(e, a, 0, &err));
    CHECK(!berth__engine_arrive(e, b, 0, &err));
    CHECK(!berth__engine_pass(e, 0, &err));
    CHECK_I64(e->jobs[b].state, BERTH_JOB_RUNNING);
    CHECK_I64(berth_cluster_free_gpus(e->cluster), 1);
    CHECK(!berth__engine_pass(e, 3, &err));
    CHECK(!berth__engine_requeue(e, b, 7, &err));
    CHECK(!berth__engine_pass(e, 7, &err));
    CHECK_I64(e->jobs[b].state, BERTH_JOB_RUNNING);
    CHECK_I64(e->jobs[b].since, 7);
    berth__engine_destroy(e);
}

/* Adopting j0 on GPUs 1 and 3 charges exactly those; a second job can then take only 0
 * and 2; adopting onto a taken GPU, a GPU twice or a missing GPU fails. */
static void test_adopt(void)
{
    struct berth_err err = {0};
    struct berth__engine *e = mk("las");
    uint32_t a = add(e, 0, 2, 100), b = add(e, 1, 2, 100), c = add(e, 2, 1, 100);
    struct berth__slot s[2] = {{0, 1}, {0, 3}};
    CHECK(!berth__engine_adopt(e, a, s, 2, 50, &err));
    CHECK_I64(e->jobs[a].state, BERTH_JOB_RUNNING);
    CHECK_I64(e->nrunning, 1);
    CHECK_I64(berth_cluster_free_gpus(e->cluster), 2);
    CHECK(!berth__engine_verify(e, &err));
    struct berth__slot taken[1] = {{0, 3}}, twice[2] = {{0, 0}, {0, 0}}, gone[1] = {{0, 9}};
    CHECK(berth__engine_adopt(e, c, taken, 1, 50, &err) == BERTH_EINPUT);
    CHECK(berth__engine_adopt(e, b, twice, 2, 50, &err) == BERTH_EINPUT);
    CHECK(berth__engine_adopt(e, c, gone, 1, 50, &err) == BERTH_EINPUT);
    CHECK(!berth__engine_arrive(e, b, 50, &err));
    CHECK(!berth__engine_pass(e, 50, &err));
    CHECK_I64(e->jobs[b].state, BERTH_JOB_RUNNING);
    CHECK(e->jobs[b].slots[0].gpu % 2 == 0 && e->jobs[b].slots[1].gpu % 2 == 0);
    /* the adopted job finishing is reported to the policy, which took it in as running */
    CHECK(!berth__engine_finish(e, a, 60, &err));
    CHECK(!berth__engine_pass(e, 60, &err));
    CHECK_I64(e->jobs[a].run_us, 10);
    berth__engine_destroy(e);
}

/* The policy hears of adopted jobs (the view's adopted list) and schedules them as running
 * jobs: under las (quantum 1 s = min run), j0 adopted on all 4 GPUs at t=0 and j1 (4 GPUs)
 * arriving at 0 wait together until j0's protection ends; the pass at t=2 s preempts j0
 * (attained 8 GPU-s against j1's 0) and starts j1. Under tiresias-dlas j0 drops to the
 * second queue once its service passes 3,250 s and j1, in the first, takes its GPUs; under
 * blox-las j0's rounds of service put it behind j1. Before the list existed, j0 was never
 * preempted. */
static void test_adopt_preemptible(void)
{
    const char *pols[] = {"las", "tiresias-dlas", "blox-las"};
    for (size_t p = 0; p < 3; p++) {
        struct berth_err err = {0};
        struct berth__engine *e = mk(pols[p]);
        uint32_t a = add(e, 0, 4, 10000 * BERTH_US_PER_S), b = add(e, 1, 4, 10000 * BERTH_US_PER_S);
        struct berth__slot s[4] = {{0, 0}, {0, 1}, {0, 2}, {0, 3}};
        CHECK(!berth__engine_adopt(e, a, s, 4, 0, &err));
        CHECK_I64(e->nadopted, 1);
        CHECK(!berth__engine_arrive(e, b, 0, &err));
        CHECK(!berth__engine_pass(e, 0, &err));
        CHECK_I64(e->nadopted, 0);
        CHECK_I64(e->jobs[a].state, BERTH_JOB_RUNNING);
        CHECK_I64(e->jobs[b].state, BERTH_JOB_PENDING);
        berth_us t = 2 * BERTH_US_PER_S;
        if (p > 0) /* tiresias: j0 must first pass the first queue's limit (3,250 s); blox:
                      j0 must have attained more rounds than j1 */
            t = 4000 * BERTH_US_PER_S;
        CHECK(!berth__engine_pass(e, t, &err));
        CHECK_I64(e->jobs[a].state, BERTH_JOB_PENDING);
        CHECK_I64(e->jobs[b].state, BERTH_JOB_RUNNING);
        CHECK_I64(e->preemptions, 1);
        berth__engine_destroy(e);
    }
}

/* A job that arrives and is cancelled before the pass that would show it to the policy
 * (berthd: released, then cancelled or held again within one tick) is gone for good: the
 * next pass neither starts it nor fails, and the job after it runs. Each policy family. */
static void test_cancel_before_pass(void)
{
    static const char *const policies[] = {"fifo", "srtf", "las", "aryl"};
    for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
        struct berth_err err = {0};
        struct berth__engine *e = mk(policies[i]);
        uint32_t a = add(e, 0, 4, 100), b = add(e, 1, 2, 100);
        CHECK(!berth__engine_arrive(e, a, 0, &err));
        CHECK(!berth__engine_cancel(e, a, 0, &err));
        CHECK(!berth__engine_arrive(e, b, 1, &err));
        CHECK(!berth__engine_pass(e, 1, &err));
        CHECK_I64(e->jobs[a].state, BERTH_JOB_DONE);
        CHECK_I64(e->jobs[b].state, BERTH_JOB_RUNNING);
        CHECK_I64(berth_cluster_free_gpus(e->cluster), 2);
        CHECK(!berth__engine_pass(e, 2, &err));
        berth__engine_destroy(e);
    }
}

static void test_cleanup(void)
{
    berth_cluster_free(cl);
    cl = NULL;
}

static const struct check_test tests[] = {
    {"cancel", test_cancel},
    {"requeue_and_late_add", test_requeue_and_late_add},
    {"requeue_gavel_fill", test_requeue_gavel_fill},
    {"requeue_gavel_fifo", test_requeue_gavel_fifo},
    {"adopt", test_adopt},
    {"adopt_preemptible", test_adopt_preemptible},
    {"cancel_before_pass", test_cancel_before_pass},
    {"cleanup", test_cleanup},
};

CHECK_MAIN(tests)
