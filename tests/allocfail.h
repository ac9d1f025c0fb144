/* Allocation-failure injection, the way SQLite tests itself: a scenario (a few library calls
 * that clean up after themselves) runs again and again with the 1st, 2nd, 3rd, ... counted
 * allocation failing, until a run completes without reaching the armed failure. After every
 * run that hit it: the scenario returned an error (BERTH_ENOMEM, or BERTH_EIO where that is
 * the API's documented answer), err holds that code and a message, nothing crashed, and every
 * block allocated during the run was freed again; under AddressSanitizer LeakSanitizer also
 * looks for unreachable blocks once a scenario is done (and again at exit).
 *
 * What is counted (tests/allocfail.c): malloc, calloc, realloc, strdup, strndup and fopen as
 * called by the test program and the static libraries linked into it (tests/CMakeLists.txt
 * links every test_*_allocfail with -Wl,--wrap for each), plus jansson's and SQLite's own
 * allocations once routed here through their hooks, except within jansson's parser (its
 * json_load* functions crash when an allocation fails: see allocfail.c). Never counted: what
 * GLPK and libc allocate inside themselves (qsort's buffer, a FILE's buffer after fopen);
 * GLPK's own allocator aborts the process when it fails, so nothing can test it. */
#ifndef BERTH_TESTS_ALLOCFAIL_H
#define BERTH_TESTS_ALLOCFAIL_H

#include <stdio.h>
#include <string.h>

#include "berth/err.h"
#include "check.h"

/* ---- the counting allocator (tests/allocfail.c) --------------------------------------- */

/* Starts counting from zero: the n-th counted call from now fails (n = 0: none does), and
 * with every_after set every call after it fails too. */
void allocfail_arm(long n, int every_after);
/* Stops failing; returns the calls counted since allocfail_arm. */
long allocfail_disarm(void);
/* The calls failed since allocfail_arm; *what (may be NULL) names the first ("malloc"). */
long allocfail_failed(const char **what);
/* Between allocfail_pause(1) and allocfail_pause(0) (they nest), calls are neither counted
 * nor failed, only tracked (a scenario's own checks allocate). */
void allocfail_pause(int on);
/* Blocks handed out by the counting allocator and not yet freed. */
long allocfail_live(void);
/* jansson's allocations (json_set_alloc_funcs) and SQLite's (SQLITE_CONFIG_MALLOC, before
 * its first use; returns 0 or -1) go through the counting allocator too. */
