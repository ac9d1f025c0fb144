/* Grid files and their expansion into cells (see berth/report.h, "the sweep"). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "berth/berth.h"
#include "report/grid.h"

#define MAX_CELLS 100000

/* ---- words ------------------------------------------------------------------------------ */

/* Splits s into words: blanks separate them, '...' and "..." group (no escapes). */
static int split(struct berth__arena *a, const char *s, const char ***out, size_t *n,
                 const char *name, unsigned line, struct berth_err *err)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    const char *p = s;
    char *buf = malloc(strlen(s) + 1);
    if (!buf)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    for (;;) {
        p += strspn(p, " \t\r");
        if (!*p || *p == '#')
            break;
        size_t k = 0;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r') {
            if (*p == '"' || *p == '\'') {
                char q = *p++;
                while (*p && *p != q)
                    buf[k++] = *p++;
                if (!*p) {
                    free(buf);
                    return berth_err_set(err, BERTH_EINPUT, "%s:%u: an unterminated %c quote", name,
                                         line, q);
                }
                p++;
            } else {
                buf[k++] = *p++;
            }
        }
        char *w = berth__arena_strndup(a, buf, k);
        if (!w || BERTH_GROW(*out, cap, *n + 2)) {
            free(buf);
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        }
        (*out)[(*n)++] = w;
        (*out)[*n] = NULL;
    }
    free(buf);
    return 0;
}

/* ---- checks ------------------------------------------------------------------------------ */

static int label_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '+';
}

/* "LABEL=VALUE": the length of LABEL, or 0 when the word has none */
static size_t label_len(const char *w)
{
    size_t k = 0;
    while (label_char(w[k]))
        k++;
    return k && w[k] == '=' && w[0] != '-' ? k : 0;
}

/* flags the sweep sets for every cell itself */
static const char *const owned[] = {"cluster", "trace",  "policy", "seed", "out",
                                    "json",    "report", "help",   "quiet"};

static int check_flags(const char *const *w, size_t n, int gen, int no_format, const char *name,
                       unsigned line, const char *dim, struct berth_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (strncmp(w[i], "--", 2) || !w[i][2])
            continue;
        const char *f = w[i] + 2;
        size_t len = strcspn(f, "=");
        const char *const *list = owned;
        size_t nlist = sizeof owned / sizeof *owned;
        static const char *const gen_owned[] = {"seed", "out", "help"};
        if (gen)
            list = gen_owned, nlist = 3;
        for (size_t k = 0; k < nlist; k++)
            if (len <= strlen(list[k]) && !strncmp(f, list[k], len))
                return berth_err_set(err, BERTH_EINPUT,
                                     "%s:%u: %s: '%s': the sweep sets --%s itself", name, line, dim,
                                     w[i], list[k]);
        if (no_format && len <= 6 && !strncmp(f, "format", len))
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:%u: %s: '%s': generated and resampled traces are native "
                                 "CSV (leave --format out)",
                                 name, line, dim, w[i]);
    }
    return 0;
}

/* A label made from a value: its last path component without the extension, with other
 * characters than letters, digits, _ + - replaced by '-'. */
static const char *derive(struct berth__arena *a, const char *v)
{
    const char *b = strrchr(v, '/');
    b = b ? b + 1 : v;
    size_t n = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot != b && strchr(v, '/'))
        n = (size_t)(dot - b);
    char *l = berth__arena_strndup(a, b, n ? n : 1);
    if (!l)
        return NULL;
    if (!n)
        l[0] = 'x';
    for (char *c = l; *c; c++)
        if (!label_char(*c))
            *c = '-';
    return l;
}

/* ---- parsing ------------------------------------------------------------------------------ */

struct parse {
    struct berth_grid *g;
    const char *name, *dir;
    unsigned line;
    struct berth_err *err;
    int resample_set;
};

