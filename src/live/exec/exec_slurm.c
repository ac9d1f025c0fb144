/* The slurm executor (executor.h): berthd decides, a Slurm cluster runs the jobs. The
 * inventory is slurmctld's nodes; every job is a Slurm job held at priority 0 (berth's own
 * are submitted held, sbatch jobs are held by contrib/slurm/job_submit.lua and adopted into
 * berth's queue); a start is one place-and-release update; a preemption or a resize is a
 * requeue-and-hold, after which the job is placed again; a cancel is scancel. One poll of
 * slurmctld per tick ("no change" costs about a millisecond) refreshes what berthd knows of
 * each job, and the loop's state machine (daemon_exec.c) reads it through poll. The control
 * model and the pitfalls respected here are in docs/slurm.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "live/exec/exec_local.h"
#include "live/exec/executor.h"
#include "live/exec/slurm_topo.h"
#include "model/cluster.h"
#include "slurmapi/slurm_api.h"
#include "util/atomic_file.h"

#define RETRY_US      (250 * 1000)          /* a "not yet" from Slurm is tried again after */
#define ERR_LOG_EVERY (10 * BERTH_US_PER_S) /* an unreachable slurmctld is logged this often */
#define POLL_DUTY     4        /* a read of the job list that took T waits 4 T for the next poll */
#define COMMENT       "berth:" /* comments "berth:TAG:ID" mark berthd's Slurm jobs */
#define OPT_OUT       "berth:slurm" /* job_submit.lua marks jobs left to Slurm */
/* an adopted job's Slurm time limit is its --time plus this: berth enforces --time (signal,
 * grace, cancel) before Slurm's checks (every 30 s or so) could race it */
#define SLURM_LIMIT_MARGIN (60 * BERTH_US_PER_S)
/* the whole job list is read this often even when Slurm says nothing changed: it does not
 * count some changes (a held job's --dependency fulfilled by its periodic pass) as one */
#define FULL_READ_EVERY (10 * BERTH_US_PER_S)
#define SCOPE_EVERY     BERTH_US_PER_S /* berth_scope (the heartbeat) is written this often */

struct xslurm {
    const struct berth__exec_host *h;
    const struct berth_cluster *inv; /* the inventory open made (the host's, kept unchanged) */
    struct berth__slurm *s;
    uint32_t *key, *val; /* Slurm job id -> live id (open addressing; UINT32_MAX: refused) */
    size_t cap, n;
    uint64_t gen;                           /* polls that read the job list */
    uint32_t *shards_per_gpu, *mps_per_gpu; /* per server */
    uint32_t kill_wait_s;
    int mapped;   /* the journal's Slurm ids are in the map */
    char tag[24]; /* this berthd's instance (STATE/slurm-instance): comments "berth:TAG:ID" */
    berth_us err_logged;
    /* the last poll, made by slurm_fetch and taken in by slurm_sync */
    int fetched, fetch_rc;
    bool changed;
    struct berth__slurm_job *jobs;
    size_t njobs;
    struct berth_err fetch_err;
    berth_us next_poll, full_at; /* the next poll; the next whole read */
    /* the nodes, read every NODES_EVERY by slurm_prefetch: a node drained, down or not
     * responding is reserved (no placement there) once idle, and given back when it returns */
    struct berth__slurm_node *nodes;
    size_t nnodes;
    int nodes_fetched;
    berth_us nodes_at, nodes_every; /* the next read; --slurm-node-poll */
    berth_us nodes_forced_at;       /* the last read a job Slurm could not start asked for */
    uint8_t *offline;               /* per server: closed by this executor (drained, down) */
    size_t unknown;                 /* Slurm's nodes not in the inventory, at the last read */
    int32_t *outside; /* per server: GPUs Slurm jobs berth did not place hold (held out) */
    int32_t *count;   /* scratch for the same */
    struct berth__slurm_job *later; /* the recovery's list, counted at the next sync (after
                                       the journaled jobs took their GPUs back) */
    /* while recovery's sync reads the job list: the GPUs of each server the journaled
     * attempts hold, and those given to jobs Slurm started while berthd was away (NULL
     * until the first such job, and outside recovery) */
    int recovering;
    uint64_t *rbusy;
    const struct berth__slurm_job *rjobs; /* the list that sync reads */
    size_t nrjobs;
    size_t nlater;
    /* the scope: --slurm-partitions (NULL: all) and the file job_submit.lua reads */
    const char *parts;
    char default_part[BERTH_SLURM_NAME_MAX];
    char scope_path[4200];
    berth_us scope_at, scope_err_logged;
    int comment_refused; /* an admin comment was refused (logged once) */
    /* the array that adopt_array last found not ready, and in which read: its other tasks
     * in the same read are not looked at again */
    uint32_t array_waits;
    uint64_t array_waits_gen;
};

/* For measuring the poll's own cost. */
static berth_us mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (berth_us)ts.tv_sec * BERTH_US_PER_S + ts.tv_nsec / 1000;
}

/* ---- Slurm job id -> live id ---- */

static size_t slot_of(const struct xslurm *x, uint32_t key)
{
    size_t i = (key * 2654435761u) & (x->cap - 1);
    while (x->key[i] && x->key[i] != key)
        i = (i + 1) & (x->cap - 1);
    return i;
}

static uint32_t map_get(const struct xslurm *x, uint32_t key)
{
    return x->cap ? x->val[slot_of(x, key)] : 0;
}

static int map_put(struct xslurm *x, uint32_t key, uint32_t val)
{
    if (2 * (x->n + 1) > x->cap) {
        struct xslurm old = *x;
        x->cap = old.cap ? old.cap * 2 : 1024;
        x->key = calloc(x->cap, sizeof *x->key);
        x->val = calloc(x->cap, sizeof *x->val);
        if (!x->key || !x->val) {
            free(x->key);
            free(x->val);
            *x = old;
            return -1;
        }
        x->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.key[i]) {
                size_t s = slot_of(x, old.key[i]);
                x->key[s] = old.key[i];
                x->val[s] = old.val[i];
                x->n++;
            }
        free(old.key);
        free(old.val);
    }
    size_t s = slot_of(x, key);
    x->n += !x->key[s];
    x->key[s] = key;
    x->val[s] = val;
    return 0;
}

static int bind(struct xslurm *x, struct berth__ljob *j, uint32_t slurm_id, struct berth_err *err)
{
    j->slurm_id = slurm_id;
    j->sl_gen = x->gen;
    j->sl_state = BERTH_SLURM_JOB_PENDING;
    j->sl_held = 1;
    j->sl_gone = j->sl_completing = 0;
    j->sl_restarts = 0;
    if (map_put(x, slurm_id, (uint32_t)j->id))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    return 0;
}

/* ---- the inventory ---- */

/* The instance tag, made once per state directory, so that two berthds (or a wiped state)
 * never take each other's Slurm jobs for their own. */
static int read_tag(struct xslurm *x, struct berth_err *err)
{
    char path[4200];
    unsigned char r[4];
    snprintf(path, sizeof path, "%s/slurm-instance", x->h->files->state_dir);
    FILE *f = fopen(path, "r");
    if (f) {
        int ok = fscanf(f, "%16[0-9a-zA-Z]", x->tag) == 1;
        fclose(f);
        if (ok)
            return 0;
    }
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        return berth_err_set(err, BERTH_EIO, "no randomness for the instance tag");
    snprintf(x->tag, sizeof x->tag, "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
    f = fopen(path, "w");
    int bad = !f || fprintf(f, "%s\n", x->tag) < 0;
    if ((f && fclose(f)) || bad)
        return berth_err_set(err, BERTH_EIO, "%s: cannot write", path);
    return 0;
}

/* Whether every partition of list (a job's "a,b"; "" is the default one) is berth's. */
static int in_scope(const struct xslurm *x, const char *list)
{
    if (!x->parts)
        return 1;
    if (!*list)
        list = x->default_part;
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ","), found = 0;
        for (const char *q = x->parts; *q && !found;) {
            size_t m = strcspn(q, ",");
            found = m == l && !strncmp(p, q, l);
            q += m + (q[m] == ',');
        }
        if (!found)
            return 0;
        p += l + (p[l] == ',');
    }
    return 1;
}

/* The scope: --slurm-partitions checked against slurmctld's partitions (each must exist),
 * the names of their nodes (*keep), the default partition, and where berth_scope goes
 * (beside slurm.conf, where job_submit.lua is). */
static int read_scope(struct xslurm *x, char (**keep)[BERTH_SLURM_NAME_MAX], size_t *nkeep,
                      struct berth_err *err)
{
    const char *conf = x->h->slurm_conf ? x->h->slurm_conf : getenv("SLURM_CONF");
    conf = conf && *conf ? conf : "/etc/slurm/slurm.conf";
    const char *slash = strrchr(conf, '/');
    snprintf(x->scope_path, sizeof x->scope_path, "%.*s/berth_scope",
             slash ? (int)(slash - conf) : 1, slash ? conf : ".");
    x->parts = x->h->slurm_partitions;
    struct berth__slurm_partition *pa = NULL;
    size_t np = 0, cap = 0;
    int rc = berth__slurm_partitions(x->s, &pa, &np, err);
    for (size_t i = 0; !rc && i < np; i++)
        if (pa[i].is_default)
            snprintf(x->default_part, sizeof x->default_part, "%s", pa[i].name);
    for (const char *p = x->parts; !rc && p && *p;) {
        size_t l = strcspn(p, ","), i = 0, got = 0;
        while (i < np && (strlen(pa[i].name) != l || strncmp(pa[i].name, p, l)))
            i++;
        if (i == np) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "--slurm-partitions: slurmctld has no partition '%.*s'", (int)l, p);
            break;
        }
        if (*nkeep + 4096 > cap) {
            cap = *nkeep + 8192;
            void *m = realloc(*keep, cap * sizeof **keep);
            if (!m) {
                rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
                break;
            }
            *keep = m;
        }
        rc = berth__slurm_hostlist(pa[i].nodes, *keep + *nkeep, cap - *nkeep, &got, err);
        *nkeep += got;
        p += l + (p[l] == ',');
    }
    free(pa);
    return rc;
}

