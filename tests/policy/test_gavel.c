/* The Gavel family and themis-ftf (policy/gavel.c) on tiny traces worked out by hand through
 * the public simulator, plus properties on a generated workload. Defaults throughout: rounds
 * of 360 s, the allocation recomputed at most every 1920 s; no throughput model (every job
 * runs at speed 1 on every type it may use). */
#include "engine/engine.h"
#include "model/tput.h"
#include "overload.h"
#include "simtest.h"
#include "util/rng.h"

extern int berth__gavel_no_fast;
extern size_t berth__gavel_seg_run;
extern unsigned long long berth__gavel_fast_used, berth__gavel_skipped, berth__gavel_skip_starts,
    berth__gavel_seg_walks;

struct want {
    const char *id;
    double start, finish;
    int preemptions;
    const char *type; /* NULL: not checked */
};

static void run_opts(const char *csv, const char *cluster, const struct berth_sim_opts *o,
                     const struct want *w, size_t n, double avg_jct, double makespan,
                     int preemptions, int migrations)
{
    struct simtest st;
    struct berth_err err = {0};
    const char *policy = o->policy;
    int rc = simtest_run_opts(csv, cluster, o, &st, &err);
    CHECK_I64(rc, 0);
    if (rc) {
        fprintf(stderr, "  %s: %s\n", policy, err.msg);
        return;
    }
    struct berth_cluster *c = NULL;
    CHECK_I64(berth_cluster_parse(cluster, &c, &err), 0);
    for (size_t i = 0; i < n; i++) {
        const struct berth_job_result *j = simtest_job(&st.r, w[i].id);
        CHECK(j != NULL);
        if (!j)
            continue;
        double s = (double)j->first_start_us / 1e6, f = (double)j->finish_us / 1e6;
        if (s != w[i].start || f != w[i].finish || j->preemptions != w[i].preemptions)
            fprintf(stderr, "  %s job %s: start %.6f finish %.6f preemptions %d\n", policy, w[i].id,
                    s, f, j->preemptions);
        CHECK_DBL(s, w[i].start, 1e-9);
        CHECK_DBL(f, w[i].finish, 1e-9);
        CHECK_I64(j->preemptions, w[i].preemptions);
        CHECK_I64(j->run_us, j->spec->duration_us);
        if (w[i].type && c)
            CHECK_STR(berth_cluster_type_name(c, (size_t)j->gpu_type), w[i].type);
    }
    CHECK_I64(st.r.summary.completed, n);
    CHECK_DBL(st.r.summary.avg_jct_s, avg_jct, 1e-9);
    CHECK_DBL(st.r.summary.makespan_s, makespan, 1e-9);
    CHECK_I64(st.r.summary.preemptions, preemptions);
    CHECK_I64(st.r.summary.migrations, migrations);
    berth_cluster_free(c);
    simtest_free(&st);
}

static void run_case(const char *csv, const char *cluster, const char *policy, const struct want *w,
                     size_t n, double avg_jct, double makespan, int preemptions, int migrations)
{
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = policy;
    run_opts(csv, cluster, &o, w, n, avg_jct, makespan, preemptions, migrations);
}

/* Three 1-GPU jobs of 720 s at time 0 on 2 GPUs. */
static const char *three = "job_id,arrival_s,duration_s,num_gpus\n"
                           "J1,0,720,1\n"
                           "J2,0,720,1\n"
                           "J3,0,720,1\n";

/* gavel-max-min: x = 2/3 each. Round 0: nothing received, priorities all 2/3 * 1e9, ties to
 * the job number: J1, J2 run. Round 360: J1, J2 got half the type's time each (priority
 * (2/3)/(1/2) = 4/3), J3 none (2/3 * 1e9): J3 and J1 are chosen, J2 is preempted for J3.
 * At 720 J1 is done (no recompute: 720 s < 1920 s since the last); J2 and J3 had half each
 * of the time since the reset among the jobs left: both chosen, J2 back. Both finish at 1080.
 * JCTs 720, 1080, 1080: avg 960. */
