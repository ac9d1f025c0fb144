/* Clusters: parsing the shorthand and JSON cluster files, the bucketed free-GPU state, and
 * the accessors of include/berth/cluster.h. */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cluster_int.h"
#include "util/num.h"

/* A server description before the cluster is laid out. */
struct proto {
    const char *type, *name, *rack, *pool;
    int32_t gpus;
    size_t src; /* index in the file's servers array */
};

struct builder {
    struct proto *p;
    size_t n, cap;
    struct berth__arena names;
};

static int add_proto(struct builder *b, struct proto pr)
{
    if (BERTH_GROW(b->p, b->cap, b->n + 1))
        return -1;
    b->p[b->n++] = pr;
    return 0;
}

static void bucket_unlink(struct berth_cluster *c, uint32_t s)
{
    struct berth__server *v = &c->srv[s];
    struct berth__gputype *t = &c->types[v->type];
    if (v->prev >= 0)
        c->srv[v->prev].next = v->next;
    else
        t->head[v->nfree] = v->next;
    if (v->next >= 0)
        c->srv[v->next].prev = v->prev;
    v->prev = v->next = -1;
}

static void bucket_push(struct berth_cluster *c, uint32_t s)
{
    struct berth__server *v = &c->srv[s];
    struct berth__gputype *t = &c->types[v->type];
    v->prev = -1;
    v->next = t->head[v->nfree];
    if (v->next >= 0)
        c->srv[v->next].prev = (int32_t)s;
    t->head[v->nfree] = (int32_t)s;
}

void berth__cluster_take_mask(struct berth_cluster *c, uint32_t s, uint64_t mask)
{
    struct berth__server *v = &c->srv[s];
    int n = __builtin_popcountll(mask);
    bucket_unlink(c, s);
    v->free_mask &= ~mask;
    v->nfree = (uint16_t)(v->nfree - n);
    c->types[v->type].free -= n;
    c->free -= n;
    bucket_push(c, s);
}

void berth__cluster_give_mask(struct berth_cluster *c, uint32_t s, uint64_t mask)
{
    struct berth__server *v = &c->srv[s];
    int n = __builtin_popcountll(mask);
    bucket_unlink(c, s);
    v->free_mask |= mask;
    v->nfree = (uint16_t)(v->nfree + n);
    c->types[v->type].free += n;
    c->free += n;
    bucket_push(c, s);
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

static int intern(const char ***tab, size_t *n, struct berth__arena *a, const char *name)
{
    if (!name || !*name)
        return -1;
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*tab)[i], name))
            return (int)i;
    size_t cap = *n;
    const char **t = realloc(*tab, (cap + 1) * sizeof *t);
    if (!t)
        return -2;
    *tab = t;
    t[*n] = berth__arena_strndup(a, name, strlen(name));
    if (!t[*n])
        return -2;
    return (int)(*n)++;
}

