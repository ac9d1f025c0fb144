/* berth's native CSV trace: reading and writing.
 *
 * Header required. Required columns job_id, arrival_s, duration_s, num_gpus; optional
 * job_type, total_steps, user, queue, gpu_type, min_gpus, max_gpus, gpu_share, gpu_mem_mib,
 * priority, single_server, cpus, mem_mib, restart_s, persist_mib, ephem_mib, time_limit_s,
 * topology, topology_preferred (levels: docs/topology.md), tp
 * (run time after which the job is stopped: it times out; empty or 0 = none); duration_s may be
 * empty on a row with job_type and total_steps (its work is in steps); any other column must start
 * with "x_" (kept for the user, ignored by berth). Columns may come in any order; an empty optional
 * field means its default. Times are decimal seconds, read exactly to the microsecond. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/columns.h"
#include "model/topo.h"
#include "util/num.h"

enum col {
    C_ID,
    C_ARRIVAL,
    C_DURATION,
    C_GPUS,
    C_TYPE,
    C_STEPS,
    C_USER,
    C_QUEUE,
    C_GPU_TYPE,
    C_MIN,
    C_MAX,
    C_SHARE,
    C_MEM,
    C_PRIO,
    C_SINGLE,
    C_CPUS,
    C_HOSTMEM,
    C_RESTART,
    C_PERSIST,
    C_EPHEM,
    C_LIMIT,
    C_TOPO,
    C_TOPO_PREF,
    C_TP,
    NCOLS
};

static const char *const colname[NCOLS] = {
    "job_id",
    "arrival_s",
    "duration_s",
    "num_gpus",
    "job_type",
    "total_steps",
    "user",
    "queue",
    "gpu_type",
    "min_gpus",
    "max_gpus",
    "gpu_share",
    "gpu_mem_mib",
    "priority",
    "single_server",
    "cpus",
    "mem_mib",
    "restart_s",
    "persist_mib",
    "ephem_mib",
    "time_limit_s",
    "topology",
    "topology_preferred",
    "tp",
};

#define MAX_GPUS_PER_JOB 1000000

static const struct berth__cols_spec cols_spec = {
    .names = colname,
    .ncols = NCOLS,
    .nrequired = C_GPUS + 1,
    .unknown = "a native column name",
    .prefix = "x_",
    .empty = "a header line (job_id,arrival_s,duration_s,num_gpus...)",
};

static int row(struct berth__cols *x, struct berth_trace *t, struct berth_err *err)
{
    struct berth_jobdesc js;
    berth__jobspec_defaults(&js);
    js.spec.line = berth__cols_line(x);
    int rc;
    size_t n;
    const char *s;
    int64_t v;

    s = berth__cols_get(x, C_ID, &n);
    if (n == 0 || n > 255)
        return berth__cols_bad(x, C_ID, "a non-empty id of at most 255 bytes", err);
    if (!(js.spec.id = berth__trace_str(t, s, n)))
        goto nomem;

    s = berth__cols_get(x, C_ARRIVAL, &n);
    if (berth__parse_seconds_us(s, n, &js.spec.arrival_us) || js.spec.arrival_us < 0)
        return berth__cols_bad(x, C_ARRIVAL, "a time in seconds >= 0", err);
    s = berth__cols_get(x, C_DURATION, &n);
    int by_steps = n == 0 && berth__cols_present(x, C_STEPS) && berth__cols_present(x, C_TYPE);
    if (!by_steps &&
        (berth__parse_seconds_us(s, n, &js.spec.duration_us) || js.spec.duration_us <= 0))
        return berth__cols_bad(x, C_DURATION,
                               "a duration in seconds > 0 (at least 1 microsecond; empty only with "
                               "job_type and total_steps)",
                               err);
    if (js.spec.arrival_us > BERTH_MAX_TIME_US || js.spec.duration_us > BERTH_MAX_TIME_US)
        return berth__cols_bad(x, js.spec.arrival_us > BERTH_MAX_TIME_US ? C_ARRIVAL : C_DURATION,
                               "a time of at most 10^12 seconds", err);
    if ((rc = berth__cols_int(x, C_GPUS, 0, MAX_GPUS_PER_JOB, "a whole number of GPUs >= 1", &v,
                              err)))
        return rc;
    js.spec.num_gpus = js.spec.min_gpus = js.spec.max_gpus = (int32_t)v;

    if (berth__cols_present(x, C_MIN)) {
        if ((rc =
                 berth__cols_int(x, C_MIN, js.spec.num_gpus ? 1 : 0, js.spec.num_gpus,
                                 "a GPU count from 1 to num_gpus (0 for a CPU-only job)", &v, err)))
            return rc;
        js.spec.min_gpus = (int32_t)v;
    }
    if (berth__cols_present(x, C_MAX)) {
        if ((rc = berth__cols_int(x, C_MAX, js.spec.num_gpus, MAX_GPUS_PER_JOB,
                                  "a GPU count >= num_gpus", &v, err)))
            return rc;
        js.spec.max_gpus = (int32_t)v;
    }
    if (berth__cols_present(x, C_SHARE)) {
        s = berth__cols_get(x, C_SHARE, &n);
        if (berth__parse_scaled(s, n, 6, &v) || v <= 0 || v > 1000000 || v % 1000)
            return berth__cols_bad(x, C_SHARE, "a share of one GPU in (0, 1], at most 3 decimals",
                                   err);
        v /= 1000;
        if (v < 1000 && js.spec.num_gpus != 1)
            return berth__cols_bad(x, C_SHARE, "1 (a fractional share needs num_gpus = 1)", err);
        js.spec.gpu_share_milli = (int16_t)v;
    }
    if (berth__cols_present(x, C_MEM)) {
        if ((rc = berth__cols_int(x, C_MEM, 0, INT64_C(1) << 40, "a memory size in MiB >= 0", &v,
                                  err)))
            return rc;
        js.x.gpu_mem_mib = v;
    }
    if (berth__cols_present(x, C_STEPS)) {
        if ((rc = berth__cols_int(x, C_STEPS, 1, INT64_MAX, "a whole number of steps >= 1", &v,
                                  err)))
            return rc;
        js.spec.total_steps = v;
    }
    if (berth__cols_present(x, C_PRIO)) {
        if ((rc = berth__cols_int(x, C_PRIO, -1000000, 1000000,
                                  "an integer priority in [-1000000, 1000000]", &v, err)))
            return rc;
        js.spec.priority = (int32_t)v;
    }
    if (berth__cols_present(x, C_CPUS)) {
        s = berth__cols_get(x, C_CPUS, &n);
        if (berth__parse_scaled(s, n, 3, &v) || v < 0 || v > INT64_C(1) << 40)
            return berth__cols_bad(x, C_CPUS, "a number of CPU cores >= 0 (3 decimals at most)",
                                   err);
        js.x.cpu_milli = v;
    }
    if (berth__cols_present(x, C_HOSTMEM)) {
        if ((rc = berth__cols_int(x, C_HOSTMEM, 0, INT64_C(1) << 40, "a memory size in MiB >= 0",
                                  &v, err)))
            return rc;
        js.x.mem_mib = v;
    }
    if (berth__cols_present(x, C_RESTART)) {
        s = berth__cols_get(x, C_RESTART, &n);
        if (berth__parse_seconds_us(s, n, &js.x.restart_us) || js.x.restart_us < 0 ||
            js.x.restart_us > BERTH_MAX_TIME_US)
            return berth__cols_bad(x, C_RESTART, "a restart cost in seconds >= 0", err);
    }
    if (berth__cols_present(x, C_LIMIT)) {
        s = berth__cols_get(x, C_LIMIT, &n);
        if (berth__parse_seconds_us(s, n, &js.x.time_limit_us) || js.x.time_limit_us < 0 ||
            js.x.time_limit_us > BERTH_MAX_TIME_US)
            return berth__cols_bad(x, C_LIMIT, "a time limit in seconds >= 0 (0: none)", err);
    }
    for (int k = 0; k < 2; k++) { /* topology, topology_preferred: a level name */
        int c = k ? C_TOPO_PREF : C_TOPO;
        if (!berth__cols_present(x, c))
            continue;
        char b[16];
        s = berth__cols_get(x, c, &n);
        int l = -1;
        if (n < sizeof b) {
            memcpy(b, s, n);
            b[n] = 0;
            l = berth__topo_level_find(b);
        }
        if (l < 0)
            return berth__cols_bad(x, c, "a topology level: nvlink, node, rack, block or cluster",
                                   err);
        *(k ? &js.x.topo_preferred : &js.x.topo_required) = (int8_t)(l + 1);
    }
    if (js.x.topo_required && js.x.topo_preferred >= js.x.topo_required)
        return berth__cols_bad(x, C_TOPO_PREF,
                               "a level below the required one (column topology) or empty", err);
    if (berth__cols_present(x, C_TP)) {
        if ((rc = berth__cols_int(x, C_TP, 1, MAX_GPUS_PER_JOB, "a tensor-parallel degree >= 1", &v,
                                  err)))
            return rc;
        if (js.spec.num_gpus % v || js.spec.min_gpus % v || js.spec.max_gpus % v ||
            !js.spec.num_gpus)
            return berth__cols_bad(x, C_TP,
                                   "a degree that divides num_gpus (and min_gpus, max_gpus)", err);
        js.x.tp = v > 1 ? (int32_t)v : 0;
    }
    if (berth__cols_present(x, C_PERSIST) &&
        (rc = berth__cols_int(x, C_PERSIST, 0, INT64_C(1) << 40, "a memory size in MiB >= 0",
                              &js.x.persist_mib, err)))
        return rc;
    if (berth__cols_present(x, C_EPHEM) &&
        (rc = berth__cols_int(x, C_EPHEM, 0, INT64_C(1) << 40, "a memory size in MiB >= 0",
                              &js.x.ephem_mib, err)))
        return rc;
    if (js.spec.num_gpus == 0 && js.x.cpu_milli == 0 && js.x.mem_mib == 0)
        return berth__cols_bad(
            x, C_GPUS, "a whole number of GPUs >= 1 (0 only for a CPU-only job with cpus)", err);
    if (berth__cols_present(x, C_SINGLE)) {
        s = berth__cols_get(x, C_SINGLE, &n);
        if (n == 1 && (s[0] == '0' || s[0] == '1'))
            js.spec.single_server = s[0] == '1';
        else if (!strcmp(s, "true") || !strcmp(s, "false"))
            js.spec.single_server = s[0] == 't';
        else
            return berth__cols_bad(x, C_SINGLE, "0, 1, true or false", err);
    }
    struct {
        enum col c;
        const char **dst;
    } strs[] = {{C_TYPE, &js.x.job_type},
                {C_USER, &js.x.user},
                {C_QUEUE, &js.spec.queue},
                {C_GPU_TYPE, &js.x.gpu_type}};
    for (size_t k = 0; k < sizeof strs / sizeof *strs; k++)
        if (berth__cols_present(x, strs[k].c)) {
            s = berth__cols_get(x, strs[k].c, &n);
            if (n > 255)
                return berth__cols_bad(x, strs[k].c, "at most 255 bytes", err);
            if (!(*strs[k].dst = berth__trace_intern(t, s, n)))
                goto nomem;
        }
    if (berth__trace_push(t, &js))
        goto nomem;
    return 0;
