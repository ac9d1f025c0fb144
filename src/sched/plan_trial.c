/* Trials (plan.h): edits of a plan that can be taken back exactly. The cluster's takes and
 * gives save what they overwrite in the plan's undo log while cluster->undo points at it
 * (model/cluster.h); the plan's own edits save the job they change first (its record and its
 * slots); the touched list and the counts are cut back to where they were. A preemptive
 * policy tries victims one by one until its job fits, and then keeps only the victims the job
 * needed: with a trial, the others keep running untouched, as if never tried, instead of being
 * given their GPUs back (which moved their servers within the free-GPU buckets). */
#include <string.h>

#include "model/alloc.h"
#include "sched/plan.h"

int berth__plan_trial_begin(struct berth__plan *p)
{
    if (berth__undo_reserve(&p->undo, 64, 4096))
        return BERTH_ENOMEM;
    berth__undo_reset(&p->undo);
    p->trial = 1;
    p->cluster->undo = &p->undo;
    berth__plan_trial_mark(p, &p->trial_at);
    return 0;
}

int berth__plan_trial_room(struct berth__plan *p, int32_t gpus)
{
    size_t g = gpus > 0 ? (size_t)gpus : 1;
    /* per server a take or give writes at most ~27 places (3 of them topology counts), per GPU an
     * owner; a job's record and slots once per edit, twice for a start (the elastic size, then the
     * start) */
    size_t entries = 32 * g + 16;
    size_t bytes =
        16 * entries + 2 * sizeof(struct berth__job) + 2 * g * sizeof(struct berth__slot);
    return berth__undo_reserve(&p->undo, entries, bytes) ? BERTH_ENOMEM : 0;
}

void berth__plan_trial_save_job(struct berth__plan *p, struct berth__job *j)
{
    if (!p->trial)
        return;
    berth__undo_save(&p->undo, j, sizeof *j);
    if (j->slots) { /* a start writes them (restore, placement); room for its largest gang */
        int32_t n = berth__job_nslots(j);
        if (j->spec->max_gpus > n)
            n = j->spec->max_gpus;
        berth__undo_save(&p->undo, j->slots, (size_t)n * sizeof *j->slots);
    }
}

void berth__plan_trial_mark(const struct berth__plan *p, struct berth__plan_mark *m)
{
    *m = (struct berth__plan_mark){p->undo.n, p->ntouched, p->nsnaps, p->npending, p->nrunning};
}

void berth__plan_trial_undo_to(struct berth__plan *p, const struct berth__plan_mark *m)
{
    /* every server the edits changed gets a new gen: a cache keyed by it (plan_wait.c) may
     * hold what it computed after the mark, at the gen the server has now */
    struct berth_cluster *c = p->cluster;
    const char *lo = (const char *)c->srv, *hi = (const char *)(c->srv + c->nsrv);
    for (size_t i = m->undo; i < p->undo.n; i++) {
        const char *a = p->undo.e[i].addr;
        if (a >= lo && a < hi)
            c->srv[(size_t)(a - lo) / sizeof *c->srv].gen++;
    }
    berth__undo_rollback(&p->undo, m->undo);
    for (size_t i = m->touched; i < p->ntouched; i++)
        p->touch_of[p->touched[i].job] = -1;
    p->ntouched = m->touched;
    p->nsnaps = m->snaps;
    p->npending = m->npending;
    p->nrunning = m->nrunning;
}

void berth__plan_trial_undo(struct berth__plan *p)
{
    berth__plan_trial_undo_to(p, &p->trial_at);
    p->trial = 0;
    p->cluster->undo = NULL;
}

void berth__plan_trial_end(struct berth__plan *p)
{
    berth__undo_reset(&p->undo);
    p->trial = 0;
    p->cluster->undo = NULL;
}
