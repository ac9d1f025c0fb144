/* The salus policies (policy/salus.c) end to end: each policy's choices on tiny traces,
 * computed by hand, and a property test on random 1-GPU workloads: every job finishes exactly
 * once, two runs agree, and after every pass the lanes re-derive, no GPU's lanes hold more
 * memory than it has, and every lane runs at most one job, the one the policy says. */
#include "enginetest.h"
#include "policy/salus/salus.h"
#include "util/rng.h"

struct want {
    const char *id;
    double start, finish;
    int preemptions;
};

static void run_case(const char *csv, const char *cluster, const char *policy, double colocate,
                     const struct want *w, size_t n)
{
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = policy;
    o.colocate_speed = colocate;
    struct simtest st;
    struct berth_err err = {0};
    int rc = simtest_run_opts(csv, cluster, &o, &st, &err);
    CHECK_I64(rc, 0);
    if (rc) {
        fprintf(stderr, "  %s: %s\n", policy, err.msg);
        return;
    }
    CHECK_I64(st.r.summary.completed, st.r.njobs);
    for (size_t k = 0; k < n; k++) {
        const struct berth_job_result *j = simtest_job(&st.r, w[k].id);
        CHECK(j != NULL);
        if (!j)
            continue;
        double s = (double)j->first_start_us / 1e6, f = (double)j->finish_us / 1e6;
        if (s != w[k].start || f != w[k].finish || j->preemptions != w[k].preemptions)
            fprintf(stderr, "  %s job %s: start %.6f finish %.6f preemptions %d\n", policy, w[k].id,
                    s, f, j->preemptions);
        CHECK_DBL(s, w[k].start, 1e-9);
        CHECK_DBL(f, w[k].finish, 1e-9);
        CHECK_I64(j->preemptions, w[k].preemptions);
    }
    simtest_free(&st);
}

/* One V100 (16084 MiB for lanes), jobs of 1000 + 4000 MiB:
 *   a arrives 0, 100 s; b arrives 10, 20 s; c arrives 20, 50 s.
 * salus-fifo: no sharing, arrival order: a 0-100, b 100-120, c 120-170.
 * salus-srtf: all three are resident in the GPU's lane (3 x 1000 + 4000 <= 16084). At 10 b
 *   (20 left) beats a (90 left): a is switched out; c arrives at 20 with 50 left, b has 10:
 *   b runs on to 30; then c (50) beats a (90): c 30-80, a 80-170. a: one preemption.
 * salus-pack (--colocate-speed 0.5, per partner): three lanes of 5000. a alone 0-10 (10 done);
 *   a, b at 0.5 to 20 (a 15, b 5); all three at 0.25: b needs 15 more -> 60 s, ends at 80 (a 30,
 *   c 15); a, c at 0.5: c needs 35 -> 70 s, ends at 150 (a 65); a alone: 35 s, ends at 185.
 * salus-fair (quantum 60 s): counters reset at every admission (10, 20), so at 20 all are 0
 *   and a keeps running. At 60: a has 1000 x 40, b and c 0 -> b (lower number) runs 60-80.
 *   At 80 a (40000) vs c (0): c runs; at 120 c has 1000 x 40 = a's: a tie keeps c, which ends
 *   at 130; a runs 130-170. a: one preemption. */
static void three_jobs(void)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,persist_mib,ephem_mib\n"
                      "a,0,100,1,1000,4000\n"
                      "b,10,20,1,1000,4000\n"
                      "c,20,50,1,1000,4000\n";
    static const struct want fifo[] = {{"a", 0, 100, 0}, {"b", 100, 120, 0}, {"c", 120, 170, 0}};
    static const struct want srtf[] = {{"a", 0, 170, 1}, {"b", 10, 30, 0}, {"c", 30, 80, 0}};
    static const struct want pack[] = {{"a", 0, 185, 0}, {"b", 10, 80, 0}, {"c", 20, 150, 0}};
    static const struct want fair[] = {{"a", 0, 170, 1}, {"b", 60, 80, 0}, {"c", 80, 130, 0}};
    run_case(csv, "1x1:v100", "salus-fifo", 0.5, fifo, 3);
    run_case(csv, "1x1:v100", "salus-srtf", 0.5, srtf, 3);
    run_case(csv, "1x1:v100", "salus-pack", 0.5, pack, 3);
    run_case(csv, "1x1:v100", "salus-fair", 0.5, fair, 3);
}

