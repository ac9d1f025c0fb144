/* What Slurm's two topology formats share (io/topo_int.h): reading the file, Slurm's hostlist
 * expressions, and turning a tree of switches or a list of blocks into each node's rack,
 * block and NVLink domain, with the checks that make it a tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/topo_int.h"
#include "util/num.h"

#define TOPO_MAX_NAMES 1000000 /* nodes one expression, or the whole file, may name */

void berth__topo_file_init(struct berth__topo_file *t, const char *path)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    berth__arena_init(&t->names);
}

void berth__topo_file_free(struct berth__topo_file *t)
{
    free(t->n);
    berth__arena_free(&t->names);
    t->n = NULL;
    t->count = t->cap = 0;
}

int berth__topo_read(const char *path, char **out, size_t *len, struct berth_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return berth_err_set(err, BERTH_EIO, "--topology: cannot open topology file '%s'", path);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *nb = cap > (64u << 20) ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                int big = cap > (64u << 20);
                free(buf);
                fclose(f);
                return big ? berth_err_set(err, BERTH_EINPUT, "%s: expected at most 64 MiB", path)
                           : berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - 1 - n, f);
        n += r;
        if (!r)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    if (bad) {
        free(buf);
        return berth_err_set(err, BERTH_EIO, "%s: read error", path);
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        size_t line = 1;
        for (size_t i = 0; i < strlen(buf); i++)
            line += buf[i] == '\n';
        free(buf);
        return berth_err_set(err, BERTH_EINPUT, "%s:%zu: a NUL byte (expected a text file)", path,
                             line);
    }
    *out = buf;
    *len = n;
    return 0;
}

/* One name of an expression into the arena; lst grows. */
static int push_name(struct berth__topo_file *t, const char ***lst, size_t *n, size_t *cap,
                     const char *s, size_t len)
{
    if (*n >= TOPO_MAX_NAMES || BERTH_GROW(*lst, *cap, *n + 1))
        return -1;
    if (!((*lst)[*n] = berth__arena_strndup(&t->names, s, len)))
        return -1;
    (*n)++;
    return 0;
}

/* Slurm's hostlist expression ("tux[0-3,12,18-20],login1", one bracket per name, zero padding
 * kept: "n[01-10]") into names. Errors name the file, line and what holds it. */
static int hostlist(struct berth__topo_file *t, const char *expr, size_t line, const char *where,
                    const char *field, const char ***lst, size_t *n, struct berth_err *err)
{
    size_t cap = 0;
    *lst = NULL;
    *n = 0;
    const char *p = expr;
    while (*p) {
        size_t plen = strcspn(p, "[],");
        if (p[plen] == ']' || (p[plen] == ',' && !plen) || (!p[plen] && !plen))
            goto bad;
        if (p[plen] != '[') {
            if (plen > 255 || push_name(t, lst, n, &cap, p, plen))
                goto fail;
            p += plen + (p[plen] == ',');
            continue;
        }
        const char *r = p + plen + 1, *close = strchr(r, ']');
        if (!close || memchr(r, '[', (size_t)(close - r)) || close == r)
            goto bad;
        size_t slen = strcspn(close + 1, ",[]");
        if (close[1 + slen] == '[' || close[1 + slen] == ']')
            goto bad; /* one bracket per name */
        const char *suffix = close + 1;
        while (r < close) {
            const char *comma = memchr(r, ',', (size_t)(close - r));
            const char *stop = comma ? comma : close, *dash = memchr(r, '-', (size_t)(stop - r));
            const char *q = r;
            unsigned long long lo = 0, hi;
            while (q < (dash ? dash : stop) && *q >= '0' && *q <= '9' && lo < 1000000000ULL)
                lo = lo * 10 + (unsigned long long)(*q++ - '0');
            int width = (int)(q - r);
            if (q == r || q != (dash ? dash : stop) || width > 18)
                goto bad;
            hi = lo;
            if (dash) {
                q = dash + 1;
                hi = 0;
                while (q < stop && *q >= '0' && *q <= '9' && hi < 1000000000ULL)
                    hi = hi * 10 + (unsigned long long)(*q++ - '0');
                if (q == dash + 1 || q != stop || hi < lo)
                    goto bad;
            }
            if (hi - lo >= TOPO_MAX_NAMES)
                goto toomany;
            for (unsigned long long k = lo; k <= hi; k++) {
                char nb[300];
                int l = snprintf(nb, sizeof nb, "%.*s%0*llu%.*s", (int)plen, p, width, k, (int)slen,
                                 suffix);
                if (l < 0 || (size_t)l >= sizeof nb || l > 255)
                    goto bad;
                if (*n >= TOPO_MAX_NAMES)
                    goto toomany;
                if (push_name(t, lst, n, &cap, nb, (size_t)l))
                    goto fail;
            }
            r = comma ? comma + 1 : close;
            if (comma && r == close)
                goto bad;
        }
        p = suffix + slen;
        if (*p == ',') {
            p++;
            if (!*p)
                goto bad;
        }
    }
    if (!*n)
        goto bad;
    return 0;
bad : {
    char ex[80];
    free(*lst);
    *lst = NULL;
    return berth_err_set(err, BERTH_EINPUT,
                         "%s:%zu: %s: %s: expected a host list like tux[0-3,12] (names of at most "
                         "255 characters, one bracket each), found %s",
                         t->path, line, where, field,
                         berth__excerpt(ex, sizeof ex, expr, strlen(expr)));
}
toomany:
    free(*lst);
    *lst = NULL;
    return berth_err_set(err, BERTH_EINPUT, "%s:%zu: %s: %s: expected at most %d names", t->path,
                         line, where, field, TOPO_MAX_NAMES);
fail:
    free(*lst);
    *lst = NULL;
    if (*n >= TOPO_MAX_NAMES)
        goto toomany;
    return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", t->path);
}

