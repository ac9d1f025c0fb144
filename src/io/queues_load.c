/* Reads a queues file (docs/queues.md; model/queues.h says what it means): one declaration
 * a line, words separated by blanks, '#' to the end of a line a comment.
 *
 *   queue NAME [cohort=C] [quota=SPEC] [borrow=SPEC] [lend=SPEC] [share=W] [max_gpus=N]
 *              [max_pending=N]
 *   user NAME [share=W] [max_gpus=N] [max_pending=N]
 *   gpu_weight TYPE=W [TYPE=W ...]
 *
 * SPEC is TYPE:N[,TYPE:N...] in GPUs (three decimals at most), or N alone on a cluster of one
 * GPU type. A quota names what a queue is guaranteed per type (types it does not name: 0);
 * borrow and lend default to no limit for the types they do not name. Every problem is bad
 * input naming FILE:LINE and the key. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

#include "berth/queues.h"
#include "model/queues.h"
#include "util/num.h"

#define MAX_LINE  4096
#define MAX_NAME  63
#define MAX_QUEUE 4096
#define MAX_USERS 65536
#define MAX_GPUS  (INT64_C(1) << 30) /* milli-GPUs a quota or limit may name */

struct rd {
    const char *path;
    uint32_t line;
    const struct berth_cluster *c;
    struct berth_queues *q;
    size_t qcap, ucap, ccap;
};

static int bad(const struct rd *r, const char *key, const char *what, const char *found,
               struct berth_err *err)
{
    char ex[96];
    return berth_err_set(err, BERTH_EINPUT, "%s:%u: %s: expected %s, found %s", r->path, r->line,
                         key, what, berth__excerpt(ex, sizeof ex, found, strlen(found)));
}

static int name_ok(const char *s, int star)
{
    size_t n = strlen(s);
    if (star && !strcmp(s, "*"))
        return 1;
    if (!n || n > MAX_NAME)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("._-@", s[i]))
            return 0;
    return 1;
}

/* "8" or "8.5": milli-GPUs in 0..MAX_GPUS. */
static int gpus_of(const char *s, size_t len, int64_t *out)
{
    int64_t v;
    if (berth__parse_scaled(s, len, 3, &v) || v < 0 || v > MAX_GPUS)
        return -1;
    int64_t exact;
    if (berth__parse_scaled(s, len, 6, &exact) || exact != v * 1000)
        return -1; /* more than three decimals */
    *out = v;
    return 0;
}

/* SPEC into per-type values (types it does not name keep what v holds). */
static int spec_of(const struct rd *r, const char *key, const char *s, int64_t *v,
                   struct berth_err *err)
{
    const struct berth_cluster *c = r->c;
    size_t nt = berth_cluster_type_count(c);
    char have[256] = "";
    size_t o = 0;
    for (size_t t = 0; t < nt && o < sizeof have; t++)
        o += (size_t)snprintf(have + o, sizeof have - o, "%s%s", t ? ", " : "",
                              berth_cluster_type_name(c, t));
    if (!strchr(s, ':')) {
        int64_t g;
        if (gpus_of(s, strlen(s), &g))
            return bad(r, key, "GPUs (TYPE:N[,TYPE:N...], N a number >= 0)", s, err);
        if (nt != 1) {
            char what[400];
            snprintf(what, sizeof what, "TYPE:N naming the GPU type (the cluster has %s)", have);
            return bad(r, key, what, s, err);
        }
        v[0] = g;
        return 0;
    }
    uint64_t seen = 0;
    for (const char *p = s; *p;) {
        const char *e = strchr(p, ','), *end = e ? e : p + strlen(p);
        const char *colon = memchr(p, ':', (size_t)(end - p));
        char tn[64];
        if (!colon || colon == p || (size_t)(colon - p) >= sizeof tn)
            return bad(r, key, "TYPE:N[,TYPE:N...]", s, err);
        snprintf(tn, sizeof tn, "%.*s", (int)(colon - p), p);
        int t = berth_cluster_type_find(c, tn);
        if (t < 0) {
            char what[400];
            snprintf(what, sizeof what, "a GPU type of the cluster (%s)", have);
            return bad(r, key, what, tn, err);
        }
        int64_t g;
        if (gpus_of(colon + 1, (size_t)(end - colon - 1), &g))
            return bad(r, key, "TYPE:N with N a number of GPUs >= 0 (three decimals at most)", s,
                       err);
        if (seen >> t & 1)
            return bad(r, key, "each GPU type once", tn, err);
        seen |= UINT64_C(1) << t;
        v[t] = g;
        p = e ? e + 1 : end;
    }
    return 0;
}

