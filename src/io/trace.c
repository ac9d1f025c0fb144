/* The format registry and detection, and the checks every loaded job passes (the bad-row
 * accounting is bad_rows.c; the trace object itself and the check before a run are the
 * model's: model/trace.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/cluster.h"
#include "io/columns.h"
#include "io/loaders_alibaba.h"
#include "io/loaders_peers.h"
#include "io/loaders_sense.h"
#include "io/trace_int.h"
#include "util/csv.h"
#include "util/hash.h"
#include "util/num.h"

struct format {
    const char *name;
    berth__loader_fn load;
    const char *header_start;       /* detected when the first line starts with this */
    int (*sniff)(const char *line); /* or when this says so (may be NULL) */
};

/* Gavel's trace TSV has no header: 7, 10 or 12 tab-separated fields. */
static int sniff_gavel(const char *line)
{
    int tabs = 0;
    for (const char *p = line; *p && *p != '\n'; p++)
        tabs += *p == '\t';
    return tabs == 6 || tabs == 9 || tabs == 11;
}

/* Tiresias' duration-only files: the loader explains why they are not job lists. */
static int sniff_duration_only(const char *line)
{
    return !strncmp(line, "duration", 8) && strspn(line + 8, "\r\n") == strlen(line + 8);
}

/* Order matters: a more specific header comes before a prefix of it (tiresias' job_id,num_gpu
 * before native's job_id,). */
static const struct format formats[] = {
    {"philly", berth__load_philly, "[", NULL},
    {"helios", berth__load_helios, "job_id,user,vc,gpu_num", NULL},
    {"acme", berth__load_acme, "job_id,user,node_num,gpu_num", NULL},
    {"tiresias", berth__load_tiresias, "job_id,num_gpu,", sniff_duration_only},
    {"native", berth__load_native, "job_id,", NULL},
    {"philly-pollux", berth__load_philly_pollux, "timestamp,duration,num_gpus", NULL},
    {"pollux", berth__load_pollux, "name,time,application,num_replicas,batch_size", NULL},
    {"gavel", berth__load_gavel, NULL, sniff_gavel},
    {"openb", berth__load_openb, "name,cpu_milli,memory_mib,num_gpu,gpu_milli", NULL},
    {"pai2020", berth__load_pai2020, "job_name,inst_id,user,status", NULL},
};

#define NFORMATS (sizeof formats / sizeof *formats)

const char *const *berth_trace_formats(void)
{
    static const char *names[NFORMATS + 1];
    for (size_t i = 0; i < NFORMATS; i++)
        names[i] = formats[i].name;
    return names;
}

static void format_list(char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NFORMATS && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", formats[i].name);
}

int berth__trace_check_ids(struct berth_trace *t, struct berth__load *L, struct berth_err *err)
{
    size_t cap = 16;
    while (cap < t->n * 2)
        cap *= 2;
    uint32_t *slot = malloc(cap * sizeof *slot);
    if (!slot)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", t->path);
    memset(slot, 0xff, cap * sizeof *slot);
    int rc = 0;
    size_t kept = 0;
    for (size_t i = 0; i < t->n && !rc; i++) {
        size_t h = (size_t)berth__hash_str(t->jobs[i].id) & (cap - 1);
        int dup = 0;
        for (;; h = (h + 1) & (cap - 1)) {
            if (slot[h] == UINT32_MAX)
                break;
            const struct berth_jobspec *o = &t->jobs[slot[h]];
            if (!strcmp(o->id, t->jobs[i].id)) {
                char msg[160];
                snprintf(msg, sizeof msg,
                         "column job_id: expected a unique id, found \"%.60s\", "
                         "already used on line %u",
                         t->jobs[i].id, o->line);
                if (L && L->lenient) {
                    berth__load_bad_row(L, t->jobs[i].line, "column job_id: expected a unique id",
                                        err);
                    dup = 1;
                } else {
                    rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: %s", t->path, t->jobs[i].line,
                                       msg);
                }
                break;
            }
        }
        if (dup || rc)
            continue;
        t->jobs[kept] = t->jobs[i];
        slot[h] = (uint32_t)kept++;
    }
    if (!rc)
        t->n = kept;
    free(slot);
    return rc;
}

/* Reads the first non-blank line of path to pick a format. */
static const struct format *format_named(const char *name)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (!strcmp(formats[i].name, name))
            return &formats[i];
    return NULL;
}

