/* The libslurm side of slurm_api.h (22.05 or 24.11: slurm_compat.h): every libslurm call berth
 * makes lives here (the ABI changes with each Slurm release, so nothing else includes slurm.h).
 * Compiled only when CMake finds libslurm; slurm_stub.c stands in otherwise. */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurmapi/slurm_api.h"
#include "slurmapi/slurm_compat.h"

/* exported by libslurm but not declared in its headers (the reason's name: slurm_compat.h) */
extern void slurm_xfree(void **item);
extern char *slurm_job_state_string(uint32_t inx);
extern char *berth_slurm_reason_string(int inx);
extern char *slurm_node_state_string(uint32_t inx);

/* Jobs this handle requeued lately, for the same-node gap: a requeued pending job's
 * nodes and end time are gone from Slurm's record (end_time becomes the expected end). */
#define RECENT 64
struct recent {
    uint32_t id;
    berth_us at;
    char nodes[BERTH_SLURM_LIST_MAX];
};

struct berth__slurm {
    int last_errno;
    time_t jobs_update; /* Slurm's last_update of this handle's last poll */
    struct recent recent[RECENT];
    size_t next_recent;
    uid_t uid_cache[16];
    char name_cache[16][BERTH_SLURM_NAME_MAX];
    size_t n_cache;
};

bool berth__slurm_built(void)
{
    return true;
}

static berth_us now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (berth_us)ts.tv_sec * BERTH_US_PER_S + ts.tv_nsec / 1000;
}

static berth_us secs_us(time_t t)
{
    return t > 0 ? (berth_us)t * BERTH_US_PER_S : 0;
}

/* Records Slurm's error number and string; a job Slurm does not know is bad input. */
static int fail(struct berth__slurm *s, struct berth_err *e, int err, const char *what, uint32_t id)
{
    if (err == 0)
        err = berth_slurm_errno();
    s->last_errno = err;
    int code = err == ESLURM_INVALID_JOB_ID ? BERTH_EINPUT : BERTH_EIO;
    if (id)
        return berth_err_set(e, code, "slurm: %s job %u: %s", what, id, slurm_strerror(err));
    return berth_err_set(e, code, "slurm: %s: %s", what, slurm_strerror(err));
}

static int copy_str(char *dst, size_t size, const char *src, const char *what, uint32_t id,
                    struct berth_err *e)
{
    if (!src)
        src = "";
    size_t len = strlen(src);
    if (len >= size)
        return berth_err_set(e, BERTH_EINPUT, "slurm: job/node %u: %s \"%.60s...\" over %zu bytes",
                             id, what, src, size - 1);
    memcpy(dst, src, len + 1);
    return 0;
}

/* libslurm's configuration is process-global: read at the first open and kept until the
 * process exits (handles are not thread-safe; berthd keeps one). 24.11 crashes in
 * slurm_init after a slurm_fini (its plugins are loaded again into freed tables), so the
 * configuration is never read twice: berth sweep --slurm opens a handle per poll. */
static char init_conf[4096]; /* the slurm.conf read at the first open */

static void fini_at_exit(void)
{
    slurm_fini();
}

