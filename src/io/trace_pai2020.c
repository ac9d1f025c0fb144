/* Loader for Alibaba PAI 2020 (alibaba/clusterdata @ 7a6c496e, cluster-trace-gpu-v2020/data:
 * pai_job_table.csv and pai_task_table.csv; header-less CSVs, names in the *.header files).
 *
 * The path is a directory holding both tables, or "JOBTABLE,TASKTABLE". One job-table row
 * (job_name, inst_id, user, status, start_time = submit, end_time; seconds) is one job; its
 * task rows (job_name, task_name, inst_num, status, start_time, end_time, plan_cpu in % of a
 * core, plan_mem in GB, plan_gpu in % of one GPU, gpu_type) are summed over inst_num
 * instances. The task table is read first into one compact record per job_name, then the job
 * table is streamed. A first row equal to the .header line is skipped.
 *   id = job_name; user kept; queue empty. Arrival = submit, relative to the earliest kept
 *   job. Duration = run time = job end_time - earliest task start_time (start 0 or empty =
 *   not started); 0 becomes 1 s (the trace's resolution, as Alibaba's simulator does).
 *   GPUs: G = sum inst_num x plan_gpu / 100. G < 1: one GPU, gpu_share_milli = G x 1000;
 *   G >= 1: num_gpus = G rounded up (berth shares a GPU only for single-GPU jobs, and
 *   rounding up never reserves less than the job asked for). cpu_milli = sum inst_num x
 *   plan_cpu x 10; mem_mib = sum inst_num x plan_mem x 1024. gpu_type = the one type of all
 *   GPU tasks, lower-cased (MISC = "misc|k40m|k80|m60"; CPU, empty or disagreeing = any).
 *   Left out (counted): status other than Terminated; no task rows; no GPU asked (CPU-only);
 *   no end_time (empty or 0); no task start_time; end_time before the first task start;
 *   task rows whose job_name is not in the job table. Task columns status and end_time, job
 *   column inst_id are not used; the times of jobs left out for their status are not read.
 *   Empty plan_cpu / plan_mem / plan_gpu mean 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/columns.h"
#include "io/loaders_alibaba.h"
#include "util/hash.h"
#include "util/num.h"

#define MAX_GPUS_PER_JOB 1000000
#define MAX_TIME_US      INT64_C(1000000000000000000) /* 10^12 s */
#define MAX_INSTANCES    1000000
#define SUM_LIMIT        (INT64_MAX / 4) /* sums saturate here */
#define NO_START         INT64_MAX
#define TYPE_NONE        0   /* no GPU task seen yet */
#define TYPE_ANY         255 /* GPU tasks without a type, or disagreeing */
#define MAX_TYPES        250
#define ROW_SKIPPED      1

enum { J_NAME, J_INST, J_USER, J_STATUS, J_START, J_END, J_NCOLS };
static const char *const jcols[J_NCOLS] = {"job_name", "inst_id",    "user",
                                           "status",   "start_time", "end_time"};
enum { T_JOB, T_TASK, T_INST, T_STATUS, T_START, T_END, T_CPU, T_MEM, T_GPU, T_TYPE, T_NCOLS };
static const char *const tcols[T_NCOLS] = {"job_name",   "task_name", "inst_num", "status",
                                           "start_time", "end_time",  "plan_cpu", "plan_mem",
                                           "plan_gpu",   "gpu_type"};

/* What the task table says about one job_name; records with their names inline lie end to
 * end in one buffer (a lookup touches one slot and one record). */
struct agg {
    int64_t gpu_milli, cpu_milli, mem_mib;
    int64_t start_us; /* earliest task start, NO_START when none */
    uint32_t line, ntasks;
    uint8_t type;     /* TYPE_NONE, TYPE_ANY or 1 + index into types */
    uint8_t used;     /* a job-table row named it */
    uint16_t namelen; /* the name follows, NUL-terminated */
    char name[];
};

