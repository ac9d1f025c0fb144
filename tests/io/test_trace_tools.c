/* Tests for trace statistics and slices (src/io/trace_tools.c): hand-computed figures on a
 * tiny trace (exact percentiles), the JSON and text renderings, slices by window, queue, user
 * and seeded sample, the native round trip, and the published figures of the real Philly file. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "berth/berth.h"
#include "berth/trace_tools.h"
#include "check.h"
#include "tmpfile.h"
#include "io/trace_int.h"
#include "jobspec_eq.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static struct berth_trace *load_ok(const char *path, const char *format)
{
    struct berth_trace *t = NULL;
    struct berth_err err = {0};
    int rc = berth_trace_load(path, format, &t, &err);
    if (rc)
        fprintf(stderr, "  berth_trace_load(%s): %s\n", path, err.msg);
    CHECK_I64(rc, 0);
    return rc ? NULL : t;
}

/* Text the stats table prints, as a malloc'd string. */
static char *stats_text(const struct berth_trace_stats *s, size_t max_names)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f)
        return NULL;
    CHECK_I64(berth_trace_stats_print(f, s, "t.csv", max_names), 0);
    fclose(f);
    return buf;
}

/* The tiny trace: by hand, durations 1 2 3 4 10 s (sorted); GPU time 1 4 12 2 2.5 GPU-s. */
static const char tiny_csv[] = "job_id,arrival_s,duration_s,num_gpus,user,queue,gpu_share\n"
                               "a,10,1,1,u1,q1,1\n"
                               "b,0,2,2,u2,q1,1\n"
                               "c,5,3,4,u1,q2,1\n"
                               "d,20,4,1,u3,,0.5\n"
                               "e,15,10,1,,q2,0.25\n";

/* A trace of n one-GPU jobs with ids 1..n, one a second, built directly. */
static struct berth_trace *numbered(size_t n)
{
    struct berth_trace *t = berth__trace_new("numbered");
    CHECK(t != NULL);
    for (size_t i = 0; t && i < n; i++) {
        struct berth_jobdesc js;
        berth__jobspec_defaults(&js);
        char id[24];
        int len = snprintf(id, sizeof id, "%zu", i + 1);
        js.spec.id = berth__trace_str(t, id, (size_t)len);
        js.spec.arrival_us = (berth_us)i * BERTH_US_PER_S;
        js.spec.duration_us = 60 * BERTH_US_PER_S;
        js.spec.line = (uint32_t)(i + 2);
        js.spec.queue = i % 2 ? "odd" : "even";
        CHECK_I64(berth__trace_push(t, &js), 0);
    }
    return t;
}

/* ---- statistics ------------------------------------------------------------------------- */

