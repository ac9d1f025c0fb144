/* Tests for the Alibaba loaders (src/io/trace_pai2020.c, trace_openb.c, cluster_pai2020.c,
 * cluster_openb.c): hand-made samples with every job and server worked out by hand, each
 * bad-row kind strict and lenient, whole-file problems, a generated PAI trace checked against
 * an independent sum, and the real files of $BERTH_SHARED (skipped when absent). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tmpfile.h"
#include "io/loaders_alibaba.h"

#define S (INT64_C(1000000)) /* one second in microseconds */

/* ---- helpers -------------------------------------------------------------------------- */

static struct tmp T; /* the scratch folder of the test that runs */

/* Writes s to the folder's name; returns the path, in a buffer of its own per slot 0..3 (a
 * PAI load names two files at once). */
static const char *tmp_write_slot(int slot, const char *name, const char *s)
{
    static char paths[4][160];
    snprintf(paths[slot], sizeof paths[slot], "%s", tmp_write(&T, name, s));
    return paths[slot];
}

struct run {
    struct berth_load_report rep;
    struct berth__load L;
    struct berth_err err;
    int rc;
};

/* Runs a trace loader on path; the caller frees r->L.t. */
static void run(struct run *r, berth__loader_fn fn, const char *path, int lenient)
{
    memset(r, 0, sizeof *r);
    r->L = (struct berth__load){
        .path = path, .lenient = lenient, .rep = &r->rep, .t = berth__trace_new(path)};
    r->rc = fn(&r->L, &r->err);
}

static size_t reason_count(const struct berth_load_report *rep, const char *reason, int bad)
{
    for (size_t i = 0; i < rep->nreasons; i++)
        if (rep->reasons[i].bad == bad && strstr(rep->reasons[i].reason, reason))
            return rep->reasons[i].count;
    return 0;
}

static const struct berth_jobspec *job_by_id(const struct berth_trace *t, const char *id)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->jobs[i].id, id))
            return &t->jobs[i];
    return NULL;
}

struct want {
    const char *id;
    int64_t arrival_us, duration_us;
    int32_t gpus, share;
    const char *type, *user, *queue;
    int64_t cpu_milli, mem_mib;
    uint8_t single;
    uint32_t line;
};

static void check_job(const struct berth_jobspec *j, const struct want *w)
{
    CHECK_STR(j->id, w->id);
    CHECK_I64(j->arrival_us, w->arrival_us);
    CHECK_I64(j->duration_us, w->duration_us);
    CHECK_I64(j->num_gpus, w->gpus);
    CHECK_I64(j->min_gpus, w->gpus);
    CHECK_I64(j->max_gpus, w->gpus);
    CHECK_I64(j->gpu_share_milli, w->share);
    CHECK_STR(berth_jobspec_extra(j)->gpu_type, w->type);
    CHECK_STR(berth_jobspec_extra(j)->user, w->user);
    CHECK_STR(j->queue, w->queue);
    CHECK_STR(berth_jobspec_extra(j)->job_type, "");
    CHECK_I64(j->priority, 0);
    CHECK_I64(berth_jobspec_extra(j)->gpu_mem_mib, 0);
    CHECK_I64(j->total_steps, 0);
    CHECK_I64(j->single_server, w->single);
    CHECK_I64(j->line, w->line);
    CHECK_I64(berth_jobspec_extra(j)->cpu_milli, w->cpu_milli);
    CHECK_I64(berth_jobspec_extra(j)->mem_mib, w->mem_mib);
}

/* ---- pai2020 ------------------------------------------------------------------------------ */

static const char pai_tasks[] =
    "j1,worker,2.0,Terminated,100.0,200.0,600.0,29.296875,50.0,V100\n" /* 1 */
    "j1,ps,1.0,Terminated,90.0,200.0,400.0,2.0,,\n"                    /* 2 */
    "j2,tensorflow,1.0,Terminated,1010.0,1600.0,50.0,0.5,25.0,MISC\n"  /* 3 */
    "j3,worker,3.0,Terminated,1950.0,,800.0,1.0,50.0,T4\n"             /* 4 */
    "j4,worker,1.0,Terminated,3000.0,3100.0,100.0,1.0,100.0,V100\n"    /* 5 */
    "j4,evaluator,1.0,Terminated,3005.0,3100.0,100.0,1.0,100.0,P100\n" /* 6 */
    "j5,tensorflow,1.0,Terminated,4000.0,4100.0,600.0,4.0,,\n"         /* 7 */
    "j6,tensorflow,1.0,Failed,5000.0,5100.0,600.0,4.0,100.0,T4\n"      /* 8 */
    "j7,tensorflow,1.0,Running,6000.0,,600.0,4.0,100.0,T4\n"           /* 9 */
    "j8,tensorflow,1.0,Waiting,0.0,,600.0,4.0,100.0,\n"                /* 10 */
    "j8,worker,1.0,Waiting,,,600.0,4.0,100.0,\n"                       /* 11 */
    "j9,tensorflow,1.0,Terminated,8000.0,8100.0,600.0,4.0,100.0,T4\n"  /* 12 */
    "j10,tensorflow,1.0,Terminated,9000.0,9000.0,600.0,4.0,100.0,T4\n" /* 13 */
    "orphan,tensorflow,1.0,Terminated,1.0,2.0,600.0,4.0,100.0,T4\n"    /* 14 */
    "orphan,ps,1.0,Terminated,1.0,2.0,600.0,4.0,,\n"                   /* 15 */
    "j12,worker,8.0,Terminated,10000.0,10500.0,100.0,1.0,100.0,CPU\n"  /* 16 */
    "j13,worker,0.0,Terminated,11000.0,11500.0,100.0,1.0,100.0,T4\n"   /* 17 */
    "j14,tensorflow,1.0,Terminated,12000.0,,100.0,1.0,100.0,T4\n";     /* 18 */

