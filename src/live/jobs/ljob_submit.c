/* Reading a job submission (POST /v1/jobs) field by field: every field is checked for its
 * type and range, unknown fields are refused, and the first problem names its field. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "live/jobs/ljob.h"
#include "model/topo.h"
#include "util/mem.h"
#include "util/name.h"

#define MAX_ARGS    4096
#define MAX_ENV     4096
#define MAX_STR     4096
#define MAX_NAME    255
#define MAX_GPUS    4096
#define MAX_SECONDS 1e9

static const char *const known[] = {
    "argv",        "cwd",       "env",           "gpus",
    "gpu_type",    "gpu_share", "gpu_mem_mib",   "min_gpus",
    "max_gpus",    "queue",     "priority",      "checkpoint_signal",
    "grace_s",     "est_s",     "total_steps",   "name",
    "hold",        "shell",     "single_server", "job_type",
    "cpus",        "mem_mib",   "time_limit_s",  "array",
    "after",       "afterok",   "afternotok",    "afterany",
    "persist_mib", "ephem_mib", "topology",      "topology_preferred",
    "tp"};

static int bad(struct berth_err *err, const char *field, const char *what)
{
    return berth_err_set(err, BERTH_EINPUT, "%s: %s", field, what);
}

static char *dup_str(const char *s)
{
    return strdup(s ? s : "");
}

int berth__json_int(const json_t *body, const char *field, int64_t lo, int64_t hi, int64_t *out,
                    struct berth_err *err)
{
    const json_t *v = json_object_get(body, field);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return berth_err_set(err, BERTH_EINPUT, "%s: expected a whole number from %lld to %lld",
                             field, (long long)lo, (long long)hi);
    *out = json_integer_value(v);
    return 0;
}

int berth__json_num(const json_t *body, const char *field, double lo, double hi, double *out,
                    struct berth_err *err)
{
    const json_t *v = json_object_get(body, field);
    if (!v)
        return 0;
    if (!json_is_number(v) || !(json_number_value(v) >= lo) || !(json_number_value(v) <= hi))
        return berth_err_set(err, BERTH_EINPUT, "%s: expected a number from %g to %g", field, lo,
                             hi);
    *out = json_number_value(v);
    return 0;
}

/* A string field of at most max bytes (no NUL); *out stays NULL when absent. */
static int get_str(const json_t *body, const char *field, size_t max, const char **out,
                   struct berth_err *err)
{
    const json_t *v = json_object_get(body, field);
    if (!v)
        return 0;
    if (!json_is_string(v) || json_string_length(v) > max ||
        strlen(json_string_value(v)) != json_string_length(v))
        return berth_err_set(err, BERTH_EINPUT, "%s: expected a string of at most %zu bytes", field,
                             max);
    *out = json_string_value(v);
    return 0;
}

static int get_bool(const json_t *body, const char *field, int *out, struct berth_err *err)
{
    const json_t *v = json_object_get(body, field);
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return bad(err, field, "expected true or false");
    *out = json_is_true(v);
    return 0;
}

static int read_argv(const json_t *body, struct berth__ljob *j, int shell, struct berth_err *err)
{
    const json_t *a = json_object_get(body, "argv");
    if (!a)
        return bad(err, "argv", "required: the command as an array of strings");
    if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > MAX_ARGS)
        return bad(err, "argv", "expected a non-empty array of strings");
    if (shell && json_array_size(a) != 1)
        return bad(err, "argv", "with shell: true, expected exactly one string (the script)");
    size_t n = json_array_size(a), extra = shell ? 2 : 0;
    j->argv = calloc(n + extra + 1, sizeof *j->argv);
    if (!j->argv)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    /* each copy is checked at once: the vector ends at its first NULL, so a string after a
     * failed copy would never be freed */
    if (shell && (!(j->argv[0] = strdup("/bin/sh")) || !(j->argv[1] = strdup("-c"))))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *s = json_array_get(a, i);
        if (!json_is_string(s) || json_string_length(s) > MAX_STR ||
            strlen(json_string_value(s)) != json_string_length(s))
            return berth_err_set(err, BERTH_EINPUT, "argv[%zu]: expected a string without NUL", i);
        if (i == 0 && !*json_string_value(s))
            return bad(err, "argv[0]", "expected a program name, found an empty string");
        if (!(j->argv[extra + i] = strdup(json_string_value(s))))
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    j->argc = n + extra;
    return 0;
}

