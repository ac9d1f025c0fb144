/* The dependencies subsystem (src/live/daemon/deps.c) alone, against a fake core: this file
 * defines the five core functions deps.c calls (berth__daemon_hook, _job, _enqueue, _save,
 * _moved), with the contract core.h gives them, and drives the subsystem only through the
 * hooks it registers. No engine, journal, executor or thread: what deps.c decides is all
 * there is to see (which jobs enter the scheduler, when, and which end failed). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "live/daemon/deps.h"

/* ---- the fake core */

static struct berth__daemon D;
static uint64_t entered[64]; /* ids that entered the scheduler, in order */
static size_t nentered, nsaved;

int berth__daemon_hook(struct berth__daemon *d, const struct berth__daemon_hooks *h, void *self,
                       struct berth_err *err)
{
    if (d->nsub >= BERTH_DAEMON_SUBS)
        return berth_err_set(err, BERTH_EINPUT, "too many daemon subsystems");
    d->sub[d->nsub++] = (struct berth__daemon_sub){h, self};
    return 0;
}

struct berth__ljob *berth__daemon_job(struct berth__daemon *d, uint64_t id)
{
    return id >= 1 && id <= d->njobs ? d->jobs[id - 1] : NULL;
}

/* As the core's: past the subsystems' gates, into the scheduler. */
int berth__daemon_enqueue(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                          struct berth_err *err)
{
    (void)err;
    for (int s = 0; s < d->nsub; s++)
        if (j->state != BERTH_L_RUNNING && d->sub[s].h->gate &&
            d->sub[s].h->gate(d, d->sub[s].self, j, now))
            return 0;
    j->in_engine = 1;
    entered[nentered++] = j->id;
    return 0;
}

int berth__daemon_save(struct berth__daemon *d, struct berth__ljob *j, int wait,
                       struct berth_err *err)
{
    (void)d, (void)j, (void)wait, (void)err;
    nsaved++;
    return 0;
}

void berth__daemon_moved(struct berth__daemon *d, struct berth__ljob *j)
{
    for (int s = 0; s < d->nsub; s++)
        if (d->sub[s].h->moved)
            d->sub[s].h->moved(d, d->sub[s].self, j);
}

/* ---- a table of jobs, made fresh for each case */

static const struct berth__daemon_hooks *H;
static void *S;

static void setup(size_t n)
{
    memset(&D, 0, sizeof D);
    nentered = nsaved = 0;
    D.jobs = calloc(n, sizeof *D.jobs);
    D.njobs = n;
    for (size_t i = 0; i < n; i++) {
        D.jobs[i] = calloc(1, sizeof **D.jobs);
        berth__ljob_set_id(D.jobs[i], i + 1);
        D.jobs[i]->state = BERTH_L_PENDING;
    }
    struct berth_err e = {0};
    CHECK_I64(berth__deps_attach(&D, &e), 0);
    CHECK_I64(D.nsub, 1);
    H = D.sub[0].h;
    S = D.sub[0].self;
}

static void teardown(void)
{
    for (size_t i = 0; i < D.njobs; i++)
        berth__ljob_free(D.jobs[i]);
    free(D.jobs);
    H->free(S);
}

static struct berth__ljob *J(uint64_t id)
{
    return D.jobs[id - 1];
}

/* j depends on job on, of type t; it joins the table (the joined hook) */
static void depend(uint64_t j, uint64_t on, int t)
{
    struct berth__ljob *x = J(j);
    x->deps = realloc(x->deps, (x->ndeps + 1) * sizeof *x->deps);
    x->deps[x->ndeps++] = (struct berth__ldep){on, (uint8_t)t};
}

static void submit(uint64_t id)
{
    struct berth_err e = {0};
    CHECK_I64(H->joined(&D, S, J(id)), 0);
    CHECK_I64(berth__daemon_enqueue(&D, J(id), 0, &e), 0);
}

static void end(uint64_t id, int state)
{
    J(id)->state = state;
    J(id)->in_engine = 0;
    J(id)->end_us = 10;
    berth__daemon_moved(&D, J(id));
}

static void tick(void)
{
    struct berth_err e = {0};
    CHECK_I64(H->tick(&D, S, 20, &e), 0);
}

/* afterok: 2 waits while 1 runs, names 1 in its reason, and enters at the tick after 1
 * completed; a moved job keeps the purge off until that tick. */
