/* Tests for the peer simulators' loaders (src/io/trace_gavel.c, trace_tiresias.c,
 * trace_pollux.c, cluster_tiresias.c): exact jobs from hand-written samples, every bad-row
 * kind in strict and lenient mode, whole-file problems, and Gavel's embedded V100 table
 * against the shared simulation_throughputs.json when it is there. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tmpfile.h"
#include "io/loaders_peers.h"

/* ---- helpers -------------------------------------------------------------------------- */

/* One load: the loader's rc, the trace (free with done()), the report and the message. */
struct run {
    int rc;
    struct berth_load_report rep;
    struct berth_trace *t;
    struct berth_err err;
};

static void load(struct run *r, berth__loader_fn fn, const char *path, int lenient)
{
    memset(r, 0, sizeof *r);
    struct berth__load L = {
        .path = path, .lenient = lenient, .rep = &r->rep, .t = berth__trace_new(path)};
    CHECK(L.t != NULL);
    r->t = L.t;
    r->rc = fn(&L, &r->err);
}

static void done(struct run *r)
{
    berth_trace_free(r->t);
    r->t = NULL;
}

static const struct berth_jobspec *job(struct run *r, size_t i)
{
    static struct berth_jobspec none;
    CHECK(i < r->t->n);
    return i < r->t->n ? &r->t->jobs[i] : &none;
}

/* Checks the fields every peer loader leaves at their defaults. */
static void check_defaults(const struct berth_jobspec *j)
{
    CHECK_I64(j->min_gpus, j->num_gpus);
    CHECK_I64(j->max_gpus, j->num_gpus);
    CHECK_I64(j->gpu_share_milli, 1000);
    CHECK_I64(berth_jobspec_extra(j)->gpu_mem_mib, 0);
    CHECK_STR(berth_jobspec_extra(j)->user, "");
    CHECK_STR(j->queue, "");
    CHECK_STR(berth_jobspec_extra(j)->gpu_type, "");
    CHECK_I64(j->single_server, 0);
}

/* The file holds good rows plus one bad row on line `line`: strict fails naming the path,
 * the line and the column; lenient keeps the good rows and counts the reason once. */
static void check_bad(berth__loader_fn fn, const char *path, unsigned line, const char *what,
                      size_t good_jobs)
{
    struct run r;
    load(&r, fn, path, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    char want[300];
    snprintf(want, sizeof want, "%s:%u: %s", path, line, what);
    CHECK_HAS(r.err.msg, want);
    done(&r);
    load(&r, fn, path, 1);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.t->n, good_jobs);
    CHECK_I64(r.rep.skipped, 1);
    CHECK_I64(r.rep.nreasons, 1);
    CHECK_I64(r.rep.reasons[0].bad, 1);
    CHECK_I64(r.rep.reasons[0].first_line, line);
    /* the counted reason leaves out what was found */
    char reason[300];
    snprintf(reason, sizeof reason, "%s", what);
    char *found = strstr(reason, ", found \"");
    if (found)
        *found = '\0';
    CHECK_HAS(r.rep.reasons[0].reason, reason);
    done(&r);
}

/* ---- gavel ---------------------------------------------------------------------------- */

/* Durations below: round(total_steps / T * 1e6) with T from Gavel's V100 table. */
static void test_gavel_10(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(
        &t, "g10.trace",
        "ResNet-50 (batch size 64)\tcd %s/x && python3 main.py -b 64 %s/data\t"
        "image_classification/imagenet\t--num_minibatches\t1\t43948\t1\t1.0\t-1\t0.0\n"
        "LM (batch size 20)\tpython3 main.py --cuda --batch_size 20\tlanguage_modeling\t--steps"
        "\t0\t1000000\t4\t5.0\t1.2\t12.5\n"
        "CycleGAN\tcmd\twd\t--n_steps\t1\t55992\t8\t0.5\t-1.000000\t3600.000001\r\n"
        "\n"
        "Transformer (batch size 256)\tcmd \twd\t-step\t1\t19178\t16\t1\t-1\t7");
    struct run r;
    load(&r, berth__load_gavel, path, 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.rep.rows, 4);
    CHECK_I64(r.rep.skipped, 0);
    CHECK_I64(r.t->n, 4);
    if (r.t->n == 4) {
        const struct berth_jobspec *j = job(&r, 0);
        CHECK_STR(j->id, "1");
        CHECK_STR(berth_jobspec_extra(j)->job_type, "ResNet-50 (batch size 64)");
        CHECK_I64(j->arrival_us, 0);
        CHECK_I64(j->duration_us, INT64_C(10000057288)); /* 43948 / 4.3947748... */
        CHECK_I64(j->num_gpus, 1);
        CHECK_I64(j->total_steps, 43948);
        CHECK_I64(j->priority, 1000);
        CHECK_I64(j->line, 1);
        check_defaults(j);
        j = job(&r, 1);
        CHECK_STR(j->id, "2");
        CHECK_STR(berth_jobspec_extra(j)->job_type, "LM (batch size 20)");
        CHECK_I64(j->arrival_us, 12500000);
        CHECK_I64(j->duration_us, INT64_C(9009263877)); /* 1e6 / 110.99685... (sf 4) */
        CHECK_I64(j->num_gpus, 4);
        CHECK_I64(j->total_steps, 1000000);
        CHECK_I64(j->priority, 5000);
        CHECK_I64(j->line, 2);
        check_defaults(j);
        j = job(&r, 2);
        CHECK_STR(j->id, "3");
        CHECK_STR(berth_jobspec_extra(j)->job_type, "CycleGAN");
        CHECK_I64(j->arrival_us, INT64_C(3600000001));
        CHECK_I64(j->duration_us, INT64_C(1581306016)); /* sf 8 from sf 1: 4.42608... x 8 */
        CHECK_I64(j->num_gpus, 8);
        CHECK_I64(j->priority, 500);
        CHECK_I64(j->line, 3);
        j = job(&r, 3);
        CHECK_STR(j->id, "4");
        CHECK_I64(j->arrival_us, 7000000);
        CHECK_I64(j->duration_us, INT64_C(986824805)); /* sf 16 from sf 8: 9.71702... x 2 */
        CHECK_I64(j->num_gpus, 16);
        CHECK_I64(j->line, 5);
    }
    done(&r);
    tmp_close(&t);
}