static int read_env(const json_t *body, struct berth__ljob *j, struct berth_err *err)
{
    const json_t *e = json_object_get(body, "env");
    size_t n = e ? json_object_size(e) : 0;
    if (e && (!json_is_object(e) || n > MAX_ENV))
        return bad(err, "env", "expected an object of string values");
    j->env = calloc(n + 1, sizeof *j->env);
    if (!j->env)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    const char *k;
    const json_t *v;
    size_t i = 0;
    json_object_foreach((json_t *)e, k, v)
    {
        if (!*k || strchr(k, '=') || strlen(k) > MAX_NAME)
            return berth_err_set(err, BERTH_EINPUT, "env.%.64s: expected a variable name", k);
        if (!json_is_string(v) || json_string_length(v) > MAX_STR ||
            strlen(json_string_value(v)) != json_string_length(v))
            return berth_err_set(err, BERTH_EINPUT, "env.%.64s: expected a string", k);
        size_t len = strlen(k) + json_string_length(v) + 2;
        if (!(j->env[i] = malloc(len)))
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        snprintf(j->env[i++], len, "%s=%s", k, json_string_value(v));
    }
    j->nenv = i;
    return 0;
}

static int read_gpus(const json_t *body, struct berth__ljob *j, struct berth_err *err)
{
    struct berth_jobspec *s = &j->spec;
    int64_t g = 1, mn = -1, mx = -1, mem = 0, pmem = 0, emem = 0;
    double share = 1.0;
    int rc;
    if ((rc = berth__json_int(body, "gpus", 0, MAX_GPUS, &g, err)) ||
        (rc = berth__json_int(body, "min_gpus", 1, MAX_GPUS, &mn, err)) ||
        (rc = berth__json_int(body, "max_gpus", 1, MAX_GPUS, &mx, err)) ||
        (rc = berth__json_int(body, "gpu_mem_mib", 0, INT64_C(1) << 40, &mem, err)) ||
        (rc = berth__json_int(body, "persist_mib", 0, INT64_C(1) << 40, &pmem, err)) ||
        (rc = berth__json_int(body, "ephem_mib", 0, INT64_C(1) << 40, &emem, err)) ||
        (rc = berth__json_num(body, "gpu_share", 0.001, 1.0, &share, err)))
        return rc;
    if (share < 1.0 && g != 1)
        return bad(err, "gpu_share", "a share below 1 needs gpus: 1");
    if (g > BERTH_L_MAX_SLOTS || mx > BERTH_L_MAX_SLOTS)
        return berth_err_set(err, BERTH_EINPUT, "%s: expected at most %d GPUs for one job",
                             g > BERTH_L_MAX_SLOTS ? "gpus" : "max_gpus", BERTH_L_MAX_SLOTS);
    mn = mn < 0 ? g : mn;
    mx = mx < 0 ? g : mx;
    if (g == 0 && (mn != 0 || mx != 0))
        return bad(err, mx ? "max_gpus" : "min_gpus", "a CPU-only job (gpus: 0) cannot be elastic");
    if (mn > g)
        return bad(err, "min_gpus", "expected at most gpus");
    if (mx < g)
        return bad(err, "max_gpus", "expected at least gpus");
    s->num_gpus = (int32_t)g;
    s->min_gpus = (int32_t)mn;
    s->max_gpus = (int32_t)mx;
    s->gpu_share_milli = (int16_t)lround(share * 1000);
    j->extra.gpu_mem_mib = mem;
    if ((pmem || emem) && g == 0)
        return bad(err, pmem ? "persist_mib" : "ephem_mib", "a CPU-only job has no GPU memory");
    j->extra.persist_mib = pmem; /* Salus' split: what salus-* admit a GPU's jobs by */
    j->extra.ephem_mib = emem;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* "array": sbatch's --array, "0-99%8", "1,3,5-9:2": indices from 0 to BERTH_L_MAX_INDEX,
 * each once, at most BERTH_L_MAX_ARRAY of them, and the throttle after '%'. */
static int read_array(const json_t *body, struct berth__ljob *j, struct berth_err *err)
{
    const char *s = NULL;
    int rc = get_str(body, "array", 256, &s, err);
    if (rc || !s)
        return rc;
    static const char *what = "expected sbatch's form: indices and ranges A-B or A-B:STEP, "
                              "separated by commas, with an optional %N throttle (0-99%8)";
    size_t cap = 0, n = 0;
    uint32_t *idx = NULL;
    const char *p = s;
    long long thr = 0;
    for (;;) {
        char *end;
        if (!(*p >= '0' && *p <= '9'))
            goto bad;
        long long a = strtoll(p, &end, 10), b = a, step = 1;
        p = end;
        if (*p == '-') {
            if (!(p[1] >= '0' && p[1] <= '9'))
                goto bad;
            b = strtoll(p + 1, &end, 10);
            p = end;
            if (*p == ':') {
                if (!(p[1] >= '1' && p[1] <= '9'))
                    goto bad;
                step = strtoll(p + 1, &end, 10);
                p = end;
            }
        }
        if (a < 0 || b < a || b > BERTH_L_MAX_INDEX || step < 1) {
            free(idx);
            return berth_err_set(err, BERTH_EINPUT,
                                 "array: expected indices from 0 to %d, each range A-B with A "
                                 "<= B",
                                 BERTH_L_MAX_INDEX);
        }
        for (long long i = a; i <= b; i += step) {
            if (n >= BERTH_L_MAX_ARRAY) {
                free(idx);
                return berth_err_set(err, BERTH_EINPUT, "array: expected at most %d tasks",
                                     BERTH_L_MAX_ARRAY);
            }
            if (BERTH_GROW(idx, cap, n + 1)) {
                free(idx);
                return berth_err_set(err, BERTH_ENOMEM, "out of memory");
            }
            idx[n++] = (uint32_t)i;
        }
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '%') {
            if (!(p[1] >= '1' && p[1] <= '9'))
                goto bad;
            thr = strtoll(p + 1, &end, 10);
            p = end;
            if (thr < 1 || thr > BERTH_L_MAX_ARRAY)
                goto bad;
        }
        if (*p)
            goto bad;
        break;
    }
    qsort(idx, n, sizeof *idx, cmp_u32);
    for (size_t i = 1; i < n; i++)
        if (idx[i] == idx[i - 1]) {
            uint32_t twice = idx[i];
            free(idx);
            return berth_err_set(err, BERTH_EINPUT, "array: index %u given twice", twice);
        }
    j->array_idx = idx;
    j->narray = n;
    j->array_n = (uint32_t)n;
    j->array_max = (uint32_t)thr;
    return 0;
bad:
    free(idx);
    return bad(err, "array", what);
}

