/* Tests for the Philly job-log (JSON), Helios and Acme loaders (src/io/trace_philly.c,
 * trace_helios.c, trace_acme.c): hand-written samples with every job worked out by hand,
 * the rows each format leaves out and why, bad input (strict: FILE:LINE and the field;
 * lenient: counted), and the Philly scanner on objects that straddle its read buffer.
 *
 * The loaders are called directly (through the same steps berth_trace_load_opts takes), so
 * these tests do not depend on the formats being registered by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "berth/berth.h"
#include "check.h"
#include "tmpfile.h"
#include "io/loaders_sense.h"
#include "io/trace_int.h"

/* ---- helpers -------------------------------------------------------------------------- */

/* What berth_trace_load_opts does around a loader: a fresh trace and report, at least one
 * job, unique ids. */
static int load(berth__loader_fn fn, const char *path, int lenient, struct berth_load_report *rep,
                struct berth_trace **out, struct berth_err *err)
{
    memset(rep, 0, sizeof *rep);
    struct berth__load L = {
        .path = path, .lenient = lenient, .rep = rep, .t = berth__trace_new(path)};
    if (!L.t)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int rc = fn(&L, err);
    if (!rc && L.t->n == 0)
        rc = berth_err_set(err, BERTH_EINPUT, "%s: expected at least one job, found none", path);
    if (!rc)
        rc = berth__trace_check_ids(L.t, &L, err);
    if (rc) {
        berth_trace_free(L.t);
        return rc;
    }
    rep->jobs = L.t->n;
    *out = L.t;
    return 0;
}

static struct berth_trace *load_ok(berth__loader_fn fn, const char *path, int lenient,
                                   struct berth_load_report *rep)
{
    struct berth_trace *t = NULL;
    struct berth_err err = {0};
    int rc = load(fn, path, lenient, rep, &t, &err);
    if (rc)
        fprintf(stderr, "  load(%s): %s\n", path, err.msg);
    CHECK_I64(rc, 0);
    return rc ? NULL : t;
}

/* The load fails with BERTH_EINPUT and a message containing want (and the path). */
static void load_fails(berth__loader_fn fn, const char *path, const char *want)
{
    struct berth_trace *t = NULL;
    struct berth_err err = {0};
    struct berth_load_report rep;
    int rc = load(fn, path, 0, &rep, &t, &err);
    CHECK_I64(rc, BERTH_EINPUT);
    CHECK_HAS(err.msg, want);
    CHECK_HAS(err.msg, path);
    if (!rc)
        berth_trace_free(t);
}

/* How many rows the report counts under reason (0 when absent); *line = its first line. */
static size_t reason(const struct berth_load_report *r, const char *why, int bad, uint32_t *line)
{
    for (size_t i = 0; i < r->nreasons; i++)
        if (r->reasons[i].bad == bad && !strcmp(r->reasons[i].reason, why)) {
            if (line)
                *line = r->reasons[i].first_line;
            return r->reasons[i].count;
        }
    return 0;
}

struct want {
    const char *id;
    int64_t arrival_s, duration_us;
    int32_t gpus;
    const char *user, *queue, *job_type;
    uint32_t line;
    int64_t cpu_milli, mem_mib; /* checked once job specs carry them */
};

static void check_jobs(const struct berth_trace *t, const struct want *w, size_t n)
{
    CHECK_I64(berth_trace_count(t), n);
    if (berth_trace_count(t) != n)
        return;
    const struct berth_jobspec *j = berth_trace_jobs(t);
    for (size_t i = 0; i < n; i++) {
        int before = check_failures;
        CHECK_STR(j[i].id, w[i].id);
        CHECK_I64(j[i].arrival_us, w[i].arrival_s * BERTH_US_PER_S);
        CHECK_I64(j[i].duration_us, w[i].duration_us);
        CHECK_I64(j[i].num_gpus, w[i].gpus);
        CHECK_I64(j[i].min_gpus, w[i].gpus);
        CHECK_I64(j[i].max_gpus, w[i].gpus);
        CHECK_I64(j[i].gpu_share_milli, 1000);
        CHECK_STR(berth_jobspec_extra(&j[i])->user, w[i].user);
        CHECK_STR(j[i].queue, w[i].queue);
        CHECK_STR(berth_jobspec_extra(&j[i])->job_type, w[i].job_type);
        CHECK_STR(berth_jobspec_extra(&j[i])->gpu_type, "");
        CHECK_I64(j[i].line, w[i].line);
        CHECK_I64(berth_jobspec_extra(&j[i])->cpu_milli, w[i].cpu_milli);
        CHECK_I64(berth_jobspec_extra(&j[i])->mem_mib, w[i].mem_mib);
        if (check_failures != before)
            fprintf(stderr, "  (job %zu, %s)\n", i, w[i].id);
    }
}

#define S(x) ((int64_t)(x)*BERTH_US_PER_S)

/* ---- philly --------------------------------------------------------------------------- */

