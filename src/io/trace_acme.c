/* Loader for Shanghai AI Lab Acme job logs (InternLM/AcmeTrace, data/job_trace/
 * trace_seren.csv and trace_kalos.csv): one job per row, one cluster per file.
 *
 *   Seren: job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,
 *          duration,queue,gpu_time
 *   Kalos: the same plus mem_per_pod_GB,shared_mem_per_pod,fail_time,stop_time
 *
 * Columns are found by header name (any order; unknown ones are ignored). Required:
 * job_id, gpu_num, submit_time, and start_time with end_time (or, failing those, duration);
 * used when present: user, type, cpu_num, node_num, mem_per_pod_GB. Job spec: id = job_id
 * (a number in Seren, a string like "dlctk696s0jbvitv" in Kalos), user = user, job_type =
 * type (the LLM workload kind: Pretrain, SFT, Evaluation, Debug, MLLM, Other), num_gpus =
 * gpu_num, arrival = submit_time relative to the earliest submit among the jobs loaded.
 *
 * Run time = end_time - start_time, not the duration column: the README defines duration
 * so, and Seren's rows agree (117 s from 00:18:54 to 00:20:51), but Kalos' duration runs
 * from submit to end, queueing included (its sample rows: queue 10, start to end 8,
 * duration 18). Only a file without start_time and end_time columns uses duration. CPU demand =
 * cpu_num cores (for the whole job); memory demand = mem_per_pod_GB x 1024 MiB x node_num, one pod
 * per node (Kalos' cpu_num is 120 per node on its 128-core servers, and a 1000 GB pod fits one node
 * only). Acme has no virtual clusters: its `queue` column is the wait in seconds (a float in
 * Kalos), so the job's queue stays "". state, start_time, end_time, gpu_time, shared_mem_per_pod,
 * fail_time and stop_time are not read; a failed or cancelled job held its GPUs for its duration
 * too.
 *
 * Timestamps carry a UTC offset ("2023-03-01 00:18:22+08:00" in Seren, "+00:00" in Kalos)
 * and are read as UTC instants, so files (or rows) with different offsets line up.
 *
 * Left out by the format's rules (counted per reason, never an error): CPU-only jobs
 * (gpu_num 0), jobs that never ran (start_time or end_time empty; duration 0 or empty when
 * it is what is read) and jobs that ran 0 s (end_time = start_time). */
#include <stdio.h>
#include <string.h>

#include "io/columns.h"
#include "io/loaders_sense.h"
#include "util/num.h"

enum col {
    C_ID,
    C_GPU,
    C_SUBMIT,
    C_START,
    C_END,
    C_DUR,
    C_USER,
    C_TYPE,
    C_CPU,
    C_NODES,
    C_MEM,
    NCOLS
};

static const char *const colname[NCOLS] = {"job_id",   "gpu_num",  "submit_time",   "start_time",
                                           "end_time", "duration", "user",          "type",
                                           "cpu_num",  "node_num", "mem_per_pod_GB"};

static const struct berth__cols_spec cols_spec = {
    .names = colname,
    .ncols = NCOLS,
    .nrequired = C_SUBMIT + 1, /* plus start_time and end_time, or duration */
    .header = " of an Acme trace (job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,"
              "start_time,end_time,duration,queue,gpu_time)",
    .missing_note = " (start_time with end_time, or duration, will do)",
    .empty = "the header of an Acme trace",
};

#define MAX_GPUS_PER_JOB 1000000
#define MAX_DURATION_US  (INT64_MAX / 4)
#define MAX_MEM_MGB      (INT64_C(1) << 40) /* per pod, in 1/1000 GB: a billion GB */

static int two_digits(const char *s, int *v)
{
    if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9')
        return -1;
    *v = (s[0] - '0') * 10 + (s[1] - '0');
    return 0;
}

