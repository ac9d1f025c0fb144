/* The fast path of admissions by preemption (sched/prio.c's admit_fast, sched/preempt_pick.c)
 * must give exactly what the trial gives: on random overloaded workloads under las, srtf and
 * priority with preemption, with the throughput model's consolidate-or-wait on, every job
 * starts, is preempted and ends at the same times on the same number of servers, and the
 * summaries are equal, with the fast path on and off (berth__prio_no_fast). The workloads
 * mix gang sizes 1-8 on 4- and 8-GPU servers, jobs tied to a GPU type or to one server, and
 * a one-type and a two-type cluster; the runs must use the fast path many times. */
#include "simtest.h"
#include "util/rng.h"

extern int berth__prio_no_fast;
extern unsigned long long berth__prio_fast_used;

/* Overloaded: arrivals every few minutes, jobs of hours, gangs up to a whole server. */
static char *random_trace(uint64_t seed, int n, const struct berth_tput *m, int typed)
{
    struct berth__rng r;
    berth__rng_seed(&r, seed);
    size_t cap = (size_t)n * 120 + 128, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    len += (size_t)snprintf(s + len, cap - len,
                            "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,gpu_type,"
                            "single_server\n");
    static const int gangs[] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 3};
    size_t ncls = berth_tput_class_count(m);
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += berth__rng_exp(&r, 1.0 / 90);
        int g = gangs[berth__rng_below(&r, 10)];
        const char *cls = berth_tput_class_name(m, berth__rng_below(&r, ncls));
        long steps = 2000 + (long)berth__rng_below(&r, 200000);
        const char *ty = typed && berth__rng_below(&r, 3) == 0 ? "v100" : "";
        int single = berth__rng_below(&r, 8) == 0;
        double d = 60 + berth__rng_unit(&r) * 20000;
        len += (size_t)snprintf(s + len, cap - len, "j%d,%.3f,%.3f,%d,%s,%ld,%s,%d\n", i, t, d, g,
                                cls, steps, ty, single);
    }
    return s;
}

static int same(const struct berth_sim_result *a, const struct berth_sim_result *b)
{
    if (a->njobs != b->njobs)
        return 0;
    for (size_t i = 0; i < a->njobs; i++) {
        const struct berth_job_result *x = &a->jobs[i], *y = &b->jobs[i];
        if (strcmp(x->spec->id, y->spec->id) || x->first_start_us != y->first_start_us ||
            x->finish_us != y->finish_us || x->preemptions != y->preemptions ||
            x->servers != y->servers || x->run_us != y->run_us) {
            fprintf(stderr, "  job %s: start %lld/%lld finish %lld/%lld preempted %d/%d\n",
                    x->spec->id, (long long)x->first_start_us, (long long)y->first_start_us,
                    (long long)x->finish_us, (long long)y->finish_us, x->preemptions,
                    y->preemptions);
            return 0;
        }
    }
    return a->summary.avg_jct_s == b->summary.avg_jct_s &&
           a->summary.preemptions == b->summary.preemptions &&
           a->summary.migrations == b->summary.migrations;
}

static void test_fast_equals_trial(void)
{
    struct berth_tput *m = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_tput_builtin(&m, &err), 0);
    if (!m)
        return;
    static const char *policies[] = {"las", "srtf", "las"};
    static const char *settings[] = {NULL, NULL, "quantum=600"};
    static const char *clusters[] = {"6x8:v100", "4x8:v100,4x4:k80"};
    static const char *places[] = {"consolidate", "best-fit"};
    unsigned long long used = 0;
    int runs = 0;
    for (uint64_t seed = 1; seed <= 10; seed++)
        for (int ci = 0; ci < 2; ci++) {
            char *csv = random_trace(seed, 700, m, ci == 1);
            for (int pi = 0; pi < 3; pi++) {
                struct simtest a, b;
                struct berth_sim_opts o;
                berth_sim_opts_init(&o);
                o.policy = policies[pi];
                o.policy_settings = settings[pi];
                o.placement = places[(seed + (uint64_t)pi) % 2];
                o.tput = m;
                unsigned long long before = berth__prio_fast_used;
                berth__prio_no_fast = 0;
                int rc = simtest_run_opts(csv, clusters[ci], &o, &a, &err);
                CHECK_I64(rc, 0);
                used += berth__prio_fast_used - before;
                berth__prio_no_fast = 1;
                int rc2 = simtest_run_opts(csv, clusters[ci], &o, &b, &err);
                berth__prio_no_fast = 0;
                CHECK_I64(rc2, 0);
                if (!rc && !rc2) {
                    int ok = same(&a.r, &b.r);
                    if (!ok)
                        fprintf(stderr, "  %s %s on %s, seed %llu: fast and trial differ\n",
                                policies[pi], o.placement, clusters[ci], (unsigned long long)seed);
                    CHECK(ok);
                    CHECK(a.r.summary.preemptions > 0);
                    runs++;
                }
                if (!rc)
                    simtest_free(&a);
                if (!rc2)
                    simtest_free(&b);
            }
            free(csv);
        }
    CHECK_I64(runs, 60);
    fprintf(stderr, "  %d runs, the fast path decided %llu admissions\n", runs, used);
    CHECK(used > 1000);
    berth_tput_free(m);
}

static const struct check_test tests[] = {
    {"fast_equals_trial", test_fast_equals_trial},
};

CHECK_MAIN(tests)