/* path made absolute: relative to the grid's folder, then resolved; NULL when unreadable */
static char *resolve(struct parse *P, const char *v)
{
    char joined[PATH_MAX];
    if (v[0] == '/' || !P->dir)
        snprintf(joined, sizeof joined, "%s", v);
    else
        snprintf(joined, sizeof joined, "%s/%s", P->dir, v);
    char real[PATH_MAX];
    if (!realpath(joined, real) || access(real, R_OK))
        return NULL;
    return berth__arena_strndup(&P->g->arena, real, strlen(real));
}

/* Checks a value and adds it to dimension dim; *vp holds it meanwhile (its words malloc'd:
 * add_value frees them when it fails). */
static int add_value_in(struct parse *P, int dim, const char *word, const char *dimname,
                        struct berth__grid_value *vp)
{
    struct berth_grid *g = P->g;
    size_t ll = label_len(word);
    const char *label = NULL, *value = word;
    if (ll) {
        label = berth__arena_strndup(&g->arena, word, ll);
        value = word + ll + 1;
    }
    *vp = (struct berth__grid_value){.label = label, .value = value, .line = P->line};
    char msg[64];
    switch (dim) {
    case GRID_POLICY:
        if (berth_policy_find(value) < 0)
            return berth_err_set(P->err, BERTH_EINPUT,
                                 "%s:%u: policy: unknown policy '%s' (berth policies lists "
                                 "them)",
                                 P->name, P->line, value);
        break;
    case GRID_CLUSTER: {
        if (strchr(value, '/') || strstr(value, ".json") || strstr(value, ".csv")) {
            const char *abs = resolve(P, value);
            if (!abs)
                return berth_err_set(P->err, BERTH_EINPUT, "%s:%u: cluster: %s: cannot read it",
                                     P->name, P->line, value);
            vp->value = abs;
        }
        struct berth_cluster *c = NULL;
        struct berth_err e = {0};
        if (berth_cluster_parse(vp->value, &c, &e))
            return berth_err_set(P->err, BERTH_EINPUT, "%s:%u: cluster: %s", P->name, P->line,
                                 e.msg);
        berth_cluster_free(c);
        break;
    }
    case GRID_WORKLOAD:
        if (!strcmp(dimname, "gen")) {
            vp->gen = 1;
            if (split(&g->arena, value, &vp->words, &vp->nwords, P->name, P->line, P->err) ||
                check_flags(vp->words, vp->nwords, 1, 0, P->name, P->line, "gen", P->err))
                return P->err->code;
            if (!label) {
                snprintf(msg, sizeof msg, "gen%zu", g->ndims[dim] + 1);
                label = berth__arena_strndup(&g->arena, msg, strlen(msg));
            }
        } else {
            const char *abs = resolve(P, value);
            if (!abs)
                return berth_err_set(P->err, BERTH_EIO, "%s:%u: trace: %s: cannot read it: %s",
                                     P->name, P->line, value, strerror(errno ? errno : ENOENT));
            vp->value = abs;
        }
        break;
    case GRID_FLAGS:
        if (split(&g->arena, value, &vp->words, &vp->nwords, P->name, P->line, P->err) ||
            check_flags(vp->words, vp->nwords, 0, 0, P->name, P->line, "flags", P->err))
            return P->err->code;
        if (!label) {
            if (!vp->nwords)
                snprintf(msg, sizeof msg, "base");
            else
                snprintf(msg, sizeof msg, "f%zu", g->ndims[dim] + 1);
            label = berth__arena_strndup(&g->arena, msg, strlen(msg));
        }
        break;
    default:
        break;
    }
    if (!label) /* from the resolved value: a file's name without its folder and extension */
        label = derive(&g->arena, vp->value);
    if (!label)
        return berth_err_set(P->err, BERTH_ENOMEM, "out of memory");
    vp->label = label;
    for (size_t i = 0; i < g->ndims[dim]; i++)
        if (!strcmp(g->dims[dim][i].label, label))
            return berth_err_set(P->err, BERTH_EINPUT,
                                 "%s:%u: %s: the label '%s' is taken (line %u): name this value "
                                 "LABEL=VALUE",
                                 P->name, P->line, dimname, label, g->dims[dim][i].line);
    if (BERTH_GROW(g->dims[dim], g->dcap[dim], g->ndims[dim] + 1))
        return berth_err_set(P->err, BERTH_ENOMEM, "out of memory");
    g->dims[dim][g->ndims[dim]++] = *vp;
    vp->words = NULL; /* the grid's now */
    return 0;
}

