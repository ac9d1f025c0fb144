/* The sort of a Gavel round's ranking (policy/gavel_rank.c) against qsort with the comparison
 * gavel.c used before it: random rankings with many ties on priority, deficit and x (so that
 * the job and type tie-breaks decide), in random order, in order, reversed, and nearly in
 * order (a round starts from the last round's ranking with new priorities). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "policy/gavel_rank.h"
#include "util/rng.h"

/* gavel.c's qsort comparison, as it was */
static int cmp_entry(const void *pa, const void *pb)
{
    const struct berth__gavel_entry *a = pa, *b = pb;
    if (a->prio != b->prio)
        return a->prio > b->prio ? -1 : 1;
    if (a->deficit != b->deficit)
        return a->deficit > b->deficit ? -1 : 1;
    if (a->x != b->x)
        return a->x > b->x ? -1 : 1;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    return (a->type > b->type) - (a->type < b->type);
}

/* Few distinct values, 0.0 and -0.0 among them (equal to the comparison). */
static double pick(struct berth__rng *r)
{
    static const double v[] = {0.0, -0.0, 1e9, 0.5, 2.0, -3.0, 1.0 / 3.0};
    return v[berth__rng_below(r, sizeof v / sizeof *v)];
}

static int same(const struct berth__gavel_entry *a, const struct berth__gavel_entry *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].job != b[i].job || a[i].type != b[i].type || a[i].k != b[i].k)
            return 0;
    return 1;
}

static void random_vs_qsort(void)
{
    struct berth__rng r;
    berth__rng_seed(&r, 7);
    enum { MAXN = 700 };
    struct berth__gavel_entry *e = malloc(MAXN * sizeof *e), *want = malloc(MAXN * sizeof *e),
                              *tmp = malloc(MAXN * sizeof *e);
    CHECK(e && want && tmp);
    if (!e || !want || !tmp)
        goto out;
    for (int trial = 0; trial < 400; trial++) {
        size_t n = (size_t)berth__rng_below(&r, trial < 40 ? 40 : MAXN);
        int ntypes = 1 + (int)berth__rng_below(&r, 3);
        for (size_t i = 0; i < n; i++) { /* distinct (job, type): job i / ntypes, type i % */
            e[i] = (struct berth__gavel_entry){.prio = pick(&r),
                                               .deficit = pick(&r),
                                               .x = pick(&r),
                                               .job = (uint32_t)(i / (size_t)ntypes) * 3,
                                               .k = (uint32_t)i,
                                               .type = (int16_t)(i % (size_t)ntypes)};
            if (berth__rng_below(&r, 2))
                e[i].prio = berth__rng_unit(&r); /* mostly distinct priorities too */
        }
        for (size_t i = n; i > 1; i--) { /* shuffle */
            size_t j = (size_t)berth__rng_below(&r, i);
            struct berth__gavel_entry t = e[i - 1];
            e[i - 1] = e[j];
            e[j] = t;
        }
        int shape = trial % 4; /* 0 random, 1 in order, 2 reversed, 3 nearly in order */
        if (shape && n) {
            qsort(e, n, sizeof *e, cmp_entry);
            for (size_t i = 0; shape == 2 && i < n / 2; i++) {
                struct berth__gavel_entry t = e[i];
                e[i] = e[n - 1 - i];
                e[n - 1 - i] = t;
            }
            for (size_t m = 0; shape == 3 && m < n / 20 + 1; m++)
                e[berth__rng_below(&r, n)].prio = berth__rng_unit(&r);
        }
        memcpy(want, e, n * sizeof *e);
        if (n)
            qsort(want, n, sizeof *want, cmp_entry);
        berth__gavel_sort(e, tmp, n);
        CHECK(same(e, want, n));
    }
out:
    free(e);
    free(want);
    free(tmp);
}

/* A hand-made case: priority first, then deficit, x, the lower job, the lower type. */
static void golden(void)
{
    struct berth__gavel_entry e[] = {
        {.prio = 1, .deficit = 0, .x = 0.5, .job = 4, .type = 0},
        {.prio = 2, .deficit = 0, .x = 0.5, .job = 9, .type = 0},
        {.prio = 1, .deficit = 5, .x = 0.5, .job = 7, .type = 0},
        {.prio = 1, .deficit = 0, .x = 0.9, .job = 8, .type = 0},
        {.prio = 1, .deficit = 0, .x = 0.5, .job = 4, .type = -1},
        {.prio = 1, .deficit = 0, .x = 0.5, .job = 2, .type = 1},
    };
    struct berth__gavel_entry tmp[6];
    berth__gavel_sort(e, tmp, 6);
    static const uint32_t job[] = {9, 7, 8, 2, 4, 4};
    static const int16_t type[] = {0, 0, 0, 1, -1, 0};
    for (int i = 0; i < 6; i++) {
        CHECK_I64(e[i].job, job[i]);
        CHECK_I64(e[i].type, type[i]);
    }
}

static const struct check_test tests[] = {
    {"golden", golden},
    {"random_vs_qsort", random_vs_qsort},
};

CHECK_MAIN(tests)
