/* Slurm's GRES and TRES strings read and written without libslurm, so that the parsing is
 * unit-tested on every machine (tests/slurmapi/test_slurmapi.c) and shared by the real wrapper. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slurmapi/slurm_api.h"

/* Copies src[0..len) into a NUL-terminated dst of size; fails when it does not fit. */
static int copy_span(char *dst, size_t size, const char *src, size_t len, const char *what,
                     struct berth_err *e)
{
    if (len >= size)
        return berth_err_set(e, BERTH_EINPUT, "slurm: %s \"%.*s\" longer than %zu bytes", what,
                             (int)len, src, size - 1);
    memcpy(dst, src, len);
    dst[len] = '\0';
    return 0;
}

static int parse_count(const char *s, uint32_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (*end != '\0' || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Splits one GRES entry "name[:type][:count]" or "name[:type]=count" (any "(...)" suffix
 * already cut) into its parts; count 1 when absent. */
static int split_entry(const char *entry, char *name, char *type, uint32_t *count,
                       struct berth_err *e)
{
    char buf[BERTH_SLURM_LIST_MAX];
    int rc = copy_span(buf, sizeof buf, entry, strlen(entry), "GRES entry", e);
    if (rc < 0)
        return rc;
    *count = 1;
    type[0] = '\0';
    char *eq = strchr(buf, '=');
    if (eq) {
        *eq = '\0';
        if (parse_count(eq + 1, count) < 0)
            return berth_err_set(e, BERTH_EINPUT, "slurm: GRES entry \"%s\": bad count", entry);
    }
    char *tok[3];
    size_t nt = 0;
    for (char *p = buf; nt < 3;) {
        tok[nt++] = p;
        char *c = strchr(p, ':');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    if (!eq && nt > 1 && parse_count(tok[nt - 1], count) == 0)
        nt--; /* the last part was the count */
    else if (!eq && nt == 3)
        return berth_err_set(e, BERTH_EINPUT, "slurm: GRES entry \"%s\": bad count", entry);
    if (tok[0][0] == '\0' || nt > 2)
        return berth_err_set(e, BERTH_EINPUT, "slurm: GRES entry \"%s\" not name[:type][:count]",
                             entry);
    rc = copy_span(name, BERTH_SLURM_NAME_MAX, tok[0], strlen(tok[0]), "GRES name", e);
    if (rc == 0 && nt == 2)
        rc = copy_span(type, BERTH_SLURM_NAME_MAX, tok[1], strlen(tok[1]), "GRES type", e);
    return rc;
}

/* Calls fn on each entry of a list separated by ',' or ';' outside parentheses, with any
 * "(...)" suffix cut and passed apart (its text without the outer parentheses, "" if none).
 * "(null)" and "" are empty lists. */
typedef int (*entry_fn)(const char *entry, const char *suffix, void *arg, struct berth_err *e);
static int each_entry(const char *list, entry_fn fn, void *arg, struct berth_err *e)
{
    if (!list || !*list || strcmp(list, "(null)") == 0)
        return 0;
    char entry[BERTH_SLURM_LIST_MAX], suffix[BERTH_SLURM_LIST_MAX];
    size_t len = 0, slen = 0;
    int depth = 0;
    for (const char *p = list;; p++) {
        char c = *p;
        if (c == '\0' || (depth == 0 && (c == ',' || c == ';'))) {
            entry[len] = '\0';
            suffix[slen] = '\0';
            if (len > 0) {
                int rc = fn(entry, suffix, arg, e);
                if (rc < 0)
                    return rc;
            }
            len = slen = 0;
            if (c == '\0')
                return 0;
            continue;
        }
        if ((c == '(' && depth++ == 0) || (c == ')' && depth > 0 && --depth == 0))
            continue;
        char *buf = depth ? suffix : entry;
        size_t *n = depth ? &slen : &len;
        if (*n + 1 >= sizeof entry)
            return berth_err_set(e, BERTH_EINPUT, "slurm: GRES list \"%.80s...\": entry too long",
                                 list);
        buf[(*n)++] = c;
    }
    return 0;
}

/* GPUs in use in a per-GPU breakdown "3/4,0/4,2/4" (24.11's GresUsed for shards and MPS):
 * the slots whose first number is not 0. -1 when the suffix is not such a breakdown (22.05's
 * "IDX:0-1"). */
static int busy_slots(const char *suffix)
{
    if (!strchr(suffix, '/'))
        return -1;
    int busy = 0;
    for (const char *p = suffix; *p;) {
        char *end;
        unsigned long used = strtoul(p, &end, 10);
        if (end == p || *end != '/')
            return -1;
        busy += used > 0;
        p = end + strcspn(end, ",");
        if (*p == ',')
            p++;
    }
    return busy;
}

struct node_arg {
    struct berth__slurm_node *n;
    bool used;
};

static int node_entry(const char *entry, const char *suffix, void *arg, struct berth_err *e)
{
    struct node_arg *a = arg;
    char name[BERTH_SLURM_NAME_MAX], type[BERTH_SLURM_NAME_MAX];
    uint32_t count;
    int rc = split_entry(entry, name, type, &count, e);
    if (rc < 0)
        return rc;
    struct berth__slurm_node *n = a->n;
    if (strcmp(name, "shard") == 0) {
        /* in use, 22.05 counts the GPUs lending shards; 24.11 counts shards and breaks them
         * down per GPU */
        int busy = a->used ? busy_slots(suffix) : -1;
        *(a->used ? &n->shard_gpus_used : &n->shards) += busy >= 0 ? (uint32_t)busy : count;
    } else if (strcmp(name, "mps") == 0) {
        *(a->used ? &n->mps_used : &n->mps) += count;
    } else if (strcmp(name, "gpu") == 0) {
        size_t i = 0;
        while (i < n->n_gpu_types && strcmp(n->gpus[i].type, type) != 0)
            i++;
        if (i == n->n_gpu_types) {
            if (a->used)
                return berth_err_set(e, BERTH_EINPUT,
                                     "slurm: node %s: GPUs \"%s\" in use but not configured",
                                     n->name, entry);
            if (i == BERTH_SLURM_GPU_TYPES)
                return berth_err_set(e, BERTH_EINPUT, "slurm: node %s: more than %d GPU types",
                                     n->name, BERTH_SLURM_GPU_TYPES);
            memcpy(n->gpus[i].type, type, sizeof type);
            n->n_gpu_types++;
        }
        *(a->used ? &n->gpus[i].used : &n->gpus[i].count) += count;
    }
    /* other GRES (nic, ...) are not GPUs and do not concern placement */
    return 0;
}

int berth__slurm_parse_node_gres(const char *gres, bool used, struct berth__slurm_node *n,
                                 struct berth_err *e)
{
    struct node_arg a = {n, used};
    return each_entry(gres, node_entry, &a, e);
}

struct tres_arg {
    struct berth__slurm_ask *ask;
    char which;
};

static int tres_entry(const char *entry, const char *suffix, void *arg, struct berth_err *e)
{
    (void)suffix;
    struct tres_arg *a = arg;
    if (strncmp(entry, "gres:", 5) != 0 && strncmp(entry, "gres/", 5) != 0)
        return 0; /* cpu, mem, license TRES: not GPUs */
    char name[BERTH_SLURM_NAME_MAX], type[BERTH_SLURM_NAME_MAX];
    uint32_t count;
    int rc = split_entry(entry + 5, name, type, &count, e);
    if (rc < 0)
        return rc;
    struct berth__slurm_ask *k = a->ask;
    if (strcmp(name, "gpu") == 0) {
        uint32_t *dst = a->which == 'n'   ? &k->gpus_per_node
                        : a->which == 'j' ? &k->gpus_per_job
                                          : &k->gpus_per_task;
        *dst += count;
        if (type[0])
            memcpy(k->gpu_type, type, sizeof type);
    } else if (strcmp(name, "shard") == 0 && a->which == 'n') {
        k->shards_per_node += count;
    } else if (strcmp(name, "mps") == 0 && a->which == 'n') {
        k->mps_per_node += count;
    }
    return 0;
}

int berth__slurm_parse_tres(const char *tres, char which, struct berth__slurm_ask *ask,
                            struct berth_err *e)
{
    if (which != 'n' && which != 'j' && which != 't')
        return berth_err_set(e, BERTH_EINTERNAL, "slurm: parse_tres: bad kind '%c'", which);
    struct tres_arg a = {ask, which};
    return each_entry(tres, tres_entry, &a, e);
}

int berth__slurm_format_gres(char *buf, size_t size, uint32_t gpus, const char *type,
                             uint32_t shards, struct berth_err *e)
{
    int len = 0;
    buf[0] = '\0';
    if (gpus > 0 && shards > 0)
        return berth_err_set(e, BERTH_EINPUT,
                             "slurm: a job asks either whole GPUs or shards, not both");
    if (type && *type && (strchr(type, ':') || strchr(type, ',') || strchr(type, ';')))
        return berth_err_set(e, BERTH_EINPUT, "slurm: bad GPU type \"%s\"", type);
    if (gpus > 0 && type && *type)
        len = snprintf(buf, size, "gres:gpu:%s:%u", type, gpus);
    else if (gpus > 0)
        len = snprintf(buf, size, "gres:gpu:%u", gpus);
    else if (shards > 0)
        len = snprintf(buf, size, "gres:shard:%u", shards);
    if (len < 0 || (size_t)len >= size)
        return berth_err_set(e, BERTH_EINPUT, "slurm: GRES string too long");
    return 0;
}

int berth__slurm_argv_script(char *buf, size_t size, const char *const *argv, struct berth_err *e)
{
    if (!argv || !argv[0])
        return berth_err_set(e, BERTH_EINPUT, "slurm: submit: neither a script nor argv");
    size_t len = 0;
    const char *head = "#!/bin/sh\nexec";
    for (const char *h = head; *h; h++) {
        if (len + 1 >= size)
            goto too_long;
        buf[len++] = *h;
    }
    for (const char *const *a = argv; *a; a++) {
        if (len + 2 >= size)
            goto too_long;
        buf[len++] = ' ';
        buf[len++] = '\'';
        for (const char *c = *a; *c; c++) {
            const char *piece = *c == '\'' ? "'\\''" : NULL;
            size_t pl = piece ? 4 : 1;
            if (len + pl + 1 >= size)
                goto too_long;
            if (piece) {
                memcpy(buf + len, piece, pl);
                len += pl;
            } else {
                buf[len++] = *c;
            }
        }
        if (len + 1 >= size)
            goto too_long;
        buf[len++] = '\'';
    }
    if (len + 2 > size)
        goto too_long;
    buf[len++] = '\n';
    buf[len] = '\0';
    return 0;
too_long:
    return berth_err_set(e, BERTH_EINPUT, "slurm: submit: the command is longer than %zu bytes",
                         size - 1);
}

bool berth__slurm_job_failed_restart(const struct berth__slurm_job *job)
{
    return job->state == BERTH_SLURM_JOB_FAILED && job->restarts > 0 && job->start_us > 0 &&
           job->end_us - job->start_us < BERTH_SLURM_RESTART_FAIL_US;
}

int berth__slurm_format_indices(char *buf, size_t size, const size_t *idx, size_t n,
                                struct berth_err *e)
{
    size_t o = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < n;) {
        if (i && idx[i] <= idx[i - 1])
            return berth_err_set(e, BERTH_EINTERNAL,
                                 "slurm: array indices not sorted and "
                                 "distinct");
        size_t j = i;
        while (j + 1 < n && idx[j + 1] == idx[j] + 1)
            j++;
        int w = j > i ? snprintf(buf + o, size - o, "%s%zu-%zu", o ? "," : "", idx[i], idx[j])
                      : snprintf(buf + o, size - o, "%s%zu", o ? "," : "", idx[i]);
        if (w < 0 || (size_t)w >= size - o)
            return berth_err_set(e, BERTH_EINPUT,
                                 "slurm: the array's indices take more than "
                                 "%zu bytes",
                                 size - 1);
        o += (size_t)w;
        i = j + 1;
    }
    return 0;
}

int berth__slurm_parse_indices(const char *s, uint32_t *idx, size_t max, size_t *n,
                               struct berth_err *e)
{
    *n = 0;
    for (const char *p = s; *p && *p != '%';) {
        size_t l = strcspn(p, ",%");
        char *end;
        unsigned long a = strtoul(p, &end, 10), b = a, step = 1;
        int ok = end > p && *p >= '0' && *p <= '9';
        if (ok && *end == '-') {
            const char *q = end + 1;
            b = strtoul(q, &end, 10);
            ok = end > q && *q >= '0' && *q <= '9' && b >= a;
        }
        if (ok && *end == ':') {
            const char *q = end + 1;
            step = strtoul(q, &end, 10);
            ok = end > q && *q >= '0' && *q <= '9' && step > 0;
        }
        if (!ok || end != p + l || b > UINT32_MAX - 1)
            return berth_err_set(e, BERTH_EINPUT, "slurm: array indices '%.60s': bad range '%.*s'",
                                 s, (int)(l > 30 ? 30 : l), p);
        for (unsigned long k = a; k <= b && *n < max; k += step)
            idx[(*n)++] = (uint32_t)k;
        p += l + (p[l] == ',');
    }
    return 0;
}

/* One range list "01-03,7" inside brackets after prefix: each name into out. */
static int hostlist_ranges(const char *prefix, size_t plen, const char *r, const char *end,
                           char (*out)[BERTH_SLURM_NAME_MAX], size_t max, size_t *n,
                           struct berth_err *e)
{
    while (r < end) {
        const char *comma = memchr(r, ',', (size_t)(end - r));
        const char *stop = comma ? comma : end, *dash = memchr(r, '-', (size_t)(stop - r));
        char *q;
        unsigned long lo = strtoul(r, &q, 10), hi = lo;
        int width = (int)(q - r);
        if (q == r || (dash ? q != dash : q != stop))
            return berth_err_set(e, BERTH_EINPUT, "slurm node list: bad range '%.*s'",
                                 (int)(stop - r), r);
        if (dash) {
            hi = strtoul(dash + 1, &q, 10);
            if (q == dash + 1 || q != stop || hi < lo || hi - lo > 100000)
                return berth_err_set(e, BERTH_EINPUT, "slurm node list: bad range '%.*s'",
                                     (int)(stop - r), r);
        }
        for (unsigned long k = lo; k <= hi; k++) {
            if (*n >= max)
                return berth_err_set(e, BERTH_EINPUT, "slurm node list: more than %zu nodes", max);
            if (snprintf(out[*n], BERTH_SLURM_NAME_MAX, "%.*s%0*lu", (int)plen, prefix, width, k) >=
                BERTH_SLURM_NAME_MAX)
                return berth_err_set(e, BERTH_EINPUT, "slurm node list: a name is too long");
            (*n)++;
        }
        r = comma ? comma + 1 : end;
    }
    return 0;
}

int berth__slurm_hostlist(const char *list, char (*out)[BERTH_SLURM_NAME_MAX], size_t max,
                          size_t *n, struct berth_err *e)
{
    *n = 0;
    for (const char *p = list; p && *p;) {
        size_t plen = strcspn(p, "[,");
        if (p[plen] == '[') {
            const char *close = strchr(p + plen, ']');
            if (!close)
                return berth_err_set(e, BERTH_EINPUT, "slurm node list '%s': no ']'", list);
            int rc = hostlist_ranges(p, plen, p + plen + 1, close, out, max, n, e);
            if (rc)
                return rc;
            p = close + 1;
            if (*p && *p != ',')
                return berth_err_set(e, BERTH_EINPUT,
                                     "slurm node list '%s': text after ']' (not supported)", list);
        } else if (plen) {
            if (*n >= max)
                return berth_err_set(e, BERTH_EINPUT, "slurm node list: more than %zu nodes", max);
            if (plen >= BERTH_SLURM_NAME_MAX)
                return berth_err_set(e, BERTH_EINPUT, "slurm node list: a name is too long");
            memcpy(out[*n], p, plen);
            out[(*n)++][plen] = 0;
            p += plen;
        }
        p += *p == ',';
    }
    return 0;
}

/* One --signal value: [{R|B}:]SIG[@SECS]; what names where it was found. */
static int signal_value(const char *v, size_t l, char *sig, size_t size, uint32_t *lead_s,
                        bool *batch, const char *what, struct berth_err *e)
{
    char buf[64];
    if (l == 0 || l >= sizeof buf)
        goto bad;
    memcpy(buf, v, l);
    buf[l] = '\0';
    char *p = buf, *at = strchr(buf, '@');
    *batch = false;
    if ((p[0] == 'B' || p[0] == 'R') && p[1] == ':') { /* R: (reservation) is sbatch's too */
        *batch = p[0] == 'B';
        p += 2;
    }
    *lead_s = 60;
    if (at) {
        char *end;
        *at = '\0';
        unsigned long t = strtoul(at + 1, &end, 10);
        if (end == at + 1 || *end || t > 65535)
            goto bad;
        *lead_s = (uint32_t)t;
    }
    if (!strncasecmp(p, "SIG", 3))
        p += 3;
    if (!*p ||
        strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") != strlen(p) ||
        strlen(p) >= size)
        goto bad;
    snprintf(sig, size, "%s", p);
    return 1;
bad:
    return berth_err_set(e, BERTH_EINPUT, "%s: expected [B:]SIG[@SECS], found '%.*s'", what,
                         (int)(l < 60 ? l : 60), v);
}

int berth__slurm_parse_signal(const char *script, char *sig, size_t size, uint32_t *lead_s,
                              bool *batch, struct berth_err *e)
{
    int found = 0, rc;
    const char *line = script ? script : "";
    if (!strncmp(line, "#!", 2)) /* the interpreter line */
        line += strcspn(line, "\n");
    for (; *line; line += *line == '\n') {
        size_t l = strcspn(line, "\n");
        const char *p = line, *end = line + l;
        line = end;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < end && *p != '#')
            break; /* the first command: sbatch reads no #SBATCH line after it */
        if (end - p < 7 || strncmp(p, "#SBATCH", 7))
            continue;
        int next = 0; /* the token before was "--signal": this one is its value */
        for (p += 7; p < end;) {
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            size_t w = 0;
            while (p + w < end && p[w] != ' ' && p[w] != '\t')
                w++;
            if (!w || *p == '#')
                break; /* a comment after the options */
            if (next || (w > 9 && !strncmp(p, "--signal=", 9))) {
                size_t skip = next ? 0 : 9;
                if ((rc = signal_value(p + skip, w - skip, sig, size, lead_s, batch,
                                       "#SBATCH --signal", e)) < 0)
                    return rc;
                found = 1;
                next = 0;
            } else {
                next = w == 8 && !strncmp(p, "--signal", 8);
            }
            p += w;
        }
    }
    return found;
}

int berth__slurm_comment_signal(const char *comment, char *sig, size_t size, uint32_t *lead_s,
                                bool *batch, struct berth_err *e)
{
    static const char key[] = "berth-signal=";
    for (const char *p = comment ? comment : ""; *p;) {
        p += strspn(p, " ");
        size_t w = strcspn(p, " ");
        if (w > sizeof key - 1 && !strncmp(p, key, sizeof key - 1)) {
            const char *v = p + sizeof key - 1;
            size_t l = w - (sizeof key - 1);
            if (l == 3 && !strncmp(v, "0@0", 3))
                return 0; /* sbatch's "no --signal" */
            return signal_value(v, l, sig, size, lead_s, batch, "comment berth-signal", e);
        }
        p += w;
    }
    return 0;
}