static const char pai_jobs[] = "j1,i1,userA,Terminated,50.0,1000.0\n"       /* 1 */
                               "j2,i2,userB,Terminated,1000.0,1600.0\n"     /* 2 */
                               "j3,i3,userA,Terminated,1900.0,2950.0\n"     /* 3 */
                               "j4,i4,userC,Terminated,2990.0,3100.0\n"     /* 4 */
                               "j5,i5,userA,Terminated,3990.0,4100.0\n"     /* 5 */
                               "j6,i6,userA,Failed,4990.0,5100.0\n"         /* 6 */
                               "j7,i7,userA,Running,5990.0,\n"              /* 7 */
                               "j8,i8,userA,Terminated,6990.0,7100.0\n"     /* 8 */
                               "j9,i9,userA,Terminated,7990.0,7999.0\n"     /* 9 */
                               "j10,i10,userB,Terminated,8990.0,9000.0\n"   /* 10 */
                               "j11,i11,userB,Terminated,9990.0,9999.0\n"   /* 11 */
                               "j12,i12,,Terminated,9995.0,10600.5\n"       /* 12 */
                               "j13,i13,userA,Terminated,10990.0,11500.0\n" /* 13 */
                               "j14,i14,userA,Terminated,11990.0,\n";       /* 14 */

/* The six jobs the sample keeps, worked out by hand (origin = j1's submit, 50 s). */
static void check_pai_sample(const struct run *r, uint32_t line_offset)
{
    const struct want w[] = {
        /* j1: 2 x 50% + 0 = 1 GPU; run 1000 - 90; CPU 2x600% + 400%; mem 2x29.296875 GB + 2 GB */
        {"j1", 0, 910 * S, 1, 1000, "v100", "userA", "", 16000, 62048, 0, 1},
        /* j2: 25% of a MISC GPU */
        {"j2", 950 * S, 590 * S, 1, 250, "misc|k40m|k80|m60", "userB", "", 500, 512, 0, 2},
        /* j3: 3 x 50% = 1.5 GPUs, rounded up */
        {"j3", 1850 * S, 1000 * S, 2, 1000, "t4", "userA", "", 24000, 3072, 0, 3},
        /* j4: V100 and P100 tasks disagree: any type */
        {"j4", 2940 * S, 100 * S, 2, 1000, "", "userC", "", 2000, 2048, 0, 4},
        /* j10: ends the second it starts: 1 s */
        {"j10", 8940 * S, 1 * S, 1, 1000, "t4", "userB", "", 6000, 4096, 0, 10},
        /* j12: 8 instances on gpu_type CPU (contradictory): any type; user empty */
        {"j12", 9945 * S, 600500000, 8, 1000, "", "", "", 8000, 8192, 0, 12},
    };
    CHECK_I64(r->rc, 0);
    CHECK_I64(r->L.t->n, 6);
    for (size_t i = 0; i < 6 && i < r->L.t->n; i++) {
        struct want x = w[i];
        x.line += line_offset;
        check_job(&r->L.t->jobs[i], &x);
    }
    CHECK_I64(r->rep.rows, 32);
    CHECK_I64(r->rep.skipped, 10);
    CHECK_I64(reason_count(&r->rep, "CPU-only job", 0), 2);
    CHECK_I64(reason_count(&r->rep, "status Failed", 0), 1);
    CHECK_I64(reason_count(&r->rep, "status Running", 0), 1);
    CHECK_I64(reason_count(&r->rep, "no task start_time", 0), 1);
    CHECK_I64(reason_count(&r->rep, "end_time before the earliest task start_time", 0), 1);
    CHECK_I64(reason_count(&r->rep, "no row in the task table", 0), 1);
    CHECK_I64(reason_count(&r->rep, "no end_time", 0), 1);
    CHECK_I64(reason_count(&r->rep, "task row whose job_name is not in the job table", 0), 2);
}

static void pai_sample(void)
{
    tmp_open(&T);
    tmp_write_slot(0, "pai_task_table.csv", pai_tasks);
    tmp_write_slot(1, "pai_job_table.csv", pai_jobs);
    struct run r;
    run(&r, berth__load_pai2020, T.dir, 0);
    check_pai_sample(&r, 0);
    CHECK_STR(r.L.path, T.dir); /* restored after the two tables */
    berth_trace_free(r.L.t);
    /* the same under --lenient: exclusions are not bad rows */
    run(&r, berth__load_pai2020, T.dir, 1);
    check_pai_sample(&r, 0);
    berth_trace_free(r.L.t);
    tmp_close(&T);
}

/* JOBTABLE,TASKTABLE; and the .header lines as first rows are skipped, not counted. */
static void pai_paths_and_headers(void)
{
    tmp_open(&T);
    char tasks[sizeof pai_tasks + 128], jobs[sizeof pai_jobs + 128], both[400];
    snprintf(tasks, sizeof tasks, "%s%s",
             "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,"
             "gpu_type\n",
             pai_tasks);
    snprintf(jobs, sizeof jobs, "%s%s", "job_name,inst_id,user,status,start_time,end_time\n",
             pai_jobs);
    const char *tp = tmp_write_slot(0, "t.csv", tasks), *jp = tmp_write_slot(1, "j.csv", jobs);
    snprintf(both, sizeof both, "%s,%s", jp, tp);
    struct run r;
    run(&r, berth__load_pai2020, both, 0);
    check_pai_sample(&r, 1);
    berth_trace_free(r.L.t);

    /* swapped (the task table is read first): the "task table" has 6 columns */
    snprintf(both, sizeof both, "%s,%s", tp, jp);
    run(&r, berth__load_pai2020, both, 1);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, "j.csv:1: expected the 10 columns of pai_task_table");
    CHECK_HAS(r.err.msg, "the order is JOBTABLE,TASKTABLE");
    berth_trace_free(r.L.t);

    /* one file, no comma: say what the path must be */
    run(&r, berth__load_pai2020, jp, 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, "expected a directory holding pai_job_table.csv and pai_task_table.csv");
    berth_trace_free(r.L.t);
    run(&r, berth__load_pai2020, ",x", 0);
    CHECK_I64(r.rc, BERTH_EINPUT);
    berth_trace_free(r.L.t);

    /* a directory without the tables */
    run(&r, berth__load_pai2020, T.dir, 0);
    CHECK_I64(r.rc, BERTH_EIO);
    CHECK_HAS(r.err.msg, "pai_task_table.csv");
    berth_trace_free(r.L.t);
    tmp_close(&T);
}