static void test_gavel_7_and_12(void)
{
    struct tmp t;
    tmp_open(&t);
    /* two rows of Gavel's scheduler/traces/msr/seed=0/23dbec.trace, after a byte-order mark */
    const char *p7 = tmp_write(
        &t, "g7.trace",
        "\xEF\xBB\xBFTransformer (batch size 128)\tcd %s/gpusched/workloads/pytorch/translation && "
        "python3 "
        "train.py -data %s/data/translation/multi30k.atok.low.pt -batch_size 128 "
        "-proj_share_weight\t-step\t1\t14612\t0.000000\t1\n"
        "Recommendation (batch size 8192)\tcd %s/gpusched/workloads/pytorch/recommendation/"
        "scripts/ml-20m && python3 train.py --data_dir %s/data/ml-20m/pro_sg/ --batch_size 8192"
        "\t-n\t1\t1550\t11.000000\t1\n");
    struct run r;
    load(&r, berth__load_gavel, p7, 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.t->n, 2);
    if (r.t->n == 2) {
        CHECK_I64(job(&r, 0)->duration_us, INT64_C(2683018306));
        CHECK_I64(job(&r, 0)->arrival_us, 0);
        CHECK_I64(job(&r, 0)->priority, 1000);
        CHECK_I64(job(&r, 0)->total_steps, 14612);
        CHECK_STR(berth_jobspec_extra(job(&r, 0))->job_type, "Transformer (batch size 128)");
        CHECK_I64(job(&r, 1)->duration_us, INT64_C(545484549));
        CHECK_I64(job(&r, 1)->arrival_us, 11000000);
        CHECK_STR(berth_jobspec_extra(job(&r, 1))->job_type, "Recommendation (batch size 8192)");
        check_defaults(job(&r, 1));
    }
    done(&r);

    /* Shockwave: the duration field is used as is, whatever the job type */
    const char *p12 = tmp_write(
        &t, "g12.trace",
        "LM (batch size 10)\tpython3 main.py --cuda --data %s/wikitext2 --batch_size 10\t"
        "language_modeling\t--steps\t1\t134583\t1\tgns\t1\t-1.000000\t1418\t0\n"
        "My \xff\xfe model\tcmd\twd\t-n\t0\t143450\t2\taccordion\t1.5\t-1.000000\t3338.25\t55\n");
    load(&r, berth__load_gavel, p12, 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.t->n, 2);
    if (r.t->n == 2) {
        const struct berth_jobspec *j = job(&r, 0);
        CHECK_STR(j->id, "1");
        CHECK_I64(j->duration_us, INT64_C(1418000000));
        CHECK_I64(j->total_steps, 134583);
        CHECK_I64(j->priority, 1000);
        j = job(&r, 1);
        CHECK_STR(berth_jobspec_extra(j)->job_type, "My \xff\xfe model");
        CHECK_I64(j->duration_us, INT64_C(3338250000));
        CHECK_I64(j->arrival_us, 55000000);
        CHECK_I64(j->num_gpus, 2);
        CHECK_I64(j->priority, 1500);
        check_defaults(j);
    }
    done(&r);
    tmp_close(&t);
}

#define G10 "ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t0\n"

