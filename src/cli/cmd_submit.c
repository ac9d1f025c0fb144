/* `berth submit`: send a job to berthd, in the habits of sbatch (the command after --,
 * run as argv; the caller's environment and working directory go with it). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"

extern char **environ;

/* What the flags fill: the job's JSON as it grows, the --env pairs, the client. */
struct submit_args {
    struct cli_client c;
    json_t *body, *extra;
    int no_env, wait;
};

/* A number flag as the JSON field f->data: whole for set_int, any for set_real. */
static int num(const struct cli_flag *f, json_t *o, const char *v, int whole, struct berth_err *err)
{
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !isfinite(x))
        return berth_err_set(err, BERTH_EINPUT, "expected a number, found '%s'", v);
    if (whole && (x != floor(x) || fabs(x) > 9e15))
        return berth_err_set(err, BERTH_EINPUT, "expected a whole number, found '%s'", v);
    json_object_set_new(o, f->data, whole ? json_integer((json_int_t)x) : json_real(x));
    return 0;
}

static int set_int(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    return num(f, ((struct submit_args *)base)->body, v, 1, err);
}

static int set_real(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    return num(f, ((struct submit_args *)base)->body, v, 0, err);
}

/* A text flag as the JSON field f->data. */
static int set_text(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    (void)err;
    json_object_set_new(((struct submit_args *)base)->body, f->data, json_string(v));
    return 0;
}

/* A switch as the JSON field f->data, true. */
static int set_true(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    (void)v;
    (void)err;
    json_object_set_new(((struct submit_args *)base)->body, f->data, json_true());
    return 0;
}

/* A time limit: seconds ("90", "1.5"), with a unit ("30m", "2h", "1d"), or sbatch's colon
 * forms ("MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS"). 0 or -1. */
static int parse_limit(const char *v, double *out)
{
    char *end;
    if (!strchr(v, ':') && !strchr(v, '-')) {
        double x = strtod(v, &end);
        double unit = *end == 'm' ? 60 : *end == 'h' ? 3600 : *end == 'd' ? 86400 : 1;
        if (end != v && (*end == 'm' || *end == 'h' || *end == 'd' || *end == 's'))
            end++;
        if (end == v || *end || !isfinite(x) || !(x > 0))
            return -1;
        *out = x * unit;
        return 0;
    }
    long long d = 0, f[3] = {0, 0, 0};
    int n = 0;
    const char *p = v;
    const char *dash = strchr(v, '-');
    if (dash) {
        d = strtoll(v, &end, 10);
        if (end != dash || d < 0)
            return -1;
        p = dash + 1;
    }
    for (;;) {
        if (n == 3 || !(*p >= '0' && *p <= '9'))
            return -1;
        f[n++] = strtoll(p, &end, 10);
        if (!*end)
            break;
        if (*end != ':')
            return -1;
        p = end + 1;
    }
    long long s;
    if (dash) /* D-HH, D-HH:MM, D-HH:MM:SS */
        s = d * 86400 + f[0] * 3600 + (n > 1 ? f[1] * 60 : 0) + (n > 2 ? f[2] : 0);
    else if (n == 2) /* MM:SS */
        s = f[0] * 60 + f[1];
    else /* HH:MM:SS */
        s = f[0] * 3600 + f[1] * 60 + f[2];
    if (s <= 0 || f[0] < 0 || (n > 1 && (f[1] < 0 || f[1] > 59)) || (n > 2 && f[2] > 59))
        return -1;
    *out = (double)s;
    return 0;
}

static int set_limit(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    double s;
    if (parse_limit(v, &s))
        return berth_err_set(err, BERTH_EINPUT,
                             "expected seconds (90, 30m, 2h, 1d) or MM:SS, HH:MM:SS, "
                             "D-HH:MM:SS, found '%s'",
                             v);
    json_object_set_new(((struct submit_args *)base)->body, f->data, json_real(s));
    return 0;
}

