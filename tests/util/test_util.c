/* Tests for the util layer: exact decimal/date parsing and printing (num), the streaming CSV
 * reader across its 1 MiB block boundary (csv), the seeded generator (rng), Python's generator
 * (pyrand) and the memory helpers (mem). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tmpfile.h"
#include "util/csv.h"
#include "util/hist.h"
#include "util/mem.h"
#include "util/num.h"
#include "util/pyrand.h"
#include "util/rng.h"
#include "util/sort.h"

/* ---- num ------------------------------------------------------------------------------ */

struct num_case {
    const char *in;
    int ok;
    int64_t want;
};

static void test_parse_seconds(void)
{
    static const struct num_case cases[] = {
        {"0.1", 1, 100000},
        {"12", 1, 12000000},
        {"12.5", 1, 12500000},
        {"1.5e3", 1, 1500000000},
        {"1.5E3", 1, 1500000000},
        {"1e+2", 1, 100000000},
        {"2.5e-1", 1, 250000},
        {"-3", 1, -3000000},
        {"+2.5", 1, 2500000},
        {"0", 1, 0},
        {"-0", 1, 0},
        {"0.000", 1, 0},
        {".5", 1, 500000},
        {"5.", 1, 5000000},
        {"00012.5", 1, 12500000},
        {" 7 ", 1, 7000000},
        {"\t7\r", 1, 7000000},
        {"0.000001", 1, 1},
        {"123456.789012", 1, 123456789012},
        /* rounding half away from zero at the 7th decimal */
        {"0.0000005", 1, 1},
        {"0.00000049", 1, 0},
        {"0.00000049999", 1, 0},
        {"-0.0000005", 1, -1},
        {"-0.00000049", 1, 0},
        {"1e-7", 1, 0},
        {"5e-7", 1, 1},
        {"4.9e-7", 1, 0},
        {"9e-7", 1, 1},
        {"1.0000005", 1, 1000001},
        {"1.00000049", 1, 1000000},
        {"0.1234565", 1, 123457},
        {"0.1234564999", 1, 123456},
        {"-0.1234565", 1, -123457},
        {"-2.0000015", 1, -2000002},
        {"1e-30", 1, 0},
        {"0e99999", 1, 0},
        {"12345678901234567890e-14", 1, 123456789012},
        /* more than 19 significant digits: the value is 123456.49999999999999 us, so it must
         * round down; rounding the 20th digit first and then the 7th decimal gives 123457 */
        {"0.12345649999999999999", 1, 123456},
        /* limits */
        {"9223372036854.775807", 1, INT64_MAX},
        {"-9223372036854.775807", 1, -INT64_MAX},
        {"9223372036854.7758074", 1, INT64_MAX},
        {"9223372036854.7758075", 0, 0},
        {"9223372036854.775808", 0, 0},
        {"1e13", 0, 0},
        {"1e99999", 0, 0},
        {"99999999999999999999", 0, 0},
        /* garbage */
        {"", 0, 0},
        {"   ", 0, 0},
        {"abc", 0, 0},
        {"1.2.3", 0, 0},
        {"1e", 0, 0},
        {"1e+", 0, 0},
        {"1e-", 0, 0},
        {"e5", 0, 0},
        {".", 0, 0},
        {"-", 0, 0},
        {"+", 0, 0},
        {"--1", 0, 0},
        {"1,5", 0, 0},
        {"1 2", 0, 0},
        {"0x10", 0, 0},
        {"inf", 0, 0},
        {"nan", 0, 0},
        {"1.5s", 0, 0},
        {"1e2.5", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct num_case *c = &cases[i];
        int64_t v = -777;
        int rc = berth__parse_seconds_us(c->in, strlen(c->in), &v);
        if (rc != (c->ok ? 0 : -1) || (c->ok && v != c->want))
            fprintf(stderr, "  parse_seconds_us(\"%s\"): rc %d value %lld\n", c->in, rc,
                    (long long)v);
        CHECK_I64(rc, c->ok ? 0 : -1);
        if (c->ok)
            CHECK_I64(v, c->want);
        else
            CHECK_I64(v, -777); /* untouched on failure */
    }
    /* only len bytes are read: the field need not be NUL-terminated */
    int64_t v = 0;
    CHECK_I64(berth__parse_seconds_us("2.5,9", 3, &v), 0);
    CHECK_I64(v, 2500000);
}

static void test_parse_i64(void)
{
    static const struct num_case cases[] = {
        {"0", 1, 0},
        {"42", 1, 42},
        {" 42 ", 1, 42},
        {"+5", 1, 5},
        {"-5", 1, -5},
        {"007", 1, 7},
        {"9223372036854775807", 1, INT64_MAX},
        {"-9223372036854775808", 1, INT64_MIN},
        {"9223372036854775808", 0, 0},
        {"-9223372036854775809", 0, 0},
        {"18446744073709551616", 0, 0},
        {"99999999999999999999", 0, 0},
        {"", 0, 0},
        {" ", 0, 0},
        {"-", 0, 0},
        {"+", 0, 0},
        {"1.0", 0, 0},
        {"1e3", 0, 0},
        {"4 2", 0, 0},
        {"0x1", 0, 0},
        {"abc", 0, 0},
        {"--1", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct num_case *c = &cases[i];
        int64_t v = -777;
        int rc = berth__parse_i64(c->in, strlen(c->in), &v);
        if (rc != (c->ok ? 0 : -1))
            fprintf(stderr, "  parse_i64(\"%s\"): rc %d\n", c->in, rc);
        CHECK_I64(rc, c->ok ? 0 : -1);
        if (c->ok)
            CHECK_I64(v, c->want);
    }
    int64_t v = 0;
    CHECK_I64(berth__parse_i64("123", 2, &v), 0);
    CHECK_I64(v, 12);
}

static void test_parse_scaled(void)
{
    static const struct {
        const char *in;
        int scale, ok;
        int64_t want;
    } cases[] = {
        {"0.25", 3, 1, 250},
        {"1", 3, 1, 1000},
        {"0.001", 3, 1, 1},
        {"0.0005", 3, 1, 1},
        {"0.0004999", 3, 1, 0},
        {"1.2345", 3, 1, 1235},
        {"1.2344", 3, 1, 1234},
        {"-0.0015", 3, 1, -2},
        {"2e-3", 3, 1, 2},
        {"0.1e1", 3, 1, 1000},
        {"1.000", 3, 1, 1000},
        {"0", 3, 1, 0},
        {"2.5", 0, 1, 3},
        {"-2.5", 0, 1, -3},
        {"2.4999", 0, 1, 2},
        {"15", 0, 1, 15},
        {"1.5", 1, 1, 15},
        {"abc", 3, 0, 0},
        {"", 3, 0, 0},
        {"0.5.", 3, 0, 0},
        {"1e15", 3, 1, INT64_C(1000000000000000000)},
        {"1e16", 3, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t v = -777;
        int rc = berth__parse_scaled(cases[i].in, strlen(cases[i].in), cases[i].scale, &v);
        if (rc != (cases[i].ok ? 0 : -1) || (cases[i].ok && v != cases[i].want))
            fprintf(stderr, "  parse_scaled(\"%s\", %d): rc %d value %lld\n", cases[i].in,
                    cases[i].scale, rc, (long long)v);
        CHECK_I64(rc, cases[i].ok ? 0 : -1);
        if (cases[i].ok)
            CHECK_I64(v, cases[i].want);
    }
}

static void test_parse_double(void)
{
    static const struct {
        const char *in;
        int ok;
        double want;
    } cases[] = {
        {"1.5", 1, 1.5}, {" -2e3 ", 1, -2000.0}, {"0", 1, 0.0}, {"1e400", 0, 0},
        {"nan", 0, 0},   {"inf", 0, 0},          {"", 0, 0},    {"1.5x", 0, 0},
        {"abc", 0, 0},   {"1 2", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double v = -1;
        int rc = berth__parse_double(cases[i].in, strlen(cases[i].in), &v);
        CHECK_I64(rc, cases[i].ok ? 0 : -1);
        if (cases[i].ok)
            CHECK_DBL(v, cases[i].want, 0.0);
    }
}

static void test_parse_datetime(void)
{
    static const struct num_case cases[] = {
        {"1970-01-01 00:00:00", 1, 0},
        {"1969-12-31 23:59:59", 1, -1},
        {"2017-09-04 10:30:41", 1, 1504521041},
        {"2017-12-22 08:02:11", 1, 1513929731},
        {"2017-09-04T10:30:41", 1, 1504521041},
        {"  2017-09-04 10:30:41\r", 1, 1504521041},
        {"2016-02-29 12:00:00", 1, 1456747200}, /* leap year */
        {"2000-02-29 00:00:00", 1, 951782400},  /* divisible by 400: leap */
        {"2017-03-01 00:00:00", 1, 1488326400},
        {"2038-01-19 03:14:08", 1, INT64_C(2147483648)},
        {"2017-02-29 00:00:00", 0, 0}, /* not a leap year */
        {"1900-02-29 00:00:00", 0, 0}, /* divisible by 100: not leap */
        {"2017-13-01 00:00:00", 0, 0},
        {"2017-00-10 00:00:00", 0, 0},
        {"2017-04-31 00:00:00", 0, 0},
        {"2017-01-00 00:00:00", 0, 0},
        {"2017-01-32 00:00:00", 0, 0},
        {"2017-01-01 24:00:00", 0, 0},
        {"2017-01-01 23:60:00", 0, 0},
        {"2017-01-01 23:59:61", 0, 0},
        {"2017-1-01 00:00:00", 0, 0},
        {"2017/01/01 00:00:00", 0, 0},
        {"2017-01-01_00:00:00", 0, 0},
        {"2017-01-01 00:00", 0, 0},
        {"2017-01-01 00:00:00Z", 0, 0},
        {"2017-01-01 0a:00:00", 0, 0},
        {"", 0, 0},
        {"abc", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct num_case *c = &cases[i];
        int64_t v = -777;
        int rc = berth__parse_datetime(c->in, strlen(c->in), &v);
        if (rc != (c->ok ? 0 : -1))
            fprintf(stderr, "  parse_datetime(\"%s\"): rc %d\n", c->in, rc);
        CHECK_I64(rc, c->ok ? 0 : -1);
        if (c->ok)
            CHECK_I64(v, c->want);
    }
    /* consecutive days across Feb 29 of a leap year are 86400 s apart */
    int64_t a = 0, b = 0, d = 0;
    CHECK_I64(berth__parse_datetime("2016-02-28 00:00:00", 19, &a), 0);
    CHECK_I64(berth__parse_datetime("2016-02-29 00:00:00", 19, &b), 0);
    CHECK_I64(berth__parse_datetime("2016-03-01 00:00:00", 19, &d), 0);
    CHECK_I64(b - a, 86400);
    CHECK_I64(d - b, 86400);
}

static void test_fmt_u64(void)
{
    char buf[24];
    static const struct {
        uint64_t v;
        const char *want;
    } cases[] = {
        {0, "0"}, {7, "7"}, {10, "10"}, {82247, "82247"}, {UINT64_MAX, "18446744073709551615"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CHECK_I64(berth__fmt_u64(buf, cases[i].v), strlen(cases[i].want));
        CHECK_STR(buf, cases[i].want);
    }
}

static void test_fmt_us(void)
{
    static const struct {
        int64_t us;
        const char *want;
    } cases[] = {
        {0, "0"},
        {1500000, "1.5"},
        {2000000, "2"},
        {100000, "0.1"},
        {1, "0.000001"},
        {10, "0.00001"},
        {123456789, "123.456789"},
        {120000000, "120"},
        {-1500000, "-1.5"},
        {-1, "-0.000001"},
        {-3000000, "-3"},
        {INT64_MAX, "9223372036854.775807"},
        {INT64_MIN, "-9223372036854.775808"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[32];
        CHECK_STR(berth__fmt_us(buf, cases[i].us), cases[i].want);
        /* and it parses back exactly (all but INT64_MIN, which parse rejects) */
        int64_t v = 0;
        if (cases[i].us != INT64_MIN) {
            CHECK_I64(berth__parse_seconds_us(buf, strlen(buf), &v), 0);
            CHECK_I64(v, cases[i].us);
        }
    }
}

static void test_excerpt(void)
{
    char buf[16];
    CHECK_STR(berth__excerpt(buf, sizeof buf, "abc", 3), "\"abc\"");
    CHECK_STR(berth__excerpt(buf, sizeof buf, "", 0), "\"\"");
    CHECK_STR(berth__excerpt(buf, sizeof buf, "a\nb", 3), "\"a?b\"");
    const char *lng = "abcdefghijklmnopqrstuvwxyz";
    berth__excerpt(buf, sizeof buf, lng, strlen(lng));
    CHECK(strlen(buf) < sizeof buf);
    CHECK_HAS(buf, "...");
    CHECK(buf[0] == '"' && buf[strlen(buf) - 1] == '"');
}

/* ---- csv ------------------------------------------------------------------------------ */

struct csv_rec {
    unsigned line;
    size_t nf;
    const char *f[4];
};

struct csv_case {
    const char *name;
    char sep;
    const char *in;
    size_t nrec;
    struct csv_rec rec[5];
    unsigned err_line; /* 0: no error; else the reader fails after nrec records */
};

static const struct csv_case csv_cases[] = {
    {"plain", ',', "a,b,c\n1,2,3\n", 2, {{1, 3, {"a", "b", "c"}}, {2, 3, {"1", "2", "3"}}}, 0},
    {"quoted comma", ',', "\"a,b\",c\n", 1, {{1, 2, {"a,b", "c"}}}, 0},
    {"escaped quotes",
     ',',
     "\"say \"\"hi\"\"\",x\n\"\"\"\",\"\"\n",
     2,
     {{1, 2, {"say \"hi\"", "x"}}, {2, 2, {"\"", ""}}},
     0},
    {"newline in quotes",
     ',',
     "a,\"x\ny\"\nb,c\n\nd,e\n",
     3,
     {{1, 2, {"a", "x\ny"}}, {3, 2, {"b", "c"}}, {5, 2, {"d", "e"}}},
     0},
    {"two newlines in quotes",
     ',',
     "\"1\n2\n3\",z\nnext\n",
     2,
     {{1, 2, {"1\n2\n3", "z"}}, {4, 1, {"next"}}},
     0},
    {"crlf", ',', "a,b\r\nc,d\r\n", 2, {{1, 2, {"a", "b"}}, {2, 2, {"c", "d"}}}, 0},
    {"crlf quoted last",
     ',',
     "a,\"b\"\r\nc,\"d\"\r\n",
     2,
     {{1, 2, {"a", "b"}}, {2, 2, {"c", "d"}}},
     0},
    {"crlf inside quotes",
     ',',
     "\"a\r\nb\",c\r\nd\r\n",
     2,
     {{1, 2, {"a\r\nb", "c"}}, {3, 1, {"d"}}},
     0},
    {"blank lines", ',', "\n\na\n\r\n\nb\n\n", 2, {{3, 1, {"a"}}, {6, 1, {"b"}}}, 0},
    {"no final newline", ',', "a,b\nc,d", 2, {{1, 2, {"a", "b"}}, {2, 2, {"c", "d"}}}, 0},
    {"no final newline quoted", ',', "a\n\"c,d\"", 2, {{1, 1, {"a"}}, {2, 1, {"c,d"}}}, 0},
    {"no final newline crlf", ',', "a\r\nb\r", 2, {{1, 1, {"a"}}, {2, 1, {"b"}}}, 0},
    {"empty fields", ',', "a,,\n,,\n", 2, {{1, 3, {"a", "", ""}}, {2, 3, {"", "", ""}}}, 0},
    {"empty quoted", ',', "\"\",x\n", 1, {{1, 2, {"", "x"}}}, 0},
    {"spaces kept", ',', " a , b \n", 1, {{1, 2, {" a ", " b "}}}, 0},
    {"other separator", ';', "a;b,c;\"d;e\"\n", 1, {{1, 3, {"a", "b,c", "d;e"}}}, 0},
    {"tab separator", '\t', "a\tb c\n", 1, {{1, 2, {"a", "b c"}}}, 0},
    {"empty file", ',', "", 0, {{0, 0, {NULL}}}, 0},
    {"only blank lines", ',', "\n\r\n\n", 0, {{0, 0, {NULL}}}, 0},
    {"unterminated quote", ',', "a,b\nc,\"d\n", 1, {{1, 2, {"a", "b"}}}, 2},
    {"unterminated after multiline",
     ',',
     "\"a\nb\nc\",1\n\n\"x,y\n",
     1,
     {{1, 2, {"a\nb\nc", "1"}}},
     5},
    {"junk after quote", ',', "ok\n\"a\"b,c\n", 1, {{1, 1, {"ok"}}}, 2},
};

static void test_csv_cases(void)
{
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof csv_cases / sizeof *csv_cases; i++) {
        const struct csv_case *c = &csv_cases[i];
        const char *path = tmp_write_n(&t, "in.csv", c->in, strlen(c->in));
        struct berth__csv *r = NULL;
        struct berth_err err = {0};
        CHECK_I64(berth__csv_open(&r, path, c->sep, &err), 0);
        if (!r)
            continue;
        CHECK_STR(berth__csv_path(r), path);
        int before = check_failures;
        size_t k = 0;
        int rc;
        while ((rc = berth__csv_next(r, &err)) == 1) {
            CHECK(k < c->nrec);
            if (k >= c->nrec)
                break;
            const struct csv_rec *w = &c->rec[k++];
            CHECK_I64(berth__csv_line(r), w->line);
            CHECK_I64(berth__csv_nfields(r), w->nf);
            for (size_t f = 0; f < w->nf && f < berth__csv_nfields(r); f++) {
                CHECK_STR(berth__csv_field(r, f), w->f[f]);
                CHECK_I64(berth__csv_len(r, f), strlen(w->f[f]));
            }
        }
        CHECK_I64(k, c->nrec);
        if (c->err_line) {
            char want[200];
            snprintf(want, sizeof want, "%s:%u: ", path, c->err_line);
            CHECK_I64(rc, BERTH_EINPUT);
            CHECK_I64(err.code, BERTH_EINPUT);
            CHECK_HAS(err.msg, want);
        } else {
            CHECK_I64(rc, 0);
            CHECK_I64(berth__csv_next(r, &err), 0); /* stays at the end */
        }
        if (check_failures != before)
            fprintf(stderr, "  in csv case \"%s\"\n", c->name);
        berth__csv_close(r);
    }
    tmp_close(&t);
}

static void test_csv_open_missing(void)
{
    struct berth__csv *r = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth__csv_open(&r, "/nonexistent/berth/x.csv", ',', &err), BERTH_EIO);
    CHECK_HAS(err.msg, "/nonexistent/berth/x.csv");
    CHECK(r == NULL);
}

/* Row i of the big file: fields vary in length so that records straddle block boundaries
 * at every offset; every 997th row holds a quoted newline, every 13th an escaped quote. */
static int big_row(char *buf, size_t cap, unsigned i, const char *eol)
{
    if (i % 997 == 0)
        return snprintf(buf, cap, "r%u,\"multi\nline %u\",%u.%03u%s", i, i, i * 7, i % 1000, eol);
    if (i % 13 == 0)
        return snprintf(buf, cap, "r%u,\"q\"\"%u, %.*s\",%u.%03u%s", i, i, (int)(i % 37),
                        "abcdefghijklmnopqrstuvwxyz0123456789", i * 7, i % 1000, eol);
    return snprintf(buf, cap, "r%u,%.*s,%u.%03u%s", i, (int)(i % 41),
                    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcde", i * 7, i % 1000, eol);
}

/* The expected second field of row i. */
static void big_field(char *buf, size_t cap, unsigned i)
{
    if (i % 997 == 0)
        snprintf(buf, cap, "multi\nline %u", i);
    else if (i % 13 == 0)
        snprintf(buf, cap, "q\"%u, %.*s", i, (int)(i % 37), "abcdefghijklmnopqrstuvwxyz0123456789");
    else
        snprintf(buf, cap, "%.*s", (int)(i % 41), "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcde");
}

static void big_file_round(const char *eol)
{
    enum { ROWS = 200000 };
    struct tmp t;
    tmp_open(&t);
    char path[200];
    snprintf(path, sizeof path, "%s/big.csv", t.dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[256];
    size_t bytes = 0;
    for (unsigned i = 0; i < ROWS; i++) {
        int n = big_row(line, sizeof line, i, eol);
        bytes += (size_t)n;
        fwrite(line, 1, (size_t)n, f);
        if (i % 50000 == 49999) { /* some blank lines too */
            fputs(eol, f);
            bytes += strlen(eol);
        }
    }
    fclose(f);
    CHECK(bytes > 4u * (1u << 20)); /* several 1 MiB blocks */

    struct berth__csv *r = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth__csv_open(&r, path, ',', &err), 0);
    if (!r)
        return;
    unsigned i = 0, line_no = 1, bad_fields = 0, bad_lines = 0;
    int rc;
    char want[128], id[32], num[32];
    while ((rc = berth__csv_next(r, &err)) == 1) {
        big_field(want, sizeof want, i);
        snprintf(id, sizeof id, "r%u", i);
        snprintf(num, sizeof num, "%u.%03u", i * 7, i % 1000);
        if (berth__csv_nfields(r) != 3 || strcmp(berth__csv_field(r, 0), id) ||
            strcmp(berth__csv_field(r, 1), want) || strcmp(berth__csv_field(r, 2), num) ||
            berth__csv_len(r, 1) != strlen(want)) {
            if (bad_fields++ < 5)
                fprintf(stderr, "  big csv row %u: got %zu fields, \"%s\"\n", i,
                        berth__csv_nfields(r), berth__csv_field(r, 0));
        }
        if (berth__csv_line(r) != line_no && bad_lines++ < 5)
            fprintf(stderr, "  big csv row %u: line %u, expected %u\n", i, berth__csv_line(r),
                    line_no);
        line_no += 1 + (i % 997 == 0) + (i % 50000 == 49999);
        i++;
    }
    CHECK_I64(rc, 0);
    CHECK_I64(i, ROWS);
    CHECK_I64(bad_fields, 0);
    CHECK_I64(bad_lines, 0);
    berth__csv_close(r);
    tmp_close(&t);
}

static void test_csv_big_file(void)
{
    big_file_round("\n");
    big_file_round("\r\n");
}

/* One record bigger than the whole buffer, quoted (with separators and newlines inside)
 * and unquoted, between ordinary records. */
static void test_csv_huge_record(void)
{
    const size_t n = 3u << 20; /* 3 MiB, three times the block */
    char *big = malloc(n + 1);
    CHECK(big != NULL);
    if (!big)
        return;
    for (size_t i = 0; i < n; i++)
        big[i] = (i % 1000 == 999) ? '\n' : (i % 100 == 50) ? ',' : (char)('a' + i % 26);
    big[n] = '\0';
    size_t newlines = n / 1000;

    size_t cap = 2 * n + 100;
    char *file = malloc(cap);
    CHECK(file != NULL);
    if (!file) {
        free(big);
        return;
    }
    size_t o = 0;
    o += (size_t)snprintf(file + o, cap - o, "head,1\n\"");
    memcpy(file + o, big, n);
    o += n;
    o += (size_t)snprintf(file + o, cap - o, "\",2\nmid,3\n");
    /* an unquoted huge field: the same without separators or newlines */
    size_t plain_off = o;
    for (size_t i = 0; i < n; i++)
        file[o++] = (char)('A' + i % 26);
    o += (size_t)snprintf(file + o, cap - o, ",4\ntail,5");

    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write_n(&t, "huge.csv", file, o);
    struct berth__csv *r = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth__csv_open(&r, path, ',', &err), 0);
    if (r) {
        CHECK_I64(berth__csv_next(r, &err), 1);
        CHECK_STR(berth__csv_field(r, 0), "head");
        CHECK_I64(berth__csv_next(r, &err), 1);
        CHECK_I64(berth__csv_line(r), 2);
        CHECK_I64(berth__csv_nfields(r), 2);
        CHECK_I64(berth__csv_len(r, 0), n);
        CHECK(berth__csv_len(r, 0) == n && !memcmp(berth__csv_field(r, 0), big, n));
        CHECK_STR(berth__csv_field(r, 1), "2");
        CHECK_I64(berth__csv_next(r, &err), 1);
        CHECK_STR(berth__csv_field(r, 0), "mid");
        CHECK_I64(berth__csv_line(r), 3 + newlines);
        CHECK_I64(berth__csv_next(r, &err), 1);
        CHECK_I64(berth__csv_len(r, 0), n);
        CHECK(berth__csv_len(r, 0) == n && !memcmp(berth__csv_field(r, 0), file + plain_off, n));
        CHECK_STR(berth__csv_field(r, 1), "4");
        CHECK_I64(berth__csv_line(r), 4 + newlines);
        CHECK_I64(berth__csv_next(r, &err), 1);
        CHECK_STR(berth__csv_field(r, 0), "tail");
        CHECK_STR(berth__csv_field(r, 1), "5");
        CHECK_I64(berth__csv_line(r), 5 + newlines);
        CHECK_I64(berth__csv_next(r, &err), 0);
        berth__csv_close(r);
    }
    tmp_close(&t);
    free(file);
    free(big);
}

/* ---- rng ------------------------------------------------------------------------------ */

static void test_rng_reference(void)
{
    /* xoshiro256** seeded by splitmix64, computed independently from the published
     * algorithms */
    static const struct {
        uint64_t seed;
        uint64_t first[3];
    } cases[] = {
        {0,
         {UINT64_C(0x99ec5f36cb75f2b4), UINT64_C(0xbf6e1f784956452a),
          UINT64_C(0x1a5f849d4933e6e0)}},
        {42,
         {UINT64_C(0x15780b2e0c2ec716), UINT64_C(0x6104d9866d113a7e),
          UINT64_C(0xae17533239e499a1)}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct berth__rng r;
        berth__rng_seed(&r, cases[i].seed);
        for (int k = 0; k < 3; k++)
            CHECK(berth__rng_u64(&r) == cases[i].first[k]);
    }
}

static void test_rng_determinism(void)
{
    static const uint64_t seeds[] = {0, 1, 42, UINT64_MAX};
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        struct berth__rng a, b, c;
        berth__rng_seed(&a, seeds[i]);
        berth__rng_seed(&b, seeds[i]);
        berth__rng_seed(&c, seeds[i] + 1);
        int same = 1, differs = 0;
        for (int k = 0; k < 1000; k++) {
            uint64_t x = berth__rng_u64(&a), y = berth__rng_u64(&b), z = berth__rng_u64(&c);
            same &= x == y;
            differs |= x != z;
        }
        CHECK(same);
        CHECK(differs);
        /* the derived draws follow the same stream */
        berth__rng_seed(&a, seeds[i]);
        berth__rng_seed(&b, seeds[i]);
        CHECK(berth__rng_unit(&a) == berth__rng_unit(&b));
        CHECK(berth__rng_below(&a, 1000) == berth__rng_below(&b, 1000));
        CHECK(berth__rng_exp(&a, 2.0) == berth__rng_exp(&b, 2.0));
    }
}

static void test_rng_ranges(void)
{
    struct berth__rng r;
    berth__rng_seed(&r, 7);
    static const uint64_t ns[] = {
        1, 2, 3, 7, 10, 1000, UINT64_C(1) << 32, (UINT64_C(1) << 63) + 1, UINT64_MAX,
    };
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        int in = 1;
        for (int k = 0; k < 20000; k++)
            in &= berth__rng_below(&r, ns[i]) < ns[i];
        CHECK(in);
    }
    /* below(3) is uniform: each value near 1/3 of 30000 draws */
    int64_t count[3] = {0, 0, 0};
    for (int k = 0; k < 30000; k++)
        count[berth__rng_below(&r, 3)]++;
    for (int v = 0; v < 3; v++)
        CHECK(count[v] > 9500 && count[v] < 10500);

    double sum = 0, lo = 1, hi = 0;
    int in = 1;
    for (int k = 0; k < 100000; k++) {
        double u = berth__rng_unit(&r);
        in &= u >= 0.0 && u < 1.0;
        sum += u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    CHECK(in);
    CHECK_DBL(sum / 100000, 0.5, 0.01);
    CHECK(lo < 0.001 && hi > 0.999);

    in = 1;
    sum = 0;
    for (int k = 0; k < 100000; k++) {
        double u = berth__rng_uniform(&r, -2.0, 3.0);
        in &= u >= -2.0 && u < 3.0;
        double e = berth__rng_exp(&r, 4.0);
        in &= e >= 0.0 && e < 1e9;
        sum += e;
    }
    CHECK(in);
    CHECK_DBL(sum / 100000, 0.25, 0.01);
}

/* ---- mem ------------------------------------------------------------------------------ */

static void test_arena(void)
{
    enum { N = 50000 };
    struct berth__arena a;
    berth__arena_init(&a);
    char **p = malloc(N * sizeof *p);
    CHECK(p != NULL);
    if (!p)
        return;
    char src[200000];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (char)('a' + i % 23);
    int ok = 1;
    for (int i = 0; i < N; i++) {
        /* mostly small, a few larger than a 64 KiB chunk */
        size_t len = i % 5000 == 4999 ? 70000 + (size_t)i : (size_t)(i % 97);
        p[i] = berth__arena_strndup(&a, src + i % 7, len);
        ok &= p[i] != NULL;
    }
    CHECK(ok);
    /* strings are packed (no alignment: millions of short ids), blocks 16-aligned */
    CHECK(p[2] == p[1] + 2 && p[3] == p[2] + 3);
    for (int i = 0; i < N && ok; i++) {
        size_t len = i % 5000 == 4999 ? 70000 + (size_t)i : (size_t)(i % 97);
        ok &= strlen(p[i]) == len && !memcmp(p[i], src + i % 7, len);
    }
    CHECK(ok);
    char *e = berth__arena_strndup(&a, "xyz", 0);
    CHECK_STR(e, "");
    void *raw = berth__arena_alloc(&a, 1 << 20);
    CHECK(raw != NULL && (uintptr_t)raw % 16 == 0);
    void *small = berth__arena_alloc(&a, 24); /* after an odd-length string */
    CHECK(berth__arena_strndup(&a, "odd", 3) != NULL);
    void *small2 = berth__arena_alloc(&a, 8);
    CHECK(small && small2 && (uintptr_t)small % 16 == 0 && (uintptr_t)small2 % 16 == 0);
    if (raw)
        memset(raw, 0x5a, 1 << 20);
    CHECK_I64(strlen(p[N - 2]), (size_t)((N - 2) % 97)); /* untouched by the big block */
    berth__arena_free(&a);
    CHECK(a.head == NULL);
    /* usable again after free */
    CHECK_STR(berth__arena_strndup(&a, "again", 5), "again");
    berth__arena_free(&a);
    free(p);
}

static void test_grow(void)
{
    int *p = NULL;
    size_t cap = 0;
    CHECK_I64(BERTH_GROW(p, cap, 0), 0);
    CHECK(p == NULL);
    CHECK_I64(cap, 0);
    CHECK_I64(BERTH_GROW(p, cap, 1), 0);
    CHECK_I64(cap, 16);
    CHECK(p != NULL);
    for (int i = 0; i < 16; i++)
        p[i] = i * 3;
    int *before = p;
    CHECK_I64(BERTH_GROW(p, cap, 16), 0); /* enough room: nothing moves */
    CHECK(p == before);
    CHECK_I64(cap, 16);
    CHECK_I64(BERTH_GROW(p, cap, 17), 0);
    CHECK_I64(cap, 32);
    CHECK_I64(BERTH_GROW(p, cap, 1000), 0);
    CHECK_I64(cap, 1024);
    int kept = 1;
    for (int i = 0; i < 16; i++)
        kept &= p[i] == i * 3;
    CHECK(kept);
    p[999] = 7; /* writable up to need */
    /* an impossible size fails and leaves the array alone */
    int *same = p;
    CHECK_I64(BERTH_GROW(p, cap, SIZE_MAX / 2), -1);
    CHECK(p == same);
    CHECK_I64(cap, 1024);
    CHECK_I64(p[15], 45);
    free(p);

    struct {
        char c[24];
    } *s = NULL;
    size_t scap = 0;
    CHECK_I64(BERTH_GROW(s, scap, 5), 0);
    CHECK_I64(scap, 16);
    free(s);
}

/* Whole numbers as Helios and Acme write them: "8" or "8.0", never "8.5". */
static void test_parse_whole(void)
{
    int64_t v = -1;
    CHECK_I64(berth__parse_whole("8", 1, &v), 0);
    CHECK_I64(v, 8);
    CHECK_I64(berth__parse_whole("8.000", 5, &v), 0);
    CHECK_I64(v, 8);
    CHECK_I64(berth__parse_whole("-2.0", 4, &v), 0);
    CHECK_I64(v, -2);
    CHECK_I64(berth__parse_whole("8.5", 3, &v), -1);
    CHECK_I64(berth__parse_whole("8.000001", 8, &v), -1);
    CHECK_I64(berth__parse_whole("8.0000001", 9, &v), 0); /* rounded to 6 decimals: 8 */
    CHECK_I64(v, 8);
    CHECK_I64(berth__parse_whole("", 0, &v), -1);
    CHECK_I64(berth__parse_whole("x", 1, &v), -1);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The radix sorts against qsort on the same keys: negatives, INT64_MIN/MAX, many ties, keys
 * that differ only in their top byte or only in their lowest, and the sizes 0, 1, 2. */
static void test_sort(void)
{
    struct berth__rng r;
    berth__rng_seed(&r, 7);
    static const size_t sizes[] = {0, 1, 2, 3, 100, 4097};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int kind = 0; kind < 4; kind++) {
            size_t n = sizes[si];
            int64_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
            uint32_t *idx = malloc((n + 1) * sizeof *idx);
            for (size_t i = 0; i < n; i++) {
                uint64_t u = berth__rng_u64(&r);
                a[i] = kind == 0   ? (int64_t)u
                       : kind == 1 ? (int64_t)(u % 5) - 2 /* ties */
                       : kind == 2 ? (int64_t)((u % 3) << 56)
                                   : (i % 7 == 0   ? INT64_MIN
                                      : i % 7 == 1 ? INT64_MAX
                                                   : (int64_t)(u % 2));
            }
            memcpy(b, a, n * sizeof *a);
            CHECK_I64(berth__sort_index_i64(a, idx, n), 0);
            for (size_t i = 1; i < n; i++) /* ordered by key, ties by index: stable */
                CHECK(a[idx[i - 1]] < a[idx[i]] ||
                      (a[idx[i - 1]] == a[idx[i]] && idx[i - 1] < idx[i]));
            qsort(b, n, sizeof *b, cmp_i64);
            CHECK_I64(berth__sort_i64(a, n), 0);
            CHECK(n == 0 || !memcmp(a, b, n * sizeof *a));
            free(a);
            free(b);
            free(idx);
        }
}

/* Python's own draws, printed by Python 3.11:
 *   r = random.Random(seed); [r.getrandbits(32) for _ in range(3)]
 *   r = random.Random(1); [r.randrange(n) for n in (1, 2, 3, 5, 7, 3, 2, 1, 3, 3)]
 *   r = random.Random(12345); [r.randrange(n) for n in (3, 3, 2, 3, 1, 2, 3, 3, 2, 2)] */
static void test_pyrand_python(void)
{
    static const struct {
        uint64_t seed;
        uint32_t want[3];
    } bits[] = {{0, {3626764237u, 1654615998u, 3255389356u}},
                {1, {577090037u, 2444712010u, 3639700191u}},
                {42, {2746317213u, 478163327u, 107420369u}},
                {(UINT64_C(1) << 32) + 5, {675479763u, 2085189291u, 1213270837u}}};
    for (size_t i = 0; i < sizeof bits / sizeof *bits; i++) {
        struct berth__pyrand r;
        berth__pyrand_seed(&r, bits[i].seed);
        for (int k = 0; k < 3; k++)
            CHECK_I64(berth__pyrand_u32(&r), bits[i].want[k]);
    }
    static const uint32_t n1[] = {1, 2, 3, 5, 7, 3, 2, 1, 3, 3},
                          w1[] = {0, 0, 1, 0, 3, 1, 1, 0, 0, 0};
    static const uint32_t n2[] = {3, 3, 2, 3, 1, 2, 3, 3, 2, 2},
                          w2[] = {1, 2, 0, 1, 0, 0, 1, 2, 1, 0};
    struct berth__pyrand a, b;
    berth__pyrand_seed(&a, 1);
    berth__pyrand_seed(&b, 12345);
    for (int k = 0; k < 10; k++) {
        CHECK_I64(berth__pyrand_below(&a, n1[k]), w1[k]);
        CHECK_I64(berth__pyrand_below(&b, n2[k]), w2[k]);
    }
    /* many draws past the first refill of the state (624 words) stay in range */
    for (int k = 0; k < 5000; k++)
        CHECK(berth__pyrand_below(&a, 7) < 7);
}

/* Buckets by upper bound (an observation on a bound is in its bucket), cumulative reads, the
 * +Inf bucket equal to the count, the sum in seconds. */
static void test_hist(void)
{
    static const double le[] = {0.001, 0.01, 1};
    struct berth__hist h;
    berth__hist_init(&h, le, 3);
    berth__hist_observe_us(&h, 500);     /* 0.0005 s: le 0.001 */
    berth__hist_observe_us(&h, 1000);    /* 0.001 s, on the bound: le 0.001 */
    berth__hist_observe_us(&h, 5000);    /* le 0.01 */
    berth__hist_observe_us(&h, 2000000); /* 2 s: +Inf */
    berth__hist_observe_us(&h, -7);      /* counts as 0 */
    uint64_t cum[BERTH_HIST_MAX + 1], n;
    double sum;
    berth__hist_read(&h, cum, &n, &sum);
    CHECK_I64(n, 5);
    CHECK_I64(cum[0], 3);
    CHECK_I64(cum[1], 4);
    CHECK_I64(cum[2], 4);
    CHECK_I64(cum[3], 5);
    CHECK_DBL(sum, 2.0065, 1e-12);
}

static const struct check_test tests[] = {
    {"hist", test_hist},
    {"parse_whole", test_parse_whole},
    {"parse_seconds", test_parse_seconds},
    {"parse_i64", test_parse_i64},
    {"parse_scaled", test_parse_scaled},
    {"parse_double", test_parse_double},
    {"parse_datetime", test_parse_datetime},
    {"fmt_us", test_fmt_us},
    {"fmt_u64", test_fmt_u64},
    {"excerpt", test_excerpt},
    {"csv_cases", test_csv_cases},
    {"csv_open_missing", test_csv_open_missing},
    {"csv_big_file", test_csv_big_file},
    {"csv_huge_record", test_csv_huge_record},
    {"rng_reference", test_rng_reference},
    {"rng_determinism", test_rng_determinism},
    {"rng_ranges", test_rng_ranges},
    {"pyrand_python", test_pyrand_python},
    {"arena", test_arena},
    {"grow", test_grow},
    {"sort", test_sort},
};

CHECK_MAIN(tests)
