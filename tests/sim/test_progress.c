/* Golden results of the progress model and the time modes, computed by hand: jobs that run
 * by steps at a throughput model's speed on the GPUs they get (type, gang size,
 * interpolation, across servers), co-located fractional jobs slowing each other, restart
 * costs, the round modes (gavel, blox), finish-time fairness and the per-group
 * aggregates. The derivation of every number is in the comment above its check. */
#include "model/tput.h"
#include "simtest.h"

/* A test model. Class A on v100: 1 GPU 10 steps/s, 2 GPUs 16, 4 GPUs 28, 2 GPUs across
 * servers 8; on k80: 1 GPU 5. Class B on v100: 1 GPU 4. Pairs on v100: A next to B runs
 * at 0.5 of its speed, B next to A at 0.75. Class C exists with no rates. */
static struct berth_tput *model(void)
{
    struct berth_tput *m = berth__tput_new();
    int v100 = 0, k80 = 0, a = 0, b = 0, c = 0;
    CHECK(m != NULL);
    CHECK(!berth__tput_add_type(m, "v100", &v100) && !berth__tput_add_type(m, "k80", &k80));
    CHECK(!berth__tput_add_class(m, "A", &a) && !berth__tput_add_class(m, "B", &b) &&
          !berth__tput_add_class(m, "C", &c));
    CHECK(!berth__tput_add_point(m, a, v100, 1, 0, 10) &&
          !berth__tput_add_point(m, a, v100, 2, 0, 16) &&
          !berth__tput_add_point(m, a, v100, 4, 0, 28) &&
          !berth__tput_add_point(m, a, v100, 2, 1, 8) &&
          !berth__tput_add_point(m, a, k80, 1, 0, 5) &&
          !berth__tput_add_point(m, b, v100, 1, 0, 4));
    CHECK(!berth__tput_add_pair(m, a, b, v100, 0.5) && !berth__tput_add_pair(m, b, a, v100, 0.75));
    return m;
}

static struct berth_sim_opts opts(const char *policy, const struct berth_tput *m)
{
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = policy;
    o.tput = m;
    return o;
}

static const struct berth_job_result *run_job(const struct simtest *st, const char *id)
{
    const struct berth_job_result *j = simtest_job(&st->r, id);
    CHECK(j != NULL);
    return j;
}

static double fin(const struct simtest *st, const char *id)
{
    const struct berth_job_result *j = run_job(st, id);
    return j ? (double)j->finish_us / 1e6 : -1;
}

static double start(const struct simtest *st, const char *id)
{
    const struct berth_job_result *j = run_job(st, id);
    return j ? (double)j->first_start_us / 1e6 : -1;
}

static int run(const char *csv, const char *cluster, const struct berth_sim_opts *o,
               struct simtest *st)
{
    struct berth_err err = {0};
    int rc = simtest_run_opts(csv, cluster, o, st, &err);
    if (rc)
        fprintf(stderr, "  run failed: %s\n", err.msg);
    CHECK_I64(rc, 0);
    return rc;
}

/* Two A jobs of 1000 steps on one v100 and one k80 (fifo, cluster order fills v100 first):
 * J1 on v100 at 10/s ends at 100 s; J2 on k80 at 5/s ends at 200 s. Under --fixed-speed
 * both run their duration (50 s). Alone on 1/N of the cluster: J1 would take 100 s (its
 * fastest type) and N = 2 active jobs over 2 GPUs leaves it a whole GPU: rho 1; J2 the
 * same 100 s, so rho 2 (active jobs: 2 until 100 s, then 1: a share of one GPU still). */
static void heterogeneous_types(void)
{
    struct berth_tput *m = model();
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
                      "J1,0,50,1,A,1000\n"
                      "J2,0,50,1,A,1000\n";
    struct berth_sim_opts o = opts("fifo", m);
    struct simtest st;
    if (!run(csv, "1x1:v100,1x1:k80", &o, &st)) {
        CHECK_DBL(fin(&st, "J1"), 100, 0);
        CHECK_DBL(fin(&st, "J2"), 200, 0);
        CHECK_DBL(run_job(&st, "J1")->ftf_rho, 1.0, 1e-12);
        CHECK_DBL(run_job(&st, "J2")->ftf_rho, 2.0, 1e-12);
        CHECK_I64(run_job(&st, "J2")->by_steps, 1);
        /* GPU-hours by type: 100 s on v100, 200 s on k80 */
        CHECK_I64(st.r.nby_type, 2);
        CHECK_STR(st.r.by_type[0].name, "v100");
        CHECK_DBL(st.r.by_type[0].gpu_hours, 100.0 / 3600, 1e-12);
        CHECK_DBL(st.r.by_type[1].gpu_hours, 200.0 / 3600, 1e-12);
        simtest_free(&st);
    }
    o.fixed_speed = 1;
    if (!run(csv, "1x1:v100,1x1:k80", &o, &st)) {
        CHECK_DBL(fin(&st, "J1"), 50, 0);
        CHECK_DBL(fin(&st, "J2"), 50, 0);
        CHECK_I64(run_job(&st, "J2")->by_steps, 0);
        simtest_free(&st);
    }
    berth_tput_free(m);
}