static void test_stats_tiny(void)
{
    struct tmp tm;
    tmp_open(&tm);
    struct berth_trace *t = load_ok(tmp_write(&tm, "tiny.csv", tiny_csv), "native");
    if (!t) {
        tmp_close(&tm);
        return;
    }
    struct berth_trace_stats s;
    struct berth_err err = {0};
    CHECK_I64(berth_trace_stats(t, &s, &err), 0);
    CHECK_I64(s.jobs, 5);
    /* whole-GPU jobs a, b, c; fractional d (0.5) and e (0.25), which count in the 1 bin too */
    CHECK_I64(s.ngangs, 3);
    if (s.ngangs == 3) {
        CHECK_I64(s.gangs[0].gpus, 1);
        CHECK_I64(s.gangs[0].jobs, 3);
        CHECK_I64(s.gangs[1].gpus, 2);
        CHECK_I64(s.gangs[1].jobs, 1);
        CHECK_I64(s.gangs[2].gpus, 4);
        CHECK_I64(s.gangs[2].jobs, 1);
    }
    CHECK_I64(s.fractional_jobs, 2);
    CHECK_DBL(s.fractional_median_share, 0.375, 1e-12);
    CHECK_I64(s.multi_gpu_jobs, 2);
    CHECK_DBL(s.multi_gpu_fraction, 0.4, 1e-12);
    /* durations 1 2 3 4 10: ranks 2, 3.6, 3.96 */
    CHECK_I64(s.duration_min_us, 1000000);
    CHECK_I64(s.duration_max_us, 10000000);
    CHECK_DBL(s.duration_median_s, 3, 1e-9);
    CHECK_DBL(s.duration_p90_s, 4 + 0.6 * 6, 1e-9);
    CHECK_DBL(s.duration_p99_s, 4 + 0.96 * 6, 1e-9);
    CHECK_DBL(s.duration_mean_s, 4, 1e-9);
    /* GPU time 1 2 2.5 4 12 GPU-s (sorted): median 2.5, p99 4 + 0.96 x 8 */
    CHECK_DBL(s.gpu_hours_total, 21.5 / 3600, 1e-12);
    CHECK_DBL(s.gpu_hours_median, 2.5 / 3600, 1e-12);
    CHECK_DBL(s.gpu_hours_p99, 11.68 / 3600, 1e-12);
    CHECK_I64(s.first_arrival_us, 0);
    CHECK_I64(s.last_arrival_us, 20000000);
    CHECK_I64(s.span_us, 20000000);
    CHECK_DBL(s.span_days, 20.0 / 86400, 1e-12);
    /* queues q1 2, q2 2 (ties by name), one without; users u1 2, then u2 and u3 */
    CHECK_I64(s.nqueues, 2);
    CHECK_I64(s.jobs_without_queue, 1);
    if (s.nqueues == 2) {
        CHECK_STR(s.queues[0].name, "q1");
        CHECK_I64(s.queues[0].jobs, 2);
        CHECK_STR(s.queues[1].name, "q2");
        CHECK_I64(s.queues[1].jobs, 2);
    }
    CHECK_I64(s.nusers, 3);
    CHECK_I64(s.jobs_without_user, 1);
    if (s.nusers == 3) {
        CHECK_STR(s.users[0].name, "u1");
        CHECK_I64(s.users[0].jobs, 2);
        CHECK_STR(s.users[1].name, "u2");
        CHECK_STR(s.users[2].name, "u3");
    }
    berth_trace_free(t); /* the stats own their names */
    if (s.nusers == 3)
        CHECK_STR(s.users[2].name, "u3");

    char *txt = stats_text(&s, 0);
    CHECK_HAS(txt, "jobs            5\n");
    CHECK_HAS(txt, "1: 3 \xC2\xB7 2: 1 \xC2\xB7 4: 1 (40.00 % multi-GPU)");
    CHECK_HAS(txt, "2 jobs, share of a GPU median 0.38, p90 0.47, range 0.25-0.5");
    CHECK_HAS(txt, "min 1, median 3, p90 7.6, p99 9.76, max 10, mean 4\n");
    CHECK_HAS(txt, "median 0.00069 GPU-h, p99 0.0032, total 0.006 GPU-h");
    CHECK_HAS(txt, "first 0, last 20, span 20 (0.0 d)");
    CHECK_HAS(txt, "(none)");
    free(txt);
    txt = stats_text(&s, 1);
    CHECK_HAS(txt, "... and 2 more");
    free(txt);

    char *js = berth_trace_stats_json(&s, "t.csv", 0);
    json_error_t je;
    json_t *o = js ? json_loads(js, 0, &je) : NULL;
    CHECK(o != NULL);
    if (o) {
        CHECK_STR(json_string_value(json_object_get(o, "path")), "t.csv");
        CHECK_I64(json_integer_value(json_object_get(o, "jobs")), 5);
        json_t *d = json_object_get(o, "duration_s");
        CHECK_DBL(json_number_value(json_object_get(d, "p90")), 7.6, 1e-9);
        CHECK_DBL(json_number_value(json_object_get(d, "min")), 1, 0);
        json_t *g = json_object_get(o, "gpus_per_job");
        CHECK_I64(json_array_size(g), 3);
        CHECK_I64(json_integer_value(json_object_get(json_array_get(g, 2), "gpus")), 4);
        CHECK_DBL(json_number_value(json_object_get(o, "fractional_median_share")), 0.375, 0);
        json_t *q = json_object_get(o, "queues");
        CHECK_I64(json_array_size(q), 2);
        CHECK_STR(json_string_value(json_object_get(json_array_get(q, 1), "name")), "q2");
        CHECK_I64(json_integer_value(json_object_get(o, "jobs_without_user")), 1);
        CHECK_DBL(json_number_value(json_object_get(o, "span_days")), 20.0 / 86400, 1e-15);
        json_decref(o);
    }
    free(js);
    berth_trace_stats_free(&s);
    tmp_close(&tm);
}