static const struct {
    const char *row; /* a 10-field row written after G10 */
    const char *what;
} gavel_bad[] = {
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\t0\n",
     "expected 10 tab-separated fields as on the first row, found 9"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t0\tx\n",
     "expected 10 tab-separated fields as on the first row, found 11"},
    {"\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t0\n", "column job_type: expected a non-empty"},
    {"Foo (batch size 1)\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t0\n",
     "column job_type: expected a job type of Gavel's V100 throughput table"},
    {"\xff\xfe\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t0\n", "column job_type: expected a job type"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t2\t100\t1\t1\t-1\t0\n",
     "column needs_data_dir: expected 0 or 1, found \"2\""},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\tabc\t1\t1\t-1\t0\n",
     "column total_steps: expected a whole number of steps >= 1, found \"abc\""},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t0\t1\t1\t-1\t0\n", "column total_steps:"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t12.5\t1\t1\t-1\t0\n", "column total_steps:"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t99999999999999999999\t1\t1\t-1\t0\n",
     "column total_steps:"},
    {"Transformer (batch size 256)\tcmd\twd\t-n\t1\t9000000000000000000\t1\t1\t-1\t0\n",
     "column total_steps: expected a step count whose V100 run time is at most 10^12 s"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t0\t1\t-1\t0\n",
     "column scale_factor: expected a whole number of GPUs >= 1, found \"0\""},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t-5\t1\t-1\t0\n", "column scale_factor:"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1e300\t1\t-1\t0\n", "column scale_factor:"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t0\t-1\t0\n",
     "column priority_weight: expected a weight from 0.001 to 1000, found \"0\""},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1e300\t-1\t0\n",
     "column priority_weight:"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t-5\t-1\t0\n", "column priority_weight:"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\tnone\t0\n",
     "column SLO: expected a number (-1 = no SLO), found \"none\""},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t-5\n",
     "column arrival_time: expected a time in seconds from 0 to 10^12, found \"-5\""},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t1e300\n", "column arrival_time:"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t\xff\n", "column arrival_time:"},
    {"ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t\n", "column arrival_time:"},
};

static void test_gavel_bad_rows(void)
{
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof gavel_bad / sizeof *gavel_bad; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s%s%s", G10, gavel_bad[i].row, G10);
        const char *path = tmp_write(&t, "bad.trace", buf);
        size_t before = (size_t)check_failures;
        check_bad(berth__load_gavel, path, 2, gavel_bad[i].what, 2);
        if ((size_t)check_failures != before)
            fprintf(stderr, "  (gavel_bad[%zu])\n", i);
    }
    /* a 12-field file: its duration column */
    const char *row12 = "LM (batch size 10)\tc\tw\t-n\t1\t5\t1\tgns\t1\t-1\t%s\t0\n";
    const char *durs[] = {"0", "-1", "1e300", "x", ""};
    for (size_t i = 0; i < sizeof durs / sizeof *durs; i++) {
        char good[128], badrow[128], buf[400];
        snprintf(good, sizeof good, row12, "10");
        snprintf(badrow, sizeof badrow, row12, durs[i]);
        snprintf(buf, sizeof buf, "%s%s", good, badrow);
        const char *path = tmp_write(&t, "bad12.trace", buf);
        check_bad(berth__load_gavel, path, 2,
                  "column duration: expected a duration in seconds > 0 and at most 10^12", 1);
    }
    /* a 7-field file: arrival is field 6, scale_factor field 7 */
    const char *p7 = tmp_write(&t, "bad7.trace",
                               "CycleGAN\tc\t-n\t1\t10\t0\t1\n"
                               "CycleGAN\tc\t-n\t1\t10\t0\tx\n");
    check_bad(berth__load_gavel, p7, 2, "column scale_factor:", 1);
    tmp_close(&t);
}

static void test_gavel_lenient_many(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path =
        tmp_write(&t, "many.trace",
                  G10 "Foo\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t0\n" /* 2: unknown type */
                      "ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t100\t0\t1\t-1\t0\n" /* 3: sf */
                      "Bar\tcmd\twd\t-n\t1\t100\t1\t1\t-1\t0\n"                       /* 4: type */
                  G10 "ResNet-50 (batch size 64)\tcmd\n"                /* 6: fields */
                  G10 "ResNet-50 (batch size 64)\tcmd\twd\t-n\t1\t10"); /* 8: cut */
    struct run r;
    load(&r, berth__load_gavel, path, 1);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.rep.rows, 8);
    CHECK_I64(r.t->n, 3);
    CHECK_I64(r.rep.skipped, 5);
    CHECK_I64(r.rep.nreasons, 4);
    if (r.rep.nreasons == 4) {
        CHECK_HAS(r.rep.reasons[0].reason, "column job_type:");
        CHECK_I64(r.rep.reasons[0].count, 2);
        CHECK_I64(r.rep.reasons[0].first_line, 2);
        CHECK_HAS(r.rep.reasons[1].reason, "column scale_factor:");
        CHECK_I64(r.rep.reasons[1].count, 1);
        CHECK_STR(r.rep.reasons[2].reason,
                  "expected 10 tab-separated fields as on the first row, found 2");
        CHECK_I64(r.rep.reasons[2].first_line, 6);
        CHECK_STR(r.rep.reasons[3].reason,
                  "expected 10 tab-separated fields as on the first row, found 6");
        CHECK_I64(r.rep.reasons[3].first_line, 8);
    }
    /* ids are data row numbers, bad rows included */
    if (r.t->n == 3) {
        CHECK_STR(job(&r, 0)->id, "1");
        CHECK_STR(job(&r, 1)->id, "5");
        CHECK_STR(job(&r, 2)->id, "7");
    }
    done(&r);
    /* the same in strict mode stops at the first */
    load(&r, berth__load_gavel, path, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":2: column job_type: expected a job type of Gavel's V100 throughput "
                         "table, found \"Foo\"");
    done(&r);
    tmp_close(&t);
}

