/* berth's tiny test harness: table-driven test functions, CHECK macros that report
 * file:line and both values, and a closing "N passed, M failed" line. Each tests/LAYER/test_*.c
 * is its own executable, registered with CTest; it runs every case, the cases named on its
 * command line (an unknown name fails), or prints their names (--list). */
#ifndef BERTH_TESTS_CHECK_H
#define BERTH_TESTS_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                  \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_I64(a, b)                                                                            \
    do {                                                                                           \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                      \
        if (va_ != vb_) {                                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__,  \
                    #a, #b, va_, vb_);                                                             \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_DBL(a, b, tol)                                                                       \
    do {                                                                                           \
        double va_ = (a), vb_ = (b);                                                               \
        if (!(va_ - vb_ <= (tol) && vb_ - va_ <= (tol))) {                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s ~= %s (%.9g != %.9g)\n", __FILE__, __LINE__,  \
                    #a, #b, va_, vb_);                                                             \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *va_ = (a), *vb_ = (b);                                                         \
        if (!va_ || !vb_ || strcmp(va_, vb_)) {                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (\"%s\" != \"%s\")\n", __FILE__,        \
                    __LINE__, #a, #b, va_ ? va_ : "(null)", vb_ ? vb_ : "(null)");                 \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

/* CHECK that haystack contains needle. */
#define CHECK_HAS(hay, needle)                                                                     \
    do {                                                                                           \
        const char *h_ = (hay), *n_ = (needle);                                                    \
        if (!h_ || !strstr(h_, n_)) {                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: \"%s\" contains \"%s\"\n", __FILE__, __LINE__,   \
                    h_ ? h_ : "(null)", n_);                                                       \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

struct check_test {
    const char *name;
    void (*fn)(void);
};

/* Reads the command line before anything runs: no argument selects every case, names select
 * those cases, and --list prints every case's name. Returns 0 to go on, 1 after --list (the
 * program exits 0) or -1 after an unknown name, which is reported with the valid names (the
 * program exits 1: a misspelled case must never pass by running nothing). A program with
 * setup of its own calls it first, so that --list and a bad name need none of that setup. */
static inline int check_args(int argc, char **argv, const struct check_test *t, size_t n)
{
    for (int a = 1; a < argc; a++)
        if (!strcmp(argv[a], "--list")) {
            for (size_t i = 0; i < n; i++)
                printf("%s\n", t[i].name);
            return 1;
        }
    int bad = 0;
    for (int a = 1; a < argc; a++) {
        size_t i = 0;
        while (i < n && strcmp(argv[a], t[i].name))
            i++;
        if (i == n) {
            fprintf(stderr, "%s: no case named \"%s\"\n", argv[0], argv[a]);
            bad = 1;
        }
    }
    if (bad) {
        fprintf(stderr, "usage: %s [--list | CASE...]; the cases:", argv[0]);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %s", t[i].name);
        fprintf(stderr, "\n");
        return -1;
    }
    return 0;
}

/* Runs every test (or only those named on the command line, see check_args) and prints the
 * tally. */
static inline int check_main(int argc, char **argv, const struct check_test *t, size_t n)
{
    int args = check_args(argc, argv, t, n);
    if (args)
        return args < 0 ? 1 : 0;
    int passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        int want = argc < 2;
        for (int a = 1; a < argc; a++)
            want |= !strcmp(argv[a], t[i].name);
        if (!want)
            continue;
        int before = check_failures;
        t[i].fn();
        if (check_failures == before) {
            passed++;
            printf("ok   %s\n", t[i].name);
        } else {
            failed++;
            printf("FAIL %s\n", t[i].name);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#define CHECK_MAIN(tests)                                                                          \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        return check_main(argc, argv, tests, sizeof tests / sizeof *tests);                        \
    }

#endif