int berth__slurm_open(struct berth__slurm **out, const char *conf, struct berth_err *e)
{
    *out = NULL;
    /* libslurm exits the process when it finds no configuration (it falls back to DNS SRV
     * records, "configless", and gives up fatally): look first */
    const char *path = conf ? conf : getenv("SLURM_CONF");
    path = path && *path ? path : "/etc/slurm/slurm.conf";
    if (init_conf[0] && strcmp(init_conf, path))
        return berth_err_set(e, BERTH_EINPUT,
                             "slurm: %s: this process already read %s (libslurm holds one "
                             "configuration per process)",
                             path, init_conf);
    if (!init_conf[0] && access(path, R_OK))
        return berth_err_set(e, BERTH_EINPUT,
                             "slurm: cannot read %s (%s): give the cluster's slurm.conf with "
                             "--slurm-conf FILE or SLURM_CONF",
                             path, strerror(errno));
    if (!init_conf[0] && strlen(path) >= sizeof init_conf)
        return berth_err_set(e, BERTH_EINPUT, "slurm: %.60s...: path over %zu bytes", path,
                             sizeof init_conf - 1);
    struct berth__slurm *s = calloc(1, sizeof *s);
    if (!s)
        return berth_err_set(e, BERTH_ENOMEM, "slurm: out of memory");
    if (!init_conf[0]) {
        slurm_init(conf); /* mandatory since 22.05; reads conf or SLURM_CONF */
        snprintf(init_conf, sizeof init_conf, "%s", path);
        atexit(fini_at_exit);
    }
    if (slurm_ping(0) != SLURM_SUCCESS) {
        int rc = fail(s, e, 0, "slurmctld does not answer", 0);
        berth__slurm_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

void berth__slurm_close(struct berth__slurm *s)
{
    if (!s)
        return;
    free(s);
}

int berth__slurm_errno(const struct berth__slurm *s)
{
    return s ? s->last_errno : 0;
}

/* ---- nodes ---- */

static int fill_node(const node_info_t *ni, struct berth__slurm_node *n, struct berth_err *e)
{
    memset(n, 0, sizeof *n);
    if (copy_str(n->name, sizeof n->name, ni->name, "name", 0, e) < 0 ||
        copy_str(n->features, sizeof n->features, ni->features, "features", 0, e) < 0)
        return e ? e->code : BERTH_EINPUT;
    snprintf(n->gres, sizeof n->gres, "%s", ni->gres ? ni->gres : "");
    snprintf(n->state_name, sizeof n->state_name, "%s", slurm_node_state_string(ni->node_state));
    n->cpus = ni->cpus;
    n->memory_mb = ni->real_memory;
    n->drain = (ni->node_state & (NODE_STATE_DRAIN | NODE_STATE_FAIL)) != 0;
    n->responding = (ni->node_state & NODE_STATE_NO_RESPOND) == 0;
    n->reserved = (ni->node_state & NODE_STATE_RES) != 0;
    int rc = berth__slurm_parse_node_gres(ni->gres, false, n, e);
    if (rc == 0)
        rc = berth__slurm_parse_node_gres(ni->gres_used, true, n, e);
    if (rc < 0)
        return rc;
    uint16_t alloc = 0;
    if (ni->select_nodeinfo)
        slurm_get_select_nodeinfo(ni->select_nodeinfo, SELECT_NODEDATA_SUBCNT, NODE_STATE_ALLOCATED,
                                  &alloc);
    n->cpus_used = alloc;
    bool gpus_busy = false, gpus_full = true;
    for (size_t i = 0; i < n->n_gpu_types; i++) {
        gpus_busy |= n->gpus[i].used > 0;
        gpus_full &= n->gpus[i].used >= n->gpus[i].count;
    }
    switch (ni->node_state & NODE_STATE_BASE) {
    case NODE_STATE_DOWN:
        n->state = BERTH_SLURM_NODE_DOWN;
        break;
    case NODE_STATE_IDLE:
        n->state = BERTH_SLURM_NODE_IDLE;
        break;
    case NODE_STATE_ALLOCATED:
    case NODE_STATE_MIXED:
        /* Slurm reports a partly used node ALLOCATED; mixed is computed here */
        n->state = alloc >= n->cpus || (n->n_gpu_types > 0 && gpus_full && gpus_busy)
                       ? BERTH_SLURM_NODE_ALLOCATED
                       : BERTH_SLURM_NODE_MIXED;
        break;
    default:
        n->state = BERTH_SLURM_NODE_UNKNOWN;
    }
    return 0;
}

int berth__slurm_nodes(struct berth__slurm *s, struct berth__slurm_node **nodes, size_t *n,
                       struct berth_err *e)
{
    node_info_msg_t *msg = NULL;
    *nodes = NULL;
    *n = 0;
    /* returns -1 and sets errno (unlike slurm_load_jobs) */
    if (slurm_load_node(0, &msg, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS)
        return fail(s, e, 0, "reading nodes", 0);
    struct berth__slurm_node *out = calloc(msg->record_count ? msg->record_count : 1, sizeof *out);
    if (!out) {
        slurm_free_node_info_msg(msg);
        return berth_err_set(e, BERTH_ENOMEM, "slurm: out of memory");
    }
    size_t k = 0;
    for (uint32_t i = 0; i < msg->record_count; i++) {
        if (!msg->node_array[i].name)
            continue; /* an unused slot of the node table (future/cloud nodes not yet named) */
        int rc = fill_node(&msg->node_array[i], &out[k], e);
        if (rc < 0) {
            free(out);
            slurm_free_node_info_msg(msg);
            return rc;
        }
        k++;
    }
    slurm_free_node_info_msg(msg);
    *nodes = out;
    *n = k;
    return 0;
}

int berth__slurm_partitions(struct berth__slurm *s, struct berth__slurm_partition **parts,
                            size_t *n, struct berth_err *e)
{
    partition_info_msg_t *msg = NULL;
    *parts = NULL;
    *n = 0;
    if (slurm_load_partitions(0, &msg, SHOW_ALL) != SLURM_SUCCESS)
        return fail(s, e, 0, "reading partitions", 0);
    struct berth__slurm_partition *out =
        calloc(msg->record_count ? msg->record_count : 1, sizeof *out);
    if (!out) {
        slurm_free_partition_info_msg(msg);
        return berth_err_set(e, BERTH_ENOMEM, "slurm: out of memory");
    }
    size_t k = 0;
    for (uint32_t i = 0; i < msg->record_count; i++) {
        const partition_info_t *p = &msg->partition_array[i];
        if (!p->name)
            continue;
        snprintf(out[k].name, sizeof out[k].name, "%s", p->name);
        if (snprintf(out[k].nodes, sizeof out[k].nodes, "%s", p->nodes ? p->nodes : "") >=
            (int)sizeof out[k].nodes) {
            berth_err_set(e, BERTH_EINPUT, "slurm: partition %s: node list longer than %zu",
                          p->name, sizeof out[k].nodes - 1);
            free(out);
            slurm_free_partition_info_msg(msg);
            return BERTH_EINPUT;
        }
        out[k++].is_default = (p->flags & PART_FLAG_DEFAULT) != 0;
    }
    slurm_free_partition_info_msg(msg);
    *parts = out;
    *n = k;
    return 0;
}

int berth__slurm_kill_wait(struct berth__slurm *s, uint32_t *secs, struct berth_err *e)
{
    slurm_conf_t *conf = NULL;
    *secs = 0;
    if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS || !conf)
        return fail(s, e, 0, "reading the configuration", 0);
    *secs = conf->kill_wait;
    slurm_free_ctl_conf(conf);
    return 0;
}

/* ---- jobs ---- */

static void user_name(struct berth__slurm *s, uid_t uid, char *out)
{
    for (size_t i = 0; i < s->n_cache; i++)
        if (s->uid_cache[i] == uid) {
            memcpy(out, s->name_cache[i], BERTH_SLURM_NAME_MAX);
            return;
        }
    struct passwd pw, *res = NULL;
    char buf[4096];
    out[0] = '\0';
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res &&
        strlen(pw.pw_name) < BERTH_SLURM_NAME_MAX)
        memcpy(out, pw.pw_name, strlen(pw.pw_name) + 1);
    size_t slot = s->n_cache < 16 ? s->n_cache++ : (size_t)uid % 16;
    s->uid_cache[slot] = uid;
    memcpy(s->name_cache[slot], out, BERTH_SLURM_NAME_MAX);
}

/* slurm_free_job_info_msg of 22.05 leaves each job's admin_comment allocated (ASan: about
 * 100 bytes a job and a read once berthd writes its decisions there): freed here first. */
static void free_jobs_msg(job_info_msg_t *msg)
{
    for (uint32_t i = 0; msg && i < msg->record_count; i++)
        if (msg->job_array[i].admin_comment)
            slurm_xfree((void **)&msg->job_array[i].admin_comment);
    slurm_free_job_info_msg(msg);
}

static int fill_job(struct berth__slurm *s, const slurm_job_info_t *j, struct berth__slurm_job *o,
                    struct berth_err *e)
{
    memset(o, 0, sizeof *o);
    o->id = j->job_id;
    if (copy_str(o->name, sizeof o->name, j->name, "name", j->job_id, e) < 0 ||
        copy_str(o->partition, sizeof o->partition, j->partition, "partition", j->job_id, e) < 0 ||
        copy_str(o->nodes, sizeof o->nodes, j->nodes, "nodes", j->job_id, e) < 0 ||
        copy_str(o->req_nodes, sizeof o->req_nodes, j->req_nodes, "req_nodes", j->job_id, e) < 0 ||
        copy_str(o->features, sizeof o->features, j->features, "features", j->job_id, e) < 0)
        return e ? e->code : BERTH_EINPUT;
    /* a user's comment may be long: cut (berth's marks and berth-signal= come first) */
    snprintf(o->comment, sizeof o->comment, "%s", j->comment ? j->comment : "");
    o->waits_dependency = j->dependency && strstr(j->dependency, "(unfulfilled)");
    uint32_t base = j->job_state & JOB_STATE_BASE;
    switch (base) {
    case JOB_PENDING:
        o->state = BERTH_SLURM_JOB_PENDING;
        break;
    case JOB_RUNNING:
        o->state = BERTH_SLURM_JOB_RUNNING;
        break;
    case JOB_SUSPENDED:
        o->state = BERTH_SLURM_JOB_SUSPENDED;
        break;
    case JOB_COMPLETE:
        o->state = BERTH_SLURM_JOB_DONE;
        break;
    case JOB_CANCELLED:
        o->state = BERTH_SLURM_JOB_CANCELLED;
        break;
    case JOB_PREEMPTED:
        o->state = BERTH_SLURM_JOB_PREEMPTED;
        break;
    default:
        o->state = BERTH_SLURM_JOB_FAILED;
    }
    o->completing = (j->job_state & JOB_COMPLETING) != 0;
    o->timed_out = base == JOB_TIMEOUT;
    o->held = base == JOB_PENDING && j->priority == 0;
    snprintf(o->state_name, sizeof o->state_name, "%s", slurm_job_state_string(j->job_state));
    snprintf(o->reason, sizeof o->reason, "%s", berth_slurm_reason_string(j->state_reason));
    o->uid = j->user_id;
    o->gid = j->group_id;
    user_name(s, j->user_id, o->user);
    o->ask.nodes = j->num_nodes;
    o->switches = j->req_switch != NO_VAL ? j->req_switch : 0;
    int rc = berth__slurm_parse_tres(j->tres_per_node, 'n', &o->ask, e);
    if (rc == 0)
        rc = berth__slurm_parse_tres(j->tres_per_job, 'j', &o->ask, e);
    if (rc == 0)
        rc = berth__slurm_parse_tres(j->tres_per_task, 't', &o->ask, e);
    if (rc < 0)
        return berth_err_set(e, rc, "job %u: %s", j->job_id, e ? e->msg : "bad TRES");
    /* for messages only: cut when long */
    snprintf(o->gres, sizeof o->gres, "%s%s%s%s%s", j->tres_per_node ? j->tres_per_node : "",
             j->tres_per_job ? ";" : "", j->tres_per_job ? j->tres_per_job : "",
             j->tres_per_task ? ";" : "", j->tres_per_task ? j->tres_per_task : "");
    o->restarts = j->restart_cnt;
    o->exit_code = o->exit_signal = -1;
    if (base > JOB_SUSPENDED && j->exit_code != NO_VAL) {
        if (WIFSIGNALED(j->exit_code))
            o->exit_signal = WTERMSIG(j->exit_code);
        else
            o->exit_code = WEXITSTATUS(j->exit_code);
    }
    o->submit_us = secs_us(j->submit_time);
    o->start_us = secs_us(j->start_time);
    o->end_us = secs_us(j->end_time);
    o->time_limit_us = j->time_limit == INFINITE || j->time_limit == NO_VAL
                           ? 0
                           : (berth_us)j->time_limit * 60 * BERTH_US_PER_S;
    if (j->array_job_id && j->array_job_id != NO_VAL) {
        o->array_job_id = j->array_job_id;
        o->array_task = j->array_task_id == NO_VAL ? BERTH_SLURM_ARRAY_META : j->array_task_id;
        o->array_max = j->array_max_tasks == NO_VAL ? 0 : j->array_max_tasks;
        /* the pending tasks' indices: a long list is cut after a ',' (the rest come later) */
        const char *t = j->array_task_str ? j->array_task_str : "";
        size_t l = strcspn(t, "%");
        if (l >= sizeof o->array_pending) {
            l = sizeof o->array_pending - 1;
            while (l && t[l] != ',')
                l--;
        }
        memcpy(o->array_pending, t, l);
        o->array_pending[l] = '\0';
    }
    return 0;
}

static int fill_jobs(struct berth__slurm *s, job_info_msg_t *msg, struct berth__slurm_job **jobs,
                     size_t *n, struct berth_err *e)
{
    struct berth__slurm_job *out = calloc(msg->record_count ? msg->record_count : 1, sizeof *out);
    if (!out)
        return berth_err_set(e, BERTH_ENOMEM, "slurm: out of memory");
    for (uint32_t i = 0; i < msg->record_count; i++) {
        int rc = fill_job(s, &msg->job_array[i], &out[i], e);
        if (rc < 0) {
            free(out);
            return rc;
        }
    }
    *jobs = out;
    *n = msg->record_count;
    return 0;
}

int berth__slurm_jobs(struct berth__slurm *s, struct berth__slurm_job **jobs, size_t *n,
                      struct berth_err *e)
{
    job_info_msg_t *msg = NULL;
    *jobs = NULL;
    *n = 0;
    int rc = slurm_load_jobs(0, &msg, SHOW_ALL | SHOW_DETAIL);
    if (rc != SLURM_SUCCESS)
        return fail(s, e, 0, "reading jobs", 0);
    rc = fill_jobs(s, msg, jobs, n, e);
    free_jobs_msg(msg);
    return rc;
}

int berth__slurm_jobs_poll(struct berth__slurm *s, struct berth__slurm_job **jobs, size_t *n,
                           bool *changed, struct berth_err *e)
{
    job_info_msg_t *msg = NULL;
    *jobs = NULL;
    *n = 0;
    *changed = false;
    int rc = slurm_load_jobs(s->jobs_update, &msg, SHOW_ALL | SHOW_DETAIL);
    if (rc != SLURM_SUCCESS && berth_slurm_errno() == SLURM_NO_CHANGE_IN_DATA)
        return 0;
    if (rc != SLURM_SUCCESS)
        return fail(s, e, 0, "polling jobs", 0);
    rc = fill_jobs(s, msg, jobs, n, e);
    if (rc == 0) {
        *changed = true;
        s->jobs_update = msg->last_update;
    }
    free_jobs_msg(msg);
    return rc;
}

int berth__slurm_job(struct berth__slurm *s, uint32_t id, struct berth__slurm_job *job,
                     struct berth_err *e)
{
    job_info_msg_t *msg = NULL;
    if (slurm_load_job(&msg, id, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS)
        return fail(s, e, 0, "reading", id);
    int rc;
    if (msg->record_count < 1)
        rc = berth_err_set(e, BERTH_EINPUT, "slurm: job %u unknown", id);
    else
        rc = fill_job(s, &msg->job_array[0], job, e);
    free_jobs_msg(msg);
    return rc;
}

/* ---- control ---- */

#define SCRIPT_MAX 65536

int berth__slurm_submit_held(struct berth__slurm *s, const struct berth__slurm_submit *sub,
                             uint32_t *id, struct berth_err *e)
{
    static const char *const default_env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", NULL};
    char gres[BERTH_SLURM_NAME_MAX * 2];
    *id = 0;
    if (!sub->workdir || !*sub->workdir)
        return berth_err_set(e, BERTH_EINPUT, "slurm: submit: workdir is required");
    /* untyped GPUs, the type as a feature: 22.05 cannot change a job's GPU type later */
    int rc = berth__slurm_format_gres(gres, sizeof gres, sub->gpus_per_node, NULL,
                                      sub->shards_per_node, e);
    if (rc < 0)
        return rc;
    char *script = NULL;
    if (!sub->script) {
        script = malloc(SCRIPT_MAX);
        if (!script)
            return berth_err_set(e, BERTH_ENOMEM, "slurm: out of memory");
        rc = berth__slurm_argv_script(script, SCRIPT_MAX, sub->argv, e);
        if (rc < 0) {
            free(script);
            return rc;
        }
    }
    const char *const *env = sub->env ? sub->env : default_env;
    uint32_t env_size = 0;
    while (env[env_size])
        env_size++;

    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.name = (char *)(sub->name ? sub->name : "berth");
    d.script = script ? script : (char *)sub->script;
    d.work_dir = (char *)sub->workdir;
    d.environment = (char **)env;
    d.env_size = env_size;
    d.user_id = sub->set_owner ? sub->uid : getuid();
    d.group_id = sub->set_owner ? sub->gid : getgid();
    d.priority = 0; /* held; job_submit.lua holds it anyway */
    d.requeue = 1;  /* berth preempts by requeue */
    d.open_mode = OPEN_MODE_APPEND;
    if (sub->output)
        d.std_out = (char *)sub->output;
    if (sub->partition)
        d.partition = (char *)sub->partition;
    if (sub->comment)
        d.comment = (char *)sub->comment;
    d.min_nodes = d.max_nodes = sub->nodes ? sub->nodes : 1;
    if (gres[0])
        d.tres_per_node = gres;
    if (sub->gpu_type && *sub->gpu_type)
        d.features = (char *)sub->gpu_type;
    if (sub->cpus_per_node) {
        d.num_tasks = d.min_nodes;
        d.ntasks_per_node = 1;
        d.cpus_per_task = (uint16_t)sub->cpus_per_node;
    }
    if (sub->time_limit_us > 0)
        d.time_limit =
            (uint32_t)((sub->time_limit_us + 60 * BERTH_US_PER_S - 1) / (60 * BERTH_US_PER_S));
    if (sub->warn_signal > 0) {
        d.warn_signal = (uint16_t)sub->warn_signal;
        d.warn_time = (uint16_t)(sub->warn_s > 65535 ? 65535 : sub->warn_s);
        d.warn_flags = KILL_JOB_BATCH;
    }

    submit_response_msg_t *resp = NULL;
    rc = slurm_submit_batch_job(&d, &resp);
    free(script);
    if (rc != SLURM_SUCCESS || !resp)
        return fail(s, e, 0, "submit", 0);
    /* a held job is accepted with error_code ESLURM_JOB_HELD in the response */
    *id = resp->job_id;
    slurm_free_submit_response_response_msg(resp);
    return 0;
}

/* Whether the host lists a and b share a node; -1 when one cannot be read. */
static int overlap(const char *a, const char *b)
{
    berth_hostlist ha = slurm_hostlist_create(a), hb = slurm_hostlist_create(b);
    int found = ha && hb ? 0 : -1;
    char *h;
    while (found == 0 && hb && (h = slurm_hostlist_shift(hb))) {
        found = slurm_hostlist_find(ha, h) >= 0;
        free(h);
    }
    if (ha)
        slurm_hostlist_destroy(ha);
    if (hb)
        slurm_hostlist_destroy(hb);
    return found;
}

static int count_hosts(const char *list)
{
    berth_hostlist h = slurm_hostlist_create(list);
    if (!h)
        return -1;
    int n = slurm_hostlist_count(h);
    slurm_hostlist_destroy(h);
    return n;
}

int berth__slurm_place(struct berth__slurm *s, uint32_t id, const struct berth__slurm_place *p,
                       struct berth_err *e)
{
    char gres[BERTH_SLURM_NAME_MAX * 2];
    if (!p->nodes || !*p->nodes)
        return berth_err_set(e, BERTH_EINPUT, "slurm: place job %u: no nodes given", id);
    int hosts = count_hosts(p->nodes);
    if (hosts <= 0 || (p->num_nodes && (uint32_t)hosts != p->num_nodes))
        return berth_err_set(e, BERTH_EINPUT,
                             "slurm: place job %u: node list \"%s\" is not %u nodes", id, p->nodes,
                             p->num_nodes);
    struct berth__slurm_job j;
    int rc = berth__slurm_job(s, id, &j, e);
    if (rc < 0)
        return rc;
    /* 22.05 merges a new GPU type into the old one (the job then never runs): a typed job
     * keeps its type, an untyped one stays untyped and its nodes and features fix the type */
    const char *want = p->gpu_type && *p->gpu_type ? p->gpu_type : NULL;
    if (j.ask.gpu_type[0] && want && strcmp(want, j.ask.gpu_type) != 0)
        return berth_err_set(e, BERTH_EINPUT,
                             "slurm: place job %u: it asked GPU type %s at submission; Slurm "
                             "cannot change it to %s",
                             id, j.ask.gpu_type, want);
    rc = berth__slurm_format_gres(gres, sizeof gres, p->gpus_per_node,
                                  j.ask.gpu_type[0] ? j.ask.gpu_type : NULL, p->shards_per_node, e);
    if (rc < 0)
        return rc;
    if (p->mps_per_node && (gres[0] || p->gpus_per_job))
        return berth_err_set(e, BERTH_EINPUT, "slurm: place job %u: MPS or GPUs, not both", id);
    if (p->mps_per_node)
        snprintf(gres, sizeof gres, "gres:mps:%u", p->mps_per_node);
    char job_gres[BERTH_SLURM_NAME_MAX * 2] = "";
    if (p->gpus_per_job && p->gpus_per_node)
        return berth_err_set(e, BERTH_EINPUT, "slurm: place job %u: GPUs per node or per job", id);
    if (p->gpus_per_job &&
        (rc = berth__slurm_format_gres(job_gres, sizeof job_gres, p->gpus_per_job,
                                       j.ask.gpu_type[0] ? j.ask.gpu_type : NULL, 0, e)) < 0)
        return rc;
    if (j.state != BERTH_SLURM_JOB_PENDING)
        return berth_err_set(e, BERTH_EINPUT, "slurm: place job %u: it is %s, not pending", id,
                             j.state_name);
    /* a begin time set while the requeue completes is overwritten by Slurm's +121 s */
    if (j.completing)
        return berth_err_set(e, BERTH_EAGAIN, "slurm: place job %u: still completing its requeue",
                             id);
    berth_us now = now_us();
    for (size_t i = 0; i < RECENT; i++) {
        const struct recent *r = &s->recent[i];
        if (r->id == id && now - r->at < BERTH_SLURM_SAME_NODE_GAP_US &&
            overlap(r->nodes, p->nodes) != 0)
            return berth_err_set(e, BERTH_EAGAIN,
                                 "slurm: place job %u on %s: it left %s %.1f s ago; a restart on "
                                 "the same node waits %lld s (credential-revoked race)",
                                 id, p->nodes, r->nodes, (double)(now - r->at) / 1e6,
                                 (long long)(BERTH_SLURM_SAME_NODE_GAP_US / BERTH_US_PER_S));
    }

    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.req_nodes = (char *)p->nodes;
    d.min_nodes = d.max_nodes = (uint32_t)hosts;
    if (p->features)
        d.features = (char *)p->features;
    else if (want)
        d.features = (char *)want;
    if (gres[0])
        d.tres_per_node = gres;
    if (job_gres[0]) { /* the per-node ask of its submission must go, or both apply */
        d.tres_per_job = job_gres;
        if (!gres[0])
            d.tres_per_node = "";
    }
    if (j.switches && p->leaves > j.switches) { /* what berth placed: Slurm checks no more */
        d.req_switch = p->leaves;
        d.wait4switch = 0;
    }
    d.begin_time = (time_t)(now / BERTH_US_PER_S); /* no 121-s wait after a requeue */
    d.priority = INFINITE;                         /* the release, in the same update */
    if (slurm_update_job(&d) != SLURM_SUCCESS)
        return fail(s, e, 0, "place", id);
    return 0;
}

int berth__slurm_admin_comment(struct berth__slurm *s, uint32_t id, const char *text,
                               struct berth_err *e)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.admin_comment = (char *)text;
    if (slurm_update_job(&d) != SLURM_SUCCESS)
        return fail(s, e, 0, "admin comment", id);
    return 0;
}

int berth__slurm_set_time_limit(struct berth__slurm *s, uint32_t id, berth_us limit_us,
                                struct berth_err *e)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.time_limit = (uint32_t)((limit_us + 60 * BERTH_US_PER_S - 1) / (60 * BERTH_US_PER_S));
    if (slurm_update_job(&d) != SLURM_SUCCESS)
        return fail(s, e, 0, "time limit", id);
    return 0;
}