/* Gang sizes: 4 GPUs of A run at the measured 28/s (2800 steps: 100 s); 3 GPUs interpolate
 * between 2 (16/s) and 4 (28/s): 22/s (2200 steps: 100 s); 8 GPUs are above the largest
 * measured size: 28 * 8/4 = 56/s (5600 steps: 100 s). */
static void gang_sizes(void)
{
    struct berth_tput *m = model();
    struct berth_sim_opts o = opts("fifo", m);
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
             "J4,0,,4,A,2800\n"
             "J3,100,,3,A,2200\n"
             "J8,200,,8,A,5600\n",
             "1x8:v100", &o, &st)) {
        CHECK_DBL(fin(&st, "J4"), 100, 0);
        CHECK_DBL(fin(&st, "J3"), 200, 0);
        CHECK_DBL(fin(&st, "J8"), 300, 0);
        simtest_free(&st);
    }
    berth_tput_free(m);
}

/* Across servers, by default (measured rates): a 2-GPU A job on two 1-GPU servers uses the
 * measured spread rate 8/s (800 steps: 100 s); a fixed-speed job of class A spread the same
 * way slows by A's measured ratio 8/16 (its 100 s take 200 s); a fixed-speed job of no class
 * is not slowed (100 s). Each starts when the one before has ended. */
static const char spread_csv[] = "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
                                 "S1,0,,2,A,800\n"
                                 "S2,1000,100,2,A,\n"
                                 "S3,2000,100,2,,\n";

static void spread_case(const struct berth_sim_opts *o, double s1, double s2, double s3)
{
    struct simtest st;
    if (!run(spread_csv, "2x1:v100", o, &st)) {
        CHECK_DBL(fin(&st, "S1"), s1, 1e-9);
        CHECK_DBL(fin(&st, "S2"), 1000 + s2, 1e-9);
        CHECK_DBL(fin(&st, "S3"), 2000 + s3, 1e-9);
        CHECK_I64(run_job(&st, "S1")->servers, 2);
        simtest_free(&st);
    }
}

static void spread(void)
{
    struct berth_tput *m = model();
    struct berth_sim_opts o = opts("fifo", m);
    spread_case(&o, 100, 200, 100);
    /* an explicit --spread-penalty 0.8 wins over the measurements: S1 runs at 16 x 0.8 =
     * 12.8/s (800 steps: 62.5 s), S2 and S3 at 0.8 (100 s take 125 s) */
    o.spread_factor = 0.8;
    spread_case(&o, 62.5, 125, 125);
    /* --spread-rates off: the one-server rates, S1 16/s (50 s), S2 and S3 unslowed */
    o.spread_factor = 0;
    o.spread_rates = 0;
    spread_case(&o, 50, 100, 100);
    /* a per-type --spread-penalty A=0.5 wins over both the measurements and the run's 0.8:
     * S1 at 8/s (100 s), S2 at 0.5 (200 s); S3 (no class) takes the run's 0.8 (125 s) */
    o.spread_rates = 1;
    o.spread_factor = 0.8;
    berth__tput_set_spread(m, berth__tput_class_find(m, "A"), 0.5);
    spread_case(&o, 100, 200, 125);
    berth_tput_free(m);
}

/* --fixed-speed runs every job exactly its duration whatever servers it gets: a 2-GPU A job
 * of 100 s with 800 steps on two 1-GPU servers ends at 100 (the measured 8/16 does not apply),
 * unless a spread rate is asked for explicitly: --spread-rates measured (8/16: 200 s) or
 * --spread-penalty 0.5 (200 s). */