static void test_stats_edges(void)
{
    struct berth_err err = {0};
    struct berth_trace_stats s;
    /* an empty trace: zeros, no crash */
    struct berth_trace *t = berth__trace_new("empty");
    CHECK_I64(berth_trace_stats(t, &s, &err), 0);
    CHECK_I64(s.jobs, 0);
    CHECK_I64(s.ngangs + s.nqueues + s.nusers, 0);
    CHECK_DBL(s.duration_p99_s + s.gpu_hours_total + s.span_days, 0, 0);
    char *txt = stats_text(&s, 0);
    CHECK_HAS(txt, "users           none given");
    free(txt);
    char *js = berth_trace_stats_json(&s, NULL, 1);
    CHECK_HAS(js, "\"fractional_median_share\": null");
    free(js);
    berth_trace_stats_free(&s);
    berth_trace_free(t);

    /* even count: the median is the mean of the middle two; huge products do not overflow */
    t = berth__trace_new("big");
    berth_us durs[] = {2, 4, INT64_C(1000000000000) * BERTH_US_PER_S, 1};
    for (size_t i = 0; i < 4; i++) {
        struct berth_jobdesc js2;
        berth__jobspec_defaults(&js2);
        js2.spec.id = i == 0 ? "a" : i == 1 ? "b" : i == 2 ? "c" : "d";
        js2.spec.duration_us = durs[i];
        js2.spec.num_gpus = js2.spec.min_gpus = js2.spec.max_gpus = i == 2 ? 1000000 : 1;
        CHECK_I64(berth__trace_push(t, &js2), 0);
    }
    CHECK_I64(berth_trace_stats(t, &s, &err), 0);
    CHECK_DBL(s.duration_median_s, 3e-6, 1e-15);
    CHECK_DBL(s.gpu_hours_total, 1e18 / 3600.0, 1e3);
    CHECK_DBL(s.duration_mean_s, 1e12 / 4, 1e-3);
    CHECK_I64(s.multi_gpu_jobs, 1);
    berth_trace_stats_free(&s);
    berth_trace_free(t);

    /* numbers for people: separators and rounding */
    t = berth__trace_new("people");
    struct berth_jobdesc js3;
    berth__jobspec_defaults(&js3);
    js3.spec.id = "x";
    js3.spec.duration_us = INT64_C(1234567891) * BERTH_US_PER_S / 1000; /* 1,234,567.891 s */
    js3.spec.arrival_us = 0;
    CHECK_I64(berth__trace_push(t, &js3), 0);
    js3.spec.id = "y";
    js3.spec.duration_us = 12345; /* 0.012345 s */
    js3.spec.arrival_us = 3 * 86400 * BERTH_US_PER_S;
    CHECK_I64(berth__trace_push(t, &js3), 0);
    CHECK_I64(berth_trace_stats(t, &s, &err), 0);
    txt = stats_text(&s, 0);
    CHECK_HAS(txt, "min 0.012, median 617,284, p90 1,111,111, p99 1,222,222, max 1,234,568");
    CHECK_HAS(txt, "span 259,200 (3.0 d)");
    free(txt);
    berth_trace_stats_free(&s);
    berth_trace_free(t);
}

/* ---- slices ----------------------------------------------------------------------------- */

/* The ids of a slice joined by spaces, into buf. */
static const char *ids(const struct berth_trace *t, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; t && i < berth_trace_count(t) && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", berth_trace_jobs(t)[i].id);
    return buf;
}

static struct berth_trace *slice_ok(const struct berth_trace *t, const struct berth_slice_opts *o)
{
    struct berth_trace *s = NULL;
    struct berth_err err = {0};
    int rc = berth_trace_slice(t, o, &s, &err);
    if (rc)
        fprintf(stderr, "  berth_trace_slice: %s\n", err.msg);
    CHECK_I64(rc, 0);
    return rc ? NULL : s;
}