static int detect(const char *path, const struct format **f, struct berth_err *err)
{
    /* PAI 2020's tables have no header: they come as a folder or as "JOBS,TASKS" */
    struct stat st;
    if ((stat(path, &st) == 0 && S_ISDIR(st.st_mode)) ||
        (stat(path, &st) != 0 && strchr(path, ','))) {
        *f = format_named("pai2020");
        return 0;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return berth_err_set(err, BERTH_EIO, "%s: cannot open the trace: %s", path,
                             strerror(errno));
    char line[512] = "";
    do /* the first line that is not blank */
        if (!fgets(line, sizeof line, fp))
            line[0] = '\0';
    while (line[0] && strspn(line, "\r\n") == strlen(line));
    fclose(fp);
    const char *p = berth__cols_skip_bom(line);
    for (size_t i = 0; i < NFORMATS; i++)
        if ((formats[i].header_start &&
             !strncmp(p, formats[i].header_start, strlen(formats[i].header_start))) ||
            (formats[i].sniff && formats[i].sniff(p))) {
            *f = &formats[i];
            return 0;
        }
    /* native columns may come in any order */
    if (strstr(p, "job_id") && strstr(p, "arrival_s")) {
        *f = format_named("native");
        return 0;
    }
    char names[256];
    format_list(names, sizeof names);
    line[strcspn(line, "\r\n")] = '\0';
    return berth_err_set(err, BERTH_EINPUT,
                         "%s:1: cannot tell the trace format from the header \"%.80s\"; name it "
                         "with --format (%s)",
                         path, line, names);
}

/* What every loaded job must satisfy, whatever its format: the framework checks it once so
 * that a loader's slip is caught as bad input (and a trace that loads can always be written
 * as native CSV and read back). In lenient mode offenders are dropped and counted. */
static const char *job_problem(const struct berth_jobspec *j, const char **column)
{
    const char *strs[] = {
        j->id,    berth_jobspec_extra(j)->job_type, berth_jobspec_extra(j)->user,
        j->queue, berth_jobspec_extra(j)->gpu_type, berth_jobspec_extra(j)->status};
    const char *names[] = {"job_id", "job_type", "user", "queue", "gpu_type", "status"};
    for (int k = 0; k < 6; k++) {
        *column = names[k];
        if (strlen(strs[k]) > BERTH_MAX_TEXT)
            return "at most 255 bytes";
    }
    *column = "job_id";
    if (!j->id[0])
        return "a non-empty id";
    *column = "arrival_s";
    if (j->arrival_us < 0 || j->arrival_us > BERTH_MAX_TIME_US)
        return "a time from 0 to 10^12 seconds";
    *column = "duration_s";
    if ((j->duration_us <= 0 &&
         !(j->duration_us == 0 && j->total_steps > 0 && berth_jobspec_extra(j)->job_type[0])) ||
        j->duration_us > BERTH_MAX_TIME_US)
        return "a duration from 1 microsecond to 10^12 seconds (none only with job_type and "
               "total_steps)";
    *column = "restart_s";
    if (berth_jobspec_extra(j)->restart_us < 0 ||
        berth_jobspec_extra(j)->restart_us > BERTH_MAX_TIME_US)
        return "a restart cost from 0 to 10^12 seconds";
    *column = "num_gpus";
    if (j->num_gpus < 0 || j->min_gpus < 0 || j->min_gpus > j->num_gpus ||
        j->max_gpus < j->num_gpus ||
        (j->num_gpus == 0 && (j->max_gpus != 0 || (!berth_jobspec_extra(j)->cpu_milli &&
                                                   !berth_jobspec_extra(j)->mem_mib))))
        return "a gang of GPUs within min_gpus..max_gpus (0 only for a CPU-only job with cpus "
               "or memory)";
    *column = "gpu_share";
    if (j->gpu_share_milli < 1 || j->gpu_share_milli > 1000 ||
        (j->gpu_share_milli < 1000 && j->num_gpus != 1))
        return "a share in (0, 1], below 1 only for 1 GPU";
    *column = "cpus";
    const int64_t most = INT64_C(1) << 40; /* what native CSV reads back */
    if (berth_jobspec_extra(j)->cpu_milli < 0 || berth_jobspec_extra(j)->mem_mib < 0 ||
        berth_jobspec_extra(j)->gpu_mem_mib < 0 || j->total_steps < 0 ||
        berth_jobspec_extra(j)->cpu_milli > most || berth_jobspec_extra(j)->mem_mib > most ||
        berth_jobspec_extra(j)->gpu_mem_mib > most)
        return "amounts from 0 to 2^40 (CPU in 1/1000 cores, memory in MiB)";
    *column = "persist_mib";
    if (berth_jobspec_extra(j)->persist_mib < 0 || berth_jobspec_extra(j)->ephem_mib < 0 ||
        berth_jobspec_extra(j)->persist_mib > most || berth_jobspec_extra(j)->ephem_mib > most)
        return "memory sizes from 0 to 2^40 MiB";
    return NULL;
}

static int validate_jobs(struct berth__load *L, struct berth_err *err)
{
    struct berth_trace *t = L->t;
    size_t kept = 0;
    for (size_t i = 0; i < t->n; i++) {
        const char *column, *what = job_problem(&t->jobs[i], &column);
        if (what) {
            int rc = berth__load_bad(L, t->jobs[i].line, column, what, NULL, 0, err);
            if (rc)
                return rc;
            continue;
        }
        t->jobs[kept++] = t->jobs[i];
    }
    t->n = kept;
    return 0;
}

int berth_trace_load_opts(const char *path, const struct berth_load_opts *o,
                          struct berth_load_report *rep, struct berth_trace **out,
                          struct berth_err *err)
{
    struct berth_load_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    const char *format = o ? o->format : NULL;
    const struct format *f = NULL;
    if (!format || !strcmp(format, "auto")) {
        int rc = detect(path, &f, err);
        if (rc)
            return rc;
    } else {
        for (size_t i = 0; i < NFORMATS; i++)
            if (!strcmp(format, formats[i].name))
                f = &formats[i];
        if (!f) {
            char names[256];
            format_list(names, sizeof names);
            return berth_err_set(err, BERTH_EINPUT,
                                 "--format: unknown trace format '%s' (expected auto, %s)", format,
                                 names);
        }
    }
    struct berth__load L = {path,
                            o ? o->lenient : 0,
                            rep,
                            berth__trace_new(path),
                            o ? o->progress : NULL,
                            o ? o->progress_ctx : NULL};
    if (!L.t)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    int rc = f->load(&L, err);
    if (!rc)
        rc = validate_jobs(&L, err);
    if (!rc && L.t->n == 0)
        rc = berth_err_set(err, BERTH_EINPUT, "%s: expected at least one job, found none%s", path,
                           rep->skipped ? " (every row was left out)" : "");
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

int berth_trace_load(const char *path, const char *format, struct berth_trace **out,
                     struct berth_err *err)
{
    struct berth_load_opts o = {.format = format};
    return berth_trace_load_opts(path, &o, NULL, out, err);
}