/* Loads the good job g1 plus extra task / job rows (each table's extra rows start on line 2). */
static void pai_extra(struct run *r, const char *task_extra, const char *job_extra, int lenient,
                      const char **tpath, const char **jpath)
{
    char t[2048], j[2048], both[400];
    snprintf(t, sizeof t, "g1,w,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,T4\n%s", task_extra);
    snprintf(j, sizeof j, "g1,i,u,Terminated,5.0,20.0\n%s", job_extra);
    *tpath = tmp_write_slot(0, "tasks.csv", t);
    *jpath = tmp_write_slot(1, "jobs.csv", j);
    snprintf(both, sizeof both, "%s,%s", *jpath, *tpath);
    run(r, berth__load_pai2020, both, lenient);
}

static const struct bad_case {
    char table; /* 't' task, 'j' job */
    const char *row;
    const char *column; /* NULL: a row-level message */
} pai_bad[] = {
    {'t', "b,w,1.5,Terminated,10.0,20.0,100.0,1.0,100.0,T4\n", "inst_num"},
    {'t', "b,w,1.0,Terminated,10.0,20.0,1e300,1.0,100.0,T4\n", "plan_cpu"},
    {'t', "b,w,1.0,Terminated,10.0,20.0,100.0,abc,100.0,T4\n", "plan_mem"},
    {'t', "b,w,1.0,Terminated,10.0,20.0,100.0,1.0,-5,T4\n", "plan_gpu"},
    {'t', "b,w,1.0,Terminated,99999999999999999999,20.0,100.0,1.0,100.0,T4\n", "start_time"},
    {'t', "b,w,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,V 100\n", "gpu_type"},
    {'t', ",w,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,T4\n", "job_name"},
    {'t', "b,w,1.0\n", NULL},
    {'j', ",i,u,Terminated,5.0,20.0\n", "job_name"},
    {'j', "b,i,u,Terminated,x,20.0\n", "start_time"},
    {'j', "b,i,u,Terminated,1e300,20.0\n", "start_time"},
    {'j', "b,i,u,Terminated,5.0,-5\n", "end_time"},
    {'j', "b,i,u,Termin", NULL}, /* truncated last line */
};

#define NBAD_PAI (sizeof pai_bad / sizeof *pai_bad)

static void pai_bad_rows(void)
{
    tmp_open(&T);
    struct run r;
    const char *tp, *jp;
    char want[300];
    for (size_t k = 0; k < NBAD_PAI; k++) {
        const struct bad_case *b = &pai_bad[k];
        pai_extra(&r, b->table == 't' ? b->row : "", b->table == 'j' ? b->row : "", 0, &tp, &jp);
        CHECK_I64(r.rc, BERTH_EINPUT);
        if (b->column)
            snprintf(want, sizeof want, "%s:2: column %s: expected", b->table == 't' ? tp : jp,
                     b->column);
        else
            snprintf(want, sizeof want, "%s:2: expected %d fields", b->table == 't' ? tp : jp,
                     b->table == 't' ? 10 : 6);
        CHECK_HAS(r.err.msg, want);
        berth_trace_free(r.L.t);
    }
    /* all at once under --lenient: skipped and counted per reason, g1 kept */
    char t[2048] = "", j[2048] = "";
    for (size_t k = 0; k < NBAD_PAI; k++) {
        char *d = pai_bad[k].table == 't' ? t : j;
        size_t o = strlen(d);
        snprintf(d + o, 2048 - o, "%s", pai_bad[k].row);
    }
    pai_extra(&r, t, j, 1, &tp, &jp);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.L.t->n, 1);
    CHECK_STR(r.L.t->jobs[0].id, "g1");
    CHECK_I64(r.rep.rows, 2 + NBAD_PAI);
    CHECK_I64(r.rep.skipped, NBAD_PAI);
    CHECK_I64(reason_count(&r.rep, "column inst_num:", 1), 1);
    CHECK_I64(reason_count(&r.rep, "column plan_cpu:", 1), 1);
    CHECK_I64(reason_count(&r.rep, "column plan_mem:", 1), 1);
    CHECK_I64(reason_count(&r.rep, "column plan_gpu:", 1), 1);
    CHECK_I64(reason_count(&r.rep, "column start_time: expected a time", 1), 1);
    CHECK_I64(reason_count(&r.rep, "column start_time: expected a submit time", 1), 2);
    CHECK_I64(reason_count(&r.rep, "column gpu_type:", 1), 1);
    CHECK_I64(reason_count(&r.rep, "column job_name:", 1), 2);
    CHECK_I64(reason_count(&r.rep, "column end_time:", 1), 1);
    CHECK_I64(reason_count(&r.rep, "expected 10 fields", 1), 1);
    CHECK_I64(reason_count(&r.rep, "expected 6 fields", 1), 1);
    berth_trace_free(r.L.t);
    tmp_close(&T);
}

