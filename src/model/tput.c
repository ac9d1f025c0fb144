/* The throughput model's storage and queries (see tput.h for the rules). Classes are found
 * by name through an open-addressing table, co-location pairs through another keyed by
 * (a, b, type); a class's measured points are few (Gavel: 4 gang sizes x 2 layouts per
 * type), so a rate query scans them, once: the answer is kept per (type, layout, gang) up
 * to MEMO_GPUS GPUs. Policies ask for the same rates over and over (Gavel's fill asks for
 * every pending job's at every round: a sixth of an overloaded gavel-max-min run was the
 * scan). A point added or changed drops its class's answers. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/tput.h"
#include "util/hash.h"
#include "util/mem.h"

struct point {
    int16_t type;
    uint8_t spread;
    int32_t gpus;
    double rate;
};

#define MEMO_GPUS 64 /* gangs up to this size have their rates kept */

struct tclass {
    const char *name;
    struct point *pts;
    size_t npts, cap;
    double spread_factor; /* 0 = not configured (1.0) */
    /* rate_on's answers, [(type * 2 + spread) * (MEMO_GPUS + 1) + gpus], NaN = not asked
     * yet, for the memo_types types there were when it was made; NULL = none */
    double *memo;
    size_t memo_types;
};

struct pair {
    uint64_t key; /* 0 = empty slot */
    double speed;
};

struct berth_tput {
    struct berth__arena arena;
    const char **types;
    size_t ntypes, types_cap;
    struct tclass *cls;
    size_t ncls, cls_cap;
    int32_t *index; /* open addressing over class names: class + 1, 0 = empty */
    size_t index_cap;
    struct pair *pairs;
    size_t npairs, pairs_cap;
};

struct berth_tput *berth__tput_new(void)
{
    struct berth_tput *m = calloc(1, sizeof *m);
    if (m)
        berth__arena_init(&m->arena);
    return m;
}

void berth_tput_free(struct berth_tput *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->ncls; i++) {
        free(m->cls[i].pts);
        free(m->cls[i].memo);
    }
    free(m->cls);
    free(m->types);
    free(m->index);
    free(m->pairs);
    berth__arena_free(&m->arena);
    free(m);
}

size_t berth_tput_class_count(const struct berth_tput *m)
{
    return m->ncls;
}

const char *berth_tput_class_name(const struct berth_tput *m, size_t i)
{
    return i < m->ncls ? m->cls[i].name : NULL;
}

size_t berth_tput_type_count(const struct berth_tput *m)
{
    return m->ntypes;
}

const char *berth_tput_type_name(const struct berth_tput *m, size_t i)
{
    return i < m->ntypes ? m->types[i] : NULL;
}

int berth__tput_type_find(const struct berth_tput *m, const char *gpu_type)
{
    for (size_t t = 0; t < m->ntypes; t++)
        if (!strcasecmp(m->types[t], gpu_type))
            return (int)t;
    return -1;
}

int berth__tput_add_type(struct berth_tput *m, const char *name, int *t)
{
    int found = berth__tput_type_find(m, name);
    if (found >= 0) {
        *t = found;
        return 0;
    }
    if (m->ntypes >= INT16_MAX)
        return BERTH_TPUT_FULL;
    if (BERTH_GROW(m->types, m->types_cap, m->ntypes + 1))
        return -1;
    const char *copy = berth__arena_strndup(&m->arena, name, strlen(name));
    if (!copy)
        return -1;
    m->types[m->ntypes] = copy;
    *t = (int)m->ntypes++;
    return 0;
}

/* The index slot of name: where it is, or the empty slot where it would go. */
static size_t slot_of(const struct berth_tput *m, const char *name)
{
    size_t mask = m->index_cap - 1, i = (size_t)berth__hash_str(name) & mask;
    while (m->index[i] && strcmp(m->cls[m->index[i] - 1].name, name))
        i = (i + 1) & mask;
    return i;
}

int berth__tput_class_find(const struct berth_tput *m, const char *name)
{
    if (!m->index_cap)
        return -1;
    int32_t v = m->index[slot_of(m, name)];
    return v - 1;
}

static int rehash(struct berth_tput *m)
{
    size_t cap = m->index_cap ? m->index_cap * 2 : 64;
    int32_t *old = m->index;
    size_t old_cap = m->index_cap;
    m->index = calloc(cap, sizeof *m->index);
    if (!m->index) {
        m->index = old;
        return -1;
    }
    m->index_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            m->index[slot_of(m, m->cls[old[i] - 1].name)] = old[i];
    free(old);
    return 0;
}