/* Ten job objects, three kept. Worked by hand (origin = app_2's submit 00:00:05, the
 * earliest of the jobs kept; app_3 and app_10 were submitted earlier but are left out):
 *   app_1 (line 2)  arrival 10-5 = 5 s; one attempt 00:01:00 -> 00:02:40 = 100 s; GPUs
 *                   2 + 1 over two machines = 3.
 *   app_2 (line 6)  arrival 0; attempts: 30 s with no GPUs, one with no times but 4 GPUs
 *                   (the first with any: num_gpus 4), 00:10:00 -> 00:15:00 = 300 s with 8
 *                   GPUs; duration 30 + 300 = 330 s. Its strings hold braces, an escaped
 *                   quote, a trailing backslash and a \u escape; the object spans 16 lines.
 *   app_9 (line 27) arrival 2017-10-02 00:00:00 - 2017-10-01 00:00:05 = 86395 s; the
 *                   first attempt has no end (not counted, but its 2 GPUs set num_gpus),
 *                   the second runs 23:59:30 -> 00:00:30 across midnight = 60 s.
 * Left out: app_3 (no attempts) and app_5 (only an end_time): never started; app_4 (last
 * end_time null) and app_8 (last end_time "None"): still running; app_6: no GPUs; app_7:
 * 0 s; app_10 (attempts null): never started. */
static const char philly_sample[] =
    "\xEF\xBB\xBF[\n"
    "  {\"status\": \"Pass\", \"vc\": \"vc1\", \"jobid\": \"app_1\", \"user\": \"alice\",\n"
    "   \"submitted_time\": \"2017-10-01 00:00:10\", \"attempts\": [{\"start_time\": "
    "\"2017-10-01 00:01:00\", \"end_time\": \"2017-10-01 00:02:40\", \"detail\": [{\"ip\": "
    "\"m1\", \"gpus\": [\"gpu0\", \"gpu1\"]}, {\"ip\": \"m2\", \"gpus\": [\"gpu3\"]}]}]},\n"
    "  {\"status\": \"Killed\", \"vc\": \"vc1\", \"jobid\": \"app_3\", \"user\": \"bob\",\n"
    "   \"submitted_time\": \"2017-10-01 00:00:01\", \"attempts\": []},\n"
    "  {\n"
    "    \"status\": \"Failed\",\n"
    "    \"vc\": \"v\\\\\",\n"
    "    \"jobid\": \"app_2\",\n"
    "    \"user\": \"b\\\"o}b{ [\\u00e9\",\n"
    "    \"submitted_time\": \"2017-10-01 00:00:05\",\n"
    "    \"attempts\": [\n"
    "      {\"start_time\": \"2017-10-01 00:00:20\", \"end_time\": \"2017-10-01 00:00:50\",\n"
    "       \"detail\": []},\n"
    "      {\"start_time\": null, \"end_time\": \"None\",\n"
    "       \"detail\": [{\"ip\": \"m3\", \"gpus\": [\"gpu0\", \"gpu1\", \"gpu2\", \"gpu3\"]}]},\n"
    "      {\"start_time\": \"2017-10-01 00:10:00\", \"end_time\": \"2017-10-01 00:15:00\",\n"
    "       \"detail\": [{\"ip\": \"m4\", \"gpus\": [\"gpu0\", \"gpu1\", \"gpu2\", \"gpu3\",\n"
    "                                  \"gpu4\", \"gpu5\", \"gpu6\", \"gpu7\"]}]}\n"
    "    ]\n"
    "  },\n"
    "  {\"status\": \"Pass\", \"vc\": \"vc2\", \"jobid\": \"app_4\", \"user\": \"c\", "
    "\"submitted_time\": \"2017-10-01 00:00:30\", \"attempts\": [{\"start_time\": \"2017-10-01 "
    "00:01:00\", \"end_time\": null, \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]}]},\n"
    "  {\"status\": \"Pass\", \"vc\": \"vc2\", \"jobid\": \"app_5\", \"user\": \"c\", "
    "\"submitted_time\": \"2017-10-01 00:00:30\", \"attempts\": [{\"end_time\": \"2017-10-01 "
    "00:01:00\", \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]}]},\n"
    "  {\"status\": \"Pass\", \"vc\": \"vc2\", \"jobid\": \"app_6\", \"user\": \"c\", "
    "\"submitted_time\": \"2017-10-01 00:00:30\", \"attempts\": [{\"start_time\": \"2017-10-01 "
    "00:01:00\", \"end_time\": \"2017-10-01 00:02:00\", \"detail\": []}]},\n"
    "  {\"status\": \"Pass\", \"vc\": \"vc2\", \"jobid\": \"app_7\", \"user\": \"c\", "
    "\"submitted_time\": \"2017-10-01 00:00:30\", \"attempts\": [{\"start_time\": \"2017-10-01 "
    "00:01:00\", \"end_time\": \"2017-10-01 00:01:00\", \"detail\": [{\"ip\": \"m1\", \"gpus\": "
    "[\"gpu0\"]}]}]},\n"
    "  {\"status\": \"Pass\", \"vc\": \"vc2\", \"jobid\": \"app_8\", \"user\": \"c\", "
    "\"submitted_time\": \"2017-10-01 00:00:30\", \"attempts\": [{\"start_time\": \"2017-10-01 "
    "00:01:00\", \"end_time\": \"2017-10-01 00:02:00\", \"detail\": [{\"ip\": \"m1\", \"gpus\": "
    "[\"gpu0\"]}]}, {\"start_time\": \"2017-10-01 00:03:00\", \"end_time\": \"None\", "
    "\"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]}]},\n"
    "  {\"status\": \"Pass\", \"vc\": \"vc3\", \"jobid\": \"app_9\", \"user\": \"d\", "
    "\"submitted_time\": \"2017-10-02 00:00:00\", \"attempts\": [{\"start_time\": \"2017-10-02 "
    "01:00:00\", \"detail\": [{\"ip\": \"m5\", \"gpus\": [\"gpu0\", \"gpu1\"]}]}, "
    "{\"start_time\": \"2017-10-02 23:59:30\", \"end_time\": \"2017-10-03 00:00:30\", "
    "\"detail\": [{\"ip\": \"m6\", \"gpus\": [\"gpu7\"]}]}]},\n"
    "  {\"status\": \"Killed\", \"vc\": \"vc3\", \"jobid\": \"app_10\", \"user\": null,\n"
    "   \"submitted_time\": \"2017-09-30 00:00:00\", \"attempts\": null}\n"
    "]\n";