static int add_value(struct parse *P, int dim, const char *word, const char *dimname)
{
    struct berth__grid_value v = {0};
    int rc = add_value_in(P, dim, word, dimname, &v);
    free(v.words);
    return rc;
}

static int add_seeds(struct parse *P, const char *w)
{
    struct berth_grid *g = P->g;
    char *end;
    errno = 0;
    unsigned long long a = strtoull(w, &end, 10), b = a;
    if (*end == '-' && end > w) {
        const char *q = end + 1;
        b = strtoull(q, &end, 10);
        if (end == q)
            b = 0, end = (char *)q - 1;
    }
    if (errno || *end || end == w || w[0] == '-' || b < a || a > (1ull << 62) || b - a >= MAX_CELLS)
        return berth_err_set(P->err, BERTH_EINPUT,
                             "%s:%u: seed: expected a whole number or a range A-B, found '%s'",
                             P->name, P->line, w);
    for (unsigned long long s = a; s <= b; s++) {
        for (size_t i = 0; i < g->nseeds; i++)
            if (g->seeds[i] == s)
                return berth_err_set(P->err, BERTH_EINPUT, "%s:%u: seed: %llu is given twice",
                                     P->name, P->line, s);
        if (BERTH_GROW(g->seeds, g->scap, g->nseeds + 1))
            return berth_err_set(P->err, BERTH_ENOMEM, "out of memory");
        g->seeds[g->nseeds++] = s;
    }
    return 0;
}

static int parse_line(struct parse *P, const char *line)
{
    struct berth_grid *g = P->g;
    const char **w;
    size_t n;
    int rc = split(&g->arena, line, &w, &n, P->name, P->line, P->err);
    if (rc || !n) {
        free(w);
        return rc;
    }
    static const struct {
        const char *name;
        int dim;
    } dims[] = {{"policy", GRID_POLICY},
                {"cluster", GRID_CLUSTER},
                {"trace", GRID_WORKLOAD},
                {"gen", GRID_WORKLOAD},
                {"flags", GRID_FLAGS},
                {"seed", -1},
                {"sim", -2},
                {"resample", -3}};
    int dim = -9;
    for (size_t k = 0; k < sizeof dims / sizeof *dims; k++)
        if (!strcmp(w[0], dims[k].name))
            dim = dims[k].dim;
    if (dim == -9) {
        rc = berth_err_set(P->err, BERTH_EINPUT,
                           "%s:%u: expected policy, cluster, trace, gen, seed, flags, sim or "
                           "resample, found '%s'",
                           P->name, P->line, w[0]);
    } else if (n < 2 && dim != -2) {
        rc = berth_err_set(P->err, BERTH_EINPUT, "%s:%u: %s: no value", P->name, P->line, w[0]);
    } else if (dim >= 0) {
        for (size_t i = 1; !rc && i < n; i++)
            rc = add_value(P, dim, w[i], w[0]);
    } else if (dim == -1) {
        for (size_t i = 1; !rc && i < n; i++)
            rc = add_seeds(P, w[i]);
    } else if (dim == -2) {
        rc = check_flags(w + 1, n - 1, 0, 0, P->name, P->line, "sim", P->err);
        for (size_t i = 1; !rc && i < n; i++) {
            size_t cap = g->nsim + 1;
            const char **grown = realloc(g->sim, (cap + 1) * sizeof *grown);
            if (!grown) {
                rc = berth_err_set(P->err, BERTH_ENOMEM, "out of memory");
                break;
            }
            g->sim = grown;
            g->sim[g->nsim++] = w[i];
            g->sim[g->nsim] = NULL;
        }
    } else {
        char *end;
        double f = strtod(w[1], &end);
        if (P->resample_set || n != 2)
            rc = berth_err_set(P->err, BERTH_EINPUT, "%s:%u: resample: give one value, once",
                               P->name, P->line);
        else if (!strcmp(w[1], "none"))
            g->resample = 0;
        else if (!strcmp(w[1], "bootstrap"))
            g->resample = -1;
        else if (end != w[1] && !*end && f > 0 && f <= 1)
            g->resample = f;
        else
            rc = berth_err_set(P->err, BERTH_EINPUT,
                               "%s:%u: resample: expected none, bootstrap or a fraction in (0, "
                               "1], found '%s'",
                               P->name, P->line, w[1]);
        P->resample_set = 1;
    }
    free(w);
    return rc;
}

