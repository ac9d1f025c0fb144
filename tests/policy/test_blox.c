/* blox-las and blox-fifo: golden traces worked out by hand (eviction from the tail of the
 * order, stopping without backfill, whole rounds only, the 1000 h starvation guard, a custom
 * round length), blox-fifo equal to strict fifo, invariants on generated and random traces
 * (with a short starvation threshold so the guard fires often), and Philly when
 * $BERTH_SHARED is set. Rounds are 300 s unless said otherwise. */
#include "policy/blox.h"
#include "policytest.h"

#define CLUSTER "3x4:v100,2x8:p100,4x2:k80"

/* 1x2, blox-las. A and B at 0 (900 s, 1 GPU each); C at 300 (300 s, 1 GPU).
 *   0  A and B start.
 * 300  A and B have run one whole round each; C (0 rounds) comes first and the GPUs are
 *      full: the tail of the order is B (one round, like A, but a higher job number): B is
 *      evicted and C runs 300-600.
 * 600  C done; B (1 round) takes the idle GPU: it has 600 s left, done at 1200.
 *      A runs on to 900.  JCTs 900, 1200, 300. */
static void evict_tail(void)
{
    const struct pt_want w[] = {{"A", 0, 900, 0}, {"B", 0, 1200, 1}, {"C", 300, 600, 0}};
    pt_sim("job_id,arrival_s,duration_s,num_gpus\nA,0,900,1\nB,0,900,1\nC,300,300,1\n", "1x2:v100",
           "blox-las", NULL, w, 3, 800, 1);
}

/* 1x4, blox-las. E 600 s on 2 GPUs, D 600 s on 4 GPUs, F 100 s on 1 GPU, all at 0.
 *   0  E starts. D does not fit the 2 idle GPUs and no running job is behind it: the loop
 *      stops, and F stays pending although it would fit (no backfill).
 * 300  E has 1 round. Order D (0), F (0), E (1): D evicts E from the tail and runs. F: no
 *      idle GPU, no running job behind it: stop.
 * 600  D has 1 round. Order F (0), E (1, job 0), D (1, job 1): F evicts the tail D and runs;
 *      E takes 2 of the 3 idle GPUs; D cannot get 4 back and nothing runs behind it: stop.
 * 700  F done; D still does not fit beside E.
 * 900  E done (300 + 300 s). D runs its last 300 s: 900-1200.
 * JCTs 900, 1200, 700. */
static void stop_without_backfill(void)
{
    const struct pt_want w[] = {{"E", 0, 900, 1}, {"D", 300, 1200, 1}, {"F", 600, 700, 0}};
    pt_sim("job_id,arrival_s,duration_s,num_gpus\nE,0,600,2\nD,0,600,4\nF,0,100,1\n", "1x4:v100",
           "blox-las", NULL, w, 3, 2800.0 / 3, 2);
}

/* 1x1, blox-las: only whole rounds count. X and Y at 0 (1000 s), Z at 450 (100 s).
 *    0  X runs.   300  X 1 round; Y (0) evicts X.   450  Z (0 rounds, job 2) comes after
 *       the running Y (0 rounds, job 1): it waits.   600  Y 1 round. Z evicts the tail Y:
 *       600-700.   700  X (1, job 0) runs from mid-round.
 *  900  X started at 700, so the round 600-900 is not counted: X (1, job 0) stays ahead of
 *       Y (1, job 1) and keeps running (had it been counted, Y would evict it here).
 * 1200  X 2 rounds; Y (1) evicts X, which has 200 s left.   1500  Y 2 rounds; X (2, job 0)
 *       evicts Y and ends at 1700; Y runs its last 400 s: 1700-2100.
 * JCTs 1700, 2100, 250. */
static void whole_rounds(void)
{
    const struct pt_want w[] = {{"X", 0, 1700, 2}, {"Y", 300, 2100, 2}, {"Z", 600, 700, 0}};
    pt_sim("job_id,arrival_s,duration_s,num_gpus\nX,0,1000,1\nY,0,1000,1\nZ,450,100,1\n",
           "1x1:v100", "blox-las", NULL, w, 3, 1350, 4);
}

