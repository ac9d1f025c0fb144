/* tiresias-dlas and tiresias-dlas-gpu: golden traces worked out by hand (demotion at 3250 s,
 * dlas-gpu's demotion of a 4-GPU job at 3250/4 s, skipping, preemption by a higher queue,
 * demotion of a resumed job at the exact instant, custom limits, a start that fails
 * placement), a comparison with a naive reference model of the MLFQ on random traces, and
 * the real Philly trace when $BERTH_SHARED is set. */
#include "policy/tiresias.h"
#include "policytest.h"

/* ---- golden traces (default limits 3250 s and 7200 s) ------------------------------- */

/* 1x2. A 0 s, 5000 s, 2 GPUs; B 1000 s, 500 s, 2 GPUs.
 * dlas: A runs; B waits behind running A in Q0. At 3250 A's run time reaches the limit: A
 * drops to Q1, B (Q0) takes both GPUs 3250-3750, A is preempted and resumes at 3750 with
 * 1750 s left: done at 5500. JCTs 5500, 2750.
 * dlas-gpu: A's GPU time reaches 3250 at 1625: B runs 1625-2125, A resumes at 2125 with
 * 3375 s left (its drop to Q2 at 4100 changes nothing): done at 5500. JCTs 5500, 1125. */
static const char *case_demote = "job_id,arrival_s,duration_s,num_gpus\n"
                                 "A,0,5000,2\n"
                                 "B,1000,500,2\n";

static void demote_at_limit(void)
{
    const struct pt_want w[] = {{"A", 0, 5500, 1}, {"B", 3250, 3750, 0}};
    pt_sim(case_demote, "1x2:v100", "tiresias-dlas", NULL, w, 2, 4125, 1);
    const struct pt_want g[] = {{"A", 0, 5500, 1}, {"B", 1625, 2125, 0}};
    pt_sim(case_demote, "1x2:v100", "tiresias-dlas-gpu", NULL, g, 2, 3312.5, 1);
}

/* 1x4. A 0 s, 2000 s, 4 GPUs; B 100 s, 100 s, 1 GPU.
 * dlas-gpu: A's GPU time reaches 3250 after 3250/4 = 812.5 s: A drops to Q1, B runs
 * 812.5-912.5, A resumes with 1187.5 s left: done at 2100. JCTs 2100, 812.5.
 * dlas: A never reaches 3250 s of run time; B waits: 2000-2100. JCTs 2000, 2000. */
static const char *case_quarter = "job_id,arrival_s,duration_s,num_gpus\n"
                                  "A,0,2000,4\n"
                                  "B,100,100,1\n";

static void gpu_time_quarter(void)
{
    const struct pt_want g[] = {{"A", 0, 2100, 1}, {"B", 812.5, 912.5, 0}};
    pt_sim(case_quarter, "1x4:v100", "tiresias-dlas-gpu", NULL, g, 2, 1456.25, 1);
    const struct pt_want w[] = {{"A", 0, 2000, 0}, {"B", 2000, 2100, 0}};
    pt_sim(case_quarter, "1x4:v100", "tiresias-dlas", NULL, w, 2, 2000, 0);
}

/* 1x4, dlas. A 0 s, 1000 s, 2 GPUs; B 10 s, 1000 s, 4 GPUs; C 20 s, 100 s, 2 GPUs.
 * B does not fit beside A and is skipped; C behind it fits and runs 20-120. B runs once A is
 * done: 1000-2000. JCTs 1000, 1990, 100 (strict fifo would hold C until 2000). */
static void skip_big(void)
{
    const struct pt_want w[] = {{"A", 0, 1000, 0}, {"B", 1000, 2000, 0}, {"C", 20, 120, 0}};
    pt_sim("job_id,arrival_s,duration_s,num_gpus\nA,0,1000,2\nB,10,1000,4\nC,20,100,2\n",
           "1x4:v100", "tiresias-dlas", NULL, w, 3, 3090.0 / 3, 0);
}

/* 1x2, dlas. A 0 s, 4000 s, 2 GPUs; B 3500 s, 100 s, 1 GPU.
 * A drops to Q1 at 3250. B arrives in Q0 and takes one GPU; A no longer fits the other and
 * is preempted (one GPU stays idle, as in Tiresias). A ran 3500 s; it resumes at 3600 with
 * 500 s left: done at 4100. JCTs 4100, 100. */
