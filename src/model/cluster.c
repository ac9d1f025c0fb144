/* Clusters: laying servers out from a builder (every cluster format ends here), the
 * shorthand NxG:type, the bucketed free-GPU state, and the accessors of
 * include/berth/cluster.h. File formats live in io/cluster_*.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/cluster.h"
#include "model/topo.h"
#include "util/hash.h"
#include "util/num.h"

int berth__builder_add(struct berth__cluster_builder *b, const struct berth__server_spec *s)
{
    if (BERTH_GROW(b->p, b->cap, b->n + 1))
        return -1;
    b->p[b->n++] = *s;
    return 0;
}

int berth__builder_find_duplicate(const struct berth__cluster_builder *b, size_t from,
                                  size_t *first, size_t *dup)
{
    size_t cap = 16;
    while (cap < (b->n - from) * 2)
        cap *= 2;
    size_t *slot = malloc(cap * sizeof *slot);
    if (!slot)
        return -1;
    for (size_t k = 0; k < cap; k++)
        slot[k] = SIZE_MAX;
    int found = 0;
    for (size_t i = from; i < b->n && !found; i++) {
        const char *nm = b->p[i].name;
        if (!nm)
            continue;
        for (size_t h = (size_t)berth__hash_str(nm) & (cap - 1);; h = (h + 1) & (cap - 1)) {
            if (slot[h] == SIZE_MAX) {
                slot[h] = i;
                break;
            }
            if (!strcmp(b->p[slot[h]].name, nm)) {
                *first = slot[h];
                *dup = i;
                found = 1;
                break;
            }
        }
    }
    free(slot);
    return found;
}

const char *berth__builder_str(struct berth__cluster_builder *b, const char *s, int lower)
{
    char *d = berth__arena_strndup(&b->names, s, strlen(s));
    if (d && lower)
        for (char *q = d; *q; q++)
            *q = (char)tolower((unsigned char)*q);
    return d;
}

void berth__builder_init(struct berth__cluster_builder *b)
{
    memset(b, 0, sizeof *b);
    berth__arena_init(&b->names);
    b->allow_span = 1;
}

void berth__builder_free(struct berth__cluster_builder *b)
{
    free(b->p);
    berth__arena_free(&b->names);
    memset(b, 0, sizeof *b);
}

/* Unlinks s from its bucket; the caller changes its idle GPUs and pushes it again. Under an
 * undo log, everything the pair writes is saved here: the links around s, its own links,
 * the old bucket's head, and (for bucket_push) the new bucket's head and first server. */
static void bucket_unlink(struct berth_cluster *c, uint32_t s)
{
    struct berth__server *v = &c->srv[s];
    struct berth__gputype *t = &c->types[v->type];
    if (v->prev >= 0) {
        BERTH__CLUSTER_SAVE(c, c->srv[v->prev].next);
        c->srv[v->prev].next = v->next;
    } else {
        BERTH__CLUSTER_SAVE(c, t->head[v->nfree]);
        t->head[v->nfree] = v->next;
    }
    if (v->next >= 0) {
        BERTH__CLUSTER_SAVE(c, c->srv[v->next].prev);
        c->srv[v->next].prev = v->prev;
    }
    BERTH__CLUSTER_SAVE(c, v->prev);
    BERTH__CLUSTER_SAVE(c, v->next);
    v->prev = v->next = -1;
}

static void bucket_push(struct berth_cluster *c, uint32_t s)
{
    struct berth__server *v = &c->srv[s];
    struct berth__gputype *t = &c->types[v->type];
    v->prev = -1; /* v's links were saved by bucket_unlink */
    v->next = t->head[v->nfree];
    if (v->next >= 0) {
        BERTH__CLUSTER_SAVE(c, c->srv[v->next].prev);
        c->srv[v->next].prev = (int32_t)s;
    }
    BERTH__CLUSTER_SAVE(c, t->head[v->nfree]);
    t->head[v->nfree] = (int32_t)s;
}

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
    bucket_unlink(c, s);
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
    bucket_push(c, s);
}

void berth__cluster_to_front(struct berth_cluster *c, uint32_t s)
{
    bucket_unlink(c, s);
    bucket_push(c, s);
}