int berth__slurm_job_script(struct berth__slurm *s, uint32_t id, char **script, struct berth_err *e)
{
    size_t len = 0;
    *script = NULL;
    FILE *f = open_memstream(script, &len);
    if (!f)
        return berth_err_set(e, BERTH_ENOMEM, "out of memory");
    int rc = slurm_job_batch_script(f, id);
    if (fclose(f) || !*script) {
        free(*script);
        *script = NULL;
        return berth_err_set(e, BERTH_ENOMEM, "out of memory");
    }
    if (rc != SLURM_SUCCESS) {
        free(*script);
        *script = NULL;
        return fail(s, e, 0, "batch script", id);
    }
    return 0;
}

int berth__slurm_split_task(struct berth__slurm *s, uint32_t array_id, uint32_t task,
                            const char *text, struct berth_err *e)
{
    char id[32];
    snprintf(id, sizeof id, "%u_%u", array_id, task);
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id_str = id;
    d.admin_comment = (char *)text;
    if (slurm_update_job(&d) != SLURM_SUCCESS)
        return fail(s, e, 0, "split array task", array_id);
    return 0;
}

int berth__slurm_hold(struct berth__slurm *s, uint32_t id, struct berth_err *e)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.priority = 0;
    if (slurm_update_job(&d) != SLURM_SUCCESS)
        return fail(s, e, 0, "hold", id);
    return 0;
}