/* --after ID[:ID...] (and afterok, afternotok, afterany): job ids appended to the JSON array
 * f->data; given again, the ids add up. */
static int add_deps(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    json_t *body = ((struct submit_args *)base)->body, *a = json_object_get(body, f->data);
    if (!a) {
        a = json_array();
        json_object_set_new(body, f->data, a);
    }
    for (const char *p = v;;) {
        char *end;
        if (!(*p >= '1' && *p <= '9'))
            return berth_err_set(err, BERTH_EINPUT, "expected job ids ID[:ID...], found '%s'", v);
        unsigned long long id = strtoull(p, &end, 10);
        if ((*end && *end != ':' && *end != ',') || id > (1ULL << 53))
            return berth_err_set(err, BERTH_EINPUT, "expected job ids ID[:ID...], found '%s'", v);
        json_array_append_new(a, json_integer((json_int_t)id));
        if (!*end)
            return 0;
        p = end + 1;
    }
}

static int add_env(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    (void)f;
    const char *eq = strchr(v, '=');
    if (!eq || eq == v)
        return berth_err_set(err, BERTH_EINPUT, "expected K=V, found '%s'", v);
    json_array_append_new(((struct submit_args *)base)->extra, json_string(v));
    return 0;
}

static const struct cli_flag submit_flags[] = {
    {"gpus", 'g', "N", "GPUs (default 1; 0 = CPU only)", CLI_SET(set_int), .data = "gpus"},
    {"gpu-type", 't', "T", "GPU type (a100, or a100|v100 for either)", CLI_SET(set_text),
     .data = "gpu_type"},
    {"share", 0, "F", "fraction of one GPU, 0 < F <= 1 (MPS share)", CLI_SET(set_real),
     .data = "gpu_share"},
    {"gpu-mem", 0, "MIB", "GPU memory per GPU", CLI_SET(set_int), .data = "gpu_mem_mib"},
    {"persist-mem", 0, "MIB", "persistent GPU memory (weights, state): salus-* admit by it",
     CLI_SET(set_int), .data = "persist_mib"},
    {"ephem-mem", 0, "MIB", "peak ephemeral GPU memory (activations): salus-* admit by it",
     CLI_SET(set_int), .data = "ephem_mib"},
    {"cpus", 0, "N", "CPU cores for the job (a cgroup limit where berthd has cgroups)",
     CLI_SET(set_real), .data = "cpus"},
    {"mem", 0, "MIB", "host memory for the job (a cgroup limit likewise)", CLI_SET(set_int),
     .data = "mem_mib"},
    {"min", 0, "N", "elastic range of GPUs: the smallest gang", CLI_SET(set_int),
     .data = "min_gpus"},
    {"max", 0, "N", "elastic range of GPUs: the largest gang", CLI_SET(set_int),
     .data = "max_gpus"},
    {"queue", 'q', "Q", "queue (partition)", CLI_SET(set_text), .data = "queue"},
    {"priority", 'p', "N", "priority (larger = more important)", CLI_SET(set_int),
     .data = "priority"},
    {"signal", 's', "SIG", "checkpoint signal before preemption (default SIGTERM)",
     CLI_SET(set_text), .data = "checkpoint_signal"},
    {"grace", 0, "S", "seconds between that signal and SIGKILL (default 30)", CLI_SET(set_real),
     .data = "grace_s"},
    {"est", 0, "S", "expected run time in seconds (for sjf, srtf; default 3600)", CLI_SET(set_real),
     .data = "est_s"},
    {"time", 0, "T",
     "time limit: the job is stopped (checkpoint signal, grace, SIGKILL; state timeout) after "
     "running T in all: seconds (90, 30m, 2h, 1d) or MM:SS, HH:MM:SS, D-HH:MM:SS (a bare "
     "number is seconds, not sbatch's minutes)",
     CLI_SET(set_limit), .data = "time_limit_s"},
    {"steps", 0, "N", "total steps (progress reports then measure work)", CLI_SET(set_int),
     .data = "total_steps"},
    {"job-type", 0, "T",
     "model name in the throughput model (e.g. 'ResNet-50 (batch size 64)'): elastic policies "
     "value sizes by it",
     CLI_SET(set_text), .data = "job_type"},
    {"name", 'n', "NAME", "job name (default: the program)", CLI_SET(set_text), .data = "name"},
    {"cwd", 0, "DIR", "working directory (default: the current one)", CLI_SET(set_text),
     .data = "cwd"},
    {"env", 'e', "K=V", "add a variable (repeatable)", CLI_SET(add_env)},
    {"no-env", 0, NULL, "do not send the current environment",
     CLI_ON_AT(struct submit_args, no_env)},
    {"shell", 0, NULL, "run COMMAND (one string) with /bin/sh -c", CLI_SET(set_true),
     .data = "shell"},
    {"hold", 'H', NULL, "submit held (berth release ID starts it)", CLI_SET(set_true),
     .data = "hold"},
    {"array", 'a', "SPEC",
     "a job array, sbatch's form: 0-99 (tasks 0 to 99), 1,3,5-9:2, with %N at most N tasks "
     "in the scheduler at once (0-99%8); each task is a job, with BERTH_ARRAY_TASK_ID",
     CLI_SET(set_text), .data = "array"},
    {"after", 0, "ID[:ID...]", "start only once these jobs have started (or ended)",
     CLI_SET(add_deps), .data = "after"},
    {"afterok", 0, "ID[:ID...]",
     "start only once these jobs completed (exit 0); if one ends otherwise, this job fails",
     CLI_SET(add_deps), .data = "afterok"},
    {"afternotok", 0, "ID[:ID...]",
     "start only once these jobs ended otherwise (failed, cancelled, timeout); if one "
     "completes, this job fails",
     CLI_SET(add_deps), .data = "afternotok"},
    {"afterany", 0, "ID[:ID...]", "start only once these jobs ended, however", CLI_SET(add_deps),
     .data = "afterany"},
    {"wait", 'W', NULL,
     "block until the job (every task of an array) ends, and exit with its exit status (an "
     "array: the largest; killed by signal S: 128+S; timeout: 124; cancelled, or a "
     "dependency never met: 1)",
     CLI_ON_AT(struct submit_args, wait)},
    {"single-server", 0, NULL, "keep the gang on one server", CLI_SET(set_true),
     .data = "single_server"},
    {"topology", 0, "LEVEL",
     "keep the gang within one domain of LEVEL: nvlink, node, rack, block or cluster (it waits, "
     "reason Topology, until one holds it)",
     CLI_SET(set_text), .data = "topology"},
    {"topology-preferred", 0, "LEVEL",
     "rather within one domain of LEVEL (below --topology's); it starts wider when none holds "
     "it",
     CLI_SET(set_text), .data = "topology_preferred"},
    {"tp", 0, "N",
     "tensor-parallel degree: ranks in groups of N share an NVLink island (GPU counts are "
     "multiples of N)",
     CLI_SET(set_int), .data = "tp"},
    {0},
};

