/* Tests for the throughput model (src/model/tput.c), its loaders (src/io/tput_gavel.c,
 * tput_lucid.c) and the built-in catalog (src/model/tput_catalog.c): hand-computed rates
 * between, above and below measured gang sizes, spread rates, pairs; small Gavel and Lucid
 * files, good and bad, with their exact messages; Gavel's and Lucid's real files from
 * $BERTH_SHARED; the catalog against Gavel's file, figure by figure. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "model/tput.h"
#include "model/tput_catalog.h"
#include "simtest.h"

/* ---- helpers -------------------------------------------------------------------------- */

static int class_of(const struct berth_tput *m, const char *name)
{
    int c = berth__tput_class_find(m, name);
    if (c < 0)
        fprintf(stderr, "  (no class \"%s\")\n", name);
    return c;
}

static int type_of(const struct berth_tput *m, const char *name)
{
    int t = berth__tput_type_find(m, name);
    if (t < 0)
        fprintf(stderr, "  (no GPU type \"%s\")\n", name);
    return t;
}

/* Loads text (written to a temporary file named *suffix) as a Gavel table or, with m_lucid
 * given, adds it as Lucid pairs to m_lucid. The file's path is left in path for checking
 * messages; the file is removed. */
static int load_text(const char *text, const char *suffix, struct berth_tput **out,
                     struct berth_tput *m_lucid, struct berth_err *err, char path[96])
{
    const char *p = simtest_write_named(text, suffix);
    if (!p) {
        perror("mkstemps");
        exit(2);
    }
    snprintf(path, 96, "%s", p);
    memset(err, 0, sizeof *err);
    int rc = m_lucid ? berth_tput_add_lucid_pairs(m_lucid, path, err)
                     : berth_tput_load_gavel(path, out, err);
    unlink(path);
    return rc;
}

/* A shared file's path ($BERTH_SHARED/traces/REL), or NULL (test skipped) when unreadable. */
static const char *shared_file(char *buf, size_t cap, const char *rel)
{
    const char *shared = getenv("BERTH_SHARED");
    snprintf(buf, cap, "%s/traces/%s", shared ? shared : "../shared", rel);
    if (access(buf, R_OK)) {
        fprintf(stderr, "  (skipped: %s not readable)\n", buf);
        return NULL;
    }
    return buf;
}

/* ---- the model ------------------------------------------------------------------------ */

/* Class x on v100: 1 -> 10, 2 -> 18, 4 -> 30, 8 -> 40 steps/s; class y: 2 -> 8, 4 -> 12. */
static struct berth_tput *small_model(int *x, int *y, int *v100, int *k80)
{
    struct berth_tput *m = berth__tput_new();
    CHECK(m != NULL);
    CHECK_I64(berth__tput_add_type(m, "v100", v100), 0);
    CHECK_I64(berth__tput_add_type(m, "k80", k80), 0);
    CHECK_I64(berth__tput_add_class(m, "x", x), 0);
    CHECK_I64(berth__tput_add_class(m, "y", y), 0);
    static const struct {
        int32_t gpus;
        double rate;
    } xs[] = {{4, 30}, {1, 10}, {8, 40}, {2, 18}}; /* out of order on purpose */
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
        CHECK_I64(berth__tput_add_point(m, *x, *v100, xs[i].gpus, 0, xs[i].rate), 0);
    CHECK_I64(berth__tput_add_point(m, *y, *v100, 2, 0, 8), 0);
    CHECK_I64(berth__tput_add_point(m, *y, *v100, 4, 0, 12), 0);
    return m;
}

