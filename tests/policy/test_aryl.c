/* Aryl (policy/aryl.c) and what it stands on: reserved servers (model/cluster.c), the
 * inference demand series (model/infer.c, io/infer_load.c), and the simulator's pool
 * figures. Golden results computed by hand; the derivation is above each check. */
#include "berth/infer.h"
#include "model/cluster.h"
#include "model/tput.h"
#include "simtest.h"
#include "util/rng.h"
#include "tmpfile.h"

/* Class L scales perfectly on v100: g GPUs make g steps/s (1, 2, 4, 8 measured). */
static struct berth_tput *linear_model(void)
{
    struct berth_tput *m = berth__tput_new();
    int v100 = 0, l = 0;
    CHECK(m && !berth__tput_add_type(m, "v100", &v100) && !berth__tput_add_class(m, "L", &l));
    for (int g = 1; g <= 8; g *= 2)
        CHECK(!berth__tput_add_point(m, l, v100, g, 0, g));
    return m;
}

/* one training and two inference servers of 4 GPUs (or one of each when small) */
static const char *cluster_file(struct tmp *t, int ninfer)
{
    char s[256];
    snprintf(s, sizeof s,
             "{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, \"pool\": \"training\"},"
             " {\"gpu_type\": \"v100\", \"gpus\": 4, \"count\": %d, \"pool\": \"inference\"}]}",
             ninfer);
    return tmp_write(t, "cluster.json", s);
}

static double fin(const struct simtest *st, const char *id)
{
    const struct berth_job_result *j = simtest_job(&st->r, id);
    CHECK(j != NULL);
    return j ? (double)j->finish_us / 1e6 : -1;
}

static int run(const char *csv, const char *cluster, const char *policy, const char *infer,
               const struct berth_tput *m, struct simtest *st)
{
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = policy;
    o.tput = m;
    o.loan_headroom_milli = -1; /* no headroom: the arithmetic below lends everything idle */
    struct berth_infer *s = NULL;
    struct berth_err err = {0};
    if (infer)
        CHECK(!berth_infer_open(infer, &s, &err));
    o.infer = s;
    int rc = simtest_run_opts(csv, cluster, &o, st, &err);
    if (rc)
        fprintf(stderr, "  %s\n", err.msg);
    berth_infer_free(s);
    return rc;
}

/* Three inelastic 4-GPU jobs of 1000 s at time 0; inference needs no server until t=100,
 * then both. aryl-loan lends both inference servers at 0: J1 runs on the training server,
 * J2 and J3 on the loaned ones (inelastic jobs use loaned servers as a last resort). At 100
 * both servers are reclaimed: J2 and J3 are preempted with 900 s left each. J1 ends at
 * 1000, J2 runs 1000-1900, J3 1900-2800. Without loaning (aryl-base) they run one after the
 * other: 1000, 2000, 3000. Inference used 2 servers = 8 GPUs from 100 to 2800: 21,600
 * GPU-s = 6 GPU-hours; 8 GPUs were lent for 100 s = 0.2222 GPU-hours. */
static void test_loan_and_reclaim(struct tmp *t)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus\n"
                      "J1,0,1000,4\nJ2,0,1000,4\nJ3,0,1000,4\n";
    const char *infer = tmp_write(t, "infer.csv", "time_s,servers\n0,0\n100,2\n");
    char inf[160];
    snprintf(inf, sizeof inf, "%s", infer);
    const char *cl = cluster_file(t, 2);
    struct simtest st;
    CHECK(!run(csv, cl, "aryl-loan", inf, NULL, &st));
    CHECK_DBL(fin(&st, "J1"), 1000, 1e-6);
    CHECK_DBL(fin(&st, "J2"), 1900, 1e-6);
    CHECK_DBL(fin(&st, "J3"), 2800, 1e-6);
    CHECK_I64(st.r.summary.preemptions, 2);
    CHECK_I64(st.r.summary.lends, 2);
    CHECK_I64(st.r.summary.reclaims, 2);
    CHECK(st.r.summary.has_infer);
    CHECK_I64(st.r.summary.infer_servers, 2);
    CHECK_DBL(st.r.summary.infer_gpu_hours, 6.0, 1e-9);
    CHECK_DBL(st.r.summary.loaned_gpu_hours, 800.0 / 3600, 1e-9);
    CHECK_DBL(st.r.summary.infer_short_server_hours, 0, 0);
    simtest_free(&st);

    CHECK(!run(csv, cl, "aryl-base", inf, NULL, &st));
    CHECK_DBL(fin(&st, "J1"), 1000, 1e-6);
    CHECK_DBL(fin(&st, "J2"), 2000, 1e-6);
    CHECK_DBL(fin(&st, "J3"), 3000, 1e-6);
    CHECK_I64(st.r.summary.lends, 0);
    CHECK_I64(st.r.summary.preemptions, 0);
    simtest_free(&st);
}