int berth_grid_parse(const char *text, const char *name, const char *dir, struct berth_grid **out,
                     struct berth_err *err)
{
    *out = NULL;
    struct berth_grid *g = calloc(1, sizeof *g);
    if (!g || !(g->path = strdup(name))) {
        free(g);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    berth__arena_init(&g->arena);
    struct parse P = {g, name, dir, 0, err, 0};
    int rc = 0;
    const char *p = text;
    char *line = NULL;
    while (!rc && *p) {
        size_t n = strcspn(p, "\n");
        P.line++;
        free(line);
        if (!(line = strndup(p, n))) {
            rc = berth_err_set(err, BERTH_ENOMEM, "out of memory");
            break;
        }
        rc = parse_line(&P, line);
        p += n + (p[n] == '\n');
    }
    free(line);
    /* the flags with --format are refused where traces are native CSV */
    int native = g->resample != 0;
    for (size_t i = 0; !native && i < g->ndims[GRID_WORKLOAD]; i++)
        native = g->dims[GRID_WORKLOAD][i].gen;
    if (!rc && native) {
        rc = check_flags(g->sim, g->nsim, 0, 1, name, P.line, "sim", err);
        for (size_t i = 0; !rc && i < g->ndims[GRID_FLAGS]; i++)
            rc = check_flags(g->dims[GRID_FLAGS][i].words, g->dims[GRID_FLAGS][i].nwords, 0, 1,
                             name, g->dims[GRID_FLAGS][i].line, "flags", err);
    }
    if (!rc && (!g->ndims[GRID_POLICY] || !g->ndims[GRID_CLUSTER] || !g->ndims[GRID_WORKLOAD]))
        rc = berth_err_set(err, BERTH_EINPUT, "%s: a grid needs at least one %s", name,
                           !g->ndims[GRID_POLICY]    ? "policy line"
                           : !g->ndims[GRID_CLUSTER] ? "cluster line"
                                                     : "trace or gen line");
    if (!rc && !g->nseeds)
        rc = add_seeds(&P, "1");
    if (!rc && !g->ndims[GRID_FLAGS]) {
        P.line = 0;
        rc = add_value(&P, GRID_FLAGS, "base=", "flags");
    }
    if (rc) {
        berth_grid_free(g);
        return rc;
    }
    *out = g;
    return 0;
}

int berth_grid_load(const char *path, struct berth_grid **out, struct berth_err *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return berth_err_set(err, BERTH_EIO, "%s: cannot read the grid: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (len > (1 << 20)) {
            fclose(f);
            free(text);
            return berth_err_set(err, BERTH_EINPUT, "%s: larger than 1 MiB", path);
        }
        if (BERTH_GROW(text, cap, len + 2)) {
            fclose(f);
            free(text);
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        }
        text[len++] = (char)c;
    }
    fclose(f);
    if (!text && !(text = calloc(1, 1)))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    text[len] = '\0';
    if (memchr(text, '\0', len)) {
        free(text);
        return berth_err_set(err, BERTH_EINPUT, "%s: not a text file (a NUL byte)", path);
    }
    char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash)
        *slash = '\0';
    int rc = dir ? berth_grid_parse(text, path, slash ? dir : ".", out, err)
                 : berth_err_set(err, BERTH_ENOMEM, "out of memory");
    free(dir);
    free(text);
    return rc;
}