static void test_interpolation(void)
{
    int x, y, v100, k80;
    struct berth_tput *m = small_model(&x, &y, &v100, &k80);
    static const struct {
        int32_t gpus;
        double want;
    } cases[] = {
        {1, 10},   {2, 18},   {4, 30}, {8, 40}, /* measured */
        {3, 24},                                /* 18 + (30 - 18) * 1/2 */
        {5, 32.5},                              /* 30 + (40 - 30) * 1/4 */
        {6, 35},   {7, 37.5},                   /* 30 + 10 * 2/4, 3/4 */
        {12, 60},  {16, 80},                    /* above the largest: 40 * g / 8 */
        {9, 45},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK_DBL(berth__tput_rate(m, x, v100, cases[i].gpus, 0), cases[i].want, 1e-12);
    /* below the smallest: 8 * 1 / 2 */
    CHECK_DBL(berth__tput_rate(m, y, v100, 1, 0), 4, 1e-12);
    CHECK_DBL(berth__tput_rate(m, y, v100, 3, 0), 10, 1e-12);
    CHECK_DBL(berth__tput_rate(m, y, v100, 8, 0), 24, 1e-12);
    /* the same point twice keeps the last */
    CHECK_I64(berth__tput_add_point(m, y, v100, 4, 0, 16), 0);
    CHECK_DBL(berth__tput_rate(m, y, v100, 4, 0), 16, 0);
    /* no points on k80, no GPUs, unknown numbers */
    CHECK_DBL(berth__tput_rate(m, x, k80, 4, 0), 0, 0);
    CHECK_DBL(berth__tput_rate(m, x, k80, 4, 1), 0, 0);
    CHECK_DBL(berth__tput_rate(m, x, v100, 0, 0), 0, 0);
    CHECK_DBL(berth__tput_rate(m, -1, v100, 1, 0), 0, 0);
    CHECK_DBL(berth__tput_rate(m, 2, v100, 1, 0), 0, 0);
    CHECK_DBL(berth__tput_rate(m, x, -1, 1, 0), 0, 0);
    CHECK_DBL(berth__tput_rate(m, x, 7, 1, 0), 0, 0);
    berth_tput_free(m);
}

/* A class keeps the rates it was asked for: asked again, a random model answers as it did
 * the first time (a scan of its points); a point added or changed afterwards, or a type
 * added, answers as a model built with it from the start; gangs above 64 GPUs (not kept)
 * too. */
static void test_kept_rates_follow_points(void)
{
    uint64_t x = 99;
#define RNDT(n) ((int)((x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 33) % (n))
    for (int round = 0; round < 50; round++) {
        struct berth_tput *m = berth__tput_new(), *fresh = berth__tput_new();
        CHECK(m != NULL && fresh != NULL);
        int t[3], c, tf[3], cf;
        static const char *types[] = {"v100", "p100", "k80"};
        for (int i = 0; i < 2; i++) {
            CHECK_I64(berth__tput_add_type(m, types[i], &t[i]), 0);
            CHECK_I64(berth__tput_add_type(fresh, types[i], &tf[i]), 0);
        }
        CHECK_I64(berth__tput_add_class(m, "a", &c), 0);
        CHECK_I64(berth__tput_add_class(fresh, "a", &cf), 0);
        struct {
            int ty, spread;
            int32_t gpus;
            double rate;
        } pts[12]; /* every point given to m, in order (the fresh model gets them all) */
        int np = 0;
        for (int i = 0; i < 6; i++, np++) {
            pts[np].ty = RNDT(2);
            pts[np].spread = RNDT(2);
            pts[np].gpus = 1 << RNDT(4);
            pts[np].rate = 1 + RNDT(1000) / 10.0;
        }
        for (int i = 0; i < np; i++)
            CHECK_I64(
                berth__tput_add_point(m, c, t[pts[i].ty], pts[i].gpus, pts[i].spread, pts[i].rate),
                0);
        double first[2][2][70];
        for (int ty = 0; ty < 2; ty++)
            for (int sp = 0; sp < 2; sp++)
                for (int32_t g = 1; g < 70; g++)
                    first[ty][sp][g] = berth__tput_rate(m, c, t[ty], g, sp);
        for (int ty = 0; ty < 2; ty++) /* asked again: what it answered */
            for (int sp = 0; sp < 2; sp++)
                for (int32_t g = 1; g < 70; g++)
                    CHECK_DBL(berth__tput_rate(m, c, t[ty], g, sp), first[ty][sp][g], 0);
        /* a third type, the first point changed and a new one, then every rate as a fresh
         * model's */
        CHECK_I64(berth__tput_add_type(m, types[2], &t[2]), 0);
        CHECK_I64(berth__tput_add_type(fresh, types[2], &tf[2]), 0);
        pts[np] = pts[0];
        pts[np++].rate += 7;
        pts[np].ty = RNDT(3);
        pts[np].spread = 0;
        pts[np].gpus = 3;
        pts[np++].rate = 2.5;
        for (int i = np - 2; i < np; i++)
            CHECK_I64(
                berth__tput_add_point(m, c, t[pts[i].ty], pts[i].gpus, pts[i].spread, pts[i].rate),
                0);
        for (int i = 0; i < np; i++)
            CHECK_I64(berth__tput_add_point(fresh, cf, tf[pts[i].ty], pts[i].gpus, pts[i].spread,
                                            pts[i].rate),
                      0);
        for (int ty = 0; ty < 3; ty++)
            for (int sp = 0; sp < 2; sp++)
                for (int32_t g = 1; g < 70; g++)
                    CHECK_DBL(berth__tput_rate(m, c, t[ty], g, sp),
                              berth__tput_rate(fresh, cf, tf[ty], g, sp), 0);
        berth_tput_free(m);
        berth_tput_free(fresh);
    }
#undef RNDT
}

/* Rates near the largest double (any number >= 0 loads): what the rule gives, computed
 * without overflowing, and past the largest double the largest double (found by
 * fuzz_tput-gavel: ('x', 10000) at 1e308 gave inf at 2 GPUs). */
static void test_huge_rates(void)
{
    struct berth_tput *m = berth__tput_new();
    int t, a, b, c;
    CHECK(m != NULL);
    CHECK_I64(berth__tput_add_type(m, "v100", &t), 0);
    CHECK_I64(berth__tput_add_class(m, "a", &a), 0);
    CHECK_I64(berth__tput_add_class(m, "b", &b), 0);
    CHECK_I64(berth__tput_add_class(m, "c", &c), 0);
    CHECK_I64(berth__tput_add_point(m, a, t, 10000, 0, 1e308), 0);
    CHECK_DBL(berth__tput_rate(m, a, t, 2, 0), 2e304, 1e290); /* below the smallest */
    CHECK_I64(berth__tput_add_point(m, b, t, 1, 0, 1e308), 0);
    CHECK_DBL(berth__tput_rate(m, b, t, 17, 0), DBL_MAX, 0); /* above: saturates */
    CHECK_I64(berth__tput_add_point(m, c, t, 1, 0, 0), 0);
    CHECK_I64(berth__tput_add_point(m, c, t, 10001, 0, 1e308), 0);
    CHECK_DBL(berth__tput_rate(m, c, t, 5001, 0), 5e307, 1e294); /* between */
    for (int32_t g = 1; g <= 20000; g += 7) {
        double r = berth__tput_rate(m, c, t, g, 0);
        CHECK(isfinite(r) && r >= 0);
    }
    berth_tput_free(m);
}

static void test_spread(void)
{
    int x, y, v100, k80;
    struct berth_tput *m = small_model(&x, &y, &v100, &k80);
    CHECK_I64(berth__tput_add_point(m, x, v100, 2, 1, 15), 0);
    CHECK_I64(berth__tput_add_point(m, x, v100, 4, 1, 24), 0);
    CHECK_I64(berth__tput_add_point(m, x, v100, 1, 1, 99), 0); /* one GPU: never used */
    CHECK_DBL(berth__tput_rate(m, x, v100, 2, 1), 15, 0);
    CHECK_DBL(berth__tput_rate(m, x, v100, 3, 1), 19.5, 1e-12); /* 15 + 9 / 2 */
    CHECK_DBL(berth__tput_rate(m, x, v100, 8, 1), 48, 1e-12);   /* 24 * 8 / 4 */
    CHECK_DBL(berth__tput_rate(m, x, v100, 1, 1), 10, 0);       /* one GPU: its rate */
    CHECK_DBL(berth__tput_rate(m, x, v100, 4, 0), 30, 0);       /* one server unchanged */
    /* y has no spread points: its rate times its spread factor (1.0 unless set) */
    CHECK_DBL(berth__tput_rate(m, y, v100, 4, 1), 12, 0);
    berth__tput_set_spread(m, y, 0.5);
    CHECK_DBL(berth__tput_rate(m, y, v100, 4, 1), 6, 1e-12);
    CHECK_DBL(berth__tput_rate(m, y, v100, 4, 0), 12, 0);
    CHECK_DBL(berth__tput_rate(m, y, v100, 1, 1), 4, 1e-12); /* one GPU is never spread */
    /* the run's choices: no measured points (the one-server rate), or a run factor, which
     * wins over the points; a class factor wins over both */
    struct berth__spread off = {0, 0}, half = {0.5, 1};
    CHECK_DBL(berth__tput_rate_sp(m, &off, x, v100, 4, 1), 30, 0);
    CHECK_DBL(berth__tput_rate_sp(m, &half, x, v100, 4, 1), 15, 1e-12);
    CHECK_DBL(berth__tput_rate_sp(m, &half, x, v100, 4, 0), 30, 0);
    CHECK_DBL(berth__tput_rate_sp(m, &half, y, v100, 4, 1), 6, 1e-12); /* y's own 0.5 */
    CHECK_DBL(berth__tput_rate_sp(m, NULL, x, v100, 4, 1), 24, 0);     /* NULL: measured */
    /* the ratio a fixed-speed job slows by: 24/30 measured, 1 without points or measurements,
     * the factors as given; one GPU is never spread */
    CHECK_DBL(berth__tput_spread_ratio(m, NULL, x, v100, 4), 0.8, 1e-12);
    CHECK_DBL(berth__tput_spread_ratio(m, &off, x, v100, 4), 1, 0);
    CHECK_DBL(berth__tput_spread_ratio(m, &half, x, v100, 4), 0.5, 0);
    CHECK_DBL(berth__tput_spread_ratio(m, NULL, y, v100, 4), 0.5, 0);
    CHECK_DBL(berth__tput_spread_ratio(m, NULL, x, v100, 1), 1, 0);
    CHECK_DBL(berth__tput_spread_ratio(m, &half, -1, -1, 2), 0.5, 0); /* no class */
    CHECK_DBL(berth__tput_spread_ratio(NULL, NULL, -1, -1, 2), 1, 0);
    berth__tput_set_spread(m, -1, 0.75);
    CHECK_DBL(berth__tput_rate(m, y, v100, 4, 1), 9, 1e-12);
    CHECK_DBL(berth__tput_rate(m, x, v100, 4, 1), 22.5, 1e-12); /* the factor wins: 30 x 0.75 */
    /* a spread point of one GPU alone tells nothing: the factor applies */
    int z;
    CHECK_I64(berth__tput_add_class(m, "z", &z), 0);
    CHECK_I64(berth__tput_add_point(m, z, k80, 1, 0, 4), 0);
    CHECK_I64(berth__tput_add_point(m, z, k80, 2, 0, 6), 0);
    CHECK_I64(berth__tput_add_point(m, z, k80, 1, 1, 4), 0);
    berth__tput_set_spread(m, z, 0.8); /* a class added later starts at 1.0 */
    CHECK_DBL(berth__tput_rate(m, z, k80, 2, 1), 6 * 0.8, 1e-12);
    CHECK_DBL(berth__tput_rate(m, z, k80, 4, 1), 12 * 0.8, 1e-12);
    berth_tput_free(m);
}

/* A measured 0 ("does not run", Gavel's K80 ResNet-50 at batch size 128 on 2+ GPUs). */
static void test_zero_points(void)
{
    struct berth_tput *m = berth__tput_new();
    int c, t;
    CHECK_I64(berth__tput_add_type(m, "k80", &t), 0);
    CHECK_I64(berth__tput_add_class(m, "big", &c), 0);
    CHECK_I64(berth__tput_add_point(m, c, t, 1, 0, 0.5), 0);
    for (int32_t g = 2; g <= 8; g *= 2)
        CHECK_I64(berth__tput_add_point(m, c, t, g, 0, 0.0), 0);
    CHECK_I64(berth__tput_add_point(m, c, t, 1, 1, 0.5), 0);
    CHECK_DBL(berth__tput_rate(m, c, t, 1, 0), 0.5, 0);
    for (int32_t g = 2; g <= 16; g++) {
        CHECK_DBL(berth__tput_rate(m, c, t, g, 0), 0, 0);
        CHECK_DBL(berth__tput_rate(m, c, t, g, 1), 0, 0); /* not 0.5 * g from the spread point */
    }
    berth_tput_free(m);
}

static void test_names(void)
{
    int x, y, v100, k80;
    struct berth_tput *m = small_model(&x, &y, &v100, &k80);
    CHECK_I64(berth_tput_class_count(m), 2);
    CHECK_I64(berth_tput_type_count(m), 2);
    CHECK_STR(berth_tput_class_name(m, (size_t)x), "x");
    CHECK_STR(berth_tput_class_name(m, (size_t)y), "y");
    CHECK(berth_tput_class_name(m, 2) == NULL);
    CHECK_STR(berth_tput_type_name(m, (size_t)v100), "v100");
    CHECK(berth_tput_type_name(m, 2) == NULL);
    CHECK_I64(berth__tput_class_find(m, "x"), x);
    CHECK_I64(berth__tput_class_find(m, "X"), -1); /* classes: exact */
    CHECK_I64(berth__tput_class_find(m, "nope"), -1);
    CHECK_I64(berth__tput_type_find(m, "V100"), v100); /* types: any case */
    CHECK_I64(berth__tput_type_find(m, "a100"), -1);
    int again;
    CHECK_I64(berth__tput_add_class(m, "x", &again), 0);
    CHECK_I64(again, x);
    CHECK_I64(berth__tput_add_type(m, "K80", &again), 0);
    CHECK_I64(again, k80);
    CHECK_I64(berth_tput_type_count(m), 2);
    /* many classes: the name index grows */
    char name[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "class %d", i);
        CHECK_I64(berth__tput_add_class(m, name, &again), 0);
    }
    CHECK_I64(berth_tput_class_count(m), 1002);
    CHECK_I64(berth__tput_class_find(m, "class 777"), 779);
    /* the table is full at BERTH_TPUT_MAX classes (16 bits in a job's record): a new name
     * says so (not "out of memory"), a known one is still found */
    for (int i = 1000; berth_tput_class_count(m) < BERTH_TPUT_MAX; i++) {
        snprintf(name, sizeof name, "class %d", i);
        if (berth__tput_add_class(m, name, &again))
            break;
    }
    CHECK_I64(berth_tput_class_count(m), BERTH_TPUT_MAX);
    CHECK_I64(berth__tput_add_class(m, "one too many", &again), BERTH_TPUT_FULL);
    CHECK_I64(berth__tput_add_class(m, "class 777", &again), 0);
    CHECK_I64(again, 779);
    berth_tput_free(m);
    berth_tput_free(NULL);
}