/* Whether node name is one berth schedules: any without --slurm-partitions, else one of the
 * scope's nodes (keep, read_scope's). */
static int in_partitions(const struct xslurm *x, char (*keep)[BERTH_SLURM_NAME_MAX], size_t nkeep,
                         const char *name)
{
    size_t k = 0;
    while (x->parts && k < nkeep && strcmp(keep[k], name))
        k++;
    return !x->parts || k < nkeep;
}

/* The scope file's text for now into buf (cap bytes); its length, as snprintf's. */
static int scope_text(const struct xslurm *x, berth_us now, char *buf, size_t cap)
{
    return snprintf(buf, cap,
                    "# written by berthd every second; contrib/slurm/job_submit.lua "
                    "reads it\nheartbeat %lld\nstale_after %lld\ndefault %s\n"
                    "partitions %s\n",
                    (long long)(now / BERTH_US_PER_S),
                    (long long)(x->h->slurm_failsafe_us / BERTH_US_PER_S),
                    x->default_part[0] ? x->default_part : "-", x->parts ? x->parts : "*");
}

/* berth_scope, read by job_submit.lua at each submit: the heartbeat (the wall clock's
 * seconds), how old it may get before the hook holds nothing, the default partition and
 * berth's partitions ("*": all). Written to a temporary file, then renamed (mode 0666 less
 * the umask: slurmctld's account reads it). */
static void write_scope(struct xslurm *x, berth_us now)
{
    char small[1024], *text = small;
    int len = scope_text(x, now, small, sizeof small), bad = len < 0;
    if (!bad && (size_t)len >= sizeof small) { /* a long --slurm-partitions */
        text = malloc((size_t)len + 1);
        if (!text)
            errno = ENOMEM;
        bad = !text || scope_text(x, now, text, (size_t)len + 1) != len;
    }
    if (!bad)
        bad = berth__atomic_write(NULL, x->scope_path, text, (size_t)len, 0, 0666, NULL) != 0;
    int e = errno;
    if (text != small)
        free(text);
    if (bad && now - x->scope_err_logged >= ERR_LOG_EVERY) {
        berth__exec_log(x->h,
                        "berthd: %s: cannot write (%s): job_submit.lua will stop holding "
                        "jobs\n",
                        x->scope_path, strerror(e));
        x->scope_err_logged = now;
    }
    x->scope_at = now + SCOPE_EVERY;
}

static void slurm_close(void *self)
{
    struct xslurm *x = self;
    if (!x)
        return;
    berth__slurm_close(x->s);
    free(x->key);
    free(x->val);
    free(x->shards_per_gpu);
    free(x->mps_per_gpu);
    free(x->offline);
    free(x->outside);
    free(x->count);
    free(x->later);
    free(x->nodes);
    free(x->jobs);
    free(x);
}

