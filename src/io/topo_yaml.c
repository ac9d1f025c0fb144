/* Slurm 25.05's topology.yaml read into nodes' racks, blocks and NVLink domains
 * (io/topo_int.h). There is no YAML library: this reads the small subset Slurm's files use
 * (block mappings and "- " sequences by indentation, plain or quoted scalars, flow lists of
 * numbers for block_sizes, '#' comments, a leading "---") and refuses the rest with FILE:LINE.
 * The file is a list of topologies; the first with cluster_default: true is used, else the
 * first. Each error names FILE:LINE and the field (topology[0].tree.switches[2].children). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/topo_int.h"
#include "util/num.h"

enum { Y_SCALAR, Y_MAP, Y_LIST };

struct ynode {
    int kind;
    size_t line;
    const char *s;     /* a scalar's text ("" for a key with no value) */
    const char **keys; /* a map's keys */
    struct ynode **kid;
    size_t n, cap;
};

/* One line's piece: "- " items become their own entries, so "- key: v" is an item entry at
 * the dash's column and a "key: v" entry at the key's column. */
struct ent {
    size_t line;
    size_t col;
    int dash;
    char *text;
};

struct yp {
    const char *path;
    struct ent *e;
    size_t n, i, cap;
    struct berth_err *err;
    int depth;
};

static void yfree(struct ynode *y)
{
    if (!y)
        return;
    for (size_t k = 0; k < y->n; k++)
        yfree(y->kid[k]);
    free(y->kid);
    free(y->keys);
    free(y);
}

static int nomem(struct yp *p)
{
    return berth_err_set(p->err, BERTH_ENOMEM, "%s: out of memory", p->path);
}

/* Splits buf into entries. */
static int lex(struct yp *p, char *buf)
{
    size_t line = 0;
    for (char *ln = buf, *next; ln; ln = next) {
        line++;
        next = strchr(ln, '\n');
        if (next)
            *next++ = '\0';
        size_t col = strspn(ln, " ");
        if (ln[col] == '\t')
            return berth_err_set(p->err, BERTH_EINPUT,
                                 "%s:%zu: a tab in the indentation (expected spaces)", p->path,
                                 line);
        char *t = ln + col, quote = 0;
        for (char *c = t; *c; c++) { /* a comment: '#' at the start or after a blank */
            if ((*c == '"' || *c == '\'') && (!quote || quote == *c))
                quote = quote ? 0 : *c;
            else if (*c == '#' && !quote && (c == t || c[-1] == ' ' || c[-1] == '\t')) {
                *c = '\0';
                break;
            }
        }
        size_t l = strlen(t);
        while (l && (t[l - 1] == ' ' || t[l - 1] == '\t' || t[l - 1] == '\r'))
            t[--l] = '\0';
        if (!l)
            continue;
        if (!col && !strcmp(t, "---") && !p->n)
            continue;
        if (!col && !strcmp(t, "..."))
            break;
        for (;;) {
            int dash = t[0] == '-' && (t[1] == ' ' || !t[1]);
            if (!dash && !*t)
                break;
            if (BERTH_GROW(p->e, p->cap, p->n + 1))
                return nomem(p);
            p->e[p->n++] = (struct ent){line, col, dash, dash ? "" : t};
            if (!dash)
                break;
            size_t sp = strspn(t + 1, " ");
            col += 1 + sp;
            t += 1 + sp;
        }
    }
    return 0;
}

/* "key: value" or "key:": the key's length, or 0 when text is a plain scalar. */
static size_t key_len(const char *t)
{
    for (size_t i = 0; t[i]; i++) {
        if (t[i] == '"' || t[i] == '\'' || t[i] == '[' || t[i] == '{')
            return 0;
        if (t[i] == ':' && (t[i + 1] == ' ' || !t[i + 1]))
            return i;
    }
    return 0;
}

static struct ynode *ynew(struct yp *p, int kind, size_t line)
{
    struct ynode *y = calloc(1, sizeof *y);
    if (!y) {
        nomem(p);
        return NULL;
    }
    y->kind = kind;
    y->line = line;
    return y;
}