/* A Gavel table with more job types than a job's record can number: the loader's message
 * names the file, the type and the limit. */
static void test_gavel_too_many(void)
{
    size_t cap = 48 * (BERTH_TPUT_MAX + 2), o = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text)
        return;
    o += (size_t)snprintf(text + o, cap - o, "{\"v100\": {");
    for (int i = 0; i <= BERTH_TPUT_MAX; i++)
        o +=
            (size_t)snprintf(text + o, cap - o, "%s\"('J%d', 1)\": {\"null\": 1}", i ? "," : "", i);
    snprintf(text + o, cap - o, "}}");
    struct berth_tput *m = NULL;
    struct berth_err err;
    char path[96];
    CHECK_I64(load_text(text, ".json", &m, NULL, &err, path), BERTH_EINPUT);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, "job type \"J32767\": more than 32767 job types");
    CHECK(m == NULL);
    berth_tput_free(m);
    free(text);
}

static void test_pairs(void)
{
    int x, y, v100, k80;
    struct berth_tput *m = small_model(&x, &y, &v100, &k80);
    CHECK_DBL(berth__tput_pair(m, x, y, v100), 0, 0); /* nothing known yet */
    CHECK_I64(berth__tput_add_pair(m, x, y, v100, 0.7), 0);
    CHECK_I64(berth__tput_add_pair(m, x, y, -1, 0.9), 0);
    CHECK_I64(berth__tput_add_pair(m, y, y, -1, 0.5), 0);
    CHECK_DBL(berth__tput_pair(m, x, y, v100), 0.7, 0); /* measured on v100 */
    CHECK_DBL(berth__tput_pair(m, x, y, k80), 0.9, 0);  /* any type */
    CHECK_DBL(berth__tput_pair(m, x, y, -1), 0.9, 0);
    CHECK_DBL(berth__tput_pair(m, y, x, v100), 0, 0); /* the other way is another pair */
    CHECK_DBL(berth__tput_pair(m, y, y, k80), 0.5, 0);
    CHECK_DBL(berth__tput_pair(m, -1, y, k80), 0, 0);
    CHECK_I64(berth__tput_add_pair(m, x, y, v100, 0.6), 0); /* again: the last wins */
    CHECK_DBL(berth__tput_pair(m, x, y, v100), 0.6, 0);
    CHECK_I64(berth__tput_add_pair(m, 1 << 23, y, v100, 0.6), -1); /* class number too large */
    /* many pairs: the table grows and keeps them all */
    char name[32];
    int c[300];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "p%d", i);
        CHECK_I64(berth__tput_add_class(m, name, &c[i]), 0);
    }
    for (int i = 0; i < 300; i++)
        CHECK_I64(berth__tput_add_pair(m, c[i], c[(i * 7) % 300], i % 2 ? k80 : -1,
                                       (double)(i + 1) / 1000),
                  0);
    for (int i = 0; i < 300; i++)
        CHECK_DBL(berth__tput_pair(m, c[i], c[(i * 7) % 300], k80), (double)(i + 1) / 1000, 0);
    CHECK_DBL(berth__tput_pair(m, c[1], c[7], v100), 0, 0); /* measured on k80 only */
    berth_tput_free(m);
}

