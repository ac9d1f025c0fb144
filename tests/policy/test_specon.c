/* SpeCon: the progress curves, growth detection and labels computed by hand; the migration
 * choice on tiny clusters (the engine with a metric whose growth is known exactly, and the
 * simulator with the curves and a restart cost); and a property check on random workloads
 * (every job finishes once, no server over-committed, migrations never stay on the source). */
#include <math.h>

#include "enginetest.h"
#include "jobspec_make.h"
#include "model/curve.h"
#include "policy/specon.h"
#include "util/rng.h"

/* A fixed-speed lenet job of 1000 s, one GPU. */
static struct berth_jobspec lenet_spec(void)
{
    struct berth_jobspec s = jobspec_make("j", 1000000000, 1, 1, 1);
    jobspec_x(&s)->job_type = "lenet";
    return s;
}

/* lenet: a_max 99, tau 1.5 epochs, 20 epochs. acc(1.5) = 99 (1 - e^-1) = 62.579935...;
 * acc(0) = acc(-1) = 0; unknown and empty job types take the default class (95, 3, 20). */
static void curves(void)
{
    const struct berth_curve *c = berth__curve_find("lenet");
    CHECK_STR(c->name, "lenet");
    CHECK_DBL(berth__curve_acc(c, 1.5), 99.0 * (1.0 - exp(-1.0)), 1e-12);
    CHECK_DBL(berth__curve_acc(c, 1.5), 62.5799353, 1e-6);
    CHECK_DBL(berth__curve_acc(c, 0), 0, 0);
    CHECK_DBL(berth__curve_acc(c, -1), 0, 0);
    CHECK_STR(berth__curve_find("nope")->name, "default");
    CHECK_STR(berth__curve_find("")->name, "default");
    CHECK_STR(berth__curve_find(NULL)->name, "default");
    CHECK_DBL(berth__curve_find("rnn")->a_max, 97.0, 0);
    /* a fixed-speed lenet job of 1000 s that has done 250 s by 200 s and runs at speed 1:
     * at 300 s it has done 350 s of 1000, 20 x 0.35 = 7 epochs, acc 99 (1 - e^(-7/1.5)) */
    struct berth_jobspec spec = lenet_spec();
    struct berth__job j;
    CHECK_I64(berth__job_init(&j, &spec, 0, NULL), 0);
    j.state = BERTH_JOB_RUNNING;
    j.done = 250e6;
    j.rate = 1.0;
    j.progress_at = 200 * BERTH_US_PER_S;
    CHECK_DBL(berth__curve_epochs(&j, 300 * BERTH_US_PER_S), 7.0, 1e-12);
    CHECK_DBL(berth__curve_job_metric(NULL, &j, 300 * BERTH_US_PER_S),
              99.0 * (1.0 - exp(-7.0 / 1.5)), 1e-12);
}

/* Growth is points per second over the readings' distance: 50 -> 51 over 10 s is 0.1/s,
 * 50 -> 50.999 is 0.0999/s, 80 -> 79 over 20 s is -0.05/s. With the defaults (window 10 s,
 * alpha 0.1, near completion under 2 epochs, cool-down 60 s), for the 1000 s lenet job above
 * (20 epochs, one per 50 s): no growth yet is warm-up whatever else holds; at 300 s it has 13
 * epochs left, so 0.1 is fast (not below alpha) and 0.0999 slow; with a cool-down until 360 s
 * it is cooling at 300 s and labelled again at 360 s; at 1060 s it has done 250 + 860 = 1110
 * s of work, capped at 1000 (0 epochs left: near completion), and at 960 s 1010 -> 1000 too;
 * at 910 s, 960 s done = 19.2 epochs, 0.8 left: near; at 850 s, 900 s done = 18 epochs, 2
 * left: not near (exempt only below 2). */