static void test_philly_sample(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(&t, "cluster_job_log", philly_sample);
    struct berth_load_report rep;
    struct berth_trace *tr = load_ok(berth__load_philly, path, 0, &rep);
    static const struct want w[] = {
        {"app_1", 5, S(100), 3, "alice", "vc1", "", 2, 0, 0},
        {"app_2", 0, S(330), 4, "b\"o}b{ [\xC3\xA9", "v\\", "", 6, 0, 0},
        {"app_9", 86395, S(60), 2, "d", "vc3", "", 27, 0, 0},
    };
    if (tr)
        check_jobs(tr, w, 3);
    CHECK_I64(rep.rows, 10);
    CHECK_I64(rep.jobs, 3);
    CHECK_I64(rep.skipped, 7);
    uint32_t line = 0;
    CHECK_I64(reason(&rep, "job never started (no attempt has a start_time)", 0, &line), 3);
    CHECK_I64(line, 4);
    CHECK_I64(reason(&rep, "job still running (its last attempt has no end_time)", 0, &line), 2);
    CHECK_I64(line, 22);
    CHECK_I64(reason(&rep, "job with no GPUs (no attempt lists any)", 0, &line), 1);
    CHECK_I64(line, 24);
    CHECK_I64(reason(&rep, "job ran 0 s (every attempt ends in the second it starts)", 0, &line),
              1);
    CHECK_I64(line, 25);
    berth_trace_free(tr);
    tmp_close(&t);
}

/* Bad input: each case fails a strict load with FILE:LINE and what was expected. J0 is a
 * sound job object (left out: it never started). */
#define J0 "{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\"}"
static void test_philly_errors(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"", ":1: expected '[' (a JSON array of job objects), found the end of the file"},
        {"{\"jobid\": \"a\"}", ":1: expected '[' (a JSON array of job objects), found '{'"},
        {"[\n  1\n]", ":2: expected a job object '{' or ']', found '1'"},
        {"[" J0 "\n " J0 "]", ":2: expected ',' or ']', found '{'"},
        {"[" J0 ",\n]", ":2: expected a job object '{', found ']'"},
        {"[\n{\"jobid\": \"a}\"", ":2: expected the job object starting here to end with '}'"},
        {"[\n", ":2: expected ']' closing the array, found the end of the file"},
        {"[] x", ":1: expected nothing after the array, found 'x'"},
        {"[]", "expected at least one job, found none"},
        {"[\n{\"jobid\": \"a\", }]", ":2: expected a valid JSON job object, found"},
        {"[\n\n{\"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": []}]",
         ":3: column jobid: expected a non-empty string, found \"(missing)\""},
        {"[{\"jobid\": 7, \"attempts\": []}]",
         ":1: column jobid: expected a non-empty string, found \"7\""},
        {"[{\"jobid\": \"a\", \"submitted_time\": \"2017/10/01 00:00:00\"}]",
         ":1: column submitted_time: expected a time YYYY-MM-DD HH:MM:SS, found "
         "\"2017/10/01 00:00:00\""},
        {"[{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": {}}]",
         ":1: column attempts: expected an array of attempts, found \"{}\""},
        {"[{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\", \"user\": 3}]",
         ":1: column user: expected a string, found \"3\""},
        {"[{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": "
         "[{\"start_time\": \"2017-10-01 00:00:09\", \"end_time\": \"2017-10-01 00:00:08\"}]}]",
         ":1: column attempts[].end_time: expected a time not before the start_time, found "
         "\"2017-10-01 00:00:08\""},
        {"[{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": "
         "[{\"start_time\": 5}]}]",
         ":1: column attempts[].start_time: expected a time YYYY-MM-DD HH:MM:SS, null or "
         "\"None\", found \"5\""},
        {"[{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": "
         "[{\"start_time\": \"2017-10-01 00:00:00\", \"detail\": [{\"gpus\": \"gpu0\"}]}]}]",
         ":1: column attempts[].detail[].gpus: expected an array of GPU names, found \"gpu0\""},
        {"[{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": [3]}]",
         ":1: column attempts[]: expected an attempt object, found \"3\""},
        {"[{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": []},\n"
         " {\"jobid\": \"b\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": "
         "[{\"start_time\": \"2017-10-01 00:00:00\", \"end_time\": \"2017-10-01 00:00:01\", "
         "\"detail\": [{\"gpus\": [\"g\"]}]}]},\n"
         " {\"jobid\": \"b\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": "
         "[{\"start_time\": \"2017-10-01 00:00:00\", \"end_time\": \"2017-10-01 00:00:01\", "
         "\"detail\": [{\"gpus\": [\"g\"]}]}]}]",
         ":3: column job_id: expected a unique id, found \"b\", already used on line 2"},
    };
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int before = check_failures;
        load_fails(berth__load_philly, tmp_write(&t, "bad.json", cases[i].text), cases[i].want);
        if (check_failures != before)
            fprintf(stderr, "  in philly error case %zu\n", i);
    }
    struct berth_err err = {0};
    struct berth_load_report rep;
    struct berth_trace *tr = NULL;
    CHECK_I64(load(berth__load_philly, "/nonexistent/cluster_job_log", 0, &rep, &tr, &err),
              BERTH_EIO);
    tmp_close(&t);
}

