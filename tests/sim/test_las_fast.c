/* The fast path of admissions by preemption (sched/prio.c's admit_fast, sched/preempt_pick.c)
 * must give exactly what the trial gives: on random overloaded workloads under las, srtf and
 * priority with preemption, with the throughput model's consolidate-or-wait on, every job
 * starts, is preempted and ends at the same times on the same number of servers, and the
 * summaries are equal, with the fast path on and off (berth__prio_no_fast). The workloads
 * mix gang sizes 1-8 on 4- and 8-GPU servers, jobs tied to a GPU type or to one server, and
 * a one-type and a two-type cluster; the runs must use the fast path many times. And a trial
 * whose job needed every victim it tried is kept as the admission (commit_trial) instead of
 * being taken back and made again: the same runs, the fast path off, with EASY backfill too
 * (the controls' path), agree with commit_trial on and off. */
#include "overload.h"
#include "simtest.h"
#include "util/rng.h"

extern int berth__prio_no_fast, berth__prio_no_commit;
extern unsigned long long berth__prio_fast_used, berth__prio_commits;

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

static void test_commit_equals_redo(void)
{
    struct berth_tput *m = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_tput_builtin(&m, &err), 0);
    if (!m)
        return;
    static const char *policies[] = {"las", "srtf", "las", "priority"};
    static const char *settings[] = {NULL, NULL, "quantum=600,backfill=1", "preempt=1"};
    static const char *clusters[] = {"6x8:v100", "4x8:v100,4x4:k80"};
    static const char *places[] = {"consolidate", "best-fit", "spread"};
    unsigned long long commits = 0;
    int runs = 0;
    berth__prio_no_fast = 1; /* every admission by preemption a trial */
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (int ci = 0; ci < 2; ci++) {
            char *csv = overload_trace(seed, 500, m, ci == 1, gangs, 8);
            for (int pi = 0; pi < 4; pi++) {
                struct berth_sim_opts o;
                berth_sim_opts_init(&o);
                o.policy = policies[pi];
                o.policy_settings = settings[pi];
                o.placement = places[(seed + (uint64_t)pi) % 3];
                o.tput = m;
                unsigned long long before = berth__prio_commits;
                char what[96];
                long long pre = 0;
                snprintf(what, sizeof what, "%s %s, seed %llu (commit on/off)", policies[pi],
                         o.placement, (unsigned long long)seed);
                int ran = overload_fast_vs_plain(csv, clusters[ci], &o, &berth__prio_no_commit, 0,
                                                 what, &pre);
                commits += berth__prio_commits - before;
                runs += ran;
            }
            free(csv);
        }
    berth__prio_no_fast = 0;
    CHECK_I64(runs, 48);
    fprintf(stderr, "  %d runs, %llu trials kept as admissions\n", runs, commits);
    CHECK(commits > 1000);
    berth_tput_free(m);
}

static const struct check_test tests[] = {
    {"fast_equals_trial", test_fast_equals_trial},
    {"commit_equals_redo", test_commit_equals_redo},
};

CHECK_MAIN(tests)
