/* The slurm executor (executor.h): berthd decides, a Slurm cluster runs the jobs. The
 * inventory is slurmctld's nodes; every job is a Slurm job held at priority 0 (berth's own
 * are submitted held, sbatch jobs are held by contrib/slurm/job_submit.lua and adopted into
 * berth's queue); a start is one place-and-release update; a preemption or a resize is a
 * requeue-and-hold, after which the job is placed again; a cancel is scancel. One poll of
 * slurmctld per tick ("no change" costs about a millisecond) refreshes what berthd knows of
 * each job, and the loop's state machine (daemon/core_tick.c) reads it through poll. The control
 * model and the pitfalls respected here are in docs/slurm.md. This file holds the table and
 * its calls (open, admit, launch, poll, stop) with the map of Slurm job ids; the scope, the
 * adoption of Slurm's jobs, the nodes and the sync are in exec_slurm_scope.c, _adopt.c,
 * _nodes.c and _sync.c, which share exec_slurm_int.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "live/exec/exec_slurm_int.h"
#include "live/exec/slurm_topo.h"

#define RETRY_US (250 * 1000) /* a "not yet" from Slurm is tried again after */

/* ---- Slurm job id -> live id ---- */

static size_t slot_of(const struct xslurm *x, uint32_t key)
{
    size_t i = (key * 2654435761u) & (x->cap - 1);
    while (x->key[i] && x->key[i] != key)
        i = (i + 1) & (x->cap - 1);
    return i;
}

uint32_t berth__xslurm_map_get(const struct xslurm *x, uint32_t key)
{
    return x->cap ? x->val[slot_of(x, key)] : 0;
}

int berth__xslurm_map_put(struct xslurm *x, uint32_t key, uint32_t val)
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

int berth__xslurm_bind(struct xslurm *x, struct berth__ljob *j, uint32_t slurm_id,
                       struct berth_err *err)
{
    j->slurm_id = slurm_id;
    j->sl_gen = x->gen;
    j->sl_state = BERTH_SLURM_JOB_PENDING;
    j->sl_held = 1;
    j->sl_gone = j->sl_completing = 0;
    j->sl_restarts = 0;
    if (berth__xslurm_map_put(x, slurm_id, (uint32_t)j->id))
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
        (rc = berth__xslurm_read_scope(x, &keep, &nkeep, err)) ||
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
        if (!berth__xslurm_in_partitions(x, keep, nkeep, v->name))
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
    berth__xslurm_write_scope(x, h->now(h->ctx));
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
        rc = berth__xslurm_bind(x, j, id, err);
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
void berth__xslurm_decision(struct xslurm *x, const struct berth__ljob *j, const char *what)
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
    berth__xslurm_decision(x, j, placed);
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
void berth__xslurm_try_stop(struct xslurm *x, struct berth__ljob *j, berth_us now)
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
        berth__xslurm_decision(x, j,
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

const struct berth__executor berth__exec_slurm = {.name = "slurm",
                                                  .lost = "Slurm requeued, held or forgot it",
                                                  .unstarted = "Slurm could not start it there",
                                                  .open = slurm_open,
                                                  .close = slurm_close,
                                                  .prefetch = berth__xslurm_prefetch,
                                                  .sync = berth__xslurm_sync,
                                                  .admit = slurm_admit,
                                                  .launch = slurm_launch,
                                                  .poll = slurm_poll,
                                                  .stop = slurm_stop,
                                                  .started = slurm_started};