static void give_free(struct berth_cluster *c, uint32_t s, uint64_t mask)
{
    struct berth__server *v = &c->srv[s];
    int n = mask_count(mask);
    bucket_unlink(c, s);
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
    bucket_push(c, s);
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

/* A name table (racks, pools) with a hash index, so interning n names costs O(n). */
struct names {
    const char **tab;
    size_t n, cap;
    uint32_t *slot; /* open addressing over tab indices, UINT32_MAX = empty */
    size_t nslot;
};

static int names_grow(struct names *nm)
{
    size_t ns = nm->nslot ? nm->nslot * 2 : 64;
    uint32_t *sl = malloc(ns * sizeof *sl);
    if (!sl)
        return -1;
    memset(sl, 0xff, ns * sizeof *sl);
    for (size_t i = 0; i < nm->n; i++) {
        size_t h = (size_t)berth__hash_str(nm->tab[i]) & (ns - 1);
        while (sl[h] != UINT32_MAX)
            h = (h + 1) & (ns - 1);
        sl[h] = (uint32_t)i;
    }
    free(nm->slot);
    nm->slot = sl;
    nm->nslot = ns;
    return 0;
}

/* Index of name in the table, added if new: >= 0, -1 for no name, -2 out of memory. */
static int intern(struct names *nm, struct berth__arena *a, const char *name)
{
    if (!name || !*name)
        return -1;
    if ((nm->n + 1) * 2 > nm->nslot && names_grow(nm))
        return -2;
    size_t h = (size_t)berth__hash_str(name) & (nm->nslot - 1);
    for (; nm->slot[h] != UINT32_MAX; h = (h + 1) & (nm->nslot - 1))
        if (!strcmp(nm->tab[nm->slot[h]], name))
            return (int)nm->slot[h];
    if (BERTH_GROW(nm->tab, nm->cap, nm->n + 1))
        return -2;
    nm->tab[nm->n] = berth__arena_strndup(a, name, strlen(name));
    if (!nm->tab[nm->n])
        return -2;
    nm->slot[h] = (uint32_t)nm->n;
    return (int)nm->n++;
}

static void names_free(struct names *nm)
{
    free(nm->tab);
    free(nm->slot);
    nm->tab = NULL;
    nm->slot = NULL;
}

/* How a message names server spec src of b: "servers[3]", "line 7" or "entry 4". */
static const char *src_label(const struct berth__cluster_builder *b, size_t src, char *buf,
                             size_t len)
{
    if (b->src_kind == 1)
        snprintf(buf, len, "servers[%zu]", src);
    else if (b->src_kind == 2)
        snprintf(buf, len, "line %zu", src);
    else
        snprintf(buf, len, "entry %zu", src + 1);
    return buf;
}

/* The topology must be a tree: every server of a multi-node NVLink domain in one rack (and
 * whole, with no islands inside), every server of a rack in one block. The message names
 * the two servers (by their entries in the source) that break it. */
static int topo_check(const struct berth__cluster_builder *b, const struct berth_cluster *c,
                      const char *what, struct berth_err *err)
{
    struct {
        int32_t *up; /* per domain: the first server's parent domain, -2 unseen */
        size_t *first;
        size_t n;
    } k[2] = {{0}};
    size_t nisl = 0, nrack = c->nracks;
    for (size_t s = 0; s < c->nsrv; s++)
        if (c->srv[s].island + 1 > (int32_t)nisl)
            nisl = (size_t)c->srv[s].island + 1;
    k[0].n = nisl;
    k[1].n = nrack;
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++) {
        k[i].up = malloc((k[i].n ? k[i].n : 1) * sizeof *k[i].up);
        k[i].first = malloc((k[i].n ? k[i].n : 1) * sizeof *k[i].first);
        if (!k[i].up || !k[i].first)
            rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", what);
        for (size_t d = 0; !rc && d < k[i].n; d++)
            k[i].up[d] = -2;
    }
    for (size_t s = 0; s < c->nsrv && !rc; s++) {
        const struct berth__server *v = &c->srv[s];
        const struct berth__server_spec *sp = &b->p[s];
        char la[40], lz[40];
        if (v->island >= 0 && sp->nvl > 0 && sp->nvl < sp->gpus) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: topology: server %s (%s) is in NVLink domain %s and also "
                               "has islands of %d GPUs inside it: expected one or the other",
                               what, v->name, src_label(b, sp->src, la, sizeof la), sp->island,
                               sp->nvl);
            break;
        }
        for (int i = 0; i < 2; i++) {
            int32_t d = i == 0 ? v->island : v->rack, up = i == 0 ? v->rack : v->block;
            if (d < 0)
                continue;
            if (k[i].up[d] == -2) {
                k[i].up[d] = up;
                k[i].first[d] = s;
            } else if (k[i].up[d] != up) {
                const struct berth__server_spec *f = &b->p[k[i].first[d]];
                const char *kind = i == 0 ? "NVLink domain" : "rack",
                           *upk = i == 0 ? "rack" : "block";
                const char *a = i == 0 ? f->rack : f->block, *z = i == 0 ? sp->rack : sp->block;
                rc = berth_err_set(err, BERTH_EINPUT,
                                   "%s: topology: %s %s spans two %ss: server %s (%s) is in %s "
                                   "%s, server %s (%s) in %s %s",
                                   what, kind, i == 0 ? sp->island : sp->rack, upk,
                                   c->srv[k[i].first[d]].name, src_label(b, f->src, la, sizeof la),
                                   upk, a ? a : "(none)", v->name,
                                   src_label(b, sp->src, lz, sizeof lz), upk, z ? z : "(none)");
                break;
            }
        }
    }
    for (int i = 0; i < 2; i++) {
        free(k[i].up);
        free(k[i].first);
    }
    return rc;
}

