/* Allocation failures in the engine's run-time changes, the calls berthd makes between passes
 * (tests/allocfail.h): add, arrive, cancel, requeue, add after passes, adopt, reestimate,
 * finish, and the passes between them, under every policy that takes whole-GPU gangs. A call
 * other than a pass that fails must leave the engine as it was: its invariants hold and the
 * same call then succeeds, after which the scenario goes on and must end exactly as a run
 * without failures does. A failed pass ends the scenario (berthd stops there too: the plan
 * was applied in part), and the engine must still be destroyed cleanly. Each scenario makes
 * 30 to 150 counted calls: every one is driven. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allocfail.h"
#include "berth/queues.h"
#include "check.h"
#include "engine/engine.h"
#include "jobspec_make.h"

static struct berth_cluster *cl;
static struct berth_jobspec specs[6];

struct live_case {
    const char *policy;
    char want[2048]; /* the end state of a run without failures */
    int have_want;
    const char *settings; /* the controls' cases: settings and a queues file */
    const struct berth_queues *queues;
};

static struct berth_queues *queues; /* two queues of a cohort, a user limit (main) */

/* The engine's state as text to compare: its counts, the lists the next pass shows the
 * policy, the idle GPUs, and every job's state, times, gang and estimate. */
static void state_of(const struct berth__engine *e, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(
        out, cap,
        "jobs %zu passes %llu preemptions %llu lists %zu %zu %zu "
        "%zu %zu idle %d;",
        e->njobs, (unsigned long long)e->passes, (unsigned long long)e->preemptions, e->narrived,
        e->nleft, e->nrequeued, e->nadopted, e->nreestimated, berth_cluster_free_gpus(e->cluster));
    for (size_t i = 0; i < e->njobs && n < cap; i++) {
        const struct berth__job *j = &e->jobs[i];
        n += (size_t)snprintf(out + n, cap - n, " %s:%d/%lld/%lld/%d/%d/%lld/%lld/%.0f",
                              j->spec->id, (int)j->state, (long long)j->first_start,
                              (long long)j->finish, (int)j->preemptions, (int)j->gpus,
                              (long long)j->run_us, (long long)j->est_us, j->work);
    }
}

/* The first idle GPU, or 0 when none. */
static int idle_slot(const struct berth__engine *e, struct berth__slot *s)
{
    for (uint32_t v = 0; v < e->cluster->nsrv; v++)
        if (e->cluster->srv[v].free_mask) {
            *s = (struct berth__slot){v, (uint32_t)__builtin_ctzll(e->cluster->srv[v].free_mask)};
            return 1;
        }
    return 0;
}

/* One step of the scenario: a call that fails (the first time: the armed failure) must leave
 * the engine as it was (the same state, its invariants holding); the call is then made again
 * with failures paused. */
