/* The goodput policies (src/policy/goodput.c): hand-computed golden runs of elastic jobs with
 * known scaling curves on one 4-GPU server (which sizes they get, when they shrink and grow,
 * a resize skipped when its restart cost outweighs its gain), and a property run on random
 * elastic workloads (every job finishes exactly once, sizes stay within min..max, no GPU
 * over-committed: the engine re-verifies after every pass; same inputs, same results). */
#include "model/tput.h"
#include "simtest.h"
#include "util/rng.h"

/* Class L scales perfectly on v100: 1, 2, 4 steps/s at 1, 2, 4 GPUs (3 at 3 GPUs,
 * interpolated). Class S saturates: 1, 1.1, 1.2 steps/s at 1, 2, 4 GPUs. On k80 both run at
 * half their v100 rates. */
static struct berth_tput *model(void)
{
    struct berth_tput *m = berth__tput_new();
    int v100 = 0, k80 = 0, l = 0, s = 0;
    CHECK(m != NULL);
    CHECK(!berth__tput_add_type(m, "v100", &v100) && !berth__tput_add_type(m, "k80", &k80));
    CHECK(!berth__tput_add_class(m, "L", &l) && !berth__tput_add_class(m, "S", &s));
    static const double lr[] = {1, 2, 4}, sr[] = {1, 1.1, 1.2};
    static const int32_t n[] = {1, 2, 4};
    for (int i = 0; i < 3; i++)
        CHECK(!berth__tput_add_point(m, l, v100, n[i], 0, lr[i]) &&
              !berth__tput_add_point(m, s, v100, n[i], 0, sr[i]) &&
              !berth__tput_add_point(m, l, k80, n[i], 0, lr[i] / 2) &&
              !berth__tput_add_point(m, s, k80, n[i], 0, sr[i] / 2));
    return m;
}

static int run(const char *csv, const char *cluster, const char *policy, const struct berth_tput *m,
               struct simtest *st)
{
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = policy;
    o.tput = m;
    struct berth_err err = {0};
    int rc = simtest_run_opts(csv, cluster, &o, st, &err);
    if (rc)
        fprintf(stderr, "  run failed: %s\n", err.msg);
    CHECK_I64(rc, 0);
    return rc;
}

static const struct berth_job_result *job(const struct simtest *st, const char *id)
{
    const struct berth_job_result *j = simtest_job(&st->r, id);
    CHECK(j != NULL);
    return j;
}

/* A (class L, 4000 steps) and B (class S, 1000 steps), both elastic 1..4, arrive at 0 on one
 * 4-GPU v100 server; restarts cost A `restart` seconds.
 *
 * t = 0: both are admitted at 1 GPU, leaving 2 for the knapsack. Utilities -1/s: A at 1, 2,
 * 3 GPUs: -1, -1/2, -1/3; B at 1, 2: -1, -1/1.1. A+2 GPUs gains 2/3, A+1 and B+1 gain
 * 1/2 + 0.0909, B+2 less still: A runs on 3 GPUs (3 steps/s), B on 1 (1 step/s).
 * Between rounds nothing changes: a change would need 5 % more speedup and no GPU is idle.
 * t = 1000: B has done its 1000 steps and leaves; A has done 3000 and has 1000 left. Growing
 * to 4 GPUs: 250 s instead of 333.3 s at 3.
 *  - restart 0: s = 4 / 1.05 = 3.81 > 3: A grows (one resize) and ends at 1000 + 250 = 1250.
 *  - restart 10: s = 4 * 250 / (250 + 2 * 10) / 1.05 = 3.53 > 3: it grows, pays 10 s, and
 *    ends at 1000 + 10 + 250 = 1260.
 *  - restart 200: s = 4 * 250 / (250 + 2 * 200) / 1.05 = 1.47 < 3: no resize; at later rounds
 *    the remaining work only shrinks, so A ends on 3 GPUs at 4000 / 3 = 1333.33 s. */
static void grow_when_worth_it(void)
{
    static const struct {
        int restart;
        double a_finish;
        int resizes;
        double lost;
    } cases[] = {{0, 1250, 1, 0}, {10, 1260, 1, 10}, {200, 4000.0 / 3, 0, 0}};
    struct berth_tput *m = model();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char csv[512];
        snprintf(csv, sizeof csv,
                 "job_id,arrival_s,duration_s,num_gpus,min_gpus,max_gpus,job_type,total_steps,"
                 "restart_s\n"
                 "A,0,,1,1,4,L,4000,%d\n"
                 "B,0,,1,1,4,S,1000,0\n",
                 cases[i].restart);
        struct simtest st;
        if (run(csv, "1x4:v100", "goodput", m, &st))
            continue;
        const struct berth_job_result *a = job(&st, "A"), *b = job(&st, "B");
        if (a && b) {
            CHECK_DBL((double)b->finish_us / 1e6, 1000, 1e-6);
            CHECK_DBL((double)a->finish_us / 1e6, cases[i].a_finish, 1e-5);
            CHECK_I64(a->resizes, cases[i].resizes);
            CHECK_I64(b->resizes, 0);
            CHECK_DBL((double)a->restart_lost_us / 1e6, cases[i].lost, 1e-9);
            /* 3 GPUs for 1000 s, then 4 for what is left (or 3 to the end) */
            CHECK_DBL((double)a->gpu_us / 1e6,
                      cases[i].resizes ? 3000 + 4 * (cases[i].a_finish - 1000)
                                       : 3 * cases[i].a_finish,
                      1e-4);
        }
        CHECK_I64(st.r.summary.resizes, cases[i].resizes);
        CHECK_I64(st.r.summary.preemptions, 0); /* a resize is not a preemption */
        simtest_free(&st);
    }
    berth_tput_free(m);
}