/* The requeue-and-hold itself; the job's nodes are remembered for the same-node gap. */
static int requeue_held(struct berth__slurm *s, const struct berth__slurm_job *j,
                        struct berth_err *e)
{
    if (slurm_requeue(j->id, JOB_REQUEUE_HOLD) != SLURM_SUCCESS)
        return fail(s, e, 0, "requeue", j->id);
    struct recent *r = &s->recent[s->next_recent++ % RECENT];
    r->id = j->id;
    r->at = now_us();
    memcpy(r->nodes, j->nodes, sizeof r->nodes);
    return 0;
}

int berth__slurm_requeue_hold(struct berth__slurm *s, uint32_t id, struct berth_err *e)
{
    struct berth__slurm_job j;
    int rc = berth__slurm_job(s, id, &j, e);
    if (rc < 0)
        return rc;
    if (j.state != BERTH_SLURM_JOB_RUNNING && j.state != BERTH_SLURM_JOB_SUSPENDED)
        return berth_err_set(e, BERTH_EINPUT, "slurm: preempt job %u: it is %s, not running", id,
                             j.state_name);
    /* start_us has one-second resolution: wait one more second to be sure */
    berth_us ran = now_us() - j.start_us;
    if (ran < BERTH_SLURM_MIN_RUN_US + BERTH_US_PER_S)
        return berth_err_set(e, BERTH_EAGAIN,
                             "slurm: preempt job %u: it started %.1f s ago; preemption waits "
                             "until it has run %lld s (credential-revoked race)",
                             id, (double)ran / 1e6,
                             (long long)(BERTH_SLURM_MIN_RUN_US / BERTH_US_PER_S + 1));
    return requeue_held(s, &j, e);
}

