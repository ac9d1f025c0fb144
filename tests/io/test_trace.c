/* Tests for traces (src/io/trace*.c): the native CSV loader and its errors, format
 * detection, berth_trace_check against clusters, the native writer's round trip, and the
 * philly-pollux loader on a hand-written sample and on the real Philly file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "berth/berth.h"
#include "check.h"
#include "tmpfile.h"
#include "jobspec_eq.h"
#include "jobspec_make.h"

/* ---- helpers -------------------------------------------------------------------------- */

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

static struct berth_cluster *cluster(const char *spec)
{
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    int rc = berth_cluster_parse(spec, &c, &err);
    if (rc)
        fprintf(stderr, "  berth_cluster_parse(%s): %s\n", spec, err.msg);
    CHECK_I64(rc, 0);
    return rc ? NULL : c;
}

/* A job spec with every optional field at its default. */
static struct berth_jobspec spec(const char *id, berth_us arrival, berth_us duration, int32_t gpus)
{
    struct berth_jobspec s;
    memset(&s, 0, sizeof s);
    s.id = id;
    jobspec_x(&s)->job_type = jobspec_x(&s)->user = s.queue = jobspec_x(&s)->gpu_type = "";
    s.arrival_us = arrival;
    s.duration_us = duration;
    s.num_gpus = s.min_gpus = s.max_gpus = gpus;
    s.gpu_share_milli = 1000;
    return s;
}

/* ---- native: good input --------------------------------------------------------------- */

static void test_native_all_columns(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(
        &t, "all.csv",
        "x_note,num_gpus,job_id,duration_s,arrival_s,user,queue,gpu_type,job_type,total_steps,"
        "min_gpus,max_gpus,gpu_share,gpu_mem_mib,priority,single_server\n"
        "hello,4,j1,0.1,12,alice,q1,V100,train,1000,2,8,,16384,5,1\n"
        ",1,\"id,with \"\"comma\"\"\",1.5e3,0.000001,,,,,,,,0.25,,,\n"
        "\"x,y\",2,j3,7,0,bob,,,,,,,1,0,-3,false\n"
        "z, 1 ,j4, 2.5 , 3 ,,,,,,,,1.000,,,true\n");
    struct berth_trace *tr = load_ok(path, NULL);
    if (!tr) {
        tmp_close(&t);
        return;
    }
    CHECK_STR(berth_trace_path(tr), path);
    CHECK_I64(berth_trace_count(tr), 4);
    const struct berth_jobspec *j = berth_trace_jobs(tr);
    struct berth_jobspec want[4];
    want[0] = spec("j1", 12000000, 100000, 4);
    want[0].min_gpus = 2;
    want[0].max_gpus = 8;
    jobspec_x(&want[0])->gpu_mem_mib = 16384;
    want[0].total_steps = 1000;
    want[0].priority = 5;
    want[0].single_server = 1;
    jobspec_x(&want[0])->user = "alice";
    want[0].queue = "q1";
    jobspec_x(&want[0])->gpu_type = "V100";
    jobspec_x(&want[0])->job_type = "train";
    want[1] = spec("id,with \"comma\"", 1, 1500000000, 1);
    want[1].gpu_share_milli = 250;
    want[2] = spec("j3", 0, 7000000, 2);
    want[2].priority = -3;
    jobspec_x(&want[2])->user = "bob";
    want[3] = spec("j4", 3000000, 2500000, 1);
    want[3].single_server = 1;
    for (size_t i = 0; i < 4 && i < berth_trace_count(tr); i++) {
        if (!same_job(&j[i], &want[i]))
            fprintf(stderr, "  job %zu (%s) differs\n", i, j[i].id);
        CHECK(same_job(&j[i], &want[i]));
        CHECK_I64(j[i].line, i + 2);
    }
    berth_trace_free(tr);
    tmp_close(&t);
}

static void test_native_minimal(void)
{
    struct tmp t;
    tmp_open(&t);
    /* byte-order mark, CRLF, blank lines, a last line without a newline */
    const char *path = tmp_write(&t, "min.csv",
                                 "\xEF\xBB\xBFjob_id,arrival_s,duration_s,num_gpus\r\n"
                                 "\r\n"
                                 "a,0,60,1\r\n"
                                 "b,0.5,1e-6,16\r\n"
                                 "\r\n"
                                 "c,86400,3600.123456,64");
    struct berth_trace *tr = load_ok(path, "auto");
    if (tr) {
        CHECK_I64(berth_trace_count(tr), 3);
        const struct berth_jobspec *j = berth_trace_jobs(tr);
        const struct berth_jobspec want[3] = {
            spec("a", 0, 60000000, 1),
            spec("b", 500000, 1, 16),
            spec("c", INT64_C(86400000000), 3600123456, 64),
        };
        static const unsigned lines[3] = {3, 4, 6};
        for (size_t i = 0; i < 3 && i < berth_trace_count(tr); i++) {
            CHECK(same_job(&j[i], &want[i]));
            CHECK_I64(j[i].line, lines[i]);
        }
        berth_trace_free(tr);
    }
    tmp_close(&t);
}

