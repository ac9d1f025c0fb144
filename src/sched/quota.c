/* The quota gate (quota.h). */
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "sched/lend.h"
#include "sched/quota.h"
#include "util/mem.h"

struct berth__quota {
    const struct berth_queues *qf;
    struct berth__tenants *t;
    size_t nq, nt;
    int64_t *use;    /* [q * nt + type]: milli-GPUs its running jobs hold */
    int64_t *qtotal; /* [q]: the same over every type */
    /* [cohort * nt + type]: the cohort as a lender (lend.h): limit P = sum of L, lent
     * C = sum of max(0, U - G) */
    struct berth__lender *coh;
    int64_t *uuse; /* [user]: milli-GPUs */
    size_t ucap;
    int64_t *jmilli; /* per job: what its running charge holds (0: none) */
    int16_t *jtype;
    uint32_t *jnext, *jprev; /* per job: its (queue, type) list of running jobs, start order */
    uint8_t *jon;
    size_t jcap;
    uint32_t *lhead, *ltail; /* [q * nt + type] */
    int user_limits;
};

#define NIL UINT32_MAX

static int64_t lendable(const struct berth__qdef *d, size_t t)
{
    return berth__lend_limit(d->nominal[t], 0, d->lend[t]);
}

static int64_t guaranteed(const struct berth__qdef *d, size_t t)
{
    return d->nominal[t] - lendable(d, t);
}

static int64_t over(int64_t u, int64_t g)
{
    return u > g ? u - g : 0;
}

int berth__quota_create(const struct berth_queues *qf, struct berth__tenants *t,
                        struct berth__quota **out)
{
    struct berth__quota *q = calloc(1, sizeof *q);
    if (!q)
        return BERTH_ENOMEM;
    q->qf = qf;
    q->t = t;
    q->nq = qf->nq;
    q->nt = qf->ntypes ? qf->ntypes : 1;
    size_t nqt = (q->nq ? q->nq : 1) * q->nt, nct = (qf->ncohorts ? qf->ncohorts : 1) * q->nt;
    q->use = calloc(nqt, sizeof *q->use);
    q->qtotal = calloc(q->nq ? q->nq : 1, sizeof *q->qtotal);
    q->coh = calloc(nct, sizeof *q->coh);
    q->lhead = malloc(nqt * sizeof *q->lhead);
    q->ltail = malloc(nqt * sizeof *q->ltail);
    if (!q->use || !q->qtotal || !q->coh || !q->lhead || !q->ltail) {
        berth__quota_free(q);
        return BERTH_ENOMEM;
    }
    for (size_t i = 0; i < nqt; i++)
        q->lhead[i] = q->ltail[i] = NIL;
    for (size_t i = 0; i < q->nq; i++) {
        const struct berth__qdef *d = &qf->q[i];
        if (d->cohort >= 0)
            for (size_t k = 0; k < qf->ntypes; k++)
                q->coh[(size_t)d->cohort * q->nt + k].limit += lendable(d, k);
    }
    for (size_t i = 0; i < qf->nu; i++)
        q->user_limits |= qf->u[i].max_gpus > 0;
    *out = q;
    return 0;
}

void berth__quota_free(struct berth__quota *q)
{
    if (!q)
        return;
    free(q->use);
    free(q->qtotal);
    free(q->coh);
    free(q->uuse);
    free(q->jmilli);
    free(q->jtype);
    free(q->jnext);
    free(q->jprev);
    free(q->jon);
    free(q->lhead);
    free(q->ltail);
    free(q);
}

int berth__quota_splits_users(const struct berth__quota *q)
{
    return q->user_limits;
}

static int grow_jobs(struct berth__quota *q, size_t n)
{
    if (n <= q->jcap)
        return 0;
    size_t c[5] = {q->jcap, q->jcap, q->jcap, q->jcap, q->jcap};
    if (BERTH_GROW(q->jmilli, c[0], n) || BERTH_GROW(q->jtype, c[1], n) ||
        BERTH_GROW(q->jnext, c[2], n) || BERTH_GROW(q->jprev, c[3], n) ||
        BERTH_GROW(q->jon, c[4], n))
        return BERTH_ENOMEM;
    size_t m = c[0];
    for (int i = 1; i < 5; i++)
        m = c[i] < m ? c[i] : m;
    memset(q->jon + q->jcap, 0, m - q->jcap);
    q->jcap = m;
    return 0;
}

static int64_t milli_of(const struct berth__job *j)
{
    return (int64_t)j->gpus * berth__job_share(j);
}

/* Adds delta milli-GPUs of type t to queue qi's use, keeping its cohort's sum right. */
static void add_use(struct berth__quota *q, int32_t qi, size_t t, int64_t delta)
{
    const struct berth__qdef *d = &q->qf->q[qi];
    int64_t *u = &q->use[(size_t)qi * q->nt + t];
    if (d->cohort >= 0) {
        int64_t g = guaranteed(d, t);
        q->coh[(size_t)d->cohort * q->nt + t].lent += over(*u + delta, g) - over(*u, g);
    }
    *u += delta;
    q->qtotal[qi] += delta;
}

