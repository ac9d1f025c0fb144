/* Elastic gangs in the plan and the engine (berth__plan_start_n): a job starts with any
 * size in its min..max range, grows and shrinks by preempt + start in one pass (a resize:
 * counted apart from migrations, the executor told through migrate), sizes outside the
 * range are refused, a size that does not fit leaves the job as it was, and every step
 * keeps the cluster's invariants (the engine re-verifies after each pass). */
#include <string.h>

#include "check.h"
#include "jobspec_make.h"
#include "engine/engine.h"

static int migrates, starts, stops;
static void on_start(void *ctx, struct berth__job *j, berth_us now)
{
    (void)ctx, (void)j, (void)now;
    starts++;
}
static void on_stop(void *ctx, struct berth__job *j, berth_us now)
{
    (void)ctx, (void)j, (void)now;
    stops++;
}
static void on_migrate(void *ctx, struct berth__job *j, berth_us now)
{
    (void)ctx, (void)j, (void)now;
    migrates++;
}

/* The script, one pass per instant. J0: 2 GPUs asked, elastic 1..4; J1: 3 GPUs, inelastic.
 * Cluster: one server of 4 GPUs. */
static int script(void *self, const struct berth__view *v, struct berth__plan *p,
                  struct berth_err *err)
{
    (void)self;
    switch (v->now) {
    case 0: /* start J0 with 2 */
        return berth__plan_start_n(p, 0, 2, err);
    case 10: /* grow to 4 */
        if (berth__plan_preempt(p, 0, err))
            return BERTH_EINTERNAL;
        return berth__plan_start_n(p, 0, 4, err);
    case 20: /* shrink to 1 */
        if (berth__plan_preempt(p, 0, err))
            return BERTH_EINTERNAL;
        return berth__plan_start_n(p, 0, 1, err);
    case 30: /* 5 is outside 1..4: refused, and the job gets its very GPUs back */
        if (berth__plan_preempt(p, 0, err))
            return BERTH_EINTERNAL;
        CHECK_I64(berth__plan_start_n(p, 0, 5, err), BERTH_EINTERNAL);
        CHECK_HAS(err->msg, "elastic range 1..4");
        CHECK(berth__plan_can_restore(p, 0));
        return berth__plan_restore(p, 0, err);
    case 40: /* J1 takes 3; J0 cannot grow to 2 (1 idle GPU after its own): stays at 1 */
        if (berth__plan_start(p, 1, err) || berth__plan_preempt(p, 0, err))
            return BERTH_EINTERNAL;
        CHECK_I64(berth__plan_start_n(p, 0, 2, err), BERTH_NOFIT);
        CHECK_I64(p->jobs[0].gpus, 1);
        CHECK(berth__plan_can_restore(p, 0));
        return berth__plan_restore(p, 0, err);
    default:
        return 0;
    }
}

static void resize(void)
{
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    CHECK_I64(berth_cluster_parse("1x4:v100", &c, &err), 0);
    struct berth_jobspec js[2];
    memset(js, 0, sizeof js);
    js[0] = jobspec_make("J0", 1000, 2, 1, 4);
    js[1] = js[0];
    js[1].id = "J1";
    js[1].num_gpus = js[1].min_gpus = js[1].max_gpus = 3;
    struct berth__params params = {0};
    struct berth__engine_exec exec = {NULL, on_start, on_stop, on_migrate};
    struct berth__engine *e = NULL;
    CHECK_I64(berth__engine_create(c, "fifo", NULL, &params, &exec, &e, &err), 0);
    if (!e) {
        berth_cluster_free(c);
        return;
    }
    struct berth__policy_ops ops = *e->ops; /* keep fifo's create/destroy, script the passes */
    ops.plan = script;
    ops.next_pass = NULL;
    e->ops = &ops;
    berth__engine_set_check(e, 1);
    uint32_t idx;
    CHECK_I64(berth__engine_add(e, &js[0], &idx, &err), 0);
    CHECK_I64(berth__engine_add(e, &js[1], &idx, &err), 0);
    CHECK_I64(berth__engine_arrive(e, 0, 0, &err), 0);
    CHECK_I64(berth__engine_pass(e, 0, &err), 0);
    CHECK_I64(e->jobs[0].gpus, 2);
    CHECK_I64(e->cluster->free, 2);
    CHECK_I64(starts, 1);

    CHECK_I64(berth__engine_pass(e, 10, &err), 0);
    CHECK_I64(e->jobs[0].gpus, 4);
    CHECK_I64(e->cluster->free, 0);
    CHECK_I64(e->resizes, 1);
    CHECK_I64(e->migrations, 0);
    CHECK_I64(migrates, 1);
    CHECK_I64(stops, 0);
    /* GPU time is folded at the old size: 2 GPUs for 10 us */
    CHECK_I64(e->jobs[0].gpu_us, 20);

    CHECK_I64(berth__engine_pass(e, 20, &err), 0);
    CHECK_I64(e->jobs[0].gpus, 1);
    CHECK_I64(e->cluster->free, 3);
    CHECK_I64(e->resizes, 2);
    CHECK_I64(e->jobs[0].gpu_us, 20 + 40);

    CHECK_I64(berth__engine_pass(e, 30, &err), 0);
    CHECK_I64(e->jobs[0].gpus, 1);
    CHECK_I64(e->resizes, 2);
    CHECK_I64(migrates, 2); /* the restore changed nothing */

    CHECK_I64(berth__engine_arrive(e, 1, 40, &err), 0);
    CHECK_I64(berth__engine_pass(e, 40, &err), 0);
    CHECK_I64(e->jobs[0].gpus, 1);
    CHECK_I64(e->jobs[1].state, BERTH_JOB_RUNNING);
    CHECK_I64(e->cluster->free, 0);
    CHECK_I64(e->resizes, 2);
    CHECK_I64(e->preemptions, 0);
    CHECK_I64(berth__engine_verify(e, &err), 0);
    berth__engine_destroy(e);
    berth_cluster_free(c);
}