static int slurm_open(const struct berth__exec_host *h, void **self,
                      struct berth_cluster **inventory, struct berth_err *err)
{
    struct xslurm *x = calloc(1, sizeof *x);
    if (!x)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    x->h = h;
    int rc = 0;
    struct berth__slurm_node *nodes = NULL;
    size_t n = 0;
    if (h->gpus)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "--gpus: the slurm executor takes its GPUs from slurmctld's nodes");
    char(*keep)[BERTH_SLURM_NAME_MAX] = NULL;
    size_t nkeep = 0;
    if (rc || (rc = berth__slurm_open(&x->s, h->slurm_conf, err)) ||
        (rc = berth__slurm_kill_wait(x->s, &x->kill_wait_s, err)) || (rc = read_tag(x, err)) ||
        (rc = read_scope(x, &keep, &nkeep, err)) ||
        (rc = berth__slurm_nodes(x->s, &nodes, &n, err))) {
        free(keep);
        slurm_close(x);
        return rc;
    }
    /* racks and blocks from slurmctld's topology (leaf switch = rack, its parent = block);
     * none when it has none or scontrol cannot say (logged): the servers are then flat */
    struct berth__slurm_topo topo = {0};
    struct berth_err terr = {0};
    if (berth__slurm_topo_read(h->slurm_conf, &topo, &terr) == BERTH_ENOMEM) {
        free(keep);
        slurm_close(x);
        free(nodes);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    if (terr.msg[0])
        berth__exec_log(h, "berthd: slurm: %s; the nodes get no racks or blocks\n", terr.msg);
    struct berth__cluster_builder b;
    berth__builder_init(&b);
    x->shards_per_gpu = calloc(n + 1, sizeof *x->shards_per_gpu);
    x->mps_per_gpu = calloc(n + 1, sizeof *x->mps_per_gpu);
    x->offline = calloc(n + 1, sizeof *x->offline);
    x->outside = calloc(n + 1, sizeof *x->outside);
    x->count = calloc(n + 1, sizeof *x->count);
    if (!x->shards_per_gpu || !x->mps_per_gpu || !x->offline || !x->outside || !x->count)
        rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
    size_t ns = 0, nracked = 0; /* servers: the nodes of the scope's partitions, in Slurm's
                                   order; those the topology places */
    for (size_t i = 0; !rc && i < n; i++) {
        const struct berth__slurm_node *v = &nodes[i];
        if (!in_partitions(x, keep, nkeep, v->name))
            continue; /* outside berth's partitions: Slurm's alone */
        /* one GPU type a server: a node's first typed GPUs (others are left out, said) */
        const char *type = v->n_gpu_types && v->gpus[0].type[0] ? v->gpus[0].type : "gpu";
        uint32_t gpus = v->n_gpu_types ? v->gpus[0].count : 0;
        if (v->n_gpu_types > 1)
            berth__exec_log(h, "berthd: slurm node %s: only its %u %s GPUs are scheduled\n",
                            v->name, gpus, type);
        struct berth__server_spec sp = {.type = berth__builder_str(&b, type, 1),
                                        .name = berth__builder_str(&b, v->name, 0),
                                        .gpus = (int32_t)gpus,
                                        .cpu_milli = (int64_t)v->cpus * 1000,
                                        .mem_mib = (int64_t)v->memory_mb,
                                        .src = ns};
        const char *rack, *block;
        berth__slurm_topo_where(&topo, v->name, &rack, &block);
        sp.rack = rack ? berth__builder_str(&b, rack, 0) : NULL;
        sp.block = block ? berth__builder_str(&b, block, 0) : NULL;
        nracked += rack || block;
        if ((rack && !sp.rack) || (block && !sp.block))
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
        x->shards_per_gpu[ns] = gpus ? v->shards / gpus : 0;
        x->mps_per_gpu[ns++] = gpus ? v->mps / gpus : 0;
        if (!sp.type || !sp.name || berth__builder_add(&b, &sp))
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    if (!rc && !ns)
        rc = berth_err_set(err, BERTH_EINPUT, "--executor slurm: slurmctld reports no nodes%s%s",
                           x->parts ? " in partitions " : "", x->parts ? x->parts : "");
    free(keep);
    if (!rc && topo.n)
        berth__exec_log(h,
                        "berthd: slurm topology: %zu switches or blocks; %zu of %zu nodes in a "
                        "rack or block\n",
                        topo.n, nracked, ns);
    berth__slurm_topo_free(&topo);
    if (!rc)
        rc = berth__builder_build(&b, "slurm", inventory, err);
    berth__builder_free(&b);
    if (rc) {
        free(nodes);
        slurm_close(x);
        return rc;
    }
    x->inv = *inventory;
    *self = x;
    /* this read is the first the loop applies (a node drained now is closed at the first
     * sync); the next comes --slurm-node-poll later */
    x->nodes = nodes;
    x->nnodes = n;
    x->nodes_fetched = 1;
    x->nodes_every = h->slurm_node_poll_us > 0 ? h->slurm_node_poll_us : 5 * BERTH_US_PER_S;
    x->nodes_at = h->now(h->ctx) + x->nodes_every;
    berth__exec_log(h, "berthd: slurm executor: %zu nodes%s%s, KillWait %u s, scope in %s\n", ns,
                    x->parts ? " of partitions " : "", x->parts ? x->parts : "", x->kill_wait_s,
                    x->scope_path);
    write_scope(x, h->now(h->ctx));
    return 0;
}

/* ---- submitting ---- */

/* The batch script: the attempt number and the resume flag from Slurm's restart count, the
 * gang variables and BERTH_RANK_HOSTS from the allocation (Slurm keeps the nodes berth gave
 * it and lists them in its own node order; no BERTH_HOSTFILE: a job under Slurm has no
 * folder of berthd's on its nodes, and srun or SLURM_JOB_NODELIST give the same), then exec
 * of the job's argv. */
static int job_script(const struct berth__ljob *j, int first, char **out, struct berth_err *err)
{
    static const char head[] =
        "#!/bin/sh\n"
        "# berth job %s: attempt and resume from Slurm's restart count\n"
        "BERTH_ATTEMPT=$((${SLURM_RESTART_COUNT:-0} + %d)); export BERTH_ATTEMPT\n"
        "[ \"${SLURM_RESTART_COUNT:-0}\" -gt 0 ] && BERTH_RESUME=1 && export BERTH_RESUME\n"
        "WORLD_SIZE=$((${SLURM_GPUS_ON_NODE:-1} * ${SLURM_JOB_NUM_NODES:-1})); RANK=0; "
        "LOCAL_RANK=0\n"
        "MASTER_ADDR=$(hostname); MASTER_PORT=$((29500 + ${SLURM_JOB_ID:-0} %% 2000))\n"
        "export WORLD_SIZE RANK LOCAL_RANK MASTER_ADDR MASTER_PORT\n"
        "# the ranks' hosts: the allocation's nodes in Slurm's order, its GPUs on each\n"
        "BERTH_RANK_HOSTS=$(scontrol show hostnames \"${SLURM_JOB_NODELIST:-}\" 2>/dev/null | "
        "awk -v g=\"${SLURM_GPUS_ON_NODE:-1}\" '{for (i = 0; i < g; i++) printf \"%%s%%s\", "
        "n++ ? \",\" : \"\", $0}')\n"
        "[ -n \"$BERTH_RANK_HOSTS\" ] && export BERTH_RANK_HOSTS\n";
    size_t cap = 65536;
    char *s = malloc(cap);
    if (!s)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int o = snprintf(s, cap, head, j->idstr, first);
    /* argv_script writes "#!/bin/sh\nexec ...": keep its exec line */
    char *body = malloc(cap);
    int rc = body ? berth__slurm_argv_script(body, cap, (const char *const *)j->argv, err)
                  : berth_err_set(err, BERTH_ENOMEM, "out of memory");
    if (!rc) {
        const char *ex = strchr(body, '\n');
        if (!ex || (size_t)o + strlen(ex) >= cap)
            rc = berth_err_set(err, BERTH_EINPUT, "argv: too long for a Slurm batch script");
        else
            memcpy(s + o, ex + 1, strlen(ex));
    }
    free(body);
    if (rc) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* Whether a preemption sends the job's own checkpoint signal first, then requeues it after
 * the grace: a job berthd submitted that asked for one other than SIGTERM, with a grace; an
 * adopted sbatch job with its --signal (any but a plain SIGTERM with KillWait's lead, which
 * is what the requeue itself gives). */
static int own_signal(const struct xslurm *x, const struct berth__ljob *j)
{
    if (j->ckpt_sig <= 0 || j->grace_us <= 0)
        return 0;
    return j->ckpt_sig != 15 ||
           (j->foreign && j->grace_us != (berth_us)x->kill_wait_s * BERTH_US_PER_S);
}

/* first: the attempt the Slurm job's first run is (admit: the next; launch: this one). */
static int submit(struct xslurm *x, struct berth__ljob *j, int first, struct berth_err *err)
{
    const struct berth__exec_host *h = x->h;
    char **env = h->job_env(h->ctx, j, 0), *script = NULL, buf[4200], comment[64];
    size_t n = 0;
    if (!env)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    while (env[n])
        n++;
    size_t cap = n + 1;
    int has_path = 0;
    for (size_t i = 0; i < n; i++)
        has_path |= !strncmp(env[i], "PATH=", 5);
    /* the checkpoint request: the job's own signal, sent through Slurm, with its grace before
     * the requeue; else the requeue's SIGTERM, the grace Slurm's KillWait */
    int own = own_signal(x, j);
    if (own)
        snprintf(buf, sizeof buf, "%lld", (long long)(j->grace_us / BERTH_US_PER_S));
    else
        snprintf(buf, sizeof buf, "%u", x->kill_wait_s);
    int rc = berth__env_add(&env, &n, &cap, "BERTH_CHECKPOINT_SIGNAL",
                            own ? berth__signal_name(j->ckpt_sig) : "SIGTERM") ||
                     berth__env_add(&env, &n, &cap, "BERTH_GRACE_S", buf) ||
                     (!has_path &&
                      berth__env_add(&env, &n, &cap, "PATH", "/usr/local/bin:/usr/bin:/bin")) ||
                     (j->resume && berth__env_add(&env, &n, &cap, "BERTH_RESUME", "1"))
                 ? berth_err_set(err, BERTH_ENOMEM, "out of memory")
                 : job_script(j, first, &script, err);
    /* the output goes to the job's spool folder, its account's: the Slurm job runs as it */
    if (!rc)
        rc = berth__lexec_prepare(h->files, j, err);
    berth__lexec_spool(h->files, j->id, "stdout.log", buf, sizeof buf);
    snprintf(comment, sizeof comment, COMMENT "%s:%s", x->tag, j->idstr);
    struct berth__slurm_submit sub = {.name = j->name,
                                      .script = script,
                                      .workdir = j->cwd,
                                      .env = (const char *const *)env,
                                      .output = buf,
                                      .nodes = 1,
                                      .partition = x->parts,
                                      .comment = comment,
                                      .uid = j->uid,
                                      .gid = j->gid,
                                      .set_owner = h->files->multi_user};
    if (berth_jobspec_extra(&j->spec)->time_limit_us >
        0) { /* Slurm's limit backs berth's up (berthd away) */
        sub.time_limit_us = berth_jobspec_extra(&j->spec)->time_limit_us +
                            (j->grace_us > 0 ? j->grace_us : 0) + SLURM_LIMIT_MARGIN;
        sub.warn_signal = j->ckpt_sig > 0 ? j->ckpt_sig : 15;
        sub.warn_s = (uint32_t)(j->grace_us / BERTH_US_PER_S);
    }
    uint32_t id = 0;
    if (!rc)
        rc = berth__slurm_submit_held(x->s, &sub, &id, err);
    free(script);
    berth__strv_free(env);
    if (!rc)
        rc = bind(x, j, id, err);
    return rc;
}

static int slurm_admit(void *self, struct berth__ljob *j, berth_us now, struct berth_err *err)
{
    struct xslurm *x = self;
    if (j->slurm_id)
        return 0;
    int rc = submit(x, j, j->attempt + 1, err);
    if (rc == BERTH_ENOMEM)
        return rc;
    if (rc) /* the launch submits it again; the queue does not wait for Slurm */
        berth__exec_log(x->h, "berthd: job %s: %s\n", j->idstr, err->msg);
    else
        berth__ljob_note(j, now, j->state, "held in Slurm as job %u", j->slurm_id);
    return 0;
}

/* ---- placing ---- */

/* berth's decision in the Slurm job's admin comment (sacct shows it): what, then the job's
 * latest note (who decided and why). A refusal (berthd without admin rights) is logged once. */
static void decision(struct xslurm *x, const struct berth__ljob *j, const char *what)
{
    char text[256];
    snprintf(text, sizeof text, "berth job %s: %s%s%s", j->idstr, what, j->nhist ? ": " : "",
             j->nhist ? j->hist[j->nhist - 1].note : "");
    struct berth_err e = {0};
    if (berth__slurm_admin_comment(x->s, j->slurm_id, text, &e) && !x->comment_refused) {
        x->comment_refused = 1;
        berth__exec_log(x->h,
                        "berthd: %s (berth's decisions are not written to Slurm's admin "
                        "comments)\n",
                        e.msg);
    }
}

static int slurm_launch(void *self, struct berth__ljob *j, berth_us now, struct berth_err *err)
{
    struct xslurm *x = self;
    int rc;
    if (j->slurm_id && j->foreign &&
        (j->sl_state == BERTH_SLURM_JOB_DONE || j->sl_state == BERTH_SLURM_JOB_FAILED)) {
        /* an adopted job that exited on its checkpoint signal in a preemption: its Slurm job
         * is requeued held (Slurm requeues an ended batch job), then placed as before */
        struct berth_err e = {0};
        rc = berth__slurm_requeue_ended(x->s, j->slurm_id, &e);
        if (rc == BERTH_EAGAIN) {
            j->launch_at = now + RETRY_US;
            return rc;
        }
        if (rc)
            return berth_err_set(err, rc, "%s", e.msg);
        j->sl_state = BERTH_SLURM_JOB_PENDING;
        j->sl_held = 1;
        j->sl_restarts++;
        berth__ljob_note(j, now, j->state, "Slurm job %u requeued held after its checkpoint exit",
                         j->slurm_id);
    }
    if (j->slurm_id && j->sl_state >= BERTH_SLURM_JOB_DONE) /* it ended: a new Slurm job */
        j->slurm_id = 0;
    if (!j->slurm_id && j->foreign)
        return berth_err_set(err, BERTH_EINPUT,
                             "its Slurm job is gone; berthd cannot resubmit "
                             "a job it did not submit");
    if (!j->slurm_id && (rc = submit(x, j, j->attempt, err)))
        return rc;
    /* the nodes in the order of the slots, with the GPUs on each */
    uint32_t srv[BERTH_L_MAX_SLOTS], cnt[BERTH_L_MAX_SLOTS];
    int32_t nsrv = 0;
    for (int32_t i = 0; i < j->nslots; i++) {
        int32_t k = 0;
        while (k < nsrv && srv[k] != j->slots[i].server)
            k++;
        if (k == nsrv) {
            srv[nsrv] = j->slots[i].server;
            cnt[nsrv++] = 0;
        }
        cnt[k] += j->slots[i].gpu != BERTH_NO_GPU;
    }
    char nodes[BERTH_SLURM_LIST_MAX];
    size_t o = 0;
    int even = 1;
    uint32_t total = 0;
    for (int32_t k = 0; k < nsrv && o < sizeof nodes; k++) {
        o += (size_t)snprintf(nodes + o, sizeof nodes - o, "%s%s", k ? "," : "",
                              x->inv->srv[srv[k]].name);
        even &= cnt[k] == cnt[0];
        total += cnt[k];
    }
    if (o >= sizeof nodes)
        return berth_err_set(err, BERTH_EINPUT, "its node list is too long for Slurm");
    const struct berth__server *v = &x->inv->srv[srv[0]];
    struct berth__slurm_place p = {
        .nodes = nodes, .num_nodes = (uint32_t)nsrv, .gpu_type = x->inv->types[v->type].name};
    for (int32_t k = 0; k < nsrv; k++) { /* the racks (Slurm's leaf switches) it spans */
        int32_t r = x->inv->srv[srv[k]].rack, seen = r < 0;
        for (int32_t i = 0; i < k && !seen; i++)
            seen = x->inv->srv[srv[i]].rack == r;
        p.leaves += !seen;
    }
    if (total && j->spec.gpu_share_milli < 1000) { /* a share: shards, or MPS, or a whole GPU */
        uint32_t spg = x->shards_per_gpu[srv[0]], mpg = x->mps_per_gpu[srv[0]];
        if (spg)
            p.shards_per_node = (uint32_t)((j->spec.gpu_share_milli * spg + 999) / 1000);
        else if (mpg)
            p.mps_per_node = (uint32_t)((j->spec.gpu_share_milli * mpg + 999) / 1000);
        else
            p.gpus_per_node = 1; /* Slurm cannot share this node's GPUs */
    } else if (even)
        p.gpus_per_node = cnt[0];
    else
        p.gpus_per_job = total;
    rc = berth__slurm_place(x->s, j->slurm_id, &p, err);
    if (rc == BERTH_EAGAIN) {
        j->launch_at = now + RETRY_US;
        return rc;
    }
    if (rc)
        return rc;
    j->sl_placed_at = now;
    j->sl_placed_restarts = j->sl_restarts;
    j->sl_state = BERTH_SLURM_JOB_PENDING;
    j->sl_held = j->sl_seen_run = j->sl_stop_due = j->sl_unplaced = j->sl_node_na = 0;
    char what[48] = "";
    if (p.shards_per_node)
        snprintf(what, sizeof what, "%u shards", p.shards_per_node);
    else if (p.mps_per_node)
        snprintf(what, sizeof what, "MPS %u", p.mps_per_node);
    else if (total)
        snprintf(what, sizeof what, "%u %s GPUs", total, p.gpu_type);
    char placed[BERTH_SLURM_LIST_MAX + 80];
    snprintf(placed, sizeof placed, "attempt %d placed by berth on %s%s%s", j->attempt, nodes,
             what[0] ? " with " : "", what);
    decision(x, j, placed);
    berth__ljob_note(j, now, BERTH_L_RUNNING, "attempt %d: Slurm job %u released on %s%s%s",
                     j->attempt, j->slurm_id, nodes, what[0] ? " with " : "", what);
    return 0;
}

/* ---- what became of an attempt ---- */

static int slurm_poll(void *self, struct berth__ljob *j)
{
    const struct berth__exec_host *h = ((struct xslurm *)self)->h;
    if (j->sl_gone || !j->slurm_id)
        return 2;
    switch (j->sl_state) {
    case BERTH_SLURM_JOB_RUNNING:
    case BERTH_SLURM_JOB_SUSPENDED:
        if (!j->sl_seen_run && j->then == BERTH_THEN_FINISH && j->sl_placed_at) {
            j->sl_seen_run = 1;
            berth_us now = h->now(h->ctx);
            berth__ljob_note(j, now, j->state, "running in Slurm %.3f s after its placement",
                             (double)(now - j->sl_placed_at) / 1e6);
        }
        return 0;
    case BERTH_SLURM_JOB_PENDING:
        if (j->sl_completing)
            return 0;
        if (j->then != BERTH_THEN_FINISH) { /* stopped by berthd: held again */
            j->exit_code = -1;
            j->exit_signal = 15;
            return j->sl_held ? 1 : 0;
        }
        if (j->sl_unplaced) /* berth held it back (its node closed): never started, once held */
            return j->sl_held && j->sl_restarts == j->sl_placed_restarts ? 3 : 0;
        /* held again (BadConstraints, or someone held it), or requeued by Slurm itself */
        return j->sl_held || j->sl_restarts != j->sl_placed_restarts ? 2 : 0;
    case BERTH_SLURM_JOB_DONE:
    case BERTH_SLURM_JOB_FAILED:
    case BERTH_SLURM_JOB_CANCELLED:
        if (j->sl_completing)
            return 0;
        j->exit_code = j->sl_exit_code;
        j->exit_signal = j->sl_exit_signal;
        if (j->sl_state == BERTH_SLURM_JOB_CANCELLED && j->exit_signal < 0)
            j->exit_signal = 9;
        if (j->sl_state == BERTH_SLURM_JOB_FAILED && j->exit_code == 0 && j->exit_signal < 0)
            j->exit_code = 1; /* a node failure or a timeout: failed, whatever the script said */
        return 1;
    default: /* preempted by Slurm itself */
        return 2;
    }
}

/* One try at what j->then asks of Slurm; j->sl_stop_due stays set while Slurm says not yet. */
static void try_stop(struct xslurm *x, struct berth__ljob *j, berth_us now)
{
    struct berth_err e = {0};
    int rc = 0;
    if (!j->slurm_id || j->sl_gone || j->sl_state >= BERTH_SLURM_JOB_DONE)
        rc = 0;
    else if (j->then == BERTH_THEN_CANCEL || j->then == BERTH_THEN_TIMEOUT)
        rc = berth__slurm_cancel(x->s, j->slurm_id, &e);
    else if (j->sl_state == BERTH_SLURM_JOB_PENDING)
        rc = j->sl_held ? 0 : berth__slurm_hold(x->s, j->slurm_id, &e);
    else
        rc = berth__slurm_requeue_hold(x->s, j->slurm_id, &e);
    if (rc == BERTH_EAGAIN || (rc && now - j->sl_placed_at < 60 * BERTH_US_PER_S)) {
        j->launch_at = now + RETRY_US; /* too early, or Slurm's view is behind: again soon */
        j->sl_stop_due = 1;
        return;
    }
    j->sl_stop_due = 0;
    if (!rc && j->then != BERTH_THEN_CANCEL && j->sl_state != BERTH_SLURM_JOB_PENDING)
        decision(x, j,
                 j->then == BERTH_THEN_RESTART   ? "requeued to move or resize"
                 : j->then == BERTH_THEN_TIMEOUT ? "cancelled at its time limit"
                                                 : "preempted");
    if (rc)
        berth__exec_log(x->h, "berthd: job %s: %s\n", j->idstr, e.msg);
    else if (j->sl_state == BERTH_SLURM_JOB_PENDING && j->then != BERTH_THEN_CANCEL)
        j->sl_held = 1; /* never started: held again, so it counts as stopped at once */
}

/* Only marks the stop: it may come from an HTTP thread (a cancel), and the Slurm handle is
 * the loop's alone; the loop's next sync makes the call. */
static void slurm_stop(void *self, struct berth__ljob *j, int force)
{
    const struct xslurm *x = self;
    /* its own signal first (a preemption, a move), or at its time limit its checkpoint
     * signal (SIGTERM, or an sbatch job's --signal): the requeue or the cancel follows when
     * the grace is over */
    int first = j->then == BERTH_THEN_TIMEOUT || (own_signal(x, j) && j->then != BERTH_THEN_CANCEL);
    if (!force && first && j->sl_state == BERTH_SLURM_JOB_RUNNING) {
        j->sl_signal_due = 1;
    } else if (!force || first) {
        j->sl_stop_due = 1;
        j->launch_at = 0;
    }
}

static int slurm_started(void *self, const struct berth__ljob *j)
{
    (void)self;
    return j->sl_restarts > 0 || j->sl_state != BERTH_SLURM_JOB_PENDING;
}

/* ---- the poll of slurmctld ---- */

/* An sbatch job's --signal=[B:]SIG@SECS (22.05's job records do not carry it): from sbatch's
 * command line, which contrib/slurm/cli_filter.lua writes into the comment, else from the
 * script's #SBATCH lines: *sig and *lead_us when found. */
static void script_signal(struct xslurm *x, const struct berth__slurm_job *sj, int *sig,
                          berth_us *lead_us)
{
    char *script = NULL, name[16];
    uint32_t lead = 0;
    bool batch = false;
    struct berth_err e = {0};
    /* sbatch's command line (cli_filter.lua's comment) overrides the script, as in sbatch */
    int rc = berth__slurm_comment_signal(sj->comment, name, sizeof name, &lead, &batch, &e);
    if (!rc && !(rc = berth__slurm_job_script(x->s, sj->id, &script, &e)))
        rc = berth__slurm_parse_signal(script, name, sizeof name, &lead, &batch, &e);
    free(script);
    if (rc <= 0) {
        if (rc < 0)
            berth__exec_log(x->h, "berthd: Slurm job %u: %s (its signal stays SIGTERM)\n", sj->id,
                            e.msg);
        return;
    }
    int s =
        name[0] >= '0' && name[0] <= '9' ? (int)strtol(name, NULL, 10) : berth__signal_find(name);
    if (s <= 0 || berth__signal_find(berth__signal_name(s)) != s) {
        berth__exec_log(x->h,
                        "berthd: Slurm job %u: --signal %s is not a checkpoint signal berth "
                        "sends (its signal stays SIGTERM)\n",
                        sj->id, name);
        return;
    }
    *sig = s;
    *lead_us = (berth_us)lead * BERTH_US_PER_S;
}

/* An sbatch job (held by job_submit.lua) as a berth job of the same shape (*out, not adopted
 * yet); its --time is berth's time limit, its --signal=SIG@SECS the checkpoint signal sent
 * SECS before it (the limit then is --time less SECS, the grace SECS), else SIGTERM and
 * KillWait. A job berth cannot run is logged and left held: 1, *out NULL. */
static int adopt_make(struct xslurm *x, const struct berth__slurm_job *sj, struct berth__ljob **out,
                      struct berth_err *err)
{
    const struct berth__exec_host *h = x->h;
    const struct berth__slurm_ask *a = &sj->ask;
    uint32_t nodes = a->nodes ? a->nodes : 1, gpus = a->gpus_per_job;
    if (!gpus)
        gpus = (a->gpus_per_node ? a->gpus_per_node : a->gpus_per_task) * nodes;
    double share = 1;
    if (!gpus && (a->shards_per_node || a->mps_per_node)) { /* a share of one GPU */
        uint32_t per = 0;
        for (size_t i = 0; i < x->inv->nsrv && !per; i++)
            per = a->shards_per_node ? x->shards_per_gpu[i] : x->mps_per_gpu[i];
        gpus = 1;
        share = per ? (double)(a->shards_per_node ? a->shards_per_node : a->mps_per_node) / per : 1;
        share = share > 1 ? 1 : share < 0.001 ? 0.001 : share;
    }
    const char *type = a->gpu_type;
    uint64_t mask;
    if (!type[0] && sj->features[0] && !berth__cluster_type_mask(x->inv, sj->features, &mask))
        type = sj->features;
    char uid[16];
    snprintf(uid, sizeof uid, "uid%u", sj->uid);
    char sid[16];
    snprintf(sid, sizeof sid, "%u", sj->id);
    int sig = 15;
    berth_us lead = 0, grace = (berth_us)x->kill_wait_s * BERTH_US_PER_S, limit = sj->time_limit_us;
    script_signal(x, sj, &sig, &lead);
    if (sig != 15 || lead) { /* Slurm's lead time is berth's grace, before the same end */
        grace = lead;
        limit = limit > lead ? limit - lead : limit ? BERTH_US_PER_S : 0;
    }
    json_t *o =
        json_pack("{s:[s,s,s],s:i,s:f,s:s,s:s,s:b,s:f,s:s,s:f}", "argv", "sbatch", "job", sid,
                  "gpus", (int)gpus, "gpu_share", share, "gpu_type", type, "name",
                  sj->name[0] ? sj->name : "sbatch", "single_server", nodes == 1 && gpus > 0,
                  "est_s", sj->time_limit_us ? (double)sj->time_limit_us / 1e6 : 3600.0,
                  "checkpoint_signal", berth__signal_name(sig), "grace_s", (double)grace / 1e6);
    if (o && limit)
        json_object_set_new(o, "time_limit_s", json_real((double)limit / 1e6));
    /* --switches=1 on racks from Slurm's topology: the gang within one leaf switch, a rack
     * (Slurm waits --switches' T, or max_switch_wait, then runs anywhere; berth never
     * spreads it). A rack that can never hold it makes it a preference, logged. N > 1 has no
     * berth level (a count of leaves): logged, ignored. */
    int sw = sj->switches == 1 && gpus > 1 && share >= 1 && berth_cluster_has_topology(x->inv);
    if (sj->switches > 1 && gpus > 1)
        berth__exec_log(h,
                        "berthd: Slurm job %u: --switches=%u is not kept (berth keeps a gang "
                        "within one leaf switch, --switches=1, only)\n",
                        sj->id, sj->switches);
    if (o && sw)
        json_object_set_new(o, "topology", json_string("rack"));
    struct berth__ljob *j = NULL;
    int rc = o ? berth__ljob_from_submit(o, sj->user[0] ? sj->user : uid, sj->uid, sj->gid, &j, err)
               : berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int refused = !rc && h->refuses(h->ctx, j, err);
    if (refused && sw && !strncmp(err->msg, "topology:", 9)) {
        berth__exec_log(h, "berthd: Slurm job %u: --switches=1 is a preference: %s\n", sj->id,
                        err->msg);
        berth__ljob_free(j);
        j = NULL;
        json_object_del(o, "topology");
        json_object_set_new(o, "topology_preferred", json_string("rack"));
        rc = berth__ljob_from_submit(o, sj->user[0] ? sj->user : uid, sj->uid, sj->gid, &j, err);
        refused = !rc && h->refuses(h->ctx, j, err);
    }
    json_decref(o);
    if (refused)
        rc = BERTH_EINPUT;
    *out = NULL;
    if (rc == BERTH_ENOMEM) {
        berth__ljob_free(j);
        return rc;
    }
    if (rc) {
        char body[1024];
        snprintf(body, sizeof body, "%s", err->msg);
        berth__exec_log(h, "berthd: Slurm job %u (%s) is left held: %s\n", sj->id, sj->gres, body);
        berth__ljob_free(j);
        return 1;
    }
    j->foreign = 1;
    *out = j;
    return 0;
}

/* j (adopted by the host) is Slurm job sj's from now on: bound, its Slurm time limit a minute
 * after berth's, journaled. */
static int adopt_bind(struct xslurm *x, struct berth__ljob *j, const struct berth__slurm_job *sj,
                      struct berth_err *err)
{
    const struct berth__exec_host *h = x->h;
    int rc = bind(x, j, sj->id, err);
    if (rc)
        return rc;
    struct berth_err e = {0};
    if (sj->time_limit_us && /* berth enforces it; Slurm's, a minute later, backs it up */
        berth__slurm_set_time_limit(x->s, sj->id, sj->time_limit_us + SLURM_LIMIT_MARGIN, &e))
        berth__exec_log(h, "berthd: Slurm job %u: %s (Slurm's own time limit may come first)\n",
                        sj->id, e.msg);
    return h->save(h->ctx, j, err);
}

/* ---- jobs Slurm started while berthd was away ---- */

static size_t server_of(const struct berth_cluster *c, const char *name, size_t i);

/* The GPUs recovery will give back to the journaled attempts that still hold them (their
 * Slurm jobs run), per server (x->rbusy). */
static int rbusy_build(struct xslurm *x)
{
    const struct berth__exec_host *h = x->h;
    if (x->rbusy)
        return 0;
    if (!(x->rbusy = calloc(x->inv->nsrv + 1, sizeof *x->rbusy)))
        return BERTH_ENOMEM;
    for (size_t i = 0; i < x->nrjobs; i++) {
        const struct berth__slurm_job *sj = &x->rjobs[i];
        uint32_t lid = map_get(x, sj->id);
        struct berth__ljob *j = lid && lid != UINT32_MAX ? h->job(h->ctx, lid) : NULL;
        if (!j || (sj->state != BERTH_SLURM_JOB_RUNNING && sj->state != BERTH_SLURM_JOB_SUSPENDED &&
                   !sj->completing))
            continue;
        if (!berth__lstate_final(j->state) && j->launched && j->launched == j->attempt &&
            (j->proc || j->state == BERTH_L_RUNNING))
            for (int32_t k = 0; k < j->nslots; k++)
                if (j->slots[k].server < x->inv->nsrv)
                    x->rbusy[j->slots[k].server] |= 1ull << j->slots[k].gpu;
    }
    return 0;
}

/* GPUs for j (not placed by berth) on the nodes Slurm runs sj on: on each node the lowest
 * ones no journaled attempt holds (Slurm does not say which it gave). 0 and slots[0..*n),
 * or 1 when a node is not berth's or has too few such GPUs left; -1 out of memory. */
static int pick_gpus(struct xslurm *x, const struct berth__ljob *j,
                     const struct berth__slurm_job *sj, struct berth__slot *slots, int32_t *n)
{
    const struct berth_cluster *c = x->inv;
    char names[BERTH_L_MAX_SLOTS][BERTH_SLURM_NAME_MAX];
    size_t nn = 0;
    struct berth_err e = {0};
    if (rbusy_build(x))
        return -1;
    if (berth__slurm_hostlist(sj->nodes, names, BERTH_L_MAX_SLOTS, &nn, &e) || nn == 0)
        return 1;
    int32_t want = j->spec.num_gpus, per = (int32_t)(want / (int32_t)nn);
    if (want % (int32_t)nn || (want && !per) || (!want && nn != 1))
        return 1; /* not one even gang over its nodes */
    *n = 0;
    for (size_t k = 0; k < nn; k++) {
        size_t sv = server_of(c, names[k], c->nsrv);
        if (sv == c->nsrv)
            return 1;
        if (!want) { /* CPUs only: the node is its slot */
            slots[(*n)++] = (struct berth__slot){(uint32_t)sv, 0};
            return 0;
        }
        for (uint32_t g = 0; g < c->srv[sv].ngpus && per > 0 && *n < BERTH_L_MAX_SLOTS; g++)
            if (!(x->rbusy[sv] >> g & 1)) {
                slots[(*n)++] = (struct berth__slot){(uint32_t)sv, g};
                per--;
            }
        if (per > 0)
            return 1;
        per = (int32_t)(want / (int32_t)nn);
    }
    return 0;
}

/* j, which berth never placed, runs in Slurm as sj: its attempt is that run, on slots, as
 * if berth had launched it there; recovery then re-adopts it (daemon/recover.c). */
static int run_as_attempt(struct xslurm *x, struct berth__ljob *j,
                          const struct berth__slurm_job *sj, const struct berth__slot *slots,
                          int32_t n, berth_us now)
{
    if (berth__ljob_slots(j))
        return BERTH_ENOMEM;
    for (int32_t k = 0; k < n && j->spec.num_gpus; k++)
        x->rbusy[slots[k].server] |= 1ull << slots[k].gpu;
    memcpy(j->slots, slots, (size_t)n * sizeof *slots);
    memcpy(j->pslots, slots, (size_t)n * sizeof *slots);
    j->nslots = j->npslots = n;
    j->run_share_milli = j->spec.gpu_share_milli ? j->spec.gpu_share_milli : 1000;
    j->attempt++;
    j->launched = j->attempt;
    j->proc = 1;
    j->then = BERTH_THEN_FINISH;
    j->attempt_us = sj->start_us && sj->start_us <= now ? sj->start_us : now;
    if (!j->start_us)
        j->start_us = j->attempt_us;
    j->sl_seen_run = 1;
    if (n && slots[0].server < x->inv->nsrv) /* for accounting */
        snprintf(j->ran_type, sizeof j->ran_type, "%s",
                 x->inv->types[x->inv->srv[slots[0].server].type].name);
    return berth__ljob_note(j, now, BERTH_L_RUNNING,
                            "Slurm started it as job %u on %s while berthd was away: adopted "
                            "running there",
                            sj->id, sj->nodes);
}

/* An sbatch job becomes a berth job of the same shape (adopt_make). running: Slurm runs it
 * already, and berthd has no record of it (submitted while the hook held nothing, or
 * released by berth-release-held; seen at recovery): its attempt is that run, where Slurm
 * runs it, or it is left to Slurm (counted busy) when its GPUs cannot be booked. */
static int adopt(struct xslurm *x, const struct berth__slurm_job *sj, int running, berth_us now,
                 struct berth_err *err)
{
    const struct berth__exec_host *h = x->h;
    struct berth__ljob *j = NULL;
    struct berth__slot slots[BERTH_L_MAX_SLOTS];
    int32_t n = 0;
    int rc = adopt_make(x, sj, &j, err);
    int got = rc || !running ? 0 : pick_gpus(x, j, sj, slots, &n);
    if (got) {
        berth__ljob_free(j);
        if (got < 0)
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        berth__exec_log(h,
                        "berthd: Slurm job %u runs on %s, which berth cannot account for: "
                        "left to Slurm\n",
                        sj->id, sj->nodes);
        rc = 1;
    }
    if (rc == 1) /* left held, or to Slurm: not looked at again */
        return map_put(x, sj->id, UINT32_MAX) ? BERTH_ENOMEM : 0;
    if (rc)
        return rc;
    j->submit_us = sj->submit_us ? sj->submit_us : now;
    if ((rc = berth__ljob_note(j, now, j->state, "submitted to Slurm by %s as job %u%s", j->user,
                               sj->id, running ? "" : ": adopted")) ||
        (rc = h->adopt(h->ctx, j, err))) { /* its token, its id, its user's count */
        berth__ljob_free(j);
        return rc;
    }
    berth__exec_log(h, "berthd: Slurm job %u of %s adopted as job %s (%d GPUs%s%s)%s%s\n", sj->id,
                    j->user, j->idstr, j->spec.num_gpus,
                    berth_jobspec_extra(&j->spec)->gpu_type[0] ? " " : "",
                    berth_jobspec_extra(&j->spec)->gpu_type,
                    running ? ", started by Slurm on " : "", running ? sj->nodes : "");
    if (running && (rc = run_as_attempt(x, j, sj, slots, n, now)))
        return rc;
    return adopt_bind(x, j, sj, err);
}

/* ---- job arrays (sbatch --array) ---- */

#define SPLIT_MAX 1024 /* tasks split off one array's pending record per poll */

/* The pending record of an array's tasks: each task is split off into a job of its own
 * (its own job id, the array's id and its index, still held; Slurm does this for any update
 * of one task), so that berth can place, requeue and journal each by its job id. The tasks
 * are adopted together once none is left to split (adopt_array). */
static void split_array(struct xslurm *x, const struct berth__slurm_job *sj)
{
    uint32_t *idx = malloc(SPLIT_MAX * sizeof *idx);
    size_t n = 0;
    struct berth_err e = {0};
    if (!idx || berth__slurm_parse_indices(sj->array_pending, idx, SPLIT_MAX, &n, &e)) {
        berth__exec_log(x->h, "berthd: Slurm array %u: %s\n", sj->array_job_id,
                        idx ? e.msg : "out of memory");
        free(idx);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char text[96];
        snprintf(text, sizeof text, "berth: task %u of array %u split off for berth", idx[i],
                 sj->array_job_id);
        if (berth__slurm_split_task(x->s, sj->array_job_id, idx[i], text, &e)) {
            berth__exec_log(x->h, "berthd: Slurm job %u_%u: %s\n", sj->array_job_id, idx[i], e.msg);
            break;
        }
    }
    free(idx);
}

static int by_task(const void *a, const void *b)
{
    const struct berth__slurm_job *const *p = a, *const *q = b;
    return ((*p)->array_task > (*q)->array_task) - ((*p)->array_task < (*q)->array_task);
}

/* The split tasks of sj's array that berth has not adopted, all pending and held, become one
 * berth array of the same indices and throttle (each task a berth job bound to its task's
 * job id): the throttle counts them together. Waits (0) while a task is left to split, not
 * held (it is held now) or waits on its --dependency. */
static int adopt_array(struct xslurm *x, const struct berth__slurm_job *sj,
                       const struct berth__slurm_job *jobs, size_t n, berth_us now,
                       struct berth_err *err)
{
    const struct berth__exec_host *h = x->h;
    if (x->array_waits == sj->array_job_id && x->array_waits_gen == x->gen)
        return 0;
    const struct berth__slurm_job **t = malloc(n * sizeof *t);
    size_t nt = 0;
    if (!t)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int wait = 0;
    for (size_t i = 0; i < n; i++) {
        const struct berth__slurm_job *o = &jobs[i];
        if (o->array_job_id != sj->array_job_id || o->state != BERTH_SLURM_JOB_PENDING ||
            map_get(x, o->id) || !strncmp(o->comment, COMMENT, strlen(COMMENT)) ||
            !strcmp(o->reason, "BadConstraints")) /* one Slurm can never run: left held */
            continue;
        if (o->array_task == BERTH_SLURM_ARRAY_META || o->waits_dependency) {
            wait = 1;
        } else if (!o->held) {
            struct berth_err e = {0};
            berth__slurm_hold(x->s, o->id, &e);
            wait = 1;
        } else {
            t[nt++] = o;
        }
    }
    if (wait || !nt) {
        x->array_waits = sj->array_job_id;
        x->array_waits_gen = x->gen;
        free(t);
        return 0;
    }
    qsort(t, nt, sizeof *t, by_task);
    struct berth__ljob **tasks = calloc(nt, sizeof *tasks), *j = NULL;
    int rc =
        tasks ? adopt_make(x, t[0], &j, err) : berth_err_set(err, BERTH_ENOMEM, "out of memory");
    if (rc == 1) { /* left held: none of its tasks is looked at again */
        for (size_t i = 0; i < nt && !rc; i++)
            rc = map_put(x, t[i]->id, UINT32_MAX) ? BERTH_ENOMEM : 0;
        rc = rc ? rc : 1;
    }
    if (!rc && !(j->array_idx = malloc(nt * sizeof *j->array_idx)))
        rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
    if (!rc) {
        j->narray = j->array_n = (uint32_t)nt;
        j->array_max = sj->array_max;
        tasks[0] = j;
        for (size_t i = 0; i < nt; i++)
            j->array_idx[i] = t[i]->array_task;
    }
    for (size_t i = 1; !rc && i < nt; i++)
        rc = berth__ljob_clone(j, &tasks[i], err);
    for (size_t i = 0; !rc && i < nt; i++) {
        char sid[16]; /* its argv names its own Slurm job ("sbatch job ID") */
        snprintf(sid, sizeof sid, "%u", t[i]->id);
        char *a = tasks[i]->argc > 2 ? strdup(sid) : NULL;
        if (a) {
            free(tasks[i]->argv[2]);
            tasks[i]->argv[2] = a;
        }
        tasks[i]->foreign = 1;
        tasks[i]->submit_us = t[i]->submit_us ? t[i]->submit_us : now;
        rc = berth__ljob_note(tasks[i], now, tasks[i]->state,
                              "submitted to Slurm by %s as job %u_%u (job %u): adopted, "
                              "task %zu of %zu%s%.0u",
                              tasks[i]->user, t[i]->array_job_id, t[i]->array_task, t[i]->id, i + 1,
                              nt, sj->array_max ? ", at most running: " : "", sj->array_max);
    }
    size_t taken = 0;
    if (!rc)
        rc = h->adopt_array(h->ctx, tasks, nt, &taken, err);
    for (size_t i = 0; i < nt && tasks && rc; i++)
        if (i >= taken)
            berth__ljob_free(tasks[i]);
    if (!rc)
        berth__exec_log(h,
                        "berthd: Slurm array %u of %s adopted as jobs %s-%s (%zu tasks, %u at "
                        "once)\n",
                        sj->array_job_id, j->user, tasks[0]->idstr, tasks[nt - 1]->idstr, nt,
                        sj->array_max);
    for (size_t i = 0; i < taken; i++) { /* the tasks the host took are bound, whatever came */
        int b = adopt_bind(x, tasks[i], t[i], err);
        rc = rc ? rc : b;
    }
    free(tasks);
    free(t);
    return rc == 1 ? 0 : rc;
}

/* A Slurm job berthd has no record of: one of its own whose id the journal missed, one left
 * to Slurm, or an sbatch job to adopt. Returns the live job it belongs to, or 0. */
static uint32_t claim(struct xslurm *x, const struct berth__slurm_job *sj,
                      const struct berth__slurm_job *jobs, size_t n, berth_us now,
                      struct berth_err *err, int *rc)
{
    if (!strncmp(sj->comment, OPT_OUT, strlen(OPT_OUT)))
        return 0;
    size_t tl = strlen(x->tag);
    if (!strncmp(sj->comment, COMMENT, strlen(COMMENT))) {
        const char *t = sj->comment + strlen(COMMENT);
        if (strncmp(t, x->tag, tl) || t[tl] != ':')
            return 0; /* another berthd's */
        struct berth__ljob *j = x->h->job(x->h->ctx, strtoull(t + tl + 1, NULL, 10));
        if (j && !j->slurm_id && !berth__lstate_final(j->state)) { /* the journal missed it */
            *rc = bind(x, j, sj->id, err);
            return (uint32_t)j->id;
        }
        /* a duplicate (berthd died between a submit and its journal entry): not needed */
        if (sj->state == BERTH_SLURM_JOB_PENDING) {
            struct berth_err e = {0};
            berth__slurm_cancel(x->s, sj->id, &e);
        }
        return 0;
    }
    if (x->recovering && sj->state == BERTH_SLURM_JOB_RUNNING && in_scope(x, sj->partition)) {
        *rc = adopt(x, sj, 1, now, err); /* Slurm started it while berthd was away */
        uint32_t lid = *rc ? 0 : map_get(x, sj->id);
        return lid == UINT32_MAX ? 0 : lid;
    }
    if (sj->state != BERTH_SLURM_JOB_PENDING || !in_scope(x, sj->partition))
        return 0;    /* finished, placed by Slurm itself, or in Slurm's partitions: not berth's */
    if (!sj->held) { /* a release or requeue outside berth: hold it, adopt it next poll */
        struct berth_err e = {0};
        berth__slurm_hold(x->s, sj->id, &e);
        return 0;
    }
    if (!strcmp(sj->reason, "BadConstraints") || sj->waits_dependency)
        return 0; /* adopted once Slurm says its --dependency is fulfilled */
    if (sj->array_job_id && sj->array_task == BERTH_SLURM_ARRAY_META) {
        split_array(x, sj); /* its tasks are adopted at a later poll, as one array */
        return 0;
    }
    if (sj->array_job_id) {
        *rc = adopt_array(x, sj, jobs, n, now, err);
        return *rc ? 0 : map_get(x, sj->id);
    }
    *rc = adopt(x, sj, 0, now, err);
    return *rc ? 0 : map_get(x, sj->id);
}

/* What one Slurm job says of its live job. */
static int update(struct xslurm *x, struct berth__ljob *j, const struct berth__slurm_job *sj,
                  berth_us now, struct berth_err *err)
{
    const struct berth__exec_host *h = x->h;
    j->sl_gen = x->gen;
    j->sl_gone = 0;
    j->sl_state = (uint8_t)sj->state;
    j->sl_held = sj->held;
    j->sl_completing = sj->completing;
    j->sl_restarts = sj->restarts;
    j->sl_exit_code = sj->exit_code;
    j->sl_exit_signal = sj->exit_signal;
    j->sl_node_na = sj->state == BERTH_SLURM_JOB_PENDING && !sj->held &&
                    !strncmp(sj->reason, "ReqNodeNotAvail", strlen("ReqNodeNotAvail"));
    if (sj->state != BERTH_SLURM_JOB_PENDING && j->sl_unplaced) { /* it started before the hold */
        j->sl_unplaced = 0;
        berth__ljob_note(j, now, j->state, "Slurm had started job %u before the hold: it runs on",
                         sj->id);
    }
    struct berth_err e = {0};
    if (berth__lstate_final(j->state)) { /* over in berth: nothing of it may wait in Slurm */
        if (sj->state == BERTH_SLURM_JOB_PENDING)
            berth__slurm_cancel(x->s, sj->id, &e);
        return 0;
    }
    if (sj->state == BERTH_SLURM_JOB_FAILED && berth__slurm_job_failed_restart(sj) && j->proc &&
        !j->foreign) { /* the credential-revoked race: submit it again */
        berth__ljob_note(j, now, j->state, "Slurm job %u failed at its restart: resubmitted",
                         sj->id);
        j->sl_gone = 1;
        j->slurm_id = 0;
        return 0;
    }
    if ((sj->state == BERTH_SLURM_JOB_RUNNING || sj->state == BERTH_SLURM_JOB_SUSPENDED) &&
        !j->proc && (j->state == BERTH_L_PENDING || j->state == BERTH_L_HELD)) {
        /* Slurm started a job berth never placed (released while berthd was down): seen at
         * recovery, it is adopted running there; else (or when its GPUs cannot be given) it
         * is Slurm's from now on, its GPUs counted busy, and the berth job ends without a
         * stop */
        struct berth__slot slots[BERTH_L_MAX_SLOTS];
        int32_t ns = 0;
        int got = x->recovering ? pick_gpus(x, j, sj, slots, &ns) : 1;
        if (got < 0)
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        if (got == 0) {
            int rc = run_as_attempt(x, j, sj, slots, ns, now);
            berth__exec_log(h,
                            "berthd: job %s: Slurm started it (job %u) on %s while berthd was "
                            "away: adopted running\n",
                            j->idstr, sj->id, sj->nodes);
            return rc ? rc : h->save(h->ctx, j, err);
        }
        uint32_t sid = sj->id;
        j->slurm_id = 0;
        j->sl_gone = 1;
        int rc = map_put(x, sid, UINT32_MAX) ? berth_err_set(err, BERTH_ENOMEM, "out of memory")
                                             : h->cancel(h->ctx, j, now, err);
        berth__ljob_note(j, now, j->state,
                         "Slurm started it as job %u while berthd was away: left to Slurm", sid);
        berth__exec_log(h, "berthd: job %s: Slurm started it (job %u) while berthd was away\n",
                        j->idstr, sid);
        h->pass_due(h->ctx);
        return rc ? rc : h->save(h->ctx, j, err);
    }
    if (sj->timed_out && j->proc && j->then == BERTH_THEN_FINISH) {
        j->then = BERTH_THEN_TIMEOUT; /* Slurm's own limit came first (or berthd was away) */
        berth__ljob_note(j, now, j->state, "Slurm stopped job %u at its time limit", sj->id);
        return 0;
    }
    if (sj->state == BERTH_SLURM_JOB_CANCELLED && j->then != BERTH_THEN_CANCEL &&
        j->then != BERTH_THEN_TIMEOUT) {
        int rc = h->cancel(h->ctx, j, now, err);
        berth__ljob_note(j, now, j->state, "cancelled in Slurm (job %u)", sj->id);
        h->pass_due(h->ctx);
        return rc ? rc : h->save(h->ctx, j, err);
    }
    int ours = j->proc && j->then == BERTH_THEN_FINISH && sj->restarts == j->sl_placed_restarts;
    if (sj->state == BERTH_SLURM_JOB_PENDING && !sj->held && !ours) {
        berth__slurm_hold(x->s, sj->id, &e); /* requeued or released outside berth */
        j->sl_held = 1;
    }
    return 0;
}

/* The poll of slurmctld, made by the loop without berthd's lock (it touches only the
 * Slurm handle and x's buffer: HTTP threads never call Slurm), at most once per
 * POLL_DUTY times the last read's cost, so a long job list cannot take the loop over. */
static void slurm_fetch(struct xslurm *x, berth_us now)
{
    if (x->fetched || now < x->next_poll)
        return;
    berth_us t0 = mono_us();
    if (now >= x->full_at) {
        x->fetch_rc = berth__slurm_jobs(x->s, &x->jobs, &x->njobs, &x->fetch_err);
        x->changed = !x->fetch_rc;
        x->full_at = now + FULL_READ_EVERY;
    } else {
        x->fetch_rc = berth__slurm_jobs_poll(x->s, &x->jobs, &x->njobs, &x->changed, &x->fetch_err);
    }
    x->fetched = 1;
    if (x->changed)
        x->next_poll = now + POLL_DUTY * (mono_us() - t0);
}

/* The server named name (index i first: the inventory is in Slurm's node order), or
 * nsrv. */
static size_t server_of(const struct berth_cluster *c, const char *name, size_t i)
{
    if (i < c->nsrv && !strcmp(c->srv[i].name, name))
        return i;
    for (size_t k = 0; k < c->nsrv; k++)
        if (!strcmp(c->srv[k].name, name))
            return k;
    return c->nsrv;
}

/* Closes (away) or opens server sv, saying why. */
static void set_away(struct xslurm *x, size_t sv, int away, const char *state)
{
    const struct berth__exec_host *h = x->h;
    if (away == x->offline[sv])
        return;
    x->offline[sv] = (uint8_t)away;
    h->close_server(h->ctx, (uint32_t)sv, away);
    if (away)
        berth__exec_log(h, "berthd: slurm node %s is %s: nothing new is placed there\n",
                        x->inv->srv[sv].name, state);
    else
        berth__exec_log(h, "berthd: slurm node %s is back (%s)\n", x->inv->srv[sv].name, state);
    h->pass_due(h->ctx);
}

/* Nodes that left or came back (read by slurm_prefetch, applied under the lock): a node
 * drained (draining too), down, not responding, in an active reservation (berth's jobs name
 * none, so Slurm would not start them there) or gone from Slurm's list (deleted, or state
 * FUTURE) is closed at once, its running jobs left to finish, and opened again when Slurm
 * lists it back. */
/* Slurm lists nodes the inventory lacks (unknown of them; their number changed since the
 * last read): one that is in berth's partitions now (added to Slurm, or to a partition, since
 * berthd started) makes berthd run itself again, which builds the inventory anew (the
 * engine's set of servers is fixed while it runs; recovery re-adopts every job by node name). */
static void nodes_joined(struct xslurm *x, size_t unknown)
{
    const struct berth_cluster *c = x->inv;
    x->unknown = unknown;
    if (!unknown)
        return;
    char(*keep)[BERTH_SLURM_NAME_MAX] = NULL;
    size_t nkeep = 0;
    struct berth_err e = {0};
    if (x->parts && read_scope(x, &keep, &nkeep, &e)) {
        berth__exec_log(x->h, "berthd: %s (nodes new to Slurm are not looked at)\n", e.msg);
        x->unknown = 0; /* looked at again when the number changes */
    }
    for (size_t i = 0; !e.code && i < x->nnodes; i++) {
        const char *name = x->nodes[i].name;
        if (server_of(c, name, i) < c->nsrv || !in_partitions(x, keep, nkeep, name))
            continue; /* berth's already, or Slurm's alone */
        char why[BERTH_SLURM_NAME_MAX + 96];
        snprintf(why, sizeof why, "slurm node %s joined %s%s", name,
                 x->parts ? "partitions " : "the cluster", x->parts ? x->parts : "");
        x->h->restart(x->h->ctx, why);
        break;
    }
    free(keep);
}

static void apply_nodes(struct xslurm *x)
{
    const struct berth_cluster *c = x->inv;          /* the engine's copy has the same servers */
    memset(x->count, 0, c->nsrv * sizeof *x->count); /* seen in the list */
    size_t unknown = 0;
    for (size_t i = 0; i < x->nnodes; i++) {
        const struct berth__slurm_node *v = &x->nodes[i];
        size_t sv = server_of(c, v->name, i);
        if (sv == c->nsrv) {
            unknown++; /* outside berth's partitions, or new: nodes_joined */
            continue;
        }
        x->count[sv] = 1;
        set_away(x, sv,
                 v->state == BERTH_SLURM_NODE_DOWN || v->drain || !v->responding || v->reserved,
                 v->state_name);
    }
    for (size_t s = 0; s < c->nsrv; s++)
        if (!x->count[s])
            set_away(x, s, 1, "gone from Slurm's node list");
    if (unknown != x->unknown)
        nodes_joined(x, unknown);
}

/* GPUs a Slurm job holds on each of its nodes, as far as its request says (a share of a
 * GPU counts as one). */
static uint32_t gpus_per_node(const struct berth__slurm_job *sj, size_t nnodes)
{
    const struct berth__slurm_ask *a = &sj->ask;
    if (a->gpus_per_node)
        return a->gpus_per_node;
    if (a->gpus_per_job)
        return (uint32_t)((a->gpus_per_job + nnodes - 1) / (nnodes ? nnodes : 1));
    if (a->gpus_per_task)
        return a->gpus_per_task;
    return a->shards_per_node || a->mps_per_node;
}

/* The Slurm jobs berth does not schedule that hold GPUs (placed by Slurm: out of berth's
 * partitions, opted out, another berthd's, started while berthd was away): their GPUs are
 * held out of placement on their nodes, so berth's view counts them busy. */
static void count_outside(struct xslurm *x, const struct berth__slurm_job *jobs, size_t n)
{
    const struct berth__exec_host *h = x->h;
    const struct berth_cluster *c = x->inv;
    char names[BERTH_L_MAX_SLOTS][BERTH_SLURM_NAME_MAX];
    memset(x->count, 0, c->nsrv * sizeof *x->count);
    for (size_t i = 0; i < n; i++) {
        const struct berth__slurm_job *sj = &jobs[i];
        uint32_t lid = map_get(x, sj->id);
        int holds = sj->state == BERTH_SLURM_JOB_RUNNING ||
                    sj->state == BERTH_SLURM_JOB_SUSPENDED || sj->completing;
        size_t nn = 0;
        struct berth_err e = {0};
        if (!holds || (lid && lid != UINT32_MAX) ||
            berth__slurm_hostlist(sj->nodes, names, BERTH_L_MAX_SLOTS, &nn, &e))
            continue;
        uint32_t per = gpus_per_node(sj, nn);
        for (size_t k = 0; k < nn && per; k++) {
            size_t sv = server_of(c, names[k], c->nsrv);
            if (sv < c->nsrv)
                x->count[sv] += (int32_t)per;
        }
    }
    for (size_t s = 0; s < c->nsrv; s++) {
        if (x->count[s] == x->outside[s])
            continue;
        berth__exec_log(h, "berthd: slurm node %s: %d GPUs busy with jobs berth did not place\n",
                        c->srv[s].name, x->count[s]);
        x->outside[s] = x->count[s];
        h->hold_out(h->ctx, (uint32_t)s, x->count[s]);
        h->pass_due(h->ctx);
    }
}

/* The first node of j's attempt this executor closed (drained, down, gone), or NULL. */
static const char *closed_node(const struct xslurm *x, const struct berth__ljob *j)
{
    for (int32_t i = 0; i < j->npslots; i++)
        if (j->pslots[i].server < x->inv->nsrv && x->offline[j->pslots[i].server])
            return x->inv->srv[j->pslots[i].server].name;
    return NULL;
}

/* A job berth released that Slurm has not started, and cannot start where berth placed it:
 * a node of it closed since (drained, down, gone: the node poll saw it, or Slurm says
 * ReqNodeNotAvail, and then the nodes are read at once). It is held again; once a poll
 * shows it held, poll says it never started, and the loop queues it to be placed again. */
static void unstartable(struct xslurm *x, struct berth__ljob *j, berth_us now)
{
    if (!j->proc || j->then != BERTH_THEN_FINISH || !j->slurm_id || j->sl_gone || j->sl_unplaced ||
        j->sl_seen_run || j->sl_state != BERTH_SLURM_JOB_PENDING || j->sl_held ||
        j->sl_completing || j->sl_restarts != j->sl_placed_restarts)
        return;
    const char *away = closed_node(x, j);
    if (!away && j->sl_node_na && now - x->nodes_forced_at >= BERTH_US_PER_S) {
        struct berth_err e = {0};
        x->nodes_forced_at = now;
        free(x->nodes);
        x->nodes = NULL;
        if (!berth__slurm_nodes(x->s, &x->nodes, &x->nnodes, &e)) {
            apply_nodes(x);
            x->nodes_at = now + x->nodes_every;
        }
        x->nodes_fetched = 0;
        away = closed_node(x, j);
    }
    if (!away)
        return;
    struct berth_err e = {0};
    if (berth__slurm_hold(x->s, j->slurm_id, &e)) {
        berth__exec_log(x->h, "berthd: job %s: %s\n", j->idstr, e.msg);
        return;
    }
    j->sl_unplaced = 1; /* a start that raced the hold shows RUNNING next poll and clears it */
    berth__ljob_note(j, now, j->state,
                     "Slurm was not seen starting Slurm job %u and node %s is closed: held again",
                     j->slurm_id, away);
    char what[BERTH_SLURM_NAME_MAX + 64];
    snprintf(what, sizeof what, "attempt %d not started on closed node %s: held again", j->attempt,
             away);
    decision(x, j, what);
    berth__exec_log(x->h, "berthd: job %s: Slurm job %u not started, node %s closed: held again\n",
                    j->idstr, j->slurm_id, away);
}

static int slurm_sync(void *self, berth_us now, struct berth_err *err)
{
    struct xslurm *x = self;
    const struct berth__exec_host *h = x->h;
    struct berth__ljob *j;
    size_t at = 0;
    if (x->nodes_fetched && x->mapped) { /* after recovery re-adopted the journaled jobs */
        apply_nodes(x);
        x->nodes_fetched = 0;
    }
    while ((j = h->next_job(h->ctx, BERTH_EXEC_BUSY, &at))) { /* stops asked, or refused */
        unstartable(x, j, now);
        if (j->proc && j->sl_signal_due) {
            struct berth_err e = {0};
            j->sl_signal_due = 0;
            /* berth's own jobs as on the local executor (the whole tree); an adopted sbatch
             * job as its --signal=B: asked (the batch script) */
            if (berth__slurm_signal(x->s, j->slurm_id, j->ckpt_sig, !j->foreign, &e))
                berth__exec_log(h, "berthd: job %s: %s\n", j->idstr, e.msg);
            else
                berth__ljob_note(j, now, j->state, "%s sent through Slurm: %s in %.0f s",
                                 berth__signal_name(j->ckpt_sig),
                                 j->then == BERTH_THEN_TIMEOUT ? "cancelled" : "requeued",
                                 (double)j->grace_us / 1e6);
        }
        if (j->proc && j->sl_stop_due && now >= j->launch_at)
            try_stop(x, j, now);
    }
    slurm_fetch(x, now); /* unless the loop fetched already */
    if (x->later && x->mapped && !(x->fetched && !x->fetch_rc && x->changed)) {
        count_outside(x, x->later, x->nlater);
        free(x->later);
        x->later = NULL;
    }
    if (!x->fetched)
        return 0;
    struct berth__slurm_job *jobs = x->jobs;
    size_t n = x->njobs;
    x->jobs = NULL;
    x->fetched = 0;
    if (x->fetch_rc) {
        if (now - x->err_logged >= ERR_LOG_EVERY) { /* slurmctld away: keep serving */
            berth__exec_log(h, "berthd: %s\n", x->fetch_err.msg);
            x->err_logged = now;
        }
        return 0;
    }
    if (!x->changed)
        return 0;
    x->gen++;
    h->counted_read(h->ctx);
    int rc = 0, first = !x->mapped;
    for (at = 0; !x->mapped && !rc && (j = h->next_job(h->ctx, BERTH_EXEC_ALL, &at));)
        if (j->slurm_id && map_put(x, j->slurm_id, (uint32_t)j->id)) /* after a restart */
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
    x->mapped = 1;
    x->recovering = first;
    x->rjobs = jobs;
    x->nrjobs = n;
    for (size_t i = 0; !rc && i < n; i++) {
        const struct berth__slurm_job *sj = &jobs[i];
        uint32_t lid = map_get(x, sj->id);
        if (lid == UINT32_MAX)
            continue;
        if (!lid && !(lid = claim(x, sj, jobs, n, now, err, &rc)))
            continue;
        j = h->job(h->ctx, lid);
        if (j && j->slurm_id == sj->id)
            rc = update(x, j, sj, now, err);
    }
    x->recovering = 0;
    x->rjobs = NULL;
    x->nrjobs = 0;
    free(x->rbusy);
    x->rbusy = NULL;
    free(x->later);
    x->later = NULL;
    if (!rc && first) { /* recovery: its journaled jobs are not re-adopted yet */
        x->later = jobs;
        x->nlater = n;
        jobs = NULL;
    } else if (!rc) {
        count_outside(x, jobs, n);
    }
    free(jobs);
    for (at = 0; !rc && (j = h->next_job(h->ctx, BERTH_EXEC_ALL, &at));) { /* Slurm forgot */
        if (!j->slurm_id || j->sl_gen == x->gen || berth__lstate_final(j->state))
            continue;
        j->sl_gone = 1;
        if (j->proc)
            continue; /* its attempt is lost: the loop requeues it */
        if (!j->foreign) {
            j->slurm_id = 0; /* submitted again when it is placed */
        } else {             /* nothing left to run: it was cancelled or purged in Slurm */
            rc = h->cancel(h->ctx, j, now, err);
            berth__ljob_note(j, now, j->state, "its Slurm job %u is gone", j->slurm_id);
            rc = rc ? rc : h->save(h->ctx, j, err);
            h->pass_due(h->ctx);
        }
    }
    return rc;
}

static void slurm_prefetch(void *self)
{
    struct xslurm *x = self;
    berth_us now = x->h->now(x->h->ctx);
    slurm_fetch(x, now);
    if (now >= x->scope_at)
        write_scope(x, now);
    if (!x->nodes_fetched && now >= x->nodes_at) {
        struct berth_err e = {0};
        free(x->nodes);
        x->nodes = NULL;
        x->nodes_fetched = !berth__slurm_nodes(x->s, &x->nodes, &x->nnodes, &e);
        x->nodes_at = now + x->nodes_every;
    }
}

const struct berth__executor berth__exec_slurm = {.name = "slurm",
                                                  .lost = "Slurm requeued, held or forgot it",
                                                  .unstarted = "Slurm could not start it there",
                                                  .open = slurm_open,
                                                  .close = slurm_close,
                                                  .prefetch = slurm_prefetch,
                                                  .sync = slurm_sync,
                                                  .admit = slurm_admit,
                                                  .launch = slurm_launch,
                                                  .poll = slurm_poll,
                                                  .stop = slurm_stop,
                                                  .started = slurm_started};
