/* Loader for Alibaba's GPU-sharing pod lists (alibaba/clusterdata @ 7a6c496e,
 * cluster-trace-gpu-v2023/csv/openb_pod_list_*.csv, = hkust-adsl/kubernetes-scheduler-simulator
 * @ 8f3d641 data/csv), the FGD (ATC'23) fill-until-full workload.
 *
 * Header required: name,cpu_milli,memory_mib,num_gpu,gpu_milli and, except in the multigpu*
 * variants, gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time (any order).
 * One row is one pod = one job, on one node (single_server = 1). id = name. num_gpu whole
 * GPUs, or for num_gpu = 1 a share gpu_milli in 1/1000 (1..1000; 1000 when num_gpu > 1).
 * gpu_spec: allowed models, '|'-separated, lower-cased, duplicates dropped; empty or "nan" =
 * any. qos (LS, BE, Burstable, Guaranteed) becomes the queue. cpu_milli and memory_mib kept.
 * Times are seconds. Arrival = creation_time, relative to the earliest. Duration =
 * deletion_time - creation_time when that is > 0; otherwise (censored: deletion unknown, or
 * not after creation) the pod holds its GPUs until the file's last time (the largest
 * creation or deletion time), at least 1 s. Files without time columns (multigpu*): every pod
 * arrives at 0 in file order and runs 10^7 s (the experiment fills the cluster; time is not
 * part of it). scheduled_time is not used (Pending pods are kept).
 * CPU-only pods (num_gpu 0) are kept as jobs with no GPU: they hold CPU and memory on one
 * node; a pod asking for no GPU, CPU or memory is left out (counted). pod_phase becomes the
 * job's status. */
#include <stdio.h>
#include <string.h>

#include "loaders_alibaba.h"
#include "util/csv.h"
#include "util/num.h"

#define MAX_GPUS_PER_JOB  1000000
#define MAX_TIME_US       INT64_C(1000000000000000000) /* 10^12 s */
#define NO_TIMES_DURATION (INT64_C(10000000) * BERTH_US_PER_S)
#define ROW_SKIPPED       1

enum col {
    C_NAME,
    C_CPU,
    C_MEM,
    C_GPUS,
    C_MILLI,
    C_SPEC,
    C_QOS,
    C_PHASE,
    C_CREATE,
    C_DELETE,
    C_SCHED,
    NCOLS
};

