/* Tests for placement (src/sched/placement.c, place_fgd.c) driven through the plan: the
 * classic placements' choices on a partly busy cluster, spread's levelling, FGD's choice
 * computed by hand (whole GPUs, shares, the GPU type, gangs it cannot place on one server),
 * the table, and a placement whose pick the plan must refuse. */
#include "plantest.h"

static void test_placement(void)
{
    static const struct {
        int placement;
        int32_t gpus;
        int single;
        const char *want; /* sorted server:gpu list */
        int32_t servers;
    } cases[] = {
        /* consolidate: the tightest server that holds the whole gang */
        {BERTH_PLACE_CONSOLIDATE, 1, 0, "0:6", 1},
        {BERTH_PLACE_CONSOLIDATE, 2, 0, "0:6 0:7", 1},
        {BERTH_PLACE_CONSOLIDATE, 3, 0, "3:4 3:5 3:6", 1},
        {BERTH_PLACE_CONSOLIDATE, 4, 0, "3:4 3:5 3:6 3:7", 1},
        {BERTH_PLACE_CONSOLIDATE, 5, 0, "1:3 1:4 1:5 1:6 1:7", 1},
        {BERTH_PLACE_CONSOLIDATE, 8, 0, "2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7", 1},
        /* else whole servers from the emptiest down, the last piece on the tightest */
        {BERTH_PLACE_CONSOLIDATE, 10, 0, "0:6 0:7 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7", 2},
        {BERTH_PLACE_CONSOLIDATE, 12, 0, "2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 3:4 3:5 3:6 3:7", 2},
        {BERTH_PLACE_CONSOLIDATE, 16, 0,
         "1:3 1:4 1:5 1:6 1:7 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 3:4 3:5 3:6", 3},
        {BERTH_PLACE_CONSOLIDATE, 19, 0,
         "0:6 0:7 1:3 1:4 1:5 1:6 1:7 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 3:4 3:5 3:6 3:7", 4},
        /* best-fit: the same when one server holds the gang */
        {BERTH_PLACE_BEST_FIT, 3, 0, "3:4 3:5 3:6", 1},
        {BERTH_PLACE_BEST_FIT, 5, 0, "1:3 1:4 1:5 1:6 1:7", 1},
        /* else the fullest servers first (2 idle, then 4 idle), the rest on the tightest */
        {BERTH_PLACE_BEST_FIT, 12, 0, "0:6 0:7 2:0 2:1 2:2 2:3 2:4 2:5 3:4 3:5 3:6 3:7", 3},
        {BERTH_PLACE_BEST_FIT, 16, 0,
         "0:6 0:7 1:3 1:4 1:5 1:6 1:7 2:0 2:1 2:2 2:3 2:4 3:4 3:5 3:6 3:7", 4},
        {BERTH_PLACE_BEST_FIT, 9, 0, "0:6 0:7 2:0 2:1 2:2 2:3 2:4 2:5 2:6", 2},
        /* spread: GPU by GPU to the emptiest server; 8 GPUs level 5/8/4 idle down to 3 */
        {BERTH_PLACE_SPREAD, 8, 0, "1:3 1:4 2:0 2:1 2:2 2:3 2:4 3:4", 3},
        {BERTH_PLACE_SPREAD, 3, 0, "2:0 2:1 2:2", 1},
        /* 11 GPUs: every server levelled down to 2 idle (server 0 already was) */
        {BERTH_PLACE_SPREAD, 11, 0, "1:3 1:4 1:5 2:0 2:1 2:2 2:3 2:4 2:5 3:4 3:5", 3},
        /* single_server jobs never span, whatever the placement: the tightest server */
        {BERTH_PLACE_SPREAD, 4, 1, "3:4 3:5 3:6 3:7", 1},
        {BERTH_PLACE_SPREAD, 6, 1, "2:0 2:1 2:2 2:3 2:4 2:5", 1},
        {BERTH_PLACE_BEST_FIT, 2, 1, "0:6 0:7", 1},
        {BERTH_PLACE_CONSOLIDATE, 5, 1, "1:3 1:4 1:5 1:6 1:7", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct berth_cluster *c = partly_busy();
        if (!c)
            continue;
        struct pjob pj;
        pjob_init(&pj, 0, "j", cases[i].gpus, cases[i].single, -1);
        struct berth__plan p;
        berth__plan_init(&p);
        CHECK_I64(berth__plan_open(&p, c, &pj.job, 1, 5 * BERTH_US_PER_S,
                                   berth__placement_stateless(cases[i].placement), 1, 0),
                  0);
        int before = check_failures;
        struct berth_err err = {0};
        CHECK_I64(berth__plan_fit(&p, &pj.job), 0);
        int rc = berth__plan_start(&p, 0, &err);
        if (rc)
            fprintf(stderr, "  plan_start: %s\n", err.msg);
        CHECK_I64(rc, 0);
        CHECK_STR(slots_of(&pj.job), cases[i].want);
        CHECK_I64(pj.job.servers, cases[i].servers);
        CHECK_I64(pj.job.state, BERTH_JOB_RUNNING);
        CHECK_I64(pj.job.type, 0);
        CHECK_I64(pj.job.since, 5 * BERTH_US_PER_S);
        CHECK_I64(p.npending, 0);
        CHECK_I64(p.nrunning, 1);
        CHECK_I64(berth_cluster_free_gpus(c), 19 - cases[i].gpus);
        verify_ok(c);
        if (check_failures != before)
            fprintf(stderr, "  in placement case %zu (placement %d, %d GPUs)\n", i,
                    cases[i].placement, (int)cases[i].gpus);
        free(pj.job.slots);
        berth__plan_free(&p);
        berth_cluster_free(c);
    }
}

/* Spread over equally idle servers: one GPU on each of distinct servers. */
static void test_spread_even(void)
{
    static const int32_t gpus[] = {2, 3, 4};
    for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++) {
        struct berth_cluster *c = parse_ok("4x4:v100");
        if (!c)
            continue;
        struct pjob pj;
        pjob_init(&pj, 0, "s", gpus[i], 0, -1);
        struct berth__plan p;
        berth__plan_init(&p);
        berth__plan_open(&p, c, &pj.job, 1, 0, berth__placement_stateless(BERTH_PLACE_SPREAD), 1,
                         0);
        struct berth_err err = {0};
        CHECK_I64(berth__plan_start(&p, 0, &err), 0);
        CHECK_I64(pj.job.servers, gpus[i]);
        int each_gpu0 = 1;
        for (int32_t k = 0; k < gpus[i] && pj.job.slots; k++)
            each_gpu0 &= pj.job.slots[k].gpu == 0;
        CHECK(each_gpu0);
        for (size_t s = 0; s < 4; s++)
            CHECK(c->srv[s].nfree >= 3);
        verify_ok(c);
        free(pj.job.slots);
        berth__plan_free(&p);
        berth_cluster_free(c);
    }
    /* consolidate and best-fit keep a 4-GPU gang on one server of an idle cluster */
    static const int others[] = {BERTH_PLACE_CONSOLIDATE, BERTH_PLACE_BEST_FIT};
    for (size_t i = 0; i < 2; i++) {
        struct berth_cluster *c = parse_ok("4x4:v100");
        if (!c)
            continue;
        struct pjob pj;
        pjob_init(&pj, 0, "w", 4, 0, -1);
        struct berth__plan p;
        berth__plan_init(&p);
        berth__plan_open(&p, c, &pj.job, 1, 0, berth__placement_stateless(others[i]), 1, 0);
        struct berth_err err = {0};
        CHECK_I64(berth__plan_start(&p, 0, &err), 0);
        CHECK_I64(pj.job.servers, 1);
        CHECK_STR(slots_of(&pj.job), "0:0 0:1 0:2 0:3");
        free(pj.job.slots);
        berth__plan_free(&p);
        berth_cluster_free(c);
    }
}