/* ---- Gavel's table -------------------------------------------------------------------- */

/* Two job types on v100 and k80, the spread section of v100, pairs of 1 and of 2 GPUs, a
 * measured zero, keys in Gavel's order (pairs before "null" too). */
static const char gavel_sample[] =
    "{\n"
    "  \"v100\": {\n"
    "    \"('A (batch size 8)', 1)\": {\"null\": 4.0, \"('A (batch size 8)', 1)\": [1.0, 1.0],\n"
    "                                \"('B', 1)\": [3.0, 2.0]},\n"
    "    \"('B', 1)\": {\"('A (batch size 8)', 1)\": [2.0, 3.0], \"null\": 8,\n"
    "                  \"('B', 1)\": [0.0, 0.0]},\n"
    "    \"('A (batch size 8)', 2)\": {\"null\": 6.5, \"('A (batch size 8)', 2)\": [3, 3]},\n"
    "    \"('A (batch size 8)', 4)\": {\"null\": 10.5}\n"
    "  },\n"
    "  \"v100_unconsolidated\": {\n"
    "    \"('A (batch size 8)', 1)\": {\"null\": 4.0, \"('B', 1)\": [1.0, 1.0]},\n"
    "    \"('A (batch size 8)', 2)\": {\"null\": 5.0}\n"
    "  },\n"
    "  \"k80\": {\n"
    "    \"('A (batch size 8)', 1)\": {\"null\": 1.5},\n"
    "    \"('A (batch size 8)', 2)\": {\"null\": 0.0}\n"
    "  }\n"
    "}\n";

static void test_gavel_sample(void)
{
    struct berth_tput *m = NULL;
    struct berth_err err;
    char path[96];
    CHECK_I64(load_text(gavel_sample, ".json", &m, NULL, &err, path), 0);
    if (!m) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    CHECK_I64(berth_tput_class_count(m), 2);
    CHECK_I64(berth_tput_type_count(m), 2);
    CHECK_STR(berth_tput_class_name(m, 0), "A (batch size 8)");
    CHECK_STR(berth_tput_class_name(m, 1), "B");
    CHECK_STR(berth_tput_type_name(m, 0), "v100");
    CHECK_STR(berth_tput_type_name(m, 1), "k80");
    int a = class_of(m, "A (batch size 8)"), b = class_of(m, "B");
    int v100 = type_of(m, "v100"), k80 = type_of(m, "k80");
    CHECK_DBL(berth__tput_rate(m, a, v100, 1, 0), 4.0, 0);
    CHECK_DBL(berth__tput_rate(m, a, v100, 2, 0), 6.5, 0);
    CHECK_DBL(berth__tput_rate(m, a, v100, 3, 0), 8.5, 1e-12);  /* 6.5 + 4 / 2 */
    CHECK_DBL(berth__tput_rate(m, a, v100, 8, 0), 21.0, 1e-12); /* 10.5 * 8 / 4 */
    CHECK_DBL(berth__tput_rate(m, a, v100, 2, 1), 5.0, 0);      /* spread point */
    CHECK_DBL(berth__tput_rate(m, a, v100, 4, 1), 10.0, 1e-12); /* 5 * 4 / 2 */
    CHECK_DBL(berth__tput_rate(m, b, v100, 1, 0), 8.0, 0);
    CHECK_DBL(berth__tput_rate(m, b, v100, 2, 0), 16.0, 1e-12); /* 8 * 2 */
    CHECK_DBL(berth__tput_rate(m, b, k80, 1, 0), 0, 0);         /* not measured there */
    CHECK_DBL(berth__tput_rate(m, a, k80, 1, 0), 1.5, 0);
    CHECK_DBL(berth__tput_rate(m, a, k80, 2, 0), 0, 0); /* measured 0 */
    CHECK_DBL(berth__tput_rate(m, a, k80, 4, 1), 0, 0);
    /* pairs: own rate / rate alone, 1-GPU jobs of the one-server section only */
    CHECK_DBL(berth__tput_pair(m, a, b, v100), 3.0 / 4.0, 1e-15);
    CHECK_DBL(berth__tput_pair(m, b, a, v100), 2.0 / 8.0, 1e-15);
    CHECK_DBL(berth__tput_pair(m, a, a, v100), 1.0 / 4.0, 1e-15);
    CHECK_DBL(berth__tput_pair(m, b, b, v100), 0, 0);
    CHECK_DBL(berth__tput_pair(m, a, b, k80), 0, 0);
    berth_tput_free(m);
}