static int yadd(struct yp *p, struct ynode *y, const char *key, struct ynode *kid)
{
    if (BERTH_GROW(y->kid, y->cap, y->n + 1)) {
        yfree(kid);
        return nomem(p);
    }
    if (y->kind == Y_MAP) {
        const char **nk = realloc(y->keys, y->cap * sizeof *nk);
        if (!nk) {
            yfree(kid);
            return nomem(p);
        }
        y->keys = nk;
        y->keys[y->n] = key;
    }
    y->kid[y->n++] = kid;
    return 0;
}

/* A scalar's text with its quotes taken off. */
static char *unquote(char *s)
{
    size_t l = strlen(s);
    if (l >= 2 && (s[0] == '"' || s[0] == '\'') && s[l - 1] == s[0]) {
        s[l - 1] = '\0';
        return s + 1;
    }
    return s;
}

static struct ynode *value(struct yp *p, size_t col);

static int deeper(struct yp *p, size_t col)
{
    if (p->i < p->n && p->e[p->i].col > col)
        return berth_err_set(p->err, BERTH_EINPUT,
                             "%s:%zu: unexpected indentation (column %zu; expected column %zu "
                             "or less)",
                             p->path, p->e[p->i].line, p->e[p->i].col + 1, col + 1);
    return 0;
}

static struct ynode *list(struct yp *p, size_t col)
{
    struct ynode *y = ynew(p, Y_LIST, p->e[p->i].line);
    while (y && p->i < p->n && p->e[p->i].col == col && p->e[p->i].dash) {
        size_t line = p->e[p->i++].line;
        struct ynode *kid;
        if (p->i < p->n && p->e[p->i].col > col)
            kid = value(p, p->e[p->i].col);
        else if ((kid = ynew(p, Y_SCALAR, line)))
            kid->s = "";
        if (!kid || yadd(p, y, NULL, kid)) {
            yfree(y);
            return NULL;
        }
    }
    if (y && p->i < p->n && p->e[p->i].col == col && !p->e[p->i].dash) {
        berth_err_set(p->err, BERTH_EINPUT, "%s:%zu: expected a \"- \" item like the ones above",
                      p->path, p->e[p->i].line);
        yfree(y);
        return NULL;
    }
    return y;
}

static struct ynode *map(struct yp *p, size_t col)
{
    struct ynode *y = ynew(p, Y_MAP, p->e[p->i].line);
    while (y && p->i < p->n && p->e[p->i].col == col && !p->e[p->i].dash) {
        struct ent *e = &p->e[p->i++];
        size_t kl = key_len(e->text);
        if (!kl) {
            berth_err_set(p->err, BERTH_EINPUT, "%s:%zu: expected key: value, found \"%.60s\"",
                          p->path, e->line, e->text);
            goto fail;
        }
        e->text[kl] = '\0';
        for (size_t k = 0; k < y->n; k++)
            if (!strcmp(y->keys[k], e->text)) {
                berth_err_set(p->err, BERTH_EINPUT, "%s:%zu: %s: given twice (first on line %zu)",
                              p->path, e->line, e->text, y->kid[k]->line);
                goto fail;
            }
        char *v = e->text + kl + 1;
        v += strspn(v, " ");
        struct ynode *kid;
        if (*v) {
            if ((kid = ynew(p, Y_SCALAR, e->line)))
                kid->s = unquote(v);
        } else if (p->i < p->n &&
                   (p->e[p->i].col > col || (p->e[p->i].col == col && p->e[p->i].dash))) {
            kid = value(p, p->e[p->i].col);
        } else if ((kid = ynew(p, Y_SCALAR, e->line))) {
            kid->s = "";
        }
        if (!kid || yadd(p, y, e->text, kid))
            goto fail;
        if (deeper(p, col))
            goto fail;
    }
    if (y && p->i < p->n && p->e[p->i].col == col && p->e[p->i].dash) {
        berth_err_set(p->err, BERTH_EINPUT, "%s:%zu: expected key: value, found a \"- \" item",
                      p->path, p->e[p->i].line);
        goto fail;
    }
    return y;
fail:
    yfree(y);
    return NULL;
}

