/* Topology through the whole simulator: EASY backfill's reservation inside one rack
 * (sched/reserve_topo.c) against the per-type count, hand-computed; the reason Topology;
 * and, for every policy, random workloads with required levels and tensor parallelism on
 * clusters with a topology run to the end under the invariant checks (which verify that no
 * running job leaves its required level's domain and that tp groups stay on one server).
 * The levels and tp come in the native trace's columns topology, topology_preferred, tp. */
#include "engine/engine.h"
#include "model/topo.h"
#include "simtest.h"
#include "util/rng.h"

/* 4x8:h100,racks=2 (rack0 = servers 0, 1; rack1 = 2, 3). At 0 the topology placement puts
 * A (8 GPUs, 100 s) on server 0, A2 (4, 100 s) on 1, B (6, 1000 s) on 2 and C (8, 100 s)
 * on 3, each required on one node; H (16, required rack) finds no rack with 16 idle (rack0
 * 4, rack1 2) and is the reserved head; X (4 GPUs, 500 s) would run past the reservation.
 *   per-type count: idle 6 + A 8 + A2 4 + C 8 at 100 s: T = 100 s with 10 GPUs to spare,
 *     so X starts at 0 on the tightest server that holds it, server 1 (rack0). At 100 s
 *     rack0 has 12 idle, rack1 10: H waits for X's end, 500 s.
 *   topology: rack0 has 4 idle + 12 at 100 s (T = 100 s, none to spare), rack1 reaches 16
 *     only at 1000 s: the reservation is rack0. X may start only outside it (server 2's 2
 *     idle: no), waits, and H starts at 100 s on servers 0 and 1; X then at 100 s too. */
static void backfill_rack(void)
{
    static const char csv[] = "job_id,arrival_s,duration_s,num_gpus,topology\n"
                              "A,0,100,8,node\nA2,0,100,4,node\nB,0,1000,6,node\nC,0,100,8,node\n"
                              "H,0,1000,16,rack\nX,0,500,4,\n";
    static const struct {
        const char *settings;
        double h, x;
    } cases[] = {{"backfill_topology=0", 500, 0}, {NULL, 100, 100}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct berth_sim_opts o;
        berth_sim_opts_init(&o);
        o.policy = "backfill";
        o.policy_settings = cases[i].settings;
        struct simtest st;
        struct berth_err err = {0};
        int rc = simtest_run_opts(csv, "4x8:h100,racks=2", &o, &st, &err);
        CHECK_I64(rc, 0);
        if (rc) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        CHECK_DBL((double)simtest_job(&st.r, "H")->first_start_us / 1e6, cases[i].h, 1e-9);
        CHECK_DBL((double)simtest_job(&st.r, "X")->first_start_us / 1e6, cases[i].x, 1e-9);
        CHECK_DBL((double)simtest_job(&st.r, "A")->first_start_us / 1e6, 0, 1e-9);
        simtest_free(&st);
    }
    /* without a topology the setting changes nothing: H (16 GPUs anywhere) starts at 0 */
    static const char flat[] = "job_id,arrival_s,duration_s,num_gpus,topology\n"
                               "A,0,100,8,node\nA2,0,100,4,node\nB,0,1000,6,node\n"
                               "C,0,100,8,node\nH,0,1000,16,rack\n";
    double h[2];
    for (int k = 0; k < 2; k++) {
        struct berth_sim_opts o;
        berth_sim_opts_init(&o);
        o.policy = "backfill";
        o.policy_settings = k ? "backfill_topology=0" : NULL;
        struct simtest st;
        struct berth_err err = {0};
        CHECK_I64(simtest_run_opts(flat, "6x8:h100", &o, &st, &err), 0);
        h[k] = st.t ? (double)simtest_job(&st.r, "H")->first_start_us : -1;
        if (st.t)
            simtest_free(&st);
    }
    CHECK_DBL(h[0], h[1], 0);
}

