/* Every src/slurmapi call against the live mini cluster of tests/slurm/cluster.sh (run by
 * tests/cli_slurm.sh with SLURM_CONF set), plus the two measurements the design needs:
 * decision-to-running latency and the cost of reading many held jobs.
 * Usage: slurm_api_test all WORKDIR          the whole sequence
 *        slurm_api_test place ID NODE GPUS TYPE   place one job (for sbatch-submitted ones)
 *        slurm_api_test hold ID              hold a pending job
 *        slurm_api_test bench WORKDIR N      submit N held jobs, time reading them */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "slurmapi/slurm_api.h"

static struct berth__slurm *S;
static const char *WORKDIR;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void die_err(const char *what, const struct berth_err *e)
{
    fprintf(stderr, "slurm_api_test: %s: %s\n", what, e->msg);
    exit(1);
}

static struct berth__slurm_job get(uint32_t id)
{
    struct berth__slurm_job j;
    struct berth_err e;
    if (berth__slurm_job(S, id, &j, &e) < 0)
        die_err("reading a job", &e);
    return j;
}

/* Polls (every 5 ms, up to limit seconds) until the job is in state (and, for pending, no
 * longer completing); returns the seconds waited or -1. */
static double wait_state(uint32_t id, enum berth__slurm_job_state state, double limit)
{
    double t0 = now_s();
    while (now_s() - t0 < limit) {
        struct berth__slurm_job j = get(id);
        if (j.state == state && !j.completing)
            return now_s() - t0;
        sleep_s(0.005);
    }
    return -1;
}

static uint32_t submit(const char *name, uint32_t gpus, const char *type)
{
    const char *argv[] = {"sleep", "600", NULL};
    struct berth__slurm_submit sub = {.name = name,
                                      .argv = argv,
                                      .workdir = WORKDIR,
                                      .gpus_per_node = gpus,
                                      .gpu_type = type,
                                      .time_limit_us = 3600 * BERTH_US_PER_S};
    uint32_t id;
    struct berth_err e;
    if (berth__slurm_submit_held(S, &sub, &id, &e) < 0)
        die_err("submit", &e);
    return id;
}

static const struct berth__slurm_node *find_node(const struct berth__slurm_node *n, size_t k,
                                                 const char *name)
{
    for (size_t i = 0; i < k; i++)
        if (!strcmp(n[i].name, name))
            return &n[i];
    return NULL;
}

/* nodes and typed GPUs read back exactly as cluster.sh configures them */
static void test_nodes(void)
{
    struct berth__slurm_node *n;
    size_t k;
    struct berth_err e;
    if (berth__slurm_nodes(S, &n, &k, &e) < 0)
        die_err("nodes", &e);
    CHECK_I64(k, 4);
    static const struct {
        const char *name, *type, *features;
        uint32_t cpus, mem, gpus, mps, shards;
    } want[] = {
        {"n1", "v100", "v100,gpu", 8, 16000, 4, 0, 0},
        {"n2", "v100", "v100,gpu", 8, 16000, 4, 0, 0},
        {"n3", "a100", "a100,gpu", 16, 32000, 8, 800, 0},
        {"n4", "a100", "a100,gpu", 16, 32000, 8, 0, 32},
    };
    for (size_t i = 0; i < 4; i++) {
        const struct berth__slurm_node *x = find_node(n, k, want[i].name);
        CHECK(x != NULL);
        if (!x)
            continue;
        CHECK_I64(x->state, BERTH_SLURM_NODE_IDLE);
        CHECK(!x->drain && x->responding);
        CHECK_I64(x->cpus, want[i].cpus);
        CHECK_I64(x->memory_mb, want[i].mem);
        CHECK_I64(x->n_gpu_types, 1);
        CHECK_STR(x->gpus[0].type, want[i].type);
        CHECK_I64(x->gpus[0].count, want[i].gpus);
        CHECK_I64(x->gpus[0].used, 0);
        CHECK_I64(x->mps, want[i].mps);
        CHECK_I64(x->shards, want[i].shards);
        CHECK_STR(x->features, want[i].features);
    }
    free(n);
}

static uint32_t gpus_used(const char *node)
{
    struct berth__slurm_node *n;
    size_t k;
    struct berth_err e;
    if (berth__slurm_nodes(S, &n, &k, &e) < 0)
        die_err("nodes", &e);
    const struct berth__slurm_node *x = find_node(n, k, node);
    uint32_t used = x ? x->gpus[0].used : 0;
    free(n);
    return used;
}