static void preempt_by_higher_queue(void)
{
    const struct pt_want w[] = {{"A", 0, 4100, 1}, {"B", 3500, 3600, 0}};
    pt_sim("job_id,arrival_s,duration_s,num_gpus\nA,0,4000,2\nB,3500,100,1\n", "1x2:v100",
           "tiresias-dlas", NULL, w, 2, 2100, 1);
}

/* 1x2, dlas-gpu. R and P both arrive at 0, 10000 s on 2 GPUs.
 *    0  R runs (P waits behind it in Q0).
 * 1625  R's GPU time is 3250: R to Q1; P (Q0) runs, R is preempted.
 * 3250  P to Q1; it runs, so it stays ahead of the pending R.
 * 5225  P's GPU time is 7200: P to Q2; R (Q1) runs with 3250 GPU-s, P is preempted.
 * 7200  R reaches 7200 after (7200 - 3250) / 2 = 1975 s: R to Q2, ahead of the pending P.
 *       (Tiresias' formula (limit - run time) / GPUs would say 5225 + 2788 = 8013, and
 *       would have dropped P at 3250 + 2788 = 6038, not 5225.)
 * 13600 R done (1625 + 8375 s); P runs its last 6400 s: done at 20000. */
static const char *case_resumed = "job_id,arrival_s,duration_s,num_gpus\n"
                                  "R,0,10000,2\n"
                                  "P,0,10000,2\n";

static void demotion_instants(void)
{
    const struct pt_want w[] = {{"R", 0, 13600, 1}, {"P", 1625, 20000, 1}};
    pt_sim(case_resumed, "1x2:v100", "tiresias-dlas-gpu", NULL, w, 2, 16800, 2);
    struct berth__params p = {0};
    struct enginetest et;
    struct berth_err err = {0};
    CHECK_I64(enginetest_run(case_resumed, "1x2:v100", "tiresias-dlas-gpu", &p, NULL, &et, &err),
              0);
    const double want[] = {0, 1625, 3250, 5225, 7200, 13600, 20000};
    CHECK_I64(et.npasses, 7);
    for (size_t i = 0; i < et.npasses && i < 7; i++)
        CHECK_DBL((double)et.passes[i] / 1e6, want[i], 1e-9);
    enginetest_free(&et);
}

/* Custom limits 100 s and 150 s (three queues), dlas, one GPU.
 * A 0 s, 400 s; B 50 s, 30 s; C 130 s, 90 s.
 *   0 A runs.  50 B waits behind A.  100 A to Q1: B runs 100-130, A preempted.
 * 130 C arrives (Q0): 130-220.  220 A resumes (100 s run), reaches 150 s at 270: Q2.
 * 520 A done. JCTs 520, 80, 90. Passes at 0, 50, 100, 130, 220, 270, 520.
 * With the default limits A would run 0-400 and B, C after it. */
static const char *case_custom = "job_id,arrival_s,duration_s,num_gpus\n"
                                 "A,0,400,1\n"
                                 "B,50,30,1\n"
                                 "C,130,90,1\n";

static void custom_limits(void)
{
    struct berth__params p = {.settings = "queue_limits=100:150"};
    const struct pt_want w[] = {{"A", 0, 520, 1}, {"B", 100, 130, 0}, {"C", 130, 220, 0}};
    pt_engine(case_custom, "1x1:v100", "tiresias-dlas", &p, w, 3, 230, 1);
    struct enginetest et;
    struct berth_err err = {0};
    CHECK_I64(enginetest_run(case_custom, "1x1:v100", "tiresias-dlas", &p, NULL, &et, &err), 0);
    const double want[] = {0, 50, 100, 130, 220, 270, 520};
    CHECK_I64(et.npasses, 7);
    for (size_t i = 0; i < et.npasses && i < 7; i++)
        CHECK_DBL((double)et.passes[i] / 1e6, want[i], 1e-9);
    enginetest_free(&et);
    /* one limit: two queues; A drops at 100 and stays in Q1 (no further drop at 270) */
    struct berth__params one = {.settings = "queue_limits=100"};
    pt_engine(case_custom, "1x1:v100", "tiresias-dlas", &one, w, 3, 230, 1);
    /* the defaults */
    const struct pt_want d[] = {{"A", 0, 400, 0}, {"B", 400, 430, 0}, {"C", 430, 520, 0}};
    pt_sim(case_custom, "1x1:v100", "tiresias-dlas", NULL, d, 3, 390, 0);
}