static void pai_whole_file(void)
{
    tmp_open(&T);
    struct run r;
    const char *tp, *jp;
    char both[400];
    for (int lenient = 0; lenient < 2; lenient++) {
        /* empty task table / job table */
        tp = tmp_write_slot(0, "tasks.csv", "");
        jp = tmp_write_slot(1, "jobs.csv", "g1,i,u,Terminated,5.0,20.0\n");
        snprintf(both, sizeof both, "%s,%s", jp, tp);
        run(&r, berth__load_pai2020, both, lenient);
        CHECK_I64(r.rc, BERTH_EINPUT);
        CHECK_HAS(r.err.msg, "expected the rows of pai_task_table, found an empty file");
        berth_trace_free(r.L.t);
        tp = tmp_write_slot(0, "tasks.csv", "g1,w,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,T4\n");
        jp = tmp_write_slot(1, "jobs.csv", "\n\n");
        run(&r, berth__load_pai2020, both, lenient);
        CHECK_I64(r.rc, BERTH_EINPUT);
        CHECK_HAS(r.err.msg, "expected the rows of pai_job_table, found an empty file");
        berth_trace_free(r.L.t);
        /* a first row that is no job-table row at all (a wrong file) */
        jp = tmp_write_slot(1, "jobs.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n");
        run(&r, berth__load_pai2020, both, lenient);
        CHECK_I64(r.rc, BERTH_EINPUT);
        CHECK_HAS(r.err.msg, ":1: expected the 6 columns of pai_job_table");
        berth_trace_free(r.L.t);
        /* a quoted field cut by the end of the file */
        tp = tmp_write_slot(0, "tasks.csv",
                            "g1,w,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,T4\n"
                            "g2,\"w,1.0,Termina");
        jp = tmp_write_slot(1, "jobs.csv", "g1,i,u,Terminated,5.0,20.0\n");
        run(&r, berth__load_pai2020, both, lenient);
        CHECK_I64(r.rc, BERTH_EINPUT);
        CHECK_HAS(r.err.msg, ":2:");
        berth_trace_free(r.L.t);
    }
    /* a task row cut in the middle of a number: a bad row */
    pai_extra(&r, "g2,w,1.0,Terminated,10.0,20.0,100.0,1.", "", 0, &tp, &jp);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":2: expected 10 fields");
    berth_trace_free(r.L.t);
    /* non-UTF-8 bytes in names are kept as bytes */
    pai_extra(&r, "\xff\xfe\x80,w,1.0,Terminated,10.0,20.0,100.0,1.0,100.0,T4\n",
              "\xff\xfe\x80,i,\xc3\x28,Terminated,6.0,20.0\n", 0, &tp, &jp);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.L.t->n, 2);
    if (r.L.t->n == 2) {
        CHECK_STR(r.L.t->jobs[1].id, "\xff\xfe\x80");
        CHECK_STR(berth_jobspec_extra(&r.L.t->jobs[1])->user, "\xc3\x28");
        CHECK_I64(r.L.t->jobs[1].arrival_us, 1 * S);
    }
    berth_trace_free(r.L.t);
    /* jobs left out for their status: their times are not read */
    pai_extra(&r, "", "f,i,u,Failed,,x\nw,i,u,Waiting,1e300,\nz,i,u,Zombie,5.0,6.0\n", 0, &tp, &jp);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.L.t->n, 1);
    CHECK_I64(reason_count(&r.rep, "status Failed", 0), 1);
    CHECK_I64(reason_count(&r.rep, "status Waiting", 0), 1);
    CHECK_I64(reason_count(&r.rep, "status other than Terminated", 0), 1);
    berth_trace_free(r.L.t);
    /* absurd sums: 1000000 instances x 6400% = 64 million GPUs */
    pai_extra(&r, "big,w,1000000,Terminated,10.0,20.0,1e7,1e6,6400,T4\n",
              "big,i,u,Terminated,5.0,20.0\n", 0, &tp, &jp);
    CHECK_I64(r.rc, BERTH_EINPUT);
    CHECK_HAS(r.err.msg, ":2: column plan_gpu: expected at most 1000000 GPUs");
    berth_trace_free(r.L.t);
    tmp_close(&T);
}

/* Generated trace: 3000 jobs of 1-3 tasks in shuffled order, each job's expected spec
 * computed here independently of the loader. */
static uint64_t lcg(uint64_t *s)
{
    *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return *s >> 33;
}

static void pai_generated(void)
{
    enum { NJ = 3000 };
    static struct {
        int64_t gpu_pct10, cpu, mem, start, submit, end;
        int type; /* -1 none yet, 0/1 = T4/P100, 2 = mixed */
    } e[NJ];
    static char tasks[NJ * 3][96];
    uint64_t seed = 42;
    size_t nt = 0;
    tmp_open(&T);
    FILE *jf = fopen(tmp_write_slot(1, "pai_job_table.csv", ""), "wb");
    for (int k = 0; k < NJ; k++) {
        e[k].type = -1;
        e[k].start = INT64_MAX;
        e[k].submit = 1000 + (int64_t)(lcg(&seed) % 100000);
        int ntasks = 1 + (int)(lcg(&seed) % 3);
        for (int i = 0; i < ntasks; i++) {
            int64_t inst = 1 + (int64_t)(lcg(&seed) % 4);
            static const int gp[] = {0, 25, 50, 100, 200};
            int64_t g = gp[lcg(&seed) % 5], cpu = 100 * (int64_t)(1 + lcg(&seed) % 8);
            int64_t memgb = 1 + (int64_t)(lcg(&seed) % 16);
            int64_t start = e[k].submit + (int64_t)(lcg(&seed) % 50);
            int ty = (int)(lcg(&seed) % 2);
            snprintf(tasks[nt++], sizeof tasks[0],
                     "job%05d,t%d,%lld.0,Terminated,%lld.0,,%lld.0,"
                     "%lld,%lld.0,%s\n",
                     k, i, (long long)inst, (long long)start, (long long)cpu, (long long)memgb,
                     (long long)g, ty ? "P100" : "T4");
            e[k].gpu_pct10 += inst * g * 10;
            e[k].cpu += inst * cpu * 10;
            e[k].mem += inst * memgb * 1024;
            if (start < e[k].start)
                e[k].start = start;
            if (g > 0)
                e[k].type = e[k].type == -1 || e[k].type == ty ? ty : 2;
        }
        e[k].end = e[k].start + 1 + (int64_t)(lcg(&seed) % 5000);
        fprintf(jf, "job%05d,i,u%d,Terminated,%lld.0,%lld.0\n", k, k % 7, (long long)e[k].submit,
                (long long)e[k].end);
    }
    fclose(jf);
    for (size_t i = nt - 1; i > 0; i--) { /* shuffle the task rows */
        size_t j = (size_t)(lcg(&seed) % (i + 1));
        char tmp[96];
        memcpy(tmp, tasks[i], sizeof tmp);
        memcpy(tasks[i], tasks[j], sizeof tmp);
        memcpy(tasks[j], tmp, sizeof tmp);
    }
    FILE *tf = fopen(tmp_write_slot(0, "pai_task_table.csv", ""), "wb");
    for (size_t i = 0; i < nt; i++)
        fputs(tasks[i], tf);
    fclose(tf);

    struct run r;
    run(&r, berth__load_pai2020, T.dir, 0);
    CHECK_I64(r.rc, 0);
    int64_t origin = INT64_MAX;
    size_t kept = 0, cpu_only = 0;
    for (int k = 0; k < NJ; k++)
        if (e[k].gpu_pct10 > 0) {
            kept++;
            if (e[k].submit < origin)
                origin = e[k].submit;
        } else {
            cpu_only++;
        }
    CHECK_I64(r.L.t->n, kept);
    CHECK_I64(reason_count(&r.rep, "CPU-only job", 0), cpu_only);
    CHECK_I64(r.rep.rows, NJ + nt);
    size_t bad = 0;
    for (int k = 0; k < NJ; k++) {
        char id[16];
        snprintf(id, sizeof id, "job%05d", k);
        const struct berth_jobspec *j = job_by_id(r.L.t, id);
        if (e[k].gpu_pct10 == 0) {
            bad += j != NULL;
            continue;
        }
        if (!j) {
            bad++;
            continue;
        }
        int64_t g = e[k].gpu_pct10;
        int32_t gpus = g < 1000 ? 1 : (int32_t)((g + 999) / 1000);
        int32_t share = g < 1000 ? (int32_t)g : 1000;
        const char *type = e[k].type == 0 ? "t4" : e[k].type == 1 ? "p100" : "";
        bad += j->num_gpus != gpus || j->gpu_share_milli != share ||
               strcmp(berth_jobspec_extra(j)->gpu_type, type) ||
               j->arrival_us != (e[k].submit - origin) * S ||
               j->duration_us != (e[k].end - e[k].start) * S || (uint32_t)k + 1 != j->line;
        bad += berth_jobspec_extra(j)->cpu_milli != e[k].cpu ||
               berth_jobspec_extra(j)->mem_mib != e[k].mem;
    }
    CHECK_I64(bad, 0);
    berth_trace_free(r.L.t);
    tmp_close(&T);
}