static void growth_and_labels(void)
{
    CHECK_DBL(berth__specon_growth(50, 10 * BERTH_US_PER_S, 51, 20 * BERTH_US_PER_S), 0.1, 1e-12);
    CHECK_DBL(berth__specon_growth(50, 10 * BERTH_US_PER_S, 50.999, 20 * BERTH_US_PER_S), 0.0999,
              1e-12);
    CHECK_DBL(berth__specon_growth(80, 10 * BERTH_US_PER_S, 79, 30 * BERTH_US_PER_S), -0.05, 1e-12);
    struct berth__specon_cfg cfg;
    struct berth_err err = {0};
    CHECK_I64(berth__specon_cfg("specon", NULL, &cfg, &err), 0);
    CHECK_I64(cfg.window_us, 10 * BERTH_US_PER_S);
    CHECK_I64(cfg.cooldown_us, 60 * BERTH_US_PER_S);
    CHECK_DBL(cfg.alpha, 0.1, 0);
    CHECK_DBL(cfg.theta, 0.5, 0);
    CHECK_DBL(cfg.near_epochs, 2, 0);
    CHECK_I64(berth__specon_cfg("specon", "window=30, alpha=0.5", &cfg, &err), 0);
    CHECK_I64(cfg.window_us, 30 * BERTH_US_PER_S);
    CHECK_DBL(cfg.alpha, 0.5, 0);
    CHECK_I64(cfg.cooldown_us, 60 * BERTH_US_PER_S); /* the others keep their defaults */
    CHECK_I64(berth__specon_cfg("specon", "theta=1.5", &cfg, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "policy specon: setting theta: expected a number from 0 to 1");
    CHECK_I64(berth__specon_cfg("spread", "windows=3", &cfg, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "unknown setting \"windows\" (its settings: window, cooldown, alpha");
    CHECK_I64(berth__specon_cfg("specon", NULL, &cfg, &err), 0);

    struct berth_jobspec spec = lenet_spec();
    struct berth__job j;
    CHECK_I64(berth__job_init(&j, &spec, 0, NULL), 0);
    j.state = BERTH_JOB_RUNNING;
    j.done = 250e6;
    j.rate = 1.0;
    j.progress_at = 200 * BERTH_US_PER_S;
    berth_us s = BERTH_US_PER_S;
    CHECK_I64(berth__specon_label(&cfg, &j, 300 * s, 0, 0.0, 0), BERTH_SPECON_WARMUP);
    CHECK_I64(berth__specon_label(&cfg, &j, 1060 * s, 0, 0.0, 0), BERTH_SPECON_WARMUP);
    CHECK_I64(berth__specon_label(&cfg, &j, 300 * s, 1, 0.1, 0), BERTH_SPECON_FAST);
    CHECK_I64(berth__specon_label(&cfg, &j, 300 * s, 1, 0.0999, 0), BERTH_SPECON_SLOW);
    CHECK_I64(berth__specon_label(&cfg, &j, 300 * s, 1, 0.0, 360 * s), BERTH_SPECON_COOLING);
    CHECK_I64(berth__specon_label(&cfg, &j, 360 * s, 1, 0.0, 360 * s), BERTH_SPECON_SLOW);
    CHECK_I64(berth__specon_label(&cfg, &j, 1060 * s, 1, 0.0, 0), BERTH_SPECON_NEAR_END);
    CHECK_I64(berth__specon_label(&cfg, &j, 960 * s, 1, 0.0, 0), BERTH_SPECON_NEAR_END);
    CHECK_I64(berth__specon_label(&cfg, &j, 910 * s, 1, 0.0, 0), BERTH_SPECON_NEAR_END);
    CHECK_I64(berth__specon_label(&cfg, &j, 850 * s, 1, 0.0, 0), BERTH_SPECON_SLOW);
    CHECK_I64(berth__specon_label(&cfg, &j, 850 * s, 1, 0.0, 900 * s), BERTH_SPECON_COOLING);
}

/* A metric that grows linearly at a rate set per job in its job_type's number ("g0.05"):
 * growth over any window is exactly that rate. */
static double linear_metric(void *ctx, const struct berth__job *j, berth_us now)
{
    (void)ctx;
    return strtod(berth_jobspec_extra(j->spec)->job_type + 1, NULL) * (double)now / 1e6;
}

static uint32_t migrated_job = UINT32_MAX;
static int32_t migrated_to = -1;
static berth_us migrated_at = -1;
static int nmigrations;

static void note_migration(void *ctx, struct berth__job *j, berth_us now)
{
    (void)ctx;
    migrated_job = j->idx;
    migrated_to = (int32_t)j->slots[0].server;
    migrated_at = now;
    nmigrations++;
}

/* The choice on 3 servers of one pseudo-GPU, quarter shares, defaults (window 10 s, alpha
 * 0.1, theta 0.5, cool-down 60 s). Spread placement at 0: J1 s0, J2 s1, J3 s2 (idle GPUs in
 * server order), then the most room, ties to the lower server: J4 s0, J5 s1, J6 s2, J7 s0.
 * Loads: s0 0.75 (J1, J4, J7), s1 0.5, s2 0.5. The window pass at 0 reads nothing (nothing
 * ran yet) and finds that no job on s0 could move (s1 or s2 would reach 0.75, not below
 * 0.75): SpeCon pauses its timer until something changes. J3 and J6 end at 15: s2 is empty,
 * and 15 s after the last window this pass is a window pass; the pause broke the chain, so
 * everyone warms up: first readings at 15, growth at 25: J1 0.05, J4 0.02, J7 0.03 (slow,
 * below 0.1), J2 and J5 0.5 (fast). At 25 the busiest server is s0 (0.75 > theta); its
 * slowest job is J4 (0.02); the least loaded other server is s2 (0), 0.25 with J4, less than
 * 0.75: J4 moves s0 -> s2 at 25. Then s0 and s1 are at 0.5 (not above theta), s2 at 0.25:
 * nothing moves again; everyone ends at 1000 (this driver keeps run time across a
 * migration). With theta 0.3 the 35 s window tries s0 (0.5, 2 jobs; before s1 by number):
 * its slowest J7 would bring s2 to 0.5, not below 0.5, so it stays; s1 has no slow job; s2
 * (0.25) is not above 0.3: still one migration, and the timer pauses (no job on s0 or s1
 * fits anywhere less busy) until the jobs end. */
static void migration_choice(void)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,gpu_share,job_type\n"
                      "J1,0,1000,1,0.25,g0.05\n"
                      "J2,0,1000,1,0.25,g0.5\n"
                      "J3,0,15,1,0.25,g0.5\n"
                      "J4,0,1000,1,0.25,g0.02\n"
                      "J5,0,1000,1,0.25,g0.5\n"
                      "J6,0,15,1,0.25,g0.5\n"
                      "J7,0,1000,1,0.25,g0.03\n";
    for (int variant = 0; variant < 2; variant++) {
        struct berth__params p = {.placement = BERTH_PLACE_SPREAD,
                                  .settings = variant ? "theta=0.3" : NULL};
        struct berth__engine_exec ex = {.migrate = note_migration};
        struct enginetest et;
        struct berth_err err = {0};
        nmigrations = 0;
        int rc =
            enginetest_run_exec(csv, "3x1:cpu", "specon", &p, NULL, &ex, linear_metric, &et, &err);
        CHECK_I64(rc, 0);
        if (rc) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        CHECK_I64(nmigrations, 1);
        CHECK_I64(et.e->migrations, 1);
        CHECK_I64(migrated_job, 3); /* J4 */
        CHECK_I64(migrated_to, 2);
        CHECK_I64(migrated_at, 25 * BERTH_US_PER_S);
        /* passes: 0 (pauses), 15 (J3, J6 end), 25 (the move), 35 (nothing can move: pauses),
         * 1000 (the rest end) */
        CHECK_I64(et.npasses, 5);
        if (et.npasses == 5) {
            CHECK_I64(et.passes[1], 15 * BERTH_US_PER_S);
            CHECK_I64(et.passes[3], 35 * BERTH_US_PER_S);
            CHECK_I64(et.passes[4], 1000 * BERTH_US_PER_S);
        }
        CHECK_I64(et.e->jobs[3].migrations, 1);
        for (size_t i = 0; i < et.e->njobs; i++)
            CHECK_I64(et.e->jobs[i].finish, et.e->jobs[i].spec->duration_us);
        enginetest_free(&et);
    }
    /* the baseline never moves anyone: J4 stays where it started */
    struct berth__params p = {.placement = BERTH_PLACE_SPREAD};
    struct enginetest et;
    struct berth_err err = {0};
    if (!enginetest_run(csv, "3x1:cpu", "spread", &p, NULL, &et, &err)) {
        CHECK_I64(et.e->migrations, 0);
        CHECK_I64(et.e->jobs[3].migrations, 0);
        enginetest_free(&et);
    } else {
        CHECK(0);
    }
}

/* The simulator with the curves: 2 servers of one pseudo-GPU, quarter shares, lenet jobs
 * (20 epochs, tau 1.5), fixed speed, no co-location slowdown, restart cost 5 s. Placement:
 * X s0, A s1, Y s0 (most room, tie to the lower), C s1, D s0, E s1. X and Y end at 100:
 * s0 holds D (0.25), s1 A, C, E (0.75). A (400 s: 0.05 epochs/s) reads acc(t) = 99 (1 -
 * e^(-t/30)); its growth over [t - 10, t] is 9.9 (e^(-(t-10)/30) - e^(-t/30)): 0.1397 at
 * 100, 0.10011 at 110 (fast), 0.07173 at 120 (slow). C and E (3000 s: 1/150 epochs/s) grow
 * 9.9 (e^(-(t-10)/225) - e^(-t/225)) = 0.264 at 120: fast. So at 120 A moves from s1 to s0
 * (0.5 < 0.75). It has done 120 s; after the 5 s restart its 280 s left end at 405. Then
 * both servers are at 0.5, not above theta: no more moves; C, D, E end at 3000, X, Y at
 * 100. Under spread nobody moves and A ends at 400. */
static void sim_golden(void)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,gpu_share,job_type\n"
                      "X,0,100,1,0.25,lenet\n"
                      "A,0,400,1,0.25,lenet\n"
                      "Y,0,100,1,0.25,lenet\n"
                      "C,0,3000,1,0.25,lenet\n"
                      "D,0,3000,1,0.25,lenet\n"
                      "E,0,3000,1,0.25,lenet\n";
    for (int base = 0; base < 2; base++) {
        struct berth_sim_opts o;
        berth_sim_opts_init(&o);
        o.policy = base ? "spread" : "specon";
        o.restart_us = 5 * BERTH_US_PER_S;
        struct simtest st;
        struct berth_err err = {0};
        int rc = simtest_run_opts(csv, "2x1:cpu", &o, &st, &err);
        CHECK_I64(rc, 0);
        if (rc) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        CHECK_STR(st.r.placement, "spread");
        CHECK_I64(st.r.summary.completed, 6);
        CHECK_I64(st.r.summary.migrations, base ? 0 : 1);
        const struct berth_job_result *a = simtest_job(&st.r, "A");
        CHECK_I64(a->finish_us, (base ? 400 : 405) * BERTH_US_PER_S);
        CHECK_I64(a->restarts, base ? 0 : 1);
        CHECK_I64(a->restart_lost_us, base ? 0 : 5 * BERTH_US_PER_S);
        CHECK_I64(simtest_job(&st.r, "X")->finish_us, 100 * BERTH_US_PER_S);
        CHECK_I64(simtest_job(&st.r, "Y")->finish_us, 100 * BERTH_US_PER_S);
        for (const char *id = "CDE"; *id; id++) {
            char name[2] = {*id, 0};
            CHECK_I64(simtest_job(&st.r, name)->finish_us, 3000 * BERTH_US_PER_S);
            CHECK_I64(simtest_job(&st.r, name)->restarts, 0);
        }
        simtest_free(&st);
    }
}