/* Memory limits admission. salus-srtf, jobs of 6000 + 4000 on one V100 (16084): L (0, 100 s)
 * opens the lane; M (1, 50 s): 6000 + 4000 <= 16084 - 6000 = 10084, resident, and 50 < 99
 * left: M runs. S (2, 10 s): 6000 + 4000 > 4084, not admitted, so it cannot preempt M even
 * though it is shorter. M ends at 51, S is admitted and beats L (99 left): S 51-61, L 61-160.
 * salus-pack, four jobs of 1000 + 4000 at 0 (100 s each, no interference): three lanes of
 * 5000 fit, the fourth waits for one to be removed: w, x, y 0-100, z 100-200. */
static void memory_bound(void)
{
    const char *srtf_csv = "job_id,arrival_s,duration_s,num_gpus,persist_mib,ephem_mib\n"
                           "L,0,100,1,6000,4000\n"
                           "M,1,50,1,6000,4000\n"
                           "S,2,10,1,6000,4000\n";
    static const struct want srtf[] = {{"L", 0, 160, 1}, {"M", 1, 51, 0}, {"S", 51, 61, 0}};
    run_case(srtf_csv, "1x1:v100", "salus-srtf", 0, srtf, 3);
    const char *pack_csv = "job_id,arrival_s,duration_s,num_gpus,persist_mib,ephem_mib\n"
                           "w,0,100,1,1000,4000\n"
                           "x,0,100,1,1000,4000\n"
                           "y,0,100,1,1000,4000\n"
                           "z,0,100,1,1000,4000\n";
    static const struct want pack[] = {
        {"w", 0, 100, 0}, {"x", 0, 100, 0}, {"y", 0, 100, 0}, {"z", 100, 200, 0}};
    run_case(pack_csv, "1x1:v100", "salus-pack", 0, pack, 4);
}

/* The lanes count GPU memory, the engine CPU: one server of 2 GPUs and 8 cores; A (6 cores,
 * 0-100 s) runs on GPU 0; B (6 cores, at 10) gets a lane of GPU 1 but its server has 2 cores
 * left, so its lane waits (before, the start's "does not fit" failed the pass) and is decided
 * again at the pass of A's end: B 100-150, under every Salus policy. */
static void cpu_short(void)
{
    const char *cluster = simtest_write_named(
        "{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 2, \"cpus\": 8}]}", ".json");
    char cpath[80];
    snprintf(cpath, sizeof cpath, "%s", cluster);
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,cpus\n"
                      "A,0,100,1,6\n"
                      "B,10,50,1,6\n";
    static const struct want w[] = {{"A", 0, 100, 0}, {"B", 100, 150, 0}};
    const char *pols[] = {"salus-fifo", "salus-srtf", "salus-pack", "salus-fair"};
    for (size_t i = 0; i < sizeof pols / sizeof *pols; i++)
        run_case(csv, cpath, pols[i], 0, w, 2);
    unlink(cpath);
}

/* Bad input: gangs and jobs larger than any GPU's lanes are refused before the run, as bad
 * input naming the file, the line and the job (the policy's check hook). */
static void refusals(void)
{
    struct simtest st;
    struct berth_err err = {0};
    const char *big = "job_id,arrival_s,duration_s,num_gpus,persist_mib,ephem_mib\n"
                      "huge,0,10,1,10000,7000\n";
    CHECK_I64(simtest_run(big, "1x1:v100", "salus-srtf", NULL, &st, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, ":2: job huge: needs 17000 MiB");
    const char *gang = "job_id,arrival_s,duration_s,num_gpus\n"
                       "ok,0,10,1\ng2,0,10,2\n";
    CHECK_I64(simtest_run(gang, "1x2:v100", "salus-pack", NULL, &st, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, ":3: job g2: the salus policies run 1-GPU jobs");
}

/* Random 1-GPU jobs: memory splits from the trace, from gpu_mem_mib, from a Gavel class or
 * the default; some bound to a GPU type. */
static char *random_trace(uint64_t seed, int n)
{
    struct berth__rng r;
    berth__rng_seed(&r, seed);
    size_t cap = (size_t)n * 120 + 128, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len,
                            "job_id,arrival_s,duration_s,num_gpus,gpu_type,job_type,"
                            "gpu_mem_mib,persist_mib,ephem_mib\n");
    static const char *types[] = {"", "", "", "v100", "k80"};
    static const char *classes[] = {"", "ResNet-50 (batch size 64)", "LM (batch size 20)", "A3C"};
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += berth__rng_unit(&r) < 0.3 ? 0 : berth__rng_exp(&r, 1.0 / 40);
        double d = 1 + berth__rng_unit(&r) * (berth__rng_unit(&r) < 0.2 ? 3600 : 300);
        int how = (int)berth__rng_below(&r, 4);
        int p = how == 0 ? (int)berth__rng_below(&r, 4000) : 0;
        int e = how == 0 ? 1 + (int)berth__rng_below(&r, 7000) : 0;
        int gm = how == 1 ? 500 + (int)berth__rng_below(&r, 10000) : 0;
        len += (size_t)snprintf(s + len, cap - len, "j%d,%.3f,%.6f,1,%s,%s,%d,%d,%d\n", i, t, d,
                                types[berth__rng_below(&r, 5)],
                                how == 2 ? classes[berth__rng_below(&r, 4)] : "", gm, p, e);
    }
    return s;
}