static int add_node(struct berth__topo_file *t, const char *name, const char *rack,
                    const char *block, const char *island, const char *where, size_t line,
                    struct berth_err *err)
{
    if (t->count >= TOPO_MAX_NAMES)
        return berth_err_set(err, BERTH_EINPUT, "%s:%zu: %s: expected at most %d nodes in all",
                             t->path, line, where, TOPO_MAX_NAMES);
    if (BERTH_GROW(t->n, t->cap, t->count + 1))
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", t->path);
    t->n[t->count++] = (struct berth__topo_node){name, rack, block, island, where, line};
    return 0;
}

/* qsort/bsearch over indices into an array of names */
static const struct berth__topo_switch *sort_sw;
static int cmp_sw(const void *a, const void *b)
{
    int r = strcmp(sort_sw[*(const size_t *)a].name, sort_sw[*(const size_t *)b].name);
    return r ? r
             : (*(const size_t *)a > *(const size_t *)b) -
                   (*(const size_t *)a < *(const size_t *)b);
}

static const struct berth__topo_node *sort_nd;
static int cmp_nd(const void *a, const void *b)
{
    int r = strcmp(sort_nd[*(const size_t *)a].name, sort_nd[*(const size_t *)b].name);
    return r ? r
             : (*(const size_t *)a > *(const size_t *)b) -
                   (*(const size_t *)a < *(const size_t *)b);
}

/* The switches' (or blocks') names sorted into ord, refusing one defined twice. */
static int index_names(struct berth__topo_file *t, const struct berth__topo_switch *sw, size_t n,
                       const char *kind, size_t **ord, struct berth_err *err)
{
    *ord = malloc((n ? n : 1) * sizeof **ord);
    if (!*ord)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", t->path);
    for (size_t i = 0; i < n; i++)
        (*ord)[i] = i;
    sort_sw = sw;
    qsort(*ord, n, sizeof **ord, cmp_sw);
    for (size_t i = 1; i < n; i++) {
        const struct berth__topo_switch *a = &sw[(*ord)[i - 1]], *b = &sw[(*ord)[i]];
        if (!strcmp(a->name, b->name)) {
            free(*ord);
            *ord = NULL;
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%zu: %s: %s %s is defined twice (first on "
                                 "line %zu)",
                                 t->path, b->line, b->where, kind, b->name, a->line);
        }
    }
    return 0;
}

static ptrdiff_t find_name(const struct berth__topo_switch *sw, const size_t *ord, size_t n,
                           const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int r = strcmp(sw[ord[mid]].name, name);
        if (!r)
            return (ptrdiff_t)ord[mid];
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* No node may be named twice (under two leaf switches, in two blocks). */
static int unique_nodes(struct berth__topo_file *t, struct berth_err *err)
{
    size_t *ord = malloc((t->count ? t->count : 1) * sizeof *ord);
    if (!ord)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", t->path);
    for (size_t i = 0; i < t->count; i++)
        ord[i] = i;
    sort_nd = t->n;
    qsort(ord, t->count, sizeof *ord, cmp_nd);
    int rc = 0;
    for (size_t i = 1; i < t->count && !rc; i++) {
        const struct berth__topo_node *a = &t->n[ord[i - 1]], *b = &t->n[ord[i]];
        if (!strcmp(a->name, b->name))
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%zu: %s: node %s is also in %s %s (line %zu): expected each "
                               "node in one %s",
                               t->path, b->line, b->where, b->name, t->kind,
                               a->rack ? a->rack : "?", a->line, t->kind);
    }
    free(ord);
    return rc;
}