/* ---- the table and the contract ------------------------------------------------------- */

static void test_table(void)
{
    static const char *const want[] = {"consolidate", "spread",         "best-fit",
                                       "fgd",         "blox-scattered", "blox-consolidated",
                                       "topology"};
    CHECK_I64(berth_placement_count(), 7);
    for (size_t i = 0; i < 7; i++) {
        CHECK_STR(berth_placement_name(i), want[i]);
        CHECK_I64(berth_placement_find(want[i]), (int)i);
        CHECK(berth_placement_summary(i) && berth_placement_summary(i)[0]);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(berth_placement_name(i), berth_placement_name(k)));
    }
    CHECK(berth_placement_name(7) == NULL);
    struct berth__placement pl;
    struct berth_err err = {0};
    CHECK_I64(berth__placement_open("tightest", &pl, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "unknown placement 'tightest'");
    CHECK_HAS(err.msg, "consolidate, spread, best-fit, fgd");
    CHECK_I64(berth__placement_open("fgd", &pl, &err), 0);
    CHECK_I64(pl.id, BERTH_PLACE_FGD);
    CHECK(pl.self != NULL && pl.ops->any_type);
    berth__placement_close(&pl);
    CHECK(berth__placement_stateless(BERTH_PLACE_FGD) == NULL); /* it keeps state */
}