static void test_gavel_whole_file(void)
{
    struct tmp t;
    tmp_open(&t);
    struct run r;
    const char *path = tmp_write(&t, "empty.trace", "");
    load(&r, berth__load_gavel, path, 1);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":1: expected a Gavel trace row (7, 10 or 12 tab-separated fields), "
                         "found an empty file");
    done(&r);
    path = tmp_write(&t, "blank.trace", "\n\r\n\n");
    load(&r, berth__load_gavel, path, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, "found an empty file");
    done(&r);
    /* a CSV file (one field per line with tabs) or a header-like first row of 8 fields */
    path = tmp_write(&t, "csv.trace", "job_id,arrival_s,duration_s,num_gpus\na,0,1,1\n");
    load(&r, berth__load_gavel, path, 1);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":1: expected a Gavel trace row of 7, 10 or 12 tab-separated fields, "
                         "found 1 field");
    done(&r);
    path = tmp_write(&t, "eight.trace", "\n\na\tb\tc\td\te\tf\tg\th\n" G10);
    load(&r, berth__load_gavel, path, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":3: expected a Gavel trace row of 7, 10 or 12 tab-separated fields, "
                         "found 8 fields");
    done(&r);
    /* missing file */
    load(&r, berth__load_gavel, "/nonexistent/berth/x.trace", 0);
    CHECK_I64(r.rc, BERTH_EIO);
    CHECK_HAS(r.err.msg, "/nonexistent/berth/x.trace");
    done(&r);
    /* binary garbage never crashes */
    char junk[4096];
    unsigned s = 12345;
    for (size_t i = 0; i < sizeof junk; i++) {
        s = s * 1103515245u + 12345u;
        junk[i] = (char)(s >> 16);
    }
    path = tmp_write_n(&t, "junk.trace", junk, sizeof junk);
    load(&r, berth__load_gavel, path, 1);
    CHECK(r.rc == 0 || r.rc == BERTH_EINPUT);
    done(&r);
    tmp_close(&t);
}

/* Every (type, sf) of the shared simulation_throughputs.json must give the duration
 * round(1e6 steps / T) through the loader: the embedded table is the file's. */
static void test_gavel_table_matches_shared(void)
{
    const char *shared = getenv("BERTH_SHARED");
    char jp[512];
    snprintf(jp, sizeof jp, "%s/traces/gavel/simulation_throughputs.json",
             shared ? shared : "../shared");
    json_error_t je;
    json_t *root = json_load_file(jp, 0, &je);
    if (!root) {
        fprintf(stderr, "  (skipped: %s not readable)\n", jp);
        return;
    }
    json_t *v100 = json_object_get(root, "v100");
    CHECK(json_is_object(v100));
    struct tmp t;
    tmp_open(&t);
    snprintf(t.path, sizeof t.path, "%s/all.trace", t.dir);
    FILE *f = fopen(t.path, "wb");
    CHECK(f != NULL);
    const char *key;
    json_t *val;
    size_t n = 0;
    double want[128];
    json_object_foreach(v100, key, val)
    {
        char type[128];
        int sf;
        /* keys look like "('ResNet-50 (batch size 64)', 1)" */
        const char *q = strrchr(key, '\'');
        CHECK(q && key[0] == '(' && key[1] == '\'' && n < 128);
        if (!q || n >= 128)
            break;
        snprintf(type, sizeof type, "%.*s", (int)(q - key - 2), key + 2);
        sf = (int)strtol(q + 2, NULL, 10);
        fprintf(f, "%s\tc\tw\t-n\t0\t1000000\t%d\t1\t-1\t0\n", type, sf);
        want[n++] = llround(1e6 / json_real_value(json_object_get(val, "null")) * 1e6);
    }
    fclose(f);
    CHECK_I64(n, 83);
    struct run r;
    load(&r, berth__load_gavel, t.path, 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.t->n, n);
    for (size_t i = 0; i < n && i < r.t->n; i++)
        CHECK_I64(r.t->jobs[i].duration_us, (int64_t)want[i]);
    done(&r);
    json_decref(root);
    tmp_close(&t);
}

/* ---- tiresias ------------------------------------------------------------------------- */