/* "YYYY-MM-DD HH:MM:SS[.ffffff][Z|+HH:MM|-HH:MM|+HHMM|+HH]" (or 'T' between date and time)
 * as microseconds since 1970-01-01 UTC: the offset is taken away (12:00+08:00 is 04:00
 * UTC). No zone means UTC. A fraction beyond microseconds is cut. Returns 0 or -1.
 * (A candidate for util/num.c as berth__parse_datetime_tz.) */
static int parse_time_utc(const char *s, size_t n, int64_t *out_us)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    int64_t sec;
    if (n < 19 || berth__parse_datetime(s, 19, &sec))
        return -1;
    size_t i = 19;
    int64_t frac = 0;
    if (i < n && s[i] == '.') {
        size_t d = 0;
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, d++)
            if (d < 6)
                frac = frac * 10 + (s[i] - '0');
        if (d == 0)
            return -1;
        for (; d < 6; d++)
            frac *= 10;
    }
    int off_min = 0;
    if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
        i++;
    } else if (i < n && (s[i] == '+' || s[i] == '-')) {
        int sign = s[i] == '-' ? -1 : 1, hh, mm = 0;
        i++;
        if (n - i < 2 || two_digits(s + i, &hh))
            return -1;
        i += 2;
        if (i < n && s[i] == ':')
            i++;
        if (i < n) {
            if (n - i < 2 || two_digits(s + i, &mm))
                return -1;
            i += 2;
        }
        if (hh > 23 || mm > 59)
            return -1;
        off_min = sign * (hh * 60 + mm);
    }
    if (i != n)
        return -1;
    *out_us = (sec - (int64_t)off_min * 60) * BERTH_US_PER_S + frac;
    return 0;
}

#define TIME_EXP "a time YYYY-MM-DD HH:MM:SS with an offset like +08:00"

/* The row's run time: end_time - start_time, or the duration column in a file without
 * those. Returns 0, BERTH__ROW_SKIPPED (left out or bad under --lenient) or an error. */
static int run_time(struct berth__cols *x, int64_t *us, struct berth_err *err)
{
    size_t n, m;
    const char *s;
    uint32_t line = berth__cols_line(x);
    if (berth__cols_has(x, C_START) && berth__cols_has(x, C_END)) {
        int64_t st, en;
        s = berth__cols_get(x, C_START, &n);
        if (n && parse_time_utc(s, n, &st))
            return berth__cols_bad(x, C_START, TIME_EXP, err);
        s = berth__cols_get(x, C_END, &m);
        if (m && parse_time_utc(s, m, &en))
            return berth__cols_bad(x, C_END, TIME_EXP, err);
        if (!n || !m) {
            berth__load_exclude(x->L, line, "job never ran (start_time or end_time empty)");
            return BERTH__ROW_SKIPPED;
        }
        if (en < st || en - st > MAX_DURATION_US)
            return berth__cols_bad(x, C_END, "a time not before the start_time", err);
        if (en == st) {
            berth__load_exclude(x->L, line, "job ran 0 s (end_time = start_time)");
            return BERTH__ROW_SKIPPED;
        }
        *us = en - st;
        return 0;
    }
    s = berth__cols_get(x, C_DUR, &n);
    if (n && (berth__parse_seconds_us(s, n, us) || *us < 0 || *us > MAX_DURATION_US))
        return berth__cols_bad(x, C_DUR, "a duration in seconds >= 0", err);
    if (n == 0 || *us == 0) {
        berth__load_exclude(x->L, line, "job never ran (duration 0 or empty)");
        return BERTH__ROW_SKIPPED;
    }
    return 0;
}