static void max_min_three_jobs(void)
{
    const struct want w[] = {
        {"J1", 0, 720, 0, NULL}, {"J2", 0, 1080, 1, NULL}, {"J3", 360, 1080, 0, NULL}};
    run_case(three, "1x2:v100", "gavel-max-min", w, 3, 960, 1080, 1, 0);
    /* without throughputs max-min-perf and finish-time fairness (all new, equal jobs:
     * rho_i = I_i / x_i) make the same allocation */
    run_case(three, "1x2:v100", "gavel-max-min-perf", w, 3, 960, 1080, 1, 0);
    run_case(three, "1x2:v100", "themis-ftf", w, 3, 960, 1080, 1, 0);
}

/* gavel-fifo: J1 and J2 get x = 1, J3 finds no room and gets nothing. J3 waits; at 720 J1 and
 * J2 are done and, although the allocation may not be recomputed before 1920 s, the idle GPUs
 * are filled at once: J3 720-1440 (Gavel would leave them idle until its next reset). */
static void fifo_three_jobs(void)
{
    const struct want w[] = {
        {"J1", 0, 720, 0, NULL}, {"J2", 0, 720, 0, NULL}, {"J3", 720, 1440, 0, NULL}};
    run_case(three, "1x2:v100", "gavel-fifo", w, 3, 960, 1440, 0, 0);
}

/* gavel-fifo keeps strict fifo's head blocking (test_sim_golden's case A): J1 0-100 on 2 of
 * 4 GPUs; J2 (4 GPUs) cannot start and blocks J3 and J4 although they fit; at 100 J2 runs
 * 100-150, then J3 150-180 and J4 150-160. JCTs 100, 140, 160, 130: avg 132.5. */
static void fifo_head_blocks(void)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus\n"
                      "J1,0,100,2\n"
                      "J2,10,50,4\n"
                      "J3,20,30,1\n"
                      "J4,30,10,2\n";
    const struct want w[] = {{"J1", 0, 100, 0, NULL},
                             {"J2", 100, 150, 0, NULL},
                             {"J3", 150, 180, 0, NULL},
                             {"J4", 150, 160, 0, NULL}};
    run_case(csv, "1x4:v100", "gavel-fifo", w, 4, 132.5, 180, 0, 0);
}

/* The allocation is recomputed at most every 1920 s. 2 GPUs; J1 (2 GPUs, 3000 s) at 0,
 * J2 (1 GPU, 500 s) at 100.
 *   0: J1 alone, x1 = 1: runs. 100: J2 arrives, nothing is idle, it is outside the
 *   allocation: waits through the rounds at 360 ... 1800.
 *   2160: 2160 s since the last reset: recompute. max min(2 x1, x2), 2 x1 + x2 <= 2:
 *   x1 = 1/2, x2 = 1. Nothing received since the reset: J2 (1e9) before J1 (0.5e9); J2 is
 *   chosen, J1 no longer fits the count: J1 preempted (840 s left), J2 runs.
 *   2520: J2 got all the time (priority 1), J1 none (0.5e9): J1 back, J2 preempted (140 left).
 *   2880: both got 360 s: J1 0.5/0.5 = 1, J2 1/0.5 = 2: J2 back, J1 preempted (480 left).
 *   3020: J2 done; J1 fills the idle GPUs at once: 3020-3500.
 * JCTs 3500 and 2920: avg 3210; preemptions 2 + 1. */
static const char *realloc_csv = "job_id,arrival_s,duration_s,num_gpus\n"
                                 "J1,0,3000,2\n"
                                 "J2,100,500,1\n";

static void max_min_min_realloc(void)
{
    const struct want w[] = {{"J1", 0, 3500, 2, NULL}, {"J2", 2160, 3020, 1, NULL}};
    run_case(realloc_csv, "1x2:v100", "gavel-max-min", w, 2, 3210, 3500, 3, 0);
}

/* One GPU, J1 (3000 s) at 0 and J2 (500 s) at 100: the same until the recompute at 2160.
 * gavel-max-min gives x = 1/2 each; both got nothing since the reset and deficits are 0 (J1
 * got exactly what it was owed), so the job number decides: J1 keeps the GPU. 2520: J2 (never
 * ran) 0.5e9 beats J1: J2 runs. 2880: equal shares, J1 first. 3240: J1 had 2/3 of the time:
 * J2 (1.5) beats J1 (0.75): J2's last 140 s, done at 3380; J1's last 120 s 3380-3500.
 * JCTs 3500, 3280: avg 3390.
 * themis-ftf instead: J1 has run 2160 s in isolation (its isolated rate was all the GPU), so
 * rho_1 = (2160 + 840/x1) / (2160 + 840/0.5); J2 waited 2060 s for nothing:
 * rho_2 = (2060 + 500/x2) / (500/0.5). Equal rhos at x2 = 0.89..: J2 first at 2160. 2520: J1
 * never ran since the reset: J1. 2880: J2 (0.89/0.5) beats J1 (0.11/0.5): J2 done at 3020,
 * J1 3020-3500. JCTs 3500, 2920: avg 3210. */