/* Lays the servers out: types in order of first appearance, every server idle. */
static int build(struct berth__cluster_builder *b, int allow_span, struct berth_cluster **out,
                 struct berth_err *err, const char *what)
{
    struct berth_cluster *c = calloc(1, sizeof *c);
    if (!c)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", what);
    struct names racks = {0}, pools = {0}, blocks = {0}, islands = {0};
    int topo = 0;
    berth__arena_init(&c->names);
    c->allow_span = allow_span;
    c->srv = calloc(b->n ? b->n : 1, sizeof *c->srv);
    c->types = calloc(b->n ? b->n : 1, sizeof *c->types);
    if (!c->srv || !c->types)
        goto nomem;
    for (size_t i = 0; i < b->n; i++) {
        struct berth__server_spec *pr = &b->p[i];
        size_t t;
        for (t = 0; t < c->ntypes; t++)
            if (!strcmp(c->types[t].name, pr->type))
                break;
        if (t == c->ntypes && t == BERTH_MAX_GPU_TYPES) {
            names_free(&racks);
            names_free(&pools);
            names_free(&blocks);
            names_free(&islands);
            berth_cluster_free(c);
            return berth_err_set(err, BERTH_EINPUT, "%s: expected at most %d GPU types", what,
                                 BERTH_MAX_GPU_TYPES);
        }
        if (t == c->ntypes) {
            c->types[t].name = berth__arena_strndup(&c->names, pr->type, strlen(pr->type));
            if (!c->types[t].name)
                goto nomem;
            c->ntypes++;
        }
        struct berth__server *v = &c->srv[c->nsrv++];
        v->type = (uint16_t)t;
        v->ngpus = v->nfree = (uint16_t)pr->gpus;
        v->free_mask = pr->gpus == 64 ? UINT64_MAX : (UINT64_C(1) << pr->gpus) - 1;
        v->cpu_milli = v->cpu_free = pr->cpu_milli;
        v->mem_mib = v->mem_free = pr->mem_mib;
        v->gpu_mem_mib = pr->gpu_mem_mib;
        c->has_gpu_mem |= pr->gpu_mem_mib > 0;
        c->has_cpu_mem |= pr->cpu_milli > 0 || pr->mem_mib > 0;
        char nb[96];
        const char *nm = pr->name;
        if (!nm || !*nm) {
            snprintf(nb, sizeof nb, "%s-%zu", pr->type, c->nsrv - 1);
            nm = nb;
        }
        v->name = berth__arena_strndup(&c->names, nm, strlen(nm));
        v->rack = intern(&racks, &c->names, pr->rack);
        v->pool = intern(&pools, &c->names, pr->pool);
        v->block = intern(&blocks, &c->names, pr->block);
        v->island = intern(&islands, &c->names, pr->island);
        v->nvl = (uint8_t)(pr->nvl > 0 && pr->nvl < pr->gpus ? pr->nvl : 0);
        if (!v->name || v->rack == -2 || v->pool == -2 || v->block == -2 || v->island == -2)
            goto nomem;
        topo |= (v->rack >= 0 && !b->racks_are_labels) || v->block >= 0 || v->island >= 0 || v->nvl;
        struct berth__gputype *ty = &c->types[t];
        ty->total += pr->gpus;
        ty->free += pr->gpus;
        ty->nservers++;
        if (pr->gpus > ty->max_per_server)
            ty->max_per_server = pr->gpus;
        c->total += pr->gpus;
        if (pr->gpus > c->max_per_server)
            c->max_per_server = pr->gpus;
    }
    c->racks = racks.tab;
    c->nracks = racks.n;
    c->pools = pools.tab;
    c->npools = pools.n;
    racks.tab = pools.tab = NULL;
    free(racks.slot);
    free(pools.slot);
    racks.slot = pools.slot = NULL; /* nomem below frees them again */
    c->free = c->total;
    if (topo) {
        int bad = topo_check(b, c, what, err);
        if (bad) {
            names_free(&blocks);
            names_free(&islands);
            berth_cluster_free(c);
            return bad;
        }
        if (berth__topo_build(c, islands.tab, islands.n, blocks.tab, blocks.n))
            goto nomem;
    }
    names_free(&blocks);
    names_free(&islands);
    for (size_t t = 0; t < c->ntypes; t++) {
        struct berth__gputype *ty = &c->types[t];
        ty->head = malloc((size_t)(ty->max_per_server + 1) * sizeof *ty->head);
        if (!ty->head)
            goto nomem;
        for (int f = 0; f <= ty->max_per_server; f++)
            ty->head[f] = -1;
    }
    /* push in reverse so that each bucket lists servers in index order */
    for (size_t s = c->nsrv; s-- > 0;)
        bucket_push(c, (uint32_t)s);
    *out = c;
    return 0;
nomem:
    names_free(&racks);
    names_free(&pools);
    names_free(&blocks);
    names_free(&islands);
    berth_cluster_free(c);
    return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", what);
}