static void bad_limits(void)
{
    struct berth__params p = {.settings = "queue_limits=200:100"};
    struct enginetest et;
    struct berth_err err = {0};
    CHECK_I64(enginetest_run(case_custom, "1x1:v100", "tiresias-dlas-gpu", &p, NULL, &et, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, "policy tiresias-dlas-gpu: setting queue_limits: expected up to 8 "
                       "increasing numbers of seconds");
    p.settings = "queue_limits=1:2:3:4:5:6:7:8:9"; /* nine limits: ten queues */
    CHECK_I64(enginetest_run(case_custom, "1x1:v100", "tiresias-dlas", &p, NULL, &et, &err),
              BERTH_EINPUT);
    p.settings = "queue_limits=0:100";
    CHECK_I64(enginetest_run(case_custom, "1x1:v100", "tiresias-dlas", &p, NULL, &et, &err),
              BERTH_EINPUT);
    p.settings = "queue_limits=100,queue_limits=200";
    CHECK_I64(enginetest_run(case_custom, "1x1:v100", "tiresias-dlas", &p, NULL, &et, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, "setting queue_limits given twice");
    p.settings = "quantum=5";
    CHECK_I64(enginetest_run(case_custom, "1x1:v100", "tiresias-dlas", &p, NULL, &et, &err),
              BERTH_EINPUT);
    CHECK_HAS(err.msg, "unknown setting \"quantum\" (its settings: queue_limits)");
    /* a policy without settings refuses any */
    CHECK_I64(enginetest_run(case_custom, "1x1:v100", "fifo", &p, NULL, &et, &err), BERTH_EINPUT);
}

/* 2x2, dlas, spread placement. P and Q (1 GPU each, 1000 s) land on different servers. At 10
 * R (2 GPUs on one server, 100 s) fits the 2 idle GPUs by count but cannot be placed: it is
 * treated as not fitting, and S (1 GPU, 100 s) behind it takes the GPUs counted for it:
 * 10-110. R runs once P and Q are done: 1000-1100. JCTs 1000, 1000, 1090, 100. */
static void placement_fails(void)
{
    const struct pt_want w[] = {
        {"P", 0, 1000, 0}, {"Q", 0, 1000, 0}, {"R", 1000, 1100, 0}, {"S", 10, 110, 0}};
    pt_sim("job_id,arrival_s,duration_s,num_gpus,single_server\n"
           "P,0,1000,1,0\nQ,0,1000,1,0\nR,10,100,2,1\nS,10,100,1,0\n",
           "2x2:v100", "tiresias-dlas", "spread", w, 4, 797.5, 0);
}

/* 2x2, dlas, spread. A, B, C, D (1 GPU, 10000 s) fill both servers, two on each, and all
 * drop to Q1 at 3250. At 4000 P (Q0, 2 GPUs on one server, 100 s) fits by count: the count
 * keeps A and B and preempts C and D (one on each server). P still cannot be placed (one
 * idle GPU per server), so the scan resumes from P without it: C and D fit again and get
 * their own GPUs back. Nobody is preempted; P runs when the four are done. */
static void restore_after_failed_start(void)
{
    const struct pt_want w[] = {{"A", 0, 10000, 0},
                                {"B", 0, 10000, 0},
                                {"C", 0, 10000, 0},
                                {"D", 0, 10000, 0},
                                {"P", 10000, 10100, 0}};
    pt_sim("job_id,arrival_s,duration_s,num_gpus,single_server\n"
           "A,0,10000,1,0\nB,0,10000,1,0\nC,0,10000,1,0\nD,0,10000,1,0\nP,4000,100,2,1\n",
           "2x2:v100", "tiresias-dlas", "spread", w, 5, (4 * 10000 + 6100) / 5.0, 0);
}

/* ---- a naive reference model --------------------------------------------------------- */

/* Tiresias' MLFQ written the obvious way: at every event, sort every active job by (queue,
 * running first, entry time, job number) and fill the GPUs by count. O(jobs log jobs) per
 * event, on one GPU type with gangs that may span servers (so counting is placing). */
struct rjob {
    berth_us arr, dur, entry, run, since, first, fin;
    int g, q, state, pre; /* state: 0 not arrived, 1 pending, 2 running, 3 done */
};

static int rgpu;
static struct rjob *rjobs;
static int rmax_running; /* most jobs running in one queue after any pass */

static int64_t ratt(const struct rjob *j)
{
    return rgpu ? j->run * j->g : j->run;
}

static int rcmp(const void *a, const void *b)
{
    const struct rjob *x = &rjobs[*(const int *)a], *y = &rjobs[*(const int *)b];
    if (x->q != y->q)
        return x->q - y->q;
    if (x->state != y->state)
        return y->state - x->state; /* running (2) first */
    if (x->entry != y->entry)
        return x->entry < y->entry ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

static void reference(struct rjob *jobs, int n, int gpus, const berth_us *lim, int nl)
{
    rjobs = jobs;
    int *ord = malloc((size_t)n * sizeof *ord), next = 0;
    for (;;) {
        berth_us t = next < n ? jobs[next].arr : BERTH_TIME_NONE;
        for (int i = 0; i < n; i++) {
            struct rjob *j = &jobs[i];
            if (j->state != 2)
                continue;
            berth_us f = j->since + j->dur - j->run, r = rgpu ? j->g : 1;
            if (t == BERTH_TIME_NONE || f < t)
                t = f;
            if (j->q < nl) {
                berth_us c = j->since + (lim[j->q] - ratt(j) + r - 1) / r;
                if (c < t)
                    t = c;
            }
        }
        if (t == BERTH_TIME_NONE)
            break;
        int na = 0;
        for (int i = 0; i < n; i++) {
            struct rjob *j = &jobs[i];
            if (j->state == 2) {
                j->run += t - j->since;
                j->since = t;
                if (j->run == j->dur) {
                    j->state = 3;
                    j->fin = t;
                }
            }
            for (; j->state == 2 && j->q < nl && ratt(j) >= lim[j->q]; j->q++)
                j->entry = t;
        }
        for (; next < n && jobs[next].arr == t; next++) {
            jobs[next].state = 1;
            jobs[next].entry = t;
        }
        for (int i = 0; i < n; i++)
            if (jobs[i].state == 1 || jobs[i].state == 2)
                ord[na++] = i;
        qsort(ord, (size_t)na, sizeof *ord, rcmp);
        int budget = gpus;
        int inq[16] = {0};
        for (int k = 0; k < na; k++) {
            struct rjob *j = &jobs[ord[k]];
            int fits = j->g <= budget;
            if (fits && ++inq[j->q] > rmax_running)
                rmax_running = inq[j->q];
            budget -= fits ? j->g : 0;
            if (j->state == 2 && !fits) {
                j->state = 1;
                j->pre++;
            } else if (j->state == 1 && fits) {
                j->state = 2;
                j->since = t;
                if (j->first == BERTH_TIME_NONE)
                    j->first = t;
            }
        }
    }
    free(ord);
}

/* Checks the run in got against the reference model's jobs. */
static void compare(const struct rjob *ref, const struct pt_got *got, int n, const char *what)
{
    struct pt_got *want = calloc((size_t)n, sizeof *want);
    int pre = 0;
    for (int i = 0; i < n; i++) {
        want[i] =
            (struct pt_got){.start = ref[i].first, .finish = ref[i].fin, .preemptions = ref[i].pre};
        pre += ref[i].pre;
    }
    CHECK_I64(pt_compare(got, want, (size_t)n, what), 0);
    CHECK(pre > 0); /* the workload really exercises preemption */
    free(want);
}

/* Chunks of 2 and 3 running jobs: the running lists split and merge all the time. */
static void chunks_of_2(void *self)
{
    berth__tiresias_set_chunk(self, 2);
}

static void chunks_of_3(void *self)
{
    berth__tiresias_set_chunk(self, 3);
}

static void matches_reference(void)
{
    enum { N = 500 };
    static const berth_us defaults[] = {3250 * BERTH_US_PER_S, 7200 * BERTH_US_PER_S};
    /* odd microseconds: a gang's GPU time crosses them between two microseconds */
    struct berth__params custom = {.settings = "queue_limits=600.000001:1800.000003:5000.000007"};
    static const berth_us custom_limits[] = {600000001, 1800000003, 5000000007};
    struct rjob *jobs = malloc(N * sizeof *jobs), *ref = malloc(N * sizeof *ref);
    struct pt_job *pj = malloc(N * sizeof *pj);
    struct pt_got *g = calloc(N, sizeof *g);
    for (uint64_t seed = 1; seed <= 2; seed++) {
        char *csv = pt_random_jobs(seed, N, 400, 20000, 0, pj);
        for (int i = 0; i < N; i++)
            jobs[i] = (struct rjob){
                .arr = pj[i].arr, .dur = pj[i].dur, .g = pj[i].g, .first = BERTH_TIME_NONE};
        for (int gpu = 0; gpu <= 1; gpu++) {
            const char *pol = gpu ? "tiresias-dlas-gpu" : "tiresias-dlas";
            rgpu = gpu;
            /* default limits, through the simulator, and with tiny chunks */
            struct berth__params none = {0};
            memcpy(ref, jobs, N * sizeof *ref);
            reference(ref, N, 32, defaults, 2);
            CHECK_I64(pt_run_into(csv, "4x8:v100", pol, NULL, NULL, g), 0);
            compare(ref, g, N, pol);
            CHECK_I64(pt_run_into(csv, "4x8:v100", pol, &none, chunks_of_3, g), 0);
            compare(ref, g, N, pol);
            /* custom limits, through the engine driver, with tiny chunks */
            memcpy(ref, jobs, N * sizeof *ref);
            reference(ref, N, 32, custom_limits, 3);
            CHECK_I64(pt_run_into(csv, "4x8:v100", pol, &custom, chunks_of_2, g), 0);
            compare(ref, g, N, pol);
        }
        free(csv);
    }
    free(jobs);
    free(ref);
    free(pj);
    free(g);
}

/* 800 GPUs and mostly small gangs: more than 256 jobs run in one queue at once, so the
 * running lists split into several chunks (and merge back as jobs leave). */
static void matches_reference_large(void)
{
    enum { N = 2500 };
    static const berth_us defaults[] = {3250 * BERTH_US_PER_S, 7200 * BERTH_US_PER_S};
    struct rjob *ref = malloc(N * sizeof *ref);
    struct pt_job *pj = malloc(N * sizeof *pj);
    struct pt_got *g = calloc(N, sizeof *g);
    char *csv = pt_random_jobs(3, N, 30, 20000, 0, pj);
    for (int i = 0; i < N; i++)
        ref[i] = (struct rjob){
            .arr = pj[i].arr, .dur = pj[i].dur, .g = pj[i].g, .first = BERTH_TIME_NONE};
    rgpu = 1;
    rmax_running = 0;
    reference(ref, N, 800, defaults, 2);
    CHECK(rmax_running > 256);
    CHECK_I64(pt_run_into(csv, "100x8:v100", "tiresias-dlas-gpu", NULL, NULL, g), 0);
    compare(ref, g, N, "large");
    free(csv);
    free(ref);
    free(pj);
    free(g);
}

/* ---- larger runs --------------------------------------------------------------------- */

/* A generated workload on a heterogeneous cluster, invariants checked after every pass. */
static void generated(void)
{
    pt_generated("tiresias-dlas", 3000);
    pt_generated("tiresias-dlas-gpu", 3000);
}

/* The real Philly trace: both variants preempt, never migrate (one GPU type, counting is
 * placing), and each run stays well under a second (printed). */
static void philly(void)
{
    static const char *const pols[] = {"tiresias-dlas", "tiresias-dlas-gpu"};
    double jct[2];
    uint64_t pre[2];
    if (!pt_philly(pols, 2, jct, pre))
        return;
    CHECK(pre[0] > 0 && pre[1] > 0);
}

static const struct check_test tests[] = {
    {"demote_at_limit", demote_at_limit},
    {"gpu_time_quarter", gpu_time_quarter},
    {"skip_big", skip_big},
    {"preempt_by_higher_queue", preempt_by_higher_queue},
    {"demotion_instants", demotion_instants},
    {"custom_limits", custom_limits},
    {"bad_limits", bad_limits},
    {"placement_fails", placement_fails},
    {"restore_after_failed_start", restore_after_failed_start},
    {"matches_reference", matches_reference},
    {"matches_reference_large", matches_reference_large},
    {"generated", generated},
    {"philly", philly},
};

CHECK_MAIN(tests)