static int count_of(const struct rd *r, const char *key, const char *s, int64_t max, int64_t *out,
                    struct berth_err *err)
{
    int64_t v;
    if (berth__parse_i64(s, strlen(s), &v) || v < 0 || v > max) {
        char what[96];
        snprintf(what, sizeof what, "a whole number from 0 to %lld (0: no limit)", (long long)max);
        return bad(r, key, what, s, err);
    }
    *out = v;
    return 0;
}

static int share_of(const struct rd *r, const char *s, double *out, struct berth_err *err)
{
    if (berth__parse_double(s, strlen(s), out) || !(*out > 0) || *out > 1e9)
        return bad(r, "share", "a number > 0 (at most 1e9)", s, err);
    return 0;
}

static int cohort_of(struct rd *r, const char *s, int32_t *out, struct berth_err *err)
{
    struct berth_queues *q = r->q;
    if (!name_ok(s, 0))
        return bad(r, "cohort", "a name of letters, digits and ._-@ (at most 63 bytes)", s, err);
    for (size_t i = 0; i < q->ncohorts; i++)
        if (!strcmp(q->cohorts[i], s)) {
            *out = (int32_t)i;
            return 0;
        }
    const char *n = berth__arena_strndup(&q->names, s, strlen(s));
    if (!n || BERTH_GROW(q->cohorts, r->ccap, q->ncohorts + 1))
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", r->path);
    q->cohorts[q->ncohorts] = n;
    *out = (int32_t)q->ncohorts++;
    return 0;
}

/* Splits "key=value" in place: the value, or NULL without '='. */
static char *value_of(char *w)
{
    char *eq = strchr(w, '=');
    if (!eq || eq == w)
        return NULL;
    *eq = '\0';
    return eq + 1;
}