static void test_tiresias_good(void)
{
    struct tmp t;
    tmp_open(&t);
    /* the first rows of Tiresias' simulator/60_job.csv, plus a fractional time */
    const char *path = tmp_write(&t, "60_job.csv",
                                 "\xEF\xBB\xBFjob_id,num_gpu,submit_time,iterations,model_name,"
                                 "duration,interval\r\n"
                                 "0,1,0,606,vgg19,164,30\r\n"
                                 "1,8,30,133,vgg11,147,23\r\n"
                                 "2,2,53.25,,,0.5,26\r\n");
    struct run r;
    load(&r, berth__load_tiresias, path, 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.rep.rows, 3);
    CHECK_I64(r.t->n, 3);
    if (r.t->n == 3) {
        const struct berth_jobspec *j = job(&r, 0);
        CHECK_STR(j->id, "0");
        CHECK_I64(j->num_gpus, 1);
        CHECK_I64(j->arrival_us, 0);
        CHECK_I64(j->duration_us, INT64_C(164000000));
        CHECK_I64(j->total_steps, 606);
        CHECK_STR(berth_jobspec_extra(j)->job_type, "vgg19");
        CHECK_I64(j->priority, 0);
        CHECK_I64(j->line, 2);
        check_defaults(j);
        j = job(&r, 1);
        CHECK_STR(j->id, "1");
        CHECK_I64(j->num_gpus, 8);
        CHECK_I64(j->arrival_us, 30000000);
        CHECK_I64(j->duration_us, 147000000);
        CHECK_I64(j->total_steps, 133);
        CHECK_STR(berth_jobspec_extra(j)->job_type, "vgg11");
        j = job(&r, 2);
        CHECK_STR(j->id, "2");
        CHECK_I64(j->arrival_us, 53250000);
        CHECK_I64(j->duration_us, 500000);
        CHECK_I64(j->total_steps, 0);
        CHECK_STR(berth_jobspec_extra(j)->job_type, "");
        CHECK_I64(j->line, 4);
    }
    done(&r);
    /* columns by name in any order, other columns ignored (Tiresias' tf_job.csv) */
    path = tmp_write(&t, "tf_job.csv",
                     "job_id,num_gpu,submit_time,start_time,duration,model_size,aggr_interval,"
                     "model_name,model_scale\n"
                     "10,12,11,14,20,400,0,vgg19,1\n");
    load(&r, berth__load_tiresias, path, 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.t->n, 1);
    if (r.t->n == 1) {
        CHECK_STR(job(&r, 0)->id, "10");
        CHECK_I64(job(&r, 0)->num_gpus, 12);
        CHECK_I64(job(&r, 0)->arrival_us, 11000000);
        CHECK_I64(job(&r, 0)->duration_us, 20000000);
        CHECK_STR(berth_jobspec_extra(job(&r, 0))->job_type, "vgg19");
        CHECK_I64(job(&r, 0)->total_steps, 0);
    }
    done(&r);
    path = tmp_write(&t, "min.csv", "duration,submit_time,num_gpu,job_id\n7,1,2,x\n");
    load(&r, berth__load_tiresias, path, 0);
    CHECK_I64(r.rc, 0);
    if (r.t->n == 1) {
        CHECK_STR(job(&r, 0)->id, "x");
        CHECK_I64(job(&r, 0)->num_gpus, 2);
        CHECK_I64(job(&r, 0)->duration_us, 7000000);
    }
    done(&r);
    tmp_close(&t);
}

#define TH "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
#define TG "0,1,0,606,vgg19,164,30\n"

static const struct {
    const char *row;
    const char *what;
} tiresias_bad[] = {
    {"1,1,0,606,vgg19,164\n", "expected 7 fields as in the header, found 6"},
    {",1,0,606,vgg19,164,30\n", "column job_id: expected a non-empty id"},
    {"1,0,0,606,vgg19,164,30\n",
     "column num_gpu: expected a whole number of GPUs >= 1, found \"0\""},
    {"1,-5,0,606,vgg19,164,30\n", "column num_gpu:"},
    {"1,99999999999999999999,0,606,vgg19,164,30\n", "column num_gpu:"},
    {"1,2.5,0,606,vgg19,164,30\n", "column num_gpu:"},
    {"1,1,-5,606,vgg19,164,30\n",
     "column submit_time: expected a time in seconds from 0 to 10^12, found \"-5\""},
    {"1,1,1e300,606,vgg19,164,30\n", "column submit_time:"},
    {"1,1,\xff\xfe,606,vgg19,164,30\n", "column submit_time:"},
    {"1,1,0,606,vgg19,0,30\n",
     "column duration: expected a duration in seconds > 0 and at most 10^12, found \"0\""},
    {"1,1,0,606,vgg19,1e300,30\n", "column duration:"},
    {"1,1,0,606,vgg19,,30\n", "column duration:"},
    {"1,1,0,-1,vgg19,164,30\n", "column iterations: expected a whole number of iterations >= 0"},
    {"1,1,0,99999999999999999999,vgg19,164,30\n", "column iterations:"},
};