static const struct {
    const char *json, *want;
} gavel_bad[] = {
    {"{\"v100\": {\"('A', 1)\": {\"null\": 1.0,}}}", ":1:36: invalid JSON: string or '}' expected"},
    {"{\"v100\": {}, \"v100\": {}}", ":1:19: invalid JSON: duplicate object key"},
    {"", ":1:0: invalid JSON: "},
    {"[1, 2]", ": expected an object of GPU types (Gavel's simulation_throughputs.json"},
    {"[1, 2]", "found an array of 2 values"},
    {"{}", ": expected an object of GPU types (Gavel's simulation_throughputs.json: "
           "{\"v100\": {\"('ResNet-50 (batch size 64)', 1)\": {\"null\": 4.39, ...}, ...}, "
           "...}), found an empty object"},
    {"{\"v100\": {}}", ": expected at least one job type under a GPU type, found none"},
    {"{\"v100\": 3}", ": v100: expected an object of job types, found 3"},
    {"{\"v100\": {\"('A', 1)\": {\"null\": 1}}, \"V100\": {}}",
     ": V100: expected each GPU type once (names are compared without regard to case), found "
     "it again"},
    {"{\"_unconsolidated\": {}}",
     ": _unconsolidated: expected a GPU type of 1 to 255 bytes, or one followed by "
     "\"_unconsolidated\""},
    {"{\"\": {}}", ": [\"\"]: expected a GPU type of 1 to 255 bytes"},
    {"{\"v100\": {\"ResNet\": {\"null\": 1}}}",
     ": v100.ResNet: expected a key ('JOB TYPE', SCALE FACTOR) such as ('ResNet-50 "
     "(batch size 64)', 1), with a job type of 1 to 255 bytes and a scale factor from 1 to "
     "1000000"},
    {"{\"v100\": {\"('A', 0)\": {\"null\": 1}}}", ": v100[\"('A', 0)\"]: expected a key ("},
    {"{\"v100\": {\"('A', 01)\": {\"null\": 1}}}", ": v100[\"('A', 01)\"]: expected a key ("},
    {"{\"v100\": {\"('A', 1000001)\": {\"null\": 1}}}", ": v100[\"('A', 1000001)\"]: expected"},
    {"{\"v100\": {\"('A', -1)\": {\"null\": 1}}}", ": v100[\"('A', -1)\"]: expected a key ("},
    {"{\"v100\": {\"('', 1)\": {\"null\": 1}}}", ": v100[\"('', 1)\"]: expected a key ("},
    {"{\"v100\": {\"('A', 1) \": {\"null\": 1}}}", ": v100[\"('A', 1) \"]: expected a key ("},
    {"{\"v100\": {\"('it's', 1)\": {\"null\": 1}}}", ": v100[\"('it's', 1)\"]: expected a key"},
    {"{\"v100\": {\"('A', 1)\": [1, 2]}}",
     ": v100[\"('A', 1)\"]: expected an object with the rate alone (\"null\") and pairs, found "
     "an array of 2 values"},
    {"{\"v100\": {\"('A', 1)\": {}}}",
     ": v100[\"('A', 1)\"]: expected a \"null\" key (the rate alone), found none"},
    {"{\"v100\": {\"('A', 1)\": {\"null\": -1}}}",
     ": v100[\"('A', 1)\"].null: expected a rate in steps/s >= 0, found -1"},
    {"{\"v100\": {\"('A', 1)\": {\"null\": -0.25}}}",
     ": v100[\"('A', 1)\"].null: expected a rate in steps/s >= 0, found -0.25"},
    {"{\"v100\": {\"('A', 1)\": {\"null\": \"4.2\"}}}",
     ": v100[\"('A', 1)\"].null: expected a rate in steps/s >= 0, found \"4.2\""},
    {"{\"v100\": {\"('A', 1)\": {\"null\": null}}}",
     ": v100[\"('A', 1)\"].null: expected a rate in steps/s >= 0, found null"},
    {"{\"v100\": {\"('A', 1)\": {\"null\": true}}}", "].null: expected a rate in steps/s >= 0, "
                                                     "found true"},
    {"{\"v100\": {\"('A', 1)\": {\"null\": 1, \"x\": [1, 1]}}}",
     ": v100[\"('A', 1)\"]: expected \"null\" or a key ('JOB TYPE', SCALE FACTOR) such as "
     "('ResNet-50 (batch size 64)', 1), with a job type of 1 to 255 bytes and a scale factor "
     "from 1 to 1000000, found \"x\""},
    {"{\"v100\": {\"('A', 1)\": {\"null\": 1, \"('B', 1)\": 2}}}",
     ": v100[\"('A', 1)\"][\"('B', 1)\"]: expected [own rate, partner's rate], found 2"},
    {"{\"v100\": {\"('A', 1)\": {\"null\": 1, \"('B', 1)\": [1, 2, 3]}}}",
     ": v100[\"('A', 1)\"][\"('B', 1)\"]: expected [own rate, partner's rate], found an array "
     "of 3 values"},
    {"{\"v100\": {\"('A', 1)\": {\"null\": 1, \"('B', 1)\": [1, -0.5]}}}",
     ": v100[\"('A', 1)\"][\"('B', 1)\"][1]: expected a rate in steps/s >= 0, found -0.5"},
    {"{\"v100\": {\"('A', 1)\": {\"null\": 1, \"('B', 1)\": [{}, 1]}}}",
     ": v100[\"('A', 1)\"][\"('B', 1)\"][0]: expected a rate in steps/s >= 0, found an object"},
    /* the spread section is checked as strictly */
    {"{\"k80_unconsolidated\": {\"('A', 2)\": {\"null\": 1, \"('B', 2)\": [1, \"x\"]}}}",
     ": k80_unconsolidated[\"('A', 2)\"][\"('B', 2)\"][1]: expected a rate in steps/s >= 0, "
     "found \"x\""},
};