/* A (class L, 8000 steps, 1..4) arrives alone at 0 and takes all 4 GPUs (speedup 4 beats 3).
 * B (class S, 100 steps, 1..4) arrives at 100: every active job gets at least its smallest
 * gang (p = -1 makes 0 GPUs infinitely bad), so A shrinks to 3 (-1/(3/1.05) - 1 = -1.35 beats
 * A 2 + B 2: -1/(2/1.05) - 1/1.1 = -1.43). B ends at 200 (100 steps at 1/s); A, with
 * 400 + 300 = 700 steps done, grows back to 4 (its 3-GPU hold of 60 s is over) and ends at
 * 200 + 7300 / 4 = 2025: two resizes. */
static void shrink_for_a_newcomer(void)
{
    struct berth_tput *m = model();
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus,min_gpus,max_gpus,job_type,total_steps\n"
             "A,0,,1,1,4,L,8000\n"
             "B,100,,1,1,4,S,100\n",
             "1x4:v100", "goodput", m, &st)) {
        const struct berth_job_result *a = job(&st, "A"), *b = job(&st, "B");
        if (a && b) {
            CHECK_DBL((double)b->first_start_us / 1e6, 100, 1e-9);
            CHECK_DBL((double)b->finish_us / 1e6, 200, 1e-6);
            CHECK_DBL((double)a->finish_us / 1e6, 2025, 1e-6);
            CHECK_I64(a->resizes, 2);
            CHECK_DBL((double)a->gpu_us / 1e6, 4 * 100 + 3 * 100 + 4 * 1825, 1e-4);
        }
        simtest_free(&st);
    }
    berth_tput_free(m);
}

/* goodput-hetero admits a job on the type where its smallest gang runs fastest; goodput on the
 * first type in cluster order. One k80 server listed before one v100 server, one L job of
 * 1000 steps, 1..4: goodput runs it on 4 k80 (2 steps/s: 500 s), goodput-hetero on 4 v100
 * (4 steps/s: 250 s). */
static void hetero_picks_the_fast_type(void)
{
    struct berth_tput *m = model();
    static const char *csv =
        "job_id,arrival_s,duration_s,num_gpus,min_gpus,max_gpus,job_type,total_steps\n"
        "A,0,,1,1,4,L,1000\n";
    static const struct {
        const char *policy;
        double finish;
    } cases[] = {{"goodput", 500}, {"goodput-hetero", 250}};
    for (size_t i = 0; i < 2; i++) {
        struct simtest st;
        if (run(csv, "1x4:k80,1x4:v100", cases[i].policy, m, &st))
            continue;
        const struct berth_job_result *a = job(&st, "A");
        if (a)
            CHECK_DBL((double)a->finish_us / 1e6, cases[i].finish, 1e-6);
        simtest_free(&st);
    }
    berth_tput_free(m);
}

/* The starvation guard, on one GPU with two fixed-speed jobs (rounds every 60 s):
 * A (10000 s) runs from 0. B (20000 s) arrives at 4000, when A has 4000 GPU-s: level 1
 * (levels double from 3600 GPU-s), B level 0: B takes the GPU and A waits. B reaches level 1
 * at 7600 and stays ahead (running first within a level); it would reach level 2 only at
 * 4000 + 10800 = 14800. At 12000 A has waited 8000 s, twice the 4000 s it ran and more than
 * an hour: it is promoted, B is preempted, and A ends at 12000 + 6000 = 18000. B resumes and
 * ends at 18000 + (20000 - 8000) = 30000. (Without the guard A would wait until 14820.) */