/* Lays the servers out: types in order of first appearance, every server idle. */
static int build(struct builder *b, int allow_span, struct berth_cluster **out,
                 struct berth_err *err, const char *what)
{
    struct berth_cluster *c = calloc(1, sizeof *c);
    if (!c)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", what);
    berth__arena_init(&c->names);
    c->allow_span = allow_span;
    c->srv = calloc(b->n ? b->n : 1, sizeof *c->srv);
    c->types = calloc(b->n ? b->n : 1, sizeof *c->types);
    if (!c->srv || !c->types)
        goto nomem;
    for (size_t i = 0; i < b->n; i++) {
        struct proto *pr = &b->p[i];
        size_t t;
        for (t = 0; t < c->ntypes; t++)
            if (!strcmp(c->types[t].name, pr->type))
                break;
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
        char nb[96];
        const char *nm = pr->name;
        if (!nm || !*nm) {
            snprintf(nb, sizeof nb, "%s-%zu", pr->type, c->nsrv - 1);
            nm = nb;
        }
        v->name = berth__arena_strndup(&c->names, nm, strlen(nm));
        v->rack = intern(&c->racks, &c->nracks, &c->names, pr->rack);
        v->pool = intern(&c->pools, &c->npools, &c->names, pr->pool);
        if (!v->name || v->rack == -2 || v->pool == -2)
            goto nomem;
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
    c->free = c->total;
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
    berth_cluster_free(c);
    return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", what);
}

static int valid_type_name(const char *s, size_t n)
{
    if (!n || n > 31)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return 0;
    return 1;
}

static char *lower_dup(struct berth__arena *a, const char *s, size_t n)
{
    char *d = berth__arena_strndup(a, s, n);
    if (d)
        for (char *p = d; *p; p++)
            *p = (char)tolower((unsigned char)*p);
    return d;
}

/* "16x4:v100,8x8:a100" */
static int parse_shorthand(const char *spec, struct builder *b, struct berth_err *err)
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
        const char *x = memchr(p, 'x', len), *colon = memchr(p, ':', len);
        char ex[80];
        int64_t n = 0, g = 0;
        if (!x || !colon || colon < x || berth__parse_i64(p, (size_t)(x - p), &n) ||
            berth__parse_i64(x + 1, (size_t)(colon - x - 1), &g) ||
            !valid_type_name(colon + 1, len - (size_t)(colon + 1 - p)))
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%s': part %d: expected NxG:type (for example "
                                 "16x4:v100), a cluster file or a built-in name (philly, gavel, "
                                 "tiresias), found %s",
                                 spec, part, berth__excerpt(ex, sizeof ex, p, len));
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
        const char *type = lower_dup(&b->names, colon + 1, len - (size_t)(colon + 1 - p));
        if (!type)
            return berth_err_set(err, BERTH_ENOMEM, "--cluster: out of memory");
        for (int64_t i = 0; i < n; i++)
            if (add_proto(b, (struct proto){.type = type, .gpus = (int32_t)g}))
                return berth_err_set(err, BERTH_ENOMEM, "--cluster: out of memory");
        if (!comma)
            break;
        p = comma + 1;
    }
    if (b->n > 1000000)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster '%s': expected at most 1000000 servers, found %zu", spec,
                             b->n);
    return 0;
}

static const char *opt_string(json_t *o, const char *key, const char *file, size_t i,
                              struct berth_err *err, int *bad)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        *bad =
            berth_err_set(err, BERTH_EINPUT,
                          "%s: servers[%zu].%s: expected a string, found a JSON %s", file, i, key,
                          json_is_integer(v)  ? "integer"
                          : json_is_real(v)   ? "number"
                          : json_is_object(v) ? "object"
                          : json_is_array(v)  ? "array"
                                              : "boolean");
        return NULL;
    }
    return json_string_value(v);
}

static int opt_int(json_t *o, const char *key, int64_t dflt, int64_t lo, int64_t hi,
                   const char *file, size_t i, struct berth_err *err, int64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        char *txt = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        int rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: servers[%zu].%s: expected an integer from %lld to %lld, "
                               "found %s",
                               file, i, key, (long long)lo, (long long)hi, txt ? txt : "?");
        free(txt);
        return rc;
    }
    *out = json_integer_value(v);
    return 0;
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

/* Server names must be unique: an open-addressing hash set over the named servers. */
static int check_unique_names(const struct builder *b, const char *path, struct berth_err *err)
{
    size_t cap = 16;
    while (cap < b->n * 2)
        cap *= 2;
    size_t *slot = malloc(cap * sizeof *slot);
    if (!slot)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    for (size_t k = 0; k < cap; k++)
        slot[k] = SIZE_MAX;
    int rc = 0;
    for (size_t i = 0; i < b->n && !rc; i++) {
        if (!b->p[i].name)
            continue;
        for (size_t h = (size_t)hash_name(b->p[i].name) & (cap - 1);; h = (h + 1) & (cap - 1)) {
            if (slot[h] == SIZE_MAX) {
                slot[h] = i;
                break;
            }
            if (!strcmp(b->p[slot[h]].name, b->p[i].name)) {
                rc = berth_err_set(err, BERTH_EINPUT,
                                   "%s: servers[%zu].name: expected a unique name, found \"%s\", "
                                   "already used by servers[%zu]",
                                   path, b->p[i].src, b->p[i].name, b->p[slot[h]].src);
                break;
            }
        }
    }
    free(slot);
    return rc;
}