struct pai {
    struct berth__load *L;
    struct berth_trace *t;
    struct berth__csv *csv;
    char *rec; /* the records, 8-byte aligned */
    size_t rlen, rcap;
    size_t n;       /* records */
    uint64_t *slot; /* open addressing: hash << 32 | (offset / 8 + 1); 0 = empty */
    size_t scap;
    struct {
        char raw[32];       /* as in the file */
        const char *mapped; /* berth's gpu_type, in the trace's arena */
    } types[MAX_TYPES];
    size_t ntypes;
    const char **users; /* interned user names (one copy each) */
    uint32_t *uhash;
    size_t nusers, ucap;
};

static uint32_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = berth__hash_bytes(BERTH_HASH_INIT, s, n);
    return (uint32_t)(h ^ (h >> 32));
}

static int64_t sat_add(int64_t a, int64_t b)
{
    return a > SUM_LIMIT - b ? SUM_LIMIT : a + b;
}

static int bad(struct pai *p, const char *const *cols, size_t i, const char *expected,
               struct berth_err *err)
{
    int rc = berth__load_bad(p->L, berth__csv_line(p->csv), cols[i], expected,
                             berth__csv_field(p->csv, i), berth__csv_len(p->csv, i), err);
    return rc ? rc : ROW_SKIPPED;
}

static int nomem(struct pai *p, struct berth_err *err)
{
    return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", p->L->path,
                         berth__csv_line(p->csv));
}

/* An optional non-negative decimal scaled by 10^scale, at most hi; empty = 0. */
static int opt_num(struct berth__csv *c, size_t i, int scale, int64_t hi, int64_t *out)
{
    *out = 0;
    if (!berth__csv_len(c, i))
        return 0;
    return berth__parse_scaled(berth__csv_field(c, i), berth__csv_len(c, i), scale, out) ||
           *out < 0 || *out > hi;
}

/* ---- the per-job records, hashed on job_name -------------------------------------------- */

static struct agg *rec_at(const struct pai *p, uint64_t slot)
{
    return (struct agg *)(void *)(p->rec + ((slot & 0xffffffffu) - 1) * 8);
}

static uint64_t *probe(struct pai *p, const char *s, size_t n, uint32_t h)
{
    for (size_t i = h & (p->scap - 1);; i = (i + 1) & (p->scap - 1)) {
        uint64_t k = p->slot[i];
        if (!k)
            return &p->slot[i];
        if ((uint32_t)(k >> 32) == h) {
            const struct agg *g = rec_at(p, k);
            if (g->namelen == n && !memcmp(g->name, s, n))
                return &p->slot[i];
        }
    }
}

static int rehash(struct pai *p)
{
    size_t ncap = p->scap ? p->scap * 2 : 1024;
    uint64_t *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t k = 0; k < p->scap; k++)
        if (p->slot[k]) {
            size_t i = (p->slot[k] >> 32) & (ncap - 1);
            while (ns[i])
                i = (i + 1) & (ncap - 1);
            ns[i] = p->slot[k];
        }
    free(p->slot);
    p->slot = ns;
    p->scap = ncap;
    return 0;
}

static struct agg *agg_get(struct pai *p, const char *s, size_t n, uint32_t line)
{
    uint32_t h = hash_bytes(s, n);
    if ((p->n + 1) * 2 > p->scap && rehash(p))
        return NULL;
    uint64_t *sl = probe(p, s, n, h);
    if (*sl)
        return rec_at(p, *sl);
    size_t size = (sizeof(struct agg) + n + 1 + 7) & ~(size_t)7;
    if (p->rlen + size > p->rcap) {
        size_t ncap = p->rcap ? p->rcap * 2 : (size_t)1 << 20;
        while (ncap < p->rlen + size)
            ncap *= 2;
        char *nr = realloc(p->rec, ncap);
        if (!nr)
            return NULL;
        p->rec = nr;
        p->rcap = ncap;
    }
    if (p->rlen / 8 >= UINT32_MAX - 1)
        return NULL;
    struct agg *g = (struct agg *)(void *)(p->rec + p->rlen);
    memset(g, 0, sizeof *g);
    memcpy(g->name, s, n);
    g->name[n] = '\0';
    g->namelen = (uint16_t)n;
    g->line = line;
    g->start_us = NO_START;
    *sl = (uint64_t)h << 32 | (p->rlen / 8 + 1);
    p->rlen += size;
    p->n++;
    return g;
}