static void test_gavel_bad(void)
{
    for (size_t i = 0; i < sizeof gavel_bad / sizeof *gavel_bad; i++) {
        struct berth_tput *m = (struct berth_tput *)&m; /* must stay as it is */
        struct berth_err err;
        char path[96];
        int rc = load_text(gavel_bad[i].json, ".json", &m, NULL, &err, path);
        int failures = check_failures;
        CHECK_I64(rc, BERTH_EINPUT);
        CHECK(m == (struct berth_tput *)&m);
        CHECK(!strncmp(err.msg, path, strlen(path))); /* the message starts with the file */
        CHECK_HAS(err.msg, gavel_bad[i].want);
        if (check_failures != failures)
            fprintf(stderr, "  (gavel_bad[%zu])\n", i);
    }
    /* a missing file */
    struct berth_tput *m = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_tput_load_gavel("/nonexistent/berth/tput.json", &m, &err), BERTH_EIO);
    CHECK_STR(err.msg, "/nonexistent/berth/tput.json: cannot open: No such file or directory");
    CHECK(m == NULL);
    /* a very long key is cut short in the message */
    char big[1200];
    snprintf(big, sizeof big, "{\"v100\": {\"('%0900d', 1)\": {\"null\": 1}}}", 0);
    char path[96];
    CHECK_I64(load_text(big, ".json", &m, NULL, &err, path), BERTH_EINPUT);
    CHECK_HAS(err.msg, "...\"]: expected a key ('JOB TYPE', SCALE FACTOR)");
    CHECK(strlen(err.msg) < 600);
    /* a byte-order mark is skipped */
    CHECK_I64(load_text("\xEF\xBB\xBF{\"v100\": {\"('A', 1)\": {\"null\": 2}}}", ".json", &m, NULL,
                        &err, path),
              0);
    if (m)
        CHECK_DBL(berth__tput_rate(m, 0, 0, 1, 0), 2, 0);
    berth_tput_free(m);
}

/* ---- Lucid's pairs -------------------------------------------------------------------- */

static const char lucid_sample[] =
    ",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,"
    "speed2,gpu_util,gmem_util,gmem\r\n"
    "0,MobileNetV3,ImageNet,1,32,0,0.983,ResNet18,CIFAR-10,1,32,0,1.034,64.789,29.461,5106\r\n"
    "1,PointNet,ShapeNet,1,32,0,0.983,PointNet,ShapeNet,1,32,0,1.025,20.338,16.838,7958\r\n"
    "\r\n"
    "2,ResNet18,CIFAR-10,1,032,1,0.5,MobileNetV3,ImageNet,1,32,0,0.75,1,1,1\r\n";

static void test_lucid_sample(void)
{
    struct berth_tput *m = berth__tput_new();
    int v100;
    CHECK_I64(berth__tput_add_type(m, "v100", &v100), 0);
    struct berth_err err;
    char path[96];
    CHECK_I64(load_text(lucid_sample, ".csv", NULL, m, &err, path), 0);
    CHECK_I64(berth_tput_class_count(m), 4);
    CHECK_STR(berth_tput_class_name(m, 0), "MobileNetV3/ImageNet/32/0");
    CHECK_STR(berth_tput_class_name(m, 1), "ResNet18/CIFAR-10/32/0");
    CHECK_STR(berth_tput_class_name(m, 2), "PointNet/ShapeNet/32/0");
    CHECK_STR(berth_tput_class_name(m, 3), "ResNet18/CIFAR-10/32/1"); /* 032 read as 32 */
    int mob = class_of(m, "MobileNetV3/ImageNet/32/0"), res = class_of(m, "ResNet18/CIFAR-10/32/0");
    int pn = class_of(m, "PointNet/ShapeNet/32/0"), amp = class_of(m, "ResNet18/CIFAR-10/32/1");
    CHECK_DBL(berth__tput_pair(m, mob, res, v100), 0.983, 0); /* any GPU type */
    CHECK_DBL(berth__tput_pair(m, res, mob, -1), 1.034, 0);
    CHECK_DBL(berth__tput_pair(m, pn, pn, 5), (0.983 + 1.025) / 2, 1e-15); /* itself: mean */
    CHECK_DBL(berth__tput_pair(m, amp, mob, v100), 0.5, 0);
    CHECK_DBL(berth__tput_pair(m, mob, amp, v100), 0.75, 0);
    CHECK_DBL(berth__tput_rate(m, mob, v100, 1, 0), 0, 0); /* pairs only, no rates */
    /* a header without rows adds nothing */
    CHECK_I64(load_text("model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,"
                        "gpu_num2,batchsize2,amp2,speed2\n",
                        ".csv", NULL, m, &err, path),
              0);
    CHECK_I64(berth_tput_class_count(m), 4);
    berth_tput_free(m);
}

#define LUCID_HEAD                                                                                 \
    ",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,"   \
    "speed2,gpu_util,gmem_util,gmem\n"
#define LUCID_ROW "0,VGG,CIFAR-10,1,64,0,0.9,DCGAN,LSUN,1,64,1,0.8,1,1,1\n"

static const struct {
    const char *csv, *want;
} lucid_bad[] = {
    {"", ":1: expected Lucid's colocate_info.csv header (,model1,dataset1,gpu_num1,batchsize1,"
         "amp1,speed1,model2,...), found an empty file"},
    {",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,"
     "amp2\n",
     ":1: column speed2: expected in the header (Lucid's colocate_info.csv: model1, dataset1, "
     "gpu_num1, batchsize1, amp1, speed1 and the same ending in 2), found no such column"},
    {"model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,"
     "speed2,speed1\n",
     ":1: column speed1: expected once, found twice (columns 6 and 13)"},
    {LUCID_HEAD LUCID_ROW "1,VGG,CIFAR-10,1,64,0,0.9,DCGAN,LSUN,1,64,1,0.8,1,1\n",
     ":3: expected 16 fields as in the header, found 15"},
    {LUCID_HEAD "0,VGG,CIFAR-10,2,64,0,0.9,DCGAN,LSUN,1,64,1,0.8,1,1,1\n",
     ":2: column gpu_num1: expected 1 (Lucid pairs 1-GPU jobs), found \"2\""},
    {LUCID_HEAD LUCID_ROW "0,VGG,CIFAR-10,1,64,0,0.9,DCGAN,LSUN,1,64,1,0,1,1,1\n",
     ":3: column speed2: expected a normalised speed > 0 (1.0 = as fast as alone), found \"0\""},
    {LUCID_HEAD "0,VGG,CIFAR-10,1,64,0,fast,DCGAN,LSUN,1,64,1,0.8,1,1,1\n",
     ":2: column speed1: expected a normalised speed > 0 (1.0 = as fast as alone), found "
     "\"fast\""},
    {LUCID_HEAD "0,VGG,CIFAR-10,1,64,0,nan,DCGAN,LSUN,1,64,1,0.8,1,1,1\n",
     ":2: column speed1: expected a normalised speed > 0"},
    {LUCID_HEAD "0,VGG,CIFAR-10,1,64,2,0.9,DCGAN,LSUN,1,64,1,0.8,1,1,1\n",
     ":2: column amp1: expected 0 or 1, found \"2\""},
    {LUCID_HEAD "0,VGG,CIFAR-10,1,0,0,0.9,DCGAN,LSUN,1,64,1,0.8,1,1,1\n",
     ":2: column batchsize1: expected a batch size from 1 to 10^9, found \"0\""},
    {LUCID_HEAD "0,VGG,CIFAR-10,1,64,0,0.9,DC/GAN,LSUN,1,64,1,0.8,1,1,1\n",
     ":2: column model2: expected a name of 1 to 255 bytes without '/', found \"DC/GAN\""},
    {LUCID_HEAD "0,VGG,,1,64,0,0.9,DCGAN,LSUN,1,64,1,0.8,1,1,1\n",
     ":2: column dataset1: expected a name of 1 to 255 bytes without '/', found \"\""},
    {LUCID_HEAD "0,VGG,\"CIFAR\n", ":2: "},
};