static void fixed_speed_exact(void)
{
    struct berth_tput *m = model();
    struct berth_sim_opts o = opts("fifo", m);
    o.fixed_speed = 1;
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
                      "F1,0,100,2,A,800\n";
    double want[3] = {100, 200, 200};
    for (int k = 0; k < 3; k++) {
        o.spread_rates = k == 1 ? 1 : -1;
        o.spread_factor = k == 2 ? 0.5 : 0;
        struct simtest st;
        if (!run(csv, "2x1:v100", &o, &st)) {
            CHECK_DBL(fin(&st, "F1"), want[k], 0);
            CHECK_I64(run_job(&st, "F1")->servers, 2);
            CHECK_I64(run_job(&st, "F1")->by_steps, 0);
            simtest_free(&st);
        }
    }
    berth_tput_free(m);
}

/* Co-location: A (1000 steps) and B (400 steps), each half a v100, both at 0. Together A
 * runs at 10 * 0.5 = 5/s and B at 4 * 0.75 = 3/s: B ends at 400/3 s = 133.333334 s (rounded
 * up to the microsecond). A has then done 5 * 133.333334 = 666.66667 steps; the rest,
 * 333.33333, alone at 10/s take 33.333333 s: A ends at 166.666667 s. Two A halves with no
 * pair for (A, A) use --colocate-speed 0.8: 8/s each, 800 steps take 100 s. */
static void colocation(void)
{
    struct berth_tput *m = model();
    struct berth_sim_opts o = opts("fifo", m);
    o.colocate_speed = 0.8;
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,gpu_share\n"
             "A1,0,,1,A,1000,0.5\n"
             "B1,0,,1,B,400,0.5\n"
             "A2,1000,,1,A,800,0.5\n"
             "A3,1000,,1,A,800,0.5\n",
             "1x1:v100", &o, &st)) {
        CHECK_DBL(fin(&st, "B1"), 133.333334, 1e-9);
        CHECK_DBL(fin(&st, "A1"), 166.666667, 1e-9);
        CHECK_DBL(fin(&st, "A2"), 1100, 0);
        CHECK_DBL(fin(&st, "A3"), 1100, 0);
        simtest_free(&st);
    }
    berth_tput_free(m);
}

/* Restart cost under srtf on one GPU: J1 (100 s) runs from 0; J2 (20 s) arrives at 10 with
 * less left, preempts J1 and ends at 30. J1 restarts at 30, restores for 5 s, then needs its
 * remaining 90 s: ends at 125. One restart, 5 s lost. J3's own restart_s (7 s) overrides
 * the global cost: it is preempted by J4 at 210 after 10 s, resumes at 215 and ends at 215
 * + 7 + 40 = 262. */
static void restart_cost(void)
{
    struct berth_sim_opts o = opts("srtf", NULL);
    o.restart_us = 5 * BERTH_US_PER_S;
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus,restart_s\n"
             "J1,0,100,1,\n"
             "J2,10,20,1,\n"
             "J3,200,50,1,7\n"
             "J4,210,5,1,\n",
             "1x1:v100", &o, &st)) {
        CHECK_DBL(fin(&st, "J2"), 30, 0);
        CHECK_DBL(fin(&st, "J1"), 125, 0);
        CHECK_I64(run_job(&st, "J1")->restarts, 1);
        CHECK_I64(run_job(&st, "J1")->restart_lost_us, 5 * BERTH_US_PER_S);
        CHECK_DBL(fin(&st, "J4"), 215, 0);
        CHECK_DBL(fin(&st, "J3"), 262, 0);
        CHECK_I64(st.r.summary.restarts, 2);
        CHECK_DBL(st.r.summary.restart_lost_s, 12, 1e-9);
        simtest_free(&st);
    }
    /* Helios' tiers: a 1-GPU job pays 7 s */
    o.restart_us = 0;
    o.restart_tiers = BERTH_RESTART_HELIOS;
    if (!run("job_id,arrival_s,duration_s,num_gpus\nJ1,0,100,1\nJ2,10,20,1\n", "1x1:v100", &o,
             &st)) {
        CHECK_DBL(fin(&st, "J1"), 127, 0);
        simtest_free(&st);
    }
}