/* A placement that always answers server 0 with the whole gang, room or not. */
static int pick_liar(void *self, const struct berth_cluster *c, const struct berth__job *j,
                     int type, int32_t need, struct berth__place_pick *out)
{
    (void)self, (void)c, (void)j, (void)type;
    *out = (struct berth__place_pick){0, -1, need, 0};
    return 0;
}

static void test_bad_pick_refused(void)
{
    static const struct berth__placement_ops liar_ops = {
        .name = "liar", .summary = "x", .pick = pick_liar};
    const struct berth__placement liar = {&liar_ops, NULL, BERTH_PLACE_CONSOLIDATE};
    struct berth_cluster *c = partly_busy(); /* server 0 has 2 idle GPUs */
    if (!c)
        return;
    struct pjob pj;
    pjob_init(&pj, 0, "j", 4, 0, -1);
    struct berth__plan p;
    berth__plan_init(&p);
    CHECK_I64(berth__plan_open(&p, c, &pj.job, 1, 0, &liar, 1, 0), 0);
    struct berth_err err = {0};
    int32_t idle = berth_cluster_free_gpus(c);
    CHECK_I64(berth__plan_start(&p, 0, &err), BERTH_EINTERNAL);
    CHECK_HAS(err.msg, "placement liar picked server 0");
    CHECK_I64(pj.job.state, BERTH_JOB_PENDING);
    CHECK_I64(berth_cluster_free_gpus(c), idle);
    verify_ok(c);
    berth__plan_free(&p);
    free(pj.job.slots);
    berth_cluster_free(c);
}

/* ---- FGD ------------------------------------------------------------------------------- */

/* An FGD placement prepared with the target workload of specs[0..n) (pod types). */
static void fgd_open(struct berth__placement *pl, const struct berth_cluster *c, struct pjob *w,
                     size_t n)
{
    struct berth_err err = {0};
    CHECK_I64(berth__placement_open("fgd", pl, &err), 0);
    struct berth__job jobs[8];
    for (size_t i = 0; i < n && i < 8; i++)
        jobs[i] = w[i].job;
    CHECK_I64(pl->ops->prepare(pl->self, c, jobs, n, &err), 0);
}

/* Starts pj's job under placement pl and returns its GPUs as text ("" when it did not fit). */
static const char *start_with(struct berth_cluster *c, const struct berth__placement *pl,
                              struct pjob *pj, int want_rc)
{
    struct berth__plan p;
    berth__plan_init(&p);
    CHECK_I64(berth__plan_open(&p, c, &pj->job, 1, 0, pl, 1, 0), 0);
    struct berth_err err = {0};
    int rc = berth__plan_start(&p, 0, &err);
    if (rc != want_rc)
        fprintf(stderr, "  start: %d (%s), want %d\n", rc, err.msg, want_rc);
    CHECK_I64(rc, want_rc);
    berth__plan_free(&p);
    verify_ok(c);
    return rc ? "" : slots_of(&pj->job);
}

/* Blox's placements as shipped on the partly busy cluster (4 servers of 8: 2, 5, 8 and 4
 * idle GPUs, in server order). Scattered: each server in turn adds up to the whole gang's
 * count; 1 GPU: server 0 (1 = 1); 2: server 0's two (2); 7: 2 + 5 = 7 exactly; 3: 2, then
 * 2 + 3 = 5 overshoots, so it fails although servers 1-3 could each hold it; 4: 2 + 4 = 6,
 * fails; 19: 2 + 5 + 8 + 4 = 19. Consolidated: only a server with exactly the gang free; 4:
 * server 3; 5: server 1; 8: server 2; 3 and 1: none has exactly that, so it fails. */