static void test_tiresias_bad_rows(void)
{
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof tiresias_bad / sizeof *tiresias_bad; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, TH TG "%s" TG, tiresias_bad[i].row);
        const char *path = tmp_write(&t, "bad.csv", buf);
        size_t before = (size_t)check_failures;
        check_bad(berth__load_tiresias, path, 3, tiresias_bad[i].what, 2);
        if ((size_t)check_failures != before)
            fprintf(stderr, "  (tiresias_bad[%zu])\n", i);
    }
    /* a truncated last line */
    const char *path = tmp_write(&t, "cut.csv", TH TG "1,2,30,133,vg");
    check_bad(berth__load_tiresias, path, 3, "expected 7 fields as in the header, found 5", 1);
    tmp_close(&t);
}

static void test_tiresias_whole_file(void)
{
    struct tmp t;
    tmp_open(&t);
    struct run r;
    const char *path = tmp_write(&t, "yarn-gput1000.csv", "duration\n121\n122\n124\n");
    load(&r, berth__load_tiresias, path, 1);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":1: expected a Tiresias job CSV");
    CHECK_HAS(r.err.msg, "yarn-gput*.csv GPU-time distribution");
    CHECK_HAS(r.err.msg, "no job ids, arrival times or GPU counts");
    CHECK_I64(r.rep.rows, 0);
    done(&r);
    path = tmp_write(&t, "empty.csv", "");
    load(&r, berth__load_tiresias, path, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":1: expected the header job_id,num_gpu,submit_time,iterations,"
                         "model_name,duration,interval, found an empty file");
    done(&r);
    path = tmp_write(&t, "nogpu.csv", "job_id,submit_time,duration\n1,0,5\n");
    load(&r, berth__load_tiresias, path, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":1: column num_gpu: expected in the header");
    done(&r);
    path = tmp_write(&t, "twice.csv", "job_id,num_gpu,submit_time,duration,num_gpu\n");
    load(&r, berth__load_tiresias, path, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":1: column num_gpu: expected once, found twice (columns 2 and 5)");
    done(&r);
    /* a header alone: no jobs (the framework then says "expected at least one job") */
    path = tmp_write(&t, "header.csv", TH);
    load(&r, berth__load_tiresias, path, 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.t->n, 0);
    done(&r);
    tmp_close(&t);
}

/* ---- pollux --------------------------------------------------------------------------- */

static void test_pollux_good(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(&t, "workload-1.csv",
                                 "name,time,application,num_replicas,batch_size,duration\n"
                                 "cifar10-0,0,cifar10,1,128,1234.5\n"
                                 "imagenet-1,12.25,imagenet,48,12800,86400\n"
                                 "\"ncf,2\",100,ncf,4,256,60\n");
    struct run r;
    load(&r, berth__load_pollux, path, 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.rep.rows, 3);
    CHECK_I64(r.t->n, 3);
    if (r.t->n == 3) {
        const struct berth_jobspec *j = job(&r, 0);
        CHECK_STR(j->id, "cifar10-0");
        CHECK_I64(j->arrival_us, 0);
        CHECK_STR(berth_jobspec_extra(j)->job_type, "cifar10 (batch size 128)");
        CHECK_I64(j->num_gpus, 1);
        CHECK_I64(j->duration_us, INT64_C(1234500000));
        CHECK_I64(j->total_steps, 0);
        CHECK_I64(j->priority, 0);
        CHECK_I64(j->line, 2);
        check_defaults(j);
        j = job(&r, 1);
        CHECK_STR(j->id, "imagenet-1");
        CHECK_I64(j->arrival_us, 12250000);
        CHECK_STR(berth_jobspec_extra(j)->job_type, "imagenet (batch size 12800)");
        CHECK_I64(j->num_gpus, 48);
        CHECK_I64(j->duration_us, INT64_C(86400000000));
        check_defaults(j);
        j = job(&r, 2);
        CHECK_STR(j->id, "ncf,2");
        CHECK_STR(berth_jobspec_extra(j)->job_type, "ncf (batch size 256)");
        CHECK_I64(j->num_gpus, 4);
    }
    done(&r);
    /* columns by name, any order */
    path = tmp_write(&t, "order.csv",
                     "duration,batch_size,num_replicas,application,time,name\n5,64,2,bert,1,b\n");
    load(&r, berth__load_pollux, path, 0);
    CHECK_I64(r.rc, 0);
    if (r.t->n == 1) {
        CHECK_STR(job(&r, 0)->id, "b");
        CHECK_STR(berth_jobspec_extra(job(&r, 0))->job_type, "bert (batch size 64)");
        CHECK_I64(job(&r, 0)->num_gpus, 2);
        CHECK_I64(job(&r, 0)->arrival_us, 1000000);
        CHECK_I64(job(&r, 0)->duration_us, 5000000);
    }
    done(&r);
    tmp_close(&t);
}

#define PH "name,time,application,num_replicas,batch_size,duration\n"
#define PG "cifar10-0,0,cifar10,1,128,60\n"