/* 1x1, blox-las, Blox's 1000 h guard. A at 0 runs 5000 h; B arrives at 3000 h, 2000 h.
 *  3000 h  A has 36000 rounds; B (0) evicts it.
 *  4000 h  A has waited 1000 h: priority 1 for good. A (1, 36000) comes before B (999,
 *          12000) and evicts it.
 *  5000 h  B has waited 1000 h: priority 1 too; B (1, 12000) before A (1, 48000): B evicts
 *          A and runs its last 1000 h: done at 6000 h. A runs its last 1000 h: 7000 h.
 * Without the guard B would have run on to 5000 h. */
static void starvation_guard(void)
{
    const struct pt_want w[] = {{"A", 0, 7000 * 3600.0, 2}, {"B", 3000 * 3600.0, 6000 * 3600.0, 1}};
    pt_sim("job_id,arrival_s,duration_s,num_gpus\nA,0,18000000,1\nB,10800000,7200000,1\n",
           "1x1:v100", "blox-las", NULL, w, 2, (7000 + 3000) * 3600.0 / 2, 3);
}

/* Round length 100 s (engine driver). 1x2: A and B at 0 (300 s), C at 100 (100 s).
 * 100: A and B 1 round, C evicts the tail B: 100-200. 200: B restarts on the idle GPU with
 * 200 s left: 200-400. A runs 0-300. Passes every round while jobs exist: 0, 100, 200, 300,
 * 400. */
static void round_length(void)
{
    struct berth__params p = {.round_us = 100 * BERTH_US_PER_S};
    const char *csv = "job_id,arrival_s,duration_s,num_gpus\nA,0,300,1\nB,0,300,1\nC,100,100,1\n";
    const struct pt_want w[] = {{"A", 0, 300, 0}, {"B", 0, 400, 1}, {"C", 100, 200, 0}};
    pt_engine(csv, "1x2:v100", "blox-las", &p, w, 3, 800.0 / 3, 1);
    struct enginetest et;
    struct berth_err err = {0};
    CHECK_I64(enginetest_run(csv, "1x2:v100", "blox-las", &p, NULL, &et, &err), 0);
    CHECK_I64(et.npasses, 5);
    for (size_t i = 0; i < et.npasses && i < 5; i++)
        CHECK_I64(et.passes[i], (berth_us)i * 100 * BERTH_US_PER_S);
    enginetest_free(&et);
}

/* blox-fifo is strict fifo (the head blocks everyone, nothing is ever evicted, since a job
 * behind a pending one never runs), with a pass every round. */
static void fifo_head_of_line(void)
{
    const struct pt_want w[] = {
        {"J1", 0, 100, 0}, {"J2", 100, 150, 0}, {"J3", 150, 180, 0}, {"J4", 150, 160, 0}};
    pt_sim("job_id,arrival_s,duration_s,num_gpus\nJ1,0,100,2\nJ2,10,50,4\nJ3,20,30,1\n"
           "J4,30,10,2\n",
           "1x4:v100", "blox-fifo", NULL, w, 4, 132.5, 0);
}

/* ---- a naive reference model --------------------------------------------------------- */

/* Blox's Las loop written the obvious way: at every arrival, completion and round boundary,
 * credit the boundary, apply the guard, sort every active job by (priority, rounds, job) and
 * walk the sorted list exactly as Blox's `place` does, evicting from the end of the list.
 * One GPU type with gangs that may span servers, so counting GPUs is placing them. */
struct bjob {
    berth_us arr, dur, run, since, run_since, wait_since, first, fin;
    int64_t rounds;
    int g, state, starved, pre, was; /* state: 0 not arrived, 1 pending, 2 running, 3 done */
};

static struct bjob *bjobs;