void berth_grid_free(struct berth_grid *g)
{
    if (!g)
        return;
    for (int d = 0; d < GRID_NDIMS; d++) {
        for (size_t i = 0; i < g->ndims[d]; i++)
            free(g->dims[d][i].words);
        free(g->dims[d]);
    }
    free(g->seeds);
    free(g->sim);
    for (size_t i = 0; i < g->ncells; i++)
        free((void *)g->cells[i].argv);
    free(g->cells);
    for (size_t i = 0; i < g->ninputs; i++)
        free((void *)g->inputs[i].argv);
    free(g->inputs);
    free(g->path);
    berth__arena_free(&g->arena);
    free(g);
}

/* ---- expansion ------------------------------------------------------------------------- */

static const char *fmt(struct berth_grid *g, const char *f, ...)
    __attribute__((format(printf, 2, 3)));
static const char *fmt(struct berth_grid *g, const char *f, ...)
{
    char buf[PATH_MAX + 256];
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return n < 0 ? NULL : berth__arena_strndup(&g->arena, buf, (size_t)n);
}

/* An argv of the words given, then the NULL-terminated lists (ends with a NULL list). */
static const char **argv_of(size_t *argc, const char *const *first, size_t nfirst, ...)
{
    size_t n = nfirst, cap = nfirst + 1;
    va_list ap;
    va_start(ap, nfirst);
    for (const char *const *l; (l = va_arg(ap, const char *const *));)
        for (size_t i = 0; l[i]; i++)
            cap++;
    va_end(ap);
    const char **v = malloc(cap * sizeof *v);
    if (!v)
        return NULL;
    memcpy(v, first, nfirst * sizeof *v);
    va_start(ap, nfirst);
    for (const char *const *l; (l = va_arg(ap, const char *const *));)
        for (size_t i = 0; l[i]; i++)
            v[n++] = l[i];
    va_end(ap);
    v[n] = NULL;
    *argc = n;
    return v;
}

static const char *const no_words[] = {NULL};