int berth__tput_add_class(struct berth_tput *m, const char *name, int *c)
{
    int found = berth__tput_class_find(m, name);
    if (found >= 0) {
        *c = found;
        return 0;
    }
    /* a job's class is 16 bits in its engine record (model/job.h) */
    if (m->ncls >= INT16_MAX)
        return BERTH_TPUT_FULL;
    if ((m->ncls + 1) * 2 > m->index_cap && rehash(m))
        return -1;
    if (BERTH_GROW(m->cls, m->cls_cap, m->ncls + 1))
        return -1;
    const char *copy = berth__arena_strndup(&m->arena, name, strlen(name));
    if (!copy)
        return -1;
    m->cls[m->ncls] = (struct tclass){.name = copy};
    m->index[slot_of(m, copy)] = (int32_t)m->ncls + 1;
    *c = (int)m->ncls++;
    return 0;
}

int berth__tput_add_point(struct berth_tput *m, int c, int t, int32_t gpus, int spread, double rate)
{
    struct tclass *k = &m->cls[c];
    free(k->memo); /* its answers may change */
    k->memo = NULL;
    for (size_t i = 0; i < k->npts; i++)
        if (k->pts[i].type == t && k->pts[i].gpus == gpus && k->pts[i].spread == !!spread) {
            k->pts[i].rate = rate;
            return 0;
        }
    if (BERTH_GROW(k->pts, k->cap, k->npts + 1))
        return -1;
    k->pts[k->npts++] = (struct point){(int16_t)t, (uint8_t) !!spread, gpus, rate};
    return 0;
}

void berth__tput_set_spread(struct berth_tput *m, int c, double factor)
{
    for (size_t i = 0; i < m->ncls; i++)
        if (c < 0 || (size_t)c == i)
            m->cls[i].spread_factor = factor;
}

double berth__tput_spread_factor(const struct berth_tput *m, int c)
{
    return c >= 0 && (size_t)c < m->ncls ? m->cls[c].spread_factor : 0.0;
}

int berth__tput_has_spread_points(const struct berth_tput *m, int c, int t)
{
    const struct tclass *k = &m->cls[c];
    for (size_t i = 0; i < k->npts; i++)
        if (k->pts[i].type == t && k->pts[i].spread)
            return 1;
    return 0;
}

int berth_tput_set_spread(struct berth_tput *m, const char *cls, double factor,
                          struct berth_err *err)
{
    if (!(factor > 0 && factor <= 1e6))
        return berth_err_set(err, BERTH_EINPUT, "--spread-penalty: expected a factor > 0, found %g",
                             factor);
    int c = -1;
    if (cls && (c = berth__tput_class_find(m, cls)) < 0)
        return berth_err_set(err, BERTH_EINPUT,
                             "--spread-penalty: job type '%s' is not in the throughput model", cls);
    berth__tput_set_spread(m, c, factor);
    return 0;
}

/* The rate at gpus from the points of one (type, layout): linear between the measured
 * sizes around it, proportional to the gang outside them; 0 without points. Spread points
 * of one GPU are passed over (Gavel lists them, equal to the one-server rate). */
static double rate_scan(const struct tclass *k, int t, int spread, int32_t gpus)
{
    const struct point *lo = NULL, *hi = NULL;
    for (size_t i = 0; i < k->npts; i++) {
        const struct point *p = &k->pts[i];
        if (p->type != t || p->spread != spread || (spread && p->gpus == 1))
            continue; /* a 1-GPU gang is never spread: such a point tells nothing */
        if (p->gpus == gpus)
            return p->rate;
        if (p->gpus < gpus && (!lo || p->gpus > lo->gpus))
            lo = p;
        if (p->gpus > gpus && (!hi || p->gpus < hi->gpus))
            hi = p;
    }
    /* the products first, as always (the same bits); where one overflows (a rate near the
     * largest double: any number >= 0 loads) the ratio first, and past the largest double
     * the largest double: every rate stays finite */
    double r;
    if (lo && hi) {
        double d = hi->rate - lo->rate, x = (double)(gpus - lo->gpus),
               y = (double)(hi->gpus - lo->gpus);
        r = lo->rate + d * x / y;
        r = isfinite(r) ? r : lo->rate + d * (x / y);
    } else if (lo || hi) {
        const struct point *q = lo ? lo : hi;
        r = q->rate * (double)gpus / (double)q->gpus;
        r = isfinite(r) ? r : q->rate * ((double)gpus / (double)q->gpus);
    } else {
        return 0.0;
    }
    return isfinite(r) ? r : DBL_MAX;
}

/* rate_scan's answer, kept in class k's memo (made on the first question: the model is
 * read by one thread at a time: a simulation, or berthd under its lock). */