static int queue_line(struct rd *r, char **w, int nw, struct berth_err *err)
{
    struct berth_queues *q = r->q;
    if (nw < 2 || !name_ok(w[1], 1))
        return bad(r, "queue", "a queue name (letters, digits and ._-@, at most 63 bytes, or *)",
                   nw < 2 ? "" : w[1], err);
    for (size_t i = 0; i < q->nq; i++)
        if (!strcmp(q->q[i].name, w[1]))
            return berth_err_set(err, BERTH_EINPUT, "%s:%u: queue %s: declared twice (line %u)",
                                 r->path, r->line, w[1], q->q[i].line);
    if (q->nq >= MAX_QUEUE)
        return bad(r, "queue", "at most 4096 queues", w[1], err);
    if (BERTH_GROW(q->q, r->qcap, q->nq + 1))
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", r->path);
    struct berth__qdef *d = &q->q[q->nq];
    memset(d, 0, sizeof *d);
    d->name = berth__arena_strndup(&q->names, w[1], strlen(w[1]));
    if (!d->name)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", r->path);
    d->cohort = -1;
    d->share = 1;
    d->line = r->line;
    for (int t = 0; t < BERTH_MAX_GPU_TYPES; t++)
        d->borrow[t] = d->lend[t] = BERTH_Q_UNLIMITED;
    int has_borrow = 0, has_lend = 0;
    uint32_t seen = 0;
    static const char *const keys[] = {"cohort", "quota",    "borrow",     "lend",
                                       "share",  "max_gpus", "max_pending"};
    for (int i = 2; i < nw; i++) {
        char *v = value_of(w[i]);
        if (!v)
            return bad(r, "queue", "KEY=VALUE", w[i], err);
        int k = 0;
        while (k < 7 && strcmp(w[i], keys[k]))
            k++;
        if (k == 7)
            return bad(r, w[i],
                       "a queue key (cohort, quota, borrow, lend, share, max_gpus, max_pending)",
                       w[i], err);
        if (seen >> k & 1)
            return bad(r, w[i], "each key once", w[i], err);
        seen |= 1u << k;
        int rc = 0;
        int64_t n = 0;
        switch (k) {
        case 0:
            rc = cohort_of(r, v, &d->cohort, err);
            break;
        case 1:
            d->has_quota = 1;
            rc = spec_of(r, "quota", v, d->nominal, err);
            break;
        case 2:
            has_borrow = 1;
            rc = spec_of(r, "borrow", v, d->borrow, err);
            break;
        case 3:
            has_lend = 1;
            rc = spec_of(r, "lend", v, d->lend, err);
            break;
        case 4:
            rc = share_of(r, v, &d->share, err);
            break;
        case 5:
            if (!(rc = gpus_of(v, strlen(v), &n)
                           ? bad(r, "max_gpus", "GPUs >= 0 (0: no limit)", v, err)
                           : 0))
                d->max_gpus = n;
            break;
        default:
            rc = count_of(r, "max_pending", v, INT64_C(1) << 40, &d->max_pending, err);
        }
        if (rc)
            return rc;
    }
    if ((has_borrow || has_lend || d->cohort >= 0) && !d->has_quota)
        return bad(r,
                   has_borrow ? "borrow"
                   : has_lend ? "lend"
                              : "cohort",
                   "a quota= on the same line", "", err);
    if (has_borrow && d->cohort < 0)
        return bad(r, "borrow", "a cohort= on the same line (a queue borrows from its cohort)", "",
                   err);
    for (size_t t = 0; t < berth_cluster_type_count(r->c); t++)
        if (d->lend[t] != BERTH_Q_UNLIMITED && d->lend[t] > d->nominal[t]) {
            char what[128], found[64];
            snprintf(what, sizeof what, "at most the quota of %s (%lld.%03lld GPUs)",
                     berth_cluster_type_name(r->c, t), (long long)(d->nominal[t] / 1000),
                     (long long)(d->nominal[t] % 1000));
            snprintf(found, sizeof found, "%lld.%03lld", (long long)(d->lend[t] / 1000),
                     (long long)(d->lend[t] % 1000));
            return bad(r, "lend", what, found, err);
        }
    if (!strcmp(d->name, "*"))
        q->qdefault = (int32_t)q->nq;
    q->nq++;
    return 0;
}

static int user_line(struct rd *r, char **w, int nw, struct berth_err *err)
{
    struct berth_queues *q = r->q;
    if (nw < 2 || !name_ok(w[1], 1))
        return bad(r, "user", "a user name (letters, digits and ._-@, at most 63 bytes, or *)",
                   nw < 2 ? "" : w[1], err);
    for (size_t i = 0; i < q->nu; i++)
        if (!strcmp(q->u[i].name, w[1]))
            return berth_err_set(err, BERTH_EINPUT, "%s:%u: user %s: declared twice (line %u)",
                                 r->path, r->line, w[1], q->u[i].line);
    if (q->nu >= MAX_USERS)
        return bad(r, "user", "at most 65536 users", w[1], err);
    if (BERTH_GROW(q->u, r->ucap, q->nu + 1))
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", r->path);
    struct berth__udef *u = &q->u[q->nu];
    *u = (struct berth__udef){.share = -1, .max_gpus = -1, .max_pending = -1, .line = r->line};
    if (!(u->name = berth__arena_strndup(&q->names, w[1], strlen(w[1]))))
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", r->path);
    uint32_t seen = 0;
    for (int i = 2; i < nw; i++) {
        char *v = value_of(w[i]);
        if (!v)
            return bad(r, "user", "KEY=VALUE", w[i], err);
        int k = !strcmp(w[i], "share")         ? 0
                : !strcmp(w[i], "max_gpus")    ? 1
                : !strcmp(w[i], "max_pending") ? 2
                                               : -1;
        if (k < 0)
            return bad(r, w[i], "a user key (share, max_gpus, max_pending)", w[i], err);
        if (seen >> k & 1)
            return bad(r, w[i], "each key once", w[i], err);
        seen |= 1u << k;
        int rc;
        if (k == 0)
            rc = share_of(r, v, &u->share, err);
        else if (k == 1)
            rc = gpus_of(v, strlen(v), &u->max_gpus)
                     ? bad(r, "max_gpus", "GPUs >= 0 (0: no limit)", v, err)
                     : 0;
        else
            rc = count_of(r, "max_pending", v, INT64_C(1) << 40, &u->max_pending, err);
        if (rc)
            return rc;
    }
    if (!strcmp(u->name, "*"))
        q->udefault = (int32_t)q->nu;
    q->nu++;
    return 0;
}