/* "after", "afterok", "afternotok", "afterany": arrays of job ids. */
static int read_deps(const json_t *body, struct berth__ljob *j, struct berth_err *err)
{
    static const char *const names[] = {"after", "afterok", "afternotok", "afterany"};
    for (int t = 0; t < 4; t++) {
        const json_t *a = json_object_get(body, names[t]), *v;
        if (!a)
            continue;
        if (!json_is_array(a))
            return berth_err_set(err, BERTH_EINPUT, "%s: expected an array of job ids", names[t]);
        size_t i;
        json_array_foreach(a, i, v)
        {
            if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                json_integer_value(v) > (INT64_C(1) << 53))
                return berth_err_set(err, BERTH_EINPUT, "%s[%zu]: expected a job id", names[t], i);
            if (j->ndeps >= BERTH_L_MAX_DEPS)
                return berth_err_set(err, BERTH_EINPUT,
                                     "%s: expected at most %d dependencies in all", names[t],
                                     BERTH_L_MAX_DEPS);
            struct berth__ldep *d = realloc(j->deps, (j->ndeps + 1) * sizeof *d);
            if (!d)
                return berth_err_set(err, BERTH_ENOMEM, "out of memory");
            j->deps = d;
            d[j->ndeps++] = (struct berth__ldep){(uint64_t)json_integer_value(v), (uint8_t)t};
        }
    }
    return 0;
}