static int parse_file(const char *path, struct builder *b, int *allow_span, struct berth_err *err)
{
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return berth_err_set(err, BERTH_EINPUT, "%s:%d:%d: invalid JSON: %s", path, je.line,
                             je.column, je.text);
    int rc = 0;
    json_t *servers = json_is_object(root) ? json_object_get(root, "servers") : NULL;
    if (!json_is_array(servers) || json_array_size(servers) == 0) {
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s: servers: expected a non-empty array of servers, found %s", path,
                           !json_is_object(root) ? "a document that is not an object"
                           : !servers            ? "no \"servers\" key"
                                                 : "something else");
        goto out;
    }
    json_t *span = json_object_get(root, "gang_span");
    if (span && !json_is_boolean(span)) {
        rc = berth_err_set(err, BERTH_EINPUT, "%s: gang_span: expected true or false", path);
        goto out;
    }
    *allow_span = span ? json_is_true(span) : 1;
    const char *known_top[] = {"servers", "gang_span", "name", "comment", NULL};
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val)
    {
        int ok = 0;
        for (int k = 0; known_top[k]; k++)
            ok |= !strcmp(key, known_top[k]);
        if (!ok) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: %s: unknown key (expected servers, gang_span, name or "
                               "comment)",
                               path, key);
            goto out;
        }
    }
    size_t i;
    json_t *sv;
    json_array_foreach(servers, i, sv)
    {
        if (!json_is_object(sv)) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s: servers[%zu]: expected an object", path, i);
            goto out;
        }
        const char *known[] = {"name", "gpu_type", "gpus", "rack", "pool", "count", NULL};
        json_object_foreach(sv, key, val)
        {
            int ok = 0;
            for (int k = 0; known[k]; k++)
                ok |= !strcmp(key, known[k]);
            if (!ok) {
                rc = berth_err_set(err, BERTH_EINPUT,
                                   "%s: servers[%zu].%s: unknown key (expected name, gpu_type, "
                                   "gpus, rack, pool or count)",
                                   path, i, key);
                goto out;
            }
        }
        int bad = 0;
        const char *type = opt_string(sv, "gpu_type", path, i, err, &bad);
        const char *name = opt_string(sv, "name", path, i, err, &bad);
        const char *rack = opt_string(sv, "rack", path, i, err, &bad);
        const char *pool = opt_string(sv, "pool", path, i, err, &bad);
        if (bad) {
            rc = bad;
            goto out;
        }
        if (!type || !valid_type_name(type, strlen(type))) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: servers[%zu].gpu_type: expected a GPU type name (letters, "
                               "digits, '-', '_', '.'; at most 31), found %s%s%s",
                               path, i, type ? "\"" : "", type ? type : "none", type ? "\"" : "");
            goto out;
        }
        int64_t gpus, count;
        if ((rc = opt_int(sv, "gpus", -1, 1, BERTH_MAX_SERVER_GPUS, path, i, err, &gpus)))
            goto out;
        if (gpus < 0) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: servers[%zu].gpus: expected an integer from 1 to %d, found "
                               "none",
                               path, i, BERTH_MAX_SERVER_GPUS);
            goto out;
        }
        if ((rc = opt_int(sv, "count", 1, 1, 1000000, path, i, err, &count)))
            goto out;
        if (count > 1 && name) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: servers[%zu].name: a name needs count 1, found count %lld",
                               path, i, (long long)count);
            goto out;
        }
        const char *lt = lower_dup(&b->names, type, strlen(type));
        const char *nm = name ? berth__arena_strndup(&b->names, name, strlen(name)) : NULL;
        const char *rk = rack ? berth__arena_strndup(&b->names, rack, strlen(rack)) : NULL;
        const char *pl = pool ? berth__arena_strndup(&b->names, pool, strlen(pool)) : NULL;
        if (!lt || (name && !nm) || (rack && !rk) || (pool && !pl)) {
            rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
            goto out;
        }
        for (int64_t k = 0; k < count; k++)
            if (add_proto(b, (struct proto){lt, nm, rk, pl, (int32_t)gpus, i})) {
                rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
                goto out;
            }
        if (b->n > 1000000) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s: expected at most 1000000 servers", path);
            goto out;
        }
    }
    rc = check_unique_names(b, path, err);