/* ---- native: bad input ---------------------------------------------------------------- */

#define H "job_id,arrival_s,duration_s,num_gpus\n"

static const struct {
    const char *csv;
    const char *format;
    const char *msg[2]; /* msg[0] follows the file name; msg[1] anywhere */
} native_bad[] = {
    {H "a,0,1\n", "native", {":2: expected 4 fields as in the header, found 3", ""}},
    {H "a,0,1,1\nb,0,1,1,9\n", "native", {":3: expected 4 fields", "found 5"}},
    {H "a,abc,1,1\n", NULL, {":2: column arrival_s: expected", "found \"abc\""}},
    {H "a,,1,1\n", NULL, {":2: column arrival_s:", "found \"\""}},
    {H "a,1.2.3,1,1\n", NULL, {":2: column arrival_s:", "\"1.2.3\""}},
    {H "a,0,1x,1\n", NULL, {":2: column duration_s:", "\"1x\""}},
    {H "a,-1,1,1\n", NULL, {":2: column arrival_s: expected a time in seconds >= 0", "\"-1\""}},
    {H "a,0,0,1\n", NULL, {":2: column duration_s: expected a duration in seconds > 0", ""}},
    {H "a,0,-5,1\n", NULL, {":2: column duration_s:", "\"-5\""}},
    {H "a,0,0.0000004,1\n", NULL, {":2: column duration_s:", ""}},
    {H "a,3e12,1,1\n", NULL, {":2: column arrival_s:", ""}},
    {H "a,1e13,1,1\n", NULL, {":2: column arrival_s:", ""}},
    {H "a,0,1,0\n", NULL, {":2: column num_gpus: expected a whole number of GPUs >= 1", "\"0\""}},
    {H "a,0,1,-2\n", NULL, {":2: column num_gpus:", "\"-2\""}},
    {H "a,0,1,1.5\n", NULL, {":2: column num_gpus:", "\"1.5\""}},
    {H "a,0,1,\n", NULL, {":2: column num_gpus:", ""}},
    {H "a,0,1,1000001\n", NULL, {":2: column num_gpus:", ""}},
    {H ",0,1,1\n", NULL, {":2: column job_id:", ""}},
    {H "a,0,1,1\nb,0,1,1\n\na,5,1,1\n",
     NULL,
     {":5: column job_id: expected a unique id, found \"a\", already used on line 2", ""}},
    {"job_id,arrival_s,duration_s,num_gpus,color\n",
     NULL,
     {":1: column 5: expected a native column name", "found \"color\""}},
    {"job_id,arrival_s,duration_s,num_gpus,user,x_a,user\na,0,1,1,,,\n",
     NULL,
     {":1: column user: expected once, found twice (columns 5 and 7)", ""}},
    {"job_id,arrival_s,num_gpus\na,0,1\n",
     NULL,
     {":1: column duration_s: expected in the header", ""}},
    {"arrival_s,job_id,duration_s\na,0,1\n", NULL, {":1: column num_gpus:", ""}},
    {H "a,0,1,1\nb,0,1,1,\n", NULL, {":3: expected 4 fields", ""}},
    {H "a,0,1,1\n\"b,0,1,1\n", NULL, {":3: field 1: expected a closing", ""}},
    {"job_id,arrival_s,duration_s,num_gpus,gpu_share\na,0,1,1,1.5\n",
     NULL,
     {":2: column gpu_share:", "\"1.5\""}},
    {"job_id,arrival_s,duration_s,num_gpus,gpu_share\na,0,1,1,0\n",
     NULL,
     {":2: column gpu_share:", "\"0\""}},
    {"job_id,arrival_s,duration_s,num_gpus,gpu_share\na,0,1,1,-0.5\n",
     NULL,
     {":2: column gpu_share:", ""}},
    {"job_id,arrival_s,duration_s,num_gpus,gpu_share\na,0,1,2,0.5\n",
     NULL,
     {":2: column gpu_share: expected 1 (a fractional share needs num_gpus = 1)", ""}},
    {"job_id,arrival_s,duration_s,num_gpus,min_gpus\na,0,1,2,3\n",
     NULL,
     {":2: column min_gpus:", "\"3\""}},
    {"job_id,arrival_s,duration_s,num_gpus,min_gpus\na,0,1,2,0\n",
     NULL,
     {":2: column min_gpus:", ""}},
    {"job_id,arrival_s,duration_s,num_gpus,max_gpus\na,0,1,4,2\n",
     NULL,
     {":2: column max_gpus:", "\"2\""}},
    {"job_id,arrival_s,duration_s,num_gpus,single_server\na,0,1,4,yes\n",
     NULL,
     {":2: column single_server: expected 0, 1, true or false", ""}},
    {"job_id,arrival_s,duration_s,num_gpus,priority\na,0,1,4,1000001\n",
     NULL,
     {":2: column priority:", ""}},
    {"job_id,arrival_s,duration_s,num_gpus,total_steps\na,0,1,4,0\n",
     NULL,
     {":2: column total_steps:", ""}},
    {"job_id,arrival_s,duration_s,num_gpus,gpu_mem_mib\na,0,1,4,-1\n",
     NULL,
     {":2: column gpu_mem_mib:", ""}},
    {"job_id,arrival_s,duration_s,num_gpus,persist_mib\na,0,1,1,-1\n",
     NULL,
     {":2: column persist_mib: expected a memory size in MiB >= 0", "\"-1\""}},
    {"job_id,arrival_s,duration_s,num_gpus,ephem_mib,persist_mib\na,0,1,1,1.5,3\n",
     NULL,
     {":2: column ephem_mib: expected a memory size in MiB >= 0", "\"1.5\""}},
    {"", "native", {":1: expected a header line", "empty file"}},
    {"\n\n", "native", {":1: expected a header line", ""}},
    {"", NULL, {":1: cannot tell the trace format", ""}},
    {H, NULL, {": expected at least one job, found none", ""}},
    {H "\n\n", "native", {": expected at least one job, found none", ""}},
};