/* One elastic class-L job, 1600 steps, 4..8 GPUs, on one training and one inference server;
 * inference needs nothing until t=100, then the server. At 0 the inference server is lent;
 * E is admitted at 4 GPUs on the training server and the knapsack grows it to 8 (value
 * RT(4) - RT(8) - 2 x 20 s = 400 - 200 - 40 = 160 > 0, the GPUs are free): 8 steps/s. At 100
 * (800 steps done) the server is reclaimed: E has 4 workers there and can shrink to 4 >= its
 * minimum, so it costs no preemption; it resizes to 4 and does the last 800 steps at 4/s:
 * finished at 300, one resize, no preemption. Without loaning it runs at 4: 400 s. */
static void test_elastic_shrink_on_reclaim(struct tmp *t)
{
    struct berth_tput *m = linear_model();
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,min_gpus,"
                      "max_gpus\nE,0,,4,L,1600,4,8\n";
    const char *infer = tmp_write(t, "infer1.csv", "time_s,servers\n0,0\n100,1\n");
    char inf[160];
    snprintf(inf, sizeof inf, "%s", infer);
    const char *cl = cluster_file(t, 1);
    struct simtest st;
    CHECK(!run(csv, cl, "aryl", inf, m, &st));
    CHECK_DBL(fin(&st, "E"), 300, 1e-6);
    CHECK_I64(st.r.summary.resizes, 1);
    CHECK_I64(st.r.summary.preemptions, 0);
    CHECK_I64(st.r.summary.reclaims, 1);
    simtest_free(&st);
    CHECK(!run(csv, cl, "aryl-loan", inf, m, &st));
    CHECK_DBL(fin(&st, "E"), 400, 1e-6);
    simtest_free(&st);
    berth_tput_free(m);
}

/* No inference pool. E (class L, 8000 steps, 2..8 GPUs) arrives at 0 and grows to 8 at once
 * (RT(2) - RT(8) - 40 = 4000 - 1000 - 40 > 0). J (4 GPUs, 100 s, inelastic) arrives at 10
 * and does not fit: E gives up 4 extra workers (a resize to 4) and J runs 10-110. E did 80
 * steps by 10 and 400 more by 110. Growing back waits for the hysteresis (300 s after the
 * resize at 10): at 310 E has done 480 + 4 x 200 = 1280 and grows to 8 (RT(2) - RT(8) - 40
 * = 3360 - 840 - 40 beats staying at 4: 3360 - 1680); the last 6720 steps take 840 s: E
 * finishes at 1150 after 2 resizes. */
static void test_admission_takes_extras(void)
{
    struct berth_tput *m = linear_model();
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,min_gpus,"
                      "max_gpus\nE,0,,2,L,8000,2,8\nJ,10,100,4,,,4,4\n";
    struct simtest st;
    CHECK(!run(csv, "1x8:v100", "aryl", NULL, m, &st));
    CHECK_DBL(fin(&st, "J"), 110, 1e-6);
    CHECK_DBL(fin(&st, "E"), 1150, 1e-6);
    CHECK_I64(st.r.summary.resizes, 2);
    CHECK(!st.r.summary.has_infer);
    simtest_free(&st);
    berth_tput_free(m);
}

/* Reserving takes a wholly idle server out of the free state and back. */
static void test_reserve(void)
{
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    CHECK(!berth_cluster_parse("2x4:v100", &c, &err));
    CHECK(!berth__cluster_reserve(c, 0));
    CHECK_I64(c->free, 4);
    CHECK_I64(c->reserved_gpus, 4);
    CHECK(berth__cluster_reserve(c, 0) == -1); /* reserved already */
    berth__cluster_take_mask(c, 1, 1);
    CHECK(berth__cluster_reserve(c, 1) == -1); /* a GPU in use */
    CHECK(!berth__cluster_verify(c, &err));
    CHECK(!berth__cluster_unreserve(c, 0));
    CHECK(berth__cluster_unreserve(c, 0) == -1);
    CHECK_I64(c->free, 7);
    CHECK_I64(c->reserved_gpus, 0);
    berth_cluster_free(c);
}

