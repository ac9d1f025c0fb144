/* The slurm executor's adoption: a Slurm job berthd has no record of (berth__xslurm_claim)
 * becomes a berth job of the same shape: an sbatch job held by job_submit.lua, each task of a
 * job array, or a job Slurm started while berthd was away, booked on the GPUs where it runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/exec/exec_slurm_int.h"

#define OPT_OUT "berth:slurm" /* job_submit.lua marks jobs left to Slurm */

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
    int rc = berth__xslurm_bind(x, j, sj->id, err);
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
        uint32_t lid = berth__xslurm_map_get(x, sj->id);
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
int berth__xslurm_pick_gpus(struct xslurm *x, const struct berth__ljob *j,
                            const struct berth__slurm_job *sj, struct berth__slot *slots,
                            int32_t *n)
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
        size_t sv = berth__xslurm_server_of(c, names[k], c->nsrv);
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
 * if berth had launched it there; recovery then re-adopts it (daemon/core_recover.c). */
int berth__xslurm_run_as_attempt(struct xslurm *x, struct berth__ljob *j,
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
    int got = rc || !running ? 0 : berth__xslurm_pick_gpus(x, j, sj, slots, &n);
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
        return berth__xslurm_map_put(x, sj->id, UINT32_MAX) ? BERTH_ENOMEM : 0;
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
    if (running && (rc = berth__xslurm_run_as_attempt(x, j, sj, slots, n, now)))
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
            berth__xslurm_map_get(x, o->id) || !strncmp(o->comment, COMMENT, strlen(COMMENT)) ||
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
            rc = berth__xslurm_map_put(x, t[i]->id, UINT32_MAX) ? BERTH_ENOMEM : 0;
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
uint32_t berth__xslurm_claim(struct xslurm *x, const struct berth__slurm_job *sj,
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
            *rc = berth__xslurm_bind(x, j, sj->id, err);
            return (uint32_t)j->id;
        }
        /* a duplicate (berthd died between a submit and its journal entry): not needed */
        if (sj->state == BERTH_SLURM_JOB_PENDING) {
            struct berth_err e = {0};
            berth__slurm_cancel(x->s, sj->id, &e);
        }
        return 0;
    }
    if (x->recovering && sj->state == BERTH_SLURM_JOB_RUNNING &&
        berth__xslurm_in_scope(x, sj->partition)) {
        *rc = adopt(x, sj, 1, now, err); /* Slurm started it while berthd was away */
        uint32_t lid = *rc ? 0 : berth__xslurm_map_get(x, sj->id);
        return lid == UINT32_MAX ? 0 : lid;
    }
    if (sj->state != BERTH_SLURM_JOB_PENDING || !berth__xslurm_in_scope(x, sj->partition))
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
        return *rc ? 0 : berth__xslurm_map_get(x, sj->id);
    }
    *rc = adopt(x, sj, 0, now, err);
    return *rc ? 0 : berth__xslurm_map_get(x, sj->id);
}