/* --lenient: bad job objects are counted per reason and skipped; the array structure must
 * still be sound. */
static void test_philly_lenient(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(
        &t, "lenient.json",
        "[{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": "
        "[{\"start_time\": \"2017-10-01 00:00:00\", \"end_time\": \"2017-10-01 00:00:07\", "
        "\"detail\": [{\"gpus\": [\"g\"]}]}]},\n"
        " {\"jobid\": \"b\", \"submitted_time\": \"yesterday\"},\n"
        " {\"jobid\": \"c\" \"submitted_time\": 1},\n"
        " {\"jobid\": \"d\", \"submitted_time\": \"2017-10-01 00:00:04\", \"attempts\": "
        "[{\"start_time\": \"2017-10-01 00:00:09\", \"end_time\": \"2017-10-01 00:00:08\"}]},\n"
        " {\"jobid\": \"e\", \"submitted_time\": \"2017-10-01 00:00:02\", \"attempts\": "
        "[{\"start_time\": \"2017-10-01 00:00:09\", \"end_time\": \"2017-10-01 00:00:10\", "
        "\"detail\": [{\"ip\": \"m\", \"gpus\": [\"g\", \"h\"]}]}]},\n"
        " {\"jobid\": \"f\", \"submitted_time\": \"2017-10-01 00:00:02\", \"attempts\": []}]");
    struct berth_load_report rep;
    struct berth_trace *tr = load_ok(berth__load_philly, path, 1, &rep);
    static const struct want w[] = {
        {"a", 0, S(7), 1, "", "", "", 1, 0, 0},
        {"e", 2, S(1), 2, "", "", "", 5, 0, 0},
    };
    if (tr)
        check_jobs(tr, w, 2);
    CHECK_I64(rep.rows, 6);
    CHECK_I64(rep.skipped, 4);
    uint32_t line = 0;
    CHECK_I64(reason(&rep, "column submitted_time: expected a time YYYY-MM-DD HH:MM:SS", 1, &line),
              1);
    CHECK_I64(line, 2);
    CHECK_I64(reason(&rep, "expected a valid JSON job object", 1, &line), 1);
    CHECK_I64(line, 3);
    CHECK_I64(reason(&rep, "column attempts[].end_time: expected a time not before the start_time",
                     1, &line),
              1);
    CHECK_I64(line, 4);
    CHECK_I64(reason(&rep, "job never started (no attempt has a start_time)", 0, &line), 1);
    CHECK_I64(line, 6);
    berth_trace_free(tr);
    tmp_close(&t);
}

/* The scanner against its 1 MiB read buffer: 30,000 jobs (about 6 MiB, so objects straddle
 * many refills, some inside strings and escapes) and one 3 MiB object (the buffer grows).
 * Job k: submitted at k s, one attempt of k % 1000 + 1 s, k % 8 + 1 GPUs; the big one's
 * user is 3 MiB of "x\"{" (an escaped quote and a brace that must not count). */
