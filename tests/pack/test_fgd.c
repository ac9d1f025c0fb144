/* Tests for FGD packing (src/sched/frag.c, fgd.c, pack.c): the fragmentation measure and
 * the FGD score worked out by hand on a 2-GPU node, each baseline's choice on a 2-server
 * cluster, determinism with a seed, no over-commitment on a generated case, and an
 * end-to-end run on the openb traces of $BERTH_SHARED (skipped when absent). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/pack.h"
#include "check.h"
#include "model/alloc.h"
#include "pack/fgd.h"
#include "jobspec_make.h"
#include "tmpfile.h"

static struct berth_cluster *cluster(const char *spec)
{
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_cluster_parse(spec, &c, &err), 0);
    if (c)
        CHECK_I64(berth__cluster_enable_shares(c), 0);
    return c;
}

static struct berth_jobspec spec(int32_t gpus, int32_t milli, int64_t cpu)
{
    struct berth_jobspec s;
    memset(&s, 0, sizeof s);
    s.id = "p";
    s.duration_us = 1;
    s.num_gpus = s.min_gpus = s.max_gpus = gpus;
    s.gpu_share_milli = milli;
    jobspec_x(&s)->cpu_milli = cpu;
    jobspec_x(&s)->job_type = jobspec_x(&s)->user = s.queue = jobspec_x(&s)->status =
        jobspec_x(&s)->gpu_type = "";
    s.single_server = 1;
    return s;
}

/* Charges a sharing pod of `milli` to GPU g of server s (j and its slot must outlive c's use). */
static void hold(struct berth_cluster *c, struct berth__job *j, struct berth__slot *sl,
                 const struct berth_jobspec *sp, uint32_t s, uint32_t g)
{
    CHECK_I64(berth__job_init(j, sp, 0, c), 0);
    j->slots = sl;
    sl->server = s;
    sl->gpu = g;
    berth__alloc_take(c, j);
}

/* M = {A: one GPU x 600 milli, 3 pods -> p 0.75; B: 2 whole GPUs, 1 pod -> p 0.25}. */
static void workload_ab(struct berth_cluster *c, struct berth__frag_workload *w)
{
    static struct berth_jobspec a, b;
    a = spec(1, 600, 0);
    b = spec(2, 1000, 0);
    struct berth__job jobs[4];
    for (int i = 0; i < 4; i++)
        CHECK_I64(berth__job_init(&jobs[i], i < 3 ? &a : &b, (uint32_t)i, c), 0);
    CHECK_I64(berth__frag_workload_build(jobs, 4, 100, w), 0);
    CHECK_I64(w->n, 2);
    CHECK_DBL(w->t[0].p, 0.75, 1e-12);
    CHECK_I64(w->t[0].milli, 600);
    CHECK_DBL(w->t[1].p, 0.25, 1e-12);
    CHECK_I64(w->t[1].gpus, 2);
}

static void test_measure_golden(void)
{
    struct berth_cluster *c = cluster("1x2:t");
    struct berth__frag_workload w;
    workload_ab(c, &w);
    struct berth__frag_node v;
    /* idle node, left [1000, 1000]: A fits (no GPU below 600 -> 0), B fits (0): F = 0 */
    berth__frag_node_view(c, 0, &v);
    CHECK_DBL(berth__frag_node(&w, &v), 0.0, 1e-9);
    /* a 500 pod on GPU 1, left [1000, 500], idle 1500:
     *   A fits on GPU 0; GPU 1's 500 < 600 is fragment:      f = 500
     *   B needs two whole GPUs, one is left: all idle counts: f = 1500
     *   F = 0.75 * 500 + 0.25 * 1500 = 750 */
    struct berth_jobspec p500 = spec(1, 500, 0);
    struct berth__job j;
    struct berth__slot sl;
    hold(c, &j, &sl, &p500, 0, 1);
    berth__frag_node_view(c, 0, &v);
    CHECK_I64(v.left[0], 1000);
    CHECK_I64(v.left[1], 500);
    CHECK_DBL(berth__frag_node(&w, &v), 750.0, 1e-9);
    /* a CPU-only type counts all idle GPU milli (the simulator's "XL" class): adding it with
     * p = 1 makes F = idle = 1500 */
    struct berth__frag_type cpu = {1000, 0, 0, 0, 1.0, 1};
    struct berth__frag_workload wc = {&cpu, 1, 1};
    CHECK_DBL(berth__frag_node(&wc, &v), 1500.0, 1e-9);
    /* too little CPU for A: A's whole idle milli counts too */
    v.cpu_left = 0;
    struct berth__frag_type a_cpu = {4000, 600, 1, 0, 1.0, 1};
    struct berth__frag_workload wa = {&a_cpu, 1, 1};
    CHECK_DBL(berth__frag_node(&wa, &v), 1500.0, 1e-9);
    berth__frag_workload_free(&w);
    berth_cluster_free(c);
}

