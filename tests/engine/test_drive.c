/* Tests for the pass-due rule (src/engine/drive.c) that berth sim and berthd share: a
 * change makes a pass due, the policy's timer makes one due when it comes, the timer is
 * kept from pass to pass (asked anew at every tick, a time slice's end would move ahead),
 * and with rounds passes fall only on boundaries, the next one announced while jobs are
 * active. las with a 10-s quantum on one GPU: while a job waits it asks for a pass on the
 * 10-s grid. */
#include <stdlib.h>

#include "check.h"
#include "engine/drive.h"
#include "jobspec_make.h"

#define S BERTH_US_PER_S

static struct berth__engine *mk(struct berth_cluster **c, struct berth_jobspec *specs, int n)
{
    struct berth_err err = {0};
    struct berth__params p = {.quantum_us = 10 * S};
    struct berth__engine *e = NULL;
    CHECK_I64(berth_cluster_parse("1x1:v100", c, &err), 0);
    CHECK_I64(berth__engine_create(*c, "las", NULL, &p, NULL, &e, &err), 0);
    berth__engine_set_check(e, 1);
    for (int i = 0; i < n; i++) {
        uint32_t idx;
        specs[i] = jobspec_make(i ? "b" : "a", 1000 * S, 1, 1, 1);
        CHECK_I64(berth__engine_add(e, &specs[i], &idx, &err), 0);
    }
    return e;
}

static void test_rule(void)
{
    struct berth_cluster *c = NULL;
    struct berth_jobspec specs[2];
    struct berth__engine *e = mk(&c, specs, 2);
    struct berth_err err = {0};
    struct berth__drive dr;
    berth__drive_init(&dr, 0);
    CHECK(!berth__drive_due(&dr, 0)); /* nothing changed, no timer */
    CHECK_I64(berth__engine_arrive(e, 0, 0, &err), 0);
    CHECK_I64(berth__engine_arrive(e, 1, 0, &err), 0);
    berth__drive_touch(&dr);
    CHECK(berth__drive_due(&dr, 0));
    int ran = 0;
    CHECK_I64(berth__drive_step(&dr, e, 0, &ran, &err), 0);
    CHECK(ran);
    CHECK_I64(e->passes, 1);
    CHECK_I64(dr.next, 10 * S); /* b waits: the quantum's grid */
    /* ticks before the timer: no pass, and the timer is not asked again */
    for (berth_us t = 1; t < 10; t++) {
        CHECK_I64(berth__drive_step(&dr, e, t * S, &ran, &err), 0);
        CHECK(!ran);
        CHECK_I64(dr.next, 10 * S);
    }
    /* a tick past the timer (berthd's ticks need not land on it): the pass runs there */
    CHECK_I64(berth__drive_step(&dr, e, 10 * S + 7, &ran, &err), 0);
    CHECK(ran);
    CHECK_I64(e->passes, 2);
    CHECK_I64(dr.next, 20 * S);
    CHECK_I64(e->preemptions, 1); /* a ran its quantum; b took the GPU */
    berth__engine_destroy(e);
    berth_cluster_free(c);
}

static void test_rounds(void)
{
    struct berth_cluster *c = NULL;
    struct berth_jobspec specs[1];
    struct berth__engine *e = mk(&c, specs, 1);
    struct berth_err err = {0};
    struct berth__drive dr;
    berth__drive_init(&dr, 5 * S);
    int ran = 0;
    CHECK_I64(berth__engine_arrive(e, 0, 3 * S, &err), 0);
    berth__drive_touch(&dr);
    CHECK_I64(berth__drive_step(&dr, e, 3 * S, &ran, &err), 0); /* off a boundary: no pass */
    CHECK(!ran);
    CHECK_I64(dr.next, 5 * S);
    CHECK_I64(berth__drive_step(&dr, e, 5 * S, &ran, &err), 0);
    CHECK(ran);
    CHECK_I64(dr.next, 10 * S); /* active: the next boundary */
    CHECK_I64(berth__engine_cancel(e, 0, 6 * S, &err), 0);
    CHECK_I64(berth__drive_step(&dr, e, 10 * S, &ran, &err), 0);
    CHECK(ran);
    CHECK_I64(dr.next, BERTH_TIME_NONE); /* idle: nothing to announce */
    berth__engine_destroy(e);
    berth_cluster_free(c);
}

static const struct check_test tests[] = {
    {"rule", test_rule},
    {"rounds", test_rounds},
};

CHECK_MAIN(tests)