static void test_philly_big(void)
{
    struct tmp t;
    tmp_open(&t);
    snprintf(t.path, sizeof t.path, "%s/big.json", t.dir);
    FILE *f = fopen(t.path, "wb");
    if (!f) {
        perror(t.path);
        exit(2);
    }
    enum { N = 30000, BIG = 3 << 20 };
    fputs("[\n", f);
    for (int k = 0; k < N; k++) {
        int64_t sub = 1506816000 + k; /* 2017-10-01 00:00:00 UTC */
        int run = k % 1000 + 1;
        char a[32], b[32], c[32];
        time_t ts = (time_t)sub, te = (time_t)(sub + 5), tf = (time_t)(sub + 5 + run);
        struct tm tm;
        strftime(a, sizeof a, "%Y-%m-%d %H:%M:%S", gmtime_r(&ts, &tm));
        strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", gmtime_r(&te, &tm));
        strftime(c, sizeof c, "%Y-%m-%d %H:%M:%S", gmtime_r(&tf, &tm));
        fprintf(f, "%s{\"status\": \"Pass\", \"vc\": \"vc%d\", \"jobid\": \"job_%d\", ",
                k ? ",\n" : "", k % 7, k);
        if (k == 12345) {
            fputs("\"user\": \"", f);
            for (int i = 0; i < BIG / 4; i++)
                fputs("x\\\"{", f);
            fputs("\", ", f);
        } else {
            fprintf(f, "\"user\": \"u%d\\\\\", ", k % 13);
        }
        fprintf(f, "\"submitted_time\": \"%s\", \"attempts\": [{\"start_time\": \"%s\", ", a, b);
        fprintf(f, "\"end_time\": \"%s\", \"detail\": [{\"ip\": \"m1\", \"gpus\": [", c);
        for (int g = 0; g <= k % 8; g++)
            fprintf(f, "%s\"gpu%d\"", g ? ", " : "", g);
        fputs("]}]}]}", f);
    }
    fputs("\n]\n", f);
    CHECK_I64(fclose(f), 0);
    struct berth_load_report rep;
    struct berth_trace *tr = load_ok(berth__load_philly, t.path, 0, &rep);
    CHECK_I64(rep.rows, N);
    if (tr && berth_trace_count(tr) == N) {
        const struct berth_jobspec *j = berth_trace_jobs(tr);
        int bad = 0;
        for (int k = 0; k < N && bad < 5; k++) {
            char id[32], user[32];
            snprintf(id, sizeof id, "job_%d", k);
            snprintf(user, sizeof user, "u%d\\", k % 13);
            int ok = !strcmp(j[k].id, id) && j[k].arrival_us == S(k) &&
                     j[k].duration_us == S(k % 1000 + 1) && j[k].num_gpus == k % 8 + 1 &&
                     j[k].line == (uint32_t)k + 2 &&
                     (k == 12345 ? strlen(berth_jobspec_extra(&j[k])->user) == (size_t)BIG / 4 * 3
                                 : !strcmp(berth_jobspec_extra(&j[k])->user, user));
            if (!ok) {
                fprintf(stderr, "  big philly job %d differs (line %u)\n", k, j[k].line);
                bad++;
            }
        }
        CHECK_I64(bad, 0);
        CHECK(!strncmp(berth_jobspec_extra(&j[12345])->user, "x\"{x\"{", 6));
    } else {
        CHECK_I64(tr ? berth_trace_count(tr) : 0, N);
    }
    berth_trace_free(tr);
    tmp_close(&t);
}

/* ---- helios --------------------------------------------------------------------------- */

/* Origin = 2020-06-09 18:41:01 (1425511). 1425512: +26 s. 1425516: 2020-06-10 00:00:00 is
 * 5 h 18 min 59 s = 19139 s later; its user is quoted (a comma inside) and its line ends
 * CRLF. 1425513 (gpu_num 0) and 1425514 (duration 0; submitted before the origin) are left
 * out, as is 1425515 (duration empty). Durations are read, not recomputed: 1425516 says
 * 7200.5 whatever its times say. */
static const char helios_sample[] =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,"
    "queue\n"
    "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 "
    "04:55:09,36848,0\n"
    "1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 "
    "18:45:36,249,0\n"
    "1425513,uzqls,vcpDC,0,1,1,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 "
    "14:15:21,675233,0\n"
    "1425514,uA,vcX,8,64,1,CANCELLED,2020-06-09 18:40:00,2020-06-09 18:50:00,2020-06-09 "
    "18:50:00,0,600\n"
    "1425515,uA,vcX,8,64,1,CANCELLED,2020-06-09 18:40:00,,,,\n"
    "1425516,\"u,C\",vcY,16,128.5,2,TIMEOUT,2020-06-10 00:00:00,2020-06-10 00:00:00,2020-06-10 "
    "02:00:00,7200.5,0\r\n";

static void test_helios_sample(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(&t, "cluster_log.csv", helios_sample);
    struct berth_load_report rep;
    struct berth_trace *tr = load_ok(berth__load_helios, path, 0, &rep);
    static const struct want w[] = {
        {"1425511", 0, S(36848), 1, "uXBbc", "vcJkd", "", 2, 1000, 0},
        {"1425512", 26, S(249), 4, "uVMrF", "vchbv", "", 3, 16000, 0},
        {"1425516", 19139, 7200500000, 16, "u,C", "vcY", "", 7, 128500, 0},
    };
    if (tr)
        check_jobs(tr, w, 3);
    CHECK_I64(rep.rows, 6);
    CHECK_I64(rep.skipped, 3);
    uint32_t line = 0;
    CHECK_I64(reason(&rep, "CPU-only job (gpu_num 0)", 0, &line), 1);
    CHECK_I64(line, 4);
    CHECK_I64(reason(&rep, "job never ran (duration 0 or empty)", 0, &line), 2);
    CHECK_I64(line, 5);
    berth_trace_free(tr);
    tmp_close(&t);
}