/* Gavel mode with its rounds on the grid (--round-early-end off; 360 s rounds): J1 (100 s)
 * arrives at 10 and is admitted at 360; its work
 * ends at 460, recorded exactly (JCT 450), but its GPU stays busy until 720. J2 (50 s)
 * arrives at 400, is admitted at 720 and ends at 770 (JCT 370). Blox mode (300 s rounds):
 * J1 admitted at 300, work ends at 400, detected at 600 (JCT 590); J2 admitted at 600, ends
 * at 650, detected at 900 (JCT 500). Gavel mode as Gavel (rounds end at their latest
 * finish): J1 starts a round at its arrival, 10-110; J2 another at 400, 400-450. */
static void round_modes(void)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus\nJ1,10,100,1\nJ2,400,50,1\n";
    struct berth_sim_opts o = opts("fifo", NULL);
    o.mode = BERTH_MODE_GAVEL;
    struct simtest st;
    if (!run(csv, "1x1:v100", &o, &st)) {
        CHECK_DBL(start(&st, "J1"), 10, 0);
        CHECK_DBL(fin(&st, "J1"), 110, 0);
        CHECK_DBL(start(&st, "J2"), 400, 0);
        CHECK_DBL(fin(&st, "J2"), 450, 0);
        simtest_free(&st);
    }
    o.round_early_end = 0;
    if (!run(csv, "1x1:v100", &o, &st)) {
        CHECK_DBL(start(&st, "J1"), 360, 0);
        CHECK_DBL(fin(&st, "J1"), 460, 0);
        CHECK_DBL(start(&st, "J2"), 720, 0);
        CHECK_DBL(fin(&st, "J2"), 770, 0);
        CHECK_STR(st.r.mode, "gavel");
        simtest_free(&st);
    }
    o.mode = BERTH_MODE_BLOX;
    o.round_early_end = -1;
    if (!run(csv, "1x1:v100", &o, &st)) {
        CHECK_DBL(start(&st, "J1"), 300, 0);
        CHECK_DBL(fin(&st, "J1"), 600, 0);
        CHECK_DBL(start(&st, "J2"), 600, 0);
        CHECK_DBL(fin(&st, "J2"), 900, 0);
        simtest_free(&st);
    }
    /* rounds mode with every switch off but the round: passes only on boundaries */
    o.mode = BERTH_MODE_ROUNDS;
    o.round_us = 100 * BERTH_US_PER_S;
    o.round_admit = o.round_release = 0;
    if (!run(csv, "1x1:v100", &o, &st)) {
        CHECK_DBL(start(&st, "J1"), 100, 0);
        CHECK_DBL(fin(&st, "J1"), 200, 0);
        CHECK_DBL(start(&st, "J2"), 400, 0);
        CHECK_DBL(fin(&st, "J2"), 450, 0);
        simtest_free(&st);
    }
}

/* Whole steps per round (gavel mode's --whole-steps, Gavel's int(throughput x 360)), fifo
 * on 1x2 v100, class W at 0.3125 steps/s (5/16: exact in binary), so a round's whole steps
 * are floor(0.3125 x 360) = floor(112.5) = 112, done in 112 / 0.3125 = 358.4 s.
 *     0  J1 (300 steps) alone: capped at 112, the round ends at 358.4 (not 360).
 * 358.4  J1 has 188 left: 112 more, the round ends at 716.8. J2 (50 steps) arrives at 400
 *        and is admitted at that end.
 * 716.8  J1's last 76 steps take 243.2 s (ends 960), J2's 50 take 160 s (ends 876.8): both
 *        finish within the round, which ends at 960.
 * Without whole steps (rounds still end early): rounds at 0 and 360 (J1's work ends at 960,
 * after a round's length), J2 is admitted at 720 and ends at 880; J1 still ends at 960 (its
 * micro-tasks run back to back, so only the round ends move). Whole steps need rounds that
 * end early. */