/* "topology", "topology_preferred" (a level name: the gang within one domain of it) and
 * "tp" (the tensor-parallel degree: the GPU counts are multiples of it), as
 * berth_jobspec_extra holds them (a level + 1, 0 = none; tp 0 = none). */
static int read_topology(const json_t *body, struct berth__ljob *j, struct berth_err *err)
{
    static const char *const field[2] = {"topology", "topology_preferred"};
    int lv[2] = {-1, -1}, rc;
    for (int i = 0; i < 2; i++) {
        const char *s = NULL;
        if ((rc = get_str(body, field[i], 32, &s, err)))
            return rc;
        if (s && (lv[i] = berth__topo_level_find(s)) < 0)
            return berth_err_set(err, BERTH_EINPUT, "%s: expected %s, found '%.32s'", field[i],
                                 berth__topo_level_list(), s);
    }
    if (lv[0] >= 0 && lv[1] >= lv[0])
        return berth_err_set(err, BERTH_EINPUT,
                             "topology_preferred: expected a level below the required one "
                             "(%s), found '%s'",
                             berth__topo_level_name(lv[0]), berth__topo_level_name(lv[1]));
    int64_t tp = 0;
    if ((rc = berth__json_int(body, "tp", 1, BERTH_L_MAX_SLOTS, &tp, err)))
        return rc;
    const struct berth_jobspec *s = &j->spec;
    if (tp > 1 && (s->num_gpus % tp || s->min_gpus % tp || s->max_gpus % tp))
        return berth_err_set(err, BERTH_EINPUT,
                             "tp: the GPU counts (gpus %d, min_gpus %d, max_gpus %d) must be "
                             "multiples of the tensor-parallel degree %lld",
                             s->num_gpus, s->min_gpus, s->max_gpus, (long long)tp);
    if ((lv[0] >= 0 || lv[1] >= 0 || tp > 1) && s->num_gpus == 0)
        return bad(err,
                   lv[0] >= 0   ? "topology"
                   : lv[1] >= 0 ? "topology_preferred"
                                : "tp",
                   "a CPU-only job (gpus: 0) has no GPUs to place");
    j->extra.topo_required = (int8_t)(lv[0] + 1);
    j->extra.topo_preferred = (int8_t)(lv[1] + 1);
    j->extra.tp = (int32_t)(tp > 1 ? tp : 0);
    return 0;
}

/* A name the CLI prints in tables: refused when it holds a control, invisible or separator
 * character, or is not UTF-8 (util/name.h). */
static int printable(const char *field, const char *v, struct berth_err *err)
{
    uint32_t cp = 0;
    size_t at = 0;
    int rc = v ? berth__name_check(v, &cp, &at) : 0;
    if (rc) {
        char why[BERTH_ERR_MSG_MAX];
        return berth_err_set(err, BERTH_EINPUT, "%s",
                             berth__name_why(why, sizeof why, field, rc, cp, at));
    }
    return 0;
}