#define CLUSTER "2x4:v100,2x2:k80"

static int lanes_hold(const struct berth__engine *e)
{
    const struct berth__lanes *L = berth__salus_lanes(e->self);
    if (!L)
        return 0;
    if (berth__lanes_check(L))
        return 1;
    for (size_t g = 0; g < L->ngpus; g++)
        for (uint32_t l = L->gpu[g].head; l != BERTH_LANE_NONE; l = L->lane[l].next) {
            int running = 0;
            for (uint32_t j = L->lane[l].head; j != BERTH_LANE_NONE; j = L->next[j])
                if (e->jobs[j].state == BERTH_JOB_RUNNING) {
                    running++;
                    if (j != L->lane[l].active)
                        return 1;
                }
            if (running > 1)
                return 1;
        }
    /* every running job is some lane's runner */
    for (size_t i = 0; i < e->njobs; i++)
        if (e->jobs[i].state == BERTH_JOB_RUNNING &&
            (L->lane_of[i] == BERTH_LANE_NONE || L->lane[L->lane_of[i]].active != i))
            return 1;
    return 0;
}

static void properties(void)
{
    static const char *policies[] = {"salus-fifo", "salus-srtf", "salus-pack", "salus-fair"};
    for (uint64_t seed = 1; seed <= 3; seed++) {
        char *csv = random_trace(seed, 600);
        for (size_t p = 0; p < 4; p++) {
            struct berth_err err = {0};
            /* the engine driver: lanes checked after every pass */
            struct enginetest et;
            struct berth__params params = {.quantum_us = 60 * BERTH_US_PER_S};
            enginetest_after_pass = lanes_hold;
            int rc = enginetest_run(csv, CLUSTER, policies[p], &params, NULL, &et, &err);
            enginetest_after_pass = NULL;
            CHECK_I64(rc, 0);
            if (rc)
                fprintf(stderr, "  %s seed %llu: %s\n", policies[p], (unsigned long long)seed,
                        err.msg);
            else
                enginetest_free(&et);
            /* the simulator, with interference: every job once, twice the same */
            struct berth_sim_opts o;
            berth_sim_opts_init(&o);
            o.policy = policies[p];
            o.colocate_speed = 0.7;
            struct simtest a, b;
            rc = simtest_run_opts(csv, CLUSTER, &o, &a, &err);
            CHECK_I64(rc, 0);
            if (rc) {
                fprintf(stderr, "  %s seed %llu: %s\n", policies[p], (unsigned long long)seed,
                        err.msg);
                continue;
            }
            CHECK_I64(a.r.summary.completed, a.r.njobs);
            CHECK_I64(a.r.njobs, 600);
            for (size_t i = 0; i < a.r.njobs; i++) {
                const struct berth_job_result *j = &a.r.jobs[i];
                CHECK(j->finish_us != BERTH_TIME_NONE);
                CHECK(j->finish_us - j->spec->arrival_us >= j->spec->duration_us);
                if (strcmp(policies[p], "salus-pack")) /* one job per lane runs: full speed */
                    CHECK_I64(j->run_us, j->spec->duration_us);
                if (!strcmp(policies[p], "salus-fifo") || !strcmp(policies[p], "salus-pack"))
                    CHECK_I64(j->preemptions, 0);
            }
            CHECK_I64(simtest_run_opts(csv, CLUSTER, &o, &b, &err), 0);
            for (size_t i = 0; i < a.r.njobs && i < b.r.njobs; i++)
                CHECK_I64(a.r.jobs[i].finish_us, b.r.jobs[i].finish_us);
            simtest_free(&b);
            simtest_free(&a);
        }
        free(csv);
    }
}

static const struct check_test tests[] = {
    {"three_jobs", three_jobs}, {"memory_bound", memory_bound}, {"cpu_short", cpu_short},
    {"refusals", refusals},     {"properties", properties},
};

CHECK_MAIN(tests)