static void test_afterok_waits_then_enters(void)
{
    setup(2);
    CHECK_STR(H->name, "dependencies");
    submit(1);
    J(1)->state = BERTH_L_RUNNING;
    J(1)->start_us = 5;
    depend(2, 1, BERTH_DEP_OK);
    submit(2);
    CHECK_I64(nentered, 1);
    CHECK_I64(J(2)->dep_wait, 1);
    char buf[256];
    CHECK_STR(H->reason(&D, S, J(2), buf, sizeof buf), "Dependency");
    CHECK_HAS(buf, "afterok:1 (job 1 is running)");
    CHECK_I64(H->keeps(&D, S, J(1)), 1); /* 2 waits on it */
    CHECK_I64(H->busy(&D, S), 0);
    end(1, BERTH_L_COMPLETED);
    CHECK_I64(H->busy(&D, S), 1);
    CHECK_I64(nentered, 1); /* not before the tick */
    tick();
    CHECK_I64(nentered, 2);
    CHECK_I64(entered[1], 2);
    CHECK_I64(J(2)->dep_wait, 0);
    CHECK_I64(H->busy(&D, S), 0);
    tick(); /* nothing moved: nothing enters twice */
    CHECK_I64(nentered, 2);
    teardown();
}

/* afterok on a job that fails: its dependent ends failed (saved, naming why), and that
 * dependent's own afterany dependent enters in the same tick. */
static void test_never_cascades(void)
{
    setup(3);
    submit(1);
    J(1)->state = BERTH_L_RUNNING;
    J(1)->start_us = 5;
    depend(2, 1, BERTH_DEP_OK);
    submit(2);
    depend(3, 2, BERTH_DEP_ANY);
    submit(3);
    CHECK_I64(nentered, 1);
    end(1, BERTH_L_FAILED);
    tick();
    CHECK_I64(J(2)->state, BERTH_L_FAILED);
    CHECK(J(2)->nhist > 0);
    CHECK_HAS(J(2)->hist[J(2)->nhist - 1].note,
              "dependency never satisfied: afterok:1 can never be met: job 1 ended failed");
    CHECK(nsaved >= 1);
    CHECK_I64(nentered, 2);
    CHECK_I64(entered[1], 3);
    CHECK_I64(H->keeps(&D, S, J(2)), 1); /* 3 has not ended: 2 stays in memory */
    end(3, BERTH_L_COMPLETED);
    CHECK_I64(H->keeps(&D, S, J(2)), 0);
    teardown();
}

/* afternotok on a job that completes can never be met; after (started) is met by a start. */
static void test_notok_and_after(void)
{
    setup(3);
    submit(1);
    depend(2, 1, BERTH_DEP_NOTOK);
    submit(2);
    depend(3, 1, BERTH_DEP_AFTER);
    submit(3);
    J(3)->in_engine = 0;
    CHECK_I64(nentered, 1); /* 1 itself; 2 and 3 wait */
    J(1)->state = BERTH_L_RUNNING;
    J(1)->start_us = 5;
    berth__daemon_moved(&D, J(1));
    tick();
    CHECK_I64(nentered, 2);
    CHECK_I64(entered[1], 3); /* after: 1 started */
    end(1, BERTH_L_COMPLETED);
    tick();
    CHECK_I64(J(2)->state, BERTH_L_FAILED);
    CHECK_I64(nentered, 2);
    teardown();
}

/* An array of four with throttle %2: two tasks inside, the others wait (JobArrayTaskLimit)
 * and enter in index order as tasks end. */
static void test_array_throttle(void)
{
    setup(4);
    for (uint64_t i = 1; i <= 4; i++) {
        J(i)->array_id = 1;
        J(i)->array_task = (uint32_t)i - 1;
        J(i)->array_n = 4;
        J(i)->array_max = 2;
    }
    for (uint64_t i = 1; i <= 4; i++)
        submit(i);
    CHECK_I64(nentered, 2);
    CHECK_I64(J(3)->array_wait, 1);
    CHECK_I64(J(4)->array_wait, 1);
    char buf[256];
    CHECK_STR(H->reason(&D, S, J(4), buf, sizeof buf), "JobArrayTaskLimit");
    CHECK_HAS(buf, "2 tasks of array 1 are in the scheduler, its throttle (%2)");
    end(1, BERTH_L_COMPLETED);
    tick();
    CHECK_I64(nentered, 3);
    CHECK_I64(entered[2], 3);
    CHECK_I64(J(4)->array_wait, 1);
    end(2, BERTH_L_COMPLETED);
    tick();
    CHECK_I64(nentered, 4);
    CHECK_I64(entered[3], 4);
    CHECK(H->reason(&D, S, J(4), buf, sizeof buf) == NULL);
    teardown();
}

/* A job with no dependents and no array moves nothing: no tick work, no purge hold. */
static void test_unwatched_moves_nothing(void)
{
    setup(1);
    submit(1);
    end(1, BERTH_L_COMPLETED);
    CHECK_I64(H->busy(&D, S), 0);
    CHECK_I64(H->keeps(&D, S, J(1)), 0);
    teardown();
}

static const struct check_test tests[] = {
    {"afterok_waits_then_enters", test_afterok_waits_then_enters},
    {"never_cascades", test_never_cascades},
    {"notok_and_after", test_notok_and_after},
    {"array_throttle", test_array_throttle},
    {"unwatched_moves_nothing", test_unwatched_moves_nothing},
};

CHECK_MAIN(tests)