static const struct {
    const char *row;
    const char *what;
} pollux_bad[] = {
    {"a,0,cifar10,1,128\n", "expected 6 fields as in the header, found 5"},
    {",0,cifar10,1,128,60\n", "column name: expected a non-empty name"},
    {"a,-5,cifar10,1,128,60\n",
     "column time: expected a time in seconds from 0 to 10^12, found \"-5\""},
    {"a,1e300,cifar10,1,128,60\n", "column time:"},
    {"a,x,cifar10,1,128,60\n", "column time:"},
    {"a,0,,1,128,60\n", "column application: expected a non-empty application name"},
    {"a,0,cifar10,0,128,60\n",
     "column num_replicas: expected a whole number of GPUs >= 1, found \"0\""},
    {"a,0,cifar10,99999999999999999999,128,60\n", "column num_replicas:"},
    {"a,0,cifar10,1,-5,60\n", "column batch_size: expected a whole batch size >= 1"},
    {"a,0,cifar10,1,12.8,60\n", "column batch_size:"},
    {"a,0,cifar10,1,128,0\n",
     "column duration: expected a duration in seconds > 0 and at most 10^12, found \"0\""},
    {"a,0,cifar10,1,128,1e300\n", "column duration:"},
    {"a,0,cifar10,1,128,\xff\n", "column duration:"},
};

static void test_pollux_bad_rows(void)
{
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof pollux_bad / sizeof *pollux_bad; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, PH PG "%s" PG, pollux_bad[i].row);
        const char *path = tmp_write(&t, "bad.csv", buf);
        size_t before = (size_t)check_failures;
        check_bad(berth__load_pollux, path, 3, pollux_bad[i].what, 2);
        if ((size_t)check_failures != before)
            fprintf(stderr, "  (pollux_bad[%zu])\n", i);
    }
    tmp_close(&t);
}

static void test_pollux_whole_file(void)
{
    struct tmp t;
    tmp_open(&t);
    struct run r;
    /* the artifact's own files: no duration column */
    const char *path = tmp_write(&t, "workload-1.csv",
                                 "name,time,application,num_replicas,batch_size\n"
                                 "cifar10-0,0,cifar10,1,128\n");
    load(&r, berth__load_pollux, path, 1);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":1: column duration: expected in the header, found no such column");
    CHECK_HAS(r.err.msg, "get_configurations()");
    CHECK_I64(r.t->n, 0);
    done(&r);
    path = tmp_write(&t, "empty.csv", "");
    load(&r, berth__load_pollux, path, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":1: expected the header name,time,application,num_replicas,"
                         "batch_size,duration, found an empty file");
    done(&r);
    path = tmp_write(&t, "unknown.csv", "name,time,app,num_replicas,batch_size,duration\n");
    load(&r, berth__load_pollux, path, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":1: column 3: expected a Pollux workload column");
    CHECK_HAS(r.err.msg, "found \"app\"");
    done(&r);
    path = tmp_write(&t, "noname.csv", "time,application,num_replicas,batch_size,duration\n");
    load(&r, berth__load_pollux, path, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":1: column name: expected in the header");
    done(&r);
    tmp_close(&t);
}

/* ---- tiresias cluster ----------------------------------------------------------------- */

static int cluster_load(const char *path, struct berth_cluster **out, struct berth_err *err)
{
    struct berth__cluster_builder b;
    berth__builder_init(&b);
    int rc = berth__cluster_load_tiresias(path, &b, err);
    *out = NULL;
    if (!rc)
        rc = berth__builder_build(&b, path, out, err);
    berth__builder_free(&b);
    return rc;
}

static void test_cluster_default(void)
{
    struct tmp t;
    tmp_open(&t);
    /* Tiresias' simulator/cluster_spec.csv (no final newline) */
    const char *path = tmp_write(&t, "cluster_spec.csv",
                                 "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,"
                                 "mem_p_node\n1,16,4,128,254");
    struct berth_cluster *c;
    struct berth_err err = {0};
    int rc = cluster_load(path, &c, &err);
    CHECK_I64(rc, 0);
    if (!rc) {
        CHECK_I64(c->nsrv, 16);
        CHECK_I64(c->total, 64);
        CHECK_I64(c->ntypes, 1);
        CHECK_STR(c->types[0].name, "gpu");
        CHECK_I64(c->nracks, 1);
        CHECK_STR(c->racks[0], "0");
        CHECK_I64(c->allow_span, 1);
        for (size_t i = 0; i < c->nsrv; i++) {
            CHECK_I64(c->srv[i].ngpus, 4);
            CHECK_I64(c->srv[i].cpu_milli, 128000);
            CHECK_I64(c->srv[i].mem_mib, 254 * 1024);
            CHECK_I64(c->srv[i].rack, 0);
        }
        berth_cluster_free(c);
    }
    /* two switches, columns in another order, a berth gpu_type */
    path = tmp_write(&t, "n6g8.csv",
                     "gpu_type,mem_p_node,num_cpu_p_node,num_gpu_p_node,num_node_p_switch,"
                     "num_switch\r\nV100,0,0,8,3,2\r\n\r\n");
    rc = cluster_load(path, &c, &err);
    CHECK_I64(rc, 0);
    if (!rc) {
        CHECK_I64(c->nsrv, 6);
        CHECK_I64(c->total, 48);
        CHECK_STR(c->types[0].name, "v100");
        CHECK_I64(c->nracks, 2);
        static const int rack[6] = {0, 0, 0, 1, 1, 1};
        for (size_t i = 0; i < c->nsrv && i < 6; i++) {
            CHECK_I64(c->srv[i].rack, rack[i]);
            CHECK_I64(c->srv[i].cpu_milli, 0);
            CHECK_I64(c->srv[i].mem_mib, 0);
        }
        CHECK_STR(c->racks[1], "1");
        berth_cluster_free(c);
    }
    tmp_close(&t);
}

