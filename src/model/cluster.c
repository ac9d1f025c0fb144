/* Clusters: the bucketed free-GPU state, freeing, cloning and verifying a cluster, and the
 * accessors of include/berth/cluster.h. Building one is cluster_build.c, the shorthand
 * NxG:type cluster_shorthand.c; file formats live in io/cluster_*.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/cluster.h"
#include "model/cluster_int.h"
#include "model/topo.h"
#include "util/num.h"

/* Notes server s in the change list, when one is kept. */
static inline void note_change(struct berth_cluster *c, uint32_t s)
{
    struct berth__changes *ch = c->changes;
    if (__builtin_expect(ch != NULL, 0) && !ch->in[s]) {
        ch->in[s] = 1;
        ch->list[ch->n++] = s;
    }
}

int berth__cluster_track_changes(struct berth_cluster *c)
{
    if (c->changes)
        return 0;
    struct berth__changes *ch = calloc(1, sizeof *ch);
    size_t n = c->nsrv ? c->nsrv : 1;
    if (!ch || !(ch->list = malloc(n * sizeof *ch->list)) || !(ch->in = calloc(n, 1))) {
        if (ch)
            free(ch->list);
        free(ch);
        return -1;
    }
    c->changes = ch;
    return 0;
}

void berth__cluster_changes_clear(struct berth_cluster *c)
{
    struct berth__changes *ch = c->changes;
    if (!ch)
        return;
    for (size_t i = 0; i < ch->n; i++)
        ch->in[ch->list[i]] = 0;
    ch->n = 0;
}

/* Saves the idle-GPU counts a take or give of server s changes. */
static void save_counts(struct berth_cluster *c, struct berth__server *v)
{
    BERTH__CLUSTER_SAVE(c, v->free_mask);
    BERTH__CLUSTER_SAVE(c, v->nfree);
    BERTH__CLUSTER_SAVE(c, c->types[v->type].free);
    BERTH__CLUSTER_SAVE(c, c->free);
}

/* Bits set in a GPU mask (at most 64); cheaper than libgcc's generic popcount call on
 * builds without the POPCNT instruction. */