static void test_life_cycle(void)
{
    struct berth_err e;
    uint32_t id = submit("berth-life", 2, "a100");
    struct berth__slurm_job j = get(id);
    CHECK_I64(j.state, BERTH_SLURM_JOB_PENDING);
    CHECK(j.held);
    CHECK_I64(j.ask.gpus_per_node, 2);
    CHECK_STR(j.features, "a100"); /* the type travels as a feature (docs/slurm.md) */
    CHECK_I64(j.ask.nodes, 1);
    /* it does not start on its own: three scheduling passes later it still waits */
    sleep_s(3);
    j = get(id);
    CHECK_I64(j.state, BERTH_SLURM_JOB_PENDING);
    CHECK(j.held);
    printf("     job %u held %.0f s: %s (%s)\n", id, 3.0, j.state_name, j.reason);

    /* place-and-release on n4 with two a100 */
    struct berth__slurm_place p = {
        .nodes = "n4", .num_nodes = 1, .features = "a100", .gpus_per_node = 2, .gpu_type = "a100"};
    if (berth__slurm_place(S, id, &p, &e) < 0)
        die_err("place", &e);
    double t = wait_state(id, BERTH_SLURM_JOB_RUNNING, 10);
    CHECK(t >= 0);
    j = get(id);
    CHECK_STR(j.nodes, "n4");
    CHECK_STR(j.features, "a100");
    CHECK_I64(j.ask.gpus_per_node, 2);
    CHECK_I64(gpus_used("n4"), 2);
    printf("     place-and-release -> RUNNING on %s in %.0f ms\n", j.nodes, t * 1e3);

    /* preempt in its first seconds: refused (credential-revoked race) */
    CHECK_I64(berth__slurm_requeue_hold(S, id, &e), BERTH_EAGAIN);
    CHECK_HAS(e.msg, "started");
    sleep_s((double)(BERTH_SLURM_MIN_RUN_US / BERTH_US_PER_S) + 1.2);
    double t0 = now_s();
    if (berth__slurm_requeue_hold(S, id, &e) < 0)
        die_err("requeue_hold", &e);
    t = wait_state(id, BERTH_SLURM_JOB_PENDING, 15);
    CHECK(t >= 0);
    printf("     requeue-and-hold -> PENDING, not completing, in %.0f ms\n", (now_s() - t0) * 1e3);
    j = get(id);
    CHECK(j.held);
    CHECK_I64(j.restarts, 1);
    CHECK_I64(gpus_used("n4"), 0);
    sleep_s(1.5);
    j = get(id);
    CHECK(j.held && j.state == BERTH_SLURM_JOB_PENDING);

    /* the same node right away: refused; another node: runs */
    int rc = berth__slurm_place(S, id, &p, &e);
    if (rc == BERTH_EAGAIN)
        CHECK_HAS(e.msg, "same node");
    else
        CHECK(now_s() - t0 >= (double)BERTH_SLURM_SAME_NODE_GAP_US / BERTH_US_PER_S);
    p.nodes = "n3";
    t0 = now_s();
    if (rc == BERTH_EAGAIN && berth__slurm_place(S, id, &p, &e) < 0)
        die_err("place on n3", &e);
    t = wait_state(id, BERTH_SLURM_JOB_RUNNING, 10);
    CHECK(t >= 0);
    j = get(id);
    CHECK_STR(j.nodes, "n3");
    printf("     requeued job placed on n3 -> RUNNING in %.0f ms (no 121-s wait)\n",
           (now_s() - t0) * 1e3);

    /* resize to two v100 nodes with one GPU each (a requeue with the new size) */
    sleep_s((double)(BERTH_SLURM_MIN_RUN_US / BERTH_US_PER_S) + 1.2);
    struct berth__slurm_place r = {.nodes = "n1,n2",
                                   .num_nodes = 2,
                                   .features = "v100",
                                   .gpus_per_node = 1,
                                   .gpu_type = "v100"};
    t0 = now_s();
    if (berth__slurm_resize(S, id, &r, &e) < 0)
        die_err("resize", &e);
    t = wait_state(id, BERTH_SLURM_JOB_RUNNING, 10);
    CHECK(t >= 0);
    j = get(id);
    CHECK_STR(j.nodes, "n[1-2]");
    CHECK_I64(j.ask.nodes, 2);
    CHECK_STR(j.features, "v100");
    CHECK_I64(j.restarts, 2);
    CHECK_I64(gpus_used("n1") + gpus_used("n2") + gpus_used("n3"), 2);
    printf("     resize 2 x a100 on n3 -> 1 x v100 on n1,n2: RUNNING again in %.0f ms\n",
           (now_s() - t0) * 1e3);

    /* cancel a running job (past its launch: a job cancelled while slurmd still launches it
     * ends only after the KillWait cycle, and a loaded CI machine widens that window), and
     * a held one */
    sleep_s(1.0);
    if (berth__slurm_cancel(S, id, &e) < 0)
        die_err("cancel", &e);
    CHECK(wait_state(id, BERTH_SLURM_JOB_CANCELLED, 30) >= 0);
    uint32_t held = submit("berth-cancel-held", 1, NULL);
    if (berth__slurm_cancel(S, held, &e) < 0)
        die_err("cancel held", &e);
    CHECK(wait_state(held, BERTH_SLURM_JOB_CANCELLED, 10) >= 0);
    /* errors carry Slurm's string */
    CHECK_I64(berth__slurm_cancel(S, 999999, &e), BERTH_EINPUT);
    CHECK_HAS(e.msg, "Invalid job id");
    CHECK(berth__slurm_errno(S) != 0);
    CHECK_I64(berth__slurm_place(S, held, &p, &e), BERTH_EINPUT);
    CHECK_HAS(e.msg, "not pending");
}