static int bjob_cmp(const void *a, const void *b)
{
    const struct bjob *x = &bjobs[*(const int *)a], *y = &bjobs[*(const int *)b];
    if (x->starved != y->starved)
        return y->starved - x->starved;
    if (x->rounds != y->rounds)
        return x->rounds < y->rounds ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

static void breference(struct bjob *jobs, int n, int gpus, berth_us round, berth_us starve)
{
    bjobs = jobs;
    int *ord = malloc((size_t)n * sizeof *ord), next = 0;
    berth_us tick = BERTH_TIME_NONE; /* the policy's timer: the next round boundary */
    for (;;) {
        berth_us t = tick;
        if (next < n && (t == BERTH_TIME_NONE || jobs[next].arr < t))
            t = jobs[next].arr;
        for (int i = 0; i < n; i++) {
            const struct bjob *j = &jobs[i];
            if (j->state == 2 && (t == BERTH_TIME_NONE || j->since + j->dur - j->run < t))
                t = j->since + j->dur - j->run;
        }
        if (t == BERTH_TIME_NONE)
            break;
        for (int i = 0; i < n; i++) { /* progress, completions, the round just ended */
            struct bjob *j = &jobs[i];
            if (j->state != 2)
                continue;
            j->run += t - j->since;
            j->since = t;
            if (j->run == j->dur) {
                j->state = 3;
                j->fin = t;
            } else if (t % round == 0 && j->run_since <= t - round) {
                j->rounds++;
            }
        }
        for (; next < n && jobs[next].arr == t; next++) {
            jobs[next].state = 1;
            jobs[next].wait_since = t;
        }
        int free_gpus = gpus, na = 0;
        for (int i = 0; i < n; i++) {
            struct bjob *j = &jobs[i];
            if (j->state == 1 && t - j->wait_since >= starve)
                j->starved = 1;
            j->was = j->state == 2;
            free_gpus -= j->state == 2 ? j->g : 0;
            if (j->state == 1 || j->state == 2)
                ord[na++] = i;
        }
        qsort(ord, (size_t)na, sizeof *ord, bjob_cmp);
        for (int k = 0; k < na; k++) { /* Blox's place */
            struct bjob *j = &jobs[ord[k]];
            if (j->state == 2)
                continue;
            for (int e = na - 1; e > k && j->g > free_gpus; e--)
                if (jobs[ord[e]].state == 2) {
                    jobs[ord[e]].state = 1;
                    free_gpus += jobs[ord[e]].g;
                }
            if (j->g > free_gpus)
                break;
            j->state = 2;
            free_gpus -= j->g;
        }
        for (int k = 0; k < na; k++) {
            struct bjob *j = &jobs[ord[k]];
            if (j->state == 2 && !j->was) {
                j->since = j->run_since = t;
                if (j->first == BERTH_TIME_NONE)
                    j->first = t;
            } else if (j->state == 1 && j->was) {
                j->pre++;
                j->wait_since = t;
            }
        }
        int busy = 0;
        for (int k = 0; k < na && !busy; k++)
            busy = jobs[ord[k]].state == 1 || jobs[ord[k]].state == 2;
        tick = busy ? (t / round + 1) * round : BERTH_TIME_NONE;
    }
    free(ord);
}

static void starve_3000(void *self)
{
    berth__blox_set_starvation(self, 3000 * BERTH_US_PER_S);
}

/* The policy and the reference agree job by job: Blox's threshold with 300 s rounds (the
 * simulator), and a 3000 s threshold with 200 s rounds (the engine driver). */
static void matches_reference(void)
{
    enum { N = 400 };
    struct bjob *jobs = malloc(N * sizeof *jobs), *ref = malloc(N * sizeof *ref);
    struct pt_got *g = calloc(N, sizeof *g), *want = calloc(N, sizeof *want);
    struct pt_job *pj = malloc(N * sizeof *pj);
    for (uint64_t seed = 1; seed <= 2; seed++) {
        char *csv = pt_random_jobs(seed, N, 150, 7200, 0, pj);
        for (int i = 0; i < N; i++)
            jobs[i] = (struct bjob){
                .arr = pj[i].arr, .dur = pj[i].dur, .g = pj[i].g, .first = BERTH_TIME_NONE};
        for (int mode = 0; mode <= 1; mode++) {
            struct berth__params p = {.round_us = 200 * BERTH_US_PER_S};
            memcpy(ref, jobs, N * sizeof *ref);
            if (mode == 0)
                breference(ref, N, 32, 300 * BERTH_US_PER_S, 3600LL * 1000 * BERTH_US_PER_S);
            else
                breference(ref, N, 32, p.round_us, 3000 * BERTH_US_PER_S);
            CHECK_I64(pt_run_into(csv, "4x8:v100", "blox-las", mode ? &p : NULL,
                                  mode ? starve_3000 : NULL, g),
                      0);
            int pre = 0, starved = 0;
            for (int i = 0; i < N; i++) {
                want[i] = (struct pt_got){
                    .start = ref[i].first, .finish = ref[i].fin, .preemptions = ref[i].pre};
                pre += ref[i].pre;
                starved += ref[i].starved;
            }
            CHECK_I64(pt_compare(g, want, N, mode ? "short guard" : "blox-las"), 0);
            CHECK(pre > 0);
            CHECK(mode == 0 || starved > 0); /* the short threshold really fires */
        }
        free(csv);
    }
    free(jobs);
    free(ref);
    free(g);
    free(want);
    free(pj);
}

/* ---- random and generated workloads -------------------------------------------------- */

static void short_starvation(void *self)
{
    berth__blox_set_starvation(self, 1800 * BERTH_US_PER_S);
}

/* Every job finishes once after exactly its duration, no GPU is ever over-committed (the
 * engine re-checks every pass), with Blox's threshold and with a 30 min one that makes the
 * guard fire all the time; blox-fifo gives exactly fifo's results. */
static void random_invariants(void)
{
    struct pt_job *jobs = malloc(800 * sizeof *jobs);
    for (uint64_t seed = 1; seed <= 2; seed++) {
        char *csv = pt_random_jobs(seed, 800, 150, 7200, 1, jobs);
        struct berth_err err = {0};
        struct berth__params p = {.round_us = 120 * BERTH_US_PER_S};
        for (int hook = 0; hook <= 1; hook++) {
            struct enginetest et;
            int rc = enginetest_run(csv, CLUSTER, "blox-las", &p, hook ? short_starvation : NULL,
                                    &et, &err);
            CHECK_I64(rc, 0);
            if (rc) {
                fprintf(stderr, "  seed %llu: %s\n", (unsigned long long)seed, err.msg);
                continue;
            }
            uint64_t pre = 0;
            for (size_t i = 0; i < et.e->njobs; i++) {
                CHECK_I64(et.e->jobs[i].run_us, et.e->jobs[i].spec->duration_us);
                CHECK_I64(et.e->jobs[i].state, BERTH_JOB_DONE);
                pre += (uint64_t)et.e->jobs[i].preemptions;
            }
            CHECK(pre > 0);
            enginetest_free(&et);
        }
        struct simtest a, b;
        CHECK_I64(simtest_run(csv, CLUSTER, "blox-fifo", NULL, &a, &err), 0);
        CHECK_I64(simtest_run(csv, CLUSTER, "fifo", NULL, &b, &err), 0);
        for (size_t i = 0; i < a.r.njobs && i < b.r.njobs; i++) {
            CHECK_I64(a.r.jobs[i].first_start_us, b.r.jobs[i].first_start_us);
            CHECK_I64(a.r.jobs[i].finish_us, b.r.jobs[i].finish_us);
        }
        CHECK_I64(a.r.summary.preemptions, 0);
        simtest_free(&a);
        simtest_free(&b);
        free(csv);
    }
    free(jobs);
}

/* A generated workload (invariants checked after every pass). */
static void generated(void)
{
    pt_generated("blox-las", 3000);
}

/* Philly: blox-fifo reproduces fifo; blox-las beats it on average JCT. */
static void philly(void)
{
    static const char *const pols[] = {"blox-las", "blox-fifo", "fifo"};
    double jct[3];
    uint64_t pre[3];
    if (!pt_philly(pols, 3, jct, pre))
        return;
    CHECK_DBL(jct[1], jct[2], 1e-9);
    CHECK_I64(pre[1], 0);
    CHECK(jct[0] < jct[2]);
}

static const struct check_test tests[] = {
    {"evict_tail", evict_tail},
    {"stop_without_backfill", stop_without_backfill},
    {"whole_rounds", whole_rounds},
    {"starvation_guard", starvation_guard},
    {"round_length", round_length},
    {"fifo_head_of_line", fifo_head_of_line},
    {"matches_reference", matches_reference},
    {"random_invariants", random_invariants},
    {"generated", generated},
    {"philly", philly},
};

CHECK_MAIN(tests)
