/* Cluster building: the builder that every cluster format fills, and the layout of its
 * servers into a cluster (types, names, topology, every server idle). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cluster.h"
#include "model/cluster_int.h"
#include "model/topo.h"
#include "util/hash.h"

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
        berth__cluster_bucket_push(c, (uint32_t)s);
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

int berth__builder_build(struct berth__cluster_builder *b, const char *what,
                         struct berth_cluster **out, struct berth_err *err)
{
    if (b->n == 0)
        return berth_err_set(err, BERTH_EINPUT, "%s: expected at least one server, found none",
                             what);
    return build(b, b->allow_span, out, err, what);
}