/* Reads one data row: pushed (0), skipped (BERTH__ROW_SKIPPED) or an error. */
static int row(struct berth__cols *x, int64_t *origin, struct berth_err *err)
{
    struct berth__load *L = x->L;
    struct berth_jobdesc js;
    berth__jobspec_defaults(&js);
    js.spec.line = berth__cols_line(x);
    size_t n;
    const char *s;
    int64_t gpus, submit_us, cpu_milli = 0, nodes = 1, mem_mgb = 0, mem_mib = 0;
    s = berth__cols_get(x, C_ID, &n);
    if (n == 0)
        return berth__cols_bad(x, C_ID, "a job id", err);
    s = berth__cols_get(x, C_GPU, &n);
    if (berth__parse_whole(s, n, &gpus) || gpus < 0 || gpus > MAX_GPUS_PER_JOB)
        return berth__cols_bad(x, C_GPU, "a whole number of GPUs >= 0", err);
    if (gpus == 0) {
        berth__load_exclude(L, js.spec.line, "CPU-only job (gpu_num 0)");
        return BERTH__ROW_SKIPPED;
    }
    s = berth__cols_get(x, C_SUBMIT, &n);
    if (parse_time_utc(s, n, &submit_us))
        return berth__cols_bad(x, C_SUBMIT, TIME_EXP, err);
    s = berth__cols_get(x, C_CPU, &n);
    if (n && (berth__parse_scaled(s, n, 3, &cpu_milli) || cpu_milli < 0))
        return berth__cols_bad(x, C_CPU, "a number of CPU cores >= 0", err);
    s = berth__cols_get(x, C_NODES, &n);
    if (n && (berth__parse_whole(s, n, &nodes) || nodes < 0 || nodes > MAX_GPUS_PER_JOB))
        return berth__cols_bad(x, C_NODES, "a whole number of nodes >= 0", err);
    s = berth__cols_get(x, C_MEM, &n);
    if (n && (berth__parse_scaled(s, n, 3, &mem_mgb) || mem_mgb < 0 || mem_mgb > MAX_MEM_MGB))
        return berth__cols_bad(x, C_MEM, "a memory size in GB >= 0", err);
    /* 1/1000 GB to MiB, rounded to nearest, times one pod per node (at least one pod) */
    mem_mib = (mem_mgb * 1024 + 500) / 1000 * (nodes > 0 ? nodes : 1);
    int rc = run_time(x, &js.spec.duration_us, err);
    if (rc)
        return rc;
    struct berth_trace *t = L->t;
    s = berth__cols_get(x, C_ID, &n);
    js.spec.id = berth__trace_str(t, s, n);
    s = berth__cols_get(x, C_USER, &n);
    js.x.user = berth__trace_intern(t, s, n);
    s = berth__cols_get(x, C_TYPE, &n);
    js.x.job_type = berth__trace_intern(t, s, n);
    js.spec.num_gpus = js.spec.min_gpus = js.spec.max_gpus = (int32_t)gpus;
    js.spec.arrival_us = submit_us; /* absolute until every row is read */
    js.x.cpu_milli = cpu_milli;
    js.x.mem_mib = mem_mib;
    if (!js.spec.id || !js.x.user || !js.x.job_type || berth__trace_push(t, &js))
        return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", L->path, js.spec.line);
    if (submit_us < *origin)
        *origin = submit_us;
    return 0;
}

int berth__load_acme(struct berth__load *L, struct berth_err *err)
{
    struct berth__cols x;
    int rc = berth__cols_open(&x, &cols_spec, L->path, L, err);
    if (rc == 0 && !(berth__cols_has(&x, C_START) && berth__cols_has(&x, C_END)) &&
        !berth__cols_has(&x, C_DUR))
        rc = berth__cols_missing(&x, C_DUR, err);
    int64_t origin = INT64_MAX;
    while (rc == 0 && (rc = berth__cols_next(&x, err)) > 0)
        if ((rc = row(&x, &origin, err)) == BERTH__ROW_SKIPPED)
            rc = 0;
    berth__cols_close(&x);
    if (rc)
        return rc;
    struct berth_trace *t = L->t;
    for (size_t i = 0; i < t->n; i++)
        t->jobs[i].arrival_us -= origin;
    return 0;
}
