/* Restart: every job comes back from the journal. A job whose attempt may still run is
 * checked through its attempt's lock and exit file: a live one is re-adopted on its GPUs
 * (or, if it was being stopped, left to finish stopping), an ended one gets its fate, and
 * one whose supervisor vanished is requeued. Pending jobs re-enter the queue in id order.
 * No job is lost, and none runs twice: a journaled attempt either holds its lock, left an
 * exit file, or never ran. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/daemon/core.h"

/* Slots journaled with their servers' names (slot_nodes) point at those servers in today's
 * inventory: the same index when its name still matches, else the server of that name, else
 * none (nsrv: the node is gone, so the attempt cannot be re-adopted and is requeued).
 * Journals without names keep their indices. */
static void remap_slots(const struct berth_cluster *c, const json_t *names, struct berth__slot *s,
                        int32_t n)
{
    if (!json_is_array(names) || json_array_size(names) != (size_t)n)
        return;
    for (int32_t i = 0; i < n; i++) {
        const char *nm = json_string_value(json_array_get(names, (size_t)i));
        if (!nm || (s[i].server < c->nsrv && !strcmp(c->srv[s[i].server].name, nm)))
            continue;
        uint32_t k = 0;
        while (k < c->nsrv && strcmp(c->srv[k].name, nm))
            k++;
        s[i].server = k;
    }
}

static int load_one(void *ctx, uint64_t id, const char *doc, struct berth_err *err)
{
    struct berth__daemon *d = ctx;
    json_error_t je;
    json_t *o = json_loads(doc, 0, &je);
    if (!o)
        return berth_err_set(err, BERTH_EIO, "journal: job %llu: %s", (unsigned long long)id,
                             je.text);
    struct berth__ljob *j = NULL;
    int rc = berth__ljob_from_journal(o, &j, err);
    if (!rc) {
        remap_slots(d->engine->cluster, json_object_get(o, "slot_nodes"), j->slots, j->nslots);
        remap_slots(d->engine->cluster, json_object_get(o, "pslot_nodes"), j->pslots, j->npslots);
    }
    json_decref(o);
    if (rc)
        return rc;
    if (j->id != id || BERTH_GROW(d->jobs, d->cap, (size_t)id)) {
        berth__ljob_free(j);
        return berth_err_set(err, BERTH_EIO, "journal: job %llu: damaged", (unsigned long long)id);
    }
    for (size_t i = d->njobs; i < id; i++)
        d->jobs[i] = NULL;
    d->jobs[id - 1] = j;
    d->nlive++;
    d->njobs = (size_t)id;
    d->next_id = id + 1;
    return 0;
}

/* A job whose last attempt may still be alive. */
static int check_attempt(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                         struct berth_err *err)
{
    int st = d->xo->poll(d->xs, j);
    st = st == 3 ? 2 : st; /* never started: requeued below */
    if (st == 0) {         /* its shim lives */
        j->proc = 1;
        berth__daemon_activate(d, j);
        if (!j->npslots && j->nslots) {
            memcpy(j->pslots, j->slots, (size_t)j->nslots * sizeof *j->slots);
            j->npslots = j->nslots;
        }
        if (j->state == BERTH_L_RUNNING && j->then == BERTH_THEN_FINISH) {
            if (j->nslots)
                memcpy(j->pslots, j->slots, (size_t)j->nslots * sizeof *j->slots);
            j->npslots = j->nslots;
            int rc = berth__daemon_enqueue(d, j, now, err);
            if (rc)
                return rc;
            struct berth_err aerr = {0};
            if (berth__ljob_slots(j)) /* a 0-GPU job journaled none */
                return berth_err_set(err, BERTH_ENOMEM, "out of memory");
            if (!berth__engine_adopt(d->engine, j->eidx, j->slots, j->nslots, now, &aerr)) {
                if (j->attempt_us && now > j->attempt_us) /* its attempt ran before too */
                    d->engine->jobs[j->eidx].run_us += now - j->attempt_us;
                berth__ljob_note(j, now, BERTH_L_RUNNING, "re-adopted after a restart (pid %d)",
                                 j->shim_pid);
                return 0;
            }
            /* its GPUs are gone or taken: stop it and queue it again */
            berth__ljob_note(j, now, BERTH_L_PENDING, "could not re-adopt: %.80s", aerr.msg);
            berth__daemon_left_sched(d, j, now);
            j->in_engine = 0;
            j->then = BERTH_THEN_REQUEUE;
        }
        /* it was being stopped (preempted, moved, cancelled, timed out): let it finish */
        berth__daemon_drain(d, j, 1);
        j->kill_at = now + (j->grace_us > 0 ? j->grace_us : 1);
        d->xo->stop(d->xs, j, 0);
        if (j->then == BERTH_THEN_TIMEOUT) /* it ends in timeout when it exits */
            return berth__ljob_note(j, now, j->state, "still stopping at its time limit");
        if (j->state == BERTH_L_RUNNING && j->then != BERTH_THEN_CANCEL) {
            j->then = BERTH_THEN_REQUEUE; /* its restart goes through the queue again */
            return berth__ljob_note(j, now, BERTH_L_PENDING, "requeued after a restart");
        }
        return 0;
    }
    j->proc = 0;
    if (st == 1 && j->state == BERTH_L_RUNNING && j->then == BERTH_THEN_FINISH) {
        j->end_us = now;
        return berth__ljob_note(j, now, j->exit_code == 0 ? BERTH_L_COMPLETED : BERTH_L_FAILED,
                                "ended while berthd was down (%s %d)",
                                j->exit_signal >= 0 ? "signal" : "exit",
                                j->exit_signal >= 0 ? j->exit_signal : j->exit_code);
    }
    if (j->then == BERTH_THEN_CANCEL) {
        j->end_us = now;
        return berth__ljob_note(j, now, BERTH_L_CANCELLED, "ended while berthd was down");
    }
    if (j->then == BERTH_THEN_TIMEOUT) {
        j->end_us = now;
        return berth__ljob_note(j, now, BERTH_L_TIMEOUT,
                                "stopped at its time limit while berthd was down");
    }
    if (st == 2 && !d->xo->started(d->xs, j)) /* journaled, never forked */
        return berth__ljob_note(j, now, j->state == BERTH_L_HELD ? BERTH_L_HELD : BERTH_L_PENDING,
                                "attempt %d never started: requeued", j->attempt);
    j->resume = 1;
    return berth__ljob_note(j, now, j->state == BERTH_L_HELD ? BERTH_L_HELD : BERTH_L_PENDING,
                            "attempt %d %s while berthd was down: requeued", j->attempt,
                            st == 1 ? "ended" : "lost its supervisor");
}