/* Columns by name: another order, an unknown column, only the required ones. */
static void test_helios_columns(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(&t, "reordered.csv",
                                 "duration,extra,submit_time,gpu_num,job_id\n"
                                 "60,?,2020-06-09 00:00:10,2.0,b\n"
                                 "30,?,2020-06-09 00:00:00,2,a\n");
    struct berth_load_report rep;
    struct berth_trace *tr = load_ok(berth__load_helios, path, 0, &rep);
    static const struct want w[] = {
        {"b", 10, S(60), 2, "", "", "", 2, 0, 0},
        {"a", 0, S(30), 2, "", "", "", 3, 0, 0},
    };
    if (tr)
        check_jobs(tr, w, 2);
    berth_trace_free(tr);
    tmp_close(&t);
}

static void test_helios_errors(void)
{
    static const char hdr[] = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,"
                              "start_time,end_time,duration,queue\n";
    static const struct {
        const char *rows, *want;
    } cases[] = {
        {NULL, ":1: expected the header of a Helios cluster_log.csv, found an empty file"},
        {"", "expected at least one job, found none"},
        {"1,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,10\n",
         ":2: expected 12 fields as in the header, found 11"},
        {"1,u,vc,-1,1,1,COMPLETED,2020-06-09 18:41:01,,,10,0\n",
         ":2: column gpu_num: expected a whole number of GPUs >= 0, found \"-1\""},
        {"1,u,vc,1.5,1,1,COMPLETED,2020-06-09 18:41:01,,,10,0\n",
         ":2: column gpu_num: expected a whole number of GPUs >= 0, found \"1.5\""},
        {"1,u,vc,1,1,1,COMPLETED,2020-06-09T18:41,,,10,0\n",
         ":2: column submit_time: expected a time YYYY-MM-DD HH:MM:SS, found "
         "\"2020-06-09T18:41\""},
        {"1,u,vc,1,x,1,COMPLETED,2020-06-09 18:41:01,,,10,0\n",
         ":2: column cpu_num: expected a number of CPU cores >= 0, found \"x\""},
        {"1,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,-3,0\n",
         ":2: column duration: expected a duration in seconds >= 0, found \"-3\""},
        {",u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,3,0\n",
         ":2: column job_id: expected a job id, found \"\""},
        {"1,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,3,0\n"
         "1,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,3,0\n",
         ":3: column job_id: expected a unique id, found \"1\", already used on line 2"},
    };
    struct tmp t;
    tmp_open(&t);
    char buf[512];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(buf, sizeof buf, "%s%s", cases[i].rows ? hdr : "",
                 cases[i].rows ? cases[i].rows : "");
        int before = check_failures;
        load_fails(berth__load_helios, tmp_write(&t, "bad.csv", buf), cases[i].want);
        if (check_failures != before)
            fprintf(stderr, "  in helios error case %zu\n", i);
    }
    load_fails(berth__load_helios,
               tmp_write(&t, "nohdr.csv", "job_id,user,vc,gpu_num,cpu_num,submit_time\n"),
               ":1: column duration: expected in the header of a Helios cluster_log.csv");
    load_fails(berth__load_helios,
               tmp_write(&t, "dup.csv", "job_id,gpu_num,submit_time,duration,gpu_num\n"),
               ":1: column gpu_num: expected once, found twice (columns 2 and 5)");
    /* lenient: the bad row is counted, the good one kept */
    snprintf(buf, sizeof buf,
             "%s1,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,3,0\n"
             "2,u,vc,1,1,1,COMPLETED,2020-06-09 18:41:01,,,x,0\n",
             hdr);
    struct berth_load_report rep;
    struct berth_trace *tr = load_ok(berth__load_helios, tmp_write(&t, "len.csv", buf), 1, &rep);
    CHECK_I64(tr ? berth_trace_count(tr) : 0, 1);
    CHECK_I64(reason(&rep, "column duration: expected a duration in seconds >= 0", 1, NULL), 1);
    berth_trace_free(tr);
    tmp_close(&t);
}

/* ---- acme ----------------------------------------------------------------------------- */

/* Seren, the README's two rows and two more. Origin = 2023-03-01 00:18:22+08:00 (5778432).
 * 5778469: 00:23:58 - 00:18:22 = 336 s, run 00:24:11 -> 01:09:04 = 2693 s. 5778471 is
 * written in UTC: 2023-02-28 16:20:00+00:00 = 00:20:00+08:00, 98 s after the origin; run
 * 16:20:00 -> 17:20:00 = 3600 s (its duration column says 3601 and is not what is read).
 * 5778470 is CPU-only. */