static void test_fgd_score_golden(void)
{
    /* node left [1000, 500], F = 750 (above); a pod of 200:
     *   on GPU 0 -> [800, 500]: A fits GPU 0, f_A = 500; f_B = 1300; F = 375 + 325 = 700,
     *               delta -50
     *   on GPU 1 -> [1000, 300]: f_A = 300; f_B = 1300; F = 225 + 325 = 550, delta -200
     * FGD takes GPU 1. */
    struct berth_cluster *c = cluster("1x2:t");
    struct berth__frag_workload w;
    workload_ab(c, &w);
    struct berth_jobspec p500 = spec(1, 500, 0), p200 = spec(1, 200, 0);
    struct berth__job j, k;
    struct berth__slot sl;
    hold(c, &j, &sl, &p500, 0, 1);
    struct berth__frag_node v;
    berth__frag_node_view(c, 0, &v);
    double now = berth__frag_node(&w, &v);
    CHECK_DBL(now, 750.0, 1e-9);
    CHECK_I64(berth__job_init(&k, &p200, 1, c), 0);
    struct berth__score_ctx x = {BERTH_SCORER_FGD, &w, &now, NULL};
    struct berth__pick pk;
    CHECK_I64(berth__pack_choose(&x, c, &k, &pk), 0);
    CHECK_I64(pk.server, 0);
    CHECK_I64(pk.gpu, 1);
    v.left[1] -= 200;
    CHECK_DBL(berth__frag_node(&w, &v) - now, -200.0, 1e-9);
    v.left[1] += 200;
    v.left[0] -= 200;
    CHECK_DBL(berth__frag_node(&w, &v) - now, -50.0, 1e-9);
    /* fgd-k8s scores GPU 1 int(100 / (1 + e^-0.2)) = 54 and GPU 0 int(100 / (1 + e^-0.05))
     * = 51: it takes GPU 1 as well */
    struct berth__rng r;
    berth__rng_seed(&r, 1);
    struct berth__score_ctx xk = {BERTH_SCORER_FGD_K8S, &w, &now, &r};
    CHECK_I64(berth__pack_choose(&xk, c, &k, &pk), 0);
    CHECK_I64(pk.server, 0);
    CHECK_I64(pk.gpu, 1);
    berth__frag_workload_free(&w);
    berth_cluster_free(c);
}

/* Two servers of 2 GPUs; server 0 has 200 used on GPU 1 (left [1000, 800]), server 1 idle.
 * M = {one GPU x 700}. A pod of 300:
 *   first-fit    server 0, GPU 0 (first that fits)
 *   best-fit     server 0 (1800 left < 2000), tightest GPU 1
 *   dot-product  server 0 (1800 x 300 < 2000 x 300), tightest GPU 1
 *   fgd          server 0 GPU 1 -> [1000, 500]: 500 < 700 is lost, delta +500;
 *                server 0 GPU 0 -> [700, 800]: delta 0; server 1 -> [700, 1000]: delta 0;
 *                the tie goes to server 0, GPU 0 */