static void test_native_errors(void)
{
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof native_bad / sizeof *native_bad; i++) {
        const char *path = tmp_write(&t, "bad.csv", native_bad[i].csv);
        struct berth_trace *tr = NULL;
        struct berth_err err = {0};
        int before = check_failures;
        int rc = berth_trace_load(path, native_bad[i].format, &tr, &err);
        CHECK_I64(rc, BERTH_EINPUT);
        CHECK_I64(err.code, BERTH_EINPUT);
        CHECK(tr == NULL);
        char want[400];
        snprintf(want, sizeof want, "%s%s", path, native_bad[i].msg[0]);
        CHECK_HAS(err.msg, want);
        CHECK_HAS(err.msg, native_bad[i].msg[1]);
        if (check_failures != before)
            fprintf(stderr, "  in native case %zu: %s\n", i, native_bad[i].csv);
        if (rc == 0)
            berth_trace_free(tr);
    }
    /* an id of 256 bytes is too long; 255 is fine */
    char buf[700];
    char id[257];
    memset(id, 'i', 256);
    id[256] = '\0';
    snprintf(buf, sizeof buf, H "%s,0,1,1\n", id);
    const char *path = tmp_write(&t, "long.csv", buf);
    struct berth_trace *tr = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_trace_load(path, NULL, &tr, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, ":2: column job_id:");
    id[255] = '\0';
    snprintf(buf, sizeof buf, H "%s,0,1,1\n", id);
    path = tmp_write(&t, "long.csv", buf);
    tr = load_ok(path, NULL);
    if (tr) {
        CHECK_I64(strlen(berth_trace_jobs(tr)[0].id), 255);
        berth_trace_free(tr);
    }
    tmp_close(&t);
}

/* ---- formats -------------------------------------------------------------------------- */