static void whole_steps(void)
{
    struct berth_tput *m = berth__tput_new();
    int v100 = 0, w = 0;
    CHECK(m != NULL);
    CHECK(!berth__tput_add_type(m, "v100", &v100) && !berth__tput_add_class(m, "W", &w));
    CHECK(!berth__tput_add_point(m, w, v100, 1, 0, 0.3125));
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
                      "J1,0,,1,W,300\nJ2,400,,1,W,50\n";
    struct berth_sim_opts o = opts("fifo", m);
    o.mode = BERTH_MODE_GAVEL;
    struct simtest st;
    if (!run(csv, "1x2:v100", &o, &st)) {
        CHECK_DBL(fin(&st, "J1"), 960, 1e-6);
        CHECK_DBL(start(&st, "J2"), 716.8, 1e-6);
        CHECK_DBL(fin(&st, "J2"), 876.8, 1e-6);
        simtest_free(&st);
    }
    o.whole_steps = 0;
    if (!run(csv, "1x2:v100", &o, &st)) {
        CHECK_DBL(fin(&st, "J1"), 960, 1e-6);
        CHECK_DBL(start(&st, "J2"), 720, 0);
        CHECK_DBL(fin(&st, "J2"), 880, 1e-6);
        simtest_free(&st);
    }
    o.whole_steps = 1;
    o.round_early_end = 0;
    struct berth_err err = {0};
    CHECK_I64(simtest_run_opts(csv, "1x2:v100", &o, &st, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "--whole-steps");
    berth_tput_free(m);
}

/* Rounds that end early (Gavel's round end at the latest finish), gavel mode, fifo, 1x2.
 *    0  J1 (100 s) is alone: the round ends when its work does, at 100 (not 360).
 *  100  J2 (20 s, arrived 10) and J3 (500 s, at 50) were admitted at that end; the round ends
 *       at min(100 + 360, 600) = 460. J2's work ends at 120 (its JCT: 110) but it keeps its
 *       GPU to 460: it held GPUs 360 s, and waited 90 s (JCT 110 - its 20 s of work).
 *  460  J3 alone, its work ends at 600: the round ends there.
 * 1000  after an idle spell J4 (50 s) starts a round at its own arrival; it ends at 1050.
 * Passes 0, 100, 460, 600, 1000, 1050. */
static void round_early_end(void)
{
    struct berth_sim_opts o = opts("fifo", NULL);
    o.mode = BERTH_MODE_GAVEL;
    o.round_early_end = 1;
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus\n"
             "J1,0,100,1\nJ2,10,20,1\nJ3,50,500,1\nJ4,1000,50,1\n",
             "1x2:v100", &o, &st)) {
        CHECK_DBL(fin(&st, "J1"), 100, 0);
        CHECK_DBL(start(&st, "J2"), 100, 0);
        CHECK_DBL(fin(&st, "J2"), 120, 0);
        CHECK_I64(run_job(&st, "J2")->run_us, 360 * BERTH_US_PER_S);
        CHECK_I64(run_job(&st, "J2")->wait_us, 90 * BERTH_US_PER_S);
        CHECK_DBL(start(&st, "J3"), 100, 0);
        CHECK_DBL(fin(&st, "J3"), 600, 0);
        CHECK_DBL(start(&st, "J4"), 1000, 0);
        CHECK_DBL(fin(&st, "J4"), 1050, 0);
        CHECK_I64(st.r.summary.passes, 6);
        simtest_free(&st);
    }
    /* it needs a round mode */
    o.mode = BERTH_MODE_DES;
    struct berth_err err = {0};
    CHECK_I64(simtest_run_opts("job_id,arrival_s,duration_s,num_gpus\nJ1,0,100,1\n", "1x1:v100", &o,
                               &st, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, "--round-early-end");
}

/* Gavel mode with co-location: fractional A (100 s) and B (60 s) share a GPU at 0.5 speed
 * each. B's work ends at 120 but it holds its share to the 360 s boundary, so A stays at
 * half speed: 60 done at 120, its last 40 take 80 more, ending at 200. Both are released at
 * 360; releasing A first must not move B's recorded finish (120) to 360. */
static void gavel_mode_colocated(void)
{
    struct berth_sim_opts o = opts("fifo", NULL);
    o.mode = BERTH_MODE_GAVEL;
    o.colocate_speed = 0.5;
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus,gpu_share\nA,0,100,1,0.5\nB,0,60,1,0.5\n",
             "1x1:v100", &o, &st)) {
        CHECK_DBL(fin(&st, "A"), 200, 0);
        CHECK_DBL(fin(&st, "B"), 120, 0);
        simtest_free(&st);
    }
}

/* Blox's flat progress: an A job on a k80 progresses at its rate on the first type the
 * model knows for it in cluster order (v100: 10/s), not at the k80's 5/s: 2500 steps take
 * 250 s, detected at the 300 s boundary after admission at 0 (at 5/s: 500 s, 600). In des
 * mode with flat progress, 1000 steps take 100 s. */