static void test_baselines(void)
{
    struct berth_cluster *c = cluster("2x2:t");
    struct berth_jobspec p200 = spec(1, 200, 0), p300 = spec(1, 300, 0), p700 = spec(1, 700, 0);
    struct berth__job j, k, m;
    struct berth__slot sl;
    hold(c, &j, &sl, &p200, 0, 1);
    CHECK_I64(berth__job_init(&m, &p700, 0, c), 0);
    struct berth__frag_workload w;
    CHECK_I64(berth__frag_workload_build(&m, 1, 95, &w), 0);
    double now[2];
    for (uint32_t s = 0; s < 2; s++) {
        struct berth__frag_node v;
        berth__frag_node_view(c, s, &v);
        now[s] = berth__frag_node(&w, &v);
        CHECK_DBL(now[s], 0.0, 1e-9);
    }
    CHECK_I64(berth__job_init(&k, &p300, 1, c), 0);
    static const struct {
        int scorer;
        int32_t server, gpu;
    } want[] = {{BERTH_SCORER_FIRST_FIT, 0, 0},
                {BERTH_SCORER_BEST_FIT, 0, 1},
                {BERTH_SCORER_DOT_PRODUCT, 0, 1},
                {BERTH_SCORER_FGD, 0, 0}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        struct berth__score_ctx x = {want[i].scorer, &w, now, NULL};
        struct berth__pick pk = {-1, -1};
        CHECK_I64(berth__pack_choose(&x, c, &k, &pk), 0);
        if (pk.server != want[i].server || pk.gpu != want[i].gpu)
            fprintf(stderr, "  scorer %s\n", berth__scorer_name(want[i].scorer));
        CHECK_I64(pk.server, want[i].server);
        CHECK_I64(pk.gpu, want[i].gpu);
    }
    /* random: a feasible pick, the same for the same seed, and both servers over seeds */
    int seen[2] = {0, 0};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        struct berth__rng r1, r2;
        berth__rng_seed(&r1, seed);
        berth__rng_seed(&r2, seed);
        struct berth__score_ctx x1 = {BERTH_SCORER_RANDOM, &w, now, &r1};
        struct berth__score_ctx x2 = {BERTH_SCORER_RANDOM, &w, now, &r2};
        struct berth__pick a, b;
        CHECK_I64(berth__pack_choose(&x1, c, &k, &a), 0);
        CHECK_I64(berth__pack_choose(&x2, c, &k, &b), 0);
        CHECK_I64(a.server, b.server);
        CHECK_I64(a.gpu, b.gpu);
        CHECK(a.server >= 0 && a.server < 2 && a.gpu >= 0 && a.gpu < 2);
        seen[a.server] = 1;
    }
    CHECK(seen[0] && seen[1]);
    /* fgd-k8s: both servers' best delta is 0 -> int(100 sigmoid(0)) = 50 on each: a tie,
     * broken at random (both servers over seeds), on the exact FGD's GPU (GPU 0 of server 0,
     * either GPU of the idle server 1) */
    int seen_k8s[2] = {0, 0};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        struct berth__rng r;
        berth__rng_seed(&r, seed);
        struct berth__score_ctx xk = {BERTH_SCORER_FGD_K8S, &w, now, &r};
        struct berth__pick a = {-1, -1};
        CHECK_I64(berth__pack_choose(&xk, c, &k, &a), 0);
        CHECK(a.server >= 0 && a.server < 2);
        if (a.server == 0)
            CHECK_I64(a.gpu, 0);
        seen_k8s[a.server & 1] = 1;
    }
    CHECK(seen_k8s[0] && seen_k8s[1]);
    /* a pod too big for every GPU fits nowhere */
    struct berth_jobspec p900 = spec(3, 1000, 0);
    struct berth__job big;
    CHECK_I64(berth__job_init(&big, &p900, 2, c), 0);
    struct berth__score_ctx x = {BERTH_SCORER_BEST_FIT, &w, now, NULL};
    struct berth__pick pk;
    CHECK_I64(berth__pack_choose(&x, c, &big, &pk), 1);
    berth__frag_workload_free(&w);
    berth_cluster_free(c);
}

/* A generated openb-like case: 12 nodes (8, 4 and 2 GPUs, CPU and memory), 100 pods mixing
 * shares, whole GPUs and CPU-only pods, asking about 1.3 x the GPUs. */