static void test_blox(void)
{
    static const struct {
        int placement;
        int32_t gpus;
        const char *want; /* "" = does not fit */
    } cases[] = {
        {BERTH_PLACE_BLOX_SCATTERED, 1, "0:6"},
        {BERTH_PLACE_BLOX_SCATTERED, 2, "0:6 0:7"},
        {BERTH_PLACE_BLOX_SCATTERED, 7, "0:6 0:7 1:3 1:4 1:5 1:6 1:7"},
        {BERTH_PLACE_BLOX_SCATTERED, 3, ""},
        {BERTH_PLACE_BLOX_SCATTERED, 4, ""},
        {BERTH_PLACE_BLOX_SCATTERED, 19,
         "0:6 0:7 1:3 1:4 1:5 1:6 1:7 2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7 3:4 3:5 3:6 3:7"},
        {BERTH_PLACE_BLOX_CONSOLIDATED, 4, "3:4 3:5 3:6 3:7"},
        {BERTH_PLACE_BLOX_CONSOLIDATED, 5, "1:3 1:4 1:5 1:6 1:7"},
        {BERTH_PLACE_BLOX_CONSOLIDATED, 8, "2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7"},
        {BERTH_PLACE_BLOX_CONSOLIDATED, 3, ""},
        {BERTH_PLACE_BLOX_CONSOLIDATED, 1, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct berth_cluster *c = partly_busy();
        if (!c)
            continue;
        struct pjob pj;
        pjob_init(&pj, 0, "b", cases[i].gpus, 0, -1);
        int before = check_failures;
        CHECK_STR(start_with(c, berth__placement_stateless(cases[i].placement), &pj,
                             cases[i].want[0] ? 0 : BERTH_NOFIT),
                  cases[i].want);
        CHECK_I64(berth_cluster_free_gpus(c), 19 - (cases[i].want[0] ? cases[i].gpus : 0));
        if (check_failures != before)
            fprintf(stderr, "  in blox case %zu (%d GPUs)\n", i, (int)cases[i].gpus);
        free(pj.job.slots);
        berth_cluster_free(c);
    }
}

/* Two 4-GPU servers, s0 with 3 idle GPUs (1..3), s1 with 2 (2, 3); M = a 1-GPU and a 2-GPU
 * pod type, p = 1/2 each. F_n counts the idle GPUs of a node that cannot host a type:
 *   1 GPU on s0: 3 -> 2 idle, both types still fit: F 0 -> 0, +0;
 *   1 GPU on s1: 2 -> 1 idle, the 2-GPU type no longer fits: F 0 -> 1/2 x 1000, +500.
 * FGD puts it on s0 (consolidate: the tightest server, s1). A 2-GPU job: on s0 3 -> 1 idle,
 * +500; on s1 2 -> 0 idle, +0: FGD puts it on s1. */
static void test_fgd_whole(void)
{
    struct pjob w[2];
    pjob_init(&w[0], 0, "m1", 1, 0, -1);
    pjob_init(&w[1], 1, "m2", 2, 0, -1);
    for (int gang = 1; gang <= 2; gang++) {
        struct berth_cluster *c = parse_ok("2x4:v100");
        if (!c)
            return;
        berth__cluster_take_mask(c, 0, 0x1);
        berth__cluster_take_mask(c, 1, 0x3);
        struct berth__placement fgd;
        fgd_open(&fgd, c, w, 2);
        struct pjob pj;
        pjob_init(&pj, 0, "j", gang, 0, -1);
        CHECK_STR(start_with(c, &fgd, &pj, 0), gang == 1 ? "0:1" : "1:2 1:3");
        /* consolidate, from the same state: the tightest server */
        berth__cluster_give_mask(c, pj.job.slots[0].server, gang == 1 ? 0x2 : 0xc);
        struct pjob pc;
        pjob_init(&pc, 0, "k", gang, 0, -1);
        CHECK_STR(start_with(c, berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), &pc, 0),
                  gang == 1 ? "1:2" : "1:2 1:3");
        free(pj.job.slots);
        free(pc.job.slots);
        berth__placement_close(&fgd);
        berth_cluster_free(c);
    }
}

