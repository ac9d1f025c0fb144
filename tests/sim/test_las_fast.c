/* The fast path of admissions by preemption (sched/prio.c's admit_fast, sched/preempt_pick.c)
 * must give exactly what the trial gives: on random overloaded workloads under las, srtf and
 * priority with preemption, with the throughput model's consolidate-or-wait on, every job
 * starts, is preempted and ends at the same times on the same number of servers, and the
 * summaries are equal, with the fast path on and off (berth__prio_no_fast). The workloads
 * mix gang sizes 1-8 on 4- and 8-GPU servers, jobs tied to a GPU type or to one server, and
 * a one-type and a two-type cluster; the runs must use the fast path many times. */
#include "overload.h"
#include "simtest.h"
#include "util/rng.h"

extern int berth__prio_no_fast;
extern unsigned long long berth__prio_fast_used;

static const int gangs[10] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 3};

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
            char *csv = overload_trace(seed, 700, m, ci == 1, gangs, 8);
            for (int pi = 0; pi < 3; pi++) {
                struct berth_sim_opts o;
                berth_sim_opts_init(&o);
                o.policy = policies[pi];
                o.policy_settings = settings[pi];
                o.placement = places[(seed + (uint64_t)pi) % 2];
                o.tput = m;
                unsigned long long before = berth__prio_fast_used;
                char what[96];
                long long pre = 0;
                snprintf(what, sizeof what, "%s %s, seed %llu", policies[pi], o.placement,
                         (unsigned long long)seed);
                int ran = overload_fast_vs_plain(csv, clusters[ci], &o, &berth__prio_no_fast, 0,
                                                 what, &pre);
                used += berth__prio_fast_used - before;
                CHECK(!ran || pre > 0);
                runs += ran;
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