static void generated(struct tmp *t, const char **nodes, const char **pods)
{
    char buf[32768];
    size_t o = 0;
    o += (size_t)snprintf(buf + o, sizeof buf - o, "sn,cpu_milli,memory_mib,gpu,model\n");
    for (int i = 0; i < 12; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "n%d,%d,%d,%d,%s\n", i,
                              32000 + 16000 * (i % 3), 131072,
                              i % 3 == 0   ? 8
                              : i % 3 == 1 ? 4
                                           : 2,
                              i % 2 ? "t4" : "v100");
    *nodes = strdup(tmp_write(t, "nodes.csv", buf));
    struct berth__rng r;
    berth__rng_seed(&r, 7);
    o = 0;
    o += (size_t)snprintf(buf + o, sizeof buf - o, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n");
    for (int i = 0; i < 100; i++) {
        int kind = (int)berth__rng_below(&r, 10);
        int gpus = kind < 6 ? 1 : kind < 8 ? (int)(1u << berth__rng_below(&r, 3)) : 0;
        int milli = kind < 6 ? 100 * (1 + (int)berth__rng_below(&r, 9)) : gpus ? 1000 : 0;
        o += (size_t)snprintf(buf + o, sizeof buf - o, "p%d,%d,%d,%d,%d\n", i,
                              1000 * (1 + (int)berth__rng_below(&r, 12)),
                              1024 * (1 + (int)berth__rng_below(&r, 16)), gpus, milli);
    }
    *pods = strdup(tmp_write(t, "pods.csv", buf));
}

static void test_seed_determinism(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *nodes, *pods;
    generated(&t, &nodes, &pods);
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    struct berth_trace *tr = NULL;
    CHECK_I64(berth_cluster_parse(nodes, &c, &err), 0);
    CHECK_I64(berth_trace_load(pods, "openb", &tr, &err), 0);
    if (c && tr) {
        for (int s = 0; s < BERTH_SCORER_COUNT; s++) {
            struct berth_pack_opts o;
            berth_pack_opts_init(&o);
            o.scorer = berth__scorer_name(s);
            o.shuffle = 1;
            o.seed = 42;
            struct berth_pack_result a, b, d;
            CHECK_I64(berth_pack_run(tr, c, &o, &a, &err), 0);
            CHECK_I64(berth_pack_run(tr, c, &o, &b, &err), 0);
            o.seed = 43;
            CHECK_I64(berth_pack_run(tr, c, &o, &d, &err), 0);
            CHECK_I64(a.npoints, b.npoints);
            CHECK(a.npoints > 0 && !memcmp(a.points, b.points, a.npoints * sizeof *a.points));
            CHECK_I64(a.placed + a.failed, 100);
            CHECK(a.failed > 0); /* 1.3 x capacity asked */
            CHECK(a.has_first_fail && a.first.tried <= a.end.tried);
            CHECK(a.end.allocated <= a.capacity + 1e-9);
            /* another seed, another order: some checkpoint differs */
            CHECK(a.npoints != d.npoints ||
                  memcmp(a.points, d.points, a.npoints * sizeof *a.points));
            berth_pack_result_free(&a);
            berth_pack_result_free(&b);
            berth_pack_result_free(&d);
        }
        /* unknown scorer */
        struct berth_pack_opts o;
        berth_pack_opts_init(&o);
        o.scorer = "worst-fit";
        struct berth_pack_result r;
        CHECK_I64(berth_pack_run(tr, c, &o, &r, &err), BERTH_EINPUT);
        CHECK_HAS(err.msg, "unknown scorer 'worst-fit'");
    }
    berth_trace_free(tr);
    berth_cluster_free(c);
    free((void *)nodes);
    free((void *)pods);
    tmp_close(&t);
}

/* Every scorer, pod by pod on the generated case: no GPU above 1000 milli, CPU and memory
 * never below zero, the cluster's counters consistent. */
static void test_no_overcommit(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *nodes, *pods;
    generated(&t, &nodes, &pods);
    struct berth_err err = {0};
    struct berth_trace *tr = NULL;
    CHECK_I64(berth_trace_load(pods, "openb", &tr, &err), 0);
    for (int sc = 0; tr && sc < BERTH_SCORER_COUNT; sc++) {
        struct berth_cluster *c = NULL;
        CHECK_I64(berth_cluster_parse(nodes, &c, &err), 0);
        CHECK_I64(berth__cluster_enable_shares(c), 0);
        size_t n = berth_trace_count(tr);
        struct berth__job *jobs = calloc(n, sizeof *jobs);
        struct berth__slot *slots = calloc(n * 8, sizeof *slots);
        struct berth__frag_workload w;
        for (size_t i = 0; i < n; i++) {
            CHECK_I64(berth__job_init(&jobs[i], &berth_trace_jobs(tr)[i], (uint32_t)i, c), 0);
            jobs[i].slots = slots + 8 * i;
        }
        CHECK_I64(berth__frag_workload_build(jobs, n, 95, &w), 0);
        double *now = calloc(c->nsrv, sizeof *now);
        for (uint32_t s = 0; s < c->nsrv; s++) {
            struct berth__frag_node v;
            berth__frag_node_view(c, s, &v);
            now[s] = berth__frag_node(&w, &v);
        }
        struct berth__rng rng;
        berth__rng_seed(&rng, 5);
        struct berth__score_ctx x = {sc, &w, now, &rng};
        size_t placed = 0;
        for (size_t i = 0; i < n; i++) {
            struct berth__job *j = &jobs[i];
            struct berth__pick pk;
            if (berth__pack_choose(&x, c, j, &pk))
                continue;
            CHECK(berth__frag_feasible(c, (uint32_t)pk.server, j));
            uint64_t m = c->srv[pk.server].free_mask;
            for (int32_t k = 0; k < berth__job_nslots(j); k++) {
                uint32_t g = j->gpus == 0      ? BERTH_NO_GPU
                             : j->share < 1000 ? (uint32_t)pk.gpu
                                               : (uint32_t)__builtin_ctzll(m);
                if (j->gpus && j->share >= 1000)
                    m &= m - 1;
                j->slots[k] = (struct berth__slot){(uint32_t)pk.server, g};
            }
            CHECK(berth__alloc_can_take(c, j, j->slots));
            berth__alloc_take(c, j);
            placed++;
            struct berth__frag_node v;
            berth__frag_node_view(c, (uint32_t)pk.server, &v);
            now[pk.server] = berth__frag_node(&w, &v);
            const struct berth__server *sv = &c->srv[pk.server];
            CHECK(sv->cpu_free >= 0 && sv->mem_free >= 0);
            for (int g = 0; g < sv->ngpus; g++)
                CHECK(sv->shares->used[g] <= 1000);
        }
        CHECK(placed > 40);
        CHECK_I64(berth__cluster_verify(c, &err), 0);
        berth__frag_workload_free(&w);
        free(now);
        free(jobs);
        free(slots);
        berth_cluster_free(c);
    }
    berth_trace_free(tr);
    free((void *)nodes);
    free((void *)pods);
    tmp_close(&t);
}

static void test_openb_end_to_end(void)
{
    const char *shared = getenv("BERTH_SHARED");
    char nodes[512], pods[512];
    if (!shared) {
        printf("SKIP BERTH_SHARED not set, openb packing skipped\n");
        return;
    }
    snprintf(nodes, sizeof nodes, "%s/traces/alibaba-openb-2023/openb_node_list_gpu_node.csv",
             shared);
    snprintf(pods, sizeof pods, "%s/traces/alibaba-openb-2023/openb_pod_list_default.csv", shared);
    if (access(nodes, R_OK) || access(pods, R_OK)) {
        printf("SKIP openb traces not in %s, skipped\n", shared);
        return;
    }
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    struct berth_trace *tr = NULL;
    CHECK_I64(berth_cluster_parse(nodes, &c, &err), 0);
    CHECK_I64(berth_trace_load(pods, "openb", &tr, &err), 0);
    if (!c || !tr)
        return;
    CHECK_I64(berth_cluster_gpus(c), 6212);
    double end[2];
    const char *names[2] = {"fgd", "best-fit"};
    for (int i = 0; i < 2; i++) {
        struct berth_pack_opts o;
        berth_pack_opts_init(&o);
        o.scorer = names[i];
        struct berth_pack_result r;
        CHECK_I64(berth_pack_run(tr, c, &o, &r, &err), 0);
        CHECK_I64(r.pods, 8152);
        CHECK_I64(r.placed + r.failed, 8152);
        CHECK(r.placed > 7500);
        CHECK(r.npoints >= 97 && r.points[0].pct == 1);
        for (size_t k = 1; k < r.npoints; k++)
            CHECK(r.points[k].allocated >= r.points[k - 1].allocated);
        end[i] = r.end.allocated;
        berth_pack_result_free(&r);
    }
    /* measured: fgd 5765.8 GPUs, best-fit 5676.4 in trace order */
    CHECK(end[0] > end[1]);
    berth_trace_free(tr);
    berth_cluster_free(c);
}

static const struct check_test tests[] = {
    {"measure_golden", test_measure_golden}, {"fgd_score_golden", test_fgd_score_golden},
    {"baselines", test_baselines},           {"seed_determinism", test_seed_determinism},
    {"no_overcommit", test_no_overcommit},   {"openb_end_to_end", test_openb_end_to_end},
};

CHECK_MAIN(tests)