static const char *const colname[NCOLS] = {
    "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
    "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};

struct ctx {
    struct berth__load *L;
    struct berth__csv *csv;
    int idx[NCOLS]; /* field index of each column, -1 when absent */
    size_t nfields;
    int64_t last_us; /* largest creation or deletion time seen */
};

static int bad(struct ctx *x, enum col c, const char *expected, struct berth_err *err)
{
    size_t i = (size_t)x->idx[c];
    int rc = berth__load_bad(x->L, berth__csv_line(x->csv), colname[c], expected,
                             berth__csv_field(x->csv, i), berth__csv_len(x->csv, i), err);
    return rc ? rc : ROW_SKIPPED;
}

static const char *fv(struct ctx *x, enum col c, size_t *len)
{
    *len = x->idx[c] < 0 ? 0 : berth__csv_len(x->csv, (size_t)x->idx[c]);
    return x->idx[c] < 0 ? "" : berth__csv_field(x->csv, (size_t)x->idx[c]);
}

static int int_col(struct ctx *x, enum col c, int64_t hi, const char *expected, int64_t *out,
                   struct berth_err *err)
{
    size_t n;
    const char *s = fv(x, c, &n);
    if (berth__parse_i64(s, n, out) || *out < 0 || *out > hi)
        return bad(x, c, expected, err);
    return 0;
}

/* A time column: *given = 1 and *out when the field is not empty. */
static int time_col(struct ctx *x, enum col c, int64_t *out, int *given, struct berth_err *err)
{
    size_t n;
    const char *s = fv(x, c, &n);
    *given = 0;
    if (!n)
        return 0;
    if (berth__parse_seconds_us(s, n, out) || *out < 0 || *out > MAX_TIME_US)
        return bad(x, c, "a time in seconds >= 0", err);
    *given = 1;
    return 0;
}

static int header(struct ctx *x, struct berth_err *err)
{
    const char *path = x->L->path;
    for (int c = 0; c < NCOLS; c++)
        x->idx[c] = -1;
    x->nfields = berth__csv_nfields(x->csv);
    for (size_t i = 0; i < x->nfields; i++) {
        const char *h = berth__csv_field(x->csv, i);
        if (i == 0 && !strncmp(h, "\xEF\xBB\xBF", 3))
            h += 3; /* UTF-8 byte-order mark */
        int found = -1;
        for (int c = 0; c < NCOLS; c++)
            if (!strcmp(h, colname[c]))
                found = c;
        if (found < 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: column %zu: expected an openb pod-list column (name, "
                                 "cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos, "
                                 "pod_phase, creation_time, deletion_time, scheduled_time), "
                                 "found \"%.40s\"",
                                 path, i + 1, h);
        if (x->idx[found] >= 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: column %s: expected once, found twice (columns %d and "
                                 "%zu)",
                                 path, h, x->idx[found] + 1, i + 1);
        x->idx[found] = (int)i;
    }
    for (int c = C_NAME; c <= C_MILLI; c++)
        if (x->idx[c] < 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: column %s: expected in the header (required: name, "
                                 "cpu_milli, memory_mib, num_gpu, gpu_milli), found no such "
                                 "column",
                                 path, colname[c]);
    if (x->idx[C_DELETE] >= 0 && x->idx[C_CREATE] < 0)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:1: column creation_time: expected with deletion_time, found "
                             "no such column",
                             path);
    return 0;
}

/* gpu_spec "V100M16|V100M32" as "v100m16|v100m32" in buf; 0, or -1 when a part is not a
 * type name. Empty and "nan" give "". */
static int gpu_spec(const char *s, size_t n, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    if (n == 3 && !strncmp(s, "nan", 3))
        return 0;
    for (size_t i = 0; n && i <= n;) {
        size_t len = 0;
        while (i + len < n && s[i + len] != '|')
            len++;
        if (!berth__cluster_type_name_ok(s + i, len))
            return -1;
        char part[32];
        for (size_t k = 0; k < len; k++)
            part[k] = (char)(s[i + k] >= 'A' && s[i + k] <= 'Z' ? s[i + k] - 'A' + 'a' : s[i + k]);
        part[len] = '\0';
        int dup = 0;
        for (const char *q = buf; *q && !dup;) {
            size_t ql = strcspn(q, "|");
            dup = ql == len && !memcmp(q, part, len);
            q += ql + (q[ql] == '|');
        }
        if (!dup) {
            if (o + len + 2 > cap)
                return -1;
            if (o)
                buf[o++] = '|';
            memcpy(buf + o, part, len + 1);
            o += len;
        }
        i += len + 1;
    }
    return 0;
}

/* The job's CPU and memory demands (for the whole job). */
static void set_cpu_mem(struct berth_jobspec *js, int64_t cpu_milli, int64_t mem_mib)
{
    js->cpu_milli = cpu_milli;
    js->mem_mib = mem_mib;
}

static int row(struct ctx *x, struct berth_err *err)
{
    struct berth_trace *t = x->L->t;
    struct berth_jobspec js;
    berth__jobspec_defaults(&js);
    js.line = berth__csv_line(x->csv);
    js.single_server = 1;
    size_t nf = berth__csv_nfields(x->csv), n;
    int rc;
    if (nf != x->nfields) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected %zu fields as in the header, found %zu", x->nfields,
                 nf);
        rc = berth__load_bad_row(x->L, js.line, msg, err);
        return rc ? rc : ROW_SKIPPED;
    }
    const char *s = fv(x, C_NAME, &n);
    if (n == 0 || n > 255)
        return bad(x, C_NAME, "a non-empty pod name of at most 255 bytes", err);
    const char *name = s;
    size_t name_len = n;
    int64_t cpu, mem, gpus, milli;
    if ((rc = int_col(x, C_CPU, INT64_C(1000000000), "a CPU request in millicores >= 0", &cpu,
                      err)) ||
        (rc = int_col(x, C_MEM, INT64_C(1) << 40, "a memory request in MiB >= 0", &mem, err)) ||
        (rc = int_col(x, C_GPUS, MAX_GPUS_PER_JOB, "a whole number of GPUs >= 0", &gpus, err)))
        return rc;
    s = fv(x, C_MILLI, &n);
    if (gpus == 0) {
        if (n && (berth__parse_i64(s, n, &milli) || milli < 0 || milli > 1000))
            return bad(x, C_MILLI, "a share of one GPU in 1/1000, 0 to 1000", err);
    } else if (gpus == 1) {
        if (berth__parse_i64(s, n, &milli) || milli < 1 || milli > 1000)
            return bad(x, C_MILLI, "a share of one GPU in 1/1000, 1 to 1000", err);
        js.gpu_share_milli = (int32_t)milli;
    } else if (berth__parse_i64(s, n, &milli) || milli != 1000) {
        return bad(x, C_MILLI, "1000 (a fractional share needs num_gpu = 1)", err);
    }
    char spec[256];
    s = fv(x, C_SPEC, &n);
    if (gpu_spec(s, n, spec, sizeof spec))
        return bad(x, C_SPEC,
                   "GPU model names separated by '|' (letters, digits, '-', '_', '.'; at most 31 "
                   "each, 255 in all)",
                   err);
    s = fv(x, C_QOS, &n);
    if (n > 255)
        return bad(x, C_QOS, "at most 255 bytes", err);
    const char *qos = s;
    size_t qos_len = n;
    size_t phase_len;
    const char *phase = fv(x, C_PHASE, &phase_len);
    if (phase_len > 255)
        return bad(x, C_PHASE, "at most 255 bytes", err);
    int64_t create = 0, del = 0;
    if (x->idx[C_CREATE] >= 0) {
        int given;
        if ((rc = time_col(x, C_CREATE, &create, &given, err)))
            return rc;
        if (!given)
            return bad(x, C_CREATE, "a time in seconds >= 0", err);
        if ((rc = time_col(x, C_DELETE, &del, &given, err)))
            return rc;
        if (!given)
            del = -1; /* unknown */
        if (create > x->last_us)
            x->last_us = create;
        if (del > x->last_us)
            x->last_us = del;
        js.arrival_us = create; /* absolute until every row is read */
        /* 0: censored, set at the end; a pod deleted the instant it was made lives 1 us, the
         * shortest time berth has */
        js.duration_us = del > create ? del - create : del == create ? 1 : 0;
    } else {
        js.duration_us = NO_TIMES_DURATION;
    }
    /* a CPU-only pod (num_gpu 0) stays: it holds CPU and memory on one node; one that asks
     * for nothing at all is no job */
    if (gpus == 0 && cpu == 0 && mem == 0) {
        berth__load_exclude(x->L, js.line, "pod asks for no GPU, CPU or memory");
        return ROW_SKIPPED;
    }
    js.num_gpus = js.min_gpus = js.max_gpus = (int32_t)gpus;
    set_cpu_mem(&js, cpu, mem);
    js.id = berth__trace_str(t, name, name_len);
    js.gpu_type = gpus ? berth__trace_str(t, spec, strlen(spec)) : ""; /* no GPU, no model */
    js.queue = berth__trace_str(t, qos, qos_len);
    js.status = berth__trace_str(t, phase, phase_len);
    if (!js.id || !js.gpu_type || !js.queue || !js.status || berth__trace_push(t, &js))
        return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", x->L->path, js.line);
    return 0;
}

int berth__load_openb(struct berth__load *L, struct berth_err *err)
{
    struct ctx x = {.L = L};
    int rc = berth__csv_open(&x.csv, L->path, ',', err);
    if (rc)
        return rc;
    rc = berth__csv_next(x.csv, err);
    if (rc == 0)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s:1: expected the header name,cpu_milli,memory_mib,num_gpu,"
                           "gpu_milli,..., found an empty file",
                           L->path);
    else if (rc > 0)
        rc = header(&x, err);
    while (rc == 0) {
        rc = berth__csv_next(x.csv, err);
        if (rc <= 0)
            break;
        L->rep->rows++;
        rc = row(&x, err);
        if (rc == ROW_SKIPPED)
            rc = 0;
    }
    berth__csv_close(x.csv);
    if (rc || x.idx[C_CREATE] < 0)
        return rc;
    struct berth_trace *t = L->t;
    int64_t origin = INT64_MAX;
    for (size_t i = 0; i < t->n; i++)
        if (t->jobs[i].arrival_us < origin)
            origin = t->jobs[i].arrival_us;
    for (size_t i = 0; i < t->n; i++) {
        struct berth_jobspec *j = &t->jobs[i];
        if (j->duration_us == 0) /* censored: held until the file's last time */
            j->duration_us = x.last_us > j->arrival_us ? x.last_us - j->arrival_us : BERTH_US_PER_S;
        j->arrival_us -= origin;
    }
    return 0;
}