int berth__slurm_requeue_ended(struct berth__slurm *s, uint32_t id, struct berth_err *e)
{
    struct berth__slurm_job j;
    int rc = berth__slurm_job(s, id, &j, e);
    if (rc < 0)
        return rc;
    if (j.state != BERTH_SLURM_JOB_DONE && j.state != BERTH_SLURM_JOB_FAILED)
        return berth_err_set(e, BERTH_EINPUT, "slurm: requeue job %u: it is %s, not ended", id,
                             j.state_name);
    if (j.completing)
        return berth_err_set(e, BERTH_EAGAIN, "slurm: requeue job %u: still completing", id);
    return requeue_held(s, &j, e);
}

int berth__slurm_resize(struct berth__slurm *s, uint32_t id, const struct berth__slurm_place *p,
                        struct berth_err *e)
{
    int rc = berth__slurm_requeue_hold(s, id, e);
    if (rc < 0)
        return rc;
    berth_us deadline = now_us() + BERTH_SLURM_RESIZE_WAIT_US;
    for (;;) {
        rc = berth__slurm_place(s, id, p, e);
        if (rc != BERTH_EAGAIN || now_us() >= deadline)
            return rc;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

int berth__slurm_signal(struct berth__slurm *s, uint32_t id, int sig, int tree, struct berth_err *e)
{
    if (slurm_kill_job(id, (uint16_t)sig, tree ? KILL_FULL_JOB : KILL_JOB_BATCH) != SLURM_SUCCESS)
        return fail(s, e, 0, "signal", id);
    return 0;
}

int berth__slurm_cancel(struct berth__slurm *s, uint32_t id, struct berth_err *e)
{
    if (slurm_kill_job(id, SIGKILL, 0) != SLURM_SUCCESS)
        return fail(s, e, 0, "cancel", id);
    return 0;
}

/* ---- job arrays ---- */

int berth__slurm_submit_array(struct berth__slurm *s, const struct berth__slurm_array *a,
                              uint32_t *id, struct berth_err *e)
{
    *id = 0;
    if (!a->workdir || !*a->workdir || !a->script || !a->indices || !*a->indices)
        return berth_err_set(e, BERTH_EINPUT,
                             "slurm: array: workdir, script and indices are "
                             "required");
    static const char *const no_env[] = {NULL};
    const char *const *env = a->env ? a->env : no_env;
    uint32_t env_size = 0;
    while (env[env_size])
        env_size++;
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.name = (char *)(a->name ? a->name : "berth-sweep");
    d.script = (char *)a->script;
    d.work_dir = (char *)a->workdir;
    d.environment = (char **)env;
    d.env_size = env_size;
    d.user_id = getuid();
    d.group_id = getgid();
    d.array_inx = (char *)a->indices;
    if (a->output)
        d.std_out = (char *)a->output;
    if (a->partition)
        d.partition = (char *)a->partition;
    d.min_nodes = d.max_nodes = 1;
    d.num_tasks = 1;
    d.cpus_per_task = (uint16_t)(a->cpus ? a->cpus : 1);
    if (a->time_limit_us > 0)
        d.time_limit =
            (uint32_t)((a->time_limit_us + 60 * BERTH_US_PER_S - 1) / (60 * BERTH_US_PER_S));
    submit_response_msg_t *resp = NULL;
    if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS || !resp)
        return fail(s, e, 0, "submit the array", 0);
    *id = resp->job_id;
    slurm_free_submit_response_response_msg(resp);
    return 0;
}

int berth__slurm_array_active(struct berth__slurm *s, uint32_t id, size_t *active,
                              struct berth_err *e)
{
    *active = 0;
    job_info_msg_t *msg = NULL;
    if (slurm_load_job(&msg, id, SHOW_ALL) != SLURM_SUCCESS) {
        if (berth_slurm_errno() == ESLURM_INVALID_JOB_ID)
            return 0; /* over and purged (MinJobAge) */
        return fail(s, e, 0, "reading the array", id);
    }
    for (uint32_t i = 0; i < msg->record_count; i++) {
        const slurm_job_info_t *j = &msg->job_array[i];
        uint32_t base = j->job_state & JOB_STATE_BASE;
        if (base == JOB_PENDING || base == JOB_RUNNING || base == JOB_SUSPENDED ||
            (j->job_state & JOB_COMPLETING))
            (*active)++;
    }
    slurm_free_job_info_msg(msg);
    return 0;
}