static double rate_on(const struct berth_tput *m, const struct tclass *kc, int t, int spread,
                      int32_t gpus)
{
    struct tclass *k = (struct tclass *)kc; /* the memo only: m itself is never const */
    if (gpus > MEMO_GPUS) /* (t >= 0 and gpus >= 1: berth__tput_rate_sp checked) */
        return rate_scan(k, t, spread, gpus);
    if (!k->memo && m->ntypes) {
        size_t n = m->ntypes * 2 * (MEMO_GPUS + 1);
        if ((k->memo = malloc(n * sizeof *k->memo))) {
            for (size_t i = 0; i < n; i++)
                k->memo[i] = NAN;
            k->memo_types = m->ntypes;
        }
    }
    if (!k->memo || (size_t)t >= k->memo_types)
        return rate_scan(k, t, spread, gpus);
    double *r = &k->memo[((size_t)t * 2 + (spread != 0)) * (MEMO_GPUS + 1) + (size_t)gpus];
    if (isnan(*r))
        *r = rate_scan(k, t, spread, gpus);
    return *r;
}

double berth__tput_rate_sp(const struct berth_tput *m, const struct berth__spread *sp, int c, int t,
                           int32_t gpus, int spread)
{
    if (c < 0 || (size_t)c >= m->ncls || t < 0 || gpus < 1)
        return 0.0;
    const struct tclass *k = &m->cls[c];
    double alone = rate_on(m, k, t, 0, gpus);
    /* a gang that cannot run on one server cannot run spread; one GPU is never spread */
    if (!spread || alone <= 0 || gpus == 1)
        return alone;
    if (k->spread_factor > 0)
        return alone * k->spread_factor;
    if (sp && sp->factor > 0)
        return alone * sp->factor;
    double r = !sp || sp->measured ? rate_on(m, k, t, 1, gpus) : 0;
    return r > 0 ? r : alone;
}

double berth__tput_rate(const struct berth_tput *m, int c, int t, int32_t gpus, int spread)
{
    return berth__tput_rate_sp(m, NULL, c, t, gpus, spread);
}

double berth__tput_spread_ratio(const struct berth_tput *m, const struct berth__spread *sp, int c,
                                int t, int32_t gpus)
{
    if (gpus <= 1)
        return 1.0;
    int known = m && c >= 0 && (size_t)c < m->ncls;
    if (known && m->cls[c].spread_factor > 0)
        return m->cls[c].spread_factor;
    if (sp && sp->factor > 0)
        return sp->factor;
    if (!known || t < 0 || (sp && !sp->measured) || !berth__tput_has_spread_points(m, c, t))
        return 1.0;
    double one = berth__tput_rate_sp(m, sp, c, t, gpus, 0);
    return one > 0 ? berth__tput_rate_sp(m, sp, c, t, gpus, 1) / one : 1.0;
}

static uint64_t pair_key(int a, int b, int t)
{
    /* 24 bits per class, 15 for the type (+1 so -1 fits); never 0 */
    return ((uint64_t)(uint32_t)a << 40) | ((uint64_t)(uint32_t)b << 16) |
           (uint64_t)(uint16_t)(t + 1) | UINT64_C(1) << 63;
}

static size_t pair_slot(const struct berth_tput *m, uint64_t key)
{
    size_t mask = m->pairs_cap - 1, i = (size_t)(key * UINT64_C(0x9E3779B97F4A7C15) >> 20) & mask;
    while (m->pairs[i].key && m->pairs[i].key != key)
        i = (i + 1) & mask;
    return i;
}

int berth__tput_add_pair(struct berth_tput *m, int a, int b, int t, double speed)
{
    if (a >= (1 << 23) || b >= (1 << 23))
        return -1;
    if ((m->npairs + 1) * 2 > m->pairs_cap) {
        size_t cap = m->pairs_cap ? m->pairs_cap * 2 : 256;
        struct pair *old = m->pairs;
        size_t old_cap = m->pairs_cap;
        m->pairs = calloc(cap, sizeof *m->pairs);
        if (!m->pairs) {
            m->pairs = old;
            return -1;
        }
        m->pairs_cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].key)
                m->pairs[pair_slot(m, old[i].key)] = old[i];
        free(old);
    }
    uint64_t key = pair_key(a, b, t);
    size_t i = pair_slot(m, key);
    if (!m->pairs[i].key)
        m->npairs++;
    m->pairs[i] = (struct pair){key, speed};
    return 0;
}

double berth__tput_pair(const struct berth_tput *m, int a, int b, int t)
{
    if (!m->pairs_cap || a < 0 || b < 0)
        return 0.0;
    const struct pair *p = &m->pairs[pair_slot(m, pair_key(a, b, t))];
    if (p->key)
        return p->speed;
    p = &m->pairs[pair_slot(m, pair_key(a, b, -1))];
    return p->key ? p->speed : 0.0;
}