static struct ynode *value(struct yp *p, size_t col)
{
    struct ent *e = &p->e[p->i];
    if (++p->depth > 32) {
        berth_err_set(p->err, BERTH_EINPUT, "%s:%zu: nested more than 32 levels deep", p->path,
                      e->line);
        return NULL;
    }
    struct ynode *y;
    if (e->dash)
        y = list(p, col);
    else if (key_len(e->text))
        y = map(p, col);
    else if ((y = ynew(p, Y_SCALAR, e->line))) {
        p->i++;
        y->s = unquote(e->text);
        if (deeper(p, col)) {
            yfree(y);
            y = NULL;
        }
    }
    p->depth--;
    return y;
}

/* --- the topologies ------------------------------------------------------------------- */

static int bad(struct yp *p, const struct ynode *y, const char *field, const char *want)
{
    return berth_err_set(p->err, BERTH_EINPUT, "%s:%zu: %s: expected %s", p->path, y->line, field,
                         want);
}

/* The map's keys must be among known (NULL-terminated). */
static int keys_known(struct yp *p, const struct ynode *y, const char *field,
                      const char *const *known, const char *list)
{
    if (y->kind != Y_MAP)
        return bad(p, y, field, "a mapping of key: value lines");
    for (size_t k = 0; k < y->n; k++) {
        int ok = 0;
        for (size_t j = 0; known[j]; j++)
            ok |= !strcmp(y->keys[k], known[j]);
        if (!ok)
            return berth_err_set(p->err, BERTH_EINPUT, "%s:%zu: %s.%s: unknown key (expected %s)",
                                 p->path, y->kid[k]->line, field, y->keys[k], list);
    }
    return 0;
}

static const struct ynode *get(const struct ynode *y, const char *key)
{
    for (size_t k = 0; y->kind == Y_MAP && k < y->n; k++)
        if (!strcmp(y->keys[k], key))
            return y->kid[k];
    return NULL;
}

/* A scalar (non-empty unless empty_ok) or NULL with the error set. */
static const char *scalar(struct yp *p, const struct ynode *y, const char *field, int *rc)
{
    if (!y || y->kind != Y_SCALAR || !y->s[0]) {
        *rc = bad(p, y, field, "a value (a name or a host list)");
        return NULL;
    }
    return y->s;
}

/* true or false (absent: 0). */
static int boolean(struct yp *p, const struct ynode *y, const char *field, int *out)
{
    *out = 0;
    if (!y)
        return 0;
    if (y->kind == Y_SCALAR && (!strcasecmp(y->s, "true") || !strcasecmp(y->s, "false"))) {
        *out = !strcasecmp(y->s, "true");
        return 0;
    }
    return bad(p, y, field, "true or false");
}

static const char *keep(struct berth__topo_file *t, const char *s)
{
    return berth__arena_strndup(&t->names, s, strlen(s));
}

