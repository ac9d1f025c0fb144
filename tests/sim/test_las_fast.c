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

/* A matrix of overloaded runs, each made twice with *flag 0 and 1 and compared. */
struct matrix {
    const char *const *policies, *const *settings;
    int npolicies;
    const char *const *places;
    int nplaces;
    uint64_t seeds;
    int jobs;
    int *flag;                   /* what the two runs of a case differ in */
    unsigned long long *counter; /* what the path under test counts */
    int preempts;                /* every run must preempt */
    const char *tag;             /* in a failing case's name */
};

/* Runs m on a one-type and a two-type cluster; returns the runs made, *counted what
 * m->counter grew by. */
static int run_matrix(const struct matrix *m, const struct berth_tput *tput,
                      unsigned long long *counted)
{
    static const char *clusters[] = {"6x8:v100", "4x8:v100,4x4:k80"};
    int runs = 0;
    *counted = 0;
    for (uint64_t seed = 1; seed <= m->seeds; seed++)
        for (int ci = 0; ci < 2; ci++) {
            char *csv = overload_trace(seed, m->jobs, tput, ci == 1, gangs, 8);
            for (int pi = 0; pi < m->npolicies; pi++) {
                struct berth_sim_opts o;
                berth_sim_opts_init(&o);
                o.policy = m->policies[pi];
                o.policy_settings = m->settings[pi];
                o.placement = m->places[(seed + (uint64_t)pi) % (uint64_t)m->nplaces];
                o.tput = tput;
                unsigned long long before = *m->counter;
                char what[96];
                long long pre = 0;
                snprintf(what, sizeof what, "%s %s, seed %llu%s", m->policies[pi], o.placement,
                         (unsigned long long)seed, m->tag);
                int ran = overload_fast_vs_plain(csv, clusters[ci], &o, m->flag, 0, what, &pre);
                *counted += *m->counter - before;
                if (m->preempts)
                    CHECK(!ran || pre > 0);
                runs += ran;
            }
            free(csv);
        }
    return runs;
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
    static const char *places[] = {"consolidate", "best-fit"};
    const struct matrix x = {
        policies, settings, 3, places, 2, 10, 700, &berth__prio_no_fast, &berth__prio_fast_used,
        1,        ""};
    unsigned long long used;
    int runs = run_matrix(&x, m, &used);
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
    static const char *places[] = {"consolidate", "best-fit", "spread"};
    const struct matrix x = {policies,
                             settings,
                             4,
                             places,
                             3,
                             6,
                             500,
                             &berth__prio_no_commit,
                             &berth__prio_commits,
                             0,
                             " (commit on/off)"};
    unsigned long long commits;
    berth__prio_no_fast = 1; /* every admission by preemption a trial */
    int runs = run_matrix(&x, m, &commits);
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
