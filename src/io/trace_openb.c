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

#include "io/columns.h"
#include "io/loaders_alibaba.h"
#include "util/num.h"

#define MAX_GPUS_PER_JOB  1000000
#define MAX_TIME_US       INT64_C(1000000000000000000) /* 10^12 s */
#define NO_TIMES_DURATION (INT64_C(10000000) * BERTH_US_PER_S)

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

static const struct berth__cols_spec cols_spec = {
    .names = colname,
    .ncols = NCOLS,
    .nrequired = C_MILLI + 1,
    .unknown = "an openb pod-list column",
    .quote_max = 40,
    .empty = "the header name,cpu_milli,memory_mib,num_gpu,gpu_milli,...",
};

struct ctx {
    struct berth__cols c;
    int64_t last_us; /* largest creation or deletion time seen */
};

/* A time column: *given = 1 and *out when the field is not empty. */
static int time_col(struct ctx *x, int c, int64_t *out, int *given, struct berth_err *err)
{
    size_t n;
    const char *s = berth__cols_get(&x->c, c, &n);
    *given = 0;
    if (!n)
        return 0;
    if (berth__parse_seconds_us(s, n, out) || *out < 0 || *out > MAX_TIME_US)
        return berth__cols_bad(&x->c, c, "a time in seconds >= 0", err);
    *given = 1;
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

static int row(struct ctx *x, struct berth_err *err)
{
    struct berth_trace *t = x->c.L->t;
    struct berth_jobdesc js;
    berth__jobspec_defaults(&js);
    js.spec.line = berth__cols_line(&x->c);
    js.spec.single_server = 1;
    size_t n;
    int rc;
    const char *s = berth__cols_get(&x->c, C_NAME, &n);
    if (n == 0 || n > 255)
        return berth__cols_bad(&x->c, C_NAME, "a non-empty pod name of at most 255 bytes", err);
    const char *name = s;
    size_t name_len = n;
    int64_t cpu, mem, gpus, milli;
    if ((rc = berth__cols_int(&x->c, C_CPU, 0, INT64_C(1000000000),
                              "a CPU request in millicores >= 0", &cpu, err)) ||
        (rc = berth__cols_int(&x->c, C_MEM, 0, INT64_C(1) << 40, "a memory request in MiB >= 0",
                              &mem, err)) ||
        (rc = berth__cols_int(&x->c, C_GPUS, 0, MAX_GPUS_PER_JOB, "a whole number of GPUs >= 0",
                              &gpus, err)))
        return rc;
    s = berth__cols_get(&x->c, C_MILLI, &n);
    if (gpus == 0) {
        if (n && (berth__parse_i64(s, n, &milli) || milli < 0 || milli > 1000))
            return berth__cols_bad(&x->c, C_MILLI, "a share of one GPU in 1/1000, 0 to 1000", err);
    } else if (gpus == 1) {
        if (berth__parse_i64(s, n, &milli) || milli < 1 || milli > 1000)
            return berth__cols_bad(&x->c, C_MILLI, "a share of one GPU in 1/1000, 1 to 1000", err);
        js.spec.gpu_share_milli = (int16_t)milli;
    } else if (berth__parse_i64(s, n, &milli) || milli != 1000) {
        return berth__cols_bad(&x->c, C_MILLI, "1000 (a fractional share needs num_gpu = 1)", err);
    }
    char spec[256];
    s = berth__cols_get(&x->c, C_SPEC, &n);
    if (gpu_spec(s, n, spec, sizeof spec))
        return berth__cols_bad(
            &x->c, C_SPEC,
            "GPU model names separated by '|' (letters, digits, '-', '_', '.'; at most 31 "
            "each, 255 in all)",
            err);
    s = berth__cols_get(&x->c, C_QOS, &n);
    if (n > 255)
        return berth__cols_bad(&x->c, C_QOS, "at most 255 bytes", err);
    const char *qos = s;
    size_t qos_len = n;
    size_t phase_len;
    const char *phase = berth__cols_get(&x->c, C_PHASE, &phase_len);
    if (phase_len > 255)
        return berth__cols_bad(&x->c, C_PHASE, "at most 255 bytes", err);
    int64_t create = 0, del = 0;
    if (berth__cols_has(&x->c, C_CREATE)) {
        int given;
        if ((rc = time_col(x, C_CREATE, &create, &given, err)))
            return rc;
        if (!given)
            return berth__cols_bad(&x->c, C_CREATE, "a time in seconds >= 0", err);
        if ((rc = time_col(x, C_DELETE, &del, &given, err)))
            return rc;
        if (!given)
            del = -1; /* unknown */
        if (create > x->last_us)
            x->last_us = create;
        if (del > x->last_us)
            x->last_us = del;
        js.spec.arrival_us = create; /* absolute until every row is read */
        /* 0: censored, set at the end; a pod deleted the instant it was made lives 1 us, the
         * shortest time berth has */
        js.spec.duration_us = del > create ? del - create : del == create ? 1 : 0;
    } else {
        js.spec.duration_us = NO_TIMES_DURATION;
    }
    /* a CPU-only pod (num_gpu 0) stays: it holds CPU and memory on one node; one that asks
     * for nothing at all is no job */
    if (gpus == 0 && cpu == 0 && mem == 0) {
        berth__load_exclude(x->c.L, js.spec.line, "pod asks for no GPU, CPU or memory");
        return BERTH__ROW_SKIPPED;
    }
    js.spec.num_gpus = js.spec.min_gpus = js.spec.max_gpus = (int32_t)gpus;
    js.x.cpu_milli = cpu;
    js.x.mem_mib = mem;
    js.spec.id = berth__trace_str(t, name, name_len);
    js.x.gpu_type = gpus ? berth__trace_intern(t, spec, strlen(spec)) : ""; /* no GPU, no model */
    js.spec.queue = berth__trace_intern(t, qos, qos_len);
    js.x.status = berth__trace_intern(t, phase, phase_len);
    if (!js.spec.id || !js.x.gpu_type || !js.spec.queue || !js.x.status ||
        berth__trace_push(t, &js))
        return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", x->c.L->path, js.spec.line);
    return 0;
}

int berth__load_openb(struct berth__load *L, struct berth_err *err)
{
    struct ctx x = {0};
    int rc = berth__cols_open(&x.c, &cols_spec, L->path, L, err);
    if (rc == 0 && berth__cols_has(&x.c, C_DELETE) && !berth__cols_has(&x.c, C_CREATE))
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s:%u: column creation_time: expected with deletion_time, found no "
                           "such column",
                           L->path, x.c.line);
    while (rc == 0 && (rc = berth__cols_next(&x.c, err)) > 0)
        if ((rc = row(&x, err)) == BERTH__ROW_SKIPPED)
            rc = 0;
    berth__cols_close(&x.c);
    if (rc || !berth__cols_has(&x.c, C_CREATE))
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