/* The switches (tree) or blocks (block) of list y as berth__topo_switch entries. */
static int entries(struct yp *p, struct berth__topo_file *t, const struct ynode *y,
                   const char *field, int tree, struct berth__topo_switch **out, size_t *n)
{
    static const char *const tk[] = {"switch", "children", "nodes", "link_speed", NULL};
    static const char *const bk[] = {"block", "nodes", NULL};
    *out = NULL;
    *n = 0;
    if (!y || y->kind != Y_LIST || !y->n)
        return bad(p, y ? y : &(struct ynode){.line = 1}, field,
                   tree ? "a list of switches (- switch: NAME)"
                        : "a list of blocks (- block: NAME)");
    if (!(*out = calloc(y->n, sizeof **out)))
        return nomem(p);
    int rc = 0;
    for (size_t i = 0; i < y->n && !rc; i++) {
        const struct ynode *s = y->kid[i];
        char f[200];
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        const char *where = berth__arena_strndup(&t->names, f, strlen(f));
        if (!where)
            return nomem(p);
        if ((rc = keys_known(p, s, where, tree ? tk : bk,
                             tree ? "switch, children, nodes or link_speed" : "block or nodes")))
            break;
        struct berth__topo_switch *e = &(*out)[(*n)++];
        e->where = where;
        e->line = s->line;
        char fk[240];
        snprintf(fk, sizeof fk, "%s.%s", where, tree ? "switch" : "block");
        const struct ynode *nm = get(s, tree ? "switch" : "block");
        if (!nm) {
            rc = bad(p, s, fk, "a name (the first key)");
            break;
        }
        if (!(e->name = scalar(p, nm, fk, &rc)))
            break;
        if (!(e->name = keep(t, e->name))) /* the text dies with the file's buffer */
            return nomem(p);
        if (strlen(e->name) > 255) {
            rc = bad(p, nm, fk, "a name of at most 255 characters");
            break;
        }
        const struct ynode *v;
        if ((v = get(s, "nodes"))) {
            snprintf(fk, sizeof fk, "%s.nodes", where);
            if (!(e->nodes = scalar(p, v, fk, &rc)))
                break;
            if (!(e->nodes = keep(t, e->nodes)))
                return nomem(p);
        }
        if ((v = get(s, "children"))) {
            snprintf(fk, sizeof fk, "%s.children", where);
            if (!(e->children = scalar(p, v, fk, &rc)))
                break;
            if (!(e->children = keep(t, e->children)))
                return nomem(p);
        }
    }
    return rc;
}

/* block_sizes: a list of numbers, or a flow list [4, 16] */
static int sizes_of(struct yp *p, const struct ynode *y, const char *field, int64_t *sizes,
                    size_t *n)
{
    *n = 0;
    if (!y)
        return 0;
    if (y->kind == Y_LIST) {
        for (size_t k = 0; k < y->n; k++) {
            const struct ynode *v = y->kid[k];
            if (*n >= 16 || v->kind != Y_SCALAR ||
                berth__parse_i64(v->s, strlen(v->s), &sizes[(*n)++]) || !v->s[0])
                return bad(p, v, field, "at most 16 whole numbers of nodes");
        }
        return 0;
    }
    const char *s = y->s;
    size_t l = y->kind == Y_SCALAR ? strlen(s) : 0;
    if (l < 2 || s[0] != '[' || s[l - 1] != ']')
        return bad(p, y, field, "a list of numbers of nodes (- 4 lines, or [4, 16])");
    for (const char *q = s + 1, *end = s + l - 1; q < end;) {
        const char *c = memchr(q, ',', (size_t)(end - q));
        size_t len = c ? (size_t)(c - q) : (size_t)(end - q);
        if (*n >= 16 || berth__parse_i64(q, len, &sizes[(*n)++]))
            return bad(p, y, field, "at most 16 whole numbers of nodes, like [4, 16]");
        q = c ? c + 1 : end;
    }
    return 0;
}