/* A job that waits for its rack alone says Topology (engine why, whatever the policy). */
static void reason_topology(void)
{
    static const char csv[] = "job_id,arrival_s,duration_s,num_gpus,topology\n"
                              "a,0,100,4,node\nb,0,100,4,node\nH,0,100,16,rack\n";
    struct berth_cluster *c = NULL;
    struct berth_trace *t = NULL;
    struct berth_err err = {0};
    const char *path = simtest_write(csv);
    CHECK_I64(berth_cluster_parse("4x8:h100,racks=2", &c, &err), 0);
    CHECK_I64(berth_trace_load(path, "native", &t, &err), 0);
    unlink(path);
    if (!c || !t)
        return;
    const struct berth_jobspec *js = berth_trace_jobs(t); /* a on server 0 (rack0) */
    for (size_t p = 0; p < berth_policy_count(); p++) {
        const char *pol = berth_policy_name(p);
        if (!strncmp(pol, "salus-", 6))
            continue;
        struct berth__engine *e = NULL;
        struct berth_sim_opts o;
        berth_sim_opts_init(&o);
        struct berth__params params = {
            .seed = o.seed, .quantum_us = o.quantum_us, .round_us = o.round_us, .settings = ""};
        CHECK_I64(berth__engine_create(c, pol, NULL, &params, NULL, &e, &err), 0);
        if (!e)
            continue;
        uint32_t idx;
        for (size_t i = 0; i < 3; i++)
            CHECK_I64(berth__engine_add(e, &js[i], &idx, &err), 0);
        /* a and b first, then H: a takes server 0 (4 idle left), b the best fit, server 0
         * again: rack0 8 idle, rack1 16 */
        CHECK_I64(berth__engine_arrive(e, 0, 0, &err), 0);
        CHECK_I64(berth__engine_arrive(e, 1, 0, &err), 0);
        CHECK_I64(berth__engine_pass(e, 0, &err), 0);
        /* now take rack1 down to 12 idle by hand: 4 GPUs of server 2 held out */
        berth__cluster_hold_out(e->cluster, 2, 4);
        CHECK_I64(berth__engine_arrive(e, 2, 0, &err), 0);
        CHECK_I64(berth__engine_pass(e, 0, &err), 0);
        struct berth__why w;
        berth__engine_why(e, 2, 0, &w);
        if (e->jobs[2].state == BERTH_JOB_PENDING) {
            if (w.code != BERTH_WHY_TOPOLOGY)
                fprintf(stderr, "  %s: reason %d\n", pol, w.code);
            CHECK_I64(w.code, BERTH_WHY_TOPOLOGY);
        } else {
            fprintf(stderr, "  %s started H\n", pol);
            CHECK(0);
        }
        berth__engine_destroy(e);
    }
    berth_trace_free(t);
    berth_cluster_free(c);
}

/* A random workload whose required levels each cluster can hold (island of isl GPUs,
 * servers of 8, racks of rack GPUs, blocks of block GPUs, 0: none), tp dividing the gang. */
static char *random_topo(uint64_t seed, int n, int isl, int rack, int block)
{
    struct berth__rng r;
    berth__rng_seed(&r, seed);
    size_t cap = (size_t)n * 80 + 128, len = 0;
    char *s = malloc(cap);
    len +=
        (size_t)snprintf(s + len, cap - len,
                         "job_id,arrival_s,duration_s,num_gpus,topology,topology_preferred,tp\n");
    static const int gangs[] = {1, 2, 2, 4, 4, 8, 8, 12, 16, 24};
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += berth__rng_unit(&r) < 0.3 ? 0 : berth__rng_exp(&r, 1.0 / 60);
        int g = gangs[berth__rng_below(&r, 10)];
        int most = block ? block : rack ? rack : 8;
        if (g > most)
            g = most;
        int lv = (int)berth__rng_below(&r, 6) - 1; /* -1: none, else a level to 4 */
        int fits = lv < 0 || lv == BERTH_TOPO_CLUSTER || (lv == BERTH_TOPO_NVLINK && g <= isl) ||
                   (lv == BERTH_TOPO_NODE && g <= 8) ||
                   (lv == BERTH_TOPO_RACK && rack && g <= rack) ||
                   (lv == BERTH_TOPO_BLOCK && block && g <= block);
        int pref = berth__rng_below(&r, 4) == 0;
        const char *req = "", *prf = "";
        if (lv >= 0 && fits && !pref)
            req = berth__topo_level_name(lv);
        else if (lv >= 0)
            prf = berth__topo_level_name(lv);
        static const int tps[] = {0, 0, 2, 4, 8};
        int tp = tps[berth__rng_below(&r, 5)];
        if (!tp || g % tp)
            tp = 1;
        double d = 1 + berth__rng_unit(&r) * 900;
        len += (size_t)snprintf(s + len, cap - len, "j%d,%.3f,%.3f,%d,%s,%s,%d\n", i, t, d, g, req,
                                prf, tp);
    }
    return s;
}

static void all_policies(void)
{
    static const struct {
        const char *cluster;
        int isl, rack, block;
    } clusters[] = {{"8x8:h100,racks=4,blocks=2", 8, 16, 32}, {"4x8:h100,racks=2,nvl=4", 4, 16, 0}};
    enum { N = 250 };
    for (size_t k = 0; k < sizeof clusters / sizeof *clusters; k++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            char *csv = random_topo(seed, N, clusters[k].isl, clusters[k].rack, clusters[k].block);
            for (size_t p = 0; p < berth_policy_count(); p++) {
                const char *pol = berth_policy_name(p);
                if (!strncmp(pol, "salus-", 6))
                    continue; /* 1-GPU jobs only */
                struct berth_sim_opts o;
                berth_sim_opts_init(&o);
                o.policy = pol;
                struct simtest st;
                struct berth_err err = {0};
                int rc = simtest_run_opts(csv, clusters[k].cluster, &o, &st, &err);
                CHECK_I64(rc, 0);
                if (rc) {
                    fprintf(stderr, "  %s on %s seed %llu: %s\n", pol, clusters[k].cluster,
                            (unsigned long long)seed, err.msg);
                    continue;
                }
                CHECK_I64(st.r.summary.completed, N);
                simtest_free(&st);
            }
            free(csv);
        }
}

static const struct check_test tests[] = {
    {"backfill_rack", backfill_rack},
    {"reason_topology", reason_topology},
    {"all_policies", all_policies},
};

CHECK_MAIN(tests)