static void test_slice_filters(void)
{
    struct tmp tm;
    tmp_open(&tm);
    struct berth_trace *t = load_ok(tmp_write(&tm, "tiny.csv", tiny_csv), "native");
    tmp_close(&tm);
    if (!t)
        return;
    char buf[256];
    struct berth_slice_opts o;
    struct berth_trace *s;

    berth_slice_opts_init(&o);
    s = slice_ok(t, &o); /* everything, as a copy */
    CHECK_STR(ids(s, buf, sizeof buf), "a b c d e");
    for (size_t i = 0; s && i < 5; i++)
        CHECK(same_job(&berth_trace_jobs(s)[i], &berth_trace_jobs(t)[i]));
    berth_trace_free(s);

    /* window [5, 20): arrivals 10, 5, 15 kept; 0 before, 20 at the open end */
    o.from_us = 5 * BERTH_US_PER_S;
    o.to_us = 20 * BERTH_US_PER_S;
    s = slice_ok(t, &o);
    CHECK_STR(ids(s, buf, sizeof buf), "a c e");
    CHECK_I64(berth_trace_jobs(s)[0].arrival_us, 10 * BERTH_US_PER_S);
    berth_trace_free(s);
    o.rebase = 1; /* the earliest kept (c, at 5) arrives at 0 */
    s = slice_ok(t, &o);
    CHECK_I64(berth_trace_jobs(s)[0].arrival_us, 5 * BERTH_US_PER_S);
    CHECK_I64(berth_trace_jobs(s)[1].arrival_us, 0);
    CHECK_I64(berth_trace_jobs(s)[2].arrival_us, 10 * BERTH_US_PER_S);
    berth_trace_free(s);
    berth_slice_opts_init(&o);
    o.to_us = 1; /* only b, at 0 */
    s = slice_ok(t, &o);
    CHECK_STR(ids(s, buf, sizeof buf), "b");
    berth_trace_free(s);

    /* queues and users, exact match */
    const char *q1[] = {"q1"}, *q21[] = {"q2", "q1"}, *u1[] = {"u1"}, *q2[] = {"q2"};
    berth_slice_opts_init(&o);
    o.queues = q1;
    o.nqueues = 1;
    s = slice_ok(t, &o);
    CHECK_STR(ids(s, buf, sizeof buf), "a b");
    berth_trace_free(s);
    o.queues = q21;
    o.nqueues = 2;
    s = slice_ok(t, &o);
    CHECK_STR(ids(s, buf, sizeof buf), "a b c e");
    berth_trace_free(s);
    berth_slice_opts_init(&o);
    o.users = u1;
    o.nusers = 1;
    s = slice_ok(t, &o);
    CHECK_STR(ids(s, buf, sizeof buf), "a c");
    berth_trace_free(s);
    o.queues = q2;
    o.nqueues = 1;
    s = slice_ok(t, &o);
    CHECK_STR(ids(s, buf, sizeof buf), "c");
    /* the slice owns its strings: they outlive the source */
    struct berth_trace *copy = slice_ok(t, &o);
    berth_trace_free(t);
    t = NULL;
    if (copy) {
        CHECK_STR(berth_trace_jobs(copy)[0].queue, "q2");
        CHECK_STR(berth_jobspec_extra(&berth_trace_jobs(copy)[0])->user, "u1");
        CHECK_STR(berth_trace_jobs(copy)[0].id, "c");
    }
    berth_trace_free(copy);
    berth_trace_free(s);
}