static struct agg *agg_find(struct pai *p, const char *s, size_t n)
{
    if (!p->scap)
        return NULL;
    uint64_t *sl = probe(p, s, n, hash_bytes(s, n));
    return *sl ? rec_at(p, *sl) : NULL;
}

/* One copy of each user name in the trace's arena. */
static const char *user_intern(struct pai *p, const char *s, size_t n)
{
    if (!n)
        return "";
    if ((p->nusers + 1) * 2 > p->ucap) {
        size_t ncap = p->ucap ? p->ucap * 2 : 256;
        const char **nu = calloc(ncap, sizeof *nu);
        uint32_t *nh = calloc(ncap, sizeof *nh);
        if (!nu || !nh) {
            free(nu);
            free(nh);
            return NULL;
        }
        for (size_t k = 0; k < p->ucap; k++)
            if (p->users[k]) {
                size_t i = p->uhash[k] & (ncap - 1);
                while (nu[i])
                    i = (i + 1) & (ncap - 1);
                nu[i] = p->users[k];
                nh[i] = p->uhash[k];
            }
        free(p->users);
        free(p->uhash);
        p->users = nu;
        p->uhash = nh;
        p->ucap = ncap;
    }
    uint32_t h = hash_bytes(s, n);
    size_t i = h & (p->ucap - 1);
    for (; p->users[i]; i = (i + 1) & (p->ucap - 1))
        if (p->uhash[i] == h && !memcmp(p->users[i], s, n) && p->users[i][n] == '\0')
            return p->users[i];
    if (!(p->users[i] = berth__trace_str(p->t, s, n)))
        return NULL;
    p->uhash[i] = h;
    p->nusers++;
    return p->users[i];
}

/* The type code of a GPU task's gpu_type: TYPE_ANY, 1 + index, or -1 (bad name), -2 (too
 * many types), -3 (out of memory). */
static int type_code(struct pai *p, const char *s, size_t n)
{
    if (!n || (n == 3 && !memcmp(s, "CPU", 3)))
        return TYPE_ANY;
    if (!berth__cluster_type_name_ok(s, n))
        return -1;
    for (size_t k = 0; k < p->ntypes; k++)
        if (!strcmp(p->types[k].raw, s))
            return (int)k + 1;
    if (p->ntypes == MAX_TYPES)
        return -2;
    char low[32];
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    /* MISC stands for older GPUs (K40m, K80, M60); "misc" is how the PAI machine list names
     * them (cluster_pai2020.c), so the job fits either cluster. */
    const char *m = strcmp(low, "misc") ? low : "misc|k40m|k80|m60";
    const char *mapped = berth__trace_str(p->t, m, strlen(m));
    if (!mapped)
        return -3;
    memcpy(p->types[p->ntypes].raw, s, n + 1);
    p->types[p->ntypes].mapped = mapped;
    return (int)++p->ntypes;
}

/* ---- the two tables ---------------------------------------------------------------------- */