/* The type is FGD's choice too: v100 (server 0) with 2 idle GPUs, k80 (server 1) with 4, M as
 * above. A 1-GPU job on the v100 leaves 1 idle (+500), on the k80 3 (+0): FGD takes the k80,
 * although the v100 comes first in cluster order (consolidate takes the v100). */
static void test_fgd_type(void)
{
    struct pjob w[2];
    pjob_init(&w[0], 0, "m1", 1, 0, -1);
    pjob_init(&w[1], 1, "m2", 2, 0, -1);
    struct berth_cluster *c = parse_ok("1x4:v100,1x4:k80");
    if (!c)
        return;
    berth__cluster_take_mask(c, 0, 0x3);
    struct berth__placement fgd;
    fgd_open(&fgd, c, w, 2);
    struct pjob pj, pc, pv;
    pjob_init(&pj, 0, "j", 1, 0, -1);
    CHECK_STR(start_with(c, &fgd, &pj, 0), "1:0");
    CHECK_I64(pj.job.type, 1);
    pjob_init(&pc, 0, "k", 1, 0, -1);
    CHECK_STR(start_with(c, berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), &pc, 0), "0:2");
    /* a job that may use only the v100: FGD places it there */
    pjob_init(&pv, 0, "v", 1, 0, 0);
    CHECK_STR(start_with(c, &fgd, &pv, 0), "0:3");
    free(pj.job.slots);
    free(pc.job.slots);
    free(pv.job.slots);
    berth__placement_close(&fgd);
    berth_cluster_free(c);
}

/* Shares: two 2-GPU servers; GPU 0 of s0 has 450 milli in use (550 left), GPU 0 of s1 100
 * (900 left). M = a half-GPU type and a 1-GPU type, p = 1/2 each. A half-GPU job:
 *   s0 g0 (550 -> 50): F before 1/2 x 550 (the 1-GPU type cannot use g0's 550) = 275,
 *                      after 1/2 x 50 + 1/2 x 50 = 50: -225;
 *   s0 g1 (1000 -> 500): after, no GPU left for the 1-GPU type: 1/2 x 1050 = 525: +250;
 *   s1 g0 (900 -> 400): 450 -> 400: -50;   s1 g1: 450 -> 1/2 x 1400 = 700: +250.
 * FGD: s0 g0. */
static void test_fgd_share(void)
{
    struct pjob w[2];
    pjob_init(&w[0], 0, "half", 1, 0, -1);
    w[0].spec.gpu_share_milli = 500;
    berth__job_init(&w[0].job, &w[0].spec, 0, NULL);
    pjob_init(&w[1], 1, "one", 1, 0, -1);
    struct berth_cluster *c = parse_ok("2x2:v100");
    if (!c || berth__cluster_enable_shares(c)) {
        berth_cluster_free(c);
        return;
    }
    struct pjob r0, r1;
    pjob_init(&r0, 0, "r0", 1, 0, -1);
    pjob_init(&r1, 1, "r1", 1, 0, -1);
    r0.spec.gpu_share_milli = 450;
    r1.spec.gpu_share_milli = 100;
    berth__job_init(&r0.job, &r0.spec, 0, NULL);
    berth__job_init(&r1.job, &r1.spec, 1, NULL);
    struct berth__slot s0 = {0, 0}, s1 = {1, 0};
    r0.job.slots = &s0;
    r1.job.slots = &s1;
    berth__alloc_take(c, &r0.job);
    berth__alloc_take(c, &r1.job);
    struct berth__placement fgd;
    fgd_open(&fgd, c, w, 2);
    struct pjob pj;
    pjob_init(&pj, 0, "j", 1, 0, -1);
    pj.spec.gpu_share_milli = 500;
    berth__job_init(&pj.job, &pj.spec, 0, NULL);
    pj.job.state = BERTH_JOB_PENDING;
    CHECK_STR(start_with(c, &fgd, &pj, 0), "0:0");
    CHECK_I64(c->srv[0].shares->used[0], 950);
    free(pj.job.slots);
    berth__placement_close(&fgd);
    berth_cluster_free(c);
}

/* A gang no one server holds: FGD leaves it to consolidate (whole servers from the
 * emptiest, the rest on the tightest); one that must stay on one server does not fit. */