static const struct cli_section submit_sections[] = {
    {NULL, submit_flags, 0},
    {NULL, cli_client_table, offsetof(struct submit_args, c)},
    {0},
};

static const struct cli_spec submit_spec = {
    .cmd = "submit",
    .usage = "submit [FLAGS] -- COMMAND [ARGS...]",
    .sections = submit_sections,
    .stop_at_operand = 1, /* the job's own argv follows */
};

/* The exit status --wait gives for a finished job's summary; -1 while it is not over. */
static int exit_of(const json_t *j)
{
    const char *st = json_string_value(json_object_get(j, "state"));
    const json_t *code = json_object_get(j, "exit_code"), *sig = json_object_get(j, "exit_signal");
    if (!st)
        return -1;
    if (!strcmp(st, "completed"))
        return 0;
    if (!strcmp(st, "timeout"))
        return 124;
    if (!strcmp(st, "failed")) {
        if (json_is_integer(sig))
            return 128 + (int)(json_integer_value(sig) & 127);
        if (json_is_integer(code) && json_integer_value(code) > 0)
            return (int)(json_integer_value(code) & 255);
        return 1;
    }
    if (!strcmp(st, "cancelled"))
        return 1;
    return -1;
}

/* --wait: polls the job (or the array's tasks) until every one is over. */
static int wait_for_end(struct cli_client *c, long long id, long long tasks)
{
    char path[128];
    if (tasks)
        snprintf(path, sizeof path, "/v1/jobs?array=%lld&all=1&limit=1000000", id);
    else
        snprintf(path, sizeof path, "/v1/jobs/%lld", id);
    double delay = 0.1;
    for (;;) {
        struct cli_reply r;
        int rc = cli_call(c, "GET", path, NULL, &r);
        if (rc || (rc = cli_reply_check(c, &r))) {
            if (!rc)
                cli_reply_free(&r);
            return rc ? rc : EXIT_RUNTIME;
        }
        int worst = 0, over = 1;
        if (tasks) {
            const json_t *jobs = json_object_get(r.json, "jobs"), *j;
            size_t i;
            over = (long long)json_array_size(jobs) == tasks;
            json_array_foreach(jobs, i, j)
            {
                int e = exit_of(j);
                over &= e >= 0;
                worst = e > worst ? e : worst;
            }
        } else {
            worst = exit_of(r.json);
            over = worst >= 0;
        }
        cli_reply_free(&r);
        if (over)
            return worst;
        struct timespec ts = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};
        nanosleep(&ts, NULL);
        delay = delay * 1.5 > 2 ? 2 : delay * 1.5;
    }
}