/* decision (place-and-release) to RUNNING, fresh held jobs on alternating nodes */
static void test_latency(void)
{
    static const char *const nodes[] = {"n1", "n2", "n3", "n4"};
    static const char *const types[] = {"v100", "v100", "a100", "a100"};
    enum { K = 8 };
    double lat[K], sum = 0, lo = 1e9, hi = 0;
    uint32_t ids[K];
    struct berth_err e;
    /* each job keeps its GPU until the end: a job cancelled right at its launch can stay
     * COMPLETING for many seconds under proctrack/linuxproc and hold its node */
    for (int i = 0; i < K; i++) {
        uint32_t id = submit("berth-latency", 1, types[i % 4]);
        struct berth__slurm_place p = {
            .nodes = nodes[i % 4], .gpus_per_node = 1, .gpu_type = types[i % 4]};
        double t0 = now_s();
        if (berth__slurm_place(S, id, &p, &e) < 0)
            die_err("place", &e);
        double t = wait_state(id, BERTH_SLURM_JOB_RUNNING, 20);
        CHECK(t >= 0);
        lat[i] = now_s() - t0;
        sum += lat[i];
        lo = lat[i] < lo ? lat[i] : lo;
        hi = lat[i] > hi ? lat[i] : hi;
        ids[i] = id;
    }
    sleep_s(1.0); /* past the launch (see above) */
    for (int i = 0; i < K; i++)
        if (berth__slurm_cancel(S, ids[i], &e) < 0)
            die_err("cancel", &e);
    printf("     decision-to-running over %d jobs: min %.0f / avg %.0f / max %.0f ms\n", K,
           lo * 1e3, sum / K * 1e3, hi * 1e3);
}

/* shards: a fraction of one GPU, placed like GPUs */
static void test_shards(void)
{
    struct berth_err e;
    const char *argv[] = {"sleep", "600", NULL};
    struct berth__slurm_submit sub = {
        .name = "berth-shards", .argv = argv, .workdir = WORKDIR, .shards_per_node = 3};
    uint32_t id;
    if (berth__slurm_submit_held(S, &sub, &id, &e) < 0)
        die_err("submit shards", &e);
    CHECK_I64(get(id).ask.shards_per_node, 3);
    struct berth__slurm_place p = {.nodes = "n4", .shards_per_node = 3};
    if (berth__slurm_place(S, id, &p, &e) < 0)
        die_err("place shards", &e);
    CHECK(wait_state(id, BERTH_SLURM_JOB_RUNNING, 10) >= 0);
    CHECK_STR(get(id).nodes, "n4");
    struct berth__slurm_node *n;
    size_t k;
    if (berth__slurm_nodes(S, &n, &k, &e) < 0)
        die_err("nodes", &e);
    const struct berth__slurm_node *x = find_node(n, k, "n4");
    CHECK(x != NULL);
    if (x) {
        CHECK_I64(x->shard_gpus_used, 1); /* one GPU lends the 3 shards */
        CHECK_I64(x->state, BERTH_SLURM_NODE_MIXED);
        printf("     n4 with 3 shards in use: %s, %u of %u CPUs, GRES %s\n", x->state_name,
               x->cpus_used, x->cpus, x->gres);
    }
    free(n);
    /* both GPUs and shards in one request is refused before Slurm sees it */
    p.gpus_per_node = 1;
    CHECK_I64(berth__slurm_place(S, id, &p, &e), BERTH_EINPUT);
    if (berth__slurm_cancel(S, id, &e) < 0)
        die_err("cancel", &e);
}

