/* The slurm executor's sync: the poll of slurmctld (made outside berthd's lock) and what
 * each Slurm job in it says of its berth job, once per tick. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/exec/exec_slurm_int.h"

#define POLL_DUTY 4 /* a read of the job list that took T waits 4 T for the next poll */
/* the whole job list is read this often even when Slurm says nothing changed: it does not
 * count some changes (a held job's --dependency fulfilled by its periodic pass) as one */
#define FULL_READ_EVERY (10 * BERTH_US_PER_S)

/* For measuring the poll's own cost. */
static berth_us mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (berth_us)ts.tv_sec * BERTH_US_PER_S + ts.tv_nsec / 1000;
}

/* ---- the poll of slurmctld ---- */

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
        int got = x->recovering ? berth__xslurm_pick_gpus(x, j, sj, slots, &ns) : 1;
        if (got < 0)
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        if (got == 0) {
            int rc = berth__xslurm_run_as_attempt(x, j, sj, slots, ns, now);
            berth__exec_log(h,
                            "berthd: job %s: Slurm started it (job %u) on %s while berthd was "
                            "away: adopted running\n",
                            j->idstr, sj->id, sj->nodes);
            return rc ? rc : h->save(h->ctx, j, err);
        }
        uint32_t sid = sj->id;
        j->slurm_id = 0;
        j->sl_gone = 1;
        int rc = berth__xslurm_map_put(x, sid, UINT32_MAX)
                     ? berth_err_set(err, BERTH_ENOMEM, "out of memory")
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

int berth__xslurm_sync(void *self, berth_us now, struct berth_err *err)
{
    struct xslurm *x = self;
    const struct berth__exec_host *h = x->h;
    struct berth__ljob *j;
    size_t at = 0;
    if (x->nodes_fetched && x->mapped) { /* after recovery re-adopted the journaled jobs */
        berth__xslurm_apply_nodes(x);
        x->nodes_fetched = 0;
    }
    while ((j = h->next_job(h->ctx, BERTH_EXEC_BUSY, &at))) { /* stops asked, or refused */
        berth__xslurm_unstartable(x, j, now);
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
            berth__xslurm_try_stop(x, j, now);
    }
    slurm_fetch(x, now); /* unless the loop fetched already */
    if (x->later && x->mapped && !(x->fetched && !x->fetch_rc && x->changed)) {
        berth__xslurm_count_outside(x, x->later, x->nlater);
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
        if (j->slurm_id &&
            berth__xslurm_map_put(x, j->slurm_id, (uint32_t)j->id)) /* after a restart */
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
    x->mapped = 1;
    x->recovering = first;
    x->rjobs = jobs;
    x->nrjobs = n;
    for (size_t i = 0; !rc && i < n; i++) {
        const struct berth__slurm_job *sj = &jobs[i];
        uint32_t lid = berth__xslurm_map_get(x, sj->id);
        if (lid == UINT32_MAX)
            continue;
        if (!lid && !(lid = berth__xslurm_claim(x, sj, jobs, n, now, err, &rc)))
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
        berth__xslurm_count_outside(x, jobs, n);
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

void berth__xslurm_prefetch(void *self)
{
    struct xslurm *x = self;
    berth_us now = x->h->now(x->h->ctx);
    slurm_fetch(x, now);
    if (now >= x->scope_at)
        berth__xslurm_write_scope(x, now);
    if (!x->nodes_fetched && now >= x->nodes_at) {
        struct berth_err e = {0};
        free(x->nodes);
        x->nodes = NULL;
        x->nodes_fetched = !berth__slurm_nodes(x->s, &x->nodes, &x->nnodes, &e);
        x->nodes_at = now + x->nodes_every;
    }
}
