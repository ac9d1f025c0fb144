/* Property tests of the simulator on random workloads: for every policy and placement, on a
 * heterogeneous cluster with GPU-type and single-server constraints, no GPU is ever
 * over-committed (the engine re-verifies every GPU after every pass), every job finishes
 * exactly once after running exactly its duration, JCT >= duration, the time series never
 * shows more busy GPUs than exist, and two runs give identical results. */
#include "simtest.h"
#include "util/rng.h"

#define CLUSTER "3x4:v100,2x8:p100,4x2:k80"

/* A random trace: bursts of arrivals, gangs of 1-8 GPUs (some constrained to a type or to
 * one server), durations from 1 s to 3 h with sub-second parts. */
static char *random_trace(uint64_t seed, int n)
{
    struct berth__rng r;
    berth__rng_seed(&r, seed);
    size_t cap = (size_t)n * 80 + 128, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len,
                            "job_id,arrival_s,duration_s,num_gpus,gpu_type,single_server\n");
    double t = 0;
    static const int gangs[] = {1, 1, 1, 1, 2, 2, 3, 4, 4, 8};
    static const char *types[] = {"", "", "", "", "v100", "p100", "k80"};
    for (int i = 0; i < n; i++) {
        t += berth__rng_unit(&r) < 0.3 ? 0 : berth__rng_exp(&r, 1.0 / 120);
        int g = gangs[berth__rng_below(&r, 10)];
        const char *ty = types[berth__rng_below(&r, 7)];
        if (!strcmp(ty, "k80") && g > 2 * 4)
            g = 8;
        int single = g <= 2 && berth__rng_unit(&r) < 0.3;
        double d = 1 + berth__rng_unit(&r) * (berth__rng_unit(&r) < 0.2 ? 10800 : 900);
        len += (size_t)snprintf(s + len, cap - len, "j%d,%.3f,%.6f,%d,%s,%d\n", i, t, d, g, ty,
                                single);
    }
    return s;
}

static void check_run(const struct simtest *st, int32_t total_gpus)
{
    const struct berth_sim_result *r = &st->r;
    CHECK_I64(r->summary.completed, r->njobs);
    CHECK_I64(r->njobs, berth_trace_count(st->t));
    for (size_t i = 0; i < r->njobs; i++) {
        const struct berth_job_result *j = &r->jobs[i];
        CHECK(j->first_start_us >= j->spec->arrival_us);
        CHECK(j->finish_us - j->spec->arrival_us >= j->spec->duration_us);
        CHECK_I64(j->run_us, j->spec->duration_us);
        CHECK(j->preemptions >= 0);
        if (i > 0) /* results are in arrival order */
            CHECK(r->jobs[i - 1].spec->arrival_us <= j->spec->arrival_us);
    }
    for (size_t i = 0; i < r->nseries; i++) {
        CHECK(r->series[i].busy_gpus >= 0 && r->series[i].busy_gpus <= total_gpus);
        CHECK(r->series[i].running >= 0 && r->series[i].pending >= 0);
        if (i)
            CHECK(r->series[i].t > r->series[i - 1].t);
    }
    CHECK(r->summary.gpu_util > 0 && r->summary.gpu_util <= 1.0 + 1e-12);
    /* every job appears exactly once */
    for (size_t i = 1; i < r->njobs; i++)
        CHECK(r->jobs[i].spec != r->jobs[i - 1].spec);
}

static int same_results(const struct berth_sim_result *a, const struct berth_sim_result *b)
{
    if (a->njobs != b->njobs || a->nseries != b->nseries)
        return 0;
    for (size_t i = 0; i < a->njobs; i++)
        if (strcmp(a->jobs[i].spec->id, b->jobs[i].spec->id) ||
            a->jobs[i].first_start_us != b->jobs[i].first_start_us ||
            a->jobs[i].finish_us != b->jobs[i].finish_us ||
            a->jobs[i].preemptions != b->jobs[i].preemptions ||
            a->jobs[i].servers != b->jobs[i].servers)
            return 0;
    for (size_t i = 0; i < a->nseries; i++)
        if (a->series[i].t != b->series[i].t || a->series[i].busy_gpus != b->series[i].busy_gpus ||
            a->series[i].running != b->series[i].running ||
            a->series[i].pending != b->series[i].pending)
            return 0;
    return a->summary.avg_jct_s == b->summary.avg_jct_s;
}