/* The series: steps from a CSV, the diurnal curve, and errors naming file, line, column. */
static void test_series(struct tmp *t)
{
    struct berth_infer *s = NULL;
    struct berth_err err = {0};
    CHECK(!berth_infer_load(tmp_write(t, "s.csv", "time_s,servers\n10,2\n20.5,5\n"), &s, &err));
    CHECK_I64(berth_infer_at(s, 0, 100), 2); /* before the first row: the first row's */
    CHECK_I64(berth_infer_at(s, 20500000, 100), 5);
    CHECK_I64(berth_infer_at(s, 20500000, 3), 3); /* at most the pool */
    CHECK_I64(berth_infer_next(s, 0), 10000000);
    CHECK_I64(berth_infer_next(s, 10000000), 20500000);
    CHECK(berth_infer_next(s, 20500000) == BERTH_TIME_NONE);
    berth_infer_free(s);
    /* diurnal 0.9/0.3 over 24 h: 30 % of 10 servers at 0, 90 % at 12 h, 60 % at 6 h */
    CHECK(!berth_infer_open("diurnal", &s, &err));
    CHECK_I64(berth_infer_at(s, 0, 10), 3);
    CHECK_I64(berth_infer_at(s, INT64_C(12) * 3600000000, 10), 9);
    CHECK_I64(berth_infer_at(s, INT64_C(6) * 3600000000, 10), 6);
    CHECK_I64(berth_infer_next(s, 0), 60000000);
    berth_infer_free(s);
    CHECK(!berth_infer_open("diurnal:1,0,1,30", &s, &err));
    CHECK_I64(berth_infer_at(s, 1800000000, 4), 4);
    berth_infer_free(s);
    s = NULL;
    CHECK(berth_infer_open("diurnal:0.2,0.5", &s, &err) == BERTH_EINPUT);
    CHECK(strstr(err.msg, "TROUGH") != NULL);
    CHECK(berth_infer_open("diurnal:x", &s, &err) == BERTH_EINPUT);
    CHECK(strstr(err.msg, "PEAK") != NULL);
    const char *p = tmp_write(t, "bad.csv", "time_s,servers\n0,1\n5,-2\n");
    CHECK(berth_infer_load(p, &s, &err) == BERTH_EINPUT);
    CHECK(strstr(err.msg, "bad.csv:3: column servers") != NULL);
    p = tmp_write(t, "order.csv", "time_s,servers\n5,1\n4,2\n");
    CHECK(berth_infer_load(p, &s, &err) == BERTH_EINPUT);
    CHECK(strstr(err.msg, "order.csv:3: column time_s") != NULL);
    CHECK(s == NULL);
}

/* --inference on a cluster without an inference pool is bad input. */
static void test_no_pool(void)
{
    struct simtest st;
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = "aryl";
    struct berth_infer *s = NULL;
    struct berth_err err = {0};
    CHECK(!berth_infer_open("diurnal", &s, &err));
    o.infer = s;
    CHECK(simtest_run_opts("job_id,arrival_s,duration_s,num_gpus\nA,0,10,1\n", "1x8:v100", &o, &st,
                           &err) == BERTH_EINPUT);
    CHECK(strstr(err.msg, "pool") != NULL);
    berth_infer_free(s);
}

/* Random workloads under random demand: every job finishes exactly once, the engine's
 * invariant check (after every pass: no GPU held twice, none held on a reserved server,
 * gangs whole) holds, reclaims always give inference its servers within the pass (no
 * shortfall), and without loaning nothing is lent. */