/* ---- openb pods --------------------------------------------------------------------------- */

static const char openb_header[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
                                   "pod_phase,creation_time,deletion_time,scheduled_time\n";

static void openb_sample(void)
{
    tmp_open(&T);
    char s[2048];
    snprintf(s, sizeof s, "%s%s", openb_header,
             "p0,12000,16384,1,1000,,LS,Running,100,500,100\n"                     /* 2 */
             "p1,6000,12288,1,460,,BE,Running,200,,200\n"                          /* 3 */
             "p2,88000,327680,8,1000,nan,Burstable,Succeeded,300,1300,300\n"       /* 4 */
             "p3,4000,8192,0,0,,LS,Running,400,900,400\n"                          /* 5 */
             "p4,16000,32768,1,1000,V100M16|V100M32|V100M32,LS,Running,450,450,\n" /* 6 */
             "p5,2000,4096,2,1000,G2|t4,Guaranteed,Pending,460,2000,\n"            /* 7 */
             "p6,1000,1024,1,100,,BE,Pending,2000,,\n");                           /* 8 */
    const char *path = tmp_write_slot(0, "pods.csv", s);
    /* origin 100 s; the file's last time is 2000 s (p5's deletion, p6's creation) */
    const struct want w[] = {
        {"p0", 0, 400 * S, 1, 1000, "", "", "LS", 12000, 16384, 1, 2},
        {"p1", 100 * S, 1800 * S, 1, 460, "", "", "BE", 6000, 12288, 1, 3}, /* censored */
        {"p2", 200 * S, 1000 * S, 8, 1000, "", "", "Burstable", 88000, 327680, 1, 4},
        {"p3", 300 * S, 500 * S, 0, 1000, "", "", "LS", 4000, 8192, 1, 5}, /* CPU-only */
        /* deleted the instant it was made: 1 us, the shortest time berth has */
        {"p4", 350 * S, 1, 1, 1000, "v100m16|v100m32", "", "LS", 16000, 32768, 1, 6},
        {"p5", 360 * S, 1540 * S, 2, 1000, "g2|t4", "", "Guaranteed", 2000, 4096, 1, 7},
        {"p6", 1900 * S, 1 * S, 1, 100, "", "", "BE", 1000, 1024, 1, 8}, /* at the very end */
    };
    for (int lenient = 0; lenient < 2; lenient++) {
        struct run r;
        run(&r, berth__load_openb, path, lenient);
        CHECK_I64(r.rc, 0);
        CHECK_I64(r.L.t->n, 7);
        for (size_t i = 0; i < 7 && i < r.L.t->n; i++)
            check_job(&r.L.t->jobs[i], &w[i]);
        CHECK_STR(berth_jobspec_extra(&r.L.t->jobs[1])->status, "Running"); /* pod_phase */
        CHECK_STR(berth_jobspec_extra(&r.L.t->jobs[6])->status, "Pending");
        CHECK_I64(r.rep.rows, 7);
        CHECK_I64(r.rep.skipped, 0);
        berth_trace_free(r.L.t);
    }
    tmp_close(&T);
}

/* The multigpu* variants have no time columns. */
static void openb_no_times(void)
{
    tmp_open(&T);
    const char *path = tmp_write_slot(0, "pods.csv",
                                      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                                      "m0,12000,16384,1,1000\n"
                                      "m1,6000,12288,1,460\n"
                                      "m2,0,0,0,0\n"
                                      "m3,64200,263168,8,1000\n");
    const struct want w[] = {
        {"m0", 0, 10000000 * S, 1, 1000, "", "", "", 12000, 16384, 1, 2},
        {"m1", 0, 10000000 * S, 1, 460, "", "", "", 6000, 12288, 1, 3},
        {"m3", 0, 10000000 * S, 8, 1000, "", "", "", 64200, 263168, 1, 5},
    };
    struct run r;
    run(&r, berth__load_openb, path, 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.L.t->n, 3);
    for (size_t i = 0; i < 3 && i < r.L.t->n; i++)
        check_job(&r.L.t->jobs[i], &w[i]);
    CHECK_I64(r.rep.rows, 4);
    CHECK_I64(reason_count(&r.rep, "pod asks for no GPU, CPU or memory", 0), 1); /* m2 */
    berth_trace_free(r.L.t);
    tmp_close(&T);
}

static const struct bad_case openb_bad[] = {
    {0, "b,1000,1024,-5,500,,LS,Running,0,10,0\n", "num_gpu"},
    {0, "b,1000,1024,1,0,,LS,Running,0,10,0\n", "gpu_milli"},
    {0, "b,1000,1024,2,500,,LS,Running,0,10,0\n", "gpu_milli"},
    {0, "b,1000,1024,1,500,a||b,LS,Running,0,10,0\n", "gpu_spec"},
    {0, "b,1000,1024,1,500,,LS,Running,1e300,10,0\n", "creation_time"},
    {0, "b,1000,1024,1,500,,LS,Running,,10,0\n", "creation_time"},
    {0, "b,1000,1024,1,500,,LS,Running,0,-5,0\n", "deletion_time"},
    {0, "b,99999999999999999999,1024,1,500,,LS,Running,0,10,0\n", "cpu_milli"},
    {0, "b,1000,x,1,500,,LS,Running,0,10,0\n", "memory_mib"},
    {0, ",1000,1024,1,500,,LS,Running,0,10,0\n", "name"},
    {0, "b,1000,10", NULL}, /* truncated last line */
};

#define NBAD_OPENB (sizeof openb_bad / sizeof *openb_bad)

static void openb_bad_rows(void)
{
    tmp_open(&T);
    struct run r;
    char s[4096], want[300];
    for (size_t k = 0; k < NBAD_OPENB; k++) {
        snprintf(s, sizeof s, "%sg,1000,1024,1,500,,LS,Running,0,10,0\n%s", openb_header,
                 openb_bad[k].row);
        const char *path = tmp_write_slot(0, "pods.csv", s);
        run(&r, berth__load_openb, path, 0);
        CHECK_I64(r.rc, BERTH_EINPUT);
        if (openb_bad[k].column)
            snprintf(want, sizeof want, "%s:3: column %s: expected", path, openb_bad[k].column);
        else
            snprintf(want, sizeof want, "%s:3: expected 11 fields", path);
        CHECK_HAS(r.err.msg, want);
        berth_trace_free(r.L.t);
    }
    size_t o =
        (size_t)snprintf(s, sizeof s, "%sg,1000,1024,1,500,,LS,Running,0,10,0\n", openb_header);
    for (size_t k = 0; k < NBAD_OPENB; k++)
        o += (size_t)snprintf(s + o, sizeof s - o, "%s", openb_bad[k].row);
    run(&r, berth__load_openb, tmp_write_slot(0, "pods.csv", s), 1);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.L.t->n, 1);
    CHECK_I64(r.rep.rows, 1 + NBAD_OPENB);
    CHECK_I64(r.rep.skipped, NBAD_OPENB);
    CHECK_I64(reason_count(&r.rep, "column gpu_milli: expected a share", 1), 1);
    CHECK_I64(reason_count(&r.rep, "column gpu_milli: expected 1000", 1), 1);
    CHECK_I64(reason_count(&r.rep, "column creation_time:", 1), 2);
    CHECK_I64(reason_count(&r.rep, "expected 11 fields", 1), 1);
    berth_trace_free(r.L.t);

    /* whole-file problems fail even under --lenient */
    const struct {
        const char *text, *msg;
    } whole[] = {
        {"", "found an empty file"},
        {"timestamp,duration,num_gpus,gpu_time,cluster\n1,2,3,4,5\n",
         "column 1: expected an openb"},
        {"name,cpu_milli,memory_mib,num_gpu\np,1,1,1\n",
         "column gpu_milli: expected in the header"},
        {"name,cpu_milli,memory_mib,num_gpu,gpu_milli,name\n", "expected once, found twice"},
        {"name,cpu_milli,memory_mib,num_gpu,gpu_milli,deletion_time\n",
         "column creation_time: expected with deletion_time"},
        {"name,cpu_milli,memory_mib,num_gpu,gpu_milli\n\"p,1,1,1,1000\n", "closing"},
    };
    for (size_t k = 0; k < sizeof whole / sizeof *whole; k++) {
        run(&r, berth__load_openb, tmp_write_slot(0, "pods.csv", whole[k].text), 1);
        CHECK_I64(r.rc, BERTH_EINPUT);
        CHECK_HAS(r.err.msg, whole[k].msg);
        berth_trace_free(r.L.t);
    }
    /* non-UTF-8 bytes and a byte-order mark */
    snprintf(s, sizeof s, "\xEF\xBB\xBF%s\xff\xfe,1000,1024,1,500,,\x80,Running,0,10,0\n",
             openb_header);
    run(&r, berth__load_openb, tmp_write_slot(0, "pods.csv", s), 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.L.t->n, 1);
    if (r.L.t->n == 1) {
        CHECK_STR(r.L.t->jobs[0].id, "\xff\xfe");
        CHECK_STR(r.L.t->jobs[0].queue, "\x80");
    }
    berth_trace_free(r.L.t);
    tmp_close(&T);
}