/* The chosen topology's switches or blocks into t. */
static int topology(struct yp *p, struct berth__topo_file *t, const struct ynode *y, size_t idx)
{
    char f[64], fk[128];
    snprintf(f, sizeof f, "topology[%zu]", idx);
    const struct ynode *tree = get(y, "tree"), *block = get(y, "block");
    struct berth__topo_switch *sw = NULL;
    size_t n = 0;
    int rc = 0;
    if (tree) {
        static const char *const kk[] = {"switches", NULL};
        snprintf(fk, sizeof fk, "%s.tree", f);
        if (!(rc = keys_known(p, tree, fk, kk, "switches"))) {
            snprintf(fk, sizeof fk, "%s.tree.switches", f);
            const struct ynode *l = get(tree, "switches");
            if (!(rc = entries(p, t, l ? l : tree, fk, 1, &sw, &n)))
                rc = berth__topo_tree(t, sw, n, p->err);
        }
    } else if (block) {
        static const char *const kk[] = {"block_sizes", "blocks", NULL};
        snprintf(fk, sizeof fk, "%s.block", f);
        int64_t sizes[16];
        size_t ns = 0;
        if (!(rc = keys_known(p, block, fk, kk, "block_sizes or blocks"))) {
            const struct ynode *bs = get(block, "block_sizes"), *l = get(block, "blocks");
            snprintf(fk, sizeof fk, "%s.block.block_sizes", f);
            char at[160];
            snprintf(at, sizeof at, "%zu: %s", bs ? bs->line : block->line, fk);
            if (!(rc = sizes_of(p, bs, fk, sizes, &ns))) {
                snprintf(fk, sizeof fk, "%s.block.blocks", f);
                if (!(rc = entries(p, t, l ? l : block, fk, 0, &sw, &n)))
                    rc = berth__topo_blocks(t, sw, n, sizes, ns, at, p->err);
            }
        }
    } else {
        t->flat = 1;
    }
    free(sw);
    return rc;
}

static int topologies(struct yp *p, struct berth__topo_file *t, const struct ynode *root)
{
    static const char *const known[] = {"topology", "cluster_default", "tree", "block", "flat",
                                        NULL};
    if (root->kind != Y_LIST || !root->n)
        return bad(p, root, "topology.yaml", "a list of topologies (- topology: NAME)");
    size_t chosen = SIZE_MAX;
    for (size_t i = 0; i < root->n; i++) {
        const struct ynode *y = root->kid[i];
        char f[64], fk[96];
        snprintf(f, sizeof f, "topology[%zu]", i);
        int rc, def, flat, kinds;
        if ((rc = keys_known(p, y, f, known, "topology, cluster_default, tree, block or flat")))
            return rc;
        snprintf(fk, sizeof fk, "%s.topology", f);
        if (!get(y, "topology") || (y->n && strcmp(y->keys[0], "topology")))
            return bad(p, y, fk, "the topology's name as its first key (- topology: NAME)");
        if (!scalar(p, get(y, "topology"), fk, &rc))
            return rc;
        snprintf(fk, sizeof fk, "%s.cluster_default", f);
        if ((rc = boolean(p, get(y, "cluster_default"), fk, &def)))
            return rc;
        snprintf(fk, sizeof fk, "%s.flat", f);
        if ((rc = boolean(p, get(y, "flat"), fk, &flat)))
            return rc;
        kinds = !!get(y, "tree") + !!get(y, "block") + flat;
        if (kinds != 1)
            return bad(p, y, f,
                       kinds ? "one of tree, block or flat: true, found more"
                             : "one of tree, block or flat: true");
        if (def && chosen == SIZE_MAX)
            chosen = i;
    }
    if (chosen == SIZE_MAX)
        chosen = 0;
    return topology(p, t, root->kid[chosen], chosen);
}

int berth__topo_load_yaml(const char *path, struct berth__topo_file *t, struct berth_err *err)
{
    char *buf;
    size_t len;
    int rc = berth__topo_read(path, &buf, &len, err);
    if (rc)
        return rc;
    struct yp p = {.path = path, .err = err};
    struct ynode *root = NULL;
    if (!(rc = lex(&p, buf))) {
        if (!p.n)
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s: expected a list of topologies (- topology: NAME), found "
                               "nothing",
                               path);
        else if (!(root = value(&p, p.e[0].col)))
            rc = err->code ? err->code : BERTH_EINPUT;
        else if (p.i < p.n)
            rc = berth_err_set(err, BERTH_EINPUT,
                               "%s:%zu: unexpected text after the list of topologies (column "
                               "%zu)",
                               path, p.e[p.i].line, p.e[p.i].col + 1);
        else
            rc = topologies(&p, t, root);
    }
    yfree(root);
    free(p.e);
    free(buf);
    return rc;
}