/* In place (plan_resize.c), one pass per instant, on two servers of 4 GPUs. J0 (1..8)
 * starts with 2 on server 0; at 10 it grows by 2 on server 1 (4 GPUs on 2 servers) and a
 * grow by 3 more on server 1 is refused (2 idle there); at 20 it gives back server 0 (2 GPUs,
 * all on server 1); at 30 it shrinks to 1; at 40 a shrink below its minimum, a shrink off a
 * server it does not use and a shrink that is no shrink are refused, and nothing changes. */
static int script_in_place(void *self, const struct berth__view *v, struct berth__plan *p,
                           struct berth_err *err)
{
    (void)self;
    switch (v->now) {
    case 0:
        return berth__plan_start_n(p, 0, 2, err);
    case 10:
        CHECK_I64(p->jobs[0].slots[0].server, 0);
        if (berth__plan_grow_on(p, 0, 1, 2, err))
            return BERTH_EINTERNAL;
        CHECK_I64(berth__plan_grow_on(p, 0, 1, 3, err), BERTH_NOFIT);
        CHECK_I64(p->jobs[0].gpus, 4);
        CHECK_I64(p->jobs[0].servers, 2);
        return 0;
    case 20:
        if (berth__plan_shrink_off(p, 0, 0, err))
            return BERTH_EINTERNAL;
        CHECK_I64(p->jobs[0].gpus, 2);
        CHECK_I64(p->jobs[0].servers, 1);
        CHECK_I64(p->jobs[0].slots[0].server, 1);
        CHECK_I64(p->jobs[0].slots[1].server, 1);
        return 0;
    case 30:
        return berth__plan_shrink_to(p, 0, 1, err);
    case 40:
        /* misuses, not "does not fit": below the range, GPUs it does not hold, no change */
        CHECK_I64(berth__plan_shrink_to(p, 0, 0, err), BERTH_EINTERNAL);
        CHECK_I64(berth__plan_shrink_off(p, 0, 0, err), BERTH_EINTERNAL);
        CHECK_I64(berth__plan_shrink_to(p, 0, 1, err), BERTH_EINTERNAL);
        CHECK_I64(p->jobs[0].gpus, 1);
        return 0;
    default:
        return 0;
    }
}

static void in_place(void)
{
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    CHECK_I64(berth_cluster_parse("2x4:v100", &c, &err), 0);
    struct berth_jobspec js = jobspec_make("J0", 1000, 2, 1, 8);
    struct berth__params params = {0};
    struct berth__engine_exec exec = {NULL, on_start, on_stop, on_migrate};
    struct berth__engine *e = NULL;
    CHECK_I64(berth__engine_create(c, "fifo", NULL, &params, &exec, &e, &err), 0);
    if (!e) {
        berth_cluster_free(c);
        return;
    }
    struct berth__policy_ops ops = *e->ops;
    ops.plan = script_in_place;
    ops.next_pass = NULL;
    e->ops = &ops;
    berth__engine_set_check(e, 1); /* every pass re-verifies the GPUs against the slots */
    uint32_t idx;
    CHECK_I64(berth__engine_add(e, &js, &idx, &err), 0);
    CHECK_I64(berth__engine_arrive(e, 0, 0, &err), 0);
    migrates = 0;
    const int32_t free_after[] = {6, 4, 6, 7, 7};
    const uint64_t resizes_after[] = {0, 1, 2, 3, 3};
    for (int k = 0; k < 5; k++) {
        CHECK_I64(berth__engine_pass(e, k * 10, &err), 0);
        CHECK_I64(e->cluster->free, free_after[k]);
        CHECK_I64(e->resizes, resizes_after[k]);
    }
    CHECK_I64(migrates, 3);
    CHECK_I64(e->preemptions, 0);
    /* GPU time folded at each size (2 x 10 + 4 x 10 + 2 x 10 by 30), plus 1 x 10 by 40 */
    CHECK_I64(e->jobs[0].gpu_us, 80);
    CHECK_I64(berth__job_gpu_us(&e->jobs[0], 40), 90);
    berth__engine_destroy(e);
    berth_cluster_free(c);
}

static const struct check_test tests[] = {
    {"resize", resize},
    {"in_place", in_place},
};

CHECK_MAIN(tests)