/* ---- the plan edit behind a migration: berth__plan_start_on ----------------------- */

/* Servers s0, s1: 2 v100 each; s2: 2 k80. J0: 2 whole GPUs, v100 only; J1: half a GPU.
 * At 0: J0 may not use s2's k80s (refused), goes to s1 (GPUs 0 and 1); J1 does not fit s1
 * (no GPU with room), goes to s0's GPU 0; server 9 does not exist. At 10: J0 cannot move to
 * s0 (one idle GPU), gets its own back; J1 moves to s2: one migration, nothing else. */
static int start_on_script(void *self, const struct berth__view *v, struct berth__plan *p,
                           struct berth_err *err)
{
    (void)self;
    if (v->now == 0) {
        CHECK_I64(berth__plan_start_on(p, 0, 2, err), BERTH_NOFIT); /* a type it may not use */
        CHECK_I64(berth__plan_start_on(p, 0, 1, err), 0);
        CHECK_I64(berth__plan_start_on(p, 1, 1, err), BERTH_NOFIT); /* no room there */
        CHECK_I64(berth__plan_start_on(p, 1, 0, err), 0);
        CHECK_I64(berth__plan_start_on(p, 1, 9, err), BERTH_EINTERNAL);
        return 0;
    }
    if (v->now == 10) {
        if (berth__plan_preempt(p, 0, err))
            return BERTH_EINTERNAL;
        CHECK_I64(berth__plan_start_on(p, 0, 0, err), BERTH_NOFIT);
        if (berth__plan_restore(p, 0, err) || berth__plan_preempt(p, 1, err))
            return BERTH_EINTERNAL;
        return berth__plan_start_on(p, 1, 2, err);
    }
    return 0;
}

