/* The Gavel policies' allocation x_ij (gavel.c's top comment, "Allocation"): gavel-fifo's
 * two fifos and the LP of the others, recomputed at a reset. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gavel_int.h"
#include "solve/lp_alloc.h"

/* ---- the allocation ------------------------------------------------------------------------ */

/* Work done by now in the unit of T: steps for a class job, seconds for a fixed-speed one
 * (whose done is its run time, should the executor not report progress). */
static double work_done(const struct berth__view *v, const struct berth__job *j)
{
    double d = berth__job_done(j, v->now);
    if (j->cls >= 0 && v->tput)
        return d;
    d = fmax(d, (double)berth__job_run_us(j, v->now));
    return fmin(d, j->work) / 1e6;
}

static double work_total(const struct berth__view *v, const struct berth__job *j)
{
    return j->cls >= 0 && v->tput ? j->work : j->work / 1e6;
}

static int alloc_fifo(struct gavel *g, const struct berth__view *v)
{
    int64_t room[64];
    for (size_t t = 0; t < g->nt; t++)
        room[t] = (int64_t)v->cluster->types[t].total * 1000;
    int blocked = 0;
    for (size_t k = 0; k < g->nact; k++) {
        const struct berth__job *j = &v->jobs[g->act[k].job];
        double *x = &g->x[k * g->nt];
        for (size_t t = 0; t < g->nt; t++)
            x[t] = 0;
        if (blocked || j->gpus == 0)
            continue;
        int best = -1;
        double bt = 0;
        int keep = j->state == BERTH_JOB_RUNNING && j->type >= 0 &&
                   room[j->type] >= berth__gavel_demand(j);
        if (keep)
            best = j->type;
        for (size_t t = 0; !keep && t < g->nt; t++) {
            double r = berth__gavel_tput(v, j, t);
            if (r > 0 && room[t] >= berth__gavel_demand(j) && r > bt) {
                bt = r;
                best = (int)t;
            }
        }
        if (best < 0) {
            blocked = 1;
            continue;
        }
        room[best] -= berth__gavel_demand(j);
        x[best] = 1;
    }
    return 0;
}

/* Appends a new allocation (job, type) to the scratch list. */
static int add_falloc(struct gavel *g, uint32_t job, int type)
{
    if (BERTH_GROW(g->fadd, g->fadd_cap, g->nfadd + 1))
        return BERTH_ENOMEM;
    g->fadd[g->nfadd++] = (struct fentry){job, (int16_t)type};
    return 0;
}

/* Gavel's base fifo (scheduler/policies/fifo.py, FIFOPolicy.get_allocation with
 * mode='base', ~137-163), as shipped. A job keeps the type it was allocated until it is
 * done. At each recompute: (1) jobs not allocated queue in arrival order; (2) walking the
 * allocated jobs by job id, a finished job's type goes to the head of the queue when the
 * head's gang fits that type's capacity counted so far (before the later running jobs are
 * subtracted: the type can end over-subscribed; a head that does not fit leaves the queue
 * anyway, unallocated until the next recompute), else a running job's gang is subtracted;
 * (3) the types with capacity left, sorted by name; while jobs queue, the head is taken
 * off, the types that still hold its gang are its candidates (none: stop), a random index
 * among them is drawn (random.Random(seed).randrange) and never used: the job gets the
 * stale loop variable, the last type by name of the whole cluster (whatever its room: on
 * Gavel's 3-type cluster every job goes to v100), without a capacity check, and
 * when that type's capacity is then exactly 0 the candidate at the drawn index is removed
 * from the list (a type with room may go, a full one stay). So types are over-subscribed
 * and others idle. The one guard berth adds: a job the last type cannot run at all (no
 * rate, a gang larger than the type) gets the drawn candidate instead, where Gavel would
 * never run it. */