static void test_random(struct tmp *t)
{
    struct berth_tput *m = linear_model();
    char cl[160];
    snprintf(cl, sizeof cl, "%s", cluster_file(t, 3)); /* tmp_write reuses its buffer */
    uint64_t lends = 0, reclaims = 0, resizes = 0;     /* under aryl: the runs must exercise them */
    for (uint64_t seed = 1; seed <= 25 && !check_failures; seed++) {
        struct berth__rng r;
        berth__rng_seed(&r, seed);
        char csv[8192], dem[2048], path[160];
        int n = snprintf(csv, sizeof csv,
                         "job_id,arrival_s,duration_s,num_gpus,job_type,"
                         "total_steps,min_gpus,max_gpus\n");
        for (int j = 0; j < 40; j++) {
            int g = 1 << berth__rng_below(&r, 3), el = (int)berth__rng_below(&r, 2);
            int lo = el ? 1 : g, hi = el ? 2 * g : g;
            if (berth__rng_below(&r, 3))
                n += snprintf(csv + n, sizeof csv - (size_t)n, "j%d,%d,,%d,L,%d,%d,%d\n", j, j * 20,
                              g, 50 + (int)berth__rng_below(&r, 2000), lo, hi);
            else
                n += snprintf(csv + n, sizeof csv - (size_t)n, "j%d,%d,%d,%d,,,%d,%d\n", j, j * 20,
                              10 + (int)berth__rng_below(&r, 500), g, g, g);
        }
        int d = snprintf(dem, sizeof dem, "time_s,servers\n");
        for (int k = 0; k < 40; k++)
            d += snprintf(dem + d, sizeof dem - (size_t)d, "%d,%d\n", k * 37,
                          (int)berth__rng_below(&r, 4));
        snprintf(path, sizeof path, "%s", tmp_write(t, "rand.csv", dem));
        const char *pols[] = {"aryl", "aryl-loan", "aryl-elastic", "aryl-base"};
        for (size_t p = 0; p < 4; p++) {
            struct simtest st;
            CHECK(!run(csv, cl, pols[p], path, m, &st));
            CHECK_I64(st.r.summary.completed, 40);
            for (size_t j = 0; j < st.r.njobs; j++)
                CHECK(st.r.jobs[j].finish_us != BERTH_TIME_NONE);
            CHECK_DBL(st.r.summary.infer_short_server_hours, 0, 0);
            if (p >= 2)
                CHECK_I64(st.r.summary.lends, 0);
            if (p == 0) {
                lends += st.r.summary.lends;
                reclaims += st.r.summary.reclaims;
                resizes += st.r.summary.resizes;
            }
            simtest_free(&st);
        }
    }
    CHECK(lends > 25 && reclaims > 25 && resizes > 25);
    berth_tput_free(m);
}

/* the tests that write files get a scratch folder of their own */
static void with_tmp(void (*f)(struct tmp *))
{
    struct tmp t;
    tmp_open(&t);
    f(&t);
    tmp_close(&t);
}

static void loan_and_reclaim(void)
{
    with_tmp(test_loan_and_reclaim);
}

static void elastic_shrink_on_reclaim(void)
{
    with_tmp(test_elastic_shrink_on_reclaim);
}

static void series(void)
{
    with_tmp(test_series);
}

static void random_workloads(void)
{
    with_tmp(test_random);
}

/* Class M runs 1 step/s on 1 GPU and 3 on 4, but its 2-GPU point is a measured 0 (it does
 * not fit 2 GPUs' memory, as Gavel records some classes on the K80). E (M, 3000 steps, 1..4
 * GPUs) is alone on one 4-GPU server. The knapsack must never choose 2: it grows E to 4 in
 * its first pass (RT(1) - RT(4) - 40 = 3000 - 1000 - 40 > 0), so E starts on 4 GPUs and
 * finishes at 1000, never resized.
 * The 2-GPU option counted as a saving of RT(1) + 1 s before, the best there was: aryl
 * grew E to a size the model cannot run and the simulation stopped ("a rate of 0"). */
static void test_unrunnable_size(void)
{
    struct berth_tput *m = berth__tput_new();
    int v100 = 0, c = 0;
    CHECK(m && !berth__tput_add_type(m, "v100", &v100) && !berth__tput_add_class(m, "M", &c));
    CHECK(!berth__tput_add_point(m, c, v100, 1, 0, 1));
    CHECK(!berth__tput_add_point(m, c, v100, 2, 0, 0));
    CHECK(!berth__tput_add_point(m, c, v100, 4, 0, 3));
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,min_gpus,"
                      "max_gpus\nE,0,,1,M,3000,1,4\n";
    struct simtest st;
    CHECK(!run(csv, "1x4:v100", "aryl-elastic", NULL, m, &st));
    CHECK_DBL(fin(&st, "E"), 1000, 1e-6);
    CHECK_I64(st.r.summary.resizes, 0);
    simtest_free(&st);
    berth_tput_free(m);
}

static const struct check_test tests[] = {
    {"loan_and_reclaim", loan_and_reclaim},
    {"elastic_shrink_on_reclaim", elastic_shrink_on_reclaim},
    {"admission_takes_extras", test_admission_takes_extras},
    {"reserve", test_reserve},
    {"series", series},
    {"no_pool", test_no_pool},
    {"random_workloads", random_workloads},
    {"unrunnable_size", test_unrunnable_size},
};

CHECK_MAIN(tests)
