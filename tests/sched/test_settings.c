/* Tests for policy settings (src/sched/settings.c): every kind parsed exactly, blanks
 * around keys and values, the defaults kept for keys not given, and every bad input — an
 * unknown or repeated key, no '=', a value of the wrong kind or out of range, a list not
 * increasing or too long — refused with a message naming the policy and the key, leaving
 * the settings as they were. */
#include <stddef.h>

#include "check.h"
#include "sched/settings.h"

struct set {
    berth_us window;
    double alpha;
    int32_t headroom;
    struct berth__us_list limits;
    int on;
};

static const struct berth__setting table[] = {
    {"window", BERTH_SET_SECONDS, offsetof(struct set, window), 0.001, 1000, "w"},
    {"alpha", BERTH_SET_DOUBLE, offsetof(struct set, alpha), 0, 1, "a"},
    {"headroom", BERTH_SET_PERMILLE, offsetof(struct set, headroom), 0, 100, "h"},
    {"limits", BERTH_SET_SECONDS_LIST, offsetof(struct set, limits), 1e-6, 1e12, "l"},
    {"on", BERTH_SET_BOOL, offsetof(struct set, on), 0, 1, "o"},
};

static int parse(const char *s, struct set *out, struct berth_err *err)
{
    *out = (struct set){10 * BERTH_US_PER_S, 0.5, 50, {{100, 200}, 2}, 0};
    return berth__settings_parse("p", s, table, 5, out, err);
}

static void test_ok(void)
{
    struct set s;
    struct berth_err err = {0};
    CHECK_I64(parse(NULL, &s, &err), 0);
    CHECK_I64(s.window, 10 * BERTH_US_PER_S);
    CHECK_I64(parse("", &s, &err), 0);
    CHECK_I64(parse("window=0.1", &s, &err), 0);
    CHECK_I64(s.window, 100000); /* exact: never through a double */
    CHECK_DBL(s.alpha, 0.5, 0);  /* not given: the default stays */
    CHECK_I64(parse(" alpha = 0.25 , headroom=2.5,limits=3250:7200.5 ", &s, &err), 0);
    CHECK_DBL(s.alpha, 0.25, 0);
    CHECK_I64(s.headroom, 25);
    CHECK_I64(s.limits.n, 2);
    CHECK_I64(s.limits.v[0], 3250 * BERTH_US_PER_S);
    CHECK_I64(s.limits.v[1], 7200500000);
    CHECK_I64(parse("limits=1:2:3:4:5:6:7:8", &s, &err), 0);
    CHECK_I64(s.limits.n, 8);
    CHECK_I64(parse("headroom=0,window=1000", &s, &err), 0);
    CHECK_I64(s.headroom, 0);
    static const char *const yes[] = {"on=1", "on=on", "on=yes", "on=true"};
    for (int i = 0; i < 4; i++) {
        CHECK_I64(parse(yes[i], &s, &err), 0);
        CHECK_I64(s.on, 1);
    }
    CHECK_I64(parse("on=1,on=0", &s, &err), BERTH_EINPUT); /* twice */
    CHECK_I64(parse("on=1,window=2", &s, &err), 0);
    CHECK_I64(s.on, 1);
}

static void test_bad(void)
{
    static const struct {
        const char *in, *msg;
    } cases[] = {
        {"windows=3", "policy p: unknown setting \"windows\" (its settings: window, alpha, "
                      "headroom, limits, on)"},
        {"on=2", "setting on: expected 0/1, off/on, no/yes or false/true, found \"2\""},
        {"on=", "setting on"},
        {"window", "policy p: settings: expected KEY=VALUE, found \"window\""},
        {"=3", "expected KEY=VALUE"},
        {"window=1,,alpha=0", "expected KEY=VALUE, found \"\""},
        {"window=1,window=2", "setting window given twice"},
        {"window=0", "setting window: expected seconds from 0.001 to 1000, found \"0\""},
        {"window=1001", "expected seconds from 0.001 to 1000"},
        {"window=ten", "found \"ten\""},
        {"alpha=1.5", "setting alpha: expected a number from 0 to 1"},
        {"alpha=nan", "setting alpha"},
        {"headroom=2.55", "setting headroom: expected a percentage from 0 to 100"},
        {"headroom=101", "setting headroom"},
        {"limits=200:100", "setting limits: expected up to 8 increasing numbers of seconds"},
        {"limits=100:100", "setting limits"},
        {"limits=1:2:3:4:5:6:7:8:9", "setting limits"},
        {"limits=", "setting limits"},
        {"limits=1::2", "setting limits"},
        {"alpha=0.2,limits=0", "setting limits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct set s;
        struct berth_err err = {0};
        int rc = parse(cases[i].in, &s, &err);
        if (rc != BERTH_EINPUT || !strstr(err.msg, cases[i].msg))
            fprintf(stderr, "  case %s: %d %s\n", cases[i].in, rc, err.msg);
        CHECK_I64(rc, BERTH_EINPUT);
        CHECK_HAS(err.msg, cases[i].msg);
        CHECK_DBL(s.alpha, 0.5, 0); /* nothing changed, not even what came before the error */
        CHECK_I64(s.limits.n, 2);
    }
    struct berth_err err = {0};
    CHECK_I64(berth__settings_parse("q", "x=1", NULL, 0, NULL, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "policy q: unknown setting \"x\" (its settings: it has none)");
}

static const struct check_test tests[] = {
    {"ok", test_ok},
    {"bad", test_bad},
};

CHECK_MAIN(tests)
