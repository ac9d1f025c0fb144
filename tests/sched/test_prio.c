/* Tests for the generic ordering scheduler (src/sched/prio.c) on its own, outside any
 * engine: keys read through the policy's context, a pending job re-keyed between passes
 * (berth__prio_rekey) takes its new place, a running job re-keyed becomes a victim by its
 * new key, and without the re-key the old order stands. One GPU, so the order is the story. */
#include "priotest.h"

#define NJ 4

struct fix {
    struct berth_cluster *c;
    struct pjob pj[NJ];
    struct berth__job jobs[NJ];
    int64_t key[NJ]; /* the context: each job's key, set by the test */
    struct berth__prio *q;
    struct berth__plan plan;
};

static int64_t key_of_ctx(void *ctx, const struct berth__job *j)
{
    return ((const int64_t *)ctx)[j->idx];
}

static int fix_open(struct fix *f, int preemptive)
{
    memset(f, 0, sizeof *f);
    if (!(f->c = parse_ok("1x1:v100")))
        return -1;
    for (uint32_t i = 0; i < NJ; i++) {
        pjob_init(&f->pj[i], i, "j", 1, 0, -1);
        f->jobs[i] = f->pj[i].job;
        f->jobs[i].spec = &f->pj[i].spec;
    }
    struct berth__prio_cfg cfg = {.key = key_of_ctx,
                                  .slope = berth__prio_slope_none,
                                  .ctx = f->key,
                                  .preemptive = preemptive};
    return prio_open(&cfg, &f->q, &f->plan);
}

static void fix_close(struct fix *f)
{
    prio_close(f->q, &f->plan, f->c, f->jobs, NJ);
}

/* One pass at now with jobs arrived[0..na) new and left[0..nl) gone; returns the running job
 * afterwards (-1 none). */
static int pass(struct fix *f, berth_us now, const uint32_t *arrived, size_t na,
                const uint32_t *left, size_t nl)
{
    prio_pass(f->q, &f->plan, f->c, f->jobs, NJ, NJ, now, arrived, na, left, nl);
    int run = -1;
    for (int i = 0; i < NJ; i++)
        if (f->jobs[i].state == BERTH_JOB_RUNNING)
            run = run < 0 ? i : -2; /* two would be a bug on one GPU */
    return run;
}

/* The running job finishes: its GPU is free and it is gone. */
static void finish(struct fix *f, int j)
{
    berth__alloc_give(f->c, &f->jobs[j]);
    f->jobs[j].state = BERTH_JOB_DONE;
}

static struct berth__view view_of(struct fix *f)
{
    return (struct berth__view){.cluster = f->c, .jobs = f->jobs, .njobs = NJ, .infer_demand = -1};
}

/* Keys 30, 10, 20: J1 runs first. Then J0's key becomes 5: re-keyed, J0 runs next; not
 * re-keyed, J2 (20 < 30, the key J0 arrived with) does. */
static void test_rekey_pending(void)
{
    for (int rekey = 0; rekey <= 1; rekey++) {
        struct fix f;
        if (fix_open(&f, 0)) {
            fix_close(&f);
            return;
        }
        f.key[0] = 30, f.key[1] = 10, f.key[2] = 20;
        static const uint32_t all[] = {0, 1, 2};
        CHECK_I64(pass(&f, 0, all, 3, NULL, 0), 1);
        f.key[0] = 5;
        struct berth__view v = view_of(&f);
        if (rekey)
            CHECK_I64(berth__prio_rekey(f.q, &v, 0), 0);
        finish(&f, 1);
        static const uint32_t gone[] = {1};
        CHECK_I64(pass(&f, 10, NULL, 0, gone, 1), rekey ? 0 : 2);
        fix_close(&f);
    }
}

/* Preemptive: J0 (key 20) runs; its key becomes 50; J1 arrives with key 40. Re-keyed, J0 is
 * the worse and J1 preempts it; not re-keyed, J0 keeps its GPU (20 < 40). A job the
 * scheduler has never seen is left alone by a re-key. */
static void test_rekey_running(void)
{
    for (int rekey = 0; rekey <= 1; rekey++) {
        struct fix f;
        if (fix_open(&f, 1)) {
            fix_close(&f);
            return;
        }
        f.key[0] = 20, f.key[1] = 40;
        static const uint32_t first[] = {0}, second[] = {1};
        CHECK_I64(pass(&f, 0, first, 1, NULL, 0), 0);
        f.key[0] = 50;
        struct berth__view v = view_of(&f);
        if (rekey)
            CHECK_I64(berth__prio_rekey(f.q, &v, 0), 0);
        CHECK_I64(berth__prio_rekey(f.q, &v, 3), 0); /* never arrived: nothing happens */
        CHECK_I64(pass(&f, 10, second, 1, NULL, 0), rekey ? 1 : 0);
        CHECK_I64(f.jobs[0].state, rekey ? BERTH_JOB_PENDING : BERTH_JOB_RUNNING);
        fix_close(&f);
    }
}

static const struct check_test tests[] = {
    {"rekey_pending", test_rekey_pending},
    {"rekey_running", test_rekey_running},
};

CHECK_MAIN(tests)