int berth__ljob_from_submit(const json_t *body, const char *user, uint32_t uid, uint32_t gid,
                            struct berth__ljob **out, struct berth_err *err)
{
    if (!json_is_object(body))
        return bad(err, "body", "expected a JSON object");
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)body, k, v)
    {
        size_t i = 0;
        while (i < sizeof known / sizeof *known && strcmp(k, known[i]))
            i++;
        if (i == sizeof known / sizeof *known)
            return berth_err_set(err, BERTH_EINPUT, "%.64s: unknown field", k);
    }
    struct berth__ljob *j = calloc(1, sizeof *j);
    if (!j)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    j->spec.extra = &j->extra; /* the record holds its extra fields */
    j->exit_code = j->exit_signal = -1;
    j->ckpt_sig = 15;
    j->grace_us = 30 * BERTH_US_PER_S;
    int shell = 0, hold = 0, single = 0, rc;
    int64_t prio = 0, steps = 0, mem = 0;
    double grace = 30, est = 3600, cpus = 0, limit = 0;
    const char *cwd = NULL, *queue = NULL, *gtype = NULL, *name = NULL, *sig = NULL, *jtype = NULL;
    if ((rc = get_bool(body, "shell", &shell, err)) || (rc = get_bool(body, "hold", &hold, err)) ||
        (rc = get_bool(body, "single_server", &single, err)) ||
        (rc = read_argv(body, j, shell, err)) || (rc = read_env(body, j, err)) ||
        (rc = read_gpus(body, j, err)) || (rc = read_topology(body, j, err)) ||
        (rc = get_str(body, "cwd", MAX_STR, &cwd, err)) ||
        (rc = get_str(body, "queue", MAX_NAME, &queue, err)) ||
        (rc = get_str(body, "gpu_type", MAX_NAME, &gtype, err)) ||
        (rc = get_str(body, "job_type", MAX_NAME, &jtype, err)) ||
        (rc = get_str(body, "name", MAX_NAME, &name, err)) ||
        (rc = get_str(body, "checkpoint_signal", 16, &sig, err)) ||
        (rc = berth__json_int(body, "priority", -1000000, 1000000, &prio, err)) ||
        (rc = berth__json_int(body, "total_steps", 0, INT64_C(1) << 50, &steps, err)) ||
        (rc = berth__json_num(body, "grace_s", 0, 86400, &grace, err)) ||
        (rc = berth__json_num(body, "est_s", 0.001, MAX_SECONDS, &est, err)) ||
        (rc = berth__json_num(body, "cpus", 0.001, 4096, &cpus, err)) ||
        (rc = berth__json_num(body, "time_limit_s", 0.001, MAX_SECONDS, &limit, err)) ||
        (rc = berth__json_int(body, "mem_mib", 1, INT64_C(1) << 30, &mem, err)) ||
        (rc = read_array(body, j, err)) || (rc = read_deps(body, j, err)))
        goto fail;
    if ((rc = printable("name", name, err)) || (rc = printable("queue", queue, err)) ||
        (rc = printable("gpu_type", gtype, err)) || (rc = printable("job_type", jtype, err)))
        goto fail;
    if (cwd && cwd[0] != '/') {
        rc = bad(err, "cwd", "expected an absolute path");
        goto fail;
    }
    if (sig && (j->ckpt_sig = berth__signal_find(sig)) < 0) {
        rc = bad(err, "checkpoint_signal",
                 "expected a signal name: SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, "
                 "SIGALRM, SIGXCPU, SIGCONT or SIGKILL (not a number: numbers differ between "
                 "architectures)");
        goto fail;
    }
    j->grace_us = (berth_us)llround(grace * 1e6);
    j->cwd = dup_str(cwd ? cwd : "/");
    j->user = dup_str(user);
    j->uid = uid;
    j->gid = gid;
    /* a name taken from argv may hold anything argv may: then it is just "job" */
    const char *auto_name = j->argv[shell ? 2 : 0];
    j->name =
        dup_str(name                                                                ? name
                : berth__name_printable(auto_name) && strlen(auto_name) <= MAX_NAME ? auto_name
                                                                                    : "job");
    j->spec.queue = dup_str(queue);
    j->extra.gpu_type = dup_str(gtype);
    j->extra.job_type = dup_str(jtype);
    if (!j->cwd || !j->user || !j->name || !j->spec.queue ||
        !berth_jobspec_extra(&j->spec)->gpu_type || !berth_jobspec_extra(&j->spec)->job_type) {
        rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
        goto fail;
    }
    j->extra.user = j->user;
    j->extra.status = "";
    j->spec.priority = (int32_t)prio;
    j->spec.total_steps = steps;
    j->extra.cpu_milli = (int64_t)llround(cpus * 1000);
    j->extra.mem_mib = mem;
    j->spec.duration_us = (berth_us)llround(est * 1e6);
    j->est_given = json_object_get(body, "est_s") != NULL;
    if (j->spec.duration_us < 1)
        j->spec.duration_us = 1;
    j->spec.single_server = (uint8_t)single;
    j->extra.time_limit_us = (berth_us)llround(limit * 1e6);
    j->state = hold ? BERTH_L_HELD : BERTH_L_PENDING;
    *out = j;
    return 0;
fail:
    berth__ljob_free(j);
    return rc;
}