static int task_row(struct pai *p, struct berth_err *err)
{
    struct berth__csv *c = p->csv;
    uint32_t line = berth__csv_line(c);
    size_t nf = berth__csv_nfields(c);
    if (nf != T_NCOLS) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected %d fields (the columns of pai_task_table), found %zu",
                 T_NCOLS, nf);
        int rc = berth__load_bad_row(p->L, line, msg, err);
        return rc ? rc : ROW_SKIPPED;
    }
    size_t n = berth__csv_len(c, T_JOB);
    if (n == 0 || n > 255)
        return bad(p, tcols, T_JOB, "a non-empty job name of at most 255 bytes", err);
    int64_t inst, cpu, mem, gpu, start = NO_START;
    if (berth__parse_scaled(berth__csv_field(c, T_INST), berth__csv_len(c, T_INST), 3, &inst) ||
        inst < 0 || inst % 1000 || inst > INT64_C(1000) * MAX_INSTANCES)
        return bad(p, tcols, T_INST, "a whole number of instances from 0 to 1000000", err);
    inst /= 1000;
    if (opt_num(c, T_CPU, 1, INT64_C(100000000), &cpu))
        return bad(p, tcols, T_CPU, "a CPU request in percent of a core, 0 to 10000000 (empty = 0)",
                   err);
    if (opt_num(c, T_MEM, 6, INT64_C(1000000000000), &mem))
        return bad(p, tcols, T_MEM, "a memory request in GB, 0 to 1000000 (empty = 0)", err);
    if (opt_num(c, T_GPU, 1, 64000, &gpu))
        return bad(p, tcols, T_GPU, "a GPU request in percent of one GPU, 0 to 6400 (empty = 0)",
                   err);
    if (berth__csv_len(c, T_START)) {
        int64_t v;
        if (berth__parse_seconds_us(berth__csv_field(c, T_START), berth__csv_len(c, T_START), &v) ||
            v < 0 || v > MAX_TIME_US)
            return bad(p, tcols, T_START, "a time in seconds >= 0 (0 or empty = not started)", err);
        if (v > 0)
            start = v;
    }
    int type = TYPE_NONE;
    if (gpu > 0 && inst > 0) {
        type = type_code(p, berth__csv_field(c, T_TYPE), berth__csv_len(c, T_TYPE));
        if (type == -1)
            return bad(p, tcols, T_TYPE,
                       "a GPU type name (letters, digits, '-', '_', '.'; at most 31)", err);
        if (type == -2)
            return bad(p, tcols, T_TYPE, "one of at most 250 distinct GPU types", err);
        if (type == -3)
            return nomem(p, err);
    }
    struct agg *g = agg_get(p, berth__csv_field(c, T_JOB), n, line);
    if (!g)
        return nomem(p, err);
    if (g->ntasks < UINT32_MAX)
        g->ntasks++;
    g->gpu_milli = sat_add(g->gpu_milli, inst * gpu); /* % x 10 = 1/1000 of a GPU */
    g->cpu_milli = sat_add(g->cpu_milli, inst * cpu); /* % x 10 = 1/1000 of a core */
    g->mem_mib = sat_add(g->mem_mib, inst * ((mem * 1024 + 500000) / 1000000));
    if (start < g->start_us)
        g->start_us = start;
    if (type != TYPE_NONE)
        g->type = g->type == TYPE_NONE || g->type == type ? (uint8_t)type : TYPE_ANY;
    return 0;
}

static const char *status_reason(const char *s)
{
    if (!strcmp(s, "Failed"))
        return "status Failed (only Terminated jobs are kept)";
    if (!strcmp(s, "Running"))
        return "status Running (only Terminated jobs are kept)";
    if (!strcmp(s, "Waiting"))
        return "status Waiting (only Terminated jobs are kept)";
    return "status other than Terminated";
}