static int set_env(json_t *env, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return -1;
    json_object_setn_new(env, kv, (size_t)(eq - kv), json_string(eq + 1));
    return 0;
}

int cmd_submit(int argc, char **argv)
{
    struct submit_args a = {.body = json_object(), .extra = json_array()};
    json_t *b = a.body, *env = json_object();
    int nargs, rc = cli_flags_parse(&submit_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        goto out;
    rc = 0;
    if (!nargs) {
        rc = cli_usage_error("submit", "expected a command after the flags (berth submit -g 1 "
                                       "-- python train.py)");
        goto out;
    }
    if ((rc = cli_client_init(&a.c, "submit")))
        goto out;
    json_t *av = json_array();
    for (int i = 1; i <= nargs; i++)
        json_array_append_new(av, json_string(argv[i]));
    json_object_set_new(b, "argv", av);
    if (!json_object_get(b, "cwd")) {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd))
            json_object_set_new(b, "cwd", json_string(cwd));
    }
    for (char **e = environ; !a.no_env && e && *e; e++)
        if (strncmp(*e, "BERTH_TOKEN=", 12))
            set_env(env, *e);
    size_t i;
    json_t *kv;
    json_array_foreach(a.extra, i, kv) set_env(env, json_string_value(kv));
    json_object_set(b, "env", env);
    struct cli_reply r;
    if ((rc = cli_call(&a.c, "POST", "/v1/jobs", b, &r)))
        goto out;
    long long id = 0, tasks = 0;
    if (!(rc = cli_reply_check(&a.c, &r))) {
        const json_t *arr = json_object_get(r.json, "array");
        id = (long long)json_integer_value(json_object_get(r.json, "id"));
        tasks = (long long)json_integer_value(json_object_get(arr, "tasks"));
        if (arr)
            printf("Submitted array job %lld (%lld tasks: jobs %lld to %lld)\n", id, tasks, id,
                   (long long)json_integer_value(json_object_get(arr, "last")));
        else
            printf("Submitted job %lld\n", id);
        fflush(stdout);
    }
    cli_reply_free(&r);
    if (!rc && a.wait)
        rc = wait_for_end(&a.c, id, tasks);
out:
    json_decref(b);
    json_decref(env);
    json_decref(a.extra);
    return rc;
}