static void test_formats(void)
{
    /* the registry lists every format once, NULL-terminated */
    const char *const *f = berth_trace_formats();
    static const char *const names[] = {"native", "philly-pollux", "tiresias", "pollux", "gavel",
                                        "philly", "helios",        "acme",     "openb",  "pai2020"};
    size_t n = 0;
    while (f[n])
        n++;
    for (size_t w = 0; w < sizeof names / sizeof *names; w++) {
        int found = 0;
        for (size_t i = 0; i < n; i++)
            found += !strcmp(f[i], names[w]);
        CHECK_I64(found, 1);
    }

    struct tmp t;
    tmp_open(&t);
    static const struct {
        const char *csv, *format;
        int ok;
        const char *id0;    /* when ok: the first job's id */
        const char *msg[2]; /* else: msg[0] follows the file name (or starts the message
                               when it begins with "--") */
    } cases[] = {
        {H "a,0,1,1\n", NULL, 1, "a", {"", ""}},
        {H "a,0,1,1\n", "auto", 1, "a", {"", ""}},
        {H "a,0,1,1\n", "native", 1, "a", {"", ""}},
        {"num_gpus,duration_s,arrival_s,job_id\n1,1,0,b\n", NULL, 1, "b", {"", ""}},
        {"\xEF\xBB\xBFjob_id,arrival_s,duration_s,num_gpus\nc,0,1,1\n", NULL, 1, "c", {"", ""}},
        {"timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:00,5,1,5,vc\n",
         NULL,
         1,
         "1",
         {"", ""}},
        {"timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:00,5,1,5,vc\n",
         "philly-pollux",
         1,
         "1",
         {"", ""}},
        {"a,b,c\n1,2,3\n",
         NULL,
         0,
         NULL,
         {":1: cannot tell the trace format from the header \"a,b,c\"", "--format"}},
        {"id,submit,gpus\n1,2,3\n", "auto", 0, NULL, {":1: cannot tell the trace format", ""}},
        {H "a,0,1,1\n", "csv", 0, NULL, {"--format: unknown trace format 'csv'", ""}},
        {H "a,0,1,1\n", "Native", 0, NULL, {"--format: unknown trace format 'Native'", ""}},
        {"timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:00,5,1,5,vc\n",
         "native",
         0,
         NULL,
         {":1: column 1: expected a native column name", "\"timestamp\""}},
        {H "a,0,1,1\n",
         "philly-pollux",
         0,
         NULL,
         {":1: expected the header timestamp,duration,num_gpus,gpu_time,cluster", "column 1"}},
        {"timestamp,duration,num_gpus,gpu_time\n2017-10-01 00:00:00,5,1,5\n",
         NULL,
         0,
         NULL,
         {":1: expected the header timestamp", ""}},
        {"timestamp,duration,num_gpus,gpu_time,vc\n2017-10-01 00:00:00,5,1,5,x\n",
         NULL,
         0,
         NULL,
         {":1: expected the header timestamp", "column 5"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *path = tmp_write(&t, "f.csv", cases[i].csv);
        struct berth_trace *tr = NULL;
        struct berth_err err = {0};
        int before = check_failures;
        int rc = berth_trace_load(path, cases[i].format, &tr, &err);
        if (cases[i].ok) {
            if (rc)
                fprintf(stderr, "  %s\n", err.msg);
            CHECK_I64(rc, 0);
            if (!rc) {
                CHECK_STR(berth_trace_jobs(tr)[0].id, cases[i].id0);
                berth_trace_free(tr);
            }
        } else {
            CHECK_I64(rc, BERTH_EINPUT);
            CHECK(tr == NULL);
            char want[400];
            if (!strncmp(cases[i].msg[0], "--", 2))
                snprintf(want, sizeof want, "%s", cases[i].msg[0]);
            else
                snprintf(want, sizeof want, "%s%s", path, cases[i].msg[0]);
            CHECK_HAS(err.msg, want);
            CHECK_HAS(err.msg, cases[i].msg[1]);
            if (rc == 0)
                berth_trace_free(tr);
        }
        if (check_failures != before)
            fprintf(stderr, "  in format case %zu\n", i);
    }
    /* a missing file is an I/O error naming it, with or without detection */
    static const char *const fmts[] = {NULL, "native", "philly-pollux"};
    for (size_t i = 0; i < 3; i++) {
        struct berth_trace *tr = NULL;
        struct berth_err err = {0};
        CHECK_I64(berth_trace_load("/nonexistent/berth/t.csv", fmts[i], &tr, &err), BERTH_EIO);
        CHECK_HAS(err.msg, "/nonexistent/berth/t.csv");
    }
    tmp_close(&t);
}

/* ---- berth_trace_check ---------------------------------------------------------------- */

static void test_check(void)
{
    static const struct {
        const char *cluster;
        const char *rows; /* data rows after the header job_id,arrival_s,duration_s,num_gpus,
                             gpu_type,single_server */
        const char *msg;  /* NULL: passes; else what follows the file name */
    } cases[] = {
        {"2x4:v100", "a,0,1,8,,0\nb,0,1,1,V100,0\n", NULL},
        {"2x4:v100", "a,0,1,8,,0\nb,0,1,9,,0\n",
         ":3: column num_gpus: expected at most 8 GPUs (the whole cluster), found 9"},
        {"2x4:v100", "a,0,1,1,,0\nb,0,1,1,,0\nc,0,1,1,a100,0\n",
         ":4: column gpu_type: expected a GPU type of the cluster (v100), found \"a100\""},
        {"2x4:v100", "a,0,1,4,,1\n", NULL},
        {"2x4:v100", "a,0,1,4,,1\nb,0,1,5,,1\n",
         ":3: column num_gpus: expected at most 4 GPUs (one server"},
        {"2x4:v100,3x2:k80", "a,0,1,8,,0\nb,0,1,6,k80,0\nc,0,1,4,,1\nd,0,1,2,K80,1\n", NULL},
        {"2x4:v100,3x2:k80", "a,0,1,8,,0\nb,0,1,9,,0\n",
         ":3: column num_gpus: expected at most 8 GPUs (the largest GPU type"},
        {"2x4:v100,3x2:k80", "a,0,1,7,k80,0\n",
         ":2: column num_gpus: expected at most 6 GPUs (all k80 GPUs), found 7"},
        {"2x4:v100,3x2:k80", "a,0,1,3,k80,1\n",
         ":2: column num_gpus: expected at most 2 GPUs (one server"},
        {"2x4:v100,3x2:k80", "a,0,1,5,,1\n",
         ":2: column num_gpus: expected at most 4 GPUs (one server"},
        {"2x4:v100,3x2:k80", "a,0,1,1,p100,0\n",
         ":2: column gpu_type: expected a GPU type of the cluster (v100, k80), found \"p100\""},
    };
    struct tmp t;
    tmp_open(&t);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char csv[512];
        snprintf(csv, sizeof csv, "job_id,arrival_s,duration_s,num_gpus,gpu_type,single_server\n%s",
                 cases[i].rows);
        const char *path = tmp_write(&t, "c.csv", csv);
        struct berth_trace *tr = load_ok(path, NULL);
        struct berth_cluster *c = cluster(cases[i].cluster);
        if (tr && c) {
            struct berth_err err = {0};
            int before = check_failures;
            int rc = berth_trace_check(tr, c, &err);
            if (!cases[i].msg) {
                if (rc)
                    fprintf(stderr, "  %s\n", err.msg);
                CHECK_I64(rc, 0);
            } else {
                char want[400];
                snprintf(want, sizeof want, "%s%s", path, cases[i].msg);
                CHECK_I64(rc, BERTH_EINPUT);
                CHECK_HAS(err.msg, want);
            }
            if (check_failures != before)
                fprintf(stderr, "  in check case %zu\n", i);
        }
        berth_trace_free(tr);
        berth_cluster_free(c);
    }
    /* a cluster file that forbids spanning makes every gang single-server */
    const char *cpath =
        tmp_write(&t, "c.json",
                  "{\"gang_span\": false, \"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, "
                  "\"count\": 4}]}");
    struct berth_cluster *c = cluster(cpath);
    const char *path = tmp_write(&t, "s.csv", H "a,0,1,4\nb,0,1,5\n");
    struct berth_trace *tr = load_ok(path, NULL);
    if (c && tr) {
        struct berth_err err = {0};
        char want[400];
        snprintf(want, sizeof want, "%s:3: column num_gpus: expected at most 4 GPUs (one server",
                 path);
        CHECK_I64(berth_trace_check(tr, c, &err), BERTH_EINPUT);
        CHECK_HAS(err.msg, want);
    }
    berth_trace_free(tr);
    berth_cluster_free(c);
    tmp_close(&t);
}

/* ---- round trip ----------------------------------------------------------------------- */

static void test_round_trip(void)
{
    struct berth_jobspec jobs[6];
    jobs[0] = spec("plain", 0, 1, 1);
    jobs[1] = spec("with,comma", 1, 1500000, 8);
    jobs[1].min_gpus = 2;
    jobs[1].max_gpus = 16;
    jobs[1].priority = -7;
    jobspec_x(&jobs[1])->gpu_type = "v100";
    jobs[1].single_server = 1;
    jobs[2] = spec("say \"hi\"", 123456789, INT64_C(4628226000000), 1);
    jobs[2].gpu_share_milli = 250;
    jobspec_x(&jobs[2])->user = "line1\nline2";
    jobs[2].queue = "\"q\"";
    jobspec_x(&jobs[2])->job_type = ",";
    jobs[3] = spec(" spaced ", INT64_C(9408690000000), 999999, 128);
    jobs[3].total_steps = INT64_C(1) << 50;
    jobspec_x(&jobs[3])->gpu_mem_mib = 81920;
    jobspec_x(&jobs[3])->user = "cr\r\nlf";
    jobs[4] = spec("x_not_a_column", 5, 7, 1);
    jobs[4].gpu_share_milli = 1;
    jobspec_x(&jobs[4])->persist_mib = 700;
    jobspec_x(&jobs[4])->ephem_mib = INT64_C(1) << 40;
    jobs[4].queue = "q,1";
    jobs[5] = spec("\"", 100000, 100000, 2);
    jobspec_x(&jobs[5])->job_type = "tab\there";

    struct tmp t;
    tmp_open(&t);
    char path[200];
    snprintf(path, sizeof path, "%s/rt.csv", t.dir);
    FILE *f = fopen(path, "wb");
    struct berth_err err = {0};
    CHECK_I64(berth_trace_write_native(f, jobs, 6, &err), 0);
    fclose(f);
    struct berth_trace *tr = load_ok(path, NULL);
    if (tr) {
        CHECK_I64(berth_trace_count(tr), 6);
        for (size_t i = 0; i < 6 && i < berth_trace_count(tr); i++) {
            if (!same_job(&berth_trace_jobs(tr)[i], &jobs[i]))
                fprintf(stderr, "  round trip: job %zu (%s) differs\n", i, jobs[i].id);
            CHECK(same_job(&berth_trace_jobs(tr)[i], &jobs[i]));
        }
        /* writing the loaded trace again gives the same bytes */
        char *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        FILE *m = open_memstream(&a, &na);
        berth_trace_write_native(m, jobs, 6, &err);
        fclose(m);
        m = open_memstream(&b, &nb);
        berth_trace_write_native(m, berth_trace_jobs(tr), berth_trace_count(tr), &err);
        fclose(m);
        CHECK_I64(na, nb);
        CHECK(na == nb && !memcmp(a, b, na));
        free(a);
        free(b);
        berth_trace_free(tr);
    }

    /* a trace of defaults writes only the required columns */
    char *out = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&out, &n);
    const struct berth_jobspec d[2] = {spec("a", 0, 60000000, 1), spec("b", 1500000, 100000, 4)};
    CHECK_I64(berth_trace_write_native(m, d, 2, &err), 0);
    fclose(m);
    CHECK_STR(out, "job_id,arrival_s,duration_s,num_gpus\na,0,60,1\nb,1.5,0.1,4\n");
    free(out);
    tmp_close(&t);
}