static int job_row(struct pai *p, int64_t *origin, struct berth_err *err)
{
    struct berth__csv *c = p->csv;
    struct berth_jobdesc js;
    berth__jobspec_defaults(&js);
    js.spec.line = berth__csv_line(c);
    size_t nf = berth__csv_nfields(c);
    if (nf != J_NCOLS) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected %d fields (the columns of pai_job_table), found %zu",
                 J_NCOLS, nf);
        int rc = berth__load_bad_row(p->L, js.spec.line, msg, err);
        return rc ? rc : ROW_SKIPPED;
    }
    size_t n = berth__csv_len(c, J_NAME);
    if (n == 0 || n > 255)
        return bad(p, jcols, J_NAME, "a non-empty job name of at most 255 bytes", err);
    if (berth__csv_len(c, J_USER) > 255)
        return bad(p, jcols, J_USER, "at most 255 bytes", err);
    struct agg *g = agg_find(p, berth__csv_field(c, J_NAME), n);
    if (g)
        g->used = 1;
    const char *status = berth__csv_field(c, J_STATUS);
    if (strcmp(status, "Terminated")) { /* left out whatever its times say */
        berth__load_exclude(p->L, js.spec.line, status_reason(status));
        return ROW_SKIPPED;
    }
    int64_t submit, end = 0;
    if (berth__parse_seconds_us(berth__csv_field(c, J_START), berth__csv_len(c, J_START),
                                &submit) ||
        submit < 0 || submit > MAX_TIME_US)
        return bad(p, jcols, J_START, "a submit time in seconds >= 0", err);
    if (berth__csv_len(c, J_END) &&
        (berth__parse_seconds_us(berth__csv_field(c, J_END), berth__csv_len(c, J_END), &end) ||
         end < 0 || end > MAX_TIME_US))
        return bad(p, jcols, J_END, "a time in seconds >= 0 (0 or empty = none)", err);
    const char *why = NULL;
    if (!g)
        why = "no row in the task table";
    else if (g->gpu_milli == 0)
        why = "CPU-only job (no task asks for a GPU)";
    else if (end == 0)
        why = "no end_time";
    else if (g->start_us == NO_START)
        why = "no task start_time (never started)";
    else if (end < g->start_us)
        why = "end_time before the earliest task start_time";
    if (why) {
        berth__load_exclude(p->L, js.spec.line, why);
        return ROW_SKIPPED;
    }
    if (g->gpu_milli > INT64_C(1000) * MAX_GPUS_PER_JOB) {
        int rc = berth__load_bad(p->L, js.spec.line, "plan_gpu",
                                 "at most 1000000 GPUs over the job's task rows", NULL, 0, err);
        return rc ? rc : ROW_SKIPPED;
    }
    js.spec.id = berth__trace_str(p->t, g->name, g->namelen);
    js.spec.arrival_us = submit; /* absolute until every row is read */
    js.spec.duration_us = end > g->start_us ? end - g->start_us : BERTH_US_PER_S;
    if (g->gpu_milli < 1000) {
        js.spec.gpu_share_milli = (int16_t)g->gpu_milli;
    } else {
        js.spec.num_gpus = (int32_t)((g->gpu_milli + 999) / 1000);
        js.spec.min_gpus = js.spec.max_gpus = js.spec.num_gpus;
    }
    js.x.cpu_milli = g->cpu_milli;
    js.x.mem_mib = g->mem_mib;
    if (g->type != TYPE_ANY && g->type != TYPE_NONE)
        js.x.gpu_type = p->types[g->type - 1].mapped;
    js.x.user = user_intern(p, berth__csv_field(c, J_USER), berth__csv_len(c, J_USER));
    if (!js.spec.id || !js.x.user || berth__trace_push(p->t, &js))
        return nomem(p, err);
    if (submit < *origin)
        *origin = submit;
    return 0;
}