static void test_slice_errors(void)
{
    struct berth_trace *t = numbered(10), *s = NULL;
    struct berth_err err = {0};
    struct berth_slice_opts o;
    berth_slice_opts_init(&o);
    o.fraction = 0.5;
    o.count = 3;
    CHECK_I64(berth_trace_slice(t, &o, &s, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "found both");
    berth_slice_opts_init(&o);
    o.fraction = 1.5;
    CHECK_I64(berth_trace_slice(t, &o, &s, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "--sample: expected a fraction in (0, 1]");
    o.fraction = -0.1;
    CHECK_I64(berth_trace_slice(t, &o, &s, &err), BERTH_EINPUT);
    berth_slice_opts_init(&o);
    o.from_us = 5;
    o.to_us = 5;
    CHECK_I64(berth_trace_slice(t, &o, &s, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "--to: expected a time after --from");
    berth_slice_opts_init(&o);
    o.from_us = 100 * BERTH_US_PER_S;
    CHECK_I64(berth_trace_slice(t, &o, &s, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "numbered: the slice keeps no job (10 jobs, 0 arriving in [100, end))");
    const char *nq[] = {"nope"};
    berth_slice_opts_init(&o);
    o.queues = nq;
    o.nqueues = 1;
    CHECK_I64(berth_trace_slice(t, &o, &s, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "(10 jobs, 0 in the queues asked for)");
    CHECK(s == NULL);
    berth_trace_free(t);
}

static void test_slice_sample(void)
{
    struct berth_trace *t = numbered(1000);
    if (!t)
        return;
    struct berth_slice_opts o;
    berth_slice_opts_init(&o);
    o.count = 100;
    o.seed = 7;
    struct berth_trace *a = slice_ok(t, &o), *b = slice_ok(t, &o);
    o.seed = 8;
    struct berth_trace *c = slice_ok(t, &o);
    if (a && b && c) {
        CHECK_I64(berth_trace_count(a), 100);
        CHECK_I64(berth_trace_count(c), 100);
        int same = 1, differ = 0, ordered = 1;
        for (size_t i = 0; i < 100; i++) {
            const struct berth_jobspec *x = &berth_trace_jobs(a)[i];
            same &= !strcmp(x->id, berth_trace_jobs(b)[i].id);
            differ |= strcmp(x->id, berth_trace_jobs(c)[i].id) != 0;
            if (i)
                ordered &= x->line > berth_trace_jobs(a)[i - 1].line;
        }
        CHECK(same);    /* same seed, same jobs */
        CHECK(differ);  /* another seed, another sample */
        CHECK(ordered); /* file order kept */
    }
    berth_trace_free(a);
    berth_trace_free(b);
    berth_trace_free(c);

    /* fraction: round(f x matched), at least 1; count beyond what matches keeps all */
    size_t want[][2] = {{250, 0}, {1000, 0}, {1, 0}, {3, 0}};
    double fr[] = {0.25, 1, 0.0001, 0.0025};
    for (size_t k = 0; k < 4; k++) {
        berth_slice_opts_init(&o);
        o.fraction = fr[k];
        a = slice_ok(t, &o);
        CHECK_I64(a ? berth_trace_count(a) : 0, want[k][0]);
        berth_trace_free(a);
    }
    const char *odd[] = {"odd"};
    berth_slice_opts_init(&o);
    o.count = 5000;
    o.queues = odd;
    o.nqueues = 1;
    a = slice_ok(t, &o);
    CHECK_I64(a ? berth_trace_count(a) : 0, 500);
    berth_trace_free(a);
    /* sampling after the filters: every kept job is odd and in the window */
    o.count = 10;
    o.from_us = 100 * BERTH_US_PER_S;
    o.to_us = 200 * BERTH_US_PER_S;
    o.rebase = 1;
    a = slice_ok(t, &o);
    int fits = a && berth_trace_count(a) == 10;
    long first = fits ? strtol(berth_trace_jobs(a)[0].id, NULL, 10) : 0;
    berth_us lo = INT64_MAX;
    for (size_t i = 0; fits && i < 10; i++) {
        const struct berth_jobspec *x = &berth_trace_jobs(a)[i];
        long id = strtol(x->id, NULL, 10);
        fits &= id % 2 == 0 && id >= 101 && id <= 200; /* job k arrives at k - 1 s */
        fits &= x->arrival_us == (id - first) * BERTH_US_PER_S;
        if (x->arrival_us < lo)
            lo = x->arrival_us;
    }
    CHECK(fits);
    CHECK_I64(lo, 0); /* rebased */
    berth_trace_free(a);

    /* every job equally likely: 4000 samples of 1 of 4 jobs */
    struct berth_trace *four = numbered(4);
    size_t hits[4] = {0};
    for (uint64_t seed = 0; four && seed < 4000; seed++) {
        berth_slice_opts_init(&o);
        o.count = 1;
        o.seed = seed;
        a = slice_ok(four, &o);
        if (a)
            hits[strtol(berth_trace_jobs(a)[0].id, NULL, 10) - 1]++;
        berth_trace_free(a);
    }
    for (size_t i = 0; i < 4; i++)
        CHECK(hits[i] > 880 && hits[i] < 1120);
    berth_trace_free(four);
    berth_trace_free(t);
}

/* ---- convert ---------------------------------------------------------------------------- */

/* Writes t as native CSV into path and loads it back: the same jobs. */
static void round_trip(const struct berth_trace *t, const char *path)
{
    struct berth_err err = {0};
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_I64(berth_trace_write_native(f, berth_trace_jobs(t), berth_trace_count(t), &err), 0);
    CHECK_I64(fclose(f), 0);
    struct berth_trace *b = load_ok(path, "native");
    if (!b)
        return;
    CHECK_I64(berth_trace_count(b), berth_trace_count(t));
    for (size_t i = 0; i < berth_trace_count(t) && i < berth_trace_count(b); i++) {
        int same = same_job(&berth_trace_jobs(t)[i], &berth_trace_jobs(b)[i]);
        if (!same)
            fprintf(stderr, "  job %zu differs after the round trip\n", i);
        CHECK(same);
    }
    berth_trace_free(b);
}

static void test_convert_round_trip(void)
{
    struct tmp tm;
    tmp_open(&tm);
    struct berth_trace *t = load_ok(tmp_write(&tm, "tiny.csv", tiny_csv), "native");
    if (t)
        round_trip(t, tmp_path(&tm, "tiny-out.csv"));
    berth_trace_free(t);
    /* every native column, quoting included */
    t = load_ok(tmp_write(&tm, "full.csv",
                          "job_id,arrival_s,duration_s,num_gpus,job_type,total_steps,user,queue,"
                          "gpu_type,min_gpus,max_gpus,gpu_share,gpu_mem_mib,priority,"
                          "single_server\n"
                          "\"j,1\",0.000001,1.5,4,\"bert \"\"large\"\"\",100,u,q,v100|a100,2,8,1,"
                          "16384,-3,1\n"
                          "j2,7,0.25,1,,,,,,,,0.125,,,\n"),
                "native");
    if (t)
        round_trip(t, tmp_path(&tm, "full-out.csv"));
    berth_trace_free(t);
    /* philly-pollux: arrivals from the earliest submit, the VC as queue, ids = row numbers */
    t = load_ok(tmp_write(&tm, "philly.csv",
                          "timestamp,duration,num_gpus,gpu_time,cluster\n"
                          "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
                          "2017-10-09 06:13:03,2951.5,2,5903.0,6214e9\n"),
                "philly-pollux");
    if (t) {
        round_trip(t, tmp_path(&tm, "philly-out.csv"));
        CHECK_I64(berth_trace_jobs(t)[0].arrival_us, (INT64_C(48) * 60 + 52) * BERTH_US_PER_S);
        CHECK_STR(berth_trace_jobs(t)[1].queue, "6214e9");
    }
    berth_trace_free(t);
    tmp_close(&tm);
}

static void test_parse_seconds(void)
{
    berth_us v = 0;
    CHECK_I64(berth_parse_seconds("12.5", &v), 0);
    CHECK_I64(v, 12500000);
    CHECK_I64(berth_parse_seconds("0.1", &v), 0);
    CHECK_I64(v, 100000);
    CHECK_I64(berth_parse_seconds("-3", &v), 0);
    CHECK_I64(v, -3000000);
    CHECK_I64(berth_parse_seconds("1.5e3", &v), 0);
    CHECK_I64(v, 1500000000);
    CHECK_I64(berth_parse_seconds("abc", &v), BERTH_EINPUT);
    CHECK_I64(berth_parse_seconds("", &v), BERTH_EINPUT);
    CHECK_I64(berth_parse_seconds("1e300", &v), BERTH_EINPUT);
    CHECK_I64(berth_parse_seconds(NULL, &v), BERTH_EINPUT);
}

/* ---- the real Philly trace -------------------------------------------------------------- */

static void test_philly_figures(void)
{
    const char *shared = getenv("BERTH_SHARED");
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/philly-pollux/philly.csv", shared ? shared : "");
    if (!shared || access(path, R_OK)) {
        printf("note: %s not found; skipping the Philly figures\n", path);
        return;
    }
    struct berth_trace *t = load_ok(path, "philly-pollux");
    if (!t)
        return;
    struct berth_trace_stats s;
    struct berth_err err = {0};
    CHECK_I64(berth_trace_stats(t, &s, &err), 0);
    berth_trace_free(t);
    /* research/trace-formats.md section 2, with the unrounded values behind its figures */
    CHECK_I64(s.jobs, 82247);
    static const struct berth_trace_stats_bin hist[] = {
        {1, 76627}, {2, 1818}, {4, 1870}, {8, 1643}, {12, 7},
        {16, 199},  {24, 7},   {32, 67},  {64, 6},   {128, 3},
    };
    CHECK_I64(s.ngangs, 10);
    for (size_t i = 0; i < s.ngangs && i < 10; i++) {
        CHECK_I64(s.gangs[i].gpus, hist[i].gpus);
        CHECK_I64(s.gangs[i].jobs, hist[i].jobs);
    }
    CHECK_I64(s.multi_gpu_jobs, 5620);
    CHECK_I64(s.fractional_jobs, 0);
    CHECK_I64(s.duration_min_us, 1000000);
    CHECK_I64(s.duration_max_us, INT64_C(4628226000000));
    CHECK_DBL(s.duration_median_s, 1144, 1e-9);
    CHECK_DBL(s.duration_p90_s, 11264.8, 1e-6);
    CHECK_DBL(s.duration_p99_s, 254758.42, 1e-6);
    CHECK_DBL(s.duration_mean_s, 13135.931401753, 1e-6);
    CHECK_DBL(s.gpu_hours_median, 0.329444444444, 1e-9);
    CHECK_DBL(s.gpu_hours_p99, 286.299488889, 1e-6);
    CHECK_DBL(s.gpu_hours_total, 978078.472778, 1e-5);
    CHECK_I64(s.span_us, INT64_C(9408690) * BERTH_US_PER_S);
    CHECK_DBL(s.span_days, 108.896875, 1e-9);
    CHECK_I64(s.nqueues, 15);
    static const struct {
        const char *name;
        size_t jobs;
    } vcs[] = {{"6214e9", 41226}, {"11cb48", 16091}, {"6c71a0", 9953}, {"b436b2", 7423}};
    for (size_t i = 0; i < 4 && i < s.nqueues; i++) {
        CHECK_STR(s.queues[i].name, vcs[i].name);
        CHECK_I64(s.queues[i].jobs, vcs[i].jobs);
    }
    CHECK_I64(s.nusers, 0);
    /* the table prints the document's figures as written there */
    char *txt = stats_text(&s, 0);
    CHECK_HAS(txt, "jobs            82,247\n");
    CHECK_HAS(txt, "1: 76,627 \xC2\xB7 2: 1,818 \xC2\xB7 4: 1,870 \xC2\xB7 8: 1,643 \xC2\xB7 "
                   "12: 7 \xC2\xB7 16: 199 \xC2\xB7 24: 7 \xC2\xB7 32: 67 \xC2\xB7 64: 6 \xC2\xB7 "
                   "128: 3 (6.83 % multi-GPU)");
    CHECK_HAS(txt, "min 1, median 1,144, p90 11,265, p99 254,758, max 4,628,226, mean 13,136\n");
    CHECK_HAS(txt, "median 0.33 GPU-h, p99 286, total 978,078 GPU-h\n");
    CHECK_HAS(txt, "(108.9 d)");
    CHECK_HAS(txt, "queues          15\n    6214e9     41,226\n    11cb48     16,091\n");
    free(txt);
    berth_trace_stats_free(&s);
}

static const struct check_test tests[] = {
    {"stats_tiny", test_stats_tiny},       {"stats_edges", test_stats_edges},
    {"slice_filters", test_slice_filters}, {"slice_errors", test_slice_errors},
    {"slice_sample", test_slice_sample},   {"convert_round_trip", test_convert_round_trip},
    {"parse_seconds", test_parse_seconds}, {"philly_figures", test_philly_figures},
};

CHECK_MAIN(tests)
