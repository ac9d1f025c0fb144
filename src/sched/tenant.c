/* Users and queues as numbers (tenant.h). */
#include <stdlib.h>
#include <string.h>

#include "sched/tenant.h"
#include "util/hash.h"
#include "util/mem.h"

void berth__tenants_init(struct berth__tenants *t, const struct berth_queues *qf)
{
    memset(t, 0, sizeof *t);
    t->qf = qf;
    if (qf && qf->nq) { /* the file's queues, in its order (a file of users only: by name) */
        t->qname = calloc(qf->nq ? qf->nq : 1, sizeof *t->qname);
        for (size_t i = 0; t->qname && i < qf->nq; i++)
            t->qname[i] = qf->q[i].name;
        t->nqueues = t->qname ? qf->nq : 0;
        t->qcap = t->nqueues;
    }
}

static void names_free(struct berth__names *m)
{
    free(m->key);
    free(m->val);
}

void berth__tenants_free(struct berth__tenants *t)
{
    names_free(&t->users);
    names_free(&t->queues);
    free(t->uname);
    free(t->qname);
    free(t->juser);
    free(t->jqueue);
    memset(t, 0, sizeof *t);
}

static size_t slot(const struct berth__names *m, const char *k)
{
    size_t i = berth__hash_str(k) & (m->cap - 1);
    while (m->key[i] && strcmp(m->key[i], k))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int rehash(struct berth__names *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    struct berth__names n = {calloc(cap, sizeof *n.key), malloc(cap * sizeof *n.val), cap, m->n};
    if (!n.key || !n.val) {
        names_free(&n);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->key[i]) {
            size_t s = slot(&n, m->key[i]);
            n.key[s] = m->key[i];
            n.val[s] = m->val[i];
        }
    names_free(m);
    *m = n;
    return 0;
}

/* The number of name k in m, given anew (as *n, appended to names) when it has none. */
static int32_t number(struct berth__names *m, const char *k, const char ***names, size_t *n,
                      size_t *cap)
{
    if ((m->n + 1) * 2 > m->cap && rehash(m))
        return -1;
    size_t s = slot(m, k);
    if (m->key[s])
        return m->val[s];
    if (*n >= INT32_MAX || BERTH_GROW(*names, *cap, *n + 1))
        return -1;
    (*names)[*n] = k;
    m->key[s] = k;
    m->val[s] = (int32_t)*n;
    m->n++;
    return (int32_t)(*n)++;
}

int berth__tenants_see(struct berth__tenants *t, const struct berth__job *j)
{
    if (j->idx >= t->jcap) {
        size_t c1 = t->jcap, c2 = t->jcap;
        if (BERTH_GROW(t->juser, c1, (size_t)j->idx + 1) ||
            BERTH_GROW(t->jqueue, c2, (size_t)j->idx + 1))
            return BERTH_ENOMEM;
        size_t c = c1 < c2 ? c1 : c2;
        for (size_t i = t->jcap; i < c; i++)
            t->juser[i] = t->jqueue[i] = -1;
        t->jcap = c;
    }
    if (t->juser[j->idx] >= 0)
        return 0;
    const char *user = berth_jobspec_extra(j->spec)->user;
    if (!user)
        user = "";
    int32_t u = number(&t->users, user, &t->uname, &t->nusers, &t->ucap), q;
    if (u < 0)
        return BERTH_ENOMEM;
    if (t->qf && t->qf->nq) {
        if ((q = berth__queues_find(t->qf, j->spec->queue)) < 0)
            return BERTH_EINPUT;
    } else {
        const char *name = j->spec->queue ? j->spec->queue : "";
        if ((q = number(&t->queues, name, &t->qname, &t->nqueues, &t->qcap)) < 0)
            return BERTH_ENOMEM;
    }
    t->juser[j->idx] = u;
    t->jqueue[j->idx] = q;
    return 0;
}