static int alloc_fifo_gavel(struct gavel *g, const struct berth__view *v)
{
    int64_t avail[64];
    int types[64], ntypes = 0, cand[64];
    for (size_t t = 0; t < g->nt; t++)
        avail[t] = v->cluster->types[t].total;
    /* (1) the queue: active GPU jobs without an allocation, in arrival order */
    if (!berth__gavel_grow_scratch((void **)&g->lpk, &g->lpk_cap, g->nact, sizeof *g->lpk))
        return BERTH_ENOMEM;
    size_t nq = 0, qh = 0, f = 0;
    for (size_t k = 0; k < g->nact; k++) {
        uint32_t job = g->act[k].job;
        while (f < g->nfalloc && g->falloc[f].job < job)
            f++;
        if (v->jobs[job].gpus > 0 && !(f < g->nfalloc && g->falloc[f].job == job))
            g->lpk[nq++] = (uint32_t)k;
    }
    /* (2) finished jobs hand their type to the head; running ones count */
    size_t w = 0, n0 = g->nfalloc;
    g->nfadd = 0;
    for (size_t i = 0; i < n0; i++) {
        struct fentry e = g->falloc[i];
        const struct berth__job *j = &v->jobs[e.job];
        if (j->state != BERTH_JOB_DONE) {
            avail[e.type] -= j->gpus;
            g->falloc[w++] = e;
            continue;
        }
        if (qh < nq) { /* the head leaves the queue only when it fits */
            const struct berth__job *h = &v->jobs[g->act[g->lpk[qh]].job];
            if (h->gpus <= avail[e.type] && berth__gavel_tput(v, h, (size_t)e.type) > 0) {
                qh++;
                avail[e.type] -= h->gpus;
                if (add_falloc(g, h->idx, e.type))
                    return BERTH_ENOMEM;
            }
        }
    }
    g->nfalloc = w;
    /* (3) the types with capacity left, sorted by name (insertion: at most 64); last: the
     * loop variable left over from Gavel's walk over every type (its cluster_spec, whose
     * workers register in name order), the last name of all */
    int last = -1;
    for (size_t t = 0; t < g->nt; t++) {
        if (v->cluster->types[t].total > 0 &&
            (last < 0 || strcmp(v->cluster->types[t].name, v->cluster->types[last].name) > 0))
            last = (int)t;
        if (avail[t] <= 0)
            continue;
        int at = ntypes++;
        for (;
             at > 0 && strcmp(v->cluster->types[types[at - 1]].name, v->cluster->types[t].name) > 0;
             at--)
            types[at] = types[at - 1];
        types[at] = (int)t;
    }
    for (; qh < nq && ntypes > 0; qh++) {
        const struct berth__job *j = &v->jobs[g->act[g->lpk[qh]].job];
        int nc = 0;
        for (int i = 0; i < ntypes; i++)
            if (avail[types[i]] >= j->gpus)
                cand[nc++] = i;
        if (!nc)
            break;
        uint32_t drawn = berth__pyrand_below(&g->rand, (uint32_t)nc);
        int t = types[ntypes - 1];
        if (j->gpus > v->cluster->types[t].total)
            t = types[cand[drawn]];
        if (berth__gavel_tput(v, j, (size_t)t) <=
            0) /* off the queue, allocated at a later recompute */
            continue;
        if (add_falloc(g, j->idx, t))
            return BERTH_ENOMEM;
        avail[t] -= j->gpus;
        if (avail[t] == 0) {
            int at = cand[drawn];
            memmove(types + at, types + at + 1, (size_t)(ntypes - at - 1) * sizeof *types);
            ntypes--;
        }
    }
    /* merge the new allocations in, by job number */
    if (BERTH_GROW(g->falloc, g->falloc_cap, g->nfalloc + g->nfadd))
        return BERTH_ENOMEM;
    for (size_t i = 0; i < g->nfadd; i++) {
        size_t at = g->nfalloc;
        while (at > 0 && g->falloc[at - 1].job > g->fadd[i].job)
            at--;
        memmove(g->falloc + at + 1, g->falloc + at, (g->nfalloc - at) * sizeof *g->falloc);
        g->falloc[at] = g->fadd[i];
        g->nfalloc++;
    }
    for (size_t k = 0; k < g->nact * g->nt; k++)
        g->x[k] = 0;
    for (size_t i = 0, k = 0; i < g->nfalloc; i++) {
        while (k < g->nact && g->act[k].job < g->falloc[i].job)
            k++;
        if (k < g->nact && g->act[k].job == g->falloc[i].job)
            g->x[k * g->nt + (size_t)g->falloc[i].type] = 1;
    }
    return 0;
}