static void test_lucid_bad(void)
{
    struct berth_tput *m = berth__tput_new();
    int keep;
    CHECK_I64(berth__tput_add_class(m, "kept", &keep), 0);
    for (size_t i = 0; i < sizeof lucid_bad / sizeof *lucid_bad; i++) {
        struct berth_err err;
        char path[96];
        int rc = load_text(lucid_bad[i].csv, ".csv", NULL, m, &err, path);
        int failures = check_failures;
        CHECK_I64(rc, BERTH_EINPUT);
        CHECK(!strncmp(err.msg, path, strlen(path)));
        CHECK_HAS(err.msg, lucid_bad[i].want);
        CHECK_I64(berth_tput_class_count(m), 1); /* a bad file changes nothing */
        if (check_failures != failures)
            fprintf(stderr, "  (lucid_bad[%zu]: %s)\n", i, err.msg);
    }
    int vgg = berth__tput_class_find(m, "VGG/CIFAR-10/64/0");
    CHECK_I64(vgg, -1);
    struct berth_err err = {0};
    CHECK_I64(berth_tput_add_lucid_pairs(m, "/nonexistent/berth/colocate.csv", &err), BERTH_EIO);
    CHECK_HAS(err.msg, "/nonexistent/berth/colocate.csv: cannot open");
    berth_tput_free(m);
}

/* ---- the real files and the catalog --------------------------------------------------- */

static void test_gavel_real(void)
{
    char jp[512];
    if (!shared_file(jp, sizeof jp, "gavel/simulation_throughputs.json"))
        return;
    struct berth_tput *m = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_tput_load_gavel(jp, &m, &err), 0);
    if (!m) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    CHECK_I64(berth_tput_class_count(m), 26);
    CHECK_I64(berth_tput_type_count(m), 3);
    CHECK_STR(berth_tput_type_name(m, 0), "k80");
    CHECK_STR(berth_tput_type_name(m, 1), "p100");
    CHECK_STR(berth_tput_type_name(m, 2), "v100");
    CHECK_STR(berth_tput_class_name(m, 0), "ResNet-18 (batch size 16)");
    int r50 = class_of(m, "ResNet-50 (batch size 64)"),
        r50b = class_of(m, "ResNet-50 (batch size 128)");
    int r18 = class_of(m, "ResNet-18 (batch size 16)"), a3c = class_of(m, "A3C");
    int cyc = class_of(m, "CycleGAN"), tr = class_of(m, "Transformer (batch size 128)");
    int k80 = type_of(m, "k80"), p100 = type_of(m, "p100"), v100 = type_of(m, "V100");
    /* figures of scheduler/simulation_throughputs.json, exact */
    CHECK_DBL(berth__tput_rate(m, r50, v100, 1, 0), 4.394774823323071, 0);
    CHECK_DBL(berth__tput_rate(m, r50, v100, 4, 0), 9.451949566394442, 0);
    CHECK_DBL(berth__tput_rate(m, r50, v100, 4, 1), 11.136430014818272, 0);
    CHECK_DBL(berth__tput_rate(m, tr, p100, 8, 0), 13.683972901970593, 0);
    CHECK_DBL(berth__tput_rate(m, a3c, v100, 1, 0), 7.175767179667988, 0);
    CHECK_DBL(berth__tput_rate(m, r50b, k80, 1, 0), 0.3472236920519382, 0);
    CHECK_DBL(berth__tput_rate(m, r50b, k80, 2, 0), 0, 0); /* Gavel's 0.0 */
    CHECK_DBL(berth__tput_rate(m, r50b, k80, 8, 1), 0, 0);
    /* k80_unconsolidated lacks ResNet-50 (batch size 64) on 2+ GPUs: the one-server rate */
    CHECK_DBL(berth__tput_rate(m, r50, k80, 4, 1), berth__tput_rate(m, r50, k80, 4, 0), 0);
    /* pairs: own / alone */
    CHECK_DBL(berth__tput_pair(m, r50, r18, v100), 4.0687113803879855 / 4.394774823323071, 0);
    CHECK_DBL(berth__tput_pair(m, r50, r50, v100), 2.1891480555950134 / 4.394774823323071, 0);
    CHECK_DBL(berth__tput_pair(m, a3c, cyc, v100), 4.562135656281291 / 7.175767179667988, 0);
    CHECK_DBL(berth__tput_pair(m, r50b, r50, v100), 0, 0); /* [0.0, 0.0]: cannot share */
    /* Lucid's pairs join the same model */
    char cp[512];
    if (shared_file(cp, sizeof cp, "lucid/colocate_info.csv")) {
        CHECK_I64(berth_tput_add_lucid_pairs(m, cp, &err), 0);
        CHECK_I64(berth_tput_class_count(m), 26 + 56);
        int mob = class_of(m, "MobileNetV3/ImageNet/32/0");
        int res = class_of(m, "ResNet18/CIFAR-10/32/0");
        int mob128 = class_of(m, "MobileNetV3/ImageNet/128/1");
        int td3 = class_of(m, "TD3/BipedalWalker/128/0");
        int pn = class_of(m, "PointNet/ShapeNet/32/0");
        CHECK_DBL(berth__tput_pair(m, mob, res, k80), 0.983, 0); /* row 0 */
        CHECK_DBL(berth__tput_pair(m, res, mob, v100), 1.034, 0);
        CHECK_DBL(berth__tput_pair(m, mob128, td3, -1), 1.107, 0); /* row 1387, the last */
        CHECK_DBL(berth__tput_pair(m, td3, mob128, p100), 1.0, 0);
        CHECK_DBL(berth__tput_pair(m, pn, pn, v100), (0.983 + 1.025) / 2, 1e-15); /* row 336 */
    }
    berth_tput_free(m);
}