static int weight_line(struct rd *r, char **w, int nw, struct berth_err *err)
{
    if (nw < 2)
        return bad(r, "gpu_weight", "TYPE=W pairs", "", err);
    for (int i = 1; i < nw; i++) {
        char *v = value_of(w[i]);
        if (!v)
            return bad(r, "gpu_weight", "TYPE=W", w[i], err);
        int t = berth_cluster_type_find(r->c, w[i]);
        if (t < 0)
            return bad(r, "gpu_weight", "a GPU type of the cluster", w[i], err);
        double x;
        if (berth__parse_double(v, strlen(v), &x) || !(x >= 0) || x > 1e6)
            return bad(r, w[i], "a usage weight from 0 to 1e6", v, err);
        r->q->type_weight[t] = x;
    }
    return 0;
}

static int parse_line(struct rd *r, char *s, struct berth_err *err)
{
    char *hash = strchr(s, '#');
    if (hash)
        *hash = '\0';
    char *w[64];
    int nw = 0;
    for (char *save = NULL, *t = strtok_r(s, " \t\r\n", &save); t;
         t = strtok_r(NULL, " \t\r\n", &save)) {
        if (nw == 64)
            return bad(r, t, "at most 64 words on a line", t, err);
        w[nw++] = t;
    }
    if (!nw)
        return 0;
    if (!strcmp(w[0], "queue"))
        return queue_line(r, w, nw, err);
    if (!strcmp(w[0], "user"))
        return user_line(r, w, nw, err);
    if (!strcmp(w[0], "gpu_weight"))
        return weight_line(r, w, nw, err);
    return bad(r, "line", "queue, user or gpu_weight", w[0], err);
}

int berth_queues_load(const char *path, const struct berth_cluster *c, struct berth_queues **out,
                      struct berth_err *err)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return berth_err_set(err, BERTH_EIO, "%s: cannot read: %s", path, strerror(errno));
    struct berth_queues *q = calloc(1, sizeof *q);
    if (!q) {
        fclose(f);
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    }
    berth__arena_init(&q->names);
    q->qdefault = q->udefault = -1;
    q->ntypes = berth_cluster_type_count(c);
    for (size_t t = 0; t < BERTH_MAX_GPU_TYPES; t++)
        q->type_weight[t] = 1.0;
    struct rd r = {.path = path, .c = c, .q = q};
    int rc = 0;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    while (!rc && (n = getline(&buf, &cap, f)) >= 0) {
        r.line++;
        if (n > MAX_LINE)
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: expected a line of at most %d bytes",
                               path, r.line, MAX_LINE);
        else if (memchr(buf, '\0', (size_t)n))
            rc = berth_err_set(err, BERTH_EINPUT, "%s:%u: expected text, found a NUL byte", path,
                               r.line);
        else
            rc = parse_line(&r, buf, err);
    }
    free(buf);
    if (!rc && !feof(f)) /* getline failed: out of memory, or a read error */
        rc = ferror(f) ? berth_err_set(err, BERTH_EIO, "%s: read error", path)
                       : berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    fclose(f);
    if (!rc && !q->nq && !q->nu)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s: expected at least one queue or user line, found none", path);
    if (!rc && !(q->path = berth__arena_strndup(&q->names, path, strlen(path))))
        rc = berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    if (rc) {
        berth_queues_free(q);
        return rc;
    }
    *out = q;
    return 0;
}