static int alloc_lp(struct gavel *g, const struct berth__view *v, struct berth_err *err)
{
    size_t nt = g->nt, n = 0;
    if (!berth__gavel_grow_scratch((void **)&g->lpk, &g->lpk_cap, g->nact, sizeof *g->lpk))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    for (size_t k = 0; k < g->nact; k++)
        if (v->jobs[g->act[k].job].gpus > 0)
            g->lpk[n++] = (uint32_t)k;
    /* sf, T, N, elapsed, iso, remaining, x, I, done */
    size_t need = n * (2 * nt + 6) + nt;
    if (!berth__gavel_grow_scratch((void **)&g->lp, &g->lp_cap, need, sizeof *g->lp))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    double *sf = g->lp, *T = sf + n, *N = T + n * nt, *el = N + nt, *iso = el + n;
    double *rem = iso + n, *x = rem + n, *rate = x + n * nt, *done = rate + n;
    for (size_t t = 0; t < nt; t++)
        N[t] = v->cluster->types[t].total;
    for (size_t i = 0; i < n; i++) {
        struct act *a = &g->act[g->lpk[i]];
        const struct berth__job *j = &v->jobs[a->job];
        sf[i] = (double)berth__gavel_demand(j) / 1000;
        for (size_t t = 0; t < nt; t++)
            T[i * nt + t] = berth__gavel_tput(v, j, t);
        if (g->kind != FTF) /* max-min reads neither time nor work */
            continue;
        el[i] = (double)(v->now - a->arrival) / 1e6;
        done[i] = work_done(v, j);
        rem[i] = fmax(0, work_total(v, j) - done[i]);
    }
    struct berth__lp_problem p = {.n = n,
                                  .m = nt,
                                  .sf = sf,
                                  .tput = T,
                                  .ngpus = N,
                                  .elapsed = el,
                                  .iso_time = iso,
                                  .remaining = rem};
    int rc;
    if (g->kind == FTF) {
        /* the isolated-equivalent time of the work done since the last solve, at the
         * isolated rate of then (a job's first time: of now) */
        berth__lp_iso_rates(&p, rate);
        for (size_t i = 0; i < n; i++) {
            struct act *a = &g->act[g->lpk[i]];
            double r = a->prev_rate > 0 ? a->prev_rate : rate[i];
            if (r > 0 && done[i] > a->prev_done)
                a->iso_time += (done[i] - a->prev_done) / r;
            a->prev_done = done[i];
            a->prev_rate = rate[i];
            iso[i] = a->iso_time;
        }
        rc = berth__lp_ftf(&p, x, NULL, err);
    } else {
        rc = berth__lp_max_min(&p, g->kind == MAX_MIN_PERF, x, NULL, err);
    }
    if (rc)
        return rc;
    for (size_t k = 0; k < g->nact * nt; k++)
        g->x[k] = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < nt; t++)
            g->x[g->lpk[i] * nt + t] = x[i * nt + t];
    return 0;
}

/* A reset: deficits take what each (job, type) was owed since the last reset minus what it
 * got, received time starts again, and the allocation is recomputed. */
int berth__gavel_reset(struct gavel *g, const struct berth__view *v, struct berth_err *err)
{
    double since = g->solved ? (double)(v->now - g->last_reset) : 0;
    for (size_t k = 0; k < g->nact * g->nt; k++) {
        g->deficit[k] += g->x[k] * since - (g->recv[k] - berth__gavel_credit(g));
        g->recv[k] = berth__gavel_credit(g);
    }
    for (size_t t = 0; t < g->nt; t++) {
        g->wsum[t] = 0;
        g->wtime[t] = berth__gavel_credit(g) * (double)g->nact;
    }
    g->last_reset = v->now;
    g->solved = 1;
    g->ent_same = 0; /* the allocation changes */
    g->changed = 0;
    int rc = 0;
    if (g->kind == FIFO && !g->fastest && alloc_fifo_gavel(g, v))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    if (g->kind == FIFO)
        rc = g->fastest ? alloc_fifo(g, v) : 0;
    else
        rc = alloc_lp(g, v, err);
    if (rc)
        return rc;
    /* the allocated jobs, so that a round looks at them alone */
    g->nalloc = 0;
    for (size_t k = 0; k < g->nact; k++)
        for (size_t t = 0; t < g->nt; t++)
            if (g->x[k * g->nt + t] > X_MIN) {
                if (BERTH_GROW(g->alloc, g->alloc_cap, g->nalloc + 1))
                    return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
                g->alloc[g->nalloc++] = g->act[k].job;
                break;
            }
    return 0;
}