static void ftf_favours_the_waiting(void)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus\n"
                      "J1,0,3000,1\n"
                      "J2,100,500,1\n";
    const struct want mm[] = {{"J1", 0, 3500, 2, NULL}, {"J2", 2520, 3380, 1, NULL}};
    run_case(csv, "1x1:v100", "gavel-max-min", mm, 2, 3390, 3500, 3, 0);
    const struct want ftf[] = {{"J1", 0, 3500, 2, NULL}, {"J2", 2160, 3020, 1, NULL}};
    run_case(csv, "1x1:v100", "themis-ftf", ftf, 2, 3210, 3500, 3, 0);
}

/* Two GPU types of one GPU each, two 1-GPU jobs: each job is allocated all its time on one
 * type (identical jobs' time is packed, not spread over both types), so nobody moves at the
 * rounds. */
static void two_types_no_moves(void)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus\n"
                      "J1,0,720,1\n"
                      "J2,0,720,1\n";
    const struct want w[] = {{"J1", 0, 720, 0, "v100"}, {"J2", 0, 720, 0, "k80"}};
    const char *pols[] = {"gavel-fifo", "gavel-max-min", "gavel-max-min-perf", "themis-ftf"};
    for (int i = 0; i < 4; i++)
        run_case(csv, "1x1:v100,1x1:k80", pols[i], w, 2, 720, 720, 0, 0);
}

/* With a throughput model (through the engine: the simulator does not take one yet). One V100
 * and one K80; class "a" runs at 1 step/s on the V100 and 4 on the K80, class "b" at 3 and 1.
 * J1 is an "a", J2 a "b", both 1 GPU, both at 0 with 1000 steps.
 *   gavel-fifo: J1 first takes its fastest type, the K80; J2 then the V100.
 *   gavel-max-min-perf: P = (2.5, 2), c1 = (0.4, 1.6), c2 = (1.5, 0.5): z = 1.5 (J2 all of
 *   the V100), and J1 gets all of the K80.
 *   themis-ftf: isolated rates (half of each type) 2.5 and 2; new jobs: rho_i = I_i / rate_i;
 *   J2 can do no better than 2/3 (all of the V100), which J1 meets on 15/16 of the K80 or more.
 *   gavel-max-min ignores throughputs: the two jobs are alike, J1 gets the first type. */