#define STEP(call)                                                                                 \
    do {                                                                                           \
        if (!first)                                                                                \
            state_of(e, before, sizeof before);                                                    \
        int rc_ = (call);                                                                          \
        if (rc_ && !first) {                                                                       \
            first = rc_;                                                                           \
            *err = e1;                                                                             \
            allocfail_pause(1);                                                                    \
            paused = 1;                                                                            \
            state_of(e, after, sizeof after);                                                      \
            if (strcmp(before, after))                                                             \
                fprintf(stderr,                                                                    \
                        "  %s: %s failed and changed the engine:\n    %s\n  was\n    %s\n",        \
                        c->policy, #call, after, before);                                          \
            CHECK(!strcmp(before, after));                                                         \
            if (berth__engine_verify(e, &e2))                                                      \
                fprintf(stderr, "  %s: after %s failed: %s\n", c->policy, #call, e2.msg);          \
            CHECK_I64(berth__engine_verify(e, &e2), 0);                                            \
            rc_ = (call);                                                                          \
            if (rc_)                                                                               \
                fprintf(stderr, "  %s: %s again: %s\n", c->policy, #call, e1.msg);                 \
            CHECK_I64(rc_, 0);                                                                     \
        }                                                                                          \
        if (rc_)                                                                                   \
            goto out;                                                                              \
    } while (0)

/* A pass that fails ends the scenario. */
#define PASS(t)                                                                                    \
    do {                                                                                           \
        int rc_ = berth__engine_pass(e, (t), &e1);                                                 \
        if (rc_) {                                                                                 \
            if (!first) {                                                                          \
                first = rc_;                                                                       \
                *err = e1;                                                                         \
            }                                                                                      \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static int run_live(void *ctx, struct berth_err *err)
{
    struct live_case *c = ctx;
    struct berth_err e1 = {0}, e2 = {0};
    struct berth__params p = {
        .quantum_us = BERTH_US_PER_S, .seed = 1, .settings = c->settings, .queues = c->queues};
    struct berth__engine *e = NULL;
    char before[2048], after[2048];
    int paused = 0, first = berth__engine_create(cl, c->policy, NULL, &p, NULL, &e, err);
    if (first)
        return first;
    berth__engine_set_check(e, 1);
    uint32_t idx[6];
    for (int i = 0; i < 4; i++)
        STEP(berth__engine_add(e, &specs[i], &idx[i], &e1));
    for (int i = 0; i < 3; i++)
        STEP(berth__engine_arrive(e, idx[i], 0, &e1));
    PASS(0);
    if (e->jobs[idx[2]].state != BERTH_JOB_DONE)
        STEP(berth__engine_cancel(e, idx[2], 5, &e1));
    if (e->jobs[idx[1]].state == BERTH_JOB_RUNNING)
        STEP(berth__engine_requeue(e, idx[1], 6, &e1));
    STEP(berth__engine_add(e, &specs[4], &idx[4], &e1));
    STEP(berth__engine_arrive(e, idx[4], 7, &e1));
    struct berth__slot s;
    if (idle_slot(e, &s))
        STEP(berth__engine_adopt(e, idx[3], &s, 1, 7, &e1));
    if (e->jobs[idx[0]].state == BERTH_JOB_RUNNING || e->jobs[idx[0]].state == BERTH_JOB_PENDING)
        STEP(berth__engine_reestimate(e, idx[0], 200 * BERTH_US_PER_S, 8, &e1));
    PASS(8);
    STEP(berth__engine_add(e, &specs[5], &idx[5], &e1));
    STEP(berth__engine_arrive(e, idx[5], 9, &e1));
    if (e->jobs[idx[0]].state == BERTH_JOB_RUNNING)
        STEP(berth__engine_finish(e, idx[0], 10, &e1));
    PASS(10);
    PASS(3 * BERTH_US_PER_S);
    /* it came through (a call failed and was made again, or none failed): the end state of
     * a run without failures */
    allocfail_pause(1);
    char now[sizeof c->want];
    state_of(e, now, sizeof now);
    if (!c->have_want) {
        memcpy(c->want, now, sizeof now);
        c->have_want = 1;
    } else {
        if (strcmp(now, c->want))
            fprintf(stderr, "  %s: ends as\n    %s\n  instead of\n    %s\n", c->policy, now,
                    c->want);
        CHECK_STR(now, c->want);
    }
    allocfail_pause(0);
out:
    if (paused)
        allocfail_pause(0);
    berth__engine_destroy(e);
    return first;
}

static void test_policies(void)
{
    for (size_t i = 0; i < berth_policy_count(); i++) {
        const char *name = berth_policy_name(i);
        if (!strncmp(name, "salus-", 6))
            continue; /* 1-GPU jobs only */
        struct live_case c = {name, "", 0, NULL, NULL};
        struct allocfail_case a = {name, run_live, &c, 1, 0, 0, NULL};
        allocfail_drive(&a, NULL);
    }
}

/* The shared-cluster controls in the ordering family: quotas with a cohort (a reclaim),
 * fair-share re-keying at every pass, EASY backfill. */
static void test_controls(void)
{
    static const char *const pol[] = {"fifo-skip", "fifo", "las", "backfill", "fairshare", "sjf"};
    for (size_t i = 0; i < sizeof pol / sizeof *pol; i++) {
        struct live_case c = {pol[i], "", 0,
                              "backfill=1,fairshare_weight=10,fairshare_period=0.001", queues};
        if (!strcmp(pol[i], "fairshare"))
            c.settings = "backfill=1,fairshare_period=0.001";
        struct allocfail_case a = {pol[i], run_live, &c, 1, 0, 0, NULL};
        allocfail_drive(&a, NULL);
    }
}

static const struct check_test tests[] = {
    {"policies", test_policies},
    {"controls", test_controls},
};

int main(int argc, char **argv)
{
    int args = check_args(argc, argv, tests, sizeof tests / sizeof *tests);
    if (args)
        return args < 0 ? 1 : 0;
    struct berth_err err = {0};
    if (berth_cluster_parse("2x4:a100", &cl, &err)) {
        fprintf(stderr, "test_engine_allocfail: %s\n", err.msg);
        return 1;
    }
    static const char *const ids[] = {"j0", "j1", "j2", "j3", "late", "later"};
    static const int gpus[] = {4, 2, 2, 1, 2, 3};
    static const char *const qs[] = {"a", "b", "b", "a", "b", "a"};
    static const char *const us[] = {"u1", "u2", "u1", "u2", "u1", "u2"};
    for (int i = 0; i < 6; i++) {
        specs[i] = jobspec_make(ids[i], (i + 1) * 2 * BERTH_US_PER_S, gpus[i], gpus[i], gpus[i]);
        specs[i].queue = qs[i];
        jobspec_x(&specs[i])->user = us[i];
    }
    char qpath[] = "/tmp/berth-afq-XXXXXX";
    int fd = mkstemp(qpath);
    const char *qtext = "queue a cohort=c quota=4\nqueue b cohort=c quota=4\nuser u1 max_gpus=6\n";
    if (fd < 0 || write(fd, qtext, strlen(qtext)) != (ssize_t)strlen(qtext) ||
        berth_queues_load(qpath, cl, &queues, &err)) {
        fprintf(stderr, "test_engine_allocfail: queues: %s\n", err.msg);
        return 1;
    }
    close(fd);
    unlink(qpath);
    specs[1].min_gpus = 1; /* an elastic one */
    specs[1].max_gpus = 4;
    int rc = check_main(argc, argv, tests, sizeof tests / sizeof *tests);
    berth_queues_free(queues);
    berth_cluster_free(cl);
    return rc;
}