int berth_grid_expand(struct berth_grid *g, const char *out, struct berth_err *err)
{
    size_t nw = g->ndims[GRID_WORKLOAD], nc = g->ndims[GRID_CLUSTER];
    size_t nf = g->ndims[GRID_FLAGS], np = g->ndims[GRID_POLICY], ns = g->nseeds;
    double total = (double)nw * nc * nf * np * ns;
    if (total > MAX_CELLS)
        return berth_err_set(err, BERTH_EINPUT, "%s: %.0f cells, more than %d", g->path, total,
                             MAX_CELLS);
    if (g->cells)
        return berth_err_set(err, BERTH_EINTERNAL, "grid: expanded twice");
    g->cells = calloc((size_t)total + 1, sizeof *g->cells);
    g->inputs = calloc(nw * ns + 1, sizeof *g->inputs);
    size_t *input_of = calloc(nw * ns + 1, sizeof *input_of);
    if (!g->cells || !g->inputs || !input_of) {
        free(input_of);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    const char *resample = fmt(g, "%g", g->resample);
    if (!resample) {
        free(input_of);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    /* inputs: a generated or resampled trace per workload and seed */
    for (size_t w = 0; w < nw; w++)
        for (size_t s = 0; s < ns; s++) {
            const struct berth__grid_value *v = &g->dims[GRID_WORKLOAD][w];
            input_of[w * ns + s] = (size_t)-1;
            if (!v->gen && g->resample == 0)
                continue;
            struct berth_grid_input *in = &g->inputs[g->ninputs];
            const char *seed = fmt(g, "%llu", (unsigned long long)g->seeds[s]);
            in->path =
                fmt(g, "%s/traces/%s.s%llu.csv", out, v->label, (unsigned long long)g->seeds[s]);
            if (!seed || !in->path)
                goto nomem;
            if (v->gen) {
                const char *head[] = {"gen"};
                const char *tail[] = {"--seed", seed, "--out", in->path, NULL};
                in->argv = argv_of(&in->argc, head, 1, (const char *const *)v->words, tail,
                                   (const char *const *)NULL);
            } else {
                const char *head[] = {"trace", "slice", v->value, in->path};
                const char *boot[] = {"--bootstrap", "--seed", seed, NULL};
                const char *frac[] = {"--sample", resample, "--seed", seed, NULL};
                in->argv = argv_of(&in->argc, head, 4, g->resample < 0 ? boot : frac,
                                   (const char *const *)NULL);
            }
            if (!in->argv)
                goto nomem;
            input_of[w * ns + s] = g->ninputs++;
        }
    for (size_t w = 0; w < nw; w++)
        for (size_t c = 0; c < nc; c++)
            for (size_t f = 0; f < nf; f++)
                for (size_t p = 0; p < np; p++)
                    for (size_t s = 0; s < ns; s++) {
                        const struct berth__grid_value *W = &g->dims[GRID_WORKLOAD][w],
                                                       *C = &g->dims[GRID_CLUSTER][c],
                                                       *F = &g->dims[GRID_FLAGS][f],
                                                       *P = &g->dims[GRID_POLICY][p];
                        struct berth_grid_cell *cell = &g->cells[g->ncells];
                        cell->policy = P->label;
                        cell->cluster = C->label;
                        cell->workload = W->label;
                        cell->flags = F->label;
                        cell->seed = g->seeds[s];
                        cell->input = input_of[w * ns + s];
                        cell->name = fmt(g, "%s.%s.%s.%s.s%llu", P->label, C->label, W->label,
                                         F->label, (unsigned long long)cell->seed);
                        const char *seed = fmt(g, "%llu", (unsigned long long)cell->seed);
                        const char *trace =
                            cell->input == (size_t)-1 ? W->value : g->inputs[cell->input].path;
                        if (!cell->name || !seed)
                            goto nomem;
                        const char *head[] = {"--cluster", C->value, "--trace", trace,
                                              "--policy",  P->value, "--seed",  seed};
                        cell->argv = argv_of(&cell->argc, head, 8,
                                             g->sim ? (const char *const *)g->sim : no_words,
                                             F->words ? (const char *const *)F->words : no_words,
                                             (const char *const *)NULL);
                        if (!cell->argv)
                            goto nomem;
                        g->ncells++;
                    }
    free(input_of);
    return 0;
nomem:
    free(input_of);
    return berth_err_set(err, BERTH_ENOMEM, "out of memory");
}

size_t berth_grid_ncells(const struct berth_grid *g)
{
    return g->ncells;
}

const struct berth_grid_cell *berth_grid_cell(const struct berth_grid *g, size_t i)
{
    return i < g->ncells ? &g->cells[i] : NULL;
}

size_t berth_grid_ninputs(const struct berth_grid *g)
{
    return g->ninputs;
}

const struct berth_grid_input *berth_grid_input(const struct berth_grid *g, size_t i)
{
    return i < g->ninputs ? &g->inputs[i] : NULL;
}

size_t berth_grid_nflagsets(const struct berth_grid *g)
{
    return g->ndims[GRID_FLAGS];
}

const char *const *berth_grid_flagset(const struct berth_grid *g, size_t i, size_t *nwords,
                                      unsigned *line)
{
    const struct berth__grid_value *F = &g->dims[GRID_FLAGS][i];
    *line = F->line;
    /* sim's words then the value's: the expansion's own order (a cell's argv after --seed) */
    const struct berth_grid_cell *c = NULL;
    for (size_t k = 0; k < g->ncells; k++)
        if (!strcmp(g->cells[k].flags, F->label)) {
            c = &g->cells[k];
            break;
        }
    if (!c) {
        *nwords = 0;
        return no_words;
    }
    *nwords = c->argc - 8;
    return c->argv + 8;
}