static void flat_progress(void)
{
    struct berth_tput *m = model();
    struct berth_sim_opts o = opts("fifo", m);
    o.mode = BERTH_MODE_BLOX;
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,gpu_type\n"
             "F1,0,,1,A,2500,k80\n",
             "1x1:v100,1x1:k80", &o, &st)) {
        CHECK_DBL(fin(&st, "F1"), 300, 0);
        simtest_free(&st);
    }
    o.mode = BERTH_MODE_DES;
    o.flat_progress = 1;
    if (!run("job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,gpu_type\n"
             "F1,0,,1,A,1000,k80\n",
             "1x1:v100,1x1:k80", &o, &st)) {
        CHECK_DBL(fin(&st, "F1"), 100, 0);
        simtest_free(&st);
    }
    berth_tput_free(m);
}

/* FTF and the groups: two 100 s jobs on one GPU, both at 0 (fifo). J1 ends at 100 with 2
 * jobs active throughout: its 1/N share is half a GPU, so alone-on-its-share takes 200 s:
 * rho 0.5. J2 ends at 200; active jobs average 1.5 over its life: rho 200/150. Jain's index
 * = (0.5 + 4/3)^2 / (2 (0.25 + 16/9)) = 0.828767... Users alice (J1) and bob (J2); queue q
 * holds both: avg JCT 150, 200 GPU-seconds. */
static void fairness_and_groups(void)
{
    struct berth_sim_opts o = opts("fifo", NULL);
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus,user,queue\n"
             "J1,0,100,1,alice,q\n"
             "J2,0,100,1,bob,q\n",
             "1x1:v100", &o, &st)) {
        double r1 = 0.5, r2 = 200.0 / 150;
        CHECK_DBL(run_job(&st, "J1")->ftf_rho, r1, 1e-12);
        CHECK_DBL(run_job(&st, "J2")->ftf_rho, r2, 1e-12);
        CHECK_DBL(st.r.summary.ftf_rho_max, r2, 1e-12);
        CHECK_DBL(st.r.summary.ftf_rho_avg, (r1 + r2) / 2, 1e-12);
        CHECK_DBL(st.r.summary.ftf_jain, (r1 + r2) * (r1 + r2) / (2 * (r1 * r1 + r2 * r2)), 1e-12);
        CHECK_I64(st.r.nby_user, 2);
        CHECK_STR(st.r.by_user[0].name, "alice");
        CHECK_DBL(st.r.by_user[1].avg_jct_s, 200, 0);
        CHECK_I64(st.r.nby_queue, 1);
        CHECK_DBL(st.r.by_queue[0].avg_jct_s, 150, 0);
        CHECK_DBL(st.r.by_queue[0].gpu_hours, 200.0 / 3600, 1e-12);
        simtest_free(&st);
    }
}

/* Long fixed-speed jobs end exactly: 2,240,194 s (Philly's longest are this long) is
 * 2240194000000 us, and the rounding slack must not shave a microsecond off it; nor off a
 * job near 10^12 s. */
static void long_jobs_exact(void)
{
    struct berth_sim_opts o = opts("fifo", NULL);
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus\nL,0,2240194,1\nM,0,999999999999.5,1\n",
             "1x2:v100", &o, &st)) {
        CHECK_I64(run_job(&st, "L")->finish_us, INT64_C(2240194000000));
        CHECK_I64(run_job(&st, "M")->finish_us, INT64_C(999999999999500000));
        simtest_free(&st);
    }
}

/* Oracle policies on step jobs know the time alone at the fastest type. sjf on one v100:
 * J0 (10 s) runs first; then J2 (B, 400 steps: 100 s) before J1 (A, 2000 steps: 200 s):
 * J2 10-110, J1 110-310. srtf: J1 runs from 0; at 50 it has 1500 steps (150 s) left, more
 * than J2's 100 s, so J2 preempts it (50-150) and J1 ends at 150 + 150 = 300. */
static void oracle_estimates(void)
{
    struct berth_tput *m = model();
    struct berth_sim_opts o = opts("sjf", m);
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
             "J0,0,10,1,,\n"
             "J1,1,,1,A,2000\n"
             "J2,2,,1,B,400\n",
             "1x1:v100", &o, &st)) {
        CHECK_DBL(fin(&st, "J2"), 110, 0);
        CHECK_DBL(fin(&st, "J1"), 310, 0);
        simtest_free(&st);
    }
    o.policy = "srtf";
    if (!run("job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
             "J1,0,,1,A,2000\n"
             "J2,50,,1,B,400\n",
             "1x1:v100", &o, &st)) {
        CHECK_DBL(fin(&st, "J2"), 150, 0);
        CHECK_DBL(fin(&st, "J1"), 300, 0);
        CHECK_I64(run_job(&st, "J1")->preemptions, 1);
        simtest_free(&st);
    }
    berth_tput_free(m);
}