static const char seren_sample[] =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,"
    "queue,gpu_time\n"
    "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,"
    "2023-03-01 00:20:51+08:00,117,32,936.0\n"
    "5778469,u5907,1,8,128,Other,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 00:24:11+08:00,"
    "2023-03-01 01:09:04+08:00,2693,13,21544.0\n"
    "5778470,u1,1,0,4,Other,COMPLETED,2023-02-28 23:00:00+08:00,2023-02-28 23:00:00+08:00,"
    "2023-02-28 23:00:10+08:00,10,0,0.0\n"
    "5778471,u2,2,16,256,Pretrain,COMPLETED,2023-02-28 16:20:00+00:00,2023-02-28 "
    "16:20:00+00:00,2023-02-28 17:20:00+00:00,3601,0,57616.0\n";

static void test_acme_seren(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(&t, "trace_seren.csv", seren_sample);
    struct berth_load_report rep;
    struct berth_trace *tr = load_ok(berth__load_acme, path, 0, &rep);
    static const struct want w[] = {
        {"5778432", 0, S(117), 8, "u5907", "", "Other", 2, 128000, 0},
        {"5778469", 336, S(2693), 8, "u5907", "", "Other", 3, 128000, 0},
        {"5778471", 98, S(3600), 16, "u2", "", "Pretrain", 5, 256000, 0},
    };
    if (tr)
        check_jobs(tr, w, 3);
    CHECK_I64(rep.rows, 4);
    CHECK_I64(reason(&rep, "CPU-only job (gpu_num 0)", 0, NULL), 1);
    berth_trace_free(tr);
    tmp_close(&t);
}

/* Kalos, the README's two rows (run 8 s and 70 s, not their duration column's 18 and 82,
 * which count the queue) and more. Origin = 2023-05-17 10:00:00Z (dlcz), so
 * dlctk696s0jbvitv arrives at 1 h 0 min 58 s = 3658 s and dlc1t2ypl09b8qtp at 5322 s.
 * Memory = mem_per_pod_GB x 1024 x node_num: 1000 x 1024 x 8 = 8,192,000 MiB; dlcz's
 * 250.5 GB x 1024 = 256,512 MiB. dlcz's gpu_num "4.0" is 4 GPUs; its end has a fraction
 * (10:00:30 -> 10:05:00.25 = 270.25 s). Left out: dlcx (no start_time), dlcy (CPU-only),
 * dlcw (ends when it starts). */
static const char kalos_sample[] =
    "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,"
    "submit_time,start_time,end_time,fail_time,stop_time,duration,queue,gpu_time\n"
    "dlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED,2023-05-17 11:00:58+00:00,"
    "2023-05-17 11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,,18,10.0,"
    "1152.0\n"
    "dlc1t2ypl09b8qtp,uf794,8,64,960,1000,100.0,Other,CANCELLED,2023-05-17 11:28:42+00:00,"
    "2023-05-17 11:28:54+00:00,2023-05-17 11:30:04+00:00,,2023-05-17 11:30:04+00:00,82,12.0,"
    "5248.0\n"
    "dlcx,uA,1,8,120,,,SFT,CANCELLED,2023-05-17 09:29:00+00:00,,,,2023-05-17 09:29:30+00:00,"
    "30,,240.0\n"
    "dlcy,uB,1,0,4,16,,Debug,COMPLETED,2023-05-17 09:00:00+00:00,2023-05-17 09:00:00+00:00,"
    "2023-05-17 09:01:00+00:00,,,60,0.0,0.0\n"
    "dlcz,uC,1,4.0,60,250.5,,Evaluation,COMPLETED,2023-05-17 10:00:00+00:00,2023-05-17 "
    "10:00:30+00:00,2023-05-17 10:05:00.25+00:00,,,300,30.0,1200.0\n"
    "dlcw,uC,1,4,60,250.5,,Evaluation,FAILED,2023-05-17 09:00:00+00:00,2023-05-17 "
    "09:00:30+00:00,2023-05-17 09:00:30+00:00,,,30,30.0,120.0\n";

static void test_acme_kalos(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(&t, "trace_kalos.csv", kalos_sample);
    struct berth_load_report rep;
    struct berth_trace *tr = load_ok(berth__load_acme, path, 0, &rep);
    static const struct want w[] = {
        {"dlctk696s0jbvitv", 3658, S(8), 64, "uf794", "", "Other", 2, 960000, 8192000},
        {"dlc1t2ypl09b8qtp", 5322, S(70), 64, "uf794", "", "Other", 3, 960000, 8192000},
        {"dlcz", 0, 270250000, 4, "uC", "", "Evaluation", 6, 60000, 256512},
    };
    if (tr)
        check_jobs(tr, w, 3);
    CHECK_I64(rep.rows, 6);
    CHECK_I64(rep.skipped, 3);
    uint32_t line = 0;
    CHECK_I64(reason(&rep, "job never ran (start_time or end_time empty)", 0, &line), 1);
    CHECK_I64(line, 4);
    CHECK_I64(reason(&rep, "CPU-only job (gpu_num 0)", 0, &line), 1);
    CHECK_I64(line, 5);
    CHECK_I64(reason(&rep, "job ran 0 s (end_time = start_time)", 0, &line), 1);
    CHECK_I64(line, 7);
    berth_trace_free(tr);
    tmp_close(&t);
}