int berth__topo_tree(struct berth__topo_file *t, const struct berth__topo_switch *sw, size_t n,
                     struct berth_err *err)
{
    size_t *ord = NULL;
    ptrdiff_t *parent = NULL;
    const char **lst = NULL;
    size_t nl = 0;
    t->kind = "leaf switch";
    int rc = index_names(t, sw, n, "switch", &ord, err);
    if (rc)
        return rc;
    if (!(parent = malloc((n ? n : 1) * sizeof *parent))) {
        rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", t->path);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        parent[i] = -1;
    for (size_t i = 0; i < n && !rc; i++) {
        const struct berth__topo_switch *s = &sw[i];
        if (!!s->nodes == !!s->children) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%zu: %s: expected either nodes (a leaf switch) or switches "
                               "below switch %s, found %s",
                               t->path, s->line, s->where, s->name, s->nodes ? "both" : "neither");
            break;
        }
        if (!s->children)
            continue;
        if ((rc = hostlist(t, s->children, s->line, s->where, "Switches", &lst, &nl, err)))
            break;
        for (size_t k = 0; k < nl && !rc; k++) {
            ptrdiff_t c = find_name(sw, ord, n, lst[k]);
            if (c < 0)
                rc = berth_err_set(err, BERTH_EINPUT, "%s:%zu: %s: switch %s is not defined",
                                   t->path, s->line, s->where, lst[k]);
            else if (parent[c] >= 0 && parent[c] != (ptrdiff_t)i)
                rc = berth_err_set(err, BERTH_EINPUT,
                                   "%s:%zu: %s: switch %s is already under switch %s (line %zu): "
                                   "expected a tree, each switch under one",
                                   t->path, s->line, s->where, lst[k], sw[parent[c]].name,
                                   sw[parent[c]].line);
            else
                parent[c] = (ptrdiff_t)i;
        }
        free(lst);
        lst = NULL;
    }
    /* a switch that is its own ancestor: more than n steps up never reach the top */
    for (size_t i = 0; i < n && !rc; i++) {
        ptrdiff_t p = parent[i];
        for (size_t steps = 0; p >= 0 && !rc; steps++, p = parent[p])
            if (p == (ptrdiff_t)i || steps > n)
                rc =
                    berth_err_set(err, BERTH_EINPUT,
                                  "%s:%zu: %s: switch %s is below itself (a cycle through switch "
                                  "%s): expected a tree",
                                  t->path, sw[i].line, sw[i].where, sw[i].name, sw[parent[i]].name);
    }
    for (size_t i = 0; i < n && !rc; i++) {
        const struct berth__topo_switch *s = &sw[i];
        if (!s->nodes)
            continue;
        if ((rc = hostlist(t, s->nodes, s->line, s->where, "Nodes", &lst, &nl, err)))
            break;
        const char *block = parent[i] >= 0 ? sw[parent[i]].name : NULL;
        for (size_t k = 0; k < nl && !rc; k++)
            rc = add_node(t, lst[k], s->name, block, NULL, s->where, s->line, err);
        free(lst);
        lst = NULL;
    }
    if (!rc)
        rc = unique_nodes(t, err);
out:
    free(ord);
    free(parent);
    return rc;
}

int berth__topo_blocks(struct berth__topo_file *t, const struct berth__topo_switch *bl, size_t n,
                       const int64_t *sizes, size_t nsizes, const char *sizes_at,
                       struct berth_err *err)
{
    size_t *ord = NULL;
    const char **lst = NULL;
    size_t nl = 0;
    t->kind = "block";
    for (size_t k = 0; k < nsizes; k++)
        if (sizes[k] < 1 || sizes[k] > TOPO_MAX_NAMES ||
            (k && (sizes[k] <= sizes[k - 1] || sizes[k] % sizes[k - 1] ||
                   ((sizes[k] / sizes[k - 1]) & (sizes[k] / sizes[k - 1] - 1)))))
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%s: expected block sizes from 1 to %d nodes, each a "
                                 "power-of-two multiple of the one before, found %lld after %lld",
                                 t->path, sizes_at, TOPO_MAX_NAMES, (long long)sizes[k],
                                 (long long)(k ? sizes[k - 1] : 0));
    size_t per = nsizes >= 2 ? (size_t)(sizes[1] / sizes[0]) : 0; /* base blocks per block */
    int rc = index_names(t, bl, n, "block", &ord, err);
    for (size_t i = 0; i < n && !rc; i++) {
        const struct berth__topo_switch *b = &bl[i];
        if (!b->nodes) {
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%zu: %s: block %s has no nodes", t->path,
                               b->line, b->where, b->name);
            break;
        }
        const char *agg = NULL;
        if (per) {
            size_t first = i / per * per, last = first + per - 1 < n ? first + per - 1 : n - 1;
            char nb[600];
            if (first == last)
                snprintf(nb, sizeof nb, "%s", bl[first].name);
            else
                snprintf(nb, sizeof nb, "%s..%s", bl[first].name, bl[last].name);
            if (!(agg = berth__arena_strndup(&t->names, nb, strlen(nb)))) {
                rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", t->path);
                break;
            }
        }
        if ((rc = hostlist(t, b->nodes, b->line, b->where, "Nodes", &lst, &nl, err)))
            break;
        for (size_t k = 0; k < nl && !rc; k++)
            rc = add_node(t, lst[k], b->name, agg, b->name, b->where, b->line, err);
        free(lst);
        lst = NULL;
    }
    if (!rc)
        rc = unique_nodes(t, err);
    free(ord);
    return rc;
}