#define CH "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n"

static const struct {
    const char *text;
    const char *what; /* after the path */
} cluster_bad[] = {
    {"", ":1: expected the header num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,"
         "mem_p_node, found an empty file"},
    {CH, ":2: expected one data row with the cluster's sizes, found none"},
    {CH "1,16,4,128,254\n2,16,4,128,254\n", ":3: expected one data row"},
    {"num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node\n1,16,4,128\n",
     ":1: column mem_p_node: expected in the header"},
    {"num_switch,num_node_p_switch,num_gpus_p_node,num_cpu_p_node,mem_p_node\n",
     ":1: column 3: expected a Tiresias cluster column"},
    {"num_switch,num_switch\n", ":1: column num_switch: expected once, found twice"},
    {"duration\n121\n", ":1: column 1: expected a Tiresias cluster column"},
    {CH "1,16,4,128\n", ":2: expected 5 fields as in the header, found 4"},
    {CH "0,16,4,128,254\n", ":2: column num_switch: expected an integer from 1 to 1000000, "
                            "found \"0\""},
    {CH "1,-5,4,128,254\n", ":2: column num_node_p_switch: expected an integer"},
    {CH "1,16,65,128,254\n", ":2: column num_gpu_p_node: expected an integer from 1 to 64, "
                             "found \"65\""},
    {CH "1,16,0,128,254\n", ":2: column num_gpu_p_node:"},
    {CH "1,16,4,1e300,254\n", ":2: column num_cpu_p_node:"},
    {CH "1,16,4,128,99999999999999999999\n", ":2: column mem_p_node:"},
    {CH "1,16,4,128,\xff\xfe\n", ":2: column mem_p_node:"},
    {CH "1,16,4,128,25.4\n", ":2: column mem_p_node:"},
    {CH "1000,1001,4,128,254\n", ":2: expected at most 1000000 servers, found num_switch x "
                                 "num_node_p_switch = 1001000"},
    {"num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node,gpu_type\n"
     "1,1,1,1,1,a b\n",
     ":2: column gpu_type: expected a GPU type name"},
};

static void test_cluster_bad(void)
{
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof cluster_bad / sizeof *cluster_bad; i++) {
        const char *path = tmp_write(&t, "c.csv", cluster_bad[i].text);
        struct berth_cluster *c;
        struct berth_err err = {0};
        int rc = cluster_load(path, &c, &err);
        char want[300];
        snprintf(want, sizeof want, "%s%s", path, cluster_bad[i].what);
        size_t before = (size_t)check_failures;
        CHECK_I64(rc, BERTH_EINPUT);
        CHECK_HAS(err.msg, want);
        if ((size_t)check_failures != before)
            fprintf(stderr, "  (cluster_bad[%zu])\n", i);
        if (!rc)
            berth_cluster_free(c);
    }
    struct berth__cluster_builder b;
    berth__builder_init(&b);
    struct berth_err err = {0};
    CHECK_I64(berth__cluster_load_tiresias("/nonexistent/berth/c.csv", &b, &err), BERTH_EIO);
    berth__builder_free(&b);
    tmp_close(&t);
}

static const struct check_test tests[] = {
    {"gavel_10", test_gavel_10},
    {"gavel_7_and_12", test_gavel_7_and_12},
    {"gavel_bad_rows", test_gavel_bad_rows},
    {"gavel_lenient_many", test_gavel_lenient_many},
    {"gavel_whole_file", test_gavel_whole_file},
    {"gavel_table_matches_shared", test_gavel_table_matches_shared},
    {"tiresias_good", test_tiresias_good},
    {"tiresias_bad_rows", test_tiresias_bad_rows},
    {"tiresias_whole_file", test_tiresias_whole_file},
    {"pollux_good", test_pollux_good},
    {"pollux_bad_rows", test_pollux_bad_rows},
    {"pollux_whole_file", test_pollux_whole_file},
    {"cluster_default", test_cluster_default},
    {"cluster_bad", test_cluster_bad},
};

CHECK_MAIN(tests)