/* Offsets: one instant written four ways; a file without start/end reads duration. */
static void test_acme_offsets(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(&t, "tz.csv",
                                 "submit_time,gpu_num,job_id,duration\n"
                                 "2023-03-01 08:00:00+08:00,1,a,1\n"
                                 "2023-03-01 00:00:00+00:00,1,b,2\n"
                                 "2023-03-01T00:00:00Z,1,c,3\n"
                                 "2023-02-28 19:30:00-0430,1,d,4.5\n"
                                 "2023-03-01 00:00:00,1,e,5\n"
                                 "2023-03-01 00:00:01.5+00,1,f,6\n"
                                 "2023-02-28 23:59:59+00:00,1,g,0\n");
    struct berth_load_report rep;
    struct berth_trace *tr = load_ok(berth__load_acme, path, 0, &rep);
    if (tr && berth_trace_count(tr) == 6) {
        const struct berth_jobspec *j = berth_trace_jobs(tr);
        for (int i = 0; i < 5; i++)
            CHECK_I64(j[i].arrival_us, 0);
        CHECK_I64(j[5].arrival_us, 1500000);
        CHECK_I64(j[3].duration_us, 4500000);
    } else {
        CHECK_I64(tr ? berth_trace_count(tr) : 0, 6);
    }
    CHECK_I64(reason(&rep, "job never ran (duration 0 or empty)", 0, NULL), 1);
    berth_trace_free(tr);
    static const struct {
        const char *time, *want;
    } bad[] = {
        {"2023-03-01 08:00:00+8", "found \"2023-03-01 08:00:00+8\""},
        {"2023-03-01 08:00:00+24:00", "found \"2023-03-01 08:00:00+24:00\""},
        {"2023-03-01 08:00:00+08:00x", "found \"2023-03-01 08:00:00+08:00x\""},
        {"2023-03-01 08:00:00.+08:00", "found \"2023-03-01 08:00:00.+08:00\""},
        {"2023-03-01 08:00", "found \"2023-03-01 08:00\""},
    };
    char buf[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(buf, sizeof buf, "job_id,gpu_num,submit_time,duration\nx,1,%s,5\n", bad[i].time);
        int before = check_failures;
        load_fails(berth__load_acme, tmp_write(&t, "badtz.csv", buf),
                   ":2: column submit_time: expected a time YYYY-MM-DD HH:MM:SS with an offset "
                   "like +08:00, ");
        load_fails(berth__load_acme, t.path, bad[i].want);
        if (check_failures != before)
            fprintf(stderr, "  in acme time case %zu\n", i);
    }
    tmp_close(&t);
}

static void test_acme_errors(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"", ":1: expected the header of an Acme trace, found an empty file"},
        {"job_id,gpu_num,submit_time,start_time\n",
         ":1: column duration: expected in the header of an Acme trace"},
        {"job_id,gpu_num,duration\n", ":1: column submit_time: expected in the header"},
        {"job_id,gpu_num,submit_time,start_time,end_time\n"
         "a,1,2023-03-01 00:00:00+00:00,2023-03-01 00:00:05+00:00,2023-03-01 00:00:04+00:00\n",
         ":2: column end_time: expected a time not before the start_time, found "
         "\"2023-03-01 00:00:04+00:00\""},
        {"job_id,gpu_num,submit_time,start_time,end_time\n"
         "a,1,2023-03-01 00:00:00+00:00,soon,2023-03-01 00:00:04+00:00\n",
         ":2: column start_time: expected a time YYYY-MM-DD HH:MM:SS with an offset"},
        {"job_id,gpu_num,submit_time,duration,node_num\na,1,2023-03-01 00:00:00+00:00,5,-1\n",
         ":2: column node_num: expected a whole number of nodes >= 0, found \"-1\""},
        {"job_id,gpu_num,submit_time,duration,mem_per_pod_GB\n"
         "a,1,2023-03-01 00:00:00+00:00,5,lots\n",
         ":2: column mem_per_pod_GB: expected a memory size in GB >= 0, found \"lots\""},
    };
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int before = check_failures;
        load_fails(berth__load_acme, tmp_write(&t, "bad.csv", cases[i].text), cases[i].want);
        if (check_failures != before)
            fprintf(stderr, "  in acme error case %zu\n", i);
    }
    tmp_close(&t);
}

static const struct check_test tests[] = {
    {"philly_sample", test_philly_sample},   {"philly_errors", test_philly_errors},
    {"philly_lenient", test_philly_lenient}, {"philly_big", test_philly_big},
    {"helios_sample", test_helios_sample},   {"helios_columns", test_helios_columns},
    {"helios_errors", test_helios_errors},   {"acme_seren", test_acme_seren},
    {"acme_kalos", test_acme_kalos},         {"acme_offsets", test_acme_offsets},
    {"acme_errors", test_acme_errors},
};

CHECK_MAIN(tests)
