/* Property test for backfill's side queue (src/sched/prio.c): the jobs a pass sets aside
 * (they would delay the reservation) wait in a side queue per shape, read beside the heap's
 * top, instead of going back into the heap. The order must not change: over random runs
 * (arrivals, limits, ends, re-keys, tied keys, a small and a large look-ahead), a scheduler
 * with the side queue and one that puts every set-aside job back into the heap after each
 * pass (cfg.aside_in_heap, the old way) start the same jobs at the same passes and say the
 * same why for every waiting job. */
#include "priotest.h"

#define NJ 120

struct fix {
    struct berth_cluster *c;
    struct pjob pj[NJ];
    struct berth__job jobs[NJ];
    int64_t key[NJ];
    struct berth__prio *q;
    struct berth__plan plan;
};

static int64_t key_of_ctx(void *ctx, const struct berth__job *j)
{
    return ((const int64_t *)ctx)[j->idx];
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static int fix_open(struct fix *f, uint64_t seed, int in_heap, int32_t depth)
{
    static const int32_t sizes[] = {1, 1, 2, 2, 4, 8};
    static struct pjob base[NJ]; /* once: the spec's extra fields come from a finite pool */
    static int based;
    for (uint32_t i = 0; !based && i < NJ; i++)
        pjob_init(&base[i], i, "j", 1, 0, -1);
    based = 1;
    memset(f, 0, sizeof *f);
    if (!(f->c = parse_ok("2x4:v100")))
        return -1;
    for (uint32_t i = 0; i < NJ; i++) {
        f->pj[i] = base[i];
        int32_t g = sizes[rng_next(&seed) % 6];
        f->pj[i].spec.num_gpus = f->pj[i].spec.min_gpus = f->pj[i].spec.max_gpus = g;
        berth__job_init(&f->pj[i].job, &f->pj[i].spec, i, NULL);
        f->pj[i].job.state = BERTH_JOB_PENDING;
        f->jobs[i] = f->pj[i].job;
        f->jobs[i].spec = &f->pj[i].spec;
        f->jobs[i].limit_us = (berth_us)(1 + rng_next(&seed) % 30) * 10 * BERTH_US_PER_S;
        f->key[i] = (int64_t)(rng_next(&seed) % 40); /* ties: by job number */
    }
    struct berth__prio_cfg cfg = {.key = key_of_ctx,
                                  .slope = berth__prio_slope_none,
                                  .ctx = f->key,
                                  .backfill = 1,
                                  .backfill_depth = depth,
                                  .aside_in_heap = in_heap};
    return prio_open(&cfg, &f->q, &f->plan);
}

static void fix_close(struct fix *f)
{
    prio_close(f->q, &f->plan, f->c, f->jobs, NJ);
}

/* One step at now: jobs past their limit end, jobs [a0, a1) arrive, the pass runs. */
static void step(struct fix *f, berth_us now, uint32_t a0, uint32_t a1)
{
    uint32_t left[NJ], arrived[NJ];
    size_t nl = 0, na = 0;
    for (uint32_t i = 0; i < NJ; i++) {
        struct berth__job *j = &f->jobs[i];
        if (j->state == BERTH_JOB_RUNNING && j->since + j->limit_us <= now) {
            berth__alloc_give(f->c, j);
            j->state = BERTH_JOB_DONE;
            left[nl++] = i;
        }
    }
    for (uint32_t i = a0; i < a1; i++)
        arrived[na++] = i;
    prio_pass(f->q, &f->plan, f->c, f->jobs, NJ, a1, now, arrived, na, left, nl);
}

/* The two schedulers agree on every job's state, start and why. */
static int same(struct fix *a, struct fix *b, uint32_t upto)
{
    struct berth__view va = {.cluster = a->c, .jobs = a->jobs, .njobs = NJ, .infer_demand = -1};
    struct berth__view vb = {.cluster = b->c, .jobs = b->jobs, .njobs = NJ, .infer_demand = -1};
    for (uint32_t i = 0; i < upto; i++) {
        if (a->jobs[i].state != b->jobs[i].state || a->jobs[i].since != b->jobs[i].since)
            return 0;
        struct berth__why wa, wb;
        berth__prio_why(a->q, &va, i, &wa);
        berth__prio_why(b->q, &vb, i, &wb);
        if (wa.code != wb.code || wa.blocker != wb.blocker || wa.until != wb.until)
            return 0;
    }
    return 1;
}

static int all_done(const struct fix *f)
{
    for (uint32_t i = 0; i < NJ; i++)
        if (f->jobs[i].state != BERTH_JOB_DONE)
            return 0;
    return 1;
}

static void test_same_order(void)
{
    static const int32_t depths[] = {1, 3, 1000};
    int started = 0, reserved = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        int32_t depth = depths[seed % 3];
        struct fix a, b;
        if (fix_open(&a, seed * 0x9e3779b97f4a7c15ull, 0, depth) |
            fix_open(&b, seed * 0x9e3779b97f4a7c15ull, 1, depth)) {
            fix_close(&a);
            fix_close(&b);
            return;
        }
        uint64_t r = seed;
        uint32_t arrived = 0;
        for (berth_us t = 0; t < 4000 && !(arrived == NJ && all_done(&a)); t++) {
            uint32_t to = arrived + (uint32_t)(rng_next(&r) % 4);
            to = to > NJ ? NJ : to;
            if (arrived && rng_next(&r) % 3 == 0) { /* a waiting job gets a new key */
                uint32_t j = (uint32_t)(rng_next(&r) % arrived);
                a.key[j] = b.key[j] = (int64_t)(rng_next(&r) % 40);
                struct berth__view va = {.cluster = a.c, .jobs = a.jobs, .njobs = NJ};
                struct berth__view vb = {.cluster = b.c, .jobs = b.jobs, .njobs = NJ};
                CHECK_I64(berth__prio_rekey(a.q, &va, j), 0);
                CHECK_I64(berth__prio_rekey(b.q, &vb, j), 0);
            }
            berth_us now = t * 5 * BERTH_US_PER_S;
            step(&a, now, arrived, to);
            step(&b, now, arrived, to);
            arrived = to;
            if (!same(&a, &b, arrived)) {
                fprintf(stderr, "  seed %llu depth %d: differ at %lld s\n",
                        (unsigned long long)seed, (int)depth, (long long)(now / BERTH_US_PER_S));
                CHECK(0);
                break;
            }
            for (uint32_t i = 0; i < arrived; i++) {
                struct berth__why w;
                struct berth__view va = {.cluster = a.c, .jobs = a.jobs, .njobs = NJ};
                berth__prio_why(a.q, &va, i, &w);
                reserved += w.code == BERTH_WHY_RESERVED;
            }
        }
        for (uint32_t i = 0; i < NJ; i++)
            started += a.jobs[i].state != BERTH_JOB_PENDING;
        fix_close(&a);
        fix_close(&b);
    }
    /* the runs did exercise it: every job ran, and many waits were for a reservation */
    CHECK_I64(started, 60 * NJ);
    CHECK(reserved > 1000);
}

static const struct check_test tests[] = {
    {"same_order", test_same_order},
};

CHECK_MAIN(tests)