int berth__daemon_recover(struct berth__daemon *d, struct berth_err *err)
{
    int rc = berth__daemon_subs_load(d, err); /* services first: their replicas come back */
    if (!rc)
        rc = berth__journal_load(d->jn, load_one, d, err);
    berth_us now = berth__wall_us();
    /* each job's history length before recovery: a longer one means recovery decided */
    size_t *nhist = calloc(d->njobs + 1, sizeof *nhist);
    if (!nhist)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    for (size_t i = 0; i < d->njobs; i++)
        nhist[i] = d->jobs[i] ? d->jobs[i]->nhist : 0;
    /* each user's usage, before any job enters the queue */
    for (size_t i = 0; !rc && i < d->njobs; i++) {
        struct berth__ljob *j = d->jobs[i];
        if (!j)
            continue;
        j->usage = berth__usage_of(d->usage, j->user);
        j->qusage = berth__usage_of(d->qusage, j->spec.queue);
        berth__daemon_count(d, j);
        if (!j->usage || !j->qusage)
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
        else if (j->state == BERTH_L_PENDING || j->state == BERTH_L_HELD)
            j->usage->waiting++, j->qusage->waiting++;
    }
    /* the reverse index of dependencies, for the jobs that still wait on them */
    for (size_t i = 0; !rc && i < d->njobs; i++)
        if (d->jobs[i] && d->jobs[i]->ndeps && !berth__lstate_final(d->jobs[i]->state) &&
            berth__daemon_joined(d, d->jobs[i]))
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
    if (!rc && d->xo->sync) /* what the executor says of the journaled attempts */
        rc = d->xo->sync(d->xs, now, err);
    size_t adopted = 0, queued = 0;
    /* running attempts first, so their GPUs are taken before any pass */
    for (size_t i = 0; !rc && i < d->njobs; i++) {
        struct berth__ljob *j = d->jobs[i];
        if (!j || berth__lstate_final(j->state))
            continue;
        j->in_engine = 0;
        if (j->svc) { /* a service's replica: never the scheduler's */
            rc = berth__daemon_subs_recover_job(d, j, now, err);
            continue;
        }
        if (j->launched && j->launched == j->attempt && (j->proc || j->state == BERTH_L_RUNNING)) {
            rc = check_attempt(d, j, now, err);
            adopted += j->in_engine;
        } else if (j->state == BERTH_L_RUNNING) { /* scheduled, never launched */
            rc = berth__ljob_note(j, now, BERTH_L_PENDING, "requeued after a restart");
        }
    }
    for (size_t i = 0; !rc && i < d->njobs; i++) {
        struct berth__ljob *j = d->jobs[i];
        if (!j || berth__lstate_final(j->state) || j->in_engine || j->svc)
            continue;
        /* a cancel acknowledged while its attempt was stopping waits for that attempt's
         * end, outside the queue */
        if (j->state == BERTH_L_PENDING && j->then != BERTH_THEN_CANCEL) {
            rc = berth__daemon_enqueue(d, j, now, err);
            queued++;
        }
    }
    if (!rc) /* every replica back in its service, duplicates stopped */
        berth__daemon_subs_recovered(d, now);
    /* every decision recovery made is journaled, final states included (a job that ended
     * while berthd was down must not be found running again, nor get a new end time, at
     * the next start), and durably before berthd serves: the last save waits for the
     * commit that holds them all */
    size_t last = 0, nsaved = 0;
    for (size_t i = 0; !rc && i < d->njobs; i++)
        if (d->jobs[i] &&
            (!berth__lstate_final(d->jobs[i]->state) || d->jobs[i]->nhist != nhist[i]))
            last = i + 1;
    for (size_t i = 0; !rc && i < last; i++)
        if (d->jobs[i] &&
            (!berth__lstate_final(d->jobs[i]->state) || d->jobs[i]->nhist != nhist[i])) {
            rc = berth__daemon_save(d, d->jobs[i], i + 1 == last, err);
            nsaved++;
        }
    free(nhist);
    if (!rc && d->njobs)
        fprintf(d->log,
                "berthd: recovered %zu jobs from the journal: %zu re-adopted, %zu queued, %zu "
                "records journaled\n",
                d->njobs, adopted, queued, nsaved);
    berth__drive_touch(&d->drive);
    return rc;
}