static void plan_start_on(void)
{
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    CHECK_I64(berth_cluster_parse("2x2:v100,1x2:k80", &c, &err), 0);
    struct berth_jobspec js[2];
    js[0] = lenet_spec();
    js[0].id = "J0";
    js[0].num_gpus = js[0].min_gpus = js[0].max_gpus = 2;
    jobspec_x(&js[0])->gpu_type = "v100";
    js[1] = lenet_spec();
    js[1].id = "J1";
    js[1].gpu_share_milli = 500;
    struct berth__params params = {0};
    struct berth__engine_exec ex = {.migrate = note_migration};
    struct berth__engine *e = NULL;
    CHECK_I64(berth__engine_create(c, "fifo", NULL, &params, &ex, &e, &err), 0);
    if (!e) {
        berth_cluster_free(c);
        return;
    }
    struct berth__policy_ops ops = *e->ops; /* fifo's create/destroy, scripted passes */
    ops.plan = start_on_script;
    e->ops = &ops;
    berth__engine_set_check(e, 1);
    uint32_t idx;
    CHECK_I64(berth__engine_add(e, &js[0], &idx, &err), 0);
    CHECK_I64(berth__engine_add(e, &js[1], &idx, &err), 0);
    CHECK_I64(berth__engine_arrive(e, 0, 0, &err), 0);
    CHECK_I64(berth__engine_arrive(e, 1, 0, &err), 0);
    nmigrations = 0;
    CHECK_I64(berth__engine_pass(e, 0, &err), 0);
    CHECK_I64(e->jobs[0].slots[0].server, 1);
    CHECK_I64(e->jobs[0].slots[1].server, 1);
    CHECK_I64(e->jobs[0].servers, 1);
    CHECK_I64(e->jobs[1].slots[0].server, 0);
    CHECK_I64(e->jobs[1].slots[0].gpu, 0);
    CHECK_I64(e->nrunning, 2);
    CHECK_I64(berth__engine_pass(e, 10, &err), 0);
    CHECK_I64(e->migrations, 1);
    CHECK_I64(nmigrations, 1);
    CHECK_I64(e->jobs[1].slots[0].server, 2);
    CHECK_I64(e->jobs[1].type, 1); /* k80 */
    CHECK_I64(e->jobs[0].slots[0].server, 1);
    CHECK_I64(e->jobs[0].migrations, 0);
    berth__engine_destroy(e);
    berth_cluster_free(c);
}