/* ---- clusters ----------------------------------------------------------------------------- */

typedef int (*cluster_fn)(const char *, struct berth__cluster_builder *, struct berth_err *);

static int cluster_load(cluster_fn fn, const char *path, struct berth__cluster_builder *b,
                        struct berth_err *err)
{
    berth__builder_init(b);
    memset(err, 0, sizeof *err);
    return fn(path, b, err);
}

struct want_server {
    const char *name, *type;
    int32_t gpus;
    int64_t cpu_milli, mem_mib;
};

static void check_servers(const struct berth__cluster_builder *b, const struct want_server *w,
                          size_t n)
{
    CHECK_I64(b->n, n);
    for (size_t i = 0; i < n && i < b->n; i++) {
        CHECK_STR(b->p[i].name, w[i].name);
        CHECK_STR(b->p[i].type, w[i].type);
        CHECK_I64(b->p[i].gpus, w[i].gpus);
        CHECK_I64(b->p[i].cpu_milli, w[i].cpu_milli);
        CHECK_I64(b->p[i].mem_mib, w[i].mem_mib);
        CHECK(!b->p[i].rack && !b->p[i].pool);
    }
}

static void cluster_pai(void)
{
    tmp_open(&T);
    static const char rows[] = "m1,V100,96,384,8\n"
                               "m2,MISC,96,512,8\n"
                               "m3,CPU,96,512,0\n"
                               "m4,T4,96,512,2\n"
                               "m5,P100,64.5,512.5,2\n";
    const struct want_server w[] = {
        {"m1", "v100", 8, 96000, 393216}, {"m2", "misc", 8, 96000, 524288},
        {"m3", "cpu", 0, 96000, 524288},  {"m4", "t4", 2, 96000, 524288},
        {"m5", "p100", 2, 64500, 524800},
    };
    char s[512];
    struct berth__cluster_builder b;
    struct berth_err err;
    for (int h = 0; h < 2; h++) {
        snprintf(s, sizeof s, "%s%s", h ? "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n" : "", rows);
        CHECK_I64(
            cluster_load(berth__cluster_load_pai2020, tmp_write_slot(0, "m.csv", s), &b, &err), 0);
        check_servers(&b, w, 5);
        CHECK_I64(b.allow_span, 1);
        struct berth_cluster *c = NULL;
        CHECK_I64(berth__builder_build(&b, "m.csv", &c, &err), 0);
        if (c) {
            CHECK_I64(berth_cluster_gpus(c), 20);
            berth_cluster_free(c);
        }
        berth__builder_free(&b);
    }
    const struct {
        const char *text, *msg;
    } bad[] = {
        {"m1,V100,96,384,65\n", ":1: column cap_gpu: expected a whole number of GPUs from 0 to 64"},
        {"m1,V100,96,384,8\nm2,V 100,96,384,8\n", ":2: column gpu_type: expected a GPU type"},
        {"m1,V100,-5,384,8\n", ":1: column cap_cpu: expected"},
        {"m1,V100,96,1e300,8\n", ":1: column cap_mem: expected"},
        {"m1,V100,96,384,99999999999999999999\n", ":1: column cap_gpu: expected"},
        {",V100,96,384,8\n", ":1: column machine: expected"},
        {"m1,V100,96,384,8\nm1,T4,96,384,2\n",
         ":2: column machine: expected a unique name, found \"m1\", already on line 1"},
        {"m1,V100,96,384,8\nm2,T4,9", ":2: expected 5 fields"},
        {"", "expected machine rows"},
        {"machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n", "expected machine rows"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        const char *path = tmp_write_slot(0, "m.csv", bad[k].text);
        CHECK_I64(cluster_load(berth__cluster_load_pai2020, path, &b, &err), BERTH_EINPUT);
        CHECK_HAS(err.msg, path);
        CHECK_HAS(err.msg, bad[k].msg);
        berth__builder_free(&b);
    }
    CHECK_I64(cluster_load(berth__cluster_load_pai2020, "/nonexistent/m.csv", &b, &err), BERTH_EIO);
    berth__builder_free(&b);
    tmp_close(&T);
}

static void cluster_openb(void)
{
    tmp_open(&T);
    struct berth__cluster_builder b;
    struct berth_err err;
    const char *path = tmp_write_slot(0, "n.csv",
                                      "sn,cpu_milli,memory_mib,gpu,model\n"
                                      "n0,32000,262144,0,\n"
                                      "n1,128000,786432,8,G3\n"
                                      "n2,96000,786432,8,V100M32\n"
                                      "n3,64000,262144,2,P100\n"
                                      "n4,8000,1024,0,nan\n");
    const struct want_server w[] = {
        {"n0", "cpu", 0, 32000, 262144},     {"n1", "g3", 8, 128000, 786432},
        {"n2", "v100m32", 8, 96000, 786432}, {"n3", "p100", 2, 64000, 262144},
        {"n4", "cpu", 0, 8000, 1024},
    };
    CHECK_I64(cluster_load(berth__cluster_load_openb, path, &b, &err), 0);
    check_servers(&b, w, 5);
    berth__builder_free(&b);
    /* columns in another order */
    path = tmp_write_slot(0, "n.csv", "model,gpu,sn,memory_mib,cpu_milli\nT4,2,x,100,200\n");
    CHECK_I64(cluster_load(berth__cluster_load_openb, path, &b, &err), 0);
    const struct want_server w2 = {"x", "t4", 2, 200, 100};
    check_servers(&b, &w2, 1);
    berth__builder_free(&b);
    const struct {
        const char *text, *msg;
    } bad[] = {
        {"sn,cpu_milli,memory_mib,gpu,model\nn,1,1,2,\n",
         ":2: column model: expected a GPU model for a node with GPUs"},
        {"sn,cpu_milli,memory_mib,gpu,model\nn,1,1,65,T4\n", ":2: column gpu: expected"},
        {"sn,cpu_milli,memory_mib,gpu,model\nn,-5,1,1,T4\n", ":2: column cpu_milli: expected"},
        {"sn,cpu_milli,memory_mib,gpu,model\nn,1,1e300,1,T4\n", ":2: column memory_mib: expected"},
        {"sn,cpu_milli,memory_mib,gpu,model\nn,1,1,1,T|4\n", ":2: column model: expected"},
        {"sn,cpu_milli,memory_mib,gpu,model\nn,1,1,1,T4\nn,1,1,1,T4\n",
         ":3: column sn: expected a unique node name, found \"n\", already on line 2"},
        {"sn,cpu_milli,memory_mib,gpu,model\nn,1,1,1", ":2: expected 5 fields"},
        {"sn,cpu_milli,memory_mib,gpu\n", "column model: expected in the header"},
        {"sn,cpu,memory_mib,gpu,model\n", ":1: column 2: expected the header"},
        {"", "found an empty file"},
        {"sn,cpu_milli,memory_mib,gpu,model\n", "expected at least one node row"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        path = tmp_write_slot(0, "n.csv", bad[k].text);
        CHECK_I64(cluster_load(berth__cluster_load_openb, path, &b, &err), BERTH_EINPUT);
        CHECK_HAS(err.msg, path);
        CHECK_HAS(err.msg, bad[k].msg);
        berth__builder_free(&b);
    }
    tmp_close(&T);
}

/* ---- the real files ----------------------------------------------------------------------- */

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int have(const char *path)
{
    if (!getenv("BERTH_SHARED")) {
        printf("SKIP BERTH_SHARED not set, %s skipped\n", strrchr(path, '/') + 1);
        return 0;
    }
    if (access(path, R_OK) == 0)
        return 1;
    printf("SKIP %s absent, skipped\n", path);
    return 0;
}

static void real_openb_pods(void)
{
    const char *shared = getenv("BERTH_SHARED");
    char dir[300], path[700];
    snprintf(dir, sizeof dir, "%s/traces/alibaba-openb-2023", shared ? shared : "");
    snprintf(path, sizeof path, "%s/openb_pod_list_default.csv", dir);
    if (!have(path))
        return;
    struct run r;
    run(&r, berth__load_openb, path, 0);
    CHECK_I64(r.rc, 0);
    CHECK_I64(r.rep.rows, 8152);
    CHECK_I64(r.rep.skipped, 0); /* CPU-only pods are jobs too */
    size_t by[9] = {0}, nshare = 0;
    int64_t milli = 0;
    static int32_t shares[8152];
    for (size_t i = 0; i < r.L.t->n; i++) {
        const struct berth_jobspec *j = &r.L.t->jobs[i];
        if (j->num_gpus <= 8)
            by[j->num_gpus]++;
        if (j->gpu_share_milli < 1000)
            shares[nshare++] = j->gpu_share_milli;
        milli += (int64_t)j->num_gpus * j->gpu_share_milli;
        CHECK(j->duration_us > 0 && j->single_server == 1 && j->arrival_us >= 0);
    }
    CHECK_I64(by[0], 1088);
    CHECK_I64(by[1], 6989);
    CHECK_I64(by[2], 16);
    CHECK_I64(by[4], 15);
    CHECK_I64(by[8], 44);
    CHECK_I64(r.L.t->n, 1088 + 6989 + 16 + 15 + 44);
    CHECK_I64(nshare, 3078);
    qsort(shares, nshare, sizeof *shares, cmp_i32);
    CHECK_I64(shares[nshare / 2 - 1], 470); /* the median of an even count: both middles */
    CHECK_I64(shares[nshare / 2], 470);
    CHECK_I64(milli, 6086800); /* sum of num_gpu x gpu_milli */
    CHECK_I64(r.L.t->jobs[0].arrival_us, 0);
    CHECK_I64(r.L.t->jobs[0].duration_us, 12537496 * S);
    berth_trace_free(r.L.t);

    /* every variant loads strictly; gpuspec33 keeps its 2388 type constraints */
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "openb_pod_list_", 15))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        run(&r, berth__load_openb, path, 0);
        if (r.rc)
            fprintf(stderr, "  %s: %s\n", path, r.err.msg);
        CHECK_I64(r.rc, 0);
        CHECK_I64(r.L.t->n + r.rep.skipped, r.rep.rows);
        CHECK(r.L.t->n > 6000);
        if (!strcmp(e->d_name, "openb_pod_list_gpuspec33.csv")) {
            size_t typed = 0;
            for (size_t i = 0; i < r.L.t->n; i++)
                typed += berth_jobspec_extra(&r.L.t->jobs[i])->gpu_type[0] != 0;
            CHECK_I64(typed, 2388);
        }
        berth_trace_free(r.L.t);
        files++;
    }
    if (d)
        closedir(d);
    CHECK_I64(files, 24);
}