static void test_fgd_spill(void)
{
    struct pjob w[1];
    pjob_init(&w[0], 0, "m", 6, 0, -1);
    struct berth_cluster *c = parse_ok("2x4:v100");
    if (!c)
        return;
    struct berth__placement fgd;
    fgd_open(&fgd, c, w, 1);
    struct pjob one, six;
    pjob_init(&one, 0, "single", 6, 1, -1);
    CHECK_STR(start_with(c, &fgd, &one, BERTH_NOFIT), "");
    pjob_init(&six, 0, "six", 6, 0, -1);
    CHECK_STR(start_with(c, &fgd, &six, 0), "0:0 0:1 0:2 0:3 1:0 1:1");
    CHECK_I64(six.job.servers, 2);
    free(one.job.slots);
    free(six.job.slots);
    berth__placement_close(&fgd);
    berth_cluster_free(c);
}

/* A closed server (berthd: a Slurm node that started draining) takes no new work whatever
 * runs there: 2x2:v100 with a 450-milli share on GPU 0 of s0 and a whole job on GPU 0 of s1.
 * With s0 open a half-GPU job fits most tightly on s0's partly used GPU 0 (550 left, under
 * consolidate); with s0 closed its GPU 1 is held out and its GPU 0 takes no new share, so the
 * half goes to s1's idle GPU 1, and then a whole 1-GPU job fits nowhere; opened again, s0's
 * GPU 1 takes it. The same under fgd, which scores servers itself. */
static void test_closed_server(void)
{
    for (int use_fgd = 0; use_fgd < 2; use_fgd++) {
        struct berth_cluster *c = parse_ok("2x2:v100");
        if (!c || berth__cluster_enable_shares(c)) {
            berth_cluster_free(c);
            return;
        }
        struct pjob r0, r1, half, one;
        pjob_init(&r0, 0, "r0", 1, 0, -1);
        pjob_init(&r1, 1, "r1", 1, 0, -1);
        r0.spec.gpu_share_milli = 450;
        berth__job_init(&r0.job, &r0.spec, 0, NULL);
        struct berth__slot s0 = {0, 0}, s1 = {1, 0};
        r0.job.slots = &s0;
        r1.job.slots = &s1;
        berth__alloc_take(c, &r0.job);
        berth__alloc_take(c, &r1.job);
        berth__cluster_close(c, 0, 1);
        CHECK_I64(c->srv[0].out_mask, 0x2);
        CHECK_I64(c->out_gpus, 1);
        CHECK_I64(berth_cluster_free_gpus(c), 1);
        verify_ok(c);
        struct berth__placement fgd;
        const struct berth__placement *pl = berth__placement_stateless(BERTH_PLACE_CONSOLIDATE);
        struct pjob w[1];
        pjob_init(&w[0], 0, "m", 1, 0, -1);
        if (use_fgd) {
            fgd_open(&fgd, c, w, 1);
            pl = &fgd;
        }
        pjob_init(&half, 0, "half", 1, 0, -1);
        half.spec.gpu_share_milli = 500;
        berth__job_init(&half.job, &half.spec, 0, NULL);
        half.job.state = BERTH_JOB_PENDING;
        CHECK_STR(start_with(c, pl, &half, 0), "1:1");
        pjob_init(&one, 0, "one", 1, 0, -1);
        CHECK_STR(start_with(c, pl, &one, BERTH_NOFIT), "");
        berth__cluster_close(c, 0, 0);
        CHECK_I64(c->srv[0].out_mask, 0);
        CHECK_I64(c->out_gpus, 0);
        free(one.job.slots);
        pjob_init(&one, 0, "one", 1, 0, -1);
        CHECK_STR(start_with(c, pl, &one, 0), "0:1");
        free(half.job.slots);
        free(one.job.slots);
        if (use_fgd)
            berth__placement_close(&fgd);
        berth_cluster_free(c);
    }
}

static const struct check_test tests[] = {
    {"blox", test_blox},
    {"placement", test_placement},
    {"spread_even", test_spread_even},
    {"table", test_table},
    {"bad_pick_refused", test_bad_pick_refused},
    {"fgd_whole", test_fgd_whole},
    {"fgd_type", test_fgd_type},
    {"fgd_share", test_fgd_share},
    {"fgd_spill", test_fgd_spill},
    {"closed_server", test_closed_server},
};

CHECK_MAIN(tests)