/* The catalog holds Gavel's rates exactly: every query gives what the file gives. */
static void test_builtin_matches_gavel(void)
{
    struct berth_tput *b = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_tput_builtin(&b, &err), 0);
    if (!b)
        return;
    CHECK_I64(berth_tput_class_count(b), 26);
    CHECK_I64(berth_tput_type_count(b), 3);
    int r50 = class_of(b, "ResNet-50 (batch size 64)"), v100 = type_of(b, "v100");
    CHECK_DBL(berth__tput_rate(b, r50, v100, 1, 0), 4.394774823323071, 0);
    CHECK_DBL(berth__tput_rate(b, r50, v100, 4, 1), 11.136430014818272, 0);
    CHECK_I64(berth__tput_type_find(b, "a100"), -1); /* nothing made up */
    char jp[512];
    struct berth_tput *g = NULL;
    if (shared_file(jp, sizeof jp, "gavel/simulation_throughputs.json") &&
        berth_tput_load_gavel(jp, &g, &err) == 0) {
        CHECK_I64(berth_tput_class_count(g), berth_tput_class_count(b));
        size_t compared = 0;
        for (size_t i = 0; i < berth_tput_class_count(b); i++) {
            const char *name = berth_tput_class_name(b, i);
            int gc = class_of(g, name);
            for (size_t t = 0; t < berth_tput_type_count(b); t++) {
                int gt = type_of(g, berth_tput_type_name(b, t));
                for (int32_t gpus = 1; gpus <= 16; gpus++)
                    for (int spread = 0; spread < 2; spread++) {
                        double want = berth__tput_rate(g, gc, gt, gpus, spread);
                        double got = berth__tput_rate(b, (int)i, (int)t, gpus, spread);
                        if (got != want)
                            fprintf(stderr, "  %s on %s x%d%s: %.17g != %.17g\n", name,
                                    berth_tput_type_name(b, t), gpus, spread ? " spread" : "", got,
                                    want);
                        CHECK(got == want);
                        compared++;
                    }
            }
        }
        CHECK_I64(compared, 26 * 3 * 16 * 2);
        berth_tput_free(g);
    }
    berth_tput_free(b);
}

/* The catalog's floor query (Gavel's own rule in the trace loader). */
static void test_catalog_floor(void)
{
    double r = -1;
    CHECK_I64(berth__tput_catalog_floor("ResNet-50 (batch size 64)", "v100", 0, 1, &r), 1);
    CHECK_DBL(r, 4.394774823323071, 0);
    CHECK_I64(berth__tput_catalog_floor("ResNet-50 (batch size 64)", "v100", 0, 7, &r), 4);
    CHECK_DBL(r, 9.451949566394442, 0);
    CHECK_I64(berth__tput_catalog_floor("ResNet-50 (batch size 64)", "v100", 0, 100, &r), 8);
    CHECK_DBL(r, 17.303172756892167, 0);
    CHECK_I64(berth__tput_catalog_floor("ResNet-50 (batch size 64)", "v100", 1, 4, &r), 4);
    CHECK_DBL(r, 11.136430014818272, 0);
    CHECK_I64(berth__tput_catalog_floor("CycleGAN", "v100", 0, 8, &r), 1);
    CHECK_DBL(r, 4.426088263367452, 0);
    CHECK_I64(berth__tput_catalog_floor("ResNet-50 (batch size 128)", "k80", 0, 4, &r), 4);
    CHECK_DBL(r, 0, 0);
    CHECK_I64(berth__tput_catalog_floor("ResNet-50 (batch size 64)", "k80", 1, 8, &r), 1);
    CHECK_I64(berth__tput_catalog_floor("A3C", "V100", 0, 1, &r), 0); /* names exact */
    CHECK_I64(berth__tput_catalog_floor("A3D", "v100", 0, 1, &r), 0);
    CHECK_I64(berth__tput_catalog_floor("A3C", "a100", 0, 1, &r), 0);
    CHECK_I64(berth__tput_catalog_floor("A3C", "v100", 0, 0, &r), 0);
    /* every class of the catalog is found, the first and last of a block included */
    struct berth_tput *b = NULL;
    struct berth_err err;
    CHECK_I64(berth_tput_builtin(&b, &err), 0);
    for (size_t i = 0; b && i < berth_tput_class_count(b); i++)
        CHECK_I64(berth__tput_catalog_floor(berth_tput_class_name(b, i), "p100", 0, 1, &r), 1);
    berth_tput_free(b);
}

/* The Gavel trace loader keeps Gavel's own rule between measured scale factors (the
 * largest measured one below, scaled: T(3) = T(2) x 3 / 2), not the model's interpolation. */
static void test_gavel_trace_rule(void)
{
    const char *p = simtest_write_named("LM (batch size 10)\tc\tw\t-n\t1\t1000000\t3\t1\t-1\t0\n"
                                        "LM (batch size 10)\tc\tw\t-n\t1\t1000000\t7\t1\t-1\t5\n",
                                        ".trace");
    struct berth_trace *t = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_trace_load(p, "gavel", &t, &err), 0);
    unlink(p);
    if (!t)
        return;
    double t2 = 163.12902048608936, t4 = 121.4776195889045; /* V100 at 2 and 4 GPUs */
    double thr3 = t2 * (double)3 / (double)2, thr7 = t4 * (double)7 / (double)4;
    CHECK_I64(berth_trace_count(t), 2);
    CHECK_I64(berth_trace_jobs(t)[0].duration_us, llround((double)1000000 / thr3 * 1e6));
    CHECK_I64(berth_trace_jobs(t)[1].duration_us, llround((double)1000000 / thr7 * 1e6));
    struct berth_tput *b = NULL;
    CHECK_I64(berth_tput_builtin(&b, &err), 0);
    int c = class_of(b, "LM (batch size 10)"), v100 = type_of(b, "v100");
    CHECK_DBL(berth__tput_rate(b, c, v100, 3, 0), (t2 + t4) / 2, 1e-12); /* the model's rule */
    CHECK(berth__tput_rate(b, c, v100, 3, 0) != thr3);
    berth_tput_free(b);
    berth_trace_free(t);
}

static const struct check_test tests[] = {
    {"interpolation", test_interpolation},
    {"kept_rates_follow_points", test_kept_rates_follow_points},
    {"huge_rates", test_huge_rates},
    {"spread", test_spread},
    {"zero_points", test_zero_points},
    {"names", test_names},
    {"pairs", test_pairs},
    {"gavel_sample", test_gavel_sample},
    {"gavel_bad", test_gavel_bad},
    {"gavel_too_many", test_gavel_too_many},
    {"lucid_sample", test_lucid_sample},
    {"lucid_bad", test_lucid_bad},
    {"gavel_real", test_gavel_real},
    {"builtin_matches_gavel", test_builtin_matches_gavel},
    {"catalog_floor", test_catalog_floor},
    {"gavel_trace_rule", test_gavel_trace_rule},
};

CHECK_MAIN(tests)