nomem:
    return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", x->path, js.spec.line);
}

int berth__load_native(struct berth__load *L, struct berth_err *err)
{
    struct berth__cols x;
    int rc = berth__cols_open(&x, &cols_spec, L->path, L, err);
    while (rc == 0 && (rc = berth__cols_next(&x, err)) > 0)
        if ((rc = row(&x, L->t, err)) == BERTH__ROW_SKIPPED)
            rc = 0;
    berth__cols_close(&x);
    return rc;
}

int berth_trace_write_native(FILE *f, const struct berth_jobspec *jobs, size_t n,
                             struct berth_err *err)
{
    int has[NCOLS] = {1, 1, 1, 1};
    for (size_t i = 0; i < n; i++) {
        const struct berth_jobspec *j = &jobs[i];
        has[C_TYPE] |= berth_jobspec_extra(j)->job_type[0] != 0;
        has[C_STEPS] |= j->total_steps != 0;
        has[C_USER] |= berth_jobspec_extra(j)->user[0] != 0;
        has[C_QUEUE] |= j->queue[0] != 0;
        has[C_GPU_TYPE] |= berth_jobspec_extra(j)->gpu_type[0] != 0;
        has[C_MIN] |= j->min_gpus != j->num_gpus;
        has[C_MAX] |= j->max_gpus != j->num_gpus;
        has[C_SHARE] |= j->gpu_share_milli != 1000;
        has[C_MEM] |= berth_jobspec_extra(j)->gpu_mem_mib != 0;
        has[C_PRIO] |= j->priority != 0;
        has[C_SINGLE] |= j->single_server != 0;
        has[C_CPUS] |= berth_jobspec_extra(j)->cpu_milli != 0;
        has[C_HOSTMEM] |= berth_jobspec_extra(j)->mem_mib != 0;
        has[C_RESTART] |= berth_jobspec_extra(j)->restart_us != 0;
        has[C_PERSIST] |= berth_jobspec_extra(j)->persist_mib != 0;
        has[C_EPHEM] |= berth_jobspec_extra(j)->ephem_mib != 0;
        has[C_LIMIT] |= berth_jobspec_extra(j)->time_limit_us != 0;
        has[C_TOPO] |= berth_jobspec_extra(j)->topo_required != 0;
        has[C_TOPO_PREF] |= berth_jobspec_extra(j)->topo_preferred != 0;
        has[C_TP] |= berth_jobspec_extra(j)->tp > 1;
    }
    int first = 1;
    for (int c = 0; c < NCOLS; c++)
        if (has[c]) {
            fprintf(f, "%s%s", first ? "" : ",", colname[c]);
            first = 0;
        }
    fputc('\n', f);
    char b1[32], b2[32];
    for (size_t i = 0; i < n; i++) {
        const struct berth_jobspec *j = &jobs[i];
        berth__csv_put(f, j->id);
        fprintf(f, ",%s,%s,%d", berth__fmt_us(b1, j->arrival_us),
                j->duration_us ? berth__fmt_us(b2, j->duration_us) : "", j->num_gpus);
        if (has[C_TYPE]) {
            fputc(',', f);
            berth__csv_put(f, berth_jobspec_extra(j)->job_type);
        }
        if (has[C_STEPS]) {
            if (j->total_steps)
                fprintf(f, ",%lld", (long long)j->total_steps);
            else
                fputc(',', f);
        }
        const char *ss[] = {berth_jobspec_extra(j)->user, j->queue,
                            berth_jobspec_extra(j)->gpu_type};
        for (int k = 0; k < 3; k++)
            if (has[C_USER + k]) {
                fputc(',', f);
                berth__csv_put(f, ss[k]);
            }
        if (has[C_MIN])
            fprintf(f, ",%d", j->min_gpus);
        if (has[C_MAX])
            fprintf(f, ",%d", j->max_gpus);
        if (has[C_SHARE])
            fprintf(f, ",%d.%03d", j->gpu_share_milli / 1000, j->gpu_share_milli % 1000);
        if (has[C_MEM])
            fprintf(f, ",%lld", (long long)berth_jobspec_extra(j)->gpu_mem_mib);
        if (has[C_PRIO])
            fprintf(f, ",%d", j->priority);
        if (has[C_SINGLE])
            fprintf(f, ",%d", j->single_server);
        if (has[C_CPUS])
            fprintf(f, ",%lld.%03lld", (long long)(berth_jobspec_extra(j)->cpu_milli / 1000),
                    (long long)(berth_jobspec_extra(j)->cpu_milli % 1000));
        if (has[C_HOSTMEM])
            fprintf(f, ",%lld", (long long)berth_jobspec_extra(j)->mem_mib);
        if (has[C_RESTART])
            fprintf(f, ",%s", berth__fmt_us(b1, berth_jobspec_extra(j)->restart_us));
        if (has[C_PERSIST])
            fprintf(f, ",%lld", (long long)berth_jobspec_extra(j)->persist_mib);
        if (has[C_EPHEM])
            fprintf(f, ",%lld", (long long)berth_jobspec_extra(j)->ephem_mib);
        if (has[C_LIMIT])
            fprintf(f, ",%s", berth__fmt_us(b1, berth_jobspec_extra(j)->time_limit_us));
        int8_t lv[2] = {berth_jobspec_extra(j)->topo_required,
                        berth_jobspec_extra(j)->topo_preferred};
        for (int k = 0; k < 2; k++)
            if (has[C_TOPO + k])
                fprintf(f, ",%s", lv[k] ? berth__topo_level_name(lv[k] - 1) : "");
        if (has[C_TP]) { /* empty for 1: a converted trace keeps its bytes */
            if (berth_jobspec_extra(j)->tp > 1)
                fprintf(f, ",%d", berth_jobspec_extra(j)->tp);
            else
                fputc(',', f);
        }
        fputc('\n', f);
    }
    if (ferror(f))
        return berth_err_set(err, BERTH_EIO, "write error while writing the trace");
    return 0;
}