int berth__quota_charge(struct berth__quota *q, const struct berth__job *j, int on)
{
    uint32_t ji = j->idx;
    if (grow_jobs(q, (size_t)ji + 1))
        return BERTH_ENOMEM;
    int32_t qi = berth__tenant_queue(q->t, ji), ui = berth__tenant_user(q->t, ji);
    if (qi < 0 || ui < 0 || (on ? q->jon[ji] : !q->jon[ji]))
        return 0;                    /* never seen, or charged (given back) already */
    int queued = (size_t)qi < q->nq; /* a file of user lines only: queues are not counted */
    if ((size_t)ui >= q->ucap) {
        size_t old = q->ucap;
        if (BERTH_GROW(q->uuse, q->ucap, (size_t)ui + 1))
            return BERTH_ENOMEM;
        memset(q->uuse + old, 0, (q->ucap - old) * sizeof *q->uuse);
    }
    size_t li;
    if (on) {
        int16_t t = j->gpus && j->type >= 0 ? j->type : 0;
        int64_t m = milli_of(j);
        q->jon[ji] = 1;
        q->jmilli[ji] = m;
        q->jtype[ji] = t;
        q->uuse[ui] += m;
        if (!queued)
            return 0;
        add_use(q, qi, (size_t)t, m);
        li = (size_t)qi * q->nt + (size_t)t; /* appended: the youngest is the tail */
        q->jnext[ji] = NIL;
        q->jprev[ji] = q->ltail[li];
        if (q->ltail[li] != NIL)
            q->jnext[q->ltail[li]] = ji;
        else
            q->lhead[li] = ji;
        q->ltail[li] = ji;
        return 0;
    }
    q->jon[ji] = 0;
    q->uuse[ui] -= q->jmilli[ji];
    if (!queued)
        return 0;
    add_use(q, qi, (size_t)q->jtype[ji], -q->jmilli[ji]);
    li = (size_t)qi * q->nt + (size_t)q->jtype[ji];
    if (q->jprev[ji] != NIL)
        q->jnext[q->jprev[ji]] = q->jnext[ji];
    else
        q->lhead[li] = q->jnext[ji];
    if (q->jnext[ji] != NIL)
        q->jprev[q->jnext[ji]] = q->jprev[ji];
    else
        q->ltail[li] = q->jprev[ji];
    return 0;
}

static int refuse(struct berth__why *w, int32_t qi, int limit, int t, int64_t used, int64_t cap)
{
    if (w)
        *w = (struct berth__why){.code = BERTH_WHY_QUOTA,
                                 .blocker = BERTH_WHY_NOBODY,
                                 .queue = qi,
                                 .limit = limit,
                                 .type = t,
                                 .used = used,
                                 .cap = cap};
    return 0;
}

int berth__quota_admits(const struct berth__quota *q, const struct berth__job *j, int t,
                        struct berth__why *w, int *entitled)
{
    *entitled = 0;
    int32_t qi = berth__tenant_queue(q->t, j->idx), ui = berth__tenant_user(q->t, j->idx);
    int64_t m = milli_of(j);
    if (qi < 0 || !m)
        return 1;
    if ((size_t)qi >= q->nq) /* a file of user lines only */
        goto users;
    const struct berth__qdef *d = &q->qf->q[qi];
    if (d->has_quota && t >= 0 && (size_t)t < q->qf->ntypes) {
        int64_t u = q->use[(size_t)qi * q->nt + (size_t)t], u2 = u + m, n = d->nominal[t];
        if (d->cohort < 0) {
            if (u2 > n)
                return refuse(w, qi, BERTH_LIMIT_NOMINAL, t, u, n);
        } else {
            int64_t b = d->borrow[t];
            if (b != BERTH_Q_UNLIMITED && u2 > n + b)
                return refuse(w, qi, BERTH_LIMIT_BORROW, t, u, n + b);
            const struct berth__lender *l = &q->coh[(size_t)d->cohort * q->nt + (size_t)t];
            int64_t g = guaranteed(d, (size_t)t);
            if (!berth__lend_fits(l, over(u2, g) - over(u, g))) {
                *entitled = u2 <= n;
                return refuse(w, qi, BERTH_LIMIT_COHORT, t, l->lent, l->limit);
            }
        }
    }
    if (d->max_gpus > 0 && q->qtotal[qi] + m > d->max_gpus)
        return refuse(w, qi, BERTH_LIMIT_QUEUE_GPUS, -1, q->qtotal[qi], d->max_gpus);
users:
    if (q->user_limits && ui >= 0) {
        int64_t cap = berth__queues_user_max_gpus(q->qf, berth_jobspec_extra(j->spec)->user);
        int64_t used = (size_t)ui < q->ucap ? q->uuse[ui] : 0;
        if (cap > 0 && used + m > cap)
            return refuse(w, qi, BERTH_LIMIT_USER_GPUS, -1, used, cap);
    }
    return 1;
}

uint32_t berth__quota_victim(const struct berth__quota *q, const struct berth__job *jobs,
                             const struct berth__job *j, uint64_t mask)
{
    int32_t qi = berth__tenant_queue(q->t, j->idx);
    if (qi < 0 || (size_t)qi >= q->nq || q->qf->q[qi].cohort < 0)
        return BERTH_WHY_NOBODY;
    int32_t c = q->qf->q[qi].cohort;
    uint32_t best = NIL;
    for (size_t o = 0; o < q->nq; o++) {
        const struct berth__qdef *d = &q->qf->q[o];
        if ((int32_t)o == qi || d->cohort != c)
            continue;
        for (size_t t = 0; t < q->qf->ntypes; t++) {
            size_t li = o * q->nt + t;
            if ((mask && !(mask >> t & 1)) || q->use[li] <= d->nominal[t] || q->ltail[li] == NIL)
                continue; /* not borrowing there */
            uint32_t v = q->ltail[li];
            if (best == NIL || jobs[v].since > jobs[best].since ||
                (jobs[v].since == jobs[best].since && v > best))
                best = v;
        }
    }
    return best == NIL ? BERTH_WHY_NOBODY : best;
}