static inline int mask_count(uint64_t m)
{
    m = m - ((m >> 1) & UINT64_C(0x5555555555555555));
    m = (m & UINT64_C(0x3333333333333333)) + ((m >> 2) & UINT64_C(0x3333333333333333));
    m = (m + (m >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (int)((m * UINT64_C(0x0101010101010101)) >> 56);
}

void berth__cluster_take_mask(struct berth_cluster *c, uint32_t s, uint64_t mask)
{
    struct berth__server *v = &c->srv[s];
    int n = mask_count(mask);
    berth__cluster_bucket_unlink(c, s);
    if (__builtin_expect(c->undo != NULL, 0))
        save_counts(c, v);
    note_change(c, s);
    v->gen++;
    v->free_mask &= ~mask;
    v->nfree = (uint16_t)(v->nfree - n);
    c->types[v->type].free -= n;
    c->free -= n;
    if (__builtin_expect(c->topo != NULL, 0))
        berth__topo_count(c, s, -n);
    berth__cluster_bucket_push(c, s);
}

void berth__cluster_to_front(struct berth_cluster *c, uint32_t s)
{
    berth__cluster_bucket_unlink(c, s);
    berth__cluster_bucket_push(c, s);
}

static void give_free(struct berth_cluster *c, uint32_t s, uint64_t mask)
{
    struct berth__server *v = &c->srv[s];
    int n = mask_count(mask);
    berth__cluster_bucket_unlink(c, s);
    if (__builtin_expect(c->undo != NULL, 0))
        save_counts(c, v);
    note_change(c, s);
    v->gen++;
    v->free_mask |= mask;
    v->nfree = (uint16_t)(v->nfree + n);
    c->types[v->type].free += n;
    c->free += n;
    if (__builtin_expect(c->topo != NULL, 0))
        berth__topo_count(c, s, n);
    berth__cluster_bucket_push(c, s);
}

static uint64_t all_gpus(const struct berth__server *v)
{
    return v->ngpus >= 64 ? UINT64_MAX : (UINT64_C(1) << v->ngpus) - 1;
}

/* Holds out as many GPUs as the server's outside work and closing ask: idle ones are taken
 * (the lowest first), an excess is given back (the highest first). */
static void out_balance(struct berth_cluster *c, uint32_t s)
{
    struct berth__server *v = &c->srv[s];
    int want = v->closed ? v->ngpus : v->out_want, have = mask_count(v->out_mask);
    uint64_t m = 0;
    if (have < want) {
        for (uint64_t idle = v->free_mask; idle && have < want; have++) {
            uint64_t low = idle & (~idle + 1);
            m |= low;
            idle &= ~low;
        }
        if (m) {
            berth__cluster_take_mask(c, s, m);
            BERTH__CLUSTER_SAVE(c, v->out_mask);
            BERTH__CLUSTER_SAVE(c, c->out_gpus);
            v->out_mask |= m;
            c->out_gpus += mask_count(m);
        }
    } else if (have > want) {
        for (int g = v->ngpus - 1; g >= 0 && have > want; g--)
            if (v->out_mask >> g & 1) {
                m |= UINT64_C(1) << g;
                have--;
            }
        BERTH__CLUSTER_SAVE(c, v->out_mask);
        BERTH__CLUSTER_SAVE(c, c->out_gpus);
        v->out_mask &= ~m;
        c->out_gpus -= mask_count(m);
        give_free(c, s, m);
    }
}

void berth__cluster_give_mask(struct berth_cluster *c, uint32_t s, uint64_t mask)
{
    give_free(c, s, mask);
    if (__builtin_expect(c->srv[s].closed | (c->srv[s].out_want != 0), 0))
        out_balance(c, s); /* held out again before anyone can place on them */
}

void berth__cluster_hold_out(struct berth_cluster *c, uint32_t s, int32_t n)
{
    struct berth__server *v = &c->srv[s];
    uint16_t want = (uint16_t)(n < 0 ? 0 : n > v->ngpus ? v->ngpus : n);
    c->nout_want += (want != 0) - (v->out_want != 0);
    v->out_want = want;
    out_balance(c, s);
}

void berth__cluster_close(struct berth_cluster *c, uint32_t s, int on)
{
    c->nclosed += (on != 0) - (c->srv[s].closed != 0);
    c->srv[s].closed = (uint8_t)(on != 0);
    out_balance(c, s);
}

void berth__cluster_give_slots(struct berth_cluster *c, const struct berth__slot *sl, int32_t n)
{
    for (int32_t k = 0; k < n;) {
        uint32_t s = sl[k].server;
        uint64_t mask = 0;
        for (; k < n && sl[k].server == s; k++)
            mask |= UINT64_C(1) << sl[k].gpu;
        berth__cluster_give_mask(c, s, mask);
    }
}

void berth__cluster_take_slots(struct berth_cluster *c, const struct berth__slot *sl, int32_t n)
{
    for (int32_t k = 0; k < n;) {
        uint32_t s = sl[k].server;
        uint64_t mask = 0;
        for (; k < n && sl[k].server == s; k++)
            mask |= UINT64_C(1) << sl[k].gpu;
        berth__cluster_take_mask(c, s, mask);
    }
}

int berth__cluster_reserve(struct berth_cluster *c, uint32_t s)
{
    struct berth__server *v = &c->srv[s];
    if (v->reserved || v->free_mask != all_gpus(v) || v->cpu_free != v->cpu_milli ||
        v->mem_free != v->mem_mib)
        return -1;
    berth__cluster_take_mask(c, s, all_gpus(v));
    v->reserved = 1;
    c->reserved_gpus += v->ngpus;
    c->reserved_servers++;
    return 0;
}

int berth__cluster_unreserve(struct berth_cluster *c, uint32_t s)
{
    struct berth__server *v = &c->srv[s];
    if (!v->reserved)
        return -1;
    v->reserved = 0;
    c->reserved_gpus -= v->ngpus;
    c->reserved_servers--;
    berth__cluster_give_mask(c, s, all_gpus(v));
    return 0;
}

void berth_cluster_free(struct berth_cluster *c)
{
    if (!c)
        return;
    for (size_t t = 0; t < c->ntypes; t++) {
        free(c->types[t].head);
        free(c->types[t].partial);
    }
    for (size_t s = 0; c->shares_ready && s < c->nsrv; s++)
        free(c->srv[s].shares);
    free(c->types);
    free(c->srv);
    free(c->owner);
    if (c->changes) {
        free(c->changes->list);
        free(c->changes->in);
        free(c->changes);
    }
    free(c->racks);
    free(c->pools);
    berth__topo_free(c->topo);
    berth__arena_free(&c->names);
    free(c);
}

struct berth_cluster *berth__cluster_clone(const struct berth_cluster *c)
{
    struct berth_cluster *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    *d = *c;
    /* names stay in c's arena: the clone must not outlive c */
    berth__arena_init(&d->names);
    d->shares_ready = 0; /* nothing below is owned until copied */
    d->owner = NULL;     /* a clone does not track owners */
    d->undo = NULL;      /* nor share an undo log */
    d->changes = NULL;   /* nor a change list */
    d->topo = NULL;      /* its own idle counts, below */
    d->ntypes = 0;
    d->srv = malloc((c->nsrv ? c->nsrv : 1) * sizeof *d->srv);
    d->types = malloc((c->ntypes ? c->ntypes : 1) * sizeof *d->types);
    d->racks = malloc((c->nracks + 1) * sizeof *d->racks);
    d->pools = malloc((c->npools + 1) * sizeof *d->pools);
    if (!d->srv || !d->types || !d->racks || !d->pools)
        goto fail;
    memcpy(d->srv, c->srv, c->nsrv * sizeof *d->srv);
    if (c->nracks)
        memcpy(d->racks, c->racks, c->nracks * sizeof *d->racks);
    if (c->npools)
        memcpy(d->pools, c->pools, c->npools * sizeof *d->pools);
    for (size_t s = 0; s < c->nsrv; s++)
        d->srv[s].shares = NULL;
    if (c->topo && !(d->topo = berth__topo_clone(c->topo)))
        goto fail;
    for (size_t t = 0; t < c->ntypes; t++, d->ntypes++) {
        struct berth__gputype *ty = &d->types[t];
        *ty = c->types[t];
        ty->partial = NULL;
        size_t n = (size_t)(ty->max_per_server + 1);
        ty->head = malloc(n * sizeof(int32_t));
        if (!ty->head)
            goto fail;
        memcpy(ty->head, c->types[t].head, n * sizeof(int32_t));
        if (c->shares_ready) {
            ty->partial = malloc(ty->partial_cap * sizeof *ty->partial);
            if (!ty->partial)
                goto fail;
            memcpy(ty->partial, c->types[t].partial, ty->npartial * sizeof *ty->partial);
        }
    }
    if (c->shares_ready) {
        d->shares_ready = 1;
        for (size_t s = 0; s < c->nsrv; s++) {
            if (!c->srv[s].shares)
                continue;
            if (!(d->srv[s].shares = malloc(sizeof *d->srv[s].shares)))
                goto fail;
            *d->srv[s].shares = *c->srv[s].shares;
        }
    }
    return d;
fail:
    berth_cluster_free(d);
    return NULL;
}

int berth__cluster_verify(const struct berth_cluster *c, struct berth_err *err)
{
    int32_t free_all = 0;
    for (size_t t = 0; t < c->ntypes; t++) {
        const struct berth__gputype *ty = &c->types[t];
        int32_t free_t = 0, listed = 0;
        for (int f = 0; f <= ty->max_per_server; f++)
            for (int32_t s = ty->head[f], prev = -1; s >= 0; prev = s, s = c->srv[s].next) {
                const struct berth__server *v = &c->srv[s];
                if (v->nfree != f || v->type != t || v->prev != prev)
                    return berth_err_set(err, BERTH_EINTERNAL,
                                         "server %s is in the wrong free-GPU bucket", v->name);
                listed++;
            }
        for (size_t s = 0; s < c->nsrv; s++) {
            const struct berth__server *v = &c->srv[s];
            if (v->type != t)
                continue;
            if (__builtin_popcountll(v->free_mask) != v->nfree || v->nfree > v->ngpus ||
                (v->ngpus < 64 && (v->free_mask >> v->ngpus)))
                return berth_err_set(err, BERTH_EINTERNAL,
                                     "server %s: idle-GPU mask and count disagree", v->name);
            free_t += v->nfree;
        }
        if (listed != ty->nservers || free_t != ty->free)
            return berth_err_set(err, BERTH_EINTERNAL,
                                 "GPU type %s: counted %d idle GPUs on %d servers, recorded %d "
                                 "on %d",
                                 ty->name, free_t, listed, ty->free, ty->nservers);
        free_all += free_t;
    }
    if (free_all != c->free || c->free < 0 || c->free > c->total)
        return berth_err_set(err, BERTH_EINTERNAL, "cluster: counted %d idle GPUs, recorded %d",
                             free_all, c->free);
    /* fractional shares: idle room on partly used GPUs, partial lists; held-out GPUs */
    int64_t room = 0;
    size_t partial = 0;
    int32_t out = 0;
    for (size_t s = 0; s < c->nsrv; s++) {
        const struct berth__server *v = &c->srv[s];
        out += mask_count(v->out_mask);
        if ((v->out_mask & (v->free_mask | ~all_gpus(v))) ||
            (!v->closed && mask_count(v->out_mask) > v->out_want))
            return berth_err_set(err, BERTH_EINTERNAL,
                                 "server %s: held-out GPUs 0x%llx, idle 0x%llx, %d wanted out",
                                 v->name, (unsigned long long)v->out_mask,
                                 (unsigned long long)v->free_mask, v->out_want);
        for (int g = 0; g < v->ngpus; g++) {
            int used = v->shares ? v->shares->used[g] : 0;
            int idle = (v->free_mask >> g) & 1;
            if ((idle && used) || used > 1000 || (used && (v->out_mask >> g & 1)))
                return berth_err_set(err, BERTH_EINTERNAL,
                                     "GPU %d of server %s: marked idle or held out with %d milli "
                                     "in use",
                                     g, v->name, used);
            if (used > 0 && used < 1000) {
                room += 1000 - used;
                int32_t pos = v->shares->pos[g];
                const struct berth__gputype *ty = &c->types[v->type];
                if (pos < 0 || (size_t)pos >= ty->npartial || ty->partial[pos].server != s ||
                    ty->partial[pos].gpu != (uint32_t)g)
                    return berth_err_set(err, BERTH_EINTERNAL,
                                         "GPU %d of server %s is partly used but not listed", g,
                                         v->name);
                partial++;
            }
        }
        if ((v->cpu_milli && (v->cpu_free < 0 || v->cpu_free > v->cpu_milli)) ||
            (v->mem_mib && (v->mem_free < 0 || v->mem_free > v->mem_mib)))
            return berth_err_set(err, BERTH_EINTERNAL, "server %s: CPU or memory over-committed",
                                 v->name);
    }
    size_t listed = 0;
    for (size_t t = 0; t < c->ntypes; t++)
        listed += c->types[t].npartial;
    if (room != c->frac_idle || listed != partial)
        return berth_err_set(err, BERTH_EINTERNAL,
                             "cluster: %lld idle milli-GPUs on partly used GPUs (recorded %lld), "
                             "%zu partial GPUs (listed %zu)",
                             (long long)room, (long long)c->frac_idle, partial, listed);
    if (out != c->out_gpus)
        return berth_err_set(err, BERTH_EINTERNAL, "cluster: counted %d held-out GPUs, recorded %d",
                             out, c->out_gpus);
    char why[256];
    if (berth__topo_verify(c, why, sizeof why))
        return berth_err_set(err, BERTH_EINTERNAL, "%s", why);
    return 0;
}

int32_t berth_cluster_gpus(const struct berth_cluster *c)
{
    return c->total;
}

int32_t berth_cluster_free_gpus(const struct berth_cluster *c)
{
    return c->free;
}

size_t berth_cluster_servers(const struct berth_cluster *c)
{
    return c->nsrv;
}

size_t berth_cluster_type_count(const struct berth_cluster *c)
{
    return c->ntypes;
}

const char *berth_cluster_type_name(const struct berth_cluster *c, size_t type)
{
    return type < c->ntypes ? c->types[type].name : NULL;
}

int32_t berth_cluster_type_gpus(const struct berth_cluster *c, size_t type)
{
    return type < c->ntypes ? c->types[type].total : 0;
}

int berth__cluster_type_mask(const struct berth_cluster *c, const char *spec, uint64_t *mask)
{
    *mask = 0;
    if (!spec[0])
        return 0;
    for (const char *p = spec;;) {
        size_t n = strcspn(p, "|");
        for (size_t t = 0; t < c->ntypes; t++)
            if (strlen(c->types[t].name) == n && !strncasecmp(c->types[t].name, p, n))
                *mask |= UINT64_C(1) << t;
        if (!p[n])
            break;
        p += n + 1;
    }
    return *mask ? 0 : -1;
}

int berth_cluster_type_find(const struct berth_cluster *c, const char *name)
{
    for (size_t t = 0; t < c->ntypes; t++)
        if (!strcasecmp(c->types[t].name, name))
            return (int)t;
    return -1;
}

int32_t berth_cluster_max_server_gpus(const struct berth_cluster *c, int type)
{
    if (type < 0)
        return c->max_per_server;
    return (size_t)type < c->ntypes ? c->types[type].max_per_server : 0;
}

int berth_cluster_allows_span(const struct berth_cluster *c)
{
    return c->allow_span;
}

/* The topology's shape after the GPUs: "; 8 racks, 2 blocks, NVLink islands of 8 GPUs" (in
 * servers), "; 4 racks, 4 NVLink domains of 72 GPUs" (multi-node); a domain size is left out
 * when they differ, the islands inside servers when theirs do. */
static void describe_topo(const struct berth_cluster *c, char *buf, size_t len)
{
    const struct berth__topo *t = c->topo;
    size_t nr = t->k[BERTH__TOPO_RACK].n, nb = t->k[BERTH__TOPO_BLOCK].n;
    size_t nd = t->k[BERTH__TOPO_ISLAND].n;
    int32_t in = -1, dom = -1; /* islands' GPUs inside servers, domains' GPUs; -2 mixed */
    for (size_t s = 0; s < c->nsrv; s++) {
        const struct berth__server *v = &c->srv[s];
        if (v->island >= 0 || !v->ngpus)
            continue;
        int32_t g = v->nvl ? v->nvl : v->ngpus;
        in = in == -1 || in == g ? g : -2;
    }
    for (size_t d = 0; d < nd; d++) {
        int32_t g = 0;
        for (size_t ty = 0; ty < t->ntypes; ty++)
            g += t->k[BERTH__TOPO_ISLAND].total[d * t->ntypes + ty];
        dom = dom == -1 || dom == g ? g : -2;
    }
    int n = snprintf(buf, len, ";");
    const char *sep = " ";
    if (nr && n > 0 && (size_t)n < len) {
        n += snprintf(buf + n, len - (size_t)n, "%s%zu rack%s", sep, nr, nr == 1 ? "" : "s");
        sep = ", ";
    }
    if (nb && n > 0 && (size_t)n < len) {
        n += snprintf(buf + n, len - (size_t)n, "%s%zu block%s", sep, nb, nb == 1 ? "" : "s");
        sep = ", ";
    }
    if (nd && n > 0 && (size_t)n < len) {
        n += snprintf(buf + n, len - (size_t)n, "%s%zu NVLink domain%s", sep, nd,
                      nd == 1 ? "" : "s");
        if (dom > 0 && n > 0 && (size_t)n < len)
            n += snprintf(buf + n, len - (size_t)n, " of %d GPUs", dom);
        sep = ", ";
    }
    if (in > 0 && n > 0 && (size_t)n < len) /* islands of differing sizes: not told */
        snprintf(buf + n, len - (size_t)n, "%sNVLink islands of %d GPUs%s", sep, in,
                 nd ? " elsewhere" : "");
}

void berth_cluster_describe(const struct berth_cluster *c, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%zu server%s, %d GPU%s (", c->nsrv, c->nsrv == 1 ? "" : "s",
                     c->total, c->total == 1 ? "" : "s");
    int first = 1, cpu_only = 0;
    for (size_t t = 0; t < c->ntypes && n > 0 && (size_t)n < len; t++) {
        if (!c->types[t].total) { /* CPU-only servers are a type with no GPU */
            cpu_only += c->types[t].nservers;
            continue;
        }
        n += snprintf(buf + n, len - (size_t)n, "%s%d %s", first ? "" : ", ", c->types[t].total,
                      c->types[t].name);
        first = 0;
    }
    if (n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, ")");
    if (cpu_only && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, ", %d of them CPU-only", cpu_only);
    if (c->topo && n > 0 && (size_t)n < len)
        describe_topo(c, buf + n, len - (size_t)n);
}

int64_t berth__cluster_largest_gpu_mem(const struct berth_cluster *c, uint64_t mask)
{
    int64_t most = 0;
    for (size_t s = 0; s < c->nsrv; s++) {
        const struct berth__server *v = &c->srv[s];
        if (!v->ngpus || (mask && !(mask >> v->type & 1)))
            continue;
        if (!v->gpu_mem_mib)
            return -1; /* a server with unknown GPU memory takes any job */
        most = v->gpu_mem_mib > most ? v->gpu_mem_mib : most;
    }
    return most;
}