out:
    json_decref(root);
    return rc;
}

/* Named example clusters, so a demo needs no file. */
static const struct {
    const char *name, *spec, *what;
} builtins[] = {
    {"philly", "64x8:v100", "64 servers x 8 V100 (the size the Philly benchmarks use)"},
    {"gavel", "36x4:v100,36x4:p100,36x4:k80", "Gavel's heterogeneous cluster, 108 servers"},
    {"tiresias", "16x4:v100", "Tiresias' default cluster, 16 servers x 4 GPUs"},
};

const char *berth_cluster_builtin(size_t i, const char **spec, const char **what)
{
    if (i >= sizeof builtins / sizeof *builtins)
        return NULL;
    if (spec)
        *spec = builtins[i].spec;
    if (what)
        *what = builtins[i].what;
    return builtins[i].name;
}

int berth_cluster_parse(const char *spec, struct berth_cluster **out, struct berth_err *err)
{
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (!strcmp(spec, builtins[i].name))
            spec = builtins[i].spec;
    struct builder b = {0};
    berth__arena_init(&b.names);
    struct stat st;
    int allow_span = 1, rc;
    int is_file = stat(spec, &st) == 0 && S_ISREG(st.st_mode);
    if (is_file)
        rc = parse_file(spec, &b, &allow_span, err);
    else if (strchr(spec, '/') || strstr(spec, ".json"))
        rc = berth_err_set(err, BERTH_EIO, "--cluster: cannot open cluster file '%s'", spec);
    else
        rc = parse_shorthand(spec, &b, err);
    if (!rc)
        rc = build(&b, allow_span, out, err, is_file ? spec : "--cluster");
    free(b.p);
    berth__arena_free(&b.names);
    return rc;
}

void berth_cluster_free(struct berth_cluster *c)
{
    if (!c)
        return;
    for (size_t t = 0; t < c->ntypes; t++)
        free(c->types[t].head);
    free(c->types);
    free(c->srv);
    free(c->racks);
    free(c->pools);
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
    d->srv = malloc((c->nsrv ? c->nsrv : 1) * sizeof *d->srv);
    d->types = malloc((c->ntypes ? c->ntypes : 1) * sizeof *d->types);
    d->racks = malloc((c->nracks + 1) * sizeof *d->racks);
    d->pools = malloc((c->npools + 1) * sizeof *d->pools);
    if (!d->srv || !d->types || !d->racks || !d->pools) {
        free(d->srv);
        free(d->types);
        free(d->racks);
        free(d->pools);
        free(d);
        return NULL;
    }
    memcpy(d->srv, c->srv, c->nsrv * sizeof *d->srv);
    memcpy(d->types, c->types, c->ntypes * sizeof *d->types);
    if (c->nracks)
        memcpy(d->racks, c->racks, c->nracks * sizeof *d->racks);
    if (c->npools)
        memcpy(d->pools, c->pools, c->npools * sizeof *d->pools);
    for (size_t t = 0; t < c->ntypes; t++) {
        size_t n = (size_t)(c->types[t].max_per_server + 1);
        d->types[t].head = malloc(n * sizeof(int32_t));
        if (!d->types[t].head) {
            for (size_t k = 0; k < t; k++)
                free(d->types[k].head);
            d->ntypes = 0;
            berth_cluster_free(d);
            return NULL;
        }
        memcpy(d->types[t].head, c->types[t].head, n * sizeof(int32_t));
    }
    return d;
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

void berth_cluster_describe(const struct berth_cluster *c, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%zu server%s, %d GPU%s (", c->nsrv, c->nsrv == 1 ? "" : "s",
                     c->total, c->total == 1 ? "" : "s");
    for (size_t t = 0; t < c->ntypes && n > 0 && (size_t)n < len; t++)
        n += snprintf(buf + n, len - (size_t)n, "%s%d %s", t ? ", " : "", c->types[t].total,
                      c->types[t].name);
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ")");
}