/* the incremental poll: "no change" once quiet, the full list after a submit */
static void test_poll(void)
{
    struct berth__slurm_job *jobs;
    size_t n;
    bool changed = false;
    struct berth_err e;
    double t0 = now_s();
    int quiet = 0;
    while (now_s() - t0 < 10 && !quiet) {
        if (berth__slurm_jobs_poll(S, &jobs, &n, &changed, &e) < 0)
            die_err("poll", &e);
        quiet = !changed;
        CHECK(changed ? n > 0 : jobs == NULL && n == 0);
        free(jobs);
        sleep_s(0.2);
    }
    CHECK(quiet);
    uint32_t id = submit("berth-poll", 1, NULL);
    if (berth__slurm_jobs_poll(S, &jobs, &n, &changed, &e) < 0)
        die_err("poll", &e);
    CHECK(changed);
    int seen = 0;
    for (size_t i = 0; i < n; i++)
        seen |= jobs[i].id == id && jobs[i].held;
    CHECK(seen);
    free(jobs);
    if (berth__slurm_cancel(S, id, &e) < 0)
        die_err("cancel", &e);
}

static void test_open(void)
{
    CHECK(S != NULL);
    CHECK(berth__slurm_built());
}

static const struct check_test tests[] = {
    {"open", test_open},       {"nodes", test_nodes},   {"life_cycle", test_life_cycle},
    {"latency", test_latency}, {"shards", test_shards}, {"poll", test_poll},
};

static int bench(uint32_t n)
{
    struct berth_err e;
    double t0 = now_s();
    for (uint32_t i = 0; i < n; i++)
        submit("berth-bench", 1, "v100");
    double submit_s = now_s() - t0;
    double best = 1e9;
    size_t k = 0, held = 0;
    for (int r = 0; r < 3; r++) {
        struct berth__slurm_job *jobs;
        t0 = now_s();
        if (berth__slurm_jobs(S, &jobs, &k, &e) < 0)
            die_err("jobs", &e);
        double t = now_s() - t0;
        best = t < best ? t : best;
        held = 0;
        for (size_t i = 0; i < k; i++)
            held += jobs[i].held && !strcmp(jobs[i].name, "berth-bench");
        free(jobs);
    }
    printf("bench: submitted %u held jobs in %.1f s (%.2f ms each); reading all %zu jobs: "
           "best of 3 %.0f ms (%.1f us/job); %zu of them held\n",
           n, submit_s, submit_s / n * 1e3, k, best * 1e3, best / (double)k * 1e6, held);
    return held == n ? 0 : 1;
}

/* bench/slurm_rest.sh: the seconds each of K holds of jobs FIRST.. takes, one a line (one
 * update RPC each, in one process as berthd makes them) */
static int bench_hold(uint32_t first, int k)
{
    struct berth_err e;
    for (int i = 0; i < k; i++) {
        double t0 = now_s();
        if (berth__slurm_hold(S, first + (uint32_t)i, &e) < 0) {
            fprintf(stderr, "slurm_api_test: %s\n", e.msg);
            return 1;
        }
        printf("%.6f\n", now_s() - t0);
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct berth_err e;
    if (argc < 3) {
        fprintf(stderr,
                "usage: slurm_api_test all|bench WORKDIR [N] | place ID NODE GPUS TYPE | hold ID | "
                "bench-hold FIRST K\n");
        return 2;
    }
    if (berth__slurm_open(&S, NULL, &e) < 0)
        die_err("open", &e);
    int rc;
    if (!strcmp(argv[1], "all")) {
        WORKDIR = argv[2];
        rc = check_main(1, argv, tests, sizeof tests / sizeof *tests);
    } else if (!strcmp(argv[1], "bench") && argc == 4) {
        WORKDIR = argv[2];
        rc = bench((uint32_t)strtoul(argv[3], NULL, 10));
    } else if (!strcmp(argv[1], "hold") && argc == 3) {
        rc = berth__slurm_hold(S, (uint32_t)strtoul(argv[2], NULL, 10), &e);
        if (rc < 0)
            fprintf(stderr, "slurm_api_test: %s\n", e.msg);
        rc = rc < 0;
    } else if (!strcmp(argv[1], "bench-hold") && argc == 4) {
        rc = bench_hold((uint32_t)strtoul(argv[2], NULL, 10), atoi(argv[3]));
    } else if (!strcmp(argv[1], "place") && argc == 6) {
        struct berth__slurm_place p = {.nodes = argv[3],
                                       .gpus_per_node = (uint32_t)strtoul(argv[4], NULL, 10),
                                       .gpu_type = argv[5]};
        rc = berth__slurm_place(S, (uint32_t)strtoul(argv[2], NULL, 10), &p, &e);
        if (rc < 0)
            fprintf(stderr, "slurm_api_test: %s\n", e.msg);
        rc = rc < 0;
    } else {
        fprintf(stderr, "slurm_api_test: bad arguments\n");
        rc = 2;
    }
    berth__slurm_close(S);
    return rc;
}