static void heterogeneous_throughputs(void)
{
    struct berth_tput *m = berth__tput_new();
    int tv, tk, ca, cb;
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_I64(berth__tput_add_type(m, "v100", &tv), 0);
    CHECK_I64(berth__tput_add_type(m, "k80", &tk), 0);
    CHECK_I64(berth__tput_add_class(m, "a", &ca), 0);
    CHECK_I64(berth__tput_add_class(m, "b", &cb), 0);
    CHECK_I64(berth__tput_add_point(m, ca, tv, 1, 0, 1), 0);
    CHECK_I64(berth__tput_add_point(m, ca, tk, 1, 0, 4), 0);
    CHECK_I64(berth__tput_add_point(m, cb, tv, 1, 0, 3), 0);
    CHECK_I64(berth__tput_add_point(m, cb, tk, 1, 0, 1), 0);
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_cluster_parse("1x1:v100,1x1:k80", &c, &err), 0);
    static const struct berth_jobspec_extra type_a = {
        .job_type = "a", .user = "", .status = "", .gpu_type = ""};
    static const struct berth_jobspec_extra type_b = {
        .job_type = "b", .user = "", .status = "", .gpu_type = ""};
    struct berth_jobspec spec[2] = {{.id = "J1",
                                     .duration_us = 1000 * BERTH_US_PER_S,
                                     .num_gpus = 1,
                                     .gpu_share_milli = 1000,
                                     .extra = &type_a},
                                    {.id = "J2",
                                     .duration_us = 1000 * BERTH_US_PER_S,
                                     .num_gpus = 1,
                                     .gpu_share_milli = 1000,
                                     .extra = &type_b}};
    const struct {
        const char *policy;
        int type1, type2; /* cluster types: 0 = v100, 1 = k80 */
    } want[] = {{"gavel-fifo", 1, 0},
                {"gavel-max-min-perf", 1, 0},
                {"themis-ftf", 1, 0},
                {"gavel-max-min", 0, 1}};
    for (size_t w = 0; c && w < sizeof want / sizeof *want; w++) {
        struct berth__params prm = {0};
        struct berth__engine *e = NULL;
        int rc = berth__engine_create(c, want[w].policy, NULL, &prm, NULL, &e, &err);
        CHECK_I64(rc, 0);
        if (rc)
            continue;
        berth__engine_set_check(e, 1);
        CHECK_I64(berth__engine_set_tput(e, m, &err), 0);
        for (uint32_t i = 0; i < 2; i++) {
            uint32_t idx;
            CHECK_I64(berth__engine_add(e, &spec[i], &idx, &err), 0);
            e->jobs[idx].cls = i == 0 ? ca : cb;
            e->jobs[idx].work = 1000; /* steps */
            CHECK_I64(berth__engine_arrive(e, idx, 0, &err), 0);
        }
        CHECK_I64(berth__engine_pass(e, 0, &err), 0);
        CHECK_I64(e->jobs[0].state, BERTH_JOB_RUNNING);
        CHECK_I64(e->jobs[1].state, BERTH_JOB_RUNNING);
        if (e->jobs[0].type != want[w].type1 || e->jobs[1].type != want[w].type2)
            fprintf(stderr, "  %s: J1 on type %d, J2 on type %d\n", want[w].policy, e->jobs[0].type,
                    e->jobs[1].type);
        CHECK_I64(e->jobs[0].type, want[w].type1);
        CHECK_I64(e->jobs[1].type, want[w].type2);
        /* the next round keeps them where they are */
        CHECK_I64(berth__engine_next_pass(e, 0), 360 * BERTH_US_PER_S);
        CHECK_I64(berth__engine_pass(e, 360 * BERTH_US_PER_S, &err), 0);
        CHECK_I64(e->jobs[0].type, want[w].type1);
        CHECK_I64(e->jobs[1].type, want[w].type2);
        CHECK_I64(e->preemptions + e->migrations, 0);
        berth__engine_destroy(e);
    }
    berth_cluster_free(c);
    berth_tput_free(m);
}

/* A generated Gavel-like workload on a heterogeneous cluster, with the engine re-verifying
 * every GPU after every pass: every job finishes exactly once having run exactly its
 * duration, and a second run gives the very same results. */
static void generated_properties(void)
{
    struct berth_gen_opts g;
    berth_gen_opts_init(&g);
    g.profile = "gavel";
    g.jobs = 400;
    g.seed = 11;
    struct berth_trace *t = NULL;
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_gen(&g, &t, &err), 0);
    CHECK_I64(berth_cluster_parse("2x4:v100,2x4:p100,1x8:k80", &c, &err), 0);
    if (!t || !c)
        return;
    const char *pols[] = {"gavel-fifo", "gavel-max-min", "gavel-max-min-perf", "themis-ftf"};
    for (int p = 0; p < 4; p++) {
        struct berth_sim_opts o;
        berth_sim_opts_init(&o);
        o.policy = pols[p];
        o.check_invariants = 1;
        struct berth_sim_result a, b;
        int rc = berth_sim_run(t, c, &o, &a, &err);
        CHECK_I64(rc, 0);
        if (rc) {
            fprintf(stderr, "  %s: %s\n", pols[p], err.msg);
            continue;
        }
        CHECK_I64(a.summary.completed, g.jobs);
        for (size_t i = 0; i < a.njobs; i++) {
            const struct berth_job_result *j = &a.jobs[i];
            CHECK(j->first_start_us >= j->spec->arrival_us);
            CHECK(j->finish_us != BERTH_TIME_NONE);
            CHECK(j->finish_us - j->first_start_us >= j->spec->duration_us);
            CHECK_I64(j->run_us, j->spec->duration_us);
        }
        CHECK_I64(berth_sim_run(t, c, &o, &b, &err), 0);
        CHECK_I64(b.njobs, a.njobs);
        for (size_t i = 0; i < a.njobs && i < b.njobs; i++) {
            CHECK_I64(a.jobs[i].first_start_us, b.jobs[i].first_start_us);
            CHECK_I64(a.jobs[i].finish_us, b.jobs[i].finish_us);
            CHECK_I64(a.jobs[i].preemptions, b.jobs[i].preemptions);
            CHECK_I64(a.jobs[i].gpu_type, b.jobs[i].gpu_type);
        }
        CHECK_I64(a.summary.preemptions, b.summary.preemptions);
        CHECK_I64(a.summary.migrations, b.summary.migrations);
        CHECK_I64(a.summary.passes, b.summary.passes);
        if (p == 0)
            CHECK_I64(a.summary.preemptions, 0);
        else
            CHECK(a.summary.preemptions > 0);
        berth_sim_result_free(&a);
        berth_sim_result_free(&b);
    }
    berth_cluster_free(c);
    berth_trace_free(t);
}

