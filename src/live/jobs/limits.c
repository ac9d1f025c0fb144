/* Per-user limits and usage (see limits.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/jobs/limits.h"
#include "util/hash.h"
#include "util/mem.h"

void berth__limits_init(struct berth__limits *l)
{
    memset(l, 0, sizeof *l);
    l->dflt = (struct berth__limit_set){10000, 0, 50, 500};
}

void berth__limits_free(struct berth__limits *l)
{
    free(l->per);
    memset(l, 0, sizeof *l);
}

static int set_key(struct berth__limit_set *s, const char *key, const char *val, const char *spec,
                   struct berth_err *err)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (!*val || *end || errno || !(v >= 0) || v > 1e12)
        return berth_err_set(err, BERTH_EINPUT,
                             "--user-limit %s: %s: expected a number >= 0 (0 = no limit)", spec,
                             key);
    int whole = v == floor(v);
    if (!strcmp(key, "max_pending") && whole)
        s->max_pending = (int64_t)v;
    else if (!strcmp(key, "max_gpus") && whole)
        s->max_gpus = (int64_t)v;
    else if (!strcmp(key, "submit_rate"))
        s->submit_rate = v;
    else if (!strcmp(key, "submit_burst") && whole)
        s->submit_burst = v;
    else if (!strcmp(key, "max_pending") || !strcmp(key, "max_gpus") ||
             !strcmp(key, "submit_burst"))
        return berth_err_set(err, BERTH_EINPUT, "--user-limit %s: %s: expected a whole number",
                             spec, key);
    else
        return berth_err_set(err, BERTH_EINPUT,
                             "--user-limit %s: unknown key '%.32s' (max_pending, max_gpus, "
                             "submit_rate, submit_burst)",
                             spec, key);
    return 0;
}

int berth__limits_parse(struct berth__limits *l, const char *spec, struct berth_err *err)
{
    char buf[256], *user = NULL, *kv = buf;
    if (strlen(spec) >= sizeof buf)
        return berth_err_set(err, BERTH_EINPUT, "--user-limit: longer than %zu bytes",
                             sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", spec);
    char *colon = strchr(buf, ':'), *eq = strchr(buf, '=');
    if (colon && (!eq || colon < eq)) {
        *colon = '\0';
        user = buf;
        kv = colon + 1;
        if (!*user || strlen(user) >= sizeof l->per->user)
            return berth_err_set(err, BERTH_EINPUT, "--user-limit %s: expected USER:KEY=VALUE",
                                 spec);
    }
    eq = strchr(kv, '=');
    if (!eq)
        return berth_err_set(err, BERTH_EINPUT, "--user-limit %s: expected [USER:]KEY=VALUE", spec);
    *eq = '\0';
    if (!user)
        return set_key(&l->dflt, kv, eq + 1, spec, err);
    size_t i = 0;
    while (i < l->nper && strcmp(l->per[i].user, user))
        i++;
    if (i == l->nper) {
        if (BERTH_GROW(l->per, l->cap, l->nper + 1))
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        struct berth__user_limit *u = &l->per[l->nper++];
        snprintf(u->user, sizeof u->user, "%.*s", (int)sizeof u->user - 1, user);
        u->set = (struct berth__limit_set){-1, -1, -1, -1};
    }
    return set_key(&l->per[i].set, kv, eq + 1, spec, err);
}

void berth__limits_for(const struct berth__limits *l, const char *user,
                       struct berth__limit_set *out)
{
    *out = l->dflt;
    for (size_t i = 0; i < l->nper; i++)
        if (!strcmp(l->per[i].user, user)) {
            const struct berth__limit_set *s = &l->per[i].set;
            if (s->max_pending >= 0)
                out->max_pending = s->max_pending;
            if (s->max_gpus >= 0)
                out->max_gpus = s->max_gpus;
            if (s->submit_rate >= 0)
                out->submit_rate = s->submit_rate;
            if (s->submit_burst >= 0)
                out->submit_burst = s->submit_burst;
        }
}

/* ---- usage ------------------------------------------------------------------------- */

struct berth__usage_table {
    struct berth__usage **u; /* open addressing by name */
    size_t cap, n;
};

int berth__usage_create(struct berth__usage_table **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : BERTH_ENOMEM;
}

void berth__usage_free(struct berth__usage_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->cap; i++)
        if (t->u[i]) {
            free(t->u[i]->user);
            free(t->u[i]->held_back);
            free(t->u[i]);
        }
    free(t->u);
    free(t);
}

static size_t slot_of(struct berth__usage **u, size_t cap, const char *user)
{
    size_t i = berth__hash_str(user) & (cap - 1);
    while (u[i] && strcmp(u[i]->user, user))
        i = (i + 1) & (cap - 1);
    return i;
}

static int rehash(struct berth__usage_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    struct berth__usage **u = calloc(cap, sizeof *u);
    if (!u)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->u[i])
            u[slot_of(u, cap, t->u[i]->user)] = t->u[i];
    free(t->u);
    t->u = u;
    t->cap = cap;
    return 0;
}

struct berth__usage *berth__usage_of(struct berth__usage_table *t, const char *user)
{
    if ((t->n + 1) * 2 > t->cap && rehash(t))
        return NULL;
    size_t i = slot_of(t->u, t->cap, user);
    if (!t->u[i]) {
        struct berth__usage *u = calloc(1, sizeof *u);
        if (!u || !(u->user = strdup(user))) {
            free(u);
            return NULL;
        }
        u->tokens = -1; /* full at first use */
        t->u[i] = u;
        t->n++;
    }
    return t->u[i];
}

void berth__usage_each(struct berth__usage_table *t, void (*fn)(void *ctx, struct berth__usage *u),
                       void *ctx)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->u[i])
            fn(ctx, t->u[i]);
}

int berth__usage_take_token(struct berth__usage *u, const struct berth__limit_set *s, berth_us now)
{
    if (s->submit_rate <= 0)
        return 0;
    double burst = s->submit_burst >= 1 ? s->submit_burst : 1;
    if (u->tokens < 0)
        u->tokens = burst;
    else
        u->tokens += s->submit_rate * (double)(now - u->refilled) / 1e6;
    if (u->tokens > burst)
        u->tokens = burst;
    u->refilled = now;
    if (u->tokens >= 1) {
        u->tokens -= 1;
        return 0;
    }
    double wait = (1 - u->tokens) / s->submit_rate;
    return wait < 1 ? 1 : (int)ceil(wait);
}