/* Streams one table; the first row may be its .header line. */
static int read_table(struct pai *p, const char *path, int task, int64_t *origin,
                      struct berth_err *err)
{
    const char *table = task ? "pai_task_table" : "pai_job_table";
    size_t ncols = task ? T_NCOLS : J_NCOLS;
    const char *const *cols = task ? tcols : jcols;
    p->L->path = path;
    int rc = berth__csv_open(&p->csv, path, ',', err);
    if (rc)
        return rc;
    berth__csv_progress(p->csv, p->L->progress, p->L->progress_ctx);
    int first = 1;
    while ((rc = berth__csv_next(p->csv, err)) > 0) {
        size_t nf = berth__csv_nfields(p->csv);
        if (first) {
            first = 0;
            const char *h = berth__cols_skip_bom(berth__csv_field(p->csv, 0));
            if (nf == ncols && !strcmp(h, "job_name") &&
                !strcmp(berth__csv_field(p->csv, 1), cols[1]))
                continue; /* the .header line */
            if (nf != ncols) {
                rc =
                    berth_err_set(err, BERTH_EINPUT,
                                  "%s:%u: expected the %zu columns of %s (%s,%s,...), found %zu "
                                  "fields%s",
                                  path, berth__csv_line(p->csv), ncols, table, cols[0], cols[1], nf,
                                  nf == (task ? J_NCOLS : T_NCOLS)
                                      ? " (the tables swapped? the order is JOBTABLE,TASKTABLE)"
                                      : "");
                break;
            }
        }
        p->L->rep->rows++;
        rc = task ? task_row(p, err) : job_row(p, origin, err);
        if (rc == ROW_SKIPPED)
            rc = 0;
        if (rc)
            break;
    }
    if (rc == 0 && first)
        rc = berth_err_set(err, BERTH_EINPUT, "%s:1: expected the rows of %s, found an empty file",
                           path, table);
    berth__csv_close(p->csv);
    p->csv = NULL;
    return rc;
}

/* The two table paths of a directory or of "JOBTABLE,TASKTABLE". */
static int split_path(const char *path, char **job, char **task, struct berth_err *err)
{
    struct stat st;
    *job = *task = NULL;
    const char *comma = strchr(path, ',');
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t n = strlen(path) + 32;
        *job = malloc(n);
        *task = malloc(n);
        if (*job && *task) {
            snprintf(*job, n, "%s/pai_job_table.csv", path);
            snprintf(*task, n, "%s/pai_task_table.csv", path);
        }
    } else if (comma && comma != path && comma[1]) {
        *job = strndup(path, (size_t)(comma - path));
        *task = strdup(comma + 1);
    } else {
        return berth_err_set(err, BERTH_EINPUT,
                             "%s: expected a directory holding pai_job_table.csv and "
                             "pai_task_table.csv, or JOBTABLE,TASKTABLE (two files, "
                             "comma-separated)",
                             path);
    }
    if (!*job || !*task) {
        free(*job);
        free(*task);
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    }
    return 0;
}

int berth__load_pai2020(struct berth__load *L, struct berth_err *err)
{
    const char *user_path = L->path;
    char *job, *task;
    int rc = split_path(user_path, &job, &task, err);
    if (rc)
        return rc;
    struct pai *p = calloc(1, sizeof *p);
    if (!p) {
        free(job);
        free(task);
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", user_path);
    }
    p->L = L;
    p->t = L->t;
    int64_t origin = INT64_MAX;
    rc = read_table(p, task, 1, &origin, err);
    if (!rc)
        rc = read_table(p, job, 0, &origin, err);
    L->path = user_path;
    if (!rc) {
        struct berth_trace *t = L->t;
        for (size_t i = 0; i < t->n; i++)
            t->jobs[i].arrival_us -= origin;
        for (size_t o = 0; o < p->rlen;) {
            const struct agg *g = (const struct agg *)(const void *)(p->rec + o);
            for (uint32_t i = 0; !g->used && i < g->ntasks; i++)
                berth__load_exclude(L, g->line, "task row whose job_name is not in the job table");
            o += (sizeof(struct agg) + g->namelen + 1 + 7) & ~(size_t)7;
        }
    }
    free(p->rec);
    free(p->slot);
    free(p->users);
    free(p->uhash);
    free(p);
    free(job);
    free(task);
    return rc;
}