/* ---- philly-pollux -------------------------------------------------------------------- */

#define PH "timestamp,duration,num_gpus,gpu_time,cluster\n"

static void test_philly_sample(void)
{
    struct tmp t;
    tmp_open(&t);
    const char *path = tmp_write(&t, "philly.csv",
                                 PH "2017-10-01 00:00:10,66.0,1,66.0,aa\n"
                                    "2017-10-01 00:00:00,2.5,4,10.0,bb\n"
                                    "2017-09-30 23:59:59,1e2,2,200,\"c,c\"\n"
                                    "\n"
                                    "2017-10-02 00:00:00,0.0000015,8,0,\n");
    struct berth_trace *tr = load_ok(path, NULL);
    if (tr) {
        CHECK_I64(berth_trace_count(tr), 4);
        const struct berth_jobspec *j = berth_trace_jobs(tr);
        struct berth_jobspec want[4] = {
            spec("1", 11000000, 66000000, 1),
            spec("2", 1000000, 2500000, 4),
            spec("3", 0, 100000000, 2),
            spec("4", INT64_C(86401000000), 2, 8),
        };
        want[0].queue = "aa";
        want[1].queue = "bb";
        want[2].queue = "c,c";
        static const unsigned lines[4] = {2, 3, 4, 6};
        for (size_t i = 0; i < 4 && i < berth_trace_count(tr); i++) {
            if (!same_job(&j[i], &want[i]))
                fprintf(stderr, "  philly sample job %zu differs\n", i);
            CHECK(same_job(&j[i], &want[i]));
            CHECK_I64(j[i].line, lines[i]);
        }
        berth_trace_free(tr);
    }

    static const struct {
        const char *rows;
        const char *msg[2];
    } bad[] = {
        {"2017-10-01 00:00:00,5,1,5,a\n2017-02-29 00:00:00,5,1,5,a\n",
         {":3: column timestamp: expected a time YYYY-MM-DD HH:MM:SS", "\"2017-02-29 00:00:00\""}},
        {"2017-13-01 00:00:00,5,1,5,a\n", {":2: column timestamp:", ""}},
        {"2017/10/01 00:00:00,5,1,5,a\n", {":2: column timestamp:", ""}},
        {"1506816000,5,1,5,a\n", {":2: column timestamp:", "\"1506816000\""}},
        {"2017-10-01 00:00:00,5,1,5,a\n2017-10-01 00:00:00,abc,1,5,a\n",
         {":3: column duration: expected a duration in seconds > 0", "\"abc\""}},
        {"2017-10-01 00:00:00,0,1,0,a\n", {":2: column duration:", "\"0\""}},
        {"2017-10-01 00:00:00,-3,1,5,a\n", {":2: column duration:", "\"-3\""}},
        {"2017-10-01 00:00:00,,1,5,a\n", {":2: column duration:", ""}},
        {"2017-10-01 00:00:00,5,0,5,a\n", {":2: column num_gpus:", "\"0\""}},
        {"2017-10-01 00:00:00,5,1.5,5,a\n", {":2: column num_gpus:", "\"1.5\""}},
        {"2017-10-01 00:00:00,5,1,x,a\n", {":2: column gpu_time:", "\"x\""}},
        {"2017-10-01 00:00:00,5,1,-5,a\n", {":2: column gpu_time:", ""}},
        {"2017-10-01 00:00:00,5,1,5\n", {":2: expected 5 fields, found 4", ""}},
        {"2017-10-01 00:00:00,5,1,5,a,b\n", {":2: expected 5 fields, found 6", ""}},
        {"", {": expected at least one job, found none", ""}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char csv[512];
        snprintf(csv, sizeof csv, PH "%s", bad[i].rows);
        path = tmp_write(&t, "bad.csv", csv);
        struct berth_trace *b = NULL;
        struct berth_err err = {0};
        int before = check_failures;
        int rc = berth_trace_load(path, NULL, &b, &err);
        CHECK_I64(rc, BERTH_EINPUT);
        CHECK(b == NULL);
        char want[400];
        snprintf(want, sizeof want, "%s%s", path, bad[i].msg[0]);
        CHECK_HAS(err.msg, want);
        CHECK_HAS(err.msg, bad[i].msg[1]);
        if (check_failures != before)
            fprintf(stderr, "  in philly case %zu\n", i);
        if (rc == 0)
            berth_trace_free(b);
    }
    /* an empty file named as philly-pollux */
    path = tmp_write(&t, "empty.csv", "");
    struct berth_trace *b = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_trace_load(path, "philly-pollux", &b, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "empty file");
    tmp_close(&t);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_philly_real(void)
{
    const char *shared = getenv("BERTH_SHARED");
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/philly-pollux/philly.csv", shared ? shared : "");
    if (!shared || access(path, R_OK)) {
        printf("note: %s not found; skipping the real Philly checks\n", path);
        return;
    }
    struct berth_trace *tr = load_ok(path, NULL);
    if (!tr)
        return;
    size_t n = berth_trace_count(tr);
    const struct berth_jobspec *j = berth_trace_jobs(tr);
    CHECK_I64(n, 82247);
    static const struct {
        int32_t gpus;
        int64_t jobs;
    } hist[] = {{1, 76627}, {2, 1818}, {4, 1870}, {8, 1643}, {12, 7},
                {16, 199},  {24, 7},   {32, 67},  {64, 6},   {128, 3}};
    int64_t counted = 0;
    for (size_t h = 0; h < sizeof hist / sizeof *hist; h++) {
        int64_t c = 0;
        for (size_t i = 0; i < n; i++)
            c += j[i].num_gpus == hist[h].gpus;
        if (c != hist[h].jobs)
            fprintf(stderr, "  %d-GPU jobs\n", (int)hist[h].gpus);
        CHECK_I64(c, hist[h].jobs);
        counted += c;
    }
    CHECK_I64(counted, (int64_t)n); /* no other sizes */
    int64_t lo = INT64_MAX, hi = INT64_MIN, gpus = 0, dur_s = 0;
    int64_t *d = malloc(n * sizeof *d);
    int ids = 1;
    for (size_t i = 0; i < n; i++) {
        lo = j[i].arrival_us < lo ? j[i].arrival_us : lo;
        hi = j[i].arrival_us > hi ? j[i].arrival_us : hi;
        gpus += j[i].num_gpus;
        dur_s += j[i].duration_us / BERTH_US_PER_S;
        if (d)
            d[i] = j[i].duration_us;
        char id[24];
        snprintf(id, sizeof id, "%zu", i + 1);
        ids &= !strcmp(j[i].id, id) && j[i].line == i + 2;
    }
    CHECK(ids);
    CHECK_I64(lo, 0);
    /* 2017-09-04 10:30:41 -> 2017-12-22 08:02:11 */
    CHECK_I64(hi, (INT64_C(1513929731) - INT64_C(1504521041)) * BERTH_US_PER_S);
    CHECK_I64(hi, INT64_C(9408690) * BERTH_US_PER_S);
    CHECK_I64(gpus, 107235);
    CHECK_I64(dur_s, INT64_C(1080390950));
    if (d) {
        qsort(d, n, sizeof *d, cmp_i64);
        CHECK_I64(d[n / 2], 1144 * BERTH_US_PER_S); /* median; n is odd */
        CHECK_I64(d[0], 1 * BERTH_US_PER_S);
        CHECK_I64(d[n - 1], INT64_C(4628226) * BERTH_US_PER_S);
        free(d);
    }
    /* first row: 2017-10-09 07:01:55,66.0,1,66.0,11cb48; last: 2017-11-08 07:33:10 */
    CHECK_I64(j[0].arrival_us, INT64_C(3011474) * BERTH_US_PER_S);
    CHECK_I64(j[0].duration_us, 66 * BERTH_US_PER_S);
    CHECK_STR(j[0].queue, "11cb48");
    CHECK_I64(j[n - 1].arrival_us, INT64_C(5605349) * BERTH_US_PER_S);
    CHECK_STR(j[n - 1].queue, "6c71a0");

    /* 128 GPUs fit a 128-GPU cluster; on 64 GPUs the first 128-GPU job (line 23198) fails */
    struct berth_cluster *c = cluster("32x4:v100");
    struct berth_err err = {0};
    if (c)
        CHECK_I64(berth_trace_check(tr, c, &err), 0);
    berth_cluster_free(c);
    c = cluster("16x4:v100");
    if (c) {
        char want[1200];
        snprintf(want, sizeof want, "%s:23198: column num_gpus: expected at most 64 GPUs", path);
        CHECK_I64(berth_trace_check(tr, c, &err), BERTH_EINPUT);
        CHECK_HAS(err.msg, want);
    }
    berth_cluster_free(c);
    berth_trace_free(tr);
}

/* Users and queues are interned: one copy per distinct string, every job pointing at it,
 * the values unchanged (enough distinct users to grow the table several times). */
static void test_native_interned(void)
{
    enum { N = 3000, USERS = 700 };
    struct tmp t;
    tmp_open(&t);
    size_t cap = 64 + (size_t)N * 40, len = 0;
    char *csv = malloc(cap);
    CHECK(csv != NULL);
    if (!csv)
        return;
    len += (size_t)snprintf(csv, cap, "job_id,arrival_s,duration_s,num_gpus,user,queue\n");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(csv + len, cap - len, "j%d,%d,60,1,u%d,%s\n", i, i, i % USERS,
                                i % 3 ? "vc-a" : "vc-b");
    struct berth_trace *tr = load_ok(tmp_write(&t, "interned.csv", csv), "native");
    if (tr) {
        const struct berth_jobspec *j = berth_trace_jobs(tr);
        CHECK_I64(berth_trace_count(tr), N);
        int ok = 1;
        char want[32];
        for (int i = 0; i < N && berth_trace_count(tr) == N; i++) {
            snprintf(want, sizeof want, "u%d", i % USERS);
            ok &= !strcmp(berth_jobspec_extra(&j[i])->user, want) &&
                  !strcmp(j[i].queue, i % 3 ? "vc-a" : "vc-b");
            ok &= berth_jobspec_extra(&j[i])->user == berth_jobspec_extra(&j[i % USERS])->user &&
                  j[i].queue == j[i % 3 ? 1 : 0].queue;
        }
        CHECK(ok);
        CHECK(j[0].queue != j[1].queue &&
              berth_jobspec_extra(&j[0])->user != berth_jobspec_extra(&j[1])->user);
    }
    berth_trace_free(tr);
    free(csv);
    tmp_close(&t);
}

static const struct check_test tests[] = {
    {"native_all_columns", test_native_all_columns},
    {"native_interned", test_native_interned},
    {"native_minimal", test_native_minimal},
    {"native_errors", test_native_errors},
    {"formats", test_formats},
    {"check", test_check},
    {"round_trip", test_round_trip},
    {"philly_sample", test_philly_sample},
    {"philly_real", test_philly_real},
};

CHECK_MAIN(tests)