int berth__cluster_type_name_ok(const char *s, size_t n)
{
    if (!n || n > 31)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return 0;
    return 1;
}

/* One racks=R, blocks=B or nvl=N part of a shorthand (each at most once). */
static int shape_option(const char *spec, int part, const char *p, size_t len,
                        struct berth__cluster_builder *b, struct berth_err *err)
{
    const char *eq = memchr(p, '=', len);
    size_t klen = (size_t)(eq - p);
    int64_t v = 0;
    char ex[80];
    int32_t *at = klen == 5 && !memcmp(p, "racks", 5)    ? &b->racks
                  : klen == 6 && !memcmp(p, "blocks", 6) ? &b->blocks
                  : klen == 3 && !memcmp(p, "nvl", 3)    ? &b->nvl
                                                         : NULL;
    if (!at)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster '%s': part %d: expected racks=R, blocks=B or nvl=N (the "
                             "topology), found %s",
                             spec, part, berth__excerpt(ex, sizeof ex, p, len));
    if (berth__parse_i64(eq + 1, len - klen - 1, &v) || v < 1 || v > 1000000)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster '%s': part %d: expected %.*s= a whole number from 1 to "
                             "1000000, found %s",
                             spec, part, (int)klen, p, berth__excerpt(ex, sizeof ex, p, len));
    if (*at)
        return berth_err_set(err, BERTH_EINPUT, "--cluster '%s': part %d: %.*s= given twice", spec,
                             part, (int)klen, p);
    *at = (int32_t)v;
    return 0;
}

/* A GPU's memory in a shorthand part: "16g" (GiB), "16384m" or "16384" (MiB); 0 when bad. */
static int64_t parse_mem(const char *p, size_t len)
{
    int64_t v = 0, mul = 1;
    if (len && (p[len - 1] == 'g' || p[len - 1] == 'G'))
        mul = 1024, len--;
    else if (len && (p[len - 1] == 'm' || p[len - 1] == 'M'))
        len--;
    if (!len || berth__parse_i64(p, len, &v) || v < 1 || v > (INT64_C(1) << 34) / mul)
        return 0;
    return v * mul;
}

