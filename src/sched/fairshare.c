/* Decayed usage and fair-share factors (fairshare.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "sched/fairshare.h"
#include "util/mem.h"

void berth__fs_init(struct berth__fairshare *f, const struct berth_queues *qf,
                    struct berth__tenants *t, berth_us half_life, berth_us period)
{
    memset(f, 0, sizeof *f);
    f->qf = qf;
    f->t = t;
    f->half_life = half_life;
    f->period = period;
    f->next = BERTH_TIME_NONE;
}

void berth__fs_free(struct berth__fairshare *f)
{
    free(f->users);
    free(f->queues);
    free(f->jrate);
    free(f->jon);
    memset(f, 0, sizeof *f);
}

/* Usage decayed from e->at to now, with what ran meanwhile at e->rate. */
static void advance(const struct berth__fairshare *f, struct berth__fs_entity *e, berth_us now)
{
    if (now <= e->at)
        return;
    double h = (double)f->half_life, dt = (double)(now - e->at);
    double d = exp2(-dt / h), tau = h / M_LN2;
    e->usage = e->usage * d + e->rate * tau * (1 - d);
    e->at = now;
}

static int ensure(struct berth__fs_entity **a, size_t *n, size_t *cap, size_t want, berth_us now)
{
    if (want <= *n)
        return 0;
    if (BERTH_GROW(*a, *cap, want))
        return BERTH_ENOMEM;
    for (size_t i = *n; i < want; i++)
        (*a)[i] = (struct berth__fs_entity){.at = now, .share = 1, .factor = 1};
    *n = want;
    return 0;
}

int berth__fs_see(struct berth__fairshare *f, const struct berth__job *j, berth_us now)
{
    int32_t u = berth__tenant_user(f->t, j->idx), q = berth__tenant_queue(f->t, j->idx);
    if (u < 0 || q < 0)
        return 0;
    size_t nu = f->nusers, nq = f->nqueues;
    if (ensure(&f->users, &f->nusers, &f->ucap, (size_t)u + 1, now) ||
        ensure(&f->queues, &f->nqueues, &f->qcap, (size_t)q + 1, now))
        return BERTH_ENOMEM;
    for (size_t i = nu; f->qf && i < f->nusers; i++)
        f->users[i].share = berth__queues_user_share(f->qf, f->t->uname[i]);
    for (size_t i = nq; f->qf && i < f->nqueues && i < f->qf->nq; i++)
        f->queues[i].share = f->qf->q[i].share;
    return 0;
}

int berth__fs_charge(struct berth__fairshare *f, const struct berth__job *j, int on, berth_us now)
{
    uint32_t ji = j->idx;
    if (ji >= f->jcap) {
        size_t c1 = f->jcap, c2 = f->jcap;
        if (BERTH_GROW(f->jrate, c1, (size_t)ji + 1) || BERTH_GROW(f->jon, c2, (size_t)ji + 1))
            return BERTH_ENOMEM;
        size_t c = c1 < c2 ? c1 : c2;
        memset(f->jon + f->jcap, 0, c - f->jcap);
        f->jcap = c;
    }
    int32_t u = berth__tenant_user(f->t, ji), q = berth__tenant_queue(f->t, ji);
    if (u < 0 || q < 0 || (size_t)u >= f->nusers || (size_t)q >= f->nqueues ||
        (on ? f->jon[ji] : !f->jon[ji]))
        return 0;
    if (on) {
        double w = f->qf && j->type >= 0 && (size_t)j->type < f->qf->ntypes
                       ? f->qf->type_weight[j->type]
                       : 1.0;
        f->jrate[ji] = w * (double)j->gpus * berth__job_share(j) / 1000.0;
    }
    f->jon[ji] = (uint8_t)on;
    double r = on ? f->jrate[ji] : -f->jrate[ji];
    advance(f, &f->users[u], now);
    advance(f, &f->queues[q], now);
    f->users[u].rate += r;
    f->queues[q].rate += r;
    if (!on) { /* no drift below zero from rounding */
        if (f->users[u].rate < 1e-9)
            f->users[u].rate = 0;
        if (f->queues[q].rate < 1e-9)
            f->queues[q].rate = 0;
    }
    return 0;
}

static void recompute(const struct berth__fairshare *f, struct berth__fs_entity *e, size_t n,
                      berth_us now)
{
    double su = 0, ss = 0;
    for (size_t i = 0; i < n; i++) {
        advance(f, &e[i], now);
        su += e[i].usage;
        ss += e[i].share;
    }
    for (size_t i = 0; i < n; i++) {
        double u = su > 0 ? e[i].usage / su : 0, s = ss > 0 ? e[i].share / ss : 1;
        e[i].factor = exp2(-u / s);
    }
}

int berth__fs_update(struct berth__fairshare *f, berth_us now)
{
    if (f->next != BERTH_TIME_NONE && now < f->next)
        return 0;
    recompute(f, f->users, f->nusers, now);
    recompute(f, f->queues, f->nqueues, now);
    f->next = (now / f->period + 1) * f->period;
    return 1;
}

double berth__fs_factor(const struct berth__fairshare *f, uint32_t j)
{
    int32_t u = berth__tenant_user(f->t, j), q = berth__tenant_queue(f->t, j);
    double fu = u >= 0 && (size_t)u < f->nusers ? f->users[u].factor : 1;
    double fq = q >= 0 && (size_t)q < f->nqueues ? f->queues[q].factor : 1;
    return sqrt(fu * fq);
}

double berth__fs_usage(const struct berth__fairshare *f, int level, int32_t id, berth_us now)
{
    const struct berth__fs_entity *a = level ? f->queues : f->users;
    size_t n = level ? f->nqueues : f->nusers;
    if (id < 0 || (size_t)id >= n)
        return 0;
    struct berth__fs_entity e = a[id];
    advance(f, &e, now);
    return e.usage / 1e6;
}