/* ---- property: random workloads ---------------------------------------------------- */

static uint32_t where[512]; /* per job: the server it started on, or last moved to */
static int moved, stayed;

static void prop_start(void *ctx, struct berth__job *j, berth_us now)
{
    (void)ctx;
    (void)now;
    where[j->idx] = j->slots[0].server;
}

static void prop_migrate(void *ctx, struct berth__job *j, berth_us now)
{
    (void)ctx;
    (void)now;
    moved++;
    stayed += j->slots[0].server == where[j->idx];
    where[j->idx] = j->slots[0].server;
}

/* the curve read off run time (this driver keeps no work done) */
static double run_metric(void *ctx, const struct berth__job *j, berth_us now)
{
    (void)ctx;
    const struct berth_curve *c = berth__curve_find(berth_jobspec_extra(j->spec)->job_type);
    return berth__curve_acc(c, c->epochs * (double)berth__job_run_us(j, now) /
                                   (double)j->spec->duration_us);
}

/* Random clusters (2-6 servers of 1-4 GPUs) and workloads (10-60 jobs of quarter, half and
 * whole GPUs, gangs of 1-2, curve classes at random), with a low theta and short cool-down
 * so that migrations happen: under the engine driver with --check's invariants after every
 * pass, every job finishes exactly once having run exactly its duration, and no migration
 * leaves a job on its server; the simulator completes every job too. */