static void starvation_guard(void)
{
    struct simtest st;
    if (!run("job_id,arrival_s,duration_s,num_gpus\n"
             "A,0,10000,1\n"
             "B,4000,20000,1\n",
             "1x1:v100", "goodput", NULL, &st)) {
        const struct berth_job_result *a = job(&st, "A"), *b = job(&st, "B");
        if (a && b) {
            CHECK_DBL((double)a->finish_us / 1e6, 18000, 1e-9);
            CHECK_DBL((double)b->first_start_us / 1e6, 4000, 1e-9);
            CHECK_DBL((double)b->finish_us / 1e6, 30000, 1e-9);
            CHECK_I64(a->preemptions, 1);
            CHECK_I64(b->preemptions, 1);
        }
        simtest_free(&st);
    }
}

/* Random elastic workloads on two GPU types: every job finishes exactly once, the GPU-time it
 * held lies between min_gpus and max_gpus times the time it held GPUs (sizes stayed within its
 * range), the engine's invariant checks pass after every pass, and a second run gives the
 * same results. Jobs are of class L or S by steps, fixed-speed, or inelastic. */
static void random_elastic(void)
{
    struct berth_tput *m = model();
    static const char *policies[] = {"goodput", "goodput-hetero"};
    static const int modes[] = {BERTH_MODE_DES, BERTH_MODE_ROUNDS};
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct berth__rng rng;
        berth__rng_seed(&rng, seed);
        size_t cap = 1 << 16, len = 0;
        char *csv = malloc(cap);
        len += (size_t)snprintf(csv, cap,
                                "job_id,arrival_s,duration_s,num_gpus,min_gpus,max_gpus,"
                                "job_type,total_steps,restart_s\n");
        int n = 120;
        for (int i = 0; i < n; i++) {
            int kind = (int)(berth__rng_below(&rng, 4)), lo = 1 + (int)(berth__rng_below(&rng, 2));
            int hi = lo + (int)(berth__rng_below(&rng, 8));
            int at = (int)(berth__rng_below(&rng, 20000));
            int steps = 100 + (int)(berth__rng_below(&rng, 5000));
            int restart = (int)(berth__rng_below(&rng, 40));
            if (kind == 3) /* inelastic, fixed speed */
                len += (size_t)snprintf(csv + len, cap - len, "j%d,%d,%d,%d,%d,%d,,,%d\n", i, at,
                                        steps, lo, lo, lo, restart);
            else if (kind == 2) /* elastic range, fixed speed */
                len += (size_t)snprintf(csv + len, cap - len, "j%d,%d,%d,%d,%d,%d,,,%d\n", i, at,
                                        steps, lo, lo, hi, restart);
            else
                len += (size_t)snprintf(csv + len, cap - len, "j%d,%d,,%d,%d,%d,%s,%d,%d\n", i, at,
                                        lo, lo, hi, kind ? "S" : "L", steps, restart);
        }
        for (size_t p = 0; p < 2; p++)
            for (size_t md = 0; md < 2; md++) {
                struct berth_sim_opts o;
                berth_sim_opts_init(&o);
                o.policy = policies[p];
                o.tput = m;
                o.mode = modes[md];
                o.restart_us = 5 * BERTH_US_PER_S;
                struct simtest a, b;
                struct berth_err err = {0};
                int rc = simtest_run_opts(csv, "3x4:v100,2x8:k80", &o, &a, &err);
                if (rc)
                    fprintf(stderr, "  %s seed %llu: %s\n", policies[p], (unsigned long long)seed,
                            err.msg);
                CHECK_I64(rc, 0);
                if (rc)
                    continue;
                CHECK_I64(a.r.summary.completed, n);
                for (size_t i = 0; i < a.r.njobs; i++) {
                    const struct berth_job_result *j = &a.r.jobs[i];
                    CHECK(j->finish_us != BERTH_TIME_NONE && j->finish_us >= j->first_start_us);
                    CHECK(j->gpu_us >= (int64_t)j->spec->min_gpus * j->run_us);
                    CHECK(j->gpu_us <= (int64_t)j->spec->max_gpus * j->run_us);
                }
                if (!simtest_run_opts(csv, "3x4:v100,2x8:k80", &o, &b, &err)) {
                    CHECK_I64(a.r.summary.resizes, b.r.summary.resizes);
                    for (size_t i = 0; i < a.r.njobs; i++) {
                        CHECK_I64(a.r.jobs[i].finish_us, b.r.jobs[i].finish_us);
                        CHECK_I64(a.r.jobs[i].gpu_us, b.r.jobs[i].gpu_us);
                    }
                    simtest_free(&b);
                }
                if (seed == 1 && md == 0) /* elastic jobs really change size */
                    CHECK(a.r.summary.resizes > 0);
                simtest_free(&a);
            }
        free(csv);
    }
    berth_tput_free(m);
}

static const struct check_test tests[] = {
    {"grow_when_worth_it", grow_when_worth_it},
    {"shrink_for_a_newcomer", shrink_for_a_newcomer},
    {"hetero_picks_the_fast_type", hetero_picks_the_fast_type},
    {"starvation_guard", starvation_guard},
    {"random_elastic", random_elastic},
};

CHECK_MAIN(tests)