static void all_policies(void)
{
    struct berth_cluster *c;
    struct berth_err err = {0};
    CHECK_I64(berth_cluster_parse(CLUSTER, &c, &err), 0);
    int32_t total = berth_cluster_gpus(c);
    berth_cluster_free(c);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        char *csv = random_trace(seed, 1500);
        for (size_t p = 0; p < berth_policy_count(); p++)
            for (size_t pl = 0; pl < berth_placement_count(); pl++) {
                struct simtest a, b;
                const char *pol = berth_policy_name(p), *place = berth_placement_name(pl);
                if (!strncmp(pol, "salus-", 6))
                    continue; /* 1-GPU jobs only: test_salus.c has their properties */
                if (!strncmp(place, "blox-", 5))
                    continue; /* Blox's placements as shipped may never place a gang (Blox
                                 then hangs too): test_placement and cli_fidelity test them */
                int rc = simtest_run(csv, CLUSTER, pol, place, &a, &err);
                CHECK_I64(rc, 0);
                if (rc) {
                    fprintf(stderr, "  %s/%s seed %llu: %s\n", pol, place, (unsigned long long)seed,
                            err.msg);
                    continue;
                }
                check_run(&a, total);
                rc = simtest_run(csv, CLUSTER, pol, place, &b, &err);
                CHECK_I64(rc, 0);
                if (!rc) {
                    if (!same_results(&a.r, &b.r))
                        fprintf(stderr, "  %s/%s seed %llu: two runs differ\n", pol, place,
                                (unsigned long long)seed);
                    CHECK(same_results(&a.r, &b.r));
                    simtest_free(&b);
                }
                simtest_free(&a);
            }
        free(csv);
    }
}

/* Preemptive policies really preempt on a loaded cluster, non-preemptive ones never do,
 * and the ordering policies beat strict fifo on average JCT (blox-fifo is strict fifo). */
static void policy_character(void)
{
    char *csv = random_trace(7, 3000);
    struct berth_err err = {0};
    double fifo_jct = 0;
    for (size_t p = 0; p < berth_policy_count(); p++) {
        const char *pol = berth_policy_name(p);
        struct simtest st;
        if (!strncmp(pol, "salus-", 6))
            continue; /* 1-GPU jobs only: test_salus.c has their properties */
        if (simtest_run(csv, CLUSTER, pol, NULL, &st, &err)) {
            CHECK(0);
            continue;
        }
        /* the Gavel family time-slices in rounds, except gavel-fifo (strict fifo in rounds) */
        int gavel_fifo = !strcmp(pol, "gavel-fifo");
        int preemptive = !strcmp(pol, "srtf") || !strcmp(pol, "las") ||
                         (!strncmp(pol, "gavel-", 6) && !gavel_fifo) ||
                         !strcmp(pol, "themis-ftf") || !strncmp(pol, "tiresias-", 9) ||
                         !strcmp(pol, "blox-las") || !strncmp(pol, "goodput", 7);
        if (preemptive)
            CHECK(st.r.summary.preemptions > 0);
        else
            CHECK_I64(st.r.summary.preemptions, 0);
        if (!strcmp(pol, "fifo"))
            fifo_jct = st.r.summary.avg_jct_s;
        else if (!strcmp(pol, "blox-fifo")) /* strict fifo with a pass every round */
            CHECK_DBL(st.r.summary.avg_jct_s, fifo_jct, 1e-9);
        else if (strcmp(pol, "fifo-skip") && !gavel_fifo)
            CHECK(st.r.summary.avg_jct_s < fifo_jct);
        if (gavel_fifo) /* without throughputs every type is as fast: fifo's very choices */
            CHECK_DBL(st.r.summary.avg_jct_s, fifo_jct, fifo_jct * 1e-9);
        simtest_free(&st);
    }
    free(csv);
}