static void real_clusters(void)
{
    const char *shared = getenv("BERTH_SHARED");
    char path[600];
    struct berth__cluster_builder b;
    struct berth_err err;
    snprintf(path, sizeof path, "%s/traces/alibaba-openb-2023/openb_node_list_gpu_node.csv",
             shared ? shared : "");
    if (have(path)) {
        CHECK_I64(cluster_load(berth__cluster_load_openb, path, &b, &err), 0);
        CHECK_I64(b.n, 1213);
        static const struct {
            const char *type;
            int gpus, nodes;
        } want[] = {{"g2", 4392, 549},    {"t4", 842, 404},     {"g3", 312, 39}, {"p100", 265, 134},
                    {"v100m32", 204, 30}, {"v100m16", 195, 55}, {"a10", 2, 2}};
        int total = 0, per[65] = {0};
        for (size_t i = 0; i < b.n; i++) {
            total += b.p[i].gpus;
            per[b.p[i].gpus]++;
        }
        CHECK_I64(total, 6212);
        CHECK_I64(per[8], 617);
        CHECK_I64(per[2], 518);
        CHECK_I64(per[4], 54);
        CHECK_I64(per[1], 24);
        for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
            int g = 0, n = 0;
            for (size_t i = 0; i < b.n; i++)
                if (!strcmp(b.p[i].type, want[k].type)) {
                    g += b.p[i].gpus;
                    n++;
                }
            CHECK_I64(g, want[k].gpus);
            CHECK_I64(n, want[k].nodes);
        }
        berth__builder_free(&b);
    }
    snprintf(path, sizeof path, "%s/traces/alibaba-openb-2023/openb_node_list_all_node.csv",
             shared ? shared : "");
    if (have(path)) {
        CHECK_I64(cluster_load(berth__cluster_load_openb, path, &b, &err), 0);
        CHECK_I64(b.n, 1523);
        int total = 0, cpu_nodes = 0;
        int64_t milli = 0;
        for (size_t i = 0; i < b.n; i++) {
            total += b.p[i].gpus;
            cpu_nodes += !strcmp(b.p[i].type, "cpu") && b.p[i].gpus == 0;
            milli += b.p[i].cpu_milli;
        }
        CHECK_I64(total, 6212);
        CHECK_I64(cpu_nodes, 310);
        CHECK_I64(milli, INT64_C(125514000));
        struct berth_cluster *c = NULL;
        CHECK_I64(berth__builder_build(&b, path, &c, &err), 0);
        berth_cluster_free(c);
        berth__builder_free(&b);
    }
    snprintf(path, sizeof path, "%s/traces/alibaba-pai-2020/pai_machine_spec.csv",
             shared ? shared : "");
    if (have(path)) {
        CHECK_I64(cluster_load(berth__cluster_load_pai2020, path, &b, &err), 0);
        CHECK_I64(b.n, 1897);
        static const struct {
            const char *type;
            int machines, per;
        } want[] = {{"misc", 280, 8}, {"p100", 798, 2}, {"v100m32", 135, 8},
                    {"t4", 497, 2},   {"v100", 104, 8}, {"cpu", 83, 0}};
        int total = 0;
        for (size_t i = 0; i < b.n; i++)
            total += b.p[i].gpus;
        CHECK_I64(total, 6742);
        for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
            int n = 0, odd = 0;
            for (size_t i = 0; i < b.n; i++)
                if (!strcmp(b.p[i].type, want[k].type)) {
                    n++;
                    odd += b.p[i].gpus != want[k].per;
                }
            CHECK_I64(n, want[k].machines);
            CHECK_I64(odd, 0);
        }
        struct berth_cluster *c = NULL;
        CHECK_I64(berth__builder_build(&b, path, &c, &err), 0);
        berth_cluster_free(c);
        berth__builder_free(&b);
    }
}

static const struct check_test tests[] = {
    {"pai_sample", pai_sample},           {"pai_paths_and_headers", pai_paths_and_headers},
    {"pai_bad_rows", pai_bad_rows},       {"pai_whole_file", pai_whole_file},
    {"pai_generated", pai_generated},     {"openb_sample", openb_sample},
    {"openb_no_times", openb_no_times},   {"openb_bad_rows", openb_bad_rows},
    {"cluster_pai", cluster_pai},         {"cluster_openb", cluster_openb},
    {"real_openb_pods", real_openb_pods}, {"real_clusters", real_clusters},
};

CHECK_MAIN(tests)