/* Gavel's base fifo's type choice (fastest_type=0), with fill=0 as Gavel runs it, on three
 * types, gavel:8:8:4 (by name k80 4, p100 8, v100 8 GPUs), rounds of 360 s, re-solves at most
 * every 1920 s. Three jobs of 100 s at 0: J1 and J2 gangs of 8, J3 of 1. At 0 all queue; the
 * types with room sorted by name are [k80, p100, v100]. For each queued job fifo.py walks
 * that list to find the types that hold its gang (its candidates), draws
 * random.Random(seed).randrange(candidates) and does not use it: the job takes the loop
 * variable that walk leaves, the last type of the list, without a capacity check; when that
 * type is then exactly full, the candidate at the drawn index leaves the list (seed 1 draws
 * 0; seed 5 draws 1, then 0).
 * J1: candidates p100, v100; it takes v100 (the list's last), now full.
 * Seed 1: the drawn candidate p100 leaves: list [k80, v100]; J2 has no candidate (k80 4,
 * v100 0): the loop stops, J2 and J3 wait for the re-solve at 2160 (the first round 1920 s
 * after 0). There J1 is done, and its v100 goes to the head J2, whose gang fits it; the
 * types with room are [k80, p100], so J3 takes p100. Both run 2160-2260.
 * Seed 5: the drawn v100 leaves: list [k80, p100]; J2 (candidate p100) takes p100, now full,
 * and p100 leaves; J3 (candidate k80) takes k80. All three run 0-100.
 * (Gavel's own simulator, on the same three jobs by steps, puts them on the same types.)
 * zero_reset=1, seed 1: the last reset was at time 0, which fifo's caller treats as none, so
 * J1's finish is re-solved at the next round, 360: J2 and J3 run 360-460.
 * berth's own choice (fastest_type=1, no model: every type as fast, so the first with room in
 * cluster order v100, p100, k80): J1 v100, J2 p100, J3 k80: all run 0-100. */
static const char *fifo3 = "job_id,arrival_s,duration_s,num_gpus\n"
                           "J1,0,100,8\nJ2,0,100,8\nJ3,0,100,1\n";

static void fifo_gavel_type_choice(void)
{
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = "gavel-fifo";
    o.policy_settings = "fill=0,fastest_type=0";
    o.seed = 1;
    const struct want s1[] = {
        {"J1", 0, 100, 0, "v100"}, {"J2", 2160, 2260, 0, "v100"}, {"J3", 2160, 2260, 0, "p100"}};
    run_opts(fifo3, "gavel:8:8:4", &o, s1, 3, (100 + 2260 + 2260) / 3.0, 2260, 0, 0);
    o.policy_settings = "fill=0,fastest_type=0,zero_reset=1";
    const struct want z1[] = {
        {"J1", 0, 100, 0, "v100"}, {"J2", 360, 460, 0, "v100"}, {"J3", 360, 460, 0, "p100"}};
    run_opts(fifo3, "gavel:8:8:4", &o, z1, 3, (100 + 460 + 460) / 3.0, 460, 0, 0);
    o.policy_settings = "fill=0,fastest_type=0";
    o.seed = 5;
    const struct want s5[] = {
        {"J1", 0, 100, 0, "v100"}, {"J2", 0, 100, 0, "p100"}, {"J3", 0, 100, 0, "k80"}};
    run_opts(fifo3, "gavel:8:8:4", &o, s5, 3, 100, 100, 0, 0);
    o.policy_settings = "fill=0";
    const struct want b[] = {
        {"J1", 0, 100, 0, "v100"}, {"J2", 0, 100, 0, "p100"}, {"J3", 0, 100, 0, "k80"}};
    run_opts(fifo3, "gavel:8:8:4", &o, b, 3, 100, 100, 0, 0);
}