static void property(void)
{
    static const char *const types[] = {"lenet", "cnn", "rnn", "birnn", "other"};
    static const char *const shares[] = {"0.25", "0.5", "1"};
    struct berth__rng r;
    berth__rng_seed(&r, 2026);
    int total_moves = 0;
    for (int round = 0; round < 40; round++) {
        int ns = 2 + (int)berth__rng_below(&r, 5), ng = 1 + (int)berth__rng_below(&r, 4);
        int nj = 10 + (int)berth__rng_below(&r, 51);
        char cluster[32];
        snprintf(cluster, sizeof cluster, "%dx%d:cpu", ns, ng);
        char *csv = malloc(64 * (size_t)nj + 64);
        size_t len = (size_t)snprintf(csv, 64,
                                      "job_id,arrival_s,duration_s,num_gpus,gpu_share,"
                                      "job_type\n");
        double t = 0;
        for (int i = 0; i < nj; i++) {
            const char *sh = shares[berth__rng_below(&r, 3)];
            int g = sh[0] == '1' && ng > 1 ? 1 + (int)berth__rng_below(&r, 2) : 1;
            len += (size_t)snprintf(csv + len, 64, "j%d,%d,%d,%d,%s,%s\n", i, (int)t,
                                    5 + (int)berth__rng_below(&r, 300), g, sh,
                                    types[berth__rng_below(&r, 5)]);
            t += berth__rng_exp(&r, 1.0 / 15);
        }
        struct berth__params p = {.placement = BERTH_PLACE_SPREAD,
                                  .settings = "theta=0.1,alpha=0.5,cooldown=20"};
        struct berth__engine_exec ex = {.start = prop_start, .migrate = prop_migrate};
        struct enginetest et;
        struct berth_err err = {0};
        moved = stayed = 0;
        int rc = enginetest_run_exec(csv, cluster, "specon", &p, NULL, &ex, run_metric, &et, &err);
        CHECK_I64(rc, 0);
        if (rc) {
            fprintf(stderr, "  round %d: %s\n", round, err.msg);
        } else {
            CHECK_I64(et.e->ndone, (size_t)nj);
            CHECK_I64(et.e->migrations, (uint64_t)moved);
            CHECK_I64(stayed, 0);
            for (size_t i = 0; i < et.e->njobs; i++) {
                const struct berth__job *j = &et.e->jobs[i];
                CHECK_I64(j->state, BERTH_JOB_DONE);
                CHECK_I64(j->run_us, j->spec->duration_us);
                CHECK(j->finish >= j->spec->arrival_us + j->spec->duration_us);
            }
            total_moves += moved;
            enginetest_free(&et);
        }
        struct berth_sim_opts o;
        berth_sim_opts_init(&o);
        o.policy = "specon";
        o.colocate_speed = 0.8;
        o.restart_us = 3 * BERTH_US_PER_S;
        struct simtest st;
        if (!simtest_run_opts(csv, cluster, &o, &st, &err)) {
            CHECK_I64(st.r.summary.completed, (size_t)nj);
            for (size_t i = 0; i < st.r.njobs; i++)
                CHECK(st.r.jobs[i].finish_us != BERTH_TIME_NONE);
            simtest_free(&st);
        } else {
            fprintf(stderr, "  round %d (sim): %s\n", round, err.msg);
            CHECK(0);
        }
        free(csv);
    }
    CHECK(total_moves > 20); /* the check above saw migrations, not an idle policy */
}

static const struct check_test tests[] = {
    {"curves", curves},
    {"growth_and_labels", growth_and_labels},
    {"migration_choice", migration_choice},
    {"sim_golden", sim_golden},
    {"plan_start_on", plan_start_on},
    {"property", property},
};

CHECK_MAIN(tests)