/* "16x4:v100,8x8:a100", a part's GPUs optionally with their memory: "1x4:v100:16g" */
int berth__cluster_parse_shorthand(const char *spec, struct berth__cluster_builder *b,
                                   struct berth_err *err)
{
    const char *p = spec;
    int part = 0;
    if (!*spec)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster: expected NxG:type[,NxG:type...] or a cluster file, "
                             "found an empty string");
    for (;;) {
        part++;
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (memchr(p, '=', len)) { /* racks=R, blocks=B, nvl=N: the topology's shape */
            int rc = shape_option(spec, part, p, len, b, err);
            if (rc)
                return rc;
            if (!comma)
                break;
            p = comma + 1;
            continue;
        }
        const char *x = memchr(p, 'x', len), *colon = memchr(p, ':', len);
        char ex[80];
        int64_t n = 0, g = 0, mem = 0;
        /* the type runs to the part's end or to a second colon (the GPUs' memory) */
        const char *mc = colon ? memchr(colon + 1, ':', len - (size_t)(colon + 1 - p)) : NULL;
        size_t tlen = colon ? (size_t)((mc ? mc : p + len) - (colon + 1)) : 0;
        if (!x || !colon || colon < x || berth__parse_i64(p, (size_t)(x - p), &n) ||
            berth__parse_i64(x + 1, (size_t)(colon - x - 1), &g) ||
            !berth__cluster_type_name_ok(colon + 1, tlen))
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%s': part %d: expected NxG:type or NxG:type:MEM "
                                 "(for example 16x4:v100 or 1x4:v100:16g), a cluster file or a "
                                 "built-in name (philly, gavel, tiresias), found %s",
                                 spec, part, berth__excerpt(ex, sizeof ex, p, len));
        if (mc && !(mem = parse_mem(mc + 1, len - (size_t)(mc + 1 - p))))
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%s': part %d: expected the GPUs' memory as 16g "
                                 "(GiB) or 16384m (MiB) after the type, found %s",
                                 spec, part,
                                 berth__excerpt(ex, sizeof ex, mc + 1, len - (size_t)(mc + 1 - p)));
        if (n < 1 || n > 1000000)
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%s': part %d: expected 1 to 1000000 servers, "
                                 "found %lld",
                                 spec, part, (long long)n);
        if (g < 1 || g > BERTH_MAX_SERVER_GPUS)
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%s': part %d: expected 1 to %d GPUs per server, "
                                 "found %lld",
                                 spec, part, BERTH_MAX_SERVER_GPUS, (long long)g);
        char tb[32];
        snprintf(tb, sizeof tb, "%.*s", (int)tlen, colon + 1);
        const char *type = berth__builder_str(b, tb, 1);
        if (!type)
            return berth_err_set(err, BERTH_ENOMEM, "--cluster: out of memory");
        if (b->n + (size_t)n > 1000000)
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%.60s': expected at most 1000000 servers in all, "
                                 "found more by part %d",
                                 spec, part);
        for (int64_t i = 0; i < n; i++)
            if (berth__builder_add(b, &(struct berth__server_spec){
                                          .type = type, .gpus = (int32_t)g, .gpu_mem_mib = mem}))
                return berth_err_set(err, BERTH_ENOMEM, "--cluster: out of memory");
        if (!comma)
            break;
        p = comma + 1;
    }
    if (b->n > 1000000)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster '%s': expected at most 1000000 servers, found %zu", spec,
                             b->n);
    if (!b->n)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster '%s': expected at least one NxG:type part beside the "
                             "topology's racks=, blocks=, nvl=",
                             spec);
    return b->racks || b->blocks || b->nvl ? berth__builder_shape(b, "--cluster", err) : 0;
}

int berth__builder_build(struct berth__cluster_builder *b, const char *what,
                         struct berth_cluster **out, struct berth_err *err)
{
    if (b->n == 0)
        return berth_err_set(err, BERTH_EINPUT, "%s: expected at least one server, found none",
                             what);
    return build(b, b->allow_span, out, err, what);
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