static const int gangs[10] = {1, 1, 2, 4, 4, 8, 8, 8, 3, 6};

/* The fill's shortcut for starts consolidate-or-wait refuses (sched/refuse.h: the answer
 * first, the refused start's bucket moves without the start) against trying every start
 * (berth__gavel_no_fast): on overloaded workloads under the four policies, on one and two
 * GPU types, every job must start, be preempted and end at the same times on as many
 * servers. The runs must use the shortcut often, start jobs inside skipped fills (the entries
 * closing a segment) and go through segments some job of which may start, with segments cut
 * at 3 entries and at 512; under best-fit the shortcut is never used. */
static void fast_equals_plain(void)
{
    struct berth_tput *m = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_tput_builtin(&m, &err), 0);
    if (!m)
        return;
    static const char *policies[] = {"gavel-max-min", "gavel-max-min-perf", "themis-ftf",
                                     "gavel-fifo"};
    static const char *clusters[] = {"6x8:v100", "4x8:v100,4x4:k80"};
    unsigned long long used = 0, used_best_fit = 0, skipped = berth__gavel_skipped,
                       skip_starts = berth__gavel_skip_starts, walks = berth__gavel_seg_walks;
    int runs = 0;
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (int ci = 0; ci < 2; ci++) {
            char *csv = overload_trace(seed, 300, m, ci == 1, gangs, 10);
            for (int pi = 0; pi < 4; pi++) {
                struct berth_sim_opts o;
                berth_sim_opts_init(&o);
                o.policy = policies[pi];
                o.tput = m;
                int best_fit = pi == 0 && seed == 1;
                berth__gavel_seg_run = seed % 2 ? 3 : 512; /* runs cut short, or not */
                o.placement = best_fit ? "best-fit" : NULL;
                unsigned long long before = berth__gavel_fast_used;
                char what[96];
                long long pre = 0;
                snprintf(what, sizeof what, "%s, seed %llu", policies[pi],
                         (unsigned long long)seed);
                runs += overload_fast_vs_plain(csv, clusters[ci], &o, &berth__gavel_no_fast, 1,
                                               what, &pre);
                *(best_fit ? &used_best_fit : &used) += berth__gavel_fast_used - before;
            }
            free(csv);
        }
    berth__gavel_seg_run = 512;
    CHECK_I64(runs, 48);
    skipped = berth__gavel_skipped - skipped;
    skip_starts = berth__gavel_skip_starts - skip_starts;
    walks = berth__gavel_seg_walks - walks;
    fprintf(stderr,
            "  %d runs, the shortcut answered %llu starts, %llu fills skipped, starting %llu "
            "jobs, %llu segments walked\n",
            runs, used, skipped, skip_starts, walks);
    CHECK(used > 1000);
    CHECK(skipped > 100);
    CHECK(skip_starts > 100);
    CHECK(walks > 100);
    CHECK_I64(used_best_fit, 0);
    berth_tput_free(m);
}

static const struct check_test tests[] = {
    {"max_min_three_jobs", max_min_three_jobs},
    {"fifo_three_jobs", fifo_three_jobs},
    {"fifo_head_blocks", fifo_head_blocks},
    {"fifo_gavel_type_choice", fifo_gavel_type_choice},
    {"max_min_min_realloc", max_min_min_realloc},
    {"ftf_favours_the_waiting", ftf_favours_the_waiting},
    {"two_types_no_moves", two_types_no_moves},
    {"heterogeneous_throughputs", heterogeneous_throughputs},
    {"generated_properties", generated_properties},
    {"fast_equals_plain", fast_equals_plain},
};

CHECK_MAIN(tests)
