/* Tests for the plan (src/sched/plan.c): the fit test over GPU types, gangs that must not
 * span servers, preemptions and exact restores, on hand-built clusters outside any engine. */
#include "plantest.h"
#include "tmpfile.h"

/* berth__plan_fit: types in cluster order, a required type, -1 when it cannot fit. */
static void test_plan_fit(void)
{
    struct berth_cluster *c = partly_busy(); /* 2, 5, 8, 4 idle */
    struct berth_cluster *h = parse_ok("2x4:v100,2x8:k80");
    if (!c || !h) {
        berth_cluster_free(c);
        berth_cluster_free(h);
        return;
    }
    static const struct {
        int het;
        int32_t gpus;
        int single, want_type, fit;
    } cases[] = {
        {0, 19, 0, -1, 0}, {0, 20, 0, -1, -1}, {0, 8, 1, -1, 0},  {0, 9, 1, -1, -1},
        {0, 1, 0, 0, 0},   {0, 20, 0, 0, -1},  {1, 8, 0, -1, 0},  {1, 9, 0, -1, 1},
        {1, 6, 0, -1, 0},  {1, 6, 1, -1, 1},   {1, 4, 1, -1, 0},  {1, 1, 0, 1, 1},
        {1, 16, 0, 1, 1},  {1, 17, 0, -1, -1}, {1, 17, 0, 1, -1}, {1, 9, 0, 0, -1},
        {1, 5, 1, 0, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct pjob pj;
        pjob_init(&pj, 0, "f", cases[i].gpus, cases[i].single, cases[i].want_type);
        struct berth__plan p;
        berth__plan_init(&p);
        berth__plan_open(&p, cases[i].het ? h : c, &pj.job, 1, 0,
                         berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 1, 0);
        int fit = berth__plan_fit(&p, &pj.job);
        if (fit != cases[i].fit)
            fprintf(stderr, "  plan_fit case %zu\n", i);
        CHECK_I64(fit, cases[i].fit);
        struct berth_err err = {0};
        int32_t free_before = berth_cluster_free_gpus(p.cluster);
        int rc = berth__plan_start(&p, 0, &err);
        if (cases[i].fit < 0) {
            /* a start that does not fit says so (BERTH_NOFIT, no message) and changes
             * nothing */
            CHECK_I64(rc, BERTH_NOFIT);
            CHECK_STR(err.msg, "");
            CHECK_I64(pj.job.state, BERTH_JOB_PENDING);
            CHECK_I64(berth_cluster_free_gpus(p.cluster), free_before);
            CHECK_I64(p.npending, 1);
        } else {
            CHECK_I64(rc, 0);
            CHECK_I64(pj.job.type, cases[i].fit);
            CHECK_I64(berth_cluster_free_gpus(p.cluster), free_before - cases[i].gpus);
            for (int32_t k = 0; k < cases[i].gpus && pj.job.slots; k++)
                CHECK_I64(p.cluster->srv[pj.job.slots[k].server].type, cases[i].fit);
            /* undo through a fresh plan so the next case sees the same state */
            berth__cluster_give_slots(p.cluster, pj.job.slots, pj.job.spec->num_gpus);
        }
        verify_ok(p.cluster);
        free(pj.job.slots);
        berth__plan_free(&p);
    }
    berth_cluster_free(h);
    berth_cluster_free(c);
}

/* A cluster file with gang_span false keeps every gang on one server. */
static void test_no_span_cluster(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path =
        tmp_write(&t, "c.json",
                  "{\"gang_span\": false, \"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, "
                  "\"count\": 3}]}");
    struct berth_cluster *c = parse_ok(path);
    tmp_close(&t);
    if (!c)
        return;
    berth__cluster_take_mask(c, 0, 0x1); /* 3, 4, 4 idle */
    struct pjob a, b;
    pjob_init(&a, 0, "a", 3, 0, -1);
    pjob_init(&b, 1, "b", 5, 0, -1);
    struct berth__job jobs[2];
    /* the engine derives "must stay on one server" from the cluster when it adds a job */
    CHECK_I64(berth__job_init(&jobs[0], &a.spec, 0, c), 0);
    CHECK_I64(berth__job_init(&jobs[1], &b.spec, 1, c), 0);
    CHECK(jobs[0].single && jobs[1].single);
    jobs[0].state = jobs[1].state = BERTH_JOB_PENDING;
    struct berth__plan p;
    berth__plan_init(&p);
    berth__plan_open(&p, c, jobs, 2, 0, berth__placement_stateless(BERTH_PLACE_SPREAD), 2, 0);
    struct berth_err err = {0};
    CHECK_I64(berth__plan_fit(&p, &jobs[1]), -1); /* 11 idle, but 5 on one server never */
    CHECK_I64(berth__plan_start(&p, 1, &err), BERTH_NOFIT);
    CHECK_I64(berth__plan_start(&p, 0, &err), 0);
    CHECK_STR(slots_of(&jobs[0]), "0:1 0:2 0:3"); /* tightest, even under spread */
    CHECK_I64(jobs[0].servers, 1);
    verify_ok(c);
    free(jobs[0].slots);
    free(jobs[1].slots);
    berth__plan_free(&p);
    berth_cluster_free(c);
}

/* Preempt and restore give back the very same GPUs; a restore is refused once another job
 * took one of them. */
static void test_preempt_restore(void)
{
    struct berth_cluster *c = partly_busy(); /* 2, 5, 8, 4 idle */
    if (!c)
        return;
    struct pjob a, b, d;
    pjob_init(&a, 0, "a", 6, 0, -1);
    pjob_init(&b, 1, "b", 2, 0, -1);
    pjob_init(&d, 2, "d", 1, 0, -1);
    struct berth__job jobs[3] = {a.job, b.job, d.job};
    jobs[0].spec = &a.spec;
    jobs[1].spec = &b.spec;
    jobs[2].spec = &d.spec;
    struct berth__plan p;
    berth__plan_init(&p);
    struct berth_err err = {0};

    /* pass 1 at t=0: start a on the tightest server that holds 6 (server 2) */
    CHECK_I64(berth__plan_open(&p, c, jobs, 3, 0,
                               berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 3, 0),
              0);
    CHECK_I64(berth__plan_start(&p, 0, &err), 0);
    CHECK_STR(slots_of(&jobs[0]), "2:0 2:1 2:2 2:3 2:4 2:5");
    CHECK_I64(berth__plan_can_restore(&p, 0), 0);                 /* running, never preempted */
    CHECK_I64(berth__plan_preempt(&p, 1, &err), BERTH_EINTERNAL); /* b is not running */
    CHECK_I64(berth__plan_start(&p, 0, &err), BERTH_EINTERNAL);   /* a is not pending */
    CHECK_I64(berth_cluster_free_gpus(c), 13);

    /* pass 2 at t=10 s: preempt a; its service is folded; restore gives the same GPUs */
    CHECK_I64(berth__plan_open(&p, c, jobs, 3, 10 * BERTH_US_PER_S,
                               berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 2, 1),
              0);
    CHECK_I64(berth__plan_can_restore(&p, 0), 0); /* not preempted in this plan */
    CHECK_I64(berth__plan_preempt(&p, 0, &err), 0);
    CHECK_I64(jobs[0].state, BERTH_JOB_PENDING);
    CHECK_I64(jobs[0].run_us, 10 * BERTH_US_PER_S);
    CHECK_I64(jobs[0].gpu_us, 60 * BERTH_US_PER_S);
    CHECK_I64(p.npending, 3);
    CHECK_I64(p.nrunning, 0);
    CHECK_I64(berth_cluster_free_gpus(c), 19);
    CHECK_STR(bucket(c, 0, 8), "2");
    verify_ok(c);
    CHECK_I64(berth__plan_can_restore(&p, 0), 1);
    CHECK_I64(berth__plan_can_restore(&p, 1), 0); /* never ran */
    /* another job starts on GPUs a did not hold: a can still come back */
    CHECK_I64(berth__plan_start(&p, 2, &err), 0);
    CHECK_STR(slots_of(&jobs[2]), "0:6");
    CHECK_I64(berth__plan_can_restore(&p, 0), 1);
    CHECK_I64(berth__plan_restore(&p, 0, &err), 0);
    CHECK_STR(slots_of(&jobs[0]), "2:0 2:1 2:2 2:3 2:4 2:5");
    CHECK_I64(jobs[0].state, BERTH_JOB_RUNNING);
    CHECK_I64(jobs[0].since, 10 * BERTH_US_PER_S);
    CHECK_I64(p.nrunning, 2);
    CHECK_I64(p.npending, 1);
    CHECK_I64(berth_cluster_free_gpus(c), 12);
    CHECK(c->srv[2].free_mask == 0xc0);
    verify_ok(c);
    CHECK_I64(berth__plan_can_restore(&p, 0), 0); /* running again */

    /* pass 3 at t=20 s: preempt a again; b starts elsewhere, so a could still come back */
    CHECK_I64(berth__plan_open(&p, c, jobs, 3, 20 * BERTH_US_PER_S,
                               berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 1, 2),
              0);
    CHECK_I64(berth__plan_preempt(&p, 0, &err), 0);
    CHECK_I64(jobs[0].run_us, 20 * BERTH_US_PER_S);
    CHECK_I64(jobs[0].gpu_us, 120 * BERTH_US_PER_S);
    /* idle now: server 0 {7}, 1 {3..7}, 2 {0..7}, 3 {4..7} = 1, 5, 8, 4 */
    CHECK_I64(berth__plan_start(&p, 1, &err), 0);
    CHECK_STR(slots_of(&jobs[1]), "3:4 3:5"); /* tightest with >= 2: server 3 */
    CHECK_I64(berth__plan_can_restore(&p, 0), 1);
    verify_ok(c);
    berth__plan_free(&p);

    /* pass 4: a fresh plan where a runs, is preempted, and a 1-GPU job takes GPU 2:0 */
    struct berth_cluster *e = parse_ok("4x8:v100"); /* all 32 idle */
    if (!e)
        return;
    struct pjob x, y;
    pjob_init(&x, 0, "x", 3, 0, -1);
    pjob_init(&y, 1, "y", 1, 0, -1);
    struct berth__job j2[2] = {x.job, y.job};
    j2[0].spec = &x.spec;
    j2[1].spec = &y.spec;
    berth__plan_init(&p);
    berth__plan_open(&p, e, j2, 2, 0, berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 2, 0);
    CHECK_I64(berth__plan_start(&p, 0, &err), 0);
    CHECK_STR(slots_of(&j2[0]), "0:0 0:1 0:2");
    berth__plan_open(&p, e, j2, 2, BERTH_US_PER_S,
                     berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 1, 1);
    CHECK_I64(berth__plan_preempt(&p, 0, &err), 0);
    CHECK_I64(berth__plan_can_restore(&p, 0), 1);
    /* every server is fully idle again, so y goes to the first of them: server 0, GPU 0 */
    CHECK_I64(berth__plan_start(&p, 1, &err), 0);
    CHECK_STR(slots_of(&j2[1]), "0:0");
    CHECK_I64(berth__plan_can_restore(&p, 0), 0);
    CHECK_I64(berth__plan_restore(&p, 0, &err), BERTH_EINTERNAL);
    CHECK_HAS(err.msg, "x");
    CHECK_I64(j2[0].state, BERTH_JOB_PENDING);
    CHECK_I64(berth_cluster_free_gpus(e), 31);
    verify_ok(e);
    /* the snapshot still names the old GPUs: x's slots were not overwritten */
    CHECK_STR(slots_of(&j2[0]), "0:0 0:1 0:2");

    free(j2[0].slots);
    free(j2[1].slots);
    berth__plan_free(&p);
    berth_cluster_free(e);
    for (int k = 0; k < 3; k++)
        free(jobs[k].slots);
    berth_cluster_free(c);
}

static const struct check_test tests[] = {
    {"plan_fit", test_plan_fit},
    {"no_span_cluster", test_no_span_cluster},
    {"preempt_restore", test_preempt_restore},
};

CHECK_MAIN(tests)