void allocfail_route_jansson(void);
int allocfail_route_sqlite(void);
/* Names what runs now, for the line printed when the program crashes. */
void allocfail_where(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* LeakSanitizer's check of the heap now: 1 when it found leaks (and printed them), 0 when not,
 * -1 in a build without it. */
int allocfail_leak_check(void);

/* ---- the driver ----------------------------------------------------------------------- */

struct allocfail_case {
    const char *name;
    /* Runs the scenario once: 0 when it completed, else the error its API returned, with err
     * filled. Whatever happened, everything it made is freed before it returns. */
    int (*run)(void *ctx, struct berth_err *err);
    void *ctx;
    long stride;  /* fail every stride-th allocation only (0 or 1: every one) */
    long dense;   /* with a stride: the first dense calls are still failed one by one */
    int also_eio; /* BERTH_EIO is the documented answer to SQLite's allocation failures */
    /* A failure the code may absorb, as the calls whose name starts with this ("sqlite3_":
     * SQLite's benign allocations; NULL: none): success after one is right, as long as run's
     * own checks pass. */
    const char *absorbs;
};

struct allocfail_tally {
    long calls;      /* counted calls in a run without failure */
    long points;     /* runs with the n-th call failing (each one checked) */
    long persistent; /* runs with every call from the n-th on failing */
    long absorbed;   /* runs that succeeded although a call failed (absorbs only) */
};

/* One run with the n-th call failing (and every call after it with every_after); 0 when the
 * run completed without reaching it, 1 when it was reached (and the run was checked). */
static inline int allocfail_once(const struct allocfail_case *c, long n, int every_after,
                                 struct allocfail_tally *t)
{
    struct berth_err err;
    memset(&err, 0, sizeof err);
    int before = check_failures;
    long live0 = allocfail_live();
    const char *what = NULL;
    allocfail_where("%s: call %ld failing%s", c->name, n,
                    every_after ? " and every one after" : "");
    allocfail_arm(n, every_after);
    int rc = c->run(c->ctx, &err);
    allocfail_disarm();
    long nfailed = allocfail_failed(&what);
    long leaked = allocfail_live() - live0;
    if (!nfailed) {
        if (rc)
            fprintf(stderr, "  %s: failed with no allocation failing: %s\n", c->name, err.msg);
        CHECK_I64(rc, 0);
    } else if (!rc) {
        if (c->absorbs && !strncmp(what, c->absorbs, strlen(c->absorbs)))
            t->absorbed++;
        else {
            fprintf(stderr, "  %s: reported success although %s failed\n", c->name, what);
            CHECK(rc != 0);
        }
    } else {
        /* EIO: a file that could not be opened, or (also_eio) SQLite's failure, which with
         * every later call failing too may follow a failure of another allocator */
        int eio = !strcmp(what, "fopen") ||
                  (c->also_eio && (every_after || !strncmp(what, "sqlite3_", 8)));
        int ok = rc == BERTH_ENOMEM || (rc == BERTH_EIO && eio);
        if (!ok)
            fprintf(stderr, "  %s: %s failed, the error: %d (%s): %s\n", c->name, what, rc,
                    berth_strerror(rc), err.msg);
        CHECK(ok);
        CHECK_I64(err.code, rc);
        CHECK(err.msg[0] != '\0');
    }
    if (leaked)
        fprintf(stderr, "  %s: %ld blocks not freed\n", c->name, leaked);
    CHECK_I64(leaked, 0);
    if (check_failures != before)
        fprintf(stderr, "  (%s: counted call %ld of %ld failing%s, the first to fail: %s)\n",
                c->name, n, t->calls, every_after ? " and every one after" : "",
                what ? what : "none");
    return nfailed > 0;
}

/* Drives c through its allocations: first a run without failure (it must succeed and gives
 * the count), then every stride-th call failing alone, then the same calls failing with
 * every one after them (what a real shortage looks like: the cleanup must not need memory).
 * Prints one line with the counts; fills t when given. */
static inline void allocfail_drive(const struct allocfail_case *c, struct allocfail_tally *out)
{
    struct allocfail_tally t = {0, 0, 0, 0};
    long stride = c->stride > 1 ? c->stride : 1;
    struct berth_err err;
    memset(&err, 0, sizeof err);
    long live0 = allocfail_live();
    allocfail_where("%s: no call failing", c->name);
    allocfail_arm(0, 0);
    int rc = c->run(c->ctx, &err);
    t.calls = allocfail_disarm();
    if (rc)
        fprintf(stderr, "  %s: failed with no allocation failing: %s\n", c->name, err.msg);
    CHECK_I64(rc, 0);
    CHECK_I64(allocfail_live() - live0, 0);
    CHECK(t.calls > 0); /* a scenario that allocates nothing tests nothing */
    /* a run may count more calls than the first (another thread's timing): go on until one
     * completes, within a bound that stops a scenario that never does */
    long limit = 2 * t.calls + 100;
    for (int every = 0; every <= 1; every++) {
        long n = 1;
        while (n <= limit && allocfail_once(c, n, every, &t)) {
            if (every)
                t.persistent++;
            else
                t.points++;
            n += n < c->dense ? 1 : stride;
        }
        if (n > limit)
            fprintf(stderr, "  %s: still failing at call %ld\n", c->name, n);
        CHECK(n <= limit);
    }
    int leaks = allocfail_leak_check();
    if (leaks > 0)
        fprintf(stderr, "  %s: LeakSanitizer found leaks (above)\n", c->name);
    CHECK(leaks <= 0);
    allocfail_where("%s: done", c->name);
    char how[64] = "";
    if (stride > 1)
        snprintf(how, sizeof how, " (every call up to %ld, then one in %ld)", c->dense, stride);
    printf("     %s: %ld calls counted; %ld runs with one failing%s, %ld with every one after "
           "it failing too",
           c->name, t.calls, t.points, how, t.persistent);
    if (t.absorbed)
        printf("; %ld failures absorbed (%s)", t.absorbed, c->absorbs ? c->absorbs : "?");
    printf("\n");
    if (out)
        *out = t;
}

#endif