/* The generator's workloads go through the same checks (and gen + sim is deterministic). */
static void generated(void)
{
    struct berth_gen_opts g;
    berth_gen_opts_init(&g);
    g.profile = "gavel";
    g.jobs = 2000;
    g.rate_per_hour = 40;
    g.seed = 5;
    struct berth_trace *t;
    struct berth_cluster *c;
    struct berth_err err = {0};
    CHECK_I64(berth_gen(&g, &t, &err), 0);
    CHECK_I64(berth_cluster_parse("8x4:v100", &c, &err), 0);
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = "las";
    o.check_invariants = 1;
    struct berth_sim_result r;
    CHECK_I64(berth_sim_run(t, c, &o, &r, &err), 0);
    CHECK_I64(r.summary.completed, 2000);
    berth_sim_result_free(&r);
    berth_cluster_free(c);
    berth_trace_free(t);
}

/* Fractional GPUs, GPU memory, CPU-only jobs and CPU limits: 1-GPU jobs with shares, every job
 * asking for CPU cores, on servers whose cores can run out before their GPUs do. Every policy and
 * placement, with the engine re-deriving every GPU's shares and every server's CPU after each pass.
 */
static char *random_shared_trace(uint64_t seed, int n)
{
    struct berth__rng r;
    berth__rng_seed(&r, seed);
    size_t cap = (size_t)n * 80 + 128, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len,
                            "job_id,arrival_s,duration_s,num_gpus,gpu_share,cpus,gpu_mem_mib\n");
    static const char *shares[] = {"0.1", "0.25", "0.5", "0.7", "1", "1"};
    static const int gangs[] = {0, 1, 1, 1, 2, 4}; /* 0: a CPU-only job */
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += berth__rng_unit(&r) < 0.4 ? 0 : berth__rng_exp(&r, 1.0 / 60);
        int g = gangs[berth__rng_below(&r, 6)];
        const char *sh = g == 1 ? shares[berth__rng_below(&r, 6)] : "1";
        int cpus = (int)berth__rng_below(&r, 9) + (g == 0); /* CPU-only jobs ask for cores */
        double d = 1 + berth__rng_unit(&r) * 1200;
        static const int gmem[] = {0, 2000, 6000, 12000};
        len += (size_t)snprintf(s + len, cap - len, "f%d,%.3f,%.6f,%d,%s,%d,%d\n", i, t, d, g, sh,
                                cpus, gmem[berth__rng_below(&r, 4)]);
    }
    return s;
}

static void fractional_cpu(void)
{
    const char *cluster = simtest_write_named(
        "{\"servers\": [{\"gpu_type\": \"t4\", \"gpus\": 4, \"cpus\": 16, \"count\": 3, "
        "\"gpu_mem_mib\": 16000},"
        " {\"gpu_type\": \"v100\", \"gpus\": 8, \"cpus\": 24, \"count\": 2, \"gpu_mem_mib\": "
        "32000}]}",
        ".json");
    char cpath[80];
    snprintf(cpath, sizeof cpath, "%s", cluster);
    struct berth_err err = {0};
    for (uint64_t seed = 1; seed <= 2; seed++) {
        char *csv = random_shared_trace(seed, 1200);
        for (size_t p = 0; p < berth_policy_count(); p++)
            for (size_t pl = 0; pl < berth_placement_count(); pl++) {
                struct simtest a;
                const char *pol = berth_policy_name(p), *place = berth_placement_name(pl);
                if (!strncmp(pol, "salus-", 6))
                    continue; /* 1-GPU jobs only: test_salus.c has their properties */
                if (!strncmp(place, "blox-", 5))
                    continue; /* Blox's placements as shipped may never place a gang (Blox
                                 then hangs too): test_placement and cli_fidelity test them */
                int rc = simtest_run(csv, cpath, pol, place, &a, &err);
                CHECK_I64(rc, 0);
                if (rc) {
                    fprintf(stderr, "  %s/%s seed %llu: %s\n", pol, place, (unsigned long long)seed,
                            err.msg);
                    continue;
                }
                check_run(&a, 28);
                simtest_free(&a);
            }
        free(csv);
    }
    unlink(cpath);
}

static const struct check_test tests[] = {
    {"all_policies", all_policies},
    {"policy_character", policy_character},
    {"generated", generated},
    {"fractional_cpu", fractional_cpu},
};

CHECK_MAIN(tests)