/* Bad input: a steps-only job whose type the model lacks; a job type with no rate on the
 * cluster's GPU types; a round switch in des mode. Each names the file, line and column. */
static void bad_input(void)
{
    struct berth_tput *m = model();
    struct berth_sim_opts o = opts("fifo", m);
    struct simtest st;
    struct berth_err err = {0};
    CHECK_I64(simtest_run_opts("job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
                               "X,0,,1,Nope,10\n",
                               "1x1:v100", &o, &st, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, ":2: column job_type");
    CHECK_HAS(err.msg, "found \"Nope\"");
    /* the same with a duration: still an error (steps were asked for), unless fixed speed */
    const char *with_duration = "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
                                "X,0,5,1,Nope,10\n";
    CHECK_I64(simtest_run_opts(with_duration, "1x1:v100", &o, &st, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "found \"Nope\"");
    o.fixed_speed = 1;
    if (!run(with_duration, "1x1:v100", &o, &st)) {
        CHECK_DBL(fin(&st, "X"), 5, 0);
        simtest_free(&st);
    }
    o.fixed_speed = 0;
    /* no duration and no steps model: --fixed-speed cannot run it */
    o.fixed_speed = 1;
    CHECK_I64(simtest_run_opts("job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
                               "X,0,,1,A,10\n",
                               "1x1:v100", &o, &st, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, ":2: column duration_s");
    o.fixed_speed = 0;
    CHECK_I64(simtest_run_opts("job_id,arrival_s,duration_s,num_gpus,job_type,total_steps\n"
                               "X,0,,1,C,10\n",
                               "1x1:v100", &o, &st, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, ":2: column job_type");
    o.round_admit = 1;
    CHECK_I64(simtest_run_opts("job_id,arrival_s,duration_s,num_gpus\nX,0,1,1\n", "1x1:v100", &o,
                               &st, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, "round mode");
    berth_tput_free(m);
}

/* Work done past 2^53 microseconds stays exact across a preemption (a started job's work is
 * integer microseconds, not a double): A (12,000,000,000.000001 s) runs alone until B (1 s)
 * arrives at 2^53 + 1 us, an instant no double holds; srtf preempts A for B, and A resumes
 * at B's end with exactly its duration less 2^53 + 1 us to go: it ends at its duration
 * plus B's second, to the microsecond. */
static void work_past_2_53_exact(void)
{
    struct berth_sim_opts o = opts("srtf", NULL);
    const char *csv = "job_id,arrival_s,duration_s,num_gpus\n"
                      "A,0,12000000000.000001,1\n"
                      "B,9007199254.740993,1,1\n";
    struct simtest st;
    if (!run(csv, "1x1:v100", &o, &st)) {
        const struct berth_job_result *a = run_job(&st, "A"), *b = run_job(&st, "B");
        if (a && b) {
            CHECK_I64(a->preemptions, 1);
            CHECK_I64(b->first_start_us, INT64_C(9007199254740993));
            CHECK_I64(b->finish_us, INT64_C(9007199255740993));
            CHECK_I64(a->finish_us, INT64_C(12000000001000001));
            CHECK_I64(a->run_us, INT64_C(12000000000000001));
        }
        simtest_free(&st);
    }
}

static const struct check_test tests[] = {
    {"heterogeneous_types", heterogeneous_types},
    {"gang_sizes", gang_sizes},
    {"spread", spread},
    {"fixed_speed_exact", fixed_speed_exact},
    {"colocation", colocation},
    {"restart_cost", restart_cost},
    {"round_modes", round_modes},
    {"round_early_end", round_early_end},
    {"whole_steps", whole_steps},
    {"gavel_mode_colocated", gavel_mode_colocated},
    {"flat_progress", flat_progress},
    {"fairness_and_groups", fairness_and_groups},
    {"long_jobs_exact", long_jobs_exact},
    {"work_past_2_53_exact", work_past_2_53_exact},
    {"oracle_estimates", oracle_estimates},
    {"bad_input", bad_input},
};

CHECK_MAIN(tests)
